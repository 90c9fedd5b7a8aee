//! `cogmem route`.

use clap::Args;
use cogmem::ops::hear;
use cogmem::route;

use super::exit::Exit;
use super::{Ctx, input, render};

const EXAMPLES: &str = "Examples:
  # Where cogmem would store this, and why, as JSON; nothing is written
  cogmem route \"Alice moved to Lisbon\"
  # Write the routing prompt for your own model to answer
  cogmem route --prompt --trigger \"remember that\" \"Alice moved to Lisbon\" > prompt.txt
  # Store the memory where the model's answer (saved as answer.json) says
  cogmem remember --routing @answer.json \"Alice moved to Lisbon\"";

/// Show where a memory would be stored, or the prompt that asks a model
///
/// Without `--prompt`, prints cogmem's own routing decision as JSON: stores, entities,
/// relations, tags, confidence, core_update, summary, type, and a reason for every choice.
/// Nothing is written.
///
/// With `--prompt`, prints the routing prompt for the host agent's model instead. Feed the
/// model's JSON answer back with `cogmem remember --routing ANSWER TEXT`.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct RouteArgs {
    /// The content to route, or `-` for stdin
    text: String,
    /// Print the prompt for the host model instead of routing here
    #[arg(long)]
    prompt: bool,
    /// The trigger phrase the user used, for the prompt
    #[arg(long, value_name = "PHRASE", default_value = "")]
    trigger: String,
    /// A summary of the recent conversation, for the prompt
    #[arg(long, value_name = "TEXT", default_value = "")]
    context: String,
}

pub fn run(ctx: &Ctx, args: &RouteArgs) -> cogmem::Result<Exit> {
    let text = cogmem::ops::remember::check_text(&input::text_or_stdin(&args.text)?)?;
    let ws = ctx.workspace()?;
    cogmem::ops::remember::check_size(&ws, &text)?;
    if args.prompt {
        let prompt = hear::routing_prompt(&ws, &text, &args.trigger, &args.context)?;
        if ctx.global.json {
            render::json(&serde_json::json!({ "prompt": prompt }))?;
        } else {
            render::data(&prompt)?;
        }
        return Ok(Exit::Ok);
    }
    let rc = hear::context_from_index(&ws)?;
    let trigger = (!args.trigger.is_empty()).then_some(args.trigger.as_str());
    render::json(&route::route(&text, trigger, &rc))?;
    Ok(Exit::Ok)
}
