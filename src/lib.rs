//! cogmem keeps an AI agent's long-term memory as plain Markdown files under git.
//!
//! The files in a workspace are the truth; git is the history. Every mutation goes through
//! [`change`], which takes the workspace lock, writes files atomically, appends one line per file
//! to `memory/meta/audit.log` and makes exactly one git commit — or, on any failure, puts every
//! touched file back as it was in `HEAD`.
//!
//! The library never prints and never reads the process environment: the binary (`src/cli/`)
//! and the MCP server ([`mcp`]) are adapters over [`ops`].
//!
//! Layers, from the outside in: [`ops`] (one module per user-level operation) → [`change`] →
//! [`store`], [`audit`], [`git`]. Nothing in [`store`] depends on derived data.

#![warn(missing_docs, clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

pub mod access;
pub mod audit;
pub mod change;
pub mod clock;
pub mod decay;
pub mod error;
pub mod git;
pub mod graph;
pub mod index;
pub mod mcp;
pub mod ops;
pub mod pack;
pub mod route;
pub mod secrets;
pub mod settings;
pub mod store;
pub mod template;
pub mod timing;
pub mod tokens;
pub mod trigger;
pub mod workspace;

pub use clock::{Clock, FixedClock, SystemClock, Timestamp};
pub use error::{Error, ErrorKind, Result};
pub use workspace::Workspace;
