//! `cogmem remember` as the workspace and its history grow (issue 20, item 2): the same
//! writes timed on fixtures of several sizes in ONE run, their runs interleaved (one run on
//! each fixture in turn), so that whatever else the machine does weighs on every size alike,
//! and each size's median and p95 given as a ratio to the first size's.
//!
//! Selected by `COGMEM_BENCH_COMMITS` (see `benches/remember.rs`): `COGMEM_BENCH_MEMORIES` and
//! `COGMEM_BENCH_COMMITS` are then lists of the same length (`"10000 100000"`), one fixture per
//! pair, built by `scripts/gen-workspace OUT --memories M` and `scripts/gen-history OUT
//! --commits C` under `target/bench-fixtures/growth-M-C/` (minutes for 100,000) and reused
//! while their stamp matches.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Res, Stats, clone_workspace, hold_off_packing, load_average, refresh_index, words};
use cogmem::{FixedClock, Workspace};

/// Bump when what the fixtures are made of changes, so cached ones are rebuilt.
const GROWTH_VERSION: u32 = 1;

/// One size: its fixture, the copy the runs write to, and what it holds.
struct Size {
    memories: usize,
    commits: usize,
    work: PathBuf,
    /// A time just after the fixture's history: the runs' clock starts there.
    now: FixedClock,
    /// The entity the semantic case adds facts to: the largest entity file.
    entity: String,
    facts: String,
}

/// Parses a list of sizes: `10000 100000`, `10k,100k`, `1m`.
pub(crate) fn sizes(name: &str, text: &str) -> Res<Vec<usize>> {
    text.split([' ', ',', ';'])
        .filter(|t| !t.is_empty())
        .map(|t| {
            let t = t.trim().to_ascii_lowercase();
            let (digits, mult) = match t.strip_suffix('k') {
                Some(d) => (d.to_owned(), 1_000),
                None => match t.strip_suffix('m') {
                    Some(d) => (d.to_owned(), 1_000_000),
                    None => (t.clone(), 1),
                },
            };
            digits.parse::<usize>().map(|n| n * mult).map_err(|_| {
                format!("{name}={text}: expected whole numbers like 10000 or 10k").into()
            })
        })
        .collect()
}

fn label(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n.is_multiple_of(1_000_000) => format!("{}m", n / 1_000_000),
        n if n >= 1_000 && n.is_multiple_of(1_000) => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

/// Runs the growth comparison and prints its Markdown report.
pub(crate) fn run(bin: &Path, fixtures: &Path, runs: usize, warmup: usize) -> Res<()> {
    let memories = sizes(
        "COGMEM_BENCH_MEMORIES",
        &std::env::var("COGMEM_BENCH_MEMORIES").unwrap_or_else(|_| "10000 100000".into()),
    )?;
    let commits =
        sizes("COGMEM_BENCH_COMMITS", &std::env::var("COGMEM_BENCH_COMMITS").unwrap_or_default())?;
    if memories.len() != commits.len() || memories.is_empty() {
        return Err(format!(
            "COGMEM_BENCH_MEMORIES ({}) and COGMEM_BENCH_COMMITS ({}) must list as many sizes",
            memories.len(),
            commits.len()
        )
        .into());
    }
    let regen = std::env::var("COGMEM_BENCH_REGEN").is_ok_and(|v| !v.is_empty() && v != "0");
    let mut all = Vec::new();
    for (&m, &c) in memories.iter().zip(&commits) {
        all.push(prepare(bin, fixtures, m, c, regen)?);
    }
    let load_before = load_average();
    // (case, size) → times, interleaved: run r of every size before run r + 1 of any.
    let mut episodic: Vec<Vec<f64>> = vec![Vec::new(); all.len()];
    let mut semantic: Vec<Vec<f64>> = vec![Vec::new(); all.len()];
    for r in 0..warmup + runs {
        for (k, size) in all.iter().enumerate() {
            let now = size.now.0 + Duration::from_secs(120 * r as u64);
            let text = format!("Growth episode {r} at {now}: {}", words(r as u64 * 7 + 1, 10));
            let ms = time_remember(bin, size, &now.to_rfc3339(), &[text])?;
            if r >= warmup {
                episodic[k].push(ms);
            }
            let now = now + Duration::from_secs(60);
            let text = format!("Growth fact {r} at {now}: {}", words(r as u64 * 11 + 3, 8));
            let args = [text, "--entity".to_owned(), size.entity.clone()];
            let ms = time_remember(bin, size, &now.to_rfc3339(), &args)?;
            if r >= warmup {
                semantic[k].push(ms);
            }
        }
        if (r + 1) % 10 == 0 {
            eprintln!("bench-remember: growth: {}/{} rounds", r + 1, warmup + runs);
        }
    }
    let load = [load_before, load_average()];
    print!("{}", render(&all, &episodic, &semantic, runs, warmup, bin, &load));
    Ok(())
}

/// Builds (or reuses) the fixture of one size and copies it for the runs.
fn prepare(bin: &Path, fixtures: &Path, m: usize, c: usize, regen: bool) -> Res<Size> {
    let name = format!("growth-{}-{}", label(m), label(c));
    let fixture = fixtures.join(&name);
    let stamp = fixtures.join(format!("{name}.stamp"));
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let valid = !regen
        && fs::read_to_string(&stamp).ok().is_some_and(|s| {
            let head = git_head(&fixture).unwrap_or_default();
            s.starts_with(&format!("growth={GROWTH_VERSION}\n"))
                && s.contains(&format!("head={head}\n"))
        });
    let now = if valid {
        eprintln!(
            "bench-remember: reusing {} (COGMEM_BENCH_REGEN=1 rebuilds it)",
            fixture.display()
        );
        let s = fs::read_to_string(&stamp)?;
        s.lines().find_map(|l| l.strip_prefix("now=")).ok_or("stamp without now=")?.to_owned()
    } else {
        let started = Instant::now();
        eprintln!("bench-remember: building {name} with gen-workspace and gen-history (minutes)");
        let _ = fs::remove_file(&stamp);
        run_script(
            &scripts.join("gen-workspace"),
            &[
                fixture.as_os_str(),
                "--memories".as_ref(),
                m.to_string().as_ref(),
                "--force".as_ref(),
                "--cogmem".as_ref(),
                bin.as_os_str(),
            ],
        )?;
        let out = run_script(
            &scripts.join("gen-history"),
            &[
                fixture.as_os_str(),
                "--commits".as_ref(),
                c.to_string().as_ref(),
                "--cogmem".as_ref(),
                bin.as_os_str(),
            ],
        )?;
        let stats: serde_json::Value = serde_json::from_str(out.trim())?;
        let now = stats["cogmem_now"].as_str().ok_or("gen-history printed no cogmem_now")?;
        let head = git_head(&fixture)?;
        fs::write(
            &stamp,
            format!("growth={GROWTH_VERSION}\nmemories={m}\ncommits={c}\nhead={head}\nnow={now}\n"),
        )?;
        eprintln!("bench-remember: {name} built in {:.0} s", started.elapsed().as_secs_f64());
        now.to_owned()
    };
    let mut now = FixedClock::parse(&now).ok_or("bad now= in the stamp")?;
    let work = fixtures.join(format!("{name}-run"));
    // COGMEM_BENCH_REUSE=1: time on the copy an earlier run left (already indexed; at 100,000
    // memories the copy and its reindex take minutes), from an hour after its last commit.
    let reuse = std::env::var("COGMEM_BENCH_REUSE").is_ok_and(|v| !v.is_empty() && v != "0")
        && work.join(".cogmem/index/meta.json").is_file();
    if reuse {
        let repo = cogmem::git::open(&work)?;
        let head = repo.head()?.peel_to_commit()?.time().seconds();
        let t = chrono::DateTime::from_timestamp(head + 3600, 0).ok_or("bad HEAD time")?;
        now = FixedClock(t.fixed_offset());
        eprintln!("bench-remember: reusing the copy {}", work.display());
        let entity = largest_entity(&work)?;
        let facts = describe(&work)?;
        return Ok(Size { memories: m, commits: c, work, now, entity, facts });
    }
    clone_workspace(&fixture, &work)?;
    refresh_index(&work);
    hold_off_packing(&work)?;
    // The index as the last write left it: gen-history's commits are indexed here, untimed.
    let reindex = Command::new(bin)
        .args(["--quiet", "--workspace"])
        .arg(&work)
        .arg("reindex")
        .env("COGMEM_NOW", now.0.to_rfc3339())
        .stdin(Stdio::null())
        .status()?;
    if !reindex.success() {
        return Err(format!("cogmem reindex failed on {}", work.display()).into());
    }
    let entity = largest_entity(&work)?;
    let facts = describe(&work)?;
    Ok(Size { memories: m, commits: c, work, now, entity, facts })
}

fn run_script(script: &Path, args: &[&std::ffi::OsStr]) -> Res<String> {
    let out = Command::new("python3").arg(script).args(args).stderr(Stdio::inherit()).output()?;
    if !out.status.success() {
        return Err(format!("{} failed ({})", script.display(), out.status).into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn git_head(ws: &Path) -> Res<String> {
    let repo = cogmem::git::open(ws)?;
    Ok(cogmem::git::head_id(&repo)?.ok_or("no commit")?.to_string())
}

/// The id of the largest entity file: the busiest entity, where a fact costs the most.
fn largest_entity(ws: &Path) -> Res<String> {
    let mut best: Option<(u64, String)> = None;
    for e in fs::read_dir(ws.join("memory/graph/entities"))? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".md") else { continue };
        let len = e.metadata()?.len();
        if best.as_ref().is_none_or(|(l, _)| len > *l) {
            best = Some((len, id.to_owned()));
        }
    }
    Ok(best.ok_or("the fixture has no entity")?.1)
}

/// What a fixture holds: commits, units, packs, loose objects, index segments.
fn describe(ws_root: &Path) -> Res<String> {
    let ws = Workspace::open(ws_root)?;
    let s = cogmem::ops::status::status(&ws, 1)?;
    let repo = cogmem::git::open(ws_root)?;
    let mut walk = repo.revwalk()?;
    walk.push_head()?;
    let commits = walk.count();
    let count = |dir: &Path, ext: Option<&str>| -> usize {
        fs::read_dir(dir).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| ext.is_none_or(|x| e.path().extension().is_some_and(|y| y == x)))
                .count()
        })
    };
    let packs = count(&ws_root.join(".git/objects/pack"), Some("pack"));
    let mut loose = 0;
    for b in 0..=255u8 {
        loose += count(&ws_root.join(format!(".git/objects/{b:02x}")), None);
    }
    let meta = fs::read_to_string(ws_root.join(".cogmem/index/meta.json")).unwrap_or_default();
    let segments = serde_json::from_str::<serde_json::Value>(&meta)
        .ok()
        .and_then(|v| v["segments"].as_array().map(Vec::len))
        .unwrap_or(0);
    Ok(format!(
        "{commits} commits; {} episode entries in {} day files, {} entities, {} decay entries; \
         {packs} packs, {loose} loose objects; {segments} index segments",
        s.counts.episodes, s.counts.episode_days, s.counts.entities, s.counts.decay_entries
    ))
}

fn time_remember(bin: &Path, size: &Size, now: &str, args: &[String]) -> Res<f64> {
    let mut cmd = Command::new(bin);
    cmd.arg("--workspace")
        .arg(&size.work)
        .arg("remember")
        .args(args)
        .env("COGMEM_NOW", now)
        .env("NO_COLOR", "1")
        .env_remove("COGMEM_WORKSPACE")
        .env_remove("COGMEM_ACTOR")
        .env_remove("COGMEM_TIMINGS")
        .stdin(Stdio::null());
    let t = Instant::now();
    let out = cmd.output()?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // "remembered (commit …)": a duplicate or a refusal must not pass as a fast run.
    if !out.status.success() || !stderr.contains("remembered (commit") {
        return Err(format!(
            "`cogmem remember {}` on {} failed ({}):\n{stdout}{stderr}",
            args.join(" "),
            size.work.display(),
            out.status,
        )
        .into());
    }
    Ok(ms)
}

fn render(
    all: &[Size],
    episodic: &[Vec<f64>],
    semantic: &[Vec<f64>],
    runs: usize,
    warmup: usize,
    bin: &Path,
    load: &[Option<String>; 2],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## `cogmem remember` as the workspace and its history grow\n");
    for s in all {
        let _ = writeln!(
            out,
            "- {} memories, {} commits of history (`{}`): {}.",
            label(s.memories),
            label(s.commits),
            s.work.display(),
            s.facts
        );
    }
    let _ = writeln!(
        out,
        "\nBinary: `{}`. {runs} timed runs per case and size after {warmup} warm-up runs, \
         interleaved across the sizes; each run writes a distinct memory and commits. 1-minute \
         load average before / after: {} / {}.\n",
        bin.display(),
        load[0].as_deref().unwrap_or("?"),
        load[1].as_deref().unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "| case | memories / commits | runs | min ms | median ms | p95 ms | max ms | median ratio | p95 ratio |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (case, times) in [("episodic", episodic), ("semantic (`--entity`, busiest)", semantic)] {
        let stats: Vec<Stats> =
            times.iter().map(|ms| Stats::from_ms("growth", "remember", ms.clone())).collect();
        for (s, st) in all.iter().zip(&stats) {
            let _ = writeln!(
                out,
                "| {case} | {} / {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} |",
                label(s.memories),
                label(s.commits),
                st.runs,
                st.min,
                st.median,
                st.p95,
                st.max,
                st.median / stats[0].median,
                st.p95 / stats[0].p95
            );
        }
    }
    out
}
