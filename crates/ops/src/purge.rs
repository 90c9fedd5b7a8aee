//! `cogmem forget --purge ID`: privacy erasure. Where `forget` archives and `--permanent`
//! deletes from the working tree, a purge also rewrites the current branch's history so that no
//! commit holds the memory's text any more.
//!
//! Steps, with `yes`: (1) a permanent forget (files, decay entry, graph index) as an ordinary
//! commit; (2) every commit of the branch, oldest first, is re-created with each blob that holds
//! the text rewritten to hold `[purged]` instead, with the same author, committer and time (the
//! message scrubbed the same way); (3) the old tip is kept under `refs/cogmem/pre-purge/STAMP`
//! and the branch moved to the new tip; (4) the working tree is checked out again; (5) a final
//! commit records a PURGE audit line, without the text; (6) the search index is rebuilt.
//!
//! The text is found as the memory's whole text, each of its own lines (12 characters or more,
//! not shared with another memory), their JSON-escaped forms, and any prefix of its one-line
//! form of 20 characters or more that ends in `…` (summaries in audit lines and commit subjects
//! are cut that way).
//!
//! The old objects stay in `.git` until the backup ref is deleted, the reflogs expired and git
//! garbage-collects them; the report says how.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use git2::{Oid, Repository, Sort, Tree};
use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::forget::{self, ForgetOptions};
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git::{self, GitError};
use cogmem_store::store::markdown::one_line;
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

/// What replaces the text in rewritten files and messages.
pub const MARKER: &str = "[purged]";

/// The namespace of backup refs.
pub(crate) const BACKUP_PREFIX: &str = "refs/cogmem/pre-purge/";

/// The shortest text that can be purged: shorter text would be cut out of unrelated files.
pub(crate) const MIN_TEXT_CHARS: usize = 6;

/// Shortest own line of a memory that is searched for on its own.
const MIN_LINE_CHARS: usize = 12;

/// Shortest prefix of the one-line text that counts as a cut summary (ending in `…`).
const MIN_PREFIX_CHARS: usize = 20;

/// How to purge.
#[derive(Debug, Clone)]
pub struct PurgeOptions {
    /// List what would be rewritten; change nothing.
    pub dry_run: bool,
    /// Who is purging.
    pub actor: Actor,
    /// What caused it, for the commit messages.
    pub trigger: String,
}

/// One commit that holds the text.
#[derive(Debug, Clone, Serialize)]
pub struct PurgedCommit {
    /// The commit as it was.
    pub commit: String,
    /// The first line of its message (scrubbed).
    pub subject: String,
    /// Files in its tree that hold the text.
    pub files: Vec<String>,
    /// Whether its message holds the text.
    pub message: bool,
}

/// What a purge did, or would do.
#[derive(Debug, Clone, Serialize)]
pub struct PurgeReport {
    /// The memory purged.
    pub id: String,
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// The branch rewritten, e.g. `refs/heads/main`.
    pub branch: String,
    /// Commits that hold the text (before the purge).
    pub commits: Vec<PurgedCommit>,
    /// Files of the working tree that hold the text now.
    pub working_files: Vec<String>,
    /// Commits re-created (the rewritten ones and their descendants).
    pub rewritten: usize,
    /// The ref that keeps the old history, until deleted.
    pub backup_ref: Option<String>,
    /// The branch tip before the purge.
    pub old_head: String,
    /// The branch tip after the final commit.
    pub new_head: Option<String>,
    /// Other refs, which were not rewritten and may still reach the text.
    pub other_refs: Vec<String>,
    /// The commands that remove the old objects for good.
    pub erase_commands: Vec<String>,
}

/// The strings to cut out, longest first, and the one-line text for cut summaries.
#[derive(Debug, Clone)]
pub struct Needles {
    exact: Vec<String>,
    one_line: String,
}

impl Needles {
    /// Builds the needles for a memory's `text`; `others` are the texts of every other memory,
    /// whose lines are never cut.
    pub fn new(text: &str, others: &[&str]) -> Self {
        let mut set: BTreeSet<String> = BTreeSet::new();
        let full = text.trim();
        let one = one_line(full);
        set.insert(full.to_owned());
        set.insert(one.clone());
        for line in full.lines() {
            let l = strip_marker(line.trim());
            if l.chars().count() < MIN_LINE_CHARS
                || l.starts_with('#')
                || l.starts_with("<!--")
                || l.starts_with("---")
                || others.iter().any(|o| o.contains(l))
            {
                continue;
            }
            set.insert(l.to_owned());
        }
        let mut exact: Vec<String> = Vec::new();
        for s in set {
            if s.is_empty() {
                continue;
            }
            if let Ok(json) = serde_json::to_string(&s) {
                let inner = json[1..json.len() - 1].to_owned();
                if inner != s {
                    exact.push(inner);
                }
            }
            exact.push(s);
        }
        exact.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        exact.dedup();
        Self { exact, one_line: one }
    }

    /// Returns `text` with every needle cut out (replaced by [`MARKER`]), or `None` when it
    /// holds none.
    pub fn scrub(&self, text: &str) -> Option<String> {
        let mut out = text.to_owned();
        let mut changed = false;
        for n in &self.exact {
            if out.contains(n.as_str()) {
                out = out.replace(n.as_str(), MARKER);
                changed = true;
            }
        }
        if let Some(cut) = self.scrub_prefixes(&out) {
            out = cut;
            changed = true;
        }
        changed.then_some(out)
    }

    /// Cuts prefixes of the one-line text that end in `…` (cut summaries).
    fn scrub_prefixes(&self, text: &str) -> Option<String> {
        let head: String = self.one_line.chars().take(MIN_PREFIX_CHARS).collect();
        if head.chars().count() < MIN_PREFIX_CHARS || !text.contains(head.as_str()) {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut changed = false;
        while let Some(i) = rest.find(head.as_str()) {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            // How far the text agrees with the one-line form.
            let common: usize = tail
                .char_indices()
                .zip(self.one_line.chars())
                .take_while(|((_, a), b)| a == b)
                .last()
                .map_or(0, |((j, c), _)| j + c.len_utf8());
            let after = &tail[common..];
            let after_trim = after.trim_start_matches(' ');
            if after_trim.starts_with('…') {
                out.push_str(MARKER);
                rest = &after_trim['…'.len_utf8()..];
                changed = true;
            } else {
                out.push_str(&tail[..common.max(head.len())]);
                rest = &tail[common.max(head.len())..];
            }
        }
        out.push_str(rest);
        changed.then_some(out)
    }

    /// Tells whether `text` holds the memory.
    pub(crate) fn found_in(&self, text: &str) -> bool {
        self.scrub(text).is_some()
    }
}

/// Drops a list marker (`- `, `* `, `+ `, `> `, `1. `) from a line.
fn strip_marker(line: &str) -> &str {
    for m in ["- ", "* ", "+ ", "> "] {
        if let Some(rest) = line.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..].strip_prefix(". ")
    {
        return rest.trim_start();
    }
    line
}

fn gerr(what: &'static str) -> impl FnOnce(git2::Error) -> crate::Error {
    move |cause| GitError::Op { what, cause }.into()
}

/// Walks the branch oldest first and rewrites (or, in a dry run, only inspects) its trees.
struct Rewriter<'r> {
    repo: &'r Repository,
    needles: &'r Needles,
    write: bool,
    /// Blob id → its scrubbed id (`None`: holds no needle).
    blobs: HashMap<Oid, Option<Oid>>,
    /// Tree id → (new tree id, paths under it that changed).
    trees: HashMap<Oid, (Oid, Vec<String>)>,
}

impl Rewriter<'_> {
    fn blob(&mut self, id: Oid) -> crate::Result<Option<Oid>> {
        if let Some(done) = self.blobs.get(&id) {
            return Ok(*done);
        }
        let blob = self.repo.find_blob(id).map_err(gerr("read a blob"))?;
        let new = match std::str::from_utf8(blob.content()) {
            Ok(text) => self.needles.scrub(text),
            // Not text: cut the needles byte for byte.
            Err(_) => scrub_bytes(blob.content(), &self.needles.exact),
        };
        let out = match new {
            None => None,
            Some(_) if !self.write => Some(id),
            Some(text) => Some(self.repo.blob(text.as_bytes()).map_err(gerr("write a blob"))?),
        };
        self.blobs.insert(id, out);
        Ok(out)
    }

    fn tree(&mut self, tree: &Tree<'_>) -> crate::Result<(Oid, Vec<String>)> {
        if let Some(done) = self.trees.get(&tree.id()) {
            return Ok(done.clone());
        }
        let mut changed: Vec<(Vec<u8>, Oid, i32)> = Vec::new();
        let mut paths = Vec::new();
        for entry in tree {
            let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
            match entry.kind() {
                Some(git2::ObjectType::Blob) => {
                    if let Some(new) = self.blob(entry.id())? {
                        paths.push(name);
                        changed.push((entry.name_bytes().to_vec(), new, entry.filemode()));
                    }
                }
                Some(git2::ObjectType::Tree) => {
                    let sub = self.repo.find_tree(entry.id()).map_err(gerr("read a tree"))?;
                    let (new, sub_paths) = self.tree(&sub)?;
                    if !sub_paths.is_empty() {
                        paths.extend(sub_paths.iter().map(|p| format!("{name}/{p}")));
                        changed.push((entry.name_bytes().to_vec(), new, entry.filemode()));
                    }
                }
                _ => {}
            }
        }
        let id = if changed.is_empty() || !self.write {
            tree.id()
        } else {
            let mut b = self.repo.treebuilder(Some(tree)).map_err(gerr("build a tree"))?;
            for (name, id, mode) in changed {
                b.insert(name, id, mode).map_err(gerr("build a tree"))?;
            }
            b.write().map_err(gerr("write a tree"))?
        };
        self.trees.insert(tree.id(), (id, paths.clone()));
        Ok((id, paths))
    }
}

fn scrub_bytes(bytes: &[u8], needles: &[String]) -> Option<String> {
    // Binary blobs are rare in a workspace; a lossy text form with the needles cut keeps the
    // guarantee (no needle survives) at the cost of the blob's odd bytes.
    let text = String::from_utf8_lossy(bytes);
    let mut out = text.clone().into_owned();
    for n in needles {
        out = out.replace(n.as_str(), MARKER);
    }
    (out != text).then_some(out)
}

/// The commits of the branch at `tip`, oldest first.
fn commits_oldest_first(repo: &Repository, tip: Oid) -> crate::Result<Vec<Oid>> {
    let mut walk = repo.revwalk().map_err(gerr("walk the history"))?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).map_err(gerr("walk the history"))?;
    walk.push(tip).map_err(gerr("walk the history"))?;
    walk.map(|r| r.map_err(gerr("walk the history"))).collect()
}

/// Lists the commits holding the text, and (with `write`) re-creates the branch without it.
/// Returns the per-commit findings, the number of commits re-created and the new tip.
fn rewrite(
    repo: &Repository,
    tip: Oid,
    needles: &Needles,
    write: bool,
) -> crate::Result<(Vec<PurgedCommit>, usize, Oid)> {
    let mut rw = Rewriter { repo, needles, write, blobs: HashMap::new(), trees: HashMap::new() };
    let mut map: HashMap<Oid, Oid> = HashMap::new();
    let mut found = Vec::new();
    let mut rewritten = 0;
    for id in commits_oldest_first(repo, tip)? {
        let c = repo.find_commit(id).map_err(gerr("read a commit"))?;
        let tree = c.tree().map_err(gerr("read a tree"))?;
        let (new_tree, files) = rw.tree(&tree)?;
        let message = String::from_utf8_lossy(c.message_bytes()).into_owned();
        let new_message = needles.scrub(&message);
        if !files.is_empty() || new_message.is_some() {
            let msg = new_message.as_deref().unwrap_or(&message);
            found.push(PurgedCommit {
                commit: id.to_string(),
                subject: msg.lines().next().unwrap_or("").to_owned(),
                files,
                message: new_message.is_some(),
            });
        }
        if !write {
            continue;
        }
        let parents: Vec<Oid> = c.parent_ids().map(|p| map.get(&p).copied().unwrap_or(p)).collect();
        let same_parents = parents.iter().eq(c.parent_ids().collect::<Vec<_>>().iter());
        if new_tree == tree.id() && same_parents && new_message.is_none() {
            map.insert(id, id);
            continue;
        }
        let tree = repo.find_tree(new_tree).map_err(gerr("read a tree"))?;
        let parent_commits = parents
            .iter()
            .map(|p| repo.find_commit(*p).map_err(gerr("read a commit")))
            .collect::<crate::Result<Vec<_>>>()?;
        let refs: Vec<&git2::Commit<'_>> = parent_commits.iter().collect();
        let new = repo
            .commit(
                None,
                &c.author(),
                &c.committer(),
                new_message.as_deref().unwrap_or(&message),
                &tree,
                &refs,
            )
            .map_err(gerr("write a commit"))?;
        map.insert(id, new);
        rewritten += 1;
    }
    let new_tip = map.get(&tip).copied().unwrap_or(tip);
    Ok((found, rewritten, new_tip))
}

/// Files of the working tree (tracked by git) that hold the text.
fn working_files(ws: &Workspace, repo: &Repository, needles: &Needles) -> Vec<String> {
    let Ok(index) = repo.index() else { return Vec::new() };
    let mut out = Vec::new();
    for e in index.iter() {
        let rel = String::from_utf8_lossy(&e.path).into_owned();
        if let Ok(bytes) = ws.read(&rel)
            && needles.found_in(&String::from_utf8_lossy(&bytes))
        {
            out.push(rel);
        }
    }
    out
}

fn other_refs(repo: &Repository, branch: &str) -> Vec<String> {
    let Ok(refs) = repo.references() else { return Vec::new() };
    let mut out: Vec<String> = refs
        .filter_map(Result::ok)
        .filter_map(|r| r.name().ok().map(str::to_owned))
        .filter(|n| n != branch && !n.starts_with(BACKUP_PREFIX) && n != "HEAD")
        .collect();
    out.sort();
    out
}

fn erase_commands(backup: &str) -> Vec<String> {
    vec![
        format!("git update-ref -d {backup}"),
        "git reflog expire --expire=now --all".into(),
        "git gc --prune=now".into(),
    ]
}

/// Purges the memory `id`: see the module documentation. With `dry_run`, lists the commits and
/// files that hold its text and changes nothing.
///
/// Refused when the working tree has uncommitted changes, `HEAD` is not on a branch, or the
/// text is too short to cut out safely.
pub fn purge(
    ws: &Workspace,
    id: &str,
    opts: &PurgeOptions,
    clock: &dyn Clock,
) -> crate::Result<PurgeReport> {
    let repo = git::open(ws.root())?;
    let all = units::list(ws);
    let unit = all.get(id).ok_or_else(|| InputError::UnknownId { id: id.to_owned() })?.clone();
    if one_line(&unit.text).chars().count() < MIN_TEXT_CHARS {
        return Err(RuleError::Purge {
            why: format!(
                "the text of {id} is shorter than {MIN_TEXT_CHARS} characters; cutting it out of \
                 every file in history would damage unrelated text"
            ),
        }
        .into());
    }
    let others: Vec<&str> =
        all.units.iter().filter(|u| u.id != unit.id).map(|u| u.text.as_str()).collect();
    let needles = Needles::new(&unit.text, &others);
    let head = repo.head().map_err(gerr("read HEAD"))?;
    if !head.is_branch() {
        return Err(GitError::Detached.into());
    }
    let branch = head.name().ok().unwrap_or("HEAD").to_owned();
    let old_head = head.target().ok_or(GitError::Detached)?;
    let dirty = git::uncommitted(&repo)?;
    if !dirty.is_empty() {
        let names: Vec<&str> = dirty.iter().take(5).map(|c| c.path.as_str()).collect();
        return Err(RuleError::Purge {
            why: format!("the working tree has uncommitted changes ({})", names.join(", ")),
        }
        .into());
    }
    let (commits, _, _) = rewrite(&repo, old_head, &needles, false)?;
    let mut report = PurgeReport {
        id: id.to_owned(),
        dry_run: opts.dry_run,
        branch: branch.clone(),
        commits,
        working_files: working_files(ws, &repo, &needles),
        rewritten: 0,
        backup_ref: None,
        old_head: old_head.to_string(),
        new_head: None,
        other_refs: other_refs(&repo, &branch),
        erase_commands: Vec::new(),
    };
    if opts.dry_run {
        return Ok(report);
    }
    let now = clock.now();
    let fixed = FixedClock(now);
    // 1. Out of the files, the decay scores and the graph index, as an ordinary commit.
    let forget_opts = ForgetOptions {
        permanent: true,
        force: true,
        actor: opts.actor.clone(),
        trigger: opts.trigger.clone(),
    };
    forget::forget(ws, &[id.to_owned()], &forget_opts, &fixed)?;
    let lock = ws.lock()?;
    let tip = git::head_id(&repo)?.ok_or(GitError::Detached)?;
    // 2. Every commit re-created without the text.
    let (_, rewritten, new_tip) = rewrite(&repo, tip, &needles, true)?;
    // 3. The old history kept under a backup ref; the branch moved (only if nobody moved it).
    let stamp = now.with_timezone(&chrono::Utc).format("%Y%m%dT%H%M%SZ").to_string();
    let mut backup = format!("{BACKUP_PREFIX}{stamp}");
    let mut k = 2;
    while repo.find_reference(&backup).is_ok() {
        backup = format!("{BACKUP_PREFIX}{stamp}-{k}");
        k += 1;
    }
    let log = format!("cogmem forget --purge {id}");
    repo.reference(&backup, old_head, false, &log).map_err(gerr("create the backup ref"))?;
    repo.reference_matching(&branch, new_tip, true, tip, &log).map_err(gerr("move the branch"))?;
    // 4. The working tree and index follow the new tip.
    let mut co = git2::build::CheckoutBuilder::new();
    co.force();
    repo.checkout_head(Some(&mut co)).map_err(gerr("check out the rewritten branch"))?;
    // 5. The audit trail says what happened, without the text.
    // Audit summaries are cut at 100 characters: the backup ref goes in the commit's trigger.
    let summary =
        format!("purged {id} from {} commits ({rewritten} re-created)", report.commits.len());
    let trigger = format!("{} (backup {backup})", opts.trigger);
    let mut change = Change::new(opts.actor.clone(), trigger)
        .with_subject(Action::Purge, format!("purged {id} from history"));
    change.note(Action::Purge, &unit.path, summary);
    let applied = change.apply(ws, &repo, &lock, &fixed)?;
    drop(lock);
    // 6. The search index held the text too: rebuild it from scratch.
    rebuild_index(ws);
    report.rewritten = rewritten;
    report.working_files = working_files(ws, &repo, &needles);
    report.erase_commands = erase_commands(&backup);
    report.backup_ref = Some(backup);
    report.new_head = Some(applied.commit);
    Ok(report)
}

/// Deletes the derived search index and builds it again, so no segment keeps the text.
fn rebuild_index(ws: &Workspace) {
    let dir = ws.abs(layout::INDEX_DIR);
    if Path::new(&dir).is_dir() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let _ = cogmem_index::index::open(ws, true, None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_cut_text_lines_json_and_cut_summaries() {
        let text = "The vault combination is 4711-purple-otter, Alice said";
        let n = Needles::new(text, &["- Alice prefers tea"]);
        assert_eq!(
            n.scrub("- The vault combination is 4711-purple-otter, Alice said\n").unwrap(),
            "- [purged]\n"
        );
        let json = format!("{{\"t\": {}}}", serde_json::to_string(text).unwrap());
        assert!(!n.scrub(&json).unwrap().contains("purple-otter"));
        let cut = "2026 | EDIT | MEMORY.md | manual | auto | remembered: The vault combination is 4711-pur…\n";
        let out = n.scrub(cut).unwrap();
        assert!(!out.contains("4711"), "{out}");
        assert!(out.ends_with("remembered: [purged]\n"), "{out}");
        assert!(n.scrub("Alice prefers tea").is_none());
    }

    #[test]
    fn shared_lines_are_not_cut() {
        let text = "## Facts\n- Bob's locker code is 8812-blue\n- Bob likes chess a lot";
        let n = Needles::new(text, &["- Bob likes chess a lot (from the club)"]);
        let out = n.scrub("- Bob likes chess a lot\n- Bob's locker code is 8812-blue\n").unwrap();
        assert_eq!(out, "- Bob likes chess a lot\n- [purged]\n");
    }
}
