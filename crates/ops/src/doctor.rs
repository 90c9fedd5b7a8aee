//! `cogmem verify` and `cogmem doctor [--fix]`: checks that a workspace is whole — every file
//! readable in its format, decay entries and memory units matching, links resolving, MEMORY.md
//! within budget, the index current, history append-only and audited, critical changes
//! acknowledged, no lock or half-made change left behind by a crashed process.
//!
//! [`verify`] only reads. [`fix`] takes the workspace lock, puts back the files an interrupted
//! change left (keeping a copy of each under `.cogmem/recovered/`), removes stale lock and
//! temporary files, makes one commit through [`cogmem_store::change`] for what can be repaired in the
//! files (as `system:doctor`), and refreshes the index. Nothing that cannot be rebuilt is lost.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use git2::{ObjectType, Oid, Repository};
use serde::Serialize;

use cogmem_store::audit::{Action, Actor, AuditLine, RawFields};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::decay_file::{ArchiveRecord, DecayFile, NewUnit};
use cogmem_store::store::entity::EntityId;
use cogmem_store::store::flags::{self, FlagsFile};
use cogmem_store::store::pending::PendingFile;
use cogmem_store::store::{Store, episode, fsx, units};
use cogmem_store::workspace::{LockProbe, LockRecord, Workspace, journal, layout};
use cogmem_text::clock::Clock;

/// The audit action a person's acknowledgement of a critical-file change is written with.
pub(crate) const ACK_ACTION: &str = "ACK";

/// Where `doctor --fix` keeps a copy of every file it puts back.
pub(crate) const RECOVERED_DIR: &str = ".cogmem/recovered";

/// The checks, in the order they run and are reported.
pub const CHECKS: [&str; 15] = [
    "schema",
    "vocabulary",
    "decay",
    "graph",
    "adopt",
    "links",
    "budget",
    "index",
    "uncommitted",
    "append-only",
    "audit",
    "critical",
    "lock",
    "interrupted",
    "secrets",
];

/// git's index, as a damaged one is reported (relative to the workspace root).
const GIT_INDEX: &str = ".git/index";

/// Age after which a git lock file is taken for abandoned even without a dead holder's record.
const GIT_LOCK_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check that found it (one of [`CHECKS`]).
    pub check: &'static str,
    /// The file, relative to the workspace root (empty for the workspace as a whole).
    pub path: String,
    /// The 1-based line, when the problem has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// Whether `cogmem doctor --fix` repairs it.
    pub fixable: bool,
}

impl Finding {
    fn new(check: &'static str, path: &str, message: impl Into<String>, fixable: bool) -> Self {
        Self { check, path: path.to_owned(), line: None, message: message.into(), fixable }
    }

    fn at(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// `path:line`, or `path`, or `(workspace)`.
    pub fn location(&self) -> String {
        match (self.path.is_empty(), self.line) {
            (true, _) => "(workspace)".to_owned(),
            (false, Some(l)) => format!("{}:{l}", self.path),
            (false, None) => self.path.clone(),
        }
    }
}

/// One repair `doctor --fix` made.
#[derive(Debug, Clone, Serialize)]
pub struct Repair {
    /// The check whose finding it repairs.
    pub check: &'static str,
    /// The file.
    pub path: String,
    /// What was done.
    pub message: String,
}

/// What `verify` or `doctor` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The checks that ran.
    pub checks: Vec<&'static str>,
    /// Checks this build cannot run, with why.
    pub not_checked: Vec<NotChecked>,
    /// The problems left (after repairs, for `doctor --fix`).
    pub findings: Vec<Finding>,
    /// What a person should look at but is not wrong: each open flag (check `flags`), until a
    /// person resolves it (issue 19). Warnings leave the report clean and the exit code 0.
    pub warnings: Vec<Finding>,
    /// The repairs made (`doctor --fix` only).
    pub repaired: Vec<Repair>,
    /// The repair commit, if one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Where copies of put-back files were kept, if any were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<String>,
    /// Refs of commits holding the files as they were before being put back
    /// (`refs/cogmem/recovered/…`, parent HEAD, off every branch); `git checkout REF -- PATH`
    /// brings one back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovery_refs: Vec<String>,
    /// A running command held the lock while checking, so in-flight files may show up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy: Option<Busy>,
}

/// The command that held the lock during the checks.
#[derive(Debug, Clone, Serialize)]
pub struct Busy {
    /// Its process id, once it has written its record.
    pub pid: Option<u32>,
}

/// A check this build does not run.
#[derive(Debug, Clone, Serialize)]
pub struct NotChecked {
    /// The check.
    pub check: &'static str,
    /// Why.
    pub reason: &'static str,
}

impl Report {
    /// Tells whether nothing is wrong.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Runs every check without changing anything (not even the lock file).
pub fn verify(ws: &Workspace) -> crate::Result<Report> {
    verify_with(ws, false)
}

/// [`verify`], optionally leaving out `uncommitted` and `index` findings: in a git pre-commit
/// hook the edits being committed are uncommitted by definition (and newer than the index),
/// and the other checks still read them.
pub fn verify_with(ws: &Workspace, allow_uncommitted: bool) -> crate::Result<Report> {
    let repo = git::open(ws.root())?;
    // The read side of the lock: a change in flight finishes first, and none starts until the
    // checks are done, so nothing half-written is taken for a problem (issue 16). Only when a
    // writer holds the lock for the whole `lock.timeout_ms` are the checks run beside it,
    // with a warning.
    let guard = ws.read_lock()?;
    let probe = guard.probe();
    let stale = match probe {
        LockProbe::Stale { record } => Some(record.clone()),
        _ => None,
    };
    let busy = match probe {
        LockProbe::Held { record } => Some(Busy { pid: record.as_ref().map(|r| r.pid) }),
        _ => None,
    };
    let mut report = run_checks(ws, &repo, stale.as_ref())?;
    drop(guard);
    // A change journal while nobody holds the lock is a change whose process died.
    if busy.is_none() && journal::pending(ws.root()) {
        // The files it names are the dead change's, not hand edits: reported here once, never
        // as uncommitted files to commit (committing one would pass a half change off as the
        // person's own). A manifest that cannot be read takes none away; `fix` names it.
        let named = journal::files(ws.root(), ws.file_limit()).unwrap_or_default();
        let mut left = Vec::new();
        report.findings.retain(|f| {
            let theirs = f.check == "uncommitted" && named.contains(&f.path);
            if theirs {
                left.push(f.path.clone());
            }
            !theirs
        });
        report.findings.push(Finding::new(
            "interrupted",
            journal::DIR,
            format!(
                "a change was cut off half-way{}; its journal says what each file was before it \
                 (the next command, or `cogmem doctor --fix`, puts them back; do not commit \
                 them)",
                left_by_change(&left)
            ),
            true,
        ));
    }
    report.busy = busy;
    if allow_uncommitted {
        // Uncommitted edits also leave the index behind the files; neither is a problem here.
        // A damaged git index still is: git would commit from it.
        report
            .findings
            .retain(|f| (f.check != "uncommitted" || f.path == GIT_INDEX) && f.check != "index");
        for check in ["uncommitted", "index"] {
            report
                .not_checked
                .push(NotChecked { check, reason: "allowed with --allow-uncommitted" });
        }
    }
    Ok(report)
}

/// What an interrupted change left changed, for its finding: ` and left 2 files changed: A, B`,
/// naming at most three (`… and 226 more`); empty when it left none.
fn left_by_change(paths: &[String]) -> String {
    const NAMED: usize = 3;
    if paths.is_empty() {
        return String::new();
    }
    let files = if paths.len() == 1 { "file" } else { "files" };
    let mut names = paths.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > NAMED {
        names.push_str(&format!(" and {} more", paths.len() - NAMED));
    }
    format!(" and left {} {files} changed: {names}", paths.len())
}

/// Takes the lock, repairs what can be repaired without losing anything, and reports what is
/// left. At most one commit, by `system:doctor`.
pub fn fix(ws: &Workspace, clock: &dyn Clock) -> crate::Result<Report> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let took_over = lock.took_over().cloned();
    let mut repaired = Vec::new();
    if let Some(r) = &took_over {
        repaired.push(Repair {
            check: "lock",
            path: layout::LOCK.to_owned(),
            message: format!("took over the lock left by process {}", r.pid),
        });
    }
    let mut recovery_refs = Vec::new();
    // Taking the lock finished what a dead process's change journal describes.
    if let Some(r) = lock.recovered() {
        recovery_refs.extend(r.saved_ref.clone());
        if r.committed {
            repaired.push(Repair {
                check: "interrupted",
                path: journal::DIR.to_owned(),
                message: "the interrupted change had been committed; removed its journal".into(),
            });
        }
        for rel in &r.restored {
            repaired.push(Repair {
                check: "interrupted",
                path: rel.clone(),
                message: format!(
                    "put back as it was before the interrupted change (what it left is in {})",
                    r.saved_to.as_deref().unwrap_or(".cogmem/recovered")
                ),
            });
        }
    }
    let now = clock.now();

    // 1. Put back what an interrupted change left, keeping copies. Taking the lock already
    // put back every file a dead process's change journal names; the other uncommitted files
    // are hand edits, and they stay.
    // Every change writes its journal before it touches a file, so a dead holder that left
    // none had written nothing: its uncommitted files are not its own.
    let evidence = interrupted(ws, &repo, false)?;
    let mut recovered = None;
    if !evidence.files.is_empty() || !evidence.temp_files.is_empty() {
        let dir = recovery_dir(ws, now)?;
        // Committed first: a file put back may hold a person's only copy of an edit, and the
        // folder of copies is derived data that may be deleted.
        let message = "cogmem doctor --fix: files of an interrupted change, before they were \
                       put back\n\nRestore a file with `git checkout REF -- PATH`.\n";
        let name = dir.rsplit('/').next().unwrap_or("doctor");
        let saved = git::save_recovered(
            &repo,
            ws.root(),
            name,
            &evidence.files,
            message,
            now,
            ws.file_limit(),
        )?;
        recovery_refs.extend(saved);
        let tree = git::head_tree(&repo)?;
        for rel in evidence.files.iter().chain(&evidence.temp_files) {
            let abs = ws.abs(rel);
            if let Some(bytes) = fsx::read_if_exists(&abs, ws.file_limit())? {
                fsx::write_atomic(&ws.root().join(&dir).join(rel), &bytes)?;
            }
        }
        for rel in &evidence.files {
            let abs = ws.abs(rel);
            match git::read_at_head(&repo, tree.as_ref(), rel)? {
                Some(bytes) => fsx::write_atomic(&abs, &bytes)?,
                None => fsx::remove_file(&abs)?,
            }
            repaired.push(Repair {
                check: "interrupted",
                path: rel.clone(),
                message: "put back as in HEAD (the interrupted change is undone)".into(),
            });
        }
        git::reset_index(&repo, &evidence.files);
        for rel in &evidence.temp_files {
            fsx::remove_file(&ws.abs(rel))?;
            repaired.push(Repair {
                check: "interrupted",
                path: rel.clone(),
                message: "removed a temporary file of an unfinished write".into(),
            });
        }
        recovered = Some(dir);
    }
    for g in git_locks(ws, &repo, took_over.is_some()) {
        if g.fixable {
            fsx::remove_file(&g.abs)?;
            repaired.push(Repair {
                check: "lock",
                path: g.path,
                message: "removed a git lock file left by a process that died".into(),
            });
        }
    }

    // 2. Repairs inside the files: one commit.
    let tree = git::head_tree(&repo)?;
    let mut decay_dirty = git::is_dirty(ws.root(), tree.as_ref(), layout::DECAY_SCORES)?
        || git::is_dirty(ws.root(), tree.as_ref(), layout::AUDIT_LOG)?;
    for n in cogmem_store::store::decay_file::shard_files(ws.root()) {
        let rel = cogmem_store::store::decay_file::file_path(Some(n));
        decay_dirty = decay_dirty || git::is_dirty(ws.root(), tree.as_ref(), &rel)?;
    }
    drop(tree);
    let mut commit = None;
    // Commits made outside cogmem first, in their own `system:adopt` commit (issue 17): what
    // they lack is then no longer a repair of doctor's.
    let graph_dirty =
        git::is_dirty(ws.root(), git::head_tree(&repo)?.as_ref(), layout::GRAPH_INDEX)?;
    if !decay_dirty && !graph_dirty {
        let adopted = crate::adopt::adopt_locked(ws, &repo, &lock, &crate::FixedClock(now))?;
        if let Some(id) = &adopted.commit {
            repaired.push(Repair {
                check: "adopt",
                path: layout::AUDIT_LOG.into(),
                message: format!(
                    "adopted {} commits made outside cogmem (commit {})",
                    adopted.commits.len(),
                    id.get(..8).unwrap_or(id)
                ),
            });
        }
    }
    if !decay_dirty {
        let actor = Actor::system("system:doctor");
        let mut change = Change::new(actor, "cogmem doctor --fix");
        let mut summary = String::new();
        let decay = match decay_repairs(ws, now)? {
            Some((mut decay, notes)) => {
                summary = format!("repaired {} decay entries", notes.len());
                change.write_decay(ws, &mut decay, Action::Edit, &summary);
                for n in notes {
                    repaired.push(Repair {
                        check: "decay",
                        path: layout::DECAY_SCORES.into(),
                        message: n,
                    });
                }
                Some(decay)
            }
            None => read_decay(ws),
        };
        if !graph_dirty
            && !check_graph_index(ws).is_empty()
            && let Some(decay) = &decay
        {
            crate::graph::regenerate_index_with(ws, &mut change, decay)?;
            if change.pending(layout::GRAPH_INDEX).is_some() {
                repaired.push(Repair {
                    check: "graph",
                    path: layout::GRAPH_INDEX.into(),
                    message: "regenerated from the entity files".into(),
                });
                if summary.is_empty() {
                    summary = "regenerated the graph index".into();
                }
            }
        }
        if let (_, Some((text, added))) = check_vocabulary(ws)
            && !git::is_dirty(ws.root(), git::head_tree(&repo)?.as_ref(), layout::RELATIONS)?
        {
            let what =
                format!("added {} relations routing writes: {}", added.len(), added.join(", "));
            change.write(layout::RELATIONS, text.into_bytes(), Action::Edit, what.clone());
            repaired.push(Repair {
                check: "vocabulary",
                path: layout::RELATIONS.into(),
                message: what.clone(),
            });
            if summary.is_empty() {
                summary = what;
            }
        }
        if !change.is_empty() {
            let change = change.with_subject(Action::Edit, summary);
            let applied = change.apply(ws, &repo, &lock, &crate::FixedClock(now))?;
            commit = Some(applied.commit);
        }
    }
    drop(lock);

    // 3. Derived data last, so it sees the repaired files.
    let stale = || cogmem_index::index::state(ws) == cogmem_index::index::IndexState::Stale;
    if stale() {
        crate::search::reindex(ws, false)?;
        let mut fresh = !stale();
        if !fresh {
            crate::search::reindex(ws, true)?;
            fresh = !stale();
        }
        // Claimed only when it holds: the check below reports what is still stale.
        if fresh {
            repaired.push(Repair {
                check: "index",
                path: layout::INDEX_DIR.into(),
                message: "brought the search index up to date".into(),
            });
        }
    }

    let mut report = run_checks(ws, &repo, None)?;
    report.repaired = repaired;
    report.commit = commit;
    report.recovered = recovered;
    report.recovery_refs = recovery_refs;
    Ok(report)
}

fn run_checks(
    ws: &Workspace,
    repo: &Repository,
    stale: Option<&LockRecord>,
) -> crate::Result<Report> {
    let mut findings = Vec::new();
    let _ = stale; // see `fix`: the journal, not the lock record, says what a change wrote
    // One unit per entry of CHECKS (issue 20): `step` counts a check done and passes it on.
    let task = ws.progress(CHECKS.len() as u64, "checks");
    let evidence = task.step(interrupted(ws, repo, false)?);
    findings.extend(task.step(check_schema(ws)));
    findings.extend(task.step(check_decay(ws)));
    findings.extend(task.step(check_graph_index(ws)));
    findings.extend(task.step(check_vocabulary(ws).0));
    findings.extend(task.step(check_adopted(ws)?));
    findings.extend(task.step(check_links(ws)));
    findings.extend(task.step(check_budget(ws)));
    task.inc();
    if cogmem_index::index::state_when_idle(ws) == cogmem_index::index::IndexState::Stale {
        findings.push(Finding::new(
            "index",
            layout::INDEX_DIR,
            "the search index is older than the files",
            true,
        ));
    }
    findings.extend(task.step(check_uncommitted(ws, repo, &evidence)?));
    findings.extend(task.step(check_append_only(ws, repo)?));
    findings.extend(task.step(check_audit(repo)?));
    findings.extend(task.step(check_critical(ws)));
    task.inc();
    if let Some(r) = stale {
        let alive = match r.alive {
            Some(false) => "which is no longer running",
            Some(true) => "whose id now belongs to another program",
            None => "which no longer holds it",
        };
        findings.push(Finding::new(
            "lock",
            layout::LOCK,
            format!("left behind by process {}, {alive}", r.pid),
            true,
        ));
    }
    findings.extend(git_locks(ws, repo, stale.is_some()).into_iter().map(Finding::from));
    findings.extend(evidence.findings);
    let (not_checked, secret_findings) = task.step(check_secrets(ws));
    findings.extend(secret_findings);
    drop(task);
    Ok(Report {
        checks: CHECKS.to_vec(),
        not_checked,
        findings,
        warnings: open_flags(ws),
        repaired: Vec::new(),
        commit: None,
        recovered: None,
        recovery_refs: Vec::new(),
        busy: None,
    })
}

/// The secrets check: text that looks like a credential anywhere in the workspace (the rules of
/// [`cogmem_store::secrets`]); the finding names the rule and a redacted excerpt, never the secret.
/// Only a person can remove it (`cogmem forget --purge`), so it is not fixable.
fn check_secrets(ws: &Workspace) -> (Vec<NotChecked>, Vec<Finding>) {
    let findings = cogmem_store::secrets::scan_workspace(ws)
        .into_iter()
        .map(|(path, f)| {
            let message = format!(
                "looks like a secret ({} at column {}: {}); move it out of memory and erase it \
                 from history with `cogmem forget --purge`",
                f.rule, f.column, f.excerpt
            );
            Finding::new("secrets", &path, message, false).at(f.line)
        })
        .collect();
    (Vec::new(), findings)
}

// ---- schema ---------------------------------------------------------------------------------

fn check_schema(ws: &Workspace) -> Vec<Finding> {
    let mut out = Vec::new();
    let root = ws.root();
    let text = |rel: &str, out: &mut Vec<Finding>| -> Option<String> {
        match ws.read_text_if_exists(rel) {
            Ok(t) => t,
            Err(e) => {
                out.push(Finding::new("schema", rel, e.to_string(), false));
                None
            }
        }
    };
    if text(layout::MEMORY_MD, &mut out).is_none() && !root.join(layout::MEMORY_MD).exists() {
        out.push(Finding::new("schema", layout::MEMORY_MD, "MEMORY.md is missing", false));
    }
    for rel in [layout::IDENTITY_MD, layout::SOUL_MD, layout::GRAPH_INDEX, layout::RELATIONS] {
        text(rel, &mut out);
    }
    for rel in units::markdown_files(root, layout::EPISODES_DIR) {
        let stem = units::md_stem(&rel);
        if cogmem_text::date::parse_day(stem).is_none() {
            out.push(Finding::new(
                "schema",
                &rel,
                "an episode file is named after its day, YYYY-MM-DD.md",
                false,
            ));
        }
        text(&rel, &mut out);
    }
    for rel in units::markdown_files(root, layout::ENTITIES_DIR) {
        if let Err(e) = EntityId::parse(units::md_stem(&rel)) {
            out.push(Finding::new("schema", &rel, e.to_string(), false));
        }
        text(&rel, &mut out);
    }
    for dir in [layout::PROCEDURES_DIR, layout::VAULT_DIR] {
        for rel in units::markdown_files(root, dir) {
            text(&rel, &mut out);
        }
    }
    for (dir, _, _) in units::DIRS {
        for rel in units::linked_files(root, dir) {
            out.push(Finding::new("schema", &rel, units::LINK_SKIPPED, false));
        }
    }
    if let Some(t) = text(layout::DECAY_SCORES, &mut out)
        && let Err(e) = DecayFile::parse(&t, &root.join(layout::DECAY_SCORES))
    {
        out.push(store_finding("schema", layout::DECAY_SCORES, &e));
    }
    for n in cogmem_store::store::decay_file::shard_files(root) {
        let rel = cogmem_store::store::decay_file::file_path(Some(n));
        if let Some(t) = text(&rel, &mut out)
            && let Err(e) = DecayFile::parse_shard(&t, &root.join(&rel))
        {
            out.push(store_finding("schema", &rel, &e));
        }
    }
    for rel in cogmem_store::audit::log_files(root) {
        let Some(t) = text(&rel, &mut out) else { continue };
        for (i, raw) in t.lines().enumerate() {
            if raw_action(raw) == Some(ACK_ACTION) {
                continue; // written by `cogmem audit ack`, which this parser predates
            }
            if let Err(problem) = AuditLine::parse(raw) {
                out.push(Finding::new("schema", &rel, problem, false).at(i + 1));
            }
        }
    }
    if let Some(t) = text(layout::PENDING_MEMORIES, &mut out) {
        for (line, why) in PendingFile::parse(&t).problems {
            out.push(Finding::new("schema", layout::PENDING_MEMORIES, why, false).at(line));
        }
    }
    if let Some(t) = text(flags::FILE, &mut out) {
        for (line, why) in FlagsFile::parse(&t).problems {
            out.push(Finding::new("schema", flags::FILE, why, false).at(line));
        }
    }
    out
}

/// One warning per open flag, at its heading (issue 19). A file that cannot be read gives
/// none: the schema check reports it.
fn open_flags(ws: &Workspace) -> Vec<Finding> {
    let Ok(Some(text)) = ws.read_text_if_exists(flags::FILE) else { return Vec::new() };
    FlagsFile::parse(&text)
        .open()
        .map(|f| {
            let message = format!(
                "open flag {} (raised by {}); a person resolves it with `cogmem flag resolve {}`",
                f.summary(),
                f.raised_by,
                f.number
            );
            Finding::new("flags", flags::FILE, message, false).at(f.line)
        })
        .collect()
}

fn store_finding(check: &'static str, rel: &str, e: &cogmem_store::store::StoreError) -> Finding {
    match e {
        cogmem_store::store::StoreError::Malformed { line, what, .. }
        | cogmem_store::store::StoreError::HostConfig { line, what, .. } => {
            Finding::new(check, rel, what.clone(), false).at(*line)
        }
        cogmem_store::store::StoreError::NotUtf8 { .. } => {
            Finding::new(check, rel, "not valid UTF-8", false)
        }
    }
}

/// The action field of a raw audit line, when it has one.
fn raw_action(raw: &str) -> Option<&str> {
    RawFields::split(raw).ok().flatten().map(|f| f.action)
}

// ---- decay entries and units ----------------------------------------------------------------

fn read_decay(ws: &Workspace) -> Option<DecayFile> {
    if !ws.abs(layout::DECAY_SCORES).exists() {
        return None;
    }
    DecayFile::load(ws).ok()
}

/// Units without entries and entries without units (forgotten ones keep their entry on purpose).
fn decay_mismatch(ws: &Workspace, decay: &DecayFile) -> (Vec<units::MemoryUnit>, Vec<String>) {
    let all = units::list(ws);
    let keys: HashSet<String> = decay.keys().into_iter().collect();
    let ids: HashSet<&str> = all.units.iter().map(|u| u.id.as_str()).collect();
    // A unit in a file not committed yet gets its entry when `cogmem sync` commits it; until
    // then its lack of one is not a fault to repair.
    let uncommitted: HashSet<String> = git::open(ws.root())
        .and_then(|repo| git::uncommitted(&repo))
        .map(|c| c.into_iter().map(|c| c.path).collect())
        .unwrap_or_default();
    let missing = all
        .units
        .iter()
        .filter(|u| !keys.contains(&u.id) && !uncommitted.contains(&u.path))
        .cloned()
        .collect();
    // A file that cannot be read (a bad byte, over the size limit, a link) hides its units, not
    // removes them: their entries are left as they are (the schema check reports the file).
    // Nor does an uncommitted edit remove them: a bullet deleted by hand and not committed may
    // come back with `git checkout`, and archiving its entry would hide it from every search.
    // The uncommitted check reports the file; the commit that takes the edit settles it.
    let unreadable: HashSet<&str> = all.skipped.iter().map(|s| s.path.as_str()).collect();
    let orphans = decay
        .keys()
        .into_iter()
        .filter(|k| !ids.contains(k.as_str()) && !decay.is_forgotten(k))
        .filter(|k| {
            unit_file(k)
                .is_none_or(|rel| !unreadable.contains(rel.as_str()) && !uncommitted.contains(&rel))
        })
        .collect();
    (missing, orphans)
}

/// The file that holds the unit with decay id `key`, by the id's kind (see [`units::DIRS`]).
fn unit_file(key: &str) -> Option<String> {
    let (kind, rest) = key.split_once(':')?;
    if kind == "core" {
        return Some(layout::MEMORY_MD.to_owned());
    }
    let (dir, _, _) = units::DIRS.iter().find(|(_, _, k)| *k == kind)?;
    let stem = if kind == "episode" { rest.get(..10)? } else { rest };
    Some(format!("{dir}/{stem}.md"))
}

fn check_decay(ws: &Workspace) -> Vec<Finding> {
    let Some(decay) = read_decay(ws) else { return Vec::new() };
    let (missing, orphans) = decay_mismatch(ws, &decay);
    let mut out: Vec<Finding> = missing
        .iter()
        .map(|u| {
            Finding::new("decay", &u.path, format!("{} has no decay entry", u.id), true).at(u.line)
        })
        .collect();
    out.extend(orphans.iter().map(|k| {
        Finding::new(
            "decay",
            &decay.file_of(k).unwrap_or_else(|| layout::DECAY_SCORES.to_owned()),
            format!("entry {k} names no memory in the files"),
            true,
        )
    }));
    out
}

/// The decay state with entries created for units that lack one and entries whose
/// unit is gone marked archived (never removed), and one note per repair.
fn decay_repairs(
    ws: &Workspace,
    now: crate::Timestamp,
) -> crate::Result<Option<(DecayFile, Vec<String>)>> {
    let Some(mut decay) = read_decay(ws) else { return Ok(None) };
    let (missing, orphans) = decay_mismatch(ws, &decay);
    if missing.is_empty() && orphans.is_empty() {
        return Ok(None);
    }
    let settings = &ws.settings().decay;
    let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut notes = Vec::new();
    for u in &missing {
        let created = u
            .date
            .as_deref()
            .and_then(cogmem_text::date::parse_day)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map_or_else(|| now.with_timezone(&chrono::Utc), |d| d.and_utc());
        let unit = NewUnit {
            store: u.store,
            base: settings.base_auto,
            created,
            pinned: u.store == Store::Vault,
        };
        if decay.insert_new(&u.id, unit, settings) {
            notes.push(format!("created the missing entry of {}", u.id));
        }
    }
    let record = ArchiveRecord {
        at: &stamp,
        by: "system:doctor",
        created: false,
        removed: &[],
        reason: Some("no memory with this id is in the files"),
    };
    for k in &orphans {
        if !decay.archive(k, &record) {
            continue;
        }
        notes.push(format!("marked {k} archived: its memory is gone from the files"));
    }
    Ok(Some((decay, notes)))
}

// ---- graph index and commits made outside cogmem --------------------------------------------

/// `memory/graph/index.md` lists every committed entity that is not forgotten, and no other:
/// a plain `git commit` of a new entity file leaves it behind (issue 17). Scores are not
/// compared: they change with time between the changes that rewrite the table.
fn check_graph_index(ws: &Workspace) -> Vec<Finding> {
    let decay = read_decay(ws);
    let uncommitted: HashSet<String> = git::open(ws.root())
        .and_then(|repo| git::uncommitted(&repo))
        .map(|c| c.into_iter().map(|c| c.path).collect())
        .unwrap_or_default();
    if uncommitted.contains(layout::GRAPH_INDEX) {
        return Vec::new(); // the uncommitted check reports it; `cogmem sync` regenerates it
    }
    let mut files: BTreeSet<String> = BTreeSet::new();
    for rel in units::markdown_files(ws.root(), layout::ENTITIES_DIR) {
        let Ok(id) = cogmem_store::store::entity::EntityId::parse(units::md_stem(&rel)) else {
            continue; // the schema check reports it
        };
        let id = id.to_string();
        let forgotten = decay.as_ref().is_some_and(|d| d.is_forgotten(&format!("entity:{id}")));
        if !forgotten && !uncommitted.contains(&rel) {
            files.insert(id);
        }
    }
    let text = ws.read_text_if_exists(layout::GRAPH_INDEX).ok().flatten();
    if text.is_none() && files.is_empty() {
        return Vec::new();
    }
    // Past `REGISTRY_MAX` entity files the index counts them by type, forgotten ones included.
    if let Some(counts) = text.as_deref().and_then(cogmem_index::graph::summary_counts) {
        let committed = units::markdown_files(ws.root(), layout::ENTITIES_DIR)
            .into_iter()
            .filter(|rel| !uncommitted.contains(rel))
            .collect::<Vec<_>>();
        let want = cogmem_index::graph::kinds_of(committed.iter().map(|rel| units::md_stem(rel)));
        let kinds: BTreeSet<&String> = counts.keys().chain(want.keys()).collect();
        return kinds
            .into_iter()
            .filter_map(|kind| {
                let (says, has) = (counts.get(kind).copied(), want.get(kind).copied());
                (says != has).then(|| {
                    Finding::new(
                        "graph",
                        layout::GRAPH_INDEX,
                        format!(
                            "counts {} {kind} entity files where the folder has {}; it is stale \
                             (`cogmem graph rebuild` regenerates it)",
                            says.unwrap_or(0),
                            has.unwrap_or(0)
                        ),
                        true,
                    )
                })
            })
            .collect();
    }
    let listed = cogmem_index::graph::listed_entities(text.as_deref().unwrap_or(""));
    let mut out = Vec::new();
    for id in files.difference(&listed) {
        out.push(Finding::new(
            "graph",
            layout::GRAPH_INDEX,
            format!(
                "does not list entity {id}; it is stale (`cogmem graph rebuild` regenerates it)"
            ),
            true,
        ));
    }
    for id in listed.difference(&files) {
        let forgotten = decay.as_ref().is_some_and(|d| d.is_forgotten(&format!("entity:{id}")));
        let file = layout::entity_file(id);
        if forgotten || uncommitted.contains(&file) {
            continue;
        }
        out.push(Finding::new(
            "graph",
            layout::GRAPH_INDEX,
            format!("lists entity {id}, which has no file; it is stale (`cogmem graph rebuild` regenerates it)"),
            true,
        ));
    }
    out
}

/// Commits made outside cogmem that no cogmem command has adopted yet (`ops::adopt`).
/// The relations routing writes ([`cogmem_text::route::written_relations`]) that
/// `relations.md` lacks: a workspace made before they were declared (issue 18) would drop them
/// from every remembered sentence. Returns the finding and, when fixable, the file with the
/// template's bullets added.
fn check_vocabulary(ws: &Workspace) -> (Vec<Finding>, Option<(String, Vec<String>)>) {
    let Some(template) = cogmem_store::template::memory_template(layout::RELATIONS) else {
        return (Vec::new(), None);
    };
    let Ok(Some(text)) = ws.read_text_if_exists(layout::RELATIONS) else {
        // A missing or unreadable file is the schema check's finding.
        return (Vec::new(), None);
    };
    let names: Vec<&str> = cogmem_text::route::written_relations().collect();
    let (new, added) = cogmem_store::vocab::with_missing(&text, template, &names);
    if added.is_empty() {
        return (Vec::new(), None);
    }
    let finding = Finding::new(
        "vocabulary",
        layout::RELATIONS,
        format!(
            "lacks {} relations routing writes ({}), so remembered sentences lose them; \
             `cogmem doctor --fix` adds them from the template",
            added.len(),
            added.join(", ")
        ),
        true,
    );
    (vec![finding], Some((new, added)))
}

fn check_adopted(ws: &Workspace) -> crate::Result<Vec<Finding>> {
    Ok(crate::adopt::waiting(ws)?
        .into_iter()
        .map(|c| {
            let path = c.files.first().map(|(p, _)| p.clone()).unwrap_or_default();
            Finding::new(
                "adopt",
                &path,
                format!(
                    "commit {} by {} ({}) was made outside cogmem and is not adopted: its \
                     decay entries, graph index and audit lines are missing (`cogmem sync` \
                     adopts it)",
                    c.commit.get(..12).unwrap_or(&c.commit),
                    crate::adopt::actor_of(&c.author),
                    c.subject
                ),
                true,
            )
        })
        .collect())
}

// ---- links and budget -----------------------------------------------------------------------

fn check_links(ws: &Workspace) -> Vec<Finding> {
    let Ok(found) = crate::graph::check_files(ws) else { return Vec::new() };
    found
        .into_iter()
        .filter(|f| f.kind == "dangling")
        .map(|f| Finding::new("links", &f.path, f.message, false).at(f.line))
        .collect()
}

fn check_budget(ws: &Workspace) -> Vec<Finding> {
    let Ok(Some(text)) = ws.read_text_if_exists(layout::MEMORY_MD) else {
        return Vec::new();
    };
    let used = cogmem_text::tokens::estimate(&text);
    let budget = ws.settings().core.budget_tokens;
    if used <= budget {
        return Vec::new();
    }
    vec![Finding::new(
        "budget",
        layout::MEMORY_MD,
        format!(
            "about {used} tokens, over the budget of {budget}; move or forget bullets \
             (`cogmem reflect`, `cogmem forget`)"
        ),
        false,
    )]
}

// ---- uncommitted and interrupted changes ----------------------------------------------------

/// What a crashed change left behind.
struct Evidence {
    /// Files to put back as in HEAD.
    files: Vec<String>,
    /// Temporary files of unfinished atomic writes.
    temp_files: Vec<String>,
    /// The findings describing both.
    findings: Vec<Finding>,
    /// Whether git's index is damaged (`git::index_damaged`): read once for both checks that
    /// need it, this one and the uncommitted check.
    index_damaged: bool,
}

/// Files cogmem's changes write: the three core files and everything under `memory/`.
fn managed(rel: &str) -> bool {
    [layout::MEMORY_MD, layout::IDENTITY_MD, layout::SOUL_MD].contains(&rel)
        || rel.starts_with("memory/")
}

/// Finds an interrupted change: audit lines appended but not committed (the change engine
/// appends them after writing every file and before committing, so they name its files), and,
/// when the lock was left by a dead process, every uncommitted file cogmem manages.
fn interrupted(ws: &Workspace, repo: &Repository, dead_holder: bool) -> crate::Result<Evidence> {
    let mut files: BTreeSet<String> = BTreeSet::new();
    let mut findings = Vec::new();
    let tree = git::head_tree(repo)?;
    let head_log = git::read_at_head(repo, tree.as_ref(), layout::AUDIT_LOG)?.unwrap_or_default();
    let disk_log = ws.read_if_exists(layout::AUDIT_LOG)?.unwrap_or_default();
    if disk_log.len() > head_log.len() && disk_log.starts_with(&head_log) {
        let extra = String::from_utf8_lossy(&disk_log[head_log.len()..]).into_owned();
        let named: Vec<String> = extra
            .lines()
            .filter_map(|l| AuditLine::parse(l).ok().flatten())
            .map(|l| l.file)
            .filter(|f| managed(f) && !f.contains(".."))
            .collect();
        // Lines that do not parse are a change cut off mid-append only when its process died.
        if !named.is_empty() || dead_holder {
            files.insert(layout::AUDIT_LOG.to_owned());
            for f in named {
                if git::is_dirty(ws.root(), tree.as_ref(), &f)? {
                    files.insert(f);
                }
            }
            findings.push(Finding::new(
                "interrupted",
                layout::AUDIT_LOG,
                format!(
                    "a change was written but never committed ({} audit lines past HEAD)",
                    extra.lines().filter(|l| !l.trim().is_empty()).count()
                ),
                true,
            ));
        }
    }
    // A damaged index is the uncommitted check's finding; libgit2 cannot read the status then.
    let index_damaged = git::index_damaged(repo);
    let changes = if index_damaged { Vec::new() } else { git::uncommitted(repo)? };
    if dead_holder {
        for c in &changes {
            if managed(&c.path) && !fsx::is_temp_file(&c.path) && files.insert(c.path.clone()) {
                findings.push(Finding::new(
                    "interrupted",
                    &c.path,
                    format!("{} since HEAD while a cogmem process died holding the lock", c.state),
                    true,
                ));
            }
        }
    }
    let mut temp_files = Vec::new();
    for e in walkdir::WalkDir::new(ws.root())
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != layout::DERIVED_DIR)
        .filter_map(Result::ok)
    {
        if !e.file_type().is_file() {
            continue;
        }
        let Ok(rel) = e.path().strip_prefix(ws.root()) else { continue };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if fsx::is_temp_file(&rel) && !rel.starts_with(RECOVERED_DIR) {
            findings.push(Finding::new(
                "interrupted",
                &rel,
                "temporary file of a write that never finished",
                true,
            ));
            temp_files.push(rel);
        }
    }
    Ok(Evidence { files: files.into_iter().collect(), temp_files, findings, index_damaged })
}

fn check_uncommitted(
    ws: &Workspace,
    repo: &Repository,
    evidence: &Evidence,
) -> crate::Result<Vec<Finding>> {
    // git's index is what tells an uncommitted file from a committed one; libgit2 refuses to
    // read a damaged one.
    if evidence.index_damaged {
        return Ok(vec![Finding::new(
            "uncommitted",
            GIT_INDEX,
            "git's index is damaged (its checksum does not match its content), so what is \
             uncommitted cannot be told; rebuild it from the last commit with \
             `rm .git/index && git reset` (anything staged is unstaged; no file in the work \
             tree changes)",
            false,
        )]);
    }
    Ok(git::uncommitted(repo)?
        .into_iter()
        .filter(|c| !evidence.files.contains(&c.path) && !evidence.temp_files.contains(&c.path))
        // An open editor's swap, backup and probe files are no edit: `sync` and `watch` leave
        // them, so `verify` would fail for as long as an editor is open, with a hint no
        // command can follow.
        .filter(|c| !crate::sync::is_editor_junk(&c.path))
        .map(|c| match crate::sync::nested_repository(ws, &c.path) {
            // Neither git nor `sync` commits it: the advice to commit it could not be followed.
            Some(left) => Finding::new(
                "uncommitted",
                &left.path,
                format!("{}; {}", left.problem, left.hint),
                false,
            ),
            None => Finding::new(
                "uncommitted",
                &c.path,
                format!(
                    "{} since the last commit; commit it with git (or `cogmem sync` where \
                     available) so cogmem can change the file",
                    c.state
                ),
                false,
            ),
        })
        .collect())
}

/// A lock file git leaves when a process dies inside an update.
struct GitLock {
    /// As shown: relative to the workspace root when inside it.
    path: String,
    abs: std::path::PathBuf,
    fixable: bool,
}

impl From<GitLock> for Finding {
    fn from(g: GitLock) -> Self {
        let how = if g.fixable {
            "left by a process that died"
        } else {
            "a git command may be running; remove it by hand if none is"
        };
        Self::new("lock", &g.path, format!("git lock file ({how})"), g.fixable)
    }
}

fn git_locks(ws: &Workspace, repo: &Repository, dead_holder: bool) -> Vec<GitLock> {
    let mut out = Vec::new();
    let git_dir = repo.path();
    let mut candidates: Vec<std::path::PathBuf> =
        ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"]
            .iter()
            .map(|n| git_dir.join(n))
            .collect();
    for e in walkdir::WalkDir::new(git_dir.join("refs")).into_iter().filter_map(Result::ok) {
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "lock") {
            candidates.push(e.path().to_owned());
        }
    }
    for abs in candidates {
        let Ok(meta) = abs.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > GIT_LOCK_MAX_AGE);
        let shown = abs.strip_prefix(ws.root()).unwrap_or(&abs);
        out.push(GitLock {
            path: shown.to_string_lossy().replace('\\', "/"),
            abs,
            fixable: dead_holder || old,
        });
    }
    out
}

fn recovery_dir(ws: &Workspace, now: crate::Timestamp) -> crate::Result<String> {
    let stamp = now.with_timezone(&chrono::Utc).format("%Y%m%dT%H%M%SZ").to_string();
    for n in 0..1000 {
        let rel = if n == 0 {
            format!("{RECOVERED_DIR}/{stamp}")
        } else {
            format!("{RECOVERED_DIR}/{stamp}-{n}")
        };
        if !ws.abs(&rel).exists() {
            fsx::create_dir_all(&ws.abs(&rel))?;
            return Ok(rel);
        }
    }
    Ok(format!("{RECOVERED_DIR}/{stamp}"))
}

// ---- history: append-only episodes, audit lines and commits ----------------------------------

/// An episode entry as compared across history: its heading line and its text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct EntryKey {
    heading: String,
    text: String,
    source: Option<String>,
}

fn entry_keys(text: &str) -> (HashSet<EntryKey>, HashSet<String>, Vec<(usize, EntryKey)>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut live = HashSet::new();
    let mut tombstoned = HashSet::new();
    let mut all = Vec::new();
    for e in episode::entries(text) {
        let heading = lines.get(e.line.saturating_sub(1)).copied().unwrap_or("").to_owned();
        if e.deleted {
            tombstoned.insert(heading);
            continue;
        }
        let key = EntryKey { heading, text: e.text, source: e.source };
        live.insert(key.clone());
        all.push((e.line, key));
    }
    (live, tombstoned, all)
}

/// A file's live entries and its tombstoned headings.
type CurrentEntries = (HashSet<EntryKey>, HashSet<String>);

/// Every entry an episode file ever had in a commit must still be in the file, unchanged, or
/// be replaced by `forget --permanent`'s tombstone.
fn check_append_only(ws: &Workspace, repo: &Repository) -> crate::Result<Vec<Finding>> {
    let Some(head) = git::head_id(repo)? else { return Ok(Vec::new()) };
    let mut walk = repo.revwalk().map_err(git_op("walk the history"))?;
    walk.push(head).map_err(git_op("walk the history"))?;
    let mut seen_trees: HashSet<Oid> = HashSet::new();
    let mut blobs: BTreeSet<(String, Oid)> = BTreeSet::new();
    for id in walk {
        let id = id.map_err(git_op("walk the history"))?;
        let commit = repo.find_commit(id).map_err(git_op("read a commit"))?;
        let tree = commit.tree().map_err(git_op("read a tree"))?;
        let Ok(entry) = tree.get_path(Path::new(layout::EPISODES_DIR)) else { continue };
        if entry.kind() != Some(ObjectType::Tree) || !seen_trees.insert(entry.id()) {
            continue;
        }
        let sub = repo.find_tree(entry.id()).map_err(git_op("read a tree"))?;
        for e in &sub {
            if e.kind() == Some(ObjectType::Blob)
                && let Ok(name) = e.name()
                && name.ends_with(".md")
            {
                blobs.insert((name.to_owned(), e.id()));
            }
        }
    }
    let mut current: HashMap<String, Option<CurrentEntries>> = HashMap::new();
    let mut reported: HashSet<(String, String)> = HashSet::new();
    let mut out = Vec::new();
    for (name, blob_id) in blobs {
        let rel = format!("{}/{name}", layout::EPISODES_DIR);
        let cur = current.entry(name.clone()).or_insert_with(|| {
            let text = ws.read_text_if_exists(&rel).ok().flatten()?;
            let (live, tomb, _) = entry_keys(&text);
            Some((live, tomb))
        });
        let Ok(blob) = repo.find_blob(blob_id) else { continue };
        let Ok(old) = std::str::from_utf8(blob.content()) else { continue };
        let (_, _, old_entries) = entry_keys(old);
        for (line, key) in old_entries {
            let kept = cur
                .as_ref()
                .is_some_and(|(live, tomb)| live.contains(&key) || tomb.contains(&key.heading));
            if !kept && reported.insert((rel.clone(), key.heading.clone())) {
                let what = if cur.is_none() { "the file was removed" } else { "it was rewritten" };
                out.push(
                    Finding::new(
                        "append-only",
                        &rel,
                        format!(
                            "the committed entry `{}` is no longer in the file unchanged ({what}); \
                             see `git log -p -- {rel}`",
                            key.heading.trim()
                        ),
                        false,
                    )
                    .at(line),
                );
            }
        }
    }
    Ok(out)
}

fn git_op(what: &'static str) -> impl FnOnce(git2::Error) -> crate::Error {
    move |cause| git::GitError::Op { what, cause }.into()
}

/// Matches commits and audit lines. A cogmem commit and the audit lines of its change carry
/// the same second and the same actor (commit author time and name; line timestamp and actor),
/// so each side is keyed by (second, actor). ALERT lines by `system:audit` ride with their
/// change and are not keyed. Lines from before the first cogmem commit (adopted history) and
/// commits not made by cogmem (hand commits) are out of scope.
fn check_audit(repo: &Repository) -> crate::Result<Vec<Finding>> {
    let Some(head) = git::head_id(repo)? else { return Ok(Vec::new()) };
    let mut walk = repo.revwalk().map_err(git_op("walk the history"))?;
    walk.push(head).map_err(git_op("walk the history"))?;
    let mut commits: BTreeMap<(i64, String), (String, String)> = BTreeMap::new();
    // Commits made outside cogmem, keyed as `adopt` records their hand edits (issue 17).
    let mut outside: HashSet<(i64, String)> = HashSet::new();
    let mut first: Option<i64> = None;
    for id in walk {
        let id = id.map_err(git_op("walk the history"))?;
        let c = repo.find_commit(id).map_err(git_op("read a commit"))?;
        if !crate::adopt::is_cogmem_commit(&c) {
            let author = String::from_utf8_lossy(c.author().name_bytes()).into_owned();
            let who = crate::adopt::actor_of(&author);
            outside.insert((c.author().when().seconds(), who.as_str().to_owned()));
            continue;
        }
        let secs = c.author().when().seconds();
        first = Some(first.map_or(secs, |f| f.min(secs)));
        let author = String::from_utf8_lossy(c.author().name_bytes()).into_owned();
        let subject = git::subject(&c);
        commits.insert((secs, author), (id.to_string(), subject));
    }
    let Some(first) = first else { return Ok(Vec::new()) };
    // HEAD's audit log (sealed segments, then audit.log): uncommitted lines belong to the
    // interrupted-change check.
    let mut lines: BTreeMap<(i64, String), (String, usize)> = BTreeMap::new();
    let log = head_audit_log(repo)?;
    // Commits before the last compaction's cutoff have their lines in the digests.
    let compacted = log
        .iter()
        .filter_map(|(_, text)| crate::audit::compacted_before(text))
        .max()
        .map(|t| t.timestamp());
    if let Some(cutoff) = compacted {
        commits.retain(|(secs, _), _| *secs >= cutoff);
    }
    for (rel, log) in log {
        for (i, raw) in log.lines().enumerate() {
            let Some((secs, actor, action)) = raw_key(raw) else { continue };
            if action == "ALERT" && actor == "system:audit" || secs < first {
                continue;
            }
            lines.entry((secs, actor)).or_insert((rel.clone(), i + 1));
        }
    }
    let mut out = Vec::new();
    for ((secs, actor), (rel, line)) in &lines {
        let key = (*secs, actor.clone());
        if !commits.contains_key(&key) && !outside.contains(&key) {
            out.push(
                Finding::new(
                    "audit",
                    rel,
                    format!("audit line by {actor} at {} has no commit", utc(*secs)),
                    false,
                )
                .at(*line),
            );
        }
    }
    for ((secs, actor), (id, subject)) in &commits {
        if !lines.contains_key(&(*secs, actor.clone())) {
            out.push(Finding::new(
                "audit",
                layout::AUDIT_LOG,
                format!(
                    "commit {} by {actor} at {} ({subject}) has no audit line",
                    id.get(..12).unwrap_or(id),
                    utc(*secs)
                ),
                false,
            ));
        }
    }
    Ok(out)
}

/// The audit log at HEAD, file by file in order: the sealed segments, then `audit.log`.
pub(crate) fn head_audit_log(repo: &Repository) -> crate::Result<Vec<(String, String)>> {
    let tree = git::head_tree(repo)?;
    let Some(tree) = tree else { return Ok(Vec::new()) };
    let mut rels: Vec<String> = Vec::new();
    if let Ok(entry) = tree.get_path(std::path::Path::new(layout::AUDIT_SEGMENTS_DIR))
        && let Ok(sub) = repo.find_tree(entry.id())
    {
        for e in sub.iter() {
            if let Ok(name) = e.name() {
                let rel = format!("{}/{name}", layout::AUDIT_SEGMENTS_DIR);
                if layout::is_audit_segment(&rel) {
                    rels.push(rel);
                }
            }
        }
    }
    rels.sort();
    rels.push(layout::AUDIT_LOG.to_owned());
    let mut out = Vec::new();
    for rel in rels {
        let bytes = git::read_at_head(repo, Some(&tree), &rel)?.unwrap_or_default();
        out.push((rel, String::from_utf8_lossy(&bytes).into_owned()));
    }
    Ok(out)
}

fn utc(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| secs.to_string())
}

/// (second, actor, action) of a raw audit line, also for actions this build does not know.
fn raw_key(raw: &str) -> Option<(i64, String, String)> {
    let f = RawFields::split(raw).ok()??;
    let t = cogmem_text::date::parse_stored(f.timestamp)?;
    Some((t.timestamp(), f.actor.to_owned(), f.action.to_owned()))
}

/// Every ALERT about a critical file needs a later `ACK` line for the same file, except the
/// ALERTs of `init`, which creates the critical files.
fn check_critical(ws: &Workspace) -> Vec<Finding> {
    // (position in the whole log, file of the log, line in that file, critical file)
    let mut alerts: Vec<(usize, String, usize, String)> = Vec::new();
    let mut acked: HashMap<String, usize> = HashMap::new();
    let mut position = 0;
    for rel in cogmem_store::audit::log_files(ws.root()) {
        let Ok(Some(log)) = ws.read_text_if_exists(&rel) else { continue };
        // The change an ALERT line follows (`AuditLine::alert`): the workspace's creation by
        // `init` is the baseline, so the ALERT right after one of its lines is not a change to
        // acknowledge; another change in the same second is (`status` lists it too).
        let mut by_init: Option<String> = None;
        for (i, raw) in log.lines().enumerate() {
            position += 1;
            let Some((_, actor, action)) = raw_key(raw) else { continue };
            let file = RawFields::split(raw).ok().flatten().map_or("", |f| f.file).to_owned();
            let after_init = by_init.take();
            match action.as_str() {
                _ if actor == "system:init" || action == "INIT" => by_init = Some(file),
                "ALERT" if after_init.as_deref() == Some(file.as_str()) => {}
                "ALERT" => alerts.push((position, rel.clone(), i + 1, file)),
                a if a == ACK_ACTION => {
                    acked.insert(file, position);
                }
                _ => {}
            }
        }
    }
    alerts
        .into_iter()
        .filter(|(position, _, _, file)| acked.get(file).is_none_or(|ack| ack < position))
        .map(|(_, rel, line, file)| {
            Finding::new(
                "critical",
                &rel,
                format!(
                    "{file} (a critical file) changed and nobody acknowledged it; review it \
                     with `git log -p -- {file}`, then acknowledge it with `cogmem audit ack` \
                     where available"
                ),
                false,
            )
            .at(line)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episode_entry_keys_ignore_tombstones() {
        let text = "# 2026-02-02\n\n## 09:00 | fact | tags: [a]\nalpha\n\n## 09:05 | fact\n<!-- deleted by cogmem on 2026-02-03 -->\n";
        let (live, tomb, all) = entry_keys(text);
        assert_eq!(live.len(), 1);
        assert_eq!(all.len(), 1);
        assert!(tomb.contains("## 09:05 | fact"));
    }

    #[test]
    fn raw_keys_read_unknown_actions() {
        let (secs, actor, action) =
            raw_key("2026-02-02T15:30:05Z | ACK | IDENTITY.md | manual | — | ok").unwrap();
        assert_eq!((actor.as_str(), action.as_str()), ("manual", "ACK"));
        assert_eq!(utc(secs), "2026-02-02T15:30:05Z");
        assert!(raw_key("# header").is_none());
    }

    #[test]
    fn temp_files_are_recognised() {
        assert!(fsx::is_temp_file("memory/episodes/.cogmem-tmp-abc"));
        assert!(!fsx::is_temp_file("memory/episodes/2026-02-02.md"));
        assert!(managed("memory/meta/audit.log"));
        assert!(!managed("cogmem.toml"));
    }
}
