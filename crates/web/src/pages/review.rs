//! `GET /review` and its actions: what waits for a person's decision (proposals, a submitted
//! reflection with each block's diff, the self-image consolidation's diff, unacknowledged
//! critical-file changes), each decided by a POST form through the same `cogmem-ops` gates as
//! the CLI, as the server's `user:NAME` actor. The JSON twins live under `/api/review`.
//!
//! | page / form                          | JSON                                      | as the CLI          |
//! |--------------------------------------|-------------------------------------------|---------------------|
//! | `GET /review`                        | `GET /api/review`                         | (all of the below)  |
//! |                                      | `GET /api/review/proposals[/{n}]`         | `pending list/show` |
//! |                                      | `GET /api/review/reflection`              | `reflect show`      |
//! |                                      | `GET /api/review/identity`                | `identity consolidate show` |
//! | `POST /review/proposal/{n}/approve`  | `POST /api/review/proposals/{n}/approve`  | `pending approve N [--store S]` |
//! | `POST /review/proposal/{n}/reject`   | `POST /api/review/proposals/{n}/reject`   | `pending reject N --reason R` |
//! | `POST /review/proposal/{n}/defer`    | `POST /api/review/proposals/{n}/defer`    | `pending defer N [--reason R]` |
//! | `POST /review/reflection/approve`    | `POST /api/review/reflection/approve`     | `reflect approve [--only N,M]` |
//! | `POST /review/reflection/reject`     | `POST /api/review/reflection/reject`      | `reflect reject [--reason R]` |
//! | `POST /review/identity/approve`      | `POST /api/review/identity/approve`       | `identity consolidate approve` |
//! | `POST /review/identity/reject`       | `POST /api/review/identity/reject`        | `identity consolidate reject` |
//! | `POST /review/critical/ack`          | `POST /api/review/critical/ack`           | `audit ack [ID]`    |
//!
//! The security layer has already checked the token, the CSRF token and the origin of every
//! POST before a handler here runs; a GET to an action's address is a 405.
//!
//! A form's decision answers POST-redirect-GET: a 303 to `GET /review/done/{k}`, the result
//! page of the server's k-th decision (kept in [`AppState`] for the last 64), so that a reload
//! or the live updates' re-fetch of the page is a GET that decides nothing again. A refusal
//! answers at the form's address with its status; its page is not re-fetched live.

mod render;

use axum::extract::{Path, State};
use axum::response::Redirect;
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use maud::Markup;
use serde::{Deserialize, Serialize};

use cogmem_ops::propose::{self, DecideReport, Decision};
use cogmem_ops::review::{self, ReviewReport};
use cogmem_ops::{audit, identity, reflect};
use cogmem_store::store::Store;
use cogmem_store::store::pending::Proposal;

use crate::error::{WebError, WebResult};
use crate::layout::{self, Nav};
use crate::state::{AppState, Decided};

pub use render::{done, page};

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/review", get(review_page))
        .route("/review/done/{k}", get(done_page))
        .route("/review/proposal/{n}/approve", post(form_approve))
        .route("/review/proposal/{n}/reject", post(form_reject))
        .route("/review/proposal/{n}/defer", post(form_defer))
        .route("/review/reflection/approve", post(form_reflection_approve))
        .route("/review/reflection/reject", post(form_reflection_reject))
        .route("/review/identity/approve", post(form_identity_approve))
        .route("/review/identity/reject", post(form_identity_reject))
        .route("/review/critical/ack", post(form_ack))
        .route("/api/review", get(api_review))
        .route("/api/review/proposals", get(api_proposals))
        .route("/api/review/proposals/{n}", get(api_proposal))
        .route("/api/review/proposals/{n}/approve", post(api_approve))
        .route("/api/review/proposals/{n}/reject", post(api_reject))
        .route("/api/review/proposals/{n}/defer", post(api_defer))
        .route("/api/review/reflection", get(api_reflection))
        .route("/api/review/reflection/approve", post(api_reflection_approve))
        .route("/api/review/reflection/reject", post(api_reflection_reject))
        .route("/api/review/identity", get(api_identity))
        .route("/api/review/identity/approve", post(api_identity_approve))
        .route("/api/review/identity/reject", post(api_identity_reject))
        .route("/api/review/critical/ack", post(api_ack))
}

/// One decision, from a form or a JSON body.
#[derive(Debug, Clone)]
enum Act {
    Decide(u32, Decision),
    ReflectionApprove(Option<Vec<usize>>),
    ReflectionReject(Option<String>),
    IdentityApprove,
    IdentityReject(Option<String>),
    Ack(Option<String>),
}

/// What a decision did: the operation's own report, serialized as the CLI's `--json` prints it.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Outcome {
    Decide(DecideReport),
    ReflectionApprove(reflect::ApproveReport),
    ReflectionReject(reflect::RejectReport),
    Identity(identity::DecisionReport),
    Ack(audit::AckReport),
}

impl Outcome {
    /// The result page's sentence (the CLI's), the commit and the detail lines.
    fn describe(&self) -> Decided {
        let (what, commit, lines) = self.parts();
        Decided { what, commit: commit.map(str::to_owned), lines }
    }

    fn parts(&self) -> (String, Option<&str>, Vec<String>) {
        match self {
            Self::Decide(r) => {
                let mut lines = Vec::new();
                if let Some(m) = &r.remembered {
                    for u in &m.written {
                        lines.push(format!("{} {}  {}:{}", u.store.as_str(), u.id, u.path, u.line));
                    }
                    for u in &m.duplicates {
                        lines.push(format!("already remembered: {}  {}:{}", u.id, u.path, u.line));
                    }
                }
                let said = if r.commit.is_some() { "" } else { "is already " };
                (
                    format!("proposal #{} {said}{}", r.number, r.status.as_str()),
                    r.commit.as_deref(),
                    lines,
                )
            }
            Self::ReflectionApprove(r) => (
                format!("reflection #{} approved into {}", r.reflection, r.file),
                Some(&r.commit),
                r.operations
                    .iter()
                    .map(|a| format!("#{} {} {} — {}", a.block, a.op.as_str(), a.target, a.outcome))
                    .collect(),
            ),
            Self::ReflectionReject(r) => (
                format!("reflection #{} rejected: {}", r.reflection, r.reason),
                Some(&r.commit),
                Vec::new(),
            ),
            Self::Identity(r) => {
                (format!("self-image consolidation {}", r.outcome), Some(&r.commit), Vec::new())
            }
            Self::Ack(r) => {
                let what = match r.acknowledged.len() {
                    0 => "nothing to acknowledge".to_owned(),
                    1 => "acknowledged 1 critical change".to_owned(),
                    n => format!("acknowledged {n} critical changes"),
                };
                let lines = r
                    .acknowledged
                    .iter()
                    .map(|c| format!("{} by {} (+{} -{})", c.id, c.actor, c.added, c.removed))
                    .collect();
                (what, r.commit.as_deref(), lines)
            }
        }
    }
}

/// Runs a decision as the server's actor, after adopting commits made outside cogmem as the
/// CLI's writing commands do.
fn perform(s: &AppState, act: Act) -> cogmem_ops::Result<Outcome> {
    let (ws, by, clock) = (s.ws(), s.actor(), s.clock());
    // Best effort, as the CLI: what cannot be adopted now is adopted by a later command.
    let _ = cogmem_ops::adopt::adopt(ws, clock);
    Ok(match act {
        Act::Decide(n, d) => Outcome::Decide(propose::decide(ws, n, &d, by, clock)?),
        Act::ReflectionApprove(only) => {
            Outcome::ReflectionApprove(reflect::approve(ws, only.as_deref(), by, clock)?)
        }
        Act::ReflectionReject(reason) => {
            Outcome::ReflectionReject(reflect::reject(ws, reason.as_deref(), by, clock)?)
        }
        Act::IdentityApprove => Outcome::Identity(identity::approve(ws, by, clock)?),
        Act::IdentityReject(reason) => {
            Outcome::Identity(identity::reject(ws, reason.as_deref(), by, clock)?)
        }
        Act::Ack(id) => Outcome::Ack(audit::ack(ws, id.as_deref(), by.clone(), clock)?),
    })
}

/// Decides as a form asked, then sends the browser to the decision's result page (303).
async fn act_page(state: AppState, act: Act) -> WebResult<Redirect> {
    let outcome = state.run(move |s| perform(s, act)).await?;
    let k = state.keep_decided(outcome.describe());
    Ok(Redirect::to(&format!("/review/done/{k}")))
}

/// `GET /review/done/{k}`: the result page of the server's k-th decision.
async fn done_page(State(state): State<AppState>, Path(k): Path<u64>) -> WebResult<Markup> {
    let Some(d) = state.decided(k) else {
        return Err(WebError::not_found(
            format!("there is no result #{k} of a decision here"),
            "results are kept while the server runs (the last 64); the audit log (/audit) \
             lists every decision",
        ));
    };
    Ok(layout::page(&state, "Done", Nav::Review, done(&d.what, d.commit.as_deref(), &d.lines)))
}

async fn act_json(state: AppState, act: Act) -> WebResult<Json<Outcome>> {
    Ok(Json(state.run(move |s| perform(s, act)).await?))
}

async fn review_page(State(state): State<AppState>) -> WebResult<Markup> {
    let report = state.run(|s| review::review(s.ws(), s.clock())).await?;
    let body = page(&report, state.actor().as_str(), &layout::csrf_field(&state));
    Ok(layout::page(&state, "Review", Nav::Review, body))
}

/// A form's or a JSON body's optional fields; an empty field is an absent one. Other fields
/// (the CSRF token) are ignored.
#[derive(Debug, Default, Deserialize)]
struct Fields {
    #[serde(default)]
    store: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

fn given(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.trim().is_empty())
}

fn approval(f: Fields) -> WebResult<Decision> {
    let store = given(f.store)
        .map(|s| Store::parse(&s))
        .transpose()
        .map_err(|e| WebError::from(cogmem_ops::Error::from(e)))?;
    Ok(Decision::Approve { store })
}

fn rejection(f: Fields) -> WebResult<Decision> {
    match given(f.reason) {
        Some(reason) => Ok(Decision::Reject { reason }),
        None => Err(WebError::bad_request(
            "a rejection needs a reason",
            "write why in the reason field; it is recorded in the proposals file",
        )),
    }
}

async fn form_approve(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    Form(f): Form<Fields>,
) -> WebResult<Redirect> {
    let d = approval(f)?;
    act_page(state, Act::Decide(n, d)).await
}

async fn form_reject(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    Form(f): Form<Fields>,
) -> WebResult<Redirect> {
    let d = rejection(f)?;
    act_page(state, Act::Decide(n, d)).await
}

async fn form_defer(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    Form(f): Form<Fields>,
) -> WebResult<Redirect> {
    act_page(state, Act::Decide(n, Decision::Defer { reason: given(f.reason) })).await
}

/// The ticked blocks of the reflection form: every `block` field. `blocks` (hidden) is how many
/// the page showed: all of them ticked approves everything, as `reflect approve` without
/// `--only`.
fn ticked(fields: &[(String, String)]) -> WebResult<Option<Vec<usize>>> {
    let mut only = Vec::new();
    let mut shown = None;
    for (k, v) in fields {
        let number = || {
            v.trim().parse::<usize>().map_err(|_| {
                WebError::bad_request(
                    format!("`{k}` is not a block number: {v:?}"),
                    "tick the blocks on the review page; they carry their numbers",
                )
            })
        };
        match k.as_str() {
            "block" => only.push(number()?),
            "blocks" => shown = Some(number()?),
            _ => {}
        }
    }
    only.sort_unstable();
    only.dedup();
    let all = shown.is_some_and(|n| only == (1..=n).collect::<Vec<_>>());
    if all {
        return Ok(None);
    }
    if only.is_empty() {
        return Err(WebError::bad_request(
            "no block is ticked",
            "tick the blocks to apply, or reject the reflection",
        ));
    }
    Ok(Some(only))
}

async fn form_reflection_approve(
    State(state): State<AppState>,
    Form(fields): Form<Vec<(String, String)>>,
) -> WebResult<Redirect> {
    let only = ticked(&fields)?;
    act_page(state, Act::ReflectionApprove(only)).await
}

async fn form_reflection_reject(
    State(state): State<AppState>,
    Form(f): Form<Fields>,
) -> WebResult<Redirect> {
    act_page(state, Act::ReflectionReject(given(f.reason))).await
}

async fn form_identity_approve(State(state): State<AppState>) -> WebResult<Redirect> {
    act_page(state, Act::IdentityApprove).await
}

async fn form_identity_reject(
    State(state): State<AppState>,
    Form(f): Form<Fields>,
) -> WebResult<Redirect> {
    act_page(state, Act::IdentityReject(given(f.reason))).await
}

async fn form_ack(State(state): State<AppState>, Form(f): Form<Fields>) -> WebResult<Redirect> {
    act_page(state, Act::Ack(given(f.id))).await
}

/// `GET /api/review`: everything awaiting a decision ([`ReviewReport`]).
async fn api_review(State(state): State<AppState>) -> WebResult<Json<ReviewReport>> {
    Ok(Json(state.run(|s| review::review(s.ws(), s.clock())).await?))
}

/// `GET /api/review/proposals`: `cogmem pending list --json` (the open ones).
async fn api_proposals(State(state): State<AppState>) -> WebResult<Json<Vec<Proposal>>> {
    let file = state.run(|s| propose::read(s.ws())).await?;
    Ok(Json(file.proposals.into_iter().filter(|p| p.status.is_open()).collect()))
}

/// `GET /api/review/proposals/{n}`: `cogmem pending show N --json`.
async fn api_proposal(
    State(state): State<AppState>,
    Path(n): Path<u32>,
) -> WebResult<Json<Proposal>> {
    Ok(Json(state.run(move |s| propose::get(s.ws(), n)).await?))
}

/// `GET /api/review/reflection`: `cogmem reflect show --json`.
async fn api_reflection(State(state): State<AppState>) -> WebResult<Json<reflect::ShowReport>> {
    Ok(Json(state.run(|s| reflect::show(s.ws(), s.clock())).await?))
}

/// `cogmem identity consolidate show --json`'s shape.
#[derive(Serialize)]
struct IdentityShow {
    diff: String,
}

/// `GET /api/review/identity`: `cogmem identity consolidate show --json`.
async fn api_identity(State(state): State<AppState>) -> WebResult<Json<IdentityShow>> {
    let diff = state.run(|s| identity::show(s.ws(), s.clock())).await?;
    Ok(Json(IdentityShow { diff }))
}

/// The body of `POST /api/review/reflection/approve`: `{"only": [1, 3]}` or `{}`.
#[derive(Debug, Default, Deserialize)]
struct OnlyBody {
    #[serde(default)]
    only: Option<Vec<usize>>,
}

async fn api_approve(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    let d = approval(body.map(|b| b.0).unwrap_or_default())?;
    act_json(state, Act::Decide(n, d)).await
}

async fn api_reject(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    let d = rejection(body.map(|b| b.0).unwrap_or_default())?;
    act_json(state, Act::Decide(n, d)).await
}

async fn api_defer(
    State(state): State<AppState>,
    Path(n): Path<u32>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    let reason = given(body.map(|b| b.0).unwrap_or_default().reason);
    act_json(state, Act::Decide(n, Decision::Defer { reason })).await
}

async fn api_reflection_approve(
    State(state): State<AppState>,
    body: Option<Json<OnlyBody>>,
) -> WebResult<Json<Outcome>> {
    let only = body.map(|b| b.0).unwrap_or_default().only;
    act_json(state, Act::ReflectionApprove(only)).await
}

async fn api_reflection_reject(
    State(state): State<AppState>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    let reason = given(body.map(|b| b.0).unwrap_or_default().reason);
    act_json(state, Act::ReflectionReject(reason)).await
}

async fn api_identity_approve(State(state): State<AppState>) -> WebResult<Json<Outcome>> {
    act_json(state, Act::IdentityApprove).await
}

async fn api_identity_reject(
    State(state): State<AppState>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    let reason = given(body.map(|b| b.0).unwrap_or_default().reason);
    act_json(state, Act::IdentityReject(reason)).await
}

async fn api_ack(
    State(state): State<AppState>,
    body: Option<Json<Fields>>,
) -> WebResult<Json<Outcome>> {
    act_json(state, Act::Ack(given(body.map(|b| b.0).unwrap_or_default().id))).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn ticked_blocks_become_only_unless_all_are_ticked() {
        let some = pairs(&[("csrf", "T"), ("blocks", "3"), ("block", "3"), ("block", "1")]);
        assert_eq!(ticked(&some).unwrap(), Some(vec![1, 3]));
        let all = pairs(&[("blocks", "2"), ("block", "2"), ("block", "1")]);
        assert_eq!(ticked(&all).unwrap(), None);
        let no_ops = pairs(&[("blocks", "0")]);
        assert_eq!(ticked(&no_ops).unwrap(), None, "a reflection without blocks");
        let none = pairs(&[("blocks", "2")]);
        assert_eq!(ticked(&none).unwrap_err().status.as_u16(), 400);
        let bad = pairs(&[("blocks", "2"), ("block", "x")]);
        assert_eq!(ticked(&bad).unwrap_err().status.as_u16(), 400);
    }
}
