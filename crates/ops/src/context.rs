//! `cogmem context`: the bounded pack an agent puts in its prompt (see [`cogmem_index::pack`]).
//! Core memory first; then the latest reflection and the recent reward outcomes (`outcomes`,
//! issue 19); then, for a query, the best search hits, or without one the most relevant recent
//! episodes; then the cards of the entities they name. Tokens are counted with a real BPE
//! vocabulary (tiktoken's `cl100k_base` or `o200k_base`). The selected memories count as uses.
//!
//! What a card shows is decided here (issue 18): an entity's summary and facts, its current
//! relations, then its history — a relation closed with `(until …)` or pointing at an entity
//! that is superseded, inactive or merged is a `formerly …` line, never a current one. An
//! entity found by the query is offered as its card first (it says more) and as one line
//! after (which may fit when the card does not); a card is offered only for an entity with
//! something current, and goes in only after a memory that names it.

use std::sync::OnceLock;

use cogmem_index::index::search::SearchOptions;
use cogmem_index::pack::{self, Candidate, Pack, Part, TokenCounter};
use cogmem_store::access;
use cogmem_store::decay;
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::markdown::one_line;
use cogmem_store::store::units::{self, MemoryUnit, Unreadable};
use cogmem_store::store::{Store, entity, markdown};
use cogmem_store::vocab::Vocabulary;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;

use crate::import::TRANSCRIPT_TAG;

mod outcomes;

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

/// Recent episodes a session's pack offers at most.
const RECENT: usize = 30;

/// Entity cards a pack offers at most (cards that stay out for a reason known before packing
/// do not count).
const MAX_CARDS: usize = 10;

/// Summary and fact lines a card shows at most.
const CARD_FACTS: usize = 6;

/// Relation lines a card shows at most (current ones first, then history).
const CARD_RELATIONS: usize = 4;

fn build(
    ws: &Workspace,
    query: Option<&str>,
    current: bool,
    opts: &ContextOptions,
    clock: &dyn Clock,
) -> crate::Result<Pack> {
    let now = clock.now();
    // Only the files the pack needs are read (issue 20: reading and splitting every memory
    // file took 0.4 s at 100,000 memories).
    let files = Files::new(ws);
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    // What the pack may hold is found before the decay state is read: the search hits, or
    // the week's episodes (an episode file is named by its day: only the week's are read).
    let report = match query {
        Some(q) => Some(super::search::search(
            ws,
            q,
            &SearchOptions { limit: 20, ..Default::default() },
            clock,
        )?),
        None => None,
    };
    let since = (now - chrono::Duration::days(7)).format("%Y-%m-%d").to_string();
    let week: Vec<std::rc::Rc<Vec<MemoryUnit>>> = match query {
        Some(_) => Vec::new(),
        None => units::markdown_files(ws.root(), layout::EPISODES_DIR)
            .iter()
            .filter(|rel| units::md_stem(rel) >= since.as_str())
            .map(|rel| files.units(rel))
            .collect(),
    };
    cogmem_store::timing::mark("context: the week's episodes read");
    // The week's most recent episodes, the ones a session's pack offers: chosen by date and
    // line (ties at the last place kept), so only their decay entries are needed.
    let recent: Vec<MemoryUnit> = {
        let mut v: Vec<&MemoryUnit> = week
            .iter()
            .flat_map(|f| f.iter())
            .filter(|u| {
                // An imported host transcript is the conversation itself, not what is
                // recent in memory (issue 17); a query still finds it.
                u.store == Store::Episodic
                    && u.date.as_deref().is_some_and(|d| d >= since.as_str())
                    && !u.tags.iter().any(|t| t == TRANSCRIPT_TAG)
            })
            .collect();
        v.sort_by(|a, b| b.date.cmp(&a.date).then(b.line.cmp(&a.line)));
        let last = v.get(RECENT - 1).map(|u| (u.date.clone(), u.line));
        v.into_iter()
            .take_while(|u| last.as_ref().is_none_or(|l| (&u.date, u.line) >= (&l.0, l.1)))
            .cloned()
            .collect()
    };
    // Only the decay entries of those memories, of the entities they name and of core memory
    // (issue 20: the whole state was read, 0.1 s at 100,000 memories); from the index's
    // caches when they are current. A session also ranks every entity
    // ([`most_relevant_entities`]).
    // The index's decay caches, when current: asked once for the whole pack.
    let cache = cogmem_index::index::CachedDecay::open(ws);
    let decay = {
        let mut ids: Vec<String> =
            files.units(layout::MEMORY_MD).iter().map(|u| u.id.clone()).collect();
        let hits = report.iter().flat_map(|r| r.hits.iter());
        let found = hits.filter_map(|h| files.get(&h.path, &h.id));
        for u in found.chain(recent.iter().cloned()) {
            ids.extend(u.entities.iter().map(|e| format!("entity:{e}")));
            ids.push(u.id);
        }
        let keys: Vec<&str> = ids.iter().map(String::as_str).collect();
        Decay::load(ws, cache.as_ref(), &keys, now)?
    };
    cogmem_store::timing::mark("context: decay state read");
    let p = &ws.settings().decay;
    let at = decay.at;
    let states = EntityStates { files: &files, decay: &decay, vocab: vocabulary(ws)? };
    // Why a memory of this relevance stays out whatever the budget: faded out.
    let faded = |relevance: f64| {
        (decay::band(relevance, p) == decay::Band::Archived)
            .then(|| format!("archived (relevance {relevance:.2})"))
    };
    // Why a memory stays out whatever the budget: forgotten, faded out, superseded.
    let out_of = |u: &MemoryUnit| -> Option<String> {
        if decay.is_forgotten(&u.id) {
            return Some("archived (forgotten)".into());
        }
        if u.store == Store::Semantic
            && let Some(why) = states.not_current(u.id.trim_start_matches("entity:"))
        {
            return Some(why);
        }
        faded(decay.inputs(&u.id).map(|i| decay::relevance(i, &at, p))?)
    };
    let mut candidates: Vec<Candidate> = Vec::new();
    for u in files.units(layout::MEMORY_MD).iter().filter(|u| u.store == Store::Core) {
        let mut c = Candidate::line(
            &u.id,
            Part::Core,
            format!("- {}", u.text),
            &u.text,
            1.0,
            "core memory".into(),
        );
        c.out = decay.is_forgotten(&u.id).then(|| "archived (forgotten)".into());
        candidates.push(c);
    }
    candidates.extend(outcomes::candidates(ws)?);
    let mut memory_units: Vec<(MemoryUnit, f64, String)> = Vec::new();
    match &report {
        Some(report) => {
            let best =
                report.hits.iter().map(|h| h.score).fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
            for h in report.hits.iter().filter(|h| h.store != "core") {
                if let Some(u) = files.get(&h.path, &h.id) {
                    let activation = if h.activation > 0.0 {
                        format!(", graph activation {:.2}", h.activation)
                    } else {
                        String::new()
                    };
                    memory_units.push((
                        u,
                        h.score / best,
                        format!(
                            "matches the query (score {:.2}: BM25 {:.2} × relevance {:.2}{activation})",
                            h.score, h.bm25, h.relevance
                        ),
                    ));
                }
            }
        }
        None => {
            let mut recent: Vec<(MemoryUnit, f64)> = recent
                .into_iter()
                .map(|u| {
                    let r = decay.inputs(&u.id).map_or(0.8, |i| decay::relevance(i, &at, p));
                    (u, r)
                })
                .collect();
            recent.sort_by(|a, b| {
                b.0.date.cmp(&a.0.date).then(b.0.line.cmp(&a.0.line)).then(b.1.total_cmp(&a.1))
            });
            for (u, r) in recent.into_iter().take(RECENT) {
                let why = format!("recent episode (relevance {r:.2})");
                memory_units.push((u, r, why));
            }
        }
    }
    // Entity -> the memories that name it, in order of first mention; only memories that may
    // go in name a card.
    let mut named: Vec<(String, Vec<String>)> = Vec::new();
    for (u, score, why) in &memory_units {
        let date = u.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
        let out = out_of(u);
        if u.store == Store::Semantic {
            // An entity found: its card (which says more, and wins when it fits), then its
            // one-line form, which may fit when the card does not (issue 18).
            let items = states.card_items(u);
            let mut card = card_candidate(u, &items, why.clone(), *score);
            card.out = out.or(card.out);
            let line_out = card.out.clone();
            candidates.push(card);
            let text: Vec<&str> = items.iter().map(CardItem::text).collect();
            candidates.push(Candidate {
                says: items.iter().map(|i| i.says.clone()).collect(),
                out: line_out,
                ..Candidate::line(
                    &u.id,
                    Part::Memory,
                    format!("- [{}]{date} {}", u.id, shorten(&text.join(" / "), 600)),
                    "",
                    *score,
                    why.clone(),
                )
            });
        } else {
            let says = summary(u);
            let mut c = Candidate::line(
                &u.id,
                Part::Memory,
                format!("- [{}]{date} {says}", u.id),
                &says,
                *score,
                why.clone(),
            );
            c.out = out;
            candidates.push(c);
        }
        for e in &u.entities {
            if u.id.strip_prefix("entity:") == Some(e.as_str()) {
                continue;
            }
            match named.iter_mut().find(|(x, _)| x == e) {
                Some((_, by)) => by.push(u.id.clone()),
                None => named.push((e.clone(), vec![u.id.clone()])),
            }
        }
    }
    let mut cards: Vec<Candidate> = Vec::new();
    let mut offered = 0;
    for (e, by) in &named {
        if offered >= MAX_CARDS {
            break;
        }
        let Some(u) = files.entity(e) else { continue };
        let u = &u;
        let items = states.card_items(u);
        let mut card = card_candidate(u, &items, "named by".into(), 1.0);
        card.named_by = by.clone();
        card.out = out_of(u).or(card.out);
        let certainly_out = card.out.is_some()
            || !by.iter().any(|m| {
                memory_units
                    .iter()
                    .any(|(u, s, _)| &u.id == m && *s >= opts.threshold && out_of(u).is_none())
            });
        if !certainly_out {
            offered += 1;
        }
        cards.push(card);
    }
    cogmem_store::timing::mark("context: memories and named cards");
    if current {
        // Every entity is a candidate here (the most relevant ones, whatever the week named),
        // ranked without reading every entity file: only the best ones are read, in order.
        let named_ids: std::collections::HashSet<String> =
            named.iter().map(|(e, _)| format!("entity:{e}")).collect();
        let entities = most_relevant_entities(
            ws,
            cache.as_ref(),
            &files,
            &states,
            &named_ids,
            now,
            3 * MAX_CARDS,
        )?;
        cogmem_store::timing::mark("context: entities ranked");
        // Entities that stay out (empty, nothing current) are in the receipt, but only so many.
        for (u, r) in &entities {
            if offered >= MAX_CARDS {
                break;
            }
            let items = states.card_items(u);
            let mut card = card_candidate(
                u,
                &items,
                format!("a most relevant entity (relevance {r:.2})"),
                1.0,
            );
            // Neither forgotten nor superseded (left out above): only its relevance may keep it
            // out, as `out_of` would say.
            card.out = faded(*r).or(card.out);
            if card.out.is_none() {
                offered += 1;
            }
            cards.push(card);
        }
    }
    cogmem_store::timing::mark("context: entity cards");
    candidates.extend(cards);
    crate::flag::offer(ws, &mut candidates);
    let mut pack = pack::pack(opts.budget, &candidates, opts.threshold, &*opts.encoding.counter());
    // What could not be read, the pack made without it: the search's files, the decay files.
    let searched = report.map(|r| r.refresh.skipped).unwrap_or_default();
    pack.skipped = searched.into_iter().chain(decay.skipped).collect();
    pack.skipped.dedup_by(|a, b| a.path == b.path);
    let mut used: Vec<String> = pack
        .receipt
        .iter()
        .filter(|r| r.decision == "selected" && matches!(r.part, Part::Memory | Part::Entity))
        .map(|r| r.id.clone())
        .collect();
    used.dedup();
    cogmem_store::timing::mark("context: packed");
    if !used.is_empty() {
        access::record(ws, &used, 0, now)?;
    }
    Ok(pack)
}

/// Builds the pack of the memories that match `query`, without core memory or entity cards:
/// what a hook adds to each prompt of a session that has core memory already (issue 17).
///
/// Reads only the search index (no memory file), so it stays fast on a large workspace. Core
/// memory hits are left out; each memory is one line with its id and date. Does not count as
/// a use.
pub fn relevant(
    ws: &Workspace,
    query: &str,
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
    let vocab = vocabulary(ws)?;
    // The entities the entities found link to that were forgotten: their relations are left
    // out of the cards (the decay inputs of those ids alone, as the session pack reads them).
    let targets: Vec<String> = report
        .hits
        .iter()
        .filter(|h| h.store == Store::Semantic.as_str())
        .flat_map(|h| entity::relations(&h.text))
        .map(|r| format!("entity:{}", r.target))
        .collect();
    let keys: Vec<&str> = targets.iter().map(String::as_str).collect();
    // Most prompts find no entity with relations: no decay state is opened for them.
    let decay = if keys.is_empty() {
        Decay {
            at: decay::Now { time: clock.now(), interactions: 0 },
            entries: std::collections::HashMap::new(),
            skipped: Vec::new(),
        }
    } else {
        let cache = cogmem_index::index::CachedDecay::open(ws);
        Decay::load(ws, cache.as_ref(), &keys, clock.now())?
    };
    // Whether the entities an entity found links to are still current: read from their files,
    // once each, so a superseded one is shown as history (issue 18).
    let states: std::cell::RefCell<std::collections::HashMap<String, Option<String>>> =
        std::cell::RefCell::default();
    let not_current_now = |id: &str| -> Option<String> {
        if let Some(known) = states.borrow().get(id) {
            return known.clone();
        }
        let why = entity::EntityId::parse(id)
            .ok()
            .and_then(|e| {
                ws.read_text_if_exists(&format!("{}/{}.md", layout::ENTITIES_DIR, e.as_str()))
                    .ok()
                    .flatten()
            })
            .and_then(|text| not_current(&text));
        states.borrow_mut().insert(id.to_owned(), why.clone());
        why
    };
    let lookup = |id: &str| Target::of(id, &decay, not_current_now);
    let mut candidates: Vec<Candidate> = report
        .hits
        .iter()
        .filter(|h| h.store != Store::Core.as_str())
        .map(|h| {
            let date = h.date.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            // An entity as its card would show it: closed and superseded relations as history.
            let (source, out) = if h.store == Store::Semantic.as_str() {
                let subject = h.id.trim_start_matches("entity:");
                let items = card_items(subject, &h.text, &vocab, &lookup);
                let lines: Vec<&str> = items.iter().map(CardItem::text).collect();
                (lines.join(" / "), card_out(&items))
            } else {
                (h.text.clone(), None)
            };
            // The words around the first match, without an entity's title and comment lines.
            let words: String = cogmem_index::index::search::snippet(&source, query, SNIPPET_WORDS)
                .into_iter()
                .map(|(piece, _)| piece)
                .collect();
            let text = shorten(&words, 400);
            let mut c = Candidate::line(
                &h.id,
                Part::Memory,
                format!("- [{}]{date} {text}", h.id),
                &text,
                h.score / best,
                format!("matches the prompt ({:.2})", h.score),
            );
            c.out = out;
            c
        })
        .collect();
    crate::flag::offer(ws, &mut candidates);
    let mut pack = pack::pack(opts.budget, &candidates, opts.threshold, &*opts.encoding.counter());
    pack.skipped = report.refresh.skipped;
    Ok(pack)
}

/// Words of a memory a prompt's context shows around the first match.
const SNIPPET_WORDS: usize = 40;

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
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

/// The bullet and text lines of a file's body, without headings and comments.
fn body_lines(text: &str, max: usize) -> Vec<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    text[prefix..]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("<!--"))
        .take(max)
        .map(str::to_owned)
        .collect()
}

/// Relations about the replacement itself: they stay as written even though one end is
/// superseded.
const SUPERSEDING: [&str; 2] = ["supersedes", "superseded-by"];

/// The entities that are not current (superseded, inactive, merged), and what replaced them:
/// what a card needs to tell a current relation from history (issue 18). Read from each
/// entity's file when first asked.
struct EntityStates<'a> {
    files: &'a Files<'a>,
    /// The pack's decay inputs, for the entities that were forgotten.
    decay: &'a Decay,
    /// The relation vocabulary, for the inverse of each relation.
    vocab: Vocabulary,
}

/// The memory files a pack reads, each read and split into units once, when first needed. A
/// file that cannot be read has no units (as `units::list` leaves it out).
/// The `n` most relevant entities that are current, not forgotten and not in `named`, with
/// their relevance, best first (ties by the newer date), as if every entity file were read
/// and ranked: the entities are ranked by their decay inputs first (from the index's caches
/// when they are current, else from the decay files; one without an entry counts as new,
/// 1.0), and files are read in that order until `n` pass and no later one can tie.
fn most_relevant_entities(
    ws: &Workspace,
    cache: Option<&cogmem_index::index::CachedDecay>,
    files: &Files<'_>,
    states: &EntityStates<'_>,
    named: &std::collections::HashSet<String>,
    now: cogmem_text::clock::Timestamp,
    n: usize,
) -> crate::Result<Vec<(MemoryUnit, f64)>> {
    let p = &ws.settings().decay;
    // id → (relevance, forgotten)
    let cached = cache.and_then(|c| c.with_prefix("entity:"));
    let known: std::collections::HashMap<String, (f64, bool)> = match cached {
        Some((interactions, entries)) => {
            cogmem_store::timing::mark("context: entities ranked from the index's caches");
            let at = cogmem_store::decay::Now { time: now, interactions };
            entries
                .into_iter()
                .map(|(id, i)| (id, (decay::relevance(&i, &at, p), i.forgotten)))
                .collect()
        }
        None => {
            cogmem_store::timing::mark("context: entities ranked from the decay files");
            // A bad decay file is reported by the pack's own read of the decay state.
            let (d, _) = DecayFile::load_readable(ws, None);
            let at = d.now(now);
            d.keys()
                .into_iter()
                .filter(|k| k.starts_with("entity:"))
                .map(|k| {
                    let r = d.inputs(&k, now).map_or(1.0, |i| decay::relevance(&i, &at, p));
                    let forgotten = d.is_forgotten(&k);
                    (k, (r, forgotten))
                })
                .collect()
        }
    };
    // (file, relevance) of the entities that may have a card; an entity file holds one unit,
    // `entity:` and its name.
    let mut ranked: Vec<(String, f64)> = units::markdown_files(ws.root(), layout::ENTITIES_DIR)
        .into_iter()
        .filter_map(|rel| {
            let id = format!("entity:{}", units::md_stem(&rel));
            let (r, forgotten) = known.get(&id).copied().unwrap_or((1.0, false));
            (!forgotten && !named.contains(&id)).then_some((rel, r))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut found: Vec<(MemoryUnit, f64)> = Vec::new();
    for (rel, r) in &ranked {
        // Enough, and what is left ranks lower than the last one kept: nothing can tie.
        if found.len() >= n && found.last().is_some_and(|(_, last)| r.total_cmp(last).is_lt()) {
            break;
        }
        for u in files.units(rel).iter() {
            let slug = u.id.trim_start_matches("entity:");
            if u.store == Store::Semantic && states.not_current(slug).is_none() {
                found.push((u.clone(), *r));
            }
        }
    }
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.date.cmp(&a.0.date)));
    found.truncate(n);
    Ok(found)
}

/// The decay inputs a pack needs, by id: from the index's caches when they are current (as
/// search scores), else from the decay files' shards that hold them.
struct Decay {
    at: decay::Now,
    /// id → its inputs (if its entry has them) and whether it was forgotten.
    entries: std::collections::HashMap<String, (Option<decay::DecayInputs>, bool)>,
    /// Decay files that could not be read: their memories count as new.
    skipped: Vec<Unreadable>,
}

impl Decay {
    fn load(
        ws: &Workspace,
        cache: Option<&cogmem_index::index::CachedDecay>,
        keys: &[&str],
        now: cogmem_text::clock::Timestamp,
    ) -> crate::Result<Self> {
        if let Some(cache) = cache {
            cogmem_store::timing::mark("context: decay inputs from the index's caches");
            let (interactions, found) = cache.lookup(keys);
            let entries = found.into_iter().map(|(k, i)| (k, (Some(i), i.forgotten))).collect();
            let at = decay::Now { time: now, interactions };
            return Ok(Self { at, entries, skipped: Vec::new() });
        }
        cogmem_store::timing::mark("context: decay inputs from the decay files");
        let (d, skipped) = DecayFile::load_readable(ws, Some(keys));
        let entries =
            keys.iter().map(|k| ((*k).to_owned(), (d.inputs(k, now), d.is_forgotten(k)))).collect();
        Ok(Self { at: d.now(now), entries, skipped })
    }

    fn inputs(&self, id: &str) -> Option<&decay::DecayInputs> {
        self.entries.get(id).and_then(|(i, _)| i.as_ref())
    }

    fn is_forgotten(&self, id: &str) -> bool {
        self.entries.get(id).is_some_and(|(_, f)| *f)
    }
}

struct Files<'a> {
    ws: &'a Workspace,
    read: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Vec<MemoryUnit>>>>,
}

impl<'a> Files<'a> {
    fn new(ws: &'a Workspace) -> Self {
        Self { ws, read: std::cell::RefCell::default() }
    }

    /// The units of the memory file `rel`.
    fn units(&self, rel: &str) -> std::rc::Rc<Vec<MemoryUnit>> {
        if let Some(u) = self.read.borrow().get(rel) {
            return u.clone();
        }
        let u = std::rc::Rc::new(units::of_file(self.ws, rel));
        self.read.borrow_mut().insert(rel.to_owned(), u.clone());
        u
    }

    /// `f` of the unit `id` of the file `rel`, if it is there.
    fn with<R>(&self, rel: &str, id: &str, f: impl FnOnce(&MemoryUnit) -> R) -> Option<R> {
        self.units(rel).iter().find(|u| u.id == id).map(f)
    }

    /// The unit `id` of the file `rel`.
    fn get(&self, rel: &str, id: &str) -> Option<MemoryUnit> {
        self.with(rel, id, MemoryUnit::clone)
    }

    /// `f` of the entity `slug` (without `entity:`), from its file; `None` for a slug that is
    /// no entity id or an entity without a file.
    fn with_entity<R>(&self, slug: &str, f: impl FnOnce(&MemoryUnit) -> R) -> Option<R> {
        let id = format!("entity:{}", entity::EntityId::parse(slug).ok()?.as_str());
        self.with(&units::file_of(&id)?, &id, f)
    }

    /// The entity `slug` (without `entity:`) ([`Files::with_entity`]).
    fn entity(&self, slug: &str) -> Option<MemoryUnit> {
        self.with_entity(slug, MemoryUnit::clone)
    }
}

/// One line of a card, and what it says.
struct CardItem {
    /// As rendered: `- fact`, `- uses: [[tool--x]] (since …)`, `- formerly uses: …`.
    line: String,
    /// What it says, for finding repeats: a fact's text; a relation as a statement that is the
    /// same from either end ([`relation_statement`]).
    says: String,
    /// A summary line, a fact or a relation that holds now (not history).
    current: bool,
}

impl CardItem {
    /// The line without its `- `.
    fn text(&self) -> &str {
        self.line.strip_prefix("- ").unwrap_or(&self.line)
    }
}

impl EntityStates<'_> {
    /// Why entity `id` (without `entity:`) is not current, or `None` when it is.
    fn not_current(&self, id: &str) -> Option<String> {
        self.files
            .with_entity(id, |u| {
                (u.store == Store::Semantic && u.status.is_some())
                    .then(|| not_current(&u.text))
                    .flatten()
            })
            .flatten()
    }

    /// The lines of an entity's card ([`card_items`]).
    fn card_items(&self, u: &MemoryUnit) -> Vec<CardItem> {
        let subject = u.id.trim_start_matches("entity:");
        card_items(subject, &u.text, &self.vocab, &|id| {
            Target::of(id, self.decay, |id| self.not_current(id))
        })
    }
}

/// Why the entity whose file is `text` is not current (superseded, inactive, merged), or `None`
/// when it is. Another status (a note's `status: draft`) is current: search shows it too.
fn not_current(text: &str) -> Option<String> {
    Some(match entity::status(text).as_str() {
        "superseded" => {
            let by = entity::relations(text)
                .into_iter()
                .find(|r| r.relation == "superseded-by" && r.until.is_none());
            match by {
                Some(r) => format!(
                    "superseded by {}{}",
                    r.target,
                    r.since.map(|d| format!(" on {d}")).unwrap_or_default()
                ),
                None => "superseded".to_owned(),
            }
        }
        "inactive" => "inactive".to_owned(),
        "merged" => match text.split_once("Merged into: ") {
            Some((_, rest)) => {
                format!("merged into {}", rest.split([' ', '|']).next().unwrap_or(""))
            }
            None => "merged".to_owned(),
        },
        _ => return None,
    })
}

/// The workspace's relation vocabulary (`memory/graph/relations.md`; empty when there is none).
fn vocabulary(ws: &Workspace) -> crate::Result<Vocabulary> {
    Ok(Vocabulary::parse(&ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default()))
}

/// What a relation line says, the same whichever end's card shows it: `[[a]] works-on [[b]]`
/// and `[[b]] worked-on-by [[a]]` are one statement when the vocabulary makes them inverses, so
/// the second card leaves it out (issue 18).
fn relation_statement(
    subject: &str,
    relation: &str,
    object: &str,
    history: bool,
    vocab: &Vocabulary,
) -> String {
    let direct = format!("[[{subject}]] {relation} [[{object}]]");
    let statement = match vocab.get(relation).and_then(|s| s.inverse.as_deref()) {
        Some(inverse) => direct.min(format!("[[{object}]] {inverse} [[{subject}]]")),
        None => direct,
    };
    if history { format!("formerly {statement}") } else { statement }
}

/// What a card knows of a relation's target entity.
enum Target {
    Current,
    /// No longer current, and why (superseded, inactive, merged).
    NotCurrent(String),
    /// Forgotten: a card does not name it at all.
    Forgotten,
}

impl Target {
    /// The state of the entity `id` (without `entity:`): forgotten by `decay`, else what
    /// `not_current` says.
    fn of(id: &str, decay: &Decay, not_current: impl Fn(&str) -> Option<String>) -> Self {
        if decay.is_forgotten(&format!("entity:{id}")) {
            Self::Forgotten
        } else {
            not_current(id).map_or(Self::Current, Self::NotCurrent)
        }
    }
}

/// The lines of the card of entity `subject`, whose file is `text`: its summary and facts,
/// then its current relations, then its history — relations closed with `(until …)` or to an
/// entity that `target` says is no longer current, marked `formerly` and never shown as
/// current. A relation to an entity that was forgotten is left out: the card would name what
/// the user asked to forget.
fn card_items(
    subject: &str,
    text: &str,
    vocab: &Vocabulary,
    target_state: &dyn Fn(&str) -> Target,
) -> Vec<CardItem> {
    let mut items: Vec<CardItem> = Vec::new();
    let facts = entity::description(text);
    for says in facts.into_iter().take(CARD_FACTS) {
        items.push(CardItem { line: format!("- {says}"), says, current: true });
    }
    // (line without `- `, what it says)
    let mut now: Vec<(String, String)> = Vec::new();
    let mut then: Vec<(String, String)> = Vec::new();
    for r in entity::relations(text) {
        let (rel, target) = (&r.relation, &r.target);
        let since = r.since.as_deref();
        let superseding = SUPERSEDING.contains(&rel.as_str());
        let statement = |history| relation_statement(subject, rel, target, history, vocab);
        let state = target_state(target);
        if matches!(state, Target::Forgotten) {
            continue;
        }
        if let Some(until) = &r.until {
            let span = since.map_or(format!("until {until}"), |s| format!("{s} to {until}"));
            then.push((format!("formerly {rel}: [[{target}]] ({span})"), statement(true)));
        } else if let (false, Target::NotCurrent(why)) = (superseding, state) {
            then.push((format!("formerly {rel}: [[{target}]] ({target} {why})"), statement(true)));
        } else {
            let since = since.map(|s| format!(" (since {s})")).unwrap_or_default();
            let conf = if r.confidence < 1.0 {
                format!(" (confidence {})", r.confidence)
            } else {
                String::new()
            };
            now.push((format!("{rel}: [[{target}]]{since}{conf}"), statement(false)));
        }
    }
    let current_relations = now.len();
    for (i, (line, says)) in now.into_iter().chain(then).take(CARD_RELATIONS).enumerate() {
        items.push(CardItem { line: format!("- {line}"), says, current: i < current_relations });
    }
    items
}

/// Why a card of `items` stays out: it has none (empty) or only history (nothing current).
fn card_out(items: &[CardItem]) -> Option<String> {
    if items.is_empty() {
        Some("empty: no summary, fact or relation".to_owned())
    } else if !items.iter().any(|i| i.current) {
        Some("nothing current: only closed or superseded relations".to_owned())
    } else {
        None
    }
}

/// An entity's card as a candidate: its `### id` heading and its items; out when it has none
/// (empty) or only history (nothing current).
fn card_candidate(u: &MemoryUnit, items: &[CardItem], why: String, score: f64) -> Candidate {
    let id = u.id.trim_start_matches("entity:");
    let out = card_out(items);
    Candidate {
        id: u.id.clone(),
        part: Part::Entity,
        text: format!("### {id}"),
        lines: items.iter().map(|i| i.line.clone()).collect(),
        says: items.iter().map(|i| i.says.clone()).collect(),
        score,
        why,
        named_by: Vec::new(),
        out,
    }
}
