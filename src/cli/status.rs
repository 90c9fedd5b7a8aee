//! `cogmem status`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::status::{self, IndexState};

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # What each store holds, hand edits and the last five commits
  cogmem status
  # The same with the last 20 commits
  cogmem status --commits 20
  # As JSON, for a script or an agent
  cogmem status --json
  # Review a critical change it lists, then acknowledge it
  cogmem audit ack 3f2a1b4c";

/// Show the workspace, what each store holds, hand edits and recent commits
///
/// Read-only. Files that cannot be read are reported as warnings and left out of the counts
/// (exit 3).
///
/// Lists every commit that changed a critical file (SOUL.md, IDENTITY.md, and those named in
/// `audit.critical_files`) until `cogmem audit ack` acknowledges it, with its actor and a diff
/// summary. A critical change by anyone other than `manual` or an approved reflection is an
/// integrity problem: status reports it and exits 3 until it is acknowledged.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct StatusArgs {
    /// How many recent commits to show
    #[arg(long, default_value_t = 5, value_name = "N")]
    commits: usize,
}

/// "1 entry", "2 entries".
fn n(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else if let Some(stem) = noun.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{count} {stem}ies")
    } else {
        format!("{count} {noun}s")
    }
}

pub fn run(ctx: &Ctx, args: &StatusArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let report = status::status(&ws, args.commits)?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let c = &report.counts;
        let mut out = String::new();
        let _ = writeln!(out, "workspace   {}", report.workspace.display());
        let _ = writeln!(out, "core        {} in MEMORY.md", n(c.core, "bullet"));
        let _ =
            writeln!(out, "episodic    {} in {}", n(c.episodes, "entry"), n(c.episode_days, "day"));
        let _ = writeln!(out, "semantic    {}", n(c.entities, "entity"));
        let _ = writeln!(out, "procedural  {}", n(c.procedures, "procedure"));
        let _ = writeln!(out, "vault       {}", n(c.vault, "note"));
        let b = &c.bands;
        let _ = writeln!(
            out,
            "decay       {} ({} active, {} fading, {} dormant, {} archived)",
            n(c.decay_entries, "entry"),
            b.active,
            b.fading,
            b.dormant,
            b.archived
        );
        let index = match report.index {
            IndexState::Missing => "not built",
            IndexState::Stale => "stale",
            IndexState::Fresh => "fresh",
        };
        let watcher = if report.watcher {
            " (kept fresh by a watcher: cogmem watch, cogmem mcp or a hook's read server)"
        } else {
            ""
        };
        let _ = writeln!(out, "index       {index}{watcher}");
        if report.uncommitted.is_empty() {
            let _ = writeln!(out, "hand edits  none");
        } else {
            let _ = writeln!(out, "hand edits  {} uncommitted:", report.uncommitted.len());
            for ch in &report.uncommitted {
                let _ = writeln!(out, "  {:<10} {}", ch.state, ch.path);
            }
        }
        if let Some(state) = report.git_state {
            let _ = writeln!(
                out,
                "git         {state} in progress: writes are refused until it is finished or \
                 aborted"
            );
        }
        if !report.unacknowledged_critical.is_empty() {
            let _ = writeln!(
                out,
                "critical    {} unacknowledged:",
                n(report.unacknowledged_critical.len(), "change")
            );
            for c in &report.unacknowledged_critical {
                let _ = writeln!(
                    out,
                    "  {}  {}  {}  +{} -{}{}",
                    c.id,
                    c.date,
                    c.actor,
                    c.added,
                    c.removed,
                    if c.integrity_problem.is_some() { "  INTEGRITY" } else { "" }
                );
            }
        }
        if report.open_flags > 0 {
            let _ = writeln!(
                out,
                "flags       {} open (`cogmem flag list` shows them)",
                report.open_flags
            );
        }
        if !report.recent_commits.is_empty() {
            let _ = writeln!(out, "recent commits:");
            for cm in &report.recent_commits {
                let _ = writeln!(out, "  {} {} {}", render::short(&cm.id), cm.time, cm.subject);
            }
        }
        render::data(&out)?;
    }
    for s in &report.skipped {
        render::warning(ctx.style, &format!("skipped {}", s.error));
    }
    for c in &report.integrity_problems {
        let problem = c.integrity_problem.as_deref().unwrap_or("");
        render::warning(ctx.style, &format!("integrity problem: {}: {problem}", c.id));
    }
    if !report.unacknowledged_critical.is_empty() && !ctx.global.json && !ctx.global.quiet {
        render::status(
            false,
            &format!(
                "\n{} review a change with `git show {}`, then `cogmem audit ack {}` (or `cogmem audit ack` for all)\n",
                ctx.style.hint("hint:"),
                render::short(&report.unacknowledged_critical[0].commit),
                cogmem::shell::quote(&report.unacknowledged_critical[0].id)
            ),
        );
    }
    let problems = !report.skipped.is_empty() || !report.integrity_problems.is_empty();
    Ok(if problems { Exit::Partial } else { Exit::Ok })
}
