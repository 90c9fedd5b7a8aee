//! The one list of stop words: words too common to say what a text is about. The search
//! index, search queries, routing's tag picker and forget matching all take theirs from here.
//!
//! English is the only language with a list: Japanese and Chinese text is matched by character
//! pairs ([`crate::word`]), where no word is too common to keep. The English list comes in three
//! nested tiers, each a superset of the one before, so every caller drops at least what the
//! index drops:
//!
//! - [`Tier::Index`], [`ENGLISH_INDEX`]: dropped from every indexed text and every query.
//! - [`Tier::Query`], plus [`ENGLISH_QUESTION`]: also dropped from search queries.
//! - [`Tier::Topic`], plus [`ENGLISH_FILLER`]: also dropped when looking for what a text is
//!   about (routing's tag word, forget matching).
//!
//! Invariant: the index tier is exactly the list the index was built with; changing it changes
//! search ranking and needs a new analyzer name (`cogmem-v1` in the index crate).

/// English function words that no search term is: the Lucene English stop set (tantivy's
/// `Language::English` list), word for word.
#[rustfmt::skip] // one word per line otherwise
pub const ENGLISH_INDEX: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Words dropped from queries only: question words, auxiliaries and the pieces contractions
/// split into ("Caroline's" → `s`, "didn't" → `t`). Kept in documents, they would make a
/// question match turns that are themselves questions rather than the answer (measured on
/// LoCoMo: recall@10 0.589 with them, 0.644 without; benches/retrieval/README.md). "may" and
/// "will" are not here: one is a month, the other already an index stop word. Personal pronouns
/// too: in a question they stand for someone named elsewhere ("How did Melanie feel about her
/// family?"), and in the memories they match sentences about anyone. "us" is not here (the US).
#[rustfmt::skip] // one word per line otherwise
pub const ENGLISH_QUESTION: &[&str] = &[
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "do", "does", "did",
    "doing", "done", "have", "has", "had", "having", "would", "could", "should", "s", "t", "d",
    "ll", "m", "re", "ve", "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you",
    "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
    "herself", "its", "itself", "them", "theirs", "themselves",
];

/// Words that are not what a memory is about, though a search may still look for them: other
/// function words, intensifiers, and the words every preference says ("prefers", "likes",
/// "always") or every workspace has ("user"). Dropped, on top of the others, when picking a
/// memory's topic word and when matching what to forget; never from search.
#[rustfmt::skip] // one word per line otherwise
pub const ENGLISH_FILLER: &[&str] = &[
    "were", "been", "about", "from", "over", "than", "so", "yes", "can", "just", "also", "very",
    "really", "prefer", "prefers", "like", "likes", "always", "never", "user",
];

/// How many of the stop words a caller drops; each tier drops everything the one before does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// Indexed text: [`ENGLISH_INDEX`].
    Index,
    /// Search queries: the index tier and [`ENGLISH_QUESTION`].
    Query,
    /// Finding what a text is about (routing tags, forget matching): the query tier and
    /// [`ENGLISH_FILLER`].
    Topic,
}

/// Returns the English stop words of `tier`, the lists of the tiers below it included.
pub fn english(tier: Tier) -> impl Iterator<Item = &'static str> {
    let lists: &[&[&str]] = match tier {
        Tier::Index => &[ENGLISH_INDEX],
        Tier::Query => &[ENGLISH_INDEX, ENGLISH_QUESTION],
        Tier::Topic => &[ENGLISH_INDEX, ENGLISH_QUESTION, ENGLISH_FILLER],
    };
    lists.iter().flat_map(|l| l.iter().copied())
}

/// Tells whether `word` (lower case) is an English stop word of `tier`.
pub fn is_english(word: &str, tier: Tier) -> bool {
    english(tier).any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_are_nested() {
        let cases = [
            ("the", [true, true, true]),
            ("will", [true, true, true]),
            ("what", [false, true, true]),
            ("her", [false, true, true]),
            ("about", [false, false, true]),
            ("prefers", [false, false, true]),
            ("tea", [false, false, false]),
            ("may", [false, false, false]),
            ("us", [false, false, false]),
            ("The", [false, false, false]),
        ];
        for (input, want) in cases {
            let got = [Tier::Index, Tier::Query, Tier::Topic].map(|t| is_english(input, t));
            assert_eq!(got, want, "input: {input:?}");
        }
    }

    #[test]
    fn no_word_is_listed_twice() {
        let mut all: Vec<&str> = english(Tier::Topic).collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        assert!(all.iter().all(|w| *w == w.to_lowercase()));
    }
}
