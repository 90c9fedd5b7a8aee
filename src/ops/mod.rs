//! One module per user-level operation. The CLI and the MCP server call only these, so both
//! behave the same and report the same errors. Every mutating operation takes the workspace
//! lock and goes through [`crate::change`]; reading operations never commit.

pub mod audit;
pub mod context;
pub mod decay;
pub mod doctor;
pub mod forget;
pub mod graph;
pub mod hear;
pub mod identity;
pub mod import;
pub mod init;
pub mod propose;
pub mod purge;
pub mod reflect;
pub mod remember;
pub mod remote;
pub mod search;
pub mod status;
pub mod sync;
pub mod watch;
