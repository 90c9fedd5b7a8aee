//! cogmem's store layer: the workspace on disk. The files in a workspace are the truth; git is
//! the history. Every mutation goes through [`change`], which takes the workspace lock, writes
//! files atomically, appends one line per file to `memory/meta/audit.log` and makes exactly one
//! git commit, or, on any failure, puts every touched file back as it was in `HEAD`.
//!
//! One module owns each file format ([`store`]'s modules, [`audit`], [`vocab`], [`settings`]);
//! [`workspace`] holds the layout, discovery, the lock and the journal; [`git`] the repository.
//! Invariant: nothing here depends on derived data (the search index, the graph) or on the
//! operations above it, and nothing here prints or reads the process environment.

#![warn(
    unreachable_pub,
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used
)]

pub mod access;
pub mod audit;
pub mod change;
pub mod decay;
pub mod error;
pub mod git;
mod git_index;
mod git_loose;
mod git_tree;
pub mod host_config;
pub mod progress;
pub mod secrets;
pub mod settings;
pub mod store;
pub mod template;
pub mod timing;
pub mod vocab;
pub mod workspace;

pub use cogmem_text::{Clock, FixedClock, SystemClock, Timestamp};
pub use error::{Error, ErrorKind, Result};
pub use workspace::Workspace;
