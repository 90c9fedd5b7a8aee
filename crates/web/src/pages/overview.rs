//! `GET /`: the overview — what each store holds, the decay bands, recent commits with their
//! actors, and what waits for a person.

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use maud::{Markup, html};

use cogmem_ops::status::StatusReport;

use crate::error::WebResult;
use crate::layout::{self, Nav};
use crate::state::AppState;

/// How many recent commits the overview lists.
const RECENT: usize = 10;

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/", get(overview))
}

async fn overview(State(state): State<AppState>) -> WebResult<Markup> {
    let report = state.run(|s| cogmem_ops::status::status(s.ws(), RECENT)).await?;
    Ok(layout::page(&state, "Overview", Nav::Overview, render(&report)))
}

/// The overview's `<main>`.
pub fn render(report: &StatusReport) -> Markup {
    let c = &report.counts;
    let b = &c.bands;
    html! {
        h1 { "Overview" }
        section.counts aria-label="Stores" {
            h2 { "Stores" }
            table {
                tr { th scope="row" { "Core" } td { (c.core) " bullets in MEMORY.md" } }
                tr { th scope="row" { "Episodic" } td { (c.episodes) " entries in " (c.episode_days) " days" } }
                tr { th scope="row" { "Semantic" } td { (c.entities) " entities" } }
                tr { th scope="row" { "Procedural" } td { (c.procedures) " procedures" } }
                tr { th scope="row" { "Vault" } td { (c.vault) " notes" } }
            }
        }
        section.bands aria-label="Decay bands" {
            h2 { "Decay" }
            ul.bands {
                li.active { (b.active) " active" }
                li.fading { (b.fading) " fading" }
                li.dormant { (b.dormant) " dormant" }
                li.archived { (b.archived) " archived" }
            }
        }
        section.commits aria-label="Recent commits" {
            h2 { "Recent commits" }
            @if report.recent_commits.is_empty() {
                p { "No commits yet." }
            } @else {
                table {
                    thead { tr { th { "Commit" } th { "When" } th { "Actor" } th { "Change" } } }
                    tbody {
                        @for commit in &report.recent_commits {
                            tr {
                                td { a href={ "/audit/" (commit.id) } { code { (short(&commit.id)) } } }
                                td { time { (commit.time) } }
                                td.actor { (commit.author) }
                                td { (commit.subject) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The first eight characters of a commit id.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
