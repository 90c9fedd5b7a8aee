//! Critical-file changes: listed by `cogmem status` until `cogmem audit ack`, and integrity
//! problems when the wrong actor made them.

use crate::common::TestEnv;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn edit_soul(env: &TestEnv, line: &str) {
    let soul = env.read("SOUL.md") + line;
    env.write("SOUL.md", &soul);
}

#[test]
fn a_fresh_workspace_has_no_unacknowledged_critical_changes() {
    let env = TestEnv::initialized();
    let out = env.run(["status", "--json"]).success();
    let v = json(&out.stdout);
    assert_eq!(v["unacknowledged_critical"], serde_json::json!([]));
    assert_eq!(v["integrity_problems"], serde_json::json!([]));
    let out = env.run(["audit", "ack", "--actor", "user:ann"]).success();
    assert_eq!(out.stderr, "nothing to acknowledge\n");
}

#[test]
fn status_lists_a_critical_change_until_it_is_acknowledged() {
    let env = TestEnv::initialized();
    edit_soul(&env, "Be brief.\nBe kind.\n");
    env.mutate(["sync", "--actor", "user:ann"]);
    let commit = env.head();
    let out = env.run(["status"]).success();
    assert!(
        out.stdout.contains(&format!(
            "critical    1 change unacknowledged:\n  {}:SOUL.md  2026-12-01T09:00:01Z  user:ann  +2 -0\n",
            &commit[..8]
        ).replace(&commit[..8], "[HASH]")),
        "{out}"
    );
    // The hint names the change's own id (issue 18).
    assert!(out.stderr.contains("then `cogmem audit ack [HASH]:SOUL.md`"), "{out}");
    let out = env.run(["status", "--json"]).success();
    let v = json(&out.stdout);
    let c = &v["unacknowledged_critical"][0];
    assert_eq!(c["commit"], "[HASH]", "a full commit id");
    assert_eq!(c["id"], "[HASH]:SOUL.md");
    assert_eq!((c["added"].as_u64(), c["removed"].as_u64()), (Some(2), Some(0)));
    assert_eq!(c["date"], "2026-12-01T09:00:01Z");
    assert_eq!(c.get("integrity_problem"), None);

    let before = env.commit_count();
    let out = env.run(["audit", "ack", &commit[..7], "--actor", "user:ann"]).success();
    assert_eq!(env.commit_count(), before + 1);
    env.assert_clean_tree();
    assert!(out.stderr.starts_with("acknowledged 1 critical change (commit [HASH])\n"), "{out}");
    let last = env.audit_lines().pop().unwrap();
    assert!(
        last.contains(&format!(
            "| ACK | SOUL.md | user:ann | — | acknowledged {commit} by user:ann (+2 -0)"
        )),
        "{last}"
    );
    let critical = env.run(["log", "--critical", "--limit", "1"]).success();
    assert_eq!(
        critical.stdout.trim_end(),
        last.replace(&commit, "[HASH]"),
        "acknowledgements are critical lines"
    );
    let out = env.run(["status", "--json"]).success();
    assert_eq!(json(&out.stdout)["unacknowledged_critical"], serde_json::json!([]));
    // Acknowledging it again names what is left to acknowledge.
    let out = env.run(["audit", "ack", &commit[..8], "--actor", "user:ann"]).output().code(1);
    assert!(
        out.stderr.contains("expected one of: none: every critical change is acknowledged"),
        "{out}"
    );
}

#[test]
fn a_critical_change_by_an_agent_is_an_integrity_problem_until_acknowledged() {
    let env = TestEnv::initialized();
    let identity = env.read("IDENTITY.md") + "- I am in charge now.\n";
    env.write("IDENTITY.md", &identity);
    env.mutate(["sync", "--actor", "bot:rogue"]);
    let out = env.run(["status"]).output().code(3);
    assert!(out.stdout.contains("  bot:rogue  +1 -0  INTEGRITY\n"), "{out}");
    assert!(out.stderr.contains(
        ":IDENTITY.md: changed by bot:rogue (approval auto); only a person (`user:NAME` or `manual`) or an approved reflection may change a critical file"
    ), "{out}");
    let out = env.run(["status", "--json"]).output().code(3);
    let v = json(&out.stdout);
    assert_eq!(v["integrity_problems"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["integrity_problems"][0]["actor"], "bot:rogue");
    env.run(["audit", "ack", "--actor", "user:ann"]).success();
    env.run(["status"]).success();
}

/// A plain `git commit` by a person's name is recorded by adoption as `user:NAME`, and status
/// names it the same way; it is still an integrity problem, since an agent's `git commit`
/// carries git's user.name too, and the problem says so instead of "only a person may change".
#[test]
fn a_plain_git_commit_by_a_named_author_is_flagged_with_the_reason() {
    let env = TestEnv::initialized();
    let identity = env.read("IDENTITY.md") + "- Edited with plain git.\n";
    env.write("IDENTITY.md", &identity);
    env.git(&["add", "IDENTITY.md"]);
    env.git(&["commit", "-q", "--author", "Bea Hand <bea@example.com>", "-m", "identity"]);
    let out = env.run(["status", "--json"]).output().code(3);
    let v = json(&out.stdout);
    let problem = &v["integrity_problems"][0];
    assert_eq!(problem["actor"], "user:Bea-Hand", "as adoption records it: {v:#}");
    let why = problem["integrity_problem"].as_str().unwrap();
    assert!(
        why.starts_with("committed with plain git by \"Bea Hand\": cogmem cannot tell"),
        "{why}"
    );
    assert!(why.contains("`cogmem audit ack`"), "{why}");
    // Adoption writes the same actor into the audit log.
    env.run(["remember", "a note"]).success();
    assert!(
        env.audit_lines().iter().any(|l| l.contains("| EDIT | IDENTITY.md | user:Bea-Hand |")),
        "{:#?}",
        env.audit_lines()
    );
    let out = env.run(["status", "--json"]).output().code(3);
    assert_eq!(json(&out.stdout)["integrity_problems"][0]["actor"], "user:Bea-Hand");
    env.run(["audit", "ack", "--actor", "user:bea"]).success();
    env.run(["status"]).success();
}

#[test]
fn commits_made_with_plain_git_are_checked_too() {
    let env = TestEnv::initialized();
    edit_soul(&env, "Edited outside cogmem.\n");
    env.git_commit_all("tweak soul");
    // A reflection's approved change is fine; only the plain commit is a problem.
    let identity = env.read("IDENTITY.md") + "- Patient.\n";
    env.write("IDENTITY.md", &identity);
    env.git(&["add", "IDENTITY.md"]);
    env.git(&[
        "commit",
        "-q",
        "--author",
        "reflection:r-001 <r@cogmem.invalid>",
        "-m",
        "[EDIT] IDENTITY.md — self-image\n\nActor: reflection:r-001\nApproval: approved\n",
    ]);
    let identity_commit = env.head();
    let out = env.run(["status", "--json"]).output().code(3);
    let v = json(&out.stdout);
    let list = v["unacknowledged_critical"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{v:#}");
    assert_eq!(
        (list[0]["file"].as_str(), list[0]["actor"].as_str()),
        (Some("SOUL.md"), Some("tester"))
    );
    assert!(list[0]["integrity_problem"].is_string());
    assert_eq!(
        (list[1]["file"].as_str(), list[1]["actor"].as_str()),
        (Some("IDENTITY.md"), Some("reflection:r-001"))
    );
    assert!(list[1].get("integrity_problem").is_none());
    // One id for one file; an unknown id is an error.
    env.run(["audit", "ack", "zzzz", "--actor", "user:ann"]).output().code(1);
    // The `ack` adopted both plain commits first (issue 17): HEAD is no longer the commit.
    let id = format!("{}:IDENTITY.md", &identity_commit[..8]);
    env.run(["audit", "ack", &id, "--actor", "user:ann"]).success();
    let out = env.run(["status", "--json"]).output().code(3);
    assert_eq!(json(&out.stdout)["unacknowledged_critical"].as_array().map(Vec::len), Some(1));
}

#[test]
fn acknowledgements_survive_a_clone() {
    let env = TestEnv::initialized();
    edit_soul(&env, "One.\n");
    env.mutate(["sync"]);
    edit_soul(&env, "Two.\n");
    env.mutate(["sync"]);
    let out = env.run(["audit", "ack", "--json", "--actor", "user:ann"]).success();
    assert_eq!(json(&out.stdout)["acknowledged"].as_array().map(Vec::len), Some(2));
    let clone = env.home.join("clone");
    env.git(&["clone", "-q", env.root.to_str().unwrap(), clone.to_str().unwrap()]);
    let out = env.run(["status", "--json", "--workspace", clone.to_str().unwrap()]).success();
    assert_eq!(json(&out.stdout)["unacknowledged_critical"], serde_json::json!([]));
}

#[test]
fn the_scan_cache_follows_new_commits_and_rewritten_history() {
    let env = TestEnv::initialized();
    let count = |env: &TestEnv| {
        let out = env.run(["status", "--json"]).success();
        json(&out.stdout)["unacknowledged_critical"].as_array().map_or(0, Vec::len)
    };
    edit_soul(&env, "One.\n");
    env.mutate(["sync", "--actor", "user:ann"]);
    assert_eq!(count(&env), 1);
    assert!(env.path(".cogmem/critical-scan.json").is_file());
    edit_soul(&env, "Two.\n");
    env.mutate(["sync", "--actor", "user:ann"]);
    assert_eq!(count(&env), 2, "the new commit is scanned on top of the cache");
    env.git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(count(&env), 1, "a commit no longer in the history is not listed");
    std::fs::write(env.path(".cogmem/critical-scan.json"), "garbage").unwrap();
    assert_eq!(count(&env), 1, "a damaged cache is rebuilt");
}

// See: issue 20
/// The scan cache does not grow with the history: the commits it has looked at are a list
/// beside it that later calls append to, and a call a few commits past the cached head reads
/// neither the list nor the older history. Changes are still found through a chain of writes,
/// past a merge (which reads the list and walks), and after the list is lost.
#[test]
fn the_scan_cache_stays_small_as_the_history_grows() {
    let env = TestEnv::initialized();
    // (Exit 3 once the side branch's commit, by a non-person, is an integrity problem.)
    let count = |env: &TestEnv| {
        let out = env.run(["status", "--json"]).output();
        json(&out.stdout)["unacknowledged_critical"].as_array().map_or(0, Vec::len)
    };
    edit_soul(&env, "One.\n");
    env.mutate(["sync", "--actor", "user:ann"]);
    assert_eq!(count(&env), 1);
    let size = || std::fs::metadata(env.path(".cogmem/critical-scan.json")).unwrap().len();
    let small = size();
    for i in 0..30 {
        env.mutate(["remember", &format!("note number {i}")]);
        assert_eq!(count(&env), 1);
    }
    assert_eq!(size(), small, "the cache holds the changes, not the commits");
    let listed = env.read(".cogmem/critical-scanned.txt").lines().count();
    assert_eq!(listed, env.commit_count(), "every commit listed once");

    // A chain of writes, then a critical change: found on top of the cache.
    edit_soul(&env, "Two.\n");
    env.mutate(["sync", "--actor", "user:ann"]);
    assert_eq!(count(&env), 2);

    // A merge of a side branch that changed SOUL.md: the walk finds it.
    env.git(&["checkout", "-q", "-b", "side", "HEAD~2"]);
    edit_soul(&env, "Side.\n");
    env.git_commit_all("side edit of the soul");
    env.git(&["checkout", "-q", "-"]);
    env.git(&["merge", "-q", "--no-ff", "-X", "ours", "-m", "merge side", "side"]);
    assert_eq!(count(&env), 3, "the side commit is a critical change");

    // The list lost: the whole history is scanned again, with the same answer.
    std::fs::remove_file(env.path(".cogmem/critical-scanned.txt")).unwrap();
    assert_eq!(count(&env), 3);
    assert!(env.path(".cogmem/critical-scanned.txt").is_file());
}
