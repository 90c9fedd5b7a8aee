//! The labelled routing tables (issue 18): for each message, the trigger it should fire and, for
//! a remember request, the stores its memory belongs in (main store first). Five tables, each
//! written by a different person who saw neither the rules nor the other tables:
//! - `tests/fixtures/routing-tune.tsv`, which the routing rules were written and tuned on;
//! - `routing-report.tsv`, measured once unseen after the first round (trigger 0.883, store
//!   0.842), then the second round's tuning set;
//! - `routing-final.tsv`, measured once unseen after the second round (trigger 0.924, store
//!   0.925), then the third round's tuning set;
//! - `routing-fresh.tsv`, measured once unseen after the third round (trigger 0.943, store
//!   0.928), then the fourth round's tuning set (trigger 1.000, store 0.995 after it).
//!
//! - `routing-holdout.tsv`, measured once unseen after the fourth round (trigger 0.932, store
//!   0.931), then the fifth round's tuning set for the trigger (the structural recall rule in
//!   `trigger/asked.rs` and the Japanese keeping verb before a colon; trigger 1.000 after it).
//! - `routing-blind.tsv`, measured once unseen after the fifth round (trigger 0.923, store
//!   0.923), then round 6's tuning set for the trigger (keeping requests as their own clause
//!   anywhere, `trigger/anywhere.rs`; trigger 1.000 after it).
//!   A new round of rules needs a new table to report on.
//! - `routing-seventh.tsv`, measured once unseen after round 6 (trigger 0.910, store 0.897).
//! - `routing-eighth.tsv` and `routing-ninth.tsv`, written blind for the learned models
//!   (`cogmem_text::trigger::learned`): with the seventh they chose the models' settings, and all
//!   three are now training tables.
//! - `routing-tenth.tsv` and `routing-eleventh.tsv`, written blind and measured once with the
//!   first shipped models (trigger 0.950 / 0.958, store 0.918 / 0.923), then round 8's tuning set
//!   (standing orders, keeping labels) and training tables.
//! - `routing-twelfth.tsv` and `routing-thirteenth.tsv`, written blind and measured once after
//!   round 8 (trigger 0.967 / 0.931, store 0.922 / 0.934), then round 9's tuning set and
//!   training tables.
//! - `routing-fourteenth.tsv` and `routing-fifteenth.tsv`, written blind and measured once after
//!   round 9 (trigger 0.969 / 0.958, store 0.964 / 0.947), then round 10's tuning set and
//!   training tables.
//! - `routing-sixteenth.tsv` and `routing-seventeenth.tsv`, written blind and measured once after
//!   round 10 (trigger 0.973 / 0.970, store 0.968 / 0.944): the honest figures, never trained or
//!   tuned on.
//!
//! Run with `--nocapture` to see the figures and the rows each table gets wrong:
//!
//! ```sh
//! cargo test -p cogmem-text --test rules routing_table -- --nocapture
//! ```

use std::collections::BTreeMap;

use cogmem_text::model::Store;
use cogmem_text::route::{RouteContext, route};
use cogmem_text::trigger::{ExtraPhrases, TriggerKind, classify};

/// The floors on the final table. Measured once unseen (store 0.925, trigger 0.924), it was then
/// the third round's tuning set, so, like the other two, it holds the issue's goals.
const FINAL_STORE_FLOOR: f64 = 0.90;
/// See [`FINAL_STORE_FLOOR`].
const FINAL_TRIGGER_FLOOR: f64 = 0.97;

/// The floors on the fresh table. Measured once unseen (trigger 0.943, store 0.928), it was then
/// the fourth round's tuning set, so it holds the issue's trigger goal; the store floor stays at
/// its unseen measurement, above the goal.
const FRESH_STORE_FLOOR: f64 = 0.92;
/// See [`FRESH_STORE_FLOOR`].
const FRESH_TRIGGER_FLOOR: f64 = 0.97;

/// The floors on the holdout table. The store floor is its one measurement unseen (store 0.931,
/// rounded down); the trigger floor is its figure after the fifth round tuned the trigger on it
/// (0.932 unseen, 1.000 after, held at 0.99), so a rule change that loses ground fails here.
const HOLDOUT_STORE_FLOOR: f64 = 0.93;
/// The floors on the blind table. Measured once unseen after round 5 (trigger 0.923, store
/// 0.923), it was then round 6's tuning set (trigger 1.000, store 0.934 after it): the trigger
/// floor holds the tuned figure (0.99), the store floor its figure after round 6 rounded down.
const BLIND_STORE_FLOOR: f64 = 0.93;
/// See [`BLIND_STORE_FLOOR`].
const BLIND_TRIGGER_FLOOR: f64 = 0.99;
/// See [`HOLDOUT_STORE_FLOOR`].
const HOLDOUT_TRIGGER_FLOOR: f64 = 0.99;

pub(crate) struct Row {
    line: usize,
    pub(crate) label: Option<TriggerKind>,
    pub(crate) stores: Vec<Store>,
    pub(crate) message: String,
}

fn path(file: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(file)
}

pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

pub(crate) fn rows(file: &str) -> Vec<Row> {
    let path = path(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), i + 1);
        let parts: Vec<&str> = line.split('\t').collect();
        let [label, stores, message] = parts[..] else {
            panic!("{}: want LABEL<TAB>STORES<TAB>MESSAGE, got {} fields", at(), parts.len());
        };
        let label = match label.trim() {
            "none" => None,
            l => Some(TriggerKind::parse(l).unwrap_or_else(|| panic!("{}: bad label {l:?}", at()))),
        };
        let stores: Vec<Store> = match stores.trim() {
            "-" | "" => Vec::new(),
            s => s
                .split('+')
                .map(|name| {
                    Store::ALL
                        .into_iter()
                        .find(|st| st.as_str() == name.trim())
                        .unwrap_or_else(|| panic!("{}: unknown store {name:?}", at()))
                })
                .collect(),
        };
        assert_eq!(
            label == Some(TriggerKind::Remember),
            !stores.is_empty(),
            "{}: remember rows name their stores, other rows `-`",
            at()
        );
        out.push(Row { line: i + 1, label, stores, message: unescape(message) });
    }
    out
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 { 1.0 } else { num as f64 / den as f64 }
}

pub(crate) fn names(stores: &[Store]) -> String {
    stores.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("+")
}

/// The figures of one table.
struct Figures {
    trigger_accuracy: f64,
    store_accuracy: f64,
}

/// Classifies and routes every row, prints the figures as Markdown, and returns them.
fn evaluate(file: &str) -> Figures {
    let rows = rows(file);
    let ctx = RouteContext::default();
    let extra = ExtraPhrases::default();
    let mut trigger_ok = 0;
    let mut per_trigger: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let (mut store_ok, mut store_total) = (0, 0);
    let mut per_store: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for r in &rows {
        let heard = classify(&r.message, &extra);
        let got = heard.as_ref().map(|t| t.kind);
        let name = |k: Option<TriggerKind>| k.map_or("none", TriggerKind::as_str);
        if got == r.label {
            trigger_ok += 1;
            per_trigger.entry(name(got)).or_default().0 += 1;
        } else {
            per_trigger.entry(name(got)).or_default().1 += 1;
            per_trigger.entry(name(r.label)).or_default().2 += 1;
            wrong.push(format!(
                "| {} | trigger | {} | {} | {} |",
                r.line,
                name(r.label),
                name(got),
                one_line(&r.message)
            ));
        }
        if r.label != Some(TriggerKind::Remember) {
            continue;
        }
        // Route what `hear` would route: the trigger's content, else the whole message.
        let routing = match heard.as_ref().filter(|t| t.kind == TriggerKind::Remember) {
            Some(t) if !t.content.trim().is_empty() => route(&t.content, Some(&t.phrase), &ctx),
            _ => route(&r.message, None, &ctx),
        };
        store_total += 1;
        if routing.stores.first() == r.stores.first() {
            store_ok += 1;
        } else {
            let why: Vec<&str> = routing
                .reason
                .iter()
                .map(String::as_str)
                .filter(|s| {
                    !["entity ", "relation ", "confidence "].iter().any(|p| s.starts_with(p))
                })
                .collect();
            wrong.push(format!(
                "| {} | store | {} | {} ({}) | {} |",
                r.line,
                names(&r.stores),
                names(&routing.stores),
                why.join("; "),
                one_line(&r.message)
            ));
        }
        for s in Store::ALL {
            let (want, have) = (r.stores.contains(&s), routing.stores.contains(&s));
            let e = per_store.entry(s.as_str()).or_default();
            match (have, want) {
                (true, true) => e.0 += 1,
                (true, false) => e.1 += 1,
                (false, true) => e.2 += 1,
                (false, false) => {}
            }
        }
    }
    let figures = Figures {
        trigger_accuracy: ratio(trigger_ok, rows.len()),
        store_accuracy: ratio(store_ok, store_total),
    };
    let mut out = format!(
        "\n## {file}: {} messages, {store_total} remember requests\n\n\
         | figure | value |\n|---|---|\n\
         | trigger accuracy | {:.3} ({trigger_ok}/{}) |\n\
         | store accuracy (main store) | {:.3} ({store_ok}/{store_total}) |\n\n\
         | trigger | rows | precision | recall |\n|---|---|---|---|\n",
        rows.len(),
        figures.trigger_accuracy,
        rows.len(),
        figures.store_accuracy,
    );
    out.push_str(&precision_recall(&per_trigger));
    out.push_str("\n| store | labelled | precision | recall |\n|---|---|---|---|\n");
    out.push_str(&precision_recall(&per_store));
    out.push_str(&format!(
        "\nwrong rows ({}):\n\n| line | what | want | got | message |\n|---|---|---|---|---|\n",
        wrong.len()
    ));
    for w in &wrong {
        out.push_str(w);
        out.push('\n');
    }
    println!("{out}");
    figures
}

/// Markdown rows `| name | labelled | precision | recall |` from (tp, fp, fn) counts.
fn precision_recall(counts: &BTreeMap<&str, (usize, usize, usize)>) -> String {
    counts
        .iter()
        .map(|(name, (tp, fp, fneg))| {
            format!(
                "| {name} | {} | {:.3} | {:.3} |\n",
                tp + fneg,
                ratio(*tp, tp + fp),
                ratio(*tp, tp + fneg)
            )
        })
        .collect()
}

fn one_line(s: &str) -> String {
    let flat = s.replace('\n', "\\n").replace('|', "\\|");
    if flat.chars().count() > 90 {
        format!("{}…", flat.chars().take(90).collect::<String>())
    } else {
        flat
    }
}

/// Measures a table and checks it against its floors for store and trigger accuracy.
#[track_caller]
fn holds(file: &str, store_floor: f64, trigger_floor: f64) {
    let f = evaluate(file);
    assert!(
        f.store_accuracy >= store_floor,
        "{file}: store accuracy {:.3} < {store_floor}",
        f.store_accuracy
    );
    assert!(
        f.trigger_accuracy >= trigger_floor,
        "{file}: trigger accuracy {:.3} < {trigger_floor}",
        f.trigger_accuracy
    );
}

/// The tune table: the rules were refined against it, so its floors are the issue's goals.
#[test]
fn routing_table_tune() {
    holds("routing-tune.tsv", 0.90, 0.97);
}

/// The report table, written without seeing the rules and measured once unseen (trigger 0.883,
/// store 0.842); its misses were then the second round's tuning set, so it holds the goals too.
#[test]
fn routing_table_report() {
    holds("routing-report.tsv", 0.90, 0.97);
}

/// The final table, written by a third person who saw neither the rules nor the other tables,
/// measured once after two rounds (trigger 0.924, store 0.925), then tuned on in a third round:
/// it holds the goals now, and a new table is the honest estimate on unseen messages.
#[test]
fn routing_table_final() {
    holds("routing-final.tsv", FINAL_STORE_FLOOR, FINAL_TRIGGER_FLOOR);
}

/// The fresh table, written by a fourth person who saw neither the rules nor the other tables,
/// measured once after the third round, then tuned on in the fourth.
#[test]
fn routing_table_fresh() {
    holds("routing-fresh.tsv", FRESH_STORE_FLOOR, FRESH_TRIGGER_FLOOR);
}

/// The holdout table, written by a fifth person who saw neither the rules nor the other tables,
/// measured once after the fourth round, then the fifth round's tuning set for the trigger; a
/// new round of rules needs a new table to report on.
#[test]
fn routing_table_holdout() {
    holds("routing-holdout.tsv", HOLDOUT_STORE_FLOOR, HOLDOUT_TRIGGER_FLOOR);
}

/// The blind table, written by a sixth person who saw neither the rules nor the other tables,
/// measured once after the fifth round (the structural recall rule): trigger 0.923, store 0.923.
/// Round 6 then tuned on it (trigger 1.000): it is no longer unseen. The floors hold round 6's
/// figures.
#[test]
fn routing_table_blind() {
    holds("routing-blind.tsv", BLIND_STORE_FLOOR, BLIND_TRIGGER_FLOOR);
}

/// The seventh table, written blind by a seventh person who saw neither the rules nor the
/// other tables, measured once after round 6 (requests anywhere in the message): trigger
/// 0.910, store 0.897. It then chose the learned models' thresholds with the eighth and ninth,
/// and is now among the tables they train on (trigger 0.995, store 0.979 after).
#[test]
fn routing_table_seventh() {
    holds("routing-seventh.tsv", 0.97, 0.99);
}

/// The eighth table, written blind on 2026-12-02 by a helper who read only the format guide.
/// Measured once unseen with a first learned trigger model (trigger 0.959, store 0.957; rules
/// alone 0.872 / 0.933), which turned out to hear plain statements as requests; it then chose the
/// thresholds of the models that replaced it, and is among the tables they train on.
#[test]
fn routing_table_eighth() {
    holds("routing-eighth.tsv", 0.98, 0.99);
}

/// The ninth table, written blind like the eighth by another helper: measured once unseen with
/// that first model (0.938 / 0.938; rules alone 0.836 / 0.906), then used like the eighth.
#[test]
fn routing_table_ninth() {
    holds("routing-ninth.tsv", 0.97, 0.98);
}

/// The tenth table, written blind on 2026-12-02 by a helper who read only the format guide, with
/// `none` rows shaped like the traffic a hook hears (plain statements no one asked to keep).
/// Measured once unseen with the first shipped models: trigger 0.950, store 0.918 (rules alone
/// 0.878 / 0.898); then round 8's tuning set (standing orders, keeping labels) and a training
/// table of the models.
#[test]
fn routing_table_tenth() {
    holds("routing-tenth.tsv", 0.94, 0.99);
}

/// The eleventh table, written blind like the tenth by another helper: measured once unseen,
/// trigger 0.958, store 0.923 (rules alone 0.915 / 0.928); then used like the tenth.
#[test]
fn routing_table_eleventh() {
    holds("routing-eleventh.tsv", 0.97, 0.99);
}

/// The twelfth table, written blind on 2026-12-02 by a helper who read only the format guide,
/// measured once unseen after round 8 with the models retrained on eleven tables: trigger 0.967,
/// store 0.922 (round 8's rules alone 0.918 / 0.897; round 7's rules and models 0.953 / 0.907).
/// Then round 9's tuning set and a training table.
#[test]
fn routing_table_twelfth() {
    holds("routing-twelfth.tsv", 0.96, 0.99);
}

/// The thirteenth table, written blind like the twelfth by another helper, measured once unseen:
/// trigger 0.931, store 0.934 (round 8's rules alone 0.866 / 0.929; round 7's 0.908 / 0.929).
/// Then used like the twelfth.
#[test]
fn routing_table_thirteenth() {
    holds("routing-thirteenth.tsv", 0.97, 0.99);
}

/// The fourteenth table, written blind on 2026-12-02 by a helper who read only the format guide,
/// measured once unseen after round 9 with the models retrained on thirteen tables: trigger
/// 0.969, store 0.964 (round 9's rules alone 0.911 / 0.943; round 8's rules and models 0.962 /
/// 0.979). Then round 10's tuning set and a training table.
#[test]
fn routing_table_fourteenth() {
    holds("routing-fourteenth.tsv", 0.97, 0.99);
}

/// The fifteenth table, written blind like the fourteenth by another helper, measured once
/// unseen: trigger 0.958, store 0.947 (round 9's rules alone 0.880 / 0.925; round 8's 0.944 /
/// 0.947). Then used like the fourteenth.
#[test]
fn routing_table_fifteenth() {
    holds("routing-fifteenth.tsv", 0.97, 0.99);
}

/// The sixteenth table, written blind on 2026-12-02 by a helper who read only the format guide,
/// measured once unseen after round 10 with the models retrained on fifteen tables: trigger
/// 0.973, store 0.968 (round 10's rules alone 0.897 / 0.935; round 9's rules and models 0.958 /
/// 0.968). Never trained or tuned on.
#[test]
fn routing_table_sixteenth() {
    holds("routing-sixteenth.tsv", 0.96, 0.97);
}

/// The seventeenth table, written blind like the sixteenth by another helper, measured once
/// unseen: trigger 0.970, store 0.944 (round 10's rules alone 0.897 / 0.906; round 9's 0.955 /
/// 0.944). Never trained or tuned on.
#[test]
fn routing_table_seventeenth() {
    holds("routing-seventeenth.tsv", 0.94, 0.965);
}
