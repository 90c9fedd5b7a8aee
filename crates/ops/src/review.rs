//! What waits for a person's decision, read in one go (issue 21): the open proposals, the
//! reflection awaiting approval with the diff each of its blocks would make, the self-image
//! consolidation's diff, and the critical-file changes nobody has acknowledged. The web view's
//! review page shows it; each part is exactly what the matching CLI command's `--json` prints
//! (`pending list`, `reflect show`, `identity consolidate show`, `status`'s
//! `unacknowledged_critical`), so no adapter has a second shape. Read-only: deciding goes
//! through [`crate::propose::decide`], [`crate::reflect::approve`] and the others, the same
//! gates as the CLI.

use serde::Serialize;

use crate::audit::CriticalChange;
use crate::reflect::{self, Applied, ShowReport, State};
use cogmem_store::git;
use cogmem_store::store::pending::Proposal;
use cogmem_store::store::reflection::OpKind;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;

/// Everything awaiting a person's decision.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewReport {
    /// Open proposals (pending, conflict, deferred), as `cogmem pending list --json`.
    pub proposals: Vec<Proposal>,
    /// Proposal blocks that could not be read, as `path:line: what is wrong`.
    pub skipped: Vec<String>,
    /// The reflection awaiting approval, as `cogmem reflect show --json`; `None` when none
    /// waits or when its plan cannot be built (then [`ReviewReport::reflection_problem`]).
    pub reflection: Option<ShowReport>,
    /// Why the waiting reflection's plan cannot be shown (a block that can no longer be
    /// applied): approving it would fail the same way, rejecting it still works.
    pub reflection_problem: Option<Problem>,
    /// The waiting self-image consolidation's diff against IDENTITY.md now, as
    /// `cogmem identity consolidate show --json`'s `diff`.
    pub identity: Option<String>,
    /// Why the waiting consolidation cannot be shown (a malformed submission).
    pub identity_problem: Option<Problem>,
    /// Critical-file changes nobody has acknowledged, as `cogmem status --json`'s
    /// `unacknowledged_critical`.
    pub critical: Vec<CriticalChange>,
}

impl ReviewReport {
    /// Tells whether nothing waits for a decision.
    pub fn is_empty(&self) -> bool {
        self.proposals.is_empty()
            && self.reflection.is_none()
            && self.reflection_problem.is_none()
            && self.identity.is_none()
            && self.identity_problem.is_none()
            && self.critical.is_empty()
    }
}

/// An operation's error kept as a value, for a part of the review that cannot be shown.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// The error, as the CLI prints it after `error: `.
    pub message: String,
    /// What to do, as the CLI prints it after `hint: `.
    pub hint: Option<String>,
}

impl From<crate::Error> for Problem {
    fn from(e: crate::Error) -> Self {
        Self { message: e.to_string(), hint: e.hint() }
    }
}

/// Reads everything awaiting a person's decision. Read-only. A part that cannot be read for a
/// reason of its own (a reflection block that no longer applies, a malformed consolidation) is a
/// [`Problem`] in the report, so the rest can still be decided; a broken workspace is an error.
pub fn review(ws: &Workspace, clock: &dyn Clock) -> crate::Result<ReviewReport> {
    let file = crate::propose::read(ws)?;
    let path = ws.abs(layout::PENDING_MEMORIES);
    let skipped = file
        .problems
        .iter()
        .map(|(line, why)| format!("{}:{line}: {why}", path.display()))
        .collect();
    let proposals = file.proposals.into_iter().filter(|p| p.status.is_open()).collect();
    let status = reflect::status(ws)?;
    let (reflection, reflection_problem) = if status.state == State::AwaitingApproval {
        split(reflect::show(ws, clock))
    } else {
        (None, None)
    };
    let (identity, identity_problem) = if status.consolidation_pending {
        split(crate::identity::show(ws, clock))
    } else {
        (None, None)
    };
    let repo = git::open(ws.root())?;
    let critical = crate::audit::critical_changes(ws, &repo)?;
    Ok(ReviewReport {
        proposals,
        skipped,
        reflection,
        reflection_problem,
        identity,
        identity_problem,
        critical,
    })
}

fn split<T>(r: crate::Result<T>) -> (Option<T>, Option<Problem>) {
    match r {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e.into())),
    }
}

/// What approving a planned reflection block does, in words: `writes`, `archives it (…)`,
/// `is recorded in evolution.md`, or the block's outcome when it does nothing
/// (`already remembered`). `cogmem reflect show` and the web view's review page say the same.
pub fn effect(a: &Applied) -> &str {
    match (a.outcome.as_str(), a.op) {
        ("applied", OpKind::Archive) => {
            "archives it (hidden from recall, kept in its file and in git)"
        }
        ("applied", _) => "writes",
        ("recorded", OpKind::Pattern | OpKind::Evolve) => "is recorded in evolution.md",
        ("recorded", _) => "is recorded in the reflection's files",
        (other, _) => other,
    }
}
