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
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use serde::Serialize;

use crate::error::{Error, RuleError};
use crate::sync::{self, SyncOptions, SyncReport};
use cogmem_index::index::freshness::{self, Line, Server};
use cogmem_store::store::fsx::IoError;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::Clock;

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
pub(crate) fn is_relevant(root: &Path, event: &notify::Event) -> bool {
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

/// What an event means for the reads the watcher serves ([`freshness`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Note {
    /// A memory file was touched.
    Path(String),
    /// Another file of the working tree was touched (what `status` walks).
    Other,
    /// A reader's cookie appeared.
    Cookie(String),
    /// Anything may have changed (a lost event, a path outside the workspace).
    All,
    /// A store folder, a folder above one, or the root itself was created, moved or removed,
    /// or any other folder of the working tree appeared: the watch itself may have gone stale
    /// (or not reach into the new folder yet) and is set up again.
    Structural,
}

/// Tells what an event means for freshness: which memory files it touched, the cookies it
/// shows, or that anything may have changed.
fn notes(root: &Path, event: &notify::Result<notify::Event>) -> Vec<Note> {
    let Ok(event) = event else { return vec![Note::All] };
    if event.need_rescan() {
        return vec![Note::All];
    }
    // Opening or reading a file changes nothing; closing it after writing may.
    let access = matches!(event.kind, EventKind::Access(_))
        && !matches!(event.kind, EventKind::Access(AccessKind::Close(AccessMode::Write)));
    if event.paths.is_empty() {
        return if access { Vec::new() } else { vec![Note::All] };
    }
    event
        .paths
        .iter()
        .filter_map(|p| {
            let Ok(rel) = p.strip_prefix(root) else { return Some(Note::All) };
            // A name that is not UTF-8 is never a memory file (the index skips it too).
            let rel = rel.to_str()?.replace('\\', "/");
            if let Some(name) = freshness::cookie_name(&rel) {
                return matches!(event.kind, EventKind::Create(_))
                    .then(|| Note::Cookie(name.to_owned()));
            }
            if access {
                None
            } else if rel.is_empty() || freshness::is_store_folder_or_above(&rel) {
                Some(Note::Structural)
            } else if freshness::is_named(&rel) {
                Some(Note::Path(rel))
            } else if !in_working_tree(&rel) {
                None
            } else if appeared_folder(&event.kind, p) {
                // notify watches a new folder only after handing out the events read with
                // its creation (a cookie among them): files made in it meanwhile would go
                // unseen. A new watch, set up before the next cookie is answered, sees them.
                Some(Note::Structural)
            } else {
                Some(Note::Other)
            }
        })
        .collect()
}

/// Whether `rel` is in what `status` walks: not under `.git/` (at any depth) nor `.cogmem/`.
fn in_working_tree(rel: &str) -> bool {
    let derived = cogmem_store::workspace::layout::DERIVED_DIR;
    let in_derived =
        rel == derived || rel.strip_prefix(derived).is_some_and(|r| r.starts_with('/'));
    !in_derived && !rel.split('/').any(|part| part == ".git")
}

/// Whether the event made a folder appear at `path` (created, or moved in).
fn appeared_folder(kind: &EventKind, path: &Path) -> bool {
    use notify::event::{CreateKind, ModifyKind};
    match kind {
        EventKind::Create(CreateKind::Folder) => true,
        EventKind::Create(CreateKind::File) => false,
        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_)) => {
            std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
        }
        _ => false,
    }
}

/// Records an event's notes; returns whether the watch must be set up again.
fn serve(server: &Mutex<Server>, notes: &[Note]) -> bool {
    let Ok(mut s) = server.lock() else { return false };
    let mut structural = false;
    for note in notes {
        match note {
            Note::Path(p) => s.record(&[Line::Path(p)]),
            Note::Other => s.record(&[Line::Other]),
            Note::Cookie(name) => s.record(&[Line::Cookie(name)]),
            Note::All => s.record(&[Line::All]),
            Note::Structural => structural = true,
        }
    }
    if structural {
        s.pause();
    }
    structural
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
    let (tx, rx) = mpsc::channel();
    // Freshness for reads is served from the event thread, as each event arrives, so a sync
    // that takes a while does not hold up the searches meanwhile.
    let server = Server::start(ws)?.map(|s| Arc::new(Mutex::new(s)));
    let rewatch = Arc::new(AtomicBool::new(false));
    let mut watcher = watch_serving(&root, server.as_ref(), &rewatch, Some(tx))?;
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
        rewatch_if_stale(&mut watcher, &root, server.as_ref(), &rewatch);
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
    if let Some(server) = &server
        && let Ok(mut s) = server.lock()
    {
        s.stop();
    }
    Ok(())
}

/// Watches `root` recursively, serving each event's notes to `server` (if this process holds
/// the watch lock) from notify's event thread and forwarding the event to `forward`; then
/// begins serving. A note that the watch may have gone stale sets `rewatch`.
fn watch_serving(
    root: &Path,
    server: Option<&Arc<Mutex<Server>>>,
    rewatch: &Arc<AtomicBool>,
    forward: Option<mpsc::Sender<notify::Result<notify::Event>>>,
) -> crate::Result<notify::RecommendedWatcher> {
    let watch_error =
        |e: notify::Error| IoError::new(root, "watch", std::io::Error::other(e.to_string()));
    let handler = {
        let server = server.cloned();
        let rewatch = Arc::clone(rewatch);
        let root = root.to_owned();
        move |event: notify::Result<notify::Event>| {
            if let Some(server) = &server
                && serve(server, &notes(&root, &event))
            {
                rewatch.store(true, Ordering::SeqCst);
            }
            if let Some(tx) = &forward {
                let _ = tx.send(event);
            }
        }
    };
    let mut watcher = notify::recommended_watcher(handler).map_err(watch_error)?;
    watcher.watch(root, RecursiveMode::Recursive).map_err(watch_error)?;
    if let Some(server) = server
        && let Ok(mut s) = server.lock()
    {
        s.begin()?;
    }
    Ok(watcher)
}

/// A folder that holds memory files was created, moved or removed (`rewatch` set): watches the
/// workspace anew, then serves again after a `*` (left unserved if that fails).
fn rewatch_if_stale(
    watcher: &mut notify::RecommendedWatcher,
    root: &Path,
    server: Option<&Arc<Mutex<Server>>>,
    rewatch: &AtomicBool,
) {
    if rewatch.swap(false, Ordering::SeqCst)
        && let Some(server) = server
    {
        let _ = watcher.unwatch(root);
        if watcher.watch(root, RecursiveMode::Recursive).is_ok()
            && let Ok(mut s) = server.lock()
        {
            s.resume();
        }
    }
}

/// Serves the workspace's reads as `cogmem watch` does (they ask it which files changed instead
/// of stat-ing every memory file), without syncing anything, until the returned handle is
/// dropped: for a long-running process whose every read would otherwise stat every file
/// (`cogmem mcp`). Set up on a thread of its own, so the caller does not wait for the watch
/// lock. While another watcher holds the lock (a `cogmem watch`, another server), that one
/// serves, and this one tries again every 10 s (`RETAKE`), so serving passes to it when the other
/// ends; when the watch cannot be set up, nothing is served and reads stat every file, as
/// without it.
pub fn serve_reads(ws: &Workspace) -> ReadServer {
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let stop = Arc::clone(&stop);
        let ws = ws.clone();
        std::thread::Builder::new()
            .name("cogmem-freshness".to_owned())
            .spawn(move || {
                while let Ok(ServeEnd::Taken) = serve_reads_until(&ws, &stop, None) {
                    if !sleep_unless(&stop, RETAKE) {
                        return;
                    }
                }
            })
            .ok()
    };
    ReadServer { stop, thread }
}

/// Why [`serve_reads_until`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServeEnd {
    /// `stop` was set.
    Stopped,
    /// No read asked for the idle time given.
    Idle,
    /// The workspace went (its `.cogmem/` folder is no more).
    Gone,
    /// Another watcher holds the watch lock: it serves, and this call served nothing.
    Taken,
    /// The workspace cannot be served: a store folder (or a folder above one) is a symbolic
    /// link, or a line of the watcher's log could not be written.
    Unservable,
}

/// How long after a read server could not serve a workspace ([`ServeEnd::Unservable`], or its
/// watch could not be set up) the hooks start none again.
pub const UNSERVABLE_PAUSE: Duration = Duration::from_secs(3600);

/// Whether a hook should start a read server for the workspace now: none serves it, and none
/// found it unservable in the last [`UNSERVABLE_PAUSE`] (a workspace that cannot be watched is not
/// tried again on every prompt).
pub fn read_server_wanted(ws: &Workspace) -> bool {
    if freshness::serving(ws) {
        return false;
    }
    let marked = std::fs::symlink_metadata(ws.abs(freshness::UNSERVABLE))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok());
    marked.is_none_or(|age| age >= UNSERVABLE_PAUSE)
}

/// Records that a read server could not serve the workspace (best effort: derived state).
fn mark_unservable(ws: &Workspace) {
    let _ = cogmem_store::store::fsx::write_derived(&ws.abs(freshness::UNSERVABLE), b"", false);
}

/// Serves the workspace's reads in this thread, as [`serve_reads`] does, without syncing:
/// until `stop` is set, the workspace's `.cogmem/` folder goes, it cannot serve the workspace
/// ([`ServeEnd::Unservable`], recorded for [`read_server_wanted`]), or, with `idle`, no read has
/// asked for that long (`cogmem watch --serve-only --idle-exit`, which the hooks start for an
/// agent's session). Returns at once with [`ServeEnd::Taken`] when another watcher serves
/// (after waiting up to 2 s for its lock); fails when the watch cannot be set up.
pub fn serve_reads_until(
    ws: &Workspace,
    stop: &AtomicBool,
    idle: Option<Duration>,
) -> crate::Result<ServeEnd> {
    let Some(server) = Server::start(ws)? else { return Ok(ServeEnd::Taken) };
    // Dropped on the way out, whichever: that stops the service (the state file goes).
    let server = Arc::new(Mutex::new(server));
    let rewatch = Arc::new(AtomicBool::new(false));
    let root = ws.root().to_owned();
    let mut watcher = match watch_serving(&root, Some(&server), &rewatch, None) {
        Ok(w) => w,
        Err(e) => {
            mark_unservable(ws);
            return Err(e);
        }
    };
    let stopped = || server.lock().is_ok_and(|s| s.is_stopped());
    if !stopped() {
        let _ = cogmem_store::store::fsx::remove_file(&ws.abs(freshness::UNSERVABLE));
        // The search index's manifest records the last watcher it trusted: the first read after
        // this one begins would find another generation and stat every file. Brought up to date
        // here, as that read would (asking this watcher), so the first read is served too; and
        // `status`'s own record likewise, by a status whose answer is kept.
        cogmem_index::index::update_after_change(ws);
        let _ = crate::status::status(ws, 0);
    }
    let state_dir = ws.abs(cogmem_store::workspace::layout::DERIVED_DIR);
    let end = loop {
        if stop.load(Ordering::SeqCst) {
            break ServeEnd::Stopped;
        }
        if stopped() {
            mark_unservable(ws);
            break ServeEnd::Unservable;
        }
        if !state_dir.is_dir() {
            break ServeEnd::Gone;
        }
        if idle.is_some_and(|idle| server.lock().is_ok_and(|s| s.unasked_for() >= idle)) {
            break ServeEnd::Idle;
        }
        rewatch_if_stale(&mut watcher, &root, Some(&server), &rewatch);
        std::thread::sleep(TICK);
    };
    drop(watcher);
    if let Ok(mut s) = server.lock() {
        s.stop();
    }
    Ok(end)
}

/// How long [`serve_reads`] waits before trying again for the watch lock another watcher holds.
const RETAKE: Duration = Duration::from_secs(10);

/// Sleeps `wait` in [`TICK`]s; `false` as soon as `stop` is set.
fn sleep_unless(stop: &AtomicBool, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(TICK);
    }
    !stop.load(Ordering::SeqCst)
}

/// What [`serve_reads`] returns: dropping it stops serving (and waits for the watch to end).
#[derive(Debug)]
pub struct ReadServer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ReadServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_told_for_freshness() {
        use notify::event::{CreateKind, ModifyKind, RemoveKind};
        let root = Path::new("/ws");
        let ev = |kind: EventKind, paths: &[&str]| {
            let mut e = notify::Event::new(kind);
            for p in paths {
                e = e.add_path(root.join(p));
            }
            Ok(e)
        };
        let modify = EventKind::Modify(ModifyKind::Any);
        let path = |p: &str| Note::Path(p.to_owned());
        assert_eq!(notes(root, &ev(modify, &["memory/vault/a.md"])), [path("memory/vault/a.md")]);
        assert_eq!(notes(root, &ev(modify, &["MEMORY.md"])), [path("MEMORY.md")]);
        // Decay files by name: a search looks at those only (issue 20).
        for p in [
            "memory/meta/decay-scores.json",
            "memory/meta/decay/0a.json",
            "memory/meta/decay/3ff.json",
        ] {
            assert_eq!(notes(root, &ev(modify, &[p])), [path(p)], "{p}");
        }
        assert_eq!(notes(root, &ev(modify, &["memory/meta/decay/notes.json"])), [Note::Other]);
        // Not read by the index, but walked by `status`: one `~`.
        for p in ["memory/vault/sub/a.md", "memory/meta/audit.log", "notes.txt", ".gitignore"] {
            assert_eq!(notes(root, &ev(modify, &[p])), [Note::Other], "{p}");
        }
        // Neither: nothing.
        for p in [".git/index", "sub/.git/HEAD", ".cogmem", ".cogmem/index/meta.json"] {
            assert_eq!(notes(root, &ev(modify, &[p])), [], "{p}");
        }
        // A new folder anywhere in the working tree: the watch is set up again.
        let folder = EventKind::Create(CreateKind::Folder);
        assert_eq!(notes(root, &ev(folder, &["notes/2027"])), [Note::Structural]);
        assert_eq!(notes(root, &ev(folder, &[".git/objects/ab"])), []);
        // Opening or reading is no change; closing after a write may be.
        let open = EventKind::Access(AccessKind::Open(notify::event::AccessMode::Any));
        assert_eq!(notes(root, &ev(open, &["memory/vault/a.md"])), []);
        let closed = EventKind::Access(AccessKind::Close(AccessMode::Write));
        assert_eq!(notes(root, &ev(closed, &["memory/vault/a.md"])), [path("memory/vault/a.md")]);
        // A rename names both files (the temporary one is no memory file, but in the tree).
        let both = EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::Both));
        assert_eq!(
            notes(root, &ev(both, &["memory/vault/.a.md.tmp", "memory/vault/a.md"])),
            [Note::Other, path("memory/vault/a.md")]
        );
        // Cookies: only their creation.
        let create = EventKind::Create(CreateKind::File);
        let cookie = ".cogmem/watch/cookies/1-2-3";
        assert_eq!(notes(root, &ev(create, &[cookie])), [Note::Cookie("1-2-3".into())]);
        assert_eq!(notes(root, &ev(EventKind::Remove(RemoveKind::File), &[cookie])), []);
        // Folders that hold memory files, the root, lost events, paths elsewhere.
        for p in ["memory/vault", "memory/graph", "memory", ""] {
            assert_eq!(notes(root, &ev(create, &[p])), [Note::Structural], "{p:?}");
        }
        let mut rescan = notify::Event::new(EventKind::Other);
        rescan = rescan.set_flag(notify::event::Flag::Rescan);
        assert_eq!(notes(root, &Ok(rescan)), [Note::All]);
        assert_eq!(notes(root, &Err(notify::Error::generic("overflow"))), [Note::All]);
        assert_eq!(notes(root, &ev(modify, &[])), [Note::All]);
        let outside = Ok(notify::Event::new(modify).add_path("/elsewhere/a.md".into()));
        assert_eq!(notes(root, &outside), [Note::All]);
    }

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
