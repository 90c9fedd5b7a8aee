//! The graph as the search index keeps it: one line per entity, sorted by id, with its status,
//! and a line of its current edges in both directions. A search looks up only the lines that spreading
//! activation visits (binary search), so its cost grows with the neighbourhood of the hits,
//! not with the size of the graph.
//!
//! Format: a header `#cogmem-graph-cache 4`, `#nodes BYTES`, then the node lines sorted by id
//! (`id TAB status TAB offset TAB degree`, BYTES in all), then one edge line per node at that offset after
//! the node lines (`other SPACE confidence`, tab-separated, both directions). Node lines are short
//! and alike, so a binary search over their bytes stays cheap even when a hub has thousands of
//! edges. Closed edges (with `until`) are left out: activation only flows along what holds now.

use std::collections::HashMap;

use petgraph::Direction;
use petgraph::visit::EdgeRef;

use super::Graph;

const HEADER: &str = "#cogmem-graph-cache 4";

/// Writes the cache text for a graph (all its nodes in one text).
pub(crate) fn text(g: &Graph) -> String {
    texts(g, 1).pop().unwrap_or_default()
}

/// The cache texts of a graph split into `count` shards by id ([`super::shards`]).
pub(crate) fn texts(g: &Graph, count: usize) -> Vec<String> {
    // (id, status, edge line); written into buffers, not formatted piece by piece (a refresh
    // after a change to an entity writes every line: 100,000 edge ends at 10,000 entities,
    // issue 20).
    let mut shards: Vec<Vec<(&str, &str, String, usize)>> = vec![Vec::new(); count.max(1)];
    for ix in g.g.node_indices() {
        let n = &g.g[ix];
        if !is_cached_id(&n.id) {
            continue;
        }
        let mut edges = String::new();
        let mut degree = 0;
        for dir in [Direction::Outgoing, Direction::Incoming] {
            for e in g.g.edges_directed(ix, dir) {
                if !e.weight().valid_on(None) {
                    continue;
                }
                let other = if dir == Direction::Outgoing { e.target() } else { e.source() };
                if degree > 0 {
                    edges.push('\t');
                }
                degree += 1;
                edges.push_str(&g.g[other].id);
                edges.push(' ');
                push_confidence(&mut edges, e.weight().confidence);
            }
        }
        let shard = super::shards::shard_of(&n.id, count);
        shards[shard].push((&n.id, &n.status, edges, degree));
    }
    shards
        .into_iter()
        .map(|mut nodes| {
            nodes.sort_unstable_by(|a, b| a.0.cmp(b.0));
            text_of(
                nodes
                    .iter()
                    .map(|(id, status, edges, degree)| (*id, *status, edges.as_str(), *degree)),
            )
        })
        .collect()
}

/// Whether the cache has a line for an entity of this id (an id holding a tab, a line break
/// or a space has none).
pub(crate) fn is_cached_id(id: &str) -> bool {
    !id.contains(['\t', '\n', ' '])
}

/// How many nodes the cache of a graph holds.
pub(crate) fn node_count(g: &Graph) -> usize {
    g.g.node_weights().filter(|n| is_cached_id(&n.id)).count()
}

/// Writes an edge's confidence as an edge line holds it.
pub(crate) fn push_confidence(out: &mut String, confidence: f64) {
    use std::fmt::Write as _;
    if confidence == 1.0 {
        out.push('1'); // what `Display` writes for it, the common case
    } else {
        let _ = write!(out, "{confidence}");
    }
}

/// The cache text of nodes (id, status, edge line, degree), sorted by id.
pub(crate) fn text_of<'a>(
    nodes: impl Iterator<Item = (&'a str, &'a str, &'a str, usize)>,
) -> String {
    use std::fmt::Write as _;
    let (count, _) = nodes.size_hint();
    let mut node_lines = String::with_capacity(count * 40);
    let mut edge_lines = String::with_capacity(count * 160);
    for (id, status, edges, degree) in nodes {
        let _ = writeln!(node_lines, "{id}\t{status}\t{}\t{degree}", edge_lines.len());
        edge_lines.push_str(edges);
        edge_lines.push('\n');
    }
    let mut out = String::with_capacity(HEADER.len() + 32 + node_lines.len() + edge_lines.len());
    let _ = write!(out, "{HEADER}\n#nodes {}\n", node_lines.len());
    out.push_str(&node_lines);
    out.push_str(&edge_lines);
    out
}

/// Whether cache text is in this build's format (its first line).
pub(crate) fn is_text_current(text: &str) -> bool {
    text.strip_prefix(HEADER).is_some_and(|rest| rest.starts_with('\n'))
}

/// A loaded cache: the text, searched in place, in one part or in the shards of an index
/// folder (`graph/shards.rs`), each shard read when a lookup first needs it. A large part keeps
/// only its header and node lines in memory and reads each edge line it needs from the file
/// (issue 20: 27 MB at a million memories, of which a search reads a hundred lines).
pub struct GraphCache {
    parts: Vec<std::cell::OnceCell<Option<Part>>>,
    /// Where the parts are read from, when they are shards.
    shards: Option<super::shards::Shards>,
}

/// One cache text: a whole cache or a shard's.
struct Part {
    text: String,
    /// Byte ranges of the sorted node lines and of the edge lines.
    nodes: (usize, usize),
    edges: usize,
    /// The file the edge lines are read from, when they are not in `text`.
    file: Option<crate::index::line_file::LineFile>,
}

impl GraphCache {
    /// Wraps cache text; text in another format gives an empty cache (no activation).
    pub fn new(text: String) -> Self {
        Self::of_part(Part::new(text))
    }

    fn of_part(part: Part) -> Self {
        Self { parts: vec![std::cell::OnceCell::from(Some(part))], shards: None }
    }

    /// The cache of an index folder, its shards read as lookups need them; `None` when the
    /// folder has no shard set to trust.
    pub(crate) fn open(index_dir: &std::path::Path) -> Option<Self> {
        let shards = super::shards::Shards::open(index_dir)?;
        let parts = (0..shards.meta.count).map(|_| std::cell::OnceCell::new()).collect();
        Some(Self { parts, shards: Some(shards) })
    }

    /// One cache file read edge line by edge line, as a large shard is.
    #[cfg(test)]
    pub(crate) fn open_file(path: &std::path::Path) -> Option<Self> {
        Part::open_file(path).map(Self::of_part)
    }

    /// The part holding an entity's line, read if it was not yet.
    fn part_of(&self, id: &str) -> Option<(usize, &Part)> {
        let n = self.shards.as_ref().map_or(0, |s| s.of(id));
        let part = self.parts.get(n)?.get_or_init(|| {
            let shards = self.shards.as_ref()?;
            Part::load(&shards.paths(n).cache)
        });
        Some((n, part.as_ref()?))
    }

    /// The node line of an entity, by binary search in its part.
    fn node(&self, id: &str) -> Option<NodeLine<'_>> {
        let (part, p) = self.part_of(id)?;
        p.node(id, part)
    }

    /// The current edges of a node: (other entity, confidence).
    fn edges(&self, node: &NodeLine<'_>) -> Vec<(String, f64)> {
        match self.parts.get(node.part).and_then(|p| p.get()).and_then(Option::as_ref) {
            Some(p) => p.edges(node.offset),
            None => Vec::new(),
        }
    }

    /// The activation of each of `targets`, as `Graph::activate` (the reference implementation,
    /// built for the tests) would spread it from `seeds` with no archived set (two hops, ×0.5 per hop, × edge confidence, ÷ √degree of the
    /// conducting node; only active entities pass or receive it), without spreading it
    /// anywhere else: the seeds' neighbours are scored, then each target's own edges are
    /// checked against them. Targets that receive nothing are left out.
    pub fn activation_of(&self, seeds: &[String], targets: &[&str]) -> HashMap<String, f64> {
        // Hop 0: the seeds that conduct.
        let mut seed_set: HashMap<&str, ()> = HashMap::new();
        let mut conducting: Vec<NodeLine<'_>> = Vec::new();
        for s in seeds {
            if let Some(n) = self.node(s).filter(|n| n.active)
                && seed_set.insert(n.id, ()).is_none()
            {
                conducting.push(n);
            }
        }
        // Hop 1: every neighbour of a seed, with its best gain. Whether it conducts (is active)
        // and its degree are looked up only for the neighbours a target's edges reach: a seed
        // with thousands of neighbours (the user, at 100,000 memories) cost a node lookup for
        // each of them, 4 ms of a hook's prompt (issue 20).
        let mut first: HashMap<String, f64> = HashMap::new();
        for n in &conducting {
            let fan = (n.degree.max(1) as f64).sqrt();
            for (other, conf) in self.edges(n) {
                if seed_set.contains_key(other.as_str()) {
                    continue; // a seed already holds 1.0
                }
                let gain = 0.5 * conf / fan;
                let slot = first.entry(other).or_insert(gain);
                *slot = slot.max(gain);
            }
        }
        // The degree of a hop-1 neighbour that conducts, `None` when it does not.
        let mut conducts: HashMap<String, Option<usize>> = HashMap::new();
        let mut degree_of = |id: &str| -> Option<usize> {
            if let Some(d) = conducts.get(id) {
                return *d;
            }
            let d = self.node(id).filter(|m| m.active).map(|m| m.degree);
            conducts.insert(id.to_owned(), d);
            d
        };
        // Hop 2. An edge is listed on both of its ends' lines, with the same confidence, so it
        // can be read from either side: from the hop-1 neighbours' lines when they are fewer
        // than the targets, else from the targets' own. A line can be long (a hub at 100,000
        // memories has thousands of edges), so the fewer lines read the better (issue 20).
        let distinct: std::collections::HashSet<&str> = targets.iter().copied().collect();
        let forward = first.len() <= distinct.len();
        let mut passed: HashMap<String, f64> = HashMap::new();
        if forward {
            for (f, a) in &first {
                let Some(n) = self.node(f).filter(|n| n.active) else { continue };
                let fan = (n.degree.max(1) as f64).sqrt();
                for (other, conf) in self.edges(&n) {
                    if distinct.contains(other.as_str()) {
                        let gain = a * 0.5 * conf / fan;
                        let slot = passed.entry(other).or_insert(gain);
                        *slot = slot.max(gain);
                    }
                }
            }
        }
        let mut out = HashMap::new();
        for &t in targets {
            if out.contains_key(t) {
                continue;
            }
            let mut best = if seed_set.contains_key(t) { 1.0 } else { 0.0 };
            if best < 1.0 {
                let Some(node) = self.node(t).filter(|n| n.active) else { continue };
                if let Some(a) = first.get(t) {
                    best = *a;
                }
                if forward {
                    best = best.max(passed.get(t).copied().unwrap_or(0.0));
                } else {
                    for (other, conf) in self.edges(&node) {
                        if let Some(a) = first.get(other.as_str())
                            && let Some(degree) = degree_of(&other)
                        {
                            best = best.max(a * 0.5 * conf / (degree.max(1) as f64).sqrt());
                        }
                    }
                }
            }
            if best > 0.0 {
                out.insert(t.to_owned(), (best * 10_000.0).round() / 10_000.0);
            }
        }
        out
    }
}

impl Part {
    fn new(text: String) -> Self {
        let parsed = (|| {
            let rest = text.strip_prefix(HEADER)?.strip_prefix('\n')?.strip_prefix("#nodes ")?;
            let end = rest.find('\n')?;
            let len: usize = rest[..end].parse().ok()?;
            let start = text.len() - rest.len() + end + 1;
            (start + len <= text.len()).then_some((start, start + len))
        })();
        let (nodes, edges) = match parsed {
            Some((a, b)) => ((a, b), b),
            None => ((0, 0), text.len()),
        };
        Self { text, nodes, edges, file: None }
    }

    fn load(path: &std::path::Path) -> Option<Self> {
        use crate::index::line_file::READ_WHOLE;
        let size = std::fs::metadata(path).ok()?.len();
        if size <= READ_WHOLE {
            // Derived, written by cogmem itself: the default bound is enough.
            let text = cogmem_store::store::fsx::read_text_if_exists(
                path,
                cogmem_store::store::fsx::DEFAULT_FILE_LIMIT,
            )
            .ok()??;
            return Some(Self::new(text));
        }
        Self::open_file(path)
    }

    fn open_file(path: &std::path::Path) -> Option<Self> {
        use crate::index::line_file::LineFile;
        let file = LineFile::open(path, 0)?;
        let size = std::fs::metadata(path).ok()?.len();
        let header = file.line_at(0)?;
        let count = file.line_at(header.len() as u64 + 1)?;
        let head = header.len() + 1 + count.len() + 1;
        let len: usize = count.strip_prefix("#nodes ").and_then(|n| n.parse().ok()).unwrap_or(0);
        let len = len.min(usize::try_from(size).unwrap_or(usize::MAX).saturating_sub(head));
        let bytes = file.read_at(0, head + len)?;
        let mut part = Self::new(String::from_utf8(bytes).ok()?);
        if part.nodes == (0, 0) {
            return Some(part); // another format: no activation
        }
        part.file = Some(file);
        Some(part)
    }

    fn node(&self, id: &str, part: usize) -> Option<NodeLine<'_>> {
        let mut f = find_line(&self.text, self.nodes, id)?.split('\t');
        let key = f.next().unwrap_or("");
        let active = f.next() == Some("active");
        let offset = f.next().and_then(|o| o.parse().ok()).unwrap_or(usize::MAX);
        let degree = f.next().and_then(|o| o.parse().ok()).unwrap_or(0);
        Some(NodeLine { id: key, active, offset, degree, part })
    }

    fn edges(&self, offset: usize) -> Vec<(String, f64)> {
        let Some(start) = self.edges.checked_add(offset) else { return Vec::new() };
        let line = match &self.file {
            Some(f) => match f.line_at(start as u64) {
                Some(line) => std::borrow::Cow::Owned(line),
                None => return Vec::new(),
            },
            None => {
                let Some(rest) = self.text.get(start..) else { return Vec::new() };
                std::borrow::Cow::Borrowed(&rest[..rest.find('\n').unwrap_or(rest.len())])
            }
        };
        line.split('\t')
            .filter_map(|e| {
                let (other, conf) = e.split_once(' ')?;
                Some((other.to_owned(), conf.parse().unwrap_or(1.0)))
            })
            .collect()
    }
}

/// The line whose first tab-separated field is `key`, by binary search over the bytes
/// `range` of `text`, which hold lines sorted by that field. Each probe reads only the line
/// around its midpoint, so nothing is parsed ahead of time. Shared with the decay cache.
pub(crate) fn find_line<'a>(text: &'a str, range: (usize, usize), key: &str) -> Option<&'a str> {
    let text = &text[..range.1];
    let at = first_key_not_below(text, range.0, key);
    let line = text[at..].split('\n').next().unwrap_or("");
    (!line.is_empty() && line_key(line) == key).then_some(line)
}

/// A line's key: its first tab-separated field.
pub(crate) fn line_key(line: &str) -> &str {
    line.split('\t').next().unwrap_or("")
}

/// [`first_line_not_below`] for lines sorted by their key ([`line_key`]): the start of the
/// first line of `text[from..]` whose key is not below `key`.
pub(crate) fn first_key_not_below(text: &str, from: usize, key: &str) -> usize {
    first_line_not_below(text, from, |line| line_key(line) < key)
}

/// The start of the first line of `text[from..]` (lines sorted; `from` a line's start) that
/// `below` says is not below what is looked for: where a line goes, or the line looked for
/// starts; the end of `text` when there is none.
pub(crate) fn first_line_not_below(
    text: &str,
    from: usize,
    mut below: impl FnMut(&str) -> bool,
) -> usize {
    let t = text.as_bytes();
    let (mut lo, mut hi) = (from, text.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = memchr::memrchr(b'\n', &t[lo..mid]).map_or(lo, |p| lo + p + 1);
        let end = memchr::memchr(b'\n', &t[start..hi]).map_or(hi, |p| start + p);
        if below(&text[start..end]) {
            lo = end + 1;
        } else {
            hi = start;
        }
    }
    lo.min(text.len())
}

/// A node line, parsed.
#[derive(Clone, Copy)]
struct NodeLine<'a> {
    id: &'a str,
    active: bool,
    offset: usize,
    degree: usize,
    /// The part the line is in.
    part: usize,
}
