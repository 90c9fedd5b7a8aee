//! `cogmem search`, `recall`, `show` and `reindex`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::index::search::{Hit, SearchOptions, snippet};
use cogmem::ops::search as op;
use cogmem::ops::search::SearchFields;

use super::exit::Exit;
use super::{Ctx, input, render, vocab};

const SEARCH_EXAMPLES: &str = "Examples:
  # Everything that mentions Postgres, best match first
  cogmem search postgres
  # Only facts about entities, as JSON
  cogmem search \"Alice Lisbon\" --store semantic --json
  # Decisions about Atlas since the start of 2026
  cogmem search Atlas --type decision --since 2026-01-01
  # A plain question: its dates, and times named by an event, are read
  cogmem search \"what did we decide the week before the launch?\"
  # The same, saying first how it was read and which memory \"the launch\" was taken to be
  cogmem search --explain \"what did we decide the week before the launch?\"
  # Include dormant memories, and show up to 30
  cogmem search deploy --all --limit 30";

const RECALL_EXAMPLES: &str = "Examples:
  # What is remembered about Alice, grouped by store (each result counts as a use)
  cogmem recall Alice
  # Only memories that name the Atlas project, as JSON for an agent
  cogmem recall MySQL --entity project--atlas --json
  # The five best matches, dormant memories included
  cogmem recall \"tea or coffee\" --all --limit 5";

const SHOW_EXAMPLES: &str = "Examples:
  # Alice's whole entity card, with its decay score
  cogmem show entity:person--alice
  # A core memory bullet by id (ids come from `cogmem search` and `cogmem recall`)
  cogmem show core:active-context:7fc6c745
  # The same as JSON, with the decay inputs
  cogmem show core:active-context:7fc6c745 --json";

const REINDEX_EXAMPLES: &str = "Examples:
  # Re-read the files that changed since the last search
  cogmem reindex
  # Throw the index away and rebuild it from the files
  cogmem reindex --full";

/// Filters shared by `search` and `recall`.
#[derive(Args, Debug, Clone)]
pub struct Filters {
    /// Only this store
    #[arg(long, value_name = "STORE", value_parser = vocab::stores(), ignore_case = true)]
    store: Option<String>,
    /// Only this kind: an episode type (decision, fact, …) or an entity type (person, …)
    #[arg(long = "type", value_name = "TYPE")]
    kind: Option<String>,
    /// Only memories that name this entity (`TYPE--SLUG` or `entity:TYPE--SLUG`)
    #[arg(long, value_name = "TYPE--SLUG")]
    entity: Option<String>,
    /// Only memories dated on or after this day: YYYY-MM-DD, an age (`7d`) or relative words
    /// (`yesterday`, `last week` from its Monday, `先月` from its first day)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only memories dated on or before this day: YYYY-MM-DD, an age (`7d`) or relative words
    /// (`yesterday`, `last week` to its Sunday, `先月` to its last day)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// At most this many results
    #[arg(long, default_value_t = op::DEFAULT_LIMIT, value_name = "N")]
    limit: usize,
    /// Include dormant memories (archived ones never come back; ask for them with `show ID`)
    #[arg(long)]
    all: bool,
}

impl Filters {
    /// The search options; a time or an age stands for its day in `now`'s offset.
    fn options(&self, now: &cogmem::Timestamp) -> cogmem::Result<SearchOptions> {
        SearchFields {
            store: self.store.clone(),
            kind: self.kind.clone(),
            entity: self.entity.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            limit: Some(self.limit),
            all: self.all,
        }
        .to_options(now)
    }
}

/// Search memories: best matches first, core memory first
///
/// Ranks by BM25 (English stemming; Japanese and Chinese by character pairs) weighted by each
/// memory's decayed relevance. Dormant memories only with `--all`; archived (forgotten or faded)
/// ones never. The derived index in .cogmem/ is brought up to date first — only files that
/// changed are re-read, hand edits included. Searching does not count as a use; `recall` does.
#[derive(Args, Debug)]
#[command(after_long_help = SEARCH_EXAMPLES)]
pub struct SearchArgs {
    /// What to search for, or `-` for stdin
    query: String,
    #[command(flatten)]
    filters: Filters,
    /// Show how the query was read first: the kind of answer wanted, who it asks about, its
    /// terms, the terms added, and the days it names (by a date or by an event, with the
    /// memory the event's date came from). With --json: {"reading": …, "hits": […]}
    #[arg(long)]
    explain: bool,
}

/// Recall what is remembered about something: search, grouped by store, counted as a use
///
/// The agent-facing search: same ranking as `search`, results grouped by store with core
/// memory first, and every result counts as a use, which keeps it from fading (recorded in
/// .cogmem/access.log, folded in by the next change or `cogmem decay`).
#[derive(Args, Debug)]
#[command(after_long_help = RECALL_EXAMPLES)]
pub struct RecallArgs {
    /// What to recall, or `-` for stdin
    query: String,
    #[command(flatten)]
    filters: Filters,
}

/// Show one memory in full, with its context and decay inputs; counts as a use
///
/// An episode entry is shown with the entries around it, an entity with its whole file.
/// Archived memories can be shown by id.
#[derive(Args, Debug)]
#[command(after_long_help = SHOW_EXAMPLES)]
pub struct ShowArgs {
    /// The memory's id (`episode:…`, `entity:TYPE--SLUG` or just `TYPE--SLUG`, `procedure:…`, `vault:…`,
    /// `core:…`), or the start of exactly one id
    id: String,
}

/// Bring the search index up to date with the files (or rebuild it with --full)
///
/// The index in .cogmem/index is derived: deleting it loses nothing. Searches refresh it by
/// themselves; use this after a large hand edit, or with --full if you suspect it.
#[derive(Args, Debug)]
#[command(after_long_help = REINDEX_EXAMPLES)]
pub struct ReindexArgs {
    /// Rebuild from scratch instead of re-reading only changed files
    #[arg(long)]
    full: bool,
}

fn render_hits(ctx: &Ctx, hits: &[Hit], query: &str, out: &mut String) {
    let bold = ctx.style.is_data_color();
    for h in hits {
        let date = h.date.as_deref().unwrap_or("");
        // A hit the embedding model found shows its cosine with the query instead of a score.
        let score = match h.via {
            Some(via) => format!("{via}, cosine {:.2}", h.cosine),
            None => format!("{:.2}", h.score),
        };
        let _ = writeln!(
            out,
            "{}:{}  {}  {date}  {} ({}, {score})",
            h.path,
            h.line,
            h.store,
            h.id,
            h.status.as_str(),
        );
        out.push_str("    ");
        for (piece, hit) in snippet(&h.text, query, 24) {
            if hit && bold {
                let _ = write!(out, "\x1b[1m{piece}\x1b[0m");
            } else {
                out.push_str(&piece);
            }
        }
        out.push('\n');
    }
}

/// How the query was read, a line each, before the hits (`search --explain`).
fn render_reading(r: &cogmem::index::search::Reading, out: &mut String) {
    let _ = writeln!(out, "wants: {}", r.wants);
    if !r.people.is_empty() {
        let _ = writeln!(out, "about: {}", r.people.join(", "));
    }
    let _ = writeln!(out, "terms: {}", r.terms.join(", "));
    if !r.added.is_empty() {
        let _ = writeln!(out, "added: {}", r.added.join(", "));
    }
    for d in &r.days {
        let days = d.span();
        match &d.from {
            Some(id) => writeln!(out, "days: {days} ({}: {id})", d.by),
            None => writeln!(out, "days: {days} ({})", d.by),
        }
        .ok();
    }
    out.push('\n');
}

fn warn_skipped(ctx: &Ctx, refresh: &cogmem::index::RefreshReport) -> Exit {
    warn_unreadable(ctx, &refresh.skipped)
}

/// Warns of each file a read went on without; `Partial` when there is one.
pub(super) fn warn_unreadable(ctx: &Ctx, skipped: &[cogmem::store::units::Unreadable]) -> Exit {
    for s in skipped {
        render::warning(ctx.style, &format!("skipped {}", s.error));
    }
    if skipped.is_empty() { Exit::Ok } else { Exit::Partial }
}

pub fn run(ctx: &Ctx, args: &SearchArgs) -> cogmem::Result<Exit> {
    let query = input::text_or_stdin(&args.query)?;
    let clock = ctx.clock()?;
    let opts = args.filters.options(&clock.now())?;
    let ws = ctx.workspace()?;
    let report = op::search(&ws, &query, &opts, clock.as_ref())?;
    if let Some(w) = &report.warning {
        render::warning(ctx.style, w);
    }
    if ctx.global.json && args.explain {
        render::json(&serde_json::json!({ "reading": report.reading, "hits": report.hits }))?;
    } else if ctx.global.json {
        render::json(&report.hits)?;
    } else {
        let mut out = String::new();
        if args.explain {
            render_reading(&report.reading, &mut out);
        }
        render_hits(ctx, &report.hits, &query, &mut out);
        render::data(&out)?;
        if report.hits.is_empty() {
            render::status(ctx.global.quiet, "no matches\n");
        }
    }
    Ok(warn_skipped(ctx, &report.refresh))
}

pub fn run_recall(ctx: &Ctx, args: &RecallArgs) -> cogmem::Result<Exit> {
    let query = input::text_or_stdin(&args.query)?;
    let clock = ctx.clock()?;
    let opts = args.filters.options(&clock.now())?;
    let ws = ctx.workspace()?;
    let report = op::recall(&ws, &query, &opts, clock.as_ref())?;
    if let Some(w) = &report.warning {
        render::warning(ctx.style, w);
    }
    if ctx.global.json {
        render::json(&report.groups)?;
    } else {
        let mut out = String::new();
        for g in &report.groups {
            let _ = writeln!(out, "{}:", g.store);
            render_hits(ctx, &g.hits, &query, &mut out);
        }
        render::data(&out)?;
        if report.groups.is_empty() {
            render::status(ctx.global.quiet, "nothing remembered about that\n");
        }
    }
    Ok(warn_skipped(ctx, &report.refresh))
}

pub fn run_show(ctx: &Ctx, args: &ShowArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let shown = cogmem::ops::decay::show(&ws, &args.id, clock.as_ref())?;
    if ctx.global.json {
        render::json(&shown)?;
        return Ok(warn_unreadable(ctx, &shown.skipped));
    }
    let u = &shown.unit;
    let mut out = format!("{}  {}:{}  ({} store", u.id, u.path, u.line, u.store.as_str());
    if let Some(w) = &shown.why {
        let _ = write!(out, ", {} {:.3}", w.band.as_str(), w.score);
    }
    out.push_str(")\n");
    if let Some(w) = &shown.why {
        let _ = writeln!(out, "{}", w.formula);
    }
    out.push('\n');
    for c in &shown.context {
        if c.id == u.id {
            let _ = writeln!(out, "> {}", c.text);
        } else {
            let _ = writeln!(out, "  {}", c.text);
        }
    }
    if shown.context.is_empty() {
        out.push_str(u.text.trim_end());
        out.push('\n');
    }
    render::data(&out)?;
    Ok(warn_unreadable(ctx, &shown.skipped))
}

pub fn run_reindex(ctx: &Ctx, args: &ReindexArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let report = op::reindex(&ws, args.full)?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let how = if report.rebuilt { "rebuilt" } else { "refreshed" };
        render::status(
            ctx.global.quiet,
            &format!(
                "{how} the index: {} files re-read, {} removed, {} documents\n",
                report.changed.len(),
                report.removed.len(),
                report.documents
            ),
        );
    }
    Ok(warn_skipped(ctx, &report))
}
