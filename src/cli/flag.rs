//! `cogmem flag list` and `cogmem flag resolve`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use cogmem::ops::flag;

use super::exit::Exit;
use super::{Ctx, render};

/// List the contradictions and doubts reflections flagged, and resolve them
///
/// An approved reflection's FLAG operation records a contradiction or a doubt about the
/// memories it names in memory/meta/flags.md. An open flag is shown by `cogmem why`, counted
/// by `cogmem status`, reported by `cogmem verify` as a warning and put in the context pack
/// beside those memories, until a person resolves it (`cogmem flag resolve N`, one commit).
#[derive(Args, Debug)]
#[command(after_long_help = FLAG_EXAMPLES)]
pub struct FlagArgs {
    #[command(subcommand)]
    command: FlagCommand,
}

impl FlagArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        matches!(self.command, FlagCommand::Resolve { .. })
    }
}

const FLAG_EXAMPLES: &str = "\
Examples:
  # What a person still has to look at
  cogmem flag list

  # Settle flag 2, saying how
  cogmem --actor user:ann flag resolve 2 --note \"she switched to coffee in November\"
";

#[derive(Subcommand, Debug)]
enum FlagCommand {
    /// List open flags (with --all, resolved ones too)
    #[command(
        after_long_help = "Examples:\n  # The open flags\n  cogmem flag list\n\n  # Every flag, resolved ones included, as JSON\n  cogmem flag list --all --json\n"
    )]
    List {
        /// List resolved flags too
        #[arg(long)]
        all: bool,
    },
    /// Resolve a flag (a person only), in one commit
    #[command(
        after_long_help = "Examples:\n  # Settle flag 2\n  cogmem --actor user:ann flag resolve 2 --note \"checked with Alice: tea\"\n"
    )]
    Resolve {
        /// The flag's number
        number: u32,
        /// How it was resolved (recorded in the file)
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
    },
}

pub fn run(ctx: &Ctx, args: &FlagArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    match &args.command {
        FlagCommand::List { all } => {
            let list = flag::list(&ws, *all)?;
            for s in &list.skipped {
                render::warning(ctx.style, &format!("skipped {s}"));
            }
            if ctx.global.json {
                render::json(&list)?;
            } else if list.flags.is_empty() {
                let what = if *all { "no flags\n" } else { "no open flags\n" };
                render::status(ctx.global.quiet, what);
            } else {
                let mut out = String::new();
                for f in &list.flags {
                    let _ = writeln!(
                        out,
                        "#{:<3} {:<8} {:<13} {}",
                        f.number,
                        f.status.as_str(),
                        f.kind.as_str(),
                        f.memories.join(", ")
                    );
                    let _ = writeln!(out, "     {}", f.text);
                    if !f.reason.is_empty() {
                        let _ = writeln!(out, "     reason: {}", f.reason);
                    }
                    let _ = writeln!(out, "     raised by {}", f.raised_by);
                    if let (Some(by), Some(at)) = (&f.resolved_by, &f.resolved_at) {
                        let note = f.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default();
                        let _ = writeln!(out, "     resolved by {by} at {at}{note}");
                    }
                }
                render::data(&out)?;
            }
            Ok(if list.skipped.is_empty() { Exit::Ok } else { Exit::Partial })
        }
        FlagCommand::Resolve { number, note } => {
            let clock = ctx.clock()?;
            let report =
                flag::resolve(&ws, *number, note.as_deref(), &ctx.actor()?, clock.as_ref())?;
            if ctx.global.json {
                render::json(&report)?;
            } else {
                render::status(
                    ctx.global.quiet,
                    &format!(
                        "flag #{number} resolved (commit {})\n",
                        render::short(&report.commit)
                    ),
                );
            }
            Ok(Exit::Ok)
        }
    }
}
