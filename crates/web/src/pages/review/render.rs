//! The review page's HTML, as pure functions of what `cogmem_ops::review` reads: no I/O, so the
//! unit tests below check the markup itself. maud escapes every interpolation; proposal text,
//! reasons, diffs and commit subjects are hostile input and are only ever interpolated.
//!
//! Stable hooks for browser tests and scripts (also listed in docs/cli.md's "Web view"):
//! `#proposals`, `#reflection`, `#identity`, `#critical` (the sections); per proposal N
//! `#proposal-N` (class `proposal`, plus `conflict` when marked), buttons `#approve-N`,
//! `#reject-N`, `#defer-N`, fields `#approve-store-N`, `#reject-reason-N`, `#defer-reason-N`;
//! the reflection's checkboxes `#block-K`, buttons `#reflection-approve`, `#reflection-reject`,
//! field `#reflection-reason`; `#identity-approve`, `#identity-reject`, `#identity-reason`;
//! critical change K (1-based) `#critical-K`, button `#ack-K`, and `#ack-all`. A result page
//! (`/review/done/K`, where a form's 303 leads) has `#result` and, when a commit was made,
//! `#commit` holding the full commit id.

use maud::{Markup, html};

use cogmem_ops::audit::CriticalChange;
use cogmem_ops::reflect::ShowReport;
use cogmem_ops::review::{self, Problem, ReviewReport};
use cogmem_store::store::Store;
use cogmem_store::store::pending::{Proposal, Status};

use crate::pages::audit::{commit_href, diff};

/// The body of `GET /review`: every section, each with its forms. `csrf` is the hidden CSRF
/// field every form carries; `actor` is who the server decides as (`user:NAME`).
pub fn page(report: &ReviewReport, actor: &str, csrf: &Markup) -> Markup {
    html! {
        h1 { "Review" }
        p.acting { "Decisions here are recorded as " code { (actor) } ", through the same gates as the CLI." }
        @if report.is_empty() {
            p #nothing { "Nothing waits for a decision." }
        }
        (proposals(&report.proposals, &report.skipped, csrf))
        (reflection(report.reflection.as_ref(), report.reflection_problem.as_ref(), csrf))
        (identity(report.identity.as_deref(), report.identity_problem.as_ref(), csrf))
        (critical(&report.critical, csrf))
    }
}

fn proposals(list: &[Proposal], skipped: &[String], csrf: &Markup) -> Markup {
    html! {
        section #proposals {
            h2 { "Proposals (" (list.len()) ")" }
            @for s in skipped {
                p.warn { "skipped " (s) }
            }
            @if list.is_empty() {
                p.empty { "No proposal waits." }
            }
            @for p in list {
                (proposal(p, csrf))
            }
        }
    }
}

fn proposal(p: &Proposal, csrf: &Markup) -> Markup {
    let n = p.number;
    let class = if p.status == Status::Conflict { "proposal conflict" } else { "proposal" };
    html! {
        article id=(format!("proposal-{n}")) class=(class) {
            h3 {
                "Proposal #" (n) " "
                span class=(format!("status status-{}", p.status.as_str())) { (p.status.as_str()) }
                @if let Some(m) = p.conflicts_with {
                    " " span.mark { "⚠️ CONFLICT with #" (m) }
                } @else if p.status == Status::Conflict {
                    " " span.mark { "⚠️ CONFLICT" }
                }
            }
            @if !p.status_note.is_empty() {
                p.note { (p.status_note) }
            }
            blockquote.content { (p.content) }
            dl {
                dt { "from" } dd { "subagent:" (p.from) }
                dt { "proposed" } dd { (p.timestamp) }
                dt { "store" } dd { (p.store) }
                dt { "confidence" } dd { (p.confidence) }
                dt { "core-worthy" } dd { (if p.core_worthy { "yes" } else { "no" }) }
                @if !p.entities.is_empty() {
                    dt { "entities" } dd { (p.entities.join(", ")) }
                }
                @if !p.relations.is_empty() {
                    dt { "relations" } dd { (p.relations.join(", ")) }
                }
                @if let Some(d) = &p.decision {
                    dt { "decision" } dd { (d) }
                }
            }
            div.actions {
                form method="post" action=(format!("/review/proposal/{n}/approve")) {
                    (csrf)
                    label for=(format!("approve-store-{n}")) { "into " }
                    select name="store" id=(format!("approve-store-{n}")) {
                        option value="" selected { "suggested (" (p.store) ")" }
                        @for s in Store::ALL {
                            option value=(s.as_str()) { (s.as_str()) }
                        }
                    }
                    " "
                    button type="submit" id=(format!("approve-{n}")) { "Approve" }
                }
                form method="post" action=(format!("/review/proposal/{n}/reject")) {
                    (csrf)
                    input type="text" name="reason" required placeholder="why (required)"
                        id=(format!("reject-reason-{n}"));
                    " "
                    button type="submit" id=(format!("reject-{n}")) { "Reject" }
                }
                form method="post" action=(format!("/review/proposal/{n}/defer")) {
                    (csrf)
                    input type="text" name="reason" placeholder="why (optional)"
                        id=(format!("defer-reason-{n}"));
                    " "
                    button type="submit" id=(format!("defer-{n}")) { "Defer" }
                }
            }
        }
    }
}

fn reflection(show: Option<&ShowReport>, problem: Option<&Problem>, csrf: &Markup) -> Markup {
    html! {
        section #reflection {
            h2 { "Reflection" }
            @if show.is_none() && problem.is_none() {
                p.empty { "No reflection awaits approval." }
            }
            @if let Some(p) = problem {
                (problem_box(p))
                p { "Approving it would fail the same way; you can still reject it." }
            }
            @if let Some(r) = show {
                @if let Some(w) = &r.changed_since_submit {
                    p.problem { strong { "Changed since it was submitted: " } (w.message) " — " (w.hint) }
                }
                p { "Reflection #" (r.reflection) " awaits your approval. Untick the blocks you do not approve (" code { "--only" } ")." }
                details.text {
                    summary { "The submitted text" }
                    pre { (r.text) }
                }
                form method="post" action="/review/reflection/approve" {
                    (csrf)
                    input type="hidden" name="blocks" value=(r.blocks.len());
                    @for a in &r.blocks {
                        div.block id=(format!("reflection-block-{}", a.block)) {
                            label {
                                input type="checkbox" name="block" value=(a.block) checked
                                    id=(format!("block-{}", a.block));
                                " block " (a.block) " " strong { (a.op.as_str()) } " " code { (a.target) }
                                " — " (review::effect(a))
                            }
                            @for f in &a.files {
                                (diff(&f.diff))
                            }
                        }
                    }
                    button type="submit" id="reflection-approve" { "Approve the ticked blocks" }
                }
            }
            @if show.is_some() || problem.is_some() {
                form method="post" action="/review/reflection/reject" {
                    (csrf)
                    input type="text" name="reason" placeholder="why (optional)" id="reflection-reason";
                    " "
                    button type="submit" id="reflection-reject" { "Reject the reflection" }
                }
            }
        }
    }
}

fn identity(d: Option<&str>, problem: Option<&Problem>, csrf: &Markup) -> Markup {
    html! {
        section #identity {
            h2 { "Self-image consolidation" }
            @if d.is_none() && problem.is_none() {
                p.empty { "No self-image consolidation awaits approval." }
            }
            @if let Some(p) = problem {
                (problem_box(p))
            }
            @if let Some(d) = d {
                p { "Approving rewrites IDENTITY.md's Self-Image section as follows:" }
                (diff(d))
                form method="post" action="/review/identity/approve" {
                    (csrf)
                    button type="submit" id="identity-approve" { "Approve" }
                }
            }
            @if d.is_some() || problem.is_some() {
                form method="post" action="/review/identity/reject" {
                    (csrf)
                    input type="text" name="reason" placeholder="why (optional)" id="identity-reason";
                    " "
                    button type="submit" id="identity-reject" { "Reject" }
                }
            }
        }
    }
}

fn critical(list: &[CriticalChange], csrf: &Markup) -> Markup {
    html! {
        section #critical {
            h2 { "Critical-file changes (" (list.len()) ")" }
            @if list.is_empty() {
                p.empty { "Every critical-file change is acknowledged." }
            } @else {
                table {
                    thead { tr { th { "change" } th { "when" } th { "who" } th { "lines" } th { "commit" } th {} } }
                    tbody {
                        @for (k, c) in list.iter().enumerate() {
                            tr id=(format!("critical-{}", k + 1)) class=(if c.integrity_problem.is_some() { "critical integrity" } else { "critical" }) {
                                td { code { (c.id) } }
                                td { (c.date) }
                                td { (c.actor) }
                                td { "+" (c.added) " −" (c.removed) }
                                td {
                                    a href=(format!("/audit/{}", c.commit)) { (c.subject) }
                                    @if let Some(p) = &c.integrity_problem {
                                        br;
                                        span.mark { "⚠️ " (p) }
                                    }
                                }
                                td {
                                    form method="post" action="/review/critical/ack" {
                                        (csrf)
                                        input type="hidden" name="id" value=(c.id);
                                        button type="submit" id=(format!("ack-{}", k + 1)) { "Acknowledge" }
                                    }
                                }
                            }
                        }
                    }
                }
                form method="post" action="/review/critical/ack" {
                    (csrf)
                    button type="submit" id="ack-all" { "Acknowledge all " (list.len()) }
                }
            }
        }
    }
}

fn problem_box(p: &Problem) -> Markup {
    html! {
        div.problem {
            p.error { "error: " (p.message) }
            @if let Some(h) = &p.hint {
                p.hint { "hint: " (h) }
            }
        }
    }
}

/// The body of a decision's result page: what was done and the commit made (a link to its
/// audit page), then a way back.
pub fn done(what: &str, commit: Option<&str>, details: &[String]) -> Markup {
    html! {
        h1 { "Done" }
        p #result {
            (what)
            @if let Some(c) = commit {
                " (commit " a href=(commit_href(c)) { code #commit title=(c) { (c) } } ")"
            }
        }
        @if !details.is_empty() {
            ul.details {
                @for d in details {
                    li { (d) }
                }
            }
        }
        p { a #back href="/review" { "Back to the review" } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cogmem_store::store::pending::{NewProposal, PendingFile};

    const HOSTILE: &str = "<script>alert(1)</script>\"><img src=x onerror=alert(1)>";

    fn proposal_with(content: &str, conflict: Option<&str>) -> Proposal {
        let entities = ["person--ann".to_owned()];
        let text = PendingFile::default().with_appended(&NewProposal {
            number: 1,
            from: "researcher",
            timestamp: "2026-12-01T09:00Z",
            trigger: "t",
            store: "semantic",
            content,
            entities: &entities,
            relations: &[],
            confidence: "medium",
            core_worthy: false,
            conflict,
        });
        let file = PendingFile::parse(&text);
        assert!(file.problems.is_empty(), "{:?}", file.problems);
        file.proposals[0].clone()
    }

    fn empty() -> ReviewReport {
        ReviewReport {
            proposals: vec![],
            skipped: vec![],
            reflection: None,
            reflection_problem: None,
            identity: None,
            identity_problem: None,
            critical: vec![],
        }
    }

    fn csrf() -> Markup {
        html! { input type="hidden" name="csrf" value="TOKEN"; }
    }

    #[test]
    fn an_empty_review_says_nothing_waits_and_has_no_forms() {
        let out = page(&empty(), "user:ann", &csrf()).into_string();
        assert!(out.contains(r#"<p id="nothing">Nothing waits for a decision.</p>"#), "{out}");
        assert!(!out.contains("<form"), "{out}");
        assert!(out.contains("<code>user:ann</code>"), "{out}");
    }

    #[test]
    fn a_proposal_has_three_post_forms_each_with_the_csrf_field() {
        let mut r = empty();
        r.proposals.push(proposal_with("Ann likes tea", None));
        let out = page(&r, "user:ann", &csrf()).into_string();
        for verb in ["approve", "reject", "defer"] {
            assert!(
                out.contains(&format!(r#"<form method="post" action="/review/proposal/1/{verb}"><input type="hidden" name="csrf" value="TOKEN">"#)),
                "{verb}: {out}"
            );
            assert!(out.contains(&format!(r#"id="{verb}-1""#)), "{verb}: {out}");
        }
        assert!(out.contains(r#"<article id="proposal-1" class="proposal">"#), "{out}");
        assert!(!out.contains("CONFLICT"), "{out}");
    }

    #[test]
    fn a_conflict_is_marked_as_the_cli_marks_it() {
        let mut r = empty();
        r.proposals.push(proposal_with("Ann likes coffee", Some("#3")));
        let out = page(&r, "user:ann", &csrf()).into_string();
        assert!(out.contains(r#"class="proposal conflict""#), "{out}");
        assert!(out.contains("⚠️ CONFLICT with #3"), "{out}");
    }

    #[test]
    fn hostile_text_is_escaped_everywhere_it_appears() {
        let mut r = empty();
        r.proposals.push(proposal_with(HOSTILE, None));
        r.identity = Some(format!("+ {HOSTILE}\n"));
        r.reflection_problem =
            Some(Problem { message: HOSTILE.into(), hint: Some(HOSTILE.into()) });
        let out = page(&r, "user:ann", &csrf()).into_string();
        assert!(!out.contains("<script>"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img"), "{out}");
        let d = done(HOSTILE, Some("abc"), &[HOSTILE.to_owned()]).into_string();
        assert!(!d.contains("<script>") && !d.contains("<img"), "{d}");
    }

    #[test]
    fn the_result_names_the_commit_and_links_to_its_audit_page() {
        let out = done("proposal #1 committed", Some("0123abcd"), &[]).into_string();
        assert!(out.contains(r#"<p id="result">proposal #1 committed (commit <a href="/audit/0123abcd"><code id="commit" title="0123abcd">0123abcd</code></a>)</p>"#), "{out}");
        assert!(out.contains(r#"<a id="back" href="/review">"#), "{out}");
    }
}
