//! The web view: the same operations as the command line, shown in a browser on this machine
//! (`cogmem serve`).
//!
//! This is an adapter over [`cogmem_ops`], like the CLI and the MCP server: every page and every
//! `/api/` route calls an operation and renders its report (HTML with maud, which escapes every
//! interpolation, or the JSON the CLI's `--json` prints). It holds no logic of its own, never
//! reads the environment and never prints: the listener, the actor, the clock and the stop flag
//! come in through [`ServeOptions`], and the URL to open goes back through
//! [`ServeOptions::on_ready`].
//!
//! Safe by default ([`security`]): every request needs the access token (a cookie after the
//! first visit), writes need the CSRF token and a same-origin request, the Host header must
//! name the bound address, and every response carries a strict content security policy.

#![warn(unreachable_pub)]

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use cogmem_store::audit::Actor;
use cogmem_store::store::fsx::IoError;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::Clock;

pub mod api;
pub mod assets;
pub mod error;
pub mod layout;
pub mod live;
pub mod pages;
pub mod security;
pub mod state;

pub use error::{WebError, WebResult};
pub use state::AppState;

/// How often the server looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

/// Everything the server needs besides the workspace.
pub struct ServeOptions {
    /// The bound listener (the caller binds it, so it can say what to do when the port is
    /// taken). Loopback unless `allow_remote`.
    pub listener: TcpListener,
    /// Serve other machines too: any Host header is accepted, and every request needs the
    /// password as well as the token.
    pub allow_remote: bool,
    /// The password (HTTP Basic; any user name) that `allow_remote` requires.
    pub password: Option<String>,
    /// Who the review pages act as: always a person (`user:NAME`).
    pub actor: Actor,
    /// The clock every operation reads the time from.
    pub clock: Box<dyn Clock>,
    /// Set to stop the server (the CLI sets it from Ctrl-C and SIGTERM); requests under way
    /// finish first.
    pub stop: Arc<AtomicBool>,
    /// Called once the server accepts requests, with the URL to open (holding the token).
    pub on_ready: Box<dyn FnOnce(&str) + Send>,
}

/// Serves the web view of `ws` until `options.stop` is set.
///
/// A purge that was killed half-way is finished first, as before every CLI command.
///
/// Fails when the password is missing with `allow_remote`, the random source or the runtime
/// cannot start, or the listener breaks.
pub fn serve(ws: Workspace, options: ServeOptions) -> cogmem_ops::Result<()> {
    let ServeOptions { listener, allow_remote, password, actor, clock, stop, on_ready } = options;
    cogmem_ops::purge::finish_pending(&ws, clock.as_ref())?;
    let addr =
        listener.local_addr().map_err(|e| IoError::new("<listener>", "read the address of", e))?;
    listener.set_nonblocking(true).map_err(|e| IoError::new(addr.to_string(), "listen on", e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| IoError::new("<tokio runtime>", "start", e))?;
    // While it runs, the server tells its own reads (and any other process's) which files
    // changed, as `cogmem watch` does, unless a watcher does already: a search or an overview
    // then stats no memory file (at 100,000 memories 13,000 of them, most of each read's time).
    let _reads = cogmem_ops::watch::serve_reads(&ws);
    let security = security::Security::new(addr, allow_remote, password)?;
    let url = security.entry_url();
    let state = AppState::new(ws, actor, clock, security, Arc::clone(&stop));
    let app = router(state.clone());
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| IoError::new(addr.to_string(), "listen on", e))?;
        let live = live::start(&state);
        on_ready(&url);
        let stopped = async move {
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(STOP_POLL).await;
            }
        };
        // Event streams end by themselves once the stop flag is set, so the graceful
        // shutdown does not wait for them.
        let served = axum::serve(listener, app).with_graceful_shutdown(stopped).await;
        live.stop();
        served.map_err(|e| IoError::new(addr.to_string(), "serve on", e))?;
        Ok(())
    })
}

/// Every route, behind the security layer.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(pages::routes())
        .merge(api::routes())
        .merge(live::routes())
        .merge(assets::routes())
        .fallback(error::not_found)
        .layer(axum::middleware::from_fn_with_state(state.clone(), security::guard))
        .with_state(state)
}

/// The address a URL names the server by: the bound one, with `127.0.0.1` for an unspecified
/// (all interfaces) address.
pub(crate) fn url_host(addr: SocketAddr) -> String {
    match addr {
        SocketAddr::V4(a) if a.ip().is_unspecified() => format!("127.0.0.1:{}", a.port()),
        SocketAddr::V6(a) if a.ip().is_unspecified() => format!("[::1]:{}", a.port()),
        a => a.to_string(),
    }
}
