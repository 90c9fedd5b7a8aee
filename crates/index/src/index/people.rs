//! Who a question asks about, as a ranking signal (issue 22): a memory linked to an entity the
//! question names ("What activities does Melanie do?" names `person--melanie`, through
//! [`cogmem_text::question`]'s people) is more often about what is asked than one that only
//! shares its words. `import` and `remember` link entries to their speakers and the names they
//! use (`cogmem_text::names`), so the links gather one person's messages across sessions.
//!
//! Derived like the rest of the ranking: the links are the entries' own `<!-- entities: … -->`
//! lines, indexed; nothing is written. The factor is chosen on the tune split of the LoCoMo
//! benchmark only (benches/retrieval/tune.py).

use cogmem_text::markdown::slugify;

/// The factor on the score of an episode entry linked to an entity the question names.
/// Chosen on the tune split (docs/decisions.md, 2026-12-02).
pub(crate) const LINKED_BOOST: f64 = 1.0;

/// Tells whether one of `entities` (ids, `TYPE--SLUG`) is named by one of `people` (names as
/// the question writes them): its slug is the name's, or starts with it and a `-` ("Melanie"
/// names `person--melanie-smith`).
pub(crate) fn names_one_of(people: &[String], entities: &[String]) -> bool {
    people.iter().map(|p| slugify(p)).filter(|s| !s.is_empty()).any(|name| {
        entities.iter().filter_map(|e| e.split_once("--")).any(|(_, slug)| {
            slug == name || slug.strip_prefix(name.as_str()).is_some_and(|r| r.starts_with('-'))
        })
    })
}

/// Tells whether an entity file's text says nothing but its name: headings, comment lines and
/// blank lines only, as `import` creates the entities its messages name. Such a file is no
/// memory of its own; the entries linked to it are.
pub(crate) fn is_stub(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .all(|l| l.is_empty() || l.starts_with('#') || l.starts_with("<!--") && l.ends_with("-->"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entity_file_with_only_its_name_is_a_stub() {
        let stub = "# place--sweden\n<!-- Type: place | Created: 2026-12-01 -->\n\n## Summary\n\n## Facts\n";
        assert!(is_stub(stub));
        assert!(!is_stub(&format!("{stub}- Caroline moved here\n")));
        assert!(!is_stub("# x\nA summary line.\n"));
    }

    #[test]
    fn a_question_names_the_entities_of_its_people() {
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let cases = [
            (vec!["Melanie"], ids(&["person--melanie"]), true),
            (vec!["Melanie"], ids(&["person--melanie-smith"]), true),
            (vec!["Mel"], ids(&["person--melanie"]), false),
            (vec!["Sweden"], ids(&["person--caroline", "place--sweden"]), true),
            (vec!["Caroline"], ids(&["person--melanie"]), false),
            (vec![], ids(&["person--melanie"]), false),
            (vec!["!!!"], ids(&["person--x"]), false),
        ];
        for (people, entities, want) in cases {
            let people: Vec<String> = people.iter().map(|s| (*s).to_owned()).collect();
            assert_eq!(names_one_of(&people, &entities), want, "input: {people:?} {entities:?}");
        }
    }
}
