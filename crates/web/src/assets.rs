//! The static files (stylesheet, scripts, vendored libraries with their licences), compiled
//! into the binary and served from `/assets/NAME?v=HASH`: nothing is ever loaded from the
//! network. A changed file gets a new `v`, so browsers may keep each version for a year.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::header::{self, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::error::WebError;
use crate::state::AppState;

/// Every asset: name, content type, bytes. Add a row for a new file under `assets/`.
pub const ASSETS: &[(&str, &str, &[u8])] = &[
    ("style.css", "text/css; charset=utf-8", include_bytes!("../assets/style.css")),
    ("live.js", "text/javascript; charset=utf-8", include_bytes!("../assets/live.js")),
    ("graph.js", "text/javascript; charset=utf-8", include_bytes!("../assets/graph.js")),
    ("graph.css", "text/css; charset=utf-8", include_bytes!("../assets/graph.css")),
    (
        "cytoscape.min.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../assets/vendor/cytoscape.min.js"),
    ),
    (
        "cytoscape.LICENSE",
        "text/plain; charset=utf-8",
        include_bytes!("../assets/vendor/cytoscape.LICENSE"),
    ),
];

/// The address of an asset, with its content hash: `/assets/style.css?v=1a2b…`.
pub fn url(name: &str) -> String {
    match hashes().iter().find(|(n, _)| *n == name) {
        Some((_, hash)) => format!("/assets/{name}?v={hash}"),
        None => format!("/assets/{name}"),
    }
}

/// Each asset's name and content hash, computed once.
fn hashes() -> &'static [(&'static str, String)] {
    static HASHES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    HASHES.get_or_init(|| {
        ASSETS
            .iter()
            .map(|(name, _, bytes)| {
                let mut h = DefaultHasher::new();
                bytes.hash(&mut h);
                (*name, format!("{:016x}", h.finish()))
            })
            .collect()
    })
}

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/assets/{name}", get(asset))
}

async fn asset(Path(name): Path<String>) -> Result<Response, WebError> {
    let Some((_, kind, bytes)) = ASSETS.iter().find(|(n, _, _)| *n == name) else {
        return Err(WebError::not_found(
            format!("there is no asset {name:?}"),
            "the pages name their assets; reload the page",
        ));
    };
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=31536000, immutable"),
    );
    Ok(response)
}
