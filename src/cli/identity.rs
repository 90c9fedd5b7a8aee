//! `cogmem identity consolidate …`: the gated rewrite of IDENTITY.md's Self-Image section.

use clap::{Args, Subcommand};
use cogmem::ops::identity;

use super::exit::Exit;
use super::{Ctx, render};

/// Work on IDENTITY.md through approval-gated steps
#[derive(Args, Debug)]
#[command(after_long_help = IDENTITY_EXAMPLES)]
pub struct IdentityArgs {
    #[command(subcommand)]
    command: IdentityCommand,
}

impl IdentityArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        let IdentityCommand::Consolidate(c) = &self.command;
        !matches!(c.step, Step::Input | Step::Show)
    }
}

const IDENTITY_EXAMPLES: &str = "\
Examples:
  # Once 10 self-awareness entries have accumulated
  cogmem identity consolidate input > consolidate.md
  cogmem identity consolidate submit answer.md
  cogmem --actor manual identity consolidate approve
";

#[derive(Subcommand, Debug)]
enum IdentityCommand {
    Consolidate(ConsolidateArgs),
}

/// Rewrite the Self-Image section from the self-awareness log, with the user's approval
///
/// Allowed once 10 or more `[Self-Awareness]` entries have accumulated since the last
/// consolidation (`cogmem reflect status` counts them). The agent reads `input`, answers with
/// a new Self-Image section and monthly summaries of its log (`submit`, which prints the
/// diff), and a person approves or rejects it. Approval rewrites the section (rewrite, not
/// append), moves the summarised months to the Archived log and resets the count, in one
/// commit.
#[derive(Args, Debug)]
#[command(after_long_help = CONSOLIDATE_EXAMPLES)]
pub struct ConsolidateArgs {
    #[command(subcommand)]
    step: Step,
}

const CONSOLIDATE_EXAMPLES: &str = "\
Examples:
  # What the agent works from
  cogmem identity consolidate input

  # Hand in the answer, then the user reviews the diff and decides
  cogmem identity consolidate submit answer.md
  cogmem identity consolidate show
  cogmem --actor manual identity consolidate approve
";

#[derive(Subcommand, Debug)]
enum Step {
    /// Print the Self-Image section, the archived and recent log, and the instructions
    #[command(
        after_long_help = "Examples:\n  # The input for the agent\n  cogmem identity consolidate input\n"
    )]
    Input,
    /// Hand in a rewritten Self-Image section; prints the diff to approve
    #[command(
        after_long_help = "Examples:\n  # From a file\n  cogmem identity consolidate submit answer.md\n\n  # From stdin\n  cat answer.md | cogmem identity consolidate submit -\n"
    )]
    Submit {
        /// The answer's file, or `-` for stdin
        #[arg(value_name = "FILE|-")]
        file: String,
    },
    /// Print the diff the pending consolidation would make
    #[command(
        after_long_help = "Examples:\n  # Review before deciding\n  cogmem identity consolidate show\n"
    )]
    Show,
    /// Apply the pending consolidation in one commit (a person only)
    #[command(
        after_long_help = "Examples:\n  # Approve it\n  cogmem --actor manual identity consolidate approve\n"
    )]
    Approve,
    /// Discard the pending consolidation, saying why (a person only)
    #[command(
        after_long_help = "Examples:\n  # Turn it down\n  cogmem --actor manual identity consolidate reject --reason \"too flattering\"\n"
    )]
    Reject {
        /// Why (recorded in the audit log and the commit)
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
}

pub fn run(ctx: &Ctx, args: &IdentityArgs) -> cogmem::Result<Exit> {
    let IdentityCommand::Consolidate(c) = &args.command;
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    match &c.step {
        Step::Input => {
            let i = identity::input(&ws)?;
            if ctx.global.json {
                render::json(&i)?;
            } else {
                render::data(&i.text)?;
            }
        }
        Step::Submit { file } => {
            let text = if file == "-" {
                super::input::text_or_stdin("-")?
            } else {
                cogmem::store::fsx::read_text(&ctx.cwd.join(file), ws.file_limit())?
            };
            let r = identity::submit(&ws, &text, &ctx.actor()?, clock.as_ref())?;
            if ctx.global.json {
                render::json(&r)?;
            } else {
                render::data(&r.diff)?;
                render::status(
                    ctx.global.quiet,
                    &format!(
                        "self-image consolidation submitted (commit {}); awaiting the user's approval\n",
                        render::short(&r.commit)
                    ),
                );
            }
        }
        Step::Show => {
            let d = identity::show(&ws, clock.as_ref())?;
            if ctx.global.json {
                render::json(&serde_json::json!({ "diff": d }))?;
            } else {
                render::data(&d)?;
            }
        }
        Step::Approve | Step::Reject { .. } => {
            let r = match &c.step {
                Step::Approve => identity::approve(&ws, &ctx.actor()?, clock.as_ref())?,
                Step::Reject { reason } => {
                    identity::reject(&ws, reason.as_deref(), &ctx.actor()?, clock.as_ref())?
                }
                _ => unreachable!("matched above"),
            };
            if ctx.global.json {
                render::json(&r)?;
            } else {
                render::status(
                    ctx.global.quiet,
                    &format!(
                        "self-image consolidation {} (commit {})\n",
                        r.outcome,
                        render::short(&r.commit)
                    ),
                );
            }
        }
    }
    Ok(Exit::Ok)
}
