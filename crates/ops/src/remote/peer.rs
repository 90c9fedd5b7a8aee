//! What `sync --remote` refuses to take from another machine's history: checked after the
//! fetch and before anything is written (working tree, index, branch or `refs/cogmem/`).
//!
//! - A committed symbolic link or submodule (mode `120000` or `160000`): a fast-forward would
//!   check the link out and a merge would turn it into a regular file holding the target's
//!   path, committed and indexed as a memory. cogmem never takes a link from a peer.
//!
//! Never writes anything; every refusal names the paths.

use git2::{Delta, FileMode, Oid, Repository, Tree};

use super::RemoteError;
use cogmem_store::git::GitError;

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

/// Refuses the remote's tip `theirs` when bringing it into `local` would bring what a peer may
/// not commit.
pub(super) fn check(
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
