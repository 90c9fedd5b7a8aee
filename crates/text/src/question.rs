//! What a search query asks, read without a model (issue 22): what kind of answer is wanted (a
//! time, a place, a list, a yes or no), who is asked about (the names written with a capital),
//! and the dates it names ("in June", "last May", "in 2023", "yesterday"), resolved against
//! now. The index ranks with it: a when-question prefers entries that carry or imply a date,
//! and entries of the days a question names come first.
//!
//! Invariant: pure; `now` is an argument. English only: a question in another language is
//! [`Wanted::Other`] with no people, and keeps its dates.

use crate::clock::Timestamp;
use crate::date::{self, Span};
use crate::stopword::{self, Tier};

mod anchor;
pub use anchor::{Anchor, Side};

/// The kind of answer a question wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// A time, a date or a duration: "when did …", "what year …", "how long ago …".
    Time,
    /// A place: "where …", "which city …".
    Place,
    /// Several things: "what activities …", "which books …".
    List,
    /// A yes or a no: "did …", "is …", "would …".
    YesNo,
    /// Anything else, or not a question.
    Other,
}

impl Wanted {
    /// Returns the kind's name: `time`, `place`, `list`, `yes-no` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Place => "place",
            Self::List => "list",
            Self::YesNo => "yes-no",
            Self::Other => "other",
        }
    }
}

/// A query read as a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The kind of answer wanted.
    pub wanted: Wanted,
    /// Who is asked about: the words written with a capital that are not question words,
    /// months or weekdays, without a possessive `'s`, in order, each once.
    pub people: Vec<String>,
    /// The dates the question names, relative ones resolved against now; not those that
    /// date an event of [`Question::anchors`] ("after his trip in August 2023").
    pub dates: Vec<Span>,
    /// The times the question names by an event: "the week before the trip", "after June".
    pub anchors: Vec<Anchor>,
}

/// Words that open a yes/no question.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "would",
    "will", "should", "shall", "may", "might", "am",
];

/// Nouns after "what"/"which" that ask for a time or a place.
const TIME_NOUNS: &[&str] = &["date", "year", "month", "day", "time", "week", "season", "decade"];
const PLACE_NOUNS: &[&str] =
    &["city", "country", "place", "state", "town", "location", "countries", "cities", "places"];

/// Reads a query as a question; `now` resolves the relative dates it names.
pub fn read(text: &str, now: &Timestamp) -> Question {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let (anchors, not_dates) = anchor::anchors(text, now.date_naive());
    let mut dates = dates(text, now);
    // A date that says when the event was, or the window around it, is no day of the answer.
    for not in not_dates {
        if let Some(i) = dates.iter().position(|d| *d == not) {
            dates.remove(i);
        }
    }
    Question { wanted: wanted(&lower), people: people(&words), dates, anchors }
}

fn wanted(w: &[String]) -> Wanted {
    let at = |i: usize| w.get(i).map_or("", String::as_str);
    let has = |pair: [&str; 2]| w.windows(2).any(|p| p[0] == pair[0] && p[1] == pair[1]);
    let after_wh =
        w.iter().position(|x| x == "what" || x == "which").map(|i| at(i + 1)).unwrap_or_default();
    if at(0) == "when"
        || w.iter().any(|x| x == "when") && !AUXILIARIES.contains(&at(0))
        || TIME_NOUNS.contains(&after_wh)
        || has(["how", "long"])
        || has(["since", "when"])
        || has(["how", "many"]) && w.iter().any(|x| x == "ago")
    {
        return Wanted::Time;
    }
    if at(0) == "where" || w.iter().any(|x| x == "where") || PLACE_NOUNS.contains(&after_wh) {
        return Wanted::Place;
    }
    if AUXILIARIES.contains(&at(0)) {
        return Wanted::YesNo;
    }
    // "what activities", "which books", "what kinds of": a plural noun after the question word.
    let plural = after_wh.len() > 3
        && after_wh.ends_with('s')
        && !after_wh.ends_with("ss")
        && !AUXILIARIES.contains(&after_wh);
    if plural || has(["what", "are"]) && w.len() > 3 {
        return Wanted::List;
    }
    Wanted::Other
}

fn people(words: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        let name = w.trim_end_matches("'s").trim_end_matches("’s").trim_end_matches(['\'', '’']);
        let mut chars = name.chars();
        let Some(first) = chars.next() else { continue };
        if !first.is_uppercase() || name.chars().count() < 2 || !chars.any(char::is_lowercase) {
            continue;
        }
        let lower = name.to_lowercase();
        let common =
            stopword::is_english(&lower, Tier::Topic) || AUXILIARIES.contains(&lower.as_str());
        // The first word of a sentence has a capital anyway: it is a name only when it is not
        // a common word (which the line above already checks for every word).
        if common || date::relative::is_calendar_word(&lower) {
            continue;
        }
        if !out.contains(&name.to_owned()) {
            out.push(name.to_owned());
        }
    }
    out
}

fn dates(text: &str, now: &Timestamp) -> Vec<Span> {
    date::mentioned(text, now.date_naive())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        crate::date::parse_rfc3339("2023-10-20T12:00:00Z").unwrap()
    }

    #[test]
    fn reads_the_kind_of_answer_wanted() {
        let cases = [
            ("When did Caroline go to the LGBTQ support group?", Wanted::Time),
            ("What year did John get his dog Max?", Wanted::Time),
            ("How long ago was Caroline's 18th birthday?", Wanted::Time),
            ("How long has Melanie been practicing art?", Wanted::Time),
            ("In which month did Gina open her store?", Wanted::Time),
            ("Where did Caroline move from 4 years ago?", Wanted::Place),
            ("Which city did Jon visit?", Wanted::Place),
            ("What activities does Melanie partake in?", Wanted::List),
            ("What books has Melanie read?", Wanted::List),
            ("Did Melanie go camping in June?", Wanted::YesNo),
            ("Would Caroline likely have Dr. Seuss books?", Wanted::YesNo),
            ("What is Caroline's identity?", Wanted::Other),
            ("tea preferences", Wanted::Other),
            ("", Wanted::Other),
        ];
        for (input, want) in cases {
            assert_eq!(read(input, &now()).wanted, want, "input: {input:?}");
        }
    }

    #[test]
    fn reads_who_is_asked_about() {
        let cases: [(&str, &[&str]); 6] = [
            ("When did Caroline go to the LGBTQ support group?", &["Caroline"]),
            (
                "What did Melanie's kids like about the trip with Caroline?",
                &["Melanie", "Caroline"],
            ),
            ("When did Jon go camping in June?", &["Jon"]),
            ("Did Gina visit Paris last May?", &["Gina", "Paris"]),
            ("What do I like?", &[]),
            ("Caroline's sister?", &["Caroline"]),
        ];
        for (input, want) in cases {
            assert_eq!(read(input, &now()).people, want, "input: {input:?}");
        }
    }

    #[test]
    fn reads_the_dates_named() {
        let day = |s: &str| crate::date::parse_day(s).unwrap();
        let cases: Vec<(&str, Vec<Span>)> = vec![
            ("When did Jon go camping in June?", vec![Span::Month(day("2023-06-01"))]),
            ("What did Gina do last May?", vec![Span::Month(day("2023-05-01"))]),
            ("Where was John in 2022?", vec![Span::Year(2022)]),
            ("What happened yesterday?", vec![Span::Day(day("2023-10-19"))]),
            ("When did Caroline go to the LGBTQ support group?", vec![]),
            // The date of an event the question names is not a day of the answer.
            ("When did John meet his team after his trip in August 2023?", vec![]),
            ("What did Jon do after June?", vec![]),
            ("What did Jon do after the trip in June?", vec![]),
            ("What did Jon do in June after the trip?", vec![Span::Month(day("2023-06-01"))]),
            ("What did Maria do last weekend before April 10, 2023?", vec![]),
            ("What did Jon do after May 8, 2021, with Gina?", vec![]),
            ("What did Maria do last weekend?", vec![Span::Weekend(day("2023-10-14"))]),
        ];
        for (input, want) in cases {
            assert_eq!(read(input, &now()).dates, want, "input: {input:?}");
        }
    }
}
