//! `cogmem reflect`: the approval-gated reflection cycle (request → decide → input → submit →
//! approve or reject), and `reflect status`.

use std::fmt::Write as _;

use clap::{Args, Subcommand, ValueEnum};
use cogmem::error::InputError;
use cogmem::ops::reflect::{self, RequestOptions, RewardDecision};

use super::exit::Exit;
use super::{Ctx, render};

/// Reflect, one approved step at a time: request tokens, get a decision, reflect, get approval
///
/// The agent asks for a token budget (`request`); the user decides it (`decide`); the agent
/// reads its bounded input (`input`) and hands in its reflection (`submit`); the user
/// approves or rejects it. Each step is refused (exit 4) until the one before it is done, and
/// only a person (`--actor manual` or `user:NAME`) may decide or approve. Nothing runs on a
/// timer: a step stays pending until someone acts.
#[derive(Args, Debug)]
#[command(after_long_help = REFLECT_EXAMPLES)]
pub struct ReflectArgs {
    #[command(subcommand)]
    command: ReflectCommand,
}

impl ReflectArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        !matches!(
            self.command,
            ReflectCommand::Status | ReflectCommand::Input | ReflectCommand::Show
        )
    }
}

const REFLECT_EXAMPLES: &str = "\
Examples:
  # Where the cycle stands and what comes next
  cogmem reflect status

  # One whole cycle
  cogmem reflect request --extra 2000 --reason \"a busy week\"
  cogmem --actor manual reflect decide approve
  cogmem reflect input > input.md
  cogmem reflect submit reflection.md
  cogmem --actor manual reflect approve

  # Record what was said about it afterwards
  cogmem reflect dialogue talk.txt
";

#[derive(Subcommand, Debug)]
enum ReflectCommand {
    /// Show the state of the reflection cycle and the next allowed command
    #[command(
        after_long_help = "Examples:\n  # What is waiting, and for whom\n  cogmem reflect status\n\n  # The same as JSON\n  cogmem reflect status --json\n"
    )]
    Status,
    /// Ask the user for a token budget (writes memory/meta/rewards/YYYY-MM-DD.md)
    ///
    /// The request is the baseline (8,000 unless decay-scores.json says otherwise) plus
    /// `--extra` minus `--penalty`. It ends "Awaiting your decision." and the cycle waits for
    /// `cogmem reflect decide`.
    #[command(
        after_long_help = "Examples:\n  # The baseline only\n  cogmem reflect request\n\n  # Ask for more, and own a mistake\n  cogmem reflect request --extra 2000 --reason \"many new episodes\" --penalty 500 --reason \"missed a deadline\"\n"
    )]
    Request {
        /// Extra tokens to ask for
        #[arg(long, value_name = "N", default_value_t = 0)]
        extra: u64,
        /// Tokens to take off your own budget
        #[arg(long, value_name = "N", default_value_t = 0)]
        penalty: u64,
        /// Why (can be repeated: the first is the extra's reason, the next the penalty's;
        /// with only `--penalty`, the first is the penalty's)
        #[arg(long = "reason", value_name = "TEXT")]
        reasons: Vec<String>,
    },
    /// Record the user's decision on the reward request (a person only)
    #[command(
        after_long_help = "Examples:\n  # Grant what was asked\n  cogmem --actor manual reflect decide approve\n\n  # Grant 1,000 more, saying why\n  cogmem --actor user:alice reflect decide bonus 1000 --reason \"great week\"\n\n  # Cancel the agent's self-penalty\n  cogmem --actor manual reflect decide forgive\n"
    )]
    Decide {
        /// approve, bonus N, reduce N, forgive or penalize N
        #[arg(value_name = "DECISION", value_enum, ignore_case = true)]
        decision: DecisionKind,
        /// The tokens of a bonus, reduction or penalty (`1,000` and `1_000` too)
        #[arg(value_name = "N")]
        amount: Option<String>,
        /// Why (recorded in reward-log.md)
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// Print the reflection input: memory within ~30K tokens, then the instructions
    #[command(
        after_long_help = "Examples:\n  # The bundle to reflect on\n  cogmem reflect input\n\n  # With its sections, cuts and drawn elements, as JSON\n  cogmem reflect input --json\n"
    )]
    Input,
    /// Hand in a reflection for approval (validates its OPERATION blocks)
    ///
    /// Prints, per OPERATION block, the exact change approving it will make: the unified diff
    /// of each file it writes (`--json`: `blocks`). Approval plans the same blocks again from
    /// the files as they are then.
    #[command(
        after_long_help = "Examples:\n  # From a file\n  cogmem reflect submit reflection.md\n\n  # From stdin\n  cat reflection.md | cogmem reflect submit -\n"
    )]
    Submit {
        /// The reflection's file, or `-` for stdin
        #[arg(value_name = "FILE|-")]
        file: String,
        /// Store the reflection even if it looks like it holds a credential
        #[arg(long)]
        allow_secret: bool,
    },
    /// Show the reflection awaiting approval and the diff each block would make now
    ///
    /// Read-only. Plans the approval from the files as they are now, as `reflect approve` will:
    /// per OPERATION block, what approving it does and the unified diff of each file it writes
    /// (stdout; `--json`: `reflection`, `text`, `blocks`). Fails as approval would when a block
    /// can no longer be applied or MEMORY.md would go over its budget.
    #[command(
        after_long_help = "Examples:\n  # What approving the pending reflection would change\n  cogmem reflect show\n\n  # The same as JSON\n  cogmem reflect show --json\n"
    )]
    Show,
    /// Approve the pending reflection and apply it in one commit (a person only)
    #[command(
        after_long_help = "Examples:\n  # Approve everything\n  cogmem --actor manual reflect approve\n\n  # Apply only blocks 1 and 3\n  cogmem --actor manual reflect approve --only 1,3\n"
    )]
    Approve {
        /// Apply only these OPERATION blocks (comma-separated numbers)
        #[arg(long, value_name = "N,M", value_delimiter = ',')]
        only: Option<Vec<usize>>,
    },
    /// Record the conversation after a reflection (memory/meta/reflections/dialogues/DATE.md)
    ///
    /// Each turn starts on a line `User: …` or `Agent: …` (any case); lines after it continue
    /// the turn. A line `Extracted: …` names something taken into the main reflection. The
    /// dialogue is appended to today's file under the latest reflection's summary, in one
    /// commit, and the next `reflect input` includes it. Refused before any reflection is
    /// approved.
    #[command(
        after_long_help = "Examples:\n  # From a file of `User:` and `Agent:` lines\n  cogmem reflect dialogue talk.txt\n\n  # From stdin\n  printf 'User: why?\\nAgent: it was stale\\n' | cogmem reflect dialogue -\n"
    )]
    Dialogue {
        /// The dialogue's file, or `-` for stdin (the default)
        #[arg(value_name = "FILE|-", default_value = "-")]
        file: String,
        /// Record it even if it looks like it holds a credential
        #[arg(long)]
        allow_secret: bool,
    },
    /// Reject the pending reflection, saying why (a person only)
    #[command(
        after_long_help = "Examples:\n  # Turn it down\n  cogmem --actor manual reflect reject --reason \"too speculative\"\n"
    )]
    Reject {
        /// Why (recorded in the rewards file)
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
}

pub fn run(ctx: &Ctx, args: &ReflectArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    match &args.command {
        ReflectCommand::Status => {
            let s = reflect::status(&ws)?;
            if ctx.global.json {
                render::json(&s)?;
                return Ok(super::search::warn_unreadable(ctx, &s.skipped));
            }
            let mut out = String::new();
            let _ = writeln!(out, "reflection #{}: {}", s.reflection, s.description);
            let _ = writeln!(out, "waiting for: {}", s.waiting_for);
            let _ = writeln!(out, "next: {}", s.next.join(" | "));
            if s.state == reflect::State::AwaitingApproval {
                let _ = writeln!(out, "what approval would change: `cogmem reflect show`");
            }
            if let Some(f) = &s.rewards_file {
                let _ = writeln!(out, "rewards file: {f}");
            }
            if let Some(r) = s.requested {
                let _ = writeln!(out, "requested: {r} tokens");
            }
            if let Some(g) = s.granted {
                let _ = writeln!(out, "granted: {g} tokens");
            }
            let _ = writeln!(
                out,
                "last reflection: {}",
                s.last_reflection.as_deref().unwrap_or("never")
            );
            let _ = writeln!(
                out,
                "self-awareness entries since consolidation: {}{}",
                s.self_awareness_since_consolidation,
                if s.consolidation_due { " (a self-image consolidation is due)" } else { "" }
            );
            if s.consolidation_pending {
                let _ = writeln!(
                    out,
                    "a self-image consolidation awaits the user's approval: `cogmem identity consolidate show`"
                );
            }
            render::data(&out)?;
            Ok(super::search::warn_unreadable(ctx, &s.skipped))
        }
        ReflectCommand::Request { extra, penalty, reasons } => {
            let mut it = reasons.iter().cloned();
            let extra_reason = if *extra > 0 { it.next() } else { None };
            let penalty_reason = if *penalty > 0 { it.next() } else { None };
            let opts =
                RequestOptions { extra: *extra, extra_reason, penalty: *penalty, penalty_reason };
            let r = reflect::request(&ws, &opts, &ctx.actor()?, clock.as_ref())?;
            step(
                ctx,
                &r,
                &format!(
                    "reward request for reflection #{} written to {}: {} tokens, awaiting the user's decision",
                    r.reflection,
                    r.file,
                    r.tokens.unwrap_or(0)
                ),
            )
        }
        ReflectCommand::Decide { decision, amount, reason } => {
            let d = parse_decision(*decision, amount.as_deref())?;
            let r = reflect::decide(&ws, d, reason.as_deref(), &ctx.actor()?, clock.as_ref())?;
            step(
                ctx,
                &r,
                &format!(
                    "reflection #{} granted {} tokens; the agent may now run `cogmem reflect input`",
                    r.reflection,
                    r.tokens.unwrap_or(0)
                ),
            )
        }
        ReflectCommand::Input => {
            let b = reflect::input(&ws, clock.as_ref())?;
            if ctx.global.json {
                render::json(&b)?;
                return Ok(Exit::Ok);
            }
            render::data(&b.text)?;
            let mut msg = format!(
                "reflection #{} input: {} of {} tokens (cl100k_base)",
                b.reflection, b.used_tokens, b.budget_tokens
            );
            if !b.cut.is_empty() {
                let _ = write!(
                    msg,
                    "; {} items left out (listed under \"Left out to fit\")",
                    b.cut.len()
                );
            }
            msg.push('\n');
            render::status(ctx.global.quiet, &msg);
            Ok(Exit::Ok)
        }
        ReflectCommand::Submit { file, allow_secret } => {
            let text = if file == "-" {
                super::input::text_or_stdin("-")?
            } else {
                cogmem::store::fsx::read_text(&ctx.cwd.join(file), ws.file_limit())?
            };
            let r = reflect::submit(&ws, &text, &ctx.actor()?, *allow_secret, clock.as_ref())?;
            let msg = format!(
                "reflection #{} submitted with {} operations and {} self-awareness notes (commit {}); awaiting the user's approval\n",
                r.reflection,
                r.operations.len(),
                r.self_awareness.len(),
                render::short(&r.commit)
            );
            planned(ctx, &r, &r.blocks, &msg)
        }
        ReflectCommand::Show => {
            let r = reflect::show(&ws, clock.as_ref())?;
            // Before the plan, so that the diffs are not read as what was submitted.
            if let Some(w) = &r.changed_since_submit
                && !ctx.global.json
            {
                render::warning(ctx.style, &w.message);
                ctx.hint(&w.hint);
            }
            let msg = format!(
                "reflection #{} awaits the user's approval: `cogmem reflect approve` applies these {} blocks\n",
                r.reflection,
                r.blocks.len()
            );
            planned(ctx, &r, &r.blocks, &msg)
        }
        ReflectCommand::Approve { only } => {
            let r = reflect::approve(&ws, only.as_deref(), &ctx.actor()?, clock.as_ref())?;
            if ctx.global.json {
                render::json(&r)?;
                return Ok(Exit::Ok);
            }
            let mut msg = format!(
                "reflection #{} approved into {} (commit {})\n",
                r.reflection,
                r.file,
                render::short(&r.commit)
            );
            for a in &r.operations {
                let _ = writeln!(
                    msg,
                    "  #{} {:<8} {} — {}",
                    a.block,
                    a.op.as_str(),
                    a.target,
                    a.outcome
                );
            }
            render::status(ctx.global.quiet, &msg);
            Ok(Exit::Ok)
        }
        ReflectCommand::Dialogue { file, allow_secret } => {
            let (text, source) = if file == "-" {
                (super::input::text_or_stdin("-")?, "stdin".to_owned())
            } else {
                let path = ctx.cwd.join(file);
                (cogmem::store::fsx::read_text(&path, ws.file_limit())?, path.display().to_string())
            };
            let r = reflect::dialogue(
                &ws,
                &text,
                &source,
                &ctx.actor()?,
                *allow_secret,
                clock.as_ref(),
            )?;
            if ctx.global.json {
                render::json(&r)?;
                return Ok(Exit::Ok);
            }
            render::status(
                ctx.global.quiet,
                &format!(
                    "dialogue after reflection #{} recorded in {}: {} turns, {} extracted (commit {})\n",
                    r.reflection,
                    r.file,
                    r.turns,
                    r.extracted,
                    render::short(&r.commit)
                ),
            );
            Ok(Exit::Ok)
        }
        ReflectCommand::Reject { reason } => {
            let r = reflect::reject(&ws, reason.as_deref(), &ctx.actor()?, clock.as_ref())?;
            if ctx.global.json {
                render::json(&r)?;
                return Ok(Exit::Ok);
            }
            render::status(
                ctx.global.quiet,
                &format!(
                    "reflection #{} rejected: {} (commit {})\n",
                    r.reflection,
                    r.reason,
                    render::short(&r.commit)
                ),
            );
            Ok(Exit::Ok)
        }
    }
}

/// Prints a report that carries a reflection's plan: `--json` the report, else each block's
/// diffs on stdout and `msg` on stderr.
fn planned(
    ctx: &Ctx,
    report: &impl serde::Serialize,
    plan: &[reflect::Applied],
    msg: &str,
) -> cogmem::Result<Exit> {
    if ctx.global.json {
        render::json(report)?;
    } else {
        render::data(&blocks(plan))?;
        render::status(ctx.global.quiet, msg);
    }
    Ok(Exit::Ok)
}

/// Each block of a reflection with what approving it does: a header line, then the unified
/// diff of every file it changes.
fn blocks(blocks: &[reflect::Applied]) -> String {
    let mut out = String::new();
    for a in blocks {
        let what = cogmem::ops::review::effect(a);
        let _ = writeln!(out, "block {} {} {} — {what}", a.block, a.op.as_str(), a.target);
        for f in &a.files {
            out.push_str(&f.diff);
        }
    }
    out
}

fn step(ctx: &Ctx, r: &reflect::StepReport, msg: &str) -> cogmem::Result<Exit> {
    if ctx.global.json {
        render::json(r)?;
    } else {
        render::status(ctx.global.quiet, &format!("{msg} (commit {})\n", render::short(&r.commit)));
    }
    Ok(Exit::Ok)
}

/// The person's decision on a reward request, as `reflect decide` takes it (completed by the
/// shell; `penalise` too).
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum DecisionKind {
    /// Grant what was asked
    Approve,
    /// Grant what was asked + N
    Bonus,
    /// Grant what was asked − N
    Reduce,
    /// Grant what was asked + the agent's self-penalty
    Forgive,
    /// Grant what was asked − N
    #[value(alias = "penalise")]
    Penalize,
}

fn parse_decision(kind: DecisionKind, amount: Option<&str>) -> cogmem::Result<RewardDecision> {
    let bad = || InputError::Unknown {
        what: "decision",
        value: [format!("{kind:?}").to_ascii_lowercase(), amount.unwrap_or_default().to_owned()]
            .join(" ")
            .trim_end()
            .to_owned(),
        expected: "approve, bonus N, reduce N, forgive, penalize N".into(),
    };
    let tokens = || -> cogmem::Result<u64> {
        amount.and_then(|n| n.replace([',', '_'], "").parse().ok()).ok_or_else(|| bad().into())
    };
    let d = match (kind, amount) {
        (DecisionKind::Approve, None) => RewardDecision::Approve,
        (DecisionKind::Forgive, None) => RewardDecision::Forgive,
        (DecisionKind::Bonus, _) => RewardDecision::Bonus(tokens()?),
        (DecisionKind::Reduce, _) => RewardDecision::Reduce(tokens()?),
        (DecisionKind::Penalize, _) => RewardDecision::Penalize(tokens()?),
        (DecisionKind::Approve | DecisionKind::Forgive, Some(_)) => return Err(bad().into()),
    };
    Ok(d)
}
