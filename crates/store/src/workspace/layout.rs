//! Every path a workspace has, relative to its root and written with `/` (as git writes them).
//! Code elsewhere names paths only through these constants and functions.

use std::path::Path;

/// Core memory, always in the agent's context.
pub const MEMORY_MD: &str = "MEMORY.md";
/// The agent's identity (critical).
pub const IDENTITY_MD: &str = "IDENTITY.md";
/// The agent's values (critical).
pub const SOUL_MD: &str = "SOUL.md";
/// The memory folder.
pub(crate) const MEMORY_DIR: &str = "memory";
/// Daily episode logs.
pub const EPISODES_DIR: &str = "memory/episodes";
/// Entity files.
pub const ENTITIES_DIR: &str = "memory/graph/entities";
/// Entity registry and edge table.
pub const GRAPH_INDEX: &str = "memory/graph/index.md";
/// Relation vocabulary.
pub const RELATIONS: &str = "memory/graph/relations.md";
/// Procedures.
pub const PROCEDURES_DIR: &str = "memory/procedures";
/// Pinned notes.
pub const VAULT_DIR: &str = "memory/vault";
/// Decay scores and reflection state.
pub const DECAY_SCORES: &str = "memory/meta/decay-scores.json";
/// The audit trail.
pub const AUDIT_LOG: &str = "memory/meta/audit.log";
/// Sealed parts of the audit log, oldest first by name (`<first line's time>.log`).
pub const AUDIT_SEGMENTS_DIR: &str = "memory/meta/audit";

/// Tells whether a path (relative to the root) is a sealed audit-log segment.
pub fn is_audit_segment(rel: &str) -> bool {
    rel.strip_prefix(AUDIT_SEGMENTS_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .is_some_and(|n| n.ends_with(".log") && !n.contains('/') && n.len() > 4)
}

/// Decay entries of a large workspace, in 64 to 4,096 files by a hash of the entry key
/// (`00.json` … `3f.json`, then … `ff.json`, then `000.json` … `fff.json`; see
/// `store::decay_file`); `decay-scores.json` then keeps the reflection state and token economy.
pub const DECAY_SHARDS_DIR: &str = "memory/meta/decay";

/// Tells whether a path (relative to the root) is a decay file: `decay-scores.json` or one
/// of its entry shards.
pub fn is_decay_file(rel: &str) -> bool {
    crate::store::decay_file::home_of(rel).is_some()
}
/// Monthly digests of audit lines moved out of the log by `cogmem audit compact`.
pub const AUDIT_ARCHIVE: &str = "memory/meta/audit-archive.md";
/// Sub-agents' proposals, waiting for the main agent.
pub const PENDING_MEMORIES: &str = "memory/meta/pending-memories.md";
/// Purge tombstones: hashes of purged text, never the text (`cogmem forget --purge`).
pub const PURGED: &str = "memory/meta/purged";
/// The record of a purge in progress, removed when it ends (holds the text while it runs).
pub const PURGE_RECORD: &str = ".cogmem/purge.json";
/// Derived, git-ignored data.
pub const DERIVED_DIR: &str = ".cogmem";
/// The sources of the day files, kept between imports under their files' stamps (derived).
pub const IMPORT_SOURCES: &str = ".cogmem/import-sources.tsv";
/// The last commit cogmem has seen and settled: every commit made outside cogmem up to it is
/// adopted (`cogmem_ops::adopt`). Derived: without it, adoption looks back to the newest
/// commit cogmem made.
pub const ADOPTED: &str = ".cogmem/adopted";
/// The workspace lock file.
pub const LOCK: &str = ".cogmem/lock";
/// The search index (derived).
pub const INDEX_DIR: &str = ".cogmem/index";
/// Git ignore rules.
pub const GITIGNORE: &str = ".gitignore";
/// Git attributes (union merge).
pub const GITATTRIBUTES: &str = ".gitattributes";

/// Tells whether a folder holds a workspace: `MEMORY.md` and a `memory/` folder.
pub fn is_workspace(dir: &Path) -> bool {
    dir.join(MEMORY_MD).is_file() && dir.join(MEMORY_DIR).is_dir()
}

/// The episode log of a day (`YYYY-MM-DD`).
pub fn episode_file(date: &str) -> String {
    format!("{EPISODES_DIR}/{date}.md")
}

/// The file of an entity id (`type--slug`).
pub fn entity_file(id: &str) -> String {
    format!("{ENTITIES_DIR}/{id}.md")
}

/// The file of a procedure.
pub fn procedure_file(slug: &str) -> String {
    format!("{PROCEDURES_DIR}/{slug}.md")
}

/// The file of a vault note.
pub fn vault_file(slug: &str) -> String {
    format!("{VAULT_DIR}/{slug}.md")
}
