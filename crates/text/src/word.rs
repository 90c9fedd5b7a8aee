//! Words of a text, as search, routing and `forget` matching all see them: runs of letters and
//! digits, and overlapping pairs of characters in scripts written without spaces (Han, kana,
//! Hangul). The search index's tokenizer is built on [`segments`]; there is no other word
//! splitter.

/// Tells whether a character is written without spaces between words: Han ideographs (with
/// extension A and the compatibility block), hiragana and katakana, and Hangul syllables.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

/// Tells whether a character is invisible or a bidi control: it renders as nothing (a zero-width
/// space or joiner, a soft hyphen, a byte order mark, an invisible operator) or reorders the
/// text around it (U+202E RIGHT-TO-LEFT OVERRIDE and its kin), so that what a person reads is
/// not what a name says.
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Returns the byte ranges of the words of `text`, in order.
///
/// A run of letters and digits outside CJK scripts is one word. A run of CJK characters becomes
/// its overlapping pairs (`東京都` gives `東京`, `京都`), or the one character when the run
/// has one. Anything else separates words.
pub fn segments(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |k: usize| chars.get(k).map_or(text.len(), |(o, _)| *o);
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if is_cjk(c) {
            let mut j = i;
            while j < chars.len() && is_cjk(chars[j].1) {
                j += 1;
            }
            if j - i == 1 {
                out.push((start, end_of(i + 1)));
            } else {
                for (k, (offset, _)) in chars.iter().enumerate().take(j - 1).skip(i) {
                    out.push((*offset, end_of(k + 2)));
                }
            }
            i = j;
        } else if c.is_alphanumeric() {
            let mut j = i;
            while j < chars.len() && chars[j].1.is_alphanumeric() && !is_cjk(chars[j].1) {
                j += 1;
            }
            out.push((start, end_of(j)));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        segments(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn splits_latin_runs_and_pairs_cjk() {
        let cases: [(&str, &[&str]); 6] = [
            ("Alice prefers tea.", &["Alice", "prefers", "tea"]),
            ("東京都に住む", &["東京", "京都", "都に", "に住", "住む"]),
            ("猫", &["猫"]),
            ("서울에 산다", &["서울", "울에", "산다"]),
            ("café-au-lait 42", &["café", "au", "lait", "42"]),
            ("Atlas版2", &["Atlas", "版", "2"]),
        ];
        for (input, want) in cases {
            assert_eq!(words(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn classifies_han_kana_and_hangul_as_cjk() {
        for c in ['漢', 'ひ', 'カ', '한', '㐀'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', 'Ж', '1', ' '] {
            assert!(!is_cjk(c), "{c}");
        }
    }
}
