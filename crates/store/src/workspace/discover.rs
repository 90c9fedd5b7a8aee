//! Finding the workspace for a command, like git finds a repository: an explicit path
//! (`--workspace` or `COGMEM_WORKSPACE`, which the caller resolves), else the current folder and
//! its parents.

use std::path::Path;

use super::{Workspace, WorkspaceError, layout};

/// Opens the workspace at `explicit` if given, else the nearest one at or above `start`.
pub fn discover(explicit: Option<&Path>, start: &Path) -> crate::Result<Workspace> {
    if let Some(path) = explicit {
        let path = if path.is_absolute() { path.to_owned() } else { start.join(path) };
        // `--workspace ..` names the parent folder, as the current folder is named: without
        // `.` and `..` (the folder as the system resolves it; left as given if it cannot be,
        // for the error to name).
        let path = path.canonicalize().unwrap_or(path);
        return Workspace::open(&path);
    }
    let mut dir = Some(start);
    while let Some(d) = dir {
        if layout::is_workspace(d) {
            return Workspace::open(d);
        }
        dir = d.parent();
    }
    Err(WorkspaceError::NotFound { start: start.to_owned() }.into())
}
