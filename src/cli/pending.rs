//! `cogmem propose` (sub-agents) and `cogmem pending` (the main agent's review).

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use cogmem::error::InputError;
use cogmem::ops::propose::{self, Decision, ProposeRequest};
use cogmem::ops::remember::Relation;
use cogmem::store::entity::EntityId;
use cogmem::store::pending::Proposal;
use cogmem::store::{Confidence, Store};

use super::exit::Exit;
use super::{Ctx, render, vocab};

/// Propose a memory for the main agent to approve (sub-agents' way to write)
///
/// Appends `## Proposal #N` to memory/meta/pending-memories.md as one commit (action PROPOSE,
/// actor `subagent:NAME`). Nothing reaches memory until the main agent runs
/// `cogmem pending approve N`. A proposal repeating an open one is refused (exit 4); one that
/// contradicts an open proposal or a current functional relation (a second `lives-in`, say)
/// is recorded and marked `⚠️ CONFLICT` for the main agent to settle.
#[derive(Args, Debug)]
#[command(after_long_help = PROPOSE_EXAMPLES)]
pub struct ProposeArgs {
    /// The memory text, or `-` to read it from stdin
    text: String,
    /// The proposing agent's name (default: NAME of a `subagent:NAME` actor)
    #[arg(long, value_name = "NAME")]
    from: Option<String>,
    /// Suggested store
    #[arg(long, value_name = "STORE", value_parser = vocab::stores(), ignore_case = true)]
    store: Option<String>,
    /// Entity it is about, as TYPE--SLUG (can be repeated)
    #[arg(long = "entity", value_name = "TYPE--SLUG")]
    entities: Vec<String>,
    /// Relation to record, as 'FROM|RELATION|TO' (can be repeated)
    #[arg(long = "relation", value_name = "FROM|REL|TO")]
    relations: Vec<String>,
    /// How sure the proposer is (default: medium)
    #[arg(long, value_name = "LEVEL", value_parser = vocab::confidences(), ignore_case = true)]
    confidence: Option<String>,
    /// Suggest it belongs in core memory
    #[arg(long)]
    core_worthy: bool,
    /// Propose the text even if it looks like a credential (a key, a token, `password=`…)
    #[arg(long)]
    allow_secret: bool,
}

const PROPOSE_EXAMPLES: &str = "\
Examples:
  # A research sub-agent suggests a fact about a person
  cogmem --actor subagent:researcher propose --entity person--alice \"Alice prefers tea\"

  # The same, naming the agent explicitly, with a relation
  cogmem propose --from researcher --relation 'person--alice|lives-in|place--lisbon' \"Alice moved to Lisbon\"
";

/// Review sub-agents' proposals: list, show, approve, reject or defer them
///
/// Only the main agent decides; a sub-agent is refused (exit 4). Approving writes the memory
/// through the ordinary `remember` path with actor `bot:commit-from:NAME` and marks the
/// proposal committed, in one commit. Rejecting and deferring record who decided and why.
#[derive(Args, Debug)]
#[command(after_long_help = PENDING_EXAMPLES)]
pub struct PendingArgs {
    #[command(subcommand)]
    command: PendingCommand,
}

impl PendingArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        !matches!(self.command, PendingCommand::List { .. } | PendingCommand::Show { .. })
    }
}

const PENDING_EXAMPLES: &str = "\
Examples:
  # What is waiting for a decision
  cogmem pending list

  # Read proposal 3, then write it to memory
  cogmem pending show 3
  cogmem pending approve 3

  # Turn one down, saying why
  cogmem pending reject 4 --reason \"Alice said she stopped drinking tea\"
";

#[derive(Subcommand, Debug)]
enum PendingCommand {
    /// List open proposals (pending, conflict, deferred)
    #[command(
        after_long_help = "Examples:\n  # What is waiting for a decision\n  cogmem pending list\n\n  # Everything, decided ones included, as JSON\n  cogmem pending list --all --json\n"
    )]
    List {
        /// List decided ones too
        #[arg(long)]
        all: bool,
    },
    /// Show one proposal in full
    #[command(
        after_long_help = "Examples:\n  # Read proposal 3 before deciding\n  cogmem pending show 3\n"
    )]
    Show {
        /// The proposal's number
        number: u32,
    },
    /// Write a proposal to memory and mark it committed, in one commit
    #[command(
        after_long_help = "Examples:\n  # Write proposal 3 where the sub-agent suggested\n  cogmem pending approve 3\n\n  # Write it to the episode log instead\n  cogmem pending approve 3 --store episodic\n"
    )]
    Approve {
        /// The proposal's number
        number: u32,
        /// Write it to this store instead of the suggested one
        #[arg(long, value_name = "STORE", value_parser = vocab::stores(), ignore_case = true)]
        store: Option<String>,
    },
    /// Turn a proposal down, saying why
    #[command(
        after_long_help = "Examples:\n  # Turn proposal 4 down\n  cogmem pending reject 4 --reason \"Alice said she stopped drinking tea\"\n"
    )]
    Reject {
        /// The proposal's number
        number: u32,
        /// Why it is rejected (recorded in the file)
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// Leave a proposal for later (the next review or reflection)
    #[command(
        after_long_help = "Examples:\n  # Ask the user first\n  cogmem pending defer 5 --reason \"ask Bob\"\n"
    )]
    Defer {
        /// The proposal's number
        number: u32,
        /// Why it waits
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
}

pub fn run_propose(ctx: &Ctx, args: &ProposeArgs) -> cogmem::Result<Exit> {
    let actor = ctx.actor()?;
    let Some(from) = propose::proposer(args.from.as_deref(), Some(&actor))? else {
        return Err(InputError::Unknown {
            what: "proposing agent",
            value: actor.to_string(),
            expected: "`--from NAME`, or `--actor subagent:NAME` / COGMEM_ACTOR".into(),
        }
        .into());
    };
    let text = super::input::text_or_stdin(&args.text)?;
    let req = ProposeRequest {
        text,
        from,
        store: args.store.as_deref().map(Store::parse).transpose()?,
        entities: args
            .entities
            .iter()
            .map(|e| EntityId::parse_given(e))
            .collect::<Result<_, _>>()?,
        relations: args.relations.iter().map(|r| Relation::parse(r)).collect::<Result<_, _>>()?,
        confidence: args.confidence.as_deref().map(Confidence::parse).transpose()?,
        core_worthy: args.core_worthy,
        trigger: "cogmem propose".into(),
        allow_secret: args.allow_secret,
    };
    let ws = ctx.workspace()?;
    let clock = ctx.clock()?;
    let report = propose::propose(&ws, &req, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = format!(
        "proposal #{} recorded for the main agent (commit {})\n",
        report.number,
        render::short(&report.commit)
    );
    if let Some(m) = report.conflicts_with {
        let _ = writeln!(msg, "⚠️  it conflicts with proposal #{m}; the main agent will settle it");
    }
    if let Some(f) = &report.conflicts_with_fact {
        let _ = writeln!(msg, "⚠️  it conflicts with a current fact: {f}");
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}

pub fn run_pending(ctx: &Ctx, args: &PendingArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    match &args.command {
        PendingCommand::List { all } => {
            let file = propose::read(&ws)?;
            let shown: Vec<&Proposal> =
                file.proposals.iter().filter(|p| *all || p.status.is_open()).collect();
            let path = ws.abs(cogmem::workspace::layout::PENDING_MEMORIES);
            for (line, why) in &file.problems {
                render::warning(ctx.style, &format!("skipped {}:{line}: {why}", path.display()));
            }
            if ctx.global.json {
                render::json(&shown)?;
            } else if shown.is_empty() {
                render::status(ctx.global.quiet, "no proposals waiting\n");
            } else {
                let mut out = String::new();
                for p in &shown {
                    let _ = writeln!(
                        out,
                        "#{:<3} {:<9} {:<10} {:<12} {}",
                        p.number,
                        p.status.as_str(),
                        p.store,
                        p.from,
                        cogmem::store::markdown::one_line(&p.content)
                    );
                }
                render::data(&out)?;
            }
            Ok(if file.problems.is_empty() { Exit::Ok } else { Exit::Partial })
        }
        PendingCommand::Show { number } => {
            let p = propose::get(&ws, *number)?;
            if ctx.global.json {
                render::json(&p)?;
                return Ok(Exit::Ok);
            }
            let mut out = String::new();
            let _ = writeln!(out, "proposal #{} — {}", p.number, p.status.as_str());
            if !p.status_note.is_empty() {
                let _ = writeln!(out, "  note:        {}", p.status_note);
            }
            let _ = writeln!(out, "  from:        {}", p.from);
            let _ = writeln!(out, "  proposed:    {}", p.timestamp);
            let _ = writeln!(out, "  store:       {}", p.store);
            let _ = writeln!(out, "  confidence:  {}", p.confidence);
            let _ = writeln!(out, "  core-worthy: {}", if p.core_worthy { "yes" } else { "no" });
            if !p.entities.is_empty() {
                let _ = writeln!(out, "  entities:    {}", p.entities.join(", "));
            }
            if !p.relations.is_empty() {
                let _ = writeln!(out, "  relations:   {}", p.relations.join(", "));
            }
            if let Some(d) = &p.decision {
                let _ = writeln!(out, "  decision:    {d}");
            }
            let _ = writeln!(out, "\n{}", p.content);
            render::data(&out)?;
            Ok(Exit::Ok)
        }
        PendingCommand::Approve { number, store } => {
            let d = Decision::Approve { store: store.as_deref().map(Store::parse).transpose()? };
            decide(ctx, &ws, *number, &d)
        }
        PendingCommand::Reject { number, reason } => {
            decide(ctx, &ws, *number, &Decision::Reject { reason: reason.clone() })
        }
        PendingCommand::Defer { number, reason } => {
            decide(ctx, &ws, *number, &Decision::Defer { reason: reason.clone() })
        }
    }
}

fn decide(ctx: &Ctx, ws: &cogmem::Workspace, n: u32, d: &Decision) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let report = propose::decide(ws, n, d, &ctx.actor()?, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut msg = match &report.commit {
        Some(c) => {
            format!("proposal #{n} {} (commit {})", report.status.as_str(), render::short(c))
        }
        None => format!("proposal #{n} is already {}", report.status.as_str()),
    };
    msg.push('\n');
    if let Some(r) = &report.remembered {
        for u in &r.written {
            let _ = writeln!(msg, "  {:<10} {}  {}:{}", u.store.as_str(), u.id, u.path, u.line);
        }
        for u in &r.duplicates {
            let _ = writeln!(msg, "  already remembered: {}  {}:{}", u.id, u.path, u.line);
        }
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}
