//! `cogmem forget` and `cogmem restore`.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};

use clap::Args;
use cogmem::audit::Actor;
use cogmem::ops::forget::{self, Candidate, ForgetOptions};
use cogmem::ops::id::Match;
use cogmem::ops::purge::{self, PurgeOptions};

use super::exit::Exit;
use super::{Ctx, render};

const FORGET_EXAMPLES: &str = "Examples:
  # List the memories about Lisbon with their ids (on a terminal, asks which to forget)
  cogmem forget Lisbon
  # Forget a core memory bullet by id, without asking
  cogmem forget --id core:active-context:7fc6c745 --yes
  # Show what would be forgotten, changing nothing
  cogmem forget --id entity:person--bob --dry-run
  # Delete Bob's entity card from the files (git history keeps it)
  cogmem forget --id entity:person--bob --permanent --yes
  # Erase a memory from the files and from every commit: list first, then rewrite history
  cogmem forget --purge core:critical-facts:1a2b3c4d --dry-run
  cogmem forget --purge core:critical-facts:1a2b3c4d --yes
  # Erase a text that is only in history now (a memory forgotten or deleted earlier)
  cogmem forget --purge-text \"the old gate code is 4711\" --dry-run";

const RESTORE_EXAMPLES: &str = "Examples:
  # Forget a core memory bullet, then put it back exactly as it was
  cogmem forget --id core:active-context:7fc6c745 --yes
  cogmem restore core:active-context:7fc6c745
  # Find the ids of forgotten memories in the audit log
  cogmem audit --action archive";

/// Forget a memory: archive it, so it no longer comes back in recall
///
/// Give a QUERY to see the memories that match it, each with its id; on a terminal you are
/// asked which to forget. Agents pass `--id ID --yes`. Forgetting archives: the decay score
/// becomes 0 and the status `archived`, the bullet leaves MEMORY.md and the rows leave the
/// graph index, and the files keep their content. `cogmem restore ID` undoes it exactly.
///
/// `--permanent` removes the content from the memory files instead. It needs an exact `--id`
/// and `--yes` (or, on a terminal, typing the id again). Git history and the audit log's
/// summaries still hold what was deleted (`--purge` erases those too). Pinned memories (the
/// vault) are refused without `--force` (exit 4).
///
/// `--purge ID` erases a memory for privacy: it deletes it like `--permanent`, then rewrites
/// every commit of every local branch and tag so none holds its text, title or file name (in
/// any form cogmem wrote them; replaced by `[purged]`), keeps the old history under
/// `refs/cogmem/pre-purge/STAMP/`, and records a tombstone (hashes, never the text) in
/// `memory/meta/purged` with a PURGE audit line. A memory already forgotten or deleted is found
/// in history by its id; `--purge-text TEXT` erases any text. Without `--yes` it only lists the
/// commits and files it would rewrite. A purge that was interrupted is finished by the next
/// command. To really erase, delete the backup refs, expire the reflogs and let git collect
/// garbage: the command prints the git commands.
#[derive(Args, Debug)]
#[command(after_long_help = FORGET_EXAMPLES)]
pub struct ForgetArgs {
    /// Words to find the memory by
    query: Option<String>,
    /// Id of a memory to forget (can be repeated): an entity also as `TYPE--SLUG`; the start of
    /// exactly one id, except with --permanent
    #[arg(long = "id", value_name = "ID")]
    ids: Vec<String>,
    /// Forget without asking
    #[arg(long)]
    yes: bool,
    /// Show what would be forgotten; change nothing
    #[arg(long)]
    dry_run: bool,
    /// Remove the content from the memory files (git history and the audit log keep it)
    #[arg(long)]
    permanent: bool,
    /// Forget pinned (vault) memories too
    #[arg(long)]
    force: bool,
    /// Erase the memory with this id (whole; an entity also as `TYPE--SLUG`) from the files and
    /// rewrite git history without its text
    /// (lists what it would rewrite unless --yes)
    #[arg(long, value_name = "ID", conflicts_with_all = ["query", "ids", "permanent"])]
    purge: Option<String>,
    /// Erase this text wherever it appears, in the files and in history, for memories already
    /// forgotten or text written by hand (lists what it would rewrite unless --yes)
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["query", "ids", "permanent", "purge"])]
    purge_text: Option<String>,
}

impl ForgetArgs {
    /// Tells whether the command may commit, and so adopts outside commits first: only with
    /// `--yes` and without `--dry-run`. Listing matches changes nothing; a forget confirmed at
    /// the terminal's prompt adopts in the operation (`ops::forget`), as every forget does.
    pub fn writes(&self) -> bool {
        self.yes && !self.dry_run
    }
}

/// Put back a forgotten memory, exactly as it was
#[derive(Args, Debug)]
#[command(after_long_help = RESTORE_EXAMPLES)]
pub struct RestoreArgs {
    /// The id of the forgotten memory (an entity also as `TYPE--SLUG`), or the start of
    /// exactly one forgotten memory's id
    id: String,
}

/// `--id A --id B`, each id quoted for the shell.
fn id_flags(ids: &[String]) -> String {
    ids.iter().map(|id| format!("--id {}", cogmem::shell::quote(id))).collect::<Vec<_>>().join(" ")
}

fn list(cands: &[Candidate]) -> String {
    let mut out = String::new();
    for (i, c) in cands.iter().enumerate() {
        let pin = if c.pinned { " (pinned)" } else { "" };
        let _ =
            writeln!(out, "{:>2}. {}{pin}  {}:{}\n    {}", i + 1, c.id, c.path, c.line, c.excerpt);
    }
    out
}

fn ask(question: &str) -> cogmem::Result<String> {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| cogmem::store::fsx::IoError::new("<stdin>", "read", e))?;
    Ok(line.trim().to_owned())
}

fn run_purge(ctx: &Ctx, args: &ForgetArgs, target: purge::Target) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let actor = ctx.actor()?;
    let dry_run = args.dry_run || !args.yes;
    let opts = PurgeOptions { dry_run, actor, trigger: "cogmem forget --purge".into() };
    let report = purge::purge(&ws, &target, &opts, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut out = String::new();
    if report.already_purged {
        render::data("already purged; nothing left to do\n")?;
        return Ok(Exit::Ok);
    }
    // The id is not echoed: a vault note's id holds its title, and output ends up in logs.
    let _ = writeln!(out, "{} commits hold the text:", report.commits.len());
    for c in &report.commits {
        let msg = if c.message { " (and its message)" } else { "" };
        let _ = writeln!(out, "  {}  {}{msg}", render::short(&c.commit), c.subject);
        for f in &c.files {
            let _ = writeln!(out, "      {f}");
        }
    }
    if !report.copies.is_empty() {
        let _ = writeln!(out, "other memories holding it, cut with it:");
        for c in &report.copies {
            let how = if c.whole { "deleted: nothing else is in it" } else { "the rest stays" };
            let _ = writeln!(out, "  {}  {}  ({how})", c.id, c.path);
        }
    }
    if !report.refs.is_empty() {
        let _ = writeln!(out, "refs rewritten: {}", report.refs.join(", "));
    }
    if !report.dropped_refs.is_empty() {
        let verb = if report.dry_run { "to be deleted" } else { "deleted" };
        let _ = writeln!(
            out,
            "remote-tracking refs {verb} (a copy of what the remote had; `cogmem sync --remote \
             NAME --force-rewritten` replaces the remote's history): {}",
            report.dropped_refs.join(", ")
        );
    }
    if !report.other_refs.is_empty() {
        let _ = writeln!(
            out,
            "not rewritten (other refs may still hold it): {}",
            report.other_refs.join(", ")
        );
    }
    if report.stash {
        let _ = writeln!(
            out,
            "the stash keeps the history from before the purge: apply what you need from it \
             first (`git stash list`, `git stash show -p`); `git stash clear` drops every entry"
        );
    }
    if report.dry_run {
        if !report.working_files.is_empty() {
            let _ = writeln!(out, "files holding it now: {}", report.working_files.join(", "));
        }
        let _ = writeln!(out, "nothing rewritten; run again with --yes to purge");
        render::data(&out)?;
        return Ok(Exit::Ok);
    }
    let _ = writeln!(
        out,
        "purged (tombstone {}): {} commits re-created, branch now at {}",
        report.entry,
        report.rewritten,
        report.new_head.as_deref().map_or("?", render::short)
    );
    if !report.backup_refs.is_empty() {
        let _ = writeln!(
            out,
            "the old history is kept in {}; to erase it for good, run:",
            report.backup_refs.join(", ")
        );
        for c in &report.erase_commands {
            let _ = writeln!(out, "  {c}");
        }
    }
    render::data(&out)?;
    Ok(Exit::Ok)
}

pub fn run(ctx: &Ctx, args: &ForgetArgs) -> cogmem::Result<Exit> {
    if let Some(id) = &args.purge {
        return run_purge(ctx, args, purge::Target::Id(id.clone()));
    }
    if let Some(text) = &args.purge_text {
        return run_purge(ctx, args, purge::Target::Text(text.clone()));
    }
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let interactive =
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal() && !ctx.global.json;
    let mut ids = args.ids.clone();
    if args.query.is_none() && ids.is_empty() {
        return Err(cogmem::error::InputError::NothingToForget.into());
    }
    if args.permanent && args.ids.is_empty() {
        return Err(cogmem::error::InputError::PermanentNeedsId.into());
    }
    let candidates = match &args.query {
        Some(q) => forget::find(&ws, q, 10)?,
        None => {
            // A permanent deletion names exactly what goes: the start of an id is not enough.
            let how = if args.permanent { Match::Exact } else { Match::Prefix };
            let described = forget::describe(&ws, &ids, how)?;
            ids = described.iter().map(|c| c.id.clone()).collect();
            described
        }
    };
    if args.dry_run || (!args.yes && !interactive) {
        if ctx.global.json {
            render::json(&serde_json::json!({ "candidates": candidates, "forgotten": [] }))?;
        } else if candidates.is_empty() {
            render::data("no matching memory\n")?;
        } else {
            render::data(&list(&candidates))?;
            let confirm = match (ids.is_empty(), candidates.as_slice()) {
                (false, _) => id_flags(&ids),
                (true, [one]) => id_flags(std::slice::from_ref(&one.id)),
                // A fact of an entity that the words name, ahead of its entity.
                (true, _) => match forget::clear_best(&candidates) {
                    Some(best) if cogmem::store::entity::is_bullet_id(&best.id) => {
                        id_flags(std::slice::from_ref(&best.id))
                    }
                    _ => "--id ID".to_owned(),
                },
            };
            // `--force` only for named memories that are pinned: a list to pick from marks the
            // pinned ones, and forgetting one of them says what it takes.
            let named_pinned =
                (!ids.is_empty() || candidates.len() == 1) && candidates.iter().any(|c| c.pinned);
            let forced = if named_pinned { " --force" } else { "" };
            render::status(
                ctx.global.quiet,
                &format!(
                    "nothing forgotten; confirm with `cogmem forget {confirm} --yes{forced}`\n"
                ),
            );
        }
        return Ok(Exit::Ok);
    }
    if ids.is_empty() {
        if candidates.is_empty() {
            render::status(ctx.global.quiet, "no matching memory; nothing forgotten\n");
            return Ok(Exit::Ok);
        }
        if args.yes {
            // Without a terminal, a query may only forget its one clear match.
            let Some(best) = forget::clear_best(&candidates) else {
                render::data(&list(&candidates))?;
                return Err(cogmem::error::InputError::Ambiguous { count: candidates.len() }.into());
            };
            ids.push(best.id.clone());
        } else {
            render::data(&list(&candidates))?;
            let answer =
                ask("forget which? (numbers separated by spaces, or nothing to cancel): ")?;
            for part in answer.split([' ', ',']).filter(|p| !p.is_empty()) {
                let n: usize = part
                    .parse()
                    .map_err(|_| cogmem::error::InputError::Choice { text: part.to_owned() })?;
                let c = candidates
                    .get(n.wrapping_sub(1))
                    .ok_or_else(|| cogmem::error::InputError::Choice { text: part.to_owned() })?;
                ids.push(c.id.clone());
            }
            if ids.is_empty() {
                render::status(ctx.global.quiet, "nothing forgotten\n");
                return Ok(Exit::Ok);
            }
        }
    }
    if !args.ids.is_empty() && !args.yes && !args.permanent {
        render::data(&list(&candidates))?;
        let answer = ask("forget these? [y/N] ")?;
        if !answer.eq_ignore_ascii_case("y") && !answer.eq_ignore_ascii_case("yes") {
            render::status(ctx.global.quiet, "nothing forgotten\n");
            return Ok(Exit::Ok);
        }
    }
    if args.permanent && !args.yes {
        if !interactive {
            return Err(cogmem::error::InputError::PermanentNeedsId.into());
        }
        for id in &ids {
            let typed = ask(&format!(
                "this deletes {id} from the memory files (git history and the audit log keep it); type the id to confirm: "
            ))?;
            if typed != *id {
                render::status(ctx.global.quiet, "not confirmed; nothing deleted\n");
                return Ok(Exit::Ok);
            }
        }
    }
    let actor = ctx.named_actor()?.unwrap_or_else(|| Actor::system("bot:trigger-forget"));
    let opts = ForgetOptions {
        permanent: args.permanent,
        force: args.force,
        actor,
        trigger: "cogmem forget".into(),
    };
    let report = forget::forget(&ws, &ids, &opts, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = String::new();
    if let Some(id) = &report.commit {
        let verb = if report.permanent { "deleted" } else { "forgot" };
        let _ = writeln!(msg, "{verb} (commit {})", render::short(id));
        for f in &report.forgotten {
            let _ = writeln!(msg, "  {}  {}", f.id, f.path);
        }
        if report.permanent {
            // The audit log is append-only: the summary its line of the memory's writing
            // quotes stays, like every commit that held it. `--purge` erases both.
            let _ = writeln!(
                msg,
                "the content is gone from the memory files, but git history and any audit line that \
                 quoted it still hold it"
            );
            for f in &report.forgotten {
                if cogmem::store::entity::is_bullet_id(&f.id) {
                    // One fact of an entity: its text, not its id, is what a purge finds.
                    let _ = writeln!(
                        msg,
                        "erase its text from those too with: cogmem forget --purge-text TEXT"
                    );
                    continue;
                }
                let id = cogmem::shell::quote(&f.id);
                let _ = writeln!(msg, "erase it from those too with: cogmem forget --purge {id}");
            }
        } else {
            for f in &report.forgotten {
                let _ = writeln!(msg, "undo with: cogmem restore {}", cogmem::shell::quote(&f.id));
            }
        }
    }
    for id in &report.already_forgotten {
        let _ = writeln!(msg, "already forgotten: {id}");
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}

pub fn run_restore(ctx: &Ctx, args: &RestoreArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let report = forget::restore(&ws, &args.id, ctx.actor()?, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        render::status(
            ctx.global.quiet,
            &format!("restored {} (commit {})\n", report.id, render::short(&report.commit)),
        );
    }
    Ok(Exit::Ok)
}
