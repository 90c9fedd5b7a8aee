//! Optional paraphrase recall from a local static embedding model (issue 22, item 4).
//!
//! A folder in the model2vec layout ([`model`]) gives every indexed entry a vector, kept in
//! `.cogmem/vectors/` ([`vectors`]). Search asks the model only where keywords fall short: when
//! fewer keyword hits than asked for come back, or when a hit holds under half of the query's
//! words ("weak"). Then the entries nearest to the query by cosine (at least [`MIN_COSINE`],
//! at most [`MAX_ADDED`] of them) are put right before the first weak keyword hit, or after the
//! last hit. Hits holding most of the query's words are never moved, and the model is not even
//! loaded when every hit is strong and there are enough of them. The constants were chosen on
//! the tune halves of the paraphrase set and of LoCoMo's dev conversations
//! (`benches/retrieval`).

pub mod model;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use model::{EmbedError, Model};
pub use vectors::VectorsReport;

use crate::index::search::Hit;

/// A keyword hit holding at least this share of the query's distinct words is strong: nothing
/// the model finds goes before it.
pub const STRONG_COVERAGE: f64 = 0.5;
/// The least cosine with the query an entry needs to be added.
pub const MIN_COSINE: f32 = 0.1;
/// At most this many entries are added by the model to one search.
pub const MAX_ADDED: usize = 5;

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

/// The share of the query's distinct words (`query_words`, analyzed) that `hit`'s text holds.
fn coverage(hit: &Hit, query_words: &[&String]) -> f64 {
    if query_words.is_empty() {
        return 1.0;
    }
    let words: std::collections::HashSet<String> =
        crate::index::analyzer::terms(&hit.text).into_iter().collect();
    let held = query_words.iter().filter(|w| words.contains(w.as_str())).count();
    held as f64 / query_words.len() as f64
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
    query_words: &[&String],
    hits: &mut Vec<Hit>,
    limit: usize,
    lookup: &mut dyn FnMut(&str, u64) -> crate::Result<Option<Hit>>,
) -> crate::Result<()> {
    let first_weak = hits.iter().position(|h| coverage(h, query_words) < STRONG_COVERAGE);
    if first_weak.is_none() && hits.len() >= limit {
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
    let at = first_weak.unwrap_or(hits.len());
    let room = MAX_ADDED.min(limit.saturating_sub(at));
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
    let n = added.len();
    hits.splice(at..at, added);
    hits.truncate(limit.max(at + n).min(limit));
    Ok(())
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
