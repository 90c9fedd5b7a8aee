//! Golden trees: compare a folder with `tests/golden/<name>/` byte for byte, or rewrite the
//! golden copy with `COGMEM_BLESS=1` (then review the diff in git).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == ".git" || rel.starts_with(".git/") || rel.starts_with(".cogmem") {
            continue;
        }
        if e.file_type().is_file() {
            out.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
    out
}

#[track_caller]
pub fn assert_tree(actual: &Path, golden: &str) {
    let golden: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join(golden);
    let have = files(actual);
    if std::env::var_os("COGMEM_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (rel, bytes) in &have {
            let p = golden.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        return;
    }
    let want = files(&golden);
    let mut problems = Vec::new();
    for rel in want.keys().filter(|k| !have.contains_key(*k)) {
        problems.push(format!("missing: {rel}"));
    }
    for rel in have.keys().filter(|k| !want.contains_key(*k)) {
        problems.push(format!("extra: {rel}"));
    }
    for (rel, bytes) in &have {
        if let Some(w) = want.get(rel)
            && w != bytes
        {
            problems.push(format!(
                "differs: {rel}\n--- golden ---\n{}\n--- actual ---\n{}",
                String::from_utf8_lossy(w),
                String::from_utf8_lossy(bytes)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "tree differs from {} (COGMEM_BLESS=1 rewrites it):\n{}",
        golden.display(),
        problems.join("\n")
    );
}
