//! The one reader of dates and times. Every flag that takes a time (`remember --at`,
//! `search --since/--until`, `audit --since`, `audit compact --older-than`, `graph show
//! --as-of`, `graph neighbors --as-of`, and the MCP arguments of the same names), every stored
//! time (audit lines, the decay file, import transcripts) and every dated file name goes through
//! this module, so "what does cogmem accept as a date" has one answer.
//!
//! [`parse`] reads what a person writes: RFC 3339, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD`, `HH:MM`,
//! ages before now (`90m`, `12h`, `7d`, `2w`) and relative words (`today`, `yesterday`,
//! `next Friday`, `in 3 days`, `last month`, `昨日`, `来週の金曜日`, `3日後`, …, see
//! [`relative`]). Relative forms resolve against the `now` they are given, never the system
//! clock. [`annotate`] writes the absolute date next to the same words inside a memory's text.
//! [`parse_day`] and [`parse_stored`] are the strict readers for file formats.
//!
//! Invariant: pure functions of their arguments; no I/O and no clock.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};

use crate::clock::Timestamp;

mod annotate;
mod mention;
pub mod relative;
mod tense;

pub use annotate::{annotate, annotations};
pub use mention::{has_duration, mentioned};
pub use relative::Span;

/// The forms [`parse`] accepts, for an error's hint.
pub const FORMS: &str = "`2026-02-02`, `2026-02-02 15:30`, an RFC 3339 time \
    (`2026-02-02T15:30:00Z`), `15:30`, an age (`90m`, `12h`, `7d`, `2w`), `now`, `today`, \
    `yesterday`, `tomorrow`, `next friday`, `last week`, `this month`, `next year`, `in 3 days`, \
    `2 weeks ago`, `昨日`, `先週`, `来月`, `来週の金曜日`, `3日後`, `2週間前`";

/// What a person meant by a date or time: a whole calendar day, or an instant.
///
/// A day (`2026-02-02`, `yesterday`) has no time of its own; each caller decides where it
/// starts ([`When::start`]): `remember --at` and `search` in the clock's offset, `audit
/// --since` at midnight UTC, as they always have. A stretch of days (`last week`, `来月`) starts
/// on its first day and ends on its last ([`When::last_day`], what `search --until` takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// A calendar day.
    Day(NaiveDate),
    /// Calendar days from the first to the last, both included: a week, a month, a year.
    Days(NaiveDate, NaiveDate),
    /// An instant.
    At(Timestamp),
}

impl When {
    /// Returns the instant: a day's (or the first day's) midnight in `offset`, or the instant
    /// itself.
    pub fn start(&self, offset: FixedOffset) -> Timestamp {
        match *self {
            Self::Day(d) | Self::Days(d, _) => midnight(d, offset),
            Self::At(t) => t,
        }
    }

    /// Returns the calendar day: the day itself, the first of the days, or the instant's date
    /// in `offset`.
    pub fn day(&self, offset: FixedOffset) -> NaiveDate {
        match *self {
            Self::Day(d) | Self::Days(d, _) => d,
            Self::At(t) => t.with_timezone(&offset).date_naive(),
        }
    }

    /// Returns the last calendar day: the day itself, the last of the days, or the instant's
    /// date in `offset`.
    pub fn last_day(&self, offset: FixedOffset) -> NaiveDate {
        match *self {
            Self::Days(_, last) => last,
            _ => self.day(offset),
        }
    }
}

/// Reads a date or time given by a person, resolving relative forms against `now`.
///
/// Accepts, in this order:
/// - RFC 3339: `2026-02-02T15:30:00Z`, `2026-02-02T15:30:00+09:00`;
/// - a local date and time, `YYYY-MM-DD HH:MM` (or with `T`, optionally `:SS`), in `now`'s
///   offset;
/// - a date, `YYYY-MM-DD` ([`When::Day`]);
/// - a time today, `HH:MM`, in `now`'s offset;
/// - an age before `now`: a whole number and `m` (minutes), `h`, `d` or `w`: `90m`, `7d`;
/// - `now`, and every relative expression [`relative::read_prefix`] reads, as the whole
///   text: days (`today`, `tomorrow`, `the day before yesterday`, `next friday`, `in 3 days`,
///   `2 weeks ago`, `明日`, `来週の金曜日`, `3日後`) as [`When::Day`]; weeks, weekends, months
///   and years (`last week`, `this weekend`, `来月`, `去年`) as [`When::Days`]. English words
///   are case-insensitive.
///
/// Returns `None` for anything else, and for an age too large to subtract from `now`.
pub fn parse(text: &str, now: &Timestamp) -> Option<When> {
    let t = text.trim();
    if let Some(d) = parse_rfc3339(t) {
        return Some(When::At(d));
    }
    let local = |n: NaiveDateTime| now.offset().from_local_datetime(&n).single().map(When::At);
    for fmt in ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, fmt) {
            return local(n);
        }
    }
    if let Some(d) = parse_date(t) {
        return Some(When::Day(d));
    }
    if let Ok(time) = NaiveTime::parse_from_str(t, "%H:%M") {
        return local(now.date_naive().and_time(time));
    }
    if let Some(age) = parse_age(t) {
        return now.checked_sub_signed(age).map(When::At);
    }
    named_days(t, now)
}

/// Reads a date or time given by a person as an instant: [`parse`], with a day starting at
/// its midnight in `now`'s offset. This is what `remember --at` takes.
pub fn parse_time(text: &str, now: &Timestamp) -> Option<Timestamp> {
    parse(text, now).map(|w| w.start(*now.offset()))
}

/// Reads an age: a whole number and a unit, `m` (minutes), `h`, `d` or `w`, as in `90m`,
/// `12h`, `7d`, `2w`.
///
/// Returns `None` for anything else or an age that does not fit a [`Duration`].
pub(crate) fn parse_age(text: &str) -> Option<Duration> {
    let t = text.trim();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let n: i64 = t[..digits].parse().ok()?;
    let seconds = match &t[digits..] {
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return None,
    };
    Duration::try_seconds(n.checked_mul(seconds)?)
}

/// Reads a calendar date as a person writes it, `YYYY-MM-DD`, forgiving what chrono forgives
/// (`2026-1-5`, a leading space): the date form of [`parse`], for flags that take only a day
/// and have no clock to resolve `yesterday` against (`graph --as-of`).
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// Reads a calendar date written exactly as `YYYY-MM-DD`: four-digit year, two-digit month and
/// day, nothing around it. For file formats: episode file names, `Created:` dates.
///
/// Returns `None` for anything else, including dates that do not exist (`2026-02-30`).
pub fn parse_day(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    let shape = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shape {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text[r].parse::<u32>().ok();
    let year = i32::try_from(num(0..4)?).ok()?;
    NaiveDate::from_ymd_opt(year, num(5..7)?, num(8..10)?)
}

/// Reads an RFC 3339 time such as `2026-02-02T15:30:05Z` (surrounding spaces allowed).
pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
    DateTime::parse_from_rfc3339(text.trim()).ok()
}

/// Reads a time stored in a file: RFC 3339, or the minute precision the cognitive-memory
/// skill writes, `2026-02-01T09:15Z` (UTC). For audit lines and the decay file.
pub fn parse_stored(text: &str) -> Option<Timestamp> {
    parse_rfc3339(text).or_else(|| {
        NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%dT%H:%MZ")
            .ok()
            .map(|n| n.and_utc().fixed_offset())
    })
}

/// The days named by a relative expression that is the whole of `text`.
fn named_days(text: &str, now: &Timestamp) -> Option<When> {
    if text.eq_ignore_ascii_case("now") {
        return Some(When::At(*now));
    }
    let (len, span) = relative::read_prefix(text, now.date_naive())?;
    (len == text.len()).then_some(())?;
    Some(match span {
        Span::Day(d) => When::Day(d),
        other => When::Days(other.first(), other.last()),
    })
}

fn midnight(d: NaiveDate, offset: FixedOffset) -> Timestamp {
    offset
        .from_local_datetime(&d.and_time(NaiveTime::MIN))
        .single()
        .expect("a fixed offset maps every local time to exactly one instant")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        parse_rfc3339("2026-03-31T10:00:00+09:00").unwrap()
    }

    #[test]
    fn parses_what_people_write() {
        let day = |s: &str| Some(When::Day(parse_day(s).unwrap()));
        let days =
            |a: &str, b: &str| Some(When::Days(parse_day(a).unwrap(), parse_day(b).unwrap()));
        let at = |s: &str| Some(When::At(parse_rfc3339(s).unwrap()));
        let cases = [
            ("2026-01-05T08:00:00Z", at("2026-01-05T08:00:00Z")),
            (" 2026-01-05T08:00:00+02:00 ", at("2026-01-05T08:00:00+02:00")),
            ("2026-01-05 08:30", at("2026-01-05T08:30:00+09:00")),
            ("2026-01-05T08:30", at("2026-01-05T08:30:00+09:00")),
            ("2026-01-05 08:30:15", at("2026-01-05T08:30:15+09:00")),
            ("2026-01-05", day("2026-01-05")),
            ("2026-1-5", day("2026-01-05")),
            ("07:15", at("2026-03-31T07:15:00+09:00")),
            ("90m", at("2026-03-31T08:30:00+09:00")),
            ("12h", at("2026-03-30T22:00:00+09:00")),
            ("7d", at("2026-03-24T10:00:00+09:00")),
            ("2w", at("2026-03-17T10:00:00+09:00")),
            ("0d", at("2026-03-31T10:00:00+09:00")),
            ("now", at("2026-03-31T10:00:00+09:00")),
            ("today", day("2026-03-31")),
            ("Yesterday", day("2026-03-30")),
            ("tomorrow", day("2026-04-01")),
            ("last week", days("2026-03-23", "2026-03-29")),
            ("Last  Week", days("2026-03-23", "2026-03-29")),
            ("last month", days("2026-02-01", "2026-02-28")),
            ("last summer", days("2025-06-01", "2025-08-31")),
            ("this winter", days("2025-12-01", "2026-02-28")),
            ("next friday", day("2026-04-10")),
            ("in 3 days", day("2026-04-03")),
            ("今日", day("2026-03-31")),
            ("昨日", day("2026-03-30")),
            ("明日", day("2026-04-01")),
            ("先週", days("2026-03-23", "2026-03-29")),
            ("先月", days("2026-02-01", "2026-02-28")),
            ("来週の金曜日", day("2026-04-10")),
            ("3日後", day("2026-04-03")),
            ("明日は", None),
            ("tomorrow morning", None),
            ("", None),
            ("soonish", None),
            ("last tuesday", day("2026-03-24")),
            ("tuesday", None),
            ("7y", None),
            ("7", None),
            ("d", None),
            ("-7d", None),
            ("7 d", None),
            ("2026-02-30", None),
            ("25:00", None),
            ("99999999999999w", None),
            ("999999999999w", None),
            ("100000000d", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input, &now()), want, "input: {input:?}");
        }
    }

    #[test]
    fn the_day_is_the_clocks_day_not_utcs() {
        // 00:30 in Tokyo is still the previous day in UTC: "yesterday" follows the clock.
        let now = parse_rfc3339("2026-03-31T00:30:00+09:00").unwrap();
        assert_eq!(parse("yesterday", &now), Some(When::Day(parse_day("2026-03-30").unwrap())));
    }

    #[test]
    fn a_day_starts_where_the_caller_says() {
        let tokyo = *now().offset();
        let utc = FixedOffset::east_opt(0).unwrap();
        let cases = [
            ("2026-01-05", tokyo, "2026-01-05T00:00:00+09:00", "2026-01-05"),
            ("2026-01-05", utc, "2026-01-05T00:00:00+00:00", "2026-01-05"),
            ("yesterday", utc, "2026-03-30T00:00:00+00:00", "2026-03-30"),
            ("2026-01-05T23:30:00Z", tokyo, "2026-01-05T23:30:00+00:00", "2026-01-06"),
            ("12h", tokyo, "2026-03-30T22:00:00+09:00", "2026-03-30"),
        ];
        for (input, offset, start, day) in cases {
            let w = parse(input, &now()).unwrap();
            assert_eq!(w.start(offset).to_rfc3339(), start, "input: {input:?}");
            assert_eq!(w.day(offset).to_string(), day, "input: {input:?}");
        }
    }

    #[test]
    fn parse_time_is_parse_with_days_at_local_midnight() {
        let cases = [
            ("2026-01-05", Some("2026-01-05T00:00:00+09:00")),
            ("07:15", Some("2026-03-31T07:15:00+09:00")),
            ("yesterday", Some("2026-03-30T00:00:00+09:00")),
            ("tomorrow", Some("2026-04-01T00:00:00+09:00")),
            ("later", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_time(input, &now()).map(|t| t.to_rfc3339()).as_deref(),
                want,
                "input: {input:?}"
            );
        }
    }

    #[test]
    fn file_dates_are_exactly_yyyy_mm_dd() {
        let cases = [
            ("2026-01-05", Some("2026-01-05")),
            ("2024-02-29", Some("2024-02-29")),
            ("2026-1-5", None),
            ("2026-01-5", None),
            (" 2026-01-05", None),
            ("2026-01-05 ", None),
            ("2026-02-29", None),
            ("2026-13-01", None),
            ("20260105", None),
            ("2026/01/05", None),
            ("+026-01-05", None),
            ("yesterday", None),
            ("２０２６-01-05", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_day(input).map(|d| d.to_string()).as_deref(),
                want,
                "input: {input:?}"
            );
        }
    }

    #[test]
    fn stored_times_are_rfc3339_or_minutes_utc() {
        let cases = [
            ("2026-02-01T09:15:00Z", Some("2026-02-01T09:15:00+00:00")),
            ("2026-02-01T09:15:00+09:00", Some("2026-02-01T09:15:00+09:00")),
            ("2026-02-01T09:15Z", Some("2026-02-01T09:15:00+00:00")),
            ("2026-02-01 09:15", None),
            ("2026-02-01", None),
            ("yesterday", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_stored(input).map(|t| t.to_rfc3339()).as_deref(),
                want,
                "input: {input:?}"
            );
        }
    }

    #[test]
    fn ages() {
        let cases = [
            ("90m", Some(90 * 60)),
            ("12h", Some(12 * 3600)),
            ("7d", Some(7 * 86_400)),
            ("2w", Some(14 * 86_400)),
            ("7y", None),
            ("m", None),
            ("1.5h", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse_age(input).map(|d| d.num_seconds()), want, "input: {input:?}");
        }
    }
}
