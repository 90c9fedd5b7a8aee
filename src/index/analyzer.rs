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
    let builder = TextAnalyzer::builder(CjkAwareTokenizer)
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser);
    match StopWordFilter::new(Language::English) {
        Some(stop) => builder.filter(stop).filter(Stemmer::new(Language::English)).build(),
        None => builder.filter(Stemmer::new(Language::English)).build(),
    }
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

/// Tells whether a character is written without spaces between words (kana, CJK ideographs,
/// Hangul).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

impl Tokenizer for CjkAwareTokenizer {
    type TokenStream<'a> = Tokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens {
        let mut tokens = Vec::new();
        let mut position = 0;
        let mut push = |from: usize, to: usize, tokens: &mut Vec<Token>| {
            tokens.push(Token {
                offset_from: from,
                offset_to: to,
                position,
                text: text[from..to].to_owned(),
                position_length: 1,
            });
            position += 1;
        };
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let (start, c) = chars[i];
            if is_cjk(c) {
                let mut j = i;
                while j < chars.len() && is_cjk(chars[j].1) {
                    j += 1;
                }
                let end_of = |k: usize| chars.get(k).map_or(text.len(), |(o, _)| *o);
                if j - i == 1 {
                    push(start, end_of(i + 1), &mut tokens);
                } else {
                    for (k, (offset, _)) in chars.iter().enumerate().take(j - 1).skip(i) {
                        push(*offset, end_of(k + 2), &mut tokens);
                    }
                }
                i = j;
            } else if c.is_alphanumeric() {
                let mut j = i;
                while j < chars.len() && chars[j].1.is_alphanumeric() && !is_cjk(chars[j].1) {
                    j += 1;
                }
                push(start, chars.get(j).map_or(text.len(), |(o, _)| *o), &mut tokens);
                i = j;
            } else {
                i += 1;
            }
        }
        Tokens { tokens, next: 0 }
    }
}

/// Returns the analyzed terms of a text, in order (duplicates kept).
pub fn terms(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push(t.text.clone());
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
    fn cjk_runs_become_pairs() {
        assert_eq!(terms("東京駅で会議"), ["東京", "京駅", "駅で", "で会", "会議"]);
        assert_eq!(terms("猫 cat"), ["猫", "cat"]);
    }
}
