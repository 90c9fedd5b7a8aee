//! `cogmem upkeep` (issue 19, item 7) through the real binary: decay and audit retention in ONE
//! commit by `system:upkeep` (none when nothing changed), `--dry-run` writing nothing and
//! reporting the same, the consolidation and reflection notices without ever starting either,
//! and a malformed file reported with its line and left out while the rest goes on.

use crate::common::TestEnv;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn reflect_status(env: &TestEnv) -> serde_json::Value {
    let mut v = json(&env.run(["reflect", "status", "--json"]).success().stdout);
    v.as_object_mut().unwrap().remove("last_reflection");
    v
}

/// A workspace with an episode, an entity and a vault note made on 2026-12-01, seen 100 days
/// later: the episode and the entity have faded, and every audit line is older than 90 days.
fn stale() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "lunch with Bob at the noodle place"]);
    env.mutate(["remember", "Bob's birthday is March 3", "--entity", "person--bob"]);
    env.mutate(["remember", "the spare key is under the blue pot", "--store", "vault"]);
    env.set_now("2027-03-11T09:00:00Z");
    env
}

// See: issue 19
#[test]
fn issue_19_upkeep_decays_and_digests_old_audit_lines_in_one_commit_by_system_upkeep() {
    let env = stale();
    let before = env.commit_count();
    let lines_before = env.audit_lines();
    let out = env.run(["upkeep"]).success();
    assert_eq!(env.commit_count(), before + 1, "one commit: {out}");
    env.assert_clean_tree();
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "system:upkeep");
    let message = env.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Actor: system:upkeep"), "{message}");
    assert!(message.contains("Trigger: cogmem upkeep"), "{message}");
    assert!(out.stderr.contains("committed "), "{out}");
    assert!(out.stderr.contains("index: refreshed"), "{out}");

    // Decay: the episode went archived, the entity too (its comment line follows), the vault
    // stays at 1.0; each band change is a DECAY line by system:upkeep.
    let decay = json(&env.read("memory/meta/decay-scores.json"));
    assert_eq!(decay["entries"]["episode:2026-12-01:09:00"]["status"], "archived");
    assert_eq!(decay["entries"]["vault:the-spare-key-is-under-the-blue-pot"]["current_score"], 1.0);
    let bob = env.read("memory/graph/entities/person--bob.md");
    // Two uses: the lunch episode names Bob (entity extraction, issue 22), then the fact.
    assert!(bob.contains("<!-- Decay score: 0.10 | Access count: 2 | Pinned: no -->"), "{bob}");
    assert_eq!(decay["entries"]["entity:person--bob"]["status"], "dormant");
    let lines = env.audit_lines();
    let ours: Vec<&String> = lines.iter().filter(|l| l.contains("| system:upkeep |")).collect();
    assert!(
        ours.iter().any(|l| l.contains(
            "| DECAY | memory/episodes/2026-12-01.md | system:upkeep | auto | \
             episode:2026-12-01:09:00 active → archived ("
        )),
        "{lines:#?}"
    );
    assert!(
        ours.iter()
            .any(|l| l.contains("| EDIT | memory/meta/decay-scores.json | system:upkeep | auto |")),
        "{lines:#?}"
    );
    // Audit retention: every line before 2026-12-11 moved into the digest for 2026-12; the
    // log keeps only this commit's lines.
    let digested = format!(
        "| CREATE | memory/meta/audit-archive.md | system:upkeep | auto | {} audit lines before \
         2026-12-11T09:00:00Z moved into monthly digests (2026-12)",
        lines_before.len()
    );
    assert!(ours.iter().any(|l| l.contains(&digested)), "{lines:#?}");
    assert!(lines.iter().all(|l| l.contains("| system:upkeep |")), "{lines:#?}");
    let archive = env.read("memory/meta/audit-archive.md");
    assert!(archive.contains("2026"), "{archive}");
    // Every file of the commit has its line; the workspace verifies.
    for file in env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]).lines() {
        if file != "memory/meta/audit.log" {
            assert!(ours.iter().any(|l| l.split(" | ").nth(2) == Some(file)), "{file}: {lines:#?}");
        }
    }
    env.run(["verify"]).success();

    // Right after, nothing is left to do: no commit.
    let head = env.head();
    let again = env.run(["upkeep"]).success();
    assert_eq!(env.head(), head, "a second run commits nothing: {again}");
    assert!(again.stderr.contains("nothing to commit"), "{again}");
    env.assert_clean_tree();
}

// See: issue 19
#[test]
fn issue_19_upkeep_dry_run_writes_nothing_and_reports_what_the_run_does() {
    let env = stale();
    env.run(["touch", "entity:person--bob"]).success();
    let head = env.head();
    let files = env.snapshot();
    let access = env.read(".cogmem/access.log");
    let dry = env.run(["upkeep", "--dry-run", "--json"]).success();
    assert_eq!(env.head(), head, "no commit");
    assert!(env.snapshot() == files, "no file changed");
    assert_eq!(env.read(".cogmem/access.log"), access, "the recorded uses wait");
    env.assert_clean_tree();
    let dry = json(&dry.stdout);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["commit"], serde_json::Value::Null);

    let real = json(&env.run(["upkeep", "--json"]).success().stdout);
    assert!(real["commit"].is_string(), "{real}");
    for key in ["transitions", "archived", "created", "folded_uses", "entries"] {
        assert_eq!(dry["decay"][key], real["decay"][key], "decay {key}");
    }
    assert_eq!(dry["decay"]["folded_uses"], 1, "the touch is counted");
    // The cutoff is 90 days before each run's clock, which ticks a second per command.
    for key in ["moved", "kept", "months"] {
        assert_eq!(dry["audit"][key], real["audit"][key], "audit {key}");
    }
    assert_eq!(dry["notices"], real["notices"]);
    assert_eq!(dry["reflection"], real["reflection"]);
    assert_eq!(dry["consolidation"], real["consolidation"]);
}

// See: issue 19
#[test]
fn issue_19_upkeep_says_when_a_consolidation_or_a_reflection_is_due_and_never_starts_one() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Bob talked about the garden"]);
    let mut decay = json(&env.read("memory/meta/decay-scores.json"));
    decay["self_awareness_count_since_consolidation"] = serde_json::json!(12);
    env.write(
        "memory/meta/decay-scores.json",
        &(serde_json::to_string_pretty(&decay).unwrap() + "\n"),
    );
    env.git_commit_all("twelve self-awareness entries");
    env.run(["sync"]).success(); // adopts the hand commit
    let status = reflect_status(&env);
    let files = env.snapshot();

    let out = env.run(["upkeep", "-q"]).success();
    assert!(
        out.stdout.contains(
            "a self-image consolidation is due: 12 [Self-Awareness] entries since the last one \
             (due at 10)"
        ),
        "{out}"
    );
    assert!(out.stdout.contains("a reflection is due: 1 episode entry since the start"), "{out}");
    assert!(out.stderr.is_empty(), "-q prints only notices: {out}");
    let v = json(&env.run(["upkeep", "--json"]).success().stdout);
    assert_eq!(v["consolidation"]["due"], true, "{v}");
    assert_eq!(v["reflection"]["due"], true, "{v}");
    assert_eq!(v["reflection"]["state"], "idle", "{v}");
    // Nothing was started: the reflection cycle and the files of both stay as they were.
    assert_eq!(reflect_status(&env), status);
    assert!(!env.path("memory/meta/pending-identity.md").exists());
    let after = env.snapshot();
    let changed: Vec<&String> = after
        .iter()
        .filter(|(p, b)| files.iter().find(|(q, _)| q == p).map(|(_, c)| c) != Some(b))
        .map(|(p, _)| p)
        .filter(|p| !p.starts_with("memory/meta/decay") && *p != "memory/meta/audit.log")
        .collect();
    // No reward request, no pending reflection or consolidation: no file but decay and audit.
    assert!(changed.is_empty(), "only decay and audit files may change: {changed:?}");

    // A cycle waiting for the user is said to wait, and stays waiting.
    env.run(["reflect", "request"]).success();
    let waiting = reflect_status(&env);
    let out = env.run(["upkeep"]).success();
    assert!(out.stdout.contains("the reward request waits for the user's decision"), "{out}");
    assert!(!out.stdout.contains("a reflection is due"), "{out}");
    assert_eq!(reflect_status(&env), waiting);
}

// See: issue 19
#[test]
fn issue_19_upkeep_reports_a_malformed_decay_file_with_its_line_and_does_the_rest() {
    let env = stale();
    let bad = "{\n  \"version\": 3,\n  \"entries\": {\n    oops\n  }\n}\n";
    env.write("memory/meta/decay-scores.json", bad);
    env.git_commit_all("a broken hand edit");
    // A use recorded before: it is not folded into a file that cannot be read, nor lost.
    env.write(".cogmem/access.log", "2027-03-11T09:00:00Z\tuse\tentity:person--bob\n");
    let out = env.run(["upkeep"]).output().code(3);
    assert!(
        out.stderr.contains("skipped ") && out.stderr.contains("memory/meta/decay-scores.json:4:"),
        "names the file and line: {out}"
    );
    assert!(out.stderr.contains("decay: skipped"), "{out}");
    // The decay, the notices and the index each meet the file: it is said once.
    assert_eq!(out.stderr.matches("decay-scores.json:4:").count(), 1, "{out}");
    // The audit retention still ran, in one commit by system:upkeep.
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "system:upkeep", "{out}");
    assert!(env.path("memory/meta/audit-archive.md").is_file(), "{out}");
    assert_eq!(env.read("memory/meta/decay-scores.json"), bad, "the broken file is left alone");
    let uses = [".cogmem/access.log", ".cogmem/access.log.folding"]
        .iter()
        .filter(|f| env.path(f).exists())
        .map(|f| env.read(f))
        .collect::<String>();
    assert!(uses.contains("entity:person--bob"), "the use waits: {uses:?}");
    env.assert_clean_tree();
    let v = json(&env.run(["upkeep", "--json"]).output().code(3).stdout);
    assert_eq!(v["decay"], serde_json::Value::Null, "{v}");
    assert_eq!(v["skipped"][0]["path"], "memory/meta/decay-scores.json", "{v}");
}

// See: issue 19
#[test]
fn issue_19_upkeep_reports_a_malformed_decay_shard_and_still_digests_the_audit_log() {
    let env = stale();
    env.write("memory/meta/decay/0a.json", "{\n  \"entries\": [\n");
    env.git_commit_all("a broken shard");
    let head = env.head();
    let out = env.run(["upkeep", "--json"]).output().code(3);
    let v = json(&out.stdout);
    assert_eq!(v["skipped"][0]["path"], "memory/meta/decay/0a.json", "{v}");
    assert!(
        v["skipped"][0]["error"].as_str().unwrap().contains("memory/meta/decay/0a.json:3:"),
        "{v}"
    );
    assert!(out.stderr.contains("warning: skipped "), "{out}");
    assert_eq!(v["decay"], serde_json::Value::Null, "{v}");
    assert!(v["audit"]["moved"].as_u64().unwrap() > 0, "{v}");
    assert_ne!(env.head(), head);
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "system:upkeep");
    env.assert_clean_tree();
}
