//! `cogmem import`.

use clap::{Args, ValueEnum};

use cogmem::ops::import::{self, ImportInput};

use super::exit::Exit;
use super::{Ctx, render};

const EXAMPLES: &str = "Examples:
  # Import a chat transcript as episode entries, in one commit
  cogmem import chat.jsonl
  # Fail on the first bad line instead of skipping it
  cogmem import --strict chat.jsonl
  # Read the transcript from stdin
  cat chat.jsonl | cogmem import -
  # A Claude Code session, or a Codex rollout: user and assistant text only, tagged transcript
  cogmem import --format claude-code ~/.claude/projects/-home-me-app/5f1c….jsonl
  cogmem import --format codex ~/.codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-….jsonl

A line of chat.jsonl (`id` and `type` are optional):
  {\"timestamp\": \"2026-05-08T13:56:00Z\", \"speaker\": \"Alice\", \"text\": \"Use Postgres\", \"id\": \"D1:1\"}";

/// Import a conversation transcript as episode entries, one commit per import
///
/// With --format jsonl (the default), reads JSON Lines: one object per line with `timestamp` (RFC 3339 or YYYY-MM-DD), `speaker`
/// (or `role`), `text`, and optionally `id`, `type` (an episode type; default `event`) and
/// `entities` (entity ids such as `person--alice`). Each message becomes an episode entry on its
/// date, in order, as "**speaker:** text", with the `id` kept as its source (shown by `search`)
/// and its entities as wiki links on an `<!-- entities: … -->` line. Importing the same file again adds nothing.
/// Bad lines are reported with their line number and skipped (exit 3), or with --strict fail
/// the whole import.
///
/// --format claude-code reads a Claude Code session transcript and --format codex a Codex CLI
/// rollout: only what the user and the assistant said (no tool calls, tool results, thinking
/// or injected instructions), each message once (by its id: Claude Code's `uuid`, a rollout's
/// session and line), as "**user:** …" or "**assistant:** …", tagged `transcript` and the
/// host's name. Reflection input leaves transcript entries out.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct ImportArgs {
    /// The transcript file, or `-` for stdin
    file: String,
    /// The input format
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
    /// Fail on the first bad line instead of skipping it
    #[arg(long)]
    strict: bool,
    /// Import even lines that look like credentials (keys, tokens, `password=`…)
    #[arg(long)]
    allow_secret: bool,
}

/// Input formats.
#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum Format {
    /// JSON Lines: one message object per line
    Jsonl,
    /// A Claude Code session transcript (~/.claude/projects/…/SESSION.jsonl)
    ClaudeCode,
    /// A Codex CLI rollout (~/.codex/sessions/…/rollout-….jsonl)
    Codex,
}

impl From<Format> for cogmem::ops::import::Format {
    fn from(f: Format) -> Self {
        match f {
            Format::Jsonl => Self::Jsonl,
            Format::ClaudeCode => Self::ClaudeCode,
            Format::Codex => Self::Codex,
        }
    }
}

pub fn run(ctx: &Ctx, args: &ImportArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let opts = cogmem::ops::import::ImportOptions {
        format: args.format.into(),
        strict: args.strict,
        allow_secret: args.allow_secret,
        skip_secrets: false,
    };
    // Named with each bad line, as the hook and the errors name it.
    let origin = if args.file == "-" {
        "<stdin>".to_owned()
    } else {
        ctx.cwd.join(&args.file).display().to_string()
    };
    // The input is streamed, never read whole (issue 20).
    let report = if args.file == "-" {
        let stdin = std::io::stdin();
        let mut reader = stdin.lock();
        let origin = std::path::Path::new("<stdin>");
        let input = ImportInput { reader: &mut reader, name: "stdin", origin };
        import::import(&ws, input, &opts, ctx.actor()?, clock.as_ref())?
    } else {
        let path = ctx.cwd.join(&args.file);
        let name = path
            .file_stem()
            .map_or_else(|| "import".to_owned(), |s| s.to_string_lossy().into_owned());
        let file = cogmem::store::fsx::open_read(&path)?;
        let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
        let input = ImportInput { reader: &mut reader, name: &name, origin: &path };
        import::import(&ws, input, &opts, ctx.actor()?, clock.as_ref())?
    };
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let commit = report
            .commit
            .as_deref()
            .map_or_else(|| "no commit".to_owned(), |c| format!("commit {}", render::short(c)));
        render::status(
            ctx.global.quiet,
            &format!(
                "imported {} into {}, {} already there ({commit})\n",
                count(report.imported, "message"),
                count(report.days.len(), "day"),
                report.duplicates
            ),
        );
    }
    for b in &report.skipped {
        render::warning(ctx.style, &format!("skipped {origin}:{}: {}", b.line, b.error));
    }
    Ok(if report.skipped.is_empty() { Exit::Ok } else { Exit::Partial })
}

/// `1 message`, `2 messages`: a count with its noun.
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
