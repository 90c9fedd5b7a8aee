//! The scan a search starts with: the size and mtime of every memory file (issue 20).
//!
//! Every file is stat-ed, always: an edit in place changes nothing but the file itself. What
//! can be skipped is listing a store folder. Adding, removing or renaming a name in a folder
//! changes the folder's mtime and ctime (POSIX), and a ctime cannot be set back by hand; so when
//! a folder has the stamp (mtime, ctime, inode) the manifest recorded for it (a `#dir` line),
//! its memory files are exactly the manifest's paths in it, and those are stat-ed by name,
//! relative to the open folder, without reading the folder (at 13,000 files, listing cost a
//! quarter of the scan). A folder whose stamp differs, or has none, is listed as before.
//!
//! A stamp is recorded only when it is older than the moment the listing began (the mtime of
//! `.cogmem/status/clock`, written just before, in the file system's own clock): a name added
//! in the same clock tick as the stamp was taken would leave the stamp unchanged (git's
//! racy-clean rule, as in [`crate::summary`]). And only when the manifest's paths in the folder
//! are exactly the files listed: a file left out (unreadable, or not indexed while a merge
//! held the writer) or a memory-file link makes the folder listed every time.

use std::borrow::Cow;
use std::path::Path;

use cogmem_store::store::{fsx, units};
use cogmem_store::workspace::layout;

/// A store folder's stamp, as its `#dir` line records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirStamp {
    /// Modification time, nanoseconds since the epoch.
    pub mtime: u128,
    /// Change time, nanoseconds since the epoch.
    pub ctime: u128,
    /// Inode.
    pub ino: u64,
}

impl DirStamp {
    /// Parses the value of a `#dir FOLDER MTIME CTIME INO` line; the folder must be a store
    /// folder (anything else is no line: that folder is listed).
    pub(crate) fn parse(value: &str) -> Option<(String, Self)> {
        let mut f = value.split(' ');
        let (Some(dir), Some(mtime), Some(ctime), Some(ino), None) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            return None;
        };
        units::DIRS.iter().any(|(d, _, _)| *d == dir).then_some(())?;
        let stamp =
            Self { mtime: mtime.parse().ok()?, ctime: ctime.parse().ok()?, ino: ino.parse().ok()? };
        Some((dir.to_owned(), stamp))
    }

    /// The `#dir` line (with its newline).
    pub(crate) fn line(&self, dir: &str) -> String {
        format!("#dir {dir} {} {} {}\n", self.mtime, self.ctime, self.ino)
    }

    /// Whether the stamp was taken after the folder's last change, in an earlier tick than
    /// `clock`.
    pub(crate) fn settled(&self, clock: u128) -> bool {
        self.mtime < clock && self.ctime < clock
    }
}

/// A memory file a scan found: its path (borrowed from the manifest's lines when the scan took
/// it from there), size and mtime.
pub(crate) type Found<'m> = (Cow<'m, str>, u64, u128);

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct Scan<'m> {
    /// (path, size, mtime) of every memory file, MEMORY.md first.
    pub files: Vec<Found<'m>>,
    /// Memory-file links and store folders leading out of the workspace (reported skipped).
    pub links: Vec<String>,
    /// The store folders whose stamps may be recorded, if the manifest ends up listing exactly
    /// their files (see [`recordable`]).
    pub dirs: Vec<(String, DirStamp)>,
    /// How many folders were listed (the others were known).
    pub listed: usize,
}

/// The `#dir` stamps to record among a scan's `dirs`, given the `files` it found and the
/// manifest's paths after the refresh: those of folders whose files are exactly the manifest's
/// paths in them.
pub(crate) fn recordable<'a>(
    dirs: &[(String, DirStamp)],
    files: &[Found<'_>],
    manifest: impl Iterator<Item = &'a str>,
) -> std::collections::BTreeMap<String, DirStamp> {
    // Per folder (a handful: looked up in order): the manifest's paths in it, those of them
    // present, the files present. The set of present paths hashed with foldhash, not std's
    // SipHash (with the per-path lookups in the patch, since merged, this step took 51 ms of a
    // search after a hand edit at a million memories in a build without LTO; issue 20).
    let mut counts: Vec<(&str, [usize; 3])> =
        dirs.iter().map(|(d, _)| (d.as_str(), [0; 3])).collect();
    let mut present: std::collections::HashSet<&str, foldhash::fast::FixedState> =
        std::collections::HashSet::with_capacity_and_hasher(files.len(), Default::default());
    present.extend(files.iter().map(|f| &*f.0));
    let mut count = |path: &str, k: usize| {
        if let Some(dir) = memchr::memrchr(b'/', path.as_bytes()).map(|i| &path[..i])
            && let Some((_, c)) = counts.iter_mut().find(|(d, _)| *d == dir)
        {
            c[k] += 1;
            true
        } else {
            false
        }
    };
    for path in manifest {
        if count(path, 0) && present.contains(path) {
            count(path, 1);
        }
    }
    for (path, _, _) in files {
        count(path, 2);
    }
    // Equal sets: every path of the manifest is present and as many as the files.
    dirs.iter()
        .zip(counts)
        .filter(|(_, (_, [in_manifest, present_too, files]))| {
            in_manifest == present_too && present_too == files
        })
        .map(|((d, s), _)| (d.clone(), *s))
        .collect()
}

#[cfg(unix)]
pub(crate) type DirHandle = rustix::fd::OwnedFd;
#[cfg(not(unix))]
pub(crate) type DirHandle = std::path::PathBuf;

/// Opens a store folder (not following a link) and stamps it; `None` when it cannot be.
// The conversions are for the platforms whose `stat` fields are narrower or unsigned.
#[cfg(unix)]
#[allow(clippy::useless_conversion)]
pub(crate) fn open_dir(abs: &Path) -> Option<(DirHandle, Option<DirStamp>)> {
    use rustix::fs::{Mode, OFlags};
    let fd =
        rustix::fs::open(abs, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    let stamp = DirStamp {
        mtime: nanos(st.st_mtime.into(), st.st_mtime_nsec.into()),
        ctime: nanos(st.st_ctime.into(), st.st_ctime_nsec.into()),
        ino: st.st_ino.into(),
    };
    Some((fd, Some(stamp)))
}

#[cfg(not(unix))]
pub(crate) fn open_dir(abs: &Path) -> Option<(DirHandle, Option<DirStamp>)> {
    // No change time to rely on: every folder is listed.
    std::fs::symlink_metadata(abs).ok().filter(|m| m.is_dir()).map(|_| (abs.to_owned(), None))
}

/// Nanoseconds since the epoch (0 before it, as [`fsx::mtime_nanos`]).
#[cfg(unix)]
fn nanos(secs: i64, nsec: u64) -> u128 {
    u128::try_from(secs).map_or(0, |s| s * 1_000_000_000 + u128::from(nsec))
}

/// What `lstat` says of an entry of a folder (a link is not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: u128,
    /// Change time, nanoseconds since the epoch (`u128::MAX` where the system has none).
    pub ctime: u128,
    pub ino: u64,
    /// A plain file, a link, a folder or something else.
    pub kind: Kind,
    /// Whether the owner may execute it (what makes git's mode `100755`).
    pub executable: bool,
}

/// `lstat` of the entry `name` of an open folder.
#[cfg(unix)]
#[allow(clippy::useless_conversion)]
pub(crate) fn stat_entry(dir: &DirHandle, name: &[u8]) -> Option<EntryStat> {
    use rustix::fs::{AtFlags, FileType};
    let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    Some(EntryStat {
        size: u64::try_from(st.st_size).unwrap_or(0),
        mtime: nanos(st.st_mtime.into(), st.st_mtime_nsec.into()),
        ctime: nanos(st.st_ctime.into(), st.st_ctime_nsec.into()),
        ino: st.st_ino.into(),
        kind: kind_of(FileType::from_raw_mode(st.st_mode)),
        executable: st.st_mode & 0o100 != 0,
    })
}

#[cfg(not(unix))]
pub(crate) fn stat_entry(dir: &DirHandle, name: &[u8]) -> Option<EntryStat> {
    let md = std::fs::symlink_metadata(dir.join(std::str::from_utf8(name).ok()?)).ok()?;
    Some(EntryStat {
        size: md.len(),
        mtime: fsx::mtime_nanos(&md),
        ctime: u128::MAX,
        ino: 0,
        kind: kind_of(md.file_type()),
        executable: false,
    })
}

/// Opens the entry `name` of an open folder to read it, not following a link (a link is not
/// opened at all). The caller knows it for a plain file (from the folder's listing): a pipe
/// would block the open.
#[cfg(unix)]
pub(crate) fn open_in(dir: &DirHandle, name: &str) -> Option<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name, flags, Mode::empty()).ok().map(std::fs::File::from)
}

#[cfg(not(unix))]
pub(crate) fn open_in(dir: &DirHandle, name: &str) -> Option<std::fs::File> {
    let path = dir.join(name);
    fsx::check_inside(&path, "read").ok()?;
    std::fs::File::open(path).ok()
}

/// Size and mtime of a plain file `name` in an open folder (a link is no plain file).
fn stat_in(dir: &DirHandle, name: &str) -> Option<(u64, u128)> {
    stat_entry(dir, name.as_bytes()).filter(|s| s.kind == Kind::File).map(|s| (s.size, s.mtime))
}

/// What an entry of a folder is, as its listing says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
    Link,
    /// A socket, a pipe, a device.
    Other,
}

/// The kind of a file type.
#[cfg(unix)]
fn kind_of(t: rustix::fs::FileType) -> Kind {
    use rustix::fs::FileType;
    match t {
        FileType::Directory => Kind::Dir,
        FileType::RegularFile => Kind::File,
        FileType::Symlink => Kind::Link,
        _ => Kind::Other,
    }
}

/// The kind of a file type.
#[cfg(not(unix))]
fn kind_of(t: std::fs::FileType) -> Kind {
    if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else if t.is_symlink() {
        Kind::Link
    } else {
        Kind::Other
    }
}

/// The entries of an open folder (not `.` and `..`), with their kinds; `None` when it cannot
/// be read.
#[cfg(unix)]
pub(crate) fn list(dir: &DirHandle) -> Option<Vec<(Vec<u8>, Kind)>> {
    use rustix::fs::{AtFlags, FileType};
    let mut out = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            // The file system did not say: ask the entry itself.
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .map_or(FileType::Unknown, |st| FileType::from_raw_mode(st.st_mode)),
            t => t,
        };
        out.push((name.to_vec(), kind_of(kind)));
    }
    Some(out)
}

#[cfg(not(unix))]
pub(crate) fn list(dir: &DirHandle) -> Option<Vec<(Vec<u8>, Kind)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(t) = e.file_type() else { continue };
        let Some(name) = e.file_name().to_str().map(|n| n.as_bytes().to_vec()) else { continue };
        out.push((name, kind_of(t)));
    }
    Some(out)
}

/// Scans the memory files: MEMORY.md and the `*.md` files of the store folders (symbolic
/// links are not memory files). A store folder whose stamp is `known` is not listed: its files
/// are `manifest_paths` (called once, with those folders). `clock` gives the file system's time
/// before any folder is listed. The files are stat-ed on two threads when there are many; with
/// `meanwhile`, on threads of their own while it runs on this one ([`super::ahead`]).
pub(crate) fn scan<'m>(
    root: &Path,
    known: &std::collections::BTreeMap<String, DirStamp>,
    manifest_paths: impl FnOnce(&[&str]) -> Vec<Cow<'m, str>>,
    clock: impl FnOnce() -> Option<u128>,
    meanwhile: Option<&mut dyn FnMut()>,
) -> Scan<'m> {
    let mut scan = Scan::default();
    if let Ok(md) = std::fs::symlink_metadata(root.join(layout::MEMORY_MD))
        && md.is_file()
    {
        scan.files.push((Cow::Borrowed(layout::MEMORY_MD), md.len(), fsx::mtime_nanos(&md)));
    }
    // The folders first: open, stamped, known or to be listed.
    let mut open: Vec<(&str, DirHandle, Option<DirStamp>, bool)> = Vec::new();
    for (dir, _, _) in units::DIRS {
        let abs = root.join(dir);
        // A store folder that is a link out of the workspace is not read (as in
        // `units::markdown_files`).
        if fsx::check_inside(&abs, "read").is_err() {
            scan.links.push((*dir).to_owned());
            continue;
        }
        let Some((handle, stamp)) = open_dir(&abs) else { continue };
        let is_known = stamp.is_some() && known.get(dir).copied() == stamp;
        open.push((dir, handle, stamp, is_known));
    }
    let known_dirs: Vec<&str> = open.iter().filter(|o| o.3).map(|o| o.0).collect();
    // (path, folder) of every file to stat.
    let mut items: Vec<(Cow<'m, str>, usize)> = Vec::new();
    if !known_dirs.is_empty() {
        let paths = manifest_paths(&known_dirs);
        items.reserve(paths.len());
        // The paths come sorted, a folder's together: its place is looked up when the folder
        // changes (a map looked up for each path was half a millisecond at 100,000 memories).
        let mut last: Option<(&str, usize)> = None;
        for path in paths {
            let Some((dir, _)) = path.rsplit_once('/') else { continue };
            let i = match last {
                Some((d, i)) if d == dir => Some(i),
                _ => open.iter().position(|o| o.0 == dir),
            };
            if let Some(i) = i {
                last = Some((open[i].0, i));
                items.push((path, i));
            }
        }
    }
    let clock = if known_dirs.len() < open.len() { clock() } else { None };
    for (i, (dir, _, stamp, is_known)) in open.iter().enumerate() {
        if *is_known {
            scan.dirs.push(((*dir).to_owned(), stamp.expect("a known folder has a stamp")));
            continue;
        }
        scan.listed += 1;
        let Some(listing) = list(&open[i].1) else { continue };
        let mut has_link = false;
        for (name, kind) in listing {
            let Ok(name) = String::from_utf8(name) else { continue };
            if kind == Kind::Link && name.ends_with(".md") {
                scan.links.push(format!("{dir}/{name}"));
                has_link = true;
            }
            // The manifest is tab- and line-separated; such names cannot be memory files.
            if kind == Kind::File && name.ends_with(".md") && !name.contains(['\t', '\n', '\r']) {
                items.push((Cow::Owned(format!("{dir}/{name}")), i));
            }
        }
        if let (Some(stamp), Some(clock), false) = (stamp, clock, has_link)
            && stamp.settled(clock)
        {
            scan.dirs.push(((*dir).to_owned(), *stamp));
        }
    }
    // The threads only stat; the paths move into the results here. Allocating on the second
    // thread (a fresh heap arena, its pages faulted in one by one) made the stat phase of a
    // scan at 100,000 memories about a third slower (issue 20).
    let stat =
        |(path, i): &(Cow<'m, str>, usize)| stat_in(&open[*i].1, &path[open[*i].0.len() + 1..]);
    let stamps = match meanwhile {
        Some(meanwhile) => super::on_threads_while(&items, stat, meanwhile),
        None => super::on_two_threads(&items, stat),
    };
    scan.files.reserve(items.len());
    scan.files.extend(
        items
            .into_iter()
            .zip(stamps)
            .filter_map(|((path, _), stamp)| stamp.map(|(size, mtime)| (path, size, mtime))),
    );
    scan.links.sort();
    scan
}

/// A decay file (`None`: the main file, else a shard) and its size and mtime (`None`: missing).
pub(crate) type DecayStamp = (Option<cogmem_store::store::decay_file::Shard>, Option<(u64, u128)>);

/// Every shard file of the decay shards' folder with its size and mtime, in shard order, each
/// stat-ed in the open folder rather than by its whole path (at 100,000 memories there are
/// 1,024 of them, stat-ed by every search without a watcher).
pub(crate) fn shard_stamps(root: &Path) -> Vec<DecayStamp> {
    use cogmem_store::store::decay_file::shard_number;
    let Some((dir, _)) = open_dir(&root.join(layout::DECAY_SHARDS_DIR)) else { return Vec::new() };
    let mut shards: Vec<_> = list(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, kind)| *kind == Kind::File)
        .filter_map(|(name, _)| {
            let name = std::str::from_utf8(&name).ok()?;
            Some((shard_number(name)?, stat_in(&dir, name)))
        })
        // A file that went between the listing and its stat is a shard that is gone.
        .filter(|(_, stamp)| stamp.is_some())
        .map(|(shard, stamp)| (Some(shard), stamp))
        .collect();
    shards.sort_by_key(|(shard, _)| *shard);
    shards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dir_line_reads_back_and_names_only_store_folders() {
        let s = DirStamp { mtime: 17, ctime: 18, ino: 19 };
        let line = s.line("memory/vault");
        assert_eq!(line, "#dir memory/vault 17 18 19\n");
        let value = line.trim_end().strip_prefix("#dir ").unwrap();
        assert_eq!(DirStamp::parse(value), Some(("memory/vault".to_owned(), s)));
        for bad in
            ["memory 1 2 3", "memory/vault 1 2", "memory/vault 1 2 3 4", "memory/vault x 2 3"]
        {
            assert_eq!(DirStamp::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_stamps_older_than_the_listing_are_settled() {
        // (mtime, ctime, clock) → settled
        for (mtime, ctime, clock, settled) in
            [(1, 1, 2, true), (1, 2, 2, false), (2, 1, 2, false), (3, 3, 2, false)]
        {
            let s = DirStamp { mtime, ctime, ino: 1 };
            assert_eq!(s.settled(clock), settled, "{mtime} {ctime} {clock}");
        }
    }

    #[test]
    fn a_folder_is_recorded_only_when_the_manifest_holds_exactly_its_files() {
        let s = DirStamp { mtime: 1, ctime: 1, ino: 1 };
        let dirs = vec![("memory/vault".to_owned(), s), ("memory/episodes".to_owned(), s)];
        let files: Vec<Found<'_>> = vec![
            ("MEMORY.md".into(), 1, 1),
            ("memory/vault/a.md".into(), 1, 1),
            ("memory/episodes/x.md".into(), 1, 1),
        ];
        let recorded = |manifest: &[&str]| -> Vec<String> {
            recordable(&dirs, &files, manifest.iter().copied()).into_keys().collect()
        };
        let all = ["MEMORY.md", "memory/episodes/x.md", "memory/vault/a.md"];
        assert_eq!(recorded(&all), ["memory/episodes", "memory/vault"]);
        // A file present but not in the manifest (left out): its folder is listed next time.
        assert_eq!(recorded(&["memory/vault/a.md"]), ["memory/vault"]);
        // A path of the manifest whose file is gone.
        assert_eq!(
            recorded(&["memory/episodes/x.md", "memory/vault/a.md", "memory/vault/b.md"]),
            ["memory/episodes"]
        );
    }
}
