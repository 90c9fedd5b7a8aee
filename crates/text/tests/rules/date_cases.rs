//! Case tables for relative dates (issue 18): the absolute date `annotate` writes next to the
//! words said, in English and Japanese, on a fixed clock — month ends, year ends, leap days,
//! weekday arithmetic, idempotence, and the text it must leave alone (code, URLs, words that
//! merely contain an expression) — and the same words read whole as a flag by `parse`.
// See: issue 18

use cogmem_text::date::{When, annotate, parse, parse_day, parse_rfc3339};

/// Tuesday 2026-12-01, 10:00 in Tokyo.
const TUESDAY: &str = "2026-12-01T10:00:00+09:00";

fn check(now: &str, cases: &[(&str, &str)]) {
    let now = parse_rfc3339(now).unwrap();
    for (input, want) in cases {
        let got = annotate(input, &now);
        assert_eq!(got, *want, "input: {input:?} at {now}");
        assert_eq!(annotate(&got, &now), got, "annotating twice changed {input:?}");
    }
}

#[test]
fn english_expressions_get_their_date() {
    check(
        TUESDAY,
        &[
            ("dentist tomorrow", "dentist tomorrow (2026-12-02)"),
            ("Tomorrow: dentist", "Tomorrow (2026-12-02): dentist"),
            ("I moved to Berlin last month", "I moved to Berlin last month (2026-11)"),
            ("finish it today.", "finish it today (2026-12-01)."),
            ("call Ann tonight", "call Ann tonight (2026-12-01)"),
            ("yesterday's meeting ran late", "yesterday's (2026-11-30) meeting ran late"),
            ("the day after tomorrow", "the day after tomorrow (2026-12-03)"),
            ("the day before yesterday", "the day before yesterday (2026-11-29)"),
            ("day after tomorrow", "day after tomorrow (2026-12-03)"),
            ("next Monday", "next Monday (2026-12-07)"),
            ("last Sunday", "last Sunday (2026-11-29)"),
            ("this Friday", "this Friday (2026-12-04)"),
            ("this Monday", "this Monday (2026-11-30)"),
            ("review on Friday", "review on Friday (2026-12-04)"),
            // See: issue 22
            ("we met last May", "we met last May (2026-05)"),
            ("back this June", "back this June (2026-06)"),
            ("see you next December", "see you next December (2027-12)"),
            ("the last may be best", "the last may be best"),
            ("last may", "last may"),
            ("Last Fri we baked", "Last Fri (2026-11-27) we baked"),
            ("joined last Tues.", "joined last Tues (2026-11-24)."),
            ("camping two weekends ago", "camping two weekends ago (2026-11-21/2026-11-22)"),
            ("we watched it last night", "we watched it last night (2026-11-30)"),
            ("ran 5k this morning!", "ran 5k this morning (2026-12-01)!"),
            ("This evening: pack", "This evening (2026-12-01): pack"),
            ("on the last night of the trip", "on the last night of the trip"),
            ("the last night was cold", "the last night was cold"),
            ("we hiked a lot last summer", "we hiked a lot last summer (2026-06/2026-08)"),
            ("this winter is mild", "this winter (2026-12/2027-02) is mild"),
            ("Last winter: skiing", "Last winter (2025-12/2026-02): skiing"),
            ("busy this fall", "busy this fall (2026-09/2026-11)"),
            ("moving next spring", "moving next spring (2027-03/2027-05)"),
            ("next autumn", "next autumn (2027-09/2027-11)"),
            ("the last summer of the decade", "the last summer of the decade"),
            ("standup on Tuesday", "standup on Tuesday (2026-12-08)"),
            ("next week", "next week (2026-12-07/2026-12-13)"),
            ("last week", "last week (2026-11-23/2026-11-29)"),
            ("this week", "this week (2026-11-30/2026-12-06)"),
            ("next month", "next month (2027-01)"),
            ("last year", "last year (2025)"),
            ("next year", "next year (2027)"),
            ("this weekend", "this weekend (2026-12-05/2026-12-06)"),
            ("next weekend", "next weekend (2026-12-12/2026-12-13)"),
            ("in 3 days", "in 3 days (2026-12-04)"),
            ("in two weeks", "in two weeks (2026-12-15)"),
            ("in a month", "in a month (2027-01-01)"),
            ("in 2 months", "in 2 months (2027-02-01)"),
            ("3 days ago", "3 days ago (2026-11-28)"),
            ("2 weeks ago", "2 weeks ago (2026-11-17)"),
            ("a year ago", "a year ago (2025-12-01)"),
            (
                "today and tomorrow, then next week",
                "today (2026-12-01) and tomorrow (2026-12-02), then next week (2026-12-07/2026-12-13)",
            ),
            ("Tomorrow\nand yesterday", "Tomorrow (2026-12-02)\nand yesterday (2026-11-30)"),
        ],
    );
}

/// A weekday in a past-tense sentence is the one just past, `last Friday` the most recent
/// Friday, and a sentence that mixes tenses gets no date: said on Sunday 2026-12-06, "I met Bob
/// on Tuesday" was written "(2026-12-08)", two days ahead.
#[test]
fn a_weekday_in_the_past_tense_is_the_one_just_past() {
    check(
        "2026-12-06T10:00:00Z",
        &[
            ("User met Bob on Tuesday", "User met Bob on Tuesday (2026-12-01)"),
            ("We paid the deposit on Wednesday", "We paid the deposit on Wednesday (2026-12-02)"),
            ("Alice called on Thursday", "Alice called on Thursday (2026-12-03)"),
            ("it was closed on Sunday", "it was closed on Sunday (2026-11-29)"),
            ("we didn't go on Saturday", "we didn't go on Saturday (2026-12-05)"),
            ("the standup is on Tuesday", "the standup is on Tuesday (2026-12-08)"),
            ("standup on Tuesday", "standup on Tuesday (2026-12-08)"),
            ("we'll pay on Wednesday", "we'll pay on Wednesday (2026-12-09)"),
            ("I'm getting married on Saturday", "I'm getting married on Saturday (2026-12-12)"),
            ("I said I will call on Friday", "I said I will call on Friday"),
            (
                "I met Bob on Tuesday and will see him on Friday",
                "I met Bob on Tuesday (2026-12-01) and will see him on Friday (2026-12-11)",
            ),
            ("last Friday", "last Friday (2026-12-04)"),
            ("last Sunday", "last Sunday (2026-11-29)"),
            ("next Friday", "next Friday (2026-12-11)"),
            ("this Friday", "this Friday (2026-12-04)"),
            ("先週の金曜日", "先週の金曜日 (2026-11-27)"),
        ],
    );
}

#[test]
fn english_text_that_is_not_a_date_is_left_alone() {
    check(
        TUESDAY,
        &[
            ("Mayday was sent", "Mayday was sent"),
            ("she went to Sunday-school", "she went to Sunday-school"),
            ("we met on Sunday-school days", "we met on Sunday-school days"),
            ("a today-only offer", "a today-only offer"),
            ("todays and yesterdays", "todays and yesterdays"),
            ("the last week was hard", "the last week was hard"),
            ("the next month is busy", "the next month is busy"),
            ("the last Friday of the month", "the last Friday of the month"),
            ("next week of the course", "next week of the course"),
            ("every Friday", "every Friday"),
            ("on Fridays", "on Fridays"),
            ("run `deploy tomorrow` first", "run `deploy tomorrow` first"),
            ("```\nbackup today\n```\n", "```\nbackup today\n```\n"),
            ("    indented code today\n", "    indented code today\n"),
            ("see https://example.com/today/next-week", "see https://example.com/today/next-week"),
            ("see www.example.com/tomorrow", "see www.example.com/tomorrow"),
            ("[notes](https://x.org/last-week)", "[notes](https://x.org/last-week)"),
            ("<https://x.org/today>", "<https://x.org/today>"),
            ("link [[event--tomorrow]]", "link [[event--tomorrow]]"),
            ("tomorrow (2026-12-02)", "tomorrow (2026-12-02)"),
            ("tomorrow(2026-12-02)", "tomorrow(2026-12-02)"),
            ("last month (2026-11) in Berlin", "last month (2026-11) in Berlin"),
            ("tomorrow (3pm)", "tomorrow (2026-12-02) (3pm)"),
            ("", ""),
        ],
    );
}

#[test]
fn month_year_and_leap_boundaries() {
    // Saturday 2026-01-31: a month from the 31st is the last day of February.
    check(
        "2026-01-31T12:00:00Z",
        &[
            ("tomorrow", "tomorrow (2026-02-01)"),
            ("next month", "next month (2026-02)"),
            ("in a month", "in a month (2026-02-28)"),
            ("a month ago", "a month ago (2025-12-31)"),
            ("this weekend", "this weekend (2026-01-31/2026-02-01)"),
            ("next week", "next week (2026-02-02/2026-02-08)"),
            ("on Saturday", "on Saturday (2026-02-07)"),
            ("来月", "来月 (2026-02)"),
        ],
    );
    // Thursday 2026-12-31: everything next is in 2027.
    check(
        "2026-12-31T23:00:00+09:00",
        &[
            ("tomorrow", "tomorrow (2027-01-01)"),
            ("this week", "this week (2026-12-28/2027-01-03)"),
            ("next week", "next week (2027-01-04/2027-01-10)"),
            ("next month", "next month (2027-01)"),
            ("next year", "next year (2027)"),
            ("明日", "明日 (2027-01-01)"),
            ("来年", "来年 (2027)"),
        ],
    );
    // The day is the clock's own: 08:00 in Tokyo on the 1st is still the 30th in UTC.
    check("2026-12-01T08:00:00+09:00", &[("today", "today (2026-12-01)")]);
    // Thursday 2024-02-29: a year on, there is no 29th.
    check(
        "2024-02-29T09:00:00Z",
        &[
            ("in a year", "in a year (2025-02-28)"),
            ("a year ago", "a year ago (2023-02-28)"),
            ("1年後", "1年後 (2025-02-28)"),
        ],
    );
}

#[test]
fn japanese_expressions_get_their_date() {
    check(
        TUESDAY,
        &[
            ("覚えておいて：明日は歯医者", "覚えておいて：明日 (2026-12-02) は歯医者"),
            ("明日、歯医者", "明日 (2026-12-02)、歯医者"),
            ("今日", "今日 (2026-12-01)"),
            ("明後日に出発", "明後日 (2026-12-03) に出発"),
            ("昨日は雨", "昨日 (2026-11-30) は雨"),
            ("一昨日", "一昨日 (2026-11-29)"),
            ("今週", "今週 (2026-11-30/2026-12-06)"),
            ("先週のこと", "先週 (2026-11-23/2026-11-29) のこと"),
            ("来週", "来週 (2026-12-07/2026-12-13)"),
            ("先月ベルリンに引っ越した", "先月 (2026-11) ベルリンに引っ越した"),
            ("来月", "来月 (2027-01)"),
            ("今月", "今月 (2026-12)"),
            ("去年", "去年 (2025)"),
            ("昨年", "昨年 (2025)"),
            ("来年", "来年 (2027)"),
            ("今年", "今年 (2026)"),
            ("来週の金曜日に会議", "来週の金曜日 (2026-12-11) に会議"),
            ("来週金曜", "来週金曜 (2026-12-11)"),
            ("今度の金曜", "今度の金曜 (2026-12-04)"),
            ("今度の火曜日", "今度の火曜日 (2026-12-08)"),
            ("先週の月曜日", "先週の月曜日 (2026-11-23)"),
            ("3日後", "3日後 (2026-12-04)"),
            ("３日後", "３日後 (2026-12-04)"),
            ("13日後", "13日後 (2026-12-14)"),
            ("2週間前", "2週間前 (2026-11-17)"),
            ("3ヶ月後", "3ヶ月後 (2027-03-01)"),
            ("今週末", "今週末 (2026-12-05/2026-12-06)"),
            ("去年の夏", "去年 (2025) の夏"),
            ("約3日後に", "約3日後 (2026-12-04) に"),
            ("明日tomorrow", "明日 (2026-12-02) tomorrow (2026-12-02)"),
        ],
    );
}

#[test]
fn japanese_text_that_is_not_a_date_is_left_alone() {
    check(
        TUESDAY,
        &[
            ("明日香さんに会う", "明日香さんに会う"),
            ("今年度の予算", "今年度の予算"),
            ("2026年3月3日", "2026年3月3日"),
            ("3日間", "3日間"),
            ("毎週金曜日", "毎週金曜日"),
            ("`明日`", "`明日`"),
            ("明日 (2026-12-02) は歯医者", "明日 (2026-12-02) は歯医者"),
            ("明日（2026-12-02）は歯医者", "明日（2026-12-02）は歯医者"),
        ],
    );
}

#[test]
fn annotating_never_panics_on_odd_text() {
    let now = parse_rfc3339(TUESDAY).unwrap();
    let odd = "the last 'tomorrow’s ３日後 [[x `y https:// 明日\u{0}ｘ in a 12345 days ago \
               yesterday's' on Friday-' 一昨日香 ```\ntoday";
    // Every prefix and suffix on a character boundary, so every way an expression can be cut.
    for (i, _) in odd.char_indices() {
        for text in [&odd[..i], &odd[i..]] {
            let once = annotate(text, &now);
            assert_eq!(annotate(&once, &now), once, "input: {text:?}");
        }
    }
}

#[test]
fn flags_read_the_same_words_whole() {
    let now = parse_rfc3339(TUESDAY).unwrap();
    let day = |s: &str| Some(When::Day(parse_day(s).unwrap()));
    let days = |a: &str, b: &str| Some(When::Days(parse_day(a).unwrap(), parse_day(b).unwrap()));
    let cases = [
        ("tomorrow", day("2026-12-02")),
        ("next Friday", day("2026-12-11")),
        ("on friday", day("2026-12-04")),
        ("the day before yesterday", day("2026-11-29")),
        ("in 3 days", day("2026-12-04")),
        ("2 weeks ago", day("2026-11-17")),
        ("last week", days("2026-11-23", "2026-11-29")),
        ("last month", days("2026-11-01", "2026-11-30")),
        ("this weekend", days("2026-12-05", "2026-12-06")),
        ("next year", days("2027-01-01", "2027-12-31")),
        ("3日後", day("2026-12-04")),
        ("来週の金曜日", day("2026-12-11")),
        ("先週", days("2026-11-23", "2026-11-29")),
        ("来月", days("2027-01-01", "2027-01-31")),
        ("去年", days("2025-01-01", "2025-12-31")),
        ("the last week", None),
        ("friday", None),
        ("tomorrow-ish", None),
        ("明日は", None),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input, &now), want, "input: {input:?}");
    }
}
