//! The background `git repack` (see `cogmem::git::is_repack_due`): the library says when one is
//! due; starting a process that outlives the command is the binary's business.

use std::path::Path;
use std::process::{Command, Stdio};

/// Starts `git repack -d -l -q --geometric=2` (`cogmem::git::REPACK_ARGS`; without
/// `--geometric` for a git older than 2.32) on the repository at `git_dir` and does not wait
/// for it, unless one runs already. A shell runs git and then removes the lock, whatever
/// becomes of this process; without `sh` or `git` on `PATH` nothing happens.
pub fn launch(git_dir: &Path) {
    let Some(lock) = cogmem::git::claim_repack(git_dir) else { return };
    let script = format!(
        "git --git-dir \"$1\" {} || git --git-dir \"$1\" {}; rm -f \"$2\"",
        cogmem::git::REPACK_ARGS.join(" "),
        cogmem::git::REPACK_ARGS_PLAIN.join(" ")
    );
    let child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("cogmem-repack")
        .arg(git_dir)
        .arg(&lock)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match child {
        // Reaped by a thread when a long-running command (`cogmem mcp`) outlives it.
        Ok(mut c) => drop(std::thread::spawn(move || c.wait())),
        Err(_) => cogmem::git::release_repack(&lock),
    }
}
