//! `cogmem verify` and `cogmem doctor`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::doctor::{self, Report};

use super::exit::Exit;
use super::{Ctx, render};

const VERIFY_EXAMPLES: &str = "Examples:
  # Check the workspace; exit 0 when clean, 3 when something is wrong
  cogmem verify
  # The findings as JSON, for CI
  cogmem verify --json
  # In .git/hooks/pre-commit, where the edits being committed are not committed yet
  cogmem verify --allow-uncommitted --quiet";

const DOCTOR_EXAMPLES: &str = "Examples:
  # The same checks as verify, each finding saying whether --fix repairs it
  cogmem doctor
  # Repair what can be repaired without losing anything, in one commit
  cogmem doctor --fix";

/// Check the workspace and change nothing; exit 3 if anything is wrong
///
/// Checks the format of every file, decay entries against memories, links to missing
/// entities, MEMORY.md's token budget, the search index, uncommitted edits, episode entries
/// rewritten after they were committed, commits and audit lines that lack each other,
/// critical-file changes nobody acknowledged, stale lock files, and changes a crashed process
/// left half-made. Exit 0 when clean, 3 with findings: fit for CI and pre-commit hooks.
#[derive(Args, Debug)]
#[command(after_long_help = VERIFY_EXAMPLES)]
pub struct VerifyArgs {
    /// Do not count uncommitted edits as findings (for a git pre-commit hook)
    #[arg(long)]
    allow_uncommitted: bool,
}

/// Check the workspace like verify, and with --fix repair what can be repaired
///
/// Without --fix it reports like `cogmem verify`, saying for each finding whether --fix can
/// repair it. `--fix` takes the workspace lock (taking over one left by a dead process), puts
/// back files an interrupted change left (first committing them as they were to a ref
/// refs/cogmem/recovered/NAME, off every branch, and copying them to .cogmem/recovered/), removes
/// stale lock and temporary files, creates missing decay entries and marks entries whose
/// memory is gone as archived (one commit by `system:doctor`), and brings the search index up
/// to date. Exit 0 when clean afterwards, 3 when findings remain.
#[derive(Args, Debug)]
#[command(after_long_help = DOCTOR_EXAMPLES)]
pub struct DoctorArgs {
    /// Repair what can be repaired without losing anything (one commit)
    #[arg(long)]
    fix: bool,
}

impl DoctorArgs {
    /// Tells whether it may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        self.fix
    }
}

pub fn run_verify(ctx: &Ctx, args: &VerifyArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace_as_found()?;
    let report = doctor::verify_with(&ws, args.allow_uncommitted)?;
    print(ctx, &report, false)
}

pub fn run_doctor(ctx: &Ctx, args: &DoctorArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace_as_found()?;
    let report = if args.fix {
        let clock = ctx.clock()?;
        doctor::fix(&ws, clock.as_ref())?
    } else {
        doctor::verify(&ws)?
    };
    print(ctx, &report, true)
}

fn print(ctx: &Ctx, report: &Report, doctor: bool) -> cogmem::Result<Exit> {
    if ctx.global.json {
        render::json(report)?;
    } else {
        let mut out = String::new();
        for r in &report.repaired {
            let _ = writeln!(out, "repaired  {:<12} {}: {}", r.check, r.path, r.message);
        }
        if let Some(c) = &report.commit {
            let _ = writeln!(out, "commit    {}", render::short(c));
        }
        for r in &report.recovery_refs {
            let _ = writeln!(
                out,
                "the files put back, as they were, are committed in {r} \
                 (get one back with `git checkout {r} -- PATH`)"
            );
        }
        if let Some(dir) = &report.recovered {
            let _ = writeln!(out, "copies of the files put back are in {dir}");
        }
        for f in &report.findings {
            let fix = if !doctor {
                ""
            } else if f.fixable {
                "  [--fix repairs this]"
            } else {
                "  [repair by hand]"
            };
            let _ = writeln!(out, "{:<12} {}: {}{fix}", f.check, f.location(), f.message);
        }
        for w in &report.warnings {
            let _ = writeln!(out, "{:<12} {}: warning: {}", w.check, w.location(), w.message);
        }
        let quiet = ctx.global.quiet;
        for n in report.not_checked.iter().filter(|_| !quiet) {
            let _ = writeln!(out, "{}: {}", n.check, n.reason);
        }
        let ran = report.checks.len() - report.not_checked.len();
        if quiet {
            // Findings and repairs only.
        } else if report.is_clean() && !report.warnings.is_empty() {
            let n = report.warnings.len();
            let _ = writeln!(
                out,
                "clean: {ran} checks found nothing wrong ({n} warning{})",
                if n == 1 { "" } else { "s" }
            );
        } else if report.is_clean() {
            let _ = writeln!(out, "clean: {ran} checks found nothing wrong");
        } else {
            let fixable = report.findings.iter().filter(|f| f.fixable).count();
            let n = report.findings.len();
            let _ = write!(out, "{n} finding{}", if n == 1 { "" } else { "s" });
            if fixable > 0 && !report.repaired.is_empty() {
                let _ = write!(out, " ({fixable} could not be repaired now)");
            } else if fixable > 0 {
                let _ = write!(out, " ({fixable} can be repaired by `cogmem doctor --fix`)");
            }
            out.push('\n');
        }
        render::data(&out)?;
    }
    if let Some(b) = &report.busy {
        let who = b.pid.map_or_else(
            || "another cogmem command".to_owned(),
            |pid| format!("another cogmem command (process {pid})"),
        );
        render::warning(
            ctx.style,
            &format!("{who} was running; files it is writing may show up as findings"),
        );
    }
    Ok(if report.is_clean() { Exit::Ok } else { Exit::Partial })
}
