//! The days an import writes to, built in bounded memory (issue 20). Each day's file is read
//! once, when its first message arrives, and grows by [`DayImport`]; when the entries built in
//! memory pass `limits.import_buffer_bytes`, every day's new bytes are appended to its staging
//! file under `.cogmem/import/`, so the same day met again later in an unsorted input carries
//! on where it stopped. At the end each staged file becomes one edit of the import's change,
//! renamed into place when the change is applied: every touched file is written once.
//!
//! Never touches a workspace file: the staging folder is derived and git-ignored, emptied when
//! an import starts and when it ends, so a crash leaves nothing but that folder behind.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cogmem_store::audit::Action;
use cogmem_store::change::{Change, crash_point};
use cogmem_store::store::episode::{DayImport, NewEntry};
use cogmem_store::store::fsx;
use cogmem_store::workspace::{Workspace, layout};

/// The staging folder, relative to the workspace root.
pub(super) const STAGING_DIR: &str = ".cogmem/import";

/// One day being imported.
struct Day {
    import: DayImport,
    /// Whether its file existed before the import.
    existed: bool,
    /// Messages appended.
    messages: usize,
    /// Bytes of the day's whole new file: its earlier text and every entry appended.
    size: u64,
}

/// The days of one import.
pub(super) struct Days<'w> {
    ws: &'w Workspace,
    dir: PathBuf,
    days: BTreeMap<String, Day>,
    /// Bytes built and not yet staged.
    in_flight: usize,
    cap: usize,
    /// Flushes so far.
    flushes: usize,
}

impl<'w> Days<'w> {
    /// Starts an import's days with an empty staging folder (what a crashed import left there
    /// is removed).
    pub(super) fn new(ws: &'w Workspace) -> crate::Result<Self> {
        let dir = ws.abs(STAGING_DIR);
        fsx::remove_dir_all(&dir)?;
        fsx::create_dir_all(&dir)?;
        let cap = ws.settings().limits.import_buffer_bytes;
        Ok(Self { ws, dir, days: BTreeMap::new(), in_flight: 0, cap, flushes: 0 })
    }

    /// Appends an imported entry to its day (`entry.date`); returns its id.
    pub(super) fn append(
        &mut self,
        entry: &NewEntry<'_>,
        source: &str,
        entities: &[String],
    ) -> crate::Result<String> {
        if !self.days.contains_key(entry.date) {
            let rel = layout::episode_file(entry.date);
            let existing = self.ws.read_text_if_exists(&rel)?;
            let import = DayImport::new(existing.as_deref(), entry.date)?;
            self.in_flight += import.pending_len();
            let size = import.pending_len() as u64;
            let day = Day { import, existed: existing.is_some(), messages: 0, size };
            self.days.insert(entry.date.to_owned(), day);
        }
        let day = self.days.get_mut(entry.date).expect("inserted above");
        let before = day.import.pending_len();
        let id = day.import.append(entry, source, entities);
        day.messages += 1;
        let grown = day.import.pending_len() - before;
        day.size += grown as u64;
        // A day file over the file limit would be written and then never read back (the
        // index, `status` and the next import read day files whole): refused, before the
        // commit, so nothing is imported.
        let limit = self.ws.file_limit();
        if day.size > limit {
            return Err(crate::error::InputError::ImportDayTooLarge {
                file: layout::episode_file(entry.date),
                limit,
            }
            .into());
        }
        self.in_flight += grown;
        if self.in_flight > self.cap {
            self.flush()?;
        }
        Ok(id)
    }

    /// Appends every day's new bytes to its staging file.
    fn flush(&mut self) -> crate::Result<()> {
        for (date, day) in &mut self.days {
            if day.import.pending_len() == 0 {
                continue;
            }
            let path = self.dir.join(format!("{date}.md"));
            fsx::append_staged(&path, day.import.take().as_bytes())?;
        }
        self.in_flight = 0;
        self.flushes += 1;
        if self.flushes == 1 {
            crash_point(self.ws, "import-flush");
        }
        Ok(())
    }

    /// Tells whether no message was appended.
    pub(super) fn is_empty(&self) -> bool {
        self.days.is_empty()
    }

    /// Stages what is left and adds one edit per day to `change`; returns each day with its
    /// number of messages, by date. Every day has a staging file then: a day starts with its
    /// earlier file or a new day's header, which the last flush writes if no flush did.
    pub(super) fn finish(
        mut self,
        change: &mut Change,
        name: &str,
    ) -> crate::Result<Vec<(String, usize)>> {
        self.flush()?;
        let mut out = Vec::with_capacity(self.days.len());
        for (date, day) in self.days {
            let rel = layout::episode_file(&date);
            let action = if day.existed { Action::Append } else { Action::Create };
            let summary = format!("imported {} from {name}", super::count(day.messages, "message"));
            change.write_staged(&rel, self.dir.join(format!("{date}.md")), action, summary);
            out.push((date, day.messages));
        }
        Ok(out)
    }
}

/// Writes the whole new text of workspace file `rel` (a decay shard) to the staging folder,
/// for [`Change::write_staged`]; returns the staged file.
pub(super) fn stage(ws: &Workspace, rel: &str, text: &str) -> cogmem_store::Result<PathBuf> {
    let path = ws.abs(STAGING_DIR).join("files").join(rel);
    if let Some(parent) = path.parent() {
        fsx::create_dir_all(parent)?;
    }
    fsx::append_staged(&path, text.as_bytes())?;
    Ok(path)
}

/// Removes the staging folder: the import committed, or failed and wrote nothing.
pub(super) fn clean(ws: &Workspace) {
    let _ = fsx::remove_dir_all(&ws.abs(STAGING_DIR));
}
