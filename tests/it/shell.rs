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
    let script = env.run(["completions", "bash"]).success().stdout;
    // Sourced from a file: the script is longer than one argument may be (128 KiB on Linux).
    let file = env.home.join("cogmem.bash");
    std::fs::write(&file, &script).unwrap();
    let check = Command::new("bash")
        .args(["-c", "source \"$1\" && complete -p cogmem", "bash"])
        .arg(&file)
        .output()
        .expect("bash runs");
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(String::from_utf8_lossy(&check.stdout).contains("-F _cogmem cogmem"));
}

// See: issue 18
#[test]
fn issue_18_completion_scripts_complete_the_values_of_enumerated_flags() {
    let env = TestEnv::new();
    let script = env.run(["completions", "bash"]).success().stdout;
    // The bash script offers the stores after `--store`, the levels after `--confidence`, …
    for values in [
        "core episodic semantic procedural vault",
        "high medium low",
        "decision fact preference task event emotion correction",
        "identity active-context persona critical-facts",
        "cl100k_base o200k_base estimate",
    ] {
        assert!(script.contains(&format!("compgen -W \"{values}\"")), "bash lacks {values}");
    }
    let zsh = env.run(["completions", "zsh"]).success().stdout;
    assert!(zsh.contains("(core episodic semantic procedural vault)"), "zsh lacks the stores");
    // The decisions of `reflect decide` are values too.
    assert!(script.contains("approve bonus reduce forgive penalize"), "bash lacks the decisions");
}

#[test]
fn completion_scripts_offer_no_hidden_command() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = env.run(["completions", shell]).success();
        for hidden in ["merge-index", "update-index"] {
            assert!(!out.stdout.contains(hidden), "{shell} completion offers {hidden}");
        }
    }
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
