//! The background update of the search index after a change (issue 20): the library takes the
//! index lock once a change is committed and hands it to this program's hook, which starts
//! `cogmem update-index` holding it, so the command that wrote returns without waiting for
//! tantivy. A read that comes before the update is done waits for the lock, as it would for a
//! command still indexing its own change.

use std::fs::File;
use std::path::Path;
use std::process::Stdio;

use super::exit::Exit;
use super::{Ctx, background};

/// Above this many files the child is not told which (an argument list has a limit) and
/// compares every file with the index instead.
const MAX_PATHS: usize = 1000;

/// Bring the search index up to date with files just committed
///
/// cogmem starts this in the background after a write, holding the index lock on its
/// standard input; run by hand it takes the lock itself. With no FILES every memory file is
/// compared with the index.
#[derive(clap::Args, Debug)]
pub struct UpdateIndexArgs {
    /// Files (relative to the workspace root) that the change committed
    files: Vec<String>,
}

/// Starts `cogmem update-index FILES` on the workspace at `root` with `lock` (the index lock,
/// held) as its standard input, and does not wait for it: the lock is the child's until it
/// ends. Gives the lock back when the child cannot be started. The child's output goes
/// nowhere; it is reaped by a thread when a long-running caller outlives it.
pub fn launch(root: &Path, lock: File, files: &[String]) -> Result<(), File> {
    let Some(mut cmd) = background::command(root) else { return Err(lock) };
    let Ok(stdin) = lock.try_clone() else { return Err(lock) };
    cmd.arg("update-index");
    if files.len() <= MAX_PATHS {
        cmd.arg("--").args(files);
    }
    cmd.stdin(Stdio::from(stdin));
    if background::spawn(cmd) { Ok(()) } else { Err(lock) }
}

pub fn run(ctx: &Ctx, args: &UpdateIndexArgs) -> cogmem::Result<Exit> {
    // Derived data only: no recovery, purge or adoption (those belong to the next command).
    let ws = ctx.discover()?;
    // Standard input as a file of its own: a duplicate of the descriptor, so the same open
    // file and the same lock.
    let inherited = {
        use std::os::fd::AsFd;
        std::io::stdin().as_fd().try_clone_to_owned().ok().map(File::from)
    };
    cogmem::index::update_handed_over(&ws, inherited, &args.files);
    Ok(Exit::Ok)
}
