//! The graph as a picture: the nodes and edges a viewer draws (the web view's `/graph`), at a
//! date, filtered by type and relation, around a focus entity, with a level of detail that
//! keeps it drawable at 10,000 entities; and the activation a selected entity spreads.
//!
//! Level of detail: when more entities match than `limit` and nothing narrows the view (no
//! focus, no type), the view is one cluster per entity type, with its count and the relations
//! between types; the viewer expands a cluster by asking again with that type. A type or a
//! neighbourhood still larger than `limit` keeps its `limit` best-connected entities (nearest
//! first around a focus) and says how many it left out. Read-only.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::id;
use cogmem_index::graph::cache::GraphCache;
use cogmem_index::graph::{self, Graph};
use cogmem_store::workspace::Workspace;

/// The number of entities a view draws by default before it turns to clusters.
pub const DEFAULT_LIMIT: usize = 400;

/// The deepest neighbourhood a view draws around its focus.
pub const MAX_DEPTH: usize = 4;

/// What to draw.
#[derive(Debug, Clone, Default)]
pub struct ViewOptions {
    /// The date to draw the relations of, as the user wrote it (`--as-of`'s forms); `None`
    /// for now.
    pub as_of: Option<String>,
    /// Entity types to keep (all when empty).
    pub kinds: Vec<String>,
    /// Relations to keep (all when empty).
    pub relations: Vec<String>,
    /// The entity to draw the neighbourhood of (an id, a name, an alias, the start of an id).
    pub focus: Option<String>,
    /// Hops around the focus (1 when 0; at most [`MAX_DEPTH`]).
    pub depth: usize,
    /// Entities to draw at most ([`DEFAULT_LIMIT`] when 0).
    pub limit: usize,
}

/// An entity as the viewer draws it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ViewNode {
    /// Its id (`TYPE--SLUG`).
    pub id: String,
    /// Its type.
    pub kind: String,
    /// The name to print on it.
    pub label: String,
    /// Its relations drawn at this date and under the relation filter (both directions, each
    /// relation once).
    pub degree: usize,
    /// `active`, `superseded` or `inactive`, as its file says now.
    pub status: String,
    /// Whether it held at the date drawn: active, or superseded only after that date.
    pub current: bool,
    /// Hops from the focus, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<usize>,
}

/// A relation as the viewer draws it: once, though its inverse is written in the other
/// entity's file too.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ViewEdge {
    /// The entity whose file holds the bullet.
    pub from: String,
    /// The entity it points to.
    pub to: String,
    /// The relation, read from `from`'s side.
    pub relation: String,
    /// Valid from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Valid until (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Confidence, 0 to 1.
    pub confidence: f64,
}

/// The entities of one type, drawn as one node.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Cluster {
    /// The type.
    pub kind: String,
    /// How many entities of that type match.
    pub count: usize,
}

/// The relations between two clusters, drawn as one edge.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClusterEdge {
    /// The type of the entities whose files hold the bullets.
    pub from: String,
    /// The type they point to.
    pub to: String,
    /// How many relations.
    pub count: usize,
}

/// What the viewer draws (`/api/graph`).
#[derive(Debug, Clone, Serialize)]
pub struct View {
    /// The date drawn (`YYYY-MM-DD`), `None` for now.
    pub as_of: Option<String>,
    /// The focus entity's id.
    pub focus: Option<String>,
    /// Entities drawn one by one (empty when clustered).
    pub nodes: Vec<ViewNode>,
    /// Relations among them.
    pub edges: Vec<ViewEdge>,
    /// One node per type, when the view is clustered.
    pub clusters: Vec<Cluster>,
    /// Relations between the clusters.
    pub cluster_edges: Vec<ClusterEdge>,
    /// Entities that match but are not drawn (the limit).
    pub omitted: usize,
    /// Entities that match the type filter (or lie around the focus).
    pub total: usize,
    /// Every entity type in the graph, for the viewer's filter.
    pub kinds: Vec<String>,
    /// Every relation in the graph, for the viewer's filter.
    pub relations: Vec<String>,
    /// The first and last dates a relation starts or ends on, for the viewer's time slider.
    pub dates: Option<(String, String)>,
}

/// An entity's activation from a selected one.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Activated {
    /// Its id.
    pub id: String,
    /// Its activation, 0 to 1 (the selected entity has 1).
    pub activation: f64,
}

/// The activation a selected entity spreads (`/api/graph/activation`).
#[derive(Debug, Clone, Serialize)]
pub struct Activation {
    /// The selected entity's id.
    pub from: String,
    /// The entities it reaches, strongest first.
    pub nodes: Vec<Activated>,
}

/// The graph to draw, as `opts` asks.
///
/// Fails when `as_of` cannot be read (naming `as_of`) or `focus` names no entity (with the
/// nearest ids in the hint).
pub fn view(ws: &Workspace, opts: &ViewOptions, now: &crate::Timestamp) -> crate::Result<View> {
    view_of(&graph::from_index_or_files(ws)?, opts, now)
}

/// [`view`] on a graph already built ([`graph::build`]): for a caller that keeps one between
/// requests (the web view, until the workspace changes).
///
/// Fails as [`view`] does.
pub fn view_of(g: &Graph, opts: &ViewOptions, now: &crate::Timestamp) -> crate::Result<View> {
    let as_of = match opts.as_of.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => Some(super::parse_as_of("as_of", t, now)?),
        None => None,
    };
    let focus = match opts.focus.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(f) => Some(id::entity(g, f)?),
        None => None,
    };
    Ok(draw(g, opts, as_of, focus))
}

/// [`view`] on a built graph, with the date read and the focus resolved.
fn draw(g: &Graph, opts: &ViewOptions, as_of: Option<String>, focus: Option<NodeIndex>) -> View {
    let limit = if opts.limit == 0 { DEFAULT_LIMIT } else { opts.limit };
    let live = |ix: NodeIndex| !g.is_merged(ix);
    let edges = drawn_edges(g, as_of.as_deref(), &opts.relations);
    let mut degree: HashMap<NodeIndex, usize> = HashMap::new();
    let mut adjacent: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for &(a, b, _) in &edges {
        *degree.entry(a).or_default() += 1;
        *degree.entry(b).or_default() += 1;
        adjacent.entry(a).or_default().push(b);
        adjacent.entry(b).or_default().push(a);
    }
    let kind_ok =
        |ix: NodeIndex| opts.kinds.is_empty() || opts.kinds.iter().any(|k| *k == g.node(ix).kind);
    let deg = |ix: NodeIndex| degree.get(&ix).copied().unwrap_or(0);
    let by_degree = |a: &NodeIndex, b: &NodeIndex| {
        deg(*b).cmp(&deg(*a)).then_with(|| g.node(*a).id.cmp(&g.node(*b).id))
    };
    let mut distance: HashMap<NodeIndex, usize> = HashMap::new();
    let chosen: Vec<NodeIndex> = match focus {
        Some(f) => {
            let depth = opts.depth.clamp(1, MAX_DEPTH);
            distance.insert(f, 0);
            let mut queue = VecDeque::from([f]);
            let mut order = vec![f];
            while let Some(n) = queue.pop_front() {
                let d = distance[&n];
                if d == depth {
                    continue;
                }
                let mut next: Vec<NodeIndex> = adjacent
                    .get(&n)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|m| kind_ok(*m) && !distance.contains_key(m))
                    .collect();
                next.sort_by(by_degree);
                next.dedup();
                for m in next {
                    distance.insert(m, d + 1);
                    order.push(m);
                    queue.push_back(m);
                }
            }
            order
        }
        None => {
            let mut all: Vec<NodeIndex> =
                g.g.node_indices().filter(|ix| live(*ix) && kind_ok(*ix)).collect();
            all.sort_by(by_degree);
            all
        }
    };
    let total = chosen.len();
    let mut view = View {
        as_of: as_of.clone(),
        focus: focus.map(|f| g.node(f).id.clone()),
        nodes: Vec::new(),
        edges: Vec::new(),
        clusters: Vec::new(),
        cluster_edges: Vec::new(),
        omitted: 0,
        total,
        kinds: every(g.g.node_indices().filter(|ix| live(*ix)).map(|ix| g.node(ix).kind.clone())),
        relations: every(g.g.edge_weights().map(|e| e.relation.clone())),
        dates: dates(g),
    };
    let kinds_chosen: BTreeSet<&str> = chosen.iter().map(|ix| g.node(*ix).kind.as_str()).collect();
    if total > limit && focus.is_none() && opts.kinds.is_empty() && kinds_chosen.len() > 1 {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for ix in &chosen {
            *counts.entry(&g.node(*ix).kind).or_default() += 1;
        }
        view.clusters =
            counts.into_iter().map(|(k, n)| Cluster { kind: k.to_owned(), count: n }).collect();
        let mut between: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for &(a, b, _) in &edges {
            *between.entry((&g.node(a).kind, &g.node(b).kind)).or_default() += 1;
        }
        view.cluster_edges = between
            .into_iter()
            .map(|((a, b), n)| ClusterEdge { from: a.to_owned(), to: b.to_owned(), count: n })
            .collect();
        return view;
    }
    let kept: Vec<NodeIndex> = chosen.into_iter().take(limit).collect();
    view.omitted = total - kept.len();
    let keep: BTreeSet<NodeIndex> = kept.iter().copied().collect();
    view.nodes = kept
        .iter()
        .map(|&ix| {
            let n = g.node(ix);
            ViewNode {
                id: n.id.clone(),
                kind: n.kind.clone(),
                label: n.names.first().cloned().unwrap_or_else(|| n.id.clone()),
                degree: deg(ix),
                status: n.status.clone(),
                current: held(g, ix, as_of.as_deref()),
                distance: distance.get(&ix).copied(),
            }
        })
        .collect();
    view.nodes.sort_by(|a, b| a.id.cmp(&b.id));
    view.edges = edges
        .into_iter()
        .filter(|(a, b, _)| keep.contains(a) && keep.contains(b))
        .map(|(a, b, e)| ViewEdge {
            from: g.node(a).id.clone(),
            to: g.node(b).id.clone(),
            relation: e.relation.clone(),
            since: e.since.clone(),
            until: e.until.clone(),
            confidence: e.confidence,
        })
        .collect();
    view
}

/// The relations drawn: valid on `as_of` (now when `None`), among `relations` when any are
/// named (either side's name counts), between entities that are not merge redirects, each once
/// — of a bullet and its inverse twin in the other file (same dates), the one under the
/// relation `relations.md` declares is drawn (`lives-in` rather than `home-of`; for a
/// symmetric relation, the one from the smaller id).
fn drawn_edges<'g>(
    g: &'g Graph,
    as_of: Option<&str>,
    relations: &[String],
) -> Vec<(NodeIndex, NodeIndex, &'g graph::Edge)> {
    let inverse = |r: &str| g.vocab.get(r).and_then(|s| s.inverse.clone());
    let named = |r: &str| {
        relations.is_empty()
            || relations.iter().any(|n| n == r || inverse(r).as_deref() == Some(n.as_str()))
    };
    let mut out = Vec::new();
    for e in g.g.edge_references() {
        let (a, b, w) = (e.source(), e.target(), e.weight());
        if g.is_merged(a) || g.is_merged(b) || !w.valid_on(as_of) || !named(&w.relation) {
            continue;
        }
        if let Some(inv) = inverse(&w.relation) {
            let twin = g.g.edges_connecting(b, a).any(|t| {
                let t = t.weight();
                t.relation == inv && t.since == w.since && t.until == w.until
            });
            let declared = |r: &str| g.vocab.get(r).is_some_and(|s| s.declared);
            let mine_first = (!declared(&w.relation), w.relation.as_str(), &g.node(a).id)
                < (!declared(&inv), inv.as_str(), &g.node(b).id);
            if twin && !mine_first {
                continue;
            }
        }
        out.push((a, b, w));
    }
    out.sort_by(|x, y| {
        (&g.node(x.0).id, &x.2.relation, &g.node(x.1).id, &x.2.since).cmp(&(
            &g.node(y.0).id,
            &y.2.relation,
            &g.node(y.1).id,
            &y.2.since,
        ))
    });
    out
}

/// Whether an entity held on `as_of` (now when `None`): active, or superseded by a relation
/// that starts after that date.
fn held(g: &Graph, ix: NodeIndex, as_of: Option<&str>) -> bool {
    match (g.node(ix).status.as_str(), as_of) {
        ("active", _) => true,
        ("superseded", Some(d)) => {
            !g.g.edges(ix)
                .any(|e| e.weight().relation == "superseded-by" && e.weight().valid_on(Some(d)))
        }
        _ => false,
    }
}

/// The sorted distinct values.
fn every(values: impl Iterator<Item = String>) -> Vec<String> {
    values.collect::<BTreeSet<String>>().into_iter().collect()
}

/// The first and last dates any relation starts or ends on.
fn dates(g: &Graph) -> Option<(String, String)> {
    let all: BTreeSet<&str> =
        g.g.edge_weights()
            .flat_map(|e| [e.since.as_deref(), e.until.as_deref()])
            .flatten()
            .collect();
    Some(((*all.first()?).to_owned(), (*all.last()?).to_owned()))
}

/// The activation `from` spreads, as search spreads it from the entities a query names (the
/// index's one spreading activation: two hops over current relations, halved per hop, scaled
/// by confidence and damped at hubs; only active entities pass or receive it).
///
/// Fails when `from` names no entity (with the nearest ids in the hint).
pub fn activation(ws: &Workspace, from: &str) -> crate::Result<Activation> {
    activation_of(&graph::from_index_or_files(ws)?, from)
}

/// [`activation`] on a graph already built.
///
/// Fails as [`activation`] does.
pub fn activation_of(g: &Graph, from: &str) -> crate::Result<Activation> {
    let ix = id::entity(g, from)?;
    let id = g.node(ix).id.clone();
    let reach: Vec<String> =
        g.neighbors(ix, 2, None).into_iter().map(|(n, _)| g.node(n).id.clone()).collect();
    let mut targets: Vec<&str> = reach.iter().map(String::as_str).collect();
    targets.push(&id);
    let spread = GraphCache::new(g.cache_text()).activation_of(std::slice::from_ref(&id), &targets);
    let mut nodes: Vec<Activated> =
        spread.into_iter().map(|(id, activation)| Activated { id, activation }).collect();
    nodes.sort_by(|a, b| b.activation.total_cmp(&a.activation).then_with(|| a.id.cmp(&b.id)));
    Ok(Activation { from: id, nodes })
}
