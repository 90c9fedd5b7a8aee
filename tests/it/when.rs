//! Time-aware search (issue 22): a when-question ranks the entry that says when first, the
//! relative dates inside imported text are indexed as the days they mean, a question naming a
//! month prefers the entries of that month, and `--since`/`--until` keep an entry by a day its
//! text implies. Real binary, real import, real tantivy index.
// See: issue 22

use crate::common::{TestEnv, jsonl_message};
use crate::search::hits;

fn sources(h: &[serde_json::Value]) -> Vec<&str> {
    h.iter().map(|x| x["source"].as_str().unwrap_or("-")).collect()
}

/// Melanie's museum visits: only D2:4 says when ("yesterday"); the others match the question's
/// words more often.
fn museum_workspace() -> TestEnv {
    let env = TestEnv::initialized();
    let line = |ts: &str, text: &str, id: &str| jsonl_message(ts, "Melanie", text, id);
    let transcript = [
        line(
            "2026-06-20T10:00:00Z",
            "The kids love the museum, it is their favourite place to go.",
            "D1:1",
        ),
        line(
            "2026-06-20T10:01:00Z",
            "A museum with the kids is always fun, they ask so much.",
            "D1:2",
        ),
        line(
            "2026-07-06T20:18:00Z",
            "Yesterday I took the kids to the museum - it was so cool.",
            "D2:4",
        ),
        line(
            "2026-07-06T20:19:00Z",
            "The kids want to go to the museum again, the kids loved the dinosaurs.",
            "D2:5",
        ),
        line(
            "2026-07-20T09:00:00Z",
            "We went camping by the lake with the kids last weekend.",
            "D3:1",
        ),
    ]
    .concat();
    env.write("../talk.jsonl", &transcript);
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    env
}

#[test]
fn issue_22_a_when_question_ranks_the_dated_entry_first() {
    let env = museum_workspace();
    let h = hits(&env, &["When did Melanie take the kids to the museum?"]);
    assert_eq!(sources(&h)[0], "D2:4", "{h:#?}");
    assert_eq!(h[0]["implied_dates"], serde_json::json!(["2026-07-05"]));
    assert_eq!(h[0]["dated"], true);
    // The same words without "when" rank by the words alone: the dated entry is not preferred.
    let plain = hits(&env, &["Melanie kids museum"]);
    assert_ne!(sources(&plain)[0], "D2:4", "{plain:#?}");
    assert!(plain.iter().all(|x| x.get("dated").is_none()), "{plain:#?}");
}

#[test]
fn issue_22_a_question_naming_a_month_prefers_that_month() {
    let env = museum_workspace();
    // D1:1 and D1:2 are of June by their own date; D2:4 and D2:5 are of July. The clock says
    // 2026-12-01: "in June" is June 2026.
    let h = hits(&env, &["What did the kids say at the museum in June?"]);
    let mut top: Vec<&str> = sources(&h).into_iter().take(2).collect();
    top.sort_unstable();
    assert_eq!(top, ["D1:1", "D1:2"], "{h:#?}");
    assert_eq!(h[0]["during"], true);
}

#[test]
fn issue_22_since_and_until_keep_an_entry_by_the_day_it_implies() {
    let env = museum_workspace();
    // Written on 2026-07-06 about "yesterday", 2026-07-05: it belongs to that day too.
    let h = hits(&env, &["museum", "--since", "2026-07-05", "--until", "2026-07-05"]);
    assert_eq!(sources(&h), ["D2:4"], "{h:#?}");
    // "last weekend", written on Monday 2026-07-20: 2026-07-18/19.
    let h = hits(&env, &["camping", "--until", "2026-07-19"]);
    assert_eq!(sources(&h), ["D3:1"], "{h:#?}");
    assert_eq!(h[0]["implied_dates"], serde_json::json!(["2026-07-18/2026-07-19"]));
    assert!(hits(&env, &["camping", "--until", "2026-07-17"]).is_empty());
}

/// A question that names a day takes that day's best matches as candidates, wherever they rank
/// overall: 150 better keyword matches on other days (more than the 100 candidates a search
/// reads) do not hide the entry of 1 May.
#[test]
fn issue_22_a_named_day_brings_its_entries_into_the_candidates() {
    let env = TestEnv::initialized();
    let line = |ts: &str, text: &str, id: &str| jsonl_message(ts, "Joanna", text, id);
    let mut transcript = String::new();
    // One a day (several messages of one day would lend each other their conversation's
    // context, issue 22, which is not what this test is about).
    let first = chrono::NaiveDate::from_ymd_opt(2025, 11, 1).unwrap();
    for i in 0..150 {
        let day = first + chrono::Duration::days(i);
        transcript.push_str(&line(
            &format!("{day}T10:00:00Z"),
            &format!("Another movie to watch, we watch a movie every week: number {i}."),
            &format!("D{i}:1"),
        ));
    }
    transcript.push_str(&line(
        "2026-05-01T20:00:00Z",
        "We picked a movie with the kids and watched Lord of the Rings tonight, all three.",
        "M:1",
    ));
    env.write("../talk.jsonl", &transcript);
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let h = hits(&env, &["What movie did Joanna watch on 1 May, 2026?"]);
    let top: Vec<&str> = sources(&h).into_iter().take(10).collect();
    assert!(top.contains(&"M:1"), "{top:?}");
    let may = h.iter().find(|x| x["source"] == "M:1").unwrap();
    assert_eq!(may["during"], true, "{may}");
    // Without a named day, the 150 better matches come first.
    let h = hits(&env, &["What movie did Joanna watch?", "--limit", "100"]);
    assert!(!sources(&h).contains(&"M:1"), "{:?}", sources(&h));
}

fn question_after() -> &'static str {
    "When did Melanie go on a hike after the road trip?"
}

/// A time named by an event (issue 22: "the week before the trip", "after the road trip"):
/// the event's day is the best match of its words, and the days on the named side of it are
/// preferred, so the hike after the trip outranks one before it that matches the words better.
#[test]
fn issue_22_a_time_named_by_an_event_prefers_the_days_around_it() {
    let env = TestEnv::initialized();
    let line = |ts: &str, text: &str, id: &str| jsonl_message(ts, "Melanie", text, id);
    // One message a day, so no message lends another its conversation's context.
    let transcript = [
        line("2026-03-01T10:00:00Z", "Had to buy boots, buy a tent and buy a stove.", "B1"),
        line("2026-05-02T10:00:00Z", "A long hike in the hills, a great hike with the kids.", "H1"),
        line(
            "2026-06-05T10:00:00Z",
            "Had to buy sunscreen and some snacks for the kids in the car.",
            "B2",
        ),
        line(
            "2026-06-10T10:00:00Z",
            "Back from our road trip to the coast, the road trip was amazing.",
            "T",
        ),
        line("2026-06-14T10:00:00Z", "Took the kids on a hike near the river.", "H2"),
    ]
    .concat();
    env.write("../talk.jsonl", &transcript);
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let rank = |h: &[serde_json::Value], id: &str| sources(h).iter().position(|s| *s == id);
    let during = |h: &[serde_json::Value], id: &str| {
        h.iter().find(|x| x["source"] == id).map(|x| x["during"] == true)
    };

    // The words alone: the hike of May matches better.
    let plain = hits(&env, &["When did Melanie go on a hike?"]);
    assert!(rank(&plain, "H1") < rank(&plain, "H2"), "{:?}", sources(&plain));
    // After the road trip (10 June): the hike of 14 June first, and only the days from the
    // trip on are preferred.
    let after = hits(&env, &[question_after()]);
    assert!(rank(&after, "H2") < rank(&after, "H1"), "{:?}", sources(&after));
    assert_eq!(during(&after, "H2"), Some(true), "{after:#?}");
    assert_eq!(during(&after, "H1"), Some(false), "{after:#?}");

    // The week before the trip: what she bought on 5 June, not on 1 March.
    let plain = hits(&env, &["What did Melanie buy?"]);
    assert_eq!(sources(&plain)[0], "B1", "{:?}", sources(&plain));
    let week = hits(&env, &["What did Melanie buy the week before the road trip?"]);
    assert!(rank(&week, "B2") < rank(&week, "B1"), "{:?}", sources(&week));
    assert_eq!(during(&week, "B2"), Some(true), "{week:#?}");
    assert_eq!(during(&week, "B1"), Some(false), "{week:#?}");
    // The same window by the event's date, written in the question.
    let dated = hits(&env, &["What did Melanie buy the week before June 10, 2026?"]);
    assert_eq!(sources(&dated)[0], "B2", "{:?}", sources(&dated));
    // `--explain` says how the question was read, and the memory the event's day came from.
    let explained = env.run(["search", "--json", "--explain", "--", question_after()]).success();
    let explained: serde_json::Value = serde_json::from_str(&explained.stdout).unwrap();
    let reading = &explained["reading"];
    assert_eq!(reading["wants"], "time", "{reading:#}");
    assert_eq!(reading["people"], serde_json::json!(["Melanie"]), "{reading:#}");
    assert_eq!(
        reading["days"],
        serde_json::json!([{
            "first": "2026-06-10",
            "last": null,
            "by": "after \"the road trip\"",
            "from": "episode:2026-06-10:10:00",
        }]),
        "{reading:#}"
    );
    assert_eq!(explained["hits"], serde_json::json!(after), "--explain ranks as search does");
    let text = env.run(["search", "--explain", "--", question_after()]).success().stdout;
    assert!(text.starts_with("wants: time\nabout: Melanie\n"), "{text}");
    assert!(
        text.contains(
            "days: from 2026-06-10 on (after \"the road trip\": episode:2026-06-10:10:00)"
        ),
        "{text}"
    );
    // An event no memory names gives no window: the words alone decide.
    let unknown = hits(&env, &["What did Melanie buy the week before the wedding?"]);
    assert_eq!(sources(&unknown)[0], "B1", "{:?}", sources(&unknown));
    assert!(unknown.iter().all(|x| x.get("during").is_none()), "{unknown:#?}");
}
