//! The timeline page, `GET /timeline?month=YYYY-MM`: a month of episodes by day, newest first,
//! with links to the next and previous months that have any (the latest month by default).
//! JSON twin: `/api/timeline?month=` ([`cogmem_ops::browse::Timeline`]; the CLI has no
//! timeline command).
//!
//! Episode text and tags are hostile input: escaped interpolations only.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use cogmem_ops::browse::Timeline;
use maud::{Markup, html};
use serde::Deserialize;

use crate::WebResult;
use crate::layout::{self, Nav};
use crate::pages::memory::{href, memory_href};
use crate::state::AppState;

/// The timeline page's query.
#[derive(Debug, Default, Deserialize)]
pub struct TimelineQuery {
    /// The month, `YYYY-MM`; empty or absent means the latest month with episodes.
    pub month: Option<String>,
}

/// The timeline route and its JSON twin.
pub fn routes() -> Router<AppState> {
    Router::new().route("/timeline", get(page)).route("/api/timeline", get(api))
}

async fn page(State(state): State<AppState>, Query(q): Query<TimelineQuery>) -> WebResult<Markup> {
    let t = state
        .run(move |s| cogmem_ops::browse::timeline(s.ws(), q.month.as_deref(), s.clock()))
        .await?;
    let title = format!("Timeline {}", t.month);
    Ok(layout::page(&state, &title, Nav::Timeline, render(&t)))
}

async fn api(
    State(state): State<AppState>,
    Query(q): Query<TimelineQuery>,
) -> WebResult<Json<Timeline>> {
    let t = state
        .run(move |s| cogmem_ops::browse::timeline(s.ws(), q.month.as_deref(), s.clock()))
        .await?;
    Ok(Json(t))
}

fn month_href(month: &str) -> String {
    format!("/timeline?month={}", href(month))
}

/// The time of an episode entry, from its id (`episode:YYYY-MM-DD:HH:MM[:N]`).
fn time_of(id: &str) -> &str {
    id.strip_prefix("episode:").and_then(|r| r.get(11..16)).unwrap_or("")
}

/// The timeline page's body.
pub fn render(t: &Timeline) -> Markup {
    html! {
        h1 { "Timeline " (t.month) }
        nav.months {
            @if let Some(m) = &t.newer { a rel="next" href=(month_href(m)) { "← " (m) } " " }
            form.filters method="get" action="/timeline" {
                input type="month" name="month" value=(t.month);
                " " button type="submit" { "Go" }
            }
            @if let Some(m) = &t.older { " " a rel="prev" href=(month_href(m)) { (m) " →" } }
        }
        @if !t.skipped.is_empty() {
            ul.warnings { @for s in &t.skipped { li { "skipped " (s.error) } } }
        }
        @if t.days.is_empty() { p.empty { "No episodes in " (t.month) "." } }
        @for d in &t.days {
            section.day {
                h2 { (d.date) }
                ol.entries {
                    @for e in &d.entries {
                        li.entry {
                            a href=(memory_href(&e.id)) { span.time { (time_of(&e.id)) } }
                            " " span.kind { (e.kind) }
                            @if !e.tags.is_empty() { " " span.tags { (e.tags.join(", ")) } }
                            div.text { (cogmem_text::markdown::one_line(&e.text)) }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_time_from_an_episode_id() {
        assert_eq!(time_of("episode:2026-02-02:14:30"), "14:30");
        assert_eq!(time_of("episode:2026-02-02:14:30:2"), "14:30");
        assert_eq!(time_of("entity:x"), "");
    }
}
