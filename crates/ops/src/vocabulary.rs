//! `cogmem graph relation …`: the relation vocabulary in `memory/graph/relations.md` — listing
//! it, adding a relation to it, and the check every write path runs before it writes a relation
//! (issue 18): a relation the vocabulary lacks is refused with the nearest known names and the
//! command that adds it, so no link is written without its inverse and `graph check` never
//! finds one later.

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::remember::Relation;
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::entity;
use cogmem_store::vocab::{self, NewRelation, RelationSpec, Vocabulary};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

/// How many near names an unknown relation's error lists.
const NEAREST: usize = 3;

/// Reads the workspace's vocabulary (empty when `relations.md` is missing).
pub fn load(ws: &Workspace) -> crate::Result<Vocabulary> {
    Ok(Vocabulary::parse(&ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default()))
}

/// Refuses the first of `relations` that `vocab` does not define, naming the nearest known
/// relations and the command that adds it (with the signature its two ends suggest).
pub fn check(ws: &Workspace, vocab: &Vocabulary, relations: &[Relation]) -> crate::Result<()> {
    match relations.iter().find(|r| !vocab.knows(&r.relation)) {
        Some(r) => Err(unknown(ws, vocab, &r.relation, Some((r.from.kind(), r.to.kind())))),
        None => Ok(()),
    }
}

/// The error for a relation `vocab` does not define.
pub(crate) fn unknown(
    ws: &Workspace,
    vocab: &Vocabulary,
    relation: &str,
    types: Option<(&str, &str)>,
) -> crate::Error {
    InputError::UnknownRelation {
        relation: relation.to_owned(),
        path: ws.abs(layout::RELATIONS),
        nearest: vocab.nearest(relation, NEAREST),
        types: types.map(|(a, b)| (a.to_owned(), b.to_owned())),
    }
    .into()
}

/// One relation of the vocabulary, as `graph relation list` shows it: its name and what the
/// vocabulary says of it (inverse, flags, endpoint types, meaning, whether a bullet declares it).
#[derive(Debug, Clone, Serialize)]
pub struct RelationEntry {
    /// Its name.
    pub name: String,
    /// What the vocabulary says about it.
    #[serde(flatten)]
    pub spec: RelationSpec,
}

/// Lists the vocabulary, inverses included, by name.
pub fn list(ws: &Workspace) -> crate::Result<Vec<RelationEntry>> {
    Ok(load(ws)?
        .iter()
        .map(|(name, spec)| RelationEntry { name: name.to_owned(), spec: spec.clone() })
        .collect())
}

/// Reads a signature for `graph relation add` ([`vocab::parse_signature`]): `FROM->TO` (or
/// `FROM→TO`), each side one lower-kebab type or several joined by `|`, none empty.
pub fn parse_signature(text: &str) -> Result<(Vec<String>, Vec<String>), InputError> {
    let bad = || InputError::Unknown {
        what: "signature",
        value: text.to_owned(),
        expected: "FROM_TYPE->TO_TYPE (quoted for the shell), e.g. `'person->project'` or \
                   `'person|organization->place'`"
            .into(),
    };
    let (from, to) = vocab::parse_signature(text).ok_or_else(bad)?;
    let valid = |types: &[String]| {
        !types.is_empty() && types.iter().all(|t| entity::check_relation_name(t))
    };
    if valid(&from) && valid(&to) { Ok((from, to)) } else { Err(bad()) }
}

/// What `graph relation add` did.
#[derive(Debug, Clone, Serialize)]
pub struct Added {
    /// The commit.
    pub commit: String,
    /// The vocabulary file, relative to the workspace root.
    pub path: String,
    /// The 1-based line of the new bullet.
    pub line: usize,
    /// The bullet as written.
    pub bullet: String,
}

/// Adds a relation to `memory/graph/relations.md` as one commit (one audit line).
///
/// Refused when a name (or the inverse) is not lower-kebab, is already in the vocabulary (as a
/// relation or an inverse), when the inverse is the name itself (that is `symmetric`), when
/// neither an inverse nor `symmetric` is given (every relation must be followable from both
/// ends), and for a sub-agent.
pub fn add(
    ws: &Workspace,
    new: &NewRelation,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<Added> {
    if actor.is_subagent() {
        return Err(RuleError::SubagentWrite { actor: actor.to_string() }.into());
    }
    let path = ws.abs(layout::RELATIONS);
    let refuse = |name: &str, why: &str| -> crate::Error {
        InputError::RelationAdd { name: name.to_owned(), path: path.clone(), why: why.to_owned() }
            .into()
    };
    let mut names = vec![new.name.as_str()];
    match (&new.inverse, new.symmetric) {
        (Some(_), true) => {
            return Err(refuse(
                &new.name,
                "a symmetric relation is its own inverse; drop --inverse",
            ));
        }
        (None, false) => {
            return Err(refuse(
                &new.name,
                "give its inverse with --inverse NAME (the relation read from the other end), \
                 or --symmetric",
            ));
        }
        (Some(inv), false) if *inv == new.name => {
            return Err(refuse(inv, "the inverse is the relation itself; use --symmetric"));
        }
        (Some(inv), false) => names.push(inv),
        (None, true) => {}
    }
    for name in &names {
        if !entity::check_relation_name(name) {
            return Err(refuse(name, "a relation name is lower-kebab case, like `works-on`"));
        }
    }
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let text = ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default();
    let known = Vocabulary::parse(&text);
    for name in &names {
        if known.knows(name) {
            return Err(refuse(name, "the vocabulary already has it"));
        }
    }
    let (content, line) = vocab::with_relation(&text, new);
    let bullet = content.lines().nth(line - 1).unwrap_or_default().to_owned();
    let action = if text.is_empty() { Action::Create } else { Action::Edit };
    let mut change = Change::new(actor, "cogmem graph relation add");
    let summary = format!("new relation {}", bullet.trim_start_matches("- "));
    change.write(layout::RELATIONS, content.into_bytes(), action, summary);
    let applied = change.with_subject(action, format!("new relation {}", new.name)).apply(
        ws,
        &repo,
        &lock,
        &FixedClock(clock.now()),
    )?;
    Ok(Added { commit: applied.commit, path: layout::RELATIONS.to_owned(), line, bullet })
}
