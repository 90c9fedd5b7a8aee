//! The knowledge-graph tools: `graph_show`, `graph_neighbors`, `graph_path`,
//! `graph_history`, `graph_check`, `graph_stats`, `graph_export`, `graph_relations`,
//! `supersede`, `graph_rename` and `graph_retype`, each calling the `ops` function its command
//! calls.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::{answer, listed};
use crate::params::{
    EntityParams, ExportParams, GraphShowParams, NeighborsParams, NoParams, PathParams,
    RenameParams, RetypeParams, SupersedeParams,
};
use crate::{Server, schema};
use cogmem_ops::{graph, vocabulary};

#[tool_router(router = graph_router, vis = "pub(in crate)")]
impl Server {
    /// Show an entity of the knowledge graph: its names, status and relations (at a date with
    /// `as_of`).
    #[tool(
        title = "Show a graph entity",
        output_schema = schema::output("graph_show"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_show(&self, Parameters(p): Parameters<GraphShowParams>) -> CallToolResult {
        self.reply((|| {
            let now = self.clock.now();
            let as_of =
                p.as_of.as_deref().map(|s| graph::parse_as_of("as_of", s, &now)).transpose()?;
            answer(&graph::show(&self.ws, &p.entity, as_of.as_deref())?)
        })())
    }

    /// List the entities within `depth` hops of an entity in the knowledge graph, with their
    /// distance, type and status (following only relations that held on `as_of`, if given).
    #[tool(
        title = "Graph neighbours",
        output_schema = schema::output("graph_neighbors"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_neighbors(&self, Parameters(p): Parameters<NeighborsParams>) -> CallToolResult {
        self.reply((|| {
            let depth = p.depth.unwrap_or(1);
            let now = self.clock.now();
            let as_of =
                p.as_of.as_deref().map(|s| graph::parse_as_of("as_of", s, &now)).transpose()?;
            let ns = graph::neighbors(&self.ws, &p.entity, depth, as_of.as_deref())?;
            listed("neighbors", &ns)
        })())
    }

    /// The shortest chain of relations between two entities, as entity ids (`path` is null
    /// when they are not connected).
    #[tool(
        title = "Graph path",
        output_schema = schema::output("graph_path"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_path(&self, Parameters(p): Parameters<PathParams>) -> CallToolResult {
        self.reply((|| listed("path", &graph::path(&self.ws, &p.from, &p.to)?))())
    }

    /// Every relation an entity ever had, closed ones included, oldest first.
    #[tool(
        title = "Graph history",
        output_schema = schema::output("graph_history"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_history(&self, Parameters(p): Parameters<EntityParams>) -> CallToolResult {
        self.reply((|| answer(&graph::history(&self.ws, &p.entity)?))())
    }

    /// Check the graph: unknown relations, wrong endpoint types, cycles, dangling links and
    /// near-duplicate entities, each with its file and line (`findings` is empty when the
    /// graph is consistent).
    #[tool(
        title = "Check the graph",
        output_schema = schema::output("graph_check"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_check(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| listed("findings", &graph::check(&self.ws)?))())
    }

    /// The graph's size: entities, relations (current ones apart), components, dangling links
    /// and the most connected entities.
    #[tool(
        title = "Graph statistics",
        output_schema = schema::output("graph_stats"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_stats(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| answer(&graph::stats(&self.ws)?))())
    }

    /// The relation vocabulary (`memory/graph/relations.md`), inverses included: the names
    /// `remember` and `propose` accept in `relations`, with inverse, flags, endpoint types and
    /// meaning. A relation it lacks is refused; the user adds one with `cogmem graph relation
    /// add` at a terminal.
    #[tool(
        title = "Relation vocabulary",
        output_schema = schema::output("graph_relations"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_relations(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| listed("relations", &vocabulary::list(&self.ws)?))())
    }

    /// Export the graph (or one entity's neighbourhood) as a Mermaid diagram, Graphviz DOT or
    /// JSON, current relations only; `text` is the export.
    #[tool(
        title = "Export the graph",
        output_schema = schema::output("graph_export"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn graph_export(&self, Parameters(p): Parameters<ExportParams>) -> CallToolResult {
        self.reply((|| {
            let name = p.format.as_deref().unwrap_or("json");
            let format = match name {
                "mermaid" => graph::ExportFormat::Mermaid,
                "dot" => graph::ExportFormat::Dot,
                "json" => graph::ExportFormat::Json,
                other => {
                    return Err(cogmem_ops::error::InputError::Unknown {
                        what: "export format",
                        value: other.to_owned(),
                        expected: "mermaid, dot, json".into(),
                    }
                    .into());
                }
            };
            let depth = p.depth.unwrap_or(2);
            let text = graph::export(&self.ws, format, p.around.as_deref(), depth)?;
            answer(&json!({ "format": name, "text": text }))
        })())
    }

    /// Mark an entity superseded by another: the old one keeps its file and gets status
    /// superseded, the new one links `supersedes`, and what `depends-on` or `refines` the old
    /// one becomes inactive, recursively. One commit, with the trace.
    #[tool(
        title = "Supersede an entity",
        output_schema = schema::output("supersede"),
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn supersede(&self, Parameters(p): Parameters<SupersedeParams>) -> CallToolResult {
        self.reply((|| {
            answer(&graph::supersede(
                &self.ws,
                &p.old,
                &p.by,
                p.reason.as_deref(),
                self.writer(),
                self.clock.as_ref(),
            )?)
        })())
    }

    /// Give an entity another id, as one commit: its file moves, every link to it (entity
    /// files, MEMORY.md, procedures, vault notes, open proposals) and its decay entry follow,
    /// and the old id stays as an alias so what still says it (episodes) resolves. Refused
    /// when `new` exists (the two would need merging, which the user does at a terminal).
    #[tool(
        title = "Rename an entity",
        output_schema = schema::output("graph_rename"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn graph_rename(&self, Parameters(p): Parameters<RenameParams>) -> CallToolResult {
        self.reply((|| {
            answer(&graph::rename(&self.ws, &p.old, &p.new, self.writer(), self.clock.as_ref())?)
        })())
    }

    /// Give an entity another type, keeping its slug (`concept--hana` with type `person`
    /// becomes `person--hana`): a rename, with everything `graph_rename` does.
    #[tool(
        title = "Retype an entity",
        output_schema = schema::output("graph_retype"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn graph_retype(&self, Parameters(p): Parameters<RetypeParams>) -> CallToolResult {
        self.reply((|| {
            answer(&graph::retype(
                &self.ws,
                &p.entity,
                &p.kind,
                self.writer(),
                self.clock.as_ref(),
            )?)
        })())
    }
}
