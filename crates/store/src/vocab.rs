//! The relation vocabulary, read from `memory/graph/relations.md`: each bullet names a relation
//! in backticks, optionally `/` its inverse, then flags in parentheses — `functional`,
//! `acyclic`, `symmetric`, and endpoint types `from→to`. Unknown relations are allowed in entity
//! files but reported by `graph check`.

use std::collections::BTreeMap;

/// What the vocabulary says about one relation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
            let mut spec = RelationSpec::default();
            let head = rest.split('—').next().unwrap_or("");
            if let (Some(open), Some(close)) = (head.find('('), head.rfind(')')) {
                for flag in head[open + 1..close].split(',').map(str::trim) {
                    match flag {
                        "functional" => spec.functional = true,
                        "acyclic" => spec.acyclic = true,
                        "symmetric" => spec.inverse = Some(name.clone()),
                        f if f.contains('→') => {
                            let (a, b) = f.split_once('→').unwrap_or(("", ""));
                            spec.from_types = a
                                .split('|')
                                .map(|x| x.trim().to_owned())
                                .filter(|x| !x.is_empty())
                                .collect();
                            spec.to_types = b
                                .split('|')
                                .map(|x| x.trim().to_owned())
                                .filter(|x| !x.is_empty())
                                .collect();
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

    /// Tells whether the vocabulary knows a relation.
    #[cfg(test)]
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.specs.contains_key(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vocabulary `init` lays out.
    fn template() -> Vocabulary {
        let text = crate::template::MEMORY_TEMPLATE
            .iter()
            .find(|(n, _)| *n == "memory/graph/relations.md")
            .map(|(_, b)| std::str::from_utf8(b).unwrap())
            .unwrap();
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
    }

    /// Routing writes only declared relations: the role words' and the patterns' (issue 18).
    #[test]
    fn template_declares_every_relation_routing_writes() {
        let v = template();
        let patterns = [
            "works-at",
            "works-on",
            "lives-in",
            "uses",
            "depends-on",
            "part-of",
            "prefers",
            "avoids",
            "supersedes",
            "relates-to",
        ];
        for r in cogmem_text::kin::RELATIONS.iter().chain(&patterns) {
            let spec = v.get(r).unwrap_or_else(|| panic!("{r} is not in the template"));
            assert!(spec.inverse.is_some(), "{r} has no inverse");
        }
        let spouse = v.get("spouse-of").unwrap();
        assert_eq!(spouse.inverse.as_deref(), Some("spouse-of"));
        assert_eq!(v.get("reports-to").unwrap().inverse.as_deref(), Some("manages"));
        assert_eq!(v.get("served-by").unwrap().from_types, ["person"]);
    }
}
