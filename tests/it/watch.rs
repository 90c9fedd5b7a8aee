//! `cogmem watch`: a child process that commits editor-style saves, goes on after a failed
//! sync, and stops cleanly on SIGTERM. Every wait has a generous timeout; nothing asserts how
//! long anything took.

use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crate::common::{TestEnv, wait_until};

/// Generous: the machine may be busy.
const TIMEOUT: Duration = Duration::from_secs(120);

/// A running `cogmem watch` and the lines it has printed, as `stdout: …` / `stderr: …`.
pub(crate) struct Watcher {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watcher {
    pub(crate) fn start(env: &TestEnv, args: &[&str]) -> Self {
        let mut cmd = env.run(args).into_command();
        let mut child =
            cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let lines = crate::common::lines_of(&mut child);
        let mut w = Self { child, lines, seen: Vec::new() };
        w.wait_for("stderr: watching ");
        w
    }

    /// The watcher's process id.
    #[cfg(feature = "timings")] // for search_scan's tests
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until a line containing `what` has been printed.
    #[track_caller]
    fn wait_for(&mut self, what: &str) {
        let started = Instant::now();
        while !self.seen.iter().any(|l| l.contains(what)) {
            let left = TIMEOUT.saturating_sub(started.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("no {what:?} within {TIMEOUT:?}: {:#?}", self.seen),
            }
        }
    }

    /// Sends SIGTERM and returns the exit code.
    fn terminate(mut self) -> (Option<i32>, Vec<String>) {
        let ok = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        assert!(ok.unwrap().success());
        let code = self.child.wait().unwrap().code();
        self.wait_for("stderr: stopped");
        (code, std::mem::take(&mut self.seen))
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `git log` until HEAD's subject contains `what`.
#[track_caller]
fn wait_for_commit(env: &TestEnv, what: &str) {
    let subject = || env.git(&["log", "-1", "--format=%s"]);
    let found = wait_until(TIMEOUT, || subject().contains(what));
    assert!(found, "no commit with {what:?}; HEAD is {}", subject());
}

#[test]
fn watch_commits_an_editor_style_save_and_stops_cleanly_on_sigterm() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice prefers tea", "--entity", "person--alice"]);
    let rel = "memory/graph/entities/person--alice.md";
    let mut w = Watcher::start(&env, &["watch", "--debounce", "300ms", "--actor", "user:ann"]);

    // Editor junk, and an editor-style save: write a temp file, rename it over the target.
    env.write("memory/graph/entities/.person--alice.md.swp", "swap");
    env.write("memory/4913", "");
    let text = env.read(rel).replace("## Facts\n", "## Facts\n- Plays chess\n");
    assert!(text.contains("Plays chess"), "{text}");
    let tmp = env.path("memory/graph/entities/.person--alice.md.tmp1234");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, env.path(rel)).unwrap();
    std::fs::remove_file(env.path("memory/4913")).unwrap();

    wait_for_commit(&env, "person--alice.md — edited by hand");
    w.wait_for(&format!("EDIT {rel}"));
    assert!(env.git(&["show", &format!("HEAD:{rel}")]).contains("Plays chess"));
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "user:ann");
    let tracked = env.git(&["ls-files"]);
    assert!(!tracked.contains(".swp") && !tracked.contains("4913"), "{tracked}");

    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
    let commits: Vec<&String> =
        seen.iter().filter(|l| l.starts_with("stdout: ") && l.contains(" committed ")).collect();
    assert_eq!(commits.len(), 1, "one line per commit: {seen:#?}");
    assert!(commits[0].ends_with(&format!(": EDIT {rel}")), "{seen:#?}");
    assert_eq!(env.git_status(), "?? memory/graph/entities/.person--alice.md.swp\n");
}

#[test]
fn watch_reports_a_failed_sync_and_retries_it() {
    let env = TestEnv::initialized();
    let toml = env.read("cogmem.toml") + "\n[lock]\ntimeout_ms = 100\n";
    env.write("cogmem.toml", &toml);
    env.git_commit_all("short lock wait");
    if Command::new("flock").arg("--version").output().is_err() {
        eprintln!("skipped: no `flock` program to hold the workspace lock");
        return;
    }
    let mut w = Watcher::start(&env, &["watch", "--debounce", "200ms"]);
    // Another process holds the workspace lock while the file is saved (`-o`: flock itself
    // holds it, not the `sleep` it runs, so killing flock frees it).
    let mut holder = Command::new("flock")
        .args(["-o", env.path(".cogmem/lock").to_str().unwrap(), "sleep", "120"])
        .spawn()
        .unwrap();
    // Wait until flock holds it: a lock taken only after the save would let the sync succeed.
    let lock = env.path(".cogmem/lock");
    let held = || {
        let probe = Command::new("flock").arg("-n").arg(&lock).arg("true").status().unwrap();
        !probe.success()
    };
    assert!(wait_until(TIMEOUT, held), "flock never took the workspace lock");
    env.write("memory/graph/entities/person--bob.md", "# person--bob\n\n## Facts\n- Bob\n");
    w.wait_for("stderr: error: ");
    assert!(
        w.seen.iter().any(|l| l.contains("is locked by another cogmem command")),
        "{:#?}",
        w.seen
    );
    let _ = holder.kill();
    let _ = holder.wait();
    wait_for_commit(&env, "person--bob.md +2 — created by hand");
    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
}

/// An agent's watcher meets a credential typed into a memory file by hand: its sync is refused
/// as the agent's `cogmem sync` would be, and reported (the rule and the place, never the
/// secret, and the command line's way out), with nothing committed; the watcher goes on, and
/// commits the file once the line is fixed.
#[test]
fn an_agents_watch_reports_a_hand_written_secret_and_retries_without_committing_it() {
    let env = TestEnv::initialized();
    let key = crate::secrets::aws_key_id();
    let mut w = Watcher::start(&env, &["watch", "--debounce", "200ms", "--actor", "agent:claude"]);
    env.append("MEMORY.md", &format!("- deploy key {key}\n"));
    w.wait_for("stderr: error: the hand edit of MEMORY.md looks like a secret (aws-access-key-id");
    w.wait_for("stderr: hint: keep credentials in a password manager");
    assert!(w.seen.iter().any(|l| l.contains("`cogmem sync --allow-secret`")), "{:#?}", w.seen);
    assert_eq!(env.commit_count(), 1, "nothing committed");
    let fixed = env.read("MEMORY.md").replace(&key, "(in the password manager)");
    env.write("MEMORY.md", &fixed);
    wait_for_commit(&env, "MEMORY.md +1 — edited by hand");
    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
    assert!(!seen.iter().any(|l| l.contains(&key)), "the secret is never echoed: {seen:#?}");
    assert!(!env.git(&["log", "-p", "--all"]).contains(&key), "nor committed");
    env.assert_clean_tree();
}

#[test]
fn watch_rejects_a_bad_debounce_and_a_subagent() {
    let env = TestEnv::initialized();
    let out = env.run(["watch", "--debounce", "soon"]).output().code(1);
    assert!(out.stderr.contains("unknown debounce time \"soon\""), "{out}");
    env.run(["watch", "--actor", "subagent:helper"]).output().code(4);
}

#[test]
fn watch_warns_about_a_malformed_file_and_commits_it_once_fixed() {
    let env = TestEnv::initialized();
    let mut w = Watcher::start(&env, &["watch", "--debounce", "200ms"]);
    let rel = "memory/episodes/2026-11-30.md";
    let bad = "# 2026-11-30 — Episode Log\n\n## 09:15 | musing | confidence:high | tags:[]\nHmm.\n";
    env.write(rel, bad);
    w.wait_for(&format!("stderr: warning: left {rel}:3: unknown entry type \"musing\""));
    assert_eq!(env.commit_count(), 1, "nothing committed");
    env.write(rel, &bad.replace("musing", "event"));
    wait_for_commit(&env, "2026-11-30.md +1 — created by hand");
    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
    let warnings = seen.iter().filter(|l| l.contains(&format!("left {rel}"))).count();
    assert_eq!(warnings, 1, "a file that stays malformed is reported once: {seen:#?}");
}

/// Runs `search --json QUERY` with timings on; returns the hit ids and how the refresh found
/// what changed (the `files stat-ed (HOW: N)` mark).
#[cfg(feature = "timings")]
pub(crate) fn search(env: &TestEnv, query: &str) -> (Vec<String>, String) {
    let out = env.run(["search", "--json", query]).env("COGMEM_TIMINGS", "1").success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let ids = hits.as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned());
    let how = out
        .stderr
        .lines()
        .find_map(|l| l.split_once("files stat-ed (").map(|(_, how)| how.trim_end_matches(')')))
        .unwrap_or_else(|| panic!("no stat mark: {out}"))
        .to_owned();
    (ids.collect(), how)
}

/// A workspace whose reads wait long for the watcher's answer (the machine may be busy).
#[cfg(feature = "timings")]
fn watched_workspace() -> TestEnv {
    let mut env = TestEnv::initialized();
    env.set_env("COGMEM_WATCH_WAIT_MS", "20000");
    env.mutate(["remember", "Alice prefers tea", "--entity", "person--alice"]);
    env.mutate(["remember", "The Atlas project ships on Friday", "--type", "decision"]);
    env
}

#[cfg(feature = "timings")] // reads the `files stat-ed` timing mark
#[test]
fn with_a_watcher_a_search_stats_only_what_changed_and_still_sees_every_hand_edit() {
    let env = watched_workspace();
    // A long debounce: the watcher's syncs stay out of the way.
    let w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    assert!(env.path(".cogmem/watch/state").is_file());
    // The first search scans every file and records the watcher; the next asks it.
    let (_, how) = search(&env, "tea");
    assert!(how.starts_with("full scan: "), "{how}");
    let manifest = env.path(".cogmem/index/manifest.tsv");
    assert!(env.read(".cogmem/index/manifest.tsv").contains("\n#watch "));
    assert_eq!(search(&env, "tea"), (vec!["entity:person--alice".to_owned()], "watcher: 0".into()));
    // Nothing new: nothing written.
    let text = env.read(".cogmem/index/manifest.tsv");
    let stamp = std::fs::metadata(&manifest).unwrap().modified().unwrap();
    assert_eq!(search(&env, "friday").1, "watcher: 0");
    assert_eq!(std::fs::metadata(&manifest).unwrap().modified().unwrap(), stamp);
    assert_eq!(env.read(".cogmem/index/manifest.tsv"), text);

    // A new file, an edit, a delete: each seen by the very next search, which stats only it.
    let rel = "memory/vault/garden.md";
    env.write(rel, "# Garden\n\nThe spare key sits under the zucchini planter.\n");
    assert_eq!(search(&env, "zucchini"), (vec!["vault:garden".to_owned()], "watcher: 1".into()));
    env.write(rel, "# Garden\n\nThe spare key sits under the pumpkin.\n");
    assert_eq!(search(&env, "pumpkin"), (vec!["vault:garden".to_owned()], "watcher: 1".into()));
    assert_eq!(search(&env, "zucchini").0, Vec::<String>::new());
    std::fs::remove_file(env.path(rel)).unwrap();
    assert_eq!(search(&env, "pumpkin"), (vec![], "watcher: 0".into()));
    // An editor-style save (a temporary file renamed over the original).
    let entity = "memory/graph/entities/person--alice.md";
    let tmp = env.path("memory/graph/entities/.person--alice.md.tmp1");
    std::fs::write(&tmp, env.read(entity).replace("prefers tea", "prefers mate")).unwrap();
    std::fs::rename(&tmp, env.path(entity)).unwrap();
    let (ids, how) = search(&env, "mate");
    assert_eq!(ids, ["entity:person--alice"]);
    assert!(how.starts_with("watcher: "), "{how}");
    assert!(env.read(".cogmem/watch/changed").contains("\ncookie "));
    assert_eq!(std::fs::read_dir(env.path(".cogmem/watch/cookies")).unwrap().count(), 0);

    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
    assert!(!env.path(".cogmem/watch/state").exists(), "a stopped watcher serves nothing");
    env.write(rel, "# Garden\n\nFigs.\n");
    let (ids, how) = search(&env, "figs");
    assert_eq!(ids, ["vault:garden"]);
    // Five memory files: the second memory ("The Atlas project …") also created the entity
    // file it links to (issue 22).
    assert!(how.starts_with("full scan: 5"), "{how}");
}

#[cfg(feature = "timings")] // reads the `files stat-ed` timing mark
#[test]
fn a_killed_watcher_is_not_trusted() {
    let env = watched_workspace();
    let mut w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    search(&env, "tea");
    assert_eq!(search(&env, "tea").1, "watcher: 0");
    w.child.kill().unwrap(); // SIGKILL: the state file stays, the lock goes
    w.child.wait().unwrap();
    assert!(env.path(".cogmem/watch/state").is_file());
    env.write("memory/vault/garden.md", "# Garden\n\nZucchini.\n");
    let (ids, how) = search(&env, "zucchini");
    assert_eq!(ids, ["vault:garden"]);
    assert!(how.starts_with("full scan: "), "{how}");
    // A new watcher is a new generation: recorded by one full scan (maybe its own first
    // sync's), then trusted.
    let _w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    search(&env, "zucchini");
    assert_eq!(search(&env, "zucchini").1, "watcher: 0");
    env.write("memory/vault/garden.md", "# Garden\n\nPumpkins.\n");
    assert_eq!(search(&env, "pumpkins"), (vec!["vault:garden".to_owned()], "watcher: 1".into()));
}

#[cfg(feature = "timings")] // reads the `files stat-ed` timing mark
#[test]
fn a_star_or_a_moved_store_folder_makes_the_next_search_scan_everything() {
    let env = watched_workspace();
    let _w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    search(&env, "tea");
    assert_eq!(search(&env, "tea").1, "watcher: 0");
    // What the watcher writes when it lost events.
    let mut changed =
        std::fs::OpenOptions::new().append(true).open(env.path(".cogmem/watch/changed")).unwrap();
    std::io::Write::write_all(&mut changed, b"*\n").unwrap();
    assert!(search(&env, "tea").1.starts_with("full scan: "));
    // The offset moved past the `*`: the watcher is asked again.
    assert_eq!(search(&env, "tea").1, "watcher: 0");

    // A store folder replaced by another holding new files: no event names those files.
    let outside = env.path("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("pear.md"), "# Pear\n\nA quince tree.\n").unwrap();
    std::fs::rename(env.path("memory/vault"), env.path("vault.old")).unwrap();
    std::fs::rename(&outside, env.path("memory/vault")).unwrap();
    let (ids, how) = search(&env, "quince");
    assert_eq!(ids, ["vault:pear"]);
    assert!(how.starts_with("full scan: "), "{how}");
    // The watch was set up anew: files in the new folder are seen by event again.
    env.write("memory/vault/plum.md", "# Plum\n\nA damson tree.\n");
    let (ids, how) = search(&env, "damson");
    assert_eq!(ids, ["vault:plum"]);
    assert!(how.starts_with("watcher: ") || how.starts_with("full scan: "), "{how}");
    env.write("memory/vault/fig.md", "# Fig\n\nA fig tree.\n");
    // Once the new watch is up (the watcher resumes within a tick), reads use it again.
    let mut how = String::new();
    let served = wait_until(TIMEOUT, || {
        let ids;
        (ids, how) = search(&env, "fig");
        assert_eq!(ids, ["vault:fig"]);
        how.starts_with("watcher: ")
    });
    assert!(served, "never served again: {how}");
}

#[cfg(feature = "timings")] // reads the `files stat-ed` timing mark
#[cfg(unix)]
#[test]
fn a_store_folder_that_becomes_a_link_turns_the_service_off() {
    let env = watched_workspace();
    let _w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    search(&env, "tea");
    assert_eq!(search(&env, "tea").1, "watcher: 0");
    // Events under a linked folder may come under another path: nothing is trusted any more.
    std::fs::create_dir(env.path("notes")).unwrap();
    std::fs::write(env.path("notes/pear.md"), "# Pear\n\nA quince tree.\n").unwrap();
    std::fs::rename(env.path("memory/vault"), env.path("vault.old")).unwrap();
    std::os::unix::fs::symlink(env.path("notes"), env.path("memory/vault")).unwrap();
    let state = env.path(".cogmem/watch/state");
    assert!(wait_until(TIMEOUT, || !state.exists()), "the watcher still serves");
    let (ids, how) = search(&env, "quince");
    assert_eq!(ids, ["vault:pear"]);
    assert!(how.starts_with("full scan: "), "{how}");
    std::fs::write(env.path("notes/plum.md"), "# Plum\n\nA damson tree.\n").unwrap();
    let (ids, how) = search(&env, "damson");
    assert_eq!(ids, ["vault:plum"]);
    assert!(how.starts_with("full scan: "), "{how}");
}

/// Runs `status --json` with timings on; returns the report and whether the working tree was
/// walked (else the watcher said nothing in it changed).
#[cfg(feature = "timings")]
fn status(env: &TestEnv) -> (serde_json::Value, bool) {
    let out = env.run(["status", "--json"]).env("COGMEM_TIMINGS", "1").success();
    let walked = out.stderr.contains("status: tree stamped");
    let kept = out.stderr.contains("status: kept answer");
    assert!(walked != kept, "one of the two marks: {out}");
    let mut report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    // What may differ between two statuses of the same files.
    report.as_object_mut().unwrap().remove("watcher");
    (report, walked)
}

#[cfg(feature = "timings")] // reads the `status:` timing marks
#[test]
fn with_a_watcher_status_walks_nothing_until_a_file_changes_and_sees_every_hand_edit() {
    let env = watched_workspace();
    let w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    // The first status walks and records where it stands; a later one, with nothing changed,
    // takes the kept answer without walking (the answer is kept once every stamp is older
    // than the walk, so the first few may walk).
    assert!(status(&env).1, "no record yet");
    assert!(wait_until(TIMEOUT, || !status(&env).1), "never answered from the watcher's word");
    let (clean, _) = status(&env);
    assert_eq!(clean["uncommitted"], serde_json::json!([]));
    // A record that does not fit the log (hostile, or hand-edited): one walk records anew.
    let generation = env.read(".cogmem/watch/state").trim().to_owned();
    env.write(".cogmem/status/watch", &format!("{generation} 99999999999 00000000000000ff\n"));
    assert!(status(&env).1, "a record past the log's end is not trusted");
    assert!(wait_until(TIMEOUT, || !status(&env).1), "the record was never made anew");

    // Each kind of hand edit is seen by the very next status.
    let uncommitted = |report: &serde_json::Value| -> Vec<String> {
        let list = report["uncommitted"].as_array().unwrap().iter();
        list.map(|c| format!("{} {}", c["state"].as_str().unwrap(), c["path"].as_str().unwrap()))
            .collect()
    };
    let entity = "memory/graph/entities/person--alice.md";
    let mut file = std::fs::OpenOptions::new().append(true).open(env.path(entity)).unwrap();
    std::io::Write::write_all(&mut file, b"- Alice also likes chess.\n").unwrap();
    drop(file);
    let (report, walked) = status(&env);
    assert!(walked);
    assert_eq!(uncommitted(&report), [format!("modified {entity}")]);
    // A file no search reads (not a memory file), edited in place.
    env.write("notes.txt", "a scratch file\n");
    let (report, walked) = status(&env);
    assert!(walked);
    assert_eq!(uncommitted(&report).len(), 2, "{report}");
    // A new folder and, right after it, a file in it.
    std::fs::create_dir(env.path("drafts")).unwrap();
    std::fs::write(env.path("drafts/plan.txt"), "first\n").unwrap();
    let (report, walked) = status(&env);
    assert!(walked);
    assert!(uncommitted(&report).iter().any(|c| c.contains("drafts")), "{report}");
    // Once the watch reaches into the new folder, an edit inside it is told too.
    assert!(wait_until(TIMEOUT, || !status(&env).1), "never answered from the watcher's word");
    std::fs::write(env.path("drafts/plan.txt"), "second\n").unwrap();
    let (before, walked) = status(&env);
    assert!(walked, "an edit in the new folder");

    // What the watcher's word gave is what a status without a watcher finds.
    assert!(wait_until(TIMEOUT, || !status(&env).1));
    let (kept, _) = status(&env);
    assert_eq!(kept, before);
    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
    let (walked_report, walked) = status(&env);
    assert!(walked, "no watcher: every status walks");
    assert_eq!(walked_report, kept);
}

/// The number of decay files a search looked at, from its timing marks.
#[cfg(feature = "timings")]
fn decay_files_looked_at(env: &TestEnv, query: &str) -> usize {
    let out = env.run(["search", "--json", query]).env("COGMEM_TIMINGS", "1").success();
    let n = out.stderr.lines().find_map(|l| {
        let rest = l.split_once("caches checked (")?.1;
        rest.split_once(' ')?.0.parse().ok()
    });
    n.unwrap_or_else(|| panic!("no caches mark: {out}"))
}

/// With a watcher, a search looks at the decay files the watcher names, and at every one only
/// when it saw another file of the working tree change (issue 20: at 100,000 memories there
/// are 1,025 decay files, 2 ms of stats); a hand edit of `decay-scores.json` is seen by the
/// very next search, and a search right after a `remember` looks at the decay file it wrote.
#[cfg(feature = "timings")] // `search` reads the `files stat-ed` timing mark
#[test]
fn with_a_watcher_a_hand_edit_of_the_decay_scores_is_seen_by_the_next_search() {
    let env = watched_workspace();
    let w = Watcher::start(&env, &["watch", "--debounce", "10m"]);
    let episode = |env: &TestEnv| {
        let (ids, how) = search(env, "friday");
        assert!(how.starts_with("watcher: "), "{how}");
        ids.iter().any(|id| id.starts_with("episode:"))
    };
    search(&env, "friday");
    assert!(episode(&env));
    assert_eq!(decay_files_looked_at(&env, "friday"), 0, "nothing changed");
    // Another file of the working tree (a `~`): still none, the watcher names decay files.
    env.write("notes.txt", "not a memory\n");
    assert_eq!(decay_files_looked_at(&env, "friday"), 0, "a `~` is not a decay file");
    let rel = "memory/meta/decay-scores.json";
    let text = env.read(rel);
    // The episode's entry (entries sort by key: `entity:` ones first) last used long ago:
    // decayed past dormant, it is left out of a search.
    let at = text.find("\"episode:").expect("an episode entry");
    let (head, tail) = text.split_at(at);
    let used = tail.find("\"last_accessed\": \"").unwrap() + "\"last_accessed\": \"".len();
    let edited = format!("{head}{}2020-01-01T00:00:00Z{}", &tail[..used], &tail[used + 20..]);
    env.write(rel, &edited);
    assert!(!episode(&env), "the edit was not seen");
    env.write(rel, &text.replace("\"access_count\": 1", "\"access_count\": 1 "));
    assert_eq!(decay_files_looked_at(&env, "friday"), 1, "the edited file");
    // And back.
    env.write(rel, &text);
    assert!(episode(&env), "the edit back was not seen");
    // A `remember` writes the decay file and the audit log (a `~`): the next searches look at
    // the decay file (named after the watcher's record until a search writes the manifest).
    std::fs::remove_file(env.path("notes.txt")).unwrap();
    env.mutate(["remember", "the Friday review moved to Monday"]);
    assert_eq!(decay_files_looked_at(&env, "friday"), 1);
    let (code, seen) = w.terminate();
    assert_eq!(code, Some(0), "{seen:#?}");
}
