//! `cogmem context`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::context::{self as op, ContextOptions, Encoding};

use super::exit::Exit;
use super::{Ctx, render, vocab};

const EXAMPLES: &str = "Examples:
  # The pack for a new conversation: core memory and the last week's episodes
  cogmem context --budget 1500
  # The pack for a topic, with the receipt of what was left out and why
  cogmem context \"database migration\" --budget 800 --json
  # Count tokens with the o200k_base tokenizer (GPT-4o and later)
  cogmem context Atlas --encoding o200k_base";

/// Print the memory pack an agent puts in its prompt, within a token budget
///
/// Core memory first, then the memories that best match QUERY (or, without one, the most
/// relevant episodes of the last week), then the cards of the entities they name — packed to
/// fit --budget tokens counted with a real tokenizer, never over. Each memory goes in once: an
/// entity the query finds comes as its card, and a card leaves out the lines already said
/// above it. Relations that were closed or point at a superseded entity are shown as history
/// (`formerly …`), never as current; there is no card for an entity that is empty, has
/// nothing current, or was named only by memories left out. --json adds the receipt: every
/// candidate, selected (and why) or suppressed (archived, superseded by …, duplicate of …,
/// empty, nothing current, named only by left-out memories, below threshold, over budget).
/// The selected memories count as uses.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct ContextArgs {
    /// What the conversation is about (optional), or `-` to read it from stdin
    query: Option<String>,
    /// The most tokens the pack may take
    #[arg(long, default_value_t = 2000, value_name = "N")]
    budget: usize,
    /// Tokenizer (`estimate` loads no vocabulary)
    #[arg(long, default_value = "cl100k_base", value_name = "ENCODING", value_parser = vocab::encodings())]
    encoding: String,
    /// Leave out memories scoring below this share of the best match
    #[arg(long, default_value_t = 0.2, value_name = "SHARE", value_parser = parse_share)]
    threshold: f64,
}

pub fn run(ctx: &Ctx, args: &ContextArgs) -> cogmem::Result<Exit> {
    let encoding =
        Encoding::parse(&args.encoding).ok_or_else(|| cogmem::error::InputError::Unknown {
            what: "encoding",
            value: args.encoding.clone(),
            expected: "cl100k_base, o200k_base, estimate".into(),
        })?;
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let opts = ContextOptions { budget: args.budget, encoding, threshold: args.threshold };
    let query = args.query.as_deref().map(super::input::text_or_stdin).transpose()?;
    let pack = op::context(&ws, query.as_deref(), &opts, clock.as_ref())?;
    if ctx.global.json {
        render::json(&pack)?;
        return Ok(super::search::warn_unreadable(ctx, &pack.skipped));
    }
    render::data(&pack.text)?;
    let selected = pack.receipt.iter().filter(|r| r.decision == "selected").count();
    let mut msg = String::new();
    let _ = writeln!(
        msg,
        "{} of {} tokens; {selected} of {} candidates selected (--json shows the receipt)",
        pack.used_tokens,
        pack.budget_tokens,
        pack.receipt.len()
    );
    render::status(ctx.global.quiet, &msg);
    Ok(super::search::warn_unreadable(ctx, &pack.skipped))
}

/// A share between 0 and 1.
fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{text}` is not a share; give a number from 0 to 1, e.g. 0.2")),
    }
}
