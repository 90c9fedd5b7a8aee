//! The search page, `GET /search?q=&store=&band=&since=&until=&all=`: the CLI's ranking
//! ([`cogmem_ops::search`], the options of `cogmem search`), its filters as a GET form, and
//! each hit's matching words marked. JSON twin: `/api/search?…` (`{"hits", "skipped",
//! "warning"}`: what `cogmem search --json` prints under `hits`, and what the CLI warns of on
//! stderr, the files it could not read and an embedding model it could not use).
//!
//! Marking never builds markup from text: the text is cut into pieces by the index's own
//! analyzer ([`cogmem_index::index::highlight`], so stemming and CJK pairs mark what was
//! searched), and each piece is an escaped interpolation, the matching ones inside `<mark>`.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use cogmem_index::index::highlight::excerpt;
use cogmem_index::index::search::{Hit, Reading};
use cogmem_ops::browse::BANDS;
use cogmem_ops::search::SearchFields;
use cogmem_store::store::units::Unreadable;
use maud::{Markup, html};
use serde::{Deserialize, Serialize};

use crate::WebResult;
use crate::layout::{self, Nav};
use crate::pages::memory::memory_href;
use crate::state::AppState;

/// How many characters of a hit's text the page shows around its first match.
const EXCERPT_CHARS: usize = 320;

/// The search form's fields (empty ones mean no filter).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct SearchQuery {
    /// The query.
    pub q: Option<String>,
    /// Only this store.
    pub store: Option<String>,
    /// Only this band (`active`, `fading`, `dormant`).
    pub band: Option<String>,
    /// Only memories dated on or after this day (any form `--since` reads).
    pub since: Option<String>,
    /// Only memories dated on or before this day.
    pub until: Option<String>,
    /// Include dormant memories (`--all`): any value but empty, `0`, `false` or `off`.
    pub all: Option<String>,
    /// At most this many hits (default as the CLI's).
    pub limit: Option<usize>,
}

fn given(v: Option<&String>) -> Option<&str> {
    v.map(|s| s.trim()).filter(|s| !s.is_empty())
}

impl SearchQuery {
    /// The query text, when there is one.
    fn query(&self) -> Option<&str> {
        given(self.q.as_ref())
    }

    fn all(&self) -> bool {
        given(self.all.as_ref()).is_some_and(|a| !matches!(a, "0" | "false" | "off"))
    }

    /// The fields `cogmem search` would get from the same flags.
    fn fields(&self) -> SearchFields {
        let own = |v: Option<&String>| given(v).map(str::to_owned);
        SearchFields {
            store: own(self.store.as_ref()),
            since: own(self.since.as_ref()),
            until: own(self.until.as_ref()),
            limit: self.limit,
            all: self.all(),
            ..SearchFields::default()
        }
    }

    fn run(&self, state: &AppState) -> cogmem_ops::Result<Found> {
        let query = self.query().unwrap_or("");
        let band = given(self.band.as_ref());
        let report =
            cogmem_ops::browse::search(state.ws(), query, &self.fields(), band, state.clock())?;
        Ok(Found {
            hits: report.hits,
            skipped: report.refresh.skipped,
            warning: report.warning,
            reading: report.reading,
        })
    }
}

/// What a search found, as the page shows it and `/api/search` answers it: the hits, and what
/// the CLI says beside them on stderr (with exit 3 for skipped files), so that a file the search
/// could not read is never silently missing from the answer.
#[derive(Debug, Serialize)]
pub struct Found {
    /// The hits, best first (`cogmem search --json`).
    pub hits: Vec<Hit>,
    /// The memory files the index could not read, so their memories could not be found (the
    /// CLI's `warning: skipped …` lines).
    pub skipped: Vec<Unreadable>,
    /// Why the embedding model named in the settings could not be used (the search went on
    /// with keywords alone), with what to do; `null` when nothing went wrong.
    pub warning: Option<String>,
    /// How the query was read (the page shows it; not part of the JSON).
    #[serde(skip)]
    pub reading: Reading,
}

/// The search route and its JSON twin.
pub fn routes() -> Router<AppState> {
    Router::new().route("/search", get(page)).route("/api/search", get(api))
}

async fn page(State(state): State<AppState>, Query(q): Query<SearchQuery>) -> WebResult<Markup> {
    let found = match q.query() {
        None => None,
        Some(_) => {
            let run = q.clone();
            Some(state.run(move |s| run.run(s)).await?)
        }
    };
    let title = q.query().map_or_else(|| "Search".to_owned(), |t| format!("Search: {t}"));
    let body = render(&q, found.as_ref());
    Ok(layout::page(&state, &title, Nav::Search, body))
}

async fn api(
    State(state): State<AppState>,
    Query(q): Query<SearchQuery>,
) -> WebResult<Json<Found>> {
    Ok(Json(state.run(move |s| q.run(s)).await?))
}

/// The text of a hit with the query's words in `<mark>`, every piece escaped.
pub fn marked(text: &str, query: &str) -> Markup {
    html! {
        @for (piece, hit) in excerpt(text, query, EXCERPT_CHARS) {
            @if hit { mark { (piece) } } @else { (piece) }
        }
    }
}

/// How the query was read (`search --explain`), when it says more than its words: the answer
/// wanted, who it asks about, the terms added, the days named with the memory an event's date
/// came from.
fn reading(r: &Reading) -> Markup {
    html! {
        @if r.wants != "other" || !r.people.is_empty() || !r.added.is_empty() || !r.days.is_empty() {
            div.reading {
                "Read as: wants " (r.wants)
                @if !r.people.is_empty() { "; about " (r.people.join(", ")) }
                @if !r.added.is_empty() { "; also searched: " (r.added.join(", ")) }
                @for d in &r.days {
                    br;
                    "days " (d.span()) " (" (d.by)
                    @if let Some(id) = &d.from {
                        ": " a href=(memory_href(id)) { code { (id) } }
                    }
                    ")"
                }
            }
        }
    }
}

/// The search page's body: the form (keeping what was asked), then how the query was read, the
/// files left out and the embedding model's failure, and the hits; or nothing before a query is
/// given.
pub fn render(q: &SearchQuery, found: Option<&Found>) -> Markup {
    let v = |f: &Option<String>| f.clone().unwrap_or_default();
    let store = given(q.store.as_ref()).unwrap_or("");
    let band = given(q.band.as_ref()).unwrap_or("");
    html! {
        h1 { "Search" }
        form.search method="get" action="/search" {
            input type="search" name="q" value=(v(&q.q)) placeholder="what to find" autofocus;
            " " button type="submit" { "Search" }
            div.filters {
                label { "Store "
                    select name="store" {
                        option value="" selected[store.is_empty()] { "any" }
                        @for s in ["core", "episodic", "semantic", "procedural", "vault"] {
                            option value=(s) selected[store == s] { (s) }
                        }
                    }
                }
                " "
                label { "Band "
                    select name="band" {
                        option value="" selected[band.is_empty()] { "any" }
                        @for b in BANDS { option value=(b) selected[band == b] { (b) } }
                    }
                }
                " "
                label { "Since " input type="text" name="since" value=(v(&q.since)) placeholder="2026-02-01, last week"; }
                " "
                label { "Until " input type="text" name="until" value=(v(&q.until)); }
                " "
                label { input type="checkbox" name="all" value="1" checked[q.all()]; " include dormant (--all)" }
            }
        }
        @if let Some(f) = found {
            (reading(&f.reading))
            @if let Some(w) = &f.warning {
                p.warn #search-warning { "warning: " (w) }
            }
            @if !f.skipped.is_empty() {
                section.skipped #search-skipped aria-label="Unreadable files" {
                    p.warn { "These files could not be read, so their memories were not searched:" }
                    ul.warnings { @for s in &f.skipped { li { "skipped " (s.error) } } }
                }
            }
        }
        @if let (Some(f), Some(query)) = (found, q.query()) {
            @if f.hits.is_empty() && f.skipped.is_empty() {
                p.empty { "No matches. Try other words, widen the filters, or include dormant memories." }
            } @else if f.hits.is_empty() {
                p.empty { "No matches in the files that could be read. Fix the files listed above, then search again." }
            } @else {
                ol.hits {
                    @for h in &f.hits {
                        li.hit {
                            a href=(memory_href(&h.id)) { code { (h.id) } }
                            " " span.store { (h.store) " · " (h.kind) }
                            @if let Some(d) = &h.date { " " span.date { (d) } }
                            " " span.band { (h.status.as_str()) }
                            " " span.score { (format!("{:.3}", h.score)) }
                            p.excerpt { (marked(&h.text, query)) }
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
    fn marks_matches_inside_escaped_text() {
        let out = marked(
            "<script>alert(1)</script> \"><img src=x onerror=alert(1)> Lisbon",
            "lisbon onerror",
        )
        .into_string();
        assert_eq!(
            out,
            "&lt;script&gt;alert(1)&lt;/script&gt; &quot;&gt;&lt;img src=x <mark>onerror</mark>=alert(1)&gt; <mark>Lisbon</mark>"
        );
        let cjk = marked("東京都に住む", "京都").into_string();
        assert_eq!(cjk, "東<mark>京都</mark>に住む");
    }

    #[test]
    fn the_model_warning_and_the_files_left_out_are_shown_escaped() {
        let q = SearchQuery { q: Some("tea".into()), ..SearchQuery::default() };
        let found = Found {
            hits: Vec::new(),
            skipped: vec![Unreadable {
                path: "memory/episodes/x.md".into(),
                error: "memory/episodes/<b>x</b>.md: not valid UTF-8 at byte 3".into(),
            }],
            warning: Some("the model <m> cannot be loaded".into()),
            reading: Reading::default(),
        };
        let out = render(&q, Some(&found)).into_string();
        assert!(out.contains("warning: the model &lt;m&gt; cannot be loaded"), "{out}");
        assert!(
            out.contains("skipped memory/episodes/&lt;b&gt;x&lt;/b&gt;.md: not valid"),
            "{out}"
        );
        assert!(out.contains("No matches in the files that could be read"), "{out}");
        let json = serde_json::to_value(&found).unwrap();
        assert_eq!(json["skipped"][0]["path"], "memory/episodes/x.md");
        assert!(json.get("reading").is_none(), "{json}");
    }

    #[test]
    fn reads_the_form_like_the_cli_flags() {
        let q = SearchQuery {
            q: Some(" tea ".into()),
            store: Some(String::new()),
            since: Some("2026-02-01".into()),
            all: Some("on".into()),
            ..SearchQuery::default()
        };
        let f = q.fields();
        assert_eq!(q.query(), Some("tea"));
        assert_eq!((f.store, f.since.as_deref(), f.all), (None, Some("2026-02-01"), true));
        let off = SearchQuery { all: Some("0".into()), ..SearchQuery::default() };
        assert!(!off.all());
    }
}
