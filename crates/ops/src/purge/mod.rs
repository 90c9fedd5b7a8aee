//! `cogmem forget --purge ID` and `--purge-text TEXT`: privacy erasure. Where `forget` archives
//! and `--permanent` deletes from the working tree, a purge also rewrites history so that no
//! commit of any local branch or tag holds the memory's text, in any form cogmem wrote it
//! (`needle`), nor its title or file name.
//!
//! Steps, with `yes`: (0) a purge record (`.cogmem/purge.json`) names everything to cut out;
//! (1) a memory present now is deleted as by `forget --permanent` (with the links other entities
//! had to it) as an ordinary commit, and the copies other entities hold (a bullet that is the
//! same text and names the purged entity, a tag naming it) are cut out of their files in another; (2) every commit reachable from a local branch, a tag or a
//! cogmem ref is re-created without the text (`rewrite`), same author, committer and time;
//! (3) each ref that moves is first kept under `refs/cogmem/pre-purge/STAMP/…`; (4) the working
//! tree is checked out again; (5) a final commit appends a tombstone (hashes of the text's
//! lines, never the text) to `memory/meta/purged` and a PURGE audit line that names the purge by
//! a hash, never by its id or title; (6) the derived files under `.cogmem/` are rebuilt or
//! scrubbed (a killed write's temporary file holding the text deleted), and the record removed.
//!
//! The workspace lock is held throughout. A purge killed at any step leaves its record; the
//! next command (the CLI finishes it before anything else) or the same purge run again
//! completes it: each step is safe to repeat, because rewriting a history that no longer holds
//! the text changes nothing.
//!
//! A memory already forgotten or deleted is purged by id from history (the newest commit that
//! held it gives its text), and any text by `--purge-text`. A note (entity, procedure, vault
//! note) is every text its file held in history; an entity's former ids are its names too.
//!
//! The old objects stay in `.git` until the backup refs are deleted, the reflogs expired and git
//! garbage-collects them; the report says how.

pub(crate) mod guard;
mod needle;
mod rewrite;
mod target;

use std::path::Path;

use git2::Repository;
use serde::Serialize;

pub use needle::{MARKER, Needles};
pub use rewrite::PurgedCommit;
pub use target::Target;

use crate::error::{InputError, RuleError};
use crate::forget::{self, ForgetOptions};
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::{Change, crash_point};
use cogmem_store::git::{self, GitError};
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::purged::{self, PurgeRecord, Tombstone, Tombstones};
use cogmem_store::store::{Store, entity, fsx, units};
use cogmem_store::workspace::{LockGuard, Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::model::EntityId;
pub(crate) use rewrite::BACKUP_PREFIX;
use rewrite::{Rewriter, gerr};

/// The crash points a purge adds to the change engine's (`COGMEM_CRASH_AT`, with the
/// `crash-points` feature), in the order it reaches them.
pub const CRASH_POINTS: [&str; 5] = [
    "purge-after-forget",
    "purge-after-backup",
    "purge-after-refs",
    "purge-after-checkout",
    "purge-before-end",
];

/// How to purge.
#[derive(Debug, Clone)]
pub struct PurgeOptions {
    /// List what would be rewritten; change nothing.
    pub dry_run: bool,
    /// Who is purging.
    pub actor: Actor,
    /// What caused it, for the commit messages.
    pub trigger: String,
}

/// What a purge did, or would do.
#[derive(Debug, Clone, Serialize)]
pub struct PurgeReport {
    /// The memory purged (`None` for a purge by text). Never shown in the history.
    pub id: Option<String>,
    /// The hash that names this purge in the tombstone file and the PURGE audit line.
    pub entry: String,
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// The branch checked out, e.g. `refs/heads/main`.
    pub branch: String,
    /// Commits that hold the text (before the purge), oldest first.
    pub commits: Vec<PurgedCommit>,
    /// Files of the working tree that hold the text now.
    pub working_files: Vec<String>,
    /// The other memories that hold the text now (for a purge by text, every memory that
    /// does): copies, cut out of them with the memory.
    pub copies: Vec<PurgedCopy>,
    /// Refs that hold the text and are rewritten (branches, tags, cogmem's refs).
    pub refs: Vec<String>,
    /// Commits re-created (the rewritten ones and their descendants).
    pub rewritten: usize,
    /// The refs that keep the old history, until deleted.
    pub backup_refs: Vec<String>,
    /// The branch tip before the purge.
    pub old_head: String,
    /// The branch tip after the final commit.
    pub new_head: Option<String>,
    /// Remote-tracking refs (`refs/remotes/…`) whose history holds the text, deleted (or, in a
    /// dry run, to be deleted) rather than rewritten: they only cache the remote, which still
    /// holds the text until `sync --remote --force-rewritten` replaces it.
    pub dropped_refs: Vec<String>,
    /// Other refs (notes, the stash, remote-tracking refs that do not hold the text…), which
    /// were not rewritten and may still reach the text.
    pub other_refs: Vec<String>,
    /// Whether the stash (`refs/stash`) reaches the history from before the purge: the erase
    /// commands then drop it (`git stash clear`), every entry of it.
    pub stash: bool,
    /// The commands that remove the old objects for good.
    pub erase_commands: Vec<String>,
    /// Whether this run finished a purge that an earlier, interrupted run began.
    pub resumed: bool,
    /// Whether the memory had been purged already (its id is in a tombstone): nothing was done.
    pub already_purged: bool,
}

impl PurgeReport {
    /// A report of nothing done yet.
    fn start(repo: &Repository, entry: String, branch: String, old_head: git2::Oid) -> Self {
        Self {
            id: None,
            entry,
            dry_run: false,
            branch,
            commits: Vec::new(),
            working_files: Vec::new(),
            copies: Vec::new(),
            refs: Vec::new(),
            rewritten: 0,
            backup_refs: Vec::new(),
            old_head: old_head.to_string(),
            new_head: None,
            dropped_refs: Vec::new(),
            other_refs: rewrite::other_refs(repo),
            stash: false,
            erase_commands: Vec::new(),
            resumed: false,
            already_purged: false,
        }
    }
}

/// Another memory that holds the purged text.
#[derive(Debug, Clone, Serialize)]
pub struct PurgedCopy {
    /// Its id, with any purged name in it cut.
    pub id: String,
    /// Its file, named as it will be after the purge.
    pub path: String,
    /// Whether it is nothing but the text (or the redirect an entity merged into the purged
    /// one left), and so is deleted whole; otherwise the text is cut out of it and the rest
    /// stays.
    pub whole: bool,
}

/// Files of the working tree (tracked by git) that hold the text.
fn working_files(ws: &Workspace, repo: &Repository, needles: &Needles) -> Vec<String> {
    let Ok(index) = repo.index() else { return Vec::new() };
    let mut out = Vec::new();
    for e in index.iter() {
        let rel = String::from_utf8_lossy(&e.path).into_owned();
        let named = rel.split('/').any(|part| needles.scrub_name(part).is_some());
        if named || ws.read(&rel).is_ok_and(|b| needles.found_in(&String::from_utf8_lossy(&b))) {
            out.push(rel);
        }
    }
    out
}

/// The git commands that delete the backup refs and the objects only they reach.
pub(crate) fn erase_commands(backups: &[String]) -> Vec<String> {
    let mut out: Vec<String> = backups.iter().map(|b| format!("git update-ref -d {b}")).collect();
    out.push("git reflog expire --expire=now --all".into());
    out.push("git gc --prune=now".into());
    out
}

/// The command that drops every stash entry: a stash keeps the commit it was made on, and so
/// the history from before a purge.
const STASH_CLEAR: &str = "git stash clear";

/// Tells whether the stash (`refs/stash`, its latest entry) reaches a commit that holds the
/// text: a stash made to clean the tree for the purge keeps the history from before it. (Older
/// entries live in the stash's reflog, which `git reflog expire --expire=now --all` empties.)
fn stash_holds(repo: &Repository, needles: &Needles) -> crate::Result<bool> {
    let Some(id) = repo.find_reference("refs/stash").ok().and_then(|r| r.target()) else {
        return Ok(false);
    };
    let mut rw = Rewriter::new(repo, needles, false);
    rw.refs(&[("refs/stash".to_owned(), id)])?;
    Ok(!rw.found.is_empty())
}

fn current_branch(repo: &Repository) -> crate::Result<(String, git2::Oid)> {
    let head = repo.head().map_err(gerr("read HEAD"))?;
    if !head.is_branch() {
        return Err(GitError::Detached.into());
    }
    let name = head.name().unwrap_or("HEAD").to_owned();
    Ok((name, head.target().ok_or(GitError::Detached)?))
}

/// Refuses a purge by text while a tracked file is a symbolic link leading out of the
/// workspace: whether the file it leads to holds the text cannot be known without following
/// the link (cogmem never does), and the text there would be out of the purge's reach, so
/// "purged" might not be true. The error names the link.
fn refuse_links_out(ws: &Workspace, repo: &Repository) -> crate::Result<()> {
    let Ok(index) = repo.index() else { return Ok(()) };
    for e in index.iter().filter(|e| e.mode == 0o120_000) {
        let rel = String::from_utf8_lossy(&e.path).into_owned();
        fsx::check_inside(&ws.abs(&rel), "purge")?;
    }
    Ok(())
}

/// What a purge cuts out and deletes, worked out before anything changes.
struct Resolved {
    needles: Needles,
    /// The memories deleted first: the one purged, when present now, every other copy that is
    /// nothing but its text, and the redirects entities merged into it left.
    ids: Vec<String>,
    /// The other memories that hold the text.
    copies: Vec<PurgedCopy>,
}

/// The needles and the memories to delete first, for a target; `None` when the id was purged
/// already.
fn resolve(ws: &Workspace, repo: &Repository, target: &Target) -> crate::Result<Option<Resolved>> {
    let all = units::list(ws);
    let mut formers: Vec<EntityId> = Vec::new();
    let (texts, slug, id) = match target {
        Target::Text(text) => {
            refuse_links_out(ws, repo)?;
            (vec![text.clone()], None, None)
        }
        Target::Id(id) => {
            // A memory whose file is a link: the text in the file the link leads to is out of a
            // purge's reach, and saying "purged" would not be true.
            if let Some(file) = target::file_of(id) {
                fsx::check_no_link(&ws.abs(&file), "purge")?;
            }
            let unit = match all.get(id) {
                Some(u) => {
                    let file = ws.read_text(&u.path)?;
                    Some((u.clone(), target::raw_text(u, &file)))
                }
                None => target::from_history(repo, id)?,
            };
            let Some((unit, raw)) = unit else {
                // Purged before (by an earlier run, or finished since): nothing left to do.
                let id_hash = purged::line_hash(&purged::normalize_line(id));
                if let Some(head) = git::head_id(repo)?
                    && guard::tombstones_at(repo, head)?.has_hash(&id_hash)
                {
                    return Ok(None);
                }
                return Err(InputError::UnknownId { id: id.to_owned(), nearest: Vec::new() }.into());
            };
            formers = target::former_ids(id, &raw, &all);
            let slug = target::slug_of(id).map(str::to_owned);
            let mut texts = vec![unit.text.clone(), raw];
            // A note is its whole file: every text the file held (under a former id's name
            // too) is the memory's, a fact a hand edit or a rewrite took out included.
            if !matches!(unit.store, Store::Core | Store::Episodic) {
                let mut paths: Vec<String> = target::file_of(id).into_iter().collect();
                paths
                    .extend(formers.iter().filter_map(|f| target::file_of(&format!("entity:{f}"))));
                let tips: Vec<git2::Oid> = rewrite::rewritable_refs(repo)?
                    .iter()
                    .filter_map(|(_, t)| repo.find_object(*t, None).ok())
                    .filter_map(|o| o.peel_to_commit().ok().map(|c| c.id()))
                    .collect();
                for v in target::versions(repo, &tips, &paths)? {
                    if !texts.contains(&v) {
                        texts.push(v);
                    }
                }
            }
            (texts, slug, Some(id.clone()))
        }
    };
    // The lines every workspace holds by construction (an entity file's `## Relations`, the
    // identity's `### Open Questions About Myself`) are no memory's own: purging the only
    // entity cut them out of IDENTITY.md and renamed `relations.md` when they were counted. Nor
    // is another entity's relation to a third one a copy, however alike the bullets read.
    let mut kept: Vec<String> = cogmem_store::template::TEMPLATES
        .iter()
        .chain(cogmem_store::template::MEMORY_TEMPLATE.iter())
        .filter_map(|(_, bytes)| std::str::from_utf8(bytes).ok().map(str::to_owned))
        .collect();
    for u in all.units.iter().filter(|u| u.store == Store::Semantic && Some(&u.id) != id.as_ref()) {
        let lines: Vec<&str> = u.text.lines().collect();
        kept.extend(
            entity::relations(&u.text)
                .iter()
                .filter_map(|r| lines.get(r.line.wrapping_sub(1)).map(|l| (*l).to_owned())),
        );
    }
    let kept: Vec<&str> = kept.iter().map(String::as_str).collect();
    let others: Vec<&str> = all
        .units
        .iter()
        .filter(|u| Some(&u.id) != id.as_ref() && !u.text.contains(texts[0].trim()))
        .map(|u| u.text.as_str())
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    // Who the memory is, in words a line naming it holds: a fact another entity holds only
    // counts as a copy where it names the purged one (`hear` wrote it to each entity named).
    let mut owners: Vec<String> = slug.iter().cloned().collect();
    if let Some(entity) = id.as_deref().and_then(|i| i.strip_prefix("entity:"))
        && let Ok(entity) = EntityId::parse(entity)
    {
        owners.extend(std::iter::once(&entity).chain(&formers).map(|e| e.label()));
    }
    let owners: Vec<&str> = owners.iter().map(String::as_str).filter(|o| !o.is_empty()).collect();
    // A text given to purge names itself: every line another memory holds whole is a copy.
    let owners = id.is_some().then_some(owners.as_slice());
    let mut needles = Needles::new(&texts, slug.as_deref(), owners, &others, &kept);
    // The id's hash too, so that purging it again can tell it was purged.
    if let Some(id) = &id {
        needles.hashes.push(purged::line_hash(&purged::normalize_line(id)));
    }
    // An entity's label stands in the graph registry's rows apart from its id, its slug in the
    // tags of the entities a message named with it; a former id is a name of it like its own.
    if let Some(entity) = id.as_deref().and_then(|i| i.strip_prefix("entity:"))
        && let Ok(entity) = EntityId::parse(entity)
    {
        for e in std::iter::once(&entity).chain(&formers) {
            needles.add_exact(cogmem_index::graph::registry_label_forms(e));
            let slug = e.as_str().split_once("--").map_or("", |(_, s)| s);
            needles.add_names([e.as_str().to_owned(), slug.to_owned()]);
        }
    }
    // Every copy that is nothing but the text (a memory written to two stores at once, the
    // same text remembered twice) goes as a whole, like the memory itself; so does the redirect
    // an entity merged into it left.
    let mut ids: Vec<String> = id.clone().into_iter().collect();
    for u in &all.units {
        let redirect = u.status.as_deref() == Some("merged")
            && formers.iter().any(|f| u.id.strip_prefix("entity:") == Some(f.as_str()));
        if (redirect || needles.cuts_whole(&u.text)) && !ids.contains(&u.id) {
            ids.push(u.id.clone());
        }
    }
    let copies = all
        .units
        .iter()
        .filter(|u| Some(&u.id) != id.as_ref() && needles.found_in(&u.text))
        .map(|u| PurgedCopy {
            id: needles.scrub(&u.id).unwrap_or_else(|| u.id.clone()),
            path: u
                .path
                .split('/')
                .map(|p| needles.scrub_name(p).unwrap_or_else(|| p.to_owned()))
                .collect::<Vec<_>>()
                .join("/"),
            whole: ids.contains(&u.id),
        })
        .collect();
    if needles.is_too_short() {
        return Err(RuleError::Purge {
            why: format!(
                "the text is shorter than {} characters; cutting it out of every file in \
                 history would damage unrelated text",
                needle::MIN_TEXT_CHARS
            ),
            hint: "give the whole text to purge, or the memory's id (`cogmem forget --purge ID`)"
                .into(),
        }
        .into());
    }
    Ok(Some(Resolved { needles, ids, copies }))
}

/// Purges a memory or a text: see the module documentation. With `dry_run`, lists the commits
/// and files that hold it and changes nothing. A purge an earlier run left unfinished is
/// finished first.
///
/// Refused when the working tree has uncommitted changes, `HEAD` is not on a branch, or the
/// text is too short to cut out safely; fails on an id that no memory has now or had before.
pub fn purge(
    ws: &Workspace,
    target: &Target,
    opts: &PurgeOptions,
    clock: &dyn Clock,
) -> crate::Result<PurgeReport> {
    if !opts.dry_run {
        finish_pending(ws, clock)?;
    }
    let target = &target.whole(&units::list(ws));
    let repo = git::open(ws.root())?;
    let (branch, old_head) = current_branch(&repo)?;
    let Some(Resolved { needles, ids, copies }) = resolve(ws, &repo, target)? else {
        let mut report = PurgeReport::start(&repo, String::new(), branch, old_head);
        report.id = match target {
            Target::Id(id) => Some(id.clone()),
            Target::Text(_) => None,
        };
        report.dry_run = opts.dry_run;
        report.already_purged = true;
        return Ok(report);
    };
    let dirty = git::uncommitted(&repo)?;
    if !dirty.is_empty() {
        let names: Vec<&str> = dirty.iter().take(5).map(|c| c.path.as_str()).collect();
        return Err(RuleError::Purge {
            why: format!("the working tree has uncommitted changes ({})", names.join(", ")),
            hint: "commit or discard hand edits first (`git status` lists them), and check out \
                   the branch to purge; a `git stash` keeps the old history, so the erase \
                   commands the purge prints then drop every stash entry (`git stash clear`)"
                .into(),
        }
        .into());
    }
    let refs = rewrite::rewritable_refs(&repo)?;
    let mut rw = Rewriter::new(&repo, &needles, false).reporting_to(ws);
    rw.refs(&refs)?;
    let now = clock.now().with_timezone(&chrono::Utc);
    // Each purge keeps the refs it moves under a stamp of its own: a second purge in the same
    // second found the first one's backups there, kept none and named theirs as its own.
    let second = now.format("%Y%m%dT%H%M%SZ").to_string();
    let stamp = (1..)
        .map(|n| if n == 1 { second.clone() } else { format!("{second}-{n}") })
        .find(|s| backups(&repo, &format!("{BACKUP_PREFIX}{s}/")).is_empty())
        .expect("some stamp is free");
    let entry =
        purged::line_hash(&format!("entry {stamp} {}", needles.cuts.join("\n")))[..16].to_owned();
    let mut report = PurgeReport::start(&repo, entry, branch, old_head);
    report.id = match target {
        Target::Id(id) => Some(id.clone()),
        Target::Text(_) => None,
    };
    report.dry_run = opts.dry_run;
    report.refs = holding_refs(&repo, &refs, &rw.found);
    report.commits = rw.found;
    report.dropped_refs = stale_tracking_refs(&repo, &needles)?;
    report.other_refs.retain(|r| !report.dropped_refs.contains(r));
    report.working_files = working_files(ws, &repo, &needles);
    report.copies = copies;
    report.stash = stash_holds(&repo, &needles)?;
    if opts.dry_run {
        return Ok(report);
    }
    let record = PurgeRecord {
        stamp,
        entry: report.entry.clone(),
        ids,
        exact: needles.exact.clone(),
        names: needles.names.clone(),
        cuts: needles.cuts.clone(),
        scoped: needles.scoped.clone(),
        hashes: needles.hashes.clone(),
        trigger: opts.trigger.clone(),
        actor: opts.actor.as_str().to_owned(),
    };
    let lock = ws.lock()?;
    record.save(ws.root())?;
    run(ws, &lock, &record, clock, &mut report)?;
    Ok(report)
}

/// The remote-tracking refs whose history holds the text.
fn stale_tracking_refs(repo: &Repository, needles: &Needles) -> crate::Result<Vec<String>> {
    let tracking = rewrite::tracking_refs(repo)?;
    if tracking.is_empty() {
        return Ok(Vec::new());
    }
    let mut rw = Rewriter::new(repo, needles, false);
    rw.refs(&tracking)?;
    Ok(holding_refs(repo, &tracking, &rw.found))
}

/// Deletes the remote-tracking refs whose history holds the text, and the symbolic ones
/// (`refs/remotes/origin/HEAD`) that named them; returns the names deleted.
fn drop_tracking_refs(repo: &Repository, needles: &Needles) -> crate::Result<Vec<String>> {
    let stale = stale_tracking_refs(repo, needles)?;
    for name in &stale {
        if let Ok(mut r) = repo.find_reference(name) {
            r.delete().map_err(gerr("delete a remote-tracking ref"))?;
        }
    }
    let symbolic: Vec<String> = repo
        .references_glob("refs/remotes/*")
        .map_err(gerr("list the refs"))?
        .filter_map(Result::ok)
        .filter(|r| {
            r.symbolic_target().ok().flatten().is_some_and(|t| stale.iter().any(|s| s == t))
        })
        .filter_map(|r| r.name().ok().map(str::to_owned))
        .collect();
    for name in &symbolic {
        if let Ok(mut r) = repo.find_reference(name) {
            r.delete().map_err(gerr("delete a remote-tracking ref"))?;
        }
    }
    Ok(stale)
}

/// The refs whose history holds a commit that holds the text.
fn holding_refs(
    repo: &Repository,
    refs: &[(String, git2::Oid)],
    found: &[PurgedCommit],
) -> Vec<String> {
    let ids: Vec<git2::Oid> =
        found.iter().filter_map(|c| git2::Oid::from_str(&c.commit).ok()).collect();
    refs.iter()
        .filter(|(_, id)| {
            let Ok(tip) = repo.find_object(*id, None).and_then(|o| o.peel_to_commit()) else {
                return false;
            };
            ids.iter()
                .any(|c| *c == tip.id() || repo.graph_descendant_of(tip.id(), *c).unwrap_or(false))
        })
        .map(|(n, _)| n.clone())
        .collect()
}

/// Tells whether a purge was interrupted and waits to be finished.
pub fn is_pending(ws: &Workspace) -> bool {
    PurgeRecord::is_pending(ws.root())
}

/// Finishes a purge that an interrupted run left (its record is still there); `None` when there
/// was none.
///
/// Fails as a purge does; the record stays, so a later command tries again.
pub fn finish_pending(ws: &Workspace, clock: &dyn Clock) -> crate::Result<Option<PurgeReport>> {
    if !is_pending(ws) {
        return Ok(None);
    }
    let lock = ws.lock()?;
    // The lock holder that wrote it may have finished while we waited.
    let Some(record) = PurgeRecord::load(ws.root())? else { return Ok(None) };
    let repo = git::open(ws.root())?;
    let (branch, old_head) = current_branch(&repo)?;
    let mut report = PurgeReport::start(&repo, record.entry.clone(), branch, old_head);
    report.resumed = true;
    run(ws, &lock, &record, clock, &mut report)?;
    Ok(Some(report))
}

/// Steps 1 to 6 of the module documentation, each safe to repeat.
fn run(
    ws: &Workspace,
    lock: &LockGuard,
    record: &PurgeRecord,
    clock: &dyn Clock,
    report: &mut PurgeReport,
) -> crate::Result<()> {
    let fixed = FixedClock(clock.now());
    let actor = Actor::parse(&record.actor)?;
    let needles = Needles::from_record(record);
    let repo = git::open(ws.root())?;
    // 1. Out of the files, the decay scores and the graph index, as an ordinary commit.
    let all = units::list(ws);
    let present: Vec<String> =
        record.ids.iter().filter(|id| all.get(id).is_some()).cloned().collect();
    if !present.is_empty() {
        let forget_opts = ForgetOptions {
            permanent: true,
            force: true,
            actor: actor.clone(),
            trigger: record.trigger.clone(),
        };
        forget::forget_locked(ws, lock, &present, &forget_opts, &fixed, true)?;
    }
    cut_copies(ws, &repo, lock, record, &needles, &actor, &fixed)?;
    crash_point(ws, "purge-after-forget");
    // 2. Every commit re-created without the text.
    let refs = rewrite::rewritable_refs(&repo)?;
    let mut rw = Rewriter::new(&repo, &needles, true).reporting_to(ws);
    let moved = rw.refs(&refs)?;
    if report.commits.is_empty() {
        report.commits = rw.found.clone();
    }
    report.rewritten = rw.rewritten;
    // 3. The old history kept under backup refs (never overwritten: a second run finds them),
    // then the refs moved, each only if nobody moved it meanwhile.
    let log = "cogmem forget --purge";
    for m in &moved {
        let backup =
            format!("{BACKUP_PREFIX}{}/{}", record.stamp, m.name.trim_start_matches("refs/"));
        if repo.find_reference(&backup).is_err() {
            repo.reference(&backup, m.old, false, log).map_err(gerr("create a backup ref"))?;
        }
    }
    crash_point(ws, "purge-after-backup");
    for m in &moved {
        repo.reference_matching(&m.name, m.new, true, m.old, log).map_err(gerr("move a ref"))?;
    }
    report.refs = moved.iter().map(|m| m.name.clone()).collect();
    // Remote-tracking refs are deleted, not rewritten: a rewritten one would claim the remote
    // holds a history it does not (issue 16).
    let dropped = drop_tracking_refs(&repo, &needles)?;
    if !dropped.is_empty() {
        report.dropped_refs = dropped;
    }
    report.other_refs = rewrite::other_refs(&repo);
    crash_point(ws, "purge-after-refs");
    // 4. The working tree and index follow the new tip.
    let mut co = git2::build::CheckoutBuilder::new();
    co.force();
    repo.checkout_head(Some(&mut co)).map_err(gerr("check out the rewritten branch"))?;
    crash_point(ws, "purge-after-checkout");
    // 5. The tombstone and the audit trail, without the text (once: a second run finds it).
    let tip = git::head_id(&repo)?.ok_or(GitError::Detached)?;
    let held = guard::tombstones_at(&repo, tip)?;
    if held.has_entry(&record.entry) {
        report.new_head = Some(tip.to_string());
    } else {
        report.new_head = Some(final_commit(ws, &repo, lock, record, &actor, report, &fixed)?);
    }
    // 6. The derived files held the text too.
    scrub_derived(ws, &needles);
    crash_point(ws, "purge-before-end");
    report.backup_refs = backups(&repo, &format!("{BACKUP_PREFIX}{}/", record.stamp));
    // Every backup ref, older purges' and syncs' too: any of them may still reach this text.
    let all_backups = backups(&repo, BACKUP_PREFIX);
    report.erase_commands = erase_commands(&all_backups);
    // A stash made to clean the tree for the purge keeps the old history as well.
    report.stash = stash_holds(&repo, &needles)?;
    if report.stash {
        report.erase_commands.insert(all_backups.len(), STASH_CLEAR.to_owned());
    }
    report.working_files = working_files(ws, &repo, &needles);
    PurgeRecord::remove(ws.root())?;
    Ok(())
}

/// Takes the copies of the text out of the other entities' files as an ordinary commit, so the
/// rewrite leaves no `[purged]` husk in them: each bullet that is nothing but the text (a fact
/// `hear` wrote to every entity a message names, which names the purged one: `needle`), and each
/// tag that names a purged entity. The
/// entity stays, with whatever else it says. Nothing when no entity holds a copy (a second run).
fn cut_copies(
    ws: &Workspace,
    repo: &Repository,
    lock: &LockGuard,
    record: &PurgeRecord,
    needles: &Needles,
    actor: &Actor,
    clock: &dyn Clock,
) -> crate::Result<()> {
    let mut change = Change::new(actor.clone(), record.trigger.clone())
        .with_subject(Action::Edit, "cut the copies of a purged memory".to_owned())
        .for_purge();
    let mut any = false;
    for u in units::list(ws).units.iter().filter(|u| u.store == Store::Semantic) {
        let text = ws.read_text(&u.path)?;
        if !needles.found_in(&text) {
            continue;
        }
        let cut = entity::remove_bullets(&text, |b| needles.cuts_whole(b));
        let untagged = entity::remove_tags(cut.as_deref().unwrap_or(&text), |t| needles.is_name(t));
        if let Some(new) = untagged.or(cut) {
            change.write(&u.path, new.into_bytes(), Action::Edit, "cut a purged memory's copy");
            any = true;
        }
    }
    if any {
        change.apply(ws, repo, lock, clock)?;
    }
    Ok(())
}

fn final_commit(
    ws: &Workspace,
    repo: &Repository,
    lock: &LockGuard,
    record: &PurgeRecord,
    actor: &Actor,
    report: &PurgeReport,
    clock: &dyn Clock,
) -> crate::Result<String> {
    let at = clock.now().with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let tomb = Tombstone { at, entry: record.entry.clone(), hashes: record.hashes.clone() };
    let old = ws.read_text_if_exists(layout::PURGED)?;
    // The file must parse before it grows: a malformed one is reported, not buried.
    if let Some(text) = &old {
        Tombstones::parse(&ws.abs(layout::PURGED), text)?;
    }
    let summary = format!(
        "purged {} from {} commits ({} re-created)",
        record.entry,
        report.commits.len(),
        report.rewritten
    );
    let mut change = Change::new(actor.clone(), record.trigger.clone())
        .with_subject(Action::Purge, format!("purged {} from history", record.entry))
        .for_purge();
    change.write(
        layout::PURGED,
        purged::append(old.as_deref(), &tomb).into_bytes(),
        Action::Purge,
        summary,
    );
    // A memory forgotten earlier keeps its decay entry (and archive record) until now.
    let mut decay = DecayFile::load(ws)?;
    let mut removed = false;
    for id in &record.ids {
        removed |= decay.remove_entry(id);
    }
    if removed {
        change.write_decay(ws, &mut decay, Action::Delete, "deleted a purged memory's entry");
    }
    // A core bullet that held the text among other words has a new id (a hash of its text):
    // its entry follows it.
    let renamed = core_renames(ws, repo, record)?;
    let mut moved = Vec::new();
    for (from, to) in &renamed {
        if decay.rename_entry(from, to) {
            moved.push(to.clone());
        }
    }
    if !moved.is_empty() {
        let summary =
            format!("decay entries follow the bullets the purge changed: {}", moved.join(", "));
        change.write_decay(ws, &mut decay, Action::Edit, &summary);
    }
    let applied = change.apply(ws, repo, lock, clock)?;
    Ok(applied.commit)
}

/// The core bullets whose id the purge changed, as (old id, new id): MEMORY.md as the branch
/// had it before the rewrite (its backup ref), and the same file with the text cut out, bullet
/// for bullet. Nothing when the branch did not move or the bullets do not line up.
fn core_renames(
    ws: &Workspace,
    repo: &Repository,
    record: &PurgeRecord,
) -> crate::Result<Vec<(String, String)>> {
    let (branch, _) = current_branch(repo)?;
    let backup = format!("{BACKUP_PREFIX}{}/{}", record.stamp, branch.trim_start_matches("refs/"));
    let Ok(commit) = repo.find_reference(&backup).and_then(|r| r.peel_to_commit()) else {
        return Ok(Vec::new());
    };
    let tree = commit.tree().map_err(gerr("read a tree"))?;
    let Some(before) = git::read_at_head(repo, Some(&tree), layout::MEMORY_MD)? else {
        return Ok(Vec::new());
    };
    let before = String::from_utf8_lossy(&before).into_owned();
    let Some(after) = Needles::from_record(record).scrub(&before) else { return Ok(Vec::new()) };
    let old = units::file_units(layout::MEMORY_MD, &before);
    let new = units::file_units(layout::MEMORY_MD, &after);
    if old.len() != new.len() {
        return Ok(Vec::new());
    }
    let now = units::list(ws);
    Ok(old
        .into_iter()
        .zip(new)
        .filter(|(o, n)| o.id != n.id && now.get(&n.id).is_some())
        .map(|(o, n)| (o.id, n.id))
        .collect())
}

/// The refs whose names start with `prefix`, sorted.
fn backups(repo: &Repository, prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = repo
        .references()
        .map(|refs| {
            refs.filter_map(Result::ok)
                .filter_map(|r| r.name().ok().map(str::to_owned))
                .filter(|n| n.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Rebuilds the search index from scratch and cuts the text out of the other derived files
/// under `.cogmem/` (the access log, caches, the copies under `.cogmem/recovered/`), and deletes
/// a temporary file a killed write left there that holds it; the lock, the journal and the
/// purge record are left alone.
fn scrub_derived(ws: &Workspace, needles: &Needles) {
    // The rebuild deletes the index folder once it holds the index lock and no merge runs: the
    // background update the final commit started may still be writing into it, and deleting
    // it under that process left a stale index. Only when the rebuild fails does the folder
    // go anyway (the next read builds it again), so the text never stays in it.
    if cogmem_index::index::open(ws, true, None).is_err() {
        let dir = ws.abs(layout::INDEX_DIR);
        if Path::new(&dir).is_dir() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    // The imported messages' sources by day: rebuilt by the next import from the files.
    let _ = fsx::remove_file(&ws.abs(layout::IMPORT_SOURCES));
    let skip = [layout::LOCK, layout::PURGE_RECORD, layout::INDEX_DIR, ".cogmem/journal"];
    let mut stack = vec![ws.abs(layout::DERIVED_DIR)];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            let rel = path.strip_prefix(ws.root()).unwrap_or(&path).to_string_lossy().into_owned();
            if skip.iter().any(|s| rel == *s || rel.starts_with(&format!("{s}/"))) {
                continue;
            }
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = ws.read(&rel)
                && let Some(new) = needles.scrub(&String::from_utf8_lossy(&bytes))
            {
                // A killed atomic write's temporary file (the purge record's holds the needles)
                // is no file of anyone's: it goes, rather than stay scrubbed.
                if fsx::is_temp_file(&rel) {
                    let _ = fsx::remove_file(&path);
                } else {
                    let _ = fsx::write_atomic(&path, new.as_bytes());
                }
            }
        }
    }
}
