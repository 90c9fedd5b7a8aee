//! `cogmem serve`.

use std::io::Write as _;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args;
use cogmem::audit::Actor;
use cogmem::store::fsx::IoError;
use cogmem_web::ServeOptions;

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # Serve on 127.0.0.1:7878 and open the browser
  cogmem serve --open
  # Any free port, acting as user:ada on the review pages
  cogmem serve --addr 127.0.0.1:0 --user ada
  # Serve other machines too (a password is required)
  cogmem serve --addr 0.0.0.0:7878 --allow-remote --password-file ~/.config/cogmem/web-password";

/// The largest password file read (a password is one short line).
const PASSWORD_FILE_LIMIT: u64 = 64 * 1024;

/// Browse, search and review the memory in a web browser on this machine
///
/// Serves a web view of the workspace (overview, search, memories, entities, the graph, the
/// timeline, the audit log and the review pages) and a JSON API under /api/, until Ctrl-C or
/// SIGTERM (exit 0). Prints one line on stdout: the address to open, with a random access
/// token (`http://127.0.0.1:7878/?token=…`). The first visit trades the token for a cookie.
///
/// Loopback only, unless --allow-remote, which needs a password (--password-file, else
/// COGMEM_WEB_PASSWORD; the browser asks for it, with any user name). The Host header must
/// name this server, writes need the page's CSRF token and a same-origin request, and every
/// response forbids scripts, styles and frames from anywhere else.
///
/// The review pages approve, reject and acknowledge as a person, `user:NAME`: --user NAME, else
/// git's user.name (never --actor, and never a sub-agent).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port)
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "IP:PORT")]
    addr: SocketAddr,
    /// Open the address in the default browser
    #[arg(long)]
    open: bool,
    /// Accept connections from other machines (needs a password)
    #[arg(long)]
    allow_remote: bool,
    /// File whose first line is the password for --allow-remote
    #[arg(long, value_name = "FILE")]
    password_file: Option<PathBuf>,
    /// Who the review pages act as: `user:NAME` (default: git's user.name)
    #[arg(long, value_name = "NAME")]
    user: Option<String>,
}

pub fn run(ctx: &Ctx, args: &ServeArgs) -> cogmem::Result<Exit> {
    if !args.allow_remote && !args.addr.ip().is_loopback() {
        return refuse(
            ctx,
            &format!("{} is not a loopback address", args.addr),
            "use 127.0.0.1 (the default) or [::1]; to serve other machines add --allow-remote \
             and a password",
        );
    }
    let password = match &args.password_file {
        Some(path) => {
            let text = cogmem::store::fsx::read_text(path, PASSWORD_FILE_LIMIT)?;
            Some(text.lines().next().unwrap_or_default().to_owned())
        }
        None => ctx.env.web_password.clone(),
    };
    if args.allow_remote && password.as_deref().is_none_or(str::is_empty) {
        return refuse(
            ctx,
            "--allow-remote needs a password",
            "give --password-file FILE (its first line) or set COGMEM_WEB_PASSWORD",
        );
    }
    let password = if args.allow_remote { password } else { None };
    let ws = ctx.resident_workspace()?;
    let Some(actor) = person(args.user.as_deref(), &ws)? else {
        return refuse(
            ctx,
            "the web view needs a person to act as on its review pages",
            "give --user NAME, or set git's user.name (`git config user.name NAME`)",
        );
    };
    let listener = match TcpListener::bind(args.addr) {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            return refuse(
                ctx,
                &format!("cannot listen on {}: the address is in use", args.addr),
                &format!(
                    "stop the program using port {} (another `cogmem serve`?) or pick another \
                     port with --addr 127.0.0.1:PORT (port 0 picks a free one)",
                    args.addr.port()
                ),
            );
        }
        Err(e) => {
            return refuse(
                ctx,
                &format!("cannot listen on {}: {e}", args.addr),
                "pick another address with --addr IP:PORT",
            );
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| IoError::new("<signals>", "listen for", e))?;
    }
    let (open, quiet, style) = (args.open, ctx.global.quiet, ctx.style);
    let root = ws.root().display().to_string();
    let on_ready = Box::new(move |url: &str| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{url}").and_then(|()| out.flush());
        render::status(quiet, &format!("serving {root}; stop with Ctrl-C\n"));
        if open {
            open_browser(url, style);
        }
    });
    let clock = ctx.clock()?;
    cogmem_web::serve(
        ws,
        ServeOptions {
            listener,
            allow_remote: args.allow_remote,
            password,
            actor,
            clock,
            stop,
            on_ready,
        },
    )?;
    render::status(quiet, "stopped\n");
    Ok(Exit::Ok)
}

/// The person the review pages act as: `user:NAME` from --user, else from git's user.name
/// (characters an actor may not hold become `-`); `None` when neither is set.
fn person(user: Option<&str>, ws: &cogmem::Workspace) -> cogmem::Result<Option<Actor>> {
    let name = match user {
        Some(name) => name.strip_prefix("user:").unwrap_or(name).to_owned(),
        None => {
            let repo = cogmem::git::open(ws.root())?;
            let configured = repo.config().ok().and_then(|c| c.get_string("user.name").ok());
            let Some(configured) = configured else { return Ok(None) };
            let cleaned: String = configured
                .trim()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '-' })
                .collect();
            if cleaned.trim_matches('-').is_empty() {
                return Ok(None);
            }
            cleaned
        }
    };
    Ok(Some(Actor::parse(&format!("user:{name}"))?))
}

/// Prints an error and its hint, and returns the user-error exit.
fn refuse(ctx: &Ctx, message: &str, hint: &str) -> cogmem::Result<Exit> {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{} {message}", ctx.style.error("error:"));
    let _ = writeln!(err, "\n{} {hint}", ctx.style.hint("hint:"));
    Ok(Exit::User)
}

/// Opens `url` in the default browser; a failure is a warning.
fn open_browser(url: &str, style: render::Style) {
    let program = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let spawned = std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reap it in the background; the browser outlives it.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => render::warning(
            style,
            &format!("could not open a browser with `{program}` ({e}); open the address above"),
        ),
    }
}
