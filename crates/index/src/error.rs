//! The index layer's error type: the store layer's errors, and the derived search index's own.

pub(crate) use cogmem_store::error::{ErrorKind, InputError};

use crate::index::IndexError;

/// A `Result` with the index layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error the index layer returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the store layer: files, settings, git, a request or a rule.
    #[error(transparent)]
    Store(#[from] cogmem_store::Error),
    /// The derived search index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
}

cogmem_store::from_store_errors!(Error);

impl Error {
    /// Returns who is at fault: the user, a rule, or cogmem/the environment.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Store(e) => e.kind(),
            Self::Index(e) => e.kind(),
        }
    }

    /// Returns the next step the user should take, with the command in backticks.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Store(e) => e.hint(),
            Self::Index(e) => e.hint(),
        }
    }
}
