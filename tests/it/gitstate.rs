//! Git states: while a merge, rebase, cherry-pick, revert or bisect is in progress in the
//! workspace's repository, every write is refused (exit 4, with the git command that finishes or
//! aborts it) and reads keep working. See: issue 16.

use crate::common::TestEnv;

/// Runs git in the workspace like [`TestEnv::git`], but returns whether it succeeded instead of
/// failing the test: a conflicting merge is supposed to fail.
fn git_may_fail(env: &TestEnv, args: &[&str]) -> bool {
    env.git_command(args).output().expect("git runs").status.success()
}

/// Two branches that edit the same line of MEMORY.md: `main` (checked out) and `other`.
fn diverged() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "Ann prefers green tea"]).success();
    let memory = env.read("MEMORY.md");
    env.git(&["switch", "-q", "-c", "other"]);
    env.write(
        "MEMORY.md",
        &memory.replace("## Active Context\n", "## Active Context\n- Shipping v2 on Friday\n"),
    );
    env.git_commit_all("other: active context");
    env.git(&["switch", "-q", "main"]);
    env.write(
        "MEMORY.md",
        &memory.replace("## Active Context\n", "## Active Context\n- Shipping v3 on Monday\n"),
    );
    env.git_commit_all("main: active context");
    env
}

#[test]
fn writes_are_refused_during_a_conflicted_merge_and_reads_keep_working() {
    let env = diverged();
    assert!(!git_may_fail(&env, &["merge", "other"]), "the merge conflicts");
    assert!(env.path(".git/MERGE_HEAD").exists());
    assert!(env.read("MEMORY.md").contains("<<<<<<<"));
    let head = env.head();

    let out = env.run(["remember", "Bob likes coffee"]).output().code(4);
    assert!(out.stderr.contains("error: a git merge is in progress"), "{out}");
    assert!(out.stderr.contains("`git merge --continue`"), "{out}");
    assert!(out.stderr.contains("`git merge --abort`"), "{out}");
    let out = env.run(["sync"]).output().code(4);
    assert!(out.stderr.contains("error: a git merge is in progress"), "{out}");
    assert!(out.stderr.contains("hint:") && out.stderr.contains("`git merge --abort`"), "{out}");

    assert_eq!(env.head(), head, "nothing committed");
    let committed = env.git(&["show", "HEAD:MEMORY.md"]);
    assert!(!committed.contains("<<<<<<<"), "conflict markers not committed: {committed}");
    assert!(env.path(".git/MERGE_HEAD").exists(), "the merge is left as it was");
    assert!(!env.read("memory/meta/audit.log").contains("Bob likes coffee"));

    let out = env.run(["search", "green tea"]).success();
    assert!(out.stdout.contains("green tea"), "{out}");

    env.git(&["merge", "--abort"]);
    env.run(["remember", "Bob likes coffee"]).success();
    assert_ne!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn writes_are_refused_during_a_cherry_pick_and_a_bisect() {
    let env = diverged();
    assert!(!git_may_fail(&env, &["cherry-pick", "other"]), "the cherry-pick conflicts");
    let head = env.head();
    let out = env.run(["remember", "Bob likes coffee"]).output().code(4);
    assert!(out.stderr.contains("error: a git cherry-pick is in progress"), "{out}");
    assert!(out.stderr.contains("`git cherry-pick --abort`"), "{out}");
    assert_eq!(env.head(), head);
    env.git(&["cherry-pick", "--abort"]);

    env.git(&["bisect", "start"]);
    let out = env.run(["remember", "Bob likes coffee"]).output().code(4);
    assert!(out.stderr.contains("error: a git bisect is in progress"), "{out}");
    assert!(out.stderr.contains("`git bisect reset`"), "{out}");
    assert_eq!(env.head(), head);
    env.git(&["bisect", "reset"]);
    env.run(["remember", "Bob likes coffee"]).success();
    assert_ne!(env.head(), head);
}

#[test]
fn status_names_the_git_state_while_writes_are_refused() {
    let env = diverged();
    let out = env.run(["status", "--json"]).output();
    assert!(!out.stdout.contains("git_state"), "absent while git is idle: {out}");
    assert!(!git_may_fail(&env, &["merge", "other"]), "the merge conflicts");
    let out = env.run(["status", "--json"]).output();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["git_state"], "merge", "{out}");
    let out = env.run(["status"]).output();
    assert!(out.stdout.contains("git         merge in progress: writes are refused"), "{out}");
}

// See: issue 16
#[test]
fn issue_16_writes_are_refused_while_a_rebase_is_stopped_on_a_conflict() {
    let env = diverged();
    assert!(!git_may_fail(&env, &["rebase", "other"]), "the rebase stops on the conflict");
    assert!(env.path(".git/rebase-merge").exists() || env.path(".git/rebase-apply").exists());
    assert!(env.read("MEMORY.md").contains("<<<<<<<"));
    let head = env.head();
    for args in [&["remember", "Bob likes coffee"][..], &["sync"][..]] {
        let out = env.run(args).output().code(4);
        assert!(out.stderr.contains("error: a git rebase is in progress"), "{args:?}: {out}");
        assert!(out.stderr.contains("hint:"), "{args:?}: {out}");
        assert!(out.stderr.contains("`git rebase --continue`"), "{args:?}: {out}");
        assert!(out.stderr.contains("`git rebase --abort`"), "{args:?}: {out}");
        assert_eq!(env.head(), head, "{args:?} committed nothing");
    }
    let committed = env.git(&["show", "HEAD:MEMORY.md"]);
    assert!(!committed.contains("<<<<<<<"), "conflict markers not committed: {committed}");
    assert!(!env.read("memory/meta/audit.log").contains("Bob likes coffee"));
    env.git(&["rebase", "--abort"]);
    env.run(["remember", "Bob likes coffee"]).success();
    env.assert_clean_tree();
}

// See: issue 16
#[test]
fn issue_16_sync_remote_is_refused_mid_merge_and_pushes_nothing() {
    let env = diverged();
    let remote = env.home.join("remote.git");
    env.git(&["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
    env.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    assert!(!git_may_fail(&env, &["merge", "other"]), "the merge conflicts");
    let head = env.head();
    let out = env.run(["sync", "--remote", "origin"]).output().code(4);
    assert!(out.stderr.contains("error: a git merge is in progress"), "{out}");
    assert!(out.stderr.contains("`git merge --continue`"), "{out}");
    assert!(out.stderr.contains("`git merge --abort`"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    assert!(env.path(".git/MERGE_HEAD").exists(), "the merge is left as it was");
    let refs = env.git(&["--git-dir", remote.to_str().unwrap(), "for-each-ref"]);
    assert!(refs.trim().is_empty(), "nothing pushed: {refs}");
}
