//! Flags (issue 19): the contradiction and doubt records a reflection's approved FLAG
//! operations raise on the memories they name, kept in `memory/meta/flags.md`
//! ([`cogmem_store::store::flags`] owns the format). An open flag is shown by `cogmem why`,
//! counted by `status`, reported by `verify` as a warning and put in the context pack beside
//! the memories it names, until a person resolves it (`cogmem flag resolve N`).
//!
//! Reading never fails on the flags file: a block that cannot be read is reported (with its
//! line) by [`list`], `status` and `verify`, and skipped everywhere else. Raising a flag is part
//! of the reflection's one commit; resolving one is its own commit, by a person only.

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::id::Match;
use crate::role::require_person;
use cogmem_index::pack::{Candidate, Part};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::flags::{self, Flag, FlagsFile, NewFlag, Resolution, Status};
use cogmem_store::store::reflection::Operation;
use cogmem_store::store::units::Units;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::{Clock, FixedClock, utc_seconds};

pub use cogmem_store::store::flags::FILE;

/// Reads the flags file (empty when there is none).
///
/// Fails only when the file cannot be read as text (not UTF-8, over the size limit); blocks
/// that cannot be parsed are in [`FlagsFile::problems`].
pub fn read(ws: &Workspace) -> crate::Result<FlagsFile> {
    Ok(FlagsFile::parse(&ws.read_text_if_exists(FILE)?.unwrap_or_default()))
}

/// The open flags naming memory `id`; none when the file cannot be read (`verify` and `status`
/// report that).
pub fn open_on(ws: &Workspace, id: &str) -> Vec<Flag> {
    read(ws).map(|f| f.open_on(id).into_iter().cloned().collect()).unwrap_or_default()
}

/// Resolves the memories a FLAG block's TARGET names ([`flags::targets`]): each a memory id
/// in any form [`crate::id::memory`] accepts exactly (`entity:person--alice`,
/// `person--alice`), or the store file of one memory (an entity, procedure or vault note).
/// Returns them in order, without repeats.
///
/// Fails with [`InputError::ReflectBlock`] naming the block, and the nearest ids for one no
/// memory has.
pub(crate) fn memories(all: &Units, op: &Operation) -> crate::Result<Vec<String>> {
    let bad = |why: String| InputError::ReflectBlock { block: op.number, why };
    let mut out: Vec<String> = Vec::new();
    let given = flags::targets(&op.target);
    if given.is_empty() {
        return Err(bad("FLAG needs TARGET: the memory ids it is about".into()).into());
    }
    for item in given {
        let id = if item.contains('/') || item.ends_with(".md") {
            let found: Vec<&str> =
                all.units.iter().filter(|u| u.path == item).map(|u| u.id.as_str()).collect();
            match found.as_slice() {
                [one] => (*one).to_owned(),
                [] => {
                    return Err(bad(format!(
                        "FLAG names {item:?}, which is not the file of a memory; name memory ids \
                         such as `entity:person--alice` or `episode:2026-02-02:14:30`"
                    ))
                    .into());
                }
                several => {
                    let shown: Vec<String> =
                        several.iter().take(5).map(|id| format!("`{id}`")).collect();
                    return Err(bad(format!(
                        "FLAG names {item:?}, which holds {} memories; name the ones it is \
                         about: {}{}",
                        several.len(),
                        shown.join(", "),
                        if several.len() > 5 { ", …" } else { "" }
                    ))
                    .into());
                }
            }
        } else {
            match crate::id::memory(item, all, None, Match::Exact) {
                Ok(id) => id,
                Err(crate::Error::Store(cogmem_store::Error::Input(InputError::UnknownId {
                    nearest,
                    ..
                }))) => {
                    let near = match nearest.as_slice() {
                        [] => String::new(),
                        some => format!(
                            "; did you mean {}?",
                            some.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    return Err(
                        bad(format!("FLAG names {item:?}, which no memory has{near}")).into()
                    );
                }
                Err(e) => return Err(e),
            }
        };
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// Raises the flag a FLAG block asks for, as part of an approved reflection's `change`
/// (reflection `n`, approved on `date`): appended to the flags file (or to its new content
/// earlier in the same change). Returns its number.
pub(crate) fn raise(
    ws: &Workspace,
    change: &mut Change,
    op: &Operation,
    all: &Units,
    n: u32,
    date: &str,
) -> crate::Result<u32> {
    let memories = memories(all, op)?;
    let current = match change.pending(FILE) {
        Some(b) => String::from_utf8_lossy(b).into_owned(),
        None => ws.read_text_if_exists(FILE)?.unwrap_or_default(),
    };
    let action = if current.is_empty() { Action::Create } else { Action::Append };
    let (kind, text) = flags::kind_of(&op.content, memories.len());
    let text = if text.is_empty() { op.reason.trim() } else { text };
    let raised_by = format!("reflection #{n} ({date})");
    let new =
        NewFlag { kind, memories: &memories, text, reason: &op.reason, raised_by: &raised_by };
    let (content, number) = FlagsFile::parse(&current).with_appended(&new);
    let summary = format!("flag #{number} raised by reflection #{n} on {}", memories.join(", "));
    change.write(FILE, content.into_bytes(), action, summary);
    Ok(number)
}

/// What `flag list` shows.
#[derive(Debug, Clone, Serialize)]
pub struct FlagList {
    /// The flags shown (open ones, or all), in file order.
    pub flags: Vec<Flag>,
    /// Blocks that could not be read: `memory/meta/flags.md:LINE: why`.
    pub skipped: Vec<String>,
}

/// Lists the open flags (every flag with `all`), and the blocks that could not be read.
/// Read-only.
pub fn list(ws: &Workspace, all: bool) -> crate::Result<FlagList> {
    let file = read(ws)?;
    Ok(FlagList {
        flags: file.flags.iter().filter(|f| all || f.status == Status::Open).cloned().collect(),
        skipped: problems(&file),
    })
}

/// The blocks of `file` that could not be read, as `memory/meta/flags.md:LINE: why`.
pub fn problems(file: &FlagsFile) -> Vec<String> {
    file.problems.iter().map(|(line, why)| format!("{FILE}:{line}: {why}")).collect()
}

/// What `flag resolve` did.
#[derive(Debug, Clone, Serialize)]
pub struct ResolveReport {
    /// The flag, as resolved.
    pub flag: Flag,
    /// The commit.
    pub commit: String,
}

/// Resolves open flag `n` for a person: the flags file records who, when and the note, as one
/// commit with one audit line. Refused (exit 4) for anyone but a person, and for a flag already
/// resolved; a number no flag has is a user error (a block that cannot be read is named with
/// its line).
pub fn resolve(
    ws: &Workspace,
    n: u32,
    note: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<ResolveReport> {
    require_person(by, "resolve a flag")?;
    let note = note.map(str::trim).filter(|t| !t.is_empty());
    if let Some(t) = note {
        cogmem_store::secrets::check_note(t, "the note")?;
    }
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let file = read(ws)?;
    let Some(flag) = file.get(n) else {
        if let Some(e) =
            cogmem_store::store::pending::unreadable(&ws.abs(FILE), &file.problems, "flag", n)
        {
            return Err(e.into());
        }
        return Err(InputError::UnknownFlag { number: n }.into());
    };
    if flag.status == Status::Resolved {
        return Err(RuleError::FlagResolved { number: n }.into());
    }
    let now = clock.now();
    let at = utc_seconds(&now);
    let resolution = Resolution { by: by.as_str(), at: &at, note };
    let text = file.with_resolution(n, &resolution).expect("flag n exists");
    let summary = match note {
        Some(t) => format!("flag #{n} resolved: {t}"),
        None => format!("flag #{n} resolved"),
    };
    let mut change = Change::new(by.clone(), format!("cogmem flag resolve {n} (by {by})"))
        .with_approval(Approval::None);
    change.write(FILE, text.clone().into_bytes(), Action::Edit, summary.clone());
    let applied =
        change.with_subject(Action::Edit, summary).apply(ws, &repo, &lock, &FixedClock(now))?;
    let flag = FlagsFile::parse(&text).get(n).cloned().expect("flag n is still there");
    Ok(ResolveReport { flag, commit: applied.commit })
}

/// Offers each open flag that names a memory among `candidates` to the context pack, right
/// after the last candidate it names: it goes in only when one of them did (its `named_by`),
/// and only when it fits the budget, like any part (issue 19). A file that cannot be read
/// offers nothing.
pub(crate) fn offer(ws: &Workspace, candidates: &mut Vec<Candidate>) {
    let Ok(file) = read(ws) else { return };
    let mut offers: Vec<(usize, Candidate)> = Vec::new();
    for f in file.open() {
        let Some(last) = candidates.iter().rposition(|c| f.names(&c.id)) else { continue };
        let text = format!("- [flag:{}] {}", f.number, one_line(f));
        let mut c = Candidate::line(
            &format!("flag:{}", f.number),
            Part::Flag,
            text,
            "",
            1.0,
            "open flag".into(),
        );
        // A flag says nothing another part says: it is never a repeat.
        c.says = Vec::new();
        c.named_by = f.memories.clone();
        offers.push((last, c));
    }
    // From the back, so that earlier positions stay put; flags after the same memory keep
    // their file order.
    offers.reverse();
    offers.sort_by_key(|(last, _)| std::cmp::Reverse(*last));
    for (last, c) in offers {
        candidates.insert(last + 1, c);
    }
}

/// A flag as the context pack shows it.
fn one_line(f: &Flag) -> String {
    format!(
        "{} on {}: {} (raised by {}; open until a person resolves it)",
        f.kind.as_str(),
        f.memories.join(", "),
        crate::context::shorten(&f.text, 300),
        f.raised_by
    )
}
