//! The manifest's journal (issue 20, twelfth stop): the update after a change appends what it
//! changed to `manifest.journal` instead of writing `manifest.tsv` again whole.
//!
//! The refresh after a change patches a few file lines of the manifest ([`super::manifest_patch`]),
//! yet it still wrote every line: 9.8 MB at a million memories, 20–38 ms of every update. Now
//! such a write appends one record to the journal: the header lines that changed (`-LINE` gone,
//! `+LINE` new: a decay shard's stamp, `#stamps`; the header holds a line per decay shard, 38 KB
//! at 100,000 memories), then the new line of each patched path, or the path alone when its file
//! is gone. A reader takes the base's header and file lines with every record's put in
//! ([`splice`]): the manifest a whole write would have left. The journal is folded into a new
//! `manifest.tsv` (and removed) by any other write, or when it grows past an eighth of the base
//! ([`is_due`]).
//!
//! Format: a first line `#cogmem-index-journal 1 SIZE MTIME` (the size and mtime, nanoseconds,
//! of the `manifest.tsv` it patches: a journal left beside another manifest is not read), then
//! records, each `#record LEN CHECKSUM` (bytes, 16 hex digits of
//! [`crate::listings::hash_bytes`]) and that many bytes. A record cut short or damaged ends the
//! journal there: a crash while appending leaves the manifest as it was before that update (the
//! next refresh reads that update's files again), and the next append cuts the damaged tail off
//! first. Derived, like the manifest: a journal that does not read is no journal.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use cogmem_store::store::fsx;
use cogmem_store::store::fsx::IoError;

use crate::graph::cache::{first_key_not_below, line_key};

/// The journal's file name, beside the manifest.
pub(crate) const JOURNAL_FILE: &str = "manifest.journal";
const HEADER: &str = "#cogmem-index-journal 1";
const RECORD: &str = "#record ";
/// The smallest size a journal may grow to before it is folded into the manifest.
const MIN_BUDGET: u64 = 64 * 1024;

/// The patched paths of the records read, in path order: the new line (without its newline), or
/// `None` for a file gone.
pub(super) type Patches = BTreeMap<String, Option<String>>;

/// The journal beside the manifest at `manifest`.
pub(crate) fn path_beside(manifest: &Path) -> PathBuf {
    manifest.with_file_name(JOURNAL_FILE)
}

/// A journal as read: the header with every record's changes, and every record's file lines.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Journal {
    /// The header lines, with every record's changes made (each line ended by a newline).
    pub(super) header: String,
    /// Every record's file lines, the later ones over the earlier.
    pub(super) patches: Patches,
}

/// What a writer needs to know of the journal it read: the manifest it patches and where its
/// whole records end (bytes after that are a damaged tail, cut off before the next append).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct JournalAt {
    /// The size and mtime of the `manifest.tsv` read.
    pub(super) base: (u64, u128),
    /// The length of the journal's whole records (0: none, or no journal).
    pub(super) valid: u64,
}

/// Reads the journal at `path` for the manifest of stamp `base` whose header lines are
/// `base_header`: `None` when there is none, it is for another manifest, or it holds no whole
/// record. Also gives where its whole records end.
pub(super) fn read(
    path: &Path,
    base: (u64, u128),
    base_header: &str,
    limit: u64,
) -> (Option<Journal>, JournalAt) {
    let mut at = JournalAt { base, valid: 0 };
    let Ok(Some(bytes)) = fsx::read_if_exists(path, limit) else { return (None, at) };
    let first = header_line(base);
    if !bytes.starts_with(first.as_bytes()) {
        return (None, at);
    }
    let mut pos = first.len();
    at.valid = pos as u64;
    let mut journal: Option<Journal> = None;
    let mut header: Vec<&str> = base_header.lines().collect();
    while let Some((payload, end)) = next_record(&bytes, pos) {
        let Some((changes, lines)) = split_payload(payload) else { break };
        for change in changes.lines() {
            match change.split_at(1) {
                ("-", line) => header.retain(|l| *l != line),
                (_, line) => header.push(line),
            }
        }
        let j = journal
            .get_or_insert_with(|| Journal { header: String::new(), patches: Patches::new() });
        for line in lines.lines() {
            match line.split_once('\t') {
                Some((p, _)) => j.patches.insert(p.to_owned(), Some(line.to_owned())),
                None => j.patches.insert(line.to_owned(), None),
            };
        }
        pos = end;
        at.valid = pos as u64;
    }
    if let Some(j) = journal.as_mut() {
        j.header = header.iter().map(|l| format!("{l}\n")).collect();
    }
    (journal, at)
}

/// The length of [`header_line`].
pub(super) fn header_len(base: (u64, u128)) -> u64 {
    header_line(base).len() as u64
}

/// The first line of a journal for the manifest of stamp `base`.
fn header_line(base: (u64, u128)) -> String {
    format!("{HEADER} {} {}\n", base.0, base.1)
}

/// The record starting at `pos`: its payload and where it ends; `None` when there is none, or it
/// is cut short or damaged.
fn next_record(bytes: &[u8], pos: usize) -> Option<(&str, usize)> {
    let rest = bytes.get(pos..)?;
    let nl = memchr::memchr(b'\n', rest)?;
    let line = std::str::from_utf8(&rest[..nl]).ok()?.strip_prefix(RECORD)?;
    let (len, sum) = line.split_once(' ')?;
    let len: usize = len.parse().ok()?;
    let start = pos + nl + 1;
    let payload = bytes.get(start..start.checked_add(len)?)?;
    (format!("{:016x}", crate::listings::hash_bytes(payload)) == sum).then_some(())?;
    Some((std::str::from_utf8(payload).ok()?, start + len))
}

/// A record's payload split into its header changes (`-#…`, `+#…` lines, one a `#stamps` line)
/// and its file lines.
fn split_payload(payload: &str) -> Option<(&str, &str)> {
    let mut at = 0;
    for line in payload.split_inclusive('\n') {
        if !(line.starts_with("-#") || line.starts_with("+#")) {
            break;
        }
        at += line.len();
    }
    let changes = &payload[..at];
    changes.lines().any(|l| l.starts_with("+#stamps ")).then_some((changes, &payload[at..]))
}

/// One record's bytes: the header lines of `old` not in `new` (`-LINE`) and of `new` not in
/// `old` (`+LINE`), `old` and `new` being the headers (through `#stamps`) before and after this
/// update, then the patched paths' lines.
pub(super) fn record(old: &str, new: &str, patches: &Patches) -> Vec<u8> {
    let (was, now): (BTreeSet<&str>, BTreeSet<&str>) =
        (old.lines().collect(), new.lines().collect());
    let mut payload = String::with_capacity(256 + 128 * patches.len());
    for line in old.lines().filter(|l| !now.contains(l)) {
        payload.push_str(&format!("-{line}\n"));
    }
    for line in new.lines().filter(|l| !was.contains(l)) {
        payload.push_str(&format!("+{line}\n"));
    }
    for (path, line) in patches {
        payload.push_str(line.as_deref().unwrap_or(path));
        payload.push('\n');
    }
    let sum = crate::listings::hash_bytes(payload.as_bytes());
    let mut out = format!("{RECORD}{} {sum:016x}\n", payload.len()).into_bytes();
    out.extend_from_slice(payload.as_bytes());
    out
}

/// Whether a journal that would be `size` bytes long is to be folded into a manifest of
/// `base_size` bytes instead: past an eighth of it (64 KB at least), so a reader's extra work
/// stays a fraction of reading the manifest.
pub(super) fn is_due(size: u64, base_size: u64) -> bool {
    size > MIN_BUDGET.max(base_size / 8)
}

/// Appends `record` to the journal at `path` for the manifest `at` names, first cutting off a
/// damaged tail after its whole records, or starts the journal when there is none; waits for
/// the disk only with `sync`.
pub(super) fn append(path: &Path, at: JournalAt, record: &[u8], sync: bool) -> Result<(), IoError> {
    if at.valid == 0 {
        let mut bytes = header_line(at.base).into_bytes();
        bytes.extend_from_slice(record);
        return fsx::write_derived(path, &bytes, sync);
    }
    let mut file = fsx::open_append(path)?;
    let len = file.metadata().map_err(|e| IoError::new(path, "read the size of", e))?.len();
    if len != at.valid {
        file.set_len(at.valid).map_err(|e| IoError::new(path, "cut the damaged end of", e))?;
    }
    file.write_all(record).map_err(|e| IoError::new(path, "append to", e))?;
    if sync {
        file.sync_data().map_err(|e| IoError::new(path, "sync", e))?;
    }
    Ok(())
}

/// `lines` (sorted file lines, each ended by a newline) with `patches` put in, appended to
/// `out`: a patched path's line replaced (or added in its place), a `None` one removed; the
/// lines between are copied whole.
pub(super) fn splice(lines: &str, patches: &Patches, out: &mut String) {
    let mut from = 0;
    let ended = |out: &mut String| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
    };
    for (path, line) in patches {
        let at = first_key_not_below(lines, from, path);
        out.push_str(&lines[from..at]);
        ended(out);
        let end =
            memchr::memchr(b'\n', &lines.as_bytes()[at..]).map_or(lines.len(), |i| at + i + 1);
        // The path's own line, if there is one, is replaced.
        let own = line_key(lines[at..end].trim_end_matches('\n')) == path.as_str();
        from = if own && at < lines.len() { end } else { at };
        if let Some(line) = line {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&lines[from..]);
    ended(out);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests damage files directly")]
    use super::super::{META_FILE, Meta, Stamp, read_meta, write_manifest};
    use super::*;

    fn stamp(size: u64) -> Stamp {
        Stamp { size, mtime: u128::from(size) * 7, hash: format!("h{size}") }
    }

    /// A manifest of `n` files written whole at `path`, read back as a refresh reads it.
    fn written(path: &Path, n: u64) -> Meta {
        let files = (0..n).map(|i| (format!("memory/episodes/d{i:04}.md"), stamp(i))).collect();
        let mut meta = Meta { schema_version: 5, files, ..Meta::default() };
        write_manifest(path, &mut meta, false, false).expect("written whole");
        read_meta(path, u64::MAX).expect("read").expect("a manifest")
    }

    /// One update after a change: `changed` paths set to a new stamp (`None`: removed) on the
    /// manifest as read from `path`, written as the refresh writes it; the text a whole write
    /// of the same manifest gives.
    fn update(path: &Path, changed: &[(&str, Option<u64>)]) -> String {
        let mut meta = read_meta(path, u64::MAX).expect("read").expect("a manifest");
        let paths: Vec<String> = changed.iter().map(|(p, _)| (*p).to_owned()).collect();
        assert!(meta.parse_only(&paths));
        for (p, s) in changed {
            match s {
                Some(size) => meta.files.insert((*p).to_owned(), stamp(*size)),
                None => meta.files.remove(*p),
            };
        }
        meta.decay.insert(None, (changed.len() as u64, 1));
        let whole = meta.to_text();
        write_manifest(path, &mut meta, false, true).expect("written");
        whole
    }

    fn read_text(path: &Path) -> String {
        read_meta(path, u64::MAX).expect("read").expect("a manifest").to_text()
    }

    /// Updates after changes append to the journal and leave `manifest.tsv` as it was; the
    /// manifest read back (base and journal) is the one a whole write gives, header included,
    /// through replaced, added and removed lines over several records. See: issue 20
    #[test]
    fn issue_20_an_update_appends_a_record_and_reads_back_as_the_whole_manifest() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join(META_FILE);
        written(&path, 200);
        let base = std::fs::read(&path).expect("the manifest");
        let journal = path_beside(&path);
        let steps: [&[(&str, Option<u64>)]; 4] = [
            &[("memory/episodes/d0007.md", Some(9_007))],
            &[("memory/episodes/d0007.md", Some(19_007)), ("memory/episodes/e.md", Some(5))],
            &[("memory/episodes/d0000.md", None), ("memory/a.md", Some(3))],
            &[("memory/episodes/e.md", None), ("memory/zz.md", Some(4))],
        ];
        let mut sizes = Vec::new();
        for (n, step) in steps.iter().enumerate() {
            let whole = update(&path, step);
            assert_eq!(std::fs::read(&path).expect("the manifest"), base, "step {n}: base kept");
            sizes.push(std::fs::metadata(&journal).expect("a journal").len());
            assert_eq!(read_text(&path), whole, "step {n}");
            let mut parsed = read_meta(&path, u64::MAX).expect("read").expect("a manifest");
            assert!(parsed.parse_files(), "step {n}");
            assert_eq!(parsed.digest, Meta::parse_header(whole.clone()).expect("parses").digest);
        }
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "appended: {sizes:?}");
    }

    /// A record cut short (a crash while appending) is not read: the manifest is the one before
    /// that update; the next update cuts the damaged tail off and appends after the last whole
    /// record. A journal beside another manifest (the base written whole since) is not read.
    #[test]
    fn a_torn_record_is_ignored_and_cut_off_and_a_journal_of_another_base_is_not_read() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join(META_FILE);
        written(&path, 50);
        let journal = path_beside(&path);
        let first = update(&path, &[("memory/episodes/d0003.md", Some(303))]);
        let whole_len = std::fs::metadata(&journal).expect("a journal").len();
        update(&path, &[("memory/episodes/d0004.md", Some(404))]);
        let full = std::fs::read(&journal).expect("the journal");
        for cut in [1, 10, (full.len() as u64 - whole_len) as usize - 1] {
            std::fs::write(&journal, &full[..full.len() - cut]).expect("cut");
            assert_eq!(read_text(&path), first, "cut {cut}: the update before");
        }
        // A damaged byte in the last record: the same.
        let mut damaged = full.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 1;
        std::fs::write(&journal, &damaged).expect("damaged");
        assert_eq!(read_text(&path), first);
        let third = update(&path, &[("memory/episodes/d0005.md", Some(505))]);
        assert_eq!(read_text(&path), third);
        assert!(!third.contains("\tmemory/episodes/d0004.md\t404\t"), "the torn update is gone");
        // The base written whole by another writer: the journal left beside it is not read.
        let other = written(&path, 3).to_text();
        std::fs::write(&journal, &full).expect("a stale journal");
        assert_eq!(read_text(&path), other);
    }

    /// A journal that would grow past an eighth of the manifest (64 KB at least) is folded in:
    /// the manifest is written whole and the journal removed.
    #[test]
    fn a_journal_grown_past_its_budget_is_folded_into_the_manifest() {
        assert!(!is_due(64 * 1024, 100));
        assert!(is_due(64 * 1024 + 1, 100));
        assert!(!is_due(1 << 20, 8 << 20) && is_due((1 << 20) + 1, 8 << 20));
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join(META_FILE);
        written(&path, 20);
        let journal = path_beside(&path);
        let mut n = 0;
        while journal.exists() || n == 0 {
            let whole = update(&path, &[("memory/episodes/d0001.md", Some(1_000 + n))]);
            assert_eq!(read_text(&path), whole, "update {n}");
            n += 1;
            assert!(n < 10_000, "never folded in");
        }
        assert!(n > 10, "{n}");
        assert!(
            std::fs::read_to_string(&path).expect("read").contains(&format!("\t{}\t", 999 + n))
        );
    }

    /// `splice` puts lines in, replaces and removes them, at the start, between and at the end.
    #[test]
    fn splice_puts_lines_in_their_places() {
        let lines = "b\t1\nd\t2\nf\t3\n";
        let mut patches = Patches::new();
        patches.insert("a".into(), Some("a\t9".into()));
        patches.insert("d".into(), None);
        patches.insert("e".into(), Some("e\t8".into()));
        patches.insert("f".into(), Some("f\t7".into()));
        patches.insert("g".into(), Some("g\t6".into()));
        let mut out = String::new();
        splice(lines, &patches, &mut out);
        assert_eq!(out, "a\t9\nb\t1\ne\t8\nf\t7\ng\t6\n");
    }
}
