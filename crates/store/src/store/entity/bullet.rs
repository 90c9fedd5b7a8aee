//! The bullets of an entity that are memories of their own: each `- …` line of `## Facts` and
//! of `## Relations`, with an id a person or an agent can pass to `forget` and `restore`.
//!
//! A bullet's id follows the scheme of MEMORY.md's bullets (`core:SECTION:HASH8`, see
//! [`core_memory::unit_id`](super::super::core_memory::unit_id)) under its entity's id:
//! `entity:TYPE--SLUG:facts:HASH8` or `entity:TYPE--SLUG:relations:HASH8`, where `HASH8` is the
//! first 8 hex digits of the git blob hash of the bullet's text on one line. The id stays the
//! same when the bullet moves, and changes when its text does. Bullets are not decay units:
//! only a forgotten one has a decay entry, which keeps the line it took out. Read-only.

use serde::Serialize;

use super::super::core_memory::hash8;
use super::super::markdown::{self, one_line};
use super::EntityId;

/// The sections of an entity whose bullets have ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BulletSection {
    /// `## Facts`.
    Facts,
    /// `## Relations`.
    Relations,
}

impl BulletSection {
    /// Both sections, in the order they are read.
    pub const ALL: [Self; 2] = [Self::Facts, Self::Relations];

    /// The section's name in ids (`facts`, `relations`).
    pub fn slug(self) -> &'static str {
        match self {
            Self::Facts => "facts",
            Self::Relations => "relations",
        }
    }

    /// The section's heading text.
    pub fn title(self) -> &'static str {
        match self {
            Self::Facts => "Facts",
            Self::Relations => "Relations",
        }
    }

    fn parse(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.slug() == slug)
    }
}

/// One bullet of `## Facts` or `## Relations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bullet {
    /// Its id, `entity:TYPE--SLUG:SECTION:HASH8`.
    pub id: String,
    /// Its section.
    pub section: BulletSection,
    /// Its 1-based line in the file.
    pub line: usize,
    /// Its text as written, without the `- `.
    pub text: String,
}

/// Returns the id of the bullet `text` (without its `- `) in `section` of the entity `entity`.
///
/// ```
/// use cogmem_store::store::entity::{BulletSection, EntityId, bullet_id};
/// let id = EntityId::parse("person--ann").unwrap();
/// assert_eq!(bullet_id(&id, BulletSection::Facts, "Ann  likes tea"), bullet_id(&id, BulletSection::Facts, "Ann likes tea"));
/// assert!(bullet_id(&id, BulletSection::Facts, "Ann likes tea").starts_with("entity:person--ann:facts:"));
/// ```
pub fn bullet_id(entity: &EntityId, section: BulletSection, text: &str) -> String {
    format!("entity:{entity}:{}:{}", section.slug(), hash8(&one_line(text)))
}

/// Returns the id of the fact [`add_fact`](super::add_fact) writes for `fact`: the id
/// [`bullet_id`] gives that bullet once it is in the file.
pub fn new_fact_id(entity: &EntityId, fact: &str) -> String {
    bullet_id(entity, BulletSection::Facts, &markdown::list_item(fact))
}

/// Reads the bullets of an entity file's `## Facts`, then of its `## Relations`, with their ids
/// and lines. A bullet written twice has one id, and both lines are listed.
pub fn bullets(entity: &EntityId, text: &str) -> Vec<Bullet> {
    let titles = BulletSection::ALL.map(BulletSection::title);
    markdown::bullets_under(text, &titles)
        .into_iter()
        .map(|(t, line, b)| {
            let (section, b) = (BulletSection::ALL[t], b.trim_end_matches('\r'));
            Bullet { id: bullet_id(entity, section, b), section, line, text: b.to_owned() }
        })
        .collect()
}

/// The parts of a bullet id (or of the start of one that reaches into its hash): the entity,
/// the section and the hex digits given. `None` for any other text, a hostile one included (an
/// entity id that is not one, another section, a hash of more than 8 or no hex digits).
///
/// ```
/// use cogmem_store::store::entity::{BulletSection, parse_bullet_id};
/// let (e, s, h) = parse_bullet_id("entity:person--ann:facts:1a2b").unwrap();
/// assert_eq!((e.as_str(), s, h), ("person--ann", BulletSection::Facts, "1a2b"));
/// assert!(parse_bullet_id("entity:person--ann").is_none());
/// assert!(parse_bullet_id("entity:../x:facts:1a2b").is_none());
/// ```
pub fn parse_bullet_id(id: &str) -> Option<(EntityId, BulletSection, &str)> {
    let rest = id.trim().strip_prefix("entity:")?;
    let mut parts = rest.splitn(3, ':');
    let (entity, section, hash) = (parts.next()?, parts.next()?, parts.next()?);
    let entity = EntityId::parse(entity).ok()?;
    let section = BulletSection::parse(section)?;
    let hex = (1..=8).contains(&hash.len())
        && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then_some((entity, section, hash))
}

/// Whether `id` has the form of a bullet id ([`parse_bullet_id`]).
pub fn is_bullet_id(id: &str) -> bool {
    parse_bullet_id(id).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# person--ann\n<!-- Type: person -->\n\n## Summary\n\n## Facts\n\n\
                        - Ann likes tea | milk # no [[place--x]]\n- Ann plays chess\n\n\
                        ## Relations\n\n- works-on: [[project--atlas]] (since 2026-12-01)\n";

    #[test]
    fn bullets_have_ids_by_section_and_lines() {
        let ann = EntityId::parse("person--ann").unwrap();
        let b = bullets(&ann, FILE);
        let seen: Vec<(BulletSection, usize, &str)> =
            b.iter().map(|b| (b.section, b.line, b.text.as_str())).collect();
        assert_eq!(
            seen,
            [
                (BulletSection::Facts, 8, "Ann likes tea | milk # no [[place--x]]"),
                (BulletSection::Facts, 9, "Ann plays chess"),
                (BulletSection::Relations, 13, "works-on: [[project--atlas]] (since 2026-12-01)"),
            ]
        );
        for x in &b {
            let (e, s, h) = parse_bullet_id(&x.id).expect("an id it made parses");
            assert_eq!((e.as_str(), s, h.len()), ("person--ann", x.section, 8), "{}", x.id);
        }
        assert_ne!(b[0].id, b[1].id);
    }

    #[test]
    fn hostile_ids_are_no_bullet_ids() {
        for id in [
            "entity:person--ann:facts:",
            "entity:person--ann:facts:123456789",
            "entity:person--ann:facts:XYZ",
            "entity:person--ann:summary:1a2b3c4d",
            "entity:a/b:facts:1a2b3c4d",
            "core:identity:1a2b3c4d",
            "entity:person--ann:facts:1a2b:3c",
        ] {
            assert!(parse_bullet_id(id).is_none(), "{id:?}");
        }
    }
}
