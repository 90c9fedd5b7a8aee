//! Agent hosts' own configuration files, as `cogmem setup` edits them: the JSON files of Claude
//! Code, Cursor, Codex (`hooks.json`) and OpenClaw, and Codex's `config.toml`. This module owns
//! parsing and rendering them; it never writes to disk (`cogmem_ops::setup` does, atomically).
//!
//! Invariant: an edit touches only the keys and entries cogmem owns (the server named
//! [`SERVER_NAME`], hook entries whose command starts with [`hook_prefix`] (of those, only
//! their command, `type` and a missing `timeout`: the user's own fields on them stay), and the
//! lines between cogmem's markers in TOML); every other key, entry and comment is kept. Adding what is
//! already there changes nothing, and removing gives back the file as it was before adding,
//! up to JSON formatting (see [`render_json`]).
//!
//! Formats, as documented by each host:
//! - Claude Code `mcpServers` (`~/.claude.json`, `.mcp.json`): <https://code.claude.com/docs/en/mcp>
//! - Claude Code and Codex hooks (`{"hooks": {EVENT: [{"matcher", "hooks": [{"type":
//!   "command", "command"}]}]}}`): <https://code.claude.com/docs/en/hooks> and
//!   <https://developers.openai.com/codex/hooks>
//! - Codex `[mcp_servers.NAME]` with `command` and `args`, `[features] codex_hooks = true`:
//!   <https://github.com/openai/codex/blob/main/docs/config.md> and
//!   <https://developers.openai.com/codex/hooks>
//! - Cursor `mcp.json` (`mcpServers`) and `hooks.json` (`{"version": 1, "hooks": {event:
//!   [{"command"}]}}`): <https://cursor.com/docs/mcp> and <https://cursor.com/docs/agent/hooks>
//! - OpenClaw `mcp.servers.NAME` with `command` and `args` in `~/.openclaw/openclaw.json`
//!   (JSON5): <https://docs.openclaw.ai/cli/mcp>

use std::path::Path;

use serde_json::{Map, Value};

use crate::store::StoreError;
use crate::store::markdown::line_of;

/// The name cogmem registers its MCP server under, in every host.
pub const SERVER_NAME: &str = "cogmem";

/// The line that opens cogmem's part of a TOML file.
pub const TOML_BEGIN: &str =
    "# cogmem setup: begin (written by `cogmem setup`; `cogmem setup --undo` removes it)";
/// The line that closes cogmem's part of a TOML file.
pub const TOML_END: &str = "# cogmem setup: end";
/// The comment that marks a single line cogmem added inside someone else's TOML table.
pub const TOML_LINE_MARK: &str = "# added by cogmem setup";

/// Returns the start every hook command cogmem registers for `host` has (`cogmem hook HOST`):
/// entries starting with it are cogmem's, replaced by setup and removed by undo.
pub fn hook_prefix(host: &str) -> String {
    format!("cogmem hook {host}")
}

fn is_ours(command: &str, prefix: &str) -> bool {
    command == prefix || command.strip_prefix(prefix).is_some_and(|rest| rest.starts_with(' '))
}

fn bad(path: &Path, line: usize, what: impl Into<String>, hint: impl Into<String>) -> StoreError {
    StoreError::HostConfig { path: path.to_owned(), line, what: what.into(), hint: hint.into() }
}

/// The 1-based line where `"key"` first appears in `text`, or 1.
fn line_of_key(text: &str, key: &str) -> usize {
    text.find(&format!("\"{key}\"")).map_or(1, |at| line_of(text, at))
}

/// Parses a host's JSON file; empty text is an empty object.
///
/// Fails with the file and line when the text is not JSON (`json5_hint` says what to do when
/// the host allows JSON5, whose comments setup would lose) or its top level is not an object.
pub fn parse_json(path: &Path, text: &str, json5_hint: Option<&str>) -> Result<Value, StoreError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let what = format!("not valid JSON: {e}");
        let hint = json5_hint.map_or_else(
            || "fix the file (or move it aside), then run `cogmem setup` again".to_owned(),
            str::to_owned,
        );
        bad(path, e.line().max(1), what, hint)
    })?;
    if !value.is_object() {
        return Err(bad(
            path,
            1,
            "the top level is not a JSON object",
            "fix the file (or move it aside), then run `cogmem setup` again",
        ));
    }
    Ok(value)
}

/// Renders JSON as setup writes it: two-space indentation, keys in their order, a final newline.
pub fn render_json(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    text.push('\n');
    text
}

/// Returns the object at `keys` below `doc`, creating empty objects on the way.
fn object_at<'a>(
    doc: &'a mut Value,
    keys: &[&str],
    path: &Path,
    text: &str,
) -> Result<&'a mut Map<String, Value>, StoreError> {
    let mut at = doc;
    let mut trail = String::new();
    for key in keys {
        if !trail.is_empty() {
            trail.push('.');
        }
        trail.push_str(key);
        let map = at.as_object_mut().expect("checked to be an object on the way down");
        at = map.entry((*key).to_owned()).or_insert_with(|| Value::Object(Map::new()));
        if !at.is_object() {
            return Err(bad(
                path,
                line_of_key(text, key),
                format!("`{trail}` is not a JSON object"),
                format!("make `{trail}` an object (`{{}}`), then run `cogmem setup` again"),
            ));
        }
    }
    Ok(at.as_object_mut().expect("checked above"))
}

/// Sets `keys… .name` to `value` (an MCP server entry, an environment variable); `true` when
/// the document changed.
///
/// `text` is the file's text, for the line in errors.
pub fn set_entry(
    doc: &mut Value,
    keys: &[&str],
    name: &str,
    value: Value,
    path: &Path,
    text: &str,
) -> Result<bool, StoreError> {
    let map = object_at(doc, keys, path, text)?;
    if map.get(name) == Some(&value) {
        return Ok(false);
    }
    map.insert(name.to_owned(), value);
    Ok(true)
}

/// The value at `keys… .name`, when there is one.
pub fn entry<'a>(doc: &'a Value, keys: &[&str], name: &str) -> Option<&'a Value> {
    keys.iter().try_fold(doc, |at, key| at.get(*key))?.get(name)
}

/// Whether `found` is an MCP server entry setup wrote: `want` (what setup writes now) but for
/// the workspace, the last of its `args`. Anything else under cogmem's name is the user's.
pub fn is_setup_server(found: &Value, want: &Value) -> bool {
    let mut found = found.clone();
    let want_ws = want.get("args").and_then(Value::as_array).and_then(|a| a.last());
    let found_ws = found.get_mut("args").and_then(Value::as_array_mut).and_then(|a| a.last_mut());
    match (found_ws, want_ws) {
        (Some(f), Some(w)) if f.is_string() => *f = w.clone(),
        _ => return false,
    }
    found == *want
}

/// The commands of the hook entries cogmem owns (those starting with `prefix`), every event.
pub fn hook_commands(doc: &Value, shape: HookShape, prefix: &str) -> Vec<String> {
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else { return Vec::new() };
    hooks
        .values()
        .filter_map(Value::as_array)
        .flat_map(|list| commands(list, shape))
        .map(|(_, _, c)| c)
        .filter(|c| is_ours(c, prefix))
        .collect()
}

/// Removes `keys… .name`, and each object on the way that this leaves empty; `true` when the
/// document changed.
pub fn remove_entry(doc: &mut Value, keys: &[&str], name: &str) -> bool {
    fn walk(at: &mut Value, keys: &[&str], name: &str) -> bool {
        let Some(map) = at.as_object_mut() else { return false };
        match keys.split_first() {
            None => map.shift_remove(name).is_some(),
            Some((key, rest)) => {
                let Some(child) = map.get_mut(*key) else { return false };
                let changed = walk(child, rest, name);
                if changed && child.as_object().is_some_and(Map::is_empty) {
                    map.shift_remove(*key);
                }
                changed
            }
        }
    }
    walk(doc, keys, name)
}

/// The shape of a host's hook list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookShape {
    /// Claude Code and Codex: `hooks.EVENT = [{"hooks": [{"type": "command", "command"}]}]`.
    Grouped,
    /// Cursor: `version: 1`, `hooks.event = [{"command"}]`.
    Flat,
}

/// Commands of the hook entries under one event, with (group, entry) positions.
fn commands(list: &[Value], shape: HookShape) -> Vec<(usize, Option<usize>, String)> {
    let mut out = Vec::new();
    for (g, item) in list.iter().enumerate() {
        match shape {
            HookShape::Flat => {
                if let Some(c) = item.get("command").and_then(Value::as_str) {
                    out.push((g, None, c.to_owned()));
                }
            }
            HookShape::Grouped => {
                let hooks = item.get("hooks").and_then(Value::as_array);
                for (h, hook) in hooks.into_iter().flatten().enumerate() {
                    if let Some(c) = hook.get("command").and_then(Value::as_str) {
                        out.push((g, Some(h), c.to_owned()));
                    }
                }
            }
        }
    }
    out
}

/// One hook event setup registers, and the `timeout` (seconds) its entry gets, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// The event, as the host names it (`SessionEnd`).
    pub name: &'static str,
    /// The entry's `timeout` in seconds (Claude Code and Codex read it); `None` leaves the
    /// host's default.
    pub timeout: Option<u64>,
}

/// The hook entry setup writes for `command`, in the host's shape.
fn hook_entry(shape: HookShape, command: &str, timeout: Option<u64>) -> Value {
    match shape {
        HookShape::Flat => serde_json::json!({ "command": command }),
        HookShape::Grouped => {
            let mut hook = serde_json::json!({ "type": "command", "command": command });
            if let Some(seconds) = timeout {
                hook["timeout"] = Value::from(seconds);
            }
            serde_json::json!({ "hooks": [hook] })
        }
    }
}

/// A field the user set on one of cogmem's hook entries (or on the group that holds only it),
/// which [`set_hooks`] kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptField {
    /// The event the entry is registered for.
    pub event: String,
    /// The field, as the file names it (`matcher`, `timeout`).
    pub field: String,
    /// Its value in the file.
    pub value: Value,
    /// The value setup would have written instead, when it writes this field at all (a
    /// `timeout`).
    pub setups: Option<Value>,
}

/// What [`set_hooks`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HooksSet {
    /// Whether the document changed.
    pub changed: bool,
    /// The user's own fields on cogmem's entries, kept, in event order.
    pub kept: Vec<KeptField>,
    /// cogmem's entries left without the `timeout` setup gives their event, (event, setup's
    /// seconds), when none of cogmem's entries in the file has one: the user deleted them all,
    /// or a setup from before timeouts wrote them, and the file cannot tell which.
    pub untimed: Vec<(String, u64)>,
}

/// Registers `command` for each of `events` and keeps every other hook.
///
/// An event that already has cogmem's entry (a command starting with `prefix`) keeps it where
/// it is, and setup sets only what it owns there: the `command` (and Claude Code's and Codex's
/// `"type": "command"`). A new entry gets the event's `timeout`; an entry without one stays
/// without (the user deleted it, or an older setup wrote it: [`HooksSet::untimed`] lists them
/// when the file cannot tell which). Every other field
/// is the user's and is kept, as is a `timeout` that differs from setup's: the group's
/// `matcher` and other keys (Grouped), the entry's `timeout`, `statusMessage`, `matcher`,
/// `loop_limit` and the like; [`HooksSet::kept`] lists them. A second cogmem entry under the
/// same event goes. An event without one gets a new entry at the end. cogmem's entries under an
/// event setup no longer registers go too.
pub fn set_hooks(
    doc: &mut Value,
    shape: HookShape,
    events: &[HookEvent],
    command: &str,
    prefix: &str,
    path: &Path,
    text: &str,
) -> Result<HooksSet, StoreError> {
    let mut out = HooksSet::default();
    if shape == HookShape::Flat {
        let top = doc.as_object_mut().expect("parse_json returns an object");
        if !top.contains_key("version") {
            top.insert("version".to_owned(), Value::from(1));
            out.changed = true;
        }
    }
    let hooks = object_at(doc, &["hooks"], path, text)?;
    // A `timeout` missing from cogmem's entry in a file where another of its entries has one
    // was deleted by the user (setup writes them all at once); in a file where none has one,
    // the user deleted them all or an older setup wrote the entries before it wrote timeouts.
    // Either way the entry stays as it is: a deletion is never undone.
    let timed = hooks.values().filter_map(Value::as_array).any(|list| {
        commands(list, shape).into_iter().any(|(g, h, c)| {
            let entry = match h {
                Some(h) => list[g].get("hooks").and_then(|hooks| hooks.get(h)),
                None => list.get(g),
            };
            is_ours(&c, prefix) && entry.is_some_and(|e| e.get("timeout").is_some())
        })
    });
    for event in events {
        let list = hooks.entry(event.name.to_owned()).or_insert_with(|| Value::Array(Vec::new()));
        let Some(list) = list.as_array_mut() else {
            return Err(bad(
                path,
                line_of_key(text, event.name),
                format!("`hooks.{}` is not a JSON array", event.name),
                format!("make `hooks.{}` a list (`[]`), then run `cogmem setup` again", event.name),
            ));
        };
        let ours: Vec<(usize, Option<usize>)> = commands(list, shape)
            .into_iter()
            .filter(|(_, _, c)| is_ours(c, prefix))
            .map(|(g, h, _)| (g, h))
            .collect();
        let Some((&first, others)) = ours.split_first() else {
            list.push(hook_entry(shape, command, event.timeout));
            out.changed = true;
            continue;
        };
        // Later positions first, so that the first one's indices stay right.
        for &(g, h) in others.iter().rev() {
            remove_at(list, g, h);
            out.changed = true;
        }
        let (g, h) = first;
        let group = &mut list[g];
        if let Some(h) = h {
            let alone = group["hooks"].as_array().is_some_and(|hooks| hooks.len() == 1);
            let fields = group.as_object().into_iter().flatten();
            // The group's own keys are the user's only when the group is cogmem's alone: a
            // `matcher` on the user's group that cogmem's entry joined is not set on cogmem.
            for (field, value) in fields.filter(|(k, _)| alone && k.as_str() != "hooks") {
                out.kept.push(KeptField {
                    event: event.name.to_owned(),
                    field: field.clone(),
                    value: value.clone(),
                    setups: None,
                });
            }
            let entry = &mut group["hooks"][h];
            out.changed |= merge_entry(entry, shape, command, event, &mut out.kept);
            if let (false, Some(seconds)) = (timed, event.timeout)
                && entry.get("timeout").is_none()
            {
                out.untimed.push((event.name.to_owned(), seconds));
            }
        } else {
            out.changed |= merge_entry(group, shape, command, event, &mut out.kept);
            if let (false, Some(seconds)) = (timed, event.timeout)
                && group.get("timeout").is_none()
            {
                out.untimed.push((event.name.to_owned(), seconds));
            }
        }
    }
    let stale =
        remove_ours_from(hooks, shape, prefix, |name| !events.iter().any(|e| e.name == name));
    out.changed |= stale;
    Ok(out)
}

/// Sets what setup owns in one of cogmem's hook entries (`command`, Grouped's `type`) and
/// records the user's other fields in `kept`; `true` when the entry changed.
fn merge_entry(
    entry: &mut Value,
    shape: HookShape,
    command: &str,
    event: &HookEvent,
    kept: &mut Vec<KeptField>,
) -> bool {
    let Some(map) = entry.as_object_mut() else { return false };
    let mut changed = false;
    let mut set = |map: &mut Map<String, Value>, key: &str, value: Value| {
        if map.get(key) != Some(&value) {
            map.insert(key.to_owned(), value);
            changed = true;
        }
    };
    if shape == HookShape::Grouped {
        set(map, "type", Value::from("command"));
    }
    set(map, "command", Value::from(command));
    let setups = event.timeout.map(Value::from);
    let owned = |k: &str| k == "command" || (shape == HookShape::Grouped && k == "type");
    for (field, value) in map.iter().filter(|(k, _)| !owned(k)) {
        let setups = (field == "timeout").then(|| setups.clone()).flatten();
        if setups.as_ref() != Some(value) {
            kept.push(KeptField {
                event: event.name.to_owned(),
                field: field.clone(),
                value: value.clone(),
                setups,
            });
        }
    }
    changed
}

/// Removes the entry at (group, entry) of one event's list, and its group when that leaves it
/// empty (Grouped); Flat's entry is the group.
fn remove_at(list: &mut Vec<Value>, g: usize, h: Option<usize>) {
    let emptied = match h {
        None => true,
        Some(h) => match list[g].get_mut("hooks").and_then(Value::as_array_mut) {
            Some(hooks) => {
                hooks.remove(h);
                hooks.is_empty()
            }
            None => false,
        },
    };
    if emptied {
        list.remove(g);
    }
}

/// Removes cogmem's entries from the events of `hooks` that `which` picks, and the events this
/// leaves empty; `true` when something was removed.
fn remove_ours_from(
    hooks: &mut Map<String, Value>,
    shape: HookShape,
    prefix: &str,
    which: impl Fn(&str) -> bool,
) -> bool {
    let mut changed = false;
    let mut emptied = Vec::new();
    for (event, list) in hooks.iter_mut() {
        if which(event)
            && let Some(list) = list.as_array_mut()
            && remove_ours(list, shape, prefix)
        {
            changed = true;
            if list.is_empty() {
                emptied.push(event.clone());
            }
        }
    }
    for event in emptied {
        hooks.shift_remove(&event);
    }
    changed
}

/// Removes the entries starting with `prefix` from one event's list, and groups left empty.
fn remove_ours(list: &mut Vec<Value>, shape: HookShape, prefix: &str) -> bool {
    let before = list.len();
    let mut changed = false;
    match shape {
        HookShape::Flat => list.retain(|item| {
            !item.get("command").and_then(Value::as_str).is_some_and(|c| is_ours(c, prefix))
        }),
        HookShape::Grouped => {
            for item in list.iter_mut() {
                if let Some(hooks) = item.get_mut("hooks").and_then(Value::as_array_mut) {
                    let n = hooks.len();
                    hooks.retain(|h| {
                        !h.get("command")
                            .and_then(Value::as_str)
                            .is_some_and(|c| is_ours(c, prefix))
                    });
                    if hooks.len() != n {
                        changed = true;
                        if hooks.is_empty() {
                            // Mark the group for removal: it held only cogmem's entries.
                            *item = Value::Null;
                        }
                    }
                }
            }
            list.retain(|item| !item.is_null());
        }
    }
    changed || list.len() != before
}

/// Removes cogmem's hook entries (commands starting with `prefix`) from every event, the
/// events and the `hooks` object this leaves empty, and a `version` key when nothing else is
/// left; `true` when the document changed.
pub fn remove_hooks(doc: &mut Value, shape: HookShape, prefix: &str) -> bool {
    let Some(top) = doc.as_object_mut() else { return false };
    let Some(hooks) = top.get_mut("hooks").and_then(Value::as_object_mut) else { return false };
    let changed = remove_ours_from(hooks, shape, prefix, |_| true);
    if changed && hooks.is_empty() {
        top.shift_remove("hooks");
        if shape == HookShape::Flat && top.len() == 1 && top.get("version") == Some(&Value::from(1))
        {
            top.shift_remove("version");
        }
    }
    changed
}

/// Checks that `text` is valid TOML, with the file and line when it is not.
pub fn check_toml(path: &Path, text: &str) -> Result<toml::Table, StoreError> {
    text.parse::<toml::Table>().map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        bad(
            path,
            line,
            format!("not valid TOML: {}", e.message().trim().replace('\n', " ")),
            "fix the file (or move it aside), then run `cogmem setup` again",
        )
    })
}

/// The value at `keys` in a TOML document, when there is one.
pub fn toml_lookup<'a>(doc: &'a toml::Table, keys: &[&str]) -> Option<&'a toml::Value> {
    let (first, rest) = keys.split_first()?;
    rest.iter().try_fold(doc.get(*first)?, |at, key| at.get(*key))
}

/// Whether the TOML table `table.KEY` exists and holds `name`.
pub fn has_table_key(doc: &toml::Table, key: &str, name: &str) -> bool {
    doc.get(key).and_then(toml::Value::as_table).is_some_and(|t| t.contains_key(name))
}

/// Whether `table.KEY` exists, and the boolean at `table.KEY.name` when there is one.
pub fn table_bool(doc: &toml::Table, key: &str, name: &str) -> (bool, Option<bool>) {
    let table = doc.get(key);
    (table.is_some(), table.and_then(|t| t.get(name)).and_then(toml::Value::as_bool))
}

/// Quotes a string as a TOML basic string.
pub fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Returns `text` without cogmem's marked block and marked lines (see [`TOML_BEGIN`] and
/// [`TOML_LINE_MARK`]), byte for byte otherwise.
///
/// Fails when a begin marker has no end marker, or the other way round.
pub fn remove_toml_block(path: &Path, text: &str) -> Result<String, StoreError> {
    let mut out = String::with_capacity(text.len());
    let mut inside: Option<usize> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim();
        if t.starts_with("# cogmem setup: begin") {
            inside = Some(i + 1);
            // The blank line setup puts before its block goes with it.
            if out.ends_with("\n\n") {
                out.pop();
            } else if out == "\n" {
                out.clear();
            }
            continue;
        }
        if t == TOML_END {
            if inside.is_none() {
                return Err(unpaired(path, i + 1));
            }
            inside = None;
            continue;
        }
        if inside.is_some() || t.ends_with(TOML_LINE_MARK) {
            continue;
        }
        out.push_str(line);
    }
    match inside {
        Some(line) => Err(unpaired(path, line)),
        None => Ok(out),
    }
}

fn unpaired(path: &Path, line: usize) -> StoreError {
    bad(
        path,
        line,
        "cogmem's block lacks its begin or end marker",
        format!(
            "put back the missing `{TOML_BEGIN}` or `{TOML_END}` line (or delete the block's \
             remains), then run `cogmem setup` again"
        ),
    )
}

/// Appends cogmem's block (`body`: TOML lines) at the end of `text`, after a blank line.
pub fn append_toml_block(text: &str, body: &str) -> String {
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(TOML_BEGIN);
    out.push('\n');
    out.push_str(body.trim_end());
    out.push('\n');
    out.push_str(TOML_END);
    out.push('\n');
    out
}

/// Inserts `line` (marked with [`TOML_LINE_MARK`]) as the first key of the existing table
/// `[header]`; `None` when the file has no such header line.
pub fn insert_into_table(text: &str, header: &str, line: &str) -> Option<String> {
    let want = format!("[{header}]");
    let mut out = String::with_capacity(text.len() + line.len() + 32);
    let mut done = false;
    for l in text.split_inclusive('\n') {
        out.push_str(l);
        if !done && l.trim() == want {
            if !l.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("{line} {TOML_LINE_MARK}\n"));
            done = true;
        }
    }
    done.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "/x/settings.json";

    #[test]
    fn hooks_are_added_once_and_removed_exactly() {
        let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}, "model": "x"}"#;
        let mut doc = parse_json(Path::new(P), text, None).unwrap();
        let original = doc.clone();
        let cmd = "cogmem hook claude-code --workspace /w";
        let prefix = hook_prefix("claude-code");
        let events = [
            HookEvent { name: "SessionStart", timeout: None },
            HookEvent { name: "Stop", timeout: Some(60) },
        ];
        assert!(
            set_hooks(&mut doc, HookShape::Grouped, &events, cmd, &prefix, Path::new(P), text)
                .unwrap()
                .changed
        );
        let once = doc.clone();
        assert!(
            !set_hooks(&mut doc, HookShape::Grouped, &events, cmd, &prefix, Path::new(P), text)
                .unwrap()
                .changed
        );
        assert_eq!(doc, once);
        assert_eq!(doc["hooks"]["Stop"].as_array().unwrap().len(), 2);
        // A new workspace replaces the entry instead of adding a second one.
        let moved = "cogmem hook claude-code --workspace /v";
        assert!(
            set_hooks(&mut doc, HookShape::Grouped, &events, moved, &prefix, Path::new(P), text)
                .unwrap()
                .changed
        );
        assert_eq!(doc["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
        assert!(remove_hooks(&mut doc, HookShape::Grouped, &prefix));
        assert_eq!(doc, original);
    }

    #[test]
    fn hooks_keep_the_users_fields_on_cogmems_entries() {
        let prefix = hook_prefix("codex");
        let events = [
            HookEvent { name: "SessionStart", timeout: None },
            HookEvent { name: "SessionEnd", timeout: Some(3) },
        ];
        let text = r#"{"hooks": {
            "SessionStart": [{"matcher": "startup", "hooks": [
                {"type": "command", "command": "cogmem hook codex --workspace /old"}]}],
            "SessionEnd": [{"hooks": [
                {"type": "command", "command": "cogmem hook codex --workspace /old", "timeout": 2,
                 "statusMessage": "saving"}]},
                {"hooks": [{"type": "command", "command": "cogmem hook codex"}]}]}}"#;
        let mut doc = parse_json(Path::new(P), text, None).unwrap();
        let cmd = "cogmem hook codex --workspace /w";
        let set = |doc: &mut Value| {
            set_hooks(doc, HookShape::Grouped, &events, cmd, &prefix, Path::new(P), text).unwrap()
        };
        let first = set(&mut doc);
        assert!(first.changed);
        let kept: Vec<(&str, &str, Value)> = first
            .kept
            .iter()
            .map(|k| (k.event.as_str(), k.field.as_str(), k.value.clone()))
            .collect();
        assert_eq!(
            kept,
            [
                ("SessionStart", "matcher", Value::from("startup")),
                ("SessionEnd", "timeout", Value::from(2)),
                ("SessionEnd", "statusMessage", Value::from("saving")),
            ]
        );
        assert_eq!(first.kept[1].setups, Some(Value::from(3)));
        assert_eq!(
            doc["hooks"]["SessionEnd"],
            serde_json::json!([{"hooks": [{"type": "command", "command": cmd, "timeout": 2,
                "statusMessage": "saving"}]}])
        );
        assert_eq!(doc["hooks"]["SessionStart"][0]["matcher"], "startup");
        let again = set(&mut doc);
        assert!(!again.changed);
        assert_eq!(again.kept, first.kept);
        assert!(remove_hooks(&mut doc, HookShape::Grouped, &prefix));
        assert_eq!(doc, serde_json::json!({}));
    }

    #[test]
    fn flat_hooks_drop_the_version_they_added() {
        let mut doc = parse_json(Path::new(P), "", None).unwrap();
        let prefix = hook_prefix("cursor");
        set_hooks(
            &mut doc,
            HookShape::Flat,
            &[HookEvent { name: "sessionStart", timeout: None }],
            "cogmem hook cursor",
            &prefix,
            Path::new(P),
            "",
        )
        .unwrap();
        assert_eq!(doc["version"], 1);
        assert!(remove_hooks(&mut doc, HookShape::Flat, &prefix));
        assert_eq!(doc, serde_json::json!({}));
    }

    #[test]
    fn servers_keep_their_neighbours() {
        let text = r#"{"mcpServers": {"other": {"command": "x"}}}"#;
        let mut doc = parse_json(Path::new(P), text, None).unwrap();
        let entry = serde_json::json!({"command": "cogmem"});
        assert!(
            set_entry(&mut doc, &["mcpServers"], SERVER_NAME, entry.clone(), Path::new(P), text)
                .unwrap()
        );
        assert!(
            !set_entry(&mut doc, &["mcpServers"], SERVER_NAME, entry, Path::new(P), text).unwrap()
        );
        assert!(remove_entry(&mut doc, &["mcpServers"], SERVER_NAME));
        assert_eq!(doc, serde_json::json!({"mcpServers": {"other": {"command": "x"}}}));
        let mut alone = serde_json::json!({});
        set_entry(
            &mut alone,
            &["mcp", "servers"],
            SERVER_NAME,
            serde_json::json!({}),
            Path::new(P),
            "",
        )
        .unwrap();
        assert!(remove_entry(&mut alone, &["mcp", "servers"], SERVER_NAME));
        assert_eq!(alone, serde_json::json!({}));
    }

    #[test]
    fn malformed_json_names_the_line() {
        let err = parse_json(Path::new(P), "{\n  \"a\": 1,\n  oops\n}", None).unwrap_err();
        assert!(err.to_string().starts_with("/x/settings.json:3: not valid JSON"), "{err}");
        let text = "{\n  \"mcpServers\": []\n}";
        let mut doc = parse_json(Path::new(P), text, None).unwrap();
        let err =
            set_entry(&mut doc, &["mcpServers"], "x", Value::Null, Path::new(P), text).unwrap_err();
        assert!(err.to_string().starts_with("/x/settings.json:2: `mcpServers` is not"), "{err}");
    }

    #[test]
    fn toml_block_round_trips_byte_for_byte() {
        let cases = ["", "# mine\nmodel = \"o3\"\n", "a = 1", "[features]\nx = true\n\n[tui]\n"];
        for text in cases {
            let added = append_toml_block(text, "[mcp_servers.cogmem]\ncommand = \"cogmem\"");
            let added =
                insert_into_table(&added, "features", "codex_hooks = true").unwrap_or(added);
            check_toml(Path::new("c.toml"), &added).unwrap();
            let back = remove_toml_block(Path::new("c.toml"), &added).unwrap();
            let want = if text.ends_with('\n') || text.is_empty() {
                text.to_owned()
            } else {
                format!("{text}\n")
            };
            assert_eq!(back, want, "text: {text:?}");
        }
    }

    #[test]
    fn toml_errors_name_the_line() {
        let err = check_toml(Path::new("c.toml"), "a = 1\nb = = 2\n").unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2: not valid TOML"), "{err}");
        let err =
            remove_toml_block(Path::new("c.toml"), &format!("a = 1\n{TOML_BEGIN}\n")).unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2: cogmem's block"), "{err}");
    }
}
