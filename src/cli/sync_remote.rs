//! `cogmem sync --remote NAME`: fetch, merge and push through a git remote (reached through
//! `cogmem sync`, which commits hand edits first).

use std::fmt::Write as _;

use cogmem::ops::remote::{self, Outcome, RemoteReport, SyncRemoteOptions};

use super::exit::Exit;
use super::{Ctx, render};

/// What `cogmem sync --remote` was asked.
#[derive(Debug)]
pub struct SyncRemoteArgs {
    /// The git remote to sync with.
    pub remote: String,
    /// The remote's branch (default: the name of the current branch).
    pub branch: Option<String>,
    /// Fetch and merge, but do not push.
    pub no_push: bool,
    /// Give way to a purge's rewritten history (see `cogmem sync --help`).
    pub force_rewritten: bool,
}

pub fn run(ctx: &Ctx, args: &SyncRemoteArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let actor = ctx.actor()?;
    let opts = SyncRemoteOptions {
        remote: args.remote.clone(),
        branch: args.branch.clone(),
        push: !args.no_push,
        force_rewritten: args.force_rewritten,
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
    if let Some(a) = &report.adopted {
        super::sync::warn_adopted_secrets(ctx.style, a);
    }
    if let Some(e) = &report.adopt_error {
        render::warning(
            ctx.style,
            &format!(
                "the commits made outside cogmem that {} brought in are not adopted yet ({e}); \
                 the next command that writes adopts them",
                report.remote
            ),
        );
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
        Outcome::ForcePushed => writeln!(
            out,
            "replaced {from}'s history, which still held purged text, with ours ({} dropped \
             from it); every other clone must now run `cogmem sync --remote {} --force-rewritten`",
            commits(n),
            r.remote
        ),
        Outcome::TookRewritten => writeln!(
            out,
            "took {from}'s rewritten history in place of ours, which held purged text; our old \
             tip is kept in {}",
            r.backup.as_deref().unwrap_or("?")
        ),
    };
    for f in &r.merged {
        let _ = writeln!(out, "  {:<12} {}", f.strategy.as_str(), f.path);
    }
    for p in &r.renumbered {
        let _ = writeln!(out, "  proposal #{} from {from} is now #{}", p.from, p.to);
    }
    if let Some(a) = &r.adopted {
        out += &super::sync::adopted(a);
        out += &super::sync::adopted_commits(a);
    }
    if r.pushed && r.outcome != Outcome::ForcePushed {
        let _ = writeln!(out, "pushed {} to {from}", r.branch);
    }
    for c in &r.erase_commands {
        let _ = writeln!(out, "  {c}");
    }
    out
}
