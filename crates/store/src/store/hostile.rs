//! Hostile field values for the formats' property tests (issue 16, item 4): every format's
//! writer gets ids, names, tags, titles and reasons built from the tokens of every format
//! (comment delimiters, headings, list markers, table bars, front matter fences, wiki links,
//! line breaks of every kind, NUL), arbitrary Unicode, and very long values; its parser must
//! read back one entry with the fields as written (or their documented escaped form).
//!
//! The runner is seeded, so every run tries the same cases.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, TestRng, TestRunner};

/// Tokens that mean something in some format cogmem writes.
const FRAGMENTS: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "\u{0}",
    "\t",
    "\u{b}",
    "\u{c}",
    "\u{1b}[31m",
    " ",
    "  ",
    "<!--",
    "-->",
    "--",
    "-",
    ">",
    "<",
    "#",
    "# ",
    "## ",
    "### ",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "2) ",
    "|",
    "||",
    "---",
    "...",
    "===",
    "```",
    "~~~",
    "[[",
    "]]",
    "[",
    "]",
    ",",
    ":",
    "**",
    "**:",
    "\\",
    "\\n",
    "\\u{20}",
    "a",
    "word",
    "Zoë",
    "日本語",
    "🙂",
    "\u{202e}",
    "\u{feff}",
    "\u{fffd}",
    "## 09:00 | decision | confidence:high | tags:[]",
    "## Proposal #9",
    "## Reflection #9",
    "## Relations",
    "## Facts",
    "## Steps",
    "## Summary",
    "## Critical Facts",
    "<!-- source: D9:9 -->",
    "<!-- entities: [[person--eve]] -->",
    "<!-- deleted by cogmem forget --permanent on 2026-01-01 -->",
    "- **Status**: committed",
    "- works-on: [[project--atlas]]",
    "Aliases: evil",
    "Tags: evil",
    "Created: 1999-01-01",
    "Learned: 1999-01-01",
    "Last updated: 1999-01-01",
    "Pinned: no",
    " #",
    "### Recent (Full Detail)",
    "[Self-Awareness] forged",
    "Status: merged",
    "Awaiting your decision.",
    "**Granted:** 999",
    "2026-12-01T09:00:00Z | DELETE | MEMORY.md | manual | — | forged",
    "status: merged",
    "type: person",
];

/// Line breaks of every kind, to put a token at the start of a line.
const BREAKS: &[&str] = &["\n", "\r\n", "\r", "\u{2028}", "\n\n", "\n  "];

/// One hostile field value.
pub(crate) fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(prop::sample::select(FRAGMENTS), 0..10).prop_map(|v| v.concat()),
        4 => (
            prop::collection::vec(prop::sample::select(FRAGMENTS), 1..6),
            prop::sample::select(BREAKS),
        )
            .prop_map(|(v, br)| v.join(br)),
        2 => any::<String>(),
        1 => (prop::sample::select(FRAGMENTS), prop::sample::select(FRAGMENTS), 300usize..2000)
            .prop_map(|(a, b, n)| format!("{a}{}", b.repeat(n))),
    ]
}

/// A seeded runner for `cases` cases (kept small: the suite runs on 2 cores).
pub(crate) fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        max_shrink_iters: 1024,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[16; 32]))
}

/// The lines that are comments (a line starting `<!--`): each must also end its comment on
/// that line, with no other delimiter inside, so no value opened or closed one.
pub(crate) fn comment_lines(text: &str) -> Result<Vec<&str>, TestCaseError> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("<!--") {
            prop_assert!(
                t.ends_with("-->")
                    && t.matches("<!--").count() == 1
                    && t.matches("-->").count() == 1,
                "a comment line opens or closes more than one comment: {t:?}"
            );
            out.push(t);
        }
    }
    Ok(out)
}

/// Checks that no line outside the comment lines holds a comment delimiter: for formats whose
/// every line is built from fields (no free paragraph).
pub(crate) fn no_stray_delimiters(text: &str) -> Result<(), TestCaseError> {
    for line in text.lines().map(str::trim).filter(|t| !t.starts_with("<!--")) {
        prop_assert!(
            !line.contains("<!--") && !line.contains("-->"),
            "a field opens or closes a comment: {line:?}"
        );
    }
    Ok(())
}

/// The Markdown headings of `text` (level and title), as `markdown::sections` finds them.
pub(crate) fn headings(text: &str) -> Vec<(u8, String)> {
    super::markdown::sections(text).into_iter().map(|s| (s.level, s.title)).collect()
}
