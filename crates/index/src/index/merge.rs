//! Merging the search index's segments, never inside a write (issue 20).
//!
//! Every refresh of the index commits one small segment. tantivy's own policy merges segments
//! as they pile up, on its merge threads, and the command that committed then waited for them:
//! a `remember` now and then paid for merging segments of tens of thousands of documents, and
//! more often the larger the index. Now a refresh commits with no merge policy at all
//! (`for_update`), checks whether tantivy's log merge policy would merge anything
//! (`is_due`), and if so calls the program's
//! [`on_merge_due`](cogmem_store::workspace::WorkspaceOptions::on_merge_due): the `cogmem`
//! binary starts [`run`] in a process of its own and does not wait for it. A full rebuild
//! (`cogmem reindex`) merges as before, since it writes many segments at once.
//!
//! [`run`] holds the merge lock (`.cogmem/index-merge.lock`) for its whole run, so merges run
//! one at a time, and tantivy's writer lock while it merges; it holds the index lock only while
//! it opens the index. Writes and searches go on meanwhile: one that finds new files to index
//! while the writer is taken leaves them for the next refresh (their manifest stamps are not
//! updated). A rebuild, which deletes the index folder, first waits for the merge lock
//! (`wait_idle`). Derived data only: never writes a workspace file.

use std::fs::File;
use std::time::Duration;

use serde::Serialize;
use tantivy::indexer::{LogMergePolicy, MergePolicy, NoMergePolicy};
use tantivy::{Index as TantivyIndex, IndexWriter, TantivyDocument};

use super::{index_dir, register, schema, tantivy_err};
use cogmem_store::store::fsx::{self, IoError};
use cogmem_store::workspace::{LockSide, Workspace, layout, wait_for_lock};

/// The lock a merge holds for its whole run.
pub const MERGE_LOCK: &str = ".cogmem/index-merge.lock";

/// The writer's arena for a merge: tantivy's smallest; a merge does not use it.
const MERGE_ARENA: usize = 15_000_000;

/// What a merge did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MergeReport {
    /// Segments before the merge.
    pub segments_before: usize,
    /// Segments after it.
    pub segments_after: usize,
    /// Set when another merge was running, so this one did nothing.
    pub skipped: bool,
}

/// The merge policy of a writer that refreshes the index: none. Segments are merged by
/// [`run`], in the background.
pub(crate) fn for_update() -> Box<dyn MergePolicy> {
    Box::new(NoMergePolicy)
}

/// Whether tantivy's log merge policy would merge some of the index's segments now: what
/// the writer that committed them would have started merging (and its command waited for).
pub(crate) fn is_due(index: &TantivyIndex) -> bool {
    index
        .searchable_segment_metas()
        .is_ok_and(|metas| !LogMergePolicy::default().compute_merge_candidates(&metas).is_empty())
}

/// Asks the program to merge in the background ([`is_due`]), when it said how and no merge
/// runs already (each write while one runs would otherwise start a process that gives up).
pub(crate) fn request_if_due(ws: &Workspace, index: &TantivyIndex) {
    if let Some(hook) = &ws.options().on_merge_due
        && is_due(index)
        && !is_running(ws)
    {
        cogmem_store::timing::mark("index: merge due, started in the background");
        hook(ws.root());
    }
}

/// Merges the index's segments as tantivy's log merge policy picks them, and waits for the
/// merges: what the background process started by
/// [`on_merge_due`](cogmem_store::workspace::WorkspaceOptions::on_merge_due) runs. Returns at
/// once (`skipped`) when another merge runs; an index that does not exist or cannot be
/// opened has nothing to merge (the next read rebuilds it).
///
/// Fails with [`IndexError::Busy`](super::IndexError::Busy) when the index lock stays held for
/// `lock.timeout_ms`, and with [`IndexError::Tantivy`](super::IndexError::Tantivy) when a merge
/// fails (the index keeps its segments then).
pub fn run(ws: &Workspace) -> crate::Result<MergeReport> {
    let path = ws.abs(MERGE_LOCK);
    let merge_lock = fsx::open_lock_file(&path)?;
    match wait_for_lock(&merge_lock, LockSide::Write, Duration::ZERO) {
        Ok(true) => {}
        Ok(false) => return Ok(MergeReport { skipped: true, ..MergeReport::default() }),
        Err(e) => return Err(IoError::new(&path, "lock", e).into()),
    }
    let dir = ws.abs(layout::INDEX_DIR);
    // Opened under the index lock, so that no refresh is half-way through a rebuild; then the
    // lock is let go, and writes and reads go on while the merge runs.
    let opened = {
        // A plain hold, not an `IndexLock`: files queued meanwhile could not be indexed while
        // this merge's writer exists; they wait for the next holder (see `queue`).
        let _index_lock = super::lock_at(ws, super::LOCK_FILE)?;
        let (schema, _) = schema();
        match index_dir(&dir, super::dir::boot_id().is_some())
            .and_then(|d| TantivyIndex::open(d).ok())
            .filter(|i| i.schema() == schema)
        {
            Some(index) => {
                register(&index);
                let writer: IndexWriter<TantivyDocument> =
                    index.writer_with_num_threads(1, MERGE_ARENA).map_err(tantivy_err(&dir))?;
                Some((index, writer))
            }
            None => None,
        }
    };
    let Some((index, mut writer)) = opened else { return Ok(MergeReport::default()) };
    let metas = index.searchable_segment_metas().map_err(tantivy_err(&dir))?;
    let mut report = MergeReport { segments_before: metas.len(), ..MergeReport::default() };
    let policy = LogMergePolicy::default();
    let candidates = policy.compute_merge_candidates(&metas);
    // Merges that these merges make due run too, before the writer is let go.
    writer.set_merge_policy(Box::new(policy));
    for candidate in candidates {
        writer.merge(&candidate.0).wait().map_err(tantivy_err(&dir))?;
    }
    writer.wait_merging_threads().map_err(tantivy_err(&dir))?;
    report.segments_after = index.searchable_segment_metas().map_err(tantivy_err(&dir))?.len();
    drop(merge_lock);
    Ok(report)
}

/// Whether a merge holds the merge lock now.
fn is_running(ws: &Workspace) -> bool {
    let Ok(file) = fsx::open_lock_file(&ws.abs(MERGE_LOCK)) else { return false };
    matches!(wait_for_lock(&file, LockSide::Write, Duration::ZERO), Ok(false))
}

/// Waits (up to `lock.timeout_ms`) until no merge runs, and returns the merge lock, to hold
/// while the index folder is deleted and made again: [`IndexError::Busy`](super::IndexError::Busy)
/// when a merge runs for the whole wait.
pub(crate) fn wait_idle(ws: &Workspace) -> crate::Result<File> {
    super::lock_at(ws, MERGE_LOCK)
}

/// Whether a tantivy error says another writer (a background merge) holds the index.
pub(crate) fn is_writer_busy(e: &tantivy::TantivyError) -> bool {
    matches!(
        e,
        tantivy::TantivyError::LockFailure(tantivy::directory::error::LockError::LockBusy, _)
    )
}
