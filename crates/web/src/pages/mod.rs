//! The pages, one module each; [`routes`] merges their routes.

use axum::Router;

use crate::state::AppState;

pub mod graph;
pub mod overview;

/// Every page's routes. Each page module adds one line here.
pub fn routes() -> Router<AppState> {
    Router::new().merge(overview::routes()).merge(graph::routes())
}
