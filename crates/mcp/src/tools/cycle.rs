//! The agent's steps of the reflection cycle and the self-image consolidation:
//! `reflect_status`, `reflect_request`, `reflect_input`, `reflect_submit`, `identity_input`,
//! `identity_submit`, `identity_show`. The person's steps (decide, approve, reject) are not
//! tools (docs/decisions.md).

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::answer;
use crate::params::{ConsolidationParams, NoParams, ReflectionParams, RequestParams};
use crate::{Server, schema};
use cogmem_ops::reflect::RequestOptions;
use cogmem_ops::{identity, reflect};

#[tool_router(router = cycle_router, vis = "pub(in crate)")]
impl Server {
    /// Where the reflection cycle stands: idle, awaiting the user's decision on a reward
    /// request, ready for input, or awaiting the user's approval of a submitted reflection;
    /// who must act next, and the commands allowed now. Reward decisions and approvals are
    /// the user's, made with the cogmem command line, never by an agent.
    #[tool(
        title = "Reflection status",
        output_schema = schema::output("reflect_status"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn reflect_status(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| {
            let mut a = answer(&reflect::status(&self.ws)?)?;
            crate::hint::for_mcp_answer("reflect_status", &mut a.value, self.role);
            Ok(a)
        })())
    }

    /// Start a reflection: ask the user for a token budget (the baseline plus `extra`, minus
    /// `penalty`), written to memory/meta/rewards/ in one commit. The cycle then waits for the
    /// user's decision, which they make with the command line.
    #[tool(
        title = "Request a reflection",
        output_schema = schema::output("reflect_request"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn reflect_request(&self, Parameters(p): Parameters<RequestParams>) -> CallToolResult {
        self.reply((|| {
            let opts = RequestOptions {
                extra: p.extra,
                extra_reason: p.extra_reason.clone(),
                penalty: p.penalty,
                penalty_reason: p.penalty_reason.clone(),
            };
            answer(&reflect::request(&self.ws, &opts, &self.writer(), self.clock.as_ref())?)
        })())
    }

    /// The reflection input, once the user has granted the budget: the memory to reflect on
    /// within the granted tokens, then the instructions (`text`). Also the `reflect` prompt.
    #[tool(
        title = "Reflection input",
        output_schema = schema::output("reflect_input"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn reflect_input(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| answer(&reflect::input(&self.ws, self.clock.as_ref())?))())
    }

    /// Hand in a reflection written from the reflection input; its OPERATION blocks are
    /// validated. One commit; nothing is applied until the user approves it. `blocks` says what
    /// approving each block would write, with a unified diff per file.
    #[tool(
        title = "Submit a reflection",
        output_schema = schema::output("reflect_submit"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn reflect_submit(&self, Parameters(p): Parameters<ReflectionParams>) -> CallToolResult {
        self.reply((|| {
            let r = reflect::submit(
                &self.ws,
                &p.text,
                &self.writer(),
                p.allow_secret,
                self.clock.as_ref(),
            )?;
            answer(&r)
        })())
    }

    /// What a self-image consolidation works from, once 10 or more self-awareness entries have
    /// accumulated: the Self-Image section, the archived months and the recent log, and the
    /// instructions (`text`, asking for recurring, contradicting, new and fading patterns). Also
    /// the `consolidate_identity` prompt.
    #[tool(
        title = "Self-image consolidation input",
        output_schema = schema::output("identity_input"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn identity_input(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| answer(&identity::input(&self.ws)?))())
    }

    /// Hand in a rewritten Self-Image section with monthly summaries of the log. One commit;
    /// answers with the diff the user will approve or reject with the command line.
    #[tool(
        title = "Submit a self-image consolidation",
        output_schema = schema::output("identity_submit"),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn identity_submit(&self, Parameters(p): Parameters<ConsolidationParams>) -> CallToolResult {
        self.reply((|| {
            answer(&identity::submit(&self.ws, &p.text, &self.writer(), self.clock.as_ref())?)
        })())
    }

    /// The diff the pending self-image consolidation would make to IDENTITY.md.
    #[tool(
        title = "Show the pending consolidation",
        output_schema = schema::output("identity_show"),
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn identity_show(&self, Parameters(NoParams {}): Parameters<NoParams>) -> CallToolResult {
        self.reply((|| answer(&json!({ "diff": identity::show(&self.ws, self.clock.as_ref())? })))())
    }
}
