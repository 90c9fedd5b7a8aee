//! In-process time to build the knowledge graph from a workspace of 10,000 entities and 50,000
//! relation edges (the target: under 300 ms), phase by phase, without process start-up.
//!
//! 1. Uses the fixture `target/bench-fixtures/graph-10k` (made by `scripts/bench-search`), or
//!    generates the files with `scripts/gen-workspace … --no-init` when it is missing.
//! 2. Times, with medians over the runs after warm-up:
//!    - `graph::build`: list and read every entity file, parse them, build the petgraph graph —
//!      what `cogmem graph stats`, `show`, `check` and the index refresh do;
//!    - the read alone (list the folder, read each file);
//!    - `graph::from_files`: the parse and the graph from text already in memory;
//!    - `Graph::stats` (components, hubs);
//!    - `GraphCache::activation_of`: what a search does for graph activation — wrap the cache
//!      text and score 45 hit entities from 10 seed entities by binary search.
//! 3. Prints a Markdown table on stderr and one `graph-bench<TAB>NAME<TAB>MEDIAN_MS<TAB>MIN_MS
//!    <TAB>MAX_MS<TAB>RUNS` line per phase on stdout, which `scripts/bench-search` reads.
//!
//! Run it with `scripts/bench-search`, or `cargo bench --bench graph`.
//!
//! Settings (environment variables):
//! - `COGMEM_BENCH_GRAPH_WS` — the workspace to build from (default: the fixture above);
//! - `COGMEM_BENCH_RUNS` — timed runs per phase (default 30);
//! - `COGMEM_BENCH_WARMUP` — untimed runs before each phase (default 3).

#![allow(
    clippy::disallowed_methods,
    reason = "the benchmark reads the fixture with std::fs, as the library's fsx would"
)]

use std::error::Error;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use cogmem::Workspace;
use cogmem::graph::{self, vocab::Vocabulary};
use cogmem::store::units::markdown_files;

type Res<T> = Result<T, Box<dyn Error>>;

/// The target for building the graph of 10,000 entities and 50,000 edges.
const TARGET_MS: f64 = 300.0;
const ENTITIES_DIR: &str = "memory/graph/entities";
const RELATIONS: &str = "memory/graph/relations.md";

fn main() -> ExitCode {
    // `cargo test --all-targets` runs bench targets too, without `--bench`: building is the
    // test there; the benchmark itself runs only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("bench-graph: built; run it with `cargo bench --bench graph`");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-graph: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn env_num(name: &str, default: usize) -> Res<usize> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => {
            v.trim().parse().map_err(|_| format!("{name}={v}: expected a whole number").into())
        }
        _ => Ok(default),
    }
}

fn run() -> Res<()> {
    let runs = env_num("COGMEM_BENCH_RUNS", 30)?.max(1);
    let warmup = env_num("COGMEM_BENCH_WARMUP", 3)?;
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = match std::env::var_os("COGMEM_BENCH_GRAPH_WS") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => manifest.join("target/bench-fixtures/graph-10k"),
    };
    if !root.join("MEMORY.md").is_file() {
        eprintln!(
            "bench-graph: generating {} (no git history: the graph needs none)",
            root.display()
        );
        let status = Command::new("python3")
            .arg(manifest.join("scripts/gen-workspace"))
            .arg(&root)
            .args(["--memories", "12000", "--entities", "10000", "--edges", "50000"])
            .args(["--no-init", "--force"])
            .status()?;
        if !status.success() {
            return Err("scripts/gen-workspace failed".into());
        }
    }
    let ws = Workspace::open(&root)?;

    let g = graph::build(&ws)?;
    let stats = g.stats();
    eprintln!(
        "bench-graph: {} — {} entities, {} edges, {} dangling, {} unreadable",
        root.display(),
        stats.nodes,
        stats.edges,
        stats.dangling,
        g.skipped.len()
    );
    let files = read_all(&root)?;
    let vocab_text = std::fs::read_to_string(root.join(RELATIONS)).unwrap_or_default();
    let cache = g.cache_text();
    // Seeds and hit entities as a search would have them: ids spread over the graph.
    let ids: Vec<String> = g.g.node_weights().map(|n| n.id.clone()).collect();
    let step = (ids.len() / 55).max(1);
    let picked: Vec<&String> = ids.iter().step_by(step).take(55).collect();
    let seeds: Vec<String> = picked.iter().take(10).map(|s| (*s).clone()).collect();
    let targets: Vec<&str> = picked.iter().skip(10).map(|s| s.as_str()).collect();

    let mut rows: Vec<(&str, Vec<Duration>)> = Vec::new();
    rows.push((
        "build (read + parse + graph)",
        time(warmup, runs, || {
            black_box(graph::build(&ws).expect("the graph builds").g.edge_count());
        }),
    ));
    rows.push((
        "read entity files",
        time(warmup, runs, || {
            black_box(read_all(&root).expect("the files read").len());
        }),
    ));
    rows.push((
        "parse + graph (from_files)",
        time(warmup, runs, || {
            let g = graph::from_files(&files, Vocabulary::parse(&vocab_text));
            black_box(g.g.edge_count());
        }),
    ));
    rows.push((
        "stats (components, hubs)",
        time(warmup, runs, || {
            black_box(g.stats().components);
        }),
    ));
    rows.push((
        "cache activation (search, 10 seeds → 45 hits)",
        time(warmup, runs, || {
            let c = cogmem::graph::cache::GraphCache::new(cache.clone());
            black_box(c.activation_of(&seeds, &targets).len());
        }),
    ));

    eprintln!();
    eprintln!(
        "| phase ({} entities, {} edges) | median | min | max | runs |",
        stats.nodes, stats.edges
    );
    eprintln!("|---|---:|---:|---:|---:|");
    for (name, d) in &rows {
        let (med, min, max) = summary(d);
        eprintln!("| {name} | {med:.1} ms | {min:.1} ms | {max:.1} ms | {} |", d.len());
        println!("graph-bench\t{name}\t{med:.3}\t{min:.3}\t{max:.3}\t{}", d.len());
    }
    let (build, _, _) = summary(&rows[0].1);
    eprintln!(
        "\ntarget: build under {TARGET_MS:.0} ms — {}",
        if build < TARGET_MS { "met" } else { "MISSED" }
    );
    println!("graph-bench\tshape\t{}\t{}\t{}\t0", stats.nodes, stats.edges, stats.dangling);
    Ok(())
}

/// Reads every entity file as `graph::build` does: the sorted `*.md` list, then each file.
fn read_all(root: &Path) -> Res<Vec<(String, String)>> {
    let mut out = Vec::new();
    for rel in markdown_files(root, ENTITIES_DIR) {
        let text = std::fs::read_to_string(root.join(&rel))?;
        out.push((rel, text));
    }
    Ok(out)
}

fn time(warmup: usize, runs: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..warmup {
        f();
    }
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect()
}

/// Median, minimum and maximum in milliseconds.
fn summary(d: &[Duration]) -> (f64, f64, f64) {
    let mut ms: Vec<f64> = d.iter().map(|x| x.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let med = if n % 2 == 1 { ms[n / 2] } else { (ms[n / 2 - 1] + ms[n / 2]) / 2.0 };
    (med, ms[0], ms[n - 1])
}
