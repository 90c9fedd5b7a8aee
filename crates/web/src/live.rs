//! Live updates: `GET /events` is a stream of server-sent events, one `change` event per
//! change of the workspace (hand edits, agents' commits), and `assets/live.js` re-fetches the
//! page's `<main>` when one arrives.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;

use crate::state::AppState;

/// How often an idle event stream looks whether the server is stopping.
const STOP_POLL: Duration = Duration::from_millis(200);

/// One change of the workspace, as the `data` of a `change` event.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The files changed, relative to the workspace root; empty when anything may have changed.
    pub paths: Vec<String>,
}

/// How long the workspace must be quiet after a change before it is told (a commit writes
/// several files).
const DEBOUNCE: Duration = Duration::from_millis(300);

/// The running source of changes; [`Live::stop`] ends it.
pub(crate) struct Live {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Live {
    /// Stops watching and waits for the watching thread.
    pub(crate) fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts watching the workspace (`cogmem_ops::observe`, the file watch of `cogmem watch`,
/// which never commits) on a thread of its own, publishing each change to the state's feed.
/// When the watch cannot be set up, the pages still work; they just do not update by
/// themselves (the live dot stays grey once the stream ends).
pub(crate) fn start(state: &AppState) -> Live {
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (state, stop) = (state.clone(), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("cogmem-web-live".into())
            .spawn(move || {
                let mut tell = |paths: &[String]| state.publish(Change { paths: paths.to_vec() });
                state.set_watching(true);
                let _ = cogmem_ops::observe::observe(state.ws(), DEBOUNCE, &stop, &mut tell);
                state.set_watching(false);
            })
            .ok()
    };
    Live { stop, thread }
}

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/events", get(events))
}

/// `GET /events`: the change events, until the client goes away or the server stops.
async fn events(
    State(state): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = state.subscribe();
    let stream = futures_util::stream::unfold((state, rx), |(state, mut rx)| async move {
        loop {
            if state.stopping() {
                return None;
            }
            let change = match tokio::time::timeout(STOP_POLL, rx.recv()).await {
                Err(_) => continue,
                Ok(Ok(change)) => change,
                // Missed some: anything may have changed.
                Ok(Err(RecvError::Lagged(_))) => Change { paths: Vec::new() },
                Ok(Err(RecvError::Closed)) => return None,
            };
            let event = Event::default()
                .event("change")
                .json_data(&change)
                .unwrap_or_else(|_| Event::default().event("change").data("{}"));
            return Some((Ok(event), (state, rx)));
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
