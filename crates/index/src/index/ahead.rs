//! A read of the index answered while the refresh before it stats the files (issue 20).
//!
//! Without a watcher, a refresh stats every memory file before it knows whether anything
//! changed: at 100,000 memories about ten milliseconds of kernel time on two threads, and the
//! read (a search's query, hits and neighbours: about as long again) waited for it. Nearly
//! always nothing changed. So the stats run on threads of their own while the calling thread
//! reads the index as it stands, and the refresh keeps the answer when it changed nothing the
//! read looks at: no document, no decay cache, no graph cache. Otherwise the answer is dropped
//! and the caller reads the refreshed index; the answer is the same either way, only sooner.
//!
//! The read stays on the calling thread (its heap and its per-thread analyzers are warm there;
//! run on a new thread instead, the same search gained about a millisecond less), and only the
//! stats, which allocate nothing per file, move.
//!
//! Invariant: a kept answer was read from exactly the documents, decay caches and graph caches
//! the refresh returns with.

use std::any::Any;

use super::Index;

/// A read to answer ahead: it gets the index as it stands and answers anything. It runs on
/// the caller's thread, so it may borrow what the caller holds.
pub(crate) type Read<'a> = Box<dyn FnOnce(&Index) -> Box<dyn Any> + 'a>;

/// The read, while it waits or once it has answered.
#[derive(Default)]
pub(crate) struct Ahead<'a> {
    read: Option<Read<'a>>,
    /// The index read and the answer, until the refresh keeps or drops them.
    answered: Option<(Index, Box<dyn Any>)>,
    /// The answer, once the refresh kept it.
    kept: Option<Box<dyn Any>>,
}

impl<'a> Ahead<'a> {
    /// A read to answer when the refresh stats every file.
    pub(crate) fn new(read: Read<'a>) -> Self {
        Self { read: Some(read), answered: None, kept: None }
    }

    /// Whether there is a read that has not run.
    pub(crate) fn waiting(&self) -> bool {
        self.read.is_some()
    }

    /// Runs the read on `index`, here and now.
    pub(crate) fn run(&mut self, index: Index) {
        if let Some(read) = self.read.take() {
            let answer = read(&index);
            self.answered = Some((index, answer));
        }
    }

    /// Drops the read and any answer (the refresh changed what it read).
    pub(crate) fn drop_answer(&mut self) {
        self.read = None;
        self.answered = None;
    }

    /// Keeps the answer, if the read ran; the index it read, to be returned in place of a new
    /// reader of the same documents.
    pub(crate) fn keep_answer(&mut self) -> Option<Index> {
        let (index, answer) = self.answered.take()?;
        self.kept = Some(answer);
        Some(index)
    }

    /// The kept answer, if it is an `R`.
    pub(crate) fn take_answer<R: 'static>(&mut self) -> Option<R> {
        self.kept.take()?.downcast::<R>().ok().map(|r| *r)
    }
}
