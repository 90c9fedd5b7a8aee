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
  cogmem watch --actor skill:notes";

/// Commit hand edits continuously, as `cogmem sync` does, while files change
///
/// Watches the whole workspace (recursively, so editors that save by writing a temporary file
/// and renaming it over the original are seen too). After each change it waits until the
/// workspace has been quiet for `--debounce` (default 2 s), then syncs: one commit for what was
/// edited, malformed files left with a warning. Changes under `.git/` and `.cogmem/`, and
/// editor swap and backup files (`*.swp`, `*~`, `4913`), are ignored. It syncs once at start.
///
/// Prints one line per commit on stdout (with `--json`, one JSON sync report per line) and one
/// warning per file left on stderr. A failed sync (e.g. the lock was busy) is reported and
/// tried again after a growing wait. Ctrl-C or SIGTERM stops it cleanly: a sync that has
/// started finishes first, so no commit is left half made. Exits 0 when stopped.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct WatchArgs {
    /// Quiet time after a change before syncing: `500ms`, `2s`, `1m` (a bare number is seconds)
    #[arg(long, default_value = "2s", value_name = "TIME")]
    debounce: String,
}

pub fn run(ctx: &Ctx, args: &WatchArgs) -> cogmem::Result<Exit> {
    let ws = ctx.resident_workspace()?;
    let clock = ctx.clock()?;
    let debounce = op::parse_duration(&args.debounce).ok_or_else(|| InputError::Unknown {
        what: "debounce time",
        value: args.debounce.clone(),
        expected: "a time like `500ms`, `2s` or `1m`".into(),
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| IoError::new("<signals>", "listen for", e))?;
    }
    let opts = WatchOptions {
        debounce,
        sync: SyncOptions { actor: ctx.actor()?, force: false, dry_run: false },
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
