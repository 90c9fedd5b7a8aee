//! Finishing what a killed change left, before a command starts, so that the command can say
//! so. Taking the workspace lock already undoes a dead process's change journal (putting its
//! files back and committing what it left to `refs/cogmem/recovered/…`); done here first, the
//! adapter gets the [`Recovered`] record to show, instead of the recovery happening unseen
//! inside whatever command takes the lock next (issue 16).
//!
//! Never waits for a live command: its journal is its own, not an interrupted one.

use cogmem_store::workspace::journal::{self, Recovered};
use cogmem_store::workspace::{LockProbe, Workspace};

/// Undoes the change journal a dead process left, when there is one and no running command
/// holds the lock; returns what was put back and where what it left was kept, or `None` when
/// there was nothing to undo (no journal, a change in flight, or a committed change whose
/// journal was only removed).
///
/// Fails as taking the lock fails (it could not be had in time, the lock file cannot be
/// written) or as the recovery does (a malformed journal, named by its path).
pub fn finish_interrupted(ws: &Workspace) -> crate::Result<Option<Recovered>> {
    if !journal::pending(ws.root()) || matches!(ws.probe_lock()?, LockProbe::Held { .. }) {
        return Ok(None);
    }
    // Any caller may finish it, a sub-agent's command included: putting back what a dead
    // process half-wrote is not the caller's change, and every lock holder does it anyway.
    let lock = ws.lock_to_propose()?;
    Ok(lock
        .recovered()
        .filter(|r| r.saved_ref.is_some() || !r.restored.is_empty() || !r.removed_temp.is_empty())
        .cloned())
}
