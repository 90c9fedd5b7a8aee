//! Decay entries for many new units at once (an import of a million messages, issue 20), one
//! shard at a time: the memory it takes is one shard's entries, not every entry's. Each file
//! it changes is handed to the caller as soon as it is rendered, so the caller can stage it.
//!
//! The result is what [`DecayFile::load`], [`DecayFile::insert_new`] for every key and
//! [`DecayFile::changed_files`] give, file for file (a test checks it), in the same layout.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::{
    DecayFile, Layout, NewUnit, SPLIT_AT, Shard, Slot, disk, file_path, shard_files, shard_of,
};
use crate::settings::DecaySettings;
use crate::workspace::ReadRoot;

impl DecayFile {
    /// Adds an entry for each of `keys` (new units, all made as `unit`), calling `emit` with
    /// each file that changes (path relative to the root, text; `None` for a file to remove,
    /// as [`DecayFile::changed_files`] gives it), one shard at a time. A key
    /// that already has an entry is left as it is. Returns how many entries were added.
    ///
    /// Past [`SPLIT_AT`] entries the entries live in shards: then only the main file's fields
    /// and one shard are in memory at a time, and entries still in the main file move to
    /// their shards as [`DecayFile::changed_files`] moves them. Below it, or when the main
    /// file and shards both hold entries (a hand edit, a merge), every entry is loaded.
    pub fn insert_new_by_shard(
        from: &(impl ReadRoot + ?Sized),
        keys: &[String],
        unit: NewUnit,
        p: &DecaySettings,
        emit: impl FnMut(String, Option<String>) -> crate::Result<()>,
    ) -> crate::Result<usize> {
        Self::insert_groups_by_shard(from, &[(keys, unit)], p, emit)
    }

    /// [`DecayFile::insert_new_by_shard`] for several groups of keys, each made as its own
    /// unit (an import's messages and the entities it creates, issue 22), every file written
    /// once.
    pub fn insert_groups_by_shard(
        from: &(impl ReadRoot + ?Sized),
        groups: &[(&[String], NewUnit)],
        p: &DecaySettings,
        mut emit: impl FnMut(String, Option<String>) -> crate::Result<()>,
    ) -> crate::Result<usize> {
        let root = from.root();
        let present = shard_files(root);
        let main = Self::load_with(root, &[], disk(from))?;
        let count: usize = groups.iter().map(|(keys, _)| keys.len()).sum();
        let small = present.is_empty() && main.len() + count <= SPLIT_AT;
        if small || (!main.is_empty() && !present.is_empty()) {
            let mut all = if present.is_empty() { main } else { Self::load(from)? };
            let mut added = 0;
            for (keys, unit) in groups {
                added += keys.iter().filter(|k| all.insert_new(k, *unit, p)).count();
            }
            for (path, text) in all.changed_files() {
                emit(path, text)?;
            }
            return Ok(added);
        }
        // Entries of the main file (a workspace passing SPLIT_AT now) go to their shards.
        let mut moving: BTreeMap<Shard, Vec<(String, Slot)>> = BTreeMap::new();
        let mut fields = main;
        if present.is_empty() {
            // The first split: in this version's layout.
            fields.set_layout(Layout::current(fields.layout.shards));
        }
        let layout = fields.layout;
        let shards = layout.shards;
        for (key, mut slot) in std::mem::take(&mut fields.entries) {
            let n = shard_of(&key, layout);
            slot.home = Some(n);
            slot.dirty = true;
            moving.entry(n).or_default().push((key, slot));
        }
        // The first split rewrites the main file, as `changed_files` does.
        let migrated = !moving.is_empty() || present.is_empty();
        fields.by_key.clear();
        fields.sharded = true;
        fields.complete = false;
        fields.touched.clear();
        let mut by_shard: BTreeMap<Shard, Vec<(&String, usize)>> = BTreeMap::new();
        for (g, (keys, _)) in groups.iter().enumerate() {
            for key in *keys {
                by_shard.entry(shard_of(key, layout)).or_default().push((key, g));
            }
        }
        // Every new entry of a group is the same but for its key: rendered once, copied.
        let raws: Vec<Box<RawValue>> =
            groups.iter().map(|(_, unit)| entry_text(&fields, *unit, p)).collect();
        let mut added = 0;
        for n in (0..shards).map(|n| Shard::nth(n, shards)) {
            let new = by_shard.remove(&n).unwrap_or_default();
            let moved = moving.remove(&n).unwrap_or_default();
            if new.is_empty() && moved.is_empty() {
                continue;
            }
            let mut shard = fields.clone();
            shard.add_shards(root, &[n], disk(from))?;
            for (key, slot) in moved {
                if !shard.by_key.contains_key(&key) {
                    shard.by_key.insert(key.clone(), shard.entries.len());
                    shard.entries.push((key, slot));
                }
            }
            for (key, g) in new {
                if !shard.by_key.contains_key(key.as_str()) {
                    let slot = Slot {
                        raw: Some(raws[g].clone()),
                        parsed: OnceCell::new(),
                        dirty: false,
                        home: Some(n),
                    };
                    shard.by_key.insert(key.clone(), shard.entries.len());
                    shard.entries.push((key.clone(), slot));
                    added += 1;
                }
            }
            emit(file_path(Some(n)), Some(shard.render(Some(n))))?;
        }
        if migrated || fields.root != fields.root_read {
            emit(file_path(None), Some(fields.render(None)))?;
        }
        Ok(added)
    }
}

/// The text of the entry [`DecayFile::insert_new`] makes for `unit` with the fields (the
/// interaction count) of `fields`, as a shard file holds it: what a file read back keeps as it is.
fn entry_text(fields: &DecayFile, unit: NewUnit, p: &DecaySettings) -> Box<RawValue> {
    let mut one = fields.clone();
    one.sharded = true;
    let key = "k";
    one.insert_new(key, unit, p);
    let text = one.render(Some(shard_of(key, fields.layout)));
    let start = text.find("\"k\": ").map_or(0, |i| i + 5);
    let end = text.rfind("\n    }").map_or(text.len(), |i| i + 6);
    RawValue::from_string(text[start..end].to_owned()).expect("a rendered entry is JSON")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use super::*;
    use crate::store::Store;

    /// Decay entries added shard by shard are the files the whole-file path writes, for a
    /// fresh workspace, one already split into shards, and one passing the split now.
    #[test]
    fn by_shard_gives_the_files_of_the_whole_file_path() {
        let p = DecaySettings::default();
        let created = chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
            .expect("a time")
            .with_timezone(&chrono::Utc);
        let unit = NewUnit { store: Store::Episodic, base: 0.7, created, pinned: false };
        let keys = |from: usize, n: usize| -> Vec<String> {
            (from..from + n).map(|i| format!("episode:2026-01-01:10:00:{i}")).collect()
        };
        // (entries already there, new entries)
        for (before, new) in [(0, 1500), (1200, 300), (20, 1200), (10, 5)] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            let write = |files: Vec<(String, Option<String>)>| {
                for (path, text) in files {
                    let abs = root.join(path);
                    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
                    std::fs::write(abs, text.expect("nothing removed")).unwrap();
                }
            };
            let mut start = DecayFile::load(root).unwrap();
            for k in keys(0, before) {
                start.insert_new(&k, unit, &p);
            }
            write(start.changed_files());
            let mut whole = DecayFile::load(root).unwrap();
            let new_keys = keys(before, new);
            for k in &new_keys {
                whole.insert_new(k, unit, &p);
            }
            let mut want = whole.changed_files();
            want.sort();
            let mut got = Vec::new();
            let added = DecayFile::insert_new_by_shard(root, &new_keys, unit, &p, |path, text| {
                got.push((path, text));
                Ok(())
            })
            .unwrap();
            got.sort();
            assert_eq!(added, new, "before {before}, new {new}");
            let names = |v: &[(String, Option<String>)]| {
                v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>()
            };
            assert_eq!(names(&got), names(&want), "before {before}, new {new}");
            assert!(got == want, "before {before}, new {new}: same text");
        }
    }
}
