//! People and relations on real workspaces (issue 18): what `hear` makes of kinship and role
//! words, and `graph rename` / `graph retype` rewriting every reference in one commit.

use crate::common::TestEnv;

const ENTITIES: &str = "memory/graph/entities";

fn entity(env: &TestEnv, id: &str) -> String {
    env.read(&format!("{ENTITIES}/{id}.md"))
}

fn exists(env: &TestEnv, id: &str) -> bool {
    env.path(&format!("{ENTITIES}/{id}.md")).exists()
}

fn graph_is_clean(env: &TestEnv) {
    let out = env.run(["graph", "check"]).output();
    assert_eq!(out.code, 0, "graph check is clean: {out}");
}

// See: issue 18
#[test]
fn issue_18_the_hana_sequence_makes_one_person_with_her_relation_to_the_user() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "remember that my sister's name is Hana"]);
    assert!(exists(&env, "person--hana"), "a person, not a concept");
    assert!(!exists(&env, "concept--hana"));
    let hana = entity(&env, "person--hana");
    assert!(hana.contains("- User's sister's name is Hana\n"), "{hana}");
    assert!(hana.contains("- sibling-of: [[person--user]]"), "{hana}");
    assert!(entity(&env, "person--user").contains("- sibling-of: [[person--hana]]"));

    env.mutate(["hear", "remember that my sister Hana lives in Kyoto"]);
    env.mutate(["hear", "remember that Hana loves matcha"]);
    assert!(!exists(&env, "concept--hana"), "a later mention reuses person--hana");
    let hana = entity(&env, "person--hana");
    assert!(hana.contains("- lives-in: [[place--kyoto]]"), "{hana}");
    assert!(hana.contains("- Hana loves matcha\n"), "{hana}");
    assert_eq!(hana.matches("- sibling-of: [[person--user]]").count(), 1, "{hana}");
    graph_is_clean(&env);
}

// See: issue 18
#[test]
fn issue_18_honorifics_and_possessives_stay_out_and_things_are_not_people() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "remember that Dr. Suzuki is my dentist"]);
    assert!(!exists(&env, "concept--dr") && !exists(&env, "person--dr-suzuki"));
    let suzuki = entity(&env, "person--suzuki");
    assert!(suzuki.contains("- Dr. Suzuki is the user's dentist\n"), "{suzuki}");
    assert!(suzuki.contains("- serves: [[person--user]]"), "{suzuki}");
    assert!(entity(&env, "person--user").contains("- served-by: [[person--suzuki]]"));

    env.mutate(["hear", "remember that the printer on floor 2 is called Gutenberg"]);
    assert!(!exists(&env, "person--gutenberg"));
    assert!(exists(&env, "tool--gutenberg"));

    // (Not `mutate`: git quotes a non-ASCII path in `diff-tree`, which its audit check reads.)
    let before = env.commit_count();
    env.run(["hear", "覚えておいて：上司の田中さんは厳しい"]).success();
    assert_eq!(env.commit_count(), before + 1);
    env.assert_clean_tree();
    let tanaka = entity(&env, "person--田中");
    assert!(tanaka.contains("- manages: [[person--user]]"), "{tanaka}");
    graph_is_clean(&env);
}

/// A workspace where `person--user-sister` (remembered before her name was known) is named
/// from another entity, MEMORY.md, an open proposal, an episode and the decay file.
fn sister_workspace() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["hear", "remember that my sister moved to Osaka"]);
    assert!(exists(&env, "person--user-sister"), "{:?}", env.git(&["ls-files", ENTITIES]));
    env.mutate(["remember", "--store", "core", "Visit [[person--user-sister]] every spring"]);
    env.mutate(["remember", "--store", "episodic", "Called [[person--user-sister]] today"]);
    env.run([
        "--actor",
        "subagent:scout",
        "propose",
        "--entity",
        "person--user-sister",
        "--relation",
        "person--user-sister|lives-in|place--osaka",
        "She likes the Osaka aquarium",
    ])
    .success();
    // A use waiting in the access log, not yet folded into the decay file.
    env.run(["recall", "Osaka"]).success();
    env
}

// See: issue 18
#[test]
fn graph_rename_rewrites_every_reference_in_one_commit_and_keeps_the_old_id_as_an_alias() {
    let env = sister_workspace();
    let decay = env.read("memory/meta/decay-scores.json");
    assert!(decay.contains("\"entity:person--user-sister\""), "{decay}");
    let out = env.mutate(["graph", "rename", "person--user-sister", "person--hana", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (v["old"].as_str(), v["new"].as_str()),
        (Some("person--user-sister"), Some("person--hana"))
    );
    let files: Vec<&str> =
        v["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    for f in [
        "memory/graph/entities/person--user-sister.md",
        "memory/graph/entities/person--hana.md",
        "memory/graph/entities/person--user.md",
        "memory/graph/entities/place--osaka.md",
        "MEMORY.md",
        "memory/meta/pending-memories.md",
        "memory/meta/decay-scores.json",
        "memory/graph/index.md",
    ] {
        assert!(files.contains(&f), "{f} rewritten: {files:?}");
    }
    let log = env.git(&["log", "-1", "--format=%s"]);
    assert!(log.starts_with("[RENAME] "), "{log}");
    assert!(
        env.audit_lines()
            .iter()
            .any(|l| l.contains(" | RENAME | memory/graph/entities/person--hana.md | ")),
        "{:#?}",
        env.audit_lines()
    );

    assert!(!exists(&env, "person--user-sister"));
    let hana = entity(&env, "person--hana");
    assert!(hana.starts_with("# person--hana\n"), "{hana}");
    assert!(hana.contains("Aliases: person--user-sister"), "{hana}");
    assert!(hana.contains("- sibling-of: [[person--user]]"), "{hana}");
    assert!(entity(&env, "person--user").contains("- sibling-of: [[person--hana]]"));
    assert!(entity(&env, "place--osaka").contains("- home-of: [[person--hana]]"));
    assert!(hana.contains("- lives-in: [[place--osaka]]"), "{hana}");
    assert!(env.read("MEMORY.md").contains("Visit [[person--hana]] every spring"));
    let pending = env.read("memory/meta/pending-memories.md");
    assert!(pending.contains("- **Entities**: person--hana"), "{pending}");
    assert!(pending.contains("person--hana|lives-in|place--osaka"), "{pending}");
    let decay = env.read("memory/meta/decay-scores.json");
    assert!(
        decay.contains("\"entity:person--hana\"") && !decay.contains("person--user-sister"),
        "{decay}"
    );
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("person--hana") && !index.contains("person--user-sister"), "{index}");
    // Episodes are append-only: the old id stays there, and still resolves.
    let episodes = env.git(&["grep", "-l", "person--user-sister", "--", "memory/episodes"]);
    assert!(!episodes.trim().is_empty(), "the episode keeps its words");
    let shown = env.run(["graph", "show", "person--user-sister", "--json"]).success();
    assert!(shown.stdout.contains("\"id\": \"person--hana\""), "{shown}");
    graph_is_clean(&env);
    // "my sister" now means Hana: the alias routes the role to her.
    env.mutate(["hear", "remember that my sister loves jazz"]);
    assert!(!exists(&env, "person--user-sister"));
    assert!(entity(&env, "person--hana").contains("- User's sister loves jazz\n"));
    // The proposal, approved, writes to the renamed entity.
    env.run(["pending", "approve", "1", "--actor", "user:sam"]).success();
    assert!(entity(&env, "person--hana").contains("She likes the Osaka aquarium"));
    assert!(!exists(&env, "person--user-sister"));
    env.assert_clean_tree();
}

// See: issue 18
#[test]
fn graph_retype_moves_a_concept_to_a_person_in_one_commit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--entity", "concept--hana", "Hana plays the cello"]);
    env.mutate([
        "remember",
        "Bob knows Hana",
        "--relation",
        "person--bob|relates-to|concept--hana",
    ]);
    let out = env.mutate(["graph", "retype", "concept--hana", "person"]);
    assert!(out.stderr.contains("concept--hana renamed to person--hana"), "{out}");
    assert!(!exists(&env, "concept--hana"));
    let hana = entity(&env, "person--hana");
    assert!(hana.contains("<!-- Type: person |"), "{hana}");
    assert!(hana.contains("- Hana plays the cello"), "{hana}");
    assert!(hana.contains("- relates-to: [[person--bob]]"), "{hana}");
    assert!(entity(&env, "person--bob").contains("- relates-to: [[person--hana]]"));
    let shown = env.run(["graph", "show", "concept--hana", "--json"]).success();
    assert!(shown.stdout.contains("\"id\": \"person--hana\""), "{shown}");
    graph_is_clean(&env);
}

// See: issue 18
#[test]
fn graph_rename_and_retype_refuse_clearly_and_change_nothing() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--entity", "concept--hana", "Hana plays the cello"]);
    env.mutate(["remember", "--entity", "person--hana", "Hana lives upstairs"]);
    let head = env.head();
    let out = env.run(["graph", "rename", "concept--hana", "person--hana"]).output().code(4);
    assert!(out.stderr.contains("person--hana already exists"), "{out}");
    assert!(out.stderr.contains("`cogmem graph merge person--hana concept--hana`"), "{out}");
    let out = env.run(["graph", "retype", "concept--hana", "person"]).output().code(4);
    assert!(out.stderr.contains("already exists"), "{out}");
    let out = env.run(["graph", "retype", "concept--hana", "persn"]).output().code(1);
    assert!(
        out.stderr.contains("unknown entity type \"persn\"") && out.stderr.contains("person"),
        "{out}"
    );
    let out = env.run(["graph", "rename", "concept--hanna", "person--anna"]).output().code(1);
    assert!(out.stderr.contains("concept--hanna"), "{out}");
    let out = env.run(["graph", "rename", "concept--hana", "Hana"]).output().code(1);
    assert!(out.stderr.contains("invalid entity id"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    env.assert_clean_tree();
    // A file the rename would rewrite has edits nobody committed: refused, the edits kept.
    let edited = format!("{}- Hana moved upstairs\n", entity(&env, "person--hana"));
    env.write("memory/graph/entities/person--hana.md", &edited);
    let out = env.run(["graph", "rename", "person--hana", "person--hanako"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("person--hana.md"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    assert_eq!(entity(&env, "person--hana"), edited);
    assert!(!exists(&env, "person--hanako"));
}

/// A name outside ASCII makes a file named as written, and the change's invariants hold for it
/// (one audit line naming the file as git stores it).
#[test]
fn a_name_in_japanese_script_is_its_file_name() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--actor", "user:me", "--entity", "person--花子", "京都に住んでいる"]);
    assert!(env.read("memory/graph/entities/person--花子.md").contains("京都に住んでいる"));
    assert!(env.read("memory/meta/audit.log").contains("memory/graph/entities/person--花子.md"));
}
