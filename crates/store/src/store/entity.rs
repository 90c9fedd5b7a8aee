//! Entity files of the knowledge graph, `memory/graph/entities/<type>--<slug>.md`: a title, two
//! comment lines (or YAML front matter, kept byte-for-byte), then `## Summary`, `## Facts`,
//! `## Timeline`, `## Open Questions` and `## Relations`. Ids are validated here so that no id
//! can name a path outside the entities folder.

use serde::Serialize;

use super::markdown::{self, find_section, one_line};
use crate::template::{self, TemplateError};
pub use cogmem_text::model::{EntityId, check_relation_name};

/// The YAML front matter fields cogmem reads from an entity written by another tool.
#[derive(Debug, Default, serde::Deserialize)]
struct FrontMatter {
    #[serde(default)]
    aliases: Option<Aliases>,
    #[serde(default)]
    title: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Aliases {
    One(String),
    Many(Vec<String>),
}

/// Returns the lower-case names an entity goes by: its label, its H1 title, its `Aliases:`
/// line, and `aliases`/`title` from YAML front matter.
///
/// Front matter that is not valid YAML is ignored here (the file is still the entity).
pub fn names(id: &EntityId, text: &str) -> Vec<String> {
    let mut out = vec![id.label()];
    let mut add = |n: &str| {
        let n = one_line(n).to_lowercase();
        if !n.is_empty() && n != id.as_str() && !out.contains(&n) {
            out.push(n);
        }
    };
    let (prefix, yaml) = markdown::split_front_matter(text);
    if let Some(yaml) = yaml {
        let opts = serde_saphyr::options! { strict_booleans: true };
        if let Ok(fm) = serde_saphyr::from_str_with_options::<FrontMatter>(yaml, opts) {
            match fm.aliases {
                Some(Aliases::One(a)) => a.split(',').for_each(&mut add),
                Some(Aliases::Many(list)) => list.iter().for_each(|a| add(a)),
                None => {}
            }
            if let Some(t) = fm.title {
                add(&t);
            }
        }
    }
    for line in text[prefix..].lines() {
        if let Some(title) = line.strip_prefix("# ") {
            add(title);
        }
        if let Some(list) = line.trim_start().trim_start_matches("- ").strip_prefix("Aliases:") {
            list.split(',').for_each(&mut add);
        }
    }
    out
}

/// A `## Relations` bullet: `- relation: [[target]] (since D) (until D) (confidence C)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationLine {
    /// The relation, lower-kebab (a label like "Works on" is normalised).
    pub relation: String,
    /// The target entity id as written.
    pub target: String,
    /// Valid from this date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Valid until this date (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Confidence, 0 to 1 (default 1).
    pub confidence: f64,
    /// 1-based line in the file.
    pub line: usize,
}

/// Reads the relation bullets of an entity file.
pub fn relations(text: &str) -> Vec<RelationLine> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    let Some(s) = find_section(&sections, "Relations") else { return Vec::new() };
    let first = markdown::line_of(text, prefix + s.content.start);
    let mut out = Vec::new();
    for (i, line) in body[s.content.clone()].lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("- ") else { continue };
        let Some((label, after)) = rest.split_once(':') else { continue };
        let Some(open) = after.find("[[") else { continue };
        let Some(close) = after[open..].find("]]") else { continue };
        let target =
            after[open + 2..open + close].split('|').next().unwrap_or("").trim().to_owned();
        let tail = &after[open + close + 2..];
        let field = |key: &str| {
            let i = tail.find(&format!("({key} "))?;
            let v = &tail[i + key.len() + 2..];
            Some(v[..v.find(')')?].trim().to_owned())
        };
        out.push(RelationLine {
            relation: markdown::slugify(label),
            target,
            since: field("since"),
            until: field("until"),
            confidence: field("confidence")
                .and_then(|c| c.parse().ok())
                .filter(|c: &f64| (0.0..=1.0).contains(c))
                .unwrap_or(1.0),
            line: first + i,
        });
    }
    out
}

/// Reads an entity's status: `Status:` in its comment lines or `status` in front matter;
/// `active` when neither says.
pub fn status(text: &str) -> String {
    let (prefix, yaml) = markdown::split_front_matter(text);
    if let Some(y) = yaml
        && let Some(v) = y.lines().find_map(|l| l.strip_prefix("status:"))
    {
        return v.trim().trim_matches(['"', '\'']).to_lowercase();
    }
    for line in text[prefix..].lines().take(6) {
        if line.trim_start().starts_with("<!--")
            && let Some(i) = line.find("Status:")
        {
            let v = line[i + 7..].split(['|', '-']).next().unwrap_or("").trim();
            if !v.is_empty() {
                return v.to_lowercase();
            }
        }
    }
    "active".into()
}

/// Returns a new entity file.
pub fn new_file(id: &EntityId, date: &str) -> Result<String, TemplateError> {
    template::render("entity.md", &[("id", id.as_str()), ("type", id.kind()), ("date", date)])
}

/// The result of adding a line to an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// New content and the line of the added bullet.
    Written {
        /// New file content.
        content: String,
        /// 1-based line.
        line: usize,
    },
    /// The same bullet is already in that section.
    Duplicate {
        /// 1-based line of the existing bullet.
        line: usize,
    },
}

/// Adds `- fact` at the end of `## Facts` and updates the `Last updated` date.
pub fn add_fact(text: &str, fact: &str, date: &str) -> Added {
    add_bullet(text, "Facts", &one_line(fact), date)
}

/// Adds `- relation: [[target]]` at the end of `## Relations`.
///
/// The bullet records when it began: `(since DATE)`. A relation that already holds to the same
/// target (no `until`) is a duplicate.
pub fn add_relation(text: &str, relation: &str, target: &EntityId, date: &str) -> Added {
    if let Some(r) = relations(text)
        .into_iter()
        .find(|r| r.relation == relation && r.target == target.as_str() && r.until.is_none())
    {
        return Added::Duplicate { line: r.line };
    }
    add_bullet(text, "Relations", &format!("{relation}: [[{target}]] (since {date})"), date)
}

/// Closes the current relations of one kind to targets other than `keep` by appending
/// `(until DATE)`: for functional relations such as `lives-in`. Returns the new text and the
/// targets closed, or `None` when there was nothing to close.
pub fn close_relations(
    text: &str,
    relation: &str,
    keep: &EntityId,
    date: &str,
) -> Option<(String, Vec<String>)> {
    let open: Vec<RelationLine> = relations(text)
        .into_iter()
        .filter(|r| r.relation == relation && r.target != keep.as_str() && r.until.is_none())
        .collect();
    let out = close_lines(text, &open, date)?;
    Some((out, open.into_iter().map(|r| r.target).collect()))
}

/// Closes the current `relation` bullets that point at `target` by appending `(until DATE)`:
/// the back-link on the other end of a relation that was just closed. Returns the new text, or
/// `None` when no such bullet is open.
pub fn close_relation_to(
    text: &str,
    relation: &str,
    target: &EntityId,
    date: &str,
) -> Option<String> {
    let open: Vec<RelationLine> = relations(text)
        .into_iter()
        .filter(|r| r.relation == relation && r.target == target.as_str() && r.until.is_none())
        .collect();
    close_lines(text, &open, date)
}

/// Appends `(until DATE)` to the given relation bullets; `None` when there are none.
fn close_lines(text: &str, open: &[RelationLine], date: &str) -> Option<String> {
    if open.is_empty() {
        return None;
    }
    let lines: Vec<usize> = open.iter().map(|r| r.line).collect();
    let mut out = String::with_capacity(text.len() + 24 * lines.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if lines.contains(&(i + 1)) {
            let (bare, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            out.push_str(bare.trim_end());
            out.push_str(&format!(" (until {date}){nl}"));
        } else {
            out.push_str(line);
        }
    }
    Some(out)
}

fn add_bullet(text: &str, section: &str, bullet: &str, date: &str) -> Added {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let mut sections = markdown::sections(body);
    if let Some(s) = find_section(&sections, section) {
        let content = &body[s.content.clone()];
        let start_line = markdown::line_of(text, prefix + s.content.start);
        if let Some(i) = content
            .lines()
            .position(|l| l.trim_start().strip_prefix("- ").is_some_and(|b| one_line(b) == bullet))
        {
            return Added::Duplicate { line: start_line + i };
        }
    }
    let owned;
    let body = if find_section(&sections, section).is_none() {
        owned = markdown::append_section(body, section);
        sections = markdown::sections(&owned);
        owned.as_str()
    } else {
        body
    };
    let s = find_section(&sections, section).expect("the section exists now");
    let (new_body, pos) = markdown::insert_at_section_end(body, s, &format!("- {bullet}"));
    let new_body = touch_last_updated(&new_body, date);
    let content = format!("{}{new_body}", &text[..prefix]);
    let line = markdown::line_of(&content, prefix + pos);
    Added::Written { content, line }
}

/// Rewrites `Last updated: …` in the `<!-- Type: … -->` comment line, if there is one.
fn touch_last_updated(body: &str, date: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut done = false;
    for line in body.split_inclusive('\n') {
        if !done
            && line.trim_start().starts_with("<!--")
            && let Some(i) = line.find("Last updated:")
        {
            let after = &line[i + "Last updated:".len()..];
            let end = [after.find('|'), after.find("-->")].into_iter().flatten().min();
            let end = end.unwrap_or(after.len());
            out.push_str(&line[..i]);
            out.push_str("Last updated: ");
            out.push_str(date);
            out.push(' ');
            out.push_str(&after[end..]);
            done = true;
        } else {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_validation_cases() {
        let ok = ["person--alice", "project--cogmem-v2", "concept--oauth2-pkce", "place--münchen"];
        for id in ok {
            assert!(EntityId::parse(id).is_ok(), "id: {id:?}");
        }
        let bad = [
            ("", "empty"),
            ("person--../x", "`..`"),
            ("person--a/b", "path separator"),
            ("person--a\\b", "path separator"),
            ("person--a\u{7}", "control"),
            ("alice", "no `--`"),
            ("Person--alice", "type must"),
            ("person--Alice", "lower-kebab"),
            ("person--alice smith", "lower-kebab"),
            ("person--", "lower-kebab"),
        ];
        for (id, why) in bad {
            let err = EntityId::parse(id).unwrap_err().to_string();
            assert!(err.contains(why), "id: {id:?} gave {err}");
        }
    }

    #[test]
    fn new_entity_gets_fact_and_relation() {
        let id = EntityId::parse("person--alice").unwrap();
        let file = new_file(&id, "2026-02-01").unwrap();
        let Added::Written { content, line } = add_fact(&file, "Prefers tea", "2026-02-02") else {
            panic!()
        };
        assert_eq!(content.lines().nth(line - 1), Some("- Prefers tea"));
        assert!(
            content
                .contains("<!-- Type: person | Created: 2026-02-01 | Last updated: 2026-02-02 -->"),
            "{content}"
        );
        assert_eq!(add_fact(&content, "Prefers  tea", "2026-02-03"), Added::Duplicate { line });
        let target = EntityId::parse("project--atlas").unwrap();
        let Added::Written { content, line } =
            add_relation(&content, "works-on", &target, "2026-02-03")
        else {
            panic!()
        };
        assert_eq!(
            content.lines().nth(line - 1),
            Some("- works-on: [[project--atlas]] (since 2026-02-03)")
        );
        assert!(
            content
                .ends_with("## Relations\n\n- works-on: [[project--atlas]] (since 2026-02-03)\n"),
            "{content}"
        );
        assert_eq!(
            add_relation(&content, "works-on", &target, "2026-03-01"),
            Added::Duplicate { line }
        );
        let lisbon = EntityId::parse("place--lisbon").unwrap();
        let (closed, targets) =
            close_relations(&content, "works-on", &lisbon, "2026-03-01").unwrap();
        assert_eq!(targets, ["project--atlas"]);
        assert!(closed.ends_with("(since 2026-02-03) (until 2026-03-01)\n"), "{closed}");
    }

    #[test]
    fn names_come_from_label_title_aliases_and_front_matter() {
        let id = EntityId::parse("project--atlas").unwrap();
        let text = "---\naliases: [The New App, atlas-v2]\nstatus: no\n---\n# Atlas\n\n## Summary\nAliases: Project A\n";
        assert_eq!(names(&id, text), ["atlas", "the new app", "atlas-v2", "project a"]);
        assert_eq!(names(&id, "---\n: : bad\n---\n"), ["atlas"]);
    }

    #[test]
    fn relation_lines_with_validity_and_confidence() {
        let text = "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01)\n- Works At: [[organization--acme]] (until 2025-12-31) (confidence 0.7)\n- not a relation\n";
        let r = relations(text);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].relation.as_str(), r[0].target.as_str(), r[0].since.as_deref(), r[0].line),
            ("lives-in", "place--lisbon", Some("2026-01-01"), 4)
        );
        assert_eq!(
            (r[1].relation.as_str(), r[1].until.as_deref(), r[1].confidence),
            ("works-at", Some("2025-12-31"), 0.7)
        );
        assert_eq!(status(text), "active");
        assert_eq!(status("# x\n<!-- Type: person | Status: superseded -->\n"), "superseded");
    }

    #[test]
    fn front_matter_is_kept_byte_for_byte() {
        let text = "---\ntype: person\naliases: [Al]\n---\n# Alice\n\n## Facts\n- a\n";
        let Added::Written { content, line } = add_fact(text, "b", "2026-02-02") else { panic!() };
        assert!(content.starts_with("---\ntype: person\naliases: [Al]\n---\n# Alice\n"));
        assert_eq!(content.lines().nth(line - 1), Some("- b"));
    }
}
