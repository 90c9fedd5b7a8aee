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

use crate::import::TRANSCRIPT_TAG;

/// How tokens are counted: a tiktoken encoding, or the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// GPT-4 / GPT-3.5 family.
    #[default]
    Cl100k,
    /// GPT-4o family.
    O200k,
    /// [`cogmem_text::tokens::estimate`]: no vocabulary to load (which takes 55–220 ms per
    /// process), and slightly above `cl100k_base` on English prose, so a budget it keeps is
    /// kept. What the hooks use, which run on every prompt (issue 17).
    Estimate,
}

impl Encoding {
    /// Every encoding, the default first.
    pub const ALL: [Self; 3] = [Self::Cl100k, Self::O200k, Self::Estimate];

    /// Returns the name `parse` reads: `cl100k_base`, `o200k_base` or `estimate`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cl100k => "cl100k_base",
            Self::O200k => "o200k_base",
            Self::Estimate => "estimate",
        }
    }

    /// Parses `cl100k_base` / `o200k_base` (or `cl100k` / `o200k`) and `estimate`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().trim_end_matches("_base") {
            "cl100k" => Some(Self::Cl100k),
            "o200k" => Some(Self::O200k),
            "estimate" => Some(Self::Estimate),
            _ => None,
        }
    }

    /// Returns the counter for this encoding (loading a tiktoken vocabulary once per process).
    pub fn counter(self) -> Box<dyn TokenCounter> {
        match self {
            Self::Estimate => Box::new(Estimate),
            tiktoken => Box::new(Tiktoken::new(tiktoken)),
        }
    }
}

/// Counts tokens with [`cogmem_text::tokens::estimate`].
pub struct Estimate;

impl TokenCounter for Estimate {
    fn count(&self, text: &str) -> usize {
        cogmem_text::tokens::estimate(text)
    }
}

/// Counts tokens with a tiktoken vocabulary, loaded once per process (it takes tens of ms).
pub struct Tiktoken(&'static tiktoken_rs::CoreBPE);

impl Tiktoken {
    /// Loads (once) the encoding's vocabulary, which is compiled into the binary
    /// ([`Encoding::Estimate`] has none: it gets `cl100k_base`'s).
    pub fn new(encoding: Encoding) -> Self {
        // Process-wide on purpose, and harmless to an embedding program: each is a read-only
        // vocabulary built lazily from data compiled in, the same for every workspace and
        // caller; no option or state of anyone's lives here.
        static CL: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
        static O2: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
        let bpe = match encoding {
            Encoding::Cl100k | Encoding::Estimate => {
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
    build(ws, query, false, opts, clock)
}

/// Builds the pack for the start of a session: what [`context`] gives without a query, and
/// after the cards of the entities the week's episodes name, those of the most relevant
/// entities (by decayed relevance), so that what is current is there even in a quiet week
/// (issue 17). Records the selected memories as used.
pub fn session(ws: &Workspace, opts: &ContextOptions, clock: &dyn Clock) -> crate::Result<Pack> {
    build(ws, None, true, opts, clock)
}

/// Entity cards a pack offers at most.
const MAX_CARDS: usize = 10;

fn build(
    ws: &Workspace,
    query: Option<&str>,
    current: bool,
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
                    // An imported host transcript is the conversation itself, not what is
                    // recent in memory (issue 17); a query still finds it.
                    u.store == Store::Episodic
                        && u.date.as_deref().is_some_and(|d| d >= since.as_str())
                        && !u.tags.iter().any(|t| t == TRANSCRIPT_TAG)
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
    if current {
        let mut entities: Vec<(&MemoryUnit, f64)> = all
            .units
            .iter()
            .filter(|u| u.store == Store::Semantic && u.status.is_none())
            .filter(|u| !decay_file.is_forgotten(&u.id))
            .map(|u| {
                let r = decay_file.inputs(&u.id, now).map_or(1.0, |i| decay::relevance(&i, &at, p));
                (u, r)
            })
            .collect();
        entities.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.date.cmp(&a.0.date)));
        for (u, _) in entities {
            let e = u.id.trim_start_matches("entity:");
            if entity_ids.len() >= MAX_CARDS {
                break;
            }
            if !entity_ids.iter().any(|x| x == e) {
                entity_ids.push(e.to_owned());
            }
        }
    }
    for e in entity_ids.iter().take(MAX_CARDS) {
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
    let pack = pack::pack(opts.budget, &candidates, opts.threshold, &*opts.encoding.counter());
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

/// Builds the pack of the memories that match `query`, without core memory or entity cards:
/// what a hook adds to each prompt of a session that has core memory already (issue 17).
///
/// Reads only the search index (no memory file), so it stays fast on a large workspace. Core
/// memory hits and the units in `exclude` (what the prompt itself just wrote) are left out;
/// each memory is one line with its id and date. Does not count as a use.
pub fn relevant(
    ws: &Workspace,
    query: &str,
    exclude: &[String],
    opts: &ContextOptions,
    clock: &dyn Clock,
) -> crate::Result<Pack> {
    let report = super::search::search(
        ws,
        query,
        &SearchOptions { limit: 20, ..Default::default() },
        clock,
    )?;
    let best = report.hits.iter().map(|h| h.score).fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
    let candidates: Vec<Candidate> = report
        .hits
        .iter()
        .filter(|h| h.store != Store::Core.as_str() && !exclude.contains(&h.id))
        .map(|h| {
            let date = h.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            // The words around the first match, without an entity's title and comment lines.
            let words: String = cogmem_index::index::search::snippet(&h.text, query, SNIPPET_WORDS)
                .into_iter()
                .map(|(piece, _)| piece)
                .collect();
            let text = shorten(&words, 400);
            Candidate {
                id: h.id.clone(),
                part: Part::Memory,
                text: format!("- [{}]{date} {text}", h.id),
                score: h.score / best,
                why: format!("matches the prompt ({:.2})", h.score),
                archived: false,
                superseded: false,
            }
        })
        .collect();
    Ok(pack::pack(opts.budget, &candidates, opts.threshold, &*opts.encoding.counter()))
}

/// Words of a memory a prompt's context shows around the first match.
const SNIPPET_WORDS: usize = 40;

/// `text` cut to `max` characters, with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() > max {
        format!("{}…", text.chars().take(max - 1).collect::<String>())
    } else {
        text.to_owned()
    }
}

/// A memory's text on one line, shortened to 600 characters.
fn summary(u: &MemoryUnit) -> String {
    let text = if u.store == Store::Episodic {
        one_line(&u.text)
    } else {
        body_lines(&u.text, 6).join(" / ")
    };
    shorten(&text, 600)
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
