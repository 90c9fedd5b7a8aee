//! Tells a caller when the workspace changes, without doing anything about it: the live
//! updates of `cogmem serve` (issue 21). The same file watch as [`crate::watch`], with the
//! same filter (hand edits and cogmem's writes to memory files; not `.cogmem/` or editors'
//! swap files), plus git's HEAD moving (a commit, a checkout, a pull), so a commit of files
//! that had already changed is told too. Unlike `cogmem watch` it never syncs or commits.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::watch::is_relevant;
use cogmem_store::store::fsx::IoError;
use cogmem_store::workspace::Workspace;

/// How often the loop looks at `stop` while nothing happens.
const TICK: Duration = Duration::from_millis(100);

/// The longest a stream of changes is held back before it is told anyway.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// Whether git's own files show HEAD moving: the HEAD reflog or a branch ref.
fn is_head_move(rel: &str) -> bool {
    rel == ".git/HEAD" || rel == ".git/logs/HEAD" || rel.starts_with(".git/refs/heads/")
}

/// The paths of an event that matter, relative to the root (`.git/…` ones reported as
/// `.git`); `None` when it does not matter. An event that may hide anything (a lost event, a
/// rescan) reports no path: anything may have changed.
fn changed(root: &Path, event: &notify::Result<notify::Event>) -> Option<Vec<String>> {
    let Ok(event) = event else { return Some(Vec::new()) };
    if event.need_rescan() {
        return Some(Vec::new());
    }
    let rels: Vec<String> = event
        .paths
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(|r| r.to_string_lossy().replace('\\', "/"))
        .collect();
    if is_relevant(root, event) {
        return Some(rels.into_iter().filter(|r| !crate::sync::is_ignored(r)).collect());
    }
    let moved =
        !matches!(event.kind, notify::EventKind::Access(_)) && rels.iter().any(|r| is_head_move(r));
    moved.then(|| vec![".git".to_owned()])
}

/// Watches the workspace until `stop` is set, calling `on_change` with the changed paths
/// (sorted, relative to the root; empty when anything may have changed) once the workspace has
/// been quiet for `debounce` after a change (or changes went on for two seconds).
///
/// Fails when the watch cannot be set up (e.g. the system's limit of watches is reached).
pub fn observe(
    ws: &Workspace,
    debounce: Duration,
    stop: &AtomicBool,
    on_change: &mut dyn FnMut(&[String]),
) -> crate::Result<()> {
    let root = ws.root().to_owned();
    let watch_error =
        |e: notify::Error| IoError::new(&root, "watch", std::io::Error::other(e.to_string()));
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })
    .map_err(watch_error)?;
    watcher.watch(&root, RecursiveMode::Recursive).map_err(watch_error)?;
    let mut pending: BTreeSet<String> = BTreeSet::new();
    let mut everything = false;
    // When the first untold change was seen, and the last one.
    let mut dirty: Option<(Instant, Instant)> = None;
    while !stop.load(Ordering::SeqCst) {
        let wait = match dirty {
            Some((_, last)) => debounce.saturating_sub(last.elapsed()).min(TICK),
            None => TICK,
        };
        match rx.recv_timeout(wait) {
            Ok(event) => {
                if let Some(paths) = changed(&root, &event) {
                    everything |= paths.is_empty();
                    pending.extend(paths);
                    let now = Instant::now();
                    dirty = Some((dirty.map_or(now, |(first, _)| first), now));
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let due = dirty
            .is_some_and(|(first, last)| last.elapsed() >= debounce || first.elapsed() >= MAX_WAIT);
        if due {
            let paths: Vec<String> = if everything {
                Vec::new()
            } else {
                std::mem::take(&mut pending).into_iter().collect()
            };
            pending.clear();
            everything = false;
            dirty = None;
            on_change(&paths);
        }
    }
    drop(watcher);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, DataChange, ModifyKind};

    #[test]
    fn what_is_told() {
        let root = Path::new("/ws");
        let ev = |kind, p: &str| Ok(notify::Event::new(kind).add_path(root.join(p)));
        let modify = notify::EventKind::Modify(ModifyKind::Data(DataChange::Any));
        assert_eq!(
            changed(root, &ev(modify, "memory/vault/a.md")),
            Some(vec!["memory/vault/a.md".into()])
        );
        assert_eq!(changed(root, &ev(modify, ".git/logs/HEAD")), Some(vec![".git".into()]));
        assert_eq!(
            changed(root, &ev(notify::EventKind::Create(CreateKind::File), ".git/refs/heads/main")),
            Some(vec![".git".into()])
        );
        // git's objects and index, cogmem's derived files, editors' swap files: nothing.
        for p in [".git/objects/ab/cd", ".git/index", ".cogmem/index/meta.json", "memory/.a.md.swp"]
        {
            assert_eq!(changed(root, &ev(modify, p)), None, "{p}");
        }
        // A lost event: anything may have changed.
        assert_eq!(changed(root, &Err(notify::Error::generic("overflow"))), Some(vec![]));
    }
}
