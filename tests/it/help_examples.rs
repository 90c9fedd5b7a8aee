//! Every command's `--help` ends with examples: an `Examples:` block of `  # what it does`
//! comments and `  cogmem …` command lines.
//!
//! Walks the real binary's command tree from `cogmem --help` down, nested subcommands
//! (`graph show`, …) included, so a new command without examples fails here. A command line
//! that clap wrapped at the help width (100 columns) fails too: its second half would not run.

use std::process::Command;

/// Commands this test leaves alone: `help` has no examples, the others are checked by their
/// owners' tests.
const SKIPPED: [&str; 5] = ["help", "init", "mcp", "completions", "man"];

fn help(path: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cogmem"))
        .args(path)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .expect("cogmem binary runs");
    assert!(out.status.success(), "`cogmem {} --help` failed: {out:?}", path.join(" "));
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// Returns the names in the `Commands:` section, skipping wrapped description lines.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .map(|name| name.trim_end_matches(','))
        .filter(|name| !SKIPPED.contains(name))
        .map(str::to_owned)
        .collect()
}

/// Returns what is wrong with the `Examples:` block of `help`, if anything.
fn examples_problem(help: &str) -> Option<String> {
    let Some(block) = help.split("\nExamples:\n").nth(1) else {
        return Some("no `Examples:` section".into());
    };
    let lines: Vec<&str> = block.lines().take_while(|line| !line.trim().is_empty()).collect();
    if !lines.iter().any(|line| line.starts_with("  cogmem ")) {
        return Some("no example line starting with `  cogmem `".into());
    }
    let runs_cogmem = |line: &str| line.starts_with("  cogmem ") || line.contains(" | cogmem ");
    lines
        .iter()
        .find(|line| !line.starts_with("  # ") && !runs_cogmem(line))
        .map(|line| format!("not a comment or a cogmem command (wrapped?): {line:?}"))
}

#[test]
fn every_command_help_has_examples() {
    let mut pending: Vec<Vec<String>> =
        subcommands(&help(&[])).into_iter().map(|name| vec![name]).collect();
    let mut checked = Vec::new();
    let mut problems = Vec::new();
    while let Some(path) = pending.pop() {
        let text = help(&path);
        if let Some(problem) = examples_problem(&text) {
            problems.push(format!("`cogmem {} --help`: {problem}", path.join(" ")));
        }
        for name in subcommands(&text) {
            let mut child = path.clone();
            child.push(name);
            pending.push(child);
        }
        checked.push(path.join(" "));
    }
    for expected in ["remember", "search", "graph", "graph show", "graph merge", "audit"] {
        assert!(checked.iter().any(|c| c == expected), "`{expected}` not reached: {checked:?}");
    }
    assert!(problems.is_empty(), "commands without runnable examples:\n{}", problems.join("\n"));
}

#[test]
fn examples_problem_catches_missing_and_wrapped_examples() {
    let cases = [
        ("Usage: cogmem x\n", Some("no `Examples:` section")),
        ("Usage: cogmem x\n\nExamples:\n  # only a comment\n", Some("no example line")),
        ("\nExamples:\n  # ok\n  cogmem x --y\n  echo a | cogmem x -\n", None),
        ("\nExamples:\n  cogmem remember --store\n  procedural -\n", Some("wrapped?")),
    ];
    for (help, want) in cases {
        let got = examples_problem(help);
        match want {
            None => assert_eq!(got, None, "help: {help:?}"),
            Some(part) => assert!(
                got.as_deref().is_some_and(|g| g.contains(part)),
                "help: {help:?}, got {got:?}"
            ),
        }
    }
}
