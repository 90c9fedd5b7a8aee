//! What the index keeps of every entity file for the graph (issue 20): the facts the graph is
//! built from ([`EntityFacts`]: id, names, status, relations), so that the graph cache and the
//! names cache are rebuilt after a change to a few entity files without reading and parsing
//! every one (at 10,000 entities that was a third of a second on every index update after a
//! remember that named someone new, and a search right after it waited for it).
//!
//! Format (`.cogmem/index/graph-facts.jsonl`): a header line `#cogmem-graph-facts 1 SIZE MTIME`,
//! then one JSON array per entity file, sorted by path: `[PATH, ID, STATUS, [NAME, …],
//! [[RELATION, TARGET, SINCE or null, UNTIL or null, CONFIDENCE], …]]` (JSON strings: any text
//! an entity file holds is safe in it; no keys, so it reads and writes quickly). SIZE and
//! MTIME (nanoseconds) are those of the graph cache written with it: a graph cache written by
//! anything else (a cogmem that does not keep these facts, after a change to an entity) makes
//! the facts untrusted, and they are read from the files again. The facts are
//! those of the files as the index's manifest last read them (the same freshness as the
//! documents); the relations' line numbers are not kept (neither cache uses them, and a fact
//! added above the relations moves them without changing the graph). Derived: a missing,
//! unreadable or malformed file is rebuilt from the entity files.

use std::collections::BTreeMap;
use std::path::Path;

use cogmem_store::store::entity::RelationLine;

use super::EntityFacts;

const HEADER: &str = "#cogmem-graph-facts 1";

/// Size and modification time (nanoseconds) of a file, `None` when it cannot be stat-ed.
pub(crate) use crate::index::stamp_of as stamp;

/// The facts of every entity file, by path.
pub(crate) type Facts = BTreeMap<String, EntityFacts>;

/// A relation as a line holds it.
type Relation<S> = (S, S, Option<S>, Option<S>, f64);

/// A line as it is written (borrowing the facts) …
type Out<'a> = (&'a str, &'a str, &'a str, &'a [String], Vec<Relation<&'a str>>);

/// … and as it is read.
type In = (String, String, String, Vec<String>, Vec<Relation<String>>);

/// Reads the file; `None` when it is missing, in another format or malformed anywhere, or when
/// the graph cache at `cache` is not the one written with it.
pub(crate) fn load(path: &Path, cache: &Path) -> Option<Facts> {
    let (text, body) = read(path, cache)?;
    let mut out = Facts::new();
    for line in text[body..].lines() {
        let (path, facts) = parse_line(line)?;
        out.insert(path, facts);
    }
    Some(out)
}

/// The path and facts of one line; `None` when it is malformed.
pub(crate) fn parse_line(line: &str) -> Option<(String, EntityFacts)> {
    let (path, id, status, names, relations): In = serde_json::from_str(line).ok()?;
    let relations = relations
        .into_iter()
        .map(|(relation, target, since, until, confidence)| RelationLine {
            relation,
            target,
            since,
            until,
            confidence,
            line: 0,
        })
        .collect();
    Some((path, EntityFacts { id, names, status, relations }))
}

/// The file's text and where its lines start after the header, unparsed; `None` when it is
/// missing, in another format, or the graph cache at `cache` is not the one written with it.
pub(crate) fn read(path: &Path, cache: &Path) -> Option<(String, usize)> {
    // Derived, written by cogmem itself: the default bound is enough.
    let text = cogmem_store::store::fsx::read_text_if_exists(
        path,
        cogmem_store::store::fsx::DEFAULT_FILE_LIMIT,
    )
    .ok()??;
    let (first, _) = text.split_once('\n')?;
    let mut f = first.strip_prefix(HEADER)?.strip_prefix(' ')?.split(' ');
    let written: (u64, u128) = (f.next()?.parse().ok()?, f.next()?.parse().ok()?);
    if f.next().is_some() || stamp(cache) != Some(written) {
        return None;
    }
    let body = first.len() + 1;
    Some((text, body))
}

/// The file's lines after its header, for `facts` (serialised while the graph is assembled
/// from them: the header waits for the graph cache's stamp).
pub(crate) fn lines(facts: &Facts) -> Vec<u8> {
    let mut out = Vec::with_capacity(facts.len() * 256);
    for (path, f) in facts {
        push_line(&mut out, path, f);
    }
    out
}

/// [`lines`] split into `count` shards by the entities' ids ([`super::shards`]).
pub(crate) fn lines_by_shard(facts: &Facts, count: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(); count.max(1)];
    for (path, f) in facts {
        let shard = super::shards::shard_of(&f.id, count);
        push_line(&mut out[shard], path, f);
    }
    out
}

/// Appends the line of one entity file.
fn push_line(out: &mut Vec<u8>, path: &str, f: &EntityFacts) {
    let relations = f
        .relations
        .iter()
        .map(|r| {
            let (since, until) = (r.since.as_deref(), r.until.as_deref());
            (r.relation.as_str(), r.target.as_str(), since, until, r.confidence)
        })
        .collect();
    let line: Out<'_> = (path, &f.id, &f.status, &f.names, relations);
    let start = out.len();
    match serde_json::to_writer(&mut *out, &line) {
        Ok(()) => out.push(b'\n'),
        // Left out (the entity's facts are read from its file at the next rebuild).
        Err(_) => out.truncate(start),
    }
}

/// The facts of every shard of an index folder's set ([`super::shards`]); `None` when there is
/// no set to trust or a shard's facts cannot be ([`load`]).
pub(crate) fn load_all(index_dir: &Path) -> Option<Facts> {
    let shards = super::shards::Shards::open(index_dir)?;
    let mut out = Facts::new();
    for n in 0..shards.meta.count {
        let p = shards.paths(n);
        out.append(&mut load(&p.facts, &p.cache)?);
    }
    Some(out)
}

/// The whole file: the header for a graph cache of this size and mtime, then `lines`.
pub(crate) fn with_header(lines: &[u8], cache: (u64, u128)) -> Vec<u8> {
    let header = format!("{HEADER} {} {}\n", cache.0, cache.1);
    let mut out = Vec::with_capacity(header.len() + lines.len());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(lines);
    out
}

/// `facts` without the relations' line numbers (what the file keeps).
pub(crate) fn without_lines(mut facts: EntityFacts) -> EntityFacts {
    for r in &mut facts.relations {
        r.line = 0;
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods, reason = "the test writes and damages the file itself")]
    fn facts_read_back_and_a_damaged_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00.facts");
        let entity = "# Ann\n\n## Relations\n\n- knows: [[person--bo]] (since 2026-01-01)\n\
                    - \"odd\": [[person--x\\ty]]\n";
        let mut facts = Facts::new();
        for rel in ["memory/graph/entities/person--ann.md", "memory/graph/entities/notes.md"] {
            if let Some(f) = EntityFacts::of(rel, entity) {
                facts.insert(rel.to_owned(), without_lines(f));
            }
        }
        assert_eq!(facts.len(), 1, "a name that is no id has no facts");
        let cache = dir.path().join("graph.tsv");
        std::fs::write(&cache, "the graph cache").unwrap();
        let written = stamp(&cache).unwrap();
        let text = |stamp| with_header(&lines(&facts), stamp);
        std::fs::write(&path, text(written)).unwrap();
        assert_eq!(load(&path, &cache), Some(facts.clone()));
        let other = text((written.0 + 1, written.1));
        for bad in [Vec::new(), other, b"#cogmem-graph-facts 1\n".to_vec()] {
            std::fs::write(&path, bad).unwrap();
            assert_eq!(load(&path, &cache), None);
        }
        std::fs::write(&path, [text(written), b"{\n".to_vec()].concat()).unwrap();
        assert_eq!(load(&path, &cache), None);
        // A graph cache written by anything else.
        std::fs::write(&path, text(written)).unwrap();
        std::fs::write(&cache, "another graph cache").unwrap();
        assert_eq!(load(&path, &cache), None);
    }
}
