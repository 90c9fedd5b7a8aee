//! Learned second opinions on the trigger and the store (issue 18): linear models over the words
//! of a message, trained on the labelled tables in `tests/fixtures/` and shipped as sorted tables
//! of weights (`learned-trigger.tsv`, `learned-stores.tsv`, compiled in). The phrase rules decide
//! first; the trigger model only speaks where they are silent ([`HEAR_AT`]), and the store model
//! only changes the rules' main store when it is sure of another ([`STORE_AT`]), with thresholds
//! chosen on tables the models were trained without.
//!
//! The model is multinomial logistic regression: each class (no trigger, remember, forget,
//! recall, reflect, reflect_soft) sums the weights of the message's features, and a softmax turns
//! the sums into probabilities. The features are the message's words as search sees them
//! ([`crate::word::segments`]: Latin words, overlapping pairs of Japanese characters) on the
//! rules' normalised text, pairs of neighbouring words, the first and last two words of each
//! sentence, and whether a sentence is a question. Training is deterministic: a seeded shuffle,
//! AdaGrad steps, a fixed number of passes; [`train`] gives the shipped table byte for byte, which
//! a test checks.

use super::{Span, Text, Trigger, TriggerKind, trim_content};
use crate::word::is_cjk;

/// The classes, in the order of a weight row: no trigger first, then the kinds.
pub const CLASSES: [Option<TriggerKind>; 6] = [
    None,
    Some(TriggerKind::Remember),
    Some(TriggerKind::Forget),
    Some(TriggerKind::Recall),
    Some(TriggerKind::Reflect),
    Some(TriggerKind::ReflectSoft),
];

const N: usize = CLASSES.len();

/// The shipped trigger weights: a header line, then one line per feature (and `bias`), sorted,
/// each `FEATURE<TAB>w0<TAB>…<TAB>w5` in the order of [`CLASSES`].
const TABLE: &str = include_str!("learned-trigger.tsv");

/// The store sets a remember request can be routed to, as the labelled tables write them (main
/// store first): the classes of the store model.
pub const STORE_SETS: [&str; 10] = [
    "semantic",
    "episodic",
    "procedural",
    "core",
    "semantic+core",
    "episodic+semantic",
    "vault+semantic",
    "core+vault",
    "vault+procedural",
    "vault+episodic",
];

/// The shipped store weights, laid out like [`TABLE`] with the classes of [`STORE_SETS`].
const STORE_TABLE: &str = include_str!("learned-stores.tsv");

/// The probability the model must give a kind before it adds a trigger the rules did not hear.
/// Chosen with [`UNSAID_WEIGHT`] on the seventh, eighth and ninth routing tables while the model
/// was trained without them, for the accuracy on those tables and on their requests' contents
/// said on their own (which must stay ordinary): 0.5 and 0.6 tied best (0.948 over both); the
/// higher one wrongly hears fewer plain statements (issue 18, `learned_grid` in the text crate's
/// tests).
pub const HEAR_AT: f32 = 0.6;

/// The model's probabilities for a message, in the order of [`CLASSES`].
pub fn probabilities(message: &str) -> [f32; N] {
    probabilities_of(TABLE, message)
}

/// The probabilities a trigger weight table (as [`train`] gives) assigns a message: for
/// choosing the training settings without shipping each table.
pub fn probabilities_in(table: &str, message: &str) -> [f32; N] {
    probabilities_of(table, message)
}

/// The probabilities a weight table with `K` classes assigns a message.
fn probabilities_of<const K: usize>(table: &str, message: &str) -> [f32; K] {
    let text = Text::new(message, super::Known::Given(&[]));
    softmax(sums(table, &features(&text, &text.sentences())))
}

/// The index of the most likely class.
fn argmax<const K: usize>(p: &[f32; K]) -> usize {
    (0..K).max_by(|a, b| p[*a].total_cmp(&p[*b])).unwrap_or(0)
}

/// The probability the store model must give a store set whose main store differs from the
/// rules' before it replaces their choice. Chosen on the seventh, eighth and ninth routing tables
/// while the model was trained without them, through the whole route: main-store accuracy
/// 0.928 / 0.952 / 0.932 at 0.8, against 0.892 / 0.942 / 0.906 for the rules alone and lower at
/// 0.5 to 0.7 and at 0.9 (issue 18).
pub const STORE_AT: f32 = 0.8;

/// The store model's most likely store set for a remember request, and its probability.
pub fn store_opinion(message: &str) -> (&'static str, f32) {
    let p = store_probabilities(message);
    let best = argmax(&p);
    (STORE_SETS[best], p[best])
}

/// The store model's probabilities for a remember request, in the order of [`STORE_SETS`].
pub fn store_probabilities(message: &str) -> [f32; STORE_SETS.len()] {
    probabilities_of(STORE_TABLE, message)
}

/// What the model hears in a message the rules found nothing in: the most likely kind when it
/// is not "no trigger" and has at least [`HEAR_AT`]. The phrase is the sentence that speaks for
/// the kind most (the one whose words add most to it against "no trigger"); a remember request
/// keeps the rest of the message as its content when that sentence is a bare request (a few
/// words) and there is a rest, else the whole message;
/// a recall or forget is about the whole message; a reflection has no content.
pub(super) fn heard(text: &Text<'_>) -> Option<Trigger> {
    let sentences = text.sentences();
    let p: [f32; N] = softmax(sums(TABLE, &features(text, &sentences)));
    let best = argmax(&p);
    let kind = CLASSES[best]?;
    if p[best] < HEAR_AT || !guards_pass(text, &sentences, kind) {
        return None;
    }
    let margin = |s: &Span| {
        let w: [f32; N] = sums(TABLE, &sentence_features(text, *s));
        w[best] - w[0]
    };
    let (_, said) = sentences.iter().map(|s| (margin(s), *s)).max_by(|a, b| a.0.total_cmp(&b.0))?;
    let orig = |a: usize, b: usize| text.orig_slice(a, b);
    let phrase = trim_content(orig(said.start, said.end));
    let whole = trim_content(text.orig);
    let content = match kind {
        TriggerKind::Remember => {
            let rest = format!(
                "{} {}",
                orig(0, said.start).trim_end(),
                orig(said.end, text.norm.len()).trim_start()
            );
            let rest = trim_content(&rest);
            // "Please record that decision." goes; "コーヒーメーカーの洗浄手順を記録して
            // いただけますか。" names what the steps are for, so the whole message stays.
            let bare = {
                let request = orig(said.start, said.end);
                let latin = request.split_whitespace().filter(|w| !w.chars().any(is_cjk)).count();
                latin <= 5 && request.chars().filter(|c| is_cjk(*c)).count() <= 12
            };
            if rest.is_empty() || !bare { whole } else { rest }
        }
        TriggerKind::Recall | TriggerKind::Forget => whole,
        TriggerKind::Reflect | TriggerKind::ReflectSoft => String::new(),
    };
    let percent = (p[best] * 100.0).round().clamp(0.0, 100.0) as u8;
    Some(Trigger { kind, phrase, content, learned: Some(percent) })
}

/// Words of keeping, which a remember request the model hears should hold when the message is
/// tied to the task at hand ("this", "today", この, 今日).
const KEEP_STEMS: &[&str] = &[
    "remember",
    "note",
    "save",
    "keep",
    "store",
    "record",
    "log ",
    "pin",
    "vault",
    "memo",
    "memor",
    "file ",
    "hold onto",
    "hang on",
    "rule",
    "always",
    "never",
    "from now on",
    "覚え",
    "記憶",
    "メモ",
    "記録",
    "保存",
    "控え",
    "残し",
    "ピン",
    "忘れな",
    "忘れん",
    "永久",
    "ずっと",
    "ルール",
    "これから",
    "今後",
];

/// Words of removing, which a forget request the model hears must hold, and which a remember
/// request must not hold in their strongest forms.
const FORGET_STEMS: &[&str] = &[
    "forget",
    "delete",
    "remove",
    "erase",
    "wipe",
    "drop",
    "scratch",
    "disregard",
    "unpin",
    "purge",
    "clear",
    "stop keeping",
    "don't keep",
    "no longer",
    "anymore",
    "忘れ",
    "消",
    "削除",
    "破棄",
    "解除",
    "外し",
    "取り消",
    "覚えてなく",
    "覚えなく",
    "不要",
];

/// Words of deleting that make a remember request the model hears a mistake, unless negated
/// ("私に確認せずにファイルを削除しないでね" keeps a rule).
const DELETE_WORDS: &[&str] = &["delete", "erase", "wipe", "削除", "破棄", "消去"];

/// The rules' guards on what the model hears (round 9): no request in a hypothetical ("if I
/// told you to remember my PIN, would you …?"); a remember request tied to the task at hand must
/// hold a word of keeping, and must not be a request to delete; a forget request must hold a
/// word of removing.
fn guards_pass(text: &Text<'_>, sentences: &[Span], kind: TriggerKind) -> bool {
    let norm = text.norm.as_str();
    if sentences.first().is_some_and(|s| super::hypothetical(&norm[s.start..s.end])) {
        return false;
    }
    let has = |words: &[&str]| words.iter().any(|w| norm.contains(w));
    let padded = format!(" {norm} ");
    let now = super::standing::EN_NOW.iter().any(|w| padded.contains(w))
        || super::standing::JA_NOW.iter().any(|w| norm.contains(w));
    match kind {
        TriggerKind::Remember => (!now || has(KEEP_STEMS)) && !deletes(norm),
        TriggerKind::Forget => has(FORGET_STEMS),
        _ => true,
    }
}

/// Whether the message asks to delete something: a word of [`DELETE_WORDS`] not negated
/// (削除しないで, "don't delete", "never delete", "without deleting").
fn deletes(norm: &str) -> bool {
    DELETE_WORDS.iter().any(|w| {
        norm.match_indices(w).any(|(i, _)| {
            let after: String = norm[i + w.len()..].chars().take(6).collect();
            let before: String = {
                let b: Vec<char> = norm[..i].chars().collect();
                b[b.len().saturating_sub(12)..].iter().collect()
            };
            let negated = ["しない", "ないで", "せず", "しちゃだめ", "禁止"]
                .iter()
                .any(|n| after.contains(n))
                || ["don't ", "do not ", "never ", "without ", "not "]
                    .iter()
                    .any(|n| before.contains(n));
            !negated
        })
    })
}

/// The summed weights of features (with the bias), per class.
fn sums<const K: usize>(table: &str, features: &[String]) -> [f32; K] {
    let body = table.split_once('\n').map_or("", |(_, rest)| rest);
    let mut out = weights_of(body, "bias").unwrap_or([0.0; K]);
    for f in features {
        if let Some(w) = weights_of::<K>(body, f) {
            for (s, w) in out.iter_mut().zip(w) {
                *s += w;
            }
        }
    }
    out
}

fn softmax<const K: usize>(sums: [f32; K]) -> [f32; K] {
    let max = sums.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut p = sums.map(|s| (s - max).exp());
    let total: f32 = p.iter().sum();
    for x in &mut p {
        *x /= total;
    }
    p
}

/// The features of a message: deduplicated and sorted, so a sum over them is the same on every
/// run.
fn features(text: &Text<'_>, sentences: &[Span]) -> Vec<String> {
    let mut out: Vec<String> = sentences.iter().flat_map(|s| sentence_features(text, *s)).collect();
    if sentences.len() > 1 {
        out.push("many".to_string());
    }
    if sentences.last().is_some_and(|s| question(text, *s)) {
        out.push("q:last".to_string());
    }
    out.sort();
    out.dedup();
    out
}

fn question(text: &Text<'_>, s: Span) -> bool {
    let clause = text.norm[s.start..s.end].trim_end();
    clause.ends_with(['?', '？']) || clause.ends_with('か')
}

/// The features of one sentence: its words, pairs of neighbouring words, its first and last two
/// words, and whether it asks.
fn sentence_features(text: &Text<'_>, s: Span) -> Vec<String> {
    let clause = &text.norm[s.start..s.end];
    let words: Vec<String> = crate::word::segments(clause)
        .into_iter()
        .map(|(a, b)| clause[a..b].to_lowercase())
        .collect();
    let mut out: Vec<String> = words.iter().map(|w| format!("w:{w}")).collect();
    out.extend(words.windows(2).map(|p| format!("b:{} {}", p[0], p[1])));
    out.extend(words.iter().take(2).map(|w| format!("s:{w}")));
    out.extend(words.iter().rev().take(2).map(|w| format!("e:{w}")));
    if question(text, s) {
        out.push("q".to_string());
    }
    out
}

/// Looks a feature up in a table's sorted lines (its header dropped) by bisection over their
/// bytes: no parsing at start-up, a handful of line reads per feature.
fn weights_of<const K: usize>(body: &str, feature: &str) -> Option<[f32; K]> {
    let bytes = body.as_bytes();
    let (mut lo, mut hi) = (0usize, bytes.len());
    // Invariant: every line starting before `lo` has a key < feature; every line starting at or
    // after `hi` has a key > feature (or is past the end).
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = bytes[..mid].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1).max(lo);
        let end =
            bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i);
        let line = &body[start..end];
        let key = line.split('\t').next().unwrap_or("");
        match key.cmp(feature) {
            std::cmp::Ordering::Equal => return parse_row(line),
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    None
}

fn parse_row<const K: usize>(line: &str) -> Option<[f32; K]> {
    let mut out = [0.0; K];
    let mut cells = line.split('\t').skip(1);
    for w in &mut out {
        *w = cells.next()?.parse::<i32>().ok()? as f32 / 100.0;
    }
    Some(out)
}

/// How many passes over the examples [`train`] makes.
const EPOCHS: usize = 30;
/// AdaGrad's step size.
const RATE: f32 = 0.2;
/// L2 weight decay per step on the features present.
const DECAY: f32 = 1e-4;
/// Weights whose largest magnitude is below this are not shipped.
const PRUNE: f32 = 0.02;

/// Trains the trigger model on labelled messages and returns its weight table as shipped.
///
/// Each request also teaches what is not one: its content said on its own ("my sister's
/// birthday is June 3rd" without "remember that") is labelled as the phrase rules hear it, which
/// for a plain statement is no trigger. Without these the model learns that facts are requests,
/// since most messages in the tables that state a fact ask to keep it, and a hook hears every
/// message a user sends.
pub fn train(examples: &[(String, Option<TriggerKind>)]) -> String {
    train_with(examples, UNSAID_WEIGHT)
}

/// How much each request's content said on its own counts in training, against 1 for a
/// labelled message (see [`train`]).
pub const UNSAID_WEIGHT: f32 = 0.5;

/// [`train`] with another weight for the contents said on its own: for choosing it.
pub fn train_with(examples: &[(String, Option<TriggerKind>)], unsaid: f32) -> String {
    let names = CLASSES.map(|c| c.map_or("none", TriggerKind::as_str));
    let class = |label: Option<TriggerKind>| CLASSES.iter().position(|c| *c == label).unwrap_or(0);
    let mut said: Vec<(String, usize, f32)> = Vec::new();
    for (m, label) in examples {
        said.push((m.clone(), class(*label), 1.0));
        if label.is_none() {
            continue;
        }
        let Some(t) = super::rules_only(m) else { continue };
        let content = t.content.trim();
        if !content.is_empty() && content != m.trim() {
            let kind = super::rules_only(content).map(|t| t.kind);
            said.push((content.to_owned(), class(kind), unsaid));
        }
    }
    let data: Vec<(&str, usize, f32)> = said.iter().map(|(m, c, w)| (m.as_str(), *c, *w)).collect();
    train_table(&data, names, "trigger")
}

/// Trains the store model on remember requests labelled with their store set (one of
/// [`STORE_SETS`]; other labels are skipped) and returns its weight table as shipped.
pub fn train_stores(examples: &[(String, String)]) -> String {
    let data: Vec<(&str, usize, f32)> = examples
        .iter()
        .filter_map(|(m, set)| {
            STORE_SETS.iter().position(|s| s == set).map(|k| (m.as_str(), k, 1.0))
        })
        .collect();
    train_table(&data, STORE_SETS, "store")
}

/// Multinomial logistic regression over the features of each message: the table shipped, a
/// header, then the bias and the features seen in at least three messages, sorted, each weight to
/// hundredths, as whole numbers.
fn train_table<const K: usize>(
    examples: &[(&str, usize, f32)],
    names: [&str; K],
    what: &str,
) -> String {
    let mut vocab: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut data: Vec<(Vec<String>, usize, f32)> = Vec::with_capacity(examples.len());
    for (message, class, weight) in examples {
        let text = Text::new(message, super::Known::Given(&[]));
        let f = features(&text, &text.sentences());
        for x in &f {
            *vocab.entry(x.clone()).or_default() += 1;
        }
        data.push((f, *class, *weight));
    }
    let keep: Vec<String> = vocab.into_iter().filter(|(_, n)| *n >= 3).map(|(f, _)| f).collect();
    let index: std::collections::HashMap<&str, usize> =
        keep.iter().enumerate().map(|(i, f)| (f.as_str(), i + 1)).collect();
    // Row 0 is the bias.
    let rows: Vec<(Vec<usize>, usize, f32)> = data
        .iter()
        .map(|(f, c, weight)| {
            let mut ids: Vec<usize> = std::iter::once(0)
                .chain(f.iter().filter_map(|x| index.get(x.as_str()).copied()))
                .collect();
            ids.sort_unstable();
            (ids, *c, *weight)
        })
        .collect();
    let mut w = vec![[0f32; K]; keep.len() + 1];
    let mut g2 = vec![[1e-6f32; K]; keep.len() + 1];
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..EPOCHS {
        // Fisher–Yates with xorshift64*: the same order on every run.
        for i in (1..order.len()).rev() {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            let r = seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
            order.swap(i, (r % (i as u64 + 1)) as usize);
        }
        for &k in &order {
            let (ids, class, weight) = &rows[k];
            let mut sums = [0f32; K];
            for &i in ids {
                for (s, x) in sums.iter_mut().zip(w[i]) {
                    *s += x;
                }
            }
            let p = softmax(sums);
            for &i in ids {
                for c in 0..K {
                    let target = if c == *class { 1.0 } else { 0.0 };
                    let g = weight * (p[c] - target) + DECAY * w[i][c];
                    g2[i][c] += g * g;
                    w[i][c] -= RATE * g / g2[i][c].sqrt();
                }
            }
        }
    }
    let mut out = format!(
        "# cogmem learned {what} weights: FEATURE\t{}; generated by `cargo test -p cogmem-text --test rules learned`, do not edit\n",
        names.join("\t")
    );
    let row = |name: &str, w: &[f32; K]| {
        let cells: Vec<String> =
            w.iter().map(|x| ((x * 100.0).round() as i32).to_string()).collect();
        format!("{name}\t{}\n", cells.join("\t"))
    };
    let bias = row("bias", &w[0]);
    let mut lines: Vec<String> = keep
        .iter()
        .enumerate()
        .filter(|(i, _)| w[i + 1].iter().any(|x| x.abs() >= PRUNE))
        .map(|(i, f)| row(f, &w[i + 1]))
        .collect();
    lines.push(bias);
    lines.sort();
    out.extend(lines);
    out
}
