//! Starting this program again in the background, on a workspace, for work that outlives the
//! command that wants it: the index update after a write, the merge of the index's segments,
//! and the read server a hook starts for an agent's session. The child's output goes nowhere
//! and its environment is this one's, less what would make it time or crash itself.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::env;

/// `cogmem --quiet --workspace ROOT` (this program), ready for a subcommand and its arguments,
/// with no input or output and without the timing and crash-point variables; `None` without
/// this program's path.
pub fn command(root: &Path) -> Option<Command> {
    let exe = std::env::current_exe().ok()?;
    let mut cmd = Command::new(exe);
    cmd.arg("--quiet")
        .arg("--workspace")
        .arg(root)
        .env_remove(env::TIMINGS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(feature = "crash-points")]
    cmd.env_remove(env::CRASH_AT);
    Some(cmd)
}

/// Starts `cmd` without waiting for it; a thread reaps it when a long-running caller
/// (`cogmem mcp`) outlives it. `false` when it could not be started.
pub fn spawn(mut cmd: Command) -> bool {
    match cmd.spawn() {
        Ok(child) => {
            reap(child);
            true
        }
        Err(_) => false,
    }
}

/// [`spawn`] in a process group of its own: a host that ends the hook's group when it times
/// out, a terminal's hang-up or its Ctrl-C does not end the child with it.
pub fn spawn_detached(mut cmd: Command) -> bool {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    spawn(cmd)
}

fn reap(mut child: Child) {
    drop(std::thread::spawn(move || child.wait()));
}
