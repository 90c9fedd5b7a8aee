//! The MCP tools: one per operation an agent may run, each parsing its arguments the way the
//! matching CLI command parses its flags, calling the same [`cogmem_ops`] function and
//! answering with the JSON the CLI's `--json` prints, as structured content and as text (or, on
//! failure, a tool error with the text the CLI prints, its hint naming tools).
//!
//! Every tool has a title, the four annotations and an `outputSchema` ([`crate::schema`]).
//! Where the command's `--json` is a list, the answer is an object holding it under one key
//! (`{"groups": […]}`), since MCP's structured content is an object.
//!
//! Left out, on purpose: the steps only a person may take (`reflect decide`, `reflect
//! approve`, `reflect reject`, `identity consolidate approve`/`reject`, `audit ack`, `flag
//! resolve`), which a
//! model calling tools must never take for them; and the maintenance commands (`init`, `sync`,
//! `watch`, `doctor`, `verify`, `reindex`, `import`, `graph merge`/`rebuild`, `forget
//! --permanent`/`--purge`, `audit compact`, `upkeep`), which a person runs from a terminal or a
//! timer.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use serde::Serialize;
use serde_json::{Value, json};

use super::params::{
    AuditParams, ContextParams, DecayParams, FlagListParams, ForgetParams, HearParams, IdParams,
    PendingParams, ProposeParams, RecallParams, RememberParams, SearchParams, ShowParams,
    StatusParams,
};
mod cycle;
mod map;

use super::{Role, Server, schema};
use cogmem_index::index::RefreshReport;
use cogmem_index::index::search::SearchOptions;
use cogmem_ops::context::{ContextOptions, Encoding};
use cogmem_ops::forget::ForgetOptions;
use cogmem_ops::hear::HearOptions;
use cogmem_ops::id::Match;
use cogmem_ops::remember::{self, Relation, RememberFields};
use cogmem_ops::search::SearchFields;
use cogmem_ops::{audit, context, decay, flag, forget, hear, propose, search, status};
use cogmem_store::audit::{Actor, AuditFilter};
use cogmem_store::store::entity::EntityId;
use cogmem_store::store::{Confidence, Store};

/// The names of the tools that change the workspace. A sub-agent's server neither lists nor
/// runs them; it keeps the reading tools and `propose`.
pub(crate) const WRITING_TOOLS: [&str; 14] = [
    "remember",
    "touch",
    "forget",
    "restore",
    "pin",
    "unpin",
    "supersede",
    "graph_rename",
    "graph_retype",
    "pending",
    "reflect_request",
    "reflect_submit",
    "identity_submit",
    "decay",
];

/// A tool's answer: the structured content, and any notes (warnings) to add as text.
struct Answer {
    value: Value,
    notes: Vec<String>,
}

/// The answer that is `report`, as the CLI's `--json` prints it.
fn answer<T: Serialize>(report: &T) -> cogmem_ops::Result<Answer> {
    let value = serde_json::to_value(report).expect("report types always serialise");
    Ok(Answer { value, notes: Vec::new() })
}

/// The answer that is a list, held under `key`: MCP's structured content is an object.
fn listed<T: Serialize>(key: &str, list: &T) -> cogmem_ops::Result<Answer> {
    answer(&json!({ key: list }))
}

impl Server {
    /// The answer to a tool call: the structured content with the same JSON as text (pretty,
    /// with a final newline, as the CLI prints it), then the notes; or the error as the CLI
    /// prints it, naming the tools this server lists.
    fn reply(&self, result: cogmem_ops::Result<Answer>) -> CallToolResult {
        match result {
            Ok(Answer { value, notes }) => {
                let mut text =
                    serde_json::to_string_pretty(&value).expect("a JSON value always serialises");
                text.push('\n');
                let mut result = CallToolResult::structured(value);
                result.content = vec![ContentBlock::text(text)];
                result.content.extend(notes.into_iter().map(ContentBlock::text));
                result
            }
            Err(err) => CallToolResult::error(vec![ContentBlock::text(self.error_text(&err))]),
        }
    }

    /// Refuses a query over the workspace's `limits.text_bytes` (64 KiB by default), the limit
    /// of the text `remember` takes: the server serves one call at a time, and a query of
    /// megabytes would keep it from every other for as long as it takes.
    fn check_query(&self, query: &str) -> cogmem_ops::Result<()> {
        let limit = self.ws.settings().limits.text_bytes;
        if query.len() > limit {
            let err = cogmem_ops::error::InputError::ArgumentTooLong {
                arg: "query",
                bytes: query.len(),
                limit,
            };
            return Err(err.into());
        }
        Ok(())
    }
}

/// One `warning:` note for the files the index refresh had to skip (the CLI prints those on
/// stderr and exits 3).
fn refresh_notes(refresh: &RefreshReport) -> Vec<String> {
    if refresh.skipped.is_empty() {
        return Vec::new();
    }
    vec![refresh.skipped.iter().map(|s| format!("warning: skipped {}\n", s.error)).collect()]
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
    /// Text already remembered is not written twice. Takes every option of `cogmem remember`.
    #[tool(
        title = "Remember",
        output_schema = schema::output("remember"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn remember(&self, Parameters(p): Parameters<RememberParams>) -> CallToolResult {
        self.reply((|| {
            let actor = self.writer();
            let report = match &p.routing {
                Some(routing) => {
                    // The routing answer decides these; given too, they would be dropped
                    // without a word (the CLI refuses `--routing` with their flags as well).
                    let others = p.decided_by_routing();
                    if !others.is_empty() {
                        return Err(cogmem_ops::error::InputError::ArgumentConflict {
                            arg: "routing",
                            others,
                            why: "the routing answer decides them",
                        }
                        .into());
                    }
                    remember::remember_routing(
                        &self.ws,
                        &p.text,
                        routing,
                        p.at.as_deref(),
                        actor,
                        p.allow_secret,
                        self.clock.as_ref(),
                    )?
                }
                None => {
                    let fields = RememberFields {
                        text: p.text.clone(),
                        stores: p.stores.clone(),
                        entry_type: p.entry_type.clone(),
                        entities: p.entities.clone(),
                        relations: p.relations.clone(),
                        tags: p.tags.clone(),
                        confidence: p.confidence.clone(),
                        at: p.at.clone(),
                        section: p.section.clone(),
                        title: p.title.clone(),
                        allow_secret: p.allow_secret,
                    };
                    let mut req = fields.to_request(actor, &self.clock.now())?;
                    req.trigger = "cogmem mcp remember".into();
                    remember::remember(&self.ws, &req, self.clock.as_ref())?
                }
            };
            answer(&report)
        })())
    }

    /// Act on a user's message: pass every user message. Detects whether the user asked to
    /// remember something (then writes it as one commit), to forget something (then lists
    /// candidates; nothing is forgotten until `forget` is called with confirm=true), to recall
    /// something (then returns what matches) or to reflect. An ordinary message changes
    /// nothing.
    #[tool(
        title = "Hear a user message",
        output_schema = schema::output("hear"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn hear(&self, Parameters(p): Parameters<HearParams>) -> CallToolResult {
        self.reply((|| {
            let opts = HearOptions {
                dry_run: p.dry_run || self.role == Role::Subagent,
                caller: self.actor.clone(),
                allow_secret: p.allow_secret,
                ..Default::default()
            };
            let mut a = answer(&hear::hear(&self.ws, &p.message, &opts, self.clock.as_ref())?)?;
            super::hint::for_mcp_answer("hear", &mut a.value, self.role);
            Ok(a)
        })())
    }

    /// Recall what is remembered about something: the best matches by BM25 weighted by each
    /// memory's decayed relevance, grouped by store with core memory first. Every result
    /// counts as a use, which keeps it from fading (recorded in the derived access log, not in
    /// the memory files).
    #[tool(
        title = "Recall memories",
        output_schema = schema::output("recall"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn recall(&self, Parameters(p): Parameters<RecallParams>) -> CallToolResult {
        self.reply((|| {
            self.check_query(&p.query)?;
            let opts = search_options(p.limit, p.all, &self.clock.now())?;
            let report = search::recall(&self.ws, &p.query, &opts, self.clock.as_ref())?;
            let mut a = listed("groups", &report.groups)?;
            a.notes = refresh_notes(&report.refresh);
            Ok(a)
        })())
    }

    /// Search memories, best matches first (core memory first). Same ranking as `recall`,
    /// but the results are not counted as uses.
    #[tool(
        title = "Search memories",
        output_schema = schema::output("search"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn search(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        self.reply((|| {
            self.check_query(&p.query)?;
            let opts = SearchFields {
                store: p.store.clone(),
                limit: p.limit,
                all: p.all,
                ..SearchFields::default()
            }
            .to_options(&self.clock.now())?;
            let report = search::search(&self.ws, &p.query, &opts, self.clock.as_ref())?;
            let mut a = if p.explain {
                answer(&json!({ "hits": report.hits, "reading": report.reading }))?
            } else {
                listed("hits", &report.hits)?
            };
            a.notes = refresh_notes(&report.refresh);
            Ok(a)
        })())
    }

    /// Build the memory pack to put in a prompt, within a token budget: core memory first,
    /// then the memories that best match the query (or, without one, the most relevant recent
    /// episodes), then the cards of the entities they name. Each memory is in once (an entity
    /// found by the query as its card), and relations that no longer hold are marked
    /// `formerly`, never shown as current. The `text` field is the pack; the receipt says why
    /// each candidate was selected or left out (`duplicate_of` names what already says it).
    /// Selected memories count as uses.
    #[tool(
        title = "Memory context pack",
        output_schema = schema::output("context"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn context(&self, Parameters(p): Parameters<ContextParams>) -> CallToolResult {
        self.reply((|| {
            if let Some(query) = &p.query {
                self.check_query(query)?;
            }
            let opts =
                ContextOptions { budget: p.budget, encoding: Encoding::Cl100k, threshold: 0.2 };
            answer(&context::context(&self.ws, p.query.as_deref(), &opts, self.clock.as_ref())?)
        })())
    }

    /// Show one memory whole, by id, with its decay score and (for an episode entry) the
    /// entries around it. Forgotten memories can be shown too. Counts as a use.
    #[tool(
        title = "Show a memory",
        output_schema = schema::output("show"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn show(&self, Parameters(p): Parameters<ShowParams>) -> CallToolResult {
        self.reply((|| answer(&decay::show(&self.ws, &p.id, self.clock.as_ref())?))())
    }

    /// Forget a memory by id: archive it, so it no longer comes back in recall (the files
    /// keep it, and the `restore` tool undoes it). Without confirm=true, nothing is forgotten:
    /// the memory is described so the user can confirm. Pinned (vault) memories are refused.
    #[tool(
        title = "Forget a memory",
        output_schema = schema::output("forget"),
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn forget(&self, Parameters(p): Parameters<ForgetParams>) -> CallToolResult {
        self.reply((|| {
            let ids = vec![p.id];
            if !p.confirm {
                let candidates = forget::describe(&self.ws, &ids, Match::Prefix)?;
                let mut a = answer(&json!({ "candidates": candidates, "forgotten": [] }))?;
                a.notes.push(
                    "nothing forgotten; to forget it, call `forget` again with confirm=true\n"
                        .to_owned(),
                );
                return Ok(a);
            }
            let opts = ForgetOptions {
                permanent: false,
                force: false,
                actor: self.actor.clone().unwrap_or_else(|| Actor::system("bot:trigger-forget")),
                trigger: "cogmem mcp forget".into(),
            };
            answer(&forget::forget(&self.ws, &ids, &opts, self.clock.as_ref())?)
        })())
    }

    /// Put back a forgotten memory exactly as it was, in one commit.
    #[tool(
        title = "Restore a forgotten memory",
        output_schema = schema::output("restore"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn restore(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.reply((|| {
            answer(&forget::restore(&self.ws, &p.id, self.writer(), self.clock.as_ref())?)
        })())
    }

    /// Pin a memory so it never fades (its decay score stays 1.0), in one commit.
    #[tool(
        title = "Pin a memory",
        output_schema = schema::output("pin"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn pin(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.reply((|| {
            answer(&decay::pin(&self.ws, &p.id, true, self.writer(), self.clock.as_ref())?)
        })())
    }

    /// Let a pinned memory fade like any other again, in one commit.
    #[tool(
        title = "Unpin a memory",
        output_schema = schema::output("unpin"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn unpin(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.reply((|| {
            answer(&decay::pin(&self.ws, &p.id, false, self.writer(), self.clock.as_ref())?)
        })())
    }

    /// Explain a memory's decay score: its inputs (base relevance, type weight, uses, last
    /// use, pinned), the formula and its band.
    #[tool(
        title = "Why this decay score",
        output_schema = schema::output("why"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn why(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.reply((|| answer(&decay::why(&self.ws, &p.id, self.clock.as_ref())?))())
    }

    /// Record a use of a memory, so it stays fresh: appended to the derived access log (no
    /// commit) and folded into the decay scores by the next change or `decay`.
    #[tool(
        title = "Record a use",
        output_schema = schema::output("touch"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn touch(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.reply((|| {
            let id = decay::touch(&self.ws, &p.id, self.clock.as_ref())?;
            answer(&json!({ "id": id }))
        })())
    }

    /// The workspace at a glance: what each store holds, uncommitted hand edits, recent
    /// commits, the index's state, and changes to critical files (SOUL.md, IDENTITY.md) not yet
    /// acknowledged by the user.
    #[tool(
        title = "Workspace status",
        output_schema = schema::output("status"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn status(&self, Parameters(p): Parameters<StatusParams>) -> CallToolResult {
        self.reply((|| answer(&status::status(&self.ws, p.commits.unwrap_or(5))?))())
    }

    /// The contradictions and doubts approved reflections flagged on memories: the open ones
    /// (with `all`, resolved ones too). Only the user resolves a flag, at a terminal.
    #[tool(
        title = "Flags",
        output_schema = schema::output("flag_list"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn flag_list(&self, Parameters(p): Parameters<FlagListParams>) -> CallToolResult {
        self.reply((|| {
            let list = flag::list(&self.ws, p.all)?;
            let mut a = answer(&list)?;
            if !list.skipped.is_empty() {
                a.notes
                    .push(list.skipped.iter().map(|s| format!("warning: skipped {s}\n")).collect());
            }
            Ok(a)
        })())
    }

    /// Query the audit log: who changed which file, when and why, oldest first. Filters
    /// combine. Malformed lines are listed under `skipped`.
    #[tool(
        title = "Audit log",
        output_schema = schema::output("audit"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn audit(&self, Parameters(p): Parameters<AuditParams>) -> CallToolResult {
        self.reply((|| {
            let now = self.clock.now();
            let filter = AuditFilter {
                since: p
                    .since
                    .as_deref()
                    .map(|s| audit::parse_since("since", s, now))
                    .transpose()?,
                actor: p.actor.clone(),
                action: p.action.as_deref().map(audit::parse_action).transpose()?,
                file: p.file.clone(),
                critical: p.critical,
            };
            answer(&audit::query(&self.ws, &filter, p.limit)?)
        })())
    }

    /// Recompute every decay score now and commit the band changes as `system:decay` (one
    /// commit; nothing is deleted, archived memories stay in the files). With dry_run, only
    /// report what would change.
    #[tool(
        title = "Run decay",
        output_schema = schema::output("decay"),
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn decay(&self, Parameters(p): Parameters<DecayParams>) -> CallToolResult {
        self.reply((|| answer(&decay::run(&self.ws, p.dry_run, self.clock.as_ref())?))())
    }

    /// Propose a memory for the main agent to approve: what a sub-agent does instead of
    /// writing. Appends a numbered proposal to memory/meta/pending-memories.md (one commit);
    /// nothing reaches memory until the main agent approves it. A repeat of an open proposal
    /// is refused; a contradiction of an open proposal or a current fact is marked CONFLICT.
    #[tool(
        title = "Propose a memory",
        output_schema = schema::output("propose"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn propose(&self, Parameters(p): Parameters<ProposeParams>) -> CallToolResult {
        self.reply((|| {
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
                    .map(|e| EntityId::parse_given(e))
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
            answer(&propose::propose(&self.ws, &req, self.clock.as_ref())?)
        })())
    }

    /// Review sub-agents' proposals (main agent only): `list` the open ones, `show` one,
    /// `approve` it (written to memory with actor bot:commit-from:NAME, one commit),
    /// `reject` it with a reason, or `defer` it.
    #[tool(
        title = "Review proposals",
        output_schema = schema::output("pending"),
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn pending(&self, Parameters(p): Parameters<PendingParams>) -> CallToolResult {
        self.reply((|| {
            let number = || {
                p.number.ok_or_else(|| cogmem_ops::error::InputError::MissingArgument {
                    tool: "pending",
                    action: p.action.clone(),
                    arg: "number",
                    what: "the proposal's number, `#N` in the pending list",
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
                    let mut a = listed("proposals", &shown)?;
                    if !file.problems.is_empty() {
                        a.notes.push(
                            file.problems
                                .iter()
                                .map(|(line, why)| {
                                    format!("warning: skipped {}:{line}: {why}\n", propose::PENDING)
                                })
                                .collect(),
                        );
                    }
                    return Ok(a);
                }
                "show" => return answer(&propose::get(&self.ws, number()?)?),
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
            answer(&propose::decide(&self.ws, number()?, &decision, &by, self.clock.as_ref())?)
        })())
    }
}
