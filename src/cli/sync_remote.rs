//! `cogmem sync --remote NAME`: fetch, merge and push through a git remote.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::remote::{self, Outcome, RemoteReport, SyncRemoteOptions};

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # Share memory with another machine through the remote `origin`
  cogmem sync --remote origin
  # Merge what the remote has, but do not push yet
  cogmem sync --remote origin --no-push
  # Sync with another branch of the remote, and read the report as JSON
  cogmem sync --remote backup --branch laptop --json";

/// Sync the workspace with a git remote: fetch, merge both machines' memories, push
///
/// Fetches the remote's branch, brings it into ours and pushes the result. When only one side
/// has new commits the branch simply moves; when both do, a merge commit combines them file by
/// file: episode logs and audit.log keep every entry of both sides in time order, MEMORY.md
/// and entity files keep both sides' bullets, decay-scores.json keeps the later use and the
/// larger count, proposals are renumbered when both machines used a number, and other files
/// take git's line merge.
///
/// If any file cannot be merged, nothing is changed: the conflicting files are listed with what
/// to do, and the command exits 3. The branch's previous tip is kept as
/// `refs/cogmem/pre-sync`. Never prompts: network remotes use the `git` program with your
/// credential helper or ssh-agent. Refuses to run over uncommitted edits (commit them with
/// `cogmem sync` first).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct SyncRemoteArgs {
    /// The git remote to sync with (see `git remote -v`)
    #[arg(long, value_name = "NAME")]
    pub remote: String,
    /// The remote's branch (default: the name of the current branch)
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Fetch and merge, but do not push
    #[arg(long)]
    pub no_push: bool,
}

pub fn run(ctx: &Ctx, args: &SyncRemoteArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let actor = ctx.actor()?;
    let opts = SyncRemoteOptions {
        remote: args.remote.clone(),
        branch: args.branch.clone(),
        push: !args.no_push,
    };
    let report = remote::sync_remote(&ws, clock.as_ref(), &actor, &opts)?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        render::status(ctx.global.quiet, &summary(&report));
    }
    if !report.conflicts.is_empty() {
        let mut out = String::new();
        for c in &report.conflicts {
            let _ = writeln!(out, "{} {}: {}", ctx.style.error("conflict:"), c.path, c.reason);
        }
        let _ = writeln!(
            out,
            "\n{} nothing was changed; combine each file by hand, commit, then run `cogmem sync \
             --remote {}` again (`git diff HEAD {}/{} -- FILE` shows the other side)",
            ctx.style.hint("hint:"),
            report.remote,
            report.remote,
            report.remote_branch,
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), out.as_bytes());
    }
    for w in &report.warnings {
        render::warning(ctx.style, w);
    }
    if let Some(why) = &report.push_error {
        render::warning(
            ctx.style,
            &format!(
                "the push to {} was refused ({}); what was merged stays here, and the next \
                 `cogmem sync --remote {}` pushes it",
                report.remote,
                why.trim().trim_end_matches('.'),
                report.remote
            ),
        );
    }
    Ok(if report.has_problems() { Exit::Partial } else { Exit::Ok })
}

fn summary(r: &RemoteReport) -> String {
    let mut out = String::new();
    let from = format!("{}/{}", r.remote, r.remote_branch);
    let n = r.fetched.len();
    let commits = |n: usize| if n == 1 { "1 commit".to_owned() } else { format!("{n} commits") };
    let _ = match r.outcome {
        Outcome::UpToDate => writeln!(out, "up to date with {from}"),
        Outcome::Ahead => writeln!(out, "{from} has nothing new; {} to send", commits(r.ahead)),
        Outcome::FastForward => writeln!(out, "fast-forwarded to {from} ({} fetched)", commits(n)),
        Outcome::Merged => writeln!(
            out,
            "merged {} from {from} as {}",
            commits(n),
            render::short(r.commit.as_deref().unwrap_or(""))
        ),
        Outcome::Conflict => {
            writeln!(out, "{} from {from} cannot be merged automatically", commits(n))
        }
    };
    for f in &r.merged {
        let _ = writeln!(out, "  {:<12} {}", f.strategy.as_str(), f.path);
    }
    for p in &r.renumbered {
        let _ = writeln!(out, "  proposal #{} from {from} is now #{}", p.from, p.to);
    }
    if r.pushed {
        let _ = writeln!(out, "pushed {} to {from}", r.branch);
    }
    out
}
