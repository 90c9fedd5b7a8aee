//! `cogmem setup HOST`: registers cogmem with an agent host — its MCP server, its hooks and the
//! memory block in the host's instruction file — by merging into the host's own configuration
//! files, and `--undo` takes exactly that back out.
//!
//! These files live outside the workspace (the user's home, or the project the host runs in):
//! they are host configuration, not memory, so they do not go through the change engine and
//! make no commit. Instead [`plan`] reads and checks every file first and writes nothing (a
//! malformed file fails the whole setup before any write); [`apply`] then copies each file it
//! will change to `FILE.cogmem-backup-STAMP` and replaces it atomically (temp file + rename,
//! `fsx::write_atomic`). A file that is a symbolic link (dotfiles managers make them) is never
//! replaced: writing a new file in its place would cut the link. The formats and their sources
//! are in `cogmem_store::host_config`; the instruction block is `init`'s.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use cogmem_store::error::InputError;
use cogmem_store::host_config::{self as hc, HookEvent, HookShape};
use cogmem_store::store::StoreError;
use cogmem_store::store::fsx;
use cogmem_store::template;
use cogmem_text::Clock;

use crate::init::{with_agents_block, without_agents_block};

/// An agent host `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// The Cursor editor's agent.
    Cursor,
    /// OpenClaw, the host the cognitive-memory skill was written for.
    Openclaw,
}

impl Host {
    /// The host's name as `setup` and `hook` spell it (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Cursor => "cursor",
            Self::Openclaw => "openclaw",
        }
    }

    /// The hook events setup registers `cogmem hook HOST` for, as the host names them, each
    /// with the `timeout` its entry gets (empty: the host runs no shell hooks).
    pub fn hook_events(self) -> &'static [HookEvent] {
        const fn on(name: &'static str) -> HookEvent {
            HookEvent { name, timeout: None }
        }
        const fn within(name: &'static str, seconds: u64) -> HookEvent {
            HookEvent { name, timeout: Some(seconds) }
        }
        const CLAUDE_CODE: &[HookEvent] = &[
            on("SessionStart"),
            on("UserPromptSubmit"),
            within("PreCompact", IMPORT_SECONDS),
            within("SessionEnd", CLAUDE_SESSION_END_SECONDS),
        ];
        const CODEX: &[HookEvent] = &[
            on("SessionStart"),
            on("UserPromptSubmit"),
            within("PreCompact", IMPORT_SECONDS),
            within("Stop", IMPORT_SECONDS),
            within("SessionEnd", CODEX_SESSION_END_SECONDS),
        ];
        const CURSOR: &[HookEvent] = &[on("sessionStart"), on("beforeSubmitPrompt")];
        match self {
            // https://code.claude.com/docs/en/hooks: a command hook's `timeout` is 600 s by
            // default, but SessionEnd hooks share a 1.5 s budget that Claude Code raises to the
            // longest `timeout` set in settings files, up to 60 s. An import needs more than
            // 1.5 s on a long session; PreCompact gets 120 s, so a stuck import does not hold
            // compaction for ten minutes.
            Self::ClaudeCode => CLAUDE_CODE,
            // https://developers.openai.com/codex/hooks: Codex's SessionEnd waits at most 3 s
            // (1 s by default) and older Codex versions have none, so `Stop` (each turn's end,
            // 600 s by default) keeps importing and SessionEnd saves what the last turn left
            // (`cogmem hook codex` hands that import to a process of its own, which Codex's
            // kill at 3 s does not reach). Older versions ignore an event they do not know
            // (`HookEventsToml` in openai/codex codex-rs/config/src/hook_config.rs).
            Self::Codex => CODEX,
            // https://cursor.com/docs/agent/hooks (Cursor documents no transcript format, so
            // `cogmem hook cursor` handles only these two)
            Self::Cursor => CURSOR,
            // OpenClaw's hooks are TypeScript handlers inside its gateway
            // (https://docs.openclaw.ai/automation/hooks), not shell commands.
            Self::Openclaw => &[],
        }
    }
}

/// The `timeout` of a transcript import that a host waits for (PreCompact, Codex's Stop).
const IMPORT_SECONDS: u64 = 120;
/// Claude Code's SessionEnd `timeout`: the most its SessionEnd budget is raised to.
const CLAUDE_SESSION_END_SECONDS: u64 = 60;
/// Codex's SessionEnd `timeout`: the most Codex allows.
const CODEX_SESSION_END_SECONDS: u64 = 3;

/// Whose configuration `setup` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The user's own files under the home folder: every project.
    User,
    /// The files of the project in the current folder: shared with whoever clones it.
    Project,
}

/// What `setup` is asked to do.
#[derive(Debug, Clone)]
pub struct SetupRequest {
    /// The host.
    pub host: Host,
    /// User or project configuration.
    pub scope: Scope,
    /// The home folder (`HOME`).
    pub home: PathBuf,
    /// Codex's folder when `CODEX_HOME` names one (else `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// OpenClaw's agent workspace when `OPENCLAW_WORKSPACE_DIR` names one.
    pub openclaw_workspace_dir: Option<PathBuf>,
    /// OpenClaw's profile (`OPENCLAW_PROFILE`).
    pub openclaw_profile: Option<String>,
    /// OpenClaw's state folder when `OPENCLAW_STATE_DIR` names one.
    pub openclaw_state_dir: Option<PathBuf>,
    /// OpenClaw's configuration file when `OPENCLAW_CONFIG_PATH` names one.
    pub openclaw_config_path: Option<PathBuf>,
    /// The project folder (the current folder), for `--scope project`.
    pub project: PathBuf,
    /// The workspace's root, absolute: what the server and hooks are pointed at.
    pub workspace: PathBuf,
    /// Take cogmem's entries out instead of putting them in.
    pub undo: bool,
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The file is new.
    Create,
    /// The file is changed.
    Update,
    /// The file held only what setup had put there, and goes.
    Delete,
}

/// One configuration file `setup` changes.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// What cogmem keeps there: `mcp`, `hooks` or `instructions`.
    pub role: &'static str,
    /// Create, update or delete.
    pub action: Action,
    /// Where the file's earlier content was copied (after [`apply`]; none for a new file).
    pub backup: Option<PathBuf>,
    /// Whether the file is a symbolic link: `--dry-run` shows the change, to make by hand in
    /// the file it points to, and [`apply`] refuses it.
    pub link: bool,
    #[serde(skip)]
    before: Option<String>,
    #[serde(skip)]
    after: Option<String>,
}

/// The outcome of `setup`: the files it changes (or changed), those already right, and notes.
#[derive(Debug, Clone, Serialize)]
pub struct SetupReport {
    /// The host.
    pub host: Host,
    /// The scope.
    pub scope: Scope,
    /// Whether this took cogmem out (`--undo`).
    pub undo: bool,
    /// The workspace the entries point at.
    pub workspace: PathBuf,
    /// Files to change; [`apply`] fills in their backups.
    pub files: Vec<FileChange>,
    /// Files already as setup would leave them.
    pub unchanged: Vec<PathBuf>,
    /// What setup left to the user, and why.
    pub notes: Vec<String>,
}

/// The variable that names the workspace to every `cogmem` command (`src/cli/env.rs`).
const WORKSPACE_VAR: &str = "COGMEM_WORKSPACE";

/// The program hosts start: found on their `PATH`, as `cargo install` puts it.
const PROGRAM: &str = "cogmem";

/// Works out every change for `req`, reading the files and writing nothing.
///
/// Fails with the file and line when a configuration file is malformed or has a shape setup
/// cannot merge into, and when the request makes no
/// sense for the host (OpenClaw has no project configuration; a project inside the workspace).
pub fn plan(req: &SetupRequest) -> crate::Result<SetupReport> {
    if req.scope == Scope::Project && req.host == Host::Openclaw {
        return Err(InputError::Setup {
            why: "OpenClaw has one configuration per profile (~/.openclaw/openclaw.json) and no \
                  project scope"
                .into(),
            hint: "run `cogmem setup openclaw` (the user scope)".into(),
        }
        .into());
    }
    if req.scope == Scope::Project && req.project.starts_with(&req.workspace) {
        return Err(InputError::Setup {
            why: format!(
                "{} is inside the workspace; a host's project files there would be memory \
                 files without a commit",
                req.project.display()
            ),
            hint: "run it in the project folder where you start the agent, or use `--scope user`"
                .into(),
        }
        .into());
    }
    let mut report = SetupReport {
        host: req.host,
        scope: req.scope,
        undo: req.undo,
        workspace: req.workspace.clone(),
        files: Vec::new(),
        unchanged: Vec::new(),
        notes: Vec::new(),
    };
    let base = match req.scope {
        Scope::User => req.home.clone(),
        Scope::Project => req.project.clone(),
    };
    let named = workspace_names(req, &mut report);
    let mcp_args = json!(["mcp", "--workspace", named.mcp_arg]);
    let hook_command =
        format!("{} --workspace {}", hc::hook_prefix(req.host.name()), named.hook_arg);
    match req.host {
        Host::ClaudeCode => {
            // User servers live in ~/.claude.json, project ones in .mcp.json at the project
            // root (https://code.claude.com/docs/en/mcp); hooks in settings.json
            // (https://code.claude.com/docs/en/env-vars).
            let mcp = match req.scope {
                Scope::User => req.home.join(".claude.json"),
                Scope::Project => req.project.join(".mcp.json"),
            };
            let entry = json!({ "type": "stdio", "command": PROGRAM, "args": mcp_args });
            json_server(&mut report, &mcp, &["mcpServers"], entry, None, req)?;
            let settings = base.join(".claude").join("settings.json");
            let env = named.env_value.as_deref();
            json_hooks(&mut report, &settings, HookShape::Grouped, req, &hook_command, env)?;
            let claude_md = match req.scope {
                Scope::User => req.home.join(".claude").join("CLAUDE.md"),
                Scope::Project => req.project.join("CLAUDE.md"),
            };
            instructions(&mut report, &claude_md, "CLAUDE.md", req)?;
        }
        Host::Codex => {
            // ~/.codex/config.toml, or .codex/config.toml in a trusted project
            // (https://github.com/openai/codex/blob/main/docs/config.md); hooks.json beside it
            // (https://developers.openai.com/codex/hooks); AGENTS.md in ~/.codex or the project
            // (https://developers.openai.com/codex/guides/agents-md).
            let files = host_files(Host::Codex, req);
            codex_config(&mut report, &files.mcp, &named.mcp_arg, req.undo)?;
            let hooks = files.hooks;
            json_hooks(&mut report, &hooks, HookShape::Grouped, req, &hook_command, None)?;
            // Codex runs a new or changed command hook only once the user has trusted it, and
            // skips an untrusted one without a word (https://developers.openai.com/codex/hooks).
            if !req.undo && report.files.iter().any(|f| f.path == hooks) {
                report.notes.push(format!(
                    "Codex runs new or changed hooks only once you trust them, and skips the \
                     others without a word: open `/hooks` in Codex and trust the `cogmem hook \
                     codex` entries of {}",
                    hooks.display()
                ));
            }
            let agents = files.instructions.expect("Codex has an AGENTS.md in both scopes");
            instructions(&mut report, &agents, "AGENTS.md", req)?;
        }
        Host::Cursor => {
            let files = host_files(Host::Cursor, req);
            let entry = json!({ "command": PROGRAM, "args": mcp_args });
            json_server(&mut report, &files.mcp, &["mcpServers"], entry, None, req)?;
            json_hooks(&mut report, &files.hooks, HookShape::Flat, req, &hook_command, None)?;
            match files.instructions {
                Some(agents) => instructions(&mut report, &agents, "AGENTS.md", req)?,
                None => report.notes.push(
                    "Cursor keeps user rules in its settings, not in a file: paste the block from \
                     `cogmem setup cursor --scope project` there, or run that in each project"
                        .into(),
                ),
            }
        }
        Host::Openclaw => {
            // mcp.servers in the profile's openclaw.json (https://docs.openclaw.ai/cli/mcp), a
            // JSON5 file (https://docs.openclaw.ai/gateway/configuration-reference).
            let config = openclaw_config(req);
            let entry = json!({ "command": PROGRAM, "args": mcp_args });
            let profile = openclaw_profile(req)
                .map(|p| format!("--profile {} ", cogmem_text::shell::quote(p)))
                .unwrap_or_default();
            let hint = format!(
                "setup edits plain JSON only, and would lose JSON5 comments; add the server with \
                 `openclaw {profile}mcp set {} '{}'` instead",
                hc::SERVER_NAME,
                serde_json::to_string(&entry).expect("a JSON value always serialises")
            );
            json_server(&mut report, &config, &["mcp", "servers"], entry, Some(&hint), req)?;
            let agents = openclaw_workspace(&config, req)?.join("AGENTS.md");
            instructions(&mut report, &agents, "AGENTS.md", req)?;
            report.notes.push(
                "OpenClaw runs hooks inside its gateway, not as shell commands: no hooks were \
                 registered"
                    .into(),
            );
        }
    }
    Ok(report)
}

/// The files of a host that writes its hooks and instruction file beside each other (Codex,
/// Cursor) in `req`'s scope.
struct HostFiles {
    /// The MCP server's file (Codex: `config.toml`).
    mcp: PathBuf,
    /// `hooks.json`.
    hooks: PathBuf,
    /// The instruction file, when the host reads one in this scope.
    instructions: Option<PathBuf>,
}

/// Where Codex and Cursor keep their files in `req`'s scope.
fn host_files(host: Host, req: &SetupRequest) -> HostFiles {
    let base = match req.scope {
        Scope::User => &req.home,
        Scope::Project => &req.project,
    };
    match host {
        // ~/.codex/config.toml, or .codex/config.toml in a trusted project
        // (https://github.com/openai/codex/blob/main/docs/config.md); hooks.json beside it
        // (https://developers.openai.com/codex/hooks); AGENTS.md in ~/.codex or the project
        // (https://developers.openai.com/codex/guides/agents-md).
        Host::Codex => {
            let dir = match (req.scope, &req.codex_home) {
                (Scope::User, Some(codex_home)) => codex_home.clone(),
                _ => base.join(".codex"),
            };
            let instructions = match req.scope {
                Scope::User => dir.join("AGENTS.md"),
                Scope::Project => req.project.join("AGENTS.md"),
            };
            HostFiles {
                mcp: dir.join("config.toml"),
                hooks: dir.join("hooks.json"),
                instructions: Some(instructions),
            }
        }
        // ~/.cursor/mcp.json or .cursor/mcp.json (https://cursor.com/docs/mcp); hooks.json
        // beside it (https://cursor.com/docs/agent/hooks); AGENTS.md at the project root
        // (https://cursor.com/docs/rules: AGENTS.md is "a simple alternative to .cursor/rules");
        // user rules live in Cursor's settings, not a file.
        _ => {
            let dir = base.join(".cursor");
            HostFiles {
                mcp: dir.join("mcp.json"),
                hooks: dir.join("hooks.json"),
                instructions: (req.scope == Scope::Project).then(|| req.project.join("AGENTS.md")),
            }
        }
    }
}

/// The other hosts' setups that still use the instruction file at `path`, whichever file it
/// is: a project's AGENTS.md is Codex's and Cursor's project file, and OpenClaw's when its agent
/// workspace is that project; Codex's user AGENTS.md (`CODEX_HOME`) is OpenClaw's when its
/// agent workspace is that folder. A setup counts while its hooks or MCP server are still in
/// its files; a file setup cannot read counts as in use, so the block stays.
fn hosts_sharing(path: &Path, req: &SetupRequest) -> Vec<(Host, Scope)> {
    let mut out = Vec::new();
    for other in [Host::Codex, Host::Cursor, Host::Openclaw].into_iter().filter(|&h| h != req.host)
    {
        if other == Host::Openclaw {
            if openclaw_uses(path, req) {
                out.push((other, Scope::User));
            }
            continue;
        }
        // The project whose AGENTS.md `path` would be, and the user's own files.
        let project = path.parent().map(|dir| SetupRequest {
            scope: Scope::Project,
            project: dir.to_owned(),
            ..req.clone()
        });
        let user = SetupRequest { scope: Scope::User, ..req.clone() };
        for r in project.iter().chain([&user]) {
            let files = host_files(other, r);
            let same = files.instructions.as_deref().is_some_and(|i| is_same_file(i, path));
            if same && has_setup(other, &files) {
                out.push((other, r.scope));
            }
        }
    }
    out
}

/// Whether OpenClaw's setup (cogmem's server in its openclaw.json) is there and its agent
/// workspace's AGENTS.md is `path`. An openclaw.json that is not plain JSON never had setup's
/// server (setup refuses such a file before writing anything); one that cannot be read counts
/// as in use.
fn openclaw_uses(path: &Path, req: &SetupRequest) -> bool {
    let config = openclaw_config(req);
    let text = match read(&config) {
        Ok(Some(text)) => text,
        Ok(None) => return false,
        Err(_) => return true,
    };
    let Ok(doc) = hc::parse_json(&config, &text, None) else { return false };
    let Ok(workspace) = openclaw_workspace(&config, req) else { return false };
    hc::entry(&doc, &["mcp", "servers"], hc::SERVER_NAME).is_some()
        && is_same_file(&workspace.join("AGENTS.md"), path)
}

/// Whether two paths name the same file: equal, or equal once their folders' links and `..`
/// are resolved (`~/code/app` and the same folder reached through a link).
fn is_same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let resolved = |p: &Path| {
        let dir = p.parent().and_then(|d| std::fs::canonicalize(d).ok())?;
        Some(dir.join(p.file_name()?))
    };
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// Whether `host`'s files hold what its setup writes: a hook entry of `cogmem hook HOST`, the
/// marked block of Codex's config.toml, or Cursor's `cogmem` server. Unreadable files count.
fn has_setup(host: Host, files: &HostFiles) -> bool {
    let text = |path: &Path| read(path).map_err(|_| ());
    let shape = if host == Host::Cursor { HookShape::Flat } else { HookShape::Grouped };
    let hooks = match text(&files.hooks) {
        Ok(Some(t)) => hc::parse_json(&files.hooks, &t, None).map_or(true, |doc| {
            !hc::hook_commands(&doc, shape, &hc::hook_prefix(host.name())).is_empty()
        }),
        Ok(None) => false,
        Err(()) => true,
    };
    let mcp = match text(&files.mcp) {
        Ok(Some(t)) if host == Host::Codex => t.lines().any(|l| l.trim() == hc::TOML_BEGIN),
        Ok(Some(t)) => hc::parse_json(&files.mcp, &t, None)
            .map_or(true, |doc| hc::entry(&doc, &["mcpServers"], hc::SERVER_NAME).is_some()),
        Ok(None) => false,
        Err(()) => true,
    };
    hooks || mcp
}

/// How the files name the workspace: the MCP server's `--workspace` argument, the hook
/// command's (ready for a shell), and Claude Code's `env.COGMEM_WORKSPACE` (none: not written).
struct WorkspaceNames {
    mcp_arg: String,
    hook_arg: String,
    env_value: Option<String>,
}

/// Names the workspace for `req`'s files. The user scope's files are the user's own: the
/// absolute path. A project's files are meant to be committed, so a workspace inside the
/// project is named relative to it where the host resolves that: Claude Code exports
/// `CLAUDE_PROJECT_DIR` (the project root) to hook commands and stdio MCP servers, and expands
/// `${VAR:-default}` in `.mcp.json` (https://code.claude.com/docs/en/hooks, "Reference scripts
/// by path"; https://code.claude.com/docs/en/mcp, "Environment variable expansion"). Its
/// settings' `env` expands nothing, so `COGMEM_WORKSPACE` is then not written. Elsewhere (Codex
/// and Cursor document no such variable; a workspace outside the project) the absolute path is
/// written and a note says the files are this machine's.
fn workspace_names(req: &SetupRequest, report: &mut SetupReport) -> WorkspaceNames {
    let ws = req.workspace.to_string_lossy().into_owned();
    let absolute = WorkspaceNames {
        mcp_arg: ws.clone(),
        hook_arg: cogmem_text::shell::quote(&ws),
        env_value: Some(ws.clone()),
    };
    if req.scope == Scope::User {
        return absolute;
    }
    let inside = req
        .workspace
        .strip_prefix(&req.project)
        .ok()
        .map(|rel| rel.to_string_lossy().into_owned())
        .filter(|rel| !rel.is_empty());
    let why = match (&inside, req.host) {
        (Some(rel), Host::ClaudeCode) => {
            if !req.undo {
                report.notes.push(format!(
                    "the project's files name the workspace as {rel} in the project (Claude \
                     Code's CLAUDE_PROJECT_DIR), so they can be committed; Claude Code's `env` \
                     takes no variables, so COGMEM_WORKSPACE is not set: the agent's own cogmem \
                     commands find the workspace from inside it, or set COGMEM_WORKSPACE yourself"
                ));
            }
            return WorkspaceNames {
                mcp_arg: format!("${{CLAUDE_PROJECT_DIR:-.}}/{rel}"),
                hook_arg: format!("\"${{CLAUDE_PROJECT_DIR}}\"/{}", cogmem_text::shell::quote(rel)),
                env_value: None,
            };
        }
        (Some(_), host) => format!(
            "{} documents no variable for the project's folder in hook commands and MCP \
             arguments",
            match host {
                Host::Codex => "Codex",
                _ => "Cursor",
            }
        ),
        (None, _) => "the workspace is outside the project".to_owned(),
    };
    if !req.undo {
        report.notes.push(format!(
            "{why}, so the project's files name it by its absolute path, {ws}: they work on \
             this machine only; commit them only if everyone keeps the workspace there, or \
             have each person run `cogmem setup {}` (the user scope) instead",
            req.host.name()
        ));
    }
    absolute
}

/// OpenClaw's profile, when one other than `default` is named.
fn openclaw_profile(req: &SetupRequest) -> Option<&str> {
    req.openclaw_profile.as_deref().filter(|p| !p.is_empty() && !p.eq_ignore_ascii_case("default"))
}

/// A path from an OpenClaw variable or setting: `~` is the home folder, a relative path is
/// taken from the current folder (`resolveUserPath` in openclaw/openclaw `src/config/paths.ts`).
fn openclaw_path(req: &SetupRequest, path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    match text.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            req.home.join(rest.trim_start_matches('/'))
        }
        _ => req.project.join(path),
    }
}

/// OpenClaw's configuration file: `OPENCLAW_CONFIG_PATH`, else `openclaw.json` in its state
/// folder ([`openclaw_state`]; `resolveCanonicalConfigPath` in openclaw/openclaw
/// `src/config/paths.ts`; https://docs.openclaw.ai/gateway/multiple-gateways: "Profiles
/// auto-scope OPENCLAW_STATE_DIR + OPENCLAW_CONFIG_PATH").
fn openclaw_config(req: &SetupRequest) -> PathBuf {
    if let Some(path) = &req.openclaw_config_path {
        return openclaw_path(req, path);
    }
    openclaw_state(req).join("openclaw.json")
}

/// OpenClaw's state folder: `OPENCLAW_STATE_DIR`, else the profile's, `~/.openclaw-PROFILE` for a
/// profile other than `default`, else `~/.openclaw` (`resolveStateDir` in openclaw/openclaw
/// `src/config/paths.ts`, and `applyCliProfileEnv` in `src/cli/profile.ts`, which `openclaw
/// --profile NAME` runs).
fn openclaw_state(req: &SetupRequest) -> PathBuf {
    match (&req.openclaw_state_dir, openclaw_profile(req)) {
        (Some(dir), _) => openclaw_path(req, dir),
        (None, Some(profile)) => req.home.join(format!(".openclaw-{profile}")),
        (None, None) => req.home.join(".openclaw"),
    }
}

/// OpenClaw's agent workspace, which holds its AGENTS.md
/// (https://docs.openclaw.ai/concepts/agent-workspace): the default agent's own `workspace`
/// in `config` (`agents.entries.main`, or in the older `agents.list` the entry marked
/// `default`, else the first), else `agents.defaults.workspace` (`~` is the
/// home folder; a relative path is taken from the current folder), else
/// `OPENCLAW_WORKSPACE_DIR`, else `workspace` in the state folder ([`openclaw_state`]: so
/// `~/.openclaw-PROFILE/workspace` for a profile, as newer OpenClaw puts it). Older OpenClaw
/// put a profile's at `~/.openclaw/workspace-PROFILE` (`resolveDefaultAgentWorkspaceDir` in
/// openclaw/openclaw `src/agents/workspace-default.ts`): that folder is taken when it exists
/// and the newer one does not.
///
/// Fails when `config` is not plain JSON (the MCP server's edit has said so first).
fn openclaw_workspace(config: &Path, req: &SetupRequest) -> crate::Result<PathBuf> {
    let text = read(config)?.unwrap_or_default();
    let doc = hc::parse_json(config, &text, None)?;
    let named = |v: Option<&Value>| {
        v.and_then(|a| a.get("workspace"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
    };
    let agents = doc.get("agents");
    let list = agents.and_then(|a| a.get("list")).and_then(Value::as_array);
    let listed_default = list.and_then(|l| {
        let by = |key: &str, want: &Value| l.iter().find(|e| e.get(key) == Some(want));
        // OpenClaw's default agent: the one marked `default`, else the first
        // (`resolveDefaultAgentId` in openclaw/openclaw `src/agents/agent-scope.ts`).
        by("default", &Value::Bool(true)).or_else(|| l.iter().find(|e| e.is_object()))
    });
    let configured = named(agents.and_then(|a| a.get("entries")).and_then(|e| e.get("main")))
        .or_else(|| named(listed_default))
        .or_else(|| named(agents.and_then(|a| a.get("defaults"))));
    if let Some(dir) = configured {
        return Ok(openclaw_path(req, Path::new(&dir)));
    }
    if let Some(dir) = &req.openclaw_workspace_dir {
        return Ok(openclaw_path(req, dir));
    }
    let newer = openclaw_state(req).join("workspace");
    if req.openclaw_state_dir.is_none()
        && let Some(profile) = openclaw_profile(req)
    {
        let older = req.home.join(".openclaw").join(format!("workspace-{profile}"));
        if older.is_dir() && !newer.is_dir() {
            return Ok(older);
        }
    }
    Ok(newer)
}

/// Reads a configuration file; `None` when it does not exist.
fn read(path: &Path) -> crate::Result<Option<String>> {
    fsx::read_text_if_exists(path, fsx::DEFAULT_FILE_LIMIT).map_err(Into::into)
}

/// Records the change from `before` to `after` (`None`: the file goes), or the file as
/// unchanged; a symbolic link's change is recorded with a note (read through the link, for
/// `--dry-run` to show), and [`apply`] refuses it.
fn record(
    report: &mut SetupReport,
    path: &Path,
    role: &'static str,
    before: Option<String>,
    after: Option<String>,
) -> crate::Result<()> {
    if before == after {
        if before.is_some() {
            report.unchanged.push(path.to_owned());
        }
        return Ok(());
    }
    let link = is_link(path);
    if link {
        let target = std::fs::read_link(path).map(|t| format!(" (to {})", t.display()));
        report.notes.push(format!(
            "{} is a symbolic link{}: setup does not replace links, so make the change by hand \
             in the file it points to",
            path.display(),
            target.unwrap_or_default()
        ));
    }
    let action = match (&before, &after) {
        (None, _) => Action::Create,
        (Some(_), None) => Action::Delete,
        (Some(_), Some(_)) => Action::Update,
    };
    report.files.push(FileChange {
        path: path.to_owned(),
        role,
        action,
        backup: None,
        link,
        before,
        after,
    });
    Ok(())
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The error for a file to change that is a symbolic link.
fn link_refused(path: &Path) -> crate::Error {
    StoreError::HostConfig {
        path: path.to_owned(),
        line: 1,
        what: "is a symbolic link; setup does not replace links".into(),
        hint: "make the change by hand in the file the link points to (`--dry-run` shows it), \
               or replace the link with a copy of its file"
            .into(),
    }
    .into()
}

/// The JSON text to leave: `None` when undo emptied a document.
fn json_after(doc: &Value, undo: bool) -> Option<String> {
    (!(undo && doc.as_object().is_some_and(serde_json::Map::is_empty)))
        .then(|| hc::render_json(doc))
}

/// The MCP server entry under `keys`: added (or replaced when setup wrote it for another
/// workspace), or with `--undo` removed. An entry under cogmem's name that setup did not write
/// is the user's: setup refuses to replace it, and undo leaves it with a note.
fn json_server(
    report: &mut SetupReport,
    path: &Path,
    keys: &[&str],
    entry: Value,
    json5_hint: Option<&str>,
    req: &SetupRequest,
) -> crate::Result<()> {
    let before = read(path)?;
    let text = before.as_deref().unwrap_or("");
    let mut doc = hc::parse_json(path, text, json5_hint)?;
    let name = format!("{}.{}", keys.join("."), hc::SERVER_NAME);
    let theirs = hc::entry(&doc, keys, hc::SERVER_NAME).filter(|f| !hc::is_setup_server(f, &entry));
    let changed = match (theirs, req.undo) {
        (Some(_), true) => {
            report.notes.push(format!(
                "{} has a `{name}` that setup did not write; it is yours, so undo left it",
                path.display()
            ));
            false
        }
        (Some(_), false) => {
            return Err(StoreError::HostConfig {
                path: path.to_owned(),
                line: line_of_text(text, &format!("\"{}\"", hc::SERVER_NAME)),
                what: format!("already has an `{name}` that setup did not write"),
                hint: format!(
                    "remove that entry (or rename it), then run `cogmem setup {}` again",
                    req.host.name()
                ),
            }
            .into());
        }
        (None, true) => hc::remove_entry(&mut doc, keys, hc::SERVER_NAME),
        (None, false) => hc::set_entry(&mut doc, keys, hc::SERVER_NAME, entry, path, text)?,
    };
    let after = if changed { json_after(&doc, req.undo) } else { before.clone() };
    record(report, path, "mcp", before, after)
}

/// The hook entries of `req.host` in `path`, and for Claude Code `env.COGMEM_WORKSPACE` set to
/// `env_value` (none: not written, and an earlier setup's removed).
fn json_hooks(
    report: &mut SetupReport,
    path: &Path,
    shape: HookShape,
    req: &SetupRequest,
    command: &str,
    env_value: Option<&str>,
) -> crate::Result<()> {
    let events = req.host.hook_events();
    let before = read(path)?;
    let text = before.as_deref().unwrap_or("");
    let mut doc = hc::parse_json(path, text, None)?;
    let prefix = hc::hook_prefix(req.host.name());
    // Claude Code gives a settings file's `env` to every command of the session, the agent's
    // own `cogmem …` calls included (https://code.claude.com/docs/en/env-vars), so those find
    // the workspace from any project folder.
    let env_var = (req.host == Host::ClaudeCode).then_some(WORKSPACE_VAR);
    // The variable is setup's when it names the workspace of setup's own hook entries in the
    // same file (setup writes both together); a value set any other way is the user's: kept,
    // with a note when it names another workspace, and never removed by undo.
    let found = env_var.and_then(|var| hc::entry(&doc, &["env"], var)).cloned();
    let ours_hooks = hc::hook_commands(&doc, shape, &prefix);
    let is_setups = found.as_ref().and_then(Value::as_str).is_some_and(|v| {
        let theirs = format!("{prefix} --workspace {}", cogmem_text::shell::quote(v));
        ours_hooks.contains(&theirs)
    });
    let ws = req.workspace.to_string_lossy().into_owned();
    let changed = if req.undo {
        let env = match env_var {
            Some(var) if is_setups => hc::remove_entry(&mut doc, &["env"], var),
            _ => false,
        };
        hc::remove_hooks(&mut doc, shape, &prefix) | env
    } else {
        let env = match (env_var, env_value, &found) {
            (Some(var), _, Some(value)) if !is_setups => {
                if value.as_str() != Some(ws.as_str()) {
                    report.notes.push(format!(
                        "{} sets `env.{var}` to {value}, which setup did not write; it left it, \
                         so the agent's own cogmem commands use that workspace: set it to \
                         \"{ws}\" by hand if you want this one",
                        path.display()
                    ));
                }
                false
            }
            (Some(var), Some(value), _) => {
                hc::set_entry(&mut doc, &["env"], var, Value::from(value), path, text)?
            }
            (Some(var), None, Some(_)) => hc::remove_entry(&mut doc, &["env"], var),
            _ => false,
        };
        let set = hc::set_hooks(&mut doc, shape, events, command, &prefix, path, text)?;
        if let Some(note) = kept_note(path, &set.kept) {
            report.notes.push(note);
        }
        if let Some(note) = untimed_note(req, path, &set.untimed) {
            report.notes.push(note);
        }
        set.changed | env
    };
    let after = if changed { json_after(&doc, req.undo) } else { before.clone() };
    record(report, path, "hooks", before, after)
}

/// The note that says which of cogmem's hook entries are left without setup's `timeout` in a
/// file where none has one (deleted by the user, or written by a setup from before timeouts),
/// and how to get setup's.
fn untimed_note(req: &SetupRequest, path: &Path, untimed: &[(String, u64)]) -> Option<String> {
    if untimed.is_empty() {
        return None;
    }
    let list: Vec<String> = untimed.iter().map(|(e, s)| format!("{e} {s} s")).collect();
    let scope = if req.scope == Scope::Project { " --scope project" } else { "" };
    let setup = format!("cogmem setup {}{scope}", req.host.name());
    Some(format!(
        "{} has cogmem's hook entries without a `timeout` (you deleted them, or a cogmem from \
         before timeouts wrote them); setup left them so. To get setup's ({}), run `{setup} \
         --undo`, then `{setup}`",
        path.display(),
        list.join(", ")
    ))
}

/// The note that says which of the user's own fields on cogmem's hook entries setup kept.
fn kept_note(path: &Path, kept: &[hc::KeptField]) -> Option<String> {
    if kept.is_empty() {
        return None;
    }
    let fields: Vec<String> = kept
        .iter()
        .map(|k| {
            let setups =
                k.setups.as_ref().map(|s| format!(" (setup's is {s})")).unwrap_or_default();
            format!("{} `{}` {}{setups}", k.event, k.field, k.value)
        })
        .collect();
    Some(format!(
        "{} has fields of yours on cogmem's hook entries; setup owns only their command and kept \
         them: {}",
        path.display(),
        fields.join(", ")
    ))
}

/// Codex's config.toml: `[mcp_servers.cogmem]` in cogmem's marked block, and hooks switched on
/// with `[features] codex_hooks = true`, editing the text so that comments and every other
/// table stay byte for byte.
fn codex_config(report: &mut SetupReport, path: &Path, ws: &str, undo: bool) -> crate::Result<()> {
    let before = read(path)?;
    let text = before.as_deref().unwrap_or("");
    hc::check_toml(path, text)?;
    let bare = hc::remove_toml_block(path, text)?;
    let after = if undo {
        (!(bare.trim().is_empty() && before.is_some() && text != bare)).then_some(bare)
    } else {
        let table = hc::check_toml(path, &bare)?;
        if hc::has_table_key(&table, "mcp_servers", hc::SERVER_NAME) {
            return Err(StoreError::HostConfig {
                path: path.to_owned(),
                line: line_of_text(&bare, "mcp_servers"),
                what: format!(
                    "already has an `mcp_servers.{}` that setup did not write",
                    hc::SERVER_NAME
                ),
                hint: "remove that table (or rename it), then run `cogmem setup codex` again"
                    .into(),
            }
            .into());
        }
        let mut body = format!(
            "[mcp_servers.{}]\ncommand = {}\nargs = [{}, {}, {}]\n",
            hc::SERVER_NAME,
            hc::toml_string(PROGRAM),
            hc::toml_string("mcp"),
            hc::toml_string("--workspace"),
            hc::toml_string(ws),
        );
        // `hooks` is Codex's own name for the switch, `codex_hooks` the older one it still
        // reads; newer versions run hooks unless switched off, older ones only with
        // `codex_hooks = true`, which setup adds when neither is set.
        let (features, alias) = hc::table_bool(&table, "features", "codex_hooks");
        let (_, canonical) = hc::table_bool(&table, "features", "hooks");
        let switch = match (canonical, alias) {
            (Some(false), _) => Some(("hooks", false)),
            (_, Some(false)) => Some(("codex_hooks", false)),
            (Some(true), _) | (_, Some(true)) => Some(("hooks", true)),
            (None, None) => None,
        };
        let mut out = bare.clone();
        match (features, switch) {
            (_, Some((_, true))) => {}
            (_, Some((key, false))) => report.notes.push(format!(
                "{} sets `features.{key} = false`; setup left it, so Codex will not run the \
                 hooks until you set it to true",
                path.display()
            )),
            (false, None) => body.push_str("\n[features]\ncodex_hooks = true\n"),
            (true, None) => match hc::insert_into_table(&out, "features", "codex_hooks = true") {
                Some(with) => out = with,
                None => {
                    return Err(StoreError::HostConfig {
                        path: path.to_owned(),
                        line: line_of_text(&bare, "features"),
                        what: "`features` is not written as a `[features]` table, so setup cannot \
                               add `codex_hooks = true` to it"
                            .into(),
                        hint: "add `codex_hooks = true` to the features by hand, then run \
                               `cogmem setup codex` again"
                            .into(),
                    }
                    .into());
                }
            },
        }
        // The agent's own `cogmem …` commands run in Codex's shell: `shell_environment_policy.
        // set` gives them COGMEM_WORKSPACE (`ShellEnvironmentPolicyToml::set` in github.com/
        // openai/codex, codex-rs/config/src/shell_environment_policy.rs).
        let var = format!("{WORKSPACE_VAR} = {}", hc::toml_string(ws));
        let policy = hc::toml_lookup(&table, &["shell_environment_policy"]);
        let set = hc::toml_lookup(&table, &["shell_environment_policy", "set"]);
        let inserted = match (policy, set) {
            (None, _) => {
                body.push_str(&format!("\n[shell_environment_policy.set]\n{var}\n"));
                true
            }
            (Some(_), Some(set)) => match set.get(WORKSPACE_VAR) {
                Some(v) => v.as_str() == Some(ws),
                None => hc::insert_into_table(&out, "shell_environment_policy.set", &var)
                    .map(|with| out = with)
                    .is_some(),
            },
            (Some(_), None) => {
                hc::insert_into_table(&out, "shell_environment_policy", &format!("set.{var}"))
                    .map(|with| out = with)
                    .is_some()
            }
        };
        if !inserted {
            report.notes.push(format!(
                "{} has a `shell_environment_policy` setup could not extend: add `{var}` to its \
                 `set` so the agent's own cogmem commands find the workspace",
                path.display()
            ));
        }
        let with = hc::append_toml_block(&out, &body);
        if let Err(e) = hc::check_toml(path, &with) {
            // The file was valid without the block: a `[mcp_servers.cogmem]` table cannot go
            // next to an `mcp_servers` written inline (`mcp_servers = { … }`), and the parser's
            // line would be one of the block's, which the file does not have.
            if table.contains_key("mcp_servers") {
                return Err(StoreError::HostConfig {
                    path: path.to_owned(),
                    line: line_of_text(&bare, "mcp_servers"),
                    what: "`mcp_servers` is written inline (`mcp_servers = { … }`), so setup \
                           cannot add a `[mcp_servers.cogmem]` table next to it"
                        .into(),
                    hint: "write each server as its own `[mcp_servers.NAME]` table, then run \
                           `cogmem setup codex` again (or add `[mcp_servers.cogmem]` by hand: \
                           `--dry-run` on a copy without the inline table shows it)"
                        .into(),
                }
                .into());
            }
            return Err(e.into());
        }
        Some(with)
    };
    let after = match after {
        Some(a) if before.is_none() && a.is_empty() => None,
        other => other,
    };
    record(report, path, "mcp", before, after)
}

fn line_of_text(text: &str, needle: &str) -> usize {
    text.find(needle).map_or(1, |at| cogmem_store::store::markdown::line_of(text, at))
}

/// The memory block in an instruction file (CLAUDE.md, AGENTS.md), through `init`'s writer.
/// A file inside the workspace is memory: `cogmem init --agents-md` writes it, in a commit.
fn instructions(
    report: &mut SetupReport,
    path: &Path,
    name: &str,
    req: &SetupRequest,
) -> crate::Result<()> {
    if path.starts_with(&req.workspace) {
        report.notes.push(format!(
            "{} is inside the workspace, so setup leaves it to `cogmem init --agents-md`, which \
             commits it",
            path.display()
        ));
        return Ok(());
    }
    let before = read(path)?;
    let sharing = if req.undo { hosts_sharing(path, req) } else { Vec::new() };
    if !sharing.is_empty() && before.is_some() {
        let names: Vec<String> = sharing
            .iter()
            .map(|(h, scope)| match scope {
                Scope::User => format!("`cogmem setup {}`", h.name()),
                Scope::Project => format!("`cogmem setup {} --scope project`", h.name()),
            })
            .collect();
        report.notes.push(format!(
            "{} keeps cogmem's memory block: {} still uses it (undo that too to remove the block)",
            path.display(),
            names.join(" and ")
        ));
        return record(report, path, "instructions", before.clone(), before);
    }
    let after = if req.undo {
        match &before {
            None => None,
            Some(text) => match without_agents_block(text, path)? {
                None => Some(text.clone()),
                // A file setup created holds only its heading once the block is gone.
                Some(rest) if rest.trim() == format!("# {name}") => None,
                Some(rest) => Some(rest),
            },
        }
    } else {
        let block = template::source("agents-memory-block.md")?;
        with_agents_block(before.as_deref(), block, path, name)?.or_else(|| before.clone())
    };
    record(report, path, "instructions", before, after)
}

/// Copies each file to change to `FILE.cogmem-backup-STAMP`, then writes the new content
/// atomically (or removes the file), in the order of the report.
///
/// Fails before any write when a file to change is a symbolic link (writing a new file in its
/// place would cut the link). Fails on the first file that cannot be written; the files before
/// it are already changed, and every changed file has its backup.
pub fn apply(report: &mut SetupReport, clock: &dyn Clock) -> crate::Result<()> {
    if let Some(file) = report.files.iter().find(|f| f.link || is_link(&f.path)) {
        return Err(link_refused(&file.path));
    }
    let stamp = clock.now().with_timezone(&chrono::Utc).format("%Y%m%dT%H%M%SZ").to_string();
    for file in &mut report.files {
        if let Some(before) = &file.before {
            let mut name = file.path.as_os_str().to_owned();
            name.push(format!(".cogmem-backup-{stamp}"));
            let mut backup = PathBuf::from(&name);
            let mut n = 2;
            while std::fs::symlink_metadata(&backup).is_ok() {
                backup = PathBuf::from(format!("{}-{n}", name.to_string_lossy()));
                n += 1;
            }
            // The backup is as private as the file (a host's configuration may hold keys).
            fsx::write_atomic_like(&backup, before.as_bytes(), &file.path)?;
            file.backup = Some(backup);
        }
    }
    for file in &report.files {
        match &file.after {
            Some(after) => fsx::write_atomic(&file.path, after.as_bytes())?,
            None => fsx::remove_file(&file.path)?,
        }
    }
    Ok(())
}

/// Renders the changes as a unified diff, one `--- PATH` / `+++ PATH` section per file.
pub fn diff(report: &SetupReport) -> crate::Result<String> {
    let mut out = String::new();
    for file in &report.files {
        let old = file.before.as_deref().unwrap_or("");
        let new = file.after.as_deref().unwrap_or("");
        let shown = file.path.display().to_string();
        let label = |exists: bool| if exists { shown.as_str() } else { "/dev/null" };
        out.push_str(&cogmem_store::git::unified_diff(
            (label(file.before.is_some()), old),
            (label(file.after.is_some()), new),
        )?);
    }
    Ok(out)
}
