//! Colour follows the stream it is written to: data on stdout is coloured only when stdout is a
//! terminal, diagnostics on stderr only when stderr is one, and never with `NO_COLOR`.

use crate::common::TestEnv;

/// Runs `cogmem ARGS > out.txt` under `script`, which gives the command a terminal on stdin and
/// stderr (stdout goes to the file), without `NO_COLOR`. Returns the bytes written to the file.
fn run_on_terminal_with_stdout_to_file(env: &TestEnv, args: &str) -> Vec<u8> {
    let out = env.path("out.txt");
    let line = format!("{} {args} > {}", env!("CARGO_BIN_EXE_cogmem"), out.display());
    let status = crate::common::on_terminal(env, &line)
        .env_remove("NO_COLOR")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("script(1) runs");
    assert!(status.success(), "cogmem {args} under script: {status}");
    std::fs::read(&out).expect("stdout was written to the file")
}

// See: issue 15
#[test]
fn issue_15_search_to_a_file_from_a_terminal_has_no_escape_codes() {
    let env = TestEnv::initialized();
    env.run(["remember", "The budget for Atlas is 40k"]).success();
    let bytes = run_on_terminal_with_stdout_to_file(&env, "search budget");
    let text = String::from_utf8(bytes).expect("UTF-8");
    assert!(text.contains("budget"), "the hit is in the file: {text:?}");
    assert!(!text.contains('\x1b'), "no escape codes in a file: {text:?}");
}

#[test]
fn search_on_a_terminal_with_color_always_bolds_matches() {
    let env = TestEnv::initialized();
    env.run(["remember", "The budget for Atlas is 40k"]).success();
    let out = env.run(["--color", "always", "search", "budget"]).success();
    assert!(out.stdout.contains("\x1b[1mbudget\x1b[0m"), "{}", out.stdout);
}

/// `--color` decides a usage error's colours too, though the parser failed before reading it:
/// `never` on a terminal prints none, `always` into a pipe prints them.
#[test]
fn color_flag_governs_usage_errors() {
    let env = TestEnv::initialized();
    // Under script(1), stderr is the terminal, and what reaches it comes out on script's stdout.
    let line = format!("{} --color never remember --store bogus x", env!("CARGO_BIN_EXE_cogmem"));
    let out = crate::common::on_terminal(&env, &line)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("invalid value 'bogus'"), "{text:?}");
    assert!(!text.contains('\x1b'), "--color never on a terminal: {text:?}");
    let out = env.run(["--color", "always", "remember", "--store", "bogus", "x"]).output().code(2);
    assert!(out.stderr.contains("\x1b["), "--color always in a pipe: {:?}", out.stderr);
    let out = env.run(["--color=always", "remember", "--store", "bogus", "x"]).output().code(2);
    assert!(out.stderr.contains("\x1b["), "--color=always: {:?}", out.stderr);
}
