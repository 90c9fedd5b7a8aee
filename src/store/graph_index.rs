//! `memory/graph/index.md`: the entity registry and edge table, generated from the entity files.
//! The write path keeps it current by adding rows as entities and relations are created.

use super::markdown::{self, find_section};

const REGISTRY: &str = "Entity Registry";
const REGISTRY_HEAD: &str =
    "| ID | Type | Label | File | Decay Score |\n|----|------|-------|------|-------------|";
const EDGES: &str = "Edges";
const EDGES_HEAD: &str = "| From | Relation | To | Confidence | First Seen | Last Accessed |\n|------|----------|----|------------|------------|---------------|";

/// Adds an entity row to the registry; `None` when the id is already listed.
pub fn register_entity(
    index_md: &str,
    id: &str,
    kind: &str,
    label: &str,
    file: &str,
) -> Option<String> {
    if row_exists(index_md, REGISTRY, |cells| cells.first() == Some(&id)) {
        return None;
    }
    let row = format!("| {id} | {kind} | {label} | {file} | 1.00 |");
    Some(add_row(index_md, REGISTRY, REGISTRY_HEAD, &row))
}

/// Adds an edge row; `None` when the same edge is already listed.
pub fn add_edge(
    index_md: &str,
    from: &str,
    relation: &str,
    to: &str,
    date: &str,
) -> Option<String> {
    if row_exists(index_md, EDGES, |c| {
        c.len() >= 3 && c[0] == from && c[1] == relation && c[2] == to
    }) {
        return None;
    }
    let row = format!("| {from} | {relation} | {to} | 1.0 | {date} | {date} |");
    Some(add_row(index_md, EDGES, EDGES_HEAD, &row))
}

fn cells(line: &str) -> Vec<&str> {
    line.trim().trim_matches('|').split('|').map(str::trim).collect()
}

fn row_exists(text: &str, section: &str, pred: impl Fn(&[&str]) -> bool) -> bool {
    let sections = markdown::sections(text);
    let Some(s) = find_section(&sections, section) else { return false };
    text[s.content.clone()]
        .lines()
        .filter(|l| l.trim_start().starts_with('|'))
        .any(|l| pred(&cells(l)))
}

fn add_row(text: &str, section: &str, head: &str, row: &str) -> String {
    let mut owned;
    let mut sections = markdown::sections(text);
    let mut text = text;
    if find_section(&sections, section).is_none() {
        owned = markdown::append_section(text, section);
        sections = markdown::sections(&owned);
        text = &owned;
    }
    let s = find_section(&sections, section).expect("the section exists now");
    let content = &text[s.content.clone()];
    let has_table = content.lines().any(|l| l.trim_start().starts_with('|'));
    if !has_table {
        let (with_head, _) = markdown::insert_at_section_end(text, s, head);
        owned = with_head;
        return add_row(&owned, section, head, row);
    }
    // Insert after the last table line of the section.
    let mut offset = s.content.start;
    let mut insert_at = offset;
    for line in content.split_inclusive('\n') {
        offset += line.len();
        if line.trim_start().starts_with('|') {
            insert_at = offset;
        }
    }
    let mut out = String::with_capacity(text.len() + row.len() + 2);
    out.push_str(&text[..insert_at]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(row);
    out.push('\n');
    out.push_str(&text[insert_at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_go_under_their_tables() {
        let text = format!(
            "# Index\n\n## Entity Registry\n\n{REGISTRY_HEAD}\n\n## Edges\n\n{EDGES_HEAD}\n"
        );
        let t =
            register_entity(&text, "person--alice", "person", "alice", "entities/person--alice.md")
                .unwrap();
        assert!(t.contains("|-------------|\n| person--alice | person | alice | entities/person--alice.md | 1.00 |\n\n## Edges"), "{t}");
        assert!(register_entity(&t, "person--alice", "person", "alice", "x").is_none());
        let t = add_edge(&t, "person--alice", "works-on", "project--atlas", "2026-02-02").unwrap();
        assert!(
            t.ends_with(
                "| person--alice | works-on | project--atlas | 1.0 | 2026-02-02 | 2026-02-02 |\n"
            ),
            "{t}"
        );
        assert!(
            add_edge(&t, "person--alice", "works-on", "project--atlas", "2026-02-03").is_none()
        );
    }

    #[test]
    fn missing_sections_and_tables_are_created() {
        let t = register_entity("# Index\n", "tool--git", "tool", "git", "entities/tool--git.md")
            .unwrap();
        assert!(
            t.contains(&format!("## Entity Registry\n\n{REGISTRY_HEAD}\n| tool--git |")),
            "{t}"
        );
    }
}
