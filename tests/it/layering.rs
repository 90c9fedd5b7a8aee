//! Layer boundaries (docs/architecture.md): the stores never depend on derived data or on the
//! layers above them, and the library never prints or parses the command line.

use std::path::Path;

fn sources(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| (e.path().display().to_string(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

#[test]
fn stores_do_not_import_upper_or_derived_layers() {
    for (path, text) in sources("src/store") {
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let text = code;
        for banned in ["crate::ops", "crate::change", "crate::index", "crate::graph", "crate::git"]
        {
            assert!(!text.contains(banned), "{path} uses {banned}");
        }
    }
}

#[test]
fn library_never_prints_or_parses_arguments() {
    for (path, text) in sources("src") {
        if path.contains("/src/cli/") || path.ends_with("/src/main.rs") {
            continue;
        }
        for banned in ["println!", "eprintln!", "std::env::var", "clap::", "std::process::exit"] {
            assert!(!text.contains(banned), "{path} uses {banned}");
        }
    }
}

#[test]
fn only_ops_and_change_commit() {
    for (path, text) in sources("src") {
        let allowed = path.contains("/src/ops/")
            || path.ends_with("/src/change.rs")
            || path.ends_with("/src/git.rs");
        if !allowed {
            assert!(!text.contains("commit_files("), "{path} commits outside the change engine");
        }
    }
}
