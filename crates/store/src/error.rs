//! The store layer's error type and the one place that sorts its errors into user faults, rule
//! refusals and bugs. Each concern has its own enum; [`Error`] wraps them. Every error about a
//! file names the file (and line where there is one); [`Error::hint`] gives the next step to
//! take. The index and operation layers extend it with their own concerns.

pub use cogmem_text::error::{AllowCommand, ErrorKind, InputError, RuleError};

use crate::git::GitError;
use crate::settings::SettingsError;
use crate::store::StoreError;
use crate::store::fsx::IoError;
use crate::template::TemplateError;
use crate::workspace::WorkspaceError;

/// A `Result` with the store layer's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error the store layer returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A workspace file is malformed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `cogmem.toml` is malformed.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The workspace is missing, locked or has hand edits in the way.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A git operation failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The request itself is invalid.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A rule refused the change.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A built-in template is broken (a bug).
    #[error(transparent)]
    Template(#[from] TemplateError),
}

impl Error {
    /// Returns who is at fault: the user, a rule, or cogmem/the environment.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Io(e) => e.kind(),
            Self::Store(_) | Self::Settings(_) | Self::Input(_) => ErrorKind::User,
            Self::Workspace(e) => e.kind(),
            Self::Git(e) => e.kind(),
            Self::Rule(_) => ErrorKind::Conflict,
            Self::Template(_) => ErrorKind::Internal,
        }
    }

    /// Returns the next step the user should take, with the command in backticks.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Io(e) => e.hint(),
            Self::Store(e) => e.hint(),
            Self::Settings(e) => e.hint(),
            Self::Workspace(e) => e.hint(),
            Self::Git(e) => e.hint(),
            Self::Input(e) => e.hint(),
            Self::Rule(e) => e.hint(),
            Self::Template(_) => Some("this is a bug in cogmem; please report it".into()),
        }
    }

    /// Returns whether the error is a write to a closed pipe (the reader went away).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Io(e) if e.is_broken_pipe())
    }
}

/// Implements `From<E>` for a layer's error type for every error enum of the store layer, through
/// its `Store` variant, so `?` works on them in the layers above.
#[macro_export]
macro_rules! from_store_errors {
    ($target:ty) => {
        $crate::from_store_errors!(
            @each $target,
            $crate::store::fsx::IoError,
            $crate::store::StoreError,
            $crate::settings::SettingsError,
            $crate::workspace::WorkspaceError,
            $crate::git::GitError,
            $crate::error::InputError,
            $crate::error::RuleError,
            $crate::template::TemplateError
        );
    };
    (@each $target:ty, $($source:ty),*) => {
        $(
            impl From<$source> for $target {
                fn from(e: $source) -> Self {
                    Self::Store($crate::error::Error::from(e))
                }
            }
        )*
    };
}
