//! `cogmem recall` and `cogmem show`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::decay::{self as op, RecallOptions};

use super::exit::Exit;
use super::{Ctx, input, render};

/// Find what is remembered about something, and count it as used
///
/// Ranks matching memories by how well they match times their decayed relevance; core memory
/// ranks first. Archived (forgotten or faded) memories are never returned; dormant ones only
/// with `--all`. The results count as uses, which keeps them fresh: they are recorded in
/// .cogmem/access.log (no commit) and folded in by the next change or `cogmem decay`.
#[derive(Args, Debug)]
pub struct RecallArgs {
    /// What to recall, or `-` for stdin
    query: String,
    /// Include dormant memories
    #[arg(long)]
    all: bool,
    /// At most this many results
    #[arg(long, default_value_t = 10, value_name = "N")]
    limit: usize,
}

/// Show one memory in full, by id (archived ones too), and count it as used
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The memory's id
    id: String,
}

pub fn run(ctx: &Ctx, args: &RecallArgs) -> cogmem::Result<Exit> {
    let query = input::text_or_stdin(&args.query)?;
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let results = op::recall(
        &ws,
        &query,
        RecallOptions { all: args.all, limit: args.limit, reinforce: true },
        clock.as_ref(),
    )?;
    if ctx.global.json {
        render::json(&results)?;
        return Ok(Exit::Ok);
    }
    let mut out = String::new();
    for r in &results {
        let c = &r.candidate;
        let _ = writeln!(
            out,
            "{}  {}:{}  ({}, {:.2})\n    {}",
            c.id,
            c.path,
            c.line,
            r.band.as_str(),
            r.relevance,
            c.excerpt
        );
    }
    render::data(&out)?;
    if results.is_empty() {
        render::status(ctx.global.quiet, "nothing remembered about that\n");
    }
    Ok(Exit::Ok)
}

pub fn run_show(ctx: &Ctx, args: &ShowArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let shown = op::show(&ws, &args.id, clock.as_ref())?;
    if ctx.global.json {
        render::json(&shown)?;
        return Ok(Exit::Ok);
    }
    let u = &shown.unit;
    let mut out = format!("{}  {}:{}  ({} store", u.id, u.path, u.line, u.store.as_str());
    if let Some(w) = &shown.why {
        let _ = write!(out, ", {} {:.3}", w.band.as_str(), w.score);
    }
    out.push_str(")\n\n");
    out.push_str(u.text.trim_end());
    out.push('\n');
    render::data(&out)?;
    Ok(Exit::Ok)
}
