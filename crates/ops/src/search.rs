//! `cogmem search`, `cogmem recall` and `cogmem reindex`: queries over the derived index, which
//! is brought up to date with the files first (only changed files are re-read).

use serde::Serialize;

use crate::error::InputError;
use cogmem_index::index::search::{self, Hit, SearchOptions};
use cogmem_index::index::{self, RefreshReport};
use cogmem_store::access;
use cogmem_store::settings::DecayClock;
use cogmem_store::store::Store;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::{Clock, Timestamp};
use cogmem_text::model::EntityId;

/// How many hits a search or recall returns when the caller names no limit.
pub const DEFAULT_LIMIT: usize = 10;

/// The filters of a search or recall as an adapter receives them, not yet checked. The CLI's
/// flags and the MCP tools' arguments both become [`SearchOptions`] through
/// [`SearchFields::to_options`], with the same defaults and the same errors.
#[derive(Debug, Clone, Default)]
pub struct SearchFields {
    /// Only this store.
    pub store: Option<String>,
    /// Only this kind: an episode type or an entity type.
    pub kind: Option<String>,
    /// Only memories that name this entity.
    pub entity: Option<String>,
    /// Only memories dated on or after this day.
    pub since: Option<String>,
    /// Only memories dated on or before this day.
    pub until: Option<String>,
    /// At most this many hits ([`DEFAULT_LIMIT`] when `None`; at least one).
    pub limit: Option<usize>,
    /// Include dormant memories.
    pub all: bool,
}

impl SearchFields {
    /// Checks the fields and builds the options. `since` and `until` take any form the shared
    /// date reader takes; a time or an age stands for its day in `now`'s offset, a stretch of
    /// days (`last week`, `先月`) for its first day in `since` and its last in `until`.
    ///
    /// Errors: an unknown store, or a day that cannot be read.
    pub fn to_options(&self, now: &Timestamp) -> crate::Result<SearchOptions> {
        let read = |flag: &'static str, text: Option<&str>| {
            text.map(|s| {
                cogmem_text::date::parse(s, now)
                    .ok_or_else(|| InputError::Time { flag, text: s.to_owned() })
            })
            .transpose()
        };
        let offset = *now.offset();
        let (since, until) =
            (read("--since", self.since.as_deref())?, read("--until", self.until.as_deref())?);
        Ok(SearchOptions {
            store: self.store.as_deref().map(Store::parse).transpose()?,
            kind: self.kind.as_ref().map(|k| k.to_ascii_lowercase()),
            // `entity:TYPE--SLUG` is the entity's memory id; the filter takes the entity's.
            entity: self.entity.as_deref().map(|e| EntityId::given_part(e).to_owned()),
            since: since.map(|w| w.day(offset)),
            // A stretch of days (`last week`) ends on its last day.
            until: until.map(|w| w.last_day(offset)),
            limit: self.limit.unwrap_or(DEFAULT_LIMIT).max(1),
            all: self.all,
            embedder: None,
        })
    }
}

/// What a search found, and what the refresh before it did.
#[derive(Debug, Clone, Serialize)]
pub struct SearchReport {
    /// The hits, best first (core memory first).
    pub hits: Vec<Hit>,
    /// The refresh of the index before searching.
    pub refresh: RefreshReport,
    /// Why the embedding model named in the settings could not be used (the search went on
    /// with keywords alone), with what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// What the search did to the embedding vectors, when it asked the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<cogmem_index::embed::VectorsReport>,
    /// How the query was read, for `search --explain` (not part of the report's JSON).
    #[serde(skip)]
    pub reading: search::Reading,
}

/// Searches the workspace. Read-only as far as memories go: only the derived index changes.
/// With an embedding model (`opts.embedder`, else the workspace's, [`embedder`]) paraphrases
/// are found where keywords fall short; a model that cannot be loaded is a warning.
pub fn search(
    ws: &Workspace,
    query: &str,
    opts: &SearchOptions,
    clock: &dyn Clock,
) -> crate::Result<SearchReport> {
    let settings = ws.settings();
    let now = clock.now();
    let mut with_model;
    let mut opts = opts;
    if opts.embedder.is_none()
        && let Some(e) = embedder(ws)
    {
        with_model = opts.clone();
        with_model.embedder = Some(std::sync::Arc::new(e));
        opts = &with_model;
    }
    let (refresh, hits) = if opts.embedder.is_none() {
        // The query runs while the refresh stats the files (issue 20); a search with a model
        // may write vectors, so it waits for the refresh.
        let (_, refresh, hits) = index::open_and_read(ws, |idx| {
            search::search_reading(idx, query, opts, now, &settings.decay, &settings.search)
        })?;
        (refresh, hits?)
    } else {
        let (idx, refresh) = index::open(ws, false, None)?;
        let read =
            search::search_reading(&idx, query, opts, now, &settings.decay, &settings.search);
        (refresh, read?)
    };
    let (hits, reading) = hits;
    let embedder = opts.embedder.as_deref();
    let warning = embedder.and_then(|e| e.error()).map(|e| format!("{e}\nhint: {}", e.hint()));
    let vectors = embedder.and_then(cogmem_index::embed::Embedder::report);
    Ok(SearchReport { hits, refresh, warning, vectors, reading })
}

/// The workspace's embedding model, not loaded yet: `COGMEM_EMBEDDING_MODEL` as the binary
/// passed it, else `[search] embedding_model` (relative to the workspace root).
pub fn embedder(ws: &Workspace) -> Option<cogmem_index::embed::Embedder> {
    let dir = ws.options().embedding_model.clone().or_else(|| {
        let named = ws.settings().search.embedding_model.as_ref()?;
        Some(ws.root().join(named))
    })?;
    Some(cogmem_index::embed::Embedder::new(dir))
}

/// Recall results grouped by store, core memory first.
#[derive(Debug, Clone, Serialize)]
pub struct RecallReport {
    /// Groups in store order (core, episodic, semantic, procedural, vault), empty ones left out.
    pub groups: Vec<RecallGroup>,
    /// The refresh of the index before searching.
    pub refresh: RefreshReport,
    /// Why the embedding model could not be used, as in [`SearchReport::warning`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The hits of one store.
#[derive(Debug, Clone, Serialize)]
pub struct RecallGroup {
    /// The store.
    pub store: String,
    /// Its hits, best first.
    pub hits: Vec<Hit>,
}

impl RecallReport {
    /// Every hit, in group order.
    pub(crate) fn hits(&self) -> impl Iterator<Item = &Hit> {
        self.groups.iter().flat_map(|g| g.hits.iter())
    }
}

/// Searches like [`search()`], counts the results as uses (recorded in the access log, folded by
/// the next change), and groups them by store.
pub fn recall(
    ws: &Workspace,
    query: &str,
    opts: &SearchOptions,
    clock: &dyn Clock,
) -> crate::Result<RecallReport> {
    let SearchReport { hits, refresh, warning, .. } = search(ws, query, opts, clock)?;
    let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
    recalled(ws, &ids, clock)?;
    let mut groups: Vec<RecallGroup> = Vec::new();
    for store in cogmem_store::store::Store::ALL {
        let in_store: Vec<Hit> =
            hits.iter().filter(|h| h.store == store.as_str()).cloned().collect();
        if !in_store.is_empty() {
            groups.push(RecallGroup { store: store.as_str().to_owned(), hits: in_store });
        }
    }
    Ok(RecallReport { groups, refresh, warning })
}

/// Records a recall of the memories `ids` (their uses, and one interaction where the decay
/// clock counts them) in the access log: what makes recalling a memory strengthen it.
pub(crate) fn recalled(ws: &Workspace, ids: &[String], clock: &dyn Clock) -> crate::Result<()> {
    let interactions = u64::from(ws.settings().decay.clock == DecayClock::Interactions);
    if !ids.is_empty() || interactions > 0 {
        access::record(ws, ids, interactions, clock.now())?;
    }
    Ok(())
}

/// Rebuilds (with `full`) or refreshes the index, counting the files it reads on the
/// workspace's progress sink.
pub fn reindex(ws: &Workspace, full: bool) -> crate::Result<RefreshReport> {
    // The index reports (done, total) before each file; the task starts with the first call.
    let task = std::cell::OnceCell::new();
    let done = std::cell::Cell::new(0);
    let progress = |n: usize, total: usize| {
        let task = task.get_or_init(|| ws.progress(total as u64, "files"));
        task.add((n as u64).saturating_sub(done.replace(n as u64)));
    };
    let (idx, report) = index::open(ws, full, Some(&progress))?;
    if full {
        // The vectors are derived like the index: a full rebuild recomputes them too (now when
        // a model is named, else by the first search that has one).
        let dir = ws.abs(cogmem_index::embed::vectors::DIR);
        if dir.exists() {
            cogmem_store::store::fsx::remove_dir_all(&dir)?;
        }
        if let Some(e) = embedder(ws) {
            cogmem_index::embed::refresh(&idx, &e)?;
        }
    }
    Ok(report)
}
