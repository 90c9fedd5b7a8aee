//! `cogmem status` and `cogmem audit`.

use crate::common::TestEnv;

#[test]
fn status_counts_stores_and_shows_hand_edits() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "a",
        "--entity",
        "person--alice",
        "--store",
        "episodic",
        "--store",
        "core",
    ]);
    env.mutate(["remember", "b", "--store", "vault"]);
    env.mutate(["remember", "steps", "--store", "procedural", "--title", "Deploy"]);
    env.write(
        "memory/episodes/2026-11-01.md",
        "# 2026-11-01 — Episode Log\n\n## 08:00 | event | confidence:high | tags:[]\nby hand\n",
    );
    let out = env.run(["status"]).success();
    assert_eq!(
        out.stdout,
        "workspace   [TMP]/ws\ncore        1 bullet in MEMORY.md\nepisodic    2 entries in 2 days\nsemantic    1 entity\n\
         procedural  1 procedure\nvault       1 note\ndecay       5 entries (5 active, 0 fading, 0 dormant, 0 archived)\nindex       stale\n\
         hand edits  1 uncommitted:\n  new        memory/episodes/2026-11-01.md\nrecent commits:\n\
         [HASH] 2026-12-01T09:00:03Z [CREATE] memory/procedures/deploy.md +1 — steps\n\
         [HASH] 2026-12-01T09:00:02Z [CREATE] memory/vault/b.md +1 — b\n\
         [HASH] 2026-12-01T09:00:01Z [CREATE] memory/episodes/2026-12-01.md +4 — a\n\
         [HASH] 2026-12-01T09:00:00Z [INIT] MEMORY.md +19 — cognitive memory workspace initialized\n"
            .replace("\n[HASH]", "\n  [HASH]")
    );
    let out = env.run(["status", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["counts"]["entities"], 1);
    assert_eq!(v["uncommitted"][0]["path"], "memory/episodes/2026-11-01.md");
    assert_eq!(v["index"], "stale", "a hand edit since the index was refreshed");
    assert_eq!(v["recent_commits"].as_array().unwrap().len(), 4);
}

#[test]
fn status_skips_unreadable_files_with_exit_3() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "fine"]);
    std::fs::write(env.path("memory/episodes/2026-10-01.md"), b"# bad \xff\xfe\n").unwrap();
    let out = env.run(["status"]).output().code(3);
    assert_eq!(
        out.stderr,
        "warning: skipped [TMP]/ws/memory/episodes/2026-10-01.md: not valid UTF-8 at byte 6\n"
    );
    assert!(out.stdout.contains("episodic    1 entry in 2 days"), "{out}");
}

#[test]
fn audit_filters_combine() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "a", "--actor", "bot:trigger-remember"]);
    env.mutate(["remember", "b", "--entity", "person--bob"]);
    let out = env.run(["audit", "--actor", "bot"]).success();
    assert_eq!(out.stdout.lines().count(), 2, "{out}");
    assert!(out.stdout.lines().all(|l| l.contains("| bot:trigger-remember |")));
    let out = env
        .run(["audit", "--action", "create", "--file", "memory/graph", "--actor", "test-agent"])
        .success();
    assert_eq!(
        out.stdout,
        "2026-12-01T09:00:02Z | CREATE | memory/graph/entities/person--bob.md | test-agent | auto | new entity person--bob\n"
    );
    let out = env.run(["audit", "--since", "2026-12-01T09:00:02Z", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["action"], "CREATE");
    assert_eq!(lines[0]["actor"], "test-agent");
    assert_eq!(lines[0]["timestamp"], "2026-12-01T09:00:02Z");
    let out = env.run(["log", "--critical", "--limit", "1"]).success();
    assert_eq!(
        out.stdout,
        "2026-12-01T09:00:00Z | ALERT | SOUL.md | system:audit | — | Critical file change detected. Pending user acknowledgment.\n"
    );
    env.mutate(["remember", "CRITICAL outage in billing"]);
    let out = env.run(["log", "--critical"]).success();
    assert_eq!(out.stdout.lines().count(), 4, "only the init's critical files: {out}");
    let out = env.run(["audit", "--since", "1d", "--actor", "nobody"]).success();
    assert_eq!(out.stdout, "");
    env.run(["audit", "--action", "frobnicate"]).output().code(2);
}

#[test]
fn audit_since_accepts_relative_days() {
    let env = TestEnv::initialized();
    env.set_now("2026-12-03T09:00:00Z");
    env.mutate(["remember", "Lunch with Dan"]);
    let since = |when: &str| env.run(["audit", "--since", when]).success().stdout;
    let yesterday = since("yesterday");
    assert!(yesterday.contains("| CREATE | memory/episodes/2026-12-03.md |"), "{yesterday}");
    assert!(yesterday.lines().all(|l| l.starts_with("2026-12-03T09:00:00Z |")), "{yesterday}");
    assert_eq!(since("today"), yesterday);
    assert_eq!(since("昨日"), yesterday);
    assert_eq!(since("tomorrow"), "");
    let week = since("last week");
    assert!(week.starts_with("2026-12-01T09:00:00Z |") && week.ends_with(&yesterday), "{week}");
}

#[test]
fn audit_reports_malformed_lines_and_goes_on() {
    let env = TestEnv::initialized();
    let log = env.read("memory/meta/audit.log") + "this is not an audit line\n";
    env.write("memory/meta/audit.log", &log);
    env.git_commit_all("corrupt the log");
    let out = env.run(["audit", "--limit", "1"]).output().code(3);
    assert_eq!(out.stderr.lines().count(), 1);
    assert!(out.stderr.starts_with("warning: skipped [TMP]/ws/memory/meta/audit.log:"), "{out}");
    assert!(out.stderr.contains(": expected 6 fields separated by `|`"), "{out}");
    assert_eq!(out.stdout.lines().count(), 1);
}

#[test]
fn issue_16_audit_actor_filter_folds_the_kind() {
    // See: issue 16
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice prefers tea", "--actor", "Bot:trigger-remember"]);
    env.mutate(["remember", "Bob prefers coffee", "--actor", "user:Ann"]);
    let lines = |filter: &str| {
        env.run(["audit", "--actor", filter])
            .success()
            .stdout
            .lines()
            .filter(|l| l.contains(" | "))
            .map(|l| l.split(" | ").nth(3).unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    for filter in ["BOT", "bot", "Bot:trigger-remember"] {
        let found = lines(filter);
        assert!(!found.is_empty(), "{filter}: nothing");
        assert!(found.iter().all(|a| a == "bot:trigger-remember"), "{filter}: {found:?}");
    }
    assert!(lines("USER:Ann").iter().all(|a| a == "user:Ann") && !lines("USER:Ann").is_empty());
    assert!(lines("user:ann").is_empty(), "names keep their case");
}
