//! `cogmem init`: lay out a workspace from the built-in template, start its git history, and
//! adopt an existing workspace (one made by the cognitive-memory skill, say) without
//! overwriting anything. Running it again changes nothing.

use std::path::{Path, PathBuf};

use serde::Serialize;

use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::settings::Settings;
use cogmem_store::store::fsx;
use cogmem_store::template::{self, MEMORY_TEMPLATE};
use cogmem_store::workspace::{Workspace, WorkspaceOptions, layout};
use cogmem_text::clock::{Clock, FixedClock};

/// What `init` did.
#[derive(Debug, Clone, Serialize)]
pub struct InitReport {
    /// The workspace root.
    pub root: PathBuf,
    /// Files created from the template.
    pub created: Vec<String>,
    /// Existing files that cogmem added lines to (`.gitignore`, `.gitattributes`).
    pub updated: Vec<String>,
    /// Existing files committed as they were (a workspace without git history).
    pub adopted: Vec<String>,
    /// Files in the folder that are not part of a workspace, left uncommitted.
    pub left_alone: Vec<String>,
    /// Whether the folder already held a workspace.
    pub existing_workspace: bool,
    /// Whether a git repository was created.
    pub repository_created: bool,
    /// The commit made, if anything changed.
    pub commit: Option<String>,
}

/// The file agents read their instructions from, at the workspace root.
pub(crate) const AGENTS_MD: &str = "AGENTS.md";
/// The line that opens cogmem's block in AGENTS.md.
pub(crate) const AGENTS_BEGIN: &str = "<!-- cogmem:memory-block:begin (written by `cogmem init --agents-md`, which replaces everything up to the end marker) -->";
/// The line that closes cogmem's block in AGENTS.md.
pub(crate) const AGENTS_END: &str = "<!-- cogmem:memory-block:end -->";

/// What `init` does beyond laying out the workspace.
#[derive(Clone, Default)]
pub struct InitOptions {
    /// Write the memory instructions (`templates/agents-memory-block.md`) into AGENTS.md
    /// between begin/end markers: appended once, replaced in place on later runs.
    pub agents_md: bool,
    /// The program's options for the workspace it lays out, as for any other command (the
    /// repack hook, and in crash trials the crash point).
    pub workspace: WorkspaceOptions,
}

/// Lays out or adopts the workspace at `path` (created if missing).
///
/// Fails without changing anything when `cogmem.toml` is malformed or the git repository is
/// damaged.
pub fn init(path: &Path, clock: &dyn Clock) -> crate::Result<InitReport> {
    init_with(path, clock, InitOptions::default())
}

/// [`init`], with options.
///
/// With [`InitOptions::agents_md`], an AGENTS.md whose block is only half there (a begin
/// marker without an end marker) is an error naming the line; nothing is changed.
pub fn init_with(
    path: &Path,
    clock: &dyn Clock,
    options: InitOptions,
) -> crate::Result<InitReport> {
    // A sub-agent may not lay out or change a workspace: refused before anything is created.
    options.workspace.check_writer()?;
    // `components()` drops `.` segments, so errors name `ws/cogmem.toml`, not `ws/./cogmem.toml`.
    let path: PathBuf = path.components().collect();
    // A refused init (a link where the template puts a file, a broken `cogmem.toml`) leaves
    // no `.git` or `.cogmem/` of its own behind: the folder is as it was, and init can be run
    // again once the cause is gone.
    let made = [".git", ".cogmem"].map(|d| (path.join(d), !path.join(d).exists()));
    let result = init_in(&path, clock, options);
    // Only while no commit was made: a history that began is never taken back.
    let unborn = || git::open(&path).ok().is_none_or(|r| git::head_id(&r).ok().flatten().is_none());
    if result.is_err() && unborn() {
        for (dir, new) in &made {
            if *new {
                let _ = fsx::remove_dir_all(dir);
            }
        }
    }
    result
}

fn init_in(path: &Path, clock: &dyn Clock, options: InitOptions) -> crate::Result<InitReport> {
    let path = path.to_owned();
    fsx::create_dir_all(&path)?;
    let existing_workspace = layout::is_workspace(&path);
    // A folder that is no workspace yet is not checked for links leading out of it, as a file
    // of the user's would not be: its settings must not be read through one.
    fsx::check_no_link(&path.join(cogmem_store::settings::FILE_NAME), "read")?;
    let settings = Settings::load(&path)?;
    let ws = Workspace::preparing(&path, settings).with_options(options.workspace.clone());
    let root = ws.root().to_owned();
    let has_git = root.join(".git").exists();
    let repo = if has_git { git::open(&root)? } else { git::init(&root)? };
    let lock = ws.lock()?;
    let unborn = git::head_id(&repo)?.is_none();

    // Files already there before this run, to commit as they are when the history starts now.
    let mut adopted = Vec::new();
    let mut left_alone = Vec::new();
    if unborn {
        for c in git::uncommitted(&repo)? {
            if c.path.starts_with(".cogmem/") || c.state == "deleted" || c.path == layout::AUDIT_LOG
            {
                continue;
            }
            // Only the workspace's own files; anything else in the folder is the user's business.
            if is_workspace_file(&c.path) {
                adopted.push(c.path);
            } else {
                left_alone.push(c.path);
            }
        }
    }

    let mut change =
        Change::new(Actor::system("system:init"), "cogmem init").with_approval(Approval::Auto);
    let mut created = Vec::new();
    // MEMORY.md first, so the commit subject names the workspace's main file.
    let mut files: Vec<&(&str, &[u8])> = MEMORY_TEMPLATE.iter().collect();
    files.sort_by_key(|(rel, _)| (*rel != layout::MEMORY_MD, *rel));
    for (rel, bytes) in files {
        let abs = root.join(rel);
        if abs.exists() {
            continue;
        }
        if rel.ends_with("/.gitkeep") {
            let dir = abs.parent().expect("a .gitkeep has a folder");
            if folder_has_files(dir) {
                continue;
            }
        }
        change.write(rel, bytes.to_vec(), Action::Create, "created from the workspace template");
        created.push((*rel).to_owned());
    }
    let mut updated = Vec::new();
    for (rel, tpl) in [(layout::GITIGNORE, "gitignore"), (layout::GITATTRIBUTES, "gitattributes")] {
        let wanted = template::source(tpl)?;
        match ws.read_text_if_exists(rel)? {
            None => {
                change.write(
                    rel,
                    wanted.as_bytes().to_vec(),
                    Action::Create,
                    "created by cogmem init",
                );
                created.push(rel.to_owned());
            }
            Some(text) => {
                if let Some(merged) = add_missing_lines(&text, wanted) {
                    change.write(rel, merged.into_bytes(), Action::Edit, "added cogmem's rules");
                    updated.push(rel.to_owned());
                }
            }
        }
    }
    if options.agents_md {
        let abs = root.join(AGENTS_MD);
        let current = fsx::read_text_if_exists(&abs, ws.file_limit())?;
        let block = template::source("agents-memory-block.md")?;
        if let Some(text) = with_agents_block(current.as_deref(), block, &abs, AGENTS_MD)? {
            if current.is_none() {
                change.write(
                    AGENTS_MD,
                    text.into_bytes(),
                    Action::Create,
                    "memory instructions for agents",
                );
                created.push(AGENTS_MD.to_owned());
            } else {
                if !unborn && git::is_dirty(&root, git::head_tree(&repo)?.as_ref(), AGENTS_MD)? {
                    return Err(cogmem_store::workspace::WorkspaceError::HandEdited {
                        paths: vec![AGENTS_MD.to_owned()],
                    }
                    .into());
                }
                change.write(
                    AGENTS_MD,
                    text.into_bytes(),
                    Action::Edit,
                    "wrote cogmem's memory block",
                );
                updated.push(AGENTS_MD.to_owned());
            }
        }
    }
    adopted.retain(|p| !change.edits().iter().any(|e| &e.path == p));
    for p in &adopted {
        change.adopt(p);
    }

    let mut report = InitReport {
        root: root.clone(),
        created,
        updated,
        adopted,
        left_alone,
        existing_workspace,
        repository_created: !has_git,
        commit: None,
    };
    if change.is_empty() {
        return Ok(report);
    }
    let only_agents_md = report.created.iter().chain(&report.updated).all(|p| p == AGENTS_MD)
        && report.adopted.is_empty();
    let summary = if existing_workspace && only_agents_md {
        "wrote the memory block for agents".to_owned()
    } else if existing_workspace {
        format!(
            "adopted existing workspace ({} files added)",
            report.created.len() + report.updated.len()
        )
    } else {
        "cognitive memory workspace initialized".to_owned()
    };
    let change = change.with_subject(Action::Init, summary).allow_dirty();
    let applied = change.apply(&ws, &repo, &lock, &FixedClock(clock.now()))?;
    report.commit = Some(applied.commit);
    Ok(report)
}

/// Tells whether a path belongs to a workspace: its top-level Markdown files, settings, git
/// attributes, and everything under `memory/`.
fn is_workspace_file(rel: &str) -> bool {
    const TOP: &[&str] = &[
        layout::MEMORY_MD,
        layout::IDENTITY_MD,
        layout::SOUL_MD,
        "AGENTS.md",
        "USER.md",
        "TOOLS.md",
        cogmem_store::settings::FILE_NAME,
        layout::GITIGNORE,
        layout::GITATTRIBUTES,
    ];
    TOP.contains(&rel) || rel.starts_with("memory/")
}

/// Returns an instruction file's text (AGENTS.md here; CLAUDE.md and others for `setup`) with
/// cogmem's block in place — appended when absent, replaced between its markers when present —
/// or `None` when it is already up to date. A new file starts with the heading `# NAME`.
pub(crate) fn with_agents_block(
    current: Option<&str>,
    block: &str,
    path: &Path,
    name: &str,
) -> crate::Result<Option<String>> {
    let wrapped = format!("{AGENTS_BEGIN}\n{}\n{AGENTS_END}\n", block.trim_end());
    let Some(text) = current else {
        return Ok(Some(format!("# {name}\n\n{wrapped}")));
    };
    let begin =
        text.lines().position(|l| l.trim_start().starts_with("<!-- cogmem:memory-block:begin"));
    let end = text.lines().position(|l| l.trim() == AGENTS_END);
    match (begin, end) {
        (None, None) => {
            let mut out = text.to_owned();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&wrapped);
            Ok(Some(out))
        }
        (Some(b), Some(e)) if b < e => {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut out: String = lines[..b].concat();
            out.push_str(&wrapped);
            out.push_str(&lines[e + 1..].concat());
            Ok((out != text).then_some(out))
        }
        (b, e) => Err(lone_marker(b, e, path)),
    }
}

/// The refusal for a block with only one of its two markers.
fn lone_marker(b: Option<usize>, e: Option<usize>, path: &Path) -> crate::Error {
    let line = b.or(e).map_or(1, |i| i + 1);
    cogmem_store::store::StoreError::Malformed {
        path: path.to_owned(),
        line,
        what: format!(
            "cogmem's memory block lacks its {} marker; put back `{}` (or delete the \
             block's remains), then run `cogmem init --agents-md` again",
            if b.is_none() { "begin" } else { "end" },
            if b.is_none() { "<!-- cogmem:memory-block:begin -->" } else { AGENTS_END },
        ),
    }
    .into()
}

/// Returns an instruction file's text without cogmem's block (and the blank line
/// [`with_agents_block`] put before it), or `None` when it has no block.
///
/// Fails, as [`with_agents_block`] does, when only one of the two markers is there.
pub(crate) fn without_agents_block(text: &str, path: &Path) -> crate::Result<Option<String>> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let begin =
        lines.iter().position(|l| l.trim_start().starts_with("<!-- cogmem:memory-block:begin"));
    let end = lines.iter().position(|l| l.trim() == AGENTS_END);
    match (begin, end) {
        (None, None) => Ok(None),
        (Some(b), Some(e)) if b < e => {
            let mut out: String = lines[..b].concat();
            if out.ends_with("\n\n") {
                out.pop();
            }
            out.push_str(&lines[e + 1..].concat());
            Ok(Some(out))
        }
        (b, e) => Err(lone_marker(b, e, path)),
    }
}

fn folder_has_files(dir: &Path) -> bool {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .any(|e| e.file_type().is_file())
}

/// Returns `text` with the non-comment lines of `wanted` that it lacks appended, or `None`
/// when nothing is missing.
fn add_missing_lines(text: &str, wanted: &str) -> Option<String> {
    let have: Vec<&str> = text.lines().map(str::trim).collect();
    let missing: Vec<&str> = wanted
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter(|l| {
            let l = l.trim();
            let alt = l.trim_end_matches('/');
            !have.iter().any(|h| {
                *h == l
                    || *h == alt
                    || h.trim_start_matches('/') == l
                    || h.trim_start_matches('/') == alt
            })
        })
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(comment) = wanted.lines().find(|l| l.starts_with('#')) {
        out.push_str(comment);
        out.push('\n');
    }
    for l in missing {
        out.push_str(l);
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_lines_are_added_once() {
        let wanted = "# cogmem\n.cogmem/\n";
        assert_eq!(
            add_missing_lines("target/\n", wanted).unwrap(),
            "target/\n# cogmem\n.cogmem/\n"
        );
        assert!(add_missing_lines("/.cogmem\n", wanted).is_none());
        assert!(add_missing_lines(".cogmem/", wanted).is_none());
    }
}
