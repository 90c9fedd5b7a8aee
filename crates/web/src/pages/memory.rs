//! The memory page, `GET /memory/{id}`: one memory's text, store, score and the `why` of it,
//! the entities it names and the memories that link to it, and its history from git with the
//! diff of each change (only the hunks about this memory when its file holds several). Its JSON
//! twins: `/api/memory/{id}` (what `cogmem show --json` prints, without counting a use) and
//! `/api/memory/{id}/history`.
//!
//! Looking at a page is not a use of the memory: it never reinforces it ([`cogmem_ops::decay::look`]).
//! The memory's text is hostile input and only ever an escaped interpolation.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use cogmem_ops::browse::{MemoryPage, Mention};
use cogmem_ops::decay::Shown;
use cogmem_ops::history::MemoryHistory;
use maud::{Markup, html};

use crate::WebResult;
use crate::layout::{self, Nav};
use crate::pages::audit::{commit_href, diff, short};
use crate::pages::entity::entity_href;
use crate::state::AppState;

/// The memory routes and their JSON twins.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/memory/{id}", get(page))
        .route("/api/memory/{id}", get(api))
        .route("/api/memory/{id}/history", get(history_api))
}

async fn page(State(state): State<AppState>, Path(id): Path<String>) -> WebResult<Markup> {
    let p = state.run(move |s| cogmem_ops::browse::memory(s.ws(), &id, s.clock())).await?;
    let title = p.shown.unit.id.clone();
    Ok(layout::page(&state, &title, Nav::Search, render(&p)))
}

async fn api(State(state): State<AppState>, Path(id): Path<String>) -> WebResult<Json<Shown>> {
    Ok(Json(state.run(move |s| cogmem_ops::decay::look(s.ws(), &id, s.clock())).await?))
}

async fn history_api(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> WebResult<Json<MemoryHistory>> {
    let h = state
        .run(move |s| {
            let shown = cogmem_ops::decay::look(s.ws(), &id, s.clock())?;
            cogmem_ops::history::memory(s.ws(), &shown.unit, cogmem_ops::browse::HISTORY_LIMIT)
        })
        .await?;
    Ok(Json(h))
}

/// Percent-encodes `text` for one path segment or query value: every byte but the unreserved
/// ones (`A-Z a-z 0-9 - . _ ~`) and `:` becomes `%XX`.
pub(crate) fn href(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The link to a memory's page.
pub(crate) fn memory_href(id: &str) -> String {
    format!("/memory/{}", href(id))
}

/// A list of other memories, each linked to its page.
pub(crate) fn mentions(list: &[Mention]) -> Markup {
    html! {
        ul.mentions {
            @for m in list {
                li {
                    a href=(memory_href(&m.id)) { code { (m.id) } }
                    " " span.kind { (m.store.as_str()) " · " (m.kind) }
                    @if let Some(d) = &m.date { " " span.date { (d) } }
                    br;
                    span.preview { (m.preview) }
                }
            }
        }
    }
}

/// The memory page's body.
pub fn render(p: &MemoryPage) -> Markup {
    let u = &p.shown.unit;
    html! {
        h1 { code { (u.id) } }
        dl.meta {
            dt { "Store" } dd { (u.store.as_str()) " · " (u.kind) }
            dt { "File" } dd { code { (u.path) ":" (u.line) } }
            @if let Some(d) = &u.date { dt { "Date" } dd { (d) } }
            @if let Some(s) = &u.status { dt { "Status" } dd { (s) } }
            @if !u.tags.is_empty() { dt { "Tags" } dd { (u.tags.join(", ")) } }
            @if let Some(s) = &u.source { dt { "Source" } dd { (s) } }
            dt { "Size" } dd { (p.shown.tokens) " tokens" }
        }
        section.text {
            h2 { "Text" }
            pre.memory-text { (u.text) }
        }
        @if let Some(w) = &p.shown.why {
            section.why {
                h2 { "Score" }
                p { "Score " strong { (format!("{:.3}", w.score)) } ", band " strong { (w.band.as_str()) } }
                p.formula { code { (w.formula) } }
                @if !w.has_entry { p.note { "No decay entry yet: scored as a new memory would be." } }
                @if !w.flags.is_empty() {
                    h3 { "Open flags" }
                    ul { @for f in &w.flags { li { "#" (f.number) ": " (f.text) " — " (f.reason) " (" (f.raised_by) ")" } } }
                }
            }
        }
        @if p.shown.context.len() > 1 {
            section.context {
                h2 { "Around it that day" }
                ul {
                    @for c in &p.shown.context {
                        li {
                            @if c.id == u.id { strong { code { (c.id) } } } @else { a href=(memory_href(&c.id)) { code { (c.id) } } }
                            " " (cogmem_text::markdown::one_line(&c.text))
                        }
                    }
                }
            }
        }
        section.links {
            h2 { "Links" }
            h3 { "Entities it names" }
            @if u.entities.is_empty() { p.empty { "None." } } @else {
                ul { @for e in &u.entities { li { a href=(entity_href(e)) { (e) } } } }
            }
            @if !p.relations.is_empty() {
                h3 { "Relations" }
                ul {
                    @for l in &p.relations {
                        li { (l.relation) " " @if l.direction == "in" { "(from) " } a href=(entity_href(&l.other)) { (l.other) } }
                    }
                }
            }
            h3 { "Memories that link to it" }
            @if p.linked_from.is_empty() { p.empty { "None." } } @else { (mentions(&p.linked_from)) }
        }
        section.history {
            h2 { "History" }
            @if p.history.changes.is_empty() { p.empty { "No commit has changed it yet (a hand edit not yet synced?)." } }
            @for c in &p.history.changes {
                article.change {
                    h3 {
                        a href=(commit_href(&c.commit.id)) { code { (short(&c.commit.id)) } }
                        " " (c.commit.time) " · " (c.commit.actor)
                    }
                    p.subject { (c.commit.subject) }
                    (diff(&c.diff))
                }
            }
            @if !p.history.complete {
                p.note { "Older changes were not searched; `git log -p -- " (p.history.path) "` lists them all." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_ids_for_urls() {
        let cases = [
            ("episode:2026-02-02:14:30", "episode:2026-02-02:14:30"),
            ("entity:person--alice", "entity:person--alice"),
            ("vault:a b/../<x>\"", "vault:a%20b%2F..%2F%3Cx%3E%22"),
            ("東京", "%E6%9D%B1%E4%BA%AC"),
            ("javascript:alert(1)", "javascript:alert%281%29"),
        ];
        for (id, want) in cases {
            assert_eq!(href(id), want, "id: {id:?}");
        }
        // A link always starts with the page's path, so no id can make it another scheme.
        assert_eq!(memory_href("javascript:alert(1)"), "/memory/javascript:alert%281%29");
    }
}
