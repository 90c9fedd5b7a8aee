//! `cogmem context`: packs never exceed their budget (counted with tiktoken), and the receipt
//! accounts for every candidate.

use crate::common::TestEnv;

fn workspace() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Sam prefers short answers",
        "--store",
        "core",
        "--section",
        "persona",
    ]);
    env.mutate(["remember", "Atlas ships on Friday", "--store", "core"]);
    for (i, t) in [
        "We chose Postgres for the Atlas project after comparing it with MySQL and SQLite",
        "Alice leads the Atlas frontend and prefers TypeScript",
        "The Atlas staging database lives on db-staging-2",
        "Bob reviewed the Atlas migration plan and asked for a rollback script",
        "Lunch with Carol about the Lisbon offsite",
    ]
    .iter()
    .enumerate()
    {
        env.mutate(["remember", t, "--at", &format!("2026-11-{:02} 10:00", 24 + i)]);
    }
    env.mutate([
        "remember",
        "Alice works on Atlas",
        "--relation",
        "person--alice|works-on|project--atlas",
    ]);
    env
}

/// A workspace of long memories and Japanese text, where token counts and character counts
/// differ most.
fn dense_workspace() -> TestEnv {
    let env = TestEnv::initialized();
    let long = "Atlas database migration notes: ".to_owned()
        + &"the rollback script restores the snapshot, then replays the write-ahead log; "
            .repeat(40);
    env.mutate(["remember", &long]);
    env.mutate([
        "remember",
        "アトラスのデータベースは東京のサーバーにあります。Alice が担当です。",
    ]);
    env.mutate(["remember", "東京オフィスの会議は毎週月曜日です", "--store", "core"]);
    for i in 0..12 {
        env.mutate([
            "remember",
            &format!("Atlas database review {i}: latency, indexes and the Alice dashboard"),
            "--relation",
            &format!("person--alice|works-on|project--atlas-{i}"),
        ]);
    }
    env
}

#[test]
fn packs_never_exceed_the_budget() {
    for env in [workspace(), dense_workspace(), TestEnv::initialized()] {
        packs_fit(&env);
    }
}

fn packs_fit(env: &TestEnv) {
    for query in [
        None,
        Some("atlas database"),
        Some("Alice"),
        Some("データベース"),
        Some("nothing matches this"),
    ] {
        for budget in [0, 10, 60, 400, 2000] {
            let mut args = vec![
                "context".to_owned(),
                "--json".to_owned(),
                "--budget".to_owned(),
                budget.to_string(),
            ];
            if let Some(q) = query {
                args.push(q.to_owned());
            }
            let out = env.run(&args).success();
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            let used = v["used_tokens"].as_u64().unwrap();
            assert!(used <= budget as u64, "{query:?} {budget}: {used}");
            assert_eq!(v["budget_tokens"], budget);
            let receipt = v["receipt"].as_array().unwrap();
            let selected = receipt.iter().filter(|r| r["decision"] == "selected").count();
            if budget == 0 {
                assert_eq!(selected, 0);
                assert_eq!(v["text"], "");
            }
            for r in receipt {
                assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
                assert!(r["tokens"].as_u64().is_some(), "{r}");
            }
        }
    }
}

#[test]
fn core_first_then_matches_then_entities_and_uses_are_recorded() {
    let env = workspace();
    let out = env.run(["context", "Atlas database", "--budget", "2000", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let text = v["text"].as_str().unwrap();
    assert!(text.starts_with("# Memory\n\n## Core memory\n- Atlas ships on Friday (2026-12-04)\n- Sam prefers short answers\n\n## Relevant memories\n"), "{text}");
    assert!(text.contains("The Atlas staging database lives on db-staging-2"), "{text}");
    let weak = v["receipt"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "episode:2026-11-24:10:00")
        .unwrap();
    assert!(weak["reason"].as_str().unwrap().starts_with("below threshold"), "{weak}");
    let receipt = v["receipt"].as_array().unwrap();
    assert!(
        receipt.iter().any(|r| r["part"] == "entity" && r["decision"] == "selected"),
        "{receipt:#?}"
    );
    assert!(env.read(".cogmem/access.log").contains("\tuse\t"), "selected memories count as uses");
    env.assert_clean_tree();
    // A small budget suppresses what does not fit and says so.
    let out = env.run(["context", "Atlas", "--budget", "40", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(v["receipt"].as_array().unwrap().iter().any(|r| r["reason"] == "over budget"), "{v}");
    let out = env.run(["context", "--budget", "100", "--encoding", "latin1"]).output().code(2);
    assert!(out.stderr.contains("invalid value 'latin1' for '--encoding <ENCODING>'"), "{out}");
}

/// The workspace of issue 18: an entity that is both a search hit and a card, and a tool the
/// project uses that is later superseded.
pub(crate) fn ci_workspace() -> TestEnv {
    let env = TestEnv::initialized();
    for fact in [
        "Atlas is the billing platform rewrite, written in Rust",
        "Atlas deploys every Friday after the tests pass",
    ] {
        env.mutate(["remember", fact, "--entity", "project--atlas"]);
    }
    env.mutate([
        "remember",
        "Atlas builds run on the shared CI cluster",
        "--entity",
        "project--atlas",
        "--relation",
        "project--atlas|uses|tool--jenkins",
    ]);
    env.mutate([
        "remember",
        "Jenkins runs on the old build server in rack 4",
        "--entity",
        "tool--jenkins",
    ]);
    env.mutate([
        "remember",
        "GitHub Actions runs the workflows in .github/workflows",
        "--entity",
        "tool--github-actions",
    ]);
    env.mutate(["remember", "Atlas deploy broke because the Jenkins agent ran out of disk"]);
    env
}

/// `context --json` for a query: the pack's text and its receipt.
fn pack(env: &TestEnv, args: &[&str]) -> (String, Vec<serde_json::Value>) {
    let mut all = vec!["context", "--json"];
    all.extend_from_slice(args);
    let out = env.run(&all).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    (v["text"].as_str().unwrap().to_owned(), v["receipt"].as_array().unwrap().clone())
}

fn receipt_of<'a>(receipt: &'a [serde_json::Value], id: &str) -> Vec<&'a serde_json::Value> {
    receipt.iter().filter(|r| r["id"] == id).collect()
}

/// An entity found by the query whose card does not fit, and that the episodes found also name:
/// the receipt does not list its card again, left out for the same reason, for each memory that
/// names it.
#[test]
fn an_entity_found_and_named_is_in_the_receipt_once_per_form() {
    let env = ci_workspace();
    let mut over = 0;
    for budget in ["40", "60", "90", "2000"] {
        let (_, receipt) = pack(&env, &["Atlas deploy", "--budget", budget]);
        let mut seen = std::collections::HashSet::new();
        for r in &receipt {
            let key = (r["id"].to_string(), r["part"].to_string(), r["reason"].to_string());
            assert!(seen.insert(key), "budget {budget}: twice in the receipt: {r}\n{receipt:#?}");
        }
        let atlas = receipt_of(&receipt, "entity:project--atlas");
        over += atlas.iter().filter(|r| r["reason"] == "over budget").count();
    }
    assert!(over > 0, "some budget leaves the card out");
}

#[test]
fn the_query_may_come_from_stdin_as_for_search() {
    let env = workspace();
    let args = ["context", "--budget", "2000", "--json"];
    let given = env.run([&args[..], &["Atlas database"]].concat()).success().stdout;
    let piped = env.run([&args[..], &["-"]].concat()).stdin("Atlas database\n").success().stdout;
    let text = |out: &str| serde_json::from_str::<serde_json::Value>(out).unwrap()["text"].clone();
    assert_eq!(text(&piped), text(&given));
}

#[test]
fn an_entity_found_by_the_query_goes_in_once_as_its_card() {
    let env = ci_workspace();
    let (text, receipt) = pack(&env, &["Atlas deploy"]);
    for fact in ["Atlas deploys every Friday after the tests pass", "written in Rust"] {
        assert_eq!(text.matches(fact).count(), 1, "{fact}:\n{text}");
    }
    assert!(text.contains("### project--atlas\n- Atlas is the billing platform"), "{text}");
    assert!(!text.contains("[entity:project--atlas]"), "no one-line form beside the card:\n{text}");
    let atlas = receipt_of(&receipt, "entity:project--atlas");
    let selected: Vec<_> = atlas.iter().filter(|r| r["decision"] == "selected").collect();
    assert_eq!(selected.len(), 1, "{atlas:#?}");
    assert_eq!(selected[0]["part"], "entity");
    assert!(selected[0]["reason"].as_str().unwrap().starts_with("matches the query (score"));
    for r in atlas.iter().filter(|r| r["decision"] == "suppressed") {
        assert_eq!(r["duplicate_of"], "entity:project--atlas", "{r}");
        assert!(r["reason"].as_str().unwrap().starts_with("duplicate of"), "{r}");
    }
    // The episode names no entity and matches best: it is in, once.
    assert_eq!(text.matches("ran out of disk").count(), 1, "{text}");
}

#[test]
fn a_superseded_tool_is_history_never_current() {
    let env = ci_workspace();
    env.mutate(["supersede", "tool--jenkins", "--by", "tool--github-actions"]);
    let (text, receipt) = pack(&env, &["Atlas deploy"]);
    assert!(!text.contains("- uses: [[tool--jenkins]]"), "shown as current:\n{text}");
    assert!(
        text.contains(
            "- formerly uses: [[tool--jenkins]] (tool--jenkins superseded by tool--github-actions on 2026-12-01)"
        ),
        "{text}"
    );
    assert!(!text.contains("### tool--jenkins"), "{text}");
    let jenkins = receipt_of(&receipt, "entity:tool--jenkins");
    assert!(!jenkins.is_empty(), "{receipt:#?}");
    for r in jenkins {
        assert_eq!(r["decision"], "suppressed", "{r}");
        assert!(
            r["reason"].as_str().unwrap().starts_with("superseded by tool--github-actions on "),
            "{r}"
        );
    }
    // Found by its name, the replacement says what it replaced; the old tool stays out.
    let (text, _) = pack(&env, &["jenkins"]);
    assert!(text.contains("### tool--github-actions\n"), "{text}");
    assert!(!text.contains("### tool--jenkins"), "{text}");
    assert!(!text.contains("- uses: [[tool--jenkins]]"), "{text}");
}

#[test]
fn a_closed_relation_is_history_and_an_entity_with_only_history_has_no_card() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Alice moved to Lisbon for the Atlas team",
        "--entity",
        "person--alice",
        "--relation",
        "person--alice|lives-in|place--lisbon",
    ]);
    env.set_now("2026-12-10T09:00:00Z");
    env.mutate([
        "remember",
        "Alice moved to Porto",
        "--entity",
        "person--alice",
        "--relation",
        "person--alice|lives-in|place--porto",
    ]);
    assert!(env.read("memory/graph/entities/person--alice.md").contains("(until 2026-12-10)"));
    let (text, receipt) = pack(&env, &["Alice"]);
    assert!(text.contains("- lives-in: [[place--porto]] (since 2026-12-10)"), "{text}");
    assert!(
        text.contains("- formerly lives-in: [[place--lisbon]] (2026-12-01 to 2026-12-10)"),
        "{text}"
    );
    assert!(!text.contains("- lives-in: [[place--lisbon]]"), "{text}");
    // Lisbon's only line is the closed back-link: nothing current, no card.
    assert!(!text.contains("### place--lisbon"), "{text}");
    let lisbon = receipt_of(&receipt, "entity:place--lisbon");
    assert!(!lisbon.is_empty(), "{receipt:#?}");
    for r in lisbon {
        assert_eq!(r["decision"], "suppressed", "{r}");
        assert!(r["reason"].as_str().unwrap().starts_with("nothing current"), "{r}");
    }
}

#[test]
fn no_card_for_an_empty_entity_or_one_named_only_by_memories_left_out() {
    let env = TestEnv::initialized();
    env.write(
        "memory/graph/entities/tool--pager.md",
        "# tool--pager\n<!-- Type: tool | Created: 2026-12-01 | Last updated: 2026-12-01 -->\n\n\
         ## Summary\n\n## Facts\n\n## Timeline\n\n## Open Questions\n\n## Relations\n",
    );
    env.mutate(["sync"]);
    env.mutate(["remember", "Dana runs the Lisbon office", "--entity", "person--dana"]);
    env.mutate(["remember", "The rollback of the billing release paged [[tool--pager]] at night"]);
    env.mutate(["remember", "Lunch with [[person--dana]] about the offsite, and a rollback story"]);
    env.mutate(["remember", "The rollback script restores the billing snapshot for a rollback"]);
    let (text, receipt) = pack(&env, &["billing rollback", "--threshold", "0.5"]);
    assert!(text.contains("paged [[tool--pager]]"), "{text}");
    assert!(!text.contains("### tool--pager"), "an empty card:\n{text}");
    let pager = receipt_of(&receipt, "entity:tool--pager");
    assert_eq!(pager.len(), 1, "{receipt:#?}");
    assert_eq!(pager[0]["reason"], "empty: no summary, fact or relation", "{receipt:#?}");
    // The lunch matches weakly and stays out, so Dana's card has no memory to go with.
    let lunch =
        receipt.iter().find(|r| r["reason"].as_str().unwrap().starts_with("below threshold"));
    assert!(lunch.is_some(), "{receipt:#?}");
    assert!(!text.contains("### person--dana"), "{text}");
    let dana = receipt_of(&receipt, "entity:person--dana");
    assert_eq!(dana.len(), 1, "{receipt:#?}");
    assert!(
        dana[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("named only by left-out memories: episode:"),
        "{receipt:#?}"
    );
}

#[test]
fn a_relation_on_one_card_is_not_said_again_from_its_other_end() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Atlas is the billing rewrite", "--entity", "project--atlas"]);
    env.mutate([
        "remember",
        "Alice leads the frontend team",
        "--entity",
        "person--alice",
        "--relation",
        "person--alice|works-on|project--atlas",
    ]);
    let (text, receipt) = pack(&env, &["billing rewrite"]);
    assert!(text.contains("### project--atlas\n"), "{text}");
    assert!(text.contains("- worked-on-by: [[person--alice]]"), "{text}");
    assert!(text.contains("### person--alice\n- Alice leads the frontend team\n"), "{text}");
    assert!(!text.contains("- works-on: [[project--atlas]]"), "said twice:\n{text}");
    let alice = receipt_of(&receipt, "entity:person--alice");
    assert_eq!(alice[0]["decision"], "selected", "{alice:#?}");
    assert_eq!(alice[0]["repeats"][0]["duplicate_of"], "entity:project--atlas", "{alice:#?}");
}
