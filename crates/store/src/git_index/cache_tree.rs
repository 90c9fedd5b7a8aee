//! git's cache tree (the index's `TREE` extension), kept when the change engine patches the
//! index.
//!
//! The cache tree records, for each folder of the index, the id of the tree object its entries
//! make and how many entries it spans. `git status`, `git diff --cached` and `git commit` skip
//! every folder whose recorded tree is the one `HEAD` has, instead of comparing its entries one
//! by one. Dropping the extension (allowed: it is optional) left it missing for good in a
//! workspace only cogmem commits to, and a user's `git status` there took a tenth to a
//! quarter longer (docs/benchmarks.md).
//!
//! The format (git's `Documentation/gitformat-index.txt`): folders depth first from the root,
//! each as its name relative to its parent and a NUL, the entry count in ASCII decimal (`-1`
//! when the folder's record is invalid), a space, the number of its subfolders recorded, a
//! newline and, when valid, the tree's 20-byte id. Subfolders in git's order: shorter names
//! first, then byte order.
//!
//! A folder's record is only ever made valid with a tree object that exists and that its entries
//! make, so a reader that trusts it (`git commit` writes the recorded tree without looking) gets
//! what it would have computed:
//! - a folder none of whose entries changed keeps its record;
//! - a folder on a changed path is invalidated, as git does, then recomputed: from the trees of
//!   the commit just written when its old record was the parent commit's tree there (the index
//!   then held that tree, and the change that made the commit made the index), else by hashing
//!   the tree object its entries make, kept only if the object database holds it (a folder with
//!   staged changes of the user's makes a tree nobody wrote: it stays invalid).
//!
//! Entries at a stage other than 0 or with extended flags (intent-to-add, skip-worktree) leave
//! their folders invalid.

use git2::{ObjectType, Oid};

use super::{EXTENDED, GitIndex, STAGE_MASK, STAT, be16, be32};
use crate::git_tree::{TREE_MODE, name_order, put_entry};

/// The extension's signature.
pub(super) const SIGNATURE: &[u8; 4] = b"TREE";
/// Deeper folders are left invalid (and not recursed into): a bound on the recursion a
/// hostile index could ask for. git's paths are far shallower.
const MAX_DEPTH: usize = 256;

/// One folder's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Node {
    name: Vec<u8>,
    /// The entries it spans and its tree, when valid.
    valid: Option<(usize, [u8; 20])>,
    /// Its tree before this change invalidated it: what the commit's trees are checked against.
    was: Option<[u8; 20]>,
    /// Read from the index's record (not a folder this pass added): left invalid when it was
    /// invalid before this change.
    kept: bool,
    children: Vec<Self>,
}

impl Node {
    fn invalid(name: &[u8]) -> Self {
        Self { name: name.to_vec(), valid: None, was: None, kept: false, children: Vec::new() }
    }

    /// The root folder's record read from the extension's data; `None` when it is malformed
    /// (then the cache tree is computed anew).
    pub(super) fn parse(data: &[u8]) -> Option<Self> {
        let mut at = 0;
        let root = read_node(data, &mut at, 0)?;
        (at == data.len() && root.name.is_empty()).then_some(root)
    }

    /// An empty record for the root: everything is computed.
    pub(super) fn root() -> Self {
        Self::invalid(b"")
    }

    /// Invalidates every record whose entry count is not the number of entries the index
    /// (before the change, `after`'s old index) holds under its folder, and the folders above
    /// it, as an invalidated path is: a record that does not span its folder's entries is not
    /// carried over, whoever wrote it. Its id is not checked (that would mean hashing the
    /// folder); git trusts it as read too. Answers whether this record is valid after.
    pub(super) fn drop_miscounted(&mut self, after: &After<'_>, prefix: &mut Vec<u8>) -> bool {
        // Not `was`: a record that miscounts vouches for nothing, its id included. Hashed anew
        // (once: the record written then counts right).
        if self.valid.is_some_and(|(count, _)| count != after.old_range(prefix).len()) {
            self.valid = None;
            self.kept = false;
        }
        // git records no folder without entries.
        self.children.retain(|c| !after.old_range(&folder_of(prefix, &c.name)).is_empty());
        let mut all = true;
        for child in &mut self.children {
            let len = prefix.len();
            prefix.extend_from_slice(&child.name);
            prefix.push(b'/');
            all &= child.drop_miscounted(after, prefix);
            prefix.truncate(len);
        }
        if !all && let Some((_, id)) = self.valid.take() {
            self.was = Some(id);
        }
        self.valid.is_some()
    }

    /// Invalidates the folders on `path` (a file's path), as git does when an entry changes:
    /// each folder from the root down, and a subfolder of the file's own name.
    pub(super) fn invalidate(&mut self, path: &[u8]) {
        let mut node = self;
        let mut rest = path;
        loop {
            if let Some((_, id)) = node.valid.take() {
                node.was = Some(id);
            }
            match rest.iter().position(|b| *b == b'/') {
                None => {
                    node.children.retain(|c| c.name != rest);
                    return;
                }
                Some(k) => {
                    let (name, tail) = (&rest[..k], &rest[k + 1..]);
                    match node.children.iter_mut().find(|c| c.name == name) {
                        Some(child) => node = child,
                        None => return,
                    }
                    rest = tail;
                }
            }
        }
    }

    /// The extension's bytes (signature, size, data); `None` for an empty index, which git
    /// writes no cache tree for either.
    pub(super) fn extension(&self) -> Option<Vec<u8>> {
        if self.valid.is_some_and(|(n, _)| n == 0) {
            return None;
        }
        let mut data = Vec::new();
        self.write(&mut data);
        let size = u32::try_from(data.len()).ok()?;
        let mut out = Vec::with_capacity(8 + data.len());
        out.extend_from_slice(SIGNATURE);
        out.extend_from_slice(&size.to_be_bytes());
        out.extend_from_slice(&data);
        Some(out)
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name);
        out.push(0);
        match self.valid {
            Some((count, _)) => out.extend_from_slice(count.to_string().as_bytes()),
            None => out.extend_from_slice(b"-1"),
        }
        out.push(b' ');
        out.extend_from_slice(self.children.len().to_string().as_bytes());
        out.push(b'\n');
        if let Some((_, id)) = self.valid {
            out.extend_from_slice(&id);
        }
        for child in &self.children {
            child.write(out);
        }
    }
}

/// git's order of subfolder records: shorter names first, then byte order.
fn record_order(a: &Node, b: &Node) -> std::cmp::Ordering {
    a.name.len().cmp(&b.name.len()).then_with(|| a.name.cmp(&b.name))
}

/// The root record's entry count and tree, when it is valid: the tree the whole index makes,
/// read without the subfolders' records.
pub(super) fn root_tree(data: &[u8]) -> Option<(usize, [u8; 20])> {
    let rest = data.strip_prefix(b"\0")?;
    let line_end = rest.iter().position(|b| *b == b'\n')?;
    let (count, _) = std::str::from_utf8(&rest[..line_end]).ok()?.split_once(' ')?;
    let count: usize = count.parse().ok()?;
    let id = rest.get(line_end + 1..line_end + 21)?.try_into().ok()?;
    Some((count, id))
}

fn read_node(data: &[u8], at: &mut usize, depth: usize) -> Option<Node> {
    if depth > MAX_DEPTH {
        return None;
    }
    let rest = data.get(*at..)?;
    let nul = rest.iter().position(|b| *b == 0)?;
    let name = rest[..nul].to_vec();
    // The root's name is empty, a folder's one path component.
    if (depth == 0) != name.is_empty() || name.contains(&b'/') {
        return None;
    }
    let line_end = rest[nul + 1..].iter().position(|b| *b == b'\n')? + nul + 1;
    let line = std::str::from_utf8(&rest[nul + 1..line_end]).ok()?;
    let (count, subtrees) = line.split_once(' ')?;
    let count: i64 = count.parse().ok()?;
    let subtrees: usize = subtrees.parse().ok()?;
    *at += line_end + 1;
    let valid = if count >= 0 {
        let id: [u8; 20] = data.get(*at..*at + 20)?.try_into().ok()?;
        *at += 20;
        Some((usize::try_from(count).ok()?, id))
    } else {
        None
    };
    // Each record takes at least four bytes: no more subfolders than the bytes can hold.
    if subtrees > data.len().saturating_sub(*at) / 4 {
        return None;
    }
    let mut children = Vec::with_capacity(subtrees);
    for _ in 0..subtrees {
        children.push(read_node(data, at, depth + 1)?);
    }
    Some(Node { name, valid, was: None, kept: true, children })
}

/// A file entry of the patched index as a tree holds it.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileEntry<'a> {
    pub(super) path: &'a [u8],
    pub(super) mode: u32,
    pub(super) id: [u8; 20],
    /// At stage 0 and without extended flags.
    pub(super) plain: bool,
}

impl<'a> FileEntry<'a> {
    /// An update's new entry.
    pub(super) fn of_update(e: &'a git2::IndexEntry) -> Self {
        let id: [u8; 20] = e.id.as_bytes().try_into().unwrap_or([0; 20]);
        let plain = e.flags & (STAGE_MASK | EXTENDED) == 0 && e.flags_extended == 0;
        Self { path: &e.path, mode: e.mode, id, plain }
    }
}

/// The patched index as the cache tree reads it: the old entries with the updates applied.
pub(super) struct After<'a> {
    index: &'a GitIndex,
    /// Sorted by path, one per path: the new entry, or `None` for a removed one.
    updates: Vec<(&'a [u8], Option<FileEntry<'a>>)>,
}

/// What a folder holds directly.
enum Child<'a> {
    File(FileEntry<'a>),
    Folder(&'a [u8]),
}

impl Child<'_> {
    fn name(&self) -> &[u8] {
        match self {
            Self::File(f) => f.path.rsplit(|b| *b == b'/').next().unwrap_or(f.path),
            Self::Folder(name) => name,
        }
    }

    /// Its name and whether it is a folder, as git's tree order takes them ([`name_order`]).
    fn key(&self) -> (&[u8], bool) {
        (self.name(), matches!(self, Self::Folder(_)))
    }
}

/// The ids of one folder in the parent commit's tree and in the new commit's (`None` where
/// either has no such folder): what [`After::update`] may take a folder's tree from.
pub(crate) type CommitTrees<'h> = dyn Fn(&[u8]) -> Option<([u8; 20], [u8; 20])> + 'h;

/// Where [`After::update`] finds a folder's tree id: the commits' trees, and whether the
/// object database holds a tree.
pub(super) struct Lookup<'l> {
    pub(super) trees: &'l CommitTrees<'l>,
    pub(super) exists: &'l mut dyn FnMut(Oid) -> bool,
}

impl<'a> After<'a> {
    /// `updates` sorted by path, one per path.
    pub(super) fn new(
        index: &'a GitIndex,
        updates: Vec<(&'a [u8], Option<FileEntry<'a>>)>,
    ) -> Self {
        Self { index, updates }
    }

    /// The updates, sorted by path.
    pub(super) fn updates(&self) -> &[(&'a [u8], Option<FileEntry<'a>>)] {
        &self.updates
    }

    /// The old stage-0 entry at `path`, as a tree holds it.
    fn old(&self, path: &[u8]) -> Option<FileEntry<'a>> {
        let i = self.index.lower_bound(path);
        let s = self.index.entries.get(i).filter(|s| self.index.path(s) == path)?;
        Some(self.entry_at(s))
    }

    fn entry_at(&self, s: &super::Span) -> FileEntry<'a> {
        let index: &'a GitIndex = self.index;
        let b = &index.bytes;
        let flags = be16(b, s.start + STAT + 20).unwrap_or(STAGE_MASK);
        let id: [u8; 20] = b[s.start + STAT..s.start + STAT + 20].try_into().unwrap_or([0; 20]);
        FileEntry {
            path: index.path(s),
            mode: be32(b, s.start + 24).unwrap_or(0),
            id,
            plain: flags & (STAGE_MASK | EXTENDED) == 0,
        }
    }

    /// Whether the update of `path` changes what a tree holds (its presence, mode or blob).
    pub(super) fn changes_tree(&self, path: &[u8], new: Option<&FileEntry<'_>>) -> bool {
        match (self.old(path), new) {
            (None, None) => false,
            (Some(o), Some(n)) => (o.mode, o.id, o.plain) != (n.mode, n.id, n.plain),
            _ => true,
        }
    }

    /// The old entries under `prefix` (`""` or a folder's path and `/`).
    fn old_range(&self, prefix: &[u8]) -> std::ops::Range<usize> {
        let from = self.index.lower_bound(prefix);
        if prefix.is_empty() {
            return from..self.index.entries.len();
        }
        from..self.index.lower_bound(&past(prefix))
    }

    /// The updates under `prefix`.
    fn updates_under(&self, prefix: &[u8]) -> &[(&'a [u8], Option<FileEntry<'a>>)] {
        let from = self.updates.partition_point(|(p, _)| *p < prefix);
        let to = if prefix.is_empty() {
            self.updates.len()
        } else {
            let end = past(prefix);
            self.updates.partition_point(|(p, _)| *p < end.as_slice())
        };
        &self.updates[from..to]
    }

    /// How many entries the patched index holds under `prefix`.
    fn count(&self, prefix: &[u8]) -> usize {
        let mut n = self.old_range(prefix).len();
        for (path, new) in self.updates_under(prefix) {
            let i = self.index.lower_bound(path);
            let held = self.index.entries.get(i).is_some_and(|s| self.index.path(s) == *path);
            n = n - usize::from(held) + usize::from(new.is_some());
        }
        n
    }

    /// What the folder `prefix` holds directly in the patched index, in git's tree order.
    fn children(&self, prefix: &[u8]) -> Vec<Child<'a>> {
        let index: &'a GitIndex = self.index;
        let range = self.old_range(prefix);
        let mut out: Vec<Child<'a>> = Vec::new();
        let mut i = range.start;
        while i < range.end {
            let s = &index.entries[i];
            let path = index.path(s);
            let rest = &path[prefix.len()..];
            match rest.iter().position(|b| *b == b'/') {
                Some(k) => {
                    out.push(Child::Folder(&rest[..k]));
                    i = index.lower_bound(&past(&path[..prefix.len() + k + 1]));
                }
                None => {
                    out.push(Child::File(self.entry_at(s)));
                    i += 1;
                }
            }
        }
        for (path, new) in self.updates_under(prefix) {
            let rest = &path[prefix.len()..];
            let child = match rest.iter().position(|b| *b == b'/') {
                Some(k) => Child::Folder(&rest[..k]),
                None => match new {
                    Some(e) => Child::File(*e),
                    None => {
                        if let Ok(at) = out.binary_search_by(|c| name_order(c.key(), (rest, false)))
                        {
                            out.remove(at);
                        }
                        continue;
                    }
                },
            };
            match out.binary_search_by(|c| name_order(c.key(), child.key())) {
                Ok(at) if matches!(child, Child::File(_)) => out[at] = child,
                Ok(_) => {}
                Err(at) => out.insert(at, child),
            }
        }
        // A folder whose every entry was removed is no longer there.
        out.retain(|c| match c {
            Child::Folder(name) => self.count(&folder_of(prefix, name)) > 0,
            Child::File(_) => true,
        });
        out
    }

    /// Brings `node` (the folder `prefix`) and its subfolders' records up to date: valid ones
    /// are kept; an invalid one takes the new commit's tree where `trees` vouches for it, else
    /// the id of the tree its entries make when `exists` says the object database holds it.
    /// Answers whether the record is valid after.
    pub(super) fn update(
        &self,
        node: &mut Node,
        prefix: &mut Vec<u8>,
        lookup: &mut Lookup<'_>,
        depth: usize,
    ) -> bool {
        if node.valid.is_some() {
            return true;
        }
        // Invalid before this change (a user's staged change, a record that miscounted): left
        // so, as git leaves it after `git add`, rather than hashing the folder again at every
        // write while it stays that way; `git commit` or `git write-tree` makes it valid.
        if node.kept && node.was.is_none() {
            return false;
        }
        if depth > MAX_DEPTH {
            node.children.clear();
            return false;
        }
        if let Some(was) = node.was.take()
            && let Some((parent, new)) = (lookup.trees)(prefix)
            && parent == was
        {
            // The index held the parent commit's tree here, and the change that made the new
            // commit made the index: it holds the new commit's tree. Valid only with every
            // subfolder's record valid, as git requires of a valid record.
            self.update_children(node, prefix, lookup, depth, false);
            if node.children.iter().any(|c| c.valid.is_none()) {
                return false;
            }
            node.valid = Some((self.count(prefix), new));
            return true;
        }
        let tree = self.update_children(node, prefix, lookup, depth, true);
        if let Some(tree) = tree
            && let Ok(id) = Oid::hash_object(ObjectType::Tree, &tree)
            && let Ok(bytes) = <[u8; 20]>::try_from(id.as_bytes())
            && (lookup.exists)(id)
        {
            node.valid = Some((self.count(prefix), bytes));
            return true;
        }
        false
    }

    /// Updates the records of `node`'s subfolders (dropping those of folders no longer there,
    /// adding the new ones) and, with `hash`, answers the bytes of the tree object the folder's
    /// entries make (`None` when an entry or a subfolder cannot be in one, and without `hash`).
    fn update_children(
        &self,
        node: &mut Node,
        prefix: &mut Vec<u8>,
        lookup: &mut Lookup<'_>,
        depth: usize,
        hash: bool,
    ) -> Option<Vec<u8>> {
        let mut old = std::mem::take(&mut node.children);
        let items: Vec<Item<'a>> = if hash {
            self.children(prefix)
                .into_iter()
                .map(|c| match c {
                    Child::Folder(name) => Item::Folder(name.to_vec()),
                    Child::File(f) => Item::File(f),
                })
                .collect()
        } else {
            // Only the folders: those the record had and those the updates name.
            let mut names: Vec<Vec<u8>> = old.iter().map(|c| c.name.clone()).collect();
            for (path, _) in self.updates_under(prefix) {
                let rest = &path[prefix.len()..];
                if let Some(k) = rest.iter().position(|b| *b == b'/') {
                    names.push(rest[..k].to_vec());
                }
            }
            names.sort();
            names.dedup();
            names.retain(|name| self.count(&folder_of(prefix, name)) > 0);
            names.into_iter().map(Item::Folder).collect()
        };
        let mut tree = hash.then(Vec::new);
        for item in items {
            match item {
                Item::Folder(name) => {
                    let mut child = match old.iter().position(|c| c.name == name) {
                        Some(i) => old.swap_remove(i),
                        None => Node::invalid(&name),
                    };
                    let len = prefix.len();
                    prefix.extend_from_slice(&name);
                    prefix.push(b'/');
                    let valid = self.update(&mut child, prefix, lookup, depth + 1);
                    prefix.truncate(len);
                    match (valid, tree.as_mut(), child.valid) {
                        (true, Some(t), Some((_, id))) => put_entry(t, TREE_MODE, &name, &id),
                        _ => tree = None,
                    }
                    node.children.push(child);
                }
                Item::File(f) => match tree.as_mut() {
                    Some(t) if f.plain => {
                        let name = Child::File(f).name().to_vec();
                        put_entry(t, format!("{:o}", f.mode).as_bytes(), &name, &f.id);
                    }
                    _ => tree = None,
                },
            }
        }
        node.children.sort_by(record_order);
        tree
    }
}

/// What [`After::update_children`] goes through: a file, or a folder by name.
enum Item<'a> {
    File(FileEntry<'a>),
    Folder(Vec<u8>),
}

/// The path prefix of the folder `name` in the folder `prefix`.
fn folder_of(prefix: &[u8], name: &[u8]) -> Vec<u8> {
    let mut sub = Vec::with_capacity(prefix.len() + name.len() + 1);
    sub.extend_from_slice(prefix);
    sub.extend_from_slice(name);
    sub.push(b'/');
    sub
}

/// The first path past every path that starts with `prefix` (which ends in `/`): the prefix
/// with its `/` replaced by the byte after it.
fn past(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    end
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use std::path::Path;
    use std::process::Command;

    use git2::Repository;
    use sha1::Digest;

    use super::super::GitIndex;
    use super::super::tests::{git, git_env, put, repo_with};
    use super::{Lookup, Node};
    use crate::git::{CommitSpec, commit_files};

    /// A repository with folders at several depths, names whose order differs between git's
    /// tree order and its cache tree's (`ab` before `b`, `x-y.md` < `x.md` < `x/`), committed
    /// by git (which writes a cache tree).
    fn repo() -> tempfile::TempDir {
        repo_with(&[
            ("a.md", "a\n"),
            ("memory/x-y.md", "x-y\n"),
            ("memory/x/y.md", "x/y\n"),
            ("memory/x.md", "x\n"),
            ("memory/ab/c/d.md", "d\n"),
            ("memory/b/e.md", "e\n"),
            ("notes/n.md", "n\n"),
        ])
    }

    /// The index file's cache tree extension (signature, size, data), if it has one.
    fn extension(dir: &Path) -> Option<Vec<u8>> {
        let index = GitIndex::read(&dir.join(".git"))?;
        let r = index.tree.clone()?;
        Some(index.bytes[r.start - 8..r.end].to_vec())
    }

    /// What git's own cache tree is for the index's entries: a copy of the repository whose
    /// index git rebuilds from `HEAD` (`read-tree` primes every folder's record).
    fn gits_own(dir: &Path) -> Vec<u8> {
        let copy = tempfile::tempdir().expect("tempdir");
        let status = Command::new("cp")
            .args(["-a", &format!("{}/.", dir.display()), &copy.path().display().to_string()])
            .status()
            .expect("cp runs");
        assert!(status.success());
        git(copy.path(), &["read-tree", "HEAD"]);
        extension(copy.path()).expect("git writes a cache tree")
    }

    /// The tree `git write-tree` writes from the index (trusting its cache tree), and the one
    /// it writes from the same entries in an index without one: they must be the same.
    /// The index itself is left as it is: `write-tree` runs on a copy (it writes the cache
    /// tree it completes back into the index file).
    fn write_tree_twice(dir: &Path) -> (String, String) {
        let copy = dir.join(".git/trusted-index");
        std::fs::copy(dir.join(".git/index"), &copy).expect("copied");
        let copy_s = copy.display().to_string();
        let trusted = git_env(dir, &["write-tree"], &[("GIT_INDEX_FILE", copy_s.as_str())]);
        std::fs::remove_file(&copy).expect("removed");
        let entries = git(dir, &["ls-files", "-s"]);
        let fresh = dir.join(".git/fresh-index");
        let fresh_s = fresh.display().to_string();
        let env = [("GIT_INDEX_FILE", fresh_s.as_str())];
        let mut child = Command::new("git")
            .args(["update-index", "--index-info"])
            .env("GIT_INDEX_FILE", &fresh)
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(entries.as_bytes()).expect("entries written");
        }
        assert!(child.wait().expect("git ends").success());
        let computed = git_env(dir, &["write-tree"], &env);
        std::fs::remove_file(&fresh).expect("removed");
        (trusted, computed)
    }

    /// Writes `bytes` as the repository's index with its checksum made right.
    fn write_index(dir: &Path, mut bytes: Vec<u8>) {
        let body = bytes.len() - 20;
        let sum = sha1::Sha1::digest(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum);
        super::super::write(&dir.join(".git"), &bytes).expect("written");
    }

    /// Commits `files` as cogmem does (`commit_files`: the index patched, its cache tree kept).
    fn commit(dir: &Path, files: &[&str]) {
        let repo = Repository::open(dir).expect("open");
        let files: Vec<String> = files.iter().map(|f| (*f).to_owned()).collect();
        let time = chrono::DateTime::parse_from_rfc3339("2026-12-05T10:00:00Z").expect("time");
        let spec = CommitSpec { message: "change\n", author: "t", time };
        commit_files(&repo, dir, &files, &[], &spec).expect("committed");
    }

    /// Checks the index's cache tree against git: fully valid and byte for byte the one git
    /// primes from `HEAD` when `whole`; in every case `git write-tree` trusting it writes what
    /// the entries make, `git fsck` finds every object it names, and git's own check of cache
    /// trees on a write (`GIT_TEST_CHECK_CACHE_TREE`) passes.
    fn check(dir: &Path, whole: bool) {
        let ours = extension(dir).expect("the patched index has a cache tree");
        if whole {
            assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&gits_own(dir)));
            assert_eq!(ours, gits_own(dir));
        }
        // Every tree a valid record names is in the object database.
        let root = Node::parse(&ours[8..]).expect("it parses");
        let mut stack = vec![&root];
        while let Some(node) = stack.pop() {
            if let Some((_, id)) = node.valid {
                let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
                git(dir, &["cat-file", "-e", &format!("{hex}^{{tree}}")]);
            }
            stack.extend(&node.children);
        }
        let (trusted, computed) = write_tree_twice(dir);
        assert_eq!(trusted, computed);
        git(dir, &["fsck", "--cache", "--no-progress"]);
        let copy = dir.join(".git/checked-index");
        std::fs::copy(dir.join(".git/index"), &copy).expect("copied");
        let copy_s = copy.display().to_string();
        let env = [("GIT_TEST_CHECK_CACHE_TREE", "1"), ("GIT_INDEX_FILE", copy_s.as_str())];
        git_env(dir, &["update-index", "--force-write-index", "--refresh", "-q"], &env);
        std::fs::remove_file(&copy).expect("removed");
    }

    #[test]
    fn a_commit_keeps_the_cache_tree_git_would_write() {
        let dir = repo();
        let d = dir.path();
        assert!(extension(d).is_some(), "git's commit wrote one");
        // A changed file, a new folder two deep, a removed folder's last file, a new file at
        // the root: each record as git's own.
        put(d, "memory/x/y.md", "x/y changed\n");
        commit(d, &["memory/x/y.md"]);
        check(d, true);
        put(d, "memory/new/deep/f.md", "f\n");
        commit(d, &["memory/new/deep/f.md"]);
        check(d, true);
        std::fs::remove_file(d.join("memory/ab/c/d.md")).expect("removed");
        commit(d, &["memory/ab/c/d.md"]);
        check(d, true);
        put(d, "z.md", "z\n");
        put(d, "notes/n.md", "n changed\n");
        commit(d, &["z.md", "notes/n.md"]);
        check(d, true);
        assert_eq!(git(d, &["status", "--porcelain"]), "");
    }

    #[test]
    fn an_index_without_one_gets_it_from_its_entries() {
        let dir = repo();
        let d = dir.path();
        // Write the index without the extension, as cogmem did before.
        let index = GitIndex::read(&d.join(".git")).expect("read");
        let patch = index.patch(d, &[]).expect("a patch");
        super::super::write_patch(&d.join(".git"), &patch, false).expect("written");
        assert_eq!(extension(d), None);
        let index = GitIndex::read(&d.join(".git")).expect("read");
        let mut none = |_: git2::Oid| true;
        let trees = |_: &[u8]| None;
        // With no record at all every folder is hashed: git's records, byte for byte.
        let mut root = Node::root();
        let after = super::After::new(&index, Vec::new());
        let mut lookup = Lookup { trees: &trees, exists: &mut none };
        assert!(after.update(&mut root, &mut Vec::new(), &mut lookup, 0));
        let ext = root.extension().expect("an extension");
        assert_eq!(ext, gits_own(d));
        // A tree the object database does not hold is never recorded as valid.
        let mut missing = |_: git2::Oid| false;
        let mut root = Node::root();
        let mut lookup = Lookup { trees: &trees, exists: &mut missing };
        assert!(!after.update(&mut root, &mut Vec::new(), &mut lookup, 0));
        let text = root.extension().expect("an extension");
        assert!(text.windows(3).filter(|w| w == b"-1 ").count() >= 5, "every folder invalid");
        // The committed path: the index written without a cache tree, then a commit.
        git(d, &["update-index", "--index-version", "4"]);
        put(d, "memory/x.md", "x changed\n");
        commit(d, &["memory/x.md"]);
        check(d, true);
    }

    #[test]
    fn a_users_staged_change_leaves_its_folders_invalid() {
        let dir = repo();
        let d = dir.path();
        // The user stages a change in memory/b; cogmem commits one in notes.
        put(d, "memory/b/e.md", "e staged\n");
        git(d, &["add", "memory/b/e.md"]);
        put(d, "notes/n.md", "n changed\n");
        commit(d, &["notes/n.md"]);
        let ours = extension(d).expect("a cache tree");
        check(d, false);
        assert_ne!(ours, gits_own(d), "memory/b's staged tree is not HEAD's");
        // Left invalid, as after `git add`, with the folders above it; another write of
        // cogmem's elsewhere does not hash it again, and keeps it so.
        let memory_b = |ext: &[u8]| {
            let root = Node::parse(&ext[8..]).expect("it parses");
            let memory = root.children.iter().find(|c| c.name == b"memory").expect("memory");
            memory.children.iter().find(|c| c.name == b"b").expect("memory/b").valid
        };
        assert_eq!(memory_b(&ours), None);
        put(d, "a.md", "a changed\n");
        commit(d, &["a.md"]);
        check(d, false);
        assert_eq!(memory_b(&extension(d).expect("a cache tree")), None);
        // The user's own commit records what the index holds: the staged change.
        git(d, &["commit", "-q", "-m", "user"]);
        assert_eq!(git(d, &["show", "HEAD:memory/b/e.md"]), "e staged\n");
        assert_eq!(git(d, &["show", "HEAD:notes/n.md"]), "n changed\n");
        assert_eq!(git(d, &["status", "--porcelain"]), "");
        check(d, true);
    }

    #[test]
    fn the_new_commits_trees_are_taken_where_the_record_was_the_parents() {
        let dir = repo();
        let d = dir.path();
        // The same change committed by git in a copy: its trees are the new commit's.
        let copy = tempfile::tempdir().expect("tempdir");
        let c = copy.path();
        let cp = Command::new("cp").args(["-a", &format!("{}/.", d.display())]).arg(c).status();
        assert!(cp.expect("cp runs").success());
        for at in [c, d] {
            put(at, "memory/x/y.md", "x/y changed\n");
        }
        git(c, &["commit", "-q", "-am", "change"]);
        let blob = git(d, &["hash-object", "-w", "memory/x/y.md"]);
        let blob = git2::Oid::from_str(blob.trim()).expect("an id");
        let entry = crate::git::index_entry(
            &d.join("memory/x/y.md"),
            "memory/x/y.md",
            blob,
            git2::FileMode::Blob,
        )
        .expect("an entry");
        let id = |at: &Path, prefix: &[u8]| -> Option<[u8; 20]> {
            let path = String::from_utf8_lossy(prefix.strip_suffix(b"/").unwrap_or(prefix));
            let hex = git(at, &["rev-parse", &format!("HEAD:{path}")]);
            git2::Oid::from_str(hex.trim()).ok()?.as_bytes().try_into().ok()
        };
        let trees = |prefix: &[u8]| Some((id(d, prefix)?, id(c, prefix)?));
        // Nothing is hashed into validity: the object database "holds" no tree.
        let mut none = |_: git2::Oid| false;
        let index = GitIndex::read(&d.join(".git")).expect("read");
        let updates = vec![("memory/x/y.md".to_owned(), Some(entry))];
        let ext = index.cache_tree(&updates, &trees, &mut none).expect("an extension");
        assert_eq!(String::from_utf8_lossy(&ext), String::from_utf8_lossy(&gits_own(c)));
        // Without the commit's trees, the changed path's folders stay invalid.
        let ext = index.cache_tree(&updates, &|_| None, &mut none).expect("an extension");
        assert_eq!(ext.windows(3).filter(|w| w == b"-1 ").count(), 3, "root, memory, memory/x");
    }

    /// Seeded sequences of commits (files added, changed and removed in folders that come and
    /// go) with a user's staged changes and own commits between them: after each, the cache
    /// tree passes git's checks, and equals git's own whenever nothing else is staged.
    #[test]
    fn random_changes_keep_it_right() {
        let dir = repo();
        let d = dir.path();
        let mut seed: u64 = 0x5eed_cafe;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let folders = ["", "memory/", "memory/ab/", "memory/ab/c/", "memory/q/", "notes/deep/er/"];
        let mut staged = false;
        for step in 0..40 {
            let mut files = Vec::new();
            for _ in 0..=next(3) {
                let rel = format!("{}f{}.md", folders[next(6) as usize], next(4));
                if d.join(&rel).exists() && next(3) == 0 {
                    std::fs::remove_file(d.join(&rel)).expect("removed");
                } else {
                    put(d, &rel, &format!("{rel} at step {step}\n"));
                }
                files.push(rel);
            }
            let names: Vec<&str> = files.iter().map(String::as_str).collect();
            commit(d, &names);
            check(d, !staged);
            match next(4) {
                0 => {
                    put(d, "memory/b/e.md", &format!("staged at {step}\n"));
                    git(d, &["add", "memory/b/e.md"]);
                    staged = true;
                }
                1 if staged => {
                    git(d, &["commit", "-q", "-m", "user"]);
                    staged = false;
                }
                _ => {}
            }
        }
    }

    #[test]
    fn a_record_that_miscounts_its_folder_is_not_carried_over() {
        let dir = repo();
        let d = dir.path();
        // git's own record of memory/ab (one entry, one subfolder) made to claim seven.
        let path = d.join(".git/index");
        let mut bytes = std::fs::read(&path).expect("read");
        let at = bytes.windows(7).position(|w| w == b"ab\x001 1\n").expect("memory/ab's record");
        bytes[at + 3] = b'7';
        write_index(d, bytes);
        // A change elsewhere: the record is made again, as git's.
        put(d, "notes/n.md", "n changed\n");
        commit(d, &["notes/n.md"]);
        check(d, true);
        // A record of a folder the index has no entries in ("valid", spanning none) is
        // dropped; the others stay valid.
        let index = GitIndex::read(&d.join(".git")).expect("read");
        let ext = extension(d).expect("a cache tree");
        let mut root = Node::parse(&ext[8..]).expect("it parses");
        let ghost = Node { valid: Some((0, [7; 20])), ..Node::invalid(b"ghost") };
        root.children.push(ghost);
        let after = super::After::new(&index, Vec::new());
        assert!(root.drop_miscounted(&after, &mut Vec::new()));
        assert_eq!(root.extension().expect("an extension"), ext);
    }

    /// A record git would not write, a valid folder above an invalid one, gives no valid
    /// record above an invalid one after a write (git's own check on a write fails otherwise).
    #[test]
    fn no_valid_record_is_written_above_an_invalid_one() {
        let dir = repo();
        let d = dir.path();
        let path = d.join(".git/index");
        let bytes = std::fs::read(&path).expect("read");
        let at = bytes.windows(6).position(|w| w == b"b\x001 0\n").expect("memory/b's record");
        // "b\01 0\n" and its id become "b\0-1 0\n": the extension 19 bytes shorter.
        let mut out = bytes[..at].to_vec();
        out.extend_from_slice(b"b\0-1 0\n");
        out.extend_from_slice(&bytes[at + 6 + 20..]);
        let tree = out.windows(4).position(|w| w == b"TREE").expect("the extension");
        let size = u32::from_be_bytes(out[tree + 4..tree + 8].try_into().expect("four bytes"));
        out[tree + 4..tree + 8].copy_from_slice(&(size - 19).to_be_bytes());
        write_index(d, out);
        put(d, "notes/n.md", "n changed\n");
        commit(d, &["notes/n.md"]);
        check(d, false);
    }

    #[test]
    fn a_malformed_extension_is_computed_anew() {
        let cases: [&[u8]; 8] = [
            b"",
            b"\x00",
            b"\x001 0\n",
            b"\x00-1 99999999999\n",
            b"x\x00-1 0\n",
            b"\x00-1 1\nsub\x00-1 1\n",
            b"\x00-1 1\na/b\x00-1 0\n",
            b"\x00-1 1\n\x00-1 0\n",
        ];
        for data in cases {
            assert_eq!(Node::parse(data), None, "{:?}", String::from_utf8_lossy(data));
        }
        // Nesting deeper than the bound is refused, not recursed into.
        let mut deep = b"\x00-1 1\n".to_vec();
        for _ in 0..1000 {
            deep.extend_from_slice(b"a\x00-1 1\n");
        }
        deep.extend_from_slice(b"a\x00-1 0\n");
        assert_eq!(Node::parse(&deep), None);
        let ok = Node::parse(b"\x00-1 1\na\x00-1 0\n").expect("parsed");
        assert_eq!(ok.children.len(), 1);
    }
}

#[cfg(all(test, unix))]
mod props {
    use git2::Repository;
    use proptest::prelude::*;

    use super::super::GitIndex;
    use super::super::patch_props::{entry, path};
    use super::{After, Lookup, Node};

    /// A record with subfolders, valid or not.
    fn node() -> impl Strategy<Value = Node> {
        let leaf = (
            prop::sample::select(vec![
                b"a".to_vec(),
                b"ab".to_vec(),
                b"a.b".to_vec(),
                vec![b'x'; 9],
            ]),
            prop::option::of((0usize..1000, any::<[u8; 20]>())),
        )
            .prop_map(|(name, valid)| Node { valid, ..Node::invalid(&name) });
        leaf.prop_recursive(4, 24, 4, |inner| {
            (inner.clone(), prop::collection::vec(inner, 0..4))
                .prop_map(|(parent, children)| Node { children, ..parent })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// The cache tree hashed from an index's entries names the trees libgit2 writes for
        /// them, folder by folder, with each folder's entry count, and reads back as written.
        #[test]
        fn hashed_records_are_the_trees_libgit2_writes(
            paths in prop::collection::vec(path(), 1..24),
            executable in prop::collection::vec(any::<bool>(), 24),
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let repo = Repository::init(dir.path()).expect("init");
            let mut index = repo.index().expect("index");
            let mut kept: Vec<String> = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                let clash = kept.iter().any(|k| {
                    k == p || k.starts_with(&format!("{p}/")) || p.starts_with(&format!("{k}/"))
                });
                if !clash {
                    let mut e = entry(&repo, p, u32::try_from(i).expect("small"));
                    if executable[i] {
                        e.mode = 0o100_755;
                    }
                    index.add(&e).expect("add");
                    kept.push(p.clone());
                }
            }
            let tree = index.write_tree().expect("libgit2 writes the trees");
            index.write().expect("write");
            let ours = GitIndex::read(&dir.path().join(".git")).expect("read");
            let odb = repo.odb().expect("odb");
            let mut exists = |id: git2::Oid| odb.exists(id);
            let mut lookup = Lookup { trees: &|_| None, exists: &mut exists };
            let mut root = Node::root();
            let after = After::new(&ours, Vec::new());
            prop_assert!(after.update(&mut root, &mut Vec::new(), &mut lookup, 0));
            // Every folder's record against libgit2's tree at that path.
            let top = repo.find_tree(tree).expect("tree");
            let mut stack: Vec<(String, &Node)> = vec![(String::new(), &root)];
            while let Some((at, node)) = stack.pop() {
                let (count, id) = node.valid.expect("valid");
                let want = if at.is_empty() {
                    tree
                } else {
                    top.get_path(std::path::Path::new(&at)).expect("a folder").id()
                };
                prop_assert_eq!(id.as_slice(), want.as_bytes());
                let under = kept.iter().filter(|k| at.is_empty() || k.starts_with(&format!("{at}/")));
                prop_assert_eq!(count, under.count());
                for child in &node.children {
                    let name = String::from_utf8(child.name.clone()).expect("utf-8");
                    let sub = if at.is_empty() { name } else { format!("{at}/{name}") };
                    stack.push((sub, child));
                }
            }
            let ext = root.extension().expect("an extension");
            let back = Node::parse(&ext[8..]).and_then(|n| n.extension());
            prop_assert_eq!(back, Some(ext));
        }

        /// Records written and read back are the same; with any one byte changed they are
        /// parsed or refused, never a panic, and what parses writes what reads back the same.
        #[test]
        fn records_read_back_and_survive_a_changed_byte(
            root in node(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let root = Node { name: Vec::new(), ..root };
            let Some(ext) = root.extension() else { return Ok(()) };
            let back = Node::parse(&ext[8..]).and_then(|n| n.extension());
            prop_assert_eq!(back, Some(ext.clone()));
            let mut data = ext[8..].to_vec();
            let i = at.index(data.len());
            data[i] = byte;
            if let Some(node) = Node::parse(&data)
                && let Some(ext) = node.extension()
            {
                let back = Node::parse(&ext[8..]).and_then(|n| n.extension());
                prop_assert_eq!(back, Some(ext));
            }
        }
    }
}
