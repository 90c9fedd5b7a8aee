//! The background merge of the search index's segments (`cogmem::index::merge`): the index
//! says when one is due; starting a process that outlives the command is the binary's
//! business, as for `git repack` (`repack.rs`). A write never waits for a merge (issue 20).

use std::path::Path;
use std::process::{Command, Stdio};

use super::exit::Exit;
use super::{Ctx, env, render};

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
    let Ok(exe) = std::env::current_exe() else { return };
    let mut cmd = Command::new(exe);
    cmd.arg("--quiet")
        .arg("--workspace")
        .arg(root)
        .arg("merge-index")
        .env_remove(env::TIMINGS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(feature = "crash-points")]
    cmd.env_remove(env::CRASH_AT);
    let child = cmd.spawn();
    if let Ok(mut c) = child {
        drop(std::thread::spawn(move || c.wait()));
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
