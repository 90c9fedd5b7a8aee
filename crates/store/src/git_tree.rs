//! Git tree objects as a commit rewrites them: the raw bytes of each tree on a changed path,
//! with the changed entries spliced in (issue 20).
//!
//! libgit2's `git_tree_create_updated` loads every tree on a changed path into a tree builder (a
//! hash map of all its entries), sorts the entries again and serialises them anew. The episode
//! logs live in one folder, one file per day: at a year of daily use that tree has thousands
//! of entries, and rebuilding it was a fifth of a `remember`. A tree's entries are already
//! sorted in its raw bytes, so a change is a binary search and a copy of the bytes around the
//! entries it replaces; the object is then written through the object database as is.
//!
//! The format (git's `tree` object): entries `MODE SP NAME NUL ID`, the mode in octal ASCII
//! without leading zeros (`100644`, `100755`, `120000`, `40000` for a tree, `160000` for a
//! submodule), the id 20 raw bytes (SHA-1 repositories only: a SHA-256 one answers an error and
//! the caller falls back), sorted by name as git compares them: byte by byte, a tree's name
//! compared as if it ended in `/`. Entries this module does not change are copied byte for byte,
//! whatever their mode.

use std::cmp::Ordering;

use git2::build::TreeUpdateBuilder;
use git2::{FileMode, ObjectType, Oid, Repository};

const ID: usize = 20;
/// A tree entry's mode for a folder, as git writes it.
pub(crate) const TREE_MODE: &[u8] = b"40000";
const GITLINK_MODE: &[u8] = b"160000";

/// One change under a tree: the path (`/`-separated, relative to the tree) and the blob with
/// its mode it gets, or `None` to remove it.
pub(crate) type Change<'a> = (&'a str, Option<(Oid, FileMode)>);

/// What a changed name becomes: its mode (octal ASCII) and id.
type NewEntry = (Vec<u8>, Oid);

/// A tree entry as it lies in the raw object.
#[derive(Clone, Copy)]
struct Entry<'a> {
    mode: &'a [u8],
    name: &'a [u8],
    id: &'a [u8],
}

impl Entry<'_> {
    fn is_tree(&self) -> bool {
        self.mode == TREE_MODE
    }
}

/// Why a tree could not be spliced: the caller falls back to libgit2's tree builder.
#[derive(Debug)]
pub(crate) enum SpliceError {
    /// A tree's bytes are not a SHA-1 tree as git writes it.
    Malformed,
    /// A path component is empty, `.`, `..`, `.git` or holds a NUL byte.
    BadPath,
    /// A change libgit2's builder refuses: a file where a folder is or the other way round, a
    /// file and a folder of one name, or removing what is not there.
    Conflict,
    /// The object database failed.
    Git(git2::Error),
}

impl From<git2::Error> for SpliceError {
    fn from(e: git2::Error) -> Self {
        Self::Git(e)
    }
}

/// Writes the tree `base` (the empty tree when `None`) with `changes` applied and returns its id.
/// A folder left with no entries is removed from its parent, as git has no empty trees; the
/// root stays, empty if it must.
pub(crate) fn write_updated(
    repo: &Repository,
    base: Option<Oid>,
    changes: &[Change<'_>],
) -> Result<Oid, SpliceError> {
    for (path, _) in changes {
        if !path.split('/').all(valid_name) {
            return Err(SpliceError::BadPath);
        }
    }
    let writer = crate::git_loose::Writer::new(repo)?;
    match update(&writer, base, changes)? {
        Some(id) => Ok(id),
        None => Ok(writer.write(ObjectType::Tree, &[])?),
    }
}

/// Writes `base` with `changes` applied through libgit2's tree builder: what the splice leaves
/// to it, with libgit2's own result or error.
pub(crate) fn with_libgit2(
    repo: &Repository,
    base: &git2::Tree<'_>,
    changes: &[Change<'_>],
) -> Result<Oid, git2::Error> {
    let mut update = TreeUpdateBuilder::new();
    for (path, to) in changes {
        match to {
            Some((id, mode)) => update.upsert(*path, *id, *mode),
            None => update.remove(*path),
        };
    }
    update.create_updated(repo, base)
}

/// What [`for_each_file`] calls with each file's path, mode and id; `false` stops the walk.
pub(crate) type Visit<'v> = dyn FnMut(&[u8], &[u8], &[u8]) -> bool + 'v;

/// Visits every entry of the tree `id` that is not a folder (a file, a link, a submodule), the
/// folders' entries in place of the folders: `visit(path, mode, id)` with the full path from
/// that tree (`/`-separated) and the mode in octal ASCII as the tree holds it. The paths come
/// in the order git's index sorts them (byte order), since git orders a folder as if its name
/// ended in `/`. Stops at the first `visit` that answers `false` and answers `Ok(false)`.
pub(crate) fn for_each_file(
    odb: &git2::Odb<'_>,
    id: Oid,
    visit: &mut Visit<'_>,
) -> Result<bool, SpliceError> {
    fn walk(
        odb: &git2::Odb<'_>,
        id: &[u8],
        path: &mut Vec<u8>,
        visit: &mut Visit<'_>,
    ) -> Result<bool, SpliceError> {
        let object = odb.read(Oid::from_bytes(id)?)?;
        if object.kind() != ObjectType::Tree {
            return Err(SpliceError::Malformed);
        }
        let at = path.len();
        for e in parse(object.data())? {
            path.truncate(at);
            if at > 0 {
                path.push(b'/');
            }
            path.extend_from_slice(e.name);
            let go_on =
                if e.is_tree() { walk(odb, e.id, path, visit)? } else { visit(path, e.mode, e.id) };
            if !go_on {
                return Ok(false);
            }
        }
        path.truncate(at);
        Ok(true)
    }
    walk(odb, id.as_bytes(), &mut Vec::new(), visit)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.eq_ignore_ascii_case(".git")
        && !name.contains('\0')
}

/// The tree `base` with `changes` applied, written; `None` when it ends up empty.
fn update(
    writer: &crate::git_loose::Writer<'_>,
    base: Option<Oid>,
    changes: &[Change<'_>],
) -> Result<Option<Oid>, SpliceError> {
    let object = match base {
        Some(id) => {
            let object = writer.odb().read(id)?;
            if object.kind() != ObjectType::Tree {
                return Err(SpliceError::Malformed);
            }
            Some(object)
        }
        None => None,
    };
    let raw: &[u8] = object.as_ref().map_or(&[], |o| o.data());
    let entries = parse(raw)?;
    // The changes by the name of this tree they fall under: the change of that name itself
    // (the last one wins, as applied in order), and the changes below it for a folder. One pass,
    // so that a commit of thousands of files costs no more than their count.
    type Grouped<'c> = (Option<Option<(Oid, FileMode)>>, Vec<Change<'c>>);
    let mut by_name: std::collections::BTreeMap<&str, Grouped<'_>> = Default::default();
    for (path, to) in changes {
        match path.split_once('/') {
            Some((first, rest)) => by_name.entry(first).or_default().1.push((rest, *to)),
            None => by_name.entry(path).or_default().0 = Some(*to),
        }
    }
    // What replaces each changed name: `None` removes it.
    let mut replacements: Vec<(Vec<u8>, Option<NewEntry>)> = Vec::new();
    for (name, (leaf, below)) in by_name {
        let existing = find(&entries, name.as_bytes(), true)
            .or_else(|| find(&entries, name.as_bytes(), false))
            .map(|i| entries[i]);
        let new = match (leaf, below.is_empty()) {
            // A file and a folder of the same name in one change (the second pattern cannot
            // occur: a name is grouped only for a change of it or below it).
            (Some(_), false) | (None, true) => return Err(SpliceError::Conflict),
            (Some(Some((id, mode))), true) => {
                // Only a blob replaces a blob (libgit2 refuses a change of kind).
                if existing.is_some_and(|e| e.is_tree() || e.mode == GITLINK_MODE) {
                    return Err(SpliceError::Conflict);
                }
                Some((format!("{:o}", i32::from(mode)).into_bytes(), id))
            }
            (Some(None), true) => {
                if existing.is_none() {
                    return Err(SpliceError::Conflict); // nothing to remove
                }
                None
            }
            (None, false) => {
                // A folder: the changes below it applied to it as it is.
                let base = match existing {
                    Some(e) if e.is_tree() => Some(Oid::from_bytes(e.id)?),
                    Some(_) => return Err(SpliceError::Conflict), // a file where a folder goes
                    None => None,
                };
                let new = update(writer, base, &below)?;
                if new.is_none() && existing.is_none() {
                    return Err(SpliceError::Conflict); // an empty folder that was not there
                }
                new.map(|id| (TREE_MODE.to_vec(), id))
            }
        };
        replacements.push((name.as_bytes().to_vec(), new));
    }
    // Entries kept in order, the replaced ones dropped, the new ones merged in by name.
    let replaced: std::collections::HashSet<&[u8]> =
        replacements.iter().map(|(n, _)| n.as_slice()).collect();
    let mut added: Vec<Entry<'_>> = replacements
        .iter()
        .filter_map(|(name, new)| {
            new.as_ref().map(|(mode, id)| Entry { mode, name, id: id.as_bytes() })
        })
        .collect();
    added.sort_by(|a, b| compare(a, b));
    let kept = entries.iter().filter(|e| !replaced.contains(e.name));
    let mut out = Vec::with_capacity(raw.len() + 64 * added.len());
    let mut added = added.into_iter().peekable();
    let mut count = 0usize;
    for e in kept {
        while let Some(a) = added.next_if(|a| compare(a, e) == Ordering::Less) {
            push(&mut out, &a);
            count += 1;
        }
        push(&mut out, e);
        count += 1;
    }
    for a in added {
        push(&mut out, &a);
        count += 1;
    }
    if count == 0 {
        return Ok(None);
    }
    Ok(Some(writer.write(ObjectType::Tree, &out)?))
}

fn push(out: &mut Vec<u8>, e: &Entry<'_>) {
    put_entry(out, e.mode, e.name, e.id);
}

/// Appends one tree entry, `MODE SP NAME NUL ID`, to a tree object's bytes.
pub(crate) fn put_entry(out: &mut Vec<u8>, mode: &[u8], name: &[u8], id: &[u8]) {
    out.extend_from_slice(mode);
    out.push(b' ');
    out.extend_from_slice(name);
    out.push(0);
    out.extend_from_slice(id);
}

/// A raw tree's entries, in order; anything but well-formed SHA-1 entries in git's order is
/// [`SpliceError::Malformed`].
fn parse(raw: &[u8]) -> Result<Vec<Entry<'_>>, SpliceError> {
    let mut out: Vec<Entry<'_>> = Vec::new();
    let mut at = 0;
    while at < raw.len() {
        let rest = &raw[at..];
        let space = rest.iter().position(|&b| b == b' ').ok_or(SpliceError::Malformed)?;
        let nul = rest.iter().position(|&b| b == 0).ok_or(SpliceError::Malformed)?;
        let mode = &rest[..space];
        if nul <= space + 1
            || rest.len() < nul + 1 + ID
            || mode.is_empty()
            || !mode.iter().all(|b| (b'0'..=b'7').contains(b))
        {
            return Err(SpliceError::Malformed);
        }
        let e = Entry { mode, name: &rest[space + 1..nul], id: &rest[nul + 1..nul + 1 + ID] };
        if out.last().is_some_and(|p| compare(p, &e) != Ordering::Less) {
            return Err(SpliceError::Malformed);
        }
        out.push(e);
        at += nul + 1 + ID;
    }
    Ok(out)
}

/// git's order of tree entries: by name, a tree's name as if it ended in `/`.
fn compare(a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
    name_order((a.name, a.is_tree()), (b.name, b.is_tree()))
}

/// git's order of tree entries by (name, whether it is a tree): a tree's name compared as if
/// it ended in `/`.
pub(crate) fn name_order(a: (&[u8], bool), b: (&[u8], bool)) -> Ordering {
    let key = |(name, tree): (&[u8], bool), i: usize| match name.get(i) {
        Some(&c) => Some(c),
        None if i == name.len() && tree => Some(b'/'),
        None => None,
    };
    let common = a.0.len().min(b.0.len());
    match a.0[..common].cmp(&b.0[..common]) {
        Ordering::Equal => key(a, common).cmp(&key(b, common)),
        other => other,
    }
}

/// The index of the entry named `name` (a tree when `tree`, else anything but a tree).
fn find(entries: &[Entry<'_>], name: &[u8], tree: bool) -> Option<usize> {
    let probe = Entry { mode: if tree { TREE_MODE } else { b"100644" }, name, id: &[] };
    entries.binary_search_by(|e| compare(e, &probe)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn repo() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = Repository::init(dir.path()).expect("init");
        (dir, repo)
    }

    /// The tree libgit2's builder makes from `base` (the empty tree when `None`).
    fn libgit2(
        repo: &Repository,
        base: Option<Oid>,
        changes: &[Change<'_>],
    ) -> Result<Oid, git2::Error> {
        let base = match base {
            Some(id) => repo.find_tree(id)?,
            None => repo.find_tree(repo.treebuilder(None)?.write()?)?,
        };
        with_libgit2(repo, &base, changes)
    }

    fn path_strategy() -> impl Strategy<Value = String> {
        // Names that sort around one another ("a", "a.md", "a-b", "ab") in folders that share
        // prefixes with files: the cases git's order is about.
        let name = prop::sample::select(vec!["a", "a.md", "a-b", "ab", "b", "a0", "z.md"]);
        prop::collection::vec(name, 1..=3).prop_map(|parts| parts.join("/"))
    }

    type Owned = Vec<(String, Option<(Oid, FileMode)>)>;

    fn refs(v: &Owned) -> Vec<Change<'_>> {
        v.iter().map(|(p, t)| (p.as_str(), *t)).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Any base libgit2 builds and any changes: the tree libgit2's builder writes, or an
        /// error where it refuses.
        #[test]
        fn a_spliced_tree_is_the_one_libgit2_builds(
            base in prop::collection::vec((path_strategy(), 0u8..3), 0..12),
            changes in prop::collection::vec((path_strategy(), prop::option::of(0u8..3)), 1..6),
        ) {
            let (_dir, repo) = repo();
            let blob = |n: u8| repo.blob(format!("content {n}\n").as_bytes()).expect("blob");
            let mode = |n: u8| if n == 2 { FileMode::BlobExecutable } else { FileMode::Blob };
            // A base without file/folder clashes (libgit2 refuses them): the first path wins.
            let mut base_list: Owned = Vec::new();
            for (path, n) in &base {
                let clash = base_list.iter().any(|(p, _)| {
                    p == path
                        || p.starts_with(&format!("{path}/"))
                        || path.starts_with(&format!("{p}/"))
                });
                if !clash {
                    base_list.push((path.clone(), Some((blob(*n), mode(*n)))));
                }
            }
            let base_id = libgit2(&repo, None, &refs(&base_list)).expect("base");
            let mut list: Owned = Vec::new();
            for (path, to) in &changes {
                if !list.iter().any(|(p, _)| p == path) {
                    list.push((path.clone(), to.map(|n| (blob(n), mode(n)))));
                }
            }
            let want = libgit2(&repo, Some(base_id), &refs(&list));
            let got = write_updated(&repo, Some(base_id), &refs(&list));
            // One change over a folder another change is in: libgit2 orders them its way;
            // the splice leaves those to it (the caller falls back).
            let nested = list.iter().any(|(p, _)| {
                list.iter().any(|(q, _)| q.starts_with(&format!("{p}/")))
            });
            match (want, got) {
                (Ok(want), Ok(got)) => prop_assert_eq!(got, want, "base {:?} changes {:?}", base_list, list),
                (Err(e), Ok(got)) => prop_assert!(false, "libgit2 refused ({}) what the splice wrote ({}): base {:?} changes {:?}", e, got, base_list, list),
                (Ok(_), Err(e)) => prop_assert!(nested, "splice failed ({:?}) where libgit2 did not: base {:?} changes {:?}", e, base_list, list),
                (Err(_), Err(_)) => {}
            }
        }
    }

    #[test]
    fn a_folder_emptied_by_the_change_leaves_its_parent() {
        let (_dir, repo) = repo();
        let blob = repo.blob(b"x").expect("blob");
        let base = write_updated(
            &repo,
            None,
            &[
                ("memory/episodes/2026-01-01.md", Some((blob, FileMode::Blob))),
                ("README.md", Some((blob, FileMode::Blob))),
            ],
        )
        .expect("base");
        let after = write_updated(&repo, Some(base), &[("memory/episodes/2026-01-01.md", None)])
            .expect("update");
        let tree = repo.find_tree(after).expect("tree");
        assert_eq!(tree.len(), 1, "only README.md is left");
        assert!(tree.get_name("memory").is_none());
        // Everything removed: the empty tree.
        let empty = write_updated(&repo, Some(after), &[("README.md", None)]).expect("update");
        assert_eq!(repo.find_tree(empty).expect("tree").len(), 0);
    }

    #[test]
    fn paths_that_git_refuses_are_refused() {
        let (_dir, repo) = repo();
        let blob = repo.blob(b"x").expect("blob");
        for bad in ["", "a//b", "./a", "a/../b", ".git/config", "a/.GIT/x", "a\0b"] {
            let got = write_updated(&repo, None, &[(bad, Some((blob, FileMode::Blob)))]);
            assert!(matches!(got, Err(SpliceError::BadPath)), "input: {bad:?}");
        }
    }

    #[test]
    fn a_tree_out_of_order_or_cut_short_is_malformed() {
        let id = [7u8; ID];
        let entry = |mode: &str, name: &str| {
            let mut v = format!("{mode} {name}\0").into_bytes();
            v.extend_from_slice(&id);
            v
        };
        let ok = [entry("100644", "a"), entry("40000", "a-b"), entry("100644", "b")].concat();
        assert_eq!(parse(&ok).expect("parses").len(), 3);
        let unordered = [entry("100644", "b"), entry("100644", "a")].concat();
        assert!(parse(&unordered).is_err());
        assert!(parse(&ok[..ok.len() - 1]).is_err());
        assert!(parse(&entry("10x644", "a")).is_err());
        assert!(parse(&entry("100644", "")).is_err());
        // A folder sorts as if its name ended in `/`: "a-b" (file) < "a" (folder) < "a0".
        let folder = [entry("100644", "a-b"), entry("40000", "a"), entry("100644", "a0")].concat();
        assert_eq!(parse(&folder).expect("parses").len(), 3);
    }
}
