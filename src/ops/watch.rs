//! `cogmem watch`: run [`sync`] whenever the workspace has been quiet for a
//! while after a change.
//!
//! The whole workspace is watched recursively (not single files), so an editor's
//! rename-and-replace save is seen like any other write. Events under `.git/` and `.cogmem/`, and
//! editors' swap and backup files, are ignored. The loop stops when `stop` becomes true (the CLI
//! sets it from Ctrl-C and SIGTERM); a sync that has started always finishes first, so a stop
//! never leaves half a commit. The library never prints: what happens is reported through the
//! caller's callback.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::clock::Clock;
use crate::error::{Error, RuleError};
use crate::ops::sync::{self, SyncOptions, SyncReport};
use crate::store::fsx::IoError;
use crate::workspace::Workspace;

/// How often the loop looks at `stop` while nothing happens.
const TICK: Duration = Duration::from_millis(100);

/// The longest the workspace may keep changing before a sync runs anyway (at least ten
/// debounce periods), so a file written to without pause is still committed now and then.
const MAX_WAIT: Duration = Duration::from_secs(30);

/// The longest wait before retrying a sync that failed (the wait doubles from the debounce).
const MAX_RETRY: Duration = Duration::from_secs(60);

/// How to watch.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// How long the workspace must be quiet after a change before a sync runs.
    pub debounce: Duration,
    /// The sync to run (a dry run is not allowed here and is ignored).
    pub sync: SyncOptions,
}

/// What the watcher reports to its caller.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// The watch is set up; edits from now on are seen.
    Ready,
    /// A sync ran and committed something, or left files it had not left the time before.
    Synced(&'a SyncReport),
    /// A sync failed; the watcher goes on.
    Failed(&'a Error),
}

/// Parses a `--debounce` value: `500ms`, `2s`, `1m`, or a number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let n: f64 = t[..digits].parse().ok()?;
    let ms = match &t[digits..] {
        "ms" => n,
        "" | "s" => n * 1000.0,
        "m" => n * 60_000.0,
        _ => return None,
    };
    (ms.is_finite() && (0.0..=86_400_000.0).contains(&ms)).then(|| Duration::from_millis(ms as u64))
}

/// Tells whether an event can be a hand edit worth syncing.
fn is_relevant(root: &Path, event: &notify::Event) -> bool {
    if event.need_rescan() {
        return true;
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return false;
    }
    event.paths.iter().any(|p| {
        let rel = p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
        !rel.is_empty() && !sync::is_ignored(&rel)
    })
}

/// Watches the workspace until `stop` is set, syncing after each quiet period.
///
/// Runs one sync at the start, so edits made before the watch began are committed too. A sync
/// that fails (e.g. the lock was not free in time) is reported and tried again after a growing
/// wait. Fails when the actor is a sub-agent, or when the watch cannot be set up (e.g. the
/// system's limit of watches is reached).
pub fn watch(
    ws: &Workspace,
    opts: &WatchOptions,
    clock: &dyn Clock,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(WatchEvent<'_>),
) -> crate::Result<()> {
    if opts.sync.actor.is_subagent() {
        return Err(RuleError::SubagentWrite { actor: opts.sync.actor.to_string() }.into());
    }
    let root = ws.root().to_owned();
    let watch_error =
        |e: notify::Error| IoError::new(&root, "watch", std::io::Error::other(e.to_string()));
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx).map_err(watch_error)?;
    watcher.watch(&root, RecursiveMode::Recursive).map_err(watch_error)?;
    let sync_opts = SyncOptions { dry_run: false, ..opts.sync.clone() };
    // What the last sync left, so a file that stays malformed is reported once, not after
    // every later event (our own commits included).
    let mut last_left: Vec<(String, Option<usize>, String)> = Vec::new();
    // Returns whether the sync ran to the end (files left included).
    let mut run_sync =
        |on_event: &mut dyn FnMut(WatchEvent<'_>)| match sync::sync(ws, &sync_opts, clock) {
            Ok(report) => {
                let left: Vec<(String, Option<usize>, String)> = report
                    .left
                    .iter()
                    .map(|l| (l.path.clone(), l.line, l.problem.clone()))
                    .collect();
                if report.commit.is_some() || !left.is_empty() && left != last_left {
                    on_event(WatchEvent::Synced(&report));
                }
                last_left = left;
                true
            }
            Err(e) => {
                on_event(WatchEvent::Failed(&e));
                false
            }
        };
    let max_wait = (opts.debounce * 10).max(MAX_WAIT);
    let first_retry = opts.debounce.max(Duration::from_secs(1));
    let mut retry = first_retry;
    // When the first unsynced change was seen, and the last one.
    let mut dirty: Option<(Instant, Instant)> = None;
    let mark = |dirty: &mut Option<(Instant, Instant)>| {
        let now = Instant::now();
        *dirty = Some((dirty.map_or(now, |(first, _)| first), now));
    };
    if !run_sync(on_event) {
        mark(&mut dirty);
    }
    on_event(WatchEvent::Ready);
    while !stop.load(Ordering::SeqCst) {
        let wait = match dirty {
            Some((_, last)) => opts.debounce.saturating_sub(last.elapsed()).min(TICK),
            None => TICK,
        };
        match rx.recv_timeout(wait) {
            Ok(Ok(event)) => {
                if is_relevant(&root, &event) {
                    mark(&mut dirty);
                }
            }
            // A lost event (e.g. a queue overflow) may hide an edit: sync to be sure.
            Ok(Err(_)) => mark(&mut dirty),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let due = dirty.is_some_and(|(first, last)| {
            last.elapsed() >= opts.debounce || first.elapsed() >= max_wait
        });
        if due && !stop.load(Ordering::SeqCst) {
            if run_sync(on_event) {
                dirty = None;
                retry = first_retry;
            } else {
                // Try again later: a new quiet period that ends `retry` from now.
                let later = Instant::now() + retry.saturating_sub(opts.debounce);
                dirty = Some((later, later));
                retry = (retry * 2).min(MAX_RETRY);
            }
        }
    }
    drop(watcher);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_forms() {
        let cases = [
            ("2s", Some(2000)),
            ("500ms", Some(500)),
            ("1.5", Some(1500)),
            ("1m", Some(60_000)),
            ("0", Some(0)),
            ("fast", None),
            ("2h", None),
            ("", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_duration(input).map(|d| d.as_millis() as u64),
                want,
                "input: {input:?}"
            );
        }
    }
}
