//! Optional paraphrase recall from a local static embedding model (issue 22, item 4).
//!
//! A folder in the model2vec layout ([`model`]) gives every indexed entry a vector, kept in
//! `.cogmem/vectors/` ([`vectors`]). Search asks the model only where keywords fall short: when
//! fewer hits than asked for come back, or fewer than [`FEW_KEYWORD_HITS`] of them match a
//! query word (the others came in by a share of another hit's score: the reply after a
//! question, a message next to a best hit). Then the entries nearest to the query by cosine
//! (at least [`MIN_COSINE`], at most [`MAX_ADDED`] of them) go after the keyword hits, before
//! the entries no query word matched, which leave from the end to make room. A hit that
//! matches a query word is never dropped or moved down, so the model cannot lower what
//! keywords find, and it is not even loaded when keywords fill the list.
//!
//! An earlier rule also put model hits before "weak" keyword hits (holding under half of the
//! query's words): it lifted the paraphrase set's recall@5 from 0.78 to 0.84 but lowered
//! LoCoMo's from 0.666 to 0.501, where most right answers hold few of a long question's
//! words. The constants were chosen on the tune half of the paraphrase set
//! (`benches/retrieval/paraphrase.py --split tune`); docs/benchmarks.md has the figures.

pub mod model;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use model::{EmbedError, Model};
pub use vectors::VectorsReport;

use crate::index::search::Hit;

/// The least cosine with the query an entry needs to be added.
pub const MIN_COSINE: f32 = 0.1;
/// At most this many entries are added by the model to one search.
pub const MAX_ADDED: usize = 10;

/// Below this many hits that match a query word, keywords have found little, and the model's
/// hits may also take the places of entries no query word matched (issue 22; chosen on the
/// tune halves: the paraphrase set's recall@10 0.782 at 5, 0.818 at 6; LoCoMo's tune split
/// with the model equal to keyword-only up to 6, lower from 7).
pub const FEW_KEYWORD_HITS: usize = 6;

/// A model folder, loaded the first time a search needs it, and what using it did.
#[derive(Debug)]
pub struct Embedder {
    dir: PathBuf,
    model: OnceLock<Result<Model, EmbedError>>,
    report: Mutex<Option<VectorsReport>>,
}

impl Embedder {
    /// An embedder for the model folder `dir` (not read yet).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into(), model: OnceLock::new(), report: Mutex::new(None) }
    }

    /// The model folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model, loaded now if it was not yet; `None` when the folder is bad ([`Self::error`]).
    pub fn model(&self) -> Option<&Model> {
        self.model.get_or_init(|| Model::load(&self.dir)).as_ref().ok()
    }

    /// Why the model could not be loaded, once a search tried.
    pub fn error(&self) -> Option<&EmbedError> {
        self.model.get().and_then(|r| r.as_ref().err())
    }

    /// What the last search did to the vectors, if it used them.
    pub fn report(&self) -> Option<VectorsReport> {
        self.report.lock().ok().and_then(|r| r.clone())
    }
}

/// Brings the vectors up to date with the index now (`cogmem reindex --full`); `None` when
/// the model cannot be loaded ([`Embedder::error`]).
///
/// Errors: the index cannot be read, or the vectors cannot be written.
pub fn refresh(
    index: &crate::index::Index,
    embedder: &Embedder,
) -> crate::Result<Option<VectorsReport>> {
    let Some(model) = embedder.model() else { return Ok(None) };
    let (_, report) = vectors::sync(index, model)?;
    if let Ok(mut r) = embedder.report.lock() {
        *r = Some(report.clone());
    }
    Ok(Some(report))
}

/// Adds what the model finds to the keyword `hits` (best first, at most `limit`), as described
/// in the module header. `lookup` turns an entry (path, line) into a hit when it passes the search's
/// filters (`None` otherwise). A model that cannot be loaded leaves the hits as they are
/// ([`Embedder::error`] says why).
///
/// Errors: the index cannot be read, or the vectors cannot be written.
pub(crate) fn blend(
    index: &crate::index::Index,
    embedder: &Embedder,
    query: &str,
    hits: &mut Vec<Hit>,
    limit: usize,
    lookup: &mut dyn FnMut(&str, u64) -> crate::Result<Option<Hit>>,
) -> crate::Result<()> {
    // The places the model may fill: the empty ones, and, when fewer than
    // [`FEW_KEYWORD_HITS`] hits match a query word, those of the entries no query word matched
    // (the reply after a question, a message next to a best hit: brought in by a share of
    // another's score). Never a keyword hit's.
    let matched = hits.iter().filter(|h| h.bm25 > 0.0).count();
    let taken = if matched < FEW_KEYWORD_HITS { matched } else { hits.len() };
    if taken >= limit {
        return Ok(());
    }
    let Some(model) = embedder.model() else { return Ok(()) };
    let (vectors, report) = vectors::sync(index, model)?;
    if let Ok(mut r) = embedder.report.lock() {
        *r = Some(report);
    }
    let Some(q) = model.embed(query) else { return Ok(()) };
    for h in hits.iter_mut() {
        h.cosine = vectors.cosine(&h.path, h.line, &q).map_or(0.0, |c| round(f64::from(c)));
    }
    let room = MAX_ADDED.min(limit - taken);
    let mut added = Vec::new();
    // Some of the nearest may be filtered out (another store, dormant, …): read a few more.
    for (path, line, cos) in vectors.nearest(&q, limit + room * 4) {
        if added.len() >= room || cos < MIN_COSINE {
            break;
        }
        if hits.iter().any(|h| h.path == path && h.line == line) {
            continue;
        }
        if let Some(mut h) = lookup(&path, line)? {
            h.via = Some("embedding");
            h.cosine = round(f64::from(cos));
            h.score = 0.0;
            h.bm25 = 0.0;
            added.push(h);
        }
    }
    if added.is_empty() {
        return Ok(());
    }
    // The model's hits come after the keyword hits and before the entries no query word
    // matched, which leave from the end to make room.
    let (matching, mut shared): (Vec<Hit>, Vec<Hit>) = hits.drain(..).partition(|h| h.bm25 > 0.0);
    shared.truncate(limit.saturating_sub(matching.len() + added.len()));
    hits.extend(matching);
    hits.extend(added);
    hits.extend(shared);
    Ok(())
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
