//! File I/O that names its path. Raw `std::fs` calls are banned elsewhere (clippy.toml), so every
//! I/O error cogmem reports says which file and what it was doing. Writes are atomic: a temp
//! file in the same folder, fsync, rename, then fsync of the folder — a reader sees the old
//! content or the new, never half of it.

#![expect(clippy::disallowed_methods, reason = "this module is the one place raw std::fs is used")]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::ErrorKind;
use crate::store::StoreError;

/// An I/O failure on a named path. The operating system's error is said in the message
/// (`PATH: cannot read: Is a directory (os error 21)`), so it is not also the error's source:
/// a chain of causes would say it twice (house style).
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot {op}: {io}", path.display())]
pub struct IoError {
    /// The file or folder.
    pub path: PathBuf,
    /// What was being done (`read`, `write`, `create folder`…).
    pub op: &'static str,
    /// The operating system's error.
    pub io: io::Error,
}

impl IoError {
    /// Wraps an `io::Error` with the path and operation.
    pub fn new(path: impl Into<PathBuf>, op: &'static str, io: io::Error) -> Self {
        Self { path: path.into(), op, io }
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        match self.io.kind() {
            io::ErrorKind::NotFound
            | io::ErrorKind::PermissionDenied
            | io::ErrorKind::InvalidInput
            | io::ErrorKind::IsADirectory
            | io::ErrorKind::NotADirectory
            | io::ErrorKind::StorageFull
            | io::ErrorKind::QuotaExceeded
            | io::ErrorKind::FileTooLarge => ErrorKind::User,
            _ => ErrorKind::Internal,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        if self.is_link_refusal() {
            return Some(
                "replace the link with a real folder or file; cogmem does not write through \
                 symbolic links"
                    .into(),
            );
        }
        match self.io.kind() {
            io::ErrorKind::PermissionDenied => {
                Some("check the file's permissions and owner".into())
            }
            io::ErrorKind::IsADirectory => Some("name a file, not a folder".into()),
            io::ErrorKind::NotADirectory => {
                Some("a part of the path is a file where a folder was expected; check it".into())
            }
            io::ErrorKind::StorageFull
            | io::ErrorKind::QuotaExceeded
            | io::ErrorKind::FileTooLarge => Some(
                "free some disk space (or raise the file size limit) and run the command \
                 again; a change that failed was undone"
                    .into(),
            ),
            _ => None,
        }
    }

    /// Tells whether this is a refusal to write through a symbolic link.
    pub fn is_link_refusal(&self) -> bool {
        self.io.get_ref().is_some_and(|e| e.is::<ThroughLink>())
    }

    pub(crate) fn is_broken_pipe(&self) -> bool {
        self.io.kind() == io::ErrorKind::BrokenPipe
    }
}

/// The default of `limits.file_bytes`: the largest file cogmem reads from a workspace.
pub const DEFAULT_FILE_LIMIT: u64 = 64 * 1024 * 1024;

/// The name prefix of the temporary file an atomic write fills and then renames over its
/// target; one left behind is the trace of a write that never finished.
pub const TEMP_PREFIX: &str = ".cogmem-tmp-";

/// Tells whether `rel` (a `/`-separated path) names the temporary file of an atomic write
/// ([`TEMP_PREFIX`]): never a memory, never committed.
pub fn is_temp_file(rel: &str) -> bool {
    rel.rsplit('/').next().is_some_and(|n| n.starts_with(TEMP_PREFIX))
}

/// An error made here rather than by the operating system.
fn refusal(path: &Path, op: &'static str, why: String) -> IoError {
    IoError::new(path, op, io::Error::new(io::ErrorKind::InvalidInput, why))
}

/// The workspace root a path lies in, found without touching the disk: the folder holding its
/// last `memory` or `.cogmem` component, or else its own folder (MEMORY.md, cogmem.toml…).
fn lexical_root(path: &Path) -> Option<&Path> {
    path.ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "memory" || n == ".cogmem"))
        .and_then(Path::parent)
        .or_else(|| path.parent())
}

/// The reason of a refusal to go through a symbolic link (see [`IoError::is_link_refusal`]).
#[derive(Debug)]
struct ThroughLink(String);

impl std::fmt::Display for ThroughLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ThroughLink {}

fn link_refusal(path: &Path, op: &'static str, why: String) -> IoError {
    IoError::new(path, op, io::Error::new(io::ErrorKind::InvalidInput, ThroughLink(why)))
}

fn through_link(path: &Path, op: &'static str, link: &Path) -> IoError {
    let why = format!("{} is a symbolic link; cogmem does not write through links", link.display());
    link_refusal(path, op, why)
}

/// Refuses to write to `path` when it, or a folder between it and its workspace root (the
/// folder holding `memory/` or `.cogmem/`), is a symbolic link — wherever the link leads: a
/// log appended through a link into `.git/` would corrupt the repository. One `lstat` per level.
pub fn check_no_link(path: &Path, op: &'static str) -> Result<(), IoError> {
    let Some(root) = lexical_root(path) else { return Ok(()) };
    let link = path
        .ancestors()
        .take_while(|p| *p != root && !p.as_os_str().is_empty())
        .find(|p| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()));
    match link {
        Some(link) => Err(through_link(path, op, link)),
        None => Ok(()),
    }
}

/// Opens `path` for writing without following a symbolic link at its last component (`O_NOFOLLOW`),
/// closing the gap between [`check_no_link`] and the open; a link found there is refused.
fn open_nofollow(
    path: &Path,
    options: &mut OpenOptions,
    op: &'static str,
) -> Result<File, IoError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return through_link(path, op, path);
        }
        IoError::new(path, op, e)
    })
}

/// Opens a file for appending (creating it and its folders), refusing a symbolic link at the
/// file or at a folder below its workspace root (see [`check_no_link`]).
pub fn open_append(path: &Path) -> Result<File, IoError> {
    // One walk up the folders when nothing is a link; a link that leads out of the workspace
    // gets `check_inside`'s refusal, any other link `check_no_link`'s.
    if let Err(link) = check_no_link(path, "append to") {
        check_inside(path, "append to")?;
        return Err(link);
    }
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    open_nofollow(path, OpenOptions::new().create(true).append(true), "open for appending")
}

/// Refuses a path that leads out of its workspace through a symbolic link: the file itself, or
/// a folder between it and the workspace root (the folder holding `MEMORY.md` and `memory/`).
/// Costs one `lstat` per folder level when nothing is a link; only a link makes it look for the
/// root and resolve paths. Paths in no workspace are not checked.
pub fn check_inside(path: &Path, op: &'static str) -> Result<(), IoError> {
    // `ws/../x` is not in `ws`: resolve `..` through the real folders first.
    let resolved;
    let path = if path.components().any(|c| c == std::path::Component::ParentDir)
        && let (Some(parent), Some(name)) = (path.parent(), path.file_name())
        && let Ok(real) = parent.canonicalize()
    {
        resolved = real.join(name);
        resolved.as_path()
    } else {
        path
    };
    let is_link = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let Some(guess) = lexical_root(path) else { return Ok(()) };
    if !path.ancestors().take_while(|p| *p != guess && !p.as_os_str().is_empty()).any(is_link) {
        return Ok(());
    }
    // A link: find the real root (MEMORY.md and memory/), and look again below it only. A path
    // in no workspace (a transcript the user names) may be a link like any file of theirs.
    let Some(root) = path
        .ancestors()
        .skip(1)
        .find(|a| a.join("MEMORY.md").is_file() && a.join("memory").is_dir())
    else {
        return Ok(());
    };
    if !path.ancestors().take_while(|p| *p != root && !p.as_os_str().is_empty()).any(is_link) {
        return Ok(());
    }
    let Ok(real_root) = root.canonicalize() else { return Ok(()) };
    // A dangling link (or a missing file under a linked folder) resolves through its folder.
    let target = path
        .canonicalize()
        .or_else(|_| match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) if fs::symlink_metadata(path).is_err() => {
                parent.canonicalize().map(|p| p.join(name))
            }
            _ => Err(io::Error::other("dangling link")),
        })
        .unwrap_or_else(|_| PathBuf::from("<a dangling link>"));
    if target.starts_with(&real_root) {
        Ok(())
    } else {
        Err(link_refusal(
            path,
            op,
            format!(
                "it is a symbolic link (or inside one) leading out of the workspace, to {}; \
                 cogmem does not follow such links",
                target.display()
            ),
        ))
    }
}

/// Checks a workspace-relative path (as git writes it, with `/`) before it is joined to the
/// root: not empty, not absolute, no `..` or `.` component, no backslash, NUL or other control
/// character, no drive prefix. `what` names the path in the error.
pub fn check_relative(what: &'static str, rel: &str) -> Result<(), crate::error::InputError> {
    let bad = |why: &'static str| crate::error::InputError::UnsafePath {
        what,
        value: rel.escape_debug().to_string(),
        why,
    };
    if rel.is_empty() {
        return Err(bad("it is empty"));
    }
    if rel.starts_with('/') || Path::new(rel).is_absolute() || rel.get(1..2) == Some(":") {
        return Err(bad("it is an absolute path"));
    }
    if rel.contains('\\') {
        return Err(bad("it contains a backslash"));
    }
    if rel.chars().any(char::is_control) {
        return Err(bad("it contains NUL or another control character"));
    }
    if rel.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(bad("it contains an empty, `.` or `..` component"));
    }
    Ok(())
}

/// Reads a whole file of at most `limit` bytes (a workspace's `limits.file_bytes`, see
/// [`Workspace::read`](crate::Workspace::read), or [`DEFAULT_FILE_LIMIT`] for a file in no
/// workspace); refuses a bigger one, or a symbolic link leading out of its workspace.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, IoError> {
    check_inside(path, "read")?;
    let file = File::open(path).map_err(|e| IoError::new(path, "read", e))?;
    read_open(file, path, limit)
}

/// [`read`] for a file listed in a folder that was checked with [`check_inside`] (as
/// [`markdown_files`](crate::store::units::markdown_files) lists them): the folders above it
/// are not looked at again, one `lstat` each per file, and the file is opened without following
/// a link. A file that is a link (it became one after it was listed) is read through [`read`],
/// which checks where it leads.
pub fn read_listed(path: &Path, limit: u64) -> Result<Vec<u8>, IoError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        match OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path) {
            Ok(file) => read_open(file, path, limit),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => read(path, limit),
            Err(e) => Err(IoError::new(path, "read", e)),
        }
    }
    #[cfg(not(unix))]
    {
        read(path, limit)
    }
}

/// Reads the open `file` (at `path`, named in errors) whole, refusing more than `limit` bytes:
/// for a file its caller opened by its own rules (relative to an open folder, say).
pub fn read_open(file: File, path: &Path, limit: u64) -> Result<Vec<u8>, IoError> {
    let over = |size: u64| {
        refusal(
            path,
            "read",
            format!(
                "it is {size} bytes, over the limit of {limit} bytes (`limits.file_bytes` in \
                 cogmem.toml)"
            ),
        )
    };
    // A file over the limit is refused by its size, unread: a search that meets one in a store
    // folder meets it again every time (reading the limit's worth first took a quarter of a
    // second at the default 64 MB). Sized up front otherwise (`take` hides the file's size
    // from `read_to_end`, which then grows the buffer by doubling: a copy and fresh pages per
    // step for a megabyte file).
    let size = file.metadata().map_or(0, |m| m.len());
    if size > limit {
        return Err(over(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| IoError::new(path, "read", e))?;
    // It grew while it was read.
    if bytes.len() as u64 > limit {
        return Err(over(fs::metadata(path).map_or(bytes.len() as u64, |m| m.len())));
    }
    Ok(bytes)
}

/// Opens a file to read it as a stream (an import), refusing a symbolic link leading out of
/// its workspace as [`read`] does; the caller bounds what it reads.
pub fn open_read(path: &Path) -> Result<File, IoError> {
    check_inside(path, "read")?;
    File::open(path).map_err(|e| IoError::new(path, "read", e))
}

/// Opens a regular file for reading, refusing anything else (a FIFO, a socket, a device, a
/// folder) without waiting on it: the path is checked with `stat` first, opened without
/// blocking (`O_NONBLOCK`, so a FIFO swapped in after the check does not wait for a writer),
/// and the open file is checked again.
///
/// Fails with an [`io::ErrorKind::InvalidInput`] error naming the path and what it is when it
/// is not a regular file.
pub fn open_regular(path: &Path) -> Result<File, IoError> {
    check_inside(path, "read")?;
    let refuse = |kind: fs::FileType| {
        IoError::new(
            path,
            "read",
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("it is {}, not a regular file", file_kind(kind)),
            ),
        )
    };
    let meta = fs::metadata(path).map_err(|e| IoError::new(path, "read", e))?;
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(|e| IoError::new(path, "read", e))?;
    let meta = file.metadata().map_err(|e| IoError::new(path, "read", e))?;
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    Ok(file)
}

/// What a file that is not a regular file is, for a message (`a FIFO`).
fn file_kind(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() { "a folder" } else { "an unusual file" }
}

/// Reads a file of at most `limit` bytes, or `None` when it does not exist.
pub fn read_if_exists(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, IoError> {
    match read(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.io.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Decodes bytes read from `path` as UTF-8; the error names the path and the byte offset of
/// the first invalid byte.
pub fn decode(path: &Path, bytes: Vec<u8>) -> Result<String, StoreError> {
    String::from_utf8(bytes).map_err(|e| StoreError::NotUtf8 {
        path: path.to_owned(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Reads a UTF-8 text file of at most `limit` bytes.
///
/// A file that is not UTF-8 is a [`StoreError::NotUtf8`] naming the path and byte offset.
pub fn read_text(path: &Path, limit: u64) -> crate::Result<String> {
    let bytes = read(path, limit)?;
    Ok(decode(path, bytes)?)
}

/// Reads a UTF-8 text file of at most `limit` bytes, or `None` when it does not exist.
pub fn read_text_if_exists(path: &Path, limit: u64) -> crate::Result<Option<String>> {
    match read_if_exists(path, limit)? {
        None => Ok(None),
        Some(bytes) => Ok(Some(decode(path, bytes)?)),
    }
}

/// Creates a folder and its parents.
pub fn create_dir_all(path: &Path) -> Result<(), IoError> {
    fs::create_dir_all(path).map_err(|e| IoError::new(path, "create folder", e))
}

/// Removes a file; a file that is already gone is not an error.
pub fn remove_file(path: &Path) -> Result<(), IoError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(IoError::new(path, "remove", e)),
        _ => Ok(()),
    }
}

/// What tells that a file changed without reading it: its length, modification and change
/// times and inode (a save through a new file and a rename gives another inode). `None` from
/// [`stamp`] is a file that does not exist (or cannot be looked at).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
    inode: u64,
}

/// The [`FileStamp`] of `path`, not following a final symbolic link; `None` when absent.
pub fn stamp(path: &Path) -> Option<FileStamp> {
    let md = fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    let (changed, inode) = {
        use std::os::unix::fs::MetadataExt;
        ((md.ctime(), md.ctime_nsec()), md.ino())
    };
    #[cfg(not(unix))]
    let (changed, inode) = ((0, 0), 0);
    Some(FileStamp { len: md.len(), modified: md.modified().ok(), changed, inode })
}

/// Replaces a file's content atomically, creating parent folders as needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    write_replacing(path, bytes, true, path)
}

/// Writes a file atomically, as [`write_atomic`] does, with the mode of the file `like` (an
/// ordinary file's when `like` does not exist): a backup copy of a private file (a host's
/// configuration holding API keys, mode 0600) is private from its first byte.
pub fn write_atomic_like(path: &Path, bytes: &[u8], like: &Path) -> Result<(), IoError> {
    write_replacing(path, bytes, true, like)
}

/// Replaces a derived file's content atomically (a reader sees the old or the new file),
/// waiting for the disk only with `sync`: for files under `.cogmem/` that are rebuilt when lost
/// (see `index::dir`). Never for the workspace's files. Refuses a symbolic link on the way
/// from the workspace root, wherever it leads ([`check_no_link`]): nothing under `.cogmem/` is
/// a link, and one leading into `memory/` would put derived files among the memories.
pub fn write_derived(path: &Path, bytes: &[u8], sync: bool) -> Result<(), IoError> {
    check_no_link(path, "write")?;
    write_replacing(path, bytes, sync, path)
}

/// A file's modification time in nanoseconds since the epoch (0 when the system cannot say).
pub fn mtime_nanos(md: &fs::Metadata) -> u128 {
    md.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`; the file gets
/// the mode of `mode_of` (`path` itself to keep a file's mode).
fn write_replacing(path: &Path, bytes: &[u8], sync: bool, mode_of: &Path) -> Result<(), IoError> {
    check_inside(path, "write")?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir_all(parent)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(parent)
        .map_err(|e| IoError::new(parent, "create a temporary file in", e))?;
    if !sync {
        // Synced, its blocks are allocated before the rename anyway.
        reserve(tmp.as_file(), bytes.len());
    }
    tmp.write_all(bytes).map_err(|e| IoError::new(tmp.path(), "write", e))?;
    // A temp file is private (0600); give the file its old mode, or an ordinary file's.
    let mode = fs::metadata(mode_of).map(|m| m.permissions()).ok();
    set_mode(tmp.as_file(), mode).map_err(|e| IoError::new(tmp.path(), "set permissions of", e))?;
    if sync {
        tmp.as_file().sync_all().map_err(|e| IoError::new(tmp.path(), "sync", e))?;
    }
    tmp.persist(path).map_err(|e| IoError::new(path, "replace", e.error))?;
    if sync {
        sync_dir(parent);
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(file: &File, old: Option<fs::Permissions>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(old.unwrap_or_else(|| fs::Permissions::from_mode(0o644)))
}

#[cfg(not(unix))]
fn set_mode(file: &File, old: Option<fs::Permissions>) -> io::Result<()> {
    match old {
        Some(p) => file.set_permissions(p),
        None => Ok(()),
    }
}

/// Appends bytes to a file (creating it) and flushes them to disk.
pub fn append(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let mut file = open_append(path)?;
    file.write_all(bytes).map_err(|e| IoError::new(path, "append to", e))?;
    file.sync_data().map_err(|e| IoError::new(path, "sync", e))
}

/// Appends bytes to a staging file under `.cogmem/` (creating it) without waiting for the
/// disk: [`install`] syncs it once when it takes its place.
pub fn append_staged(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    let mut file = open_append(path)?;
    file.write_all(bytes).map_err(|e| IoError::new(path, "append to", e))
}

/// Puts a staged file (built under `.cogmem/`, on the workspace's file system) in place of
/// `target` atomically, as [`write_atomic`] does: the staged file gets the target's mode (or an
/// ordinary file's), is synced, and is renamed over the target, whose folder is synced. A
/// staged file on another file system is copied into a temporary file beside the target first,
/// so the replacement stays atomic. The staged file is gone afterwards.
pub fn install(staged: &Path, target: &Path) -> Result<(), IoError> {
    check_inside(target, "write")?;
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir_all(parent)?;
    let file = File::open(staged).map_err(|e| IoError::new(staged, "open", e))?;
    let mode = fs::metadata(target).map(|m| m.permissions()).ok();
    set_mode(&file, mode.clone()).map_err(|e| IoError::new(staged, "set permissions of", e))?;
    file.sync_all().map_err(|e| IoError::new(staged, "sync", e))?;
    match fs::rename(staged, target) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            let mut tmp = tempfile::Builder::new()
                .prefix(TEMP_PREFIX)
                .tempfile_in(parent)
                .map_err(|e| IoError::new(parent, "create a temporary file in", e))?;
            let mut from = File::open(staged).map_err(|e| IoError::new(staged, "open", e))?;
            io::copy(&mut from, tmp.as_file_mut())
                .map_err(|e| IoError::new(tmp.path(), "write", e))?;
            set_mode(tmp.as_file(), mode)
                .map_err(|e| IoError::new(tmp.path(), "set permissions of", e))?;
            tmp.as_file().sync_all().map_err(|e| IoError::new(tmp.path(), "sync", e))?;
            tmp.persist(target).map_err(|e| IoError::new(target, "replace", e.error))?;
            remove_file(staged)?;
        }
        Err(e) => return Err(IoError::new(target, "replace", e)),
    }
    sync_dir(parent);
    Ok(())
}

/// Replaces `target` the way git replaces its own files (`.git/index`): `bytes` are written to
/// `TARGET.lock`, created exclusively so that a lock another git process holds is respected
/// (the error's kind is then `AlreadyExists`, and that lock is left alone), which is then renamed
/// over `target`. Not synced, as git and libgit2 do not sync their index. On failure the lock
/// file this call created is removed.
pub fn write_locked(target: &Path, bytes: &[u8]) -> Result<(), IoError> {
    write_locked_parts(target, &[bytes])
}

/// [`write_locked`] of the concatenation of `parts`, written one after the other: a file
/// patched from pieces of another (git's index) is written without first being copied whole.
pub fn write_locked_parts(target: &Path, parts: &[&[u8]]) -> Result<(), IoError> {
    write_locked_parts_if(target, parts, || true).map(|_| ())
}

/// [`write_locked_parts`], once the lock is held, only if `unchanged()` still says the target
/// is the version the parts were made from (a writer that replaced it in between held the same
/// lock, so it is done): `Ok(false)`, the lock removed and nothing written, when it is not.
pub fn write_locked_parts_if(
    target: &Path,
    parts: &[&[u8]],
    unchanged: impl FnOnce() -> bool,
) -> Result<bool, IoError> {
    check_no_link(target, "write")?;
    let mut name = target.as_os_str().to_owned();
    name.push(".lock");
    let lock = PathBuf::from(name);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
        .map_err(|e| IoError::new(&lock, "create", e))?;
    if !unchanged() {
        drop(file);
        let _ = fs::remove_file(&lock);
        return Ok(false);
    }
    reserve(&file, parts.iter().map(|p| p.len()).sum());
    let written = parts
        .iter()
        .try_for_each(|part| file.write_all(part))
        .map_err(|e| IoError::new(&lock, "write", e))
        .and_then(|()| {
            drop(file);
            fs::rename(&lock, target).map_err(|e| IoError::new(target, "replace", e))
        });
    if written.is_err() {
        let _ = fs::remove_file(&lock);
    }
    written.map(|()| true)
}

/// Reserves the blocks of a new file before it is written, where the file system can: ext4
/// otherwise allocates them late, and renaming the file over an existing one then makes the
/// rename write the file out first (its `auto_da_alloc`), which took 2.0 ms for git's
/// 1.4 MB index at 100,000 memories against 0.6 ms with the blocks reserved (issue 20,
/// decisions.md). For files replaced without `fsync` (git's index, derived files); best
/// effort: a file system that cannot reserve is written as before.
fn reserve(file: &File, len: usize) {
    #[cfg(target_os = "linux")]
    if len > 0 {
        let _ = rustix::fs::fallocate(file, rustix::fs::FallocateFlags::empty(), 0, len as u64);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, len);
}

/// Removes a folder of derived or staged files and everything in it; a folder that is
/// already gone is not an error.
pub fn remove_dir_all(path: &Path) -> Result<(), IoError> {
    check_no_link(path, "remove")?;
    match fs::remove_dir_all(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(IoError::new(path, "remove", e)),
        _ => Ok(()),
    }
}

/// Opens (creating) a file for locking, refusing a symbolic link as [`open_append`] does.
pub fn open_lock_file(path: &Path) -> Result<File, IoError> {
    check_no_link(path, "open")?;
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    open_nofollow(
        path,
        OpenOptions::new().create(true).truncate(false).read(true).write(true),
        "open",
    )
}

/// Flushes a folder's entries (the rename) to disk; best effort, as some file systems refuse.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/file.md");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(read(&path, DEFAULT_FILE_LIMIT).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself remains");
    }

    #[test]
    fn a_file_written_with_its_blocks_reserved_holds_exactly_its_bytes() {
        // Reserving takes the file's length; a longer or shorter reservation would show as a
        // file of another size. Larger, smaller and empty replacements, through both writers
        // that reserve.
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        let derived = dir.path().join("derived.tsv");
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for bytes in [&big[..], b"short", b"", &big[..100_001]] {
            write_locked(&index, bytes).unwrap();
            write_derived(&derived, bytes, false).unwrap();
            for path in [&index, &derived] {
                assert_eq!(fs::metadata(path).unwrap().len(), bytes.len() as u64);
                assert_eq!(read(path, u64::MAX).unwrap(), bytes);
            }
        }
        assert!(!dir.path().join("index.lock").exists());
    }

    #[cfg(unix)]
    #[test]
    fn write_atomic_keeps_or_sets_an_ordinary_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        write_atomic(&path, b"one").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn write_atomic_replaces_a_link_itself_and_append_refuses_one() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        create_dir_all(&ws.join("memory/meta")).unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "precious").unwrap();
        let log = ws.join("memory/meta/audit.log");
        std::os::unix::fs::symlink(&outside, &log).unwrap();
        let err = append(&log, b"x").unwrap_err();
        assert!(err.is_link_refusal(), "{err}");
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        let err = open_lock_file(&log).unwrap_err();
        assert!(err.is_link_refusal(), "{err}");
        // A state folder that is a link: refused for appends and the lock, whatever it leads to.
        let state = dir.path().join("state");
        create_dir_all(&state).unwrap();
        std::os::unix::fs::symlink(&state, ws.join(".cogmem")).unwrap();
        assert!(append(&ws.join(".cogmem/access.log"), b"x").unwrap_err().is_link_refusal());
        assert!(open_lock_file(&ws.join(".cogmem/lock")).unwrap_err().is_link_refusal());
        assert_eq!(fs::read_dir(&state).unwrap().count(), 0);
        // The rename replaces the link itself; the file it led to is untouched.
        write_atomic(&log, b"new").unwrap();
        assert!(!fs::symlink_metadata(&log).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    }

    #[cfg(unix)]
    #[test]
    fn read_listed_reads_files_and_checks_a_link_as_read_does() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let entities = ws.join("memory/graph/entities");
        create_dir_all(&entities).unwrap();
        fs::write(ws.join("MEMORY.md"), "# Memory\n").unwrap();
        fs::write(entities.join("person--ann.md"), "# person--ann\n").unwrap();
        assert_eq!(read_listed(&entities.join("person--ann.md"), 100).unwrap(), b"# person--ann\n");
        assert!(read_listed(&entities.join("person--ann.md"), 5).is_err(), "over the limit");
        // A link out of the workspace (one that appeared after the listing): refused.
        let outside = dir.path().join("secret.md");
        fs::write(&outside, "secret").unwrap();
        std::os::unix::fs::symlink(&outside, entities.join("evil.md")).unwrap();
        let err = read_listed(&entities.join("evil.md"), 100).unwrap_err();
        assert!(err.is_link_refusal(), "{err}");
        // A link inside it: read, as `read` reads it.
        std::os::unix::fs::symlink(ws.join("MEMORY.md"), entities.join("inside.md")).unwrap();
        assert_eq!(read_listed(&entities.join("inside.md"), 100).unwrap(), b"# Memory\n");
        assert!(read_listed(&entities.join("gone.md"), 100).is_err());
    }

    #[test]
    fn errors_name_the_path() {
        let err = read(Path::new("/nonexistent/cogmem/x.md"), DEFAULT_FILE_LIMIT).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/cogmem/x.md: cannot read"), "{err}");
    }
}
