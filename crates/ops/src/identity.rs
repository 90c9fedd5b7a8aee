//! `cogmem identity consolidate …`: rewriting IDENTITY.md's Self-Image section, gated like a
//! reflection (issue 7, item 6). Once 10 or more `[Self-Awareness]` entries have accumulated
//! since the last consolidation, the agent reads them (`input`), hands in a rewritten Self-Image
//! section and monthly summaries of its log (`submit`, which shows the diff), and a person
//! approves or rejects it. Approval rewrites the section (rewrite, not append), moves the
//! summarised months from the Recent log to the Archived log, and resets the counter, in one
//! commit.
//!
//! The submission waits in `memory/meta/pending-identity.md`, which exists only while one waits.

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::reflect::{self, CONSOLIDATION_DUE};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::identity::{self as identity_md, Consolidation};
use cogmem_store::store::reflection as rf;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock, utc_seconds};

/// The consolidation waiting for approval.
pub(crate) const PENDING_IDENTITY: &str = "memory/meta/pending-identity.md";

/// Reads a submission, turning what is wrong with it into the operation's error.
fn parse_submission(text: &str) -> Result<Consolidation, InputError> {
    identity_md::parse_consolidation(text).map_err(|why| InputError::Consolidation { why })
}

fn read(ws: &Workspace, rel: &str) -> crate::Result<String> {
    Ok(ws.read_text_if_exists(rel)?.unwrap_or_default())
}

/// decay-scores.json's own fields (no shard is read: nothing here needs an entry).
fn decay_state(ws: &Workspace) -> crate::Result<DecayFile> {
    Ok(DecayFile::load_for(ws.root(), &[])?)
}

fn require_due(ws: &Workspace, command: &str) -> crate::Result<()> {
    if ws.abs(PENDING_IDENTITY).exists() {
        return Err(RuleError::ReflectOrder {
            command: command.to_owned(),
            state: "awaiting the user's approval of a self-image consolidation",
            first: "cogmem identity consolidate approve` or `cogmem identity consolidate reject"
                .into(),
        }
        .into());
    }
    let n = decay_state(ws)?.self_awareness_since_consolidation();
    if n < CONSOLIDATION_DUE {
        return Err(RuleError::ConsolidationNotDue { count: n, needed: CONSOLIDATION_DUE }.into());
    }
    Ok(())
}

fn require_pending(ws: &Workspace, command: &str) -> crate::Result<String> {
    match ws.read_text_if_exists(PENDING_IDENTITY)? {
        Some(t) => Ok(t),
        None => Err(RuleError::ReflectOrder {
            command: command.to_owned(),
            state: "not waiting for approval (no consolidation was submitted)",
            first: "cogmem identity consolidate submit".into(),
        }
        .into()),
    }
}

/// What `identity consolidate input` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ConsolidationInput {
    /// Self-awareness entries since the last consolidation.
    pub entries_since: u64,
    /// The current Self-Image section.
    pub self_image: String,
    /// The Archived log's month lines (`YYYY-MM (N entries): summary`), oldest first.
    pub archived: Vec<String>,
    /// The Recent log lines.
    pub recent: Vec<String>,
    /// The whole text for the agent.
    pub text: String,
}

/// Prints what a consolidation works from: the Self-Image section, the archived months and the
/// Recent log of the self-awareness log, and the instructions, which ask for the skill's
/// four-way analysis (recurring, contradicting, new and fading patterns) before the rewrite.
/// Read-only; refused unless due (10 or more entries) and none waits.
pub fn input(ws: &Workspace) -> crate::Result<ConsolidationInput> {
    require_due(ws, "cogmem identity consolidate input")?;
    let identity = read(ws, layout::IDENTITY_MD)?;
    let self_image = identity_md::self_image(&identity);
    let archived = identity_md::archived_entries(&identity);
    let recent = identity_md::recent_entries(&identity);
    let n = decay_state(ws)?.self_awareness_since_consolidation();
    let mut text = format!(
        "# Self-image consolidation\n\n{n} self-awareness entries since the last consolidation.\n\n{self_image}\n\n"
    );
    // The whole log, older months first (issue 19, item 6): patterns fade or recur only
    // against what came before.
    for (title, lines) in [("Archived months", &archived), ("Recent", &recent)] {
        text.push_str(&format!("## Self-Awareness Log ({title})\n\n"));
        if lines.is_empty() {
            text.push_str("(none yet)\n");
        }
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text.push('\n');
    }
    text.push_str(
        "## Instructions\n\n\
First compare the recent entries with the archived months, in four ways:\n\n\
1. Recurring patterns: what shows up again and again, old months and recent entries alike.\n\
2. Contradicting patterns: recent entries that go against what the archived months (or the \
current Self-Image) say; decide which holds now, or keep the tension as an open question.\n\
3. New patterns: what appears only in the recent entries.\n\
4. Fading patterns: what the archived months show and the recent entries no longer do.\n\n\
Write that analysis under `## Analysis`, one `###` heading per way; it stays in the \
submission for the user to read and is not written to IDENTITY.md.\n\n\
Then rewrite the Self-Image section from it: rewrite it, do not append to it. Keep \
its six headings (### Who I Think I Am, ### Patterns I've Noticed, ### My Quirks, ### Edges & \
Limitations, ### What I Value (Discovered), ### Open Questions About Myself). Say only what the \
entries support.\n\n\
Then, under `## Compacted Log`, write one line per month to move out of the Recent log, as \
`YYYY-MM (N entries): summary`. Months you leave out stay in the Recent log.\n\n\
Answer with exactly these three sections:\n\n\
```\n## Analysis\n### Recurring patterns\n…\n### Contradicting patterns\n…\n### New patterns\n…\n\
### Fading patterns\n…\n\n## Self-Image\n### Who I Think I Am\n…\n\n## Compacted Log\n\
2026-11 (12 entries): …\n```\n\n\
Submit it with `cogmem identity consolidate submit -`; the user sees the diff and approves it.\n",
    );
    Ok(ConsolidationInput { entries_since: n, self_image, archived, recent, text })
}

/// A line diff: `-` removed, `+` added, ` ` kept (longest common subsequence).
pub(crate) fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] =
                if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

/// The pending consolidation, for [`reflect::submission_changed`]: approved only as submitted.
const SUBMITTED: reflect::Pending = reflect::Pending {
    rel: PENDING_IDENTITY,
    what: "the pending self-image consolidation",
    submit: "cogmem identity consolidate submit",
    reject: "cogmem identity consolidate reject",
    record: "refs/cogmem/submitted/identity",
};

/// What `identity consolidate submit` did.
#[derive(Debug, Clone, Serialize)]
pub struct SubmitReport {
    /// The diff IDENTITY.md would get.
    pub diff: String,
    /// The commit.
    pub commit: String,
}

/// Validates a consolidation and stores it in pending-identity.md (one commit, approval
/// pending), returning the diff the user will approve. Refused unless due and none waits.
pub fn submit(
    ws: &Workspace,
    text: &str,
    actor: &Actor,
    clock: &dyn Clock,
) -> crate::Result<SubmitReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    require_due(ws, "cogmem identity consolidate submit")?;
    let text = crate::remember::check_text(text)?;
    crate::remember::check_size(ws, &text)?;
    // It becomes IDENTITY.md when approved; there is no `--allow-secret` for a self-image.
    cogmem_store::secrets::check_note(&text, "the consolidation")?;
    let sub = parse_submission(&text)?;
    let now = clock.now();
    let identity = read(ws, layout::IDENTITY_MD)?;
    let covered = identity_md::covered_entries(&identity, &sub);
    let date = now.format("%Y-%m-%d").to_string();
    let diff = diff(&identity, &identity_md::consolidated(&identity, &sub, &date, Some(&covered)));
    // What it saw, so that approval moves only these entries and counts the later ones.
    let count = decay_state(ws)?.self_awareness_since_consolidation();
    let seen = identity_md::seen_section(count, &covered);
    let file = format!(
        "# Pending Self-Image Consolidation\n\n<!-- Waits for the user's approval: `cogmem identity consolidate approve` or `reject`. -->\n\n- **Submitted:** {} by {actor}\n\n{seen}\n<!-- submission text -->\n{}\n",
        utc_seconds(&now),
        text.trim_end()
    );
    let mut change = Change::new(actor.clone(), "cogmem identity consolidate submit")
        .with_approval(Approval::Pending);
    change.write(
        PENDING_IDENTITY,
        file.into_bytes(),
        Action::Create,
        "self-image consolidation submitted",
    );
    let commit = change.apply(ws, &repo, &lock, &FixedClock(now))?.commit;
    reflect::record_submission(&repo, &SUBMITTED, &commit);
    Ok(SubmitReport { diff, commit })
}

/// Shows the pending consolidation's diff against IDENTITY.md as it is now. Read-only.
pub fn show(ws: &Workspace, clock: &dyn Clock) -> crate::Result<String> {
    let pending = require_pending(ws, "cogmem identity consolidate show")?;
    let sub = parse_submission(&rf::submission_text_of(&pending))?;
    let identity = read(ws, layout::IDENTITY_MD)?;
    let covered = identity_md::seen(&pending).map(|(_, c)| c);
    let date = clock.now().format("%Y-%m-%d").to_string();
    Ok(diff(&identity, &identity_md::consolidated(&identity, &sub, &date, covered.as_deref())))
}

/// What approve or reject did.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionReport {
    /// `approved` or `rejected`.
    pub outcome: &'static str,
    /// The diff applied (approval only).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// The commit.
    pub commit: String,
}

/// Approves the pending consolidation in one commit as the last reflection's actor, approval
/// approved: IDENTITY.md rewritten, decay-scores.json's `last_self_image_consolidation` set and
/// the counter reset, the pending file removed. Only a person may approve.
///
/// Only the Recent entries the submission saw move to the Archived log, and the counter keeps
/// the entries approved since it was submitted (a reflection may be approved while it waits).
pub fn approve(ws: &Workspace, by: &Actor, clock: &dyn Clock) -> crate::Result<DecisionReport> {
    crate::role::require_person(by, "approve a self-image consolidation")?;
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let pending = require_pending(ws, "cogmem identity consolidate approve")?;
    // Approved only as submitted: a hand edit (its Seen list included) is refused.
    if let Some(e) = reflect::submission_changed(ws, &repo, &SUBMITTED)? {
        return Err(e.into());
    }
    let sub = parse_submission(&rf::submission_text_of(&pending))?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let identity = read(ws, layout::IDENTITY_MD)?;
    // Only what the submission saw moves; entries approved since stay in the Recent log and in
    // the count (a file from an older cogmem, without that record, moves the whole months).
    let seen = identity_md::seen(&pending);
    let covered = seen.as_ref().map(|(_, c)| &c[..]);
    let new = identity_md::consolidated(&identity, &sub, &date, covered);
    let diff = diff(&identity, &new);
    let mut decay = decay_state(ws)?;
    let then = seen.as_ref().map(|(n, _)| *n);
    let since =
        then.map_or(0, |then| decay.self_awareness_since_consolidation().saturating_sub(then));
    decay.record_consolidation(&date, since);
    let last = rf::last_number(&read(ws, reflect::REFLECTION_LOG)?);
    let actor = Actor::parse(&format!("reflection:r-{last:03}"))?;
    let mut change = Change::new(actor, format!("cogmem identity consolidate approve (by {by})"))
        .with_approval(Approval::Approved);
    change.write(layout::IDENTITY_MD, new.into_bytes(), Action::Edit, "self-image consolidated");
    change.write_decay(ws, &mut decay, Action::Edit, "self-image consolidation recorded");
    change.delete(PENDING_IDENTITY, Action::Delete, "self-image consolidation approved");
    let change = change.with_subject(Action::Edit, "self-image consolidated");
    let commit = change.apply(ws, &repo, &lock, &FixedClock(now))?.commit;
    Ok(DecisionReport { outcome: "approved", diff, commit })
}

/// Rejects the pending consolidation: removes the pending file, with who and why in the audit
/// line and the commit; IDENTITY.md is untouched. Only a person may reject.
pub fn reject(
    ws: &Workspace,
    reason: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<DecisionReport> {
    crate::role::require_person(by, "reject a self-image consolidation")?;
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    require_pending(ws, "cogmem identity consolidate reject")?;
    let reason = reason.map(str::trim).filter(|r| !r.is_empty()).unwrap_or("no reason given");
    cogmem_store::secrets::check_note(reason, "the reason")?;
    let now = clock.now();
    let summary = format!("self-image consolidation rejected: {reason}");
    let mut change =
        Change::new(by.clone(), format!("cogmem identity consolidate reject (by {by})"))
            .with_approval(Approval::None);
    change.delete(PENDING_IDENTITY, Action::Reject, summary.clone());
    let change = change.with_subject(Action::Reject, summary);
    let commit = change.apply(ws, &repo, &lock, &FixedClock(now))?.commit;
    Ok(DecisionReport { outcome: "rejected", diff: String::new(), commit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_removed_added_and_kept_lines() {
        assert_eq!(diff("a\nb\nc\n", "a\nc\nd\n"), "  a\n- b\n  c\n+ d\n");
    }
}
