//! The graph's caches patched in place after a change to a few entities (issue 20).
//!
//! A `remember` names someone for the first time, or links two entities, or adds a name: one
//! or two entity files change. Rebuilding the graph cache, the names cache and the kept facts
//! for that meant parsing every entity's facts (4 MB of JSON lines at 10,000 entities),
//! assembling the whole graph and writing every line again: 80–90 ms at 100,000 memories,
//! which the index update after the write spent and a search right after it waited for.
//!
//! Such a change touches few lines: the changed entities' own, and those of the entities their
//! relations point at, before or after. Only the shards holding those entities are read
//! ([`super::shards`]): their graph caches as (id, status, edge line) records, whose touched
//! lines are worked out again from the facts, and the records written back with their offsets;
//! their names caches and facts get the changed entities' lines put in place; the dangling
//! relations' list is brought up to date. The result is byte for byte what a rebuild writes
//! (the tests compare them), which takes knowing the rebuild's order: edges go into the graph
//! file by file in the order of the files' paths, each file's relations in their order, and
//! each node lists its outgoing edges and then its incoming ones, the last added first.
//!
//! Anything else is rebuilt as before: an entity file removed, a file whose name is not its
//! entity's id, a new entity whose id a relation already names (that relation would become an
//! edge: the dangling list says), an id given twice or holding a tab, line break or space (the
//! caches leave such ids out), caches not in the shape this build writes, or a graph grown to
//! twice the entities per shard its set was made for.

use std::collections::{BTreeMap, BTreeSet};

use cogmem_store::workspace::layout;

use super::EntityFacts;
use super::shards::{Meta, Shards};

/// One shard's texts as read: its graph cache, its names cache and its facts' lines (after
/// the header).
#[derive(Debug, Clone)]
pub(crate) struct ShardTexts {
    pub cache: String,
    pub names: String,
    pub facts: String,
}

/// What a patch writes.
#[derive(Debug)]
pub(crate) struct Patched {
    /// The shards whose texts changed: (shard, graph cache, names cache, facts' lines).
    pub shards: Vec<(usize, String, String, Vec<u8>)>,
    /// The dangling relations' lines, when they changed.
    pub dangling: Option<String>,
    /// The set's `shards` file after the change.
    pub meta: Meta,
}

/// A node of the graph cache: id, status, its edge line (without the newline) and its degree.
type Record<'a> = (&'a str, &'a str, std::borrow::Cow<'a, str>, usize);

/// The shard set described by `meta` (its dangling relations' lines `dangling`, its shards read
/// by `load`) with the entity files `changed` (path, facts) put in; `None` when the change is
/// one a rebuild must make (see the module).
pub(crate) fn apply(
    meta: Meta,
    dangling: &str,
    load: &mut dyn FnMut(usize) -> Option<ShardTexts>,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    if changed.is_empty() || !meta.named {
        return None;
    }
    let shard = |id: &str| super::shards::shard_of(id, meta.count);
    // The changed entities, by id; each in the file its id names.
    let mut by_id: BTreeMap<&str, (&str, &EntityFacts)> = BTreeMap::new();
    for (path, f) in changed {
        let f = f.as_ref()?;
        let fits = super::EntityId::parse(&f.id).is_ok_and(|id| id.as_str() == f.id)
            && !f.id.contains(['\t', '\n', '\r', ' ', '"', '\\'])
            && *path == layout::entity_file(&f.id);
        if !fits || by_id.insert(&f.id, (path, f)).is_some() {
            return None;
        }
    }
    // The shards read: the changed entities', then those of the entities their new relations
    // name and of those whose edges from them change. Not those of every entity a changed one
    // named before (a hub names thousands, in every shard): whether those exist, the dangling
    // relations say.
    let mut texts: BTreeMap<usize, ShardTexts> = BTreeMap::new();
    let mut read = |n: usize, texts: &mut BTreeMap<usize, ShardTexts>| -> Option<()> {
        if let std::collections::btree_map::Entry::Vacant(e) = texts.entry(n) {
            let t = load(n)?;
            let fits = super::names::is_text_current(&t.names) && files_named_by_ids(&t.facts);
            e.insert(fits.then_some(t)?);
        }
        Some(())
    };
    for id in by_id.keys() {
        read(shard(id), &mut texts)?;
    }
    let mut old: BTreeMap<&str, EntityFacts> = BTreeMap::new();
    for (&id, (path, _)) in &by_id {
        if let Some(line) = fact_line(&texts[&shard(id)].facts, path) {
            old.insert(id, super::facts::parse_line(line)?.1);
        }
    }
    // A target the changed entity named before too, with the same edges, is left unread: its
    // line does not change, and the dangling relations say whether it exists.
    let mut wanted: BTreeSet<&str> = BTreeSet::new();
    for (&from, (_, f)) in &by_id {
        let o = old.get(from);
        let named_before = |t: &str| o.is_some_and(|o| o.relations.iter().any(|r| r.target == t));
        let same_edges = |t: &str| o.is_some_and(|o| block(o, t) == block(f, t));
        let all = f.relations.iter().chain(o.iter().flat_map(|o| o.relations.iter()));
        wanted
            .extend(all.map(|r| r.target.as_str()).filter(|t| !(named_before(t) && same_edges(t))));
    }
    for t in &wanted {
        read(shard(t), &mut texts)?;
    }
    // The nodes of the shards read, sorted by id: every node a lookup below asks about.
    let mut nodes: Vec<Record> = Vec::new();
    for t in texts.values() {
        nodes.extend(records(&t.cache)?);
    }
    nodes.sort_unstable_by(|a, b| a.0.cmp(b.0));
    if nodes.windows(2).any(|w| w[0].0 == w[1].0) {
        return None; // an id in two shards: not a set this build writes
    }
    let node_at = |nodes: &[Record], id: &str| nodes.binary_search_by(|n| n.0.cmp(id)).ok();
    let facts_of = |id: &str| texts.get(&shard(id)).map(|t| t.facts.as_str());
    // Each changed entity is new (no node, no kept facts, no relation naming it) or was there.
    for &id in by_id.keys() {
        match (node_at(&nodes, id), old.contains_key(id)) {
            (Some(_), true) => {}
            (None, false)
                if super::cache::find_line(dangling, (0, dangling.len()), id).is_none() => {}
            _ => return None,
        }
    }
    // The nodes after the change (new ones added with an empty line, their status set below).
    let added: Vec<Record> = by_id
        .iter()
        .filter(|(id, _)| !old.contains_key(*id))
        .map(|(&id, (_, f))| (id, f.status.as_str(), "".into(), 0))
        .collect();
    let after = Meta { entities: meta.entities + added.len(), ..meta };
    if after.outgrown() {
        return None; // every shard written again, with more of them
    }
    nodes.extend(added);
    nodes.sort_unstable_by(|a, b| a.0.cmp(b.0));
    // Whether `t`, which a relation of `source` names (now, or before the change), has an
    // entity: its node, when its shard was read; else a relation kept in the facts names an
    // entity unless the dangling relations list it (it names no new one: checked above).
    let exists_from =
        |source: &str, t: &str| exists(&nodes, texts.contains_key(&shard(t)), dangling, source, t);
    // Nodes whose lines are worked out again: the changed ones, and the targets whose edges
    // from a changed entity are not what they were (an edge block's place among a node's
    // incoming edges depends on nothing else).
    let mut touched: BTreeSet<&str> = by_id.keys().copied().collect();
    for (&from, (_, f)) in &by_id {
        let before = old.get(from);
        let targets = f.relations.iter().chain(before.iter().flat_map(|o| o.relations.iter()));
        for t in targets.map(|r| r.target.as_str()) {
            if !touched.contains(t)
                && exists_from(from, t)
                && before.is_none_or(|o| block(o, t) != block(f, t))
            {
                touched.insert(t);
            }
        }
    }
    let mut lines: Vec<(&str, String)> = Vec::with_capacity(touched.len());
    for &id in &touched {
        let at = node_at(&nodes, id)?;
        let (_, _, line, degree) = &nodes[at];
        let kept: Vec<&str> = entries(line).collect();
        if kept.len() != *degree {
            return None;
        }
        // The outgoing edges: a changed entity's from its new facts; another's are the first
        // of its line, as many as its kept facts give (it names no new entity: checked above).
        let (out, kept_out) = match by_id.get(id) {
            Some((_, f)) => {
                let exists = |t: &str| exists_from(id, t);
                (outgoing(f, &exists), old.get(id).map_or(0, |o| out_count(o, &exists)))
            }
            None => {
                let f = fact_line(facts_of(id)?, &layout::entity_file(id))?;
                let f = super::facts::parse_line(f)?.1;
                // Its targets' shards were not read: the dangling relations say which of them
                // have no entity (it names no new one: checked above).
                if f.relations.iter().any(|r| r.target.contains(['\t', '\n', '\r'])) {
                    return None;
                }
                let n = out_count(&f, &|t: &str| !is_dangling(dangling, t, id));
                (kept.get(..n)?.iter().map(|e| (*e).to_owned()).collect(), n)
            }
        };
        // The incoming edges: the line's, less the changed entities' blocks, with their new
        // blocks put where their files' order puts them (the last file's first).
        let mut incoming: Vec<(&str, String)> = Vec::new();
        for e in kept.get(kept_out..)? {
            let from = e.split_once(' ')?.0;
            if !by_id.contains_key(from) {
                incoming.push((from, (*e).to_owned()));
            }
        }
        for (&from, (_, f)) in by_id.iter().rev() {
            let entries: Vec<(&str, String)> =
                block(f, id).into_iter().map(|c| (from, entry(from, c))).collect();
            if entries.is_empty() {
                continue;
            }
            let at = incoming.iter().position(|(other, _)| file_order(other, from).is_lt());
            let at = at.unwrap_or(incoming.len());
            incoming.splice(at..at, entries);
        }
        let all: Vec<String> =
            out.into_iter().chain(incoming.into_iter().map(|(_, e)| e)).collect();
        lines.push((id, all.join("\t")));
    }
    for (id, line) in lines {
        let at = node_at(&nodes, id)?;
        nodes[at].3 = entries(&line).count();
        nodes[at].2 = line.into();
        if let Some((_, f)) = by_id.get(id) {
            nodes[at].1 = f.status.as_str();
        }
    }
    // The shards written: those of the changed and touched entities, when their texts changed.
    let mut written = Vec::new();
    for n in touched.iter().map(|id| shard(id)).collect::<BTreeSet<_>>() {
        let t = &texts[&n];
        let here: Vec<(&str, &(&str, &EntityFacts))> =
            by_id.iter().filter(|(id, _)| shard(id) == n).map(|(id, v)| (*id, v)).collect();
        let changed_names: Vec<(&str, Option<String>)> =
            here.iter().map(|(id, (_, f))| (*id, super::names::line(id, &f.names))).collect();
        let by_path: super::facts::Facts =
            here.iter().map(|(_, (path, f))| ((*path).to_owned(), (*f).clone())).collect();
        let fact_lines = String::from_utf8(super::facts::lines(&by_path)).ok()?;
        let fact_lines: Vec<&str> = fact_lines.lines().collect();
        if fact_lines.len() != by_path.len() {
            return None;
        }
        let (header, names_body) = t.names.split_once('\n')?;
        let names_body =
            put(names_body, changed_names.iter().map(|(id, l)| (*id, l.as_deref())), |l| {
                Some(super::cache::line_key(l))
            })?;
        let facts_body = put(
            &t.facts,
            by_path.keys().zip(&fact_lines).map(|(p, l)| (p.as_str(), Some(*l))),
            fact_path,
        )?;
        let cache = super::cache::text_of(
            nodes
                .iter()
                .filter(|(id, ..)| shard(id) == n)
                .map(|(id, status, edges, degree)| (*id, *status, &**edges, *degree)),
        );
        let names = format!("{header}\n{names_body}");
        if cache != t.cache || names != t.names || facts_body != t.facts {
            written.push((n, cache, names, facts_body.into_bytes()));
        }
    }
    // The dangling relations: the changed entities' old ones out, their new ones in.
    let mut dangling_lines: Vec<String> = dangling
        .lines()
        .filter(|l| l.rsplit_once('\t').is_none_or(|(_, from)| !by_id.contains_key(from)))
        .map(str::to_owned)
        .collect();
    for (&from, (_, f)) in &by_id {
        for r in &f.relations {
            let there =
                exists(&nodes, texts.contains_key(&shard(&r.target)), dangling, from, &r.target);
            if !there && !r.target.contains(['\t', '\n', '\r']) {
                dangling_lines.push(format!("{}\t{from}", r.target));
            }
        }
    }
    let dangling_text = super::shards::lines_text(dangling_lines);
    Some(Patched {
        shards: written,
        dangling: (dangling_text != dangling).then_some(dangling_text),
        meta: after,
    })
}

/// [`apply`] on the shard set of an index folder; `None` when a file it needs cannot be read,
/// is in another format, or the change is not one to patch.
pub(crate) fn in_shards(
    shards: &Shards,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    // Nothing is read for a change that cannot be patched.
    if changed.is_empty() || changed.iter().any(|(_, f)| f.is_none()) {
        return None;
    }
    let dangling = shards.dangling()?;
    // Derived, written by cogmem itself: the default bound is enough.
    let read = |path: &std::path::Path| {
        cogmem_store::store::fsx::read_text_if_exists(
            path,
            cogmem_store::store::fsx::DEFAULT_FILE_LIMIT,
        )
        .ok()?
    };
    let mut load = |n: usize| {
        let p = shards.paths(n);
        let (facts, body) = super::facts::read(&p.facts, &p.cache)?;
        Some(ShardTexts {
            cache: read(&p.cache)?,
            names: read(&p.names)?,
            facts: facts[body..].to_owned(),
        })
    };
    apply(shards.meta, &dangling, &mut load, changed)
}

/// Whether `target`, which a relation of `source` names (now, or before the change), has an
/// entity: its node among `nodes` when its shard was read (`read`); else a relation kept in the
/// facts names an entity unless the dangling relations list it (the caller reads the shard of
/// every target `source` did not name before).
fn exists(nodes: &[Record], read: bool, dangling: &str, source: &str, target: &str) -> bool {
    if read {
        nodes.binary_search_by(|n| n.0.cmp(target)).is_ok()
    } else {
        !is_dangling(dangling, target, source)
    }
}

/// Whether the dangling relations' lines hold `TARGET TAB SOURCE`.
fn is_dangling(lines: &str, target: &str, source: &str) -> bool {
    let key = format!("{target}\t{source}");
    let at = super::cache::first_line_not_below(lines, 0, |l| l < key.as_str());
    lines[at..].split('\n').next() == Some(key.as_str())
}

/// The node records of cache text, sorted by id; `None` unless it is a cache in this build's
/// shape (node lines in order, each edge line at its node's offset and ended by a newline).
/// The edge lines are not read: only the touched ones are, and their degrees checked then.
fn records(cache: &str) -> Option<Vec<Record<'_>>> {
    if !super::cache::is_text_current(cache) {
        return None;
    }
    let (_, rest) = cache.split_once('\n')?;
    let (nodes_line, rest) = rest.split_once('\n')?;
    let len: usize = nodes_line.strip_prefix("#nodes ")?.parse().ok()?;
    let (nodes, edges) = (rest.get(..len)?, rest.get(len..)?);
    if !nodes.is_empty() && !nodes.ends_with('\n') || !edges.is_empty() && !edges.ends_with('\n') {
        return None;
    }
    let mut out: Vec<(&str, &str, usize, usize)> = Vec::new();
    for line in nodes.lines() {
        let mut f = line.split('\t');
        let (Some(id), Some(status), Some(offset), Some(degree), None) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            return None;
        };
        let (offset, degree) = (offset.parse().ok()?, degree.parse().ok()?);
        // In order, each after the last one's line (at least its newline).
        if out.last().is_some_and(|&(last, _, at, _)| last >= id || at >= offset) {
            return None;
        }
        out.push((id, status, offset, degree));
    }
    let ends = out.iter().skip(1).map(|n| n.2).chain([edges.len()]);
    let records: Option<Vec<Record>> = out
        .iter()
        .zip(ends)
        .map(|(&(id, status, from, degree), to)| {
            let line = edges.get(from..to)?.strip_suffix('\n')?;
            Some((id, status, line.into(), degree))
        })
        .collect();
    records.filter(|r| r.first().is_none_or(|_| out[0].2 == 0))
}

/// The entries of an edge line (`other SPACE confidence`).
fn entries(line: &str) -> impl Iterator<Item = &str> {
    line.split('\t').filter(|e| !e.is_empty())
}

/// An edge line's entry for an edge to or from `other`.
fn entry(other: &str, confidence: f64) -> String {
    let mut e = String::with_capacity(other.len() + 4);
    e.push_str(other);
    e.push(' ');
    super::cache::push_confidence(&mut e, confidence);
    e
}

/// How many edges leave an entity of these facts: its relations that hold now and name an
/// entity of the graph.
fn out_count(f: &EntityFacts, exists: &impl Fn(&str) -> bool) -> usize {
    f.relations.iter().filter(|r| r.until.is_none() && exists(&r.target)).count()
}

/// The confidences of the edges an entity of these facts sends to `to`, the last
/// relation first: its block among `to`'s incoming edges.
fn block(f: &EntityFacts, to: &str) -> Vec<f64> {
    f.relations
        .iter()
        .rev()
        .filter(|r| r.target == to && r.until.is_none())
        .map(|r| r.confidence)
        .collect()
}

/// The outgoing entries of an entity of these facts, the last relation first.
fn outgoing(f: &EntityFacts, exists: &impl Fn(&str) -> bool) -> Vec<String> {
    f.relations
        .iter()
        .rev()
        .filter(|r| r.until.is_none() && exists(&r.target))
        .map(|r| entry(&r.target, r.confidence))
        .collect()
}

/// How the files of two entities sort by path (every file is named by its id: `DIR/ID.md`),
/// without making the paths.
fn file_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes().chain(*b".md").cmp(b.bytes().chain(*b".md"))
}

/// Whether every line of the facts is that of the file its id names (`["DIR/ID.md","ID",…`),
/// so that a path is known from an id and paths sort as [`file_order`] says.
fn files_named_by_ids(facts: &str) -> bool {
    let prefix = format!("[\"{}/", layout::ENTITIES_DIR);
    facts.lines().all(|line| {
        let Some(rest) = line.strip_prefix(&prefix) else { return false };
        let Some((id, rest)) = rest.split_once(".md\",\"") else { return false };
        !id.contains(['"', '\\', '/']) && rest.strip_prefix(id).is_some_and(|r| r.starts_with('"'))
    })
}

/// The path of a facts line checked by [`files_named_by_ids`].
fn fact_path(line: &str) -> Option<&str> {
    Some(line.strip_prefix("[\"")?.split_once('"')?.0)
}

/// The facts line of the file `path`, if any.
fn fact_line<'a>(facts: &'a str, path: &str) -> Option<&'a str> {
    let at =
        super::cache::first_line_not_below(facts, 0, |l| fact_path(l).is_some_and(|p| p < path));
    let line = facts[at..].split('\n').next()?;
    (fact_path(line) == Some(path)).then_some(line)
}

/// `body` (lines sorted by `key`, each ended by a newline) with, for each (key, line) of
/// `new` (sorted by key), the line of that key replaced by the new line, or the new line put
/// in its place when there was none (`None`: the line left out).
fn put<'a>(
    body: &str,
    new: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    key: impl Fn(&str) -> Option<&str>,
) -> Option<String> {
    if !body.is_empty() && !body.ends_with('\n') {
        return None;
    }
    let mut out = String::with_capacity(body.len() + 4096);
    let mut from = 0;
    for (k, line) in new {
        let mut comparable = true;
        let at = from
            + super::cache::first_line_not_below(&body[from..], 0, |l| {
                let lk = key(l);
                comparable &= lk.is_some();
                lk.is_some_and(|lk| lk < k)
            });
        if !comparable {
            return None;
        }
        out.push_str(&body[from..at]);
        let here = body[at..].split('\n').next().unwrap_or("");
        from = if at < body.len() && key(here)? == k { at + here.len() + 1 } else { at };
        if let Some(line) = line {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&body[from..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::facts::Facts;
    use cogmem_store::store::entity::RelationLine;

    /// The seeded generator, drawing indexes.
    struct Rng(crate::test_rng::Xorshift);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0.below(n as u64) as usize
        }
    }

    fn entity(id: &str, names: &[&str], status: &str, targets: &[&str]) -> (String, EntityFacts) {
        let relations = targets
            .iter()
            .enumerate()
            .map(|(i, t)| RelationLine {
                relation: ["knows", "works-at", "part-of"][i % 3].to_owned(),
                target: (*t).to_owned(),
                since: (i % 2 == 0).then(|| "2026-01-02".to_owned()),
                until: (i % 5 == 4).then(|| "2026-03-04".to_owned()),
                confidence: if i % 3 == 1 { 0.7 } else { 1.0 },
                line: 0,
            })
            .collect();
        let facts = EntityFacts {
            id: id.to_owned(),
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            status: status.to_owned(),
            relations,
        };
        (format!("memory/graph/entities/{id}.md"), facts)
    }

    /// What a rebuild writes for `facts` in `count` shards: the shards' texts, the dangling
    /// relations' lines and the `shards` file.
    fn rebuilt(facts: &Facts, count: usize) -> (BTreeMap<usize, ShardTexts>, String, Meta) {
        let g = super::super::from_facts(
            facts.iter().map(|(p, f)| (p.as_str(), f)),
            facts.len(),
            Default::default(),
        );
        let caches = super::super::cache::texts(&g, count);
        let names = super::super::names::texts(&g, count);
        let lines = super::super::facts::lines_by_shard(facts, count);
        let set = (0..count)
            .map(|n| {
                let facts = String::from_utf8(lines[n].clone()).expect("UTF-8");
                (n, ShardTexts { cache: caches[n].clone(), names: names[n].clone(), facts })
            })
            .collect();
        let named = facts.iter().all(|(p, f)| super::super::shards::named_by_id(p, f));
        let meta = Meta { count, entities: super::super::cache::node_count(&g), named };
        (set, super::super::shards::dangling_lines(&g), meta)
    }

    /// Checks that the set of `before` in `count` shards, with `got` written over it, is what
    /// a rebuild of `before` with `changed` writes.
    fn assert_rebuilt(
        before: &Facts,
        changed: &[(String, Option<EntityFacts>)],
        got: Patched,
        count: usize,
        case: usize,
    ) {
        let (mut set, mut dangling, _) = rebuilt(before, count);
        for (n, cache, names, facts) in got.shards {
            let facts = String::from_utf8(facts).unwrap();
            let was =
                set.insert(n, ShardTexts { cache, names, facts }).expect("a shard of the set");
            assert!(
                set[&n].cache != was.cache
                    || set[&n].names != was.names
                    || set[&n].facts != was.facts,
                "case {case}: shard {n} written unchanged"
            );
        }
        if let Some(d) = got.dangling {
            assert_ne!(d, dangling, "case {case}: the dangling relations written unchanged");
            dangling = d;
        }
        let mut after = before.clone();
        after.extend(changed.iter().map(|(p, f)| (p.clone(), f.clone().unwrap())));
        let (want, want_dangling, want_meta) = rebuilt(&after, count);
        for n in 0..count {
            assert_eq!(set[&n].cache, want[&n].cache, "case {case}, shard {n}");
            assert_eq!(set[&n].names, want[&n].names, "case {case}, shard {n}");
            assert_eq!(set[&n].facts, want[&n].facts, "case {case}, shard {n}");
        }
        assert_eq!(dangling, want_dangling, "case {case}");
        assert_eq!(got.meta, want_meta, "case {case}");
    }

    fn patched(
        before: &Facts,
        changed: &[(String, Option<EntityFacts>)],
        count: usize,
    ) -> Option<Patched> {
        let (set, dangling, meta) = rebuilt(before, count);
        apply(meta, &dangling, &mut |n| set.get(&n).cloned(), changed)
    }

    /// Workspaces of random entities (relations between them and to entities that do not
    /// exist, closed ones, shared names), then new entities of no relations, first, last and
    /// between: the patched texts are the rebuilt ones, byte for byte.
    #[test]
    fn new_entities_patched_in_are_what_a_rebuild_writes() {
        let mut rng = Rng(crate::test_rng::Xorshift(0x636f_676d));
        let kinds = ["person", "project", "place", "concept"];
        for case in 0..60 {
            let n = rng.below(40) + usize::from(case % 10 != 0); // some graphs empty
            let ids: Vec<String> =
                (0..n).map(|i| format!("{}--e{:03}", kinds[rng.below(4)], i * 7)).collect();
            let mut before = Facts::new();
            for id in &ids {
                let targets: Vec<String> = (0..rng.below(4))
                    .map(|_| match rng.below(4) {
                        0 => format!("person--gone{}", rng.below(9)),
                        _ => ids[rng.below(ids.len())].clone(),
                    })
                    .collect();
                let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
                let name = format!("name {}", rng.below(5));
                let status = ["active", "superseded", "merged"][rng.below(3)];
                let (path, f) = entity(id, &[&name, "alias"], status, &targets);
                before.insert(path, f);
            }
            let mut changed = Vec::new();
            for k in 0..=rng.below(3) {
                // Ids before, between and after the others (`e` ids are multiples of 7).
                let id = match rng.below(3) {
                    0 => format!("concept--a{case}-{k}"),
                    1 => format!("person--e{:03}x{k}", rng.below(n.max(1)) * 7),
                    _ => format!("project--z{case}-{k}"),
                };
                if before.values().any(|f| f.id == id) {
                    continue;
                }
                let (path, f) = entity(&id, &[&format!("new {k}"), "name 1"], "active", &[]);
                changed.push((path, Some(f)));
            }
            let count = 1 << (case % 3);
            let got = patched(&before, &changed, count).expect("patched");
            assert_rebuilt(&before, &changed, got, count, case);
        }
    }

    /// Random graphs, then random changes to a few entities (relations added, dropped,
    /// closed, pointed at other entities, at themselves, at new entities and at none; names
    /// and status changed) and new entities with relations among them: the patched texts are
    /// the rebuilt ones, byte for byte.
    #[test]
    fn changed_entities_patched_in_are_what_a_rebuild_writes() {
        let mut rng = Rng(crate::test_rng::Xorshift(0x7061_7463));
        let kinds = ["person", "project", "place", "concept"];
        let mut patched_cases = 0;
        for case in 0..200 {
            let n = rng.below(30) + 1;
            let ids: Vec<String> =
                (0..n).map(|i| format!("{}--e{:03}", kinds[rng.below(4)], i * 7)).collect();
            let targets_of = |rng: &mut Rng, pool: &[String]| -> Vec<String> {
                (0..rng.below(5))
                    .map(|_| match rng.below(5) {
                        0 => format!("person--gone{}", rng.below(9)),
                        _ => pool[rng.below(pool.len())].clone(),
                    })
                    .collect()
            };
            let mut before = Facts::new();
            for id in &ids {
                let targets = targets_of(&mut rng, &ids);
                let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
                let status = ["active", "superseded", "merged"][rng.below(3)];
                let (path, f) = entity(id, &[&format!("name {}", rng.below(5))], status, &targets);
                before.insert(path, f);
            }
            // New entities (ids before, between and after the others), then changes.
            let mut pool = ids.clone();
            let mut new_ids = Vec::new();
            for k in 0..rng.below(3) {
                let id = match rng.below(3) {
                    0 => format!("concept--a{case}-{k}"),
                    1 => format!("person--e{:03}x{k}", rng.below(n) * 7),
                    _ => format!("project--z{case}-{k}"),
                };
                new_ids.push(id.clone());
                pool.push(id);
            }
            let mut changed: Vec<(String, Option<EntityFacts>)> = Vec::new();
            let mut chosen: Vec<String> = new_ids.clone();
            for _ in 0..=rng.below(3) {
                chosen.push(ids[rng.below(n)].clone());
            }
            chosen.sort();
            chosen.dedup();
            for id in &chosen {
                let targets = targets_of(&mut rng, &pool);
                let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
                let status = ["active", "superseded", "inactive"][rng.below(3)];
                let (path, f) = entity(id, &[&format!("name {}", rng.below(5))], status, &targets);
                changed.push((path, Some(f)));
            }
            let count = 1 << (case % 4);
            let Some(got) = patched(&before, &changed, count) else {
                // Only a new entity that a kept relation already names may be left to a
                // rebuild here.
                let named = new_ids
                    .iter()
                    .any(|id| before.values().any(|f| f.relations.iter().any(|r| &r.target == id)));
                assert!(named, "case {case}: not patched");
                continue;
            };
            patched_cases += 1;
            assert_rebuilt(&before, &changed, got, count, case);
        }
        assert!(patched_cases > 150, "{patched_cases} of 200 cases patched");
    }

    /// An entity whose relations name entities in other shards, one of them missing, given a
    /// relation more (a hub given one more link): only its shard and the new target's are
    /// read and written, and its line still counts its edges right (the dangling relations say
    /// which of the targets not read exist).
    #[test]
    fn relations_into_shards_not_read_count_as_the_dangling_list_says() {
        let count = 8;
        let shard = |id: &str| super::super::shards::shard_of(id, count);
        let (a, c) = ("person--ann", "person--cy");
        let pick = |prefix: &str, avoid: &[usize]| {
            (0..)
                .map(|i| format!("{prefix}{i}"))
                .find(|id| !avoid.contains(&shard(id)))
                .expect("an id")
        };
        let gone = pick("person--gone", &[shard(a), shard(c)]);
        let bo = pick("person--bo", &[shard(a), shard(c), shard(&gone)]);
        let mut before = Facts::new();
        for (id, targets) in [(a, vec![gone.as_str(), &bo]), (&bo, vec![a, &gone]), (c, vec![])] {
            let (path, f) = entity(id, &["x"], "active", &targets);
            before.insert(path, f);
        }
        let (path, f) = entity(a, &["x"], "active", &[&gone, &bo, c]);
        let changed = [(path, Some(f))];
        let (set, dangling, meta) = rebuilt(&before, count);
        let mut read = BTreeSet::new();
        let mut load = |n| {
            read.insert(n);
            set.get(&n).cloned()
        };
        let got = apply(meta, &dangling, &mut load, &changed).expect("patched");
        assert_eq!(read, BTreeSet::from([shard(a), shard(c)]));
        assert_rebuilt(&before, &changed, got, count, 0);
    }

    #[test]
    fn a_change_a_rebuild_must_make_is_not_patched() {
        let mut before = Facts::new();
        for (id, targets) in [("person--ann", vec!["person--cy"]), ("person--bo", vec![])] {
            let (path, f) = entity(id, &["x"], "active", &targets);
            before.insert(path, f);
        }
        let new = |id: &str, targets: &[&str]| {
            let (path, f) = entity(id, &["y"], "active", targets);
            (path, Some(f))
        };
        for (what, changed) in [
            ("a new entity", vec![new("person--dee", &[])]),
            ("a new entity with a relation", vec![new("person--dee", &["person--ann"])]),
            ("a changed entity", vec![new("person--bo", &["person--ann", "person--bo"])]),
        ] {
            for count in [1, 2, 8] {
                assert!(patched(&before, &changed, count).is_some(), "{what}, {count} shards");
            }
        }
        let elsewhere = |id: &str| {
            let (_, f) = entity(id, &["y"], "active", &[]);
            (format!("memory/graph/entities/sub/{id}.md"), Some(f))
        };
        for (why, changed) in [
            ("named by a relation", vec![new("person--cy", &[])]),
            ("a removal", vec![("memory/graph/entities/person--bo.md".to_owned(), None)]),
            ("given twice", vec![new("person--dee", &[]), new("person--dee", &[])]),
            ("an id a cache leaves out", vec![new("person--d ee", &[])]),
            ("a file not named by its id", vec![elsewhere("person--dee")]),
            ("nothing", vec![]),
        ] {
            for count in [1, 2, 8] {
                assert!(patched(&before, &changed, count).is_none(), "{why}, {count} shards");
            }
        }
        // Texts that are not the caches, in the shard the change reads.
        let changed = [new("person--dee", &[])];
        let (set, dangling, meta) = rebuilt(&before, 1);
        let with = |f: &dyn Fn(&mut ShardTexts)| {
            let mut t = set[&0].clone();
            f(&mut t);
            apply(meta, &dangling, &mut |_| Some(t.clone()), &changed)
        };
        assert!(with(&|_| ()).is_some());
        assert!(with(&|t| t.cache.truncate(t.cache.len() - 1)).is_none());
        assert!(with(&|t| t.facts.truncate(t.facts.len() - 1)).is_none());
        assert!(with(&|t| t.cache = "#cogmem-graph-cache 4\n#nodes 9\n".into()).is_none());
        assert!(with(&|t| t.names = "#cogmem-names 0\n".into()).is_none());
        assert!(
            with(&|t| t.facts = t.facts.replace("person--bo.md", "person--bo2.md")).is_none(),
            "a kept file not named by its id"
        );
        // A shard that cannot be read; a set whose files are not all named by their ids; a set
        // grown past twice the entities per shard it was made for.
        assert!(apply(meta, &dangling, &mut |_| None, &changed).is_none());
        let not_named = Meta { named: false, ..meta };
        assert!(apply(not_named, &dangling, &mut |_| Some(set[&0].clone()), &changed).is_none());
        let full = Meta { entities: 2 * 1024, ..meta };
        assert!(apply(full, &dangling, &mut |_| Some(set[&0].clone()), &changed).is_none());
        let changed_only = [new("person--bo", &["person--ann"])];
        assert!(
            apply(full, &dangling, &mut |_| Some(set[&0].clone()), &changed_only).is_some(),
            "no entity added: the set is not outgrown"
        );
        // A dangling relation's target made an entity.
        let cy = [new("person--cy", &[])];
        assert!(apply(meta, &dangling, &mut |_| Some(set[&0].clone()), &cy).is_none());
        assert!(apply(meta, "", &mut |_| Some(set[&0].clone()), &cy).is_some(), "the list decides");
    }
}
