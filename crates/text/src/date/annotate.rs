//! Writes the absolute date next to each relative date expression in a memory's text, so
//! "明日は歯医者" said on 2026-12-01 is kept as "明日 (2026-12-02) は歯医者" and still means the
//! right day when it is read a month later. `on Friday` is the coming Friday, the one just
//! past when its clause is in the past tense ("I met Bob on Tuesday"), and is left undated when
//! the clause mixes tenses (`tense`).
//!
//! Never touched: code spans and code blocks, URLs (`https://…`, `www.…`, a Markdown link's
//! target), `[[wiki links]]`, words that merely contain an expression (`Sunday-school`,
//! `明日香`), and an expression already followed by a parenthesised year (`tomorrow
//! (2026-12-02)`), which makes [`annotate`] idempotent. Invariant: pure; `now` is an argument.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};

use super::relative::{self, Span};
use super::tense::{self, Tense};
use crate::clock::Timestamp;
use crate::word::is_cjk;

/// Returns `text` with ` (ABSOLUTE)` written after every relative date expression, resolved
/// against `now`'s calendar day (in `now`'s offset).
///
/// The absolute form is [`Span::label`]: `2026-12-02` for a day, `2026-11-23/2026-11-29` for a
/// week or a weekend, `2026-11` for a month, `2025` for a year. When a letter follows the
/// expression directly (Japanese has no spaces), a space is written after the parenthesis too.
pub fn annotate(text: &str, now: &Timestamp) -> String {
    let found = annotations(text, now);
    if found.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + found.len() * 14);
    let mut last = 0;
    for (at, span) in found {
        out.push_str(&text[last..at]);
        out.push_str(" (");
        out.push_str(&span.label());
        out.push(')');
        if text[at..].starts_with(char::is_alphanumeric) {
            out.push(' ');
        }
        last = at;
    }
    out.push_str(&text[last..]);
    out
}

/// Where each annotation goes (the byte offset just after its expression) and what it says.
pub fn annotations(text: &str, now: &Timestamp) -> Vec<(usize, Span)> {
    let today = now.date_naive();
    // Most texts name no date: find that out before parsing the Markdown for the parts to skip
    // (the index reads every memory's dates, issue 22).
    if !has_expression(text, today) {
        return Vec::new();
    }
    let skipped = protected(text);
    let mut out = Vec::new();
    let mut i = 0;
    let mut k = 0; // the first protected range that has not ended before `i`
    let mut prev: Option<char> = None;
    while i < text.len() {
        while skipped.get(k).is_some_and(|r| r.end <= i) {
            k += 1;
        }
        if let Some(r) = skipped[k..].iter().take_while(|r| r.start <= i).find(|r| r.end > i) {
            prev = text[..r.end].chars().next_back();
            i = r.end;
            continue;
        }
        let rest = &text[i..];
        let c = rest.chars().next().expect("i is below the length, on a char boundary");
        if starts_expression(prev, c)
            && !after_the(&text[..i], rest)
            && let Some((len, span)) = relative::read_prefix(rest, today)
            && !skipped[k..].iter().take_while(|r| r.start < i + len).any(|r| i < r.end)
        {
            let end = i + len;
            // "I met Bob on Tuesday" is the Tuesday past; when the tense is mixed, no date.
            let span = match relative::on_weekday(rest) {
                Some(wd) => match tense::around(text, i..end) {
                    Tense::Coming => Some(span),
                    Tense::Past => relative::previous(today, wd).map(Span::Day),
                    Tense::Mixed => None,
                },
                None => Some(span),
            };
            if let Some(span) = span
                && !is_annotated(&text[end..])
            {
                out.push((end, span));
            }
            prev = text[..end].chars().next_back();
            i = end;
            continue;
        }
        prev = Some(c);
        i += c.len_utf8();
    }
    out
}

/// Whether `word` (lower case) is one every English expression holds: its unit, weekday or
/// month, or a day word.
fn is_key_word(word: &str) -> bool {
    matches!(
        word,
        "today"
            | "tonight"
            | "tomorrow"
            | "yesterday"
            | "night"
            | "morning"
            | "afternoon"
            | "evening"
            | "spring"
            | "summer"
            | "autumn"
            | "fall"
            | "winter"
            | "day"
            | "days"
            | "week"
            | "weeks"
            | "weekend"
            | "weekends"
            | "month"
            | "months"
            | "year"
            | "years"
            | "monday"
            | "tuesday"
            | "wednesday"
            | "thursday"
            | "friday"
            | "saturday"
            | "sunday"
            | "mon"
            | "tue"
            | "tues"
            | "wed"
            | "thu"
            | "thur"
            | "thurs"
            | "fri"
            | "sat"
            | "sun"
    ) || relative::month_number(word).is_some()
}

/// Whether an expression starts anywhere in `text`, code and links included.
fn has_expression(text: &str, today: chrono::NaiveDate) -> bool {
    // Japanese expressions have no key word; English ones always have one.
    if text.is_ascii() {
        let lower = text.to_ascii_lowercase();
        if !lower.split(|c: char| !c.is_ascii_alphanumeric()).any(is_key_word) {
            return false;
        }
    }
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if starts_expression(prev, c) && relative::read_prefix(&text[i..], today).is_some() {
            return true;
        }
        prev = Some(c);
    }
    false
}

/// Whether an expression may start at `c`, after `prev`: an English word after anything but a
/// letter, digit, `-`, `_` or apostrophe (Japanese letters excepted: `明日tomorrow` has two
/// words); a count after anything but a digit, an ASCII letter or a separator (`13`, `v2`,
/// `1.5`); Japanese anywhere.
fn starts_expression(prev: Option<char>, c: char) -> bool {
    let Some(p) = prev else { return true };
    let digit = |x: char| x.is_ascii_digit() || ('０'..='９').contains(&x);
    if c.is_ascii_alphabetic() {
        let in_a_word = p.is_alphanumeric() && !is_cjk(p);
        !in_a_word && !matches!(p, '-' | '_' | '\'' | '’')
    } else if digit(c) {
        !digit(p) && !p.is_ascii_alphabetic() && !matches!(p, '-' | '_' | '.' | ',')
    } else {
        !c.is_whitespace() && !c.is_ascii_punctuation()
    }
}

/// "the last week", "the next month": a stretch of time, not the calendar's last week.
fn after_the(before: &str, rest: &str) -> bool {
    let lower = rest.get(..5).map(str::to_ascii_lowercase).unwrap_or_default();
    if !(lower.starts_with("last ") || lower.starts_with("next ")) {
        return false;
    }
    let word = before.trim_end_matches([' ', '\t']);
    word.len() < before.len()
        && word.len() >= 3
        && word.is_char_boundary(word.len() - 3)
        && word[word.len() - 3..].eq_ignore_ascii_case("the")
        && !word[..word.len() - 3].ends_with(relative::is_glued)
}

/// Whether the text after an expression already holds its date: optional spaces, then `(` or
/// `（` and four digits.
fn is_annotated(after: &str) -> bool {
    let t = after.trim_start_matches([' ', '\t', '\u{3000}']);
    let Some(inner) = t.strip_prefix('(').or_else(|| t.strip_prefix('（')) else {
        return false;
    };
    inner.len() >= 4 && inner.as_bytes()[..4].iter().all(u8::is_ascii_digit)
}

/// The byte ranges never annotated: code, URLs, link targets and wiki links, in order.
fn protected(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut in_block: Option<usize> = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Code(_) | Event::InlineHtml(_) | Event::Html(_) => out.push(range),
            Event::Start(Tag::CodeBlock(_)) => in_block = Some(range.start),
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => {
                if let Some(start) = in_block.take() {
                    out.push(start..range.end);
                }
            }
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                // The target is after the text: `[text](target)`; only the text is prose.
                if let Some(open) = text[range.clone()].rfind("](") {
                    out.push(range.start + open..range.end);
                } else if text[range.clone()].starts_with('<') {
                    out.push(range); // an autolink, `<https://…>`
                }
            }
            _ => {}
        }
    }
    // Bare URLs and [[wiki links]], which CommonMark does not see.
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let end_of_token = |from: usize| {
            from + text[from..].find(|c: char| c.is_whitespace()).unwrap_or(text.len() - from)
        };
        let starts_token =
            text[..i].chars().next_back().is_none_or(|p| p.is_whitespace() || "([<\"'".contains(p));
        if rest.starts_with("[[") {
            let end = rest.find("]]").map_or(text.len(), |e| i + e + 2);
            out.push(i..end);
            i = end;
            continue;
        }
        if starts_token
            && (rest.starts_with("www.") || {
                let scheme = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                scheme > 0 && rest[scheme..].starts_with("://")
            })
        {
            let end = end_of_token(i);
            out.push(i..end);
            i = end;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out.sort_by_key(|r| r.start);
    out
}
