//! Approval-gated reflection (issue 7): the whole cycle on a real workspace, each step's files
//! and commits, and every gate called out of order and as the wrong actor.

use crate::common::TestEnv;

const REFLECTION: &str = "\
Bob keeps coming back to the garden project. I notice I answer faster than I think.
[Self-Awareness] I rush to answer before I have read everything.

OPERATION: EXTRACT
TARGET: memory/episodes/2026-12-01.md
CONTENT: Bob plans the garden for spring
REASON: he mentioned it on three days
---
OPERATION: PATTERN
TARGET: memory/meta/evolution.md
CONTENT: Bob returns to long projects in the evening
REASON: seen in the episodes
---
OPERATION: ARCHIVE
TARGET: episode:2026-12-01:09:00
REASON: superseded by the extracted fact
---
";

fn status_json(env: &TestEnv) -> serde_json::Value {
    let out = env.run(["reflect", "status", "--json"]).success();
    serde_json::from_str(&out.stdout).unwrap()
}

fn state(env: &TestEnv) -> String {
    status_json(env)["state"].as_str().unwrap().to_owned()
}

fn seeded() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    env
}

#[test]
fn whole_cycle_one_commit_per_step() {
    let env = seeded();
    assert_eq!(state(&env), "idle");
    let text = env.run(["reflect", "status"]).success().stdout;
    assert!(text.contains("next: cogmem reflect request"), "{text}");

    // 1. request
    env.mutate(["reflect", "request", "--extra", "2000", "--reason", "a busy week"]);
    assert_eq!(state(&env), "awaiting_decision");
    let reward = env.read("memory/meta/rewards/2026-12-01.md");
    assert!(reward.contains("### Final Request: 10,000 tokens"), "{reward}");
    assert!(reward.contains("Awaiting your decision."), "{reward}");
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("test-agent\n[CREATE] memory/meta/rewards/2026-12-01.md"), "{log}");
    assert!(log.contains("Approval: pending"), "{log}");

    // 2. decide (a person)
    env.mutate([
        "--actor",
        "user:ann",
        "reflect",
        "decide",
        "bonus",
        "500",
        "--reason",
        "well done",
    ]);
    assert_eq!(state(&env), "ready_for_input");
    let reward = env.read("memory/meta/rewards/2026-12-01.md");
    assert!(
        reward.contains("- **User Decision:** Bonus\n- **Granted:** 10,500 tokens"),
        "{reward}"
    );
    assert!(!reward.contains("Awaiting your decision."), "{reward}");
    // The result waits for the reflection's approval (issue 19).
    let rlog = env.read("memory/meta/reward-log.md");
    assert!(!rlog.contains("## 2026-12-01"), "{rlog}");
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    let te = &decay["token_economy"];
    assert_eq!(te["totals"]["extra_requested"], 2000);
    assert_eq!(te["totals"]["extra_granted"], 2000);
    assert_eq!(te["totals"]["user_bonus"], 500);
    assert_eq!(te["recent_outcomes"][0]["granted"], 10_500);
    assert_eq!(te["metrics"]["extra_grant_rate"], 1.0);

    // 3. input (read-only, deterministic)
    env.write("SOUL.md", "# Soul\nSECRET-SOUL-MARKER\n");
    env.git_commit_all("soul");
    let head = env.head();
    let out = env.run(["reflect", "input"]).success();
    assert!(out.stdout.contains("Bob talked about the garden"), "{}", out.stdout);
    assert!(out.stdout.contains("OPERATION: EXTRACT | CONNECT"), "{}", out.stdout);
    assert!(out.stdout.contains("[Self-Awareness]"), "{}", out.stdout);
    assert!(!out.stdout.contains("SECRET-SOUL-MARKER"), "SOUL.md is never read");
    assert!(out.stdout.contains("10,500 tokens"), "{}", out.stdout);
    let j1 = env.run(["reflect", "input", "--json"]).success().stdout;
    let j2 = env.run(["reflect", "input", "--json"]).success().stdout;
    let b: serde_json::Value = serde_json::from_str(&j1).unwrap();
    let b2: serde_json::Value = serde_json::from_str(&j2).unwrap();
    assert_eq!(b["elements"], b2["elements"], "the element menu is seeded");
    let n = b["elements"].as_array().unwrap().len();
    assert!((5..=8).contains(&n), "{n}");
    assert!(b["used_tokens"].as_u64().unwrap() <= 30_000);
    assert_eq!(b["episodes_since"], "2026-11-25", "first run: the last 7 days");
    assert_eq!(env.head(), head, "input commits nothing");
    env.assert_clean_tree();
}

#[test]
fn submit_approve_applies_everything_in_one_commit() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    to_ready(&env);
    env.write("../reflection.md", REFLECTION);
    let out = env.mutate(["reflect", "submit", "../reflection.md"]);
    assert!(out.stderr.contains("submitted with 3 operations"), "{}", out.stderr);
    assert_eq!(state(&env), "awaiting_approval");
    let pending = env.read("memory/meta/pending-reflection.md");
    assert!(pending.contains("## Submission — reflection #1"), "{pending}");
    assert!(pending.contains("OPERATION: ARCHIVE"), "{pending}");
    // Nothing applied yet.
    assert!(!env.read("IDENTITY.md").contains("I rush"));

    // One commit, one audit line per file, a clean tree.
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("reflection:r-001\n"), "{log}");
    assert!(log.contains("Approval: approved"), "{log}");
    assert!(log.contains("⚠️ CRITICAL FILE CHANGED"), "IDENTITY.md is critical: {log}");
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    for f in [
        "memory/meta/reflections/2026-12-01.md",
        "memory/meta/reflection-log.md",
        "IDENTITY.md",
        "memory/episodes/2026-12-01.md",
        "memory/meta/evolution.md",
        "memory/meta/decay-scores.json",
        "memory/meta/pending-reflection.md",
        "memory/meta/rewards/2026-12-01.md",
        "memory/meta/audit.log",
    ] {
        assert!(files.contains(f), "{f} not in the commit:\n{files}");
    }
    assert!(env.read("memory/meta/reflections/2026-12-01.md").contains("Bob keeps coming back"));
    let rl = env.read("memory/meta/reflection-log.md");
    assert!(rl.contains("## Reflection #1 — 2026-12-01"), "{rl}");
    assert!(rl.contains("I rush to answer"), "{rl}");
    let identity = env.read("IDENTITY.md");
    assert!(
        identity.contains("2026-12-01: I rush to answer before I have read everything."),
        "{identity}"
    );
    assert!(env.read("memory/episodes/2026-12-01.md").contains("Bob plans the garden for spring"));
    let evo = env.read("memory/meta/evolution.md");
    assert!(evo.contains("- Total reflections: 1"), "{evo}");
    assert!(evo.contains("Bob returns to long projects"), "{evo}");
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert!(decay["last_reflection"].as_str().unwrap().starts_with("2026-12-01T"));
    assert_eq!(decay["last_reflection_episode"], "2026-12-01");
    assert_eq!(decay["self_awareness_count_since_consolidation"], 1);
    assert_eq!(decay["entries"]["episode:2026-12-01:09:00"]["status"], "archived");
    assert!(!env.read("memory/meta/pending-reflection.md").contains("## Submission"));
    assert_eq!(state(&env), "idle");
    let status = env.run(["reflect", "status", "--json"]).success().stdout;
    let s: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(s["reflection"], 2, "the next one is #2");
    // The archived memory is gone from recall.
    let found = env.run(["search", "talked"]).output();
    assert!(!found.stdout.contains("Bob talked"), "{}", found.stdout);
}

pub(crate) fn to_ready(env: &TestEnv) {
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
}

#[test]
fn approve_only_some_blocks_and_reject_changes_nothing_else() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    to_ready(&env);
    env.run(["reflect", "submit", "-"]).stdin(REFLECTION).success();
    env.run(["--actor", "user:ann", "reflect", "approve", "--only", "2"]).success();
    let r = env.read("memory/meta/reflections/2026-12-01.md");
    assert!(r.contains("#1 EXTRACT") && r.contains("not approved"), "{r}");
    assert!(!env.read("memory/episodes/2026-12-01.md").contains("Bob plans the garden"));
    assert!(env.read("memory/meta/reflection-log.md").contains("- Outcome: partial"));

    // A second cycle, rejected.
    to_ready(&env);
    assert!(env.path("memory/meta/rewards/2026-12-01-2.md").exists());
    let out = env.run(["reflect", "submit", "-"]).stdin(" \n").output().code(1);
    assert!(out.stderr.starts_with("error: the reflection is empty"), "{out}");
    env.run(["reflect", "submit", "-"]).stdin("Just thinking.\n").success();
    let before = env.snapshot();
    let out = env.mutate([
        "--actor",
        "user:alice",
        "--json",
        "reflect",
        "reject",
        "--reason",
        "too\nvague",
    ]);
    // The reason as the logs record it: one line.
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["reason"], "too vague", "{out}");
    let after = env.snapshot();
    let changed: Vec<&str> = after
        .iter()
        .filter(|(p, b)| before.iter().find(|(q, _)| q == p).map(|(_, c)| c) != Some(b))
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(
        changed,
        [
            "memory/meta/audit.log",
            "memory/meta/pending-reflection.md",
            "memory/meta/reward-log.md",
            "memory/meta/rewards/2026-12-01-2.md"
        ]
    );
    assert!(env.read("memory/meta/rewards/2026-12-01-2.md").contains("rejected by user:alice"));
    assert!(env.read("memory/meta/rewards/2026-12-01-2.md").contains("too vague"));
    assert_eq!(state(&env), "idle");
}

#[test]
fn out_of_order_steps_are_refused_naming_the_first_step() {
    let env = seeded();
    let head = env.head();
    let cases: [(&[&str], &str); 5] = [
        (&["--actor", "user:ann", "reflect", "decide", "approve"], "cogmem reflect request"),
        (&["reflect", "input"], "cogmem reflect request"),
        (&["reflect", "submit", "-"], "cogmem reflect request"),
        (&["--actor", "user:ann", "reflect", "approve"], "cogmem reflect request"),
        (&["--actor", "user:ann", "reflect", "reject"], "cogmem reflect request"),
    ];
    for (args, first) in cases {
        let out = env.run(args).stdin("x").output().code(4);
        assert!(out.stderr.contains("is out of order"), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(first), "{args:?}: {}", out.stderr);
    }
    env.run(["reflect", "request"]).success();
    for args in [
        &["reflect", "request"][..],
        &["reflect", "input"],
        &["--actor", "user:ann", "reflect", "approve"],
    ] {
        let out = env.run(args).output().code(4);
        assert!(out.stderr.contains("`cogmem reflect decide` must come first"), "{}", out.stderr);
    }
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let out = env.run(["--actor", "user:ann", "reflect", "approve"]).output().code(4);
    assert!(out.stderr.contains("cogmem reflect submit"), "{}", out.stderr);
    let out = env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).output().code(4);
    assert!(out.stderr.contains("cogmem reflect input"), "{}", out.stderr);
    env.run(["reflect", "submit", "-"]).stdin("Thinking.\n").success();
    for args in [&["reflect", "request"][..], &["reflect", "input"], &["reflect", "submit", "-"]] {
        let out = env.run(args).stdin("x").output().code(4);
        assert!(
            out.stderr.contains("`cogmem reflect approve` or `cogmem reflect reject`"),
            "{}",
            out.stderr
        );
    }
    assert_ne!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn agents_cannot_decide_or_approve() {
    let env = seeded();
    env.run(["reflect", "request"]).success();
    let head = env.head();
    for actor in ["test-agent", "bot:main", "subagent:x", "reflection:r-001", "agent:claude"] {
        let out = env.run(["--actor", actor, "reflect", "decide", "approve"]).output().code(4);
        assert!(out.stderr.contains("only the user"), "{actor}: {}", out.stderr);
    }
    assert_eq!(env.head(), head);
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    env.run(["reflect", "submit", "-"]).stdin("Thinking.\n").success();
    let head = env.head();
    for actor in ["bot:main", "subagent:x", "reflection:r-001"] {
        for cmd in ["approve", "reject"] {
            let out = env.run(["--actor", actor, "reflect", cmd]).output().code(4);
            assert!(out.stderr.contains("only the user"), "{actor} {cmd}: {}", out.stderr);
        }
    }
    assert_eq!(env.head(), head);
    // Sub-agents cannot even request or submit.
    env.run(["--actor", "user:ann", "reflect", "reject"]).success();
    let out = env.run(["--actor", "subagent:x", "reflect", "request"]).output().code(4);
    assert!(out.stderr.contains("sub-agent"), "{}", out.stderr);
}

#[test]
fn bad_operation_blocks_are_rejected_with_their_number() {
    let env = TestEnv::initialized();
    env.run([
        "remember",
        "--store",
        "vault",
        "--title",
        "wifi",
        "The wifi password is on the fridge",
    ])
    .success();
    to_ready(&env);
    let vault_id = "memory/vault/wifi.md";
    let ok = "OPERATION: FLAG\nTARGET: vault:wifi\nREASON: check it\n---\n";
    let cases = [
        (
            format!("{ok}OPERATION: DELETE\nTARGET: MEMORY.md\nREASON: x\n---\n"),
            1,
            "block 2: unknown operation",
        ),
        (
            format!(
                "{ok}OPERATION: EXTRACT\nTARGET: ../../etc/passwd\nCONTENT: x\nREASON: x\n---\n"
            ),
            1,
            "block 2: TARGET \"../../etc/passwd\" is outside the workspace",
        ),
        (
            "OPERATION: EVOLVE\nTARGET: SOUL.md\nCONTENT: x\nREASON: x\n---\n".to_owned(),
            1,
            "block 1: TARGET \"SOUL.md\" is not a memory file",
        ),
        (
            "OPERATION: EXTRACT\nTARGET: memory/episodes/x.md\nREASON: x\n---\n".to_owned(),
            1,
            "block 1: EXTRACT needs CONTENT",
        ),
        // These three were refused as "outside the workspace" or "not a memory file": the
        // message now names what is wrong.
        (
            "OPERATION: EXTRACT\nTARGET: MEMORY.md\nTARGET: memory/episodes/\nCONTENT: x\nREASON: x\n---\n"
                .to_owned(),
            1,
            "block 1: the block has two TARGET lines (the second at line 3 of the reflection)",
        ),
        (
            "OPERATION: EXTRACT\nTARGET: memory/../SOUL.md\nCONTENT: x\nREASON: x\n---\n".to_owned(),
            1,
            "block 1: `..` is not allowed in a TARGET (\"memory/../SOUL.md\")",
        ),
        (
            "OPERATION: EXTRACT\nTARGET: \u{202e}MEMORY.md\nCONTENT: x\nREASON: x\n---\n".to_owned(),
            1,
            "block 1: TARGET \"\\u{202e}MEMORY.md\" holds an invisible or bidi control character (U+202E)",
        ),
        (
            format!("{ok}{ok}OPERATION: ARCHIVE\nTARGET: {vault_id}\nREASON: x\n---\n"),
            4,
            "block 3: ",
        ),
    ];
    let head = env.head();
    for (text, code, want) in cases {
        let out = env.run(["reflect", "submit", "-"]).stdin(text.clone()).output().code(code);
        assert!(out.stderr.contains(want), "{text}: {}", out.stderr);
    }
    assert_eq!(env.head(), head, "nothing was stored");
    assert_eq!(state(&env), "ready_for_input");
}

#[test]
fn input_stays_within_budget_and_says_what_it_cut() {
    let env = TestEnv::initialized();
    // Six days of long episodes (~3,000 tokens each) against a 10,000-token episode budget.
    for day in 25..=30 {
        let body = "the garden grows slowly under rain ".repeat(430);
        env.write(
            &format!("memory/episodes/2026-11-{day}.md"),
            &format!("# 2026-11-{day} — Episode Log\n\n## 10:00 | event | confidence:high | tags:[]\n{body}\n"),
        );
    }
    // An old day, outside the first run's 7-day window.
    env.write(
        "memory/episodes/2026-11-01.md",
        "# 2026-11-01 — Episode Log\n\n## 10:00 | event | confidence:high | tags:[]\nOLD-DAY-MARKER\n",
    );
    env.git_commit_all("episodes");
    to_ready(&env);
    let out = env.run(["reflect", "input", "--json"]).success().stdout;
    let b: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(b["used_tokens"].as_u64().unwrap() <= 30_000);
    let episodes = b["sections"].as_array().unwrap().last().unwrap().clone();
    assert!(episodes["tokens"].as_u64().unwrap() <= 10_000, "{episodes}");
    let files: Vec<&str> =
        episodes["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(files[0], "memory/episodes/2026-11-30.md", "newest first: {files:?}");
    let cut = b["cut"].as_array().unwrap();
    assert!(
        cut.iter().any(|c| c["what"]
            .as_str()
            .unwrap()
            .starts_with("memory/episodes/2026-11-25.md")
            && c["why"].as_str().unwrap().contains("over the episodes")),
        "{cut:?}"
    );
    let text = b["text"].as_str().unwrap();
    assert!(text.contains("## Left out to fit"), "the bundle says what it cut");
    assert!(!text.contains("OLD-DAY-MARKER"), "first run reads only the last 7 days");
}

#[test]
fn archived_entity_leaves_the_index_and_restore_brings_it_back() {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--carol", "Carol plays chess"]).success();
    assert!(env.read("memory/graph/index.md").contains("person--carol"));
    to_ready(&env);
    let text = "Carol has not come up in weeks.\n\nOPERATION: ARCHIVE\nTARGET: memory/graph/entities/person--carol.md\nREASON: faded\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    assert!(!env.read("memory/graph/index.md").contains("person--carol"));
    assert!(env.path("memory/graph/entities/person--carol.md").exists(), "the file is kept");
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(decay["entries"]["entity:person--carol"]["archive"]["by"], "reflection:r-001");
    env.mutate(["restore", "entity:person--carol"]);
    assert!(env.read("memory/graph/index.md").contains("person--carol"));
}

#[test]
fn status_says_when_a_self_image_consolidation_is_due() {
    let env = seeded();
    to_ready(&env);
    let text: String = (1..=10).map(|i| format!("[Self-Awareness] insight number {i}\n")).collect();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    let identity = env.read("IDENTITY.md");
    assert!(identity.contains("2026-12-01: insight number 10"), "{identity}");
    let out = env.run(["reflect", "status"]).success().stdout;
    assert!(
        out.contains(
            "self-awareness entries since consolidation: 10 (a self-image consolidation is due)"
        ),
        "{out}"
    );
}

#[test]
fn evolution_stays_under_its_cap_and_old_entries_move_to_the_archive() {
    let env = seeded();
    let mut evo = env.read("memory/meta/evolution.md");
    for i in 1..=30 {
        evo.push_str(&format!(
            "\n## Reflection #{i} — 2026-01-{:02}\n- Key insight: {}\n",
            i.min(28),
            "an old thought about gardens and patience ".repeat(8)
        ));
    }
    env.write("memory/meta/evolution.md", &evo);
    env.git_commit_all("a long evolution file");
    to_ready(&env);
    env.run(["reflect", "submit", "-"]).stdin("[Self-Awareness] I keep notes short.\n").success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    let evo = env.read("memory/meta/evolution.md");
    let archive = env.read("memory/meta/evolution-archive.md");
    assert!(archive.contains("## Reflection #1 — 2026-01-01"), "{archive}");
    assert!(!evo.contains("## Reflection #1 — 2026-01-01"), "oldest moved out");
    assert!(evo.contains("- Key insight: I keep notes short."), "{evo}");
    assert!(evo.contains("## Foundational Understanding"), "the overview stays");
    use cogmem::pack::TokenCounter as _;
    let tokens =
        cogmem::ops::context::Tiktoken::new(cogmem::ops::context::Encoding::Cl100k).count(&evo);
    assert!(tokens <= 2_000, "{tokens}");
}

pub(crate) const CONSOLIDATION: &str = "\
## Self-Image
### Who I Think I Am
A careful helper who sometimes hurries.

## Compacted Log
2026-12 (10 entries): ten small insights about pace
";

#[test]
fn identity_consolidation_is_gated_and_rewrites_the_self_image() {
    let env = seeded();
    // Not due yet.
    let out = env.run(["identity", "consolidate", "input"]).output().code(4);
    assert!(out.stderr.contains("not due: 0 self-awareness entries"), "{}", out.stderr);
    to_ready(&env);
    let text: String = (1..=10).map(|i| format!("[Self-Awareness] insight number {i}\n")).collect();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();

    let input = env.run(["identity", "consolidate", "input"]).success().stdout;
    assert!(input.contains("2026-12-01: insight number 7"), "{input}");
    assert!(input.contains("## Compacted Log"), "{input}");
    let out =
        env.run(["--actor", "user:ann", "identity", "consolidate", "approve"]).output().code(4);
    assert!(out.stderr.contains("identity consolidate submit"), "{}", out.stderr);
    let bad = env.run(["identity", "consolidate", "submit", "-"]).stdin("no heading").output();
    assert_eq!(bad.code, 1, "{bad}");

    let before = env.commit_count();
    env.run(["identity", "consolidate", "submit", "-"]).stdin(CONSOLIDATION).success();
    assert_eq!(env.commit_count(), before + 1);
    env.assert_clean_tree();
    let identity_before = env.read("IDENTITY.md");
    assert!(env.path("memory/meta/pending-identity.md").exists());
    let status = env.run(["reflect", "status"]).success().stdout;
    assert!(status.contains("a self-image consolidation awaits the user's approval"), "{status}");
    let diff = env.run(["identity", "consolidate", "show"]).success().stdout;
    assert!(diff.contains("+ A careful helper who sometimes hurries."), "{diff}");
    assert!(diff.contains("- 2026-12-01: insight number 3"), "{diff}");
    for actor in ["test-agent", "bot:main", "reflection:r-001"] {
        let out =
            env.run(["--actor", actor, "identity", "consolidate", "approve"]).output().code(4);
        assert!(out.stderr.contains("only the user"), "{actor}: {}", out.stderr);
    }
    assert_eq!(env.read("IDENTITY.md"), identity_before, "nothing applied before approval");
    env.mutate(["--actor", "user:ann", "identity", "consolidate", "approve"]);
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("reflection:r-001\n") && log.contains("Approval: approved"), "{log}");
    let identity = env.read("IDENTITY.md");
    assert!(identity.contains("A careful helper who sometimes hurries."), "{identity}");
    assert!(identity.contains("Last consolidated: 2026-12-01"), "{identity}");
    assert!(!identity.contains("2026-12-01: insight number 3"), "moved out of Recent");
    assert!(identity.contains("2026-12 (10 entries): ten small insights about pace"), "{identity}");
    assert_eq!(identity.matches("### Who I Think I Am").count(), 1, "rewritten, not appended");
    assert!(!env.path("memory/meta/pending-identity.md").exists());
    let s = status_json(&env);
    assert_eq!(s["self_awareness_since_consolidation"], 0);
    assert_eq!(s["consolidation_due"], false);
}

/// Ten self-awareness entries approved and a consolidation of them submitted.
fn consolidation_submitted() -> TestEnv {
    let env = seeded();
    to_ready(&env);
    let text: String = (1..=10).map(|i| format!("[Self-Awareness] insight number {i}\n")).collect();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    env.run(["identity", "consolidate", "submit", "-"]).stdin(CONSOLIDATION).success();
    env
}

#[test]
fn identity_consolidation_rejected_changes_nothing_but_the_pending_file() {
    let env = consolidation_submitted();
    let out = env.run(["identity", "consolidate", "input"]).output().code(4);
    assert!(out.stderr.contains("consolidate approve"), "{}", out.stderr);
    let identity = env.read("IDENTITY.md");
    env.mutate([
        "--actor",
        "user:alice",
        "identity",
        "consolidate",
        "reject",
        "--reason",
        "too kind",
    ]);
    assert_eq!(env.read("IDENTITY.md"), identity);
    assert!(!env.path("memory/meta/pending-identity.md").exists());
    assert!(
        env.audit_lines().last().unwrap().contains("rejected: too kind"),
        "{:?}",
        env.audit_lines()
    );
    // Still due: the agent may try again.
    env.run(["identity", "consolidate", "input"]).success();
}

#[test]
fn first_reflection_reads_every_entity_later_ones_only_those_over_0_3() {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--dora", "Dora fixed the bike"]).success();
    env.set_now("2027-02-01T09:00:00Z"); // two months on: Dora's score is under 0.3
    to_ready(&env);
    let b: serde_json::Value =
        serde_json::from_str(&env.run(["reflect", "input", "--json"]).success().stdout).unwrap();
    assert!(b["text"].as_str().unwrap().contains("Dora fixed the bike"), "first run: all");
    env.run(["reflect", "submit", "-"]).stdin("Quiet weeks.\n").success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    to_ready(&env);
    let b: serde_json::Value =
        serde_json::from_str(&env.run(["reflect", "input", "--json"]).success().stdout).unwrap();
    assert!(!b["text"].as_str().unwrap().contains("Dora fixed the bike"));
    let cut = b["cut"].as_array().unwrap();
    assert!(
        cut.iter().any(|c| c["what"] == "memory/graph/entities/person--dora.md"
            && c["why"].as_str().unwrap().contains("is not above 0.3")),
        "{cut:?}"
    );
}

#[test]
fn bad_requests_and_decisions_are_user_errors() {
    let env = seeded();
    let head = env.head();
    let out = env.run(["reflect", "request", "--extra", "1000"]).output().code(1);
    assert!(out.stderr.contains("--extra needs a reason"), "{}", out.stderr);
    env.run(["reflect", "request", "--penalty", "500", "--reason", "late"]).success();
    let reward = env.read("memory/meta/rewards/2026-12-01.md");
    assert!(reward.contains("### Self-Penalty: -500 tokens\n1. late"), "{reward}");
    for args in [&["bonus"][..], &["bonus", "lots"], &["approve", "5"]] {
        let mut all = vec!["--actor", "user:ann", "reflect", "decide"];
        all.extend_from_slice(args);
        let out = env.run(all).output().code(1);
        assert!(out.stderr.contains("unknown decision"), "{args:?}: {}", out.stderr);
    }
    // A word that is no decision is a usage error that lists them (and the shell completes them).
    let before = env.head();
    let out = env.run(["--actor", "user:ann", "reflect", "decide", "aprove"]).output().code(2);
    assert!(
        out.stderr.contains("[possible values: approve, bonus, reduce, forgive, penalize]"),
        "{out}"
    );
    assert!(out.stderr.contains("'approve'"), "the nearest one: {out}");
    assert_eq!(env.head(), before);
    env.run(["--actor", "user:ann", "reflect", "decide", "forgive"]).success();
    let reward = env.read("memory/meta/rewards/2026-12-01.md");
    assert!(
        reward.contains("- **User Decision:** Forgave penalty\n- **Granted:** 8,000 tokens"),
        "{reward}"
    );
    assert_ne!(env.head(), head);
}

/// A reflection's CONTENT becomes memory once approved: the secret scanner checks it as it
/// checks `remember`, and `--allow-secret` lets a false alarm through.
#[test]
fn a_reflection_that_holds_a_credential_is_refused() {
    let env = seeded();
    to_ready(&env);
    env.run(["reflect", "input"]).success();
    let head = env.head();
    let text = "[Self-Awareness] I noted the staging login: password=Hunter2!xyz\n\nOPERATION: FLAG\nTARGET: episode:2026-12-01:09:00\nREASON: check it\n---\n";
    let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(4);
    assert!(out.stderr.contains("password-assignment"), "{out}");
    assert!(!out.stderr.contains("Hunter2!xyz"), "never echoed: {out}");
    assert_eq!(env.head(), head, "nothing written");
    env.run(["reflect", "submit", "--allow-secret", "-"]).stdin(text).success();
}

/// A second `reflect decide` says the reward is decided already, and what was decided (it said
/// that `reflect input` or `reflect submit` "must come first").
#[test]
fn a_second_decide_says_what_was_decided() {
    let env = seeded();
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "bonus", "500"]).success();
    let head = env.head();
    let out = env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).output().code(4);
    assert!(
        out.stderr.starts_with(
            "error: the reward for reflection #1 is already decided: Bonus, 8,500 tokens"
        ),
        "{out}"
    );
    assert!(!out.stderr.contains("must come first"), "{out}");
    assert!(out.stderr.contains("hint: the agent goes on with `cogmem reflect input`"), "{out}");
    env.run(["reflect", "submit", "-"]).stdin("Thinking.\n").success();
    let out =
        env.run(["--actor", "user:ann", "reflect", "decide", "reduce", "100"]).output().code(4);
    assert!(out.stderr.contains("already decided: Bonus, 8,500 tokens"), "{out}");
    assert!(out.stderr.contains("`cogmem reflect approve`"), "{out}");
    assert_ne!(env.head(), head);
    env.assert_clean_tree();
}

/// A reflection approved while a self-image consolidation waits: its insights were moved into
/// the month the consolidation summarised without seeing them, and the counter went to 0. Only
/// what the submission saw moves; the later entries stay in Recent and in the count.
#[test]
fn a_consolidation_moves_only_the_entries_it_saw() {
    let env = consolidation_submitted();
    to_ready(&env);
    let later = "[Self-Awareness] a later insight A\n[Self-Awareness] a later insight B\n";
    env.run(["reflect", "submit", "-"]).stdin(later).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    let diff = env.run(["identity", "consolidate", "show"]).success().stdout;
    assert!(!diff.contains("- 2026-12-01: a later insight A"), "{diff}");
    env.mutate(["--actor", "user:ann", "identity", "consolidate", "approve"]);
    let identity = env.read("IDENTITY.md");
    let recent = identity.split("### Recent").nth(1).unwrap().split("### Archived").next().unwrap();
    assert!(recent.contains("2026-12-01: a later insight A\n"), "{identity}");
    assert!(recent.contains("2026-12-01: a later insight B\n"), "{identity}");
    assert!(!recent.contains("insight number"), "{identity}");
    assert!(identity.contains("2026-12 (10 entries): ten small insights about pace"), "{identity}");
    assert_eq!(status_json(&env)["self_awareness_since_consolidation"], 2);
    env.assert_clean_tree();
}

/// An OPERATION block appended by hand after `reflect submit`: `show` warns, and `approve`
/// refuses it whether the edit is committed or not (it applied it once `cogmem sync` had
/// committed it, as the old hint said to do); restoring the submit commit's file lets it through.
#[test]
fn a_pending_reflection_edited_after_submit_is_refused_until_restored() {
    let env = seeded();
    to_ready(&env);
    let text = "Mono.\nOPERATION: PATTERN\nTARGET: memory/meta/evolution.md\nCONTENT: harmless\nREASON: r\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    let submit = env.head()[..8].to_owned();
    let file = "memory/meta/pending-reflection.md";
    let sneaky = "OPERATION: ARCHIVE\nTARGET: episode:2026-12-01:09:00\nREASON: sneaky\n---\n";
    env.write(file, &format!("{}{sneaky}", env.read(file)));
    let show = env.run(["reflect", "show"]).success();
    let warned = format!(
        "warning: [TMP]/ws/{file}: the pending reflection differs from what `cogmem reflect submit` wrote (commit [HASH])"
    );
    assert!(show.stderr.starts_with(&warned), "{show}");
    let json = env.run(["reflect", "show", "--json"]).success();
    assert!(json.stdout.contains("\"changed_since_submit\""), "{json}");
    let refused = env.run(["--actor", "user:ann", "reflect", "approve"]).output().code(4);
    assert!(
        refused.stderr.contains("differs from what `cogmem reflect submit` wrote"),
        "{refused}"
    );
    assert!(refused.stderr.contains(&format!("`git checkout [HASH] -- {file}`")), "{refused}");
    assert!(!refused.stderr.contains("commit them with `cogmem sync`"), "{refused}");
    env.run(["sync"]).success();
    let head = env.head();
    let refused = env.run(["--actor", "user:ann", "reflect", "approve"]).output().code(4);
    assert!(
        refused.stderr.contains("differs from what `cogmem reflect submit` wrote"),
        "{refused}"
    );
    assert_eq!(env.head(), head);
    env.git(&["checkout", &submit, "--", file]);
    env.run(["sync"]).success();
    env.run(["reflect", "show"]).success();
    let ok = env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    assert!(!ok.stderr.contains("ARCHIVE"), "{ok}");
    assert!(env.read("memory/meta/reflection-log.md").contains("1 proposed"));
    env.assert_clean_tree();
}

/// Commits `file` as edited, made to pass for cogmem's submit commit: committer `cogmem`, the
/// subject and trailers cogmem writes, the submit command as trigger.
pub(crate) fn fake_submit_commit(env: &TestEnv, file: &str, trigger: &str) {
    let msg = format!(
        "[EDIT] {file} — submitted\n\nActor: test-agent\nApproval: pending\nTrigger: {trigger}"
    );
    let out = env
        .git_command(&["commit", "-q", "-m", &msg, "--", file])
        .env("GIT_COMMITTER_NAME", "cogmem")
        .env("GIT_COMMITTER_EMAIL", "cogmem@cogmem.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Checks that `reflect approve` refuses the pending reflection as changed since its submit,
/// and applies nothing.
pub(crate) fn assert_approval_refused_as_changed(env: &TestEnv) {
    let head = env.head();
    let refused = env.run(["--actor", "user:ann", "reflect", "approve"]).output().code(4);
    assert!(
        refused.stderr.contains("differs from what `cogmem reflect submit` wrote"),
        "{refused}"
    );
    assert_eq!(env.head(), head, "nothing applied");
}

/// A hand commit made to pass for the submit commit (committer `cogmem`, the submit trigger)
/// does not make a hand edit the submission: the submit commit is the one cogmem recorded when
/// it submitted, so `show` warns and approval refuses, for a reflection and a consolidation.
#[test]
fn a_hand_commit_faking_the_submit_commit_does_not_pass_for_it() {
    let env = seeded();
    to_ready(&env);
    let text = "Mono.\nOPERATION: PATTERN\nTARGET: memory/meta/evolution.md\nCONTENT: harmless\nREASON: r\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    let file = "memory/meta/pending-reflection.md";
    let sneaky = "OPERATION: ARCHIVE\nTARGET: episode:2026-12-01:09:00\nREASON: sneaky\n---\n";
    env.write(file, &format!("{}{sneaky}", env.read(file)));
    fake_submit_commit(&env, file, "cogmem reflect submit");
    let show = env.run(["reflect", "show"]).success();
    assert!(show.stderr.contains("differs from what `cogmem reflect submit` wrote"), "{show}");
    assert_approval_refused_as_changed(&env);

    let env = consolidation_submitted();
    let file = "memory/meta/pending-identity.md";
    env.write(file, &format!("{}\n- a line added by hand\n", env.read(file)));
    fake_submit_commit(&env, file, "cogmem identity consolidate submit");
    let approve = ["--actor", "user:ann", "identity", "consolidate", "approve"];
    let out = env.run(approve).output().code(4);
    assert!(
        out.stderr.contains("differs from what `cogmem identity consolidate submit` wrote"),
        "{out}"
    );
}

/// A self-image consolidation is approved only as it was submitted, as a reflection is: a hand
/// edit of its pending file (its Seen list included), committed or not, is refused.
#[test]
fn a_consolidation_edited_after_submit_is_refused_until_restored() {
    let env = consolidation_submitted();
    let file = "memory/meta/pending-identity.md";
    let submitted = env.read(file);
    env.write(file, &format!("{submitted}\n- a line added by hand\n"));
    let identity = env.read("IDENTITY.md");
    let approve = ["--actor", "user:ann", "identity", "consolidate", "approve"];
    let out = env.run(approve).output().code(4);
    assert!(
        out.stderr.contains(
            "the pending self-image consolidation differs from what `cogmem identity consolidate submit` wrote"
        ),
        "{out}"
    );
    assert!(out.stderr.contains(&format!("-- {file}`")), "the hint restores it: {out}");
    env.mutate(["sync"]);
    env.run(approve).output().code(4);
    assert_eq!(env.read("IDENTITY.md"), identity, "nothing applied");
    env.write(file, &submitted);
    env.mutate(["sync"]);
    env.mutate(approve);
    assert!(!env.path(file).exists());
}
