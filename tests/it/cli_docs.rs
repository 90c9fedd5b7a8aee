//! docs/cli.md documents every command and every long flag that `--help` shows.

use std::process::Command;

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cogmem"))
        .args(args)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn subcommands() -> Vec<String> {
    let top = help(&[]);
    let mut in_commands = false;
    let mut out = Vec::new();
    for line in top.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if line.trim().is_empty() || !line.starts_with("  ") {
                break;
            }
            // A summary that wraps continues further indented than the command names.
            if line.starts_with("   ") {
                continue;
            }
            let name = line.split_whitespace().next().unwrap().trim_end_matches(',');
            if name != "help" {
                out.push(name.to_owned());
            }
        }
    }
    out
}

fn long_flags(text: &str) -> Vec<String> {
    let mut flags = Vec::new();
    for word in text.split(|c: char| {
        c.is_whitespace() || c == ',' || c == '[' || c == ']' || c == '=' || c == '<'
    }) {
        if let Some(name) = word.strip_prefix("--")
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        {
            flags.push(format!("--{name}"));
        }
    }
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn every_command_and_flag_is_documented() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"),
    )
    .unwrap();
    let commands = subcommands();
    assert!(commands.len() >= 10, "{commands:?}");
    let mut missing = Vec::new();
    for c in &commands {
        if !doc.contains(&format!("cogmem {c}")) {
            missing.push(format!("command `cogmem {c}`"));
        }
        for flag in long_flags(&help(&[c])) {
            if flag != "--help" && flag != "--version" && !doc.contains(&format!("`{flag}")) {
                missing.push(format!("`{flag}` of `cogmem {c}`"));
            }
        }
    }
    assert!(missing.is_empty(), "docs/cli.md lacks:\n{}", missing.join("\n"));
}
