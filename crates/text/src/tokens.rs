//! Token estimates for budgets (MEMORY.md's 3,000 tokens).
//!
//! This is a deterministic estimate shaped like a BPE tokenizer's counts, not a tokenizer: a
//! word of up to six letters is one token, a longer one gains a token per five more letters, a number one per three digits,
//! each punctuation mark one, each kana one and each kanji or hanzi two (BPE vocabularies
//! split most of them into two byte-level tokens). On English prose it runs slightly
//! above `cl100k_base`, so a budget checked with it is not exceeded by the real count. It costs
//! nothing at start-up, unlike loading a tokenizer's vocabulary (55–220 ms per process,
//! measured in `../shared/rust-deps.md`).

/// Estimates how many tokens `text` takes.
pub fn estimate(text: &str) -> usize {
    let mut tokens = 0usize;
    let mut word = 0usize; // letters in the current run
    let mut digits = 0usize;
    let flush = |word: &mut usize, digits: &mut usize, tokens: &mut usize| {
        if *word > 0 {
            *tokens += 1 + (*word).saturating_sub(6).div_ceil(5);
            *word = 0;
        }
        if *digits > 0 {
            *tokens += (*digits).div_ceil(3);
            *digits = 0;
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphabetic() || (c.is_alphabetic() && !is_cjk(c)) {
            if digits > 0 {
                flush(&mut 0, &mut digits, &mut tokens);
            }
            word += 1;
        } else if c.is_ascii_digit() {
            if word > 0 {
                flush(&mut word, &mut 0, &mut tokens);
            }
            digits += 1;
        } else {
            flush(&mut word, &mut digits, &mut tokens);
            if c.is_whitespace() {
                continue;
            }
            tokens += if is_ideograph(c) { 2 } else { 1 };
        }
    }
    flush(&mut word, &mut digits, &mut tokens);
    tokens
}

fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

use crate::word::is_cjk;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_cases() {
        let cases = [
            ("", 0),
            ("hello world", 2),
            ("internationalization", 4),
            ("2026-11-30", 6),
            ("覚えておいて", 7),
            ("- **Name:** Alice", 8),
        ];
        for (input, want) in cases {
            assert_eq!(estimate(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn estimate_grows_with_text() {
        let one = estimate("Alice prefers tea in the morning.");
        assert!(estimate(&"Alice prefers tea in the morning. ".repeat(10)) >= one * 10);
    }
}
