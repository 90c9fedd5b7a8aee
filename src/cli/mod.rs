//! The command line: argument parsing (clap derive), dispatch to one file per subcommand, and
//! nothing else. Compiled only into the binary, so clap, the terminal and the environment never
//! become part of the library.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod audit;
mod background;
mod context;
mod decay;
mod doctor;
mod env;
mod exit;
mod flag;
mod forget;
mod graph;
mod hear;
mod hook;
mod identity;
mod import;
mod index_update;
mod init;
mod input;
mod mcp;
mod merge;
mod pending;
mod progress;
mod reflect;
mod remember;
mod render;
mod repack;
mod route;
mod search;
mod serve;
mod setup;
mod shell;
mod status;
mod sync;
mod sync_remote;
mod upkeep;
mod vocab;
mod watch;

use render::Style;

/// Long-term memory for AI agents, kept as plain Markdown files under git
///
/// A workspace is a folder of Markdown files (MEMORY.md, IDENTITY.md, SOUL.md and memory/)
/// that people read and agents edit. Every change cogmem makes is one git commit with an
/// audit line per file, so `git log -p` shows who remembered what, and when.
///
/// Start with `cogmem init`, then `cogmem remember "…"`, `cogmem status` and `cogmem audit`.
///
/// Long work (import, reindex, decay, verify, doctor, forget --purge, audit compact, sync
/// --remote) shows a progress bar on stderr when stderr is a terminal and the work takes longer
/// than half a second; never with --quiet or --json, and never on stdout.
#[derive(Parser, Debug)]
#[command(name = "cogmem", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Flags every command takes.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Workspace folder (default: COGMEM_WORKSPACE, else the current folder and its parents)
    #[arg(long, global = true, value_name = "PATH")]
    workspace: Option<PathBuf>,
    /// Print machine-readable JSON on stdout
    #[arg(long, global = true)]
    json: bool,
    /// Who is acting, recorded in the audit log and as the commit author: `user:NAME` for a
    /// person (default: COGMEM_ACTOR, else `manual`, which is a person only when stdin is a
    /// terminal and `agent:manual` otherwise)
    #[arg(long, global = true, value_name = "NAME")]
    actor: Option<String>,
    /// Print nothing but data and errors (no progress bars either)
    #[arg(short, long, global = true)]
    quiet: bool,
    /// When to colour diagnostics and progress bars
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    color: ColorChoice,
}

/// When to use colour.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set
    Auto,
    /// Always
    Always,
    /// Never
    Never,
}

#[derive(Subcommand, Debug)]
enum Command {
    Init(init::InitArgs),
    Remember(remember::RememberArgs),
    Hear(hear::HearArgs),
    Hook(hook::HookArgs),
    Route(route::RouteArgs),
    Forget(forget::ForgetArgs),
    Restore(forget::RestoreArgs),
    Search(search::SearchArgs),
    Recall(search::RecallArgs),
    Show(search::ShowArgs),
    Reindex(search::ReindexArgs),
    Import(import::ImportArgs),
    Context(context::ContextArgs),
    Graph(graph::GraphArgs),
    Supersede(graph::SupersedeArgs),
    Propose(pending::ProposeArgs),
    Pending(pending::PendingArgs),
    Flag(flag::FlagArgs),
    Reflect(reflect::ReflectArgs),
    Identity(identity::IdentityArgs),
    Decay(decay::DecayArgs),
    Upkeep(upkeep::UpkeepArgs),
    Pin(decay::PinArgs),
    /// Let a pinned memory fade like any other
    Unpin(decay::PinArgs),
    Why(decay::WhyArgs),
    Touch(decay::TouchArgs),
    Status(status::StatusArgs),
    Sync(sync::SyncArgs),
    Watch(watch::WatchArgs),
    #[command(visible_alias = "log")]
    Audit(audit::AuditArgs),
    Verify(doctor::VerifyArgs),
    Doctor(doctor::DoctorArgs),
    Completions(shell::CompletionsArgs),
    Man(shell::ManArgs),
    Mcp(mcp::McpArgs),
    Serve(serve::ServeArgs),
    Setup(setup::SetupArgs),
    #[command(hide = true)]
    MergeIndex(merge::MergeIndexArgs),
    #[command(hide = true)]
    UpdateIndex(index_update::UpdateIndexArgs),
}

/// What a subcommand needs from the outside world.
#[derive(Clone)]
pub struct Ctx {
    pub global: GlobalArgs,
    pub env: env::Env,
    pub style: Style,
    pub cwd: PathBuf,
    /// Whether stdin is a terminal: only then is the default actor `manual` a person.
    pub stdin_is_terminal: bool,
    /// Whether the command may commit: then opening the workspace adopts the commits made
    /// outside cogmem first (issue 17); a read only warns about them.
    pub writes: bool,
    /// Where long work reports its progress: a bar on a terminal, else `None` (issue 20).
    pub progress: Option<cogmem::progress::Sink>,
}

impl Ctx {
    /// Finds the workspace: `--workspace`, then COGMEM_WORKSPACE, then the current folder up;
    /// with this program's options (the environment's, and a background `git repack` when one
    /// is due).
    pub fn workspace(&self) -> cogmem::Result<cogmem::Workspace> {
        let ws = self.discover()?;
        // A change killed half-way is undone by whoever takes the lock next; done here, before
        // the command, it is said so, with the ref that keeps what it left (issue 16).
        match cogmem::ops::recovery::finish_interrupted(&ws) {
            Ok(Some(r)) => render::recovered(self.style, &r),
            Ok(None) => {}
            // A writer's own lock fails the same way and says so; a reader goes on.
            Err(e) => render::warning(
                self.style,
                &format!("a change that was killed half-way could not be undone yet: {e}"),
            ),
        }
        self.finish_purge(&ws)?;
        self.adopt(&ws);
        Ok(ws)
    }

    /// [`Ctx::workspace`] for a command that stays (`mcp`, `serve`, `watch`): it brings the
    /// search index up to date after its own changes itself, instead of starting a process per
    /// change that it would then wait for. (A hook reads nothing after its own write: its
    /// update runs in the background, as a command's does.)
    pub fn resident_workspace(&self) -> cogmem::Result<cogmem::Workspace> {
        let ws = self.workspace()?;
        let mut options = ws.options().clone();
        options.on_index_update = None;
        Ok(ws.with_options(options))
    }

    /// [`Ctx::workspace`] for `verify` and `doctor`, which report a killed change's journal
    /// (and `doctor --fix` undoes it) themselves.
    pub fn workspace_as_found(&self) -> cogmem::Result<cogmem::Workspace> {
        let ws = self.discover()?;
        self.finish_purge(&ws)?;
        Ok(ws)
    }

    /// Finds the workspace and nothing else: no recovery, purge or adoption, so nothing in it
    /// is touched (`setup`, which only needs its path).
    pub fn discover(&self) -> cogmem::Result<cogmem::Workspace> {
        let explicit = self.global.workspace.as_deref().or(self.env.workspace.as_deref());
        let ws = cogmem::workspace::discover::discover(explicit, &self.cwd)?;
        Ok(ws.with_options(self.workspace_options()?))
    }

    /// A purge that was killed half-way leaves a record; the next command finishes it before
    /// doing anything else (issue 16).
    fn finish_purge(&self, ws: &cogmem::Workspace) -> cogmem::Result<()> {
        if cogmem::ops::purge::is_pending(ws)
            && let Some(r) = cogmem::ops::purge::finish_pending(ws, self.clock()?.as_ref())?
        {
            render::status(
                self.global.quiet,
                &format!("finished an interrupted purge (tombstone {})\n", r.entry),
            );
        }
        Ok(())
    }

    /// Prints a `hint:` line to stderr, after a blank line.
    pub(crate) fn hint(&self, text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "\n{} {text}", self.style.hint("hint:"));
    }

    /// Settles the commits made outside cogmem since the last one it knows (`ops::adopt`):
    /// a writing command adopts them in one `system:adopt` commit before it starts; a read
    /// commits nothing and warns. Never fails the command: what cannot be adopted now is
    /// adopted by a later one, and `verify` reports it meanwhile.
    fn adopt(&self, ws: &cogmem::Workspace) {
        use cogmem::ops::adopt;
        let quiet = self.global.quiet;
        // A workspace whose history cannot be read fails the command itself, with its error.
        let Ok(waiting) = adopt::pending(ws) else { return };
        if waiting.is_empty() {
            return;
        }
        if !self.writes {
            let n = waiting.len();
            let verb = if n == 1 { "is" } else { "are" };
            render::warning(
                self.style,
                &format!(
                    "{} made outside cogmem {verb} not adopted yet (decay entries, graph \
                     index, audit lines)",
                    sync::commits(n)
                ),
            );
            self.hint("run `cogmem sync` to adopt them");
            return;
        }
        let result = self.clock().and_then(|clock| adopt::adopt(ws, clock.as_ref()));
        match result {
            Ok(r) => {
                render::status(quiet, &sync::adopted(&r));
                sync::warn_adopted_secrets(self.style, &r);
            }
            // The command waits for the lock itself and says so if it stays taken.
            Err(e) if e.is_locked() => {}
            Err(e) => {
                render::warning(
                    self.style,
                    &format!("could not adopt the commits made outside cogmem: {e}"),
                );
                self.hint("run `cogmem sync` once the problem is fixed");
            }
        }
    }

    /// The environment's workspace options, with the actor as the caller, so that a sub-agent
    /// is refused every write but a proposal whatever actor the command commits as.
    pub fn workspace_options(&self) -> cogmem::Result<cogmem::workspace::WorkspaceOptions> {
        Ok(cogmem::workspace::WorkspaceOptions {
            caller: Some(self.actor()?),
            progress: self.progress.clone(),
            ..self.env.workspace_options()
        })
    }

    pub fn clock(&self) -> cogmem::Result<Box<dyn cogmem::Clock>> {
        Ok(self.env.clock()?)
    }

    /// The actor given with `--actor` or COGMEM_ACTOR (as [`Ctx::actor`] resolves it), or
    /// `None` when nobody is named, for commands with a default of their own.
    pub fn named_actor(&self) -> cogmem::Result<Option<cogmem::audit::Actor>> {
        let named = self.global.actor.is_some() || self.env.actor.is_some();
        named.then(|| self.actor()).transpose()
    }

    pub fn actor(&self) -> cogmem::Result<cogmem::audit::Actor> {
        Ok(self.env.actor(self.global.actor.as_deref(), self.stdin_is_terminal)?)
    }
}

/// Tells whether a command may commit, and so adopts the commits made outside cogmem before
/// it starts (issue 17). Reads (`search`, `status`, `verify`, …) never commit; they warn.
/// `sync` and `watch` adopt inside `ops::sync`; `mcp` in its writing tools.
fn writes(command: &Command) -> bool {
    match command {
        Command::Remember(_)
        | Command::Restore(_)
        | Command::Import(_)
        | Command::Supersede(_)
        | Command::Propose(_)
        | Command::Pin(_)
        | Command::Unpin(_) => true,
        Command::Forget(a) => a.writes(),
        Command::Decay(a) => a.writes(),
        Command::Upkeep(a) => a.writes(),
        Command::Pending(a) => a.writes(),
        Command::Flag(a) => a.writes(),
        Command::Graph(a) => a.writes(),
        Command::Reflect(a) => a.writes(),
        Command::Identity(a) => a.writes(),
        Command::Audit(a) => a.writes(),
        Command::Doctor(a) => a.writes(),
        Command::Init(_)
        | Command::Route(_)
        | Command::Search(_)
        | Command::Recall(_)
        | Command::Show(_)
        | Command::Reindex(_)
        | Command::Context(_)
        | Command::Why(_)
        | Command::Touch(_)
        | Command::Status(_)
        | Command::Sync(_)
        | Command::Watch(_)
        | Command::Verify(_)
        | Command::Completions(_)
        | Command::Man(_)
        // The hook's operations (remember, import) adopt for themselves, best effort, so a
        // prompt never waits on it here, and so do `hear`'s (a remember trigger writes through
        // `remember`; any other message, and a dry run, write nothing); setup writes host
        // configuration, not memory.
        | Command::Hear(_)
        | Command::Hook(_)
        | Command::Setup(_)
        | Command::MergeIndex(_)
        | Command::UpdateIndex(_)
        | Command::Mcp(_)
        | Command::Serve(_) => false,
    }
}

/// Parses the command line as `Cli::try_parse_from` does, but with `--color` (whose value
/// the parser has not read when it fails) deciding the colours of its own usage error too.
fn parse(args: &[OsString]) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = Cli::command();
    if let Some(choice) = color_flag(args) {
        cmd = cmd.color(choice);
    }
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

/// The last `--color VALUE` or `--color=VALUE` before a `--`, as the parser would read it.
fn color_flag(args: &[OsString]) -> Option<clap::ColorChoice> {
    let mut choice = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            Some("--") => break,
            Some("--color") => words.next().flatten(),
            Some(w) => w.strip_prefix("--color="),
            None => None,
        };
        choice = match value.map(str::to_ascii_lowercase).as_deref() {
            Some("always") => Some(clap::ColorChoice::Always),
            Some("never") => Some(clap::ColorChoice::Never),
            Some("auto") => Some(clap::ColorChoice::Auto),
            _ => choice,
        };
    }
    choice
}

/// Runs the command line and returns the exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match parse(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let hook = exit::is_hook(&<Cli as clap::CommandFactory>::command(), &args);
            let code = if hook { exit::Exit::User } else { exit::Exit::Usage };
            return exit::usage(&e, &args, code, &mut std::io::stderr().lock());
        }
    };
    cogmem::git::read_objects_as_git_does();
    let mut env = env::Env::read();
    let timings = env.timings;
    if timings {
        // COGMEM_TIMINGS=1: where the time went, phase by phase, on stderr (for benchmarks).
        if !cogmem::timing::COMPILED {
            eprintln!(
                "warning: COGMEM_TIMINGS is ignored: cogmem was built without the `timings` feature"
            );
        }
        cogmem::timing::enable();
    }
    let style = Style::new(cli.global.color, env.no_color);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let writes = writes(&cli.command);
    // The MCP server, a host's hook and `watch` run unattended: no bars from the work they do.
    let progress = match cli.command {
        Command::Mcp(_) | Command::Hook(_) | Command::Watch(_) | Command::Serve(_) => None,
        _ => progress::sink(
            cli.global.quiet,
            cli.global.json,
            style.is_diagnostics_color(),
            env.progress_delay(),
        ),
    };
    // Agents inherit the environment: a person it names counts only at a terminal.
    let unattended = matches!(cli.command, Command::Mcp(_) | Command::Hook(_));
    let left_out = if cli.global.actor.is_none() {
        env.leave_out_inherited_person(stdin_is_terminal && !unattended)
    } else {
        None
    };
    // Said where the actor is recorded: a reading command ignores it, and an agent would read
    // the warning on every search.
    let records_actor = writes
        || matches!(
            cli.command,
            Command::Mcp(_) | Command::Hook(_) | Command::Sync(_) | Command::Watch(_)
        );
    let ctx = Ctx { global: cli.global, env, style, cwd, stdin_is_terminal, writes, progress };
    if let Some(person) = left_out.filter(|_| records_actor) {
        render::warning(
            style,
            &format!(
                "{}={person} is ignored without a person at the terminal (agents, hooks and the \
                 MCP server inherit the environment)",
                env::ACTOR
            ),
        );
        ctx.hint(&format!("name yourself on your own command instead: `--actor {person}`"));
    }
    let result = match cli.command {
        Command::Init(args) => init::run(&ctx, &args),
        Command::Remember(args) => remember::run(&ctx, &args),
        Command::Hear(args) => hear::run(&ctx, &args),
        Command::Hook(args) => hook::run(&ctx, &args),
        Command::Route(args) => route::run(&ctx, &args),
        Command::Forget(args) => forget::run(&ctx, &args),
        Command::Restore(args) => forget::run_restore(&ctx, &args),
        Command::Search(args) => search::run(&ctx, &args),
        Command::Recall(args) => search::run_recall(&ctx, &args),
        Command::Show(args) => search::run_show(&ctx, &args),
        Command::Reindex(args) => search::run_reindex(&ctx, &args),
        Command::Import(args) => import::run(&ctx, &args),
        Command::Context(args) => context::run(&ctx, &args),
        Command::Graph(args) => graph::run(&ctx, &args),
        Command::Supersede(args) => graph::run_supersede(&ctx, &args),
        Command::Propose(args) => pending::run_propose(&ctx, &args),
        Command::Pending(args) => pending::run_pending(&ctx, &args),
        Command::Flag(args) => flag::run(&ctx, &args),
        Command::Reflect(args) => reflect::run(&ctx, &args),
        Command::Identity(args) => identity::run(&ctx, &args),
        Command::Decay(args) => decay::run(&ctx, &args),
        Command::Upkeep(args) => upkeep::run(&ctx, &args),
        Command::Pin(args) => decay::run_pin(&ctx, &args, true),
        Command::Unpin(args) => decay::run_pin(&ctx, &args, false),
        Command::Why(args) => decay::run_why(&ctx, &args),
        Command::Touch(args) => decay::run_touch(&ctx, &args),
        Command::Status(args) => status::run(&ctx, &args),
        Command::Sync(args) => sync::run(&ctx, &args),
        Command::Watch(args) => watch::run(&ctx, &args),
        Command::Audit(args) => audit::run(&ctx, &args),
        Command::Verify(args) => doctor::run_verify(&ctx, &args),
        Command::Doctor(args) => doctor::run_doctor(&ctx, &args),
        Command::Completions(args) => shell::run_completions(&args),
        Command::Man(args) => shell::run_man(&args),
        Command::Mcp(args) => mcp::run(&ctx, &args),
        Command::Serve(args) => serve::run(&ctx, &args),
        Command::Setup(args) => setup::run(&ctx, &args),
        Command::MergeIndex(args) => merge::run(&ctx, &args),
        Command::UpdateIndex(args) => index_update::run(&ctx, &args),
    };
    let code = match result {
        Ok(exit) => exit.code(),
        Err(err) => exit::report(&err, ctx.style, &mut std::io::stderr().lock()),
    };
    if timings {
        cogmem::timing::mark("end");
        for (label, ms) in cogmem::timing::take() {
            eprintln!("timing: {ms:8.2} ms  {label}");
        }
    }
    code
}
