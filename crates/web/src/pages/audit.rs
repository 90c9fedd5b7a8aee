//! The audit pages: `GET /audit?actor=&since=` lists the audit log, newest first, each line
//! linked to the commit that wrote it; `GET /audit/{commit}` shows a commit's message and the
//! colour-coded diff of every file it changed. Their JSON twins are `/api/audit` (what `cogmem
//! audit --json` prints) and `/api/audit/{commit}`.
//!
//! Commit messages, summaries, actors and file contents are hostile input: every one is an
//! escaped maud interpolation, never markup.

use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use cogmem_ops::audit::AuditReport;
use cogmem_ops::history::CommitDiff;
use cogmem_store::audit::AuditFilter;
use maud::{Markup, html};
use serde::Deserialize;

use crate::WebResult;
use crate::layout::{self, Nav};
use crate::pages::memory::{href, memory_href};
use crate::state::AppState;

/// How many of the newest lines the audit page lists.
pub const PAGE_LINES: usize = 200;

/// The audit page's filters, from its GET form (empty fields mean no filter).
#[derive(Debug, Default, Deserialize)]
pub struct AuditQuery {
    /// Only lines by this actor or an actor under it (`bot` covers `bot:trigger-remember`).
    pub actor: Option<String>,
    /// Only lines since this date, time, age or relative day (`--since`).
    pub since: Option<String>,
    /// Only the last N matching lines (the API only; the page lists [`PAGE_LINES`]).
    pub limit: Option<usize>,
}

fn given(v: Option<&String>) -> Option<&str> {
    v.map(|s| s.trim()).filter(|s| !s.is_empty())
}

impl AuditQuery {
    /// The filter `cogmem audit --actor … --since …` would use.
    fn filter(&self, now: cogmem_ops::Timestamp) -> cogmem_ops::Result<AuditFilter> {
        let since = match given(self.since.as_ref()) {
            Some(s) => Some(cogmem_ops::audit::parse_since("since", s, now)?),
            None => None,
        };
        Ok(AuditFilter {
            actor: given(self.actor.as_ref()).map(str::to_owned),
            since,
            ..AuditFilter::default()
        })
    }
}

/// The audit routes and their JSON twins.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/audit", get(page))
        .route("/audit/{commit}", get(commit_page))
        .route("/api/audit", get(api))
        .route("/api/audit/{commit}", get(commit_api))
}

async fn page(State(state): State<AppState>, Query(q): Query<AuditQuery>) -> WebResult<Markup> {
    let form = (q.actor.clone(), q.since.clone());
    let (report, commits) = state
        .run(move |s| {
            let filter = q.filter(s.clock().now())?;
            let report = cogmem_ops::audit::query(s.ws(), &filter, Some(PAGE_LINES))?;
            let commits = cogmem_ops::history::commits_of(s.ws(), &report.lines)?;
            Ok((report, commits))
        })
        .await?;
    let body = render(&report, &commits, (form.0.as_deref(), form.1.as_deref()));
    Ok(layout::page(&state, "Audit log", Nav::Audit, body))
}

async fn api(
    State(state): State<AppState>,
    Query(q): Query<AuditQuery>,
) -> WebResult<Json<AuditReport>> {
    let report = state
        .run(move |s| {
            let filter = q.filter(s.clock().now())?;
            cogmem_ops::audit::query(s.ws(), &filter, q.limit)
        })
        .await?;
    Ok(Json(report))
}

async fn commit_page(
    State(state): State<AppState>,
    Path(commit): Path<String>,
) -> WebResult<Markup> {
    let c = state.run(move |s| cogmem_ops::history::commit(s.ws(), &commit)).await?;
    let title = format!("Commit {}", short(&c.commit.id));
    Ok(layout::page(&state, &title, Nav::Audit, render_commit(&c)))
}

async fn commit_api(
    State(state): State<AppState>,
    Path(commit): Path<String>,
) -> WebResult<Json<CommitDiff>> {
    Ok(Json(state.run(move |s| cogmem_ops::history::commit(s.ws(), &commit)).await?))
}

/// The first 10 characters of a commit id.
pub(crate) fn short(id: &str) -> &str {
    id.get(..10).unwrap_or(id)
}

/// The link to a commit's page.
pub(crate) fn commit_href(id: &str) -> String {
    format!("/audit/{}", href(id))
}

/// Renders a unified diff, one line per `<span>`, classed by what the line is (added, removed,
/// hunk header, file header) so the stylesheet colours it; the text itself is escaped.
pub(crate) fn diff(text: &str) -> Markup {
    html! {
        pre.diff {
            @for line in text.lines() {
                @let class = if line.starts_with("+++") || line.starts_with("---") {
                    "diff-file"
                } else if line.starts_with("@@") {
                    "diff-hunk"
                } else if line.starts_with('+') {
                    "diff-add"
                } else if line.starts_with('-') {
                    "diff-del"
                } else {
                    "diff-ctx"
                };
                span class=(class) { (line) "\n" }
            }
        }
    }
}

/// The audit log page: the filter form, then the lines newest first.
pub fn render(
    report: &AuditReport,
    commits: &[Option<String>],
    form: (Option<&str>, Option<&str>),
) -> Markup {
    html! {
        h1 { "Audit log" }
        form.filters method="get" action="/audit" {
            label { "Actor " input type="text" name="actor" value=(form.0.unwrap_or("")) placeholder="user, bot:trigger-remember…"; }
            " "
            label { "Since " input type="text" name="since" value=(form.1.unwrap_or("")) placeholder="2026-02-02, 7d, last week"; }
            " "
            button type="submit" { "Filter" }
        }
        @if !report.skipped.is_empty() {
            ul.warnings {
                @for s in &report.skipped { li { "skipped " (s.error) } }
            }
        }
        @if report.lines.is_empty() {
            p.empty { "No audit lines match." }
        } @else {
            p.count { "The newest " (report.lines.len()) " matching lines (at most " (PAGE_LINES) ")." }
            table.audit {
                thead { tr { th { "Time" } th { "Action" } th { "File" } th { "Actor" } th { "Approval" } th { "Summary" } th { "Commit" } } }
                tbody {
                    @for (i, l) in report.lines.iter().enumerate().rev() {
                        tr {
                            td { (l.timestamp.format("%Y-%m-%d %H:%M:%SZ")) }
                            td { (l.action.as_str()) }
                            td { code { (l.file) } }
                            td { (l.actor) }
                            td { (l.approval.as_str()) }
                            td { (l.summary) }
                            td {
                                @if let Some(Some(c)) = commits.get(i) {
                                    a href=(commit_href(c)) { code { (short(c)) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A commit's page: its subject, actor, time, message and each file's diff.
pub fn render_commit(c: &CommitDiff) -> Markup {
    html! {
        h1 { "Commit " code { (short(&c.commit.id)) } }
        p.subject { (c.commit.subject) }
        dl.meta {
            dt { "Actor" } dd { (c.commit.actor) }
            @if let Some(a) = &c.commit.approval { dt { "Approval" } dd { (a) } }
            dt { "Time" } dd { (c.commit.time) }
            dt { "Commit" } dd { code { (c.commit.id) } }
            @for p in &c.parents { dt { "Parent" } dd { a href=(commit_href(p)) { code { (short(p)) } } } }
        }
        pre.message { (c.message) }
        @for f in &c.files {
            section.file {
                h2 { code { (f.path) } " " span.status { "(" (f.status) ")" } }
                @if let Some(id) = memory_file_id(&f.path) {
                    p { a href=(memory_href(&id)) { "Its memory page" } }
                }
                (diff(&f.diff))
            }
        }
        @if c.files.is_empty() { p.empty { "This commit changed no file." } }
    }
}

/// The memory id of a file that is one memory (an entity, a procedure, a vault note).
fn memory_file_id(path: &str) -> Option<String> {
    let (dir, name) = path.rsplit_once('/')?;
    let stem = name.strip_suffix(".md")?;
    let kind = match dir {
        "memory/graph/entities" => "entity",
        "memory/procedures" => "procedure",
        "memory/vault" => "vault",
        _ => return None,
    };
    Some(format!("{kind}:{stem}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_diff_lines_and_escapes_them() {
        let out =
            diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-<b>old</b>\n+<script>alert(1)</script>\n ctx\n")
                .into_string();
        assert!(out.contains("<span class=\"diff-del\">-&lt;b&gt;old&lt;/b&gt;\n</span>"), "{out}");
        assert!(
            out.contains(
                "<span class=\"diff-add\">+&lt;script&gt;alert(1)&lt;/script&gt;\n</span>"
            ),
            "{out}"
        );
        assert!(out.contains("<span class=\"diff-hunk\">@@ -1 +1 @@\n</span>"), "{out}");
        assert!(!out.contains("<script>"), "{out}");
    }

    #[test]
    fn knows_which_files_are_one_memory() {
        assert_eq!(
            memory_file_id("memory/graph/entities/person--alice.md").as_deref(),
            Some("entity:person--alice")
        );
        assert_eq!(memory_file_id("memory/vault/keys.md").as_deref(), Some("vault:keys"));
        assert_eq!(memory_file_id("memory/episodes/2026-02-02.md"), None);
        assert_eq!(memory_file_id("MEMORY.md"), None);
    }
}
