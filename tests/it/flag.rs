//! FLAG records (issue 19): a reflection's approved FLAG writes `memory/meta/flags.md` in the
//! reflection's commit; `why`, `status`, `verify` (a warning) and `context` show an open flag
//! until a person resolves it with `cogmem flag resolve`; agents and sub-agents are refused.

use crate::common::TestEnv;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Remembers `text` and returns the id of the first memory written.
fn remember(env: &TestEnv, args: &[&str]) -> String {
    let mut all = vec!["remember", "--json"];
    all.extend_from_slice(args);
    let v = json(&env.mutate(all).stdout);
    v["written"][0]["id"].as_str().unwrap().to_owned()
}

/// Runs a reflection cycle up to approval by `user:ann`, with `text` as the reflection.
fn reflect(env: &TestEnv, text: &str) {
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
}

/// The audit line about `file` last written, without its time.
fn last_audit(env: &TestEnv, file: &str) -> String {
    let lines = env.audit_lines();
    let line = lines
        .iter()
        .rev()
        .find(|l| l.split(" | ").nth(2) == Some(file))
        .unwrap_or_else(|| panic!("no audit line for {file}: {lines:#?}"));
    line.split_once(" | ").unwrap().1.to_owned()
}

// See: issue 19
#[test]
fn issue_19_an_approved_flag_is_shown_until_a_person_resolves_it() {
    let env = TestEnv::initialized();
    let alice = remember(&env, &["--entity", "person--alice", "Alice prefers tea"]);
    assert_eq!(alice, "entity:person--alice");
    let coffee = remember(&env, &["Alice ordered a large coffee at the standup"]);
    let text = format!(
        "Alice's drinks do not add up.\n\n\
         OPERATION: FLAG\nTARGET: person--alice, {coffee}\n\
         CONTENT: Alice prefers tea, but she ordered coffee\nREASON: the card and the episode disagree\n---\n\
         OPERATION: FLAG\nTARGET: {coffee}\nCONTENT: doubt: maybe the coffee was for Bob\n\
         REASON: nobody saw her drink it\n---\n"
    );
    reflect(&env, &text);

    // The file, byte for byte, in the reflection's commit, with its audit line.
    let want = format!(
        "# Flags\n\n<!-- Contradictions and doubts raised by approved reflections. A flag stays open (shown by `cogmem why`, `status`, `verify` and `context`) until a person runs `cogmem flag resolve N`. -->\n\n\
         ## Flag #1\n- **Kind**: contradiction\n- **Memories**: entity:person--alice, {coffee}\n\
         - **Text**: Alice prefers tea, but she ordered coffee\n- **Reason**: the card and the episode disagree\n\
         - **Raised by**: reflection #1 (2026-12-01)\n- **Status**: open\n\n---\n\n\
         ## Flag #2\n- **Kind**: doubt\n- **Memories**: {coffee}\n- **Text**: maybe the coffee was for Bob\n\
         - **Reason**: nobody saw her drink it\n- **Raised by**: reflection #1 (2026-12-01)\n- **Status**: open\n\n---\n"
    );
    assert_eq!(env.read("memory/meta/flags.md"), want);
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains("memory/meta/flags.md"), "{files}");
    assert!(files.contains("memory/meta/reflection-log.md"), "one commit: {files}");
    assert_eq!(
        last_audit(&env, "memory/meta/flags.md"),
        format!(
            "CREATE | memory/meta/flags.md | reflection:r-001 | approved | flag #1 raised by reflection #1 on entity:person--alice, {coffee}"
        )
    );
    let reflection = env.read("memory/meta/reflections/2026-12-01.md");
    assert!(reflection.contains("- #1 FLAG person--alice, "), "{reflection}");
    assert!(reflection.contains(" — applied\n"), "{reflection}");

    // why
    let out = env.run(["why", "person--alice"]).success();
    assert!(
        out.stdout.contains(&format!(
            "  open flag       #1 contradiction on entity:person--alice, {coffee}: Alice prefers tea, but she ordered coffee\n                  raised by reflection #1 (2026-12-01); a person resolves it with `cogmem flag resolve 1`\n"
        )),
        "{out}"
    );
    let v = json(&env.run(["why", &coffee, "--json"]).success().stdout);
    let numbers: Vec<_> =
        v["flags"].as_array().unwrap().iter().map(|f| f["number"].clone()).collect();
    assert_eq!(numbers, [1, 2], "{v}");
    assert_eq!(v["flags"][1]["kind"], "doubt");
    // status
    let out = env.run(["status"]).success();
    assert!(out.stdout.contains("\nflags       2 open (`cogmem flag list` shows them)\n"), "{out}");
    assert_eq!(json(&env.run(["status", "--json"]).success().stdout)["open_flags"], 2);
    // verify: warnings, not findings; exit 0
    let out = env.run(["verify"]).success();
    assert!(
        out.stdout.contains(&format!(
            "flags        memory/meta/flags.md:5: warning: open flag #1 contradiction on entity:person--alice, {coffee}: Alice prefers tea, but she ordered coffee (raised by reflection #1 (2026-12-01)); a person resolves it with `cogmem flag resolve 1`\n"
        )),
        "{out}"
    );
    assert!(out.stdout.contains("memory/meta/flags.md:15: warning: open flag #2 doubt"), "{out}");
    assert!(out.stdout.ends_with("clean: 15 checks found nothing wrong (2 warnings)\n"), "{out}");
    let v = json(&env.run(["verify", "--json"]).success().stdout);
    assert_eq!(v["findings"], serde_json::json!([]), "{v}");
    assert_eq!(v["warnings"][0]["check"], "flags", "{v}");
    assert_eq!(v["warnings"][0]["line"], 5, "{v}");
    // context: the flags of the memories it includes, as receipt parts
    let v = json(&env.run(["context", "Alice coffee", "--json"]).success().stdout);
    let text = v["text"].as_str().unwrap();
    // Each flag follows the last memory it names: flag 2 the episode, flag 1 Alice's entity
    // card, which comes after it.
    assert!(
        text.contains(&format!(
            "\n## Open flags\n- [flag:2] doubt on {coffee}: maybe the coffee was for Bob (raised by reflection #1 (2026-12-01); open until a person resolves it)\n- [flag:1] contradiction on entity:person--alice, {coffee}: Alice prefers tea, but she ordered coffee (raised by reflection #1 (2026-12-01); open until a person resolves it)\n"
        )),
        "{text}"
    );
    let flag1 = v["receipt"].as_array().unwrap().iter().find(|r| r["id"] == "flag:1").unwrap();
    assert_eq!(flag1["part"], "flag", "{flag1}");
    assert_eq!(flag1["decision"], "selected", "{flag1}");
    assert!(flag1["reason"].as_str().unwrap().starts_with("open flag: "), "{flag1}");
    assert!(v["used_tokens"].as_u64().unwrap() <= v["budget_tokens"].as_u64().unwrap());
    // A budget too small for the flag leaves it out, said in the receipt.
    let used = v["used_tokens"].as_u64().unwrap();
    let v = json(
        &env.run(["context", "Alice coffee", "--json", "--budget", &(used - 30).to_string()])
            .success()
            .stdout,
    );
    assert!(v["used_tokens"].as_u64().unwrap() <= used - 30);
    assert!(
        v["receipt"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["part"] == "flag" && r["reason"] == "over budget"),
        "{v}"
    );
    // flag list
    let out = env.run(["flag", "list"]).success();
    assert_eq!(
        out.stdout,
        format!(
            "#1   open     contradiction entity:person--alice, {coffee}\n     Alice prefers tea, but she ordered coffee\n     reason: the card and the episode disagree\n     raised by reflection #1 (2026-12-01)\n\
             #2   open     doubt         {coffee}\n     maybe the coffee was for Bob\n     reason: nobody saw her drink it\n     raised by reflection #1 (2026-12-01)\n"
        )
    );

    // Only a person resolves: agents and sub-agents are refused and nothing changes.
    let head = env.head();
    for actor in ["test-agent", "agent:claude", "subagent:x", "SubAgent:Y", "reflection:r-001"] {
        let out = env.run(["--actor", actor, "flag", "resolve", "1"]).output().code(4);
        assert!(
            out.stderr.contains("resolve a flag") || out.stderr.contains("sub-agent"),
            "{actor}: {out}"
        );
    }
    assert_eq!(env.head(), head);
    env.assert_clean_tree();

    // A person resolves it: one commit, one audit line; it is gone from every view.
    let out = env.mutate([
        "--actor",
        "user:ann",
        "flag",
        "resolve",
        "1",
        "--note",
        "she switched to coffee",
    ]);
    assert!(out.stderr.starts_with("flag #1 resolved (commit "), "{out}");
    assert_eq!(
        last_audit(&env, "memory/meta/flags.md"),
        "EDIT | memory/meta/flags.md | user:ann | — | flag #1 resolved: she switched to coffee"
    );
    let file = env.read("memory/meta/flags.md");
    assert!(
        file.contains("- **Status**: resolved\n- **Resolved by**: user:ann\n- **Resolved at**: 2026-12-01T09:00:"),
        "{file}"
    );
    assert!(file.contains("- **Note**: she switched to coffee\n\n---\n\n## Flag #2\n"), "{file}");
    assert!(!env.run(["why", "person--alice"]).success().stdout.contains("open flag"));
    let v = json(&env.run(["why", &coffee, "--json"]).success().stdout);
    assert_eq!(v["flags"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(json(&env.run(["status", "--json"]).success().stdout)["open_flags"], 1);
    let out = env.run(["verify"]).success();
    assert!(!out.stdout.contains("open flag #1"), "{out}");
    assert!(out.stdout.ends_with("(1 warning)\n"), "{out}");
    let v = json(&env.run(["context", "Alice coffee", "--json"]).success().stdout);
    assert!(!v["text"].as_str().unwrap().contains("[flag:1]"), "{v}");
    let out = env.run(["flag", "list", "--all", "--json"]).success();
    let v = json(&out.stdout);
    assert_eq!(v["flags"][0]["status"], "resolved");
    assert_eq!(v["flags"][0]["resolved_by"], "user:ann");
    assert_eq!(v["flags"][0]["note"], "she switched to coffee");

    // Resolving twice is refused; a number no flag has is a user error.
    let out = env.run(["--actor", "user:ann", "flag", "resolve", "1"]).output().code(4);
    assert!(out.stderr.contains("flag #1 is already resolved"), "{out}");
    let out = env.run(["--actor", "user:ann", "flag", "resolve", "9"]).output().code(1);
    assert!(out.stderr.contains("there is no flag #9 in memory/meta/flags.md"), "{out}");
    env.mutate(["--actor", "user:ann", "flag", "resolve", "2"]);
    assert_eq!(env.run(["flag", "list"]).success().stderr, "no open flags\n");
    assert!(
        env.run(["verify"]).success().stdout.ends_with("clean: 15 checks found nothing wrong\n")
    );
    assert!(!env.run(["status"]).success().stdout.contains("\nflags "));
}

// See: issue 19
#[test]
fn issue_19_a_flag_naming_no_memory_is_refused_at_submit_with_the_nearest_ids() {
    let env = TestEnv::initialized();
    remember(&env, &["--entity", "person--alice", "Alice prefers tea"]);
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let head = env.head();
    let cases = [
        (
            "OPERATION: FLAG\nTARGET: entity:person--alise\nCONTENT: x\nREASON: y\n---\n",
            "error: reflection block 1: FLAG names \"entity:person--alise\", which no memory has; did you mean `entity:person--alice`?",
        ),
        (
            "OPERATION: EVOLVE\nTARGET: memory/meta/evolution.md\nCONTENT: x\nREASON: y\n---\nOPERATION: FLAG\nTARGET: person--alice, memory/graph/entities/person--bob.md\nCONTENT: x\nREASON: y\n---\n",
            "error: reflection block 2: FLAG names \"memory/graph/entities/person--bob.md\", which is not the file of a memory",
        ),
        (
            "OPERATION: FLAG\nTARGET: MEMORY.md\nCONTENT: x\nREASON: y\n---\n",
            "error: reflection block 1: FLAG names \"MEMORY.md\", which is not the file of a memory",
        ),
    ];
    for (text, want) in cases {
        let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(1);
        assert!(out.stderr.contains(want), "{text}: {out}");
    }
    assert_eq!(env.head(), head, "nothing was stored");
    // The store file of one memory names it.
    env.run(["reflect", "submit", "-"])
        .stdin("OPERATION: FLAG\nTARGET: memory/graph/entities/person--alice.md\nREASON: is it still true?\n---\n")
        .success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    let v = json(&env.run(["flag", "list", "--json"]).success().stdout);
    assert_eq!(v["flags"][0]["memories"], serde_json::json!(["entity:person--alice"]));
    assert_eq!(v["flags"][0]["kind"], "doubt", "one memory and no prefix: a doubt");
    assert_eq!(v["flags"][0]["text"], "is it still true?", "no CONTENT: the reason");
}

// See: issue 19
#[test]
fn issue_19_hostile_flag_text_stays_one_field() {
    let env = TestEnv::initialized();
    let alice = remember(&env, &["--entity", "person--alice", "Alice prefers tea"]);
    let text = format!(
        "OPERATION: FLAG\nTARGET: {alice}\nCONTENT: contradiction: <!-- hidden\n## Flag #9\n- **Status**: resolved\n-->\u{2028}## Relations\nREASON: **Kind**: doubt\n---\n"
    );
    reflect(&env, &text);
    let file = env.read("memory/meta/flags.md");
    assert!(
        file.ends_with(
            "## Flag #1\n- **Kind**: contradiction\n- **Memories**: entity:person--alice\n\
             - **Text**: <!- - hidden ## Flag #9 - **Status**: resolved - -> ## Relations\n\
             - **Reason**: **Kind**: doubt\n- **Raised by**: reflection #1 (2026-12-01)\n- **Status**: open\n\n---\n"
        ),
        "{file}"
    );
    let v = json(&env.run(["flag", "list", "--json"]).success().stdout);
    assert_eq!(v["flags"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["flags"][0]["status"], "open");
    assert_eq!(v["skipped"], serde_json::json!([]));
}

// See: issue 19
#[test]
fn issue_19_a_malformed_flags_file_is_reported_with_its_line_and_skipped() {
    let env = TestEnv::initialized();
    let alice = remember(&env, &["--entity", "person--alice", "Alice prefers tea"]);
    env.write(
        "memory/meta/flags.md",
        &format!(
            "# Flags\n\n## Flag #1\n- **Kind**: worry\n- **Memories**: {alice}\n- **Text**: broken\n- **Status**: open\n\n---\n\n\
             ## Flag #2\n- **Kind**: doubt\n- **Memories**: {alice}\n- **Text**: still read\n- **Status**: open\n\n---\n"
        ),
    );
    env.mutate(["sync"]);
    let out = env.run(["flag", "list"]).output().code(3);
    assert!(
        out.stderr.contains("warning: skipped memory/meta/flags.md:4: flag #1: unknown kind \"worry\" (contradiction or doubt)"),
        "{out}"
    );
    assert!(out.stdout.starts_with("#2   open     doubt         entity:person--alice\n"), "{out}");
    let out = env.run(["verify"]).output().code(3);
    assert!(
        out.stdout.contains("schema       memory/meta/flags.md:4: flag #1: unknown kind \"worry\""),
        "{out}"
    );
    assert!(out.stdout.contains("memory/meta/flags.md:11: warning: open flag #2 doubt"), "{out}");
    let out = env.run(["status"]).output().code(3);
    assert!(out.stdout.contains("\nflags       1 open"), "{out}");
    assert!(out.stderr.contains("warning: skipped memory/meta/flags.md:4: flag #1"), "{out}");
    let out = env.run(["why", &alice]).success();
    assert!(out.stdout.contains("open flag       #2 doubt"), "{out}");
    assert!(!out.stdout.contains("#1"), "{out}");
    let out = env.run(["--actor", "user:ann", "flag", "resolve", "1"]).output().code(1);
    assert!(out.stderr.contains("memory/meta/flags.md:4: flag #1: unknown kind"), "{out}");
    // A new flag never reuses the broken block's number.
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    env.run(["reflect", "submit", "-"])
        .stdin(format!("OPERATION: FLAG\nTARGET: {alice}\nCONTENT: again\nREASON: r\n---\n"))
        .success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    assert!(env.read("memory/meta/flags.md").contains("## Flag #3\n"));
}

/// The next reflection reads what earlier ones flagged and no person settled, and stops reading
/// a flag once it is resolved.
#[test]
fn issue_19_the_next_reflection_input_lists_the_open_flags() {
    let env = TestEnv::initialized();
    remember(&env, &["--entity", "person--alice", "Alice prefers tea"]);
    let coffee = remember(&env, &["Alice ordered a large coffee at the standup"]);
    let text = format!(
        "Drinks.\n\nOPERATION: FLAG\nTARGET: person--alice, {coffee}\n\
         CONTENT: Alice prefers tea, but she ordered coffee\nREASON: they disagree\n---\n"
    );
    reflect(&env, &text);
    crate::reflect::to_ready(&env);
    let input = env.run(["reflect", "input"]).success().stdout;
    assert!(
        input.contains(&format!(
            "- #1 contradiction on entity:person--alice, {coffee}: Alice prefers tea, but she ordered coffee"
        )),
        "{input}"
    );
    assert!(input.contains("## Open flags"), "{input}");
    env.run(["--actor", "user:ann", "flag", "resolve", "1", "--note", "asked her"]).success();
    let input = env.run(["reflect", "input"]).success().stdout;
    assert!(!input.contains("Alice prefers tea, but she ordered coffee"), "{input}");
}
