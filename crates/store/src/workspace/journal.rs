//! The change journal: while the change engine applies a change, `.cogmem/journal/` names every
//! file the change is about to write and keeps a copy of each one that differed from HEAD
//! before the change (a hand edit that `sync` is committing, say). Files that matched HEAD are
//! not copied: HEAD is their copy.
//!
//! A journal is written (copies first, the manifest last) before the first file is touched and
//! removed after the commit, or after a failed change has put its files back. So a journal found
//! by whoever next takes the workspace lock belongs to a change whose process died: if HEAD
//! moved since the journal was written, the change was committed and the journal is just
//! removed; otherwise every file it names is put back as it was before the change, after what
//! the dead process left (and any edit made since) is committed to the ref
//! `refs/cogmem/recovered/journal-HEAD` (branch and index untouched) and copied under
//! `.cogmem/recovered/`. Either way the workspace is exactly before or exactly after the
//! change, hand edits included, and nothing put back is lost.
//!
//! Manifest format (`.cogmem/journal/manifest`): `head ID` (or `head none`), then one line per
//! file, `head TAB PATH` (as in HEAD, or absent from it), `copy TAB PATH` (the copy is
//! `files/PATH`) or `absent TAB PATH` (the file did not exist although HEAD has it).

use std::path::Path;

use crate::git;
use crate::store::fsx;

/// The journal folder, relative to the workspace root.
pub const DIR: &str = ".cogmem/journal";
const MANIFEST: &str = ".cogmem/journal/manifest";
const FILES: &str = ".cogmem/journal/files";

/// How a file was before the change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Before {
    /// As in HEAD (or absent, as in HEAD).
    Head,
    /// Different from HEAD: the journal holds a copy.
    Copy(Vec<u8>),
    /// Absent, although HEAD has it.
    Absent,
}

/// A journal found on disk.
#[derive(Debug, Clone)]
pub(crate) struct Journal {
    /// HEAD when the change began.
    pub(crate) head: Option<String>,
    /// The files the change writes, and how each was before it.
    pub(crate) files: Vec<(String, Before)>,
}

/// What the journal recovery (`recover`) did with a journal it found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recovered {
    /// The change had been committed: the journal was only removed.
    pub committed: bool,
    /// Files put back as they were before the change.
    pub restored: Vec<String>,
    /// Where copies of what the dead process left were saved (workspace-relative).
    pub saved_to: Option<String>,
    /// The ref of a commit holding what the dead process (or a hand edit made after it) left
    /// in the files put back: `refs/cogmem/recovered/journal-HEAD` (see
    /// [`git::save_recovered`]).
    pub saved_ref: Option<String>,
    /// Temporary files of atomic writes the killed change left (`.cogmem-tmp-*` in the folders
    /// of the files it was writing), removed: only a write holding the lock makes one there, and
    /// the recovery holds it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_temp: Vec<String>,
}

/// Writes the journal of a change about to begin.
pub(crate) fn begin(
    root: &Path,
    head: Option<&str>,
    files: &[(String, Before)],
) -> crate::Result<()> {
    remove(root)?;
    let mut manifest = format!("head {}\n", head.unwrap_or("none"));
    for (rel, before) in files {
        let kind = match before {
            Before::Head => "head",
            Before::Copy(bytes) => {
                fsx::write_atomic(&root.join(FILES).join(rel), bytes)?;
                "copy"
            }
            Before::Absent => "absent",
        };
        manifest.push_str(&format!("{kind}\t{rel}\n"));
    }
    fsx::write_atomic(&root.join(MANIFEST), manifest.as_bytes())?;
    Ok(())
}

/// Removes the journal: the change it describes is over (committed, or put back).
pub(crate) fn end(root: &Path) -> crate::Result<()> {
    remove(root)
}

fn remove(root: &Path) -> crate::Result<()> {
    // The manifest first: a journal without it is no journal. The folder itself stays (only the
    // copies go), so that a change does not create and remove a folder every time.
    fsx::remove_file(&root.join(MANIFEST))?;
    let dir = root.join(FILES);
    match std::fs::remove_dir_all(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(fsx::IoError::new(&dir, "remove", e).into())
        }
        _ => Ok(()),
    }
}

/// Tells whether a journal is on disk.
pub fn pending(root: &Path) -> bool {
    root.join(MANIFEST).is_file()
}

/// The files the journal on disk names: those the interrupted change was about to write, in the
/// journal's order; empty when there is no journal. `limit` is the workspace's
/// `limits.file_bytes`.
pub fn files(root: &Path, limit: u64) -> crate::Result<Vec<String>> {
    Ok(read(root, limit)?
        .map(|j| j.files.into_iter().map(|(rel, _)| rel).collect())
        .unwrap_or_default())
}

/// Reads the journal, if there is one. A manifest that cannot be read as one is reported as
/// an error naming it: guessing would risk putting back the wrong files. `limit` is the
/// workspace's `limits.file_bytes`.
pub(crate) fn read(root: &Path, limit: u64) -> crate::Result<Option<Journal>> {
    let path = root.join(MANIFEST);
    let Some(text) = fsx::read_text_if_exists(&path, limit)? else { return Ok(None) };
    let bad = |line: usize, what: &str| crate::store::StoreError::Malformed {
        path: path.clone(),
        line,
        what: what.to_owned(),
    };
    let mut lines = text.lines();
    let head = match lines.next().and_then(|l| l.strip_prefix("head ")) {
        Some("none") => None,
        Some(id) => Some(id.to_owned()),
        None => return Err(bad(1, "expected `head ID` on the first line").into()),
    };
    let mut files = Vec::new();
    for (n, line) in lines.enumerate() {
        let Some((kind, rel)) = line.split_once('\t') else {
            return Err(bad(n + 2, "expected `KIND<TAB>PATH`").into());
        };
        fsx::check_relative("journal path", rel)?;
        let before = match kind {
            "head" => Before::Head,
            "absent" => Before::Absent,
            "copy" => match fsx::read_if_exists(&root.join(FILES).join(rel), limit)? {
                Some(bytes) => Before::Copy(bytes),
                None => return Err(bad(n + 2, "the copy of this file is missing").into()),
            },
            _ => return Err(bad(n + 2, "expected head, copy or absent").into()),
        };
        files.push((rel.to_owned(), before));
    }
    Ok(Some(Journal { head, files }))
}

/// Finishes what a dead process's change left: removes the journal of a committed change, or
/// puts every file of an uncommitted one back as it was before it. Call it holding the lock;
/// `limit` is the workspace's `limits.file_bytes`.
pub(crate) fn recover(root: &Path, limit: u64) -> crate::Result<Option<Recovered>> {
    let Some(journal) = read(root, limit)? else { return Ok(None) };
    let repo = git::open(root)?;
    let head_now = git::head_id(&repo)?.map(|id| id.to_string());
    if head_now != journal.head {
        end(root)?;
        return Ok(Some(Recovered {
            committed: true,
            restored: Vec::new(),
            saved_to: None,
            saved_ref: None,
            removed_temp: Vec::new(),
        }));
    }
    let tree = git::head_tree(&repo)?;
    let stamp = journal.head.as_deref().map_or("none", |h| &h[..h.len().min(12)]).to_owned();
    let mut saved = format!(".cogmem/recovered/journal-{stamp}");
    let mut n = 1;
    while root.join(&saved).exists() {
        saved = format!(".cogmem/recovered/journal-{stamp}-{n}");
        n += 1;
    }
    // What each file must become, for those that differ from it now.
    let mut put_back = Vec::new();
    for (rel, before) in &journal.files {
        let now = fsx::read_if_exists(&root.join(rel), limit)?;
        let want = match before {
            Before::Head => git::read_at_head(&repo, tree.as_ref(), rel)?,
            Before::Copy(bytes) => Some(bytes.clone()),
            Before::Absent => None,
        };
        if now != want {
            put_back.push((rel.clone(), now, want));
        }
    }
    // A commit keeps what is about to be put back before anything is: a person may have edited
    // one of these files since the process died, and `.cogmem/recovered/` may be deleted.
    let rels: Vec<String> = put_back.iter().map(|(rel, _, _)| rel.clone()).collect();
    let name = saved.rsplit('/').next().unwrap_or("journal");
    let message = format!(
        "cogmem: files a killed change left, before they were put back\n\n\
         Journal of HEAD {stamp}; restore a file with `git checkout REF -- PATH`.\n"
    );
    let saved_ref =
        git::save_recovered(&repo, root, name, &rels, &message, git::head_time(&repo), limit)?;
    let mut restored = Vec::new();
    for (rel, now, want) in put_back {
        let abs = root.join(&rel);
        if let Some(bytes) = &now {
            fsx::write_atomic(&root.join(&saved).join(&rel), bytes)?;
        }
        match want {
            Some(bytes) => fsx::write_atomic(&abs, &bytes)?,
            None => fsx::remove_file(&abs)?,
        }
        restored.push(rel);
    }
    git::reset_index(&repo, &journal.files.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>());
    let removed_temp = remove_temp_files(root, &journal)?;
    end(root)?;
    let saved_to = root.join(&saved).exists().then_some(saved);
    Ok(Some(Recovered { committed: false, restored, saved_to, saved_ref, removed_temp }))
}

/// Removes the temporary files (`.cogmem-tmp-*`) in the folders of the journal's files: what
/// the killed change's unfinished atomic writes left. Called holding the lock, so no write of a
/// live process is among them; a link or a folder of that name is left alone. Returns them,
/// workspace-relative and sorted.
fn remove_temp_files(root: &Path, journal: &Journal) -> crate::Result<Vec<String>> {
    let folders: std::collections::BTreeSet<&str> = journal
        .files
        .iter()
        .map(|(rel, _)| rel.rsplit_once('/').map_or("", |(dir, _)| dir))
        .collect();
    let mut removed = Vec::new();
    for folder in folders {
        let dir = root.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !fsx::is_temp_file(&name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            fsx::remove_file(&entry.path())?;
            removed.push(if folder.is_empty() { name } else { format!("{folder}/{name}") });
        }
    }
    removed.sort();
    Ok(removed)
}
