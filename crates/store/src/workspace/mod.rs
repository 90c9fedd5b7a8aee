//! A workspace: the folder that holds an agent's memory, its settings, and the lock that lets
//! only one cogmem process change it at a time.
//!
//! Finding a workspace works like git finding a repository ([`discover`]); every path a
//! workspace has is named in [`layout`].

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::audit::Actor;
use crate::error::{ErrorKind, RuleError};
use crate::progress;
use crate::settings::Settings;
use crate::store::fsx::{self, IoError};

pub mod discover;
pub mod journal;
pub mod layout;

/// Problems with the workspace as a whole.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No workspace in the folder or any parent.
    #[error("not inside a cogmem workspace (searched {} and its parents)", start.display())]
    NotFound {
        /// Where the search started.
        start: PathBuf,
    },
    /// The folder named by `--workspace` or `COGMEM_WORKSPACE` is not a workspace.
    #[error("{} is not a cogmem workspace (it has no MEMORY.md and memory/ folder)", path.display())]
    NotAWorkspace {
        /// The folder.
        path: PathBuf,
    },
    /// The workspace has no git repository of its own.
    #[error("{} has no git repository", path.display())]
    NoRepository {
        /// The workspace root.
        path: PathBuf,
    },
    /// Another process held the lock for the whole wait.
    #[error("{} is locked by another cogmem command (waited {waited_ms} ms)", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How long the wait was.
        waited_ms: u64,
    },
    /// Files the change would touch have uncommitted edits.
    #[error("uncommitted edits in the way: {}", paths.join(", "))]
    HandEdited {
        /// The edited files, relative to the workspace root.
        paths: Vec<String>,
    },
    /// A file the change writes was changed by another program while the change was being
    /// made (after the check that it holds what was committed): nothing of the change is kept.
    #[error("{} changed while cogmem was writing: another program or an editor saved it; nothing was written", paths.join(", "))]
    ChangedWhileWriting {
        /// The files, relative to the workspace root.
        paths: Vec<String>,
    },
    /// A purge was interrupted; nothing else may commit until it is finished.
    #[error("{} names a purge that was interrupted; nothing is written until it is finished", path.display())]
    PurgePending {
        /// The purge record.
        path: PathBuf,
    },
}

impl WorkspaceError {
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Self::HandEdited { .. }
            | Self::ChangedWhileWriting { .. }
            | Self::PurgePending { .. } => ErrorKind::Conflict,
            _ => ErrorKind::User,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            Self::NotFound { .. } | Self::NotAWorkspace { .. } => {
                "create one with `cogmem init`, or point to one with `--workspace PATH` or \
                 COGMEM_WORKSPACE"
                    .into()
            }
            Self::NoRepository { .. } => {
                "run `cogmem init` in the workspace to start its git history".into()
            }
            Self::Locked { .. } => {
                "wait for the other command to finish and try again; the lock is released when \
                 its process exits, or raise `lock.timeout_ms` in cogmem.toml"
                    .into()
            }
            Self::HandEdited { .. } => {
                "commit them with `cogmem sync`, or discard them with `git checkout -- FILE`, \
                 so that cogmem's commit does not swallow them"
                    .into()
            }
            Self::ChangedWhileWriting { .. } => {
                "the edit is kept in the file, uncommitted: commit it with `cogmem sync` (or let \
                 `cogmem watch` do it), then run the command again"
                    .into()
            }
            Self::PurgePending { .. } => {
                "run `cogmem status` (any cogmem command finishes the purge first), then try again"
                    .into()
            }
        })
    }
}

/// An open workspace: its root folder, its settings, and the options of the program using it.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    settings: Settings,
    options: WorkspaceOptions,
}

/// Called with the repository's git folder when a commit leaves more loose objects than
/// `git.auto_pack_loose`, or more of their megabytes than `git.auto_pack_loose_mb` (see
/// [`WorkspaceOptions::on_repack_due`]).
pub(crate) type RepackHook = Arc<dyn Fn(&Path) + Send + Sync>;

/// Called with the workspace root when an index update leaves segments that tantivy's merge
/// policy would merge (see [`WorkspaceOptions::on_merge_due`]).
pub(crate) type MergeHook = Arc<dyn Fn(&Path) + Send + Sync>;

/// Called after a change with the workspace root, the index lock (held) and the files the
/// change committed, to bring the search index up to date in a process of its own (see
/// [`WorkspaceOptions::on_index_update`]); gives the lock back when it could not.
pub(crate) type IndexHook =
    Arc<dyn Fn(&Path, std::fs::File, &[String]) -> Result<(), std::fs::File> + Send + Sync>;

/// How this program uses a workspace: choices of the program that opens it (the `cogmem`
/// binary sets them from its environment), never read from `cogmem.toml`, and never shared
/// with another [`Workspace`] value in the same process except its clones.
#[derive(Clone)]
pub struct WorkspaceOptions {
    /// How long a read waits for `cogmem watch` to answer its cookie before it stats every
    /// memory file instead (50 ms by default).
    pub watch_wait: Duration,
    /// What to do when a commit leaves more loose git objects than `git.auto_pack_loose` (or
    /// more megabytes of them than `git.auto_pack_loose_mb`): the binary starts `git repack` in
    /// the background (a write never waits for it). `None` (the default) packs nothing and does
    /// not count; an embedder may instead call
    /// [`git::repack`](crate::git::repack) when it suits it.
    pub on_repack_due: Option<RepackHook>,
    /// What to do when an update of the search index leaves segments to merge: the binary
    /// starts a merge in a process of its own, in the background, so no write waits for one
    /// (issue 20). `None` (the default) merges nothing until `cogmem reindex` or an embedder
    /// calls `cogmem_index::index::merge::run`.
    pub on_merge_due: Option<MergeHook>,
    /// Who brings the search index up to date after a change: the binary hands the index lock
    /// to a process of its own that indexes the committed files while the command returns, so
    /// a write does not wait for tantivy (issue 20); a read that comes first waits for the lock
    /// and finds the index up to date. `None` (the default, and the long-running commands'
    /// choice) indexes in the command itself.
    pub on_index_update: Option<IndexHook>,
    /// Fault injection for crash trials: the point inside [`Change::apply`](crate::change::Change::apply)
    /// where the process kills itself (SIGKILL), one of
    /// [`CRASH_POINTS`](crate::change::CRASH_POINTS). Only with the `crash-points` feature.
    #[cfg(feature = "crash-points")]
    pub crash_at: Option<String>,
    /// Who this program acts for. A sub-agent (`subagent:NAME`) is refused the workspace lock,
    /// and so every write but a proposal ([`Workspace::lock`]), whatever actor the change
    /// itself records (`system:decay`, `system:init`, …). `None` (the default) checks only
    /// each change's own actor.
    pub caller: Option<Actor>,
    /// Where long operations report their progress (issue 20): the binary draws a bar on a
    /// terminal. `None` (the default) reports to [`progress::Silent`].
    pub progress: Option<progress::Sink>,
    /// An embedding model folder that replaces `[search] embedding_model` (the binary sets it
    /// from `COGMEM_EMBEDDING_MODEL`).
    pub embedding_model: Option<std::path::PathBuf>,
    /// Whether the reads of this program are one operation that shares one scan of the memory
    /// files: a read after this process scanned every file, and while the index manifest is as
    /// that scan left it, trusts that scan instead of stat-ing every file again (a hook hears a
    /// prompt and then searches for it: two scans of 13,000 files at 100,000 memories). `false`
    /// (the default, and the long-running commands' choice, whose every read must see the
    /// hand edits made since the one before); the binary sets it for `hook`.
    pub one_scan: bool,
    /// The most memory files a read may index again before it answers: past it (or when the
    /// index must be built from scratch) the read fails with the index's `Behind` error instead
    /// of catching up, which after a killed `reindex --full` on a large workspace takes minutes.
    /// `None` (the default): no limit. The binary sets it for `hook`, whose host may kill a
    /// slow hook, and starts `cogmem reindex` in the background when a read was held back.
    pub refresh_limit: Option<usize>,
}

impl WorkspaceOptions {
    /// Tells whether the caller ([`WorkspaceOptions::caller`]) is a sub-agent, which may only
    /// propose: it is refused every other write ([`WorkspaceOptions::check_writer`]), and its
    /// reads record no uses (`access::record`: reinforcement changes what decays, a write).
    pub fn is_subagent_caller(&self) -> bool {
        self.caller.as_ref().is_some_and(Actor::is_subagent)
    }

    /// Refuses a sub-agent caller's `allow_secret`: whether something that looks like a
    /// credential may be kept is a person's call, and an approved proposal is not scanned again.
    pub fn check_secret_allowed(&self, allow_secret: bool) -> crate::Result<()> {
        match &self.caller {
            Some(a) if allow_secret && a.is_subagent() => {
                Err(RuleError::SubagentSecret { actor: a.to_string() }.into())
            }
            _ => Ok(()),
        }
    }

    /// Refuses a sub-agent caller ([`WorkspaceOptions::is_subagent_caller`]): the one role
    /// gate every write goes through, through [`Workspace::lock`] or, before a workspace
    /// exists, `cogmem init`, and `touch`, which records a use without a lock.
    pub fn check_writer(&self) -> crate::Result<()> {
        match &self.caller {
            Some(a) if a.is_subagent() => {
                Err(RuleError::SubagentWrite { actor: a.to_string() }.into())
            }
            _ => Ok(()),
        }
    }
}

impl Default for WorkspaceOptions {
    fn default() -> Self {
        Self {
            watch_wait: Duration::from_millis(50),
            on_repack_due: None,
            on_merge_due: None,
            on_index_update: None,
            #[cfg(feature = "crash-points")]
            crash_at: None,
            caller: None,
            progress: None,
            embedding_model: None,
            one_scan: false,
            refresh_limit: None,
        }
    }
}

impl std::fmt::Debug for WorkspaceOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("WorkspaceOptions");
        d.field("watch_wait", &self.watch_wait)
            .field("on_repack_due", &self.on_repack_due.as_ref().map(|_| "Fn(&Path)"))
            .field("on_merge_due", &self.on_merge_due.as_ref().map(|_| "Fn(&Path)"))
            .field(
                "on_index_update",
                &self.on_index_update.as_ref().map(|_| "Fn(&Path, File, &[String])"),
            );
        #[cfg(feature = "crash-points")]
        d.field("crash_at", &self.crash_at);
        d.field("caller", &self.caller);
        d.field("progress", &self.progress.as_ref().map(|_| "dyn Progress"));
        d.field("embedding_model", &self.embedding_model);
        d.field("one_scan", &self.one_scan);
        d.field("refresh_limit", &self.refresh_limit);
        d.finish()
    }
}

/// Where files are read from and the largest one read: a [`Workspace`] (its
/// `limits.file_bytes`) or a bare folder ([`fsx::DEFAULT_FILE_LIMIT`]).
pub trait ReadRoot {
    /// The folder that relative paths are joined to.
    fn root(&self) -> &Path;
    /// The largest file read, in bytes.
    fn file_limit(&self) -> u64;
}

impl ReadRoot for Workspace {
    fn root(&self) -> &Path {
        &self.root
    }
    fn file_limit(&self) -> u64 {
        self.settings.limits.file_bytes
    }
}

impl ReadRoot for Path {
    fn root(&self) -> &Path {
        self
    }
    fn file_limit(&self) -> u64 {
        fsx::DEFAULT_FILE_LIMIT
    }
}

impl ReadRoot for PathBuf {
    fn root(&self) -> &Path {
        self
    }
    fn file_limit(&self) -> u64 {
        fsx::DEFAULT_FILE_LIMIT
    }
}

/// Proof that this process holds the workspace lock; dropping it releases the lock.
///
/// While held, the lock file names the holder (`pid N`); a clean release empties it. A lock file
/// that still names a process when the lock is free was left by a process that died holding it
/// (killed, or the machine stopped): the next holder takes it over and says so in
/// [`LockGuard::took_over`], so that `cogmem doctor` can look for the change it interrupted.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
    took_over: Option<LockRecord>,
    recovered: Option<journal::Recovered>,
    /// The early flush of the file system's pending metadata ([`early_flush`]), joined on drop.
    flush: Option<std::thread::JoinHandle<()>>,
}

impl LockGuard {
    /// The record a dead holder left behind, when this lock was taken over from one.
    pub fn took_over(&self) -> Option<&LockRecord> {
        self.took_over.as_ref()
    }

    /// What taking the lock did with a change journal a dead process left (see
    /// [`journal`]): nothing when there was none.
    pub fn recovered(&self) -> Option<&journal::Recovered> {
        self.recovered.as_ref()
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Empty the record before the OS lock goes with the file handle; best effort (a
        // record left behind only makes the next holder report a takeover).
        let _ = self.file.set_len(0);
        if let Some(flush) = self.flush.take() {
            let _ = flush.join();
        }
    }
}

/// Starts flushing what the file system holds pending (the metadata of the last commands'
/// writes, which ext4 commits every five seconds) while the lock holder reads and plans, so
/// that the change's first `fsync` (its journal's) waits for its own bytes only, not for
/// everything written since the last commit of the file system's journal: 5 ms after a
/// `remember` on this machine, against 0.4 ms on a quiet one (issue 20, decisions.md).
/// Syncing the folder `.cogmem/` writes nothing of it; any error only means the change's own
/// `fsync` does the work, as before.
fn early_flush(dir: &Path) -> Option<std::thread::JoinHandle<()>> {
    let dir = File::open(dir).ok()?;
    std::thread::Builder::new()
        .name("cogmem-flush".to_owned())
        .spawn(move || {
            let _ = dir.sync_all();
        })
        .ok()
}

/// The read side of the workspace lock (see [`Workspace::read_lock`]); dropping it releases it.
///
/// While it is held no change is in flight: every writer holds the write side from before its
/// journal is written until after its commit (or its rollback), so files, HEAD, the audit log
/// and the journal are all at rest.
#[derive(Debug)]
pub struct ReadGuard {
    _file: Option<File>,
    probe: LockProbe,
}

impl ReadGuard {
    /// The lock as it was found: [`LockProbe::Free`] or [`LockProbe::Stale`] when the read
    /// side was taken (or there is no lock file yet), [`LockProbe::Held`] when a writer held
    /// the lock for the whole wait and the read side was not taken.
    pub fn probe(&self) -> &LockProbe {
        &self.probe
    }
}

/// Which side of an OS file lock to take (see [`wait_for_lock`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockSide {
    /// Shared: several readers at once, no writer.
    Read,
    /// Exclusive: one writer, no reader.
    Write,
}

/// Takes a side of the OS lock on `file`, waiting up to `timeout` (pauses growing from 1 to
/// 5 ms); `Ok(false)` when it stayed held for the whole wait. The one wait loop of the
/// workspace lock, its read side and the index lock. The pauses stay short: a search waiting
/// for the index update of the change just made (about 100 ms) found the lock free up to 50 ms
/// after it was let go (issue 20), and a try costs one system call.
pub fn wait_for_lock(file: &File, side: LockSide, timeout: Duration) -> std::io::Result<bool> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let tried = match side {
            LockSide::Read => file.try_lock_shared(),
            LockSide::Write => file.try_lock(),
        };
        match tried {
            Ok(()) => return Ok(true),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(e),
        }
        let waited = started.elapsed();
        if waited >= timeout {
            return Ok(false);
        }
        std::thread::sleep(pause.min(timeout - waited));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// What the workspace lock file says about its holder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LockRecord {
    /// The holder's process id.
    pub pid: u32,
    /// Whether that process still runs (`None` where the platform cannot tell).
    pub alive: Option<bool>,
}

impl LockRecord {
    /// Reads a record (`pid N`); `None` for an empty or unreadable one.
    fn parse(text: &str) -> Option<Self> {
        let pid = text.lines().find_map(|l| l.trim().strip_prefix("pid "))?.trim().parse().ok()?;
        Some(Self { pid, alive: process_alive(pid) })
    }
}

/// Tells whether a process runs, where the platform can tell without unsafe code. A zombie (a
/// process that died, not yet reaped by its parent) keeps its `/proc` entry but runs no more.
fn process_alive(pid: u32) -> Option<bool> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = fsx::read_text_if_exists(Path::new(&format!("/proc/{pid}/stat")), 4096);
    Some(stat.ok().flatten().is_some_and(|s| is_running_stat(&s)))
}

/// Whether `/proc/PID/stat` describes a process that runs: its state (the field after the
/// command name, which is in parentheses and may itself hold `)` and spaces) is neither `Z`
/// (zombie) nor `X` (dead).
fn is_running_stat(stat: &str) -> bool {
    let state = stat.rfind(')').and_then(|i| stat[i + 1..].split_whitespace().next());
    !matches!(state, Some("Z" | "X" | "x"))
}

/// The workspace lock as another process sees it, without waiting and without changing it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum LockProbe {
    /// Nobody holds it and it names nobody.
    Free,
    /// Nobody holds it, but it names a process that died holding it.
    Stale {
        /// The record left behind.
        record: LockRecord,
    },
    /// A running command holds it.
    Held {
        /// The holder, if its record is readable yet.
        record: Option<LockRecord>,
    },
}

fn read_record(file: &mut File) -> Option<LockRecord> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    LockRecord::parse(&text)
}

impl Workspace {
    /// Opens the workspace at `root`, loading `cogmem.toml`.
    ///
    /// Fails when `root` is not a workspace or its settings are malformed.
    pub fn open(root: &Path) -> crate::Result<Self> {
        if !layout::is_workspace(root) {
            return Err(WorkspaceError::NotAWorkspace { path: root.to_owned() }.into());
        }
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
        let settings = Settings::load(&root)?;
        Ok(Self { root, settings, options: WorkspaceOptions::default() })
    }

    /// Builds a workspace for a folder that is being laid out (`init`), without the check
    /// that it already is one.
    pub fn preparing(root: &Path, settings: Settings) -> Self {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
        Self { root, settings, options: WorkspaceOptions::default() }
    }

    /// Returns the workspace with these options (see [`WorkspaceOptions`]).
    #[must_use]
    pub fn with_options(mut self, options: WorkspaceOptions) -> Self {
        self.options = options;
        self
    }

    /// Returns the program's options for this workspace.
    pub fn options(&self) -> &WorkspaceOptions {
        &self.options
    }

    /// Starts a phase of long work of `total` units (`None`: unknown), each a `unit` (a plural
    /// noun), on the program's progress sink ([`WorkspaceOptions::progress`]). Count with
    /// [`progress::Task::inc`]; the phase ends when the task is dropped.
    pub fn progress(&self, total: impl Into<Option<u64>>, unit: &str) -> progress::Task<'_> {
        progress::Task::start(self.progress_sink(), total.into(), unit)
    }

    /// The program's progress sink ([`WorkspaceOptions::progress`], else [`progress::Silent`]),
    /// for work that starts its phases away from the workspace (a history rewrite).
    pub fn progress_sink(&self) -> &dyn progress::Progress {
        match &self.options.progress {
            Some(s) => s.as_ref(),
            None => &progress::Silent,
        }
    }

    /// The largest file read from this workspace: `limits.file_bytes`.
    pub fn file_limit(&self) -> u64 {
        self.settings.limits.file_bytes
    }

    /// Reads a workspace file (`rel`, relative to the root) of at most [`Self::file_limit`]
    /// bytes (see [`fsx::read`]).
    pub fn read(&self, rel: &str) -> Result<Vec<u8>, IoError> {
        fsx::read(&self.abs(rel), self.file_limit())
    }

    /// Reads a workspace file, or `None` when it does not exist (see [`Self::read`]).
    pub fn read_if_exists(&self, rel: &str) -> Result<Option<Vec<u8>>, IoError> {
        fsx::read_if_exists(&self.abs(rel), self.file_limit())
    }

    /// Reads a UTF-8 workspace file (see [`Self::read`] and [`fsx::read_text`]).
    pub fn read_text(&self, rel: &str) -> crate::Result<String> {
        fsx::read_text(&self.abs(rel), self.file_limit())
    }

    /// Reads a UTF-8 workspace file, or `None` when it does not exist.
    pub fn read_text_if_exists(&self, rel: &str) -> crate::Result<Option<String>> {
        fsx::read_text_if_exists(&self.abs(rel), self.file_limit())
    }

    /// Returns the root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Returns the settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Returns the absolute path of a workspace-relative path.
    pub fn abs(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Takes the workspace lock to write, waiting up to `lock.timeout_ms`.
    ///
    /// Every write takes it, so this is where a sub-agent caller is refused
    /// ([`WorkspaceOptions::check_writer`], exit 4) before anything is touched; a proposal,
    /// the one write a sub-agent may make, takes [`Workspace::lock_to_propose`] instead. The
    /// lock is an OS file lock on `.cogmem/lock`, so it is released even when the holder is
    /// killed. Fails with [`WorkspaceError::Locked`] when the wait runs out.
    pub fn lock(&self) -> crate::Result<LockGuard> {
        self.options.check_writer()?;
        self.lock_to_propose()
    }

    /// Takes the workspace lock like [`Workspace::lock`], for any caller, sub-agents included:
    /// only for recording a proposal.
    pub fn lock_to_propose(&self) -> crate::Result<LockGuard> {
        let path = self.abs(layout::LOCK);
        let file = fsx::open_lock_file(&path)?;
        let timeout = Duration::from_millis(self.settings.lock.timeout_ms);
        let started = Instant::now();
        if !wait_for_lock(&file, LockSide::Write, timeout)
            .map_err(|e| IoError::new(&path, "lock", e))?
        {
            let waited = started.elapsed();
            return Err(WorkspaceError::Locked {
                path,
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            }
            .into());
        }
        let mut guard = Self::hold(file, &path)?;
        // Holding the lock, a change journal can only be a dead process's.
        if journal::pending(&self.root) {
            guard.recovered = journal::recover(&self.root, self.file_limit())?;
        }
        Ok(guard)
    }

    /// Takes the workspace lock only when it is free this instant and no change journal waits
    /// to be recovered: for a read that tidies on its way and must neither wait nor recover
    /// (`status` refreshing git's index). `None` otherwise, and for a sub-agent caller.
    pub fn try_lock_now(&self) -> Option<LockGuard> {
        if self.options.check_writer().is_err() || journal::pending(&self.root) {
            return None;
        }
        let path = self.abs(layout::LOCK);
        let file = fsx::open_lock_file(&path).ok()?;
        if !wait_for_lock(&file, LockSide::Write, Duration::ZERO).ok()? {
            return None;
        }
        let guard = Self::hold(file, &path).ok()?;
        // A writer that died before this look began left its journal: not this read's to undo.
        (!journal::pending(&self.root)).then_some(guard)
    }

    /// Takes the read side of the workspace lock, waiting up to `lock.timeout_ms` for a
    /// writer to finish, without changing the lock file (nor recovering a journal): several
    /// readers may hold it at once, and writers wait for them. When the wait runs out, the
    /// guard holds nothing and says who held the lock ([`ReadGuard::probe`]).
    pub fn read_lock(&self) -> crate::Result<ReadGuard> {
        let path = self.abs(layout::LOCK);
        if !path.exists() {
            return Ok(ReadGuard { _file: None, probe: LockProbe::Free });
        }
        let mut file = fsx::open_lock_file(&path)?;
        let timeout = Duration::from_millis(self.settings.lock.timeout_ms);
        if !wait_for_lock(&file, LockSide::Read, timeout)
            .map_err(|e| IoError::new(&path, "lock", e))?
        {
            let record = read_record(&mut file);
            return Ok(ReadGuard { _file: None, probe: LockProbe::Held { record } });
        }
        let probe = match read_record(&mut file) {
            Some(record) if record.pid != std::process::id() => LockProbe::Stale { record },
            _ => LockProbe::Free,
        };
        Ok(ReadGuard { _file: Some(file), probe })
    }

    /// Writes this process's record into the freshly locked file, noting a dead holder's.
    fn hold(mut file: File, path: &Path) -> crate::Result<LockGuard> {
        // We hold the OS lock, so whoever the file still names is not holding it any more.
        let took_over = read_record(&mut file).filter(|r| r.pid != std::process::id());
        let record = format!("pid {}\n", std::process::id());
        // Overwrite first and cut after, so that a process killed in between still leaves a
        // record (its own line first; the rest of the old one after it is ignored), never an
        // empty file that would hide the crash.
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(record.as_bytes()))
            .and_then(|()| file.set_len(record.len() as u64))
            .and_then(|()| file.flush())
            .map_err(|e| IoError::new(path, "write", e))?;
        let flush = path.parent().and_then(early_flush);
        Ok(LockGuard { file, took_over, recovered: None, flush })
    }

    /// Looks at the lock without waiting for it and without changing its file: free, held by
    /// a running command, or left behind by a process that died holding it.
    pub fn probe_lock(&self) -> crate::Result<LockProbe> {
        let path = self.abs(layout::LOCK);
        if !path.exists() {
            return Ok(LockProbe::Free);
        }
        let mut file = fsx::open_lock_file(&path)?;
        match file.try_lock() {
            Ok(()) => {
                let record = read_record(&mut file);
                drop(file); // closing the handle releases the OS lock; the file is unchanged
                Ok(match record {
                    Some(record) if record.pid != std::process::id() => LockProbe::Stale { record },
                    _ => LockProbe::Free,
                })
            }
            Err(TryLockError::WouldBlock) => Ok(LockProbe::Held { record: read_record(&mut file) }),
            Err(TryLockError::Error(e)) => Err(IoError::new(&path, "lock", e).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        fsx::write_atomic(&dir.path().join(layout::MEMORY_MD), b"# Memory\n").expect("write");
        fsx::create_dir_all(&dir.path().join(layout::MEMORY_DIR)).expect("mkdir");
        let ws = Workspace::open(dir.path()).expect("open");
        (dir, ws)
    }

    /// A workspace whose `cogmem.toml` says `limits.file_bytes = limit`.
    fn workspace_limited(limit: u64) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        fsx::write_atomic(&dir.path().join(layout::MEMORY_MD), b"# Memory\n").expect("write");
        fsx::create_dir_all(&dir.path().join(layout::MEMORY_DIR)).expect("mkdir");
        let toml = format!("[limits]\nfile_bytes = {limit}\n");
        fsx::write_atomic(&dir.path().join("cogmem.toml"), toml.as_bytes()).expect("write");
        let ws = Workspace::open(dir.path()).expect("open");
        (dir, ws)
    }

    #[test]
    fn two_workspaces_in_one_process_keep_their_own_file_limits() {
        let (_small_dir, small) = workspace_limited(1024);
        let (_large_dir, large) = workspace_limited(4096);
        let text = format!("# Memory\n\n- {}\n", "x".repeat(2000));
        for ws in [&small, &large] {
            fsx::write_atomic(&ws.abs(layout::MEMORY_MD), text.as_bytes()).expect("write");
        }
        let err = small.read_text(layout::MEMORY_MD).expect_err("over 1024 bytes");
        assert!(err.to_string().contains("over the limit of 1024 bytes"), "{err}");
        assert_eq!(large.read_text(layout::MEMORY_MD).expect("under 4096 bytes"), text);
        // Opening another workspace changes nothing for those already open.
        let _other = workspace_limited(1024);
        assert_eq!(large.read_text(layout::MEMORY_MD).expect("still under 4096"), text);
        let _other = workspace_limited(8192);
        assert!(small.read_if_exists(layout::MEMORY_MD).is_err());
        // The store's readers that take a workspace apply its limit too.
        let skipped = |ws: &Workspace| crate::store::units::list(ws).skipped.len();
        assert_eq!((skipped(&small), skipped(&large)), (1, 0));
        // Without a workspace (a bare folder), the default limit applies.
        assert_eq!(ReadRoot::file_limit(small.root()), fsx::DEFAULT_FILE_LIMIT);
        assert_eq!(skipped_in_folder(small.root()), 0);
    }

    fn skipped_in_folder(root: &Path) -> usize {
        crate::store::units::list(root).skipped.len()
    }

    #[test]
    fn a_held_lock_names_its_holder_and_a_released_one_is_empty() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
        let guard = ws.lock().expect("lock");
        assert!(guard.took_over().is_none());
        let text = ws.read_text(layout::LOCK).expect("read");
        assert_eq!(text, format!("pid {}\n", std::process::id()));
        drop(guard);
        assert_eq!(ws.read_text(layout::LOCK).expect("read"), "");
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
    }

    #[test]
    fn a_dead_holders_lock_is_reported_stale_and_taken_over() {
        let (_dir, ws) = workspace();
        // A process id that cannot be running: above Linux's pid_max limit (2^22).
        let dead = 4_194_305;
        fsx::write_atomic(&ws.abs(layout::LOCK), format!("pid {dead}\n").as_bytes())
            .expect("write");
        match ws.probe_lock().expect("probe") {
            LockProbe::Stale { record } => {
                assert_eq!(record.pid, dead);
                if cfg!(target_os = "linux") {
                    assert_eq!(record.alive, Some(false));
                }
            }
            other => panic!("expected a stale lock, got {other:?}"),
        }
        // Probing changed nothing.
        assert_eq!(ws.read_text(layout::LOCK).expect("read"), format!("pid {dead}\n"));
        let guard = ws.lock().expect("the stale lock is taken over at once");
        assert_eq!(guard.took_over().map(|r| r.pid), Some(dead));
        drop(guard);
        assert_eq!(ws.probe_lock().expect("probe"), LockProbe::Free);
    }

    #[test]
    fn a_zombie_or_dead_process_is_not_running() {
        let cases = [
            ("4242 (cogmem) S 1 4242 4242 0 -1", true),
            ("4242 (cogmem) R 1 4242", true),
            ("4242 (cogmem) Z 1 4242 4242 0 -1", false),
            ("4242 (cogmem) X 1", false),
            ("4242 (a) Z (b) S 1", true),
            ("4242 (odd) name) Z 1", false),
        ];
        for (input, want) in cases {
            assert_eq!(is_running_stat(input), want, "input: {input:?}");
        }
    }
}
