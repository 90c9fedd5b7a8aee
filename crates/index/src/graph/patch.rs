//! The graph's caches patched in place for entities new to the graph that touch no edge
//! (issue 20).
//!
//! A `remember` that names someone for the first time adds an entity file with no relations.
//! Rebuilding the graph cache, the names cache and the kept facts for it meant parsing every
//! entity's facts (4 MB of JSON lines at 10,000 entities), assembling the whole graph and
//! writing every line again: 80 ms at 100,000 memories, which the index update after the write
//! spent and a search right after it waited for. Such an entity changes no other entity's line:
//! it adds one node line with no edges to the graph cache (the node lines after it move their
//! edge offsets by one byte, for its empty edge line), one line to the names cache and one to
//! the facts. Those lines are put in place in the texts as they are, so the result is byte for
//! byte what a rebuild writes (the tests compare them).
//!
//! Anything else is rebuilt as before: an entity file changed or removed, one with relations,
//! one whose id another entity's relation already names (that relation would become an edge),
//! an id already in the graph or given twice, an id with a tab, line break or space (the caches
//! leave such ids out).

use std::cmp::Ordering;
use std::path::Path;

use cogmem_store::store::fsx;

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

/// `cache`, `names` and `facts` (the facts file's lines after its header, kept with that graph
/// cache) with the entity files `changed` (path, facts) put in; `None` unless every one of them
/// is an entity new to the graph with no relations and named by no relation (see the module).
pub(crate) fn add_new(
    cache: &str,
    names: &str,
    facts: &str,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    let mut added: Vec<(&str, &EntityFacts)> = Vec::with_capacity(changed.len());
    for (path, f) in changed {
        let f = f.as_ref()?;
        let fits = f.relations.is_empty()
            && super::EntityId::parse(&f.id).is_ok()
            && !f.id.contains(['\t', '\n', '\r', ' '])
            && !contains(facts, &serde_json::to_string(&f.id).ok()?);
        if !fits {
            return None;
        }
        added.push((path, f));
    }
    added.sort_unstable_by(|a, b| a.1.id.cmp(&b.1.id));
    if added.is_empty() || added.windows(2).any(|w| w[0].1.id == w[1].1.id) {
        return None;
    }
    Some(Patched {
        cache: cache_with(cache, &added)?,
        names: names_with(names, &added)?,
        facts: facts_with(facts, &added)?,
    })
}

/// [`add_new`] on the files: the graph cache at `cache`, the names cache at `names` and the
/// facts at `facts` (kept with that graph cache); `None` when one cannot be read, is in
/// another format, or the entities do not fit.
pub(crate) fn in_files(
    cache: &Path,
    names: &Path,
    facts: &Path,
    changed: &[(String, Option<EntityFacts>)],
) -> Option<Patched> {
    // Nothing is read for a change that cannot be patched.
    if changed.is_empty()
        || changed.iter().any(|(_, f)| f.as_ref().is_none_or(|f| !f.relations.is_empty()))
    {
        return None;
    }
    let (facts_text, body) = super::facts::read(facts, cache)?;
    // Derived, written by cogmem itself: the default bound is enough.
    let read = |path: &Path| fsx::read_text_if_exists(path, fsx::DEFAULT_FILE_LIMIT).ok()?;
    let (cache_text, names_text) = (read(cache)?, read(names)?);
    if !super::cache::is_text_current(&cache_text) || !super::names::is_text_current(&names_text) {
        return None;
    }
    add_new(&cache_text, &names_text, &facts_text[body..], changed)
}

fn contains(haystack: &str, needle: &str) -> bool {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some()
}

/// Where in `text` (sorted lines, each ended by a newline) a line goes that each line compares
/// to as `cmp` says: the start of the first line greater than it. `None` when a line compares
/// equal or a line looked at cannot be compared.
fn insertion(text: &str, cmp: impl Fn(&str) -> Option<Ordering>) -> Option<usize> {
    let mut comparable = true;
    let at = super::cache::first_line_not_below(text, 0, |line| {
        let order = cmp(line);
        comparable &= order.is_some();
        order == Some(Ordering::Less)
    });
    let line = text[at..].split('\n').next().unwrap_or("");
    let equal = at < text.len() && cmp(line) != Some(Ordering::Greater);
    (comparable && !equal).then_some(at)
}

/// The graph cache with a node line of no edges for each of `added` (sorted by id).
fn cache_with(cache: &str, added: &[(&str, &EntityFacts)]) -> Option<String> {
    use std::fmt::Write as _;
    let (header, rest) = cache.split_once('\n')?;
    let (nodes_line, rest) = rest.split_once('\n')?;
    let len: usize = nodes_line.strip_prefix("#nodes ")?.parse().ok()?;
    let (nodes, edges) = (rest.get(..len)?, rest.get(len..)?);
    // One edge line per node line, each ended by a newline: else not a cache this build wrote
    // whole (it is rebuilt).
    let count = |text: &str| memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if !nodes.is_empty() && !nodes.ends_with('\n')
        || !edges.is_empty() && !edges.ends_with('\n')
        || count(nodes) != count(edges)
    {
        return None;
    }
    // The node lines, each new node before the first node of a greater id: its offset is that
    // node's edge offset, where its empty edge line goes; the nodes after it move by one byte.
    let mut node_lines = String::with_capacity(nodes.len() + added.len() * 64);
    let mut breaks: Vec<usize> = Vec::with_capacity(added.len());
    let mut next = added.iter().peekable();
    let mut shift = 0;
    for line in nodes.lines() {
        let mut f = line.split('\t');
        let (Some(id), Some(status), Some(offset), Some(degree), None) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            return None;
        };
        let offset: usize = offset.parse().ok()?;
        while let Some((_, new)) = next.next_if(|(_, n)| n.id.as_str() <= id) {
            if new.id == id {
                return None;
            }
            let _ = writeln!(node_lines, "{}\t{}\t{}\t0", new.id, new.status, offset + shift);
            breaks.push(offset);
            shift += 1;
        }
        let _ = writeln!(node_lines, "{id}\t{status}\t{}\t{degree}", offset + shift);
    }
    for (_, new) in next {
        let _ = writeln!(node_lines, "{}\t{}\t{}\t0", new.id, new.status, edges.len() + shift);
        breaks.push(edges.len());
        shift += 1;
    }
    let mut out = String::with_capacity(cache.len() + node_lines.len() - nodes.len() + shift + 8);
    let _ = write!(out, "{header}\n#nodes {}\n", node_lines.len());
    out.push_str(&node_lines);
    let mut from = 0;
    for at in breaks {
        out.push_str(edges.get(from..at)?);
        out.push('\n');
        from = at;
    }
    out.push_str(&edges[from..]);
    Some(out)
}

/// The names cache with a line for each of `added`, where the sort of whole lines puts it.
fn names_with(names: &str, added: &[(&str, &EntityFacts)]) -> Option<String> {
    let (header, body) = names.split_once('\n')?;
    let mut lines: Vec<String> = added
        .iter()
        .map(|(_, f)| {
            let mut line = f.id.clone();
            for name in f.names.iter().filter(|n| !n.contains(['\t', '\n', '\r'])) {
                line.push('\t');
                line.push_str(name);
            }
            line
        })
        .collect();
    lines.sort_unstable();
    Some(format!("{header}\n{}", splice(body, &lines, |line, new| Some(line.cmp(new)))?))
}

/// The facts' lines with one for each of `added`, in the order of their paths.
fn facts_with(facts: &str, added: &[(&str, &EntityFacts)]) -> Option<Vec<u8>> {
    let by_path: Facts = added.iter().map(|(path, f)| ((*path).to_owned(), (*f).clone())).collect();
    let lines = String::from_utf8(super::facts::lines(&by_path)).ok()?;
    let lines: Vec<String> = lines.lines().map(str::to_owned).collect();
    if lines.len() != by_path.len() {
        return None;
    }
    let path = |line: &str| super::facts::path_of(line);
    let spliced = splice(facts, &lines, |line, new| Some(path(line)?.cmp(&path(new)?)))?;
    Some(spliced.into_bytes())
}

/// `body` (sorted lines, each ended by a newline) with the lines `new` (sorted) each put
/// where `cmp` (of a line of `body` with a new one) says.
fn splice(
    body: &str,
    new: &[String],
    cmp: impl Fn(&str, &str) -> Option<Ordering>,
) -> Option<String> {
    if !body.is_empty() && !body.ends_with('\n') {
        return None;
    }
    let mut out = String::with_capacity(body.len() + new.len() * 128);
    let mut from = 0;
    for line in new {
        let at = from + insertion(&body[from..], |l| cmp(l, line))?;
        out.push_str(&body[from..at]);
        out.push_str(line);
        out.push('\n');
        from = at;
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

    fn patched(before: &Facts, changed: &[(String, Option<EntityFacts>)]) -> Option<Patched> {
        let (cache, names, facts) = rebuilt(before);
        add_new(&cache, &names, &facts, changed)
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
            let mut after = before.clone();
            after.extend(changed.iter().map(|(p, f)| (p.clone(), f.clone().unwrap())));
            let (cache, names, facts) = rebuilt(&after);
            assert_eq!(got.cache, cache, "case {case}");
            assert_eq!(got.names, names, "case {case}");
            assert_eq!(String::from_utf8(got.facts).unwrap(), facts, "case {case}");
        }
    }

    #[test]
    fn anything_but_a_new_entity_that_touches_no_edge_is_left_to_a_rebuild() {
        let mut before = Facts::new();
        for (id, targets) in [("person--ann", vec!["person--cy"]), ("person--bo", vec![])] {
            let (path, f) = entity(id, &["x"], "active", &targets);
            before.insert(path, f);
        }
        let new = |id: &str, targets: &[&str]| {
            let (path, f) = entity(id, &["y"], "active", targets);
            (path, Some(f))
        };
        assert!(patched(&before, &[new("person--dee", &[])]).is_some());
        for (why, changed) in [
            ("named by a relation", vec![new("person--cy", &[])]),
            ("already in the graph", vec![new("person--bo", &[])]),
            ("with a relation", vec![new("person--dee", &["person--ann"])]),
            ("a removal", vec![("memory/graph/entities/person--bo.md".to_owned(), None)]),
            ("given twice", vec![new("person--dee", &[]), new("person--dee", &[])]),
            ("an id a cache leaves out", vec![new("person--d ee", &[])]),
            ("nothing", vec![]),
        ] {
            assert!(patched(&before, &changed).is_none(), "{why}");
        }
        // Texts that are not the caches.
        let (cache, names, facts) = rebuilt(&before);
        let changed = [new("person--dee", &[])];
        assert!(add_new(&cache[..cache.len() - 1], &names, &facts, &changed).is_none());
        assert!(add_new(&cache, &names, &facts[..facts.len() - 1], &changed).is_none());
        assert!(add_new("#cogmem-graph-cache 4\n#nodes 9\n", &names, &facts, &changed).is_none());
    }
}
