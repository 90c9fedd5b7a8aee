//! `memory/meta/audit-archive.md`: monthly digests of the audit lines `cogmem audit compact`
//! moved out of the log. Each month is a `## YYYY-MM` section of `- **Key**: value` bullets
//! (line count, first and last time, counts by action and by actor) and the notable lines
//! kept whole, one `  - ` bullet each. Every moved line is still in git history.

use std::collections::BTreeMap;

use super::{Action, AuditLine, CRITICAL_PREFIX};

/// The header of a new `audit-archive.md`.
pub const HEADER: &str = "# Audit Archive\n\n<!-- Monthly digests of audit.log lines moved out by `cogmem audit compact`. Every moved line is still in git history: `git log -p -- memory/meta/audit.log`. Format: docs/formats.md. -->\n\n";

/// One month's digest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    /// How many lines it stands for.
    pub lines: usize,
    /// The earliest timestamp, `YYYY-MM-DDTHH:MM:SSZ`.
    pub first: String,
    /// The latest timestamp.
    pub last: String,
    /// Lines per action word.
    pub by_action: BTreeMap<String, usize>,
    /// Lines per actor.
    pub by_actor: BTreeMap<String, usize>,
    /// Notable lines, word for word (see [`is_notable`]).
    pub notable: Vec<String>,
}

impl Digest {
    /// Counts one audit line into the digest, keeping it whole when it is notable.
    pub fn add(&mut self, l: &AuditLine) {
        let ts = l.timestamp.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        if self.first.is_empty() || ts < self.first {
            self.first.clone_from(&ts);
        }
        if ts > self.last {
            self.last = ts;
        }
        self.lines += 1;
        *self.by_action.entry(l.action.as_str().to_owned()).or_default() += 1;
        *self.by_actor.entry(l.actor.clone()).or_default() += 1;
        if is_notable(l) {
            self.notable.push(l.format());
        }
    }

    fn render(&self, month: &str, out: &mut String) {
        let counts = |m: &BTreeMap<String, usize>| {
            m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        };
        out.push_str(&format!("## {month}\n\n"));
        out.push_str(&format!("- **Lines**: {}\n", self.lines));
        out.push_str(&format!("- **From**: {}\n", self.first));
        out.push_str(&format!("- **To**: {}\n", self.last));
        out.push_str(&format!("- **By action**: {}\n", counts(&self.by_action)));
        out.push_str(&format!("- **By actor**: {}\n", counts(&self.by_actor)));
        if self.notable.is_empty() {
            out.push_str("- **Notable**: none\n");
        } else {
            out.push_str("- **Notable**:\n");
            for n in &self.notable {
                out.push_str(&format!("  - {n}\n"));
            }
        }
        out.push('\n');
    }
}

/// Notable events keep their whole line in the digest: critical changes and their alerts,
/// acknowledgements, archiving, merges and supersessions, and everything a reflection did.
pub fn is_notable(l: &AuditLine) -> bool {
    matches!(l.action, Action::Alert | Action::Ack | Action::Archive | Action::Merge)
        || l.summary.starts_with(CRITICAL_PREFIX)
        || l.summary.to_lowercase().contains("supersede")
        || l.actor.starts_with("reflection:")
}

/// The parsed file: the text above the first month, and the digests by month.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Archive {
    /// Everything before the first `## ` month heading, as written.
    pub header: String,
    /// Digests by month, `YYYY-MM`.
    pub months: BTreeMap<String, Digest>,
}

impl Archive {
    /// Parses the file's text; lines it does not know are skipped.
    pub fn parse(text: &str) -> Self {
        let mut header = String::new();
        let mut months: BTreeMap<String, Digest> = BTreeMap::new();
        let mut current: Option<String> = None;
        let mut in_notable = false;
        for line in text.lines() {
            if let Some(m) = line.strip_prefix("## ") {
                current = Some(m.trim().to_owned());
                months.entry(m.trim().to_owned()).or_default();
                in_notable = false;
                continue;
            }
            let Some(month) = &current else {
                header.push_str(line);
                header.push('\n');
                continue;
            };
            let d = months.entry(month.clone()).or_default();
            if in_notable && let Some(n) = line.strip_prefix("  - ") {
                d.notable.push(n.to_owned());
                continue;
            }
            in_notable = false;
            let Some((key, value)) = line
                .strip_prefix("- **")
                .and_then(|r| r.split_once("**:"))
                .map(|(k, v)| (k, v.trim()))
            else {
                continue;
            };
            let counts = |v: &str| -> BTreeMap<String, usize> {
                v.split(", ")
                    .filter_map(|p| {
                        let (k, n) = p.trim().rsplit_once(' ')?;
                        Some((k.to_owned(), n.parse().ok()?))
                    })
                    .collect()
            };
            match key {
                "Lines" => d.lines = value.parse().unwrap_or(0),
                "From" => d.first = value.to_owned(),
                "To" => d.last = value.to_owned(),
                "By action" => d.by_action = counts(value),
                "By actor" => d.by_actor = counts(value),
                "Notable" => in_notable = value.is_empty(),
                _ => {}
            }
        }
        Self { header, months }
    }

    /// Counts one audit line into its month's digest and returns the month, `YYYY-MM`.
    pub fn add(&mut self, l: &AuditLine) -> String {
        let month = l.timestamp.format("%Y-%m").to_string();
        self.months.entry(month.clone()).or_default().add(l);
        month
    }

    /// The notable audit lines of every month, word for word (ACK lines among them).
    pub fn notable_lines(&self) -> impl Iterator<Item = &str> {
        self.months.values().flat_map(|d| d.notable.iter().map(String::as_str))
    }

    /// Renders the file: the header ([`HEADER`] when there was none), then the months in order.
    pub fn render(&self) -> String {
        let mut text =
            if self.header.trim().is_empty() { HEADER.to_owned() } else { self.header.clone() };
        if !text.ends_with("\n\n") {
            text.push('\n');
        }
        for (month, d) in &self.months {
            d.render(month, &mut text);
        }
        format!("{}\n", text.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> AuditLine {
        AuditLine::parse(text).unwrap().unwrap()
    }

    #[test]
    fn digest_round_trips_and_merges() {
        let mut a = Archive::default();
        a.add(&line("2026-08-02T10:00:00Z | APPEND | memory/episodes/a.md | bot:x | auto | a"));
        let ack = "2026-08-03T10:00:00Z | ACK | SOUL.md | manual | — | acknowledged abc";
        assert_eq!(a.add(&line(ack)), "2026-08");
        a.add(&line("2026-09-01T10:00:00Z | EDIT | MEMORY.md | manual | — | x"));
        let text = a.render();
        assert!(text.starts_with(HEADER), "{text}");
        let back = Archive::parse(&text);
        assert_eq!(back.header, HEADER);
        assert_eq!(back.months, a.months);
        assert_eq!(back.render(), text);
        assert_eq!(back.notable_lines().collect::<Vec<_>>(), [ack]);
        let mut again = back.months["2026-08"].clone();
        again.add(&line("2026-08-01T09:00:00Z | EDIT | MEMORY.md | manual | — | x"));
        assert_eq!(again.lines, 3);
        assert_eq!(again.first, "2026-08-01T09:00:00Z");
        assert_eq!(again.by_actor["manual"], 2);
        assert_eq!(again.notable.len(), 1);
        assert_eq!(Archive::parse("").render(), format!("{}\n", HEADER.trim_end()));
    }
}
