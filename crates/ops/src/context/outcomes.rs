//! The skill's logs in the context pack (issue 19): the latest reflection, as its one-line
//! summary from `reflection-log.md`, and the most recent reward outcomes from `reward-log.md`,
//! offered as pack candidates right after core memory, so that they go in within the budget
//! and the receipt says why each is in or out. Read-only; the formats are
//! [`cogmem_store::store::reflection::logs`]'s.

use cogmem_index::pack::{Candidate, Part};
use cogmem_store::store::reflection::{self as rf, logs};
use cogmem_store::workspace::Workspace;

use crate::reflect::{REFLECTION_LOG, REWARD_LOG};

/// Reward outcomes a pack offers, the newest first.
pub(crate) const RECENT_REWARDS: usize = 3;

/// Returns the candidates: the latest reflection (id `reflection-log:N`), then the
/// [`RECENT_REWARDS`] newest reward outcomes (id `reward-log:DATE`, `:2`… for a second entry
/// the same day), newest first. Empty when the logs hold no entry.
pub(super) fn candidates(ws: &Workspace) -> crate::Result<Vec<Candidate>> {
    let mut out = Vec::new();
    let log = ws.read_text_if_exists(REFLECTION_LOG)?.unwrap_or_default();
    let (_, entries) = rf::split_entries(&log);
    if let Some(summary) = entries.last().and_then(|e| logs::summary_line(e)) {
        let line = summary.trim_start_matches("## ").to_owned();
        let n = rf::last_number(&summary);
        out.push(Candidate::line(
            &format!("reflection-log:{n}"),
            Part::Reflection,
            format!("- {line}"),
            &line,
            1.0,
            format!("the latest reflection ({REFLECTION_LOG})"),
        ));
    }
    let rewards = logs::reward_entries(&ws.read_text_if_exists(REWARD_LOG)?.unwrap_or_default());
    // Ids are unique: a day's second entry is `DATE:2`, counted from the oldest.
    let ids: Vec<String> = rewards
        .iter()
        .enumerate()
        .map(|(i, e)| match rewards[..i].iter().filter(|o| o.date == e.date).count() {
            0 => format!("reward-log:{}", e.date),
            k => format!("reward-log:{}:{}", e.date, k + 1),
        })
        .collect();
    for (e, id) in rewards.iter().zip(&ids).rev().take(RECENT_REWARDS) {
        let line = e.line();
        out.push(Candidate::line(
            id,
            Part::Reward,
            format!("- {line}"),
            &line,
            1.0,
            format!("a recent reward outcome ({REWARD_LOG})"),
        ));
    }
    Ok(out)
}
