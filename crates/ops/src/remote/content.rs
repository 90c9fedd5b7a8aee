//! Content-aware three-way merges of the workspace's own file formats, used by
//! `sync --remote` when both machines changed the same file.
//!
//! Each format's merge lives with its owner, beside the parser and writer it must agree with;
//! this module only names them for `remote::merge`, which picks one per path:
//!
//! | file                            | owner                                           |
//! |---------------------------------|-------------------------------------------------|
//! | `episodes/*.md`                 | [`cogmem_store::store::episode::merge3`]        |
//! | `meta/audit.log`                | [`cogmem_store::audit::merge3`]                 |
//! | `pending-memories.md`           | [`cogmem_store::store::pending::merge3`]        |
//! | MEMORY.md, entity files         | [`cogmem_text::merge::merge_sections`]          |
//! | `decay-scores.json` and shards  | [`cogmem_store::store::decay_file::merge3`]     |
//! | `meta/purged` (tombstones)      | [`cogmem_store::store::purged::merge3`]         |
//!
//! Every merge takes the common ancestor's text (`None` when the file did not exist there)
//! and both sides' texts, and returns the merged text or, as `Err`, why the two sides cannot be
//! combined without a person. None of them drops a line, entry or bullet that either side
//! added; something either side removed on purpose stays removed. Pure functions: no I/O.

pub use cogmem_store::audit::merge3 as merge_audit;
pub use cogmem_store::store::decay_file::{DecayRenames, merge3 as merge_decay};
pub use cogmem_store::store::episode::{EpisodeMerge, Rename, merge3 as merge_episode};
pub use cogmem_store::store::pending::merge3 as merge_pending;
pub use cogmem_store::store::purged::merge3 as merge_tombstones;
pub use cogmem_text::merge::{Unmergeable, merge_sections};
