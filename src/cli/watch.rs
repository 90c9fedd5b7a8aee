//! `cogmem watch`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args;
use cogmem::error::InputError;
use cogmem::ops::sync::SyncOptions;
use cogmem::ops::watch::{self as op, WatchEvent, WatchOptions};
use cogmem::store::fsx::IoError;

use super::exit::{self, Exit};
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # Commit hand edits whenever the workspace has been quiet for 2 seconds
  cogmem watch
  # React faster, e.g. for an agent that edits files itself
  cogmem watch --debounce 500ms
  # Record the edits as made by someone other than `manual`
  cogmem watch --actor skill:notes
  # Only keep searches quick (commit nothing); stop after 30 minutes without a search
  cogmem watch --serve-only --idle-exit 30m";

/// Commit hand edits continuously, as `cogmem sync` does, while files change
///
/// Watches the whole workspace (recursively, so editors that save by writing a temporary file
/// and renaming it over the original are seen too). After each change it waits until the
/// workspace has been quiet for `--debounce` (default 2 s), then syncs: one commit for what was
/// edited, malformed files left with a warning. Changes under `.git/` and `.cogmem/`, editor
/// swap and backup files (`*.swp`, `*~`, `4913`) and the `.cogmem-tmp-*` files of unfinished
/// writes are ignored. It syncs once at start.
///
/// Prints one line per commit on stdout (with `--json`, one JSON sync report per line) and one
/// warning per file left on stderr. A failed sync (e.g. the lock was busy) is reported and
/// tried again after a growing wait. Ctrl-C or SIGTERM stops it cleanly: a sync that has
/// started finishes first, so no commit is left half made. Exits 0 when stopped.
///
/// While it runs, reads (search, recall, context, status, the hooks, the MCP server) ask it
/// which memory files changed instead of looking at every one. With --serve-only it does only
/// that and commits nothing: the agent hooks start one so for a session (`[hooks]
/// serve_minutes`), stopping after --idle-exit without a read. Only one watcher serves a
/// workspace; --serve-only exits at once (0) when another does.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct WatchArgs {
    /// Quiet time after a change before syncing: `500ms`, `2s`, `1m` (a bare number is seconds)
    #[arg(long, default_value = "2s", value_name = "TIME", conflicts_with = "serve_only")]
    debounce: String,
    /// Keep the reads fresh only: never sync, never commit
    #[arg(long)]
    serve_only: bool,
    /// With --serve-only: stop once no read has asked for this long (`30m`, `1h`, `90s`)
    #[arg(long, value_name = "TIME", requires = "serve_only")]
    idle_exit: Option<String>,
}

/// A `--debounce` or `--idle-exit` time.
fn duration(what: &'static str, text: &str) -> cogmem::Result<std::time::Duration> {
    Ok(op::parse_duration(text).ok_or_else(|| InputError::Unknown {
        what,
        value: text.to_owned(),
        expected: "a time like `500ms`, `2s` or `1m`".into(),
    })?)
}

/// A flag that Ctrl-C and SIGTERM set.
fn stop_on_signals() -> cogmem::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| IoError::new("<signals>", "listen for", e))?;
    }
    Ok(stop)
}

pub fn run(ctx: &Ctx, args: &WatchArgs) -> cogmem::Result<Exit> {
    if args.serve_only {
        return serve_only(ctx, args);
    }
    let ws = ctx.resident_workspace()?;
    let clock = ctx.clock()?;
    let debounce = duration("debounce time", &args.debounce)?;
    let stop = stop_on_signals()?;
    let opts = WatchOptions {
        debounce,
        sync: SyncOptions {
            actor: ctx.actor()?,
            force: false,
            dry_run: false,
            allow_secret: false,
        },
    };
    let json = ctx.global.json;
    let quiet = ctx.global.quiet;
    let style = ctx.style;
    let mut on_event = |event: WatchEvent<'_>| match event {
        WatchEvent::Ready => render::status(
            quiet,
            &format!(
                "watching {} (debounce {}); stop with Ctrl-C\n",
                ws.root().display(),
                args.debounce
            ),
        ),
        WatchEvent::Synced(report) => {
            if json {
                let line = serde_json::to_string(report).expect("reports always serialise");
                let _ = render::data(&format!("{line}\n"));
            } else if let Some(id) = &report.commit {
                let files: Vec<String> = report
                    .committed
                    .iter()
                    .map(|f| format!("{} {}", f.action.as_str(), f.path))
                    .collect();
                let _ = render::data(&format!(
                    "{} committed {}: {}\n",
                    clock.now().format("%Y-%m-%dT%H:%M:%S%:z"),
                    render::short(id),
                    files.join(", ")
                ));
            }
            super::sync::warn_secrets(style, report);
            super::sync::warn_left(style, report);
        }
        WatchEvent::Failed(err) => {
            let _ = exit::report(err, style, &mut std::io::stderr().lock());
        }
    };
    op::watch(&ws, &opts, clock.as_ref(), &stop, &mut on_event)?;
    render::status(quiet, "stopped\n");
    Ok(Exit::Ok)
}

/// `cogmem watch --serve-only`: serves the reads until stopped, idle, or the workspace goes.
/// Writes nothing but the watcher's own files under `.cogmem/watch/`: no recovery, adoption or
/// sync.
fn serve_only(ctx: &Ctx, args: &WatchArgs) -> cogmem::Result<Exit> {
    let ws = ctx.discover()?;
    let idle = args.idle_exit.as_deref().map(|t| duration("idle time", t)).transpose()?;
    let stop = stop_on_signals()?;
    let quiet = ctx.global.quiet;
    render::status(quiet, &format!("serving reads of {}; stop with Ctrl-C\n", ws.root().display()));
    let end = op::serve_reads_until(&ws, &stop, idle)?;
    if ctx.global.json {
        render::json(&serde_json::json!({ "ended": end }))?;
    } else {
        render::status(
            quiet,
            match end {
                op::ServeEnd::Stopped => "stopped\n",
                op::ServeEnd::Idle => "stopped: no read asked for the idle time\n",
                op::ServeEnd::Gone => "stopped: the workspace is gone\n",
                op::ServeEnd::Taken => "another watcher serves this workspace\n",
                op::ServeEnd::Unservable => {
                    "stopped: this workspace cannot be served (a store folder, or a folder above \
                     one, is a symbolic link)\n"
                }
            },
        );
    }
    Ok(Exit::Ok)
}
