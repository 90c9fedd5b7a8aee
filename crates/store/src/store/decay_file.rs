//! `memory/meta/decay-scores.json`: decay entries keyed `<kind>:<id>` plus reflection state and
//! the token economy. Reads versions 1–3, writes version 3, and keeps every field it does not
//! know, in order, so files written by the cognitive-memory skill survive a round trip.
//!
//! Past [`SPLIT_AT`] entries the entries move to 64 shard files, `memory/meta/decay/NN.json`
//! (`{"entries": {…}}`, the shard chosen by a hash of the key), and `decay-scores.json` keeps
//! the rest. Every change commits the files it changes whole, so one multi-megabyte file
//! rewritten by every `remember` cost each commit tens of milliseconds and made the
//! repository grow with the square of the number of memories; a shard is a sixty-fourth of it.
//! Past [`GROW_AT`] entries per shard on average, a write that read every shard splits them
//! into four times as many: 256 (issue 20: at 100,000 memories a sixty-fourth was still 556 KB
//! per write), then 1,024 and 4,096 (at 100,000 memories a 256th was 230 KB; at a million it
//! would be 2.3 MB), so that a shard holds 64 to 256 entries whatever the workspace's size. The
//! main file records the count as `"shards"` (absent: 64). Layouts of up to 256 files name them
//! with two hex digits (`0a.json`), larger ones with three (`00a.json`): the split to 1,024
//! removes the two-digit files.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::reflection::RewardFile;
use super::{Store, StoreError};
use crate::Timestamp;
use crate::decay::{self, Band, DecayInputs, Now};
use crate::settings::DecaySettings;
use crate::workspace::ReadRoot;
use cogmem_text::date::parse_stored;

mod bulk;
mod merge;

pub use merge::{DecayRenames, merge3};

/// The parsed file. The entries (ten thousand of them in a large workspace) are kept as the
/// text they were read from and parsed only when one is asked for, so adding one entry or
/// touching a few costs a scan of the file, not a parse of every entry; entries nobody changed
/// are written back byte for byte.
#[derive(Debug, Clone)]
pub struct DecayFile {
    /// Every top-level field but `entries`, in order (`entries` keeps its place as a `null`).
    root: Map<String, Value>,
    /// `root` as read, to tell whether the main file changed.
    root_read: Map<String, Value>,
    entries: Vec<(String, Slot)>,
    by_key: HashMap<String, usize>,
    /// Whether entries live in shard files.
    sharded: bool,
    /// How entries are spread over shard files: how many ([`FIRST_SHARDS`] times a power of
    /// four, up to [`MAX_SHARDS`]), and whether episodes are placed by the hour.
    layout: Layout,
    /// Files an entry was removed from or moved out of (`None`: the main file).
    touched: BTreeSet<Option<Shard>>,
    /// Whether every shard file was read (not so for [`DecayFile::load_for`]).
    complete: bool,
}

/// Entries past which `decay-scores.json` is split into shard files.
pub const SPLIT_AT: usize = 1000;

/// Number of shard files when the entries first move to shards.
pub const FIRST_SHARDS: u16 = 64;

/// The most shard files.
pub const MAX_SHARDS: u16 = 4096;

/// Layouts of more than this many shard files name them with three hex digits.
const NARROW_MAX: u16 = 256;

/// Entries per shard, on average, past which a write that read every shard spreads the entries
/// over four times as many (up to [`MAX_SHARDS`]).
pub const GROW_AT: usize = 256;

/// A shard file: its number among its layout's files, and whether its name has three hex
/// digits (layouts of more than 256 files) or two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    wide: bool,
    n: u16,
}

impl Shard {
    /// Shard `n` of a layout of `shards` files.
    pub fn nth(n: u16, shards: u16) -> Self {
        Self { wide: shards > NARROW_MAX, n }
    }

    /// Its name: the number in two or three lower-case hex digits (`0a`, `00a`).
    pub fn name(self) -> String {
        if self.wide { format!("{:03x}", self.n) } else { format!("{:02x}", self.n) }
    }

    /// The shard a name ([`Shard::name`]) stands for.
    pub fn from_name(hex: &str) -> Option<Self> {
        let wide = match hex.len() {
            2 => false,
            3 => true,
            _ => return None,
        };
        if !hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return None;
        }
        Some(Self { wide, n: u16::from_str_radix(hex, 16).ok()? })
    }
}

/// How entry keys map to shard files: how many files, and whether an episode's entry is
/// placed by the hour it was written in (`"shard_key": "episode-hour"` in the main file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The number of shard files ([`FIRST_SHARDS`] times a power of four).
    pub shards: u16,
    /// Whether an episode's entry is placed by its day and hour ([`shard_of`]).
    pub episode_hours: bool,
}

impl Layout {
    /// The layout a workspace's main file gives when it says nothing: 64 files, entries placed
    /// by their whole key.
    pub const FIRST: Self = Self { shards: FIRST_SHARDS, episode_hours: false };

    /// The layout of a workspace that split or grew into `shards` files with this version
    /// (episodes placed by the hour).
    pub fn current(shards: u16) -> Self {
        Self { shards, episode_hours: true }
    }
}

/// The main file's field naming how episode entries are placed, and its value for
/// [`Layout::episode_hours`].
const SHARD_KEY: (&str, &str) = ("shard_key", "episode-hour");

/// Consecutive shards over which the entries of one hour of episodes are spread.
pub const HOUR_SPREAD: u64 = 8;

/// FNV-1a (64-bit) of some bytes: how a decay entry's shard is found, and an entity's shard
/// of the search index's graph caches.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// An episode key's hour (`episode:YYYY-MM-DD:HH`) and the rest of it (`:MM[:N]`), when the key
/// has that shape.
fn episode_hour(key: &str) -> Option<(&str, &str)> {
    const HOUR: usize = "episode:YYYY-MM-DD:HH".len();
    let b = key.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let shaped = b.len() >= HOUR
        && key.starts_with("episode:")
        && digits(8..12)
        && b[12] == b'-'
        && digits(13..15)
        && b[15] == b'-'
        && digits(16..18)
        && b[18] == b':'
        && digits(19..21);
    shaped.then(|| key.split_at(HOUR))
}

/// The shard an entry key belongs to in a layout: a hash of the key modulo the number of
/// files. The hash is FNV-1a of the key; in a layout that places episodes by the hour, an
/// episode key's is FNV-1a of its hour plus FNV-1a of the rest modulo [`HOUR_SPREAD`], so
/// the entries of one hour (an imported session, a day's transcript) land in at most eight
/// consecutive shards instead of one shard each. Each layout's count divides the next one's,
/// so a key's shard in a smaller layout is its number in the larger one modulo the smaller
/// count.
pub fn shard_of(key: &str, layout: Layout) -> Shard {
    let h = match episode_hour(key).filter(|_| layout.episode_hours) {
        Some((hour, rest)) => {
            fnv1a(hour.as_bytes()).wrapping_add(fnv1a(rest.as_bytes()) % HOUR_SPREAD)
        }
        None => fnv1a(key.as_bytes()),
    };
    let shards = layout.shards.clamp(1, MAX_SHARDS);
    Shard::nth(u16::try_from(h % u64::from(shards)).unwrap_or(0), shards)
}

/// The shards a key may live in, whatever the count of files: its shard among 4,096, 1,024,
/// 256 and 64 files, in that order, in the layouts that do (`episode_hours`) or do not place
/// episodes by the hour. For readers that do not know the count (a derived cache looked up by
/// key).
pub fn shards_of(key: &str, episode_hours: bool) -> [Shard; 4] {
    [MAX_SHARDS, MAX_SHARDS / 4, MAX_SHARDS / 16, FIRST_SHARDS]
        .map(|shards| shard_of(key, Layout { shards, episode_hours }))
}

/// The path (relative to the root) of a decay file: the main file for `None`, else a shard.
pub fn file_path(home: Option<Shard>) -> String {
    match home {
        None => crate::workspace::layout::DECAY_SCORES.to_owned(),
        Some(n) => format!("{}/{}.json", crate::workspace::layout::DECAY_SHARDS_DIR, n.name()),
    }
}

/// The decay file a path (relative to the root) is: `Some(None)` for the main file,
/// `Some(Some(shard))` for a shard, `None` for any other path.
pub fn home_of(rel: &str) -> Option<Option<Shard>> {
    use crate::workspace::layout::{DECAY_SCORES, DECAY_SHARDS_DIR};
    if rel == DECAY_SCORES {
        return Some(None);
    }
    let name = rel.strip_prefix(DECAY_SHARDS_DIR)?.strip_prefix('/')?;
    shard_number(name).map(Some)
}

/// The shard a file name stands for (`0a.json`, `00a.json`), if it is a shard's name.
pub fn shard_number(name: &str) -> Option<Shard> {
    Shard::from_name(name.strip_suffix(".json")?)
}

/// Reads a file of a workspace (a path relative to its root), `None` when missing.
fn disk(from: &(impl ReadRoot + ?Sized)) -> impl Fn(&str) -> crate::Result<Option<String>> + '_ {
    move |rel| crate::store::fsx::read_text_if_exists(&from.root().join(rel), from.file_limit())
}

/// The shard files present in a workspace, by number.
pub fn shard_files(root: &Path) -> Vec<Shard> {
    let dir = root.join(crate::workspace::layout::DECAY_SHARDS_DIR);
    let Ok(listing) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<Shard> = listing
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().and_then(shard_number))
        .collect();
    out.sort_unstable();
    out
}

/// One entry: its text as read, parsed on demand; `dirty` once it was changed.
#[derive(Debug, Clone)]
struct Slot {
    raw: Option<Box<RawValue>>,
    parsed: OnceCell<Option<Map<String, Value>>>,
    dirty: bool,
    /// The file it lives in: `None` for the main file, else its shard.
    home: Option<Shard>,
}

impl Slot {
    fn new(map: Map<String, Value>, home: Option<Shard>) -> Self {
        Self { raw: None, parsed: OnceCell::from(Some(map)), dirty: true, home }
    }

    fn get(&self) -> Option<&Map<String, Value>> {
        self.parsed
            .get_or_init(|| {
                let raw = self.raw.as_ref()?;
                match serde_json::from_str::<Value>(raw.get()).ok()? {
                    Value::Object(m) => Some(m),
                    _ => None,
                }
            })
            .as_ref()
    }

    fn get_mut(&mut self) -> Option<&mut Map<String, Value>> {
        self.get()?;
        self.dirty = true;
        self.parsed.get_mut()?.as_mut()
    }
}

/// A JSON object read as (key, raw value) pairs, in order.
struct RawObject(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for RawObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<RawObject, A::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(0));
                while let Some((k, v)) = m.next_entry::<String, Box<RawValue>>()? {
                    out.push((k, v));
                }
                Ok(RawObject(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The stored inputs of a score, read straight from an entry's text (lenient: a field of the
/// wrong type counts as missing, as with [`DecayFile::inputs`]).
#[derive(Deserialize)]
struct RawInputs {
    base_relevance: Option<Value>,
    type_weight: Option<Value>,
    access_count: Option<Value>,
    last_accessed: Option<Value>,
    created: Option<Value>,
    last_interaction: Option<Value>,
    pinned: Option<Value>,
    archive: Option<serde::de::IgnoredAny>,
    status: Option<Value>,
}

/// An entity's decay as the graph index shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntityScore {
    /// Its stored score.
    pub score: f64,
    /// Pinned.
    pub pinned: bool,
    /// Forgotten (`forget`): not listed in the graph index.
    pub forgotten: bool,
}

/// An entry's stored score, access count and pin, as [`DecayFile::stored`] reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stored {
    /// The stored score.
    pub score: f64,
    /// Uses so far.
    pub access_count: u64,
    /// Pinned.
    pub pinned: bool,
}

/// A new memory unit's decay entry.
#[derive(Debug, Clone, Copy)]
pub struct NewUnit {
    /// Its store.
    pub store: Store,
    /// Base relevance.
    pub base: f64,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Pinned (vault).
    pub pinned: bool,
}

impl DecayFile {
    /// Parses the main file alone (its entries, none of the shards'); `path` is only used in
    /// errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, StoreError> {
        Self::parse_file(text, path, true)
    }

    /// Parses one shard file on its own (`{"entries": {…}}`), as a file of its own.
    pub fn parse_shard(text: &str, path: &Path) -> Result<Self, StoreError> {
        Self::parse_file(text, path, false)
    }

    /// Parses the decay file `home` names (`None`: the main file, [`DecayFile::parse`]; a
    /// shard, [`DecayFile::parse_shard`]).
    pub fn parse_home(text: &str, path: &Path, home: Option<Shard>) -> Result<Self, StoreError> {
        Self::parse_file(text, path, home.is_none())
    }

    /// Loads a workspace's decay state: the main file (an empty one when missing) and every
    /// shard file.
    pub fn load(from: &(impl ReadRoot + ?Sized)) -> crate::Result<Self> {
        let root = from.root();
        Self::load_with(root, &shard_files(root), disk(from))
    }

    /// Loads the decay state for reading only, as [`DecayFile::load_for`] does (every file when
    /// `keys` is `None`, as [`DecayFile::load`]; every file, too, when one is bad), leaving out each decay file that cannot be
    /// read or parsed (a link out of the workspace, a hand edit's conflict markers): its
    /// entries are missing, as if it were empty, and the file is returned to be reported.
    /// A malformed decay file is reported and skipped by every read (a search, a pack, a
    /// memory shown); only a write, which must not drop its entries, refuses it. Never write
    /// what this returns when the list is not empty.
    pub fn load_readable(
        from: &(impl ReadRoot + ?Sized),
        keys: Option<&[&str]>,
    ) -> (Self, Vec<super::units::Unreadable>) {
        let strict = match keys {
            Some(keys) => Self::load_for(from, keys),
            None => Self::load(from),
        };
        if let Ok(decay) = strict {
            return (decay, Vec::new()); // the common case: one read of each file
        }
        let root = from.root();
        let bad = std::cell::RefCell::new(Vec::new());
        let read = |rel: &str| -> crate::Result<Option<String>> {
            let path = root.join(rel);
            let text = disk(from)(rel).and_then(|text| {
                let Some(text) = text else { return Ok(None) };
                let parsed = Self::parse_home(&text, &path, home_of(rel).flatten());
                parsed.map(|_| Some(text)).map_err(Into::into)
            });
            text.or_else(|e| {
                let error = e.to_string();
                bad.borrow_mut().push(super::units::Unreadable { path: rel.to_owned(), error });
                Ok(None)
            })
        };
        // Every shard, whatever the keys: this is the rare path of a workspace with a bad file.
        let decay = Self::load_with(root, &shard_files(root), read);
        let empty =
            || Self::parse("{}", &root.join(file_path(None))).expect("`{}` is a decay file");
        (decay.unwrap_or_else(|_| empty()), bad.into_inner())
    }

    /// Loads the main file and only the shards that hold `keys`: enough to add or touch those
    /// entries and write what changed. Falls back to a full load when the main file still
    /// holds entries that a write would move to shards.
    pub fn load_for(from: &(impl ReadRoot + ?Sized), keys: &[&str]) -> crate::Result<Self> {
        let root = from.root();
        let present = shard_files(root);
        let mut out = Self::load_with(root, &[], disk(from))?;
        if present.is_empty() && out.len() + keys.len() <= SPLIT_AT {
            return Ok(out);
        }
        if !out.is_empty() {
            return Self::load(from);
        }
        let wanted: Vec<Shard> = present
            .iter()
            .copied()
            .filter(|n| keys.iter().any(|k| shard_of(k, out.layout) == *n))
            .collect();
        // Every shard read (the keys are spread over all of them): as complete as a full load.
        let complete = wanted.len() == present.len();
        out.add_shards(root, &wanted, disk(from))?;
        out.sharded = true;
        out.complete = complete;
        Ok(out)
    }

    /// Loads the main file and the given shards through `read` (a path relative to the root →
    /// the file's text, `None` when missing).
    pub fn load_with(
        root: &Path,
        shards: &[Shard],
        read: impl Fn(&str) -> crate::Result<Option<String>>,
    ) -> crate::Result<Self> {
        let main_rel = file_path(None);
        let text = read(&main_rel)?.unwrap_or_else(|| "{}".into());
        let mut out = Self::parse(&text, &root.join(&main_rel))?;
        out.add_shards(root, shards, read)?;
        Ok(out)
    }

    /// Reads the given shards through `read` into this state.
    fn add_shards(
        &mut self,
        root: &Path,
        shards: &[Shard],
        read: impl Fn(&str) -> crate::Result<Option<String>>,
    ) -> crate::Result<()> {
        let out = self;
        for &n in shards {
            let rel = file_path(Some(n));
            let Some(text) = read(&rel)? else { continue };
            let shard = Self::parse_shard(&text, &root.join(&rel))?;
            out.sharded = true;
            for (key, mut slot) in shard.entries {
                slot.home = Some(n);
                match out.by_key.get(&key) {
                    // The same key twice (a merge, a hand edit): the shard's wins and the
                    // other file is rewritten without it.
                    Some(&i) => {
                        out.touched.insert(out.entries[i].1.home);
                        out.entries[i] = (key, slot);
                    }
                    None => {
                        out.by_key.insert(key.clone(), out.entries.len());
                        out.entries.push((key, slot));
                    }
                }
            }
        }
        Ok(())
    }

    /// The files this state changes, as (path relative to the root, text, `None` for a file to
    /// remove): the main file when its own fields or entries changed, each shard with a
    /// changed, added or removed entry. Splits the main file into shards once it holds more
    /// than [`SPLIT_AT`] entries; in a split workspace, entries found in the main file move to
    /// their shards. A shard file of another layout (two-digit names after the split to 1,024)
    /// left without entries is removed.
    pub fn changed_files(&mut self) -> Vec<(String, Option<String>)> {
        let mut homes = self.touched.clone();
        if !self.sharded && self.entries.len() > SPLIT_AT {
            self.sharded = true;
        }
        if self.sharded && self.complete {
            // Many entries per shard: four times as many shards, every entry moving below.
            let mut grown = self.layout.shards;
            while grown < MAX_SHARDS && self.entries.len() > GROW_AT * usize::from(grown) {
                grown *= 4;
            }
            if grown != self.layout.shards {
                self.root.insert("shards".into(), Value::from(grown));
            }
            // A layout that places episodes by their whole key moves them to their hours'
            // shards: every entry is rewritten once, as when the count grows.
            self.set_layout(Layout::current(grown));
            // Entries in the main file, or in another shard than their own (a merge renamed
            // them), move to their shard. Only with every shard read: writing a shard that was
            // not read would lose its entries.
            let layout = self.layout;
            for (key, slot) in &mut self.entries {
                let home = Some(shard_of(key, layout));
                if slot.home != home {
                    homes.insert(slot.home);
                    homes.insert(home);
                    slot.home = home;
                }
            }
        }
        for (_, slot) in &self.entries {
            if slot.dirty {
                homes.insert(slot.home);
            }
        }
        if self.root != self.root_read {
            homes.insert(None);
        }
        let wide = self.layout.shards > NARROW_MAX;
        let stray = |h: Shard| h.wide != wide || h.n >= self.layout.shards;
        let lived_in: BTreeSet<Shard> = homes
            .iter()
            .flatten()
            .filter(|h| stray(**h))
            .filter(|h| self.entries.iter().any(|(_, slot)| slot.home == Some(**h)))
            .copied()
            .collect();
        homes
            .into_iter()
            .map(|h| match h {
                Some(s) if stray(s) && !lived_in.contains(&s) => (file_path(h), None),
                _ => (file_path(h), Some(self.render(h))),
            })
            .collect()
    }

    /// The file (relative to the root) an entry lives in.
    pub fn file_of(&self, key: &str) -> Option<String> {
        self.slot(key).map(|s| file_path(s.home))
    }

    /// Whether the entries live in shard files.
    pub fn is_sharded(&self) -> bool {
        self.sharded
    }

    /// How many shard files the entries are spread over (the main file's `"shards"`, 64 when
    /// it does not say).
    pub fn shard_count(&self) -> u16 {
        self.layout.shards
    }

    /// How entries are spread over shard files (from the main file's `"shards"` and
    /// `"shard_key"`).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Records a layout in the main file's fields (its entries do not move here).
    fn set_layout(&mut self, layout: Layout) {
        if layout.episode_hours && !self.layout.episode_hours {
            self.root.insert(SHARD_KEY.0.into(), Value::from(SHARD_KEY.1));
        }
        self.layout = layout;
    }

    fn parse_file(text: &str, path: &Path, main: bool) -> Result<Self, StoreError> {
        let malformed =
            |what: String, line: usize| StoreError::Malformed { path: path.to_owned(), line, what };
        // Any syntax error is reported by a full parse, which knows the line.
        let full_error = || match serde_json::from_str::<Value>(text) {
            Err(e) => malformed(format!("not valid JSON: {}", json_message(&e)), e.line()),
            Ok(_) => malformed("expected a JSON object".into(), 1),
        };
        let top: RawObject = serde_json::from_str(text).map_err(|_| full_error())?;
        let mut root = Map::new();
        let mut entries_raw = None;
        for (k, v) in top.0 {
            if k == "entries" {
                entries_raw = Some(v);
                root.insert(k, Value::Null);
            } else {
                let value: Value = serde_json::from_str(v.get()).map_err(|_| full_error())?;
                root.insert(k, value);
            }
        }
        let mut entries: Vec<(String, Slot)> = Vec::new();
        let mut by_key = HashMap::new();
        match entries_raw {
            None => {
                root.insert("entries".into(), Value::Null);
            }
            Some(raw) if raw.get().trim_start().starts_with('{') => {
                let obj: RawObject = serde_json::from_str(raw.get()).map_err(|_| full_error())?;
                entries.reserve(obj.0.len());
                for (k, v) in obj.0 {
                    // Entries in the layout this writer produces are kept as they are; others
                    // (compact, differently indented) are re-written in that layout.
                    let canonical = v.get().starts_with("{\n      \"")
                        && v.get().ends_with("\n    }")
                        || v.get() == "{}";
                    let slot = Slot {
                        raw: Some(v),
                        parsed: OnceCell::new(),
                        dirty: !canonical,
                        home: None,
                    };
                    match by_key.get(&k) {
                        // A repeated key: the last one wins, as a JSON parser would have it.
                        Some(&i) => entries[i] = (k, slot),
                        None => {
                            by_key.insert(k.clone(), entries.len());
                            entries.push((k, slot));
                        }
                    }
                }
            }
            Some(_) => return Err(malformed("`entries` must be an object".into(), 1)),
        }
        let root_read = root.clone();
        if main {
            upgrade(&mut root);
        }
        let shards = match root.get("shards").and_then(Value::as_u64) {
            Some(n @ (256 | 1024 | 4096)) => n as u16,
            _ => FIRST_SHARDS,
        };
        let episode_hours = root.get(SHARD_KEY.0).and_then(Value::as_str) == Some(SHARD_KEY.1);
        let layout = Layout { shards, episode_hours };
        Ok(Self {
            root,
            root_read,
            entries,
            by_key,
            sharded: false,
            layout,
            touched: BTreeSet::new(),
            complete: true,
        })
    }

    /// Tells whether an entry exists.
    pub fn has(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// Returns the number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Tells whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn slot(&self, key: &str) -> Option<&Slot> {
        self.by_key.get(key).map(|&i| &self.entries[i].1)
    }

    /// Adds an entry for a new unit; returns `false` (and changes nothing) if the key exists.
    pub fn insert_new(&mut self, key: &str, unit: NewUnit, p: &DecaySettings) -> bool {
        if self.has(key) {
            return false;
        }
        let weight = if unit.pinned { 1.0 } else { type_weight(unit.store, p) };
        let created = unit.created.fixed_offset();
        let interactions = self.interactions();
        let inputs = DecayInputs {
            base: unit.base,
            type_weight: weight,
            access_count: 1,
            last_accessed: created,
            last_interaction: interactions,
            pinned: unit.pinned,
            forgotten: false,
        };
        let score = decay::relevance(&inputs, &Now { time: created, interactions }, p);
        let stamp = unit.created.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let Value::Object(map) = json!({
            "store": unit.store.as_str(),
            "base_relevance": unit.base,
            "created": stamp,
            "last_accessed": stamp,
            "access_count": 1,
            "type_weight": weight,
            "current_score": (score * 1000.0).round() / 1000.0,
            "status": decay::band(score, p).as_str(),
            "pinned": unit.pinned,
            "last_interaction": interactions,
        }) else {
            return false;
        };
        let home = self.sharded.then(|| shard_of(key, self.layout));
        self.by_key.insert(key.to_owned(), self.entries.len());
        self.entries.push((key.to_owned(), Slot::new(map, home)));
        true
    }

    /// Returns an entry's fields. Private: callers use the typed readers and writers, so the
    /// JSON layout of an entry is known here alone.
    fn entry(&self, key: &str) -> Option<&Map<String, Value>> {
        self.slot(key)?.get()
    }

    /// Returns an entry's fields for editing.
    fn entry_mut(&mut self, key: &str) -> Option<&mut Map<String, Value>> {
        let i = *self.by_key.get(key)?;
        self.entries[i].1.get_mut()
    }

    /// Removes an entry (permanent deletion only), keeping the others in order.
    pub fn remove_entry(&mut self, key: &str) -> bool {
        let Some(i) = self.by_key.remove(key) else { return false };
        let (_, slot) = self.entries.remove(i);
        self.touched.insert(slot.home);
        for (n, (k, _)) in self.entries.iter().enumerate().skip(i) {
            self.by_key.insert(k.clone(), n);
        }
        true
    }

    /// Moves an entry to another key, keeping every field: a core bullet whose text, and so
    /// whose id, a purge changed (issue 16). Returns `false` (changing nothing) when `from` has
    /// no entry, `to` has one, or the entry cannot be read.
    pub fn rename_entry(&mut self, from: &str, to: &str) -> bool {
        if self.has(to) {
            return false;
        }
        let Some(map) = self.slot(from).and_then(Slot::get).cloned() else { return false };
        self.remove_entry(from);
        let home = self.sharded.then(|| shard_of(to, self.layout));
        self.by_key.insert(to.to_owned(), self.entries.len());
        self.entries.push((to.to_owned(), Slot::new(map, home)));
        true
    }

    /// Adds `key`'s entry as `from` holds it, every field kept, in the file this state places
    /// the key in. Returns `false` (changing nothing) when this state has the key already or
    /// `from` has no readable entry for it. A merge that keeps a memory one machine deleted
    /// brings its entry back this way.
    pub fn copy_entry(&mut self, key: &str, from: &Self) -> bool {
        if self.has(key) {
            return false;
        }
        let Some(map) = from.entry(key).cloned() else { return false };
        let home = self.sharded.then(|| shard_of(key, self.layout));
        self.by_key.insert(key.to_owned(), self.entries.len());
        self.entries.push((key.to_owned(), Slot::new(map, home)));
        true
    }

    /// Tells whether an entry is archived (forgotten).
    pub fn is_archived(&self, key: &str) -> bool {
        self.entry(key).and_then(|e| e.get("status")).and_then(Value::as_str) == Some("archived")
    }

    /// Tells whether an entry was forgotten (it has an `archive` record), as opposed to having
    /// faded into the archived band.
    pub fn is_forgotten(&self, key: &str) -> bool {
        self.entry(key).is_some_and(|e| e.contains_key("archive"))
    }

    /// Tells whether an entry is pinned.
    pub fn is_pinned(&self, key: &str) -> bool {
        self.entry(key).and_then(|e| e.get("pinned")).and_then(Value::as_bool) == Some(true)
    }

    /// Returns every entry key, in file order.
    pub fn keys(&self) -> Vec<String> {
        self.entries.iter().map(|(k, _)| k.clone()).collect()
    }

    /// Every entity entry's stored score, pin and whether it was forgotten, by key: what
    /// `memory/graph/index.md` shows (a forgotten entity is left out of it).
    pub fn entity_scores(&self) -> BTreeMap<String, EntityScore> {
        let mut scores = BTreeMap::new();
        for (key, slot) in self.entries.iter().filter(|(k, _)| k.starts_with("entity:")) {
            if let Some(e) = slot.get() {
                scores.insert(
                    key.clone(),
                    EntityScore {
                        score: e.get("current_score").and_then(Value::as_f64).unwrap_or(1.0),
                        pinned: e.get("pinned").and_then(Value::as_bool).unwrap_or(false),
                        forgotten: e.contains_key("archive"),
                    },
                );
            }
        }
        scores
    }

    /// Returns the workspace's interaction count (remember and recall operations so far).
    pub fn interactions(&self) -> u64 {
        self.root.get("interactions").and_then(Value::as_u64).unwrap_or(0)
    }

    /// Adds to the interaction count.
    pub fn add_interactions(&mut self, n: u64) {
        let total = self.interactions() + n;
        self.root.insert("interactions".into(), json!(total));
    }

    /// Returns "now" for scoring: the time and the interaction count.
    pub fn now(&self, time: Timestamp) -> Now {
        Now { time, interactions: self.interactions() }
    }

    /// Returns the stored inputs of an entry's score; missing fields take safe defaults, and a
    /// timestamp that cannot be read counts as `fallback`.
    pub fn inputs(&self, key: &str, fallback: Timestamp) -> Option<DecayInputs> {
        self.scoring(key, fallback).map(|(inputs, _)| inputs)
    }

    /// [`DecayFile::inputs`] and the stored band ([`DecayFile::band`]) of an entry, from one
    /// read of its text: what a dry run of `decay` needs of every entry. An entry nobody has
    /// parsed stays unparsed (issue 20: scoring parsed each of 100,000 entries twice, the
    /// second time whole, to learn its band).
    pub fn scoring(&self, key: &str, fallback: Timestamp) -> Option<(DecayInputs, Option<Band>)> {
        let slot = self.slot(key)?;
        // An entry nobody has parsed is read straight into the few fields a score needs.
        if slot.parsed.get().is_none()
            && let Some(raw) = &slot.raw
        {
            let r: RawInputs = serde_json::from_str(raw.get()).ok()?;
            let time =
                |v: &Option<Value>| v.as_ref().and_then(Value::as_str).and_then(parse_stored);
            let band = r.status.as_ref().and_then(Value::as_str).and_then(Band::parse);
            let inputs = DecayInputs {
                base: r.base_relevance.as_ref().and_then(Value::as_f64).unwrap_or(1.0),
                type_weight: r.type_weight.as_ref().and_then(Value::as_f64).unwrap_or(1.0),
                access_count: r.access_count.as_ref().and_then(Value::as_u64).unwrap_or(1),
                last_accessed: time(&r.last_accessed)
                    .or_else(|| time(&r.created))
                    .unwrap_or(fallback),
                last_interaction: r.last_interaction.as_ref().and_then(Value::as_u64).unwrap_or(0),
                pinned: r.pinned.as_ref().and_then(Value::as_bool).unwrap_or(false),
                forgotten: r.archive.is_some(),
            };
            return Some((inputs, band));
        }
        let e = slot.get()?;
        let f = |k: &str| e.get(k).and_then(Value::as_f64);
        let last = e
            .get("last_accessed")
            .and_then(Value::as_str)
            .and_then(parse_stored)
            .or_else(|| e.get("created").and_then(Value::as_str).and_then(parse_stored))
            .unwrap_or(fallback);
        let inputs = DecayInputs {
            base: f("base_relevance").unwrap_or(1.0),
            type_weight: f("type_weight").unwrap_or(1.0),
            access_count: e.get("access_count").and_then(Value::as_u64).unwrap_or(1),
            last_accessed: last,
            last_interaction: e.get("last_interaction").and_then(Value::as_u64).unwrap_or(0),
            pinned: e.get("pinned").and_then(Value::as_bool).unwrap_or(false),
            forgotten: e.get("archive").is_some(),
        };
        Some((inputs, e.get("status").and_then(Value::as_str).and_then(Band::parse)))
    }

    /// Returns what an entry stores for display (the comment line of an entity or procedure):
    /// its score (0 when missing), access count (1 when missing) and pin.
    pub fn stored(&self, key: &str) -> Option<Stored> {
        let e = self.entry(key)?;
        Some(Stored {
            score: e.get("current_score").and_then(Value::as_f64).unwrap_or(0.0),
            access_count: e.get("access_count").and_then(Value::as_u64).unwrap_or(1),
            pinned: e.get("pinned").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    /// Returns an entry's stored band.
    pub fn band(&self, key: &str) -> Option<Band> {
        self.entry(key)?.get("status")?.as_str().and_then(Band::parse)
    }

    /// Records a use: one more access, now.
    pub fn touch(&mut self, key: &str, at: Timestamp, interaction: u64) -> bool {
        let stamp = at.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let Some(e) = self.entry_mut(key) else { return false };
        let count = e.get("access_count").and_then(Value::as_u64).unwrap_or(1) + 1;
        e.insert("access_count".into(), json!(count));
        e.insert("last_accessed".into(), json!(stamp));
        e.insert("last_interaction".into(), json!(interaction));
        true
    }

    /// Stores a recomputed score and its band; returns the band it had before.
    pub fn set_score(&mut self, key: &str, score: f64, band: Band) -> Option<Band> {
        let before = self.band(key);
        let rounded = (score * 1000.0).round() / 1000.0;
        // Unchanged values leave the entry's text as it is.
        let e = self.entry(key)?;
        if e.get("current_score").and_then(Value::as_f64) == Some(rounded)
            && e.get("status").and_then(Value::as_str) == Some(band.as_str())
        {
            return before;
        }
        let e = self.entry_mut(key)?;
        e.insert("current_score".into(), json!(rounded));
        e.insert("status".into(), json!(band.as_str()));
        before
    }

    /// Pins or unpins an entry; returns whether it changed.
    pub fn set_pinned(&mut self, key: &str, pinned: bool) -> bool {
        if self.entry(key).and_then(|e| e.get("pinned")).and_then(Value::as_bool) == Some(pinned) {
            return false;
        }
        let Some(e) = self.entry_mut(key) else { return false };
        e.insert("pinned".into(), json!(pinned));
        true
    }

    /// Marks an entry archived with the record `restore` reads: who, when, the earlier status
    /// and score, whether the entry was made for the archiving, what was taken out of other
    /// files, and why (when a reason is given). Returns `false` when there is no such entry.
    pub fn archive(&mut self, key: &str, record: &ArchiveRecord<'_>) -> bool {
        let Some(e) = self.entry_mut(key) else { return false };
        let mut out = json!({
            "at": record.at,
            "by": record.by,
            "previous_status": e.get("status").cloned().unwrap_or(Value::Null),
            "previous_score": e.get("current_score").cloned().unwrap_or(Value::Null),
            "created": record.created,
            "removed": record.removed,
        });
        if let (Some(reason), Value::Object(m)) = (record.reason, &mut out) {
            m.insert("reason".into(), json!(reason));
        }
        e.insert("status".into(), json!("archived"));
        e.insert("current_score".into(), json!(0.0));
        e.insert("archive".into(), out);
        true
    }

    /// Returns the lines an archived entry's record says were taken out, ordered by file and
    /// line; `None` when the entry has no archive record. Records that cannot be read are
    /// left out.
    pub fn archived_lines(&self, key: &str) -> Option<Vec<RemovedLine>> {
        let record = self.entry(key)?.get("archive")?;
        let mut lines: Vec<RemovedLine> = record
            .get("removed")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|r| {
                        Some(RemovedLine {
                            file: r.get("file")?.as_str()?.to_owned(),
                            line: usize::try_from(r.get("line")?.as_u64()?).ok()?,
                            text: r.get("text")?.as_str()?.to_owned(),
                            after: r.get("after").and_then(Value::as_str).unwrap_or("").to_owned(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        lines.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
        Some(lines)
    }

    /// Undoes [`DecayFile::archive`]: removes the entry when the archiving made it, else puts
    /// back its earlier status and score and drops the record. Returns `false` when the entry
    /// has no archive record.
    pub fn unarchive(&mut self, key: &str) -> bool {
        let Some(record) = self.entry(key).and_then(|e| e.get("archive")).cloned() else {
            return false;
        };
        if record.get("created").and_then(Value::as_bool) == Some(true) {
            return self.remove_entry(key);
        }
        let Some(entry) = self.entry_mut(key) else { return false };
        entry.insert(
            "status".into(),
            record.get("previous_status").cloned().unwrap_or(json!("active")),
        );
        entry.insert(
            "current_score".into(),
            record.get("previous_score").cloned().unwrap_or(json!(1.0)),
        );
        entry.shift_remove("archive");
        true
    }

    /// Returns the number of `[Self-Awareness]` entries since the last self-image
    /// consolidation (0 when not recorded).
    pub fn self_awareness_since_consolidation(&self) -> u64 {
        self.root
            .get("self_awareness_count_since_consolidation")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// Returns when the last reflection was approved, as stored.
    pub fn last_reflection(&self) -> Option<&str> {
        self.root.get("last_reflection").and_then(Value::as_str)
    }

    /// Returns the token economy's baseline, when recorded.
    pub fn token_baseline(&self) -> Option<u64> {
        self.root.get("token_economy")?.get("baseline")?.as_u64()
    }

    /// Records an approved reflection: when (`stamp`), the last episode day it covered, one
    /// more reflection, and `self_awareness` more `[Self-Awareness]` entries.
    pub fn record_reflection(
        &mut self,
        stamp: &str,
        last_episode: Option<&str>,
        self_awareness: u64,
    ) {
        let count = self.self_awareness_since_consolidation() + self_awareness;
        let total = self.root.get("reflection_count").and_then(Value::as_u64).unwrap_or(0);
        let m = &mut self.root;
        m.insert("last_reflection".into(), json!(stamp));
        m.insert("last_reflection_episode".into(), json!(last_episode));
        m.insert("self_awareness_count_since_consolidation".into(), json!(count));
        m.insert("reflection_count".into(), json!(total + 1));
    }

    /// Records an approved self-image consolidation on `date`: sets the count of
    /// `[Self-Awareness]` entries since the last one to `since`, the entries approved after the
    /// consolidation was submitted (it did not see them).
    pub fn record_consolidation(&mut self, date: &str, since: u64) {
        self.root.insert("last_self_image_consolidation".into(), json!(date));
        self.root.insert("self_awareness_count_since_consolidation".into(), json!(since));
    }

    /// Records the user's decision on a reward request in `token_economy`: the totals, the
    /// recent outcomes (the last 10) and the metrics derived from them. A `token_economy`,
    /// `totals` or `recent_outcomes` of the wrong type is started afresh.
    pub fn record_reward(&mut self, o: &RewardOutcome<'_>) {
        let r = o.reward;
        let te = self.root.entry("token_economy").or_insert_with(|| json!({}));
        if !te.is_object() {
            *te = json!({});
        }
        let te = te.as_object_mut().expect("made an object above");
        te.entry("baseline").or_insert(json!(r.baseline));
        let totals = te.entry("totals").or_insert_with(|| json!({}));
        if !totals.is_object() {
            *totals = json!({});
        }
        let totals = totals.as_object_mut().expect("made an object above");
        let mut add = |k: &str, n: u64| {
            let cur = totals.get(k).and_then(Value::as_u64).unwrap_or(0);
            totals.insert(k.to_owned(), json!(cur + n));
        };
        add("extra_requested", r.extra);
        add("extra_granted", r.extra.min(o.granted.saturating_sub(r.baseline)));
        add("self_penalty", r.penalty);
        if let Some(n) = o.user_bonus {
            add("user_bonus", n);
        }
        if let Some(n) = o.user_penalty {
            add("user_penalty", n);
        }
        let ext_req = totals.get("extra_requested").and_then(Value::as_u64).unwrap_or(0);
        let ext_gr = totals.get("extra_granted").and_then(Value::as_u64).unwrap_or(0);
        let recent = te.entry("recent_outcomes").or_insert_with(|| json!([]));
        if !recent.is_array() {
            *recent = json!([]);
        }
        let list = recent.as_array_mut().expect("made an array above");
        list.push(json!({
            "reflection": o.reflection,
            "date": o.date,
            "requested": r.requested(),
            "granted": o.granted,
            "decision": o.decision,
            "self_penalty": r.penalty,
            "reason": o.reason,
        }));
        if list.len() > 10 {
            let cut = list.len() - 10;
            list.drain(..cut);
        }
        let n = list.len() as f64;
        let agreed = list.iter().filter(|o| o["decision"] == "Approved").count() as f64;
        let penalised =
            list.iter().filter(|o| o["self_penalty"].as_u64().unwrap_or(0) > 0).count() as f64;
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        te.insert(
            "metrics".into(),
            json!({
                "assessment_accuracy": round(agreed / n),
                "extra_grant_rate": if ext_req > 0 { json!(round(ext_gr as f64 / ext_req as f64)) } else { Value::Null },
                "self_penalty_frequency": round(penalised / n),
            }),
        );
    }

    /// Renders the main file's own fields (reflection state, token economy, …), without the
    /// entries, as pretty JSON with a final newline: what a reflection is shown of its state.
    pub fn state_text(&self) -> String {
        let state: Map<String, Value> = self
            .root
            .iter()
            .filter(|(k, _)| k.as_str() != "entries")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut s = serde_json::to_string_pretty(&state).expect("a JSON map always serialises");
        s.push('\n');
        s
    }

    /// Returns the hash of the last access-log batch folded into this file.
    pub fn access_fold(&self) -> Option<&str> {
        self.root.get("access_fold").and_then(Value::as_str)
    }

    /// Records the hash of the access-log batch just folded.
    pub fn set_access_fold(&mut self, hash: &str) {
        self.root.insert("access_fold".into(), json!(hash));
    }

    /// Renders the main file (or, for a file from [`DecayFile::parse_shard`], the shard) as
    /// pretty JSON with a final newline: its own fields and the entries that live in it.
    pub fn to_text(&self) -> String {
        self.render(None)
    }

    fn render(&self, home: Option<Shard>) -> String {
        let out = Out { file: self, home };
        let mut s = serde_json::to_string_pretty(&out).expect("a JSON map always serialises");
        s.push('\n');
        s
    }
}

/// The user's decision on a reward request, as [`DecayFile::record_reward`] records it.
#[derive(Debug, Clone, Copy)]
pub struct RewardOutcome<'a> {
    /// The request (baseline, extra, self-penalty).
    pub reward: &'a RewardFile,
    /// Tokens granted.
    pub granted: u64,
    /// The decision word (`Approved`, `Bonus`, …).
    pub decision: &'a str,
    /// A bonus the user added, if any.
    pub user_bonus: Option<u64>,
    /// A reduction or penalty the user imposed, if any.
    pub user_penalty: Option<u64>,
    /// The reflection number.
    pub reflection: u32,
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// Why.
    pub reason: &'a str,
}

/// What an archiving records beside the entry's earlier status and score.
#[derive(Debug, Clone, Copy)]
pub struct ArchiveRecord<'a> {
    /// When, `YYYY-MM-DDTHH:MM:SSZ`.
    pub at: &'a str,
    /// Who (an actor).
    pub by: &'a str,
    /// Whether the entry was made for the archiving (`restore` then removes it).
    pub created: bool,
    /// The lines taken out of other files.
    pub removed: &'a [RemovedLine],
    /// Why, when it was not asked for (e.g. `doctor` archiving an orphan entry).
    pub reason: Option<&'a str>,
}

/// A line taken out of a file (a MEMORY.md bullet, a graph index row) when a memory was
/// archived: where it was, its text, and the line before it, to find its place again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemovedLine {
    /// The file, relative to the workspace root.
    pub file: String,
    /// Its 1-based line in the file as it was.
    pub line: usize,
    /// Its text, without the newline.
    pub text: String,
    /// The line before it (empty for the first line).
    pub after: String,
}

impl RemovedLine {
    /// Takes out of `text` (the content of `file`) the lines for which `pred(line_number,
    /// line)` holds (1-based numbers, lines without their newline); returns the new text and
    /// what was taken out, in order.
    pub fn take(
        file: &str,
        text: &str,
        mut pred: impl FnMut(usize, &str) -> bool,
    ) -> (String, Vec<Self>) {
        let mut out = String::with_capacity(text.len());
        let mut removed = Vec::new();
        let mut previous = "";
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let bare = line.trim_end_matches(['\n', '\r']);
            if pred(i + 1, bare) {
                removed.push(Self {
                    file: file.to_owned(),
                    line: i + 1,
                    text: bare.to_owned(),
                    after: previous.to_owned(),
                });
            } else {
                out.push_str(line);
            }
            previous = bare;
        }
        (out, removed)
    }

    /// Puts the line back into `current`: at its old line if the line before it is still the
    /// same, else after the first line that matches what preceded it, else at its old line
    /// number (at the end when the file is shorter).
    pub fn put_back(&self, current: &str) -> String {
        insert_line(current, place_for(current, self.line, &self.after), &self.text)
    }
}

/// Where a removed line goes back (see [`RemovedLine::put_back`]).
fn place_for(current: &str, line: usize, after: &str) -> usize {
    let lines: Vec<&str> = current.lines().collect();
    if after.is_empty() || line >= 2 && lines.get(line - 2) == Some(&after) {
        return line;
    }
    match lines.iter().position(|l| *l == after) {
        Some(i) => i + 2,
        None => line,
    }
}

/// Inserts `text` as line `line` (1-based), or at the end when the file is shorter.
fn insert_line(current: &str, line: usize, text: &str) -> String {
    let mut out = String::with_capacity(current.len() + text.len() + 1);
    let mut inserted = false;
    for (i, l) in current.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            out.push_str(text);
            out.push('\n');
            inserted = true;
        }
        out.push_str(l);
    }
    if !inserted {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(text);
        out.push('\n');
    }
    out
}

/// A file for serialising: the main file's top-level fields in order with the entries in their
/// place, or a shard's `entries`.
struct Out<'a> {
    file: &'a DecayFile,
    home: Option<Shard>,
}

impl Serialize for Out<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = Entries { file: self.file, home: self.home };
        if self.home.is_some() {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("entries", &entries)?;
            return m.end();
        }
        let mut m = s.serialize_map(Some(self.file.root.len()))?;
        for (k, v) in &self.file.root {
            if k == "entries" {
                m.serialize_entry(k, &entries)?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

struct Entries<'a> {
    file: &'a DecayFile,
    home: Option<Shard>,
}

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, slot) in self.file.entries.iter().filter(|(_, slot)| slot.home == self.home) {
            match (&slot.raw, slot.dirty) {
                (Some(raw), false) => m.serialize_entry(k, raw)?,
                _ => match slot.get() {
                    Some(map) => m.serialize_entry(k, map)?,
                    // Not an object: kept as it was.
                    None => match &slot.raw {
                        Some(raw) => m.serialize_entry(k, raw)?,
                        None => m.serialize_entry(k, &Value::Null)?,
                    },
                },
            }
        }
        m.end()
    }
}

/// serde_json's message without its " at line L column C" suffix (the line is ours already).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((msg, _)) => format!("{msg} (column {})", e.column()),
        None => text,
    }
}

/// Returns the decay weight of a store.
pub fn type_weight(store: Store, p: &DecaySettings) -> f64 {
    let w = &p.type_weights;
    match store {
        Store::Core => w.core,
        Store::Episodic => w.episodic,
        Store::Semantic => w.semantic,
        Store::Procedural => w.procedural,
        Store::Vault => 1.0,
    }
}

/// Brings a version 1 or 2 file to version 3 by adding the fields it lacks.
fn upgrade(root: &mut Map<String, Value>) {
    let defaults = [
        ("last_reflection", Value::Null),
        ("last_reflection_episode", Value::Null),
        ("last_self_image_consolidation", Value::Null),
        ("self_awareness_count_since_consolidation", json!(0)),
        (
            "token_economy",
            json!({
                "baseline": 8000,
                "totals": {"extra_requested": 0, "extra_granted": 0, "self_penalty": 0, "user_penalty": 0, "user_bonus": 0},
                "metrics": {"assessment_accuracy": null, "extra_grant_rate": null, "self_penalty_frequency": null},
                "recent_outcomes": []
            }),
        ),
    ];
    let old = root.get("version").and_then(Value::as_u64).unwrap_or(1);
    if old >= 3 {
        return;
    }
    root.insert("version".into(), json!(3));
    for (key, value) in defaults {
        if !root.contains_key(key) {
            root.insert(key.into(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use super::*;

    fn unit(minute: u32) -> NewUnit {
        NewUnit {
            store: Store::Episodic,
            base: 1.0,
            created: format!("2026-02-02T10:{minute:02}:00Z").parse().unwrap(),
            pinned: false,
        }
    }

    /// [`DecayFile::insert_new_by_shard`] into `root`, writing each file it gives (folders
    /// made as needed): how many entries it added and the files, in order.
    fn bulk_insert(root: &Path, keys: &[String], unit: NewUnit) -> (usize, Vec<String>) {
        let mut files = Vec::new();
        let p = DecaySettings::default();
        let added = DecayFile::insert_new_by_shard(root, keys, unit, &p, |path, text| {
            let abs = root.join(&path);
            crate::store::fsx::create_dir_all(abs.parent().unwrap()).unwrap();
            std::fs::write(abs, text.expect("nothing removed")).unwrap();
            files.push(path);
            Ok(())
        })
        .unwrap();
        (added, files)
    }

    fn write_all(root: &Path, d: &mut DecayFile) -> Vec<String> {
        let files = d.changed_files();
        for (rel, text) in &files {
            let path = root.join(rel);
            crate::store::fsx::create_dir_all(path.parent().unwrap()).unwrap();
            match text {
                Some(text) => std::fs::write(path, text).unwrap(),
                None => std::fs::remove_file(path).unwrap(),
            }
        }
        files.into_iter().map(|(rel, _)| rel).collect()
    }

    /// A dry run of `decay` learns each entry's inputs and stored band from one read of its
    /// text, the values [`DecayFile::inputs`] and [`DecayFile::band`] give, and leaves the entry
    /// unparsed (issue 20: 100,000 entries were parsed whole a second time for their band).
    #[test]
    fn scoring_reads_inputs_and_band_without_parsing_the_entry() {
        let path = Path::new("memory/meta/decay-scores.json");
        let text = r#"{"entries": {
    "episode:2026-01-01:10:00": {
      "access_count": 3,
      "last_accessed": "2026-01-02T10:00:00Z",
      "current_score": 0.42,
      "status": "fading"
    },
    "episode:2026-01-01:11:00": {
      "status": "no-such-band"
    }
  }}"#;
        let at: Timestamp = "2026-03-01T00:00:00Z".parse().unwrap();
        let d = DecayFile::parse(text, path).unwrap();
        let (inputs, band) = d.scoring("episode:2026-01-01:10:00", at).unwrap();
        assert_eq!(band, Some(Band::Fading));
        assert_eq!(inputs.access_count, 3);
        assert!(d.entries.iter().all(|(_, slot)| slot.parsed.get().is_none()), "left unparsed");
        assert_eq!(d.scoring("episode:2026-01-01:11:00", at).unwrap().1, None);
        assert!(d.scoring("episode:missing", at).is_none());
        for key in d.keys() {
            let (inputs, band) = d.scoring(&key, at).unwrap();
            assert_eq!((Some(inputs), band), (d.inputs(&key, at), d.band(&key)), "{key}");
        }
    }

    // See: issue 16
    /// Hostile ids as keys: the JSON file reads back with exactly the keys written, each with
    /// its entry.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile;
        use proptest::prelude::*;
        let path = Path::new("memory/meta/decay-scores.json");
        let p = DecaySettings::default();
        let strategy = prop::collection::vec(hostile::value(), 1..4);
        hostile::runner(64)
            .run(&strategy, |ids| {
                let mut d = DecayFile::parse("{}", path).unwrap();
                let mut want: Vec<String> = Vec::new();
                for id in &ids {
                    let key = format!("episode:{id}");
                    if d.insert_new(&key, unit(0), &p) {
                        want.push(key);
                    }
                }
                want.sort();
                let back = DecayFile::parse(&d.to_text(), path).unwrap();
                let mut keys = back.keys();
                keys.sort();
                prop_assert_eq!(&keys, &want);
                for k in &want {
                    prop_assert!(back.stored(k).is_some(), "{k:?}");
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn shards_split_past_the_threshold_and_partial_loads_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = DecaySettings::default();
        let mut d = DecayFile::load(root).unwrap();
        for i in 0..SPLIT_AT {
            assert!(d.insert_new(&format!("episode:x:{i}"), unit(0), &p));
        }
        assert_eq!(write_all(root, &mut d), vec![file_path(None)], "below the threshold");
        assert!(!d.is_sharded());
        let mut d = DecayFile::load_for(root, &["episode:new"]).unwrap();
        assert!(d.insert_new("episode:new", unit(1), &p));
        let written = write_all(root, &mut d);
        assert_eq!(written.len(), 1 + usize::from(FIRST_SHARDS), "the split writes every file");
        let main: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(file_path(None))).unwrap())
                .unwrap();
        assert_eq!(main["entries"], json!({}));
        assert_eq!(main["version"], 3);
        // One more entry: only its shard is written, and a partial load keeps its neighbours.
        let key = "episode:later";
        let mut d = DecayFile::load_for(root, &[key]).unwrap();
        assert!(d.insert_new(key, unit(2), &p));
        assert!(
            d.touch("episode:x:7", "2026-02-03T00:00:00Z".parse().unwrap(), 0)
                == (shard_of("episode:x:7", Layout::current(64))
                    == shard_of(key, Layout::current(64)))
        );
        assert_eq!(
            write_all(root, &mut d),
            vec![file_path(Some(shard_of(key, Layout::current(64))))]
        );
        let all = DecayFile::load(root).unwrap();
        assert_eq!(all.len(), SPLIT_AT + 2);
        for i in 0..SPLIT_AT {
            let k = format!("episode:x:{i}");
            assert_eq!(
                all.file_of(&k),
                Some(file_path(Some(shard_of(&k, Layout::current(64))))),
                "{k}"
            );
        }
        // Nothing changed: nothing written.
        let mut again = DecayFile::load(root).unwrap();
        assert!(again.changed_files().is_empty());
    }

    // See: issue 20
    /// Past 256 entries per shard on average, a write that read every shard spreads them over
    /// 256 shards and records the count; later partial loads, inserts and the bulk insert use
    /// it; nothing is lost on the way.
    #[test]
    fn issue_20_shards_grow_to_256_past_256_entries_each() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = DecaySettings::default();
        let mut d = DecayFile::load(root).unwrap();
        let n = GROW_AT * usize::from(FIRST_SHARDS);
        for i in 0..n {
            assert!(d.insert_new(&format!("episode:x:{i}"), unit(0), &p));
        }
        write_all(root, &mut d);
        let d = DecayFile::load(root).unwrap();
        assert_eq!((d.shard_count(), shard_files(root).len()), (64, 64), "not past the line");
        // One more, through a partial load: no growth (not every shard was read).
        let mut d = DecayFile::load_for(root, &["episode:one-more"]).unwrap();
        assert!(d.insert_new("episode:one-more", unit(1), &p));
        assert_eq!(write_all(root, &mut d).len(), 1);
        assert_eq!(shard_files(root).len(), 64);
        // A full load and any change: every entry moves to its shard among 256.
        let mut d = DecayFile::load(root).unwrap();
        assert!(d.touch("episode:x:1", "2026-02-03T00:00:00Z".parse().unwrap(), 0));
        let written = write_all(root, &mut d);
        assert_eq!(written.len(), 1 + 256, "the main file and every shard");
        let main: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(file_path(None))).unwrap())
                .unwrap();
        assert_eq!(main["shards"], 256);
        let all = DecayFile::load(root).unwrap();
        assert_eq!((all.len(), all.shard_count()), (n + 1, 256));
        for k in all.keys() {
            assert_eq!(
                all.file_of(&k),
                Some(file_path(Some(shard_of(&k, Layout::current(256))))),
                "{k}"
            );
        }
        assert_eq!(all.stored("episode:x:1").map(|s| s.access_count), Some(2));
        // A partial load finds an entry in its shard among 256, and adds one there.
        let key = "episode:after-growth";
        let mut d = DecayFile::load_for(root, &[key, "episode:x:5"]).unwrap();
        assert!(d.has("episode:x:5"));
        assert!(d.insert_new(key, unit(2), &p));
        assert_eq!(
            write_all(root, &mut d),
            vec![file_path(Some(shard_of(key, Layout::current(256))))]
        );
        // The bulk insert too.
        let keys: Vec<String> = (0..300).map(|i| format!("episode:bulk:{i}")).collect();
        assert_eq!(bulk_insert(root, &keys, unit(3)).0, 300);
        let all = DecayFile::load(root).unwrap();
        assert_eq!(all.len(), n + 2 + 300);
        for k in &keys {
            assert_eq!(
                all.file_of(k),
                Some(file_path(Some(shard_of(k, Layout::current(256))))),
                "{k}"
            );
        }
        let mut again = DecayFile::load(root).unwrap();
        assert!(again.changed_files().is_empty(), "everything is where it belongs");
    }

    // See: issue 20
    /// Past 256 entries per shard among 256, a write that read every shard spreads them over
    /// 1,024 files named with three hex digits and removes the two-digit ones; partial loads,
    /// the bulk insert and a derived reader that does not know the count ([`shards_of`]) find
    /// every entry where it now lives.
    #[test]
    fn issue_20_shards_grow_to_1024_three_digit_files_replacing_two_digit_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = DecaySettings::default();
        let mut d = DecayFile::load(root).unwrap();
        let n = GROW_AT * 256 + 1;
        for i in 0..n - 1 {
            assert!(d.insert_new(&format!("episode:y:{i}"), unit(0), &p));
        }
        write_all(root, &mut d);
        let d = DecayFile::load(root).unwrap();
        assert_eq!((d.shard_count(), shard_files(root).len()), (256, 256), "not past the line");
        assert!(shard_files(root).iter().all(|s| s.name().len() == 2));
        // One more through a partial load: past the line, but not every shard was read.
        let last = format!("episode:y:{}", n - 1);
        let mut d = DecayFile::load_for(root, &[&last]).unwrap();
        assert!(d.insert_new(&last, unit(1), &p));
        assert_eq!(write_all(root, &mut d).len(), 1);
        // The next full load and change: 1,024 three-digit files, the 256 others removed.
        let mut d = DecayFile::load(root).unwrap();
        assert!(d.touch("episode:y:7", "2026-02-03T00:00:00Z".parse().unwrap(), 0));
        let files = d.changed_files();
        let removed: Vec<&String> =
            files.iter().filter(|(_, t)| t.is_none()).map(|(r, _)| r).collect();
        assert_eq!((files.len(), removed.len()), (1 + 1024 + 256, 256));
        assert!(
            removed.iter().all(|r| r.len() == "memory/meta/decay/00.json".len()),
            "{removed:?}"
        );
        let mut d = DecayFile::load(root).unwrap();
        assert!(d.touch("episode:y:7", "2026-02-03T00:00:00Z".parse().unwrap(), 0));
        write_all(root, &mut d);
        let present = shard_files(root);
        assert_eq!(present.len(), 1024);
        assert!(present.iter().all(|s| s.name().len() == 3), "no two-digit file is left");
        let all = DecayFile::load(root).unwrap();
        assert_eq!((all.len(), all.shard_count()), (n, 1024));
        for k in all.keys() {
            let home = shard_of(&k, Layout::current(1024));
            assert_eq!(all.file_of(&k), Some(file_path(Some(home))), "{k}");
            assert!(shards_of(&k, true).contains(&home), "{k}");
        }
        assert_eq!(all.stored("episode:y:7").map(|s| s.access_count), Some(2));
        // A partial load: one file read and written.
        let key = "episode:after-the-second-growth";
        let mut d = DecayFile::load_for(root, &[key, "episode:y:5"]).unwrap();
        assert!(d.has("episode:y:5"));
        assert!(d.insert_new(key, unit(2), &p));
        assert_eq!(
            write_all(root, &mut d),
            vec![file_path(Some(shard_of(key, Layout::current(1024))))]
        );
        // The bulk insert.
        let keys: Vec<String> = (0..50).map(|i| format!("episode:bulk-wide:{i}")).collect();
        let (added, files) = bulk_insert(root, &keys, unit(3));
        assert_eq!(added, 50);
        for path in files {
            assert!(path.len() == "memory/meta/decay/000.json".len() || !path.contains("/decay/"));
        }
        let mut again = DecayFile::load(root).unwrap();
        assert_eq!(again.len(), n + 1 + 50);
        assert!(again.changed_files().is_empty(), "everything is where it belongs");
    }

    /// Episode keys of `hours` hours of one day, `per_hour` each (`episode:D:HH:MM[:N]`).
    fn hour_keys(day: &str, hours: std::ops::Range<u32>, per_hour: u32) -> Vec<String> {
        let mut keys = Vec::new();
        for h in hours {
            for i in 0..per_hour {
                let n = if i >= 60 { format!(":{}", i / 60 + 1) } else { String::new() };
                keys.push(format!("episode:{day}:{h:02}:{:02}{n}", i % 60));
            }
        }
        keys
    }

    // See: issue 20
    /// The entries of one hour of episodes land in at most eight consecutive shards of a layout
    /// that places episodes by the hour (an imported session rewrites a few shards, not one per
    /// message); other keys, and keys not shaped like an episode id, are placed by their whole
    /// key in either layout.
    #[test]
    fn an_hour_of_episodes_lands_in_at_most_eight_consecutive_shards() {
        for shards in [64u16, 256, 1024, 4096] {
            let by_hour = Layout::current(shards);
            let keys = hour_keys("2026-03-04", 9..10, 200);
            let homes: BTreeSet<u16> = keys.iter().map(|k| shard_of(k, by_hour).n).collect();
            assert!(homes.len() <= HOUR_SPREAD as usize, "{shards}: {homes:?}");
            // From the hour's own shard on, wrapping past the last.
            let first = (fnv1a(b"episode:2026-03-04:09") % u64::from(shards)) as u16;
            let spread = |n: u16| (n + shards - first) % shards;
            assert!(homes.iter().all(|n| u64::from(spread(*n)) < HOUR_SPREAD), "{homes:?}");
            // By the whole key, the same keys scatter.
            let old = Layout { shards, episode_hours: false };
            let scattered: BTreeSet<u16> = keys.iter().map(|k| shard_of(k, old).n).collect();
            assert!(scattered.len() > 2 * HOUR_SPREAD as usize, "{shards}: {}", scattered.len());
            for k in
                ["entity:person--ann", "episode:2026-03-04", "episode:2026-3-04:09:00", "vault:x"]
            {
                assert_eq!(shard_of(k, by_hour), shard_of(k, old), "{k}");
            }
        }
        // Different hours of a day go to different places.
        let layout = Layout::current(1024);
        let hours: BTreeSet<u16> = (0..24)
            .map(|h| shard_of(&format!("episode:2026-03-04:{h:02}:00"), layout).n / 8)
            .collect();
        assert!(hours.len() > 12, "{hours:?}");
    }

    // See: issue 20
    /// A workspace whose shards place episodes by their whole key (written before this layout)
    /// keeps that placement through partial loads, and moves to the hour layout, every entry
    /// rewritten once and recorded as `"shard_key": "episode-hour"`, at the next change that read
    /// every shard; after it, an import of one hour rewrites at most eight shards. A fresh split
    /// (by `changed_files` or by the bulk insert) is made in the hour layout at once.
    #[test]
    fn issue_20_shards_move_to_the_hour_layout_at_a_full_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = DecaySettings::default();
        // 64 shards placed by whole keys, as an older version wrote them.
        let old = Layout::FIRST;
        let keys = hour_keys("2026-01-05", 0..24, 60);
        let mut by_file: BTreeMap<Shard, Vec<String>> = BTreeMap::new();
        for k in &keys {
            by_file.entry(shard_of(k, old)).or_default().push(format!("\"{k}\": {{}}"));
        }
        crate::store::fsx::create_dir_all(&root.join(crate::workspace::layout::DECAY_SHARDS_DIR))
            .unwrap();
        for (n, entries) in &by_file {
            let text = format!("{{\"entries\": {{{}}}}}", entries.join(", "));
            std::fs::write(root.join(file_path(Some(*n))), text).unwrap();
        }
        std::fs::write(root.join(file_path(None)), r#"{"version": 3, "entries": {}}"#).unwrap();
        // A partial load keeps the old placement: it finds an entry where it is, and adds one
        // where a reader of the old placement would look.
        let new = "episode:2026-01-06:10:00";
        let mut d = DecayFile::load_for(root, &[new, &keys[5]]).unwrap();
        assert_eq!(d.layout(), old);
        assert!(d.has(&keys[5]));
        assert!(d.insert_new(new, unit(1), &p));
        assert_eq!(write_all(root, &mut d), vec![file_path(Some(shard_of(new, old)))]);
        // A full load and any change: every entry moves to its hour's shard, the layout is
        // recorded, nothing is lost.
        let mut d = DecayFile::load(root).unwrap();
        assert!(d.touch(&keys[7], "2026-02-03T00:00:00Z".parse().unwrap(), 0));
        let written = write_all(root, &mut d);
        assert!(written.contains(&file_path(None)), "{written:?}");
        let main: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(file_path(None))).unwrap())
                .unwrap();
        assert_eq!(main["shard_key"], "episode-hour");
        assert!(main.get("shards").is_none(), "still 64 shards");
        let all = DecayFile::load(root).unwrap();
        assert_eq!(all.layout(), Layout::current(64));
        assert_eq!(all.len(), keys.len() + 1);
        for k in all.keys() {
            assert_eq!(all.file_of(&k), Some(file_path(Some(shard_of(&k, all.layout())))), "{k}");
        }
        assert_eq!(all.stored(&keys[7]).map(|s| s.access_count), Some(2));
        let mut again = DecayFile::load(root).unwrap();
        assert!(again.changed_files().is_empty(), "everything is where it belongs");
        // An import of one hour's 120 messages: at most eight shards, and not the main file,
        // whose fields did not change.
        let hour = hour_keys("2026-01-07", 14..15, 120);
        let (added, files) = bulk_insert(root, &hour, unit(3));
        assert_eq!(added, 120);
        assert!(files.len() <= HOUR_SPREAD as usize, "{files:?}");
        assert!(!files.contains(&file_path(None)), "{files:?}");
        // A fresh split by the bulk insert is in the hour layout.
        let fresh = tempfile::tempdir().unwrap();
        let many = hour_keys("2026-01-08", 0..20, 60);
        bulk_insert(fresh.path(), &many, unit(4));
        let split = DecayFile::load(fresh.path()).unwrap();
        assert_eq!((split.layout(), split.len()), (Layout::current(64), many.len()));
        for k in &many {
            assert_eq!(split.file_of(k), Some(file_path(Some(shard_of(k, split.layout())))));
        }
    }

    #[test]
    fn a_misplaced_or_repeated_entry_moves_to_its_shard_on_a_full_load() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let key = "entity:person--ann";
        let right = shard_of(key, Layout::current(FIRST_SHARDS));
        let wrong = Shard::nth((right.n + 1) % 64, 64);
        let entry = r#"{"store": "semantic", "access_count": 4}"#;
        crate::store::fsx::create_dir_all(&root.join(crate::workspace::layout::DECAY_SHARDS_DIR))
            .unwrap();
        std::fs::write(
            root.join(file_path(Some(wrong))),
            format!("{{\"entries\": {{\"{key}\": {entry}}}}}"),
        )
        .unwrap();
        std::fs::write(
            root.join(file_path(None)),
            format!("{{\"version\": 3, \"entries\": {{\"{key}\": {{}}}}}}"),
        )
        .unwrap();
        let mut d = DecayFile::load(root).unwrap();
        assert_eq!(d.len(), 1, "the shard's copy wins over the main file's");
        assert_eq!(d.entry(key).unwrap()["access_count"], 4);
        let mut written = write_all(root, &mut d);
        written.sort();
        let mut want = vec![file_path(None), file_path(Some(right)), file_path(Some(wrong))];
        want.sort();
        assert_eq!(written, want);
        let d = DecayFile::load(root).unwrap();
        assert_eq!(d.file_of(key), Some(file_path(Some(right))));
        assert_eq!(d.entry(key).unwrap()["access_count"], 4);
    }

    #[test]
    fn shard_names_round_trip() {
        for shards in [64u16, 256, 1024, 4096] {
            for n in 0..shards {
                let rel = file_path(Some(Shard::nth(n, shards)));
                assert!(crate::workspace::layout::is_decay_file(&rel), "{rel}");
                let name = rel.rsplit('/').next().unwrap();
                assert_eq!(name.len(), if shards > 256 { 8 } else { 7 }, "{name}");
                assert_eq!(shard_number(name), Some(Shard::nth(n, shards)));
            }
        }
        assert_ne!(shard_number("000.json"), shard_number("00.json"), "two layouts' names");
        for bad in ["0A.json", "a.json", "00.jsonx", "0000.json", "g0.json", "00g.json", ".json"] {
            assert_eq!(shard_number(bad), None, "{bad}");
        }
        // The hash is fixed: a shard's entries stay where they are across versions, and a key's
        // shard in each layout is its shard in the next one modulo that layout's count.
        let h = 0xcbf2_9ce4_8422_2325_u64;
        for shards in [64u16, 256, 1024, 4096] {
            for episode_hours in [false, true] {
                let layout = Layout { shards, episode_hours };
                assert_eq!(
                    shard_of("", layout),
                    Shard::nth((h % u64::from(shards)) as u16, shards)
                );
            }
        }
        for i in 0..1000 {
            let k = format!("episode:2026-01-01:{i}");
            for (small, large) in [(64u16, 256u16), (256, 1024), (1024, 4096)] {
                for episode_hours in [false, true] {
                    let [large, small] =
                        [large, small].map(|shards| Layout { shards, episode_hours });
                    assert_eq!(shard_of(&k, large).n % small.shards, shard_of(&k, small).n);
                }
            }
            for episode_hours in [false, true] {
                let all = [4096, 1024, 256, 64]
                    .map(|shards| shard_of(&k, Layout { shards, episode_hours }));
                assert_eq!(shards_of(&k, episode_hours), all);
            }
        }
    }

    #[test]
    fn v1_is_upgraded_and_unknown_fields_kept_in_order() {
        let text = r#"{"version":1,"custom":"keep","last_reflection":null,"entries":{"entity:person--a":{"store":"semantic","x":1}}}"#;
        let mut f = DecayFile::parse(text, Path::new("d.json")).unwrap();
        let p = DecaySettings::default();
        let unit = NewUnit {
            store: Store::Episodic,
            base: 1.0,
            created: "2026-02-02T10:00:00Z".parse().unwrap(),
            pinned: false,
        };
        assert!(f.insert_new("episode:2026-02-02:10:00", unit, &p));
        assert!(!f.insert_new("episode:2026-02-02:10:00", unit, &p));
        let out = f.to_text();
        assert!(out.find("\"custom\"").unwrap() < out.find("\"entries\"").unwrap());
        assert!(out.contains("\"version\": 3"));
        assert!(out.contains("\"x\": 1"));
        let v: Value = serde_json::from_str(&out).unwrap();
        let e = &v["entries"]["episode:2026-02-02:10:00"];
        assert_eq!(e["current_score"], json!(0.8));
        assert_eq!(e["status"], json!("active"));
        assert_eq!(e["access_count"], json!(1));
    }

    #[test]
    fn round_trip_is_byte_for_byte_and_a_touch_changes_one_entry() {
        let p = DecaySettings::default();
        let mut f = DecayFile::parse("{}", Path::new("d.json")).unwrap();
        for i in 0..50 {
            let unit = NewUnit {
                store: Store::Episodic,
                base: 1.0,
                created: format!("2026-02-02T10:{i:02}:00Z").parse().unwrap(),
                pinned: i % 10 == 0,
            };
            assert!(f.insert_new(&format!("episode:2026-02-02:10:{i:02}"), unit, &p));
        }
        let text = f.to_text();
        // The lazy writer produces what a full pretty-print of the same JSON produces.
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text, format!("{}\n", serde_json::to_string_pretty(&v).unwrap()));
        let g = DecayFile::parse(&text, Path::new("d.json")).unwrap();
        assert_eq!(g.to_text(), text, "an unchanged file is written back as it was");
        assert_eq!(g.len(), 50);
        let mut h = g.clone();
        let at: Timestamp = "2026-03-01T08:00:00Z".parse().unwrap();
        assert!(h.touch("episode:2026-02-02:10:07", at, 3));
        let after = h.to_text();
        let diff: Vec<(&str, &str)> =
            text.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
        assert_eq!(diff.len(), 3, "{diff:?}");
        assert!(after.contains("\"last_accessed\": \"2026-03-01T08:00:00Z\""));
        // Inputs read from an entry's text equal those read from the parsed entry.
        let key = "episode:2026-02-02:10:20";
        let lazy = g.inputs(key, at).unwrap();
        assert!(g.entry(key).is_some());
        let parsed = g.inputs(key, at).unwrap();
        assert_eq!(format!("{lazy:?}"), format!("{parsed:?}"));
        assert!(lazy.pinned);
    }

    #[test]
    fn removing_an_entry_keeps_the_others_findable() {
        let text = r#"{"entries":{"a":{"x":1},"b":{"x":2},"c":{"x":3},"b":{"x":4}}}"#;
        let mut f = DecayFile::parse(text, Path::new("d.json")).unwrap();
        assert_eq!(f.keys(), ["a", "b", "c"]);
        assert_eq!(f.entry("b").unwrap()["x"], json!(4), "a repeated key: the last one wins");
        assert!(f.remove_entry("a"));
        assert!(!f.remove_entry("a"));
        assert_eq!(f.entry("c").unwrap()["x"], json!(3));
        assert_eq!(f.keys(), ["b", "c"]);
        let out: Value = serde_json::from_str(&f.to_text()).unwrap();
        assert_eq!(out["entries"], json!({"b": {"x": 4}, "c": {"x": 3}}));
    }

    #[test]
    fn bad_json_names_the_line() {
        let err = DecayFile::parse("{\n\"entries\": {,}\n}", Path::new("m/d.json")).unwrap_err();
        assert!(err.to_string().starts_with("m/d.json:2: not valid JSON"), "{err}");
    }

    #[test]
    fn removed_lines_go_back_where_they_were() {
        let text = "a\nb\nc\nd\n";
        let (new, removed) = RemovedLine::take("f.md", text, |n, _| n == 2 || n == 4);
        assert_eq!(new, "a\nc\n");
        assert_eq!(
            removed.iter().map(|r| (r.line, r.text.as_str(), r.after.as_str())).collect::<Vec<_>>(),
            [(2, "b", "a"), (4, "d", "c")]
        );
        let back = removed.iter().fold(new, |t, r| r.put_back(&t));
        assert_eq!(back, text);
    }

    #[test]
    fn put_back_finds_the_place_after_other_edits() {
        let r = |line: usize, after: &str| RemovedLine {
            file: "MEMORY.md".into(),
            line,
            text: "- gone".into(),
            after: after.into(),
        };
        let current = "# M\n\n## Active Context\n<!-- hint -->\n- kept\n";
        let moved = format!("new\nnew\nnew\n{current}");
        let cases = [
            // (record, file now, where the line lands)
            (r(5, "<!-- hint -->"), current.to_owned(), 5),
            (r(5, "<!-- hint -->"), moved, 8),
            (r(1, ""), current.to_owned(), 1),
            (r(40, "not there"), current.to_owned(), 6),
        ];
        for (record, now, want) in cases {
            let out = record.put_back(&now);
            assert_eq!(out.lines().nth(want - 1), Some("- gone"), "record: {record:?}");
        }
    }

    // See: issue 16
    #[test]
    fn rename_entry_keeps_the_fields_and_refuses_to_overwrite() {
        let p = DecaySettings::default();
        let mut d = DecayFile::parse("{}", Path::new("d.json")).unwrap();
        d.insert_new("core:s:aaaa", unit(1), &p);
        d.insert_new("core:s:bbbb", unit(2), &p);
        d.set_pinned("core:s:aaaa", true);
        assert!(!d.rename_entry("core:s:aaaa", "core:s:bbbb"), "never over another entry");
        assert!(!d.rename_entry("core:s:none", "core:s:cccc"));
        assert!(d.rename_entry("core:s:aaaa", "core:s:cccc"));
        assert!(!d.has("core:s:aaaa") && d.is_pinned("core:s:cccc"));
        let text = d.to_text();
        let back = DecayFile::parse(&text, Path::new("d.json")).unwrap();
        assert_eq!(back.keys().len(), 2, "{text}");
        assert!(back.is_pinned("core:s:cccc"), "{text}");
    }

    #[test]
    fn archive_and_unarchive_round_trip() {
        let p = DecaySettings::default();
        let mut d = DecayFile::parse("{}", Path::new("d.json")).unwrap();
        d.insert_new("core:a", unit(1), &p);
        let before = d.to_text();
        let removed = vec![RemovedLine {
            file: "MEMORY.md".into(),
            line: 3,
            text: "- a".into(),
            after: "## X".into(),
        }];
        let record = ArchiveRecord {
            at: "2026-02-03T00:00:00Z",
            by: "test-agent",
            created: false,
            removed: &removed,
            reason: None,
        };
        assert!(d.archive("core:a", &record));
        assert!(!d.archive("core:missing", &record));
        assert!(d.is_archived("core:a") && d.is_forgotten("core:a"));
        let archive = &d.entry("core:a").unwrap()["archive"];
        let keys: Vec<&String> = archive.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["at", "by", "previous_status", "previous_score", "created", "removed"]);
        assert_eq!(d.archived_lines("core:a"), Some(removed.clone()));
        assert!(d.unarchive("core:a"));
        assert_eq!(d.to_text(), before);
        assert_eq!(d.archived_lines("core:a"), None);
        assert!(!d.unarchive("core:a"));

        // An entry made for the archiving goes away again; a reason is recorded last.
        d.insert_new("core:b", unit(2), &p);
        let made = ArchiveRecord { created: true, reason: Some("orphan"), ..record };
        assert!(d.archive("core:b", &made));
        assert_eq!(d.entry("core:b").unwrap()["archive"]["reason"], "orphan");
        assert!(d.unarchive("core:b"));
        assert!(!d.has("core:b"));
    }

    #[test]
    fn reflection_state_is_typed() {
        let mut d = DecayFile::parse("{}", Path::new("d.json")).unwrap();
        assert_eq!(
            (d.self_awareness_since_consolidation(), d.last_reflection(), d.token_baseline()),
            (0, None, Some(8000))
        );
        d.record_reflection("2026-02-03T10:00:00Z", Some("2026-02-02"), 4);
        d.record_reflection("2026-02-10T10:00:00Z", None, 7);
        assert_eq!(d.self_awareness_since_consolidation(), 11);
        assert_eq!(d.last_reflection(), Some("2026-02-10T10:00:00Z"));
        assert!(d.state_text().contains("\"reflection_count\": 2"));
        assert!(!d.state_text().contains("entries"));
        d.record_consolidation("2026-02-11", 0);
        assert_eq!(d.self_awareness_since_consolidation(), 0);
        assert!(d.to_text().contains("\"last_self_image_consolidation\": \"2026-02-11\""));
    }

    #[test]
    fn reward_outcomes_update_the_token_economy() {
        let mut d = DecayFile::parse("{}", Path::new("d.json")).unwrap();
        let reward = RewardFile {
            reflection: Some(1),
            awaiting: false,
            decision: None,
            granted: None,
            baseline: 8000,
            extra: 2000,
            penalty: 0,
            closed: None,
            reason: None,
        };
        let outcome = RewardOutcome {
            reward: &reward,
            granted: 9000,
            decision: "Reduced",
            user_bonus: None,
            user_penalty: Some(1000),
            reflection: 1,
            date: "2026-02-03",
            reason: "too much",
        };
        d.record_reward(&outcome);
        d.record_reward(&RewardOutcome {
            decision: "Approved",
            granted: 10_000,
            user_penalty: None,
            ..outcome
        });
        let text = d.to_text();
        let v: Value = serde_json::from_str(&text).unwrap();
        let te = &v["token_economy"];
        assert_eq!(te["totals"]["extra_requested"], 4000);
        assert_eq!(te["totals"]["extra_granted"], 3000);
        assert_eq!(te["totals"]["user_penalty"], 1000);
        assert_eq!(te["recent_outcomes"].as_array().unwrap().len(), 2);
        assert_eq!(te["metrics"]["assessment_accuracy"], 0.5);
        assert_eq!(te["metrics"]["extra_grant_rate"], 0.75);
        for _ in 0..12 {
            d.record_reward(&outcome);
        }
        let v: Value = serde_json::from_str(&d.to_text()).unwrap();
        assert_eq!(v["token_economy"]["recent_outcomes"].as_array().unwrap().len(), 10);
    }

    #[test]
    fn stored_fields_with_defaults() {
        let text = r#"{"version": 3, "entries": {
            "entity:a": {"current_score": 0.42, "access_count": 3, "pinned": true},
            "entity:b": {"current_score": "high"},
            "entity:c": 7
        }}"#;
        let d = DecayFile::parse(text, Path::new("d.json")).unwrap();
        let cases = [
            ("entity:a", Some(Stored { score: 0.42, access_count: 3, pinned: true })),
            ("entity:b", Some(Stored { score: 0.0, access_count: 1, pinned: false })),
            ("entity:c", None),
            ("entity:missing", None),
        ];
        for (key, want) in cases {
            assert_eq!(d.stored(key), want, "key: {key:?}");
        }
    }
}
