//! What `cogmem status` counts, kept so that a status over an unchanged workspace reads no
//! memory file and runs no `git status` (issue 20): `.cogmem/status/summary.json` (the last
//! answer and the key it is valid for) and `.cogmem/status/files.tsv` (each memory file's
//! unit count and each decay file's band counts, by file stamp), both derived and rebuilt from
//! the files whenever they do not match.
//!
//! Every status walks the working tree first (every file but `.git/` and `.cogmem/`, links not
//! followed) and stamps each file by size, mtime, ctime and inode. The answer is reused only
//! when the digest of those stamps, `HEAD`, git's own index and settings files, and the search
//! index's manifest all equal what they were when it was computed; otherwise each file whose
//! stamp is unchanged keeps its count and only the others are read again. A stamp taken in the
//! same clock tick as a change could miss a second change in that tick, so anything whose
//! ctime is not older than the moment the walk began (the mtime of `.cogmem/status/clock`,
//! written just before it, in the file system's own clock) is never kept: git's racy-clean rule.
//!
//! Invariant: never wrong after a hand edit. Derived; writes only inside `.cogmem/status/`;
//! errors are never kept, so a file that cannot be read is read (and reported) every time.

use std::hash::{Hash, Hasher};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::index::IndexState;
use crate::index::scan::Kind;
use cogmem_store::decay::Band;
use cogmem_store::store::decay_file::{self, DecayFile};
use cogmem_store::store::{core_memory, episode, fsx, units};
use cogmem_store::workspace::{Workspace, layout};

/// The folder of the summary files, relative to the workspace root.
pub const DIR: &str = ".cogmem/status";
const SUMMARY: &str = "summary.json";
const FILES: &str = "files.tsv";
const CLOCK: &str = "clock";
/// The folder listings kept between walks ([`crate::listings`]).
const DIRS: &str = "dirs";
/// Where a status stands in a running watcher's log ([`WatchMark`]).
const WATCH: &str = "watch";
/// How many bytes of cookie lines a status reads before it moves its record past them.
const ADVANCE: u64 = 16 * 1024;
/// Bumped when what is kept, or how it is computed, changes.
const VERSION: u32 = 1;

/// How many memory units each store holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// MEMORY.md bullets.
    pub core: usize,
    /// Episode entries.
    pub episodes: usize,
    /// Episode day files.
    pub episode_days: usize,
    /// Entity files.
    pub entities: usize,
    /// Procedure files.
    pub procedures: usize,
    /// Vault notes.
    pub vault: usize,
    /// Entries in decay-scores.json.
    pub decay_entries: usize,
    /// Entries per stored band: active, fading, dormant, archived.
    pub bands: Bands,
}

/// How many memories are in each decay band (as last computed by a change or `cogmem decay`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bands {
    /// Fully searchable.
    pub active: usize,
    /// Deprioritised.
    pub fading: usize,
    /// Found only with `--all`.
    pub dormant: usize,
    /// Hidden from recall (forgotten or faded).
    pub archived: usize,
}

impl Bands {
    fn add(&mut self, band: Option<Band>) {
        match band {
            Some(Band::Active) => self.active += 1,
            Some(Band::Fading) => self.fading += 1,
            Some(Band::Dormant) => self.dormant += 1,
            Some(Band::Archived) => self.archived += 1,
            None => {}
        }
    }
}

/// A file that could not be read and was left out of the counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file, relative to the workspace root.
    pub path: String,
    /// What is wrong, naming the file.
    pub error: String,
}

/// A file that differs from `HEAD`, as `git status` reports it (see
/// [`cogmem_store::git::uncommitted`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uncommitted {
    /// Path relative to the workspace root.
    pub path: String,
    /// `new`, `modified`, `deleted`, `renamed` or `conflicted`.
    pub state: String,
}

/// The part of `status` that depends only on the files: what [`Summary::compute`] works out and
/// the summary keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Units per store.
    pub counts: Counts,
    /// Memory and decay files left out, in the order status reports them.
    pub skipped: Vec<Skipped>,
    /// Files that differ from HEAD.
    pub uncommitted: Vec<Uncommitted>,
    /// The search index against the files.
    pub index: IndexState,
}

/// The summary file: an answer and the key it holds for.
#[derive(Serialize, Deserialize)]
struct Record {
    version: u32,
    key: String,
    summary: Summary,
}

/// Size, mtime, ctime and inode of a file, as `lstat` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Stamp {
    size: u64,
    mtime: u128,
    ctime: u128,
    ino: u64,
}

impl Stamp {
    fn of(md: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let nanos = |s: i64, ns: i64| {
                u128::try_from(s).unwrap_or(0) * 1_000_000_000 + u128::try_from(ns).unwrap_or(0)
            };
            Self {
                size: md.len(),
                mtime: nanos(md.mtime(), md.mtime_nsec()),
                ctime: nanos(md.ctime(), md.ctime_nsec()),
                ino: md.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            // No change time to rely on: every stamp counts as racy, so nothing is kept.
            Self { size: md.len(), mtime: fsx::mtime_nanos(md), ctime: u128::MAX, ino: 0 }
        }
    }
}

/// A file of the working tree as the walk stamped it.
struct Walked {
    /// Relative to the root: where its bytes are in the tree's `paths` (one buffer for every
    /// path: 13,686 allocations, and as many frees, were 0.4 ms of a status at 100,000
    /// memories, issue 20).
    path: (u32, u32),
    stamp: Stamp,
    /// Never a folder.
    kind: Kind,
    /// The owner's execute bit.
    executable: bool,
}

/// The stamps of every file of the working tree, sorted by path relative to the root when
/// first asked for ([`Tree::files`]): a status whose answer is kept needs only the digest, and
/// the sort of 13,000 paths was 0.9 ms of it at 100,000 memories (issue 20).
struct Tree {
    /// The files in the order walked, until [`Tree::files`] sorts them.
    unsorted: std::cell::Cell<Option<Vec<Walked>>>,
    sorted: std::cell::OnceCell<Vec<Walked>>,
    /// The bytes of every walked path, one after another.
    paths: Vec<u8>,
    digest: u64,
    /// Whether a `.git` was found below the root (a nested repository or a submodule's work
    /// tree, which git reports in its own way).
    nested_git: bool,
    /// Where the last [`Tree::find`] found its path: files are mostly asked for in order, so
    /// the next one is tried before a binary search.
    hint: std::cell::Cell<usize>,
    /// Whether every store folder is a plain folder below plain folders (or missing), so the
    /// walk saw exactly what [`units::markdown_files`] and the index's scan list.
    stores_plain: bool,
}

impl Tree {
    /// The path of a walked file, relative to the root.
    fn path(&self, f: &Walked) -> &[u8] {
        &self.paths[f.path.0 as usize..][..f.path.1 as usize]
    }

    /// Every file, sorted by path.
    fn files(&self) -> &[Walked] {
        self.sorted.get_or_init(|| {
            let mut files = self.unsorted.take().unwrap_or_default();
            // Stable: it finds the folders' sorted runs and merges them.
            files.sort_by(|a, b| self.path(a).cmp(self.path(b)));
            files
        })
    }

    fn get(&self, rel: &str) -> Option<Stamp> {
        self.find(rel).map(|i| self.files()[i].stamp)
    }

    fn find(&self, rel: &str) -> Option<usize> {
        let files = self.files();
        let i = next_in_order(self.hint.get(), files.len(), |i| {
            self.path(&files[i]).cmp(rel.as_bytes())
        })?;
        self.hint.set(i);
        Some(i)
    }

    /// The plain `*.md` files directly in the store folder `dir` (relative to the root), sorted,
    /// as [`units::markdown_files`] lists them; `None` when the walk cannot tell (a store folder
    /// on a link), and the caller lists the folder itself.
    fn store_files(&self, dir: &str) -> Option<Vec<String>> {
        self.stores_plain.then(|| self.md_entries(dir, Kind::File))
    }

    /// The links among the `*.md` entries directly in the store folder `dir`, sorted, as
    /// [`units::linked_files`] lists them; `None` when the walk cannot tell.
    fn linked_files(&self, dir: &str) -> Option<Vec<String>> {
        self.stores_plain.then(|| self.md_entries(dir, Kind::Link))
    }

    /// The `*.md` entries of `kind` directly in folder `dir`, sorted.
    fn md_entries(&self, dir: &str, kind: Kind) -> Vec<String> {
        self.md_walked(dir, kind)
            .filter_map(|f| Some(std::str::from_utf8(self.path(f)).ok()?.to_owned()))
            .collect()
    }

    /// The walked `*.md` files of `kind` directly in folder `dir`, in order.
    fn md_walked(&self, dir: &str, kind: Kind) -> impl Iterator<Item = &Walked> {
        let prefix = format!("{dir}/").into_bytes();
        let files = self.files();
        let start = files.partition_point(|f| self.path(f) < prefix.as_slice());
        let n = prefix.len();
        files[start..].iter().take_while(move |f| self.path(f).starts_with(&prefix)).filter(
            move |f| {
                let name = &self.path(f)[n..];
                f.kind == kind && !name.contains(&b'/') && name.ends_with(b".md")
            },
        )
    }

    /// Every memory file the index reads (MEMORY.md and the stores' plain `*.md` files whose
    /// names the manifest can hold) with its size and modification time, as the index's scan
    /// finds them; `None` when the walk cannot tell.
    fn memory_stamps(&self) -> Option<Vec<(&str, u64, u128)>> {
        if !self.stores_plain {
            return None;
        }
        let mut out = Vec::with_capacity(self.files().len());
        if let Some(Walked { stamp: s, kind: Kind::File, .. }) =
            self.find(layout::MEMORY_MD).map(|i| &self.files()[i])
        {
            out.push((layout::MEMORY_MD, s.size, s.mtime));
        }
        for (dir, _, _) in units::DIRS {
            // The store's plain `*.md` files, as `store_files` lists them, with their stamps.
            for f in self.md_walked(dir, Kind::File) {
                let Ok(rel) = std::str::from_utf8(self.path(f)) else { continue };
                if !rel.contains(['\t', '\n', '\r']) {
                    out.push((rel, f.stamp.size, f.stamp.mtime));
                }
            }
        }
        Some(out)
    }
}

/// Walks the working tree (not `.git/`, at any depth, nor `.cogmem/`), links not followed:
/// the folders are opened and listed first (a folder whose stamp is that of its listing kept
/// in `listings` is not read again: [`crate::listings`]), then every file is stat-ed, on two
/// threads when there are many (as the index's scan does). With `clock` (the moment the walk
/// began), the listings are kept for the next walk when any folder had to be read.
fn walk(
    root: &Path,
    listings: &Path,
    clock: Option<u128>,
    meanwhile: Option<&mut dyn FnMut()>,
) -> Tree {
    use crate::index::scan::{self, DirHandle, DirStamp};
    /// A folder walked: path relative to the root, the open folder (while its files wait to be
    /// stat-ed), its stamp, its entries, and whether they were read now.
    struct Folder<'a> {
        rel: Vec<u8>,
        handle: Option<DirHandle>,
        stamp: Option<DirStamp>,
        entries: crate::listings::Listing<'a>,
        read: bool,
    }
    /// How many folders stay open for their files' stats, made on two threads at the end; the
    /// files of any more are stat-ed as their folder is walked. A process may hold only so
    /// many descriptors (256 by default on macOS, where a folder that cannot be opened would
    /// be left out of the walk), and a workspace has about a dozen folders.
    const OPEN_MAX: usize = 64;
    let kept_bytes = if clock.is_some() { crate::listings::read(listings) } else { Vec::new() };
    let mut kept = crate::listings::Kept::of(&kept_bytes);
    let mut folders: Vec<Folder> = Vec::new();
    let mut files: Vec<Walked> = Vec::new();
    let mut paths: Vec<u8> = Vec::new();
    let mut nested_git = false;
    // `rel/name` appended to `paths`; `None` past 4 GiB of paths (such a file is left out).
    let walked = |paths: &mut Vec<u8>, rel: &[u8], name: &[u8], st: scan::EntryStat| {
        let start = u32::try_from(paths.len()).ok()?;
        if !rel.is_empty() {
            paths.extend_from_slice(rel);
            paths.push(b'/');
        }
        paths.extend_from_slice(name);
        let len = u32::try_from(paths.len()).ok()? - start;
        let stamp = Stamp { size: st.size, mtime: st.mtime, ctime: st.ctime, ino: st.ino };
        Some(Walked { path: (start, len), stamp, kind: st.kind, executable: st.executable })
    };
    let mut queue: Vec<(std::path::PathBuf, Vec<u8>)> = vec![(root.to_owned(), Vec::new())];
    while let Some((abs, rel)) = queue.pop() {
        let Some((handle, stamp)) = scan::open_dir(&abs) else { continue };
        let (entries, read) = match stamp.as_ref().and_then(|s| kept.take(&rel, s)) {
            Some(entries) => (entries, false),
            // Sorted by name when listed (and so when kept): each folder's files are then one
            // sorted run, and the sort of every path below merges runs instead of sorting
            // 13,000 paths afresh (issue 20).
            None => match scan::list(&handle) {
                Some(mut entries) => {
                    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                    (entries.into_iter().map(|(n, k)| (n.into(), k)).collect(), true)
                }
                None => continue,
            },
        };
        for (name, kind) in &entries {
            nested_git |= name.as_ref() == b".git" && !rel.is_empty();
            if *kind == Kind::Dir && !skipped(&rel, name) {
                queue.push((abs.join(name_of(name)), joined(&rel, name)));
            }
        }
        let handle = if folders.len() < OPEN_MAX {
            Some(handle)
        } else {
            files.extend(entries.iter().filter_map(|(name, kind)| {
                is_file(&rel, name, *kind)
                    .then(|| walked(&mut paths, &rel, name, scan::stat_entry(&handle, name)?))?
            }));
            None
        };
        folders.push(Folder { rel, handle, stamp, entries, read });
    }
    if let Some(clock) = clock
        && folders.iter().any(|f| f.read)
    {
        crate::listings::save(
            listings,
            folders.iter().filter_map(|f| {
                let stamp = f.stamp.filter(|s| s.settled(clock))?;
                Some((f.rel.as_slice(), stamp, &f.entries))
            }),
        );
    }
    // (folder, entry) of every file still to stat: every entry of the open folders but the
    // folders.
    let mut items: Vec<(&DirHandle, &[u8], &[u8])> =
        Vec::with_capacity(folders.iter().map(|f| f.entries.len()).sum());
    items.extend(folders.iter().filter_map(|f| Some((f.handle.as_ref()?, f))).flat_map(
        |(handle, f)| {
            f.entries.iter().filter_map(move |(name, kind)| {
                is_file(&f.rel, name, *kind).then_some((handle, f.rel.as_slice(), name.as_ref()))
            })
        },
    ));
    // The threads only stat; the paths are made here. Allocating them on the second thread (a
    // fresh heap arena, its pages faulted in one by one) made the stat phase of a status at
    // 100,000 memories about a third slower (issue 20).
    let stat = |(handle, _, name): &(&DirHandle, &[u8], &[u8])| scan::stat_entry(handle, name);
    // With work of the caller's to do, it is done while threads of their own stat the files
    // (when there are enough of them to be worth the threads, else after the stats).
    let stats = match meanwhile {
        Some(meanwhile) if items.len() >= 2_000 => {
            crate::index::on_threads_while(&items, stat, meanwhile)
        }
        meanwhile => {
            let stats = crate::index::on_two_threads(&items, stat);
            if let Some(meanwhile) = meanwhile {
                meanwhile();
            }
            stats
        }
    };
    paths.reserve(items.iter().map(|(_, rel, name)| rel.len() + 1 + name.len()).sum());
    // Made in the stats' own memory (a walked file takes no more room than a stat): a second
    // vector for 13,686 files cost the first touch of each of its pages. The files of folders
    // past `OPEN_MAX`, stat-ed as they were walked, come last.
    let files = {
        let early = files;
        let mut files: Vec<Walked> = stats
            .into_iter()
            .zip(&items)
            .filter_map(|(st, (_, rel, name))| walked(&mut paths, rel, name, st?))
            .collect();
        files.extend(early);
        files
    };
    cogmem_store::timing::mark(&format!(
        "status: files stat-ed ({} files, {} of {} folders listed)",
        files.len(),
        folders.iter().filter(|f| f.read).count(),
        folders.len()
    ));
    // A store folder reached through a link is listed by `markdown_files` (when the link stays
    // in the workspace) but not walked: such a workspace keeps the folder listings.
    let stores_plain = units::DIRS.iter().all(|(dir, _, _)| {
        let mut at = root.to_path_buf();
        dir.split('/').all(|part| {
            at.push(part);
            std::fs::symlink_metadata(&at).map_or(true, |m| !m.file_type().is_symlink())
        })
    });
    Tree {
        digest: digest(&paths, &files),
        paths,
        unsorted: std::cell::Cell::new(Some(files)),
        sorted: Default::default(),
        nested_git,
        hint: Default::default(),
        stores_plain,
    }
}

/// The digest of the walked paths and their stamps, in the order walked (the same for the same
/// tree: folders in a fixed order, each one's entries sorted by name): every file's path (its
/// length first) and stamp, laid out in a buffer and hashed a block at a time (six small
/// writes a file cost 0.7–1.0 ms at 100,000 memories; std's SipHash of the bytes 1.1–1.4 ms).
fn digest(paths: &[u8], files: &[Walked]) -> u64 {
    use std::hash::Hasher as _;
    /// Bytes hashed at a time: one buffer of this size is reused (a buffer of the whole 1.5 MB
    /// at 100,000 memories cost its pages' first touches, 0.3–0.5 ms on this machine).
    const BLOCK: usize = 32 * 1024;
    let mut h = crate::listings::hasher();
    let mut bytes = Vec::with_capacity(BLOCK + 256);
    bytes.extend_from_slice(&(files.len() as u64).to_le_bytes());
    for f in files {
        let path = &paths[f.path.0 as usize..][..f.path.1 as usize];
        bytes.extend_from_slice(&(path.len() as u64).to_le_bytes());
        bytes.extend_from_slice(path);
        bytes.extend_from_slice(&f.stamp.size.to_le_bytes());
        bytes.extend_from_slice(&f.stamp.mtime.to_le_bytes());
        bytes.extend_from_slice(&f.stamp.ctime.to_le_bytes());
        bytes.extend_from_slice(&f.stamp.ino.to_le_bytes());
        if bytes.len() >= BLOCK {
            h.write(&bytes);
            bytes.clear();
        }
    }
    h.write(&bytes);
    h.finish()
}

/// Whether the walk leaves out entry `name` of folder `rel`: `.git` anywhere, `.cogmem/` at
/// the root.
fn skipped(rel: &[u8], name: &[u8]) -> bool {
    name == b".git" || (rel.is_empty() && name == layout::DERIVED_DIR.as_bytes())
}

/// Whether the walk stamps entry `name` of folder `rel`, of `kind`: anything it does not leave
/// out but a folder.
fn is_file(rel: &[u8], name: &[u8], kind: Kind) -> bool {
    kind != Kind::Dir && !skipped(rel, name)
}

/// `rel/name` (`name` in the root).
fn joined(rel: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = rel.to_vec();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// A name as a path component.
#[cfg(unix)]
fn name_of(name: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(name)
}

#[cfg(not(unix))]
fn name_of(name: &[u8]) -> &std::ffi::OsStr {
    // Listed names are UTF-8 there ([`crate::index::scan::list`]).
    std::ffi::OsStr::new(std::str::from_utf8(name).unwrap_or_default())
}

/// Stamps a file outside the walk (git's, the manifest), `None` when missing.
fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|md| Stamp::of(&md))
}

/// What a status in progress knows before it reads anything: the tree's stamps, the key of the
/// answer they lead to, and the moment the walk began.
pub struct Probe {
    tree: Tree,
    key: String,
    /// The file system's time just before the walk; `None` when `.cogmem/status/` cannot be
    /// written (nothing is kept then).
    clock: Option<u128>,
}

impl Probe {
    /// Stamps the working tree. `git_dir` is the repository's `.git` folder and `head` the
    /// commit `HEAD` names (`None` before the first commit).
    pub fn take(ws: &Workspace, git_dir: &Path, head: Option<String>) -> Self {
        Self::take_while(ws, git_dir, head, None)
    }

    /// [`Probe::take`], running `meanwhile` (once) on this thread while the files are stat-ed.
    fn take_while(
        ws: &Workspace,
        git_dir: &Path,
        head: Option<String>,
        meanwhile: Option<&mut dyn FnMut()>,
    ) -> Self {
        let clock = tick(ws);
        let tree = walk(ws.root(), &ws.abs(DIR).join(DIRS), clock, meanwhile);
        let key = key_of(ws, tree.digest, git_dir, head);
        Self { tree, key, clock }
    }

    /// The kept answer without walking the working tree when a running `cogmem watch` says no
    /// file of it changed since the last walk (`.cogmem/status/watch`); otherwise walks, as
    /// [`Probe::take`], and records for the next status where in the watcher's log that walk
    /// stands.
    ///
    /// `meanwhile` runs once on this thread, while the files are stat-ed when they are: a
    /// status's work that needs no walk (its commits, flags and critical changes) is done while
    /// threads of their own wait on the kernel.
    pub fn look(
        ws: &Workspace,
        git_dir: &Path,
        head: Option<String>,
        meanwhile: &mut dyn FnMut(),
    ) -> Look {
        let mark = WatchMark::ask(ws);
        if let Some(mark) = &mark
            && let Some(digest) = mark.unchanged
        {
            let key = key_of(ws, digest, git_dir, head.clone());
            if let Some(summary) = kept(ws, &key) {
                mark.advance(ws, digest);
                meanwhile();
                return Look::Kept(summary);
            }
        }
        let probe = Self::take_while(ws, git_dir, head, Some(meanwhile));
        if let Some(mark) = &mark {
            mark.record(ws, probe.tree.digest);
        }
        Look::Walked(probe)
    }

    /// The answer kept for this key, if it holds.
    pub fn cached(&self, ws: &Workspace) -> Option<Summary> {
        self.clock?;
        kept(ws, &self.key)
    }

    /// Every file of the working tree as the walk stamped it, for
    /// [`git::uncommitted_by_stat`](cogmem_store::git::uncommitted_by_stat); `None` when the walk cannot
    /// stand for what git sees: a `.git` below the root, or a file that is neither a plain file
    /// nor a link.
    pub fn work_files(&self) -> Option<Vec<cogmem_store::git::WorkFile<'_>>> {
        use cogmem_store::git::{WorkFile, WorkKind};
        if self.tree.nested_git {
            return None;
        }
        self.tree
            .files()
            .iter()
            .map(|f| {
                let kind = match f.kind {
                    Kind::File => WorkKind::File { executable: f.executable },
                    Kind::Link => WorkKind::Link,
                    Kind::Dir | Kind::Other => return None,
                };
                let s = &f.stamp;
                Some(WorkFile {
                    path: self.tree.path(f),
                    size: s.size,
                    mtime: s.mtime,
                    ctime: s.ctime,
                    ino: s.ino,
                    kind,
                })
            })
            .collect()
    }

    /// Whether every stamp was taken after its file last changed, in an earlier clock tick
    /// than the walk: only then can an unchanged stamp stand for unchanged content.
    fn is_settled(&self, s: &Stamp) -> bool {
        self.settled(s.mtime, s.ctime)
    }

    /// Whether a file with these times (nanoseconds) last changed in an earlier clock tick than
    /// the walk began: what every stamp the walk keeps must be, for times from elsewhere (git's
    /// index).
    pub fn settled(&self, mtime: u128, ctime: u128) -> bool {
        self.clock.is_some_and(|c| ctime < c && mtime < c)
    }

    /// Keeps an answer for this key (best effort: a summary that cannot be written is simply
    /// computed again next time).
    pub fn keep(&self, ws: &Workspace, summary: &Summary) {
        if self.clock.is_none() || !self.tree.files().iter().all(|f| self.is_settled(&f.stamp)) {
            return;
        }
        let record = Record { version: VERSION, key: self.key.clone(), summary: summary.clone() };
        if let Ok(bytes) = serde_json::to_vec(&record) {
            let _ = fsx::write_derived(&ws.abs(DIR).join(SUMMARY), &bytes, false);
        }
    }
}

/// The key an answer is kept under: what it is computed with, the working tree's `digest`,
/// the stamps of git's files and of the index manifest, and `HEAD`.
fn key_of(ws: &Workspace, digest: u64, git_dir: &Path, head: Option<String>) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in ["index", "config", "info/exclude", "HEAD", "packed-refs"] {
        stamp(&git_dir.join(f)).hash(&mut h);
    }
    let manifest = ws.abs(layout::INDEX_DIR).join(crate::index::META_FILE);
    stamp(&manifest).hash(&mut h);
    // An update after a change appends to the manifest's journal instead of replacing it.
    stamp(&crate::index::journal_beside(&manifest)).hash(&mut h);
    format!(
        "{VERSION} {} {} {} {digest:016x} {:016x} {}",
        crate::index::SCHEMA_VERSION,
        crate::index::analyzer::NAME,
        ws.file_limit(),
        h.finish(),
        head.unwrap_or_default()
    )
}

/// The answer kept under `key`, if any.
fn kept(ws: &Workspace, key: &str) -> Option<Summary> {
    let path = ws.abs(DIR).join(SUMMARY);
    let bytes = fsx::read_if_exists(&path, fsx::DEFAULT_FILE_LIMIT).ok()??;
    let record: Record = serde_json::from_slice(&bytes).ok()?;
    (record.version == VERSION && record.key == key).then_some(record.summary)
}

/// What a status gets from [`Probe::look`].
pub enum Look {
    /// The kept answer, which still holds: nothing was walked.
    Kept(Summary),
    /// The working tree was walked.
    Walked(Probe),
}

/// Where in a running watcher's log a status stands ([`freshness`](crate::index::freshness)):
/// `.cogmem/status/watch` holds `GENERATION OFFSET DIGEST`, the working tree's digest as walked
/// after the watcher had written its log up to `OFFSET`. Any line after it but a cookie (a
/// memory file, `~` for another file, `*`) means the tree may differ from that walk.
struct WatchMark {
    generation: String,
    /// The recorded offset, when the record is of this generation.
    from: Option<u64>,
    /// Where the log is complete up to now: a walk from here on sees every change before it.
    end: u64,
    /// The recorded digest, when no file changed since it was recorded.
    unchanged: Option<u64>,
}

impl WatchMark {
    /// Asks the running watcher, if one serves this workspace; `None` when there is none (a
    /// status then walks and records nothing).
    fn ask(ws: &Workspace) -> Option<Self> {
        use crate::index::freshness::{self, Since};
        let generation = freshness::live_generation(ws, crate::index::dir::boot_id().as_deref())?;
        let text = ws.read_text_if_exists(&format!("{DIR}/{WATCH}")).ok().flatten();
        let record = text.as_deref().and_then(|t| {
            let mut f = t.trim_end().split(' ');
            let (Some(g), Some(offset), Some(digest), None) =
                (f.next(), f.next(), f.next(), f.next())
            else {
                return None;
            };
            (g == generation).then_some(())?;
            Some((offset.parse::<u64>().ok()?, u64::from_str_radix(digest, 16).ok()?))
        });
        cogmem_store::timing::mark("status: watcher asked");
        // No usable record of this watcher: a walk from the log's length now sees every change
        // whose line is before it; the later ones come after it.
        let fresh = |generation: String| {
            freshness::changed_len(ws).map(|end| Self {
                generation,
                from: None,
                end,
                unchanged: None,
            })
        };
        match record {
            Some((from, digest)) => match freshness::changes_since(ws, &generation, from) {
                Since::Paths { paths, others, end } => {
                    let unchanged = (paths.is_empty() && !others).then_some(digest);
                    Some(Self { generation, from: Some(from), end, unchanged })
                }
                Since::Everything { end } => {
                    Some(Self { generation, from: Some(from), end, unchanged: None })
                }
                // No answer in time, or a record that does not fit the log (an offset past
                // its end): recorded anew, so one bad record does not make every status walk.
                Since::Doubt => fresh(generation),
            },
            None => fresh(generation),
        }
    }

    /// Records that a walk after `self.end` found `digest`.
    fn record(&self, ws: &Workspace, digest: u64) {
        let text = format!("{} {} {digest:016x}\n", self.generation, self.end);
        let _ = fsx::write_derived(&ws.abs(DIR).join(WATCH), text.as_bytes(), false);
    }

    /// Moves the record past the lines read (cookies only) once they add up, so the next
    /// status reads less of the log.
    fn advance(&self, ws: &Workspace, digest: u64) {
        if self.from.is_some_and(|from| self.end.saturating_sub(from) >= ADVANCE) {
            self.record(ws, digest);
        }
    }
}

/// Writes `.cogmem/status/clock` and returns its mtime: the file system's time now (its own
/// clock, which may differ from this process's on a network file system).
pub fn tick(ws: &Workspace) -> Option<u128> {
    let dir = ws.abs(DIR);
    fsx::create_dir_all(&dir).ok()?;
    let path = dir.join(CLOCK);
    fsx::write_derived(&path, b"", false).ok()?;
    stamp(&path).map(|s| s.mtime)
}

/// Per-file results kept between statuses: a memory file's unit count, a decay file's entries.
/// One line per file, sorted by path: `PATH SIZE MTIME CTIME INODE VALUE…`, tab-separated. The
/// lines are found by binary search and parsed only when asked for, and a save copies the
/// lines still valid as they are: after a change at 100,000 memories, parsing every line into
/// a map and formatting them all again took most of a status.
#[derive(Default)]
struct Table {
    /// The file as read (after its header line).
    text: String,
    /// Each line's path and whole line, as byte ranges of `text`, in path order.
    rows: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    /// The rows that still hold, to be kept by the next save.
    kept: Vec<bool>,
    /// Rows computed now: path, stamp, what is kept.
    added: Vec<(String, Stamp, Kept)>,
    /// Where the last [`Table::get`] found its row (see [`Tree::find`]).
    hint: usize,
}

impl Table {
    fn header(ws: &Workspace) -> String {
        format!("#cogmem-status-files {VERSION} {}\n", ws.file_limit())
    }

    /// The kept table; an empty one when it is missing, of another version, or not sorted.
    fn load(ws: &Workspace) -> Self {
        let path = ws.abs(DIR).join(FILES);
        let Ok(Some(bytes)) = fsx::read_if_exists(&path, fsx::DEFAULT_FILE_LIMIT) else {
            return Self::default();
        };
        let Ok(mut text) = String::from_utf8(bytes) else { return Self::default() };
        let header = Self::header(ws);
        if !text.starts_with(&header) {
            return Self::default();
        }
        text.drain(..header.len());
        let mut rows: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
            let Some(tab) = text[at..end].find('\t') else { return Self::default() };
            let path = at..at + tab;
            if rows.last().is_some_and(|(p, _)| text[p.clone()] >= text[path.clone()]) {
                return Self::default();
            }
            rows.push((path, at..end));
            at = end + 1;
        }
        let kept = vec![false; rows.len()];
        Self { text, rows, kept, added: Vec::new(), hint: 0 }
    }

    /// The row of `rel`: its index, stamp and what it keeps, when its line parses.
    fn get(&mut self, rel: &str) -> Option<(usize, Stamp, Kept)> {
        let i = next_in_order(self.hint, self.rows.len(), |i| {
            self.text[self.rows[i].0.clone()].cmp(rel)
        })?;
        self.hint = i;
        let line = &self.text[self.rows[i].1.clone()];
        let mut f = line.split('\t').skip(1);
        let mut num = || parse_u128(f.next()?);
        let stamp = Stamp {
            size: u64::try_from(num()?).ok()?,
            mtime: num()?,
            ctime: num()?,
            ino: u64::try_from(num()?).ok()?,
        };
        let rest: Vec<&str> = f.collect();
        let kept = match rest.as_slice() {
            [one] if one.starts_with(NOT_UTF8) => {
                Kept::NotUtf8(one[NOT_UTF8.len()..].parse().ok()?)
            }
            _ => Kept::Values(rest.iter().map(|v| v.parse().ok()).collect::<Option<_>>()?),
        };
        Some((i, stamp, kept))
    }

    /// Writes the rows kept and added, unless they are exactly the rows read.
    fn save(mut self, ws: &Workspace) {
        if self.added.is_empty() && self.kept.iter().all(|k| *k) {
            return;
        }
        self.added.sort_by(|a, b| a.0.cmp(&b.0));
        self.added.dedup_by(|a, b| a.0 == b.0);
        let mut out = String::with_capacity(self.text.len() + 128 * self.added.len() + 64);
        out.push_str(&Self::header(ws));
        let mut added = self.added.iter().peekable();
        for (i, (path, line)) in self.rows.iter().enumerate() {
            if !self.kept[i] {
                continue;
            }
            while let Some(row) = added.next_if(|(p, ..)| p.as_str() < &self.text[path.clone()]) {
                push_row(&mut out, row);
            }
            out.push_str(&self.text[line.clone()]);
            out.push('\n');
        }
        for row in added {
            push_row(&mut out, row);
        }
        let _ = fsx::write_derived(&ws.abs(DIR).join(FILES), out.as_bytes(), false);
    }
}

/// What a row keeps of its file: the values computed from it, or that it is not UTF-8 (the
/// offset of its first bad byte), so a file that cannot be read is reported again without
/// reading it (a 60 MB one took every status a read) until its stamp changes.
#[derive(Debug, Clone, PartialEq)]
enum Kept {
    Values(Vec<usize>),
    NotUtf8(usize),
}

/// How a row says its file is not UTF-8: `!utf8 OFFSET` in place of the values (a table read by
/// an older cogmem, which expects numbers there, reads the file again).
const NOT_UTF8: &str = "!utf8 ";

/// One line of the table.
fn push_row(out: &mut String, (p, s, kept): &(String, Stamp, Kept)) {
    use std::fmt::Write as _;
    // Times are nanoseconds: they fit a u64, which formats several times faster.
    let wide = |v: u128| u64::try_from(v).map_err(|_| v);
    let _ = match (wide(s.mtime), wide(s.ctime)) {
        (Ok(m), Ok(c)) => write!(out, "{p}\t{}\t{m}\t{c}\t{}", s.size, s.ino),
        _ => write!(out, "{p}\t{}\t{}\t{}\t{}", s.size, s.mtime, s.ctime, s.ino),
    };
    match kept {
        Kept::Values(values) => {
            for v in values {
                let _ = write!(out, "\t{v}");
            }
        }
        Kept::NotUtf8(offset) => {
            let _ = write!(out, "\t{NOT_UTF8}{offset}");
        }
    }
    out.push('\n');
}

/// The position among `len` sorted items where `order` (an item's order against the one
/// sought) answers `Equal`: the item at `hint` or the one after it when the sought one is there
/// (items asked for in order), else found by binary search.
fn next_in_order(
    hint: usize,
    len: usize,
    order: impl Fn(usize) -> std::cmp::Ordering,
) -> Option<usize> {
    use std::cmp::Ordering::Equal;
    if let Some(i) = [hint, hint + 1].into_iter().find(|&i| i < len && order(i) == Equal) {
        return Some(i);
    }
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match order(mid) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            Equal => return Some(mid),
        }
    }
    None
}

/// A decimal number, parsed as a u64 when it fits one (several times faster than a u128).
fn parse_u128(s: &str) -> Option<u128> {
    match s.parse::<u64>() {
        Ok(v) => Some(u128::from(v)),
        Err(_) => s.parse::<u128>().ok(),
    }
}

/// Reads through the per-file table: a file whose stamp is unchanged gives its kept values,
/// any other is computed and (when its stamp is settled) kept for next time.
struct Reader<'a> {
    ws: &'a Workspace,
    probe: &'a Probe,
    table: Table,
    /// How many files were read (their values computed), for the timing mark.
    read: usize,
}

impl Reader<'_> {
    /// What the table keeps of `rel` when its stamp matches (marking the row kept).
    fn lookup(&mut self, rel: &str, arity: usize) -> Option<Kept> {
        let now = self.probe.tree.get(rel)?;
        let (i, was, kept) = self.table.get(rel)?;
        let fits = match &kept {
            Kept::Values(values) => values.len() == arity,
            Kept::NotUtf8(_) => true,
        };
        (now == was && fits).then(|| {
            self.table.kept[i] = true;
            kept
        })
    }

    /// Keeps `kept` for `rel` when its stamp is settled and its path fits a row.
    fn keep(&mut self, rel: &str, kept: Kept) {
        if let Some(now) = self.probe.tree.get(rel)
            && self.probe.is_settled(&now)
            && !rel.contains(['\t', '\n', '\r'])
        {
            self.table.added.push((rel.to_owned(), now, kept));
        }
    }

    /// The `arity` values of file `rel`: kept ones when its stamp matches, else `compute()`'s;
    /// errors (unreadable, unparsable) are returned and never kept.
    fn values<E>(
        &mut self,
        rel: &str,
        arity: usize,
        compute: impl FnOnce() -> Result<Vec<usize>, E>,
    ) -> Result<Vec<usize>, E> {
        if let Some(Kept::Values(values)) = self.lookup(rel, arity) {
            return Ok(values);
        }
        self.read += 1;
        let values = compute()?;
        self.keep(rel, Kept::Values(values.clone()));
        Ok(values)
    }

    /// [`Reader::values`] for a memory file, whose error is reported as text: a file that is
    /// not UTF-8 is kept as such, and reported again from the table, unread, while its stamp
    /// holds.
    fn file_values(
        &mut self,
        rel: &str,
        arity: usize,
        compute: impl FnOnce() -> cogmem_store::Result<Vec<usize>>,
    ) -> Result<Vec<usize>, String> {
        let not_utf8 = |ws: &Workspace, offset| {
            let e = cogmem_store::store::StoreError::NotUtf8 { path: ws.abs(rel), offset };
            cogmem_store::Error::from(e).to_string()
        };
        match self.lookup(rel, arity) {
            Some(Kept::Values(values)) => return Ok(values),
            Some(Kept::NotUtf8(offset)) => return Err(not_utf8(self.ws, offset)),
            None => {}
        }
        self.read += 1;
        match compute() {
            Ok(values) => {
                self.keep(rel, Kept::Values(values.clone()));
                Ok(values)
            }
            Err(e) => {
                if let cogmem_store::Error::Store(cogmem_store::store::StoreError::NotUtf8 {
                    offset,
                    ..
                }) = &e
                {
                    self.keep(rel, Kept::NotUtf8(*offset));
                }
                Err(e.to_string())
            }
        }
    }
}

impl Summary {
    /// Counts the units of every store, the decay bands, the files git sees as changed and
    /// the index state, reading again only the files whose stamps changed since the last
    /// time; `uncommitted` runs `git status`.
    pub fn compute(
        ws: &Workspace,
        probe: &Probe,
        uncommitted: impl FnOnce() -> cogmem_store::Result<Vec<Uncommitted>>,
    ) -> crate::Result<Self> {
        let mut r = Reader { ws, probe, table: Table::load(ws), read: 0 };
        let mut skipped = Vec::new();
        let mut counts = Counts::default();
        let read = |rel: &str| ws.read_text(rel);

        match r.file_values(layout::MEMORY_MD, 1, || {
            read(layout::MEMORY_MD).map(|t| vec![core_memory::count_bullets(&t)])
        }) {
            Ok(v) => counts.core = v.first().copied().unwrap_or(0),
            Err(error) => skipped.push(Skipped { path: layout::MEMORY_MD.into(), error }),
        }
        // The walk saw every file: its listing, not the folders listed again.
        let listed = |dir: &str| {
            probe.tree.store_files(dir).unwrap_or_else(|| units::markdown_files(ws.root(), dir))
        };
        for rel in listed(layout::EPISODES_DIR) {
            counts.episode_days += 1;
            match r.file_values(&rel, 1, || read(&rel).map(|t| vec![episode::entries(&t).len()])) {
                Ok(v) => counts.episodes += v.first().copied().unwrap_or(0),
                Err(error) => skipped.push(Skipped { path: rel, error }),
            }
        }
        // Each file is read as search would read it: one it cannot read is counted and
        // reported.
        for (dir, count) in [
            (layout::ENTITIES_DIR, &mut counts.entities),
            (layout::PROCEDURES_DIR, &mut counts.procedures),
            (layout::VAULT_DIR, &mut counts.vault),
        ] {
            for rel in listed(dir) {
                *count += 1;
                if let Err(error) = r.file_values(&rel, 1, || read(&rel).map(|_| vec![1])) {
                    skipped.push(Skipped { path: rel, error });
                }
            }
        }
        for (dir, _, _) in units::DIRS {
            let links =
                probe.tree.linked_files(dir).unwrap_or_else(|| units::linked_files(ws.root(), dir));
            for rel in links {
                let link = units::skipped_link(&rel);
                skipped.push(Skipped { path: link.path, error: link.error });
            }
        }
        cogmem_store::timing::mark(&format!("status: files counted ({} read)", r.read));
        if ws.abs(layout::DECAY_SCORES).exists() {
            match decay_counts(ws, &mut r) {
                Ok((entries, bands)) => {
                    counts.decay_entries = entries;
                    counts.bands = bands;
                }
                // The error names the file (a shard, perhaps).
                Err(e) => skipped
                    .push(Skipped { path: layout::DECAY_SCORES.into(), error: e.to_string() }),
            }
        }
        cogmem_store::timing::mark("status: decay counted");
        let uncommitted = uncommitted()?;
        cogmem_store::timing::mark("status: git status");
        let index = match probe.tree.memory_stamps() {
            Some(files) => crate::index::state_of(ws, &files),
            None => crate::index::state(ws),
        };
        cogmem_store::timing::mark("status: index state");
        if probe.clock.is_some() {
            r.table.save(ws);
        }
        Ok(Self { counts, skipped, uncommitted, index })
    }
}

/// The number of decay entries and their bands: per decay file from the table when each key
/// lives in the file it belongs to (so no key is counted twice), else from a full load.
fn decay_counts(ws: &Workspace, r: &mut Reader<'_>) -> cogmem_store::Result<(usize, Bands)> {
    let shards = decay_file::shard_files(ws.root());
    let mut homes: Vec<Option<decay_file::Shard>> = vec![None];
    homes.extend(shards.iter().copied().map(Some));
    let mut total = (0, Bands::default());
    let mut sound = true;
    // How the entries are spread over shards: the main file says (it is small once there are
    // shards). Read only to count a shard again: without shards the main file holds every
    // entry (34 MB at 100,000 memories, parsed by every status that recounted anything).
    let layout = std::cell::OnceCell::new();
    let layout = || {
        *layout.get_or_init(|| match ws.read_text_if_exists(&decay_file::file_path(None)) {
            Ok(Some(text)) => DecayFile::parse(&text, &ws.abs(&decay_file::file_path(None)))
                .map_or(decay_file::Layout::FIRST, |d| d.layout()),
            _ => decay_file::Layout::FIRST,
        })
    };
    for home in homes {
        let rel = decay_file::file_path(home);
        let values = r.values(&rel, 6, || file_bands(ws, home, &rel, &layout));
        // [entries, active, fading, dormant, archived, 1 when every key is at home]
        match values.as_deref() {
            Ok([n, a, f, d, x, at_home]) => {
                // The main file's entries move to the shards once there are any.
                sound &= *at_home == 1 && (home.is_some() || shards.is_empty() || *n == 0);
                total.0 += n;
                total.1.active += a;
                total.1.fading += f;
                total.1.dormant += d;
                total.1.archived += x;
            }
            _ => sound = false,
        }
    }
    if sound {
        return Ok(total);
    }
    let d = DecayFile::load(ws)?;
    let mut bands = Bands::default();
    for key in d.keys() {
        bands.add(d.band(&key));
    }
    Ok((d.len(), bands))
}

/// One decay file's entries and bands, and whether each key belongs in it.
fn file_bands(
    ws: &Workspace,
    home: Option<decay_file::Shard>,
    rel: &str,
    layout: &dyn Fn() -> decay_file::Layout,
) -> cogmem_store::Result<Vec<usize>> {
    let path = ws.abs(rel);
    let Some(text) = fsx::read_text_if_exists(&path, ws.file_limit())? else {
        return Ok(vec![0, 0, 0, 0, 0, 1]);
    };
    let d = match home {
        None => DecayFile::parse(&text, &path)?,
        Some(_) => DecayFile::parse_shard(&text, &path)?,
    };
    let layout = home.map(|_| layout());
    let mut bands = Bands::default();
    let mut at_home = true;
    for key in d.keys() {
        bands.add(d.band(&key));
        at_home &= home.is_none_or(|n| layout.is_some_and(|l| decay_file::shard_of(&key, l) == n));
    }
    Ok(vec![
        d.len(),
        bands.active,
        bands.fading,
        bands.dormant,
        bands.archived,
        usize::from(at_home),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(ctime: u128, mtime: u128, clock: Option<u128>) -> Probe {
        let stamp = Stamp { size: 1, mtime, ctime, ino: 1 };
        let tree = Tree {
            unsorted: std::cell::Cell::new(Some(vec![Walked {
                path: (0, 9),
                stamp,
                kind: Kind::File,
                executable: false,
            }])),
            sorted: Default::default(),
            paths: b"MEMORY.md".to_vec(),
            digest: 0,
            nested_git: false,
            hint: Default::default(),
            stores_plain: true,
        };
        Probe { tree, key: String::new(), clock }
    }

    #[test]
    fn files_walked_in_any_order_are_asked_for_by_path() {
        // A walk's order: the root's files, then a folder's, then a folder walked before it.
        let walked = ["z.md", "memory/b/x.md", "memory/b/y.md", "memory/a.md", "MEMORY.md"];
        let paths = walked.concat().into_bytes();
        let mut at = 0;
        let tree = Tree {
            unsorted: std::cell::Cell::new(Some(
                walked
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        at += p.len();
                        Walked {
                            path: ((at - p.len()) as u32, p.len() as u32),
                            stamp: Stamp { size: i as u64, mtime: 1, ctime: 1, ino: 1 },
                            kind: Kind::File,
                            executable: false,
                        }
                    })
                    .collect(),
            )),
            sorted: Default::default(),
            paths,
            digest: 0,
            nested_git: false,
            hint: Default::default(),
            stores_plain: true,
        };
        for (i, p) in walked.iter().enumerate().rev() {
            assert_eq!(tree.get(p).map(|s| s.size), Some(i as u64), "{p}");
        }
        assert_eq!(tree.get("memory/b"), None);
        let sorted: Vec<&[u8]> = tree.files().iter().map(|f| tree.path(f)).collect();
        assert!(sorted.is_sorted(), "{sorted:?}");
        assert_eq!(tree.md_entries("memory/b", Kind::File), ["memory/b/x.md", "memory/b/y.md"]);
    }

    #[test]
    fn items_asked_for_in_any_order_are_found() {
        let items = ["a", "b", "b/c", "d", "e"];
        for hint in 0..7 {
            for (i, want) in items.iter().enumerate() {
                assert_eq!(next_in_order(hint, items.len(), |j| items[j].cmp(want)), Some(i));
            }
            for missing in ["", "a0", "c", "z"] {
                assert_eq!(next_in_order(hint, items.len(), |j| items[j].cmp(missing)), None);
            }
        }
        assert_eq!(next_in_order(0, 0, |_| std::cmp::Ordering::Equal), None);
    }

    #[test]
    #[allow(clippy::disallowed_methods, reason = "the test reads and damages the table itself")]
    fn the_table_keeps_the_rows_that_hold_and_adds_the_new_ones_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = Workspace::preparing(dir.path(), Default::default());
        let stamp = |n: u64| Stamp { size: n, mtime: u128::from(n) * 10, ctime: 7, ino: n };
        let mut t = Table::default();
        for (path, n) in [("b.md", 2), ("a.md", 1), ("d.md", 4)] {
            t.added.push((path.to_owned(), stamp(n), Kept::Values(vec![n as usize, 9])));
        }
        t.added.push(("e.md".to_owned(), stamp(6), Kept::NotUtf8(12)));
        t.save(&ws);
        let mut t = Table::load(&ws);
        assert_eq!(t.rows.len(), 4);
        // A file that is not UTF-8 reads back as such.
        assert_eq!(t.get("e.md").map(|r| (r.1, r.2)), Some((stamp(6), Kept::NotUtf8(12))));
        // Asked out of order, then a row replaced and one added between the kept ones.
        let (i, s, v) = t.get("d.md").expect("d");
        assert_eq!((s, v), (stamp(4), Kept::Values(vec![4, 9])));
        t.kept[i] = true;
        let (i, ..) = t.get("a.md").expect("a");
        t.kept[i] = true;
        assert!(t.get("c.md").is_none());
        t.added.push(("c.md".to_owned(), stamp(3), Kept::Values(vec![3, 9])));
        t.added.push(("b.md".to_owned(), stamp(5), Kept::Values(vec![5, 9])));
        t.save(&ws);
        let text = std::fs::read_to_string(dir.path().join(DIR).join(FILES)).expect("saved");
        let paths: Vec<&str> =
            text.lines().skip(1).map(|l| l.split('\t').next().unwrap_or("")).collect();
        assert_eq!(paths, ["a.md", "b.md", "c.md", "d.md"]);
        let mut t = Table::load(&ws);
        assert_eq!(t.get("b.md").map(|r| r.1), Some(stamp(5)));
        // Lines out of order are no table: everything is computed again.
        let (header, body) = text.split_once('\n').expect("a header");
        let mut lines: Vec<&str> = body.lines().collect();
        lines.reverse();
        let reversed = format!("{header}\n{}\n", lines.join("\n"));
        std::fs::write(dir.path().join(DIR).join(FILES), reversed).expect("write");
        assert!(Table::load(&ws).rows.is_empty());
    }

    #[test]
    fn numbers_past_a_u64_still_read_back() {
        assert_eq!(parse_u128("1796054612000000000"), Some(1_796_054_612_000_000_000));
        let past = u128::from(u64::MAX) + 1;
        assert_eq!(parse_u128(&past.to_string()), Some(past));
        for bad in ["", "x", "-1", "1.5"] {
            assert_eq!(parse_u128(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_stamps_older_than_the_walk_are_kept() {
        // (ctime, mtime, the walk's clock) → settled
        for (ctime, mtime, clock, settled) in [
            (4, 4, Some(5), true),
            (5, 4, Some(5), false), // changed in the tick the walk began: racy
            (4, 5, Some(5), false),
            (6, 4, Some(5), false),
            (4, 4, None, false), // no clock: nothing is kept
        ] {
            let p = probe(ctime, mtime, clock);
            let s = p.tree.get("MEMORY.md").expect("stamped");
            assert_eq!(p.is_settled(&s), settled, "{ctime} {mtime} {clock:?}");
        }
        assert_eq!(probe(1, 1, Some(2)).tree.get("memory"), None);
    }
}
