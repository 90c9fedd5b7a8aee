//! One owner per format: operations compose the format modules of `cogmem-store`; they never
//! parse or splice a file's text themselves. This test fails when code in `crates/ops/src`
//! does again what a format module now owns, for a few precise patterns. The compiler already
//! keeps decay entries typed (`DecayFile::entry`/`entry_mut` are private); these catch what it
//! cannot.
#![allow(clippy::disallowed_methods, reason = "a test reads the sources directly")]

use std::path::{Path, PathBuf};

/// A pattern that means "parses or splices a format", and the owner to call instead.
struct Rule {
    pattern: &'static str,
    owner: &'static str,
}

const RULES: &[Rule] = &[
    Rule { pattern: "starts_with(\"## \")", owner: "a format module's heading or section reader" },
    Rule { pattern: "strip_prefix(\"## \")", owner: "a format module's heading or section reader" },
    Rule { pattern: "split('|')", owner: "audit::RawFields, episode::entries, entity::relations" },
    Rule { pattern: "\"current_score\"", owner: "DecayFile's typed API (stored, archive, …)" },
    Rule { pattern: "\"previous_status\"", owner: "DecayFile::archive / unarchive" },
    Rule { pattern: "\"archive\"", owner: "DecayFile::archive / archived_lines" },
    Rule { pattern: "\"token_economy\"", owner: "DecayFile::record_reward / token_baseline" },
    Rule {
        pattern: "\"self_awareness_count_since_consolidation\"",
        owner: "DecayFile::self_awareness_since_consolidation / record_consolidation",
    },
    Rule {
        pattern: "\"last_reflection\"",
        owner: "DecayFile::last_reflection / record_reflection",
    },
    Rule { pattern: "\"Status:\"", owner: "entity::status / set_status" },
    Rule { pattern: "\"Aliases:\"", owner: "entity::names / add_aliases" },
    Rule { pattern: "\"Timeline\"", owner: "entity::add_timeline_entry" },
    Rule { pattern: "\"Facts\"", owner: "entity::facts / add_fact" },
    Rule { pattern: "deleted_line(", owner: "episode::tombstone" },
    Rule { pattern: "\"### Recent", owner: "store::identity::recent_entries / consolidated" },
    Rule { pattern: "\"## Proposal #", owner: "pending::PendingFile / pending::merge3" },
    Rule { pattern: "\"- **", owner: "audit::archive::Archive, pending::PendingFile" },
    Rule { pattern: "\"entries\"", owner: "DecayFile's typed API / decay_file::merge3" },
];

/// Known exceptions, each with its reason: (file under `crates/ops/src`, pattern).
const ALLOWED: &[(&str, &str, &str)] = &[
    ("remember.rs", "split('|')", "parses the `FROM|RELATION|TO` argument, not a file"),
    (
        "setup.rs",
        "\"entries\"",
        "OpenClaw's `agents.entries` in the host's openclaw.json, not the decay file's entries",
    ),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("crates/ops/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn ops_code_leaves_file_formats_to_their_owners() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    assert!(files.len() > 10, "found the ops sources under {}", root.display());
    let mut found = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(path).expect("a source file is UTF-8");
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for rule in RULES {
                let allowed = ALLOWED.iter().any(|(f, p, _)| *f == rel && *p == rule.pattern);
                if line.contains(rule.pattern) && !allowed {
                    found.push(format!(
                        "crates/ops/src/{rel}:{}: `{}` splices a file format; call {} instead",
                        i + 1,
                        rule.pattern,
                        rule.owner
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "format text handled outside its owner:\n{}", found.join("\n"));
}

#[test]
fn every_allowed_exception_is_still_needed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, pattern, why) in ALLOWED {
        let text = std::fs::read_to_string(root.join(file)).expect("an allowed file exists");
        assert!(
            text.contains(pattern),
            "crates/ops/src/{file} no longer contains `{pattern}` ({why}): remove the exception"
        );
    }
}
