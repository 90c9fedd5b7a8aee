//! Layer boundaries (docs/architecture.md). The compiler enforces most of them: a crate cannot
//! name a crate it does not depend on. These tests keep the dependency graph itself right, read
//! from `cargo metadata`: no crate depends on one above it, the lower layers pull in no MCP,
//! async runtime or argument parser, the text layer no I/O crates, and the libraries never print,
//! read the environment or commit outside the change engine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The layers from the bottom up; a crate may depend only on crates before it.
const LAYERS: [&str; 7] = [
    "cogmem-text",
    "cogmem-store",
    "cogmem-index",
    "cogmem-ops",
    "cogmem-mcp",
    "cogmem-web",
    "cogmem",
];

/// Normal (non-dev) dependency edges of every package in the build graph, by package name.
fn dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rustc = Command::new("rustc").arg("-vV").output().expect("rustc runs");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", &host])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("id"), p["name"].as_str().expect("name")))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().expect("resolve graph") {
        let from = name_of[node["id"].as_str().expect("node id")].to_owned();
        let deps = graph.entry(from).or_default();
        for dep in node["deps"].as_array().expect("deps") {
            let normal = dep["dep_kinds"]
                .as_array()
                .expect("dep kinds")
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if normal {
                deps.insert(name_of[dep["pkg"].as_str().expect("pkg")].to_owned());
            }
        }
    }
    graph
}

/// Every package `from` depends on, directly or not (normal and build dependencies).
fn closure(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(p) = todo.pop() {
        for d in graph.get(&p).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn no_crate_depends_on_a_layer_above_it() {
    let graph = dependency_graph();
    for (rank, krate) in LAYERS.iter().enumerate() {
        let deps = graph.get(*krate).unwrap_or_else(|| panic!("{krate} is a workspace member"));
        for dep in deps.iter().filter(|d| LAYERS.contains(&d.as_str())) {
            let dep_rank = LAYERS.iter().position(|l| l == dep).expect("a layer");
            assert!(dep_rank < rank, "{krate} depends on {dep}, which is not below it");
        }
    }
}

#[test]
fn lower_layers_pull_in_no_mcp_async_runtime_or_argument_parser() {
    let graph = dependency_graph();
    for krate in ["cogmem-text", "cogmem-store", "cogmem-index", "cogmem-ops"] {
        let all = closure(&graph, krate);
        for banned in
            ["rmcp", "tokio", "axum", "hyper", "maud", "clap", "schemars", "indicatif", "console"]
        {
            assert!(!all.contains(banned), "{krate} pulls in {banned}");
        }
    }
}

#[test]
fn the_adapters_stand_side_by_side() {
    // The MCP server and the web view are two adapters over the operations: neither uses the
    // other, and neither pulls in the other's protocol stack.
    let graph = dependency_graph();
    let mcp = closure(&graph, "cogmem-mcp");
    for banned in ["cogmem-web", "axum", "hyper", "maud"] {
        assert!(!mcp.contains(banned), "cogmem-mcp pulls in {banned}");
    }
    let web = closure(&graph, "cogmem-web");
    for banned in ["cogmem-mcp", "rmcp", "schemars", "clap"] {
        assert!(!web.contains(banned), "cogmem-web pulls in {banned}");
    }
}

#[test]
fn text_layer_pulls_in_no_io_crates() {
    let all = closure(&dependency_graph(), "cogmem-text");
    for banned in ["git2", "tantivy", "notify", "walkdir", "tempfile", "petgraph", "tiktoken-rs"] {
        assert!(!all.contains(banned), "cogmem-text pulls in {banned}");
    }
}

#[test]
fn store_layer_pulls_in_no_derived_data_crates() {
    let all = closure(&dependency_graph(), "cogmem-store");
    for banned in ["tantivy", "petgraph", "notify", "tiktoken-rs"] {
        assert!(!all.contains(banned), "cogmem-store pulls in {banned}");
    }
}

fn sources(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| (e.path().display().to_string(), std::fs::read_to_string(e.path()).unwrap()))
        .collect()
}

/// The library crates' code, comments and unit-test modules (`#[cfg(test)]` or
/// `#[cfg(all(test, …))]` before a `mod`) dropped: a test may set up what the library must not
/// do itself.
fn library_sources() -> Vec<(String, String)> {
    let mut out = sources("crates");
    out.retain(|(path, _)| path.contains("/src/"));
    for (_, text) in &mut out {
        let mut kept = Vec::new();
        let mut lines = text.lines().filter(|l| !l.trim_start().starts_with("//"));
        while let Some(line) = lines.next() {
            let t = line.trim_start();
            if !(t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test")) {
                kept.push(line);
                continue;
            }
            // The attribute's item: a test module is skipped to its closing brace.
            let Some(item) = lines.next() else { break };
            if !item.trim_start().starts_with("mod ") || !item.contains('{') {
                kept.extend([line, item]);
                continue;
            }
            let mut depth = item.matches('{').count() - item.matches('}').count();
            while depth > 0 {
                let Some(l) = lines.next() else { break };
                depth = (depth + l.matches('{').count()).saturating_sub(l.matches('}').count());
            }
        }
        *text = kept.join("\n");
    }
    assert!(out.len() > 50, "found the library sources under crates/");
    out
}

#[test]
fn libraries_never_print_read_the_environment_or_parse_arguments() {
    for (path, text) in library_sources() {
        for banned in ["println!", "eprintln!", "std::env::var", "clap::", "std::process::exit"] {
            assert!(!text.contains(banned), "{path} uses {banned}");
        }
    }
}

#[test]
fn only_ops_and_the_change_engine_commit() {
    for (path, text) in library_sources() {
        let allowed = path.contains("/crates/ops/src/")
            || path.ends_with("/crates/store/src/change.rs")
            || path.ends_with("/crates/store/src/git.rs");
        if !allowed {
            assert!(!text.contains("commit_files("), "{path} commits outside the change engine");
        }
    }
}

#[test]
fn derived_layer_never_changes_the_workspace() {
    for (path, text) in library_sources() {
        if path.contains("/crates/index/src/") {
            // It writes only its own files under `.cogmem/`; never through the change engine.
            for banned in ["Change::", "change::Change", "commit_files("] {
                assert!(!text.contains(banned), "{path} writes through {banned}");
            }
        }
    }
}
