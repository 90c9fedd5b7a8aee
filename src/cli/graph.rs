//! `cogmem graph …` and `cogmem supersede`.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use cogmem::ops::graph::{self as op, ExportFormat};
use cogmem::ops::vocabulary;

use super::exit::Exit;
use super::{Ctx, render};

const GRAPH_EXAMPLES: &str = "Examples:
  # Alice and her current relations
  cogmem graph show person--alice
  # Everything within two hops of the Atlas project
  cogmem graph neighbors project--atlas --depth 2
  # Look for broken links after editing entity files by hand
  cogmem graph check
  # The whole graph as a Mermaid diagram
  cogmem graph export --mermaid";

const SHOW_EXAMPLES: &str = "Examples:
  # Alice, her other names and her current relations
  cogmem graph show person--alice
  # What held for Alice at the start of 2026, and last week
  cogmem graph show person--alice --as-of 2026-01-01
  cogmem graph show person--alice --as-of \"last week\"
  # The same as JSON
  cogmem graph show person--alice --json";

const NEIGHBORS_EXAMPLES: &str = "Examples:
  # Who and what is linked directly to the Atlas project
  cogmem graph neighbors project--atlas
  # Everything within two hops of Alice, as JSON
  cogmem graph neighbors person--alice --depth 2 --json
  # Following only the relations that held at the start of 2026
  cogmem graph neighbors project--atlas --as-of 2026-01-01";

const PATH_EXAMPLES: &str = "Examples:
  # How Bob is connected to Lisbon
  cogmem graph path person--bob place--lisbon
  # The chain of entity ids as JSON
  cogmem graph path person--bob person--alice --json";

const HISTORY_EXAMPLES: &str = "Examples:
  # Every relation Alice ever had, including places she no longer lives in
  cogmem graph history person--alice
  # The Atlas project's history as JSON
  cogmem graph history project--atlas --json";

const CHECK_EXAMPLES: &str = "Examples:
  # Check the graph after editing entity files by hand (exit 3 if anything is wrong)
  cogmem graph check
  # The findings as JSON, for a script
  cogmem graph check --json";

const EXPORT_EXAMPLES: &str = "Examples:
  # The whole graph as a Mermaid diagram, to paste into a Markdown file
  cogmem graph export --mermaid
  # Alice's neighbourhood as Graphviz DOT
  cogmem graph export --dot --around person--alice --depth 1 > alice.dot
  # The whole graph as JSON
  cogmem graph export";

const STATS_EXAMPLES: &str = "Examples:
  # How big the graph is, and its most connected entities
  cogmem graph stats
  # The same as JSON
  cogmem graph stats --json";

const MERGE_EXAMPLES: &str = "Examples:
  # Alice was also remembered as person--alice-smith: fold that card into person--alice
  cogmem graph merge person--alice person--alice-smith
  # See the merged card, with its other name
  cogmem graph show person--alice";

const RENAME_EXAMPLES: &str = "Examples:
  # Hana was remembered without her name as person--user-sister: give the card her id
  cogmem graph rename person--user-sister person--hana
  # The same, with the commit and every file rewritten as JSON
  cogmem graph rename person--user-sister person--hana --json";

const RETYPE_EXAMPLES: &str = "Examples:
  # Hana was filed as a concept: make her a person (concept--hana becomes person--hana)
  cogmem graph retype concept--hana person
  # A printer filed as a person becomes a tool
  cogmem graph retype person--gutenberg tool";

const REBUILD_EXAMPLES: &str = "Examples:
  # Regenerate memory/graph/index.md after editing entity files by hand, and commit it
  cogmem graph rebuild
  # Then look for links the edit may have broken
  cogmem graph check";

const RELATION_EXAMPLES: &str = "Examples:
  # The relations entity files may use, with their inverses and types
  cogmem graph relation list
  # A new relation, followable from both ends: a person maintains a project or a tool
  cogmem graph relation add maintains --inverse maintained-by --signature 'person->project|tool'
  # A symmetric, functional one
  cogmem graph relation add married-to --symmetric --functional --signature 'person->person'";

const RELATION_LIST_EXAMPLES: &str = "Examples:
  # Every relation, with its inverse, flags and types
  cogmem graph relation list
  # The same as JSON, for a script
  cogmem graph relation list --json";

const RELATION_ADD_EXAMPLES: &str = "Examples:
  # A person maintains a project; read from the project, it is maintained-by
  cogmem graph relation add maintains --inverse maintained-by --signature 'person->project'
  # Its own inverse, one at a time
  cogmem graph relation add married-to --symmetric --functional --signature 'person->person'";

const SUPERSEDE_EXAMPLES: &str = "Examples:
  # Atlas moved from MySQL to Postgres: what depends on MySQL becomes inactive
  cogmem supersede tool--mysql --by tool--postgres --reason \"Atlas moved to Postgres\"
  # See the change in MySQL's relations
  cogmem graph history tool--mysql";

/// Look at, check and maintain the knowledge graph of entities and relations
///
/// The graph is built from memory/graph/entities/*.md and memory/graph/relations.md each time;
/// it is never stored. Entities may be named by id (`TYPE--SLUG`, or `entity:TYPE--SLUG` as
/// other commands show it), by a name or alias only they have, or by the start of exactly one
/// id; a name that fits none names the nearest ids.
#[derive(Args, Debug)]
#[command(after_long_help = GRAPH_EXAMPLES)]
pub struct GraphArgs {
    #[command(subcommand)]
    command: GraphCommand,
}

impl GraphArgs {
    /// Tells whether the subcommand may commit (and so adopts outside commits first).
    pub fn writes(&self) -> bool {
        matches!(
            self.command,
            GraphCommand::Merge { .. }
                | GraphCommand::Rename { .. }
                | GraphCommand::Retype { .. }
                | GraphCommand::Rebuild
                | GraphCommand::Relation { command: RelationCommand::Add { .. } }
        )
    }
}

#[derive(Subcommand, Debug)]
enum GraphCommand {
    /// Show an entity and its relations (at a date with --as-of)
    #[command(after_long_help = SHOW_EXAMPLES)]
    Show {
        /// The entity
        entity: String,
        /// Show what held on this date: `2026-03-01`, `yesterday`, `last week`, `先月`, … (any
        /// form `--since` takes; a week or month stands for its first day)
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// Entities within N hops (at a date with --as-of)
    #[command(after_long_help = NEIGHBORS_EXAMPLES)]
    Neighbors {
        /// The entity
        entity: String,
        /// How many hops (1 or more)
        #[arg(long, default_value_t = 1, value_name = "N", value_parser = parse_depth)]
        depth: usize,
        /// Follow only relations that held on this date (any form `--as-of` of `graph show`
        /// takes)
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
    },
    /// The shortest chain of relations between two entities
    #[command(after_long_help = PATH_EXAMPLES)]
    Path {
        /// One end
        from: String,
        /// The other end
        to: String,
    },
    /// Every relation an entity ever had, closed ones included, oldest first
    #[command(after_long_help = HISTORY_EXAMPLES)]
    History {
        /// The entity
        entity: String,
    },
    /// Find unknown relations, wrong endpoint types, cycles, dangling links and duplicates (exit 3)
    #[command(after_long_help = CHECK_EXAMPLES)]
    Check,
    /// Export as a Mermaid diagram, Graphviz DOT or JSON
    #[command(after_long_help = EXPORT_EXAMPLES)]
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
        /// Hops around --around (1 or more)
        #[arg(long, default_value_t = 2, value_name = "N", value_parser = parse_depth)]
        depth: usize,
    },
    /// Nodes, relations, components and hubs
    #[command(after_long_help = STATS_EXAMPLES)]
    Stats,
    /// Merge OTHER into KEEP: facts, aliases and relations move; OTHER becomes a redirect
    #[command(after_long_help = MERGE_EXAMPLES)]
    Merge {
        /// The entity that stays
        keep: String,
        /// The entity merged into it
        other: String,
    },
    /// Give an entity another id, rewriting every link to it; the old id stays as an alias
    ///
    /// One commit: the entity's file moves to the new id (title, self links), links in other
    /// entity files, MEMORY.md, procedures and vault notes, open proposals and the decay entry
    /// follow, and memory/graph/index.md is regenerated. Episodes are append-only and keep the
    /// old id, which still resolves as an alias. Refused when NEW exists (merge them with `graph
    /// merge` instead).
    #[command(after_long_help = RENAME_EXAMPLES)]
    Rename {
        /// The entity (id, or a name or alias only it has)
        old: String,
        /// Its new id, TYPE--SLUG
        new: String,
    },
    /// Give an entity another type, keeping its name (concept--hana → person--hana)
    ///
    /// A rename to TYPE--SLUG, with everything `graph rename` does. TYPE is one of the standard
    /// types (person, project, concept, tool, place, organization, preference, decision,
    /// event), a type an entity already has, or one relations.md names.
    #[command(after_long_help = RETYPE_EXAMPLES)]
    Retype {
        /// The entity (id, or a name or alias only it has)
        entity: String,
        /// The new type
        #[arg(value_name = "TYPE")]
        kind: String,
    },
    /// Regenerate memory/graph/index.md from the entity files (after hand edits)
    #[command(after_long_help = REBUILD_EXAMPLES)]
    Rebuild,
    /// List the relation vocabulary (memory/graph/relations.md), or add a relation to it
    ///
    /// Every command that writes a relation (`remember --relation`, `hear`, the MCP tools,
    /// `propose` and approving a proposal) refuses one the vocabulary lacks; add it here first.
    #[command(after_long_help = RELATION_EXAMPLES)]
    Relation {
        #[command(subcommand)]
        command: RelationCommand,
    },
}

#[derive(Subcommand, Debug)]
enum RelationCommand {
    /// List every relation, inverses included, with its flags, types and meaning
    #[command(after_long_help = RELATION_LIST_EXAMPLES)]
    List,
    /// Add a relation to memory/graph/relations.md (one commit, one audit line)
    ///
    /// Refused when NAME or the inverse is already known or is not lower-kebab case. Every
    /// relation is followable from both ends: give --inverse, or --symmetric.
    #[command(after_long_help = RELATION_ADD_EXAMPLES)]
    Add {
        /// The relation, lower-kebab: `maintains`
        name: String,
        /// Its name read from the other end: `maintained-by`
        #[arg(long, value_name = "NAME", required_unless_present = "symmetric")]
        inverse: Option<String>,
        /// It is its own inverse (`married-to`)
        #[arg(long, conflicts_with = "inverse")]
        symmetric: bool,
        /// Allowed entity types at each end: `'person->project'` (several with `|`; quote it, `>` is a
        /// shell redirection)
        #[arg(long, value_name = "FROM_TYPE->TO_TYPE")]
        signature: Option<String>,
        /// One current object per subject: a new one closes the old with `(until DATE)`
        #[arg(long)]
        functional: bool,
        /// No cycles allowed
        #[arg(long)]
        acyclic: bool,
        /// What it means, one line
        #[arg(long, value_name = "TEXT")]
        meaning: Option<String>,
    },
}

/// Mark an entity superseded by another, and deactivate what depended on it
///
/// OLD keeps its file and gets `Status: superseded`; NEW links `supersedes: [[OLD]]`. Every
/// entity that `depends-on` or `refines` OLD — and, recursively, what depends on those — becomes
/// `Status: inactive`, with a timeline line saying why. One commit, with the trace. Superseded
/// and inactive entities no longer come back in search and do not pass activation. OLD and
/// NEW are named as in `cogmem graph` (id, `entity:` id, a name only one has, a unique start).
#[derive(Args, Debug)]
#[command(after_long_help = SUPERSEDE_EXAMPLES)]
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
            let as_of = as_of_day(ctx, as_of.as_deref())?;
            let shown = op::show(&ws, entity, as_of.as_deref())?;
            print_shown(ctx, &shown, false)?;
        }
        GraphCommand::History { entity } => {
            let shown = op::history(&ws, entity)?;
            print_shown(ctx, &shown, true)?;
        }
        GraphCommand::Neighbors { entity, depth, as_of } => {
            let as_of = as_of_day(ctx, as_of.as_deref())?;
            let ns = op::neighbors(&ws, entity, *depth, as_of.as_deref())?;
            if json {
                render::json(&ns)?;
            } else {
                let out: String = ns
                    .iter()
                    .map(|n| {
                        let forgotten = if n.forgotten { ", forgotten" } else { "" };
                        format!("{}  {} ({}, {}{forgotten})\n", n.distance, n.id, n.kind, n.status)
                    })
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
                    Some(steps) => {
                        let ids: Vec<String> = steps
                            .iter()
                            .map(|s| {
                                if s.forgotten {
                                    format!("{} (forgotten)", s.id)
                                } else {
                                    s.id.clone()
                                }
                            })
                            .collect();
                        render::data(&format!("{}\n", ids.join(" — ")))?;
                    }
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
        GraphCommand::Rename { old, new } => {
            let clock = ctx.clock()?;
            report_renamed(ctx, &op::rename(&ws, old, new, ctx.actor()?, clock.as_ref())?)?;
        }
        GraphCommand::Retype { entity, kind } => {
            let clock = ctx.clock()?;
            report_renamed(ctx, &op::retype(&ws, entity, kind, ctx.actor()?, clock.as_ref())?)?;
        }
        GraphCommand::Rebuild => {
            let clock = ctx.clock()?;
            let r = op::rebuild(&ws, ctx.actor()?, clock.as_ref())?;
            report_change(ctx, &r)?;
        }
        GraphCommand::Relation { command } => return run_relation(ctx, &ws, command),
    }
    Ok(Exit::Ok)
}

fn run_relation(
    ctx: &Ctx,
    ws: &cogmem::Workspace,
    command: &RelationCommand,
) -> cogmem::Result<Exit> {
    match command {
        RelationCommand::List => {
            let list = vocabulary::list(ws)?;
            if ctx.global.json {
                render::json(&list)?;
            } else {
                let mut out = String::new();
                for entry in &list {
                    let r = &entry.spec;
                    let mut flags: Vec<String> = Vec::new();
                    if let Some(inv) = &r.inverse {
                        flags.push(format!("inverse {inv}"));
                    }
                    for (on, flag) in [(r.functional, "functional"), (r.acyclic, "acyclic")] {
                        if on {
                            flags.push(flag.to_owned());
                        }
                    }
                    if !r.from_types.is_empty() || !r.to_types.is_empty() {
                        flags.push(format!("{}->{}", r.from_types.join("|"), r.to_types.join("|")));
                    }
                    let meaning = if r.meaning.is_empty() {
                        String::new()
                    } else {
                        format!("  {}", r.meaning)
                    };
                    let flags = if flags.is_empty() {
                        String::new()
                    } else {
                        format!("  ({})", flags.join(", "))
                    };
                    let _ = writeln!(out, "{}{flags}{meaning}", entry.name);
                }
                render::data(&out)?;
            }
        }
        RelationCommand::Add {
            name,
            inverse,
            symmetric,
            signature,
            functional,
            acyclic,
            meaning,
        } => {
            let clock = ctx.clock()?;
            let (from_types, to_types) = signature
                .as_deref()
                .map(vocabulary::parse_signature)
                .transpose()?
                .unwrap_or_default();
            let new = cogmem::vocab::NewRelation {
                name: name.clone(),
                inverse: inverse.clone(),
                symmetric: *symmetric,
                functional: *functional,
                acyclic: *acyclic,
                from_types,
                to_types,
                meaning: meaning.clone().unwrap_or_default(),
            };
            let added = vocabulary::add(ws, &new, ctx.actor()?, clock.as_ref())?;
            if ctx.global.json {
                render::json(&added)?;
            } else {
                render::status(
                    ctx.global.quiet,
                    &format!(
                        "added to {}:{}: {}\ncommitted {}\n",
                        added.path,
                        added.line,
                        added.bullet,
                        render::short(&added.commit)
                    ),
                );
            }
        }
    }
    Ok(Exit::Ok)
}

fn print_shown(ctx: &Ctx, shown: &op::Shown, history: bool) -> cogmem::Result<()> {
    if ctx.global.json {
        return render::json(shown);
    }
    let n = &shown.node;
    let forgotten = if shown.forgotten { ", forgotten" } else { "" };
    let mut out = format!("{} ({}, {}{forgotten})  {}\n", n.id, n.kind, n.status, n.path);
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
        let forgotten = if l.forgotten { " (forgotten)" } else { "" };
        let _ = writeln!(out, "  {arrow} {} {}{forgotten}{when}{closed}", l.relation, l.other);
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

fn report_renamed(ctx: &Ctx, r: &op::Renamed) -> cogmem::Result<()> {
    if ctx.global.json {
        return render::json(r);
    }
    let mut msg = format!(
        "committed {}\n  {} renamed to {} (kept as an alias)\n",
        render::short(&r.commit),
        r.old,
        r.new
    );
    for f in &r.files {
        let _ = writeln!(msg, "  {f}");
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

/// The day `--as-of` names, read against the clock, as `YYYY-MM-DD`.
fn as_of_day(ctx: &Ctx, text: Option<&str>) -> cogmem::Result<Option<String>> {
    let Some(text) = text else { return Ok(None) };
    let now = ctx.clock()?.now();
    Ok(Some(op::parse_as_of("--as-of", text, &now)?))
}

/// A number of hops: at least one (zero would show nothing but the entity itself).
fn parse_depth(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` is not a number of hops; give 1 or more")),
    }
}
