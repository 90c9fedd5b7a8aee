//! The JSON API under `/api/`: each route answers with the JSON the CLI's `--json` prints for
//! the same operation (the same `cogmem-ops` report), and errors with
//! `{"error": {"status", "message", "hint"}}`. The token and CSRF rules are the pages'.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use crate::error::WebResult;
use crate::state::AppState;

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/api/status", get(status))
}

/// `?commits=N`, as `cogmem status --commits N`.
#[derive(Debug, Deserialize)]
pub struct StatusQuery {
    /// How many recent commits to list (default 5).
    #[serde(default = "five")]
    pub commits: usize,
}

fn five() -> usize {
    5
}

/// `GET /api/status`: `cogmem status --json`.
async fn status(
    State(state): State<AppState>,
    Query(q): Query<StatusQuery>,
) -> WebResult<Json<cogmem_ops::status::StatusReport>> {
    let commits = q.commits.min(1000);
    Ok(Json(state.run(move |s| cogmem_ops::status::status(s.ws(), commits)).await?))
}
