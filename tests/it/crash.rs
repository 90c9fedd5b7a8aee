//! Crash safety: seeded SIGKILL trials of every kind of change, at the change engine's crash
//! points (`COGMEM_CRASH_AT`) and after random delays. After each kill the workspace must be
//! exactly before or exactly after the change, `cogmem doctor --fix` must make `verify` clean
//! in one command, and a full reindex must give the same search answers.
//!
//! CI runs 20 trials. `scripts/crash-trials` runs hundreds through the same test with
//! `COGMEM_CRASH_TRIALS` and `COGMEM_CRASH_SEED`. The trials need a binary built with the
//! `crash-points` feature (`scripts/test` builds one); without it they are not compiled, and
//! only the seeded generator the stress test shares is.

#[cfg(feature = "crash-points")]
use std::io::Write;
#[cfg(feature = "crash-points")]
use std::process::{Child, Stdio};
#[cfg(feature = "crash-points")]
use std::time::Duration;

#[cfg(feature = "crash-points")]
use crate::common::TestEnv;

/// A small seeded generator (xorshift64*), so every run of a seed kills at the same places.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A number from the environment, or a default.
pub fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Starts the real binary in the workspace without waiting, with the test environment's
/// settings and clock (`now`, RFC 3339).
#[cfg(feature = "crash-points")]
pub fn spawn(
    env: &TestEnv,
    args: &[&str],
    now: &str,
    extra: &[(&str, &str)],
    stdin: Option<&[u8]>,
) -> Child {
    let mut c = crate::common::sealed_command(&env.home, &env.root, now);
    c.args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    let mut child = c.spawn().expect("cogmem runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin");
        let _ = pipe.write_all(bytes);
    }
    child
}

/// The clock value the next command sees, advancing the test clock by one second.
#[cfg(feature = "crash-points")]
pub fn tick(env: &TestEnv) -> String {
    let now = env.peek_now();
    let next = chrono::DateTime::parse_from_rfc3339(&now).unwrap() + chrono::Duration::seconds(1);
    env.set_now(&next.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    now
}

#[cfg(feature = "crash-points")]
const POINTS: [&str; 5] =
    ["before-write", "mid-write", "before-audit", "before-commit", "after-commit"];

#[cfg(feature = "crash-points")]
const REFLECTION: &str = "\
Quiet day of notes.

OPERATION: PATTERN
TARGET: memory/meta/evolution.md
CONTENT: The user returns to long projects in the evening
REASON: seen in the episodes
---
";

/// One kind of change to kill: its arguments and stdin, after any (unkilled) preparation.
#[cfg(feature = "crash-points")]
fn prepare(
    env: &TestEnv,
    kind: usize,
    trial: usize,
) -> (Vec<String>, Option<Vec<u8>>, &'static str) {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    match kind {
        0 => (
            s(&["remember", &format!("Trial {trial}: Alice likes tea number {trial}")]),
            None,
            "remember",
        ),
        1 => {
            let path = env.home.join(format!("t{trial}.jsonl"));
            let mut text = String::new();
            for i in 0..3 {
                text.push_str(&format!(
                    "{{\"timestamp\":\"2026-0{}-1{}T10:0{i}:00Z\",\"speaker\":\"Mel\",\"text\":\"imported {trial}-{i} garden\"}}\n",
                    1 + trial % 9,
                    trial % 10
                ));
            }
            std::fs::write(&path, text).unwrap();
            (s(&["import", &path.to_string_lossy()]), None, "import")
        }
        2 => {
            // Let time pass so bands move and decay has something to commit.
            let now = chrono::DateTime::parse_from_rfc3339(&env.peek_now()).unwrap()
                + chrono::Duration::days(20);
            env.set_now(&now.format("%Y-%m-%dT%H:%M:%SZ").to_string());
            (s(&["decay"]), None, "decay")
        }
        3 => {
            let state = env.run(["reflect", "status", "--json"]).success().stdout;
            let state: serde_json::Value = serde_json::from_str(&state).unwrap();
            match state["state"].as_str().unwrap_or("") {
                "awaiting_approval" => {}
                _ => {
                    env.run(["reflect", "request"]).success();
                    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
                    env.run(["reflect", "submit", "-"]).stdin(REFLECTION).success();
                }
            }
            (s(&["--actor", "user:ann", "reflect", "approve"]), None, "reflect approve")
        }
        5 => {
            // A hand edit for `sync` to commit: a new note, and an edit of an older one.
            env.write(
                &format!("memory/vault/hand-{trial}.md"),
                &format!("# Hand {trial}\n\nTyped by hand: the garden gate code is {trial}.\n"),
            );
            if let Some(prev) = (0..trial)
                .rev()
                .map(|t| format!("memory/vault/hand-{t}.md"))
                .find(|p| env.path(p).exists())
            {
                let text = env.read(&prev);
                env.write(&prev, &format!("{text}Edited by hand in trial {trial}.\n"));
            }
            (s(&["sync"]), None, "sync")
        }
        _ => {
            let out = env
                .run([
                    "propose",
                    "--from",
                    "researcher",
                    "--json",
                    &format!("Proposal {trial}: Bob grows tomatoes {trial}"),
                ])
                .success();
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            let n = v["number"].as_u64().unwrap().to_string();
            (s(&["pending", "approve", &n]), None, "pending approve")
        }
    }
}

/// The ids a search returns. The limit is above the number of memories, so every match is a
/// candidate: with the default limit, search takes the best 50 by BM25 before leaving out
/// faded memories, and BM25's statistics legitimately differ between an index refreshed in
/// place (deleted documents still count until segments merge) and one built afresh.
#[cfg(feature = "crash-points")]
fn search_ids(env: &TestEnv, query: &str) -> Vec<String> {
    let out = env.run(["search", "--json", "--all", "--limit", "100000", query]).output();
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"));
    let mut ids: Vec<String> =
        v.as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    ids
}

#[cfg(feature = "crash-points")]
#[derive(Default, Debug)]
struct Tally {
    trials: usize,
    before: usize,
    after: usize,
    needed_doctor: usize,
    by_kind: std::collections::BTreeMap<&'static str, usize>,
}

#[cfg(feature = "crash-points")]
#[test]
fn seeded_sigkill_trials_leave_the_workspace_before_or_after() {
    let trials = knob("COGMEM_CRASH_TRIALS", 20) as usize;
    let seed = knob("COGMEM_CRASH_SEED", 0x5EED);
    let mut rng = Rng::new(seed);
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme on the garden project"]);
    // A small audit log size: changes killed while they seal `audit.log` are among the trials.
    let toml = env.read("cogmem.toml");
    env.write("cogmem.toml", &format!("{toml}\n[audit]\nrotate_bytes = 1500\n"));
    env.git_commit_all("seal the audit log often");
    let mut tally = Tally::default();
    for trial in 0..trials {
        let kind = rng.below(6) as usize;
        let (args, stdin, name) = prepare(&env, kind, trial);
        let head = env.head();
        let before = env.snapshot();
        let count = env.commit_count();
        let point = rng.below(8);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let now = tick(&env);
        let how;
        if (point as usize) < POINTS.len() {
            let p = POINTS[point as usize];
            how = format!("at {p}");
            let mut child = spawn(&env, &args, &now, &[("COGMEM_CRASH_AT", p)], stdin.as_deref());
            child.wait().unwrap();
        } else {
            let delay = rng.below(60);
            how = format!("after {delay} ms");
            let mut child = spawn(&env, &args, &now, &[], stdin.as_deref());
            // Kept on purpose: the pause picks a random moment for SIGKILL; what follows holds
            // wherever the kill lands (before, during or after the command), so nothing rests
            // on timing luck.
            std::thread::sleep(Duration::from_millis(delay));
            let _ = child.kill(); // SIGKILL on Unix
            child.wait().unwrap();
        }
        let ctx = format!("trial {trial} (seed {seed}): {name} killed {how}");

        // Exactly before or exactly after: HEAD did not move, or moved by one commit.
        let after_head = env.head();
        let moved = after_head != head;
        if moved {
            assert_eq!(env.commit_count(), count + 1, "{ctx}: one commit");
            assert_eq!(env.git(&["rev-parse", "HEAD~1"]).trim(), head, "{ctx}: on top of HEAD");
        }
        // `sync` left undone leaves the hand edits it was given: uncommitted, as before.
        let hand = name == "sync" && !moved;
        let verify_args: &[&str] =
            if hand { &["verify", "--allow-uncommitted"] } else { &["verify"] };
        let verified = env.run(verify_args).output();
        if verified.code != 0 {
            tally.needed_doctor += 1;
            let fixed = env.run(["doctor", "--fix"]).output();
            // With hand edits left, doctor still lists them (exit 3); `verify
            // --allow-uncommitted` below says whether anything else is wrong.
            assert!(
                fixed.code == 0 || hand && fixed.code == 3,
                "{ctx}: doctor --fix repairs in one command\n{verified}\n{fixed}"
            );
        }
        assert_eq!(env.head(), after_head, "{ctx}: doctor needed no commit");
        env.run(verify_args).output().code(0);
        if moved {
            env.assert_clean_tree();
            tally.after += 1;
        } else {
            let now = env.snapshot();
            if now != before {
                let differ: Vec<&String> = now
                    .iter()
                    .map(|(p, _)| p)
                    .chain(before.iter().map(|(p, _)| p))
                    .filter(|p| {
                        now.iter().find(|(q, _)| q == *p) != before.iter().find(|(q, _)| q == *p)
                    })
                    .collect();
                panic!("{ctx}: files are not as before: {differ:?}");
            }
            tally.before += 1;
            if hand {
                // The hand edits survived the kill; commit them before the next trial.
                env.mutate(["sync"]);
            }
        }
        // The index rebuilt from scratch answers as the refreshed one did.
        if trial % 4 == 0 || trial + 1 == trials {
            let q = ["tea", "garden", "tomatoes"][trial % 3];
            let refreshed = search_ids(&env, q);
            env.run(["reindex", "--full"]).success();
            assert_eq!(search_ids(&env, q), refreshed, "{ctx}: reindex answers the same");
        }
        tally.trials += 1;
        *tally.by_kind.entry(name).or_default() += 1;
    }
    env.git(&["fsck", "--no-progress"]);
    let sealed = std::fs::read_dir(env.path("memory/meta/audit")).map_or(0, |d| d.count());
    if tally.after >= 10 {
        assert!(sealed > 0, "the audit log was sealed during the trials");
    }
    eprintln!(
        "crash trials: {} survived (seed {seed}): {} left before, {} after, {} needed doctor --fix; by kind {:?}; {sealed} audit parts sealed",
        tally.trials, tally.before, tally.after, tally.needed_doctor, tally.by_kind
    );
}

#[cfg(feature = "crash-points")]
#[test]
fn a_dead_holders_lock_is_taken_over_by_the_next_command() {
    let env = TestEnv::initialized();
    let now = tick(&env);
    let mut child = spawn(
        &env,
        &["remember", "killed while holding the lock"],
        &now,
        &[("COGMEM_CRASH_AT", "before-write")],
        None,
    );
    child.wait().unwrap();
    let pid = child.id();
    assert_eq!(env.read(".cogmem/lock"), format!("pid {pid}\n"), "the dead holder's record stays");
    let out = env.run(["verify"]).output().code(3);
    assert!(
        out.stdout.contains(&format!("left behind by process {pid}, which is no longer running")),
        "{out}"
    );
    // The next command does not wait for the lock timeout: it takes the lock over at once.
    env.mutate(["remember", "the next command goes ahead"]);
    assert_eq!(env.read(".cogmem/lock"), "", "a clean release empties the record");
    env.run(["verify"]).output().code(0);
}

/// `doctor --fix` killed part-way through its own repair leaves its own lock record, so the
/// next `doctor --fix` finishes the job: the workspace ends exactly as before the first crash.
#[cfg(feature = "crash-points")]
#[test]
fn a_killed_doctor_is_finished_by_the_next_one() {
    let mut rng = Rng::new(knob("COGMEM_CRASH_SEED", 0x5EED));
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    for trial in 0..6 {
        let head = env.head();
        let before = env.snapshot();
        let text = format!("Trial {trial}: Bob likes tea");
        let now = tick(&env);
        let p = POINTS[1 + (trial % 3)]; // mid-write, before-audit, before-commit
        spawn(&env, &["remember", &text], &now, &[("COGMEM_CRASH_AT", p)], None).wait().unwrap();
        let delay = rng.below(40);
        let now = tick(&env);
        let mut doctor = spawn(&env, &["doctor", "--fix"], &now, &[], None);
        // Kept on purpose: a random moment for SIGKILL, and the assertions hold wherever it
        // lands; it is not a wait for something to happen.
        std::thread::sleep(Duration::from_millis(delay));
        let _ = doctor.kill();
        doctor.wait().unwrap();
        let out = env.run(["doctor", "--fix"]).output();
        assert_eq!(out.code, 0, "trial {trial} ({p}, doctor killed after {delay} ms):\n{out}");
        assert_eq!(env.head(), head, "trial {trial}");
        assert_eq!(env.snapshot(), before, "trial {trial}: as before the first crash");
        env.run(["verify"]).output().code(0);
    }
}

/// `sync` killed half-way through committing a hand edit: the journal holds the edit as it
/// was, so the next command puts it back in place (not as in HEAD) and it is not lost.
#[cfg(feature = "crash-points")]
#[test]
fn a_killed_sync_leaves_the_hand_edit_where_it_was() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let note = "memory/vault/gate.md";
    env.write(note, "# Gate\n\nTyped by hand: the gate code is 4711.\n");
    let memory = format!("{}- Typed into MEMORY.md by hand\n", env.read("MEMORY.md"));
    env.write("MEMORY.md", &memory);
    let head = env.head();
    let before = env.snapshot();
    for point in POINTS {
        let now = tick(&env);
        let mut child = spawn(&env, &["sync"], &now, &[("COGMEM_CRASH_AT", point)], None);
        child.wait().unwrap();
        if env.head() != head {
            assert_eq!(point, "after-commit", "only a finished commit moves HEAD");
            break;
        }
        // Any command taking the lock finishes the dead one's business first.
        let _ = env.run(["status"]).output();
        let _ = env.run(["doctor", "--fix"]).output();
        assert!(env.snapshot() == before, "killed at {point}: the hand edits are as they were");
        assert_eq!(env.read(note), "# Gate\n\nTyped by hand: the gate code is 4711.\n");
    }
    let _ = env.run(["sync"]).output();
    let log = env.git(&["log", "-p"]);
    assert!(log.contains("the gate code is 4711") && log.contains("Typed into MEMORY.md"));
    env.assert_clean_tree();
}

/// `init` takes the program's workspace options like every other command: a crash point kills it
/// inside its change, and the next `init` finishes the layout from scratch.
#[cfg(feature = "crash-points")]
#[test]
fn a_killed_init_is_finished_by_the_next_one() {
    let env = TestEnv::new();
    std::fs::create_dir_all(&env.root).unwrap();
    let now = tick(&env);
    let status =
        spawn(&env, &["init"], &now, &[("COGMEM_CRASH_AT", "before-commit")], None).wait().unwrap();
    assert_eq!(status.code(), None, "init was killed at its crash point: {status}");
    env.run(["init"]).success();
    assert_eq!(env.commit_count(), 1, "one init commit");
    env.assert_clean_tree();
    env.run(["verify"]).output().code(0);
}

/// A purge killed at each of its own crash points, and at each of the change engine's (inside
/// the commit that deletes the memory when purging by id, inside the tombstone's commit when
/// purging by text), leaves its record; the next command finishes it: the record is gone, the
/// tree is clean, `verify` passes, the other memories stay, and once the backup refs are erased
/// no object holds the text.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_a_killed_purge_is_finished_by_the_next_command() {
    let mut trials: Vec<(&str, bool)> =
        cogmem::ops::purge::CRASH_POINTS.iter().map(|p| (*p, false)).collect();
    trials.extend(POINTS.iter().flat_map(|p| [(*p, false), (*p, true)]));
    for (i, (point, by_text)) in trials.into_iter().enumerate() {
        let env = TestEnv::initialized();
        let secret = format!("{i}x-cobalt-heron");
        let text = format!("Shelf {secret} holds the spare map of the cellar");
        env.mutate(["remember", "--store", "core", "--store", "episodic", &text]);
        env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
        let id = cogmem::store::units::list(&env.root)
            .units
            .into_iter()
            .find(|u| u.id.starts_with("core:") && u.text.contains(&secret))
            .map(|u| u.id)
            .unwrap();
        let args: Vec<&str> = if by_text {
            vec!["forget", "--purge-text", &text, "--yes"]
        } else {
            vec!["forget", "--purge", &id, "--yes"]
        };
        let ctx = format!("purge {} killed at {point}", if by_text { "by text" } else { "by id" });
        let now = tick(&env);
        let status = spawn(&env, &args, &now, &[("COGMEM_CRASH_AT", point)], None).wait().unwrap();
        assert_eq!(status.code(), None, "{ctx}: the crash point was reached");
        assert!(env.path(".cogmem/purge.json").exists(), "{ctx}: the record stays");
        // The next command, whatever it is, finishes the purge first.
        let out = env.run(["search", "Lisbon"]).success();
        assert!(out.stderr.contains("finished an interrupted purge"), "{ctx}: {out}");
        assert!(out.stdout.contains("Bob moved to Lisbon"), "{ctx}: {out}");
        assert!(!env.path(".cogmem/purge.json").exists(), "{ctx}: the record is gone");
        env.assert_clean_tree();
        let verified = env.run(["verify"]).output();
        assert_eq!(verified.code, 0, "{ctx}: {verified}");
        assert!(env.read("memory/meta/audit.log").contains("| PURGE |"), "{ctx}");
        let refs = env.git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/"]);
        for r in refs.lines() {
            env.git(&["update-ref", "-d", r]);
        }
        env.git(&["reflog", "expire", "--expire=now", "--all"]);
        env.git(&["gc", "--prune=now", "--quiet"]);
        let all =
            env.git_command(&["cat-file", "--batch-all-objects", "--batch"]).output().unwrap();
        assert!(!String::from_utf8_lossy(&all.stdout).contains(&secret), "{ctx}: the text is gone");
        // Running the same purge again finds nothing left to do, and says so without failing.
        let again = env.run(["forget", "--purge-text", &text, "--dry-run", "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
        assert_eq!(v["commits"].as_array().unwrap().len(), 0, "{ctx}: {again}");
        if !by_text {
            let again = env.run(["forget", "--purge", &id, "--yes"]).success();
            assert!(again.stdout.contains("already purged"), "{ctx}: {again}");
        }
    }
}

/// While an interrupted purge waits to be finished, no other change may commit through the
/// library (the MCP server, an embedder): it would commit over a half-rewritten history. The
/// change is refused (a rule) and names the record; the next CLI command finishes the purge and
/// the change then goes through.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_no_change_commits_while_a_purge_waits_to_be_finished() {
    use cogmem::ops::forget::{ForgetOptions, forget};
    let env = TestEnv::initialized();
    let text = "Shelf 4471-ochre-badger holds the spare map of the cellar";
    env.mutate(["remember", "--store", "core", text]);
    env.mutate(["remember", "--store", "core", "Bob moved to Lisbon in 2026"]);
    let lisbon = || {
        cogmem::store::units::list(&env.root)
            .units
            .into_iter()
            .find(|u| u.text.contains("Lisbon"))
            .map(|u| u.id)
            .unwrap()
    };
    let bob = lisbon();
    let now = tick(&env);
    let args = ["forget", "--purge-text", text, "--yes"];
    let status =
        spawn(&env, &args, &now, &[("COGMEM_CRASH_AT", "purge-after-refs")], None).wait().unwrap();
    assert_eq!(status.code(), None, "killed at its crash point");
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let opts = ForgetOptions {
        permanent: false,
        force: false,
        actor: cogmem::audit::Actor::parse("test-agent").unwrap(),
        trigger: "test".into(),
    };
    let head = env.head();
    let clock = crate::common::clock("2026-12-01T12:00:00Z");
    let err = forget(&ws, std::slice::from_ref(&bob), &opts, &clock).unwrap_err();
    assert_eq!(err.kind(), cogmem::ErrorKind::Conflict, "{err}");
    assert!(err.to_string().contains(".cogmem/purge.json"), "{err}");
    assert!(err.hint().unwrap().contains("cogmem status"));
    assert_eq!(env.head(), head, "nothing committed");
    // Nor does a sync, whose merge commit is made outside the change engine.
    let remote = env.home.join("remote.git");
    env.git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
    env.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    let sync_opts = cogmem::ops::remote::SyncRemoteOptions {
        remote: "origin".into(),
        branch: None,
        push: true,
        force_rewritten: false,
    };
    let err = cogmem::ops::remote::sync_remote(&ws, &clock, &opts.actor, &sync_opts).unwrap_err();
    assert_eq!(err.kind(), cogmem::ErrorKind::Conflict, "{err}");
    assert_eq!(env.git(&["--git-dir", remote.to_str().unwrap(), "for-each-ref"]), "");
    // The next command finishes the purge; then the change goes through.
    let out = env.run(["status"]).output();
    assert!(out.stderr.contains("finished an interrupted purge"), "{out}");
    env.assert_clean_tree();
    assert_eq!(lisbon(), bob);
    forget(&ws, &[bob], &opts, &clock).unwrap();
    env.run(["verify"]).output().code(0);
}

/// A file saved by another program while a change is being made (after the check that it holds
/// what was committed, before it is replaced) stops the change: nothing of it is written or
/// committed, the edit stays in the file, and the error says so. Before, the change replaced
/// the file with bytes made from the old one and the edit was in neither the files nor the
/// history (found by an audit running `remember` and hand appends with `sync` side by side).
#[cfg(feature = "crash-points")]
#[test]
fn a_file_saved_by_hand_during_a_change_stops_it_and_keeps_the_edit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice works at Acme"]);
    let day = "memory/episodes/2026-12-01.md";
    let before = env.read(day);
    let head = env.head();
    let out = env
        .cmd(["remember", "Bob likes tea"])
        .env("COGMEM_CRASH_AT", "hand-edit-before-write")
        .output()
        .code(4);
    assert!(
        out.stderr.contains(&format!("error: {day} changed while cogmem was writing")),
        "{out}"
    );
    assert!(out.stderr.contains("commit it with `cogmem sync`"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    let now = env.read(day);
    assert_eq!(
        now,
        format!(
            "{before}\n## 23:59 | fact | confidence:high | tags:[]\nSaved by hand while cogmem was writing\n"
        )
    );
    assert!(!now.contains("Bob likes tea"));
    assert!(!env.path(".cogmem/journal/manifest").exists(), "nothing left to recover");
    // The edit is committed by the next sync, and the memory can be written after it.
    env.run(["sync", "--actor", "user:ann"]).success();
    env.mutate(["remember", "Bob likes tea"]);
    let log = env.git(&["log", "-p"]);
    assert!(
        log.contains("Saved by hand while cogmem was writing") && log.contains("Bob likes tea")
    );
    env.assert_clean_tree();
    env.run(["verify"]).success();
}

/// A change killed mid-write leaves its files changed and its journal: `verify` names them once,
/// under `interrupted` (which `doctor --fix` undoes), never as uncommitted files to commit with
/// git, which would pass the half change off as a person's own.
#[cfg(feature = "crash-points")]
#[test]
fn verify_names_a_killed_changes_files_as_interrupted_not_as_edits_to_commit() {
    let env = TestEnv::initialized();
    let now = tick(&env);
    spawn(&env, &["remember", "crash point mid"], &now, &[("COGMEM_CRASH_AT", "mid-write")], None)
        .wait()
        .unwrap();
    let changed = env.git(&["status", "--porcelain", "--untracked-files=all"]);
    let episode = changed
        .lines()
        .filter_map(|l| l.get(3..))
        .find(|p| p.starts_with("memory/episodes/") && p.ends_with(".md"))
        .unwrap_or_else(|| panic!("the killed change left its episode file: {changed}"))
        .to_owned();
    let out = env.run(["verify"]).output().code(3);
    assert!(!out.stdout.contains("commit it with git"), "{out}");
    assert!(!out.stdout.contains("uncommitted"), "{out}");
    assert!(
        out.stdout.contains(&format!("and left 1 file changed: {episode}")),
        "the interrupted finding names the file: {out}"
    );
    env.run(["doctor", "--fix"]).success();
    env.run(["verify"]).output().code(0);
}

/// A lock holder killed but not yet reaped by its parent is a zombie: its `/proc` entry stays,
/// but it runs no more, so `verify` says so rather than that its id belongs to another program.
#[cfg(all(feature = "crash-points", target_os = "linux"))]
#[test]
fn a_zombie_lock_holder_is_reported_as_no_longer_running() {
    let env = TestEnv::initialized();
    let now = tick(&env);
    let mut child = spawn(
        &env,
        &["remember", "killed and never reaped"],
        &now,
        &[("COGMEM_CRASH_AT", "before-write")],
        None,
    );
    let pid = child.id();
    // Not waited for: once killed, the child stays a zombie until `wait` below.
    let state = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_owned))
    };
    while state().as_deref() != Some("Z") {
        std::thread::yield_now();
    }
    let out = env.run(["verify"]).output().code(3);
    assert!(
        out.stdout.contains(&format!("left behind by process {pid}, which is no longer running")),
        "{out}"
    );
    child.wait().unwrap();
}

/// The next command finishing a killed change removes the `.cogmem-tmp-*` files its unfinished
/// writes left (it holds the lock, so they are no live write's), leaving `git status` clean; and
/// after a killed import of many days its notice gives a count, a few names and where the copies
/// are, not every path on one line.
#[cfg(feature = "crash-points")]
#[test]
fn recovering_a_killed_change_removes_its_temp_files_and_counts_many_files() {
    let env = TestEnv::initialized();
    let now = tick(&env);
    spawn(&env, &["remember", "crash point mid"], &now, &[("COGMEM_CRASH_AT", "mid-write")], None)
        .wait()
        .unwrap();
    // What a SIGKILL between a write's temporary file and its rename leaves (the crash point
    // fires after the first file, whose write finished; a random kill lands anywhere).
    env.write("memory/episodes/.cogmem-tmp-Xy12Ab", "## 09:00 | event | confi");
    assert!(env.git_status().contains(".cogmem-tmp-"), "{}", env.git_status());
    let out = env.run(["status"]).output();
    assert!(out.stderr.contains("removed 1 temporary file of its unfinished writes"), "{out}");
    env.assert_clean_tree();
    env.run(["verify"]).output().code(0);

    let mut text = String::new();
    for day in 1..=9 {
        text.push_str(&format!(
            "{{\"timestamp\":\"2026-03-0{day}T10:00:00Z\",\"speaker\":\"Mel\",\"text\":\"day {day} garden\"}}\n"
        ));
    }
    let path = env.home.join("days.jsonl");
    std::fs::write(&path, text).unwrap();
    let now = tick(&env);
    let args = ["import", path.to_str().unwrap()];
    spawn(&env, &args, &now, &[("COGMEM_CRASH_AT", "before-commit")], None).wait().unwrap();
    let out = env.run(["status"]).output();
    let notice = out.stderr.lines().find(|l| l.contains("killed half-way")).unwrap_or_default();
    assert!(notice.contains(" files put back as before it (memory/"), "{out}");
    assert!(notice.contains(" more) (copies of what it left are in .cogmem/recovered/"), "{out}");
    assert!(!notice.contains("2026-03-09.md"), "not every path: {notice}");
    env.assert_clean_tree();
}
