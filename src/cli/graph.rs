//! `cogmem graph …` and `cogmem supersede`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use cogmem::ops::graph::{self as op, ExportFormat};

use super::exit::Exit;
use super::{Ctx, render};

/// Look at, check and maintain the knowledge graph of entities and relations
///
/// The graph is built from memory/graph/entities/*.md and memory/graph/relations.md each time;
/// it is never stored. Entities may be named by id or by a name or alias only they have.
#[derive(Args, Debug)]
pub struct GraphArgs {
    #[command(subcommand)]
    command: GraphCommand,
}

#[derive(Subcommand, Debug)]
enum GraphCommand {
    /// Show an entity and its relations (at a date with --as-of)
    Show {
        /// The entity
        entity: String,
        /// Show what held on this date (YYYY-MM-DD)
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// Entities within N hops (at a date with --as-of)
    Neighbors {
        /// The entity
        entity: String,
        /// How many hops
        #[arg(long, default_value_t = 1, value_name = "N")]
        depth: usize,
        /// Follow only relations that held on this date (YYYY-MM-DD)
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// The shortest chain of relations between two entities
    Path {
        /// One end
        from: String,
        /// The other end
        to: String,
    },
    /// Every relation an entity ever had, closed ones included, oldest first
    History {
        /// The entity
        entity: String,
    },
    /// Find unknown relations, wrong endpoint types, cycles, dangling links and duplicates (exit 3)
    Check,
    /// Export as a Mermaid diagram, Graphviz DOT or JSON
    Export {
        /// Mermaid flowchart (renders on git forges)
        #[arg(long, group = "fmt")]
        mermaid: bool,
        /// Graphviz DOT
        #[arg(long, group = "fmt")]
        dot: bool,
        /// Only this entity's neighbourhood
        #[arg(long, value_name = "ENTITY")]
        around: Option<String>,
        /// Hops around --around
        #[arg(long, default_value_t = 2, value_name = "N")]
        depth: usize,
    },
    /// Nodes, relations, components and hubs
    Stats,
    /// Merge OTHER into KEEP: facts, aliases and relations move; OTHER becomes a redirect
    Merge {
        /// The entity that stays
        keep: String,
        /// The entity merged into it
        other: String,
    },
    /// Regenerate memory/graph/index.md from the entity files (after hand edits)
    Rebuild,
}

/// Mark an entity superseded by another, and deactivate what depended on it
///
/// OLD keeps its file and gets `Status: superseded`; NEW links `supersedes: [[OLD]]`. Every
/// entity that `depends-on` or `refines` OLD — and, recursively, what depends on those — becomes
/// `Status: inactive`, with a timeline line saying why. One commit, with the trace. Superseded
/// and inactive entities no longer come back in search and do not pass activation.
#[derive(Args, Debug)]
pub struct SupersedeArgs {
    /// The entity that no longer holds
    old: String,
    /// The entity that replaces it
    #[arg(long, value_name = "NEW")]
    by: String,
    /// Why, for the timeline and the commit
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
}

pub fn run(ctx: &Ctx, args: &GraphArgs) -> cogmem::Result<Exit> {
    let ws = ctx.workspace()?;
    let json = ctx.global.json;
    match &args.command {
        GraphCommand::Show { entity, as_of } => {
            let shown = op::show(&ws, entity, as_of.as_deref())?;
            print_shown(ctx, &shown, false)?;
        }
        GraphCommand::History { entity } => {
            let shown = op::history(&ws, entity)?;
            print_shown(ctx, &shown, true)?;
        }
        GraphCommand::Neighbors { entity, depth, as_of } => {
            let ns = op::neighbors(&ws, entity, *depth, as_of.as_deref())?;
            if json {
                render::json(&ns)?;
            } else {
                let out: String = ns
                    .iter()
                    .map(|n| format!("{}  {} ({}, {})\n", n.distance, n.id, n.kind, n.status))
                    .collect();
                render::data(&out)?;
            }
        }
        GraphCommand::Path { from, to } => {
            let p = op::path(&ws, from, to)?;
            if json {
                render::json(&p)?;
            } else {
                match p {
                    Some(ids) => render::data(&format!("{}\n", ids.join(" — ")))?,
                    None => render::status(ctx.global.quiet, "no path between them\n"),
                }
            }
        }
        GraphCommand::Check => {
            let findings = op::check(&ws)?;
            if json {
                render::json(&findings)?;
            } else {
                let out: String = findings
                    .iter()
                    .map(|f| format!("{}:{}: {}: {}\n", f.path, f.line, f.kind, f.message))
                    .collect();
                render::data(&out)?;
                if findings.is_empty() {
                    render::status(ctx.global.quiet, "the graph is consistent\n");
                }
            }
            return Ok(if findings.is_empty() { Exit::Ok } else { Exit::Partial });
        }
        GraphCommand::Export { mermaid, dot, around, depth } => {
            let format = if *mermaid {
                ExportFormat::Mermaid
            } else if *dot {
                ExportFormat::Dot
            } else {
                ExportFormat::Json
            };
            let format = if json { ExportFormat::Json } else { format };
            render::data(&op::export(&ws, format, around.as_deref(), *depth)?)?;
        }
        GraphCommand::Stats => {
            let s = op::stats(&ws)?;
            if json {
                render::json(&s)?;
            } else {
                let hubs: Vec<String> =
                    s.hubs.iter().map(|(id, n)| format!("{id} ({n})")).collect();
                render::data(&format!(
                    "entities    {}\nrelations   {} ({} current)\ncomponents  {}\ndangling    {}\nhubs        {}\n",
                    s.nodes,
                    s.edges,
                    s.current_edges,
                    s.components,
                    s.dangling,
                    hubs.join(", ")
                ))?;
            }
        }
        GraphCommand::Merge { keep, other } => {
            let clock = ctx.clock()?;
            let r = op::merge(&ws, keep, other, ctx.actor()?, clock.as_ref())?;
            report_change(ctx, &r)?;
        }
        GraphCommand::Rebuild => {
            let clock = ctx.clock()?;
            let r = op::rebuild(&ws, ctx.actor()?, clock.as_ref())?;
            report_change(ctx, &r)?;
        }
    }
    Ok(Exit::Ok)
}

fn print_shown(ctx: &Ctx, shown: &op::Shown, history: bool) -> cogmem::Result<()> {
    if ctx.global.json {
        return render::json(shown);
    }
    let n = &shown.node;
    let mut out = format!("{} ({}, {})  {}\n", n.id, n.kind, n.status, n.path);
    if n.names.len() > 1 {
        let _ = writeln!(out, "  also: {}", n.names[1..].join(", "));
    }
    for l in &shown.links {
        let arrow = if l.direction == "out" { "→" } else { "←" };
        let mut when = String::new();
        if let Some(s) = &l.since {
            let _ = write!(when, " since {s}");
        }
        if let Some(u) = &l.until {
            let _ = write!(when, " until {u}");
        }
        let closed = if history && l.until.is_some() { " (closed)" } else { "" };
        let _ = writeln!(out, "  {arrow} {} {}{when}{closed}", l.relation, l.other);
    }
    render::data(&out)
}

fn report_change(ctx: &Ctx, r: &op::GraphChange) -> cogmem::Result<()> {
    if ctx.global.json {
        return render::json(r);
    }
    let mut msg = String::new();
    match &r.commit {
        Some(c) => {
            let _ = writeln!(msg, "committed {}", render::short(c));
        }
        None => msg.push_str("nothing to change\n"),
    }
    for t in &r.trace {
        let _ = writeln!(msg, "  {t}");
    }
    render::status(ctx.global.quiet, &msg);
    Ok(())
}

pub fn run_supersede(ctx: &Ctx, args: &SupersedeArgs) -> cogmem::Result<Exit> {
    let clock = ctx.clock()?;
    let ws = ctx.workspace()?;
    let r = op::supersede(
        &ws,
        &args.old,
        &args.by,
        args.reason.as_deref(),
        ctx.actor()?,
        clock.as_ref(),
    )?;
    report_change(ctx, &r)?;
    Ok(Exit::Ok)
}
