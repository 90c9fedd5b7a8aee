//! `GET /graph`: the cognitive map, drawn in the browser by `assets/graph.js` with the vendored
//! Cytoscape.js from `GET /api/graph?as_of=&type=&relation=&focus=&depth=` (the
//! [`cogmem_ops::graph::view`] of the query) and `GET /api/graph/activation?from=`
//! ([`cogmem_ops::graph::activation`]), on the graph the server keeps while nothing changes
//! ([`AppState::graph`]). The page itself is the controls and an empty canvas;
//! the query is passed to the script in `data-` attributes and form values (no inline script).

use axum::Json;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use maud::{Markup, html};
use serde::Deserialize;

use cogmem_ops::graph::{Activation, MAX_DEPTH, View, ViewOptions};

use crate::assets;
use crate::error::{WebError, WebResult};
use crate::layout::{self, Nav};
use crate::state::AppState;

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/graph", get(page))
        .route("/api/graph", get(view))
        .route("/api/graph/activation", get(activation))
}

/// The query of `/graph` and `/api/graph`. `type` and `relation` take one name or several
/// separated by commas.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GraphQuery {
    /// The date (`--as-of`'s forms).
    pub as_of: Option<String>,
    /// Entity types.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Relations.
    pub relation: Option<String>,
    /// The entity to draw the neighbourhood of.
    pub focus: Option<String>,
    /// Hops around it.
    pub depth: Option<usize>,
    /// Entities to draw at most.
    pub limit: Option<usize>,
}

impl GraphQuery {
    /// The options of [`cogmem_ops::graph::view`].
    ///
    /// Errors: a `depth` outside 1 to [`MAX_DEPTH`] (400, naming the range).
    pub fn options(&self) -> WebResult<ViewOptions> {
        let depth = self.depth.unwrap_or(1);
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(WebError::bad_request(
                format!("depth={depth} is out of range: the graph draws 1 to {MAX_DEPTH} hops"),
                format!("ask for `depth=1` to `depth={MAX_DEPTH}` (1 when left out)"),
            ));
        }
        let list = |s: &Option<String>| -> Vec<String> {
            s.as_deref()
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Ok(ViewOptions {
            as_of: self.as_of.clone(),
            kinds: list(&self.kind),
            relations: list(&self.relation),
            focus: self.focus.clone(),
            depth,
            limit: self.limit.unwrap_or(0),
        })
    }
}

/// The query of `/api/graph/activation`.
#[derive(Debug, Deserialize)]
pub struct ActivationQuery {
    /// The selected entity.
    pub from: Option<String>,
}

/// `GET /graph`: a `depth` out of range is refused as the API refuses it (the page's selector
/// would show another depth than the address asks for).
async fn page(State(state): State<AppState>, Query(q): Query<GraphQuery>) -> WebResult<Markup> {
    q.options()?;
    Ok(layout::page(&state, "Graph", Nav::Graph, render(&q)))
}

/// An entity a query names that does not exist is a mistake in the query, like an unreadable
/// `as_of`: 400, not the 404 of an entity page; the hint keeps the nearest ids.
fn query_mistake(mut e: WebError) -> WebError {
    if e.status == StatusCode::NOT_FOUND {
        e.status = StatusCode::BAD_REQUEST;
    }
    e
}

/// `GET /api/graph`. A `focus` that names no entity is a mistake in the query, like an
/// unreadable `as_of`: 400 (not the 404 of an entity page), with the nearest ids in the hint.
async fn view(State(state): State<AppState>, Query(q): Query<GraphQuery>) -> WebResult<Json<View>> {
    let opts = q.options()?;
    let now = state.clock().now();
    let view = state.run_on_graph(move |_, g| cogmem_ops::graph::view_of(g, &opts, &now)).await;
    Ok(Json(view.map_err(query_mistake)?))
}

async fn activation(
    State(state): State<AppState>,
    Query(q): Query<ActivationQuery>,
) -> WebResult<Json<Activation>> {
    let Some(from) = q.from.filter(|f| !f.trim().is_empty()) else {
        return Err(WebError::bad_request(
            "/api/graph/activation needs the entity to spread from",
            "add `?from=ENTITY`, e.g. `/api/graph/activation?from=person--alice`",
        ));
    };
    let spread = state.run_on_graph(move |_, g| cogmem_ops::graph::activation_of(g, &from)).await;
    Ok(Json(spread.map_err(query_mistake)?))
}

/// The graph page's `<main>`: the controls, the canvas, the side panel and the scripts.
pub fn render(q: &GraphQuery) -> Markup {
    let depth = q.depth.unwrap_or(1).clamp(1, MAX_DEPTH);
    html! {
        h1 { "Graph" }
        link rel="stylesheet" id="__________cytoscape_stylesheet" href=(assets::url("graph.css"));
        form #graph-controls .graph-controls action="/graph" method="get" role="search" {
            label {
                "Find an entity"
                input #graph-search type="search" name="focus" list="graph-ids"
                    placeholder="a name, an alias or an id" value=(q.focus.as_deref().unwrap_or(""));
            }
            datalist #graph-ids {}
            label {
                "Depth"
                select #graph-depth name="depth" {
                    @for d in 1..=MAX_DEPTH {
                        option value=(d) selected[d == depth] { (d) }
                    }
                }
            }
            button type="submit" { "Find" }
            label {
                "Type"
                select #graph-type name="type" { option value="" { "all types" } }
            }
            label {
                "Relation"
                select #graph-relation name="relation" { option value="" { "all relations" } }
            }
            label {
                "As of " output #graph-date { (q.as_of.as_deref().filter(|a| !a.is_empty()).unwrap_or("now")) }
                input #graph-time type="range" min="0" max="1" value="1" aria-label="As of";
                input #graph-as-of type="hidden" name="as_of" value=(q.as_of.as_deref().unwrap_or(""));
            }
            button #graph-reset type="button" { "Show all" }
        }
        p #graph-status role="status" aria-live="polite" {}
        div .graph-layout {
            div #graph .graph-canvas
                data-api="/api/graph"
                data-activation="/api/graph/activation"
                data-entity="/entity/"
                data-type=(q.kind.as_deref().unwrap_or(""))
                data-relation=(q.relation.as_deref().unwrap_or(""))
                data-limit=(q.limit.map(|l| l.to_string()).unwrap_or_default()) {}
            aside #graph-side aria-label="Selected entity" {}
        }
        noscript {
            p {
                "The graph is drawn with JavaScript. Without it, `cogmem graph export --format mermaid` "
                "prints the same graph, and each entity has its page under /entity/."
            }
        }
        script src=(assets::url("cytoscape.min.js")) {}
        script src=(assets::url("graph.js")) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query reaches the page only through attributes maud escapes, never as markup.
    #[test]
    fn a_hostile_query_stays_an_attribute_value() {
        let q = GraphQuery {
            focus: Some("\"><script>alert(1)</script>".into()),
            kind: Some("person\" onmouseover=\"alert(1)".into()),
            as_of: Some("<img src=x onerror=alert(1)>".into()),
            ..Default::default()
        };
        let html = render(&q).into_string();
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(html.contains("&quot;&gt;&lt;script&gt;alert(1)"), "{html}");
        assert!(html.contains("data-type=\"person&quot; onmouseover=&quot;alert(1)\""), "{html}");
    }

    #[test]
    fn type_and_relation_lists_are_split_on_commas() {
        let q = GraphQuery {
            kind: Some(" person, place ,".into()),
            relation: Some("lives-in".into()),
            depth: Some(3),
            ..Default::default()
        };
        let o = q.options().unwrap();
        assert_eq!(
            (o.kinds, o.relations, o.depth),
            (vec!["person".to_owned(), "place".to_owned()], vec!["lives-in".to_owned()], 3)
        );
        let deep = GraphQuery { depth: Some(9), ..Default::default() };
        assert!(render(&deep).into_string().contains("<option value=\"4\" selected>4</option>"));
    }

    #[test]
    fn a_depth_outside_one_to_four_is_refused_naming_the_range() {
        for depth in [0, 5, 99] {
            let q = GraphQuery { depth: Some(depth), ..Default::default() };
            let e = q.options().unwrap_err();
            assert_eq!(e.status.as_u16(), 400, "depth {depth}");
            assert!(e.message.contains("1 to 4"), "depth {depth}: {}", e.message);
        }
        assert_eq!(GraphQuery::default().options().unwrap().depth, 1);
    }
}
