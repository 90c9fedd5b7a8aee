//! What `cogmem hook <host>` hands an agent host, whatever the host (issue 17): the memory pack
//! for a new session, and for each prompt what `hear` did about it and the memories it calls
//! up, as text for the model. The hosts' JSON in and out is the binary's (`src/cli/hook.rs`);
//! the transcripts they save are read by [`crate::import`]. Only `hear` writes here, and only
//! for an explicit request ("remember that …"), as `bot:trigger-remember`.

use serde::Serialize;

use crate::context::{self, ContextOptions, Encoding};
use crate::hear::{self, HearOptions, HearReport, HeardAction};
use crate::reflect;
use cogmem_index::pack::{Pack, Part};
use cogmem_store::audit::Actor;
use cogmem_store::store::markdown::one_line;
use cogmem_store::workspace::Workspace;
use cogmem_text::clock::Clock;

/// Memories scoring below this share of the best match are left out of a prompt's context.
const PROMPT_THRESHOLD: f64 = 0.2;

/// The longest prompt passed to `hear`, in characters: a request to remember is a sentence or
/// two, while a longer prompt is mostly pasted text (a document, a log, code), whose wrapped
/// lines `hear` could read as requests.
pub const MAX_HEARD_CHARS: usize = 2_000;

/// The most characters of a prompt used as the search query for its memories.
const MAX_QUERY_CHARS: usize = 1_000;

/// The context for a new session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionContext {
    /// The text for the model; empty when the workspace holds nothing to say.
    pub text: String,
    /// Tokens it takes (estimated, never over the budget).
    pub used_tokens: usize,
    /// The budget (`[hooks] session_start_tokens`).
    pub budget_tokens: usize,
}

/// Builds the context for a new session: the reflection cycle when one is open, then the
/// `context` pack (core memory, the latest reflection and the recent reward outcomes, the week's
/// episodes without imported transcripts, the cards of the entities they name and of the most
/// relevant ones), all within `[hooks] session_start_tokens` as [`Encoding::Estimate`] counts
/// them. The pack's memories count as uses, as `cogmem context` counts them.
pub fn session_start(ws: &Workspace, clock: &dyn Clock) -> crate::Result<SessionContext> {
    let budget = ws.settings().hooks.session_start_tokens;
    let counter = Encoding::Estimate.counter();
    let mut head = String::new();
    let st = reflect::status(ws)?;
    if st.state != reflect::State::Idle {
        head.push_str(&format!(
            "## Reflection in progress\n- reflection #{}: {}; waiting for the {}; next: {}\n",
            st.reflection,
            st.description,
            st.waiting_for,
            st.next.join(", ")
        ));
    }
    // The cycle's state, but never more than a third of the budget: the pack is the memory.
    let mut head_tokens = counter.count(&head);
    if head_tokens > budget / 3 {
        head.clear();
        head_tokens = 0;
    }
    let opts = ContextOptions {
        budget: budget.saturating_sub(head_tokens + 2).max(1),
        encoding: Encoding::Estimate,
        threshold: 0.0,
    };
    let pack = context::session(ws, &opts, clock)?;
    let mut text = pack.text;
    if !head.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&head);
    }
    let used_tokens = if text.is_empty() { 0 } else { counter.count(&text) };
    Ok(SessionContext { text, used_tokens, budget_tokens: budget })
}

/// What a prompt produced.
#[derive(Debug, Clone, Serialize)]
pub struct PromptContext {
    /// What `hear` detected and did.
    pub heard: HearReport,
    /// The text for the model: what was done about the prompt, then the relevant memories;
    /// empty when there is nothing to add.
    pub text: String,
    /// Tokens the memories take (estimated).
    pub used_tokens: usize,
    /// The budget (`[hooks] prompt_tokens`).
    pub budget_tokens: usize,
}

/// Finds the memories that match a user's prompt (its first 1,000 characters,
/// [`context::relevant`]: one line each with its id and date, duplicates and core memory left
/// out, within `[hooks] prompt_tokens`), then passes the prompt through [`hear::hear`] (which
/// writes an explicit "remember that …" and only lists what a forget request matches) when it
/// is at most [`MAX_HEARD_CHARS`] long.
///
/// The memories are found first, as the workspace was when the prompt came: what a request to
/// remember adds is not among them (the answer says it was remembered), and nothing is read
/// after the write, whose search-index update then runs in the background as a command's does.
///
/// `caller` is who passed the prompt on: a sub-agent may not write (exit 4 from `hear`).
/// Without `memories` (a host whose prompt hook cannot add context: Cursor's) no memory is
/// looked for, and a recall shows, so records, nothing.
pub fn user_prompt(
    ws: &Workspace,
    prompt: &str,
    caller: Option<Actor>,
    clock: &dyn Clock,
    memories: bool,
) -> crate::Result<PromptContext> {
    let budget = ws.settings().hooks.prompt_tokens;
    let pack = if memories {
        let pack_opts =
            ContextOptions { budget, encoding: Encoding::Estimate, threshold: PROMPT_THRESHOLD };
        let query: String = prompt.chars().take(MAX_QUERY_CHARS).collect();
        let pack = context::relevant(ws, &query, &pack_opts, clock)?;
        cogmem_store::timing::mark("hook: memories packed");
        pack
    } else {
        Pack { budget_tokens: budget, used_tokens: 0, text: String::new(), receipt: Vec::new() }
    };
    // A recall is answered by the pack, and what it shows is recorded as recalled (below):
    // hearing it searches nothing (a second search of the same prompt, whose hits no one saw,
    // was recorded as recalled instead).
    let opts =
        HearOptions { dry_run: false, caller, allow_secret: false, recall_shown_by_caller: true };
    let heard = if prompt.chars().count() <= MAX_HEARD_CHARS {
        hear::hear(ws, prompt, &opts, clock)?
    } else {
        HearReport::nothing()
    };
    cogmem_store::timing::mark("hook: prompt heard");
    let mut text = String::new();
    match &heard.action {
        HeardAction::None | HeardAction::Recall { .. } => {}
        HeardAction::Remembered { written: w, duplicates, .. } => {
            let ids: Vec<&str> = w.iter().chain(duplicates).map(|u| u.id.as_str()).collect();
            let what = heard.routing.as_ref().map_or("", |r| r.summary.as_str());
            text.push_str(&format!(
                "cogmem remembered what the user asked it to: \"{}\" ({}). Tell the user it is \
                 remembered.\n",
                one_line(what),
                if ids.is_empty() { "already known".to_owned() } else { ids.join(", ") }
            ));
        }
        HeardAction::NothingToRemember => {
            text.push_str(
                "The user asked cogmem to remember something, but the message holds nothing \
                 to remember: ask them what to keep.\n",
            );
        }
        HeardAction::ConfirmForget { candidates, command } => {
            text.push_str(
                "The user asked to forget something. Nothing is forgotten yet: show them these \
                 candidates and forget only the one they confirm, with `cogmem forget --id ID \
                 --yes`.\n",
            );
            for c in candidates {
                text.push_str(&format!("- [{}] {}\n", c.id, one_line(&c.excerpt)));
            }
            if candidates.is_empty() {
                text.push_str("- (nothing in memory matches)\n");
            } else if let Some(command) = command {
                text.push_str(&format!("(the best match; once they confirm it: `{command}`)\n"));
            } else {
                text.push_str("(no single best match: ask which one)\n");
            }
        }
        HeardAction::Reflect { message, .. } => {
            text.push_str(&format!(
                "The user asked for a reflection. Where the cycle stands: {message}. Reflection \
                 needs the user's decisions at each gate; follow the next step it names.\n"
            ));
        }
        HeardAction::AskUser { question } => {
            text.push_str(&format!("Before the session ends, ask the user: {question}\n"));
        }
    }
    if memories && matches!(heard.action, HeardAction::Recall { .. }) {
        let shown: Vec<String> = pack
            .receipt
            .iter()
            .filter(|r| r.part == Part::Memory && r.decision == "selected")
            .map(|r| r.id.clone())
            .collect();
        super::search::recalled(ws, &shown, clock)?;
    }
    if !pack.text.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&pack.text.replacen("# Memory\n", "# Memory (cogmem)\n", 1));
    }
    Ok(PromptContext { heard, text, used_tokens: pack.used_tokens, budget_tokens: budget })
}
