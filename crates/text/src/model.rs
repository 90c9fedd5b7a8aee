//! The words of the memory model that every layer shares: the stores, how sure a memory is, the
//! kinds of episode entries, entity ids and relation names. Pure values with their parsers; no
//! file is read or written here. The store formats re-export them.

use serde::Serialize;

use crate::error::InputError;

/// The entity types every workspace knows (design.md §4); a workspace may use others.
pub const ENTITY_TYPES: &[&str] = &[
    "person",
    "project",
    "concept",
    "tool",
    "place",
    "organization",
    "preference",
    "decision",
    "event",
];

/// A validated entity id, `type--slug` in lower-kebab case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct EntityId(String);

impl EntityId {
    /// Validates an id.
    ///
    /// Rejects `/`, `\`, `..`, control characters, upper case, spaces and anything without
    /// exactly one `--` separating a type and a slug.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let bad = |why: &str| InputError::EntityId { id: text.to_owned(), why: why.to_owned() };
        let t = text.trim();
        if t.is_empty() {
            return Err(bad("it is empty"));
        }
        if t.chars().any(char::is_control) {
            return Err(bad("it contains control characters"));
        }
        if t.contains("..") {
            return Err(bad("it contains `..`"));
        }
        if t.contains('/') || t.contains('\\') {
            return Err(bad("it contains a path separator"));
        }
        let Some((kind, slug)) = t.split_once("--") else {
            return Err(bad("it has no `--` between the type and the name"));
        };
        if kind.is_empty()
            || !kind.starts_with(|c: char| c.is_ascii_lowercase())
            || !kind.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(bad("the type must be lower-case letters, digits and `-`"));
        }
        let slug_ok = !slug.is_empty()
            && !slug.starts_with('-')
            && !slug.ends_with('-')
            && !slug.contains("--")
            && slug.chars().all(|c| (c.is_alphanumeric() && !c.is_uppercase()) || c == '-');
        if !slug_ok {
            return Err(bad("the name must be lower-kebab case: letters, digits and single `-`"));
        }
        if t.len() > 120 {
            return Err(bad("it is longer than 120 bytes"));
        }
        Ok(Self(t.to_owned()))
    }

    /// Validates an entity id as a person may write it where an entity is asked for:
    /// `TYPE--SLUG`, or the memory id of the entity, `entity:TYPE--SLUG` (issue 18).
    pub fn parse_given(text: &str) -> Result<Self, InputError> {
        Self::parse(Self::given_part(text))
    }

    /// Returns the `TYPE--SLUG` part of `entity:TYPE--SLUG` (trimmed), or the trimmed text.
    pub fn given_part(text: &str) -> &str {
        let t = text.trim();
        t.strip_prefix("entity:").unwrap_or(t)
    }

    /// Returns the id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Returns the type part (`person` in `person--alice`).
    pub fn kind(&self) -> &str {
        self.0.split_once("--").map_or("", |(k, _)| k)
    }

    /// Returns the slug part (`alice` in `person--alice`).
    pub(crate) fn slug(&self) -> &str {
        self.0.split_once("--").map_or("", |(_, s)| s)
    }

    /// Returns a readable label: the slug with spaces.
    pub fn label(&self) -> String {
        self.slug().replace('-', " ")
    }
}

impl std::fmt::Display for EntityId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A relation name: lower-kebab, like `works-on`.
pub fn check_relation_name(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The kind of an episode entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "the vocabulary is documented in formats.md")]
pub enum EntryType {
    Decision,
    Fact,
    Preference,
    Task,
    Event,
    Emotion,
    Correction,
}

impl EntryType {
    /// Every type.
    pub const ALL: [Self; 7] = [
        Self::Decision,
        Self::Fact,
        Self::Preference,
        Self::Task,
        Self::Event,
        Self::Emotion,
        Self::Correction,
    ];

    /// Returns the word written in headings.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decision => "decision",
            Self::Fact => "fact",
            Self::Preference => "preference",
            Self::Task => "task",
            Self::Event => "event",
            Self::Emotion => "emotion",
            Self::Correction => "correction",
        }
    }

    /// Parses a type word.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        Self::ALL.into_iter().find(|t| t.as_str() == text.trim().to_ascii_lowercase()).ok_or_else(
            || InputError::Unknown {
                what: "episode type",
                value: text.to_owned(),
                expected: "decision, fact, preference, task, event, emotion, correction".into(),
            },
        )
    }
}

/// The five stores a memory can go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Store {
    /// MEMORY.md, always in the agent's context.
    Core,
    /// Daily episode logs.
    Episodic,
    /// Entity files of the knowledge graph.
    Semantic,
    /// Procedures.
    Procedural,
    /// Pinned notes that never decay.
    Vault,
}

impl Store {
    /// Every store, in the order they are written.
    pub const ALL: [Self; 5] =
        [Self::Core, Self::Episodic, Self::Semantic, Self::Procedural, Self::Vault];

    /// Returns the store's name as written in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::Episodic => "episodic",
            Self::Semantic => "semantic",
            Self::Procedural => "procedural",
            Self::Vault => "vault",
        }
    }

    /// Parses a store name.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        Self::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(text.trim())).ok_or_else(
            || InputError::Unknown {
                what: "store",
                value: text.to_owned(),
                expected: "core, episodic, semantic, procedural, vault".into(),
            },
        )
    }
}

impl std::fmt::Display for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How sure the memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Stated by the user.
    High,
    /// Mentioned in passing.
    Medium,
    /// Inferred.
    Low,
}

impl Confidence {
    /// Every level, surest first.
    pub const ALL: [Self; 3] = [Self::High, Self::Medium, Self::Low];

    /// Returns the word used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
        }
    }

    /// Parses `high`, `medium` or `low`.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "high" => Ok(Self::High),
            "medium" => Ok(Self::Medium),
            "low" => Ok(Self::Low),
            other => Err(InputError::Unknown {
                what: "confidence",
                value: other.to_owned(),
                expected: "high, medium, low".into(),
            }),
        }
    }
}
