//! What the web view's overview shows (issue 21): `status`, with what waits for a person — the
//! open proposals and where the reflection cycle stands. Read-only.

use serde::Serialize;

use crate::reflect;
use crate::status::{self, StatusReport};
use cogmem_store::workspace::Workspace;

/// What `overview` reports.
#[derive(Debug, Clone, Serialize)]
pub struct OverviewReport {
    /// `cogmem status`'s report.
    pub status: StatusReport,
    /// Proposals still open (pending, deferred or in conflict) in
    /// memory/meta/pending-memories.md.
    pub open_proposals: usize,
    /// Proposals of that file that could not be read: (1-based line, why).
    pub unreadable_proposals: Vec<(usize, String)>,
    /// `cogmem reflect status`'s report.
    pub reflection: reflect::StatusReport,
}

/// Reports the workspace's status with the last `recent` commits, the open proposals and the
/// reflection cycle.
pub fn overview(ws: &Workspace, recent: usize) -> crate::Result<OverviewReport> {
    let status = status::status(ws, recent)?;
    let pending = crate::propose::read(ws)?;
    let open_proposals = pending.proposals.iter().filter(|p| p.status.is_open()).count();
    Ok(OverviewReport {
        status,
        open_proposals,
        unreadable_proposals: pending.problems,
        reflection: reflect::status(ws)?,
    })
}
