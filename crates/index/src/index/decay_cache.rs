//! A sorted copy of the decay inputs, so a search can score its hits without parsing the decay
//! files (2.5 MB of JSON at 10,000 memories). One cache file per decay file, in
//! `.cogmem/index/decay/`: `main.tsv` for `decay-scores.json` (first line
//! `#interactions TAB N`, then `TAB episode-hour` when the shards place episodes by the hour,
//! [`decay_file::Layout`]), `NN.tsv` for the shard `memory/meta/decay/NN.json`; one line per
//! entry: `id TAB base TAB weight TAB uses TAB last-use (unix seconds) TAB last-interaction TAB
//! flags`, where flags has `p` for pinned and `f` for forgotten. Derived; a file's cache is
//! rewritten when that file changes, so a change that touched one shard rewrites one small cache.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use chrono::TimeZone;

use super::line_file::LineFile;
use super::scan;
use crate::Timestamp;
use cogmem_store::decay::{DecayInputs, Now};
use cogmem_store::store::decay_file::{self, DecayFile};
use cogmem_store::store::fsx;
use cogmem_store::store::units::Unreadable;
use cogmem_store::workspace::Workspace;

/// Past this size a cache file is searched where it lies instead of read whole. Lower than
/// [`super::line_file::READ_WHOLE`]: a search's hundred candidates spread over most of the 256
/// shards' caches, about one lookup each, so a whole read pays for a file to find one line (at
/// a million memories, 85 shard caches of 186 KB: 11 of a search's 47 ms), where a binary search
/// reads about six 4 KB blocks.
pub(crate) const SEARCH_IN_PLACE: u64 = 32 * 1024;

/// How many cache files [`DecayCache::preload`] loads before it takes a second thread (a
/// thread costs about as much to start as three loads).
const PRELOAD_THREADS_FROM: usize = 16;

/// The cache folder's name in the index folder.
pub(crate) const DIR: &str = "decay";

/// The cache file of a decay file (`None`: the main file), relative to the cache folder.
pub(crate) fn file_name(home: Option<decay_file::Shard>) -> String {
    match home {
        None => "main.tsv".to_owned(),
        Some(n) => format!("{}.tsv", n.name()),
    }
}

/// Writes the cache of one decay file (`None`: the main file, its own entries only) into
/// `dir`; a decay file that is missing gets an empty cache, and so does one that cannot be read
/// (a link out of the workspace, bytes that are not JSON, a hand edit's conflict markers),
/// which is returned to be reported as skipped: the searches go on without its uses, as they
/// go on without a memory file they cannot read.
/// `sync` is false where the index is written without waiting for the disk (`index::dir`).
pub(crate) fn write(
    ws: &Workspace,
    home: Option<decay_file::Shard>,
    dir: &Path,
    sync: bool,
) -> crate::Result<(Newest, Option<Unreadable>)> {
    let rel = decay_file::file_path(home);
    let path = ws.abs(&rel);
    let read = || -> crate::Result<DecayFile> {
        let text = fsx::read_text_if_exists(&path, ws.file_limit())?;
        Ok(DecayFile::parse_home(text.as_deref().unwrap_or("{}"), &path, home)?)
    };
    let (decay, unreadable) = match read() {
        Ok(decay) => (decay, None),
        Err(e) => {
            let error = e.to_string();
            (DecayFile::parse("{}", &path)?, Some(Unreadable { path: rel.clone(), error }))
        }
    };
    let epoch = chrono::Utc.timestamp_opt(0, 0).single().expect("the epoch exists").fixed_offset();
    let mut lines: Vec<String> = Vec::new();
    let mut newest = Newest::default();
    for key in decay.keys() {
        if key.contains(['\t', '\n']) {
            continue;
        }
        let Some(i) = decay.inputs(&key, epoch) else { continue };
        if !i.forgotten {
            newest.add(i.last_accessed.timestamp(), &key);
        }
        let flags =
            format!("{}{}", if i.pinned { "p" } else { "" }, if i.forgotten { "f" } else { "" });
        lines.push(format!(
            "{key}\t{}\t{}\t{}\t{}\t{}\t{flags}",
            i.base,
            i.type_weight,
            i.access_count,
            i.last_accessed.timestamp(),
            i.last_interaction
        ));
    }
    lines.sort();
    let mut text = String::new();
    if home.is_none() {
        let hours = if decay.layout().episode_hours { EPISODE_HOURS } else { "" };
        text.push_str(&format!("#interactions\t{}{hours}\n", decay.interactions()));
    }
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    fsx::create_dir_all(dir)?;
    fsx::write_derived(&dir.join(file_name(home)), text.as_bytes(), sync)?;
    newest.finish();
    Ok((newest, unreadable))
}

/// The newest use among entries that are not forgotten (what "scratch that" points at): its
/// time (unix seconds, as the caches keep it) and the ids used then, sorted; none when no entry
/// is left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Newest(pub Option<(i64, Vec<String>)>);

impl Newest {
    /// Counts an entry last used at `time`.
    pub(crate) fn add(&mut self, time: i64, id: &str) {
        match &mut self.0 {
            Some((t, ids)) if *t == time => ids.push(id.to_owned()),
            Some((t, _)) if *t > time => {}
            _ => self.0 = Some((time, vec![id.to_owned()])),
        }
    }

    /// The newest of both.
    pub(crate) fn merge(&mut self, other: &Self) {
        if let Some((time, ids)) = &other.0 {
            for id in ids {
                self.add(*time, id);
            }
        }
        self.finish();
    }

    /// Sorts the ids (and drops an id counted twice).
    pub(crate) fn finish(&mut self) {
        if let Some((_, ids)) = &mut self.0 {
            ids.sort_unstable();
            ids.dedup();
        }
    }
}

/// The newest use among the entries of the cache file at `path` (read whole, as
/// [`entries_with_prefix`] reads it); `None` when it cannot be read.
pub(crate) fn newest_in(path: &Path) -> Option<Newest> {
    let (_, entries) = entries_with_prefix(path, "")?;
    let mut newest = Newest::default();
    for (id, i) in entries.iter().filter(|(_, i)| !i.forgotten) {
        newest.add(i.last_accessed.timestamp(), id);
    }
    newest.finish();
    Some(newest)
}

/// The index's summary of the decay caches' newest uses (`.cogmem/index/decay-newest.tsv`):
/// a header `#cogmem-decay-newest 1`, then one line per cache file: `NAME TAB SIZE TAB MTIME
/// TAB TIME|- [TAB ID]…`, where SIZE and MTIME are the decay file's stamp its cache was
/// written from (the manifest's `decay` stamp: a line whose stamp is not the manifest's is not
/// believed) and TIME the newest use among its entries not forgotten, `-` when none.
pub(crate) const NEWEST_FILE: &str = "decay-newest.tsv";

const NEWEST_HEADER: &str = "#cogmem-decay-newest 1";

/// The summary's lines by cache file name: the decay file's stamp and its newest use.
pub(crate) type NewestLines = std::collections::BTreeMap<String, ((u64, u128), Newest)>;

/// Reads the summary; empty when it is missing or not in this format (a malformed line is left
/// out: that cache file is read again).
pub(crate) fn read_newest(path: &Path) -> NewestLines {
    let mut out = NewestLines::new();
    // Derived and written by cogmem itself: the default bound is enough.
    let Ok(Some(text)) = fsx::read_text_if_exists(path, fsx::DEFAULT_FILE_LIMIT) else {
        return out;
    };
    let Some(body) = text.strip_prefix(NEWEST_HEADER).and_then(|r| r.strip_prefix('\n')) else {
        return out;
    };
    for line in body.lines() {
        let mut f = line.split('\t');
        let (Some(name), Some(size), Some(mtime), Some(time)) =
            (f.next(), f.next(), f.next(), f.next())
        else {
            continue;
        };
        let (Ok(size), Ok(mtime)) = (size.parse(), mtime.parse()) else { continue };
        let newest = match time {
            "-" => Newest(None),
            t => match t.parse() {
                Ok(t) => Newest(Some((t, f.map(str::to_owned).collect()))),
                Err(_) => continue,
            },
        };
        out.insert(name.to_owned(), ((size, mtime), newest));
    }
    out
}

/// Writes the summary.
pub(crate) fn write_newest(path: &Path, lines: &NewestLines, sync: bool) -> crate::Result<()> {
    use std::fmt::Write as _;
    let mut text = format!("{NEWEST_HEADER}\n");
    for (name, ((size, mtime), newest)) in lines {
        let _ = write!(text, "{name}\t{size}\t{mtime}\t");
        match &newest.0 {
            None => text.push('-'),
            Some((time, ids)) => {
                let _ = write!(text, "{time}");
                for id in ids {
                    text.push('\t');
                    text.push_str(id);
                }
            }
        }
        text.push('\n');
    }
    Ok(fsx::write_derived(path, text.as_bytes(), sync)?)
}

/// The main cache's mark of a layout that places episodes by the hour, after its interaction
/// count.
const EPISODE_HOURS: &str = "\tepisode-hour";

/// The loaded caches: each file read when a lookup first needs it, then searched in place
/// (a binary search over its sorted lines).
pub(crate) struct DecayCache {
    /// The cache folder, open (`None`: it cannot be read, and every cache is empty). Its files
    /// are opened relative to it: a search opens a hundred of them, and a whole path each cost
    /// a look at every folder above it (issue 20).
    dir: Option<scan::DirHandle>,
    files: RefCell<HashMap<Option<decay_file::Shard>, std::rc::Rc<CacheFile>>>,
    /// The plain files in `dir`, listed once: a lookup tries two shards' caches, and a shard
    /// with no cache file costs no failed open (a hundred candidates touched most of them).
    present: std::collections::HashSet<String>,
    interactions: u64,
    /// Whether the shards place episodes by the hour (the main cache says).
    episode_hours: bool,
}

impl DecayCache {
    /// Opens the caches in `dir` (not through a link leading out of the workspace); missing or
    /// unreadable ones are empty (every memory scores as new).
    pub(crate) fn load(dir: &Path) -> Self {
        let handle = fsx::check_inside(dir, "read").ok().and_then(|()| scan::open_dir(dir));
        let dir = handle.map(|(handle, _)| handle);
        let present: std::collections::HashSet<String> = dir
            .as_ref()
            .and_then(scan::list)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, kind)| *kind == scan::Kind::File)
            .filter_map(|(name, _)| String::from_utf8(name).ok())
            .collect();
        let cache =
            Self { dir, files: RefCell::default(), present, interactions: 0, episode_hours: false };
        let main = cache.file(None);
        Self { interactions: main.interactions, episode_hours: main.episode_hours, ..cache }
    }

    fn file(&self, home: Option<decay_file::Shard>) -> std::rc::Rc<CacheFile> {
        self.files
            .borrow_mut()
            .entry(home)
            .or_insert_with(|| {
                let name = file_name(home);
                std::rc::Rc::new(match &self.dir {
                    Some(dir) if self.present.contains(&name) => CacheFile::load_in(dir, &name),
                    _ => CacheFile::from_text(String::new()),
                })
            })
            .clone()
    }

    /// The workspace's interaction count (the main file's).
    pub(crate) fn interactions(&self) -> u64 {
        self.interactions
    }

    /// Returns "now" for scoring.
    pub(crate) fn now(&self, time: Timestamp) -> Now {
        Now { time, interactions: self.interactions }
    }

    /// Loads the cache files the lookups of `ids` will read (see [`Self::get`]) and that are
    /// not loaded yet, on two threads when there are many: a search's candidates at 100,000
    /// memories are spread over most of the 1,024 shards' caches, a load each (13 µs: an
    /// open, a read and a close), and the loads wait on the kernel more than they compute.
    pub(crate) fn preload<'a>(&self, ids: impl Iterator<Item = &'a str>) {
        let Some(dir) = &self.dir else { return };
        let mut wanted: Vec<(decay_file::Shard, String)> = Vec::new();
        {
            let files = self.files.borrow();
            let mut seen = std::collections::HashSet::new();
            for id in ids {
                for shard in decay_file::shards_of(id, self.episode_hours) {
                    // Named only when not loaded nor wanted yet (a search's ids share shards).
                    if files.contains_key(&Some(shard)) || !seen.insert(shard) {
                        continue;
                    }
                    let name = file_name(Some(shard));
                    if self.present.contains(&name) {
                        wanted.push((shard, name));
                    }
                }
            }
        }
        let loaded = super::on_two_threads_from(&wanted, PRELOAD_THREADS_FROM, |(shard, name)| {
            (*shard, CacheFile::load_in(dir, name))
        });
        let mut files = self.files.borrow_mut();
        for (shard, file) in loaded {
            files.insert(Some(shard), std::rc::Rc::new(file));
        }
    }

    /// Looks up an entry's inputs: in its shard's cache (among 4,096 shards, then 1,024, 256
    /// and 64: the cache does not need to know how many shards the workspace has, and a shard
    /// with no cache file costs nothing), then in the main file's.
    pub(crate) fn get(&self, id: &str) -> Option<DecayInputs> {
        let mut tried = Vec::with_capacity(4);
        for shard in decay_file::shards_of(id, self.episode_hours) {
            if !tried.contains(&shard) {
                tried.push(shard);
                if let Some(found) = self.file(Some(shard)).get(id) {
                    return Some(found);
                }
            }
        }
        self.file(None).get(id)
    }
}

/// One cache file: its text, or, when it is large, the open file searched where it lies
/// ([`LineFile`]: at a million memories a shard's cache is most of a megabyte, and a search
/// looks up a handful of its lines).
struct CacheFile {
    text: String,
    /// Where the sorted entry lines start.
    body: usize,
    interactions: u64,
    /// The main file's layout mark ([`EPISODE_HOURS`]).
    episode_hours: bool,
    large: Option<LineFile>,
}

impl CacheFile {
    /// The cache file `name` of the open cache folder; empty when it cannot be read.
    fn load_in(dir: &scan::DirHandle, name: &str) -> Self {
        let Some(file) = scan::open_in(dir, name) else { return Self::from_text(String::new()) };
        let size = file.metadata().map_or(0, |m| m.len());
        if size > SEARCH_IN_PLACE {
            let Some(f) = LineFile::of_file(file, 0) else { return Self::from_text(String::new()) };
            // Only the main file has a header line, `#interactions TAB N`.
            let head = f.line_at(0).unwrap_or_default();
            let mut cache = Self::from_text(format!("{head}\n"));
            let body = if cache.body > 0 { head.len() as u64 + 1 } else { 0 };
            cache.text = String::new();
            cache.large = Some(f.from(body));
            return cache;
        }
        // Derived and written by cogmem itself, from decay files read under the workspace's
        // limit: the default bound is enough.
        let text = fsx::read_open(file, Path::new(name), fsx::DEFAULT_FILE_LIMIT)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        Self::from_text(text.unwrap_or_default())
    }

    fn from_text(text: String) -> Self {
        let mut body = 0;
        let mut interactions = 0;
        let mut episode_hours = false;
        if let Some(rest) = text.strip_prefix("#interactions\t") {
            let end = rest.find('\n').unwrap_or(rest.len());
            let head = rest[..end].trim();
            let count = head.strip_suffix(EPISODE_HOURS);
            episode_hours = count.is_some();
            interactions = count.unwrap_or(head).trim().parse().unwrap_or(0);
            body = (text.len() - rest.len() + end + 1).min(text.len());
        }
        Self { text, body, interactions, episode_hours, large: None }
    }

    /// The entry line for an id.
    fn find(&self, id: &str) -> Option<std::borrow::Cow<'_, str>> {
        match &self.large {
            Some(f) => f.find(id).map(std::borrow::Cow::Owned),
            None => crate::graph::cache::find_line(&self.text, (self.body, self.text.len()), id)
                .map(std::borrow::Cow::Borrowed),
        }
    }

    fn get(&self, id: &str) -> Option<DecayInputs> {
        parse_line(&self.find(id)?)
    }
}

/// The decay inputs of every entry of a cache file whose id starts with `prefix`, with the
/// file's `#interactions` (0 in a shard's cache); `None` when the file cannot be read.
pub(crate) fn entries_with_prefix(
    path: &Path,
    prefix: &str,
) -> Option<(u64, Vec<(String, DecayInputs)>)> {
    // Derived and written by cogmem itself, from decay files read under the workspace's
    // limit: the default bound is enough.
    let text = fsx::read_text_if_exists(path, fsx::DEFAULT_FILE_LIMIT).ok()??;
    let file = CacheFile::from_text(text);
    let lines = file.text[file.body..].lines();
    let entries = lines
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| Some((l.split('\t').next()?.to_owned(), parse_line(l)?)))
        .collect();
    Some((file.interactions, entries))
}

/// The inputs an entry line holds.
fn parse_line(line: &str) -> Option<DecayInputs> {
    let f: Vec<&str> = line.split('\t').collect();
    let num = |k: usize| f.get(k).and_then(|x| x.parse::<f64>().ok());
    let last = chrono::Utc.timestamp_opt(f.get(4)?.parse().ok()?, 0).single()?.fixed_offset();
    let flags = f.get(6).copied().unwrap_or("");
    Some(DecayInputs {
        base: num(1)?,
        type_weight: num(2)?,
        access_count: f.get(3)?.parse().ok()?,
        last_accessed: last,
        last_interaction: f.get(5)?.parse().ok()?,
        pinned: flags.contains('p'),
        forgotten: flags.contains('f'),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods, reason = "the test writes and damages the files itself")]
    fn the_newest_use_is_that_of_the_entries_not_forgotten_and_the_summary_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = crate::test_rng::Xorshift(0x6e65_7773);
        for case in 0..40 {
            // (id, last use, forgotten), a main cache's header in every other case.
            let entries: Vec<(String, i64, bool)> = (0..rng.below(30))
                .map(|i| {
                    (format!("e:{i:03}"), 1_700_000_000 + rng.below(4) as i64, rng.below(3) == 0)
                })
                .collect();
            let mut text =
                if case % 2 == 0 { "#interactions\t7\n".to_owned() } else { String::new() };
            for (id, time, forgotten) in &entries {
                let flags = if *forgotten { "f" } else { "p" };
                text.push_str(&format!("{id}\t1\t0.8\t2\t{time}\t3\t{flags}\n"));
            }
            let path = dir.path().join(format!("{case}.tsv"));
            std::fs::write(&path, &text).unwrap();
            let kept: Vec<&(String, i64, bool)> = entries.iter().filter(|e| !e.2).collect();
            let expected = kept.iter().map(|e| e.1).max().map(|max| {
                (max, kept.iter().filter(|e| e.1 == max).map(|e| e.0.clone()).collect::<Vec<_>>())
            });
            let got = newest_in(&path).unwrap();
            assert_eq!(got.0, expected, "case {case}");
            // Merged with another's: the newer wins, a tie joins the ids.
            let mut merged = got.clone();
            merged.merge(&Newest(Some((1_700_000_001, vec!["a:1".to_owned()]))));
            let (time, ids) = merged.0.unwrap();
            assert_eq!(time, expected.as_ref().map_or(1_700_000_001, |e| e.0.max(1_700_000_001)));
            assert_eq!(ids.contains(&"a:1".to_owned()), time == 1_700_000_001, "case {case}");
        }
        // The summary reads back what was written; a damaged line is left out.
        let mut lines = NewestLines::new();
        lines.insert("main.tsv".to_owned(), ((10, 20), Newest(None)));
        lines.insert(
            "0a.tsv".to_owned(),
            ((1, 2), Newest(Some((5, vec!["x".into(), "y z".into()])))),
        );
        let path = dir.path().join(NEWEST_FILE);
        write_newest(&path, &lines, false).unwrap();
        assert_eq!(read_newest(&path), lines);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\t10\t", "\tten\t")).unwrap();
        lines.remove("main.tsv");
        assert_eq!(read_newest(&path), lines);
        std::fs::write(&path, text.replace("#cogmem-decay-newest 1", "#other")).unwrap();
        assert!(read_newest(&path).is_empty());
    }

    #[test]
    fn every_entry_is_found_and_no_other() {
        let ids: Vec<String> = (0..500).map(|i| format!("episode:2026-01-01#{i:04}")).collect();
        let mut text = String::from("#interactions\t42\n");
        for (i, id) in ids.iter().enumerate() {
            text.push_str(&format!(
                "{id}\t1\t0.8\t{i}\t1700000000\t3\t{}\n",
                if i % 7 == 0 { "p" } else { "" }
            ));
        }
        let cache = CacheFile::from_text(text);
        assert_eq!(cache.interactions, 42);
        for (i, id) in ids.iter().enumerate() {
            let got = cache.get(id).unwrap_or_else(|| panic!("{id} not found"));
            assert_eq!(got.access_count, i as u64);
            assert_eq!(got.pinned, i % 7 == 0);
        }
        for missing in ["", "a", "episode:2026-01-01#0000x", "zzz", "episode:2026-01-01#"] {
            assert!(cache.get(missing).is_none(), "{missing}");
        }
        assert!(CacheFile::from_text(String::new()).get("x").is_none());
    }

    // See: issue 20
    /// Caches written from shards that place episodes by the hour mark the layout in the main
    /// cache, and a lookup finds every entry in its shard's cache; without the mark the same
    /// lookups would look in the whole-key shards and miss.
    #[test]
    fn caches_of_the_hour_layout_find_every_entry() {
        use cogmem_store::settings::DecaySettings;
        use cogmem_store::store::Store;
        use cogmem_store::store::decay_file::NewUnit;
        let dir = tempfile::tempdir().expect("a temporary folder");
        fsx::write_atomic(&dir.path().join("MEMORY.md"), b"# Memory\n").expect("written");
        fsx::create_dir_all(&dir.path().join("memory/episodes")).expect("made");
        let ws = Workspace::open(dir.path()).expect("open");
        let mut decay = DecayFile::load(&ws).expect("loaded");
        let p = DecaySettings::default();
        let created = "2026-02-02T10:00:00Z".parse().expect("a time");
        let unit = NewUnit { store: Store::Episodic, base: 1.0, created, pinned: false };
        let ids: Vec<String> = (0..1500)
            .map(|i| format!("episode:2026-02-{:02}:{:02}:{:02}", 1 + i / 240, i / 60 % 24, i % 60))
            .collect();
        for id in &ids {
            assert!(decay.insert_new(id, unit, &p));
        }
        for (rel, text) in decay.changed_files() {
            let path = ws.abs(&rel);
            fsx::create_dir_all(path.parent().expect("a folder")).expect("made");
            fsx::write_atomic(&path, text.expect("written").as_bytes()).expect("written");
        }
        let decay = DecayFile::load(&ws).expect("loaded");
        assert!(decay.is_sharded() && decay.layout().episode_hours);
        let caches = dir.path().join("caches");
        write(&ws, None, &caches, false).expect("written");
        for shard in decay_file::shard_files(ws.root()) {
            write(&ws, Some(shard), &caches, false).expect("written");
        }
        let cache = DecayCache::load(&caches);
        assert!(cache.episode_hours);
        cache.preload(ids.iter().map(String::as_str));
        for id in &ids {
            assert_eq!(cache.get(id).map(|d| d.access_count), Some(1), "{id}");
        }
        // The mark is what finds them: a cache that reads the main file without it misses most.
        let main = caches.join("main.tsv");
        let text = fsx::read_text(&main, fsx::DEFAULT_FILE_LIMIT).expect("read");
        assert!(text.starts_with("#interactions\t0\tepisode-hour\n"), "{text:?}");
        fsx::write_atomic(&main, text.replacen("\tepisode-hour", "", 1).as_bytes()).expect("w");
        let unmarked = DecayCache::load(&caches);
        let found = ids.iter().filter(|id| unmarked.get(id).is_some()).count();
        assert!(found < ids.len() / 4, "{found}");
    }

    #[test]
    fn a_large_cache_is_searched_where_it_lies() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut text = String::from("#interactions\t7\n");
        let mut ids: Vec<String> =
            (0..8_000).map(|i| format!("episode:2026-01-01:{i:05}")).collect();
        ids.sort();
        for (i, id) in ids.iter().enumerate() {
            text.push_str(&format!("{id}\t1\t0.8\t{i}\t1700000000\t3\t\n"));
        }
        assert!(text.len() as u64 > SEARCH_IN_PLACE);
        for (name, body) in
            [("main.tsv", text.clone()), ("0a.tsv", text.replacen("#interactions\t7\n", "", 1))]
        {
            let path = dir.path().join(name);
            fsx::write_atomic(&path, body.as_bytes()).expect("written");
            let (folder, _) = scan::open_dir(dir.path()).expect("the folder opens");
            let cache = CacheFile::load_in(&folder, name);
            assert!(cache.large.is_some() && cache.text.is_empty(), "{name}");
            assert_eq!(cache.interactions, if name == "main.tsv" { 7 } else { 0 });
            for (i, id) in ids.iter().enumerate().step_by(37) {
                assert_eq!(cache.get(id).map(|d| d.access_count), Some(i as u64), "{name} {id}");
            }
            assert!(cache.get("episode:2026-01-01:99999").is_none());
            assert!(cache.get("#interactions").is_none());
        }
    }

    /// Entries spread over many shards' caches are found alike whether their caches were
    /// preloaded (on two threads: more than [`PRELOAD_THREADS_FROM`] files) or loaded one by
    /// one; a preload leaves an already loaded cache as it is.
    #[test]
    fn preloaded_caches_give_what_caches_loaded_one_by_one_give() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let caches = dir.path().join("decay");
        fsx::create_dir_all(&caches).expect("made");
        fsx::write_atomic(&caches.join("main.tsv"), b"#interactions\t3\n").expect("written");
        let ids: Vec<String> = (0..400).map(|i| format!("episode:2026-02-03:{i:04}")).collect();
        let mut by_file: HashMap<String, Vec<String>> = HashMap::new();
        for (i, id) in ids.iter().enumerate() {
            // In the 1,024-shard layout, as a workspace of 100,000 memories has.
            let shard = decay_file::shards_of(id, false)[1];
            by_file
                .entry(file_name(Some(shard)))
                .or_default()
                .push(format!("{id}\t1\t0.8\t{i}\t1700000000\t3\t\n"));
        }
        assert!(by_file.len() > 2 * PRELOAD_THREADS_FROM, "{} files", by_file.len());
        for (name, mut lines) in by_file {
            lines.sort();
            fsx::write_atomic(&caches.join(name), lines.concat().as_bytes()).expect("written");
        }
        let one_by_one = DecayCache::load(&caches);
        let preloaded = DecayCache::load(&caches);
        let first = preloaded.get(&ids[0]).expect("found");
        preloaded.preload(ids.iter().map(String::as_str));
        // Every shard cache the ids live in is loaded, none of the others that exist.
        let files = preloaded.files.borrow();
        for id in &ids {
            let shard = decay_file::shards_of(id, false)[1];
            assert!(files.get(&Some(shard)).is_some_and(|f| !f.text.is_empty()), "{id}");
        }
        assert!(files.values().filter(|f| !f.text.is_empty()).count() <= preloaded.present.len());
        drop(files);
        assert_eq!(preloaded.get(&ids[0]).map(|d| d.access_count), Some(first.access_count));
        for (i, id) in ids.iter().enumerate() {
            let a = one_by_one.get(id).map(|d| d.access_count);
            assert_eq!(a, Some(i as u64), "{id}");
            assert_eq!(preloaded.get(id).map(|d| d.access_count), a, "{id}");
        }
        assert!(preloaded.get("episode:2026-02-03:9999").is_none());
    }

    #[test]
    fn the_caches_are_read_in_their_folder_and_a_link_among_them_is_not_followed() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let caches = dir.path().join("decay");
        fsx::create_dir_all(&caches).expect("made");
        let line = |id: &str, uses: u32| format!("{id}\t1\t0.8\t{uses}\t1700000000\t3\t\n");
        let main = format!("#interactions\t9\n{}{}", line("a:1", 4), line("b:2", 5));
        fsx::write_atomic(&caches.join("main.tsv"), main.as_bytes()).expect("written");
        let cache = DecayCache::load(&caches);
        assert_eq!(cache.interactions(), 9);
        assert_eq!(cache.get("a:1").map(|d| d.access_count), Some(4));
        assert_eq!(cache.get("b:2").map(|d| d.access_count), Some(5));
        assert!(cache.get("c:3").is_none());
        // A link in place of the main cache, to a file that would say other things: not read.
        #[cfg(unix)]
        {
            let elsewhere = dir.path().join("elsewhere.tsv");
            let other = format!("#interactions\t77\n{}", line("a:1", 99));
            fsx::write_atomic(&elsewhere, other.as_bytes()).expect("written");
            fsx::remove_file(&caches.join("main.tsv")).expect("removed");
            std::os::unix::fs::symlink(&elsewhere, caches.join("main.tsv")).expect("linked");
            let cache = DecayCache::load(&caches);
            assert_eq!(cache.interactions(), 0);
            assert!(cache.get("a:1").is_none());
        }
        // No folder: every cache is empty.
        let none = DecayCache::load(&dir.path().join("missing"));
        assert_eq!(none.interactions(), 0);
        assert!(none.get("a:1").is_none());
    }
}
