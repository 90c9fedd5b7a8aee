//! Entity extraction at `import` and on `remember` (issue 22): the speaker and the names a
//! conversation uses become the entries' entity links and entity files in the same commit; a
//! re-import adds nothing; `[capture] extract_entities = false` turns it off. Real binary, real
//! git, real index.
// See: issue 22

use crate::common::TestEnv;
use crate::search::hits;

use crate::common::jsonl_message as line;

/// Caroline and Melanie talk about Sweden (named twice, mid-sentence), Pottery (a name at the
/// start of a sentence only), and "Mel".
fn transcript() -> String {
    [
        line("2026-06-20T10:00:00Z", "Caroline", "Hey Mel! I just got back from Sweden.", "D1:1"),
        line("2026-06-20T10:01:00Z", "Melanie", "Pottery is my new thing. How was it?", "D1:2"),
        line("2026-06-20T10:02:00Z", "Caroline", "I loved it, I want to move to Sweden.", "D1:3"),
        line("2026-06-21T09:00:00Z", "Melanie", "Pottery class again today, so relaxing.", "D2:1"),
        line("2026-06-21T09:01:00Z", "Caroline", "Enjoy it, Mel. Talk soon!", "D2:2"),
    ]
    .concat()
}

fn entities_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("<!-- entities:")).collect()
}

#[test]
fn issue_22_import_links_speakers_and_names_in_one_commit() {
    let env = TestEnv::initialized();
    env.write("../talk.jsonl", &transcript());
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let day = env.read("memory/episodes/2026-06-20.md");
    assert_eq!(
        entities_lines(&day),
        [
            // Melanie has not spoken yet, so "Mel" is no one yet; Sweden is not a name yet
            // (one message so far): an import judges a message by what it has read.
            "<!-- entities: [[person--caroline]] -->",
            "<!-- entities: [[person--melanie]] -->",
            // The second message naming Sweden, mid-sentence, after "to": a place.
            "<!-- entities: [[person--caroline]] [[place--sweden]] -->",
        ],
        "{day}"
    );
    // Once Melanie has spoken, "Mel" is her.
    let day2 = env.read("memory/episodes/2026-06-21.md");
    assert_eq!(
        entities_lines(&day2),
        [
            "<!-- entities: [[person--melanie]] -->",
            "<!-- entities: [[person--caroline]] [[person--melanie]] -->"
        ],
        "{day2}"
    );
    for id in ["person--caroline", "person--melanie", "place--sweden"] {
        let file = env.read(&format!("memory/graph/entities/{id}.md"));
        assert!(file.starts_with(&format!("# {id}\n")), "{file}");
        assert!(env.read("memory/graph/index.md").contains(id), "{id} not in the registry");
    }
    // The entities created have their decay entries: nothing for doctor to repair.
    env.run(["verify"]).success();
    // Pottery only ever starts a sentence: a capital, not a name.
    assert!(!env.path("memory/graph/entities/concept--pottery.md").exists());
    // Entity-scoped search follows the links.
    let h = hits(&env, &["--entity", "place--sweden", "move"]);
    assert_eq!(h.len(), 1, "{h:#?}");
    assert_eq!(h[0]["source"], "D1:3");
    // A re-import adds nothing: no commit, no file changed.
    let head = env.head();
    let before = env.snapshot();
    let out = env.run(["--json", "import", "--format", "jsonl", "../talk.jsonl"]).success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((report["imported"].as_u64(), report["duplicates"].as_u64()), (Some(0), Some(5)));
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before);
}

/// A transcript whose messages carry a chat role instead of a speaker's name (`"role": "user"`,
/// an assistant's answers) links no entity for the role: no `person--user` appears.
#[test]
fn a_chat_role_in_an_import_is_no_one() {
    let env = TestEnv::initialized();
    let role = |at: &str, role: &str, text: &str| {
        format!("{}\n", serde_json::json!({ "timestamp": at, "role": role, "text": text }))
    };
    let lines = [
        role("2026-06-20T10:00:00Z", "user", "Remind me to call the landlord."),
        role("2026-06-20T10:01:00Z", "assistant", "Noted. Anything else?"),
        line("2026-06-20T10:02:00Z", "Dana", "I moved to Lisbon last week.", "D1:3"),
    ]
    .concat();
    env.write("../talk.jsonl", &lines);
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let day = env.read("memory/episodes/2026-06-20.md");
    assert_eq!(entities_lines(&day), ["<!-- entities: [[person--dana]] -->"], "{day}");
    for role in ["user", "assistant"] {
        assert!(!env.path(&format!("memory/graph/entities/person--{role}.md")).exists(), "{role}");
    }
}

#[test]
fn issue_22_a_later_import_links_names_the_workspace_knows() {
    let env = TestEnv::initialized();
    env.write("../talk.jsonl", &transcript());
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    // A new conversation naming Sweden once, at the start of a sentence: known, so linked.
    env.write(
        "../more.jsonl",
        &line("2026-07-01T08:00:00Z", "Jon", "Sweden was cold in July.", "E1:1"),
    );
    env.mutate(["import", "--format", "jsonl", "../more.jsonl"]);
    let day = env.read("memory/episodes/2026-07-01.md");
    assert_eq!(
        entities_lines(&day),
        ["<!-- entities: [[person--jon]] [[place--sweden]] -->"],
        "{day}"
    );
}

#[test]
fn issue_22_extraction_can_be_switched_off() {
    let env = TestEnv::initialized();
    let toml = env.read("cogmem.toml");
    env.write("cogmem.toml", &format!("{toml}\n[capture]\nextract_entities = false\n"));
    env.git_commit_all("extraction off");
    env.write("../talk.jsonl", &transcript());
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let day = env.read("memory/episodes/2026-06-20.md");
    assert_eq!(entities_lines(&day), Vec::<&str>::new(), "{day}");
    assert!(!env.path("memory/graph/entities/person--caroline.md").exists());
    env.mutate(["remember", "I moved to Lisbon last year"]);
    assert!(!env.path("memory/graph/entities/place--lisbon.md").exists());
}

#[test]
fn issue_22_remember_links_known_and_confident_names_only() {
    let env = TestEnv::initialized();
    // A place after "to", mid-sentence: confident, a new entity in the same commit.
    env.mutate(["remember", "I moved to Lisbon last year"]);
    let today = "memory/episodes/2026-12-01.md";
    assert_eq!(entities_lines(&env.read(today)), ["<!-- entities: [[place--lisbon]] -->"]);
    assert!(env.read("memory/graph/entities/place--lisbon.md").starts_with("# place--lisbon"));
    // Known now: linked even at the start of a sentence. A capital alone is not a name.
    env.mutate(["remember", "Lisbon has great tiles. Pottery is fun."]);
    assert_eq!(
        entities_lines(&env.read(today)),
        ["<!-- entities: [[place--lisbon]] -->", "<!-- entities: [[place--lisbon]] -->"]
    );
    assert!(!env.path("memory/graph/entities/concept--pottery.md").exists());
    let h = hits(&env, &["--entity", "place--lisbon", "tiles"]);
    assert_eq!(h.len(), 1, "{h:#?}");
}

#[test]
fn issue_22_remember_links_what_one_message_makes_clear() {
    let env = TestEnv::initialized();
    let today = "memory/episodes/2026-12-01.md";
    // At the start of a note, after its opening verb, "Project X", lower case: each linked and
    // created in the memory's own commit.
    for (text, ids) in [
        ("Dana prefers email over Slack", "[[person--dana]] [[tool--slack]]"),
        ("Called Tom about the invoice", "[[person--tom]]"),
        ("Project Atlas kicks off in March", "[[project--atlas]]"),
        ("met sam at the cafe, then turned off the redis boxes", "[[person--sam]] [[tool--redis]]"),
    ] {
        env.mutate(["remember", text]);
        let text_file = env.read(today);
        assert!(text_file.ends_with(&format!("{text}\n<!-- entities: {ids} -->\n")), "{text_file}");
        for id in ids.split_whitespace() {
            let id = id.trim_matches(|c| c == '[' || c == ']');
            let rel = format!("memory/graph/entities/{id}.md");
            assert!(env.read(&rel).starts_with(&format!("# {id}")), "{rel}");
        }
    }
    assert_eq!(env.git(&["status", "--porcelain"]), "");
    // Nothing around a capitalised word says what it is: not linked.
    env.mutate(["remember", "Atlas is late. Pottery is fun."]);
    assert!(
        env.read(today)
            .ends_with("Atlas is late. Pottery is fun.\n<!-- entities: [[project--atlas]] -->\n")
    );
    assert!(!env.path("memory/graph/entities/concept--pottery.md").exists());
}

// See: issue 20
/// A change that only creates entity files adds their rows to `memory/graph/index.md` (and the
/// rows of links that dangled until now) without rendering the table from every entity file,
/// and the result is the table a full rebuild gives: links from a forgotten entity stay out,
/// a `[[ id | label ]]` link counts, dates and confidence are kept.
#[cfg(feature = "timings")]
#[test]
fn issue_20_created_entities_get_their_rows_as_a_full_rebuild_would_write_them() {
    let env = TestEnv::initialized();
    let entity = |id: &str, relations: &str| {
        format!(
            "# {id}\n<!-- Type: person | Created: 2026-11-01 | Last updated: 2026-11-01 -->\n\n## Summary\n\n## Facts\n\n## Relations\n\n{relations}"
        )
    };
    env.write(
        "memory/graph/entities/person--ann.md",
        &entity(
            "person--ann",
            "- lives-in: [[place--lisbon]] (since 2025-01-01)\n- relates-to: [[person--bob]] (confidence 0.8)\n",
        ),
    );
    env.write(
        "memory/graph/entities/person--bob.md",
        &entity(
            "person--bob",
            "- relates-to: [[person--ann]]\n- relates-to: [[ place--lisbon | Lisboa ]] (until 2024-05-01)\n",
        ),
    );
    env.write(
        "memory/graph/entities/person--carol.md",
        &entity("person--carol", "- lives-in: [[place--lisbon]]\n"),
    );
    env.git_commit_all("entities written by hand");
    env.run(["graph", "rebuild"]).success();
    env.run(["forget", "person--carol", "--yes"]).success();
    let index = env.read("memory/graph/index.md");
    assert!(!index.contains("place--lisbon"), "{index}");
    assert!(!index.contains("| person--carol |"), "forgotten: {index}");

    let out =
        env.run(["remember", "I moved to Lisbon last year"]).env("COGMEM_TIMINGS", "1").success();
    assert!(env.path("memory/graph/entities/place--lisbon.md").exists(), "{}", out.stderr);
    assert!(out.stderr.contains("graph index: rows added"), "{}", out.stderr);
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("| place--lisbon | place |"), "{index}");
    assert!(
        index.contains("| person--ann | lives-in | place--lisbon | 1.0 | 2025-01-01 |"),
        "{index}"
    );
    assert!(
        index.contains("| person--bob | relates-to (until 2024-05-01) | place--lisbon |"),
        "{index}"
    );
    assert!(!index.contains("person--carol"), "{index}");
    // What a full rebuild writes: nothing to change.
    let head = env.head();
    env.run(["graph", "rebuild"]).success();
    assert_eq!(env.head(), head, "the full rebuild found another table");
    env.assert_clean_tree();
}
