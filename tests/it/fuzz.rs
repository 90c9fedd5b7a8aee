//! Hostile-input property tests: every parser of workspace files and user text gets arbitrary
//! strings and structured-random ones (lines assembled from the formats' own tokens, with
//! Unicode, CRLF, BOMs and stray separators mixed in). The properties: no panic, no hang (each
//! case is timed), and output bounded by the input.
//!
//! The number of cases per property is `PROPTEST_CASES` (default 64 here, so the suite adds a
//! few seconds to CI); `scripts/fuzz` runs it with thousands and prints the executions. Every
//! case is seeded from proptest's deterministic RNG (`PROPTEST_RNG_SEED` varies it).

use std::path::Path;
use std::time::{Duration, Instant};

use cogmem::audit::{self, AuditLine};
use cogmem::graph::vocab::Vocabulary;
use cogmem::index::analyzer;
use cogmem::store::decay_file::DecayFile;
use cogmem::store::entity::{self, EntityId};
use cogmem::store::pending::PendingFile;
use cogmem::store::{episode, markdown, reflection, units};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

use crate::common::TestEnv;

/// The slowest a single case may take in a debug build before it counts as a hang.
const MAX_CASE: Duration = Duration::from_secs(5);

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

fn runner() -> TestRunner {
    runner_with(cases())
}

fn runner_with(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        // Shrinking a hang would take forever; a failure is reported with its input anyway.
        max_shrink_iters: 256,
        ..Config::default()
    };
    // Deterministic unless PROPTEST_RNG_SEED is set (proptest reads it for the default RNG).
    let seed: u64 =
        std::env::var("PROPTEST_RNG_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &bytes,
        ),
    )
}

/// Tokens of every format: front matter, headings, list items, links, tables, JSON, OPERATION
/// fields, audit separators, and troublesome characters.
const FRAGMENTS: &[&str] = &[
    "---",
    "...",
    "\n",
    "\r\n",
    "\u{feff}",
    " ",
    "\t",
    "# ",
    "## ",
    "### ",
    "- ",
    "* ",
    "1. ",
    "[[",
    "]]",
    "|",
    "||",
    "`",
    "```",
    "<!--",
    "-->",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ":",
    ",",
    "—",
    "…",
    "…",
    "é",
    "日本語",
    "覚えて",
    "🙂",
    "\u{0}",
    "\u{7f}",
    "\u{202e}",
    "\u{fffd}",
    "type: person",
    "aliases: [a, b]",
    "status: superseded",
    "title: T",
    "tags: [x]",
    "## 14:30 — fact",
    "## 09:05 — decision [confidence: low]",
    "## Facts",
    "## Relations",
    "## Steps",
    "## Identity",
    "## Active Context",
    "## Persona",
    "## Critical Facts",
    "- works-on [[project--atlas]]",
    "- knows [[person--bob|Bob]] (since 2026-01-01)",
    "person--alice",
    "project--atlas",
    "../..",
    "/etc/passwd",
    "C:\\x",
    "OPERATION: EXTRACT",
    "OPERATION: ARCHIVE",
    "OPERATION:",
    "TARGET:",
    "TARGET: memory/x.md",
    "CONTENT:",
    "REASON:",
    "EVOLUTION_CONTEXT:",
    "[Self-Awareness]",
    "2026-12-01T09:00:00Z",
    "2026-12-01T09:00Z",
    "2026-13-45",
    " | EDIT | ",
    " | manual | ",
    " | auto | ",
    "APPEND",
    "ARCHIVE",
    "PURGE",
    "## Proposal #",
    "## Proposal #7",
    "**Status:** pending",
    "**Content:** x",
    "\"units\"",
    "\"score\"",
    ": 1e999",
    ": -0",
    "null",
    "true",
    "[]",
    "{}",
    "\"timestamp\"",
    "\"speaker\"",
    "\"text\"",
    "\"id\"",
    "\"type\"",
    "remember that",
    "forget that",
    "what do you remember about",
    "please",
    "Remember:",
    "忘れて",
    "password=",
    "ghp_",
    "AKIA",
    "-----BEGIN PRIVATE KEY-----",
    "a",
    "0",
    "9999999999999999999999",
];

/// Structured-random text: 0..80 fragments, plus arbitrary characters between them.
fn structured() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(FRAGMENTS).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
            1 => "[a-z ]{0,12}".prop_map(|s| s),
        ],
        0..80,
    )
    .prop_map(|v| v.concat())
}

/// Arbitrary text, or structured text.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![1 => any::<String>(), 3 => structured()]
}

/// Runs one property over `hostile()` input, timing each case.
fn check(name: &str, strategy: impl Strategy<Value = String>, f: impl Fn(&str)) {
    let mut runner = runner();
    let result = runner.run(&strategy, |input| {
        let start = Instant::now();
        f(&input);
        let took = start.elapsed();
        prop_assert!(took < MAX_CASE, "{name}: a case took {took:?} (input {} bytes)", input.len());
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    // Read by scripts/fuzz (with --nocapture) to count the executions.
    eprintln!("fuzz-executions {name}: {}", cases());
}

fn bounded(what: &str, out: usize, input: &str) {
    assert!(out <= input.len() + 1, "{what}: {out} items from {} bytes", input.len());
}

#[test]
fn front_matter_and_markdown_sections() {
    check("front matter", hostile(), |t| {
        let (offset, fm) = markdown::split_front_matter(t);
        assert!(offset <= t.len());
        if let Some(fm) = fm {
            assert!(fm.len() <= t.len());
        }
        let body = t.get(offset..).unwrap_or("");
        let secs = markdown::sections(body);
        bounded("sections", secs.len(), t);
        // A section appended to any body is found again (entity, core and procedure writers
        // rely on it).
        let out = markdown::append_section(t, "Facts");
        assert!(
            markdown::find_section(&markdown::sections(&out), "Facts").is_some(),
            "{t:?} -> {out:?}"
        );
        let _ = markdown::slugify(t);
        let _ = markdown::normalize(t);
        let _ = markdown::paragraph(t);
    });
}

#[test]
fn entity_files() {
    let id = EntityId::parse("person--alice").unwrap();
    check("entity", hostile(), |t| {
        bounded("names", entity::names(&id, t).len(), t);
        bounded("relations", entity::relations(t).len(), t);
        let _ = entity::status(t);
        let _ = EntityId::parse(t);
        let _ = entity::add_fact(t, "a fact", "2026-12-01");
        let u = units::file_units("memory/graph/entities/person--alice.md", t);
        assert_eq!(u.len(), 1);
    });
}

#[test]
fn episode_files() {
    check("episode", hostile(), |t| {
        bounded("entries", episode::entries(t).len(), t);
        for line in t.lines() {
            let _ = episode::heading_time(line);
        }
        bounded("units", units::file_units("memory/episodes/2026-12-01.md", t).len(), t);
        let _ = episode::EntryType::parse(t);
    });
}

#[test]
fn memory_md_procedures_and_vault() {
    check("MEMORY.md", hostile(), |t| {
        bounded("core units", units::core_units(t).len(), t);
        bounded("bullets", cogmem::store::core_memory::count_bullets(t), t);
        let _ = cogmem::store::core_memory::CoreSection::parse(t);
        let _ = units::file_units("memory/procedures/deploy.md", t);
        let _ = units::file_units("memory/vault/note.md", t);
        bounded("steps", cogmem::store::procedure::steps_from_text(t).len(), t);
        let _ = units::wiki_links(t);
    });
}

#[test]
fn relations_md() {
    check("relations.md", hostile(), |t| {
        let v = Vocabulary::parse(t);
        let _ = format!("{v:?}").len();
        let _ = entity::check_relation_name(t);
    });
}

/// JSON-shaped text for decay-scores.json and import lines.
fn jsonish() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<String>(),
        2 => structured().prop_map(|s| format!("{{\"units\": {{\"x\": {s}}}}}")),
        2 => structured(),
        1 => prop::collection::vec(
            ("[a-z:0-9-]{0,12}", prop_oneof![
                Just("1".to_owned()), Just("null".to_owned()), Just("\"2026-12-01\"".to_owned()),
                Just("{}".to_owned()), Just("[1,2]".to_owned()), Just("-1e308".to_owned()),
                "\"[^\"\\\\]{0,10}\"".prop_map(|s| s),
            ]),
            0..8,
        )
        .prop_map(|kv| {
            let inner: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{\"units\": {{\"episode:1\": {{{}}}}}}}", inner.join(","))
        }),
    ]
}

#[test]
fn decay_scores_json() {
    let path = Path::new("memory/meta/decay-scores.json");
    check("decay-scores.json", jsonish(), |t| {
        if let Ok(d) = DecayFile::parse(t, path) {
            // What parses also writes back, and that parses again.
            let again = d.to_text();
            assert!(DecayFile::parse(&again, path).is_ok(), "round trip of {t:?} gave {again:?}");
        }
    });
}

#[test]
fn audit_log() {
    check("audit.log", hostile(), |t| {
        let (lines, bad) = audit::parse_log(t);
        bounded("audit lines", lines.len() + bad.len(), t);
        for l in t.lines() {
            if let Ok(Some(parsed)) = AuditLine::parse(l) {
                // A parsed line formats to one line that parses to the same action and file.
                let text = parsed.format();
                assert!(!text.contains('\n'));
                let back = AuditLine::parse(&text).unwrap().unwrap();
                assert_eq!((back.action, back.file.trim()), (parsed.action, parsed.file.trim()));
            }
        }
        let s = audit::clean_summary(t);
        assert!(s.chars().count() <= 100 && !s.contains('|') && !s.contains('\n'));
    });
}

#[test]
fn jsonl_import_lines() {
    let now = chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z").unwrap();
    let lines = prop_oneof![
        3 => jsonish(),
        2 => (structured(), structured(), structured(), structured()).prop_map(|(a, b, c, d)| {
            serde_json::json!({"timestamp": a, "speaker": b, "text": c, "id": d, "type": "fact"}).to_string()
        }),
    ];
    check("import line", lines, |t| {
        let _ = cogmem::ops::import::check_line(t, "chat", 1, &now);
    });
}

#[test]
fn operation_blocks_and_reflection_files() {
    check("OPERATION blocks", hostile(), |t| {
        let ops = reflection::operations(t);
        bounded("operations", ops.len(), t);
        let _ = reflection::self_awareness(t);
        let _ = reflection::split_entries(t);
        let _ = reflection::RewardFile::parse(t);
        let _ = reflection::submission_text(t);
        let _ = reflection::last_number(t);
        let _ = reflection::overview(t, "Last reflection");
        let _ = reflection::set_overview(t, "Last reflection", "x");
        let p = PendingFile::parse(t);
        bounded("proposals", p.proposals.len(), t);
    });
}

#[test]
fn settings_files() {
    check("cogmem.toml", hostile(), |t| {
        let _ = cogmem::settings::Settings::parse(t, Path::new("cogmem.toml"));
    });
}

#[test]
fn query_text_triggers_and_routing() {
    let extra = cogmem::trigger::ExtraPhrases::default();
    let known = vec!["Alice".to_owned(), "Atlas".to_owned()];
    let ctx = cogmem::route::RouteContext::default();
    check("query text", hostile(), |t| {
        bounded("query terms", analyzer::query_terms(t).len(), t);
        bounded("terms", analyzer::terms(t).len(), t);
        bounded("unit terms", units::terms(t).len(), t);
        let _ = cogmem::index::search::snippet(t, t, 80);
        let _ = cogmem::trigger::classify_known(t, &extra, &known);
        let r = cogmem::route::route(t, None, &ctx);
        assert!(!r.stores.is_empty());
        let _ = cogmem::route::RoutingAnswer::parse(t);
        let found = cogmem::secrets::scan(t);
        bounded("secrets", found.len(), t);
        for f in found {
            assert!(f.excerpt.chars().count() <= 60, "{f:?}");
        }
        if cogmem::store::fsx::check_relative("path", t).is_ok() {
            // An accepted relative path never climbs out of the folder it is joined to.
            let joined = Path::new("/ws").join(t);
            assert!(
                joined.starts_with("/ws")
                    && !joined.components().any(|c| c == std::path::Component::ParentDir),
                "{t:?}"
            );
        }
        let n = cogmem::ops::purge::Needles::new(&[t], None, None, &[], &[]);
        let _ = n.scrub(t);
    });
}

#[test]
fn purge_scrubbing_leaves_no_copy_of_the_text() {
    let strategy =
        ("[a-z0-9]{3,10}( [a-z0-9]{2,10}){1,4}".prop_map(|s| s), hostile(), hostile(), 0..4usize);
    let mut runner = runner();
    let result = runner.run(&strategy, |(text, before, after, copies)| {
        prop_assume!(!text.contains("purged"));
        let n = cogmem::ops::purge::Needles::new(&[&text], None, None, &[], &[]);
        let json = serde_json::to_string(&text).unwrap();
        let blob = format!("{before}{}{json}{after}", format!("- {text}\n").repeat(copies + 1));
        let out = n.scrub(&blob).unwrap_or(blob);
        prop_assert!(!out.contains(&text), "{text:?} survives in {out:?}");
        Ok(())
    });
    if let Err(e) = result {
        panic!("purge scrub: {e}");
    }
    eprintln!("fuzz-executions purge scrub: {}", cases());
}

/// Multi-line text with tabs, `|`, headings and list markers, written in every form cogmem's
/// writers give it (an episode paragraph, a bullet, a cut or whole audit summary, JSON), inside
/// hostile surroundings: after the scrub, none of its distinctive words is left.
// See: issue 16
#[test]
fn purge_scrubbing_cuts_every_form_the_writers_give() {
    let line = "[a-z]{3,8}( [a-z|]{2,8}){2,5}";
    let strategy = (
        prop::collection::vec(line.prop_map(|s| s), 1..4),
        prop::sample::select(vec!["\n", "\n\t", "\n  ", " | ", "\n- "]),
        hostile(),
        hostile(),
    );
    let mut runner = runner();
    let result = runner.run(&strategy, |(lines, sep, before, after)| {
        let token = "zq7731-amber-falcon";
        let text = format!("{} {token}", lines.join(sep));
        prop_assume!(!before.contains("falcon") && !after.contains("falcon"));
        let n = cogmem::ops::purge::Needles::new(&[&text], None, None, &[], &[]);
        let summary = cogmem::audit::clean_summary(&format!("09:00 fact: {text}"));
        let blob = format!(
            "{before}\n## 09:00 | fact\n{}\n- {}\n{summary}\n{}\n{after}",
            cogmem::store::markdown::paragraph(&text),
            cogmem::store::markdown::one_line(&text),
            serde_json::to_string(&text).unwrap(),
        );
        let out = n.scrub(&blob).unwrap_or(blob);
        prop_assert!(!out.contains(token), "{text:?} survives in {out:?}");
        Ok(())
    });
    if let Err(e) = result {
        panic!("purge forms: {e}");
    }
    eprintln!("fuzz-executions purge forms: {}", cases());
}

/// The tombstone file: hostile text parses or is refused with a line number, never panics;
/// what parses renders back to a file that parses to the same entries.
// See: issue 16
#[test]
fn purge_tombstone_files() {
    use cogmem::store::purged::{Tombstones, append};
    check("purge tombstones", hostile(), |t| {
        let path = Path::new("memory/meta/purged");
        match Tombstones::parse(path, t) {
            Ok(parsed) => {
                let mut text = String::new();
                for e in &parsed.entries {
                    text = append(Some(&text), e);
                }
                let back = Tombstones::parse(path, &text).unwrap();
                assert_eq!(back.entries.len(), parsed.entries.len());
                let _ = parsed.holds(t);
            }
            Err(e) => assert!(e.to_string().starts_with("memory/meta/purged:"), "{e}"),
        }
    });
}

#[test]
fn search_queries_end_to_end() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice prefers green tea over coffee"]).success();
    env.run(["remember", "--entity", "project--atlas", "Atlas uses Postgres 17"]).success();
    env.run(["remember", "--store", "core", "明日の会議は10時"]).success();
    let ws = &cogmem::Workspace::open(&env.root).unwrap();
    let clock =
        cogmem::FixedClock(chrono::DateTime::parse_from_rfc3339("2026-12-02T09:00:00Z").unwrap());
    let opts = cogmem::index::search::SearchOptions { limit: 10, ..Default::default() };
    check("search", hostile(), |t| {
        if let Ok(r) = cogmem::ops::search::search(ws, t, &opts, &clock) {
            assert!(r.hits.len() <= 10);
        }
    });
}

/// Large structured inputs (up to ~64 KiB, the default text limit) through every text-level
/// parser: one case in a hundred (at least 4), so a quadratic path shows up as a hang.
#[test]
fn large_inputs_stay_linear() {
    let big = prop::collection::vec(prop::sample::select(FRAGMENTS), 2_000..8_000)
        .prop_map(|v| v.concat());
    let cases = (cases() / 100).max(4);
    let mut runner = runner_with(cases);
    let id = EntityId::parse("person--alice").unwrap();
    let extra = cogmem::trigger::ExtraPhrases::default();
    let ctx = cogmem::route::RouteContext::default();
    let result = runner.run(&big, |t| {
        let start = Instant::now();
        let _ = markdown::sections(&t);
        let _ = markdown::append_section(&t, "Facts");
        let _ = entity::names(&id, &t);
        let _ = entity::relations(&t);
        let _ = episode::entries(&t);
        let _ = units::core_units(&t);
        let _ = units::file_units("memory/episodes/2026-12-01.md", &t);
        let _ = reflection::operations(&t);
        let _ = PendingFile::parse(&t);
        let _ = audit::parse_log(&t);
        let _ = Vocabulary::parse(&t);
        let _ = analyzer::query_terms(&t);
        let _ = cogmem::trigger::classify_known(&t, &extra, &[]);
        let _ = cogmem::route::route(&t, None, &ctx);
        let _ = cogmem::secrets::scan(&t);
        let took = start.elapsed();
        prop_assert!(took < MAX_CASE * 2, "{} bytes took {took:?}", t.len());
        Ok(())
    });
    if let Err(e) = result {
        panic!("large inputs: {e}");
    }
    eprintln!("fuzz-executions large inputs: {cases}");
}

/// Regression inputs found while building the suite, kept as plain tests.
#[test]
fn regressions() {
    // An unclosed code fence swallowed the appended `## Facts` heading, and `add_fact` panicked
    // on "the section exists now" (found by `entity_files`, minimal input "```"). The same held
    // for MEMORY.md sections and procedure steps.
    for body in ["```", "````\ncode", "~~~", "<!-- open comment", "<pre>", "- ```", "> ```\n"] {
        match entity::add_fact(body, "Alice likes tea", "2026-12-01") {
            entity::Added::Written { content, .. } => {
                assert!(content.contains("- Alice likes tea"));
            }
            entity::Added::Duplicate { .. } => panic!("{body:?}"),
        }
        let _ = cogmem::store::core_memory::add_bullet(
            body,
            cogmem::store::core_memory::CoreSection::parse("persona").unwrap(),
            "x",
        );
        let _ = cogmem::store::procedure::add_steps(body, &["step".to_owned()]);
    }
    let id = EntityId::parse("person--alice").unwrap();
    for t in [
        "",
        "\u{feff}",
        "---",
        "---\n",
        "\u{feff}---\n---",
        "---\r\n...\r\n",
        "## \n",
        "[[",
        "[[|]]",
    ] {
        let _ = markdown::split_front_matter(t);
        let _ = entity::names(&id, t);
        let _ = entity::relations(t);
        let _ = episode::entries(t);
        let _ = reflection::operations(t);
        let _ = units::core_units(t);
        let _ = cogmem::secrets::scan(t);
    }
}
