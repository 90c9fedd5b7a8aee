//! `cogmem hear` and `cogmem route`: triggers acted on through the real binary.

use crate::common::TestEnv;

/// The cognitive-memory skill's own example: semantic store and core memory, one commit.
#[test]
fn skill_example_writes_semantic_and_core_in_one_commit() {
    let env = TestEnv::initialized();
    let out = env.mutate(["hear", "--json", "Remember that I prefer TypeScript over JavaScript."]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], "remember");
    assert_eq!(v["phrase"], "Remember that");
    assert_eq!(v["content"], "I prefer TypeScript over JavaScript.");
    assert_eq!(v["routing"]["stores"], serde_json::json!(["semantic", "core"]));
    assert_eq!(v["routing"]["core_update"], true);
    assert_eq!(v["action"]["type"], "remembered");
    let msg = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(msg.starts_with("bot:trigger-remember\n"), "{msg}");
    assert!(msg.contains("Trigger: user said \"Remember that\""), "{msg}");
    assert!(env.read("MEMORY.md").contains("- User prefers TypeScript over JavaScript.\n"));
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("- User prefers TypeScript over JavaScript.\n"), "{user}");
    assert!(user.contains("- prefers: [[tool--typescript]] (since 2026-12-01)\n"), "{user}");
    let audit = env.audit_lines();
    assert!(
        audit.iter().any(|l| l.contains("| EDIT | MEMORY.md | bot:trigger-remember | auto |")),
        "{audit:#?}"
    );
}

#[test]
fn ordinary_messages_change_nothing() {
    let env = TestEnv::initialized();
    let head = env.head();
    for m in [
        "I remember when we met",
        "reflect the changes in the config",
        "Remember the Titans is a film",
    ] {
        let out = env.run(["hear", "--json", m]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["trigger"], serde_json::Value::Null, "{m}");
        assert_eq!(v["action"]["type"], "none", "{m}");
    }
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

/// Requests the phrase rules miss, heard by the learned model (issue 18): each is written in one
/// commit with the model's certainty in `--json` and the reason in text, the request sentence
/// kept out of the memory when it is bare; plain statements no one asked to keep, said the way
/// the hook hears them, stay ordinary.
#[test]
fn issue_18_the_learned_model_hears_what_the_rules_miss_and_not_plain_statements() {
    let env = TestEnv::initialized();
    let before = env.commit_count();
    let out = env
        .run([
            "hear",
            "--json",
            "We picked Hetzner over AWS for the side project because of cost. Please record that decision.",
        ])
        .success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], "remember", "{v}");
    assert!(v["learned"].as_u64().is_some_and(|p| (60..=100).contains(&p)), "{v}");
    assert_eq!(v["content"], "We picked Hetzner over AWS for the side project because of cost.");
    assert_eq!(v["action"]["type"], "remembered", "{v}");
    assert_eq!(env.commit_count(), before + 1);
    env.assert_clean_tree();

    let out = env
        .run(["hear", "--dry-run", "vaultに入れといて。私の許可なしに外部へメールを送信しないこと"])
        .success();
    assert!(out.stdout.contains("trigger: remember\n"), "{out}");
    assert!(out.stdout.contains("because the learned model is"), "{out}");
    assert!(out.stdout.contains("content: 私の許可なしに外部へメールを送信しないこと\n"), "{out}");
    // The request's own words ask for the vault, though the model heard them.
    assert!(out.stdout.contains("stores:  core, vault\n"), "{out}");

    let head = env.head();
    for m in [
        "I'm flying to Tokyo next week",
        "my sister's birthday is June 3rd",
        "明日は歯医者なんだよね",
        "we use Postgres at work",
        "Keep in mind that the table has 40 rows when you summarize it.",
        "Save this as a PDF please",
    ] {
        let out = env.run(["hear", "--json", m]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["trigger"], serde_json::Value::Null, "{m}: {v}");
    }
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn dry_run_routes_but_writes_nothing() {
    let env = TestEnv::initialized();
    let head = env.head();
    let out = env
        .run(["hear", "--dry-run", "hey, don't forget: we decided to ship Atlas on Friday"])
        .success();
    assert!(out.stdout.contains("trigger: remember\n"), "{out}");
    assert!(out.stdout.contains("stores:  episodic, semantic\n"), "{out}");
    assert!(out.stdout.contains("dry run: nothing written"), "{out}");
    assert_eq!(env.head(), head);
}

#[test]
fn forget_asks_first_and_recall_reads() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    let head = env.head();
    let out = env.run(["hear", "--json", "please forget about Alice"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], "forget");
    assert_eq!(v["action"]["type"], "confirm_forget");
    assert_eq!(v["action"]["candidates"][0]["id"], "entity:person--alice");
    assert_eq!(v["action"]["command"], "cogmem forget --id entity:person--alice --yes");
    assert_eq!(env.head(), head, "nothing forgotten without confirmation");
    let out = env.run(["hear", "--json", "What do you remember about Alice?"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], "recall");
    assert_eq!(v["action"]["results"][0]["id"], "entity:person--alice");
    // A known entity makes a "know about" question a recall, in any case.
    let out = env.run(["hear", "--json", "what do you know about alice?"]).success();
    assert!(out.stdout.contains("\"trigger\": \"recall\""), "{out}");
    assert_eq!(env.head(), head);
}

/// "Forget that my work email is …" found the user's entity by that one fact, and `hear` offered
/// `forget --id entity:person--user --yes` as the single clear match: confirming it forgot every
/// fact about the user (the audit of 2026-12-06). The fact is a candidate of its own now, ahead
/// of its entity, and the ready command (and MCP call) forgets that fact alone; a request naming
/// the entity still gets the entity's.
#[test]
fn forgetting_one_fact_offers_that_fact_not_the_whole_entity() {
    let env = TestEnv::initialized();
    for fact in [
        "Remember that I am allergic to penicillin",
        "Remember that my work email is sam@acme.io",
        "Remember that I live in Leeds",
    ] {
        env.mutate(["hear", fact]);
    }
    let head = env.head();
    let out = env.run(["hear", "--json", "forget that my work email is sam@acme.io"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let fact = "entity:person--user:facts:[HASH]";
    assert_eq!(v["action"]["candidates"][0]["id"], fact, "{out}");
    assert!(v["action"]["candidates"][0]["line"].as_u64().unwrap() > 1, "{out}");
    assert!(v["action"]["candidates"][0]["excerpt"].as_str().unwrap().contains("sam@acme.io"));
    assert_eq!(v["action"]["candidates"][1]["id"], "entity:person--user", "{out}");
    assert_eq!(v["action"]["command"], format!("cogmem forget --id {fact} --yes"), "{out}");
    assert!(v["action"].get("whole_entity").is_none(), "{out}");
    let out = env.run(["hear", "forget that my work email is sam@acme.io"]).success();
    assert!(
        out.stdout.contains(&format!("confirm with: cogmem forget --id {fact} --yes")),
        "{out}"
    );
    assert_eq!(env.head(), head, "nothing forgotten");

    // The command forgets that fact and nothing else.
    env.mutate(["forget", "--id", &env.bullet_id("person--user", "sam@acme.io"), "--yes"]);
    let card = env.read("memory/graph/entities/person--user.md");
    assert!(!card.contains("sam@acme.io") && card.contains("penicillin"), "{card}");
    assert!(card.contains("Leeds"), "{card}");

    // Naming the entity itself is asking for the entity.
    env.mutate(["remember", "Bob is vegan", "--entity", "person--bob"]);
    env.mutate(["remember", "Bob is allergic to cats", "--entity", "person--bob"]);
    let out = env.run(["hear", "--json", "please forget Bob"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["action"]["command"], "cogmem forget --id entity:person--bob --yes", "{out}");
    assert!(v["action"].get("whole_entity").is_none(), "{out}");

    // Words that several of Bob's facts hold name no one fact: the entity is found by its facts,
    // with no command, and the advice says how to forget one of them.
    let out = env.run(["hear", "--json", "forget that Bob is vegan and allergic"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["action"]["command"], serde_json::Value::Null, "{out}");
}

#[test]
fn reflect_and_goodnight_only_answer() {
    let env = TestEnv::initialized();
    let out = env.run(["hear", "--json", "Let's reflect on this week"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["action"]["type"], "reflect");
    assert_eq!(v["action"]["available"], true);
    let message = v["action"]["message"].as_str().unwrap();
    assert!(message.contains("next: `cogmem reflect request`"), "{message}");
    let out = env.run(["hear", "--json", "ok, I'm going to sleep. goodnight!"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], "reflect_soft");
    assert_eq!(v["action"]["type"], "ask_user");
    assert_eq!(env.commit_count(), 1);
}

#[test]
fn japanese_remember_from_stdin() {
    let env = TestEnv::initialized();
    let out = env
        .run(["hear", "--json", "-"])
        .stdin("明日の会議は10時だと覚えておいて")
        .output()
        .success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["content"], "明日の会議は10時");
    assert_eq!(v["action"]["type"], "remembered");
    env.assert_clean_tree();
}

#[test]
fn extra_trigger_phrases_come_from_settings() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[triggers]\nremember = [\"jot this\"]\n");
    env.git_commit_all("extra phrase");
    let out = env.mutate(["hear", "--json", "jot this: the gate code is 4417"]);
    assert!(out.stdout.contains("\"content\": \"the gate code is 4417\""), "{out}");
}

#[test]
fn route_prints_routing_and_prompt() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Sam is the user", "--store", "core", "--section", "identity"]);
    let out = env.run(["route", "I prefer tea over coffee"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["store"], "semantic");
    assert!(v["reason"].as_array().unwrap().len() >= 3);
    let out = env
        .run([
            "route",
            "--prompt",
            "--trigger",
            "remember that",
            "--context",
            "talking about drinks",
            "Alice likes tea",
        ])
        .success();
    assert!(out.stdout.contains("CONTENT: Alice likes tea\nTRIGGER: remember that\nCONTEXT: talking about drinks\nCORE MEMORY: Sam is the user\n"), "{out}");
    assert_eq!(env.commit_count(), 2, "route never writes");
}

/// A saved model answer goes back in with `remember --routing`, validated first.
#[test]
fn routing_answer_round_trip() {
    let env = TestEnv::initialized();
    let answer = r#"{"stores": ["semantic", "episodic"], "entities": [{"name": "Alice Smith", "type": "person"}],
        "relations": [{"from": "person--alice-smith", "relation": "lives-in", "to": "place--lisbon"}],
        "tags": ["move"], "confidence": "high", "core_update": false, "summary": "Alice Smith moved to Lisbon.", "type": "event"}"#;
    env.write("answer.json", answer);
    let out = env
        .run(["remember", "--routing", "@answer.json", "Alice moved to Lisbon", "--json"])
        .success();
    std::fs::remove_file(env.path("answer.json")).unwrap();
    env.assert_clean_tree();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["written"][0]["id"], "entity:person--alice-smith");
    assert!(
        env.read("memory/graph/entities/person--alice-smith.md")
            .contains("- Alice Smith moved to Lisbon.\n- lives-in: [[place--lisbon]]\n")
            || env
                .read("memory/graph/entities/person--alice-smith.md")
                .contains("- lives-in: [[place--lisbon]]")
    );
    assert!(env.read("memory/episodes/2026-12-01.md").contains(
        "## 09:00 | event | confidence:high | tags:[move]\nAlice Smith moved to Lisbon.\n"
    ));
    let head = env.head();
    for (bad, msg) in [
        (r#"{"store": "attic"}"#, "error: invalid routing answer: unknown store \"attic\""),
        (
            r#"{"store": "semantic", "entities": ["person--../x"]}"#,
            "error: invalid routing answer: entities: invalid entity id",
        ),
        (r#"{"tags": []}"#, "error: invalid routing answer: missing field `store`"),
        ("{not json", "error: invalid routing answer: line 1:"),
    ] {
        let out = env.run(["remember", "--routing", bad, "text"]).output().code(1);
        assert!(out.stderr.starts_with(msg), "{bad}: {out}");
    }
    assert_eq!(env.head(), head);
}

#[test]
fn subagents_cannot_write_through_hear_and_goodbyes_are_not_content() {
    let env = TestEnv::initialized();
    let out = env
        .run(["hear", "remember that the build is green", "--actor", "subagent:scout"])
        .output()
        .code(4);
    assert!(out.stderr.contains("sub-agents may only propose"), "{out}");
    let out = env
        .run([
            "hear",
            "--dry-run",
            "--json",
            "Remember that my passport expires in May. Goodnight!",
        ])
        .success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["content"], "my passport expires in May.");
}

#[test]
fn procedures_heard_keep_their_steps() {
    let env = TestEnv::initialized();
    env.mutate([
        "hear",
        "Remember this workflow:\n1. run the tests\n2. tag the release\n3. push the tag",
    ]);
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    let proc_file = files
        .lines()
        .find(|l| l.starts_with("memory/procedures/"))
        .expect("a procedure was written");
    let text = env.read(proc_file);
    assert!(text.contains("1. run the tests\n2. tag the release\n3. push the tag\n"), "{text}");
}

#[test]
fn recall_shows_the_facts_not_the_entity_file_header() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    let out = env.run(["hear", "What do you remember about Alice?"]).success();
    assert!(out.stdout.contains("entity:person--alice"), "{out}");
    assert!(out.stdout.contains("Alice moved to Lisbon"), "{out}");
    assert!(!out.stdout.contains("<!--") && !out.stdout.contains("# person--alice"), "{out}");
    let out = env.run(["hear", "--json", "What do you remember about Alice?"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let text = v["action"]["results"][0]["text"].as_str().unwrap();
    assert!(text.contains("Alice moved to Lisbon") && !text.contains("<!--"), "{text}");
}

/// Issue 18: a how-to said in passing and a Japanese preference land in the files they mean,
/// each store with the reason that chose it.
#[test]
fn issue_18_messages_land_where_the_user_meant() {
    let env = TestEnv::initialized();
    let out = env.mutate([
        "hear",
        "--json",
        "note that to renew the certificate you run certbot renew, then reload nginx",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["routing"]["stores"], serde_json::json!(["procedural"]), "{v}");
    let reasons = v["routing"]["reason"].to_string();
    assert!(reasons.contains("store procedural: how to do something, as steps"), "{reasons}");
    let written: Vec<&str> = v["action"]["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap())
        .collect();
    assert_eq!(written.len(), 1, "{v}");
    assert!(written[0].starts_with("memory/procedures/"), "{written:?}");
    assert!(env.read(written[0]).contains("certbot renew"), "{}", env.read(written[0]));
    assert!(!env.path("memory/episodes/2026-12-01.md").exists(), "a how-to is no episode");

    let out = env.mutate(["hear", "--json", "覚えておいて：私の好きな色は青です。"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["routing"]["stores"], serde_json::json!(["semantic", "core"]), "{v}");
    let reasons = v["routing"]["reason"].to_string();
    assert!(
        reasons.contains("store semantic: a preference of the user's (\\\"好き\\\")"),
        "{reasons}"
    );
    assert!(reasons.contains("store core: "), "{reasons}");
    let user = env.read("memory/graph/entities/person--user.md");
    assert!(user.contains("私の好きな色は青です"), "{user}");
    assert!(env.read("MEMORY.md").contains("私の好きな色は青です"), "{}", env.read("MEMORY.md"));
    assert!(!env.path("memory/episodes/2026-12-01.md").exists(), "a preference is no episode");
}

/// A how-to said in one sentence becomes a procedure named by what it does, one step per step:
/// not a procedure titled with the sentence's first eight words and holding it as one step.
#[test]
fn issue_18_a_one_sentence_how_to_is_a_titled_procedure_with_its_steps() {
    let env = TestEnv::initialized();
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "note that to renew the certificate you run certbot renew, then reload nginx",
            "memory/procedures/renew-the-certificate.md",
            &["# Renew the certificate\n", "1. run certbot renew\n2. reload nginx\n"],
        ),
        (
            "remember how to clear the cache: open settings, then storage, then tap clear",
            "memory/procedures/clear-the-cache.md",
            &["# Clear the cache\n", "1. open settings\n2. storage\n3. tap clear\n"],
        ),
        (
            "メモして：バックアップの手順は、まずDBを止めて、次にスナップショットを取る。",
            "memory/procedures/バックアップの手順.md",
            &["# バックアップの手順\n", "1. DBを止めて\n2. スナップショットを取る\n"],
        ),
    ];
    for (message, path, parts) in cases {
        env.run(["hear", message]).output().success();
        let text = env.read(path);
        for part in parts {
            assert!(text.contains(part), "{message}: {part:?} not in {path}:\n{text}");
        }
    }
    env.assert_clean_tree();
}

/// "さっきの話は忘れて" points back: hear offers the memory written last, and forgets nothing.
#[test]
fn a_forget_that_points_back_offers_the_last_memory() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that Alice moved to Lisbon"]);
    // The memory written last: the dentist's episode (whatever the first message wrote).
    let last = env.mutate(["hear", "--json", "覚えておいて：明日は歯医者"]);
    let v: serde_json::Value = serde_json::from_str(&last.stdout).unwrap();
    let last = v["action"]["written"][0]["id"].as_str().unwrap().to_owned();
    assert!(last.starts_with("episode:2026-12-01:09:00"), "{v}");
    let head = env.head();
    for m in ["さっきの話は忘れて", "scratch that"] {
        let out = env.run(["hear", "--json", m]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!((v["trigger"].as_str(), v["content"].as_str()), (Some("forget"), Some("")));
        let ids: Vec<&str> = v["action"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [last.as_str()], "{m}: {v}");
        assert_eq!(v["action"]["command"], format!("cogmem forget --id {last} --yes"), "{m}");
    }
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

// See: issue 20
/// "Scratch that" in a workspace of shards takes the newest use from the search index's
/// summary of its decay caches (a line per cache file) when it vouches for every cache, else
/// from the caches when they are current, and reads only the memories found there; with a
/// cache that is not current (a decay file changed since it was written) it reads the files.
/// All give the same answer. (Every memory file and every shard were read: seconds at 100,000
/// memories; every cache, 100 ms.)
#[cfg(feature = "timings")] // reads which source the answer came from
#[test]
fn issue_20_a_forget_that_points_back_reads_the_decay_caches_when_current() {
    let env = TestEnv::initialized();
    env.import_messages(1010);
    env.set_now("2026-12-02T10:00:00Z");
    let last = env.mutate(["hear", "--json", "Remember that the kiln is fired on Sundays"]);
    let v: serde_json::Value = serde_json::from_str(&last.stdout).unwrap();
    let last = v["action"]["written"][0]["id"].as_str().unwrap().to_owned();
    env.wait_for_index();
    let answer = |env: &TestEnv| {
        let out = env
            .cmd(["hear", "--json", "scratch that"])
            .env("COGMEM_TIMINGS", "1")
            .output()
            .success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let ids: Vec<String> = v["action"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect();
        let source = if out.stderr.contains("forget: the newest use from the index's summary") {
            "summary"
        } else if out.stderr.contains("forget: the newest use from the decay caches") {
            "caches"
        } else {
            "files"
        };
        (ids, source)
    };
    let (ids, source) = answer(&env);
    assert_eq!(source, "summary", "the summary is current after the index update");
    assert!(ids.contains(&last), "{ids:?} {last}");
    // The summary gone (an index written before it existed): the caches answer, the same, and
    // the next refresh writes it again.
    let summary = ".cogmem/index/decay-newest.tsv";
    let kept = env.read(summary);
    std::fs::remove_file(env.path(summary)).unwrap();
    assert_eq!(answer(&env), (ids.clone(), "caches"));
    env.run(["reindex"]).success();
    assert_eq!(env.read(summary), kept, "written again, as it was");
    assert_eq!(answer(&env), (ids.clone(), "summary"));
    // A summary whose line for a cache is not that cache's (another stamp): not believed.
    let (first, rest) = kept.split_once('\n').unwrap();
    let mut lines: Vec<String> = rest.lines().map(str::to_owned).collect();
    let mut f: Vec<String> = lines[0].split('\t').map(str::to_owned).collect();
    f[1] = format!("{}9", f[1]);
    f[3] = "1".to_owned();
    lines[0] = f.join("\t");
    env.write(summary, &format!("{first}\n{}\n", lines.join("\n")));
    assert_eq!(answer(&env), (ids.clone(), "caches"));
    // A decay shard newer than its cache: the files answer, the same.
    let shard = "memory/meta/decay/00.json";
    let text = env.read(shard);
    std::thread::sleep(std::time::Duration::from_millis(20));
    env.write(shard, &text);
    assert_eq!(answer(&env), (ids, "files"), "a stale cache is not read");
}

/// Pasted text is material, not a request: a hard-wrapped line that starts with "remember"
/// inside an email the user asks to proofread writes nothing (read from stdin with `-`).
#[test]
fn a_wrapped_remember_line_in_pasted_text_is_not_a_request() {
    let env = TestEnv::initialized();
    let head = env.head();
    let pasted = "Can you proofread this?\n\nDear team,\nAs we head into the holidays, please\n\
                  remember that the office will be closed from the 24th to the 2nd. Anyone who\n\
                  needs access should contact facilities.\nBest, Dana\n";
    let out = env.run(["hear", "--json", "-"]).stdin(pasted).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["trigger"], serde_json::Value::Null, "{v}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

/// A request heard links the entities it names by every name they go by, an alias added by
/// hand included: the names come from the search index's names cache (issue 20: reading every
/// entity file cost 140–200 ms of each request at 100,000 memories), which a refresh brings up
/// to date with the files as a search's does.
#[test]
fn a_request_heard_links_an_entity_by_an_alias_added_by_hand() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    let rel = "memory/graph/entities/person--alice.md";
    env.write(rel, &env.read(rel).replace("## Summary\n", "## Summary\nAliases: Ally\n"));
    env.run(["sync"]).output().success();
    let linked = |out: &crate::common::Output| {
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let ids = v["routing"]["entities"].as_array().unwrap().iter();
        ids.map(|e| e["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    let out = env.mutate(["hear", "--json", "remember that Ally adopted a cat named Miso"]);
    assert!(linked(&out).contains(&"person--alice".to_owned()), "{out}");
    assert!(env.read(rel).contains("- Ally adopted a cat named Miso\n"), "{}", env.read(rel));
    // Where the names came from: the index, not the entity files.
    #[cfg(feature = "timings")]
    {
        let out = env
            .run(["hear", "--json", "--dry-run", "remember that Ally likes green tea"])
            .env("COGMEM_TIMINGS", "1")
            .output()
            .success();
        assert!(out.stderr.contains("entity names read from the index"), "{out}");
        assert!(linked(&out).contains(&"person--alice".to_owned()), "{out}");
    }
}

/// The MCP client (after [`crate::mcp::CLIENT_PRELUDE`]): `hear` with a message over `limits.text_bytes` (100 here), then one within.
const LONG_MESSAGE_CLIENT: &str = r#"
async def checks():
    async with session() as s:
        r = await s.call_tool("hear", {"message": "what do you remember about " + "tea " * 30})
        assert r.is_error, r
        print(r.content[0].text)
        r = await s.call_tool("hear", {"message": "what do you remember about tea"})
        assert not r.is_error, r.content[0].text

run(checks)
"#;

/// `hear`'s message is text like any other: over `limits.text_bytes` it is refused, naming
/// the limit and what to do, from the CLI (argument or stdin) and the MCP tool; it was
/// classified whatever its size, and only a remember request's content was capped.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn hear_refuses_a_message_over_the_text_limit() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[limits]\ntext_bytes = 100\n");
    env.git_commit_all("small limits");
    let long = format!("what do you remember about {}", "tea ".repeat(30));
    let want = "error: the message is 147 bytes; `hear` takes at most 100 bytes \
                (`limits.text_bytes` in cogmem.toml)\n\nhint: pass the user's request alone \
                (`remember that …`), not the text around it; keep a long text with `cogmem \
                remember` (split) or `cogmem import`, or raise `limits.text_bytes` in cogmem.toml\n";
    assert_eq!(env.run(["hear", &long]).output().code(1).stderr, want);
    assert_eq!(env.run(["hear", "-"]).stdin(long.clone()).output().code(1).stderr, want);
    env.run(["hear", "what do you remember about tea"]).success();
    let out = crate::mcp::run_client(
        &env,
        "hear_long.py",
        &format!("{}{LONG_MESSAGE_CLIENT}", crate::mcp::CLIENT_PRELUDE),
    );
    assert!(
        out.starts_with(
            "error: the message is 147 bytes; `hear` takes at most 100 bytes (`limits.text_bytes` \
             in cogmem.toml)\n\nhint: pass the user's request alone"
        ),
        "{out}"
    );
    env.assert_clean_tree();
}
