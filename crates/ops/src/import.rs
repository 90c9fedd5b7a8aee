//! `cogmem import`: a conversation transcript becomes episode entries, one per message, on the
//! message's date, in order, with the speaker in the text and the message id as the entry's
//! source. One commit per import. Importing the same file again adds nothing: a message whose
//! source is already in the workspace is skipped.
//!
//! `--format jsonl` reads cogmem's own JSON Lines (a message's entities, if any, become wiki
//! links on an `<!-- entities: … -->` line); `claude-code` and `codex` read those hosts' own
//! transcript files (see `import/transcript.rs`), user and assistant text only, tagged
//! [`TRANSCRIPT_TAG`] so that reflection input leaves them out.

mod transcript;

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::Timestamp;
use crate::error::InputError;
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::decay_file::NewUnit;
use cogmem_store::store::entity::EntityId;
use cogmem_store::store::episode::{self, EntryType, NewEntry};
use cogmem_store::store::units;
use cogmem_store::store::{Confidence, Store};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::date::{self, When};

/// The tag of every entry imported from an agent host's transcript: the raw conversation,
/// which reflection input leaves out (issue 17).
pub const TRANSCRIPT_TAG: &str = "transcript";

/// What `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// cogmem's JSON Lines: `timestamp`, `speaker`, `text`, optional `id`, `type`, `entities`.
    #[default]
    Jsonl,
    /// A Claude Code session transcript (`~/.claude/projects/…/SESSION.jsonl`).
    ClaudeCode,
    /// A Codex CLI rollout (`~/.codex/sessions/…/rollout-….jsonl`).
    Codex,
}

impl Format {
    /// Returns the format's name, as `--format` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }

    /// Tells whether this is an agent host's transcript (tagged [`TRANSCRIPT_TAG`]).
    pub fn is_host(self) -> bool {
        self != Self::Jsonl
    }
}

/// Options for [`import`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// The input's format.
    pub format: Format,
    /// Fail on the first bad line instead of skipping it.
    pub strict: bool,
    /// Import even what looks like a credential.
    pub allow_secret: bool,
    /// For a host's transcript: leave out (and report as skipped) a message that looks like a
    /// credential instead of refusing the whole import, as a hook does, which must never stop
    /// its host.
    pub skip_secrets: bool,
}

/// A line that could not be imported.
#[derive(Debug, Clone, Serialize)]
pub struct BadLine {
    /// 1-based line in the input.
    pub line: usize,
    /// What is wrong.
    pub error: String,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    /// The commit, `None` when nothing was new.
    pub commit: Option<String>,
    /// Messages written.
    pub imported: usize,
    /// Messages already in the workspace.
    pub duplicates: usize,
    /// Days written to.
    pub days: Vec<String>,
    /// Lines skipped (without `strict`).
    pub skipped: Vec<BadLine>,
}

/// One parsed message.
struct Message {
    at: Timestamp,
    has_time: bool,
    speaker: String,
    text: String,
    source: String,
    kind: EntryType,
    entities: Vec<String>,
}

impl From<transcript::HostMessage> for Message {
    fn from(m: transcript::HostMessage) -> Self {
        Self {
            at: m.at,
            has_time: true,
            speaker: m.speaker.to_owned(),
            text: m.text,
            source: m.id,
            kind: EntryType::Event,
            entities: Vec::new(),
        }
    }
}

/// A string field, trimmed, when it is not blank.
fn trimmed<'a>(obj: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty())
}

fn parse_line(v: &Value, name: &str, n: usize, now: &Timestamp) -> Result<Message, String> {
    let obj = v.as_object().ok_or("expected a JSON object")?;
    let text = trimmed(obj, "text").ok_or("missing `text`")?;
    let speaker = obj
        .get("speaker")
        .or_else(|| obj.get("role"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or("missing `speaker` (or `role`)")?;
    let ts = obj.get("timestamp").and_then(Value::as_str).ok_or("missing `timestamp`")?;
    // A transcript's times are absolute: "yesterday" in it meant the day before it was
    // written, not the day before the import, so only RFC 3339 and dates are read.
    let when =
        date::parse_rfc3339(ts).map(When::At).or_else(|| date::parse_date(ts).map(When::Day));
    let (at, has_time) = match when {
        Some(When::At(t)) => (t, true),
        Some(day @ (When::Day(_) | When::Days(..))) => (day.start(*now.offset()), false),
        None => return Err(format!("cannot read {ts:?} as an RFC 3339 time or a date")),
    };
    let source = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("{name}:{n}"),
    };
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some(t) => EntryType::parse(t).map_err(|e| e.to_string())?,
        None => EntryType::Event,
    };
    let entities = match obj.get("entities") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut ids: Vec<String> = Vec::new();
            for item in items {
                let raw = item.as_str().ok_or("`entities` must hold strings (TYPE--SLUG)")?;
                let id = EntityId::parse(raw).map_err(|e| format!("`entities`: {e}"))?;
                if !ids.iter().any(|x| x == id.as_str()) {
                    ids.push(id.as_str().to_owned());
                }
            }
            ids
        }
        Some(_) => return Err("`entities` must be an array of TYPE--SLUG strings".into()),
    };
    Ok(Message {
        at,
        has_time,
        speaker: speaker.to_owned(),
        text: text.to_owned(),
        source,
        kind,
        entities,
    })
}

/// Checks one JSONL line as `import` reads it (for tests and tools): `Ok` for a usable message,
/// else the problem as text. `n` is the 1-based line number, `name` the input's name.
pub fn check_line(line: &str, name: &str, n: usize, now: &Timestamp) -> Result<(), String> {
    let v = serde_json::from_str::<Value>(line).map_err(|e| format!("not valid JSON: {e}"))?;
    parse_line(&v, name, n, now).map(|_| ())
}

/// Imports a JSONL transcript. `name` identifies the input (file name) in source references of
/// messages without an `id`.
///
/// With `strict`, any bad line fails the import and nothing is written; otherwise bad lines are
/// reported and skipped. A line that looks like it holds a credential refuses the whole import
/// (naming the line) unless `allow_secret`.
pub fn import_jsonl(
    ws: &Workspace,
    input: &str,
    name: &str,
    strict: bool,
    allow_secret: bool,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<ImportReport> {
    let opts = ImportOptions { strict, allow_secret, ..ImportOptions::default() };
    import(ws, input, name, &opts, actor, clock)
}

/// Imports a transcript in `opts.format`. `name` identifies the input (its file name): in
/// source references of JSONL messages without an `id`, and as a Codex rollout's session when
/// it has no `session_meta` line.
///
/// With `strict`, any bad line fails the import and nothing is written; otherwise bad lines are
/// reported and skipped. A message that looks like it holds a credential refuses the whole
/// import (naming the line) unless `allow_secret`; a host transcript's is skipped instead with
/// `skip_secrets`. Of a host's transcript only the user's and the assistant's text is read:
/// tool calls and results, which may hold anything, are neither imported nor scanned.
pub fn import(
    ws: &Workspace,
    input: &str,
    name: &str,
    opts: &ImportOptions,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<ImportReport> {
    if !opts.format.is_host() {
        cogmem_store::secrets::check_import(input, opts.allow_secret)?;
    }
    crate::adopt::settle(ws, clock);
    let now = clock.now();
    let mut messages = Vec::new();
    let mut skipped = Vec::new();
    let mut session = name.to_owned();
    let read = ws.progress(input.lines().count() as u64, "lines read");
    for (i, line) in input.lines().enumerate() {
        read.inc();
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let parsed = serde_json::from_str::<Value>(line)
            .map_err(|e| {
                format!(
                    "not valid JSON: {}",
                    e.to_string()
                        .rsplit_once(" at line ")
                        .map_or(e.to_string(), |(m, _)| m.to_owned())
                )
            })
            .and_then(|v| match opts.format {
                Format::Jsonl => parse_line(&v, name, n, &now).map(Some),
                Format::ClaudeCode => transcript::claude_code(&v).map(|m| m.map(Message::from)),
                Format::Codex => {
                    transcript::codex(&v, n, &mut session).map(|m| m.map(Message::from))
                }
            });
        match parsed {
            Ok(None) => {}
            Ok(Some(m)) => {
                if opts.format.is_host()
                    && opts.skip_secrets
                    && !opts.allow_secret
                    && let Some(f) = cogmem_store::secrets::scan(&m.text).into_iter().next()
                {
                    skipped.push(BadLine {
                        line: n,
                        error: format!(
                            "looks like a credential ({}); left out (`cogmem import --allow-secret` imports it)",
                            f.rule
                        ),
                    });
                    continue;
                }
                // The decoded fields as well: a JSON escape (`\u0041KIA…`, `\n` inside a token)
                // hides a credential from the scan of the raw line. See: issue 16
                cogmem_store::secrets::check_fields(
                    [
                        (format!("the id on line {n} of the import"), m.source.as_str()),
                        (format!("the speaker on line {n} of the import"), &m.speaker),
                        (format!("the text on line {n} of the import"), &m.text),
                        (format!("the entities on line {n} of the import"), &m.entities.join(",")),
                    ],
                    opts.allow_secret,
                )?;
                messages.push(m);
            }
            Err(error) if opts.strict => {
                return Err(InputError::ImportLine { line: n, why: error }.into());
            }
            Err(error) => skipped.push(BadLine { line: n, error }),
        }
    }
    drop(read);
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let known: HashSet<String> =
        units::list(ws).units.into_iter().filter_map(|u| u.source).collect();
    let mut by_day: BTreeMap<String, Vec<Message>> = BTreeMap::new();
    let mut duplicates = 0;
    let mut seen = HashSet::new();
    for m in messages {
        if known.contains(&m.source) || !seen.insert(m.source.clone()) {
            duplicates += 1;
            continue;
        }
        by_day.entry(m.at.format("%Y-%m-%d").to_string()).or_default().push(m);
    }
    let mut report =
        ImportReport { commit: None, imported: 0, duplicates, days: Vec::new(), skipped };
    if by_day.is_empty() {
        return Ok(report);
    }
    let mut change = Change::new(actor, format!("cogmem import {name}"));
    let mut new_ids = Vec::new();
    let tags = if opts.format.is_host() {
        vec![TRANSCRIPT_TAG.to_owned(), opts.format.as_str().to_owned()]
    } else {
        vec!["import".to_owned()]
    };
    let written = ws.progress(by_day.len() as u64, "days written");
    for (date, msgs) in &by_day {
        written.inc();
        let rel = layout::episode_file(date);
        let existing = ws.read_text_if_exists(&rel)?;
        // The day's file is read once and each message appended to it: linear in the messages
        // of the day (issue 20).
        let mut day = episode::DayImport::new(existing.as_deref(), date)?;
        for m in msgs {
            let time =
                if m.has_time { m.at.format("%H:%M").to_string() } else { "00:00".to_owned() };
            let text = episode::said(&m.speaker, &m.text);
            let entry = NewEntry {
                date,
                time: &time,
                kind: m.kind,
                confidence: Confidence::High,
                tags: &tags,
                text: &text,
            };
            new_ids.push(day.append(&entry, &m.source, &m.entities));
        }
        let action = if existing.is_some() { Action::Append } else { Action::Create };
        change.write(
            &rel,
            day.into_content().into_bytes(),
            action,
            format!("imported {} from {name}", count(msgs.len(), "message")),
        );
        report.imported += msgs.len();
        report.days.push(date.clone());
    }
    let mut decay = cogmem_store::access::load_decay(ws)?;
    let p = &ws.settings().decay;
    for id in &new_ids {
        let unit = NewUnit {
            store: Store::Episodic,
            base: p.base_auto,
            created: now.with_timezone(&chrono::Utc),
            pinned: false,
        };
        decay.insert_new(id, unit, p);
    }
    let summary = format!("decay entries for {} imported", count(new_ids.len(), "message"));
    change.write_decay(ws, &mut decay, Action::Edit, &summary);
    let summary = format!(
        "imported {} from {name} into {} ({} skipped)",
        count(report.imported, "message"),
        count(report.days.len(), "day"),
        count(report.duplicates, "duplicate")
    );
    let change = change.with_subject(Action::Append, summary);
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    report.commit = Some(applied.commit);
    Ok(report)
}

/// `1 message`, `2 messages`: a count with its noun.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_times_are_absolute() {
        let now = cogmem_text::date::parse_rfc3339("2026-12-01T09:00:00Z").expect("a time");
        let line = |ts: &str| format!(r#"{{"timestamp":"{ts}","speaker":"Ann","text":"hi"}}"#);
        for ok in ["2026-11-30T08:15:00Z", "2026-11-30T08:15:00+09:00", "2026-11-30"] {
            assert_eq!(check_line(&line(ok), "chat", 1, &now), Ok(()), "input: {ok:?}");
        }
        for bad in ["yesterday", "7d", "08:15", "last week"] {
            assert!(check_line(&line(bad), "chat", 1, &now).is_err(), "input: {bad:?}");
        }
    }
}
