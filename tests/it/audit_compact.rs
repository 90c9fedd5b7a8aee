//! `cogmem audit compact`: old audit lines become monthly digests, nothing leaves git history.

use crate::common::TestEnv;

#[test]
fn compact_moves_old_lines_into_monthly_digests_once() {
    let env = TestEnv::initialized(); // 2026-12-01
    let soul = env.read("SOUL.md") + "Be brief.\n";
    env.write("SOUL.md", &soul);
    env.mutate(["sync", "--actor", "user:ann"]);
    env.run(["audit", "ack", "--actor", "user:ann"]).success();
    env.set_now("2027-01-15T10:00:00Z");
    env.mutate(["remember", "January fact", "--actor", "bot:trigger-remember"]);
    env.set_now("2027-05-01T10:00:00Z");
    env.mutate(["remember", "May fact"]);
    let before = env.audit_lines();
    let moved: Vec<&String> = before.iter().filter(|l| !l.starts_with("2027-05")).collect();

    let out = env.run(["audit", "compact", "--dry-run"]).success();
    assert!(out.stderr.starts_with(&format!("would move {} audit lines before 2027-01-31T10:00:01Z into digests for 2026-12, 2027-01;", moved.len())), "{out}");
    assert!(env.git_status().is_empty());

    let commits = env.commit_count();
    let out = env.run(["audit", "compact"]).success();
    assert_eq!(env.commit_count(), commits + 1);
    env.assert_clean_tree();
    assert!(out.stderr.contains("into digests for 2026-12, 2027-01"), "{out}");
    let after = env.audit_lines();
    assert!(after.iter().all(|l| l.starts_with("2027-05")), "{after:#?}");
    assert!(after.last().unwrap().contains("| CREATE | memory/meta/audit-archive.md |"));
    let archive = env.read("memory/meta/audit-archive.md");
    assert!(archive.starts_with("# Audit Archive\n"), "{archive}");
    let dec = archive.split("## 2026-12\n").nth(1).unwrap().split("## 2027-01").next().unwrap();
    let dec_count = before.iter().filter(|l| l.starts_with("2026-12")).count();
    assert!(dec.contains(&format!("- **Lines**: {dec_count}\n")), "{dec}");
    assert!(dec.contains("- **By actor**: system:audit 3, system:init 20, user:ann 2"), "{dec}");
    assert!(
        dec.contains("  - 2026-12-01T09:00:01Z | ALERT | SOUL.md | system:audit | — |"),
        "{dec}"
    );
    assert!(dec.contains("| ACK | SOUL.md | user:ann | — | acknowledged"), "{dec}");
    let jan = archive.split("## 2027-01\n").nth(1).unwrap();
    assert!(jan.contains("- **By actor**: bot:trigger-remember "), "{jan}");
    assert!(jan.contains("- **Notable**: none\n"), "{jan}");
    // Nothing is lost from history.
    let history = env.git(&["log", "-p", "--", "memory/meta/audit.log"]);
    for l in &moved {
        assert!(history.contains(&format!("-{l}")), "{l} is not in git log -p");
    }
    // Acknowledgements in the archive still count.
    let out = env.run(["status", "--json"]).success();
    assert!(out.stdout.contains("\"unacknowledged_critical\": []"), "{out}");
    // Twice changes nothing.
    let commits = env.commit_count();
    let archive_before = env.read("memory/meta/audit-archive.md");
    let out = env.run(["audit", "compact"]).success();
    assert!(out.stderr.starts_with("nothing to compact"), "{out}");
    assert_eq!(env.commit_count(), commits);
    assert_eq!(env.read("memory/meta/audit-archive.md"), archive_before);
    env.assert_clean_tree();
}

#[test]
fn a_later_compaction_extends_the_digest_of_the_same_month() {
    let env = TestEnv::initialized(); // 2026-12-01T09:00:00Z
    env.mutate(["remember", "first"]);
    env.mutate(["remember", "second"]);
    let dec_lines = env.audit_lines().len();
    env.set_now("2027-06-01T00:00:00Z");
    env.run(["audit", "compact", "--older-than", "2026-12-01T09:00:01Z"]).success();
    let first = env.read("memory/meta/audit-archive.md");
    let n_first: usize =
        first.split("- **Lines**: ").nth(1).unwrap().lines().next().unwrap().parse().unwrap();
    assert!(n_first > 0 && n_first < dec_lines);
    env.run(["audit", "compact", "--json"]).success();
    let archive = env.read("memory/meta/audit-archive.md");
    assert_eq!(archive.matches("## 2026-12").count(), 1, "{archive}");
    // Every December line is counted once: those of the first compaction and the rest, plus the
    // archive's own CREATE line, which is from 2027-06 and stays in the log.
    assert!(archive.contains(&format!("- **Lines**: {dec_lines}\n")), "{archive}");
    assert!(
        archive.contains("- **From**: 2026-12-01T09:00:00Z\n- **To**: 2026-12-01T09:00:02Z\n"),
        "{archive}"
    );
    assert_eq!(env.audit_lines().len(), 2, "the two compactions' own lines stay");
}

#[test]
fn compact_rejects_a_bad_age() {
    let env = TestEnv::initialized();
    env.run(["audit", "compact", "--older-than", "ninety days"]).output().code(1);
}

/// Past `audit.rotate_bytes` the log is sealed into `memory/meta/audit/` by the next change and
/// starts again; every reader (audit, verify, ack, compact) sees the whole log, and a sealed
/// part cannot be changed by hand.
#[test]
fn a_long_audit_log_is_sealed_into_segments_and_still_read_whole() {
    let env = TestEnv::initialized(); // 2026-12-01
    let toml = env.read("cogmem.toml");
    env.write("cogmem.toml", &format!("{toml}\n[audit]\nrotate_bytes = 1500\n"));
    env.git_commit_all("small audit segments");
    let all = |env: &TestEnv| -> Vec<String> {
        let out = env.run(["audit", "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["summary"].as_str().unwrap().to_owned())
            .collect()
    };
    let before = all(&env).len();
    for i in 0..12 {
        env.set_now(&format!("2026-12-01T10:{i:02}:00Z"));
        env.mutate(["remember", &format!("fact number {i} about the harbour")]);
    }
    let segments: Vec<String> = std::fs::read_dir(env.path("memory/meta/audit"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(segments.len() >= 2, "{segments:?}");
    assert!(segments.iter().all(|n| n.starts_with("2026-12-01T") && n.ends_with(".log")));
    let log = env.read("memory/meta/audit.log");
    assert!(log.starts_with("# Audit Log"), "the log starts again from its header: {log}");
    assert!(log.len() < 1500 + 600, "{}", log.len());
    // Each sealing has its own audit line, in the new log, like any file a change creates.
    let sealed = env.git(&["log", "--format=%H", "--", "memory/meta/audit"]);
    assert_eq!(sealed.lines().count(), segments.len());
    let lines = all(&env);
    assert_eq!(lines.iter().filter(|s| s.starts_with("audit.log sealed")).count(), segments.len());
    // Every line is still there, in order: 12 memories, each an episode line and a decay line.
    assert_eq!(lines.len(), before + 12 * 2 + segments.len(), "{lines:#?}");
    let facts: Vec<&String> = lines.iter().filter(|s| s.contains("fact number")).collect();
    for (i, s) in facts.iter().enumerate() {
        assert!(s.contains(&format!("fact number {i} ")), "{i}: {s}");
    }
    env.run(["verify"]).success();
    // A hand edit of a sealed part is refused by sync and left as it is.
    let first = segments
        .iter()
        .map(|n| format!("memory/meta/audit/{n}"))
        .find(|rel| env.read(rel).contains("fact number 0"))
        .unwrap();
    let text = env.read(&first);
    env.write(&first, &text.replacen("fact number 0", "fact number zero", 1));
    let out = env.run(["sync"]).output().code(3);
    assert!(out.stderr.contains("a sealed part of the audit log never changes"), "{out}");
    env.git(&["checkout", "--", &first]);
    // Compaction reads the sealed parts too; a part left with no lines goes.
    env.set_now("2027-06-01T10:00:00Z");
    env.mutate(["remember", "June fact"]);
    env.run(["audit", "compact"]).success();
    env.assert_clean_tree();
    let left: Vec<String> = all(&env);
    assert!(left.iter().all(|s| !s.contains("fact number")), "{left:#?}");
    let archive = env.read("memory/meta/audit-archive.md");
    assert!(archive.contains("## 2026-12"), "{archive}");
    env.run(["verify"]).success();
}
