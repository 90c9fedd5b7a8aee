//! The labelled trigger table (tests/fixtures/triggers.tsv): precision and recall per trigger
//! must be at least 0.95. The table was written independently of the detector, as a sample of
//! what users say; run with `--nocapture` to see the figures.

use cogmem_text::trigger::{ExtraPhrases, TriggerKind, classify};

pub(crate) struct Row {
    line: usize,
    pub(crate) label: Option<TriggerKind>,
    pub(crate) message: String,
    content: String,
}

pub(crate) fn rows(file: &str) -> Vec<Row> {
    // The tables sit with the workspace's other fixtures, two levels above this crate.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split('\t');
        let label = parts.next().unwrap().trim();
        let message =
            parts.next().unwrap_or_else(|| panic!("{}:{}: no message", path.display(), i + 1));
        let content = parts.next().unwrap_or("").trim();
        let label = if label == "none" {
            None
        } else {
            Some(
                TriggerKind::parse(label)
                    .unwrap_or_else(|| panic!("{}:{}: bad label {label:?}", path.display(), i + 1)),
            )
        };
        out.push(Row {
            line: i + 1,
            label,
            message: super::routing_table::unescape(message),
            content: content.to_owned(),
        });
    }
    out
}

fn norm(s: &str) -> String {
    s.trim_matches(|c: char| c.is_whitespace() || ".!?。！？".contains(c)).to_lowercase()
}

/// Precision and recall per trigger on a table; returns the triggers below `floor`.
fn evaluate(file: &str, floor: f64) -> Vec<&'static str> {
    let rows = rows(file);
    assert!(rows.len() >= 200, "the table has {} rows", rows.len());
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut wrong = Vec::new();
    let (mut content_ok, mut content_total) = (0, 0);
    for kind in TriggerKind::ALL {
        let (mut tp, mut fp, mut fneg) = (0, 0, 0);
        for r in &rows {
            let got = classify(&r.message, &ExtraPhrases::default()).map(|t| t.kind);
            match (got == Some(kind), r.label == Some(kind)) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fneg += 1,
                _ => {}
            }
        }
        let precision = if tp + fp == 0 { 1.0 } else { f64::from(tp) / f64::from(tp + fp) };
        let recall = if tp + fneg == 0 { 1.0 } else { f64::from(tp) / f64::from(tp + fneg) };
        report.push_str(&format!(
            "| {:<12} | {:>4} | {:>9.3} | {:>6.3} |\n",
            kind.as_str(),
            tp + fneg,
            precision,
            recall
        ));
        if precision < floor || recall < floor {
            failures.push(kind.as_str());
        }
    }
    for r in &rows {
        let got = classify(&r.message, &ExtraPhrases::default());
        if got.as_ref().map(|t| t.kind) != r.label {
            wrong.push(format!(
                "  line {}: want {}, got {}: {}",
                r.line,
                r.label.map_or("none", TriggerKind::as_str),
                got.as_ref().map_or("none", |t| t.kind.as_str()),
                r.message
            ));
        } else if let (
            Some(t),
            Some(TriggerKind::Remember | TriggerKind::Forget | TriggerKind::Recall),
        ) = (&got, r.label)
        {
            content_total += 1;
            if norm(&t.content) == norm(&r.content) {
                content_ok += 1;
            } else {
                wrong.push(format!(
                    "  line {} content: want {:?}, got {:?}",
                    r.line, r.content, t.content
                ));
            }
        }
    }
    let none = rows.iter().filter(|r| r.label.is_none()).count();
    println!(
        "trigger table {file}: {} messages ({none} without a trigger)\n| trigger      | rows | precision | recall |\n|---|---|---|---|\n{report}content exact match: {content_ok}/{content_total}\nmisses:\n{}",
        rows.len(),
        wrong.join("\n")
    );
    failures
}

/// The development table, which the detector's rules were refined against.
#[test]
fn trigger_table_precision_and_recall() {
    let below = evaluate("triggers.tsv", 0.95);
    assert!(below.is_empty(), "below 0.95 on triggers.tsv: {below:?}");
}

/// A second table, written independently; its misses were used for one round of
/// generalising the rules.
#[test]
fn second_trigger_table() {
    let below = evaluate("triggers-heldout.tsv", 0.95);
    assert!(below.is_empty(), "below 0.95 on triggers-heldout.tsv: {below:?}");
}

/// A third table, written independently and measured once before any rule change (those
/// figures, in docs/guide.md, are the honest estimate on unseen messages); its misses were then
/// used for one more generalisation round.
#[test]
fn unseen_trigger_table() {
    let below = evaluate("triggers-fresh.tsv", 0.90);
    assert!(below.is_empty(), "below 0.90 on triggers-fresh.tsv: {below:?}");
}
