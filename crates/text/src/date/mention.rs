//! Every date a text names or implies: the relative expressions [`super::annotations`] finds
//! (`yesterday`, `last Friday`, `two weekends ago`), resolved against the day the text was
//! written, and the absolute ones people write inside sentences (`2023-05-08`, `8 May 2023`,
//! `May 8, 2023`, `in June`, `June 2023`, `in 2022`). The index stores them with each entry, so
//! "when did …" finds the entry that says when, and a search for June finds what happened in
//! June even when it was written down in July (issue 22).
//!
//! A month's name counts only with its capital and beside a day, a year or a word that leads
//! to a date (`in`, `since`, `early`, …): "may" the verb and "June" the person are no dates. A
//! month without a year is the last such month on or before the text's day. Invariant: pure;
//! the day is an argument.

use chrono::{Datelike, NaiveDate};

use super::relative::{Span, count, month_number};

/// Words that lead to a month's name written alone: "in June", "since March".
const BEFORE_MONTH: &[&str] = &[
    "in",
    "of",
    "since",
    "during",
    "until",
    "till",
    "by",
    "from",
    "early",
    "late",
    "mid",
    "end",
    "beginning",
    "start",
    "through",
    "around",
    "before",
    "after",
];

/// Returns every date `text` names or implies, in the order written, relative expressions
/// resolved against `today` (the day the text was written).
pub fn mentioned(text: &str, today: NaiveDate) -> Vec<Span> {
    let now = today.and_time(chrono::NaiveTime::MIN).and_utc().fixed_offset();
    let mut out: Vec<(usize, Span)> = super::annotations(text, &now);
    out.extend(absolute(text, today));
    out.sort_by_key(|(at, _)| *at);
    out.dedup_by(|a, b| a.1 == b.1);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Tells whether `text` states a length of time — "for 4 years", "seven years now", "a few
/// months", "two weeks" — which answers "how long …" as a date answers "when …".
///
/// A count of two or more (digits or a word), or `few`, `several`, `many`, `couple`, before a
/// plural unit: days, weeks, weekends, months, years, decades.
pub fn has_duration(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let w: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    const UNITS: &[&str] = &["days", "weeks", "weekends", "months", "years", "decades"];
    w.windows(2).any(|p| {
        let counted = count(p[0]).is_some_and(|n| n >= 2)
            || matches!(p[0], "few" | "several" | "many" | "couple");
        counted && UNITS.contains(&p[1])
    }) || w.windows(3).any(|p| p[0] == "couple" && p[1] == "of" && UNITS.contains(&p[2]))
}

/// A word of the text: its ASCII letters and digits, where it starts, and the
/// characters just before and after it.
struct Word<'a> {
    text: &'a str,
    start: usize,
    before: Option<char>,
    after: Option<char>,
}

fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Word {
                    text: &text[s..i],
                    start: s,
                    before: text[..s].chars().next_back(),
                    // A full stop ends a sentence unless a digit follows (`2023.5`).
                    after: match text[i..].strip_prefix('.') {
                        Some(r) if !r.starts_with(|c: char| c.is_ascii_digit()) => Some(' '),
                        _ => text[i..].chars().next(),
                    },
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// A year of four digits standing alone (not part of `v2023`, `2023.5` or an ISO date).
fn year(w: &Word<'_>) -> Option<i32> {
    let alone = |c: Option<char>| c.is_none_or(|c| !matches!(c, '-' | '/' | '.' | ':' | '_'));
    let digits = w.text.len() == 4 && w.text.bytes().all(|b| b.is_ascii_digit());
    let y: i32 = w.text.parse().ok().filter(|_| digits)?;
    ((1900..=2099).contains(&y) && alone(w.before) && alone(w.after)).then_some(y)
}

/// A day of the month: `8`, `8th`, `21st`.
fn day_number(word: &str) -> Option<u32> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let suffix = &word[digits..];
    if digits == 0 || digits > 2 || !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    word[..digits].parse().ok().filter(|d| (1..=31).contains(d))
}

/// The absolute dates of `text`: (where they start, what they name).
fn absolute(text: &str, today: NaiveDate) -> Vec<(usize, Span)> {
    // Every absolute date has a digit or a month's name with its capital.
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    if !text.bytes().any(|b| b.is_ascii_digit()) && !MONTHS.iter().any(|m| text.contains(m)) {
        return Vec::new();
    }
    let w = words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        // 2023-05-08 and 2023-05: an ISO date inside a sentence (or one `annotate` wrote).
        if let Some(span) = iso(text, &w[i]) {
            out.push((w[i].start, span));
            i += 1;
            continue;
        }
        let word = w[i].text;
        let capital = word.starts_with(|c: char| c.is_ascii_uppercase());
        let month = if capital { month_number(&word.to_ascii_lowercase()) } else { None };
        if let Some(m) = month {
            // "8 May 2023", "8th of May", "May 8, 2023", "May 2023", "in May".
            let prev = i.checked_sub(1).map(|p| &w[p]);
            let prev2 = i.checked_sub(2).map(|p| &w[p]);
            let mut day = prev.and_then(|p| day_number(p.text));
            if day.is_none() && prev.is_some_and(|p| p.text == "of") {
                day = prev2.and_then(|p| day_number(p.text));
            }
            let mut next = i + 1;
            if day.is_none()
                && let Some(d) = w.get(next).and_then(|n| day_number(n.text))
            {
                day = Some(d);
                next += 1;
            }
            let y = w.get(next).and_then(year);
            let led_by = |list: &[&str]| {
                prev.is_some_and(|p| list.contains(&p.text.to_ascii_lowercase().as_str()))
            };
            // "last May" is a relative expression, read by `annotations`.
            let relative = led_by(&["last", "this", "next"]);
            if !relative && (day.is_some() || y.is_some() || led_by(BEFORE_MONTH)) {
                let y = y.unwrap_or_else(|| {
                    // The last such month on or before the text's day.
                    if m <= today.month() { today.year() } else { today.year() - 1 }
                });
                let span = match day.and_then(|d| NaiveDate::from_ymd_opt(y, m, d)) {
                    Some(d) => Some(Span::Day(d)),
                    None => NaiveDate::from_ymd_opt(y, m, 1).map(Span::Month),
                };
                if let Some(span) = span {
                    out.push((w[i].start, span));
                }
                i = if w.get(next).and_then(year).is_some() { next + 1 } else { i + 1 };
                continue;
            }
        }
        if let Some(y) = year(&w[i]) {
            out.push((w[i].start, Span::Year(y)));
        }
        i += 1;
    }
    out
}

/// An ISO date starting at this word: `2023-05-08` (a day) or `2023-05` (a month).
fn iso(text: &str, w: &Word<'_>) -> Option<Span> {
    if w.text.len() != 4 || !w.text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = &text[w.start..];
    let day = rest.get(..10).and_then(super::parse_day);
    let glued = |at: usize| rest[at..].starts_with(|c: char| c.is_ascii_alphanumeric());
    if let Some(d) = day.filter(|_| !glued(10)) {
        return Some(Span::Day(d));
    }
    let b = rest.as_bytes();
    let month = b.len() >= 7 && b[4] == b'-' && b[5..7].iter().all(u8::is_ascii_digit);
    if month && !glued(7) {
        let y: i32 = w.text.parse().ok()?;
        let m: u32 = rest[5..7].parse().ok()?;
        return NaiveDate::from_ymd_opt(y, m, 1).map(Span::Month);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        super::super::parse_day(s).unwrap()
    }

    #[test]
    fn finds_the_dates_a_text_names_or_implies() {
        // Monday 2023-05-08.
        let today = day("2023-05-08");
        let d = |s: &str| Span::Day(day(s));
        let m = |s: &str| Span::Month(day(s));
        let cases: Vec<(&str, Vec<Span>)> = vec![
            ("I went to a support group yesterday", vec![d("2023-05-07")]),
            ("I painted that lake sunrise last year!", vec![Span::Year(2022)]),
            ("we went camping two weekends ago", vec![Span::Weekend(day("2023-04-29"))]),
            ("watched \"The Lord of the Rings\" last night!", vec![d("2023-05-07")]),
            ("I baked bread this morning", vec![d("2023-05-08")]),
            ("we went to Maine last summer", vec![Span::Season(day("2022-06-01"))]),
            ("this summer we will camp", vec![Span::Season(day("2023-06-01"))]),
            ("Last Fri I took my kids to a pottery workshop", vec![d("2023-05-05")]),
            ("I joined a new group last Tues.", vec![d("2023-05-02")]),
            ("we got married on 8 May 2023", vec![d("2023-05-08")]),
            ("it was May 3, 2021 I think", vec![d("2021-05-03")]),
            ("the 4th of July was fun", vec![d("2022-07-04")]),
            ("we moved in June", vec![m("2022-06-01")]),
            ("we moved in March", vec![m("2023-03-01")]),
            ("since June 2019 I have painted", vec![m("2019-06-01")]),
            ("I got Max in 2013.", vec![Span::Year(2013)]),
            ("trip last May", vec![m("2022-05-01")]),
            ("the dentist tomorrow (2023-05-09)", vec![d("2023-05-09")]),
            ("met on 2023-04-30 at noon", vec![d("2023-04-30")]),
            ("planned for 2023-06", vec![m("2023-06-01")]),
            // Not dates.
            ("you may want to come", vec![]),
            ("June said hello", vec![]),
            ("the last may be the best", vec![]),
            ("version v2023 and 2023.5 and 12:2023", vec![]),
            ("I ran 5000 meters", vec![]),
            ("call 2023-13-45 now", vec![]),
        ];
        for (input, want) in cases {
            assert_eq!(mentioned(input, today), want, "input: {input:?}");
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "May 31, 99999",
            "31 February 2023",
            "the 31st of February",
            "99999-99-99 and 2023- and 2023-1",
            "2023-05-0８",
            "Mai 2023 — 五月 — May🙂2023",
            "in June\u{301} 2023",
            "last May",
            "99999999999999999999 years ago",
            "12 weekends ago and 4000 weekends ago",
            "",
            "May",
            "2023",
            "0000 1899 2100",
        ];
        for today in [NaiveDate::MIN, NaiveDate::MAX, day("2024-02-29")] {
            for text in odd {
                let _ = mentioned(text, today);
                let _ = has_duration(text);
            }
        }
        assert_eq!(
            mentioned("31 February 2023", day("2023-05-08")),
            [Span::Month(day("2023-02-01"))]
        );
        assert_eq!(mentioned("0000 1899 2100", day("2023-05-08")), []);
    }

    #[test]
    fn tells_a_length_of_time() {
        let cases = [
            ("I've known these friends for 4 years", true),
            ("Seven years now, and I've found my muses", true),
            ("it took a few months", true),
            ("a couple of weeks", true),
            ("I ran 5 miles", false),
            ("have a nice day", false),
            ("one day I will", false),
            ("years of practice", false),
        ];
        for (input, want) in cases {
            assert_eq!(has_duration(input), want, "input: {input:?}");
        }
    }
}
