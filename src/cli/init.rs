//! `cogmem init`.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::exit::Exit;
use super::{Ctx, render};

/// Create a workspace, or adopt an existing one, and start its git history
///
/// Lays out MEMORY.md, IDENTITY.md, SOUL.md and memory/ from the built-in template, writes
/// .gitignore (`.cogmem/`) and .gitattributes (union merge for episodes and the audit log),
/// creates a git repository if there is none, and commits as `system:init`.
///
/// In a folder that already holds a workspace (one made by the cognitive-memory skill, say),
/// only what is missing is created; nothing is overwritten. Running it again changes nothing.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct InitArgs {
    /// Folder to create the workspace in (default: the current folder, or --workspace)
    path: Option<PathBuf>,
    /// Also write the memory instructions for agents into AGENTS.md, between begin/end
    /// markers: appended once, replaced in place when cogmem's block changes
    #[arg(long)]
    agents_md: bool,
}

const EXAMPLES: &str = "\
Examples:
  # Start a workspace in a new folder
  cogmem init ~/agent-memory

  # Adopt a workspace made by the cognitive-memory skill, and tell its agent how to use cogmem
  cogmem init --agents-md ~/.openclaw/workspace
";

pub fn run(ctx: &Ctx, args: &InitArgs) -> cogmem::Result<Exit> {
    let target = args
        .path
        .clone()
        .or_else(|| ctx.global.workspace.clone())
        .or_else(|| ctx.env.workspace.clone())
        .unwrap_or_else(|| PathBuf::from("."));
    let target = if target.is_absolute() { target } else { ctx.cwd.join(target) };
    let clock = ctx.clock()?;
    let options = cogmem::ops::init::InitOptions {
        agents_md: args.agents_md,
        workspace: ctx.workspace_options()?,
    };
    let report = cogmem::ops::init::init_with(&target, clock.as_ref(), options)?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = String::new();
    let root = report.root.display();
    match &report.commit {
        None => {
            let _ = writeln!(msg, "{root} is already a cogmem workspace; nothing to do");
        }
        Some(id)
            if report.existing_workspace
                && report.adopted.is_empty()
                && report.created.iter().chain(&report.updated).all(|p| p == "AGENTS.md") =>
        {
            let _ = writeln!(
                msg,
                "wrote cogmem's memory block into {} (commit {})",
                report.root.join("AGENTS.md").display(),
                render::short(id)
            );
        }
        Some(id) => {
            let verb = if report.existing_workspace {
                "adopted the workspace"
            } else {
                "initialized a workspace"
            };
            let _ = writeln!(
                msg,
                "{verb} in {root}: {} created, {} updated{} (commit {})",
                report.created.len(),
                report.updated.len(),
                if report.adopted.is_empty() {
                    String::new()
                } else {
                    format!(", {} existing files committed", report.adopted.len())
                },
                render::short(id)
            );
            if !report.existing_workspace {
                let _ = writeln!(msg, "next: cogmem remember \"something worth keeping\"");
            }
        }
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}
