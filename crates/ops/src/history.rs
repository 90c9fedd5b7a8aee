//! A memory's history and a commit's changes, read from git: what the web view's memory page
//! and audit pages show (issue 21). Read-only: it walks commits and diffs blobs, and never
//! writes a file, the index or a commit.
//!
//! One diff code serves both: [`commit`] diffs every file a commit touched, [`memory`] diffs
//! the one file holding a memory and, when the file holds several memories (a day of episodes,
//! MEMORY.md's bullets), keeps only the hunks that change this memory's lines.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::DateTime;
use git2::{Commit, Oid, Repository, Tree};
use serde::Serialize;

use crate::error::InputError;
use cogmem_store::audit::AuditLine;
use cogmem_store::git::{self, GitError};
use cogmem_store::store::Store;
use cogmem_store::store::units::MemoryUnit;
use cogmem_store::workspace::Workspace;

/// How many commits [`memory`] reads at most before it stops (and says so in `complete`).
pub const WALK_LIMIT: usize = 20_000;

/// A file larger than this is not diffed; its change is described in one line instead.
const DIFF_BYTES: usize = 1 << 20;

/// One commit, as the history and audit pages list it.
#[derive(Debug, Clone, Serialize)]
pub struct CommitHead {
    /// Full commit id.
    pub id: String,
    /// The first line of the message.
    pub subject: String,
    /// Who made it: the `Actor:` trailer, else the git author.
    pub actor: String,
    /// The `Approval:` trailer, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<String>,
    /// Commit time in UTC, RFC 3339 to the second.
    pub time: String,
}

/// One file a commit changed.
#[derive(Debug, Clone, Serialize)]
pub struct FileDiff {
    /// The file, relative to the workspace root.
    pub path: String,
    /// `added`, `deleted` or `modified`.
    pub status: &'static str,
    /// The unified diff (`---`/`+++` lines, then hunks), or a one-line note for a binary or
    /// very large file.
    pub diff: String,
}

/// A commit with its message and every file it changed.
#[derive(Debug, Clone, Serialize)]
pub struct CommitDiff {
    /// The commit.
    pub commit: CommitHead,
    /// Its whole message.
    pub message: String,
    /// Its parents' ids.
    pub parents: Vec<String>,
    /// The files it changed (against its first parent), in path order.
    pub files: Vec<FileDiff>,
}

/// A commit that changed a memory, with the part of the diff about it.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryChange {
    /// The commit.
    pub commit: CommitHead,
    /// The diff of the memory's file, restricted to the memory's hunks where the file holds
    /// several memories.
    pub diff: String,
}

/// The commits that changed one memory, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryHistory {
    /// The memory's id.
    pub id: String,
    /// Its file.
    pub path: String,
    /// The changes, newest first.
    pub changes: Vec<MemoryChange>,
    /// False when the walk stopped at [`WALK_LIMIT`] commits before reaching the file's
    /// creation: older changes may exist.
    pub complete: bool,
}

fn git_op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

fn head_of(c: &Commit<'_>) -> CommitHead {
    let message = String::from_utf8_lossy(c.message_bytes()).into_owned();
    let author = String::from_utf8_lossy(c.author().name_bytes()).into_owned();
    let actor = crate::audit::trailer(&message, "Actor").map_or(author, str::to_owned);
    let approval = crate::audit::trailer(&message, "Approval").map(str::to_owned);
    let time = DateTime::from_timestamp(c.time().seconds(), 0)
        .map(|t| cogmem_text::clock::utc_seconds(&t.fixed_offset()))
        .unwrap_or_default();
    CommitHead { id: c.id().to_string(), subject: git::subject(c), actor, approval, time }
}

/// Finds a commit by its full id or a unique start of it (at least 4 hex digits).
fn find<'r>(repo: &'r Repository, rev: &str) -> crate::Result<Commit<'r>> {
    let unknown = || InputError::UnknownCommit { rev: rev.to_owned() };
    // Only hex digits: a ref name or `HEAD~2` is not an id, and must not be resolved as one.
    if !(4..=40).contains(&rev.len()) || !rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(unknown().into());
    }
    let object = repo.revparse_single(rev).map_err(|_| unknown())?;
    Ok(object.peel_to_commit().map_err(|_| unknown())?)
}

/// The text of `path` in `tree`, `None` when it is absent; lossy for invalid UTF-8.
fn blob_at(repo: &Repository, tree: Option<&Tree<'_>>, path: &str) -> crate::Result<Option<Blob>> {
    let Some(entry) = tree.and_then(|t| t.get_path(Path::new(path)).ok()) else { return Ok(None) };
    let blob = repo.find_blob(entry.id()).map_err(git_op("read a file"))?;
    Ok(Some(Blob { binary: blob.is_binary(), bytes: blob.content().to_vec() }))
}

struct Blob {
    binary: bool,
    bytes: Vec<u8>,
}

/// The unified diff of one file between two versions (either may be absent).
fn file_diff(path: &str, old: Option<&Blob>, new: Option<&Blob>) -> crate::Result<String> {
    let size = old.map_or(0, |b| b.bytes.len()).max(new.map_or(0, |b| b.bytes.len()));
    if old.is_some_and(|b| b.binary) || new.is_some_and(|b| b.binary) {
        return Ok(format!("binary file {path} changed\n"));
    }
    if size > DIFF_BYTES {
        return Ok(format!("{path} is {size} bytes, too large to show here; use `git show`\n"));
    }
    let text = |b: Option<&Blob>| b.map(|b| String::from_utf8_lossy(&b.bytes).into_owned());
    let (a, b) = (text(old), text(new));
    let old_label = if a.is_some() { format!("a/{path}") } else { "/dev/null".to_owned() };
    let new_label = if b.is_some() { format!("b/{path}") } else { "/dev/null".to_owned() };
    Ok(git::unified_diff(
        (&old_label, a.as_deref().unwrap_or("")),
        (&new_label, b.as_deref().unwrap_or("")),
    )?)
}

/// Reads one commit: its message and the diff of every file it changed against its first
/// parent (the root commit against nothing).
///
/// Fails with [`InputError::UnknownCommit`] when `rev` is not the id or a unique start of the
/// id (4 to 40 hex digits) of a commit in the workspace's repository.
pub fn commit(ws: &Workspace, rev: &str) -> crate::Result<CommitDiff> {
    let repo = git::open(ws.root())?;
    let c = find(&repo, rev)?;
    let tree = c.tree().map_err(git_op("read a commit's tree"))?;
    let parent_tree = match c.parents().next() {
        Some(p) => Some(p.tree().map_err(git_op("read a commit's tree"))?),
        None => None,
    };
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
        .map_err(git_op("diff a commit"))?;
    let mut files = Vec::new();
    for delta in diff.deltas() {
        let path = delta
            .new_file()
            .path()
            .or_else(|| delta.old_file().path())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let old = blob_at(&repo, parent_tree.as_ref(), &path)?;
        let new = blob_at(&repo, Some(&tree), &path)?;
        let status = match (&old, &new) {
            (None, _) => "added",
            (_, None) => "deleted",
            _ => "modified",
        };
        files.push(FileDiff { diff: file_diff(&path, old.as_ref(), new.as_ref())?, path, status });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(CommitDiff {
        commit: head_of(&c),
        message: String::from_utf8_lossy(c.message_bytes()).into_owned(),
        parents: c.parent_ids().map(|p| p.to_string()).collect(),
        files,
    })
}

/// Splits a unified diff into its header (the `---`/`+++` lines) and its hunks (each from its
/// `@@` line).
fn hunks(diff: &str) -> (String, Vec<String>) {
    let mut head = String::new();
    let mut out: Vec<String> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("@@") {
            out.push(String::new());
        }
        match out.last_mut() {
            Some(h) => h.push_str(line),
            None => head.push_str(line),
        }
    }
    (head, out)
}

/// A line as a memory's text holds it: without a bullet marker (a MEMORY.md bullet's text is
/// what follows `- `), whitespace runs as one space.
fn norm(line: &str) -> String {
    let t = line.trim();
    cogmem_text::markdown::one_line(t.strip_prefix("- ").unwrap_or(t))
}

/// The lines a hunk removes and adds, [`norm`]ed, without empty ones.
fn changed_lines(hunk: &str) -> impl Iterator<Item = (char, String)> {
    hunk.lines().skip(1).filter_map(|l| {
        let mut chars = l.chars();
        let sign = chars.next()?;
        let rest = norm(chars.as_str());
        (matches!(sign, '+' | '-') && !rest.is_empty()).then_some((sign, rest))
    })
}

/// Keeps the hunks of `diff` that add or remove one of `wanted`'s lines, and adds the lines
/// those hunks remove to `wanted` (walking back in time, they are the memory's earlier text).
/// Returns `None` when no hunk is about the memory.
fn restrict(diff: &str, wanted: &mut HashSet<String>) -> Option<String> {
    let (head, all) = hunks(diff);
    let mut kept = String::new();
    for h in all {
        if changed_lines(&h).any(|(_, l)| wanted.contains(&l)) {
            let old: Vec<String> =
                changed_lines(&h).filter(|(s, _)| *s == '-').map(|(_, l)| l).collect();
            wanted.extend(old);
            kept.push_str(&h);
        }
    }
    (!kept.is_empty()).then(|| head + &kept)
}

/// Lists the commits that changed `unit`, newest first, at most `limit` of them, each with the
/// diff of its file — only the hunks about this memory when the file holds several (episodes,
/// MEMORY.md); the whole file's diff for an entity, a procedure or a vault note.
///
/// The walk follows first parents and the file by its current path (a rename ends it). It stops
/// at the file's creation, after `limit` changes, or after [`WALK_LIMIT`] commits (then
/// `complete` is false).
pub fn memory(ws: &Workspace, unit: &MemoryUnit, limit: usize) -> crate::Result<MemoryHistory> {
    let repo = git::open(ws.root())?;
    let mut out = MemoryHistory {
        id: unit.id.clone(),
        path: unit.path.clone(),
        changes: Vec::new(),
        complete: true,
    };
    let Some(head) = git::head_id(&repo)? else { return Ok(out) };
    let whole_file = matches!(unit.store, Store::Semantic | Store::Procedural | Store::Vault);
    // The memory's lines as read and as written: a line Markdown would misread (`# …`,
    // `<b>…`) is in its file with a `\` before it (`markdown::paragraph`).
    let mut wanted: HashSet<String> = unit
        .text
        .lines()
        .flat_map(|l| [norm(l), norm(&cogmem_text::markdown::paragraph_line(l))])
        .filter(|l| !l.is_empty())
        .collect();
    let path = unit.path.as_str();
    let mut c = repo.find_commit(head).map_err(git_op("read a commit"))?;
    let mut entry = c.tree().ok().and_then(|t| t.get_path(Path::new(path)).ok().map(|e| e.id()));
    let mut walked = 0;
    loop {
        walked += 1;
        if walked > WALK_LIMIT {
            out.complete = false;
            break;
        }
        let parent = c.parents().next();
        let parent_entry = parent.as_ref().and_then(|p| {
            p.tree().ok().and_then(|t| t.get_path(Path::new(path)).ok().map(|e| e.id()))
        });
        if entry.is_some() && entry != parent_entry {
            let tree = c.tree().map_err(git_op("read a commit's tree"))?;
            let ptree = match &parent {
                Some(p) => Some(p.tree().map_err(git_op("read a commit's tree"))?),
                None => None,
            };
            let old = blob_at(&repo, ptree.as_ref(), path)?;
            let new = blob_at(&repo, Some(&tree), path)?;
            let diff = file_diff(path, old.as_ref(), new.as_ref())?;
            let diff = if whole_file { Some(diff) } else { restrict(&diff, &mut wanted) };
            if let Some(diff) = diff {
                out.changes.push(MemoryChange { commit: head_of(&c), diff });
                if out.changes.len() >= limit {
                    break;
                }
            }
        }
        // The file did not exist before this commit: nothing older is about it.
        let Some(p) = parent.filter(|_| parent_entry.is_some()) else { break };
        c = p;
        entry = parent_entry;
    }
    Ok(out)
}

/// Finds the commit that wrote each audit line: the commit with the line's time (to the second)
/// and actor, as the change engine makes them (one `now` for the commit and its audit lines),
/// else the newest commit of that second (an ALERT line is `system:audit`'s in another actor's
/// commit). Returns one entry per line, `None` where no commit matches (a line copied in by
/// hand).
///
/// Walks back from HEAD only as far as the oldest line's time, so listing the recent lines
/// reads only the recent commits.
pub fn commits_of(ws: &Workspace, lines: &[AuditLine]) -> crate::Result<Vec<Option<String>>> {
    let Some(oldest) = lines.iter().map(|l| l.timestamp.timestamp()).min() else {
        return Ok(Vec::new());
    };
    let repo = git::open(ws.root())?;
    let mut by_key: HashMap<(i64, String), String> = HashMap::new();
    let mut by_second: HashMap<i64, String> = HashMap::new();
    if let Some(head) = git::head_id(&repo)? {
        let mut walk = repo.revwalk().map_err(git_op("walk the history"))?;
        walk.push(head).map_err(git_op("walk the history"))?;
        walk.set_sorting(git2::Sort::TIME).map_err(git_op("walk the history"))?;
        for oid in walk {
            let oid: Oid = oid.map_err(git_op("walk the history"))?;
            let c = repo.find_commit(oid).map_err(git_op("read a commit"))?;
            let secs = c.time().seconds();
            if secs < oldest {
                break;
            }
            let actor = head_of(&c).actor;
            by_key.entry((secs, actor)).or_insert_with(|| oid.to_string());
            by_second.entry(secs).or_insert_with(|| oid.to_string());
        }
    }
    Ok(lines
        .iter()
        .map(|l| {
            let secs = l.timestamp.timestamp();
            by_key.get(&(secs, l.actor.clone())).or_else(|| by_second.get(&secs)).cloned()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_hunks_about_the_memory_and_follows_its_old_text() {
        let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-old text\n+new text\n@@ -9 +9,2 @@\n z\n+other entry\n";
        let mut wanted: HashSet<String> = ["new text".to_owned()].into();
        let kept = restrict(diff, &mut wanted).expect("the first hunk is about it");
        assert_eq!(kept, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-old text\n+new text\n");
        assert!(wanted.contains("old text"), "the earlier text is followed: {wanted:?}");
        let mut none: HashSet<String> = ["absent".to_owned()].into();
        assert_eq!(restrict(diff, &mut none), None);
    }

    #[test]
    fn splits_hunks_at_their_headers() {
        let (head, hs) = hunks("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n@@ -5 +5 @@\n-p\n+q\n");
        assert_eq!(head, "--- a\n+++ b\n");
        assert_eq!(hs, ["@@ -1 +1 @@\n-x\n+y\n", "@@ -5 +5 @@\n-p\n+q\n"]);
    }
}
