//! Keeping purged text out: whether commits hold a line that a tombstone marks
//! (`memory/meta/purged`), for `sync --remote`, which must never bring purged text back.

use std::collections::HashMap;

use git2::{Oid, Repository, Tree};

use super::rewrite::gerr;
use cogmem_store::store::purged::Tombstones;
use cogmem_store::workspace::layout;

/// The tombstones in the tree of `commit` (none when it has no tombstone file).
///
/// Fails when the file is there but malformed.
pub(crate) fn tombstones_at(repo: &Repository, commit: Oid) -> crate::Result<Tombstones> {
    let tree = repo.find_commit(commit).and_then(|c| c.tree()).map_err(gerr("read a commit"))?;
    let Ok(entry) = tree.get_path(std::path::Path::new(layout::PURGED)) else {
        return Ok(Tombstones::default());
    };
    let blob = repo.find_blob(entry.id()).map_err(gerr("read the tombstones"))?;
    let text = String::from_utf8_lossy(blob.content());
    Ok(Tombstones::parse(std::path::Path::new(layout::PURGED), &text)?)
}

/// Finds a commit reachable from `from` but not from `hide` whose files hold a line of purged
/// text; `None` when none does.
pub(crate) fn first_holding(
    repo: &Repository,
    from: Oid,
    hide: Option<Oid>,
    tombs: &Tombstones,
) -> crate::Result<Option<Oid>> {
    if tombs.is_empty() {
        return Ok(None);
    }
    let mut walk = repo.revwalk().map_err(gerr("walk the history"))?;
    walk.push(from).map_err(gerr("walk the history"))?;
    if let Some(h) = hide {
        walk.hide(h).map_err(gerr("walk the history"))?;
    }
    let mut scan = Scan { repo, tombs, trees: HashMap::new(), blobs: HashMap::new() };
    for id in walk {
        let id = id.map_err(gerr("walk the history"))?;
        let tree = repo.find_commit(id).and_then(|c| c.tree()).map_err(gerr("read a commit"))?;
        if scan.tree(&tree)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

struct Scan<'r> {
    repo: &'r Repository,
    tombs: &'r Tombstones,
    trees: HashMap<Oid, bool>,
    blobs: HashMap<Oid, bool>,
}

impl Scan<'_> {
    fn tree(&mut self, tree: &Tree<'_>) -> crate::Result<bool> {
        if let Some(done) = self.trees.get(&tree.id()) {
            return Ok(*done);
        }
        let mut holds = false;
        for entry in tree {
            holds = match entry.kind() {
                Some(git2::ObjectType::Blob) => {
                    if let Some(done) = self.blobs.get(&entry.id()) {
                        *done
                    } else {
                        let blob = self.repo.find_blob(entry.id()).map_err(gerr("read a blob"))?;
                        let h = self.tombs.holds(&String::from_utf8_lossy(blob.content()));
                        self.blobs.insert(entry.id(), h);
                        h
                    }
                }
                Some(git2::ObjectType::Tree) => {
                    let sub = self.repo.find_tree(entry.id()).map_err(gerr("read a tree"))?;
                    self.tree(&sub)?
                }
                _ => false,
            };
            if holds {
                break;
            }
        }
        self.trees.insert(tree.id(), holds);
        Ok(holds)
    }
}
