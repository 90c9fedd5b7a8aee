//! Where the graph's caches live in the index folder: split by entity id into shards, so that a
//! change to a few entities rewrites a few small files instead of three large ones.
//!
//! At a million memories (100,000 entities) the graph cache, the names cache and the kept facts
//! were 28, 4 and 41 MB, read, patched and written whole after every change to an entity's
//! relations or names: about 270 ms of the index update, which a search right after the
//! `remember` waited for. Each entity's lines now live in shard `fnv1a(id) mod COUNT` of the
//! three kinds of file (the same format as the single files were, [`super::cache`],
//! [`super::names`], [`super::facts`]); a patch ([`super::patch`]) reads and rewrites only the
//! shards of the entities it touches.
//!
//! Layout (`.cogmem/index/graph/`):
//! - `shards`: `#cogmem-graph-shards 1`, then `count N` (a power of two, 1 to 256), `entities
//!   N` (the graph cache's nodes) and `named 0|1` (every kept entity file is named by its id,
//!   which a patch relies on); written **last**, and removed before any shard is written, so a
//!   set whose writing was cut short is never read: its absence makes the next update write
//!   every shard again.
//! - `NN.tsv`, `NN.names`, `NN.facts` (NN the shard in two lower-case hex digits): the graph
//!   cache, the names cache and the facts of the entities of that shard, each facts file
//!   stamped with its own shard's graph cache.
//! - `dangling.tsv`: `#cogmem-graph-dangling 1`, then `TARGET TAB SOURCE` for every relation
//!   whose target has no entity file, sorted: what tells a patch that a new entity would turn a
//!   kept relation into an edge (which needs a rebuild), without reading every shard's facts.
//!
//! The count is chosen when every shard is written, from the number of entities (about 1,024
//! per shard: one shard below that), and kept while patches add entities, until there are more
//! than twice as many per shard: then every shard is written again with the count doubled, so
//! a patch's cost stays flat while the graph grows.

use std::path::{Path, PathBuf};

use cogmem_store::store::fsx;
use cogmem_store::workspace::layout;

use super::facts::Facts;
use super::{EntityFacts, Graph};

/// The folder in the index folder.
pub(crate) const DIR: &str = "graph";

/// The names of the single cache files this layout replaced, removed when it is written.
const OLD_FILES: [&str; 3] = ["graph.tsv", "names.tsv", "graph-facts.jsonl"];

const META: &str = "shards";
const META_HEADER: &str = "#cogmem-graph-shards 1";
const DANGLING: &str = "dangling.tsv";
const DANGLING_HEADER: &str = "#cogmem-graph-dangling 1";

/// Entities per shard the count is chosen for, and the most shards.
const PER_SHARD: usize = 1024;
const MAX_COUNT: usize = 256;

/// The shard count for a graph of `entities`: a power of two, about [`PER_SHARD`] each.
pub(crate) fn count_for(entities: usize) -> usize {
    entities.div_ceil(PER_SHARD).next_power_of_two().clamp(1, MAX_COUNT)
}

/// The shard of an entity id among `count` (one shard, or none, needs no hash).
pub(crate) fn shard_of(id: &str, count: usize) -> usize {
    if count <= 1 {
        return 0;
    }
    (cogmem_store::store::decay_file::fnv1a(id.as_bytes()) % count as u64) as usize
}

/// What the `shards` file says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    /// How many shards.
    pub count: usize,
    /// The graph cache's nodes, all shards together.
    pub entities: usize,
    /// Whether every kept entity file is named by its id.
    pub named: bool,
}

impl Meta {
    fn text(&self) -> String {
        format!(
            "{META_HEADER}\ncount {}\nentities {}\nnamed {}\n",
            self.count,
            self.entities,
            u8::from(self.named)
        )
    }

    fn parse(text: &str) -> Option<Self> {
        let mut lines = text.strip_prefix(META_HEADER)?.strip_prefix('\n')?.lines();
        let mut field = |name: &str| -> Option<usize> {
            lines.next()?.strip_prefix(name)?.strip_prefix(' ')?.parse().ok()
        };
        let (count, entities, named) = (field("count")?, field("entities")?, field("named")?);
        let fits = count.is_power_of_two() && count <= MAX_COUNT && named <= 1;
        (fits && lines.next().is_none()).then_some(Self { count, entities, named: named == 1 })
    }

    /// Whether patches have added so many entities that the shards should be split again.
    pub(crate) fn outgrown(&self) -> bool {
        self.count < MAX_COUNT && self.entities > 2 * PER_SHARD * self.count
    }
}

/// The shard set of an index folder.
#[derive(Debug, Clone)]
pub(crate) struct Shards {
    dir: PathBuf,
    /// What its `shards` file says.
    pub meta: Meta,
}

/// The three files of one shard.
pub(crate) struct ShardPaths {
    pub cache: PathBuf,
    pub names: PathBuf,
    pub facts: PathBuf,
}

impl Shards {
    /// The shard set of the index folder `index_dir`, `None` when there is none to trust: no
    /// `shards` file (never written, or a write cut short), or one in another format.
    pub(crate) fn open(index_dir: &Path) -> Option<Self> {
        let dir = index_dir.join(DIR);
        // Derived, written by cogmem itself: the default bound is enough.
        let text = fsx::read_text_if_exists(&dir.join(META), fsx::DEFAULT_FILE_LIMIT).ok()??;
        Some(Self { meta: Meta::parse(&text)?, dir })
    }

    /// The files of shard `n`.
    pub(crate) fn paths(&self, n: usize) -> ShardPaths {
        paths_in(&self.dir, n)
    }

    /// The shard of an entity id.
    pub(crate) fn of(&self, id: &str) -> usize {
        shard_of(id, self.meta.count)
    }

    /// The dangling relations' lines (after the header); `None` when the file is missing or in
    /// another format.
    pub(crate) fn dangling(&self) -> Option<String> {
        let text =
            fsx::read_text_if_exists(&self.dir.join(DANGLING), fsx::DEFAULT_FILE_LIMIT).ok()??;
        Some(text.strip_prefix(DANGLING_HEADER)?.strip_prefix('\n')?.to_owned())
    }

    /// Writes the shards a patch changed (`(shard, cache, names, facts lines)`), then the
    /// dangling relations and the `shards` file: the `shards` file is removed first, so a
    /// write cut short leaves no set to trust.
    pub(crate) fn write_patch(
        &self,
        shards: &[(usize, String, String, Vec<u8>)],
        dangling: Option<&str>,
        meta: Meta,
        written: &dyn Fn(),
        sync: bool,
    ) -> crate::Result<()> {
        fsx::remove_file(&self.dir.join(META))?;
        for (n, cache, names, facts) in shards {
            write_shard(&self.paths(*n), cache, names, facts, written, sync)?;
        }
        if let Some(lines) = dangling {
            write_dangling(&self.dir, lines, sync)?;
        }
        fsx::write_derived(&self.dir.join(META), meta.text().as_bytes(), sync)?;
        Ok(())
    }
}

fn paths_in(dir: &Path, n: usize) -> ShardPaths {
    ShardPaths {
        cache: dir.join(format!("{n:02x}.tsv")),
        names: dir.join(format!("{n:02x}.names")),
        facts: dir.join(format!("{n:02x}.facts")),
    }
}

/// Writes one shard: its graph cache, its names, then its facts stamped with that graph cache
/// (without the stamp, no facts: they are read from the files at the next rebuild).
/// `written` runs once the graph cache is written (crash trials stop there).
fn write_shard(
    p: &ShardPaths,
    cache: &str,
    names: &str,
    facts: &[u8],
    written: &dyn Fn(),
    sync: bool,
) -> crate::Result<()> {
    fsx::write_derived(&p.cache, cache.as_bytes(), sync)?;
    written();
    fsx::write_derived(&p.names, names.as_bytes(), sync)?;
    match super::facts::stamp(&p.cache) {
        Some(written) => {
            fsx::write_derived(&p.facts, &super::facts::with_header(facts, written), sync)?;
        }
        None => fsx::remove_file(&p.facts)?,
    }
    Ok(())
}

fn write_dangling(dir: &Path, lines: &str, sync: bool) -> crate::Result<()> {
    let text = format!("{DANGLING_HEADER}\n{lines}");
    fsx::write_derived(&dir.join(DANGLING), text.as_bytes(), sync)?;
    Ok(())
}

/// The dangling relations' lines of a graph: `TARGET TAB SOURCE`, sorted, each once (ids
/// holding a tab or a line break left out).
pub(crate) fn dangling_lines(g: &Graph) -> String {
    let lines = g
        .dangling
        .iter()
        .filter(|d| !d.to.contains(['\t', '\n', '\r']) && !d.from.contains(['\t', '\n', '\r']))
        .map(|d| format!("{}\t{}", d.to, d.from))
        .collect();
    lines_text(lines)
}

/// Lines (without their line breaks) sorted, each once, as text.
pub(crate) fn lines_text(mut lines: Vec<String>) -> String {
    lines.sort_unstable();
    lines.dedup();
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Whether every kept entity file is the one its id names (`DIR/ID.md`), with an id that
/// needs no escaping in a facts line: what a patch takes a file's path from.
pub(crate) fn named_by_id(path: &str, f: &EntityFacts) -> bool {
    !f.id.contains(['"', '\\', '/']) && path == layout::entity_file(&f.id)
}

/// Writes every shard of the graph `g` of `facts` (the facts' lines made on a thread of their
/// own while the caches are made), then the `shards` file; removes the single files of older
/// builds and shards no longer in the set.
pub(crate) fn write_all(
    index_dir: &Path,
    g: &Graph,
    facts: &Facts,
    written: &dyn Fn(),
    sync: bool,
) -> crate::Result<()> {
    write_all_in(index_dir, g, facts, count_for(g.g.node_count()), written, sync)
}

/// [`write_all`] in `count` shards.
fn write_all_in(
    index_dir: &Path,
    g: &Graph,
    facts: &Facts,
    count: usize,
    written: &dyn Fn(),
    sync: bool,
) -> crate::Result<()> {
    let dir = index_dir.join(DIR);
    fsx::create_dir_all(&dir)?;
    fsx::remove_file(&dir.join(META))?;
    let (caches, facts_lines) = std::thread::scope(|s| {
        let lines = s.spawn(|| super::facts::lines_by_shard(facts, count));
        let caches = super::cache::texts(g, count);
        let lines = lines.join().unwrap_or_else(|_| super::facts::lines_by_shard(facts, count));
        (caches, lines)
    });
    let names = super::names::texts(g, count);
    for (n, ((cache, names), facts)) in caches.iter().zip(&names).zip(&facts_lines).enumerate() {
        write_shard(&paths_in(&dir, n), cache, names, facts, written, sync)?;
    }
    write_dangling(&dir, &dangling_lines(g), sync)?;
    // What this set does not hold: an older, larger set's shards, and the single files.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let stale = name
                .split_once('.')
                .filter(|(_, ext)| matches!(*ext, "tsv" | "names" | "facts"))
                .and_then(|(n, _)| usize::from_str_radix(n, 16).ok().filter(|_| n.len() == 2))
                .is_some_and(|n| n >= count);
            if stale {
                fsx::remove_file(&e.path())?;
            }
        }
    }
    for old in OLD_FILES {
        fsx::remove_file(&index_dir.join(old))?;
    }
    let named = facts.iter().all(|(path, f)| named_by_id(path, f));
    let meta = Meta { count, entities: super::cache::node_count(g), named };
    fsx::write_derived(&dir.join(META), meta.text().as_bytes(), sync)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_grows_with_the_graph_in_powers_of_two() {
        assert_eq!(count_for(0), 1);
        assert_eq!(count_for(1024), 1);
        assert_eq!(count_for(1025), 2);
        assert_eq!(count_for(10_000), 16);
        assert_eq!(count_for(100_000), 128);
        assert_eq!(count_for(10_000_000), MAX_COUNT);
        let m = Meta { count: 2, entities: 4096, named: true };
        assert!(!m.outgrown());
        assert!(Meta { entities: 4097, ..m }.outgrown());
        assert!(!Meta { count: MAX_COUNT, entities: usize::MAX, named: true }.outgrown());
    }

    /// A graph written in several shards reads back as the one text it was: the same facts,
    /// the same activation from any seeds, the same patch; written again in fewer shards, the
    /// shards left over are gone.
    #[test]
    fn a_graph_in_shards_is_the_graph_in_one_text() {
        use std::collections::HashMap;
        let mut facts = Facts::new();
        let ids: Vec<String> = (0..40).map(|i| format!("concept--n{i:02}")).collect();
        for (i, id) in ids.iter().enumerate() {
            let text = format!(
                "# {id}\n\n## Relations\n\n- relates-to: [[{}]]\n- relates-to: [[{}]] (confidence 0.6)\n- relates-to: [[person--nobody{}]]\n",
                ids[(i * 7 + 3) % 40],
                ids[(i * 11 + 5) % 40],
                i % 3,
            );
            let rel = layout::entity_file(id);
            let f = EntityFacts::of(&rel, &text).expect("facts");
            facts.insert(rel, super::super::facts::without_lines(f));
        }
        let g = super::super::from_facts(
            facts.iter().map(|(p, f)| (p.as_str(), f)),
            facts.len(),
            Default::default(),
        );
        let whole = super::super::cache::GraphCache::new(g.cache_text());
        let all: Vec<&str> = ids.iter().map(String::as_str).collect();
        let dir = tempfile::tempdir().expect("a temporary folder");
        for count in [4, 1] {
            write_all_in(dir.path(), &g, &facts, count, &|| (), false).expect("written");
            let shards = Shards::open(dir.path()).expect("a set");
            assert_eq!(shards.meta, Meta { count, entities: 40, named: true });
            assert_eq!(super::super::facts::load_all(dir.path()), Some(facts.clone()));
            let sharded = super::super::cache::GraphCache::open(dir.path()).expect("opens");
            for seeds in [vec!["concept--n00"], vec!["concept--n13", "concept--n31"]] {
                let seeds: Vec<String> = seeds.into_iter().map(str::to_owned).collect();
                let got: HashMap<String, f64> = sharded.activation_of(&seeds, &all);
                assert!(!got.is_empty());
                assert_eq!(got, whole.activation_of(&seeds, &all), "{count} shards, {seeds:?}");
            }
            assert_eq!(shards.dangling().expect("dangling").lines().count(), 40);
            let files = std::fs::read_dir(dir.path().join(DIR)).expect("listed").count();
            assert_eq!(files, 3 * count + 2, "{count} shards");
        }
    }

    #[test]
    fn the_meta_file_reads_back_and_nothing_else_does() {
        let m = Meta { count: 16, entities: 12_345, named: false };
        assert_eq!(Meta::parse(&m.text()), Some(m));
        for bad in [
            String::new(),
            m.text().replace("count 16", "count 12"),
            m.text().replace("count 16", "count 512"),
            m.text().replace("named 0", "named 2"),
            m.text().replace("#cogmem-graph-shards 1", "#cogmem-graph-shards 2"),
            format!("{}extra\n", m.text()),
            m.text().replace("entities 12345\n", ""),
        ] {
            assert_eq!(Meta::parse(&bad), None, "{bad:?}");
        }
    }
}
