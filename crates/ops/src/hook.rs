//! What `cogmem hook <host>` hands an agent host, whatever the host (issue 17): the memory pack
//! for a new session, and for each prompt what `hear` did about it and the memories it calls
//! up, as text for the model. The hosts' JSON in and out is the binary's (`src/cli/hook.rs`);
//! the transcripts they save are read by [`crate::import`]. Only `hear` writes here, and only
//! for an explicit request ("remember that …"), as `bot:trigger-remember`.

use serde::Serialize;

use crate::context::{self, ContextOptions, Encoding};
use crate::hear::{self, HearOptions, HearReport, HeardAction};
use crate::reflect;
use cogmem_index::index::IndexError;
use cogmem_index::pack::{Pack, Part, TokenCounter};
use cogmem_store::audit::Actor;
use cogmem_store::store::Store;
use cogmem_store::store::markdown::one_line;
use cogmem_store::workspace::{Workspace, layout};
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
    /// Tokens it takes (estimated; never over the budget but for the notice of what could not
    /// be read).
    pub used_tokens: usize,
    /// The budget (`[hooks] session_start_tokens`).
    pub budget_tokens: usize,
    /// What could not be read (the reflection cycle's files, the pack), each error with its
    /// hint; the text says so first and gives what could be read.
    pub unread: Vec<Refusal>,
}

/// Builds the context for a new session: the reflection cycle when one is open, then the
/// `context` pack (core memory, the latest reflection and the recent reward outcomes, the week's
/// episodes without imported transcripts, the cards of the entities they name and of the most
/// relevant ones), all within `[hooks] session_start_tokens` as [`Encoding::Estimate`] counts
/// them. The pack's memories count as uses, as `cogmem context` counts them.
///
/// Never fails: a part that cannot be read is left out and named in
/// [`SessionContext::unread`], and the text starts with a notice of it for the model. When the
/// pack cannot be built, the core memory's bullets are given instead, read from MEMORY.md
/// directly, if it can be read. A session with no memory and no word of why answered as if
/// there were none.
pub fn session_start(ws: &Workspace, clock: &dyn Clock) -> SessionContext {
    let budget = ws.settings().hooks.session_start_tokens;
    let counter = Encoding::Estimate.counter();
    let mut unread = Vec::new();
    let mut head = String::new();
    match reflect::status(ws) {
        Ok(st) if st.state != reflect::State::Idle => {
            head.push_str(&format!("## Reflection in progress\n- {}\n", st.summary()));
        }
        Ok(_) => {}
        Err(e) => unread.push(Refusal::of(&e)),
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
    let mut text = match context::session(ws, &opts, clock) {
        Ok(pack) => pack.text,
        Err(e) => {
            unread.push(Refusal::of(&e));
            core_only(ws, opts.budget, counter.as_ref())
        }
    };
    if !head.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&head);
    }
    if !unread.is_empty() {
        let mut notice = String::from(
            "cogmem could not read all of its memory for this session; tell the user, so that \
             they can fix it:\n",
        );
        for r in &unread {
            let hint = r.hint.as_ref().map(|h| format!(" (hint: {h})")).unwrap_or_default();
            notice.push_str(&format!("- {}{hint}\n", r.message));
        }
        if !text.is_empty() {
            notice.push('\n');
        }
        text.insert_str(0, &notice);
    }
    let used_tokens = if text.is_empty() { 0 } else { counter.count(&text) };
    SessionContext { text, used_tokens, budget_tokens: budget, unread }
}

/// The core memory's bullets, read from MEMORY.md directly, within `budget` tokens: what a
/// session is given when its pack cannot be built. Empty when MEMORY.md cannot be read or
/// holds none.
fn core_only(ws: &Workspace, budget: usize, counter: &dyn TokenCounter) -> String {
    let heading = "# Memory (core memory only)\n\n## Core memory\n";
    let mut text = heading.to_owned();
    let core = cogmem_store::store::units::of_file(ws, layout::MEMORY_MD);
    for u in core.iter().filter(|u| u.store == Store::Core) {
        let line = format!("- {}\n", u.text);
        if counter.count(&text) + counter.count(&line) > budget {
            break;
        }
        text.push_str(&line);
    }
    if text == heading { String::new() } else { text }
}

/// What a prompt produced.
#[derive(Debug, Clone, Serialize)]
pub struct PromptContext {
    /// What `hear` detected and did (nothing, when it refused the prompt).
    pub heard: HearReport,
    /// Why `hear` refused the prompt or failed on it (a credential, a sub-agent's request to
    /// remember, the lock not free in time); the memories are still given.
    pub refused: Option<Refusal>,
    /// Why the memories that match the prompt could not be looked up (the search index's lock
    /// not free in time, an index that cannot be read); the prompt is still heard, and the
    /// answer says the memories are missing.
    pub unlooked: Option<Refusal>,
    /// Why the uses of the memories a recall showed could not be recorded (an access log that
    /// cannot be written); the memories are still given.
    pub unrecorded: Option<Refusal>,
    /// The text for the model: what was done about the prompt, then the relevant memories;
    /// empty when there is nothing to add.
    pub text: String,
    /// Tokens the memories take (estimated).
    pub used_tokens: usize,
    /// The budget (`[hooks] prompt_tokens`).
    pub budget_tokens: usize,
}

/// Why `hear` did not act on a prompt, or why its memories could not be looked up: the error,
/// as text that never holds the secret it may be about (the secret rules' excerpts are
/// redacted).
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    /// The error.
    pub message: String,
    /// The next step, for the person who reads the host's log (none for a credential, whose
    /// hint is `--allow-secret`, not a step an agent should take).
    pub hint: Option<String>,
    /// Whether the prompt was refused for holding what looks like a credential.
    pub secret: bool,
    /// Whether the search index was further behind the files than a hook catches up on
    /// ([`WorkspaceOptions::refresh_limit`](cogmem_store::workspace::WorkspaceOptions)): the
    /// caller may bring it up to date in the background.
    pub index_behind: bool,
}

impl Refusal {
    fn of(e: &crate::Error) -> Self {
        use cogmem_store::error::RuleError;
        let secret =
            matches!(e, crate::Error::Store(cogmem_store::Error::Rule(RuleError::Secret { .. })));
        let index_behind = matches!(e, crate::Error::Index(IndexError::Behind { .. }));
        Self {
            message: e.to_string(),
            hint: if secret { None } else { e.hint() },
            secret,
            index_behind,
        }
    }
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
/// When `hear` refuses the prompt or fails on it (a credential in a request to remember, a
/// sub-agent's request to write, the lock not free in time), the answer says so first and still
/// gives the memories: the error is in [`PromptContext::refused`], nothing is written.
///
/// When the memories cannot be looked up (the search index's lock not free within
/// `lock.timeout_ms`), the prompt is still heard and the answer says they are missing and why:
/// the error is in [`PromptContext::unlooked`]. A prompt with no word to search for (`?`) has no
/// memories, and that is no error.
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
    let mut unlooked = None;
    let query: String = prompt.chars().take(MAX_QUERY_CHARS).collect();
    // A prompt with no word to search for ("?", "👍") calls up no memory, and nothing is said.
    let pack = if !memories || cogmem_index::index::analyzer::query_terms(&query).is_empty() {
        None
    } else {
        let pack_opts =
            ContextOptions { budget, encoding: Encoding::Estimate, threshold: PROMPT_THRESHOLD };
        // The memories come with the answer; they are not what it depends on. A lookup that
        // fails (the search index's lock held past `lock.timeout_ms` by `reindex --full` or an
        // import's index update) leaves them out and the prompt is still heard: the user's
        // "remember that …" was lost with them.
        match context::relevant(ws, &query, &pack_opts, clock) {
            Ok(pack) => {
                cogmem_store::timing::mark("hook: memories packed");
                Some(pack)
            }
            Err(e) => {
                unlooked = Some(Refusal::of(&e));
                None
            }
        }
    };
    let pack = pack.unwrap_or_else(|| Pack {
        budget_tokens: budget,
        used_tokens: 0,
        text: String::new(),
        receipt: Vec::new(),
        skipped: Vec::new(),
    });
    // A recall is answered by the pack, and what it shows is recorded as recalled (below):
    // hearing it searches nothing (a second search of the same prompt, whose hits no one saw,
    // was recorded as recalled instead).
    let opts =
        HearOptions { dry_run: false, caller, allow_secret: false, recall_shown_by_caller: true };
    let mut refused = None;
    let mut unrecorded = None;
    // A long prompt (pasted files) is no request: it is not heard, rather than refused.
    let short = prompt.len() <= ws.settings().limits.text_bytes;
    let heard = if short && prompt.chars().count() <= MAX_HEARD_CHARS {
        hear::hear(ws, prompt, &opts, clock).unwrap_or_else(|e| {
            refused = Some(Refusal::of(&e));
            HearReport::nothing()
        })
    } else {
        HearReport::nothing()
    };
    cogmem_store::timing::mark("hook: prompt heard");
    let mut text = String::new();
    if let Some(r) = &refused {
        if r.secret {
            text.push_str(&format!(
                "cogmem refused the user's message: {}. Tell the user it was not remembered, \
                 and do not repeat the credential: it belongs in a password manager, not in \
                 memory.\n",
                r.message
            ));
        } else {
            text.push_str(&format!(
                "cogmem could not act on the user's message: {}{}. Tell the user that what \
                 they asked cogmem for was not done.\n",
                r.message,
                r.hint.as_ref().map(|h| format!(" (hint: {h})")).unwrap_or_default()
            ));
        }
    }
    match &heard.action {
        HeardAction::None | HeardAction::Recall { .. } => {}
        HeardAction::Remembered { written: w, duplicates, revived, .. } => {
            let mut ids: Vec<&str> = w.iter().chain(duplicates).map(|u| u.id.as_str()).collect();
            for r in revived {
                if !ids.contains(&r.as_str()) {
                    ids.push(r);
                }
            }
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
        HeardAction::ConfirmForget { candidates, command, whole_entity } => {
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
            } else if let Some(whole) = whole_entity {
                text.push_str(&format!("({}; ask the user which they mean)\n", whole.advice()));
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
        // What was shown is given even when its uses cannot be recorded (an access log that
        // cannot be written): the record keeps memories from fading; the answer is the point.
        if let Err(e) = super::search::recalled(ws, &shown, clock) {
            let mut r = Refusal::of(&e);
            r.message = format!("the uses of the memories shown were not recorded: {}", r.message);
            unrecorded = Some(r);
        }
    }
    if let Some(u) = &unlooked {
        text.push_str(&format!(
            "cogmem could not look up the memories that match the user's message: {}; none are \
             given here.\n",
            u.message
        ));
    }
    if !pack.text.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&pack.text.replacen("# Memory\n", "# Memory (cogmem)\n", 1));
    }
    Ok(PromptContext {
        heard,
        refused,
        unlooked,
        unrecorded,
        text,
        used_tokens: pack.used_tokens,
        budget_tokens: budget,
    })
}
