//! `cogmem sync --remote`: two machines sharing one bare remote, with real git on both ends.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TestEnv;

/// Runs git in `dir` with the sealed test environment and returns stdout.
fn git_in(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "tester")
        .env("GIT_AUTHOR_EMAIL", "tester@example.com")
        .env("GIT_COMMITTER_NAME", "tester")
        .env("GIT_COMMITTER_EMAIL", "tester@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Machine A (initialised, its history pushed to a bare remote) and machine B (a clone of the
/// remote), with B's clock half an hour ahead so their commits differ.
fn two_machines() -> (TestEnv, TestEnv, PathBuf) {
    let a = TestEnv::initialized();
    let remote = a.home.join("remote.git");
    git_in(&a.home, &a.home, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    a.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("pushed main to origin/main"), "{out}");
    let b = TestEnv::new();
    git_in(&b.home, &b.home, &["clone", "-q", remote.to_str().unwrap(), "ws"]);
    b.set_now("2026-12-01T09:30:00Z");
    (a, b, remote)
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

fn decay_entry(env: &TestEnv, key: &str) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    v["entries"][key].clone()
}

#[test]
fn two_machines_syncing_both_ways_keep_every_memory_of_both() {
    let (a, b, remote) = two_machines();
    // A remembers its things…
    a.mutate(["remember", "Alice prefers tea", "--entity", "person--alice", "--store", "semantic"]);
    a.mutate(["remember", "Met Carol at the conference", "--at", "10:00"]);
    a.mutate(["remember", "Prefers short answers", "--store", "core", "--section", "persona"]);
    a.run(["propose", "--from", "researcher", "Alice likes hiking"]).success();
    for _ in 0..3 {
        a.run(["touch", "entity:person--alice"]).success();
    }
    a.mutate(["remember", "Lunch with Dan", "--at", "12:00"]);
    // …and B, on the same day, other things about the same entity and in the same minute.
    b.mutate([
        "remember",
        "Alice works at Acme",
        "--entity",
        "person--alice",
        "--store",
        "semantic",
    ]);
    b.mutate(["remember", "Bob is moving to Berlin", "--at", "10:00"]);
    b.mutate(["remember", "Ship v1 by Friday", "--store", "core", "--section", "active-context"]);
    b.run(["propose", "--from", "critic", "Bob prefers trains"]).success();
    b.run(["touch", "entity:person--alice"]).success();
    b.mutate(["remember", "Call with Erin", "--at", "11:00"]);
    let a_count = decay_entry(&a, "entity:person--alice")["access_count"].as_u64().unwrap();
    let b_count = decay_entry(&b, "entity:person--alice")["access_count"].as_u64().unwrap();
    assert!(a_count > b_count, "A used Alice more: {a_count} vs {b_count}");
    let b_last = decay_entry(&b, "entity:person--alice")["last_accessed"].clone();

    // A first: the remote has nothing new, so A only pushes.
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "ahead", "{out}");
    assert_eq!(r["pushed"], true);
    assert!(r["commit"].is_null());

    // B: both sides have new commits, so B merges and pushes the merge.
    let head_b = b.head();
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "merged", "{out}");
    assert_eq!(r["pushed"], true);
    assert!(r["conflicts"].as_array().unwrap().is_empty());
    assert!(!r["fetched"].as_array().unwrap().is_empty());
    let strategy = |path: &str| {
        r["merged"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .map(|f| f["strategy"].as_str().unwrap().to_owned())
    };
    assert_eq!(strategy("memory/episodes/2026-12-01.md").as_deref(), Some("union"), "{out}");
    assert_eq!(strategy("memory/meta/audit.log").as_deref(), Some("union"));
    assert_eq!(strategy("MEMORY.md").as_deref(), Some("content"));
    assert_eq!(strategy("memory/graph/entities/person--alice.md").as_deref(), Some("content"));
    assert_eq!(strategy("memory/meta/decay-scores.json").as_deref(), Some("content"));
    assert_eq!(strategy("memory/meta/pending-memories.md").as_deref(), Some("content"));
    assert_eq!(r["renumbered"], serde_json::json!([{"from": 1, "to": 2}]));
    b.assert_clean_tree();
    let parents = b.git(&["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "a merge commit has two parents");
    assert!(parents.contains(&head_b));
    let msg = b.git(&["log", "-1", "--format=%B"]);
    assert!(msg.starts_with("[MERGE] "), "{msg}");
    assert!(msg.contains("merge origin/main"), "{msg}");
    assert!(msg.contains("Actor: test-agent\n"), "{msg}");
    assert!(msg.contains("Merged: memory/episodes/2026-12-01.md (union)"), "{msg}");
    assert_eq!(b.git(&["rev-parse", "refs/cogmem/pre-sync"]).trim(), head_b);
    assert!(
        b.audit_lines()
            .iter()
            .any(|l| l.contains(" | MERGE | memory/episodes/2026-12-01.md | test-agent | auto | "))
    );

    // A again: only the remote moved, so A fast-forwards to the merge.
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "fast-forward", "{out}");
    a.assert_clean_tree();

    // Both machines now hold the same commit and the same files.
    assert_eq!(a.head(), b.head());
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", "main"]).trim(), a.head());

    // Every memory of both sides is there.
    let day = a.read("memory/episodes/2026-12-01.md");
    for text in ["Met Carol", "Bob is moving to Berlin", "Lunch with Dan", "Call with Erin"] {
        assert_eq!(day.matches(text).count(), 1, "{text} once in:\n{day}");
    }
    let times: Vec<&str> =
        day.lines().filter_map(|l| l.strip_prefix("## ")).map(|l| &l[..5]).collect();
    let mut sorted = times.clone();
    sorted.sort_unstable();
    assert_eq!(times, sorted, "entries in time order:\n{day}");
    let alice = a.read("memory/graph/entities/person--alice.md");
    assert!(
        alice.contains("- Alice prefers tea\n") && alice.contains("- Alice works at Acme\n"),
        "{alice}"
    );
    assert_eq!(alice.matches("<!-- Type:").count(), 1, "{alice}");
    let core = a.read("MEMORY.md");
    assert!(
        core.contains("- Prefers short answers") && core.contains("- Ship v1 by Friday"),
        "{core}"
    );
    let pending = a.read("memory/meta/pending-memories.md");
    assert!(
        pending.contains("## Proposal #1\n") && pending.contains("## Proposal #2\n"),
        "{pending}"
    );
    assert!(pending.contains("Alice likes hiking") && pending.contains("Bob prefers trains"));
    // Decay: the larger count and the later use of the shared entity; both 10:00 entries kept.
    let e = decay_entry(&a, "entity:person--alice");
    assert_eq!(e["access_count"].as_u64(), Some(a_count));
    assert_eq!(e["last_accessed"], b_last, "B used it last (its clock is ahead)");
    assert!(!decay_entry(&a, "episode:2026-12-01:10:00").is_null());
    assert!(!decay_entry(&a, "episode:2026-12-01:10:00:2").is_null());
    // The audit log keeps both machines' lines, ordered by time apart from the merge's own.
    let audit = a.audit_lines();
    assert!(
        audit.iter().any(|l| l.contains("Met Carol") || l.contains("2026-12-01.md | test-agent"))
    );
    let stamps: Vec<&str> =
        audit.iter().filter(|l| !l.contains(" | MERGE | ")).map(|l| &l[..20]).collect();
    let mut sorted = stamps.clone();
    sorted.sort_unstable();
    assert_eq!(stamps, sorted);
    // The derived index was refreshed: A finds B's memory.
    let out = a.run(["recall", "Berlin"]).success();
    assert!(out.stdout.contains("Bob is moving to Berlin"), "{out}");

    // Nothing new on either side: a no-op that neither commits nor pushes.
    let before = a.commit_count();
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!((r["outcome"].as_str(), r["pushed"].as_bool()), (Some("up-to-date"), Some(false)));
    assert_eq!(a.commit_count(), before);
    let out = b.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("up to date with origin/main"), "{out}");
}

#[test]
fn fast_forward_brings_the_other_machines_memories() {
    let (a, b, _remote) = two_machines();
    a.mutate(["remember", "Alice prefers tea", "--entity", "person--alice", "--store", "semantic"]);
    a.run(["sync", "--remote", "origin"]).success();
    let out = b.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("fast-forwarded to origin/main (1 commit fetched)"), "{out}");
    assert!(b.read("memory/graph/entities/person--alice.md").contains("- Alice prefers tea"));
    assert_eq!(a.head(), b.head());
    b.assert_clean_tree();
    let out = b.run(["search", "tea"]).success();
    assert!(out.stdout.contains("person--alice"), "{out}");
}

#[test]
fn an_unmergeable_conflict_changes_nothing_and_exits_3() {
    let (a, b, _remote) = two_machines();
    a.mutate(["remember", "--store", "procedural", "--title", "Release the app", "tag the commit"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    let path = "memory/procedures/release-the-app.md";
    let text = a.read(path);
    assert!(text.contains("tag the commit"), "{text}");
    // Both rewrite the same step, by hand, and commit.
    a.write(path, &text.replace("tag the commit", "tag the commit with v-prefix"));
    a.git_commit_all("release: v-prefix");
    a.run(["sync", "--remote", "origin"]).success();
    b.write(path, &text.replace("tag the commit", "tag the commit and sign it"));
    b.git_commit_all("release: sign");
    // B also has a memory of its own that would merge fine (its plain commit is adopted
    // first, issue 17).
    b.run(["remember", "Bob is moving to Berlin"]).success();
    let head = b.head();
    let files = b.snapshot();
    let refs = b.git(&["for-each-ref", "refs/cogmem/"]);
    let out = b.run(["sync", "--remote", "origin", "--json"]).output().code(3);
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "conflict");
    assert_eq!(r["pushed"], false);
    assert_eq!(r["merged"], serde_json::json!([]));
    let conflicts = r["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{out}");
    assert_eq!(conflicts[0]["path"], path);
    assert!(conflicts[0]["hint"].as_str().unwrap().contains("git diff HEAD origin/main --"));
    assert!(conflicts[0]["reason"].as_str().unwrap().contains("same lines"));
    assert!(
        out.stderr.contains(&format!("conflict: {path}: both sides changed the same lines")),
        "{out}"
    );
    assert!(out.stderr.contains("hint: nothing was changed"), "{out}");
    // Untouched: the same commit, the same files, a clean tree, the backup ref where it was.
    assert_eq!(b.head(), head);
    assert_eq!(b.snapshot(), files);
    b.assert_clean_tree();
    assert_eq!(b.git(&["for-each-ref", "refs/cogmem/"]), refs);
    // Settle it by hand (take both), and the next sync goes through.
    b.git(&["merge", "-q", "-X", "ours", "origin/main", "-m", "settle the release steps"]);
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "ahead", "{out}");
}

#[test]
fn hand_edits_go_first_and_unknown_remotes_are_refused() {
    let (a, _b, remote) = two_machines();
    // A malformed hand edit stops everything before the remote is touched.
    let tip = git_in(&remote, &a.home, &["rev-parse", "main"]);
    a.write("memory/meta/decay-scores.json", "{ not json");
    let out = a.run(["sync", "--remote", "origin"]).output().code(3);
    assert!(out.stderr.contains("memory/meta/decay-scores.json"), "{out}");
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", "main"]), tip);
    a.git(&["checkout", "--", "memory/meta/decay-scores.json"]);
    // A good one is committed by `sync` as usual, then sent.
    a.write("MEMORY.md", &format!("{}\n- hand edit\n", a.read("MEMORY.md")));
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("synced 1 file"), "{out}");
    assert!(out.stderr.contains("pushed main to origin/main"), "{out}");
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", "main"]).trim(), a.head());
    a.assert_clean_tree();
    // An unknown remote is refused before anything happens: the hand edit is not committed.
    a.write("MEMORY.md", &format!("{}\n- another hand edit\n", a.read("MEMORY.md")));
    let head = a.head();
    let out = a.run(["sync", "--remote", "nowhere"]).output().code(1);
    assert!(
        out.stderr.contains("there is no git remote called \"nowhere\" (remotes: origin)"),
        "{out}"
    );
    assert!(out.stderr.contains("git remote add"), "{out}");
    assert!(!out.stderr.contains("synced"), "{out}");
    assert_eq!(a.head(), head, "nothing committed");
    assert_eq!(a.git_status(), " M MEMORY.md\n");
    a.git(&["checkout", "--", "MEMORY.md"]);
    let out = a.run(["--actor", "subagent:helper", "sync", "--remote", "origin"]).output().code(4);
    assert!(out.stderr.contains("sub-agent"), "{out}");
}

#[test]
fn no_push_merges_locally_and_leaves_the_remote_alone() {
    let (a, b, remote) = two_machines();
    a.mutate(["remember", "Alice prefers tea"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.mutate(["remember", "Bob prefers coffee"]);
    let remote_tip = git_in(&remote, &a.home, &["rev-parse", "main"]);
    let out = b.run(["sync", "--remote", "origin", "--no-push", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!((r["outcome"].as_str(), r["pushed"].as_bool()), (Some("merged"), Some(false)));
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", "main"]), remote_tip);
    let day = b.read("memory/episodes/2026-12-01.md");
    assert!(day.contains("Alice prefers tea") && day.contains("Bob prefers coffee"), "{day}");
}

#[test]
fn two_workspaces_made_by_init_on_different_machines_merge() {
    // No common history: each machine ran `cogmem init` on its own.
    let a = TestEnv::initialized();
    let remote = a.home.join("remote.git");
    git_in(&a.home, &a.home, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    a.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    a.mutate(["remember", "Alice prefers tea", "--entity", "person--alice", "--store", "semantic"]);
    a.run(["sync", "--remote", "origin"]).success();
    let b = TestEnv::new();
    b.set_now("2026-12-02T08:00:00Z");
    b.run(["init", "ws"]).current_dir_home().success();
    b.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    b.mutate(["remember", "Carol likes jazz", "--entity", "person--carol", "--store", "semantic"]);
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    b.assert_clean_tree();
    a.run(["sync", "--remote", "origin"]).success();
    assert_eq!(a.snapshot(), b.snapshot());
    let index = a.read("memory/graph/index.md");
    assert!(index.contains("| person--alice |") && index.contains("| person--carol |"), "{index}");
    let audit = a.read("memory/meta/audit.log");
    assert_eq!(audit.matches("# Format:").count(), 1, "one header:\n{audit}");
    let decay: serde_json::Value =
        serde_json::from_str(&a.read("memory/meta/decay-scores.json")).unwrap();
    assert!(decay["entries"]["entity:person--alice"].is_object());
    assert!(decay["entries"]["entity:person--carol"].is_object());
}

#[test]
fn a_refused_push_keeps_the_merge_and_exits_3() {
    let (a, b, _remote) = two_machines();
    // A folder remote that is not bare refuses pushes; the sync reports it and keeps the result.
    a.git(&["remote", "add", "peer", b.root.to_str().unwrap()]);
    a.mutate(["remember", "Alice prefers tea"]);
    let head = a.head();
    let out = a.run(["sync", "--remote", "peer", "--json"]).output().code(3);
    let r = json(&out.stdout);
    assert_eq!((r["outcome"].as_str(), r["pushed"].as_bool()), (Some("ahead"), Some(false)));
    assert!(r["push_error"].as_str().is_some_and(|e| !e.is_empty()), "{out}");
    assert!(out.stderr.contains("warning: the push to peer was refused"), "{out}");
    assert_eq!(a.head(), head);
    a.assert_clean_tree();
}

#[test]
fn a_failure_half_way_puts_everything_back() {
    let (a, b, _remote) = two_machines();
    a.mutate(["remember", "Alice prefers tea", "--entity", "person--alice", "--store", "semantic"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.mutate([
        "remember",
        "Alice works at Acme",
        "--entity",
        "person--alice",
        "--store",
        "semantic",
    ]);
    let head = b.head();
    let files = b.snapshot();
    // Another git process holds the index: the merge gets as far as moving the branch, then
    // cannot write the index, and must undo everything.
    std::fs::write(b.root.join(".git/index.lock"), "").unwrap();
    let out = b.run(["sync", "--remote", "origin"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("index"), "{out}");
    std::fs::remove_file(b.root.join(".git/index.lock")).unwrap();
    assert_eq!(b.head(), head);
    assert_eq!(b.snapshot(), files);
    b.assert_clean_tree();
    // Once the lock is gone, the same sync goes through.
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    let alice = b.read("memory/graph/entities/person--alice.md");
    assert!(alice.contains("- Alice prefers tea") && alice.contains("- Alice works at Acme"));
}

#[test]
fn a_merged_memory_md_over_budget_keeps_every_bullet_and_warns() {
    let (a, b, _remote) = two_machines();
    // A budget each machine's MEMORY.md fits on its own, but not both together.
    a.write("cogmem.toml", "[core]\nbudget_tokens = 240\n");
    a.git_commit_all("settings: small core budget");
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    let one = "Prefers short answers with a code example first and the explanation after it";
    let two = "Works from Lisbon on weekdays and from Porto at weekends, usually after lunch";
    a.mutate(["remember", one, "--store", "core", "--section", "persona"]);
    b.mutate(["remember", two, "--store", "core", "--section", "identity"]);
    a.run(["sync", "--remote", "origin"]).success();
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "merged", "{out}");
    let warning = r["warnings"][0].as_str().unwrap_or_default();
    assert!(warning.contains("over its budget of 240"), "{out}");
    assert!(out.stderr.contains("warning: MEMORY.md is now"), "{out}");
    let core = b.read("MEMORY.md");
    assert!(core.contains(one) && core.contains(two), "{core}");
}

#[test]
fn an_unreachable_network_remote_fails_without_prompting() {
    let env = TestEnv::initialized();
    // Nothing listens on port 9: git fails at once, and nothing waits for a password.
    env.git(&["remote", "add", "origin", "https://127.0.0.1:9/memory.git"]);
    let head = env.head();
    let out = env.run(["sync", "--remote", "origin"]).output().code(1);
    assert!(
        out.stderr.contains("error: git could not reach origin (https://127.0.0.1:9/memory.git)"),
        "{out}"
    );
    assert!(out.stderr.contains("hint: check that `git fetch origin` works"), "{out}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn branch_names_the_remote_branch_to_sync_with() {
    let (a, b, remote) = two_machines();
    b.mutate(["remember", "Bob prefers coffee"]);
    // B keeps its own branch on the remote; A's `main` is not touched.
    let out = b.run(["sync", "--remote", "origin", "--branch", "laptop"]).success();
    assert!(out.stderr.contains("pushed main to origin/laptop"), "{out}");
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", "laptop"]).trim(), b.head());
    assert_ne!(git_in(&remote, &a.home, &["rev-parse", "main"]).trim(), b.head());
    // A merges B's branch into its own main.
    a.mutate(["remember", "Alice prefers tea"]);
    let out = a
        .run(["sync", "--remote", "origin", "--branch", "laptop", "--no-push", "--json"])
        .success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    let day = a.read("memory/episodes/2026-12-01.md");
    assert!(day.contains("Bob prefers coffee") && day.contains("Alice prefers tea"), "{day}");
}

/// One machine's decay entries split into shards and its audit log sealed into parts; the
/// other's are still single files. Syncing both ways keeps every entry and every audit line.
#[test]
fn shards_and_sealed_audit_parts_merge_with_single_files() {
    let (a, b, _remote) = two_machines();
    let toml = a.read("cogmem.toml");
    a.write("cogmem.toml", &format!("{toml}\n[audit]\nrotate_bytes = 4000\n"));
    a.git_commit_all("small audit parts");
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    // A: 1,050 imported messages (past the split), then a remember (seals the log).
    a.import_messages(1_050);
    a.mutate(["remember", "The harbour opens at six"]);
    assert!(a.path("memory/meta/decay").is_dir(), "A split its decay entries");
    assert!(a.path("memory/meta/audit").is_dir(), "A sealed its log");
    // B, meanwhile: its own memories in its single decay file.
    b.mutate(["remember", "Bob prefers coffee", "--entity", "person--bob"]);
    b.mutate(["remember", "The ferry leaves at seven"]);
    a.run(["sync", "--remote", "origin"]).success();
    let out = b.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("pushed"), "{out}");
    a.run(["sync", "--remote", "origin"]).success();
    assert_eq!(a.head(), b.head());
    for env in [&a, &b] {
        env.assert_clean_tree();
        env.run(["verify"]).success();
        let status: serde_json::Value = json(&env.run(["status", "--json"]).success().stdout);
        let entries = status["counts"]["decay_entries"].as_u64().unwrap();
        assert!(entries >= 1_050 + 3, "every entry of both: {entries}");
        let hit = |q: &str| json(&env.run(["search", "--json", q]).success().stdout);
        assert_eq!(hit("topic7")[0]["source"], "m7");
        assert!(!hit("ferry").as_array().unwrap().is_empty());
        assert!(!hit("harbour").as_array().unwrap().is_empty());
        let audit = env.audit_lines();
        assert!(audit.iter().any(|l| l.contains("The ferry leaves at seven")), "B's lines");
        assert!(audit.iter().any(|l| l.contains("The harbour opens at six")), "A's lines");
    }
    // The next change on B reads every shard and moves its own entries out of the main file.
    b.mutate(["remember", "Carol plays chess", "--entity", "person--carol"]);
    let main: serde_json::Value =
        serde_json::from_str(&b.read("memory/meta/decay-scores.json")).unwrap();
    let left = main["entries"].as_object().map_or(0, serde_json::Map::len);
    assert_eq!(left, 0, "{main}");
    b.run(["verify"]).success();
}

/// Whether any object of a bare repository holds `needle`, after its reflogs are expired and
/// its garbage collected (every object's bytes, read in one `git cat-file` batch).
fn remote_holds(remote: &Path, home: &Path, needle: &str) -> bool {
    git_in(remote, home, &["reflog", "expire", "--expire=now", "--all"]);
    git_in(remote, home, &["gc", "--prune=now", "--quiet"]);
    let out = Command::new("git")
        .args(["cat-file", "--batch-all-objects", "--batch"])
        .current_dir(remote)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .output()
        .expect("git runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).contains(needle)
}

/// A purges a memory both machines have; the sync that follows is refused until it is
/// force-pushed; B is refused until it takes the rewritten history; then both sync as before.
/// Purges, on `env`, the memory whose text holds `secret`.
fn purge_the_memory_holding(env: &TestEnv, secret: &str) {
    let id = cogmem::store::units::list(&env.root)
        .units
        .into_iter()
        .find(|u| u.text.contains(secret))
        .map(|u| u.id)
        .unwrap();
    env.run(["forget", "--purge", &id, "--yes"]).success();
}

fn purge_then_sync(a: &TestEnv, b: &TestEnv, remote: &Path) {
    let secret = "5093-copper-walrus";
    a.mutate([
        "remember",
        "--store",
        "core",
        &format!("Archive shelf {secret} holds the cellar map"),
    ]);
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    assert!(b.read("MEMORY.md").contains(secret));
    purge_the_memory_holding(a, secret);
    let remote_tip = git_in(remote, &a.home, &["rev-parse", "main"]);

    // A: the remote still has the old history. Refused, and nothing came back.
    let out = a.run(["sync", "--remote", "origin"]).output().code(4);
    assert!(out.stderr.contains("still holds purged text"), "{out}");
    assert!(out.stderr.contains("--force-rewritten"), "{out}");
    assert_eq!(git_in(remote, &a.home, &["rev-parse", "main"]), remote_tip);
    // Nothing but the purge's own backup refs reaches the old history (not the fetched copy).
    assert!(!a.git(&["log", "-p", "--branches", "--tags", "--remotes"]).contains(secret));
    a.assert_clean_tree();
    // --force-rewritten force-pushes ours.
    let out = a.run(["sync", "--remote", "origin", "--force-rewritten"]).success();
    assert!(out.stderr.contains("replaced origin/main's history"), "{out}");
    assert_eq!(git_in(remote, &a.home, &["rev-parse", "main"]).trim(), a.head());
    assert!(!remote_holds(remote, &a.home, secret), "the remote still holds it");

    // B still holds it: refused, then it takes the rewritten history.
    let out = b.run(["sync", "--remote", "origin"]).output().code(4);
    assert!(out.stderr.contains("holds text that was purged"), "{out}");
    assert_eq!(git_in(remote, &a.home, &["rev-parse", "main"]).trim(), a.head());
    let out = b.run(["sync", "--remote", "origin", "--force-rewritten"]).success();
    assert!(out.stderr.contains("took origin/main's rewritten history"), "{out}");
    assert_eq!(b.head(), a.head());
    b.assert_clean_tree();
    assert!(!b.read("MEMORY.md").contains(secret));
    for r in b.git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/pre-purge/"]).lines() {
        b.git(&["update-ref", "-d", r]);
    }
    b.git(&["reflog", "expire", "--expire=now", "--all"]);
    b.git(&["gc", "--prune=now", "--quiet"]);
    assert!(!b.git(&["log", "-p", "--all"]).contains(secret));

    // Both sync as before.
    b.mutate(["remember", "After the purge, the ferry still leaves at seven"]);
    b.run(["sync", "--remote", "origin"]).success();
    a.run(["sync", "--remote", "origin"]).success();
    assert_eq!(a.head(), b.head());
    assert!(a.run(["search", "ferry"]).success().stdout.contains("ferry"));
    for env in [a, b] {
        env.run(["verify"]).success();
    }
}

// See: issue 16
#[test]
fn issue_16_the_sync_after_a_purge_never_brings_the_text_back() {
    let (a, b, remote) = two_machines();
    purge_then_sync(&a, &b, &remote);
}

/// `git daemon` serving a folder of bare repositories on a free loopback port, for as long as
/// the value lives.
struct GitDaemon {
    child: std::process::Child,
    port: u16,
}

impl GitDaemon {
    fn start(base: &Path, home: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("git")
            .args(["daemon", "--export-all", "--enable=receive-pack", "--reuseaddr"])
            .arg(format!("--base-path={}", base.display()))
            .arg(format!("--port={port}"))
            .arg("--listen=127.0.0.1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", home)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("git daemon starts");
        let mut daemon = Self { child, port };
        let up = crate::common::wait_until(std::time::Duration::from_secs(20), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        if !up {
            let _ = daemon.child.kill();
            panic!("git daemon did not accept connections on port {port}");
        }
        daemon
    }

    fn url(&self, repo: &str) -> String {
        format!("git://127.0.0.1:{}/{repo}", self.port)
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Machine A (initialised) with a bare `remote.git` served by a git daemon on loopback as its
/// `origin`, nothing pushed yet; and the bare repository's path.
fn served() -> (TestEnv, GitDaemon, PathBuf) {
    let a = TestEnv::initialized();
    let base = a.home.join("served");
    std::fs::create_dir_all(&base).unwrap();
    git_in(&base, &a.home, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    let daemon = GitDaemon::start(&base, &a.home);
    a.git(&["remote", "add", "origin", &daemon.url("remote.git")]);
    (a, daemon, base.join("remote.git"))
}

// See: issue 16
#[test]
fn issue_16_two_clones_sync_through_a_real_git_server_including_a_purge() {
    let (a, daemon, remote) = served();
    a.mutate(["remember", "Alice prefers tea"]);
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("pushed main to origin/main"), "{out}");
    let b = TestEnv::new();
    git_in(&b.home, &b.home, &["clone", "-q", &daemon.url("remote.git"), "ws"]);
    b.set_now("2026-12-01T09:30:00Z");
    // Both ways, through the server.
    b.mutate(["remember", "Bob is moving to Berlin"]);
    b.run(["sync", "--remote", "origin"]).success();
    a.mutate(["remember", "Carol plays chess"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    assert_eq!(a.head(), b.head());
    assert!(b.run(["search", "chess"]).success().stdout.contains("Carol"));
    assert!(a.run(["search", "Berlin"]).success().stdout.contains("Bob"));
    purge_then_sync(&a, &b, &remote);
    drop(daemon);
}

// See: issue 17
/// A plain `git commit` on one machine, adopted there and pushed, is not adopted a second
/// time on the machine that pulls it.
#[test]
fn issue_17_commits_brought_in_by_sync_remote_are_not_adopted_again() {
    let (a, b, _remote) = two_machines();
    a.write(
        "memory/graph/entities/project--zephyr.md",
        "# project--zephyr\n<!-- Type: project | Created: 2026-12-01 -->\n\n## Summary\nZephyr counts quokkas.\n",
    );
    a.git_commit_all("zephyr by hand");
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    b.run(["sync", "--remote", "origin"]).success();
    assert!(b.read("memory/graph/index.md").contains("| project--zephyr |"));
    let before = b.commit_count();
    let out = b.run(["remember", "Bob likes jazz"]).success();
    assert!(!out.stderr.contains("adopted"), "{out}");
    assert_eq!(b.commit_count(), before + 1);
    let adopted = b.audit_lines().iter().filter(|l| l.contains("project--zephyr.md")).count();
    assert_eq!(adopted, 1, "{:#?}", b.audit_lines());
    b.run(["verify"]).success();
}

/// A peer's committed symbolic link (mode 120000) is refused before anything changes, on a
/// fast-forward (which would check the link out) and on a merge (which turned it into a
/// regular file holding the target's path, committed, pushed and indexed); with the link
/// removed on the peer, the next sync goes through.
#[cfg(unix)]
#[test]
fn a_peers_committed_link_is_refused_before_anything_changes() {
    let (a, b, _remote) = two_machines();
    let link = "memory/graph/entities/person--evil.md";
    std::os::unix::fs::symlink("/etc/passwd", b.path(link)).unwrap();
    b.git_commit_all("peer: a link");
    b.git(&["push", "-q", "origin", "main"]);
    let refused = |env: &TestEnv| {
        let (head, files, refs) =
            (env.head(), env.snapshot(), env.git(&["for-each-ref", "refs/cogmem/", "refs/heads/"]));
        let out = env.run(["sync", "--remote", "origin"]).output().code(4);
        assert!(
            out.stderr.contains(&format!(
                "symbolic link that cogmem never takes from another machine: {link}"
            )),
            "{out}"
        );
        assert!(out.stderr.contains(&format!("hint: on the machine that committed it, replace the link with the file it points to (or remove it: `git rm {link}`)")), "{out}");
        assert_eq!(env.head(), head);
        assert_eq!(env.snapshot(), files);
        assert_eq!(env.git(&["for-each-ref", "refs/cogmem/", "refs/heads/"]), refs);
        assert!(std::fs::symlink_metadata(env.path(link)).is_err(), "no link checked out");
        env.assert_clean_tree();
    };
    // Only the peer moved: a fast-forward.
    refused(&a);
    // Both moved: a merge.
    a.mutate(["remember", "A local thing"]);
    refused(&a);
    // The peer replaces the link; nothing was lost on either side.
    std::fs::remove_file(b.path(link)).unwrap();
    b.write(link, "# person--evil\n\n## Facts\n- Not so evil after all\n");
    b.git_commit_all("peer: a real file");
    b.git(&["push", "-q", "origin", "main"]);
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    assert!(a.read(link).contains("Not so evil"));
    assert!(a.read("memory/episodes/2026-12-01.md").contains("A local thing"));
    a.assert_clean_tree();
}

/// The audit log is append-only between machines too: a peer's commit that changes or removes
/// earlier lines is refused, on a fast-forward and on a merge, before anything changes; put
/// back on the peer, it syncs. A peer's `audit compact`, which moves old lines into
/// audit-archive.md and records its cutoff, is still taken.
#[test]
fn a_peers_rewritten_audit_log_is_refused_but_its_compaction_is_taken() {
    let (a, b, _remote) = two_machines();
    a.mutate(["remember", "Alice prefers tea", "--entity", "person--alice"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    let log = "memory/meta/audit.log";
    let old = b.read(log);
    let line = old.lines().find(|l| l.contains("| new entity person--alice")).unwrap().to_owned();
    b.write(log, &old.replace(&line, &line.replace("| test-agent |", "| agent:evil |")));
    b.git_commit_all("peer: forge the audit log");
    b.git(&["push", "-q", "origin", "main"]);
    let at = old.lines().position(|l| l == line).unwrap() + 1;
    let refused = |env: &TestEnv| {
        let (head, files, refs) =
            (env.head(), env.snapshot(), env.git(&["for-each-ref", "refs/cogmem/", "refs/heads/"]));
        let out = env.run(["sync", "--remote", "origin"]).output().code(4);
        assert!(out.stderr.contains(&format!("error: {log}:{at}: origin/main changed or removed this line of the audit log, which is append-only, so nothing was changed: {line}")), "{out}");
        assert!(out.stderr.contains(&format!("hint: `git log -p origin/main -- {log}`")), "{out}");
        assert_eq!(env.head(), head);
        assert_eq!(env.snapshot(), files);
        assert_eq!(env.git(&["for-each-ref", "refs/cogmem/", "refs/heads/"]), refs);
        env.assert_clean_tree();
    };
    refused(&a); // a fast-forward
    a.mutate(["remember", "A local thing"]);
    refused(&a); // a merge
    // Put back on the peer, the history syncs.
    b.git(&["revert", "--no-edit", "HEAD"]);
    b.git(&["push", "-q", "origin", "main"]);
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    b.run(["sync", "--remote", "origin"]).success();
    // A peer's compaction moves every line of December out of the log: still an append.
    b.set_now("2027-04-01T09:00:00Z");
    b.run(["audit", "compact"]).success();
    assert!(!b.read(log).contains("| new entity person--alice"));
    b.run(["sync", "--remote", "origin"]).success();
    a.set_now("2027-04-01T10:00:00Z");
    a.mutate(["remember", "Another local thing"]);
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    assert_eq!(json(&out.stdout)["outcome"], "merged", "{out}");
    assert!(a.read("memory/meta/audit-archive.md").contains("## 2026-12"));
    a.assert_clean_tree();
}

/// A memory one machine deleted for good (`forget --permanent`) and the other changed is kept
/// whole (`kept-changed`), and so is its decay entry, whichever side deleted it: `verify` is
/// clean right after the merge on both machines (the deleting side's decay file, taken as it
/// is, dropped the entry).
#[test]
fn a_kept_changed_file_keeps_the_decay_entries_of_its_memories() {
    let (a, b, _remote) = two_machines();
    a.mutate(["remember", "Alice likes tea", "--entity", "person--alice", "--store", "semantic"]);
    a.mutate(["remember", "Carol likes chess", "--entity", "person--carol", "--store", "semantic"]);
    a.run(["sync", "--remote", "origin"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    let kept = |r: &serde_json::Value, path: &str| {
        r["merged"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == path && f["strategy"] == "kept-changed")
    };

    // Their side deleted it: A forgets Alice for good, B edits her file by hand and merges.
    let alice = "memory/graph/entities/person--alice.md";
    a.mutate(["forget", "--id", "entity:person--alice", "--permanent", "--yes"]);
    a.run(["sync", "--remote", "origin"]).success();
    let entry = decay_entry(&b, "entity:person--alice");
    assert!(entry.is_object(), "B has Alice's entry");
    b.write(alice, &format!("{}- Alice also paints\n", b.read(alice)));
    let out = b.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "merged", "{out}");
    assert!(kept(&r, alice), "{out}");
    b.assert_clean_tree();
    assert!(b.read(alice).contains("- Alice also paints"));
    assert_eq!(decay_entry(&b, "entity:person--alice"), entry, "the entry, as it was");
    b.run(["verify"]).success();
    a.run(["sync", "--remote", "origin"]).success();
    a.run(["verify"]).success();

    // Our side deleted it: B edits Carol's file and pushes, A forgets her for good and merges.
    let carol = "memory/graph/entities/person--carol.md";
    let entry = decay_entry(&b, "entity:person--carol");
    b.write(carol, &format!("{}- Carol also sings\n", b.read(carol)));
    b.run(["sync", "--remote", "origin"]).success();
    a.mutate(["forget", "--id", "entity:person--carol", "--permanent", "--yes"]);
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "merged", "{out}");
    assert!(kept(&r, carol), "{out}");
    a.assert_clean_tree();
    assert!(a.read(carol).contains("- Carol also sings"));
    assert_eq!(decay_entry(&a, "entity:person--carol"), entry, "the entry, as it was");
    a.run(["verify"]).success();
    b.run(["sync", "--remote", "origin"]).success();
    b.run(["verify"]).success();
}

/// A peer that never runs cogmem (a clone through a real git server, a plain `git commit`, a
/// plain `git push`): the machine whose `sync --remote` brings those commits in adopts them,
/// on a fast-forward and on a merge, in a commit of its own that the push shares, and only
/// once; a memory file the peer deleted gets its entry archived. Before, the marker moved
/// past them and nobody ever adopted them: `verify` reported the missing entries for good.
#[test]
fn a_peers_plain_git_commits_are_adopted_by_the_sync_that_brings_them_in() {
    let (a, daemon, remote) = served();
    a.run(["sync", "--remote", "origin"]).success();
    let peer = TestEnv::new();
    git_in(&peer.home, &peer.home, &["clone", "-q", &daemon.url("remote.git"), "ws"]);
    let procedure = "memory/procedures/feed-quokkas.md";
    peer.write(
        "memory/graph/entities/project--zephyr.md",
        "# project--zephyr\n<!-- Type: project | Created: 2026-12-01 -->\n\n## Summary\nZephyr counts quokkas.\n",
    );
    peer.write(procedure, "# Feed quokkas\n\n## Steps\n1. bring leaves\n");
    peer.git_commit_all("zephyr and feeding, by hand");
    peer.git(&["push", "-q", "origin", "main"]);

    // A fast-forward: the peer's commit is adopted here, under its author, and pushed back.
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("fast-forwarded to origin/main"), "{out}");
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    assert!(out.stderr.contains("by tester: zephyr and feeding, by hand"), "{out}");
    a.assert_clean_tree();
    let by_peer = |env: &TestEnv, file: &str| {
        env.audit_lines()
            .iter()
            .filter(|l| l.contains(&format!(" | {file} | tester | ")) && l.contains(" in commit "))
            .count()
    };
    assert_eq!(by_peer(&a, "memory/graph/entities/project--zephyr.md"), 1);
    assert_eq!(by_peer(&a, procedure), 1);
    for id in ["entity:project--zephyr", "procedure:feed-quokkas"] {
        assert_eq!(decay_entry(&a, id)["status"], "active", "{id}");
    }
    assert!(a.read("memory/graph/index.md").contains("| project--zephyr |"));
    a.run(["verify"]).success();
    let remote_head = git_in(&remote, &a.home, &["rev-parse", "main"]);
    assert_eq!(remote_head.trim(), a.head(), "the adoption is pushed");

    // A merge: both sides moved on, the peer deleting its procedure by hand. Only the new
    // commit is adopted (the first one, adopted above and pulled by the peer, is not again),
    // and the deleted procedure's entry is archived.
    peer.git(&["pull", "-q", "--no-rebase", "origin", "main"]);
    peer.git(&["rm", "-q", procedure]);
    peer.git(&["commit", "-q", "-m", "no more feeding"]);
    peer.git(&["push", "-q", "origin", "main"]);
    a.run(["remember", "Zephyr ships in May"]).success();
    let out = a.run(["sync", "--remote", "origin", "--json"]).success();
    let r = json(&out.stdout);
    assert_eq!(r["outcome"], "merged", "{out}");
    let adopted = r["adopted"]["commits"].as_array().unwrap();
    assert_eq!(adopted.len(), 1, "{out}");
    assert_eq!(adopted[0]["subject"], "no more feeding", "{out}");
    assert_eq!(r["adopted"]["decay_archived"], serde_json::json!(["procedure:feed-quokkas"]));
    assert_eq!(r["pushed"], true, "{out}");
    a.assert_clean_tree();
    assert_eq!(by_peer(&a, "memory/graph/entities/project--zephyr.md"), 1, "adopted once");
    assert_eq!(by_peer(&a, procedure), 2, "its creation and its deletion");
    assert_eq!(decay_entry(&a, "procedure:feed-quokkas")["status"], "archived");
    a.run(["verify"]).success();
    drop(daemon);
}

/// A peer's plain `git commit` holding a credential, pushed with plain git: the `sync --remote`
/// that brings it in cannot refuse a commit that exists, so it adopts it and warns, naming the
/// commit, the file, the line and the rule, never the secret; the audit line records the place.
#[test]
fn a_peers_plain_commit_holding_a_secret_is_adopted_by_sync_remote_with_a_warning() {
    let (a, daemon, _remote) = served();
    a.run(["sync", "--remote", "origin"]).success();
    let peer = TestEnv::new();
    git_in(&peer.home, &peer.home, &["clone", "-q", &daemon.url("remote.git"), "ws"]);
    let key = crate::secrets::aws_key_id();
    peer.append("MEMORY.md", &format!("- deploy key {key}\n"));
    peer.git_commit_all("deploy key, by hand");
    peer.git(&["push", "-q", "origin", "main"]);
    let commit = peer.head();
    let out = a.run(["sync", "--remote", "origin"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    let want = "warning: commit [HASH] MEMORY.md:18: looks like a secret (aws-access-key-id at \
                column 14: AKIA… (20 chars)); adopted\n  hint: move it out of memory";
    assert!(out.stderr.contains(want), "{out}");
    assert!(!out.stderr.contains(&key) && !out.stdout.contains(&key), "{out}");
    a.assert_clean_tree();
    let lines = a.audit_lines();
    let line = lines.iter().find(|l| l.contains("| EDIT | MEMORY.md | tester |")).unwrap();
    let want =
        format!("looks like a secret at line 18 (aws-access-key-id) in commit {}", &commit[..8]);
    assert!(line.ends_with(&want), "{line}");
    drop(daemon);
}

/// A reflection submitted on machine A and approved on machine B after `sync --remote`: B had
/// no record of the submit commit (`refs/cogmem/submitted/reflection` stayed on A), so its
/// approval took the newest commit claiming the submit trigger, and a hand commit on B that
/// claimed cogmem's name and the trigger passed for it (the twelfth stop's list). The records
/// now travel with the sync, through a real git server: the hand commit is refused on B, and
/// on A once B's sync brings it there; the submission as made is approved on B.
#[test]
fn a_submission_made_on_another_machine_is_approved_only_as_submitted() {
    let (a, daemon, remote) = served();
    a.mutate(["remember", "Bob talked about the garden"]);
    crate::reflect::to_ready(&a);
    let text = "Mono.\nOPERATION: PATTERN\nTARGET: memory/meta/evolution.md\nCONTENT: harmless\nREASON: r\n---\n";
    a.run(["reflect", "submit", "-"]).stdin(text).success();
    let submit = a.head();
    a.run(["sync", "--remote", "origin"]).success();
    let record = "refs/cogmem/submitted/reflection";
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", record]).trim(), submit);
    let b = TestEnv::new();
    git_in(&b.home, &b.home, &["clone", "-q", &daemon.url("remote.git"), "ws"]);
    b.set_now("2026-12-01T09:30:00Z");
    b.run(["sync", "--remote", "origin"]).success();
    assert_eq!(b.git(&["rev-parse", record]).trim(), submit);
    assert!(b.git(&["for-each-ref", "refs/cogmem/fetched"]).is_empty(), "nothing staged is left");

    let file = "memory/meta/pending-reflection.md";
    let submitted = b.read(file);
    let sneaky = "OPERATION: ARCHIVE\nTARGET: episode:2026-12-01:09:00\nREASON: sneaky\n---\n";
    b.write(file, &format!("{submitted}{sneaky}"));
    crate::reflect::fake_submit_commit(&b, file, "cogmem reflect submit");
    crate::reflect::assert_approval_refused_as_changed(&b);
    // The hand commit reaches A: refused there too.
    b.run(["sync", "--remote", "origin"]).success();
    a.run(["sync", "--remote", "origin"]).success();
    assert!(a.read(file).contains("sneaky"));
    crate::reflect::assert_approval_refused_as_changed(&a);
    // Put back as submitted, B approves it.
    b.write(file, &submitted);
    b.run(["sync"]).success();
    let ok = b.run(["--actor", "user:ann", "reflect", "approve"]).success();
    assert!(!ok.stderr.contains("ARCHIVE"), "{ok}");
    b.assert_clean_tree();
    // A purge rewrites the records with the history, and they travel rewritten: the remote
    // keeps no record of the old history (nothing there holds the purged text).
    let secret = "5093-copper-walrus";
    b.mutate(["remember", "--store", "core", &format!("Archive shelf {secret} holds the map")]);
    b.run(["sync", "--remote", "origin"]).success();
    a.run(["sync", "--remote", "origin"]).success();
    purge_the_memory_holding(&a, secret);
    a.run(["sync", "--remote", "origin", "--force-rewritten"]).success();
    assert!(!remote_holds(&remote, &a.home, secret), "the remote still holds it");
    b.run(["sync", "--remote", "origin", "--force-rewritten"]).success();
    let at = |env: &TestEnv| env.git(&["rev-parse", record]).trim().to_owned();
    assert_eq!(git_in(&remote, &a.home, &["rev-parse", record]).trim(), at(&a));
    assert_eq!(at(&b), at(&a));
    assert_eq!(a.git(&["merge-base", "--is-ancestor", &at(&a), "HEAD"]), "");
    drop(daemon);
}
