//! The graph's caches patched in place after a change to a few entities (issue 20).
//!
//! A `remember` names someone for the first time, or links two entities, or adds a name: one
//! or two entity files change. Rebuilding the graph cache, the names cache and the kept facts
//! for that meant parsing every entity's facts (4 MB of JSON lines at 10,000 entities),
//! assembling the whole graph and writing every line again: 80–90 ms at 100,000 memories,
//! which the index update after the write spent and a search right after it waited for.
//!
//! Such a change touches few lines: the changed entities' own, and those of the entities their
//! relations point at, before or after. The graph cache is read as (id, status, edge line)
//! records, those lines are worked out again from the facts, and the records are written back
//! with their offsets; the names cache and the facts get the changed entities' lines put in
//! place. The result is byte for byte what a rebuild writes (the tests compare them), which
//! takes knowing the rebuild's order: edges go into the graph file by file in the order of the
//! files' paths, each file's relations in their order, and each node lists its outgoing edges
//! and then its incoming ones, the last added first.
//!
//! Anything else is rebuilt as before: an entity file removed, a file whose name is not its
//! entity's id, a new entity whose id a relation already names (that relation would become an
//! edge), an id given twice or holding a tab, line break or space (the caches leave such ids
//! out), or caches not in the shape this build writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cogmem_store::store::fsx;
use cogmem_store::workspace::layout;

use super::EntityFacts;
use super::facts::Facts;

/// The three caches' new texts.
#[derive(Debug)]
pub(crate) struct Patched {
    /// The graph cache (`graph.tsv`).
    pub cache: String,
    /// The names cache (`names.tsv`).
    pub names: String,
    /// The facts' lines, without their header (`graph-facts.jsonl`).
    pub facts: Vec<u8>,
}

/// A node of the graph cache: id, status, its edge line (without the newline) and its degree.
type Record<'a> = (&'a str, &'a str, std::borrow::Cow<'a, str>, usize);

/// `cache`, `names` and `facts` (the facts file's lines after its header, kept with that graph
/// cache) with the entity files `changed` (path, facts) put in; `None` when the change is one a
/// rebuild must make (see the module).
pub(crate) fn apply(
    cache: &str,
    names: &str,
    facts: &str,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    let mut nodes = records(cache)?;
    if changed.is_empty() || !super::names::is_text_current(names) || !files_named_by_ids(facts) {
        return None;
    }
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
    let node_at = |nodes: &[Record], id: &str| nodes.binary_search_by(|n| n.0.cmp(id)).ok();
    // What each changed entity was: its kept facts (none for a new one).
    let mut old: BTreeMap<&str, EntityFacts> = BTreeMap::new();
    for (&id, (path, _)) in &by_id {
        let line = fact_line(facts, path);
        match (node_at(&nodes, id), line) {
            (Some(_), Some(line)) => {
                old.insert(id, super::facts::parse_line(line)?.1);
            }
            // New: no relation may name it yet (that relation would become an edge).
            (None, None) if !contains(facts, &format!("\"{id}\"")) => {}
            _ => return None,
        }
    }
    // The nodes after the change (new ones added with an empty line, their status set below).
    let added: Vec<Record> = by_id
        .iter()
        .filter(|(id, _)| !old.contains_key(*id))
        .map(|(&id, (_, f))| (id, f.status.as_str(), "".into(), 0))
        .collect();
    nodes.extend(added);
    nodes.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let exists = |id: &str| node_at(&nodes, id).is_some();
    // Nodes whose lines are worked out again: the changed ones, and the targets whose edges
    // from a changed entity are not what they were (an edge block's place among a node's
    // incoming edges depends on nothing else).
    let mut touched: BTreeSet<&str> = by_id.keys().copied().collect();
    for (&from, (_, f)) in &by_id {
        let before = old.get(from);
        let targets = f.relations.iter().chain(before.iter().flat_map(|o| o.relations.iter()));
        for t in targets.map(|r| r.target.as_str()) {
            if !touched.contains(t)
                && exists(t)
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
                (outgoing(f, &exists), old.get(id).map_or(0, |o| out_count(o, &exists)))
            }
            None => {
                let f = super::facts::parse_line(fact_line(facts, &layout::entity_file(id))?)?.1;
                let n = out_count(&f, &exists);
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
    let changed_names: Vec<(&str, Option<String>)> =
        by_id.iter().map(|(&id, (_, f))| (id, super::names::line(id, &f.names))).collect();
    let by_path: Facts =
        by_id.values().map(|(path, f)| ((*path).to_owned(), (*f).clone())).collect();
    let fact_lines = String::from_utf8(super::facts::lines(&by_path)).ok()?;
    let fact_lines: Vec<&str> = fact_lines.lines().collect();
    if fact_lines.len() != by_path.len() {
        return None;
    }
    let (header, names_body) = names.split_once('\n')?;
    let names_body =
        put(names_body, changed_names.iter().map(|(id, l)| (*id, l.as_deref())), |l| {
            Some(super::cache::line_key(l))
        })?;
    let facts_body = put(
        facts,
        by_path.keys().zip(&fact_lines).map(|(p, l)| (p.as_str(), Some(*l))),
        fact_path,
    )?;
    Some(Patched {
        cache: super::cache::text_of(
            nodes.iter().map(|(id, status, edges, degree)| (*id, *status, &**edges, *degree)),
        ),
        names: format!("{header}\n{names_body}"),
        facts: facts_body.into_bytes(),
    })
}

/// [`apply`] on the files: the graph cache at `cache`, the names cache at `names` and the
/// facts at `facts` (kept with that graph cache); `None` when one cannot be read, is in
/// another format, or the change is not one to patch.
pub(crate) fn in_files(
    cache: &Path,
    names: &Path,
    facts: &Path,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    // Nothing is read for a change that cannot be patched.
    if changed.is_empty() || changed.iter().any(|(_, f)| f.is_none()) {
        return None;
    }
    let (facts_text, body) = super::facts::read(facts, cache)?;
    // Derived, written by cogmem itself: the default bound is enough.
    let read = |path: &Path| fsx::read_text_if_exists(path, fsx::DEFAULT_FILE_LIMIT).ok()?;
    apply(&read(cache)?, &read(names)?, &facts_text[body..], changed)
}

fn contains(haystack: &str, needle: &str) -> bool {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some()
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

    /// The three texts a rebuild writes for `facts`.
    fn rebuilt(facts: &Facts) -> (String, String, String) {
        let g = super::super::from_facts(
            facts.iter().map(|(p, f)| (p.as_str(), f)),
            facts.len(),
            Default::default(),
        );
        let lines = String::from_utf8(super::super::facts::lines(facts)).expect("UTF-8");
        (g.cache_text(), super::super::names::text(&g), lines)
    }

    /// Checks that `got` is what a rebuild of `before` with `changed` writes.
    fn assert_rebuilt(
        before: &Facts,
        changed: &[(String, Option<EntityFacts>)],
        got: Patched,
        case: usize,
    ) {
        let mut after = before.clone();
        after.extend(changed.iter().map(|(p, f)| (p.clone(), f.clone().unwrap())));
        let (cache, names, facts) = rebuilt(&after);
        assert_eq!(got.cache, cache, "case {case}");
        assert_eq!(got.names, names, "case {case}");
        assert_eq!(String::from_utf8(got.facts).unwrap(), facts, "case {case}");
    }

    fn patched(before: &Facts, changed: &[(String, Option<EntityFacts>)]) -> Option<Patched> {
        let (cache, names, facts) = rebuilt(before);
        apply(&cache, &names, &facts, changed)
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
            let got = patched(&before, &changed).expect("patched");
            assert_rebuilt(&before, &changed, got, case);
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
            let Some(got) = patched(&before, &changed) else {
                // Only a new entity that a kept relation already names may be left to a
                // rebuild here.
                let named = new_ids
                    .iter()
                    .any(|id| before.values().any(|f| f.relations.iter().any(|r| &r.target == id)));
                assert!(named, "case {case}: not patched");
                continue;
            };
            patched_cases += 1;
            assert_rebuilt(&before, &changed, got, case);
        }
        assert!(patched_cases > 150, "{patched_cases} of 200 cases patched");
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
            assert!(patched(&before, &changed).is_some(), "{what}");
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
            assert!(patched(&before, &changed).is_none(), "{why}");
        }
        // Texts that are not the caches.
        let (cache, names, facts) = rebuilt(&before);
        let changed = [new("person--dee", &[])];
        assert!(apply(&cache[..cache.len() - 1], &names, &facts, &changed).is_none());
        assert!(apply(&cache, &names, &facts[..facts.len() - 1], &changed).is_none());
        assert!(apply("#cogmem-graph-cache 4\n#nodes 9\n", &names, &facts, &changed).is_none());
        let odd = facts.replace("person--bo.md", "person--bo2.md");
        assert!(apply(&cache, &names, &odd, &changed).is_none(), "a kept file not named by its id");
    }
}
