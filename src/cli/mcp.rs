//! `cogmem mcp`.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use cogmem::audit::Actor;
use cogmem_mcp::{McpOptions, Role};

use super::exit::Exit;
use super::{Ctx, render};

/// Serve the memory to MCP hosts (Claude, Cursor, VS Code) over stdio
///
/// Speaks the Model Context Protocol on stdin and stdout, for one client, until it closes the
/// connection. The host starts it; you do not run it by hand. The workspace is found once at
/// start (--workspace, else COGMEM_WORKSPACE, else the current folder and its parents), so give
/// hosts --workspace: they seldom start servers in the right folder. While it runs it tells
/// every read which files changed, as `cogmem watch` does (without committing anything), so
/// searches need not stat every memory file.
///
/// Tools: remember, hear, recall, search, context, show, forget, restore, pin, unpin, why,
/// touch, status, graph_show, graph_neighbors, graph_path, graph_history, graph_check,
/// graph_stats, graph_export, graph_relations, supersede, graph_rename, graph_retype, reflect_status, reflect_request, reflect_input,
/// reflect_submit, identity_input, identity_submit, identity_show, audit, decay, propose,
/// pending, flag_list. Each calls the operation of the command of the same name (forget asks for
/// confirm=true first) and answers with the JSON that command prints with --json, as structured
/// content (a list is held under one key, e.g. {"groups": [...]}), or fails with the text it
/// prints on stderr, its hint naming tools. The reward decision and the approvals stay with the
/// user at a terminal. Resources: MEMORY.md, IDENTITY.md, SOUL.md,
/// memory/meta/reflection-log.md, memory/meta/reward-log.md, memory/meta/evolution.md and
/// today's episode log, as
/// cogmem://MEMORY.md and so on, and any memory as cogmem://memory/ID. Prompts: reflect and
/// consolidate_identity.
///
/// Writes are recorded as --actor (else COGMEM_ACTOR, else `agent:manual`, which is not a
/// person; forget uses `bot:trigger-forget`). With `--agent NAME` (alone or with `--role
/// subagent`; with `--role main` it is refused), or `--actor subagent:NAME`, the server is
/// read-only for a sub-agent: it lists only the reading tools
/// and propose (remember, touch, forget, restore, pin, unpin, supersede, graph_rename,
/// graph_retype, pending, reflect_request,
/// reflect_submit, identity_submit and decay are neither listed nor run), hear never writes,
/// propose is how it suggests memories, as NAME only, and the actor is `subagent:NAME`. Every line the server cannot serve (over 16 MiB, nested
/// deeper than 64 levels, not JSON, not a JSON-RPC request) is answered with a JSON-RPC error.
/// Time comes from COGMEM_NOW when it is set. Nothing but the protocol is written to stdout.
#[derive(Args, Debug)]
#[command(
    after_long_help = r#"Register the server with your MCP host (replace /path with your workspace):

Claude Desktop (claude_desktop_config.json), Cursor (~/.cursor/mcp.json or .cursor/mcp.json)
and Claude Code (.mcp.json in a project):
  {
    "mcpServers": {
      "cogmem": {
        "command": "cogmem",
        "args": ["mcp", "--workspace", "/path"]
      }
    }
  }

Claude Code, from a terminal:
  claude mcp add cogmem -- cogmem mcp --workspace /path

VS Code (.vscode/mcp.json):
  {
    "servers": {
      "cogmem": {
        "type": "stdio",
        "command": "cogmem",
        "args": ["mcp", "--workspace", "/path"]
      }
    }
  }

For a sub-agent, use "args": ["mcp", "--workspace", "/path", "--agent", "researcher"]
(`--agent` implies `--role subagent`). If the host cannot find `cogmem`, give its full path as "command"."#
)]
pub struct McpArgs {
    /// What the connected agent may do: main (read and write) or subagent (read and propose)
    /// [default: main, or subagent with --agent]
    #[arg(long, value_enum, value_name = "ROLE")]
    role: Option<RoleArg>,
    /// The sub-agent's name: it acts as `subagent:NAME` (implies --role subagent)
    #[arg(long, value_name = "NAME", required_if_eq("role", "subagent"))]
    agent: Option<String>,
}

/// The values of `--role`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum RoleArg {
    /// The main agent: every tool
    Main,
    /// A sub-agent: reading tools and propose
    Subagent,
}

pub fn run(ctx: &Ctx, args: &McpArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.resident_workspace()?;
    // A named agent is a sub-agent unless told otherwise, and then it is refused: a server
    // that reads `--agent` as a warning and serves every tool fails open (docs/decisions.md,
    // 2026-12-06, eleventh stop).
    let (mut role, actor) = match (args.role, &args.agent) {
        (Some(RoleArg::Main), Some(name)) => {
            return Err(cogmem::error::InputError::MainAgentNamed { name: name.clone() }.into());
        }
        (_, Some(name)) => {
            if ctx.global.actor.is_some() {
                render::warning(ctx.style, "--actor is ignored with --agent (a sub-agent)");
            }
            (Role::Subagent, Some(Actor::parse(&format!("subagent:{name}"))?))
        }
        (role, None) => {
            debug_assert_ne!(role, Some(RoleArg::Subagent), "clap requires --agent with it");
            (Role::Main, ctx.named_actor()?)
        }
    };
    // `--actor subagent:NAME` makes a sub-agent's server too.
    if actor.as_ref().is_some_and(Actor::is_subagent) {
        role = Role::Subagent;
    }
    if std::io::stdin().is_terminal() {
        render::status(
            ctx.global.quiet,
            &format!(
                "serving {} over MCP on stdin/stdout; an MCP host should start this (see `cogmem mcp --help`)\n",
                ws.root().display()
            ),
        );
    }
    cogmem_mcp::serve(ws, McpOptions { role, actor, clock })?;
    Ok(Exit::Ok)
}
