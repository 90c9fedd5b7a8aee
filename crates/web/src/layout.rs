//! The frame of every page: the head (our stylesheet and script, nothing from the network),
//! the navigation bar, `<main>` (what the live updates swap) and the footer.

use maud::{DOCTYPE, Markup, html};

use crate::security::CSRF_FIELD;
use crate::state::AppState;

/// The entries of the navigation bar; `None` highlights none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    /// `/`
    Overview,
    /// `/search`
    Search,
    /// `/graph`
    Graph,
    /// `/timeline`
    Timeline,
    /// `/audit`
    Audit,
    /// `/review`
    Review,
    /// No entry (error pages, a memory reached from a search).
    None,
}

impl Nav {
    /// The entries in the bar's order, with their addresses and labels.
    pub const BAR: [(Self, &'static str, &'static str); 6] = [
        (Self::Overview, "/", "Overview"),
        (Self::Search, "/search", "Search"),
        (Self::Graph, "/graph", "Graph"),
        (Self::Timeline, "/timeline", "Timeline"),
        (Self::Audit, "/audit", "Audit"),
        (Self::Review, "/review", "Review"),
    ];
}

/// A whole page: `title`, the navigation bar with `active` marked, and `body` in `<main>`.
pub fn page(state: &AppState, title: &str, active: Nav, body: Markup) -> Markup {
    frame(state, title, active, body, true)
}

/// [`page`] for the answer to a write (a refused form) at the write's own address: its
/// `<main>` is not re-fetched by the live updates (`data-live="off"`), since a GET there is a
/// 405.
pub fn answer_to_write(state: &AppState, title: &str, active: Nav, body: Markup) -> Markup {
    frame(state, title, active, body, false)
}

fn frame(state: &AppState, title: &str, active: Nav, body: Markup, live: bool) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title, Some(state.csrf_token())))
            body {
                header.bar {
                    a.brand href="/" { "cogmem" }
                    nav aria-label="Main" {
                        @for (nav, href, label) in Nav::BAR {
                            @if nav == active {
                                a href=(href) aria-current="page" { (label) }
                            } @else {
                                a href=(href) { (label) }
                            }
                        }
                    }
                    span.live-state id="live-state" title="Live updates" {}
                }
                @if live {
                    main id="main" { (body) }
                } @else {
                    main id="main" data-live="off" { (body) }
                }
                footer {
                    "Workspace " code { (state.ws().root().display().to_string()) }
                    " · acting as " code { (state.actor().as_str()) }
                }
            }
        }
    }
}

/// A page without navigation or workspace details, for visitors who were refused.
pub fn bare(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title, None))
            body { main id="main" { (body) } }
        }
    }
}

/// The head; `csrf` is the token a script sends in `X-Cogmem-Csrf` (from
/// `<meta name="cogmem-csrf">`), on the pages of visitors who were let in.
fn head(title: &str, csrf: Option<&str>) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            @if let Some(csrf) = csrf { meta name="cogmem-csrf" content=(csrf); }
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="referrer" content="no-referrer";
            title { (title) " · cogmem" }
            link rel="stylesheet" href=(crate::assets::url("style.css"));
            // No favicon request (its 404 is an error in the browser's console).
            link rel="icon" href="data:,";
            script src=(crate::assets::url("live.js")) defer {}
        }
    }
}

/// The hidden input that carries the CSRF token; put it in every POST form.
pub fn csrf_field(state: &AppState) -> Markup {
    html! { input type="hidden" name=(CSRF_FIELD) value=(state.csrf_token()); }
}
