//! The workspace's git history: opening or starting the repository, committing exactly the files
//! a change touched (never whatever else happens to be staged), restoring touched files from
//! `HEAD` after a failure, and reading status and history.
//!
//! A commit is built from `HEAD`'s tree plus the touched files, its object written first and the
//! branch moved last with a compare-and-swap on the old tip, so a concurrent writer or a crash
//! can never leave a half-made commit on the branch.

use std::path::{Path, PathBuf};

use git2::{
    ErrorCode, FileMode, ObjectType, Oid, Repository, RepositoryInitOptions, RepositoryOpenFlags,
    RepositoryState, Signature, Status, StatusOptions, Time, Tree,
};
use serde::Serialize;

use crate::Timestamp;
use crate::error::ErrorKind;
use crate::git_index::{EntryStat, GitIndex};
use crate::workspace::WorkspaceError;

/// A failed git operation.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The repository exists but cannot be opened.
    #[error("{}: the git repository cannot be opened: {}", path.display(), cause.message())]
    Open {
        /// The workspace root.
        path: PathBuf,
        /// libgit2's error (its message is part of ours, so it is not a `source`).
        cause: git2::Error,
    },
    /// An operation on an open repository failed.
    #[error("git could not {what}: {}", cause.message())]
    Op {
        /// What was being done.
        what: &'static str,
        /// libgit2's error (its message is part of ours, so it is not a `source`).
        cause: git2::Error,
    },
    /// HEAD does not point at a branch, so a commit would be left behind.
    #[error("HEAD is detached; cogmem commits to a branch")]
    Detached,
    /// A merge, rebase, cherry-pick, revert or bisect is under way in the repository: a commit
    /// now would land in the middle of it (or commit its conflict markers).
    #[error(
        "a git {} is in progress in the workspace; cogmem writes nothing until it is finished \
         or aborted",
        state_name(*state)
    )]
    InProgress {
        /// What git is in the middle of.
        state: RepositoryState,
    },
}

/// The git command a [`RepositoryState`] is the middle of, as users type it.
pub fn state_name(state: RepositoryState) -> &'static str {
    match state {
        RepositoryState::Clean => "clean",
        RepositoryState::Merge => "merge",
        RepositoryState::Revert | RepositoryState::RevertSequence => "revert",
        RepositoryState::CherryPick | RepositoryState::CherryPickSequence => "cherry-pick",
        RepositoryState::Bisect => "bisect",
        RepositoryState::Rebase
        | RepositoryState::RebaseInteractive
        | RepositoryState::RebaseMerge
        | RepositoryState::ApplyMailboxOrRebase => "rebase",
        RepositoryState::ApplyMailbox => "am",
    }
}

/// How to finish or abort what git is in the middle of.
fn state_hint(state: RepositoryState) -> String {
    match state_name(state) {
        "bisect" => "end the bisect with `git bisect reset`, then run the command again".into(),
        name => format!(
            "resolve any conflicts, `git add` the files and finish with `git {name} --continue`, \
             or give up with `git {name} --abort`; then run the command again"
        ),
    }
}

impl GitError {
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Self::Open { .. } => ErrorKind::User,
            Self::Op { cause, .. } if cause.code() == ErrorCode::Locked => ErrorKind::User,
            Self::Op { .. } => ErrorKind::Internal,
            Self::Detached => ErrorKind::User,
            Self::InProgress { .. } => ErrorKind::Conflict,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Self::Open { .. } => Some(
                "check the repository with `git fsck`; restore `.git` from a backup or clone if \
                 it is damaged"
                    .into(),
            ),
            Self::Op { cause, .. } if cause.code() == ErrorCode::Locked => {
                Some(if cause.message().contains("index") {
                    "another git process is using the index; wait for it, or remove `.git/index.lock` if no git command is running".into()
                } else {
                    "another git process holds a lock in .git; wait for it, or remove the `.lock` file named above if no git command is running".into()
                })
            }
            Self::Detached => Some("check out a branch first, e.g. `git switch main`".into()),
            Self::InProgress { state } => Some(state_hint(*state)),
            Self::Op { .. } => None,
        }
    }
}

fn op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

/// Makes libgit2 read objects as git does, for the whole process: without hashing each one
/// again to check its id. libgit2 does that by default (SHA-1 with collision detection, several
/// times slower than the SHA-1 of the rest of cogmem), and a commit reads every tree on its
/// changed paths: thousands of entries for the episode logs' folder (issue 20). git itself
/// checks ids only in `git fsck`; objects fetched from a peer are still hashed when their pack
/// is indexed, and a damaged object still fails to inflate. The binary calls this first; a
/// program embedding the library decides for itself.
pub fn read_objects_as_git_does() {
    git2::opts::strict_hash_verification(false);
}

/// Opens the repository whose working folder is `root` (parents are not searched).
///
/// A folder without `.git` is [`WorkspaceError::NoRepository`]; a damaged one is
/// [`GitError::Open`].
pub fn open(root: &Path) -> crate::Result<Repository> {
    match Repository::open_ext(root, RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>()) {
        Ok(repo) => {
            // A damaged HEAD opens fine but breaks every later step: report it as damage now.
            let damaged = match repo.head() {
                Err(e) if !matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                    Some(e)
                }
                _ => None,
            };
            match damaged {
                Some(cause) => Err(GitError::Open { path: root.to_owned(), cause }.into()),
                None => Ok(repo),
            }
        }
        Err(e) if e.code() == ErrorCode::NotFound && !root.join(".git").exists() => {
            Err(WorkspaceError::NoRepository { path: root.to_owned() }.into())
        }
        Err(cause) => Err(GitError::Open { path: root.to_owned(), cause }.into()),
    }
}

/// Refuses a write while git is in the middle of a merge, rebase, cherry-pick, revert or bisect
/// ([`GitError::InProgress`]): cogmem's commit would land inside the user's operation, and a
/// conflicted file's markers would be committed as memory. Every write checks this, under the
/// lock, before it touches a file.
pub fn check_state(repo: &Repository) -> crate::Result<()> {
    match repo.state() {
        RepositoryState::Clean => Ok(()),
        state => Err(GitError::InProgress { state }.into()),
    }
}

/// Starts a repository at `root` with `main` as the first branch.
pub fn init(root: &Path) -> crate::Result<Repository> {
    let mut opts = RepositoryInitOptions::new();
    opts.initial_head("main").no_reinit(true);
    Repository::init_opts(root, &opts).map_err(|e| op("create the repository")(e).into())
}

/// Returns `HEAD`'s tree, or `None` before the first commit.
pub fn head_tree(repo: &Repository) -> crate::Result<Option<Tree<'_>>> {
    match repo.head() {
        Ok(head) => {
            let tree = head.peel_to_tree().map_err(op("read HEAD's tree"))?;
            Ok(Some(tree))
        }
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(op("read HEAD")(e).into()),
    }
}

/// Returns the id of `HEAD`'s commit, or `None` before the first commit.
pub fn head_id(repo: &Repository) -> crate::Result<Option<Oid>> {
    match repo.head() {
        Ok(head) => Ok(head.target()),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(op("read HEAD")(e).into()),
    }
}

/// `HEAD`'s commit read from the files under `root/.git`, without opening the repository
/// (libgit2 reads three config files and stats a dozen paths to open one): `HEAD` naming a
/// branch whose loose ref holds an id, which is what a cogmem commit leaves, or a detached
/// `HEAD`. `None` when it cannot tell that way (a packed ref, an unborn branch, `.git` a file,
/// a ref naming a ref): the caller asks the repository. For a quick "did `HEAD` move?"; the
/// answer is only as fresh as the moment the files were read.
pub fn head_id_from_files(root: &Path) -> Option<Oid> {
    let read = |path: PathBuf| -> Option<String> {
        let bytes = crate::store::fsx::read(&path, 4096).ok()?;
        String::from_utf8(bytes).ok()
    };
    let id =
        |text: &str| Oid::from_str(text.trim_end()).ok().filter(|_| text.trim_end().len() == 40);
    let git = root.join(".git");
    let head = read(git.join("HEAD"))?;
    let Some(target) = head.trim_end().strip_prefix("ref: ") else { return id(&head) };
    // A branch's ref file, by a name that stays under refs/heads/.
    let plain = target.strip_prefix("refs/heads/").is_some_and(|name| {
        !name.is_empty()
            && name.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
            && !name.contains(['\\', '\0', '\n', '\r'])
    });
    if !plain {
        return None;
    }
    id(&read(git.join(target))?)
}

/// The commits from `head` back to `stop` along first parents, newest first, when `head`
/// reaches `stop` through at most `max` commits that each have one parent and pass `accept`;
/// `None` otherwise (a merge, a commit refused, a longer stretch, an unreadable commit). Then
/// they are all the commits `head` has and `stop` has not, found without a history walk
/// (issue 20: libgit2's walks parse far more than the few commits in between).
pub fn first_parent_chain(
    repo: &Repository,
    head: Oid,
    stop: Oid,
    max: usize,
    accept: impl Fn(&git2::Commit<'_>) -> bool,
) -> Option<Vec<Oid>> {
    let mut out = Vec::new();
    let mut id = head;
    while id != stop {
        if out.len() >= max {
            return None;
        }
        let c = repo.find_commit(id).ok()?;
        if c.parent_count() != 1 || !accept(&c) {
            return None;
        }
        out.push(id);
        id = c.parent_id(0).ok()?;
    }
    Some(out)
}

/// The blob and mode `rel` has in `tree`. A change asks this of the same tree for the same
/// files up to three times (the clean check, the journal, the commit's modes), and libgit2
/// keeps no tree over 4 KB in its cache: the 10,000-entry tree of `memory/graph/entities/` was
/// inflated each time (issue 20). A tree never changes under its id, so answers are kept for
/// the process (a few hundred at most).
fn blob_id_at(tree: Option<&Tree<'_>>, rel: &str) -> Option<(Oid, i32)> {
    type Kept = std::collections::HashMap<(Oid, String), Option<(Oid, i32)>>;
    static KEPT: std::sync::Mutex<Option<Kept>> = std::sync::Mutex::new(None);
    let tree = tree?;
    let key = (tree.id(), rel.to_owned());
    if let Ok(kept) = KEPT.lock()
        && let Some(answer) = kept.as_ref().and_then(|k| k.get(&key))
    {
        return *answer;
    }
    let answer = tree
        .get_path(Path::new(rel))
        .ok()
        .and_then(|e| (e.kind() == Some(ObjectType::Blob)).then(|| (e.id(), e.filemode())));
    if let Ok(mut kept) = KEPT.lock() {
        let kept = kept.get_or_insert_with(Kept::new);
        if kept.len() >= 512 {
            kept.clear();
        }
        kept.insert(key, answer);
    }
    answer
}

/// Whether git would write the index without its checksum: `index.skipHash`, which
/// `feature.manyFiles` turns on when it is not set itself (git 2.40). A reader of any version
/// since (git, libgit2 1.8) takes an all-zero checksum as "not computed".
fn skip_hash(repo: &Repository) -> bool {
    let Ok(config) = repo.config() else { return false };
    config
        .get_bool("index.skipHash")
        .or_else(|_| config.get_bool("feature.manyFiles"))
        .unwrap_or(false)
}

/// Returns a file's content in `HEAD`, or `None` when `HEAD` does not have it.
pub fn read_at_head(
    repo: &Repository,
    tree: Option<&Tree<'_>>,
    rel: &str,
) -> crate::Result<Option<Vec<u8>>> {
    let Some((id, _)) = blob_id_at(tree, rel) else { return Ok(None) };
    let blob = repo.find_blob(id).map_err(op("read a file from HEAD"))?;
    Ok(Some(blob.content().to_vec()))
}

/// Tells whether the working copy of `rel` differs from `HEAD` (edited, new or deleted).
pub fn is_dirty(root: &Path, tree: Option<&Tree<'_>>, rel: &str) -> crate::Result<bool> {
    let abs = root.join(rel);
    let at_head = blob_id_at(tree, rel).map(|(id, _)| id);
    if !abs.exists() {
        return Ok(at_head.is_some());
    }
    let Some(at_head) = at_head else { return Ok(true) };
    let on_disk = Oid::hash_file(ObjectType::Blob, &abs).map_err(op("hash a working file"))?;
    Ok(on_disk != at_head)
}

/// The files among `rels` whose working copy differs from `HEAD` (edited, new or deleted).
///
/// Like git, it trusts the index's stat data: a file whose size, mtime and inode match its
/// index entry, and whose entry holds HEAD's blob, is clean without being read. Any other file
/// — or one modified no earlier than the index was written, which the stat data cannot vouch
/// for ("racy git") — is hashed and compared.
pub(crate) fn dirty_files(
    repo: &Repository,
    root: &Path,
    tree: Option<&Tree<'_>>,
    rels: &[String],
) -> crate::Result<Vec<String>> {
    // The index read as bytes, only the entries asked for looked up (`git_index`); libgit2's
    // whole read is for the kinds of index that module leaves to it.
    let fast = GitIndex::read(repo.path());
    let slow = if fast.is_none() { repo.index().ok() } else { None };
    let lookup = |rel: &str| match (&fast, &slow) {
        (Some(index), _) => index.get(rel),
        (None, Some(index)) => index.get_path(Path::new(rel), 0).map(|e| EntryStat {
            id: e.id,
            mtime: (e.mtime.seconds() as u32, e.mtime.nanoseconds()),
            size: e.file_size,
            ino: e.ino,
        }),
        (None, None) => None,
    };
    let index_mtime = repo.path().join("index").metadata().and_then(|m| m.modified()).ok();
    let mut dirty = Vec::new();
    for rel in rels {
        let at_head = blob_id_at(tree, rel).map(|(id, _)| id);
        if let (Some(entry), Some(at_head), Some(index_mtime)) = (lookup(rel), at_head, index_mtime)
            && stat_clean(&entry, &root.join(rel), at_head, index_mtime)
        {
            continue;
        }
        if is_dirty(root, tree, rel)? {
            dirty.push(rel.clone());
        }
    }
    Ok(dirty)
}

#[cfg(unix)]
fn stat_clean(
    entry: &EntryStat,
    abs: &Path,
    at_head: Oid,
    index_mtime: std::time::SystemTime,
) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(m) = abs.symlink_metadata() else { return false };
    let racy = m.modified().map_or(true, |t| t >= index_mtime);
    entry.id == at_head
        && !racy
        && i64::from(entry.mtime.0) == m.mtime()
        && i64::from(entry.mtime.1) == m.mtime_nsec()
        && u64::from(entry.size) == m.size() & 0xFFFF_FFFF
        && entry.ino == m.ino() as u32
}

#[cfg(not(unix))]
fn stat_clean(_: &EntryStat, _: &Path, _: Oid, _: std::time::SystemTime) -> bool {
    false
}

/// Whether the repository (its git folder, `git_dir`) holds more loose objects than
/// `git.auto_pack_loose` or more loose bytes than `git.auto_pack_loose_mb`, so that a
/// `git repack -d -l` is due (0 turns either trigger off). libgit2 writes every object loose
/// and never packs; a memory workspace rewrites its audit log and decay file on every change,
/// so without packing `.git` grows by the size of those files, compressed, per commit (3.4 GB
/// after 10,000 commits), where a pack stores each version as a small delta. The size trigger
/// bounds what the large trees written with their blocks stored take (`git_loose`): a few
/// hundred of them pass it long before they are thousands of objects.
///
/// Both are git's kind of estimate (the objects in `objects/17`, × 256), or exact counts for
/// thresholds under 2,560 objects or 16 MB (what tests set). The change engine asks after each
/// commit when the program gave it a [`RepackHook`](crate::workspace::RepackHook); the library
/// itself never starts a process in the background. The `cogmem` binary starts `git repack`
/// ([`REPACK_ARGS`]) detached and does not wait for it (see [`claim_repack`]); an embedder may
/// call [`repack`] instead, when it suits it.
pub(crate) fn is_repack_due(git_dir: &Path, git: &crate::settings::GitSettings) -> bool {
    let (count_limit, mb_limit) = (git.auto_pack_loose, git.auto_pack_loose_mb);
    if count_limit == 0 && mb_limit == 0 {
        return false;
    }
    let objects = git_dir.join("objects");
    // (objects, bytes) loose in one folder of `objects/`.
    let loose_in = |dir: &Path| -> (u64, u64) {
        std::fs::read_dir(dir).map_or((0, 0), |d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().len() == 38)
                .filter_map(|e| e.metadata().ok().filter(std::fs::Metadata::is_file))
                .fold((0, 0), |(n, b), m| (n + 1, b + m.len()))
        })
    };
    let exact = (1..2_560).contains(&count_limit) || (1..16).contains(&mb_limit);
    let (count, bytes) = if exact {
        (0..=255u8)
            .map(|b| loose_in(&objects.join(format!("{b:02x}"))))
            .fold((0, 0), |(n, b), (n2, b2)| (n + n2, b + b2))
    } else {
        let (n, b) = loose_in(&objects.join("17"));
        (n * 256, b * 256)
    };
    count_limit > 0 && count > count_limit || mb_limit > 0 && bytes > mb_limit * 1024 * 1024
}

/// The arguments of the repack cogmem runs: loose objects into a new pack, and packs rolled up
/// geometrically (each pack at least twice the objects of all smaller ones together), so the
/// number of packs grows with the logarithm of the history, not with it (issue 20). libgit2
/// looks an object up pack by pack: with `repack -d` alone, every repack added one more pack,
/// and every write of a year-old workspace searched a hundred of them.
pub const REPACK_ARGS: [&str; 5] = ["repack", "-d", "-l", "-q", "--geometric=2"];

/// The repack of a git older than 2.32, which has no `--geometric`: loose objects into a new
/// pack.
pub const REPACK_ARGS_PLAIN: [&str; 4] = ["repack", "-d", "-l", "-q"];

/// The lock that lets one repack run at a time, in the git folder.
pub(crate) const REPACK_LOCK: &str = "cogmem-repack.lock";

/// Claims the right to repack: creates `.git/cogmem-repack.lock` and returns its path, or
/// `None` when a repack runs already (a lock older than an hour is taken to be left by a crash
/// and replaced). Whoever claims it removes the lock when git is done — the binary's detached
/// shell does, whatever becomes of the cogmem process — or at once with [`release_repack`]
/// when git could not be started.
///
/// git writes the pack before deleting a loose object, so a reader running meanwhile always
/// finds every object. When the repack removes an object folder that a commit is writing into,
/// the commit's object write fails and is retried (`write_object`).
pub fn claim_repack(git_dir: &Path) -> Option<PathBuf> {
    let lock = git_dir.join(REPACK_LOCK);
    let stale = std::fs::metadata(&lock)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > std::time::Duration::from_secs(3600)));
    if stale {
        let _ = crate::store::fsx::remove_file(&lock);
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&lock) {
        Ok(_) => Some(lock),
        Err(_) => None, // one is running
    }
}

/// Gives up a claim made with [`claim_repack`] (removes the lock).
pub fn release_repack(lock: &Path) {
    let _ = crate::store::fsx::remove_file(lock);
}

/// Runs [`REPACK_ARGS`] (or, with a git too old for it, [`REPACK_ARGS_PLAIN`]) on the
/// repository now and waits for it (for an embedding program: the `cogmem` binary runs it in
/// the background instead). Returns whether a repack ran and succeeded; `false` when one runs
/// already or `git` is not on `PATH`.
pub fn repack(git_dir: &Path) -> bool {
    let Some(lock) = claim_repack(git_dir) else { return false };
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("--git-dir")
            .arg(git_dir)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let ok = run(&REPACK_ARGS) || run(&REPACK_ARGS_PLAIN);
    release_repack(&lock);
    ok
}

/// Runs an object write, again (up to three times in all) when it failed because a folder
/// under `objects/` vanished: a background `git repack -d` removes the object folders it
/// emptied, and libgit2 may have just made one to write into. The write is idempotent.
pub(crate) fn write_object<T>(
    mut write: impl FnMut() -> Result<T, git2::Error>,
) -> Result<T, git2::Error> {
    let mut tries = 0;
    loop {
        match write() {
            Err(e)
                if tries < 2
                    && e.class() == git2::ErrorClass::Os
                    && e.message().contains("No such file or directory") =>
            {
                tries += 1;
            }
            other => return other,
        }
    }
}

/// Renders the change from `old` to `new` as a unified diff: a `--- OLD_LABEL` and a `+++
/// NEW_LABEL` line (`/dev/null` names a side where the file does not exist), then libgit2's
/// hunks with three lines of context.
pub fn unified_diff(
    (old_label, old): (&str, &str),
    (new_label, new): (&str, &str),
) -> crate::Result<String> {
    let op = |cause| GitError::Op { what: "diff a file", cause };
    let mut out = format!("--- {old_label}\n+++ {new_label}\n");
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut patch = git2::Patch::from_buffers(a, None, b, None, None).map_err(op)?;
    patch
        .print(&mut |_, _, line| {
            let content = String::from_utf8_lossy(line.content());
            match line.origin() {
                '+' | '-' | ' ' => {
                    out.push(line.origin());
                    out.push_str(&content);
                }
                'H' | '>' | '<' | '=' => out.push_str(&content),
                _ => {}
            }
            true
        })
        .map_err(op)?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// A commit's subject: the first line of its message.
pub fn subject(c: &git2::Commit<'_>) -> String {
    String::from_utf8_lossy(c.message_bytes()).lines().next().unwrap_or("").to_owned()
}

/// Stores a change's files as blobs, as `git add` would.
///
/// libgit2's `blob_path` looks up each file's attributes for filters (end-of-line conversion,
/// `ident`, filter drivers), and that lookup reads the whole git index: 8 ms of a `remember` at
/// 100,000 memories (issue 20). Where no filter can apply to any of the change's files (no
/// attributes file that names one, `core.autocrlf` off; looked at once per change) the bytes
/// are stored as they are, which is what the filters would have produced; otherwise libgit2
/// runs them for every file.
pub struct Blobs<'r> {
    repo: &'r Repository,
    root: &'r Path,
    filtered: bool,
}

impl<'r> Blobs<'r> {
    /// For the files `rels` (relative to `root`) of one change.
    pub fn for_files<'a>(
        repo: &'r Repository,
        root: &'r Path,
        rels: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        Self { repo, root, filtered: filters_possible(repo, root, rels) }
    }

    /// Stores the file `rel` and returns its id.
    pub fn store(&self, rel: &str) -> crate::Result<Oid> {
        let abs = self.root.join(rel);
        if self.filtered {
            return Ok(write_object(|| self.repo.blob_path(&abs)).map_err(op("store a file"))?);
        }
        let bytes = crate::store::fsx::read(&abs, u64::MAX)?;
        Ok(write_object(|| self.repo.blob(&bytes)).map_err(op("store a file"))?)
    }
}

/// Whether git could run a filter on one of `rels` when storing it: `core.autocrlf` is on, or
/// an attributes file where git reads them (`.gitattributes` in the root or a folder on a
/// file's path, `info/attributes`, `core.attributesFile` or the user's and the system's
/// defaults) names an attribute that filters (`text`, `eol`, `crlf`, `ident`, `filter`,
/// `working-tree-encoding`) or defines a macro. Conservative: such an attribute on any pattern
/// counts, and an attributes file that cannot be read counts. cogmem's own `.gitattributes`
/// sets only `merge`. Not seen: a user attributes file in `~/.config/git/` when the user has
/// neither `~/.gitconfig` nor `~/.config/git/config` (the library does not read `HOME`).
pub(crate) fn filters_possible<'a>(
    repo: &Repository,
    root: &Path,
    rels: impl IntoIterator<Item = &'a str>,
) -> bool {
    let config = repo.config().ok();
    let get = |key: &str| config.as_ref().and_then(|c| c.get_string(key).ok());
    if let Some(v) = get("core.autocrlf")
        && !matches!(v.to_ascii_lowercase().as_str(), "false" | "no" | "off" | "0" | "")
    {
        return true;
    }
    // `.gitattributes` of the root and of every folder on a file's path, each once.
    let mut folders = std::collections::BTreeSet::from([String::new()]);
    for rel in rels {
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            folders.insert(rel[..at + i].to_owned());
            at += i + 1;
        }
    }
    let mut files: Vec<PathBuf> =
        folders.iter().map(|d| root.join(d).join(".gitattributes")).collect();
    files.push(repo.path().join("info").join("attributes"));
    // The user's attributes file: `core.attributesFile` (libgit2 expands `~/`), else
    // `git/attributes` in the XDG configuration folder, found (the library reads no environment)
    // beside the XDG or the global git configuration file libgit2 finds.
    let xdg = || {
        let xdg = git2::Config::find_xdg().ok().and_then(|p| Some(p.parent()?.to_path_buf()));
        xdg.or_else(|| {
            Some(git2::Config::find_global().ok()?.parent()?.join(".config").join("git"))
        })
    };
    let user = config
        .as_ref()
        .and_then(|c| c.get_path("core.attributesFile").ok())
        .or_else(|| xdg().map(|d| d.join("attributes")));
    files.extend(user);
    files.extend(["/etc/gitattributes", "/usr/local/etc/gitattributes"].map(PathBuf::from));
    files.iter().any(|f| match crate::store::fsx::read_if_exists(f, 1 << 20) {
        Ok(Some(bytes)) => attributes_filter(&String::from_utf8_lossy(&bytes)),
        Ok(None) => false,
        Err(_) => true,
    })
}

/// Whether an attributes file's text sets an attribute that makes git filter content, or
/// defines a macro (which may).
fn attributes_filter(text: &str) -> bool {
    const FILTERING: [&str; 6] =
        ["text", "eol", "crlf", "ident", "filter", "working-tree-encoding"];
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).any(|line| {
        line.starts_with("[attr]")
            || line.split_whitespace().skip(1).any(|token| {
                let name = token.trim_start_matches(['-', '!']);
                let name = name.split('=').next().unwrap_or(name);
                FILTERING.contains(&name)
            })
    })
}

/// A commit's author and message.
#[derive(Debug, Clone)]
pub(crate) struct CommitSpec<'a> {
    /// Full message: subject, blank line, trailers.
    pub(crate) message: &'a str,
    /// Author name (the actor).
    pub(crate) author: &'a str,
    /// Commit time.
    pub time: Timestamp,
}

/// Commits the working-copy state of exactly `files` on top of `HEAD` and returns the id.
///
/// A file missing from disk is removed from the tree. The index is updated for those files only,
/// so anything else the user staged stays staged and out of the commit. The branch moves last,
/// and only if it still points where it did when the commit was built.
///
/// A file of `kept` is committed with the bytes given there (what it held when read), not as
/// it is now, and its index entry vouches for the file only if it still holds them: an edit
/// made since stays an uncommitted edit.
pub(crate) fn commit_files(
    repo: &Repository,
    root: &Path,
    files: &[String],
    kept: &[(&str, &[u8])],
    spec: &CommitSpec<'_>,
) -> crate::Result<Oid> {
    let sources: Vec<(&str, Source<'_>)> = files
        .iter()
        .map(|rel| {
            let source = match kept.iter().find(|(k, _)| *k == rel.as_str()) {
                Some((_, bytes)) => Source::Bytes(bytes),
                None if root.join(rel).exists() => Source::Disk,
                None => Source::Removed,
            };
            (rel.as_str(), source)
        })
        .collect();
    let built = build_commit(repo, root, &sources, spec)?;
    finish_commit(repo, root, files, kept, &built)
}

/// What a committed file holds: given bytes, the file as it is on disk, or nothing (removed).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// These bytes, stored as they are.
    Bytes(&'a [u8]),
    /// The file as it is on disk now (through git's filters when any may apply).
    Disk,
    /// Removed from the tree.
    Removed,
}

/// A commit written to the object database by [`build_commit`], not yet on its branch.
#[derive(Debug)]
pub(crate) struct Built {
    id: Oid,
    /// The branch `HEAD` named and the commit it pointed to when this was built.
    branch: String,
    parent: Option<Oid>,
    /// Each stored file with its blob and mode.
    stored: Vec<(String, Oid, FileMode)>,
    subject: String,
}

impl Built {
    /// Whether `HEAD` still names the branch and the commit this was built on.
    pub(crate) fn is_on(&self, repo: &Repository) -> bool {
        head_branch(repo).is_ok_and(|b| b == self.branch)
            && head_id(repo).is_ok_and(|id| id == self.parent)
    }
}

/// Writes the blobs, trees and commit object of a commit of `files` on top of `HEAD`: every
/// object, but neither git's index nor the branch ([`finish_commit`] does those). Writing
/// objects changes nothing anyone sees, so this may run while the files are being written.
pub(crate) fn build_commit(
    repo: &Repository,
    root: &Path,
    files: &[(&str, Source<'_>)],
    spec: &CommitSpec<'_>,
) -> crate::Result<Built> {
    let branch = head_branch(repo)?;
    let (parent, base) = head_commit_and_tree(repo)?;
    let mut changes: Vec<crate::git_tree::Change<'_>> = Vec::with_capacity(files.len());
    let mut stored: Vec<(String, Oid, FileMode)> = Vec::with_capacity(files.len());
    let on_disk = files.iter().filter(|(_, s)| matches!(s, Source::Disk)).map(|(rel, _)| *rel);
    let blobs = Blobs::for_files(repo, root, on_disk);
    let writer = crate::git_loose::Writer::new(repo).map_err(op("open the object database"))?;
    for (rel, source) in files {
        let blob = match source {
            Source::Bytes(bytes) => write_object(|| writer.write(ObjectType::Blob, bytes))
                .map_err(op("store a file"))?,
            Source::Disk => blobs.store(rel)?,
            Source::Removed => {
                changes.push((rel, None));
                continue;
            }
        };
        let mode = match blob_id_at(base.as_ref(), rel) {
            Some((_, m)) if m == i32::from(FileMode::BlobExecutable) => FileMode::BlobExecutable,
            _ => FileMode::Blob,
        };
        changes.push((rel, Some((blob, mode))));
        stored.push(((*rel).to_owned(), blob, mode));
    }
    crate::timing::mark("git: blobs stored");
    let tree_id = write_tree(repo, base.as_ref(), &changes)?;
    let tree = repo.find_tree(tree_id).map_err(op("read a tree"))?;
    let time = Time::new(spec.time.timestamp(), spec.time.offset().local_minus_utc() / 60);
    let author = Signature::new(spec.author, &author_email(spec.author), &time)
        .map_err(op("build the author"))?;
    let committer = Signature::new("cogmem", "cogmem@cogmem.invalid", &time)
        .map_err(op("build the committer"))?;
    let parents: Vec<_> = parent.iter().collect();
    let id = write_object(|| repo.commit(None, &author, &committer, spec.message, &tree, &parents))
        .map_err(op("write the commit"))?;
    crate::timing::mark("git: commit written");
    let subject = spec.message.lines().next().unwrap_or("").to_owned();
    Ok(Built { id, branch, parent: parent.map(|p| p.id()), stored, subject })
}

/// Stages what [`build_commit`] stored (`files` are the paths it was given; those of `kept`
/// vouched for only while their file holds those bytes) and moves the branch to the commit, if
/// it still points where it did when the commit was built.
pub(crate) fn finish_commit(
    repo: &Repository,
    root: &Path,
    files: &[String],
    kept: &[(&str, &[u8])],
    built: &Built,
) -> crate::Result<Oid> {
    stage_files(repo, root, files, &built.stored, kept, (built.parent, built.id))?;
    crate::timing::mark("git: index written");
    let log = format!("commit: {}", built.subject);
    match built.parent {
        Some(p) => repo.reference_matching(&built.branch, built.id, true, p, &log),
        None => repo.reference(&built.branch, built.id, false, &log),
    }
    .map_err(op("move the branch to the new commit"))?;
    advance_seen(root, built.parent, built.id);
    Ok(built.id)
}

/// After cogmem's own commit `id` on top of `parent`: when the adoption marker
/// ([`seen_marker`]) names `parent`, it names `id` now. Nothing between them is anyone else's,
/// so the next command's check that no commit was made outside cogmem reads two small files
/// instead of opening the repository to walk back to this commit and write the marker itself.
fn advance_seen(root: &Path, parent: Option<Oid>, id: Oid) {
    if parent.is_some() && seen_marker(root) == parent {
        mark_seen(root, id);
    }
}

/// The last commit cogmem has seen (`.cogmem/adopted`, the ops crate's `adopt` reads it: the
/// commits after it may be ones made outside cogmem); `None` without a readable marker.
pub fn seen_marker(root: &Path) -> Option<Oid> {
    let path = root.join(crate::workspace::layout::ADOPTED);
    let bytes = crate::store::fsx::read_if_exists(&path, 128).ok()??;
    Oid::from_str(String::from_utf8_lossy(&bytes).trim()).ok()
}

/// Records `id` as the last commit cogmem has seen ([`seen_marker`]). Best effort: the marker is
/// derived, and a missing one only costs the next command a walk back to the newest commit
/// cogmem made.
pub fn mark_seen(root: &Path, id: Oid) {
    let path = root.join(crate::workspace::layout::ADOPTED);
    let _ = crate::store::fsx::write_derived(&path, format!("{id}\n").as_bytes(), false);
}

/// Brings the index entries of `files` to what was just committed: `stored` with the files'
/// stat data, the others (gone from disk) removed. Patched in place where [`GitIndex`] can
/// (issue 20); through libgit2's whole read and write otherwise.
fn stage_files(
    repo: &Repository,
    root: &Path,
    files: &[String],
    stored: &[(String, Oid, FileMode)],
    kept: &[(&str, &[u8])],
    commit: (Option<Oid>, Oid),
) -> crate::Result<()> {
    let given = |rel: &str| kept.iter().find(|(k, _)| *k == rel).map(|(_, b)| *b);
    let entry = |rel: &str, blob: Oid, mode: FileMode| match given(rel) {
        Some(bytes) => Some(kept_entry(&root.join(rel), rel, blob, mode, bytes)),
        None => index_entry(&root.join(rel), rel, blob, mode),
    };
    // Every entry with its stat data (none off unix: libgit2 reads the files, below).
    let updates: Option<Vec<(String, Option<git2::IndexEntry>)>> = files
        .iter()
        .map(|rel| match stored.iter().find(|(r, ..)| r == rel) {
            Some((_, blob, mode)) => entry(rel, *blob, *mode).map(|e| (rel.clone(), Some(e))),
            None => Some((rel.clone(), None)),
        })
        .collect();
    if let Some(updates) = updates
        && let Some(index) = GitIndex::read_again(repo.path())
        && let Some(mut patch) = index.patch(root, &updates)
    {
        add_cache_tree(repo, &index, &mut patch, &updates, Some(commit));
        if crate::git_index::write_patch(repo.path(), &patch, skip_hash(repo)).is_ok() {
            return Ok(());
        }
    }
    let mut index = repo.index().map_err(op("read the index"))?;
    // Re-read: the copy libgit2 keeps may predate this process's own writes.
    index.read(false).map_err(op("read the index"))?;
    for (rel, blob, mode) in stored {
        // The blob is already stored: stage it by id with the file's stat data, instead of
        // letting `add_path` read, hash and compress the file a second time.
        match entry(rel, *blob, *mode) {
            Some(entry) => index.add(&entry).map_err(op("stage a file"))?,
            None => index.add_path(Path::new(rel.as_str())).map_err(op("stage a file"))?,
        }
    }
    for rel in files {
        if given(rel).is_none()
            && !root.join(rel).exists()
            && index.get_path(Path::new(rel), 0).is_some()
        {
            index.remove_path(Path::new(rel)).map_err(op("unstage a file"))?;
        }
    }
    index.write().map_err(op("write the index"))?;
    Ok(())
}

/// Adds git's cache tree to `patch` (`index` patched with `updates`; [`GitIndex::cache_tree`]):
/// with `commit` (the parent and the commit that `updates` stage), a folder whose record was
/// the parent's tree takes the commit's tree; any other folder on a changed path is hashed and
/// kept valid only if the object database holds its tree. Left out when it cannot be had.
fn add_cache_tree(
    repo: &Repository,
    index: &GitIndex,
    patch: &mut crate::git_index::Patch<'_>,
    updates: &[(String, Option<git2::IndexEntry>)],
    commit: Option<(Option<Oid>, Oid)>,
) {
    let tree_of =
        |id: Option<Oid>| id.and_then(|id| repo.find_commit(id).ok()).and_then(|c| c.tree().ok());
    let (parent, new) = match commit {
        Some((parent, new)) => (tree_of(parent), tree_of(Some(new))),
        None => (None, None),
    };
    // A folder's id in a tree: `prefix` is its path and `/`, or empty for the root.
    let at = |tree: &Tree<'_>, prefix: &[u8]| -> Option<[u8; 20]> {
        let id = match prefix.strip_suffix(b"/") {
            None if prefix.is_empty() => tree.id(),
            None => return None,
            Some(path) => {
                let entry = tree.get_path(Path::new(std::str::from_utf8(path).ok()?)).ok()?;
                (entry.kind() == Some(ObjectType::Tree)).then(|| entry.id())?
            }
        };
        id.as_bytes().try_into().ok()
    };
    let trees = |prefix: &[u8]| Some((at(parent.as_ref()?, prefix)?, at(new.as_ref()?, prefix)?));
    let odb = repo.odb().ok();
    let mut exists = |id: Oid| odb.as_ref().is_some_and(|o| o.exists(id));
    if let Some(extension) = index.cache_tree(updates, &trees, &mut exists) {
        patch.add_extension(&extension);
    }
}

/// Writes `base` (the empty tree when `None`: an unborn branch) with `changes` applied (a path
/// with `None` removed) and returns the tree's id: spliced into the raw trees on the changed
/// paths (`git_tree`), or, for what the splice leaves to it (a file and a folder of one name, a
/// repository that is not SHA-1, …), through libgit2's tree builder, which also gives its
/// errors. The empty tree is written only when the builder needs it as a base: stored for
/// nothing, it was a dangling object in every new workspace's `git fsck`.
fn write_tree(
    repo: &Repository,
    base: Option<&Tree<'_>>,
    changes: &[crate::git_tree::Change<'_>],
) -> crate::Result<Oid> {
    // Only the object database's errors are worth a retry; whatever else the splice leaves
    // goes to the builder below.
    let spliced =
        write_object(|| match crate::git_tree::write_updated(repo, base.map(Tree::id), changes) {
            Err(crate::git_tree::SpliceError::Git(e)) => Err(e),
            other => Ok(other.ok()),
        });
    if let Ok(Some(id)) = spliced {
        return Ok(id);
    }
    let empty;
    let base = match base {
        Some(b) => b,
        None => {
            let id = write_object(|| repo.treebuilder(None).and_then(|b| b.write()))
                .map_err(op("write a tree"))?;
            empty = repo.find_tree(id).map_err(op("read a tree"))?;
            &empty
        }
    };
    Ok(write_object(|| crate::git_tree::with_libgit2(repo, base, changes))
        .map_err(op("build the commit's tree"))?)
}

/// HEAD's commit and its tree (neither on an unborn branch): what a new commit is built on.
fn head_commit_and_tree(
    repo: &Repository,
) -> crate::Result<(Option<git2::Commit<'_>>, Option<Tree<'_>>)> {
    let parent = match head_id(repo)? {
        Some(id) => Some(repo.find_commit(id).map_err(op("read HEAD's commit"))?),
        None => None,
    };
    let base = match &parent {
        Some(c) => Some(c.tree().map_err(op("read HEAD's tree"))?),
        None => None,
    };
    Ok((parent, base))
}

/// The folder of refs that keep what a recovery put back (`refs/cogmem/recovered/NAME`).
pub const RECOVERED_REFS: &str = "refs/cogmem/recovered";

/// Commits `files` as they are now on disk (a file missing from disk is left out of the tree)
/// on top of `HEAD`, without moving the branch or touching the index, and points a new ref
/// `refs/cogmem/recovered/NAME` (`NAME-1`, `NAME-2`… when it exists) at the commit. Returns the
/// ref, or `None` when `files` is empty. Called before a recovery puts files back, so the only
/// copy of an edit never lives in a folder that may be deleted: `git checkout REF -- PATH`
/// brings a file back. `time` is the commit time (the clock's, or HEAD's where there is no
/// clock); `limit` is the workspace's `limits.file_bytes`.
pub fn save_recovered(
    repo: &Repository,
    root: &Path,
    name: &str,
    files: &[String],
    message: &str,
    time: Timestamp,
    limit: u64,
) -> crate::Result<Option<String>> {
    if files.is_empty() {
        return Ok(None);
    }
    let (parent, base) = head_commit_and_tree(repo)?;
    let mut changes: Vec<crate::git_tree::Change<'_>> = Vec::with_capacity(files.len());
    for rel in files {
        match crate::store::fsx::read_if_exists(&root.join(rel), limit)? {
            Some(bytes) => {
                let blob = write_object(|| repo.blob(&bytes)).map_err(op("store a file"))?;
                changes.push((rel.as_str(), Some((blob, FileMode::Blob))));
            }
            None => changes.push((rel.as_str(), None)),
        }
    }
    let tree_id = write_tree(repo, base.as_ref(), &changes)?;
    let tree = repo.find_tree(tree_id).map_err(op("read a tree"))?;
    let when = Time::new(time.timestamp(), time.offset().local_minus_utc() / 60);
    let sig =
        Signature::new("cogmem", "cogmem@cogmem.invalid", &when).map_err(op("build the author"))?;
    let parents: Vec<_> = parent.iter().collect();
    let id = write_object(|| repo.commit(None, &sig, &sig, message, &tree, &parents))
        .map_err(op("write the recovery commit"))?;
    let subject = message.lines().next().unwrap_or("");
    for n in 0..1000 {
        let refname = if n == 0 {
            format!("{RECOVERED_REFS}/{name}")
        } else {
            format!("{RECOVERED_REFS}/{name}-{n}")
        };
        match repo.reference(&refname, id, false, subject) {
            Ok(_) => return Ok(Some(refname)),
            // Taken, or its `.lock` left by a process killed while it wrote it (issue 16: the
            // recovery must not fail on it; `doctor --fix` removes the stale lock): next name.
            Err(e) if matches!(e.code(), ErrorCode::Exists | ErrorCode::Locked) => {}
            Err(e) => return Err(GitError::Op { what: "create the recovery ref", cause: e }.into()),
        }
    }
    Err(GitError::Op {
        what: "create the recovery ref",
        cause: git2::Error::from_str("a thousand recovery refs of that name exist"),
    }
    .into())
}

/// The time of `HEAD`'s commit (the Unix epoch without one): a commit time for code that has
/// no clock, which stays deterministic.
pub fn head_time(repo: &Repository) -> Timestamp {
    let secs = head_id(repo)
        .ok()
        .flatten()
        .and_then(|id| repo.find_commit(id).ok())
        .map_or(0, |c| c.time().seconds());
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default().fixed_offset()
}

/// An index entry for a file whose blob is stored, with the stat data git compares to tell a
/// clean file from an edited one. `None` where the platform has no such data.
#[cfg(unix)]
pub(crate) fn index_entry(
    abs: &Path,
    rel: &str,
    id: Oid,
    mode: FileMode,
) -> Option<git2::IndexEntry> {
    use std::os::unix::fs::MetadataExt;
    let m = abs.symlink_metadata().ok()?;
    let time = |secs: i64, nanos: i64| -> Option<git2::IndexTime> {
        Some(git2::IndexTime::new(i32::try_from(secs).ok()?, u32::try_from(nanos).ok()?))
    };
    let path = rel.as_bytes().to_vec();
    Some(git2::IndexEntry {
        ctime: time(m.ctime(), m.ctime_nsec())?,
        mtime: time(m.mtime(), m.mtime_nsec())?,
        dev: m.dev() as u32,
        ino: m.ino() as u32,
        mode: u32::try_from(i32::from(mode)).ok()?,
        uid: m.uid(),
        gid: m.gid(),
        file_size: m.size() as u32,
        id,
        // The low 12 bits hold the path length (capped), stage 0.
        flags: path.len().min(0xFFF) as u16,
        flags_extended: 0,
        path,
    })
}

#[cfg(not(unix))]
pub(crate) fn index_entry(_: &Path, _: &str, _: Oid, _: FileMode) -> Option<git2::IndexEntry> {
    None
}

/// The index entry of a file committed from `bytes` read earlier ([`commit_files`]'s `kept`):
/// with its stat data when it still holds them and did not change while read again; else
/// with none (size and times 0), so git compares its content instead of trusting the entry,
/// and an edit made since shows as one (or a file removed since, as removed).
fn kept_entry(abs: &Path, rel: &str, id: Oid, mode: FileMode, bytes: &[u8]) -> git2::IndexEntry {
    let before = index_entry(abs, rel, id, mode);
    let holds = crate::store::fsx::read(abs, u64::MAX).is_ok_and(|b| b == bytes);
    let after = index_entry(abs, rel, id, mode);
    let stamp = |e: &git2::IndexEntry| (e.ctime, e.mtime, e.file_size, e.ino, e.dev);
    match (before, after) {
        (Some(b), Some(a)) if holds && stamp(&b) == stamp(&a) => b,
        _ => {
            let path = rel.as_bytes().to_vec();
            git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: u32::try_from(i32::from(mode)).unwrap_or(0o100_644),
                uid: 0,
                gid: 0,
                file_size: 0,
                id,
                flags: path.len().min(0xFFF) as u16,
                flags_extended: 0,
                path,
            }
        }
    }
}

fn head_branch(repo: &Repository) -> crate::Result<String> {
    let head = repo.find_reference("HEAD").map_err(op("read HEAD"))?;
    match head.symbolic_target().ok().flatten() {
        Some(target) if target.starts_with("refs/heads/") => Ok(target.to_owned()),
        _ => Err(GitError::Detached.into()),
    }
}

/// The e-mail address written for an actor: its name made address-safe.
pub fn author_email(actor: &str) -> String {
    let local: String = actor
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '.' })
        .collect();
    format!("{local}@cogmem.invalid")
}

/// Puts the index entries of `files` back as they are in `HEAD` (removing those `HEAD` lacks).
///
/// Used after a failed change, whose index update may or may not have been written. If the index
/// is locked by another process, this change never wrote it, so the failure is ignored.
pub fn reset_index(repo: &Repository, files: &[String]) {
    if let Ok(Some(id)) = head_id(repo)
        && let Ok(commit) = repo.find_object(id, None)
    {
        let _ = repo.reset_default(Some(&commit), files.iter().map(String::as_str));
    } else if let Ok(mut index) = repo.index() {
        for rel in files {
            let _ = index.remove_path(Path::new(rel));
        }
        let _ = index.write();
    }
}

/// A file whose working copy differs from `HEAD`.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// Path relative to the workspace root.
    pub path: String,
    /// `new`, `modified`, `deleted`, `renamed` or `conflicted`.
    pub state: &'static str,
}

/// A file of the work tree as a walk stat-ed it (`lstat`: links not followed), for
/// [`uncommitted_by_stat`].
#[derive(Debug, Clone, Copy)]
pub struct WorkFile<'a> {
    /// Path relative to the work tree's root, `/`-separated.
    pub path: &'a [u8],
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: u128,
    /// Change time, nanoseconds since the epoch.
    pub ctime: u128,
    /// Inode number.
    pub ino: u64,
    /// A plain file or a link.
    pub kind: WorkKind,
}

/// What a [`WorkFile`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkKind {
    /// A regular file; `executable` when its owner may execute it (git's `100755`).
    File {
        /// The owner's execute bit.
        executable: bool,
    },
    /// A symbolic link.
    Link,
}

impl WorkKind {
    /// The mode git records for a file of this kind.
    pub(crate) fn file_mode(self) -> FileMode {
        match self {
            Self::File { executable: true } => FileMode::BlobExecutable,
            Self::File { executable: false } => FileMode::Blob,
            Self::Link => FileMode::Link,
        }
    }
}

/// Whether git's index is damaged: its checksum is not its content's (what `git fsck`
/// reports as a bad index file signature). Neither git's nor cogmem's everyday reads check it.
pub fn index_damaged(repo: &Repository) -> bool {
    crate::git_index::checksum_matches(repo.path()) == Some(false)
}

/// The files that differ from `HEAD`, as [`uncommitted`] lists them, told from git's index
/// and the stat data of a walk (issue 20): `files` must be every file of the work tree outside
/// `.git` folders, sorted by path (the caller vouches that what it left out is ignored).
/// Answers only when the index equals `HEAD`'s tree (nothing staged), holds each walked file
/// it holds with the mode its kind and execute bit give and no flag or conflict, at most 64
/// walked files are not in it, and no filter of git's can apply: then an entry whose stat data
/// is the file's (not racily clean) is unchanged, as git's own stat check concludes; a file
/// gone is `deleted`; a file not in the index is `new` unless git ignores it; any other file is
/// read and hashed, and `modified` when it does not hold the entry's blob.
/// `None` means only "cannot tell": [`uncommitted`] answers then. Reads the index as bytes and
/// `HEAD`'s trees, and no work-tree file its stat data vouches for.
pub fn uncommitted_by_stat<'a>(
    repo: &Repository,
    files: impl IntoIterator<Item = WorkFile<'a>>,
) -> Option<Vec<Change>> {
    uncommitted_and_stale(repo, files).map(|(changes, _)| changes)
}

/// The entries of git's index whose file holds the entry's blob though its stat data is not the
/// entry's (the workspace was copied or restored, its files touched, or the entry was written
/// in the same clock tick as its file: racily clean): each such file is read and hashed by every
/// look until its entry is refreshed, as git's own `status` refreshes them. At 100,000 memories
/// a copied workspace's status took 0.5 s for it, every time.
#[derive(Debug, Clone, Default)]
pub struct Stale {
    /// The index as it was read, so a refresh writes over that version only.
    version: Option<crate::git_index::IndexVersion>,
    /// Each file, with its entry's blob and mode and the stat data it was hashed under.
    entries: Vec<StaleEntry>,
}

#[derive(Debug, Clone)]
struct StaleEntry {
    path: String,
    id: Oid,
    mode: FileMode,
    /// (size, mtime, ctime, inode) as the walk stat-ed it before the file was hashed.
    stamp: (u64, u128, u128, u64),
}

impl Stale {
    /// How many entries want their stat data refreshed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether none does.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// [`uncommitted_by_stat`], and the entries it found [`Stale`].
pub fn uncommitted_and_stale<'a>(
    repo: &Repository,
    files: impl IntoIterator<Item = WorkFile<'a>>,
) -> Option<(Vec<Change>, Stale)> {
    let version = crate::git_index::index_version(repo.path());
    let index = GitIndex::read(repo.path())?;
    let files: Vec<WorkFile<'a>> = files.into_iter().collect();
    let (unvouched, untracked) = index.unvouched(files.iter().copied())?;
    let tree = head_tree(repo).ok()?.map(|t| t.id());
    if !index.equals_tree(repo, tree) {
        return None;
    }
    let root = repo.workdir()?;
    // Untracked files are new unless git ignores them. A handful is asked one by one; many (a
    // folder of build output) are left to libgit2's status, which skips ignored folders whole.
    if untracked.len() > MAX_UNTRACKED_ASKED {
        return None;
    }
    let mut new = Vec::new();
    for path in untracked {
        if !repo.is_path_ignored(Path::new(&path)).ok()? {
            new.push(Change { path, state: "new" });
        }
    }
    let present = unvouched.iter().filter(|u| !u.gone).map(|u| u.path.as_str());
    if unvouched.iter().any(|u| !u.gone) && filters_possible(repo, root, present) {
        return None;
    }
    let mut out = Vec::new();
    let mut stale = Stale { version, entries: Vec::new() };
    for u in unvouched {
        let state = if u.gone {
            "deleted"
        } else if blob_id_of(&root.join(&u.path))? == u.id {
            // The walk's files are sorted by path, as the index's entries are.
            if let Ok(i) = files.binary_search_by(|f| f.path.cmp(u.path.as_bytes())) {
                let f = files[i];
                let mode = f.kind.file_mode();
                let stamp = (f.size, f.mtime, f.ctime, f.ino);
                stale.entries.push(StaleEntry { path: u.path, id: u.id, mode, stamp });
            }
            continue;
        } else {
            "modified"
        };
        out.push(Change { path: u.path, state });
    }
    // In path order, as libgit2 lists them.
    out.extend(new);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Some((out, stale))
}

/// The most untracked files [`uncommitted_and_stale`] asks git about one by one.
const MAX_UNTRACKED_ASKED: usize = 64;

/// Refreshes the stat data of the [`Stale`] entries in git's index, as `git status` does when it
/// can take the index's lock: each entry whose file still has the stat data it was hashed under,
/// and whose times `settled` vouches for (older than the look began, so not racily clean in the
/// index written now), gets the file's stat data; nothing else in the index changes. Written
/// only over the version of the index the look read, through `index.lock`; the caller holds the
/// workspace lock, so no cogmem write is under way. Best effort: returns how many entries were
/// refreshed (0 when the index moved on, its lock was taken, or nothing was settled).
pub fn refresh_stale(
    repo: &Repository,
    stale: &Stale,
    settled: impl Fn(u128, u128) -> bool,
) -> usize {
    let Some(root) = repo.workdir() else { return 0 };
    let nanos = |t: git2::IndexTime| {
        u128::try_from(t.seconds()).unwrap_or(0) * 1_000_000_000 + u128::from(t.nanoseconds())
    };
    let updates: Vec<(String, Option<git2::IndexEntry>)> = stale
        .entries
        .iter()
        .filter(|e| settled(e.stamp.1, e.stamp.2))
        .filter_map(|e| {
            let entry = index_entry(&root.join(&e.path), &e.path, e.id, e.mode)?;
            let now = (u64::from(entry.file_size), nanos(entry.mtime), nanos(entry.ctime));
            // Changed since it was hashed (or too large for the entry's 32-bit fields): left.
            let same = now == (e.stamp.0, e.stamp.1, e.stamp.2)
                && u64::from(entry.ino) == e.stamp.3 & u64::from(u32::MAX);
            same.then(|| (e.path.clone(), Some(entry)))
        })
        .collect();
    if updates.is_empty() || stale.version.is_none() {
        return 0;
    }
    let Some(index) = GitIndex::read_again(repo.path()) else { return 0 };
    let Some(mut patch) = index.patch(root, &updates) else { return 0 };
    add_cache_tree(repo, &index, &mut patch, &updates, None);
    match crate::git_index::write_patch_if(repo.path(), &patch, skip_hash(repo), stale.version) {
        Ok(true) => updates.len(),
        _ => 0,
    }
}

/// The id of the blob git stores for the work-tree file at `abs`, without filters: a regular
/// file's bytes, a link's target; `None` for anything else or what cannot be read.
pub(crate) fn blob_id_of(abs: &Path) -> Option<Oid> {
    let md = std::fs::symlink_metadata(abs).ok()?;
    let bytes = if md.file_type().is_symlink() {
        link_target_bytes(abs)?
    } else if md.is_file() {
        crate::store::fsx::read(abs, u64::MAX).ok()?
    } else {
        return None;
    };
    Oid::hash_object(ObjectType::Blob, &bytes).ok()
}

/// What a symbolic link holds, as git stores it (the target's bytes).
#[cfg(unix)]
fn link_target_bytes(abs: &Path) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    Some(std::fs::read_link(abs).ok()?.into_os_string().into_vec())
}

#[cfg(not(unix))]
fn link_target_bytes(_: &Path) -> Option<Vec<u8>> {
    None
}

/// Lists files that differ from `HEAD` (staged or not, untracked included, ignored excluded).
pub fn uncommitted(repo: &Repository) -> crate::Result<Vec<Change>> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true).include_ignored(false);
    let statuses = statuses_settled(repo, &mut opts).map_err(op("read the status"))?;
    let mut out = Vec::new();
    for entry in statuses.iter() {
        let s = entry.status();
        let state = if s.contains(Status::CONFLICTED) {
            "conflicted"
        } else if s.intersects(Status::WT_NEW | Status::INDEX_NEW) {
            "new"
        } else if s.intersects(Status::WT_DELETED | Status::INDEX_DELETED) {
            "deleted"
        } else if s.intersects(Status::WT_RENAMED | Status::INDEX_RENAMED) {
            "renamed"
        } else if s.intersects(
            Status::WT_MODIFIED
                | Status::INDEX_MODIFIED
                | Status::WT_TYPECHANGE
                | Status::INDEX_TYPECHANGE,
        ) {
            "modified"
        } else {
            continue;
        };
        let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
        out.push(Change { path, state });
    }
    Ok(out)
}

/// libgit2's status, asked again when the work tree moved under it. Status takes no lock: a
/// write in flight can remove a temporary file between libgit2 listing it and hashing it, which
/// libgit2 reports as an operating-system error ("error reading file for hashing"). Such an
/// error is a race, not a broken workspace, so it is retried a few times, a little later each
/// time; any other error, or the same one after the last try, is returned.
fn statuses_settled<'r>(
    repo: &'r Repository,
    opts: &mut StatusOptions,
) -> Result<git2::Statuses<'r>, git2::Error> {
    const TRIES: usize = 8;
    let mut tries = 0;
    loop {
        match repo.statuses(Some(opts)) {
            Err(e) if tries + 1 < TRIES && moved_under(&e) => {
                tries += 1;
                // Give the write in flight a moment to finish its rename or removal.
                std::thread::sleep(std::time::Duration::from_millis(tries as u64));
            }
            done => return done,
        }
    }
}

/// Whether a libgit2 error is a file of the work tree changing while it was read.
fn moved_under(e: &git2::Error) -> bool {
    matches!(e.class(), git2::ErrorClass::Os | git2::ErrorClass::Filesystem)
        || e.code() == git2::ErrorCode::NotFound
}

/// One commit of the history, for `status` and tests.
#[derive(Debug, Clone, Serialize)]
pub struct CommitInfo {
    /// Full commit id.
    pub id: String,
    /// First line of the message.
    pub subject: String,
    /// Author name (the actor).
    pub author: String,
    /// Commit time, RFC 3339.
    pub time: String,
}

/// Returns up to `limit` commits from `HEAD` backwards.
pub fn recent(repo: &Repository, limit: usize) -> crate::Result<Vec<CommitInfo>> {
    let Some(head) = head_id(repo)? else { return Ok(Vec::new()) };
    let mut walk = repo.revwalk().map_err(op("walk the history"))?;
    walk.push(head).map_err(op("walk the history"))?;
    let mut out = Vec::new();
    for id in walk.take(limit) {
        let id = id.map_err(op("walk the history"))?;
        let c = repo.find_commit(id).map_err(op("read a commit"))?;
        let when = c.time();
        let time = chrono::DateTime::from_timestamp(when.seconds(), 0)
            .map(|t| cogmem_text::clock::utc_seconds(&t.fixed_offset()))
            .unwrap_or_default();
        out.push(CommitInfo {
            id: id.to_string(),
            subject: subject(&c),
            author: String::from_utf8_lossy(c.author().name_bytes()).into_owned(),
            time,
        });
    }
    Ok(out)
}

/// The newest commit cogmem made (committer `cogmem`) with the trigger `trigger` (its message's
/// `Trigger:` line), reachable from `HEAD`, and what `rel` held in it: the record of what a
/// command wrote, for a later step to check the file against. `None` when no such commit is
/// among the newest `limit` (a history rewritten outside cogmem).
pub fn last_written_by(
    repo: &Repository,
    trigger: &str,
    rel: &str,
    limit: usize,
) -> crate::Result<Option<(Oid, Option<Vec<u8>>)>> {
    let Some(head) = head_id(repo)? else { return Ok(None) };
    let mut walk = repo.revwalk().map_err(op("walk the history"))?;
    walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME).map_err(op("walk the history"))?;
    walk.push(head).map_err(op("walk the history"))?;
    let line = format!("Trigger: {trigger}");
    for id in walk.take(limit) {
        let id = id.map_err(op("walk the history"))?;
        let c = repo.find_commit(id).map_err(op("read a commit"))?;
        let ours = c.committer().name_bytes() == b"cogmem";
        if ours && String::from_utf8_lossy(c.message_bytes()).lines().any(|l| l == line) {
            let tree = c.tree().map_err(op("read a commit's tree"))?;
            return Ok(Some((id, read_at_head(repo, Some(&tree), rel)?)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::attributes_filter;

    #[test]
    fn only_filtering_attributes_and_macros_count() {
        // cogmem's own file: merge drivers only.
        assert!(!attributes_filter(
            "# cogmem\nmemory/episodes/*.md merge=union\nmemory/meta/audit.log merge=union\n"
        ));
        assert!(!attributes_filter("*.png binary\n*.md -diff\n"));
        assert!(attributes_filter("*.md text\n"));
        assert!(attributes_filter("*.md -text\n"), "unset counts too: conservative");
        assert!(attributes_filter("*.md eol=crlf\n"));
        assert!(attributes_filter("* ident\n"));
        assert!(attributes_filter("secret.md filter=crypt\n"));
        assert!(attributes_filter("*.txt working-tree-encoding=UTF-16\n"));
        assert!(attributes_filter("[attr]mine text eol=lf\n"));
        assert!(attributes_filter("\"a b.md\" text\n"));
        assert!(!attributes_filter("# *.md text\n\n"), "a comment");
    }
}

#[cfg(test)]
mod io_tests {
    use super::uncommitted;
    use crate::store::fsx;

    /// The first commit on an unborn branch stores no empty tree for nothing: `git fsck` finds
    /// no dangling object (it did in every new workspace).
    #[test]
    fn a_first_commit_leaves_no_dangling_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = super::init(root).unwrap();
        fsx::write_atomic(&root.join("a.md"), b"a\n").unwrap();
        let time = chrono::DateTime::parse_from_rfc3339("2026-12-05T10:00:00Z").unwrap();
        let spec = super::CommitSpec { message: "first\n", author: "t", time };
        super::commit_files(&repo, root, &["a.md".to_owned()], &[], &spec).unwrap();
        let out = std::process::Command::new("git")
            .args(["fsck", "--no-progress", "--dangling"])
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success());
        let said = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(!said.contains("dangling"), "{said}");
        assert_eq!(fsx::read(&root.join("a.md"), 16).unwrap(), b"a\n");
    }

    /// `HEAD` read from the files agrees with libgit2 where it answers, and leaves the rest
    /// (an unborn branch, a packed ref, a ref leading out of refs/heads/) to the repository.
    #[test]
    fn head_read_from_the_files_agrees_with_the_repository_or_says_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = git2::Repository::init(root).unwrap();
        assert_eq!(super::head_id_from_files(root), None, "unborn");
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let tree = repo.find_tree(repo.index().unwrap().write_tree().unwrap()).unwrap();
        let first = repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[]).unwrap();
        assert_eq!(super::head_id_from_files(root), Some(first));
        assert_eq!(super::head_id(&repo).unwrap(), Some(first));
        let parent = repo.find_commit(first).unwrap();
        let second = repo.commit(Some("HEAD"), &sig, &sig, "two", &tree, &[&parent]).unwrap();
        assert_eq!(super::head_id_from_files(root), Some(second));
        // Detached: HEAD holds the id.
        repo.set_head_detached(first).unwrap();
        assert_eq!(super::head_id_from_files(root), Some(first));
        // Back on the branch, its ref packed: not read here, the repository answers.
        repo.set_head("refs/heads/master").or_else(|_| repo.set_head("refs/heads/main")).unwrap();
        let branch = repo.head().unwrap().name().unwrap().to_owned();
        let loose = root.join(".git").join(&branch);
        let packed = format!("# pack-refs with: peeled fully-peeled sorted\n{second} {branch}\n");
        fsx::write_derived(&root.join(".git/packed-refs"), packed.as_bytes(), false).unwrap();
        fsx::remove_file(&loose).unwrap();
        assert_eq!(super::head_id(&repo).unwrap(), Some(second));
        assert_eq!(super::head_id_from_files(root), None, "packed");
        // A HEAD whose ref leaves refs/heads/ is not followed, even to a file holding an id.
        fsx::write_derived(&root.join("outside"), format!("{second}\n").as_bytes(), false).unwrap();
        for hostile in ["ref: refs/heads/../../../outside\n", "ref: refs/tags/v1\n", "ref: \n"] {
            fsx::write_derived(&root.join(".git/HEAD"), hostile.as_bytes(), false).unwrap();
            assert_eq!(super::head_id_from_files(root), None, "{hostile}");
        }
        // A short id is no id.
        fsx::write_derived(&root.join(".git/HEAD"), b"abc123\n", false).unwrap();
        assert_eq!(super::head_id_from_files(root), None);
    }

    /// The repack is due past either limit: counted, and sized (exact under 16 MB).
    #[test]
    fn a_repack_is_due_past_the_count_or_the_size_of_the_loose_objects() {
        use crate::settings::GitSettings;
        let dir = tempfile::tempdir().unwrap();
        let git = |n: u64, mb: u64| GitSettings { auto_pack_loose: n, auto_pack_loose_mb: mb };
        let put = |name: &str, bytes: usize| {
            let (folder, file) = name.split_at(2);
            let p = dir.path().join("objects").join(folder).join(file);
            fsx::write_derived(&p, &vec![7u8; bytes], false).unwrap();
        };
        put(&format!("ab{}", "0".repeat(38)), 700 * 1024);
        put(&format!("cd{}", "1".repeat(38)), 200 * 1024);
        // Not objects: a name of the wrong length, a folder.
        put("ef0123", 900 * 1024);
        fsx::create_dir_all(&dir.path().join("objects/12").join("3".repeat(38))).unwrap();
        assert!(!super::is_repack_due(dir.path(), &git(0, 1)), "900 KB is under 1 MB");
        assert!(super::is_repack_due(dir.path(), &git(1, 0)), "two objects are more than one");
        assert!(!super::is_repack_due(dir.path(), &git(2, 1)));
        put(&format!("ab{}", "2".repeat(38)), 200 * 1024);
        assert!(super::is_repack_due(dir.path(), &git(0, 1)), "1.1 MB is over 1 MB");
        assert!(!super::is_repack_due(dir.path(), &git(0, 0)), "both off");
        assert!(!super::is_repack_due(dir.path(), &git(3, 0)), "three is not more than three");
    }

    /// A tracked file that vanishes while status reads the work tree (between libgit2 listing
    /// it and hashing it) makes libgit2 fail to hash it; the status asked again answers
    /// instead of failing.
    #[test]
    fn status_answers_while_files_come_and_go() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        fsx::write_derived(&dir.path().join("kept.md"), b"kept\n", false).unwrap();
        // Tracked files, so libgit2 hashes them when their stat no longer matches its index.
        let mut index = repo.index().unwrap();
        for n in 0..64 {
            fsx::write_derived(&dir.path().join(format!("tmp-{n}.md")), b"first\n", false).unwrap();
            index.add_path(std::path::Path::new(&format!("tmp-{n}.md"))).unwrap();
        }
        index.write().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let churn = {
            let (root, stop) = (dir.path().to_path_buf(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let p = root.join(format!("tmp-{}.md", n % 64));
                    let _ = fsx::write_derived(&p, &[b'x'; 64 * 1024], false);
                    let _ = fsx::remove_file(&p);
                    n += 1;
                    // A writer does other work between its files; a loop that never pauses
                    // would starve any reader of a settled tree.
                    std::thread::sleep(std::time::Duration::from_micros(100));
                }
            })
        };
        let mut failures = Vec::new();
        for _ in 0..1000 {
            match uncommitted(&repo) {
                Ok(changes) => assert!(changes.iter().any(|c| c.path == "kept.md")),
                Err(e) => failures.push(e.to_string()),
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        churn.join().unwrap();
        assert!(
            failures.is_empty(),
            "status failed {} times: {:?}",
            failures.len(),
            failures.first()
        );
    }
}
