//! cogmem's text layer: everything about memory text that needs no file, no index and no
//! repository. Whether a message asks to remember ([`trigger`]), where a memory belongs
//! ([`route`]) and a one-sentence how-to's title and steps ([`howto`]), who people are to the user ([`kin`]), the words of a text ([`word`]) and those
//! too common to mean anything ([`stopword`]), Markdown helpers ([`markdown`]), the time
//! ([`clock`]), reading dates and times ([`date`]), what a search query asks ([`question`]), token estimates ([`tokens`]), the model's
//! vocabulary ([`model`]), the forms of memory and entity ids ([`id`]), the nearest known names
//! for did-you-mean hints ([`suggest`]), words quoted for a shell ([`shell`]) and the request and
//! rule errors ([`error`]).
//!
//! Invariant: no I/O, and no dependency on git, tantivy, rmcp, tokio or clap
//! (`tests/it/layering.rs` checks the dependency tree), so its tests build and run in seconds.

#![warn(
    unreachable_pub,
    missing_docs,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used
)]

pub mod clock;
pub mod date;
pub mod error;
pub mod howto;
pub mod id;
pub mod json;
pub mod kin;
pub mod markdown;
pub mod merge;
pub mod model;
pub mod names;
pub mod question;
pub mod route;
pub mod shell;
pub mod stopword;
pub mod suggest;
pub mod tokens;
pub mod trigger;
pub mod word;

pub use clock::{Clock, FixedClock, SystemClock, Timestamp};
