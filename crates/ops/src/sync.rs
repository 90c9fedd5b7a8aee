//! `cogmem sync`: commit what was edited by hand since `HEAD`, as one change.
//!
//! Every changed file is checked first with the parsers of its format; a malformed file, or an
//! episode file whose existing entries were rewritten or deleted (episodes are append-only), is
//! reported with its line and left uncommitted while the valid files are committed. New memory
//! units get decay entries, and the graph index is regenerated when entity files changed, in the
//! same commit; the derived search index is refreshed after it. A credential in the lines the
//! edits added refuses the sync of an actor that is not a person (unless `allow_secret`), and is
//! reported and recorded in its audit line for a person.
//!
//! Invariant: what is committed is exactly the bytes that were checked. A hand edit is never
//! overwritten or discarded: a file that is left stays on disk as it is.

use std::collections::BTreeMap;

use git2::Tree;
use serde::Serialize;

use cogmem_store::audit::{Action, Actor, AuditLine};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::secrets::SecretFinding;
use cogmem_store::store::decay_file::{DecayFile, NewUnit};
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::episode;
use cogmem_store::store::pending::PendingFile;
use cogmem_store::store::{Store, StoreError, fsx, markdown, units};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::error::AllowCommand;
use cogmem_text::tokens;

use crate::removal;

/// How to sync.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Who made the edits (default `manual`).
    pub actor: Actor,
    /// Commit rewrites and deletions of existing episode entries too.
    pub force: bool,
    /// Report what would be committed, without writing anything.
    pub dry_run: bool,
    /// Commit new lines that look like a credential even for an actor that is not a person
    /// (`--allow-secret`); a person's are committed with a warning either way.
    pub allow_secret: bool,
}

/// A place in a committed file's new lines that looks like a credential (see
/// [`cogmem_store::secrets::scan_added`]): `sync` refuses an agent's and warns a person of
/// one, adoption warns of one in a commit made outside cogmem, and both record it in the file's
/// audit line.
#[derive(Debug, Clone, Serialize)]
pub struct AddedSecret {
    /// The commit made outside cogmem that added it (adoption only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The file, relative to the workspace root.
    pub path: String,
    /// The rule, line, column and a redacted excerpt, never the secret.
    #[serde(flatten)]
    pub finding: SecretFinding,
}

impl AddedSecret {
    /// `path:line: looks like a secret (RULE at column N: EXCERPT)`, with `in commit ID8`
    /// before the path for an adopted commit.
    pub fn describe(&self) -> String {
        let f = &self.finding;
        let commit = self
            .commit
            .as_deref()
            .map_or(String::new(), |c| format!("commit {} ", c.get(..8).unwrap_or(c)));
        format!(
            "{commit}{}:{}: looks like a secret ({} at column {}: {})",
            self.path, f.line, f.rule, f.column, f.excerpt
        )
    }
}

/// The secrets in the lines a change of `path` from `old` to `new` (`None`: absent) added.
/// Shared by `sync` and `adopt`.
pub(crate) fn added_secrets(
    commit: Option<&str>,
    path: &str,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
) -> Vec<AddedSecret> {
    let Some(new) = new else { return Vec::new() };
    let old = String::from_utf8_lossy(old.unwrap_or_default());
    cogmem_store::secrets::scan_added(&old, &String::from_utf8_lossy(new))
        .into_iter()
        .map(|finding| AddedSecret {
            commit: commit.map(str::to_owned),
            path: path.to_owned(),
            finding,
        })
        .collect()
}

/// What an audit line's summary adds for the secrets a file's change added:
/// `; looks like a secret at line 18 (aws-access-key-id)`, each place once, or nothing. It
/// names the rule and the line, never an excerpt, so the log holds nothing of the secret.
pub(crate) fn secret_note(found: &[AddedSecret]) -> String {
    let places: Vec<String> =
        found.iter().map(|s| format!("line {} ({})", s.finding.line, s.finding.rule)).collect();
    if places.is_empty() {
        return String::new();
    }
    format!("; looks like a secret at {}", places.join(", "))
}

/// A file in the sync commit.
#[derive(Debug, Clone, Serialize)]
pub struct SyncedFile {
    /// The file, relative to the workspace root.
    pub path: String,
    /// CREATE, EDIT or DELETE.
    pub action: Action,
    /// The audit summary.
    pub summary: String,
}

/// A changed file left uncommitted.
#[derive(Debug, Clone, Serialize)]
pub struct LeftFile {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The 1-based line of the problem, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: String,
    /// What to do about it.
    pub hint: String,
}

impl LeftFile {
    /// `path:line: problem`.
    pub fn location(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l}", self.path),
            None => self.path.clone(),
        }
    }
}

/// What `sync` did (or, on a dry run, would do).
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    /// The commit, or `None` on a dry run or when nothing could be committed.
    pub commit: Option<String>,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// The hand-edited files committed (or to be committed).
    pub committed: Vec<SyncedFile>,
    /// The files left uncommitted, and why.
    pub left: Vec<LeftFile>,
    /// Decay entries created for new memory units.
    pub decay_entries: Vec<String>,
    /// Decay entries marked archived because the committed hand edits removed their memory
    /// (a deleted core bullet, a deleted or renamed file), as `doctor --fix` marks an orphan.
    pub decay_archived: Vec<String>,
    /// Decay entries carried to a new id because their procedure or vault note was renamed by
    /// hand with its text unchanged, or nearly (see [`crate::removal`]).
    pub decay_carried: Vec<crate::removal::Carried>,
    /// Forgotten decay entries brought back because the hand edits wrote their memory again
    /// (see [`crate::removal`]).
    pub decay_revived: Vec<String>,
    /// Whether memory/graph/index.md was regenerated.
    pub graph_index: bool,
    /// The commits made outside cogmem that were adopted first, in their own commit (on a dry
    /// run: that are waiting). See [`crate::adopt`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adopted: Option<crate::adopt::AdoptReport>,
    /// Why adopting them failed (they are adopted by a later command), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adopt_error: Option<String>,
    /// What looks like a credential in the lines the committed files added: a person's sync
    /// commits them (the CLI warns), an agent's only with `allow_secret`.
    pub secrets: Vec<AddedSecret>,
}

impl SyncReport {
    /// Tells whether there was nothing to sync at all.
    pub fn is_empty(&self) -> bool {
        self.committed.is_empty() && self.left.is_empty()
    }
}

/// Tells whether a path is an editor's swap, backup or probe file, which sync and watch ignore:
/// `*.swp`, `*.swo`, `*.swx`, `*~`, `4913` (vim's write test), `.#*` and `#*#` (emacs).
pub(crate) fn is_editor_junk(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.ends_with(".swp")
        || name.ends_with(".swo")
        || name.ends_with(".swx")
        || name.ends_with('~')
        || name == "4913"
        || name.starts_with(".#")
        || name.starts_with('#') && name.ends_with('#')
}

/// Tells whether sync and watch leave a path alone: git's and cogmem's own folders, editor
/// junk, and the temporary files of atomic writes (`.cogmem-tmp-*`: one left by a killed
/// write is for `doctor --fix` to remove, never a hand edit to commit).
pub(crate) fn is_ignored(rel: &str) -> bool {
    rel == ".git"
        || rel.starts_with(".git/")
        || rel == layout::DERIVED_DIR
        || rel.starts_with(".cogmem/")
        || is_editor_junk(rel)
        || fsx::is_temp_file(rel)
}

/// One hand-edited file, read and checked.
struct Candidate {
    path: String,
    /// The bytes on disk; `None` when the file was deleted.
    bytes: Option<Vec<u8>>,
    /// The bytes at `HEAD`; `None` for a new file.
    head: Option<Vec<u8>>,
}

impl Candidate {
    fn action(&self) -> Action {
        match (&self.head, &self.bytes) {
            (None, _) => Action::Create,
            (Some(_), None) => Action::Delete,
            (Some(_), Some(_)) => Action::Edit,
        }
    }

    fn text(&self) -> Option<String> {
        self.bytes.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())
    }

    fn head_text(&self) -> Option<String> {
        self.head.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())
    }
}

/// Commits every hand edit since `HEAD` that passes its checks, in one commit by `opts.actor`.
///
/// Returns the report; files that fail a check are in [`SyncReport::left`]. When audit.log or
/// decay-scores.json is itself malformed (every commit touches them), nothing is committed and
/// every changed file is left. Fails when the workspace is locked, git fails, or the actor is a
/// sub-agent.
pub fn sync(ws: &Workspace, opts: &SyncOptions, clock: &dyn Clock) -> crate::Result<SyncReport> {
    // Commits made outside cogmem first (issue 17), in their own commit: a sub-agent's sync
    // is refused below before anything is written, so it adopts nothing either.
    let (adopted, adopt_error) = if opts.actor.is_subagent() {
        (None, None)
    } else if opts.dry_run {
        let commits = crate::adopt::pending(ws)?;
        let waiting = (!commits.is_empty())
            .then(|| crate::adopt::AdoptReport { commits, ..Default::default() });
        (waiting, None)
    } else {
        match crate::adopt::adopt(ws, clock) {
            Ok(r) => (r.commit.is_some().then_some(r), None),
            // Uncommitted edits of the files adoption writes: committed below, adopted by the
            // next command.
            Err(e) => (None, Some(e.to_string())),
        }
    };
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    // Checked again by the change; first, so that a merge's conflicted files are not reported
    // as hand edits to fix.
    git::check_state(&repo)?;
    let now = clock.now();
    let tree = git::head_tree(&repo)?;
    let mut report = SyncReport {
        commit: None,
        dry_run: opts.dry_run,
        committed: Vec::new(),
        left: Vec::new(),
        decay_entries: Vec::new(),
        decay_archived: Vec::new(),
        decay_carried: Vec::new(),
        decay_revived: Vec::new(),
        graph_index: false,
        adopted,
        adopt_error,
        secrets: Vec::new(),
    };
    let (candidates, unreadable) = changed_files(ws, &repo, tree.as_ref(), &lock)?;
    cogmem_store::timing::mark(&format!("sync: changed files found ({})", candidates.len()));
    let blocks = |path: &str| {
        path == layout::AUDIT_LOG || layout::is_audit_segment(path) || layout::is_decay_file(path)
    };
    let mut blocked = unreadable.iter().any(|l| blocks(&l.path));
    report.left.extend(unreadable);
    if candidates.is_empty() {
        return Ok(report);
    }
    let mut valid: Vec<Candidate> = Vec::new();
    for c in candidates {
        match check(ws, &c, opts.force) {
            Ok(()) => valid.push(c),
            Err(left) => {
                blocked |= blocks(&c.path);
                report.left.push(left);
            }
        }
    }
    if blocked {
        for c in valid.drain(..) {
            report.left.push(LeftFile {
                path: c.path,
                line: None,
                problem: "not committed: the audit log or decay scores must be fixed first".into(),
                hint: "fix the file reported above, then run `cogmem sync` again".into(),
            });
        }
        return Ok(report);
    }
    if valid.is_empty() {
        return Ok(report);
    }
    // A credential in what the edits added: an agent's sync is refused, as its `remember`
    // would be; a person's own files are committed, and the caller warns.
    let found: Vec<Vec<AddedSecret>> = valid
        .iter()
        .map(|c| added_secrets(None, &c.path, c.head.as_deref(), c.bytes.as_deref()))
        .collect();
    if !opts.actor.is_person()
        && !opts.allow_secret
        && let Some(s) = found.iter().flatten().next()
    {
        let what = format!("the hand edit of {}", s.path);
        // The way out is the command line's: the MCP server has no sync tool.
        let (f, allow) = (s.finding.clone(), AllowCommand::Sync);
        return Err(cogmem_store::secrets::refusal_allowed_by(&what, f, allow).into());
    }

    let mut change = Change::new(opts.actor.clone(), "cogmem sync").allow_dirty();
    for (c, found) in valid.iter().zip(&found) {
        let action = c.action();
        let summary = summary(c)? + &secret_note(found);
        match &c.bytes {
            // The log's hand-appended lines are committed with it; its own line would be noise.
            Some(_) if c.path == layout::AUDIT_LOG => {}
            // Committed as read, never written back: an edit made since (a person typing
            // while a watcher syncs) must not be overwritten by what it replaced.
            Some(b) => change.keep(&c.path, b.clone(), action, summary.clone()),
            None => change.delete(&c.path, action, summary.clone()),
        }
        report.committed.push(SyncedFile { path: c.path.clone(), action, summary });
    }
    report.secrets = found.into_iter().flatten().collect();

    // Decay entries: those of the units this commit removes are archived (or carried to a
    // renamed file's new id) first, then the units that have none get one.
    let owned: Vec<(&str, String)> =
        valid.iter().filter_map(|c| Some((c.path.as_str(), c.text()?))).collect();
    let owned_heads: Vec<(&str, String)> =
        valid.iter().filter_map(|c| Some((c.path.as_str(), c.head_text()?))).collect();
    let texts: Vec<(&str, &str)> = owned.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let heads: Vec<(&str, &str)> = owned_heads.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let removed = removal::removed_units(&heads, &texts);
    // The removed units' files as HEAD has them, so their entries are loaded too.
    let removed_from = heads.iter().filter(|(p, _)| removed.iter().any(|u| u.path == *p));
    let entities_changed = valid.iter().any(|c| c.path.starts_with(layout::ENTITIES_DIR));
    let mut decay = decay_for(ws, texts.iter().chain(removed_from).copied(), entities_changed)?;
    let created = now.with_timezone(&chrono::Utc);
    let who = removal::Settler {
        by: opts.actor.as_str(),
        at: created,
        reason: "removed from its file by a hand edit that sync committed",
    };
    let settled = removal::settle(&mut change, &mut decay, &removed, &heads, &texts, &who);
    for (path, text) in &texts {
        report.decay_entries.extend(insert_decay_entries(ws, &mut decay, path, text, created));
    }
    cogmem_store::timing::mark("sync: decay entries");
    let what = removal::summary(&report.decay_entries, &settled);
    report.decay_archived = settled.archived;
    report.decay_carried = settled.carried;
    report.decay_revived = settled.revived;
    if !what.is_empty() {
        // A hand edit of the file already in the change keeps its own action.
        change.write_decay(ws, &mut decay, Action::Edit, &what);
    }

    // The graph index follows the entity files as this commit leaves them.
    if entities_changed {
        let text = graph_index(ws, &repo, tree.as_ref(), &report.left, &decay)?;
        let current = ws.read_text_if_exists(layout::GRAPH_INDEX)?;
        if current.as_deref() != Some(text.as_str())
            || change.pending(layout::GRAPH_INDEX).is_some()
        {
            change.write(
                layout::GRAPH_INDEX,
                text.into_bytes(),
                Action::Edit,
                "regenerated from the entity files",
            );
            report.graph_index = true;
        }
    }

    if opts.dry_run {
        return Ok(report);
    }
    let subject = if report.committed.len() == 1 {
        report.committed[0].summary.clone()
    } else {
        format!("{} hand-edited files synced", report.committed.len())
    };
    let action = report.committed.first().map_or(Action::Edit, |f| f.action);
    let change = change.with_subject(action, subject);
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    // The index lock is taken before the workspace lock goes (issue 16: `verify` right after
    // finds the index up to date). Files left out of the commit are looked at by the next read.
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    report.commit = Some(applied.commit);
    Ok(report)
}

/// The decay state to add the entries of hand-edited files' units to (`files`: path and
/// text): only the shards that hold those units (at 100,000 memories the whole state is 1,025
/// files, most of a sync's time), or all of it when `entities_changed`, since the graph index
/// then wants every entity's entry. Shared by `sync` and `adopt`.
pub(crate) fn decay_for<'a>(
    ws: &Workspace,
    files: impl Iterator<Item = (&'a str, &'a str)>,
    entities_changed: bool,
) -> crate::Result<DecayFile> {
    if entities_changed {
        return Ok(DecayFile::load(ws)?);
    }
    let ids: Vec<String> = files
        .flat_map(|(path, text)| units::file_units(path, text).into_iter().map(|u| u.id))
        .collect();
    Ok(DecayFile::load_for(ws, &ids.iter().map(String::as_str).collect::<Vec<_>>())?)
}

/// Creates the decay entries the memory units of a hand-edited file (`text` at `path`) lack,
/// created at `created`, and returns their ids. Shared by `sync` and `adopt`.
pub(crate) fn insert_decay_entries(
    ws: &Workspace,
    decay: &mut DecayFile,
    path: &str,
    text: &str,
    created: chrono::DateTime<chrono::Utc>,
) -> Vec<String> {
    let mut ids = Vec::new();
    for u in units::file_units(path, text) {
        let unit = NewUnit {
            store: u.store,
            base: ws.settings().decay.base_explicit,
            created,
            pinned: u.store == Store::Vault,
        };
        if decay.insert_new(&u.id, unit, &ws.settings().decay) {
            ids.push(u.id);
        }
    }
    ids
}

/// The files whose working copy differs from `HEAD`, sorted, minus ignored ones; and those of
/// them that cannot be read (over `limits.file_bytes`, a link leading out of the workspace, no
/// permission), which are left.
fn changed_files(
    ws: &Workspace,
    repo: &git2::Repository,
    tree: Option<&Tree<'_>>,
    lock_held: &cogmem_store::workspace::LockGuard,
) -> crate::Result<(Vec<Candidate>, Vec<LeftFile>)> {
    // Told from git's index and a walk's stamps, as `status` tells it (libgit2's whole status
    // hashed every file whose entry did not vouch for it: 60–90 ms at 100,000 memories); this
    // process holds the lock, so entries that do not vouch for unchanged files are refreshed.
    let head = git::head_id(repo)?.map(|id| id.to_string());
    let probe = cogmem_index::summary::Probe::take(ws, repo.path(), head);
    let found = crate::status::uncommitted_from_walk(ws, repo, &probe, Some(lock_held))?;
    // A temporary file an older cogmem committed, since deleted (`doctor --fix` removes it):
    // its deletion is committed like any other, so the tree comes back clean.
    let mut paths: Vec<String> = found
        .into_iter()
        .map(|c| c.path)
        .filter(|p| !is_ignored(p) || fsx::is_temp_file(p) && !ws.abs(p).exists())
        .collect();
    paths.sort();
    paths.dedup();
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        if !git::is_dirty(ws.root(), tree, &path)? {
            continue; // staged, then put back: the working copy is what HEAD has
        }
        let abs = ws.abs(&path);
        let bytes = if abs.is_file() {
            match fsx::read(&abs, ws.file_limit()) {
                Ok(b) => Some(b),
                Err(e) => match unreadable_file(&path, &e) {
                    Some(left) => {
                        unreadable.push(left);
                        continue;
                    }
                    None => return Err(e.into()),
                },
            }
        } else {
            None
        };
        if bytes.is_none() && abs.exists() {
            // A folder or something else git does not track as a file. git lists a repository
            // inside the workspace as a folder and would commit only a link to it: left, with
            // what to do, or `verify` would report it for ever while sync had nothing to do.
            if let Some(left) = nested_repository(ws, &path) {
                unreadable.push(left);
            }
            continue;
        }
        let head = git::read_at_head(repo, tree, &path)?;
        out.push(Candidate { path, bytes, head });
    }
    Ok((out, unreadable))
}

/// The folder `path` (as git lists it, ending in `/`), left when it is a git repository of its
/// own: what is wrong with it and what to do (`sync` leaves it, `verify` reports it).
pub(crate) fn nested_repository(ws: &Workspace, path: &str) -> Option<LeftFile> {
    ws.abs(path).join(".git").exists().then(|| LeftFile {
        path: format!("{}/", path.trim_end_matches('/')),
        line: None,
        problem: "a git repository inside the workspace; git would commit only a link to it, \
                  not its files"
            .to_owned(),
        hint: "move it out of the workspace, or delete its `.git` folder so that its files are \
               kept as memory (the next `cogmem sync` commits them)"
            .to_owned(),
    })
}

/// The file `path`, left because it cannot be read (`e`): one file is never worth stopping the
/// others for. `None` when the failure is not the file's own (a broken disk).
fn unreadable_file(path: &str, e: &fsx::IoError) -> Option<LeftFile> {
    use std::io::ErrorKind;
    let hint = if e.is_link_refusal() {
        "replace the link with a real file; cogmem does not read links leading out of the workspace"
    } else {
        match e.io.kind() {
            ErrorKind::InvalidInput | ErrorKind::FileTooLarge => {
                "split it into smaller files (or move it out of the workspace), or raise \
                 `limits.file_bytes` in cogmem.toml; the next sync commits it once it fits"
            }
            ErrorKind::PermissionDenied => "check the file's permissions and owner",
            _ => return None,
        }
    };
    Some(LeftFile {
        path: path.to_owned(),
        line: None,
        problem: format!("cannot {}: {}", e.op, e.io),
        hint: hint.to_owned(),
    })
}

fn left(c: &Candidate, line: Option<usize>, problem: impl Into<String>, hint: &str) -> LeftFile {
    LeftFile { path: c.path.clone(), line, problem: problem.into(), hint: hint.to_owned() }
}

const FIX_OR_RESTORE: &str = "fix the line (docs/formats.md describes the format), or restore the file with `git checkout -- FILE`";

/// For a file git never had, which `git checkout` cannot restore.
const FIX_OR_REMOVE: &str = "fix the line (docs/formats.md describes the format), or remove the file: git never had it, so there is no copy to restore";

fn from_store_error(c: &Candidate, e: &StoreError) -> LeftFile {
    let new = c.head.is_none();
    match e {
        StoreError::Malformed { line, what, .. } | StoreError::HostConfig { line, what, .. } => {
            left(c, Some(*line), what.clone(), if new { FIX_OR_REMOVE } else { FIX_OR_RESTORE })
        }
        StoreError::NotUtf8 { .. } => left(
            c,
            None,
            "not valid UTF-8",
            if new {
                "re-save the file as UTF-8, or remove it: git never had it, so there is no copy \
                 to restore"
            } else {
                "re-save the file as UTF-8, or restore it with `git checkout -- FILE`"
            },
        ),
    }
}

/// Checks one changed file against its format; `Err` says why it is left.
fn check(ws: &Workspace, c: &Candidate, force: bool) -> Result<(), LeftFile> {
    let p = c.path.as_str();
    if layout::is_audit_segment(p) {
        return Err(left(
            c,
            None,
            "a sealed part of the audit log never changes",
            &format!("restore it with `git checkout -- {p}`"),
        ));
    }
    let is_md = p.ends_with(".md");
    let is_text = is_md || p.ends_with(".json") || p.ends_with(".log");
    let Some(bytes) = &c.bytes else {
        return check_deletion(c, force);
    };
    let text = if is_text {
        match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let err = StoreError::NotUtf8 { path: ws.abs(p), offset: e.valid_up_to() };
                return Err(from_store_error(c, &err));
            }
        }
    } else {
        return Ok(());
    };
    let head_text = c.head_text();
    // Line checks judge only lines the hand edit added or changed.
    let old_lines: std::collections::HashSet<&str> =
        head_text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
    let is_new = |line: &str| !old_lines.contains(line);
    if p == layout::AUDIT_LOG {
        let head = c.head.as_deref().unwrap_or_default();
        if !bytes.starts_with(head) {
            return Err(left(
                c,
                None,
                "earlier lines were changed or removed; the audit log is append-only",
                "restore it with `git checkout -- memory/meta/audit.log` and append instead",
            ));
        }
        for (i, raw) in text.lines().enumerate() {
            if is_new(raw)
                && let Err(problem) = AuditLine::parse(raw)
            {
                return Err(left(c, Some(i + 1), problem, FIX_OR_RESTORE));
            }
        }
        return Ok(());
    }
    if p == layout::DECAY_SCORES {
        return DecayFile::parse(text, &ws.abs(p)).map(|_| ()).map_err(|e| from_store_error(c, &e));
    }
    if layout::is_decay_file(p) {
        return DecayFile::parse_shard(text, &ws.abs(p))
            .map(|_| ())
            .map_err(|e| from_store_error(c, &e));
    }
    if p == layout::MEMORY_MD {
        let budget = ws.settings().core.budget_tokens;
        let tokens = tokens::estimate(text);
        if tokens > budget {
            return Err(left(
                c,
                None,
                format!("{tokens} tokens, over the core budget of {budget}"),
                "shorten MEMORY.md (move details into entity files), or raise `core.budget_tokens` in cogmem.toml",
            ));
        }
        return Ok(());
    }
    if p == layout::PENDING_MEMORIES {
        let old: Vec<String> = head_text
            .as_deref()
            .map(|t| PendingFile::parse(t).problems.into_iter().map(|(_, w)| w).collect())
            .unwrap_or_default();
        if let Some((line, why)) =
            PendingFile::parse(text).problems.into_iter().find(|(_, w)| !old.contains(w))
        {
            return Err(left(c, Some(line), why, FIX_OR_RESTORE));
        }
        return Ok(());
    }
    if is_md && text.starts_with("---") && markdown::split_front_matter(text).1.is_none() {
        let first = text.lines().next().unwrap_or("");
        if first.trim_end() == "---" {
            return Err(left(
                c,
                Some(1),
                "front matter opened with `---` is never closed",
                "end the front matter with a `---` line, or remove the opening one",
            ));
        }
    }
    let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
    if dir == layout::EPISODES_DIR && is_md {
        return check_episode(c, name, text, &is_new, force);
    }
    if dir == layout::ENTITIES_DIR && is_md {
        let stem = name.trim_end_matches(".md");
        if let Err(e) = EntityId::parse(stem) {
            return Err(left(
                c,
                None,
                format!("the file name is not an entity id: {e}"),
                "rename it to TYPE--SLUG.md, e.g. person--alice.md",
            ));
        }
        for r in entity::relations(text) {
            let line_text = text.lines().nth(r.line.saturating_sub(1)).unwrap_or("");
            if !is_new(line_text) {
                continue;
            }
            if !entity::check_relation_name(&r.relation) {
                return Err(left(
                    c,
                    Some(r.line),
                    format!("relation {:?} is not lower-kebab case", r.relation),
                    "write relations as `- works-on: [[project--x]]`",
                ));
            }
            if let Err(e) = EntityId::parse(&r.target) {
                return Err(left(
                    c,
                    Some(r.line),
                    format!("relation target {:?}: {e}", r.target),
                    "link an entity as `[[TYPE--SLUG]]`, e.g. `[[person--alice]]`",
                ));
            }
        }
    }
    Ok(())
}

fn check_deletion(c: &Candidate, force: bool) -> Result<(), LeftFile> {
    let restore =
        |what: &str| left(c, None, what.to_owned(), "restore it with `git checkout -- FILE`");
    match c.path.as_str() {
        layout::MEMORY_MD => Err(restore("MEMORY.md holds core memory and marks the workspace")),
        layout::AUDIT_LOG => Err(restore("the audit log is append-only")),
        layout::DECAY_SCORES => Err(restore("decay-scores.json holds every memory's decay state")),
        p if layout::is_decay_file(p) => Err(restore("a decay shard holds memories' decay state")),
        p if p.starts_with(&format!("{}/", layout::EPISODES_DIR)) && !force => {
            let n = episode::entries(&c.head_text().unwrap_or_default()).len();
            if n == 0 {
                return Ok(());
            }
            Err(left(
                c,
                None,
                format!("deletes {n} episode entries; episodes are append-only"),
                "restore it with `git checkout -- FILE`, forget entries with `cogmem forget`, or pass `--force`",
            ))
        }
        _ => Ok(()),
    }
}

fn check_episode(
    c: &Candidate,
    name: &str,
    text: &str,
    is_new: &dyn Fn(&str) -> bool,
    force: bool,
) -> Result<(), LeftFile> {
    let stem = name.trim_end_matches(".md");
    if cogmem_text::date::parse_day(stem).is_none() {
        return Err(left(
            c,
            None,
            "an episode file is named for its day",
            "rename it to YYYY-MM-DD.md",
        ));
    }
    for (i, line) in text.lines().enumerate() {
        let Some(Err(problem)) = episode::check_heading(line).filter(|_| is_new(line)) else {
            continue;
        };
        return Err(left(
            c,
            Some(i + 1),
            problem,
            "write entry headings as `## HH:MM | fact | confidence:high | tags:[a, b]`",
        ));
    }
    if force {
        return Ok(());
    }
    let Some(head) = c.head_text() else { return Ok(()) };
    let old = episode::entries(&head);
    let new = episode::entries(text);
    let head_lines: Vec<&str> = head.lines().collect();
    let new_lines: Vec<&str> = text.lines().collect();
    for (i, o) in old.iter().enumerate() {
        let Some(n) = new.get(i) else {
            return Err(left(
                c,
                Some(o.line),
                format!("the entry at {} was deleted; episodes are append-only", o.time),
                "restore it with `git checkout -- FILE` and append instead, or pass `--force`",
            ));
        };
        let same = head_lines.get(o.line - 1) == new_lines.get(n.line - 1)
            && o.text == n.text
            && o.source == n.source
            && o.deleted == n.deleted;
        if !same {
            return Err(left(
                c,
                Some(n.line),
                format!("the existing entry at {} was rewritten; episodes are append-only", o.time),
                "restore it with `git checkout -- FILE` and append a correction entry instead, or pass `--force`",
            ));
        }
    }
    Ok(())
}

/// The audit summary of one hand edit, with a line count.
fn summary(c: &Candidate) -> crate::Result<String> {
    hand_summary(&c.path, c.head.as_deref(), c.bytes.as_deref())
}

/// The audit summary of a hand edit of `path` from `old` to `new` (`None`: the file is absent),
/// with a line count: `created by hand (+N lines)`, `edited by hand (+A -R lines)`, … Shared
/// by `sync` and by `adopt`, which records the hand edits of commits made outside cogmem.
pub(crate) fn hand_summary(
    path: &str,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
) -> crate::Result<String> {
    let (added, removed) =
        crate::audit::line_stats(old.unwrap_or_default(), new.unwrap_or_default())?;
    Ok(match (old, new) {
        (None, _) => format!("created by hand (+{added} lines)"),
        (Some(_), None) => format!("deleted by hand (-{removed} lines)"),
        _ if path == layout::AUDIT_LOG => format!("{added} lines appended by hand"),
        _ => format!("edited by hand (+{added} -{removed} lines)"),
    })
}

/// Renders memory/graph/index.md from the entity files as the sync commit leaves them: the
/// working copy, except that left files count as they are at `HEAD`.
fn graph_index(
    ws: &Workspace,
    repo: &git2::Repository,
    tree: Option<&Tree<'_>>,
    left: &[LeftFile],
    decay: &DecayFile,
) -> crate::Result<String> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for rel in units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        if left.iter().any(|l| l.path == rel) {
            continue;
        }
        if let Some(text) = ws.read_text_if_exists(&rel)? {
            files.insert(rel, text);
        }
    }
    for l in left.iter().filter(|l| l.path.starts_with(layout::ENTITIES_DIR)) {
        if let Some(bytes) = git::read_at_head(repo, tree, &l.path)? {
            files.insert(l.path.clone(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    let files: Vec<(String, String)> = files.into_iter().collect();
    Ok(cogmem_index::graph::index_text(ws, &files, decay)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_junk_is_ignored() {
        let cases = [
            ("memory/graph/entities/.person--alice.md.swp", true),
            ("MEMORY.md~", true),
            ("memory/4913", true),
            ("memory/.#notes.md", true),
            (".git/index.lock", true),
            (".cogmem/lock", true),
            ("memory/meta/.cogmem-tmp-AbC123", true),
            (".cogmem-tmp-x", true),
            ("memory/graph/entities/person--alice.md", false),
            ("SOUL.md", false),
        ];
        for (input, want) in cases {
            assert_eq!(is_ignored(input), want, "input: {input:?}");
        }
    }
}
