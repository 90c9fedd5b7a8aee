//! The queue of files waiting for the search index (issue 20): a change that commits while
//! another process holds the index lock (the previous change's update, a search) does not wait
//! for it. It adds its files to `.cogmem/index-queue` and returns; whoever holds the index
//! lock brings the index up to date with the queued files before it lets the lock go.
//!
//! The queue file is also the lock that orders the two sides: a change adds to it only while
//! it holds the queue's lock and finds the index lock taken, and a holder of the index lock
//! lets that lock go only while it holds the queue's lock and finds the queue empty. So the
//! queue is empty whenever the index lock is free, with two exceptions that the next holder
//! serves: a holder killed before it let go, and a holder that let go because someone waits
//! for the lock ([`Wanted`]: a search, while changes keep queuing, would otherwise wait as
//! long as they come). While someone waits, changes queue their files even when the lock is
//! free, for the waiter. A search indexes every stale file it finds anyway, and `verify`
//! (`state_when_idle`) serves what it finds queued, so whoever takes the workspace lock after a
//! change and then waits for the index lock finds the change's files indexed.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use cogmem_store::store::fsx::{self, IoError};
use cogmem_store::workspace::Workspace;

/// The queue, one path (relative to the root) per line. Derived data under `.cogmem/`.
pub(crate) const QUEUE_FILE: &str = ".cogmem/index-queue";

/// The queue file, locked (the lock goes with the handle).
struct Queue {
    file: File,
    path: std::path::PathBuf,
}

impl Queue {
    /// Takes the queue's lock as the index lock is taken ([`super::lock_at`]).
    fn lock(ws: &Workspace) -> crate::Result<Self> {
        Ok(Self { file: super::lock_at(ws, QUEUE_FILE)?, path: ws.abs(QUEUE_FILE) })
    }

    /// The queued paths, in order, without repeats.
    fn paths(&mut self) -> crate::Result<Vec<String>> {
        let mut text = String::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_string(&mut text))
            .map_err(|e| IoError::new(&self.path, "read", e))?;
        let mut seen = std::collections::HashSet::new();
        Ok(text.lines().filter(|l| !l.is_empty() && seen.insert(*l)).map(str::to_owned).collect())
    }

    fn add(&mut self, paths: &[String]) -> crate::Result<()> {
        let mut lines = String::new();
        // A path with a line break cannot be a memory file the index reads; it is not queued.
        for p in paths.iter().filter(|p| !p.contains(['\n', '\r'])) {
            lines.push_str(p);
            lines.push('\n');
        }
        self.file
            .seek(SeekFrom::End(0))
            .and_then(|_| self.file.write_all(lines.as_bytes()))
            .map_err(|e| IoError::new(&self.path, "write", e).into())
    }

    fn clear(&mut self) -> crate::Result<()> {
        self.file.set_len(0).map_err(|e| IoError::new(&self.path, "empty", e).into())
    }
}

/// Whether files wait in the queue (read without its lock: a hint).
pub(crate) fn has_files(ws: &Workspace) -> bool {
    fsx::read_if_exists(&ws.abs(QUEUE_FILE), 1 << 20)
        .is_ok_and(|b| b.is_some_and(|b| !b.is_empty()))
}

/// What [`take_or_queue`] did.
pub(crate) enum Taken {
    /// The index lock, taken: the caller brings the index up to date.
    Lock(File),
    /// The lock was held; the files are queued for its holder.
    Queued,
}

/// The file a process that waits for the index lock holds a shared lock on while it waits.
const WANTED_FILE: &str = ".cogmem/index-wanted";

/// Someone waiting for the index lock, said for as long as this value lives (a shared `flock`
/// on [`WANTED_FILE`]; the OS lets it go with a killed process). Best effort: when the file
/// cannot be used, nobody is told, and the wait is as before.
pub(crate) struct Wanted {
    _held: Option<File>,
}

impl Wanted {
    /// Says that the caller waits for the index lock.
    pub(crate) fn say(ws: &Workspace) -> Self {
        let file = fsx::open_lock_file(&ws.abs(WANTED_FILE)).ok();
        Self { _held: file.filter(|f| f.lock_shared().is_ok()) }
    }

    /// Whether anyone waits for the index lock now.
    pub(crate) fn by_someone(ws: &Workspace) -> bool {
        let path = ws.abs(WANTED_FILE);
        if !path.exists() {
            return false;
        }
        fsx::open_lock_file(&path)
            .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
    }
}

/// Takes the index lock without waiting, or queues `paths` for its holder when it is taken —
/// or when someone waits for it ([`Wanted`]), who will serve the queue when done.
pub(crate) fn take_or_queue(ws: &Workspace, paths: &[String]) -> crate::Result<Taken> {
    let mut queue = Queue::lock(ws)?;
    if !Wanted::by_someone(ws) {
        let path = ws.abs(super::LOCK_FILE);
        let index = fsx::open_lock_file(&path)?;
        match index.try_lock() {
            Ok(()) => return Ok(Taken::Lock(index)),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(IoError::new(&path, "lock", e).into());
            }
        }
    }
    queue.add(paths)?;
    Ok(Taken::Queued)
}

/// Lets the index lock go when nothing is queued; else, when `serve` says so, empties the queue
/// and gives back the lock with the queued paths, for the caller to index before it tries
/// again. When `serve` says no (someone waits for the lock), or on an error, the lock is let go
/// and the queue stays for the next holder. `serve` is asked only when files are queued.
pub(crate) fn release(
    ws: &Workspace,
    lock: File,
    serve: impl FnOnce() -> bool,
) -> Option<(File, Vec<String>)> {
    let Ok(mut queue) = Queue::lock(ws) else { return None };
    match queue.paths() {
        Ok(paths) if !paths.is_empty() && serve() && queue.clear().is_ok() => Some((lock, paths)),
        _ => {
            drop(lock);
            None
        }
    }
}
