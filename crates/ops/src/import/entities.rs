//! The entities an import links its messages to (issue 22): the speaker, and the people,
//! places, organisations, events and things each message names, by the rules of
//! [`cogmem_text::names`] over the statistics of the import and the entities the workspace
//! already knows.
//!
//! The import streams (issue 20), so a message is judged by what the import has read so far:
//! a name the workspace knows (an entity's label or alias) is linked wherever it stands; a new
//! name is linked from the message that makes it one (its second message, once named
//! mid-sentence), not in the messages before. A name keeps the entity it was first given, so
//! one import never links one name to two entities. `[capture] extract_entities = false` in
//! `cogmem.toml` turns all of it off.

use std::collections::{BTreeSet, HashMap};

use cogmem_store::store::entity::EntityId;
use cogmem_store::workspace::Workspace;
use cogmem_text::markdown::slugify;
use cogmem_text::names::{self, Seen};

/// What one import has learned about names.
pub(crate) struct Extractor {
    /// The entity of each name (lower case): the workspace's labels and aliases, then the
    /// names this import gave an entity.
    known: HashMap<String, String>,
    /// Ids of the workspace's entity files.
    existing: BTreeSet<String>,
    /// The speakers met so far, as written.
    people: Vec<String>,
    /// What the messages read so far say about each name.
    seen: HashMap<String, Seen>,
    /// How often each lower-case word was written.
    lower: HashMap<String, u32>,
    /// Entities linked that have no file yet.
    new: BTreeSet<String>,
}

impl Extractor {
    /// Starts with the entities of the workspace (their files' labels and aliases), from the
    /// search index's names cache as routing reads them (reading every entity file took 155 ms
    /// of a 200-message transcript's import at 100,000 memories; issue 20). Unreadable entity
    /// files are left out, as routing leaves them out.
    pub(crate) fn of_workspace(ws: &Workspace) -> crate::Result<Self> {
        let ctx = crate::hear::context_from_index(ws)?;
        let mut known = HashMap::new();
        let mut existing = BTreeSet::new();
        for k in ctx.known {
            existing.insert(k.id.as_str().to_owned());
            for n in k.names {
                known.entry(n).or_insert_with(|| k.id.as_str().to_owned());
            }
        }
        Ok(Self {
            known,
            existing,
            people: Vec::new(),
            seen: HashMap::new(),
            lower: HashMap::new(),
            new: BTreeSet::new(),
        })
    }

    /// The entities a message links to: its speaker's (`None` for an agent host's `user` and
    /// `assistant`), then those of the names it writes, each once.
    pub(crate) fn links(&mut self, speaker: Option<&str>, text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(s) = speaker.map(str::trim).filter(|s| names::is_plain_name(s)) {
            if !self.people.iter().any(|p| p == s) {
                self.people.push(s.to_owned());
            }
            if let Some(id) = self.person(s) {
                out.push(id);
            }
        }
        for w in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')) {
            if !w.is_empty() && !w.chars().any(char::is_uppercase) {
                match self.lower.get_mut(w) {
                    Some(n) => *n += 1,
                    None => {
                        self.lower.insert(w.to_owned(), 1);
                    }
                }
            }
        }
        let occurrences = names::occurrences(text);
        let mut distinct: Vec<&str> = Vec::new();
        for o in &occurrences {
            if !distinct.contains(&o.name.as_str()) {
                distinct.push(&o.name);
            }
        }
        for name in distinct {
            let mine = occurrences.iter().filter(|o| o.name == name);
            self.seen.entry(name.to_owned()).or_default().add(mine);
            if let Some(id) = self.entity_of(name)
                && !out.contains(&id)
            {
                out.push(id);
            }
        }
        out
    }

    /// The entity of a speaker: the known one with that name, else `person--SLUG`.
    fn person(&mut self, name: &str) -> Option<String> {
        let lower = name.to_lowercase();
        if let Some(id) = self.known.get(&lower) {
            return Some(id.clone());
        }
        let id = EntityId::parse(&format!("person--{}", slugify(name))).ok()?;
        Some(self.adopt(lower, id))
    }

    /// The entity a name stands for, if it is one yet.
    fn entity_of(&mut self, name: &str) -> Option<String> {
        let lower = name.to_lowercase();
        if let Some(id) = self.known.get(&lower) {
            return Some(id.clone());
        }
        if let Some(person) = names::person_of(name, &self.people) {
            let person = person.to_owned();
            return self.person(&person);
        }
        let seen = self.seen.get(name).copied().unwrap_or_default();
        let lower_case = if name.contains(' ') { 0 } else { *self.lower.get(&lower).unwrap_or(&0) };
        if !names::is_name(name, &seen, lower_case) {
            return None;
        }
        let id =
            EntityId::parse(&format!("{}--{}", names::kind(name, &seen), slugify(name))).ok()?;
        Some(self.adopt(lower, id))
    }

    /// Gives a name its entity for the rest of the import; notes the entity as new when it has
    /// no file.
    fn adopt(&mut self, lower: String, id: EntityId) -> String {
        let id = id.as_str().to_owned();
        if !self.existing.contains(&id) {
            self.new.insert(id.clone());
        }
        self.known.insert(lower, id.clone());
        id
    }

    /// The entities linked that have no file yet, in id order.
    pub(crate) fn new_entities(&self) -> impl Iterator<Item = &str> {
        self.new.iter().map(String::as_str)
    }
}

/// The entity types a name may have; a name's known entity is one of these with its slug.
const TYPES: &[&str] = &[
    "person",
    "place",
    "organization",
    "event",
    "concept",
    "project",
    "tool",
    "preference",
    "decision",
];

/// The entities one message remembered on its own (`remember`) names: a known one first (an
/// entity file whose slug is the name's, `exists` telling), and a new one only when the message
/// makes it clear ([`names::of_one_message`]). Each with whether its file exists.
pub(crate) fn of_one_message(text: &str, exists: impl Fn(&str) -> bool) -> Vec<(String, bool)> {
    let found = names::occurrences(text);
    let clear = names::of_occurrences(text, &found);
    // A name's entity: the known one with its slug, else a new one of the type the message
    // makes clear, else none.
    let entity = |name: &str, kind: Option<&str>| -> Option<(String, bool)> {
        let slug = slugify(name);
        let known = TYPES
            .iter()
            .filter_map(|t| EntityId::parse(&format!("{t}--{slug}")).ok())
            .map(|id| id.as_str().to_owned())
            .find(|id| exists(id));
        match known {
            Some(id) => Some((id, true)),
            None => EntityId::parse(&format!("{}--{slug}", kind?))
                .ok()
                .map(|id| (id.as_str().to_owned(), false)),
        }
    };
    let judged = |name: &str| clear.iter().find(|n| n.name == name).map(|n| n.kind);
    // Every capitalised name, then the names only the single-message rules read (lower case:
    // "met sam").
    let all = found.iter().map(|o| entity(&o.name, judged(&o.name))).chain(
        clear
            .iter()
            .filter(|n| !found.iter().any(|o| o.name == n.name))
            .map(|n| entity(&n.name, Some(n.kind))),
    );
    let mut out: Vec<(String, bool)> = Vec::new();
    for id in all.flatten() {
        if !out.iter().any(|(x, _)| *x == id.0) {
            out.push(id);
        }
    }
    out
}
