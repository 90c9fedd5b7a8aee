//! cogmem's derived layer, read-only over the store: the tantivy search index in
//! `.cogmem/index/` ([`index`]), the petgraph cognitive map built from the entity files
//! ([`graph`]), spreading activation, and the token-budget packer for context packs ([`pack`]).
//!
//! Invariant: never the canonical copy. Everything here can be rebuilt from the files; nothing
//! here writes a workspace file or makes a commit (it writes only inside `.cogmem/`).

#![warn(
    unreachable_pub,
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used
)]

pub mod embed;
pub(crate) mod error;
pub mod graph;
pub mod index;
pub(crate) mod listings;
pub mod pack;
pub mod summary;
#[cfg(test)]
pub(crate) mod test_rng;

pub use cogmem_text::{Clock, FixedClock, SystemClock, Timestamp};
pub use error::{Error, Result};
