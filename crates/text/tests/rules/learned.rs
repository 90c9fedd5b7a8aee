//! The learned trigger and store models (issue 18): their shipped weights are what training on
//! the tables gives, and their figures on the tables they never saw.
//!
//! Trained on fifteen routing tables, the three trigger tables and the messages of the rules'
//! own tests (`suite-messages.txt`); never on `routing-sixteenth.tsv` or
//! `routing-seventeenth.tsv`, which report. The settings (the weight of contents said on their own, the thresholds) were chosen
//! with the seventh, eighth and ninth tables held out of training (`learned_grid`, ignored:
//! `cargo test -p cogmem-text --test rules learned_grid -- --ignored --nocapture`). Retrain after
//! changing a training table or the features with
//!
//! ```sh
//! COGMEM_WRITE_LEARNED=1 cargo test -p cogmem-text --test rules learned
//! ```

use cogmem_text::trigger::TriggerKind;
use cogmem_text::trigger::learned;

/// The tables the model learns from.
pub(crate) const TRAINING_ROUTING: &[&str] = &[
    "routing-tune.tsv",
    "routing-report.tsv",
    "routing-final.tsv",
    "routing-fresh.tsv",
    "routing-holdout.tsv",
    "routing-blind.tsv",
    "routing-seventh.tsv",
    "routing-eighth.tsv",
    "routing-ninth.tsv",
    "routing-tenth.tsv",
    "routing-eleventh.tsv",
    "routing-twelfth.tsv",
    "routing-thirteenth.tsv",
    "routing-fourteenth.tsv",
    "routing-fifteenth.tsv",
];
/// See [`TRAINING_ROUTING`].
pub(crate) const TRAINING_TRIGGERS: &[&str] =
    &["triggers.tsv", "triggers-heldout.tsv", "triggers-fresh.tsv"];

/// The messages of the rules' own tests (`scripts/collect-suite-messages`), each labelled as the
/// phrase rules hear it: what those tests expect.
fn suite() -> Vec<(String, Option<TriggerKind>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/suite-messages.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let m = super::routing_table::unescape(l);
            let kind = cogmem_text::trigger::rules_only(&m).map(|t| t.kind);
            (m, kind)
        })
        .collect()
}

fn examples() -> Vec<(String, Option<TriggerKind>)> {
    examples_without(&[])
}

/// The training examples without some routing tables (those a choice is measured on).
fn examples_without(held_out: &[&str]) -> Vec<(String, Option<TriggerKind>)> {
    let mut out = Vec::new();
    for file in TRAINING_ROUTING.iter().filter(|f| !held_out.contains(f)) {
        out.extend(super::routing_table::rows(file).into_iter().map(|r| (r.message, r.label)));
    }
    for file in TRAINING_TRIGGERS {
        out.extend(super::trigger_table::rows(file).into_iter().map(|r| (r.message, r.label)));
    }
    out.extend(suite());
    out
}

/// What the store model reads at run time for a message: the request's phrase and content when
/// the rules hear a remember request in it (what `route` is given), else the message.
fn routed_text(message: &str) -> String {
    match cogmem_text::trigger::rules_only(message) {
        Some(t) if t.kind == TriggerKind::Remember && !t.content.trim().is_empty() => {
            format!("{} {}", t.phrase, t.content)
        }
        _ => message.to_owned(),
    }
}

/// The store model learns from the remember rows of the routing tables, and from the messages of
/// the rules' own tests with the stores the store rules give them (what those tests expect): a
/// request's content as routed after its phrase, anything else routed as it stands (the routing
/// case tables route bare contents).
fn store_examples() -> Vec<(String, String)> {
    use cogmem_text::route::{RouteContext, route_rules};
    let mut out: Vec<(String, String)> = TRAINING_ROUTING
        .iter()
        .flat_map(|file| super::routing_table::rows(file))
        .filter(|r| !r.stores.is_empty())
        .map(|r| (routed_text(&r.message), super::routing_table::names(&r.stores)))
        .collect();
    let ctx = RouteContext::default();
    for (message, _) in suite() {
        let routing = match cogmem_text::trigger::rules_only(&message) {
            Some(t) if t.kind == TriggerKind::Remember && !t.content.trim().is_empty() => {
                route_rules(&t.content, Some(&t.phrase), &ctx)
            }
            _ => route_rules(&message, None, &ctx),
        };
        out.push((routed_text(&message), super::routing_table::names(&routing.stores)));
    }
    out
}

fn shipped(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/trigger").join(name)
}

/// Checks a shipped table against what training gives, or writes it with COGMEM_WRITE_LEARNED.
fn same_as_trained(name: &str, trained: &str) {
    let path = shipped(name);
    if std::env::var_os("COGMEM_WRITE_LEARNED").is_some() {
        std::fs::write(&path, trained).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(
        have == trained,
        "{}: not what training on the tables gives; run COGMEM_WRITE_LEARNED=1 cargo test -p cogmem-text --test rules learned",
        path.display()
    );
}

/// The shipped tables are the trained ones, byte for byte.
#[test]
fn learned_weights_are_the_trained_ones() {
    same_as_trained("learned-trigger.tsv", &learned::train(&examples()));
    same_as_trained("learned-stores.tsv", &learned::train_stores(&store_examples()));
}

/// The trigger model alone, on the tables it never saw (printed; the floors are on the rules
/// with it, in routing_table.rs).
#[test]
fn learned_model_alone_on_unseen_tables() {
    for file in ["routing-sixteenth.tsv", "routing-seventeenth.tsv"] {
        let rows = super::routing_table::rows(file);
        let mut ok = 0;
        for r in &rows {
            let p = learned::probabilities(&r.message);
            let best = (0..p.len()).max_by(|a, b| p[*a].total_cmp(&p[*b])).unwrap();
            if learned::CLASSES[best] == r.label {
                ok += 1;
            }
        }
        println!("{file}: model alone {:.3} ({ok}/{})", ok as f64 / rows.len() as f64, rows.len());
    }
}

/// Chooses the training settings: for each weight of the contents said on their own and each
/// threshold, the accuracy of the rules with the model on the tuning tables, and on those tables'
/// request contents said on their own (which a hook hears as ordinary messages).
#[test]
#[ignore]
fn learned_grid() {
    use cogmem_text::trigger::rules_only;
    let tune = ["routing-seventh.tsv", "routing-eighth.tsv", "routing-ninth.tsv"];
    let mut sets = Vec::new();
    for file in tune {
        let rows: Vec<(String, Option<TriggerKind>)> =
            super::routing_table::rows(file).into_iter().map(|r| (r.message, r.label)).collect();
        let unsaid: Vec<(String, Option<TriggerKind>)> = rows
            .iter()
            .filter(|(_, l)| l.is_some())
            .filter_map(|(m, _)| rules_only(m).map(|t| t.content))
            .filter(|c| !c.trim().is_empty())
            .map(|c| {
                let k = rules_only(&c).map(|t| t.kind);
                (c, k)
            })
            .collect();
        sets.push((file, rows, unsaid));
    }
    let weights: Vec<f32> = std::env::var("GRID_WEIGHTS")
        .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![0.0, 0.1, 0.25, 0.5, 1.0]);
    for w in weights {
        let table = learned::train_with(&examples_without(&tune), w);
        for hear in [0.5f32, 0.6, 0.7, 0.8, 0.9] {
            let mut line = format!("unsaid {w} hear {hear}:");
            let (mut all_ok, mut all_n) = (0, 0);
            for (file, rows, unsaid) in &sets {
                let acc = |rows: &[(String, Option<TriggerKind>)]| {
                    rows.iter()
                        .filter(|(m, label)| {
                            let got = rules_only(m).map(|t| t.kind).or_else(|| {
                                let p = learned::probabilities_in(&table, m);
                                let best =
                                    (0..p.len()).max_by(|a, b| p[*a].total_cmp(&p[*b])).unwrap();
                                if p[best] >= hear { learned::CLASSES[best] } else { None }
                            });
                            got == *label
                        })
                        .count()
                };
                let (a, b) = (acc(rows), acc(unsaid));
                all_ok += a + b;
                all_n += rows.len() + unsaid.len();
                line.push_str(&format!(
                    " {}: {:.3} / unsaid {:.3};",
                    file.trim_start_matches("routing-").trim_end_matches(".tsv"),
                    a as f64 / rows.len() as f64,
                    b as f64 / unsaid.len() as f64
                ));
            }
            println!("{line} all {:.3}", all_ok as f64 / all_n as f64);
        }
    }
}

/// What the model adds to hearing a message: the rules alone against the rules with the model,
/// over every table message (printed, never asserted; run with `--release` for the figure in
/// docs/benchmarks.md).
#[test]
#[ignore]
fn learned_cost() {
    let mut messages: Vec<String> = Vec::new();
    for file in TRAINING_ROUTING.iter().chain(&["routing-sixteenth.tsv", "routing-seventeenth.tsv"])
    {
        messages.extend(super::routing_table::rows(file).into_iter().map(|r| r.message));
    }
    let time = |f: &dyn Fn(&str)| {
        let start = std::time::Instant::now();
        for m in &messages {
            f(m);
        }
        start.elapsed().as_secs_f64() * 1e6 / messages.len() as f64
    };
    let extra = cogmem_text::trigger::ExtraPhrases::default();
    let rules = time(&|m| drop(std::hint::black_box(cogmem_text::trigger::rules_only(m))));
    let both = time(&|m| drop(std::hint::black_box(cogmem_text::trigger::classify(m, &extra))));
    let model = time(&|m| {
        std::hint::black_box(learned::probabilities(m));
    });
    println!(
        "{} messages: rules {rules:.1} µs, rules with the model {both:.1} µs, model alone {model:.1} µs per message",
        messages.len()
    );
}

/// Hearing never panics on pieces of real messages: every prefix and suffix, cut at a character
/// boundary every few characters, of every tenth message of every table (a message ending in
/// "… tell me" once panicked the recall rule; the hook hears every prompt).
#[test]
fn hearing_pieces_of_the_tables_never_panics() {
    let extra = cogmem_text::trigger::ExtraPhrases::default();
    let mut files: Vec<String> = TRAINING_ROUTING.iter().map(|f| (*f).to_owned()).collect();
    files.extend(["routing-sixteenth.tsv", "routing-seventeenth.tsv"].map(str::to_owned));
    let mut pieces = 0;
    for file in &files {
        for row in super::routing_table::rows(file).into_iter().step_by(10) {
            let m = row.message;
            let cuts: Vec<usize> = m.char_indices().map(|(i, _)| i).step_by(5).collect();
            for &c in &cuts {
                for piece in [&m[..c], &m[c..]] {
                    let _ = cogmem_text::trigger::classify(piece, &extra);
                    pieces += 1;
                }
            }
        }
    }
    assert!(pieces > 10_000, "only {pieces} pieces");
}
