//! The request checks every request passes before any handler runs, and the headers every
//! response carries.
//!
//! - **Host**: the Host header must name the bound address (`127.0.0.1:PORT`, `localhost:PORT`
//!   or `[::1]:PORT`), so a page on another site whose name was re-bound to 127.0.0.1 (DNS
//!   rebinding) is refused. With `--allow-remote` any name is accepted: the password guards.
//! - **Password** (`--allow-remote` only): HTTP Basic, any user name, the password compared in
//!   constant time.
//! - **Access token**: random, 256 bits, printed once in the URL. A first visit with
//!   `?token=…` sets an HttpOnly, SameSite=Strict cookie (named after the port, so two servers
//!   do not overwrite each other's) and redirects to the same address without the token;
//!   scripts may send the `X-Cogmem-Token` header instead.
//! - **Writes** (any method but GET and HEAD): the request must come from this server's own
//!   pages (`Sec-Fetch-Site: same-origin`, else an `Origin` equal to this server's) and carry
//!   the CSRF token (a second random token), in the `csrf` form field or the `X-Cogmem-Csrf`
//!   header.
//! - **Headers**: a strict content security policy (no inline script or style, nothing from
//!   another origin, no framing), `nosniff`, no referrer, and `no-store` unless the route set
//!   its own cache policy.

use std::net::SocketAddr;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine as _;
use cogmem_store::store::fsx::IoError;

use crate::error::{self, WebError};
use crate::state::AppState;

/// The content security policy of every response.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
                       form-action 'self'; frame-ancestors 'none'";

/// The query parameter of the first visit.
pub const TOKEN_PARAM: &str = "token";

/// The header a script may send the access token in.
pub const TOKEN_HEADER: &str = "x-cogmem-token";

/// The form field of the CSRF token.
pub const CSRF_FIELD: &str = "csrf";

/// The header a script may send the CSRF token in.
pub const CSRF_HEADER: &str = "x-cogmem-csrf";

/// The largest form body read for its CSRF token.
const FORM_LIMIT: usize = 1 << 20;

/// The tokens and the addresses this server answers to.
pub struct Security {
    token: String,
    csrf: String,
    password: Option<String>,
    /// The Host header values accepted (lower case); empty with `--allow-remote`.
    hosts: Vec<String>,
    /// The name of the cookie that carries the token.
    cookie: String,
    /// `http://HOST:PORT`, the origin of the URL printed.
    origin: String,
}

impl Security {
    /// Makes fresh tokens for a server bound to `addr`.
    ///
    /// Fails when the operating system's random source cannot be read.
    pub(crate) fn new(
        addr: SocketAddr,
        allow_remote: bool,
        password: Option<String>,
    ) -> cogmem_ops::Result<Self> {
        let port = addr.port();
        let hosts = if allow_remote {
            Vec::new()
        } else {
            let mut hosts: Vec<String> = [
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
                addr.to_string(),
            ]
            .into();
            if port == 80 {
                hosts.extend(["127.0.0.1", "localhost", "[::1]"].map(str::to_owned));
            }
            hosts
        };
        Ok(Self {
            token: random_token()?,
            csrf: random_token()?,
            password,
            hosts,
            cookie: format!("cogmem_token_{port}"),
            origin: format!("http://{}", crate::url_host(addr)),
        })
    }

    /// The URL to open: `http://127.0.0.1:PORT/?token=…`.
    pub fn entry_url(&self) -> String {
        format!("{}/?{TOKEN_PARAM}={}", self.origin, self.token)
    }

    /// The CSRF token POST forms carry.
    pub fn csrf_token(&self) -> &str {
        &self.csrf
    }

    /// Whether the Host header names this server (always, with `--allow-remote`).
    fn host_ok(&self, headers: &HeaderMap) -> bool {
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        self.hosts.is_empty() || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Whether the request carries the password (HTTP Basic), when one is needed.
    fn password_ok(&self, headers: &HeaderMap) -> bool {
        let Some(password) = &self.password else { return true };
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b.trim()).ok())
            .and_then(|raw| {
                let colon = raw.iter().position(|&b| b == b':')?;
                Some(raw[colon + 1..].to_vec())
            });
        given.is_some_and(|g| same(&g, password.as_bytes()))
    }

    /// Whether the request carries the access token in its cookie or header.
    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let header = headers.get(TOKEN_HEADER).and_then(|h| h.to_str().ok());
        header.is_some_and(|t| same(t.as_bytes(), self.token.as_bytes()))
            || cookies(headers, &self.cookie).any(|t| same(t.as_bytes(), self.token.as_bytes()))
    }

    /// Whether a write comes from this server's own pages.
    fn same_origin(&self, headers: &HeaderMap) -> bool {
        if let Some(site) = headers.get("sec-fetch-site") {
            return site.as_bytes() == b"same-origin";
        }
        let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
            return false;
        };
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
        origin.eq_ignore_ascii_case(&format!("http://{host}"))
    }

    /// The `Set-Cookie` value that holds the token.
    fn cookie_header(&self) -> String {
        format!("{}={}; Path=/; HttpOnly; SameSite=Strict", self.cookie, self.token)
    }
}

/// 32 random bytes from the operating system, as 64 hexadecimal digits.
fn random_token() -> cogmem_ops::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        IoError::new("<random source>", "read", std::io::Error::other(e.to_string()))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares two secrets in time that depends only on their lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The values of the cookie `name` in the request.
fn cookies<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|h| h.to_str().ok())
        .flat_map(|h| h.split(';'))
        .filter_map(move |pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then_some(v)
        })
}

/// The query's `token` value, and the query without it.
fn split_token(query: &str) -> (Option<&str>, String) {
    let mut token = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((TOKEN_PARAM, value)) => token = Some(value),
            _ if pair == TOKEN_PARAM => token = Some(""),
            _ => rest.push(pair),
        }
    }
    (token, rest.join("&"))
}

/// Where to send the browser after the first visit: the same address without the token. A
/// path that a browser would read as another host (`//evil.example`, `/\evil.example`) goes
/// to `/` instead.
fn without_token(path: &str, rest: &str) -> String {
    let path = if path.starts_with("//") || path.starts_with("/\\") || !path.starts_with('/') {
        "/"
    } else {
        path
    };
    if rest.is_empty() { path.to_owned() } else { format!("{path}?{rest}") }
}

/// The CSRF token a write carries: the header, else the `csrf` field of a form body (the body
/// is read and put back for the handler).
async fn csrf_of(req: Request) -> Result<(Option<String>, Request), WebError> {
    if let Some(h) = req.headers().get(CSRF_HEADER) {
        let token = h.to_str().ok().map(str::to_owned);
        return Ok((token, req));
    }
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Ok((None, req));
    }
    let (parts, body) = req.into_parts();
    let bytes = to_bytes(body, FORM_LIMIT).await.map_err(|_| {
        WebError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "the form is larger than 1 MiB".into(),
            Some("send a smaller form".into()),
        )
    })?;
    let token = String::from_utf8_lossy(&bytes)
        .split('&')
        .find_map(|pair| pair.strip_prefix("csrf=").map(str::to_owned));
    Ok((token, Request::from_parts(parts, Body::from(bytes))))
}

/// The security layer: checks the request, runs the handler, renders an error it returned as
/// a page or JSON, and adds the security headers.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let read = matches!(*req.method(), Method::GET | Method::HEAD);
    let mut response = match check(&state, req).await {
        Ok(Checked::Pass(req)) => next.run(req).await,
        Ok(Checked::Answer(response)) => response,
        Err(e) => e.into_response(),
    };
    response = error::render(&state, &path, read, response).await;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// What the checks decided.
enum Checked {
    /// Serve the request.
    Pass(Request),
    /// Answer without the handler (the first visit's redirect, the password prompt).
    Answer(Response),
}

async fn check(state: &AppState, req: Request) -> Result<Checked, WebError> {
    let sec = state.security();
    if !sec.host_ok(req.headers()) {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        return Err(WebError::new(
            StatusCode::MISDIRECTED_REQUEST,
            format!("this server does not answer to the host name {host:?}"),
            Some(
                "open the address `cogmem serve` printed (127.0.0.1 or localhost); to serve \
                 other machines, start it with --allow-remote and a password"
                    .into(),
            ),
        ));
    }
    if !sec.password_ok(req.headers()) {
        let mut response = WebError::new(
            StatusCode::UNAUTHORIZED,
            "this server needs its password".into(),
            Some("give the password set with --password-file or COGMEM_WEB_PASSWORD".into()),
        )
        .into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"cogmem\", charset=\"UTF-8\""),
        );
        return Ok(Checked::Answer(response));
    }
    let (given, rest) = split_token(req.uri().query().unwrap_or(""));
    if let Some(given) = given {
        if !same(given.as_bytes(), sec.token.as_bytes()) {
            return Err(denied("the access token in the address is not this server's"));
        }
        let mut response = Redirect::to(&without_token(req.uri().path(), &rest)).into_response();
        let cookie = HeaderValue::from_str(&sec.cookie_header())
            .map_err(|e| WebError::internal(format!("the cookie is not a header value: {e}")))?;
        response.headers_mut().insert(header::SET_COOKIE, cookie);
        return Ok(Checked::Answer(response));
    }
    if !sec.token_ok(req.headers()) {
        return Err(denied("this page needs the access token"));
    }
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return Ok(Checked::Pass(req));
    }
    if !sec.same_origin(req.headers()) {
        return Err(WebError::new(
            StatusCode::FORBIDDEN,
            "a change must come from this server's own pages (the request's origin is another \
             site, or not given)"
                .into(),
            Some("use the buttons on the page; a script sends `Origin` and `X-Cogmem-Csrf`".into()),
        ));
    }
    let (csrf, req) = csrf_of(req).await?;
    if !csrf.is_some_and(|c| same(c.as_bytes(), sec.csrf.as_bytes())) {
        return Err(WebError::new(
            StatusCode::FORBIDDEN,
            "the form's CSRF token is missing or not this server's".into(),
            Some("reload the page (a restarted server has new tokens) and try again".into()),
        ));
    }
    Ok(Checked::Pass(req))
}

/// A 401 for a request without the right token.
fn denied(message: &str) -> WebError {
    WebError::new(
        StatusCode::UNAUTHORIZED,
        message.into(),
        Some(
            "open the address `cogmem serve` printed (it ends in `?token=…`); a restarted \
             server prints a new one"
                .into(),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_taken_out_of_the_query() {
        assert_eq!(split_token("token=ab&q=x"), (Some("ab"), "q=x".to_owned()));
        assert_eq!(split_token("q=x"), (None, "q=x".to_owned()));
        assert_eq!(split_token(""), (None, String::new()));
        assert_eq!(without_token("/search", "q=x"), "/search?q=x");
        assert_eq!(without_token("/", ""), "/");
        // Never a redirect to another host.
        assert_eq!(without_token("//evil.example/x", ""), "/");
        assert_eq!(without_token("/\\evil.example", "q=1"), "/?q=1");
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn tokens_are_fresh_and_long() {
        let a = random_token().unwrap();
        let b = random_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }
}
