//! `cogmem sync`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::sync::{self as op, SyncOptions, SyncReport};

use super::Ctx;
use super::exit::Exit;
use super::render::{self, Style};

const EXAMPLES: &str = "Examples:
  # Commit what you edited by hand since the last commit
  cogmem sync
  # See what would be committed and what would be left, without writing
  cogmem sync --dry-run
  # Commit a rewrite of an existing episode entry (episodes are append-only)
  cogmem sync --force
  # As JSON, for a script or an agent
  cogmem sync --json
  # Share memory with another machine through the remote `origin` (hand edits first)
  cogmem sync --remote origin
  # Merge what the remote has, but do not push yet
  cogmem sync --remote origin --no-push
  # Sync with another branch of the remote, and read the report as JSON
  cogmem sync --remote backup --branch laptop --json
  # After a purge: replace the remote's old history with the rewritten one
  cogmem sync --remote origin --force-rewritten";

/// Commit the files you edited by hand since the last commit
///
/// Finds every file that differs from HEAD (new, edited or deleted), checks each with the
/// parser of its format (episode and entity files, MEMORY.md and its token budget,
/// decay-scores.json, pending-memories.md, the audit log, front matter), and commits the valid
/// ones as one commit with one audit line per file (CREATE, EDIT or DELETE). The actor is
/// `manual` unless `--actor` or COGMEM_ACTOR says otherwise.
///
/// A malformed file, or one that cannot be read (over `limits.file_bytes`), is reported with its
/// line, what is wrong and what to do, and left uncommitted on disk (exit 3). Episodes are append-only: appended entries are fine, but a
/// rewritten or deleted entry is left unless `--force`. New memories get decay entries, and the
/// graph index and search index are updated, as `cogmem remember` does. A hand edit of a
/// critical file (SOUL.md, IDENTITY.md) is flagged like any other change to it and listed by
/// `cogmem status` until acknowledged.
///
/// Editor swap and backup files (`*.swp`, `*~`, `4913`), the `.cogmem-tmp-*` files a killed
/// write leaves (`cogmem doctor --fix` removes them) and `.cogmem/` are ignored. Nothing to sync
/// exits 0.
///
/// With `--remote NAME`, hand edits are committed first, then the remote's branch is fetched,
/// brought into ours and the result pushed. When both machines have new commits, a merge
/// commit combines them file by file: episode logs and audit.log keep every entry of both sides
/// in time order, MEMORY.md and entity files keep both sides' bullets, decay-scores.json keeps
/// the later use and the larger count, proposals are renumbered when both machines used a
/// number, and other files take git's line merge. If any file cannot be merged, nothing is
/// changed: the conflicting files are listed with what to do (exit 3). The previous tip is kept
/// as `refs/cogmem/pre-sync`. Refused before anything changes (exit 4): a remote history that
/// commits a symbolic link or a submodule, or whose audit log lost or changed an earlier line
/// (other than by `cogmem audit compact`). Never prompts: network remotes use the `git` program
/// with your credential helper or ssh-agent.
///
/// After `forget --purge`, `memory/meta/purged` holds hashes of the purged text, and a sync
/// that would bring that text back is refused (exit 4): when the remote's history still holds
/// it, `--force-rewritten` force-pushes our rewritten history over it; when ours holds text that
/// another machine purged, `--force-rewritten` takes the remote's history in place of ours
/// (our old tip is kept under `refs/cogmem/pre-purge/` with the commands that erase it).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct SyncArgs {
    /// Commit rewrites and deletions of existing episode entries too
    #[arg(long)]
    force: bool,
    /// Show what would be committed and what would be left, without writing
    #[arg(long, conflicts_with = "remote")]
    dry_run: bool,
    /// Then sync with this git remote: fetch, merge both machines' memories, push
    #[arg(long, value_name = "NAME")]
    remote: Option<String>,
    /// The remote's branch (default: the name of the current branch)
    #[arg(long, value_name = "BRANCH", requires = "remote")]
    branch: Option<String>,
    /// With --remote: fetch and merge, but do not push
    #[arg(long, requires = "remote")]
    no_push: bool,
    /// With --remote, after a purge: replace the remote's history with ours when it still
    /// holds purged text (a force push), or ours with the remote's when only ours does
    #[arg(long, requires = "remote", conflicts_with = "no_push")]
    force_rewritten: bool,
    /// Commit new lines that look like a credential although the actor is not a person
    #[arg(long)]
    allow_secret: bool,
}

pub fn run(ctx: &Ctx, args: &SyncArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let opts = SyncOptions {
        actor: ctx.actor()?,
        force: args.force,
        dry_run: args.dry_run,
        allow_secret: args.allow_secret,
    };
    if let Some(remote) = &args.remote {
        // Refused before the hand edits are committed, as docs/cli.md says.
        cogmem::ops::remote::check_remote(&ws, remote)?;
    }
    let report = op::sync(&ws, &opts, clock.as_ref())?;
    if let Some(remote) = &args.remote {
        // Hand edits first: the remote sync refuses to run over uncommitted files.
        if !ctx.global.json && (report.commit.is_some() || report.adopted.is_some()) {
            render::status(ctx.global.quiet, &outcome(&report));
        }
        warn_secrets(ctx.style, &report);
        if !report.left.is_empty() {
            warn_left(ctx.style, &report);
            return Ok(Exit::Partial);
        }
        let remote_args = super::sync_remote::SyncRemoteArgs {
            remote: remote.clone(),
            branch: args.branch.clone(),
            no_push: args.no_push,
            force_rewritten: args.force_rewritten,
        };
        return super::sync_remote::run(ctx, &remote_args);
    }
    if ctx.global.json {
        render::json(&report)?;
    } else {
        if args.dry_run {
            render::data(&dry_run_text(&report))?;
        }
        render::status(ctx.global.quiet, &outcome(&report));
        warn_secrets(ctx.style, &report);
        warn_left(ctx.style, &report);
    }
    Ok(if report.left.is_empty() { Exit::Ok } else { Exit::Partial })
}

fn dry_run_text(report: &SyncReport) -> String {
    let mut out = String::new();
    for f in &report.committed {
        let _ = writeln!(out, "{:<7} {} — {}", f.action.as_str(), f.path, f.summary);
    }
    if !report.decay_entries.is_empty() {
        let _ = writeln!(out, "decay   {} new entries", report.decay_entries.len());
    }
    if !report.decay_archived.is_empty() {
        let _ = writeln!(out, "decay   {} entries archived", report.decay_archived.len());
    }
    for id in &report.decay_revived {
        let _ = writeln!(out, "decay   {id} brought back (it had been forgotten; written again)");
    }
    for c in &report.decay_carried {
        let _ = writeln!(out, "decay   {} carried to {} (renamed)", c.from, c.to);
    }
    if report.graph_index {
        let _ = writeln!(out, "graph   memory/graph/index.md regenerated");
    }
    for l in &report.left {
        let _ = writeln!(out, "LEFT    {}: {}", l.location(), l.problem);
    }
    out
}

/// `1 commit`, `2 commits`.
pub fn commits(n: usize) -> String {
    if n == 1 { "1 commit".to_owned() } else { format!("{n} commits") }
}

/// The line an adoption prints on stderr (`adopted 1 commit made outside cogmem (commit
/// ID)`), or nothing when it made no commit.
pub fn adopted(r: &cogmem::ops::adopt::AdoptReport) -> String {
    match &r.commit {
        Some(id) => format!(
            "adopted {} made outside cogmem (commit {})\n",
            commits(r.commits.len()),
            render::short(id)
        ),
        None => String::new(),
    }
}

/// One line per adopted (or waiting) commit: `  ID by AUTHOR: SUBJECT`.
pub fn adopted_commits(r: &cogmem::ops::adopt::AdoptReport) -> String {
    let mut out = String::new();
    for c in &r.commits {
        let _ = writeln!(out, "  {} by {}: {}", render::short(&c.commit), c.author, c.subject);
    }
    out
}

/// The one-line outcome for stderr.
pub fn outcome(report: &SyncReport) -> String {
    let files = |n: usize| if n == 1 { "1 file".to_owned() } else { format!("{n} files") };
    let mut adopted = String::new();
    if let Some(a) = &report.adopted {
        adopted = self::adopted(a);
        if a.commit.is_none() {
            let n = commits(a.commits.len());
            adopted = format!("dry run: would adopt {n} made outside cogmem\n");
        }
        adopted += &adopted_commits(a);
    }
    if let Some(e) = &report.adopt_error {
        let _ = writeln!(adopted, "warning: commits made outside cogmem not adopted: {e}");
    }
    if report.is_empty() {
        if report.adopted.is_some() {
            return adopted;
        }
        return format!("{adopted}nothing to sync: no hand edits since the last commit\n");
    }
    let mut msg = adopted;
    msg += &match (&report.commit, report.dry_run) {
        (Some(id), _) => {
            format!("synced {} (commit {})", files(report.committed.len()), render::short(id))
        }
        (None, true) => format!("dry run: would sync {}", files(report.committed.len())),
        (None, false) => "nothing committed".to_owned(),
    };
    if !report.left.is_empty() {
        let _ = write!(msg, "; {} left uncommitted", files(report.left.len()));
    }
    msg.push('\n');
    if report.commit.is_some() {
        for f in &report.committed {
            let _ = writeln!(msg, "  {:<7} {}", f.action.as_str(), f.path);
        }
    }
    msg
}

/// Warns about each file left, with its hint.
/// Warns of what looks like a credential in the lines a sync committed (or, on a dry run, would
/// commit) and in the commits it adopted: one `warning:` per place, naming the file, the line
/// and the rule (and the commit), never the secret.
pub fn warn_secrets(style: Style, report: &SyncReport) {
    if let Some(a) = &report.adopted {
        warn_adopted_secrets(style, a);
    }
    let done = if report.dry_run { "would be committed" } else { "committed" };
    for s in &report.secrets {
        warn_secret(style, &format!("{}; {done}", s.describe()));
    }
}

/// Warns of what looks like a credential in the commits made outside cogmem just adopted.
pub fn warn_adopted_secrets(style: Style, report: &cogmem::ops::adopt::AdoptReport) {
    let done = if report.commit.is_some() { "adopted" } else { "not adopted yet" };
    for s in &report.secrets {
        warn_secret(style, &format!("{}; {done}", s.describe()));
    }
}

fn warn_secret(style: Style, text: &str) {
    let hint = "move it out of memory and erase it from history with `cogmem forget --purge`";
    render::warning(style, &format!("{text}\n  {} {hint}", style.hint("hint:")));
}

pub fn warn_left(style: Style, report: &SyncReport) {
    for l in &report.left {
        render::warning(
            style,
            &format!("left {}: {}\n  {} {}", l.location(), l.problem, style.hint("hint:"), l.hint),
        );
    }
}
