//! Re-creating history without the purged text: every commit reachable from the rewritten refs
//! (local branches, tags, cogmem's own refs), oldest first, with each blob, file name and
//! message that holds a needle scrubbed; authors, committers and times are kept. Annotated tags
//! are re-created with their tagger and scrubbed message. Rewriting a history that holds no
//! needle changes nothing, so a purge run again over its own result is a no-op: that is what
//! makes an interrupted purge safe to finish.

use std::collections::HashMap;

use git2::{Oid, Repository, Sort, Tree};
use serde::Serialize;

use super::needle::Needles;
use cogmem_store::Workspace;
use cogmem_store::git::GitError;
use cogmem_store::progress::{Progress, Silent, Task};

/// The namespace of backup refs.
pub(crate) const BACKUP_PREFIX: &str = "refs/cogmem/pre-purge/";

pub(crate) fn gerr(what: &'static str) -> impl FnOnce(git2::Error) -> crate::Error {
    move |cause| GitError::Op { what, cause }.into()
}

/// One commit that holds the text.
#[derive(Debug, Clone, Serialize)]
pub struct PurgedCommit {
    /// The commit as it was.
    pub commit: String,
    /// The first line of its message (scrubbed).
    pub subject: String,
    /// Files in its tree that hold the text (in their name or their content), named as they
    /// will be after the purge.
    pub files: Vec<String>,
    /// Whether its message holds the text.
    pub message: bool,
}

/// A ref and where the rewrite moves it.
#[derive(Debug, Clone)]
pub(crate) struct Moved {
    pub name: String,
    pub old: Oid,
    pub new: Oid,
}

/// Walks history and rewrites (or, in a dry run, only inspects) it.
pub(crate) struct Rewriter<'r> {
    repo: &'r Repository,
    needles: &'r Needles,
    write: bool,
    /// Blob id → its scrubbed id (`None`: holds no needle).
    blobs: HashMap<Oid, Option<Oid>>,
    /// Tree id → (new tree id, paths under it that changed).
    trees: HashMap<Oid, (Oid, Vec<String>)>,
    /// Commit id → its new id.
    commits: HashMap<Oid, Oid>,
    /// Commits holding the text, oldest first.
    pub(crate) found: Vec<PurgedCommit>,
    /// Commits re-created.
    pub(crate) rewritten: usize,
    /// Where the walk counts the commits it goes through (issue 20).
    progress: &'r dyn Progress,
}

impl<'r> Rewriter<'r> {
    pub(crate) fn new(repo: &'r Repository, needles: &'r Needles, write: bool) -> Self {
        Self {
            repo,
            needles,
            write,
            blobs: HashMap::new(),
            trees: HashMap::new(),
            commits: HashMap::new(),
            found: Vec::new(),
            rewritten: 0,
            progress: &Silent,
        }
    }

    /// Counts the commits walked on `ws`'s progress sink.
    pub(crate) fn reporting_to(mut self, ws: &'r Workspace) -> Self {
        self.progress = ws.progress_sink();
        self
    }

    fn blob(&mut self, id: Oid) -> crate::Result<Option<Oid>> {
        if let Some(done) = self.blobs.get(&id) {
            return Ok(*done);
        }
        let blob = self.repo.find_blob(id).map_err(gerr("read a blob"))?;
        // Not text: the needles are cut from a lossy text form, so none survives, at the cost
        // of the blob's odd bytes (binary blobs are rare in a workspace).
        let new = self.needles.scrub(&String::from_utf8_lossy(blob.content()));
        let out = match new {
            None => None,
            Some(_) if !self.write => Some(id),
            Some(text) => Some(self.repo.blob(text.as_bytes()).map_err(gerr("write a blob"))?),
        };
        self.blobs.insert(id, out);
        Ok(out)
    }

    fn tree(&mut self, tree: &Tree<'_>) -> crate::Result<(Oid, Vec<String>)> {
        if let Some(done) = self.trees.get(&tree.id()) {
            return Ok(done.clone());
        }
        // (old name, new name, id, mode)
        let mut changed: Vec<(Vec<u8>, Vec<u8>, Oid, i32)> = Vec::new();
        let mut paths = Vec::new();
        for entry in tree {
            let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
            let new_name = self.needles.scrub_name(&name);
            let shown = new_name.clone().unwrap_or_else(|| name.clone());
            let new_id = match entry.kind() {
                Some(git2::ObjectType::Blob) => {
                    let new = self.blob(entry.id())?;
                    if new.is_some() || new_name.is_some() {
                        paths.push(shown.clone());
                    }
                    new
                }
                Some(git2::ObjectType::Tree) => {
                    let sub = self.repo.find_tree(entry.id()).map_err(gerr("read a tree"))?;
                    let (new, sub_paths) = self.tree(&sub)?;
                    paths.extend(sub_paths.iter().map(|p| format!("{shown}/{p}")));
                    if new_name.is_some() && sub_paths.is_empty() {
                        paths.push(shown.clone());
                    }
                    (new != entry.id()).then_some(new)
                }
                _ => None,
            };
            if new_id.is_some() || new_name.is_some() {
                let to = new_name.map_or_else(|| entry.name_bytes().to_vec(), String::into_bytes);
                let id = new_id.unwrap_or_else(|| entry.id());
                changed.push((entry.name_bytes().to_vec(), to, id, entry.filemode()));
            }
        }
        let id = if changed.is_empty() || !self.write {
            tree.id()
        } else {
            let mut b = self.repo.treebuilder(Some(tree)).map_err(gerr("build a tree"))?;
            for (old, _, _, _) in &changed {
                b.remove(old.as_slice()).map_err(gerr("build a tree"))?;
            }
            for (_, new, id, mode) in changed {
                let mut name = new.clone();
                let mut k = 2;
                while b.get(name.as_slice()).map_err(gerr("build a tree"))?.is_some() {
                    name = [new.as_slice(), format!("-{k}").as_bytes()].concat();
                    k += 1;
                }
                b.insert(name, id, mode).map_err(gerr("build a tree"))?;
            }
            b.write().map_err(gerr("write a tree"))?
        };
        self.trees.insert(tree.id(), (id, paths.clone()));
        Ok((id, paths))
    }

    /// Rewrites (or inspects) every commit reachable from `tips`, oldest first.
    pub(crate) fn commits(&mut self, tips: &[Oid]) -> crate::Result<()> {
        let repo = self.repo;
        let mut walk = repo.revwalk().map_err(gerr("walk the history"))?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).map_err(gerr("walk the history"))?;
        for tip in tips {
            walk.push(*tip).map_err(gerr("walk the history"))?;
        }
        let ids: Vec<Oid> =
            walk.map(|r| r.map_err(gerr("walk the history"))).collect::<crate::Result<_>>()?;
        let unit = if self.write { "commits rewritten" } else { "commits read" };
        let task = Task::start(self.progress, Some(ids.len() as u64), unit);
        for id in ids {
            task.inc();
            if self.commits.contains_key(&id) {
                continue;
            }
            let c = repo.find_commit(id).map_err(gerr("read a commit"))?;
            let tree = c.tree().map_err(gerr("read a tree"))?;
            let (new_tree, files) = self.tree(&tree)?;
            let message = String::from_utf8_lossy(c.message_bytes()).into_owned();
            let new_message = self.needles.scrub(&message);
            if !files.is_empty() || new_message.is_some() {
                let msg = new_message.as_deref().unwrap_or(&message);
                self.found.push(PurgedCommit {
                    commit: id.to_string(),
                    subject: msg.lines().next().unwrap_or("").to_owned(),
                    files,
                    message: new_message.is_some(),
                });
            }
            if !self.write {
                continue;
            }
            let old_parents: Vec<Oid> = c.parent_ids().collect();
            let parents: Vec<Oid> =
                old_parents.iter().map(|p| self.commits.get(p).copied().unwrap_or(*p)).collect();
            if new_tree == tree.id() && parents == old_parents && new_message.is_none() {
                self.commits.insert(id, id);
                continue;
            }
            let tree = repo.find_tree(new_tree).map_err(gerr("read a tree"))?;
            let parent_commits = parents
                .iter()
                .map(|p| repo.find_commit(*p).map_err(gerr("read a commit")))
                .collect::<crate::Result<Vec<_>>>()?;
            let refs: Vec<&git2::Commit<'_>> = parent_commits.iter().collect();
            let msg = new_message.as_deref().unwrap_or(&message);
            let new = repo
                .commit(None, &c.author(), &c.committer(), msg, &tree, &refs)
                .map_err(gerr("write a commit"))?;
            self.commits.insert(id, new);
            self.rewritten += 1;
        }
        Ok(())
    }

    /// Where an object a ref points at goes: a commit to its rewrite, an annotated tag to a
    /// re-created tag (scrubbed message) on its target's rewrite.
    fn object(&mut self, id: Oid) -> crate::Result<Oid> {
        if let Some(new) = self.commits.get(&id) {
            return Ok(*new);
        }
        let repo = self.repo;
        let Ok(tag) = repo.find_tag(id) else { return Ok(id) };
        let target = self.object(tag.target_id())?;
        let message = String::from_utf8_lossy(tag.message_bytes().unwrap_or_default()).into_owned();
        let new_message = self.needles.scrub(&message);
        if target == tag.target_id() && new_message.is_none() {
            return Ok(id);
        }
        let Some(tagger) = tag.tagger() else { return Ok(id) };
        let obj = repo.find_object(target, None).map_err(gerr("read a tag's target"))?;
        let name = String::from_utf8_lossy(tag.name_bytes()).into_owned();
        repo.tag_annotation_create(&name, &obj, &tagger, new_message.as_deref().unwrap_or(&message))
            .map_err(gerr("write a tag"))
    }

    /// Rewrites the history of every ref in `refs` (name, target) and returns the ones whose
    /// target changes.
    pub(crate) fn refs(&mut self, refs: &[(String, Oid)]) -> crate::Result<Vec<Moved>> {
        let tips: Vec<Oid> = refs
            .iter()
            .filter_map(|(_, id)| self.repo.find_object(*id, None).ok())
            .filter_map(|o| o.peel_to_commit().ok().map(|c| c.id()))
            .collect();
        self.commits(&tips)?;
        let mut moved = Vec::new();
        if !self.write {
            return Ok(moved);
        }
        for (name, old) in refs {
            let new = self.object(*old)?;
            if new != *old {
                moved.push(Moved { name: name.clone(), old: *old, new });
            }
        }
        Ok(moved)
    }
}

/// The refs a purge rewrites: local branches, tags and cogmem's own refs (not its purge
/// backups), with their targets, sorted by name.
pub(crate) fn rewritable_refs(repo: &Repository) -> crate::Result<Vec<(String, Oid)>> {
    let mut out = Vec::new();
    for r in repo.references().map_err(gerr("list the refs"))? {
        let r = r.map_err(gerr("list the refs"))?;
        let Some(name) = r.name().ok().map(str::to_owned) else { continue };
        let ours = name.starts_with("refs/heads/")
            || name.starts_with("refs/tags/")
            || (name.starts_with("refs/cogmem/") && !name.starts_with(BACKUP_PREFIX));
        if let (true, Some(id)) = (ours, r.target()) {
            out.push((name, id));
        }
    }
    out.sort();
    Ok(out)
}

/// The remote-tracking refs (`refs/remotes/…`) that point at an object, with their targets,
/// sorted by name. A purge deletes those whose history holds the text: they only cache what
/// the remote had at the last fetch, and the next `sync --remote` fetches them again.
pub(crate) fn tracking_refs(repo: &Repository) -> crate::Result<Vec<(String, Oid)>> {
    let mut out = Vec::new();
    for r in repo.references_glob("refs/remotes/*").map_err(gerr("list the refs"))? {
        let r = r.map_err(gerr("list the refs"))?;
        if let (Some(name), Some(id)) = (r.name().ok().map(str::to_owned), r.target()) {
            out.push((name, id));
        }
    }
    out.sort();
    Ok(out)
}

/// Refs a purge leaves alone (notes, the stash, remote-tracking refs whose history does not
/// hold the text…), which may still reach the text.
pub(crate) fn other_refs(repo: &Repository) -> Vec<String> {
    let Ok(refs) = repo.references() else { return Vec::new() };
    let mut out: Vec<String> = refs
        .filter_map(Result::ok)
        .filter_map(|r| r.name().ok().map(str::to_owned))
        .filter(|n| {
            !(n.starts_with("refs/heads/")
                || n.starts_with("refs/tags/")
                || n.starts_with("refs/cogmem/"))
        })
        .collect();
    out.sort();
    out
}
