//! The `cogmem` text analyzer: words split on anything that is not a letter or digit, Japanese
//! and Chinese runs split into overlapping character pairs (so a two-character word matches
//! inside a longer run), lower-cased, English stop words removed ([`cogmem_text::stopword`]),
//! English stemming. The same analyzer reads documents and queries, so they always agree.

use cogmem_text::stopword::{self, Tier};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};

/// The analyzer's name in the index (a change of analyzer changes this name).
pub(crate) const NAME: &str = "cogmem-v1";

/// Builds the analyzer.
pub(crate) fn analyzer() -> TextAnalyzer {
    build(Tier::Index)
}

/// Builds the analyzer, dropping the English stop words of `tier`.
fn build(tier: Tier) -> TextAnalyzer {
    let stop = StopWordFilter::remove(stopword::english(tier).map(str::to_owned));
    TextAnalyzer::builder(CjkAwareTokenizer)
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(stop)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Splits text into word tokens and CJK character pairs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CjkAwareTokenizer;

/// The tokens of one text, produced eagerly (texts are short).
pub(crate) struct Tokens {
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

thread_local! {
    /// The analyzer [`terms`] uses, built once per thread: building one makes the stop-word
    /// set and the stemmer, and a search's snippets analyze each word of each hit on its own
    /// (a new analyzer per word was most of the time a search spent after ranking).
    static TERMS: std::cell::RefCell<TextAnalyzer> = std::cell::RefCell::new(analyzer());
}

/// Returns the analyzed terms of a text, in order (duplicates kept).
pub fn terms(text: &str) -> Vec<String> {
    TERMS.with(|a| positioned(&mut a.borrow_mut(), text)).into_iter().map(|(t, _)| t).collect()
}

/// Returns the terms of a query with their word positions: like [`terms`], without the query
/// stop words ([`Tier::Query`]: question words, auxiliaries, pronouns) — unless nothing else is
/// left ("what did she do?"), then all of them.
pub fn query_terms(text: &str) -> Vec<(String, usize)> {
    let terms = positioned(&mut build(Tier::Query), text);
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
    fn the_index_stop_words_are_tantivys_english_list() {
        // The index was built with tantivy's English list; a different list would change
        // search ranking and need a new analyzer NAME.
        let text = stopword::english(Tier::Topic).collect::<Vec<_>>().join(" ")
            + " such then there these may us nor after before again";
        let mut tantivy = TextAnalyzer::builder(CjkAwareTokenizer)
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(StopWordFilter::new(Language::English).unwrap())
            .filter(Stemmer::new(Language::English))
            .build();
        assert_eq!(positioned(&mut analyzer(), &text), positioned(&mut tantivy, &text));
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
