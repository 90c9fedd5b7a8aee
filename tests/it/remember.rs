//! `cogmem remember`: every store's file format, one commit per change, duplicates, JSON.

use crate::common::TestEnv;

#[test]
fn episode_entry_is_appended_to_the_day_file() {
    let env = TestEnv::initialized();
    let out = env.mutate([
        "remember",
        "Alice prefers tea",
        "--tags",
        "drinks, alice",
        "--confidence",
        "medium",
    ]);
    assert_eq!(
        out.stderr,
        "remembered (commit [HASH])\n  episodic   episode:2026-12-01:09:00  memory/episodes/2026-12-01.md:6\n  \
         semantic   entity:person--alice  memory/graph/entities/person--alice.md:1\n"
    );
    env.mutate(["remember", "Bob prefers coffee", "--type", "preference", "--at", "09:00"]);
    assert_eq!(
        env.read("memory/episodes/2026-12-01.md"),
        "# 2026-12-01 — Episode Log\n\n\
         <!-- Append-only: new entries go at the end; entries already written are never edited. -->\n\
         <!-- Entry: ## HH:MM | TYPE | confidence:LEVEL | tags:[a, b] — TYPE is decision, fact, preference, task, event, emotion or correction -->\n\n\
         ## 09:00 | fact | confidence:medium | tags:[drinks, alice]\nAlice prefers tea\n\
         <!-- entities: [[person--alice]] -->\n\n\
         ## 09:00 | preference | confidence:high | tags:[]\nBob prefers coffee\n\
         <!-- entities: [[person--bob]] -->\n"
    );
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    let e = &decay["entries"]["episode:2026-12-01:09:00:2"];
    assert_eq!(e["store"], "episodic");
    assert_eq!(e["access_count"], 1);
    assert_eq!(e["current_score"], 0.8);
    assert_eq!(e["created"], "2026-12-01T09:00:02Z");
}

#[test]
fn at_accepts_relative_days() {
    // The clock is at 2026-12-01T09:00Z; a day without a time is dated at midnight.
    let env = TestEnv::initialized();
    let out = env.mutate(["remember", "Lunch with Dan", "--at", "yesterday"]);
    assert!(
        out.stderr.contains("episode:2026-11-30:00:00  memory/episodes/2026-11-30.md:6"),
        "{out}"
    );
    let out = env.mutate(["remember", "Dentist appointment", "--at", "tomorrow"]);
    assert!(
        out.stderr.contains("episode:2026-12-02:00:00  memory/episodes/2026-12-02.md:6"),
        "{out}"
    );
    let out = env.mutate(["remember", "Call with Erin", "--at", "2h"]);
    assert!(
        out.stderr.contains("episode:2026-12-01:07:00  memory/episodes/2026-12-01.md:6"),
        "{out}"
    );
    assert!(
        env.read("memory/episodes/2026-11-30.md")
            .ends_with("## 00:00 | fact | confidence:high | tags:[]\nLunch with Dan\n<!-- entities: [[person--dan]] -->\n")
    );
}

#[test]
fn commit_message_and_author_follow_the_format() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "We chose Postgres",
        "--type",
        "decision",
        "--store",
        "episodic",
        "--store",
        "core",
        "--actor",
        "bot:trigger-remember",
    ]);
    let log = env.git(&["log", "-1", "--format=%an <%ae>|%ad|%B", "--date=iso-strict"]);
    assert_eq!(
        log,
        "bot:trigger-remember <bot.trigger-remember@cogmem.invalid>|2026-12-01T09:00:01Z|\
         [CREATE] memory/episodes/2026-12-01.md +4 — We chose Postgres\n\n\
         Actor: bot:trigger-remember\nApproval: auto\nTrigger: cogmem remember\n\n"
    );
    let lines = env.audit_lines();
    assert_eq!(
        lines[lines.len() - 5..],
        [
            "2026-12-01T09:00:01Z | CREATE | memory/episodes/2026-12-01.md | bot:trigger-remember | auto | 09:00 decision: We chose Postgres",
            "2026-12-01T09:00:01Z | CREATE | memory/graph/entities/tool--postgres.md | bot:trigger-remember | auto | new entity tool--postgres",
            "2026-12-01T09:00:01Z | EDIT | MEMORY.md | bot:trigger-remember | auto | Active Context: We chose Postgres",
            "2026-12-01T09:00:01Z | EDIT | memory/graph/index.md | bot:trigger-remember | auto | regenerated from the entity files",
            "2026-12-01T09:00:01Z | EDIT | memory/meta/decay-scores.json | bot:trigger-remember | auto | decay entries for episode:2026-12-01:09:00, entity:tool--postgres, core:active-context:f640b654",
        ]
    );
}

#[test]
fn entity_fact_relation_and_registry() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice prefers tea", "--entity", "person--alice"]);
    env.mutate([
        "remember",
        "Alice works on Atlas",
        "--relation",
        "person--alice|works-on|project--atlas",
    ]);
    assert_eq!(
        env.read("memory/graph/entities/person--alice.md"),
        "# person--alice\n<!-- Type: person | Created: 2026-12-01 | Last updated: 2026-12-01 -->\n\
         <!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->\n\n## Summary\n\n## Facts\n\n\
         - Alice prefers tea\n- Alice works on Atlas\n\n## Timeline\n\n## Open Questions\n\n## Relations\n\n\
         - works-on: [[project--atlas]] (since 2026-12-01)\n"
    );
    // The inverse is written on the target, so the link can be followed from both ends.
    assert!(
        env.read("memory/graph/entities/project--atlas.md")
            .ends_with("- worked-on-by: [[person--alice]] (since 2026-12-01)\n")
    );
    assert!(env.path("memory/graph/entities/project--atlas.md").is_file());
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("| person--alice | person | alice | entities/person--alice.md | 1.00 |\n| project--atlas | project | atlas | entities/project--atlas.md | 1.00 |\n"), "{index}");
    assert!(
        index.contains("| person--alice | works-on | project--atlas | 1.0 | 2026-12-01 | — |\n"),
        "{index}"
    );
    assert!(
        index.ends_with(
            "| project--atlas | worked-on-by | person--alice | 1.0 | 2026-12-01 | — |\n"
        ),
        "{index}"
    );
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(decay["entries"]["entity:project--atlas"]["type_weight"], 1.2);
    assert_eq!(decay["entries"]["entity:project--atlas"]["current_score"], 1.0, "clamped to 1");
}

#[test]
fn procedure_from_stdin_and_more_steps_later() {
    let env = TestEnv::initialized();
    let out = env
        .run(["remember", "--store", "procedural", "-"])
        .stdin("Release the app:\n1. run the tests\n2. tag the release\n")
        .success();
    assert!(
        out.stderr.contains("procedure:release-the-app  memory/procedures/release-the-app.md:1"),
        "{out}"
    );
    env.assert_clean_tree();
    env.mutate(["remember", "push the tag", "--store", "procedural", "--title", "Release the app"]);
    let text = env.read("memory/procedures/release-the-app.md");
    assert_eq!(
        text,
        "# Release the app\n<!-- Type: procedure | Learned: 2026-12-01 | Last used: 2026-12-01 -->\n\
         <!-- Decay score: 1.00 | Access count: 1 -->\n\n## Trigger\n<!-- When to use this procedure. -->\n\n\
         ## Steps\n1. run the tests\n2. tag the release\n3. push the tag\n\n## Notes\n\n## Learned From\n\
         - 2026-12-01 09:00 — remembered by test-agent\n"
    );
    // Steps given again with one new: the audit line names only the one added.
    env.run(["remember", "--store", "procedural", "-"])
        .stdin("Release the app:\n1. run the tests\n2. announce it\n")
        .success();
    let audit = env.read("memory/meta/audit.log");
    let last = audit.lines().rfind(|l| l.contains("release-the-app.md")).unwrap();
    assert!(last.ends_with("| steps added: announce it"), "{last}");
}

#[test]
fn vault_note_is_pinned() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "The spare key is under the blue pot",
        "--store",
        "vault",
        "--tags",
        "home",
    ]);
    let note = env.read("memory/vault/the-spare-key-is-under-the-blue-pot.md");
    assert_eq!(
        note,
        "# The spare key is under the blue pot\n<!-- Pinned: yes | Created: 2026-12-01 | Tags: home -->\n\nThe spare key is under the blue pot\n"
    );
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    let e = &decay["entries"]["vault:the-spare-key-is-under-the-blue-pot"];
    assert_eq!((e["pinned"].as_bool(), e["current_score"].as_f64()), (Some(true), Some(1.0)));
    // Same title, different text: a second note, not an overwrite.
    env.mutate([
        "remember",
        "It moved to the shed",
        "--store",
        "vault",
        "--title",
        "The spare key is under the blue pot",
    ]);
    assert!(env.path("memory/vault/the-spare-key-is-under-the-blue-pot-2.md").is_file());
}

#[test]
fn core_bullet_goes_to_its_section() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Prefers short answers", "--store", "core", "--section", "persona"]);
    env.mutate(["remember", "Allergic to peanuts", "--store", "core", "--store", "vault"]);
    let md = env.read("MEMORY.md");
    assert!(md.contains("what to avoid -->\n- Prefers short answers\n\n## Critical Facts"), "{md}");
    assert!(md.ends_with("pinned by the user -->\n- Allergic to peanuts\n"), "{md}");
}

#[test]
fn one_remember_touching_several_stores_is_one_commit() {
    let env = TestEnv::initialized();
    let out = env.mutate([
        "remember",
        "Atlas launches on March 3",
        "--store",
        "episodic",
        "--store",
        "core",
        "--store",
        "vault",
        "--entity",
        "project--atlas",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let stores: Vec<&str> =
        v["written"].as_array().unwrap().iter().map(|u| u["store"].as_str().unwrap()).collect();
    assert_eq!(stores, ["episodic", "core", "vault", "semantic"]);
    assert_eq!(v["commit"], "[HASH]");
    assert_eq!(
        env.git(&["show", "--name-only", "--format=", "HEAD"]).lines().count(),
        v["files"].as_array().unwrap().len()
    );
    for u in v["written"].as_array().unwrap() {
        let path = u["path"].as_str().unwrap();
        let line = u["line"].as_u64().unwrap() as usize;
        assert!(env.read(path).lines().nth(line - 1).is_some(), "{u}");
    }
    assert!(v["files"].as_array().unwrap().iter().any(|f| f == "memory/meta/audit.log"));
}

#[test]
fn exact_duplicates_are_not_written_twice() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Alice prefers tea",
        "--entity",
        "person--alice",
        "--store",
        "episodic",
    ]);
    let head = env.head();
    let out = env
        .run(["remember", "Alice  prefers tea", "--entity", "person--alice", "--store", "episodic"])
        .success();
    assert_eq!(
        out.stderr,
        "already remembered, not written again:\n  episodic   episode:2026-12-01:09:00  memory/episodes/2026-12-01.md:6\n  semantic   entity:person--alice  memory/graph/entities/person--alice.md:9\n"
    );
    assert_eq!(env.head(), head, "no commit");
    // Partly new: only the new part is written.
    let out = env.mutate([
        "remember",
        "Alice prefers tea",
        "--entity",
        "person--alice",
        "--entity",
        "person--bob",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["duplicates"][0]["id"], "entity:person--alice");
    assert_eq!(v["written"][0]["id"], "entity:person--bob");
}

#[test]
fn japanese_text_is_kept_verbatim() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "田中さんは緑茶が好き", "--entity", "person--tanaka"]);
    assert!(
        env.read("memory/graph/entities/person--tanaka.md").contains("- 田中さんは緑茶が好き\n")
    );
}

#[test]
fn markdown_in_text_cannot_break_the_file() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "line one\n## 10:00 | fact | confidence:high | tags:[]\nfake\n---"]);
    let text = env.read("memory/episodes/2026-12-01.md");
    assert!(
        text.ends_with("line one\n\\## 10:00 | fact | confidence:high | tags:[]\nfake\n\\---\n"),
        "{text}"
    );
    let out = env.run(["status", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["counts"]["episodes"], 1, "the escaped heading is not a second entry");
}

#[test]
fn workspace_is_found_from_a_subfolder_and_by_flag_or_env() {
    let env = TestEnv::initialized();
    let sub = env.path("memory/graph");
    env.run(["remember", "from a subfolder"]).current_dir(&sub).success();
    env.run(["remember", "by flag", "--workspace", env.root.to_str().unwrap()])
        .current_dir(&env.home)
        .success();
    env.run(["remember", "by env"])
        .env("COGMEM_WORKSPACE", &env.root)
        .current_dir(&env.home)
        .success();
    assert_eq!(env.commit_count(), 4);
    env.assert_clean_tree();
    // A relative path names the folder as the system resolves it, without `..`.
    let out = env.run(["--workspace", "../..", "status", "--json"]).current_dir(&sub).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["workspace"], "[TMP]/ws", "{out}");
}

/// Vault duplicates are found through a cache of body hashes keyed by each note's size and
/// mtime: a note written or changed by hand after the cache was made is read again.
#[test]
fn vault_duplicates_are_found_also_among_notes_written_by_hand() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "The spare key is under the blue pot", "--store", "vault"]);
    let head = env.head();
    let out = env.run(["remember", "The spare key  is under the blue pot", "--store", "vault"]);
    let out = out.success();
    assert!(out.stderr.contains("already remembered"), "{out}");
    assert_eq!(env.head(), head, "no commit");
    assert!(env.path(".cogmem/vault-bodies.tsv").exists());
    // A hand-written note, then a note changed by hand to hold another text.
    env.write("memory/vault/gate.md", "# Gate\n\nThe gate code is written on the shed door\n");
    let text = env.read("memory/vault/the-spare-key-is-under-the-blue-pot.md");
    env.write(
        "memory/vault/the-spare-key-is-under-the-blue-pot.md",
        &text.replace("blue pot", "red pot"),
    );
    env.mutate(["sync"]);
    let head = env.head();
    let out =
        env.run(["remember", "The gate code is written on the shed door", "--store", "vault"]);
    assert!(out.success().stderr.contains("vault:gate"), "found the hand-written note");
    let out = env.run(["remember", "The spare key is under the red pot", "--store", "vault"]);
    assert!(out.success().stderr.contains("already remembered"), "found the changed note");
    assert_eq!(env.head(), head, "no commit");
    // The old text is no longer in the vault: it is new again.
    env.mutate(["remember", "The spare key is under the blue pot", "--store", "vault"]);
}

/// The same statement with another case or a closing stop is already remembered: the audit of
/// 2026-12-06 found "User prefers tea", "User prefers tea." and "user prefers tea" as three
/// MEMORY.md bullets, each taking its share of the core budget.
#[test]
fn a_closing_stop_or_another_case_is_not_a_new_memory() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Prefers short answers", "--store", "core"]);
    env.mutate(["remember", "Alice likes jazz", "--entity", "person--alice"]);
    let head = env.head();
    for (text, store) in [
        ("Prefers short answers.", ["--store", "core"]),
        ("prefers SHORT answers!", ["--store", "core"]),
        ("alice likes jazz.", ["--entity", "person--alice"]),
    ] {
        let out = env.run(["remember", text, store[0], store[1]]).success();
        assert!(out.stderr.contains("already remembered, not written again"), "{text}: {out}");
    }
    assert_eq!(env.head(), head);
    assert_eq!(env.read("MEMORY.md").to_lowercase().matches("prefers short answers").count(), 1);
    // A question is not the statement.
    env.mutate(["remember", "Prefers short answers?", "--store", "core"]);
}
