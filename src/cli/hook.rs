//! `cogmem hook <host>`: an agent host's hook command. Reads the host's hook JSON on stdin,
//! answers on stdout in that host's format, and never stops the host: whatever goes wrong is a
//! one-line notice on stderr and exit 0 (exit 2 would block a prompt in Claude Code and Codex).
//! The logic is the library's (`ops::hook`, `ops::import`); this file is the hosts' wire
//! formats, each documented where it is handled.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use cogmem::ops::hook;
use cogmem::ops::import::{self, Format, ImportOptions};
use serde_json::{Value, json};

use super::exit::Exit;
use super::{Ctx, background, input};

const EXAMPLES: &str = "Examples:
  # What Claude Code sends at the start of a session, in this folder: prints the memory pack
  echo '{\"hook_event_name\":\"SessionStart\",\"cwd\":\"'$PWD'\"}' | cogmem hook claude-code
  # A recorded Codex prompt event, for the workspace in ~/memory
  cogmem --workspace ~/memory hook codex < prompt.json";

/// Answer an agent host's hook: context at session start and on each prompt, transcripts saved
///
/// Reads the hook's JSON on stdin and acts on its event:
///
/// - claude-code: `SessionStart` answers the memory pack (core memory, the week's episodes,
///   the latest reflection and reward outcomes; `[hooks] session_start_tokens`) as
///   `hookSpecificOutput.additionalContext`; `UserPromptSubmit` passes the prompt through
///   `hear` (an explicit "remember that …" is written as `bot:trigger-remember`, a forget
///   request lists candidates, a reflect request reports the cycle) and answers what was done
///   and the memories that match it (`[hooks] prompt_tokens`), each with its id and date;
///   `PreCompact` and `SessionEnd` import the transcript at `transcript_path`: user and
///   assistant text only, once per message, tagged `transcript` (`SessionEnd`'s in a process
///   of its own, which Claude Code's exit does not cut short).
/// - codex: the same for `SessionStart` and `UserPromptSubmit`; `PreCompact`, `Stop` and
///   `SessionEnd` import the session's rollout (`SessionEnd`'s in a process of its own, which
///   Codex's 3-second limit does not cut short).
/// - cursor: `sessionStart` answers the pack as `additional_context`; `beforeSubmitPrompt`
///   passes the prompt through `hear` and lets it go on (Cursor takes no context there).
/// - openclaw: OpenClaw's hooks run inside its gateway, not as commands; use `cogmem mcp` and
///   the AGENTS.md block (this command only says so).
///
/// The workspace is --workspace or COGMEM_WORKSPACE, else the one at or above the hook's
/// working folder (`cwd`; Cursor: the first of `workspace_roots`); without one the hook does
/// nothing. Every problem is a notice on stderr with exit 0, so the host always goes on.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct HookArgs {
    /// The agent host whose hook JSON comes on stdin
    host: Host,
    /// Import this transcript of HOST's, here and now, instead of reading an event: what a
    /// `SessionEnd` (Claude Code's, Codex's) hands to the process it starts
    #[arg(long, hide = true, value_name = "PATH")]
    import_now: Option<PathBuf>,
}

/// Agent hosts.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    /// Claude Code (settings.json `hooks`)
    ClaudeCode,
    /// Codex CLI (`hooks.json`, with `[features] codex_hooks = true`)
    Codex,
    /// Cursor (`.cursor/hooks.json`)
    Cursor,
    /// OpenClaw (no command hooks: MCP and the AGENTS.md block)
    Openclaw,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Cursor => "cursor",
            Self::Openclaw => "openclaw",
        }
    }

    /// The actor of a transcript import when none is named.
    fn actor(self) -> cogmem::audit::Actor {
        cogmem::audit::Actor::system(match self {
            Self::ClaudeCode => "bot:hook-claude-code",
            Self::Codex => "bot:hook-codex",
            Self::Cursor => "bot:hook-cursor",
            Self::Openclaw => "bot:hook-openclaw",
        })
    }
}

/// The largest hook JSON read from stdin: a prompt with pasted files fits.
const MAX_HOOK_JSON: u64 = 16 * 1024 * 1024;

pub fn run(ctx: &Ctx, args: &HookArgs) -> cogmem::Result<Exit> {
    let host = args.host;
    if let Some(path) = &args.import_now {
        // Its stderr is the import log: each line says when.
        let when = ctx.clock().map_or_else(
            |_| String::new(),
            |c| c.now().with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        );
        eprintln!("{when} cogmem hook {}: importing {}", host.name(), path.display());
        if let Err(Notice(text)) = import_now(ctx, host, path) {
            eprintln!("{when} cogmem hook {}: {text}", host.name());
        }
        return Ok(Exit::Ok);
    }
    let mut quiet = false;
    let answer = match answer(ctx, host, &mut quiet) {
        Ok(a) => a,
        Err(Notice(text)) => {
            eprintln!("cogmem hook {}: {text}", host.name());
            Answer::Nothing
        }
    };
    let out = match answer {
        Answer::Json(v) => Some(v),
        Answer::Nothing if quiet => None,
        // Codex and Cursor read JSON from every command hook: an empty object changes nothing.
        Answer::Nothing if host != Host::ClaudeCode => Some(json!({})),
        Answer::Nothing => None,
    };
    if let Some(v) = out {
        let text = serde_json::to_string(&v).expect("a JSON value serializes");
        super::render::data(&format!("{text}\n"))?;
    }
    Ok(Exit::Ok)
}

/// What the hook prints.
enum Answer {
    /// This JSON object.
    Json(Value),
    /// Nothing to say.
    Nothing,
}

/// Why the hook did nothing: said on stderr, never an exit code.
struct Notice(String);

impl From<cogmem::Error> for Notice {
    fn from(e: cogmem::Error) -> Self {
        let mut text = e.to_string();
        if let Some(hint) = e.hint() {
            text.push_str(&format!(" (hint: {hint})"));
        }
        Self(text)
    }
}

/// `quiet` is set for an event whose host reads no answer at all (Codex's `SessionEnd`, which
/// has no output schema): nothing is printed, not even `{}`.
fn answer(ctx: &Ctx, host: Host, quiet: &mut bool) -> Result<Answer, Notice> {
    let Some(raw) = input::stdin_limited(MAX_HOOK_JSON)? else {
        return Err(Notice(format!(
            "the hook event on stdin is over {MAX_HOOK_JSON} bytes, more than any host sends; \
             nothing done"
        )));
    };
    // Half of a surrogate pair (a cut emoji, as JavaScript writes it) is one character lost,
    // not the whole event.
    let event: Value = serde_json::from_str(&cogmem_text::json::lone_surrogates_replaced(&raw))
        .map_err(|e| Notice(format!("stdin is not the host's hook JSON: {e}")))?;
    if host == Host::Openclaw {
        return Err(Notice(
            "OpenClaw runs hooks inside its gateway, not as commands: connect `cogmem mcp` and \
             add the AGENTS.md block (`cogmem init --agents-md`) instead"
                .into(),
        ));
    }
    if !event.is_object() {
        return Err(Notice("stdin is not the host's hook JSON: not a JSON object".into()));
    }
    let Some(name) = str_field(&event, "hook_event_name") else {
        return Err(Notice("the hook event has no `hook_event_name` text; nothing done".into()));
    };
    *quiet = host == Host::Codex && name == "SessionEnd";
    let Some(kind) = Event::of(host, name) else {
        return Ok(Answer::Nothing); // an event cogmem has nothing to do with
    };
    cogmem::timing::mark("hook: event read");
    // Codex kills a `SessionEnd` hook after 3 s, and Claude Code often exits without waiting
    // for it (anthropics/claude-code issues 41577, 70465, 32712: "Hook cancelled"); an import
    // cut there would be undone by the next command, and no later event of the session would
    // import it again. The import goes to a process of its own, which the host's kill does not
    // reach, before this one opens the workspace (a killed change undone, an interrupted purge
    // finished, outside commits adopted: the import's process does that itself); the
    // transcript is checked here, so that a path that is no file is still said on the host's
    // log.
    if matches!(kind, Event::Transcript(_))
        && matches!(host, Host::Codex | Host::ClaudeCode)
        && name == "SessionEnd"
    {
        let path = transcript_path(ctx, name, &event)?;
        cogmem::store::fsx::open_regular(&path).map_err(cogmem::Error::from)?;
        let found = found_workspace(ctx, host, &event, Ctx::discover)?;
        if import_detached(ctx, host, &found, &path) {
            return Ok(Answer::Nothing);
        }
    }
    let ws = workspace(ctx, host, &event)?;
    cogmem::timing::mark("hook: workspace opened");
    let clock = ctx.clock()?;
    match kind {
        Event::SessionStart => {
            let pack = hook::session_start(&ws, clock.as_ref());
            // The answer says it first, for the model; the notice is for the host's log.
            notice(host, &pack.unread);
            catch_up_index(&ws, &pack.unread);
            start_read_server(ctx, &ws);
            Ok(context_answer(host, name, &pack.text))
        }
        Event::Prompt => {
            let Some(prompt) = str_field(&event, "prompt") else {
                return Err(Notice(format!("the {name} event has no `prompt` text; nothing done")));
            };
            if prompt.trim().is_empty() {
                return Ok(Answer::Nothing);
            }
            let caller = ctx.named_actor()?;
            // https://cursor.com/docs/agent/hooks: beforeSubmitPrompt answers only `continue`
            // (and `user_message` when it blocks); it cannot add context, so no memory is
            // looked for.
            let memories = host != Host::Cursor;
            let p = hook::user_prompt(&ws, prompt, caller, clock.as_ref(), memories)?;
            // The answer says it first, for the model; the notice is for the host's log.
            let problems: Vec<_> =
                p.refused.iter().chain(&p.unlooked).chain(&p.unrecorded).cloned().collect();
            notice(host, &problems);
            catch_up_index(&ws, &problems);
            start_read_server(ctx, &ws);
            Ok(match host {
                Host::Cursor => Answer::Json(json!({ "continue": true })),
                _ => context_answer(host, name, &p.text),
            })
        }
        Event::Transcript(format) => {
            let path = transcript_path(ctx, name, &event)?;
            save_transcript(ctx, host, &ws, &path, format, clock.as_ref())?;
            Ok(Answer::Nothing)
        }
    }
}

/// Says on stderr, for the host's log, what an event could not do, each with its hint.
fn notice(host: Host, problems: &[hook::Refusal]) {
    for r in problems {
        let hint = r.hint.as_ref().map(|h| format!(" (hint: {h})")).unwrap_or_default();
        eprintln!("cogmem hook {}: {}{hint}", host.name(), r.message);
    }
}

/// The event's `transcript_path`, with a leading `~/` expanded with HOME.
fn transcript_path(ctx: &Ctx, name: &str, event: &Value) -> Result<PathBuf, Notice> {
    let Some(path) = str_field(event, "transcript_path").filter(|p| !p.is_empty()) else {
        return Err(Notice(format!("{name}: no `transcript_path` in the hook's JSON")));
    };
    Ok(match (path.strip_prefix("~/"), &ctx.env.home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    })
}

/// Starts `cogmem watch --serve-only` for the session when no watcher serves the workspace,
/// so that the session's later reads (each prompt's, the MCP server's, the agent's own
/// commands) ask it which memory files changed instead of looking at every one; it stops after
/// `[hooks] serve_minutes` (or `COGMEM_HOOK_SERVE_MINUTES`) without a read, and when the
/// workspace goes. `0` minutes starts none; nor is one started for an hour after one found the
/// workspace cannot be served (`ops::watch::read_server_wanted`). Best effort: without it the
/// reads look at every file, as before. Started once this event's reads are done, so that
/// setting it up does not take the processor from them.
fn start_read_server(ctx: &Ctx, ws: &cogmem::Workspace) {
    let minutes = ctx.env.hook_serve_minutes.unwrap_or(ws.settings().hooks.serve_minutes);
    if minutes == 0 || !cogmem::ops::watch::read_server_wanted(ws) {
        return;
    }
    let Some(mut cmd) = background::command(ws.root()) else { return };
    cmd.args(["watch", "--serve-only", "--idle-exit", &format!("{minutes}m")]);
    background::spawn_detached(cmd);
}

/// Starts `cogmem hook HOST --import-now PATH` on the workspace, in a process group of its
/// own and with no input or output, and does not wait for it: Codex kills a `SessionEnd` hook
/// that runs over its 3 s (`kill_on_drop` on the one process it started, in openai/codex
/// `codex-rs/hooks/src/engine/command_runner.rs`), and waits for the hook's stdout and stderr
/// to close, which a child holding them would delay. `false` when it could not be started.
fn import_detached(ctx: &Ctx, host: Host, ws: &cogmem::Workspace, path: &Path) -> bool {
    let Some(mut cmd) = background::command(ws.root()) else { return false };
    if let Some(actor) = &ctx.global.actor {
        cmd.arg("--actor").arg(actor);
    }
    cmd.args(["hook", host.name(), "--import-now"]).arg(path);
    // What it has to say (a line left out as a credential, an import that failed) goes to a
    // log in the derived folder: the host's log is closed by then.
    if let Some(log) = import_log(ws) {
        cmd.stderr(log);
    }
    background::spawn_detached(cmd)
}

/// The log a detached `SessionEnd` import writes its notices to, started afresh past 1 MB;
/// `None` when it cannot be opened (the notices then go nowhere, as before).
fn import_log(ws: &cogmem::Workspace) -> Option<std::fs::File> {
    let path = ws.abs(IMPORT_LOG);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > 1024 * 1024) {
        cogmem::store::fsx::remove_file(&path).ok()?;
    }
    cogmem::store::fsx::open_append(&path).ok()
}

/// Where a detached `SessionEnd` import says what it has to say.
const IMPORT_LOG: &str = ".cogmem/hook-import.log";

/// The import [`import_detached`] started: the transcript at `path` in HOST's format.
fn import_now(ctx: &Ctx, host: Host, path: &Path) -> Result<(), Notice> {
    let Some(Event::Transcript(format)) = Event::of(host, "SessionEnd") else {
        return Err(Notice(format!("{} sessions are not imported", host.name())));
    };
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    save_transcript(ctx, host, &ws, path, format, clock.as_ref())
}

/// What cogmem does for an event.
enum Event {
    /// Give the memory pack.
    SessionStart,
    /// Hear the prompt and give the memories it calls up.
    Prompt,
    /// Import the session's transcript.
    Transcript(Format),
}

impl Event {
    /// The events each host documents that cogmem acts on:
    /// - Claude Code, <https://code.claude.com/docs/en/hooks> (`hook_event_name`);
    /// - Codex, <https://developers.openai.com/codex/hooks> and the input schemas in
    ///   openai/codex `codex-rs/hooks/schema/generated/` (`Stop` ends each turn; `SessionEnd`,
    ///   in newer versions, ends the session and waits at most 3 s);
    /// - Cursor, <https://cursor.com/docs/agent/hooks> (camelCase names). Cursor documents no
    ///   transcript format, so its `stop`, `sessionEnd` and `preCompact` import nothing.
    fn of(host: Host, name: &str) -> Option<Self> {
        match (host, name) {
            (Host::ClaudeCode | Host::Codex, "SessionStart") | (Host::Cursor, "sessionStart") => {
                Some(Self::SessionStart)
            }
            (Host::ClaudeCode | Host::Codex, "UserPromptSubmit")
            | (Host::Cursor, "beforeSubmitPrompt") => Some(Self::Prompt),
            (Host::ClaudeCode, "PreCompact" | "SessionEnd") => {
                Some(Self::Transcript(Format::ClaudeCode))
            }
            (Host::Codex, "PreCompact" | "Stop" | "SessionEnd") => {
                Some(Self::Transcript(Format::Codex))
            }
            _ => None,
        }
    }
}

/// The answer that adds `text` to the model's context, in the host's format: Claude Code and
/// Codex take `hookSpecificOutput.additionalContext` with the event's name (Codex validates
/// it against `session-start.command.output.schema.json` and
/// `user-prompt-submit.command.output.schema.json`); Cursor's `sessionStart` takes
/// `additional_context`.
fn context_answer(host: Host, event: &str, text: &str) -> Answer {
    if text.trim().is_empty() {
        return Answer::Nothing;
    }
    Answer::Json(match host {
        Host::Cursor => json!({ "additional_context": text }),
        _ => json!({ "hookSpecificOutput": { "hookEventName": event, "additionalContext": text } }),
    })
}

/// The workspace: --workspace or COGMEM_WORKSPACE, else found at or above the hook's folder;
/// its reads share one scan of the memory files (one event is one operation).
fn workspace(ctx: &Ctx, host: Host, event: &Value) -> Result<cogmem::Workspace, Notice> {
    let ws = found_workspace(ctx, host, event, Ctx::workspace)?;
    let mut options = ws.options().clone();
    options.one_scan = true;
    options.refresh_limit = Some(REFRESH_LIMIT);
    Ok(ws.with_options(options))
}

/// The most memory files a hook's read indexes again before it answers (about a second's
/// work): an index further behind (a `reindex --full` killed half-way on a large workspace, a
/// `git pull` of thousands of files) is brought up to date by a `cogmem reindex` started in
/// the background ([`catch_up_index`]), not inside a hook that the host may kill for being
/// slow, after it has heard the prompt.
const REFRESH_LIMIT: usize = 500;

/// Starts `cogmem reindex` in the background when a read of this event found the index too
/// far behind ([`REFRESH_LIMIT`]); a reindex already running makes this one wait for it and
/// then find little to do. Best effort.
fn catch_up_index(ws: &cogmem::Workspace, problems: &[hook::Refusal]) {
    if !problems.iter().any(|p| p.index_behind) {
        return;
    }
    let Some(mut cmd) = background::command(ws.root()) else { return };
    cmd.arg("reindex");
    background::spawn_detached(cmd);
}

/// The workspace: --workspace or COGMEM_WORKSPACE, else found at or above the hook's folder;
/// opened with `open` ([`Ctx::workspace`], or [`Ctx::discover`], which touches nothing).
fn found_workspace(
    ctx: &Ctx,
    host: Host,
    event: &Value,
    open: fn(&Ctx) -> cogmem::Result<cogmem::Workspace>,
) -> Result<cogmem::Workspace, Notice> {
    if ctx.global.workspace.is_some() || ctx.env.workspace.is_some() {
        return Ok(open(ctx)?);
    }
    let cwd = match host {
        Host::Cursor => event
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(Value::as_str),
        _ => str_field(event, "cwd"),
    };
    let Some(cwd) = cwd.filter(|c| !c.is_empty()).map(PathBuf::from) else {
        return Err(Notice(
            "no workspace: the hook's JSON names no folder and COGMEM_WORKSPACE is not set".into(),
        ));
    };
    if !cwd.is_absolute() {
        return Err(Notice(format!("no workspace: the hook's folder {cwd:?} is not absolute")));
    }
    let found = open(&Ctx { cwd: cwd.clone(), ..ctx.clone() });
    found.map_err(|e| match e.kind() {
        cogmem::ErrorKind::User if !cwd.join("MEMORY.md").exists() => Notice(format!(
            "no cogmem workspace at or above {}: nothing to do (set COGMEM_WORKSPACE, or run \
             `cogmem init` there)",
            cwd.display()
        )),
        _ => Notice::from(e),
    })
}

/// Imports the host's transcript file, skipping what looks like a credential.
///
/// A path that is not a regular file (a FIFO, a device, a folder) is refused before it is
/// read: reading a FIFO would wait for a writer until the host kills the hook.
fn save_transcript(
    ctx: &Ctx,
    host: Host,
    ws: &cogmem::Workspace,
    path: &Path,
    format: Format,
    clock: &dyn cogmem::Clock,
) -> Result<(), Notice> {
    let file = cogmem::store::fsx::open_regular(path).map_err(cogmem::Error::from)?;
    let mut reader = std::io::BufReader::new(file);
    let name = path.file_stem().map_or_else(|| "transcript".into(), |s| s.to_string_lossy());
    let opts = ImportOptions { format, skip_secrets: true, ..ImportOptions::default() };
    let actor = ctx.named_actor()?.unwrap_or_else(|| host.actor());
    let input = import::ImportInput { reader: &mut reader, name: &name, origin: path };
    let report = import::import(ws, input, &opts, actor, clock)?;
    for b in &report.skipped {
        eprintln!("cogmem hook {}: {}:{}: {}", host.name(), path.display(), b.line, b.error);
    }
    Ok(())
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
