//! `cogmem sync`: committing hand edits, with validation and the append-only rule for episodes.

use crate::common::TestEnv;

const ALICE: &str = "# person--alice\n<!-- Type: person | Created: 2026-12-01 | Last updated: 2026-12-01 -->\n\n## Summary\nA colleague.\n\n## Facts\n- Prefers tea\n\n## Relations\n- works-on: [[project--atlas]]\n";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn sync_commits_every_hand_edit_in_one_commit_with_an_audit_line_per_file() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "old note", "--store", "vault"]);
    env.write("memory/graph/entities/person--alice.md", ALICE);
    let memory =
        env.read("MEMORY.md").replace("## Active Context\n", "## Active Context\n- Shipping v2\n");
    env.write("MEMORY.md", &memory);
    std::fs::remove_file(env.path("memory/vault/old-note.md")).unwrap();
    let out = env.mutate(["sync", "--actor", "user:ann"]);
    assert!(out.stderr.starts_with("synced 3 files (commit [HASH])\n"), "{out}");

    let lines = env.audit_lines();
    let by_file = |file: &str| {
        lines.iter().rev().find(|l| l.split(" | ").nth(2) == Some(file)).cloned().unwrap()
    };
    assert!(by_file("memory/graph/entities/person--alice.md")
        .ends_with("| CREATE | memory/graph/entities/person--alice.md | user:ann | — | created by hand (+11 lines)"));
    assert!(
        by_file("MEMORY.md")
            .contains("| EDIT | MEMORY.md | user:ann | — | edited by hand (+1 -0 lines)")
    );
    assert!(
        by_file("memory/vault/old-note.md")
            .contains("| DELETE | memory/vault/old-note.md | user:ann | — |")
    );
    let decay = env.read("memory/meta/decay-scores.json");
    assert!(decay.contains("\"entity:person--alice\""), "{decay}");
    assert!(decay.contains("\"core:active-context:"), "a decay entry for the new bullet: {decay}");
    assert!(env.read("memory/graph/index.md").contains("person--alice"));
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(
        log.starts_with("user:ann\n[EDIT] MEMORY.md +4 — 3 hand-edited files synced\n"),
        "{log}"
    );
    assert!(log.contains("Trigger: cogmem sync"), "{log}");
    // The derived search index sees the hand edit.
    let out = env.run(["search", "tea", "--json"]).success();
    assert!(out.stdout.contains("person--alice"), "{out}");
}

/// In a workspace whose decay state is sharded, a hand edit's new units get their entries in
/// the shards they belong to and nothing else of the decay state changes (sync now reads only
/// those shards; `verify` checks every key is in the file it belongs to); an untracked note made
/// by hand is found and committed; an entity edited by hand still regenerates the graph index.
#[test]
fn sync_in_a_sharded_workspace_writes_only_the_shards_of_the_new_units() {
    let env = TestEnv::initialized();
    env.import_messages(1_010);
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    assert!(env.path("memory/meta/decay").is_dir(), "sharded");
    let memory =
        env.read("MEMORY.md").replace("## Active Context\n", "## Active Context\n- Shipping v3\n");
    env.write("MEMORY.md", &memory);
    env.write("memory/vault/made-by-hand.md", "# Made by hand\n\nthe boiler code is 4471\n");
    let before = env.head();
    env.mutate(["sync"]);
    let changed = env.git(&["diff", "--name-only", &before, "HEAD"]);
    let shards: Vec<&str> =
        changed.lines().filter(|p| p.starts_with("memory/meta/decay/")).collect();
    assert!(!shards.is_empty() && shards.len() <= 2, "{changed}");
    let all = env.git(&["show", "HEAD:memory/meta/audit.log"]);
    assert!(all.contains("memory/vault/made-by-hand.md"), "{all}");
    let written: String = shards.iter().map(|s| env.read(s)).collect();
    assert!(written.contains("\"vault:made-by-hand\""), "{written}");
    assert!(written.contains("\"core:active-context:"), "{written}");
    // An entity edited by hand: the whole decay state is read, the graph index follows.
    let bob = ALICE.replace("alice", "bob").replace("- works-on: [[project--atlas]]\n", "");
    env.write("memory/graph/entities/person--bob.md", &bob);
    env.mutate(["sync"]);
    assert!(env.read("memory/graph/index.md").contains("person--bob"));
    env.wait_for_index();
    env.run(["verify"]).success();
}

#[test]
fn sync_with_nothing_to_sync_exits_0_without_a_commit() {
    let env = TestEnv::initialized();
    let before = env.commit_count();
    let out = env.run(["sync"]).success();
    assert_eq!(out.stderr, "nothing to sync: no hand edits since the last commit\n");
    assert_eq!(env.commit_count(), before);
    let out = env.run(["sync", "--json"]).success();
    assert_eq!(json(&out.stdout)["commit"], serde_json::Value::Null);
}

#[test]
fn sync_leaves_a_malformed_file_and_commits_the_valid_ones() {
    let env = TestEnv::initialized();
    env.write("memory/graph/entities/person--alice.md", ALICE);
    let bad_episode =
        "# 2026-11-30 — Episode Log\n\n## 09:15 | musing | confidence:high | tags:[]\nHmm.\n";
    env.write("memory/episodes/2026-11-30.md", bad_episode);
    env.write("memory/graph/entities/Not An Id.md", "# x\n");
    let before = env.commit_count();
    let out = env.run(["sync"]).output().code(3);
    assert_eq!(env.commit_count(), before + 1, "{out}");
    assert!(out.stderr.contains(
        "warning: left memory/episodes/2026-11-30.md:3: unknown entry type \"musing\"; expected decision, fact"
    ), "{out}");
    assert!(
        out.stderr.contains(
            "hint: write entry headings as `## HH:MM | fact | confidence:high | tags:[a, b]`"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains(
            "warning: left memory/graph/entities/Not An Id.md: the file name is not an entity id"
        ),
        "{out}"
    );
    assert!(out.stderr.contains("1 file (commit [HASH]); 2 files left uncommitted"), "{out}");
    assert_eq!(
        env.git_status(),
        "?? memory/episodes/2026-11-30.md\n?? \"memory/graph/entities/Not An Id.md\"\n",
        "left files stay on disk, uncommitted"
    );
    assert_eq!(env.read("memory/episodes/2026-11-30.md"), bad_episode);
    // Fixed by hand, it goes in with the next sync.
    env.write("memory/episodes/2026-11-30.md", &bad_episode.replace("musing", "event"));
    std::fs::remove_file(env.path("memory/graph/entities/Not An Id.md")).unwrap();
    env.mutate(["sync"]);
    assert!(env.read("memory/meta/decay-scores.json").contains("\"episode:2026-11-30:09:15\""));
}

#[test]
fn sync_refuses_rewritten_episode_entries_unless_forced_and_accepts_appends() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Met Alice at the station"]);
    let rel = "memory/episodes/2026-12-01.md";
    let original = env.read(rel);
    // Appending an entry is fine.
    env.write(
        rel,
        &format!("{original}\n## 10:00 | event | confidence:high | tags:[]\nLunch with Bob.\n"),
    );
    env.mutate(["sync"]);
    let appended = env.read(rel);
    // Rewriting an existing entry is refused.
    env.write(rel, &appended.replace("Met Alice at the station", "Met Alice at the airport"));
    let out = env.run(["sync"]).output().code(3);
    assert!(out.stderr.contains(&format!("warning: left {rel}:6: the existing entry at 09:00 was rewritten; episodes are append-only")), "{out}");
    assert!(out.stderr.contains("pass `--force`"), "{out}");
    assert!(env.git_status().contains(rel));
    // So is deleting the day.
    let rewritten = env.read(rel);
    std::fs::remove_file(env.path(rel)).unwrap();
    let out = env.run(["sync", "--dry-run"]).output().code(3);
    assert!(out.stdout.contains(&format!("LEFT    {rel}: deletes 2 episode entries")), "{out}");
    env.write(rel, &rewritten);
    let out = env.mutate(["sync", "--force"]);
    assert!(out.stderr.contains("EDIT    memory/episodes/2026-12-01.md"), "{out}");
    assert!(env.git(&["show", "HEAD:memory/episodes/2026-12-01.md"]).contains("airport"));
}

#[test]
fn sync_dry_run_writes_nothing_and_json_reports() {
    let env = TestEnv::initialized();
    env.write("memory/graph/entities/person--alice.md", ALICE);
    let before = (env.commit_count(), env.snapshot());
    let out = env.run(["sync", "--dry-run"]).success();
    assert_eq!(
        out.stdout,
        "CREATE  memory/graph/entities/person--alice.md — created by hand (+11 lines)\n\
         decay   1 new entries\ngraph   memory/graph/index.md regenerated\n"
    );
    assert_eq!(out.stderr, "dry run: would sync 1 file\n");
    assert_eq!((env.commit_count(), env.snapshot()), before);
    let out = env.run(["sync", "--json"]).success();
    let v = json(&out.stdout);
    assert_eq!(v["commit"], "[HASH]");
    assert_eq!(v["committed"][0]["path"], "memory/graph/entities/person--alice.md");
    assert_eq!(v["committed"][0]["action"], "CREATE");
    assert_eq!(v["decay_entries"][0], "entity:person--alice");
    assert_eq!(v["graph_index"], true);
    assert_eq!(v["left"].as_array().map(Vec::len), Some(0));
    env.assert_clean_tree();
}

#[test]
fn sync_of_a_critical_file_raises_the_alert() {
    let env = TestEnv::initialized();
    let soul = env.read("SOUL.md") + "\nBe brief.\n";
    env.write("SOUL.md", &soul);
    env.mutate(["sync", "--actor", "user:ann"]);
    let lines = env.audit_lines();
    let n = lines.len();
    assert!(
        lines[n - 2].contains(
            "| EDIT | SOUL.md | user:ann | — | ⚠️ CRITICAL: edited by hand (+2 -0 lines)"
        ),
        "{lines:#?}"
    );
    assert!(
        lines[n - 1]
            .contains("| ALERT | SOUL.md | system:audit | — | Critical file change detected."),
        "{lines:#?}"
    );
    assert!(env.git(&["log", "-1", "--format=%B"]).contains("⚠️ CRITICAL FILE CHANGED"));
    let out = env.run(["status", "--json"]).success();
    let v = json(&out.stdout);
    assert_eq!(v["unacknowledged_critical"][0]["file"], "SOUL.md");
    assert_eq!(v["unacknowledged_critical"][0]["actor"], "user:ann");
}

#[test]
fn sync_blocks_everything_while_the_decay_scores_are_malformed() {
    let env = TestEnv::initialized();
    env.write("memory/graph/entities/person--alice.md", ALICE);
    env.write("memory/meta/decay-scores.json", "{ \"version\": 3,\n  \"entries\": oops }\n");
    let before = env.commit_count();
    let out = env.run(["sync"]).output().code(3);
    assert_eq!(env.commit_count(), before, "{out}");
    assert!(out.stderr.contains("warning: left memory/meta/decay-scores.json:2:"), "{out}");
    assert!(out.stderr.contains("warning: left memory/graph/entities/person--alice.md: not committed: the audit log or decay scores must be fixed first"), "{out}");
}

#[test]
fn sync_rejects_bad_relations_and_unclosed_front_matter() {
    let env = TestEnv::initialized();
    env.write(
        "memory/graph/entities/person--bob.md",
        "# person--bob\n\n## Relations\n- works-on: [[Project Atlas]]\n",
    );
    env.write("memory/procedures/deploy.md", "---\ntitle: Deploy\n# Deploy\n");
    let out = env.run(["sync"]).output().code(3);
    assert!(out.stderr.contains("warning: left memory/graph/entities/person--bob.md:4: relation target \"Project Atlas\""), "{out}");
    assert!(out.stderr.contains("warning: left memory/procedures/deploy.md:1: front matter opened with `---` is never closed"), "{out}");
}

#[test]
fn sync_refuses_a_subagent() {
    let env = TestEnv::initialized();
    env.write("memory/graph/entities/person--alice.md", ALICE);
    env.run(["sync", "--actor", "subagent:researcher"]).output().code(4);
    assert!(env.git_status().contains("person--alice.md"), "the hand edit stays");
}

#[test]
fn sync_takes_lines_appended_to_the_audit_log_but_not_a_rewrite() {
    let env = TestEnv::initialized();
    let log = env.read("memory/meta/audit.log");
    let note = "2026-11-30T08:00:00Z | EDIT | MEMORY.md | manual | — | noted by hand\n";
    env.write("memory/meta/audit.log", &format!("{log}{note}"));
    env.write("memory/vault/note.md", "# Note\n\nby hand\n");
    let out = env.run(["sync", "--json"]).success();
    let v = json(&out.stdout);
    let paths: Vec<&str> =
        v["committed"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(paths, ["memory/meta/audit.log", "memory/vault/note.md"]);
    assert!(env.git(&["show", "HEAD:memory/meta/audit.log"]).contains(note));
    env.assert_clean_tree();
    // Rewriting an earlier line blocks everything: every commit appends to the log.
    let log = env.read("memory/meta/audit.log").replace("noted by hand", "changed later");
    env.write("memory/meta/audit.log", &log);
    env.write("memory/vault/other.md", "# Other\n");
    let before = env.commit_count();
    let out = env.run(["sync"]).output().code(3);
    assert_eq!(env.commit_count(), before);
    assert!(out.stderr.contains("warning: left memory/meta/audit.log: earlier lines were changed or removed; the audit log is append-only"), "{out}");
    assert!(out.stderr.contains("warning: left memory/vault/other.md: not committed"), "{out}");
}

/// A `.cogmem-tmp-*` file a killed atomic write left behind is no hand edit: sync commits the
/// real edits beside it and leaves it for `doctor --fix`, which removes it and leaves a clean
/// tree.
#[test]
fn sync_leaves_the_temporary_file_of_an_unfinished_write_alone() {
    let env = TestEnv::initialized();
    let tmp = "memory/meta/.cogmem-tmp-AbC123";
    env.write(tmp, &env.read("memory/meta/decay-scores.json"));
    let memory =
        env.read("MEMORY.md").replace("## Active Context\n", "## Active Context\n- Likes hiking\n");
    env.write("MEMORY.md", &memory);
    let before = env.commit_count();
    let out = env.run(["sync", "--json"]).success();
    assert_eq!(env.commit_count(), before + 1, "{out}");
    let v = json(&out.stdout);
    let paths: Vec<&str> =
        v["committed"].as_array().unwrap().iter().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(paths, ["MEMORY.md"], "{out}");
    assert!(!env.git(&["ls-tree", "-r", "--name-only", "HEAD"]).contains(".cogmem-tmp-"));
    assert_eq!(env.git_status(), format!("?? {tmp}\n"));
    // Nothing else to sync: the leftover is still not a hand edit.
    let out = env.run(["sync"]).success();
    assert!(out.stderr.starts_with("nothing to sync"), "{out}");
    env.run(["doctor", "--fix"]).success();
    env.assert_clean_tree();
}

/// One file over `limits.file_bytes` is left, with the key named, and the rest committed
/// (exit 3); it stopped the whole sync (exit 1). Left as it is, it does not make the search
/// index look older than the files for ever, nor does `doctor --fix` claim to repair that.
#[test]
fn sync_leaves_a_file_over_the_size_limit_and_commits_the_rest() {
    let env = TestEnv::initialized();
    env.write(
        "cogmem.toml",
        &format!("{}\n[limits]\nfile_bytes = 4096\n", env.read("cogmem.toml")),
    );
    env.mutate(["sync"]);
    let huge = "memory/vault/huge.md";
    env.write(huge, &format!("# Huge\n\n{}\n", "a".repeat(5000)));
    let memory =
        env.read("MEMORY.md").replace("## Active Context\n", "## Active Context\n- Likes hiking\n");
    env.write("MEMORY.md", &memory);
    let before = env.commit_count();
    let out = env.run(["sync"]).output().code(3);
    assert_eq!(env.commit_count(), before + 1, "{out}");
    assert!(out.stderr.contains("synced 1 file (commit [HASH]); 1 file left uncommitted"), "{out}");
    assert!(out.stderr.contains(&format!("warning: left {huge}: cannot read: it is 5009 bytes, over the limit of 4096 bytes (`limits.file_bytes` in cogmem.toml)")), "{out}");
    assert!(out.stderr.contains("raise `limits.file_bytes` in cogmem.toml"), "{out}");
    assert!(env.git(&["show", "HEAD:MEMORY.md"]).contains("- Likes hiking"));
    assert_eq!(env.git_status(), format!("?? {huge}\n"));
    env.wait_for_index();
    let findings = |out: &str| -> Vec<String> {
        json(out)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{} {}", f["check"].as_str().unwrap(), f["path"].as_str().unwrap()))
            .collect()
    };
    let want = [format!("schema {huge}"), format!("uncommitted {huge}")];
    let out = env.run(["verify", "--json"]).output().code(3);
    assert_eq!(findings(&out.stdout), want, "{out}");
    let out = env.run(["doctor", "--fix"]).output().code(3);
    assert!(!out.stdout.contains("repaired"), "nothing to repair: {out}");
    let out = env.run(["verify", "--json"]).output().code(3);
    assert_eq!(findings(&out.stdout), want, "{out}");
}

/// A memory used (`show`) while its file is malformed, then left uncommitted by `sync`, gets no
/// decay entry in the sync's commit: folding the use made one, so `HEAD` held an entry for a
/// memory in no committed file, and once the file was put back `verify` reported it. The use
/// waits in the access log for a fold after the file is committed.
#[test]
fn sync_commits_no_decay_entry_for_a_memory_in_a_file_it_leaves() {
    let env = TestEnv::initialized();
    let day = "memory/episodes/2026-11-30.md";
    let id = "episode:2026-11-30:25:00";
    env.write(
        day,
        "# 2026-11-30 — Episode Log\n\n## 25:00 | decision | confidence:high | tags:[]\nBad time entry\n",
    );
    env.run(["show", id]).success();
    let bob = ALICE.replace("alice", "bob").replace("- works-on: [[project--atlas]]\n", "");
    env.write("memory/graph/entities/person--bob.md", &bob);
    let out = env.run(["sync"]).output().code(3);
    assert!(out.stderr.contains(&format!("warning: left {day}:3:")), "{out}");
    assert_eq!(env.git_status(), format!("?? {day}\n"));
    let committed = env.git(&["show", "HEAD:memory/meta/decay-scores.json"]);
    assert!(committed.contains("\"entity:person--bob\""), "{committed}");
    assert!(!committed.contains(id), "no entry for a memory in a file left: {committed}");
    assert!(env.read(".cogmem/access.log").contains(&format!("\tuse\t{id}\n")), "the use waits");
    // The file goes; the next change folds the use of a memory that is no more, and makes no
    // entry for it.
    std::fs::remove_file(env.path(day)).unwrap();
    env.mutate(["remember", "Bob likes jazz"]);
    assert!(!env.read("memory/meta/decay-scores.json").contains(id));
    env.wait_for_index();
    env.run(["verify"]).success();
}

/// A core bullet deleted by hand and a procedure renamed and rewritten by hand, committed by
/// `sync`: the entries of the memories the commit removes are marked archived in the same
/// commit (as `doctor --fix` marks an orphan), so `verify` is clean right after the sync; it
/// reported orphan entries until `doctor --fix` ran. (A rename that keeps the text keeps the
/// entry: `a_procedure_renamed_by_hand_keeps_its_decay_entry`.)
#[test]
fn sync_archives_the_decay_entries_of_memories_its_commit_removes() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Allergic to peanuts",
        "--store",
        "core",
        "--section",
        "critical-facts",
    ]);
    env.mutate(["remember", "--store", "procedural", "--title", "Deploy Atlas", "run migrations"]);
    let decay = || json(&env.read("memory/meta/decay-scores.json"));
    let bullet = env.decay_key("core:critical-facts:");
    let memory = env.read("MEMORY.md");
    env.write("MEMORY.md", &memory.replace("- Allergic to peanuts\n", ""));
    let old = "memory/procedures/deploy-atlas.md";
    env.write("memory/procedures/ship-atlas.md", "# Ship Atlas\n\n## Steps\n1. tag a release\n");
    std::fs::remove_file(env.path(old)).unwrap();
    let out = env.mutate(["sync", "--json"]);
    let r = json(&out.stdout);
    // Output is normalised: the bullet's hash reads `[HASH]`.
    let archived = serde_json::json!(["core:critical-facts:[HASH]", "procedure:deploy-atlas"]);
    assert_eq!(r["decay_archived"], archived, "{out}");
    assert_eq!(r["decay_entries"], serde_json::json!(["procedure:ship-atlas"]), "{out}");
    let entries = decay()["entries"].clone();
    for key in [bullet.as_str(), "procedure:deploy-atlas"] {
        assert_eq!(entries[key]["status"], "archived", "{key}: {entries}");
        assert_eq!(entries[key]["archive"]["by"], "test-agent", "{key}: {entries}");
    }
    env.wait_for_index();
    env.run(["verify"]).success();
}

/// A procedure renamed by hand (`git mv`, its text unchanged or nearly) keeps its decay entry
/// under the new id, uses and creation included, whether `sync` commits the rename or a plain
/// `git commit` does and the next writing command adopts it; before, the renamed file started a
/// new entry with one use and the old one was archived (or, adopted, left an orphan).
#[test]
fn a_procedure_renamed_by_hand_keeps_its_decay_entry() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "procedural", "--title", "Deploy Atlas", "run migrations"]);
    env.mutate(["remember", "--store", "procedural", "--title", "Ship Bolt", "tag it, push it"]);
    for id in ["procedure:deploy-atlas", "procedure:ship-bolt"] {
        env.run(["touch", id]).success();
        env.run(["touch", id]).success();
    }
    env.mutate(["remember", "something else"]); // folds the uses
    let entry = |id: &str| json(&env.read("memory/meta/decay-scores.json"))["entries"][id].clone();
    let (atlas, bolt) = (entry("procedure:deploy-atlas"), entry("procedure:ship-bolt"));
    assert_eq!(atlas["access_count"], 3);

    // Renamed and committed by `sync`, one step added on the way.
    env.git(&["mv", "memory/procedures/deploy-atlas.md", "memory/procedures/migrate-atlas.md"]);
    env.append("memory/procedures/migrate-atlas.md", "- check the backups first\n");
    let out = env.mutate(["sync", "--json"]);
    let r = json(&out.stdout);
    let carried =
        serde_json::json!([{"from": "procedure:deploy-atlas", "to": "procedure:migrate-atlas"}]);
    assert_eq!(r["decay_carried"], carried, "{out}");
    assert_eq!(r["decay_entries"], serde_json::json!([]), "{out}");
    assert_eq!(r["decay_archived"], serde_json::json!([]), "{out}");
    assert_eq!(entry("procedure:migrate-atlas"), atlas, "the entry, as it was");
    assert!(entry("procedure:deploy-atlas").is_null());

    // Renamed with plain git and adopted by the next write.
    env.git(&["mv", "memory/procedures/ship-bolt.md", "memory/procedures/release-bolt.md"]);
    env.git(&["commit", "-q", "-m", "bolt is released, not shipped"]);
    let out = env.run(["remember", "Bolt ships in May"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    assert_eq!(entry("procedure:release-bolt"), bolt, "the entry, as it was");
    assert!(entry("procedure:ship-bolt").is_null());
    let carried = env.audit_lines().into_iter().any(|l| {
        l.contains("| system:adopt |")
            && l.contains("carried procedure:ship-bolt → procedure:release-bolt")
    });
    assert!(carried, "{:#?}", env.audit_lines());
    env.assert_clean_tree();
    env.wait_for_index();
    env.run(["verify"]).success();
}

/// Uses recorded under a procedure's id after the last fold and before a hand rename count for
/// the new id when the rename is committed (by `sync`, or adopted after a plain `git commit`);
/// they were dropped with the old id.
#[test]
fn uses_recorded_before_a_hand_rename_follow_the_procedure() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "procedural", "--title", "Deploy Atlas", "run migrations"]);
    env.mutate(["remember", "--store", "procedural", "--title", "Ship Bolt", "tag it, push it"]);
    env.mutate(["remember", "something else"]); // the entries exist, nothing waits to fold
    let entry = |id: &str| json(&env.read("memory/meta/decay-scores.json"))["entries"][id].clone();
    let count = |id: &str| entry(id)["access_count"].as_u64().unwrap_or(0);
    let (atlas, bolt) = (count("procedure:deploy-atlas"), count("procedure:ship-bolt"));
    for id in ["procedure:deploy-atlas", "procedure:ship-bolt"] {
        env.run(["touch", id]).success();
        env.run(["touch", id]).success();
    }

    env.git(&["mv", "memory/procedures/deploy-atlas.md", "memory/procedures/migrate-atlas.md"]);
    env.mutate(["sync"]);
    assert!(entry("procedure:deploy-atlas").is_null());
    assert_eq!(count("procedure:migrate-atlas"), atlas + 2, "{}", entry("procedure:migrate-atlas"));

    env.run(["touch", "procedure:ship-bolt"]).success();
    env.git(&["mv", "memory/procedures/ship-bolt.md", "memory/procedures/release-bolt.md"]);
    env.git(&["commit", "-q", "-m", "bolt is released, not shipped"]);
    let out = env.run(["remember", "Bolt ships in May"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    assert!(entry("procedure:ship-bolt").is_null());
    assert_eq!(count("procedure:release-bolt"), bolt + 3, "{}", entry("procedure:release-bolt"));
    env.assert_clean_tree();
    env.wait_for_index();
    env.run(["verify"]).success();
}

/// A git repository inside `memory/`: git lists it as a folder and would commit only a link to
/// it. `sync` leaves it with what to do (exit 3, as for any file it leaves) instead of saying
/// there is nothing to sync, and `verify`'s finding gives the same advice, not "commit it".
#[test]
fn a_git_repository_inside_memory_is_left_by_sync_and_named_by_verify() {
    let env = TestEnv::initialized();
    env.write("memory/notes/alice.md", "- Alice likes tea\n");
    env.git(&["init", "-q", "memory/notes"]);
    let before = env.commit_count();
    let out = env.run(["sync"]).output().code(3);
    assert!(
        out.stderr.contains(
            "warning: left memory/notes/: a git repository inside the workspace; git would commit only a link to it"
        ),
        "{out}"
    );
    assert!(out.stderr.contains("delete its `.git` folder"), "{out}");
    assert_eq!(env.commit_count(), before, "{out}");
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains("memory/notes/: a git repository inside the workspace"), "{out}");
    assert!(!out.stdout.contains("commit it with git"), "{out}");
    // Following the advice: its files become memory, committed by the next sync.
    std::fs::remove_dir_all(env.path("memory/notes/.git")).unwrap();
    env.run(["sync"]).success();
    env.run(["verify"]).output().code(0);
}

/// A new day file that is not UTF-8: `git checkout -- FILE` cannot restore a file git never
/// had, so neither `sync` nor `search` offers it; `sync` says to fix its encoding or remove it.
#[test]
fn an_untracked_file_that_is_not_utf8_gets_a_hint_that_works_for_it() {
    let env = TestEnv::initialized();
    let day = "memory/episodes/2026-12-05.md";
    std::fs::write(env.path(day), b"## 09:00 | fact | confidence:high | tags:[]\n\xff\xfe tea\n")
        .unwrap();
    let out = env.run(["sync"]).output().code(3);
    assert!(out.stderr.contains(&format!("warning: left {day}: not valid UTF-8")), "{out}");
    assert!(out.stderr.contains("or remove it: git never had it"), "{out}");
    assert!(!out.stderr.contains("git checkout"), "{out}");
    let out = env.run(["search", "tea"]).output().code(3);
    assert!(out.stderr.contains(&format!("{day}: not valid UTF-8")), "{out}");
    assert!(!out.stderr.contains("git checkout"), "{out}");
}
