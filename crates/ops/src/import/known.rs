//! The sources an import has already seen: every `<!-- source: … -->` of the workspace's days
//! and every message of this input so far, so that a message is written once, however often
//! the file is imported (issue 20).
//!
//! A source is kept as a 128-bit keyed hash, not as its text: a million sources take 16 MB,
//! not the text of a million ids. The keys are random per process (std's `RandomState`), so no
//! input can be made to collide with another on purpose; by chance, two of a million sources
//! collide with a probability near 10⁻²⁷. Only membership is asked, so nothing written depends
//! on the keys.
//!
//! The sources of each day file are kept between imports in `.cogmem/import-sources.tsv`
//! ([`layout::IMPORT_SOURCES`]), under the file's size and modification time: an import reads
//! again only the day files that changed since (reading every day file took 40 ms of each
//! import at 100,000 memories, and grew with the history: a hook saves a session's transcript
//! after every turn of some hosts). A file changed less than [`SETTLE`] before the cache is
//! written is not kept (two edits within one tick of the file system's clock could leave the
//! same stamps), nor is a file whose path or source the format cannot hold. The text of the
//! cache: a header line, then for each day file a line `f TAB PATH TAB SIZE TAB MTIME` and a
//! line `s TAB SOURCE` for each of its sources. A cache that cannot be read is rebuilt.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use cogmem_store::store::{episode, fsx, units};
use cogmem_store::workspace::{Workspace, layout};

/// A set of sources.
pub(super) struct Known {
    keys: (RandomState, RandomState),
    set: HashSet<u128>,
}

impl Known {
    /// The sources of every day file of the workspace, from the cache for the files whose
    /// stamps it holds and from the files for the others (the cache is then written again). A
    /// file that cannot be read is left out, as listing the workspace's units leaves it out.
    pub(super) fn of_workspace(ws: &Workspace) -> Self {
        let mut out = Self { keys: (RandomState::new(), RandomState::new()), set: HashSet::new() };
        let limit = ws.file_limit();
        let cache_path = ws.abs(layout::IMPORT_SOURCES);
        // The cache is cogmem's own: bounded by the default file limit even where
        // `limits.file_bytes` is lower, and never written longer than it can be read.
        let cache_limit = limit.max(fsx::DEFAULT_FILE_LIMIT);
        let cached = fsx::read_text_if_exists(&cache_path, cache_limit).ok().flatten();
        let mut kept = cached.as_deref().map(parse).unwrap_or_default();
        let mut next: Vec<Day> = Vec::new();
        let mut changed = false;
        for rel in units::markdown_files(ws.root(), layout::EPISODES_DIR) {
            let abs = ws.root().join(&rel);
            let Ok(md) = std::fs::symlink_metadata(&abs) else { continue };
            let stamp = (md.len(), fsx::mtime_nanos(&md));
            let day = match kept.remove(rel.as_str()) {
                Some(day) if day.stamp == stamp => day,
                _ => {
                    changed = true;
                    let Ok(text) = fsx::read_text(&abs, limit) else { continue };
                    Day { path: rel.clone(), stamp, sources: episode::sources(&text) }
                }
            };
            for source in &day.sources {
                out.insert(source);
            }
            next.push(day);
        }
        changed |= !kept.is_empty();
        // Derived: a cache that cannot be written costs the next import a full read. Settled
        // by the file system's clock, as `status` settles its stamps.
        if changed && let Some(now) = cogmem_index::summary::tick(ws) {
            let settled = now.saturating_sub(SETTLE.as_nanos());
            let text = render(next.iter().filter(|d| d.stamp.1 < settled));
            // Too long to be read back: none is kept, and every import reads every day file.
            let _ = if text.len() as u64 <= cache_limit {
                fsx::write_derived(&cache_path, text.as_bytes(), false)
            } else {
                fsx::remove_file(&cache_path)
            };
        }
        out
    }

    fn key(&self, source: &str) -> u128 {
        let hi = self.keys.0.hash_one(source);
        let lo = self.keys.1.hash_one(source);
        (u128::from(hi) << 64) | u128::from(lo)
    }

    /// Adds a source; returns `false` when it was already there.
    pub(super) fn insert(&mut self, source: &str) -> bool {
        let key = self.key(source);
        self.set.insert(key)
    }

    /// Tells whether no source is there.
    pub(super) fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Tells whether a source is there.
    pub(super) fn contains(&self, source: &str) -> bool {
        self.set.contains(&self.key(source))
    }
}

/// How long after its last change a day file's sources may be kept under its stamps.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

const HEADER: &str = "#cogmem-import-sources 1";

/// A day file's sources under its stamps (size, mtime in nanoseconds).
struct Day {
    path: String,
    stamp: (u64, u128),
    sources: Vec<String>,
}

/// The cache's days by path; nothing from a text that is not a cache of this version, and no
/// day whose lines are malformed (its file is read again).
fn parse(text: &str) -> std::collections::HashMap<String, Day> {
    let mut out = std::collections::HashMap::new();
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return out;
    }
    let mut day: Option<Day> = None;
    let mut bad = false;
    for line in lines {
        match line.split_once('\t') {
            Some(("f", rest)) => {
                if let Some(d) = day.take().filter(|_| !bad) {
                    out.insert(d.path.clone(), d);
                }
                bad = false;
                let mut parts = rest.split('\t');
                day = match (parts.next(), parts.next(), parts.next(), parts.next()) {
                    (Some(path), Some(size), Some(mtime), None) => {
                        match (size.parse(), mtime.parse()) {
                            (Ok(size), Ok(mtime)) => Some(Day {
                                path: path.to_owned(),
                                stamp: (size, mtime),
                                sources: Vec::new(),
                            }),
                            _ => None,
                        }
                    }
                    _ => None,
                };
            }
            Some(("s", source)) => match day.as_mut() {
                Some(d) => d.sources.push(source.to_owned()),
                None => bad = true,
            },
            _ => bad = true,
        }
    }
    if let Some(d) = day.filter(|_| !bad) {
        out.insert(d.path.clone(), d);
    }
    out
}

/// The cache's text for `days`, leaving out a day whose path or sources hold a tab or a line
/// break (its file is read each time).
fn render<'a>(days: impl Iterator<Item = &'a Day>) -> String {
    let fits = |s: &str| !s.contains(['\t', '\n', '\r']);
    let mut out = format!("{HEADER}\n");
    for d in days.filter(|d| fits(&d.path) && d.sources.iter().all(|s| fits(s))) {
        out.push_str(&format!("f\t{}\t{}\t{}\n", d.path, d.stamp.0, d.stamp.1));
        for s in &d.sources {
            out.push_str(&format!("s\t{s}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(path: &str, size: u64, sources: &[&str]) -> Day {
        Day {
            path: path.to_owned(),
            stamp: (size, 7),
            sources: sources.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn a_cache_reads_back_what_was_written() {
        let days = [day("memory/episodes/2026-11-30.md", 10, &["a:1", "b 2"]), day("x.md", 0, &[])];
        let back = parse(&render(days.iter()));
        assert_eq!(back.len(), 2);
        let d = &back["memory/episodes/2026-11-30.md"];
        assert_eq!(
            (d.stamp, d.sources.clone()),
            ((10, 7), vec!["a:1".to_owned(), "b 2".to_owned()])
        );
        assert!(back["x.md"].sources.is_empty());
    }

    #[test]
    fn what_the_format_cannot_hold_is_left_out_and_a_bad_cache_is_not_read() {
        let days = [day("a.md", 1, &["tab\there"]), day("b.md", 2, &["ok"])];
        let back = parse(&render(days.iter()));
        assert!(!back.contains_key("a.md") && back.contains_key("b.md"));
        assert!(parse("#cogmem-import-sources 0\nf\tb.md\t2\t7\n").is_empty());
        // A malformed line costs its day only.
        let text = format!("{HEADER}\nf\ta.md\t1\t7\nzz\nf\tb.md\t2\t7\ns\tok\n");
        let back = parse(&text);
        assert!(!back.contains_key("a.md") && back["b.md"].sources == ["ok"]);
        assert!(parse(&format!("{HEADER}\nf\tc.md\tnot-a-size\t7\ns\tx\n")).is_empty());
    }
}
