//! A sync never brings purged text back (issue 16). Before merging, the tombstones of both
//! sides (`memory/meta/purged`) are read and the commits only one side has are hashed line by
//! line: when the remote's hold purged text (our history was rewritten by a purge, theirs was
//! not), or ours do (another machine purged and force-pushed), the sync is refused and nothing
//! changes. With `force_rewritten`, the side that holds the text gives way: our rewritten
//! history is force-pushed over the remote's, or the remote's replaces ours (our old tip kept
//! under `refs/cogmem/pre-purge/`, with the commands that erase it).

use git2::build::CheckoutBuilder;
use git2::{Oid, Repository};

use super::transport::{self, Endpoint};
use super::{Outcome, RemoteError, RemoteReport, SyncRemoteOptions, only_in};
use crate::purge::guard;
use cogmem_store::git::GitError;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::Clock;

/// Both sides of a sync, as the guard needs them.
pub(super) struct Sides<'a> {
    pub ws: &'a Workspace,
    pub repo: &'a Repository,
    pub ep: &'a Endpoint,
    pub branch_ref: &'a str,
    pub branch: &'a str,
    pub remote_branch: &'a str,
    pub opts: &'a SyncRemoteOptions,
    pub clock: &'a dyn Clock,
}

fn op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

/// Refuses, or with `force_rewritten` resolves, a sync that would bring purged text back.
/// Returns `true` when the sync is over (the report says what was done).
pub(super) fn guard(
    s: &Sides<'_>,
    local: Oid,
    theirs: Oid,
    report: &mut RemoteReport,
) -> crate::Result<bool> {
    let repo = s.repo;
    let mut tombs = guard::tombstones_at(repo, local)?;
    tombs.extend(guard::tombstones_at(repo, theirs)?);
    if tombs.is_empty() {
        return Ok(false);
    }
    let we_hold = guard::first_holding(repo, local, Some(theirs), &tombs)?;
    if let Some(c) = we_hold {
        if !s.opts.force_rewritten {
            return Err(RemoteError::LocalHoldsPurged {
                name: s.ep.name.clone(),
                commit: c.to_string(),
            }
            .into());
        }
        take_theirs(s, local, theirs, report)?;
        return Ok(true);
    }
    let Some(c) = guard::first_holding(repo, theirs, Some(local), &tombs)? else {
        return Ok(false);
    };
    if !s.opts.force_rewritten {
        // The fetched objects hold the text: let nothing keep them reachable here.
        let tracking = transport::tracking_ref(&s.ep.name, s.remote_branch);
        if let Ok(mut r) = repo.find_reference(&tracking) {
            let _ = r.delete();
        }
        return Err(RemoteError::RemoteHoldsPurged {
            name: s.ep.name.clone(),
            branch: s.remote_branch.to_owned(),
            commit: c.to_string(),
        }
        .into());
    }
    report.fetched = only_in(repo, theirs, Some(local))?;
    report.outcome = Outcome::ForcePushed;
    let pushed =
        transport::push(repo, s.ws.root(), s.ep, (s.branch, s.remote_branch), local, true)?;
    match pushed {
        Ok(()) => report.pushed = true,
        Err(why) => report.push_error = Some(why),
    }
    Ok(true)
}

/// Moves our branch, files and index to the remote's tip, keeping our old tip under a backup
/// ref.
fn take_theirs(
    s: &Sides<'_>,
    local: Oid,
    theirs: Oid,
    report: &mut RemoteReport,
) -> crate::Result<()> {
    let repo = s.repo;
    let stamp = s.clock.now().with_timezone(&chrono::Utc).format("%Y%m%dT%H%M%SZ");
    let backup = format!(
        "{}sync-{stamp}/{}",
        crate::purge::BACKUP_PREFIX,
        s.branch_ref.trim_start_matches("refs/")
    );
    repo.reference(&backup, local, true, "cogmem sync: before taking a rewritten history")
        .map_err(op("record the backup ref"))?;
    let target = repo.find_object(theirs, None).map_err(op("read the remote's commit"))?;
    repo.checkout_tree(&target, Some(CheckoutBuilder::new().force()))
        .map_err(op("check out the remote's files"))?;
    repo.reference_matching(
        s.branch_ref,
        theirs,
        true,
        local,
        "cogmem sync: take rewritten history",
    )
    .map_err(op("move the branch"))?;
    cogmem_index::index::update_after_change(s.ws);
    report.fetched = only_in(repo, theirs, Some(local))?;
    report.outcome = Outcome::TookRewritten;
    report.backup = Some(backup.clone());
    report.erase_commands = crate::purge::erase_commands(std::slice::from_ref(&backup));
    Ok(())
}
