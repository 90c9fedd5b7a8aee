//! Embedding cogmem in a program: no binary, no environment variables, no global state.
//!
//! Creates a workspace in a temporary folder, remembers two memories through the library,
//! searches them and prints the hits. Run it with `cargo run --example embed`.
//!
//! Everything a program chooses is a value: the clock, the actor, the workspace (opened with
//! `Workspace::open`, its limits from its own `cogmem.toml`) and its options
//! (`WorkspaceOptions`: how long a read waits for `cogmem watch`, and what to do when git's
//! loose objects pile up; by default nothing is started in the background, and a long-running
//! program may call `cogmem::git::repack` when it suits it).

use std::io::Write;
use std::path::Path;

use cogmem::audit::Actor;
use cogmem::ops::remember::{RememberRequest, remember};
use cogmem::{SystemClock, Workspace};

/// Lays out a workspace in `dir`, remembers two memories, searches for `query` and writes one
/// line per hit to `out`. Returns the number of hits.
pub fn run(
    dir: &Path,
    query: &str,
    out: &mut impl Write,
) -> Result<usize, Box<dyn std::error::Error>> {
    let clock = SystemClock;
    cogmem::ops::init::init(dir, &clock)?;
    let ws = Workspace::open(dir)?;
    for text in ["Alice prefers green tea in the morning", "The Atlas project ships on Friday"] {
        let request = RememberRequest::new(text, Actor::manual())?;
        let report = remember(&ws, &request, &clock)?;
        writeln!(out, "remembered: {text} ({})", report.files.join(", "))?;
    }
    let options = cogmem::index::search::SearchOptions { limit: 10, ..Default::default() };
    let report = cogmem::ops::search::search(&ws, query, &options, &clock)?;
    writeln!(out, "search {query:?}: {} hit(s)", report.hits.len())?;
    for hit in &report.hits {
        writeln!(out, "{:6.3}  {}  {}", hit.score, hit.id, hit.text.trim())?;
    }
    Ok(report.hits.len())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    run(&dir.path().join("agent-memory"), "tea", &mut std::io::stdout().lock())?;
    Ok(())
}
