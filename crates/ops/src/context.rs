//! `cogmem context`: the bounded pack an agent puts in its prompt (see [`cogmem_index::pack`]). Core
//! memory first; then, for a query, the best search hits, or without one the most relevant
//! recent episodes; then the cards of the entities they name. Tokens are counted with a real
//! BPE vocabulary (tiktoken's `cl100k_base` or `o200k_base`). The selected memories count as
//! uses.

use std::sync::OnceLock;

use cogmem_index::index::search::SearchOptions;
use cogmem_index::pack::{self, Candidate, Pack, Part, TokenCounter};
use cogmem_store::access;
use cogmem_store::decay;
use cogmem_store::store::markdown::one_line;
use cogmem_store::store::units::{self, MemoryUnit};
use cogmem_store::store::{Store, markdown};
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::Clock;

/// A tiktoken encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// GPT-4 / GPT-3.5 family.
    #[default]
    Cl100k,
    /// GPT-4o family.
    O200k,
}

impl Encoding {
    /// Parses `cl100k_base` / `o200k_base` (or `cl100k` / `o200k`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().trim_end_matches("_base") {
            "cl100k" => Some(Self::Cl100k),
            "o200k" => Some(Self::O200k),
            _ => None,
        }
    }
}

/// Counts tokens with a tiktoken vocabulary, loaded once per process (it takes tens of ms).
pub struct Tiktoken(&'static tiktoken_rs::CoreBPE);

impl Tiktoken {
    /// Loads (once) the encoding's vocabulary, which is compiled into the binary.
    pub fn new(encoding: Encoding) -> Self {
        // Process-wide on purpose, and harmless to an embedding program: each is a read-only
        // vocabulary built lazily from data compiled in, the same for every workspace and
        // caller; no option or state of anyone's lives here.
        static CL: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
        static O2: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
        let bpe = match encoding {
            Encoding::Cl100k => {
                CL.get_or_init(|| tiktoken_rs::cl100k_base().expect("the vocabulary is embedded"))
            }
            Encoding::O200k => {
                O2.get_or_init(|| tiktoken_rs::o200k_base().expect("the vocabulary is embedded"))
            }
        };
        Self(bpe)
    }
}

impl TokenCounter for Tiktoken {
    fn count(&self, text: &str) -> usize {
        self.0.encode_ordinary(text).len()
    }
}

/// Options for a pack.
#[derive(Debug, Clone)]
pub struct ContextOptions {
    /// The token budget.
    pub budget: usize,
    /// The tokenizer.
    pub encoding: Encoding,
    /// Memories scoring below this share of the best hit are left out.
    pub threshold: f64,
}

/// Builds the pack for `query` (or, without one, for what is recent), and records the
/// selected memories as used.
pub fn context(
    ws: &Workspace,
    query: Option<&str>,
    opts: &ContextOptions,
    clock: &dyn Clock,
) -> crate::Result<Pack> {
    let now = clock.now();
    let all = units::list(ws);
    let decay_file = access::load_decay(ws)?;
    let p = &ws.settings().decay;
    let at = decay_file.now(now);
    let mut candidates: Vec<Candidate> = Vec::new();
    for u in all.units.iter().filter(|u| u.store == Store::Core) {
        candidates.push(Candidate {
            id: u.id.clone(),
            part: Part::Core,
            text: format!("- {}", u.text),
            score: 1.0,
            why: "core memory".into(),
            archived: decay_file.is_forgotten(&u.id),
            superseded: false,
        });
    }
    let mut memory_units: Vec<(MemoryUnit, f64, String)> = Vec::new();
    match query.map(str::trim).filter(|q| !q.is_empty()) {
        Some(q) => {
            let report = super::search::search(
                ws,
                q,
                &SearchOptions { limit: 20, ..Default::default() },
                clock,
            )?;
            let best =
                report.hits.iter().map(|h| h.score).fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
            for h in report.hits.iter().filter(|h| h.store != "core") {
                if let Some(u) = all.get(&h.id) {
                    memory_units.push((
                        u.clone(),
                        h.score / best,
                        format!("matches the query ({:.2})", h.score),
                    ));
                }
            }
        }
        None => {
            let since = (now - chrono::Duration::days(7)).format("%Y-%m-%d").to_string();
            let mut recent: Vec<(MemoryUnit, f64)> = all
                .units
                .iter()
                .filter(|u| {
                    u.store == Store::Episodic
                        && u.date.as_deref().is_some_and(|d| d >= since.as_str())
                })
                .map(|u| {
                    let r =
                        decay_file.inputs(&u.id, now).map_or(0.8, |i| decay::relevance(&i, &at, p));
                    (u.clone(), r)
                })
                .collect();
            recent.sort_by(|a, b| {
                b.0.date.cmp(&a.0.date).then(b.0.line.cmp(&a.0.line)).then(b.1.total_cmp(&a.1))
            });
            for (u, r) in recent.into_iter().take(30) {
                memory_units.push((u, r, "recent episode".into()));
            }
        }
    }
    let mut entity_ids: Vec<String> = Vec::new();
    for (u, score, why) in &memory_units {
        let relevance = decay_file.inputs(&u.id, now).map_or(1.0, |i| decay::relevance(&i, &at, p));
        let date = u.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
        candidates.push(Candidate {
            id: u.id.clone(),
            part: Part::Memory,
            text: format!("- [{}]{date} {}", u.id, summary(u)),
            score: *score,
            why: why.clone(),
            archived: decay_file.is_forgotten(&u.id)
                || decay::band(relevance, p) == decay::Band::Archived,
            superseded: u.status.is_some(),
        });
        for e in &u.entities {
            if !entity_ids.contains(e) {
                entity_ids.push(e.clone());
            }
        }
    }
    for e in entity_ids.iter().take(10) {
        let id = format!("entity:{e}");
        let Some(u) = all.get(&id) else { continue };
        candidates.push(Candidate {
            id,
            part: Part::Entity,
            text: card(u),
            score: 1.0,
            why: "named by a selected memory".into(),
            archived: decay_file.is_forgotten(&u.id),
            superseded: u.status.is_some(),
        });
    }
    let pack = pack::pack(opts.budget, &candidates, opts.threshold, &Tiktoken::new(opts.encoding));
    let used: Vec<String> = pack
        .receipt
        .iter()
        .filter(|r| r.decision == "selected" && r.part != Part::Core)
        .map(|r| r.id.clone())
        .collect();
    if !used.is_empty() {
        access::record(ws, &used, 0, now)?;
    }
    Ok(pack)
}

/// A memory's text on one line, shortened to 600 characters.
fn summary(u: &MemoryUnit) -> String {
    let text = if u.store == Store::Episodic {
        one_line(&u.text)
    } else {
        body_lines(&u.text, 6).join(" / ")
    };
    if text.chars().count() > 600 {
        format!("{}…", text.chars().take(599).collect::<String>())
    } else {
        text
    }
}

/// An entity's card: its id, then its facts and current relations.
fn card(u: &MemoryUnit) -> String {
    let lines = body_lines(&u.text, 8);
    format!(
        "### {}\n{}",
        u.id.trim_start_matches("entity:"),
        lines.iter().map(|l| format!("{l}\n")).collect::<String>()
    )
}

/// The bullet and text lines of a file's body, without headings and comments.
fn body_lines(text: &str, max: usize) -> Vec<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    text[prefix..]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("<!--"))
        .filter(|l| !l.contains("(until "))
        .take(max)
        .map(str::to_owned)
        .collect()
}
