//! `cogmem search`, `recall`, `show`, `reindex` and `import` on real tantivy indexes.

use crate::common::TestEnv;

pub(crate) fn hits(env: &TestEnv, args: &[&str]) -> Vec<serde_json::Value> {
    let mut a = vec!["search", "--json"];
    a.extend_from_slice(args);
    let out = env.run(a).success();
    serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

fn ids(h: &[serde_json::Value]) -> Vec<String> {
    h.iter().map(|x| x["id"].as_str().unwrap().to_owned()).collect()
}

fn texts(h: &[serde_json::Value]) -> Vec<String> {
    h.iter().map(|x| x["text"].as_str().unwrap().to_owned()).collect()
}

fn workspace() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "We chose Postgres for the Atlas project", "--type", "decision"]);
    env.mutate(["remember", "Alice prefers tea over coffee", "--entity", "person--alice"]);
    env.mutate(["remember", "Atlas ships on Friday", "--store", "core"]);
    env.mutate(["remember", "東京駅で田中さんと会議", "--at", "2026-11-20 10:00"]);
    env
}

#[test]
fn hits_carry_what_an_agent_needs() {
    let env = workspace();
    let h = hits(&env, &["postgres"]);
    assert_eq!(ids(&h), ["episode:2026-12-01:09:00"]);
    let hit = &h[0];
    assert_eq!(hit["store"], "episodic");
    assert_eq!(hit["path"], "memory/episodes/2026-12-01.md");
    assert_eq!(hit["line"], 6);
    assert_eq!(hit["status"], "active");
    assert_eq!(hit["text"], "We chose Postgres for the Atlas project");
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    // Core memory ranks first.
    assert!(ids(&hits(&env, &["atlas"]))[0].starts_with("core:active-context:"));
    // Stemming: "preferring" finds "prefers"; Japanese by character pairs.
    assert_eq!(ids(&hits(&env, &["preferring teas"])), ["entity:person--alice"]);
    assert_eq!(ids(&hits(&env, &["田中"])), ["episode:2026-11-20:10:00"]);
    let out = env.run(["search", "postgres"]).success();
    assert!(out.stdout.starts_with("memory/episodes/2026-12-01.md:6  episodic  2026-12-01  episode:2026-12-01:09:00 (active, "), "{out}");
}

#[test]
fn filters_narrow_the_results() {
    let env = workspace();
    assert_eq!(hits(&env, &["atlas", "--store", "episodic"]).len(), 1);
    assert_eq!(hits(&env, &["atlas", "--type", "decision"]).len(), 1);
    assert_eq!(hits(&env, &["tea", "--entity", "person--alice"]).len(), 1);
    assert_eq!(hits(&env, &["tea", "--entity", "person--bob"]).len(), 0);
    assert_eq!(ids(&hits(&env, &["会議", "--until", "2026-11-30"])), ["episode:2026-11-20:10:00"]);
    assert!(hits(&env, &["会議", "--since", "2026-11-21"]).is_empty());
    assert_eq!(hits(&env, &["atlas", "--limit", "1"]).len(), 1);
}

// See: issue 15
#[test]
fn issue_15_search_since_accepts_an_age() {
    // The clock is at 2026-12-01T09:00; the meeting is dated 2026-11-20, the decision today.
    let env = workspace();
    assert_eq!(ids(&hits(&env, &["postgres", "--since", "7d"])), ["episode:2026-12-01:09:00"]);
    assert!(hits(&env, &["会議", "--since", "7d"]).is_empty());
    assert_eq!(ids(&hits(&env, &["会議", "--since", "2w"])), ["episode:2026-11-20:10:00"]);
    // A time stands for its day; so do the relative words.
    assert_eq!(
        ids(&hits(&env, &["会議", "--since", "2026-11-20T23:00:00Z"])),
        ["episode:2026-11-20:10:00"]
    );
    assert_eq!(ids(&hits(&env, &["会議", "--until", "yesterday"])), ["episode:2026-11-20:10:00"]);
    assert!(hits(&env, &["postgres", "--until", "昨日"]).is_empty());
    assert!(hits(&env, &["postgres", "--since", "tomorrow"]).is_empty());
    assert_eq!(hits(&env, &["postgres", "--since", "today"]).len(), 1);
    let out = env.run(["search", "postgres", "--since", "soonish"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: --since: cannot read \"soonish\" as a date or time"),
        "{out}"
    );
}

#[test]
fn bad_queries_are_clear_errors_and_syntax_never_breaks() {
    let env = workspace();
    for q in ["", "   ", "?!.,", "the and of"] {
        let out = env.run(["search", q]).output().code(1);
        assert!(out.stderr.starts_with("error: the query"), "{q:?}: {out}");
    }
    for q in ["NOT atlas AND", "title:(x", "\"unclosed", "a* ~2 ^3 [1 TO 5]", "-postgres +atlas"] {
        env.run(["search", "--", q]).success();
    }
}

#[test]
fn hand_edits_are_found_and_the_index_is_only_derived() {
    let env = workspace();
    env.write(
        "memory/vault/router.md",
        "# Router\n\nThe router admin password is in the blue binder.\n",
    );
    assert_eq!(ids(&hits(&env, &["binder"])), ["vault:router"]);
    let before = env.run(["search", "--json", "atlas"]).success().stdout;
    env.wait_for_index();
    std::fs::remove_dir_all(env.path(".cogmem")).unwrap();
    env.run(["reindex"]).success();
    assert_eq!(
        env.run(["search", "--json", "atlas"]).success().stdout,
        before,
        "a rebuilt index gives the same answers"
    );
    let out = env.run(["reindex", "--full", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["rebuilt"], true);
    // A corrupted index is rebuilt, never trusted.
    std::fs::write(env.path(".cogmem/index/meta.json"), "garbage").unwrap();
    assert_eq!(ids(&hits(&env, &["binder"])), ["vault:router"]);
    let manifest = env.path(".cogmem/index/manifest.tsv");
    std::fs::write(&manifest, "#cogmem-index-manifest 1\n#schema 999\n").unwrap();
    assert_eq!(ids(&hits(&env, &["binder"])), ["vault:router"]);
    std::fs::write(&manifest, "#cogmem-index-manifest 1\nMEMORY.md\tnot-a-size\n").unwrap();
    assert_eq!(ids(&hits(&env, &["binder"])), ["vault:router"]);
}

#[test]
fn a_search_that_finds_nothing_new_writes_nothing_and_a_hand_edit_is_still_seen() {
    let env = workspace();
    env.run(["search", "postgres"]).success();
    let manifest = env.path(".cogmem/index/manifest.tsv");
    let stamp = |p: &std::path::Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let before = stamp(&manifest);
    let text_before = std::fs::read_to_string(&manifest).unwrap();
    env.run(["search", "postgres"]).success();
    env.run(["search", "--json", "binder"]).success();
    assert_eq!(stamp(&manifest), before, "a read-only search rewrote the manifest");
    // A hand edit is picked up by the very next read, and only then is the manifest rewritten.
    std::fs::write(
        env.path("memory/vault/garden.md"),
        "# Garden\n\nThe spare key sits under the zucchini planter.\n",
    )
    .unwrap();
    assert_eq!(ids(&hits(&env, &["zucchini"])), ["vault:garden"]);
    assert_ne!(std::fs::read_to_string(&manifest).unwrap(), text_before);
}

#[test]
fn unreadable_files_are_skipped_with_exit_3() {
    let env = workspace();
    std::fs::write(env.path("memory/vault/bad.md"), b"# bad \xff\xfe\n").unwrap();
    let out = env.run(["search", "postgres"]).output().code(3);
    assert!(
        out.stderr.contains("warning: skipped [TMP]/ws/memory/vault/bad.md: not valid UTF-8"),
        "{out}"
    );
    assert!(out.stdout.contains("episode:2026-12-01:09:00"), "{out}");
}

#[test]
fn recall_groups_by_store_and_counts_as_use() {
    let env = workspace();
    let out = env.run(["recall", "--json", "atlas"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let stores: Vec<&str> =
        v.as_array().unwrap().iter().map(|g| g["store"].as_str().unwrap()).collect();
    assert_eq!(stores, ["core", "episodic"]);
    let log = env.read(".cogmem/access.log");
    assert_eq!(log.lines().count(), 2, "{log}");
    env.assert_clean_tree();
}

#[test]
fn dormant_only_with_all_and_archived_never() {
    let env = workspace();
    env.mutate(["forget", "--id", "episode:2026-12-01:09:00", "--yes"]);
    assert!(hits(&env, &["postgres", "--all"]).is_empty(), "forgotten memories never come back");
    env.set_now("2027-01-20T00:00:00Z");
    env.run(["decay"]).success();
    assert!(hits(&env, &["田中"]).is_empty(), "dormant after two months");
    assert_eq!(ids(&hits(&env, &["田中", "--all"])), ["episode:2026-11-20:10:00"]);
}

#[test]
fn show_gives_context_and_decay_inputs() {
    let env = TestEnv::initialized();
    for t in ["one", "two", "three", "four", "five"] {
        env.mutate(["remember", t]);
    }
    let out = env.run(["show", "episode:2026-12-01:09:00:3"]).success();
    assert!(out.stdout.contains("  one\n  two\n> three\n  four\n  five\n"), "{out}");
    assert!(out.stdout.contains("clamp01("), "{out}");
    let out = env.run(["show", "episode:2026-12-01:09:00:3", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["why"]["inputs"]["access_count"], 2, "the first show was a use");
    assert_eq!(v["context"].as_array().unwrap().len(), 5);
}

#[test]
fn import_jsonl_once_with_sources() {
    let env = TestEnv::initialized();
    let transcript = "{\"timestamp\":\"2023-05-08T13:56:00Z\",\"speaker\":\"Caroline\",\"text\":\"I went to a support group yesterday.\",\"id\":\"D1:1\"}\n\
        {\"timestamp\":\"2023-05-08T13:56:00Z\",\"speaker\":\"Mel\",\"text\":\"That sounds great!\",\"id\":\"D1:2\"}\n\
        this line is broken\n\
        {\"timestamp\":\"2023-05-09\",\"role\":\"user\",\"text\":\"hello again\"}\n";
    env.write("../talk.jsonl", transcript);
    let out = env.run(["import", "--format", "jsonl", "../talk.jsonl"]).output().code(3);
    assert!(out.stderr.contains("imported 3 messages into 2 days, 0 already there"), "{out}");
    assert!(
        out.stderr.contains("warning: skipped [TMP]/ws/../talk.jsonl:3: not valid JSON"),
        "{out}"
    );
    assert_eq!(env.commit_count(), 2, "one commit per import");
    env.assert_clean_tree();
    assert!(
        env.git(&["log", "-1", "--format=%s"])
            .contains("imported 3 messages from talk into 2 days")
    );
    let day = env.read("memory/episodes/2023-05-08.md");
    assert!(day.contains("## 13:56 | event | confidence:high | tags:[import]\n**Caroline:** I went to a support group yesterday.\n<!-- source: D1:1 -->\n"), "{day}");
    let h = hits(&env, &["support group"]);
    assert_eq!(h[0]["source"], "D1:1");
    assert_eq!(h[0]["text"], "**Caroline:** I went to a support group yesterday.");
    // Again: nothing new, no commit.
    let out = env.run(["import", "../talk.jsonl", "--json"]).output().code(3);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["imported"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(3)));
    assert_eq!(env.commit_count(), 2);
    // --strict: one bad line, nothing written.
    let out = env.run(["import", "--strict", "-"]).stdin("{\"timestamp\":\"2024-01-01\",\"speaker\":\"a\",\"text\":\"x\"}\n{\"speaker\":\"b\",\"text\":\"y\"}\n").output().code(1);
    assert!(out.stderr.starts_with("error: <stdin>:2: missing `timestamp`"), "{out}");
    assert!(!env.path("memory/episodes/2024-01-01.md").exists());
}

#[test]
fn import_of_one_message_says_message_and_day_in_the_singular() {
    let env = TestEnv::initialized();
    env.write(
        "../one.jsonl",
        "{\"timestamp\":\"2023-05-08T13:56:00Z\",\"speaker\":\"Mel\",\"text\":\"hi\"}\n",
    );
    let out = env.mutate(["import", "../one.jsonl"]);
    assert!(out.stderr.starts_with("imported 1 message into 1 day, 0 already there"), "{out}");
    let subject = env.git(&["log", "-1", "--format=%s"]);
    assert!(
        subject
            .trim_end()
            .ends_with(" — imported 1 message from one into 1 day (0 duplicates skipped)"),
        "{subject}"
    );
}

#[test]
fn import_links_entries_to_their_entities_and_skips_bad_entity_ids() {
    let env = TestEnv::initialized();
    // The `entities` field alone: import's own extraction (issue 22, tests/it/entities.rs) off.
    let toml = env.read("cogmem.toml");
    env.write("cogmem.toml", &format!("{toml}\n[capture]\nextract_entities = false\n"));
    env.git_commit_all("no entity extraction");
    let transcript = "{\"timestamp\":\"2023-05-08T13:56:00Z\",\"speaker\":\"Caroline\",\"text\":\"I moved from Sweden.\",\"id\":\"D1:1\",\"entities\":[\"person--caroline\",\"place--sweden\",\"place--sweden\"]}\n\
        {\"timestamp\":\"2023-05-08T13:57:00Z\",\"speaker\":\"Mel\",\"text\":\"Bad link.\",\"id\":\"D1:2\",\"entities\":[\"Place--Sweden\"]}\n\
        {\"timestamp\":\"2023-05-08T13:58:00Z\",\"speaker\":\"Mel\",\"text\":\"Not a list.\",\"id\":\"D1:3\",\"entities\":\"place--sweden\"}\n\
        {\"timestamp\":\"2023-05-08T13:59:00Z\",\"speaker\":\"Mel\",\"text\":\"No links.\",\"id\":\"D1:4\",\"entities\":[]}\n";
    env.write("../talk.jsonl", transcript);
    // --strict: the first bad entity id fails the whole import.
    let out = env.run(["import", "--strict", "../talk.jsonl"]).output().code(1);
    assert!(out.stderr.starts_with("error: [TMP]/ws/../talk.jsonl:2: `entities`: "), "{out}");
    assert!(out.stderr.contains("Place--Sweden"), "{out}");
    assert!(!env.path("memory/episodes/2023-05-08.md").exists());
    let out = env.run(["import", "../talk.jsonl"]).output().code(3);
    assert!(out.stderr.contains("imported 2 messages into 1 day"), "{out}");
    assert!(
        out.stderr.contains("warning: skipped [TMP]/ws/../talk.jsonl:2: `entities`: "),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("warning: skipped [TMP]/ws/../talk.jsonl:3: `entities` must be an array"),
        "{out}"
    );
    env.assert_clean_tree();
    let day = env.read("memory/episodes/2023-05-08.md");
    assert!(
        day.contains("**Caroline:** I moved from Sweden.\n<!-- source: D1:1 -->\n<!-- entities: [[person--caroline]] [[place--sweden]] -->\n"),
        "{day}"
    );
    assert!(day.contains("**Mel:** No links.\n<!-- source: D1:4 -->\n"), "{day}");
    assert!(!day.contains("No links.\n<!-- source: D1:4 -->\n<!-- entities"), "{day}");
    // The links are the entry's entities, not part of its text.
    let h = hits(&env, &["sweden"]);
    assert_eq!(h[0]["source"], "D1:1");
    assert_eq!(h[0]["text"], "**Caroline:** I moved from Sweden.");
    assert_eq!(h[0]["entities"], serde_json::json!(["person--caroline", "place--sweden"]));
    let h = hits(&env, &["moved", "--entity", "place--sweden"]);
    assert_eq!(ids(&h), vec!["episode:2023-05-08:13:56"]);
    // Words of the entity ids are not indexed text.
    let out = env.run(["search", "place"]).output();
    assert!(!out.stdout.contains("D1:1"), "{out}");
}

/// Faded memories are dropped after BM25 ranks the matches; when they fill the first batch,
/// search fetches the next, so a live memory ranked below many faded ones is still found. 350
/// of them fill the first two batches (100 and 200, ranked by one query run) and part of the
/// third (ranked by a second).
#[test]
fn a_live_memory_below_many_faded_matches_is_found() {
    let env = TestEnv::initialized();
    env.set_now("2027-01-01T09:00:00Z");
    let mut jsonl = String::new();
    for i in 0..350 {
        jsonl.push_str(&format!(
            "{{\"timestamp\":\"2027-01-01T08:{:02}:{:02}Z\",\"speaker\":\"Mel\",\"text\":\"zebra zebra zebra crossing {i}\"}}\n",
            i / 60,
            i % 60
        ));
    }
    let path = env.home.join("old.jsonl");
    std::fs::write(&path, jsonl).unwrap();
    env.run(["import", path.to_str().unwrap()]).success();
    env.set_now("2028-09-01T09:00:00Z");
    env.mutate(["remember", "A zebra was seen near the garden gate"]);
    let out = env.run(["search", "--json", "zebra"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let texts: Vec<&str> =
        v.as_array().unwrap().iter().filter_map(|h| h["text"].as_str()).collect();
    assert!(texts.iter().any(|t| t.contains("garden gate")), "{texts:?}");
    assert!(texts.iter().all(|t| !t.contains("crossing")), "faded ones stay out: {texts:?}");
}

/// A change refreshes the index from its own files only; a hand edit elsewhere made before it
/// is still found by the next search, and a relation added by hand still reaches the graph.
#[test]
fn a_change_does_not_hide_an_earlier_hand_edit_from_search() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Ann likes tea", "--entity", "person--ann"]);
    env.mutate(["remember", "lunch with Bob"]);
    env.run(["search", "tea"]).success();
    // A hand edit, then a change to another file, then a search.
    let day = "memory/episodes/2026-12-01.md";
    let text = env.read(day);
    env.write(day, &format!("{text}\n## 09:30 | event\nThe zeppelin museum opens in May.\n"));
    env.run(["remember", "Ann prefers green tea", "--entity", "person--ann"]).success();
    let h = hits(&env, &["zeppelin"]);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0]["path"], day);
}

#[test]
fn the_entry_after_a_matching_question_comes_as_its_answer() {
    let env = TestEnv::initialized();
    for (at, kind, text) in [
        ("2026-11-20 10:00", "event", "Which colour did you paint the fence?"),
        ("2026-11-20 10:01", "fact", "Dark green, it took all weekend."),
        ("2026-11-20 10:02", "event", "The fence needs a second coat."),
        ("2026-11-20 10:03", "event", "Tea or coffee later?"),
    ] {
        env.mutate(["remember", text, "--at", at, "--type", kind]);
    }
    let h = hits(&env, &["what colour is the fence?"]);
    let by_id =
        |id: &str| h.iter().find(|x| x["id"] == id).unwrap_or_else(|| panic!("{id}: {h:?}"));
    assert_eq!(ids(&h)[0], "episode:2026-11-20:10:00", "the question matches best");
    // The answer shares no word with the query: 0.4 × the question's score is its score.
    let question = by_id("episode:2026-11-20:10:00")["score"].as_f64().unwrap();
    let answer = by_id("episode:2026-11-20:10:01");
    assert_eq!(answer["bm25"], 0.0);
    let passed = answer["from_question"].as_f64().unwrap();
    assert!((passed - 0.4 * question).abs() < 0.001, "{answer}");
    assert_eq!(answer["score"].as_f64(), Some(passed));
    // A hit that asks nothing passes nothing: the entry after "second coat" is not found.
    assert!(by_id("episode:2026-11-20:10:02").get("from_question").is_none());
    assert_eq!(h.len(), 3, "{h:?}");
    // The answer obeys the filters like any hit.
    assert_eq!(
        ids(&hits(&env, &["colour fence", "--type", "event"])),
        ["episode:2026-11-20:10:00", "episode:2026-11-20:10:02"]
    );
}

#[test]
fn pronouns_in_a_query_do_not_pick_the_hits() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice adopted a puppy named Rex", "--at", "2026-11-20 10:00"]);
    env.mutate([
        "remember",
        "She told me her puppy was her best friend",
        "--at",
        "2026-11-20 11:00",
    ]);
    // "she" and "her" would make the second entry the best match; the words that say what is
    // asked point to the first.
    let h = hits(&env, &["which puppy did she adopt for her kids?"]);
    assert_eq!(ids(&h), ["episode:2026-11-20:10:00", "episode:2026-11-20:11:00"]);
    // A query of pronouns alone keeps them.
    assert_eq!(ids(&hits(&env, &["her"])), ["episode:2026-11-20:11:00"]);
}

#[test]
fn a_message_by_the_person_the_query_names_ranks_higher() {
    let env = TestEnv::initialized();
    env.write(
        "../talk.jsonl",
        "{\"timestamp\":\"2026-11-20T10:00:00Z\",\"speaker\":\"Alice\",\"text\":\"Bob, the budget is tight this month.\",\"id\":\"m1\"}\n\
         {\"timestamp\":\"2026-11-20T10:01:00Z\",\"speaker\":\"Bob\",\"text\":\"The budget will be fine once the office move is paid.\",\"id\":\"m2\"}\n",
    );
    env.run(["import", "--format", "jsonl", "../talk.jsonl"]).success();
    // Alice's shorter message matches "bob" and "budget" better; Bob said it, and his score is
    // × 1.5.
    let h = hits(&env, &["what did Bob say about the budget?"]);
    let sources: Vec<&str> = h.iter().map(|x| x["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["m2", "m1"]);
    assert_eq!(h[0]["speaker_named"], true);
    // Plus what it lends itself as its conversation's best message, and what the message
    // next to it lends.
    let shares =
        ["from_day", "from_near"].map(|k| h[0][k].as_f64().unwrap_or(0.0)).iter().sum::<f64>();
    let expected =
        h[0]["bm25"].as_f64().unwrap() * h[0]["relevance"].as_f64().unwrap() * 1.5 + shares;
    assert!((h[0]["score"].as_f64().unwrap() - expected).abs() < 0.001, "{}", h[0]);
    assert!(h[1].get("speaker_named").is_none());
    // Naming Alice instead: her message gains.
    let h = hits(&env, &["what did Alice say about the budget?"]);
    assert_eq!(h[0]["source"], "m1");
    assert_eq!(h[0]["speaker_named"], true);
}

/// Messages of one conversation share their context (issue 22): the conversation's best match
/// lends the others of its log a fifth of its score, and the two messages on each side of it a
/// share that halves with the distance, or more for its speaker's answer to a question about
/// it, so an answer two lines on that shares no word with the query is found. Notes remembered
/// on one day lend nothing to each other.
#[test]
fn messages_of_a_conversation_share_their_context_and_notes_do_not() {
    let env = TestEnv::initialized();
    let line = |minute: u32, speaker: &str, text: &str| {
        format!(
            "{{\"timestamp\":\"2026-11-20T10:{minute:02}:00Z\",\"speaker\":\"{speaker}\",\"text\":\"{text}\",\"id\":\"m{minute}\"}}\n"
        )
    };
    let talk = [
        line(0, "Ann", "We finally opened the bakery on Main Street."),
        line(1, "Bob", "Congratulations! How was the first morning?"),
        line(2, "Ann", "Exhausting but wonderful, we sold out by noon."),
        line(3, "Bob", "I still owe you for the sourdough recipe."),
        line(4, "Ann", "No need, it was a gift."),
        line(5, "Bob", "Then I will bring flowers on Friday."),
    ]
    .concat();
    env.write("../talk.jsonl", &talk);
    env.run(["import", "--format", "jsonl", "../talk.jsonl"]).success();
    let h = hits(&env, &["how was the bakery opening?"]);
    let by_source = |s: &str| h.iter().find(|x| x["source"] == s);
    let top = &h[0];
    assert_eq!(top["source"], "m0", "{h:?}");
    let best = top["score"].as_f64().unwrap();
    // The best match lends its own log a fifth of what it had before.
    let own = top["from_day"].as_f64().unwrap();
    assert!((own - 0.2 * (best - own)).abs() < 0.001, "{top}");
    // Bob's question right after it: 0.15 × the best score.
    let next = by_source("m1").unwrap_or_else(|| panic!("{h:?}"));
    assert!((next["from_near"].as_f64().unwrap() - 0.15 * best).abs() < 0.001, "{next}");
    // Ann's answer to Bob's question about it, two messages on, shares no word with the query:
    // 0.3 × the best score (the follow-up's answer).
    let answer = by_source("m2").unwrap_or_else(|| panic!("the answer is not found: {h:?}"));
    assert_eq!(answer["bm25"], 0.0);
    let near = answer["from_near"].as_f64().unwrap();
    assert!((near - 0.3 * best).abs() < 0.001, "{answer}");
    assert_eq!(answer["score"].as_f64(), Some(near));
    // Three messages away: nothing; and only the best match's log lends.
    assert!(by_source("m3").is_none(), "{h:?}");
    assert_eq!(h.len(), 3, "{h:?}");
    // Bob's message two on from his sourdough line follows Ann's, which asks nothing: half the
    // share of the message next to the hit, as any neighbour two away.
    let h = hits(&env, &["sourdough recipe"]);
    assert_eq!(h[0]["source"], "m3", "{h:?}");
    let best = h[0]["score"].as_f64().unwrap();
    let two_on = h.iter().find(|x| x["source"] == "m5").unwrap_or_else(|| panic!("{h:?}"));
    let near = two_on["from_near"].as_f64().unwrap();
    assert!((near - 0.15 * best / 2.0).abs() < 0.001, "{two_on}");

    // The same lines remembered as notes of one day: each is found by its own words only.
    let env = TestEnv::initialized();
    for text in [
        "We finally opened the bakery on Main Street.",
        "Exhausting but wonderful, we sold out by noon.",
    ] {
        env.mutate(["remember", text]);
    }
    let h = hits(&env, &["bakery opening"]);
    assert_eq!(h.len(), 1, "{h:?}");
    assert!(h[0].get("from_day").is_none() && h[0].get("from_near").is_none(), "{h:?}");
}

/// The index is written without waiting for the disk and records the boot it was written in;
/// an index written before the system restarted is rebuilt, never trusted.
#[test]
fn an_index_written_in_an_earlier_boot_is_rebuilt() {
    let env = workspace();
    let manifest = env.path(".cogmem/index/manifest.tsv");
    env.run(["search", "atlas"]).success();
    let text = std::fs::read_to_string(&manifest).unwrap();
    let Ok(boot) = std::fs::read_to_string("/proc/sys/kernel/random/boot_id") else {
        assert!(!text.contains("#boot "), "no boot id, no unsynced index: {text}");
        return;
    };
    assert!(text.contains(&format!("#boot {}\n", boot.trim())), "{text}");
    let out = env.run(["reindex", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["rebuilt"], false, "same boot: trusted");
    std::fs::write(&manifest, text.replace(boot.trim(), "an-earlier-boot")).unwrap();
    let out = env.run(["reindex", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["rebuilt"], true, "{v}");
    assert_eq!(v["reason"], "the system restarted since the index was last written", "{v}");
    assert!(!hits(&env, &["atlas"]).is_empty());
}

/// Issue 20: without a watcher a search reads the index as it stands while every file is
/// stat-ed, and keeps that answer only when the refresh changed nothing it reads. Its answer
/// is the answer of the search after the refresh: after nothing changed, after an edit in
/// place, after a decay file rewritten by hand and after an entity written by hand (each then
/// read again on the refreshed index).
#[cfg(feature = "timings")] // reads whether the answer was kept
#[test]
fn issue_20_a_search_answered_while_the_files_are_stat_ed_is_the_search_after_them() {
    let env = workspace();
    let search = |query: &str| -> (Vec<serde_json::Value>, bool) {
        let out =
            env.cmd(["search", "--json", query]).env("COGMEM_TIMINGS", "1").output().success();
        let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        (hits.as_array().unwrap().clone(), out.stderr.contains("answered ahead of the scan"))
    };
    let (first, _) = search("Atlas");
    let (again, ahead) = search("Atlas");
    assert!(ahead, "nothing changed: the answer read while the files were stat-ed is kept");
    assert_eq!(again, first);
    // An edit in place: the answer read before the refresh saw it is dropped.
    let file = std::fs::read_dir(env.path("memory/episodes"))
        .unwrap()
        .map(|e| format!("memory/episodes/{}", e.unwrap().file_name().to_string_lossy()))
        .find(|f| env.read(f).contains("Postgres for the Atlas project"))
        .expect("the day's log holding the decision");
    let text = env.read(&file);
    let edited =
        text.replace("Postgres for the Atlas project", "Postgres for Atlas and Atlas Lite");
    assert_ne!(text, edited, "{text}");
    env.write(&file, &edited);
    let (after_edit, ahead) = search("Atlas");
    assert!(!ahead, "a changed file: the search reads the refreshed index");
    assert!(after_edit.iter().any(|h| h["text"].as_str().unwrap().contains("Atlas Lite")));
    let (settled, ahead) = search("Atlas");
    assert!(ahead);
    assert_eq!(after_edit, settled);
    // A decay file rewritten by hand: its cache is rewritten, the answer read before dropped.
    let scores = env.read("memory/meta/decay-scores.json");
    std::thread::sleep(std::time::Duration::from_millis(20));
    env.write("memory/meta/decay-scores.json", &scores);
    let (after_decay, ahead) = search("Atlas");
    assert!(!ahead, "a decay file changed: its cache was rewritten");
    assert_eq!(after_decay, settled);
    // An entity written by hand (its documents and the graph cache change).
    env.write(
        "memory/graph/entities/place--atlas-harbour.md",
        "# place--atlas-harbour\n<!-- Type: place | Created: 2026-01-01 -->\n\n## Facts\n\
         - Atlas harbour is where the team meets\n\n## Relations\n- part-of: [[project--atlas]]\n",
    );
    let (after_entity, ahead) = search("Atlas");
    assert!(!ahead, "an entity file changed");
    assert!(after_entity.iter().any(|h| h["id"].as_str().unwrap().contains("atlas-harbour")));
    let (settled, ahead) = search("Atlas");
    assert!(ahead);
    assert_eq!(after_entity, settled);
}

/// Words written together or apart (issue 22): "road trip" finds the memory that says
/// "roadtrip", and "bookshelf", which no memory holds, finds "book shelf" written as two
/// neighbouring words, not a memory where they stand apart. Real binary, real index.
#[test]
fn issue_22_words_written_together_or_apart_find_each_other() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Planning the roadtrip to Maine with the kids"]);
    env.mutate(["remember", "Put the old book shelf in the garage"]);
    env.mutate(["remember", "The shelf by the door holds a book about birds"]);
    env.mutate(["remember", "Set up the new database server"]);
    env.mutate(["remember", "Keep the data base camp tidy"]);
    // Joined in the memory, apart in the query.
    let h = hits(&env, &["road trip"]);
    assert_eq!(texts(&h), ["Planning the roadtrip to Maine with the kids"], "{h:#?}");
    let out = env.run(["search", "--json", "--explain", "road trip"]).success().stdout;
    let explained: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(explained["reading"]["terms"], serde_json::json!(["road", "trip"]));
    assert_eq!(explained["reading"]["added"], serde_json::json!(["roadtrip"]));
    // Apart in the memory, joined in the query: only where the two words are neighbours.
    let h = hits(&env, &["bookshelf"]);
    assert_eq!(texts(&h), ["Put the old book shelf in the garage"], "{h:#?}");
    let out = env.run(["search", "--explain", "bookshelf"]).success().stdout;
    assert!(out.contains("added: book shelf\n"), "{out}");
    // Both ways at once: "data base" finds the memory with the words and the one that joins
    // them. A word some memory holds is not split: "database" finds only itself.
    let mut h = texts(&hits(&env, &["data base"]));
    h.sort();
    assert_eq!(h, ["Keep the data base camp tidy", "Set up the new database server"]);
    let h = hits(&env, &["database"]);
    assert_eq!(texts(&h), ["Set up the new database server"], "{h:#?}");
    // A join no memory holds adds nothing.
    assert!(hits(&env, &["road works"]).is_empty());
}

/// Pseudo-relevance feedback (issue 22, `[search] expansion_terms`): off by default; on, a
/// list question gains the words its best matches share, so a memory that shares only those
/// ("a pottery class") is found. Real binary, real index.
#[test]
fn issue_22_expansion_adds_the_words_a_list_questions_best_matches_share() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Fun activities this week: pottery with the kids"]);
    env.mutate(["remember", "Weekend activities were pottery again and a swim"]);
    env.mutate(["remember", "Signed up for a pottery class downtown"]);
    env.mutate(["remember", "Bought groceries for the week"]);
    // Words every memory holds say nothing: a few more memories make "pottery" a rare word.
    for topic in ["the dentist", "the car", "taxes", "the garden", "the roof", "a new laptop"] {
        env.mutate(["remember", &format!("Called about {topic} today")]);
    }
    let question = "What activities does Mel enjoy?";
    let class = "Signed up for a pottery class downtown".to_owned();
    assert!(!texts(&hits(&env, &[question])).contains(&class));
    env.append("cogmem.toml", "\n[search]\nexpansion_terms = 3\n");
    let h = texts(&hits(&env, &[question]));
    assert!(h.contains(&class), "{h:?}");
    assert!(!h.contains(&"Bought groceries for the week".to_owned()), "{h:?}");
    // Only a list question is expanded: the same words as a plain query are not.
    assert!(!texts(&hits(&env, &["activities Mel enjoy"])).contains(&class));
}

/// A longer `--limit` only adds hits after those a shorter one returns: every limit up to the
/// candidates a search reads (100) ranks the same candidates. Before, a search read 5 × its
/// limit, and the day's share lifted weak matches of the best hit's day that only the longer
/// search had read into its first ten.
#[test]
fn a_longer_limit_only_adds_hits_after_those_of_a_shorter_one() {
    let env = TestEnv::initialized();
    let line = |ts: String, speaker: &str, text: &str, id: String| {
        format!(
            "{{\"timestamp\":\"{ts}\",\"speaker\":\"{speaker}\",\"text\":\"{text}\",\"id\":\"{id}\"}}\n"
        )
    };
    let mut talk =
        line("2026-11-01T09:00:00Z".into(), "Ann", "kite kite kite kite kite", "strong".into());
    for i in 0..40 {
        talk += &line(
            format!("2026-11-01T10:{i:02}:00Z"),
            "Ann",
            "kite red blue green",
            format!("w{i}"),
        );
    }
    for d in 0..10 {
        for i in 0..12 {
            let ts = format!("2026-11-{:02}T10:{i:02}:00Z", d + 2);
            talk += &line(ts, "Bob", "kite red blue", format!("m{d}-{i}"));
        }
    }
    env.write("../kites.jsonl", &talk);
    env.run(["import", "--format", "jsonl", "../kites.jsonl"]).success();
    let first = |limit: &str| -> Vec<String> {
        let h = hits(&env, &["--limit", limit, "kite"]);
        assert_eq!(h.len(), limit.parse::<usize>().unwrap(), "{h:?}");
        h.iter().map(|x| x["source"].as_str().unwrap().to_owned()).collect()
    };
    let ten = first("10");
    assert_eq!(ten[0], "strong", "{ten:?}");
    for limit in ["20", "60", "100"] {
        let longer = first(limit);
        assert_eq!(longer[..10], ten[..], "--limit {limit} against --limit 10");
    }
}

/// A limit far over what the index holds is an upper bound, not an allocation: it aborted the
/// process (and with it `cogmem serve`, whose pages take `limit=`) asking for 240 TB.
#[test]
fn a_huge_limit_returns_every_hit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Apples grow in the north orchard"]);
    env.mutate(["remember", "Apples are picked in October"]);
    let out = env.run(["search", "apples", "--limit", "10000000000000", "--json"]).success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(hits.as_array().map(Vec::len), Some(2), "{out}");
    let out = env.run(["search", "apples", "--limit", &usize::MAX.to_string()]).success();
    assert!(out.stdout.contains("north orchard"), "{out}");
}
