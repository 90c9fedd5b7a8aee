//! Concurrency: many processes changing one workspace at once, with readers parsing its files
//! in a loop. Every write that reports success is present exactly once with one commit of its
//! own; every write that fails says so with an exit code and leaves nothing behind; readers
//! never see a half-written file; `git fsck` and `cogmem verify` are clean at the end.
//!
//! CI runs 4 processes × 10 operations. `scripts/stress` runs 8 × 50 (or more) through the same
//! test with `COGMEM_STRESS_PROCS`, `COGMEM_STRESS_WRITES` and `COGMEM_STRESS_SEED`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cogmem::store::decay_file::DecayFile;

use crate::common::{START, TestEnv};
use crate::crash::{Rng, knob};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs the binary to the end from a worker thread (a `TestEnv` is not shared across threads).
fn exec(root: &Path, home: &Path, args: &[&str], now: i64) -> Run {
    let stamp =
        chrono::DateTime::from_timestamp(now, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let started = Instant::now();
    let out = crate::common::sealed_command(home, root, &stamp)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("cogmem runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: started.elapsed(),
    }
}

/// What one worker did.
#[derive(Default)]
struct Done {
    /// Texts remembered with success, and their commits.
    remembered: Vec<(String, String)>,
    /// Texts whose remember failed (lock timeout), which must not be in the files.
    failed: Vec<String>,
    /// Other successful changes' commits (forget, propose).
    commits: Vec<String>,
    /// Lock-timeout failures of any operation.
    timeouts: usize,
    /// Hand-written notes (committed by someone's `sync`, or by the final one).
    hand: Vec<String>,
    /// Syncs run.
    syncs: usize,
    /// Searches run, and searches refused because the index was busy.
    searches: usize,
    search_busy: usize,
    /// The longest any operation took, and the longest search.
    longest: Duration,
    longest_search: Duration,
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A failure must be the lock timeout: exit 1 and an error naming the lock.
#[track_caller]
fn assert_timeout(r: &Run, what: &str) {
    assert!(
        r.code == 1 && r.stderr.contains("is locked by another cogmem command (waited"),
        "{what} failed in an unexpected way: exit {}\n{}",
        r.code,
        r.stderr
    );
}

fn worker(root: &Path, home: &Path, p: usize, writes: usize, seed: u64) -> Done {
    let mut rng = Rng::new(seed ^ (p as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut done = Done::default();
    let mut own_ids: Vec<String> = Vec::new();
    for w in 0..writes {
        // Each process has its own stretch of the clock, one second per operation.
        let now = START + 3600 + (p as i64) * 100_000 + w as i64;
        let roll = rng.below(10);
        let r;
        if roll < 6 || own_ids.is_empty() {
            let text = format!("stress p{p} w{w} token{p}x{w}");
            r = exec(root, home, &["remember", "--json", "--store", "episodic", &text], now);
            if r.code == 0 {
                let v = json(&r.stdout);
                own_ids.push(v["written"][0]["id"].as_str().unwrap().to_owned());
                done.remembered.push((text, v["commit"].as_str().unwrap().to_owned()));
            } else {
                assert_timeout(&r, &text);
                done.timeouts += 1;
                done.failed.push(text);
            }
        } else if roll < 7 {
            let id = own_ids.remove(rng.below(own_ids.len() as u64) as usize);
            r = exec(root, home, &["forget", "--json", "--id", &id, "--yes"], now);
            if r.code == 0 {
                done.commits.push(json(&r.stdout)["commit"].as_str().unwrap().to_owned());
            } else {
                assert_timeout(&r, &id);
                done.timeouts += 1;
            }
        } else if roll < 8 {
            let text = format!("proposal p{p} w{w} idea{p}y{w}");
            r = exec(root, home, &["--actor", "subagent:helper", "propose", "--json", &text], now);
            if r.code == 0 {
                done.commits.push(json(&r.stdout)["commit"].as_str().unwrap().to_owned());
            } else {
                assert_timeout(&r, &text);
                done.timeouts += 1;
            }
        } else if roll < 9 {
            // A person's edit, saved the way editors do (a temporary file renamed into
            // place), then `sync`, which commits every hand edit it finds: its own, or
            // another process's not committed yet.
            let text = format!("hand p{p} w{w} note{p}z{w}");
            let rel = format!("memory/vault/hand-p{p}-w{w}.md");
            let tmp = root.join(format!("memory/vault/.hand-p{p}-w{w}.tmp"));
            std::fs::write(&tmp, format!("# Hand {p} {w}\n\n{text}\n")).unwrap();
            std::fs::rename(&tmp, root.join(&rel)).unwrap();
            done.hand.push(text);
            r = exec(root, home, &["sync", "--json"], now);
            done.syncs += 1;
            if r.code == 0 {
                if let Some(c) = json(&r.stdout)["commit"].as_str() {
                    done.commits.push(c.to_owned());
                }
            } else {
                assert_timeout(&r, &rel);
                done.timeouts += 1;
            }
        } else {
            r = exec(root, home, &["search", "--json", "stress"], now);
            done.searches += 1;
            done.longest_search = done.longest_search.max(r.took);
            if r.code != 0 {
                assert!(r.stderr.contains("index"), "search failed: {}", r.stderr);
                done.search_busy += 1;
            }
        }
        done.longest = done.longest.max(r.took);
    }
    done
}

/// Reads and parses the files atomic writes replace, in a loop, until told to stop.
fn reader(root: &Path, stop: &AtomicBool, reads: &AtomicUsize, torn_tails: &AtomicUsize) {
    let decay = root.join("memory/meta/decay-scores.json");
    let audit = root.join("memory/meta/audit.log");
    let pending = root.join("memory/meta/pending-memories.md");
    let episodes = root.join("memory/episodes");
    while !stop.load(Ordering::Relaxed) {
        let text = std::fs::read_to_string(&decay).expect("decay-scores.json is always there");
        DecayFile::parse(&text, &decay).expect("decay-scores.json is never half-written");
        let text = std::fs::read_to_string(&pending).expect("pending-memories.md is there");
        let parsed = cogmem::store::pending::PendingFile::parse(&text);
        assert!(parsed.problems.is_empty(), "pending file half-written: {:?}", parsed.problems);
        // The audit log is appended to: every complete line parses; a line still being
        // appended may show without its end.
        let log = std::fs::read_to_string(&audit).expect("audit.log is there");
        let complete = log.rfind('\n').map_or("", |i| &log[..=i]);
        if complete.len() != log.len() {
            torn_tails.fetch_add(1, Ordering::Relaxed);
        }
        let (_, bad) = cogmem::audit::parse_log(complete);
        assert!(bad.is_empty(), "audit line half-written: {bad:?}");
        if let Ok(dir) = std::fs::read_dir(&episodes) {
            for e in dir.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.ends_with(".md") {
                    continue;
                }
                let text = std::fs::read_to_string(e.path()).expect("an episode file reads");
                assert!(text.starts_with("# "), "{name} is half-written:\n{text}");
                assert!(text.ends_with('\n'), "{name} is half-written:\n{text}");
            }
        }
        reads.fetch_add(1, Ordering::Relaxed);
    }
}

/// A reader process: `cogmem status --json` parses MEMORY.md, every episode file and
/// decay-scores.json, and would list any it could not read in `skipped` (exit 3).
fn status_reader(root: &Path, home: &Path, stop: &AtomicBool, passes: &AtomicUsize) {
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let r = exec(root, home, &["status", "--json"], START + 10_000_000 + i);
        assert_eq!(r.code, 0, "status saw an unreadable file:\n{}\n{}", r.stdout, r.stderr);
        let skipped = json(&r.stdout)["skipped"].as_array().map_or(0, Vec::len);
        assert_eq!(skipped, 0, "status skipped a file: {}", r.stdout);
        passes.fetch_add(1, Ordering::Relaxed);
        i += 1;
    }
}

fn occurrences(root: &Path, needle: &str) -> usize {
    let mut n = 0;
    for e in walkdir::WalkDir::new(root.join("memory")).into_iter().flatten() {
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md") {
            n += std::fs::read_to_string(e.path()).unwrap().matches(needle).count();
        }
    }
    n
}

/// Runs `procs` workers of `writes` operations each, with two readers, and checks the result.
fn stress(env: &TestEnv, procs: usize, writes: usize, seed: u64) -> String {
    let root: PathBuf = env.root.clone();
    let home: PathBuf = env.home.clone();
    let head_count = env.commit_count();
    let stop = AtomicBool::new(false);
    let reads = AtomicUsize::new(0);
    let torn = AtomicUsize::new(0);
    let status_passes = AtomicUsize::new(0);
    let started = Instant::now();
    let results: Vec<Done> = std::thread::scope(|s| {
        let mut readers: Vec<_> =
            (0..2).map(|_| s.spawn(|| reader(&root, &stop, &reads, &torn))).collect();
        readers.push(s.spawn(|| status_reader(&root, &home, &stop, &status_passes)));
        let workers: Vec<_> = (0..procs)
            .map(|p| {
                let (root, home) = (&root, &home);
                s.spawn(move || worker(root, home, p, writes, seed))
            })
            .collect();
        let done = workers.into_iter().map(|h| h.join().expect("worker")).collect();
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().expect("reader saw only whole files");
        }
        done
    });
    let elapsed = started.elapsed();
    // Hand edits a timed-out `sync` left: one last sync commits them.
    let last = env.run(["sync", "--json"]).success();
    // (The harness masks commit ids in output; HEAD is the final sync's commit.)
    let last_commit = json(&last.stdout)["commit"].as_str().map(|_| env.head());

    let mut commits: Vec<&String> = Vec::new();
    commits.extend(&last_commit);
    let mut remembered = 0;
    let mut failed = 0;
    for d in &results {
        for (text, commit) in &d.remembered {
            assert_eq!(occurrences(&root, text), 1, "{text} is present exactly once");
            commits.push(commit);
            remembered += 1;
        }
        for text in &d.failed {
            assert_eq!(occurrences(&root, text), 0, "a failed write leaves nothing: {text}");
            failed += 1;
        }
        commits.extend(&d.commits);
        for text in &d.hand {
            assert_eq!(occurrences(&root, text), 1, "hand edit {text} is present exactly once");
            let log = env.git(&["log", "-S", text, "--format=%H"]);
            assert!(!log.trim().is_empty(), "hand edit {text} was committed");
        }
    }
    // One commit per successful change, each distinct and on the branch.
    let mut distinct = commits.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), commits.len(), "no two changes share a commit");
    assert_eq!(env.commit_count(), head_count + commits.len(), "one commit per change");
    let on_branch = env.git(&["rev-list", "HEAD"]);
    for c in &commits {
        assert!(on_branch.contains(c.as_str()), "commit {c} is on the branch");
    }
    env.git(&["fsck", "--strict", "--no-progress"]);
    env.assert_clean_tree();
    // A change whose index update lost the race for the index lock (1 ms in the timeout test)
    // leaves the derived index for the next read to refresh: the next read here, once the
    // last writes' background updates have given the lock back (with a 1 ms timeout a read
    // does not wait for them).
    env.wait_for_index();
    env.run(["reindex"]).success();
    let v = env.run(["verify"]).output();
    assert_eq!(v.code, 0, "verify is clean after the stress run:\n{v}");

    let timeouts: usize = results.iter().map(|d| d.timeouts).sum();
    let searches: usize = results.iter().map(|d| d.searches).sum();
    let syncs: usize = results.iter().map(|d| d.syncs).sum();
    let hand: usize = results.iter().map(|d| d.hand.len()).sum();
    let busy: usize = results.iter().map(|d| d.search_busy).sum();
    let longest = results.iter().map(|d| d.longest).max().unwrap_or_default();
    let longest_search = results.iter().map(|d| d.longest_search).max().unwrap_or_default();
    format!(
        "stress {procs} processes x {writes} operations (seed {seed}): {} commits, {remembered} \
         remembers present exactly once, {failed} remembers refused by lock timeout ({timeouts} \
         timeouts in all), {hand} hand edits committed by {syncs} concurrent `sync`s, \
         {searches} searches ({busy} refused while the index was busy), \
         {} reader passes ({} saw an audit line mid-append), {} `status` reader processes, \
         longest operation {} ms (search {} ms), {} ms in all",
        commits.len(),
        reads.load(Ordering::Relaxed),
        torn.load(Ordering::Relaxed),
        status_passes.load(Ordering::Relaxed),
        longest.as_millis(),
        longest_search.as_millis(),
        elapsed.as_millis(),
    )
}

#[test]
fn concurrent_writers_and_readers_lose_nothing() {
    let procs = knob("COGMEM_STRESS_PROCS", 4) as usize;
    let writes = knob("COGMEM_STRESS_WRITES", 10) as usize;
    let seed = knob("COGMEM_STRESS_SEED", 0xC0FFEE);
    let env = TestEnv::initialized();
    let summary = stress(&env, procs, writes, seed);
    eprintln!("{summary}");
}

/// With a lock timeout far shorter than the queue, some writes time out: each says so with
/// exit 1 and leaves nothing, and each that succeeds is there once.
#[test]
fn lock_timeouts_under_contention_are_reported_never_lost() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[lock]\ntimeout_ms = 1\n");
    env.git_commit_all("a lock timeout of 1 ms");
    let summary = stress(&env, 4, 6, 11);
    eprintln!("{summary}");
}
