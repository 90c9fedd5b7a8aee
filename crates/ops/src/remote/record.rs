//! The records of submitted commits (`refs/cogmem/submitted/*`, see
//! [`crate::reflect::record_submission`]) travel with a sync: fetched with the branch into a
//! staging folder, settled against ours once the branch has moved, and pushed with it. Without
//! them, a submission made on one machine and approved on another was checked against the
//! newest commit claiming to be the submit, which a hand commit can claim.
//!
//! Invariant: the staged refs never outlive the sync (they would keep the remote's objects
//! reachable, purged text included), and a settled record is on the branch's history.

use git2::{Oid, Repository};

use super::transport::{self, Endpoint};
use crate::reflect::SUBMITTED_REFS;

/// Where a fetch puts the remote's records for the length of one sync.
const STAGED: &str = "refs/cogmem/fetched/submitted/";

/// The refspec that fetches the remote's records into [`STAGED`].
pub(super) const FETCH: &str = "+refs/cogmem/submitted/*:refs/cogmem/fetched/submitted/*";

/// The remote's records fetched for one sync; dropping it deletes them (and any left by a sync
/// cut short before).
pub(super) struct Staged<'a> {
    repo: &'a Repository,
}

impl<'a> Staged<'a> {
    /// Deletes what an earlier sync may have left staged, before this one fetches.
    pub(super) fn clear(repo: &'a Repository) -> Self {
        let staged = Self { repo };
        staged.delete();
        staged
    }

    /// The staged records: (name under the folder, commit).
    fn list(&self) -> Vec<(String, Oid)> {
        refs_under(self.repo, STAGED)
    }

    fn delete(&self) {
        for (name, _) in self.list() {
            if let Ok(mut r) = self.repo.find_reference(&format!("{STAGED}{name}")) {
                let _ = r.delete();
            }
        }
    }

    /// Settles our records once the branch is at `tip`: the remote's record of a name is taken
    /// when it is on `tip`'s history and newer than ours (or ours is not on it); ours is
    /// deleted when neither is on it (a history the sync replaced: it would name a commit of
    /// the old one, and keep it alive). Returns the refspecs that bring the remote's records to
    /// ours (ours that differ from its), for [`Staged::push`].
    pub(super) fn settle(&self, tip: Oid) -> Vec<String> {
        let repo = self.repo;
        let on_history = |id: Oid| id == tip || repo.graph_descendant_of(tip, id).unwrap_or(false);
        let theirs = self.list();
        let mut names: Vec<String> = refs_under(repo, SUBMITTED_REFS)
            .into_iter()
            .map(|(n, _)| n)
            .chain(theirs.iter().map(|(n, _)| n.clone()))
            .collect();
        names.sort();
        names.dedup();
        let mut out = Vec::new();
        for name in names {
            let full = format!("{SUBMITTED_REFS}{name}");
            let ours = repo.find_reference(&full).ok().and_then(|r| r.target());
            let remote = theirs.iter().find(|(n, _)| *n == name).map(|(_, id)| *id);
            let take = remote.filter(|t| {
                on_history(*t)
                    && ours.is_none_or(|o| {
                        !on_history(o) || repo.graph_descendant_of(*t, o).unwrap_or(false)
                    })
            });
            let settled = match (take, ours) {
                (Some(t), _) => {
                    let _ = repo.reference(&full, t, true, "cogmem sync: the remote's record");
                    Some(t)
                }
                (None, Some(o)) if !on_history(o) => {
                    if let Ok(mut r) = repo.find_reference(&full) {
                        let _ = r.delete();
                    }
                    None
                }
                (None, o) => o,
            };
            if let Some(id) = settled
                && Some(id) != remote
            {
                out.push(format!("+{full}:{full}"));
            }
        }
        out
    }

    /// Pushes the records [`Staged::settle`] found the remote lacking, once the remote's branch
    /// is ours: forced, since ours are the newest on that history. A refusal is returned as a
    /// warning; the branch is shared either way, and a machine without the record checks the
    /// submission as before.
    pub(super) fn push(
        &self,
        root: &std::path::Path,
        ep: &Endpoint,
        refspecs: &[String],
    ) -> crate::Result<Option<String>> {
        if refspecs.is_empty() {
            return Ok(None);
        }
        Ok(transport::push_refs(self.repo, root, ep, refspecs)?.err().map(|why| {
            format!("the records of submitted reflections were not pushed to {}: {why}", ep.name)
        }))
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        self.delete();
    }
}

/// The refs directly under `prefix`: (the rest of the name, commit).
fn refs_under(repo: &Repository, prefix: &str) -> Vec<(String, Oid)> {
    let Ok(refs) = repo.references_glob(&format!("{prefix}*")) else { return Vec::new() };
    refs.filter_map(|r| {
        let r = r.ok()?;
        let name = r.name().ok()?.strip_prefix(prefix)?.to_owned();
        Some((name, r.target()?))
    })
    .collect()
}
