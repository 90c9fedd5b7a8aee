//! Dates as a ranking signal and a filter (issue 22). At index time each memory gets the dates
//! its text names or implies ([`cogmem_text::date::mentioned`]), relative ones resolved against
//! the memory's own day: "I went to the museum yesterday", written on 2023-07-06, is about
//! 2023-07-05. At query time the question is read ([`cogmem_text::question`]): a when-question
//! prefers the memories that carry or imply a date, and a question naming days ("in June",
//! "last May", "in 2023") prefers the memories of those days, by their own date or one they
//! imply.
//!
//! Derived like the rest of the index: never written to a memory file. The factors are chosen
//! on the tune split of the LoCoMo benchmark only (benches/retrieval, conversations 26, 30 and
//! 41), never on the conversations the figures are reported on.

use chrono::NaiveDate;
use cogmem_text::date;
use cogmem_text::question::{Anchor, Question, Wanted};

/// The factor on the score of a memory that carries or implies a date, for a question that
/// wants a time. Chosen on the tune split (docs/decisions.md, 2026-12-02).
pub(crate) const DATED_BOOST: f64 = 1.25;
/// The factor on the score of a memory of a day the question names (its own day, or one its
/// text implies). Chosen on the tune split (docs/decisions.md, 2026-12-02).
pub(crate) const DURING_BOOST: f64 = 2.0;

/// How many of the best matches of the days a question names join the candidates, whatever
/// their rank overall (0: none). Chosen on the tune split (`benches/retrieval`).
pub(crate) const SPAN_CANDIDATES: usize = 20;

/// How many of the best matches of an event's words ("the road trip") are read for the first
/// live one with a date: the event's days. Not tuned: enough to pass faded memories.
pub(crate) const EVENT_CANDIDATES: usize = 10;
/// The weight of the names of the people a question asks about beside an event's own words
/// ("Caroline" in "how did Caroline feel after her accident"): they tell whose event it is,
/// and half a word's weight keeps an event of someone else's from winning on the name. Not
/// tuned (docs/decisions.md).
pub(crate) const EVENT_PEOPLE_WEIGHT: f32 = 0.5;

/// The days a memory's text names or implies, as (first, last) pairs, relative expressions
/// resolved against `day` (the memory's own day). Without a day, only the absolute dates.
pub(crate) fn implied(text: &str, day: Option<NaiveDate>) -> Vec<(NaiveDate, NaiveDate)> {
    // Without a day of its own, a relative expression means nothing: resolve against a day
    // and keep only what does not depend on it.
    let spans = match day {
        Some(d) => date::mentioned(text, d),
        None => {
            let a = date::mentioned(text, NaiveDate::MIN);
            let b = date::mentioned(text, NaiveDate::MAX);
            a.into_iter().filter(|s| b.contains(s)).collect()
        }
    };
    spans.iter().map(|s| (s.first(), s.last())).collect()
}

/// Writes implied days as stored: `FIRST` for a day, `FIRST/LAST` for several, space-separated.
pub(crate) fn render(days: &[(NaiveDate, NaiveDate)]) -> String {
    let one = |(a, b): &(NaiveDate, NaiveDate)| {
        if a == b { a.to_string() } else { format!("{a}/{b}") }
    };
    days.iter().map(one).collect::<Vec<_>>().join(" ")
}

/// Reads what [`render`] wrote; anything else is skipped.
pub(crate) fn parse(text: &str) -> Vec<(NaiveDate, NaiveDate)> {
    text.split_whitespace()
        .filter_map(|item| match item.split_once('/') {
            Some((a, b)) => Some((date::parse_day(a)?, date::parse_day(b)?)),
            None => date::parse_day(item).map(|d| (d, d)),
        })
        .collect()
}

/// How a memory meets a question's dates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DateCue {
    /// The question wants a time and the memory carries a date or a length of time.
    pub dated: bool,
    /// The memory is of a day the question names, by its own date or one its text implies.
    pub during: bool,
}

impl DateCue {
    /// Returns the factor on the memory's score: [`DATED_BOOST`] when `dated`, ×
    /// [`DURING_BOOST`] when `during`.
    pub(crate) fn factor(self) -> f64 {
        let mut f = 1.0;
        if self.dated {
            f *= DATED_BOOST;
        }
        if self.during {
            f *= DURING_BOOST;
        }
        f
    }
}

/// What a question asks of a memory's dates: whether it wants a time, and the days it
/// names, by a date ("in June") or by an event ("the week before the trip", "after June").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    /// The question wants a time: "when …", "how long …".
    pub time: bool,
    /// The days named, as (first, last); `NaiveDate::MIN` and `MAX` for an open side.
    pub days: Vec<(NaiveDate, NaiveDate)>,
    /// What named each of [`Asked::days`], for `search --explain`: the date (`2023-06`) or
    /// the event (`after "the road trip"`), and the id of the memory whose date it took.
    pub named_by: Vec<(String, Option<String>)>,
}

impl Asked {
    /// The days `q` names: its dates, and for each event it names the window around the
    /// event's days, which `event_days` finds in the memory with the id of the memory they
    /// come from (`None`: not found, no window). An event dated in the question ("his trip in
    /// August 2023") needs no finding.
    pub(crate) fn of(
        q: &Question,
        mut event_days: impl FnMut(&Anchor) -> Option<((NaiveDate, NaiveDate), String)>,
    ) -> Self {
        let mut days: Vec<(NaiveDate, NaiveDate)> =
            q.dates.iter().map(|s| (s.first(), s.last())).collect();
        let mut named_by: Vec<(String, Option<String>)> =
            q.dates.iter().map(|s| (s.label(), None)).collect();
        for a in &q.anchors {
            let (event, from) = match a.on {
                Some(on) => ((on.first(), on.last()), None),
                None => match event_days(a) {
                    Some((event, id)) => (event, Some(id)),
                    None => continue,
                },
            };
            days.push(a.window(event.0, event.1));
            named_by.push((a.label(), from));
        }
        Self { time: q.wanted == Wanted::Time, days, named_by }
    }
}

/// A side of a range of [`Asked::days`]: `None` when open (`NaiveDate::MIN` or `MAX`).
pub(crate) fn bounded(d: NaiveDate) -> Option<NaiveDate> {
    (d != NaiveDate::MIN && d != NaiveDate::MAX).then_some(d)
}

/// The days of a memory that an event's best match gives: the first date its text names or
/// implies (what it tells happened then), else its own day.
pub(crate) fn event_days(
    day: Option<NaiveDate>,
    implied: &[(NaiveDate, NaiveDate)],
) -> Option<(NaiveDate, NaiveDate)> {
    implied.first().copied().or_else(|| day.map(|d| (d, d)))
}

/// How a memory of day `day`, whose `text` implies `implied`, meets what a question asks: it
/// is `dated` when the question wants a time and the memory carries a date or a length of time
/// ("for 4 years"), `during` when it is of a day the question names.
pub(crate) fn cue(
    q: &Asked,
    day: Option<NaiveDate>,
    implied: &[(NaiveDate, NaiveDate)],
    text: &str,
) -> DateCue {
    let dated = q.time && (!implied.is_empty() || date::has_duration(text));
    let overlaps =
        |(f, l): (NaiveDate, NaiveDate), (a, b): (NaiveDate, NaiveDate)| a <= l && f <= b;
    let during = q.days.iter().any(|s| {
        day.is_some_and(|d| overlaps(*s, (d, d))) || implied.iter().any(|r| overlaps(*s, *r))
    });
    DateCue { dated, during }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cogmem_text::date::parse_rfc3339;

    fn day(s: &str) -> NaiveDate {
        date::parse_day(s).unwrap()
    }

    #[test]
    fn relative_dates_mean_the_days_of_the_memory() {
        let cases: [(&str, Option<&str>, &str); 5] = [
            ("I went to the museum yesterday", Some("2023-07-06"), "2023-07-05"),
            ("we moved last month", Some("2023-07-06"), "2023-06-01/2023-06-30"),
            ("got Max in 2013", Some("2023-07-06"), "2013-01-01/2013-12-31"),
            ("got Max in 2013, yesterday", None, "2013-01-01/2013-12-31"),
            ("nothing dated here", Some("2023-07-06"), ""),
        ];
        for (text, on, want) in cases {
            let got = render(&implied(text, on.map(day)));
            assert_eq!(got, want, "input: {text:?}");
            assert_eq!(parse(&got), implied(text, on.map(day)), "round trip of {got:?}");
        }
    }

    #[test]
    fn a_question_prefers_dated_memories_and_its_days() {
        let now = parse_rfc3339("2023-10-20T12:00:00Z").unwrap();
        let when = cogmem_text::question::read("When did Jon go camping?", &now);
        let june = cogmem_text::question::read("What did Jon do in June?", &now);
        let both = cogmem_text::question::read("When did Jon go camping in June?", &now);
        let plain = cogmem_text::question::read("What does Jon like?", &now);
        let yesterday = [(day("2023-06-26"), day("2023-06-26"))];
        let cases = [
            (&when, Some("2023-06-27"), &yesterday[..], DATED_BOOST),
            (&when, Some("2023-06-27"), &[][..], 1.0),
            (&june, Some("2023-06-27"), &[][..], DURING_BOOST),
            (
                &june,
                Some("2023-07-02"),
                &[(day("2023-06-01"), day("2023-06-30"))][..],
                DURING_BOOST,
            ),
            (&june, Some("2023-07-02"), &[][..], 1.0),
            (&both, Some("2023-06-27"), &yesterday[..], DATED_BOOST * DURING_BOOST),
            (&plain, Some("2023-06-27"), &yesterday[..], 1.0),
        ];
        let how_long = cogmem_text::question::read("How long has Jon danced?", &now);
        let asked = |q| Asked::of(q, |_| None);
        assert_eq!(cue(&asked(&how_long), None, &[], "for 4 years").factor(), DATED_BOOST);
        for (i, (q, on, implied, want)) in cases.into_iter().enumerate() {
            assert_eq!(cue(&asked(q), on.map(day), implied, "text").factor(), want, "case {i}");
        }
    }

    #[test]
    fn an_event_names_the_days_around_it() {
        let now = parse_rfc3339("2023-10-20T12:00:00Z").unwrap();
        let read = |q: &str| cogmem_text::question::read(q, &now);
        let trip = (day("2023-07-10"), day("2023-07-12"));
        // Found in the memory: the week before, and every day after.
        let before = Asked::of(&read("What did Jon buy the week before the trip?"), |a| {
            assert_eq!(a.event, "the trip");
            Some((trip, "episode:t".to_owned()))
        });
        assert_eq!(before.days, [(day("2023-07-03"), day("2023-07-12"))]);
        let after = Asked::of(&read("Where did Jon hike after the trip?"), |_| {
            Some((trip, "t".to_owned()))
        });
        assert_eq!(after.days, [(day("2023-07-10"), NaiveDate::MAX)]);
        let by = |s: &str, from: Option<&str>| (s.to_owned(), from.map(str::to_owned));
        assert_eq!(after.named_by, [by("after \"the trip\"", Some("t"))]);
        assert_eq!(before.named_by, [by("the week before \"the trip\"", Some("episode:t"))]);
        let at = |d: &str| cue(&after, Some(day(d)), &[], "text").during;
        assert!(at("2023-07-10") && at("2024-01-01") && !at("2023-07-09"));
        // Not found: no days, so nothing is preferred.
        assert!(Asked::of(&read("Where did Jon hike after the trip?"), |_| None).days.is_empty());
        // Dated in the question: no search, and the month is the event's, not the answer's.
        let dated = Asked::of(&read("Who did Jon meet after his trip in August 2023?"), |_| {
            panic!("a dated event is not looked for")
        });
        assert_eq!(dated.days, [(day("2023-08-01"), NaiveDate::MAX)]);
        assert_eq!(dated.named_by, [by("after \"his trip\" (2023-08)", None)]);
        // The event's days: the first it implies, else its own.
        let implied =
            [(day("2023-07-08"), day("2023-07-09")), (day("2023-01-01"), day("2023-01-01"))];
        assert_eq!(event_days(Some(day("2023-07-10")), &implied), Some(implied[0]));
        assert_eq!(
            event_days(Some(day("2023-07-10")), &[]),
            Some((day("2023-07-10"), day("2023-07-10")))
        );
        assert_eq!(event_days(None, &[]), None);
    }
}
