//! A workspace: the folder that holds an agent's memory, its settings, and the lock that lets
//! only one cogmem process change it at a time.
//!
//! Finding a workspace works like git finding a repository ([`discover`]); every path a
//! workspace has is named in [`layout`].

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::ErrorKind;
use crate::settings::Settings;
use crate::store::fsx::{self, IoError};

pub mod discover;
pub mod journal;
pub mod layout;

/// Problems with the workspace as a whole.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No workspace in the folder or any parent.
    #[error("not inside a cogmem workspace (searched {} and its parents)", start.display())]
    NotFound {
        /// Where the search started.
        start: PathBuf,
    },
    /// The folder named by `--workspace` or `COGMEM_WORKSPACE` is not a workspace.
    #[error("{} is not a cogmem workspace (it has no MEMORY.md and memory/ folder)", path.display())]
    NotAWorkspace {
        /// The folder.
        path: PathBuf,
    },
    /// The workspace has no git repository of its own.
    #[error("{} has no git repository", path.display())]
    NoRepository {
        /// The workspace root.
        path: PathBuf,
    },
    /// Another process held the lock for the whole wait.
    #[error("{} is locked by another cogmem command (waited {waited_ms} ms)", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How long the wait was.
        waited_ms: u64,
    },
    /// Files the change would touch have uncommitted edits.
    #[error("uncommitted edits in the way: {}", paths.join(", "))]
    HandEdited {
        /// The edited files, relative to the workspace root.
        paths: Vec<String>,
    },
}

impl WorkspaceError {
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Self::HandEdited { .. } => ErrorKind::Conflict,
            _ => ErrorKind::User,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            Self::NotFound { .. } | Self::NotAWorkspace { .. } => {
                "create one with `cogmem init`, or point to one with `--workspace PATH` or \
                 COGMEM_WORKSPACE"
                    .into()
            }
            Self::NoRepository { .. } => {
                "run `cogmem init` in the workspace to start its git history".into()
            }
            Self::Locked { .. } => {
                "wait for the other command to finish and try again; the lock is released when \
                 its process exits, or raise `lock.timeout_ms` in cogmem.toml"
                    .into()
            }
            Self::HandEdited { .. } => {
                "commit or discard those edits first (`git add -A && git commit`), so that \
                 cogmem's commit does not swallow them"
                    .into()
            }
        })
    }
}

/// An open workspace: its root folder and settings.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    settings: Settings,
}

/// Proof that this process holds the workspace lock; dropping it releases the lock.
///
/// While held, the lock file names the holder (`pid N`); a clean release empties it. A lock file
/// that still names a process when the lock is free was left by a process that died holding it
/// (killed, or the machine stopped): the next holder takes it over and says so in
/// [`LockGuard::took_over`], so that `cogmem doctor` can look for the change it interrupted.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
    took_over: Option<LockRecord>,
    recovered: Option<journal::Recovered>,
}

impl LockGuard {
    /// The record a dead holder left behind, when this lock was taken over from one.
    pub fn took_over(&self) -> Option<&LockRecord> {
        self.took_over.as_ref()
    }

    /// What taking the lock did with a change journal a dead process left (see
    /// [`journal`]): nothing when there was none.
    pub fn recovered(&self) -> Option<&journal::Recovered> {
        self.recovered.as_ref()
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Empty the record before the OS lock goes with the file handle; best effort (a
        // record left behind only makes the next holder report a takeover).
        let _ = self.file.set_len(0);
    }
}

/// What the workspace lock file says about its holder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LockRecord {
    /// The holder's process id.
    pub pid: u32,
    /// Whether that process still runs (`None` where the platform cannot tell).
    pub alive: Option<bool>,
}

impl LockRecord {
    /// Reads a record (`pid N`); `None` for an empty or unreadable one.
    fn parse(text: &str) -> Option<Self> {
        let pid = text.lines().find_map(|l| l.trim().strip_prefix("pid "))?.trim().parse().ok()?;
        Some(Self { pid, alive: process_alive(pid) })
    }
}

/// Tells whether a process runs, where the platform can tell without unsafe code.
fn process_alive(pid: u32) -> Option<bool> {
    if cfg!(target_os = "linux") { Some(Path::new(&format!("/proc/{pid}")).exists()) } else { None }
}

/// The workspace lock as another process sees it, without waiting and without changing it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum LockProbe {
    /// Nobody holds it and it names nobody.
    Free,
    /// Nobody holds it, but it names a process that died holding it.
    Stale {
        /// The record left behind.
        record: LockRecord,
    },
    /// A running command holds it.
    Held {
        /// The holder, if its record is readable yet.
        record: Option<LockRecord>,
    },
}

fn read_record(file: &mut File) -> Option<LockRecord> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    LockRecord::parse(&text)
}

impl Workspace {
    /// Opens the workspace at `root`, loading `cogmem.toml`.
    ///
    /// Fails when `root` is not a workspace or its settings are malformed.
    pub fn open(root: &Path) -> crate::Result<Self> {
        if !layout::is_workspace(root) {
            return Err(WorkspaceError::NotAWorkspace { path: root.to_owned() }.into());
        }
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
        let settings = Settings::load(&root)?;
        crate::store::fsx::set_file_limit(settings.limits.file_bytes);
        Ok(Self { root, settings })
    }

    /// Builds a workspace for a folder that is being laid out (`init`), without the check
    /// that it already is one.
    pub fn preparing(root: &Path, settings: Settings) -> Self {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
        Self { root, settings }
    }

    /// Returns the root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Returns the settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Returns the absolute path of a workspace-relative path.
    pub fn abs(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Takes the workspace lock, waiting up to `lock.timeout_ms`.
    ///
    /// The lock is an OS file lock on `.cogmem/lock`, so it is released even when the holder is
    /// killed. Fails with [`WorkspaceError::Locked`] when the wait runs out.
    pub fn lock(&self) -> crate::Result<LockGuard> {
        let path = self.abs(layout::LOCK);
        let file = fsx::open_lock_file(&path)?;
        let timeout = Duration::from_millis(self.settings.lock.timeout_ms);
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => {
                    let mut guard = Self::hold(file, &path)?;
                    // Holding the lock, a change journal can only be a dead process's.
                    if journal::pending(&self.root) {
                        guard.recovered = journal::recover(&self.root)?;
                    }
                    return Ok(guard);
                }
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => return Err(IoError::new(&path, "lock", e).into()),
            }
            let waited = started.elapsed();
            if waited >= timeout {
                return Err(WorkspaceError::Locked {
                    path,
                    waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                }
                .into());
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Writes this process's record into the freshly locked file, noting a dead holder's.
    fn hold(mut file: File, path: &Path) -> crate::Result<LockGuard> {
        // We hold the OS lock, so whoever the file still names is not holding it any more.
        let took_over = read_record(&mut file).filter(|r| r.pid != std::process::id());
        let record = format!("pid {}\n", std::process::id());
        // Overwrite first and cut after, so that a process killed in between still leaves a
        // record (its own line first; the rest of the old one after it is ignored), never an
        // empty file that would hide the crash.
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(record.as_bytes()))
            .and_then(|()| file.set_len(record.len() as u64))
            .and_then(|()| file.flush())
            .map_err(|e| IoError::new(path, "write", e))?;
        Ok(LockGuard { file, took_over, recovered: None })
    }

    /// Looks at the lock without waiting for it and without changing its file: free, held by
    /// a running command, or left behind by a process that died holding it.
    pub fn probe_lock(&self) -> crate::Result<LockProbe> {
        let path = self.abs(layout::LOCK);
        if !path.exists() {
            return Ok(LockProbe::Free);
        }
        let mut file = fsx::open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => {
                let record = read_record(&mut file);
                drop(file); // closing the handle releases the OS lock; the file is unchanged
                Ok(match record {
                    Some(record) if record.pid != std::process::id() => LockProbe::Stale { record },
                    _ => LockProbe::Free,
                })
            }
            Err(TryLockError::WouldBlock) => Ok(LockProbe::Held { record: read_record(&mut file) }),
            Err(TryLockError::Error(e)) => Err(IoError::new(&path, "lock", e).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        fsx::write_atomic(&dir.path().join(layout::MEMORY_MD), b"# Memory\n").expect("write");
        fsx::create_dir_all(&dir.path().join(layout::MEMORY_DIR)).expect("mkdir");
        let ws = Workspace::open(dir.path()).expect("open");
        (dir, ws)
    }

    #[test]
    fn a_held_lock_names_its_holder_and_a_released_one_is_empty() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
        let guard = ws.lock().expect("lock");
        assert!(guard.took_over().is_none());
        let text = fsx::read_text(&ws.abs(layout::LOCK)).expect("read");
        assert_eq!(text, format!("pid {}\n", std::process::id()));
        drop(guard);
        assert_eq!(fsx::read_text(&ws.abs(layout::LOCK)).expect("read"), "");
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
    }

    #[test]
    fn a_dead_holders_lock_is_reported_stale_and_taken_over() {
        let (_dir, ws) = workspace();
        // A process id that cannot be running: above Linux's pid_max limit (2^22).
        let dead = 4_194_305;
        fsx::write_atomic(&ws.abs(layout::LOCK), format!("pid {dead}\n").as_bytes())
            .expect("write");
        match ws.probe_lock().expect("probe") {
            LockProbe::Stale { record } => {
                assert_eq!(record.pid, dead);
                if cfg!(target_os = "linux") {
                    assert_eq!(record.alive, Some(false));
                }
            }
            other => panic!("expected a stale lock, got {other:?}"),
        }
        // Probing changed nothing.
        assert_eq!(fsx::read_text(&ws.abs(layout::LOCK)).expect("read"), format!("pid {dead}\n"));
        let guard = ws.lock().expect("the stale lock is taken over at once");
        assert_eq!(guard.took_over().map(|r| r.pid), Some(dead));
        drop(guard);
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
    }
}
