//! `cogmem audit` (alias `log`): query `memory/meta/audit.log` (read-only; malformed lines are
//! reported with their line number and skipped), list and acknowledge changes to critical files
//! (`audit ack`), and move old lines into monthly digests (`audit compact`).
//!
//! Acknowledgements are ACK lines in the audit log itself, so they travel with the workspace
//! through clones; nothing about them lives in `.cogmem/`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Offset, Utc};
use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use crate::Timestamp;
use crate::error::InputError;
use cogmem_store::audit::archive::Archive;
use cogmem_store::audit::{self, Action, Actor, AuditFilter, AuditLine};
use cogmem_store::change::Change;
use cogmem_store::git::{self, GitError};
use cogmem_store::store::fsx;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::date;

/// What `audit` found.
#[derive(Debug, Clone, Serialize)]
pub struct AuditReport {
    /// Matching lines, oldest first.
    pub lines: Vec<AuditLine>,
    /// Malformed lines, each naming the file and line.
    pub skipped: Vec<Skipped>,
}

/// A malformed line, left out of the results.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The error, as `path:line: what is wrong`.
    pub error: String,
}

/// Returns the lines passing `filter`; with `limit`, only the last `limit` of them.
pub fn query(
    ws: &Workspace,
    filter: &AuditFilter,
    limit: Option<usize>,
) -> crate::Result<AuditReport> {
    // The sealed segments, oldest first, then audit.log: the whole log in order.
    let mut lines: Vec<AuditLine> = Vec::new();
    let mut skipped = Vec::new();
    for rel in audit::log_files(ws.root()) {
        let path = ws.abs(&rel);
        let text = fsx::read_text_if_exists(&path, ws.file_limit())?.unwrap_or_default();
        let (found, bad) = audit::parse_log(&text);
        lines.extend(found.into_iter().filter(|l| filter.matches(l)));
        skipped.extend(bad.iter().map(|b| Skipped {
            path: rel.clone(),
            error: audit::bad_line_error(&path, b).to_string(),
        }));
    }
    if let Some(n) = limit {
        let drop = lines.len().saturating_sub(n);
        lines.drain(..drop);
    }
    Ok(AuditReport { lines, skipped })
}

/// Reads an audit action by name, in any case (`create`, `ARCHIVE`, …).
///
/// Fails with the list of actions when `text` names none.
pub fn parse_action(text: &str) -> Result<Action, InputError> {
    Action::parse(text).ok_or_else(|| InputError::Unknown {
        what: "action",
        value: text.to_owned(),
        expected: Action::ALL
            .iter()
            .map(|a| a.as_str().to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Parses `--since` and `--older-than` (`flag` names which, for the error): anything
/// [`date::parse`] reads. A day (`2026-02-02`, `yesterday`) or a stretch of days (`last week`:
/// its first day) starts at midnight UTC, like the audit log's own timestamps; an age (`90m`,
/// `12h`, `7d`, `2w`) counts back from `now`.
pub fn parse_since(
    flag: &'static str,
    text: &str,
    now: Timestamp,
) -> Result<DateTime<Utc>, InputError> {
    date::parse(text, &now)
        .map(|w| w.start(Utc.fix()).with_timezone(&Utc))
        .ok_or_else(|| InputError::Time { flag, text: text.to_owned() })
}

/// A commit that changed a critical file and that nobody has acknowledged yet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CriticalChange {
    /// What `cogmem audit ack` takes for this one change: `<short commit>:<file>`.
    pub id: String,
    /// The full commit id.
    pub commit: String,
    /// The commit's time, RFC 3339.
    pub date: String,
    /// Who made it: the commit's `Actor:` trailer, else its author.
    pub actor: String,
    /// The commit's `Approval:` trailer (`—` when it has none).
    pub approval: String,
    /// The critical file, relative to the workspace root.
    pub file: String,
    /// Lines added to the file.
    pub added: usize,
    /// Lines removed from the file.
    pub removed: usize,
    /// The commit's subject.
    pub subject: String,
    /// Why the change is an integrity problem, when its actor may not change a critical file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity_problem: Option<String>,
}

/// The derived cache of the history scan for critical changes (rebuilt when missing, when
/// the critical files change, or when HEAD no longer descends from the scanned commit).
pub const CRITICAL_SCAN: &str = ".cogmem/critical-scan.json";

/// Every commit id the scan has looked at, one per line, beside [`CRITICAL_SCAN`]: kept apart
/// so that the common call (HEAD one or a few commits past the scanned head) neither reads nor
/// rewrites a list as long as the history, only appends to it (issue 20).
pub const CRITICAL_SCANNED: &str = ".cogmem/critical-scanned.txt";

/// What [`CRITICAL_SCAN`] holds: every critical change up to `head`, acknowledged or not,
/// newest first. (An older cache also held the scanned ids; it has no [`CRITICAL_SCANNED`]
/// beside it and is rebuilt.)
#[derive(Debug, Serialize, Deserialize)]
struct ScanCache {
    head: String,
    files: Vec<String>,
    changes: Vec<CriticalChange>,
}

/// How many single-parent commits the scan follows back from HEAD to the scanned head before it
/// reads the list of scanned commits and walks instead.
const CHAIN: usize = 64;

/// The critical files of the workspace, as written in settings (trimmed, without `./`).
fn critical_files(ws: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in &ws.settings().audit.critical_files {
        let f = f.trim().trim_start_matches("./").to_owned();
        if !f.is_empty() && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn git_op(what: &'static str) -> impl FnOnce(git2::Error) -> GitError {
    move |cause| GitError::Op { what, cause }
}

/// The `(commit, file)` pairs acknowledged by ACK lines, in the audit log and in the digests of
/// `audit-archive.md` (compaction keeps ACK lines there word for word).
fn acknowledged(ws: &Workspace) -> crate::Result<HashSet<(String, String)>> {
    let mut out = HashSet::new();
    let mut files = audit::log_files(ws.root());
    files.push(layout::AUDIT_ARCHIVE.to_owned());
    for rel in files {
        // Lossy: a stray invalid byte must not hide every acknowledgement in the file.
        let bytes = ws.read_if_exists(&rel)?.unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let archive;
        let lines: Box<dyn Iterator<Item = &str>> = if rel == layout::AUDIT_ARCHIVE {
            archive = Archive::parse(&text);
            Box::new(archive.notable_lines())
        } else {
            Box::new(text.lines())
        };
        // Only an acknowledgement line is parsed (most of a long history is other actions).
        for raw in lines.filter(|l| l.contains("acknowledged ")) {
            if let Ok(Some(l)) = AuditLine::parse(raw)
                && l.action == Action::Ack
                && let Some(id) = l.summary.strip_prefix("acknowledged ")
            {
                let id: String = id.chars().take_while(char::is_ascii_hexdigit).collect();
                if id.len() == 40 {
                    out.insert((id, l.file.clone()));
                }
            }
        }
    }
    Ok(out)
}

/// Returns a trailer's value (`Actor: …`) from a commit message.
pub(crate) fn trailer<'m>(message: &'m str, key: &str) -> Option<&'m str> {
    message.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(": ")).map(str::trim)
}

/// Tells why a change by `actor` with `approval` to a critical file is an integrity problem, if
/// it is one: only a person (`user:NAME` or `manual`) or an approved reflection may change such
/// a file.
pub fn integrity_problem(actor: &str, approval: &str) -> Option<String> {
    let ok =
        audit::is_person_name(actor) || actor.starts_with("reflection:") && approval == "approved";
    (!ok).then(|| {
        format!(
            "changed by {actor} (approval {approval}); only a person (`user:NAME` or `manual`) \
             or an approved reflection may change a critical file"
        )
    })
}

/// Why a critical-file change committed outside cogmem (no `Actor:` trailer) is an integrity
/// problem: nothing tells a person's plain `git commit` from an agent's.
fn outside_problem(author: &str) -> String {
    let author = author.escape_debug();
    format!(
        "committed with plain git by \"{author}\": cogmem cannot tell a person's commit from an \
         agent's (both carry git's user.name); if it was yours, acknowledge it with `cogmem audit \
         ack`"
    )
}

/// Lists the commits that changed a critical file and are not acknowledged, oldest first.
///
/// Walks the history from `HEAD`; a merge counts only where its result differs from every
/// parent. The workspace's creation by `cogmem init` (actor `system:init`) is the baseline and
/// is never listed. What was scanned before is kept in [`CRITICAL_SCAN`], so a later call walks
/// only the new commits; the cache is derived and rebuilt whenever it does not fit.
pub fn critical_changes(ws: &Workspace, repo: &Repository) -> crate::Result<Vec<CriticalChange>> {
    let files = critical_files(ws);
    let Some(head) = git::head_id(repo)? else { return Ok(Vec::new()) };
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let cache_path = ws.abs(CRITICAL_SCAN);
    let list_path = ws.abs(CRITICAL_SCANNED);
    let cached: Option<ScanCache> = fsx::read_text_if_exists(&cache_path, ws.file_limit())
        .ok()
        .flatten()
        .and_then(|t| serde_json::from_str(&t).ok())
        .filter(|c: &ScanCache| c.files == files)
        .filter(|_| list_path.is_file());
    // What the scan found, the commits it looked at, and whether they extend the list on disk
    // (`Some(false)`), replace it (`Some(true)`), or leave the cache as it is (`None`).
    let (all, ids, rewrite) =
        match cached.and_then(|c| Oid::from_str(&c.head).ok().map(|old| (c, old))) {
            Some((c, old)) if old == head => (c.changes, Vec::new(), None),
            Some((c, old)) => match git::first_parent_chain(repo, head, old, CHAIN, |_| true) {
                // The common case: a few new commits on top of the scanned head.
                Some(chain) => {
                    let mut all = scan_commits(repo, &files, &chain)?;
                    all.extend(c.changes);
                    (all, chain, Some(false))
                }
                None => {
                    let before: HashSet<Oid> = fsx::read_text_if_exists(&list_path, u64::MAX)
                        .ok()
                        .flatten()
                        .unwrap_or_default()
                        .lines()
                        .filter_map(|l| Oid::from_str(l.trim()).ok())
                        .collect();
                    match scan(repo, &files, head, Some((old, &before)))? {
                        // The scanned commit is still in HEAD's history: add what came after it.
                        (mut all, ids, true) => {
                            all.extend(c.changes);
                            (all, ids, Some(false))
                        }
                        // History was rewritten (reset, rebase): scan it all again.
                        (_, _, false) => {
                            let (all, ids, _) = scan(repo, &files, head, None)?;
                            (all, ids, Some(true))
                        }
                    }
                }
            },
            None => {
                let (all, ids, _) = scan(repo, &files, head, None)?;
                (all, ids, Some(true))
            }
        };
    let cache = ScanCache { head: head.to_string(), files, changes: all };
    if let Some(whole) = rewrite {
        // Derived data: a failure to save it only costs the next call a full walk. The list is
        // written first; when it cannot be, the cache is removed so that no later call trusts
        // a list that misses commits.
        let lines: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let listed = if whole {
            fsx::write_derived(&list_path, lines.as_bytes(), false).is_ok()
        } else {
            // Derived, like a staging file: no need to wait for the disk.
            fsx::append_staged(&list_path, lines.as_bytes()).is_ok()
        };
        match serde_json::to_string(&cache) {
            Ok(text) if listed => {
                let _ = fsx::write_derived(&cache_path, text.as_bytes(), false);
            }
            _ => {
                let _ = fsx::remove_file(&cache_path);
            }
        }
    }
    // Nothing to acknowledge: the audit logs (every month of the history) are not read.
    if cache.changes.is_empty() {
        return Ok(Vec::new());
    }
    let acked = acknowledged(ws)?;
    let mut out: Vec<CriticalChange> = cache
        .changes
        .into_iter()
        .filter(|c| !acked.contains(&(c.commit.clone(), c.file.clone())))
        .collect();
    out.reverse();
    out.sort_by(|a, b| a.date.cmp(&b.date)); // stable: a commit's files keep their order
    Ok(out)
}

/// Finds every critical change in the commits [`commits_since`] lists, in its order; returns
/// them, the commits scanned, and whether the earlier scan's head is an ancestor of `head`.
fn scan(
    repo: &Repository,
    files: &[String],
    head: Oid,
    earlier: Option<(Oid, &HashSet<Oid>)>,
) -> crate::Result<(Vec<CriticalChange>, Vec<Oid>, bool)> {
    let (commits, reaches_hidden) = commits_since(repo, head, earlier)?;
    Ok((scan_commits(repo, files, &commits)?, commits, reaches_hidden))
}

/// Every critical change the commits `commits` (newest first) made, in their order.
fn scan_commits(
    repo: &Repository,
    files: &[String],
    commits: &[Oid],
) -> crate::Result<Vec<CriticalChange>> {
    let mut ids: HashMap<Oid, Vec<Option<Oid>>> = HashMap::new();
    let blob_ids =
        |oid: Oid, ids: &mut HashMap<Oid, Vec<Option<Oid>>>| -> crate::Result<Vec<Option<Oid>>> {
            if let Some(v) = ids.get(&oid) {
                return Ok(v.clone());
            }
            let commit = repo.find_commit(oid).map_err(git_op("read a commit"))?;
            let tree = commit.tree().map_err(git_op("read a commit's tree"))?;
            let v: Vec<Option<Oid>> =
                files.iter().map(|f| tree.get_path(Path::new(f)).ok().map(|e| e.id())).collect();
            ids.insert(oid, v.clone());
            Ok(v)
        };
    let mut out = Vec::new();
    for &oid in commits {
        let commit = repo.find_commit(oid).map_err(git_op("read a commit"))?;
        let now = blob_ids(oid, &mut ids)?;
        let parents: Vec<Oid> = commit.parent_ids().collect();
        let mut before: Vec<Vec<Option<Oid>>> = Vec::with_capacity(parents.len());
        for p in &parents {
            before.push(blob_ids(*p, &mut ids)?);
        }
        // A commit is visited once: its own entry is no longer needed by anyone but its
        // children, which came before it.
        ids.remove(&oid);
        for (i, file) in files.iter().enumerate() {
            let changed = if before.is_empty() {
                now[i].is_some()
            } else {
                before.iter().all(|b| b[i] != now[i])
            };
            if !changed {
                continue;
            }
            let message = commit.message().unwrap_or("");
            let author = commit.author();
            let claimed = trailer(message, "Actor");
            if claimed == Some("system:init") {
                continue;
            }
            // A commit made outside cogmem names its actor as adoption records it; it is never
            // taken as a person's, since an agent's `git commit` carries git's user.name too.
            let (actor, problem) = match claimed {
                Some(actor) => (actor.to_owned(), None),
                None => {
                    let name = author.name().unwrap_or("unknown");
                    (crate::adopt::actor_of(name).as_str().to_owned(), Some(outside_problem(name)))
                }
            };
            let commit_id = oid.to_string();
            let approval = trailer(message, "Approval").unwrap_or("—").to_owned();
            let problem = problem.or_else(|| integrity_problem(&actor, &approval));
            let old = match before.first().and_then(|b| b[i]) {
                Some(id) => repo.find_blob(id).map_err(git_op("read a file"))?.content().to_vec(),
                None => Vec::new(),
            };
            let new = match now[i] {
                Some(id) => repo.find_blob(id).map_err(git_op("read a file"))?.content().to_vec(),
                None => Vec::new(),
            };
            let (added, removed) = line_stats(&old, &new)?;
            let time = author.when();
            let date = DateTime::from_timestamp(time.seconds(), 0)
                .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
                .unwrap_or_default();
            out.push(CriticalChange {
                id: format!("{}:{file}", &commit_id[..8]),
                integrity_problem: problem,
                commit: commit_id,
                date,
                actor,
                approval,
                file: file.clone(),
                added,
                removed,
                subject: message.lines().next().unwrap_or("").to_owned(),
            });
        }
    }
    Ok(out)
}

/// Lists the commits reachable from `head` that are not in `scanned`, and tells whether `old`
/// (the head of the earlier scan) is an ancestor of `head`: exactly when `head` is `old` or a
/// listed commit has it as a parent. Without `scanned`, the whole history.
///
/// The walk never goes below an already scanned commit, so its cost is the new commits,
/// whatever the commit dates say.
fn commits_since(
    repo: &Repository,
    head: Oid,
    earlier: Option<(Oid, &HashSet<Oid>)>,
) -> crate::Result<(Vec<Oid>, bool)> {
    let Some((old, scanned)) = earlier else {
        let mut walk = repo.revwalk().map_err(git_op("walk the history"))?;
        walk.push(head).map_err(git_op("walk the history"))?;
        let all = walk.collect::<Result<Vec<Oid>, _>>().map_err(git_op("walk the history"))?;
        return Ok((all, false));
    };
    let mut out = Vec::new();
    let mut seen: HashSet<Oid> = HashSet::new();
    let mut stack = vec![head];
    let mut reaches = head == old;
    while let Some(oid) = stack.pop() {
        if scanned.contains(&oid) || !seen.insert(oid) {
            continue;
        }
        out.push(oid);
        let commit = repo.find_commit(oid).map_err(git_op("read a commit"))?;
        for p in commit.parent_ids() {
            reaches |= p == old;
            stack.push(p);
        }
    }
    Ok((out, reaches))
}

/// Counts added and removed lines between two versions of a file.
pub fn line_stats(old: &[u8], new: &[u8]) -> crate::Result<(usize, usize)> {
    let patch = git2::Patch::from_buffers(old, None, new, None, None)
        .map_err(git_op("compare two versions of a file"))?;
    let (_, added, removed) = patch.line_stats().map_err(git_op("count changed lines"))?;
    Ok((added, removed))
}

/// What `audit ack` did.
#[derive(Debug, Clone, Serialize)]
pub struct AckReport {
    /// The changes acknowledged now.
    pub acknowledged: Vec<CriticalChange>,
    /// The commit holding the ACK lines, or `None` when there was nothing to acknowledge.
    pub commit: Option<String>,
}

/// Acknowledges unacknowledged critical changes: the one `id` names (a commit id prefix, which
/// takes every critical file of that commit, or `<commit prefix>:<file>`), or all of them.
///
/// Writes one ACK line per change, by `actor`, in one commit. Only a person may acknowledge
/// (an agent must not wave its own change to SOUL.md through). Fails when `id` matches nothing
/// or commits of more than one id.
pub fn ack(
    ws: &Workspace,
    id: Option<&str>,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<AckReport> {
    crate::role::require_person(&actor, "acknowledge a critical-file change")?;
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let pending = critical_changes(ws, &repo)?;
    let chosen: Vec<CriticalChange> = match id.map(str::trim) {
        None => pending.clone(),
        Some(id) => {
            let (prefix, file) = match id.split_once(':') {
                Some((p, f)) => (p, Some(f.trim_start_matches("./"))),
                None => (id, None),
            };
            let prefix = prefix.to_ascii_lowercase();
            let ok = prefix.len() >= 4 && prefix.chars().all(|c| c.is_ascii_hexdigit());
            let found: Vec<CriticalChange> = if ok {
                pending
                    .iter()
                    .filter(|c| c.commit.starts_with(&prefix) && file.is_none_or(|f| f == c.file))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            let commits: HashSet<&str> = found.iter().map(|c| c.commit.as_str()).collect();
            if found.is_empty() || commits.len() > 1 {
                let expected = if pending.is_empty() {
                    "none: every critical change is acknowledged".to_owned()
                } else {
                    pending.iter().map(|c| c.id.as_str()).collect::<Vec<_>>().join(", ")
                };
                return Err(InputError::Unknown {
                    what: "unacknowledged critical change",
                    value: id.to_owned(),
                    expected,
                }
                .into());
            }
            found
        }
    };
    if chosen.is_empty() {
        return Ok(AckReport { acknowledged: chosen, commit: None });
    }
    let now = clock.now();
    let summary = if chosen.len() == 1 {
        format!("acknowledged critical change {}", chosen[0].id)
    } else {
        format!("acknowledged {} critical changes", chosen.len())
    };
    let mut change = Change::new(actor, "cogmem audit ack").with_subject(Action::Ack, summary);
    for c in &chosen {
        change.note(
            Action::Ack,
            &c.file,
            format!("acknowledged {} by {} (+{} -{})", c.commit, c.actor, c.added, c.removed),
        );
    }
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    Ok(AckReport { acknowledged: chosen, commit: Some(applied.commit) })
}

/// What `audit compact` did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct CompactReport {
    /// Lines before this time were moved.
    pub cutoff: String,
    /// Lines moved into the archive.
    pub moved: usize,
    /// Audit lines left in the log.
    pub kept: usize,
    /// The months whose digests were written or extended, `YYYY-MM`.
    pub months: Vec<String>,
    /// The commit, or `None` on a dry run or when nothing was old enough.
    pub commit: Option<String>,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

/// The latest cutoff of an `audit compact` recorded in the log: commits before it have their
/// audit lines in the digests of `audit-archive.md`, not in the log.
pub fn compacted_before(log: &str) -> Option<DateTime<Utc>> {
    log.lines()
        .filter_map(|raw| AuditLine::parse(raw).ok().flatten())
        .filter(|l| l.file == layout::AUDIT_ARCHIVE)
        .filter_map(|l| {
            let rest = l.summary.split(" audit lines before ").nth(1)?;
            let stamp = rest.split(' ').next()?;
            date::parse_rfc3339(stamp).map(|t| t.with_timezone(&Utc))
        })
        .max()
}

/// Moves audit lines older than `cutoff` into monthly digests in `audit-archive.md`, in one
/// commit by `actor`. Headers, comments, newer lines and lines that cannot be read stay in the
/// log. With nothing old enough, or with `dry_run`, nothing is written.
pub fn compact(
    ws: &Workspace,
    cutoff: DateTime<Utc>,
    actor: Actor,
    clock: &dyn Clock,
    dry_run: bool,
) -> crate::Result<CompactReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let plan = plan_compact(ws, cutoff, dry_run)?;
    if plan.report.moved == 0 || dry_run {
        return Ok(plan.report);
    }
    let mut change = Change::new(actor, "cogmem audit compact");
    let mut report = plan.stage(ws, &mut change)?;
    let applied = change.apply(ws, &repo, &lock, &FixedClock(clock.now()))?;
    report.commit = Some(applied.commit);
    Ok(report)
}

/// A compaction worked out but not written: [`plan_compact`] makes it and
/// [`CompactPlan::stage`] adds its files to a change, so that `audit compact` commits it alone
/// and `upkeep` with its other work, in one commit.
#[derive(Debug)]
pub struct CompactPlan {
    /// What the compaction does (its `commit` is never set here).
    pub report: CompactReport,
    /// Lines left in the log because they cannot be read, each naming its file and line.
    pub skipped: Vec<Skipped>,
    /// The digests with the moved lines added.
    digests: Archive,
    /// Whether `audit-archive.md` exists already.
    archive_exists: bool,
    /// Each file of the log that loses lines, with what it keeps (`None`: a segment left with
    /// none, removed).
    rewritten: Vec<(String, Option<String>)>,
}

/// Works out which audit lines are older than `cutoff` and the digests they make. Writes
/// nothing; the caller holds the workspace lock.
pub fn plan_compact(
    ws: &Workspace,
    cutoff: DateTime<Utc>,
    dry_run: bool,
) -> crate::Result<CompactPlan> {
    let archive = ws.read_text_if_exists(layout::AUDIT_ARCHIVE)?;
    let mut digests = Archive::parse(archive.as_deref().unwrap_or(""));
    let mut moved = 0;
    let mut kept = 0;
    let mut touched: Vec<String> = Vec::new();
    let mut skipped = Vec::new();
    // Each file of the log (sealed segments, then audit.log) keeps its newer lines; a segment
    // left with none is removed (history keeps it).
    let mut rewritten: Vec<(String, Option<String>)> = Vec::new();
    let files = audit::log_files(ws.root());
    let task = ws.progress(files.len() as u64, "log files read");
    for rel in files {
        task.inc();
        let log = ws.read_text_if_exists(&rel)?.unwrap_or_default();
        let mut kept_text = String::with_capacity(log.len());
        let (mut moved_here, mut kept_here, mut unreadable) = (0, 0, 0);
        for (i, raw) in log.lines().enumerate() {
            match AuditLine::parse(raw) {
                Ok(Some(l)) if l.timestamp < cutoff => {
                    let month = digests.add(&l);
                    if !touched.contains(&month) {
                        touched.push(month);
                    }
                    moved_here += 1;
                }
                other => {
                    match other {
                        Ok(Some(_)) => kept_here += 1,
                        Ok(None) => {}
                        Err(why) => {
                            unreadable += 1;
                            let bad = audit::BadLine { line: i + 1, problem: why };
                            skipped.push(Skipped {
                                path: rel.clone(),
                                error: audit::bad_line_error(&ws.abs(&rel), &bad).to_string(),
                            });
                        }
                    }
                    kept_text.push_str(raw);
                    kept_text.push('\n');
                }
            }
        }
        moved += moved_here;
        kept += kept_here;
        if moved_here > 0 {
            let segment = rel != layout::AUDIT_LOG;
            let empty = kept_here + unreadable == 0;
            rewritten.push((rel, (!segment || !empty).then_some(kept_text)));
        }
    }
    touched.sort();
    let report = CompactReport {
        cutoff: cutoff.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        moved,
        kept,
        months: touched,
        commit: None,
        dry_run,
    };
    Ok(CompactPlan { report, skipped, digests, archive_exists: archive.is_some(), rewritten })
}

impl CompactPlan {
    /// Adds the shortened log files and the digests to `change` (nothing when no line is old
    /// enough), and returns the report.
    pub fn stage(self, ws: &Workspace, change: &mut Change) -> crate::Result<CompactReport> {
        let Self { report, digests, archive_exists, rewritten, .. } = self;
        if report.moved == 0 {
            return Ok(report);
        }
        let text = digests.render();
        // `verify` reads the cutoff back: commits before it have their lines in the digests.
        let summary = format!(
            "{} audit lines before {} moved into monthly digests ({})",
            report.moved,
            report.cutoff,
            report.months.join(", ")
        );
        let action = if archive_exists { Action::Edit } else { Action::Create };
        // audit.log itself gets no line about itself (it is where the lines go).
        if !rewritten.iter().any(|(rel, _)| rel == layout::AUDIT_LOG) {
            let log = ws.read_if_exists(layout::AUDIT_LOG)?.unwrap_or_default();
            change.write(layout::AUDIT_LOG, log, Action::Edit, "");
        }
        for (rel, text) in rewritten {
            let what = "lines moved into audit-archive.md";
            match text {
                Some(t) if rel == layout::AUDIT_LOG => {
                    change.write(&rel, t.into_bytes(), Action::Edit, "");
                }
                Some(t) => change.write(&rel, t.into_bytes(), Action::Edit, what),
                None => change.delete(&rel, Action::Delete, format!("every line {what}")),
            }
        }
        change.write(layout::AUDIT_ARCHIVE, text.into_bytes(), action, summary);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_forms() {
        let now = FixedClock::parse("2026-02-10T12:00:00Z").unwrap().0;
        let cases = [
            ("2026-02-02", "2026-02-02T00:00:00Z"),
            ("2026-02-02T10:00:00+02:00", "2026-02-02T08:00:00Z"),
            ("7d", "2026-02-03T12:00:00Z"),
            ("12h", "2026-02-10T00:00:00Z"),
            ("yesterday", "2026-02-09T00:00:00Z"),
            // The week before this one starts on Monday 2026-02-02. See: issue 18
            ("last week", "2026-02-02T00:00:00Z"),
            ("先週", "2026-02-02T00:00:00Z"),
            ("3日前", "2026-02-07T00:00:00Z"),
            ("2 days ago", "2026-02-08T00:00:00Z"),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_since("--since", input, now).unwrap().to_rfc3339(),
                want.replace('Z', "+00:00"),
                "input: {input:?}"
            );
        }
        assert!(parse_since("--since", "7y", now).is_err());
    }
}

#[cfg(test)]
mod archive_tests {
    use super::*;

    #[test]
    fn integrity_rule() {
        let cases = [
            ("manual", "—", false),
            ("user:alice", "auto", false),
            ("agent:manual", "auto", true),
            ("reflection:r-003", "approved", false),
            ("reflection:r-003", "pending", true),
            ("bot:trigger-remember", "auto", true),
            ("tester", "—", true),
        ];
        for (actor, approval, problem) in cases {
            assert_eq!(
                integrity_problem(actor, approval).is_some(),
                problem,
                "input: {actor:?} {approval:?}"
            );
        }
    }
}
