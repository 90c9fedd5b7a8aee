//! `cogmem graph rename` and `cogmem graph retype`: give an entity another id (or type) as one
//! commit, with every reference that names it rewritten — the entity's own file (title, type,
//! self links), links in other entity files, `[[links]]` in MEMORY.md, procedures and vault
//! notes, open proposals in `pending-memories.md`, its decay entry (uses still in the access
//! log are folded first), and `graph/index.md`. The old id becomes an alias of the entity, so
//! references this leaves alone still resolve: episodes (append-only, never rewritten) and
//! the files of other tools.

use serde::Serialize;

use super::regenerate_index_into;
use crate::error::{InputError, RuleError};
use cogmem_index::graph;
use cogmem_store::access;
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::markdown;
use cogmem_store::store::pending::PendingFile;
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::model::ENTITY_TYPES;

/// What `graph rename` or `graph retype` did.
#[derive(Debug, Clone, Serialize)]
pub struct Renamed {
    /// The commit.
    pub commit: String,
    /// The id before.
    pub old: String,
    /// The id now (the old one is an alias of it).
    pub new: String,
    /// Every file the commit rewrote, in order (the audit log aside).
    pub files: Vec<String>,
}

/// Renames entity OLD (an id, or a name or alias only it has) to the id NEW: one commit.
///
/// Refused when NEW is not a valid id, when it looks like a credential (no `--allow-secret`:
/// an id never needs one), when another entity has it (merge them instead), or when OLD names
/// no single entity.
pub fn rename(
    ws: &Workspace,
    old: &str,
    new: &str,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<Renamed> {
    let new = EntityId::parse(new)?;
    // An id is a file name, a link and a line of the graph index: it never needs a credential.
    cogmem_store::secrets::check_note(new.as_str(), "the new id")?;
    let trigger = format!("cogmem graph rename {old} {new}");
    apply(ws, old, |_| Ok(new.clone()), "rename", trigger, actor, clock)
}

/// Gives entity ID the type KIND, keeping its slug (`concept--hana` → `person--hana`): a
/// rename to `KIND--slug`, one commit.
///
/// KIND must be a type the workspace knows: one of [`ENTITY_TYPES`], a type an entity file
/// already has, or one `relations.md` names in a signature.
pub fn retype(
    ws: &Workspace,
    id: &str,
    kind: &str,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<Renamed> {
    let kind = kind.trim();
    let mut known: Vec<String> = ENTITY_TYPES.iter().map(|t| (*t).to_owned()).collect();
    known.extend(
        cogmem_store::vocab::Vocabulary::parse(
            &ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default(),
        )
        .types(),
    );
    for rel in units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        let stem = cogmem_store::store::units::md_stem(&rel);
        if let Ok(id) = EntityId::parse(stem) {
            known.push(id.kind().to_owned());
        }
    }
    known.sort();
    known.dedup();
    if !known.iter().any(|k| k == kind) {
        return Err(InputError::Unknown {
            what: "entity type",
            value: kind.to_owned(),
            expected: known.join(", "),
        }
        .into());
    }
    apply(
        ws,
        id,
        |old| {
            let slug = old.as_str().split_once("--").map_or("", |(_, s)| s);
            let new = EntityId::parse(&format!("{kind}--{slug}"))?;
            // A type next to a slug may read as a key word next to a random part.
            cogmem_store::secrets::check_note(new.as_str(), "the new id")?;
            Ok(new)
        },
        "retype",
        format!("cogmem graph retype {id} {kind}"),
        actor,
        clock,
    )
}

fn apply(
    ws: &Workspace,
    name: &str,
    new_id: impl FnOnce(&EntityId) -> crate::Result<EntityId>,
    what: &'static str,
    trigger: String,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<Renamed> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let g = graph::build(ws)?;
    let ix = crate::id::entity(&g, name)?;
    let old = EntityId::parse(&g.node(ix).id)?;
    let new = new_id(&old)?;
    if new == old {
        return Err(InputError::SameEntity { id: old.to_string(), what }.into());
    }
    let old_path = g.node(ix).path.clone();
    let new_path = layout::entity_file(new.as_str());
    if g.resolve(new.as_str()).is_some_and(|i| g.node(i).id == new.as_str())
        || ws.abs(&new_path).exists()
    {
        return Err(RuleError::EntityExists { old: old.to_string(), new: new.to_string() }.into());
    }
    let (o, n) = (old.as_str(), new.as_str());
    let mut change = Change::new(actor, trigger);
    // The entity itself: a new file, the old one gone (git sees the rename).
    let text = entity::renamed(&ws.read_text(&old_path)?, &old, &new, &date);
    change.delete(&old_path, Action::Rename, format!("renamed to {n}"));
    change.write(&new_path, text.into_bytes(), Action::Rename, format!("renamed from {o}"));
    // Links in the other entity files.
    for rel in units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        if rel == old_path {
            continue;
        }
        if let Some(t) = entity::rewire_links(&ws.read_text(&rel)?, o, n) {
            change.write(&rel, t.into_bytes(), Action::Edit, format!("links to {o} now {n}"));
        }
    }
    // Links in core memory, procedures and vault notes (episodes are append-only: left as
    // they are, the alias resolves them).
    let mut notes: Vec<String> = vec![layout::MEMORY_MD.to_owned()];
    notes.extend(units::markdown_files(ws.root(), layout::PROCEDURES_DIR));
    notes.extend(units::markdown_files(ws.root(), layout::VAULT_DIR));
    let mut core_before = None;
    for rel in notes {
        let Some(text) = ws.read_text_if_exists(&rel)? else { continue };
        if let Some(t) = markdown::rewire_links(&text, o, n) {
            if rel == layout::MEMORY_MD {
                core_before = Some((text, t.clone()));
            }
            change.write(&rel, t.into_bytes(), Action::Edit, format!("links to {o} now {n}"));
        }
    }
    // Open proposals name entities by id.
    if let Some(text) = ws.read_text_if_exists(layout::PENDING_MEMORIES)?
        && let Some(t) = PendingFile::parse(&text).with_entity_renamed(o, n)
    {
        let summary = format!("open proposals name {n} instead of {o}");
        change.write(layout::PENDING_MEMORIES, t.into_bytes(), Action::Edit, summary);
    }
    // Decay entries: the entity's, and those of core bullets whose text (so whose id) changed.
    // Uses of the old id still in the access log are folded first, so none is lost.
    let mut decay = access::load_decay(ws)?;
    if let Some(batch) = access::begin(ws)? {
        access::fold(&batch, &mut decay);
    }
    let mut moved = decay.rename_entry(&format!("entity:{o}"), &format!("entity:{n}"));
    if let Some((before, after)) = &core_before {
        let was = units::file_units(layout::MEMORY_MD, before);
        let now_units = units::file_units(layout::MEMORY_MD, after);
        if was.len() == now_units.len() {
            for (a, b) in was.iter().zip(&now_units).filter(|(a, b)| a.id != b.id) {
                moved |= decay.rename_entry(&a.id, &b.id);
            }
        }
    }
    if moved {
        change.write_decay(ws, &mut decay, Action::Edit, &format!("entries follow {o} to {n}"));
    }
    regenerate_index_into(ws, &mut change)?;
    let files: Vec<String> = change.edits().iter().map(|e| e.path.clone()).collect();
    let applied = change.with_subject(Action::Rename, format!("{o} renamed to {n}")).apply(
        ws,
        &repo,
        &lock,
        &FixedClock(now),
    )?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    Ok(Renamed { commit: applied.commit, old: o.to_owned(), new: n.to_owned(), files })
}
