//! Queries over the index: BM25 over the analyzed text (title and tags count more, phrases
//! more still), weighted by each memory's decayed relevance; the entry after a matching question
//! shares its score, a message by a speaker the query names counts more, core memory first.
//! The user's text is analyzed into terms, never handed to a query parser, so no character in it
//! can break the query. Read-only.

use std::collections::BTreeSet;
use std::ops::Bound;

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Order, TantivyDocument, Term};

use super::decay_cache::DecayCache;
use super::{Index, analyzer};
use crate::Timestamp;
use crate::error::InputError;
use cogmem_store::decay::{self, Band};
use cogmem_store::settings::{DecaySettings, SearchSettings};
use cogmem_store::store::Store;
use cogmem_text::question::Wanted;

/// Filters and limits of a search.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Only this store.
    pub store: Option<Store>,
    /// Only this kind (episode type, entity type, …).
    pub kind: Option<String>,
    /// Only units that name this entity.
    pub entity: Option<String>,
    /// Only units dated on or after this day.
    pub since: Option<chrono::NaiveDate>,
    /// Only units dated on or before this day.
    pub until: Option<chrono::NaiveDate>,
    /// At most this many hits.
    pub limit: usize,
    /// Include dormant memories.
    pub all: bool,
    /// A static embedding model for paraphrase recall ([`crate::embed`]), used only where
    /// keywords fall short.
    pub embedder: Option<std::sync::Arc<crate::embed::Embedder>>,
}

/// The files that hold the units naming `entity` (the documents whose `entities` field holds
/// it), sorted: what a page listing an entity's mentions reads instead of every memory file
/// (issue 20: the web view's entity page parsed 150 MB at 100,000 memories). The caller checks
/// each unit of these files itself; the index only narrows the files down.
pub fn files_naming(index: &Index, entity: &str) -> crate::Result<Vec<String>> {
    let searcher = index.searcher();
    let f = index.fields();
    let tantivy_err = super::tantivy_err(index.dir());
    let q = TermQuery::new(Term::from_field_text(f.entities, entity), IndexRecordOption::Basic);
    let addrs = searcher.search(&q, &tantivy::collector::DocSetCollector).map_err(&tantivy_err)?;
    let mut files = BTreeSet::new();
    for addr in addrs {
        let doc: TantivyDocument = searcher.doc(addr).map_err(&tantivy_err)?;
        if let Some(path) = doc.get_first(f.path).and_then(|v| v.as_str()) {
            files.insert(path.to_owned());
        }
    }
    Ok(files.into_iter().collect())
}

/// A memory as the index stores it: what a caller that scores memories itself needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredUnit {
    /// The unit's id.
    pub id: String,
    /// Its store's name.
    pub store: String,
    /// Its file.
    pub path: String,
    /// The 1-based line where it starts.
    pub line: u64,
    /// Its text, comments and all, as its file holds it.
    pub text: String,
}

/// The memories whose searched text (without comments) holds the index terms of at least
/// `need` of `words` (each a lower-case word as `cogmem_store::store::units::terms` gives it;
/// a word given twice counts twice), grouped by how many: every memory whose text holds `need`
/// of the words as words is among them, in a group of at least as many, and more (a term is a
/// stem: "kilns" holds "kiln"'s). `None` when a word is not sure to be found under one term of
/// its own (a stop word, a long word, a word whose lower case depends on its place): the caller
/// reads the files then. What a forget by words ranks instead of every memory file (issue 20).
pub fn holding_words<'a>(
    index: &'a Index,
    words: &[String],
    need: usize,
) -> crate::Result<Option<HoldingWords<'a>>> {
    let searcher = index.searcher();
    let f = index.fields();
    let mut counts: std::collections::HashMap<DocAddress, usize> = std::collections::HashMap::new();
    for word in words {
        let [term] = analyzer::terms(word).try_into().unwrap_or_default();
        if term.is_empty() || !one_term_finds(word) {
            return Ok(None);
        }
        let q = TermQuery::new(Term::from_field_text(f.text, &term), IndexRecordOption::Basic);
        let found = searcher
            .search(&q, &tantivy::collector::DocSetCollector)
            .map_err(super::tantivy_err(index.dir()))?;
        for addr in found {
            *counts.entry(addr).or_default() += 1;
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<DocAddress>> =
        std::collections::BTreeMap::new();
    for (addr, n) in counts {
        if n >= need.max(1) {
            groups.entry(n).or_default().push(addr);
        }
    }
    Ok(Some(HoldingWords { index, searcher, groups }))
}

/// What [`holding_words`] found: the memories by the number of the words whose terms they hold.
pub struct HoldingWords<'a> {
    index: &'a Index,
    searcher: tantivy::Searcher,
    groups: std::collections::BTreeMap<usize, Vec<DocAddress>>,
}

impl HoldingWords<'_> {
    /// The numbers of words the groups hold, most first.
    pub fn counts(&self) -> Vec<usize> {
        self.groups.keys().rev().copied().collect()
    }

    /// The memories holding the terms of `count` of the words, as the index stores them.
    pub fn units(&self, count: usize) -> crate::Result<Vec<StoredUnit>> {
        let f = self.index.fields();
        let mut addrs = self.groups.get(&count).cloned().unwrap_or_default();
        // In the store's order: its blocks are read once each.
        addrs.sort_unstable();
        let mut out = Vec::with_capacity(addrs.len());
        let tantivy_err = super::tantivy_err(self.index.dir());
        for addr in addrs {
            let doc: TantivyDocument = self.searcher.doc(addr).map_err(&tantivy_err)?;
            let get =
                |field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or("").to_owned();
            out.push(StoredUnit {
                id: get(f.id),
                store: get(f.store),
                path: get(f.path),
                line: doc.get_first(f.line).and_then(|v| v.as_u64()).unwrap_or(0),
                text: get(f.raw),
            });
        }
        Ok(out)
    }
}

/// Whether every word of a text that lower-cases to `word` is indexed under `word`'s one term.
/// The analyzer drops a token of more than 40 bytes before it lower-cases it, and a few letters
/// shrink when lower-cased (the Kelvin sign to `k`, `ẞ` to `ß`: at most from three bytes to
/// one), so a word of more than 13 bytes is sure only in plain ASCII without a `k`; and a
/// final sigma is lower-cased by its place in the word, which the analyzer does not look at.
fn one_term_finds(word: &str) -> bool {
    !word.contains('ς') && (word.len() <= 40 / 3 || word.is_ascii() && !word.contains('k'))
}

/// One search hit.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The unit's id.
    pub id: String,
    /// Its store.
    pub store: String,
    /// Its kind.
    pub kind: String,
    /// Its file.
    pub path: String,
    /// The 1-based line where it starts.
    pub line: u64,
    /// Its date, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The final score: BM25 × decayed relevance, plus what it received as the answer to a
    /// question (`from_question`), × the speaker, date and entity factors, plus its day's and
    /// its neighbours' shares (`from_day`, `from_near`), × the graph activation boost.
    pub score: f64,
    /// BM25 alone.
    pub bm25: f64,
    /// Decayed relevance now.
    pub relevance: f64,
    /// Its band now.
    pub status: Band,
    /// Where it came from (imported entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The unit's whole text.
    pub text: String,
    /// Entities it names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Score it received as the entry right after a matching question in its episode log (0
    /// when none); part of `score`.
    #[serde(skip_serializing_if = "is_zero")]
    pub from_question: f64,
    /// Score a message (an entry with a `**SPEAKER:**` label) received because its episode log
    /// holds one of the ten best hits that is a message too: a fifth of the best such hit's
    /// score (0 when none; the best hit itself receives its own share); part of `score`.
    #[serde(skip_serializing_if = "is_zero")]
    pub from_day: f64,
    /// Score a message received as one of the two entries before or after one of the five best
    /// hits in its log, when that hit is a message too: 0.15 × that hit's score, divided by
    /// the distance; or, two entries after the hit, 0.3 × its score when it is the hit's
    /// speaker's answer to the other speaker's question in between; × 1.5 when the query names
    /// its speaker (0 when none; the largest when several); part of `score`.
    #[serde(skip_serializing_if = "is_zero")]
    pub from_near: f64,
    /// Its speaker (an imported message's `**SPEAKER:**` label) is named in the query: its
    /// score was multiplied by 1.5.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub speaker_named: bool,
    /// Graph activation it received from the entities of the best hits (0 when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub activation: f64,
    /// The days its text names or implies, relative ones resolved against its own day
    /// (`2023-07-05`, or `2023-06-01/2023-06-30` for several days).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub implied_dates: Vec<String>,
    /// The query wants a time and it carries a date or a length of time: its score was
    /// multiplied by 1.25.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dated: bool,
    /// It is of a day the query names, by its own date or one its text implies: its score was
    /// multiplied by 2.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub during: bool,
    /// An episode entry linked to an entity the query names (`person--melanie` for "What
    /// does Melanie do?"): its score was multiplied by the linked boost (issue 22).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub linked: bool,
    /// `"embedding"` when the embedding model found it and keywords did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
    /// Cosine of its vector with the query's, when the embedding model was asked (0 otherwise).
    #[serde(skip_serializing_if = "is_zero")]
    pub cosine: f64,
}

/// The share of a matching question's score that the entry right after it receives.
const REPLY_SHARE: f64 = 0.4;
/// The factor on the score of a message whose speaker the query names.
const SPEAKER_BOOST: f64 = 1.5;

/// Whether `next` is the answer of `hit`'s speaker to a question the other speaker asked in
/// `mid`, the message between them.
fn answers_a_follow_up(hit: &str, mid: &str, next: &str) -> bool {
    let who = speaker(hit);
    who.is_some()
        && speaker(next) == who
        && speaker(mid).is_some_and(|m| Some(m) != who)
        && super::without_comments(mid).contains('?')
}

/// The speaker of an imported message: the `**SPEAKER:**` label its text starts with.
fn speaker(text: &str) -> Option<&str> {
    let (name, _) = text.strip_prefix("**")?.split_once(":**")?;
    (!name.is_empty() && !name.contains('\n')).then_some(name)
}

/// How many of the best keyword matches are read at least, whatever the limit: the factors
/// below reorder them (100 since the day's share, issue 22; 50 before). The same number for
/// every limit up to it, so that a longer `--limit` only adds hits after those a shorter one
/// returns (the shares lift only the candidates read: with 5 × the limit read, `--limit 50`
/// put other hits in the first ten than `--limit 10` on 85 of 180 LoCoMo questions).
const CANDIDATES: usize = 100;
/// How many of the best hits may pass score to the entry after them.
const QUESTION_HITS: usize = 50;
/// The share of the best score of its day that an entry of an episode log receives when that
/// log holds one of the [`DAY_HITS`] best hits (issue 22; chosen on LoCoMo's tune split).
const DAY_SHARE: f64 = 0.2;
/// How many of the best hits make their day's entries count more.
const DAY_HITS: usize = 10;
/// How many of the best hits lend score to the entries around them in their log (issue 22;
/// the three constants chosen on LoCoMo's tune split).
const NEAR_HITS: usize = 5;
/// How many entries on each side of such a hit receive a share.
const NEAR_SPAN: usize = 2;
/// The share of the hit's score the entry next to it receives; divided by the distance (half
/// two entries away), × 1.5 when the query names the entry's speaker.
const NEAR_SHARE: f64 = 0.15;
/// The share of such a hit's score that its speaker's next message receives when the message
/// between them is the other speaker's question (one tells, the other asks about it, the first
/// answers: the answer shares few of the query's words). Chosen on LoCoMo's tune split.
const FOLLOW_SHARE: f64 = 0.3;

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Runs a search. Archived and forgotten memories never come back; dormant ones only with
/// `all`. With `activation` (the `search.activation` setting), hits connected in the graph to
/// the best hits are boosted (`spread_activation`). Fails on a query with no searchable words.
pub fn search(
    index: &Index,
    query: &str,
    opts: &SearchOptions,
    now: Timestamp,
    p: &DecaySettings,
    activation: bool,
) -> crate::Result<Vec<Hit>> {
    let s = SearchSettings { activation, ..SearchSettings::default() };
    search_reading(index, query, opts, now, p, &s).map(|(hits, _)| hits)
}

/// How a query was read and searched (issue 22): what `search --explain` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// The kind of answer wanted: `time`, `place`, `list`, `yes-no` or `other`.
    pub wants: String,
    /// Who the query asks about: the names it writes with a capital.
    pub people: Vec<String>,
    /// The query's terms as searched: stemmed, without stop words and question words.
    pub terms: Vec<String>,
    /// Terms the search added: the query's words as the memories write them together or
    /// apart (`roadtrip`, `book shelf`), and the words its best matches share when
    /// `[search] expansion_terms` is on.
    pub added: Vec<String>,
    /// The days the query names, by a date or by an event.
    pub days: Vec<NamedDays>,
}

/// Days a query names ([`Reading::days`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedDays {
    /// The first day (`YYYY-MM-DD`); `None`: every day up to `last`.
    pub first: Option<String>,
    /// The last day; `None`: every day from `first` on.
    pub last: Option<String>,
    /// What named them: the date (`2023-06`) or the event (`after "the road trip"`).
    pub by: String,
    /// The id of the memory whose date an event took; absent for a date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl NamedDays {
    /// The days as a person reads them: `2026-06-10`, `2026-06-03 to 2026-06-10`, `from
    /// 2026-06-10 on`, `up to 2026-06-10`.
    pub fn span(&self) -> String {
        match (&self.first, &self.last) {
            (Some(a), Some(b)) if a == b => a.clone(),
            (Some(a), Some(b)) => format!("{a} to {b}"),
            (Some(a), None) => format!("from {a} on"),
            (None, Some(b)) => format!("up to {b}"),
            (None, None) => "any day".to_owned(),
        }
    }
}

/// [`search`] with every `[search]` setting (activation, and the words added to the query from
/// its best matches: `expansion_terms`, `expansion_weight`; see `expand.rs`), and how the query
/// was read ([`Reading`]).
pub fn search_reading(
    index: &Index,
    query: &str,
    opts: &SearchOptions,
    now: Timestamp,
    p: &DecaySettings,
    s: &SearchSettings,
) -> crate::Result<(Vec<Hit>, Reading)> {
    let activation = s.activation;
    let positioned = analyzer::query_terms(query);
    if positioned.is_empty() {
        return Err(InputError::EmptyQuery { query: query.to_owned() }.into());
    }
    let terms: Vec<String> = positioned.iter().map(|(t, _)| t.clone()).collect();
    let f = index.fields();
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let unique: BTreeSet<&String> = terms.iter().collect();
    for t in &unique {
        let text = TermQuery::new(Term::from_field_text(f.text, t), IndexRecordOption::WithFreqs);
        should.push((Occur::Should, Box::new(text)));
        let title = TermQuery::new(Term::from_field_text(f.title, t), IndexRecordOption::WithFreqs);
        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(title), 1.5))));
        let tags = TermQuery::new(Term::from_field_text(f.tags, t), IndexRecordOption::WithFreqs);
        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(tags), 1.3))));
    }
    let searcher = index.searcher();
    // No more hits than the index holds documents: a limit is an upper bound, and the
    // collectors allocate room for all of it up front (`--limit 10000000000000`, or a web
    // page's `limit=`, aborted the process asking for 240 TB).
    let limit = opts.limit.min(usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX).max(1));
    // What the query asks (issue 22).
    let question = cogmem_text::question::read(query, &now);
    // Words the best matches share (issue 22), at a fraction of a query word's weight, for a
    // question that asks for several things ("what activities …").
    let expansion = if question.wanted == Wanted::List { s.expansion_terms } else { 0 };
    let mut added: Vec<String> = Vec::new();
    for t in super::expand::feedback_terms(&searcher, f, &unique, expansion) {
        added.push(t.clone());
        let text = TermQuery::new(Term::from_field_text(f.text, &t), IndexRecordOption::WithFreqs);
        let weight = s.expansion_weight as f32;
        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(text), weight))));
    }
    // The query's words written together or apart in the memories ("road trip" and
    // "roadtrip"), each counting as a query word would.
    for c in super::expand::compounds(&searcher, f, query) {
        let term = |t: &str| Term::from_field_text(f.text, t);
        let q: Box<dyn Query> = match c {
            super::expand::Compound::Joined(t) => {
                let q = TermQuery::new(term(&t), IndexRecordOption::WithFreqs);
                added.push(t);
                Box::new(q)
            }
            super::expand::Compound::Split(a, b) => {
                let q = PhraseQuery::new(vec![term(&a), term(&b)]);
                added.push(format!("{a} {b}"));
                Box::new(q)
            }
        };
        should.push((Occur::Should, q));
    }
    // Neighbouring query words that keep their distance in the text count extra (the distance
    // counts the stop words between them, as the index does).
    for pair in positioned.windows(2) {
        if pair[0].0 != pair[1].0 {
            let gap = pair[1].1.saturating_sub(pair[0].1).max(1);
            let phrase = PhraseQuery::new_with_offset_and_slop(
                vec![
                    (0, Term::from_field_text(f.text, &pair[0].0)),
                    (gap, Term::from_field_text(f.text, &pair[1].0)),
                ],
                1,
            );
            should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(phrase), 0.5))));
        }
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> =
        vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
    if let Some(s) = opts.store {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_text(f.store, s.as_str()),
                IndexRecordOption::Basic,
            )),
        ));
    }
    if let Some(k) = &opts.kind {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_text(f.kind, k), IndexRecordOption::Basic)),
        ));
    }
    if let Some(e) = &opts.entity {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_text(f.entities, e),
                IndexRecordOption::Basic,
            )),
        ));
    }
    if opts.since.is_some() || opts.until.is_some() {
        clauses.push((Occur::Must, Box::new(of_days(f, opts.since, opts.until))));
    }
    // The filters alone, for the entries an embedding model adds.
    let filters: Vec<(Occur, Box<dyn Query>)> =
        clauses[1..].iter().map(|(o, q)| (*o, q.box_clone())).collect();
    let q = BooleanQuery::new(clauses);
    let cache = DecayCache::load(&index.dir().join(super::decay_cache::DIR));
    let at = cache.now(now);
    let tantivy_err = |e: tantivy::TantivyError| super::IndexError::Tantivy {
        path: index.dir().to_owned(),
        message: e.to_string(),
    };
    // A document as a hit, or `None` when it must not come back (faded, superseded, …).
    let doc_at = |addr: DocAddress| -> crate::Result<TantivyDocument> {
        Ok(searcher.doc(addr).map_err(tantivy_err)?)
    };
    let hit_of = |doc: TantivyDocument, bm25: f32| -> crate::Result<Option<Hit>> {
        let get = |field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or("").to_owned();
        let id = get(f.id);
        let store = get(f.store);
        let inputs = cache.get(&id);
        let relevance = match &inputs {
            Some(i) => decay::relevance(i, &at, p),
            // A memory written by hand and not yet scored counts as new.
            None => match Store::parse(&store) {
                Ok(Store::Vault) => 1.0,
                Ok(s) => cogmem_store::store::decay_file::type_weight(s, p).min(1.0),
                Err(_) => 1.0,
            },
        };
        // Superseded, inactive and merged entities never come back (ask for them by id).
        if matches!(get(f.state).as_str(), "superseded" | "inactive" | "merged") {
            return Ok(None);
        }
        // An entity file that holds nothing but its name (issue 22: what import creates) comes
        // back only to a search of the semantic store: its linked entries are the memories.
        if store == Store::Semantic.as_str()
            && opts.store != Some(Store::Semantic)
            && super::people::is_stub(&get(f.raw))
        {
            return Ok(None);
        }
        let forgotten = inputs.is_some_and(|i| i.forgotten);
        let band = if forgotten { Band::Archived } else { decay::band(relevance, p) };
        if band == Band::Archived || band == Band::Dormant && !opts.all {
            return Ok(None);
        }
        let date = Some(get(f.date)).filter(|d| !d.is_empty());
        let source = Some(get(f.source)).filter(|s| !s.is_empty());
        let tags: Vec<String> = get(f.tags).split_whitespace().map(str::to_owned).collect();
        let bm25 = f64::from(bm25);
        Ok(Some(Hit {
            id,
            kind: get(f.kind),
            path: get(f.path),
            line: doc.get_first(f.line).and_then(|v| v.as_u64()).unwrap_or(1),
            date,
            score: round(bm25 * relevance),
            bm25: round(bm25),
            relevance: round(relevance),
            status: band,
            source,
            tags,
            text: get(f.raw),
            entities: doc
                .get_all(f.entities)
                .filter_map(|v| v.as_str())
                .map(str::to_owned)
                .collect(),
            from_question: 0.0,
            from_day: 0.0,
            from_near: 0.0,
            speaker_named: false,
            activation: 0.0,
            implied_dates: get(f.dates).split_whitespace().map(str::to_owned).collect(),
            dated: false,
            during: false,
            linked: false,
            via: None,
            cosine: 0.0,
            store,
        }))
    };
    let read = |addr: DocAddress, bm25: f32| hit_of(doc_at(addr)?, bm25);
    // The documents of candidates as hits, their decay caches loaded together first.
    let read_all = |batch: &[(f32, DocAddress)]| -> crate::Result<Vec<Hit>> {
        let docs = batch
            .iter()
            .map(|(bm25, addr)| Ok((doc_at(*addr)?, *bm25)))
            .collect::<crate::Result<Vec<_>>>()?;
        cache.preload(docs.iter().filter_map(|(d, _)| d.get_first(f.id).and_then(|v| v.as_str())));
        let mut hits = Vec::with_capacity(docs.len());
        for (doc, bm25) in docs {
            hits.extend(hit_of(doc, bm25)?);
        }
        Ok(hits)
    };
    // The entry at `line` of `path` as a hit, if it passes the query's filters (store, type,
    // entity, days): for entries that join the hits without matching the query's words.
    let mut lookup = |path: &str, line: u64| -> crate::Result<Option<Hit>> {
        let mut all = filters.iter().map(|(o, q)| (*o, q.box_clone())).collect::<Vec<_>>();
        let in_file = TermQuery::new(Term::from_field_text(f.path, path), IndexRecordOption::Basic);
        all.push((Occur::Must, Box::new(in_file)));
        let at = Term::from_field_u64(f.line, line);
        all.push((
            Occur::Must,
            Box::new(RangeQuery::new(Bound::Included(at.clone()), Bound::Included(at))),
        ));
        let found = searcher
            .search(&BooleanQuery::new(all), &TopDocs::with_limit(1).order_by_score())
            .map_err(tantivy_err)?;
        match found.into_iter().next() {
            Some((_, addr)) => read(addr, 0.0),
            None => Ok(None),
        }
    };
    let mut hits = Vec::new();
    // The best BM25 matches first, in batches: faded and superseded memories are dropped
    // after ranking, so when they fill a batch the next one is fetched, until `limit` live
    // hits are found or nothing more matches. Each query run ranks the batch it needs and the
    // next one too: where most memories have faded (a year of an agent's history) a second
    // batch is the rule, and ranking 300 costs a query run about what ranking 100 does (issue
    // 20: at 100,000 memories a hook's prompt ran the query twice, 3 ms each time). The
    // batches, and so the hits, are the same.
    let mut cap = limit.max(CANDIDATES);
    let mut ranked: Vec<(f32, DocAddress)> = Vec::new();
    let mut all_ranked = false;
    let mut seen = 0;
    loop {
        let end = seen + cap;
        if ranked.len() < end && !all_ranked {
            let more = end + 2 * cap - ranked.len();
            let top = searcher
                .search(&q, &TopDocs::with_limit(more).and_offset(ranked.len()).order_by_score())
                .map_err(tantivy_err)?;
            all_ranked = top.len() < more;
            ranked.extend(top);
            cogmem_store::timing::mark("query run");
        }
        let batch = &ranked[seen.min(ranked.len())..end.min(ranked.len())];
        hits.extend(read_all(batch)?);
        seen += batch.len();
        if hits.len() >= limit || batch.len() < cap || seen >= 100_000 {
            break;
        }
        cap *= 2;
    }
    // The days the question names (issue 22), by a date or by an event: "after the road
    // trip" is the days from the best match of "the road trip" (and the people the question
    // names) on, by the date that memory tells or its own.
    let mut failed = None;
    let asked = super::when::Asked::of(&question, |anchor| {
        let term = |(t, _): &(String, usize), weight: f32| {
            let q = TermQuery::new(Term::from_field_text(f.text, t), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(BoostQuery::new(Box::new(q), weight)) as Box<dyn Query>)
        };
        // One of the event's words at least; the people only weigh (a name alone is no event).
        let event: Vec<_> =
            analyzer::query_terms(&anchor.event).iter().map(|t| term(t, 1.0)).collect();
        if event.is_empty() {
            return None;
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(event)))];
        let people = analyzer::query_terms(&question.people.join(" "));
        clauses.extend(people.iter().map(|t| term(t, super::when::EVENT_PEOPLE_WEIGHT)));
        let found = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(super::when::EVENT_CANDIDATES).order_by_score(),
            )
            .map_err(|e| tantivy_err(e).into())
            .and_then(|top| read_all(&top));
        match found {
            Ok(hits) => hits.iter().find_map(|h| {
                let day = h.date.as_deref().and_then(cogmem_text::date::parse_day);
                let implied = super::when::parse(&h.implied_dates.join(" "));
                super::when::event_days(day, &implied).map(|d| (d, h.id.clone()))
            }),
            Err(e) => {
                failed.get_or_insert(e);
                None
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    // A question that names days (issue 22: "what did Joanna watch on 1 May 2022") also takes
    // the best matches of those days, wherever they rank overall: the date factor below can
    // only lift what is among the candidates. Not when the caller filters by date itself.
    if !asked.days.is_empty()
        && opts.since.is_none()
        && opts.until.is_none()
        && super::when::SPAN_CANDIDATES > 0
    {
        let open = super::when::bounded;
        let spans: Vec<(Occur, Box<dyn Query>)> = asked
            .days
            .iter()
            .map(|(first, last)| {
                let days = of_days(f, open(*first), open(*last));
                (Occur::Should, Box::new(days) as Box<dyn Query>)
            })
            .collect();
        // The day ranges score too (a constant 1 for each that matches, added to the BM25 of
        // an entry that comes only this way, below the 100 candidates). Found with issue 22's
        // context shares and kept: without it the report split's temporal recall@10 fell from
        // 0.817 to 0.731 and the tune split did not move (docs/decisions.md).
        let within = BooleanQuery::new(vec![
            (Occur::Must, Box::new(q.clone()) as Box<dyn Query>),
            (Occur::Must, Box::new(BooleanQuery::new(spans))),
        ]);
        let top = searcher
            .search(&within, &TopDocs::with_limit(super::when::SPAN_CANDIDATES).order_by_score())
            .map_err(tantivy_err)?;
        for h in read_all(&top)? {
            if !hits.iter().any(|k: &Hit| k.id == h.id) {
                hits.push(h);
            }
        }
    }
    cogmem_store::timing::mark("hits read");
    // An episode entry that asks something is often answered by the entry right after it in
    // the same log ("What did you paint?" — "A sunset."), which shares few of its words: that
    // entry receives a share of the question's score, and joins the hits if it was not one.
    // Only the questions among the 50 best hits pass score, so a limit over the candidates
    // read (which reads more of them) does not reorder the hits a shorter one returns.
    by_score(&mut hits);
    let questions: Vec<(String, u64, f64)> = hits
        .iter()
        .take(QUESTION_HITS)
        .filter(|h| h.store == Store::Episodic.as_str())
        .filter(|h| super::without_comments(&h.text).contains('?'))
        .map(|h| (h.path.clone(), h.line, h.score))
        .collect();
    for (path, line, score) in questions {
        let Some(reply_line) =
            entries_around(&searcher, f, &path, line, Order::Asc, 1).map_err(tantivy_err)?.pop()
        else {
            continue;
        };
        let share = REPLY_SHARE * score;
        if let Some(h) = hits.iter_mut().find(|h| h.path == path && h.line == reply_line) {
            h.from_question = h.from_question.max(share);
            continue;
        }
        // Not a hit yet: it must pass the filters the query applied.
        let Some(mut h) = lookup(&path, reply_line)? else { continue };
        h.from_question = share;
        hits.push(h);
    }
    for h in &mut hits {
        h.from_question = round(h.from_question);
        h.score = round(h.score + h.from_question);
    }
    cogmem_store::timing::mark("replies found");
    // A message spoken by someone the query names (the `**SPEAKER:**` label `import` writes) is
    // more often what the query asks about than one that only mentions them.
    for h in &mut hits {
        if names_speaker(&h.text, &unique) && h.store == Store::Episodic.as_str() {
            h.speaker_named = true;
            h.score = round(h.score * SPEAKER_BOOST);
        }
    }
    // What the query asks (issue 22): a when-question prefers memories that carry or imply a
    // date; a question naming days prefers the memories of those days.
    for h in &mut hits {
        let day = h.date.as_deref().and_then(cogmem_text::date::parse_day);
        let implied = super::when::parse(&h.implied_dates.join(" "));
        let cue = super::when::cue(&asked, day, &implied, &super::without_comments(&h.text));
        (h.dated, h.during) = (cue.dated, cue.during);
        h.score = round(h.score * cue.factor());
    }
    cogmem_store::timing::mark("dates weighed");
    // Who the query asks about (issue 22): entries linked to the entities it names.
    for h in hits.iter_mut().filter(|h| h.store == Store::Episodic.as_str()) {
        h.linked = super::people::names_one_of(&question.people, &h.entities);
        if h.linked {
            h.score = round(h.score * super::people::LINKED_BOOST);
        }
    }
    // The best hits (by the score so far) lend to their day and to their neighbours.
    by_score(&mut hits);
    share_the_day(&mut hits);
    // The messages around the best hits that are messages, in their log (issue 22): a reply
    // two lines on, or the line before, often holds the answer in words the query does not
    // use ("How did Jon feel about the opening?" matches the opening; "I'm excited!" comes
    // two lines later).
    let mut near: Vec<(String, u64, f64)> = Vec::new(); // (path, line, share)
    // Entries that were no hits, looked up once (a follow-up's question and answer are
    // neighbours too).
    let mut fetched: std::collections::HashMap<(String, u64), Option<Hit>> = Default::default();
    for seed in hits.iter().take(NEAR_HITS).filter(|h| is_message(h)) {
        for order in [Order::Asc, Order::Desc] {
            let around = entries_around(&searcher, f, &seed.path, seed.line, order, NEAR_SPAN)
                .map_err(tantivy_err)?;
            if let (Order::Asc, [mid, next]) = (order, around.as_slice()) {
                // The texts of the two entries after the hit, from the hits when they are there.
                let mut text_at = |line: u64| -> crate::Result<Option<String>> {
                    if let Some(h) = hits.iter().find(|h| h.path == seed.path && h.line == line) {
                        return Ok(Some(h.text.clone()));
                    }
                    let key = (seed.path.clone(), line);
                    if !fetched.contains_key(&key) {
                        fetched.insert(key.clone(), lookup(&seed.path, line)?);
                    }
                    Ok(fetched[&key].as_ref().map(|h| h.text.clone()))
                };
                if let (Some(asked), Some(answer)) = (text_at(*mid)?, text_at(*next)?)
                    && answers_a_follow_up(&seed.text, &asked, &answer)
                {
                    near.push((seed.path.clone(), *next, FOLLOW_SHARE * seed.score));
                }
            }
            for (distance, line) in (1u32..).zip(around) {
                let share = NEAR_SHARE * seed.score / f64::from(distance);
                near.push((seed.path.clone(), line, share));
            }
        }
    }
    near.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)).then(b.2.total_cmp(&a.2)));
    near.dedup_by(|b, a| a.0 == b.0 && a.1 == b.1); // the largest share of each entry
    for (path, line, share) in near {
        let at = hits.iter().position(|h| h.path == path && h.line == line);
        let h = match at {
            Some(i) if is_message(&hits[i]) => &mut hits[i],
            Some(_) => continue,
            None => {
                // Not a hit yet: it must pass the filters the query applied.
                let found = match fetched.remove(&(path.clone(), line)) {
                    Some(found) => found,
                    None => lookup(&path, line)?,
                };
                match found {
                    Some(h) if is_message(&h) => hits.push(h),
                    _ => continue,
                }
                hits.last_mut().expect("just pushed")
            }
        };
        let factor = if names_speaker(&h.text, &unique) { SPEAKER_BOOST } else { 1.0 };
        h.speaker_named |= factor > 1.0;
        h.from_near = round(share * factor);
        h.score = round(h.score + h.from_near);
    }
    cogmem_store::timing::mark("neighbours found");
    if activation {
        spread_activation(index, &mut hits);
        cogmem_store::timing::mark("activation spread");
    }
    // Core memory first: it is always in context and was put there on purpose.
    hits.sort_by(|a, b| {
        (b.store == "core")
            .cmp(&(a.store == "core"))
            .then(b.score.total_cmp(&a.score))
            .then(a.id.cmp(&b.id))
    });
    hits.truncate(limit);
    if let Some(embedder) = &opts.embedder {
        // An entry the model finds must pass the same filters as the keyword hits.
        crate::embed::blend(index, embedder, query, &mut hits, limit, &mut lookup)?;
        cogmem_store::timing::mark("embedding asked");
    }
    let open = |d| super::when::bounded(d).map(|d| d.to_string());
    let reading = Reading {
        wants: question.wanted.as_str().to_owned(),
        people: question.people.clone(),
        terms: unique.iter().map(|t| (*t).clone()).collect(),
        added,
        days: asked
            .days
            .iter()
            .zip(&asked.named_by)
            .map(|((first, last), (by, from))| NamedDays {
                first: open(*first),
                last: open(*last),
                by: by.clone(),
                from: from.clone(),
            })
            .collect(),
    };
    Ok((hits, reading))
}

/// The lines of the entries of the log `path` after (`Order::Asc`) or before (`Order::Desc`)
/// the one at `line`, nearest first, at most `n`.
fn entries_around(
    searcher: &tantivy::Searcher,
    f: &super::Fields,
    path: &str,
    line: u64,
    order: Order,
    n: usize,
) -> tantivy::Result<Vec<u64>> {
    let at = Term::from_field_u64(f.line, line);
    let lines = match order {
        Order::Asc => RangeQuery::new(Bound::Excluded(at), Bound::Unbounded),
        Order::Desc => RangeQuery::new(Bound::Unbounded, Bound::Excluded(at)),
    };
    let query = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_text(f.path, path), IndexRecordOption::Basic))
                as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(lines)),
    ]);
    let found = searcher
        .search(&query, &TopDocs::with_limit(n).order_by_fast_field::<u64>("line", order))?;
    Ok(found.into_iter().filter_map(|(line, _)| line).collect())
}

/// Best first; equal scores by id, so the order never depends on how the hits were found.
fn by_score(hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
}

/// Whether a hit is a message of a conversation: an episode entry with a `**SPEAKER:**` label
/// (what `import` writes). The lines of one conversation share their context; the separate
/// notes of one day need not, so only messages lend and receive the day's and the neighbours'
/// shares.
fn is_message(h: &Hit) -> bool {
    h.store == Store::Episodic.as_str() && speaker(&h.text).is_some()
}

/// Whether the `**SPEAKER:**` label of an imported message names someone the query names
/// (all the words of the name are among the query's `terms`).
fn names_speaker(text: &str, terms: &BTreeSet<&String>) -> bool {
    speaker(text).is_some_and(|name| {
        let words = analyzer::terms(name);
        !words.is_empty() && words.iter().all(|w| terms.contains(w))
    })
}

/// The messages of an episode log that holds one of the [`DAY_HITS`] best hits, when that
/// hit is a message too, receive [`DAY_SHARE`] of the best such score in that log (issue 22):
/// what one conversation says is about the same things, and the answer to a question is often
/// a line near the one that matches it best but shares few of its words. Only the ten best
/// hits decide which days; `hits` are in [`by_score`] order.
fn share_the_day(hits: &mut [Hit]) {
    let mut best: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    for h in hits.iter().take(DAY_HITS).filter(|h| is_message(h)) {
        // Sorted: the first hit of a log is its best.
        best.entry(h.path.clone()).or_insert(h.score);
    }
    for h in hits.iter_mut().filter(|h| is_message(h)) {
        if let Some(top) = best.get(&h.path) {
            h.from_day = round(DAY_SHARE * top);
            h.score = round(h.score + h.from_day);
        }
    }
}

/// The memories of the days from `first` to `last` (an end `None` is open): by their own date,
/// or by a day their text names or implies ("yesterday" in an entry of the day after). Undated
/// memories (day `i64::MIN`) are never of any day.
fn of_days(
    f: &super::Fields,
    first: Option<chrono::NaiveDate>,
    last: Option<chrono::NaiveDate>,
) -> BooleanQuery {
    let range = |field| -> Box<dyn Query> {
        let lower = first.map_or(i64::MIN + 1, super::day_number);
        let upper = last.map_or(Bound::Unbounded, |d| {
            Bound::Included(Term::from_field_i64(field, super::day_number(d)))
        });
        Box::new(RangeQuery::new(Bound::Included(Term::from_field_i64(field, lower)), upper))
    };
    BooleanQuery::new(vec![(Occur::Should, range(f.day)), (Occur::Should, range(f.implied_day))])
}

/// Boosts hits whose entities are activated from the entities of the five best hits: spreading
/// activation over the graph (two hops, halving, damped by fan-out), score × (1 + activation/2).
/// The five seeding hits themselves keep their scores.
fn spread_activation(index: &Index, hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    let seeds: Vec<String> = hits.iter().take(5).flat_map(|h| h.entities.iter().cloned()).collect();
    if seeds.is_empty() {
        return;
    }
    let Some(cache) = crate::graph::cache::GraphCache::open(index.dir()) else {
        return;
    };
    let targets: Vec<&str> =
        hits.iter().skip(5).flat_map(|h| h.entities.iter().map(String::as_str)).collect();
    let act = cache.activation_of(&seeds, &targets);
    // The seeding hits are not boosted by their own entities: that would only reward having
    // entities at all. Activation lifts the hits *below* them that are connected.
    let mut boosted: Vec<f64> = Vec::new();
    for h in hits.iter_mut().skip(5) {
        let a = h.entities.iter().filter_map(|e| act.get(e)).fold(0.0f64, |m, x| m.max(*x));
        h.activation = round(a);
        boosted.push(h.score * (1.0 + a / 2.0));
    }
    // The hits below stay below the weakest seed: the seeds are what the activation is inferred
    // from, so it reorders the hits under them and never outranks its own evidence. When the
    // best boosted score would pass the fifth hit, all hits below are scaled down together,
    // which keeps their boosted order.
    let ceiling = hits.get(4).map_or(f64::INFINITY, |h| h.score - 0.0001);
    let top = boosted.iter().fold(0.0f64, |m, x| m.max(*x));
    let k = if top > ceiling && top > 0.0 { ceiling / top } else { 1.0 };
    for (h, b) in hits.iter_mut().skip(5).zip(boosted) {
        h.score = round(b * k);
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Splits a text into snippet pieces around the first query match: `(text, is_match)`.
pub fn snippet(text: &str, query: &str, width: usize) -> Vec<(String, bool)> {
    let wanted: BTreeSet<String> = analyzer::terms(query).into_iter().collect();
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("<!--") && !l.starts_with('#'))
        .collect();
    let one = cogmem_store::store::markdown::one_line(&body.join("\n"));
    let words: Vec<&str> = one.split(' ').collect();
    let matches = |w: &str| analyzer::terms(w).iter().any(|t| wanted.contains(t));
    let first = words.iter().position(|w| matches(w)).unwrap_or(0);
    let start = first.saturating_sub(width / 2);
    let end = (start + width).min(words.len());
    let mut out: Vec<(String, bool)> = Vec::new();
    if start > 0 {
        out.push(("… ".into(), false));
    }
    for (i, w) in words[start..end].iter().enumerate() {
        if i > 0 {
            out.push((" ".into(), false));
        }
        out.push(((*w).to_owned(), matches(w)));
    }
    if end < words.len() {
        out.push((" …".into(), false));
    }
    out
}
