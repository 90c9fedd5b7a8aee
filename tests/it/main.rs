//! The one integration-test binary: every test runs the real `cogmem` binary (or the library)
//! against real git repositories in temp folders.

#![allow(clippy::disallowed_methods, reason = "tests read and write fixtures directly")]

mod common;

mod agents_block;
mod audit_ack;
mod audit_compact;
mod bad_input;
mod capture;
mod change;
mod cli_docs;
mod color;
mod consolidate;
mod context;
mod crash;
mod dates;
mod decay;
mod doctor;
mod embed;
mod embed_model;
mod entities;
mod fields;
mod flag;
mod forget;
mod fuzz;
mod gen_workspace;
mod gitstate;
mod graph;
mod graph_view;
mod hear;
mod help_examples;
mod hook;
mod hostile;
mod ids;
mod import_stream;
mod init;
mod layering;
mod lib_errors;
mod lib_forget;
mod lib_history;
mod lib_remember;
mod mcp;
mod pending;
mod people;
mod progress;
mod purge;
mod reflect;
mod reflect_input;
mod reflect_logs;
mod remember;
mod remote_sync;
mod roles;
mod search;
#[cfg(feature = "timings")]
mod search_scan;
mod secrets;
mod setup;
mod shell;
mod status_audit;
mod status_summary;
mod stress;
mod sync;
mod upkeep;
mod vocabulary;
mod watch;
mod web_browser;
mod web_pages;
mod web_review;
mod web_server;
mod write_cost;

mod when;

/// Every `.rs` file under tests/it is declared as a module, so no test file is forgotten.
#[test]
fn no_forgotten_test_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
        {
            assert!(
                main.contains(&format!("mod {module};")),
                "tests/it/{name} is not declared in main.rs"
            );
        }
    }
}
