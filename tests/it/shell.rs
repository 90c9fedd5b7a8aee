//! Shell integration: completion scripts and the manual page come from the real command
//! definitions.

use std::process::Command;

use crate::common::TestEnv;

#[test]
fn completion_scripts_cover_every_command() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = env.run(["completions", shell]).success();
        for cmd in ["remember", "hear", "recall", "context", "graph", "forget", "completions"] {
            assert!(out.stdout.contains(cmd), "{shell} completion lacks {cmd}");
        }
    }
    // The bash script is valid bash and registers itself for `cogmem`.
    // Sourced from a file: the script is longer than one command-line argument may be (128 KiB).
    let script = env.run(["completions", "bash"]).success().stdout;
    let file = env.home.join("cogmem.bash");
    std::fs::write(&file, script).unwrap();
    let check = Command::new("bash")
        .args(["-c", &format!("source '{}'\ncomplete -p cogmem", file.display())])
        .output()
        .expect("bash runs");
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(String::from_utf8_lossy(&check.stdout).contains("-F _cogmem cogmem"));
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let env = TestEnv::new();
    let out = env.run(["completions", "tcsh"]).output().code(2);
    assert!(out.stderr.contains("possible values: bash, zsh, fish"), "{}", out.stderr);
}

#[test]
fn man_page_documents_every_command() {
    let env = TestEnv::new();
    let page = env.run(["man"]).success().stdout;
    assert!(page.contains(".TH cogmem 1"), "a roff page, section 1");
    let help = env.run(["--help"]).success().stdout;
    // Every command listed by --help has its own section, with its flags.
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // Wrapped descriptions are indented further than the command names.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 20, "{commands:?}");
    for cmd in commands {
        let heading = format!(".SH \"COGMEM {}\"", cmd.to_uppercase());
        assert!(page.contains(&heading), "the manual lacks {heading}");
    }
    assert!(page.contains("\\-\\-agents\\-md"), "flags are documented");
}
