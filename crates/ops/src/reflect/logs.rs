//! The skill's logs around a reflection (issue 19): the reward-log result written when the
//! reflection is approved (a rejection record when it is rejected), reflection-log.md's
//! retention, evolution.md's reward line and trend, and the parts of `reflect input` that read
//! reward-log.md and the post-reflection dialogues. The formats are
//! [`cogmem_store::store::reflection::logs`]'s and [`dialogue`](rf::dialogue)'s.

use super::{REFLECTION_ARCHIVE, REFLECTION_LOG, REWARD_LOG, append_to_archive, read};
use cogmem_store::audit::Action;
use cogmem_store::change::Change;
use cogmem_store::store::reflection::logs::{self, RewardEntry};
use cogmem_store::store::reflection::{self as rf, RewardFile, dialogue};
use cogmem_store::store::units;
use cogmem_store::workspace::Workspace;

/// The folder of post-reflection dialogues.
pub(crate) const DIALOGUES_DIR: &str = "memory/meta/reflections/dialogues";

/// reward-log.md with one more entry (the title first when the file is new or empty).
fn reward_log_with(ws: &Workspace, entry: &str) -> crate::Result<String> {
    let mut log = read(ws, REWARD_LOG)?;
    if log.trim().is_empty() {
        log = "# Reward Log\n".to_owned();
    }
    if !log.ends_with('\n') {
        log.push('\n');
    }
    log.push_str(entry);
    Ok(log)
}

/// The reward of an approved reflection, and the trend it makes.
pub(super) struct RewardNote {
    /// The entry written to reward-log.md.
    pub entry: RewardEntry,
    /// evolution.md's `Reward trend`, over the log as it now stands.
    pub trend: Option<String>,
}

/// Writes the reward-log result of approved reflection `n` into `change`: the grant of its
/// reward file against the baseline, with the user's reason (the skill records it after
/// approval, issue 19). Nothing when the cycle has no decided reward file.
pub(super) fn write_reward_result(
    ws: &Workspace,
    change: &mut Change,
    reward: Option<&RewardFile>,
    n: u32,
    date: &str,
) -> crate::Result<Option<RewardNote>> {
    let Some(r) = reward else { return Ok(None) };
    let Some(granted) = r.granted else { return Ok(None) };
    let reason = r.reason.as_deref().or(r.decision.as_deref()).unwrap_or("—");
    let text = rf::reward_log_entry(date, granted, r.baseline, reason);
    let log = reward_log_with(ws, &text)?;
    let entries = logs::reward_entries(&log);
    let trend = logs::reward_trend(&entries);
    let entry = entries.last().cloned().expect("the entry just added");
    change.write(REWARD_LOG, log.into_bytes(), Action::Append, format!("reward #{n}"));
    Ok(Some(RewardNote { entry, trend }))
}

/// Writes the rejection record of reflection `n` to reward-log.md in `change`: a rejected
/// reflection earns no reward result (issue 19).
pub(super) fn write_rejection(
    ws: &Workspace,
    change: &mut Change,
    n: u32,
    date: &str,
    reason: &str,
) -> crate::Result<()> {
    let log = reward_log_with(ws, &logs::reward_rejection_entry(date, n, reason))?;
    change.write(REWARD_LOG, log.into_bytes(), Action::Append, format!("reflection #{n} rejected"));
    Ok(())
}

/// Appends reflection `n`'s entry to reflection-log.md in `change`, keeping the skill's shape:
/// the newest [`logs::FULL_ENTRIES`] whole, older ones as one-line summaries cogmem derives from
/// their key insight, at most [`logs::MAX_ENTRIES`] entries; older summaries move to
/// reflection-archive.md.
pub(super) fn write_reflection_log(
    ws: &Workspace,
    change: &mut Change,
    entry: &str,
    n: u32,
) -> crate::Result<()> {
    let mut log = read(ws, REFLECTION_LOG)?;
    if log.is_empty() {
        log.push_str("# Reflection Log\n");
    }
    log.push_str(entry);
    let (log, moved) = logs::retain(&log, logs::FULL_ENTRIES, logs::MAX_ENTRIES);
    change.write(REFLECTION_LOG, log.into_bytes(), Action::Append, format!("reflection #{n}"));
    let title = "# Reflection Archive\n\n";
    append_to_archive(ws, change, REFLECTION_ARCHIVE, title, &moved, "older reflections archived")
}

/// Adds the reward to an evolution.md entry (`- Reward: …`) and the trend to its overview
/// (`- Reward trend: …`); unchanged without a reward.
pub(super) fn with_reward(text: &mut String, entry: &mut String, reward: Option<&RewardNote>) {
    let Some(r) = reward else { return };
    entry.push_str(&logs::evolution_reward_line(&r.entry));
    if let Some(trend) = &r.trend {
        *text = rf::set_overview(text, "Reward trend", trend);
    }
}

/// reward-log.md's outcomes for `reflect input`: one line each, the newest first, so that the
/// oldest are the ones cut.
pub(super) fn reward_pieces(ws: &Workspace) -> crate::Result<Vec<(String, String)>> {
    let entries = logs::reward_entries(&read(ws, REWARD_LOG)?);
    Ok(entries
        .iter()
        .rev()
        .map(|e| (format!("{REWARD_LOG} ({})", e.date), format!("- {}", e.line())))
        .collect())
}

/// The dialogues recorded since the last reflection, for `reflect input`: from the dialogue
/// files dated `since` or later, each dialogue about reflection `last` or a later one (a
/// dialogue that names no reflection counts by its file's date), the newest first.
pub(super) fn dialogue_pieces(
    ws: &Workspace,
    since: &str,
    last: u32,
) -> crate::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for rel in units::markdown_files(ws.root(), DIALOGUES_DIR).into_iter().rev() {
        let day = units::md_stem(&rel);
        if day < since {
            continue;
        }
        let text = read(ws, &rel)?;
        for (number, body) in dialogue::recorded(&text).into_iter().rev() {
            if number.is_none_or(|n| n >= last) {
                out.push((rel.clone(), body));
            }
        }
    }
    Ok(out)
}

/// The latest reflection in the log, as its one-line summary, with its number.
pub(super) fn latest_summary(ws: &Workspace) -> crate::Result<Option<(u32, String)>> {
    let (_, entries) = rf::split_entries(&read(ws, REFLECTION_LOG)?);
    Ok(entries.last().and_then(|e| logs::summary_line(e)).map(|s| (rf::last_number(&s), s)))
}
