//! `cogmem audit` (alias `log`).

use clap::Args;
use cogmem::audit::{Action, AuditFilter};
use cogmem::error::InputError;
use cogmem::ops::audit as op;

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # What agents running as `bot` changed in the last week
  cogmem audit --since 7d --actor bot
  # Entity files created, as JSON
  cogmem audit --file memory/graph --action create --json
  # Changes to critical files such as SOUL.md, and their alerts
  cogmem log --critical
  # The last 20 changes to MEMORY.md
  cogmem audit --file MEMORY.md --limit 20";

/// Query the audit log: who changed which file, when, and why
///
/// Reads memory/meta/audit.log, one line per changed file, oldest first. Filters combine.
/// Malformed lines are reported with their line number and skipped (exit 3).
///
/// Here the global `--actor NAME` is a filter: only lines by that actor, or by actors under it
/// (`--actor bot` matches `bot:trigger-remember`).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct AuditArgs {
    /// Only lines since a date (`2026-02-02`), a time (RFC 3339) or an age (`90m`, `12h`, `7d`, `2w`)
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only lines with this action (create, edit, append, archive, …)
    #[arg(long, value_name = "ACTION")]
    action: Option<String>,
    /// Only lines about this file or files under this folder
    #[arg(long, value_name = "PATH")]
    file: Option<String>,
    /// Only critical-file changes and their alerts
    #[arg(long)]
    critical: bool,
    /// Only the last N matching lines
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

pub fn run(ctx: &Ctx, args: &AuditArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let since = args.since.as_deref().map(|s| op::parse_since(s, clock.now())).transpose()?;
    let action = match args.action.as_deref() {
        None => None,
        Some(a) => Some(Action::parse(a).ok_or_else(|| {
            InputError::Unknown {
                what: "action",
                value: a.to_owned(),
                expected: Action::ALL
                    .iter()
                    .map(|a| a.as_str().to_ascii_lowercase())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?),
    };
    let filter = AuditFilter {
        since,
        actor: ctx.global.actor.clone(),
        action,
        file: args.file.clone(),
        critical: args.critical,
    };
    let report = op::query(&ws, &filter, args.limit)?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let mut out = String::new();
        for l in &report.lines {
            out.push_str(&l.format());
            out.push('\n');
        }
        render::data(&out)?;
    }
    for s in &report.skipped {
        render::warning(ctx.style, &format!("skipped {}", s.error));
    }
    Ok(if report.skipped.is_empty() { Exit::Ok } else { Exit::Partial })
}
