//! Bounded context packs: what an agent puts in its prompt. Core memory first, then the latest
//! reflection and the recent reward outcomes (the skill's logs, issue 19), then the best
//! memories, then the cards of the entities they touch — packed to fit a token budget, never
//! over, with a receipt that says why every candidate was taken or left out. Pure: the caller
//! supplies the candidates and the token counter.
//!
//! Invariants: the text never exceeds the budget; every candidate has one receipt line; no id
//! goes in twice and no statement is said twice (issue 18) — a card's line that repeats a part
//! taken before is left out of it, and the receipt says which part already says it.

use serde::Serialize;

/// Counts tokens the way the agent's model will.
pub trait TokenCounter {
    /// Counts the tokens of `text`.
    fn count(&self, text: &str) -> usize;
}

/// What a candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// A MEMORY.md bullet.
    Core,
    /// The latest reflection, as its one-line summary from reflection-log.md (issue 19).
    Reflection,
    /// A recent reward outcome from reward-log.md (issue 19).
    Reward,
    /// A memory found for the query (or a recent one).
    Memory,
    /// An entity's card.
    Entity,
    /// An open flag on a memory in the pack (issue 19).
    Flag,
}

/// Something that may go into the pack.
///
/// An entity can be offered in two forms under one id, a card (`Part::Entity`) and a one-line
/// memory (`Part::Memory`); whichever is taken first, the other is then a duplicate (issue 18).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its id.
    pub id: String,
    /// What it is.
    pub part: Part,
    /// What it adds, as rendered: a memory's or core bullet's line, a card's `### id` heading.
    pub text: String,
    /// A card's item lines as rendered (`- fact`), each left out when a part taken before
    /// already says it; empty for a memory or core bullet.
    pub lines: Vec<String>,
    /// What it says, for finding repeats: one statement per item of `lines` for a card, the
    /// memory's text (without id and date) for a memory or core bullet.
    pub says: Vec<String>,
    /// Its rank score as a share of the best (memories and cards found by the query), or 1.
    pub score: f64,
    /// Why it is a candidate ("core memory", "matches the query (…)", …).
    pub why: String,
    /// The memories that named it (a card): it goes in only after one of them did. Empty for
    /// a candidate that stands on its own.
    pub named_by: Vec<String>,
    /// Why it stays out whatever the budget, as the caller found it: `archived (…)`,
    /// `superseded by …`, `empty: …`, `nothing current: …`.
    pub out: Option<String>,
}

impl Candidate {
    /// A candidate with one line of text that says `says`, standing on its own.
    pub fn line(id: &str, part: Part, text: String, says: &str, score: f64, why: String) -> Self {
        Self {
            id: id.to_owned(),
            part,
            text,
            lines: Vec::new(),
            says: vec![says.to_owned()],
            score,
            why,
            named_by: Vec::new(),
            out: None,
        }
    }
}

/// A line left out of a selected card because a part taken before says it.
#[derive(Debug, Clone, Serialize)]
pub struct Repeat {
    /// The line, as it would have been rendered.
    pub line: String,
    /// The id of the part that already says it.
    pub duplicate_of: String,
}

/// A receipt line.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    /// The candidate's id.
    pub id: String,
    /// What it is.
    pub part: Part,
    /// Tokens it takes (counted as rendered, without the lines left out as repeats).
    pub tokens: usize,
    /// `selected` or `suppressed`.
    pub decision: &'static str,
    /// Why. Selected: the candidate's reason (a card named by memories says which). Suppressed:
    /// the caller's reason (`archived (…)`, `superseded by …`, `empty: …`, `nothing current:
    /// …`), `duplicate of ID`, `named only by left-out memories: …`, `below threshold (…)`
    /// or `over budget`.
    pub reason: String,
    /// The id of the part already in the pack that says what this one says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// The lines of a selected card left out because a part taken before says them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<Repeat>,
}

/// A packed context.
#[derive(Debug, Clone, Serialize)]
pub struct Pack {
    /// The budget asked for.
    pub budget_tokens: usize,
    /// Tokens the text takes (never more than the budget).
    pub used_tokens: usize,
    /// The text to put in the prompt.
    pub text: String,
    /// Every candidate, selected or suppressed, and why.
    pub receipt: Vec<Receipt>,
    /// Files the pack's reads could not read and went on without (a memory file, a decay
    /// file), each naming what is wrong; left out of the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<cogmem_store::store::units::Unreadable>,
}

const HEADINGS: [(Part, &str); 6] = [
    (Part::Core, "## Core memory\n"),
    (Part::Reflection, "## Latest reflection\n"),
    (Part::Reward, "## Recent reward outcomes\n"),
    (Part::Memory, "## Relevant memories\n"),
    (Part::Entity, "## Entities\n"),
    (Part::Flag, "## Open flags\n"),
];

/// A candidate as it will be rendered: its text and the lines kept.
struct Taken<'a> {
    part: Part,
    text: &'a str,
    lines: Vec<&'a str>,
}

impl Taken<'_> {
    fn rendered(&self) -> String {
        let mut out = format!("{}\n", self.text.trim_end());
        for l in &self.lines {
            out.push_str(l.trim_end());
            out.push('\n');
        }
        out
    }
}

fn render(selected: &[Taken<'_>]) -> String {
    let mut out = String::from("# Memory\n");
    for (part, heading) in HEADINGS {
        let items: Vec<&Taken<'_>> = selected.iter().filter(|c| c.part == part).collect();
        if items.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(heading);
        for c in items {
            out.push_str(&c.rendered());
        }
    }
    out
}

/// The form of a statement used to find repeats: whitespace and Markdown escapes normalised,
/// lower case, without a leading `- ` or trailing punctuation.
fn key(statement: &str) -> String {
    let n = cogmem_store::store::markdown::normalize(statement).to_lowercase();
    n.trim_start_matches("- ").trim_end_matches(['.', '。', '!', '！', ' ']).to_owned()
}

/// Statements shorter than this (in characters) are repeats only when equal, not when
/// contained in a longer one: "Rust" inside another line says nothing twice.
const MIN_CONTAINED: usize = 12;

/// The id of the part taken that already says `k`: the same statement, or a longer one that
/// contains it.
fn said_by<'a>(seen: &'a [(String, String)], k: &str) -> Option<&'a str> {
    seen.iter()
        .find(|(s, _)| s == k || k.chars().count() >= MIN_CONTAINED && s.contains(k))
        .map(|(_, id)| id.as_str())
}

/// Packs candidates (in priority order) into `budget` tokens.
///
/// Each memory goes in at most once: a candidate whose id is already in (an entity's card and
/// its one-line form), or whose every statement a part already taken says, is a duplicate; a
/// card's lines that repeat what is already in are left out of it, and a card left with no
/// line is a duplicate. A candidate is also left out for the caller's reason (`out`), when it
/// is a card named only by memories that were left out, when its score is below `threshold`
/// (anything but core memory), or when adding it would go over the budget — in which case
/// smaller ones after it may still fit. The whole rendered text is counted after every
/// addition, so the pack never exceeds the budget.
pub fn pack(
    budget: usize,
    candidates: &[Candidate],
    threshold: f64,
    counter: &dyn TokenCounter,
) -> Pack {
    let mut selected: Vec<Taken<'_>> = Vec::new();
    let mut receipt = Vec::new();
    // (statement key, id of the part that says it)
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut taken_ids: Vec<&str> = Vec::new();
    let mut used = 0;
    for c in candidates {
        let keys: Vec<String> = c.says.iter().map(|s| key(s)).collect();
        // A card's lines: kept, or left out as a repeat of a part already taken.
        let mut repeats = Vec::new();
        let mut kept: Vec<bool> = Vec::with_capacity(c.lines.len());
        for (i, line) in c.lines.iter().enumerate() {
            let by = keys.get(i).and_then(|k| said_by(&seen, k));
            if let Some(by) = by {
                repeats.push(Repeat { line: line.clone(), duplicate_of: by.to_owned() });
            }
            kept.push(by.is_none());
        }
        let lines = c.lines.iter().zip(&kept).filter(|(_, k)| **k).map(|(l, _)| l.as_str());
        let taken = Taken { part: c.part, text: &c.text, lines: lines.collect() };
        let tokens = counter.count(&taken.rendered());
        let naming: Vec<&str> =
            c.named_by.iter().map(String::as_str).filter(|n| taken_ids.contains(n)).collect();
        let repeated = if c.part == Part::Entity {
            // A card all of whose lines are already in.
            repeats.first().filter(|_| taken.lines.is_empty()).map(|r| r.duplicate_of.clone())
        } else {
            // A line whose every statement is already in.
            let by: Option<Vec<&str>> = keys.iter().map(|k| said_by(&seen, k)).collect();
            by.and_then(|b| b.first().map(|s| (*s).to_owned()))
        };
        let duplicate_of =
            if taken_ids.contains(&c.id.as_str()) { Some(c.id.clone()) } else { repeated };
        let suppressed = if let Some(why) = &c.out {
            Some(why.clone())
        } else if c.part == Part::Entity && c.lines.is_empty() {
            Some("empty: no summary, fact or relation".to_owned())
        } else if let Some(by) = &duplicate_of {
            Some(if *by == c.id {
                format!("duplicate of {by} (already in)")
            } else {
                format!("duplicate of {by}")
            })
        } else if !c.named_by.is_empty() && naming.is_empty() {
            Some(format!("named only by left-out memories: {}", c.named_by.join(", ")))
        } else if c.part != Part::Core && c.score < threshold {
            Some(format!("below threshold ({:.2} < {threshold:.2})", c.score))
        } else {
            selected.push(taken);
            let total = counter.count(&render(&selected));
            if total > budget {
                selected.pop();
                Some("over budget".to_owned())
            } else {
                used = total;
                None
            }
        };
        match suppressed {
            None => {
                for (i, k) in keys.into_iter().enumerate() {
                    if kept.get(i).copied().unwrap_or(true) {
                        seen.push((k, c.id.clone()));
                    }
                }
                taken_ids.push(&c.id);
                let reason = if naming.is_empty() {
                    c.why.clone()
                } else {
                    format!("{}: {}", c.why, naming.join(", "))
                };
                receipt.push(Receipt {
                    id: c.id.clone(),
                    part: c.part,
                    tokens,
                    decision: "selected",
                    reason,
                    duplicate_of: None,
                    repeats,
                });
            }
            // The same part offered again (an entity's card, for each memory that names it)
            // and left out for the same reason is in the receipt once.
            Some(reason)
                if receipt.iter().any(|r: &Receipt| {
                    r.id == c.id
                        && r.part == c.part
                        && r.decision == "suppressed"
                        && r.reason == reason
                }) => {}
            Some(reason) => receipt.push(Receipt {
                id: c.id.clone(),
                part: c.part,
                tokens,
                decision: "suppressed",
                duplicate_of: duplicate_of.filter(|_| reason.starts_with("duplicate")),
                reason,
                repeats: Vec::new(),
            }),
        }
    }
    let text = if selected.is_empty() { String::new() } else { render(&selected) };
    if selected.is_empty() {
        used = 0;
    }
    Pack { budget_tokens: budget, used_tokens: used, text, receipt, skipped: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per word: enough to test the packing logic.
    struct Words;
    impl TokenCounter for Words {
        fn count(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
    }

    /// A line `- [id] says` (or `- says`) that says what follows the id.
    fn c(id: &str, part: Part, text: &str, score: f64) -> Candidate {
        let says = text.split_once("] ").map_or(text, |(_, s)| s);
        Candidate::line(id, part, text.into(), says, score, "test".into())
    }

    fn card(id: &str, lines: &[&str], named_by: &[&str]) -> Candidate {
        Candidate {
            lines: lines.iter().map(|l| format!("- {l}")).collect(),
            says: lines.iter().map(|l| (*l).to_owned()).collect(),
            named_by: named_by.iter().map(|n| (*n).to_owned()).collect(),
            ..c(id, Part::Entity, &format!("### {id}"), 1.0)
        }
    }

    fn reasons(p: &Pack) -> Vec<(&str, &str)> {
        p.receipt.iter().map(|r| (r.id.as_str(), r.reason.as_str())).collect()
    }

    #[test]
    fn never_over_budget_and_every_candidate_accounted_for() {
        let cands = vec![
            c("core:a", Part::Core, "- the user is Sam", 1.0),
            c("m1", Part::Memory, "- [m1] we chose Postgres for Atlas last week", 0.9),
            c(
                "m2",
                Part::Memory,
                "- [m2] a very long memory that will not fit into the small budget at all because it keeps going",
                0.8,
            ),
            c("m3", Part::Memory, "- [m3] short", 0.7),
            c("m4", Part::Memory, "- [m1] we chose Postgres for Atlas last week", 0.6),
            c("m5", Part::Memory, "- [m5] weak", 0.01),
            Candidate { out: Some("archived".into()), ..c("m6", Part::Memory, "- [m6] old", 0.9) },
            Candidate {
                out: Some("superseded".into()),
                ..card("e1", &["a fact of a superseded tool"], &[])
            },
        ];
        for budget in [0, 5, 12, 20, 25, 40, 200] {
            let p = pack(budget, &cands, 0.1, &Words);
            assert!(p.used_tokens <= budget, "budget {budget}: {}", p.used_tokens);
            assert_eq!(Words.count(&p.text), p.used_tokens, "budget {budget}");
            assert_eq!(p.receipt.len(), cands.len(), "every candidate is in the receipt");
        }
        let p = pack(25, &cands, 0.1, &Words);
        assert_eq!(
            reasons(&p),
            [
                ("core:a", "test"),
                ("m1", "test"),
                ("m2", "over budget"),
                ("m3", "test"),
                ("m4", "duplicate of m1"),
                ("m5", "below threshold (0.01 < 0.10)"),
                ("m6", "archived"),
                ("e1", "superseded"),
            ]
        );
        assert_eq!(p.receipt[4].duplicate_of.as_deref(), Some("m1"));
        assert!(
            p.text.starts_with(
                "# Memory\n\n## Core memory\n- the user is Sam\n\n## Relevant memories\n"
            ),
            "{}",
            p.text
        );
    }

    /// A card offered again (found by the query, then named by a memory that went in) and
    /// over budget both times is in the receipt once; a card that went in is still listed as
    /// the duplicate it is when offered again.
    #[test]
    fn a_card_left_out_twice_for_one_reason_is_listed_once() {
        let big = ["Atlas is the billing rewrite in Rust", "uses: [[tool--ci]] and [[tool--cd]]"];
        let cands = vec![
            card("entity:atlas", &big, &[]),
            c("ep:2", Part::Memory, "- [ep:2] Bob met Carol", 0.8),
            card("entity:atlas", &big, &["ep:2"]),
        ];
        let p = pack(12, &cands, 0.1, &Words);
        assert_eq!(reasons(&p), [("entity:atlas", "over budget"), ("ep:2", "test")], "{}", p.text);
    }

    #[test]
    fn each_memory_and_each_statement_goes_in_once() {
        let cands = vec![
            c("core:a", Part::Core, "- Atlas ships on Friday", 1.0),
            // An entity found by the query: its card, then its one-line form.
            card("entity:atlas", &["Atlas is the billing rewrite", "uses: [[tool--ci]]"], &[]),
            c("entity:atlas", Part::Memory, "- [entity:atlas] Atlas is the billing rewrite", 1.0),
            // An episode saying what the card said.
            c("ep:1", Part::Memory, "- [ep:1] atlas is the billing rewrite.", 0.9),
            c("ep:2", Part::Memory, "- [ep:2] Bob met Carol about the Atlas rewrite", 0.8),
            // Cards named by the episode: one repeats core memory in part, one in full.
            card("entity:bob", &["Atlas ships on Friday", "Bob runs the release"], &["ep:2"]),
            card("entity:carol", &["atlas ships on friday."], &["ep:2"]),
            // Named only by what was left out, and named by nothing.
            card("entity:dan", &["Dan is on leave"], &["ep:1"]),
            card("entity:eve", &[], &[]),
            card("entity:atlas", &["Atlas is the billing rewrite"], &["ep:2"]),
        ];
        let p = pack(500, &cands, 0.1, &Words);
        assert_eq!(
            reasons(&p),
            [
                ("core:a", "test"),
                ("entity:atlas", "test"),
                ("entity:atlas", "duplicate of entity:atlas (already in)"),
                ("ep:1", "duplicate of entity:atlas"),
                ("ep:2", "test"),
                ("entity:bob", "test: ep:2"),
                ("entity:carol", "duplicate of core:a"),
                ("entity:dan", "named only by left-out memories: ep:1"),
                ("entity:eve", "empty: no summary, fact or relation"),
                ("entity:atlas", "duplicate of entity:atlas (already in)"),
            ]
        );
        let bob = &p.receipt[5];
        assert_eq!(bob.repeats.len(), 1, "{bob:?}");
        assert_eq!(bob.repeats[0].duplicate_of, "core:a");
        assert_eq!(
            p.text,
            "# Memory\n\n## Core memory\n- Atlas ships on Friday\n\n## Relevant memories\n\
             - [ep:2] Bob met Carol about the Atlas rewrite\n\n## Entities\n### entity:atlas\n\
             - Atlas is the billing rewrite\n- uses: [[tool--ci]]\n### entity:bob\n\
             - Bob runs the release\n"
        );
        assert_eq!(Words.count(&p.text), p.used_tokens);
        // When the card does not fit, the one-line form may.
        let p = pack(13, &cands[1..3], 0.1, &Words);
        assert_eq!(
            reasons(&p),
            [("entity:atlas", "over budget"), ("entity:atlas", "test")],
            "{}",
            p.text
        );
    }
}
