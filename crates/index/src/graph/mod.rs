//! The cognitive map: a petgraph graph of entities and their relations, rebuilt from the entity
//! files (design.md §6). Derived and read-only: it never writes to the store. Nodes are
//! entities; edges are `## Relations` bullets with their confidence and validity dates.

pub mod cache;
pub(crate) mod facts;
pub mod names;
pub(crate) mod patch;
pub(crate) mod shards;
pub use cogmem_store::vocab;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use petgraph::Direction;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;

use cogmem_store::store::entity::{self, EntityId, RelationLine};
use cogmem_store::store::markdown;
use cogmem_store::store::units::Unreadable;
use cogmem_store::workspace::{Workspace, layout};
use vocab::Vocabulary;

/// An entity in the graph.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// Its id.
    pub id: String,
    /// Its type.
    pub kind: String,
    /// Names it goes by (lower case).
    pub names: Vec<String>,
    /// `active`, `superseded`, `inactive` or `merged`.
    pub status: String,
    /// Its file.
    pub path: String,
}

impl Node {
    /// Tells whether activation may flow through this node.
    #[cfg(test)]
    pub(crate) fn conducts(&self) -> bool {
        self.status == "active"
    }
}

/// A relation between two entities.
#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// The relation name.
    pub relation: String,
    /// Confidence, 0 to 1.
    pub confidence: f64,
    /// Valid from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Valid until (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The file the bullet is in.
    pub path: String,
    /// Its line.
    pub line: usize,
}

impl Edge {
    /// Tells whether the edge held on `date` (`YYYY-MM-DD`); with no date, whether it holds now
    /// (has no `until`).
    pub fn valid_on(&self, date: Option<&str>) -> bool {
        match date {
            None => self.until.is_none(),
            Some(d) => {
                self.since.as_deref().is_none_or(|s| s <= d)
                    && self.until.as_deref().is_none_or(|u| d < u)
            }
        }
    }
}

/// A link to an entity that has no file (yet).
#[derive(Debug, Clone, Serialize)]
pub struct Dangling {
    /// The entity linking.
    pub from: String,
    /// The relation.
    pub relation: String,
    /// The missing target.
    pub to: String,
    /// Where the bullet is.
    pub path: String,
    /// Its line.
    pub line: usize,
}

/// The graph with its lookup tables.
pub struct Graph {
    /// The petgraph graph.
    pub g: DiGraph<Node, Edge>,
    by_id: HashMap<String, NodeIndex>,
    by_name: HashMap<String, Vec<NodeIndex>>,
    /// The relation vocabulary.
    pub vocab: Vocabulary,
    /// Links to missing entities.
    pub dangling: Vec<Dangling>,
    /// Files that could not be read.
    pub skipped: Vec<Unreadable>,
}

/// Builds the graph from the workspace's entity files and vocabulary.
pub fn build(ws: &Workspace) -> crate::Result<Graph> {
    of_read(ws, read_entity_files(ws), |_, _| true)
}

/// Every entity file with its text, or the error that kept it from being read.
fn read_entity_files(ws: &Workspace) -> Vec<(String, cogmem_store::Result<String>)> {
    cogmem_store::store::units::read_markdown_files(ws, layout::ENTITIES_DIR)
}

/// The graph of the entity files `read` for which `keep` (path, text) holds, with the
/// workspace's vocabulary; the files that could not be read are its `skipped`.
fn of_read(
    ws: &Workspace,
    read: Vec<(String, cogmem_store::Result<String>)>,
    keep: impl Fn(&str, &str) -> bool,
) -> crate::Result<Graph> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for (rel, text) in read {
        match text {
            Ok(t) if keep(&rel, &t) => files.push((rel, t)),
            Ok(_) => {}
            Err(e) => skipped.push(Unreadable { path: rel, error: e.to_string() }),
        }
    }
    let mut g = from_files(&files, vocabulary(ws)?);
    g.skipped.extend(skipped);
    Ok(g)
}

/// The workspace's relation vocabulary (`relations.md`; none when there is no such file).
fn vocabulary(ws: &Workspace) -> crate::Result<Vocabulary> {
    Ok(Vocabulary::parse(&ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default()))
}

/// The graph of the entity files that can hold an edge of the entity `id` or a node at its end:
/// its own file, every file whose text holds the id (a relation's target is a piece of its
/// file's text), and the files of the ids its own file links to. Its node, and every edge from
/// or to it with the nodes at their other ends, are as [`build`] gives them; the rest of the
/// graph is left out (issue 20: an entity's page and `graph show` parsed all 10,000 entity
/// files of a large workspace, twice for the page). Every file is still read, not parsed.
/// `None` when `id` is not the id of an entity file (a name, the start of an id): only the
/// whole graph can say what it means then.
pub fn around(ws: &Workspace, id: &str) -> crate::Result<Option<Graph>> {
    if EntityId::parse(id).map(|e| e.as_str() != id).unwrap_or(true) {
        return Ok(None);
    }
    let read = read_entity_files(ws);
    let stem = |rel: &str| cogmem_store::store::units::md_stem(rel).trim().to_owned();
    // An own file that cannot be read is no node: the whole graph decides what `id` means.
    let Some(Ok(own)) = read.iter().find_map(|(rel, t)| (stem(rel) == id).then_some(t)) else {
        return Ok(None);
    };
    let targets: HashSet<String> = entity::link_targets(own).map(str::to_owned).collect();
    let keep =
        |rel: &str, t: &str| t.contains(id) || targets.contains(&stem(rel)) || stem(rel) == id;
    let g = of_read(ws, read, keep);
    cogmem_store::timing::mark("graph: the files around an entity read");
    Ok(Some(g?))
}

/// Tells whether a line of `memory/graph/index.md` is a table row that names an entity: as
/// the registry row's id, or as an edge row's source or target.
pub fn index_row_names(line: &str, entity: &str) -> bool {
    let t = line.trim();
    if !t.starts_with('|') {
        return false;
    }
    let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
    cells.first() == Some(&entity) || cells.get(2) == Some(&entity) && cells.len() >= 6
}

/// The text of `memory/graph/index.md` for the given entity files (path, text), with the
/// workspace's relation vocabulary and the scores of `decay`: the registry and edge tables, or
/// past [`REGISTRY_MAX`] entity files the count of each type ([`summary_text`]).
pub fn index_text(
    ws: &Workspace,
    files: &[(String, String)],
    decay: &cogmem_store::store::decay_file::DecayFile,
) -> crate::Result<String> {
    let counts = kinds_of(files.iter().map(|(rel, _)| cogmem_store::store::units::md_stem(rel)));
    if counts.values().sum::<usize>() > REGISTRY_MAX {
        return Ok(summary_text(&counts));
    }
    let g = from_files(files, vocabulary(ws)?);
    Ok(render_index(&g, &decay.entity_scores()))
}

/// The whole graph from the facts the search index keeps of every entity file, the index
/// brought up to date with the files first (as a search is: a hand edit counts): for the readers
/// whose answers carry no line numbers (statistics, paths, neighbours, the web view's drawing).
/// Reading and parsing every entity file took 250–400 ms at 10,000 entities; loading the facts
/// about 50 ms (issue 20). `None` when the index cannot be opened, a background merge keeps it
/// behind the files, or it keeps no facts to trust: the caller builds from the files ([`build`]).
pub fn from_index(ws: &Workspace) -> crate::Result<Option<Graph>> {
    let Some(index) = crate::index::open_current(ws) else { return Ok(None) };
    let Some(facts) = facts::load_all(index.dir()) else { return Ok(None) };
    Ok(Some(of_facts(ws, &facts)?))
}

/// The whole graph for a reader that needs line numbers for a few relations only (`graph
/// check`, whose findings are rare): [`from_index`]'s graph, whose relations' `line`s are their
/// places among their file's relations (1 for the first) rather than line numbers, with the
/// entity files the index could not read as its `skipped`. [`RelationLines`] turns a place into
/// the line, reading that one file. Only the entity files that changed since the last refresh
/// are read (issue 20: `graph check` read and parsed every entity file, 4.3 s at 10,000
/// entities in a debug build). `None` when [`from_index`] would be `None`: the caller builds
/// from the files then ([`build`]), whose lines are lines.
pub fn from_index_numbered(ws: &Workspace) -> crate::Result<Option<Graph>> {
    let Ok((index, report)) = crate::index::open(ws, false, None) else { return Ok(None) };
    if report.behind {
        return Ok(None);
    }
    let Some(mut facts) = facts::load_all(index.dir()) else { return Ok(None) };
    for f in facts.values_mut() {
        for (n, r) in f.relations.iter_mut().enumerate() {
            r.line = n + 1;
        }
    }
    let mut g = of_facts(ws, &facts)?;
    g.skipped = report
        .skipped
        .into_iter()
        .filter(|s| s.path.starts_with(layout::ENTITIES_DIR) && s.path.ends_with(".md"))
        .collect();
    Ok(Some(g))
}

/// The lines of relations [`from_index_numbered`] gives by their places: each file asked about
/// is read once.
#[derive(Debug, Default)]
pub struct RelationLines {
    read: HashMap<String, Vec<usize>>,
}

impl RelationLines {
    /// The line of the `nth` relation (1 for the first) of the entity file `rel`; 0 when the file
    /// cannot be read now or holds fewer relations (changed since the index read it).
    pub fn line(&mut self, ws: &Workspace, rel: &str, nth: usize) -> usize {
        if nth == 0 {
            return 0;
        }
        let lines = self.read.entry(rel.to_owned()).or_insert_with(|| {
            cogmem_store::timing::mark(&format!("graph: relation lines read from {rel}"));
            ws.read_text(rel)
                .map(|text| entity::relations(&text).iter().map(|r| r.line).collect())
                .unwrap_or_default()
        });
        lines.get(nth - 1).copied().unwrap_or(0)
    }
}

/// [`from_index`], else [`build`].
pub fn from_index_or_files(ws: &Workspace) -> crate::Result<Graph> {
    cogmem_store::timing::mark("graph: read from the index or the files");
    match from_index(ws)? {
        Some(g) => Ok(g),
        None => build(ws),
    }
}

/// The facts of every readable entity file, read from the files ([`facts`]).
pub(crate) fn read_facts(ws: &Workspace) -> facts::Facts {
    read_entity_files(ws)
        .into_iter()
        .filter_map(|(rel, text)| {
            let f = EntityFacts::of(&rel, &text.ok()?)?;
            Some((rel, facts::without_lines(f)))
        })
        .collect()
}

/// The graph of these facts of entity files, with the workspace's relation vocabulary: the
/// graph [`build`] gives when the files hold these facts, but for the relations' line numbers.
pub(crate) fn of_facts(ws: &Workspace, facts: &facts::Facts) -> crate::Result<Graph> {
    let files = facts.iter().map(|(rel, f)| (rel.as_str(), f));
    Ok(from_facts(files, facts.len(), vocabulary(ws)?))
}

/// Builds the graph from (path, text) pairs of entity files.
pub fn from_files(files: &[(String, String)], vocab: Vocabulary) -> Graph {
    let facts: Vec<(String, EntityFacts)> = files
        .iter()
        .filter_map(|(rel, text)| Some((rel.clone(), EntityFacts::of(rel, text)?)))
        .collect();
    from_facts(facts.iter().map(|(rel, f)| (rel.as_str(), f)), facts.len(), vocab)
}

/// What the graph takes from one entity file, as [`from_files`] reads it: its id (the file's
/// name), names, status and relations. `None` for a file whose name is no entity id.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityFacts {
    /// The entity's id: its file's name.
    pub id: String,
    /// The names it goes by.
    pub names: Vec<String>,
    /// Its status.
    pub status: String,
    /// Its relation bullets.
    pub relations: Vec<RelationLine>,
}

impl EntityFacts {
    /// The facts of the entity file `rel` holding `text`.
    pub fn of(rel: &str, text: &str) -> Option<Self> {
        let id = EntityId::parse(cogmem_store::store::units::md_stem(rel)).ok()?;
        Some(Self {
            names: entity::names(&id, text),
            status: entity::status(text),
            relations: entity::relations(text),
            id: id.to_string(),
        })
    }
}

/// Builds the graph from the facts of entity files (path, facts), in the order of their paths
/// (as [`from_files`] has them: a later file of the same id takes the id).
pub(crate) fn from_facts<'a>(
    files: impl Iterator<Item = (&'a str, &'a EntityFacts)>,
    count: usize,
    vocab: Vocabulary,
) -> Graph {
    let mut g: DiGraph<Node, Edge> = DiGraph::with_capacity(count, count * 4);
    let mut by_id = HashMap::with_capacity(count);
    let mut by_name: HashMap<String, Vec<NodeIndex>> = HashMap::new();
    let mut parsed: Vec<(NodeIndex, &[RelationLine], &str)> = Vec::with_capacity(count);
    for (rel, facts) in files {
        let Ok(id) = EntityId::parse(&facts.id) else { continue };
        let node = Node {
            id: id.to_string(),
            kind: id.kind().to_owned(),
            names: facts.names.clone(),
            status: facts.status.clone(),
            path: rel.to_owned(),
        };
        let ix = g.add_node(node);
        by_id.insert(id.to_string(), ix);
        for n in &facts.names {
            by_name.entry(n.clone()).or_default().push(ix);
        }
        parsed.push((ix, &facts.relations, rel));
    }
    let mut dangling = Vec::new();
    for (from, rels, path) in parsed {
        for r in rels {
            match by_id.get(&r.target) {
                Some(&to) => {
                    g.add_edge(
                        from,
                        to,
                        Edge {
                            relation: r.relation.clone(),
                            confidence: r.confidence,
                            since: r.since.clone(),
                            until: r.until.clone(),
                            path: path.to_owned(),
                            line: r.line,
                        },
                    );
                }
                None => dangling.push(Dangling {
                    from: g[from].id.clone(),
                    relation: r.relation.clone(),
                    to: r.target.clone(),
                    path: path.to_owned(),
                    line: r.line,
                }),
            }
        }
    }
    Graph { g, by_id, by_name, vocab, dangling, skipped: Vec::new() }
}

impl Graph {
    /// Finds an entity by id, or by a name or alias when exactly one entity has it.
    ///
    /// The forms a person may write (`entity:TYPE--SLUG`, the start of an id) and the errors
    /// for a miss are `cogmem_ops::id`'s, which calls this.
    pub fn resolve(&self, name: &str) -> Option<NodeIndex> {
        if let Some(&ix) = self.by_id.get(name) {
            return Some(ix);
        }
        match self.named(name).as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Returns the entity with this exact id.
    pub fn by_id(&self, id: &str) -> Option<NodeIndex> {
        self.by_id.get(id).copied()
    }

    /// Returns every entity id, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.by_id.keys().map(String::as_str)
    }

    /// Returns the entities that have `name` as a name or alias (ignoring case; `-` and `_`
    /// may stand for spaces), merged ones left out, ordered by id; empty when none has it.
    pub fn named(&self, name: &str) -> Vec<NodeIndex> {
        let lower = name.trim().to_lowercase();
        for key in [lower.clone(), lower.replace(['-', '_'], " ")] {
            let Some(found) = self.by_name.get(&key) else { continue };
            // A merged or superseded entity gives way to the one that holds now.
            let mut active: Vec<NodeIndex> =
                found.iter().copied().filter(|ix| self.g[*ix].status != "merged").collect();
            if !active.is_empty() {
                active.sort_by(|a, b| self.g[*a].id.cmp(&self.g[*b].id));
                active.dedup();
                return active;
            }
        }
        Vec::new()
    }

    /// The search index's copy of the graph (see [`cache`]).
    pub fn cache_text(&self) -> String {
        cache::text(self)
    }

    /// Returns a node.
    pub fn node(&self, ix: NodeIndex) -> &Node {
        &self.g[ix]
    }

    /// Edges touching a node (both directions) valid on `date`, as (edge, other end, outgoing).
    pub(crate) fn edges_of(
        &self,
        ix: NodeIndex,
        date: Option<&str>,
    ) -> Vec<(EdgeIndex, NodeIndex, bool)> {
        let mut out = Vec::new();
        for e in self.g.edges_directed(ix, Direction::Outgoing) {
            if e.weight().valid_on(date) {
                out.push((e.id(), e.target(), true));
            }
        }
        for e in self.g.edges_directed(ix, Direction::Incoming) {
            if e.weight().valid_on(date) {
                out.push((e.id(), e.source(), false));
            }
        }
        out
    }

    /// Spreads activation from seed entities: two hops, ×0.5 per hop, scaled by edge confidence
    /// and divided by the square root of the conducting node's degree so hubs do not flood.
    /// Superseded, inactive, merged and archived nodes neither pass nor receive activation.
    /// Returns activation per entity id (seeds at 1.0), strongest first.
    #[cfg(test)]
    pub(crate) fn activate(
        &self,
        seeds: &[String],
        archived: &HashSet<String>,
    ) -> Vec<(String, f64)> {
        let mut act: HashMap<NodeIndex, f64> = HashMap::new();
        let mut frontier: Vec<NodeIndex> = Vec::new();
        for s in seeds {
            if let Some(ix) = self.resolve(s).filter(|ix| self.conducts(*ix, archived)) {
                act.insert(ix, 1.0);
                frontier.push(ix);
            }
        }
        for _hop in 0..2 {
            let mut next: HashMap<NodeIndex, f64> = HashMap::new();
            for &ix in &frontier {
                let a = act[&ix];
                let edges = self.edges_of(ix, None);
                let fan = (edges.len().max(1) as f64).sqrt();
                for (e, other, _) in edges {
                    if !self.conducts(other, archived) {
                        continue;
                    }
                    let gain = a * 0.5 * self.g[e].confidence / fan;
                    let slot = next.entry(other).or_insert(0.0);
                    *slot = slot.max(gain);
                }
            }
            frontier.clear();
            for (ix, a) in next {
                let cur = act.entry(ix).or_insert(0.0);
                if a > *cur {
                    *cur = a;
                    frontier.push(ix);
                }
            }
        }
        let mut out: Vec<(String, f64)> = act
            .into_iter()
            .map(|(ix, a)| (self.g[ix].id.clone(), (a * 10_000.0).round() / 10_000.0))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// Tells whether a node is the redirect a merge left behind.
    pub fn is_merged(&self, ix: NodeIndex) -> bool {
        self.g[ix].status == "merged"
    }

    #[cfg(test)]
    fn conducts(&self, ix: NodeIndex, archived: &HashSet<String>) -> bool {
        self.g[ix].conducts() && !archived.contains(&format!("entity:{}", self.g[ix].id))
    }

    /// Entities within `depth` hops (either direction) valid on `date`, with their distance.
    pub fn neighbors(
        &self,
        ix: NodeIndex,
        depth: usize,
        date: Option<&str>,
    ) -> Vec<(NodeIndex, usize)> {
        let mut seen: HashMap<NodeIndex, usize> = HashMap::new();
        seen.insert(ix, 0);
        let mut queue = VecDeque::from([ix]);
        while let Some(n) = queue.pop_front() {
            let d = seen[&n];
            if d == depth {
                continue;
            }
            for (_, other, _) in self.edges_of(n, date) {
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(other) {
                    e.insert(d + 1);
                    queue.push_back(other);
                }
            }
        }
        let mut out: Vec<(NodeIndex, usize)> = seen.into_iter().filter(|(n, _)| *n != ix).collect();
        out.sort_by(|a, b| a.1.cmp(&b.1).then(self.g[a.0].id.cmp(&self.g[b.0].id)));
        out
    }

    /// The shortest path between two entities (either direction) over relations that hold now,
    /// as node indexes, through the nodes `passes` accepts only (it is asked about every node
    /// the search reaches, `b` included).
    pub fn path(
        &self,
        a: NodeIndex,
        b: NodeIndex,
        passes: impl Fn(NodeIndex) -> bool,
    ) -> Option<Vec<NodeIndex>> {
        let mut prev: HashMap<NodeIndex, NodeIndex> = HashMap::new();
        let mut queue = VecDeque::from([a]);
        let mut seen = HashSet::from([a]);
        while let Some(n) = queue.pop_front() {
            if n == b {
                let mut path = vec![b];
                let mut cur = b;
                while let Some(&p) = prev.get(&cur) {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for (_, other, _) in self.edges_of(n, None) {
                if passes(other) && seen.insert(other) {
                    prev.insert(other, n);
                    queue.push_back(other);
                }
            }
        }
        None
    }

    /// Nodes, current edges, weakly connected components, and the most connected entities.
    ///
    /// The redirects `graph merge` leaves behind are not entities any more: they are counted
    /// apart (`merged`) and left out of the nodes, components and hubs.
    pub fn stats(&self) -> Stats {
        let current = self.g.edge_weights().filter(|e| e.until.is_none()).count();
        let live: Vec<NodeIndex> =
            self.g.node_indices().filter(|ix| !self.is_merged(*ix)).collect();
        let mut sets = petgraph::unionfind::UnionFind::<usize>::new(self.g.node_count());
        for e in self.g.edge_references() {
            if !self.is_merged(e.source()) && !self.is_merged(e.target()) {
                sets.union(e.source().index(), e.target().index());
            }
        }
        let components =
            live.iter().map(|ix| sets.find(ix.index())).collect::<HashSet<usize>>().len();
        let mut hubs: Vec<(String, usize)> =
            live.iter().map(|&ix| (self.g[ix].id.clone(), self.edges_of(ix, None).len())).collect();
        hubs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hubs.truncate(5);
        Stats {
            nodes: live.len(),
            merged: self.g.node_count() - live.len(),
            edges: self.g.edge_count(),
            current_edges: current,
            components,
            hubs,
            dangling: self.dangling.len(),
        }
    }
}

/// Graph statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// Entities (merge redirects not included).
    pub nodes: usize,
    /// Redirects left by `graph merge`, counted apart from the entities.
    pub merged: usize,
    /// Relation bullets, closed ones included.
    pub edges: usize,
    /// Relations that hold now.
    pub current_edges: usize,
    /// Weakly connected components.
    pub components: usize,
    /// The most connected entities, with their number of current relations.
    pub hubs: Vec<(String, usize)>,
    /// Links to missing entities.
    pub dangling: usize,
}

/// The entity ids the registry table of a `memory/graph/index.md` lists (the first cell of
/// each row under `## Entity Registry`, as [`index_text`] renders it), for `verify`'s check
/// that the index follows the entity files.
pub fn listed_entities(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.trim_end() == "## Entity Registry";
            continue;
        }
        let Some(row) = line.strip_prefix('|').filter(|_| inside) else { continue };
        let cell = row.split('|').next().unwrap_or("").trim();
        if cell.is_empty() || cell == "ID" || cell.starts_with('-') {
            continue;
        }
        out.insert(cell.to_owned());
    }
    out
}

/// Entity files past which `memory/graph/index.md` counts them by type instead of listing every
/// entity and relation: each new entity would rewrite the whole table (5 MB at 10,000 entities,
/// 300 ms of a `remember` that names someone new), and no one reads a table that long.
pub const REGISTRY_MAX: usize = 1000;

/// The number of entity files of each type among these file stems (those that are entity ids).
pub fn kinds_of<'a>(stems: impl Iterator<Item = &'a str>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for stem in stems {
        if let Ok(id) = EntityId::parse(stem) {
            *counts.entry(id.kind().to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

/// The start of `graph/index.md` in a workspace of more than [`REGISTRY_MAX`] entity files, up to
/// the rows of its table.
const SUMMARY_HEAD: &str = "# Knowledge Graph Index\n\n<!-- Generated by cogmem from memory/graph/entities/ on every change to them. Edit the entity files, not this table. -->\n\n## Entities by Type\n\nMore than 1000 entity files: this table counts them by type instead of listing every entity and relation, which each new entity would rewrite whole. An entity is `entities/TYPE--SLUG.md`; `cogmem graph show ID` shows one with its relations, `cogmem graph stats` the most connected.\n\n| Type | Entity files |\n|------|--------------|\n";

/// `memory/graph/index.md` for a workspace of more than [`REGISTRY_MAX`] entity files: the
/// number of files of each type (forgotten entities' files included: a forget changes no
/// count), sorted by type.
pub fn summary_text(counts: &BTreeMap<String, usize>) -> String {
    let mut out = String::from(SUMMARY_HEAD);
    for (kind, n) in counts {
        out.push_str(&format!("| {} | {n} |\n", markdown::cell(kind)));
    }
    out
}

/// The counts of a `memory/graph/index.md` that [`summary_text`] wrote; `None` for any other
/// text (a registry table, a hand-edited or malformed summary).
pub fn summary_counts(text: &str) -> Option<BTreeMap<String, usize>> {
    let rows = text.strip_prefix(SUMMARY_HEAD)?;
    let mut counts = BTreeMap::new();
    for row in rows.lines() {
        let cells: Vec<&str> = row.strip_prefix("| ")?.strip_suffix(" |")?.split(" | ").collect();
        let [kind, n] = cells[..] else { return None };
        counts.insert(kind.to_owned(), n.parse().ok()?);
    }
    Some(counts)
}

/// The start of `graph/index.md`, up to the registry's rows.
const REGISTRY_HEAD: &str = "# Knowledge Graph Index\n\n<!-- Generated by cogmem from memory/graph/entities/ on every change to them. Edit the entity files, not this table. -->\n\n## Entity Registry\n\n| ID | Type | Label | File | Decay Score |\n|----|------|-------|------|-------------|\n";

/// Between the registry's rows and the edge rows.
const EDGES_HEAD: &str = "\n## Edges\n\n| From | Relation | To | Confidence | First Seen | Last Accessed |\n|------|----------|----|------------|------------|---------------|\n";

/// The type and label cells of an entity's registry row, with the border or status that follows
/// them (` person | anna smith |`, ` person | anna smith (`), as `registry_row` writes them:
/// the label is the entity's first name, which is its id's label. A purge cuts them out of
/// the rows history holds, where they name the entity apart from its id.
pub fn registry_label_forms(id: &cogmem_text::model::EntityId) -> Vec<String> {
    let cells = format!(" {} | {}", id.kind(), markdown::cell(&id.label()));
    vec![format!("{cells} |"), format!("{cells} (")]
}

/// A registry row: the entity `id` of type `kind`, its first name, status, file and score.
fn registry_row(node: &Node, scores: &BTreeMap<String, EntityScore>) -> String {
    let (score, pinned) =
        scores.get(&format!("entity:{}", node.id)).map_or((1.0, false), |s| (s.score, s.pinned));
    let label = markdown::cell(node.names.first().map_or("", String::as_str));
    let file = markdown::cell(node.path.trim_start_matches("memory/graph/"));
    let pin = if pinned { " (pinned)" } else { "" };
    let status = if node.status == "active" {
        String::new()
    } else {
        format!(" ({})", markdown::cell(&node.status))
    };
    format!("| {} | {} | {label}{status} | {file} | {score:.2}{pin} |\n", node.id, node.kind)
}

/// The edge row of `memory/graph/index.md` that the relation bullet `r` of the entity `from`
/// renders as, without its newline: what a forget of the one bullet takes out of the table
/// (and its restore puts back).
pub fn edge_row_of(from: &str, r: &RelationLine) -> String {
    let row = edge_row(
        from,
        &r.relation,
        &r.target,
        (r.since.as_deref(), r.until.as_deref(), r.confidence),
    );
    row.trim_end_matches('\n').to_owned()
}

/// An edge row: `from` → `to` by `relation`, with the bullet's dates and confidence.
fn edge_row(
    from: &str,
    relation: &str,
    to: &str,
    (since, until, confidence): (Option<&str>, Option<&str>, f64),
) -> String {
    let since = since.map_or_else(|| "—".into(), markdown::cell);
    let until = until.map_or(String::new(), |u| format!(" (until {})", markdown::cell(u)));
    format!(
        "| {from} | {}{until} | {to} | {confidence:.1} | {since} | — |\n",
        markdown::cell(relation)
    )
}

type EntityScore = cogmem_store::store::decay_file::EntityScore;

/// Renders `graph/index.md` from the graph: the entity registry and the edge table. Every
/// value read from an entity file (a label, a status, a date of a relation bullet) is one
/// [`markdown::cell`], so a hand edit or a peer's file cannot add a row or a column.
pub(crate) fn render_index(g: &Graph, scores: &BTreeMap<String, EntityScore>) -> String {
    let mut out = String::from(REGISTRY_HEAD);
    // Forgotten entities keep their files but leave the index (and so do their edges).
    let forgotten = |id: &str| scores.get(&format!("entity:{id}")).is_some_and(|s| s.forgotten);
    let mut nodes: Vec<&Node> = g.g.node_weights().filter(|n| !forgotten(&n.id)).collect();
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    for n in &nodes {
        out.push_str(&registry_row(n, scores));
    }
    out.push_str(EDGES_HEAD);
    let mut edges: Vec<(String, String, String, &Edge)> =
        g.g.edge_references()
            .filter(|e| !forgotten(&g.g[e.source()].id) && !forgotten(&g.g[e.target()].id))
            .map(|e| {
                (
                    g.g[e.source()].id.clone(),
                    e.weight().relation.clone(),
                    g.g[e.target()].id.clone(),
                    e.weight(),
                )
            })
            .collect();
    edges.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    for (from, rel, to, e) in edges {
        out.push_str(&edge_row(
            &from,
            &rel,
            &to,
            (e.since.as_deref(), e.until.as_deref(), e.confidence),
        ));
    }
    out
}

/// `graph/index.md` after a change that only creates entity files, from the index as it was
/// (`old`, which must be what [`index_text`] gave for the files and scores before the change)
/// without reading every entity file: rows for the new entities, their relations, and the
/// relations of existing entities that now reach them (links that dangled until now) are
/// merged into the old rows in their sorted places (issue 20: a `remember` that named a new
/// person regenerated a 5 MB table from 10,000 files).
///
/// `new` are the created files (path, text) in the order the change holds them; `mentioning`
/// the existing entity files (sorted by path) that name a new entity in a `[[…]]` link, every
/// one of them; `scores` the decay entries of the new entities (`entity:ID`). `None` when the
/// old text is not in the layout [`index_text`] writes or holds an escaped cell (then the
/// caller renders the whole table).
pub fn index_with_new_entities(
    old: &str,
    new: &[(String, String)],
    mentioning: &[(String, String)],
    scores: &BTreeMap<String, EntityScore>,
) -> Option<String> {
    if old.contains('\\') {
        return None;
    }
    let body = old.strip_prefix(REGISTRY_HEAD)?;
    let split = body.find(EDGES_HEAD)?;
    let (registry, edges) = (&body[..split], &body[split + EDGES_HEAD.len()..]);
    fn rows(text: &str) -> Option<Vec<&str>> {
        text.split_inclusive('\n')
            .map(|l| (l.starts_with("| ") && l.ends_with(" |\n")).then_some(l))
            .collect()
    }
    // A row's cells (no cell holds `|`: escaped cells were refused above).
    fn cells(row: &str) -> impl Iterator<Item = &str> {
        row.trim_end().trim_matches('|').split('|').map(str::trim)
    }
    let (registry, edges) = (rows(registry)?, rows(edges)?);
    let listed: HashSet<&str> = registry.iter().filter_map(|r| cells(r).next()).collect();
    // The new entities that will be listed (a forgotten one's id keeps its entry).
    let mut nodes: Vec<Node> = Vec::new();
    for (rel, text) in new {
        let stem = cogmem_store::store::units::md_stem(rel);
        let id = EntityId::parse(stem).ok()?;
        if listed.contains(id.as_str()) {
            return None;
        }
        let forgotten = scores.get(&format!("entity:{id}")).is_some_and(|s| s.forgotten);
        if !forgotten {
            nodes.push(Node {
                id: id.to_string(),
                kind: id.kind().to_owned(),
                names: entity::names(&id, text),
                status: entity::status(text),
                path: rel.clone(),
            });
        }
    }
    let added: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    let exists = |id: &str| listed.contains(id) || added.contains(id);
    // New edge rows, in the order a full rendering inserts them: the existing files (sorted),
    // then the new ones; sorted stably below, as it sorts them.
    let mut new_edges: Vec<(String, String, String, String)> = Vec::new();
    let mut add_edges = |from: &str, text: &str, only_to_new: bool| {
        for r in entity::relations(text) {
            if !exists(&r.target) || (only_to_new && !added.contains(r.target.as_str())) {
                continue;
            }
            let dates = (r.since.as_deref(), r.until.as_deref(), r.confidence);
            let row = edge_row(from, &r.relation, &r.target, dates);
            new_edges.push((from.to_owned(), r.relation, r.target, row));
        }
    };
    for (rel, text) in mentioning {
        if let Ok(id) = EntityId::parse(cogmem_store::store::units::md_stem(rel))
            && listed.contains(id.as_str())
        {
            add_edges(id.as_str(), text, true);
        }
    }
    for (rel, text) in new {
        let stem = cogmem_store::store::units::md_stem(rel);
        if added.contains(stem) {
            add_edges(stem, text, false);
        }
    }
    new_edges.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    // Merge: the old rows are sorted; no old row has a new entity at either end.
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out = String::from(REGISTRY_HEAD);
    let mut fresh = nodes.iter().peekable();
    for row in &registry {
        let id = cells(row).next().unwrap_or_default();
        while let Some(n) = fresh.next_if(|n| n.id.as_str() < id) {
            out.push_str(&registry_row(n, scores));
        }
        out.push_str(row);
    }
    for n in fresh {
        out.push_str(&registry_row(n, scores));
    }
    out.push_str(EDGES_HEAD);
    let mut fresh = new_edges.into_iter().peekable();
    for row in &edges {
        let mut c = cells(row);
        let (from, rel, to) = (c.next()?, c.next()?.split(" (until ").next()?, c.next()?);
        while let Some((.., r)) =
            fresh.next_if(|(f, rl, t, _)| (f.as_str(), rl.as_str(), t.as_str()) < (from, rel, to))
        {
            out.push_str(&r);
        }
        out.push_str(row);
    }
    for (.., r) in fresh {
        out.push_str(&r);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 20
    /// The graph built from the facts the index keeps gives the same graph cache and names as
    /// the graph built from the files: dangling links, closed relations, confidences, a file
    /// whose name is no id, two files of one id (the later takes it), the vocabulary's inverses.
    #[test]
    fn the_graph_of_kept_facts_caches_as_the_graph_of_the_files() {
        let entity = |title: &str, status: &str, rows: &[&str]| {
            let rows: String = rows.iter().map(|r| format!("- {r}\n")).collect();
            format!(
                "# {title}\n<!-- Type: person | Status: {status} -->\n\n## Facts\n\n- a fact\n\n## Relations\n\n{rows}"
            )
        };
        let dir = "memory/graph/entities";
        let mut files: Vec<(String, String)> = [
            ("notes.md", entity("Notes", "active", &["knows: [[person--ann]]"])),
            (
                "person--ann.md",
                entity(
                    "Ann",
                    "active",
                    &[
                        "knows: [[person--bo]] (confidence 0.4)",
                        "works-on: [[project--atlas]] (since 2026-01-01)",
                        "knows: [[person--nobody]]",
                    ],
                ),
            ),
            (
                "person--bo.md",
                entity(
                    "Bo",
                    "inactive",
                    &[
                        "knows: [[person--ann]] (until 2026-02-01)",
                        "mentors: [[ person--ann | Ann ]]",
                    ],
                ),
            ),
            ("person--bo .md", entity("Bo again", "active", &["knows: [[project--atlas]]"])),
            (
                "project--atlas.md",
                entity("Atlas", "active", &["worked-on-by: [[person--ann]] (since 2026-01-01)"]),
            ),
        ]
        .into_iter()
        .map(|(name, text)| (format!("{dir}/{name}"), text))
        .collect();
        // In the order of their paths, as the entity folder is read.
        files.sort();
        let vocab = || {
            Vocabulary::parse("| relation | inverse |\n|---|---|\n| works-on | worked-on-by |\n")
        };
        let of_files = from_files(&files, vocab());
        let kept: facts::Facts = files
            .iter()
            .filter_map(|(rel, text)| {
                Some((rel.clone(), facts::without_lines(EntityFacts::of(rel, text)?)))
            })
            .collect();
        let of_kept =
            from_facts(kept.iter().map(|(rel, f)| (rel.as_str(), f)), kept.len(), vocab());
        assert_eq!(of_kept.cache_text(), of_files.cache_text());
        assert_eq!(names::text(&of_kept), names::text(&of_files));
        assert!(of_files.cache_text().contains("person--bo"), "{}", of_files.cache_text());
    }

    // See: issue 20
    /// The counts by type read back as written; any other text (a table, an edited count, an
    /// extra cell) is not a summary; the kinds are counted from entity ids only.
    #[test]
    fn summary_counts_round_trip_and_nothing_else_is_a_summary() {
        let stems = ["person--ann", "person--bob", "place--rome", "not an id", "tool--git"];
        let counts = kinds_of(stems.into_iter());
        assert_eq!(counts.values().sum::<usize>(), 4);
        let text = summary_text(&counts);
        assert_eq!(summary_counts(&text), Some(counts.clone()));
        assert!(text.contains("| person | 2 |\n| place | 1 |\n| tool | 1 |\n"), "{text}");
        assert_eq!(listed_entities(&text).len(), 0);
        for bad in [
            text.replace("| 2 |", "| two |"),
            text.replace("| 2 |", "| 2 | 3 |"),
            text.replacen("## Entities by Type", "## Entities", 1),
            format!("{text}trailing words\n"),
            render_index(&from_files(&[], Vocabulary::parse("")), &BTreeMap::new()),
        ] {
            assert_eq!(summary_counts(&bad), None, "{bad}");
        }
    }

    // See: issue 16
    /// A status, a date or a relation label from a hand-edited or a peer's entity file cannot
    /// add a row, a column, a heading or a comment to `graph/index.md`.
    #[test]
    fn issue_16_index_cells_are_data_never_syntax() {
        let hostile = [
            "a | b",
            "x\n| evil--row | person | evil | entities/evil.md | 1.00 |",
            "<!-- open",
            "close -->",
            "\r\n## Heading",
            "\u{2028}|\u{0}|",
            "---",
        ];
        for h in hostile {
            let yaml = h
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\r', "\\r")
                .replace('\u{0}', "\\0")
                .replace('\u{2028}', "\\L");
            let alice = format!(
                "---\nstatus: \"{yaml}\"\n---\n# person--alice\n\n## Relations\n- knows: [[person--bob]] (since {h}) (until {h})\n"
            );
            let files = vec![
                ("memory/graph/entities/person--alice.md".to_owned(), alice),
                ("memory/graph/entities/person--bob.md".to_owned(), "# person--bob\n".to_owned()),
            ];
            let g = from_files(&files, Vocabulary::parse(""));
            let text = render_index(&g, &BTreeMap::new());
            let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
            // Two headers, two separators, two entities, one edge.
            assert_eq!(rows.len(), 7, "input: {h:?}\n{text}");
            let (registry, edges) = text.split_once("## Edges").expect("two tables");
            for (table, want) in [(registry, 5), (edges, 6)] {
                for row in table.lines().filter(|l| l.starts_with('|')) {
                    let cells = row.trim_matches('|').split('|').count();
                    assert_eq!(cells, want, "input: {h:?}: {row}");
                }
            }
            assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), 3, "input: {h:?}");
            assert_eq!(text.matches("<!--").count(), 1, "input: {h:?}");
            assert_eq!(text.matches("-->").count(), 1, "input: {h:?}");
            assert!(!text.contains('\u{0}') && !text.contains('\r'), "input: {h:?}");
            // `verify`'s graph check reads back exactly the two entities (issue 17).
            let listed: Vec<String> = listed_entities(&text).into_iter().collect();
            assert_eq!(listed, ["person--alice", "person--bob"], "input: {h:?}\n{text}");
        }
    }

    #[test]
    fn index_rows_are_matched_by_entity() {
        let cases = [
            ("| person--alice | person | alice | entities/person--alice.md | 1.00 |", true),
            ("| person--bob | works-with | person--alice | 1.0 | 2026-01-01 | 2026-01-01 |", true),
            ("| person--bob | works-with | person--carol | 1.0 | 2026-01-01 | 2026-01-01 |", false),
            ("| person--bob | x | person--alice |", false),
            ("person--alice", false),
        ];
        for (line, want) in cases {
            assert_eq!(index_row_names(line, "person--alice"), want, "line: {line:?}");
        }
    }

    fn file(id: &str, rels: &[(&str, &str)]) -> (String, String) {
        let mut text = format!("# {id}\n<!-- Type: x | Created: 2026-01-01 -->\n\n## Relations\n");
        for (r, t) in rels {
            text.push_str(&format!("- {r}: [[{t}]]\n"));
        }
        (format!("memory/graph/entities/{id}.md"), text)
    }

    /// a — b — c — d, and a hub h linked to a and to five leaves.
    #[test]
    fn activation_halves_per_hop_and_hubs_are_damped() {
        let files = vec![
            file("concept--a", &[("relates-to", "concept--b"), ("relates-to", "concept--h")]),
            file("concept--b", &[("relates-to", "concept--c")]),
            file("concept--c", &[("relates-to", "concept--d")]),
            file("concept--d", &[]),
            file(
                "concept--h",
                &[
                    ("relates-to", "concept--l1"),
                    ("relates-to", "concept--l2"),
                    ("relates-to", "concept--l3"),
                    ("relates-to", "concept--l4"),
                    ("relates-to", "concept--l5"),
                ],
            ),
            file("concept--l1", &[]),
            file("concept--l2", &[]),
            file("concept--l3", &[]),
            file("concept--l4", &[]),
            file("concept--l5", &[]),
        ];
        let g = from_files(&files, Vocabulary::default());
        let act: HashMap<String, f64> =
            g.activate(&["concept--a".into()], &HashSet::new()).into_iter().collect();
        // a has two relations: each neighbour gets 1 × 0.5 / √2.
        let one_hop = 0.5 / 2f64.sqrt();
        assert!((act["concept--a"] - 1.0).abs() < 1e-9);
        assert!((act["concept--b"] - one_hop).abs() < 1e-3, "{act:?}");
        // b has two relations (a, c): c gets one_hop × 0.5 / √2.
        assert!((act["concept--c"] - one_hop * 0.5 / 2f64.sqrt()).abs() < 1e-3, "{act:?}");
        // The hub has six relations: each leaf gets one_hop × 0.5 / √6, far less than c.
        assert!((act["concept--l1"] - one_hop * 0.5 / 6f64.sqrt()).abs() < 1e-3, "{act:?}");
        assert!(act["concept--l1"] < act["concept--c"]);
        assert!(!act.contains_key("concept--d"), "two hops at most");
        // The search index's line-per-entity cache spreads exactly the same activation, from
        // any seeds.
        let cached = cache::GraphCache::new(g.cache_text());
        let all: Vec<&str> = files
            .iter()
            .filter_map(|(p, _)| p.strip_prefix("memory/graph/entities/")?.strip_suffix(".md"))
            .collect();
        for seeds in [vec!["concept--a"], vec!["concept--h", "concept--c"], vec!["concept--zz"]] {
            let seeds: Vec<String> = seeds.into_iter().map(str::to_owned).collect();
            let direct: HashMap<String, f64> =
                g.activate(&seeds, &HashSet::new()).into_iter().collect();
            assert_eq!(cached.activation_of(&seeds, &all), direct, "seeds {seeds:?}");
            // One target at a time: the edges are then read from the targets' side.
            for t in &all {
                let one: HashMap<String, f64> =
                    direct.iter().filter(|(k, _)| k == t).map(|(k, v)| (k.clone(), *v)).collect();
                assert_eq!(cached.activation_of(&seeds, &[t]), one, "seeds {seeds:?}, {t}");
            }
        }
        // Read from its file, edge line by edge line (as a large cache is), the same again.
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("graph.tsv");
        cogmem_store::store::fsx::write_atomic(&path, g.cache_text().as_bytes()).expect("written");
        let from_file = cache::GraphCache::open_file(&path).expect("opens");
        for seeds in [vec!["concept--a"], vec!["concept--h", "concept--c"], vec!["concept--zz"]] {
            let seeds: Vec<String> = seeds.into_iter().map(str::to_owned).collect();
            assert_eq!(
                from_file.activation_of(&seeds, &all),
                cached.activation_of(&seeds, &all),
                "seeds {seeds:?}"
            );
        }
    }

    #[test]
    fn superseded_nodes_do_not_conduct() {
        let mut files = vec![
            file("concept--a", &[("relates-to", "concept--b")]),
            file("concept--b", &[("relates-to", "concept--c")]),
            file("concept--c", &[]),
        ];
        files[1].1 =
            files[1].1.replace("Created: 2026-01-01", "Created: 2026-01-01 | Status: superseded");
        let g = from_files(&files, Vocabulary::default());
        let act: HashMap<String, f64> =
            g.activate(&["concept--a".into()], &HashSet::new()).into_iter().collect();
        assert!(!act.contains_key("concept--b") && !act.contains_key("concept--c"), "{act:?}");
        let cached = cache::GraphCache::new(g.cache_text());
        let all: Vec<&str> = files
            .iter()
            .filter_map(|(p, _)| p.strip_prefix("memory/graph/entities/")?.strip_suffix(".md"))
            .collect();
        assert_eq!(cached.activation_of(&["concept--a".into()], &all), act);
    }
}
