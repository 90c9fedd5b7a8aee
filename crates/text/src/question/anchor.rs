//! Times a question names by an event instead of a date (issue 22): "the week before the
//! trip", "after the road trip", "since her accident", "two days after his trip in August
//! 2023", "before June". The event's words are kept for the index, which finds the memory
//! that names the event and takes its date; a date written with the event ("his trip in
//! August 2023") or in its place ("after June") is the event's date itself.
//!
//! Invariant: pure; `today` is an argument. English only.

use chrono::NaiveDate;

use crate::date::{self, Span};
use crate::stopword::{self, Tier};

/// Which side of an event a question asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// "before the trip", "prior to the move", "the week before the wedding".
    Before,
    /// "after the trip", "since the accident", "the day after the wedding".
    After,
}

/// A time named by an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// Which side of the event.
    pub side: Side,
    /// How many days on that side: "the week before" 7, "the day after" 1, "two weeks after"
    /// 14, "a few days after" 3; `None` for a bare "before", "after" or "since": any day on
    /// that side.
    pub days: Option<u32>,
    /// The words that name the event, as written ("the road trip", "Caroline's party");
    /// empty when a date names it ("after June").
    pub event: String,
    /// The event's own date, when the question writes one with the event ("his trip in
    /// August 2023") or in its place ("after June"). That date is then not one of the
    /// question's dates: it says when the event was, not when the answer is.
    pub on: Option<Span>,
}

impl Anchor {
    /// Says what the anchor names, as a person would: `the week before "the trip"`, `after
    /// "his trip" (2023-08)`, `after 2023-06`, `3 days after "the move"`.
    pub fn label(&self) -> String {
        let side = match self.side {
            Side::Before => "before",
            Side::After => "after",
        };
        let window = match self.days {
            Some(1) => "the day ".to_owned(),
            Some(7) => "the week ".to_owned(),
            Some(n) => format!("{n} days "),
            None => String::new(),
        };
        match (&self.on, self.event.is_empty()) {
            (Some(on), true) => format!("{window}{side} {}", on.label()),
            (Some(on), false) => format!("{window}{side} \"{}\" ({})", self.event, on.label()),
            (None, _) => format!("{window}{side} \"{}\"", self.event),
        }
    }

    /// Returns the days the question asks about, given the event's first and last day: the
    /// event's own days and `days` on its side (every day on that side when `days` is
    /// `None`). The event's days count because a memory's date is the day it was written,
    /// often the day after what it tells ("we hiked yesterday, after the road trip").
    pub fn window(&self, first: NaiveDate, last: NaiveDate) -> (NaiveDate, NaiveDate) {
        let by = |d: NaiveDate, n: u32, back: bool| {
            let step = chrono::Duration::days(i64::from(n));
            let moved = if back { d.checked_sub_signed(step) } else { d.checked_add_signed(step) };
            moved.unwrap_or(if back { NaiveDate::MIN } else { NaiveDate::MAX })
        };
        match (self.side, self.days) {
            (Side::Before, Some(n)) => (by(first, n, true), last),
            (Side::Before, None) => (NaiveDate::MIN, last),
            (Side::After, Some(n)) => (first, by(last, n, false)),
            (Side::After, None) => (first, NaiveDate::MAX),
        }
    }
}

/// A word of the question: its text as written, where it starts and ends.
struct Word<'a> {
    text: &'a str,
    lower: String,
    start: usize,
    end: usize,
}

/// Words that start the name of an event after "before"/"after": a determiner or a
/// possessive ("Caroline's" is checked apart).
const DETERMINERS: &[&str] =
    &["the", "a", "an", "his", "her", "their", "my", "our", "your", "its", "this", "that"];

/// Words that end an event's name ("after the road trip *to* relax", "after the party *in*
/// June"), unless a determiner follows the first five ("after the visit to the hospital").
const ENDS_EVENT: &[&str] = &[
    "in", "on", "at", "to", "of", "for", "with", "from", "during", "and", "or", "but", "when",
    "while", "because", "so", "than", "as", "if", "last", "next", "did", "does", "do", "was",
    "were", "is", "are", "has", "have", "had", "will", "would", "could", "should", "can", "that",
    "which", "who", "where", "how", "why", "what", "ago", "before", "after", "since",
];

/// Words that join an event's name to a place or a thing when a determiner follows.
const JOINS: &[&str] = &["to", "of", "at", "with", "for", "in", "on"];

/// Verbs after which "after" is no time: "look after her kids", "named after her aunt".
const NOT_TIME: &[&str] = &[
    "look", "looks", "looked", "looking", "take", "takes", "took", "taking", "taken", "named",
    "name", "ask", "asked", "asking", "go", "goes", "went", "going", "run", "ran", "chase",
    "chased", "seek", "sought",
];

/// The most words an event's name is read for.
const MAX_EVENT_WORDS: usize = 8;
/// The most anchors read from one text (a question names one or two; a pasted log may say
/// "after" a thousand times).
const MAX_ANCHORS: usize = 8;
/// The most bytes read for a date after "before"/"after" or an event ("the 8th of September,
/// 2023" is 24).
const MAX_DATE_BYTES: usize = 48;

/// Reads the times `text` names by an event, and the dates written in them that are no day of
/// the answer: the event's date ("after his trip in August 2023") and a window's words ("last
/// weekend before April 10"). `today` resolves relative dates ("after last May").
pub(super) fn anchors(text: &str, today: NaiveDate) -> (Vec<Anchor>, Vec<Span>) {
    let (words, breaks) = words(text);
    let mut out = Vec::new();
    let mut not_dates = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if out.len() == MAX_ANCHORS {
            break;
        }
        let side = match w.lower.as_str() {
            "before" => Side::Before,
            "after" | "since" => Side::After,
            "prior" if words.get(i + 1).is_some_and(|n| n.lower == "to") => Side::Before,
            _ => continue,
        };
        let prev = |k: usize| i.checked_sub(k).map(|p| words[p].lower.as_str());
        if w.lower == "after" && prev(1).is_some_and(|p| NOT_TIME.contains(&p)) {
            continue;
        }
        let start = if w.lower == "prior" { i + 2 } else { i + 1 };
        // The clause after the word: up to the next `?`, `.`, `!`, `,` or `;`.
        let from = words[start - 1].end;
        let clause_end = breaks.iter().copied().find(|b| *b >= from).unwrap_or(text.len());
        let rest: Vec<&Word<'_>> = words[start..]
            .iter()
            .take_while(|x| x.end <= clause_end)
            .take(MAX_EVENT_WORDS + 1)
            .collect();
        let Some(first) = rest.first() else { continue };
        // "the day before yesterday", "the day after tomorrow": a date the date reader reads.
        if matches!(first.lower.as_str(), "yesterday" | "tomorrow" | "today") {
            continue;
        }
        let window = window_days(&words, i);
        let days = window.map(|(n, _)| n);
        // "last weekend before April 10": the window is no date of its own.
        if let Some((_, k)) = window {
            not_dates.extend(date::mentioned(&text[words[k].start..words[i - 1].end], today));
        }
        // A date in the event's place: "after June", "before 2022", "since last May".
        if let Some(span) = date_at_start(&text[from..clause_end], today) {
            out.push(Anchor { side, days, event: String::new(), on: Some(span) });
            continue;
        }
        let possessive = is_possessive_name(first.text);
        if !DETERMINERS.contains(&first.lower.as_str()) && !possessive {
            continue;
        }
        let mut n = 1;
        while n < rest.len() && n < MAX_EVENT_WORDS {
            let x = rest[n].lower.as_str();
            let joined = JOINS.contains(&x)
                && rest.get(n + 1).is_some_and(|d| DETERMINERS.contains(&d.lower.as_str()));
            if ENDS_EVENT.contains(&x) && !joined {
                break;
            }
            n += if joined { 2 } else { 1 };
        }
        let n = n.min(rest.len());
        let named = &rest[..n];
        let content = named.iter().skip(usize::from(!possessive)).any(|x| {
            !stopword::is_english(&x.lower, Tier::Query) && !DETERMINERS.contains(&x.lower.as_str())
        });
        if !content {
            continue;
        }
        let event_end = named[n - 1].end;
        let event = text[named[0].start..event_end].to_owned();
        // The event's own date, written right after it: "his trip in August 2023".
        let on = rest
            .get(n)
            .filter(|x| matches!(x.lower.as_str(), "in" | "on" | "during" | "last" | "this"))
            .and_then(|x| {
                let at =
                    if matches!(x.lower.as_str(), "last" | "this") { event_end } else { x.end };
                date_at_start(&text[at..clause_end], today)
            });
        out.push(Anchor { side, days, event, on });
    }
    not_dates.extend(out.iter().filter_map(|a| a.on));
    (out, not_dates)
}

/// The question's words (letters, digits and apostrophes) and the offsets of the marks that
/// end a clause.
fn words(text: &str) -> (Vec<Word<'_>>, Vec<usize>) {
    let mut words = Vec::new();
    let mut breaks = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let in_word = c.is_alphanumeric() || c == '\'' || c == '’';
        match (in_word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &text[s..i];
                words.push(Word { text: word, lower: word.to_lowercase(), start: s, end: i });
                start = None;
            }
            _ => {}
        }
        // A comma before a number is inside a date ("May 8, 2021"), not a clause's end.
        let in_date =
            c == ',' && text[i + 1..].trim_start().starts_with(|d: char| d.is_ascii_digit());
        if matches!(c, '?' | '.' | '!' | ',' | ';' | ':') && i < text.len() && !in_date {
            breaks.push(i);
        }
    }
    (words, breaks)
}

/// How many days a window before "before"/"after" names — "the week", "two days", "a few
/// weeks", "a couple of days", "last weekend", "the Sunday", "just", "shortly" — for the word
/// at `i` of `words`, and the index of the window's first word.
fn window_days(words: &[Word<'_>], i: usize) -> Option<(u32, usize)> {
    let prev = |k: usize| i.checked_sub(k).map(|p| words[p].lower.as_str());
    let unit = |w: &str| -> Option<u32> {
        Some(match w {
            "day" | "days" | "night" | "nights" => 1,
            "week" | "weeks" | "weekend" | "weekends" => 7,
            // "the Sunday before …": the week before holds it.
            "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday" => 7,
            "month" | "months" => 31,
            "year" | "years" => 366,
            _ => return None,
        })
    };
    match prev(1)? {
        "just" | "right" | "immediately" | "directly" => return Some((1, i - 1)),
        "shortly" | "soon" => return Some((7, i - 1)),
        _ => {}
    }
    let per = unit(prev(1)?)?;
    let (count, words_back) = match prev(2)? {
        "few" => (3, 2),
        "several" => (5, 2),
        "of" if prev(3) == Some("couple") => (2, 3),
        "couple" => (2, 2),
        // "the week before", "last weekend before", "that day after".
        "the" | "last" | "this" | "that" | "next" => (1, 2),
        w => (date::relative::count(w)?, 2),
    };
    Some((per.checked_mul(count)?, i - words_back))
}

/// The date `text` starts with, after an optional "in"/"on"/"of": "June", "August 2023",
/// "last May", "2022", "8 May 2023".
fn date_at_start(text: &str, today: NaiveDate) -> Option<Span> {
    let trimmed = text.trim_start();
    let mut cut = trimmed.len().min(MAX_DATE_BYTES);
    while !trimmed.is_char_boundary(cut) {
        cut -= 1;
    }
    let trimmed = &trimmed[..cut];
    let first_len = trimmed.find(|c: char| !c.is_alphanumeric()).unwrap_or(trimmed.len());
    let first = &trimmed[..first_len];
    let lower = first.to_ascii_lowercase();
    let dated_word = date::relative::month_number(&lower).is_some()
        && first.starts_with(char::is_uppercase)
        || first.bytes().next().is_some_and(|b| b.is_ascii_digit())
        || matches!(lower.as_str(), "last" | "this" | "next");
    if !dated_word {
        return None;
    }
    // Read as "in …", so a month alone is a date ("after June" is "after [in] June").
    let spans = date::mentioned(&format!("in {trimmed}"), today);
    spans.into_iter().next()
}

/// "Caroline's", "Jon’s": a name with a possessive.
fn is_possessive_name(word: &str) -> bool {
    let name = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s"));
    name.is_some_and(|n| n.chars().count() > 1 && n.starts_with(char::is_uppercase))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        date::parse_day(s).unwrap()
    }

    fn today() -> NaiveDate {
        day("2023-10-20")
    }

    fn anchor(side: Side, days: Option<u32>, event: &str, on: Option<Span>) -> Anchor {
        Anchor { side, days, event: event.to_owned(), on }
    }

    #[test]
    fn reads_the_times_an_event_names() {
        use Side::{After, Before};
        let cases: Vec<(&str, Vec<Anchor>)> = vec![
            (
                "What did Jon do the week before the trip?",
                vec![anchor(Before, Some(7), "the trip", None)],
            ),
            (
                "When did Melanie go on a hike after the roadtrip?",
                vec![anchor(After, None, "the roadtrip", None)],
            ),
            (
                "What did Melanie do after the road trip to relax?",
                vec![anchor(After, None, "the road trip", None)],
            ),
            (
                "Why did John feel inspired to join the military after the visit to the hospital?",
                vec![anchor(After, None, "the visit to the hospital", None)],
            ),
            (
                "How did Caroline feel since her accident?",
                vec![anchor(After, None, "her accident", None)],
            ),
            (
                "What happened two days after Caroline's party?",
                vec![anchor(After, Some(2), "Caroline's party", None)],
            ),
            (
                "Where did Gina go a couple of weeks after the opening?",
                vec![anchor(After, Some(14), "the opening", None)],
            ),
            (
                "What did Nate buy a few days before the move?",
                vec![anchor(Before, Some(3), "the move", None)],
            ),
            (
                "What did Tim do just before the game?",
                vec![anchor(Before, Some(1), "the game", None)],
            ),
            ("What did she read prior to the exam?", vec![anchor(Before, None, "the exam", None)]),
            (
                "When did John meet back up with his teammates after his trip in August 2023?",
                vec![anchor(After, None, "his trip", Some(Span::Month(day("2023-08-01"))))],
            ),
            (
                "What did Jon do after June?",
                vec![anchor(After, None, "", Some(Span::Month(day("2023-06-01"))))],
            ),
            (
                "Where did Gina live before 2022?",
                vec![anchor(Before, None, "", Some(Span::Year(2022)))],
            ),
            (
                "What has Jon painted since last May?",
                vec![anchor(After, None, "", Some(Span::Month(day("2023-05-01"))))],
            ),
            // A mark between "prior" and "to" (once a slice out of bounds).
            ("What did she read prior, to the exam?", vec![anchor(Before, None, "the exam", None)]),
            // No time: a verb's "after", a pronoun, a date the date reader reads, no event.
            ("Who does Melanie look after her kids with?", vec![]),
            ("Was the painting named after her grandmother?", vec![]),
            ("What did Jon do after that?", vec![]),
            ("What happens the day after tomorrow?", vec![]),
            ("What did Jon do before?", vec![]),
            ("What did Jon do after the?", vec![]),
            ("What did Jon do in June?", vec![]),
        ];
        for (input, want) in cases {
            assert_eq!(anchors(input, today()).0, want, "input: {input:?}");
        }
    }

    #[test]
    fn an_anchor_says_what_it_names() {
        let label = |q: &str| anchors(q, today()).0.iter().map(Anchor::label).collect::<Vec<_>>();
        assert_eq!(
            label("What did Jon do the week before the trip?"),
            ["the week before \"the trip\""]
        );
        assert_eq!(label("What did Jon do after the trip?"), ["after \"the trip\""]);
        assert_eq!(
            label("What did Jon do the day after the trip?"),
            ["the day after \"the trip\""]
        );
        assert_eq!(
            label("What happened two days after Caroline's party?"),
            ["2 days after \"Caroline's party\""]
        );
        assert_eq!(label("What did Jon do after June?"), ["after 2023-06"]);
        assert_eq!(
            label("Who did John meet after his trip in August 2023?"),
            ["after \"his trip\" (2023-08)"]
        );
    }

    #[test]
    fn a_window_holds_the_event_and_the_days_on_its_side() {
        let (first, last) = (day("2023-07-10"), day("2023-07-12"));
        let w = |side, days| anchor(side, days, "the trip", None).window(first, last);
        assert_eq!(w(Side::Before, Some(7)), (day("2023-07-03"), last));
        assert_eq!(w(Side::After, Some(1)), (first, day("2023-07-13")));
        assert_eq!(w(Side::Before, None), (NaiveDate::MIN, last));
        assert_eq!(w(Side::After, None), (first, NaiveDate::MAX));
        // Far from the calendar's ends, never a panic.
        let edge = anchor(Side::Before, Some(u32::MAX), "x", None);
        assert_eq!(edge.window(NaiveDate::MIN, NaiveDate::MIN).0, NaiveDate::MIN);
        let edge = anchor(Side::After, Some(u32::MAX), "x", None);
        assert_eq!(edge.window(NaiveDate::MAX, NaiveDate::MAX).1, NaiveDate::MAX);
    }

    #[test]
    fn a_long_text_gives_a_few_anchors() {
        let long = "after the trip, ".repeat(20_000);
        let (found, _) = anchors(&long, today());
        assert_eq!(found.len(), MAX_ANCHORS);
        assert!(found.iter().all(|a| a.event == "the trip"), "{found:?}");
        // A date is read from its first bytes only: a long run of digits is no date.
        let digits = format!("after {}", "1".repeat(100_000));
        assert_eq!(anchors(&digits, today()).0, []);
    }

    #[test]
    fn hostile_questions_read_without_a_panic() {
        // Seeded pieces in every order: marks between "prior" and "to", words glued to
        // marks, multi-byte letters, dates at the ends of the calendar, long runs.
        const PIECES: &[&str] = &[
            "before",
            "after",
            "since",
            "prior",
            "to",
            "the",
            "week",
            "a",
            "couple",
            "of",
            "few",
            "days",
            "Caroline's",
            "trip",
            "in",
            "August",
            "9999",
            "June",
            "last",
            "May",
            ",",
            "?",
            "…",
            "明日",
            "é",
            "’s",
            "4294967295",
            "weeks",
            "just",
            "look",
            "Jon’s",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2_000 {
            let n = next() % 14;
            let mut q = String::new();
            for _ in 0..n {
                q.push_str(PIECES[usize::try_from(next() % PIECES.len() as u64).unwrap()]);
                if next() % 3 != 0 {
                    q.push(' ');
                }
            }
            for a in anchors(&q, today()).0 {
                assert!(q.contains(&a.event), "{q:?} gave an event not in it: {a:?}");
                let (first, last) = a.window(NaiveDate::MIN, NaiveDate::MAX);
                assert!(first <= last, "{q:?}: {a:?}");
            }
            for d in [NaiveDate::MIN, NaiveDate::MAX] {
                let _ = anchors(&q, d);
            }
        }
    }
}
