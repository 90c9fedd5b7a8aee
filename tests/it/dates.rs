//! Relative dates (issue 18): remembered text keeps the words said with the absolute date next
//! to them, against the test clock; every time flag reads the same words through the one date
//! reader, and refuses what it cannot read naming the flag and the forms it takes.
// See: issue 18

use crate::common::TestEnv;

/// The files under memory/ that hold `needle`, by `git grep` on the committed tree.
pub(crate) fn files_with(env: &TestEnv, needle: &str) -> Vec<String> {
    let out = env.git_command(&["grep", "-l", "-F", needle, "HEAD", "--", "memory"]).output();
    let out = out.expect("git grep runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_start_matches("HEAD:").to_owned())
        .collect()
}

#[test]
fn issue_18_remembered_text_keeps_the_absolute_date_next_to_the_words() {
    // The clock is at 2026-12-01T09:00Z, a Tuesday.
    let env = TestEnv::initialized();
    env.mutate(["remember", "覚えておいて：明日は歯医者"]);
    let episode = env.read("memory/episodes/2026-12-01.md");
    assert!(episode.contains("覚えておいて：明日 (2026-12-02) は歯医者"), "{episode}");

    env.mutate(["remember", "I moved to Berlin last month"]);
    let episode = env.read("memory/episodes/2026-12-01.md");
    assert!(episode.contains("I moved to Berlin last month (2026-11)\n"), "{episode}");

    // On an entity, in a procedure, in core memory: every store gets the same text.
    env.mutate(["remember", "Ada starts next Monday", "--entity", "person--ada"]);
    let ada = env.read("memory/graph/entities/person--ada.md");
    assert!(ada.contains("Ada starts next Monday (2026-12-07)"), "{ada}");
    env.mutate(["remember", "Standup moves to 10:00 next week", "--store", "core"]);
    let core = env.read("MEMORY.md");
    assert!(core.contains("Standup moves to 10:00 next week (2026-12-07/2026-12-13)"), "{core}");

    // Said again the next day, the words resolve to that day; text already dated is kept.
    env.set_now("2026-12-02T09:00:00Z");
    env.mutate(["remember", "dentist tomorrow (2026-12-02) was moved; call them `tomorrow`"]);
    let episode = env.read("memory/episodes/2026-12-02.md");
    assert!(
        episode.contains("dentist tomorrow (2026-12-02) was moved; call them `tomorrow`\n"),
        "{episode}"
    );
    env.assert_clean_tree();
}

#[test]
fn issue_18_hear_dates_what_it_remembers() {
    let env = TestEnv::initialized();
    let out = env.run(["hear", "覚えておいて：明日は歯医者"]).output().success();
    assert!(!files_with(&env, "明日 (2026-12-02) は歯医者").is_empty(), "{out}");
    assert!(files_with(&env, "明日は歯医者").is_empty(), "stored without its date:\n{out}");
    let out = env.run(["hear", "remember that I moved to Berlin last month"]).output().success();
    assert!(!files_with(&env, "last month (2026-11)").is_empty(), "{out}");
    assert!(
        out.stdout.contains(
            "because date 2026-11: written after \"to Berlin last month\", the date it stands for"
        ),
        "{out}"
    );
    env.assert_clean_tree();
    // A dry run shows the dates it would write, and writes nothing.
    let commits = env.commit_count();
    let out = env
        .run(["hear", "--dry-run", "覚えておいて：来週の月曜日に会議、明日は歯医者"])
        .output()
        .success();
    assert!(
        out.stdout.contains("because date 2026-12-07: written after \"来週の月曜日\""),
        "{out}"
    );
    assert!(out.stdout.contains("because date 2026-12-02: written after \"明日\""), "{out}");
    assert_eq!(env.commit_count(), commits);
}

#[test]
fn issue_18_an_approved_proposal_is_dated_when_it_was_proposed() {
    let env = TestEnv::initialized();
    env.run(["propose", "--from", "scout", "the demo is tomorrow"]).output().success();
    // Approved two days later: "tomorrow" still means the day after it was said.
    env.set_now("2026-12-03T09:00:00Z");
    env.run(["pending", "approve", "1", "--actor", "user:kai"]).output().success();
    let episode = env.read("memory/episodes/2026-12-03.md");
    assert!(episode.contains("the demo is tomorrow (2026-12-02)"), "{episode}");
    env.assert_clean_tree();
}

#[test]
fn issue_18_every_time_flag_reads_the_relative_words() {
    let env = TestEnv::initialized();
    let out = env.mutate(["remember", "Team offsite", "--at", "next friday"]);
    assert!(out.stderr.contains("memory/episodes/2026-12-11.md"), "{out}");
    let out = env.mutate(["remember", "Kickoff call", "--at", "3日前"]);
    assert!(out.stderr.contains("memory/episodes/2026-11-28.md"), "{out}");

    env.set_now("2026-12-02T10:00:00Z");
    let since = env.run(["audit", "--since", "yesterday"]).output().success().stdout;
    assert!(since.contains("memory/episodes/2026-12-11.md"), "{since}");
    let today = env.run(["audit", "--since", "今日"]).output().success().stdout;
    assert_eq!(today, "", "nothing was written on 2026-12-02");

    // search --since takes a stretch's first day, --until its last.
    let found = env.run(["search", "offsite", "--since", "next week", "--json"]).output();
    assert!(found.success().stdout.contains("2026-12-11"));
    let found = env.run(["search", "kickoff", "--until", "last week", "--json"]).output();
    assert!(found.success().stdout.contains("2026-11-28"));
    let found = env.run(["search", "kickoff", "--since", "this week", "--json"]).output();
    assert!(!found.success().stdout.contains("2026-11-28"));
    env.assert_clean_tree();
}

#[test]
fn issue_18_graph_as_of_reads_last_week() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Ada lives in Paris",
        "--relation",
        "person--ada|lives-in|place--paris",
    ]);
    env.set_now("2026-12-20T09:00:00Z");
    env.mutate(["remember", "Ada moved to Rome", "--relation", "person--ada|lives-in|place--rome"]);
    // 2026-12-20 is a Sunday: last week began on Monday 2026-12-07, when Ada lived in Paris.
    let then = env.run(["graph", "show", "person--ada", "--as-of", "last week"]).output();
    let then = then.success().stdout;
    assert!(then.contains("lives-in place--paris") && !then.contains("place--rome"), "{then}");
    let now = env.run(["graph", "show", "person--ada"]).output().success().stdout;
    assert!(now.contains("lives-in place--rome") && !now.contains("place--paris"), "{now}");
    let n = env.run(["graph", "neighbors", "person--ada", "--as-of", "先週"]).output();
    let n = n.success().stdout;
    assert!(n.contains("place--paris") && !n.contains("place--rome"), "{n}");
}

#[test]
fn issue_18_an_unreadable_time_names_the_flag_and_the_forms() {
    let env = TestEnv::initialized();
    let head = env.head();
    for (args, flag) in [
        (vec!["remember", "x", "--at", "someday"], "--at"),
        (vec!["audit", "--since", "someday"], "--since"),
        (vec!["audit", "compact", "--older-than", "someday"], "--older-than"),
        (vec!["search", "x", "--since", "someday"], "--since"),
        (vec!["search", "x", "--until", "someday"], "--until"),
        (vec!["graph", "show", "person--ada", "--as-of", "someday"], "--as-of"),
    ] {
        let out = env.run(&args).output().code(1);
        assert!(
            out.stderr.starts_with(&format!(
                "error: {flag}: cannot read \"someday\" as a date or time\n"
            )),
            "{args:?}: {out}"
        );
        assert!(
            out.stderr.contains(&format!("hint: {flag} takes `2026-02-02`"))
                && out.stderr.contains("`next friday`")
                && out.stderr.contains("`3日後`"),
            "{args:?}: {out}"
        );
    }
    assert_eq!(env.head(), head);
}
