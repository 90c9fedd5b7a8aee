//! Whole-process latency of `cogmem remember` on a large workspace (the target: 10,000
//! memories and 10,000 commits of history, median under 30 ms).
//!
//! 1. Builds, or reuses, a fixture workspace under `target/bench-fixtures/remember-10k` by calling
//!    the library in-process: `init`, then 10,000 `remember` calls, each one a real commit, with
//!    a deterministic mix of episodes, entity facts, relations, procedures and vault notes.
//! 2. Copies the fixture to `target/bench-fixtures/remember-10k-run` (git objects hard-linked,
//!    everything else copied), so every run of the benchmark starts from the same state.
//! 3. Times the release binary as a whole process on the copy, one distinct memory per run, and
//!    prints a Markdown table to stdout.
//!
//! Run it with `scripts/bench-remember`, or `cargo bench --bench remember`.
//!
//! Settings (environment variables):
//! - `COGMEM_BENCH_RUNS` — timed runs per case (default 50);
//! - `COGMEM_BENCH_WARMUP` — untimed runs before each case (default 3);
//! - `COGMEM_BENCH_CORE_RUNS` — timed runs of the core case (default: the runs, capped so
//!   MEMORY.md stays inside its token budget);
//! - `COGMEM_BENCH_MEMORIES` — memories in the fixture (default 10000; smaller for a smoke test);
//! - `COGMEM_BENCH_REGEN=1` — rebuild the fixture even if a valid one exists;
//! - `COGMEM_BENCH_BIN` — the `cogmem` binary to time (default: the one cargo built for this
//!   benchmark, else `target/release/cogmem`);
//! - `COGMEM_BENCH_COMMITS` — selects the growth comparison instead (issue 20,
//!   `remember/growth.rs`): `COGMEM_BENCH_MEMORIES` and `COGMEM_BENCH_COMMITS` then list sizes
//!   (`"10000 100000"`), a fixture per pair is built by `scripts/gen-workspace` and
//!   `scripts/gen-history`, the episodic and semantic cases run interleaved on all of them,
//!   and the report gives each size's median and p95 with its ratio to the first size's;
//!   `COGMEM_BENCH_REUSE=1` times on the copies an earlier run left instead of copying and
//!   reindexing the fixtures again.

#![allow(
    clippy::disallowed_methods,
    reason = "the benchmark lays out its own fixture with std::fs"
)]

use std::collections::HashSet;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use cogmem::audit::Actor;
use cogmem::ops::remember::{Relation, RememberRequest, remember};
use cogmem::store::entity::EntityId;
use cogmem::store::episode::EntryType;
use cogmem::store::{Confidence, Store};
use cogmem::{FixedClock, Timestamp, Workspace};

#[path = "remember/growth.rs"]
mod growth;

type Res<T> = Result<T, Box<dyn Error>>;

/// The target for the median whole-process time.
const TARGET_MS: f64 = 30.0;
/// Bump when the generator changes, so cached fixtures are rebuilt.
const GENERATOR_VERSION: u32 = 1;
/// The fixture's first instant; memory `i` is remembered `i` steps later.
const START: &str = "2026-01-01T00:00:00Z";
/// The fixture's history spans this many days.
const DAYS: u64 = 200;

fn main() -> ExitCode {
    // `cargo test --all-targets` runs bench targets too, without `--bench`: building is the
    // test there; the benchmark itself runs only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("bench-remember: built; run it with `cargo bench --bench remember`");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-remember: error: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Config {
    memories: usize,
    runs: usize,
    warmup: usize,
    core_runs: Option<usize>,
    regen: bool,
}

impl Config {
    fn from_env() -> Res<Self> {
        let num = |name: &str, default: usize| -> Res<usize> {
            match std::env::var(name) {
                Ok(v) if !v.trim().is_empty() => v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{name}={v}: expected a whole number").into()),
                _ => Ok(default),
            }
        };
        let core_runs = match std::env::var("COGMEM_BENCH_CORE_RUNS") {
            Ok(v) if !v.trim().is_empty() => Some(num("COGMEM_BENCH_CORE_RUNS", 0)?),
            _ => None,
        };
        let cfg = Self {
            memories: num("COGMEM_BENCH_MEMORIES", 10_000)?,
            runs: num("COGMEM_BENCH_RUNS", 50)?,
            warmup: num("COGMEM_BENCH_WARMUP", 3)?,
            core_runs,
            regen: std::env::var("COGMEM_BENCH_REGEN").is_ok_and(|v| !v.is_empty() && v != "0"),
        };
        if cfg.memories < 100 || cfg.runs == 0 {
            return Err(
                "COGMEM_BENCH_MEMORIES must be at least 100 and COGMEM_BENCH_RUNS at least 1"
                    .into(),
            );
        }
        Ok(cfg)
    }

    fn fixture_name(&self) -> String {
        if self.memories.is_multiple_of(1000) {
            format!("remember-{}k", self.memories / 1000)
        } else {
            format!("remember-{}", self.memories)
        }
    }
}

fn run() -> Res<()> {
    if std::env::var("COGMEM_BENCH_COMMITS").is_ok_and(|v| !v.trim().is_empty()) {
        let num = |name: &str, default: usize| -> Res<usize> {
            match std::env::var(name) {
                Ok(v) if !v.trim().is_empty() => Ok(v.trim().parse()?),
                _ => Ok(default),
            }
        };
        let fixtures = target_dir().join("bench-fixtures");
        fs::create_dir_all(&fixtures)?;
        let runs = num("COGMEM_BENCH_RUNS", 50)?.max(1);
        return growth::run(&find_binary()?, &fixtures, runs, num("COGMEM_BENCH_WARMUP", 3)?);
    }
    let cfg = Config::from_env()?;
    let bin = find_binary()?;
    let fixtures = target_dir().join("bench-fixtures");
    fs::create_dir_all(&fixtures)?;
    let name = cfg.fixture_name();
    let fixture = fixtures.join(&name);
    let stamp = fixtures.join(format!("{name}.stamp"));
    let expected_commits = cfg.memories + 1;

    let generated = if !cfg.regen && fixture_is_valid(&fixture, &stamp, &cfg)? {
        eprintln!(
            "bench-remember: reusing {} (COGMEM_BENCH_REGEN=1 rebuilds it)",
            fixture.display()
        );
        None
    } else {
        Some(generate(&fixture, &stamp, &cfg)?)
    };

    let work = fixtures.join(format!("{name}-run"));
    let started = Instant::now();
    clone_workspace(&fixture, &work)?;
    refresh_index(&work);
    hold_off_packing(&work)?;
    eprintln!(
        "bench-remember: copied the fixture to {} in {:.1} s",
        work.display(),
        started.elapsed().as_secs_f64()
    );
    let facts = describe(&work, expected_commits)?;
    let load_before = load_average();

    let mut results = Vec::new();
    let ws = work.display().to_string();
    let end = start_time() + step(&cfg) * u32::try_from(cfg.memories)?;
    let time_at = |case: u32, run: usize| -> Res<String> {
        let t = end + Duration::from_secs(3600 * u64::from(case) + 60 * u64::try_from(run)?);
        Ok(t.to_rfc3339())
    };

    // Process start-up floor: argument parsing and nothing else.
    results.push(time_case(
        &bin,
        "baseline: `--version`",
        "cogmem --version",
        (0..cfg.warmup + cfg.runs).map(|_| (vec!["--version".to_owned()], time_at(0, 0))),
        cfg.warmup,
        None,
    )?);

    let episodic = (0..cfg.warmup + cfg.runs).map(|r| {
        let text = format!("Benchmark episode {r}: {}", words(r as u64 * 7 + 1, 10));
        (vec!["--workspace".into(), ws.clone(), "remember".into(), text], time_at(1, r))
    });
    results.push(time_case(
        &bin,
        "episodic (default store)",
        "cogmem --workspace WS remember \"<text>\"",
        episodic,
        cfg.warmup,
        Some("remembered"),
    )?);

    let entities = entity_count(&cfg);
    let semantic = (0..cfg.warmup + cfg.runs).map(|r| {
        // Entity 0 is the busiest (skewed draws favour low numbers); mix it with ordinary ones.
        let k = if r % 3 == 0 { 0 } else { (r * 37) % entities };
        let text = format!("Benchmark fact {r}: {}", words(r as u64 * 11 + 3, 8));
        let args = vec![
            "--workspace".into(),
            ws.clone(),
            "remember".into(),
            text,
            "--entity".into(),
            entity_id(k),
        ];
        (args, time_at(2, r))
    });
    results.push(time_case(
        &bin,
        "semantic (`--entity`, existing entity)",
        "cogmem --workspace WS remember \"<text>\" --entity person--ada-0",
        semantic,
        cfg.warmup,
        Some("remembered"),
    )?);

    let core_runs = core_run_count(&work, &cfg)?;
    let core = (0..cfg.warmup + core_runs).map(|r| {
        let text = format!("Bench core {r} {}", words(r as u64 * 13 + 5, 2));
        let args = vec![
            "--workspace".into(),
            ws.clone(),
            "remember".into(),
            text,
            "--store".into(),
            "core".into(),
        ];
        (args, time_at(3, r))
    });
    results.push(time_case(
        &bin,
        "core (`--store core`)",
        "cogmem --workspace WS remember \"<text>\" --store core",
        core,
        cfg.warmup,
        Some("remembered"),
    )?);

    let vault = (0..cfg.warmup + cfg.runs).map(|r| {
        let text = format!("Benchmark pinned note {r}: {}", words(r as u64 * 17 + 7, 12));
        let args = vec![
            "--workspace".into(),
            ws.clone(),
            "remember".into(),
            text,
            "--store".into(),
            "vault".into(),
            "--title".into(),
            format!("Bench note {r}"),
        ];
        (args, time_at(4, r))
    });
    results.push(time_case(
        &bin,
        "vault (`--store vault`)",
        "cogmem --workspace WS remember \"<text>\" --store vault --title \"<title>\"",
        vault,
        cfg.warmup,
        Some("remembered"),
    )?);

    let status = (0..cfg.warmup + cfg.runs)
        .map(|_| (vec!["--workspace".into(), ws.clone(), "status".into()], time_at(5, 0)));
    results.push(time_case(
        &bin,
        "status",
        "cogmem --workspace WS status",
        status,
        cfg.warmup,
        Some("workspace"),
    )?);

    let in_process = time_in_process(&work, &cfg, end)?;
    let load = [load_before, load_average()];

    let run = Run { cfg: &cfg, facts: &facts, generated: generated.as_ref(), bin: &bin, load };
    print!("{}", render(&run, &results, &in_process));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Locating things

/// The `cogmem` binary to time: `COGMEM_BENCH_BIN`, else the one cargo built alongside this
/// benchmark, else `target/release/cogmem`.
fn find_binary() -> Res<PathBuf> {
    let exe = if cfg!(windows) { "cogmem.exe" } else { "cogmem" };
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("COGMEM_BENCH_BIN") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            return Err(format!("COGMEM_BENCH_BIN={}: no such file", p.display()).into());
        }
        return Ok(p);
    }
    if let Some(p) = option_env!("CARGO_BIN_EXE_cogmem") {
        candidates.push(PathBuf::from(p));
    }
    // This benchmark runs from <target>/release/deps/; the binary sits in <target>/release/.
    if let Ok(me) = std::env::current_exe()
        && let Some(release) = me.parent().and_then(Path::parent)
    {
        candidates.push(release.join(exe));
    }
    candidates.push(target_dir().join("release").join(exe));
    for c in &candidates {
        if c.is_file() {
            return Ok(c.clone());
        }
    }
    Err(format!(
        "no release build of cogmem found (looked at {}). Run `cargo build --release` first, \
         or set COGMEM_BENCH_BIN",
        candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
    )
    .into())
}

/// `CARGO_TARGET_DIR` when set, else `target/` in the package.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() { d } else { Path::new(env!("CARGO_MANIFEST_DIR")).join(d) }
        }
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
    }
}

// ---------------------------------------------------------------------------------------------
// The fixture

fn start_time() -> Timestamp {
    FixedClock::parse(START).expect("START is RFC 3339").0
}

/// Time between two memories, so that the history spans [`DAYS`] days.
fn step(cfg: &Config) -> Duration {
    Duration::from_secs(DAYS * 86_400 / cfg.memories as u64)
}

fn entity_count(cfg: &Config) -> usize {
    (cfg.memories * 8 / 100).max(10)
}

fn stamp_text(cfg: &Config, head: &str) -> String {
    format!(
        "generator={GENERATOR_VERSION}\nmemories={}\ncommits={}\nhead={head}\n",
        cfg.memories,
        cfg.memories + 1
    )
}

/// A fixture is reused when its stamp matches this generator and size, HEAD is the commit the
/// stamp names, and the history holds the expected number of commits.
fn fixture_is_valid(fixture: &Path, stamp: &Path, cfg: &Config) -> Res<bool> {
    if !fixture.join(".git").is_dir() {
        return Ok(false);
    }
    let Ok(text) = fs::read_to_string(stamp) else { return Ok(false) };
    let Ok(repo) = cogmem::git::open(fixture) else { return Ok(false) };
    let Some(head) = cogmem::git::head_id(&repo)? else { return Ok(false) };
    if text != stamp_text(cfg, &head.to_string()) {
        eprintln!("bench-remember: {} is from another generator or size", fixture.display());
        return Ok(false);
    }
    let commits = cogmem::git::recent(&repo, usize::MAX)?.len();
    if commits != cfg.memories + 1 {
        eprintln!(
            "bench-remember: {} has {commits} commits, expected {}",
            fixture.display(),
            cfg.memories + 1
        );
        return Ok(false);
    }
    Ok(true)
}

#[derive(Clone, Copy)]
enum Kind {
    Episode,
    Fact,
    Relation,
    Procedure,
    Vault,
}

/// What generating the fixture took.
struct Generated {
    seconds: f64,
    /// Mean in-process `remember` time over each successive tenth of the history, in ms.
    tenths: Vec<f64>,
}

/// xorshift64*: tiny, deterministic, good enough to vary texts.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

#[rustfmt::skip]
const NAMES: &[&str] = &[
    "ada", "bruno", "chen", "dalia", "emeka", "farah", "goran", "hana", "ivo", "jun", "kemal",
    "lena", "mateo", "nadia", "omar", "priya", "quinn", "rosa", "sven", "tariq", "uma", "vera",
    "wen", "yusuf", "zoe", "atlas", "beacon", "cobalt", "delta", "ember", "falcon", "granite",
];
const ENTITY_KINDS: &[&str] = &["person", "project", "concept", "tool", "place", "organization"];
/// Relations of the template's vocabulary (none functional): `remember` refuses any other
/// (issue 18).
const RELATIONS: &[&str] = &[
    "works-on",
    "relates-to",
    "uses",
    "depends-on",
    "part-of",
    "precedes",
    "avoids",
    "prefers",
    "refines",
    "decided-on",
];
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "deploy", "pipeline", "billing", "service", "postgres", "replica", "cache", "latency",
    "review", "budget", "roadmap", "migration", "incident", "schema", "index", "quarterly",
    "planning", "sync", "handover", "design", "prototype", "release", "rollback", "metrics",
    "dashboard", "oncall", "rotation", "vendor", "contract", "invoice", "hiring", "interview",
    "offsite", "workshop", "feedback", "tea", "coffee", "morning", "evening", "weekend", "travel",
    "berlin", "lisbon", "tokyo", "garden", "bicycle", "piano", "novel", "recipe", "marathon",
];
const PHRASES: &[&str] = &[
    "Agreed with",
    "Talked to",
    "Heard from",
    "Decided with",
    "Reminder from",
    "Noticed that",
    "Learned from",
    "Followed up with",
];
const TAGS: &[&str] = &["work", "home", "health", "db", "infra", "travel", "people", "ideas"];

/// `n` pseudo-random words, the same for the same seed.
fn words(seed: u64, n: usize) -> String {
    let mut rng = Rng::new(seed.wrapping_add(0xC0FF_EE00));
    (0..n).map(|_| rng.pick(WORDS)).collect::<Vec<_>>().join(" ")
}

/// Entity number `k`, e.g. `person--ada-0`.
fn entity_id(k: usize) -> String {
    let kind = ENTITY_KINDS[k % ENTITY_KINDS.len()];
    let name = NAMES[(k / ENTITY_KINDS.len() + k) % NAMES.len()];
    format!("{kind}--{name}-{k}")
}

fn entity(k: usize) -> EntityId {
    EntityId::parse(&entity_id(k)).expect("generated ids are valid")
}

/// A paragraph-sized, unique text (the serial number makes it unique).
fn prose(rng: &mut Rng, serial: usize) -> String {
    let mut s = format!("{} {}", rng.pick(PHRASES), rng.pick(NAMES));
    let n = 6 + rng.below(20);
    for i in 0..n {
        s.push(if i % 9 == 8 { ',' } else { ' ' });
        if i % 9 == 8 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    let _ = write!(s, " (#{serial}).");
    s
}

/// The shuffled list of what each memory is: 60 % episodes, 25 % entity facts, 5 % each of
/// relations, procedures and vault notes.
fn plan(cfg: &Config, rng: &mut Rng) -> Vec<Kind> {
    let n = cfg.memories;
    let small = n * 5 / 100;
    let facts = n * 25 / 100;
    let mut kinds = Vec::with_capacity(n);
    kinds.extend(std::iter::repeat_n(Kind::Fact, facts));
    kinds.extend(std::iter::repeat_n(Kind::Relation, small));
    kinds.extend(std::iter::repeat_n(Kind::Procedure, small));
    kinds.extend(std::iter::repeat_n(Kind::Vault, small));
    kinds.extend(std::iter::repeat_n(Kind::Episode, n - facts - 3 * small));
    for i in (1..kinds.len()).rev() {
        let j = rng.below(i + 1);
        kinds.swap(i, j);
    }
    kinds
}

struct Generator {
    rng: Rng,
    entities: usize,
    procedures: usize,
    facts: usize,
    procedure_count: usize,
    vault_count: usize,
    relations: HashSet<(usize, usize, usize)>,
}

impl Generator {
    fn request(&mut self, kind: Kind, i: usize, now: Timestamp) -> Res<RememberRequest> {
        let rng = &mut self.rng;
        let text = prose(rng, i);
        // One in five memories comes from auto-detection, the rest from explicit requests.
        let actor = if rng.below(5) == 0 {
            Actor::parse("bot:auto-detect")?
        } else {
            Actor::parse("bot:trigger-remember")?
        };
        let mut req = RememberRequest::new(&text, actor)?;
        match kind {
            Kind::Episode => {
                req.stores = vec![Store::Episodic];
                req.entry_type = Some(EntryType::ALL[rng.below(EntryType::ALL.len())]);
                req.confidence =
                    Some([Confidence::High, Confidence::Medium, Confidence::Low][rng.below(3)]);
                req.tags = (0..rng.below(3)).map(|_| rng.pick(TAGS).to_owned()).collect();
                req.tags.dedup();
                // Something that happened up to two hours before it was remembered.
                let back = Duration::from_secs(60 * rng.below(120) as u64);
                req.at = Some(now - back);
            }
            Kind::Fact => {
                // The first facts create every entity once; later ones favour a few busy ones.
                let k = if self.facts < self.entities {
                    self.facts
                } else {
                    let r = rng.below(self.entities);
                    rng.below(r + 1)
                };
                self.facts += 1;
                req.entities = vec![entity(k)];
                if rng.below(10) == 0 {
                    let other = rng.below(self.entities);
                    if other != k {
                        req.entities.push(entity(other));
                    }
                }
            }
            Kind::Relation => {
                let (from, rel, to) = loop {
                    let from = rng.below(self.entities);
                    let to = rng.below(self.entities);
                    let rel = rng.below(RELATIONS.len());
                    if from != to && self.relations.insert((from, rel, to)) {
                        break (from, rel, to);
                    }
                };
                req.relations = vec![Relation {
                    from: entity(from),
                    relation: RELATIONS[rel].to_owned(),
                    to: entity(to),
                }];
                req.text = format!(
                    "{} {} {} (#{i}).",
                    entity_id(from),
                    RELATIONS[rel].replace('-', " "),
                    entity_id(to)
                );
            }
            Kind::Procedure => {
                // Half the calls start a procedure, the other half add a step to one.
                let p = self.procedure_count % self.procedures;
                self.procedure_count += 1;
                req.stores = vec![Store::Procedural];
                req.title = Some(format!("Procedure {p}: {}", words(p as u64, 3)));
                req.text = format!(
                    "Check the {} dashboard (#{i})\nRun the {} script\nTell {} when done",
                    rng.pick(WORDS),
                    rng.pick(WORDS),
                    rng.pick(NAMES)
                );
            }
            Kind::Vault => {
                let v = self.vault_count;
                self.vault_count += 1;
                req.stores = vec![Store::Vault];
                req.title = Some(format!("Pinned {v} {}", words(v as u64 + 991, 3)));
            }
        }
        Ok(req)
    }
}

/// Builds the fixture in `<fixture>.partial`, then moves it into place and writes the stamp.
fn generate(fixture: &Path, stamp: &Path, cfg: &Config) -> Res<Generated> {
    let partial = fixture.with_extension("partial");
    for dir in [fixture, partial.as_path()] {
        match fs::remove_dir_all(dir) {
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
    }
    let _ = fs::remove_file(stamp);
    eprintln!(
        "bench-remember: generating {} memories in {} (a few minutes)",
        cfg.memories,
        partial.display()
    );
    let started = Instant::now();
    let start = start_time();
    cogmem::ops::init::init(&partial, &FixedClock(start))?;
    let ws = Workspace::open(&partial)?;
    let mut rng = Rng::new(0x5EED);
    let kinds = plan(cfg, &mut rng);
    let mut g = Generator {
        rng,
        entities: entity_count(cfg),
        procedures: (cfg.memories * 5 / 100 / 2).max(1),
        facts: 0,
        procedure_count: 0,
        vault_count: 0,
        relations: HashSet::new(),
    };
    let step = step(cfg);
    let tenth = (cfg.memories / 10).max(1);
    let mut tenths = Vec::new();
    let mut chunk = Duration::ZERO;
    let mut since_report = Instant::now();
    let mut reported = 0usize;
    for (i, kind) in kinds.iter().enumerate() {
        let now = start + step * u32::try_from(i + 1)?;
        let req = g.request(*kind, i, now)?;
        let t = Instant::now();
        let report = remember(&ws, &req, &FixedClock(now))
            .map_err(|e| format!("memory {i} ({:?}): {e}", req.text))?;
        chunk += t.elapsed();
        if report.commit.is_none() {
            return Err(format!("memory {i} was not committed (duplicate?): {:?}", req.text).into());
        }
        let done = i + 1;
        if done % tenth == 0 {
            tenths.push(chunk.as_secs_f64() * 1000.0 / tenth as f64);
            chunk = Duration::ZERO;
        }
        if done % 1000 == 0 || done == cfg.memories {
            eprintln!(
                "bench-remember: {done}/{} commits, {:.1} ms per remember lately, {:.0} s elapsed",
                cfg.memories,
                since_report.elapsed().as_secs_f64() * 1000.0 / (done - reported) as f64,
                started.elapsed().as_secs_f64()
            );
            since_report = Instant::now();
            reported = done;
        }
    }
    let repo = cogmem::git::open(&partial)?;
    let head = cogmem::git::head_id(&repo)?.ok_or("the fixture has no commit")?;
    drop(repo);
    fs::rename(&partial, fixture)?;
    fs::write(stamp, stamp_text(cfg, &head.to_string()))?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("bench-remember: fixture ready in {seconds:.0} s");
    Ok(Generated { seconds, tenths })
}

/// Copies a workspace: files under `.git/objects` are hard-linked (git never changes an object
/// file in place), everything else is copied, since cogmem appends to the audit log in place.
fn clone_workspace(from: &Path, to: &Path) -> Res<()> {
    match fs::remove_dir_all(to) {
        Err(e) if e.kind() != ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    let objects = from.join(".git").join("objects");
    let mut stack = vec![from.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rel = dir.strip_prefix(from)?;
        fs::create_dir_all(to.join(rel))?;
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            let ty = entry.file_type()?;
            if ty.is_dir() {
                stack.push(path);
                continue;
            }
            let dest = to.join(path.strip_prefix(from)?);
            if path.starts_with(&objects) && fs::hard_link(&path, &dest).is_ok() {
                continue;
            }
            fs::copy(&path, &dest)?;
        }
    }
    Ok(())
}

/// The copy's files have new inodes and times, so the index's stat data no longer matches them
/// and `status` would re-hash every file on every run. `git update-index --refresh` records the
/// new stat data (the contents are the same), as in a workspace that was never copied.
fn refresh_index(ws: &Path) {
    let refreshed = Command::new("git")
        .arg("-C")
        .arg(ws)
        .args(["update-index", "-q", "--refresh"])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !refreshed {
        eprintln!(
            "bench-remember: warning: `git update-index --refresh` failed; the status case will \
             re-hash every file"
        );
    }
}

/// The fixture's 80,000 loose objects are far past `git.auto_pack_loose`: the first timed
/// commit would start a background `git repack` of all of them, which would run through every
/// later timed run. The copy's `cogmem.toml` (left uncommitted) turns packing off, so the runs
/// time `remember` alone; in everyday use packing runs in the background every few thousand
/// objects.
fn hold_off_packing(ws: &Path) -> Res<()> {
    let path = ws.join("cogmem.toml");
    let mut text = fs::read_to_string(&path).unwrap_or_default();
    if !text.contains("[git]") {
        text.push_str("\n[git]\nauto_pack_loose = 0\n");
        fs::write(&path, text)?;
    }
    Ok(())
}

/// The 1-minute load average (Linux), to show whether something else was running.
fn load_average() -> Option<String> {
    let text = fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next().map(str::to_owned)
}

/// What the benchmarked workspace holds.
struct Facts {
    commits: usize,
    episode_days: usize,
    episode_entries: usize,
    entities: usize,
    procedures: usize,
    vault: usize,
    decay_entries: usize,
    files: Vec<(&'static str, u64)>,
    loose_objects: usize,
}

fn describe(ws_root: &Path, expected_commits: usize) -> Res<Facts> {
    let ws = Workspace::open(ws_root)?;
    let repo = cogmem::git::open(ws_root)?;
    let commits = cogmem::git::recent(&repo, usize::MAX)?.len();
    if commits != expected_commits {
        return Err(format!("the copy has {commits} commits, expected {expected_commits}").into());
    }
    let s = cogmem::ops::status::status(&ws, 1)?;
    let mut files = Vec::new();
    for rel in [
        "memory/meta/decay-scores.json",
        "memory/meta/audit.log",
        "memory/graph/index.md",
        "MEMORY.md",
        ".git/index",
    ] {
        files.push((rel, fs::metadata(ws_root.join(rel))?.len()));
    }
    let mut loose_objects = 0;
    for dir in fs::read_dir(ws_root.join(".git/objects"))? {
        let dir = dir?;
        if dir.file_name().len() == 2 {
            loose_objects += fs::read_dir(dir.path())?.count();
        }
    }
    Ok(Facts {
        commits,
        episode_days: s.counts.episode_days,
        episode_entries: s.counts.episodes,
        entities: s.counts.entities,
        procedures: s.counts.procedures,
        vault: s.counts.vault,
        decay_entries: s.counts.decay_entries,
        files,
        loose_objects,
    })
}

/// How many core bullets fit in MEMORY.md's budget, with room to spare.
fn core_run_count(ws_root: &Path, cfg: &Config) -> Res<usize> {
    let ws = Workspace::open(ws_root)?;
    let budget = ws.settings().core.budget_tokens;
    let used = cogmem::tokens::estimate(&fs::read_to_string(ws_root.join("MEMORY.md"))?);
    // A bench bullet ("- Bench core 123 word word") is under 12 tokens.
    let room = budget.saturating_sub(used + 100) / 12;
    let want = cfg.core_runs.unwrap_or(cfg.runs);
    let fit = room.saturating_sub(cfg.warmup);
    if want > fit {
        eprintln!(
            "bench-remember: core case capped at {fit} runs to stay inside MEMORY.md's budget of \
             {budget} tokens"
        );
    }
    Ok(want.min(fit).max(1))
}

// ---------------------------------------------------------------------------------------------
// Timing

struct Stats {
    case: &'static str,
    command: &'static str,
    runs: usize,
    min: f64,
    median: f64,
    p95: f64,
    max: f64,
}

impl Stats {
    fn from_ms(case: &'static str, command: &'static str, mut ms: Vec<f64>) -> Self {
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let median = if n % 2 == 1 { ms[n / 2] } else { f64::midpoint(ms[n / 2 - 1], ms[n / 2]) };
        // Nearest rank.
        let p95 = ms[(n * 95).div_ceil(100).max(1) - 1];
        Self { case, command, runs: n, min: ms[0], median, p95, max: ms[n - 1] }
    }
}

/// Runs the binary once per argument list; the first `warmup` runs are not timed. `expect` is
/// text stdout must contain (so a duplicate or a refusal does not pass as a fast run).
fn time_case(
    bin: &Path,
    case: &'static str,
    command: &'static str,
    runs: impl Iterator<Item = (Vec<String>, Res<String>)>,
    warmup: usize,
    expect: Option<&str>,
) -> Res<Stats> {
    let mut ms = Vec::new();
    for (i, (args, now)) in runs.enumerate() {
        let mut cmd = Command::new(bin);
        cmd.args(&args)
            .env("COGMEM_NOW", now?)
            .env("NO_COLOR", "1")
            .env_remove("COGMEM_WORKSPACE")
            .env_remove("COGMEM_ACTOR")
            .stdin(Stdio::null());
        let t = Instant::now();
        let out = cmd.output()?;
        let elapsed = t.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ok =
            out.status.success() && expect.is_none_or(|e| stdout.contains(e) || stderr.contains(e));
        if !ok {
            return Err(format!(
                "{case}: `cogmem {}` failed ({}):\n{stdout}{stderr}",
                args.join(" "),
                out.status
            )
            .into());
        }
        if i >= warmup {
            ms.push(elapsed.as_secs_f64() * 1000.0);
        }
    }
    let s = Stats::from_ms(case, command, ms);
    eprintln!("bench-remember: {case}: median {:.2} ms", s.median);
    Ok(s)
}

/// Times the library call alone (no process start, no argument parsing) for comparison.
fn time_in_process(ws_root: &Path, cfg: &Config, end: Timestamp) -> Res<Stats> {
    let ws = Workspace::open(ws_root)?;
    let mut ms = Vec::new();
    for r in 0..cfg.warmup + cfg.runs {
        let now = end + Duration::from_secs(6 * 3600 + 60 * r as u64);
        let text = format!("In-process episode {r}: {}", words(r as u64 * 19 + 9, 10));
        let req = RememberRequest::new(&text, Actor::manual())?;
        let t = Instant::now();
        let report = remember(&ws, &req, &FixedClock(now))?;
        let elapsed = t.elapsed();
        if report.commit.is_none() {
            return Err(format!("in-process run {r} was not committed").into());
        }
        if r >= cfg.warmup {
            ms.push(elapsed.as_secs_f64() * 1000.0);
        }
    }
    let s = Stats::from_ms("episodic, library call in-process", "remember(&ws, &req, &clock)", ms);
    eprintln!("bench-remember: {}: median {:.2} ms", s.case, s.median);
    Ok(s)
}

// ---------------------------------------------------------------------------------------------
// Report

/// Everything the report says besides the timings.
struct Run<'a> {
    cfg: &'a Config,
    facts: &'a Facts,
    generated: Option<&'a Generated>,
    bin: &'a Path,
    load: [Option<String>; 2],
}

fn render(run: &Run<'_>, results: &[Stats], in_process: &Stats) -> String {
    let Run { cfg, facts, generated, bin, load } = run;
    let mut out = String::new();
    let _ = writeln!(out, "## `cogmem remember`, whole process\n");
    let _ = writeln!(
        out,
        "Workspace: {} commits; {} episode entries in {} day files, {} entities, {} procedures, \
         {} vault notes, {} decay entries; {} loose git objects.",
        facts.commits,
        facts.episode_entries,
        facts.episode_days,
        facts.entities,
        facts.procedures,
        facts.vault,
        facts.decay_entries,
        facts.loose_objects
    );
    let sizes: Vec<String> = facts
        .files
        .iter()
        .map(|(rel, bytes)| format!("`{rel}` {:.0} KiB", *bytes as f64 / 1024.0))
        .collect();
    let _ = writeln!(out, "File sizes: {}.", sizes.join(", "));
    let _ = writeln!(
        out,
        "Binary: `{}`. {} timed runs per case after {} warm-up runs; each run writes a distinct \
         memory and commits. 1-minute load average before / after: {} / {}.\n",
        bin.display(),
        cfg.runs,
        cfg.warmup,
        load[0].as_deref().unwrap_or("?"),
        load[1].as_deref().unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "| case | command | runs | min ms | median ms | p95 ms | max ms | median / {TARGET_MS:.0} ms |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
    for s in results.iter().chain([in_process]) {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} |",
            s.case,
            s.command,
            s.runs,
            s.min,
            s.median,
            s.p95,
            s.max,
            s.median / TARGET_MS
        );
    }
    if let Some(g) = generated {
        let tenths: Vec<String> = g.tenths.iter().map(|ms| format!("{ms:.1}")).collect();
        let _ = writeln!(
            out,
            "\nFixture generated in {:.0} s; mean in-process `remember` per tenth of the history \
             (ms): {}.",
            g.seconds,
            tenths.join(", ")
        );
    }
    out
}
