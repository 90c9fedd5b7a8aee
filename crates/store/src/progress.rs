//! Progress of long work (issue 20, part 4): the sink an operation reports to while it counts
//! through files, messages, commits or checks, and the guard that ends the report however the
//! operation ends.
//!
//! The libraries never touch the terminal: an operation only says "N units of this kind to do",
//! "one more done" and "over", through [`Workspace::progress`](crate::Workspace::progress). The
//! program that opened the workspace decides what that looks like (the `cogmem` binary draws an
//! indicatif bar on a terminal; an embedder, the MCP server and the tests get [`Silent`], the
//! default). A report never changes what the operation does, and a sink must be cheap to call
//! once per unit.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Receives the progress of long work, one phase at a time.
///
/// An operation starts a phase with [`Progress::start`], counts units with [`Progress::inc`] and
/// ends it with [`Progress::finish`], all through a [`Task`], which ends the phase also when the
/// operation fails. A phase started while another runs replaces it; calls naming a phase that
/// is no longer the running one are ignored.
pub trait Progress: Send + Sync {
    /// Starts `phase`, of `total` units (`None`: one step whose size is not known, shown
    /// without a count), each a `unit` (a plural noun such as `files` or `messages`, or for a
    /// step what it does, such as `fetching`).
    fn start(&self, phase: Phase, total: Option<u64>, unit: &str);
    /// Counts `n` more units of `phase` done.
    fn inc(&self, phase: Phase, n: u64);
    /// Ends `phase`.
    fn finish(&self, phase: Phase);
}

/// One phase of work, unique in the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase(u64);

impl Phase {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The sink that shows nothing: the default of every workspace.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _phase: Phase, _total: Option<u64>, _unit: &str) {}
    fn inc(&self, _phase: Phase, _n: u64) {}
    fn finish(&self, _phase: Phase) {}
}

/// A shared progress sink, as [`WorkspaceOptions::progress`](crate::workspace::WorkspaceOptions::progress) holds it.
pub type Sink = Arc<dyn Progress>;

/// One running phase: counts units with [`Task::inc`] and ends the phase when dropped, so an
/// operation that returns early with `?` never leaves a bar on the screen.
#[must_use = "the phase ends when the task is dropped"]
pub struct Task<'a> {
    sink: &'a dyn Progress,
    phase: Phase,
}

impl<'a> Task<'a> {
    /// Starts a phase of `total` units (`None`: one step of unknown size) on `sink`.
    pub fn start(sink: &'a dyn Progress, total: Option<u64>, unit: &str) -> Self {
        let phase = Phase::next();
        sink.start(phase, total, unit);
        Self { sink, phase }
    }

    /// Counts one more unit done.
    pub fn inc(&self) {
        self.sink.inc(self.phase, 1);
    }

    /// Counts `n` more units done.
    pub fn add(&self, n: u64) {
        self.sink.inc(self.phase, n);
    }

    /// Counts one unit done and passes `value` through: `findings.extend(task.step(check()))`.
    pub fn step<T>(&self, value: T) -> T {
        self.inc();
        value
    }
}

impl Drop for Task<'_> {
    fn drop(&mut self) {
        self.sink.finish(self.phase);
    }
}

impl std::fmt::Debug for Task<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task").field("phase", &self.phase).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records every call, to check what a [`Task`] sends.
    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn start(&self, _phase: Phase, total: Option<u64>, unit: &str) {
            self.0.lock().unwrap().push(format!("start {total:?} {unit}"));
        }
        fn inc(&self, _phase: Phase, n: u64) {
            self.0.lock().unwrap().push(format!("inc {n}"));
        }
        fn finish(&self, _phase: Phase) {
            self.0.lock().unwrap().push("finish".to_owned());
        }
    }

    #[test]
    fn a_task_finishes_its_phase_when_dropped_even_on_an_early_return() {
        let log = Log::default();
        let work = |fail: bool| -> Result<u64, &'static str> {
            let task = Task::start(&log, Some(3), "files");
            task.inc();
            if fail {
                return Err("stopped");
            }
            let n = task.step(2);
            task.add(n);
            Ok(n)
        };
        assert_eq!(work(true), Err("stopped"));
        assert_eq!(work(false), Ok(2));
        assert_eq!(
            *log.0.lock().unwrap(),
            [
                "start Some(3) files",
                "inc 1",
                "finish",
                "start Some(3) files",
                "inc 1",
                "inc 1",
                "inc 2",
                "finish"
            ]
        );
    }

    #[test]
    fn every_task_has_its_own_phase() {
        let a = Task::start(&Silent, None, "fetching");
        let b = Task::start(&Silent, Some(1), "files");
        assert_ne!(a.phase, b.phase);
    }
}
