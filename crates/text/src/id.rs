//! The forms a person may write a memory's or an entity's id in, and finding the one meant
//! among the ids that exist. Pure: the one resolver, `cogmem_ops::id`, gathers the known ids
//! and names from the workspace and calls these.
//!
//! A memory id is `KIND:REST`: `episode:YYYY-MM-DD:HH:MM` (`:2`, `:3`… within one minute),
//! `entity:TYPE--SLUG`, `procedure:SLUG`, `vault:SLUG` or `core:SECTION:HASH8`. An entity's id
//! is `TYPE--SLUG`. Wherever one is asked for, a person may write:
//! - the id itself;
//! - an entity as `TYPE--SLUG` where a memory id is asked for (it means `entity:TYPE--SLUG`),
//!   or as `entity:TYPE--SLUG` where an entity is asked for;
//! - the start of exactly one id (`episode:2026-02-02:14`, `person--ken`).
//!
//! A start shared by several ids is ambiguous, and the error lists them; a miss lists the
//! nearest ids ([`crate::suggest::nearest`]).

use crate::error::InputError;
use crate::model::EntityId;
use crate::suggest;

/// The kinds of memory ids, the part before the first `:`.
pub const KINDS: [&str; 5] = ["core", "entity", "episode", "procedure", "vault"];

/// How many candidates an ambiguity error lists, and how many near ids a miss suggests.
const LISTED: usize = 10;
const SUGGESTED: usize = 5;

/// What an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// A memory: `episode:…`, `entity:…`, `procedure:…`, `vault:…`, `core:…`.
    Memory,
    /// An entity of the graph: `TYPE--SLUG`.
    Entity,
}

impl Space {
    fn plural(self) -> &'static str {
        match self {
            Self::Memory => "memory ids",
            Self::Entity => "entities",
        }
    }
}

/// Whether the start of an id may stand for the id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The id in one of its forms, or the start of exactly one id.
    Prefix,
    /// The id in one of its forms only: for what cannot be undone (a permanent deletion, a
    /// purge), where a person must name exactly what goes.
    Exact,
}

/// What [`find`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The one id meant.
    Found(String),
    /// Several ids start with what was given, in order.
    Ambiguous(Vec<String>),
    /// No id has that form or start.
    Missing,
}

/// Returns the exact forms `given` may stand for in `space`, the literal one first.
///
/// ```
/// use cogmem_text::id::{Space, forms};
/// assert_eq!(forms(" person--kenji ", Space::Memory), ["person--kenji", "entity:person--kenji"]);
/// assert_eq!(forms("entity:person--kenji", Space::Entity), ["person--kenji"]);
/// ```
pub fn forms(given: &str, space: Space) -> Vec<String> {
    let t = given.trim();
    match space {
        Space::Memory if !has_kind(t) && EntityId::parse(t).is_ok() => {
            vec![t.to_owned(), format!("entity:{t}")]
        }
        Space::Entity => vec![EntityId::given_part(t).to_owned()],
        Space::Memory => vec![t.to_owned()],
    }
}

/// Tells whether `text` is a whole episode id: `episode:YYYY-MM-DD:HH:MM`, with or without a
/// `:N` ordinal.
fn is_whole_episode_id(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("episode:") else { return false };
    let shape = |part: &str, pattern: &str| {
        part.len() == pattern.len()
            && part
                .bytes()
                .zip(pattern.bytes())
                .all(|(c, p)| if p == b'9' { c.is_ascii_digit() } else { c == p })
    };
    let (minute, ordinal) = match rest.get(16..) {
        Some(tail) => (&rest[..16], tail),
        None => (rest, ""),
    };
    shape(minute, "9999-99-99:99:99")
        && (ordinal.is_empty()
            || ordinal
                .strip_prefix(':')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
}

/// Tells whether `text` starts with a memory kind and its `:`.
fn has_kind(text: &str) -> bool {
    text.split_once(':').is_some_and(|(kind, _)| KINDS.contains(&kind))
}

/// Finds the id `given` stands for among `known` (the ids of `space` that exist): one of its
/// [`forms`], else, with [`Match::Prefix`], the one id that starts with a form.
pub fn find(given: &str, space: Space, known: &[&str], how: Match) -> Lookup {
    let forms = forms(given, space);
    if let Some(f) = forms.iter().find(|f| known.contains(&f.as_str())) {
        return Lookup::Found(f.clone());
    }
    if how == Match::Exact || forms.iter().all(String::is_empty) {
        return Lookup::Missing;
    }
    // A whole episode id is not the start of the later entries of its minute (`:2`, `:3`): the
    // entry it named is gone, and they are other memories.
    let starts = |k: &str, f: &str| !f.is_empty() && k.starts_with(f) && !is_whole_episode_id(f);
    let mut hits: Vec<String> = known
        .iter()
        .filter(|k| forms.iter().any(|f| starts(k, f)))
        .map(|k| (*k).to_owned())
        .collect();
    hits.sort();
    hits.dedup();
    match hits.len() {
        0 => Lookup::Missing,
        1 => Lookup::Found(hits.remove(0)),
        _ => Lookup::Ambiguous(hits),
    }
}

/// The error for a miss: no id of `space` is or starts with `given`. It names the nearest of
/// `known` (at most five) in its hint.
///
/// For an entity, a well-formed id with no file is [`InputError::MissingEntity`] (to create
/// first, or a typo), anything else [`InputError::UnknownEntity`]; for a memory,
/// [`InputError::UnknownId`].
pub fn missing(given: &str, space: Space, known: &[&str]) -> InputError {
    let forms = forms(given, space);
    let best = forms.last().map_or(given, String::as_str);
    let nearest: Vec<String> = suggest::nearest(best, known.iter().copied(), SUGGESTED)
        .into_iter()
        .map(str::to_owned)
        .collect();
    match space {
        Space::Memory => InputError::UnknownId { id: given.to_owned(), nearest },
        Space::Entity if EntityId::parse(best).is_ok() => {
            InputError::MissingEntity { id: best.to_owned(), nearest }
        }
        Space::Entity => InputError::UnknownEntity { name: given.to_owned(), nearest },
    }
}

/// [`missing`] for an entity given by a name rather than an id (`alicia`, not
/// `person--alicia`): when no id is near it, the entities one of whose `names` (pairs of a
/// name or alias and the entity's id) or whose id's slug is near it by [`suggest::nearest`]'s
/// looser whole-name rule (at most two edits) are named in the hint instead. A well-formed id
/// is as [`missing`] says.
pub fn missing_entity(given: &str, known: &[&str], names: &[(&str, &str)]) -> InputError {
    let mut error = missing(given, Space::Entity, known);
    if let InputError::UnknownEntity { nearest, .. } = &mut error
        && nearest.is_empty()
    {
        let slugs = known.iter().filter_map(|id| Some((id.rsplit_once("--")?.1, *id)));
        let mut by_name: Vec<(&str, &str)> = names.iter().copied().chain(slugs).collect();
        by_name.sort_unstable();
        by_name.dedup();
        let near = suggest::nearest(given, by_name.iter().map(|(n, _)| *n), SUGGESTED);
        for name in near {
            for (_, id) in by_name.iter().filter(|(n, _)| *n == name) {
                if !nearest.iter().any(|k| k == id) {
                    nearest.push((*id).to_owned());
                }
            }
        }
        nearest.truncate(SUGGESTED);
    }
    error
}

/// The error for an ambiguity: `given` stands for each of `found` (ids of `space`, at least
/// two). It lists the first ten.
pub fn ambiguous(given: &str, space: Space, found: &[String]) -> InputError {
    InputError::AmbiguousId {
        given: given.to_owned(),
        what: space.plural(),
        count: found.len(),
        listed: found.iter().take(LISTED).cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMORIES: [&str; 7] = [
        "entity:person--kenji",
        "entity:person--kenta",
        "episode:2026-02-02:09:15",
        "episode:2026-02-02:09:15:2",
        "episode:2026-02-02:09:16:2",
        "procedure:deploy-atlas",
        "core:active-context:7fc6c745",
    ];

    #[test]
    fn finds_memories_by_id_entity_form_and_unique_start() {
        let found = |s: &str| Lookup::Found(s.to_owned());
        let cases = [
            ("entity:person--kenji", Match::Prefix, found("entity:person--kenji")),
            ("person--kenji", Match::Prefix, found("entity:person--kenji")),
            ("  person--kenji\n", Match::Exact, found("entity:person--kenji")),
            ("person--kenj", Match::Prefix, found("entity:person--kenji")),
            ("person--kenj", Match::Exact, Lookup::Missing),
            ("core:active", Match::Prefix, found("core:active-context:7fc6c745")),
            ("proc", Match::Prefix, found("procedure:deploy-atlas")),
            // The whole id wins over the longer ids it starts.
            ("episode:2026-02-02:09:15", Match::Prefix, found("episode:2026-02-02:09:15")),
            (
                "episode:2026-02-02",
                Match::Prefix,
                Lookup::Ambiguous(vec![
                    "episode:2026-02-02:09:15".into(),
                    "episode:2026-02-02:09:15:2".into(),
                    "episode:2026-02-02:09:16:2".into(),
                ]),
            ),
            (
                "person--ken",
                Match::Prefix,
                Lookup::Ambiguous(vec![
                    "entity:person--kenji".into(),
                    "entity:person--kenta".into(),
                ]),
            ),
            // A whole episode id whose entry is gone is not the start of its minute's others.
            ("episode:2026-02-02:09:16", Match::Prefix, Lookup::Missing),
            ("", Match::Prefix, Lookup::Missing),
            ("   ", Match::Prefix, Lookup::Missing),
            ("kenji", Match::Prefix, Lookup::Missing),
            ("person--kenji/../x", Match::Prefix, Lookup::Missing),
        ];
        for (given, how, want) in cases {
            assert_eq!(find(given, Space::Memory, &MEMORIES, how), want, "given: {given:?}");
        }
    }

    #[test]
    fn finds_entities_with_or_without_the_entity_kind() {
        let known = ["person--kenji", "person--kenta", "tool--gutenberg"];
        let found = |s: &str| Lookup::Found(s.to_owned());
        let cases = [
            ("person--kenji", found("person--kenji")),
            ("entity:person--kenji", found("person--kenji")),
            ("entity:tool--gut", found("tool--gutenberg")),
            ("tool", found("tool--gutenberg")),
            ("episode:2026-02-02", Lookup::Missing),
        ];
        for (given, want) in cases {
            assert_eq!(find(given, Space::Entity, &known, Match::Prefix), want, "given: {given:?}");
        }
    }

    #[test]
    fn a_miss_names_the_nearest_ids() {
        let e = missing("kenji", Space::Memory, &MEMORIES);
        assert!(
            matches!(&e, InputError::UnknownId { nearest, .. } if nearest == &["entity:person--kenji"]),
            "{e:?}"
        );
        let known = ["person--kenji"];
        let e = missing("entity:person--kenjii", Space::Entity, &known);
        assert!(
            matches!(&e, InputError::MissingEntity { id, nearest } if id == "person--kenjii" && nearest == &["person--kenji"]),
            "{e:?}"
        );
        let e = missing("Kenji San", Space::Entity, &known);
        assert!(matches!(&e, InputError::UnknownEntity { .. }), "{e:?}");
    }

    #[test]
    fn a_name_that_names_nothing_names_the_entities_with_a_near_name_or_slug() {
        let known = ["person--alice", "project--atlas", "person--robert"];
        let names = [("alice", "person--alice"), ("bobby", "person--robert")];
        let cases: [(&str, &[&str]); 4] = [
            ("alicia", &["person--alice"]),
            ("bobbie", &["person--robert"]),
            ("roberta", &["person--robert"]),
            ("zebra", &[]),
        ];
        for (given, want) in cases {
            let e = missing_entity(given, &known, &names);
            assert!(
                matches!(&e, InputError::UnknownEntity { nearest, .. } if nearest == want),
                "given: {given:?}: {e:?}"
            );
        }
        // The ids' own nearness comes first: a near id leaves the looser names out.
        let twins = ["person--kenji", "person--kenta"];
        let e = missing_entity("kenjj", &twins, &[("kenji", twins[0]), ("kenta", twins[1])]);
        assert!(
            matches!(&e, InputError::UnknownEntity { nearest, .. } if nearest == &["person--kenji"]),
            "{e:?}"
        );
        let e = missing_entity("person--alicia", &known, &names);
        assert!(matches!(&e, InputError::MissingEntity { .. }), "{e:?}");
    }
}
