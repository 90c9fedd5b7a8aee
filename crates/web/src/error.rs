//! Errors of pages and API routes: a status, the message and the hint, rendered as an HTML page
//! (with the layout) or, under `/api/`, as JSON.
//!
//! A handler returns [`WebError`]; its response carries the error as an extension, and the
//! security layer ([`crate::security::guard`]) renders it once it knows the path. Plain-text
//! refusals of axum's extractors (a bad query parameter, say) are rendered the same way.

use std::sync::Arc;

use axum::Json;
use axum::body::to_bytes;
use axum::http::header;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use cogmem_ops::ErrorKind;
use maud::html;
use serde::Serialize;

use crate::layout::{self, Nav};
use crate::state::AppState;

/// A `Result` of a handler.
pub type WebResult<T> = Result<T, WebError>;

/// An error a page or API route answers with.
#[derive(Debug, Clone, Serialize)]
pub struct WebError {
    /// The HTTP status.
    #[serde(serialize_with = "status_code")]
    pub status: StatusCode,
    /// What went wrong.
    pub message: String,
    /// What to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

fn status_code<S: serde::Serializer>(status: &StatusCode, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u16(status.as_u16())
}

impl WebError {
    /// An error with a status, a message and a hint.
    pub fn new(status: StatusCode, message: String, hint: Option<String>) -> Self {
        Self { status, message, hint }
    }

    /// A 404: `what` was not found; `hint` says what to do.
    pub fn not_found(what: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, what.into(), Some(hint.into()))
    }

    /// A 400: the request is wrong; `hint` says how to fix it.
    pub fn bad_request(what: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, what.into(), Some(hint.into()))
    }

    /// A 500: a bug or a failure of the machine.
    pub fn internal(what: String) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            what,
            Some("see the server's terminal; if this keeps happening, report it".into()),
        )
    }
}

impl From<cogmem_ops::Error> for WebError {
    /// The operation's message and hint, with the status of its kind: a user's fault 400, a
    /// rule's refusal 409, anything else 500. The message ends with the causes it does not
    /// already say ([`cogmem_ops::Error::causes`], as the CLI's `caused by:` lines).
    fn from(e: cogmem_ops::Error) -> Self {
        let status = match e.kind() {
            ErrorKind::User if e.is_not_found() => StatusCode::NOT_FOUND,
            ErrorKind::User => StatusCode::BAD_REQUEST,
            ErrorKind::Conflict => StatusCode::CONFLICT,
            ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let mut message = e.to_string();
        for cause in e.causes() {
            message.push_str(": ");
            message.push_str(&cause);
        }
        Self::new(status, message, e.hint())
    }
}

impl IntoResponse for WebError {
    /// An empty response of the status, with the error attached: a middleware turns it into a page or a JSON error.
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(Arc::new(self));
        response
    }
}

/// The JSON body of an API error: `{"error": {"status": 404, "message": …, "hint": …}}`.
#[derive(Serialize)]
struct ErrorJson<'a> {
    error: &'a WebError,
}

/// Renders the error a response carries (or the plain text of an extractor's refusal) as a
/// page, or as JSON under `/api/`; other responses pass unchanged. `read` tells a GET or HEAD
/// from a write, whose error page the live updates must not re-fetch.
pub(crate) async fn render(
    state: &AppState,
    path: &str,
    read: bool,
    response: Response,
) -> Response {
    let (parts, body) = response.into_parts();
    let error = match parts.extensions.get::<Arc<WebError>>() {
        Some(e) => (**e).clone(),
        None if is_plain_refusal(&parts) => {
            let bytes = to_bytes(body, 64 * 1024).await.unwrap_or_default();
            WebError::new(
                parts.status,
                String::from_utf8_lossy(&bytes).trim().to_owned(),
                Some("check the address; the pages' links and forms build it right".into()),
            )
        }
        None => return Response::from_parts(parts, body),
    };
    let mut out = if path.starts_with("/api/") || path == "/api" {
        (error.status, Json(ErrorJson { error: &error })).into_response()
    } else {
        (error.status, page(state, &error, read)).into_response()
    };
    // Keep the headers the error set (the password prompt's WWW-Authenticate).
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

/// Whether a response is an error whose body is plain text (axum's extractor refusals).
fn is_plain_refusal(parts: &axum::http::response::Parts) -> bool {
    let status = parts.status;
    (status.is_client_error() || status.is_server_error())
        && parts
            .headers
            .get(header::CONTENT_TYPE)
            .is_some_and(|c| c.as_bytes().starts_with(b"text/plain"))
}

/// The error page: the status, the message and the hint, in the layout (the navigation only
/// when the request was let in: a refused visitor sees no links; not re-fetched live when it
/// answers a write).
fn page(state: &AppState, error: &WebError, read: bool) -> maud::Markup {
    let title = error.status.canonical_reason().unwrap_or("Error");
    let body = html! {
        h1 { (error.status.as_u16()) " " (title) }
        p.error { (error.message) }
        @if let Some(hint) = &error.hint { p.hint { "What to do: " (hint) } }
    };
    let refused = matches!(
        error.status,
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::MISDIRECTED_REQUEST
    );
    if refused {
        layout::bare(title, body)
    } else if read {
        layout::page(state, title, Nav::None, body)
    } else {
        layout::answer_to_write(state, title, Nav::None, body)
    }
}

/// The fallback: no route at this address.
pub async fn not_found(uri: Uri) -> WebError {
    let what = if uri.path().starts_with("/api/") { "API route" } else { "page" };
    WebError::not_found(
        format!("there is no {what} at {}", uri.path()),
        "use the links in the navigation bar (docs/cli.md lists the API routes)",
    )
}
