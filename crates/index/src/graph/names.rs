//! The names every entity goes by, as the search index keeps them (`.cogmem/index/names.tsv`):
//! what routing must know of the workspace's entities to link a "remember that …" to the ones it
//! names, without reading every entity file (issue 20: at 100,000 memories that was 10,000
//! files, 41 MB, 140–200 ms of every request a hook heard). Written with the graph cache, from
//! the same graph, whenever an entity's names may have changed (the manifest's graph digest
//! covers them), so a refresh of the index brings it up to date with hand edits too.
//!
//! Format: a header `#cogmem-names 1`, then one line per entity, sorted by id: `id TAB name TAB
//! name …`, the names lower case as [`cogmem_store::store::entity::names`] gives them. An id or
//! a name that holds a tab or a line break is left out.

use cogmem_store::store::fsx;
use cogmem_store::workspace::Workspace;

use super::Graph;

const HEADER: &str = "#cogmem-names 1";

/// The cache text for a graph (every entity in one text).
#[cfg(test)]
pub(crate) fn text(g: &Graph) -> String {
    texts(g, 1).pop().unwrap_or_default()
}

/// The cache texts of a graph split into `count` shards by id ([`super::shards`]).
pub(crate) fn texts(g: &Graph, count: usize) -> Vec<String> {
    let mut shards: Vec<Vec<String>> = vec![Vec::new(); count.max(1)];
    for n in g.g.node_weights() {
        if let Some(l) = line(&n.id, &n.names) {
            let shard = super::shards::shard_of(&n.id, count);
            shards[shard].push(l);
        }
    }
    shards
        .into_iter()
        .map(|mut lines| {
            lines.sort_unstable();
            let mut out = format!("{HEADER}\n");
            for l in lines {
                out.push_str(&l);
                out.push('\n');
            }
            out
        })
        .collect()
}

/// An entity's line (without its newline): `None` for an id that holds a tab or a line
/// break; names that do are left out.
pub(crate) fn line(id: &str, names: &[String]) -> Option<String> {
    let clean = |s: &str| !s.contains(['\t', '\n', '\r']);
    if !clean(id) {
        return None;
    }
    let mut line = id.to_owned();
    for name in names.iter().filter(|n| clean(n)) {
        line.push('\t');
        line.push_str(name);
    }
    Some(line)
}

/// Whether cache text is in this build's format (its first line).
pub(crate) fn is_text_current(text: &str) -> bool {
    text.strip_prefix(HEADER).is_some_and(|rest| rest.starts_with('\n'))
}

/// The lines of cache text after its header; `None` for text in another format.
fn body(text: &str) -> Option<&str> {
    text.strip_prefix(HEADER)?.strip_prefix('\n')
}

/// An entity and its names, from its line.
fn entry(line: &str) -> (String, Vec<String>) {
    let mut f = line.split('\t');
    let id = f.next().unwrap_or_default().to_owned();
    (id, f.map(str::to_owned).collect())
}

/// The entities of cache text and their names; `None` for text in another format.
#[cfg(test)]
fn parse(text: &str) -> Option<Vec<(String, Vec<String>)>> {
    Some(body(text)?.lines().filter(|l| !l.is_empty()).map(entry).collect())
}

/// Every entity of the workspace and the names it goes by, sorted by id, the index brought up
/// to date with the files first (as a search does: a hand edit is seen). `None` when the index
/// cannot be opened or a shard of its names cache read: the caller reads the entity files then.
pub fn known(ws: &Workspace) -> Option<Vec<(String, Vec<String>)>> {
    let (index, _) = crate::index::open(ws, false, None).ok()?;
    let shards = super::shards::Shards::open(index.dir())?;
    let mut texts = Vec::with_capacity(shards.meta.count);
    for n in 0..shards.meta.count {
        // Derived, written by cogmem itself: the default bound is enough.
        texts.push(
            fsx::read_text_if_exists(&shards.paths(n).names, fsx::DEFAULT_FILE_LIMIT).ok()??,
        );
    }
    // The shards' lines in id order (each shard's are: a stable sort merges the runs, and
    // moves only the lines' slices), then parsed.
    let mut lines: Vec<&str> = Vec::with_capacity(shards.meta.entities);
    for t in &texts {
        lines.extend(body(t)?.lines().filter(|l| !l.is_empty()));
    }
    if shards.meta.count > 1 {
        lines.sort();
    }
    let out = lines.into_iter().map(entry).collect();
    cogmem_store::timing::mark("entity names read from the index");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_of_every_entity_come_back_as_the_graph_had_them() {
        let files = vec![
            (
                "memory/graph/entities/person--alice.md".to_owned(),
                "# Alice\n\n## Summary\nAliases: Ally, Al\n".to_owned(),
            ),
            ("memory/graph/entities/place--lisbon.md".to_owned(), "# Lisbon\n".to_owned()),
        ];
        let g = super::super::from_files(&files, Default::default());
        let text = text(&g);
        assert!(is_text_current(&text), "{text}");
        let known = parse(&text).expect("parsed");
        let by_id: std::collections::HashMap<_, _> = known.into_iter().collect();
        for id in by_id.keys() {
            let node = g.g.node_weights().find(|n| &n.id == id).expect("a node");
            assert_eq!(by_id[id], node.names, "{id}");
        }
        assert_eq!(by_id.len(), g.g.node_count());
        assert!(by_id["person--alice"].contains(&"ally".to_owned()), "{by_id:?}");
        // Text in another format is no cache.
        assert!(parse("#cogmem-names 0\nperson--x\tx\n").is_none());
        assert_eq!(parse(&format!("{HEADER}\n")), Some(Vec::new()));
    }
}
