//! What an OPERATION block's TARGET names, for the operation it is (issue 19): the memory an
//! EXTRACT writes into, the relation a CONNECT records, the core bullet or entity fact a REWRITE
//! replaces. Read-only: it reads the workspace as it is now, so `reflect submit` and `reflect
//! approve` (which resolves every block again) each see the files of their own moment.
//!
//! TARGET forms, besides the memory ids and `memory/` paths every block accepts:
//! - EXTRACT: an entity (`entity:TYPE--SLUG`, `TYPE--SLUG` or its file; created with the type
//!   its id names when missing), a procedure (`procedure:SLUG` or its file; created when
//!   missing), MEMORY.md (`MEMORY.md`, or `MEMORY.md#SECTION` such as `MEMORY.md#Critical
//!   Facts`; Active Context by default), or an episode log (`memory/episodes/`, a day's file or
//!   an episode id: a new entry in today's log).
//! - REWRITE: a core bullet (`core:SECTION:HASH8`, or `MEMORY.md#TEXT` with its text or the
//!   start of it) or an entity fact (`entity:TYPE--SLUG#TEXT`, likewise).

use cogmem_store::store::Store;
use cogmem_store::store::core_memory::CoreSection;
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::markdown::{self, one_line, slugify};
use cogmem_store::store::units::Units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::id::Match;

use crate::error::{InputError, RuleError};
use crate::remember::Relation;

/// What a block will write, once approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Nothing but the reflection's record (FLAG, PATTERN, EVOLVE), or the memory named by the
    /// block's id (ARCHIVE).
    Recorded,
    /// EXTRACT: a fact of this entity.
    Entity(EntityId),
    /// EXTRACT: steps of the procedure with this slug.
    Procedure(String),
    /// EXTRACT: a bullet of this MEMORY.md section.
    Core(CoreSection),
    /// EXTRACT: an entry of today's episode log.
    Episode,
    /// CONNECT: this relation and its inverse.
    Relation(Relation),
    /// REWRITE: the core bullet with this id.
    CoreBullet(String),
    /// REWRITE: the fact of `entity` that reads `fact`, as written.
    Fact {
        /// The entity.
        entity: EntityId,
        /// The fact as the file has it.
        fact: String,
    },
}

/// Splits `TARGET#FRAGMENT`.
fn split(target: &str) -> (&str, Option<&str>) {
    match target.split_once('#') {
        Some((base, frag)) => (base.trim(), Some(frag.trim()).filter(|f| !f.is_empty())),
        None => (target.trim(), None),
    }
}

/// The entity a target names by id or file, when it names one (not whether it exists).
fn entity_of(base: &str) -> Option<EntityId> {
    if let Some(stem) = base
        .strip_prefix(layout::ENTITIES_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(".md"))
    {
        return EntityId::parse(stem).ok();
    }
    if base.starts_with("entity:") || (!base.contains(':') && !base.contains('/')) {
        return EntityId::parse_given(base).ok();
    }
    None
}

/// The procedure slug a target names by id or file.
fn procedure_of(base: &str) -> Option<&str> {
    base.strip_prefix("procedure:").or_else(|| {
        base.strip_prefix(layout::PROCEDURES_DIR)?.strip_prefix('/')?.strip_suffix(".md")
    })
}

/// Resolves an EXTRACT block's TARGET. `Err` says why it cannot be written.
pub(crate) fn extract(target: &str) -> Result<Resolved, String> {
    let (base, fragment) = split(target);
    if base == layout::MEMORY_MD {
        let section = match fragment {
            None => CoreSection::ActiveContext,
            Some(f) => CoreSection::parse(f).map_err(|e| format!("TARGET {target:?}: {e}"))?,
        };
        return Ok(Resolved::Core(section));
    }
    if fragment.is_some() {
        return Err(format!(
            "TARGET {target:?}: only `MEMORY.md#SECTION` takes a `#` part in an EXTRACT"
        ));
    }
    if let Some(id) = entity_of(base) {
        return Ok(Resolved::Entity(id));
    }
    if let Some(slug) = procedure_of(base) {
        if slug.is_empty() || slugify(slug) != slug {
            return Err(format!(
                "TARGET {target:?}: a procedure is named by its lower-kebab slug, like \
                 `procedure:deploy-the-site`"
            ));
        }
        return Ok(Resolved::Procedure(slug.to_owned()));
    }
    let in_episodes = base == layout::EPISODES_DIR
        || base.strip_prefix(layout::EPISODES_DIR).is_some_and(|r| r.starts_with('/'));
    if in_episodes || base.starts_with("episode:") {
        return Ok(Resolved::Episode);
    }
    if base.starts_with("vault:") || base.starts_with(layout::VAULT_DIR) {
        return Err(format!(
            "TARGET {target:?}: the vault holds what a person pinned; a reflection does not \
             write to it"
        ));
    }
    Err(format!(
        "TARGET {target:?}: EXTRACT writes a fact to an entity (entity:TYPE--SLUG), a step \
         to a procedure (procedure:SLUG), a bullet to MEMORY.md (MEMORY.md#SECTION) or an entry \
         to the episode log (memory/episodes/)"
    ))
}

/// Finds the one of `items` that is `wanted` (whitespace aside) or starts with it (ignoring
/// case): what a `#TEXT` part names.
fn pick<'a>(wanted: &str, items: &'a [String], what: &str) -> Result<&'a String, String> {
    let wanted = one_line(wanted);
    if let Some(exact) = items.iter().find(|i| markdown::is_one_line_of(i, &wanted)) {
        return Ok(exact);
    }
    let lower = wanted.to_lowercase();
    let hits: Vec<&String> =
        items.iter().filter(|i| one_line(i).to_lowercase().starts_with(&lower)).collect();
    match hits.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("no {what} reads or starts with {wanted:?}")),
        many => Err(format!(
            "{} {what}s start with {wanted:?}; give more of the text: {}",
            many.len(),
            many.iter().map(|h| format!("{h:?}")).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Resolves a REWRITE block's TARGET among the memories now (`all`, `decay`). A pinned core
/// bullet is refused: a person pinned it as it is.
pub(crate) fn rewrite(
    ws: &Workspace,
    block: usize,
    target: &str,
    all: &Units,
    decay: Option<&DecayFile>,
) -> crate::Result<Resolved> {
    let bad = |why: String| InputError::ReflectBlock { block, why };
    let (base, fragment) = split(target);
    let core_id = if base == layout::MEMORY_MD {
        let Some(f) = fragment else {
            return Err(bad(format!(
                "TARGET {target:?}: name the bullet, as `MEMORY.md#its text` or its id \
                 `core:SECTION:HASH8`"
            ))
            .into());
        };
        let core: Vec<&cogmem_store::store::units::MemoryUnit> =
            all.units.iter().filter(|u| u.store == Store::Core).collect();
        let texts: Vec<String> = core.iter().map(|u| u.text.clone()).collect();
        let text = pick(f, &texts, "core bullet").map_err(bad)?;
        core.iter().find(|u| &u.text == text).map(|u| u.id.clone()).expect("picked from them")
    } else if base.starts_with("core:") {
        let id = crate::id::memory(base, all, decay, Match::Prefix)
            .map_err(|e| bad(format!("TARGET {target:?}: {e}")))?;
        if all.get(&id).is_none_or(|u| u.store != Store::Core) {
            return Err(bad(format!("TARGET {target:?}: {id} is not a bullet of MEMORY.md")).into());
        }
        id
    } else if let Some(id) = entity_of(base) {
        let Some(f) = fragment else {
            return Err(bad(format!(
                "TARGET {target:?}: name the fact, as `entity:{id}#its text`"
            ))
            .into());
        };
        let rel = layout::entity_file(id.as_str());
        let Some(text) = ws.read_text_if_exists(&rel)? else {
            return Err(bad(format!("TARGET {target:?}: {rel} does not exist")).into());
        };
        let facts = entity::facts(&text);
        let fact = pick(f, &facts, "fact of the entity").map_err(bad)?.clone();
        return Ok(Resolved::Fact { entity: id, fact });
    } else {
        return Err(bad(format!(
            "TARGET {target:?}: REWRITE replaces a core bullet (`core:SECTION:HASH8` or \
             `MEMORY.md#its text`) or an entity fact (`entity:TYPE--SLUG#its text`)"
        ))
        .into());
    };
    if decay.is_some_and(|d| d.is_pinned(&core_id)) {
        return Err(RuleError::ReflectPinned { block, id: core_id, what: "rewritten" }.into());
    }
    Ok(Resolved::CoreBullet(core_id))
}

/// Resolves a CONNECT block's CONTENT (`FROM|RELATION|TO`), checked as `remember --relation`
/// checks it: the vocabulary must define the relation ([`crate::vocabulary::check`], with the
/// nearest names), and an acyclic relation must not close a loop among the current edges and
/// those of the earlier CONNECT blocks (`earlier`).
pub(crate) fn connect(
    ws: &Workspace,
    block: usize,
    content: &str,
    vocab: &cogmem_store::vocab::Vocabulary,
    graph: &cogmem_index::graph::Graph,
    earlier: &[Relation],
) -> crate::Result<Resolved> {
    let wrap = |e: InputError| InputError::ReflectWrite { block, error: Box::new(e) };
    let r = Relation::parse(&one_line(content)).map_err(wrap)?;
    crate::vocabulary::check(ws, vocab, std::slice::from_ref(&r)).map_err(|e| match e {
        crate::Error::Store(cogmem_store::Error::Input(i)) => wrap(i).into(),
        other => other,
    })?;
    if vocab.get(&r.relation).is_some_and(|s| s.acyclic)
        && let Some(path) = loop_path(graph, earlier, &r)
    {
        return Err(InputError::ReflectBlock {
            block,
            why: format!("`{}` must not loop, but {} would", r.relation, path.join(" → ")),
        }
        .into());
    }
    Ok(Resolved::Relation(r))
}

/// The loop `r` would close among the current `r.relation` edges of `graph` and `earlier`:
/// `r.from → r.to → … → r.from`, or `None`.
fn loop_path(
    graph: &cogmem_index::graph::Graph,
    earlier: &[Relation],
    r: &Relation,
) -> Option<Vec<String>> {
    use petgraph::visit::EdgeRef as _;
    let mut edges: Vec<(String, String)> = graph
        .g
        .edge_references()
        .filter(|e| e.weight().relation == r.relation && e.weight().until.is_none())
        .map(|e| (graph.node(e.source()).id.clone(), graph.node(e.target()).id.clone()))
        .collect();
    edges.extend(
        earlier
            .iter()
            .filter(|e| e.relation == r.relation)
            .map(|e| (e.from.as_str().to_owned(), e.to.as_str().to_owned())),
    );
    let (from, to) = (r.from.as_str().to_owned(), r.to.as_str().to_owned());
    // Breadth-first from `to`, back to `from`.
    let mut seen: Vec<String> = vec![to.clone()];
    let mut queue = std::collections::VecDeque::from([(to.clone(), vec![from.clone(), to])]);
    while let Some((at, path)) = queue.pop_front() {
        if at == from {
            return Some(path);
        }
        for (_, next) in edges.iter().filter(|(a, _)| *a == at) {
            if !seen.contains(next) {
                seen.push(next.clone());
                let mut p = path.clone();
                p.push(next.clone());
                queue.push_back((next.clone(), p));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_targets_name_a_store() {
        let entity = |s: &str| Ok(Resolved::Entity(EntityId::parse(s).unwrap()));
        let cases = [
            ("entity:person--ann", entity("person--ann")),
            ("person--ann", entity("person--ann")),
            ("memory/graph/entities/project--atlas.md", entity("project--atlas")),
            ("procedure:deploy-site", Ok(Resolved::Procedure("deploy-site".into()))),
            ("memory/procedures/deploy-site.md", Ok(Resolved::Procedure("deploy-site".into()))),
            ("MEMORY.md", Ok(Resolved::Core(CoreSection::ActiveContext))),
            ("MEMORY.md#Critical Facts", Ok(Resolved::Core(CoreSection::CriticalFacts))),
            ("MEMORY.md#persona", Ok(Resolved::Core(CoreSection::Persona))),
            ("memory/episodes/", Ok(Resolved::Episode)),
            ("memory/episodes/2026-12-01.md", Ok(Resolved::Episode)),
            ("episode:2026-12-01:09:00", Ok(Resolved::Episode)),
        ];
        for (input, want) in cases {
            assert_eq!(extract(input), want, "input: {input:?}");
        }
        for (input, why) in [
            ("MEMORY.md#Hobbies", "unknown core section"),
            ("entity:person--ann#x", "only `MEMORY.md#SECTION`"),
            ("procedure:Deploy Site", "lower-kebab slug"),
            ("memory/vault/wifi.md", "the vault"),
            ("memory/meta/evolution.md", "EXTRACT writes a fact"),
        ] {
            let got = extract(input).unwrap_err();
            assert!(got.contains(why), "input {input:?}: {got}");
        }
    }

    #[test]
    fn a_fragment_picks_one_item() {
        let items = vec!["Ann lives in Oslo".to_owned(), "Ann likes tea".to_owned()];
        assert_eq!(pick("ann likes", &items, "fact"), Ok(&items[1]));
        assert_eq!(pick("Ann  lives in Oslo", &items, "fact"), Ok(&items[0]));
        assert!(pick("Ann", &items, "fact").unwrap_err().contains("2 facts start with"));
        assert!(pick("Bob", &items, "fact").unwrap_err().contains("no fact reads"));
    }
}
