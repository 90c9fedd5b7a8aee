//! Did-you-mean: the known names nearest to one that was not found, for the hints of errors
//! about an unknown id, name or value. Pure: the caller passes the names it knows.
//!
//! Two signs make a known name near: a shared word (three letters or more; two in other
//! scripts) of its *name part* (what follows the last
//! `--`, else the last `:`, so that `entity:person--kenji` is compared by `kenji`, not by the
//! `entity` and `person` every other id has too), or a small edit distance (Levenshtein, in
//! characters, ignoring case), over the whole name or over the name parts.

use crate::word;

/// Returns at most `max` of `known` nearest to `given`, nearest first; none when nothing is
/// near.
///
/// A known name is near when its name part shares a word with `given`'s (see `words`), when its edit distance to `given` is at most 2,
/// or when the edit distance between the name parts is at most a quarter of `given`'s (at
/// least 1; only when `given`'s name part has a word). The nearest share the most words, then have the smallest distance; ties go in
/// the order of the names.
pub fn nearest<'a, I>(given: &str, known: I, max: usize) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let given = given.trim().to_lowercase();
    if given.is_empty() || max == 0 {
        return Vec::new();
    }
    let given_part = name_part(&given);
    let given_words = words(given_part);
    // A name part without a word (the time of an episode id) says nothing about nearness.
    let part_room =
        if given_words.is_empty() { None } else { Some((given_part.chars().count() / 4).max(1)) };
    let mut scored: Vec<(usize, usize, &'a str)> = known
        .into_iter()
        .filter_map(|k| {
            let lower = k.to_lowercase();
            let part = name_part(&lower);
            let shared = words(part).iter().filter(|w| given_words.contains(w)).count();
            // The distance is at least the difference in length: most ids are ruled out
            // without computing it (a miss among 10,000 ids stays quick).
            let gap = |a: &str, b: &str| a.chars().count().abs_diff(b.chars().count());
            if shared == 0
                && gap(&given, &lower) > 2
                && part_room.is_none_or(|room| gap(given_part, part) > room)
            {
                return None;
            }
            let whole = strsim::levenshtein(&given, &lower);
            let parts = part_room
                .map(|room| (strsim::levenshtein(given_part, part), room))
                .filter(|(d, room)| d <= room)
                .map_or(usize::MAX, |(d, _)| d);
            let near = shared > 0 || whole <= 2 || parts != usize::MAX;
            (near && lower != given).then_some((shared, whole.min(parts), k))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)));
    scored.dedup_by(|a, b| a.2 == b.2);
    scored.into_iter().take(max).map(|(_, _, k)| k).collect()
}

/// What follows the last `--`, else the last `:`, else the whole name.
fn name_part(name: &str) -> &str {
    if let Some((_, tail)) = name.rsplit_once("--") {
        tail
    } else if let Some((_, tail)) = name.rsplit_once(':') {
        tail
    } else {
        name
    }
}

/// The words that count as shared: not all digits, and three letters or more in ASCII (so the
/// `on`, `in` and `by` of relation names like `works-on` and `decided-on` say nothing), two in
/// other scripts (Japanese names: 田中).
fn words(text: &str) -> Vec<&str> {
    word::segments(text)
        .into_iter()
        .map(|(a, b)| &text[a..b])
        .filter(|w| {
            let least = if w.is_ascii() { 3 } else { 2 };
            w.chars().count() >= least && !w.chars().all(|c| c.is_ascii_digit())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: [&str; 8] = [
        "entity:person--kenji",
        "entity:person--kenta",
        "entity:person--alice",
        "entity:tool--gutenberg",
        "episode:2026-02-02:09:15",
        "episode:2026-02-02:09:16",
        "procedure:deploy-atlas",
        "core:active-context:7fc6c745",
    ];

    #[test]
    fn suggests_ids_by_shared_words_and_small_edits() {
        let cases: [(&str, &[&str]); 10] = [
            ("kenji", &["entity:person--kenji"]),
            ("entity:person--kenjii", &["entity:person--kenji"]),
            ("person--kenja", &["entity:person--kenji", "entity:person--kenta"]),
            ("entity:person--gutenberg", &["entity:tool--gutenberg"]),
            ("episode:2026-02-03:09:15", &["episode:2026-02-02:09:15", "episode:2026-02-02:09:16"]),
            ("procedure:deploy-atlass", &["procedure:deploy-atlas"]),
            ("atlas", &["procedure:deploy-atlas"]),
            ("core:active-context:7fc6c746", &["core:active-context:7fc6c745"]),
            ("zzzz-nothing-like-it", &[]),
            ("", &[]),
        ];
        for (given, want) in cases {
            assert_eq!(nearest(given, IDS, 5), want, "given: {given:?}");
        }
    }

    #[test]
    fn keeps_at_most_max_and_never_the_name_itself() {
        let many: Vec<String> = (0..20).map(|i| format!("episode:2026-02-02:09:{i:02}")).collect();
        let got = nearest("episode:2026-02-02:09:30", many.iter().map(String::as_str), 5);
        assert_eq!(got.len(), 5);
        assert!(
            nearest("entity:person--kenji", IDS, 5).iter().all(|k| *k != "entity:person--kenji")
        );
    }

    /// Relation names (no `--` or `:`), as an unknown relation's error suggests them.
    #[test]
    fn suggests_relation_names() {
        const KNOWN: [&str; 8] = [
            "works-at",
            "works-on",
            "lives-in",
            "develops",
            "developed-by",
            "depends-on",
            "uses",
            "relates-to",
        ];
        let cases: [(&str, &[&str]); 8] = [
            ("work-at", &["works-at"]),
            ("works-in", &["works-on", "works-at"]),
            ("lives-with", &["lives-in"]),
            ("lives_in", &["lives-in"]),
            ("develop", &["develops"]),
            ("maintains", &[]),
            ("relates", &["relates-to"]),
            ("works-at", &["works-on"]),
        ];
        for (given, want) in cases {
            assert_eq!(nearest(given, KNOWN, 3), want, "given: {given:?}");
        }
    }
}
