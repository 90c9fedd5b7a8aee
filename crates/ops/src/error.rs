//! The public error type of the operations, which every adapter turns into output: the store
//! layer's errors, the search index's and the git remote's. [`Error::kind`] sorts them into user
//! faults, rule refusals and bugs; [`Error::hint`] gives the next step to take.

pub use cogmem_store::error::{ErrorKind, InputError, RuleError};

use crate::remote::RemoteError;
use cogmem_index::index::IndexError;

/// A `Result` with cogmem's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error an operation returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the store layer: files, settings, git, a request or a rule.
    #[error(transparent)]
    Store(#[from] cogmem_store::Error),
    /// The derived search index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Syncing with a git remote failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

cogmem_store::from_store_errors!(Error);

impl From<cogmem_index::Error> for Error {
    fn from(e: cogmem_index::Error) -> Self {
        match e {
            cogmem_index::Error::Store(e) => Self::Store(e),
            cogmem_index::Error::Index(e) => Self::Index(e),
        }
    }
}

impl Error {
    /// Returns who is at fault: the user, a rule, or cogmem/the environment.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Store(e) => e.kind(),
            Self::Index(e) => e.kind(),
            Self::Remote(e) => e.kind(),
        }
    }

    /// Returns the next step the user should take, with the command in backticks.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Store(e) => e.hint(),
            Self::Index(e) => e.hint(),
            Self::Remote(e) => e.hint(),
        }
    }

    /// Returns whether the error is the workspace lock held by another command for the whole
    /// timeout.
    pub fn is_locked(&self) -> bool {
        matches!(
            self,
            Self::Store(cogmem_store::Error::Workspace(
                cogmem_store::workspace::WorkspaceError::Locked { .. }
            ))
        )
    }

    /// Returns whether the error is an id that names nothing: a memory, an entity, a commit, a
    /// proposal or a flag (the web view answers these with 404).
    pub fn is_not_found(&self) -> bool {
        use cogmem_store::error::InputError as I;
        matches!(
            self,
            Self::Store(cogmem_store::Error::Input(
                I::UnknownId { .. }
                    | I::UnknownEntity { .. }
                    | I::MissingEntity { .. }
                    | I::UnknownCommit { .. }
                    | I::UnknownProposal { .. }
                    | I::UnknownFlag { .. }
            ))
        )
    }

    /// Returns whether the error is a write to a closed pipe (the reader went away).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Store(e) if e.is_broken_pipe())
    }

    /// Returns the texts of the error's causes (its `source` chain, outermost first) that its
    /// message and the causes before them do not already say: the one list the CLI's
    /// `caused by:` lines, the MCP server's error text and the web view's messages are made of.
    ///
    /// A cause an error's message already says is left out, so it is not said twice (the house
    /// style has an error either say its cause or expose it as its source, never both; this
    /// keeps a library error that does both from repeating itself).
    pub fn causes(&self) -> Vec<String> {
        let mut said = self.to_string();
        let mut causes = Vec::new();
        for cause in std::iter::successors(std::error::Error::source(self), |e| e.source()) {
            let text = cause.to_string();
            if text.is_empty() || said.contains(&text) {
                continue;
            }
            said.push('\n');
            said.push_str(&text);
            causes.push(text);
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use cogmem_store::store::fsx::IoError;

    use super::*;

    #[test]
    fn a_cause_the_message_already_says_is_not_repeated() {
        let dir = io::Error::from_raw_os_error(21);
        let e = Error::from(IoError::new("notes", "read", dir));
        assert!(e.to_string().ends_with("cannot read: Is a directory (os error 21)"), "{e}");
        assert!(std::error::Error::source(&e).is_none(), "said in the message, not a source too");
        assert_eq!(e.causes(), Vec::<String>::new());
        let other = Error::from(IoError::new("notes", "read", io::Error::other("disk on fire")));
        assert_eq!(other.causes(), Vec::<String>::new(), "{other}");
    }
}
