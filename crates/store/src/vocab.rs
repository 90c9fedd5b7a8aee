//! The relation vocabulary, read from `memory/graph/relations.md`: each bullet names a relation
//! in backticks, optionally `/` its inverse, then flags in parentheses — `functional`,
//! `acyclic`, `symmetric`, and endpoint types `from→to` — then `—` and what it means. This module
//! owns the file: it parses it ([`Vocabulary::parse`]) and adds a bullet to it
//! ([`with_relation`]). Every command that writes a relation refuses one the vocabulary lacks
//! (issue 18); a hand-edited entity file may still hold one, and `graph check` reports it.

use std::collections::BTreeMap;

use cogmem_text::markdown;

/// What the vocabulary says about one relation.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RelationSpec {
    /// Its inverse, if it has one (a symmetric relation is its own inverse).
    pub inverse: Option<String>,
    /// One current object per subject.
    pub functional: bool,
    /// No cycles allowed.
    pub acyclic: bool,
    /// Allowed subject types (empty: any).
    pub from_types: Vec<String>,
    /// Allowed object types (empty: any).
    pub to_types: Vec<String>,
    /// What it means: the bullet's text after `—` (for an inverse, its relation's).
    pub meaning: String,
    /// Whether a bullet names it first (`false` for an inverse known only after a `/`).
    pub declared: bool,
}

/// The whole vocabulary, by relation name (inverses included).
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    specs: BTreeMap<String, RelationSpec>,
}

impl Vocabulary {
    /// Parses `relations.md`.
    pub fn parse(text: &str) -> Self {
        let mut specs = BTreeMap::new();
        for line in text.lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix("- ") else { continue };
            let names: Vec<String> = rest
                .split('—')
                .next()
                .unwrap_or("")
                .split('`')
                .enumerate()
                .filter(|(i, _)| i % 2 == 1)
                .map(|(_, n)| n.trim().to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            let Some(name) = names.first().cloned() else { continue };
            let mut spec = RelationSpec {
                declared: true,
                meaning: rest.split_once('—').map(|(_, m)| m.trim().to_owned()).unwrap_or_default(),
                ..RelationSpec::default()
            };
            let head = rest.split('—').next().unwrap_or("");
            if let (Some(open), Some(close)) = (head.find('('), head.rfind(')')) {
                for flag in head[open + 1..close].split(',').map(str::trim) {
                    match flag {
                        "functional" => spec.functional = true,
                        "acyclic" => spec.acyclic = true,
                        "symmetric" => spec.inverse = Some(name.clone()),
                        f if f.contains('→') => {
                            let (from, to) = parse_signature(f).unwrap_or_default();
                            spec.from_types = from;
                            spec.to_types = to;
                        }
                        _ => {}
                    }
                }
            }
            if let Some(inv) = names.get(1) {
                spec.inverse = Some(inv.clone());
                let inverse = RelationSpec {
                    inverse: Some(name.clone()),
                    functional: false,
                    acyclic: spec.acyclic,
                    from_types: spec.to_types.clone(),
                    to_types: spec.from_types.clone(),
                    meaning: spec.meaning.clone(),
                    declared: false,
                };
                specs.entry(inv.clone()).or_insert(inverse);
            }
            specs.insert(name, spec);
        }
        Self { specs }
    }

    /// Looks a relation up.
    pub fn get(&self, name: &str) -> Option<&RelationSpec> {
        self.specs.get(name)
    }

    /// Returns the entity types the relations' signatures name, sorted.
    pub fn types(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .specs
            .values()
            .flat_map(|s| s.from_types.iter().chain(&s.to_types).cloned())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Tells whether the vocabulary knows a relation (as a name or as an inverse).
    pub fn knows(&self, name: &str) -> bool {
        self.specs.contains_key(name)
    }

    /// Lists every relation, inverses included, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RelationSpec)> {
        self.specs.iter().map(|(n, s)| (n.as_str(), s))
    }

    /// Returns up to `max` known names nearest to `name` (a misspelling, or a shared word),
    /// closest first: what an unknown relation's error suggests.
    pub fn nearest(&self, name: &str, max: usize) -> Vec<String> {
        cogmem_text::suggest::nearest(name, self.specs.keys().map(String::as_str), max)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}

/// Reads endpoint types, `FROM→TO` (or `FROM->TO`, as typed on a command line), each side one
/// type or several joined by `|`: `person→project`, `person|organization->place`. Types are
/// trimmed and empty ones dropped (an empty side means any type); the caller checks the names.
///
/// Returns `None` without an arrow.
pub fn parse_signature(text: &str) -> Option<(Vec<String>, Vec<String>)> {
    let (from, to) = text.split_once('→').or_else(|| text.split_once("->"))?;
    let side = |s: &str| -> Vec<String> {
        s.split('|').map(|x| x.trim().to_owned()).filter(|x| !x.is_empty()).collect()
    };
    Some((side(from), side(to)))
}

/// A relation to add to the vocabulary with [`with_relation`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewRelation {
    /// Its name, lower-kebab.
    pub name: String,
    /// Its inverse, lower-kebab; `None` for a symmetric relation.
    pub inverse: Option<String>,
    /// Its own inverse.
    pub symmetric: bool,
    /// One current object per subject.
    pub functional: bool,
    /// No cycles allowed.
    pub acyclic: bool,
    /// Allowed subject types (empty: any).
    pub from_types: Vec<String>,
    /// Allowed object types (empty: any).
    pub to_types: Vec<String>,
    /// What it means, one line.
    pub meaning: String,
}

/// The section [`with_relation`] adds bullets to, created at the end of the file if missing.
pub const ADDED_SECTION: &str = "Added";

/// Returns `relations.md` with a bullet for `new` at the end of its `## Added` section (made at
/// the end of the file when missing), and the 1-based line of the bullet.
///
/// The bullet is the format [`Vocabulary::parse`] reads: `` - `name` / `inverse` (flags) —
/// meaning``. The caller checks the names; the meaning is made one line.
pub fn with_relation(text: &str, new: &NewRelation) -> (String, usize) {
    let mut line = format!("- `{}`", new.name);
    if let Some(inv) = new.inverse.as_deref().filter(|_| !new.symmetric) {
        line.push_str(&format!(" / `{inv}`"));
    }
    let mut flags: Vec<String> = Vec::new();
    for (on, flag) in
        [(new.functional, "functional"), (new.acyclic, "acyclic"), (new.symmetric, "symmetric")]
    {
        if on {
            flags.push(flag.to_owned());
        }
    }
    if !new.from_types.is_empty() || !new.to_types.is_empty() {
        flags.push(format!("{}→{}", new.from_types.join("|"), new.to_types.join("|")));
    }
    if !flags.is_empty() {
        line.push_str(&format!(" ({})", flags.join(", ")));
    }
    let meaning = markdown::field(&new.meaning);
    if !meaning.trim().is_empty() {
        line.push_str(&format!(" — {}", meaning.trim()));
    }
    let mut body = text.to_owned();
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    let sections = markdown::sections(&body);
    let body = match markdown::find_section(&sections, ADDED_SECTION) {
        Some(_) => body,
        None => markdown::append_section(&body, ADDED_SECTION),
    };
    let sections = markdown::sections(&body);
    let section = markdown::find_section(&sections, ADDED_SECTION)
        .expect("the section was just found or appended");
    let (out, offset) = markdown::insert_at_section_end(&body, section, &line);
    let at = markdown::line_of(&out, offset);
    (out, at)
}

/// Adds to `text` (a workspace's `relations.md`) the bullets of `template` (the file as `init`
/// lays it out) that declare a relation of `names`, or its inverse, which `text` does not know;
/// each goes under the section it has in the template, made at the end of the file when missing.
/// Returns the new text and the relations added, in the template's order. An older workspace
/// gains this way the relations routing writes today (`doctor --fix`, issue 18).
pub fn with_missing(text: &str, template: &str, names: &[&str]) -> (String, Vec<String>) {
    let have = Vocabulary::parse(text);
    let mut body = text.to_owned();
    let mut added = Vec::new();
    let mut section = ADDED_SECTION.to_owned();
    for line in template.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            title.trim().clone_into(&mut section);
            continue;
        }
        let one = Vocabulary::parse(line);
        let Some((name, spec)) = one.iter().find(|(_, s)| s.declared) else { continue };
        let wanted = names.contains(&name)
            || spec.inverse.as_deref().is_some_and(|inv| names.contains(&inv));
        if !wanted || have.knows(name) {
            continue;
        }
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        if markdown::find_section(&markdown::sections(&body), &section).is_none() {
            body = markdown::append_section(&body, &section);
        }
        let sections = markdown::sections(&body);
        let at = markdown::find_section(&sections, &section).expect("found or just appended");
        body = markdown::insert_at_section_end(&body, at, line.trim_end()).0;
        added.push(name.to_owned());
    }
    (body, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vocabulary `init` lays out.
    fn template() -> Vocabulary {
        let text = crate::template::memory_template("memory/graph/relations.md").unwrap();
        Vocabulary::parse(text)
    }

    #[test]
    fn template_vocabulary() {
        let v = template();
        let lives = v.get("lives-in").unwrap();
        assert!(lives.functional);
        assert_eq!(
            (lives.from_types.as_slice(), lives.to_types.as_slice()),
            (&["person".to_owned()][..], &["place".to_owned()][..])
        );
        assert_eq!(v.get("home-of").unwrap().inverse.as_deref(), Some("lives-in"));
        assert!(v.get("depends-on").unwrap().acyclic);
        assert_eq!(v.get("relates-to").unwrap().inverse.as_deref(), Some("relates-to"));
        assert!(!v.knows("frobnicates"));
        assert!(v.get("lives-in").unwrap().declared && !v.get("home-of").unwrap().declared);
        assert_eq!(v.get("home-of").unwrap().meaning, "where someone lives now");
        assert_eq!(v.nearest("live-in", 3), ["lives-in"]);
    }

    #[test]
    fn an_added_relation_reads_back_as_given() {
        let template = "# Relation Vocabulary\n\n## Personal\n- `role` (functional) — a role\n";
        let new = NewRelation {
            name: "maintains".into(),
            inverse: Some("maintained-by".into()),
            functional: false,
            acyclic: true,
            from_types: vec!["person".into()],
            to_types: vec!["project".into(), "tool".into()],
            meaning: "keeps it running\nday to day".into(),
            ..NewRelation::default()
        };
        let (text, line) = with_relation(template, &new);
        assert_eq!(
            text.lines().nth(line - 1).unwrap(),
            "- `maintains` / `maintained-by` (acyclic, person→project|tool) — keeps it running day to day"
        );
        let v = Vocabulary::parse(&text);
        let m = v.get("maintains").unwrap();
        assert_eq!(m.inverse.as_deref(), Some("maintained-by"));
        assert!(m.acyclic && !m.functional && m.declared);
        assert_eq!(m.to_types, ["project", "tool"]);
        assert_eq!(v.get("maintained-by").unwrap().from_types, ["project", "tool"]);
        assert!(v.get("role").unwrap().functional, "the other bullets are kept");
        // A second one goes under the same section, after the first.
        let twin =
            NewRelation { name: "twin-of".into(), symmetric: true, ..NewRelation::default() };
        let (again, line2) = with_relation(&text, &twin);
        assert_eq!(again.lines().nth(line2 - 1).unwrap(), "- `twin-of` (symmetric)");
        assert_eq!(line2, line + 1);
        assert_eq!(again.matches("## Added").count(), 1);
        let v = Vocabulary::parse(&again);
        assert_eq!(v.get("twin-of").unwrap().inverse.as_deref(), Some("twin-of"));
    }

    /// An older relations.md without the People section gains exactly the missing bullets,
    /// under the template's heading, and a second pass adds nothing.
    #[test]
    fn missing_relations_come_from_the_template() {
        let template = crate::template::memory_template("memory/graph/relations.md").unwrap();
        let old = &template[..template.find("## People").unwrap()];
        let names: Vec<&str> = cogmem_text::kin::RELATIONS.to_vec();
        let (new, added) = with_missing(old, template, &names);
        assert!(added.contains(&"sibling-of".to_owned()), "{added:?}");
        assert!(added.contains(&"manages".to_owned()), "{added:?}");
        assert!(new.starts_with(old), "the old text stays as it was");
        assert!(new.contains("## People\n"), "{new}");
        let v = Vocabulary::parse(&new);
        for r in cogmem_text::kin::RELATIONS {
            assert!(v.knows(r), "{r} still missing");
        }
        assert_eq!(v.get("reports-to").unwrap().inverse.as_deref(), Some("manages"));
        let (again, none) = with_missing(&new, template, &names);
        assert_eq!(again, new);
        assert!(none.is_empty());
        // The full template lacks nothing.
        assert!(with_missing(template, template, &names).1.is_empty());
    }

    /// Routing writes only declared relations: the role words' and the patterns' (issue 18).
    #[test]
    fn template_declares_every_relation_routing_writes() {
        let v = template();
        for r in cogmem_text::route::written_relations() {
            let spec = v.get(r).unwrap_or_else(|| panic!("{r} is not in the template"));
            assert!(spec.inverse.is_some(), "{r} has no inverse");
        }
        let spouse = v.get("spouse-of").unwrap();
        assert_eq!(spouse.inverse.as_deref(), Some("spouse-of"));
        assert_eq!(v.get("reports-to").unwrap().inverse.as_deref(), Some("manages"));
        assert_eq!(v.get("served-by").unwrap().from_types, ["person"]);
    }
}
