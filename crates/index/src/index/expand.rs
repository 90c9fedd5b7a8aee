//! Query expansion from the workspace's own words (issue 22): pseudo-relevance feedback. The
//! memories that match a query best share words the query does not use ("activities" finds
//! turns about "pottery" and "camping" through the few that say both); the words most of them
//! share, weighed by how rare they are in the whole index, join the query at a fraction of a
//! query word's weight.
//!
//! Derived from the index itself (its documents and their frequencies), so nothing more is
//! stored and `reindex` rebuilds all it needs. No model, no word list from elsewhere. The
//! number of words and their weight are chosen on the tune split of the LoCoMo benchmark only
//! (benches/retrieval/tune.py); `[search] expansion_terms = 0` turns it off.

use std::collections::{BTreeSet, HashMap};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Searcher, TantivyDocument, Term};

use super::{Fields, analyzer};

/// How many of the best matches the words are drawn from.
pub(crate) const FEEDBACK_DOCS: usize = 10;
/// The fewest of those matches a word must appear in.
const MIN_SHARED: usize = 2;

/// The words to add to a query of `terms`: at most `n`, each in at least [`MIN_SHARED`] of the
/// [`FEEDBACK_DOCS`] best plain matches, best first by (matches it is in) × idf. Empty when the
/// index cannot say.
pub(crate) fn feedback_terms(
    searcher: &Searcher,
    f: &Fields,
    terms: &BTreeSet<&String>,
    n: usize,
) -> Vec<String> {
    if n == 0 || terms.is_empty() {
        return Vec::new();
    }
    let should: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|t| {
            let q = TermQuery::new(Term::from_field_text(f.text, t), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(q) as Box<dyn Query>)
        })
        .collect();
    let Ok(top) = searcher
        .search(&BooleanQuery::new(should), &TopDocs::with_limit(FEEDBACK_DOCS).order_by_score())
    else {
        return Vec::new();
    };
    let mut shared: HashMap<String, usize> = HashMap::new();
    for (_, addr) in top {
        let Ok(doc) = searcher.doc::<TantivyDocument>(addr) else { continue };
        let raw = doc.get_first(f.raw).and_then(|v| v.as_str()).unwrap_or("");
        let words: BTreeSet<String> = analyzer::terms(&super::without_comments(raw))
            .into_iter()
            .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
            .collect();
        for w in words {
            if !terms.contains(&w) {
                *shared.entry(w).or_default() += 1;
            }
        }
    }
    let docs = searcher.num_docs().max(1) as f64;
    let mut scored: Vec<(f64, String)> = shared
        .into_iter()
        .filter(|(_, k)| *k >= MIN_SHARED)
        .filter_map(|(w, k)| {
            let df = searcher.doc_freq(&Term::from_field_text(f.text, &w)).ok()?;
            let idf = (docs / (df as f64 + 1.0)).ln();
            (idf > 0.0).then_some((k as f64 * idf, w))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(n).map(|(_, w)| w).collect()
}
