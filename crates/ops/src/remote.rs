//! `cogmem sync --remote NAME`: share one workspace between machines through any git remote.
//!
//! Fetch the remote's branch, bring it into ours (a fast-forward when we have nothing new, else
//! a merge commit whose files are combined by what they hold: `remote/merge.rs` decides each
//! file, [`content`] combines the workspace's formats), and push the result.
//!
//! Invariants: nothing is written until the whole merge is known to succeed, so a conflict
//! leaves the working tree, the index and `HEAD` exactly as they were; before anything is
//! written, `refs/cogmem/pre-sync` records where the branch was, and a failure half-way puts
//! every file, the index and the branch back. A sync never prompts: it runs unattended.

pub mod content;
mod error;
mod merge;
mod peer;
mod purged;
mod record;
mod transport;

use std::collections::BTreeMap;

use git2::build::{CheckoutBuilder, TreeUpdateBuilder};
use git2::{FileMode, Oid, Repository, Signature, Time};
use serde::Serialize;

pub use error::RemoteError;
pub use merge::{Conflict, MergedFile, Strategy};

use crate::error::RuleError;
use cogmem_index::graph;
use cogmem_store::audit::{self, Action, Actor, AuditLine};
use cogmem_store::change::Snapshot;
use cogmem_store::git::{self, GitError};
use cogmem_store::store::fsx;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;

/// The reference that keeps the branch's tip from before the last sync that changed it.
pub const BACKUP_REF: &str = "refs/cogmem/pre-sync";

/// What `sync --remote` should do.
#[derive(Debug, Clone)]
pub struct SyncRemoteOptions {
    /// The git remote's name.
    pub remote: String,
    /// The remote branch (default: the name of ours).
    pub branch: Option<String>,
    /// Push the result (default yes).
    pub push: bool,
    /// Give way to a purge's rewritten history: force-push ours over a remote that still holds
    /// purged text, or take the remote's in place of ours when only ours holds it.
    pub force_rewritten: bool,
}

/// How our branch and the remote's related.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Both had the same commits.
    UpToDate,
    /// Only we had new commits (or the remote branch did not exist yet).
    Ahead,
    /// Only the remote had new commits: our branch moved to its tip.
    FastForward,
    /// Both had new commits: a merge commit combines them.
    Merged,
    /// Both had new commits and some files cannot be combined: nothing was changed.
    Conflict,
    /// The remote held purged text: our rewritten history replaced its (`--force-rewritten`).
    ForcePushed,
    /// Our history held purged text: the remote's rewritten history replaced ours
    /// (`--force-rewritten`).
    TookRewritten,
}

/// A commit that came from the remote.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    /// Its id.
    pub id: String,
    /// First line of its message.
    pub subject: String,
    /// Its author (the actor).
    pub author: String,
}

/// A proposal of the other machine that got a new number.
#[derive(Debug, Clone, Serialize)]
pub struct Renumbered {
    /// Its number on the other machine.
    pub from: u32,
    /// Its number now.
    pub to: u32,
}

/// What a sync did.
#[derive(Debug, Clone, Serialize)]
pub struct RemoteReport {
    /// The remote's name.
    pub remote: String,
    /// Its URL.
    pub url: String,
    /// Our branch.
    pub branch: String,
    /// The remote's branch.
    pub remote_branch: String,
    /// How the two related, and what was done.
    pub outcome: Outcome,
    /// Commits the remote had and we did not, newest first.
    pub fetched: Vec<Fetched>,
    /// How many commits we had that the remote did not.
    pub ahead: usize,
    /// Files the merge changed or combined, with how.
    pub merged: Vec<MergedFile>,
    /// Proposals renumbered because both machines used the number.
    pub renumbered: Vec<Renumbered>,
    /// The merge commit, if one was made.
    pub commit: Option<String>,
    /// Where the branch was before the sync moved it (also kept as `refs/cogmem/pre-sync`).
    pub backup: Option<String>,
    /// Whether our branch was pushed.
    pub pushed: bool,
    /// Why the push failed, when it did.
    pub push_error: Option<String>,
    /// Files that stopped the merge.
    pub conflicts: Vec<Conflict>,
    /// Things to look at after a merge that went through (MEMORY.md over its budget).
    pub warnings: Vec<String>,
    /// After taking a rewritten history: the commands that erase our old one for good.
    pub erase_commands: Vec<String>,
    /// The commits brought in that were made outside cogmem and that no cogmem had adopted (a
    /// peer's plain `git commit` and `git push`), adopted after the merge in a commit of their
    /// own, which the push sends too. See [`crate::adopt`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adopted: Option<crate::adopt::AdoptReport>,
    /// Why adopting them failed (a later command adopts them), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adopt_error: Option<String>,
}

impl RemoteReport {
    /// Tells whether the sync left something for a person to do (a conflict or a failed push).
    pub fn has_problems(&self) -> bool {
        !self.conflicts.is_empty() || self.push_error.is_some()
    }
}

fn op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

/// Checks that the workspace's repository has a remote called `name` with a URL, without
/// touching anything: `sync --remote` asks before it commits the hand edits, so an unknown
/// remote is refused before anything happens.
///
/// Fails with [`RemoteError::Unknown`] (naming the remotes there are) or
/// [`RemoteError::NoUrl`].
pub fn check_remote(ws: &Workspace, name: &str) -> crate::Result<()> {
    let repo = git::open(ws.root())?;
    transport::endpoint(&repo, ws.root(), name).map(|_| ())
}

/// Fetches `opts.remote`, merges its branch into ours and pushes the result.
///
/// Refuses a sub-agent (exit 4) and a working tree with uncommitted edits. A conflict is not an
/// error: the report lists it, and nothing was changed.
pub fn sync_remote(
    ws: &Workspace,
    clock: &dyn Clock,
    actor: &Actor,
    opts: &SyncRemoteOptions,
) -> crate::Result<RemoteReport> {
    if actor.is_subagent() {
        return Err(RuleError::SubagentWrite { actor: actor.to_string() }.into());
    }
    let root = ws.root();
    let repo = git::open(root)?;
    let lock = ws.lock()?;
    // Its merge commit and fast-forward are made here, outside the change engine, so its
    // guards are repeated: no git operation in progress, no interrupted purge (issue 16).
    git::check_state(&repo)?;
    if cogmem_store::store::purged::PurgeRecord::is_pending(root) {
        let path = ws.abs(layout::PURGE_RECORD);
        return Err(cogmem_store::workspace::WorkspaceError::PurgePending { path }.into());
    }
    let dirty = git::uncommitted(&repo)?;
    if !dirty.is_empty() {
        return Err(RemoteError::HandEdits {
            paths: dirty.into_iter().map(|c| c.path).collect(),
            name: opts.remote.clone(),
        }
        .into());
    }
    let (branch_ref, branch) = head_branch(&repo)?;
    let local = git::head_id(&repo)?.ok_or(RemoteError::Unborn)?;
    // Whether every commit up to ours is settled (issue 17): then the commits this sync brings
    // in are looked at alone, right after it; otherwise the next command adopts ours and
    // theirs together.
    let settled = crate::adopt::pending(ws)?.is_empty();
    let remote_branch = opts.branch.clone().unwrap_or_else(|| branch.clone());
    let ep = transport::endpoint(&repo, root, &opts.remote)?;
    let fetching = ws.progress(None, &format!("fetching from {}", ep.name));
    // The remote's records of submitted commits come in the same fetch (see [`record`]).
    let staged = record::Staged::clear(&repo);
    let theirs = transport::fetch(&repo, root, &ep, &remote_branch, &[record::FETCH])?;
    drop(fetching);

    let mut report = RemoteReport {
        remote: ep.name.clone(),
        url: ep.url.clone(),
        branch: branch.clone(),
        remote_branch: remote_branch.clone(),
        outcome: Outcome::UpToDate,
        fetched: Vec::new(),
        ahead: 0,
        merged: Vec::new(),
        renumbered: Vec::new(),
        commit: None,
        backup: None,
        pushed: false,
        push_error: None,
        conflicts: Vec::new(),
        warnings: Vec::new(),
        erase_commands: Vec::new(),
        adopted: None,
        adopt_error: None,
    };
    report.ahead = count_only_in(&repo, local, theirs)?;
    if let Some(t) = theirs
        && t != local
        && !repo.graph_descendant_of(local, t).map_err(op("compare the histories"))?
    {
        // What the remote brings is refused before anything is written.
        let peer = peer::Peer { name: &ep.name, branch: &remote_branch };
        peer::check_links(&repo, &peer, local, t)?;
    }
    if let Some(t) = theirs
        && t != local
    {
        let sides = purged::Sides {
            ws,
            repo: &repo,
            ep: &ep,
            branch_ref: &branch_ref,
            branch: &branch,
            remote_branch: &remote_branch,
            opts,
            clock,
        };
        if purged::guard(&sides, local, t, &mut report)? {
            let tip = if matches!(report.outcome, Outcome::TookRewritten) { t } else { local };
            let to_push = staged.settle(tip);
            if report.pushed {
                report.warnings.extend(staged.push(root, &ep, &to_push)?);
            }
            return Ok(report);
        }
        if !repo.graph_descendant_of(local, t).map_err(op("compare the histories"))? {
            let peer = peer::Peer { name: &ep.name, branch: &remote_branch };
            peer::check_audit(&repo, &peer, local, t)?;
        }
    }
    let mut tip = local;
    match theirs {
        None => report.outcome = Outcome::Ahead,
        Some(t) if t == local => report.outcome = Outcome::UpToDate,
        Some(t) => {
            report.fetched = only_in(&repo, t, Some(local))?;
            if repo.graph_descendant_of(local, t).map_err(op("compare the histories"))? {
                report.outcome = Outcome::Ahead;
            } else if repo.graph_descendant_of(t, local).map_err(op("compare the histories"))? {
                fast_forward(&repo, &branch_ref, local, t)?;
                report.outcome = Outcome::FastForward;
                report.backup = Some(local.to_string());
                tip = t;
            } else {
                // No common ancestor: two workspaces started by `init` on two machines.
                let base = match repo.merge_base(local, t) {
                    Ok(id) => Some(id),
                    Err(e) if e.code() == git2::ErrorCode::NotFound => None,
                    Err(cause) => {
                        return Err(GitError::Op { what: "find the common ancestor", cause }.into());
                    }
                };
                let tree_of = |id: Oid| {
                    repo.find_commit(id)
                        .and_then(|c| c.tree())
                        .map_err(|cause| GitError::Op { what: "read a commit's tree", cause })
                };
                let base_tree = base.map(tree_of).transpose()?;
                let (ours_tree, theirs_tree) = (tree_of(local)?, tree_of(t)?);
                let label = format!("{}/{remote_branch}", ep.name);
                let _merging = ws.progress(None, &format!("merging {label}"));
                let fresh = merge::Fresh {
                    settings: &ws.settings().decay,
                    now: clock.now().with_timezone(&chrono::Utc),
                };
                let plan = merge::plan(
                    &repo,
                    base_tree.as_ref(),
                    &ours_tree,
                    &theirs_tree,
                    &label,
                    &fresh,
                )?;
                if !plan.conflicts.is_empty() {
                    // Nothing was merged: the files that would have merged are not listed.
                    report.outcome = Outcome::Conflict;
                    report.conflicts = plan.conflicts;
                    return Ok(report);
                }
                report.renumbered =
                    plan.renumbered.iter().map(|&(from, to)| Renumbered { from, to }).collect();
                report.warnings = budget_warning(ws, &plan);
                let ctx = MergeCtx {
                    ws,
                    repo: &repo,
                    branch_ref: &branch_ref,
                    label: &label,
                    actor,
                    clock,
                    fetched: report.fetched.len(),
                };
                let (commit, files) = apply_merge(&ctx, plan, local, t, &ours_tree)?;
                report.outcome = Outcome::Merged;
                report.merged = files;
                report.commit = Some(commit.to_string());
                report.backup = Some(local.to_string());
                tip = commit;
            }
        }
    }
    if matches!(report.outcome, Outcome::FastForward | Outcome::Merged) {
        let _indexing = ws.progress(None, "updating the search index");
        cogmem_index::index::update_after_change(ws);
        // The peer's plain `git commit`s (pushed with plain git, never adopted there) are
        // adopted here, in a commit of their own on the merged tip that the push shares; those
        // the peer's cogmem adopted are recorded in the merged audit log and left alone. Best
        // effort: when it fails, the marker stays at our old tip and the next command adopts.
        if settled {
            crate::adopt::mark_seen(ws, local);
            match crate::adopt::adopt_locked(ws, &repo, &lock, clock) {
                Ok(r) => {
                    if let Some(id) = r.commit.as_deref().and_then(|id| Oid::from_str(id).ok()) {
                        tip = id;
                    }
                    report.adopted = r.commit.is_some().then_some(r);
                }
                Err(e) => report.adopt_error = Some(e.to_string()),
            }
        }
    }
    let records = staged.settle(tip);
    if opts.push && theirs != Some(tip) {
        let _pushing = ws.progress(None, &format!("pushing to {}", ep.name));
        match transport::push(&repo, root, &ep, (&branch, &remote_branch), tip, false)? {
            Ok(()) => report.pushed = true,
            Err(why) => report.push_error = Some(why),
        }
    }
    // Once the remote's branch is ours, so are the records on its history.
    if opts.push && (report.pushed || theirs == Some(tip)) {
        report.warnings.extend(staged.push(root, &ep, &records)?);
    }
    Ok(report)
}

/// Both sides' bullets together may not fit MEMORY.md's budget. The merge keeps them all (a sync
/// never drops a memory); the warning asks for a prune.
fn budget_warning(ws: &Workspace, plan: &merge::Plan) -> Vec<String> {
    let Some((Some(bytes), _)) = plan.updates.get(layout::MEMORY_MD) else { return Vec::new() };
    let budget = ws.settings().core.budget_tokens;
    let tokens = cogmem_text::tokens::estimate(&String::from_utf8_lossy(bytes));
    if tokens <= budget {
        return Vec::new();
    }
    vec![format!(
        "MEMORY.md is now {tokens} tokens, over its budget of {budget}, with both machines' \
         bullets; move details into entities or let a reflection prune it"
    )]
}

fn head_branch(repo: &Repository) -> crate::Result<(String, String)> {
    let head = repo.find_reference("HEAD").map_err(op("read HEAD"))?;
    match head.symbolic_target().ok().flatten() {
        Some(target) if target.starts_with("refs/heads/") => {
            Ok((target.to_owned(), target["refs/heads/".len()..].to_owned()))
        }
        _ => Err(GitError::Detached.into()),
    }
}

/// Commits reachable from `from` but not from `hide`, newest first.
pub(crate) fn only_in(
    repo: &Repository,
    from: Oid,
    hide: Option<Oid>,
) -> crate::Result<Vec<Fetched>> {
    let mut walk = repo.revwalk().map_err(op("walk the history"))?;
    walk.push(from).map_err(op("walk the history"))?;
    if let Some(h) = hide {
        walk.hide(h).map_err(op("walk the history"))?;
    }
    let mut out = Vec::new();
    for id in walk {
        let id = id.map_err(op("walk the history"))?;
        let c = repo.find_commit(id).map_err(op("read a commit"))?;
        out.push(Fetched {
            id: id.to_string(),
            subject: git::subject(&c),
            author: String::from_utf8_lossy(c.author().name_bytes()).into_owned(),
        });
    }
    Ok(out)
}

fn count_only_in(repo: &Repository, local: Oid, theirs: Option<Oid>) -> crate::Result<usize> {
    let mut walk = repo.revwalk().map_err(op("walk the history"))?;
    walk.push(local).map_err(op("walk the history"))?;
    if let Some(t) = theirs {
        walk.hide(t).map_err(op("walk the history"))?;
    }
    Ok(walk.count())
}

fn set_backup(repo: &Repository, at: Oid, why: &str) -> crate::Result<()> {
    repo.reference(BACKUP_REF, at, true, why).map_err(op("record the pre-sync backup ref"))?;
    Ok(())
}

/// Moves our branch to the remote's tip, updating the working files; on failure the files are
/// checked out from our tip again.
fn fast_forward(repo: &Repository, branch_ref: &str, local: Oid, to: Oid) -> crate::Result<()> {
    set_backup(repo, local, "cogmem sync: before fast-forward")?;
    let target = repo.find_object(to, None).map_err(op("read the remote's commit"))?;
    let result = repo
        .checkout_tree(&target, Some(CheckoutBuilder::new().safe()))
        .map_err(op("check out the remote's files"))
        .and_then(|()| {
            repo.reference_matching(branch_ref, to, true, local, "cogmem sync: fast-forward")
                .map(|_| ())
                .map_err(op("move the branch"))
        });
    if let Err(e) = result {
        if let Ok(ours) = repo.find_object(local, None) {
            let _ = repo.checkout_tree(&ours, Some(CheckoutBuilder::new().force()));
        }
        return Err(e.into());
    }
    Ok(())
}

struct MergeCtx<'a> {
    ws: &'a Workspace,
    repo: &'a Repository,
    branch_ref: &'a str,
    label: &'a str,
    actor: &'a Actor,
    clock: &'a dyn Clock,
    fetched: usize,
}

/// Writes the merge result and commits it with both tips as parents; on any failure puts the
/// files, the index and the branch back as they were.
//
// Why not `Change::apply`: the change engine makes one-parent commits of the files it wrote
// with one audit line per edit, while a merge commit has two parents, its tree is ours plus
// the combined files, and files taken from the other machine bring their own audit lines. So
// this path shares the engine's pieces instead: `change::Snapshot` for the file rollback and
// `audit::append` / `AuditLine::alert` for the audit lines. What still differs from the engine:
// no `workspace::journal` is written, so a process killed between writing the files and moving
// the branch leaves the merged files uncommitted: the next lock holder does not put them back
// as it does for a change (`refs/cogmem/pre-sync` records where the branch was); and
// the branch and the index are reset here, by hand, because `Change` never moves a branch to
// a commit it did not make.
fn apply_merge(
    ctx: &MergeCtx<'_>,
    plan: merge::Plan,
    local: Oid,
    theirs: Oid,
    ours_tree: &git2::Tree<'_>,
) -> crate::Result<(Oid, Vec<MergedFile>)> {
    set_backup(ctx.repo, local, &format!("cogmem sync: before merging {}", ctx.label))?;
    let root = ctx.ws.root();
    let mut touched: Vec<String> = plan.updates.keys().cloned().collect();
    for extra in [layout::AUDIT_LOG, layout::GRAPH_INDEX] {
        if !touched.iter().any(|p| p == extra) {
            touched.push(extra.to_owned());
        }
    }
    let snapshot = Snapshot::take(ctx.ws, &touched)?;
    let result = write_and_commit(ctx, plan, local, theirs, ours_tree);
    if result.is_err() {
        // Best effort: the original error is the one to report.
        snapshot.restore(root);
        if git::head_id(ctx.repo).ok().flatten() != Some(local) {
            let _ = ctx.repo.reference(ctx.branch_ref, local, true, "cogmem sync: undo merge");
        }
        if let Ok(mut index) = ctx.repo.index() {
            let _ = index.read_tree(ours_tree).and_then(|()| index.write());
        }
    }
    result
}

fn write_and_commit(
    ctx: &MergeCtx<'_>,
    plan: merge::Plan,
    local: Oid,
    theirs: Oid,
    ours_tree: &git2::Tree<'_>,
) -> crate::Result<(Oid, Vec<MergedFile>)> {
    let (ws, repo) = (ctx.ws, ctx.repo);
    let root = ws.root();
    let mut modes: BTreeMap<String, i32> = BTreeMap::new();
    for (rel, (bytes, mode)) in &plan.updates {
        match bytes {
            Some(b) => fsx::write_atomic(&root.join(rel), b)?,
            None => fsx::remove_file(&root.join(rel))?,
        }
        modes.insert(rel.clone(), *mode);
    }
    let mut files = plan.files;
    let graph_inputs = plan.updates.keys().any(|p| {
        p.starts_with(layout::ENTITIES_DIR)
            || layout::is_decay_file(p)
            || p == layout::RELATIONS
            || p == layout::GRAPH_INDEX
    });
    if graph_inputs && let Some(text) = regenerated_graph_index(ws)? {
        fsx::write_atomic(&ws.abs(layout::GRAPH_INDEX), text.as_bytes())?;
        modes.entry(layout::GRAPH_INDEX.to_owned()).or_insert(0o100_644);
        if let Some(f) = files.iter_mut().find(|f| f.path == layout::GRAPH_INDEX) {
            f.strategy = Strategy::Regenerated;
        } else {
            files.push(MergedFile {
                path: layout::GRAPH_INDEX.to_owned(),
                strategy: Strategy::Regenerated,
            });
        }
    }

    // Audit lines: one MERGE line per file combined from both sides (files taken from the
    // other machine as they are already have their lines, which arrive with its audit.log).
    let now = ctx.clock.now();
    let ts = now.with_timezone(&chrono::Utc);
    let approval = ctx.actor.default_approval();
    let line = |action: Action, file: &str, summary: String| AuditLine {
        timestamp: ts,
        action,
        file: file.to_owned(),
        actor: ctx.actor.as_str().to_owned(),
        approval,
        summary,
    };
    let mut lines = Vec::new();
    for f in files.iter().filter(|f| f.strategy != Strategy::Theirs) {
        let summary = match f.strategy {
            Strategy::Union => format!("union of both machines' entries, with {}", ctx.label),
            Strategy::Content => format!("combined both machines' versions, with {}", ctx.label),
            Strategy::Text => format!("three-way merge with {}", ctx.label),
            Strategy::KeptChanged => {
                format!("kept the changed copy (deleted on one side), with {}", ctx.label)
            }
            Strategy::Regenerated => format!("regenerated after merging {}", ctx.label),
            Strategy::Theirs => continue,
        };
        lines.push(line(Action::Merge, &f.path, summary));
    }
    if lines.is_empty() {
        lines.push(line(Action::Merge, layout::AUDIT_LOG, format!("merged {}", ctx.label)));
    }
    let critical: Vec<String> =
        modes.keys().filter(|p| ws.settings().audit.is_critical(p)).cloned().collect();
    lines.extend(critical.iter().map(|path| AuditLine::alert(path, ts)));
    audit::append(&ws.abs(layout::AUDIT_LOG), &lines)?;
    modes.entry(layout::AUDIT_LOG.to_owned()).or_insert(0o100_644);

    // The tree: ours plus every file written above, as it is now on disk.
    let mut update = TreeUpdateBuilder::new();
    let blobs = git::Blobs::for_files(repo, root, modes.keys().map(String::as_str));
    for (rel, mode) in &modes {
        let abs = root.join(rel);
        if abs.exists() {
            let blob = blobs.store(rel)?;
            let mode = if *mode == i32::from(FileMode::BlobExecutable) {
                FileMode::BlobExecutable
            } else {
                FileMode::Blob
            };
            update.upsert(rel.as_str(), blob, mode);
        } else {
            update.remove(rel.as_str());
        }
    }
    let tree_id = update.create_updated(repo, ours_tree).map_err(op("build the merge's tree"))?;
    let tree = repo.find_tree(tree_id).map_err(op("read a tree"))?;

    let message = merge_message(ctx, &files, modes.len(), !critical.is_empty());
    let time = Time::new(now.timestamp(), now.offset().local_minus_utc() / 60);
    let author = Signature::new(ctx.actor.as_str(), &git::author_email(ctx.actor.as_str()), &time)
        .map_err(op("build the author"))?;
    let committer = Signature::new("cogmem", "cogmem@cogmem.invalid", &time)
        .map_err(op("build the committer"))?;
    let ours_commit = repo.find_commit(local).map_err(op("read our commit"))?;
    let theirs_commit = repo.find_commit(theirs).map_err(op("read the remote's commit"))?;
    let id = repo
        .commit(None, &author, &committer, &message, &tree, &[&ours_commit, &theirs_commit])
        .map_err(op("write the merge commit"))?;
    let subject = message.lines().next().unwrap_or("");
    repo.reference_matching(ctx.branch_ref, id, true, local, &format!("commit (merge): {subject}"))
        .map_err(op("move the branch to the merge commit"))?;
    let mut index = repo.index().map_err(op("read the index"))?;
    index.read_tree(&tree).map_err(op("update the index"))?;
    index.write().map_err(op("write the index"))?;
    Ok((id, files))
}

/// The structured message of a merge commit (design.md §4), listing each file and how it was
/// merged after the trailers.
fn merge_message(
    ctx: &MergeCtx<'_>,
    files: &[MergedFile],
    changed: usize,
    critical: bool,
) -> String {
    let combined: Vec<&MergedFile> =
        files.iter().filter(|f| f.strategy != Strategy::Theirs).collect();
    let main =
        combined.first().copied().or(files.first()).map_or(layout::AUDIT_LOG, |f| f.path.as_str());
    let more = changed.saturating_sub(2); // the main file and audit.log
    let subject_files = if more > 0 { format!("{main} +{more}") } else { main.to_owned() };
    let plural = if ctx.fetched == 1 { "" } else { "s" };
    let mut msg = format!(
        "[MERGE] {subject_files} — merge {} ({} commit{plural}) into our branch\n\nActor: {}\n\
         Approval: {}\nTrigger: cogmem sync --remote\n",
        ctx.label,
        ctx.fetched,
        ctx.actor,
        ctx.actor.default_approval().as_str(),
    );
    if critical {
        msg.push_str(cogmem_store::change::CRITICAL_MARK);
        msg.push('\n');
    }
    if !files.is_empty() {
        msg.push('\n');
        for f in files {
            msg.push_str(&format!("Merged: {} ({})\n", f.path, f.strategy.as_str()));
        }
    }
    msg
}

/// graph/index.md as the entity files on disk now make it, when that differs from the file.
fn regenerated_graph_index(ws: &Workspace) -> crate::Result<Option<String>> {
    let mut files = Vec::new();
    for rel in cogmem_store::store::units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        let text = ws.read_text(&rel)?;
        files.push((rel, text));
    }
    let text = graph::index_text(ws, &files, &cogmem_store::access::load_decay(ws)?)?;
    let on_disk = ws.read_text_if_exists(layout::GRAPH_INDEX)?;
    Ok((on_disk.as_deref() != Some(text.as_str())).then_some(text))
}
