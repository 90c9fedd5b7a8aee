//! Adopting commits made outside cogmem (issue 17): an agent that edits a memory file and runs
//! `git commit` itself leaves units without decay entries, a stale `memory/graph/index.md` and
//! no audit line. The next cogmem command that writes finds those commits and settles them in
//! one change by `system:adopt`: an audit line per file each commit changed, with the commit's
//! author as actor and its author time as timestamp (the summary `sync` gives a hand edit,
//! plus the commit id), decay entries for the units they added, and the regenerated graph
//! index. A credential in the lines a commit added cannot be refused (the commit exists): its
//! place goes into the file's audit line and [`AdoptReport::secrets`], for the caller to warn.
//! Reads only look ([`pending`]); they never commit.
//!
//! Which commits: those reachable from `HEAD` but not from the last commit cogmem has seen
//! (`.cogmem/adopted`, see [`layout::ADOPTED`]), whose committer is not cogmem, that change a
//! memory file ([`holds_memories`]), and that the audit log at `HEAD` does not already record (a peer's adoption that `sync --remote`
//! brought in). Without the marker (a fresh clone, `.cogmem/` deleted) or when history was
//! rewritten past it (a purge), the walk stops at the newest commit cogmem made on the
//! first-parent chain. When `HEAD` is the marker, nothing is read but two small files: the
//! check on every command is O(1). cogmem's own commits move the marker along when it named
//! their parent (`git::finish_commit`), so after a write the next command's check is that too.
//!
//! Invariant: a commit is adopted at most once, and adoption never touches a file with
//! uncommitted edits (the change engine refuses; `cogmem sync` commits those).

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Utc};
use git2::{Oid, Repository, Sort};
use serde::Serialize;

use cogmem_store::audit::{Action, Actor, AuditLine, RawFields};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::units;
use cogmem_store::workspace::{LockGuard, Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

use crate::removal::{self, Carried};

/// The actor of adoption commits.
pub const ACTOR: &str = "system:adopt";

/// A commit made outside cogmem, not adopted yet.
#[derive(Debug, Clone, Serialize)]
pub struct OutsideCommit {
    /// Its full id.
    pub commit: String,
    /// Its author, as the actor the audit lines name (see [`actor_of`]).
    pub author: String,
    /// Its author time, in UTC.
    pub time: DateTime<Utc>,
    /// Its subject line.
    pub subject: String,
    /// The files it changed (compared with its first parent), with CREATE, EDIT or DELETE.
    pub files: Vec<(String, Action)>,
}

/// What an adoption did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AdoptReport {
    /// The commits adopted (or, from [`pending`], waiting).
    pub commits: Vec<OutsideCommit>,
    /// The adoption commit, or `None` when there was nothing to adopt.
    pub commit: Option<String>,
    /// Decay entries created for the units those commits added.
    pub decay_entries: Vec<String>,
    /// Decay entries marked archived because those commits removed their memory (a deleted
    /// file, a deleted core bullet), as `sync` marks them for the hand edits it commits.
    pub decay_archived: Vec<String>,
    /// Decay entries carried to a new id because those commits renamed their procedure or
    /// vault note with its text unchanged, or nearly (see [`crate::removal`]).
    pub decay_carried: Vec<Carried>,
    /// Forgotten decay entries brought back because those commits wrote their memory again.
    pub decay_revived: Vec<String>,
    /// Whether memory/graph/index.md was regenerated.
    pub graph_index: bool,
    /// What looks like a credential in the lines those commits added, each with its commit:
    /// adoption cannot refuse a commit that exists, so it records the place in the file's audit
    /// line and the caller warns (`forget --purge` erases it from history).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<crate::sync::AddedSecret>,
}

/// The actor an outside commit's author is recorded as: the author name when it is a valid
/// actor name (`agent:claude`, `user:ann`, `test-agent`) other than cogmem's own `system:`
/// actors, else `user:` and the name with every character an actor cannot hold turned into
/// `-` (`Ann Example` → `user:Ann-Example`), else `user:unknown`. Names are hostile input: the
/// result is always a valid actor.
pub fn actor_of(name: &str) -> Actor {
    if let Ok(a) = Actor::parse(name)
        && !a.as_str().starts_with("system:")
    {
        return a;
    }
    let mut slug = String::new();
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '-' };
        if !(c == '-' && (slug.is_empty() || slug.ends_with('-'))) {
            slug.push(c);
        }
    }
    let slug: String = slug.trim_end_matches('-').chars().take(90).collect();
    let slug = if slug.is_empty() { "unknown".to_owned() } else { slug };
    Actor::parse(&format!("user:{slug}")).unwrap_or_else(|_| Actor::system("user:unknown"))
}

/// The commits made outside cogmem that are not adopted yet, oldest first. Reads only; when
/// there are none, records `HEAD` as seen (`.cogmem/adopted`, derived data), so the next call
/// is O(1).
pub fn pending(ws: &Workspace) -> crate::Result<Vec<OutsideCommit>> {
    let (outside, head) = look(ws)?;
    if outside.is_empty()
        && let Some(head) = head
    {
        mark_seen(ws, head);
    }
    Ok(outside)
}

/// [`pending`] without recording anything, for `verify`, which changes nothing.
pub fn waiting(ws: &Workspace) -> crate::Result<Vec<OutsideCommit>> {
    Ok(look(ws)?.0)
}

/// The pending commits, and `HEAD` when the marker is not it yet.
fn look(ws: &Workspace) -> crate::Result<(Vec<OutsideCommit>, Option<Oid>)> {
    let marker = git::seen_marker(ws.root());
    // The usual answer, from two small files: `HEAD` is where the marker says.
    if marker.is_some() && git::head_id_from_files(ws.root()) == marker {
        return Ok((Vec::new(), None));
    }
    let repo = git::open(ws.root())?;
    let Some(head) = git::head_id(&repo)? else { return Ok((Vec::new(), None)) };
    if marker == Some(head) {
        return Ok((Vec::new(), None));
    }
    Ok((outside_commits(&repo, head, marker)?, Some(head)))
}

/// Records `head` as the last commit cogmem has seen, so later commands do not look at the
/// history up to it again ([`git::mark_seen`]).
pub fn mark_seen(ws: &Workspace, head: Oid) {
    git::mark_seen(ws.root(), head);
}

/// Adopts every pending outside commit in one change by `system:adopt`, under the workspace
/// lock. Returns an empty report (and makes no commit) when there is nothing to adopt.
///
/// Fails when the workspace is locked, git is in the middle of a merge or rebase, or a file
/// the adoption writes (the audit log, the decay scores, the graph index) has uncommitted
/// edits: `cogmem sync` commits those first.
pub fn adopt(ws: &Workspace, clock: &dyn Clock) -> crate::Result<AdoptReport> {
    // The O(1) check first, without the lock: most commands have nothing to adopt.
    if pending(ws)?.is_empty() {
        return Ok(AdoptReport::default());
    }
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    git::check_state(&repo)?;
    adopt_locked(ws, &repo, &lock, clock)
}

/// [`adopt`] at the start of a writing operation, for callers that do not adopt themselves
/// (the MCP server, host hooks, embedders): best effort, since the operation goes on either
/// way and a later command adopts what this one could not (`verify` reports it meanwhile).
/// Nothing for a sub-agent caller, which may not commit.
pub(crate) fn settle(ws: &Workspace, clock: &dyn Clock) {
    if ws.options().is_subagent_caller() {
        return;
    }
    let _ = adopt(ws, clock);
}

/// [`adopt`] for a caller that holds the lock already.
pub fn adopt_locked(
    ws: &Workspace,
    repo: &Repository,
    lock: &LockGuard,
    clock: &dyn Clock,
) -> crate::Result<AdoptReport> {
    // Again under the lock: another process may have adopted them meanwhile.
    let commits = pending(ws)?;
    let mut report = AdoptReport { commits, ..AdoptReport::default() };
    if report.commits.is_empty() {
        return Ok(report);
    }
    let now = clock.now();
    let tree = git::head_tree(repo)?;
    let actor = Actor::system(ACTOR);
    let mut change = Change::new(actor, "cogmem adopt");
    // Each file as it was before the first of these commits that changed it.
    let mut before: BTreeMap<&str, Option<String>> = BTreeMap::new();
    // The audit lines of the hand edits, with each commit's author and time.
    for c in &report.commits {
        let who = actor_of(&c.author);
        let short = short(&c.commit);
        let commit = repo.find_commit(Oid::from_str(&c.commit).map_err(git_op("read a commit"))?);
        let commit = commit.map_err(git_op("read a commit"))?;
        let parent_tree = commit.parent(0).ok().and_then(|p| p.tree().ok());
        let own_tree = commit.tree().ok();
        for (path, action) in &c.files {
            let old = git::read_at_head(repo, parent_tree.as_ref(), path)?;
            let new = git::read_at_head(repo, own_tree.as_ref(), path)?;
            if !before.contains_key(path.as_str()) {
                let text = old.as_deref().map(|b| String::from_utf8_lossy(b).into_owned());
                before.insert(path, text);
            }
            let summary = crate::sync::hand_summary(path, old.as_deref(), new.as_deref())?;
            let found =
                crate::sync::added_secrets(Some(&c.commit), path, old.as_deref(), new.as_deref());
            let note = crate::sync::secret_note(&found);
            report.secrets.extend(found);
            change.record(AuditLine {
                timestamp: c.time,
                action: *action,
                file: path.clone(),
                actor: who.to_string(),
                approval: who.default_approval(),
                // The note before the commit id, which `audit_keys` reads at the end.
                summary: format!("{summary}{note}{IN_COMMIT}{short}"),
            });
            if ws.settings().audit.is_critical(path) {
                change.record(AuditLine::alert(path, c.time));
            }
        }
    }
    // Decay entries for the units of the files as HEAD has them.
    let mut created_at: BTreeMap<&str, DateTime<Utc>> = BTreeMap::new();
    for c in &report.commits {
        for (path, _) in &c.files {
            created_at.insert(path.as_str(), c.time);
        }
    }
    let mut texts: Vec<(&str, String, DateTime<Utc>)> = Vec::new();
    for (path, created) in &created_at {
        let Some(bytes) = git::read_at_head(repo, tree.as_ref(), path)? else { continue };
        texts.push((path, String::from_utf8_lossy(&bytes).into_owned(), *created));
    }
    // Entries of the units these commits removed are archived, or carried to a renamed
    // file's new id, as `sync` does for the hand edits it commits; then the units without an
    // entry get one.
    let after: Vec<(&str, &str)> = texts.iter().map(|(p, t, _)| (*p, t.as_str())).collect();
    let heads: Vec<(&str, &str)> =
        before.iter().filter_map(|(p, t)| Some((*p, t.as_deref()?))).collect();
    let removed = removal::removed_units(&heads, &after);
    let removed_from = heads.iter().filter(|(p, _)| removed.iter().any(|u| u.path == *p));
    let entities_changed = created_at.keys().any(|p| p.starts_with(layout::ENTITIES_DIR));
    let files = after.iter().chain(removed_from).copied();
    let mut decay = crate::sync::decay_for(ws, files, entities_changed)?;
    let who = removal::Settler {
        by: ACTOR,
        at: now.with_timezone(&Utc),
        reason: "removed from its file by a commit made outside cogmem, adopted",
    };
    let settled = removal::settle(&mut change, &mut decay, &removed, &heads, &after, &who);
    for (path, text, created) in &texts {
        let ids = crate::sync::insert_decay_entries(ws, &mut decay, path, text, *created);
        report.decay_entries.extend(ids);
    }
    let what = removal::summary(&report.decay_entries, &settled);
    report.decay_archived = settled.archived;
    report.decay_carried = settled.carried;
    report.decay_revived = settled.revived;
    if !what.is_empty() {
        change.write_decay(ws, &mut decay, Action::Edit, &what);
    }
    if entities_changed {
        crate::graph::regenerate_index_with(ws, &mut change, &decay)?;
        report.graph_index = change.pending(layout::GRAPH_INDEX).is_some();
    }
    let listed: Vec<String> = report
        .commits
        .iter()
        .map(|c| format!("{} by {}", short(&c.commit), actor_of(&c.author)))
        .collect();
    let n = report.commits.len();
    let plural = if n == 1 { "" } else { "s" };
    let summary = format!("adopted {n} commit{plural} made outside cogmem: {}", listed.join(", "));
    change.note(Action::Merge, layout::AUDIT_LOG, summary.clone());
    let change = change.with_subject(Action::Merge, summary);
    let applied = change.apply(ws, repo, lock, &FixedClock(now))?;
    if let Ok(id) = Oid::from_str(&applied.commit) {
        mark_seen(ws, id);
    }
    cogmem_index::index::update_after_change(ws);
    report.commit = Some(applied.commit);
    Ok(report)
}

fn git_op(what: &'static str) -> impl FnOnce(git2::Error) -> crate::Error {
    move |cause| cogmem_store::Error::from(git::GitError::Op { what, cause }).into()
}

/// How many of cogmem's own commits the fast check follows back to the marker before it walks
/// the history instead.
const OWN_CHAIN: usize = 64;

/// Tells whether cogmem made a commit: its committer is `cogmem` (the change engine, the
/// merge of `sync --remote`, `init`).
pub(crate) fn is_cogmem_commit(c: &git2::Commit<'_>) -> bool {
    c.committer().name_bytes() == b"cogmem"
}

/// The commits after `marker` (or, without a usable marker, after the newest commit cogmem
/// made on the first-parent chain) that cogmem did not make and the audit log does not
/// record, oldest first.
fn outside_commits(
    repo: &Repository,
    head: Oid,
    marker: Option<Oid>,
) -> crate::Result<Vec<OutsideCommit>> {
    // The common case: HEAD reaches the marker through cogmem's own commits, each with one
    // parent (the commits of the commands since the last look). Then nothing was made outside
    // cogmem, and the history is not walked: libgit2's descendant check and topological walk
    // parse far more than the few commits between them (about 20 ms a write at 10,000
    // commits, more as the history grows; issue 20).
    if marker.is_some_and(|m| {
        git::first_parent_chain(repo, head, m, OWN_CHAIN, is_cogmem_commit).is_some()
    }) {
        return Ok(Vec::new());
    }
    let base = match marker.filter(|m| repo.graph_descendant_of(head, *m).unwrap_or(false)) {
        Some(m) => m,
        None => match newest_cogmem_commit(repo, head)? {
            Some(c) => c,
            None => return Ok(Vec::new()), // no commit of cogmem's: nothing is its to settle
        },
    };
    if base == head {
        return Ok(Vec::new());
    }
    let walk_err = git_op("walk the history");
    let mut walk = repo.revwalk().map_err(walk_err)?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).map_err(git_op("walk the history"))?;
    walk.push(head).map_err(git_op("walk the history"))?;
    walk.hide(base).map_err(git_op("walk the history"))?;
    let mut found = Vec::new();
    for id in walk {
        let id = id.map_err(git_op("walk the history"))?;
        let c = repo.find_commit(id).map_err(git_op("read a commit"))?;
        if is_cogmem_commit(&c) {
            continue;
        }
        let files = changed_files(repo, &c)?;
        if files.is_empty() {
            continue;
        }
        let time = DateTime::from_timestamp(c.author().when().seconds(), 0).unwrap_or_default();
        found.push(OutsideCommit {
            commit: id.to_string(),
            author: String::from_utf8_lossy(c.author().name_bytes()).into_owned(),
            time,
            subject: git::subject(&c),
            files,
        });
    }
    if found.is_empty() {
        return Ok(found);
    }
    // A commit the audit log already records (a line at its author second ending `in commit
    // ID8`) was adopted before: by a peer whose adoption `sync --remote` brought in, or by an
    // adoption whose marker was lost. The id tells apart two commits of one second.
    let recorded = audit_keys(repo)?;
    found.retain(|c| !recorded.contains(&(c.time.timestamp(), short(&c.commit).to_owned())));
    Ok(found)
}

fn newest_cogmem_commit(repo: &Repository, head: Oid) -> crate::Result<Option<Oid>> {
    let mut id = head;
    loop {
        let c = repo.find_commit(id).map_err(git_op("read a commit"))?;
        if is_cogmem_commit(&c) {
            return Ok(Some(id));
        }
        match c.parent_id(0) {
            Ok(p) => id = p,
            Err(_) => return Ok(None),
        }
    }
}

/// The memory files ([`holds_memories`]) a commit changed compared with its first parent (every
/// file for a root commit), minus editor junk.
fn changed_files(repo: &Repository, c: &git2::Commit<'_>) -> crate::Result<Vec<(String, Action)>> {
    let tree = c.tree().map_err(git_op("read a tree"))?;
    let parent = c.parent(0).ok().and_then(|p| p.tree().ok());
    let diff = repo
        .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
        .map_err(git_op("compare a commit with its parent"))?;
    let mut out: BTreeMap<String, Action> = BTreeMap::new();
    for d in diff.deltas() {
        let action = match d.status() {
            git2::Delta::Added => Action::Create,
            git2::Delta::Deleted => Action::Delete,
            _ => Action::Edit,
        };
        let file = if action == Action::Delete { d.old_file() } else { d.new_file() };
        // A link or a submodule is no memory file, whatever its name (a peer's link into
        // `.git/` is refused where it is written, issue 16).
        if !matches!(file.mode(), git2::FileMode::Blob | git2::FileMode::BlobExecutable) {
            continue;
        }
        let Some(path) = file.path().and_then(|p| p.to_str()) else { continue };
        if crate::sync::is_ignored(path) || !holds_memories(path) {
            continue;
        }
        out.insert(path.to_owned(), action);
    }
    Ok(out.into_iter().collect())
}

/// Tells whether a file holds memories, which adoption settles: MEMORY.md, IDENTITY.md,
/// SOUL.md, and the `*.md` files of the four stores. A commit of `cogmem.toml`, `AGENTS.md` or
/// cogmem's own records under `memory/meta/` needs no decay entry, graph index or audit line
/// (cogmem writes the records; a hand edit of them is `sync`'s to check), and is not adopted.
pub fn holds_memories(rel: &str) -> bool {
    if [layout::MEMORY_MD, layout::IDENTITY_MD, layout::SOUL_MD].contains(&rel) {
        return true;
    }
    rel.ends_with(".md")
        && rel
            .rsplit_once('/')
            .is_some_and(|(dir, _)| units::DIRS.iter().any(|(d, _, _)| *d == dir))
}

/// (second, commit id prefix) of every adopted hand edit's line in the audit log at `HEAD`
/// (segments and `audit.log`): the lines whose summary ends `in commit ID8`.
fn audit_keys(repo: &Repository) -> crate::Result<HashSet<(i64, String)>> {
    let mut keys = HashSet::new();
    for (_, text) in crate::doctor::head_audit_log(repo)? {
        for raw in text.lines() {
            let Ok(Some(f)) = RawFields::split(raw) else { continue };
            let Some((_, id)) = f.summary.trim_end().rsplit_once(IN_COMMIT) else { continue };
            if let Some(t) = cogmem_text::date::parse_stored(f.timestamp) {
                keys.insert((t.timestamp(), id.to_owned()));
            }
        }
    }
    Ok(keys)
}

/// What ends the summary of an adopted hand edit's audit line, before the commit's id prefix.
const IN_COMMIT: &str = " in commit ";

/// The 8-character prefix of a commit id that audit lines and messages name it by.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_become_valid_actors() {
        let cases = [
            ("agent:claude", "agent:claude"),
            ("test-agent", "test-agent"),
            ("Ann Example", "user:Ann-Example"),
            ("system:init", "user:system-init"),
            ("  ", "user:unknown"),
            ("Zoë | x\nACK", "user:Zo-x-ACK"),
        ];
        for (input, want) in cases {
            assert_eq!(actor_of(input).as_str(), want, "input: {input:?}");
        }
    }

    #[test]
    fn only_memory_files_are_adopted() {
        let cases = [
            ("MEMORY.md", true),
            ("SOUL.md", true),
            ("memory/graph/entities/person--alice.md", true),
            ("memory/episodes/2026-12-01.md", true),
            ("memory/vault/x.md", true),
            ("memory/meta/decay-scores.json", false),
            ("memory/meta/audit.log", false),
            ("memory/graph/index.md", false),
            ("memory/graph/entities/sub/x.md", false),
            ("cogmem.toml", false),
            ("AGENTS.md", false),
        ];
        for (input, want) in cases {
            assert_eq!(holds_memories(input), want, "input: {input:?}");
        }
    }
}
