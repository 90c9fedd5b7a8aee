//! `cogmem status`: where the workspace is, how much each store holds, what is uncommitted,
//! the last commits, whether the derived index is current, and the changes to critical files
//! nobody has acknowledged yet (with the integrity problems among them). Read-only.

use std::path::PathBuf;

use serde::Serialize;

use crate::audit::CriticalChange;
use cogmem_store::git::{self, CommitInfo};
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::flags::FILE as FLAGS;
use cogmem_store::store::{core_memory, episode};
use cogmem_store::workspace::{Workspace, layout};

/// How many memory units each store holds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    /// MEMORY.md bullets.
    pub core: usize,
    /// Episode entries.
    pub episodes: usize,
    /// Episode day files.
    pub episode_days: usize,
    /// Entity files.
    pub entities: usize,
    /// Procedure files.
    pub procedures: usize,
    /// Vault notes.
    pub vault: usize,
    /// Entries in decay-scores.json.
    pub decay_entries: usize,
    /// Entries per stored band: active, fading, dormant, archived.
    pub bands: Bands,
}

/// How many memories are in each decay band (as last computed by a change or `cogmem decay`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Bands {
    /// Fully searchable.
    pub active: usize,
    /// Deprioritised.
    pub fading: usize,
    /// Found only with `--all`.
    pub dormant: usize,
    /// Hidden from recall (forgotten or faded).
    pub archived: usize,
}

/// A file that could not be read and was left out of the counts.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The file, relative to the workspace root.
    pub path: String,
    /// What is wrong, naming the file.
    pub error: String,
}

pub use cogmem_index::index::IndexState;

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

/// Reports on the workspace; unreadable files are listed in `skipped`, never fatal.
pub fn status(ws: &Workspace, recent: usize) -> crate::Result<StatusReport> {
    let repo = git::open(ws.root())?;
    let mut skipped = Vec::new();
    let mut counts = Counts::default();

    match ws.read_text(layout::MEMORY_MD) {
        Ok(text) => counts.core = core_memory::count_bullets(&text),
        Err(e) => skipped.push(Skipped { path: layout::MEMORY_MD.into(), error: e.to_string() }),
    }
    for rel in markdown_files(ws, layout::EPISODES_DIR) {
        counts.episode_days += 1;
        match ws.read_text(&rel) {
            Ok(text) => counts.episodes += episode::entries(&text).len(),
            Err(e) => skipped.push(Skipped { path: rel, error: e.to_string() }),
        }
    }
    // Each file is read as search would read it: one it cannot read is counted and reported.
    for (dir, count) in [
        (layout::ENTITIES_DIR, &mut counts.entities),
        (layout::PROCEDURES_DIR, &mut counts.procedures),
        (layout::VAULT_DIR, &mut counts.vault),
    ] {
        for rel in markdown_files(ws, dir) {
            *count += 1;
            if let Err(e) = ws.read_text(&rel) {
                skipped.push(Skipped { path: rel, error: e.to_string() });
            }
        }
    }
    for (dir, _, _) in cogmem_store::store::units::DIRS {
        for rel in cogmem_store::store::units::linked_files(ws.root(), dir) {
            let link = cogmem_store::store::units::skipped_link(&rel);
            skipped.push(Skipped { path: link.path, error: link.error });
        }
    }
    let decay_path = ws.abs(layout::DECAY_SCORES);
    if decay_path.exists() {
        match DecayFile::load(ws) {
            Ok(d) => {
                counts.decay_entries = d.len();
                for key in d.keys() {
                    match d.band(&key) {
                        Some(cogmem_store::decay::Band::Active) => counts.bands.active += 1,
                        Some(cogmem_store::decay::Band::Fading) => counts.bands.fading += 1,
                        Some(cogmem_store::decay::Band::Dormant) => counts.bands.dormant += 1,
                        Some(cogmem_store::decay::Band::Archived) => counts.bands.archived += 1,
                        None => {}
                    }
                }
            }
            // The error names the file (a shard, perhaps).
            Err(e) => {
                skipped.push(Skipped { path: layout::DECAY_SCORES.into(), error: e.to_string() });
            }
        }
    }

    let uncommitted = git::uncommitted(&repo)?;
    let git_state = match repo.state() {
        git2::RepositoryState::Clean => None,
        state => Some(git::state_name(state)),
    };
    let recent_commits = git::recent(&repo, recent)?;
    let open_flags = match crate::flag::read(ws) {
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
    let index = cogmem_index::index::state(ws);
    let watcher = cogmem_index::index::freshness::serving(ws);
    let unacknowledged_critical = crate::audit::critical_changes(ws, &repo)?;
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

fn markdown_files(ws: &Workspace, dir: &str) -> Vec<String> {
    cogmem_store::store::units::markdown_files(ws.root(), dir)
}
