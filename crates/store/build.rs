//! Embeds `memory-template/` and `templates/` into the binary as static file tables, so an
//! installed `cogmem` needs no source tree.

#![allow(clippy::disallowed_methods, reason = "a build script has no workspace paths to name")]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // The templates sit at the top of the repository, where users and reviewers look for them.
    let root =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo")).join("../..");
    let mut out = String::new();
    for (name, dir) in [("MEMORY_TEMPLATE", "memory-template"), ("TEMPLATES", "templates")] {
        let base = root.join(dir);
        println!("cargo:rerun-if-changed={}", base.display());
        let mut files = Vec::new();
        collect(&base, &base, &mut files);
        files.sort();
        writeln!(out, "/// Files of `{dir}/`, by relative path with `/` separators.").unwrap();
        writeln!(out, "pub static {name}: &[(&str, &[u8])] = &[").unwrap();
        for rel in files {
            let abs = base.join(&rel);
            writeln!(out, "    ({rel:?}, include_bytes!({:?})),", abs.display().to_string())
                .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("embedded.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn collect(base: &Path, dir: &Path, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("readable folder entry").path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(base, &path, files);
        } else {
            let rel = path.strip_prefix(base).expect("under base");
            let rel: Vec<_> = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect();
            files.push(rel.join("/"));
        }
    }
}
