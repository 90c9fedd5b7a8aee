//! `cogmem remember`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::remember::{self, RememberFields, RememberRequest};

use super::exit::Exit;
use super::{Ctx, render, vocab};

const EXAMPLES: &str = "Examples:
  # Remember a preference as a fact about a person
  cogmem remember --entity person--alice \"Alice prefers tea over coffee\"
  # Record a decision in today's episode log and in core memory (MEMORY.md)
  cogmem remember --type decision --store episodic --store core \"We chose Postgres for Atlas\"
  # Link two entities; each entity file gets the relation
  cogmem remember --relation 'person--alice|works-on|project--atlas' \"Alice works on Atlas\"
  # Save a procedure from stdin: the first line is the title, the others are steps
  printf 'Deploy Atlas\\nRun migrations\\nRestart the app\\n' | cogmem remember --store procedural -";

/// Store a memory and commit it
///
/// Writes TEXT to each chosen store in that store's file format, records a decay entry for
/// every new memory, appends one line per changed file to memory/meta/audit.log and makes
/// exactly one git commit, authored by the actor. Text that is already remembered is not
/// written twice.
///
/// Stores: `episodic` (today's episode log; the default), `semantic` (a fact on each
/// `--entity`; implied by --entity and --relation), `core` (a bullet in MEMORY.md, refused
/// with exit 4 if it would exceed the token budget), `procedural` (a procedure: the first line
/// is the title unless --title is given, the other lines are steps), `vault` (a pinned note
/// that never decays).
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct RememberArgs {
    /// The text to remember, or `-` to read it from stdin (at most `limits.text_bytes`, 64 KiB
    /// by default)
    text: String,
    /// Store to write to (can be repeated, or comma-separated)
    #[arg(
        long = "store",
        value_name = "STORE",
        value_parser = vocab::stores(),
        ignore_case = true,
        value_delimiter = ','
    )]
    stores: Vec<String>,
    /// Episode entry type
    #[arg(long = "type", value_name = "TYPE", value_parser = vocab::entry_types(), ignore_case = true)]
    entry_type: Option<String>,
    /// Entity the fact is about, as TYPE--SLUG, e.g. person--alice (can be repeated)
    #[arg(long = "entity", value_name = "TYPE--SLUG")]
    entities: Vec<String>,
    /// Relation between entities, as 'FROM|RELATION|TO' (can be repeated)
    #[arg(long = "relation", value_name = "FROM|REL|TO")]
    relations: Vec<String>,
    /// Comma-separated tags, e.g. `db,alice`
    #[arg(long, value_name = "A,B")]
    tags: Option<String>,
    /// How sure the memory is (default: high)
    #[arg(long, value_name = "LEVEL", value_parser = vocab::confidences(), ignore_case = true)]
    confidence: Option<String>,
    /// When it happened, for the episode entry (default: now): RFC 3339, `YYYY-MM-DD HH:MM`,
    /// `YYYY-MM-DD`, `HH:MM`, an age (`2h`) or relative words (`yesterday`, `next friday`,
    /// `3 days ago`, `昨日`, `3日前`)
    #[arg(long, value_name = "TIME")]
    at: Option<String>,
    /// MEMORY.md section for --store core (its heading, `Active Context`, works too)
    #[arg(long, value_name = "SECTION", value_parser = vocab::sections(), ignore_case = true)]
    section: Option<String>,
    /// Title of the procedure or vault note (default: the text's first line or words)
    #[arg(long, value_name = "TITLE")]
    title: Option<String>,
    /// Route by a model's JSON answer to `cogmem route --prompt` (inline, or `@FILE`)
    #[arg(long, value_name = "JSON|@FILE", conflicts_with_all = ["stores", "entry_type", "entities", "relations", "tags", "confidence", "section", "title"])]
    routing: Option<String>,
    /// Write the text even if it looks like a credential (a key, a token, `password=`…)
    #[arg(long)]
    allow_secret: bool,
}

impl RememberArgs {
    fn to_request(&self, ctx: &Ctx, now: &cogmem::Timestamp) -> cogmem::Result<RememberRequest> {
        let text = super::input::text_or_stdin(&self.text)?;
        let fields = RememberFields {
            text,
            stores: self.stores.clone(),
            entry_type: self.entry_type.clone(),
            entities: self.entities.clone(),
            relations: self.relations.clone(),
            tags: self.tags.iter().cloned().collect(),
            confidence: self.confidence.clone(),
            at: self.at.clone(),
            section: self.section.clone(),
            title: self.title.clone(),
            allow_secret: self.allow_secret,
        };
        fields.to_request(ctx.actor()?, now)
    }
}

pub fn run(ctx: &Ctx, args: &RememberArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let report = if let Some(routing) = &args.routing {
        let json = match routing.strip_prefix('@') {
            Some(file) => cogmem::store::fsx::read_text(
                &ctx.cwd.join(file),
                cogmem::store::fsx::DEFAULT_FILE_LIMIT,
            )?,
            None => routing.clone(),
        };
        let text = super::input::text_or_stdin(&args.text)?;
        let ws = ctx.workspace()?;
        remember::remember_routing(
            &ws,
            &text,
            &json,
            args.at.as_deref(),
            ctx.actor()?,
            args.allow_secret,
            clock.as_ref(),
        )?
    } else {
        let req = args.to_request(ctx, &clock.now())?;
        let ws = ctx.workspace()?;
        remember::remember(&ws, &req, clock.as_ref())?
    };
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = String::new();
    if let Some(id) = &report.commit {
        let _ = writeln!(msg, "remembered (commit {})", render::short(id));
        for u in &report.written {
            let _ = writeln!(msg, "  {:<10} {}  {}:{}", u.store.as_str(), u.id, u.path, u.line);
        }
    }
    for id in &report.revived {
        let _ = writeln!(msg, "  {}", render::revived_line(id));
    }
    if !report.duplicates.is_empty() {
        let _ = writeln!(msg, "already remembered, not written again:");
        for u in &report.duplicates {
            let _ = writeln!(msg, "  {:<10} {}  {}:{}", u.store.as_str(), u.id, u.path, u.line);
        }
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}
