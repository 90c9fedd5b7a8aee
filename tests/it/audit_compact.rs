//! `cogmem audit compact`: old audit lines become monthly digests, nothing leaves git history.

use crate::common::TestEnv;

#[test]
fn compact_moves_old_lines_into_monthly_digests_once() {
    let env = TestEnv::initialized(); // 2026-12-01
    let soul = env.read("SOUL.md") + "Be brief.\n";
    env.write("SOUL.md", &soul);
    env.mutate(["sync", "--actor", "manual"]);
    env.run(["audit", "ack", "--actor", "manual"]).success();
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
    assert!(dec.contains("- **By actor**: manual 2, system:audit 3, system:init"), "{dec}");
    assert!(
        dec.contains("  - 2026-12-01T09:00:01Z | ALERT | SOUL.md | system:audit | — |"),
        "{dec}"
    );
    assert!(dec.contains("| ACK | SOUL.md | manual | — | acknowledged"), "{dec}");
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
