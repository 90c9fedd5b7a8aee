//! `memory/meta/audit.log`: one line per changed file, `TIMESTAMP | ACTION | FILE | ACTOR |
//! APPROVAL | SUMMARY`, timestamps in UTC seconds. This module formats and parses lines and
//! filters them for `cogmem audit`; [`append`] is the one writer of new lines (the change engine
//! and `sync --remote`'s merge commit call it).

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub mod archive;

use cogmem_text::merge::{Block, Unmergeable, pick3, union_blocks};

use crate::error::InputError;
use crate::store::StoreError;
use crate::store::fsx;

/// What a change did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
#[allow(missing_docs, reason = "the names are the audit vocabulary, documented in formats.md")]
pub enum Action {
    Create,
    Edit,
    Append,
    Delete,
    Archive,
    Restore,
    Merge,
    Revert,
    Decay,
    Rename,
    Propose,
    Commit,
    Reject,
    Alert,
    Init,
    Ack,
    Purge,
}

impl Action {
    /// Every action, for parsing and help text.
    pub const ALL: [Self; 17] = [
        Self::Create,
        Self::Edit,
        Self::Append,
        Self::Delete,
        Self::Archive,
        Self::Restore,
        Self::Merge,
        Self::Revert,
        Self::Decay,
        Self::Rename,
        Self::Propose,
        Self::Commit,
        Self::Reject,
        Self::Alert,
        Self::Init,
        Self::Ack,
        Self::Purge,
    ];

    /// Returns the upper-case word written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "CREATE",
            Self::Edit => "EDIT",
            Self::Append => "APPEND",
            Self::Delete => "DELETE",
            Self::Archive => "ARCHIVE",
            Self::Restore => "RESTORE",
            Self::Merge => "MERGE",
            Self::Revert => "REVERT",
            Self::Decay => "DECAY",
            Self::Rename => "RENAME",
            Self::Propose => "PROPOSE",
            Self::Commit => "COMMIT",
            Self::Reject => "REJECT",
            Self::Alert => "ALERT",
            Self::Init => "INIT",
            Self::Ack => "ACK",
            Self::Purge => "PURGE",
        }
    }

    /// Parses an action word, ignoring case.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

/// The kinds of actor, the part of an actor's name before its first `:`.
const KINDS: [&str; 5] = ["user", "agent", "bot", "system", "subagent"];

/// Who made a change: `user:NAME`, `manual`, `bot:trigger-remember`, `subagent:NAME`, …
///
/// The kind (the part before the first `:`, or a bare `manual`) is case-insensitive and kept
/// in lower case, so `SUBAGENT:x` is the sub-agent `subagent:x`; the name after it keeps its
/// case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Actor(String);

impl Actor {
    /// A person at the terminal. The binary uses it only when stdin is a terminal; without
    /// one the default actor is [`Actor::unnamed_agent`].
    pub fn manual() -> Self {
        Self("manual".into())
    }

    /// The actor of a program that named nobody and has no terminal: `agent:manual`, an
    /// agent, not a person.
    pub fn unnamed_agent() -> Self {
        Self("agent:manual".into())
    }

    /// Builds an actor from a name the code itself chose (e.g. `system:init`).
    pub fn system(name: &'static str) -> Self {
        Self(name.into())
    }

    /// Validates an actor name: ASCII letters, digits and `:_.-`, at most 100 bytes, with a
    /// kind and a name on both sides of a `:` (`subagent:` names no one: its commits' author
    /// and its audit lines would not agree, and `verify` failed on them). The kind is
    /// lower-cased (see [`Actor`]).
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let t = text.trim();
        let ok = !t.is_empty()
            && t.len() <= 100
            && t.chars().all(|c| c.is_ascii_alphanumeric() || ":_.-".contains(c))
            && !t.ends_with(':')
            && t.split_once(':').is_none_or(|(kind, _)| !kind.is_empty());
        if !ok {
            return Err(InputError::Actor { actor: text.to_owned() });
        }
        // A sub-agent named `user:alice` would be listed and filed as that person.
        if let Some((kind, rest)) = t.split_once(':')
            && kind.eq_ignore_ascii_case("subagent")
            && let Some((other, _)) = rest.split_once(':')
            && KINDS.iter().any(|k| other.eq_ignore_ascii_case(k))
        {
            return Err(InputError::SubagentName {
                name: rest.to_owned(),
                kind: other.to_ascii_lowercase(),
            });
        }
        let name = match t.split_once(':') {
            Some((kind, rest)) => format!("{}:{rest}", kind.to_ascii_lowercase()),
            None if t.eq_ignore_ascii_case("manual") => "manual".to_owned(),
            None => t.to_owned(),
        };
        Ok(Self(name))
    }

    /// Tells whether the actor is a sub-agent (`subagent:NAME`), which may only propose.
    pub fn is_subagent(&self) -> bool {
        self.0.starts_with("subagent:")
    }

    /// Tells whether the actor is a person: `user:NAME`, or `manual` (which the binary gives
    /// only to someone at a terminal). Approvals and acknowledgements are reserved to people.
    pub fn is_person(&self) -> bool {
        is_person_name(&self.0)
    }

    /// Returns the actor name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Returns the approval an ordinary change by this actor carries: `—` for a person, `auto`
    /// for tools and agents.
    pub fn default_approval(&self) -> Approval {
        if self.is_person() { Approval::None } else { Approval::Auto }
    }
}

/// Tells whether an actor name as the audit log and commit trailers record it names a person:
/// `manual`, or `user:NAME` with a name (see [`Actor::is_person`]).
pub fn is_person_name(actor: &str) -> bool {
    actor == "manual" || actor.strip_prefix("user:").is_some_and(|n| !n.is_empty())
}

impl std::fmt::Display for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a change needed and had approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Needs none (routine tool or agent action).
    Auto,
    /// Approved explicitly.
    Approved,
    /// Waiting for approval.
    Pending,
    /// Not applicable (a person did it by hand): written `—`.
    None,
}

impl Approval {
    /// Returns the word written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Approved => "approved",
            Self::Pending => "pending",
            Self::None => "—",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "auto" => Some(Self::Auto),
            "approved" => Some(Self::Approved),
            "pending" => Some(Self::Pending),
            "—" | "-" | "" => Some(Self::None),
            _ => None,
        }
    }
}

impl Serialize for Approval {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditLine {
    /// When, in UTC.
    pub timestamp: DateTime<Utc>,
    /// What was done.
    pub action: Action,
    /// The file, relative to the workspace root.
    pub file: String,
    /// Who did it.
    pub actor: String,
    /// Approval state.
    pub approval: Approval,
    /// One-line summary.
    pub summary: String,
}

impl AuditLine {
    /// Formats the line (without newline). The file and the actor are [`clean_field`]s and the
    /// summary a [`clean_summary`], so no value can end the line or add a field.
    pub fn format(&self) -> String {
        format!(
            "{} | {} | {} | {} | {} | {}",
            self.timestamp.format("%Y-%m-%dT%H:%M:%SZ"),
            self.action.as_str(),
            clean_field(&self.file),
            clean_field(&self.actor),
            self.approval.as_str(),
            clean_summary(&self.summary),
        )
    }

    /// Parses a line; `None` for a header, comment or blank line.
    ///
    /// Returns the problem as text when the line is malformed.
    pub fn parse(line: &str) -> Result<Option<Self>, String> {
        let Some(f) = RawFields::split(line)? else { return Ok(None) };
        let timestamp = cogmem_text::date::parse_stored(f.timestamp)
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| format!("cannot read {:?} as a UTC timestamp", f.timestamp))?;
        let action =
            Action::parse(f.action).ok_or_else(|| format!("unknown action {:?}", f.action))?;
        let approval = Approval::parse(f.approval)
            .ok_or_else(|| format!("unknown approval {:?}", f.approval))?;
        Ok(Some(Self {
            timestamp,
            action,
            file: f.file.to_owned(),
            actor: f.actor.to_owned(),
            approval,
            summary: f.summary.to_owned(),
        }))
    }
}

impl AuditLine {
    /// The ALERT line that follows every change to a critical file.
    pub fn alert(file: &str, timestamp: DateTime<Utc>) -> Self {
        Self {
            timestamp,
            action: Action::Alert,
            file: file.to_owned(),
            actor: "system:audit".into(),
            approval: Approval::None,
            summary: "Critical file change detected. Pending user acknowledgment.".into(),
        }
    }
}

/// Renders lines as they are written to the log, one per line.
pub fn render(lines: &[AuditLine]) -> String {
    let mut out = String::new();
    for l in lines {
        out.push_str(&l.format());
        out.push('\n');
    }
    out
}

/// Appends lines to the audit log at `path` (creating it when missing). A last line left
/// without its newline (a hand edit, a crash) is ended first, so no line is glued to another;
/// only the last byte is read, as the log grows with every change.
///
/// # Errors
///
/// When the log cannot be read or appended to.
pub fn append(path: &Path, lines: &[AuditLine]) -> crate::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    fsx::check_no_link(path, "append to")?; // not even read through a link
    let last = match std::fs::File::open(path) {
        Ok(mut file) => {
            let mut last = [0u8; 1];
            (file.seek(SeekFrom::End(-1)).is_ok() && file.read_exact(&mut last).is_ok())
                .then_some(last[0])
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(fsx::IoError::new(path, "read", e).into()),
    };
    fsx::append(path, addition(last, lines).as_bytes())?;
    Ok(())
}

/// A log started again (after its lines were sealed into a segment): its `header`, then the
/// lines.
pub(crate) fn restarted(header: &str, lines: &[AuditLine]) -> String {
    format!("{header}{}", render(lines))
}

/// What [`append`] adds to a log whose last byte is `last` (`None` when it is empty or
/// missing): a newline first when the last line is not ended, then the lines.
pub(crate) fn addition(last: Option<u8>, lines: &[AuditLine]) -> String {
    let mut out = String::new();
    if last.is_some_and(|b| b != b'\n') {
        out.push('\n');
    }
    out.push_str(&render(lines));
    out
}

/// The fields of an audit line as text, trimmed and not yet checked: for readers that must
/// see lines [`AuditLine::parse`] rejects (an action or approval word it does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawFields<'a> {
    /// The timestamp as written.
    pub timestamp: &'a str,
    /// The action word.
    pub action: &'a str,
    /// The file.
    pub file: &'a str,
    /// The actor.
    pub actor: &'a str,
    /// The approval word.
    pub approval: &'a str,
    /// The summary (empty when the line has only five fields).
    pub summary: &'a str,
}

impl<'a> RawFields<'a> {
    /// Splits a line into its `|`-separated fields; `None` for a header, comment or blank
    /// line.
    ///
    /// Returns the problem as text when the line has fewer than five fields.
    pub fn split(line: &'a str) -> Result<Option<Self>, String> {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        let parts: Vec<&str> = line.splitn(6, '|').map(str::trim).collect();
        if parts.len() < 5 {
            return Err(format!("expected 6 fields separated by `|`, found {}", parts.len()));
        }
        Ok(Some(Self {
            timestamp: parts[0],
            action: parts[1],
            file: parts[2],
            actor: parts[3],
            approval: parts[4],
            summary: parts.get(5).copied().unwrap_or(""),
        }))
    }
}

/// The start of the summary of a change to a critical file.
pub const CRITICAL_PREFIX: &str = "⚠️ CRITICAL: ";

/// Makes a file or an actor safe as one field of an audit line or a commit message: one
/// [`field`](crate::store::markdown::field) (no line break, no control character), with `|`
/// written `/`. What the parser reads back is this form.
pub fn clean_field(text: &str) -> String {
    crate::store::markdown::cell(text)
}

/// The form text takes in a summary before it is cut: one [`clean_field`]. A purge looks for
/// a memory in this form too.
pub fn summary_form(text: &str) -> String {
    clean_field(text)
}

/// Makes a summary safe for one audit line and one commit subject: one [`summary_form`], at
/// most 100 characters.
pub fn clean_summary(text: &str) -> String {
    let one = summary_form(text);
    if one.chars().count() <= 100 {
        one
    } else {
        let cut: String = one.chars().take(99).collect();
        format!("{}…", cut.trim_end())
    }
}

/// Lines that could not be parsed, reported and skipped.
#[derive(Debug, Clone, Serialize)]
pub struct BadLine {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// Parses a whole audit log; malformed lines are returned separately, never fatal.
pub fn parse_log(text: &str) -> (Vec<AuditLine>, Vec<BadLine>) {
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        match AuditLine::parse(raw) {
            Ok(Some(l)) => lines.push(l),
            Ok(None) => {}
            Err(problem) => bad.push(BadLine { line: i + 1, problem }),
        }
    }
    (lines, bad)
}

/// Turns a bad line into an error naming the file and line.
pub fn bad_line_error(path: &Path, bad: &BadLine) -> StoreError {
    StoreError::Malformed { path: path.to_owned(), line: bad.line, what: bad.problem.clone() }
}

/// Which lines `cogmem audit` shows.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    /// Only lines at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only lines whose actor equals this or starts with it followed by `:`.
    pub actor: Option<String>,
    /// Only these actions.
    pub action: Option<Action>,
    /// Only lines whose file equals this or lies under it.
    pub file: Option<String>,
    /// Only lines about critical files (ALERT and ACK lines, and critical summaries).
    pub critical: bool,
}

/// Tells whether `actor` is `filter` or an actor under it (`bot` covers `bot:trigger-remember`),
/// its kind (before the first `:`) compared without case, as [`Actor::parse`] folds it (issue
/// 16); the rest of the name is compared as written.
fn is_actor_under(actor: &str, filter: &str) -> bool {
    let (a_kind, a_rest) = actor.split_once(':').map_or((actor, None), |(k, r)| (k, Some(r)));
    let (f_kind, f_rest) = filter.split_once(':').map_or((filter, None), |(k, r)| (k, Some(r)));
    if !a_kind.eq_ignore_ascii_case(f_kind) {
        return false;
    }
    match (f_rest, a_rest) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(f), Some(a)) => a.strip_prefix(f).is_some_and(|r| r.is_empty() || r.starts_with(':')),
    }
}

impl AuditFilter {
    /// Tells whether a line passes the filter.
    pub fn matches(&self, l: &AuditLine) -> bool {
        if self.since.is_some_and(|s| l.timestamp < s) {
            return false;
        }
        if self.actor.as_deref().is_some_and(|a| !is_actor_under(&l.actor, a)) {
            return false;
        }
        if self.action.is_some_and(|a| a != l.action) {
            return false;
        }
        if let Some(f) = &self.file {
            let f = f.trim_end_matches('/');
            let under = l.file.strip_prefix(f).is_some_and(|r| r.is_empty() || r.starts_with('/'));
            if !under {
                return false;
            }
        }
        let about_critical = matches!(l.action, Action::Alert | Action::Ack)
            || l.summary.starts_with(CRITICAL_PREFIX);
        if self.critical && !about_critical {
            return false;
        }
        true
    }
}

/// The sealed segments of the audit log (`memory/meta/audit/*.log`), oldest first, as paths
/// relative to the root. With `audit.log` after them they are the whole log.
pub fn segments(root: &Path) -> Vec<String> {
    let dir = root.join(crate::workspace::layout::AUDIT_SEGMENTS_DIR);
    let Ok(listing) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<String> = listing
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .map(|n| format!("{}/{n}", crate::workspace::layout::AUDIT_SEGMENTS_DIR))
        .filter(|rel| crate::workspace::layout::is_audit_segment(rel))
        .collect();
    out.sort();
    out
}

/// Every file of the audit log, oldest first: the sealed segments, then `audit.log`.
pub fn log_files(root: &Path) -> Vec<String> {
    let mut out = segments(root);
    out.push(crate::workspace::layout::AUDIT_LOG.to_owned());
    out
}

/// Where `audit.log` goes when it is sealed: `memory/meta/audit/<time of its first line>.log`
/// (colons as `-`), with `-2`, `-3`, … when that name is taken.
pub fn segment_name(root: &Path, log: &str) -> String {
    let first = log
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .and_then(|l| l.split('|').next())
        .map(str::trim)
        .filter(|t| cogmem_text::date::parse_rfc3339(t).is_some())
        .map_or_else(|| "0000-00-00T00-00-00Z".to_owned(), |t| t.replace(':', "-"));
    let dir = crate::workspace::layout::AUDIT_SEGMENTS_DIR;
    let mut name = format!("{dir}/{first}.log");
    let mut n = 2;
    while root.join(&name).exists() {
        name = format!("{dir}/{first}-{n}.log");
        n += 1;
    }
    name
}

/// The header of an audit log: its leading comment and blank lines.
pub fn header_of(log: &str) -> String {
    let mut out = String::new();
    for line in log.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            out.push_str(line);
            out.push('\n');
        } else {
            break;
        }
    }
    out
}

/// Splits an audit log into its header lines (comments and blanks before the first entry)
/// and entry lines keyed by their timestamp; a line without one sorts with the line before it.
fn merge_parts(text: &str) -> (Vec<&str>, Vec<Block<'_>>) {
    let mut header = Vec::new();
    let mut lines = Vec::new();
    let mut key = "";
    for line in text.lines() {
        let t = line.trim_end();
        if lines.is_empty() && (t.is_empty() || t.starts_with('#')) {
            header.push(t);
            continue;
        }
        if t.is_empty() {
            continue;
        }
        if let Ok(Some(f)) = RawFields::split(t)
            && f.timestamp.len() >= 10
            && f.timestamp.starts_with(|c: char| c.is_ascii_digit())
        {
            key = f.timestamp;
        }
        lines.push(Block { key, text: t });
    }
    (header, lines)
}

/// Three-way merge of an audit log for `sync --remote`: the union of both sides' lines
/// ordered by timestamp; lines removed on one side (moved to a segment or the archive by a
/// compaction) stay removed.
///
/// # Errors
///
/// When both sides rewrote the header lines differently.
pub fn merge3(base: Option<&str>, ours: &str, theirs: &str) -> Result<String, Unmergeable> {
    let (hb, b) = merge_parts(base.unwrap_or(""));
    let (ho, o) = merge_parts(ours);
    let (ht, t) = merge_parts(theirs);
    let header = pick3(base.map(|_| &hb), Some(&ho), Some(&ht))
        .map_err(|()| "both sides rewrote the header lines".to_owned())?
        .unwrap_or(&ho);
    let mut out = String::new();
    for line in header.iter().chain(union_blocks(&b, &o, &t).iter().map(|l| &l.text)) {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 16
    /// Hostile files, actors and summaries: each line reads back as one line with the fields
    /// in their [`clean_field`] and [`clean_summary`] forms, after a header that stays a header.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile;
        use proptest::prelude::*;
        let strategy =
            prop::collection::vec((hostile::value(), hostile::value(), hostile::value()), 1..4);
        hostile::runner(96)
            .run(&strategy, |fields| {
                let timestamp: DateTime<Utc> = "2026-12-01T09:00:00Z".parse().unwrap();
                let lines: Vec<AuditLine> = fields
                    .iter()
                    .map(|(file, actor, summary)| AuditLine {
                        timestamp,
                        action: Action::Append,
                        file: file.clone(),
                        actor: actor.clone(),
                        approval: Approval::Auto,
                        summary: summary.clone(),
                    })
                    .collect();
                let log = format!("# Audit log\n{}", render(&lines));
                let (read, bad) = parse_log(&log);
                prop_assert!(bad.is_empty(), "{:?}", bad);
                prop_assert_eq!(read.len(), lines.len());
                prop_assert_eq!(log.lines().count(), lines.len() + 1);
                for (r, (file, actor, summary)) in read.iter().zip(&fields) {
                    prop_assert_eq!((r.action, r.approval), (Action::Append, Approval::Auto));
                    prop_assert_eq!(&r.file, &clean_field(file));
                    prop_assert_eq!(&r.actor, &clean_field(actor));
                    prop_assert_eq!(&r.summary, &clean_summary(summary));
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn merge3_unions_lines_by_time_and_keeps_removals() {
        let base = "# Audit\n\n2026-12-01T09:00:00Z | INIT | . | system:init | auto | init\n";
        let ours = format!("{base}2026-12-01T09:05:00Z | APPEND | a | x | auto | ours\n");
        let theirs = format!("{base}2026-12-01T09:03:00Z | APPEND | b | y | auto | theirs\n");
        let m = merge3(Some(base), &ours, &theirs).unwrap();
        assert_eq!(
            m,
            format!(
                "{base}2026-12-01T09:03:00Z | APPEND | b | y | auto | theirs\n2026-12-01T09:05:00Z | APPEND | a | x | auto | ours\n"
            )
        );
        // Compacted on our side: the base line stays gone, their new line arrives.
        let compacted = "# Audit\n\n";
        let m = merge3(Some(base), compacted, &theirs).unwrap();
        assert_eq!(m, "# Audit\n\n2026-12-01T09:03:00Z | APPEND | b | y | auto | theirs\n");
        assert!(
            merge3(Some(base), &ours.replace("# Audit", "# A"), &theirs.replace("# Audit", "# B"))
                .is_err()
        );
    }

    #[test]
    fn raw_fields_cases() {
        let cases = [
            ("", Ok(None)),
            ("# Audit log", Ok(None)),
            ("   ", Ok(None)),
            (
                "2026-02-02T15:30:05Z | ACK | IDENTITY.md | manual | — | ok | still ok\r\n",
                Ok(Some((
                    "2026-02-02T15:30:05Z",
                    "ACK",
                    "IDENTITY.md",
                    "manual",
                    "—",
                    "ok | still ok",
                ))),
            ),
            (
                "2026-02-02T15:30Z | MADE-UP | f | a | b",
                Ok(Some(("2026-02-02T15:30Z", "MADE-UP", "f", "a", "b", ""))),
            ),
            ("x | y | z", Err("expected 6 fields separated by `|`, found 3".to_owned())),
        ];
        for (input, want) in cases {
            let got = RawFields::split(input).map(|o| {
                o.map(|f| (f.timestamp, f.action, f.file, f.actor, f.approval, f.summary))
            });
            assert_eq!(got, want, "input: {input:?}");
        }
    }

    #[test]
    fn line_round_trips() {
        let line = AuditLine {
            timestamp: "2026-02-02T15:30:05Z".parse().unwrap(),
            action: Action::Append,
            file: "memory/episodes/2026-02-02.md".into(),
            actor: "bot:trigger-remember".into(),
            approval: Approval::Auto,
            summary: "a | b\nc".into(),
        };
        let text = line.format();
        assert_eq!(
            text,
            "2026-02-02T15:30:05Z | APPEND | memory/episodes/2026-02-02.md | bot:trigger-remember | auto | a / b c"
        );
        let back = AuditLine::parse(&text).unwrap().unwrap();
        assert_eq!(back.summary, "a / b c");
        assert_eq!(back.action, Action::Append);
    }

    #[test]
    fn parses_skill_lines_and_reports_bad_ones() {
        let log = "# Audit Log\n# Format: …\n\n2026-02-02T15:30Z | EDIT | MEMORY.md | manual | — | x\nnot a line\n2026-02-02T15:31:00Z | FROB | a | b | auto | c\n";
        let (lines, bad) = parse_log(log);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].approval, Approval::None);
        assert_eq!(bad.iter().map(|b| b.line).collect::<Vec<_>>(), [5, 6]);
    }

    #[test]
    fn filter_by_actor_prefix_and_file() {
        let l = AuditLine::parse("2026-02-02T15:30:05Z | APPEND | memory/episodes/a.md | bot:trigger-remember | auto | x")
            .unwrap()
            .unwrap();
        let f = |actor: Option<&str>, file: Option<&str>| AuditFilter {
            actor: actor.map(Into::into),
            file: file.map(Into::into),
            ..Default::default()
        };
        assert!(f(Some("bot"), None).matches(&l));
        assert!(f(Some("bot:trigger-remember"), None).matches(&l));
        assert!(!f(Some("bo"), None).matches(&l));
        // See: issue 16. The kind is folded, the rest of the name is not.
        assert!(f(Some("BOT"), None).matches(&l));
        assert!(f(Some("Bot:trigger-remember"), None).matches(&l));
        assert!(!f(Some("bot:Trigger-remember"), None).matches(&l));
        assert!(!f(Some("bot:trigger"), None).matches(&l));
        assert!(!f(Some("botany"), None).matches(&l));
        let old = AuditLine { actor: "Bot:trigger-remember".into(), ..l.clone() };
        assert!(f(Some("bot"), None).matches(&old), "a line written before kinds were folded");
        assert!(f(None, Some("memory/episodes")).matches(&l));
        assert!(!f(None, Some("memory/epi")).matches(&l));
    }

    #[test]
    fn actor_names_are_checked() {
        assert!(Actor::parse("subagent:researcher-1").is_ok());
        assert!(Actor::parse("evil | actor").is_err());
        assert!(Actor::parse("").is_err());
        for nameless in ["subagent:", "user:", ":x", "bot:", "bot:commit-from:"] {
            assert!(Actor::parse(nameless).is_err(), "{nameless}");
        }
        // A sub-agent named as an actor of another kind would be shown as that actor.
        for (text, kind) in [
            ("subagent:user:alice", "user"),
            ("SUBAGENT:User:alice", "user"),
            ("subagent:bot:trigger-remember", "bot"),
            ("subagent:agent:manual", "agent"),
            ("subagent:system:init", "system"),
            ("subagent:subagent:x", "subagent"),
        ] {
            match Actor::parse(text) {
                Err(InputError::SubagentName { kind: k, .. }) => assert_eq!(k, kind, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(Actor::parse("subagent:team:x").is_ok());
        assert!(Actor::parse("bot:commit-from:user").is_ok());
    }

    // See: issue 16
    #[test]
    fn issue_16_actor_kinds_are_case_insensitive() {
        for (text, name, subagent, person) in [
            ("SUBAGENT:x", "subagent:x", true, false),
            ("Subagent:Researcher", "subagent:Researcher", true, false),
            ("subagent:x", "subagent:x", true, false),
            ("USER:Alice", "user:Alice", false, true),
            ("Manual", "manual", false, true),
            ("Bot:trigger-remember", "bot:trigger-remember", false, false),
            ("agent:manual", "agent:manual", false, false),
            ("Test-Agent", "Test-Agent", false, false),
        ] {
            let a = Actor::parse(text).unwrap();
            assert_eq!(
                (a.as_str(), a.is_subagent(), a.is_person()),
                (name, subagent, person),
                "actor: {text}"
            );
        }
    }
}
