//! What every handler shares: the workspace, who acts, the clock, the tokens and the live
//! feed.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use cogmem_index::graph::Graph;
use cogmem_store::audit::Actor;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;
use tokio::sync::broadcast;

use crate::error::{WebError, WebResult};
use crate::live::Change;
use crate::security::Security;

/// The server's shared state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    ws: Workspace,
    actor: Actor,
    clock: Box<dyn Clock>,
    security: Security,
    live: broadcast::Sender<Change>,
    stop: Arc<AtomicBool>,
    /// Whether the live watch is running: only then is a built graph kept between requests.
    watching: AtomicBool,
    /// The graph last built, or why building it failed, with the stamp of the files it was
    /// built from.
    graph: Mutex<Option<(GraphStamp, WebResult<Arc<Graph>>)>>,
    /// The outcomes of the latest decisions made through the review forms, by number, for the
    /// result pages the forms redirect to.
    outcomes: Mutex<Outcomes>,
}

/// How many decisions' result pages are kept (oldest dropped first).
const KEPT_OUTCOMES: usize = 64;

/// The result pages of the latest decisions: the last number given and the kept pages.
#[derive(Default)]
struct Outcomes {
    last: u64,
    kept: VecDeque<(u64, Arc<Decided>)>,
}

/// What a decision made through a review form did, as its result page shows it: the CLI's
/// sentence, the commit made (if any) and the detail lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    /// What was done (`proposal #1 deferred`).
    pub what: String,
    /// The full id of the commit made.
    pub commit: Option<String>,
    /// The detail lines (memories written, blocks applied, changes acknowledged).
    pub lines: Vec<String>,
}

/// What tells a kept graph is still the workspace's, besides the live watch: the entity
/// folder's and the relation vocabulary's modification times (a cogmem write replaces files,
/// which changes the folder's).
type GraphStamp = (Option<SystemTime>, Option<SystemTime>);

impl AppState {
    pub(crate) fn new(
        ws: Workspace,
        actor: Actor,
        clock: Box<dyn Clock>,
        security: Security,
        stop: Arc<AtomicBool>,
    ) -> Self {
        let (live, _) = broadcast::channel(64);
        let (watching, graph) = (AtomicBool::new(false), Mutex::new(None));
        let outcomes = Mutex::new(Outcomes::default());
        Self {
            inner: Arc::new(Inner {
                ws,
                actor,
                clock,
                security,
                live,
                stop,
                watching,
                graph,
                outcomes,
            }),
        }
    }

    /// The workspace served.
    pub fn ws(&self) -> &Workspace {
        &self.inner.ws
    }

    /// Who writes: a person, `user:NAME` (never a sub-agent).
    pub fn actor(&self) -> &Actor {
        &self.inner.actor
    }

    /// The one clock.
    pub fn clock(&self) -> &dyn Clock {
        self.inner.clock.as_ref()
    }

    /// The tokens and the request checks.
    pub fn security(&self) -> &Security {
        &self.inner.security
    }

    /// The CSRF token every POST form carries (see [`crate::layout::csrf_field`]).
    pub fn csrf_token(&self) -> &str {
        self.inner.security.csrf_token()
    }

    /// Whether the server is stopping (long-lived responses end then).
    pub fn stopping(&self) -> bool {
        self.inner.stop.load(Ordering::SeqCst)
    }

    /// The live feed: one message per workspace change.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.inner.live.subscribe()
    }

    /// The workspace's graph: the one kept from an earlier request while the live watch runs
    /// and saw no change of the graph's files, else built now (`graph::build` reads every entity
    /// file: half a second at 10,000 entities).
    ///
    /// A build that failed is kept the same way: the graph page's script asks again on every
    /// change of the workspace, and each request redid the failing work. The failure goes with
    /// any change of the graph's files, as a kept graph does, so a fix shows in the next answer.
    ///
    /// Errors: the entity files cannot be listed or the vocabulary read.
    pub fn graph(&self) -> WebResult<Arc<Graph>> {
        let stamp = self.graph_stamp();
        if self.inner.watching.load(Ordering::SeqCst)
            && let Ok(kept) = self.inner.graph.lock()
            && let Some((at, g)) = kept.as_ref()
            && *at == stamp
        {
            return g.clone();
        }
        let g = cogmem_index::graph::from_index_or_files(self.ws())
            .map(Arc::new)
            .map_err(|e| WebError::from(cogmem_ops::Error::from(e)));
        if self.inner.watching.load(Ordering::SeqCst)
            && let Ok(mut kept) = self.inner.graph.lock()
        {
            *kept = Some((stamp, g.clone()));
        }
        g
    }

    fn graph_stamp(&self) -> GraphStamp {
        let modified = |rel: &str| std::fs::metadata(self.ws().abs(rel)).ok()?.modified().ok();
        (modified(layout::ENTITIES_DIR), modified(layout::RELATIONS))
    }

    /// Records whether the live watch runs (the graph is kept between requests only then).
    pub(crate) fn set_watching(&self, on: bool) {
        self.inner.watching.store(on, Ordering::SeqCst);
        self.forget_graph();
    }

    fn forget_graph(&self) {
        if let Ok(mut kept) = self.inner.graph.lock() {
            *kept = None;
        }
    }

    /// Tells every open event stream about a change (after dropping a kept graph the change
    /// may concern).
    pub fn publish(&self, change: Change) {
        if change.paths.is_empty() || change.paths.iter().any(|p| p.starts_with("memory/graph/")) {
            self.forget_graph();
        }
        // Nobody listening is fine.
        let _ = self.inner.live.send(change);
    }

    /// Keeps the outcome of a decision for its result page and returns its number (1, 2, …
    /// for the server's life; only the last 64 are kept).
    pub fn keep_decided(&self, decided: Decided) -> u64 {
        let mut o = self.inner.outcomes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        o.last += 1;
        let n = o.last;
        o.kept.push_back((n, Arc::new(decided)));
        while o.kept.len() > KEPT_OUTCOMES {
            o.kept.pop_front();
        }
        n
    }

    /// The outcome kept under number `n`, while it is kept.
    pub fn decided(&self, n: u64) -> Option<Arc<Decided>> {
        let o = self.inner.outcomes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        o.kept.iter().find(|(k, _)| *k == n).map(|(_, d)| Arc::clone(d))
    }

    /// Runs a (blocking) operation off the async threads and returns its result; what every
    /// handler calls its `cogmem-ops` function through.
    pub async fn run<T, F>(&self, f: F) -> WebResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Self) -> cogmem_ops::Result<T> + Send + 'static,
    {
        self.blocking(move |s| f(s).map_err(WebError::from)).await
    }

    /// [`AppState::run`] on the workspace's graph ([`AppState::graph`]): every page that reads
    /// the graph (the graph page, an entity's page and their JSON) builds it, or fails to, once
    /// for as long as the graph's files do not change.
    pub async fn run_on_graph<T, F>(&self, f: F) -> WebResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Self, &Graph) -> cogmem_ops::Result<T> + Send + 'static,
    {
        self.blocking(move |s| f(s, &*s.graph()?).map_err(WebError::from)).await
    }

    async fn blocking<T, F>(&self, f: F) -> WebResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Self) -> WebResult<T> + Send + 'static,
    {
        let state = self.clone();
        match tokio::task::spawn_blocking(move || f(&state)).await {
            Ok(result) => result,
            Err(e) => Err(WebError::internal(format!("the request's worker failed: {e}"))),
        }
    }
}
