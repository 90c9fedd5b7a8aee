//! A workspace: the folder that holds an agent's memory, its settings, and the lock that lets
//! only one cogmem process change it at a time.
//!
//! Finding a workspace works like git finding a repository ([`discover`]); every path a
//! workspace has is named in [`layout`].

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::ErrorKind;
use crate::settings::Settings;
use crate::store::fsx::{self, IoError};

pub mod discover;
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
#[derive(Debug)]
pub struct LockGuard {
    _file: File,
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
    pub(crate) fn preparing(root: &Path, settings: Settings) -> Self {
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
                Ok(()) => return Ok(LockGuard { _file: file }),
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
}
