//! What `hear` and `remember` store from what the user says (the capture audit, eleventh stop):
//! the day a past-tense weekday stands for, which entities a message names, and the text
//! written for them, through the real binary.

use crate::common::TestEnv;
use crate::dates::files_with;

/// Said on Sunday 2026-12-06, "I met Bob on Tuesday" was stored as Tuesday 2026-12-08, two
/// days ahead; `remember --at` dated its text from the clock instead of its own time.
#[test]
fn a_past_tense_weekday_is_stored_as_the_day_just_past() {
    let env = TestEnv::initialized();
    env.set_now("2026-12-06T10:00:00Z");
    let out = env.mutate(["hear", "Remember that I met Bob on Tuesday"]);
    assert!(!files_with(&env, "on Tuesday (2026-12-01)").is_empty(), "{out}");
    assert!(files_with(&env, "(2026-12-08)").is_empty(), "dated ahead:\n{out}");
    // From Wednesday 2026-12-02, the Thursday past is 2026-11-26 (from the clock's Sunday, it
    // would be 2026-12-03).
    env.mutate(["remember", "--at", "2026-12-02 10:00", "Alice called on Thursday"]);
    let episode = env.read("memory/episodes/2026-12-02.md");
    assert!(episode.contains("Alice called on Thursday (2026-11-26)"), "{episode}");
    env.mutate(["remember", "We will pay the deposit on Wednesday"]);
    assert!(!files_with(&env, "on Wednesday (2026-12-09)").is_empty());
    env.assert_clean_tree();
}

/// With `person--alice` known, "my colleague Alice Chen is vegan" was written on both Alice
/// Chen and Alice.
#[test]
fn a_longer_name_does_not_also_name_the_known_shorter_one() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea", "--entity", "person--alice"]);
    env.mutate(["hear", "Remember that my colleague Alice Chen is vegan"]);
    let vegan = files_with(&env, "vegan");
    assert!(vegan.iter().any(|f| f.ends_with("person--alice-chen.md")), "{vegan:?}");
    assert!(!vegan.iter().any(|f| f.ends_with("person--alice.md")), "{vegan:?}");
    env.assert_clean_tree();
}

/// "we are out of milk" made `concept--we`, and "on Saturdays" `concept--saturdays`; a known
/// `tool--go` was linked to "the kids go to bed".
#[test]
fn pronouns_and_days_make_no_entities() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that we are out of milk"]);
    env.mutate(["hear", "Remember that I play tennis on Saturdays"]);
    env.mutate(["remember", "Go is our backend language", "--entity", "tool--go"]);
    env.mutate(["hear", "Remember that the kids go to bed at 8"]);
    let entities = env.git(&["ls-files", "memory/graph/entities"]);
    for id in ["concept--we", "concept--saturdays"] {
        assert!(!entities.contains(id), "{entities}");
    }
    assert!(!env.read("memory/graph/entities/tool--go.md").contains("bed"));
    env.assert_clean_tree();
}

/// "I can't eat gluten" was written "User can'ts eat gluten" in MEMORY.md, and "i prefer tea"
/// stayed in the first person.
#[test]
fn the_first_person_is_rewritten_without_garbling_the_verb() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that I can't eat gluten"]);
    env.mutate(["hear", "Remember that I no longer live in Leeds"]);
    env.mutate(["hear", "remember that i prefer tea"]);
    for (said, garbled) in [
        ("User can't eat gluten", "can'ts"),
        ("User no longer lives in Leeds", "nos longer"),
        ("User prefers tea", "i prefer tea"),
    ] {
        assert!(!files_with(&env, said).is_empty(), "{said:?} not stored");
        assert!(files_with(&env, garbled).is_empty(), "{garbled:?} stored");
    }
    env.assert_clean_tree();
}

/// "my name is Sam Rivera" wrote "User's name is Sam Rivera" on `person--user` and on a new
/// `person--sam-rivera`, and no `- Name:` bullet; with a colleague `person--sam`, "my name is
/// Sam" went onto the colleague's card.
#[test]
fn the_users_own_name_becomes_the_identity_name() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Sam leads payments", "--entity", "person--sam"]);
    env.mutate(["hear", "Remember that my name is Sam Rivera"]);
    let memory = env.read("MEMORY.md");
    let identity = memory.split("## Identity").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(identity.contains("- Name: Sam Rivera\n"), "{memory}");
    assert!(!env.path("memory/graph/entities/person--sam-rivera.md").exists());
    assert!(!env.read("memory/graph/entities/person--sam.md").contains("Name:"));
    // The user keeps one entity: what they say next goes where their name went, not to a new
    // `person--sam-rivera` (the merge of the eleventh stop's fixes split the user in two).
    env.mutate(["hear", "Remember that I live in Leeds"]);
    assert!(!env.path("memory/graph/entities/person--sam-rivera.md").exists());
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("Name: Sam Rivera") && user.contains("Leeds"), "{user}");
    env.assert_clean_tree();
}

/// A user who says their name is that of a colleague cogmem knows keeps their own entity: the
/// colleague's card gets none of the user's facts.
#[test]
fn a_user_named_like_a_colleague_keeps_their_own_entity() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Sam leads payments", "--entity", "person--sam"]);
    env.mutate(["hear", "Remember that my name is Sam"]);
    env.mutate(["hear", "Remember that I prefer green tea"]);
    let colleague = env.read("memory/graph/entities/person--sam.md");
    assert!(!colleague.contains("green tea"), "{colleague}");
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("green tea"), "{user}");
}

/// A user who says their name before anything else keeps one entity too: the name goes onto
/// `person--user`, and so does what they say next.
#[test]
fn a_user_who_says_their_name_first_keeps_one_entity() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that my name is Ana Lima"]);
    env.mutate(["hear", "Remember that I prefer green tea"]);
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("Name: Ana Lima"), "{user}");
    assert!(user.contains("green tea"), "{user}");
    assert!(!env.path("memory/graph/entities/person--ana-lima.md").exists());
}

/// "Zoë" typed decomposed (e and a combining diaeresis) became `person--zoe`, apart from the
/// `person--zoë` the composed spelling made.
#[test]
fn a_name_typed_decomposed_is_the_same_entity() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that Zo\u{eb} likes tea"]);
    env.mutate(["hear", "Remember that Zoe\u{308} likes green tea"]);
    let zoe = env.read("memory/graph/entities/person--zo\u{eb}.md");
    assert!(zoe.contains("green tea"), "{zoe}");
    assert!(!env.path("memory/graph/entities/person--zoe.md").exists());
    env.assert_clean_tree();
}

/// "… — remember that so you can …": the phrase's "that" points back at what came before it,
/// which is what is kept (the content was the purpose, "so you can build my shopping lists").
#[test]
fn remember_that_with_a_purpose_keeps_what_came_before() {
    let env = TestEnv::initialized();
    let out = env.mutate([
        "hear",
        "my go-to grocery staples are oat milk and rye bread — remember that so you can build my \
         shopping lists",
    ]);
    assert!(
        out.stdout.contains("content: my go-to grocery staples are oat milk and rye bread"),
        "{out}"
    );
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("oat milk and rye bread"), "{user}");
    assert!(!user.contains("so you can build"), "{user}");
}

/// "Correction: remember that my flight is on Friday, not Thursday" was stored as a plain event:
/// the label before the phrase went with the phrase. It is an episode entry of type
/// `correction` now, and so are "Actually, …" and "No, …"; a fact about someone stays on their
/// card too.
#[test]
fn a_correction_label_before_remember_stores_a_correction_entry() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Correction: remember that my flight is on Friday, not Thursday"]);
    let files = files_with(&env, "flight is on Friday");
    let day = env.read(files.iter().find(|f| f.contains("episodes")).expect("an episode file"));
    assert!(day.contains("| correction | confidence:high |"), "{day}");
    env.mutate(["remember", "Bob likes tea", "--entity", "person--bob"]);
    let out = env.mutate(["hear", "--json", "Actually, remember that Bob's email is b@x.io"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["routing"]["type"], "correction", "{out}");
    let stores: Vec<&str> =
        v["routing"]["stores"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert!(stores.contains(&"semantic") && stores.contains(&"episodic"), "{out}");
    assert!(env.read("memory/graph/entities/person--bob.md").contains("b@x.io"));
    let out = env.run(["hear", "--dry-run", "--json", "No, remember that the demo is at 3pm"]);
    let v: serde_json::Value = serde_json::from_str(&out.output().success().stdout).unwrap();
    assert_eq!(v["routing"]["type"], "correction");
    // Without a label it is what it was.
    let out = env.run(["hear", "--dry-run", "--json", "Remember that the demo is at 3pm"]);
    let v: serde_json::Value = serde_json::from_str(&out.output().success().stdout).unwrap();
    assert_ne!(v["routing"]["type"], "correction");
}

/// "Remember these: - Bob likes tea - Carol likes coffee - Dana plays chess" was one merged
/// bullet written on all three cards. Each item about a subject of its own is a memory of its
/// own now, on its own card, all in one commit with one audit line per memory; items about one
/// subject stay one memory.
#[test]
fn a_list_of_facts_about_several_people_is_one_memory_each_in_one_commit() {
    for message in [
        "Remember these: - Bob likes tea - Carol likes coffee - Dana plays chess",
        "Remember these:\n- Bob likes tea\n- Carol likes coffee\n- Dana plays chess",
    ] {
        let env = TestEnv::initialized();
        let out = env.mutate(["hear", "--json", message]);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["action"]["written"].as_array().unwrap().len(), 3, "{out}");
        for (who, fact, not) in [
            ("bob", "- Bob likes tea\n", "Carol"),
            ("carol", "- Carol likes coffee\n", "Dana"),
            ("dana", "- Dana plays chess\n", "Bob"),
        ] {
            let card = env.read(&format!("memory/graph/entities/person--{who}.md"));
            assert!(card.contains(fact) && !card.contains(not), "{card}");
        }
        let log = env.git(&["log", "--format=%s", "-1"]);
        assert!(log.contains("Bob likes tea (and 2 more)"), "{log}");
    }
    // One subject: one memory, as before.
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember these: - Bob likes tea - Bob plays chess"]);
    let card = env.read("memory/graph/entities/person--bob.md");
    assert!(card.contains("- Bob likes tea - Bob plays chess\n"), "{card}");
}

/// A correction that names the old value left the old fact on the card, read as current beside
/// it. The fact that says exactly what the correction says was wrong is archived in the same
/// commit (the decay line says it was superseded) and `restore` brings it back; a fact that only
/// shares a word stays.
#[test]
fn a_correction_archives_the_fact_it_says_was_wrong() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that Bob's email is a@x.io"]);
    env.mutate(["remember", "Bob's old email a@x.io bounces", "--entity", "person--bob"]);
    let old = env.bullet_id("person--bob", "Bob's email is a@x.io");
    let out = env.mutate([
        "hear",
        "--json",
        "Correction: remember that Bob's email is b@x.io, not a@x.io",
    ]);
    assert!(out.stdout.contains("superseded entity:person--bob:facts:[HASH]"), "{out}");
    let card = env.read("memory/graph/entities/person--bob.md");
    assert!(!card.contains("- Bob's email is a@x.io\n"), "{card}");
    assert!(card.contains("- Bob's email is b@x.io, not a@x.io\n"), "{card}");
    assert!(card.contains("- Bob's old email a@x.io bounces\n"), "{card}");
    let log = env.audit_lines();
    assert!(log.iter().any(|l| l.contains("superseded by the correction")), "{log:#?}");
    env.mutate(["restore", &old]);
    assert!(env.read("memory/graph/entities/person--bob.md").contains("- Bob's email is a@x.io\n"));
    // No label, no correction: nothing is archived.
    env.mutate(["hear", "Remember that Carol's desk is B2"]);
    env.mutate(["hear", "Remember that Carol's desk is B3, not B2"]);
    assert!(env.read("memory/graph/entities/person--carol.md").contains("- Carol's desk is B2\n"));
}
