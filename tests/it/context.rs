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
    let out = env.run(["context", "--budget", "100", "--encoding", "latin1"]).output().code(1);
    assert!(out.stderr.contains("unknown encoding"), "{out}");
}
