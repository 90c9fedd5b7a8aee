//! The MCP tools: one per operation, each parsing its arguments the way the matching CLI
//! command parses its flags, calling [`cogmem_ops`] and answering with the JSON the CLI's
//! `--json` prints (or, on failure, a tool error with the text the CLI prints).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Role, Server, error_text};
use cogmem_index::index::RefreshReport;
use cogmem_index::index::search::SearchOptions;
use cogmem_ops::context::{ContextOptions, Encoding};
use cogmem_ops::forget::ForgetOptions;
use cogmem_ops::hear::HearOptions;
use cogmem_ops::remember::{self, Relation, RememberFields};
use cogmem_ops::search::SearchFields;
use cogmem_ops::{context, decay, forget, graph, hear, propose, reflect, search};
use cogmem_store::audit::Actor;
use cogmem_store::store::entity::EntityId;
use cogmem_store::store::{Confidence, Store};

/// Arguments of `remember`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RememberParams {
    /// The text to remember (at most `limits.text_bytes`, 64 KiB by default).
    text: String,
    /// Stores to write to: core, episodic, semantic, procedural, vault. Default: episodic, or
    /// semantic when entities or relations are given.
    #[serde(default)]
    stores: Vec<String>,
    /// Entities the fact is about, as TYPE--SLUG, e.g. `person--alice`.
    #[serde(default)]
    entities: Vec<String>,
    /// Relations between entities, as `FROM|RELATION|TO`, e.g.
    /// `person--alice|works-on|project--atlas`.
    #[serde(default)]
    relations: Vec<String>,
    /// Tags, e.g. `["db", "alice"]`.
    #[serde(default)]
    tags: Vec<String>,
    /// How sure the memory is: high (default), medium, low.
    confidence: Option<String>,
    /// Episode entry type: decision, fact, preference, task, event, emotion, correction.
    #[serde(rename = "type")]
    entry_type: Option<String>,
    /// Write the text even if it looks like a credential (a key, a token, `password=`…);
    /// without it such text is refused.
    #[serde(default)]
    allow_secret: bool,
}

/// Arguments of `hear`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct HearParams {
    /// The user's message, word for word.
    message: String,
    /// Detect and route, but write nothing (always on for a sub-agent).
    #[serde(default)]
    dry_run: bool,
    /// Remember the message even if it looks like a credential; without it such a message is
    /// refused.
    #[serde(default)]
    allow_secret: bool,
}

/// Arguments of `recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RecallParams {
    /// What to recall.
    query: String,
    /// At most this many results (default 10).
    limit: Option<usize>,
    /// Include dormant memories (archived ones never come back).
    #[serde(default)]
    all: bool,
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SearchParams {
    /// What to search for.
    query: String,
    /// Only this store: core, episodic, semantic, procedural, vault.
    store: Option<String>,
    /// At most this many results (default 10).
    limit: Option<usize>,
    /// Include dormant memories (archived ones never come back).
    #[serde(default)]
    all: bool,
}

/// Arguments of `context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ContextParams {
    /// What the conversation is about; without it, the most relevant recent episodes.
    query: Option<String>,
    /// The most tokens the pack may take (counted with cl100k_base).
    budget: usize,
}

/// Arguments of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ShowParams {
    /// The memory's id, as `recall` or `search` report it.
    id: String,
}

/// Arguments of `forget`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ForgetParams {
    /// The memory's id, as `recall` or `search` report it.
    id: String,
    /// Forget it. Without `true`, nothing is forgotten: the memory is described instead.
    #[serde(default)]
    confirm: bool,
}

/// Arguments of `graph_neighbors`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NeighborsParams {
    /// The entity: its id (TYPE--SLUG), or a name or alias only it has.
    entity: String,
    /// How many hops (default 1).
    depth: Option<usize>,
}

/// Arguments of `propose`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ProposeParams {
    /// The memory to propose (at most `limits.text_bytes`, 64 KiB by default).
    text: String,
    /// Suggested store: episodic, semantic, procedural, vault or core. Default: semantic
    /// with entities or relations, else episodic.
    store: Option<String>,
    /// Entities it is about, as TYPE--SLUG.
    #[serde(default)]
    entities: Vec<String>,
    /// Relations, as `FROM|RELATION|TO`.
    #[serde(default)]
    relations: Vec<String>,
    /// How sure you are: high, medium (default), low.
    confidence: Option<String>,
    /// Whether it belongs in core memory, in your view.
    #[serde(default)]
    core_worthy: bool,
    /// The proposing agent's name; default: the server's `--agent`.
    from: Option<String>,
    /// Propose the text even if it looks like a credential; without it such text is refused.
    #[serde(default)]
    allow_secret: bool,
}

/// Arguments of `pending`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PendingParams {
    /// `list` (open proposals), `list_all`, `show`, `approve`, `reject` or `defer`.
    action: String,
    /// The proposal's number (all actions but the lists).
    number: Option<u32>,
    /// For `approve`: write to this store instead of the suggested one.
    store: Option<String>,
    /// For `reject` (required) and `defer`: why.
    reason: Option<String>,
}

/// Arguments of a tool that takes none: any argument is refused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoParams {}

/// Pretty JSON with a final newline, as `render::json` prints it on the command line.
fn json<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("report types always serialise");
    text.push('\n');
    text
}

/// The answer to a tool call: its text blocks, or the error as the CLI prints it.
fn reply(result: cogmem_ops::Result<Vec<String>>) -> CallToolResult {
    match result {
        Ok(texts) => CallToolResult::success(texts.into_iter().map(ContentBlock::text).collect()),
        Err(err) => CallToolResult::error(vec![ContentBlock::text(error_text(&err))]),
    }
}

/// The JSON, then one `warning:` block for the files the index refresh had to skip (the CLI
/// prints those on stderr and exits 3).
fn with_warnings(json: String, refresh: &RefreshReport) -> Vec<String> {
    let mut out = vec![json];
    if !refresh.skipped.is_empty() {
        out.push(
            refresh.skipped.iter().map(|s| format!("warning: skipped {}\n", s.error)).collect(),
        );
    }
    out
}

fn search_options(
    limit: Option<usize>,
    all: bool,
    now: &cogmem_text::Timestamp,
) -> cogmem_ops::Result<SearchOptions> {
    SearchFields { limit, all, ..SearchFields::default() }.to_options(now)
}

#[tool_router(vis = "pub(super)")]
impl Server {
    /// Store a memory and commit it. Writes the text to each chosen store (default: today's
    /// episode log; the semantic store when entities or relations are given), records a decay
    /// entry for every new memory, one audit line per changed file and exactly one git commit.
    /// Text already remembered is not written twice.
    #[tool(annotations(read_only_hint = false, destructive_hint = false, open_world_hint = false))]
    fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        reply((|| {
            let actor = self.writer();
            let fields = RememberFields {
                text: p.text.clone(),
                stores: p.stores.clone(),
                entry_type: p.entry_type.clone(),
                entities: p.entities.clone(),
                relations: p.relations.clone(),
                tags: p.tags.clone(),
                confidence: p.confidence.clone(),
                allow_secret: p.allow_secret,
                ..RememberFields::default()
            };
            let mut req = fields.to_request(actor, &self.clock.now())?;
            req.trigger = "cogmem mcp remember".into();
            let report = remember::remember(&self.ws, &req, self.clock.as_ref())?;
            Ok(vec![json(&report)])
        })())
    }

    /// Act on a user's message: pass every user message. Detects whether the user asked to
    /// remember something (then writes it as one commit), to forget something (then lists
    /// candidates; nothing is forgotten until `forget` is called with confirm=true), to recall
    /// something (then returns what matches) or to reflect. An ordinary message changes
    /// nothing.
    #[tool(annotations(read_only_hint = false, destructive_hint = false, open_world_hint = false))]
    fn hear(&self, Parameters(p): Parameters<HearParams>) -> CallToolResult {
        reply((|| {
            let opts = HearOptions {
                dry_run: p.dry_run || self.role == Role::Subagent,
                caller: self.actor.clone(),
                allow_secret: p.allow_secret,
            };
            let report = hear::hear(&self.ws, &p.message, &opts, self.clock.as_ref())?;
            Ok(vec![json(&report)])
        })())
    }

    /// Recall what is remembered about something: the best matches by BM25 weighted by each
    /// memory's decayed relevance, grouped by store with core memory first. Every result
    /// counts as a use, which keeps it from fading (recorded in the derived access log, not in
    /// the memory files).
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn recall(&self, Parameters(p): Parameters<RecallParams>) -> CallToolResult {
        reply((|| {
            let opts = search_options(p.limit, p.all, &self.clock.now())?;
            let report = search::recall(&self.ws, &p.query, &opts, self.clock.as_ref())?;
            Ok(with_warnings(json(&report.groups), &report.refresh))
        })())
    }

    /// Search memories, best matches first (core memory first). Same ranking as `recall`,
    /// but the results are not counted as uses.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn search(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        reply((|| {
            let opts = SearchFields {
                store: p.store.clone(),
                limit: p.limit,
                all: p.all,
                ..SearchFields::default()
            }
            .to_options(&self.clock.now())?;
            let report = search::search(&self.ws, &p.query, &opts, self.clock.as_ref())?;
            Ok(with_warnings(json(&report.hits), &report.refresh))
        })())
    }

    /// Build the memory pack to put in a prompt, within a token budget: core memory first,
    /// then the memories that best match the query (or, without one, the most relevant recent
    /// episodes), then the cards of the entities they name. The `text` field is the pack; the
    /// receipt says why each candidate was selected or left out. Selected memories count as
    /// uses.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn context(&self, Parameters(p): Parameters<ContextParams>) -> CallToolResult {
        reply((|| {
            let opts =
                ContextOptions { budget: p.budget, encoding: Encoding::Cl100k, threshold: 0.2 };
            let pack = context::context(&self.ws, p.query.as_deref(), &opts, self.clock.as_ref())?;
            Ok(vec![json(&pack)])
        })())
    }

    /// Show one memory whole, by id, with its decay score and (for an episode entry) the
    /// entries around it. Forgotten memories can be shown too. Counts as a use.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn show(&self, Parameters(p): Parameters<ShowParams>) -> CallToolResult {
        reply((|| {
            let shown = decay::show(&self.ws, &p.id, self.clock.as_ref())?;
            Ok(vec![json(&shown)])
        })())
    }

    /// Forget a memory by id: archive it, so it no longer comes back in recall (the files
    /// keep it, and `cogmem restore ID` undoes it). Without confirm=true, nothing is forgotten:
    /// the memory is described so the user can confirm. Pinned (vault) memories are refused.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = true,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    fn forget(&self, Parameters(p): Parameters<ForgetParams>) -> CallToolResult {
        reply((|| {
            let ids = vec![p.id];
            if !p.confirm {
                let candidates = forget::describe(&self.ws, &ids)?;
                let report = serde_json::json!({ "candidates": candidates, "forgotten": [] });
                return Ok(vec![
                    json(&report),
                    "nothing forgotten; to forget it, call `forget` again with confirm=true\n"
                        .to_owned(),
                ]);
            }
            let opts = ForgetOptions {
                permanent: false,
                force: false,
                actor: self.actor.clone().unwrap_or_else(|| Actor::system("bot:trigger-forget")),
                trigger: "cogmem mcp forget".into(),
            };
            let report = forget::forget(&self.ws, &ids, &opts, self.clock.as_ref())?;
            Ok(vec![json(&report)])
        })())
    }

    /// List the entities within `depth` hops of an entity in the knowledge graph, with their
    /// distance, type and status.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn graph_neighbors(&self, Parameters(p): Parameters<NeighborsParams>) -> CallToolResult {
        reply((|| {
            let ns = graph::neighbors(&self.ws, &p.entity, p.depth.unwrap_or(1), None)?;
            Ok(vec![json(&ns)])
        })())
    }

    /// Where the reflection cycle stands: idle, awaiting the user's decision on a reward
    /// request, ready for input, or awaiting the user's approval of a submitted reflection;
    /// who must act next, and the commands allowed now. Reward decisions and approvals are
    /// the user's, made with the cogmem command line, never by an agent.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    fn reflect_status(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        reply((|| Ok(vec![json(&reflect::status(&self.ws)?)]))())
    }

    /// Propose a memory for the main agent to approve: what a sub-agent does instead of
    /// writing. Appends a numbered proposal to memory/meta/pending-memories.md (one commit);
    /// nothing reaches memory until the main agent approves it. A repeat of an open proposal
    /// is refused; a contradiction of an open proposal or a current fact is marked CONFLICT.
    #[tool(annotations(read_only_hint = false, destructive_hint = false, open_world_hint = false))]
    fn propose(&self, Parameters(p): Parameters<ProposeParams>) -> CallToolResult {
        reply((|| {
            let Some(from) = propose::proposer(p.from.as_deref(), self.actor.as_ref())? else {
                return Err(cogmem_ops::error::InputError::Unknown {
                    what: "proposing agent",
                    value: self.writer().to_string(),
                    expected:
                        "a `from` argument, or a server started with `--role subagent --agent NAME`"
                            .into(),
                }
                .into());
            };
            let req = propose::ProposeRequest {
                text: p.text.clone(),
                from,
                store: p.store.as_deref().map(Store::parse).transpose()?,
                entities: p
                    .entities
                    .iter()
                    .map(|e| EntityId::parse(e))
                    .collect::<Result<_, _>>()?,
                relations: p
                    .relations
                    .iter()
                    .map(|r| Relation::parse(r))
                    .collect::<Result<_, _>>()?,
                confidence: p.confidence.as_deref().map(Confidence::parse).transpose()?,
                core_worthy: p.core_worthy,
                trigger: "cogmem mcp propose".into(),
                allow_secret: p.allow_secret,
            };
            Ok(vec![json(&propose::propose(&self.ws, &req, self.clock.as_ref())?)])
        })())
    }

    /// Review sub-agents' proposals (main agent only): `list` the open ones, `show` one,
    /// `approve` it (written to memory with actor bot:commit-from:NAME, one commit),
    /// `reject` it with a reason, or `defer` it.
    #[tool(annotations(read_only_hint = false, destructive_hint = false, open_world_hint = false))]
    fn pending(&self, Parameters(p): Parameters<PendingParams>) -> CallToolResult {
        reply((|| {
            let number = || {
                p.number.ok_or_else(|| cogmem_ops::error::InputError::Unknown {
                    what: "proposal number",
                    value: "none".into(),
                    expected: "a `number` argument".into(),
                })
            };
            let by = self.writer();
            let decision = match p.action.as_str() {
                "list" | "list_all" => {
                    let file = propose::read(&self.ws)?;
                    let shown: Vec<_> = file
                        .proposals
                        .iter()
                        .filter(|x| p.action == "list_all" || x.status.is_open())
                        .collect();
                    let mut out = vec![json(&shown)];
                    if !file.problems.is_empty() {
                        out.push(
                            file.problems
                                .iter()
                                .map(|(line, why)| {
                                    format!("warning: skipped {}:{line}: {why}\n", propose::PENDING)
                                })
                                .collect(),
                        );
                    }
                    return Ok(out);
                }
                "show" => return Ok(vec![json(&propose::get(&self.ws, number()?)?)]),
                "approve" => propose::Decision::Approve {
                    store: p.store.as_deref().map(Store::parse).transpose()?,
                },
                "reject" => {
                    propose::Decision::Reject { reason: p.reason.clone().unwrap_or_default() }
                }
                "defer" => propose::Decision::Defer { reason: p.reason.clone() },
                other => {
                    return Err(cogmem_ops::error::InputError::Unknown {
                        what: "pending action",
                        value: other.to_owned(),
                        expected: "list, list_all, show, approve, reject, defer".into(),
                    }
                    .into());
                }
            };
            let report = propose::decide(&self.ws, number()?, &decision, &by, self.clock.as_ref())?;
            Ok(vec![json(&report)])
        })())
    }
}
