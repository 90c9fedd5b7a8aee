//! The canonical stores: the Markdown and JSON files of a workspace, read and rendered.
//!
//! Modules here turn a request into new file content; they never write to disk themselves
//! (that is [`crate::change`]'s job, so that every write is part of one all-or-nothing change)
//! and never depend on derived data such as an index or a graph cache.

use std::path::PathBuf;

pub mod core_memory;
pub mod decay_file;
pub mod entity;
pub mod episode;
pub mod flags;
pub mod fsx;
#[cfg(test)]
pub(crate) mod hostile;
pub mod identity;
pub use cogmem_text::markdown;
pub mod pending;
pub mod procedure;
pub mod purged;
pub mod reflection;
pub mod units;
pub mod vault;

/// A workspace file that cannot be read as its format requires.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The file is not UTF-8 text.
    #[error("{}: not valid UTF-8 at byte {offset}", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The 0-based byte offset of the first invalid byte.
        offset: usize,
    },
    /// The file breaks its format at a line.
    #[error("{}:{line}: {what}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// An agent host's configuration file (outside the workspace) that `cogmem setup` cannot
    /// edit safely: not parseable, an unexpected shape, or a symbolic link.
    #[error("{}:{line}: {what}", path.display())]
    HostConfig {
        /// The file.
        path: PathBuf,
        /// 1-based line (1 when the problem is the whole file).
        line: usize,
        /// What is wrong.
        what: String,
        /// What to do about it.
        hint: String,
    },
}

impl StoreError {
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Self::NotUtf8 { .. } => {
                // Said without knowing whether git has the file: `git checkout` cannot restore
                // one it never had.
                Some(
                    "re-save the file as UTF-8, or remove it (a file git has is restored by \
                     `git checkout -- FILE` instead)"
                        .into(),
                )
            }
            Self::Malformed { .. } => Some(
                "fix the line by hand (see docs/formats.md), or restore the file with \
                 `git checkout -- FILE`"
                    .into(),
            ),
            Self::HostConfig { hint, .. } => Some(hint.clone()),
        }
    }
}

pub use cogmem_text::model::{Confidence, Store};

/// The result of adding a line (a bullet, a fact, a relation, procedure steps) to a Markdown
/// file: shared by [`core_memory`], [`entity`] and [`procedure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// The new file content and the 1-based line of what was added (the first new line when
    /// several were).
    Written {
        /// New file content.
        content: String,
        /// 1-based line.
        line: usize,
    },
    /// It is already in the file, at this 1-based line (for procedure steps, line 1: the file
    /// as a whole, since every step is already listed).
    Duplicate {
        /// 1-based line of what is already there.
        line: usize,
    },
}
