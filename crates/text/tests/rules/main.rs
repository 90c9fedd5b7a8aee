//! The text crate's table tests: the labelled trigger tables in `tests/fixtures/`, and case
//! tables for the trigger and routing rules. They need no file but the fixtures, no git and no
//! index, so `cargo test -p cogmem-text` runs them without building libgit2 or tantivy.

#![allow(clippy::disallowed_methods, reason = "tests read the fixture tables directly")]

mod date_cases;
mod entity_table;
mod learned;
mod people_cases;
mod route_cases;
mod routing_table;
mod trigger_cases;
mod trigger_table;
