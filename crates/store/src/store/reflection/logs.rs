//! The skill's logs as they are kept over time (issue 19): reflection-log.md's retention (the
//! newest full entries, one-line summaries before them), the reward-log records of approved and
//! rejected reflections read back as outcomes, and evolution.md's reward lines. Pure: text in,
//! text out.
//!
//! Invariant: retention never drops a reflection from the log without moving its text, verbatim,
//! to the archive; a summarised entry's full text stays in `reflections/DATE.md` (its entry's
//! `Full text:` line names it) and in the history of reflection-log.md.

use super::{one_line, split_entries};

/// Full entries reflection-log.md keeps (the skill loads the last 10).
pub const FULL_ENTRIES: usize = 10;

/// Entries reflection-log.md keeps in all, full and summarised; older summaries move to
/// reflection-archive.md.
pub const MAX_ENTRIES: usize = 50;

/// The most characters of a key insight a one-line summary quotes.
const SUMMARY_INSIGHT_CHARS: usize = 200;

/// Returns the one-line summary of a reflection-log entry in the skill's format,
/// `## Reflection #12 — 2026-02-16 | approved | Insight: "…"`, derived from the entry itself:
/// the number and date of its heading, its outcome (`- Outcome:` under `### Status`; `approved`
/// when it names none) and its key insight (the paragraph under `### Key Insight`, else under
/// `### Philosophical Insight`, else its first line of text), on one line, at most 200
/// characters, with `"` written `'`. An entry that is already a summary comes back unchanged;
/// `None` for text that is not an entry.
pub fn summary_line(entry: &str) -> Option<String> {
    let entry = entry.trim_start();
    let first = entry.lines().next()?;
    let rest = first.strip_prefix("## Reflection #")?;
    if first.contains(" | ") {
        return Some(first.trim_end().to_owned());
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let date = rest[digits.len()..].trim().trim_start_matches(['—', '-']).trim();
    let body: Vec<&str> = entry.lines().skip(1).collect();
    let outcome = body
        .iter()
        .map(|l| l.trim().trim_start_matches("- ").replace("**", ""))
        .find_map(|l| l.strip_prefix("Outcome:").map(|v| one_line(v).to_lowercase()))
        .filter(|o| !o.is_empty())
        .unwrap_or_else(|| "approved".to_owned());
    let under = |title: &str| -> Option<String> {
        let at = body.iter().position(|l| l.trim() == title)?;
        let text: Vec<&str> =
            body[at + 1..].iter().take_while(|l| !l.starts_with('#')).copied().collect();
        Some(one_line(&text.join(" "))).filter(|t| !t.is_empty())
    };
    let insight = under("### Key Insight")
        .or_else(|| under("### Philosophical Insight"))
        .or_else(|| {
            body.iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("<!--"))
                .map(one_line)
        })
        .unwrap_or_default()
        .replace('"', "'");
    let insight = if insight.chars().count() > SUMMARY_INSIGHT_CHARS {
        let cut: String = insight.chars().take(SUMMARY_INSIGHT_CHARS - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        insight
    };
    let date = if date.is_empty() { String::new() } else { format!(" — {}", one_line(date)) };
    Some(format!("## Reflection #{digits}{date} | {outcome} | Insight: \"{insight}\""))
}

/// Keeps reflection-log.md in the skill's shape: the newest `full` entries whole, the entries
/// before them as one-line summaries ([`summary_line`]), at most `max` entries in all. Returns
/// the new log and the text to append to reflection-archive.md: the oldest entries past `max`,
/// verbatim as they stood in the log (empty when none moved). A log with nothing to summarise
/// or move comes back unchanged, so applying it twice changes nothing more.
pub fn retain(log: &str, full: usize, max: usize) -> (String, String) {
    let (pre, entries) = split_entries(log);
    let older = entries.len().saturating_sub(full);
    if entries.len() <= max && entries[..older].iter().all(|e| is_summary(e)) {
        return (log.to_owned(), String::new());
    }
    let cut = entries.len().saturating_sub(max.max(full));
    let moved: String = entries[..cut].concat();
    let mut new = pre;
    if !new.is_empty() && !new.ends_with("\n\n") {
        new.push('\n');
    }
    for e in &entries[cut..older] {
        new.push_str(&summary_line(e).unwrap_or_else(|| e.trim_end().to_owned()));
        new.push('\n');
    }
    if older > cut && older < entries.len() {
        new.push('\n');
    }
    for e in &entries[older..] {
        new.push_str(e);
    }
    (new, moved)
}

/// Tells whether an entry is a one-line summary (its heading carries the outcome and insight).
fn is_summary(entry: &str) -> bool {
    entry.lines().next().is_some_and(|l| l.contains(" | "))
        && entry.lines().skip(1).all(|l| l.trim().is_empty())
}

/// Renders the reward-log record of a rejected reflection (starting with a blank line): the
/// skill's `## DATE` / `**Result:**` / `**Reason:**` entry, whose result is
/// `rejected (reflection #N)`, so no reward or penalty is recorded for it.
pub fn reward_rejection_entry(date: &str, number: u32, reason: &str) -> String {
    format!(
        "\n## {}\n**Result:** rejected (reflection #{number})\n**Reason:** {}\n",
        one_line(date),
        one_line(reason)
    )
}

/// One reward-log entry, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardEntry {
    /// Its heading: the day, `YYYY-MM-DD`.
    pub date: String,
    /// `+2K reward`, `-1.5K penalty`, `0 (baseline)`, `rejected (reflection #N)`, or what a
    /// hand-written entry says.
    pub result: String,
    /// Why.
    pub reason: String,
}

impl RewardEntry {
    /// Returns the entry on one line: `2026-12-01: +2K reward — the reason`.
    pub fn line(&self) -> String {
        let reason =
            if self.reason.is_empty() { String::new() } else { format!(" — {}", self.reason) };
        format!("{}: {}{reason}", self.date, self.result)
    }

    /// Returns the result's first word: `+2K`, `-1.5K`, `0` or `rejected`.
    pub fn short(&self) -> &str {
        self.result.split_whitespace().next().unwrap_or("")
    }
}

/// Reads the entries of reward-log.md, oldest first: each `## ` heading with its `**Result:**`
/// and `**Reason:**` lines (also as bullets). An entry without a result is left out.
pub fn reward_entries(log: &str) -> Vec<RewardEntry> {
    let mut out: Vec<RewardEntry> = Vec::new();
    let mut open: Option<RewardEntry> = None;
    for line in log.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("## ") {
            out.extend(open.take().filter(|e| !e.result.is_empty()));
            open = Some(RewardEntry {
                date: one_line(h),
                result: String::new(),
                reason: String::new(),
            });
            continue;
        }
        let Some(e) = open.as_mut() else { continue };
        let t = t.strip_prefix("- ").unwrap_or(t);
        if let Some(v) = t.strip_prefix("**Result:**") {
            e.result = one_line(v);
        } else if let Some(v) = t.strip_prefix("**Reason:**") {
            e.reason = one_line(v);
        }
    }
    out.extend(open.filter(|e| !e.result.is_empty()));
    out
}

/// Renders evolution.md's line for a reflection's reward: `- Reward: +2K reward (the reason)`.
pub fn evolution_reward_line(entry: &RewardEntry) -> String {
    let reason =
        if entry.reason.is_empty() { String::new() } else { format!(" ({})", entry.reason) };
    format!("- Reward: {}{reason}\n", one_line(&entry.result))
}

/// The reward outcomes evolution.md's overview trend covers.
pub const TREND_OUTCOMES: usize = 5;

/// Returns evolution.md's `Reward trend` overview value from reward-log entries (oldest first):
/// the results of the last five, oldest first, then how many were rewards, penalties, baseline
/// and rejections — `0, +2K, rejected, +2.5K (last 4: 2 rewards, 0 penalties, 1 baseline, 1
/// rejected)`; `None` when there is none.
pub fn reward_trend(entries: &[RewardEntry]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let last = &entries[entries.len().saturating_sub(TREND_OUTCOMES)..];
    let results: Vec<&str> = last.iter().map(RewardEntry::short).collect();
    let count = |f: &dyn Fn(&str) -> bool| results.iter().filter(|r| f(r)).count();
    Some(format!(
        "{} (last {}: {} rewards, {} penalties, {} baseline, {} rejected)",
        results.join(", "),
        last.len(),
        count(&|r| r.starts_with('+')),
        count(&|r| r.starts_with('-')),
        count(&|r| r == "0"),
        count(&|r| r == "rejected"),
    ))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::{LogEntry, evolution_entry, log_entry, reward_log_entry};
    use super::*;

    fn entry(n: u32, key: &str) -> String {
        log_entry(&LogEntry {
            number: n,
            date: "2026-12-01",
            outcome: "approved",
            granted: 8_000,
            proposed: 2,
            applied: 1,
            key,
            insights: &["I rush.".to_owned()],
            extracted: 1,
            archived: 0,
            file: "memory/meta/reflections/2026-12-01.md",
        })
    }

    // See: issue 19
    #[test]
    fn issue_19_a_full_reflection_log_entry_is_the_skills_format() {
        assert_eq!(
            entry(12, "Bob returns to long projects."),
            "\n## Reflection #12 — 2026-12-01\n### Status\n- Outcome: approved\n- Tokens granted: 8,000\n- Operations: 2 proposed, 1 applied\n### Key Insight\nBob returns to long projects.\n### Self-Awareness\n- I rush.\n### Operational\n- 1 extracted, 0 archived\n- Full text: memory/meta/reflections/2026-12-01.md\n"
        );
    }

    // See: issue 19
    #[test]
    fn issue_19_one_line_summaries_are_the_skills_format() {
        let cases = [
            // cogmem's entries: the key insight, quotes made single.
            (
                entry(12, "Bob says \"later\" and means it."),
                "## Reflection #12 — 2026-12-01 | approved | Insight: \"Bob says 'later' and means it.\"",
            ),
            // The skill's reflection-process entry.
            (
                "## Reflection #3 — 2026-02-16\n### The Vibe\ncalm\n### Key Insight\nLess is more.\n### Operational\n- 2 episodes\n".to_owned(),
                "## Reflection #3 — 2026-02-16 | approved | Insight: \"Less is more.\"",
            ),
            // The skill's template entry, with its outcome.
            (
                "## Reflection #4 — 2026-02-17\n### Status\n- **Outcome:** Partial\n### Philosophical Insight\nTrust\ngrows slowly.\n".to_owned(),
                "## Reflection #4 — 2026-02-17 | partial | Insight: \"Trust grows slowly.\"",
            ),
            // A summary stays as it is.
            (
                "## Reflection #5 — 2026-02-18 | rejected | Insight: \"x\"\n".to_owned(),
                "## Reflection #5 — 2026-02-18 | rejected | Insight: \"x\"",
            ),
            // Hand-written: the first line of text.
            ("## Reflection #6\nJust a note.\n".to_owned(), "## Reflection #6 | approved | Insight: \"Just a note.\""),
        ];
        for (input, want) in cases {
            assert_eq!(summary_line(&input).as_deref(), Some(want), "input: {input:?}");
        }
        let long = entry(7, &"word ".repeat(100));
        let got = summary_line(&long).unwrap();
        assert!(got.ends_with("…\""), "{got}");
        assert_eq!(summary_line("# Reflection Log\n"), None);
    }

    // See: issue 19
    #[test]
    fn issue_19_retention_keeps_ten_full_entries_and_summarises_the_rest() {
        let mut log = "# Reflection Log\n\n<!-- c -->\n".to_owned();
        for n in 1..=12 {
            log.push_str(&entry(n, &format!("Insight {n}.")));
        }
        let (new, moved) = retain(&log, FULL_ENTRIES, MAX_ENTRIES);
        assert_eq!(moved, "");
        let (_, entries) = split_entries(&new);
        assert_eq!(entries.len(), 12);
        assert!(new.starts_with(
            "# Reflection Log\n\n<!-- c -->\n\n## Reflection #1 — 2026-12-01 | approved | Insight: \"Insight 1.\"\n## Reflection #2 — 2026-12-01 | approved | Insight: \"Insight 2.\"\n\n## Reflection #3 — 2026-12-01\n### Status\n"
        ), "{new}");
        assert_eq!(new.matches("### Status").count(), 10);
        assert_eq!(retain(&new, FULL_ENTRIES, MAX_ENTRIES), (new.clone(), String::new()), "stable");
        // Past the cap, the oldest summaries move out verbatim.
        let (small, moved) = retain(&new, 10, 11);
        assert_eq!(moved, "## Reflection #1 — 2026-12-01 | approved | Insight: \"Insight 1.\"\n");
        assert!(small.contains("\n## Reflection #2 — 2026-12-01 | approved"), "{small}");
        assert_eq!(split_entries(&small).1.len(), 11);
    }

    // See: issue 19
    #[test]
    fn issue_19_reward_log_entries_are_the_skills_format() {
        assert_eq!(
            reward_log_entry("2026-12-01", 10_500, 8_000, "well done"),
            "\n## 2026-12-01\n**Result:** +2.5K reward\n**Reason:** well done\n"
        );
        assert_eq!(
            reward_rejection_entry("2026-12-02", 3, "too vague"),
            "\n## 2026-12-02\n**Result:** rejected (reflection #3)\n**Reason:** too vague\n"
        );
        let log = format!(
            "# Reward Log\n\n<!-- c -->\n{}{}\n## 2026-12-03\n- **Result:** -1K penalty\n- **Reason:** by hand\n## 2026-12-04\nno result\n",
            reward_log_entry("2026-12-01", 10_500, 8_000, "well done"),
            reward_rejection_entry("2026-12-02", 3, "too vague"),
        );
        let got = reward_entries(&log);
        let lines: Vec<String> = got.iter().map(RewardEntry::line).collect();
        assert_eq!(
            lines,
            [
                "2026-12-01: +2.5K reward — well done",
                "2026-12-02: rejected (reflection #3) — too vague",
                "2026-12-03: -1K penalty — by hand"
            ]
        );
        assert_eq!(
            reward_trend(&got).as_deref(),
            Some("+2.5K, rejected, -1K (last 3: 1 rewards, 1 penalties, 0 baseline, 1 rejected)")
        );
        assert_eq!(reward_trend(&[]), None);
    }

    // See: issue 19
    /// Hostile insights, outcomes, reasons and dates: a summary is one heading line with the
    /// entry's number, retention keeps every entry, and a reward entry reads back as written.
    #[test]
    fn issue_19_hostile_values_stay_one_field() {
        use crate::store::hostile::{self, headings, no_stray_delimiters};
        let strategy = (hostile::value(), hostile::value(), hostile::value());
        hostile::runner(64)
            .run(&strategy, |(key, outcome, reason)| {
                let e = log_entry(&LogEntry {
                    number: 7,
                    date: "2026-12-01",
                    outcome: &outcome,
                    granted: 8_000,
                    proposed: 1,
                    applied: 1,
                    key: &key,
                    insights: &[],
                    extracted: 0,
                    archived: 0,
                    file: "f.md",
                });
                let summary = summary_line(&e).expect("an entry");
                prop_assert!(!summary.contains('\n'));
                prop_assert_eq!(super::super::last_number(&summary), 7);
                let mut log = "# Reflection Log\n".to_owned();
                for _ in 0..12 {
                    log.push_str(&e);
                }
                let (new, moved) = retain(&log, FULL_ENTRIES, MAX_ENTRIES);
                prop_assert_eq!(moved, "");
                prop_assert_eq!(split_entries(&new).1.len(), 12);
                no_stray_delimiters(&new)?;
                let r =
                    format!("# Reward Log\n{}", reward_rejection_entry("2026-12-01", 7, &reason));
                prop_assert_eq!(headings(&r).len(), 2);
                no_stray_delimiters(&r)?;
                let got = reward_entries(&r);
                prop_assert_eq!(got.len(), 1);
                prop_assert_eq!(&got[0].reason, &one_line(&reason));
                Ok(())
            })
            .unwrap();
    }

    // See: issue 19
    #[test]
    fn issue_19_an_evolution_entry_is_the_skills_format_with_its_reward() {
        let reward = RewardEntry {
            date: "2026-12-01".into(),
            result: "+2.5K reward".into(),
            reason: "well done".into(),
        };
        let mut e = evolution_entry(3, "2026-12-01", "Less is more.", &[("pattern", "Bob plans")]);
        e.push_str(&evolution_reward_line(&reward));
        assert_eq!(
            e,
            "\n## Reflection #3 — 2026-12-01\n- Key insight: Less is more.\n- pattern: Bob plans\n- Reward: +2.5K reward (well done)\n"
        );
    }
}
