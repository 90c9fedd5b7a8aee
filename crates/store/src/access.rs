//! Reinforcement telemetry: reads (`recall`, `show`, `touch`) append uses to
//! `.cogmem/access.log` without committing; the next change folds them into
//! `decay-scores.json` inside its own commit (design.md §2.3).
//!
//! The batch boundary is atomic: the log is renamed to `access.log.folding`, so a use appended
//! while a change runs lands either in the batch or in a fresh `access.log`, never in between.
//! Readers append holding a shared lock on the file and check that the name still points at the
//! file they opened; the folder takes the lock exclusively before reading the batch, so a reader
//! that opened the log just before the rename has finished writing by then (or writes to the
//! new log). The decay file records the hash of the batch it folded (`access_fold`); each batch
//! starts with a line naming the fold before it, so equal uses never make equal hashes. The
//! batch is deleted only once the decay file on disk records it: a crash before the commit, or
//! a workspace without `decay-scores.json`, keeps the batch for the next fold. Derived data:
//! never canonical.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use crate::Timestamp;
use crate::settings::DecaySettings;
use crate::store::decay_file::{DecayFile, NewUnit};
use crate::store::fsx::{self, IoError};
use crate::store::{Store, units};
use crate::workspace::{Workspace, layout};
use cogmem_text::date::parse_stored;

/// The access log, in the derived folder.
pub(crate) const ACCESS_LOG: &str = ".cogmem/access.log";
/// The batch being folded.
pub(crate) const FOLDING: &str = ".cogmem/access.log.folding";

/// Appends uses of `ids` (and `interactions` remember/recall operations) at `now`.
///
/// Records nothing for a sub-agent caller
/// ([`WorkspaceOptions::is_subagent_caller`](crate::workspace::WorkspaceOptions::is_subagent_caller)):
/// a use reinforces a memory against decay, and the next commit folds it into the tracked
/// decay file, so it is a write, and a sub-agent may only propose. Every read that records
/// (`show`, `recall`, `context`, a memory resource, the hooks' packs) comes through here.
pub fn record(
    ws: &Workspace,
    ids: &[String],
    interactions: u64,
    now: Timestamp,
) -> crate::Result<()> {
    if ws.options().is_subagent_caller() {
        return Ok(());
    }
    let text = lines(ids, interactions, now);
    if !text.is_empty() {
        append(&ws.abs(ACCESS_LOG), text.as_bytes())?;
    }
    Ok(())
}

/// The log lines for uses of `ids` and `interactions` at `now`: `TIME<TAB>use<TAB>ID` and
/// `TIME<TAB>interaction<TAB>-`. An id that holds a control character (a tab or a line break
/// would forge another line; only a file name a person or a peer chose can have one) is not
/// recorded: the use of that memory is lost, which only telemetry can afford.
fn lines(ids: &[String], interactions: u64, now: Timestamp) -> String {
    let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ");
    let mut text = String::new();
    for id in ids.iter().filter(|id| !id.chars().any(|c| c.is_control() || c == '\u{2028}')) {
        text.push_str(&format!("{stamp}\tuse\t{id}\n"));
    }
    for _ in 0..interactions {
        text.push_str(&format!("{stamp}\tinteraction\t-\n"));
    }
    text
}

/// Appends to the log under a shared lock, to the file the name points at once locked: if the
/// log was moved aside for folding between opening and locking, it opens the new one.
fn append(path: &Path, bytes: &[u8]) -> Result<(), IoError> {
    // Each retry follows a fold that happened meanwhile; folds take the workspace lock, so a
    // few retries are plenty, and the last attempt writes whatever it holds.
    for attempt in 0..8 {
        let mut file = fsx::open_append(path)?;
        file.lock_shared().map_err(|e| IoError::new(path, "lock", e))?;
        if attempt < 7 && !is_same_file(&file, path) {
            continue; // renamed for folding meanwhile: append to the new log instead
        }
        file.write_all(bytes).map_err(|e| IoError::new(path, "append to", e))?;
        file.sync_data().map_err(|e| IoError::new(path, "sync", e))?;
        break;
    }
    Ok(())
}

/// Tells whether `path` still names the open `file`.
#[cfg(unix)]
fn is_same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Tells whether `path` still names the open `file` (elsewhere an open file cannot be renamed).
#[cfg(not(unix))]
fn is_same_file(_file: &File, _path: &Path) -> bool {
    true
}

/// A batch of uses waiting to be folded.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The batch's text.
    pub text: String,
    /// A short hash of it, recorded in `decay-scores.json` once folded.
    pub(crate) hash: String,
    /// The stores and files of the memories used in the batch that had no decay entry when it
    /// was read (written by hand or by another tool): folding creates their entries.
    pub(crate) unentered: BTreeMap<String, (Store, String)>,
    /// Memories whose uses this fold leaves for a later one ([`Batch::hold_back`]).
    pub(crate) held: BTreeSet<String>,
    /// The decay settings new entries are created with.
    pub(crate) settings: DecaySettings,
    /// Memories whose id changed in the change that folds this batch (a procedure or vault
    /// note renamed by hand, its entry carried to the new id): their uses count for the new id.
    pub(crate) renamed: BTreeMap<String, String>,
}

/// Moves the access log aside as the batch to fold, unless an earlier batch is still there
/// (then that one is folded first; new uses wait for the next fold). `None` when there is
/// nothing to fold. Call it holding the workspace lock.
pub fn begin(ws: &Workspace) -> crate::Result<Option<Batch>> {
    let folding = ws.abs(FOLDING);
    if let Some(bytes) = fsx::read_if_exists(&folding, ws.file_limit())? {
        if !String::from_utf8_lossy(&bytes).trim().is_empty() {
            return Ok(batch(ws, read_locked(&folding)?));
        }
        fsx::remove_file(&folding)?; // an empty batch would block the log for good
    }
    let log = ws.abs(ACCESS_LOG);
    if fsx::read_if_exists(&log, ws.file_limit())?.is_none() {
        return Ok(None);
    }
    rename(&log, &folding)?;
    let uses = read_locked(&folding)?;
    if uses.trim().is_empty() {
        fsx::remove_file(&folding)?; // created by a reader that then wrote to the new log
        return Ok(None);
    }
    // The batch names the fold it follows, so two batches with the same uses (the same memory
    // used in the same second) never share a hash and the second is not taken as folded.
    let after = load_decay(ws).ok().and_then(|d| d.access_fold().map(str::to_owned));
    let text = format!("# batch after {}\n{uses}", after.as_deref().unwrap_or("none"));
    fsx::write_atomic(&folding, text.as_bytes())?;
    Ok(batch(ws, text))
}

/// Renames the log to the batch file in one step: no use can fall between the two names.
#[expect(clippy::disallowed_methods, reason = "fsx has no rename; the error names the path")]
fn rename(from: &Path, to: &Path) -> Result<(), IoError> {
    std::fs::rename(from, to).map_err(|e| IoError::new(from, "rename", e))
}

/// Reads the batch file holding its lock exclusively, so appends that began before the rename
/// are in it.
fn read_locked(path: &Path) -> Result<String, IoError> {
    let mut file = File::open(path).map_err(|e| IoError::new(path, "open", e))?;
    file.lock().map_err(|e| IoError::new(path, "lock", e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| IoError::new(path, "read", e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads what would be folded, without moving anything (for dry runs and `why`).
pub fn peek(ws: &Workspace) -> crate::Result<Option<Batch>> {
    let mut text = String::new();
    for rel in [FOLDING, ACCESS_LOG] {
        if let Some(bytes) = ws.read_if_exists(rel)? {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    Ok(batch(ws, text))
}

/// Makes a batch of `text`, finding the stores of used memories that have no decay entry.
fn batch(ws: &Workspace, text: String) -> Option<Batch> {
    if text.trim().is_empty() {
        return None;
    }
    let used: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.split('\t').skip(1);
            (parts.next() == Some("use")).then(|| parts.next()).flatten()
        })
        .collect();
    // Only the decay shards of the used memories (issue 20: the whole state, then every memory
    // file, was read at the first write after a search). A decay file that cannot be read is
    // reported by the change that folds; here it only means every used memory is looked up.
    let decay = DecayFile::load_for(ws, &used).ok();
    let missing: Vec<&str> =
        used.into_iter().filter(|id| decay.as_ref().is_none_or(|d| !d.has(id))).collect();
    let mut unentered = BTreeMap::new();
    // A missing memory is looked up in the file its id names; every file is read only for an
    // id of no such form.
    let mut files: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut elsewhere: Vec<&str> = Vec::new();
    for id in missing {
        match units::file_of(id) {
            Some(rel) => files.entry(rel).or_default().push(id),
            None => elsewhere.push(id),
        }
    }
    for (rel, ids) in files {
        for u in units::of_file(ws, &rel) {
            if ids.contains(&u.id.as_str()) {
                unentered.insert(u.id, (u.store, u.path));
            }
        }
    }
    if !elsewhere.is_empty() {
        for u in units::list(ws).units {
            if elsewhere.contains(&u.id.as_str()) {
                unentered.insert(u.id, (u.store, u.path));
            }
        }
    }
    Some(Batch {
        hash: hash(&text),
        text,
        unentered,
        held: BTreeSet::new(),
        renamed: BTreeMap::new(),
        settings: ws.settings().decay.clone(),
    })
}

impl Batch {
    /// The memories used in the batch that have no decay entry, each with its file (relative
    /// to the workspace root).
    pub fn unentered(&self) -> impl Iterator<Item = (&str, &str)> {
        self.unentered.iter().map(|(id, (_, path))| (id.as_str(), path.as_str()))
    }

    /// Tells whether some uses are held back from this fold.
    pub fn has_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// Leaves the uses of `id` (a memory without a decay entry) out of this fold: the change
    /// that folds does not commit the memory's file as it is on disk (a malformed file `sync`
    /// leaves), so an entry made now would be committed for a memory in no committed file.
    /// [`defer`] puts them back in the access log once the change landed.
    pub fn hold_back(&mut self, id: &str) {
        self.held.insert(id.to_owned());
    }

    /// Holds back ([`Batch::hold_back`]) the uses of every memory without a decay entry whose
    /// file is not committed as it is: `written(id, path)` answers for a file the caller's
    /// change writes (`Some(whether it holds the memory)`); any other file counts as committed
    /// when it is as `HEAD` (`tree`) has it, so a hand edit no command committed yet (or one
    /// `sync` leaves) makes no entry.
    pub fn hold_back_uncommitted(
        &mut self,
        root: &Path,
        tree: Option<&git2::Tree<'_>>,
        mut written: impl FnMut(&str, &str) -> crate::Result<Option<bool>>,
    ) -> crate::Result<()> {
        let unentered: Vec<(String, String)> =
            self.unentered().map(|(id, path)| (id.to_owned(), path.to_owned())).collect();
        for (id, path) in unentered {
            let committed = match written(&id, &path)? {
                Some(holds) => holds,
                None => !crate::git::is_dirty(root, tree, &path)?,
            };
            if !committed {
                self.hold_back(&id);
            }
        }
        Ok(())
    }
}

/// Appends the uses a fold held back ([`Batch::hold_back`]) to the access log again, for the
/// fold after the memory's file is committed (a memory whose file is gone by then is skipped
/// there, as any use of a deleted memory). Call it after the change that folded `batch`
/// landed.
pub fn defer(ws: &Workspace, batch: &Batch) -> crate::Result<()> {
    if batch.held.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for line in batch.text.lines() {
        let mut parts = line.split('\t');
        if let (Some(_), Some("use"), Some(id)) = (parts.next(), parts.next(), parts.next())
            && batch.held.contains(id)
        {
            text.push_str(line);
            text.push('\n');
        }
    }
    if !text.is_empty() {
        append(&ws.abs(ACCESS_LOG), text.as_bytes())?;
    }
    Ok(())
}

fn hash(text: &str) -> String {
    crate::store::core_memory::hash8(text)
}

/// Deletes the batch once the decay file on disk records it as folded (after its commit).
///
/// A batch the decay file does not record (no `decay-scores.json`, or a commit that did not
/// land) is kept for the next fold.
pub fn finish(ws: &Workspace) -> crate::Result<()> {
    let folding = ws.abs(FOLDING);
    let Some(bytes) = fsx::read_if_exists(&folding, ws.file_limit())? else { return Ok(()) };
    let path = ws.abs(layout::DECAY_SCORES);
    let Some(text) = fsx::read_text_if_exists(&path, ws.file_limit())? else { return Ok(()) };
    let decay = DecayFile::parse(&text, &path)?;
    if decay.access_fold() == Some(hash(&String::from_utf8_lossy(&bytes)).as_str()) {
        fsx::remove_file(&folding)?;
    }
    Ok(())
}

/// What folding a batch changed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Folded {
    /// Uses applied.
    pub uses: usize,
    /// Interactions counted.
    pub interactions: u64,
    /// Entries created for used memories that had none.
    pub(crate) created: usize,
}

/// Applies a batch to the decay file, unless it records this batch as folded already.
///
/// A use of a memory without an entry creates its entry (as `decay` would), then counts;
/// uses of ids that name no memory (deleted since) and malformed lines are skipped.
pub fn fold(batch: &Batch, decay: &mut DecayFile) -> Folded {
    if decay.access_fold() == Some(batch.hash.as_str()) {
        return Folded::default();
    }
    let mut folded = Folded::default();
    for line in batch.text.lines() {
        let mut parts = line.split('\t');
        let (Some(ts), Some(kind), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(at) = parse_stored(ts) else { continue };
        match kind {
            "interaction" => {
                decay.add_interactions(1);
                folded.interactions += 1;
            }
            "use" => {
                let id = batch.renamed.get(id).map_or(id, String::as_str);
                if batch.held.contains(id) {
                    continue; // put back in the log by `defer`
                }
                if let Some(&(store, _)) = batch.unentered.get(id) {
                    let unit = NewUnit {
                        store,
                        base: batch.settings.base_explicit,
                        created: at.with_timezone(&chrono::Utc),
                        pinned: store == Store::Vault,
                    };
                    if decay.insert_new(id, unit, &batch.settings) {
                        folded.created += 1;
                    }
                }
                let interaction = decay.interactions();
                if decay.touch(id, at, interaction) {
                    folded.uses += 1;
                }
            }
            _ => {}
        }
    }
    decay.set_access_fold(&batch.hash);
    folded
}

/// Loads the decay state of a workspace: `decay-scores.json` (an empty one when it does not
/// exist) and its shard files.
pub fn load_decay(ws: &Workspace) -> crate::Result<DecayFile> {
    DecayFile::load(ws)
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 16
    /// Hostile ids (file names a peer chose): every line stays one use of one id, read back as
    /// written, and an id that would forge a line is left out.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile;
        use proptest::prelude::*;
        let now: Timestamp = parse_stored("2026-12-01T09:00:00Z").expect("a time");
        let strategy = prop::collection::vec(hostile::value(), 0..4);
        hostile::runner(64)
            .run(&strategy, |ids| {
                let ids: Vec<String> = ids.iter().map(|i| format!("vault:{i}")).collect();
                let text = lines(&ids, 2, now);
                let kept: Vec<&String> = ids
                    .iter()
                    .filter(|id| !id.chars().any(|c| c.is_control() || c == '\u{2028}'))
                    .collect();
                let read: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
                prop_assert_eq!(read.len(), kept.len() + 2);
                for (fields, id) in read.iter().zip(&kept) {
                    prop_assert_eq!(fields, &vec!["2026-12-01T09:00:00Z", "use", id.as_str()]);
                }
                Ok(())
            })
            .unwrap();
    }
}
