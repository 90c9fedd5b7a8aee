//! `cogmem init`: the golden tree, idempotence, adoption of existing workspaces.

use crate::common::{TestEnv, golden};

#[test]
fn init_matches_golden_tree_and_commits_once() {
    let env = TestEnv::new();
    let out = env.run(["init", "ws"]).success();
    assert_eq!(
        out.stderr,
        "initialized a workspace in [TMP]/ws: 21 created, 0 updated (commit [HASH])\nnext: cogmem remember \"something worth keeping\"\n"
    );
    golden::assert_tree(&env.root, "tests/golden/init");
    assert_eq!(env.commit_count(), 1);
    let msg = env.git(&["log", "-1", "--format=%an <%ae>%n%B"]);
    assert!(msg.starts_with("system:init <system.init@cogmem.invalid>\n[INIT] MEMORY.md +19 — cognitive memory workspace initialized\n\nActor: system:init\nApproval: auto\nTrigger: cogmem init\n⚠️ CRITICAL FILE CHANGED\n"), "{msg}");
    assert_eq!(env.git(&["symbolic-ref", "HEAD"]).trim(), "refs/heads/main");
    env.assert_clean_tree();
    // One audit line per file in the commit (the log itself excluded), plus alerts.
    let files = env.git(&["ls-files"]).lines().filter(|l| *l != "memory/meta/audit.log").count();
    let lines = env.audit_lines();
    assert_eq!(lines.iter().filter(|l| !l.contains(" | ALERT | ")).count(), files);
    assert_eq!(
        lines.iter().filter(|l| l.contains(" | ALERT | ")).count(),
        2,
        "SOUL.md and IDENTITY.md are critical"
    );
}

#[test]
fn init_twice_changes_nothing() {
    let env = TestEnv::initialized();
    let before = env.snapshot();
    let head = env.head();
    let out = env.run(["init"]).success();
    assert_eq!(out.stderr, "[TMP]/ws is already a cogmem workspace; nothing to do\n");
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before);
}

#[test]
fn init_json_reports_created_files() {
    let env = TestEnv::new();
    let out = env.run(["init", "ws", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["existing_workspace"], false);
    assert_eq!(v["repository_created"], true);
    assert!(v["created"].as_array().unwrap().iter().any(|f| f == "MEMORY.md"));
    assert_eq!(v["commit"], "[HASH]", "a 40-digit commit id");
}

/// A workspace made by the cognitive-memory skill, without git: nothing it has is overwritten,
/// what is missing is created, and the first commit holds both.
#[test]
fn init_adopts_skill_workspace_without_git() {
    let env = TestEnv::new();
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/skill-workspace");
    copy_dir(&fixture, &env.root);
    env.write("private-notes.txt", "not memory\n");
    let before = env.snapshot();
    let out = env.run(["init", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["existing_workspace"], true);
    for (rel, bytes) in &before {
        let now = std::fs::read(env.path(rel)).unwrap();
        if rel == "memory/meta/audit.log" {
            assert!(now.starts_with(bytes), "the audit log is only appended to");
        } else {
            assert_eq!(&now, bytes, "{rel} was changed");
        }
    }
    let created: Vec<&str> =
        v["created"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(created.contains(&"SOUL.md") && created.contains(&".gitignore"), "{created:?}");
    assert!(!created.contains(&"MEMORY.md"));
    assert!(!created.contains(&"memory/episodes/.gitkeep"), "folder already has files");
    let adopted = v["adopted"].as_array().unwrap();
    assert!(adopted.iter().any(|f| f == "memory/episodes/2026-02-01.md"), "{adopted:?}");
    assert!(
        !adopted.iter().any(|f| f == "memory/meta/audit.log"),
        "the log is a touched file, not adopted"
    );
    assert_eq!(v["left_alone"], serde_json::json!(["private-notes.txt"]));
    assert_eq!(
        env.git_status(),
        "?? private-notes.txt\n",
        "files outside the workspace stay the user's"
    );
    assert_eq!(env.commit_count(), 1);
    assert!(env.git(&["log", "-1", "--format=%s"]).starts_with("[INIT] "));
    std::fs::remove_file(env.path("private-notes.txt")).unwrap();
    env.assert_clean_tree();
    // And it works as a workspace: remember appends to the adopted files' stores.
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    let alice = env.read("memory/graph/entities/person--alice.md");
    assert!(alice.contains("- Prefers tea\n- Alice moved to Lisbon\n"), "{alice}");
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(decay["version"], 3, "upgraded from version 2");
    assert_eq!(decay["custom_field"], "kept");
    assert!(decay["entries"]["entity:person--alice"].is_object());
}

/// A folder that already has git history and uncommitted work of its own: only cogmem's files
/// are committed; the user's work stays uncommitted and untouched.
#[test]
fn init_in_existing_repo_commits_only_its_own_files() {
    let env = TestEnv::new();
    std::fs::create_dir_all(&env.root).unwrap();
    env.git(&["init", "-q", "-b", "main"]);
    env.write(".gitignore", "target/\n");
    env.write("notes.txt", "mine\n");
    env.git_commit_all("user's first commit");
    env.write("draft.txt", "uncommitted\n");
    let out = env.run(["init", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["updated"], serde_json::json!([".gitignore"]));
    assert_eq!(
        env.read(".gitignore"),
        "target/\n# cogmem: derived data (search index, graph cache, access log, lock); rebuilt from the files\n.cogmem/\n"
    );
    assert_eq!(env.commit_count(), 2);
    assert_eq!(env.git_status(), "?? draft.txt\n");
    assert!(!env.git(&["show", "--name-only", "--format=", "HEAD"]).contains("draft.txt"));
}

#[test]
fn init_refuses_malformed_settings_and_writes_nothing() {
    let env = TestEnv::new();
    env.write("cogmem.toml", "[core]\nbudget = 5\n");
    let out = env.run(["init"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: [TMP]/ws/cogmem.toml:2: unknown field `budget`"),
        "{out}"
    );
    assert!(!env.path("MEMORY.md").exists());
}

pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn agents_md_block_is_written_once_and_replaced_in_place() {
    let env = TestEnv::initialized();
    env.write("AGENTS.md", "# House rules\n\nBe kind.\n");
    env.git_commit_all("the user's own AGENTS.md");
    let commits = env.commit_count();

    let out = env.run(["init", "--agents-md"]).success();
    assert!(
        out.stderr.starts_with("wrote cogmem's memory block into [TMP]/ws/AGENTS.md"),
        "{}",
        out.stderr
    );
    assert_eq!(env.commit_count(), commits + 1);
    env.assert_clean_tree();
    let text = env.read("AGENTS.md");
    assert!(
        text.starts_with("# House rules\n\nBe kind.\n\n<!-- cogmem:memory-block:begin"),
        "{text}"
    );
    assert!(text.ends_with("<!-- cogmem:memory-block:end -->\n"), "{text}");
    assert!(text.contains("cogmem hear"), "the block tells agents when to call hear");
    assert!(text.contains("SOUL.md"), "the block forbids editing SOUL.md directly");
    let subject = env.git(&["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "[INIT] AGENTS.md — wrote the memory block for agents");

    // Idempotent: a second run changes nothing and makes no commit.
    let before = env.snapshot();
    env.run(["init", "--agents-md"]).success();
    assert_eq!(env.commit_count(), commits + 1);
    assert_eq!(env.snapshot(), before);

    // An outdated block is replaced in place; what surrounds it is kept.
    let stale =
        text.replace("cogmem hear", "cogmem OLD-COMMAND") + "\n## After the block\n\nStill mine.\n";
    env.write("AGENTS.md", &stale);
    env.git_commit_all("an older block");
    env.run(["init", "--agents-md"]).success();
    let fresh = env.read("AGENTS.md");
    assert!(!fresh.contains("OLD-COMMAND"), "{fresh}");
    assert_eq!(fresh.matches("cogmem:memory-block:begin").count(), 1);
    assert!(fresh.starts_with("# House rules\n\nBe kind.\n"));
    assert!(fresh.ends_with("\n## After the block\n\nStill mine.\n"), "{fresh}");
    env.assert_clean_tree();
}

#[test]
fn agents_md_block_is_created_with_a_fresh_workspace() {
    let env = TestEnv::new();
    env.run(["init", "ws", "--agents-md"]).success();
    assert!(env.read("AGENTS.md").starts_with("# AGENTS.md\n\n<!-- cogmem:memory-block:begin"));
    assert_eq!(env.commit_count(), 1);
    env.assert_clean_tree();
}

#[test]
fn agents_md_with_a_broken_block_is_reported_and_left_alone() {
    let env = TestEnv::initialized();
    env.write("AGENTS.md", "# Rules\n<!-- cogmem:memory-block:begin -->\nhalf a block\n");
    env.git_commit_all("a damaged block");
    let before = env.snapshot();
    let out = env.run(["init", "--agents-md"]).output().code(1);
    assert!(out.stderr.contains("AGENTS.md:2:"), "names the file and line: {}", out.stderr);
    assert!(out.stderr.contains("end marker"), "{}", out.stderr);
    assert_eq!(env.snapshot(), before);
}
