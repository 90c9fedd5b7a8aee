//! Reinforcement telemetry: reads (`recall`, `show`, `touch`) append uses to
//! `.cogmem/access.log` without committing; the next change folds them into
//! `decay-scores.json` inside its own commit (design.md §2.3).
//!
//! Folding is crash-safe: the log is first moved aside to `access.log.folding`, the decay file
//! records the hash of the batch it folded (`access_fold`), and the batch is deleted only after
//! the commit. A crash before the commit folds the batch again next time; a crash after it finds
//! the hash already recorded and only deletes the batch. At worst a crash loses un-folded
//! telemetry — never a memory. Derived data: never canonical.

use std::path::PathBuf;

use crate::Timestamp;
use crate::store::decay_file::{DecayFile, parse_time};
use crate::store::fsx;
use crate::workspace::{Workspace, layout};

/// The access log, in the derived folder.
pub const ACCESS_LOG: &str = ".cogmem/access.log";
/// The batch being folded.
pub const FOLDING: &str = ".cogmem/access.log.folding";

/// Appends uses of `ids` (and `interactions` remember/recall operations) at `now`.
pub fn record(
    ws: &Workspace,
    ids: &[String],
    interactions: u64,
    now: Timestamp,
) -> crate::Result<()> {
    let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ");
    let mut text = String::new();
    for id in ids {
        text.push_str(&format!("{stamp}\tuse\t{id}\n"));
    }
    for _ in 0..interactions {
        text.push_str(&format!("{stamp}\tinteraction\t-\n"));
    }
    if !text.is_empty() {
        fsx::append(&ws.abs(ACCESS_LOG), text.as_bytes())?;
    }
    Ok(())
}

/// A batch of uses waiting to be folded.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The batch's text.
    pub text: String,
    /// A short hash of it, recorded in `decay-scores.json` once folded.
    pub hash: String,
}

/// Moves the access log aside as the batch to fold, unless an earlier batch is still there
/// (then that one is folded first; new uses wait for the next fold). `None` when there is
/// nothing to fold. Call it holding the workspace lock.
pub fn begin(ws: &Workspace) -> crate::Result<Option<Batch>> {
    let folding = ws.abs(FOLDING);
    if fsx::read_if_exists(&folding)?.is_none() {
        let log = ws.abs(ACCESS_LOG);
        if let Some(bytes) = fsx::read_if_exists(&log)? {
            fsx::write_atomic(&folding, &bytes)?;
            fsx::remove_file(&log)?;
        }
    }
    peek_file(folding)
}

/// Reads what would be folded, without moving anything (for dry runs and `why`).
pub fn peek(ws: &Workspace) -> crate::Result<Option<Batch>> {
    let mut text = String::new();
    for rel in [FOLDING, ACCESS_LOG] {
        if let Some(bytes) = fsx::read_if_exists(&ws.abs(rel))? {
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    Ok((!text.trim().is_empty()).then(|| Batch { hash: hash(&text), text }))
}

fn peek_file(path: PathBuf) -> crate::Result<Option<Batch>> {
    let Some(bytes) = fsx::read_if_exists(&path)? else { return Ok(None) };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((!text.trim().is_empty()).then(|| Batch { hash: hash(&text), text }))
}

fn hash(text: &str) -> String {
    crate::store::core_memory::hash8(text)
}

/// Deletes the folded batch (after its commit).
pub fn finish(ws: &Workspace) -> crate::Result<()> {
    Ok(fsx::remove_file(&ws.abs(FOLDING))?)
}

/// What folding a batch changed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Folded {
    /// Uses applied.
    pub uses: usize,
    /// Interactions counted.
    pub interactions: u64,
}

/// Applies a batch to the decay file, unless it records this batch as folded already.
///
/// Uses of ids without an entry (deleted since) are skipped; malformed lines are skipped.
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
        let Some(at) = parse_time(ts) else { continue };
        match kind {
            "interaction" => {
                decay.add_interactions(1);
                folded.interactions += 1;
            }
            "use" => {
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

/// Loads the decay file of a workspace (an empty one when it does not exist).
pub fn load_decay(ws: &Workspace) -> crate::Result<DecayFile> {
    let path = ws.abs(layout::DECAY_SCORES);
    let text = fsx::read_text_if_exists(&path)?.unwrap_or_else(|| "{}".into());
    Ok(DecayFile::parse(&text, &path)?)
}
