//! The `cogmem` text analyzer: words split on anything that is not a letter or digit, Japanese
//! and Chinese runs split into overlapping character pairs (so a two-character word matches
//! inside a longer run), lower-cased, English stop words removed, English stemming. The same
//! analyzer reads documents and queries, so they always agree.

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};

/// The analyzer's name in the index (a change of analyzer changes this name).
pub const NAME: &str = "cogmem-v1";

/// Builds the analyzer.
pub fn analyzer() -> TextAnalyzer {
    build(&[])
}

/// Words dropped from queries only: question words, auxiliaries and the pieces contractions
/// split into ("Caroline's" → `s`, "didn't" → `t`). Kept in documents, they would make a
/// question match turns that are themselves questions rather than the answer (measured on
/// LoCoMo: recall@10 0.589 with them, 0.644 without; benches/retrieval/README.md). "may" and
/// "will" are not here: one is a month, the other already a stop word. Personal pronouns too:
/// in a question they stand for someone named elsewhere ("How did Melanie feel about her
/// family?"), and in the memories they match sentences about anyone. "us" is not here (the US).
#[rustfmt::skip] // one word per line otherwise
pub const QUERY_STOP_WORDS: &[&str] = &[
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "do", "does", "did",
    "doing", "done", "have", "has", "had", "having", "would", "could", "should", "s", "t", "d",
    "ll", "m", "re", "ve", "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you",
    "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
    "herself", "its", "itself", "them", "theirs", "themselves",
];

fn build(extra_stop: &[&str]) -> TextAnalyzer {
    let mut builder = TextAnalyzer::builder(CjkAwareTokenizer)
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .dynamic();
    if let Some(stop) = StopWordFilter::new(Language::English) {
        builder = builder.filter_dynamic(stop);
    }
    if !extra_stop.is_empty() {
        builder = builder
            .filter_dynamic(StopWordFilter::remove(extra_stop.iter().map(|w| (*w).to_owned())));
    }
    builder.filter_dynamic(Stemmer::new(Language::English)).build()
}

/// Splits text into word tokens and CJK character pairs.
#[derive(Clone, Copy, Debug, Default)]
pub struct CjkAwareTokenizer;

/// The tokens of one text, produced eagerly (texts are short).
pub struct Tokens {
    tokens: Vec<Token>,
    next: usize,
}

impl TokenStream for Tokens {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

pub use cogmem_text::word::is_cjk;

impl Tokenizer for CjkAwareTokenizer {
    type TokenStream<'a> = Tokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens {
        let tokens = cogmem_text::word::segments(text)
            .into_iter()
            .enumerate()
            .map(|(position, (from, to))| Token {
                offset_from: from,
                offset_to: to,
                position,
                text: text[from..to].to_owned(),
                position_length: 1,
            })
            .collect();
        Tokens { tokens, next: 0 }
    }
}

/// Returns the analyzed terms of a text, in order (duplicates kept).
pub fn terms(text: &str) -> Vec<String> {
    positioned(&mut analyzer(), text).into_iter().map(|(t, _)| t).collect()
}

/// Returns the terms of a query with their word positions: like [`terms`], without
/// [`QUERY_STOP_WORDS`] — unless nothing else is left ("what did she do?"), then all of them.
pub fn query_terms(text: &str) -> Vec<(String, usize)> {
    let terms = positioned(&mut build(QUERY_STOP_WORDS), text);
    if terms.is_empty() { positioned(&mut analyzer(), text) } else { terms }
}

fn positioned(a: &mut TextAnalyzer, text: &str) -> Vec<(String, usize)> {
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push((t.text.clone(), t.position));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_stemmed_and_stop_words_dropped() {
        assert_eq!(terms("The cats were running to the Stores"), ["cat", "were", "run", "store"]);
    }

    #[test]
    fn queries_drop_question_words_unless_nothing_is_left() {
        let q: Vec<String> =
            query_terms("How long has John been surfing?").into_iter().map(|(t, _)| t).collect();
        assert_eq!(q, ["long", "john", "been", "surf"]);
        let q: Vec<String> =
            query_terms("What did Caroline's sister do?").into_iter().map(|(t, _)| t).collect();
        assert_eq!(q, ["carolin", "sister"]);
        let q: Vec<String> = query_terms("How did Melanie feel about her family supporting her?")
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(q, ["melani", "feel", "about", "famili", "support"]);
        // Positions are the words' places in the query, gaps included.
        assert_eq!(
            query_terms("how long has John")[1].1 - query_terms("how long has John")[0].1,
            2
        );
        assert!(!query_terms("what did you do").is_empty(), "falls back to every word");
    }

    #[test]
    fn cjk_runs_become_pairs() {
        assert_eq!(terms("東京駅で会議"), ["東京", "京駅", "駅で", "で会", "会議"]);
        assert_eq!(terms("猫 cat"), ["猫", "cat"]);
    }
}
