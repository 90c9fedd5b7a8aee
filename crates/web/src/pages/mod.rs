//! The pages, one module each; [`routes`] merges their routes.

use axum::Router;

use crate::state::AppState;

pub mod audit;
pub mod entity;
pub mod graph;
pub mod memory;
pub mod overview;
pub mod review;
pub mod search;
pub mod timeline;

/// Every page's routes. Each page module adds one line here.
pub fn routes() -> Router<AppState> {
    Router::new()
        .merge(overview::routes())
        .merge(search::routes())
        .merge(memory::routes())
        .merge(entity::routes())
        .merge(graph::routes())
        .merge(timeline::routes())
        .merge(audit::routes())
        .merge(review::routes())
}
