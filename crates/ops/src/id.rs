//! Which memory or entity a person means: the one resolver behind every command and MCP tool
//! that takes a memory id (`why`, `show`, `touch`, `pin`, `unpin`, `forget`, `restore`,
//! `forget --purge`) or an entity (`graph show`, `neighbors`, `path`, `history`, `export
//! --around`, `merge`, `supersede`). The forms accepted are `cogmem_text::id`'s: the id,
//! `TYPE--SLUG` for `entity:TYPE--SLUG` and back, and the start of exactly one id; an entity
//! also by a name or alias only it has. A miss names the nearest ids in its hint, an ambiguity
//! lists the candidates. Read-only.

use std::collections::BTreeSet;

use cogmem_index::graph::Graph;
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::units::{self, Units};
use cogmem_store::workspace::Workspace;
use cogmem_text::id::{self, Lookup, Space};

pub use cogmem_text::id::Match;

/// Returns the memory id `given` stands for among the workspace's memories (`all`) and, when
/// given, the entries of its decay file (a forgotten core bullet has no unit, only its entry).
///
/// Fails with [`InputError::UnknownId`](crate::error::InputError::UnknownId) (the nearest ids
/// in its hint) or [`InputError::AmbiguousId`](crate::error::InputError::AmbiguousId).
pub fn memory(
    given: &str,
    all: &Units,
    decay: Option<&DecayFile>,
    how: Match,
) -> crate::Result<String> {
    if all.get(given).is_some() || decay.is_some_and(|d| d.has(given)) {
        return Ok(given.to_owned());
    }
    let mut known: BTreeSet<String> = all.units.iter().map(|u| u.id.clone()).collect();
    if let Some(d) = decay {
        known.extend(d.keys());
    }
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    match id::find(given, Space::Memory, &known, how) {
        Lookup::Found(id) => Ok(id),
        Lookup::Ambiguous(found) => Err(id::ambiguous(given, Space::Memory, &found).into()),
        Lookup::Missing => Err(id::missing(given, Space::Memory, &known).into()),
    }
}

/// The units of the files that hold `ids` when every one of them is a whole id whose file its
/// form names ([`units::file_of`]) and that file holds it: enough for [`memory`] to take each
/// as it is, without parsing every memory file (issue 20: seconds at 100,000 memories).
/// `None` otherwise (the start of an id, a name, an id without a unit), when the resolver must
/// see every unit.
pub fn units_naming(ws: &Workspace, ids: &[impl AsRef<str>]) -> Option<Units> {
    let files: BTreeSet<String> =
        ids.iter().map(|id| units::file_of(id.as_ref())).collect::<Option<_>>()?;
    let some = units::of_files(ws, &files.into_iter().collect::<Vec<_>>());
    ids.iter().all(|id| some.get(id.as_ref()).is_some()).then_some(some)
}

/// [`memory`] among `preferred` only (`restore` looks among the forgotten memories first, so
/// that the start of a forgotten one's id is not ambiguous with memories that are not
/// forgotten); `None` when no id there is or starts with `given`.
pub fn memory_among(given: &str, preferred: &[&str], how: Match) -> Option<crate::Result<String>> {
    match id::find(given, Space::Memory, preferred, how) {
        Lookup::Found(id) => Some(Ok(id)),
        Lookup::Ambiguous(found) => Some(Err(id::ambiguous(given, Space::Memory, &found).into())),
        Lookup::Missing => None,
    }
}

/// Returns the entity `given` stands for in `g`: its id (with or without `entity:`), a name or
/// alias only it has, or the start of exactly one entity id.
///
/// Fails with [`InputError::MissingEntity`](crate::error::InputError::MissingEntity) for a
/// well-formed id without a file, [`InputError::UnknownEntity`](crate::error::InputError::UnknownEntity)
/// otherwise (both with the nearest ids in the hint; for a name, also the entities with a near
/// name, alias or slug), or
/// [`InputError::AmbiguousId`](crate::error::InputError::AmbiguousId) when several entities
/// share the name or the start.
pub fn entity(g: &Graph, given: &str) -> crate::Result<petgraph::graph::NodeIndex> {
    if let Some(ix) = g.by_id(given) {
        return Ok(ix);
    }
    let mut known: Vec<&str> = g.ids().collect();
    known.sort_unstable();
    let exact = id::find(given, Space::Entity, &known, Match::Exact);
    if let Lookup::Found(found) = &exact
        && let Some(ix) = g.by_id(found)
    {
        return Ok(ix);
    }
    match g.named(given).as_slice() {
        [] => {}
        [one] => return Ok(*one),
        several => {
            let ids: Vec<String> = several.iter().map(|ix| g.node(*ix).id.clone()).collect();
            return Err(id::ambiguous(given, Space::Entity, &ids).into());
        }
    }
    match id::find(given, Space::Entity, &known, Match::Prefix) {
        Lookup::Found(found) => {
            Ok(g.by_id(&found).expect("the id was listed from the graph's own ids"))
        }
        Lookup::Ambiguous(found) => Err(id::ambiguous(given, Space::Entity, &found).into()),
        Lookup::Missing => {
            let names: Vec<(&str, &str)> = known
                .iter()
                .filter_map(|k| g.by_id(k).map(|ix| g.node(ix)))
                .flat_map(|n| n.names.iter().map(move |name| (name.as_str(), n.id.as_str())))
                .collect();
            Err(id::missing_entity(given, &known, &names).into())
        }
    }
}
