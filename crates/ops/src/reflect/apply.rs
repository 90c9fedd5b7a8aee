//! Approving a reflection (`cogmem reflect approve`): everything it changes, in one commit.

use serde::Serialize;

use super::consolidate::Consolidation;
use super::logs::{self, RewardNote};
use super::plan::{self, FileDiff};
use super::{
    Checked, DEFAULT_BASELINE, EVOLUTION, EVOLUTION_ARCHIVE, EVOLUTION_CAP, PENDING_REFLECTION,
    REFLECTIONS_DIR, Session, State, check_ops, cycle, read, require,
};
use crate::context::{Encoding, Tiktoken};
use crate::error::InputError;
use crate::role::require_person;
use cogmem_index::pack::TokenCounter;
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::store::Store;
use cogmem_store::store::decay_file::{DecayFile, RemovedLine};
use cogmem_store::store::reflection::{self as rf, OpKind};
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, Timestamp, utc_seconds};

/// One operation's fate on approval.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// Block number.
    pub block: usize,
    /// The operation.
    pub op: OpKind,
    /// The target.
    pub target: String,
    /// `applied`, `recorded`, `not approved` or `already remembered`.
    pub outcome: String,
    /// The memory written or archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The files the block changes, each with its unified diff (empty for a block that is
    /// only recorded).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDiff>,
}

/// What `reflect approve` did.
#[derive(Debug, Clone, Serialize)]
pub struct ApproveReport {
    /// The reflection.
    pub reflection: u32,
    /// Its full text's file.
    pub file: String,
    /// What happened to each operation.
    pub operations: Vec<Applied>,
    /// Insights added to IDENTITY.md.
    pub self_awareness: Vec<String>,
    /// The commit.
    pub commit: String,
}

/// Approves the pending reflection (all operations, or only the blocks in `only`) in ONE commit
/// as `reflection:r-NNN`, approval `approved`: the text to `reflections/`, an entry in the
/// reflection log (10 in full, older ones as one-line summaries), the reward's result in
/// reward-log.md, `[Self-Awareness]` lines to IDENTITY.md, the operations as `plan` plans them
/// again from the files as they are now (EXTRACT, CONNECT and REWRITE into the memory they name,
/// FLAG into flags.md, ARCHIVE as soft archives), PATTERN/EVOLVE, REWRITE's `old → new` and the
/// reward in evolution.md (kept under its cap), the reflection state in decay-scores.json, and
/// pending-reflection.md reset. Only a person may approve; nothing is written when a block can
/// no longer be applied or MEMORY.md would go over its budget.
pub fn approve(
    ws: &Workspace,
    only: Option<&[usize]>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<ApproveReport> {
    require_person(by, "approve a reflection")?;
    let session = Session::open(ws)?;
    let c = cycle(ws)?;
    require(&c, &[State::AwaitingApproval], "cogmem reflect approve")?;
    // Only what was submitted is approved: not an edit by hand since, even a committed one.
    if let Some(e) = super::submission_changed(ws, &session.repo, &super::PENDING)? {
        return Err(e.into());
    }
    let pending = read(ws, PENDING_REFLECTION)?;
    let text = rf::submission_text(&pending).unwrap_or_default();
    let checked = check_ops(ws, &text)?;
    if let Some(only) = only
        && let Some(n) = only.iter().find(|n| **n == 0 || **n > checked.len())
    {
        return Err(InputError::ReflectBlock {
            block: *n,
            why: format!("there is no such block; the reflection has {}", checked.len()),
        }
        .into());
    }
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let n = c.number;
    let mut change = Change::new(actor_of(n)?, format!("cogmem reflect approve (by {by})"))
        .with_approval(Approval::Approved);
    // The reflection's own file comes first, so the commit is named after it.
    let mut file = format!("{REFLECTIONS_DIR}/{date}.md");
    let mut k = 2;
    while ws.abs(&file).exists() {
        file = format!("{REFLECTIONS_DIR}/{date}-{k}.md");
        k += 1;
    }
    change.write(&file, Vec::new(), Action::Create, format!("reflection #{n}"));
    let Plan { mut change, mut decay, applied, patterns, archived } =
        plan(ws, &checked, only, n, now, change)?;
    let wrote_episode = change.pending(&layout::episode_file(&date)).is_some();
    let stamp = utc_seconds(&now);
    let insights = rf::self_awareness(&text);
    let outcome = if only.is_some() && applied.iter().any(|a| a.outcome == "not approved") {
        "partial"
    } else {
        "approved"
    };

    // The full text.
    let mut full =
        format!("# Reflection #{n} — {date}\n\n{}\n\n## Operations\n\n", text.trim_end());
    for a in &applied {
        full.push_str(&format!("- #{} {} {} — {}\n", a.block, a.op.as_str(), a.target, a.outcome));
    }
    if applied.is_empty() {
        full.push_str("(none)\n");
    }
    full.push_str(&format!("\nApproved by {by} at {stamp}.\n"));
    change.write(&file, full.into_bytes(), Action::Create, format!("reflection #{n}"));

    // The log entry.
    let granted = c.reward.as_ref().and_then(|r| r.granted).unwrap_or(DEFAULT_BASELINE);
    let key = insights.first().cloned().unwrap_or_else(|| first_sentence(&text));
    let count = |k: OpKind| applied.iter().filter(|a| a.op == k && a.outcome == "applied").count();
    let entry = rf::log_entry(&rf::LogEntry {
        number: n,
        date: &date,
        outcome,
        granted,
        proposed: applied.len(),
        applied: applied.iter().filter(|a| a.outcome == "applied").count(),
        key: &key,
        insights: &insights,
        extracted: count(OpKind::Extract),
        archived: count(OpKind::Archive),
        file: &file,
    });
    logs::write_reflection_log(ws, &mut change, &entry, n)?;
    // The reward's result, now that the reflection is approved (issue 19).
    let reward = logs::write_reward_result(ws, &mut change, c.reward.as_ref(), n, &date)?;

    // IDENTITY.md.
    if !insights.is_empty() {
        let identity = read(ws, layout::IDENTITY_MD)?;
        let new = rf::identity_with_insights(&identity, &date, &insights);
        change.write(
            layout::IDENTITY_MD,
            new.into_bytes(),
            Action::Edit,
            format!("{} self-awareness entries from reflection #{n}", insights.len()),
        );
    }

    // evolution.md.
    evolution(ws, &mut change, n, &date, &key, &patterns, reward.as_ref())?;

    // The reward file closes the cycle.
    if let Some(p) = &c.reward_path {
        let t = read(ws, p)?;
        change.write(
            p,
            rf::with_closing(&t, &format!("{outcome} as #{n} ({file})")).into_bytes(),
            Action::Edit,
            format!("reflection #{n} {outcome}"),
        );
    }

    // decay-scores.json.
    let last_ep = units::markdown_files(ws.root(), layout::EPISODES_DIR)
        .iter()
        .map(|p| units::md_stem(p).to_owned())
        .chain(wrote_episode.then(|| date.clone()))
        .filter(|d| d.as_str() <= date.as_str())
        .max();
    decay.record_reflection(&stamp, last_ep.as_deref(), insights.len() as u64);
    let summary = if archived.is_empty() {
        format!("reflection #{n} state")
    } else {
        format!("reflection #{n} state; archived {}", archived.join(", "))
    };
    change.write_decay(ws, &mut decay, Action::Edit, &summary);

    // Reset the pending file.
    change.write(
        PENDING_REFLECTION,
        rf::without_submission(&pending).into_bytes(),
        Action::Edit,
        format!("reflection #{n} {outcome}; pending reset"),
    );
    let change = change.with_subject(Action::Create, format!("reflection #{n} {outcome}"));
    let commit = session.commit_indexed(ws, change, now)?;
    Ok(ApproveReport { reflection: n, file, operations: applied, self_awareness: insights, commit })
}

/// `reflection:r-NNN`, the actor of reflection `n`.
pub(super) fn actor_of(n: u32) -> crate::Result<Actor> {
    Ok(Actor::parse(&format!("reflection:r-{n:03}"))?)
}

/// What approving the blocks of a reflection does to memory, not yet committed.
pub(super) struct Plan {
    /// The edits, in one change.
    pub(super) change: Change,
    /// decay-scores.json as the change leaves it.
    pub(super) decay: DecayFile,
    /// Each block's fate, with its diffs.
    pub(super) applied: Vec<Applied>,
    /// `(kind, text)` lines for the evolution log: PATTERN, EVOLVE and REWRITE's `old → new`.
    pub(super) patterns: Vec<(String, String)>,
    /// The memories archived.
    pub(super) archived: Vec<String>,
}

/// Plans the operations of reflection `n` (all blocks, or those in `only`) into `change` at
/// `now`, against the files as they are now: the op loop shared by `reflect submit` (which
/// shows the plan's diffs) and `reflect approve` (which commits it).
///
/// Fails, writing nothing, when a block cannot be applied as it stands or MEMORY.md would go
/// over its budget.
pub(super) fn plan(
    ws: &Workspace,
    checked: &[Checked],
    only: Option<&[usize]>,
    n: u32,
    now: Timestamp,
    change: Change,
) -> crate::Result<Plan> {
    let actor = actor_of(n)?;
    let settings = &ws.settings().decay;
    let mut cons = Consolidation::new(ws, change, DecayFile::load(ws)?, n, now)?;
    let mut applied = Vec::new();
    let mut patterns = Vec::new();
    let mut archived: Vec<String> = Vec::new();
    let all = units::list(ws);
    let stamp = utc_seconds(&now);
    for ch in checked {
        let approved = only.is_none_or(|o| o.contains(&ch.op.number));
        let mut a = Applied {
            block: ch.op.number,
            op: ch.kind,
            target: ch.op.target.clone(),
            outcome: "recorded".into(),
            id: ch.id.clone(),
            files: Vec::new(),
        };
        if !approved {
            a.outcome = "not approved".into();
            applied.push(a);
            continue;
        }
        let marks = plan::mark(&cons.w.change);
        match ch.kind {
            OpKind::Extract => cons.extract(&ch.resolved, &ch.op.content, &mut a)?,
            OpKind::Connect => cons.connect(&ch.resolved, &mut a)?,
            OpKind::Rewrite => {
                if let Some(line) =
                    cons.rewrite(ch.op.number, &ch.resolved, &ch.op.content, &mut a)?
                {
                    patterns.push(("rewrite".to_owned(), line));
                }
            }
            OpKind::Archive => {
                let id = ch.id.clone().expect("checked: ARCHIVE names a memory");
                if !cons.decay.is_forgotten(&id) {
                    let unit = all.get(&id).cloned().expect("checked: the memory exists");
                    let removed = take_out(ws, &mut cons.w.change, &unit, n)?;
                    let base = settings.base_explicit;
                    crate::forget::mark_archived(
                        &mut cons.decay,
                        &id,
                        unit.store,
                        base,
                        now,
                        &stamp,
                        &actor,
                        &removed,
                        settings,
                        None,
                    );
                    archived.push(id.clone());
                }
                a.outcome = "applied".into();
            }
            OpKind::Pattern | OpKind::Evolve => {
                patterns.push((ch.kind.as_str().to_lowercase(), ch.op.content.clone()));
            }
            OpKind::Flag => {
                let date = now.format("%Y-%m-%d").to_string();
                crate::flag::raise(ws, &mut cons.w.change, &ch.op, &all, n, &date)?;
                a.outcome = "applied".into();
            }
        }
        a.files = plan::diffs_since(ws, &cons.w.change, &marks)?;
        applied.push(a);
    }
    cons.finish()?;
    Ok(Plan { change: cons.w.change, decay: cons.decay, applied, patterns, archived })
}

/// Takes an archived memory out of MEMORY.md (its bullet) or the graph index (its rows), as
/// `cogmem forget` does, and returns what was removed, for the record `cogmem restore` reads.
fn take_out(
    ws: &Workspace,
    change: &mut Change,
    unit: &units::MemoryUnit,
    n: u32,
) -> crate::Result<Vec<RemovedLine>> {
    let rel = match unit.store {
        Store::Core => layout::MEMORY_MD,
        Store::Semantic => layout::GRAPH_INDEX,
        _ => return Ok(Vec::new()),
    };
    let current = match change.pending(rel) {
        Some(b) => String::from_utf8_lossy(b).into_owned(),
        None => read(ws, rel)?,
    };
    let entity = unit.id.trim_start_matches("entity:");
    let mut taken = false;
    let (out, removed) = RemovedLine::take(rel, &current, |_, l| {
        let hit = match unit.store {
            // A core bullet is one line; an entity may have several rows.
            Store::Core => {
                !taken && l.trim_start().starts_with('-') && l.contains(unit.text.as_str())
            }
            _ => cogmem_index::graph::index_row_names(l, entity),
        };
        taken |= hit;
        hit
    });
    if !removed.is_empty() {
        change.write(
            rel,
            out.into_bytes(),
            Action::Archive,
            format!("reflection #{n} archives {}", unit.id),
        );
    }
    Ok(removed)
}

fn first_sentence(text: &str) -> String {
    let line =
        text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    let s = line.split_inclusive(['.', '!', '?']).next().unwrap_or(line);
    cogmem_store::store::markdown::one_line(s)
}

/// Adds the reflection's entry to evolution.md (with its reward's result), updates its overview
/// (with the reward trend), and moves the oldest entries to evolution-archive.md while the file
/// is over its cap.
fn evolution(
    ws: &Workspace,
    change: &mut Change,
    n: u32,
    date: &str,
    key: &str,
    patterns: &[(String, String)],
    reward: Option<&RewardNote>,
) -> crate::Result<()> {
    let mut text = read(ws, EVOLUTION)?;
    if text.is_empty() {
        text.push_str("# Philosophical Evolution\n\n## Overview\n");
    }
    if rf::overview(&text, "First reflection").is_none_or(|v| v.starts_with("none")) {
        text = rf::set_overview(&text, "First reflection", &format!("#{n} ({date})"));
    }
    text = rf::set_overview(&text, "Total reflections", &n.to_string());
    let patterns: Vec<(&str, &str)> =
        patterns.iter().map(|(k, c)| (k.as_str(), c.as_str())).collect();
    let mut entry = rf::evolution_entry(n, date, key, &patterns);
    logs::with_reward(&mut text, &mut entry, reward);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&entry);
    let counter = Tiktoken::new(Encoding::Cl100k);
    let mut moved = String::new();
    loop {
        if counter.count(&text) <= EVOLUTION_CAP {
            break;
        }
        let (pre, entries) = rf::split_entries(&text);
        if entries.len() <= 1 {
            break;
        }
        moved.push_str(&entries[0]);
        text = pre + &entries[1..].concat();
    }
    change.write(EVOLUTION, text.into_bytes(), Action::Edit, format!("reflection #{n}"));
    let title = "# Philosophical Evolution — Archive\n\n";
    super::append_to_archive(ws, change, EVOLUTION_ARCHIVE, title, &moved, "older entries archived")
}
