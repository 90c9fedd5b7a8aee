//! The three-way merge of two workspace trees, computed entirely in memory: which files come
//! from the other machine as they are, which are combined by content ([`super::content`]), which
//! go through git's line merge, and which cannot be merged. Nothing here writes to the working
//! tree, the index or a reference, so a merge with conflicts leaves no trace.

use std::collections::{BTreeMap, BTreeSet};

use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use serde::Serialize;

use super::content::{self, DecayRenames};
use cogmem_store::git::GitError;
use cogmem_store::settings::DecaySettings;
use cogmem_store::store::decay_file::{self, DecayFile, NewUnit};
use cogmem_store::store::{Store, units};
use cogmem_store::workspace::layout;

/// How a file of the merge result was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Only the other machine changed it: taken as it is.
    Theirs,
    /// Append-only file changed on both sides: union of entries or lines.
    Union,
    /// MEMORY.md, an entity file, decay-scores.json or the proposals: combined by content.
    Content,
    /// Any other file changed on both sides: git's line-based three-way merge.
    Text,
    /// Deleted on one side and changed on the other: the changed copy is kept, with the decay
    /// entries of its memories.
    KeptChanged,
    /// Derived from other files (graph/index.md): rebuilt after the merge.
    Regenerated,
}

impl Strategy {
    /// Returns the name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Theirs => "theirs",
            Self::Union => "union",
            Self::Content => "content",
            Self::Text => "text",
            Self::KeptChanged => "kept-changed",
            Self::Regenerated => "regenerated",
        }
    }
}

/// A file the merge changed relative to our side.
#[derive(Debug, Clone, Serialize)]
pub struct MergedFile {
    /// Path relative to the workspace root.
    pub path: String,
    /// How it was merged.
    pub strategy: Strategy,
}

/// A file that cannot be merged without a person.
#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    /// Path relative to the workspace root.
    pub path: String,
    /// What clashes.
    pub reason: String,
    /// What to do about it.
    pub hint: String,
}

/// The outcome of merging two trees: new contents for the files that differ from ours, or the
/// conflicts that stop the merge.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// New content per path (`None` deletes it), only where it differs from ours.
    pub updates: BTreeMap<String, (Option<Vec<u8>>, i32)>,
    /// How each updated (or combined) file was merged.
    pub files: Vec<MergedFile>,
    /// Files that could not be merged.
    pub conflicts: Vec<Conflict>,
    /// Proposals of the other machine renumbered because ours used the number: (from, to).
    pub renumbered: Vec<(u32, u32)>,
}

type Entry = (Oid, i32);

fn blobs(tree: Option<&Tree<'_>>) -> crate::Result<BTreeMap<String, Entry>> {
    let mut out = BTreeMap::new();
    let Some(tree) = tree else { return Ok(out) };
    tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(ObjectType::Blob)
            && let Ok(name) = entry.name()
        {
            out.insert(format!("{dir}{name}"), (entry.id(), entry.filemode()));
        }
        TreeWalkResult::Ok
    })
    .map_err(|cause| GitError::Op { what: "read a tree", cause })?;
    Ok(out)
}

fn read(repo: &Repository, e: Option<&Entry>) -> crate::Result<Option<Vec<u8>>> {
    let Some((id, _)) = e else { return Ok(None) };
    let blob = repo.find_blob(*id).map_err(|cause| GitError::Op { what: "read a file", cause })?;
    Ok(Some(blob.content().to_vec()))
}

/// The kind of file, which decides how both sides' changes are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    // Episodes first: their merge decides which ids moved, which the decay merge needs.
    Episode,
    Audit,
    Tombstones,
    Pending,
    Sections,
    Decay,
    GraphIndex,
    Other,
}

fn kind_of(path: &str) -> Kind {
    let in_dir = |dir: &str| {
        path.strip_prefix(dir)
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(|r| !r.contains('/') && r.ends_with(".md"))
    };
    if in_dir(layout::EPISODES_DIR) {
        Kind::Episode
    } else if path == layout::AUDIT_LOG || layout::is_audit_segment(path) {
        Kind::Audit
    } else if path == layout::PURGED {
        Kind::Tombstones
    } else if path == layout::PENDING_MEMORIES {
        Kind::Pending
    } else if path == layout::MEMORY_MD || in_dir(layout::ENTITIES_DIR) {
        Kind::Sections
    } else if layout::is_decay_file(path) {
        Kind::Decay
    } else if path == layout::GRAPH_INDEX {
        Kind::GraphIndex
    } else {
        Kind::Other
    }
}

fn text(bytes: Option<&[u8]>) -> Option<&str> {
    bytes.and_then(|b| std::str::from_utf8(b).ok())
}

fn hint_for(path: &str, theirs: &str) -> String {
    format!(
        "nothing was changed; combine the two versions of {path} by hand (`git diff HEAD \
         {theirs} -- {path}` shows them), commit, then run `cogmem sync --remote` again"
    )
}

/// Merges `theirs` into `ours` over their common ancestor `base` (`None` for unrelated
/// histories, such as two workspaces made by `cogmem init` on different machines). `label`
/// names their side for people (`origin/main`). Every memory in a file kept whole although one
/// side deleted it keeps its decay entry (`fresh` makes one where no side has it).
pub(crate) fn plan(
    repo: &Repository,
    base: Option<&Tree<'_>>,
    ours: &Tree<'_>,
    theirs: &Tree<'_>,
    label: &str,
    fresh: &Fresh<'_>,
) -> crate::Result<Plan> {
    let (b, o, t) = (blobs(base)?, blobs(Some(ours))?, blobs(Some(theirs))?);
    let mut paths: Vec<&String> =
        o.keys().chain(t.keys()).collect::<BTreeSet<_>>().into_iter().collect();
    paths.sort_by_key(|p| (kind_of(p), p.as_str()));
    let mut plan = Plan::default();
    let mut renames = DecayRenames::default();
    // Files kept whole although one side deleted them, with the side whose copy was kept.
    let mut kept: Vec<(String, &BTreeMap<String, Entry>)> = Vec::new();
    for path in paths {
        let (be, oe, te) = (b.get(path), o.get(path), t.get(path));
        let id = |e: Option<&Entry>| e.map(|x| x.0);
        if id(oe) == id(te) || id(te) == id(be) {
            continue;
        }
        let mode = te.or(oe).map_or(0o100_644, |e| e.1);
        if id(oe) == id(be) {
            plan.updates.insert(path.clone(), (read(repo, te)?, mode));
            plan.files.push(MergedFile { path: path.clone(), strategy: Strategy::Theirs });
            continue;
        }
        let kind = kind_of(path);
        // Deleted on one side, changed on the other.
        if oe.is_none() || te.is_none() {
            if kind == Kind::Other {
                let side = if oe.is_none() { "we deleted it" } else { "they deleted it" };
                plan.conflicts.push(Conflict {
                    path: path.clone(),
                    reason: format!("{side}, and the other side changed it"),
                    hint: hint_for(path, label),
                });
            } else if let Some(te) = te {
                plan.updates.insert(path.clone(), (read(repo, Some(te))?, mode));
                plan.files.push(MergedFile { path: path.clone(), strategy: Strategy::KeptChanged });
                kept.push((path.clone(), &t));
            } else {
                plan.files.push(MergedFile { path: path.clone(), strategy: Strategy::KeptChanged });
                kept.push((path.clone(), &o));
            }
            continue;
        }
        let (bb, ob, tb) = (read(repo, be)?, read(repo, oe)?, read(repo, te)?);
        let (bs, os, ts) = (text(bb.as_deref()), text(ob.as_deref()), text(tb.as_deref()));
        let merged: Result<(String, Strategy), String> = match (kind, os, ts) {
            (Kind::Other, ..) | (_, None, _) | (_, _, None) => {
                text_merge(path, bb.as_deref(), ob.as_deref(), tb.as_deref())
            }
            (Kind::GraphIndex, Some(os), _) => Ok((os.to_owned(), Strategy::Regenerated)),
            (Kind::Episode, Some(os), Some(ts)) => {
                let date = cogmem_store::store::units::md_stem(path);
                content::merge_episode(date, bs, os, ts).map(|m| {
                    renames.base.extend(m.base);
                    renames.ours.extend(m.ours);
                    renames.theirs.extend(m.theirs);
                    (m.text, Strategy::Union)
                })
            }
            (Kind::Audit, Some(os), Some(ts)) => {
                content::merge_audit(bs, os, ts).map(|m| (m, Strategy::Union))
            }
            (Kind::Tombstones, Some(os), Some(ts)) => {
                content::merge_tombstones(bs, os, ts).map(|m| (m, Strategy::Union))
            }
            (Kind::Pending, Some(os), Some(ts)) => {
                content::merge_pending(bs, os, ts).map(|(m, r)| {
                    plan.renumbered.extend(r);
                    (m, Strategy::Content)
                })
            }
            (Kind::Sections, Some(os), Some(ts)) => {
                content::merge_sections(bs, os, ts).map(|m| (m, Strategy::Content))
            }
            (Kind::Decay, Some(os), Some(ts)) => {
                content::merge_decay(bs, os, ts, &renames).map(|m| (m, Strategy::Content))
            }
        };
        match merged {
            Ok((text, strategy)) => {
                if Some(text.as_bytes()) != ob.as_deref() {
                    plan.updates.insert(path.clone(), (Some(text.into_bytes()), mode));
                }
                plan.files.push(MergedFile { path: path.clone(), strategy });
            }
            Err(reason) => {
                plan.conflicts.push(Conflict {
                    path: path.clone(),
                    reason,
                    hint: hint_for(path, label),
                });
            }
        }
    }
    if plan.conflicts.is_empty() && !kept.is_empty() {
        let sides = Sides { repo, base: &b, ours: &o };
        keep_decay_entries(&sides, &kept, fresh, &mut plan)?;
    }
    Ok(plan)
}

/// The blobs of the common ancestor and of our side, for [`keep_decay_entries`].
struct Sides<'a> {
    repo: &'a Repository,
    base: &'a BTreeMap<String, Entry>,
    ours: &'a BTreeMap<String, Entry>,
}

/// What a decay entry recreated by a merge is made of: the workspace's decay settings and the
/// time of the sync.
pub(crate) struct Fresh<'a> {
    /// The workspace's decay settings.
    pub settings: &'a DecaySettings,
    /// The time of the sync, the entry's creation time.
    pub now: chrono::DateTime<chrono::Utc>,
}

/// The decay state of a tree (`files`: its blobs), with `updates` written over it.
fn decay_of(
    repo: &Repository,
    files: &BTreeMap<String, Entry>,
    updates: &BTreeMap<String, (Option<Vec<u8>>, i32)>,
) -> crate::Result<DecayFile> {
    let root = repo.workdir().unwrap_or_else(|| repo.path());
    let mut present: BTreeSet<&str> = files.keys().map(String::as_str).collect();
    for (path, (bytes, _)) in updates {
        if bytes.is_some() {
            present.insert(path);
        } else {
            present.remove(path.as_str());
        }
    }
    let shards: Vec<_> = present.into_iter().filter_map(decay_file::home_of).flatten().collect();
    let text = |rel: &str| -> cogmem_store::Result<Option<String>> {
        let bytes = match updates.get(rel) {
            Some((bytes, _)) => bytes.clone(),
            None => match files.get(rel) {
                Some((id, _)) => Some(
                    repo.find_blob(*id)
                        .map_err(|cause| GitError::Op { what: "read a file", cause })?
                        .content()
                        .to_vec(),
                ),
                None => None,
            },
        };
        Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    Ok(DecayFile::load_with(root, &shards, text)?)
}

/// Gives every memory in a file kept whole by [`Strategy::KeptChanged`] its decay entry in the
/// merge result. The side that deleted the file removed the entries of its memories, and when
/// only that side changed a decay file its copy is taken as it is (or the decay merge drops an
/// entry the keeping side did not change), so the kept memories would have none. Each entry is
/// copied from the side that kept the file, else from the common ancestor, else made afresh;
/// the decay files this changes join the plan as combined.
fn keep_decay_entries(
    sides: &Sides<'_>,
    kept: &[(String, &BTreeMap<String, Entry>)],
    fresh: &Fresh<'_>,
    plan: &mut Plan,
) -> crate::Result<()> {
    let no_updates = BTreeMap::new();
    let mut merged: Option<DecayFile> = None;
    let mut base: Option<DecayFile> = None;
    for (path, side) in kept {
        let Some(text) = read(sides.repo, side.get(path))? else { continue };
        let units = units::file_units(path, &String::from_utf8_lossy(&text));
        let mut keeping: Option<DecayFile> = None;
        for u in units {
            let merged = match &mut merged {
                Some(m) => m,
                None => merged.insert(decay_of(sides.repo, sides.ours, &plan.updates)?),
            };
            if merged.has(&u.id) {
                continue;
            }
            let keeping = match &mut keeping {
                Some(k) => k,
                None => keeping.insert(decay_of(sides.repo, side, &no_updates)?),
            };
            if merged.copy_entry(&u.id, keeping) {
                continue;
            }
            let base = match &mut base {
                Some(b) => b,
                None => base.insert(decay_of(sides.repo, sides.base, &no_updates)?),
            };
            if !merged.copy_entry(&u.id, base) {
                let unit = NewUnit {
                    store: u.store,
                    base: fresh.settings.base_auto,
                    created: fresh.now,
                    pinned: u.store == Store::Vault,
                };
                merged.insert_new(&u.id, unit, fresh.settings);
            }
        }
    }
    let Some(mut merged) = merged else { return Ok(()) };
    for (path, text) in merged.changed_files() {
        let bytes = text.map(String::into_bytes);
        let ours = read(sides.repo, sides.ours.get(&path))?;
        if bytes == ours {
            plan.updates.remove(&path);
        } else {
            plan.updates.insert(path.clone(), (bytes, 0o100_644));
        }
        match plan.files.iter_mut().find(|f| f.path == path) {
            Some(f) => f.strategy = Strategy::Content,
            None => plan.files.push(MergedFile { path, strategy: Strategy::Content }),
        }
    }
    Ok(())
}

/// git's own three-way merge of one file's lines; `Err` when both sides changed the same lines
/// (or the file is not text).
fn text_merge(
    path: &str,
    base: Option<&[u8]>,
    ours: Option<&[u8]>,
    theirs: Option<&[u8]>,
) -> Result<(String, Strategy), String> {
    let (Some(o), Some(t)) = (ours, theirs) else {
        return Err("changed differently on both sides".into());
    };
    let mut bi = git2::MergeFileInput::new();
    if let Some(b) = base {
        bi.content(b).path(path);
    }
    let mut oi = git2::MergeFileInput::new();
    oi.content(o).path(path);
    let mut ti = git2::MergeFileInput::new();
    ti.content(t).path(path);
    let result = git2::merge_file(&bi, &oi, &ti, None)
        .map_err(|e| format!("git could not merge it: {}", e.message()))?;
    if !result.is_automergeable() {
        return Err("both sides changed the same lines".into());
    }
    match String::from_utf8(result.content().to_vec()) {
        Ok(s) => Ok((s, Strategy::Text)),
        Err(_) => Err("it is not text, and both sides changed it".into()),
    }
}
