//! The purge tombstones (`memory/meta/purged`) and the record of a purge in progress
//! (`.cogmem/purge.json`): the two files `cogmem forget --purge` owns.
//!
//! A tombstone says that a memory was purged without saying what it was: one line per purge,
//! `TIME | ENTRY | HASH HASH …`, where ENTRY is a hash naming the purge and each HASH is the
//! [`line_hash`] of one line of the purged text. The file is committed, so it travels with the
//! workspace: `sync --remote` hashes the lines of the commits it fetches and refuses any that
//! would bring purged text back. It never holds the text, an id or a title.
//!
//! The record is the other way round: it holds everything the purge must cut out (the text in
//! every form), so a purge killed half-way can be finished by the next command. It lives under
//! `.cogmem/` (never committed) and is removed when the purge ends.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::fsx;
use super::markdown::one_line;
use crate::store::StoreError;

/// The tombstone file's header.
pub const HEADER: &str = "# Purged memories (cogmem forget --purge): hashes of their lines, never the text.\n\
# TIME | ENTRY | LINE-HASH LINE-HASH …\n";

/// The shortest normalised line that is hashed on its own (shorter lines are too common to
/// tell a memory by).
pub const MIN_HASHED_CHARS: usize = 12;

/// Drops a list marker (`- `, `* `, `+ `, `> `, `1. `) from a line.
pub fn strip_marker(line: &str) -> &str {
    for m in ["- ", "* ", "+ ", "> "] {
        if let Some(rest) = line.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..].strip_prefix(". ")
    {
        return rest.trim_start();
    }
    line
}

/// The form of a line that is hashed: without indentation, a paragraph escape (`\`) or a
/// list marker, with whitespace runs collapsed.
pub fn normalize_line(line: &str) -> String {
    one_line(strip_marker(line.trim().trim_start_matches('\\')))
}

/// The hash of a normalised line (40 hex digits). Salted with a fixed prefix, so it matches no
/// git object id.
pub fn line_hash(normalized: &str) -> String {
    git2::Oid::hash_object(git2::ObjectType::Blob, format!("cogmem purge\n{normalized}").as_bytes())
        .map(|id| id.to_string())
        .unwrap_or_default()
}

/// One purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tombstone {
    /// When it was purged (`YYYY-MM-DDTHH:MM:SSZ`).
    pub at: String,
    /// A hash naming the purge (the PURGE audit line names it too).
    pub entry: String,
    /// The [`line_hash`]es of the purged text's lines.
    pub hashes: Vec<String>,
}

impl Tombstone {
    fn render(&self) -> String {
        format!("{} | {} | {}\n", self.at, self.entry, self.hashes.join(" "))
    }
}

/// Every tombstone of a workspace.
#[derive(Debug, Clone, Default)]
pub struct Tombstones {
    /// In file order.
    pub entries: Vec<Tombstone>,
    hashes: BTreeSet<String>,
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Tombstones {
    /// Parses the file's text; `path` names it in errors.
    ///
    /// Fails on a line that is not `TIME | ENTRY | HASHES` of hex hashes.
    pub fn parse(path: &Path, text: &str) -> Result<Self, StoreError> {
        let mut out = Self::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |what: &str| StoreError::Malformed {
                path: path.to_owned(),
                line: i + 1,
                what: what.to_owned(),
            };
            let mut parts = line.splitn(3, " | ");
            let (Some(at), Some(entry), Some(hashes)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(bad("expected `TIME | ENTRY | HASHES`"));
            };
            let hashes: Vec<String> = hashes.split_whitespace().map(str::to_owned).collect();
            let at_ok = !at.trim().is_empty()
                && at.trim().bytes().all(|b| b.is_ascii_digit() || b"-:TZ".contains(&b));
            if !at_ok {
                return Err(bad("the time must be a UTC timestamp (`2026-12-01T09:00:00Z`)"));
            }
            if !is_hex(entry.trim()) || !hashes.iter().all(|h| is_hex(h)) {
                return Err(bad("the entry and line hashes must be hexadecimal"));
            }
            out.hashes.extend(hashes.iter().cloned());
            out.entries.push(Tombstone {
                at: at.trim().to_owned(),
                entry: entry.trim().to_owned(),
                hashes,
            });
        }
        Ok(out)
    }

    /// Adds the tombstones of `other` (another side's file), keeping each entry once.
    pub fn extend(&mut self, other: Self) {
        for e in other.entries {
            if !self.has_entry(&e.entry) {
                self.hashes.extend(e.hashes.iter().cloned());
                self.entries.push(e);
            }
        }
    }

    /// Tells whether there is no tombstone.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Tells whether a purge recorded the line hash `hash`.
    pub fn has_hash(&self, hash: &str) -> bool {
        self.hashes.contains(hash)
    }

    /// Tells whether the purge named `entry` is recorded.
    pub fn has_entry(&self, entry: &str) -> bool {
        self.entries.iter().any(|e| e.entry == entry)
    }

    /// Tells whether a line of `text` is a line of purged text.
    pub fn holds(&self, text: &str) -> bool {
        !self.is_empty()
            && text.lines().any(|l| {
                let n = normalize_line(l);
                !n.is_empty() && self.hashes.contains(&line_hash(&n))
            })
    }
}

/// The file's text with `entry` appended (the header first when the file is new or empty).
pub fn append(text: Option<&str>, entry: &Tombstone) -> String {
    let mut out = match text {
        Some(t) if !t.trim().is_empty() => t.to_owned(),
        _ => HEADER.to_owned(),
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&entry.render());
    out
}

/// Merges two sides' tombstone files (`sync --remote`): every entry of either side, ours first,
/// then theirs that we lack. Tombstones are never removed, so the common ancestor adds nothing.
///
/// Returns why as `Err` when a side's file is malformed.
pub fn merge3(_base: Option<&str>, ours: &str, theirs: &str) -> Result<String, String> {
    let path = Path::new(crate::workspace::layout::PURGED);
    let o = Tombstones::parse(path, ours).map_err(|e| e.to_string())?;
    let t = Tombstones::parse(path, theirs).map_err(|e| e.to_string())?;
    let mut out = ours.to_owned();
    for e in t.entries {
        if !o.has_entry(&e.entry) {
            out = append(Some(&out), &e);
        }
    }
    Ok(out)
}

/// The hashes that mark `lines` (each normalised; the short ones are left out unless `keep`
/// says a line is the whole text).
pub fn hashes_of<'a>(lines: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<String> {
    let mut set = BTreeSet::new();
    for (line, whole) in lines {
        let n = normalize_line(line);
        if !n.is_empty() && (whole || n.chars().count() >= MIN_HASHED_CHARS) {
            set.insert(line_hash(&n));
        }
    }
    set.into_iter().collect()
}

/// A purge in progress: what it cuts out and how far it got. Written before the purge changes
/// anything, removed when it ends.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PurgeRecord {
    /// Names the backup refs (`refs/cogmem/pre-purge/STAMP/…`).
    pub stamp: String,
    /// The tombstone entry this purge writes.
    pub entry: String,
    /// The memories deleted first (`forget --permanent`): the one purged by id, and every
    /// other copy of the text that is present as a whole memory.
    pub ids: Vec<String>,
    /// Strings cut out of every file and message, longest first.
    pub exact: Vec<String>,
    /// Strings cut out of file names.
    pub names: Vec<String>,
    /// One-line forms whose cut summaries (ending in `…`) are cut out.
    pub cuts: Vec<String>,
    /// Lines another memory holds as its own too: cut only from lines that hold one of `names`
    /// (a record written before there were any has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scoped: Vec<String>,
    /// The tombstone's line hashes.
    pub hashes: Vec<String>,
    /// What caused the purge (for the final commit).
    pub trigger: String,
    /// Who purges.
    pub actor: String,
}

impl PurgeRecord {
    /// Reads the record of the workspace at `root`, if a purge is in progress.
    ///
    /// Fails when the file cannot be read or is not a record.
    pub fn load(root: &Path) -> crate::Result<Option<Self>> {
        let path = root.join(crate::workspace::layout::PURGE_RECORD);
        let Some(text) = fsx::read_text_if_exists(&path, fsx::DEFAULT_FILE_LIMIT)? else {
            return Ok(None);
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            StoreError::Malformed { path, line: e.line(), what: format!("not a purge record: {e}") }
                .into()
        })
    }

    /// Tells whether a purge is in progress in the workspace at `root`.
    pub fn is_pending(root: &Path) -> bool {
        root.join(crate::workspace::layout::PURGE_RECORD).exists()
    }

    /// Writes the record (atomically).
    ///
    /// Fails when the file cannot be written.
    pub fn save(&self, root: &Path) -> crate::Result<()> {
        let path = root.join(crate::workspace::layout::PURGE_RECORD);
        if let Some(dir) = path.parent() {
            fsx::create_dir_all(dir)?;
        }
        let json = serde_json::to_string_pretty(self).expect("a record serialises");
        fsx::write_atomic(&path, json.as_bytes())?;
        Ok(())
    }

    /// Removes the record: the purge is over.
    ///
    /// Fails when the file cannot be removed.
    pub fn remove(root: &Path) -> crate::Result<()> {
        let path = root.join(crate::workspace::layout::PURGE_RECORD);
        if path.exists() {
            fsx::remove_file(&path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tombstones_round_trip_and_match_lines_in_any_shape() {
        let hashes = hashes_of([("The gate code is 4711-purple-otter", true), ("short", false)]);
        assert_eq!(hashes.len(), 1);
        let t = Tombstone { at: "2026-12-01T09:00:00Z".into(), entry: "ab12".into(), hashes };
        let text = append(None, &t);
        assert!(text.starts_with("# Purged"));
        assert!(!text.contains("purple"));
        let parsed = Tombstones::parse(Path::new("purged"), &text).unwrap();
        assert_eq!(parsed.entries, vec![t]);
        for shape in [
            "- The gate code is 4711-purple-otter",
            "  The   gate code is\t4711-purple-otter  ",
            "\\The gate code is 4711-purple-otter",
        ] {
            assert!(parsed.holds(&format!("# Notes\n{shape}\nmore\n")), "shape: {shape:?}");
        }
        assert!(!parsed.holds("The gate code is 4711-purple-otters"));
        let bad = Tombstones::parse(Path::new("purged"), "x | y\n").unwrap_err();
        assert!(bad.to_string().starts_with("purged:1:"), "{bad}");
    }
}
