//! Which known names are nearest to one that is not known, for "did you mean" hints: a
//! misspelt name (`work-at` → `works-at`) or one with a whole word in common (`lives-with` →
//! `lives-in`). Invariant: pure; deterministic order (closest first, then alphabetical).

/// Returns up to `max` of `known` nearest to `name`, closest first.
///
/// A candidate is near when its edit distance (Levenshtein, over characters) is at most a
/// third of the longer name's length (at least 2), or when it shares a whole `-`-separated word
/// with `name` (`lives-in` and `lives-with`). Candidates equal to `name` are left out.
pub fn nearest<'a, I>(name: &str, known: I, max: usize) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let name = name.to_lowercase();
    let words: Vec<&str> = name.split('-').filter(|w| w.len() > 2).collect();
    let mut scored: Vec<(usize, usize, &'a str)> = known
        .into_iter()
        .filter(|k| !k.eq_ignore_ascii_case(&name))
        .filter_map(|k| {
            let lower = k.to_lowercase();
            let d = distance(&name, &lower);
            let limit = (name.chars().count().max(lower.chars().count()) / 3).max(2);
            let shared = lower.split('-').filter(|w| words.contains(w)).count();
            (d <= limit || shared > 0).then_some((usize::from(d > limit), d, k))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored.into_iter().take(max).map(|(_, _, k)| k).collect()
}

/// The Levenshtein distance between two strings, in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn nearest_names() {
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
        for (input, want) in cases {
            assert_eq!(nearest(input, KNOWN, 3), want, "input: {input:?}");
        }
    }

    #[test]
    fn distances() {
        let cases = [
            ("", "", 0),
            ("abc", "", 3),
            ("kitten", "sitting", 3),
            ("先週", "先月", 1),
            ("a", "a", 0),
        ];
        for (a, b, want) in cases {
            assert_eq!(distance(a, b), want, "input: {a:?} {b:?}");
        }
    }
}
