//! The search index: derived from the files, never canonical (design.md §2.1, §6).
//!
//! A tantivy index in `.cogmem/index/` holds one document per memory unit. A manifest of
//! (path, size, mtime, hash) says which file each document came from, so a refresh re-reads
//! only the files that changed — whether a command or a person changed them. The index records
//! its schema version and analyzer; when they differ from this build, or the index cannot be
//! opened, it is rebuilt from the files rather than trusted. Deleting `.cogmem/` loses nothing.
//!
//! Decay inputs are copied from the decay files into sorted cache files (one per decay file), so
//! a search reads the few entries it ranks without parsing the JSON, and a change that touched
//! one shard rewrites one small cache.

pub(crate) mod ahead;
pub mod analyzer;
pub(crate) mod decay_cache;
pub(crate) mod dir;
pub(crate) mod expand;
pub mod freshness;
pub mod highlight;
pub(crate) mod line_file;
mod manifest_journal;
mod manifest_patch;
pub mod merge;
pub(crate) mod people;
pub(crate) mod queue;
pub(crate) mod scan;
pub mod search;
pub(crate) mod when;

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{
    Index as TantivyIndex, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc,
};

use crate::error::ErrorKind;
use cogmem_store::store::fsx::{self, IoError};
use cogmem_store::store::units::{self, MemoryUnit, Unreadable};
use cogmem_store::workspace::{LockGuard, LockSide, Workspace, layout, wait_for_lock};

/// Bumped whenever the schema or the way documents are built changes.
pub(crate) const SCHEMA_VERSION: u32 = 8;

/// The index's settings: tantivy's, with 4 KB document-store blocks (16 KB by default). A
/// search reads its hundred candidates' stored fields, each from its own block, and
/// decompresses that whole block: smaller blocks are what a read of scattered documents wants.
fn index_settings() -> tantivy::IndexSettings {
    tantivy::IndexSettings { docstore_blocksize: 4096, ..tantivy::IndexSettings::default() }
}

pub(crate) const META_FILE: &str = "manifest.tsv";

/// The manifest's journal beside the manifest at `manifest` ([`manifest_journal`]).
pub(crate) fn journal_beside(manifest: &Path) -> std::path::PathBuf {
    manifest_journal::path_beside(manifest)
}
const MANIFEST_HEADER: &str = "#cogmem-index-manifest 1";
const LOCK_FILE: &str = ".cogmem/index.lock";
/// How far (bytes of `.cogmem/watch/changed`) the manifest's watch record may lag before a
/// search that found nothing new writes it anyway.
const WATCH_LAG: u64 = 64 * 1024;

/// A failure of the derived index that a rebuild cannot fix.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// tantivy failed.
    #[error("{}: the search index failed: {message}", path.display())]
    Tantivy {
        /// The index folder.
        path: PathBuf,
        /// tantivy's message.
        message: String,
    },
    /// The index lock was held for the whole wait.
    #[error("{} is busy: another cogmem command is updating the search index", path.display())]
    Busy {
        /// The lock file.
        path: PathBuf,
    },
    /// The index is further behind the files than this program may catch up on before it
    /// answers ([`WorkspaceOptions::refresh_limit`](cogmem_store::workspace::WorkspaceOptions)).
    #[error("{}: {}", path.display(), behind_text(*files))]
    Behind {
        /// The index folder.
        path: PathBuf,
        /// The files to read again; `None` when the index must be built from scratch.
        files: Option<usize>,
    },
}

impl IndexError {
    /// Returns who is at fault: the user, a rule, or cogmem/the environment.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Tantivy { .. } => ErrorKind::Internal,
            Self::Busy { .. } | Self::Behind { .. } => ErrorKind::User,
        }
    }

    /// Returns the next step the user should take, with the command in backticks.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Tantivy { .. } => {
                "the index is derived: delete `.cogmem/index` and run `cogmem reindex`".into()
            }
            Self::Busy { .. } => "try again in a moment".into(),
            Self::Behind { .. } => "`cogmem reindex` brings it up to date".into(),
        })
    }
}

/// What [`IndexError::Behind`] says after the index folder's path.
fn behind_text(files: Option<usize>) -> String {
    match files {
        Some(n) => format!(
            "the search index is {n} files behind the memory files, more than this read brings \
             up to date"
        ),
        None => "the search index must be built again from the memory files, which this read \
                 does not do"
            .to_owned(),
    }
}

pub(crate) fn tantivy_err(path: &Path) -> impl Fn(tantivy::TantivyError) -> IndexError + '_ {
    move |e| IndexError::Tantivy { path: path.to_owned(), message: e.to_string() }
}

/// The fields of a document.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// Unit id (exact).
    pub id: Field,
    /// Store name (exact).
    pub store: Field,
    /// Kind: episode type, entity type, `procedure`, `vault`, core section (exact).
    pub kind: Field,
    /// File path (exact; documents are replaced per file).
    pub(crate) path: Field,
    /// 1-based line (fast, to find the entry after another in its file).
    pub(crate) line: Field,
    /// `YYYY-MM-DD`, or empty.
    pub(crate) date: Field,
    /// Days since 1970-01-01, for date ranges.
    pub(crate) day: Field,
    /// Tags (analyzed).
    pub tags: Field,
    /// Entity ids (exact, several).
    pub entities: Field,
    /// Source reference of an imported entry.
    pub(crate) source: Field,
    /// Title words: the entity's name, the note's title (analyzed).
    pub title: Field,
    /// The unit's words (analyzed, with positions for phrases): its text without HTML comments,
    /// which hold metadata and template instructions rather than memory.
    pub text: Field,
    /// The unit's whole text, as stored for display (not searched).
    pub(crate) raw: Field,
    /// An entity's status when not active (exact).
    pub(crate) state: Field,
    /// The days the text names or implies ([`when::render`]), for ranking.
    pub(crate) dates: Field,
    /// The first and last of each of those days, as days since 1970-01-01 (several), for
    /// date filters.
    pub(crate) implied_day: Field,
}

/// Builds the schema.
pub(crate) fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let analyzed = |stored: bool| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(analyzer::NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let opts = TextOptions::default().set_indexing_options(indexing);
        if stored { opts.set_stored() } else { opts }
    };
    let fields = Fields {
        // Fields no query looks up are stored, not indexed: each indexed field costs every
        // commit a term dictionary (about 1 MB of builder state), a sixth of a `remember`'s
        // index update.
        id: b.add_text_field("id", STORED),
        store: b.add_text_field("store", STRING | STORED),
        kind: b.add_text_field("kind", STRING | STORED),
        path: b.add_text_field("path", STRING | STORED),
        line: b.add_u64_field("line", STORED | FAST),
        date: b.add_text_field("date", STORED),
        day: b.add_i64_field("day", INDEXED | FAST),
        tags: b.add_text_field("tags", analyzed(true)),
        entities: b.add_text_field("entities", STRING | STORED),
        source: b.add_text_field("source", STORED),
        title: b.add_text_field("title", analyzed(false)),
        text: b.add_text_field("text", analyzed(false)),
        raw: b.add_text_field("raw", STORED),
        state: b.add_text_field("state", STORED),
        dates: b.add_text_field("dates", STORED),
        implied_day: b.add_i64_field("implied_day", INDEXED),
    };
    (b.build(), fields)
}

/// A file's fingerprint in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: u128,
    /// Short content hash.
    pub hash: String,
}

/// The manifest: what the index was built from. Stored as `manifest.tsv`, read on every search,
/// so it is a plain sorted table rather than JSON (a twelfth of the parse time at 12,000 files):
/// `#schema N`, `#analyzer NAME`, `#decay FILE SIZE MTIME` header lines (one per decay file
/// whose cache is current; `-` for `decay-scores.json`, `NN` for a shard), then
/// `path TAB size TAB mtime TAB hash` per file. A `#stamps N DIGEST` header line gives the
/// number of file lines and [`files_digest`] of their paths, sizes and mtimes, so that a read
/// that finds the same stamps needs only the header (issue 20: 108,000 lines at a million
/// memories).
#[derive(Debug, Clone, Default, PartialEq)]
struct Meta {
    schema_version: u32,
    analyzer: String,
    files: HashMap<String, Stamp>,
    /// The file lines, when only the header was parsed ([`Meta::parse_header`]): `files` is
    /// empty until [`Meta::parse_files`]. Not copied, and read from the file only when first
    /// needed ([`Unparsed`]): at a million memories they are 10 MB.
    unparsed: Option<Unparsed>,
    /// The `#stamps` line as read.
    digest: Option<(usize, u64)>,
    /// The count of a `#files` line, the digest line of versions before 2026-12-05 (FNV-1a, a
    /// byte at a time): that digest is not read (`digest` is `None`); the count still vouches
    /// for the file lines, so a scan is still compared with them as text ([`Self::diff`]), and
    /// the next refresh writes the manifest again, with a `#stamps` line.
    old_count: Option<usize>,
    /// Stamps of the decay files whose caches are current, by home (`None`: the main file).
    decay: std::collections::BTreeMap<Option<cogmem_store::store::decay_file::Shard>, (u64, u128)>,
    /// Stamps of the store folders whose memory files are exactly this manifest's paths in
    /// them, so a scan need not list them ([`scan`]).
    dirs: std::collections::BTreeMap<String, scan::DirStamp>,
    /// The boot the index was last written in, without waiting for the disk ([`dir`]).
    boot: Option<String>,
    /// The watcher generation and the offset in its `changed` file up to which the files
    /// listed here are known current ([`freshness`]).
    watch: Option<(String, u64)>,
    /// After a change: the paths whose lines are patched into the unparsed text, with the
    /// size and mtime their lines had ([`manifest_patch`]).
    patch: Option<std::collections::BTreeMap<String, Option<(u64, u128)>>>,
    /// The memory files and links the last refresh could not read (`#skipped PATH` lines): a
    /// refresh the watcher serves looks at them again, so they are named on every read.
    skipped: std::collections::BTreeSet<String>,
    /// More than [`SKIPPED_MAX`] of them, or one no line can hold (`#skipped *`): a refresh
    /// the watcher would serve scans every file instead.
    skipped_overflow: bool,
    /// The memory files among them that were read but are not UTF-8, with the size and mtime
    /// they had and what was said of them (`#unreadable SIZE MTIME PATH TAB ERROR` lines): until
    /// such a file changes, a refresh reports it again without reading it.
    unreadable: std::collections::BTreeMap<String, (u64, u128, String)>,
    /// The `manifest.tsv` read and where its journal's whole records end
    /// ([`manifest_journal`]): `None` for a manifest not read from a file.
    journal_at: Option<manifest_journal::JournalAt>,
    /// The header lines (through `#stamps`) of the manifest as last read or written: what a
    /// journal record's header changes are taken against.
    journal_header: Option<String>,
}

/// The most unreadable paths the manifest names one by one ([`Meta::skipped`]).
const SKIPPED_MAX: usize = 256;

/// A manifest's text whose file lines are not parsed: what was read of it and where its file
/// lines start, and, while the rest is unread, the open file. A search the watcher vouches for
/// needs the header only; the first look at a file line reads the rest (from the same open file,
/// so from the manifest the header was read from: every writer replaces the file).
///
/// The text is shared ([`Self::text`]): a scan's paths are borrowed from it while the manifest
/// changes (12,000 paths copied one by one were a millisecond of every search at 100,000
/// memories, issue 20).
#[derive(Debug, Clone)]
struct Unparsed {
    read: Arc<String>,
    body: usize,
    rest: Option<Arc<File>>,
    /// The whole text once the rest was read; `None` when it could not be.
    whole: std::sync::OnceLock<Option<Arc<String>>>,
    /// For a manifest with a journal: `read` is the last record's header, and the file lines are
    /// the base manifest's with the records' lines put in ([`manifest_journal::splice`]), when
    /// first needed.
    base: Option<(Box<Self>, Arc<manifest_journal::Patches>)>,
}

impl Unparsed {
    fn whole(text: String, body: usize) -> Self {
        Self {
            read: Arc::new(text),
            body,
            rest: None,
            whole: std::sync::OnceLock::new(),
            base: None,
        }
    }

    /// The whole manifest text and where its file lines start; `None` when the rest of the file
    /// could not be read (the file lines are then unknown).
    fn get(&self) -> Option<(&str, usize)> {
        self.text_ref().map(|t| (t.as_str(), self.body))
    }

    /// [`Self::get`]'s text, shared.
    fn text(&self) -> Option<Arc<String>> {
        self.text_ref().cloned()
    }

    fn text_ref(&self) -> Option<&Arc<String>> {
        if let Some((base, patches)) = &self.base {
            let whole = self.whole.get_or_init(|| {
                let (text, body) = base.get()?;
                let mut out = String::with_capacity(self.read.len() + text.len() - body + 4096);
                out.push_str(&self.read);
                manifest_journal::splice(&text[body..], patches, &mut out);
                Some(Arc::new(out))
            });
            return whole.as_ref();
        }
        let Some(file) = &self.rest else { return Some(&self.read) };
        let whole = self.whole.get_or_init(|| {
            let mut f = &**file;
            // Sized once from the file (a megabyte at 100,000 memories, grown by doubling
            // before).
            let len = f.metadata().ok()?.len();
            let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
            bytes.extend_from_slice(self.read.as_bytes());
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(bytes.len() as u64)).ok()?;
            std::io::Read::read_to_end(&mut f, &mut bytes).ok()?;
            String::from_utf8(bytes).ok().map(Arc::new)
        });
        whole.as_ref()
    }
}

impl PartialEq for Unparsed {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// The paths of the file `lines` (`PATH TAB …`, one a line) directly in the folders `dirs`,
/// as [`Meta::paths_in`] gives them.
fn lines_paths_in<'a>(lines: &'a str, dirs: &[&str]) -> Vec<std::borrow::Cow<'a, str>> {
    let mut out = Vec::new();
    for line in memchr::memchr_iter(b'\n', lines.as_bytes())
        .scan(0, |start, end| {
            let line = &lines[*start..end];
            *start = end + 1;
            Some(line)
        })
        .chain(lines.rsplit_once('\n').map_or(Some(lines), |(_, last)| Some(last)))
    {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let path = memchr::memchr(b'\t', line.as_bytes()).map_or(line, |tab| &line[..tab]);
        if let Some(slash) = memchr::memrchr(b'/', path.as_bytes())
            && dirs.contains(&&path[..slash])
        {
            out.push(std::borrow::Cow::Borrowed(path));
        }
    }
    out
}

/// How much of the manifest is read before its header is parsed: the header lines (a few per
/// store folder and decay shard) fit; the file lines are read when needed.
const MANIFEST_HEAD: usize = 64 * 1024;

/// The digest of the `#stamps` line: one hash of each file's path, size and mtime
/// ([`crate::listings::hasher`]), summed (so the order of a folder listing does not matter),
/// and the number of files. It replaced FNV-1a a byte at a time, 0.9 ms of every search at
/// 100,000 memories (issue 20).
fn files_digest<'a>(files: impl Iterator<Item = (&'a str, u64, u128)>) -> (usize, u64) {
    let mut n = 0;
    let mut sum: u64 = 0;
    for (path, size, mtime) in files {
        sum = sum.wrapping_add(file_hash(path, size, mtime));
        n += 1;
    }
    (n, sum)
}

/// [`files_digest`] of file lines (`PATH TAB SIZE TAB MTIME TAB HASH`); `None` when one is
/// malformed.
fn lines_digest(lines: &str) -> Option<(usize, u64)> {
    let stamps: Option<Vec<(&str, (u64, u128))>> = lines.lines().map(stamp_of_line).collect();
    Some(files_digest(stamps?.into_iter().map(|(p, (s, m))| (p, s, m))))
}

/// The hash one file adds to the `#stamps` digest.
fn file_hash(path: &str, size: u64, mtime: u128) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::listings::hasher();
    h.write(path.as_bytes());
    h.write_u64(size);
    h.write_u128(mtime);
    h.finish()
}

impl Meta {
    #[cfg(test)]
    fn parse(text: &str) -> Option<Self> {
        let mut meta = Self::parse_header(text.to_owned())?;
        meta.parse_files().then_some(meta)
    }

    /// Parses the header lines only; the file lines are kept as text (see [`Self::lookup`]).
    fn parse_header(text: String) -> Option<Self> {
        let mut meta = Self::default();
        let mut lines = text.lines();
        if lines.next()? != MANIFEST_HEADER {
            return None;
        }
        let mut body = text.len();
        let mut at = MANIFEST_HEADER.len() + 1;
        for line in lines {
            if !line.starts_with('#') {
                body = at;
                break;
            }
            at += line.len() + 1;
            if let Some(rest) = line.strip_prefix('#') {
                let (key, value) = rest.split_once(' ')?;
                match key {
                    "schema" => meta.schema_version = value.parse().ok()?,
                    "analyzer" => value.clone_into(&mut meta.analyzer),
                    "boot" => meta.boot = Some(value.to_owned()),
                    "watch" => meta.watch = parse_watch(value),
                    "skipped" if value == "*" => meta.skipped_overflow = true,
                    "skipped" => {
                        meta.skipped.insert(value.to_owned());
                    }
                    "unreadable" => {
                        if let Some((path, stamp)) = parse_unreadable(value) {
                            meta.unreadable.insert(path, stamp);
                        }
                    }
                    "dir" => {
                        if let Some((dir, stamp)) = scan::DirStamp::parse(value) {
                            meta.dirs.insert(dir, stamp);
                        }
                    }
                    "stamps" => {
                        meta.digest = value.split_once(' ').and_then(|(n, d)| {
                            Some((n.parse().ok()?, u64::from_str_radix(d, 16).ok()?))
                        });
                    }
                    "files" => {
                        meta.old_count = value.split_once(' ').and_then(|(n, _)| n.parse().ok());
                    }
                    "decay" => {
                        // An older manifest's line (`#decay SIZE MTIME`) is simply not used:
                        // the caches are then rewritten.
                        let mut f = value.split(' ');
                        if let (Some(home), Some(size), Some(mtime), None) =
                            (f.next(), f.next(), f.next(), f.next())
                        {
                            let home = match home {
                                "-" => None,
                                n => Some(cogmem_store::store::decay_file::Shard::from_name(n)?),
                            };
                            meta.decay.insert(home, (size.parse().ok()?, mtime.parse().ok()?));
                        }
                    }
                    _ => {}
                }
            }
        }
        let body = body.min(text.len());
        meta.unparsed = Some(Unparsed::whole(text, body));
        Some(meta)
    }

    /// Parses the file lines kept by [`Self::parse_header`]; `false` when one is malformed
    /// (the manifest is then no manifest).
    fn parse_files(&mut self) -> bool {
        let Some(unparsed) = self.unparsed.take() else { return true };
        let Some((text, body)) = unparsed.get() else { return false };
        for line in text[body..].lines() {
            let Some((path, stamp)) = parse_file_line(line) else { return false };
            self.files.insert(path.to_owned(), stamp);
        }
        true
    }

    /// A file's size and mtime, parsed or not yet (by binary search over the sorted lines);
    /// a path being patched ([`Self::parse_only`]) as it is now.
    fn lookup(&self, rel: &str) -> Option<(u64, u128)> {
        let patched = self.patch.as_ref().is_some_and(|p| p.contains_key(rel));
        match &self.unparsed {
            Some(unparsed) if !patched => {
                let (text, body) = unparsed.get()?;
                let line = crate::graph::cache::find_line(text, (body, text.len()), rel)?;
                parse_file_line(line).map(|(_, s)| (s.size, s.mtime))
            }
            _ => self.files.get(rel).map(|s| (s.size, s.mtime)),
        }
    }

    /// The `#dir` stamps a scan may trust: none when the file lines are not as many as the
    /// `#stamps` (or `#files`) line says, each ended by a newline (a manifest cut short cannot
    /// say which files a folder holds).
    fn known_dirs(&self) -> std::collections::BTreeMap<String, scan::DirStamp> {
        let complete = match (&self.unparsed, self.count()) {
            (None, _) => true,
            (Some(unparsed), Some(n)) => unparsed.get().is_some_and(|(text, body)| {
                let lines = &text.as_bytes()[body..];
                (lines.is_empty() || lines.ends_with(b"\n"))
                    && memchr::memchr_iter(b'\n', lines).count() == n
            }),
            (Some(_), None) => false,
        };
        if complete { self.dirs.clone() } else { std::collections::BTreeMap::new() }
    }

    /// The paths of the file lines, parsed or not; while lines are patched
    /// ([`Self::parse_only`]), those the patch leaves (in no particular order).
    fn paths(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.unparsed {
            None => Box::new(self.files.keys().map(String::as_str)),
            Some(unparsed) => {
                let lines = unparsed.get().map_or("", |(text, body)| &text[body..]);
                let text = lines.lines().map(|l| l.split_once('\t').map_or(l, |(p, _)| p));
                match &self.patch {
                    None => Box::new(text),
                    Some(patch) => {
                        // The lines and the patched paths are both sorted: merged, not each line
                        // looked up in the patch (112,000 lookups at a million memories).
                        let mut keys = patch.keys().peekable();
                        let unpatched = text.filter(move |p| {
                            while keys.next_if(|k| k.as_str() < *p).is_some() {}
                            keys.peek().is_none_or(|k| k.as_str() != *p)
                        });
                        Box::new(
                            unpatched.chain(
                                patch
                                    .keys()
                                    .filter(|p| self.files.contains_key(*p))
                                    .map(String::as_str),
                            ),
                        )
                    }
                }
            }
        }
    }

    /// The file lines as read and where they start in the text, shared, when they are not
    /// parsed or patched: what [`Self::paths_in`] borrows its paths from.
    fn lines(&self) -> Option<(Arc<String>, usize)> {
        match (&self.unparsed, &self.patch) {
            (Some(unparsed), None) => Some((unparsed.text()?, unparsed.body)),
            _ => None,
        }
    }

    /// The paths of the files directly in the folders `dirs`: borrowed from `lines` (the
    /// manifest's [`Self::lines`]) when given, else copied.
    fn paths_in<'l>(
        &self,
        lines: Option<&'l (Arc<String>, usize)>,
        dirs: &[&str],
    ) -> Vec<std::borrow::Cow<'l, str>> {
        use std::borrow::Cow;
        // The lines as read (every search without a watcher): split by hand, not through
        // `paths` (a quarter of the time before the files' stats at 100,000 memories).
        if let Some((text, body)) = lines {
            return lines_paths_in(&text[*body..], dirs);
        }
        self.paths()
            .filter(|p| p.rsplit_once('/').is_some_and(|(d, _)| dirs.contains(&d)))
            .map(|p| Cow::Owned(p.to_owned()))
            .collect()
    }

    /// What a full scan's `files` (path, size, mtime) differ in from the file lines still held
    /// as text: the files to read (new, or with other stamps), sorted, and the paths gone.
    /// `None` when the lines are parsed already, cannot be read, are not strictly sorted or one
    /// is malformed, or there is no `#stamps` line (the caller parses every line then).
    fn diff<P: AsRef<str>>(
        &self,
        files: &[(P, u64, u128)],
    ) -> Option<(Vec<FileStamp>, Vec<String>)> {
        let (text, body) = self.unparsed.as_ref()?.get()?;
        self.count()?;
        let mut scan: Vec<(&str, u64, u128)> =
            files.iter().map(|(p, s, m)| (p.as_ref(), *s, *m)).collect();
        scan.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut lines = text[body..].lines().map(stamp_of_line).peekable();
        let (mut to_read, mut gone) = (Vec::new(), Vec::new());
        let mut last: Option<&str> = None;
        let mut next = |lines: &mut std::iter::Peekable<_>| -> Option<Option<(&str, (u64, u128))>> {
            let line: Option<Option<(&str, (u64, u128))>> = lines.next();
            if let Some(Some((path, _))) = &line {
                if last.is_some_and(|l| l >= *path) {
                    return None; // not sorted: not a manifest this comparison can trust
                }
                last = Some(*path);
            }
            Some(line.flatten())
        };
        for f in scan {
            loop {
                match lines.peek() {
                    Some(None) => return None, // a malformed line
                    Some(Some((path, _))) if *path < f.0 => {
                        let (path, _) = next(&mut lines)??;
                        gone.push(path.to_owned());
                    }
                    _ => break,
                }
            }
            match lines.peek() {
                Some(Some((path, _))) if *path == f.0 => {
                    let (_, stamp) = next(&mut lines)??;
                    if stamp != (f.1, f.2) {
                        to_read.push((f.0.to_owned(), f.1, f.2));
                    }
                }
                _ => to_read.push((f.0.to_owned(), f.1, f.2)),
            }
        }
        while lines.peek().is_some() {
            let (path, _) = next(&mut lines)??;
            gone.push(path.to_owned());
        }
        Some((to_read, gone))
    }

    /// The number of file lines the `#stamps` line (or an older `#files` line) says there are.
    fn count(&self) -> Option<usize> {
        self.digest.map(|(n, _)| n).or(self.old_count)
    }

    /// Whether `files` (path, size, mtime) are exactly the files of the `#stamps` line.
    fn is_same<P: AsRef<str>>(&self, files: &[(P, u64, u128)]) -> bool {
        self.digest.is_some()
            && self.digest == Some(files_digest(files.iter().map(|(p, s, m)| (p.as_ref(), *s, *m))))
    }

    fn to_text(&self) -> String {
        let mut out = self.header_text();
        if let Some(lines) = self.patched_lines() {
            out.push_str(&lines);
            return out;
        }
        if let Some(unparsed) = &self.unparsed {
            // Only the header changed: the file lines (and their digest) are written back.
            // Lines that could not be read are not written, nor their digest: the next refresh
            // then reads every file again.
            if let Some((text, body)) = unparsed.get() {
                // A manifest read without its digest gets one, from the lines as they are.
                if let Some((n, d)) = self.digest.or_else(|| lines_digest(&text[body..])) {
                    out.push_str(&format!("#stamps {n} {d:016x}\n"));
                }
                out.push_str(&text[body..]);
            }
            return out;
        }
        let (n, d) = files_digest(self.files.iter().map(|(p, s)| (p.as_str(), s.size, s.mtime)));
        out.push_str(&format!("#stamps {n} {d:016x}\n"));
        let mut paths: Vec<&String> = self.files.keys().collect();
        paths.sort();
        for p in paths {
            let s = &self.files[p];
            out.push_str(&format!("{p}\t{}\t{}\t{}\n", s.size, s.mtime, s.hash));
        }
        out
    }

    /// The header lines before `#stamps`, as [`Self::to_text`] writes them.
    fn header_text(&self) -> String {
        let mut out = format!(
            "{MANIFEST_HEADER}\n#schema {}\n#analyzer {}\n",
            self.schema_version, self.analyzer
        );
        if let Some(b) = &self.boot {
            out.push_str(&format!("#boot {b}\n"));
        }
        if let Some((generation, offset)) = &self.watch {
            out.push_str(&format!("#watch {generation} {offset}\n"));
        }
        for (home, (size, mtime)) in &self.decay {
            let home = home.map_or_else(|| "-".to_owned(), |n| n.name());
            out.push_str(&format!("#decay {home} {size} {mtime}\n"));
        }
        for (dir, stamp) in &self.dirs {
            out.push_str(&stamp.line(dir));
        }
        if self.skipped_overflow {
            out.push_str("#skipped *\n");
        } else {
            for path in &self.skipped {
                out.push_str(&format!("#skipped {path}\n"));
            }
        }
        for (path, (size, mtime, error)) in &self.unreadable {
            out.push_str(&format!("#unreadable {size} {mtime} {path}\t{error}\n"));
        }
        out
    }
}

/// A file's path (relative to the root), size and mtime, as a scan finds it.
type FileStamp = (String, u64, u128);

/// The value of an `#unreadable SIZE MTIME PATH TAB ERROR` line.
fn parse_unreadable(value: &str) -> Option<(String, (u64, u128, String))> {
    let (size, rest) = value.split_once(' ')?;
    let (mtime, rest) = rest.split_once(' ')?;
    let (path, error) = rest.split_once('\t')?;
    Some((path.to_owned(), (size.parse().ok()?, mtime.parse().ok()?, error.to_owned())))
}

/// The path, size and mtime of a `path TAB size TAB mtime TAB hash` line (the hash is not
/// needed to compare stamps, nor copied).
fn stamp_of_line(line: &str) -> Option<(&str, (u64, u128))> {
    let mut f = line.split('\t');
    let (path, size, mtime) = (f.next()?, f.next()?, f.next()?);
    f.next()?;
    Some((path, (size.parse().ok()?, mtime.parse().ok()?)))
}

/// Parses a `path TAB size TAB mtime TAB hash` line.
fn parse_file_line(line: &str) -> Option<(&str, Stamp)> {
    let mut f = line.split('\t');
    let (Some(path), Some(size), Some(mtime), Some(hash)) =
        (f.next(), f.next(), f.next(), f.next())
    else {
        return None;
    };
    Some((
        path,
        Stamp { size: size.parse().ok()?, mtime: mtime.parse().ok()?, hash: hash.to_owned() },
    ))
}

/// Parses the value of a `#watch GENERATION OFFSET` line; one that is malformed is no line
/// (the next read scans every file).
fn parse_watch(value: &str) -> Option<(String, u64)> {
    let (generation, offset) = value.split_once(' ')?;
    let offset = offset.parse().ok()?;
    (!generation.is_empty() && !generation.contains(char::is_whitespace))
        .then(|| (generation.to_owned(), offset))
}

/// Reads the manifest; one that is missing, unreadable as text or malformed is no manifest (the
/// index is rebuilt).
/// Only the header is parsed ([`Meta::parse_header`]).
fn read_meta(path: &Path, limit: u64) -> crate::Result<Option<Meta>> {
    let Some((mut meta, base)) = read_base(path, limit)? else { return Ok(None) };
    let journal_path = manifest_journal::path_beside(path);
    let base_header = meta.unparsed.as_ref().map(|u| u.read[..u.body].to_owned());
    let base_header = base_header.unwrap_or_default();
    let (journal, at) = manifest_journal::read(&journal_path, base, &base_header, limit);
    meta.journal_at = Some(at);
    meta.journal_header = Some(base_header);
    let Some(journal) = journal else { return Ok(Some(meta)) };
    let header = journal.header.clone();
    // The header with every record's changes made, over the base's file lines with every
    // record's put in.
    let Some(mut journaled) = Meta::parse_header(journal.header) else { return Ok(Some(meta)) };
    let Some(mut unparsed) = journaled.unparsed.take() else { return Ok(Some(meta)) };
    let Some(base_lines) = meta.unparsed.take() else { return Ok(Some(meta)) };
    unparsed.base = Some((Box::new(base_lines), Arc::new(journal.patches)));
    journaled.unparsed = Some(unparsed);
    journaled.journal_at = Some(at);
    journaled.journal_header = Some(header);
    Ok(Some(journaled))
}

/// Writes the manifest at `path`: for the update after a change (`after_change`) that patched a
/// few file lines, as a record appended to its journal ([`manifest_journal`]); otherwise (or
/// when the journal is due to be folded in) whole, the journal removed first. Waits for the
/// disk only with `sync`.
fn write_manifest(
    path: &Path,
    meta: &mut Meta,
    sync: bool,
    after_change: bool,
) -> crate::Result<()> {
    let journal = manifest_journal::path_beside(path);
    let record = if after_change { meta.journal_record() } else { None };
    if let (Some(at), Some(old), Some((header, patches))) =
        (meta.journal_at, meta.journal_header.as_deref(), record)
    {
        let record = manifest_journal::record(old, &header, &patches);
        let start = if at.valid == 0 { manifest_journal::header_len(at.base) } else { at.valid };
        let size = start + record.len() as u64;
        if !manifest_journal::is_due(size, at.base.0) {
            manifest_journal::append(&journal, at, &record, sync)?;
            meta.journal_at = Some(manifest_journal::JournalAt { base: at.base, valid: size });
            meta.journal_header = Some(header);
            cogmem_store::timing::mark("manifest: journal record appended");
            return Ok(());
        }
    }
    // The journal goes first: a crash in between leaves the old manifest alone, which the next
    // refresh finds behind the files (it reads them again), never a journal over a new base.
    fsx::remove_file(&journal)?;
    let text = meta.to_text();
    fsx::write_derived(path, text.as_bytes(), sync)?;
    meta.journal_at = stamp_of(path).map(|base| manifest_journal::JournalAt { base, valid: 0 });
    let body =
        Meta::parse_header(text).and_then(|m| m.unparsed.map(|u| u.read[..u.body].to_owned()));
    meta.journal_header = body;
    Ok(())
}

/// Reads `manifest.tsv` itself (no journal), with the size and mtime of the file read.
fn read_base(path: &Path, limit: u64) -> crate::Result<Option<(Meta, (u64, u128))>> {
    fsx::check_inside(path, "read")?;
    let read_err = |e| IoError::new(path, "read", e);
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e).into()),
    };
    let md = file.metadata().map_err(read_err)?;
    let (len, stamp) = (md.len(), (md.len(), fsx::mtime_nanos(&md)));
    if len > limit {
        // The error any file over the limit gets, naming it.
        fsx::read_if_exists(path, limit)?;
    }
    // A large manifest: its first lines, up to the last whole line read, four times more
    // while the header goes on (a line per decay shard: 150 KB with 4,096 shards at a million
    // memories, where the whole file is 10 MB).
    let mut want = MANIFEST_HEAD as u64;
    let mut head: Vec<u8> = Vec::new();
    while len > want {
        let from = head.len();
        head.resize(usize::try_from(want).unwrap_or(usize::MAX), 0);
        std::io::Read::read_exact(&mut file, &mut head[from..]).map_err(read_err)?;
        let end = head.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let Ok(text) = String::from_utf8(head[..end].to_vec()) else { return Ok(None) };
        let Some(mut meta) = Meta::parse_header(text) else { return Ok(None) };
        // The header ended in what was read: the rest is read from its end when needed.
        if let Some(unparsed) = meta.unparsed.as_mut()
            && unparsed.body < unparsed.read.len()
        {
            unparsed.rest = Some(std::sync::Arc::new(file));
            return Ok(Some((meta, stamp)));
        }
        want = want.saturating_mul(4);
    }
    std::io::Seek::rewind(&mut file).map_err(read_err)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(read_err)?;
    Ok(String::from_utf8(bytes).ok().and_then(Meta::parse_header).map(|m| (m, stamp)))
}

/// Each file the index holds and its content hash, from the manifest, sorted by path (for the
/// vectors of [`crate::embed`]). No manifest, no files.
pub(crate) fn file_hashes(index: &Index) -> crate::Result<Vec<(String, String)>> {
    let Some(mut meta) = read_meta(&index.dir.join(META_FILE), u64::MAX)? else {
        return Ok(Vec::new());
    };
    if !meta.parse_files() {
        return Ok(Vec::new());
    }
    let mut files: Vec<(String, String)> =
        meta.files.into_iter().map(|(p, s)| (p, s.hash)).collect();
    files.sort();
    Ok(files)
}

/// `f` of each item, in order (one result an item, so results line up with their items): on
/// this thread and two more when there are many (stat calls of folder entries, which wait on
/// the kernel more than they compute; the machine has two cores, the third thread covers for a
/// new thread that starts late). The results are slots sized up front from the items.
pub(crate) fn on_two_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    on_two_threads_from(items, 2_000, f)
}

/// [`on_two_threads`], from `min` items (fewer: on this thread alone).
pub(crate) fn on_two_threads_from<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    on_threads(items, min, f, None)
}

/// [`on_two_threads`] while `meanwhile` runs on this thread: the items on two threads of their
/// own (one when fewer than 2,000), so that this thread's work waits for none of them (a read
/// answered while the files are stat-ed, [`ahead`]).
pub(crate) fn on_threads_while<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    meanwhile: &mut dyn FnMut(),
) -> Vec<R> {
    on_threads(items, 2_000, f, Some(meanwhile))
}

/// `f` of each item in order, from `min` items on two threads of their own and this one (with
/// `meanwhile`, this one once it has run; fewer than `min` items: this thread alone, or one of
/// its own while `meanwhile` runs). The items are taken a chunk at a time by whichever thread
/// is free: a thread the system starts late (on this two-core machine a new thread often began
/// 1–4 ms after it was spawned, and a fixed half then finished that much later) takes fewer,
/// and of two new threads one is usually running soon (a status at 100,000 memories: 17.5 →
/// 16.4 ms with two instead of one, p90 20.6 → 17.2 ms).
fn on_threads<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&T) -> R + Sync,
    meanwhile: Option<&mut dyn FnMut()>,
) -> Vec<R> {
    /// Items a thread takes at a time: about a tenth of a millisecond of stats.
    const CHUNK: usize = 64;
    let many = items.len() >= min.max(2);
    if !many && meanwhile.is_none() {
        return items.iter().map(&f).collect();
    }
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    {
        let chunks = std::sync::Mutex::new(items.chunks(CHUNK).zip(slots.chunks_mut(CHUNK)));
        let work = || {
            // A lock poisoned by a panic elsewhere stops this thread; what is left is done below.
            while let Some((part, out)) = chunks.lock().ok().and_then(|mut c| c.next()) {
                for (item, slot) in part.iter().zip(out) {
                    *slot = Some(f(item));
                }
            }
        };
        let helpers = if many { 2 } else { 1 };
        std::thread::scope(|s| {
            // A thread the system refuses (a process at its limit) is no error: this one does
            // its items. Nor are items lost to a panic there: they are done again below, where
            // the same panic, if it comes again, is the caller's.
            let started: Vec<_> = (0..helpers)
                .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
                .collect();
            if let Some(meanwhile) = meanwhile {
                meanwhile();
            }
            work();
            for thread in started {
                let _ = thread.join();
            }
        });
    }
    slots.into_iter().zip(items).map(|(done, item)| done.unwrap_or_else(|| f(item))).collect()
}

/// The index's decay caches (what search scores by), when every one of them is current: each
/// decay file has the size and mtime the manifest recorded when its cache was written, and no
/// cache is left of a file that is gone. Reading them costs a few lines, or a few MB of text
/// for every entity, where the decay files are tens of MB of JSON (a session's pack ranks
/// every entity; issue 20). Takes no lock: the caches and the manifest are replaced whole by
/// their writers.
pub struct CachedDecay {
    dir: PathBuf,
    /// The decay files present (`None`: the main file), with the stamps their caches were
    /// written from.
    homes: Vec<(Option<cogmem_store::store::decay_file::Shard>, (u64, u128))>,
}

impl CachedDecay {
    /// The caches, if every one is current; `None` sends the caller to the decay files.
    pub fn open(ws: &Workspace) -> Option<Self> {
        let dir = ws.abs(layout::INDEX_DIR);
        let meta = read_meta(&dir.join(META_FILE), ws.file_limit()).ok()??;
        if meta.schema_version != SCHEMA_VERSION {
            return None;
        }
        // The decay files, stat-ed in their open folder (1,024 shards at 100,000 memories).
        let all = every_decay_stamp(ws);
        let listed: std::collections::BTreeSet<_> = all.iter().map(|(home, _)| *home).collect();
        if meta.decay.keys().any(|h| !listed.contains(h)) {
            return None;
        }
        let mut homes = Vec::new();
        for (home, stamp) in all {
            match stamp {
                // No decay file, no entries (its cache is empty or gone).
                None if !meta.decay.contains_key(&home) => {}
                Some(stamp) if meta.decay.get(&home) == Some(&stamp) => homes.push((home, stamp)),
                _ => return None,
            }
        }
        Some(Self { dir: dir.join(decay_cache::DIR), homes })
    }

    /// The newest use among the entries not forgotten (what "scratch that" points at): its
    /// time (unix seconds) and the ids used then, sorted; `Some(None)` when there is none.
    /// From the index's summary of the caches (a line per cache file) when it vouches for every
    /// cache, else from every cache's entries (100 ms at 100,000 memories); `None` when a cache
    /// cannot be read.
    pub fn newest(&self) -> Option<Option<(i64, Vec<String>)>> {
        if let Some(newest) = self.newest_from_summary() {
            cogmem_store::timing::mark("forget: the newest use from the index's summary");
            return Some(newest.0);
        }
        let mut newest = decay_cache::Newest::default();
        for (home, _) in &self.homes {
            newest.merge(&decay_cache::newest_in(&self.dir.join(decay_cache::file_name(*home)))?);
        }
        cogmem_store::timing::mark("forget: the newest use from the decay caches");
        Some(newest.0)
    }

    /// The newest use from the summary; `None` unless it has a line for every cache with the
    /// manifest's stamp of its decay file.
    fn newest_from_summary(&self) -> Option<decay_cache::Newest> {
        let lines = decay_cache::read_newest(&self.dir.parent()?.join(decay_cache::NEWEST_FILE));
        let mut newest = decay_cache::Newest::default();
        for (home, stamp) in &self.homes {
            let (written, found) = lines.get(&decay_cache::file_name(*home))?;
            if written != stamp {
                return None;
            }
            newest.merge(found);
        }
        Some(newest)
    }

    /// The workspace's interaction count and the inputs of every entry whose key starts with
    /// `prefix`; `None` when a cache cannot be read.
    pub fn with_prefix(
        &self,
        prefix: &str,
    ) -> Option<(u64, Vec<(String, cogmem_store::decay::DecayInputs)>)> {
        let mut interactions = 0;
        let mut entries = Vec::new();
        for (home, _) in &self.homes {
            let (n, found) = decay_cache::entries_with_prefix(
                &self.dir.join(decay_cache::file_name(*home)),
                prefix,
            )?;
            if home.is_none() {
                interactions = n;
            }
            entries.extend(found);
        }
        Some((interactions, entries))
    }

    /// The workspace's interaction count and the inputs of those of `keys` that have an entry.
    pub fn lookup(
        &self,
        keys: &[&str],
    ) -> (u64, HashMap<String, cogmem_store::decay::DecayInputs>) {
        let cache = decay_cache::DecayCache::load(&self.dir);
        let found = keys.iter().filter_map(|k| Some(((*k).to_owned(), cache.get(k)?))).collect();
        (cache.interactions(), found)
    }
}

/// What a refresh did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RefreshReport {
    /// Whether the index was built from scratch.
    pub rebuilt: bool,
    /// Why it was rebuilt, if it was.
    pub reason: Option<String>,
    /// Files re-read.
    pub changed: Vec<String>,
    /// Files gone since the last refresh.
    pub removed: Vec<String>,
    /// Files that could not be read (left out).
    pub skipped: Vec<Unreadable>,
    /// Documents in the index now.
    pub documents: u64,
    /// Whether files that changed were left for the next refresh because a background merge
    /// held tantivy's writer: the index answers from their old text until then.
    pub behind: bool,
}

/// An open, fresh index.
pub struct Index {
    reader: IndexReader,
    fields: Fields,
    dir: PathBuf,
}

impl Index {
    /// The fields of documents.
    pub(crate) fn fields(&self) -> &Fields {
        &self.fields
    }

    /// A searcher over the current documents.
    pub(crate) fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }

    /// The index folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Opens the index, bringing it up to date with the files first.
///
/// `progress` is called with (done, total) while files are read.
pub fn open(
    ws: &Workspace,
    full: bool,
    progress: Option<&dyn Fn(usize, usize)>,
) -> crate::Result<(Index, RefreshReport)> {
    open_with(ws, full, progress, &mut ahead::Ahead::default())
}

/// [`open`] for one read of the index: `read` runs on the index as it stands while every file
/// is stat-ed, and its answer is kept when the refresh changed nothing it reads; else it runs
/// on the refreshed index (`index/ahead.rs`). The same answer as [`open`] and then `read`, sooner
/// when there is no watcher to say what changed.
pub fn open_and_read<R: 'static>(
    ws: &Workspace,
    read: impl Fn(&Index) -> R,
) -> crate::Result<(Index, RefreshReport, R)> {
    let mut ahead = ahead::Ahead::new(Box::new(|index: &Index| {
        Box::new(read(index)) as Box<dyn std::any::Any>
    }));
    let (index, report) = open_with(ws, false, None, &mut ahead)?;
    let answer = match ahead.take_answer::<R>() {
        Some(answer) => answer,
        None => read(&index),
    };
    Ok((index, report, answer))
}

/// [`open`] with a read to answer ahead of the scan; the read is over when this returns.
fn open_with(
    ws: &Workspace,
    full: bool,
    progress: Option<&dyn Fn(usize, usize)>,
    ahead: &mut ahead::Ahead<'_>,
) -> crate::Result<(Index, RefreshReport)> {
    cogmem_store::timing::mark("index open");
    let _lock = lock(ws)?;
    let refreshed = match refresh_locked(ws, full, progress, None, ahead) {
        // A process killed inside tantivy's commit can leave files tantivy then refuses to
        // write over. The index is derived: rebuild it from the files rather than fail.
        Err(crate::Error::Index(IndexError::Tantivy { .. })) if !full => {
            ahead.drop_answer();
            let dir = ws.abs(layout::INDEX_DIR);
            let _no_merge = merge::wait_idle(ws)?;
            std::fs::remove_dir_all(&dir).map_err(|e| IoError::new(&dir, "remove", e))?;
            let (index, mut report) = refresh_locked(ws, true, progress, None, ahead)?;
            report.reason = Some("the index could not be updated in place".to_owned());
            Ok((index, report))
        }
        other => other,
    };
    if refreshed.is_err() {
        ahead.drop_answer();
    }
    refreshed
}

/// [`open`] for a reader that narrows its own reading of the files down with the index: the
/// index up to date with the files, or `None` when it cannot be opened or a background merge
/// keeps changed files out of it ([`RefreshReport::behind`]): the caller reads the files then.
pub fn open_current(ws: &Workspace) -> Option<Index> {
    match open(ws, false, None) {
        Ok((index, report)) if !report.behind => Some(index),
        _ => None,
    }
}

/// Brings the index up to date after a change, ignoring failures (the next read retries).
pub fn update_after_change(ws: &Workspace) {
    let _ = open(ws, false, None);
}

/// Brings the index up to date with the files a change just committed (`paths`, relative to
/// the root), ignoring failures. Only those files are looked at: a hand edit elsewhere keeps
/// its old stamp in the manifest, so the next read still finds it.
pub fn update_after_commit(ws: &Workspace, paths: &[String]) {
    cogmem_store::timing::mark("index open");
    let Ok(lock) = lock(ws) else { return };
    refresh_after_commit(lock, Some(paths));
}

/// [`update_after_commit`] for a change that still holds the workspace lock (`held`): takes the
/// index lock first and only then releases the workspace lock, so that whoever takes the
/// workspace lock next (`verify` on its read side) finds the index up to date or being
/// brought up to date, never left behind by a change that is over. When another process
/// holds the index lock (the previous change's update, a search), the files are queued for it
/// (`.cogmem/index-queue`) instead of waiting: it indexes them before it lets the lock go.
///
/// With [`on_index_update`](cogmem_store::workspace::WorkspaceOptions::on_index_update) set
/// (the binary's one-shot commands), the index lock goes to the process the hook starts, and
/// this returns at once.
pub fn update_after_commit_releasing(ws: &Workspace, held: LockGuard, paths: &[String]) {
    cogmem_store::timing::mark("index open");
    let taken = queue::take_or_queue(ws, paths);
    drop(held);
    let mut lock = match taken {
        Ok(queue::Taken::Lock(file)) => file,
        Ok(queue::Taken::Queued) => {
            cogmem_store::timing::mark("index: update queued");
            return;
        }
        // The queue could not be used: wait for the lock as before.
        Err(_) => match lock_at(ws, LOCK_FILE) {
            Ok(file) => file,
            Err(_) => return,
        },
    };
    if let Some(hook) = &ws.options().on_index_update {
        match hook(ws.root(), lock, paths) {
            Ok(()) => {
                cogmem_store::timing::mark("index: update handed over");
                return;
            }
            Err(back) => lock = back,
        }
    }
    refresh_after_commit(IndexLock::held(ws, lock), Some(paths));
}

/// The other side of [`update_after_commit_releasing`]'s hand-over: `inherited` is the index
/// lock file as the process that started this one held it (its standard input); when it is
/// that file, the lock is this process's until it ends, and the index is brought up to date
/// with `paths` (every file when `paths` is empty), as the command that committed them would
/// have. Any other file is ignored and the lock taken as usual. Failures are ignored: the next
/// read retries.
pub fn update_handed_over(ws: &Workspace, inherited: Option<File>, paths: &[String]) {
    let path = ws.abs(LOCK_FILE);
    let same = |f: &File| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            match (f.metadata(), std::fs::metadata(&path)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = f;
            false
        }
    };
    // Locking a file whose open description already holds the lock succeeds at once.
    let held =
        inherited.filter(|f| same(f) && f.try_lock().is_ok()).map(|f| IndexLock::held(ws, f));
    let Some(lock) = held.or_else(|| lock(ws).ok()) else { return };
    refresh_after_commit(lock, (!paths.is_empty()).then_some(paths));
}

fn refresh_after_commit(lock: IndexLock<'_>, paths: Option<&[String]>) {
    let ws = lock.ws;
    if refresh_locked(ws, false, None, paths, &mut ahead::Ahead::default()).is_err() {
        drop(lock);
        update_after_change(ws);
    }
}

/// Whether a path (relative to the root) is one the index reads: MEMORY.md or a `*.md` file
/// directly in a store folder.
pub fn is_memory_file(rel: &str) -> bool {
    if rel == layout::MEMORY_MD {
        return true;
    }
    let Some((dir, name)) = rel.rsplit_once('/') else { return false };
    units::DIRS.iter().any(|(d, _, _)| *d == dir)
        && name.ends_with(".md")
        && !name.contains(['\t', '\n', '\r'])
}

/// The memory files and links the last refresh could not read, looked at again by a refresh
/// the watcher serves (it lists only what changed): a link is named again, any other memory
/// file is added to `paths`, to be read again.
fn recheck_skipped(
    root: &Path,
    skipped: &std::collections::BTreeSet<String>,
    paths: &mut Vec<String>,
    report: &mut RefreshReport,
) {
    for p in skipped {
        let abs = root.join(p);
        let link = std::fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink());
        if link || fsx::check_inside(&abs, "read").is_err() {
            report.skipped.push(units::skipped_link(p));
        } else if is_memory_file(p) && !paths.contains(p) {
            paths.push(p.clone());
        }
    }
}

/// Size and mtime of the given paths that are memory files and exist as plain files (in a
/// store folder that is not a link out of the workspace, as in [`scan`]).
fn scan_paths<'p>(root: &Path, paths: &'p [String]) -> Vec<scan::Found<'p>> {
    paths
        .iter()
        .filter(|p| is_memory_file(p))
        .filter(|p| {
            p.rsplit_once('/')
                .is_none_or(|(dir, _)| fsx::check_inside(&root.join(dir), "read").is_ok())
        })
        .filter_map(|p| {
            let md = std::fs::symlink_metadata(root.join(p)).ok()?;
            md.is_file().then(|| (p.as_str().into(), md.len(), fsx::mtime_nanos(&md)))
        })
        .collect()
}

/// What of an entity file the graph cache depends on (names, status, relations without their
/// line numbers), as a short hash: a fact added to an entity leaves it unchanged, so the cache
/// is not rebuilt for it.
fn graph_digest(rel: &str, text: &str) -> String {
    let stem = cogmem_store::store::units::md_stem(rel);
    let mut key = String::new();
    if let Ok(id) = cogmem_store::store::entity::EntityId::parse(stem) {
        key.push_str(&format!("{:?}\n", cogmem_store::store::entity::names(&id, text)));
    }
    key.push_str(&cogmem_store::store::entity::status(text));
    for r in cogmem_store::store::entity::relations(text) {
        key.push_str(&format!(
            "\n{} {} {} {:?} {:?}",
            r.relation, r.target, r.confidence, r.since, r.until
        ));
    }
    cogmem_store::store::core_memory::hash8(&key)
}

/// Takes the index lock, waiting up to `lock.timeout_ms`. A caller that has to wait says so
/// while it waits ([`queue::Wanted`]): holders then let the lock go without serving the queue
/// further, and changes queue their files rather than take it, so a search is not kept
/// waiting by a stream of writes.
fn lock(ws: &Workspace) -> crate::Result<IndexLock<'_>> {
    let file = fsx::open_lock_file(&ws.abs(LOCK_FILE))?;
    if file.try_lock().is_ok() {
        return Ok(IndexLock::held(ws, file));
    }
    // Taken (or an error, which the wait reports): wait, saying so.
    let _wanted = queue::Wanted::say(ws);
    lock_at(ws, LOCK_FILE).map(|file| IndexLock::held(ws, file))
}

/// The index lock, held. Letting it go serves the queue first: the files changes queued while
/// it was held are indexed, round after round, until a round finds the queue empty
/// ([`queue::release`]) or someone waits for the lock ([`queue::Wanted`]), who is then let in
/// with the files still queued.
pub(crate) struct IndexLock<'a> {
    ws: &'a Workspace,
    file: Option<File>,
}

impl<'a> IndexLock<'a> {
    fn held(ws: &'a Workspace, file: File) -> Self {
        Self { ws, file: Some(file) }
    }
}

/// While writes keep coming, every round of a holder's serving finds new files queued: the
/// holder kept the lock as long as they came, and a search waiting for it (each search takes
/// it) gave up after `lock.timeout_ms` (`scripts/stress 8 50`: longest operation 10–13.5 s,
/// 1–2 searches refused). So a holder serves only while nobody waits for the lock
/// ([`queue::Wanted`]); the files it leaves queued are the waiter's to index — every holder
/// serves the queue when it lets go — and a search finds them by their stamps anyway.
impl Drop for IndexLock<'_> {
    fn drop(&mut self) {
        let Some(mut file) = self.file.take() else { return };
        let serve = || !queue::Wanted::by_someone(self.ws);
        while let Some((held, paths)) = queue::release(self.ws, file, serve) {
            // Failures are the next read's to retry, as after a change.
            let _ =
                refresh_locked(self.ws, false, None, Some(&paths), &mut ahead::Ahead::default());
            file = held;
        }
    }
}

/// Takes the OS lock on a lock file of `.cogmem/` (`rel`), waiting up to `lock.timeout_ms`
/// ([`IndexError::Busy`] after that).
fn lock_at(ws: &Workspace, rel: &str) -> crate::Result<File> {
    let path = ws.abs(rel);
    let file = fsx::open_lock_file(&path)?;
    let timeout = Duration::from_millis(ws.settings().lock.timeout_ms);
    match wait_for_lock(&file, LockSide::Write, timeout) {
        Ok(true) => Ok(file),
        Ok(false) => Err(IndexError::Busy { path }.into()),
        Err(e) => Err(IoError::new(&path, "lock", e).into()),
    }
}

fn register(index: &TantivyIndex) {
    index.tokenizers().register(analyzer::NAME, analyzer::analyzer());
}

/// Brings the summary of the decay caches' newest uses at `path` up to date with the caches in
/// `cache_dir` whose decay files have the stamps `decay`: the lines of the caches just written
/// (`written`, whose stamps `decay` holds), the lines kept for the others when their stamps
/// still hold, and for any other cache (an index written before the summary existed) its line
/// read from the cache itself.
fn update_newest(
    path: &Path,
    cache_dir: &Path,
    decay: &std::collections::BTreeMap<Option<cogmem_store::store::decay_file::Shard>, (u64, u128)>,
    written: Vec<(String, (u64, u128), decay_cache::Newest)>,
    sync: bool,
) -> crate::Result<()> {
    let kept = decay_cache::read_newest(path);
    let mut lines: decay_cache::NewestLines =
        written.into_iter().map(|(name, stamp, newest)| (name, (stamp, newest))).collect();
    for (home, stamp) in decay {
        let name = decay_cache::file_name(*home);
        if lines.contains_key(&name) {
            continue;
        }
        let line = match kept.get(&name) {
            Some(line) if line.0 == *stamp => line.clone(),
            _ => match decay_cache::newest_in(&cache_dir.join(&name)) {
                Some(newest) => (*stamp, newest),
                None => continue,
            },
        };
        lines.insert(name, line);
    }
    if lines != kept {
        decay_cache::write_newest(path, &lines, sync)?;
    }
    Ok(())
}

/// The stamp of the decay file `home` (`None`: the main file).
fn decay_stamp(
    ws: &Workspace,
    home: Option<cogmem_store::store::decay_file::Shard>,
) -> scan::DecayStamp {
    (home, stamp_of(&ws.abs(&cogmem_store::store::decay_file::file_path(home))))
}

/// The stamp of every decay file: the main file, then the shards in order.
fn every_decay_stamp(ws: &Workspace) -> Vec<scan::DecayStamp> {
    std::iter::once(decay_stamp(ws, None)).chain(scan::shard_stamps(ws.root())).collect()
}

/// Size and modification time (nanoseconds) of a file, `None` when it cannot be stat-ed.
pub(crate) fn stamp_of(path: &Path) -> Option<(u64, u128)> {
    std::fs::metadata(path).ok().map(|md| (md.len(), fsx::mtime_nanos(&md)))
}

/// `ahead`: a read to answer on the index as it stands while every file is stat-ed
/// ([`ahead`]); its answer is kept when nothing it reads changed.
fn refresh_locked(
    ws: &Workspace,
    full: bool,
    progress: Option<&dyn Fn(usize, usize)>,
    only: Option<&[String]>,
    ahead: &mut ahead::Ahead<'_>,
) -> crate::Result<(Index, RefreshReport)> {
    let dir = ws.abs(layout::INDEX_DIR);
    let meta_path = dir.join(META_FILE);
    // tantivy writes the index folder's files itself: the folder (or `.cogmem/`) must not be a
    // link, wherever it leads (issue 16).
    fsx::check_no_link(&meta_path, "write")?;
    let mut report = RefreshReport::default();
    // A refresh after this process's own change, from the manifest this process's scan of every
    // file left: the manifest it writes stands for that scan too (a hook that hears "remember
    // that …" then searches for the prompt scans once, not again after the write).
    let own_change_after_scan =
        only.is_some() && ws.options().one_scan && one_scan::holds(&meta_path);
    let meta = read_meta(&meta_path, ws.file_limit())?;
    let boot = dir::boot_id();
    let reason = if full {
        Some("a full rebuild was asked for".to_owned())
    } else {
        match &meta {
            None => Some("no index yet".to_owned()),
            Some(m) if m.schema_version != SCHEMA_VERSION => {
                Some(format!("schema {} → {SCHEMA_VERSION}", m.schema_version))
            }
            Some(m) if m.analyzer != analyzer::NAME => {
                Some(format!("analyzer {} → {}", m.analyzer, analyzer::NAME))
            }
            // Written without waiting for the disk before the system restarted: what the
            // crash or power loss kept of it cannot be trusted.
            Some(m) if m.boot.is_some() && m.boot != boot => {
                Some("the system restarted since the index was last written".to_owned())
            }
            Some(_) => None,
        }
    };
    let (schema, fields) = schema();
    let opened = match reason {
        Some(_) => None,
        None => index_dir(&dir, boot.is_some())
            .and_then(|d| TantivyIndex::open(d).ok())
            .filter(|i| i.schema() == schema),
    };
    let (inner, mut meta) = match (opened, meta) {
        (Some(i), Some(m)) => (i, m),
        // A reader held to a few files (a hook's) builds no index, nor throws one away (a
        // hook never asks for a full rebuild: one here is a fallback of this function's).
        _ if ws.options().refresh_limit.is_some() => {
            return Err(IndexError::Behind { path: dir, files: None }.into());
        }
        _ => {
            report.rebuilt = true;
            report.reason =
                Some(reason.unwrap_or_else(|| "the index could not be opened".to_owned()));
            if dir.exists() {
                // A background merge writes into the folder: it must be over first.
                let _no_merge = merge::wait_idle(ws)?;
                std::fs::remove_dir_all(&dir).map_err(|e| IoError::new(&dir, "remove", e))?;
            }
            fsx::create_dir_all(&dir)?;
            let d = index_dir(&dir, boot.is_some()).ok_or_else(|| IndexError::Tantivy {
                path: dir.clone(),
                message: "cannot open the folder".to_owned(),
            })?;
            let i = TantivyIndex::create(d, schema.clone(), index_settings())
                .map_err(tantivy_err(&dir))?;
            (
                i,
                Meta {
                    schema_version: SCHEMA_VERSION,
                    analyzer: analyzer::NAME.to_owned(),
                    ..Meta::default()
                },
            )
        }
    };
    register(&inner);
    cogmem_store::timing::mark("index opened, manifest read");
    // This operation scanned every file already, and the manifest is as it left it
    // (`WorkspaceOptions::one_scan`): that scan stands for this read too.
    if only.is_none() && !report.rebuilt && ws.options().one_scan && one_scan::holds(&meta_path) {
        cogmem_store::timing::mark("files stat-ed (this operation's scan: 0)");
        return ready(&inner, fields, dir, report);
    }
    // Which files changed since the manifest?
    let root = ws.root();
    // After a change only its own files are looked at (not on a rebuild: that reads all).
    let only = only.filter(|_| !report.rebuilt);
    // A running `cogmem watch` may say which files changed since the manifest, so the others
    // need no stat ([`freshness`]). What to record of it in the manifest, and whether the
    // record must be written even when no file changed (it moved past a `*`).
    let mut watch_record: Option<(String, u64)> = None;
    let mut watch_must_move = false;
    let mut listed: Option<Vec<String>> = None;
    // Whether the watcher's `~` lines may stand for decay files: it saw files change that are
    // not memory files, and it is of a version that did not name decay files.
    let mut decay_unnamed = true;
    if only.is_none()
        && let Some(generation) = freshness::live_generation(ws, boot.as_deref())
    {
        let since = match &meta.watch {
            Some((g, offset)) if *g == generation => {
                freshness::changes_since(ws, &generation, *offset)
            }
            _ => freshness::Since::Doubt,
        };
        cogmem_store::timing::mark("watcher asked");
        match since {
            // Other files of the working tree are `status`'s business.
            freshness::Since::Paths { mut paths, others, end } if !meta.skipped_overflow => {
                decay_unnamed = others && !freshness::names_decay_files(&generation);
                watch_record = Some((generation, end));
                recheck_skipped(root, &meta.skipped, &mut paths, &mut report);
                listed = Some(paths);
            }
            // Too many unreadable files to name: every file is scanned.
            freshness::Since::Paths { end, .. } => watch_record = Some((generation, end)),
            freshness::Since::Everything { end } => {
                watch_record = Some((generation, end));
                watch_must_move = true;
            }
            // Scan every file; what the watcher lists from here on is checked next time.
            freshness::Since::Doubt => {
                watch_record = freshness::changed_len(ws).map(|len| (generation, len));
            }
        }
    }
    let how = match (only, &listed) {
        (Some(_), _) => "after a change",
        (None, Some(_)) => "watcher",
        (None, None) => "full scan",
    };
    // The decay files whose caches may be stale: after a change, those it wrote; with a
    // watcher, those it names; else (or when its `~` may stand for one) every one (stat-ed
    // below: 1,025 of them at 100,000 memories, 2 ms of a search).
    // A decay file the last refresh could not read is looked at again whatever changed.
    let homes_in = |paths: &[String]| -> Vec<Option<cogmem_store::store::decay_file::Shard>> {
        let skipped = meta.skipped.iter();
        paths
            .iter()
            .chain(skipped)
            .filter_map(|p| cogmem_store::store::decay_file::home_of(p))
            .collect()
    };
    let decay_scope = match (only, &listed) {
        (Some(paths), _) => Some(homes_in(paths)),
        (None, Some(paths)) if !decay_unnamed => Some(homes_in(paths)),
        _ => None,
    };
    let only = only.or(listed.as_deref());
    // The store folders the scan stamped, if it scanned ([`scan`]).
    let mut scanned_dirs: Option<Vec<(String, scan::DirStamp)>> = None;
    let mut listed_dirs = None;
    // Every decay file's stamp, when taken while the memory files were stat-ed.
    let mut every_decay: Option<Vec<scan::DecayStamp>> = None;
    // The manifest's file lines, which the scan's paths are borrowed from.
    let lines = if only.is_none() { meta.lines() } else { None };
    let files = match only {
        Some(paths) => scan_paths(root, paths),
        None => {
            // The read to answer runs here, on the index as it stands, while the files are
            // stat-ed ([`ahead`]).
            let mut before = (ahead.waiting() && !report.rebuilt)
                .then(|| ready(&inner, fields, dir.clone(), RefreshReport::default()).ok())
                .flatten()
                .map(|(index, _)| index);
            // And every decay file is stat-ed here, if all are to be (2 ms at 100,000
            // memories, which waited for the memory files' stats).
            let reading = before.is_some();
            let mut meanwhile = || {
                if let Some(index) = before.take() {
                    ahead.run(index);
                }
                if decay_scope.is_none() {
                    every_decay = Some(every_decay_stamp(ws));
                }
            };
            let found = scan::scan(
                root,
                &meta.known_dirs(),
                |dirs| meta.paths_in(lines.as_ref(), dirs),
                || crate::summary::tick(ws),
                (reading || decay_scope.is_none()).then_some(&mut meanwhile as &mut dyn FnMut()),
            );
            report.skipped.extend(found.links.iter().map(|rel| units::skipped_link(rel)));
            listed_dirs = Some(found.listed);
            scanned_dirs = Some(found.dirs);
            found.files
        }
    };
    // Every file with the stamps of the `#stamps` line: nothing to look up (issue 20). Else the
    // file lines are parsed, or, for a few listed paths, searched in place.
    let same = only.is_none() && !report.rebuilt && meta.is_same(&files);
    // A full scan that found a few files changed compares the stamps with the file lines as
    // text, and only those files' lines are parsed and patched, as after a change (at a million
    // memories, parsing every line and writing them all again took 0.4 s).
    let diffed = if !same && only.is_none() { meta.diff(&files) } else { None };
    if !same && only.is_none() && diffed.is_none() && !meta.parse_files() {
        drop(inner);
        ahead.drop_answer();
        return refresh_locked(ws, true, progress, None, ahead);
    }
    let mut to_read: Vec<FileStamp> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    let mut patch_paths: Option<Vec<String>> = only.map(<[String]>::to_vec);
    if let Some((changed, removed)) = diffed {
        patch_paths =
            Some(changed.iter().map(|f| f.0.clone()).chain(removed.iter().cloned()).collect());
        (to_read, gone) = (changed, removed);
    } else if !same {
        for (rel, size, mtime) in &files {
            if meta.lookup(rel) != Some((*size, *mtime)) {
                to_read.push((rel.to_string(), *size, *mtime));
            }
        }
        to_read.sort();
        // A set: `Vec::contains` here made every search quadratic in the number of files.
        let present: std::collections::HashSet<&str> = files.iter().map(|f| &*f.0).collect();
        gone = match only {
            Some(paths) => paths
                .iter()
                .filter(|p| meta.lookup(p).is_some() && !present.contains(p.as_str()))
                .cloned()
                .collect(),
            None => meta.files.keys().filter(|k| !present.contains(k.as_str())).cloned().collect(),
        };
    }
    if let Some(limit) = ws.options().refresh_limit
        && only.is_none()
        && to_read.len() > limit
    {
        drop(inner);
        return Err(IndexError::Behind { path: dir, files: Some(to_read.len()) }.into());
    }
    // Files are about to be re-read or dropped: after a change or a scan that found few, only
    // their lines are parsed and patched (issue 20); otherwise the manifest is rewritten whole.
    if (!to_read.is_empty() || !gone.is_empty())
        && !patch_paths.as_deref().is_some_and(|paths| meta.parse_only(paths))
        && !meta.parse_files()
    {
        drop(inner);
        ahead.drop_answer();
        return refresh_locked(ws, true, progress, None, ahead);
    }

    let listed_dirs = listed_dirs.map(|n| format!(", {n} folders listed")).unwrap_or_default();
    cogmem_store::timing::mark(&format!("files stat-ed ({how}: {}{listed_dirs})", files.len()));
    let budget = if report.rebuilt || to_read.len() > 64 { 50_000_000 } else { 15_000_000 };
    // Unsynced writes are about to happen: the manifest says in which boot first, so that a
    // crash of the system in the middle cannot leave an index that looks trustworthy.
    if (!to_read.is_empty() || !gone.is_empty()) && boot.is_some() && meta.boot != boot {
        meta.boot.clone_from(&boot);
        write_manifest(&meta_path, &mut meta, true, only.is_some())?;
    }
    let mut writer: Option<IndexWriter<TantivyDocument>> = None;
    // Set when a background merge holds tantivy's writer: the files this refresh would index
    // keep their old stamps in the manifest, so the next refresh indexes them ([`merge`]).
    let mut busy = false;
    let rebuilt = report.rebuilt;
    let mut graph_changed = report.rebuilt;
    // The entity files whose facts the graph is rebuilt from changed (`None`: gone or no longer
    // readable), as the manifest now records them ([`crate::graph::facts`]).
    let mut entity_facts: Vec<(String, Option<crate::graph::EntityFacts>)> = Vec::new();
    for rel in &gone {
        let Some(w) = ensure_writer(&mut writer, &mut busy, &inner, &dir, budget, rebuilt)? else {
            break;
        };
        if rel.starts_with(layout::ENTITIES_DIR) {
            graph_changed = true;
            entity_facts.push((rel.clone(), None));
        }
        w.delete_term(Term::from_field_text(fields.path, rel));
        meta.files.remove(rel);
        report.removed.push(rel.clone());
    }
    let total = to_read.len();
    cogmem_store::timing::mark(&format!("index: {total} changed files to read"));
    // Whether a file line changes (a file read that is still unreadable changes none: the
    // manifest is not written again for it on every search).
    let mut lines_changed = false;
    // The files read this time that are not UTF-8, with their stamps ([`Meta::unreadable`]).
    let mut unreadable: std::collections::BTreeMap<String, (u64, u128, String)> =
        std::collections::BTreeMap::new();
    for (n, (rel, size, mtime)) in to_read.into_iter().enumerate() {
        if let Some(p) = progress {
            p(n, total);
        }
        // A file that cannot be read (over the limit, not UTF-8, gone unreadable) hides its
        // memories: its documents go, as a rebuild would leave them out, and it leaves the
        // manifest, so every refresh tries it again until it reads. One that was read and is
        // not UTF-8 is not read again while its size and mtime stay (tens of megabytes read
        // and hashed by every search otherwise); one over the limit is refused unread.
        if let Some((was_size, was_mtime, error)) = meta.unreadable.get(&rel)
            && (*was_size, *was_mtime) == (size, mtime)
            && meta.lookup(&rel).is_none()
        {
            report.skipped.push(Unreadable { path: rel.clone(), error: error.clone() });
            unreadable.insert(rel.clone(), (size, mtime, error.clone()));
            continue;
        }
        let read = fsx::read(&root.join(&rel), ws.file_limit()).map_err(|e| e.to_string());
        let hash = read.as_ref().ok().map(|bytes| {
            let hash = cogmem_store::store::core_memory::hash8_bytes(bytes);
            if !rel.starts_with(layout::ENTITIES_DIR) {
                return hash;
            }
            // Entity files carry a second hash: what the graph cache depends on.
            format!("{hash}+{}", graph_digest(&rel, &String::from_utf8_lossy(bytes)))
        });
        let before = meta.files.get(&rel).map(|s| s.hash.clone());
        if let Some(hash) = &hash
            && before.as_ref() == Some(hash)
        {
            meta.files.insert(rel.clone(), Stamp { size, mtime, hash: hash.clone() });
            lines_changed = true;
            continue; // touched, not changed
        }
        let mut undecodable = false;
        let decoded = read.and_then(|bytes| {
            let text = fsx::decode(&root.join(&rel), bytes).map_err(|e| {
                undecodable = true;
                e.to_string()
            })?;
            Ok((text, hash.unwrap_or_default()))
        });
        let (text, hash) = match decoded {
            Ok(read) => read,
            Err(e) => {
                report.skipped.push(Unreadable { path: rel.clone(), error: e.clone() });
                if meta.lookup(&rel).is_some() {
                    // While a merge holds the writer, the old stamp stays: tried again next time.
                    let Some(w) =
                        ensure_writer(&mut writer, &mut busy, &inner, &dir, budget, rebuilt)?
                    else {
                        continue;
                    };
                    w.delete_term(Term::from_field_text(fields.path, &rel));
                    if rel.starts_with(layout::ENTITIES_DIR) {
                        graph_changed = true;
                        entity_facts.push((rel.clone(), None));
                    }
                    meta.files.remove(&rel);
                    lines_changed = true;
                }
                // Its documents are gone: its stamp is kept, if a line can hold it.
                if undecodable
                    && !e.contains(['\n', '\r', '\t'])
                    && !rel.contains(['\n', '\r', '\t'])
                {
                    unreadable.insert(rel.clone(), (size, mtime, e));
                }
                continue;
            }
        };
        let Some(w) = ensure_writer(&mut writer, &mut busy, &inner, &dir, budget, rebuilt)? else {
            continue;
        };
        w.delete_term(Term::from_field_text(fields.path, &rel));
        for u in units::file_units(&rel, &text) {
            w.add_document(document(&fields, &u)).map_err(tantivy_err(&dir))?;
        }
        if rel.starts_with(layout::ENTITIES_DIR) {
            let digest = |h: &str| h.split_once('+').map(|(_, g)| g.to_owned());
            if before.as_deref().and_then(digest) != digest(&hash) {
                graph_changed = true;
                let facts = crate::graph::EntityFacts::of(&rel, &text);
                entity_facts.push((rel.clone(), facts.map(crate::graph::facts::without_lines)));
            }
        }
        meta.files.insert(rel.clone(), Stamp { size, mtime, hash });
        lines_changed = true;
        report.changed.push(rel);
    }
    if let Some(p) = progress {
        p(total, total);
    }
    cogmem_store::timing::mark("index: documents added");
    report.behind = busy;
    // What a read answered ahead looked at: the documents, the graph and decay caches.
    let mut read_changed = writer.is_some();
    if let Some(mut w) = writer {
        let prepared = w.prepare_commit().map_err(tantivy_err(&dir))?;
        cogmem_store::timing::mark("index: segment written");
        prepared.commit().map_err(tantivy_err(&dir))?;
        cogmem_store::timing::mark("index: tantivy commit");
        // No merge runs in a refresh (the writer has no merge policy), so this waits for
        // nothing but the writer's own threads; a rebuild's writer merges as tantivy likes.
        w.wait_merging_threads().map_err(tantivy_err(&dir))?;
        if !rebuilt {
            merge::request_if_due(ws, &inner);
        }
    }
    cogmem_store::timing::mark("index: documents committed");
    // The graph's statuses and edges, for spreading activation at query time, the entities'
    // names, for routing (`graph::names`), and the facts they are made from, in shards by
    // entity ([`crate::graph::shards`]): all follow the same digest.
    let shards = crate::graph::shards::Shards::open(&dir);
    // Crash trials: a shard's graph cache written, its facts and the set's `shards` file not.
    let crash = || cogmem_store::change::crash_point(ws, "index-graph-shard");
    if graph_changed || shards.is_none() {
        read_changed = true;
        // A change to a few entities: their shards' lines put in place
        // ([`crate::graph::patch`]).
        let patched = shards
            .as_ref()
            .filter(|_| !report.rebuilt && !busy)
            .and_then(|s| Some((s, crate::graph::patch::in_shards(s, &entity_facts)?)));
        match patched {
            Some((s, p)) => {
                cogmem_store::timing::mark("index: graph caches patched");
                s.write_patch(&p.shards, p.dangling.as_deref(), p.meta, &crash, boot.is_none())?;
            }
            None => {
                // From the facts the index keeps of every entity file, with this refresh's
                // changes (issue 20: every entity file was read and parsed again); read from the
                // files when there are none or the index was rebuilt.
                let kept = if report.rebuilt { None } else { crate::graph::facts::load_all(&dir) };
                let facts = match kept {
                    Some(mut facts) => {
                        for (rel, f) in entity_facts {
                            match f {
                                Some(f) => facts.insert(rel, f),
                                None => facts.remove(&rel),
                            };
                        }
                        facts
                    }
                    None => crate::graph::read_facts(ws),
                };
                let g = crate::graph::of_facts(ws, &facts)?;
                crate::graph::shards::write_all(&dir, &g, &facts, &crash, boot.is_none())?;
            }
        }
    }
    cogmem_store::timing::mark("index: graph cache");
    // Decay inputs, copied from each decay file that changed.
    let cache_dir = dir.join(decay_cache::DIR);
    let decay_before = meta.decay.clone();
    let cache_missing = !cache_dir.join(decay_cache::file_name(None)).exists();
    if report.rebuilt || cache_missing {
        meta.decay.clear();
    }
    let decay_scope = decay_scope.filter(|_| !report.rebuilt && !cache_missing);
    let stamped: Vec<scan::DecayStamp> = match &decay_scope {
        Some(homes) => homes.iter().map(|h| decay_stamp(ws, *h)).collect(),
        None => every_decay.unwrap_or_else(|| every_decay_stamp(ws)),
    };
    // The newest use of each cache written, for the summary ([`decay_cache::NEWEST_FILE`]).
    let mut newest_written: Vec<(String, (u64, u128), decay_cache::Newest)> = Vec::new();
    let mut decay_changed = false;
    for (home, stamp) in &stamped {
        let Some(stamp) = *stamp else {
            if meta.decay.remove(home).is_some() || home.is_none() && cache_missing {
                read_changed = true;
                decay_changed = true;
                decay_cache::write(ws, *home, &cache_dir, boot.is_none())?; // an empty cache
            }
            continue;
        };
        if meta.decay.get(home) != Some(&stamp) {
            read_changed = true;
            decay_changed = true;
            match decay_cache::write(ws, *home, &cache_dir, boot.is_none())? {
                (newest, None) => {
                    newest_written.push((decay_cache::file_name(*home), stamp, newest));
                    meta.decay.insert(*home, stamp);
                }
                // Not recorded as read: the next refresh reads it again, and reports it again
                // until it is mended (the decay scope takes the skipped decay files in).
                (_, Some(unreadable)) => {
                    meta.decay.remove(home);
                    report.skipped.push(unreadable);
                }
            }
        }
    }
    // Shards that are gone leave no cache behind (known when every decay file was looked at).
    let stale: Vec<Option<cogmem_store::store::decay_file::Shard>> = match decay_scope {
        Some(_) => Vec::new(),
        None => {
            let present: std::collections::BTreeSet<_> = stamped.iter().map(|(h, _)| h).collect();
            meta.decay.keys().filter(|h| !present.contains(h)).copied().collect()
        }
    };
    for home in stale {
        read_changed = true;
        decay_changed = true;
        meta.decay.remove(&home);
        let _ = fsx::remove_file(&cache_dir.join(decay_cache::file_name(home)));
    }
    let newest_path = dir.join(decay_cache::NEWEST_FILE);
    if decay_changed || !newest_path.exists() {
        update_newest(&newest_path, &cache_dir, &meta.decay, newest_written, boot.is_none())?;
    }
    cogmem_store::timing::mark(&format!(
        "caches checked ({} decay files looked at)",
        stamped.len()
    ));
    // Which store folders the next scan need not list: after a scan, those whose files are
    // the manifest's; after a few paths, the same as before but for a folder where a file was
    // left out. None while a merge kept files from the index.
    let dirs_after = match scanned_dirs {
        // Nothing changed: the files are the manifest's and every folder kept its stamp, so
        // the stamps to record are the ones recorded (a set of every path is not built).
        Some(dirs)
            if !busy
                && same
                && dirs.len() == meta.dirs.len()
                && dirs.iter().all(|(d, s)| meta.dirs.get(d) == Some(s)) =>
        {
            meta.dirs.clone()
        }
        Some(dirs) if !busy => scan::recordable(&dirs, &files, meta.paths()),
        _ if busy => std::collections::BTreeMap::new(),
        _ => {
            let mut dirs = meta.dirs.clone();
            for s in &report.skipped {
                dirs.retain(|d, _| s.path.rsplit_once('/').is_none_or(|(of, _)| of != d));
            }
            dirs
        }
    };
    let dirs_changed = dirs_after != meta.dirs;
    meta.dirs = dirs_after;
    // What could not be read: all of it after a scan; after a look at a few paths, what was
    // before but for those paths, and what they added.
    let mut skipped: std::collections::BTreeSet<String> =
        report.skipped.iter().map(|s| s.path.clone()).collect();
    let mut overflow = false;
    if let Some(paths) = only {
        let mut before = meta.skipped.clone();
        for p in paths {
            before.remove(p);
        }
        skipped.extend(before);
        overflow = meta.skipped_overflow;
    }
    if overflow || skipped.len() > SKIPPED_MAX || skipped.iter().any(|p| p.contains(['\n', '\r'])) {
        (skipped, overflow) = (std::collections::BTreeSet::new(), true);
    }
    // The stamps of what did not decode: as for the skipped paths, after a look at a few paths
    // those of before but for them; none past the bound (each is then read again).
    if let Some(paths) = only {
        let mut before = meta.unreadable.clone();
        for p in paths {
            before.remove(p);
        }
        before.extend(unreadable);
        unreadable = before;
    }
    unreadable.retain(|p, _| skipped.contains(p));
    if unreadable.len() > SKIPPED_MAX {
        unreadable.clear();
    }
    let skipped_changed = skipped != meta.skipped
        || overflow != meta.skipped_overflow
        || unreadable != meta.unreadable;
    (meta.skipped, meta.skipped_overflow, meta.unreadable) = (skipped, overflow, unreadable);
    // A read that found nothing new writes nothing.
    let decay_updated = meta.decay != decay_before;
    let files_changed = report.rebuilt
        || meta.old_count.is_some()
        || !gone.is_empty()
        || lines_changed
        || decay_updated
        || dirs_changed
        || skipped_changed;
    // The watch record moves when the manifest is written anyway, for a new watcher, past a
    // `*`, or when it lags far; otherwise it stays behind (the few lines after it, for files
    // that did not change, are looked at again next time) and a search writes nothing.
    let mut watch_moved = false;
    if let Some(record) = watch_record {
        let lag_far = match &meta.watch {
            Some((g, offset)) if *g == record.0 => record.1.saturating_sub(*offset) > WATCH_LAG,
            _ => true,
        };
        if (files_changed || watch_must_move || lag_far) && meta.watch.as_ref() != Some(&record) {
            meta.watch = Some(record);
            watch_moved = true;
        }
    }
    if files_changed || watch_moved {
        // Synced only where the boot cannot be told: otherwise a manifest naming this boot
        // was synced before the first unsynced write (above), and a crash of the system means
        // a rebuild anyway.
        let sync = boot.is_none() || meta.boot != boot;
        meta.boot.clone_from(&boot);
        // Crash trials: the documents are committed, the manifest not yet written.
        cogmem_store::change::crash_point(ws, "index-manifest");
        write_manifest(&meta_path, &mut meta, sync, only.is_some())?;
    }
    cogmem_store::timing::mark("manifest written");
    if (only.is_none() || own_change_after_scan && !report.rebuilt) && ws.options().one_scan {
        one_scan::scanned(&meta_path);
    }
    if read_changed {
        ahead.drop_answer();
    } else if let Some(index) = ahead.keep_answer() {
        cogmem_store::timing::mark("answered ahead of the scan");
        report.documents = index.reader.searcher().num_docs();
        return Ok((index, report));
    }
    ready(&inner, fields, dir, report)
}

/// The refreshed index, ready to read, with the refresh's report.
fn ready(
    inner: &TantivyIndex,
    fields: Fields,
    dir: PathBuf,
    mut report: RefreshReport,
) -> crate::Result<(Index, RefreshReport)> {
    let reader: IndexReader = inner
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .map_err(tantivy_err(&dir))?;
    report.documents = reader.searcher().num_docs();
    Ok((Index { reader, fields, dir }, report))
}

/// The scan of every memory file that the reads of one operation share
/// (`WorkspaceOptions::one_scan`): the manifest it left, by size, modification time and inode.
mod one_scan {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    /// A manifest file's stamp (every writer replaces the file, so a new inode), with its
    /// journal's (appended to in place: its size tells).
    type Stamp = ((u64, std::time::SystemTime, u64), Option<(u64, std::time::SystemTime, u64)>);

    static SCANNED: Mutex<Option<(PathBuf, Stamp)>> = Mutex::new(None);

    fn stamp(path: &Path) -> Option<Stamp> {
        let of = |path: &Path| {
            let md = std::fs::metadata(path).ok()?;
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&md);
            #[cfg(not(unix))]
            let ino = 0;
            Some((md.len(), md.modified().ok()?, ino))
        };
        Some((of(path)?, of(&super::manifest_journal::path_beside(path))))
    }

    /// Records that this process scanned every file and left the manifest at `path` as it is.
    pub(super) fn scanned(path: &Path) {
        if let (Some(s), Ok(mut kept)) = (stamp(path), SCANNED.lock()) {
            *kept = Some((path.to_owned(), s));
        }
    }

    /// Whether this process scanned every file and the manifest at `path` is as it left it.
    pub(super) fn holds(path: &Path) -> bool {
        let Ok(kept) = SCANNED.lock() else { return false };
        kept.as_ref().is_some_and(|(p, s)| p == path && stamp(path).as_ref() == Some(s))
    }
}

/// The index folder for tantivy: without syncs when the boot can be told (see [`dir`]).
fn index_dir(path: &Path, unsynced: bool) -> Option<Box<dyn tantivy::directory::Directory>> {
    if unsynced {
        dir::UnsyncedDirectory::open(path).ok().map(|d| Box::new(d) as _)
    } else {
        tantivy::directory::MmapDirectory::open(path).ok().map(|d| Box::new(d) as _)
    }
}

/// The refresh's writer, opened on first use; `None` (and `busy` set) while a background
/// merge holds tantivy's writer lock.
fn ensure_writer<'a>(
    writer: &'a mut Option<IndexWriter<TantivyDocument>>,
    busy: &mut bool,
    inner: &TantivyIndex,
    dir: &Path,
    budget: usize,
    rebuild: bool,
) -> crate::Result<Option<&'a IndexWriter<TantivyDocument>>> {
    if *busy {
        return Ok(None);
    }
    if writer.is_none() {
        // One thread: the machine has two cores and searches run alongside. The arena is
        // tantivy's smallest for a few changed files (most refreshes: a command's own
        // change), larger for a rebuild, where it means fewer segments to merge.
        let w = match inner.writer_with_num_threads(1, budget) {
            Ok(w) => w,
            Err(e) if merge::is_writer_busy(&e) => {
                *busy = true;
                cogmem_store::timing::mark("index: writer busy (a merge runs)");
                return Ok(None);
            }
            Err(e) => return Err(tantivy_err(dir)(e).into()),
        };
        // A refresh never merges: merging waits for no one in the background (issue 20).
        if !rebuild {
            w.set_merge_policy(merge::for_update());
        }
        *writer = Some(w);
        cogmem_store::timing::mark("index: writer opened");
    }
    Ok(writer.as_ref())
}

/// A day as the index's `day` and `implied_day` fields hold it: days since 1970-01-01
/// (`i64::MIN` is "no date").
pub(crate) fn day_number(d: chrono::NaiveDate) -> i64 {
    (d - chrono::NaiveDate::default()).num_days()
}

fn document(f: &Fields, u: &MemoryUnit) -> TantivyDocument {
    let date = u.date.as_deref().and_then(cogmem_text::date::parse_day);
    let day = date.map_or(i64::MIN, day_number);
    let text = without_comments(&u.text);
    let implied = when::implied(&text, date);
    let title = match u.store {
        cogmem_store::store::Store::Semantic => {
            u.id.trim_start_matches("entity:").replace("--", " ").replace('-', " ")
        }
        _ => u.text.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or("").to_owned(),
    };
    let mut d = doc!(
        f.id => u.id.clone(),
        f.store => u.store.as_str(),
        f.kind => u.kind.clone(),
        f.path => u.path.clone(),
        f.line => u.line as u64,
        f.date => u.date.clone().unwrap_or_default(),
        f.day => day,
        f.tags => u.tags.join(" "),
        f.title => title,
        f.text => text,
        f.raw => u.text.clone(),
        f.dates => when::render(&implied),
    );
    for (first, last) in &implied {
        d.add_i64(f.implied_day, day_number(*first));
        if last != first {
            d.add_i64(f.implied_day, day_number(*last));
        }
    }
    for e in &u.entities {
        d.add_text(f.entities, e);
    }
    if let Some(s) = &u.source {
        d.add_text(f.source, s);
    }
    if let Some(s) = &u.status {
        d.add_text(f.state, s);
    }
    d
}

pub(crate) use cogmem_text::markdown::without_comments;

/// The state of the derived index, for `cogmem status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexState {
    /// Not built yet.
    Missing,
    /// Files changed since it was refreshed; the next search refreshes it.
    Stale,
    /// Matches the files.
    Fresh,
}

/// How long `verify` waits at most for an update of the index under way: the update after a
/// large import (100,000 messages) takes longer than `lock.timeout_ms`, and `import && verify`
/// must not fail for it.
const IDLE_WAIT: Duration = Duration::from_secs(600);

/// [`state`], after waiting (up to `lock.timeout_ms`, or 10 minutes if longer) for a refresh
/// under way to finish: for `verify`, which must not report an index that a change just
/// committed is bringing up to date. Changes nothing.
pub fn state_when_idle(ws: &Workspace) -> IndexState {
    let first = state(ws);
    if first != IndexState::Stale {
        return first;
    }
    // Wait for a refresh under way (a change that just committed brings the index up to date
    // holding the index lock), then look again; a lock that cannot be had leaves the answer.
    let path = ws.abs(LOCK_FILE);
    let Ok(file) = fsx::open_lock_file(&path) else { return first };
    let timeout = Duration::from_millis(ws.settings().lock.timeout_ms).max(IDLE_WAIT);
    // Said while waiting, as a search says it: a holder serving a stream of changes lets go.
    let wanted = queue::Wanted::say(ws);
    let got = wait_for_lock(&file, LockSide::Read, timeout);
    drop(wanted);
    match got {
        Ok(true) => {
            let now = state(ws);
            if now != IndexState::Stale || !queue::has_files(ws) {
                return now;
            }
            // Files queued by a change and left by a holder that ended without serving them
            // (killed): served now, as the next holder of the lock would (`queue`).
            drop(file);
            drop(lock(ws));
            state(ws)
        }
        _ => first,
    }
}

/// Compares the manifest with the files, without changing anything or waiting.
pub fn state(ws: &Workspace) -> IndexState {
    let meta = match manifest_to_compare(ws) {
        Ok(meta) => meta,
        Err(state) => return state,
    };
    let lines = meta.lines();
    let known = meta.known_dirs();
    let files = scan::scan(ws.root(), &known, |d| meta.paths_in(lines.as_ref(), d), || None, None);
    compare(meta, &files.files, ws.file_limit())
}

/// [`state`] for the memory files as a caller already stamped them (path, size, modification
/// time in nanoseconds: every plain memory file the index's scan would find), without a stat of
/// its own: `status`, which has walked the whole tree first.
pub(crate) fn state_of(ws: &Workspace, files: &[(&str, u64, u128)]) -> IndexState {
    match manifest_to_compare(ws) {
        Ok(meta) => compare(meta, files, ws.file_limit()),
        Err(state) => state,
    }
}

/// The manifest the memory files are compared with, or the state when there is none to compare
/// with (missing, or of another schema or analyzer).
fn manifest_to_compare(ws: &Workspace) -> Result<Meta, IndexState> {
    let meta_path = ws.abs(layout::INDEX_DIR).join(META_FILE);
    let Some(meta) = read_meta(&meta_path, ws.file_limit()).ok().flatten() else {
        return Err(IndexState::Missing);
    };
    if meta.schema_version != SCHEMA_VERSION || meta.analyzer != analyzer::NAME {
        return Err(IndexState::Stale);
    }
    Ok(meta)
}

/// Whether the manifest `meta` lists exactly `files` with their sizes and times, leaving out the
/// files no refresh can index as they are: one over `limit` (`limits.file_bytes`) that the
/// manifest does not list, and one the manifest names as unreadable (not UTF-8) with the same
/// size and time. A refresh leaves such a file out, so counting it made the index look stale
/// for as long as the file stayed, whatever a refresh or `doctor --fix` did.
fn compare<P: AsRef<str>>(meta: Meta, files: &[(P, u64, u128)], limit: u64) -> IndexState {
    let is_unindexable = |meta: &Meta, (rel, size, mtime): (&str, u64, u128)| {
        meta.unreadable.get(rel).is_some_and(|(s, m, _)| (*s, *m) == (size, mtime))
            || size > limit && meta.lookup(rel).is_none()
    };
    if !files.iter().any(|(p, s, m)| is_unindexable(&meta, (p.as_ref(), *s, *m))) {
        return compare_all(meta, files); // the common case, without a copy of every stamp
    }
    let kept: Vec<(&str, u64, u128)> = files
        .iter()
        .map(|(p, s, m)| (p.as_ref(), *s, *m))
        .filter(|&f| !is_unindexable(&meta, f))
        .collect();
    compare_all(meta, &kept)
}

/// [`compare`] of every file in `files`.
fn compare_all<P: AsRef<str>>(meta: Meta, files: &[(P, u64, u128)]) -> IndexState {
    let mut meta = meta;
    if meta.is_same(files) {
        return IndexState::Fresh;
    }
    // The file lines compared as text, without parsing them (a status after one hand edit at
    // 100,000 memories parsed 13,000 lines to say "stale").
    if let Some((to_read, gone)) = meta.diff(files) {
        let fresh = to_read.is_empty() && gone.is_empty();
        return if fresh { IndexState::Fresh } else { IndexState::Stale };
    }
    if !meta.parse_files() {
        return IndexState::Stale;
    }
    let same = files.len() == meta.files.len()
        && files.iter().all(|(rel, size, mtime)| {
            meta.files.get(rel.as_ref()).is_some_and(|s| s.size == *size && s.mtime == *mtime)
        });
    if same { IndexState::Fresh } else { IndexState::Stale }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifest's lines split by hand give the paths `str::lines` and the first tab give:
    /// only files directly in the folders asked for, a last line without its newline, a `\r`.
    #[test]
    fn the_paths_of_manifest_lines_in_folders_are_those_lines_give() {
        let by_lines = |lines: &str, dirs: &[&str]| -> Vec<String> {
            lines
                .lines()
                .map(|l| l.split_once('\t').map_or(l, |(p, _)| p))
                .filter(|p| p.rsplit_once('/').is_some_and(|(d, _)| dirs.contains(&d)))
                .map(str::to_owned)
                .collect()
        };
        let dirs = ["memory/episodes", "memory/vault"];
        for lines in [
            "",
            "\n",
            "MEMORY.md\t1\t2\tabc\nmemory/episodes/2026-01-01.md\t3\t4\tdef\n",
            "memory/episodes/a.md\t1\t2\nmemory/episodes/deeper/b.md\t1\t2\nmemory/vault/c.md\t5",
            "memory/vault/d.md\r\nmemory/graph/entities/person--x.md\t1\t2\n\nmemory/vault/e.md\n",
            "memory/vault/no-tab.md",
        ] {
            let got = lines_paths_in(lines, &dirs);
            assert_eq!(got, by_lines(lines, &dirs), "{lines:?}");
        }
        assert_eq!(
            lines_paths_in("memory/vault/c.md\t5\nmemory/episodes/a.md\t1", &dirs),
            ["memory/vault/c.md", "memory/episodes/a.md"]
        );
    }

    /// Every item's result comes back, in order, on one thread or two; a half whose thread
    /// panicked is done again on the caller's.
    #[test]
    fn two_threads_return_every_result_in_order() {
        for n in [0, 1, 2, 15, 16, 17, 1_000] {
            let items: Vec<u32> = (0..n).collect();
            let got = on_two_threads_from(&items, 16, |x| (x % 7 != 3).then_some(x * 2));
            let want: Vec<Option<u32>> =
                items.iter().map(|x| (*x % 7 != 3).then_some(x * 2)).collect();
            assert_eq!(got, want, "{n} items");
        }
        // Two chunks: this thread waits on its first item until the other thread has taken
        // the second chunk, whose first item panics there, the first time only.
        let items: Vec<u32> = (0..100).collect();
        let once = std::sync::atomic::AtomicBool::new(false);
        let caller = std::thread::current().id();
        let got = on_two_threads_from(&items, 16, |x| {
            if std::thread::current().id() != caller {
                if !once.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    panic!("a passing failure");
                }
            } else if *x == 0 {
                let waited = std::time::Instant::now();
                while !once.load(std::sync::atomic::Ordering::SeqCst) {
                    assert!(waited.elapsed() < std::time::Duration::from_secs(20), "no helper");
                    std::thread::yield_now();
                }
            }
            *x
        });
        assert_eq!(got, items);
        // With work for this thread meanwhile: every result in order, and it ran once, here.
        for n in [0, 5, 1_999, 2_000, 5_000] {
            let items: Vec<u32> = (0..n).collect();
            let mut ran = 0;
            let got = on_threads_while(&items, |x| x + 1, &mut || {
                assert_eq!(std::thread::current().id(), caller);
                ran += 1;
            });
            assert_eq!(got, items.iter().map(|x| x + 1).collect::<Vec<_>>(), "{n} items");
            assert_eq!(ran, 1);
        }
    }

    /// A workspace of MEMORY.md and an empty episodes folder, its index built.
    fn indexed_workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        fsx::write_atomic(&dir.path().join(layout::MEMORY_MD), b"# Memory\n").expect("write");
        fsx::create_dir_all(&dir.path().join("memory/episodes")).expect("mkdir");
        let ws = Workspace::open(dir.path()).expect("open");
        drop(open(&ws, false, None).expect("index built"));
        (dir, ws)
    }

    #[test]
    fn a_change_queues_its_files_while_the_index_lock_is_held_and_the_holder_indexes_them() {
        let (_dir, ws) = indexed_workspace();
        let rel = "memory/episodes/2026-12-03.md";
        let text = "# 2026-12-03 — Episode Log\n\n## 10:00\nThe quokka census starts on Tuesday.\n";
        fsx::write_atomic(&ws.abs(rel), text.as_bytes()).expect("write");
        let queued =
            || fsx::read_text_if_exists(&ws.abs(queue::QUEUE_FILE), 1 << 20).expect("read");

        // Someone else updates the index (the last change's update, a search): the change
        // does not wait for them; its file waits in the queue, and the index is behind.
        let holder = lock(&ws).expect("index lock");
        update_after_commit_releasing(&ws, ws.lock().expect("workspace lock"), &[rel.to_owned()]);
        assert_eq!(queued().as_deref(), Some("memory/episodes/2026-12-03.md\n"));
        assert_eq!(state(&ws), IndexState::Stale);

        // Letting the lock go serves the queue first.
        drop(holder);
        assert_eq!(queued().as_deref(), Some(""));
        assert_eq!(state(&ws), IndexState::Fresh);

        // A holder killed with files queued (the OS lets its lock go): the next one serves them.
        fsx::write_atomic(
            &ws.abs(rel),
            format!("{text}\n## 11:00\nThe wombat count follows.\n").as_bytes(),
        )
        .expect("write");
        fsx::write_atomic(&ws.abs(queue::QUEUE_FILE), format!("{rel}\n{rel}\n").as_bytes())
            .expect("write");
        update_after_commit_releasing(&ws, ws.lock().expect("workspace lock"), &[]);
        assert_eq!(queued().as_deref(), Some(""));
        assert_eq!(state(&ws), IndexState::Fresh);
    }

    /// Someone waiting for the index lock is let in before the queue is served further: the
    /// holder lets go leaving the queue to the waiter, and changes queue rather than take a
    /// lock that someone waits for; the waiter serves the queue when it lets go.
    #[test]
    fn a_waiter_for_the_index_lock_goes_before_the_queue() {
        let (_dir, ws) = indexed_workspace();
        let rel = "memory/episodes/2026-12-03.md";
        let write = |n: u32| {
            let text = format!("# 2026-12-03 — Episode Log\n\n## 10:00\nProbe {n}.\n");
            fsx::write_atomic(&ws.abs(rel), text.as_bytes()).expect("write");
        };
        let queued =
            || fsx::read_text_if_exists(&ws.abs(queue::QUEUE_FILE), 1 << 20).expect("read");

        // Nobody waits: a change takes the free lock.
        assert!(!queue::Wanted::by_someone(&ws));
        write(1);
        match queue::take_or_queue(&ws, &[rel.to_owned()]).expect("queue") {
            queue::Taken::Lock(file) => {
                let update = IndexLock::held(&ws, file);
                refresh_locked(&ws, false, None, Some(&[rel.to_owned()]), &mut Default::default())
                    .expect("indexed");
                drop(update);
            }
            queue::Taken::Queued => panic!("the lock was free and nobody waited"),
        }
        // Someone waits: a change queues even though the lock is free.
        let waiting = queue::Wanted::say(&ws);
        assert!(queue::Wanted::by_someone(&ws));
        write(2);
        assert!(matches!(
            queue::take_or_queue(&ws, &[rel.to_owned()]).expect("queue"),
            queue::Taken::Queued
        ));
        drop(waiting);
        assert!(!queue::Wanted::by_someone(&ws));

        // A holder with files queued, and a waiter: the holder lets go without serving them.
        let holder = lock(&ws).expect("index lock");
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let (ws, queued) = (&ws, &queued);
            scope.spawn(move || {
                let waiter = lock(ws).expect("the waiter gets the lock");
                seen_tx.send(queued()).expect("send");
                go_rx.recv().expect("told to let go");
                drop(waiter);
            });
            let started = std::time::Instant::now();
            while !queue::Wanted::by_someone(ws) && started.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(1));
            }
            drop(holder);
            let seen = seen_rx.recv().expect("the waiter's view");
            assert_eq!(seen.as_deref(), Some("memory/episodes/2026-12-03.md\n"), "left queued");
            go_tx.send(()).expect("send");
        });
        // The waiter served the queue when it let go.
        assert_eq!(queued().as_deref(), Some(""));
        assert_eq!(state(&ws), IndexState::Fresh);
    }

    #[test]
    fn the_files_digest_is_each_files_hash_summed_and_does_not_change() {
        let files = [
            ("MEMORY.md", 10, 1_796_054_612_000_000_001),
            ("memory/episodes/2026-12-03.md", 0, 0),
            ("memory/graph/entities/person--ada-lovelace.md", u64::MAX, u128::MAX),
            ("", 1, 2),
        ];
        // Summed, so in any order; the count beside it.
        let mut reversed = files;
        reversed.reverse();
        assert_eq!(files_digest(files.iter().copied()), files_digest(reversed.iter().copied()));
        let sum = files.iter().fold(0u64, |a, f| a.wrapping_add(file_hash(f.0, f.1, f.2)));
        assert_eq!(files_digest(files.iter().copied()), (4, sum));
        assert_eq!(files_digest(std::iter::empty()), (0, 0));
        // The digest is kept in manifests: the same in every build (a new foldhash that hashed
        // otherwise would make every manifest's digest look stale).
        assert_eq!(format!("{:016x}", files_digest(files.iter().copied()).1), "642595b083092a78");
        // Each part counts: another size, mtime or path is another hash.
        let h = file_hash("memory/vault/a.md", 1, 2);
        for other in [
            file_hash("memory/vault/b.md", 1, 2),
            file_hash("memory/vault/a.md", 2, 2),
            file_hash("memory/vault/a.md", 1, 3),
        ] {
            assert_ne!(h, other);
        }
    }

    #[test]
    fn a_manifest_with_the_old_digest_is_read_without_it_and_written_with_the_new_one() {
        let meta = manifest_of(3, |i| format!("memory/vault/n{i}.md"));
        let text = meta.to_text();
        let (n, d) = files_digest(meta.files.iter().map(|(p, s)| (p.as_str(), s.size, s.mtime)));
        let new_line = format!("#stamps {n} {d:016x}\n");
        assert!(text.contains(&new_line), "{text}");
        // As an older version wrote it: `#files` and FNV-1a.
        let old = text.replace(&new_line, &format!("#files {n} 0123456789abcdef\n"));
        let read = Meta::parse_header(old.clone()).expect("a manifest");
        assert_eq!((read.old_count, read.digest), (Some(n), None));
        // Written again as read (only the header changed): the lines get the new digest.
        assert_eq!(read.to_text(), text.replace("#files", "#stamps"));
        let again = Meta::parse_header(read.to_text()).expect("a manifest");
        assert_eq!((again.digest, again.old_count), (Some((n, d)), None));
    }

    /// A workspace indexed by a version that wrote the `#files` digest: the first read writes
    /// the manifest again with a `#stamps` line, reading no file again, and from then on a
    /// read needs the header only.
    #[test]
    fn an_index_of_an_older_version_gets_the_new_digest_without_reading_a_file_again() {
        let (_dir, ws) = indexed_workspace();
        let rel = "memory/episodes/2026-12-03.md";
        fsx::write_atomic(&ws.abs(rel), b"# 2026-12-03\n\n## 10:00\nThe quokka census.\n")
            .expect("write");
        drop(open(&ws, false, None).expect("indexed"));
        let path = ws.abs(layout::INDEX_DIR).join(META_FILE);
        // Read until nothing more is recorded (the folders' stamps, once settled).
        std::thread::sleep(Duration::from_millis(20));
        drop(open(&ws, false, None).expect("read"));
        drop(open(&ws, false, None).expect("read"));
        // The manifest as read (its journal's records put in, if there are any).
        let read = || read_meta(&path, u64::MAX).expect("read").expect("a manifest").to_text();
        let text = read();
        let line = text.lines().find(|l| l.starts_with("#stamps ")).expect("a #stamps line");
        let n = line.split(' ').nth(1).expect("a count");
        fsx::write_atomic(
            &path,
            text.replace(line, &format!("#files {n} 0123456789abcdef")).as_bytes(),
        )
        .expect("write");
        fsx::remove_file(&journal_beside(&path)).expect("no journal");
        assert_eq!(state(&ws), IndexState::Fresh, "the old line's files are still compared");
        let (_, report) = open(&ws, false, None).expect("opened");
        assert!(!report.rebuilt && report.changed.is_empty() && report.removed.is_empty());
        assert_eq!(read(), text, "written again as this version writes it");
        let meta = read_meta(&path, u64::MAX).expect("read").expect("a manifest");
        assert!(meta.old_count.is_none() && meta.digest.is_some());
    }

    #[test]
    fn the_manifest_keeps_its_watch_record() {
        let meta = Meta {
            schema_version: SCHEMA_VERSION,
            analyzer: analyzer::NAME.to_owned(),
            boot: Some("b00t".to_owned()),
            watch: Some(("123-456-b00t".to_owned(), 789)),
            files: HashMap::from([(
                "memory/vault/a.md".to_owned(),
                Stamp { size: 1, mtime: 2, hash: "h".to_owned() },
            )]),
            ..Meta::default()
        };
        let text = meta.to_text();
        assert!(text.contains("\n#boot b00t\n#watch 123-456-b00t 789\n"), "{text}");
        let digest = Some(files_digest([("memory/vault/a.md", 1, 2)].into_iter()));
        let meta = Meta { digest, ..meta };
        assert_eq!(Meta::parse(&text), Some(meta.clone()));
        // Without the line, or with one that does not parse, nothing is trusted.
        let without = Meta { watch: None, ..meta.clone() };
        assert_eq!(Meta::parse(&without.to_text()).unwrap().watch, None);
        for bad in ["#watch 123-456-b00t", "#watch 123-456-b00t x", "#watch  5", "#watch a b 1"] {
            let text = text.replace("#watch 123-456-b00t 789", bad);
            let parsed = Meta::parse(&text).unwrap();
            assert_eq!(parsed.watch, None, "{bad}");
            assert_eq!(parsed.files, meta.files);
        }
    }

    #[test]
    fn the_manifest_names_what_could_not_be_read() {
        let file = ("memory/vault/a.md".to_owned(), Stamp { size: 1, mtime: 2, hash: "h".into() });
        let meta = Meta {
            schema_version: SCHEMA_VERSION,
            analyzer: analyzer::NAME.to_owned(),
            files: HashMap::from([file]),
            skipped: ["memory/vault/bad byte.md", "memory/episodes/link.md"]
                .map(str::to_owned)
                .into(),
            digest: Some(files_digest([("memory/vault/a.md", 1, 2)].into_iter())),
            ..Meta::default()
        };
        let text = meta.to_text();
        assert!(text.contains("\n#skipped memory/episodes/link.md\n"), "{text}");
        assert_eq!(Meta::parse(&text), Some(meta.clone()));
        // Too many to name: one line says so, and names none.
        let over = Meta { skipped: Default::default(), skipped_overflow: true, ..meta };
        let text = over.to_text();
        assert!(text.contains("\n#skipped *\n") && !text.contains("#skipped memory"), "{text}");
        assert_eq!(Meta::parse(&text), Some(over));
    }

    /// A manifest of `n` files named by `path`, each with its own stamp and hash (`h7` is the
    /// hash of file 7).
    fn manifest_of(n: u64, path: impl Fn(u64) -> String) -> Meta {
        let stamp = |i: u64| Stamp { size: i, mtime: u128::from(i) * 7, hash: format!("h{i}") };
        let files = (0..n).map(|i| (path(i), stamp(i))).collect();
        Meta { schema_version: 5, files, ..Meta::default() }
    }

    #[test]
    fn a_manifest_read_by_its_header_answers_like_a_parsed_one() {
        let meta = manifest_of(300, |i| format!("memory/episodes/2026-01-{i:03}.md"));
        let text = meta.to_text();
        let mut lazy = Meta::parse_header(text.clone()).expect("a manifest");
        assert!(lazy.files.is_empty());
        let mut scan: Vec<(String, u64, u128)> =
            meta.files.iter().map(|(p, s)| (p.clone(), s.size, s.mtime)).collect();
        scan.reverse(); // a folder listing's order does not matter
        assert!(lazy.is_same(&scan));
        for (p, s) in &meta.files {
            assert_eq!(lazy.lookup(p), Some((s.size, s.mtime)), "{p}");
        }
        for missing in ["", "memory/episodes/2026-01-300.md", "zzz", "MEMORY.md"] {
            assert_eq!(lazy.lookup(missing), None, "{missing}");
        }
        // Written back with only its header changed, it keeps every file line.
        lazy.watch = Some(("g".to_owned(), 1));
        let again = Meta::parse(&lazy.to_text()).expect("a manifest");
        assert_eq!(again.files, meta.files);
        // One stamp more, less or different: not the same.
        scan[0].2 += 1;
        assert!(!lazy.is_same(&scan));
        scan.pop();
        assert!(!lazy.is_same(&scan[..scan.len() - 1]));
        assert!(lazy.parse_files());
        assert_eq!(lazy.files, meta.files);
        // A malformed file line makes the manifest no manifest once it is parsed.
        let mut broken = Meta::parse_header(text.replace("\th7\n", "\n")).expect("a header");
        assert!(!broken.parse_files());
    }

    #[test]
    fn a_large_manifest_reads_its_file_lines_only_when_needed_and_from_the_file_it_opened() {
        let mut meta =
            manifest_of(3_000, |i| format!("memory/graph/entities/person--someone-{i:05}.md"));
        meta.dirs.insert("memory/vault".into(), scan::DirStamp { mtime: 1, ctime: 2, ino: 3 });
        let text = meta.to_text();
        assert!(text.len() > 2 * MANIFEST_HEAD, "{}", text.len());
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join(META_FILE);
        fsx::write_atomic(&path, text.as_bytes()).expect("written");
        let lazy = read_meta(&path, u64::MAX).expect("read").expect("a manifest");
        let unparsed = lazy.unparsed.as_ref().expect("not parsed");
        assert!(unparsed.rest.is_some() && unparsed.read.len() <= MANIFEST_HEAD, "header only");
        // Replaced (as every writer does) before the file lines are needed: they are the ones
        // of the manifest whose header was read.
        fsx::write_atomic(&path, Meta::default().to_text().as_bytes()).expect("replaced");
        assert_eq!(lazy.known_dirs(), meta.dirs);
        for (p, s) in meta.files.iter().step_by(97) {
            assert_eq!(lazy.lookup(p), Some((s.size, s.mtime)), "{p}");
        }
        assert_eq!(lazy.to_text(), text);
        let mut parsed = lazy.clone();
        assert!(parsed.parse_files());
        assert_eq!(parsed.files, meta.files);
        // Over the limit: an error naming the file, as for any file.
        fsx::write_atomic(&path, text.as_bytes()).expect("written");
        assert!(read_meta(&path, 1_000).is_err());
        // A header longer than the first read (a line per decay shard): read further, and the
        // file lines still only when needed.
        let mut shards = meta.clone();
        for n in 0..4096u16 {
            let shard = cogmem_store::store::decay_file::shard_number(&format!("{n:03x}.json"))
                .expect("a shard");
            shards.decay.insert(Some(shard), (u64::from(n), u128::from(n) * 1_000_000_007));
        }
        let text = shards.to_text();
        let header = text.find("\nmemory/").expect("file lines") + 1;
        assert!(header > MANIFEST_HEAD, "a header past the first read: {header}");
        fsx::write_atomic(&path, text.as_bytes()).expect("written");
        let lazy = read_meta(&path, u64::MAX).expect("read").expect("a manifest");
        let unparsed = lazy.unparsed.as_ref().expect("not parsed");
        assert!(unparsed.rest.is_some() && unparsed.read.len() < text.len(), "header only");
        assert_eq!(lazy.decay, shards.decay);
        assert_eq!(lazy.to_text(), text);
        // A small manifest is read whole.
        let small = Meta { schema_version: 5, ..Meta::default() }.to_text();
        fsx::write_atomic(&path, small.as_bytes()).expect("written");
        let whole = read_meta(&path, u64::MAX).expect("read").expect("a manifest");
        assert!(whole.unparsed.as_ref().is_some_and(|u| u.rest.is_none()));
    }

    #[test]
    fn a_scan_is_compared_with_the_file_lines_as_text() {
        let meta = manifest_of(50, |i| format!("memory/vault/n{i:02}.md"));
        let text = meta.to_text();
        let lazy = Meta::parse_header(text.clone()).expect("a manifest");
        let mut scan: Vec<(String, u64, u128)> =
            meta.files.iter().map(|(p, s)| (p.clone(), s.size, s.mtime)).collect();
        assert_eq!(lazy.diff(&scan), Some((vec![], vec![])));
        // One edited, one new (before every line), one gone (the last).
        scan.retain(|f| f.0 != "memory/vault/n49.md");
        scan.iter_mut().find(|f| f.0 == "memory/vault/n07.md").expect("there").2 += 1;
        scan.push(("memory/vault/a.md".into(), 1, 1));
        let (to_read, gone) = lazy.diff(&scan).expect("compared");
        let read: Vec<&str> = to_read.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(read, ["memory/vault/a.md", "memory/vault/n07.md"]);
        assert_eq!(gone, ["memory/vault/n49.md"]);
        // What a parse of every line finds too.
        let mut parsed = lazy.clone();
        assert!(parsed.parse_files());
        for f in &scan {
            let differs = parsed.lookup(&f.0) != Some((f.1, f.2));
            assert_eq!(differs, read.contains(&f.0.as_str()), "{}", f.0);
        }
        assert_eq!(parsed.diff(&scan), None, "parsed: compared by the caller");
        // Lines out of order, or malformed: no comparison (every line is parsed instead).
        let swapped = text.replace("memory/vault/n03.md", "memory/vault/n99.md");
        assert_eq!(Meta::parse_header(swapped).expect("a header").diff(&scan), None);
        let broken = text.replace("\th7\n", "\n");
        assert_eq!(Meta::parse_header(broken).expect("a header").diff(&scan), None);
    }

    #[test]
    fn schema_is_stable() {
        let (a, _) = schema();
        let (b, _) = schema();
        assert_eq!(a, b);
    }
}
