//! Progress bars on long work (issue 20, part 4): drawn on stderr when it is a terminal, never
//! when stderr is a pipe, with `-q` or with `--json`, and never on stdout. The terminal is a real
//! pseudo-terminal from util-linux `script` (as in `color.rs`); `COGMEM_PROGRESS_DELAY_MS=0`
//! draws the bar at once, so no test depends on how long the work takes.

use std::process::{Command, Stdio};

use crate::common::TestEnv;

/// What a command run under a pseudo-terminal wrote: the terminal (its stderr; stdin is the
/// terminal too) and its stdout, which goes to a file.
struct OnTerminal {
    terminal: String,
    stdout: String,
}

/// Runs `cogmem ARGS > out.txt` under `script`, with the sealed environment of every test
/// command, `extra` variables, `TERM=xterm` and the bar drawn at once.
fn run_on_terminal(env: &TestEnv, args: &str, extra: &[(&str, &str)]) -> OnTerminal {
    let out = env.path("../progress-out.txt");
    let line = format!("{} {args} > {}", env!("CARGO_BIN_EXE_cogmem"), out.display());
    let result = crate::common::on_terminal(env, &line)
        .env("COGMEM_PROGRESS_DELAY_MS", "0")
        // A terminal that can move the cursor (indicatif draws nothing on a `dumb` one).
        .env("TERM", "xterm")
        .envs(extra.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("script(1) from util-linux runs");
    let terminal = String::from_utf8_lossy(&result.stdout).into_owned();
    assert!(result.status.success(), "cogmem {args} under script: {}\n{terminal}", result.status);
    let stdout = String::from_utf8(std::fs::read(&out).expect("stdout went to the file"))
        .expect("stdout is UTF-8");
    OnTerminal { terminal, stdout }
}

/// A workspace with `days` episode files (one message a day), so a reindex reads that many.
fn workspace_with_days(days: usize) -> TestEnv {
    let env = TestEnv::initialized();
    let mut transcript = String::new();
    for i in 0..days {
        let day =
            chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap() + chrono::Days::new(i as u64);
        transcript.push_str(&format!(
            "{{\"timestamp\":\"{day}T10:00:00Z\",\"speaker\":\"Ann\",\"text\":\"note {i}\",\"id\":\"m{i}\"}}\n"
        ));
    }
    env.write("../talk.jsonl", &transcript);
    env.run(["import", "-q", "../talk.jsonl"]).success();
    env
}

/// Files a full reindex of `workspace_with_days(days)` reads: the days, MEMORY.md and the
/// template's memory files, as `reindex --json` reports them.
fn files_read(env: &TestEnv) -> usize {
    let out = env.run(["reindex", "--full", "--json"]).success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    report["changed"].as_array().unwrap().len()
}

#[test]
fn reindex_on_a_terminal_draws_a_bar_with_counts_and_erases_it() {
    let env = workspace_with_days(40);
    let total = files_read(&env);
    assert!(total > 40, "the days and the template's files: {total}");
    let run = run_on_terminal(&env, "reindex --full", &[]);
    let t = &run.terminal;
    assert!(t.contains(&format!("/{total} files")), "a count out of the total: {t:?}");
    assert!(t.contains("/s, ") && t.contains(" left)"), "the rate and the time left: {t:?}");
    assert!(t.contains("\r\x1b[2K"), "the bar is redrawn in place and erased: {t:?}");
    assert!(t.contains("rebuilt the index:"), "the summary follows the bar: {t:?}");
    assert!(!t.contains("\x1b[3"), "no colour with NO_COLOR: {t:?}");
    assert!(run.stdout.is_empty(), "stdout holds no progress: {:?}", run.stdout);
}

#[test]
fn reindex_with_stderr_piped_quiet_json_or_quick_draws_no_bar() {
    let env = workspace_with_days(40);
    let piped = env
        .run(["reindex", "--full"])
        .env("COGMEM_PROGRESS_DELAY_MS", "0")
        .env("NO_COLOR", "")
        .success();
    assert!(!piped.stderr.contains("files ("), "no bar into a pipe: {:?}", piped.stderr);
    assert!(!piped.stderr.contains('\r') && !piped.stderr.contains('\x1b'), "{:?}", piped.stderr);
    assert!(piped.stderr.starts_with("rebuilt the index:"), "only the summary: {:?}", piped.stderr);
    // Work that ends before the delay (here an hour) draws nothing: quick commands stay quiet.
    let quick = run_on_terminal(&env, "reindex --full", &[("COGMEM_PROGRESS_DELAY_MS", "3600000")]);
    assert!(quick.terminal.starts_with("rebuilt the index:"), "no bar: {:?}", quick.terminal);
    for args in ["reindex --full -q", "reindex --full --json"] {
        let run = run_on_terminal(&env, args, &[]);
        assert!(!run.terminal.contains(" files ("), "{args}: no bar: {:?}", run.terminal);
        assert!(!run.terminal.contains('\r'), "{args}: nothing redrawn: {:?}", run.terminal);
        assert!(!run.stdout.contains(" files ("), "{args}: stdout clean: {:?}", run.stdout);
    }
}

#[test]
fn import_on_a_terminal_counts_the_bytes_of_the_input_read() {
    let env = TestEnv::initialized();
    let mut transcript = String::new();
    for i in 0..30 {
        transcript.push_str(&format!(
            "{{\"timestamp\":\"2026-11-{:02}T10:00:00Z\",\"speaker\":\"Ann\",\"text\":\"note {i}\",\"id\":\"m{i}\"}}\n",
            1 + i % 3
        ));
    }
    env.write("../talk.jsonl", &transcript);
    let run = run_on_terminal(&env, "import ../talk.jsonl", &[]);
    let t = &run.terminal;
    // The input is streamed: the bar counts its bytes, out of the file's size.
    let size = transcript.len().to_string();
    let size = if size.len() > 3 {
        format!("{},{}", &size[..size.len() - 3], &size[size.len() - 3..])
    } else {
        size
    };
    assert!(t.contains(&format!("/{size} bytes read (")), "{t:?}");
    assert!(t.contains("imported 30 messages into 3 days"), "{t:?}");
    env.assert_clean_tree();
}

#[test]
fn a_bar_is_coloured_only_when_diagnostics_are() {
    let env = workspace_with_days(3);
    let plain = run_on_terminal(&env, "reindex --full --color never", &[]);
    assert!(plain.terminal.contains(" files ("), "a bar: {:?}", plain.terminal);
    assert!(!plain.terminal.contains("\x1b[3"), "no colour: {:?}", plain.terminal);
    let coloured = run_on_terminal(&env, "reindex --full --color always", &[]);
    assert!(coloured.terminal.contains("\x1b[36m"), "a cyan bar: {:?}", coloured.terminal);
}

#[test]
fn each_long_command_shows_what_it_counts_on_a_terminal() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice keeps the 4471-amber-heron key"]);
    let remote = env.home.join("remote.git");
    let init = Command::new("git")
        .args(["init", "-q", "--bare", "-b", "main"])
        .arg(&remote)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(init.success());
    env.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    let cases: [(&str, &[&str]); 6] = [
        ("verify", &["/15 checks ("]),
        ("decay", &[" memories scored (", " memories checked ("]),
        ("audit compact --older-than 1d", &["/1 log files read ("]),
        ("forget --purge-text 4471-amber-heron", &[" commits read ("]),
        ("sync --remote origin", &["fetching from origin (", "pushing to origin ("]),
        ("remember --actor user:ann 'Bob likes tea'", &[" files written ("]),
    ];
    for (args, shown) in cases {
        let run = run_on_terminal(&env, args, &[]);
        for s in shown {
            assert!(run.terminal.contains(s), "{args}: {s:?} in {:?}", run.terminal);
            assert!(!run.stdout.contains(s), "{args}: stdout clean: {:?}", run.stdout);
        }
    }
    env.assert_clean_tree();
}
