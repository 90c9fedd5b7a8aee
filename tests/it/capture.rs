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
