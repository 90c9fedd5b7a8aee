//! `GET /`: the overview — what each store holds, the decay bands, what waits for a person
//! (open proposals, the reflection cycle, unacknowledged critical changes), and the recent
//! commits with their actors. From `cogmem_ops::overview`.

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use maud::{Markup, html};

use cogmem_ops::overview::OverviewReport;
use cogmem_ops::reflect::State as Cycle;
use cogmem_ops::status::IndexState;

use crate::error::WebResult;
use crate::layout::{self, Nav};
use crate::state::AppState;

/// How many recent commits the overview lists.
pub const RECENT: usize = 10;

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/", get(overview))
}

async fn overview(State(state): State<AppState>) -> WebResult<Markup> {
    let report = state.run(|s| cogmem_ops::overview::overview(s.ws(), RECENT)).await?;
    Ok(layout::page(&state, "Overview", Nav::Overview, render(&report)))
}

/// "1 entry", "2 entries".
fn n(count: usize, one: &str, many: &str) -> String {
    if count == 1 { format!("1 {one}") } else { format!("{count} {many}") }
}

/// The overview's `<main>`.
pub fn render(report: &OverviewReport) -> Markup {
    let status = &report.status;
    let c = &status.counts;
    let b = &c.bands;
    html! {
        h1 { "Overview" }
        (waiting(report))
        section.counts aria-label="Stores" {
            h2 { "Stores" }
            table {
                tr { th scope="row" { "Core" } td { (n(c.core, "bullet", "bullets")) " in MEMORY.md" } }
                tr {
                    th scope="row" { "Episodic" }
                    td { (n(c.episodes, "entry", "entries")) " in " (n(c.episode_days, "day", "days")) }
                }
                tr { th scope="row" { "Semantic" } td { (n(c.entities, "entity", "entities")) } }
                tr { th scope="row" { "Procedural" } td { (n(c.procedures, "procedure", "procedures")) } }
                tr { th scope="row" { "Vault" } td { (n(c.vault, "note", "notes")) } }
                tr {
                    th scope="row" { "Index" }
                    td {
                        @match status.index {
                            IndexState::Fresh => "fresh",
                            IndexState::Stale => "stale (the next search brings it up to date)",
                            IndexState::Missing => "not built (run `cogmem reindex`)",
                        }
                        @if status.watcher { " · kept fresh by a watcher (cogmem watch, cogmem mcp or a hook's read server)" }
                    }
                }
                @if !status.uncommitted.is_empty() {
                    tr {
                        th scope="row" { "Hand edits" }
                        td {
                            (n(status.uncommitted.len(), "file differs", "files differ"))
                            " from the last commit (`cogmem sync` commits them): "
                            @for (i, change) in status.uncommitted.iter().enumerate() {
                                @if i > 0 { ", " }
                                code { (change.path) }
                            }
                        }
                    }
                }
                @if let Some(git) = status.git_state {
                    tr.warn { th scope="row" { "Git" } td { "in the middle of a " (git) "; every write is refused until it ends" } }
                }
            }
        }
        section.bands aria-label="Decay bands" {
            h2 { "Decay" }
            ul.bands {
                li.active { a href="/search?band=active" { (b.active) " active" } }
                li.fading { a href="/search?band=fading" { (b.fading) " fading" } }
                li.dormant { a href="/search?band=dormant" { (b.dormant) " dormant" } }
                li.archived { a href="/search?band=archived" { (b.archived) " archived" } }
            }
        }
        section.commits aria-label="Recent commits" {
            h2 { "Recent commits" }
            @if status.recent_commits.is_empty() {
                p { "No commits yet." }
            } @else {
                table {
                    thead { tr { th { "Commit" } th { "When" } th { "Actor" } th { "Change" } } }
                    tbody {
                        @for commit in &status.recent_commits {
                            tr {
                                td { a href={ "/audit/" (commit.id) } { code { (short(&commit.id)) } } }
                                td { time datetime=(commit.time) { (commit.time) } }
                                td.actor { (commit.author) }
                                td { (commit.subject) }
                            }
                        }
                    }
                }
                p { a href="/audit" { "The whole audit log" } }
            }
        }
        @if !status.skipped.is_empty() {
            section.skipped aria-label="Unreadable files" {
                h2 { "Files left out" }
                ul {
                    @for s in &status.skipped {
                        li { code { (s.path) } ": " (s.error) }
                    }
                }
            }
        }
    }
}

/// What waits for a person: proposals, the reflection cycle, the self-image, critical changes
/// and flags; each links to where it is dealt with.
fn waiting(report: &OverviewReport) -> Markup {
    let status = &report.status;
    let r = &report.reflection;
    let reflection = match r.state {
        Cycle::AwaitingDecision => Some("a reward request waits for your decision"),
        Cycle::AwaitingApproval => Some("a submitted reflection waits for your approval"),
        Cycle::Idle | Cycle::ReadyForInput => None,
    };
    let nothing = report.open_proposals == 0
        && reflection.is_none()
        && !r.consolidation_pending
        && status.unacknowledged_critical.is_empty()
        && status.open_flags == 0
        && report.unreadable_proposals.is_empty();
    html! {
        section.waiting aria-label="Waiting for you" {
            h2 { "Waiting for you" }
            @if nothing {
                p.quiet { "Nothing: no open proposals, reflections or critical changes." }
            } @else {
                ul {
                    @if report.open_proposals > 0 {
                        li { a href="/review" { (n(report.open_proposals, "open proposal", "open proposals")) } }
                    }
                    @for (line, why) in &report.unreadable_proposals {
                        li.warn { "memory/meta/pending-memories.md line " (line) ": " (why) }
                    }
                    @if let Some(what) = reflection {
                        li { a href="/review" { "Reflection #" (r.reflection) ": " (what) } }
                    }
                    @if r.consolidation_pending {
                        li { a href="/review" { "A self-image consolidation waits for your approval" } }
                    }
                    @if status.open_flags > 0 {
                        li { (n(status.open_flags, "open flag", "open flags")) " on memories (`cogmem flag list`)" }
                    }
                }
                @if !status.unacknowledged_critical.is_empty() {
                    h3 { "Critical changes not acknowledged" }
                    table.critical {
                        thead { tr { th { "Commit" } th { "File" } th { "Actor" } th { "Lines" } th { "Problem" } } }
                        tbody {
                            @for change in &status.unacknowledged_critical {
                                tr.warn[change.integrity_problem.is_some()] {
                                    td { a href={ "/audit/" (change.commit) } { code { (short(&change.commit)) } } }
                                    td { code { (change.file) } }
                                    td.actor { (change.actor) }
                                    td { "+" (change.added) " −" (change.removed) }
                                    td { (change.integrity_problem.as_deref().unwrap_or("")) }
                                }
                            }
                        }
                    }
                    p { a href="/review" { "Review and acknowledge them" } }
                }
            }
        }
    }
}

/// The first eight characters of a commit id.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
