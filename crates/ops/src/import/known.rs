//! The sources an import has already seen: every `<!-- source: … -->` of the workspace's days
//! and every message of this input so far, so that a message is written once, however often
//! the file is imported (issue 20).
//!
//! A source is kept as a 128-bit keyed hash, not as its text: a million sources take 16 MB,
//! not the text of a million ids. The keys are random per process (std's `RandomState`), so no
//! input can be made to collide with another on purpose; by chance, two of a million sources
//! collide with a probability near 10⁻²⁷. Only membership is asked, so nothing written depends
//! on the keys.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use cogmem_store::store::{episode, fsx, units};
use cogmem_store::workspace::{Workspace, layout};

/// A set of sources.
pub(super) struct Known {
    keys: (RandomState, RandomState),
    set: HashSet<u128>,
}

impl Known {
    /// The sources of every day file of the workspace. A file that cannot be read is left
    /// out, as listing the workspace's units leaves it out.
    pub(super) fn of_workspace(ws: &Workspace) -> Self {
        let mut out = Self { keys: (RandomState::new(), RandomState::new()), set: HashSet::new() };
        let limit = ws.file_limit();
        for rel in units::markdown_files(ws.root(), layout::EPISODES_DIR) {
            let Ok(text) = fsx::read_text(&ws.root().join(&rel), limit) else { continue };
            for source in episode::sources(&text) {
                out.insert(&source);
            }
        }
        out
    }

    fn key(&self, source: &str) -> u128 {
        let hi = self.keys.0.hash_one(source);
        let lo = self.keys.1.hash_one(source);
        (u128::from(hi) << 64) | u128::from(lo)
    }

    /// Adds a source; returns `false` when it was already there.
    pub(super) fn insert(&mut self, source: &str) -> bool {
        let key = self.key(source);
        self.set.insert(key)
    }

    /// Tells whether no source is there.
    pub(super) fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Tells whether a source is there.
    pub(super) fn contains(&self, source: &str) -> bool {
        self.set.contains(&self.key(source))
    }
}
