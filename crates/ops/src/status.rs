//! `cogmem status`: where the workspace is, how much each store holds, what is uncommitted,
//! the last commits, whether the derived index is current, and the changes to critical files
//! nobody has acknowledged yet (with the integrity problems among them). Read-only.

use std::path::PathBuf;

use serde::Serialize;

use crate::audit::CriticalChange;
use cogmem_index::summary::{Look, Probe, Summary, Uncommitted};
use cogmem_store::git::{self, CommitInfo};
use cogmem_store::store::flags::FILE as FLAGS;
use cogmem_store::workspace::{Workspace, layout};

pub use cogmem_index::index::IndexState;
pub use cogmem_index::summary::{Bands, Counts, Skipped};

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    /// The workspace root.
    pub workspace: PathBuf,
    /// Units per store.
    pub counts: Counts,
    /// Files that differ from HEAD (hand edits).
    pub uncommitted: Vec<git::Change>,
    /// What git is in the middle of (`merge`, `rebase`, `cherry-pick`, `revert`, `bisect`,
    /// `am`), while every write is refused; absent when git is idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_state: Option<&'static str>,
    /// The latest commits, newest first.
    pub recent_commits: Vec<CommitInfo>,
    /// The derived index.
    pub index: IndexState,
    /// Whether a running `cogmem watch` tells searches what changed (so they stat only that).
    pub watcher: bool,
    /// Commits that changed a critical file and are not acknowledged (`cogmem audit ack`),
    /// oldest first.
    pub unacknowledged_critical: Vec<CriticalChange>,
    /// The unacknowledged critical changes made by an actor who may not change critical files.
    pub integrity_problems: Vec<CriticalChange>,
    /// Flags (contradictions and doubts on memories) no person has resolved yet (issue 19).
    pub open_flags: usize,
    /// Files left out because they could not be read.
    pub skipped: Vec<Skipped>,
}

/// The files that differ from `HEAD`, as [`git::uncommitted`] lists them: from git's index and
/// the stamps of `probe`'s walk when they tell ([`git::uncommitted_and_stale`]; the walk leaves
/// out the derived folder, which must then be ignored), else from libgit2's whole status. The
/// entries of git's index that hold their files' blobs under other stat data are refreshed, as
/// `git status` does, so the next look need not hash those files again: under the workspace
/// `lock` the caller holds (`sync`), or, without one (`status`), under the lock taken here only
/// when there is something to refresh and it is free that instant.
pub(crate) fn uncommitted_from_walk(
    ws: &Workspace,
    repo: &git2::Repository,
    probe: &Probe,
    lock: Option<&cogmem_store::workspace::LockGuard>,
) -> cogmem_store::Result<Vec<git::Change>> {
    let derived = format!("{}/", layout::DERIVED_DIR);
    let derived_ignored =
        !ws.abs(layout::DERIVED_DIR).exists() || repo.is_path_ignored(&derived).unwrap_or(false);
    let by_stat =
        derived_ignored.then(|| git::uncommitted_and_stale(repo, probe.work_files()?)).flatten();
    if let Some((_, stale)) = &by_stat
        && !stale.is_empty()
    {
        let taken = if lock.is_none() { ws.try_lock_now() } else { None };
        if lock.is_some() || taken.is_some() {
            let refreshed = git::refresh_stale(repo, stale, |m, c| probe.settled(m, c));
            cogmem_store::timing::mark(&format!(
                "git's index refreshed ({refreshed} of {})",
                stale.len()
            ));
        }
    }
    match by_stat {
        Some((changes, _)) => Ok(changes),
        None => git::uncommitted(repo),
    }
}

/// Reports on the workspace; unreadable files are listed in `skipped`, never fatal.
pub fn status(ws: &Workspace, recent: usize) -> crate::Result<StatusReport> {
    let repo = git::open(ws.root())?;
    // Stamp the working tree first (or learn from a running watcher that nothing in it
    // changed): an unchanged tree reuses the last answer, and one changed after this point is
    // found by the next status (`cogmem_index::summary`).
    let head = git::head_id(&repo)?.map(|id| id.to_string());
    // What needs no walk (git's state and last commits, the flags, the watcher, the critical
    // changes) is read on this thread while threads of their own stat the files.
    let mut aside = None;
    let look = Probe::look(ws, repo.path(), head, &mut || {
        aside = Some(unwalked(ws, &repo, recent));
    });
    let Aside { git_state, recent_commits, flags, watcher, unacknowledged_critical } =
        aside.unwrap_or_else(|| unwalked(ws, &repo, recent))?;
    cogmem_store::timing::mark(match look {
        Look::Kept(_) => "status: kept answer, tree unchanged by the watcher's word",
        Look::Walked(_) => "status: tree stamped",
    });
    let summary = match look {
        Look::Kept(summary) => summary,
        Look::Walked(probe) if let Some(summary) = probe.cached(ws) => summary,
        Look::Walked(probe) => {
            let summary = Summary::compute(ws, &probe, || {
                Ok(uncommitted_from_walk(ws, &repo, &probe, None)?
                    .into_iter()
                    .map(|c| Uncommitted { path: c.path, state: c.state.to_owned() })
                    .collect())
            })?;
            probe.keep(ws, &summary);
            summary
        }
    };
    cogmem_store::timing::mark("status: counted");
    let Summary { counts, mut skipped, uncommitted, index } = summary;
    let uncommitted = uncommitted
        .into_iter()
        .filter_map(|c| Some(git::Change { state: change_state(&c.state)?, path: c.path }))
        .collect();
    let open_flags = match flags {
        Ok(f) => {
            let problems = crate::flag::problems(&f);
            skipped.extend(problems.into_iter().map(|error| Skipped { path: FLAGS.into(), error }));
            f.open().count()
        }
        Err(e) => {
            skipped.push(Skipped { path: FLAGS.into(), error: e.to_string() });
            0
        }
    };
    let integrity_problems =
        unacknowledged_critical.iter().filter(|c| c.integrity_problem.is_some()).cloned().collect();
    Ok(StatusReport {
        workspace: ws.root().to_owned(),
        counts,
        uncommitted,
        git_state,
        recent_commits,
        index,
        watcher,
        unacknowledged_critical,
        integrity_problems,
        open_flags,
        skipped,
    })
}

/// What a status reads that does not depend on the working tree's walk.
struct Aside {
    git_state: Option<&'static str>,
    recent_commits: Vec<CommitInfo>,
    flags: crate::Result<cogmem_store::store::flags::FlagsFile>,
    watcher: bool,
    unacknowledged_critical: Vec<CriticalChange>,
}

/// Reads what [`Aside`] holds; an error is the status's.
fn unwalked(ws: &Workspace, repo: &git2::Repository, recent: usize) -> crate::Result<Aside> {
    let git_state = match repo.state() {
        git2::RepositoryState::Clean => None,
        state => Some(git::state_name(state)),
    };
    let recent_commits = git::recent(repo, recent)?;
    let flags = crate::flag::read(ws);
    cogmem_store::timing::mark("status: commits, flags");
    let watcher = cogmem_index::index::freshness::serving(ws);
    cogmem_store::timing::mark("status: watcher");
    let unacknowledged_critical = crate::audit::critical_changes(ws, repo)?;
    cogmem_store::timing::mark("status: critical changes");
    Ok(Aside { git_state, recent_commits, flags, watcher, unacknowledged_critical })
}

/// The word a kept [`Uncommitted`] carries, as the `&'static str` of [`git::Change`].
fn change_state(word: &str) -> Option<&'static str> {
    ["new", "modified", "deleted", "renamed", "conflicted"].into_iter().find(|w| *w == word)
}
