//! `cogmem upkeep`: decay, audit retention, the consolidation and reflection notices and a
//! search-index refresh, in one commit, for a timer or a host hook.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::audit as audit_op;
use cogmem::ops::upkeep as op;

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # See what the upkeep would change, writing nothing
  cogmem upkeep --dry-run
  # Run it from cron or a systemd timer: only notices and problems are printed
  cogmem upkeep -q --workspace ~/agent-memory
  # Keep a year of audit lines instead of 90 days
  cogmem upkeep --audit-older-than 365d
  # The whole report as JSON
  cogmem upkeep --json";

/// Run the routine upkeep: decay, audit retention, notices, index refresh
///
/// One command for a timer (cron, a systemd timer) or a host hook. It recomputes every decay
/// score (what `cogmem decay` does), moves audit lines older than `--audit-older-than` into the
/// monthly digests (what `cogmem audit compact` does), says when a self-image consolidation or
/// a reflection is due or waits for the user, and brings the search index up to date.
///
/// Everything it changes is ONE commit by `system:upkeep`; when nothing changed there is no
/// commit. It never starts a reflection or a consolidation: those need the user. Notices go to
/// stdout (so `-q` under cron prints only them and problems); a file it cannot read is reported
/// with its line and left out, and the rest goes on (exit 3).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct UpkeepArgs {
    /// Show what would be done; write nothing (not even the search index)
    #[arg(long)]
    dry_run: bool,
    /// Move audit lines older than this age (`90d`, `12w`), date (`2026-09-01`) or relative day
    /// into the monthly digests
    #[arg(long, value_name = "AGE", default_value = "90d")]
    audit_older_than: String,
}

impl UpkeepArgs {
    /// Tells whether the command may commit (and so adopts outside commits first): not a dry run.
    pub fn writes(&self) -> bool {
        !self.dry_run
    }
}

pub fn run(ctx: &Ctx, args: &UpkeepArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let audit_cutoff =
        audit_op::parse_since("--audit-older-than", &args.audit_older_than, clock.now())?;
    let opts = op::UpkeepOptions { audit_cutoff, dry_run: args.dry_run };
    let report = op::run(&ws, &opts, clock.as_ref())?;
    let partial = !report.skipped.is_empty() || report.index.error.is_some();
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let mut out = String::new();
        for n in &report.notices {
            let _ = writeln!(out, "{n}");
        }
        render::data(&out)?;
        render::status(ctx.global.quiet, &summary(&report));
    }
    for s in &report.skipped {
        render::warning(ctx.style, &format!("skipped {}", s.error));
    }
    // An index that failed on a file listed above says nothing new.
    if let Some(e) =
        report.index.error.as_ref().filter(|e| !report.skipped.iter().any(|s| s.error == **e))
    {
        render::warning(ctx.style, &format!("the search index was not refreshed: {e}"));
    }
    Ok(if partial { Exit::Partial } else { Exit::Ok })
}

/// The steps in words, for stderr.
fn summary(r: &op::UpkeepReport) -> String {
    let mut msg = String::new();
    match &r.decay {
        Some(d) => {
            let _ =
                write!(msg, "decay: {} scored, {} band changes", d.entries, d.transitions.len());
            if d.folded_uses > 0 {
                let _ = write!(msg, ", {} uses folded", d.folded_uses);
            }
            if !d.created.is_empty() {
                let _ = write!(msg, ", {} entries created", d.created.len());
            }
            msg.push('\n');
            for t in &d.transitions {
                let _ = writeln!(msg, "  {}", super::decay::transition_line(t, d.clock));
            }
        }
        None => msg.push_str("decay: skipped (the decay state cannot be read)\n"),
    }
    let a = &r.audit;
    if a.moved == 0 {
        let _ = writeln!(msg, "audit: no lines before {} to digest", a.cutoff);
    } else {
        let _ = writeln!(
            msg,
            "audit: {} {} lines before {} into digests for {}; {} kept",
            if r.dry_run { "would move" } else { "moved" },
            a.moved,
            a.cutoff,
            a.months.join(", "),
            a.kept
        );
    }
    match &r.index.refresh {
        Some(i) => {
            let _ = writeln!(
                msg,
                "index: {} ({} files re-read, {} removed, {} documents)",
                if i.rebuilt { "rebuilt" } else { "refreshed" },
                i.changed.len(),
                i.removed.len(),
                i.documents
            );
        }
        None if r.dry_run => {
            let _ = writeln!(msg, "index: {} (not refreshed on a dry run)", state(r.index.before));
        }
        None => {}
    }
    match (&r.commit, r.dry_run) {
        (_, true) => msg.push_str("dry run: nothing written\n"),
        (Some(id), _) => {
            let _ = writeln!(msg, "committed {} as {}", render::short(id), op::ACTOR);
        }
        (None, _) => msg.push_str("nothing to commit\n"),
    }
    msg
}

fn state(s: cogmem::index::IndexState) -> &'static str {
    match s {
        cogmem::index::IndexState::Missing => "missing",
        cogmem::index::IndexState::Stale => "stale",
        cogmem::index::IndexState::Fresh => "fresh",
    }
}
