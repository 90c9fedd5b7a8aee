//! The decay entries of the memories that hand edits remove, shared by `sync` (the hand edits
//! it commits) and `adopt` (the commits made outside cogmem it settles): a memory gone from
//! every edited file has its entry marked archived, as `doctor --fix` marks an orphan entry
//! (never deleted: the history of a memory deleted by hand stays readable); a procedure or
//! vault note whose file was renamed with its text unchanged, or nearly, keeps its entry under
//! the new id (uses, score and creation carried over) instead of starting a new one.
//!
//! Reads and edits a [`DecayFile`] in memory only; the caller writes it in its change.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Utc};
use serde::Serialize;

use cogmem_store::change::Change;
use cogmem_store::store::Store;
use cogmem_store::store::decay_file::{ArchiveRecord, DecayFile};
use cogmem_store::store::units::{self, MemoryUnit};

/// A decay entry carried from a memory's old id to its new one (a file renamed by hand).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Carried {
    /// The id the entry had.
    pub from: String,
    /// The id it has now.
    pub to: String,
}

/// What the hand edits did to the decay entries of the memories they removed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settled {
    /// Entries marked archived.
    pub archived: Vec<String>,
    /// Entries moved to a renamed file's new id.
    pub carried: Vec<Carried>,
    /// Forgotten entries brought back: their memory, gone from its file, is written there
    /// again (a forgotten core bullet typed back, a bullet edited away and then back).
    pub revived: Vec<String>,
}

/// The memory units that hand edits remove: in an edited file's earlier version (`before`:
/// path and text) and in none of the edited files' new versions (`after`; a unit moved to
/// another file keeps its id only when its id does not name the file, and is then not removed).
pub(crate) fn removed_units(before: &[(&str, &str)], after: &[(&str, &str)]) -> Vec<MemoryUnit> {
    let kept: HashSet<String> = after
        .iter()
        .flat_map(|(path, text)| units::file_units(path, text).into_iter().map(|u| u.id))
        .collect();
    let mut out: Vec<MemoryUnit> = Vec::new();
    for (path, text) in before {
        for u in units::file_units(path, text) {
            if !kept.contains(&u.id) && !out.iter().any(|o| o.id == u.id) {
                out.push(u);
            }
        }
    }
    out
}

/// Who settles the removed units' entries, when, and why (the archive record's reason).
pub(crate) struct Settler<'a> {
    /// The actor.
    pub by: &'a str,
    /// The time of the change.
    pub at: DateTime<Utc>,
    /// Why, as the archive record says.
    pub reason: &'a str,
}

/// Settles the entries of the `removed` units ([`removed_units`] of `before` and `after`): a
/// procedure or vault note whose file is gone and whose text a new file of the same store holds
/// unchanged or nearly ([`is_renamed`]), that new memory having no entry yet, gets its entry
/// renamed to the new id; every other removed unit with a live entry gets it archived with a
/// record by `who`. Call it before creating the new units' entries, or the renamed file gets a
/// fresh one. Forgotten entries of removed units are left as they are; a unit the edits add
/// whose entry is forgotten is brought back (its forget record goes): written again, it is
/// meant to be found. `change`, which will fold the uses
/// recorded since the last commit, counts those of a renamed memory for its new id.
pub(crate) fn settle(
    change: &mut Change,
    decay: &mut DecayFile,
    removed: &[MemoryUnit],
    before: &[(&str, &str)],
    after: &[(&str, &str)],
    who: &Settler<'_>,
) -> Settled {
    let stamp = who.at.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let record = ArchiveRecord {
        at: &stamp,
        by: who.by,
        created: false,
        removed: &[],
        reason: Some(who.reason),
    };
    let old_ids: HashSet<String> = before
        .iter()
        .flat_map(|(path, text)| units::file_units(path, text).into_iter().map(|u| u.id))
        .collect();
    let after_text: BTreeMap<&str, &str> = after.iter().copied().collect();
    let before_text: BTreeMap<&str, &str> = before.iter().copied().collect();
    // New whole-file memories with no entry yet: the places a renamed file may have gone.
    let mut arrivals: Vec<MemoryUnit> = after
        .iter()
        .flat_map(|(path, text)| units::file_units(path, text))
        .filter(|u| is_whole_file(u.store) && !old_ids.contains(&u.id) && !decay.has(&u.id))
        .collect();
    let mut out = Settled::default();
    for r in removed {
        if !decay.has(&r.id) || decay.is_forgotten(&r.id) {
            continue;
        }
        if is_whole_file(r.store)
            && !after_text.contains_key(r.path.as_str())
            && let Some(old) = before_text.get(r.path.as_str())
            && let Some(i) = arrivals.iter().position(|n| {
                n.store == r.store
                    && after_text.get(n.path.as_str()).is_some_and(|new| is_renamed(old, new))
            })
        {
            let to = arrivals.remove(i).id;
            if decay.rename_entry(&r.id, &to) {
                change.carry_uses(&r.id, &to);
                out.carried.push(Carried { from: r.id.clone(), to });
                continue;
            }
        }
        if decay.archive(&r.id, &record) {
            out.archived.push(r.id.clone());
        }
    }
    for (path, text) in after {
        for u in units::file_units(path, text) {
            if !old_ids.contains(&u.id)
                && decay.is_forgotten(&u.id)
                && decay.unarchive(&u.id)
                && !out.revived.contains(&u.id)
            {
                out.revived.push(u.id);
            }
        }
    }
    out
}

/// The audit summary of what a change did to decay entries: `decay entries for A, B; archived
/// C; carried D → E; brought back F`, or empty when it did nothing.
pub(crate) fn summary(created: &[String], settled: &Settled) -> String {
    let mut what = Vec::new();
    if !created.is_empty() {
        what.push(format!("decay entries for {}", created.join(", ")));
    }
    if !settled.archived.is_empty() {
        what.push(format!("archived {}", settled.archived.join(", ")));
    }
    if !settled.carried.is_empty() {
        let moves: Vec<String> =
            settled.carried.iter().map(|c| format!("{} → {}", c.from, c.to)).collect();
        what.push(format!("carried {}", moves.join(", ")));
    }
    if !settled.revived.is_empty() {
        what.push(format!("brought back {}", settled.revived.join(", ")));
    }
    what.join("; ")
}

/// Whether a store's memory is a whole file, whose id names the file: a procedure or a vault
/// note. (An entity is one too, but other entities link to it by its id: a hand rename breaks
/// those links, and `cogmem graph rename` moves the entity, its links and its entry together.)
fn is_whole_file(store: Store) -> bool {
    matches!(store, Store::Procedural | Store::Vault)
}

/// Whether `new` is `old` renamed: the same lines, or nearly (at least 80% of their non-blank
/// lines in common, counted as git counts similar files, but stricter than git's 50%: a wrong
/// match would give a memory another one's uses). The comment line of decay fields, which
/// `decay` rewrites, is not counted.
fn is_renamed(old: &str, new: &str) -> bool {
    let lines = |t: &str| -> Vec<String> {
        let mut v: Vec<String> = t
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("<!-- Decay score:"))
            .map(str::to_owned)
            .collect();
        v.sort();
        v
    };
    let (a, b) = (lines(old), lines(new));
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    // Lines in common, counted as a multiset (both lists are sorted).
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
        }
    }
    common * 10 >= (a.len() + b.len()) * 4 // 2·common / (|a| + |b|) ≥ 0.8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_file_is_recognised_by_its_lines() {
        let proc = "# Deploy\n<!-- Type: procedure -->\n<!-- Decay score: 1.00 | Access count: 3 -->\n\n## Steps\n1. build\n2. test\n3. tag\n4. push\n";
        let cases = [
            (proc, true),
            (&proc.replace("Access count: 3", "Access count: 4"), true),
            (&proc.replace("4. push\n", "4. push\n5. announce\n"), true),
            (&proc.replace("1. build\n2. test\n", "1. lint\n2. check\n"), false),
            ("# Other\n\nsomething else entirely\n", false),
            ("", false),
        ];
        for (new, want) in cases {
            assert_eq!(is_renamed(proc, new), want, "new: {new:?}");
        }
    }
}
