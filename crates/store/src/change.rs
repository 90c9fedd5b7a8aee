//! One change = files + audit lines + one git commit, all or nothing (design.md §2, principles 2
//! and 8). Every mutating command builds a [`Change`] and applies it while holding the workspace
//! lock.
//!
//! Invariants: after [`Change::apply`] returns `Ok`, every edited file, its audit line and the
//! commit exist together; after it returns `Err`, every touched file holds its earlier bytes and
//! `HEAD` has not moved. Files with uncommitted hand edits are never touched (the commit would
//! swallow them, and a rollback would destroy them).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use git2::Repository;

use crate::access;
use crate::audit::{Action, Actor, Approval, AuditLine};
use crate::error::RuleError;
use crate::git::{self, CommitSpec};
use crate::store::decay_file::DecayFile;
use crate::store::{fsx, units};
use crate::workspace::{LockGuard, Workspace, WorkspaceError, journal, layout};
use cogmem_text::clock::Clock;

/// The bytes of the files a change touches as they were before it, to put back when it fails:
/// the one rollback of the change engine, also used by `cogmem sync`'s merge commit, which
/// writes its files and commits outside [`Change`].
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// (path relative to the root, bytes; `None` when the file did not exist).
    files: Vec<(String, Option<Vec<u8>>)>,
}

impl Snapshot {
    /// Reads the files at `paths` (relative to the workspace root or folder `at`, within its
    /// file size limit); a missing file is recorded as absent.
    pub fn take(
        at: &(impl crate::workspace::ReadRoot + ?Sized),
        paths: &[String],
    ) -> crate::Result<Self> {
        let mut files = Vec::with_capacity(paths.len());
        for rel in paths {
            files.push((rel.clone(), fsx::read_if_exists(&at.root().join(rel), at.file_limit())?));
        }
        Ok(Self { files })
    }

    /// Puts back, as [`Snapshot::restore`] does, only the files whose path `which` accepts.
    pub fn restore_only(&self, root: &Path, which: impl Fn(&str) -> bool) -> bool {
        let mut put_back = true;
        for (rel, bytes) in self.files.iter().filter(|(rel, _)| which(rel)) {
            let abs = root.join(rel);
            put_back &= match bytes {
                Some(b) => {
                    let unchanged = fsx::read_if_exists(&abs, b.len() as u64)
                        .is_ok_and(|now| now.as_deref() == Some(b.as_slice()));
                    if unchanged { Ok(()) } else { fsx::write_atomic(&abs, b) }
                }
                None => fsx::remove_file(&abs),
            }
            .is_ok();
        }
        put_back
    }

    /// Puts every file back as it was: its earlier bytes, or removed when it did not exist.
    /// Best effort, since the caller is already failing with the error to report: returns
    /// whether every file was put back.
    ///
    /// A file that is still as it was is left alone: a change that failed because the disk is
    /// full (or a file is over the system's size limit) has usually not replaced anything yet,
    /// and putting back needs no space then, so the rollback finishes and the journal goes.
    pub fn restore(&self, root: &Path) -> bool {
        self.restore_only(root, |_| true)
    }
}

/// Where a crash trial may kill the process inside [`Change::apply`] (see
/// [`WorkspaceOptions::crash_at`](crate::workspace::WorkspaceOptions::crash_at)). Only with
/// the `crash-points` feature.
#[cfg(feature = "crash-points")]
pub const CRASH_POINTS: [&str; 5] =
    ["before-write", "mid-write", "before-audit", "before-commit", "after-commit"];

/// Fault injection for crash trials (the `crash-points` feature): the process kills itself
/// (SIGKILL where the platform has it, else abort) when it reaches `point` and the workspace's
/// options name it. [`Change::apply`] has the points of [`CRASH_POINTS`]; operations that do
/// more than one change (a purge) add their own. Without the feature this is nothing at all.
#[cfg(feature = "crash-points")]
pub fn crash_point(ws: &Workspace, point: &str) {
    if ws.options().crash_at.as_deref() == Some(point) {
        let pid = std::process::id().to_string();
        let _ = std::process::Command::new("kill").args(["-KILL", &pid]).status();
        std::process::abort();
    }
}

/// Fault injection for crash trials: without the `crash-points` feature, nothing at all.
#[cfg(not(feature = "crash-points"))]
pub fn crash_point(_: &Workspace, _: &str) {}

/// Fault injection (the `crash-points` feature): with the point `hand-edit-before-write`, the
/// change appends a line to the first file it writes just before writing, as another program
/// saving the file in that moment would, so a test sees the change stop and the edit kept.
#[cfg(feature = "crash-points")]
const HAND_EDIT: &str =
    "\n## 23:59 | fact | confidence:high | tags:[]\nSaved by hand while cogmem was writing\n";

#[cfg(feature = "crash-points")]
fn hand_edit_point(ws: &Workspace, first: Option<&str>) {
    if let Some(rel) = first
        && ws.options().crash_at.as_deref() == Some("hand-edit-before-write")
    {
        use std::io::Write;
        let path = ws.root().join(rel);
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .and_then(|mut f| f.write_all(HAND_EDIT.as_bytes()));
        if let Err(e) = appended {
            panic!("hand-edit-before-write: {}: {e}", path.display());
        }
    }
}

/// Fault injection: without the `crash-points` feature, nothing at all.
#[cfg(not(feature = "crash-points"))]
fn hand_edit_point(_: &Workspace, _: Option<&str>) {}

/// The marker line added to commits that touch a critical file.
pub const CRITICAL_MARK: &str = "⚠️ CRITICAL FILE CHANGED";

/// One file's new content within a change.
#[derive(Debug, Clone)]
pub struct FileEdit {
    /// Path relative to the workspace root.
    pub path: String,
    /// New bytes; `None` deletes the file (unless `staged` holds them).
    pub content: Option<Vec<u8>>,
    /// A file under `.cogmem/` that holds the new bytes, put in place by a rename when the
    /// change is applied (see [`Change::write_staged`]); `content` is then `None`.
    pub staged: Option<std::path::PathBuf>,
    /// What the edit does, for the audit line.
    pub action: Action,
    /// One-line summary, for the audit line.
    pub(crate) summary: String,
    /// The file is not written: `content` is what it held when read, and that is what is
    /// committed ([`Change::keep`]).
    pub(crate) keep: bool,
}

/// A set of file edits that land together as one commit.
#[derive(Debug, Clone)]
pub struct Change {
    actor: Actor,
    approval: Approval,
    trigger: String,
    edits: Vec<FileEdit>,
    adopted: Vec<String>,
    subject: Option<(Action, String)>,
    require_clean: bool,
    subagent_ok: bool,
    /// Part of a purge, which may commit while its own record exists.
    purging: bool,
    /// Whether the uses recorded since the last change are folded into this commit.
    folds_uses: bool,
    /// A batch folded before the change (by `decay`'s plan) whose held-back uses go back to the
    /// access log once the change landed (see [`Change::defer_held`]).
    deferred: Option<access::Batch>,
    /// Memories this change gives a new id (old, new): their recorded uses fold under the new.
    renamed: BTreeMap<String, String>,
    notes: Vec<(Action, String, String)>,
    /// Audit lines made elsewhere, written as they are (see [`Change::record`]).
    recorded: Vec<AuditLine>,
    /// Set when this change seals `audit.log` into a segment: the header the new log starts
    /// with.
    sealed: Option<String>,
}

/// What an applied change produced.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The new commit's id.
    pub commit: String,
    /// Every file in the commit, the audit log included.
    pub files: Vec<String>,
    /// The commit message.
    pub message: String,
}

impl Change {
    /// Starts an empty change by `actor`, caused by `trigger` (e.g. `cogmem remember`).
    pub fn new(actor: Actor, trigger: impl Into<String>) -> Self {
        let approval = actor.default_approval();
        Self {
            actor,
            approval,
            trigger: trigger.into(),
            edits: Vec::new(),
            adopted: Vec::new(),
            subject: None,
            require_clean: true,
            subagent_ok: false,
            purging: false,
            folds_uses: true,
            deferred: None,
            renamed: BTreeMap::new(),
            notes: Vec::new(),
            recorded: Vec::new(),
            sealed: None,
        }
    }

    /// Sets the approval state recorded for the change.
    pub fn with_approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// Sets the commit subject's action and summary; by default the first edit's are used.
    pub fn with_subject(mut self, action: Action, summary: impl Into<String>) -> Self {
        self.subject = Some((action, summary.into()));
        self
    }

    /// Sets new content for a file. A later edit of the same file replaces the earlier one but
    /// keeps its place and its action (a file created and then extended is still a CREATE).
    pub fn write(
        &mut self,
        path: &str,
        content: Vec<u8>,
        action: Action,
        summary: impl Into<String>,
    ) {
        if let Some(e) = self.edits.iter_mut().find(|e| e.path == path) {
            e.content = Some(content);
            e.staged = None;
            e.keep = false;
            return;
        }
        self.edits.push(FileEdit {
            path: path.to_owned(),
            content: Some(content),
            staged: None,
            action,
            summary: summary.into(),
            keep: false,
        });
    }

    /// Commits `content` as the file `path` held when it was read (a hand edit `sync`
    /// records), with its audit line, without writing the file: an edit made to it since (a
    /// person typing while a watcher syncs) is never overwritten, and stays uncommitted for the
    /// next change to find. A later [`Change::write`] of the same path replaces it.
    pub fn keep(
        &mut self,
        path: &str,
        content: Vec<u8>,
        action: Action,
        summary: impl Into<String>,
    ) {
        // Kept only as a new edit: a file this change already writes is written.
        let new = !self.edits.iter().any(|e| e.path == path);
        self.write(path, content, action, summary);
        if new && let Some(e) = self.edits.last_mut() {
            e.keep = true;
        }
    }

    /// Sets new content for a file from a staged file: `staged`, under `.cogmem/` (so on the
    /// workspace's file system), already holds the file's whole new content, and is renamed
    /// into place when the change is applied ([`fsx::install`]), so a large file (an import's
    /// day) is never held in memory. A later [`Change::write`] of the same path replaces it.
    /// [`Change::pending`] does not see staged content.
    pub fn write_staged(
        &mut self,
        path: &str,
        staged: std::path::PathBuf,
        action: Action,
        summary: impl Into<String>,
    ) {
        if let Some(e) = self.edits.iter_mut().find(|e| e.path == path) {
            e.content = None;
            e.staged = Some(staged);
            e.keep = false;
            return;
        }
        self.edits.push(FileEdit {
            path: path.to_owned(),
            content: None,
            staged: Some(staged),
            action,
            summary: summary.into(),
            keep: false,
        });
    }

    /// Writes the decay files `decay` changed (the main file, shards) with one action and
    /// summary; with [`Action::Edit`], a shard file that does not exist yet is created.
    pub fn write_decay(
        &mut self,
        ws: &Workspace,
        decay: &mut DecayFile,
        action: Action,
        summary: &str,
    ) {
        self.write_decay_files(ws, decay.changed_files(), action, summary);
    }

    fn write_decay_files(
        &mut self,
        ws: &Workspace,
        files: Vec<(String, Option<String>)>,
        action: Action,
        summary: &str,
    ) {
        for (path, text) in files {
            let Some(text) = text else {
                // A shard of a layout the entries have left (decay_file::changed_files).
                self.delete(&path, Action::Delete, summary);
                continue;
            };
            let action = if action == Action::Edit
                && self.pending(&path).is_none()
                && !ws.abs(&path).exists()
            {
                Action::Create
            } else {
                action
            };
            self.write(&path, text.into_bytes(), action, summary);
        }
    }

    /// Deletes a file as part of the change.
    pub fn delete(&mut self, path: &str, action: Action, summary: impl Into<String>) {
        if let Some(e) = self.edits.iter_mut().find(|e| e.path == path) {
            e.content = None;
            e.staged = None;
            e.action = action;
            e.keep = false;
            return;
        }
        self.edits.push(FileEdit {
            path: path.to_owned(),
            content: None,
            staged: None,
            action,
            summary: summary.into(),
            keep: false,
        });
    }

    /// Returns the pending new content of a file, if this change already edits it.
    pub fn pending(&self, path: &str) -> Option<&[u8]> {
        self.edits.iter().find(|e| e.path == path).and_then(|e| e.content.as_deref())
    }

    /// Includes an existing file in the commit as it is, without an audit line (used when `init`
    /// adopts a workspace that had no git history).
    pub fn adopt(&mut self, path: &str) {
        self.adopted.push(path.to_owned());
    }

    /// Allows touching files that differ from `HEAD` (only `init`, which starts the history).
    pub fn allow_dirty(mut self) -> Self {
        self.require_clean = false;
        self
    }

    /// Adds an audit line about a memory rather than a file write (e.g. a DECAY band change),
    /// written after the per-file lines.
    pub fn note(&mut self, action: Action, file: &str, summary: impl Into<String>) {
        self.notes.push((action, file.to_owned(), summary.into()));
    }

    /// Adds an audit line that keeps its own time, actor and approval, written before the
    /// change's own lines: the hand edits of a commit made outside cogmem, which `adopt`
    /// records with that commit's author and time (issue 17).
    pub fn record(&mut self, line: AuditLine) {
        self.recorded.push(line);
    }

    /// Lets a sub-agent make this change (only proposals).
    pub fn allow_subagent(mut self) -> Self {
        self.subagent_ok = true;
        self
    }

    /// Marks the change as a step of a purge: the one writer allowed while a purge record
    /// (`.cogmem/purge.json`) exists. Every other change is refused then, so nothing commits
    /// over a half-rewritten history (issue 16).
    pub fn for_purge(mut self) -> Self {
        self.purging = true;
        self
    }

    /// Leaves the uses recorded since the last change for a later change to fold: `upkeep`
    /// commits its other work this way when the decay state cannot be read, since folding
    /// into it would fail the whole commit.
    pub fn without_use_fold(mut self) -> Self {
        self.folds_uses = false;
        self
    }

    /// Tells the change that it moves the decay entry of memory `from` to `to` (a procedure or
    /// vault note renamed by hand): uses recorded under `from` and folded by this change count
    /// for `to` instead of being dropped with the old id.
    pub fn carry_uses(&mut self, from: &str, to: &str) {
        self.renamed.insert(from.to_owned(), to.to_owned());
    }

    /// Puts the uses `batch` held back ([`access::Batch::hold_back`]) back in the access log
    /// once this change landed, for a caller that folded the batch itself before the change
    /// (`decay`, whose scores need the uses): the change's own fold then finds the batch folded
    /// already and holds back nothing of its own.
    pub fn defer_held(&mut self, batch: access::Batch) {
        if batch.has_held() {
            self.deferred = Some(batch);
        }
    }

    /// Tells whether the change has nothing to commit.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty() && self.adopted.is_empty()
    }

    /// Returns the edits, in order.
    pub fn edits(&self) -> &[FileEdit] {
        &self.edits
    }

    /// Applies the change: checks git is not in the middle of a merge, rebase, cherry-pick,
    /// revert or bisect ([`git::check_state`]) and no touched file has hand edits, writes every
    /// file atomically, appends one audit line per file (plus an ALERT line per critical file),
    /// and makes one commit with the actor as author. On any failure every touched file gets its earlier
    /// bytes back and the index entries are reset, and the error is returned.
    pub fn apply(
        self,
        ws: &Workspace,
        repo: &Repository,
        _lock: &LockGuard,
        clock: &dyn Clock,
    ) -> crate::Result<Applied> {
        if self.actor.is_subagent() && !self.subagent_ok {
            return Err(RuleError::SubagentWrite { actor: self.actor.to_string() }.into());
        }
        if !self.purging && crate::store::purged::PurgeRecord::is_pending(ws.root()) {
            let path = ws.abs(layout::PURGE_RECORD);
            return Err(crate::workspace::WorkspaceError::PurgePending { path }.into());
        }
        // Not in the middle of a merge, rebase, cherry-pick, revert or bisect.
        git::check_state(repo)?;
        // Uses recorded by reads since the last change are folded into this commit.
        let mut this = self;
        let mut batch = if this.folds_uses { access::begin(ws)? } else { None };
        let mut deferring = false;
        if let Some(b) = &mut batch {
            deferring = this.fold_accesses(ws, repo, b)?;
        }
        let this_deferred = this.deferred.take();
        let result = this.apply_inner(ws, repo, clock);
        if result.is_ok() {
            crash_point(ws, "after-commit");
        }
        if result.is_ok()
            && let Some(b) = &this_deferred
        {
            // Best effort, as below.
            let _ = access::defer(ws, b);
        }
        if result.is_ok()
            && let Some(b) = &batch
        {
            // The batch is recorded as folded; if this fails, the next fold only deletes it.
            let _ = access::finish(ws);
            if deferring {
                // Best effort, as any use: telemetry is not worth failing a landed change.
                let _ = access::defer(ws, b);
            }
        }
        result
    }

    /// Folds the batch into the decay files this change writes; returns whether it held back
    /// uses for [`access::defer`] to put back once the change landed.
    fn fold_accesses(
        &mut self,
        ws: &Workspace,
        repo: &Repository,
        batch: &mut access::Batch,
    ) -> crate::Result<bool> {
        if self.pending(layout::DECAY_SCORES).is_none() && !ws.abs(layout::DECAY_SCORES).exists() {
            return Ok(false);
        }
        self.hold_back_uncommitted(ws, repo, batch)?;
        // The decay state as this change leaves it so far: its pending files over the disk.
        let mut shards = crate::store::decay_file::shard_files(ws.root());
        for e in &self.edits {
            if let Some(name) =
                e.path.strip_prefix(layout::DECAY_SHARDS_DIR).and_then(|r| r.strip_prefix('/'))
                && let Some(n) = crate::store::decay_file::shard_number(name)
                && (e.content.is_some() || e.staged.is_some())
                && !shards.contains(&n)
            {
                shards.push(n);
            }
        }
        let mut decay = DecayFile::load_with(ws.root(), &shards, |rel| {
            match self.edits.iter().find(|e| e.path == rel) {
                Some(FileEdit { staged: Some(staged), .. }) => {
                    Ok(Some(fsx::read_text(staged, ws.file_limit())?))
                }
                Some(e) => Ok(e.content.as_ref().map(|c| String::from_utf8_lossy(c).into_owned())),
                None => Ok(ws.read_text_if_exists(rel)?),
            }
        })?;
        let marker_before = decay.access_fold().map(str::to_owned);
        batch.renamed.clone_from(&self.renamed);
        let folded = access::fold(batch, &mut decay);
        if decay.access_fold().map(str::to_owned) == marker_before {
            return Ok(false); // this batch was folded by a commit that landed before a crash
        }
        let note = format!("folded {} uses", folded.uses);
        let files = decay.changed_files();
        // A file this change writes already says what it does; the fold is added to it.
        for e in self.edits.iter_mut().filter(|e| files.iter().any(|(p, _)| *p == e.path)) {
            e.summary = format!("{}; {note}", e.summary);
        }
        self.write_decay_files(ws, files, Action::Edit, &note);
        Ok(batch.has_held())
    }

    /// Holds back the uses of memories without a decay entry whose file this commit does not
    /// hold as they are: a file it neither writes nor keeps that differs from `HEAD` (a hand
    /// edit `sync` leaves uncommitted, or any other command leaves alone), or a file it writes
    /// without the memory. Folding them would commit an entry for a memory that is in no
    /// committed file.
    fn hold_back_uncommitted(
        &self,
        ws: &Workspace,
        repo: &Repository,
        batch: &mut access::Batch,
    ) -> crate::Result<()> {
        if batch.unentered().next().is_none() {
            return Ok(());
        }
        let tree = git::head_tree(repo)?;
        batch.hold_back_uncommitted(ws.root(), tree.as_ref(), |id, path| {
            let Some(e) = self.edits.iter().find(|e| e.path == path) else { return Ok(None) };
            let text = match (&e.content, &e.staged) {
                (Some(bytes), _) => Some(String::from_utf8_lossy(bytes).into_owned()),
                (None, Some(staged)) => Some(fsx::read_text(staged, ws.file_limit())?),
                (None, None) => None,
            };
            Ok(Some(text.is_some_and(|t| units::file_units(path, &t).iter().any(|u| u.id == id))))
        })
    }

    fn apply_inner(
        self,
        ws: &Workspace,
        repo: &Repository,
        clock: &dyn Clock,
    ) -> crate::Result<Applied> {
        let root = ws.root();
        // Every path comes from code, but some are built from names users and agents pass:
        // none may leave the workspace.
        for p in self.edits.iter().map(|e| &e.path).chain(&self.adopted) {
            fsx::check_relative("file path", p)?;
        }
        // The audit log is appended to: a link there (a peer's, into `.git/`) is refused before
        // anything is written, so nothing needs undoing.
        fsx::check_no_link(&root.join(layout::AUDIT_LOG), "append to")?;
        // Nor is any file it writes a link, wherever it leads: a peer's commit can make
        // `memory/graph/entities/x.md` a link into `.git/config`, and replacing it would
        // commit what it led to (issue 16).
        for p in self.edits.iter().map(|e| &e.path).chain(&self.adopted) {
            fsx::check_no_link(&root.join(p), "write")?;
        }
        let mut touched: Vec<String> = self.edits.iter().map(|e| e.path.clone()).collect();
        if !touched.iter().any(|p| p == layout::AUDIT_LOG) {
            touched.push(layout::AUDIT_LOG.to_owned());
        }
        let mut this = self;
        this.adopted.retain(|p| !touched.contains(p));
        this.seal_audit_log(ws, &mut touched)?;
        let this = this;
        // The files this change writes: a kept one is committed as read, never written, so it
        // has nothing to check, put back or undo.
        let kept: Vec<&str> =
            this.edits.iter().filter(|e| e.keep).map(|e| e.path.as_str()).collect();
        let written: Vec<String> =
            touched.iter().filter(|p| !kept.contains(&p.as_str())).cloned().collect();
        // A NUL byte cannot be in a commit message: refuse before anything is written, as bad
        // input (every field that reaches the message is checked earlier where it is named).
        let message = this.message(ws);
        if let Some(offset) = message.find('\0') {
            return Err(crate::error::InputError::Nul { field: "commit message", offset }.into());
        }
        let now = clock.now();
        let lines = this.audit_lines(ws, now);
        // When every byte the commit will hold is known now, its objects are written on a
        // second thread while this one checks, journals and writes the files (issue 20).
        // Objects no branch points to change nothing anyone sees; the branch moves only after
        // the files are written, as before.
        let planned = this.planned(ws, &touched, &lines);
        let spec = CommitSpec { message: &message, author: this.actor.as_str(), time: now };
        std::thread::scope(|scope| {
            let ahead = planned.as_deref().map(|planned| {
                let spec = &spec;
                scope.spawn(move || build_ahead(root, planned, spec))
            });
            let ahead = ahead.zip(planned.as_deref());
            this.check_journal_write_commit(ws, repo, (&touched, &written), &lines, &spec, ahead)
        })
    }

    /// The rest of [`Change::apply_inner`]: the clean check, the journal, the files, the audit
    /// lines and the commit (from `ahead`'s objects when it built them).
    fn check_journal_write_commit(
        &self,
        ws: &Workspace,
        repo: &Repository,
        (touched, written): (&[String], &[String]),
        lines: &[AuditLine],
        spec: &CommitSpec<'_>,
        ahead: Option<(Ahead<'_>, &Planned<'_>)>,
    ) -> crate::Result<Applied> {
        let root = ws.root();
        let this = self;
        // Each file's stamp before the clean check: a file saved by another program after it
        // (while the journal is made, or between two files) is found before it is replaced,
        // and the change stops instead of writing over the edit (the bytes it writes were made
        // from the file as it was).
        let stamps: BTreeMap<&str, Option<fsx::FileStamp>> =
            written.iter().map(|p| (p.as_str(), fsx::stamp(&root.join(p)))).collect();
        if this.require_clean {
            let tree = git::head_tree(repo)?;
            let dirty = git::dirty_files(repo, root, tree.as_ref(), written)?;
            if !dirty.is_empty() {
                return Err(WorkspaceError::HandEdited { paths: dirty }.into());
            }
        }
        crate::timing::mark("change: clean check");
        let snapshot = Snapshot::take(ws, written)?;
        // The journal: which files this change writes, with a copy of those that differ from
        // HEAD, so that a process killed half-way can be undone exactly (workspace::journal).
        let dirty: Vec<String> = if this.require_clean {
            Vec::new() // checked above: every touched file is as in HEAD
        } else {
            let tree = git::head_tree(repo)?;
            git::dirty_files(repo, root, tree.as_ref(), written)?
        };
        let entries: Vec<(String, journal::Before)> = snapshot
            .files
            .iter()
            .map(|(rel, bytes)| {
                let before = match (dirty.contains(rel), bytes) {
                    (false, _) => journal::Before::Head,
                    (true, Some(b)) => journal::Before::Copy(b.clone()),
                    (true, None) => journal::Before::Absent,
                };
                (rel.clone(), before)
            })
            .collect();
        let head = git::head_id(repo)?.map(|id| id.to_string());
        journal::begin(root, head.as_deref(), &entries)?;
        crate::timing::mark("change: snapshot and journal");
        let mut replaced = 0;
        let result =
            this.write_and_commit(ws, repo, (touched, &stamps, &mut replaced), lines, spec, ahead);
        match result {
            Ok(commit) => {
                // Committed: the journal has served. If removing it fails, the next lock
                // holder sees HEAD moved and only removes it.
                let _ = journal::end(root);
                let mut files = touched.to_vec();
                files.extend(this.adopted.iter().cloned());
                Ok(Applied { commit, files, message: spec.message.to_owned() })
            }
            Err(err) => {
                // Cut off among the files: only those it replaced go back (one it never
                // reached may hold another program's edit, which is not the change's to undo).
                let put_back = if replaced < this.edits.len() {
                    let done: Vec<&str> = this.edits[..replaced]
                        .iter()
                        .filter(|e| !e.keep)
                        .map(|e| e.path.as_str())
                        .collect();
                    snapshot.restore_only(root, |p| done.contains(&p))
                } else {
                    snapshot.restore(root)
                };
                git::reset_index(repo, touched);
                // Whatever could not be put back, the journal still knows: the next command to
                // take the lock finishes the job.
                if put_back {
                    let _ = journal::end(root);
                }
                Err(err)
            }
        }
    }

    /// Past `audit.rotate_bytes`, the audit log as it stands becomes a sealed segment in
    /// `memory/meta/audit/` (a file this change creates, with its own audit line) and
    /// `audit.log` starts again from its header with this change's lines. Every commit stores
    /// the log whole, so an unbounded log made each change slower and the history larger.
    fn seal_audit_log(&mut self, ws: &Workspace, touched: &mut Vec<String>) -> crate::Result<()> {
        let limit = ws.settings().audit.rotate_bytes;
        if limit == 0 || self.edits.iter().any(|e| e.path == layout::AUDIT_LOG) {
            return Ok(());
        }
        let abs = ws.abs(layout::AUDIT_LOG);
        let Ok(md) = std::fs::metadata(&abs) else { return Ok(()) };
        if md.len() <= limit {
            return Ok(());
        }
        let bytes = fsx::read(&abs, ws.file_limit())?;
        let text = String::from_utf8_lossy(&bytes);
        let segment = crate::audit::segment_name(ws.root(), &text);
        let lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
        self.sealed = Some(crate::audit::header_of(&text));
        self.edits.push(FileEdit {
            path: segment.clone(),
            content: Some(bytes.clone()),
            staged: None,
            action: Action::Create,
            summary: format!("audit.log sealed ({lines} lines); it starts again"),
            keep: false,
        });
        touched.push(segment);
        Ok(())
    }

    /// Writes the files, appends the audit lines and commits. `replaced` counts the edits
    /// done, for the rollback; `stamps` are the files' [`fsx::FileStamp`]s before the clean
    /// check, which each file must still have when it is replaced.
    fn write_and_commit(
        &self,
        ws: &Workspace,
        repo: &Repository,
        (touched, stamps, replaced): (
            &[String],
            &BTreeMap<&str, Option<fsx::FileStamp>>,
            &mut usize,
        ),
        lines: &[AuditLine],
        spec: &CommitSpec<'_>,
        ahead: Option<(Ahead<'_>, &Planned<'_>)>,
    ) -> crate::Result<String> {
        let root = ws.root();
        crash_point(ws, "before-write");
        hand_edit_point(ws, self.edits.iter().find(|e| !e.keep).map(|e| e.path.as_str()));
        let written = ws.progress(self.edits.len() as u64, "files written");
        for (i, e) in self.edits.iter().enumerate() {
            written.inc();
            let abs = root.join(&e.path);
            if !e.keep && stamps.get(e.path.as_str()).is_some_and(|s| *s != fsx::stamp(&abs)) {
                return Err(
                    WorkspaceError::ChangedWhileWriting { paths: vec![e.path.clone()] }.into()
                );
            }
            match (&e.content, &e.staged) {
                _ if e.keep => {} // committed as read, never written
                (Some(bytes), _) => fsx::write_atomic(&abs, bytes)?,
                (None, Some(staged)) => fsx::install(staged, &abs)?,
                (None, None) => fsx::remove_file(&abs)?,
            }
            *replaced = i + 1;
            if i == 0 {
                crash_point(ws, "mid-write");
            }
        }
        crate::timing::mark("change: files written");
        crash_point(ws, "before-audit");
        let audit = root.join(layout::AUDIT_LOG);
        match &self.sealed {
            Some(header) => {
                fsx::write_atomic(&audit, crate::audit::restarted(header, lines).as_bytes())?;
            }
            None => crate::audit::append(&audit, lines)?,
        }
        crate::timing::mark("change: audit appended");
        crash_point(ws, "before-commit");
        let mut files = touched.to_vec();
        files.extend(self.adopted.iter().cloned());
        // Built on the commit HEAD still names (git run by hand in between moves it: the commit
        // is then made from the files, on the new HEAD, as before).
        let built = ahead
            .and_then(|(thread, planned)| Some((thread.join().ok()??, planned)))
            .filter(|(built, _)| built.is_on(repo));
        let id = match built {
            // Every file committed from the bytes planned: each index entry vouches for its
            // file only while the file holds them.
            Some((built, planned)) => {
                let kept: Vec<(&str, &[u8])> =
                    planned.iter().filter_map(|(p, b)| Some((p.as_str(), b.as_deref()?))).collect();
                git::finish_commit(repo, root, &files, &kept, &built)?
            }
            None => {
                let kept: Vec<(&str, &[u8])> = self
                    .edits
                    .iter()
                    .filter(|e| e.keep)
                    .filter_map(|e| Some((e.path.as_str(), e.content.as_deref()?)))
                    .collect();
                git::commit_files(repo, root, &files, &kept, spec)?
            }
        };
        // The program decides how a due repack runs (the binary starts it in the background);
        // the library only counts, and only when asked to.
        if let Some(hook) = &ws.options().on_repack_due
            && git::is_repack_due(repo.path(), &ws.settings().git)
        {
            hook(repo.path());
        }
        Ok(id.to_string())
    }

    /// The audit lines of this change, stamped `now`: one per file it writes (and an ALERT line
    /// per critical file), then its notes.
    fn audit_lines(&self, ws: &Workspace, now: crate::Timestamp) -> Vec<AuditLine> {
        let mut lines = self.recorded.clone();
        let ts = now.with_timezone(&chrono::Utc);
        for e in self.edits.iter().filter(|e| e.path != layout::AUDIT_LOG) {
            let critical = is_critical(ws, &e.path);
            let summary = if critical {
                format!("{}{}", crate::audit::CRITICAL_PREFIX, e.summary)
            } else {
                e.summary.clone()
            };
            lines.push(AuditLine {
                timestamp: ts,
                action: e.action,
                file: e.path.clone(),
                actor: self.actor.to_string(),
                approval: self.approval,
                summary,
            });
            if critical {
                lines.push(AuditLine::alert(&e.path, ts));
            }
        }
        for (action, file, summary) in &self.notes {
            lines.push(AuditLine {
                timestamp: ts,
                action: *action,
                file: file.clone(),
                actor: self.actor.to_string(),
                approval: self.approval,
                summary: summary.clone(),
            });
        }
        lines
    }

    /// What each of `touched` will hold once this change is written (`None`: removed), when
    /// all of it is known before anything is written: no file installed from a staging file,
    /// none adopted as found. The audit log is what [`crate::audit::append`] makes of it with
    /// `lines` (or the sealed log's header and `lines`).
    fn planned(
        &self,
        ws: &Workspace,
        touched: &[String],
        lines: &[AuditLine],
    ) -> Option<Vec<PlannedFile<'_>>> {
        if !self.adopted.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(touched.len());
        for rel in touched {
            // The last edit of a path is what the file holds.
            let edit = self.edits.iter().rev().find(|e| e.path == *rel);
            let bytes: Option<Cow<'_, [u8]>> = match edit {
                Some(FileEdit { staged: Some(_), content: None, .. }) => return None,
                Some(e) => e.content.as_deref().map(Cow::Borrowed),
                None if rel == layout::AUDIT_LOG => None,
                None => return None,
            };
            if rel != layout::AUDIT_LOG {
                out.push((rel.clone(), bytes));
                continue;
            }
            let log = match (&self.sealed, bytes, edit) {
                (Some(header), ..) => crate::audit::restarted(header, lines).into_bytes(),
                (None, None, Some(_)) => return None, // removed, then appended to
                (None, written, _) => {
                    // As written by this change, or as on disk (unreadable now: the commit is
                    // made from the file once appended to, and the append reports the error).
                    let mut log = match written {
                        Some(written) => written.into_owned(),
                        None => {
                            fsx::read_if_exists(&ws.abs(rel), u64::MAX).ok()?.unwrap_or_default()
                        }
                    };
                    log.extend_from_slice(
                        crate::audit::addition(log.last().copied(), lines).as_bytes(),
                    );
                    log
                }
            };
            out.push((rel.clone(), Some(Cow::Owned(log))));
        }
        Some(out)
    }

    /// Builds the structured commit message (design.md §4).
    fn message(&self, ws: &Workspace) -> String {
        let audited: Vec<&FileEdit> =
            self.edits.iter().filter(|e| e.path != layout::AUDIT_LOG).collect();
        let (action, summary) = match (&self.subject, audited.first()) {
            (Some((a, s)), _) => (*a, s.clone()),
            (None, Some(e)) => (e.action, e.summary.clone()),
            (None, None) => (Action::Edit, "update".to_owned()),
        };
        let main = audited.first().map_or(layout::AUDIT_LOG, |e| e.path.as_str());
        let more = audited.len().saturating_sub(1) + self.adopted.len();
        let critical = self.edits.iter().any(|e| is_critical(ws, &e.path));
        commit_message(&CommitMessage {
            action,
            main,
            more,
            summary: &summary,
            actor: self.actor.as_str(),
            approval: self.approval,
            trigger: &self.trigger,
            critical,
        })
    }
}

/// Each file a change commits with what it will hold (`None`: removed), known before anything
/// is written ([`Change::planned`]).
type Planned<'a> = [PlannedFile<'a>];

/// A file a change commits and what it will hold (`None`: removed).
type PlannedFile<'a> = (String, Option<Cow<'a, [u8]>>);

/// The thread writing a commit's objects while its files are written ([`build_ahead`]).
type Ahead<'s> = std::thread::ScopedJoinHandle<'s, Option<git::Built>>;

/// The objects of a commit of `planned` (each path with what it will hold, `None` removed)
/// on top of `HEAD`, written through a repository handle of this thread's own; `None` when
/// they are not built here (git's filters may apply to a file, the repository cannot be
/// opened, a write failed), and the commit is then made from the files once written.
fn build_ahead(root: &Path, planned: &Planned<'_>, spec: &CommitSpec<'_>) -> Option<git::Built> {
    let repo = git::open(root).ok()?;
    if git::filters_possible(&repo, root, planned.iter().map(|(p, _)| p.as_str())) {
        return None;
    }
    let sources: Vec<(&str, git::Source<'_>)> = planned
        .iter()
        .map(|(p, bytes)| {
            (p.as_str(), bytes.as_deref().map_or(git::Source::Removed, git::Source::Bytes))
        })
        .collect();
    git::build_commit(&repo, root, &sources, spec).ok()
}

/// The fields of a change's commit message.
struct CommitMessage<'a> {
    action: Action,
    /// The main file.
    main: &'a str,
    /// How many other files.
    more: usize,
    summary: &'a str,
    actor: &'a str,
    approval: Approval,
    trigger: &'a str,
    critical: bool,
}

/// Renders a commit message (design.md §4): subject `[ACTION] FILE — SUMMARY` (`FILE +N` for
/// several files), a blank line, the `Actor:`, `Approval:` and `Trigger:` lines, and the
/// critical-file mark. The file and the actor are [`clean_field`](crate::audit::clean_field)s
/// and the summary and the trigger [`clean_summary`](crate::audit::clean_summary)s, so no value
/// (a file name a peer chose included) can add a line to the message.
fn commit_message(m: &CommitMessage<'_>) -> String {
    let main = crate::audit::clean_field(m.main);
    let files = if m.more > 0 { format!("{main} +{}", m.more) } else { main };
    let mut msg = format!(
        "[{}] {files} — {}\n\nActor: {}\nApproval: {}\nTrigger: {}\n",
        m.action.as_str(),
        crate::audit::clean_summary(m.summary),
        crate::audit::clean_field(m.actor),
        m.approval.as_str(),
        crate::audit::clean_summary(m.trigger),
    );
    if m.critical {
        msg.push_str(CRITICAL_MARK);
        msg.push('\n');
    }
    msg
}

fn is_critical(ws: &Workspace, rel: &str) -> bool {
    ws.settings().audit.is_critical(rel)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods, reason = "tests set up files directly")]
    use super::*;

    // See: issue 16
    /// Hostile file names, actors, summaries and triggers: the message keeps its subject, blank
    /// line and three trailer lines, and the critical mark appears only when asked for.
    #[test]
    fn issue_16_commit_message_fields_are_data_never_syntax() {
        use crate::store::hostile;
        use proptest::prelude::*;
        let strategy =
            (hostile::value(), hostile::value(), hostile::value(), hostile::value(), any::<bool>());
        hostile::runner(96)
            .run(&strategy, |(main, actor, summary, trigger, critical)| {
                let msg = commit_message(&CommitMessage {
                    action: Action::Append,
                    main: &main,
                    more: 2,
                    summary: &summary,
                    actor: &actor,
                    approval: Approval::Auto,
                    trigger: &trigger,
                    critical,
                });
                let lines: Vec<&str> = msg.lines().collect();
                prop_assert_eq!(lines.len(), 5 + usize::from(critical), "{:?}", msg);
                prop_assert!(lines[0].starts_with("[APPEND] ") && lines[1].is_empty());
                prop_assert!(lines[0].contains(" +2 — "), "{:?}", lines[0]);
                let actor_line = format!("Actor: {}", crate::audit::clean_field(&actor));
                prop_assert_eq!(lines[2].trim_end(), actor_line.trim_end());
                prop_assert_eq!(lines[3], "Approval: auto");
                prop_assert!(lines[4].starts_with("Trigger: "));
                prop_assert_eq!(msg.matches(CRITICAL_MARK).count(), usize::from(critical));
                prop_assert!(!msg.contains(['\r', '\0']), "{:?}", msg);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn snapshot_puts_back_changed_created_and_removed_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("kept.md"), "before\n").unwrap();
        std::fs::write(root.join("gone.md"), "was here\n").unwrap();
        let paths: Vec<String> =
            ["kept.md", "gone.md", "new.md"].iter().map(|p| (*p).to_owned()).collect();
        let snapshot = Snapshot::take(root, &paths).unwrap();
        std::fs::write(root.join("kept.md"), "after\n").unwrap();
        std::fs::remove_file(root.join("gone.md")).unwrap();
        std::fs::write(root.join("new.md"), "made by the failed change\n").unwrap();
        assert!(snapshot.restore(root));
        assert_eq!(std::fs::read_to_string(root.join("kept.md")).unwrap(), "before\n");
        assert_eq!(std::fs::read_to_string(root.join("gone.md")).unwrap(), "was here\n");
        assert!(!root.join("new.md").exists());
    }
}
