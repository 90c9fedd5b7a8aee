//! The background merge of the search index's segments (`cogmem::index::merge`): the index
//! says when one is due; starting a process that outlives the command is the binary's
//! business, as for `git repack` (`repack.rs`). A write never waits for a merge (issue 20).

use super::exit::Exit;
use super::{Ctx, background, render};
use std::path::Path;

/// Merge the search index's segments
///
/// cogmem starts this in the background when an update of the index leaves segments to
/// merge, so that no write waits for a merge. Does nothing while another merge runs.
#[derive(clap::Args, Debug)]
pub struct MergeIndexArgs {}

/// Starts `cogmem merge-index` on the workspace at `root` and does not wait for it. The
/// child's output goes nowhere; it is reaped by a thread when a long-running command
/// (`cogmem mcp`) outlives it. Without this program's path nothing happens.
pub fn launch(root: &Path) {
    if let Some(mut cmd) = background::command(root) {
        cmd.arg("merge-index");
        background::spawn(cmd);
    }
}

pub fn run(ctx: &Ctx, _: &MergeIndexArgs) -> cogmem::Result<Exit> {
    // Derived data only: no recovery, purge or adoption (those belong to the next command).
    let ws = ctx.discover()?;
    let report = cogmem::index::merge::run(&ws)?;
    if ctx.global.json {
        render::json(&report)?;
    } else if !report.skipped {
        render::status(
            ctx.global.quiet,
            &format!(
                "merged the index: {} segments → {}\n",
                report.segments_before, report.segments_after
            ),
        );
    }
    Ok(Exit::Ok)
}
