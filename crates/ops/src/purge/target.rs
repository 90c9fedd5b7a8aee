//! What to purge: a memory by id (present now, or only in history after `forget` or
//! `forget --permanent`), or any text.

use git2::{Repository, Sort};

use super::rewrite::gerr;
use cogmem_store::store::units::{self, MemoryUnit};
use cogmem_store::store::{Store, entity, episode};
use cogmem_store::workspace::layout;
use cogmem_text::model::EntityId;

/// What `forget --purge` erases.
#[derive(Debug, Clone)]
pub enum Target {
    /// A memory's id: its text as the files hold it now, or as the last commit that held it.
    Id(String),
    /// Any text, wherever it appears (`forget --purge-text`).
    Text(String),
}

impl Target {
    /// The target with its id whole: any form `crate::id` accepts, exactly (a purge names
    /// what goes, so the start of an id is not enough); an id no memory has now keeps its
    /// entity form (`entity:TYPE--SLUG` for `TYPE--SLUG`), to be looked for in history.
    pub(crate) fn whole(&self, all: &units::Units) -> Self {
        match self {
            Self::Id(given) => Self::Id(
                crate::id::memory(given, all, None, crate::id::Match::Exact).unwrap_or_else(|_| {
                    let mut forms = cogmem_text::id::forms(given, cogmem_text::id::Space::Memory);
                    forms.pop().unwrap_or_else(|| given.clone())
                }),
            ),
            Self::Text(_) => self.clone(),
        }
    }
}

/// The file a memory id lives in, or `None` when the id names no file (or tries to leave its
/// folder).
pub(crate) fn file_of(id: &str) -> Option<String> {
    let (kind, rest) = id.split_once(':')?;
    let safe = |s: &str| {
        !s.is_empty()
            && !s.contains(['/', '\\'])
            && !s.contains("..")
            && !s.contains(char::is_control)
    };
    match kind {
        "core" => Some(layout::MEMORY_MD.to_owned()),
        "episode" => {
            let day = rest.split(':').next()?;
            safe(day).then(|| layout::episode_file(day))
        }
        "entity" => safe(rest).then(|| layout::entity_file(rest)),
        "procedure" => safe(rest).then(|| format!("{}/{rest}.md", layout::PROCEDURES_DIR)),
        "vault" => safe(rest).then(|| format!("{}/{rest}.md", layout::VAULT_DIR)),
        _ => None,
    }
}

/// The file-name part of an id, for notes whose file is named after them.
pub(crate) fn slug_of(id: &str) -> Option<&str> {
    let (kind, rest) = id.split_once(':')?;
    matches!(kind, "entity" | "procedure" | "vault").then_some(rest)
}

/// The memory's text as its file holds it, line breaks, tabs and escapes included (a unit's
/// `text` is whitespace-normalised for episodes): the lines an episode tombstone would take out,
/// the bullet's line, or the whole file of a note.
pub(crate) fn raw_text(unit: &MemoryUnit, file: &str) -> String {
    match unit.store {
        Store::Episodic => {
            // The episode format's owner knows where the paragraph ends: what its tombstone
            // takes out is the raw paragraph.
            let after = episode::tombstone(file, unit.line, "0000-00-00");
            let (a, b): (Vec<&str>, Vec<&str>) = (file.lines().collect(), after.lines().collect());
            let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let tail = a[head..]
                .iter()
                .rev()
                .zip(b[head..].iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            a[head..a.len() - tail].join("\n")
        }
        Store::Core => file.lines().nth(unit.line.saturating_sub(1)).unwrap_or_default().to_owned(),
        _ => file.to_owned(),
    }
}

/// The memory `id` as the newest commit of the current branch that holds it had it.
/// Returns the unit and its [`raw_text`].
pub(crate) fn from_history(
    repo: &Repository,
    id: &str,
) -> crate::Result<Option<(MemoryUnit, String)>> {
    let Some(path) = file_of(id) else { return Ok(None) };
    let Ok(head) = repo.head() else { return Ok(None) };
    let Some(tip) = head.target() else { return Ok(None) };
    let mut walk = repo.revwalk().map_err(gerr("walk the history"))?;
    walk.set_sorting(Sort::TOPOLOGICAL).map_err(gerr("walk the history"))?;
    walk.push(tip).map_err(gerr("walk the history"))?;
    let mut seen = std::collections::HashSet::new();
    for c in walk {
        let c = repo
            .find_commit(c.map_err(gerr("walk the history"))?)
            .map_err(gerr("read a commit"))?;
        let tree = c.tree().map_err(gerr("read a tree"))?;
        let Ok(entry) = tree.get_path(std::path::Path::new(&path)) else { continue };
        if !seen.insert(entry.id()) {
            continue;
        }
        let Ok(blob) = repo.find_blob(entry.id()) else { continue };
        let text = String::from_utf8_lossy(blob.content());
        if let Some(u) = units::file_units(&path, &text).into_iter().find(|u| u.id == id) {
            let raw = raw_text(&u, &text);
            return Ok(Some((u, raw)));
        }
    }
    Ok(None)
}

/// The entity ids an entity went by before, or that were merged into it: each id on its
/// `Aliases:` line (`graph rename` keeps the old id there), and each entity whose merge
/// redirect (status `merged`) now points at it (`graph merge` leaves only the merged one's
/// label among the aliases). Nothing for a memory that is not an entity.
pub(crate) fn former_ids(id: &str, text: &str, all: &units::Units) -> Vec<EntityId> {
    let Some(me) = id.strip_prefix("entity:").and_then(|e| EntityId::parse(e).ok()) else {
        return Vec::new();
    };
    let mut out: Vec<EntityId> = entity::names(&me, text)
        .iter()
        .filter(|n| n.contains("--"))
        .filter_map(|n| EntityId::parse(n).ok())
        .filter(|n| *n != me)
        .collect();
    for u in &all.units {
        let redirect = u.status.as_deref() == Some("merged")
            && u.entities.iter().any(|e| e == me.as_str())
            && u.id != id;
        if redirect
            && let Some(e) = u.id.strip_prefix("entity:")
            && let Ok(e) = EntityId::parse(e)
            && !out.contains(&e)
        {
            out.push(e);
        }
    }
    out
}

/// Every text the files at `paths` held in a commit reachable from `tips`, each once: what a
/// whole-file memory held before a hand edit or a rewrite took it out.
pub(crate) fn versions(
    repo: &Repository,
    tips: &[git2::Oid],
    paths: &[String],
) -> crate::Result<Vec<String>> {
    if paths.is_empty() || tips.is_empty() {
        return Ok(Vec::new());
    }
    let mut walk = repo.revwalk().map_err(gerr("walk the history"))?;
    for tip in tips {
        walk.push(*tip).map_err(gerr("walk the history"))?;
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for c in walk {
        let c = repo
            .find_commit(c.map_err(gerr("walk the history"))?)
            .map_err(gerr("read a commit"))?;
        let tree = c.tree().map_err(gerr("read a tree"))?;
        for path in paths {
            let Ok(entry) = tree.get_path(std::path::Path::new(path)) else { continue };
            if !seen.insert(entry.id()) {
                continue;
            }
            if let Ok(blob) = repo.find_blob(entry.id()) {
                out.push(String::from_utf8_lossy(blob.content()).into_owned());
            }
        }
    }
    Ok(out)
}
