//! `cogmem import`: a conversation transcript becomes episode entries, one per message, on the
//! message's date, in order, with the speaker in the text and the message id as the entry's
//! source. One commit per import. Importing the same file again adds nothing: a message whose
//! source is already in the workspace is skipped.
//!
//! `--format jsonl` reads cogmem's own JSON Lines (a message's entities, if any, become wiki
//! links on an `<!-- entities: … -->` line); `claude-code` and `codex` read those hosts' own
//! transcript files (see `import/transcript.rs`), user and assistant text only, tagged
//! [`TRANSCRIPT_TAG`] so that reflection input leaves them out.

mod days;
pub(crate) mod entities;
mod known;
mod lines;
mod transcript;

use std::io::BufRead;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::Timestamp;
use crate::error::InputError;
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::decay_file::{DecayFile, NewUnit};
use cogmem_store::store::entity::EntityId;
use cogmem_store::store::episode::{self, EntryType, NewEntry};
use cogmem_store::store::{Confidence, Store};
use cogmem_store::timing;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::date::{self, When};
use days::Days;
use known::Known;
use lines::{Line, Lines};

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
    let ts = match obj.get("timestamp") {
        None | Some(Value::Null) => return Err("missing `timestamp`".into()),
        Some(Value::String(ts)) => ts.as_str(),
        // Seconds or milliseconds since 1970 cannot be told apart by the number alone, so a
        // number is refused rather than read as a guess (docs/decisions.md).
        Some(other) => {
            return Err(format!(
                "`timestamp` must be a string: an RFC 3339 time such as \"2026-12-01T09:30:00Z\", \
                 or a date; {other} is not read as a time"
            ));
        }
    };
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

/// The source of a JSONL line's message when its `id` alone names it (a non-empty string, or a
/// number), read without building the rest of the line: what a re-import checks first. `None`
/// for anything else (no id, another type, not JSON), which the full parse then handles.
fn known_id(line: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow, default)]
        id: Option<RawId<'a>>,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum RawId<'a> {
        Text(#[serde(borrow)] std::borrow::Cow<'a, str>),
        Number(serde_json::Number),
        Other(serde::de::IgnoredAny),
    }
    match serde_json::from_str::<IdOnly<'_>>(line).ok()?.id? {
        RawId::Text(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        RawId::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Checks one JSONL line as `import` reads it (for tests and tools): `Ok` for a usable message,
/// else the problem as text. `n` is the 1-based line number, `name` the input's name.
pub fn check_line(line: &str, name: &str, n: usize, now: &Timestamp) -> Result<(), String> {
    let line = cogmem_text::json::lone_surrogates_replaced(line);
    let v = serde_json::from_str::<Value>(&line).map_err(|e| format!("not valid JSON: {e}"))?;
    parse_line(&v, name, n, now).map(|_| ())
}

/// The input of an import: a stream, read line by line, and its names.
pub struct ImportInput<'a> {
    /// The transcript.
    pub reader: &'a mut dyn BufRead,
    /// Its name in the sources of JSONL messages without an `id`, and a Codex rollout's
    /// session when it has no `session_meta` line (the file's stem, or `stdin`).
    pub name: &'a str,
    /// How errors name it: its path, or `<stdin>`.
    pub origin: &'a Path,
}

/// Imports a JSONL transcript held in memory. `name` identifies the input (file name) in
/// source references of messages without an `id`.
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
    let mut reader = input.as_bytes();
    let input = ImportInput { reader: &mut reader, name, origin: Path::new(name) };
    import(ws, input, &opts, actor, clock)
}

/// Imports a transcript in `opts.format`, streaming it: one line in memory at a time, the
/// entries built for each day staged under `.cogmem/import/` whenever they pass
/// `limits.import_buffer_bytes`, and each day's file written once, by the one commit of the
/// import (issue 20).
///
/// A message whose source is already in the workspace, or earlier in the input, is counted as
/// a duplicate and nothing more is done with it: it is not scanned for secrets again, so
/// importing the same file twice costs little and writes nothing. With `strict`, any bad line
/// fails the import and nothing is written; otherwise bad lines are reported and skipped. A
/// new message (or a bad JSONL line) that looks like it holds a credential refuses the whole
/// import (naming the line) unless `allow_secret`; a host transcript's is skipped instead with
/// `skip_secrets`. Of a host's transcript only the user's and the assistant's text is read:
/// tool calls and results, which may hold anything, are neither imported nor scanned. Input
/// over `limits.import_bytes`, or not UTF-8, fails the import naming it; a line longer than
/// `limits.file_bytes` is a bad line.
pub fn import(
    ws: &Workspace,
    input: ImportInput<'_>,
    opts: &ImportOptions,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<ImportReport> {
    crate::adopt::settle(ws, clock);
    let now = clock.now();
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    timing::mark("import: locked");
    let mut known = Known::of_workspace(ws);
    timing::mark("import: sources of the workspace read");
    let mut days = Days::new(ws)?;
    let name = input.name;
    let mut names = None;
    let read = read_messages(ws, input, opts, &now, &mut known, &mut days, &mut names);
    timing::mark("import: input read");
    let (mut report, new_ids) = match read {
        Ok(r) if !days.is_empty() => r,
        other => {
            days::clean(ws);
            return other.map(|(report, _)| report);
        }
    };
    let committed = (|| -> crate::Result<_> {
        let mut change = Change::new(actor, format!("cogmem import {name}"));
        for (date, messages) in days.finish(&mut change, name)? {
            report.imported += messages;
            report.days.push(date);
        }
        timing::mark("import: days staged");
        let entity_keys = match &names {
            Some(names) => create_entities(ws, &mut change, names.new_entities(), &now)?,
            None => Vec::new(),
        };
        // One shard of decay entries in memory at a time, each staged as it is rendered.
        let p = &ws.settings().decay;
        let unit = NewUnit {
            store: Store::Episodic,
            base: p.base_auto,
            created: now.with_timezone(&chrono::Utc),
            pinned: false,
        };
        let summary = format!("decay entries for {} imported", count(new_ids.len(), "message"));
        // The entities it created are units of the semantic store, found as automatically.
        let entity_unit = NewUnit { store: Store::Semantic, ..unit };
        let groups = [(new_ids.as_slice(), unit), (entity_keys.as_slice(), entity_unit)];
        DecayFile::insert_groups_by_shard(ws, &groups, p, |rel, text| {
            let Some(text) = text else {
                // A shard of a layout the entries have left.
                change.delete(&rel, Action::Delete, summary.clone());
                return Ok(());
            };
            let action = if ws.abs(&rel).exists() { Action::Edit } else { Action::Create };
            let staged = days::stage(ws, &rel, &text)?;
            change.write_staged(&rel, staged, action, summary.clone());
            Ok(())
        })?;
        timing::mark("import: decay entries");
        let summary = format!(
            "imported {} from {name} into {} ({} skipped)",
            count(report.imported, "message"),
            count(report.days.len(), "day"),
            count(report.duplicates, "duplicate")
        );
        let change = change.with_subject(Action::Append, summary);
        Ok(change.apply(ws, &repo, &lock, &FixedClock(now))?)
    })();
    days::clean(ws);
    let applied = committed?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    report.commit = Some(applied.commit);
    Ok(report)
}

/// Reads every line of the input, appending each new message to its day; returns the report
/// so far (skipped lines and duplicates) and the ids of the new entries.
fn read_messages(
    ws: &Workspace,
    input: ImportInput<'_>,
    opts: &ImportOptions,
    now: &Timestamp,
    known: &mut Known,
    days: &mut Days<'_>,
    names: &mut Option<entities::Extractor>,
) -> crate::Result<(ImportReport, Vec<String>)> {
    let limits = &ws.settings().limits;
    let name = input.name;
    // Named in every report about a line: bad lines, `--strict`, credentials.
    let file = input.origin.display().to_string();
    let mut lines =
        Lines::new(input.reader, input.origin.to_owned(), limits.import_bytes, limits.file_bytes);
    let mut report = ImportReport {
        commit: None,
        imported: 0,
        duplicates: 0,
        days: Vec::new(),
        skipped: Vec::new(),
    };
    let mut new_ids = Vec::new();
    let tags = if opts.format.is_host() {
        vec![TRANSCRIPT_TAG.to_owned(), opts.format.as_str().to_owned()]
    } else {
        vec!["import".to_owned()]
    };
    let mut session = name.to_owned();
    // Counted in bytes of the input file, so the bar knows how much is left; from stdin, in
    // bytes without a total.
    let size = std::fs::metadata(input.origin).ok().filter(|m| m.is_file()).map(|m| m.len());
    let read = ws.progress(size, "bytes read");
    let ids_first = opts.format == Format::Jsonl && !known.is_empty();
    while let Some((n, line)) = lines.next_line()? {
        let line = match line {
            Line::Text(t) => {
                read.add(t.len() as u64 + 1);
                t
            }
            Line::TooLong => {
                let why = format!(
                    "longer than {} bytes (`limits.file_bytes` in cogmem.toml)",
                    limits.file_bytes
                );
                if opts.strict {
                    return Err(InputError::ImportLine { file: file.clone(), line: n, why }.into());
                }
                report.skipped.push(BadLine { line: n, error: why });
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        // A line whose message is already in the workspace (the same file imported again):
        // only its id is read, not the whole message (issue 20: re-import). Into a workspace
        // with no imported message yet, every line is read whole once, as before.
        if ids_first
            && let Some(source) = known_id(line)
            && known.contains(&source)
        {
            report.duplicates += 1;
            continue;
        }
        let parsed =
            serde_json::from_str::<Value>(&cogmem_text::json::lone_surrogates_replaced(line))
                .map_err(|e| {
                    format!(
                        "not valid JSON: {}",
                        e.to_string()
                            .rsplit_once(" at line ")
                            .map_or(e.to_string(), |(m, _)| m.to_owned())
                    )
                })
                .and_then(|v| match opts.format {
                    Format::Jsonl => parse_line(&v, name, n, now).map(Some),
                    Format::ClaudeCode => transcript::claude_code(&v).map(|m| m.map(Message::from)),
                    Format::Codex => {
                        transcript::codex(&v, n, &mut session).map(|m| m.map(Message::from))
                    }
                });
        let mut m = match parsed {
            Ok(None) => continue,
            Ok(Some(m)) => m,
            Err(error) => {
                // A bad line is still scanned: the whole input was, before it was streamed.
                if !opts.format.is_host() {
                    cogmem_store::secrets::check_import_line(line, &file, n, opts.allow_secret)?;
                }
                if opts.strict {
                    return Err(
                        InputError::ImportLine { file: file.clone(), line: n, why: error }.into()
                    );
                }
                report.skipped.push(BadLine { line: n, error });
                continue;
            }
        };
        // Already imported (or earlier in this input): nothing to write, nothing to scan.
        if known.contains(&m.source) {
            report.duplicates += 1;
            continue;
        }
        if !opts.format.is_host() {
            cogmem_store::secrets::check_import_line(line, &file, n, opts.allow_secret)?;
        }
        if opts.format.is_host()
            && opts.skip_secrets
            && !opts.allow_secret
            && let Some(f) = cogmem_store::secrets::scan(&m.text).into_iter().next()
        {
            report.skipped.push(BadLine {
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
                (format!("the id on line {n} of {file}"), m.source.as_str()),
                (format!("the speaker on line {n} of {file}"), &m.speaker),
                (format!("the text on line {n} of {file}"), &m.text),
                (format!("the entities on line {n} of {file}"), &m.entities.join(",")),
            ],
            opts.allow_secret,
        )?;
        known.insert(&m.source);
        if ws.settings().capture.extract_entities {
            let ex = match names {
                Some(ex) => ex,
                None => names.insert(entities::Extractor::of_workspace(ws)?),
            };
            let speaker = (!opts.format.is_host()).then_some(m.speaker.as_str());
            for id in ex.links(speaker, &m.text) {
                if !m.entities.contains(&id) {
                    m.entities.push(id);
                }
            }
        }
        let date = m.at.format("%Y-%m-%d").to_string();
        let time = if m.has_time { m.at.format("%H:%M").to_string() } else { "00:00".to_owned() };
        let text = episode::said(&m.speaker, &m.text);
        let entry = NewEntry {
            date: &date,
            time: &time,
            kind: m.kind,
            confidence: Confidence::High,
            tags: &tags,
            text: &text,
        };
        new_ids.push(days.append(&entry, &m.source, &m.entities)?);
    }
    timing::mark(&format!("import: {} bytes read", lines.bytes_read()));
    Ok((report, new_ids))
}

/// Creates the file of each entity the import linked that has none (issue 22), dated `now`,
/// and regenerates `memory/graph/index.md` into the change when it did; returns the decay
/// keys of the entities created.
fn create_entities<'a>(
    ws: &Workspace,
    change: &mut Change,
    ids: impl Iterator<Item = &'a str>,
    now: &Timestamp,
) -> crate::Result<Vec<String>> {
    let date = now.format("%Y-%m-%d").to_string();
    let mut created = Vec::new();
    for id in ids {
        let Ok(id) = EntityId::parse(id) else { continue };
        let rel = cogmem_store::workspace::layout::entity_file(id.as_str());
        if ws.abs(&rel).exists() {
            continue;
        }
        let content = cogmem_store::store::entity::new_file(&id, &date)?;
        change.write(&rel, content.into_bytes(), Action::Create, format!("new entity {id}"));
        created.push(format!("entity:{id}"));
    }
    if !created.is_empty() {
        crate::graph::regenerate_index_into(ws, change)?;
    }
    timing::mark("import: entities created");
    Ok(created)
}

/// `1 message`, `2 messages`: a count with its noun.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_lines_id_is_read_alone_when_it_names_the_message() {
        let cases: [(&str, Option<&str>); 8] = [
            (
                r#"{"id":"m1","speaker":"Alice","timestamp":"2026-06-01T00:00:00Z","text":"hi"}"#,
                Some("m1"),
            ),
            (r#"{"text":"hi","id":" m2 "}"#, Some("m2")),
            (r#"{"id":"m\u0033"}"#, Some("m3")),
            (r#"{"id":42,"text":"hi"}"#, Some("42")),
            (r#"{"id":"  ","text":"hi"}"#, None),
            (r#"{"id":["m4"]}"#, None),
            (r#"{"text":"no id"}"#, None),
            ("not json", None),
        ];
        for (line, want) in cases {
            assert_eq!(super::known_id(line).as_deref(), want, "{line}");
        }
    }

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
