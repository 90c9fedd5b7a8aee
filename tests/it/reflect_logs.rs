//! The skill's logs around reflection (issue 19): reflection-log retention (10 full entries,
//! one-line summaries before them), the reward-log result written on approval and a rejection
//! record on rejection, evolution.md's reward lines, the logs in the context pack and the
//! session hook, and post-reflection dialogues read by the next reflection's input.
//! See: issue 19

use crate::common::{Output, TestEnv};

/// Runs one whole cycle: request, decide (as `decision`), submit `text`, approve.
fn approved_cycle(env: &TestEnv, decision: &[&str], text: &str) {
    env.run(["reflect", "request"]).success();
    let mut decide = vec!["--actor", "user:ann", "reflect", "decide"];
    decide.extend_from_slice(decision);
    env.run(&decide).success();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
}

fn seeded() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    env
}

// See: issue 19
#[test]
fn issue_19_twelve_approved_reflections_keep_ten_full_entries_and_two_summaries() {
    let env = seeded();
    for n in 1..=12 {
        approved_cycle(&env, &["approve"], &format!("Thought number {n} is \"new\". More.\n"));
    }
    let log = env.read("memory/meta/reflection-log.md");
    let summaries: Vec<&str> = log.lines().filter(|l| l.contains(" | approved | ")).collect();
    assert_eq!(
        summaries,
        [
            "## Reflection #1 — 2026-12-01 | approved | Insight: \"Thought number 1 is 'new'.\"",
            "## Reflection #2 — 2026-12-01 | approved | Insight: \"Thought number 2 is 'new'.\"",
        ],
        "{log}"
    );
    assert_eq!(log.matches("### Status").count(), 10, "{log}");
    assert!(log.contains("\n## Reflection #3 — 2026-12-01\n### Status\n"), "{log}");
    assert!(!env.path("memory/meta/reflection-archive.md").exists(), "nothing moved out yet");
    // The full text of a summarised entry is not lost: its reflection file and the history.
    let first = env.read("memory/meta/reflections/2026-12-01.md");
    assert!(first.starts_with("# Reflection #1 — 2026-12-01\n\nThought number 1"), "{first}");
    let history = env.git(&["log", "-p", "--", "memory/meta/reflection-log.md"]);
    assert!(history.contains("\n-Thought number 1 is \"new\".\n"), "{history}");
    env.assert_clean_tree();
}

// See: issue 19
#[test]
fn issue_19_a_rejected_reflection_records_a_rejection_and_no_reward_result() {
    let env = seeded();
    let header = env.read("memory/meta/reward-log.md");
    env.run(["reflect", "request"]).success();
    env.mutate(["--actor", "user:ann", "reflect", "decide", "bonus", "500", "--reason", "fine"]);
    assert_eq!(env.read("memory/meta/reward-log.md"), header, "no result at the decision");
    env.run(["reflect", "submit", "-"]).stdin("Just thinking.\n").success();
    env.mutate(["--actor", "user:ann", "reflect", "reject", "--reason", "too vague"]);
    let log = env.read("memory/meta/reward-log.md");
    assert_eq!(
        log,
        format!(
            "{header}\n## 2026-12-01\n**Result:** rejected (reflection #1)\n**Reason:** too vague\n"
        )
    );
    assert!(!log.contains("reward\n"), "a rejected reflection earns no reward: {log}");

    // The next one, approved: its result, and evolution.md learns the trend.
    approved_cycle(&env, &["bonus", "1000", "--reason", "clear and short"], "Less is more.\n");
    let log = env.read("memory/meta/reward-log.md");
    assert!(
        log.ends_with(
            "**Reason:** too vague\n\n## 2026-12-01\n**Result:** +1K reward\n**Reason:** clear and short\n"
        ),
        "{log}"
    );
    let evo = env.read("memory/meta/evolution.md");
    assert!(
        evo.contains("\n## Reflection #1 — 2026-12-01\n- Key insight: Less is more.\n- Reward: +1K reward (clear and short)\n"),
        "{evo}"
    );
    assert!(
        evo.contains(
            "- Reward trend: rejected, +1K (last 2: 1 rewards, 0 penalties, 0 baseline, 1 rejected)\n"
        ),
        "{evo}"
    );
}

fn pack_of(out: &Output) -> (String, Vec<serde_json::Value>) {
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    (v["text"].as_str().unwrap().to_owned(), v["receipt"].as_array().unwrap().clone())
}

fn line_of<'a>(receipt: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    receipt.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("{id} in {receipt:#?}"))
}

// See: issue 19
#[test]
fn issue_19_the_context_pack_and_the_session_hook_carry_the_latest_reflection_and_rewards() {
    let env = seeded();
    approved_cycle(&env, &["approve"], "Bob keeps to his plans.\n");
    approved_cycle(&env, &["bonus", "500", "--reason", "well done"], "Gardens take patience.\n");
    let head = env.head();
    let (text, receipt) = pack_of(&env.run(["context", "--json"]).success());
    assert!(
        text.contains(
            "\n## Latest reflection\n- Reflection #2 — 2026-12-01 | approved | Insight: \"Gardens take patience.\"\n\n## Recent reward outcomes\n- 2026-12-01: +0.5K reward — well done\n- 2026-12-01: 0 (baseline) — approved as requested\n\n## Relevant memories\n"
        ),
        "{text}"
    );
    let r = line_of(&receipt, "reflection-log:2");
    assert_eq!(
        (&r["part"], &r["decision"], &r["reason"]),
        (
            &"reflection".into(),
            &"selected".into(),
            &"the latest reflection (memory/meta/reflection-log.md)".into()
        )
    );
    for id in ["reward-log:2026-12-01:2", "reward-log:2026-12-01"] {
        let r = line_of(&receipt, id);
        assert_eq!((&r["part"], &r["decision"]), (&"reward".into(), &"selected".into()), "{id}");
        assert_eq!(r["reason"], "a recent reward outcome (memory/meta/reward-log.md)");
    }
    // A budget too small for them: out, and the receipt says why.
    let (_, receipt) = pack_of(&env.run(["context", "--json", "--budget", "12"]).success());
    let r = line_of(&receipt, "reflection-log:2");
    assert_eq!((&r["decision"], &r["reason"]), (&"suppressed".into(), &"over budget".into()));

    // The session hook hands the same parts to the host.
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hooks/claude-code/SessionStart.json"
    ))
    .unwrap()
    .replace("{{CWD}}", &env.root.display().to_string())
    .replace("{{TRANSCRIPT}}", &env.home.join("none.jsonl").display().to_string());
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let added = v["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        added.contains("## Latest reflection\n- Reflection #2 — 2026-12-01 | approved"),
        "{added}"
    );
    assert!(added.contains("- 2026-12-01: +0.5K reward — well done\n"), "{added}");
    assert_eq!(env.head(), head, "reading commits nothing");
    env.assert_clean_tree();
}

const DIALOGUE: &str = "User: Why archive the garden note?\nAgent: The spring plan\nreplaced it.\nExtracted: the user wants the plan kept\n";

// See: issue 19
#[test]
fn issue_19_a_dialogue_is_appended_and_the_next_reflection_reads_it() {
    let env = seeded();
    let out = env.run(["reflect", "dialogue", "-"]).stdin(DIALOGUE).output().code(4);
    assert!(out.stderr.contains("`cogmem reflect approve` must come first"), "{out}");
    approved_cycle(&env, &["approve"], "Less is more.\n");

    let before = (env.commit_count(), env.audit_lines().len());
    let out = env.run(["reflect", "dialogue", "-"]).stdin(DIALOGUE).success();
    env.assert_one_change(before.0, before.1, &out);
    let rel = "memory/meta/reflections/dialogues/2026-12-01.md";
    let first = "# Post-Reflection Dialogue — 2026-12-01\n\n## Reflection Summary\nReflection #1 — 2026-12-01 | approved | Insight: \"Less is more.\"\n\n## Dialogue\n**User:** Why archive the garden note?\n\n**Agent:** The spring plan replaced it.\n\n## Extracted to Main Reflection\n- the user wants the plan kept\n";
    assert_eq!(env.read(rel), first);
    // A second one the same day is appended.
    env.write("../talk.txt", "user: And the tomatoes?\nagent: Kept.\n");
    env.mutate(["reflect", "dialogue", "../talk.txt"]);
    let file = env.read(rel);
    assert!(file.starts_with(first), "{file}");
    assert!(
        file.ends_with("\n---\n\n## Reflection Summary\nReflection #1 — 2026-12-01 | approved | Insight: \"Less is more.\"\n\n## Dialogue\n**User:** And the tomatoes?\n\n**Agent:** Kept.\n\n## Extracted to Main Reflection\n- (nothing)\n"),
        "{file}"
    );
    // Bad input names the file and line; a credential is refused; nothing is written.
    let head = env.head();
    let out = env.run(["reflect", "dialogue", "-"]).stdin("hello\nUser: x\n").output().code(1);
    assert!(out.stderr.starts_with("error: stdin:1: text before the first turn"), "{out}");
    let key = format!("User: my key is {}{}\n", "AKIA", "IOSFODNN7EXAMPLE");
    let out = env.run(["reflect", "dialogue", "-"]).stdin(key).output().code(4);
    assert!(out.stderr.contains("AKIA"), "{out}");
    // A sub-agent only proposes.
    let out = env
        .run(["--actor", "subagent:scout", "reflect", "dialogue", "-"])
        .stdin(DIALOGUE)
        .output()
        .code(4);
    assert!(out.stderr.contains("subagent:scout"), "{out}");
    assert_eq!(env.head(), head);

    // The next reflection's input has both dialogues and the reward outcome.
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let text = env.run(["reflect", "input"]).success().stdout;
    let part = text.split("## Dialogues since the last reflection\n").nth(1).expect(&text);
    assert!(part.contains("**Agent:** The spring plan replaced it."), "{text}");
    assert!(part.contains("**User:** And the tomatoes?"), "{text}");
    assert!(
        text.contains("## Reward outcomes\n\n- 2026-12-01: 0 (baseline) — approved as requested\n"),
        "{text}"
    );
}
