//! cogmem keeps an AI agent's long-term memory as plain Markdown files under git.
//!
//! This crate is the facade over cogmem's layers, one crate each under `crates/`, so that a
//! program embedding cogmem (and the `cogmem` binary, and the integration tests) names one
//! crate. From the bottom up: `cogmem-text` (pure text: triggers, routing, words, dates, token
//! estimates), `cogmem-store` (the files, git and the change engine), `cogmem-index` (derived:
//! the search index and the graph), `cogmem-ops` (the operations every adapter calls). The MCP
//! adapter (`cogmem-mcp`) is not re-exported: an embedder that wants no async runtime does not
//! link one.
//!
//! ```no_run
//! use cogmem::index::search::SearchOptions;
//! use cogmem::{SystemClock, Workspace};
//! let ws = Workspace::open(std::path::Path::new("agent-memory"))?;
//! let options = SearchOptions { limit: 10, ..Default::default() };
//! let report = cogmem::ops::search::search(&ws, "tea", &options, &SystemClock)?;
//! # Ok::<(), cogmem::Error>(())
//! ```
//!
//! The library keeps no process-wide settings: each `Workspace` carries its own limits (from its
//! `cogmem.toml`) and the program's choices (`workspace::WorkspaceOptions`: how long a read waits
//! for `cogmem watch`, what to do when git's loose objects pile up). It prints nothing, reads no
//! environment variable and starts no background process; `examples/embed.rs` is a whole
//! program.

pub use cogmem_index::{embed, graph, index, pack};
pub use cogmem_ops as ops;
pub use cogmem_ops::error;
pub use cogmem_store::{
    access, audit, change, decay, git, progress, secrets, settings, store, template, timing, vocab,
    workspace,
};
pub use cogmem_text::{clock, date, markdown, model, route, shell, tokens, trigger, word};

pub use cogmem_ops::{Error, ErrorKind, Result};
pub use cogmem_store::Workspace;
pub use cogmem_text::{Clock, FixedClock, SystemClock, Timestamp};
