//! `scripts/gen-workspace`, the generator of the benchmarks' fixtures, run against the real
//! binary: a fixture of the realistic mix must be a workspace cogmem reads without a warning,
//! whose graph table is what `graph rebuild` writes, with the shapes it promises (a long day,
//! a busy entity, decay entries in shards), so that a change to a file format cannot leave the
//! growth curves measuring a broken workspace. Needs `python3` (the MCP tests do too).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TestEnv;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-workspace")
}

/// Runs the generator into `out` and returns its JSON summary (the last line of stdout).
fn generate(env: &TestEnv, out: &Path, args: &[&str]) -> serde_json::Value {
    let mut c = Command::new("python3");
    c.arg(script())
        .arg(out)
        .args(["--cogmem", env!("CARGO_BIN_EXE_cogmem")])
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    let o = c.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "gen-workspace failed:\n{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(stdout.lines().last().expect("a summary line")).expect("JSON summary")
}

fn num(stats: &serde_json::Value, key: &str) -> u64 {
    stats[key].as_u64().unwrap_or_else(|| panic!("{key} in {stats}"))
}

/// Every file under `dir`, as (relative path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn gen_workspace_realistic_mix_is_a_workspace_cogmem_reads_cleanly() {
    let env = TestEnv::new();
    let stats =
        generate(&env, &env.root, &["--memories", "3000", "--mix", "realistic", "--seed", "5"]);

    // The shapes: one long day, a busy entity, small days, decay entries in 64 shards.
    assert_eq!(stats["decay"], "shards", "{stats}");
    assert!(num(&stats, "long_days") >= 1 && num(&stats, "long_day_max") >= 500, "{stats}");
    assert!(num(&stats, "small_days") >= 10, "{stats}");
    let busy = stats["busy"][0].as_str().expect("a busy entity").to_owned();
    let facts = env.read(&format!("memory/graph/entities/{busy}.md"));
    let facts = facts.split("## Facts").nth(1).unwrap().split("## ").next().unwrap();
    assert!(facts.lines().filter(|l| l.starts_with("- ")).count() >= 30, "{busy}: {facts}");
    let shards = std::fs::read_dir(env.path("memory/meta/decay")).unwrap().count();
    assert_eq!(shards, 64);
    assert!(env.read("memory/meta/decay-scores.json").contains("\"entries\": {}"));

    // cogmem reads every unit and every decay entry without a warning, and the graph table is
    // the one it would write.
    let status = env.run(["status"]).success();
    assert_eq!(status.stderr, "", "{status}");
    assert!(status.stdout.contains("decay       3000 entries ("), "{status}");
    let check = env.run(["-q", "graph", "check"]).success();
    assert_eq!(check.stderr, "", "{check}");
    let rebuild = env.run(["graph", "rebuild"]).success();
    assert_eq!(rebuild.stderr.trim(), "nothing to change", "{rebuild}");
    let hits = env.run(["--json", "search", "budget review"]).success();
    assert!(hits.stdout.contains("\"id\""), "{hits}");
    env.assert_clean_tree();

    // A write goes to the shards, as in a workspace that grew through cogmem: the main file is
    // not split again.
    env.run(["remember", "The budget review moved to Thursday."]).success();
    let changed = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert!(!changed.contains("decay-scores.json"), "{changed}");
    assert!(changed.contains("memory/meta/decay/"), "{changed}");
    env.assert_clean_tree();
}

#[test]
fn gen_workspace_same_seed_gives_the_same_bytes() {
    let env = TestEnv::new();
    let (a, b, c) = (env.home.join("a"), env.home.join("b"), env.home.join("c"));
    let args = ["--memories", "1500", "--mix", "realistic", "--no-init"];
    generate(&env, &a, &[&args[..], &["--seed", "9"]].concat());
    generate(&env, &b, &[&args[..], &["--seed", "9"]].concat());
    generate(&env, &c, &[&args[..], &["--seed", "10"]].concat());
    let (ta, tb, tc) = (tree(&a), tree(&b), tree(&c));
    assert!(ta.len() > 100, "{} files", ta.len());
    assert!(ta == tb, "the same seed gave different files");
    assert!(ta != tc, "another seed gave the same files");
}

/// Past 1,000 entity files the generator writes `graph/index.md` as cogmem does (the count of
/// files by type): `graph rebuild` has nothing to change (bench-search refused its 100,000-memory
/// fixture while the generator wrote the whole registry).
#[test]
fn gen_workspace_past_a_thousand_entities_writes_the_graph_table_cogmem_writes() {
    let env = TestEnv::new();
    let stats = generate(&env, &env.root, &["--memories", "2000", "--entities", "1001"]);
    assert_eq!(num(&stats, "entities"), 1001, "{stats}");
    assert!(env.read("memory/graph/index.md").contains("## Entities by Type"));
    let rebuild = env.run(["graph", "rebuild"]).success();
    assert_eq!(rebuild.stderr.trim(), "nothing to change", "{rebuild}");
    env.assert_clean_tree();
}
