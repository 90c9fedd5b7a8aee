//! `cogmem hear`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::hear::{self, HearOptions, HeardAction};

use super::exit::Exit;
use super::{Ctx, input, render};

const EXAMPLES: &str = "Examples:
  # The user asked to remember a preference: routed, written and committed
  cogmem hear \"Remember that I prefer TypeScript over JavaScript.\"
  # What a forget request would match, as JSON; nothing is written
  cogmem hear --dry-run --json \"please forget that Alice moved to Lisbon\"
  # The user asks what is remembered: lists what matches
  cogmem hear \"What do you remember about Alice?\"
  # Read the message from stdin; Japanese and Chinese triggers work too
  echo \"明日の会議は10時だと覚えておいて\" | cogmem hear -";

/// Act on a user's message: remember, forget, reflect or recall when asked
///
/// Pass every user message. Without a language model, cogmem decides whether the user asked to
/// remember something (then routes and writes it as one commit, actor `bot:trigger-remember`),
/// to forget something (then lists candidates; nothing is forgotten until confirmed with
/// `cogmem forget --id ID --yes`), to recall something (then lists what matches), to reflect,
/// or is wrapping up for the day (then suggests asking whether to reflect). An ordinary
/// message changes nothing and exits 0.
#[derive(Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct HearArgs {
    /// The user's message, or `-` to read it from stdin
    message: String,
    /// Detect and route, but write nothing
    #[arg(long)]
    dry_run: bool,
    /// Remember the message even if it looks like a credential (a key, a token, `password=`…)
    #[arg(long)]
    allow_secret: bool,
}

pub fn run(ctx: &Ctx, args: &HearArgs) -> cogmem::Result<Exit> {
    let message = input::text_or_stdin(&args.message)?;
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let caller = ctx.named_actor()?;
    let report = hear::hear(
        &ws,
        &message,
        &HearOptions {
            dry_run: args.dry_run,
            caller,
            allow_secret: args.allow_secret,
            ..Default::default()
        },
        clock.as_ref(),
    )?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut out = String::new();
    let trigger = report.trigger.map_or("none", |t| t.as_str());
    let _ = writeln!(out, "trigger: {trigger}");
    if let Some(p) = &report.phrase {
        let _ = writeln!(out, "phrase:  {p}");
    }
    if let Some(percent) = report.learned {
        let _ = writeln!(
            out,
            "  because the learned model is {percent}% sure of it (the phrase rules heard no request)"
        );
    }
    if let Some(c) = report.content.as_ref().filter(|c| !c.is_empty()) {
        let _ = writeln!(out, "content: {c}");
    }
    if let Some(r) = &report.routing {
        let stores: Vec<&str> = r.stores.iter().map(|s| s.as_str()).collect();
        let _ = writeln!(out, "stores:  {}", stores.join(", "));
        for reason in &r.reason {
            let _ = writeln!(out, "  because {reason}");
        }
    }
    match &report.action {
        HeardAction::None => {}
        HeardAction::Remembered { commit, dry_run, written, duplicates, revived } => {
            if *dry_run {
                let _ = writeln!(out, "dry run: nothing written");
            } else if let Some(id) = commit {
                let _ = writeln!(out, "remembered (commit {})", render::short(id));
            }
            for u in written {
                let _ = writeln!(out, "  {:<10} {}  {}:{}", u.store.as_str(), u.id, u.path, u.line);
            }
            for u in duplicates {
                let _ = writeln!(out, "  already remembered: {}  {}:{}", u.id, u.path, u.line);
            }
            for id in revived {
                let _ = writeln!(out, "  {}", render::revived_line(id));
            }
        }
        HeardAction::NothingToRemember => {
            let _ =
                writeln!(out, "nothing to remember: the message has no content after the trigger");
        }
        HeardAction::ConfirmForget { candidates, command, whole_entity } => {
            if candidates.is_empty() {
                let _ = writeln!(out, "no matching memory; nothing forgotten");
            } else {
                let _ = writeln!(out, "matching memories (nothing forgotten yet):");
                for c in candidates {
                    let _ = writeln!(out, "  {}  {}:{}  {}", c.id, c.path, c.line, c.excerpt);
                }
                match (command, whole_entity) {
                    (Some(cmd), _) => {
                        let _ = writeln!(out, "confirm with: {cmd}");
                    }
                    (None, Some(whole)) => {
                        let _ = writeln!(out, "{}", whole.advice());
                    }
                    (None, None) => {
                        let _ = writeln!(
                            out,
                            "several match equally; confirm one with: cogmem forget --id ID --yes"
                        );
                    }
                }
            }
        }
        HeardAction::Recall { results } => {
            if results.is_empty() {
                let _ = writeln!(out, "nothing remembered about that");
            }
            for h in results {
                let text: String =
                    cogmem::store::markdown::one_line(&h.text).chars().take(100).collect();
                let _ = writeln!(out, "  {}  {}:{}  {text}", h.id, h.path, h.line);
            }
        }
        HeardAction::Reflect { message, .. } => {
            let _ = writeln!(out, "{message}");
        }
        HeardAction::AskUser { question } => {
            let _ = writeln!(out, "ask the user: {question}");
        }
    }
    render::data(&out)?;
    Ok(Exit::Ok)
}
