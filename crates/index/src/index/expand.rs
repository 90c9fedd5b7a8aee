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

/// A way the query's words are written together or apart in the memories (issue 22): "road
/// trip" in the query, "roadtrip" in a memory, or the other way round. Read from the index's
/// own words: a form is used only when some memory holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compound {
    /// Two neighbouring query words written as one in the memories: the joined word's term.
    Joined(String),
    /// A query word no memory holds, written as two words in the memories: their terms, to
    /// be matched as a phrase.
    Split(String, String),
}

/// The most query words looked at for compounds (a pasted paragraph is no question).
const COMPOUND_WORDS: usize = 16;
/// The fewest letters each part of a split word has ("work" + "out").
const SPLIT_PART: usize = 3;
/// The longest word tried in two parts: each try costs two lookups, and longer words are no
/// compounds of two.
const SPLIT_WORD: usize = 24;

/// The other ways the words of `query` are written in the index's memories: two neighbouring
/// words joined ("road trip" → `roadtrip`) when a memory holds the joined word, and a word no
/// memory holds split in two ("bookshelf" → "book shelf") when some memory holds both parts.
/// Words of letters only (a name's or a number's parts are not compounds), stop words neither
/// joined nor split off. Empty when the index cannot say.
pub(crate) fn compounds(searcher: &Searcher, f: &Fields, query: &str) -> Vec<Compound> {
    let held =
        |term: &str| searcher.doc_freq(&Term::from_field_text(f.text, term)).is_ok_and(|n| n > 0);
    // A single word's one term (stop words have none).
    let term_of = |word: &str| -> Option<String> {
        let mut t = analyzer::terms(word);
        (t.len() == 1).then(|| t.remove(0))
    };
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(COMPOUND_WORDS)
        .map(str::to_lowercase)
        .collect();
    let letters = |w: &str| w.len() >= 2 && w.chars().all(|c| c.is_ascii_lowercase());
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if !letters(a) || !letters(b) || term_of(a).is_none() || term_of(b).is_none() {
            continue;
        }
        if let Some(t) = term_of(&format!("{a}{b}")).filter(|t| held(t)) {
            let c = Compound::Joined(t);
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    let splittable = |w: &&String| letters(w) && (2 * SPLIT_PART..=SPLIT_WORD).contains(&w.len());
    for w in words.iter().filter(splittable) {
        if term_of(w).is_none_or(|t| held(&t)) {
            continue;
        }
        let split = (SPLIT_PART..=w.len() - SPLIT_PART).find_map(|i| {
            let (a, b) = (term_of(&w[..i])?, term_of(&w[i..])?);
            (held(&a) && held(&b)).then_some(Compound::Split(a, b))
        });
        if let Some(c) = split.filter(|c| !out.contains(c)) {
            out.push(c);
        }
    }
    out
}
