//! `cogmem decay`, `pin`, `unpin`, `why`, `touch`.

use std::fmt::Write as _;

use clap::Args;
use cogmem::ops::decay as op;

use super::exit::Exit;
use super::{Ctx, render};

const DECAY_EXAMPLES: &str = "Examples:
  # See which memories would fade or be archived, writing nothing
  cogmem decay --dry-run
  # Recompute every score and commit the band changes (e.g. once a day from cron)
  cogmem decay
  # The same, as JSON: every transition with its score and age
  cogmem decay --json";

const PIN_EXAMPLES: &str = "Examples:
  # Keep Alice's entity card at full relevance for good
  cogmem pin entity:person--alice
  # Pin a core memory bullet (ids come from `cogmem search` and `cogmem recall`)
  cogmem pin core:active-context:7fc6c745
  # Let Alice's card fade like any other memory again
  cogmem unpin entity:person--alice";

const WHY_EXAMPLES: &str = "Examples:
  # Why is Alice's entity card in the band it is in?
  cogmem why entity:person--alice
  # The inputs and the formula as JSON
  cogmem why core:active-context:7fc6c745 --json";

const TOUCH_EXAMPLES: &str = "Examples:
  # Record that the agent just used Alice's card
  cogmem touch entity:person--alice
  # Fold the recorded uses into the scores now
  cogmem decay";

/// Recompute every decay score now, and commit the band changes
///
/// Scores fade with time since last use: relevance = clamp01(base × e^(−λ·days) × log2(uses+1)
/// × type weight), with bands active ≥ 0.5, fading ≥ 0.2, dormant ≥ 0.05, archived below.
/// Vault and pinned memories stay at 1.0; forgotten ones stay archived at 0. Uses recorded by
/// `recall`, `show` and `touch` are folded in first. Every band change is a DECAY line in the
/// audit log; the commit's actor is `system:decay`. Nothing is deleted.
#[derive(Args, Debug)]
#[command(after_long_help = DECAY_EXAMPLES)]
pub struct DecayArgs {
    /// Show what would change; write nothing
    #[arg(long)]
    dry_run: bool,
}

impl DecayArgs {
    /// Tells whether the command may commit (and so adopts outside commits first): not a dry run.
    pub fn writes(&self) -> bool {
        !self.dry_run
    }
}

/// Pin a memory so it never fades
#[derive(Args, Debug)]
#[command(after_long_help = PIN_EXAMPLES)]
pub struct PinArgs {
    /// The memory's id (see `cogmem recall` or `cogmem status`), an entity as `TYPE--SLUG`, or
    /// the start of exactly one id
    id: String,
}

/// Explain a memory's decay score: its inputs and the formula
#[derive(Args, Debug)]
#[command(after_long_help = WHY_EXAMPLES)]
pub struct WhyArgs {
    /// The memory's id (`episode:…`, `entity:TYPE--SLUG` or just `TYPE--SLUG`, `procedure:…`, `vault:…`,
    /// `core:…`), or the start of exactly one id
    id: String,
}

/// Record a use of a memory, so it stays fresh (no commit)
///
/// The use is appended to .cogmem/access.log and folded into decay-scores.json by the next
/// change or by `cogmem decay`.
#[derive(Args, Debug)]
#[command(after_long_help = TOUCH_EXAMPLES)]
pub struct TouchArgs {
    /// The memory's id (`episode:…`, `entity:TYPE--SLUG` or just `TYPE--SLUG`, `procedure:…`, `vault:…`,
    /// `core:…`), or the start of exactly one id
    id: String,
}

pub fn run(ctx: &Ctx, args: &DecayArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let report = op::run(&ws, args.dry_run, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
        return Ok(Exit::Ok);
    }
    let mut out = String::new();
    for t in &report.transitions {
        let _ = writeln!(out, "{}", transition_line(t, report.clock));
    }
    render::data(&out)?;
    let mut msg = String::new();
    let _ = write!(msg, "{} scored, {} band changes", report.entries, report.transitions.len());
    if report.folded_uses > 0 {
        let _ = write!(msg, ", {} uses folded", report.folded_uses);
    }
    if !report.created.is_empty() {
        let _ = write!(msg, ", {} entries created", report.created.len());
    }
    match (&report.commit, report.dry_run) {
        (_, true) => msg.push_str(" (dry run: nothing written)\n"),
        (Some(id), _) => {
            let _ = writeln!(msg, " (commit {})", render::short(id));
        }
        (None, _) => msg.push_str(" (nothing to commit)\n"),
    }
    if !report.archived.is_empty() {
        let _ = writeln!(msg, "now archived (hidden from recall, kept in the files):");
        for t in &report.archived {
            let _ = writeln!(
                msg,
                "  {}  score {:.3} after {} {} without use, {} use(s)",
                t.id, t.score, t.age, report.clock, t.uses
            );
        }
    }
    render::status(ctx.global.quiet, &msg);
    Ok(Exit::Ok)
}

/// One band change: `FROM → TO ID (score S, AGE UNIT since use, N uses)`; `clock` is the unit.
pub fn transition_line(t: &op::Transition, clock: &str) -> String {
    let uses = if t.uses == 1 { "1 use".to_owned() } else { format!("{} uses", t.uses) };
    format!(
        "{:<8} → {:<8} {}  (score {:.3}, {} {clock} since use, {uses})",
        t.from.as_str(),
        t.to.as_str(),
        t.id,
        t.score,
        t.age,
    )
}

pub fn run_pin(ctx: &Ctx, args: &PinArgs, pinned: bool) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let report = op::pin(&ws, &args.id, pinned, ctx.actor()?, clock.as_ref())?;
    if ctx.global.json {
        render::json(&report)?;
    } else {
        let state = if pinned { "pinned" } else { "unpinned" };
        let msg = match &report.commit {
            Some(id) => format!("{state} {} (commit {})\n", report.id, render::short(id)),
            None => format!("{} is already {state}\n", report.id),
        };
        render::status(ctx.global.quiet, &msg);
    }
    Ok(Exit::Ok)
}

pub fn run_why(ctx: &Ctx, args: &WhyArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let w = op::why(&ws, &args.id, clock.as_ref())?;
    if ctx.global.json {
        render::json(&w)?;
        return Ok(Exit::Ok);
    }
    let i = &w.inputs;
    let mut out = String::new();
    let _ = writeln!(out, "{}: {:.3} ({})", w.id, w.score, w.band.as_str());
    let _ = writeln!(out, "  base relevance  {}", i.base);
    let _ = writeln!(out, "  type weight     {}", i.type_weight);
    let _ = writeln!(out, "  uses            {}", i.access_count);
    let _ = writeln!(
        out,
        "  last used       {} ({} {} ago)",
        cogmem::clock::utc_seconds(&i.last_accessed),
        w.age,
        w.clock
    );
    let _ = writeln!(out, "  pinned          {}", if i.pinned { "yes" } else { "no" });
    let _ = writeln!(out, "  λ               {} per {}", w.lambda, w.clock.trim_end_matches('s'));
    let _ = writeln!(out, "  {}", w.formula);
    if !w.has_entry {
        let _ = writeln!(
            out,
            "  no decay entry yet: scored as a new memory; it gets one when committed (`cogmem sync` for a \
             hand edit)"
        );
    }
    for f in &w.flags {
        let _ = writeln!(out, "  open flag       {}", f.summary());
        let _ = writeln!(
            out,
            "                  raised by {}; a person resolves it with `cogmem flag resolve {}`",
            f.raised_by, f.number
        );
    }
    render::data(&out)?;
    Ok(Exit::Ok)
}

pub fn run_touch(ctx: &Ctx, args: &TouchArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let id = op::touch(&ws, &args.id, clock.as_ref())?;
    render::status(ctx.global.quiet, &format!("recorded a use of {id}\n"));
    Ok(Exit::Ok)
}
