//! Agent hosts' own transcript files (issue 17), read as what the user and the assistant said:
//! text only, never tool calls, tool results, thinking or reasoning, injected instructions or
//! bookkeeping lines. Each message keeps an id that stays the same when the file is read again,
//! so importing a growing transcript twice adds only what is new.
//!
//! Formats, as their hosts document and write them:
//! - Claude Code: the session JSONL at the hooks' `transcript_path`
//!   (<https://code.claude.com/docs/en/hooks>, common input fields;
//!   <https://docs.claude.com/en/docs/claude-code/sdk/sdk-sessions> shows its lines): one object
//!   per line with `type` (`user`, `assistant`, or bookkeeping such as `summary`, `system`,
//!   `file-history-snapshot`), `uuid`, `timestamp` and `message` { `role`, `content` }, where
//!   `content` is a string or a list of blocks (`text`, `tool_use`, `tool_result`, `thinking`,
//!   `image`…). The message id is `uuid`. Lines marked `isSidechain` (a sub-agent's
//!   conversation), `isMeta` (text the host injected) or `isCompactSummary` (the host's summary
//!   after compaction) are not the user's or the assistant's words and are left out. So are
//!   the user lines Claude Code writes itself: a slash command and its output
//!   (`<command-name>`, `<command-message>`, `<command-args>`, `<local-command-stdout>`,
//!   `<local-command-stderr>`, `<local-command-caveat>`), a `!` shell command and its output
//!   (`<bash-input>`, `<bash-stdout>`, `<bash-stderr>`), a background task's report
//!   (`<task-notification>`) and "[Request interrupted by user…]"; `<system-reminder>` blocks
//!   inside a message are cut out of it. (These markers are not in Claude Code's docs; they
//!   are what its transcripts hold, as several independent transcript readers filter them.)
//! - Codex CLI: the rollout JSONL under `~/.codex/sessions/` (openai/codex,
//!   `codex-rs/protocol/src/protocol.rs` `RolloutLine` / `RolloutItem`, and
//!   `codex-rs/core/src/rollout/policy.rs` for what is persisted): one object per line,
//!   `{"timestamp", "type", "payload"}`. The first line is `session_meta` (payload `id`, the
//!   session). What the user typed is an `event_msg` whose payload is `{"type":
//!   "user_message", "message"}`, what the assistant said one with `{"type": "agent_message",
//!   "message"}`; `response_item` lines repeat those messages together with the instructions
//!   Codex injects, tool calls and reasoning, so they are not read. Rollout messages carry no
//!   id: a message is named by its session and its line (`codex:SESSION:LINE`), which stays
//!   the same because a rollout is only ever appended to.

use serde_json::Value;

use crate::Timestamp;
use cogmem_text::date;

/// A message read from a host's transcript.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HostMessage {
    /// When it was written.
    pub at: Timestamp,
    /// `user` or `assistant`.
    pub speaker: &'static str,
    /// What was said, text blocks joined by blank lines.
    pub text: String,
    /// A stable id: `claude-code:UUID` or `codex:SESSION:LINE`.
    pub id: String,
}

/// Reads one line of a Claude Code session transcript: `Ok(None)` for a line that holds no
/// user or assistant text.
pub(super) fn claude_code(v: &Value) -> Result<Option<HostMessage>, String> {
    let Some(obj) = v.as_object() else { return Err("expected a JSON object".into()) };
    let speaker = match obj.get("type").and_then(Value::as_str) {
        Some("user") => "user",
        Some("assistant") => "assistant",
        _ => return Ok(None),
    };
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool) == Some(true);
    if flag("isSidechain") || flag("isMeta") || flag("isCompactSummary") {
        return Ok(None);
    }
    let content = obj.get("message").and_then(|m| m.get("content"));
    let text = match content {
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    };
    let text = without_reminders(text);
    if text.is_empty() {
        return Ok(None); // a tool result, a tool call or thinking only
    }
    if speaker == "user" && host_written(&text) {
        return Ok(None);
    }
    let id = super::trimmed(obj, "uuid").ok_or("a user or assistant line without `uuid`")?;
    let at = timestamp(obj.get("timestamp"))?;
    Ok(Some(HostMessage { at, speaker, text, id: format!("claude-code:{id}") }))
}

/// The markers that open a user line Claude Code wrote itself rather than the user typed.
const HOST_WRITTEN: [&str; 11] = [
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "[Request interrupted by user",
];

/// Whether a user line's text is one Claude Code wrote itself (a command, its output, an
/// interruption notice), not the user's words.
fn host_written(text: &str) -> bool {
    HOST_WRITTEN.iter().any(|m| text.starts_with(m))
}

/// `text` without its `<system-reminder>…</system-reminder>` blocks (an unclosed one runs to
/// the end), trimmed.
fn without_reminders(text: String) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    if !text.contains(OPEN) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        rest = &rest[start + OPEN.len()..];
        rest = rest.find(CLOSE).map_or("", |end| &rest[end + CLOSE.len()..]);
    }
    out.push_str(rest);
    out.trim().to_owned()
}

/// Reads one line (1-based `line`) of a Codex rollout. A `session_meta` line sets `session`
/// (which starts as the file's name) and yields nothing.
pub(super) fn codex(
    v: &Value,
    line: usize,
    session: &mut String,
) -> Result<Option<HostMessage>, String> {
    let Some(obj) = v.as_object() else { return Err("expected a JSON object".into()) };
    let payload = obj.get("payload");
    let field = |k: &str| payload.and_then(|p| p.get(k)).and_then(Value::as_str);
    match obj.get("type").and_then(Value::as_str) {
        Some("session_meta") => {
            if let Some(id) = field("id").map(str::trim).filter(|s| !s.is_empty()) {
                id.clone_into(session);
            }
            Ok(None)
        }
        Some("event_msg") => {
            let speaker = match field("type") {
                Some("user_message") => "user",
                Some("agent_message") => "assistant",
                _ => return Ok(None),
            };
            let text = field("message").map(str::trim).unwrap_or("");
            if text.is_empty() {
                return Ok(None);
            }
            let at = timestamp(obj.get("timestamp"))?;
            Ok(Some(HostMessage {
                at,
                speaker,
                text: text.to_owned(),
                id: format!("codex:{session}:{line}"),
            }))
        }
        _ => Ok(None),
    }
}

/// An RFC 3339 `timestamp` field.
fn timestamp(v: Option<&Value>) -> Result<Timestamp, String> {
    let ts = v.and_then(Value::as_str).ok_or("a message without `timestamp`")?;
    date::parse_rfc3339(ts).ok_or_else(|| format!("cannot read {ts:?} as an RFC 3339 time"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(line: &str) -> Result<Option<HostMessage>, String> {
        claude_code(&serde_json::from_str(line).expect("JSON"))
    }

    #[test]
    fn claude_code_keeps_user_and_assistant_text_only() {
        let ts = r#""timestamp":"2026-12-01T09:30:00.120Z""#;
        let user = format!(
            r#"{{"type":"user","uuid":"u1",{ts},"message":{{"role":"user","content":"Use Postgres"}}}}"#
        );
        let m = cc(&user).unwrap().unwrap();
        assert_eq!(
            (m.speaker, m.text.as_str(), m.id.as_str()),
            ("user", "Use Postgres", "claude-code:u1")
        );
        let mixed = format!(
            r#"{{"type":"assistant","uuid":"a1",{ts},"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"hmm"}},{{"type":"text","text":"Done."}},{{"type":"tool_use","id":"t","name":"Bash","input":{{}}}}]}}}}"#
        );
        assert_eq!(cc(&mixed).unwrap().unwrap().text, "Done.");
        let cases = [
            format!(
                r#"{{"type":"user","uuid":"u2",{ts},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":"secret output"}}]}}}}"#
            ),
            format!(
                r#"{{"type":"user","uuid":"u3",{ts},"isMeta":true,"message":{{"role":"user","content":"Caveat"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","uuid":"u4",{ts},"isSidechain":true,"message":{{"role":"assistant","content":[{{"type":"text","text":"sub-agent"}}]}}}}"#
            ),
            r#"{"type":"summary","summary":"Setup","leafUuid":"u1"}"#.to_owned(),
        ];
        let host_lines = [
            "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
            "<local-command-stdout>Set model to opus</local-command-stdout>",
            "<local-command-caveat>Caveat: the messages below were generated by the user while running local commands.</local-command-caveat>",
            "<bash-input>git status</bash-input>",
            "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>",
            "<task-notification><task-id>t1</task-id></task-notification>",
            "[Request interrupted by user for tool use]",
            "<system-reminder>The user opened a file.</system-reminder>",
        ];
        let cases = cases.into_iter().chain(host_lines.iter().map(|text| {
            let content = serde_json::to_string(text).unwrap();
            format!(r#"{{"type":"user","uuid":"u5",{ts},"message":{{"role":"user","content":{content}}}}}"#)
        }));
        for line in cases {
            assert_eq!(cc(&line), Ok(None), "input: {line}");
        }
        assert!(cc(r#"{"type":"user","message":{"content":"no id"}}"#).is_err());
    }

    #[test]
    fn claude_code_cuts_reminders_out_of_a_message() {
        let ts = r#""timestamp":"2026-12-01T09:30:00.120Z""#;
        let line = format!(
            r#"{{"type":"user","uuid":"u6",{ts},"message":{{"role":"user","content":[{{"type":"text","text":"<system-reminder>hidden</system-reminder>"}},{{"type":"text","text":"We deploy on Fridays <system-reminder>also hidden</system-reminder>now"}}]}}}}"#
        );
        assert_eq!(cc(&line).unwrap().unwrap().text, "We deploy on Fridays now");
        // A user's own words that merely mention a marker later on are kept.
        let own = format!(
            r#"{{"type":"user","uuid":"u7",{ts},"message":{{"role":"user","content":"Why does <bash-stdout> show up?"}}}}"#
        );
        assert_eq!(cc(&own).unwrap().unwrap().text, "Why does <bash-stdout> show up?");
    }

    #[test]
    fn codex_reads_event_messages_named_by_session_and_line() {
        let mut session = "rollout".to_owned();
        let lines = [
            r#"{"timestamp":"2026-12-01T09:00:00.000Z","type":"session_meta","payload":{"id":"s-1","cwd":"/w"}}"#,
            r#"{"timestamp":"2026-12-01T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}}"#,
            r#"{"timestamp":"2026-12-01T09:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"Use Postgres","images":null}}"#,
            r#"{"timestamp":"2026-12-01T09:00:03.000Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"thinking"}}"#,
            r#"{"timestamp":"2026-12-01T09:00:04.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Noted."}}"#,
        ];
        let got: Vec<HostMessage> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                codex(&serde_json::from_str(l).expect("JSON"), i + 1, &mut session).unwrap()
            })
            .collect();
        let brief: Vec<(&str, &str, &str)> =
            got.iter().map(|m| (m.speaker, m.text.as_str(), m.id.as_str())).collect();
        assert_eq!(
            brief,
            [("user", "Use Postgres", "codex:s-1:3"), ("assistant", "Noted.", "codex:s-1:5")]
        );
    }
}
