//! `cogmem watch`: a child process that commits an editor-style save and stops on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::TestEnv;

/// Generous: the machine may be busy; the watcher is expected within its debounce window.
const TIMEOUT: Duration = Duration::from_secs(120);

#[test]
fn watch_commits_an_editor_style_save_and_stops_cleanly_on_sigterm() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice prefers tea", "--entity", "person--alice"]);
    let rel = "memory/graph/entities/person--alice.md";
    let mut cmd = env.run(["watch", "--debounce", "300ms", "--actor", "manual"]).into_command();
    let mut child =
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    let tx_err = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx_err.send(format!("stderr: {line}"));
        }
    });
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(format!("stdout: {line}"));
        }
    });
    let mut seen = Vec::new();
    let wait_for = |seen: &mut Vec<String>, what: &str| {
        let started = Instant::now();
        while !seen.iter().any(|l| l.contains(what)) {
            let left = TIMEOUT
                .checked_sub(started.elapsed())
                .unwrap_or_else(|| panic!("no {what:?} in {seen:#?}"));
            match rx.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(_) => panic!("no {what:?} in {seen:#?}"),
            }
        }
    };
    wait_for(&mut seen, "stderr: watching ");

    // Editor junk and an editor-style save: write a temp file, rename it over the target.
    env.write("memory/graph/entities/.person--alice.md.swp", "swap");
    env.write("memory/4913", "");
    let text = env.read(rel).replace("## Facts\n", "## Facts\n- Plays chess\n");
    assert!(text.contains("Plays chess"), "{text}");
    let tmp = env.path("memory/graph/entities/.person--alice.md.tmp1234");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, env.path(rel)).unwrap();
    std::fs::remove_file(env.path("memory/4913")).unwrap();

    let started = Instant::now();
    loop {
        let log = env.git(&["log", "-1", "--format=%s"]);
        if log.contains("person--alice.md") && log.contains("edited by hand") {
            break;
        }
        if started.elapsed() > TIMEOUT {
            while let Ok(line) = rx.try_recv() {
                seen.push(line);
            }
            panic!("no commit from watch; last: {log}; output: {seen:#?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for(&mut seen, "stdout: ");
    assert!(env.git(&["show", &format!("HEAD:{rel}")]).contains("Plays chess"));
    let tracked = env.git(&["ls-files"]);
    assert!(!tracked.contains(".swp") && !tracked.contains("4913"), "{tracked}");

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let code = child.wait().unwrap();
    assert_eq!(code.code(), Some(0), "{seen:#?}");
    wait_for(&mut seen, "stderr: stopped");
    assert!(
        seen.iter().any(|l| l.starts_with("stdout: ") && l.contains(&format!("EDIT {rel}"))),
        "{seen:#?}"
    );
    assert_eq!(env.git_status(), "?? memory/graph/entities/.person--alice.md.swp\n");
}

#[test]
fn watch_rejects_a_bad_debounce() {
    let env = TestEnv::initialized();
    let out = env.run(["watch", "--debounce", "soon"]).output().code(1);
    assert!(out.stderr.contains("unknown debounce time \"soon\""), "{out}");
}
