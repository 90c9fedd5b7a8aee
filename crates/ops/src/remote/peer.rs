//! What `sync --remote` refuses to take from another machine's history: checked after the
//! fetch and before anything is written (working tree, index, branch or `refs/cogmem/`).
//!
//! - A committed symbolic link or submodule (mode `120000` or `160000`): a fast-forward would
//!   check the link out and a merge would turn it into a regular file holding the target's
//!   path, committed and indexed as a memory. cogmem never takes a link from a peer.
//! - An audit log that is not an append of the common ancestor's: every entry line the
//!   ancestor's log held (`audit.log` and its sealed parts together, so a rotation moves lines
//!   without losing them) must still be in the remote's, in any order (a union merge with a
//!   third machine interleaves lines by time). The one exception is `audit compact`, which
//!   moves old lines into `audit-archive.md`: a line is let go only when the remote's new lines
//!   record a compaction whose cutoff is after it, and the archive's digest of its month grew
//!   by at least the lines that left it (docs/decisions.md says why that is the most a sync
//!   can check).
//!
//! Never writes anything; every refusal names the paths.

use std::collections::{BTreeMap, HashSet};

use git2::{Delta, FileMode, Oid, Repository, Tree};

use super::RemoteError;
use cogmem_store::audit::AuditLine;
use cogmem_store::audit::archive::Archive;
use cogmem_store::git::GitError;
use cogmem_store::workspace::layout;

/// Where the other machine's history comes from, for the messages.
pub(super) struct Peer<'a> {
    /// The remote's name.
    pub name: &'a str,
    /// Its branch.
    pub branch: &'a str,
}

fn op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

fn tree_of(repo: &Repository, id: Oid) -> crate::Result<Tree<'_>> {
    Ok(repo.find_commit(id).and_then(|c| c.tree()).map_err(op("read a commit's tree"))?)
}

/// Refuses the remote's tip `theirs` when bringing it into `local` would bring a symbolic link
/// or a submodule.
pub(super) fn check_links(
    repo: &Repository,
    peer: &Peer<'_>,
    local: Oid,
    theirs: Oid,
) -> crate::Result<()> {
    let ours = tree_of(repo, local)?;
    let tip = tree_of(repo, theirs)?;
    let links = links_brought(repo, &ours, &tip)?;
    if !links.is_empty() {
        return Err(RemoteError::PeerLinks {
            name: peer.name.to_owned(),
            branch: peer.branch.to_owned(),
            paths: links,
        }
        .into());
    }
    Ok(())
}

/// Refuses the remote's tip `theirs` when its audit log is not an append of the one it shares
/// with `local` (the merge base). Called after the purge guard: a purge's rewritten history
/// scrubs audit lines, and is that guard's to judge.
pub(super) fn check_audit(
    repo: &Repository,
    peer: &Peer<'_>,
    local: Oid,
    theirs: Oid,
) -> crate::Result<()> {
    let tip = tree_of(repo, theirs)?;
    let base = match repo.merge_base(local, theirs) {
        Ok(id) => id,
        // Unrelated histories (two `init`s): no earlier log to keep.
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(()),
        Err(cause) => return Err(GitError::Op { what: "find the common ancestor", cause }.into()),
    };
    if base == theirs {
        return Ok(());
    }
    let base = tree_of(repo, base)?;
    if let Some(lost) = audit_lines_lost(repo, &base, &tip)? {
        return Err(RemoteError::PeerAuditRewritten {
            name: peer.name.to_owned(),
            branch: peer.branch.to_owned(),
            path: lost.path,
            line: lost.line,
            text: lost.text,
            count: lost.count,
        }
        .into());
    }
    Ok(())
}

/// An audit line of the common ancestor that the remote's log no longer holds.
struct Lost {
    /// The ancestor's file that held the first one.
    path: String,
    /// Its 1-based line there.
    line: usize,
    /// Its text.
    text: String,
    /// How many lines were lost in all.
    count: usize,
}

/// Tells whether `rel` is one of the files of the audit log.
fn is_log_file(rel: &str) -> bool {
    rel == layout::AUDIT_LOG || layout::is_audit_segment(rel)
}

/// The entry lines of one audit-log file (headers, comments and blank lines are not entries),
/// with their 1-based line numbers, trailing blanks trimmed as the merge trims them.
fn entry_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

fn blob_text(repo: &Repository, tree: &Tree<'_>, rel: &str) -> crate::Result<Option<String>> {
    let Ok(entry) = tree.get_path(std::path::Path::new(rel)) else { return Ok(None) };
    let blob = repo.find_blob(entry.id()).map_err(op("read a file of the history"))?;
    Ok(Some(String::from_utf8_lossy(blob.content()).into_owned()))
}

/// The first audit line of `base`'s log that `theirs`' log lacks and no compaction of theirs
/// accounts for, with how many there are; `None` when theirs keeps every one. Reads only the
/// log files the two trees hold differently.
fn audit_lines_lost(
    repo: &Repository,
    base: &Tree<'_>,
    theirs: &Tree<'_>,
) -> crate::Result<Option<Lost>> {
    let mut opts = git2::DiffOptions::new();
    opts.pathspec(layout::AUDIT_LOG).pathspec(format!("{}/", layout::AUDIT_SEGMENTS_DIR));
    let diff = repo
        .diff_tree_to_tree(Some(base), Some(theirs), Some(&mut opts))
        .map_err(op("compare the audit logs"))?;
    let path_of = |f: git2::DiffFile<'_>| f.path().map(|p| p.to_string_lossy().into_owned());
    let mut old_files = Vec::new();
    let mut new_files = Vec::new();
    for d in diff.deltas() {
        if let Some(p) =
            path_of(d.old_file()).filter(|p| is_log_file(p) && d.status() != Delta::Added)
        {
            old_files.push(p);
        }
        if let Some(p) =
            path_of(d.new_file()).filter(|p| is_log_file(p) && d.status() != Delta::Deleted)
        {
            new_files.push(p);
        }
    }
    if old_files.is_empty() {
        return Ok(None); // nothing the ancestor had was changed
    }
    let mut old = Vec::new();
    for rel in &old_files {
        old.push((rel.clone(), blob_text(repo, base, rel)?.unwrap_or_default()));
    }
    let mut new_text = String::new();
    for rel in &new_files {
        new_text.push_str(&blob_text(repo, theirs, rel)?.unwrap_or_default());
        new_text.push('\n');
    }
    let kept: HashSet<&str> = entry_lines(&new_text).map(|(_, l)| l).collect();
    let mut missing: Vec<(&str, usize, &str)> = old
        .iter()
        .flat_map(|(rel, text)| entry_lines(text).map(move |(n, l)| (rel.as_str(), n, l)))
        .filter(|(_, _, l)| !kept.contains(l))
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    // A line may also be in a log file the two trees hold alike (a segment both sides have):
    // look at the remote's whole log before calling it lost.
    let mut whole = String::new();
    let segments = theirs
        .get_path(std::path::Path::new(layout::AUDIT_SEGMENTS_DIR))
        .ok()
        .and_then(|e| repo.find_tree(e.id()).ok());
    for e in segments.iter().flat_map(|t| t.iter()) {
        let rel = format!("{}/{}", layout::AUDIT_SEGMENTS_DIR, e.name().unwrap_or_default());
        if is_log_file(&rel) && !new_files.contains(&rel) {
            whole.push_str(&blob_text(repo, theirs, &rel)?.unwrap_or_default());
            whole.push('\n');
        }
    }
    let elsewhere: HashSet<&str> = entry_lines(&whole).map(|(_, l)| l).collect();
    missing.retain(|(_, _, l)| !elsewhere.contains(l));
    if missing.is_empty() {
        return Ok(None);
    }
    // The lines the remote added: a compaction among them may account for lines that left.
    let had: HashSet<&str> = old.iter().flat_map(|(_, t)| entry_lines(t).map(|(_, l)| l)).collect();
    let added: String = entry_lines(&new_text)
        .filter(|(_, l)| !had.contains(l))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    if let Some(cutoff) = crate::audit::compacted_before(&added) {
        let archive = |tree: &Tree<'_>| -> crate::Result<Archive> {
            Ok(Archive::parse(&blob_text(repo, tree, layout::AUDIT_ARCHIVE)?.unwrap_or_default()))
        };
        let (before, after) = (archive(base)?, archive(theirs)?);
        let mut moved: BTreeMap<String, usize> = BTreeMap::new();
        for (_, _, l) in &missing {
            if let Ok(Some(a)) = AuditLine::parse(l)
                && a.timestamp < cutoff
            {
                *moved.entry(a.timestamp.format("%Y-%m").to_string()).or_default() += 1;
            }
        }
        let grew = |month: &str| {
            let lines = |a: &Archive| a.months.get(month).map_or(0, |d| d.lines);
            lines(&after).saturating_sub(lines(&before))
        };
        let accounted: HashSet<String> =
            moved.into_iter().filter(|(m, n)| grew(m) >= *n).map(|(m, _)| m).collect();
        missing.retain(|(_, _, l)| {
            !AuditLine::parse(l).ok().flatten().is_some_and(|a| {
                a.timestamp < cutoff && accounted.contains(&a.timestamp.format("%Y-%m").to_string())
            })
        });
    }
    let count = missing.len();
    Ok(missing.first().map(|&(path, line, text)| Lost {
        path: path.to_owned(),
        line,
        text: text.to_owned(),
        count,
    }))
}

/// The paths whose entry in `theirs` is a symbolic link or a submodule and differs from ours.
fn links_brought(
    repo: &Repository,
    ours: &Tree<'_>,
    theirs: &Tree<'_>,
) -> crate::Result<Vec<String>> {
    let diff = repo
        .diff_tree_to_tree(Some(ours), Some(theirs), None)
        .map_err(op("compare our files with the remote's"))?;
    let mut out = Vec::new();
    for d in diff.deltas() {
        if matches!(d.status(), Delta::Deleted) {
            continue;
        }
        let file = d.new_file();
        if matches!(file.mode(), FileMode::Link | FileMode::Commit) {
            out.push(file.path().map_or_else(String::new, |p| p.to_string_lossy().into_owned()));
        }
    }
    Ok(out)
}
