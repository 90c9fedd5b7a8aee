//! `cogmem audit` (alias `log`), `cogmem audit ack` and `cogmem audit compact`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use cogmem::audit::AuditFilter;
use cogmem::ops::audit as op;

use super::exit::Exit;
use super::{Ctx, render, vocab};

const EXAMPLES: &str = "Examples:
  # What agents running as `bot` changed in the last week
  cogmem audit --since 7d --actor bot
  # Entity files created, as JSON
  cogmem audit --file memory/graph --action create --json
  # Changes to critical files such as SOUL.md, and their alerts
  cogmem log --critical
  # The last 20 changes to MEMORY.md
  cogmem audit --file MEMORY.md --limit 20
  # Acknowledge a reviewed change to SOUL.md (ids come from `cogmem status`)
  cogmem audit ack 3f2a1b4c
  # Move lines older than 90 days into monthly digests
  cogmem audit compact";

const ACK_EXAMPLES: &str = "Examples:
  # Acknowledge every critical change of one commit
  cogmem audit ack 3f2a1b4c
  # Acknowledge one file of a commit that changed two
  cogmem audit ack 3f2a1b4c:SOUL.md
  # Acknowledge everything `cogmem status` lists
  cogmem audit ack";

const COMPACT_EXAMPLES: &str = "Examples:
  # Move audit lines older than 90 days into monthly digests
  cogmem audit compact
  # See what a one-year retention would move, without writing
  cogmem audit compact --older-than 365d --dry-run";

/// Query the audit log: who changed which file, when, and why
///
/// Reads memory/meta/audit.log, one line per changed file, oldest first. Filters combine.
/// Malformed lines are reported with their line number and skipped (exit 3).
///
/// Here the global `--actor NAME` is a filter: only lines by that actor, or by actors under it
/// (`--actor bot` matches `bot:trigger-remember`).
///
/// `cogmem audit ack` acknowledges changes to critical files; `cogmem audit compact` moves old
/// lines into monthly digests.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES, args_conflicts_with_subcommands = true)]
pub struct AuditArgs {
    #[command(subcommand)]
    command: Option<AuditCommand>,
    #[command(flatten)]
    query: QueryArgs,
}

impl AuditArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        match &self.command {
            None => false,
            Some(AuditCommand::Ack(_)) => true,
            Some(AuditCommand::Compact(c)) => !c.dry_run,
        }
    }
}

#[derive(Subcommand, Debug)]
enum AuditCommand {
    Ack(AckArgs),
    Compact(CompactArgs),
}

/// Acknowledge changes to critical files that `cogmem status` lists
///
/// Every commit that changes a critical file (SOUL.md, IDENTITY.md, and those named in
/// `audit.critical_files`) stays listed by `cogmem status` until it is acknowledged. ID is a
/// commit id prefix (at least 4 characters; every critical file of that commit) or
/// `<commit>:<file>` as status shows it; without ID, every listed change is acknowledged.
///
/// Writes one ACK line per change to the audit log, by the acting actor, in one commit, so the
/// acknowledgement travels with clones of the workspace.
#[derive(Args, Debug)]
#[command(after_long_help = ACK_EXAMPLES)]
struct AckArgs {
    /// The change to acknowledge: a commit id prefix or `<commit>:<file>` (default: all)
    #[arg(value_name = "ID")]
    id: Option<String>,
}

/// Move old audit lines into monthly digests in memory/meta/audit-archive.md
///
/// Lines older than `--older-than` (by the clock) leave audit.log; each month gets a digest in
/// memory/meta/audit-archive.md: how many lines, counts by action and by actor, and the notable
/// events word for word (critical changes and alerts, acknowledgements, ARCHIVE, MERGE,
/// supersessions, reflections). One commit; the moved lines stay in git history
/// (`git log -p -- memory/meta/audit.log`). Running it again changes nothing.
#[derive(Args, Debug)]
#[command(after_long_help = COMPACT_EXAMPLES)]
struct CompactArgs {
    /// Move lines older than this age (`90d`, `12w`), date (`2026-09-01`) or relative day
    /// (`last month`: its first day)
    #[arg(long, value_name = "AGE", default_value = "90d")]
    older_than: String,
    /// Show what would move, without writing
    #[arg(long)]
    dry_run: bool,
}

/// The filters of the plain `cogmem audit` query.
#[derive(Args, Debug)]
struct QueryArgs {
    /// Only lines since a date (`2026-02-02`), a time (RFC 3339), an age (`90m`, `12h`, `7d`,
    /// `2w`) or relative words (`yesterday`, `last week` from its Monday, `3 days ago`, `先週`)
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only lines with this action (any case: `archive` is `ARCHIVE`)
    #[arg(long, value_name = "ACTION", value_parser = vocab::actions(), ignore_case = true)]
    action: Option<String>,
    /// Only lines about this file or files under this folder
    #[arg(long, value_name = "PATH")]
    file: Option<String>,
    /// Only critical-file changes, their alerts and acknowledgements
    #[arg(long)]
    critical: bool,
    /// Only the last N matching lines
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

pub fn run(ctx: &Ctx, args: &AuditArgs) -> cogmem::Result<Exit> {
    match &args.command {
        Some(AuditCommand::Ack(a)) => run_ack(ctx, a),
        Some(AuditCommand::Compact(a)) => run_compact(ctx, a),
        None => run_query(ctx, &args.query),
    }
}

fn run_ack(ctx: &Ctx, args: &AckArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let report = op::ack(&ws, args.id.as_deref(), ctx.actor()?, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = String::new();
    match &report.commit {
        None => msg.push_str("nothing to acknowledge\n"),
        Some(id) => {
            let _ = writeln!(
                msg,
                "acknowledged {} (commit {})",
                if report.acknowledged.len() == 1 {
                    "1 critical change".to_owned()
                } else {
                    format!("{} critical changes", report.acknowledged.len())
                },
                render::short(id)
            );
            for c in &report.acknowledged {
                let _ = writeln!(
                    msg,
                    "  {}  {}  {}  +{} -{}",
                    c.id, c.date, c.actor, c.added, c.removed
                );
            }
        }
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}

fn run_compact(ctx: &Ctx, args: &CompactArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let cutoff = op::parse_since("--older-than", &args.older_than, clock.now())?;
    let report = op::compact(&ws, cutoff, ctx.actor()?, clock.as_ref(), args.dry_run)?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let msg = if report.moved == 0 {
        format!("nothing to compact: no audit lines before {}\n", report.cutoff)
    } else {
        format!(
            "{} {} audit lines before {} into digests for {}; {} kept{}\n",
            if report.dry_run { "would move" } else { "moved" },
            report.moved,
            report.cutoff,
            report.months.join(", "),
            report.kept,
            match &report.commit {
                Some(id) => format!(" (commit {})", render::short(id)),
                None => " (dry run: nothing written)".to_owned(),
            }
        )
    };
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}

fn run_query(ctx: &Ctx, args: &QueryArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let since =
        args.since.as_deref().map(|s| op::parse_since("--since", s, clock.now())).transpose()?;
    let action = args.action.as_deref().map(op::parse_action).transpose()?;
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
