//! What every handler shares: the workspace, who acts, the clock, the tokens and the live
//! feed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cogmem_store::audit::Actor;
use cogmem_store::workspace::Workspace;
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
}

impl AppState {
    pub(crate) fn new(
        ws: Workspace,
        actor: Actor,
        clock: Box<dyn Clock>,
        security: Security,
        stop: Arc<AtomicBool>,
    ) -> Self {
        let (live, _) = broadcast::channel(64);
        Self { inner: Arc::new(Inner { ws, actor, clock, security, live, stop }) }
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

    /// Tells every open event stream about a change.
    pub fn publish(&self, change: Change) {
        // Nobody listening is fine.
        let _ = self.inner.live.send(change);
    }

    /// Runs a (blocking) operation off the async threads and returns its result; what every
    /// handler calls its `cogmem-ops` function through.
    pub async fn run<T, F>(&self, f: F) -> WebResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Self) -> cogmem_ops::Result<T> + Send + 'static,
    {
        let state = self.clone();
        match tokio::task::spawn_blocking(move || f(&state)).await {
            Ok(result) => result.map_err(WebError::from),
            Err(e) => Err(WebError::internal(format!("the request's worker failed: {e}"))),
        }
    }
}
