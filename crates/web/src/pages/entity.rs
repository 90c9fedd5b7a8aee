//! The entity page, `GET /entity/{id}?as_of=`: an entity's relations valid on a day (today by
//! default; a date input picks another, like `graph show --as-of`), every relation it ever had
//! (`graph history`), links to its neighbours and to the memories naming it. JSON twins:
//! `/api/entity/{id}?as_of=` (what `cogmem graph show --json` prints) and
//! `/api/entity/{id}/history` (`cogmem graph history --json`).
//!
//! Entity names, aliases and relation names are hostile input: escaped interpolations only.

use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use cogmem_ops::browse::EntityPage;
use cogmem_ops::graph::{Link, Shown};
use maud::{Markup, html};
use serde::Deserialize;

use crate::WebResult;
use crate::layout::{self, Nav};
use crate::pages::memory::{href, memory_href, mentions};
use crate::state::AppState;

/// The entity page's query: the day to show relations on.
#[derive(Debug, Default, Deserialize)]
pub struct EntityQuery {
    /// Any date form `graph show --as-of` reads; empty means today.
    pub as_of: Option<String>,
}

/// The entity routes and their JSON twins.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/entity/{id}", get(page))
        .route("/api/entity/{id}", get(api))
        .route("/api/entity/{id}/history", get(history_api))
}

async fn page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<EntityQuery>,
) -> WebResult<Markup> {
    let p = state
        .run_on_graph(move |s, g| {
            cogmem_ops::browse::entity_in(s.ws(), Some(g), &id, q.as_of.as_deref(), s.clock())
        })
        .await?;
    let title = p.shown.node.id.clone();
    Ok(layout::page(&state, &title, Nav::Graph, render(&p)))
}

async fn api(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<EntityQuery>,
) -> WebResult<Json<Shown>> {
    let shown = state
        .run_on_graph(move |s, g| {
            let as_of = match q.as_of.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
                Some(a) => Some(cogmem_ops::graph::parse_as_of("as_of", a, &s.clock().now())?),
                None => None,
            };
            Ok(cogmem_ops::graph::show_and_history_in(s.ws(), g, &id, as_of.as_deref())?.0)
        })
        .await?;
    Ok(Json(shown))
}

async fn history_api(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> WebResult<Json<Shown>> {
    let both = state
        .run_on_graph(move |s, g| cogmem_ops::graph::show_and_history_in(s.ws(), g, &id, None))
        .await?;
    Ok(Json(both.1))
}

/// The link to an entity's page (`TYPE--SLUG`, with or without `entity:`).
pub(crate) fn entity_href(id: &str) -> String {
    format!("/entity/{}", href(id.strip_prefix("entity:").unwrap_or(id)))
}

fn relations(links: &[Link]) -> Markup {
    html! {
        table.relations {
            thead { tr { th { "Relation" } th { "Direction" } th { "Other" } th { "Since" } th { "Until" } th { "Confidence" } } }
            tbody {
                @for l in links {
                    tr {
                        td { (l.relation) }
                        td { @if l.direction == "in" { "from" } @else { "to" } }
                        td { a href=(entity_href(&l.other)) { (l.other) } @if l.forgotten { " (forgotten)" } }
                        td { (l.since.as_deref().unwrap_or("")) }
                        td { (l.until.as_deref().unwrap_or("")) }
                        td { (format!("{:.2}", l.confidence)) }
                    }
                }
            }
        }
    }
}

/// The entity page's body.
pub fn render(p: &EntityPage) -> Markup {
    let n = &p.shown.node;
    let past: Vec<Link> = p.history.iter().filter(|l| l.until.is_some()).cloned().collect();
    html! {
        h1 { (n.id) }
        dl.meta {
            dt { "Type" } dd { (n.kind) }
            dt { "Status" } dd { (n.status) @if p.shown.forgotten { ", forgotten" } }
            @if !n.names.is_empty() { dt { "Names" } dd { (n.names.join(", ")) } }
            dt { "File" } dd { a href=(memory_href(&format!("entity:{}", n.id))) { code { (n.path) } } }
        }
        form.filters method="get" action=(entity_href(&n.id)) {
            label { "Relations as of " input type="date" name="as_of" value=(p.as_of.as_deref().unwrap_or("")); }
            " " button type="submit" { "Show" }
            @if p.as_of.is_some() { " " a href=(entity_href(&n.id)) { "today" } }
        }
        section {
            h2 { "Relations " @if let Some(d) = &p.as_of { "on " (d) } @else { "now" } }
            @if p.shown.links.is_empty() { p.empty { "None." } } @else { (relations(&p.shown.links)) }
        }
        section {
            h2 { "Past relations" }
            @if past.is_empty() { p.empty { "None closed." } } @else { (relations(&past)) }
        }
        section {
            h2 { "Memories that name it" }
            @if p.mentions.is_empty() { p.empty { "None." } } @else { (mentions(&p.mentions)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_entities_by_their_id() {
        assert_eq!(entity_href("person--alice"), "/entity/person--alice");
        assert_eq!(entity_href("entity:person--alice"), "/entity/person--alice");
        assert_eq!(entity_href("x\"><img>"), "/entity/x%22%3E%3Cimg%3E");
    }
}
