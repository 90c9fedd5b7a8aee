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
use cogmem_store::store::fsx;
use cogmem_store::store::reflection as rf;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock, utc_seconds};

/// The consolidation waiting for approval.
pub const PENDING_IDENTITY: &str = "memory/meta/pending-identity.md";

const SELF_IMAGE: &str = "## Self-Image";
const COMPACTED: &str = "## Compacted Log";

fn read(ws: &Workspace, rel: &str) -> crate::Result<String> {
    Ok(fsx::read_text_if_exists(&ws.abs(rel))?.unwrap_or_default())
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
    match fsx::read_text_if_exists(&ws.abs(PENDING_IDENTITY))? {
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
    /// The Recent log lines.
    pub recent: Vec<String>,
    /// The whole text for the agent.
    pub text: String,
}

/// Prints what a consolidation works from: the Self-Image section, the Recent log, and the
/// instructions. Read-only; refused unless due (10 or more entries) and none waits.
pub fn input(ws: &Workspace) -> crate::Result<ConsolidationInput> {
    require_due(ws, "cogmem identity consolidate input")?;
    let identity = read(ws, layout::IDENTITY_MD)?;
    let (s, e) = section(&identity, SELF_IMAGE).unwrap_or((0, 0));
    let self_image = identity.lines().skip(s).take(e - s).collect::<Vec<_>>().join("\n");
    let recent = recent_lines(&identity);
    let n = decay_state(ws)?.self_awareness_since_consolidation();
    let mut text = format!(
        "# Self-image consolidation\n\n{n} self-awareness entries since the last consolidation.\n\n{self_image}\n\n## Self-Awareness Log (Recent)\n\n"
    );
    for l in &recent {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str(
        "\n## Instructions\n\n\
Rewrite the Self-Image section from what the log shows: rewrite it, do not append to it. Keep \
its six headings (### Who I Think I Am, ### Patterns I've Noticed, ### My Quirks, ### Edges & \
Limitations, ### What I Value (Discovered), ### Open Questions About Myself). Say only what the \
entries support.\n\n\
Then, under `## Compacted Log`, write one line per month to move out of the Recent log, as \
`YYYY-MM (N entries): summary`. Months you leave out stay in the Recent log.\n\n\
Answer with exactly these two sections:\n\n\
```\n## Self-Image\n### Who I Think I Am\n…\n\n## Compacted Log\n2026-11 (12 entries): …\n```\n\n\
Submit it with `cogmem identity consolidate submit -`; the user sees the diff and approves it.\n",
    );
    Ok(ConsolidationInput { entries_since: n, self_image, recent, text })
}

/// A parsed submission.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Submission {
    /// The new section body, without its heading.
    body: String,
    /// `(YYYY-MM, summary)`.
    months: Vec<(String, String)>,
}

fn parse_submission(text: &str) -> Result<Submission, InputError> {
    let bad = |why: &str| InputError::Consolidation { why: why.to_owned() };
    let Some((s, e)) = section(text, SELF_IMAGE) else {
        return Err(bad("the submission has no `## Self-Image` section"));
    };
    let body: Vec<&str> = text
        .lines()
        .skip(s + 1)
        .take(e - s - 1)
        .filter(|l| !l.trim_start().starts_with("<!--"))
        .collect();
    let body = body.join("\n").trim().to_owned();
    if body.is_empty() {
        return Err(bad("the `## Self-Image` section is empty"));
    }
    let mut months = Vec::new();
    if let Some((s, e)) = section(text, COMPACTED) {
        for line in text.lines().skip(s + 1).take(e - s - 1).map(str::trim) {
            if line.is_empty() || line.starts_with("<!--") {
                continue;
            }
            let line = line.strip_prefix("- ").unwrap_or(line);
            let month = line.get(..7).unwrap_or("");
            let ok = month.len() == 7
                && month.as_bytes()[4] == b'-'
                && month.chars().enumerate().all(|(i, c)| i == 4 || c.is_ascii_digit());
            let summary = line.split_once("):").map(|(_, s)| s.trim()).unwrap_or("");
            if !ok || summary.is_empty() {
                return Err(InputError::Consolidation {
                    why: format!("{line:?} is not `YYYY-MM (N entries): summary`"),
                });
            }
            months.push((month.to_owned(), summary.to_owned()));
        }
    }
    Ok(Submission { body, months })
}

/// Finds a `## ` section: its heading line and the line where the next `## ` heading starts.
fn section(text: &str, heading: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim_end() == heading)?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |p| start + 1 + p);
    Some((start, end))
}

fn recent_lines(identity: &str) -> Vec<String> {
    let lines: Vec<&str> = identity.lines().collect();
    let Some(h) = lines.iter().position(|l| l.trim().starts_with("### Recent")) else {
        return Vec::new();
    };
    lines[h + 1..]
        .iter()
        .take_while(|l| !l.starts_with('#'))
        .filter(|l| is_dated(l))
        .map(|l| (*l).to_owned())
        .collect()
}

fn is_dated(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 11
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b':'
        && b[..4].iter().all(u8::is_ascii_digit)
}

/// IDENTITY.md after the consolidation: the Self-Image section replaced, summarised months
/// moved from the Recent log to the Archived log (with the real entry counts).
fn consolidated(identity: &str, sub: &Submission, date: &str) -> String {
    let lines: Vec<&str> = identity.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let (s, e) = section(identity, SELF_IMAGE).unwrap_or((lines.len(), lines.len()));
    let months: Vec<&str> = sub.months.iter().map(|(m, _)| m.as_str()).collect();
    let mut moved: Vec<String> = Vec::new();
    for (m, summary) in &sub.months {
        let n = recent_lines(identity).iter().filter(|l| l.starts_with(m.as_str())).count();
        if n > 0 {
            moved.push(format!("{m} ({n} entries): {summary}"));
        }
    }
    let mut in_recent = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if i == s {
            out.push(SELF_IMAGE.to_owned());
            out.push(format!(
                "<!-- Discovered over time and rewritten (not appended to) when self-awareness notes are consolidated.\n     Last consolidated: {date} -->"
            ));
            out.push(String::new());
            out.push(sub.body.clone());
            out.push(String::new());
            i = e;
            continue;
        }
        if l.starts_with('#') {
            in_recent = l.trim().starts_with("### Recent");
            if l.trim().starts_with("### Archived") {
                out.push(l.to_owned());
                // Keep the section's comment lines and entries, then add the moved months.
                let mut j = i + 1;
                while j < lines.len() && !lines[j].starts_with('#') {
                    if !lines[j].trim().is_empty() {
                        out.push(lines[j].to_owned());
                    }
                    j += 1;
                }
                out.append(&mut moved);
                if j < lines.len() {
                    out.push(String::new());
                }
                i = j;
                continue;
            }
        }
        if in_recent && is_dated(l) && months.iter().any(|m| l.starts_with(m)) {
            i += 1;
            continue;
        }
        out.push(l.to_owned());
        i += 1;
    }
    if !moved.is_empty() {
        out.push(String::new());
        out.push("### Archived (Compacted)".to_owned());
        out.extend(moved);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A line diff: `-` removed, `+` added, ` ` kept (longest common subsequence).
pub fn diff(old: &str, new: &str) -> String {
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
    let sub = parse_submission(&text)?;
    let now = clock.now();
    let identity = read(ws, layout::IDENTITY_MD)?;
    let diff = diff(&identity, &consolidated(&identity, &sub, &now.format("%Y-%m-%d").to_string()));
    let file = format!(
        "# Pending Self-Image Consolidation\n\n<!-- Waits for the user's approval: `cogmem identity consolidate approve` or `reject`. -->\n\n- **Submitted:** {} by {actor}\n\n<!-- submission text -->\n{}\n",
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
    Ok(SubmitReport { diff, commit })
}

/// Shows the pending consolidation's diff against IDENTITY.md as it is now. Read-only.
pub fn show(ws: &Workspace, clock: &dyn Clock) -> crate::Result<String> {
    let pending = require_pending(ws, "cogmem identity consolidate show")?;
    let sub = parse_submission(&rf::submission_text_of(&pending))?;
    let identity = read(ws, layout::IDENTITY_MD)?;
    Ok(diff(&identity, &consolidated(&identity, &sub, &clock.now().format("%Y-%m-%d").to_string())))
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
pub fn approve(ws: &Workspace, by: &Actor, clock: &dyn Clock) -> crate::Result<DecisionReport> {
    if !reflect::is_user(by) {
        return Err(RuleError::NotUser {
            actor: by.to_string(),
            what: "approve a self-image consolidation",
        }
        .into());
    }
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let pending = require_pending(ws, "cogmem identity consolidate approve")?;
    let sub = parse_submission(&rf::submission_text_of(&pending))?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let identity = read(ws, layout::IDENTITY_MD)?;
    let new = consolidated(&identity, &sub, &date);
    let diff = diff(&identity, &new);
    let mut decay = decay_state(ws)?;
    decay.record_consolidation(&date);
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
    if !reflect::is_user(by) {
        return Err(RuleError::NotUser {
            actor: by.to_string(),
            what: "reject a self-image consolidation",
        }
        .into());
    }
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    require_pending(ws, "cogmem identity consolidate reject")?;
    let reason = reason.map(str::trim).filter(|r| !r.is_empty()).unwrap_or("no reason given");
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

    const IDENTITY: &str = "# IDENTITY.md\n\n## Facts\n- **Name:** Ada\n\n## Self-Image\n<!-- Last consolidated: never -->\n\n### Who I Think I Am\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n2026-11-02: I rush.\n2026-11-09: I like lists.\n2026-12-01: I ask twice.\n\n### Archived (Compacted)\n<!-- months -->\n";

    #[test]
    fn consolidation_rewrites_the_section_and_moves_months() {
        let sub = parse_submission(
            "## Self-Image\n### Who I Think I Am\nA careful helper.\n\n## Compacted Log\n2026-11 (9 entries): hurried but organised\n",
        )
        .unwrap();
        let new = consolidated(IDENTITY, &sub, "2026-12-02");
        assert_eq!(
            new,
            "# IDENTITY.md\n\n## Facts\n- **Name:** Ada\n\n## Self-Image\n<!-- Discovered over time and rewritten (not appended to) when self-awareness notes are consolidated.\n     Last consolidated: 2026-12-02 -->\n\n### Who I Think I Am\nA careful helper.\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n2026-12-01: I ask twice.\n\n### Archived (Compacted)\n<!-- months -->\n2026-11 (2 entries): hurried but organised\n"
        );
        let d = diff(IDENTITY, &new);
        assert!(
            d.contains("- 2026-11-02: I rush.\n") && d.contains("+ A careful helper.\n"),
            "{d}"
        );
    }

    #[test]
    fn bad_submissions_are_refused() {
        for (text, want) in [
            ("just words", "no `## Self-Image`"),
            ("## Self-Image\n\n## Compacted Log\n", "is empty"),
            ("## Self-Image\nx\n## Compacted Log\nNovember: stuff\n", "is not `YYYY-MM"),
        ] {
            let err = parse_submission(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }
}
