//! `cogmem verify` and `cogmem doctor [--fix]`: each check finds what it is for, `verify`
//! changes nothing, and `--fix` repairs without losing anything, in one commit.

use serde_json::Value;

use crate::common::TestEnv;

/// Runs `verify --json`; returns the exit code and the findings as (check, path, fixable).
fn verify(env: &TestEnv) -> (i32, Vec<(String, String, bool)>, Value) {
    let out = env.run(["verify", "--json"]).output();
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"));
    let findings = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["check"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap().to_owned(),
                f["fixable"].as_bool().unwrap(),
            )
        })
        .collect();
    (out.code, findings, v)
}

fn checks(findings: &[(String, String, bool)]) -> Vec<&str> {
    let mut c: Vec<&str> = findings.iter().map(|f| f.0.as_str()).collect();
    c.dedup();
    c
}

#[test]
fn a_fresh_workspace_is_clean_and_a_hand_written_secret_is_found() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let (code, findings, v) = verify(&env);
    assert_eq!((code, findings.len()), (0, 0), "{v:#}");
    assert_eq!(v["not_checked"].as_array().map(Vec::len), Some(0), "{v:#}");
    let out = env.run(["verify"]).output().success();
    assert!(out.stdout.contains("clean: 15 checks found nothing wrong"), "{out}");
    env.run(["doctor"]).output().success();
    // A credential written by hand (remember would have refused it) is a finding, redacted.
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
    env.write("memory/vault/deploy.md", &format!("# Deploy\n\nThe token is {token}\n"));
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3, "{v:#}");
    assert!(
        findings.contains(&("secrets".into(), "memory/vault/deploy.md".into(), false)),
        "{v:#}"
    );
    let secret = v["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["check"] == "secrets"))
        .expect("a secrets finding");
    assert_eq!(secret["line"], 3, "{v:#}");
    assert!(!v.to_string().contains(&token), "the report repeats the secret: {v:#}");
}

/// An open editor's swap and backup files are no uncommitted edit: `sync` and `watch` leave
/// them, and `verify` reported them (exit 3, "commit it with git") for as long as the editor
/// was open. A real hand edit beside them is still reported.
#[test]
fn editor_swap_files_are_no_uncommitted_edit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    env.write("memory/episodes/.2026-12-01.md.swp", "swap");
    env.write("MEMORY.md~", "backup");
    env.write("memory/graph/entities/4913", "");
    let (code, findings, v) = verify(&env);
    assert_eq!((code, findings.len()), (0, 0), "{v:#}");
    env.write("memory/vault/note.md", "# Note\n\nby hand\n");
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3, "{v:#}");
    let uncommitted: Vec<&str> =
        findings.iter().filter(|f| f.0 == "uncommitted").map(|f| f.1.as_str()).collect();
    assert_eq!(uncommitted, ["memory/vault/note.md"], "{v:#}");
}

#[test]
fn verify_changes_nothing_and_doctor_without_fix_neither() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    env.write("memory/meta/decay-scores.json", "{ not json");
    let before = env.snapshot();
    let head = env.head();
    let lock = std::fs::read(env.path(".cogmem/lock")).unwrap_or_default();
    env.run(["verify"]).output().code(3);
    env.run(["doctor"]).output().code(3);
    assert_eq!(env.snapshot(), before);
    assert_eq!(env.head(), head);
    assert_eq!(std::fs::read(env.path(".cogmem/lock")).unwrap_or_default(), lock);
}

#[test]
fn schema_findings_name_the_file_and_line() {
    let env = TestEnv::initialized();
    env.write("memory/meta/decay-scores.json", "{\n  \"entries\": [1,\n");
    let mut log = env.read("memory/meta/audit.log");
    log.push_str("not an audit line\n2026-12-01T09:00:00Z | ACK | IDENTITY.md | manual | — | ok\n");
    env.write("memory/meta/audit.log", &log);
    env.write("memory/graph/entities/Bad Name.md", "# x\n");
    env.write("memory/episodes/yesterday.md", "# x\n");
    env.git_commit_all("broken by hand");
    let out = env.run(["verify"]).output().code(3);
    let bad_line = log.lines().count() - 1;
    assert!(
        out.stdout
            .contains(&format!("schema       memory/meta/audit.log:{bad_line}: expected 6 fields")),
        "{out}"
    );
    assert!(out.stdout.contains("schema       memory/meta/decay-scores.json:"), "{out}");
    assert!(out.stdout.contains("schema       memory/graph/entities/Bad Name.md:"), "{out}");
    assert!(out.stdout.contains("schema       memory/episodes/yesterday.md:"), "{out}");
    assert!(!out.stdout.contains("| ACK |"), "ACK lines are not malformed: {out}");
}

#[test]
fn decay_entries_and_units_are_matched_and_fixed_in_one_commit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "--section", "critical-facts", "Tea, not coffee"]);
    let mut memory = env.read("MEMORY.md");
    // A bullet added by hand has no entry; the remembered one loses its bullet.
    memory = memory.replace("- Tea, not coffee\n", "- Biscuits on Fridays\n");
    env.write("MEMORY.md", &memory);
    env.git_commit_all("hand edit");
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3);
    let decay: Vec<_> = findings.iter().filter(|f| f.0 == "decay").collect();
    assert_eq!(decay.len(), 2, "{v:#}");
    assert!(decay.iter().all(|f| f.2), "both are fixable: {v:#}");
    let commits = env.commit_count();
    let out = env.run(["doctor", "--fix"]).output();
    assert_eq!(out.code, 0, "{out}");
    // The plain commit is adopted first (issue 17), which creates the missing entry and
    // archives the entry of the bullet it removed: nothing is left to repair.
    assert_eq!(env.commit_count(), commits + 1, "an adoption, no repair");
    assert!(env.git(&["log", "-1", "--format=%an"]).starts_with("system:adopt"));
    let archived_by = |by: &str| -> usize {
        let d: Value = serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
        let entries = d["entries"].as_object().unwrap().clone();
        entries.values().filter(|e| e["archive"]["by"] == by && e["status"] == "archived").count()
    };
    assert_eq!(archived_by("system:adopt"), 1, "the removed bullet's entry");
    env.assert_clean_tree();
    assert_eq!(verify(&env).0, 0);

    // A bullet removed in a commit cogmem made without settling it (an older cogmem: its
    // committer is cogmem, so it is not adopted) leaves an orphan, which the repair archives.
    env.write("MEMORY.md", &env.read("MEMORY.md").replace("- Biscuits on Fridays\n", ""));
    env.append(
        "memory/meta/audit.log",
        "2026-12-01T10:00:00Z | EDIT | MEMORY.md | test-agent | auto | removed a bullet\n",
    );
    env.git(&["add", "-A"]);
    let status = env
        .git_command(&["commit", "-q", "-m", "an older cogmem"])
        .env("GIT_AUTHOR_NAME", "test-agent")
        .env("GIT_AUTHOR_DATE", "2026-12-01T10:00:00Z")
        .env("GIT_COMMITTER_NAME", "cogmem")
        .status()
        .unwrap();
    assert!(status.success());
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3);
    let decay: Vec<_> = findings.iter().filter(|f| f.0 == "decay").collect();
    assert_eq!(decay.len(), 1, "{v:#}");
    assert!(decay[0].2, "fixable: {v:#}");
    let commits = env.commit_count();
    let out = env.run(["doctor", "--fix"]).output();
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(env.commit_count(), commits + 1, "a repair");
    assert!(env.git(&["log", "-1", "--format=%an %s"]).starts_with("system:doctor [EDIT]"));
    assert_eq!(archived_by("system:doctor"), 1, "the orphan entry is kept, marked archived");
    env.assert_clean_tree();
    assert_eq!(verify(&env).0, 0);
}

#[test]
fn rewriting_a_committed_episode_entry_is_found() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    env.mutate(["remember", "Bob likes tea"]);
    let day = env.git(&["ls-files", "memory/episodes/*.md"]).trim().to_owned();
    let text = env.read(&day);
    env.write(&day, &text.replace("Alice works at Acme", "Alice works at Initech"));
    env.git_commit_all("rewrite history");
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains(&format!("append-only  {day}:")), "{out}");
    assert!(out.stdout.contains("is no longer in the file unchanged (it was rewritten)"), "{out}");
    // A permanent forget leaves a tombstone, which is allowed.
    let env = TestEnv::initialized();
    env.mutate(["remember", "Carol likes jazz"]);
    let id = env.run(["forget", "Carol"]).output().stdout;
    let id = id.split_whitespace().find(|w| w.starts_with("episode:")).unwrap().to_owned();
    env.mutate(["forget", "--id", &id, "--permanent", "--yes"]);
    let (code, findings, _) = verify(&env);
    assert!(!checks(&findings).contains(&"append-only"), "{findings:?}");
    assert_eq!(code, 0, "{findings:?}");
}

#[test]
fn commits_and_audit_lines_must_match() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    // Drop the last change's audit lines by hand.
    let log = env.read("memory/meta/audit.log");
    let kept: Vec<&str> = log
        .lines()
        .filter(|l| !l.contains("| manual |") && !l.contains("| test-agent |"))
        .collect();
    let mut truncated = kept.join("\n");
    truncated.push('\n');
    truncated
        .push_str("2027-01-01T00:00:00Z | EDIT | MEMORY.md | ghost | auto | never committed\n");
    env.write("memory/meta/audit.log", &truncated);
    env.git_commit_all("tamper with the audit log");
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains("has no audit line"), "{out}");
    assert!(
        out.stdout.contains("audit line by ghost at 2027-01-01T00:00:00Z has no commit"),
        "{out}"
    );
}

#[test]
fn critical_changes_need_an_ack_line() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[audit]\ncritical_files = [\"MEMORY.md\"]\n");
    env.git_commit_all("MEMORY.md is critical");
    env.mutate(["remember", "--store", "core", "--section", "critical-facts", "Tea, not coffee"]);
    let (code, findings, _) = verify(&env);
    assert_eq!(code, 3);
    assert_eq!(checks(&findings), ["critical"]);
    let mut log = env.read("memory/meta/audit.log");
    log.push_str("2026-12-01T10:00:00Z | ACK | MEMORY.md | manual | — | reviewed\n");
    env.write("memory/meta/audit.log", &log);
    env.git_commit_all("acknowledged by hand");
    let (_, findings, _) = verify(&env);
    assert!(!checks(&findings).contains(&"critical"), "{findings:?}");
}

/// The workspace's creation is the baseline, but only its own ALERT lines are: a change to a
/// critical file in the same second as `init` (a script, a fixed clock) still needs an ACK,
/// as `status` says.
#[test]
fn a_critical_change_in_the_second_of_init_needs_an_ack_too() {
    let mut env = TestEnv::new();
    env.set_env("COGMEM_NOW", "2026-12-01T09:00:00Z");
    env.run(["init", "ws"]).current_dir_home().success();
    assert_eq!(verify(&env).0, 0, "init's own ALERT lines are the baseline");
    let soul = env.read("SOUL.md");
    env.write("SOUL.md", &format!("{soul}\n- Be brief.\n"));
    env.run(["--actor", "user:ann", "sync"]).success();
    let status = env.run(["status", "--json"]).success().stdout;
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["unacknowledged_critical"].as_array().map(Vec::len), Some(1), "{status:#}");
    let (code, findings, _) = verify(&env);
    assert_eq!(code, 3, "{findings:?}");
    assert_eq!(checks(&findings), ["critical"]);
}

#[test]
fn dangling_links_budget_and_index_are_reported() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    env.run(["search", "Alice"]).output().success();
    env.write(
        "memory/graph/entities/person--alice.md",
        "# person--alice\n<!-- Type: person | Created: 2026-12-01 -->\n\n## Relations\n- works_at: [[org--nowhere]]\n",
    );
    let big = format!(
        "{}\n## Critical Facts\n{}",
        env.read("MEMORY.md"),
        "- word word word\n".repeat(2000)
    );
    env.write("MEMORY.md", &big);
    env.git_commit_all("hand edits");
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3);
    let c = checks(&findings);
    for want in ["links", "budget", "index"] {
        assert!(c.contains(&want), "{want} missing: {v:#}");
    }
    let index = findings.iter().find(|f| f.0 == "index").unwrap();
    assert!(index.2, "a stale index is fixable");
    assert!(!findings.iter().find(|f| f.0 == "links").unwrap().2);
    env.run(["doctor", "--fix"]).output().code(3);
    let (_, findings, _) = verify(&env);
    assert!(!checks(&findings).contains(&"index"), "{findings:?}");
}

#[test]
fn hand_edits_are_reported_not_touched() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let mut memory = env.read("MEMORY.md");
    memory.push_str("\nA note typed by hand.\n");
    env.write("MEMORY.md", &memory);
    let (code, findings, _) = verify(&env);
    assert_eq!(code, 3);
    let f = findings.iter().find(|f| f.0 == "uncommitted").expect("reported");
    assert_eq!((f.1.as_str(), f.2), ("MEMORY.md", false));
    env.run(["doctor", "--fix"]).output().code(3);
    assert_eq!(env.read("MEMORY.md"), memory, "a hand edit is never put back");
}

/// A bullet deleted by hand and not committed: `doctor --fix` reports the edit and leaves the
/// decay entry alone (it used to commit it as archived, so that after `git checkout` the
/// memory was back in the file but hidden from every search while `verify` said clean).
#[test]
fn doctor_fix_does_not_archive_the_entry_of_a_memory_deleted_by_an_uncommitted_edit() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "--store",
        "core",
        "--section",
        "critical-facts",
        "Allergic to peanuts",
    ]);
    let memory = env.read("MEMORY.md");
    env.write("MEMORY.md", &memory.replace("- Allergic to peanuts\n", ""));
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3);
    // (The index may be older than the edited file too; that is for the index check.)
    let found = checks(&findings);
    assert!(found.contains(&"uncommitted") && !found.contains(&"decay"), "{v:#}");
    let commits = env.commit_count();
    let decay = env.read("memory/meta/decay-scores.json");
    let out = env.run(["doctor", "--fix"]).output().code(3);
    assert!(out.stdout.contains("uncommitted  MEMORY.md"), "{out}");
    assert!(!out.stdout.contains("archived"), "{out}");
    assert_eq!(env.commit_count(), commits, "nothing to repair: {out}");
    assert_eq!(env.read("memory/meta/decay-scores.json"), decay);
    // The person changes their mind: the memory is found again and the workspace is clean.
    env.git(&["checkout", "--", "MEMORY.md"]);
    let out = env.run(["search", "peanuts", "--json"]).success();
    assert!(out.stdout.contains("Allergic to peanuts"), "{out}");
    assert_eq!(verify(&env).0, 0);
}

// Kills the binary with COGMEM_CRASH_AT: needs the `crash-points` feature.
#[cfg(feature = "crash-points")]
#[test]
fn an_interrupted_change_is_undone_with_a_copy_kept() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let head = env.head();
    let before = env.snapshot();
    let out =
        env.run(["remember", "Bob likes tea"]).env("COGMEM_CRASH_AT", "before-commit").output();
    assert_ne!(out.code, 0, "the process was killed: {out}");
    assert_eq!(env.head(), head);
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3);
    let c = checks(&findings);
    assert!(c.contains(&"lock") && c.contains(&"interrupted"), "{v:#}");
    assert!(findings.iter().all(|f| f.2), "all fixable: {v:#}");
    let out = env.run(["doctor", "--fix"]).output();
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.contains("took over the lock left by process"), "{out}");
    assert_eq!(env.head(), head, "undoing needs no commit");
    assert_eq!(env.snapshot(), before);
    let kept = walkdir::WalkDir::new(env.path(".cogmem/recovered"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .any(|e| std::fs::read_to_string(e.path()).unwrap_or_default().contains("Bob likes tea"));
    assert!(kept, "the undone text is kept under .cogmem/recovered");
    assert_eq!(verify(&env).0, 0);
    env.mutate(["remember", "Carol likes jazz"]);

    // Crash again: the next change takes the lock over, finds the dead change's journal, puts
    // its files back (a copy kept) and goes ahead, never swallowing the half-made change.
    let head = env.head();
    let killed =
        env.run(["remember", "Dan likes rum"]).env("COGMEM_CRASH_AT", "before-commit").output();
    assert_ne!(killed.code, 0, "{killed}");
    env.run(["remember", "Eve likes gin"]).success();
    assert_eq!(env.git(&["rev-parse", "HEAD~1"]).trim(), head, "one commit: Eve's");
    env.assert_clean_tree();
    let day = env.git(&["log", "-p", "--format=%s"]);
    assert!(day.contains("Eve likes gin") && !day.contains("Dan likes rum"), "{day}");
    let kept = walkdir::WalkDir::new(env.path(".cogmem/recovered"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .any(|e| std::fs::read_to_string(e.path()).unwrap_or_default().contains("Dan likes rum"));
    assert!(kept, "the undone text is kept under .cogmem/recovered");
    assert_eq!(verify(&env).0, 0);
}

#[test]
fn a_stale_git_lock_of_a_dead_holder_is_removed() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    std::fs::write(env.path(".git/index.lock"), "").unwrap();
    // Without a dead holder's record, a fresh git lock may belong to a running git command.
    let (_, findings, _) = verify(&env);
    assert_eq!(findings, [("lock".to_owned(), ".git/index.lock".to_owned(), false)]);
    // A cogmem process died holding the workspace lock: its git lock is abandoned too.
    std::fs::write(env.path(".cogmem/lock"), "pid 4194305\n").unwrap();
    let (_, findings, _) = verify(&env);
    assert!(findings.iter().all(|f| f.0 == "lock" && f.2), "{findings:?}");
    env.run(["doctor", "--fix"]).output().success();
    assert!(!env.path(".git/index.lock").exists());
    env.mutate(["remember", "Bob likes tea"]);
}

/// cogmem reads git's index without checking its checksum, as git does outside `git fsck`;
/// `verify` checks it, and a write replaces a damaged index with a sound one.
#[test]
fn a_damaged_git_index_is_reported_by_verify_and_replaced_by_the_next_write() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let mut index = std::fs::read(env.path(".git/index")).unwrap();
    let last = index.len() - 1;
    index[last] ^= 1;
    std::fs::write(env.path(".git/index"), &index).unwrap();
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3, "{v}");
    assert_eq!(findings, [("uncommitted".to_owned(), ".git/index".to_owned(), false)]);
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("damaged") && message.contains("git reset"), "{message}");
    // In a pre-commit hook too, where uncommitted edits are allowed: git commits from it.
    let out = env.run(["verify", "--allow-uncommitted"]).output().code(3);
    assert!(out.stdout.contains(".git/index"), "{out}");
    // Reading commands are not stopped by it, and the next write leaves a sound index.
    env.run(["status"]).output().success();
    env.mutate(["remember", "Bob likes tea"]);
    let (code, findings, _) = verify(&env);
    assert_eq!((code, findings), (0, Vec::new()));
    env.git(&["fsck", "--strict"]);
    env.assert_clean_tree();
}

#[test]
fn a_pre_commit_hook_allows_the_edits_being_committed_but_not_rewritten_history() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let mut memory = env.read("MEMORY.md");
    memory.push_str("\nA note typed by hand.\n");
    env.write("MEMORY.md", &memory);
    env.git(&["add", "MEMORY.md"]);
    env.run(["verify"]).output().code(3);
    let out = env.run(["verify", "--allow-uncommitted", "--quiet"]).output().code(0);
    assert_eq!(out.stdout, "", "quiet and clean prints nothing: {out}");
    let day = env.git(&["ls-files", "memory/episodes/*.md"]).trim().to_owned();
    let text = env.read(&day);
    env.write(&day, &text.replace("Alice works at Acme", "Alice works at Initech"));
    env.git(&["add", &day]);
    let out = env.run(["verify", "--allow-uncommitted", "--quiet"]).output().code(3);
    assert!(out.stdout.starts_with(&format!("append-only  {day}:")), "{out}");
}

// See: issue 16
#[test]
fn issue_16_doctor_fix_leaves_an_unreadable_file_and_its_entry_alone() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "vault", "Zanzibar door code is kept by Alice"]);
    let note = env.git(&["ls-files", "memory/vault/*.md"]).trim().to_owned();
    let good = std::fs::read(env.path(&note)).unwrap();
    let decay = env.read("memory/meta/decay-scores.json");
    // A search a clock tick later records the vault folder's stamp (its files are then not
    // listed); the bad byte below leaves that stamp as it is.
    std::thread::sleep(std::time::Duration::from_millis(50));
    env.run(["search", "Zanzibar"]).success();
    // One bad byte, committed by hand.
    let mut bad = good.clone();
    bad.extend_from_slice(b"\xff\n");
    std::fs::write(env.path(&note), &bad).unwrap();
    env.git_commit_all("a bad byte");
    // Adopted first (issue 17): the plain commit is recorded; the file stays as it is.
    env.run(["sync"]).success();
    let head = env.head();
    let out = env.run(["doctor", "--fix"]).output().code(3);
    assert!(out.stdout.contains(&format!("schema       {note}: ")), "reported: {out}");
    assert!(out.stdout.contains("not valid UTF-8"), "{out}");
    assert!(!out.stdout.contains("marked vault:"), "its entry is not archived: {out}");
    assert_eq!(env.head(), head, "no repair commit");
    assert_eq!(env.read("memory/meta/decay-scores.json"), decay, "decay entries untouched");
    assert_eq!(std::fs::read(env.path(&note)).unwrap(), bad, "the file is left as it is");
    let (_, findings, v) = verify(&env);
    let c = checks(&findings);
    assert!(c.contains(&"schema") && !c.contains(&"decay"), "{v:#}");
    // Fixing the byte brings the pinned note back to search, as a hand edit first (the folder
    // kept its stamp: its files must not be taken from an index that left this one out).
    std::fs::write(env.path(&note), &good).unwrap();
    let out = env.run(["search", "Zanzibar"]).success();
    assert!(out.stdout.contains(&note), "{out}");
    env.git_commit_all("byte fixed");
    let out = env.run(["search", "Zanzibar"]).success();
    assert!(out.stdout.contains(&note), "{out}");
    assert_eq!(verify(&env).0, 3, "the plain commit waits to be adopted");
    env.run(["sync"]).success();
    assert_eq!(verify(&env).0, 0);
}

// See: issue 16
#[test]
fn issue_16_an_edit_doctor_puts_back_is_committed_to_a_recovery_ref_first() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    // An agent edits MEMORY.md directly and appends its audit line, but commits neither:
    // doctor takes the audit line for an interrupted change and puts MEMORY.md back.
    let mut memory = env.read("MEMORY.md");
    memory.push_str("\n- Biscuits on Fridays, typed by hand\n");
    env.write("MEMORY.md", &memory);
    let mut log = env.read("memory/meta/audit.log");
    log.push_str("2026-12-01T09:30:00Z | EDIT | MEMORY.md | manual | auto | biscuits\n");
    env.write("memory/meta/audit.log", &log);
    let head = env.head();
    let branches = env.git(&["for-each-ref", "refs/heads"]);
    let out = env.run(["doctor", "--fix", "--json"]).output();
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"));
    let refs: Vec<String> = v["recovery_refs"]
        .as_array()
        .unwrap_or_else(|| panic!("recovery_refs in --json: {v:#}"))
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(refs.len(), 1, "{v:#}");
    let r = &refs[0];
    assert!(r.starts_with("refs/cogmem/recovered/"), "{r}");
    assert_ne!(env.read("MEMORY.md"), memory, "put back as in HEAD");
    assert_eq!(env.head(), head, "the branch did not move");
    assert_eq!(env.git(&["for-each-ref", "refs/heads"]), branches);
    assert_eq!(env.git(&["rev-parse", &format!("{r}^")]).trim(), head, "parent = HEAD");
    assert_eq!(env.git(&["show", &format!("{r}:MEMORY.md")]), memory, "the edit is kept");
    assert!(env.git(&["show", &format!("{r}:memory/meta/audit.log")]).contains("biscuits"));
    assert_eq!(env.git(&["diff", "--cached", "--name-only"]), "", "the index is untouched");
    // Deleting the derived copies loses nothing: the ref brings the edit back.
    std::fs::remove_dir_all(env.path(".cogmem/recovered")).unwrap();
    env.git(&["checkout", r, "--", "MEMORY.md"]);
    assert_eq!(env.read("MEMORY.md"), memory);
    // The human output names the ref too.
    env.git(&["checkout", "HEAD", "--", "MEMORY.md"]);
    env.write("MEMORY.md", &memory);
    env.write("memory/meta/audit.log", &log);
    let out = env.run(["doctor", "--fix"]).output();
    assert!(out.stdout.contains("committed in refs/cogmem/recovered/"), "{out}");
    assert!(out.stdout.contains("git checkout refs/cogmem/recovered/"), "{out}");
}

// Kills the binary with COGMEM_CRASH_AT: needs the `crash-points` feature.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_an_edit_made_after_a_crash_is_committed_to_a_recovery_ref_before_the_journal_undoes_it()
{
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let head = env.head();
    let killed =
        env.run(["remember", "Bob likes tea"]).env("COGMEM_CRASH_AT", "before-commit").output();
    assert_ne!(killed.code, 0, "{killed}");
    // A person edits the file the dead change wrote before anyone runs doctor.
    let day = env.git(&["ls-files", "memory/episodes/*.md"]).trim().to_owned();
    let mut text = env.read(&day);
    text.push_str("\nMy own note, typed after the crash.\n");
    env.write(&day, &text);
    let out = env.run(["doctor", "--fix", "--json"]).output();
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"));
    let r = v["recovery_refs"][0].as_str().unwrap_or_else(|| panic!("a recovery ref: {v:#}"));
    assert!(r.starts_with("refs/cogmem/recovered/journal-"), "{r}");
    assert_eq!(env.head(), head);
    assert!(!env.read(&day).contains("My own note"), "the journal put the file back");
    let kept = env.git(&["show", &format!("{r}:{day}")]);
    assert!(kept.contains("My own note") && kept.contains("Bob likes tea"), "{kept}");
    assert_eq!(env.git(&["rev-parse", &format!("{r}^")]).trim(), head, "parent = HEAD");
}

// See: issue 16
#[test]
fn issue_16_verify_reports_no_change_in_flight() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    env.run(["search", "Alice"]).success();
    let writes = 12;
    let done = std::sync::atomic::AtomicBool::new(false);
    let (root, home) = (env.root.clone(), env.home.clone());
    let phantoms = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            for i in 0..writes {
                let now = chrono::DateTime::from_timestamp(crate::common::START + 3600 + i, 0)
                    .unwrap()
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string();
                let out = crate::common::sealed_command(&home, &root, &now)
                    .args(["remember", &format!("Note number {i} about the garden")])
                    .output()
                    .expect("cogmem runs");
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let mut phantoms = Vec::new();
        let mut runs = 0;
        // Bounded: at most 200 verifies, and at least one after the writer is done.
        while runs < 200 {
            let finished = done.load(std::sync::atomic::Ordering::SeqCst);
            let out = crate::common::sealed_command(&home, &root, "2026-12-01T09:30:00Z")
                .args(["verify"])
                .output()
                .expect("cogmem runs");
            runs += 1;
            if !out.status.success() {
                phantoms.push(format!(
                    "exit {:?}\n{}{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            if finished {
                break;
            }
        }
        writer.join().expect("the writer finishes");
        phantoms
    });
    assert!(phantoms.is_empty(), "{} phantom reports, first:\n{}", phantoms.len(), phantoms[0]);
    env.assert_clean_tree();
}

/// Whether some process holds a lock on `path` (`flock -n` cannot take it).
fn is_locked(path: &std::path::Path) -> bool {
    let probe = std::process::Command::new("flock").arg("-n").arg(path).arg("true").status();
    !probe.expect("flock runs").success()
}

/// Runs `args` while another process holds the search index's lock and dies without serving
/// the queue (as a killed `update-index` would), then checks that `verify` finds the index up
/// to date with the change: the change either kept the workspace lock until it had the index
/// lock, or queued its files, which whoever holds the index lock next serves — `verify` itself
/// when it finds them waiting.
fn verify_after_a_change_beside_an_index_holder(env: &TestEnv, args: &[&str]) {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let timeout = Duration::from_secs(120);
    let index_lock = env.path(".cogmem/index.lock");
    // `-o`: flock itself holds the lock, not the `sleep` it runs, so killing flock frees it.
    let mut holder = Command::new("flock")
        .arg("-o")
        .arg(&index_lock)
        .args(["sleep", "120"])
        .spawn()
        .expect("flock runs");
    assert!(crate::common::wait_until(timeout, || is_locked(&index_lock)), "flock took no lock");
    let head = env.head();
    let mut child = env
        .run(args)
        .into_command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cogmem runs");
    crate::common::wait_until(timeout, || {
        matches!(child.try_wait(), Ok(Some(_))) || env.head() != head
    });
    let committed = env.head() != head;
    let _ = holder.kill();
    let _ = holder.wait();
    let out = child.wait_with_output().expect("cogmem finishes");
    assert!(committed, "`{args:?}` made no commit: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    env.run(["verify"]).success();
    env.assert_clean_tree();
}

#[test]
fn issue_16_verify_after_any_change_finds_its_files_indexed_whoever_held_the_index() {
    // See: issue 16 (verify right after forget, restore, sync, sync --remote, reflect approve)
    if std::process::Command::new("flock").arg("--version").output().is_err() {
        eprintln!("skipped: no `flock` program to hold the index lock");
        return;
    }
    let env = TestEnv::initialized();
    let args = ["remember", "--json", "--store", "core", "Dana leads the garden"];
    let out = env.run(args).into_command().output().expect("cogmem runs");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["written"][0]["id"].as_str().unwrap().to_owned();
    env.run(["search", "garden"]).success();
    let check = |args: &[&str]| verify_after_a_change_beside_an_index_holder(&env, args);
    // forget and restore take the bullet out of MEMORY.md and put it back.
    check(&["forget", "--id", &id, "--yes"]);
    check(&["restore", &id]);
    // sync commits a hand edit.
    env.write("memory/vault/garden.md", "# Garden\n\nThe plot is behind the school.\n");
    check(&["sync"]);
    // reflect approve writes an episode.
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let text = "Dana keeps at it.\n\nOPERATION: EXTRACT\nTARGET: memory/episodes/2026-12-01.md\n\
                CONTENT: Dana plans the garden for spring\nREASON: said twice\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    check(&["--actor", "user:ann", "reflect", "approve"]);
    // sync --remote fast-forwards to a commit another clone pushed.
    let remote = env.home.join("remote.git");
    let git = |dir: &std::path::Path, args: &[&str]| {
        let out = env.git_command(args).current_dir(dir).output().expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&env.home, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    git(&env.root, &["remote", "add", "origin", remote.to_str().unwrap()]);
    git(&env.root, &["push", "-q", "origin", "main"]);
    git(&env.home, &["clone", "-q", remote.to_str().unwrap(), "other"]);
    let other = env.home.join("other");
    std::fs::write(other.join("memory/vault/plot.md"), "# Plot\n\nNumber 12.\n").unwrap();
    let synced = crate::common::sealed_command(&env.home, &other, "2026-12-01T10:00:00Z")
        .arg("sync")
        .output()
        .expect("cogmem runs");
    assert!(synced.status.success(), "{}", String::from_utf8_lossy(&synced.stderr));
    git(&other, &["push", "-q", "origin", "main"]);
    check(&["sync", "--remote", "origin"]);
}

// Kills the binary with COGMEM_CRASH_AT: needs the `crash-points` feature.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_any_command_that_undoes_a_killed_change_names_the_recovery_ref() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let head = env.head();
    let mut seen = Vec::new();
    for (n, next) in
        [&["search", "Acme"][..], &["remember", "Carol likes chess"]].iter().enumerate()
    {
        let killed = env
            .run(["remember", &format!("Bob likes tea, take {n}")])
            .env("COGMEM_CRASH_AT", "before-commit")
            .output();
        assert_ne!(killed.code, 0, "{killed}");
        // verify reports the journal and undoes nothing.
        let (code, findings, _) = verify(&env);
        assert_eq!(code, 3);
        assert!(findings.iter().any(|(check, _, _)| check == "interrupted"), "{findings:?}");
        let out = env.run(*next).success();
        let recovered: Vec<String> = env
            .git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/recovered"])
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(recovered.len(), n + 1, "{recovered:?}");
        // The new one: the names of later recoveries of the same HEAD extend the first's.
        let r =
            recovered.iter().filter(|r| out.stderr.contains(r.as_str())).max_by_key(|r| r.len());
        let r = r.unwrap_or_else(|| panic!("{next:?} names no recovery ref: {out}"));
        assert!(!seen.contains(r), "{r} was made before: {out}");
        seen.push(r.clone());
        assert!(
            out.stderr.contains("warning: a change that was killed half-way was undone: ")
                && out.stderr.contains(&format!("`git checkout {r} -- PATH`")),
            "{out}"
        );
        let day = env.git(&["ls-files", "memory/episodes/*.md"]).trim().to_owned();
        assert!(out.stderr.contains(&day), "names the file put back: {out}");
        assert!(env.git(&["show", &format!("{r}:{day}")]).contains(&format!("take {n}")));
        assert!(!env.read(&day).contains(&format!("take {n}")), "put back");
    }
    assert_eq!(env.commit_count(), 3, "the second `remember` committed: {}", env.head());
    assert_ne!(env.head(), head);
    let (code, findings, _) = verify(&env);
    assert_eq!(code, 0, "{findings:?}");
    env.assert_clean_tree();
}

// Kills the binary with COGMEM_CRASH_AT: needs the `crash-points` feature.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_a_recovery_ref_lock_left_by_a_killed_process_does_not_stop_the_recovery() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let head = env.head();
    let killed =
        env.run(["remember", "Bob likes tea"]).env("COGMEM_CRASH_AT", "before-commit").output();
    assert_ne!(killed.code, 0, "{killed}");
    // A `doctor --fix` killed while it wrote the recovery ref left git's lock file for it.
    let lock = env.path(&format!(".git/refs/cogmem/recovered/journal-{}.lock", &head[..12]));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let out = env.run(["doctor", "--fix"]).output();
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout.contains(&format!("refs/cogmem/recovered/journal-{}-1", &head[..12])),
        "{out}"
    );
    assert!(!lock.exists(), "doctor --fix removed the abandoned lock: {out}");
    assert_eq!(env.head(), head);
    env.run(["verify"]).success();
    env.assert_clean_tree();
}

/// A workspace made before routing wrote kin relations (issue 18) lacks them in relations.md,
/// so "my sister Hana" loses its relation; `doctor` says so and `--fix` adds the template's
/// bullets in one commit, after which the relation is written.
#[test]
fn issue_18_an_older_vocabulary_gains_the_relations_routing_writes() {
    let env = TestEnv::initialized();
    let relations = env.read("memory/graph/relations.md");
    let old = &relations[..relations.find("## People").expect("the template declares people")];
    env.write("memory/graph/relations.md", old);
    env.git_commit_all("a relations.md from before issue 18");
    let out = env
        .run(["hear", "--actor", "user:me", "remember that my brother is called Ken"])
        .output()
        .success();
    assert!(
        out.stdout.contains("not written") && out.stdout.contains("`cogmem doctor --fix`"),
        "{out}"
    );
    let (code, findings, v) = verify(&env);
    assert_eq!(code, 3, "{v:#}");
    assert!(
        findings.contains(&("vocabulary".to_owned(), "memory/graph/relations.md".to_owned(), true)),
        "{v:#}"
    );
    assert!(v.to_string().contains("sibling-of"), "{v:#}");
    let commits = env.commit_count();
    let out = env.run(["doctor", "--fix"]).output();
    assert_eq!(out.code, 0, "{out}");
    // One repair commit (the hand commit holds no memory to adopt).
    assert_eq!(env.commit_count(), commits + 1, "{out}");
    assert!(env.git(&["log", "-1", "--format=%an %s"]).starts_with("system:doctor [EDIT]"));
    let now = env.read("memory/graph/relations.md");
    assert!(now.starts_with(old), "the file's own text stays as it was");
    assert!(now.contains("## People\n") && now.contains("- `sibling-of` (symmetric"), "{now}");
    env.assert_clean_tree();
    assert_eq!(verify(&env).0, 0);
    let out = env
        .run(["hear", "--actor", "user:me", "remember that my sister's name is Hana"])
        .output()
        .success();
    assert!(!out.stdout.contains("not written"), "{out}");
    assert!(env.read("memory/graph/entities/person--hana.md").contains("[[person--user]]"));
}
