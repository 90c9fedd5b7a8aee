//! The git index (`.git/index`) as the change engine reads and patches it (issue 20).
//!
//! libgit2 reads the whole index into a hash map (its checksum recomputed with collision
//! detection, every path validated) and writes it back whole, for every commit: at 13,000 files
//! that was a quarter of a `remember`'s CPU, and it grew with the workspace. A change touches a
//! handful of files, so this module reads the file as bytes, finds the entries it needs by binary
//! search over the sorted entries, and writes a copy in which only those entries differ.
//!
//! Only what is plain and common is handled: index versions 2, 3 and 4, no conflict entries or
//! extended flags on the paths changed, and no mandatory extension (a split index's `link`, a
//! sparse index's `sdir`). Anything else answers `None` and the caller uses libgit2 as before.
//! The cache tree (`TREE`) is kept up to date on write ([`cache_tree`]); the other optional
//! extensions are dropped, as git allows (the untracked cache and the offset tables: git
//! rebuilds them when it next needs them).
//!
//! Like git, a write smudges the entries that are racily clean (modified no earlier than the
//! index being replaced was written) and whose file no longer holds the entry's blob: their size
//! is set to 0 so that the next reader compares their content instead of trusting their stat
//! data. A racy entry whose file still holds its blob is kept as it is, as git keeps it.

use std::path::Path;
use std::sync::Arc;

use git2::Oid;
use sha1::{Digest, Sha1};

use crate::store::fsx;

mod cache_tree;

pub(crate) use cache_tree::CommitTrees;

const SIGNATURE: &[u8; 4] = b"DIRC";
const HEADER: usize = 12;
const CHECKSUM: usize = 20;
/// ctime, mtime (seconds, nanoseconds each), dev, ino, mode, uid, gid, size: ten 32-bit fields.
const STAT: usize = 40;
/// The stat fields, the object id and the flags.
const FIXED: usize = STAT + 20 + 2;
const NAME_MASK: u16 = 0x0FFF;
const EXTENDED: u16 = 0x4000;
const STAGE_MASK: u16 = 0x3000;

/// One entry's place in the file.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
    path_start: usize,
    path_len: usize,
}

/// What an entry says of its file, for the stat check (`git::dirty_files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    pub(crate) id: Oid,
    pub(crate) mtime: (u32, u32),
    pub(crate) size: u32,
    pub(crate) ino: u32,
}

/// An index entry whose stat data does not vouch for its file ([`GitIndex::unvouched`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unvouched {
    /// The entry's path.
    pub(crate) path: String,
    /// The entry's blob.
    pub(crate) id: Oid,
    /// Whether the file is gone (else it is there, and its content decides).
    pub(crate) gone: bool,
}

impl Unvouched {
    /// The entry at `s`, its file `gone` or not.
    fn of(index: &GitIndex, s: &Span, gone: bool) -> Option<Self> {
        let path = String::from_utf8(index.path(s).to_vec()).ok()?;
        let id = Oid::from_bytes(index.bytes.get(s.start + STAT..s.start + STAT + 20)?).ok()?;
        Some(Self { path, id, gone })
    }
}

/// An index file, parsed as far as finding its entries.
#[derive(Debug)]
pub(crate) struct GitIndex {
    bytes: Vec<u8>,
    version: u32,
    entries: Vec<Span>,
    /// Version 4: the entries' paths written out whole (the file keeps each as a prefix of
    /// the one before and a suffix); a [`Span`]'s path is here, not in `bytes`.
    names: Vec<u8>,
    /// When the file was last written (seconds, nanoseconds): what racy entries are judged by.
    written: Option<(u32, u32)>,
    /// The cache tree extension's data, when the file has one.
    tree: Option<std::ops::Range<usize>>,
}

/// The last index [`GitIndex::read`] parsed, for [`GitIndex::read_again`].
static KEPT: std::sync::Mutex<Option<(std::path::PathBuf, FileKey, Arc<GitIndex>)>> =
    std::sync::Mutex::new(None);

/// What tells one version of the index file from another without reading it: its size,
/// modification time to the nanosecond and inode (a write replaces the file, so a new inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileKey {
    len: u64,
    modified: std::time::SystemTime,
    #[cfg(unix)]
    ino: u64,
}

impl FileKey {
    fn of(meta: &std::fs::Metadata) -> Option<Self> {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok()?,
            #[cfg(unix)]
            ino: meta.ino(),
        })
    }
}

impl GitIndex {
    /// Reads `GIT_DIR/index`; `None` when it is absent, unreadable, malformed (entries cut
    /// short, out of order, an unknown mandatory extension) or of a kind this module leaves
    /// to libgit2. Its checksum is not checked, as git does not check it on a read.
    pub(crate) fn read(git_dir: &Path) -> Option<Arc<Self>> {
        let path = git_dir.join("index");
        let meta = std::fs::metadata(&path).ok()?;
        let key = FileKey::of(&meta);
        let bytes = fsx::read(&path, u64::MAX).ok()?;
        let index = Arc::new(Self::parse(bytes, meta.modified().ok().and_then(stamp))?);
        // Kept for `read_again` only when the file did not change while it was read.
        let after = std::fs::metadata(&path).ok().and_then(|m| FileKey::of(&m));
        if let (Some(key), Ok(mut kept)) = (key, KEPT.lock())
            && after == Some(key)
        {
            *kept = Some((path, key, Arc::clone(&index)));
        }
        Some(index)
    }

    /// [`GitIndex::read`] for a second read in the same change (the clean check reads the
    /// index, the patch after the commit reads it again): the first read's copy while the file
    /// is the one it read (same size, modification time and inode; every writer of the index
    /// replaces the file, and [`write`] forgets the copy), else a new read.
    pub(crate) fn read_again(git_dir: &Path) -> Option<Arc<Self>> {
        let path = git_dir.join("index");
        let key = std::fs::metadata(&path).ok().and_then(|m| FileKey::of(&m));
        if let Ok(kept) = KEPT.lock()
            && let Some((p, k, index)) = kept.as_ref()
            && *p == path
            && key == Some(*k)
        {
            return Some(Arc::clone(index));
        }
        Self::read(git_dir)
    }

    fn parse(bytes: Vec<u8>, written: Option<(u32, u32)>) -> Option<Self> {
        if bytes.len() < HEADER + CHECKSUM || &bytes[..4] != SIGNATURE {
            return None;
        }
        let body = bytes.len() - CHECKSUM;
        // The checksum is not recomputed (a millisecond at 100,000 memories): git checks it
        // only in `git fsck` (since 2.13, for that cost), libgit2 on every read. The entries'
        // structure and order are checked below; `cogmem verify` checks the checksum
        // ([`checksum_matches`]).
        let version = be32(&bytes, 4)?;
        if !(2..=4).contains(&version) {
            return None;
        }
        let count = be32(&bytes, 8)? as usize;
        // No more entries than the bytes can hold, whatever the header claims.
        let mut entries = Vec::with_capacity(count.min(bytes.len() / FIXED));
        let mut names = Vec::new();
        let mut at = HEADER;
        for _ in 0..count {
            let flags = be16(&bytes, at + STAT + 20)?;
            let path_field = at + FIXED + if flags & EXTENDED != 0 { 2 } else { 0 };
            if version == 4 {
                // The number of bytes to drop from the end of the previous path, then the rest
                // of this one, NUL-terminated; no padding.
                let (drop, used) = varint(bytes.get(path_field..body)?)?;
                let prev = entries.last().map_or((0, 0), |p: &Span| (p.path_start, p.path_len));
                let keep = prev.1.checked_sub(drop)?;
                let suffix = path_field + used;
                let suffix_len = bytes.get(suffix..body)?.iter().position(|b| *b == 0)?;
                let path_start = names.len();
                names.extend_from_within(prev.0..prev.0 + keep);
                names.extend_from_slice(&bytes[suffix..suffix + suffix_len]);
                let path_len = names.len() - path_start;
                if !matches!(flags & NAME_MASK, NAME_MASK)
                    && usize::from(flags & NAME_MASK) != path_len
                {
                    return None;
                }
                let len = suffix + suffix_len + 1 - at;
                entries.push(Span { start: at, len, path_start, path_len });
                at += len;
                continue;
            }
            let path_len = match flags & NAME_MASK {
                NAME_MASK => bytes.get(path_field..body)?.iter().position(|b| *b == 0)?,
                n => usize::from(n),
            };
            // One to eight NUL bytes pad the entry to a multiple of eight.
            let len = (path_field - at + path_len + 8) & !7;
            if at + len > body || bytes[path_field + path_len] != 0 {
                return None;
            }
            entries.push(Span { start: at, len, path_start: path_field, path_len });
            at += len;
        }
        // Extensions: only optional ones (their signature starts with a capital) may be dropped.
        let mut ext = at;
        let mut tree = None;
        while ext < body {
            let sig = bytes.get(ext..ext + 4)?;
            if !sig[0].is_ascii_uppercase() {
                return None;
            }
            let size = be32(&bytes, ext + 4)? as usize;
            if sig == cache_tree::SIGNATURE {
                tree = Some(ext + 8..(ext + 8).checked_add(size)?);
            }
            ext = ext.checked_add(8 + size)?;
        }
        if ext != body {
            return None;
        }
        let index = Self { bytes, version, entries, names, written, tree };
        // Sorted by path then stage, as every reader relies on.
        let sorted = index.entries.windows(2).all(|w| {
            (index.path(&w[0]), stage(&index.bytes, &w[0]))
                < (index.path(&w[1]), stage(&index.bytes, &w[1]))
        });
        sorted.then_some(index)
    }

    fn path(&self, s: &Span) -> &[u8] {
        let from = if self.version == 4 { &self.names } else { &self.bytes };
        &from[s.path_start..s.path_start + s.path_len]
    }

    /// The entry's bytes before its path: the stat data, the id and the flags (with the
    /// extended flags when it has them).
    fn fixed_part(&self, s: &Span) -> &[u8] {
        let extended = be16(&self.bytes, s.start + STAT + 20).is_some_and(|f| f & EXTENDED != 0);
        &self.bytes[s.start..s.start + FIXED + if extended { 2 } else { 0 }]
    }

    /// The first entry whose path is not before `path`.
    fn lower_bound(&self, path: &[u8]) -> usize {
        self.entries.partition_point(|s| self.path(s) < path)
    }

    /// The stage-0 entry of `rel`, if the index has one.
    pub(crate) fn get(&self, rel: &str) -> Option<EntryStat> {
        let i = self.lower_bound(rel.as_bytes());
        let s = self.entries.get(i).filter(|s| self.path(s) == rel.as_bytes())?;
        if stage(&self.bytes, s) != 0 {
            return None;
        }
        let b = &self.bytes;
        Some(EntryStat {
            id: Oid::from_bytes(&b[s.start + STAT..s.start + STAT + 20]).ok()?,
            mtime: (be32(b, s.start + 8)?, be32(b, s.start + 12)?),
            size: be32(b, s.start + 36)?,
            ino: be32(b, s.start + 20)?,
        })
    }

    /// What this index cannot vouch for in the work tree `files` (every file but those under
    /// `.git`, sorted by path, links not followed): the entries whose file is gone, and those
    /// whose stat data is not the file's (size, modification and change times to the
    /// nanosecond, inode) or was taken when the file may have changed again in the same clock
    /// tick (modified no earlier than the index was written: racily clean). Every other entry's
    /// file holds the entry's blob, as git's own stat check trusts. Also the files the index
    /// does not hold (untracked, ignored or not: the caller asks). `None` when it cannot tell
    /// that much: an entry not at stage 0 or with a flag set (assume-unchanged, skip-worktree,
    /// intent-to-add), or a file's kind or executable bit not the entry's mode; the caller asks
    /// libgit2 then.
    pub(crate) fn unvouched<'f>(
        &self,
        files: impl IntoIterator<Item = crate::git::WorkFile<'f>>,
    ) -> Option<(Vec<Unvouched>, Vec<String>)> {
        let written = self.written?;
        let secs = |ns: u128| (ns / 1_000_000_000) as u32;
        let nsec = |ns: u128| (ns % 1_000_000_000) as u32;
        let b = &self.bytes;
        let field = |s: &Span, i: usize| be32(b, s.start + 4 * i);
        let plain = |s: &Span| be16(b, s.start + STAT + 20).is_some_and(|f| f & !NAME_MASK == 0);
        let mut out = Vec::new();
        let mut untracked = Vec::new();
        let mut entries = self.entries.iter().peekable();
        for f in files {
            // Entries before this file: their files are gone.
            while let Some(s) = entries.next_if(|s| self.path(s) < f.path) {
                if !plain(s) {
                    return None;
                }
                out.push(Unvouched::of(self, s, true)?);
            }
            let Some(s) = entries.next_if(|s| self.path(s) == f.path) else {
                // Not in the index: untracked (the caller asks git whether it is ignored).
                untracked.push(String::from_utf8(f.path.to_vec()).ok()?);
                continue;
            };
            let mode = u32::try_from(i32::from(f.kind.file_mode())).ok();
            if !plain(s) || field(s, 6) != mode {
                return None;
            }
            let same = field(s, 9) == Some(f.size as u32)
                && field(s, 5) == Some(f.ino as u32)
                && (field(s, 2), field(s, 3)) == (Some(secs(f.mtime)), Some(nsec(f.mtime)))
                && (field(s, 0), field(s, 1)) == (Some(secs(f.ctime)), Some(nsec(f.ctime)))
                && (secs(f.mtime), nsec(f.mtime)) < written;
            if !same {
                out.push(Unvouched::of(self, s, false)?);
            }
        }
        for s in entries {
            if !plain(s) {
                return None;
            }
            out.push(Unvouched::of(self, s, true)?);
        }
        Some((out, untracked))
    }

    /// Whether the index holds exactly the files of the tree `tree` (none when `None`: an
    /// unborn branch), each with the tree's mode and blob: nothing staged.
    ///
    /// When git's cache tree says the whole index makes `tree` (its root record valid with
    /// that tree and spanning every entry) and every entry is at stage 0 without flags, that
    /// answers, as `git status` trusts it; else the tree's files are walked against the entries.
    pub(crate) fn equals_tree(&self, repo: &git2::Repository, tree: Option<Oid>) -> bool {
        let Some(tree) = tree else { return self.entries.is_empty() };
        let recorded =
            self.tree.as_ref().and_then(|r| cache_tree::root_tree(&self.bytes[r.clone()]));
        if recorded.is_some_and(|(n, id)| n == self.entries.len() && id == tree.as_bytes())
            && self.entries.iter().all(|s| {
                be16(&self.bytes, s.start + STAT + 20).is_some_and(|f| f & !NAME_MASK == 0)
            })
        {
            return true;
        }
        let Ok(odb) = repo.odb() else { return false };
        let mut entries = self.entries.iter();
        let mut visit = |path: &[u8], mode: &[u8], id: &[u8]| {
            let Some(s) = entries.next() else { return false };
            let b = &self.bytes;
            let octal = std::str::from_utf8(mode).ok().and_then(|m| u32::from_str_radix(m, 8).ok());
            self.path(s) == path
                && stage(b, s) == 0
                && be32(b, s.start + 24).is_some_and(|m| Some(m) == octal)
                && b.get(s.start + STAT..s.start + STAT + 20) == Some(id)
        };
        let all = crate::git_tree::for_each_file(&odb, tree, &mut visit);
        matches!(all, Ok(true)) && entries.next().is_none()
    }

    /// The index with the entries of `updates` replaced, added (`Some`) or removed (`None`),
    /// as the pieces of a file without its checksum ([`write_patch`] adds it and writes the
    /// file); `None` when a path has conflict entries or would collide with a folder or file
    /// the index holds (libgit2 resolves those). `root` is the work tree, where racy entries
    /// are checked. The unchanged entries are not copied: a [`Patch`] points into this index.
    pub(crate) fn patch(
        &self,
        root: &Path,
        updates: &[(String, Option<git2::IndexEntry>)],
    ) -> Option<Patch<'_>> {
        let updates = in_order(updates);
        for (rel, entry) in &updates {
            let i = self.lower_bound(rel.as_bytes());
            let same =
                |j: usize| self.entries.get(j).is_some_and(|s| self.path(s) == rel.as_bytes());
            // A conflict (stages 1–3) on a path this change writes: libgit2 decides.
            if same(i) && (stage(&self.bytes, &self.entries[i]) != 0 || same(i + 1)) {
                return None;
            }
            if entry.is_some() && !same(i) && self.collides(rel) {
                return None;
            }
        }
        let mut out = Patch { old: &self.bytes, new: Vec::new(), pieces: Vec::new() };
        // The header, its count filled in below.
        out.add_new(|new| new.extend_from_slice(&self.bytes[..HEADER]));
        let mut count = 0;
        // Version 4 writes each path against the one written before it.
        let mut paths = Paths { v4: self.version == 4, prev: Vec::new() };
        // The entries between two changed paths are one run of the old bytes.
        let mut from = 0;
        for (rel, entry) in &updates {
            let at = self.lower_bound(rel.as_bytes());
            count += self.copy_run(root, from..at, &mut out, &mut paths);
            from = at;
            if self.entries.get(at).is_some_and(|s| self.path(s) == rel.as_bytes()) {
                from += 1; // replaced or removed
            }
            if let Some(e) = entry {
                out.add_new(|new| {
                    encode_fixed(new, e);
                    paths.put(new, &e.path);
                });
                count += 1;
            }
        }
        count += self.copy_run(root, from..self.entries.len(), &mut out, &mut paths);
        let count = u32::try_from(count).ok()?;
        out.new[8..12].copy_from_slice(&count.to_be_bytes());
        out.new[4..8].copy_from_slice(&self.version.to_be_bytes());
        Some(out)
    }

    /// The cache tree extension (signature, size, data) of this index patched with `updates`
    /// ([`GitIndex::patch`]): its record kept where no entry changed, recomputed on the changed
    /// paths from `trees` (the parent and new commit's trees of a folder, when `updates` are the
    /// change that made the new commit of the parent) or by hashing the folder's tree object,
    /// valid only where `exists` says the object database holds it. `None` for an empty index.
    pub(crate) fn cache_tree(
        &self,
        updates: &[(String, Option<git2::IndexEntry>)],
        trees: &CommitTrees<'_>,
        exists: &mut dyn FnMut(Oid) -> bool,
    ) -> Option<Vec<u8>> {
        let sorted = in_order(updates)
            .into_iter()
            .map(|(p, e)| (p.as_bytes(), e.as_ref().map(cache_tree::FileEntry::of_update)))
            .collect();
        let after = cache_tree::After::new(self, sorted);
        let mut root = self
            .tree
            .as_ref()
            .and_then(|r| cache_tree::Node::parse(&self.bytes[r.clone()]))
            .unwrap_or_else(cache_tree::Node::root);
        root.drop_miscounted(&after, &mut Vec::new());
        for (path, new) in after.updates() {
            if after.changes_tree(path, new.as_ref()) {
                root.invalidate(path);
            }
        }
        let mut lookup = cache_tree::Lookup { trees, exists };
        after.update(&mut root, &mut Vec::new(), &mut lookup, 0);
        root.extension()
    }

    /// The index patched as [`GitIndex::patch`] does, as the bytes of a complete file with its
    /// checksum computed whole (all zeros with `skip_hash`): what [`write_patch`] writes.
    #[cfg(test)]
    fn patched(
        &self,
        root: &Path,
        updates: &[(String, Option<git2::IndexEntry>)],
        skip_hash: bool,
    ) -> Option<Vec<u8>> {
        let mut out = self.patch(root, updates)?.to_vec();
        if skip_hash {
            out.extend_from_slice(&[0; CHECKSUM]);
        } else {
            let sum = Sha1::digest(&out);
            out.extend_from_slice(&sum);
        }
        Some(out)
    }

    /// Adds the entries `run` to `out` as they are, but for the first one's path in version
    /// 4 (written against the path written before it, which may be a changed one) and the size
    /// of racy entries whose file no longer holds their blob (smudged to 0, as git does).
    /// Answers the number of entries added.
    fn copy_run(
        &self,
        root: &Path,
        run: std::ops::Range<usize>,
        out: &mut Patch<'_>,
        paths: &mut Paths,
    ) -> usize {
        let entries = &self.entries[run];
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else { return 0 };
        // Where the first entry, when written anew, starts in `out.new`.
        let base = out.new.len();
        let mut verbatim = first.start;
        if paths.v4 {
            out.add_new(|new| {
                new.extend_from_slice(self.fixed_part(first));
                paths.put(new, self.path(first));
            });
            verbatim = first.start + first.len;
        }
        let mut from = verbatim;
        for s in entries {
            if self.is_racy(s) && !self.still_holds_its_blob(root, s) {
                let size = s.start + 36;
                if s.start < verbatim {
                    out.new[base + 36..base + 40].copy_from_slice(&[0; 4]);
                } else {
                    out.add_old(from..size);
                    out.add_new(|new| new.extend_from_slice(&[0; 4]));
                    from = size + 4;
                }
            }
        }
        out.add_old(from..last.start + last.len);
        if paths.v4 {
            paths.prev.clear();
            paths.prev.extend_from_slice(self.path(last));
        }
        entries.len()
    }

    /// Whether adding `rel` would put a file where the index has a folder or under a path it
    /// has as a file.
    fn collides(&self, rel: &str) -> bool {
        let folder = format!("{rel}/");
        let i = self.lower_bound(folder.as_bytes());
        if self.entries.get(i).is_some_and(|s| self.path(s).starts_with(folder.as_bytes())) {
            return true;
        }
        rel.match_indices('/').any(|(n, _)| {
            let parent = &rel.as_bytes()[..n];
            let j = self.lower_bound(parent);
            self.entries.get(j).is_some_and(|s| self.path(s) == parent)
        })
    }

    /// Whether the entry's file is a regular file whose content is the entry's blob (git's
    /// check before it smudges a racy entry). Racy entries are the few files written since the
    /// index was, so reading them costs little.
    fn still_holds_its_blob(&self, root: &Path, s: &Span) -> bool {
        let Ok(rel) = std::str::from_utf8(self.path(s)) else { return false };
        let file = root.join(rel);
        let regular = std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_file());
        let id = &self.bytes[s.start + STAT..s.start + STAT + 20];
        regular && crate::git::blob_id_of(&file).is_some_and(|o| o.as_bytes() == id)
    }

    /// Modified no earlier than the index was written: its stat data cannot vouch for it.
    fn is_racy(&self, s: &Span) -> bool {
        let Some(written) = self.written else { return true };
        let mtime = (be32(&self.bytes, s.start + 8), be32(&self.bytes, s.start + 12));
        matches!(mtime, (Some(sec), Some(ns)) if (sec, ns) >= written)
    }
}

/// `updates` as the index takes them ([`GitIndex::patch`], [`GitIndex::cache_tree`]): by path,
/// the first of a path given twice.
fn in_order(
    updates: &[(String, Option<git2::IndexEntry>)],
) -> Vec<&(String, Option<git2::IndexEntry>)> {
    let mut sorted: Vec<_> = updates.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    sorted.dedup_by(|a, b| a.0 == b.0);
    sorted
}

/// A patched index without its checksum, as pieces in order: runs of the old file's bytes
/// (the unchanged entries, most of the file) and new bytes (the header, changed entries,
/// smudged sizes).
pub(crate) struct Patch<'a> {
    old: &'a [u8],
    new: Vec<u8>,
    pieces: Vec<Piece>,
}

/// A piece of a [`Patch`]: a range of the old file's bytes or of its new bytes.
#[derive(Debug, Clone)]
enum Piece {
    Old(std::ops::Range<usize>),
    New(std::ops::Range<usize>),
}

impl Patch<'_> {
    fn add_old(&mut self, run: std::ops::Range<usize>) {
        if run.is_empty() {
            return;
        }
        match self.pieces.last_mut() {
            Some(Piece::Old(last)) if last.end == run.start => last.end = run.end,
            _ => self.pieces.push(Piece::Old(run)),
        }
    }

    /// Adds the bytes `write` appends to the new bytes.
    fn add_new(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.new.len();
        write(&mut self.new);
        let end = self.new.len();
        match self.pieces.last_mut() {
            Some(Piece::New(last)) if last.end == start => last.end = end,
            _ if start == end => {}
            _ => self.pieces.push(Piece::New(start..end)),
        }
    }

    /// Adds an extension (its signature, size and data) after the entries.
    pub(crate) fn add_extension(&mut self, bytes: &[u8]) {
        self.add_new(|new| new.extend_from_slice(bytes));
    }

    fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(|p| match p {
            Piece::Old(r) => &self.old[r.clone()],
            Piece::New(r) => &self.new[r.clone()],
        })
    }

    /// The patched file's bytes without the checksum.
    #[cfg(test)]
    fn to_vec(&self) -> Vec<u8> {
        self.parts().flatten().copied().collect()
    }
}

/// Writes `patch` as `GIT_DIR/index` ([`fsx::write_locked_parts`]: through `index.lock`, so a
/// running git command's lock is respected) with its checksum (all zeros with `skip_hash`,
/// git's `index.skipHash`), from its pieces: the unchanged entries are not copied first.
pub(crate) fn write_patch(
    git_dir: &Path,
    patch: &Patch<'_>,
    skip_hash: bool,
) -> Result<(), fsx::IoError> {
    write_patch_if(git_dir, patch, skip_hash, None).map(|_| ())
}

/// The version of `GIT_DIR/index` now (size, mtime, inode), to tell later whether it was
/// replaced; `None` when there is none.
pub(crate) fn index_version(git_dir: &Path) -> Option<IndexVersion> {
    std::fs::metadata(git_dir.join("index")).ok().and_then(|m| FileKey::of(&m)).map(IndexVersion)
}

/// A version of git's index file, as [`index_version`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexVersion(FileKey);

/// [`write_patch`], only if the index is still `version` once its lock is held (`Ok(false)`
/// and nothing written otherwise); `None` writes whatever the version.
pub(crate) fn write_patch_if(
    git_dir: &Path,
    patch: &Patch<'_>,
    skip_hash: bool,
    version: Option<IndexVersion>,
) -> Result<bool, fsx::IoError> {
    let mut sum = [0; CHECKSUM];
    if !skip_hash {
        let mut hasher = Sha1::new();
        patch.parts().for_each(|part| hasher.update(part));
        sum = hasher.finalize().into();
    }
    let mut parts: Vec<&[u8]> = patch.parts().collect();
    parts.push(&sum);
    forget_kept();
    let unchanged = || version.is_none_or(|v| index_version(git_dir) == Some(v));
    fsx::write_locked_parts_if(&git_dir.join("index"), &parts, unchanged)
}

fn forget_kept() {
    if let Ok(mut kept) = KEPT.lock() {
        *kept = None;
    }
}

/// Whether `GIT_DIR/index`'s checksum is its content's SHA-1, as `git fsck` checks it (an
/// all-zero checksum, git's `index.skipHash`, passes); `None` when there is no index or it
/// cannot be read. [`GitIndex::read`] does not check it, as git's own reads do not.
pub(crate) fn checksum_matches(git_dir: &Path) -> Option<bool> {
    let bytes = fsx::read(&git_dir.join("index"), u64::MAX).ok()?;
    let body = bytes.len().checked_sub(CHECKSUM)?;
    let sum = &bytes[body..];
    Some(sum == [0; CHECKSUM] || Sha1::digest(&bytes[..body]).as_slice() == sum)
}

/// Writes `bytes` as `GIT_DIR/index` the way git does ([`fsx::write_locked`]: through
/// `index.lock`, so a running git command's lock is respected).
#[cfg(test)]
pub(crate) fn write(git_dir: &Path, bytes: &[u8]) -> Result<(), fsx::IoError> {
    forget_kept();
    fsx::write_locked(&git_dir.join("index"), bytes)
}

/// How the entries' paths are written: after the fixed part, whole and padded with NULs to a
/// multiple of eight (versions 2 and 3), or as the bytes to drop from the previous path and
/// the rest, NUL-terminated (version 4).
struct Paths {
    v4: bool,
    prev: Vec<u8>,
}

impl Paths {
    /// Writes `path` after the fixed part just written.
    fn put(&mut self, out: &mut Vec<u8>, path: &[u8]) {
        if self.v4 {
            let common = self.prev.iter().zip(path).take_while(|(a, b)| a == b).count();
            put_varint(out, self.prev.len() - common);
            out.extend_from_slice(&path[common..]);
            out.push(0);
            self.prev.clear();
            self.prev.extend_from_slice(path);
        } else {
            // One to eight NULs pad the entry (a new one's fixed part is FIXED bytes) to a
            // multiple of eight.
            out.extend_from_slice(path);
            let pad = 8 - (FIXED + path.len()) % 8;
            out.resize(out.len() + pad, 0);
        }
    }
}

/// git's variable-length integer of index version 4 (as for offsets in packs): seven bits a
/// byte, most significant first, each continued byte standing for one more than its bits.
fn put_varint(out: &mut Vec<u8>, mut value: usize) {
    let mut buf = [0u8; 16];
    let mut pos = buf.len() - 1;
    buf[pos] = (value & 127) as u8;
    value >>= 7;
    while value != 0 {
        value -= 1;
        pos -= 1;
        buf[pos] = 128 | (value & 127) as u8;
        value >>= 7;
    }
    out.extend_from_slice(&buf[pos..]);
}

/// Reads [`put_varint`]'s integer: the value and the bytes it took.
fn varint(b: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut byte = *b.first()?;
    let mut value = usize::from(byte & 127);
    while byte & 128 != 0 {
        used += 1;
        byte = *b.get(used)?;
        value = value.checked_add(1)?.checked_mul(128)? | usize::from(byte & 127);
    }
    Some((value, used + 1))
}

/// The stat data, id and flags of a new entry (never with extended flags); its path follows.
fn encode_fixed(out: &mut Vec<u8>, e: &git2::IndexEntry) {
    for v in [
        e.ctime.seconds() as u32,
        e.ctime.nanoseconds(),
        e.mtime.seconds() as u32,
        e.mtime.nanoseconds(),
        e.dev,
        e.ino,
        e.mode,
        e.uid,
        e.gid,
        e.file_size,
    ] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.extend_from_slice(e.id.as_bytes());
    let flags = (e.flags & !NAME_MASK & !EXTENDED) | (e.path.len().min(0xFFF) as u16);
    out.extend_from_slice(&flags.to_be_bytes());
}

fn stage(bytes: &[u8], s: &Span) -> u16 {
    be16(bytes, s.start + STAT + 20).map_or(0, |f| (f & STAGE_MASK) >> 12)
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn stamp(t: std::time::SystemTime) -> Option<(u32, u32)> {
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((u32::try_from(d.as_secs()).ok()?, d.subsec_nanos()))
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use std::path::Path;
    use std::process::Command;

    use git2::{FileMode, Repository};

    use sha1::{Digest, Sha1};

    use super::{GitIndex, checksum_matches, write};
    use crate::git::index_entry;

    pub(super) fn git(dir: &Path, args: &[&str]) -> String {
        git_env(dir, args, &[])
    }

    /// `git ARGS` in `dir` with `env` set; its output, after asserting it succeeded.
    pub(super) fn git_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.splitIndex=false"])
            .args(args)
            .envs(env.iter().copied())
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(super) fn put(dir: &Path, rel: &str, text: &str) {
        let abs = dir.join(rel);
        std::fs::create_dir_all(abs.parent().expect("a parent")).expect("mkdir");
        std::fs::write(abs, text).expect("write");
    }

    /// A repository whose paths sort the awkward way: `x-y.md` < `x.md` < `x/y.md`.
    fn repo() -> tempfile::TempDir {
        repo_with(&[
            ("a.md", "a\n"),
            ("memory/x-y.md", "x-y\n"),
            ("memory/x/y.md", "x/y\n"),
            ("memory/z.md", "z\n"),
        ])
    }

    /// A repository with `files` (path, text) committed by git.
    pub(super) fn repo_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        git(dir.path(), &["init", "-q", "-b", "main"]);
        for (rel, text) in files {
            put(dir.path(), rel, text);
        }
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "start"]);
        dir
    }

    /// The updates a change would stage: each path's entry as on disk, or removed.
    fn updates(dir: &Path, rels: &[&str]) -> Vec<(String, Option<git2::IndexEntry>)> {
        rels.iter()
            .map(|rel| {
                let abs = dir.join(rel);
                let entry = abs.exists().then(|| entry_from(dir, rel, rel));
                ((*rel).to_owned(), entry)
            })
            .collect()
    }

    /// The entry of `rel` with the content and stat data of the file at `from`, its blob stored.
    fn entry_from(dir: &Path, from: &str, rel: &str) -> git2::IndexEntry {
        let abs = dir.join(from);
        let id = Repository::open(dir).expect("open").blob_path(&abs).expect("blob");
        index_entry(&abs, rel, id, FileMode::Blob).expect("stat data")
    }

    /// What git makes of an index: every entry with its stat data, the tree it writes, status.
    fn seen_by_git(dir: &Path) -> (String, String, String) {
        (
            git(dir, &["ls-files", "-s", "--debug"]),
            git(dir, &["write-tree"]),
            git(dir, &["status", "--porcelain"]),
        )
    }

    /// One change of each kind, written to the work tree: `memory/z.md` edited, files added
    /// first, last and between `memory/x-y.md` and `memory/x/y.md`, `removed` deleted; the
    /// updates that stage them.
    fn edit_add_remove(root: &Path, removed: &str) -> Vec<(String, Option<git2::IndexEntry>)> {
        put(root, "memory/z.md", "z, edited\n");
        put(root, "memory/x.md", "between x-y.md and x/y.md\n");
        put(root, "0.md", "first\n");
        put(root, "zz.md", "last\n");
        std::fs::remove_file(root.join(removed)).expect("rm");
        updates(root, &["memory/z.md", "memory/x.md", "0.md", "zz.md", removed])
    }

    /// What git makes of the index after libgit2 stages `ups` and writes it.
    fn patched_by_libgit2(
        root: &Path,
        ups: &[(String, Option<git2::IndexEntry>)],
    ) -> (String, String, String) {
        let repo = Repository::open(root).expect("open");
        let mut index = repo.index().expect("index");
        for (rel, entry) in ups {
            match entry {
                Some(e) => index.add(e).expect("add"),
                None => index.remove_path(Path::new(rel)).expect("remove"),
            }
        }
        index.write().expect("write");
        seen_by_git(root)
    }

    #[test]
    fn a_patched_index_is_the_one_libgit2_writes() {
        let dir = repo();
        let root = dir.path();
        let ups = edit_add_remove(root, "a.md");
        let before = std::fs::read(root.join(".git/index")).expect("index");

        let by_libgit2 = patched_by_libgit2(root, &ups);

        // This module's way, from the same index.
        std::fs::write(root.join(".git/index"), &before).expect("put back");
        let index = GitIndex::read(&root.join(".git")).expect("a plain index");
        let bytes = index.patched(root, &ups, false).expect("patchable");
        write(&root.join(".git"), &bytes).expect("written");
        assert!(!root.join(".git/index.lock").exists());
        assert_eq!(seen_by_git(root), by_libgit2);
        // And it reads back: every entry as libgit2 sees it.
        let ours = GitIndex::read(&root.join(".git")).expect("reads back");
        let libgit2 = Repository::open(root).expect("open").index().expect("index");
        assert_eq!(libgit2.len(), 7 - 1 - 1 + 1, "0.md, memory/x-y.md, x.md, x/y.md, z.md, zz.md");
        for e in libgit2.iter() {
            let rel = String::from_utf8(e.path.clone()).expect("utf-8");
            let got = ours.get(&rel).expect("found");
            assert_eq!((got.id, got.size, got.ino), (e.id, e.file_size, e.ino), "{rel}");
            assert_eq!(got.mtime, (e.mtime.seconds() as u32, e.mtime.nanoseconds()), "{rel}");
        }
        assert!(ours.get("a.md").is_none());
    }

    /// git's `index.skipHash` (git 2.40): an index written with an all-zero checksum is read
    /// (not handed to libgit2's slow path), and one patched with `skip_hash` is what git writes
    /// then: git, libgit2 and this module read it, `git fsck` accepts it.
    #[test]
    fn an_index_without_its_checksum_is_read_and_written_as_git_does() {
        let dir = repo();
        let root = dir.path();
        put(root, "memory/z.md", "z, edited\n");
        git(root, &["-c", "index.skipHash=true", "add", "memory/z.md"]);
        let bytes = std::fs::read(root.join(".git/index")).expect("index");
        assert_eq!(bytes[bytes.len() - 20..], [0; 20], "git wrote no checksum");
        let index = GitIndex::read(&root.join(".git")).expect("read without a checksum");
        let staged = git(root, &["rev-parse", ":memory/z.md"]);
        assert_eq!(index.get("memory/z.md").expect("entry").id.to_string(), staged.trim());

        put(root, "zz.md", "last\n");
        let ups = updates(root, &["zz.md"]);
        let patched = index.patched(root, &ups, true).expect("patchable");
        assert_eq!(patched[patched.len() - 20..], [0; 20]);
        write(&root.join(".git"), &patched).expect("written");
        let ours = GitIndex::read(&root.join(".git")).expect("reads back");
        assert!(ours.get("zz.md").is_some() && ours.get("memory/z.md").is_some());
        let libgit2 = Repository::open(root).expect("open").index().expect("libgit2 reads it");
        assert_eq!(libgit2.len(), 5);
        // Both staged, nothing else changed: git sees the stat data of each.
        assert_eq!(git(root, &["status", "--porcelain"]), "M  memory/z.md\nA  zz.md\n");
        git(root, &["fsck", "--strict"]);
        assert_eq!(checksum_matches(&root.join(".git")), Some(true), "zeros pass, as in git");
        // A checksum that is neither the content's nor zeros: read, as git reads it (only
        // `git fsck` checks it), and told by `checksum_matches`, as `git fsck` tells it.
        let unpatched = std::fs::read(root.join(".git/index")).expect("index");
        let mut damaged = index.patched(root, &ups, false).expect("patchable");
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        std::fs::write(root.join(".git/index"), &damaged).expect("damage");
        assert!(GitIndex::read(&root.join(".git")).is_some_and(|i| i.get("zz.md").is_some()));
        assert_eq!(checksum_matches(&root.join(".git")), Some(false));
        let fsck = Command::new("git").args(["fsck"]).current_dir(root).output().expect("git");
        assert!(!fsck.status.success(), "git fsck sees it too");
        std::fs::write(root.join(".git/index"), &unpatched).expect("restore");
        assert_eq!(checksum_matches(&root.join(".git")), Some(true));
    }

    /// Index version 4 (`feature.manyFiles`, `index.version = 4`): each path written as the
    /// bytes to drop from the one before and the rest. It is read entry for entry as version
    /// 2 is, and patched as libgit2 writes it — still version 4, git seeing the same entries.
    #[test]
    fn a_version_4_index_is_read_and_patched_as_libgit2_writes_it() {
        let dir = repo();
        let root = dir.path();
        let git_dir = root.join(".git");
        // Paths that share prefixes of every length, and one long enough to need a two-byte
        // count of bytes to drop (more than 127).
        let long = format!("memory/{}.md", "l".repeat(150));
        for rel in ["memory/x-y-z.md", "memory/x/y/z.md", "memory/xa.md", long.as_str(), "m.md"] {
            put(root, rel, &format!("{rel}\n"));
        }
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "more"]);
        let v2 = GitIndex::read(&git_dir).expect("version 2");
        git(root, &["update-index", "--index-version", "4"]);
        let bytes = std::fs::read(git_dir.join("index")).expect("index");
        assert_eq!(bytes[4..8], [0, 0, 0, 4]);
        let v4 = GitIndex::read(&git_dir).expect("version 4 is read");
        assert_eq!(v4.entries.len(), v2.entries.len());
        for s in &v2.entries {
            let rel = std::str::from_utf8(v2.path(s)).expect("utf-8");
            assert_eq!(v4.get(rel), v2.get(rel), "{rel}");
        }

        let ups = edit_add_remove(root, "memory/xa.md");

        let by_libgit2 = patched_by_libgit2(root, &ups); // it keeps version 4

        // This module's way, from the same index.
        std::fs::write(git_dir.join("index"), &bytes).expect("put back");
        let index = GitIndex::read(&git_dir).expect("version 4");
        let patched = index.patched(root, &ups, false).expect("patchable");
        assert_eq!(patched[4..8], [0, 0, 0, 4], "still version 4");
        write(&git_dir, &patched).expect("written");
        assert_eq!(seen_by_git(root), by_libgit2);
        git(root, &["fsck", "--strict"]);
        let ours = GitIndex::read(&git_dir).expect("reads back");
        assert!(ours.get("memory/xa.md").is_none());
        assert!(ours.get(&long).is_some() && ours.get("memory/x.md").is_some());
    }

    #[test]
    fn varints_are_gits() {
        // git's encode_varint: 0 → 00, 127 → 7f, 128 → 80 00, 16511 → ff 7f, 16512 → 80 80 00.
        for (n, bytes) in [
            (0usize, &[0x00u8][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x00]),
            (150, &[0x80, 0x16]),
            (16_511, &[0xff, 0x7f]),
            (16_512, &[0x80, 0x80, 0x00]),
        ] {
            let mut out = Vec::new();
            super::put_varint(&mut out, n);
            assert_eq!(out, bytes, "{n}");
            assert_eq!(super::varint(&out), Some((n, out.len())), "{n}");
        }
        assert_eq!(super::varint(&[0x80]), None, "cut short");
    }

    #[test]
    fn racily_clean_entries_are_smudged_when_their_file_changed() {
        // In version 4 the entry after a changed one is written anew (its path against the
        // changed one's), the rest copied: the smudge must land in both kinds.
        for (version, first_of_run) in [("2", false), ("2", true), ("4", false), ("4", true)] {
            let dir = repo();
            let root = dir.path();
            git(root, &["update-index", "--index-version", version]);
            // The index written before its files were: none of their stat data can be trusted.
            let index =
                std::fs::File::options().write(true).open(root.join(".git/index")).expect("open");
            index
                .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1))
                .expect("touch");
            drop(index);
            // Same size, other content: only the content can tell, so the entry is smudged.
            put(root, "memory/x-y.md", "X-Y\n");
            put(root, "memory/z.md", "z, edited\n");
            let mut changed = vec!["memory/z.md"];
            let mut staged = String::new();
            if first_of_run {
                // `memory/x-y.md` is then the first entry after a changed one.
                put(root, "a.md", "a, edited\n");
                changed.push("a.md");
                staged.push_str("M  a.md\n");
            }
            let ups = updates(root, &changed);
            let bytes = GitIndex::read(&root.join(".git"))
                .expect("plain")
                .patched(root, &ups, false)
                .expect("ok");
            write(&root.join(".git"), &bytes).expect("written");
            let ours = GitIndex::read(&root.join(".git")).expect("reads back");
            assert_eq!(ours.version.to_string(), version);
            assert_eq!(ours.get("memory/x-y.md").expect("entry").size, 0, "smudged");
            // Racy but unchanged: kept, as git keeps it (`git diff-files` does not list it).
            assert_eq!(ours.get("memory/x/y.md").expect("entry").size, 4, "kept");
            assert_eq!(ours.get("memory/z.md").expect("entry").size, 10, "the change's entry");
            assert_eq!(git(root, &["diff-files", "--name-only"]), "memory/x-y.md\n");
            staged.push_str(" M memory/x-y.md\nM  memory/z.md\n");
            assert_eq!(git(root, &["status", "--porcelain"]), staged, "v{version}");
            git(root, &["fsck", "--strict"]);
        }
    }

    /// Whether the index holds `HEAD`'s tree, by its cache tree where git wrote one and by
    /// the walk otherwise: the same answers.
    #[test]
    fn the_index_equals_heads_tree_by_its_cache_tree_or_the_walk() {
        let dir = repo();
        let d = dir.path();
        let equals = |d: &Path| {
            let repo = Repository::open(d).expect("open");
            let head = repo.head().expect("head").peel_to_tree().expect("tree").id();
            let index = GitIndex::read(&d.join(".git")).expect("read");
            let by_record = index.tree.as_ref().and_then(|r| {
                super::cache_tree::root_tree(&index.bytes[r.clone()])
                    .filter(|(_, id)| id == head.as_bytes())
            });
            (index.equals_tree(&repo, Some(head)), by_record.is_some())
        };
        // git's commit wrote a cache tree whose root is HEAD's tree.
        assert_eq!(equals(d), (true, true));
        // A staged change: git invalidates the root record, and the walk finds the blob.
        put(d, "memory/z.md", "z staged\n");
        git(d, &["add", "memory/z.md"]);
        assert_eq!(equals(d), (false, false));
        // Its tree written: the root record is valid again, for a tree that is not HEAD's.
        git(d, &["write-tree"]);
        let index = GitIndex::read(&d.join(".git")).expect("read");
        let root =
            index.tree.as_ref().and_then(|r| super::cache_tree::root_tree(&index.bytes[r.clone()]));
        assert!(root.is_some(), "write-tree made the root record valid");
        assert_eq!(equals(d), (false, false));
        // Staged back to HEAD's blob by hand: the record is still invalid; the walk says equal.
        put(d, "memory/z.md", "z\n");
        git(d, &["add", "memory/z.md"]);
        assert_eq!(equals(d), (true, false));
        // An intent-to-add entry, and a cache tree written again around it: git leaves the
        // root record invalid (the entry's flags would send it to the walk if it did not), and
        // the walk finds a path HEAD does not have.
        put(d, "new.md", "new\n");
        git(d, &["add", "-N", "new.md"]);
        git(d, &["write-tree"]);
        assert_eq!(equals(d), (false, false));
    }

    #[test]
    fn what_is_not_plain_is_left_to_libgit2() {
        let dir = repo();
        let root = dir.path();
        let git_dir = root.join(".git");
        let plain = std::fs::read(git_dir.join("index")).expect("index");
        assert!(GitIndex::read(&git_dir).is_some());

        // A damaged index: cut short, or its entries out of order (the
        // checksum is not checked on a read, as git does not check it, so both keep a valid
        // one: only the structure tells).
        let body = plain.len() - 20;
        let mut cut = plain[..body - 60].to_vec();
        cut.extend_from_slice(&Sha1::digest(&cut));
        std::fs::write(git_dir.join("index"), &cut).expect("write");
        assert!(GitIndex::read(&git_dir).is_none(), "cut short");
        let first = super::HEADER + super::FIXED; // the first entry's path
        let mut swapped = plain[..body].to_vec();
        // The first path's first byte made the last byte there is: out of order.
        swapped[first] = 0x7e;
        swapped.extend_from_slice(&Sha1::digest(&swapped));
        std::fs::write(git_dir.join("index"), &swapped).expect("write");
        assert!(GitIndex::read(&git_dir).is_none(), "out of order");

        // A split index (a mandatory `link` extension). Version 4 (paths compressed) is read:
        // `a_version_4_index_is_read_and_patched_as_libgit2_writes_it`.
        std::fs::write(git_dir.join("index"), &plain).expect("write");
        git(root, &["-c", "core.splitIndex=true", "update-index", "--split-index"]);
        assert!(GitIndex::read(&git_dir).is_none(), "split");
        git(root, &["update-index", "--no-split-index"]);

        // A conflict on a path the change writes, and a file where the index has a folder or
        // under a path it has as a file.
        let blob = git(root, &["hash-object", "-w", "a.md"]);
        let info = format!("100644 {0} 1\tc.md\n100644 {0} 2\tc.md\n", blob.trim());
        let mut child = Command::new("git")
            .args(["update-index", "--index-info"])
            .current_dir(root)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("git");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), info.as_bytes())
            .expect("feed");
        assert!(child.wait().expect("wait").success());
        let index = GitIndex::read(&git_dir).expect("conflicts are plain to read");
        put(root, "c.md", "resolved\n");
        assert!(index.patched(root, &updates(root, &["c.md"]), false).is_none(), "conflict");
        let under_a_file = [("a.md/x.md".to_owned(), Some(entry_from(root, "a.md", "a.md/x.md")))];
        assert!(index.patched(root, &under_a_file, false).is_none(), "under a file");
        let over_a_folder = [("memory/x".to_owned(), Some(entry_from(root, "a.md", "memory/x")))];
        assert!(index.patched(root, &over_a_folder, false).is_none(), "over a folder");
        // Removing a path no entry has is no collision.
        assert!(index.patched(root, &[("nothing.md".to_owned(), None)], false).is_some());
    }

    #[test]
    fn a_held_lock_is_respected() {
        let dir = repo();
        let git_dir = dir.path().join(".git");
        std::fs::write(git_dir.join("index.lock"), "").expect("lock");
        let bytes = std::fs::read(git_dir.join("index")).expect("index");
        let err = write(&git_dir, &bytes).expect_err("locked");
        assert_eq!(err.io.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(git_dir.join("index.lock").exists(), "another process's lock is left alone");
    }

    /// Every file of the work tree but `.git`, stat-ed and sorted, as a status's walk gives it.
    fn walked(root: &Path) -> Vec<(Vec<u8>, std::fs::Metadata)> {
        fn go(root: &Path, dir: &Path, out: &mut Vec<(Vec<u8>, std::fs::Metadata)>) {
            for e in std::fs::read_dir(dir).expect("list") {
                let e = e.expect("entry");
                let md = std::fs::symlink_metadata(e.path()).expect("lstat");
                if e.file_name() == ".git" {
                    continue;
                }
                if md.is_dir() {
                    go(root, &e.path(), out);
                } else {
                    let rel = e.path().strip_prefix(root).expect("inside").to_owned();
                    out.push((rel.to_string_lossy().into_owned().into_bytes(), md));
                }
            }
        }
        let mut out = Vec::new();
        go(root, root, &mut out);
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// [`crate::git::uncommitted_by_stat`] over the work tree as it is now, as (path, state)
    /// pairs; checked against libgit2's status whenever it answers.
    fn by_stat(root: &Path) -> Option<Vec<(String, &'static str)>> {
        let files = walked(root);
        let repo = Repository::open(root).expect("open");
        let pairs = |v: Vec<crate::git::Change>| -> Vec<(String, &'static str)> {
            v.into_iter().map(|c| (c.path, c.state)).collect()
        };
        let ours = crate::git::uncommitted_by_stat(&repo, work_files(&files)).map(pairs);
        if let Some(ours) = &ours {
            assert_eq!(*ours, pairs(crate::git::uncommitted(&repo).expect("status")));
        }
        ours
    }

    /// The walk's files as [`crate::git::WorkFile`]s.
    fn work_files(
        files: &[(Vec<u8>, std::fs::Metadata)],
    ) -> impl Iterator<Item = crate::git::WorkFile<'_>> {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let nanos = |s: i64, ns: i64| s as u128 * 1_000_000_000 + ns as u128;
        files.iter().map(move |(path, md)| crate::git::WorkFile {
            path,
            size: md.len(),
            mtime: nanos(md.mtime(), md.mtime_nsec()),
            ctime: nanos(md.ctime(), md.ctime_nsec()),
            ino: md.ino(),
            kind: if md.file_type().is_symlink() {
                crate::git::WorkKind::Link
            } else {
                crate::git::WorkKind::File { executable: md.permissions().mode() & 0o100 != 0 }
            },
        })
    }

    /// How many entries [`crate::git::uncommitted_and_stale`] finds stale in the work tree as
    /// it is now, and how many of them [`crate::git::refresh_stale`] refreshes (every time
    /// settled), after `meanwhile` ran between the look and the refresh.
    fn refreshed(root: &Path, meanwhile: impl FnOnce()) -> (usize, usize) {
        let files = walked(root);
        let repo = Repository::open(root).expect("open");
        let (_, stale) =
            crate::git::uncommitted_and_stale(&repo, work_files(&files)).expect("by stat");
        meanwhile();
        (stale.len(), crate::git::refresh_stale(&repo, &stale, |_, _| true))
    }

    #[test]
    fn stale_stat_data_is_refreshed_only_for_files_unchanged_since_hashed_in_the_index_read() {
        let dir = repo();
        let root = dir.path();
        settle(root);
        let touch = |rel: &str, secs: u64| {
            let f = std::fs::File::options().write(true).open(root.join(rel)).expect("open");
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
                .expect("touch");
        };
        // Touched: the content is the entry's, the stat data not; refreshed, then vouched for.
        touch("a.md", 1_000_000);
        assert_eq!(refreshed(root, || {}), (1, 1));
        settle(root);
        assert_eq!(refreshed(root, || {}), (0, 0));
        assert_eq!(git(root, &["status", "--porcelain"]), "");
        // Edited after it was hashed: left as it is, and the edit still shows.
        touch("a.md", 2_000_000);
        assert_eq!(refreshed(root, || put(root, "a.md", "A, edited after the look\n")), (1, 0));
        assert_eq!(by_stat(root), one("a.md", "modified"));
        git(root, &["checkout", "--", "a.md"]);
        settle(root);
        // The index replaced between the look and the refresh: nothing written over it.
        touch("a.md", 3_000_000);
        let replaced = || {
            let bytes = std::fs::read(root.join(".git/index")).expect("index");
            let _ = std::fs::remove_file(root.join(".git/index"));
            std::fs::write(root.join(".git/index"), bytes).expect("write");
        };
        assert_eq!(refreshed(root, replaced), (1, 0));
        // An untracked file, and one git ignores: the first is new, the second nothing.
        std::fs::write(root.join(".git/info/exclude"), "*.tmp\n").expect("exclude");
        put(root, "n.md", "new\n");
        put(root, "x.tmp", "ignored\n");
        settle(root);
        assert_eq!(by_stat(root), one("n.md", "new"), "untracked, and ignored");
    }

    fn clean() -> Option<Vec<(String, &'static str)>> {
        Some(Vec::new())
    }

    fn one(path: &str, state: &'static str) -> Option<Vec<(String, &'static str)>> {
        Some(vec![(path.to_owned(), state)])
    }

    /// Sets the index's modification time well after its files', as when it was written a
    /// while after them (a fresh `git commit` may share their clock tick: racily clean).
    fn settle(root: &Path) {
        let index =
            std::fs::File::options().write(true).open(root.join(".git/index")).expect("open");
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        index.set_modified(later).expect("touch");
    }

    #[test]
    fn stat_data_tells_what_changed_or_leaves_it_to_libgit2() {
        let dir = repo();
        let root = dir.path();
        std::os::unix::fs::symlink("a.md", root.join("link.md")).expect("link");
        git(root, &["add", "link.md"]);
        git(root, &["commit", "-q", "-m", "a link"]);
        settle(root);
        assert_eq!(by_stat(root), clean(), "a clean work tree");

        // Racily clean: the index no later than its files; their content is compared.
        let index =
            std::fs::File::options().write(true).open(root.join(".git/index")).expect("open");
        index.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1)).expect("t");
        drop(index);
        assert_eq!(by_stat(root), clean(), "racy, unchanged");
        put(root, "memory/x-y.md", "X-Y\n");
        assert_eq!(by_stat(root), one("memory/x-y.md", "modified"), "racy, same size, edited");
        git(root, &["checkout", "--", "memory/x-y.md"]);
        settle(root);
        assert_eq!(by_stat(root), clean());

        // An untracked file (ignored or not: libgit2 tells), then an edit, a touch, a link's
        // new target.
        put(root, "new.md", "new\n");
        assert_eq!(by_stat(root), one("new.md", "new"), "untracked");
        std::fs::remove_file(root.join("new.md")).expect("rm");
        assert_eq!(by_stat(root), clean());
        put(root, "memory/z.md", "z, edited\n");
        assert_eq!(by_stat(root), one("memory/z.md", "modified"), "edited");
        put(root, "memory/z.md", "z\n");
        assert_eq!(by_stat(root), clean(), "edited back: the content decides");
        std::fs::remove_file(root.join("link.md")).expect("rm");
        std::os::unix::fs::symlink("memory/z.md", root.join("link.md")).expect("link");
        assert_eq!(by_stat(root), one("link.md", "modified"), "a link led elsewhere");
        git(root, &["checkout", "--", "link.md"]);
        git(root, &["add", "memory/z.md"]);
        put(root, "memory/z.md", "z, edited\n");
        git(root, &["add", "memory/z.md"]);
        settle(root);
        assert_eq!(by_stat(root), None, "staged: the index differs from HEAD");
        git(root, &["commit", "-q", "-m", "z"]);
        settle(root);
        assert_eq!(by_stat(root), clean());

        // A mode change alone, and the index's mode changed alone.
        let z = root.join("memory/z.md");
        let mut perms = std::fs::metadata(&z).expect("md").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&z, perms).expect("chmod");
        assert_eq!(by_stat(root), None, "made executable");
        git(root, &["-c", "core.fileMode=true", "add", "memory/z.md"]);
        git(root, &["commit", "-q", "-m", "exec"]);
        settle(root);
        assert_eq!(by_stat(root), clean(), "executable in HEAD, the index and the file");
        git(root, &["update-index", "--chmod=-x", "memory/z.md"]);
        git(root, &["commit", "-q", "-m", "not exec in git"]);
        settle(root);
        assert_eq!(by_stat(root), None, "the file's mode is not the index's");

        // Flags: assume-unchanged hides edits from git's stat check.
        git(root, &["update-index", "--chmod=+x", "memory/z.md"]);
        git(root, &["commit", "-q", "-m", "exec again"]);
        git(root, &["update-index", "--assume-unchanged", "a.md"]);
        settle(root);
        assert_eq!(by_stat(root), None, "a flagged entry");
        git(root, &["update-index", "--no-assume-unchanged", "a.md"]);
        settle(root);
        assert_eq!(by_stat(root), clean());

        // Deleted files, first and last in the index's order; a file gone from the index only.
        std::fs::remove_file(root.join("a.md")).expect("rm");
        std::fs::remove_file(root.join("memory/z.md")).expect("rm");
        let both = vec![("a.md".to_owned(), "deleted"), ("memory/z.md".to_owned(), "deleted")];
        assert_eq!(by_stat(root), Some(both), "deleted");
        git(root, &["checkout", "--", "a.md", "memory/z.md"]);
        git(root, &["update-index", "--refresh"]);
        settle(root);
        assert_eq!(by_stat(root), clean());
        git(root, &["rm", "-q", "--cached", "memory/x-y.md"]);
        settle(root);
        assert_eq!(by_stat(root), None, "removed from the index: untracked");
    }

    #[test]
    fn an_unborn_branch_with_anything_staged_is_left_to_libgit2() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        put(root, "a.md", "a\n");
        git(root, &["add", "a.md"]);
        settle(root);
        assert_eq!(by_stat(root), None, "staged before the first commit");
    }
}

#[cfg(all(test, unix))]
mod patch_props {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use git2::{Index, IndexEntry, IndexTime, Oid, Repository};
    use proptest::prelude::*;

    use super::{GitIndex, write_patch};

    /// Paths whose names sort around one another (`a`, `a-b`, `a.md`, `ab`, a long one), in
    /// nested folders: prefixes of every length for version 4 to share.
    pub(super) fn path() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec![
            "a".to_owned(),
            "a-b".to_owned(),
            "a.md".to_owned(),
            "ab".to_owned(),
            "b".to_owned(),
            "x-y.md".to_owned(),
            "l".repeat(140),
        ]);
        prop::collection::vec(name, 1..4).prop_map(|parts| parts.join("/"))
    }

    /// An entry with old stat data (never racy) and content `n` (its blob stored in `repo`).
    pub(super) fn entry(repo: &Repository, path: &str, n: u32) -> IndexEntry {
        IndexEntry {
            ctime: IndexTime::new(1, 0),
            mtime: IndexTime::new(1, 0),
            dev: 0,
            ino: 0,
            mode: 0o100_644,
            uid: 0,
            gid: 0,
            file_size: n,
            id: repo.blob(format!("{n}\n").as_bytes()).expect("blob"),
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        }
    }

    /// (path, id, size, mode) of every entry libgit2 reads from an index file.
    fn entries(file: &std::path::Path) -> Vec<(Vec<u8>, Oid, u32, u32)> {
        let index = Index::open(file).expect("libgit2 reads it");
        index.iter().map(|e| (e.path, e.id, e.file_size, e.mode)).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// An index libgit2 writes (version 2, 3 or 4) is read entry for entry, and patched
        /// with any changes it is the index libgit2 writes for them, in the same version.
        #[test]
        fn an_index_is_patched_as_libgit2_patches_it(
            version in prop::sample::select(vec![2u32, 3, 4]),
            base in prop::collection::vec(path(), 1..16),
            changes in prop::collection::vec((path(), prop::option::of(2u32..5)), 1..6),
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let repo = Repository::init(dir.path()).expect("init");
            let file = dir.path().join(".git/index");
            let mut index = repo.index().expect("index");
            let mut kept: Vec<String> = Vec::new();
            for p in &base {
                let clash = kept.iter().any(|k| {
                    k == p || k.starts_with(&format!("{p}/")) || p.starts_with(&format!("{k}/"))
                });
                if !clash {
                    index.add(&entry(&repo, p, 1)).expect("add");
                    kept.push(p.clone());
                }
            }
            index.set_version(version).expect("version");
            index.write().expect("write");
            let before = std::fs::read(&file).expect("index");
            // libgit2 writes version 3 only when an entry needs extended flags: 2 then.
            let written = if version == 3 { 2u32 } else { version };
            prop_assert_eq!(&before[4..8], &written.to_be_bytes());

            let ours = GitIndex::read(&dir.path().join(".git")).expect("the index is read");
            for (path, id, size, _) in entries(&file) {
                let rel = String::from_utf8(path).expect("utf-8");
                let got = ours.get(&rel).map(|e| (e.id, e.size));
                prop_assert_eq!(got, Some((id, size)), "{}", rel);
            }

            let mut updates: Vec<(String, Option<IndexEntry>)> = Vec::new();
            for (p, to) in &changes {
                // A work tree cannot hold a file and a folder of one name: changes never do.
                let clash = updates.iter().any(|(q, _)| {
                    q == p || q.starts_with(&format!("{p}/")) || p.starts_with(&format!("{q}/"))
                });
                if !clash {
                    updates.push((p.clone(), to.map(|n| entry(&repo, p, n))));
                }
            }
            let Some(patch) = ours.patch(dir.path(), &updates) else {
                // A file over a folder or under a file: left to libgit2, nothing to compare.
                return Ok(());
            };
            for (p, e) in &updates {
                match e {
                    Some(e) => index.add(e).expect("add"),
                    None => {
                        let _ = index.remove_path(std::path::Path::new(p));
                    }
                }
            }
            index.write().expect("write");
            let want = entries(&file);
            let whole = ours.patched(dir.path(), &updates, false).expect("patchable");
            write_patch(&dir.path().join(".git"), &patch, false).expect("written");
            prop_assert!(std::fs::read(&file).expect("index") == whole, "written as patched");
            prop_assert_eq!(super::checksum_matches(&dir.path().join(".git")), Some(true));
            prop_assert_eq!(&whole[4..8], &written.to_be_bytes());
            prop_assert_eq!(entries(&file), want, "base {:?} changes {:?}", kept, updates.iter().map(|u| &u.0).collect::<Vec<_>>());
        }
    }
}
