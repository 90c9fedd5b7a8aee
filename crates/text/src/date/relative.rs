//! Relative date expressions — `tomorrow`, `next Friday`, `in 3 days`, `last month`, `明日`,
//! `来週の金曜日`, `3日後` — read at the start of a text and resolved against a calendar day.
//! Both readers of relative dates use it: [`super::parse`] (a flag's whole value) and
//! [`super::annotate`] (expressions inside remembered text), so a flag and a sentence mean the
//! same day by the same words.
//!
//! Weeks run Monday to Sunday (ISO 8601). `this`/`next` + a weekday is that day of the current
//! or next week; `last Friday` is the most recent Friday before the day (one to seven days
//! back: on a Sunday, the Friday two days before, not the previous week's); `on Friday` and
//! `今度の金曜` are the coming one (one to seven days ahead), unless the sentence is in the past
//! tense, which [`super::annotate`] tells (`on_weekday`, `previous`). `先週の金曜日` says
//! its week and is that day of the previous week. Invariant: pure; the day is an argument.

use chrono::{Datelike, Duration, Months, NaiveDate, Weekday};

/// The calendar days a relative expression names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// One day: `tomorrow`, `next Friday`, `3日後`.
    Day(NaiveDate),
    /// A week, Monday to Sunday, by its Monday: `next week`, `先週`.
    Week(NaiveDate),
    /// A Saturday and the Sunday after it, by the Saturday: `this weekend`, `今週末`.
    Weekend(NaiveDate),
    /// A calendar month, by its first day: `last month`, `来月`.
    Month(NaiveDate),
    /// A season of three months, by its first day: `last summer`, `this winter`. The
    /// northern hemisphere's meteorological seasons: spring March to May, summer June to
    /// August, autumn (fall) September to November, winter December to February.
    Season(NaiveDate),
    /// A calendar year: `next year`, `去年`.
    Year(i32),
}

impl Span {
    /// Returns the first day of the span.
    pub fn first(&self) -> NaiveDate {
        match *self {
            Self::Day(d) | Self::Week(d) | Self::Weekend(d) | Self::Month(d) | Self::Season(d) => d,
            Self::Year(y) => NaiveDate::from_ymd_opt(y, 1, 1).unwrap_or(NaiveDate::MIN),
        }
    }

    /// Returns the last day of the span.
    pub fn last(&self) -> NaiveDate {
        match *self {
            Self::Day(d) => d,
            Self::Week(d) => d.checked_add_signed(Duration::days(6)).unwrap_or(NaiveDate::MAX),
            Self::Weekend(d) => d.succ_opt().unwrap_or(NaiveDate::MAX),
            Self::Month(d) => d
                .checked_add_months(Months::new(1))
                .and_then(|n| n.pred_opt())
                .unwrap_or(NaiveDate::MAX),
            Self::Season(d) => d
                .checked_add_months(Months::new(3))
                .and_then(|n| n.pred_opt())
                .unwrap_or(NaiveDate::MAX),
            Self::Year(y) => NaiveDate::from_ymd_opt(y, 12, 31).unwrap_or(NaiveDate::MAX),
        }
    }

    /// Returns the absolute form written next to the words: `2026-12-02` for a day,
    /// `2026-11-23/2026-11-29` (an ISO 8601 interval) for a week or a weekend, `2026-11` for a
    /// month, `2026-06/2026-08` for a season, `2025` for a year.
    pub fn label(&self) -> String {
        match self {
            Self::Day(d) => d.format("%Y-%m-%d").to_string(),
            Self::Week(_) | Self::Weekend(_) => {
                format!("{}/{}", self.first().format("%Y-%m-%d"), self.last().format("%Y-%m-%d"))
            }
            Self::Month(d) => d.format("%Y-%m").to_string(),
            Self::Season(_) => {
                format!("{}/{}", self.first().format("%Y-%m"), self.last().format("%Y-%m"))
            }
            Self::Year(y) => format!("{y:04}"),
        }
    }
}

/// Reads a relative expression at the very start of `text`, resolved against `today`.
///
/// Returns the expression's length in bytes (an English possessive `'s` included) and its
/// span, or `None` when `text` does not start with one. English words are case-insensitive and
/// must end at a word boundary (a hyphen, letter or digit right after them means they are part
/// of a longer word: `Sunday-school`); Japanese has no word boundaries, so a few compounds are
/// refused by name (`明日香`, `今年度`). The caller checks what comes before.
pub fn read_prefix(text: &str, today: NaiveDate) -> Option<(usize, Span)> {
    if text.starts_with(|c: char| c.is_ascii_alphabetic()) {
        english(text, today)
    } else if text.starts_with(|c: char| c.is_ascii_digit()) {
        english(text, today).or_else(|| japanese(text, today)) // `3 days ago`, `3日後`
    } else {
        japanese(text, today)
    }
}

// ---------------------------------------------------------------------------------------------
// English

/// Up to `max` words at the start of `text`: (lowercase word, end offset), separated by
/// spaces or tabs only (an expression does not run over a line break).
fn words(text: &str, max: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < max {
        let rest = &text[i..];
        let word_len = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
        if word_len == 0 {
            break;
        }
        out.push((rest[..word_len].to_ascii_lowercase(), i + word_len));
        let after = &rest[word_len..];
        let gap = after.find(|c: char| c != ' ' && c != '\t').unwrap_or(after.len());
        if gap == 0 {
            break;
        }
        i += word_len + gap;
    }
    out
}

/// A weekday's short form (`fri`, `tues`), which people write after `last`, `next` and `this`
/// (`last Fri`); alone, `sat` and `sun` are words.
fn weekday_short(word: &str) -> Option<Weekday> {
    Some(match word {
        "mon" => Weekday::Mon,
        "tue" | "tues" => Weekday::Tue,
        "wed" => Weekday::Wed,
        "thu" | "thur" | "thurs" => Weekday::Thu,
        "fri" => Weekday::Fri,
        "sat" => Weekday::Sat,
        "sun" => Weekday::Sun,
        _ => return None,
    })
}

/// Tells whether `word` (lower case) is a month's or a weekday's full name, or a weekday's
/// plural (`saturdays`, as in "on Saturdays").
pub(crate) fn is_calendar_word(word: &str) -> bool {
    month_number(word).is_some()
        || weekday(word).is_some()
        || word.strip_suffix('s').is_some_and(|w| weekday(w).is_some())
}

/// A month's name (lower case), as its number.
pub(crate) fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let i = MONTHS.iter().position(|m| *m == word)?;
    u32::try_from(i + 1).ok()
}

/// The month `month` named after `last` (`step` −1), `this` (0) or `next` (1): the last such
/// month before `today`'s, the one of `today`'s year, or the first after `today`'s.
fn named_month(today: NaiveDate, month: u32, step: i64) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(today.year(), month, 1)?;
    let year = match step {
        -1 if month >= today.month() => today.year().checked_sub(1)?,
        1 if month <= today.month() => today.year().checked_add(1)?,
        _ => return Some(this),
    };
    NaiveDate::from_ymd_opt(year, month, 1)
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" => Weekday::Mon,
        "tuesday" => Weekday::Tue,
        "wednesday" => Weekday::Wed,
        "thursday" => Weekday::Thu,
        "friday" => Weekday::Fri,
        "saturday" => Weekday::Sat,
        "sunday" => Weekday::Sun,
        _ => return None,
    })
}

/// The counts written as words, one to twelve.
const COUNT_WORDS: [&str; 12] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
];

pub(crate) fn count(word: &str) -> Option<u32> {
    match word {
        "a" | "an" => Some(1),
        w if w.bytes().all(|b| b.is_ascii_digit()) && w.len() <= 4 => w.parse().ok(),
        w => COUNT_WORDS.iter().position(|x| *x == w).and_then(|i| u32::try_from(i + 1).ok()),
    }
}

#[derive(Clone, Copy)]
enum Unit {
    Day,
    Week,
    Month,
    Year,
}

fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "day" | "days" => Unit::Day,
        "week" | "weeks" => Unit::Week,
        "month" | "months" => Unit::Month,
        "year" | "years" => Unit::Year,
        _ => return None,
    })
}

/// `today` moved by `n` units (backwards when `back`), as a day.
fn shift(today: NaiveDate, n: u32, unit: Unit, back: bool) -> Option<NaiveDate> {
    let months = |m: u32| {
        if back {
            today.checked_sub_months(Months::new(m))
        } else {
            today.checked_add_months(Months::new(m))
        }
    };
    let days = |d: i64| today.checked_add_signed(Duration::days(if back { -d } else { d }));
    match unit {
        Unit::Day => days(i64::from(n)),
        Unit::Week => days(i64::from(n) * 7),
        Unit::Month => months(n),
        Unit::Year => months(n.checked_mul(12)?),
    }
}

/// The Monday of the week `today` is in, moved by `weeks`.
fn monday(today: NaiveDate, weeks: i64) -> Option<NaiveDate> {
    let back = i64::from(today.weekday().num_days_from_monday());
    today.checked_add_signed(Duration::days(weeks * 7 - back))
}

/// The day `wd` of the week `weeks` away from `today`'s.
fn weekday_of_week(today: NaiveDate, weeks: i64, wd: Weekday) -> Option<NaiveDate> {
    monday(today, weeks)?.checked_add_signed(Duration::days(i64::from(wd.num_days_from_monday())))
}

/// The last `wd` before `today`: one to seven days back.
pub(crate) fn previous(today: NaiveDate, wd: Weekday) -> Option<NaiveDate> {
    let back = (7 + today.weekday().num_days_from_monday() - wd.num_days_from_monday()) % 7;
    today.checked_sub_signed(Duration::days(i64::from(if back == 0 { 7 } else { back })))
}

/// The weekday of an `on Friday` at the very start of `text`, the expression whose day
/// depends on the tense it is said in.
pub(crate) fn on_weekday(text: &str) -> Option<Weekday> {
    let w = words(text, 2);
    (w.first()?.0 == "on").then_some(())?;
    weekday(&w.get(1)?.0)
}

/// The next `wd` after `today`: one to seven days ahead.
fn coming(today: NaiveDate, wd: Weekday) -> Option<NaiveDate> {
    let ahead = (7 + wd.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
    today.checked_add_signed(Duration::days(i64::from(if ahead == 0 { 7 } else { ahead })))
}

fn month_of(today: NaiveDate, months: i32) -> Option<NaiveDate> {
    let first = today.with_day(1)?;
    if months >= 0 {
        first.checked_add_months(Months::new(months.unsigned_abs()))
    } else {
        first.checked_sub_months(Months::new(months.unsigned_abs()))
    }
}

/// A season's name (lower case), as the month it starts in.
fn season_start(word: &str) -> Option<u32> {
    Some(match word {
        "spring" => 3,
        "summer" => 6,
        "autumn" | "fall" => 9,
        "winter" => 12,
        _ => return None,
    })
}

/// The season that starts in month `start` (3, 6, 9 or 12) of year `year`.
fn season(year: i32, start: u32) -> Option<Span> {
    NaiveDate::from_ymd_opt(year, start, 1).map(Span::Season)
}

/// `last`, `this` or `next` (`step` -1, 0, 1) season starting in month `start`, said on
/// `today`: `this` is the one under way, else the nearest (on 31 March "this winter" is the one
/// just past, in October "this winter" the one coming; a tie goes to the coming one); `last`
/// the latest that has ended; `next` the first that has not begun.
fn named_season(today: NaiveDate, start: u32, step: i64) -> Option<Span> {
    let year = today.year();
    let around: Vec<Span> = (year - 2..=year + 1).filter_map(|y| season(y, start)).collect();
    match step {
        0 => around.iter().copied().min_by_key(|s| {
            let (first, last) = (s.first(), s.last());
            if today < first {
                ((first - today).num_days(), 0)
            } else if last < today {
                ((today - last).num_days(), 1)
            } else {
                (0, 0)
            }
        }),
        1 => around.iter().copied().find(|s| today < s.first()),
        _ => around.iter().rev().copied().find(|s| s.last() < today),
    }
}

/// The words an English expression can start with, besides a count.
const FIRST_WORDS: &[&str] = &[
    "the",
    "day",
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
    "in",
    "on",
    "next",
    "last",
    "this",
];

fn english(text: &str, today: NaiveDate) -> Option<(usize, Span)> {
    // Most words start no expression: look at the first one before reading five.
    let first_len = text.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(text.len());
    let first = &text[..first_len];
    let may_start = FIRST_WORDS.iter().any(|w| first.eq_ignore_ascii_case(w))
        || first.bytes().all(|b| b.is_ascii_digit())
        || ["a", "an"].iter().chain(COUNT_WORDS.iter()).any(|w| first.eq_ignore_ascii_case(w));
    if !may_start {
        return None;
    }
    let w = words(text, 5);
    let at = |i: usize| w.get(i).map(|(s, _)| s.as_str());
    let (n, span) = english_words(&w, today)?;
    let end = w[n - 1].1;
    // "the last Friday of the month", "next week of the course": not a date of its own.
    let relative_to_now = matches!(at(0), Some("next" | "last" | "this"));
    if relative_to_now && at(n) == Some("of") {
        return None;
    }
    // A month after `last`/`this`/`next` is a name only with its capital: "last May", not
    // "the last may be".
    if relative_to_now && n == 2 && month_number(&w[1].0).is_some() {
        let start = w[0].1 + text[w[0].1..].find(|c: char| c != ' ' && c != '\t')?;
        text[start..].starts_with(|c: char| c.is_ascii_uppercase()).then_some(())?;
    }
    boundary(text, end).map(|end| (end, span))
}

/// How many words of `w` make an expression, and its span.
fn english_words(w: &[(String, usize)], today: NaiveDate) -> Option<(usize, Span)> {
    let at = |i: usize| w.get(i).map(|(s, _)| s.as_str());
    let day = |d: Option<NaiveDate>| d.map(Span::Day);
    let first = at(0)?;
    // "the day after tomorrow", "day before yesterday"
    let skip = usize::from(first == "the");
    if at(skip) == Some("day") {
        let days = match (at(skip + 1), at(skip + 2)) {
            (Some("after"), Some("tomorrow")) => Some(2),
            (Some("before"), Some("yesterday")) => Some(-2),
            _ => None,
        };
        if let Some(n) = days {
            return day(today.checked_add_signed(Duration::days(n))).map(|s| (skip + 3, s));
        }
    }
    match first {
        "today" | "tonight" => return Some((1, Span::Day(today))),
        "tomorrow" => return day(today.succ_opt()).map(|s| (1, s)),
        "yesterday" => return day(today.pred_opt()).map(|s| (1, s)),
        "in" => {
            let n = count(at(1)?)?;
            let u = unit(at(2)?)?;
            return day(shift(today, n, u, false)).map(|s| (3, s));
        }
        "on" => return day(coming(today, weekday(at(1)?)?)).map(|s| (2, s)),
        "next" | "last" | "this" => {
            let step: i64 = match first {
                "next" => 1,
                "last" => -1,
                _ => 0,
            };
            let second = at(1)?;
            if let Some(wd) = weekday(second).or_else(|| weekday_short(second)) {
                if step < 0 {
                    return day(previous(today, wd)).map(|s| (2, s));
                }
                return day(weekday_of_week(today, step, wd)).map(|s| (2, s));
            }
            // "last May", "this June", "next March": the month's name must be written with a
            // capital (checked by the caller, [`english`]), so "last may be" is no date.
            if let Some(m) = month_number(second) {
                return Some((2, Span::Month(named_month(today, m, step)?)));
            }
            if let Some(start) = season_start(second) {
                return named_season(today, start, step).map(|s| (2, s));
            }
            // "last night" is the evening before today; "this morning", "this afternoon",
            // "this evening" and "this night" are today ("next night" and "last morning" are
            // no one's phrases).
            match (first, second) {
                ("last", "night") => return day(today.pred_opt()).map(|s| (2, s)),
                ("this", "morning" | "afternoon" | "evening" | "night") => {
                    return Some((2, Span::Day(today)));
                }
                _ => {}
            }
            let span = match second {
                "week" => Span::Week(monday(today, step)?),
                "weekend" => Span::Weekend(weekday_of_week(today, step, Weekday::Sat)?),
                "month" => Span::Month(month_of(today, i32::try_from(step).ok()?)?),
                "year" => Span::Year(today.year().checked_add(i32::try_from(step).ok()?)?),
                _ => return None,
            };
            return Some((2, span));
        }
        _ => {}
    }
    let n = count(first)?;
    (at(2)? == "ago").then_some(())?;
    // "two weekends ago": the weekend of the week that many weeks back.
    if matches!(at(1)?, "weekend" | "weekends") {
        let d = weekday_of_week(today, -i64::from(n), Weekday::Sat)?;
        return Some((3, Span::Weekend(d)));
    }
    let u = unit(at(1)?)?;
    day(shift(today, n, u, true)).map(|s| (3, s))
}

/// Where an English expression ending at `end` really ends: after a possessive `'s`, or not
/// at all when a letter, digit, hyphen or underscore is glued to it (`Sunday-school`).
fn boundary(text: &str, end: usize) -> Option<usize> {
    let rest = &text[end..];
    for apostrophe in ["'s", "’s"] {
        if let Some(after) = rest.strip_prefix(apostrophe) {
            return (!after.starts_with(is_glued)).then_some(end + apostrophe.len());
        }
    }
    let glued = rest.starts_with(is_glued)
        || rest.strip_prefix(['\'', '’']).is_some_and(|a| a.starts_with(char::is_alphanumeric));
    (!glued).then_some(end)
}

/// A character that, right after an English expression, makes it part of a longer word.
pub(crate) fn is_glued(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

// ---------------------------------------------------------------------------------------------
// Japanese

/// Fixed words, longest first where one is the start of another.
const JA_WORDS: &[(&str, JaSpan)] = &[
    ("一昨年", JaSpan::Year(-2)),
    ("一昨日", JaSpan::Day(-2)),
    ("おととい", JaSpan::Day(-2)),
    ("明後日", JaSpan::Day(2)),
    ("あさって", JaSpan::Day(2)),
    ("今日", JaSpan::Day(0)),
    ("本日", JaSpan::Day(0)),
    ("今夜", JaSpan::Day(0)),
    ("今晩", JaSpan::Day(0)),
    ("明日", JaSpan::Day(1)),
    ("あした", JaSpan::Day(1)),
    ("昨日", JaSpan::Day(-1)),
    ("きのう", JaSpan::Day(-1)),
    ("再来週末", JaSpan::Weekend(2)),
    ("来週末", JaSpan::Weekend(1)),
    ("今週末", JaSpan::Weekend(0)),
    ("先週末", JaSpan::Weekend(-1)),
    ("再来週", JaSpan::Week(2)),
    ("先々週", JaSpan::Week(-2)),
    ("来週", JaSpan::Week(1)),
    ("今週", JaSpan::Week(0)),
    ("先週", JaSpan::Week(-1)),
    ("再来月", JaSpan::Month(2)),
    ("先々月", JaSpan::Month(-2)),
    ("来月", JaSpan::Month(1)),
    ("今月", JaSpan::Month(0)),
    ("先月", JaSpan::Month(-1)),
    ("再来年", JaSpan::Year(2)),
    ("来年", JaSpan::Year(1)),
    ("今年", JaSpan::Year(0)),
    ("去年", JaSpan::Year(-1)),
    ("昨年", JaSpan::Year(-1)),
];

/// Compounds that start with one of [`JA_WORDS`] but are not that date: a name (明日香, 今日子),
/// a fiscal year (今年度), "contemporary" (今日的).
const JA_NOT_DATES: &[&str] =
    &["明日香", "明日葉", "今日子", "今日的", "今年度", "来年度", "昨年度", "去年度", "一昨年度"];

#[derive(Clone, Copy)]
enum JaSpan {
    Day(i64),
    Week(i64),
    Weekend(i64),
    Month(i32),
    Year(i32),
}

const JA_WEEKDAYS: [(char, Weekday); 7] = [
    ('月', Weekday::Mon),
    ('火', Weekday::Tue),
    ('水', Weekday::Wed),
    ('木', Weekday::Thu),
    ('金', Weekday::Fri),
    ('土', Weekday::Sat),
    ('日', Weekday::Sun),
];

/// `金曜日` or `金曜` at the start of `text`: the weekday and the length.
fn ja_weekday(text: &str) -> Option<(Weekday, usize)> {
    let mut chars = text.chars();
    let c = chars.next()?;
    let wd = JA_WEEKDAYS.iter().find(|(k, _)| *k == c)?.1;
    let rest = text[c.len_utf8()..].strip_prefix('曜')?;
    let len = text.len() - rest.len();
    Some((wd, if rest.starts_with('日') { len + '日'.len_utf8() } else { len }))
}

fn japanese(text: &str, today: NaiveDate) -> Option<(usize, Span)> {
    if JA_NOT_DATES.iter().any(|w| text.starts_with(*w)) {
        return None;
    }
    if let Some(found) = ja_count(text, today) {
        return Some(found);
    }
    // 来週の金曜日, 来週金曜, 今度の金曜, 次の金曜日, 先週の月曜日
    let heads =
        [("来週", Some(1)), ("今週", Some(0)), ("先週", Some(-1)), ("今度", None), ("次", None)];
    for (head, weeks) in heads {
        let Some(rest) = text.strip_prefix(head) else { continue };
        let rest_no = rest.strip_prefix('の').unwrap_or(rest);
        if weeks.is_none() && rest_no.len() == rest.len() {
            continue; // 今度 and 次 need their の
        }
        if let Some((wd, len)) = ja_weekday(rest_no) {
            let end = text.len() - rest_no.len() + len;
            let d = match weeks {
                Some(w) => weekday_of_week(today, w, wd)?,
                None => coming(today, wd)?,
            };
            return Some((end, Span::Day(d)));
        }
    }
    let (word, span) = JA_WORDS.iter().find(|(w, _)| text.starts_with(w))?;
    let span = match *span {
        JaSpan::Day(n) => Span::Day(today.checked_add_signed(Duration::days(n))?),
        JaSpan::Week(n) => Span::Week(monday(today, n)?),
        JaSpan::Weekend(n) => Span::Weekend(weekday_of_week(today, n, Weekday::Sat)?),
        JaSpan::Month(n) => Span::Month(month_of(today, n)?),
        JaSpan::Year(n) => Span::Year(today.year().checked_add(n)?),
    };
    Some((word.len(), span))
}

/// `3日後`, `2週間前`, `3ヶ月後`, `1年前` (digits ASCII or full-width).
fn ja_count(text: &str, today: NaiveDate) -> Option<(usize, Span)> {
    let mut n: u32 = 0;
    let mut digits = 0;
    let mut len = 0;
    for c in text.chars() {
        let d = match c {
            '0'..='9' => u32::from(c) - u32::from('0'),
            '０'..='９' => u32::from(c) - u32::from('０'),
            _ => break,
        };
        n = n.checked_mul(10)?.checked_add(d)?;
        digits += 1;
        len += c.len_utf8();
    }
    if digits == 0 || digits > 4 {
        return None;
    }
    let rest = &text[len..];
    let units: [(&str, Unit); 9] = [
        ("日", Unit::Day),
        ("週間", Unit::Week),
        ("週", Unit::Week),
        ("ヶ月", Unit::Month),
        ("か月", Unit::Month),
        ("カ月", Unit::Month),
        ("ケ月", Unit::Month),
        ("ヵ月", Unit::Month),
        ("年", Unit::Year),
    ];
    let (u_text, u) = units.iter().find(|(s, _)| rest.starts_with(s))?;
    let rest = &rest[u_text.len()..];
    let back = match rest.chars().next()? {
        '後' => false,
        '前' => true,
        _ => return None,
    };
    let end = text.len() - rest.len() + '後'.len_utf8();
    shift(today, n, *u, back).map(|d| (end, Span::Day(d)))
}
