//! The MCP server: the same operations as the command line, offered to MCP hosts (Claude
//! Desktop, Claude Code, Cursor, VS Code, …) as tools, resources and prompts over stdio.
//!
//! This is an adapter over [`cogmem_ops`], like the CLI: it parses tool arguments into the
//! requests the operations take, and turns their reports into the JSON the CLI's `--json`
//! prints and their errors into the text the CLI prints (`error: …`, then `hint: …`). It holds
//! no logic of its own. It never reads the environment: the workspace, the clock and the actor
//! come in through [`serve`]'s arguments. stdout is the protocol channel, so nothing else is
//! ever written there; the server writes nothing to stderr either.
//!
//! A server started for a sub-agent ([`Role::Subagent`]) lists only the reading tools and
//! `propose`, forces `hear` into a dry run, and refuses the writing tools if they are called
//! anyway.
//!
//! Resources: MEMORY.md, IDENTITY.md, SOUL.md, the reflection and reward logs, evolution.md and
//! today's episode log, as `cogmem://PATH`, and every memory by id through the template
//! `cogmem://memory/{id}`. Prompts: `reflect` and `consolidate_identity`, the texts of
//! `cogmem reflect input` and `cogmem identity consolidate input`.

#![warn(unreachable_pub)]

use std::fmt::Write as _;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};

use cogmem_ops::error::RuleError;
use cogmem_ops::{decay, identity, reflect};
use cogmem_store::audit::Actor;
use cogmem_store::store::fsx::IoError;
use cogmem_store::workspace::{Workspace, WorkspaceOptions, layout};
use cogmem_text::clock::Clock;

mod hint;
mod params;
mod schema;
mod tools;
mod wire;

use tools::WRITING_TOOLS;

/// What the agent connected to the server may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// The main agent: every tool, writing ones included.
    #[default]
    Main,
    /// A sub-agent: only the reading tools; `hear` is always a dry run.
    Subagent,
}

impl Role {
    /// Whether a server for this role lists the tool `name`: a sub-agent's lists none of the
    /// [`WRITING_TOOLS`].
    pub(crate) fn lists(self, name: &str) -> bool {
        self == Self::Main || !WRITING_TOOLS.contains(&name)
    }
}

/// Everything the server needs besides the workspace.
pub struct McpOptions {
    /// What the connected agent may do.
    pub role: Role,
    /// Who writes, when set: recorded in the audit log and as the commit author. `remember`
    /// and `pending` fall back to `agent:manual` ([`Actor::unnamed_agent`]: the server's stdin
    /// is the protocol, never a person at a terminal) and `forget` to `bot:trigger-forget`. A
    /// sub-agent's server is given `subagent:NAME`, and `propose` files its proposals under
    /// NAME whatever `from` says.
    pub actor: Option<Actor>,
    /// The clock every tool call reads the time from.
    pub clock: Box<dyn Clock>,
}

/// The URI scheme of the resources: `cogmem://MEMORY.md`.
const SCHEME: &str = "cogmem://";

/// The resource template of a memory by id: `cogmem://memory/{id}`.
const MEMORY_BY_ID: &str = "cogmem://memory/";

/// The prompts: name, title, description.
const PROMPTS: [(&str, &str, &str); 2] = [
    (
        "reflect",
        "Reflect",
        "The reflection input (memory within the granted budget, then the instructions), once \
         the user has granted the reflection's budget; answer with the reflect_submit tool",
    ),
    (
        "consolidate_identity",
        "Consolidate the self-image",
        "The self-image consolidation input (the Self-Image section, the archived months and \
         the recent self-awareness log, and the instructions asking for recurring, \
         contradicting, new and fading patterns), once 10 or more entries have accumulated; \
         answer with the identity_submit tool",
    ),
];

/// Serves `ws` over MCP on stdin and stdout until the client closes the connection.
///
/// Runs on a single-threaded tokio runtime; every tool call runs its operation to completion
/// before the next one starts. stdin is read by the `wire` layer, which answers every line it
/// refuses (over 16 MiB, nested deeper than 64 levels, not JSON, not a JSON-RPC request) with a
/// JSON-RPC error and keeps serving. A client that goes away before the initialize handshake
/// is not an error.
///
/// A purge that was killed half-way (its record `.cogmem/purge.json` is there) is finished
/// first, as before every CLI command: while the record waits, every write is refused.
///
/// Fails when the waiting purge cannot be finished, the runtime cannot start or the connection
/// breaks.
pub fn serve(ws: Workspace, options: McpOptions) -> cogmem_ops::Result<()> {
    // See: issue 16. The report has nowhere to go (stdout is the protocol, stderr stays
    // quiet); the purge's commit and audit line say what was done.
    cogmem_ops::purge::finish_pending(&ws, options.clock.as_ref())?;
    // While it runs, the server tells its own reads (and any other process's) which files
    // changed, as `cogmem watch` does, unless a watcher does already: a search then stats no
    // memory file (at 100,000 memories 13,000 of them, most of each search's time).
    let _reads = cogmem_ops::watch::serve_reads(&ws);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| IoError::new("<tokio runtime>", "start", e))?;
    let server = Server::new(ws, options);
    runtime.block_on(async move {
        let out = std::sync::Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
        let (messages, received) = tokio::sync::mpsc::channel(16);
        let pump = wire::pump(tokio::io::stdin(), messages, std::sync::Arc::clone(&out));
        let serve = async move {
            let running = match server.serve(wire::Wire::new(received, out)).await {
                Ok(running) => running,
                Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
                Err(e) => return Err(stdio_error(e)),
            };
            running.waiting().await.map_err(stdio_error)?;
            Ok(())
        };
        // The pump ends with stdin, or at the next line once rmcp has stopped listening.
        let (pumped, served) = tokio::join!(pump, serve);
        served?;
        pumped.map_err(|e| IoError::new("<stdin>", "read MCP messages from", e))?;
        Ok(())
    })
}

fn stdio_error(e: impl std::fmt::Display) -> cogmem_ops::Error {
    IoError::new("<stdio>", "serve MCP on", std::io::Error::other(e.to_string())).into()
}

/// The server state: one workspace, found once at start.
struct Server {
    ws: Workspace,
    role: Role,
    actor: Option<Actor>,
    clock: Box<dyn Clock>,
    tool_router: ToolRouter<Self>,
}

impl Server {
    fn new(ws: Workspace, options: McpOptions) -> Self {
        let McpOptions { role, actor, clock } = options;
        // The workspace lock refuses every write but `propose` to a sub-agent caller, whatever
        // a tool would commit as.
        let ws = match &actor {
            Some(a) => {
                let opts = WorkspaceOptions { caller: Some(a.clone()), ..ws.options().clone() };
                ws.with_options(opts)
            }
            None => ws,
        };
        let mut tool_router = Self::tool_router() + Self::graph_router() + Self::cycle_router();
        for name in WRITING_TOOLS.into_iter().filter(|name| !role.lists(name)) {
            tool_router.remove_route(name);
        }
        Self { ws, role, actor, clock, tool_router }
    }

    /// Formats an error as the CLI prints it, without colour: `error: …`, a `caused by:` line
    /// per cause, and `hint: …` after a blank line when there is a hint; but where the CLI
    /// names a flag, this names the argument ([`hint::with_arguments`]), and where it names a
    /// command, the tool that does it, if this server lists that tool ([`hint::for_mcp`]).
    fn error_text(&self, err: &cogmem_ops::Error) -> String {
        let renamed = hint::with_arguments(err);
        let err = renamed.as_ref().unwrap_or(err);
        let mut out = format!("error: {err}");
        for cause in err.causes() {
            let _ = write!(out, "\n  caused by: {cause}");
        }
        if let Some(hint) = err.hint() {
            let _ = write!(out, "\n\nhint: {hint}");
        }
        hint::for_mcp(&out, self.role)
    }

    /// The actor of a write: the server's, else `agent:manual` (never a person).
    fn writer(&self) -> Actor {
        self.actor.clone().unwrap_or_else(Actor::unnamed_agent)
    }

    /// The resources that exist now: the core files, the reflection and reward logs,
    /// evolution.md and today's episode log, by the clock.
    fn resources(&self) -> Vec<(String, &'static str)> {
        let today = layout::episode_file(&self.clock.now().format("%Y-%m-%d").to_string());
        [
            (layout::MEMORY_MD.to_owned(), "Core memory: always in the agent's context"),
            (layout::IDENTITY_MD.to_owned(), "Who the agent is"),
            (layout::SOUL_MD.to_owned(), "The agent's values and manner"),
            (reflect::REFLECTION_LOG.to_owned(), "One entry per approved reflection"),
            (
                reflect::REWARD_LOG.to_owned(),
                "One result per approved reflection, one record per rejected one",
            ),
            (
                reflect::EVOLUTION.to_owned(),
                "How understanding, rewards and penalties changed across reflections",
            ),
            (today, "Today's episode log"),
        ]
        .into_iter()
        .filter(|(rel, _)| self.ws.abs(rel).is_file())
        .collect()
    }

    fn instructions(&self) -> String {
        let mut text = String::from(
            "cogmem is long-term memory kept as Markdown files under git. Pass each user \
             message to `hear`; use `recall` before answering from memory, `context` for a \
             token-bounded memory pack, `remember` to store what the user wants kept, and \
             `forget` (first without confirm, then with confirm=true) to archive a memory \
             (`restore` undoes it), `pending` to review sub-agents' proposals, and \
             `reflect_status` to see where a reflection stands (the user decides and approves \
             with the command line). MEMORY.md, IDENTITY.md, SOUL.md, the reflection and \
             reward logs, evolution.md and today's episode log are resources; any memory is \
             cogmem://memory/{id}. The prompts `reflect` and `consolidate_identity` give the \
             reflection and self-image consolidation inputs.",
        );
        if self.role == Role::Subagent {
            text.push_str(
                " This server is for a sub-agent: it can read memory but not write it; \
                 `hear` never writes. Suggest memories with `propose`.",
            );
        }
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("cogmem", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.role.lists(&request.name) {
            let actor = self.actor.as_ref().map_or("subagent", Actor::as_str).to_owned();
            let err: cogmem_ops::Error = RuleError::SubagentWrite { actor }.into();
            return Ok(
                CallToolResult::error(vec![ContentBlock::text(self.error_text(&err))]).into()
            );
        }
        self.tool_router.call(ToolCallContext::new(self, request, context)).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self
            .resources()
            .into_iter()
            .map(|(rel, description)| {
                let name = rel.rsplit('/').next().unwrap_or(&rel).to_owned();
                Resource::new(format!("{SCHEME}{rel}"), name)
                    .with_title(rel.clone())
                    .with_description(description)
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(format!("{MEMORY_BY_ID}{{id}}"), "memory")
            .with_title("A memory by id")
            .with_description(
                "One memory, whole, by the id recall, search or status report (e.g. \
                 entity:person--alice); forgotten ones too",
            )
            .with_mime_type("text/markdown");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        // A file resource first: `cogmem://memory/meta/reward-log.md` is a file, and no id
        // holds a `/`.
        let file = uri
            .strip_prefix(SCHEME)
            .filter(|rel| self.resources().iter().any(|(r, _)| r == rel))
            .map(str::to_owned);
        let text = if let Some(rel) = file {
            self.ws
                .read_text(&rel)
                .map_err(|e| ErrorData::internal_error(self.error_text(&e.into()), None))?
        } else if let Some(id) = uri.strip_prefix(MEMORY_BY_ID) {
            // The same operation as the `show` tool: the memory's text, counted as a use.
            decay::show(&self.ws, id, self.clock.as_ref())
                .map(|shown| shown.unit.text)
                .map_err(|e| ErrorData::resource_not_found(self.error_text(&e), None))?
        } else {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {uri}; list the resources to see what there is, or read a \
                     memory as {MEMORY_BY_ID}ID"
                ),
                None,
            ));
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = PROMPTS
            .iter()
            .map(|(name, title, description)| {
                Prompt::new(*name, Some(*description), None).with_title(*title)
            })
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // The same operations as the `reflect_input` and `identity_input` tools; a step that
        // is not due yet is refused with the error they give.
        let text = match request.name.as_str() {
            "reflect" => reflect::input(&self.ws, self.clock.as_ref()).map(|b| b.text),
            "consolidate_identity" => identity::input(&self.ws).map(|i| i.text),
            other => {
                let names: Vec<&str> = PROMPTS.iter().map(|(n, _, _)| *n).collect();
                return Err(ErrorData::invalid_params(
                    format!("no prompt `{other}`; the prompts are {}", names.join(", ")),
                    None,
                ));
            }
        }
        .map_err(|e| ErrorData::invalid_params(self.error_text(&e), None))?;
        let description =
            PROMPTS.iter().find(|(n, _, _)| *n == request.name).map_or("", |(_, _, d)| *d);
        let message = PromptMessage::new_text(rmcp::model::Role::User, text);
        Ok(GetPromptResult::new(vec![message]).with_description(description).into())
    }
}
