//! Every environment variable cogmem reads, in one place, and the clock and actor built from
//! them. The library never reads the environment.

use std::ffi::OsString;
use std::path::PathBuf;

use cogmem::audit::Actor;
use cogmem::error::InputError;
use cogmem::workspace::WorkspaceOptions;
use cogmem::{Clock, FixedClock, SystemClock};

/// The workspace to use, like `--workspace`.
pub const WORKSPACE: &str = "COGMEM_WORKSPACE";
/// Who is acting, like `--actor`.
pub const ACTOR: &str = "COGMEM_ACTOR";
/// An RFC 3339 time that replaces the system clock (tests, replays).
pub const NOW: &str = "COGMEM_NOW";
/// Fault injection for crash trials: the point inside a change where the process kills itself
/// (see `cogmem::change::CRASH_POINTS`). Read only by a binary built with the `crash-points`
/// feature (as `scripts/test` builds it); ignored otherwise.
#[cfg(feature = "crash-points")]
pub const CRASH_AT: &str = "COGMEM_CRASH_AT";
/// Any value but `0` prints phase timings on stderr (binaries built with the `timings`
/// feature, as `scripts/bench-*` build them).
pub const TIMINGS: &str = "COGMEM_TIMINGS";
/// The home folder: where `cogmem setup` finds the agent hosts' user configuration, and what
/// `cogmem hook` expands a `~/` path in a host's hook JSON with (Claude Code's hooks reference
/// shows `transcript_path` as `~/.claude/projects/…`).
pub const HOME: &str = "HOME";
/// Codex's own folder when not `~/.codex` (https://developers.openai.com/codex/guides/agents-md:
/// "defaults to ~/.codex, unless you set CODEX_HOME"): where `cogmem setup codex` writes the user
/// configuration.
pub const CODEX_HOME: &str = "CODEX_HOME";
/// OpenClaw's agent workspace when `agents.defaults.workspace` does not name one
/// (https://docs.openclaw.ai/concepts/agent-workspace): where `cogmem setup openclaw` writes
/// the AGENTS.md block.
pub const OPENCLAW_WORKSPACE_DIR: &str = "OPENCLAW_WORKSPACE_DIR";
/// OpenClaw's profile, which `openclaw --profile NAME` sets: any but `default` moves its state
/// folder to `~/.openclaw-NAME` (so its configuration to `~/.openclaw-NAME/openclaw.json`,
/// https://docs.openclaw.ai/gateway/multiple-gateways, `applyCliProfileEnv` in openclaw/openclaw
/// `src/cli/profile.ts`) and its default agent workspace to `~/.openclaw-NAME/workspace`
/// (https://docs.openclaw.ai/concepts/agent-workspace; older OpenClaw used
/// `~/.openclaw/workspace-NAME`, which setup takes when only it exists).
pub const OPENCLAW_PROFILE: &str = "OPENCLAW_PROFILE";
/// OpenClaw's state folder when not `~/.openclaw` (or the profile's): its configuration is
/// `openclaw.json` in it (`resolveStateDir` in openclaw/openclaw `src/config/paths.ts`).
pub const OPENCLAW_STATE_DIR: &str = "OPENCLAW_STATE_DIR";
/// OpenClaw's configuration file, when named outright (`resolveCanonicalConfigPath`, same file).
pub const OPENCLAW_CONFIG_PATH: &str = "OPENCLAW_CONFIG_PATH";
/// Any value turns colour off (https://no-color.org).
pub const NO_COLOR: &str = "NO_COLOR";
/// Milliseconds a read waits for `cogmem watch` to answer its cookie (default 50) before it
/// stats every memory file instead (tests on a busy machine).
pub const WATCH_WAIT_MS: &str = "COGMEM_WATCH_WAIT_MS";
/// Milliseconds long work runs before its progress bar appears on a terminal (default 500;
/// `0` draws it at once, for tests that drive a command under a pseudo-terminal).
pub const PROGRESS_DELAY_MS: &str = "COGMEM_PROGRESS_DELAY_MS";

/// The password of `cogmem serve --allow-remote`, when no --password-file is given.
pub const WEB_PASSWORD: &str = "COGMEM_WEB_PASSWORD";
/// An embedding model folder (model2vec layout) for paraphrase recall; replaces
/// `[search] embedding_model` in cogmem.toml.
pub const EMBEDDING_MODEL: &str = "COGMEM_EMBEDDING_MODEL";
/// Minutes without a read after which the read server `cogmem hook` starts stops; replaces
/// `[hooks] serve_minutes` in cogmem.toml (`0`: the hook starts none).
pub const HOOK_SERVE_MINUTES: &str = "COGMEM_HOOK_SERVE_MINUTES";

/// The environment as cogmem sees it.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub workspace: Option<PathBuf>,
    pub home: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    pub openclaw_workspace_dir: Option<PathBuf>,
    pub openclaw_profile: Option<String>,
    pub openclaw_state_dir: Option<PathBuf>,
    pub openclaw_config_path: Option<PathBuf>,
    pub actor: Option<String>,
    pub now: Option<OsString>,
    pub no_color: bool,
    #[cfg(feature = "crash-points")]
    pub crash_at: Option<String>,
    pub watch_wait_ms: Option<u64>,
    pub progress_delay_ms: Option<u64>,
    pub timings: bool,
    pub web_password: Option<String>,
    pub embedding_model: Option<PathBuf>,
    pub hook_serve_minutes: Option<u64>,
}

impl Env {
    pub fn read() -> Self {
        let non_empty = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        Self {
            workspace: non_empty(WORKSPACE).map(PathBuf::from),
            home: non_empty(HOME).map(PathBuf::from),
            codex_home: non_empty(CODEX_HOME).map(PathBuf::from),
            openclaw_workspace_dir: non_empty(OPENCLAW_WORKSPACE_DIR).map(PathBuf::from),
            openclaw_profile: non_empty(OPENCLAW_PROFILE)
                .map(|v| v.to_string_lossy().trim().to_owned()),
            openclaw_state_dir: non_empty(OPENCLAW_STATE_DIR).map(PathBuf::from),
            openclaw_config_path: non_empty(OPENCLAW_CONFIG_PATH).map(PathBuf::from),
            actor: non_empty(ACTOR).map(|v| v.to_string_lossy().into_owned()),
            now: non_empty(NOW),
            no_color: non_empty(NO_COLOR).is_some(),
            #[cfg(feature = "crash-points")]
            crash_at: non_empty(CRASH_AT).map(|v| v.to_string_lossy().into_owned()),
            watch_wait_ms: non_empty(WATCH_WAIT_MS).and_then(|v| v.to_str()?.parse().ok()),
            progress_delay_ms: non_empty(PROGRESS_DELAY_MS).and_then(|v| v.to_str()?.parse().ok()),
            timings: non_empty(TIMINGS).is_some_and(|v| v != "0"),
            web_password: non_empty(WEB_PASSWORD).map(|v| v.to_string_lossy().into_owned()),
            embedding_model: non_empty(EMBEDDING_MODEL).map(PathBuf::from),
            hook_serve_minutes: non_empty(HOOK_SERVE_MINUTES)
                .and_then(|v| v.to_str()?.parse().ok()),
        }
    }

    /// The options every workspace this process opens gets: the cookie wait, the crash point
    /// (`crash-points` builds only), a background `git repack` when a commit makes one due and
    /// a background merge of the index's segments when an update makes one due, and the
    /// index update after a change in a process of its own.
    pub fn workspace_options(&self) -> WorkspaceOptions {
        let mut o = WorkspaceOptions {
            on_repack_due: Some(std::sync::Arc::new(super::repack::launch)),
            on_merge_due: Some(std::sync::Arc::new(super::merge::launch)),
            on_index_update: Some(std::sync::Arc::new(super::index_update::launch)),
            ..WorkspaceOptions::default()
        };
        if let Some(ms) = self.watch_wait_ms {
            o.watch_wait = std::time::Duration::from_millis(ms);
        }
        o.embedding_model.clone_from(&self.embedding_model);
        #[cfg(feature = "crash-points")]
        {
            o.crash_at.clone_from(&self.crash_at);
        }
        o
    }

    /// How long long work runs before its progress bar appears.
    pub fn progress_delay(&self) -> std::time::Duration {
        self.progress_delay_ms
            .map_or(super::progress::DEFAULT_DELAY, std::time::Duration::from_millis)
    }

    /// Returns the clock: fixed at `COGMEM_NOW` when set, else the system clock.
    pub fn clock(&self) -> Result<Box<dyn Clock>, InputError> {
        match &self.now {
            None => Ok(Box::new(SystemClock)),
            Some(v) => {
                let text = v.to_string_lossy();
                FixedClock::parse(&text)
                    .map(|c| Box::new(c) as Box<dyn Clock>)
                    .ok_or_else(|| InputError::Clock { value: text.into_owned() })
            }
        }
    }

    /// Leaves out a person (`user:NAME`) named by `COGMEM_ACTOR` when nobody is known to be
    /// at the terminal (`attended` false: stdin is no terminal, or the command is a host's hook
    /// or the MCP server), and returns it for the warning. Agents inherit the environment of
    /// the person who started them, so a person named there would be every hook's, the MCP
    /// server's and every agent command's author; `--actor user:NAME` on one command is still
    /// taken anywhere. See docs/decisions.md, 2026-12-06 (eleventh stop).
    pub fn leave_out_inherited_person(&mut self, attended: bool) -> Option<String> {
        let named = self.actor.as_deref()?;
        let person = Actor::parse(named).is_ok_and(|a| a.is_person() && a != Actor::manual());
        (person && !attended).then(|| self.actor.take()).flatten()
    }

    /// Returns the actor: `--actor`, else `COGMEM_ACTOR`, else `manual`. `manual` (given or by
    /// default) means the person at the terminal, so without one (`stdin_is_terminal` false:
    /// an agent, a script, a hook) it is `agent:manual`, which is not a person. See
    /// docs/decisions.md, 2026-12-01.
    pub fn actor(&self, flag: Option<&str>, stdin_is_terminal: bool) -> Result<Actor, InputError> {
        let actor = match flag.or(self.actor.as_deref()) {
            Some(name) => Actor::parse(name)?,
            None => Actor::manual(),
        };
        Ok(if actor == Actor::manual() && !stdin_is_terminal {
            Actor::unnamed_agent()
        } else {
            actor
        })
    }
}
