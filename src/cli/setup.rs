//! `cogmem setup HOST`.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};

use cogmem::error::InputError;
use cogmem::ops::setup::{self, Action, Host, Scope, SetupRequest};

use super::exit::Exit;
use super::{Ctx, render};

/// Register cogmem with an agent host: its MCP server, hooks and instructions
///
/// Merges into the host's own configuration files: the MCP server (`cogmem mcp --workspace
/// WS`), the hooks (`cogmem hook HOST --workspace WS` for each event the host offers) and
/// cogmem's memory block in the host's instruction file (CLAUDE.md or AGENTS.md). Other
/// servers, hooks, keys and TOML comments are kept; running it again changes nothing. Each file
/// it changes is first copied to `FILE.cogmem-backup-STAMP`, then replaced atomically; a file
/// that is a symbolic link is refused. `--dry-run` prints the change as a diff (a link's too, to
/// make by hand) and writes nothing; `--undo` takes out exactly what setup put in.
///
/// Files, by host (user scope under your home folder; project scope in the current folder):
/// claude-code: ~/.claude.json or .mcp.json, .claude/settings.json, ~/.claude/CLAUDE.md or
/// CLAUDE.md; codex: .codex/config.toml, .codex/hooks.json, ~/.codex/AGENTS.md or AGENTS.md;
/// cursor: .cursor/mcp.json, .cursor/hooks.json, AGENTS.md (project); openclaw (user only):
/// ~/.openclaw/openclaw.json (OPENCLAW_CONFIG_PATH, else openclaw.json in OPENCLAW_STATE_DIR,
/// else in ~/.openclaw-PROFILE for OPENCLAW_PROFILE) and AGENTS.md in the agent workspace (the
/// default agent's `workspace`, else `agents.defaults.workspace`, else OPENCLAW_WORKSPACE_DIR,
/// else `workspace` in the state folder; for a profile, older OpenClaw's
/// ~/.openclaw/workspace-PROFILE when only that exists). An AGENTS.md block another host's setup still uses
/// (Codex's and Cursor's in one project) stays on undo. With --scope project, a workspace inside
/// the project is named relative to it where the host resolves that (Claude Code's
/// CLAUDE_PROJECT_DIR); elsewhere the files name it by absolute path, and setup says so.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct SetupArgs {
    /// The agent host
    #[arg(value_enum)]
    host: HostArg,
    /// Whose configuration: yours (every project) or the current folder's project
    #[arg(long, value_enum, default_value_t = ScopeArg::User, value_name = "SCOPE")]
    scope: ScopeArg,
    /// Print the changes as a unified diff and write nothing
    #[arg(long)]
    dry_run: bool,
    /// Remove what setup added, and nothing else
    #[arg(long)]
    undo: bool,
}

/// An agent host.
#[derive(ValueEnum, Debug, Clone, Copy)]
enum HostArg {
    /// Anthropic's Claude Code
    ClaudeCode,
    /// OpenAI's Codex CLI
    Codex,
    /// Cursor's agent
    Cursor,
    /// OpenClaw
    Openclaw,
}

/// Whose configuration.
#[derive(ValueEnum, Debug, Clone, Copy)]
enum ScopeArg {
    /// Your own configuration, under your home folder
    User,
    /// The project in the current folder
    Project,
}

const EXAMPLES: &str = "\
Examples:
  # See what setup would change for Claude Code, then do it
  cogmem setup claude-code --dry-run
  cogmem setup claude-code

  # Register cogmem for this project only (files in the current folder)
  cogmem setup codex --scope project

  # Take it out again
  cogmem setup claude-code --undo
";

pub fn run(ctx: &Ctx, args: &SetupArgs) -> cogmem::Result<Exit> {
    let Some(home) = ctx.env.home.clone() else {
        return Err(InputError::Setup {
            why: "HOME is not set, so setup cannot find your configuration files".into(),
            hint: "set HOME to your home folder, or use `--scope project`".into(),
        }
        .into());
    };
    let ws = ctx.discover()?;
    let host = match args.host {
        HostArg::ClaudeCode => Host::ClaudeCode,
        HostArg::Codex => Host::Codex,
        HostArg::Cursor => Host::Cursor,
        HostArg::Openclaw => Host::Openclaw,
    };
    let scope = match args.scope {
        ScopeArg::User => Scope::User,
        ScopeArg::Project => Scope::Project,
    };
    let request = SetupRequest {
        host,
        scope,
        home,
        codex_home: ctx.env.codex_home.clone(),
        openclaw_workspace_dir: ctx.env.openclaw_workspace_dir.clone(),
        openclaw_profile: ctx.env.openclaw_profile.clone(),
        openclaw_state_dir: ctx.env.openclaw_state_dir.clone(),
        openclaw_config_path: ctx.env.openclaw_config_path.clone(),
        project: ctx.cwd.clone(),
        workspace: ws.root().to_owned(),
        undo: args.undo,
    };
    let mut report = setup::plan(&request)?;
    if args.dry_run {
        if ctx.global.json {
            render::json(&report)?;
        } else {
            render::data(&setup::diff(&report)?)?;
            // What a real run would leave to the user, on stderr as a real run says it.
            let notes: String = report.notes.iter().map(|n| format!("note: {n}\n")).collect();
            render::status(ctx.global.quiet, &notes);
        }
        return Ok(Exit::Ok);
    }
    let clock = ctx.clock()?;
    setup::apply(&mut report, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = String::new();
    for file in &report.files {
        let verb = match file.action {
            Action::Create => "created",
            Action::Update => "updated",
            Action::Delete => "removed",
        };
        let _ = write!(msg, "{verb} {} ({})", file.path.display(), file.role);
        if let Some(backup) = &file.backup {
            let _ = write!(msg, ", backup in {}", backup.display());
        }
        msg.push('\n');
    }
    for path in &report.unchanged {
        let _ = writeln!(msg, "unchanged {}", path.display());
    }
    if report.files.is_empty() {
        let what = if args.undo { "nothing of cogmem's to remove" } else { "already set up" };
        let _ = writeln!(msg, "{}: {what}", host.name());
    }
    for note in &report.notes {
        let _ = writeln!(msg, "note: {note}");
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}
