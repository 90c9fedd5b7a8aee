//! JSON text as hosts write it.
//!
//! JavaScript strings may hold half of a surrogate pair (a cut emoji), and `JSON.stringify`
//! writes one as an escape, `"\ud83d"`, since ES2019. That is valid JSON that no Rust `String`
//! can hold, so a strict parser refuses the whole document for one cut character.
//! [`lone_surrogates_replaced`] turns each such escape into `\ufffd` (the replacement
//! character) first; a pair's two halves are left as they are.

use std::borrow::Cow;

/// `text` with every `\uD800`–`\uDFFF` escape that is not one half of a pair (a high one right
/// before a low one) replaced by `\ufffd`, inside strings only; borrowed when there is none.
pub fn lone_surrogates_replaced(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    // The 16-bit unit of a `\uXXXX` escape starting at byte `i`, if there is one.
    let unit = |i: usize| -> Option<u16> {
        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = text.get(i + 2..i + 6)?;
        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    };
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out: Option<String> = None;
    let mut kept = 0;
    let (mut in_string, mut i) = (false, 0);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if let Some(u) = unit(i) {
                    let paired = high(u) && unit(i + 6).is_some_and(low);
                    if paired {
                        i += 12;
                        continue;
                    }
                    if high(u) || low(u) {
                        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
                        o.push_str(&text[kept..i]);
                        o.push_str("\\ufffd");
                        kept = i + 6;
                    }
                    i += 6;
                    continue;
                }
                i += 2; // any other escape, `\"` and `\\` included
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[kept..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_halves_become_the_replacement_character_and_pairs_stay() {
        let cases = [
            (r#"{"p":"cut \ud83d"}"#, r#"{"p":"cut \ufffd"}"#),
            (r#"{"p":"\udc00x\uD800"}"#, r#"{"p":"\ufffdx\ufffd"}"#),
            (r#"{"p":"pair \ud83d\ude00 ok"}"#, r#"{"p":"pair \ud83d\ude00 ok"}"#),
            // A backslash written as an escape is no escape of a surrogate.
            (r#"{"p":"\\ud800"}"#, r#"{"p":"\\ud800"}"#),
            (r#"{"p":"\"\ud800\""}"#, r#"{"p":"\"\ufffd\""}"#),
            // Outside strings nothing changes (not JSON anyway).
            (r#"\ud800 {"p":"é"}"#, r#"\ud800 {"p":"é"}"#),
            (r#"{"p":"\u00e9"}"#, r#"{"p":"\u00e9"}"#),
        ];
        for (given, want) in cases {
            assert_eq!(lone_surrogates_replaced(given), want, "{given}");
        }
        let v: serde_json::Value =
            serde_json::from_str(&lone_surrogates_replaced(r#"{"p":"cut \ud83d"}"#)).unwrap();
        assert_eq!(v["p"], "cut \u{FFFD}");
        assert!(matches!(lone_surrogates_replaced(r#"{"p":"plain"}"#), Cow::Borrowed(_)));
    }
}
