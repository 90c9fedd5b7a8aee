//! `cogmem graph …` and `cogmem supersede`: looking at the knowledge graph, checking it, and
//! the writes that keep it true — superseding with truth maintenance, merging duplicates,
//! renaming and retyping ([`rename()`], [`retype`]), regenerating the index table.

use std::collections::{BTreeMap, HashSet};

use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::error::InputError;
use crate::id;
use cogmem_index::graph::{self, Graph};
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

mod rename;
mod view;

pub use rename::{Renamed, rename, retype};
pub use view::{
    Activated, Activation, Cluster, ClusterEdge, DEFAULT_LIMIT, MAX_DEPTH, View, ViewEdge,
    ViewNode, ViewOptions, activation, activation_of, view, view_of,
};

/// One relation of an entity, as `graph show` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    /// The relation, read from this entity's side.
    pub relation: String,
    /// The other entity.
    pub other: String,
    /// Whether the bullet is in this entity's file (`out`) or the other's (`in`).
    pub direction: &'static str,
    /// Valid from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Valid until.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Confidence.
    pub confidence: f64,
    /// Whether the other entity was forgotten (`cogmem forget`): the bullet stays in the files,
    /// but recall and context no longer name it.
    pub forgotten: bool,
}

/// What `graph show` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The entity.
    pub node: graph::Node,
    /// Whether the entity was forgotten (`cogmem forget`): its file and the links to it stay,
    /// but search, recall and context leave it out.
    pub forgotten: bool,
    /// Its relations valid at the date asked for (or now), or all of them for history.
    pub links: Vec<Link>,
}

/// The ids (without `entity:`) among `ids` whose entity was forgotten, read from the decay
/// shards that hold them alone. An unreadable decay file counts as holding nothing forgotten,
/// as every read of the decay state does (the file is reported by `doctor` and the writes).
fn forgotten_among<'a>(ws: &Workspace, ids: impl IntoIterator<Item = &'a str>) -> HashSet<String> {
    let keys: Vec<String> = ids.into_iter().map(|id| format!("entity:{id}")).collect();
    if keys.is_empty() {
        return HashSet::new();
    }
    let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let (decay, _) = cogmem_store::store::decay_file::DecayFile::load_readable(ws, Some(&key_refs));
    keys.iter()
        .filter(|k| decay.is_forgotten(k))
        .map(|k| k.strip_prefix("entity:").expect("built with the prefix").to_owned())
        .collect()
}

fn links(g: &Graph, ix: petgraph::graph::NodeIndex, as_of: Option<&str>, all: bool) -> Vec<Link> {
    let mut out = Vec::new();
    for e in g.g.edges_directed(ix, petgraph::Direction::Outgoing) {
        let w = e.weight();
        if all || w.valid_on(as_of) {
            out.push(Link {
                relation: w.relation.clone(),
                other: g.g[e.target()].id.clone(),
                direction: "out",
                since: w.since.clone(),
                until: w.until.clone(),
                confidence: w.confidence,
                forgotten: false,
            });
        }
    }
    // An incoming bullet whose inverse twin this entity's own file holds (`worked-on-by` from
    // the project beside `works-on` to it, same dates) says the same relation again: it is
    // listed once, from this entity's side.
    let inverse = |r: &str| g.vocab.get(r).and_then(|s| s.inverse.clone());
    for e in g.g.edges_directed(ix, petgraph::Direction::Incoming) {
        let w = e.weight();
        let twin = inverse(&w.relation).is_some_and(|inv| {
            g.g.edges_connecting(ix, e.source()).any(|t| {
                let t = t.weight();
                t.relation == inv && t.since == w.since && t.until == w.until
            })
        });
        if twin {
            continue;
        }
        if all || w.valid_on(as_of) {
            out.push(Link {
                relation: w.relation.clone(),
                other: g.g[e.source()].id.clone(),
                direction: "in",
                since: w.since.clone(),
                until: w.until.clone(),
                confidence: w.confidence,
                forgotten: false,
            });
        }
    }
    out.sort_by(|a, b| {
        (a.since.as_deref().unwrap_or(""), a.direction, &a.relation, &a.other).cmp(&(
            b.since.as_deref().unwrap_or(""),
            b.direction,
            &b.relation,
            &b.other,
        ))
    });
    out
}

/// Reads an `--as-of` value for [`show`] and [`neighbors`] with the shared date reader (a date,
/// a time, an age, `yesterday`, `last week`, `先月`, …; relative forms against `now`) and
/// returns its calendar day in `now`'s offset as `YYYY-MM-DD`: a time's day, a stretch of days'
/// first day.
///
/// Fails when the date reader cannot read `text`, naming `flag` (`--as-of`, or the MCP
/// argument `as_of`).
pub fn parse_as_of(
    flag: &'static str,
    text: &str,
    now: &crate::Timestamp,
) -> Result<String, crate::error::InputError> {
    cogmem_text::date::parse(text, now)
        .map(|w| w.day(*now.offset()).format("%Y-%m-%d").to_string())
        .ok_or_else(|| crate::error::InputError::Time { flag, text: text.to_owned() })
}

/// An entity and its relations at a date (default: now).
pub fn show(ws: &Workspace, name: &str, as_of: Option<&str>) -> crate::Result<Shown> {
    Ok(show_and_history(ws, name, as_of)?.0)
}

/// Every relation an entity ever had, closed ones included, oldest first.
pub fn history(ws: &Workspace, name: &str) -> crate::Result<Shown> {
    Ok(show_and_history(ws, name, None)?.1)
}

/// [`show`] and [`history`] of one entity from one graph (an entity's page shows both).
pub fn show_and_history(
    ws: &Workspace,
    name: &str,
    as_of: Option<&str>,
) -> crate::Result<(Shown, Shown)> {
    show_and_history_in(ws, &graph_of(ws, name)?, name, as_of)
}

/// [`show_and_history`] in a graph already built from `ws` (the web view's kept graph).
pub fn show_and_history_in(
    ws: &Workspace,
    g: &Graph,
    name: &str,
    as_of: Option<&str>,
) -> crate::Result<(Shown, Shown)> {
    let ix = id::entity(g, name)?;
    let node = g.node(ix).clone();
    let (mut now, mut all) = (links(g, ix, as_of, false), links(g, ix, None, true));
    let forgotten = forgotten_among(
        ws,
        std::iter::once(node.id.as_str()).chain(all.iter().map(|l| l.other.as_str())),
    );
    for l in now.iter_mut().chain(all.iter_mut()) {
        l.forgotten = forgotten.contains(&l.other);
    }
    let is_forgotten = forgotten.contains(&node.id);
    Ok((
        Shown { node: node.clone(), forgotten: is_forgotten, links: now },
        Shown { node, forgotten: is_forgotten, links: all },
    ))
}

/// A graph that holds the entity `name` and every relation it has, with the entities at their
/// other ends: the graph around it when `name` is an entity file's id ([`graph::around`]), else
/// the whole graph (only it can say what a name or the start of an id means).
fn graph_of(ws: &Workspace, name: &str) -> crate::Result<Graph> {
    match graph::around(ws, name)? {
        Some(g) => Ok(g),
        None => Ok(graph::from_index_or_files(ws)?),
    }
}

/// An entity within reach.
#[derive(Debug, Clone, Serialize)]
pub struct Neighbor {
    /// Its id.
    pub id: String,
    /// Hops away.
    pub distance: usize,
    /// Its type.
    pub kind: String,
    /// Its status.
    pub status: String,
    /// Whether it was forgotten (`cogmem forget`): its file and the links to it stay, but
    /// search, recall and context leave it out.
    pub forgotten: bool,
}

/// Entities within `depth` hops, at a date (default: now).
pub fn neighbors(
    ws: &Workspace,
    name: &str,
    depth: usize,
    as_of: Option<&str>,
) -> crate::Result<Vec<Neighbor>> {
    // One hop needs the edges of the entity alone: the graph around it has them all.
    let g = if depth <= 1 { graph_of(ws, name)? } else { graph::from_index_or_files(ws)? };
    let ix = id::entity(&g, name)?;
    let found = g.neighbors(ix, depth.max(1), as_of);
    // Only the decay shards that hold these entities are read.
    let forgotten = forgotten_among(ws, found.iter().map(|(n, _)| g.node(*n).id.as_str()));
    Ok(found
        .into_iter()
        .map(|(n, d)| Neighbor {
            id: g.node(n).id.clone(),
            distance: d,
            kind: g.node(n).kind.clone(),
            status: g.node(n).status.clone(),
            forgotten: forgotten.contains(&g.node(n).id),
        })
        .collect())
}

/// One entity on a [`path`].
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Its id.
    pub id: String,
    /// Whether it was forgotten (`cogmem forget`). Only an end can be: a path never goes
    /// through a forgotten entity, as recall's activation does not.
    pub forgotten: bool,
}

/// The shortest chain of relations that hold now between two entities, from `a` to `b`.
///
/// The chain never passes through a forgotten entity (recall does not either, and a chain
/// through one would name it); `a` and `b` themselves may be forgotten, and say so. `None` when
/// no such chain exists.
pub fn path(ws: &Workspace, a: &str, b: &str) -> crate::Result<Option<Vec<Step>>> {
    let g = graph::from_index_or_files(ws)?;
    let (ia, ib) = (id::entity(&g, a)?, id::entity(&g, b)?);
    let forgotten = forgotten_among(ws, g.g.node_weights().map(|n| n.id.as_str()));
    let passes = |ix| ix == ia || ix == ib || !forgotten.contains(&g.node(ix).id);
    Ok(g.path(ia, ib, passes).map(|p| {
        p.into_iter()
            .map(|ix| {
                let id = g.node(ix).id.clone();
                Step { forgotten: forgotten.contains(&id), id }
            })
            .collect()
    }))
}

/// Graph statistics.
pub fn stats(ws: &Workspace) -> crate::Result<graph::Stats> {
    Ok(graph::from_index_or_files(ws)?.stats())
}

/// A problem `graph check` found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `unknown-relation`, `endpoint-type`, `cycle`, `dangling` or `duplicate`.
    pub kind: &'static str,
    /// The file.
    pub path: String,
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Checks the graph: unknown relations, endpoint types, cycles in acyclic relations, links to
/// missing entities, and entities whose ids differ only in case or punctuation.
///
/// The graph comes from the facts the index keeps, brought up to date with the files first (a
/// hand edit counts), so only changed entity files are read, and then the files a finding names,
/// for its line; from every entity file when the index cannot be trusted.
pub fn check(ws: &Workspace) -> crate::Result<Vec<Finding>> {
    let (g, numbered) = match graph::from_index_numbered(ws)? {
        Some(g) => (g, true),
        None => (graph::build(ws)?, false),
    };
    let mut out = check_graph(&g);
    if numbered {
        // The relations' places become lines; a duplicate or an unreadable file is at line 1.
        let mut lines = graph::RelationLines::default();
        for f in &mut out {
            if matches!(f.kind, "unknown-relation" | "endpoint-type" | "cycle" | "dangling") {
                f.line = lines.line(ws, &f.path, f.line);
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(out)
}

/// [`check`] from the entity files alone, leaving the search index as it is: for `verify`,
/// which must not bring the index up to date (it reports a stale one), nor index the files of
/// a change killed half-way, which the next command puts back.
pub fn check_files(ws: &Workspace) -> crate::Result<Vec<Finding>> {
    let mut out = check_graph(&graph::build(ws)?);
    out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok(out)
}

/// The findings of [`check`] in a graph, unsorted.
fn check_graph(g: &graph::Graph) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in g.g.edge_references() {
        let w = e.weight();
        let (from, to) = (g.node(e.source()), g.node(e.target()));
        match g.vocab.get(&w.relation) {
            None => out.push(Finding {
                kind: "unknown-relation",
                path: w.path.clone(),
                line: w.line,
                // Say what it may have meant and how to add it. See: issue 18
                message: {
                    let near: Vec<String> =
                        g.vocab.nearest(&w.relation, 3).iter().map(|n| format!("`{n}`")).collect();
                    let near = if near.is_empty() {
                        String::new()
                    } else {
                        format!(" (nearest: {})", near.join(", "))
                    };
                    format!(
                        "`{rel}` is not in memory/graph/relations.md{near}; use a known relation, or \
                         add it with `cogmem graph relation add {rel} --inverse INVERSE \
                         --signature '{}->{}'`",
                        from.kind,
                        to.kind,
                        rel = w.relation,
                    )
                },
            }),
            Some(spec) => {
                if !spec.from_types.is_empty() && !spec.from_types.contains(&from.kind) {
                    out.push(Finding {
                        kind: "endpoint-type",
                        path: w.path.clone(),
                        line: w.line,
                        message: format!(
                            "`{}` goes from {}, not {} ({})",
                            w.relation,
                            spec.from_types.join("|"),
                            from.kind,
                            from.id
                        ),
                    });
                }
                if !spec.to_types.is_empty() && !spec.to_types.contains(&to.kind) {
                    out.push(Finding {
                        kind: "endpoint-type",
                        path: w.path.clone(),
                        line: w.line,
                        message: format!(
                            "`{}` goes to {}, not {} ({})",
                            w.relation,
                            spec.to_types.join("|"),
                            to.kind,
                            to.id
                        ),
                    });
                }
            }
        }
    }
    // Cycles, per acyclic relation, among current edges.
    let mut acyclic: Vec<String> =
        g.g.edge_weights()
            .map(|e| e.relation.clone())
            .filter(|r| g.vocab.get(r).is_some_and(|s| s.acyclic))
            .collect();
    acyclic.sort();
    acyclic.dedup();
    for rel in acyclic {
        let sub = g.g.filter_map(
            |_, n| Some(n.id.clone()),
            |_, e| (e.relation == rel && e.until.is_none()).then(|| (e.path.clone(), e.line)),
        );
        for scc in petgraph::algo::tarjan_scc(&sub) {
            let self_loop = scc.len() == 1 && sub.find_edge(scc[0], scc[0]).is_some();
            if scc.len() > 1 || self_loop {
                let ids: Vec<&str> = scc.iter().map(|ix| sub[*ix].as_str()).collect();
                let (path, line) =
                    sub.edges(scc[0]).next().map(|e| e.weight().clone()).unwrap_or_default();
                out.push(Finding {
                    kind: "cycle",
                    path,
                    line,
                    message: format!("`{rel}` must not loop, but does: {}", ids.join(" → ")),
                });
            }
        }
    }
    for d in &g.dangling {
        out.push(Finding {
            kind: "dangling",
            path: d.path.clone(),
            line: d.line,
            message: format!("`{}` links to {}, which has no file", d.relation, d.to),
        });
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for n in g.g.node_weights() {
        let key: String =
            n.id.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        if let Some(other) = seen.insert(key, n.id.clone()) {
            out.push(Finding { kind: "duplicate", path: n.path.clone(), line: 1, message: format!("{} and {other} differ only in punctuation; merge them with `cogmem graph merge`", n.id) });
        }
    }
    for s in &g.skipped {
        out.push(Finding {
            kind: "unreadable",
            path: s.path.clone(),
            line: 1,
            message: s.error.clone(),
        });
    }
    out
}

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A Mermaid flowchart (renders on git forges).
    Mermaid,
    /// Graphviz DOT.
    Dot,
    /// JSON nodes and edges.
    Json,
}

/// Exports the graph (or the part within `depth` hops of `around`), current relations only.
///
/// The redirects `graph merge` leaves behind are not exported.
pub fn export(
    ws: &Workspace,
    format: ExportFormat,
    around: Option<&str>,
    depth: usize,
) -> crate::Result<String> {
    let g = graph::from_index_or_files(ws)?;
    let keep: Option<HashSet<petgraph::graph::NodeIndex>> = match around {
        None => None,
        Some(name) => {
            let ix = id::entity(&g, name)?;
            let mut set: HashSet<_> =
                g.neighbors(ix, depth.max(1), None).into_iter().map(|(n, _)| n).collect();
            set.insert(ix);
            Some(set)
        }
    };
    let included = |ix: petgraph::graph::NodeIndex| {
        !g.is_merged(ix) && keep.as_ref().is_none_or(|k| k.contains(&ix))
    };
    let nodes: Vec<petgraph::graph::NodeIndex> =
        g.g.node_indices().filter(|ix| included(*ix)).collect();
    let edges: Vec<_> =
        g.g.edge_references()
            .filter(|e| e.weight().until.is_none() && included(e.source()) && included(e.target()))
            .collect();
    let safe = |id: &str| id.replace("--", "__").replace('-', "_");
    Ok(match format {
        ExportFormat::Mermaid => {
            let mut s = String::from("graph LR\n");
            for ix in &nodes {
                let n = g.node(*ix);
                let label =
                    n.names.first().cloned().unwrap_or_else(|| n.id.clone()).replace('"', "'");
                s.push_str(&format!("  {}[\"{label} ({})\"]\n", safe(&n.id), n.kind));
            }
            for e in &edges {
                s.push_str(&format!(
                    "  {} -->|{}| {}\n",
                    safe(&g.node(e.source()).id),
                    e.weight().relation,
                    safe(&g.node(e.target()).id)
                ));
            }
            s
        }
        ExportFormat::Dot => {
            let mut s = String::from("digraph cogmem {\n  rankdir=LR;\n");
            for ix in &nodes {
                let n = g.node(*ix);
                s.push_str(&format!(
                    "  \"{}\" [label=\"{}\\n{}\"];\n",
                    n.id,
                    n.names.first().cloned().unwrap_or_default().replace('"', "'"),
                    n.kind
                ));
            }
            for e in &edges {
                s.push_str(&format!(
                    "  \"{}\" -> \"{}\" [label=\"{}\"];\n",
                    g.node(e.source()).id,
                    g.node(e.target()).id,
                    e.weight().relation
                ));
            }
            s.push_str("}\n");
            s
        }
        ExportFormat::Json => {
            let ns: Vec<&graph::Node> = nodes.iter().map(|ix| g.node(*ix)).collect();
            let es: Vec<serde_json::Value> = edges
                .iter()
                .map(|e| serde_json::json!({"from": g.node(e.source()).id, "relation": e.weight().relation, "to": g.node(e.target()).id, "confidence": e.weight().confidence, "since": e.weight().since}))
                .collect();
            let mut s =
                serde_json::to_string_pretty(&serde_json::json!({"nodes": ns, "edges": es}))
                    .expect("serialisable");
            s.push('\n');
            s
        }
    })
}

/// What a graph write did.
#[derive(Debug, Clone, Serialize)]
pub struct GraphChange {
    /// The commit (`None` when nothing changed).
    pub commit: Option<String>,
    /// Entities changed, with what happened to each.
    pub trace: Vec<String>,
}

/// Marks OLD superseded by NEW, links `supersedes`, and deactivates, recursively, every entity
/// that `depends-on` or `refines` OLD. One commit; the trace is in the commit message and in an
/// audit line per entity.
pub fn supersede(
    ws: &Workspace,
    old: &str,
    new: &str,
    reason: Option<&str>,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<GraphChange> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let g = graph::build(ws)?;
    let (io, inew) = (id::entity(&g, old)?, id::entity(&g, new)?);
    let (old_id, new_id) = (g.node(io).id.clone(), g.node(inew).id.clone());
    if io == inew {
        return Err(InputError::SameEntity { id: old_id, what: "supersede" }.into());
    }
    if let Some(r) = reason {
        cogmem_store::secrets::check_note(r, "the reason")?;
    }
    let why = reason.map(|r| format!(" — {r}")).unwrap_or_default();
    let mut change = Change::new(actor, format!("cogmem supersede {old_id} --by {new_id}"));
    let mut trace = Vec::new();
    let old_path = g.node(io).path.clone();
    let new_path = g.node(inew).path.clone();
    let old_text = ws.read_text(&old_path)?;
    let old_text = entity::set_status(&old_text, "superseded");
    let old_text =
        entity::add_timeline_entry(&old_text, &format!("{date}: superseded by [[{new_id}]]{why}"));
    let new_text = ws.read_text(&new_path)?;
    let old_eid = EntityId::parse(&old_id)?;
    let new_eid = EntityId::parse(&new_id)?;
    let new_text = match entity::add_relation(&new_text, "supersedes", &old_eid, &date) {
        entity::Added::Written { content, .. } => content,
        entity::Added::Duplicate { .. } => new_text,
    };
    let old_text = match entity::add_relation(&old_text, "superseded-by", &new_eid, &date) {
        entity::Added::Written { content, .. } => content,
        entity::Added::Duplicate { .. } => old_text,
    };
    change.write(
        &old_path,
        old_text.into_bytes(),
        Action::Edit,
        format!("superseded by {new_id}{why}"),
    );
    change.write(&new_path, new_text.into_bytes(), Action::Edit, format!("supersedes {old_id}"));
    trace.push(format!("{old_id}: superseded by {new_id}"));
    // Truth maintenance: what depends on or refines the old entity no longer holds.
    let mut stack = vec![(io, old_id.clone())];
    let mut done: HashSet<petgraph::graph::NodeIndex> = HashSet::from([io, inew]);
    while let Some((ix, cause)) = stack.pop() {
        for e in g.g.edges_directed(ix, petgraph::Direction::Incoming) {
            let w = e.weight();
            if !(w.relation == "depends-on" || w.relation == "refines") || w.until.is_some() {
                continue;
            }
            let dep = e.source();
            if !done.insert(dep) || g.node(dep).status != "active" {
                continue;
            }
            let dep_id = g.node(dep).id.clone();
            let path = g.node(dep).path.clone();
            let text = ws.read_text(&path)?;
            let text = entity::set_status(&text, "inactive");
            let text = entity::add_timeline_entry(
                &text,
                &format!(
                    "{date}: inactive — {} [[{cause}]], which no longer holds ({old_id} superseded by {new_id})",
                    w.relation
                ),
            );
            change.write(
                &path,
                text.into_bytes(),
                Action::Edit,
                format!("inactive: {} {cause}", w.relation),
            );
            trace.push(format!("{dep_id}: inactive ({} {cause})", w.relation));
            stack.push((dep, dep_id));
        }
    }
    regenerate_index_into(ws, &mut change)?;
    let summary = format!("{old_id} superseded by {new_id}; {} deactivated", trace.len() - 1);
    let applied =
        change.with_subject(Action::Edit, summary).apply(ws, &repo, &lock, &FixedClock(now))?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    Ok(GraphChange { commit: Some(applied.commit), trace })
}

/// Merges OTHER into KEEP: facts, aliases and relations move, links everywhere are rewired, and
/// OTHER's file becomes a redirect. One commit.
pub fn merge(
    ws: &Workspace,
    keep: &str,
    other: &str,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<GraphChange> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let g = graph::build(ws)?;
    let (ik, io) = (id::entity(&g, keep)?, id::entity(&g, other)?);
    let (keep_id, other_id) = (g.node(ik).id.clone(), g.node(io).id.clone());
    if ik == io {
        return Err(InputError::SameEntity { id: other_id, what: "merge" }.into());
    }
    let keep_path = g.node(ik).path.clone();
    let other_path = g.node(io).path.clone();
    let other_text = ws.read_text(&other_path)?;
    let mut keep_text = ws.read_text(&keep_path)?;
    let mut trace = Vec::new();
    // Facts.
    for fact in entity::facts(&other_text) {
        if let entity::Added::Written { content, .. } = entity::add_fact(&keep_text, &fact, &date) {
            keep_text = content;
        }
    }
    // Aliases: OTHER's names.
    let other_names = g.node(io).names.join(", ");
    keep_text = entity::add_aliases(&keep_text, &other_names);
    // Relations.
    let keep_eid = EntityId::parse(&keep_id)?;
    let other_eid = EntityId::parse(&other_id)?;
    for r in entity::relations(&other_text) {
        if r.target == keep_id {
            continue;
        }
        if let Ok(t) = EntityId::parse(&r.target)
            && let entity::Added::Written { content, .. } = entity::add_relation(
                &keep_text,
                &r.relation,
                &t,
                r.since.as_deref().unwrap_or(&date),
            )
        {
            keep_text = content;
        }
    }
    let mut change = Change::new(actor, format!("cogmem graph merge {keep_id} {other_id}"));
    change.write(
        &keep_path,
        keep_text.into_bytes(),
        Action::Merge,
        format!("merged {other_id} into {keep_id}"),
    );
    let redirect = entity::merged_redirect(&other_eid, &keep_eid, &date);
    change.write(
        &other_path,
        redirect.into_bytes(),
        Action::Merge,
        format!("redirect to {keep_id}"),
    );
    trace.push(format!("{other_id}: merged into {keep_id}"));
    // Rewire links in every other entity file.
    for rel in cogmem_store::store::units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        if rel == keep_path || rel == other_path {
            continue;
        }
        let text = ws.read_text(&rel)?;
        if let Some(rewired) = entity::rewire_links(&text, &other_id, &keep_id) {
            change.write(
                &rel,
                rewired.into_bytes(),
                Action::Edit,
                format!("links to {other_id} now point to {keep_id}"),
            );
            trace.push(format!("{rel}: links rewired"));
        }
    }
    regenerate_index_into(ws, &mut change)?;
    let applied = change
        .with_subject(Action::Merge, format!("merged {other_id} into {keep_id}"))
        .apply(ws, &repo, &lock, &FixedClock(now))?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    Ok(GraphChange { commit: Some(applied.commit), trace })
}

/// Regenerates graph/index.md from the entity files (after hand edits), as one commit.
pub fn rebuild(ws: &Workspace, actor: Actor, clock: &dyn Clock) -> crate::Result<GraphChange> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let mut change = Change::new(actor, "cogmem graph rebuild");
    // From the files alone: the index's own counts may be what is stale.
    regenerate_index(ws, &mut change, None, false)?;
    if change.is_empty() {
        return Ok(GraphChange { commit: None, trace: Vec::new() });
    }
    let applied = change.apply(ws, &repo, &lock, &FixedClock(clock.now()))?;
    Ok(GraphChange {
        commit: Some(applied.commit),
        trace: vec!["graph/index.md regenerated".into()],
    })
}

/// Regenerates `memory/graph/index.md` into `change` from the entity files as the change leaves
/// them (its pending writes over the files on disk, the entity files it creates included, those
/// it deletes left out),
/// when that differs from the index as the change leaves it.
///
/// A change that only creates entity files updates the rows the table had instead
/// ([`cogmem_index::graph::index_with_new_entities`]): the same text, without parsing every
/// entity file or reading every decay shard.
pub(crate) fn regenerate_index_into(
    ws: &Workspace,
    change: &mut cogmem_store::change::Change,
) -> crate::Result<()> {
    regenerate_index(ws, change, None, true)
}

/// [`regenerate_index_into`] with the decay state as the change leaves it (its scores and
/// forgotten marks go into the table), for a change that also creates decay entries.
pub(crate) fn regenerate_index_with(
    ws: &Workspace,
    change: &mut cogmem_store::change::Change,
    decay: &cogmem_store::store::decay_file::DecayFile,
) -> crate::Result<()> {
    regenerate_index(ws, change, Some(decay), false)
}

/// The one way the graph index is regenerated into `change`: past
/// [`cogmem_index::graph::REGISTRY_MAX`] entity files their counts by type ([`summary_as_left`],
/// from the counts the index holds when `trust_counts`); below it, without `decay`, the rows a
/// change that only creates entities adds to the table, else the tables rendered from every
/// entity file with `decay`'s scores (read from the files when not given).
fn regenerate_index(
    ws: &Workspace,
    change: &mut cogmem_store::change::Change,
    decay: Option<&cogmem_store::store::decay_file::DecayFile>,
    trust_counts: bool,
) -> crate::Result<()> {
    if let Some(text) = summary_as_left(ws, change, trust_counts)? {
        cogmem_store::timing::mark("graph index: entity files counted");
        return put_graph_index(ws, change, text);
    }
    let loaded;
    let decay = match decay {
        Some(decay) => decay,
        None => {
            if let Some(text) = index_with_created_entities(ws, change)? {
                cogmem_store::timing::mark("graph index: rows added");
                return put_graph_index(ws, change, text);
            }
            loaded = cogmem_store::access::load_decay(ws)?;
            cogmem_store::timing::mark("graph index: decay read");
            &loaded
        }
    };
    render_tables_into(ws, change, decay)
}

/// The graph index as `change` leaves the entity files when they are more than
/// [`cogmem_index::graph::REGISTRY_MAX`]: the count of each type, from the files' names alone;
/// `None` when they are fewer (the registry and edge tables are rendered). With `from_index`,
/// the counts of the index on disk, when it holds counts, plus the files the change creates
/// and minus those it deletes (a `remember` naming someone new: no listing of 10,000 names);
/// else, and when the index holds a table, the folder's listing with the change's files.
fn summary_as_left(
    ws: &Workspace,
    change: &cogmem_store::change::Change,
    from_index: bool,
) -> crate::Result<Option<String>> {
    use cogmem_store::store::units;
    use cogmem_store::workspace::layout;
    use std::collections::btree_map::Entry;
    // The change's entity files (directly in the folder) and whether each is on disk now.
    let edits: Vec<(&str, bool, bool)> = change
        .edits()
        .iter()
        .filter(|e| {
            let name = e.path.strip_prefix(layout::ENTITIES_DIR).and_then(|r| r.strip_prefix('/'));
            name.is_some_and(|n| !n.contains('/') && n.ends_with(".md"))
        })
        .map(|e| (units::md_stem(&e.path), e.content.is_some(), ws.abs(&e.path).exists()))
        .collect();
    let max = cogmem_index::graph::REGISTRY_MAX;
    if from_index
        && let Some(mut counts) = ws
            .read_text_if_exists(layout::GRAPH_INDEX)?
            .as_deref()
            .and_then(cogmem_index::graph::summary_counts)
    {
        let mut known = true;
        for (stem, written, exists) in &edits {
            let Ok(id) = cogmem_store::store::entity::EntityId::parse(stem) else { continue };
            match (written, exists, counts.entry(id.kind().to_owned())) {
                (true, false, e) => *e.or_insert(0) += 1,
                (false, true, Entry::Occupied(mut e)) if *e.get() > 1 => *e.get_mut() -= 1,
                (false, true, Entry::Occupied(e)) => drop(e.remove()),
                (false, true, Entry::Vacant(_)) => known = false,
                _ => {}
            }
        }
        if known && counts.values().sum::<usize>() > max {
            return Ok(Some(cogmem_index::graph::summary_text(&counts)));
        }
    }
    let listed = units::markdown_files(ws.root(), layout::ENTITIES_DIR);
    // Below the line with room to spare: no need to look at the change.
    if listed.len() + edits.len() <= max {
        return Ok(None);
    }
    let mut stems: std::collections::BTreeSet<&str> =
        listed.iter().map(|rel| units::md_stem(rel)).collect();
    for (stem, written, _) in &edits {
        if *written {
            stems.insert(stem);
        } else {
            stems.remove(stem);
        }
    }
    let counts = cogmem_index::graph::kinds_of(stems.into_iter());
    Ok((counts.values().sum::<usize>() > max).then(|| cogmem_index::graph::summary_text(&counts)))
}

/// Writes `text` as `memory/graph/index.md` into `change` when it differs from the index as the
/// change leaves it.
fn put_graph_index(
    ws: &Workspace,
    change: &mut cogmem_store::change::Change,
    text: String,
) -> crate::Result<()> {
    if graph_index_as_left(ws, change)?.as_deref() != Some(text.as_str()) {
        change.write(
            cogmem_store::workspace::layout::GRAPH_INDEX,
            text.into_bytes(),
            cogmem_store::audit::Action::Edit,
            "regenerated from the entity files",
        );
    }
    Ok(())
}

/// `memory/graph/index.md` as `change` leaves it: its pending text, else the file's; `None` when
/// the change deletes it or it does not exist.
fn graph_index_as_left(
    ws: &Workspace,
    change: &cogmem_store::change::Change,
) -> crate::Result<Option<String>> {
    let path = cogmem_store::workspace::layout::GRAPH_INDEX;
    match change.edits().iter().find(|e| e.path == path) {
        Some(e) => Ok(e.content.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())),
        None => Ok(ws.read_text_if_exists(path)?),
    }
}

/// The graph index after `change` when every entity file it writes is one it creates (none
/// modified or deleted) and the index as the change leaves it is in the layout cogmem writes;
/// `None` otherwise (the caller renders the whole table). Reads every entity file's links, but
/// parses only the files that link to a new entity, and reads only the new entities' decay
/// entries.
fn index_with_created_entities(
    ws: &Workspace,
    change: &cogmem_store::change::Change,
) -> crate::Result<Option<String>> {
    use cogmem_store::workspace::layout;
    let mut new: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for e in change.edits() {
        if !e.path.starts_with(layout::ENTITIES_DIR) || !e.path.ends_with(".md") {
            continue;
        }
        let Some(content) = &e.content else { return Ok(None) };
        if ws.abs(&e.path).exists() || !seen.insert(e.path.as_str()) {
            return Ok(None);
        }
        new.push((e.path.clone(), String::from_utf8_lossy(content).into_owned()));
    }
    if new.is_empty() {
        return Ok(None);
    }
    let Some(old) = graph_index_as_left(ws, change)? else { return Ok(None) };
    let ids: std::collections::HashSet<&str> =
        new.iter().map(|(p, _)| cogmem_store::store::units::md_stem(p)).collect();
    // Existing files with a `[[…]]` link to a new entity (the target as `entity::relations`
    // reads it).
    let mut mentioning = Vec::new();
    for (rel, text) in cogmem_store::store::units::read_markdown_files(ws, layout::ENTITIES_DIR) {
        let text = text?;
        if cogmem_store::store::entity::link_targets(&text).any(|t| ids.contains(t)) {
            mentioning.push((rel, text));
        }
    }
    let keys: Vec<String> = ids.iter().map(|id| format!("entity:{id}")).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let decay = cogmem_store::store::decay_file::DecayFile::load_for(ws, &keys)?;
    let scores = decay.entity_scores();
    Ok(cogmem_index::graph::index_with_new_entities(&old, &new, &mentioning, &scores))
}

/// The registry and edge tables rendered from every entity file as `change` leaves them, with
/// `decay`'s scores, into `change`.
fn render_tables_into(
    ws: &Workspace,
    change: &mut cogmem_store::change::Change,
    decay: &cogmem_store::store::decay_file::DecayFile,
) -> crate::Result<()> {
    // The change's edits by path: an import's change holds thousands of them, and each of the
    // workspace's entity files is looked up here (issue 20: a scan per file was quadratic).
    let edits: std::collections::HashMap<&str, Option<&[u8]>> =
        change.edits().iter().map(|e| (e.path.as_str(), e.content.as_deref())).collect();
    let mut files: Vec<(String, String)> = Vec::new();
    let on_disk = cogmem_store::store::units::read_markdown_files(
        ws,
        cogmem_store::workspace::layout::ENTITIES_DIR,
    );
    for (rel, text) in on_disk {
        let text = match edits.get(rel.as_str()) {
            Some(content) => content.map(|b| String::from_utf8_lossy(b).into_owned()),
            None => Some(text?),
        };
        if let Some(text) = text {
            files.push((rel, text));
        }
    }
    let listed: std::collections::HashSet<String> = files.iter().map(|(p, _)| p.clone()).collect();
    for e in change.edits() {
        if e.path.starts_with(cogmem_store::workspace::layout::ENTITIES_DIR)
            && !listed.contains(&e.path)
            && let Some(c) = &e.content
        {
            files.push((e.path.clone(), String::from_utf8_lossy(c).into_owned()));
        }
    }
    cogmem_store::timing::mark("graph index: entity files read");
    let text = cogmem_index::graph::index_text(ws, &files, decay)?;
    cogmem_store::timing::mark("graph index: rendered");
    put_graph_index(ws, change, text)
}
