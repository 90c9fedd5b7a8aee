//! Bounded context packs: what an agent puts in its prompt. Core memory first, then the best
//! memories, then the cards of the entities they touch — packed to fit a token budget, never
//! over, with a receipt that says why every candidate was taken or left out. Pure: the caller
//! supplies the candidates and the token counter.

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
    /// A memory found for the query (or a recent one).
    Memory,
    /// An entity's card.
    Entity,
}

/// Something that may go into the pack.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its id.
    pub id: String,
    /// What it is.
    pub part: Part,
    /// The line(s) it adds, as rendered.
    pub text: String,
    /// Its rank score (memories), or 1 (core, entity cards).
    pub score: f64,
    /// Why it is a candidate ("core memory", "matches the query", …).
    pub why: String,
    /// Faded out or forgotten.
    pub archived: bool,
    /// Superseded or inactive.
    pub superseded: bool,
}

/// A receipt line.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    /// The candidate's id.
    pub id: String,
    /// What it is.
    pub part: Part,
    /// Tokens it takes (counted as rendered).
    pub tokens: usize,
    /// `selected` or `suppressed`.
    pub decision: &'static str,
    /// Why: for selected ones the candidate's reason; for suppressed ones `archived`,
    /// `superseded`, `duplicate`, `over budget` or `below threshold`.
    pub reason: String,
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
}

const HEADINGS: [(Part, &str); 3] = [
    (Part::Core, "## Core memory\n"),
    (Part::Memory, "## Relevant memories\n"),
    (Part::Entity, "## Entities\n"),
];

fn render(selected: &[&Candidate]) -> String {
    let mut out = String::from("# Memory\n");
    for (part, heading) in HEADINGS {
        let items: Vec<&&Candidate> = selected.iter().filter(|c| c.part == part).collect();
        if items.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(heading);
        for c in items {
            out.push_str(c.text.trim_end());
            out.push('\n');
        }
    }
    out
}

/// Packs candidates (in priority order) into `budget` tokens.
///
/// A candidate is left out when archived, superseded, a duplicate of one already taken, scored
/// below `threshold` (memories only), or when adding it would go over the budget — in which
/// case smaller ones after it may still fit. The whole rendered text is counted after every
/// addition, so the pack never exceeds the budget.
pub fn pack(
    budget: usize,
    candidates: &[Candidate],
    threshold: f64,
    counter: &dyn TokenCounter,
) -> Pack {
    let mut selected: Vec<&Candidate> = Vec::new();
    let mut receipt = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut used = 0;
    for c in candidates {
        let tokens = counter.count(&c.text);
        let key = cogmem_store::store::markdown::one_line(&c.text).to_lowercase();
        let suppressed = if c.archived {
            Some("archived".to_owned())
        } else if c.superseded {
            Some("superseded".to_owned())
        } else if seen.contains(&key) {
            Some("duplicate".to_owned())
        } else if c.part == Part::Memory && c.score < threshold {
            Some(format!("below threshold ({:.2} < {threshold:.2})", c.score))
        } else {
            selected.push(c);
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
                seen.push(key);
                receipt.push(Receipt {
                    id: c.id.clone(),
                    part: c.part,
                    tokens,
                    decision: "selected",
                    reason: c.why.clone(),
                });
            }
            Some(reason) => receipt.push(Receipt {
                id: c.id.clone(),
                part: c.part,
                tokens,
                decision: "suppressed",
                reason,
            }),
        }
    }
    let text = if selected.is_empty() { String::new() } else { render(&selected) };
    if selected.is_empty() {
        used = 0;
    }
    Pack { budget_tokens: budget, used_tokens: used, text, receipt }
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

    fn c(id: &str, part: Part, text: &str, score: f64) -> Candidate {
        Candidate {
            id: id.into(),
            part,
            text: text.into(),
            score,
            why: "test".into(),
            archived: false,
            superseded: false,
        }
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
            Candidate { archived: true, ..c("m6", Part::Memory, "- [m6] old", 0.9) },
            Candidate { superseded: true, ..c("e1", Part::Entity, "### tool--pg14", 1.0) },
        ];
        for budget in [0, 5, 12, 20, 25, 40, 200] {
            let p = pack(budget, &cands, 0.1, &Words);
            assert!(p.used_tokens <= budget, "budget {budget}: {}", p.used_tokens);
            assert_eq!(Words.count(&p.text), p.used_tokens, "budget {budget}");
            assert_eq!(p.receipt.len(), cands.len(), "every candidate is in the receipt");
        }
        let p = pack(25, &cands, 0.1, &Words);
        let reasons: Vec<(&str, &str)> =
            p.receipt.iter().map(|r| (r.id.as_str(), r.reason.as_str())).collect();
        assert_eq!(
            reasons,
            [
                ("core:a", "test"),
                ("m1", "test"),
                ("m2", "over budget"),
                ("m3", "test"),
                ("m4", "duplicate"),
                ("m5", "below threshold (0.01 < 0.10)"),
                ("m6", "archived"),
                ("e1", "superseded"),
            ]
        );
        assert!(
            p.text.starts_with(
                "# Memory\n\n## Core memory\n- the user is Sam\n\n## Relevant memories\n"
            ),
            "{}",
            p.text
        );
    }
}
