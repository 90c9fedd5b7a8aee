//! cogmem's operations: one module per user-level operation. The CLI, the MCP server and any
//! later adapter call only these, so they behave the same and report the same errors. Every
//! mutating operation takes the workspace lock and goes through the store's change engine;
//! reading operations never commit. Nothing here prints, prompts, reads the environment or exits.

#![warn(missing_docs, clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]
#![warn(unreachable_pub)]

pub mod adopt;
pub mod audit;
pub mod browse;
pub mod context;
pub mod decay;
pub mod doctor;
pub mod error;
pub mod flag;
pub mod forget;
pub mod graph;
pub mod hear;
pub mod history;
pub mod hook;
pub mod id;
pub mod identity;
pub mod import;
pub mod init;
pub mod observe;
pub mod overview;
pub mod propose;
pub mod purge;
pub mod recovery;
pub mod reflect;
pub mod remember;
pub mod remote;
pub mod removal;
pub mod review;
pub mod role;
pub mod search;
pub mod setup;
pub mod status;
pub mod sync;
pub mod upkeep;
pub mod vocabulary;
pub mod watch;

pub use cogmem_text::{Clock, FixedClock, SystemClock, Timestamp};
pub use error::{Error, ErrorKind, Result};
