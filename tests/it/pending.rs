//! Sub-agents propose, the main agent approves, rejects or defers: real files, real commits.

use crate::common::TestEnv;

fn propose(env: &TestEnv, agent: &str, args: &[&str]) -> String {
    let mut all = vec!["--actor".to_owned(), format!("subagent:{agent}"), "propose".to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    env.run(all).success().stderr
}

#[test]
fn proposal_approved_is_written_by_commit_from_in_one_commit() {
    let env = TestEnv::initialized();
    let before = env.commit_count();
    propose(&env, "researcher", &["--entity", "person--alice", "Alice prefers tea"]);
    assert_eq!(env.commit_count(), before + 1);
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("subagent:researcher\n[PROPOSE] memory/meta/pending-memories.md — proposal #1: Alice prefers tea"), "{log}");
    assert!(log.contains("Approval: pending"), "{log}");
    // Nothing reaches memory before approval.
    assert!(!env.path("memory/graph/entities/person--alice.md").exists());

    let out = env.run(["pending", "list", "--json"]).success();
    let list: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["status"], "pending");
    assert_eq!(list[0]["from"], "researcher");

    env.run(["pending", "approve", "1"]).success();
    assert_eq!(env.commit_count(), before + 2, "the approval is one commit");
    let author = env.git(&["log", "-1", "--format=%an"]);
    assert_eq!(author.trim(), "bot:commit-from:researcher");
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(files.contains("memory/graph/entities/person--alice.md"), "{files}");
    assert!(files.contains("memory/meta/pending-memories.md"), "{files}");
    assert!(env.read("memory/graph/entities/person--alice.md").contains("- Alice prefers tea"));
    let pending = env.read("memory/meta/pending-memories.md");
    assert!(pending.contains("- **Status**: committed\n"), "{pending}");
    assert!(
        env.audit_lines().iter().any(|l| l.contains(
            "| COMMIT | memory/meta/pending-memories.md | bot:commit-from:researcher | approved |"
        )),
        "{:?}",
        env.audit_lines()
    );
    env.assert_clean_tree();
    // A decided proposal cannot be decided again.
    let again = env.run(["pending", "approve", "1"]).output().code(4);
    assert!(again.stderr.contains("proposal #1 is already committed"), "{}", again.stderr);
    // And the memory is found.
    let found = env.run(["recall", "tea"]).success();
    assert!(found.stdout.contains("Alice prefers tea"), "{}", found.stdout);
}

#[test]
fn sub_agents_cannot_write_or_decide() {
    let env = TestEnv::initialized();
    propose(&env, "researcher", &["We chose Postgres"]);
    let head = env.head();
    for args in [
        vec!["--actor", "subagent:researcher", "remember", "We chose MySQL"],
        vec!["--actor", "subagent:researcher", "pending", "approve", "1"],
        vec!["--actor", "subagent:researcher", "pending", "reject", "1", "--reason", "no"],
    ] {
        let out = env.run(args.clone()).output().code(4);
        assert!(out.stderr.contains("sub-agent"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(env.head(), head, "nothing was committed");
    env.assert_clean_tree();
}

#[test]
fn duplicates_are_refused_and_contradictions_marked() {
    let env = TestEnv::initialized();
    propose(&env, "a", &["--entity", "person--alice", "Alice prefers tea"]);
    let head = env.head();
    let dup = env
        .run([
            "--actor",
            "subagent:b",
            "propose",
            "--entity",
            "person--alice",
            "alice  prefers tea",
        ])
        .output()
        .code(4);
    assert!(dup.stderr.contains("already proposed, as #1"), "{}", dup.stderr);
    assert_eq!(env.head(), head);

    let err = propose(&env, "b", &["--entity", "person--alice", "Alice prefers coffee"]);
    assert!(err.contains("conflicts with proposal #1"), "{err}");
    let text = env.read("memory/meta/pending-memories.md");
    assert!(text.contains("## Proposal #2 ⚠️ CONFLICT with #1\n"), "{text}");
    assert!(text.contains("- **Status**: conflict — see #1\n"), "{text}");

    // A functional relation that contradicts the current one is marked too.
    env.mutate([
        "remember",
        "Alice lives in Porto",
        "--relation",
        "person--alice|lives-in|place--porto",
    ]);
    let err = propose(
        &env,
        "c",
        &["--relation", "person--alice|lives-in|place--lisbon", "Alice moved to Lisbon"],
    );
    assert!(
        err.contains("conflicts with a current fact: person--alice lives-in place--porto"),
        "{err}"
    );
    let show = env.run(["pending", "show", "3", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(v["status"], "conflict");
    assert_eq!(v["relations"][0], "person--alice|lives-in|place--lisbon");
    // Approving it records the move: the old relation closes.
    env.run(["pending", "approve", "3"]).success();
    let alice = env.read("memory/graph/entities/person--alice.md");
    assert!(alice.contains("- lives-in: [[place--lisbon]]"), "{alice}");
    assert!(alice.contains("[[place--porto]] (since"), "{alice}");
    assert!(alice.contains("(until"), "{alice}");
}

#[test]
fn reject_and_defer_record_who_and_why() {
    let env = TestEnv::initialized();
    env.set_now("2027-01-15T10:00:00Z");
    propose(&env, "a", &["Bob likes jazz"]);
    propose(&env, "a", &["Bob likes opera"]);
    // An empty reason is refused for what it is (it was "the text to remember is empty").
    let head = env.head();
    for decision in ["reject", "defer"] {
        let out = env.run(["pending", decision, "1", "--reason", " "]).output().code(1);
        assert!(out.stderr.starts_with(&format!("error: a {decision} needs a reason")), "{out}");
        assert!(out.stderr.contains("--reason TEXT") && !out.stderr.contains("stdin"), "{out}");
    }
    assert_eq!(env.head(), head);
    env.run(["pending", "defer", "2", "--reason", "ask Bob"]).success();
    env.run(["pending", "reject", "1", "--reason", "Bob said he hates jazz"]).success();
    let text = env.read("memory/meta/pending-memories.md");
    assert!(
        text.contains(
            "- **Decision**: 2027-01-15T10:00Z test-agent: rejected — Bob said he hates jazz\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("- **Decision**: 2027-01-15T10:00Z test-agent: deferred — ask Bob\n"),
        "{text}"
    );
    // The decisions approve nothing: their audit lines carry the decider's own approval.
    let decisions: Vec<String> = env
        .audit_lines()
        .into_iter()
        .filter(|l| l.contains("proposal #1 rejected") || l.contains("proposal #2 deferred"))
        .collect();
    assert_eq!(decisions.len(), 2, "{decisions:?}");
    assert!(decisions.iter().all(|l| !l.contains("| approved |")), "{decisions:?}");
    let open = env.run(["pending", "list"]).success().stdout;
    assert!(open.contains("#2") && !open.contains("#1 "), "{open}");
    // Deferred proposals can still be approved later.
    env.run(["pending", "approve", "2"]).success();
    assert!(env.read("memory/meta/pending-memories.md").contains("- **Status**: committed\n"));
    let unknown = env.run(["pending", "show", "9"]).output().code(1);
    assert!(unknown.stderr.contains("no proposal #9"), "{}", unknown.stderr);
    env.assert_clean_tree();
}

#[test]
fn a_damaged_proposal_is_reported_and_the_others_still_work() {
    let env = TestEnv::initialized();
    propose(&env, "a", &["Bob likes jazz"]);
    let mut text = env.read("memory/meta/pending-memories.md");
    text.push_str("\n## Proposal #2\n- **From**: a\n- **Status**: pending\n\n---\n");
    env.write("memory/meta/pending-memories.md", &text);
    env.git_commit_all("a hand-written proposal without content");
    let out = env.run(["pending", "list"]).output().code(3);
    assert!(out.stderr.contains("pending-memories.md:"), "{}", out.stderr);
    assert!(out.stderr.contains("has no **Content** line"), "{}", out.stderr);
    assert!(out.stdout.contains("Bob likes jazz"));
    let bad = env.run(["pending", "approve", "2"]).output().code(1);
    assert!(bad.stderr.contains("pending-memories.md:"), "names the file and line: {}", bad.stderr);
    env.run(["pending", "approve", "1"]).success();
}

/// A block whose status was mistyped by hand: `pending approve` names its line and what is
/// wrong, and a new proposal takes the next number, never the broken block's (it was given #2
/// again, and `pending approve 2` then approved the new one).
#[test]
fn a_broken_block_keeps_its_number_and_is_named_with_its_line() {
    let env = TestEnv::initialized();
    propose(&env, "s", &["Bob likes tea"]);
    propose(&env, "s", &["Carol likes coffee"]);
    let text = env.read("memory/meta/pending-memories.md");
    let at = text.rfind("- **Status**: pending").expect("proposal #2's status");
    let typo = format!("{}- **Status**: pendng{}", &text[..at], &text[at + 21..]);
    env.write("memory/meta/pending-memories.md", &typo);
    env.git_commit_all("typo in #2's status");
    let line = typo[..at].lines().count() + 1;
    let bad = env.run(["pending", "approve", "2"]).output().code(1);
    assert!(
        bad.stderr.contains(&format!(
            "memory/meta/pending-memories.md:{line}: proposal #2: unknown status \"pendng\""
        )),
        "{bad}"
    );
    let out = propose(&env, "s", &["Dan likes juice"]);
    assert!(out.starts_with("proposal #3 recorded"), "{out}");
    let text = env.read("memory/meta/pending-memories.md");
    assert_eq!(text.matches("## Proposal #2\n").count(), 1, "{text}");
    env.run(["pending", "approve", "2"]).output().code(1);
    env.run(["pending", "approve", "3"]).success();
    env.assert_clean_tree();
}

/// Deferring a deferred proposal changes nothing, as pinning a pinned memory: exit 0, no commit
/// (it made one that touched only audit.log while its subject claimed pending-memories.md).
#[test]
fn deferring_a_deferred_proposal_is_a_no_op() {
    let env = TestEnv::initialized();
    propose(&env, "s", &["Bob likes tea"]);
    env.run(["pending", "defer", "1"]).success();
    let (head, text) = (env.head(), env.read("memory/meta/pending-memories.md"));
    let again = env.run(["pending", "defer", "1", "--reason", "still unsure"]).success();
    assert_eq!(again.stderr, "proposal #1 is already deferred\n", "{again}");
    let json = env.run(["pending", "defer", "1", "--json"]).success();
    assert!(json.stdout.contains("\"commit\": null"), "{json}");
    assert_eq!(env.head(), head);
    assert_eq!(env.read("memory/meta/pending-memories.md"), text);
    env.assert_clean_tree();
}

/// The MCP client (after [`crate::mcp::CLIENT_PRELUDE`]): `pending` actions that need a
/// number, called without one, print their errors; the proposal is then approved.
const NUMBERLESS_CLIENT: &str = r#"
async def checks():
    async with session() as s:
        for action in ["approve", "show"]:
            r = await s.call_tool("pending", {"action": action})
            assert r.is_error, r
            print(r.content[0].text)
        r = await s.call_tool("pending", {"action": "approve", "number": 1})
        assert not r.is_error, r.content[0].text

run(checks)
"#;

/// `pending` over MCP without a `number` says which argument to pass and where to find it;
/// it said `unknown proposal number "none"; expected one of: a `number` argument`.
#[test]
fn mcp_pending_without_a_number_says_what_to_pass() {
    let env = TestEnv::initialized();
    propose(&env, "scout", &["We chose Postgres"]);
    let script = format!("{}{NUMBERLESS_CLIENT}", crate::mcp::CLIENT_PRELUDE);
    let out = crate::mcp::run_client(&env, "pending_numberless.py", &script);
    let hint = "hint: call `pending` with `\"action\": \"ACTION\", \"number\": N`; `pending` with \
                `\"action\": \"list\"` shows each one's number";
    let want = ["approve", "show"].map(|action| {
        format!(
            "error: `pending` with action `{action}` needs `number`: the proposal's number, `#N` \
             in the pending list\n\n{}",
            hint.replace("ACTION", action)
        )
    });
    assert!(out.starts_with(&format!("{}\n{}\n", want[0], want[1])), "{out}");
    assert!(!out.contains("none"), "{out}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "bot:commit-from:scout\n");
    env.assert_clean_tree();
}
