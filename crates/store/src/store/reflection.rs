//! The reflection files of `memory/meta/` (design.md §4; skill-reference §2.5): reward
//! requests (`rewards/YYYY-MM-DD.md`), the reward log, the reflection log, evolution.md,
//! pending-reflection.md, the `[Self-Awareness]` log in IDENTITY.md, and the OPERATION blocks
//! a reflection proposes. Pure: text in, text out; writing belongs to [`crate::change`].
//!
//! Invariant: the state of a reflection cycle is read back from these files alone, so what
//! `cogmem reflect status` says is always what a person sees when opening them.

use serde::Serialize;

pub mod dialogue;
pub mod logs;

/// The line that marks a reward request still waiting for the user.
pub(crate) const AWAITING: &str = "Awaiting your decision.";
/// The heading that starts a submission in pending-reflection.md.
pub const SUBMISSION_HEADING: &str = "## Submission";
/// The tag that marks a self-insight in a reflection.
pub(crate) const SELF_AWARENESS: &str = "[Self-Awareness]";

/// What a reward request asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RewardRequest {
    /// The reflection this request is for.
    pub reflection: u32,
    /// The day (`YYYY-MM-DD`).
    pub date: String,
    /// The baseline budget.
    pub baseline: u64,
    /// Extra tokens asked for.
    pub extra: u64,
    /// Why the extra.
    pub extra_reason: Option<String>,
    /// Tokens the agent takes off its own budget.
    pub penalty: u64,
    /// Why the penalty.
    pub penalty_reason: Option<String>,
}

impl RewardRequest {
    /// Returns baseline + extra − penalty.
    pub fn total(&self) -> u64 {
        (self.baseline + self.extra).saturating_sub(self.penalty)
    }

    /// Renders `rewards/YYYY-MM-DD.md`, ending with "Awaiting your decision."
    pub fn render(&self) -> String {
        let mut s = format!(
            "# Reward Request — {}\n\n<!-- cogmem reflection #{} -->\n\n## My Agenda (Why I Care)\n{}\n\n## Request\n\n### Baseline: {} tokens\n\n### Extra Requested: +{} tokens\n",
            self.date,
            self.reflection,
            "Tokens are how I grow: a larger budget lets me look further back and connect more.",
            thousands(self.baseline),
            thousands(self.extra),
        );
        match &self.extra_reason {
            Some(r) if self.extra > 0 => s.push_str(&format!("1. {}\n", one_line(r))),
            _ => s.push_str("No extra requested.\n"),
        }
        s.push_str(&format!("\n### Self-Penalty: -{} tokens\n", thousands(self.penalty)));
        match &self.penalty_reason {
            Some(r) if self.penalty > 0 => s.push_str(&format!("1. {}\n", one_line(r))),
            _ => s.push_str("No penalty today.\n"),
        }
        s.push_str(&format!(
            "\n### Final Request: {} tokens\n\n{AWAITING}\n\n## Outcome\n",
            thousands(self.total())
        ));
        s
    }
}

/// A reward file as read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RewardFile {
    /// The reflection number recorded in the file.
    pub reflection: Option<u32>,
    /// Still waiting for the user's decision.
    pub awaiting: bool,
    /// The user's decision word (Approved, Bonus, …), once decided.
    pub decision: Option<String>,
    /// Tokens granted, once decided.
    pub granted: Option<u64>,
    /// The numbers of the request.
    pub baseline: u64,
    /// Extra asked for.
    pub extra: u64,
    /// Self-penalty.
    pub penalty: u64,
    /// How the cycle closed (`approved …`, `rejected …`), if it did.
    pub closed: Option<String>,
    /// The user's reason for the decision, once decided.
    pub reason: Option<String>,
}

impl RewardFile {
    /// Reads a reward file; fields it cannot find are left empty.
    pub fn parse(text: &str) -> Self {
        let mut f = Self {
            reflection: None,
            awaiting: false,
            decision: None,
            granted: None,
            baseline: 0,
            extra: 0,
            penalty: 0,
            closed: None,
            reason: None,
        };
        for line in text.lines().map(str::trim) {
            // The skill writes some of these as plain bold-key lines, without the bullet.
            let line = line.strip_prefix("- ").unwrap_or(line);
            if is_awaiting(line) {
                f.awaiting = true;
            } else if let Some(n) = line.strip_prefix("<!-- cogmem reflection #") {
                f.reflection = n.trim_end_matches("-->").trim().parse().ok();
            } else if let Some(v) = line.strip_prefix("### Baseline:") {
                f.baseline = number(v);
            } else if let Some(v) = line.strip_prefix("### Extra Requested:") {
                f.extra = number(v);
            } else if let Some(v) = line.strip_prefix("### Self-Penalty:") {
                f.penalty = number(v);
            } else if let Some(v) = line.strip_prefix("**User Decision:**") {
                f.decision =
                    Some(v.trim().to_owned()).filter(|d| !d.is_empty() && !d.starts_with('['));
            } else if let Some(v) = line.strip_prefix("**Granted:**") {
                f.granted = Some(number(v)).filter(|_| v.chars().any(|c| c.is_ascii_digit()));
            } else if let Some(v) = line.strip_prefix("**User Reason:**") {
                f.reason = Some(v.trim().to_owned()).filter(|r| !r.is_empty());
            } else if let Some(v) = line.strip_prefix("**Reflection:**") {
                f.closed = Some(v.trim().to_owned());
            }
        }
        f
    }

    /// Returns baseline + extra − penalty.
    pub fn requested(&self) -> u64 {
        (self.baseline + self.extra).saturating_sub(self.penalty)
    }
}

/// Tells whether a line is the "Awaiting your decision." line (bold or not): the whole line,
/// so that a reason that quotes it does not keep the request open.
fn is_awaiting(line: &str) -> bool {
    let bare = line.trim().trim_start_matches("- ").trim_matches(['*', '_', ' ']);
    bare.trim_end_matches('.') == AWAITING.trim_end_matches('.')
}

/// Records the user's decision in a reward file: the "Awaiting" line becomes "Decided" and the
/// Outcome section gets the decision, the grant and the reason.
pub fn with_outcome(
    text: &str,
    decision: &str,
    granted: u64,
    reason: &str,
    by: &str,
    at: &str,
) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if is_awaiting(line) {
            out.push_str(&format!("Decided: {}.\n", one_line(decision)));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "- **User Decision:** {}\n- **Granted:** {} tokens\n- **User Reason:** {}\n- **Decided by:** {} at {at}\n",
        one_line(decision),
        thousands(granted),
        one_line(reason),
        one_line(by),
    ));
    out
}

/// Closes the cycle in a reward file: `- **Reflection:** approved as #N …` or `rejected …`.
pub fn with_closing(text: &str, note: &str) -> String {
    let mut out = text.to_owned();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("- **Reflection:** {}\n", one_line(note)));
    out
}

/// Renders a reward-log entry: `## DATE`, `**Result:**`, `**Reason:**`.
pub fn reward_log_entry(date: &str, granted: u64, baseline: u64, reason: &str) -> String {
    let result = match granted.cmp(&baseline) {
        std::cmp::Ordering::Greater => format!("+{} reward", kilo(granted - baseline)),
        std::cmp::Ordering::Less => format!("-{} penalty", kilo(baseline - granted)),
        std::cmp::Ordering::Equal => "0 (baseline)".to_owned(),
    };
    format!("\n## {date}\n**Result:** {result}\n**Reason:** {}\n", one_line(reason))
}

/// Tells whether pending-reflection.md holds a submission.
pub fn has_submission(pending: &str) -> bool {
    pending.lines().any(|l| l.starts_with(SUBMISSION_HEADING))
}

/// Returns pending-reflection.md without its submission (the file as the template leaves it).
pub fn without_submission(pending: &str) -> String {
    let mut out = String::new();
    for line in pending.lines() {
        if line.starts_with(SUBMISSION_HEADING) {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    let trimmed = out.trim_end();
    if trimmed.is_empty() { "# Pending Reflection\n".to_owned() } else { format!("{trimmed}\n") }
}

/// Returns the submitted text stored in pending-reflection.md (after the submission's
/// metadata bullets).
pub fn submission_text(pending: &str) -> Option<String> {
    let start = pending.find(SUBMISSION_HEADING)?;
    let body = &pending[start..];
    let marker = "<!-- submission text -->\n";
    let text = body.find(marker).map_or("", |i| &body[i + marker.len()..]);
    Some(text.trim().to_owned())
}

/// Returns the text after a pending file's `<!-- submission text -->` marker.
pub fn submission_text_of(pending: &str) -> String {
    let marker = "<!-- submission text -->\n";
    pending.find(marker).map_or("", |i| &pending[i + marker.len()..]).trim().to_owned()
}

/// Tells whether a pending file (a reflection's or a self-image consolidation's) holds a
/// submission: the marker its submission text follows.
pub fn is_submitted(pending: &str) -> bool {
    pending.contains("<!-- submission text -->\n")
}

/// Returns the reflection number a submission is for.
pub fn submission_number(pending: &str) -> Option<u32> {
    let line = pending.lines().find(|l| l.starts_with(SUBMISSION_HEADING))?;
    line.rsplit('#').next()?.trim().parse().ok()
}

/// Returns the `[Self-Awareness]` insights in a reflection, without the tag.
pub fn self_awareness(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let i = l.find(SELF_AWARENESS)?;
            let rest = l[i + SELF_AWARENESS.len()..].trim().trim_start_matches([':', '-']).trim();
            (!rest.is_empty()).then(|| one_line(rest))
        })
        .collect()
}

/// Adds `DATE: insight` lines at the end of IDENTITY.md's `### Recent (Full Detail)` list.
/// When the heading is missing, a Self-Awareness Log section is appended.
pub fn identity_with_insights(identity: &str, date: &str, insights: &[String]) -> String {
    let lines: Vec<&str> = identity.lines().collect();
    let new: Vec<String> = insights.iter().map(|i| format!("{date}: {}", one_line(i))).collect();
    let Some(h) = lines.iter().position(|l| l.trim().starts_with("### Recent")) else {
        let mut out = identity.trim_end().to_owned();
        out.push_str("\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n");
        for n in &new {
            out.push_str(n);
            out.push('\n');
        }
        return out;
    };
    // The end of the section: the next heading.
    let end =
        lines[h + 1..].iter().position(|l| l.starts_with('#')).map_or(lines.len(), |p| h + 1 + p);
    // Insert after the last non-blank line of the section.
    let mut at = h + 1;
    for (i, l) in lines.iter().enumerate().take(end).skip(h + 1) {
        if !l.trim().is_empty() {
            at = i + 1;
        }
    }
    let mut out: Vec<String> = lines[..at].iter().map(|s| (*s).to_owned()).collect();
    out.extend(new);
    let rest = &lines[at..];
    if !rest.is_empty() && rest.first().is_some_and(|l| l.starts_with('#')) {
        out.push(String::new());
    }
    out.extend(rest.iter().map(|s| (*s).to_owned()));
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// One reflection's entry in `reflection-log.md`.
#[derive(Debug, Clone)]
pub struct LogEntry<'a> {
    /// The reflection's number.
    pub number: u32,
    /// The day, `YYYY-MM-DD`.
    pub date: &'a str,
    /// How it ended (`approved`, `partially approved`, …).
    pub outcome: &'a str,
    /// Tokens granted.
    pub granted: u64,
    /// Operations proposed.
    pub proposed: usize,
    /// Operations applied.
    pub applied: usize,
    /// The key insight.
    pub key: &'a str,
    /// The `[Self-Awareness]` insights.
    pub insights: &'a [String],
    /// EXTRACT operations applied.
    pub extracted: usize,
    /// ARCHIVE operations applied.
    pub archived: usize,
    /// The file that holds the full text.
    pub file: &'a str,
}

/// Renders a reflection-log entry (starting with a blank line). Every value is one field, the
/// key insight a paragraph line and each insight a list item, so none can start another
/// `## Reflection #N` entry or change the numbering.
pub fn log_entry(e: &LogEntry<'_>) -> String {
    let mut entry = format!(
        "\n## Reflection #{} — {}\n### Status\n- Outcome: {}\n- Tokens granted: {}\n- Operations: {} proposed, {} applied\n### Key Insight\n{}\n",
        e.number,
        e.date,
        one_line(e.outcome),
        thousands(e.granted),
        e.proposed,
        e.applied,
        crate::store::markdown::paragraph(&one_line(e.key)).trim_end(),
    );
    if !e.insights.is_empty() {
        entry.push_str("### Self-Awareness\n");
        for i in e.insights {
            entry.push_str(&format!("- {}\n", crate::store::markdown::list_item(i)));
        }
    }
    entry.push_str(&format!(
        "### Operational\n- {} extracted, {} archived\n- Full text: {}\n",
        e.extracted,
        e.archived,
        one_line(e.file)
    ));
    entry
}

/// Renders an evolution.md entry (starting with a blank line): the key insight, then one
/// `- kind: content` line per PATTERN or EVOLVE operation, every value one field.
pub fn evolution_entry(number: u32, date: &str, key: &str, patterns: &[(&str, &str)]) -> String {
    let mut entry =
        format!("\n## Reflection #{number} — {date}\n- Key insight: {}\n", one_line(key));
    for (kind, content) in patterns {
        entry.push_str(&format!("- {}: {}\n", one_line(kind), one_line(content)));
    }
    entry
}

/// Returns the highest `## Reflection #N` number in a log.
pub fn last_number(log: &str) -> u32 {
    log.lines()
        .filter_map(|l| l.strip_prefix("## Reflection #"))
        .filter_map(|r| r.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Splits a file into its preamble and its `## Reflection #` entries.
pub fn split_entries(text: &str) -> (String, Vec<String>) {
    let mut pre = String::new();
    let mut entries: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("## Reflection #") {
            entries.push(String::new());
        }
        let target = entries.last_mut().unwrap_or(&mut pre);
        target.push_str(line);
        target.push('\n');
    }
    (pre, entries)
}

/// Sets `- Key: value` in evolution.md's Overview; adds the line when missing.
pub fn set_overview(text: &str, key: &str, value: &str) -> String {
    let prefix = format!("- {key}:");
    // A line already there is replaced where it is; only a missing one is added under the
    // heading (adding it there first wrote it twice).
    let mut found = false;
    let mut added = text.lines().any(|l| l.starts_with(&prefix));
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with(&prefix) {
            if !found {
                out.push_str(&format!("{prefix} {value}\n"));
            }
            found = true;
        } else {
            out.push_str(line);
            out.push('\n');
            if !added && !found && line.trim() == "## Overview" {
                out.push_str(&format!("{prefix} {value}\n"));
                added = true;
            }
        }
    }
    out
}

/// Reads a `- Key: value` line.
pub fn overview(text: &str, key: &str) -> Option<String> {
    let prefix = format!("- {key}:");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).map(|v| v.trim().to_owned())
}

/// The operations a reflection may propose (skill's Phase 3 block format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
#[allow(
    missing_docs,
    reason = "the names are the skill's vocabulary, documented in the instructions"
)]
pub enum OpKind {
    Extract,
    Connect,
    Flag,
    Archive,
    Pattern,
    Evolve,
    Rewrite,
}

impl OpKind {
    /// Every operation, in the order the reflection instructions list them.
    pub const ALL: [Self; 7] = [
        Self::Extract,
        Self::Connect,
        Self::Flag,
        Self::Rewrite,
        Self::Archive,
        Self::Pattern,
        Self::Evolve,
    ];

    /// Returns the word used in blocks.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Extract => "EXTRACT",
            Self::Connect => "CONNECT",
            Self::Flag => "FLAG",
            Self::Archive => "ARCHIVE",
            Self::Pattern => "PATTERN",
            Self::Evolve => "EVOLVE",
            Self::Rewrite => "REWRITE",
        }
    }

    /// Parses an operation word.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(text.trim()))
    }

    /// Returns every operation word, comma-separated: what an unknown operation's error lists.
    pub fn names() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

/// One OPERATION block, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Operation {
    /// 1-based number in the submission.
    pub number: usize,
    /// The operation word as written.
    pub op: String,
    /// `TARGET:`.
    pub target: String,
    /// `CONTENT:` (may span lines).
    pub content: String,
    /// `REASON:`.
    pub reason: String,
    /// `EVOLUTION_CONTEXT:`.
    pub evolution_context: String,
    /// The 1-based line (in the reflection's text) of a second `TARGET:` line in the block,
    /// which the parse joins to the first; a block names one TARGET.
    #[serde(skip)]
    pub second_target: Option<usize>,
}

/// Finds the OPERATION blocks of a reflection: each starts at an `OPERATION:` line and runs to
/// a `---` line, the next `OPERATION:` or the end. Fields may continue on following lines.
pub fn operations(text: &str) -> Vec<Operation> {
    let mut ops: Vec<Operation> = Vec::new();
    let mut open = false;
    let mut field: Option<&'static str> = None;
    let mut targets = 0;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("OPERATION:") {
            ops.push(Operation {
                number: ops.len() + 1,
                op: v.trim().to_owned(),
                target: String::new(),
                content: String::new(),
                reason: String::new(),
                evolution_context: String::new(),
                second_target: None,
            });
            open = true;
            field = None;
            targets = 0;
            continue;
        }
        if !open {
            continue;
        }
        if t == "---" {
            open = false;
            continue;
        }
        let op = ops.last_mut().expect("a block is open");
        let keys: [(&str, &'static str); 4] = [
            ("TARGET:", "target"),
            ("CONTENT:", "content"),
            ("REASON:", "reason"),
            ("EVOLUTION_CONTEXT:", "evolution_context"),
        ];
        let mut value = None;
        for (k, name) in keys {
            if let Some(v) = t.strip_prefix(k) {
                field = Some(name);
                value = Some(v.trim());
            }
        }
        if t.starts_with("TARGET:") {
            targets += 1;
            if targets == 2 {
                op.second_target = Some(i + 1);
            }
        }
        let (name, v) = match (value, field) {
            (Some(v), Some(name)) => (name, v),
            (None, Some(name)) => (name, t),
            _ => continue,
        };
        let slot = match name {
            "target" => &mut op.target,
            "content" => &mut op.content,
            "reason" => &mut op.reason,
            _ => &mut op.evolution_context,
        };
        if !v.is_empty() {
            if !slot.is_empty() {
                slot.push('\n');
            }
            slot.push_str(v);
        }
    }
    ops
}

fn number(text: &str) -> u64 {
    let digits: String =
        text.split("tokens").next().unwrap_or("").chars().filter(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// Formats 8000 as `8,000`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn kilo(n: u64) -> String {
    if n.is_multiple_of(1000) {
        format!("{}K", n / 1000)
    } else {
        format!("{:.1}K", n as f64 / 1000.0)
    }
}

/// Every reason, note and insight these files hold is one
/// [`field`](crate::store::markdown::field): it cannot end its line, open a comment or add a
/// heading.
fn one_line(text: &str) -> String {
    crate::store::markdown::field(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template has the Overview's lines already: they are replaced where they are, never
    /// written a second time under the heading; a missing one is added there; a file that
    /// already holds a duplicate keeps one.
    #[test]
    fn overview_lines_are_set_once() {
        let t =
            "# E\n\n## Overview\n- First reflection: none yet\n- Total reflections: 0\n\n## X\n";
        let t = set_overview(t, "First reflection", "#1 (2026-12-01)");
        let t = set_overview(&t, "Total reflections", "1");
        let t = set_overview(&t, "Reward trend", "0");
        assert_eq!(
            t,
            "# E\n\n## Overview\n- Reward trend: 0\n- First reflection: #1 (2026-12-01)\n- Total reflections: 1\n\n## X\n"
        );
        let twice = "## Overview\n- Total reflections: 1\n- Total reflections: 1\n";
        assert_eq!(
            set_overview(twice, "Total reflections", "2"),
            "## Overview\n- Total reflections: 2\n"
        );
    }

    fn request() -> RewardRequest {
        RewardRequest {
            reflection: 3,
            date: "2026-12-01".into(),
            baseline: 8000,
            extra: 2000,
            extra_reason: Some("many new episodes".into()),
            penalty: 500,
            penalty_reason: Some("I forgot a deadline".into()),
        }
    }

    #[test]
    fn reward_request_round_trips() {
        let text = request().render();
        assert!(text.contains("### Final Request: 9,500 tokens"), "{text}");
        let f = RewardFile::parse(&text);
        assert!(f.awaiting);
        assert_eq!((f.reflection, f.baseline, f.extra, f.penalty), (Some(3), 8000, 2000, 500));
        assert_eq!(f.requested(), 9500);
        let decided = with_outcome(&text, "Bonus", 10_500, "good work", "manual", "T");
        let f = RewardFile::parse(&decided);
        assert!(!f.awaiting);
        assert_eq!(f.decision.as_deref(), Some("Bonus"));
        assert_eq!(f.granted, Some(10_500));
        assert!(f.closed.is_none());
        let closed = with_closing(&decided, "approved as #3");
        assert_eq!(RewardFile::parse(&closed).closed.as_deref(), Some("approved as #3"));
    }

    // See: issue 16
    /// Hostile reasons, decisions, actors, notes and insights: a reward request keeps its
    /// numbers and state through its decision and closing, the reward log gets one entry, and
    /// IDENTITY.md's Recent log gets exactly the new dated lines.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings, no_stray_delimiters};
        use proptest::prelude::*;
        let strategy = (
            (hostile::value(), hostile::value(), hostile::value()),
            (hostile::value(), hostile::value(), hostile::value()),
            prop::collection::vec(hostile::value(), 1..3),
        );
        hostile::runner(64)
            .run(&strategy, |((extra, penalty, reason), (decision, by, note), insights)| {
                let r = RewardRequest {
                    extra_reason: Some(extra),
                    penalty_reason: Some(penalty),
                    ..request()
                };
                let text = r.render();
                let h = headings(&text);
                let f = RewardFile::parse(&text);
                prop_assert!(f.awaiting);
                prop_assert_eq!((f.reflection, f.baseline, f.extra, f.penalty), (Some(3), 8000, 2000, 500));
                let decided = with_outcome(&text, &decision, 10_500, &reason, &by, "T");
                let closed = with_closing(&decided, &note);
                for t in [&decided, &closed] {
                    prop_assert_eq!(&headings(t), &h);
                    prop_assert_eq!(comment_lines(t)?.len(), 1);
                    no_stray_delimiters(t)?;
                    let f = RewardFile::parse(t);
                    prop_assert!(!f.awaiting);
                    prop_assert_eq!((f.baseline, f.extra, f.penalty), (8000, 2000, 500));
                    prop_assert_eq!(f.granted, Some(10_500));
                    let want = one_line(&decision);
                    prop_assert_eq!(f.decision, Some(want).filter(|d| !d.is_empty() && !d.starts_with('[')));
                }
                let closing = RewardFile::parse(&closed).closed;
                prop_assert_eq!(closing, Some(one_line(&note)));
                let entry = log_entry(&LogEntry {
                    number: 7,
                    date: "2026-12-01",
                    outcome: &decision,
                    granted: 9000,
                    proposed: 2,
                    applied: 1,
                    key: &reason,
                    insights: &insights,
                    extracted: 1,
                    archived: 0,
                    file: &note,
                });
                let evolution = evolution_entry(7, "2026-12-01", &reason, &[("pattern", &note)]);
                for log in [format!("# Reflection Log\n{entry}"), format!("# Evolution\n{evolution}")] {
                    prop_assert_eq!(last_number(&log), 7);
                    prop_assert_eq!(split_entries(&log).1.len(), 1);
                    prop_assert_eq!(headings(&log).iter().filter(|(l, _)| *l <= 2).count(), 2);
                    no_stray_delimiters(&log)?;
                }
                let log = format!("# Reward Log\n{}", reward_log_entry("2026-12-01", 9000, 8000, &reason));
                prop_assert_eq!(headings(&log).len(), 2);
                no_stray_delimiters(&log)?;
                let identity = "# IDENTITY.md\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n2026-11-30: earlier\n\n### Archived (Compacted)\n";
                let new = identity_with_insights(identity, "2026-12-01", &insights);
                prop_assert_eq!(headings(&new), headings(identity));
                let mut want = vec!["2026-11-30: earlier".to_owned()];
                want.extend(insights.iter().map(|i| format!("2026-12-01: {}", one_line(i))));
                let got: Vec<String> =
                    crate::store::identity::recent_entries(&new).into_iter().map(|l| l.trim_end().to_owned()).collect();
                let want: Vec<String> = want.iter().map(|l| l.trim_end().to_owned()).collect();
                prop_assert_eq!(got, want);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn skill_written_files_parse() {
        // A request as the cognitive-memory skill's template lays it out, before and after.
        let open = "# Reward Request — 2026-02-16\n\n## Request\n### Baseline: 8,000 tokens\n### Extra Requested: +[N] tokens\n### Self-Penalty: -[N] tokens\nNo penalty today.\n### Final Request: [N] tokens\n\n*Awaiting your decision.*\n\n## Outcome\n**User Decision:** [Approved | Bonus | Reduced]\n**Granted:** [N] tokens\n";
        let f = RewardFile::parse(open);
        assert!(f.awaiting);
        assert_eq!(
            (f.baseline, f.extra, f.penalty, f.decision, f.granted),
            (8000, 0, 0, None, None)
        );
        let done = "# Reward Request — 2026-02-16\n\n## Request\n### Baseline: 8,000 tokens\n### Extra Requested: +2,000 tokens\n### Self-Penalty: -0 tokens\n### Final Request: 10,000 tokens\n\n## Outcome\n**User Decision:** Approved\n**Granted:** 10,000 tokens\n**User Reason:** fine\n";
        let f = RewardFile::parse(done);
        assert!(!f.awaiting);
        assert_eq!(f.decision.as_deref(), Some("Approved"));
        assert_eq!((f.extra, f.granted), (2000, Some(10_000)));
        // Both reflection-log formats, and the pruned one-liner.
        let log = "# Reflection Log\n\n## Reflection #11 — 2026-02-15\n### The Vibe\nx\n## Reflection #12 — 2026-02-16 | approved | Insight: \"y\"\n";
        assert_eq!(last_number(log), 12);
        assert_eq!(split_entries(log).1.len(), 2);
    }

    #[test]
    fn reward_log_results() {
        let cases = [(10_000, "+2K reward"), (6_500, "-1.5K penalty"), (8_000, "0 (baseline)")];
        for (granted, want) in cases {
            let e = reward_log_entry("2026-12-01", granted, 8000, "x");
            assert!(e.contains(&format!("**Result:** {want}\n")), "granted {granted}: {e}");
        }
    }

    #[test]
    fn operations_are_parsed_with_numbers_and_multiline_fields() {
        let text = "I thought about things.\n\nOPERATION: EXTRACT\nTARGET: memory/episodes/2026-12-01.md\nCONTENT: Alice prefers\n  green tea\nREASON: said twice\n---\nOPERATION: FROB\nTARGET: x\n---\nnot a field\n";
        let ops = operations(text);
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[0].number, 1);
        assert_eq!(ops[0].content, "Alice prefers\ngreen tea");
        assert_eq!(ops[0].reason, "said twice");
        assert_eq!(ops[1].op, "FROB");
        assert_eq!(OpKind::parse(&ops[1].op), None);
    }

    #[test]
    fn insights_go_to_the_recent_log() {
        let identity = "# I\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n\n### Archived (Compacted)\n<!-- x -->\n";
        let text = "Hmm.\n[Self-Awareness] I rush when tired.\n- [Self-Awareness]: I like lists\n";
        let insights = self_awareness(text);
        assert_eq!(insights, ["I rush when tired.", "I like lists"]);
        let new = identity_with_insights(identity, "2026-12-01", &insights);
        assert_eq!(
            new,
            "# I\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n2026-12-01: I rush when tired.\n2026-12-01: I like lists\n\n### Archived (Compacted)\n<!-- x -->\n"
        );
    }

    #[test]
    fn submission_round_trip() {
        let pending = "# Pending Reflection\n\n<!-- c -->\n\n## Submission — reflection #4\n- **By:** a\n\n<!-- submission text -->\nBody\n";
        assert!(has_submission(pending));
        assert_eq!(submission_number(pending), Some(4));
        assert_eq!(submission_text(pending).as_deref(), Some("Body"));
        assert_eq!(without_submission(pending), "# Pending Reflection\n\n<!-- c -->\n");
    }
}
