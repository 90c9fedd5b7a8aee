//! MEMORY.md, the core memory: four sections of bullets that are always in the agent's context.
//! Every write checks the whole file against its token budget.

use serde::Serialize;

pub use super::Added;
use super::markdown::{self, find_section, one_line};
use crate::error::InputError;

/// A section of MEMORY.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoreSection {
    /// Who the user is.
    Identity,
    /// What is happening now.
    ActiveContext,
    /// The relationship.
    Persona,
    /// Never to be forgotten.
    CriticalFacts,
}

impl CoreSection {
    /// Every section, in file order.
    pub const ALL: [Self; 4] =
        [Self::Identity, Self::ActiveContext, Self::Persona, Self::CriticalFacts];

    /// Returns the heading text.
    pub fn title(self) -> &'static str {
        match self {
            Self::Identity => "Identity",
            Self::ActiveContext => "Active Context",
            Self::Persona => "Persona",
            Self::CriticalFacts => "Critical Facts",
        }
    }

    /// Returns the kebab-case name used in ids and flags.
    pub fn slug(self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::ActiveContext => "active-context",
            Self::Persona => "persona",
            Self::CriticalFacts => "critical-facts",
        }
    }

    /// Parses a section by slug or heading text, ignoring case.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let t = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.slug().eq_ignore_ascii_case(t) || s.title().eq_ignore_ascii_case(t))
            .ok_or_else(|| InputError::Unknown {
                what: "core section",
                value: t.to_owned(),
                expected: "identity, active-context, persona, critical-facts".into(),
            })
    }
}

/// Returns the decay id of a bullet: `core:<section>:<hash8>`, stable when bullets move.
pub fn unit_id(section: CoreSection, bullet: &str) -> String {
    format!("core:{}:{}", section.slug(), hash8(&one_line(bullet)))
}

/// Returns the decay id of the bullet [`add_bullet`] writes for `text`: the id [`unit_id`]
/// gives that bullet once it is in the file.
pub fn new_unit_id(section: CoreSection, text: &str) -> String {
    unit_id(section, &markdown::list_item(text))
}

/// Returns the first 8 hex digits of the git blob hash of `text`.
pub fn hash8(text: &str) -> String {
    hash8_bytes(text.as_bytes())
}

/// Returns the first 8 hex digits of the git blob hash of `bytes`.
pub fn hash8_bytes(bytes: &[u8]) -> String {
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes)
        .map(|id| id.to_string()[..8].to_owned())
        .unwrap_or_else(|_| "00000000".into())
}

/// Adds `- text` at the end of a section (creating the section if missing). The text is
/// written as one list item ([`markdown::list_item`]).
pub fn add_bullet(memory_md: &str, section: CoreSection, text: &str) -> Added {
    let bullet = markdown::list_item(text);
    if let Some(line) = find_bullet(memory_md, &bullet) {
        return Added::Duplicate { line };
    }
    let (prefix, _) = markdown::split_front_matter(memory_md);
    let body = &memory_md[prefix..];
    let mut sections = markdown::sections(body);
    let owned;
    let body = if find_section(&sections, section.title()).is_none() {
        owned = markdown::append_section(body, section.title());
        sections = markdown::sections(&owned);
        owned.as_str()
    } else {
        body
    };
    let s = find_section(&sections, section.title()).expect("the section exists now");
    let (new_body, pos) = markdown::insert_at_section_end(body, s, &format!("- {bullet}"));
    let content = format!("{}{new_body}", &memory_md[..prefix]);
    let line = markdown::line_of(&content, prefix + pos);
    Added::Written { content, line }
}

/// Replaces the bullet on the 1-based `line` of MEMORY.md with `- text` (one list item,
/// [`markdown::list_item`]), keeping its indentation: a reflection's REWRITE. Returns
/// [`Added::Duplicate`] (nothing changes) when the new text is already a bullet of the file,
/// and `None` when `line` is not a bullet.
pub fn replace_bullet(memory_md: &str, line: usize, text: &str) -> Option<Added> {
    let current = memory_md.lines().nth(line.checked_sub(1)?)?;
    let indent = &current[..current.len() - current.trim_start().len()];
    current.trim_start().strip_prefix("- ")?;
    let bullet = markdown::list_item(text);
    if let Some(at) = find_bullet(memory_md, &bullet) {
        return Some(Added::Duplicate { line: at });
    }
    let content = markdown::replace_line(memory_md, line, &format!("{indent}- {bullet}"))?;
    Some(Added::Written { content, line })
}

fn find_bullet(text: &str, bullet: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            l.trim_start().strip_prefix("- ").is_some_and(|b| markdown::says_the_same(b, bullet))
        })
        .map(|i| i + 1)
}

/// Counts the bullets in the four core sections.
pub fn count_bullets(memory_md: &str) -> usize {
    let (prefix, _) = markdown::split_front_matter(memory_md);
    let body = &memory_md[prefix..];
    let sections = markdown::sections(body);
    CoreSection::ALL
        .iter()
        .filter_map(|s| find_section(&sections, s.title()))
        .map(|s| {
            body[s.content.clone()].lines().filter(|l| l.trim_start().starts_with("- ")).count()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "# MEMORY.md\n\n## Identity\n<!-- who -->\n\n## Active Context\n\n## Persona\n\n## Critical Facts\n";

    #[test]
    fn adds_bullet_to_section_and_detects_duplicates() {
        let Added::Written { content, line } =
            add_bullet(MD, CoreSection::ActiveContext, "Ship v1\nby Friday")
        else {
            panic!("expected a write")
        };
        assert!(
            content.contains("## Active Context\n\n- Ship v1 by Friday\n\n## Persona"),
            "{content}"
        );
        assert_eq!(content.lines().nth(line - 1), Some("- Ship v1 by Friday"));
        assert_eq!(
            add_bullet(&content, CoreSection::Persona, "Ship v1 by Friday"),
            Added::Duplicate { line }
        );
        assert_eq!(count_bullets(&content), 1);
    }

    // See: issue 16
    /// Hostile bullets: the file keeps its five headings, gets one unit in the right section
    /// whose text and id are those of the written list item, and adding it again is a
    /// duplicate.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, headings};
        use proptest::prelude::*;
        let strategy = (hostile::value(), 0..4usize);
        hostile::runner(96)
            .run(&strategy, |(text, s)| {
                let section = CoreSection::ALL[s];
                let bullet = markdown::list_item(&text);
                prop_assume!(!bullet.is_empty());
                let Added::Written { content, line } = add_bullet(MD, section, &text) else {
                    panic!("a new bullet is written")
                };
                let h: Vec<String> = headings(&content).into_iter().map(|(_, t)| t).collect();
                prop_assert_eq!(h, headings(MD).into_iter().map(|(_, t)| t).collect::<Vec<_>>());
                let units = crate::store::units::core_units(&content);
                prop_assert_eq!(units.len(), 1, "{}", content);
                prop_assert_eq!(units[0].line, line);
                prop_assert_eq!(&units[0].kind, section.slug());
                prop_assert_eq!(&units[0].text, &bullet);
                prop_assert_eq!(&units[0].id, &new_unit_id(section, &text));
                prop_assert_eq!(add_bullet(&content, section, &text), Added::Duplicate { line });
                prop_assert_eq!(count_bullets(&content), 1);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn replaces_one_bullet_in_place() {
        let md = "# M\n\n## Identity\n- Ann lives in Oslo\n  - Ann likes tea\n\n## Persona\n";
        let Some(Added::Written { content, line }) = replace_bullet(md, 5, "Ann likes\n## coffee")
        else {
            panic!("a bullet is replaced")
        };
        assert_eq!(
            content,
            "# M\n\n## Identity\n- Ann lives in Oslo\n  - Ann likes ## coffee\n\n## Persona\n"
        );
        assert_eq!(line, 5);
        assert_eq!(replace_bullet(md, 5, "Ann lives in Oslo"), Some(Added::Duplicate { line: 4 }));
        assert_eq!(replace_bullet(md, 3, "x"), None, "a heading is not a bullet");
        assert_eq!(replace_bullet(md, 99, "x"), None);
    }

    #[test]
    fn missing_section_is_created() {
        let Added::Written { content, .. } = add_bullet("# M\n", CoreSection::CriticalFacts, "x")
        else {
            panic!()
        };
        assert_eq!(content, "# M\n\n## Critical Facts\n\n- x\n");
    }

    #[test]
    fn unit_ids_are_stable() {
        assert_eq!(unit_id(CoreSection::Identity, "a  b"), unit_id(CoreSection::Identity, "a b"));
        assert!(unit_id(CoreSection::Identity, "a").starts_with("core:identity:"));
    }
}
