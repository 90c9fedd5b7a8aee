//! `cogmem hear`, `cogmem route` and `cogmem remember --routing`: an agent passes a user's
//! message; cogmem detects the trigger and acts on it — writes a routed memory, offers what to
//! forget, answers a recall — or, where judgement needs a model, hands the host agent the
//! routing prompt and applies its validated answer.

use serde::Serialize;

use super::forget::{self, Candidate};
use super::remember::{self, Relation, RememberReport, RememberRequest};
use crate::error::InputError;
use cogmem_store::audit::Actor;
use cogmem_store::store::Store;
use cogmem_store::store::core_memory::CoreSection;
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::markdown::{self, find_section};
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;
use cogmem_text::route::{self, KnownEntity, RouteContext, Routing, ValidRouting};
use cogmem_text::trigger::{self, Trigger, TriggerKind};

/// Builds the routing context of a workspace: who the user is, and the entities it knows.
///
/// The user is named by a `Name:` bullet under MEMORY.md's `## Identity`; otherwise they are
/// `person--user`. Unreadable entity files are skipped.
pub fn context(ws: &Workspace) -> crate::Result<RouteContext> {
    let mut ctx = user_context(ws)?;
    for (rel, text) in units::read_markdown_files(ws, layout::ENTITIES_DIR) {
        let stem = units::md_stem(&rel);
        let Ok(id) = EntityId::parse(stem) else { continue };
        let Ok(text) = text else { continue };
        let names = entity::names(&id, &text);
        ctx.known.push(KnownEntity { id, names });
    }
    Ok(ctx)
}

/// [`context`] with the entities' names from the search index (its names cache, brought up to
/// date with the files first, as a search does) rather than from every entity file: what a
/// request heard by a hook costs must not grow with the number of entities (issue 20). Reads
/// the files when the index cannot answer.
pub fn context_from_index(ws: &Workspace) -> crate::Result<RouteContext> {
    let Some(known) = cogmem_index::graph::names::known(ws) else { return context(ws) };
    let mut ctx = user_context(ws)?;
    ctx.known = known
        .into_iter()
        .filter_map(|(id, names)| Some(KnownEntity { id: EntityId::parse(&id).ok()?, names }))
        .collect();
    Ok(ctx)
}

/// The routing context with who the user is (from `MEMORY.md`) and no entities yet.
///
/// A `Name:` bullet names the user in summaries ("Sam Rivera prefers …"). Their entity is
/// `person--<name>` only when that is theirs: a file that says `Name: <name>` among its facts,
/// or none yet while `person--user` has no file either. Otherwise it stays `person--user`: the
/// user who says their name after other facts keeps one entity (the name went onto it), and a
/// colleague who shares the name keeps theirs.
fn user_context(ws: &Workspace) -> crate::Result<RouteContext> {
    let mut ctx = RouteContext::default();
    if let Some(text) = ws.read_text_if_exists(layout::MEMORY_MD)?
        && let Some(name) = user_name(&text)
        && let Ok(id) = EntityId::parse(&format!("person--{}", markdown::slugify(&name)))
    {
        let named = ws.read_text_if_exists(&layout::entity_file(id.as_str()))?;
        let theirs = match named {
            Some(t) => entity::facts(&t).iter().any(|f| name_in(f).as_deref() == Some(&*name)),
            None => !ws.abs(&layout::entity_file(ctx.user.as_str())).exists(),
        };
        if theirs {
            ctx.user = id;
        }
        ctx.user_name = name;
    }
    Ok(ctx)
}

/// The user's name from a `- Name: …` (or `- **Name:** …`) bullet under `## Identity`.
fn user_name(memory_md: &str) -> Option<String> {
    let sections = markdown::sections(memory_md);
    let s = find_section(&sections, CoreSection::Identity.title())?;
    memory_md[s.content.clone()].lines().find_map(|l| name_in(l.trim_start().strip_prefix("- ")?))
}

/// The name a bullet's text `Name: …` (or `**Name:** …`) gives; `None` for another bullet or
/// an empty name.
fn name_in(bullet: &str) -> Option<String> {
    let t = bullet.replace("**", "");
    let v = t.strip_prefix("Name:")?.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

/// What `hear` did about a message.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HeardAction {
    /// No trigger: nothing written.
    None,
    /// The memory was written (or would be, with `--dry-run`).
    Remembered {
        /// The commit, `None` on a dry run or when everything was already remembered.
        commit: Option<String>,
        /// Whether this was a dry run.
        dry_run: bool,
        /// What was written (empty on a dry run).
        written: Vec<remember::Unit>,
        /// What was already there.
        duplicates: Vec<remember::Unit>,
        /// Ids of forgotten memories this brought back (written again, or found present).
        revived: Vec<String>,
    },
    /// The remember trigger had nothing to remember.
    NothingToRemember,
    /// Candidates to forget; nothing is forgotten until one is confirmed.
    ConfirmForget {
        /// The best matches.
        candidates: Vec<Candidate>,
        /// The command that forgets the first candidate: only for a single clear best match
        /// that is the whole of what was asked (not an entity found by one of its facts).
        command: Option<String>,
        /// When the best match is an entity found by one of its facts: forgetting it would
        /// forget every fact and relation it holds, so no ready command is given.
        #[serde(skip_serializing_if = "Option::is_none")]
        whole_entity: Option<WholeEntity>,
    },
    /// The user asked for a reflection.
    Reflect {
        /// Whether cogmem can run it.
        available: bool,
        /// What to tell the user.
        message: String,
    },
    /// The user is wrapping up: ask whether to reflect.
    AskUser {
        /// The question to ask.
        question: String,
    },
    /// What is remembered about the topic (the results count as uses).
    Recall {
        /// The best matches, by BM25 × decayed relevance, core memory first. Each `text` is the
        /// snippet `search` shows (an entity's title and comment lines left out); `cogmem show
        /// ID` prints the whole memory.
        results: Vec<cogmem_index::index::search::Hit>,
    },
}

/// An entity a forget request found by one of its facts: forgetting is by whole unit, and the
/// entity holds more than that fact.
#[derive(Debug, Clone, Serialize)]
pub struct WholeEntity {
    /// The entity's id (`entity:TYPE--SLUG`).
    pub id: String,
    /// Its file.
    pub path: String,
    /// The bullets of its `## Facts`.
    pub facts: usize,
    /// Its relations.
    pub relations: usize,
}

impl WholeEntity {
    /// What to tell the user (or the agent) about it, in one sentence.
    pub fn advice(&self) -> String {
        format!(
            "{} is a whole entity: forgetting it forgets all {} of its facts and {} of its \
             relations, not only the one that matched. To forget one fact, pass its id (`cogmem \
             forget WORDS` lists the facts of {} that hold them) to `cogmem forget --id ID \
             --yes`; to forget the whole entity, `cogmem forget --id {} --yes`",
            self.id,
            self.facts,
            self.relations,
            self.path,
            cogmem_text::shell::quote(&self.id)
        )
    }
}

/// Whether a forget request's `content` found the entity `c` by one of its facts rather than
/// by its name: some word of the request is not among the entity's names. `None` when the
/// entity holds no more than one fact or relation (then the entity is what matched).
fn found_by_a_fact(ws: &Workspace, c: &Candidate, content: &str) -> Option<WholeEntity> {
    let id = EntityId::parse(c.id.strip_prefix("entity:")?).ok()?;
    let text = ws.read_text_if_exists(&c.path).ok()??;
    let facts = entity::facts(&text).len();
    let relations = entity::relations(&text).len();
    if facts + relations <= 1 {
        return None;
    }
    let names: Vec<String> = entity::names(&id, &text)
        .iter()
        .flat_map(|n| cogmem_index::index::analyzer::terms(n))
        .collect();
    let asked = cogmem_index::index::analyzer::terms(content);
    if !asked.is_empty() && asked.iter().all(|t| names.contains(t)) {
        return None;
    }
    Some(WholeEntity { id: c.id.clone(), path: c.path.clone(), facts, relations })
}

/// What `hear` reports.
#[derive(Debug, Clone, Serialize)]
pub struct HearReport {
    /// The trigger, or `None` for an ordinary message.
    pub trigger: Option<TriggerKind>,
    /// The phrase that triggered it.
    pub phrase: Option<String>,
    /// When the learned model heard the request and the phrase rules did not: the model's
    /// probability for it, in percent (`cogmem_text::trigger::learned`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned: Option<u8>,
    /// What it is about.
    pub content: Option<String>,
    /// The routing decision, for a remember trigger.
    pub routing: Option<Routing>,
    /// What was done.
    pub action: HeardAction,
}

impl HearReport {
    /// The report on an ordinary message: no trigger, nothing done.
    pub fn nothing() -> Self {
        Self {
            trigger: None,
            phrase: None,
            learned: None,
            content: None,
            routing: None,
            action: HeardAction::None,
        }
    }
}

/// Options for `hear`.
#[derive(Debug, Clone, Default)]
pub struct HearOptions {
    /// Detect and route, but write nothing.
    pub dry_run: bool,
    /// Who passed the message on; a sub-agent may not write through `hear` (exit 4).
    pub caller: Option<Actor>,
    /// Remember it even if it looks like a credential (`--allow-secret`).
    pub allow_secret: bool,
    /// The caller shows the memories a recall asks for itself and records them as recalled (a
    /// hook's memory pack: [`crate::hook::user_prompt`]): a recall trigger is reported with no
    /// results, and nothing is searched or reinforced here.
    pub recall_shown_by_caller: bool,
}

/// Detects the trigger in `message` and acts on it.
///
/// Only a remember trigger writes (through the change engine, as `bot:trigger-remember`);
/// forget only lists candidates, recall only reads. A message over the workspace's
/// `limits.text_bytes` is refused before it is read ([`InputError::MessageTooLong`]), as any
/// other text is: a user's request is a sentence, and classifying megabytes is slow.
pub fn hear(
    ws: &Workspace,
    message: &str,
    opts: &HearOptions,
    clock: &dyn Clock,
) -> crate::Result<HearReport> {
    let limit = ws.settings().limits.text_bytes;
    if message.len() > limit {
        return Err(InputError::MessageTooLong { bytes: message.len(), limit }.into());
    }
    let extra = &ws.settings().triggers;
    // The routing context reads every entity file: only a remember request, or a question the
    // rules check against the known names, needs it (issue 17: hooks hear every prompt).
    let read = std::cell::OnceCell::new();
    let names = || match read.get_or_init(|| context_from_index(ws)) {
        Ok(ctx) => ctx.known.iter().flat_map(|k| k.names.iter().cloned()).collect(),
        Err(_) => Vec::new(), // reported below
    };
    let found = trigger::classify_lazy(message, extra, &names);
    cogmem_store::timing::mark("hear: classified");
    let ctx = match read.into_inner() {
        Some(read) => Some(read?),
        None => None,
    };
    let Some(t) = found else {
        return Ok(HearReport::nothing());
    };
    let Trigger { kind, phrase, content, learned } = t;
    let mut report = HearReport {
        trigger: Some(kind),
        phrase: Some(phrase.clone()),
        learned,
        content: Some(content.clone()),
        routing: None,
        action: HeardAction::None,
    };
    report.action = match kind {
        TriggerKind::Remember => {
            if content.trim().is_empty() {
                HeardAction::NothingToRemember
            } else {
                let ctx = match ctx {
                    Some(ctx) => ctx,
                    None => context_from_index(ws)?,
                };
                let mut routing = route::route(&content, Some(&phrase), &ctx);
                // "Correction: remember that …": the label before the phrase says what it is.
                if let Some(label) = trigger::correction_label(message, &phrase) {
                    route::as_correction(&mut routing, &label);
                }
                if let Some(a) = opts.caller.as_ref().filter(|a| a.is_subagent()) {
                    return Err(
                        crate::error::RuleError::SubagentWrite { actor: a.to_string() }.into()
                    );
                }
                crate::remember::check_size(ws, &content)?;
                cogmem_store::secrets::check(&content, "the text to remember", opts.allow_secret)?;
                if opts.allow_secret {
                    // Allowed into the text, a secret still never becomes a tag, an entity or a
                    // relation end (a file name), nor is it shown as one. See: issue 16
                    without_secret_names(&mut routing, &content);
                }
                if !routing.relations.is_empty() {
                    without_unknown_relations(&mut routing, &crate::vocabulary::load(ws)?);
                }
                let mut req =
                    request_from_routing(&routing, Actor::system("bot:trigger-remember"), &phrase)?;
                req.allow_secret = opts.allow_secret;
                // A list of facts about different subjects: one memory per item, each routed on
                // its own, written in one commit.
                let split = if opts.allow_secret {
                    None
                } else {
                    split_list(ws, message, &content, &phrase, &ctx, &mut routing)?
                };
                if opts.allow_secret && req.entities.is_empty() && req.relations.is_empty() {
                    req.stores.retain(|s| *s != Store::Semantic);
                    if req.stores.is_empty() {
                        req.stores.push(Store::Episodic);
                    }
                    // The routing shown is the one followed.
                    routing.stores.clone_from(&req.stores);
                    routing.store = req.stores[0];
                }
                if routing.stores.contains(&Store::Procedural) {
                    // Steps need their lines: store the content itself, titled by its first line.
                    req.text = crate::remember::check_text(&content)?;
                    req.title = None;
                }
                // The dates `remember` writes next to relative ones, shown before they are
                // written (and with --dry-run).
                let now = clock.now();
                for (at, span) in cogmem_text::date::annotations(&req.text, &req.dated_from(&now)) {
                    let said = &req.text[..at];
                    let from = said.char_indices().rev().nth(23).map_or(0, |(i, _)| i);
                    let mut words = &said[from..];
                    if from > 0 && !said[..from].ends_with(char::is_whitespace) {
                        // Cut inside a word: start at the next one.
                        words = words.split_once(' ').map_or(words, |(_, w)| w);
                    }
                    // Only the clause it is in.
                    let clause = ['、', '。', ',', ';', ':', '：', '.', '!', '?', '！', '？'];
                    words = words.rsplit(clause).next().unwrap_or(words);
                    routing.reason.push(format!(
                        "date {}: written after \"{}\", the date it stands for",
                        span.label(),
                        words.trim_start()
                    ));
                }
                report.routing = Some(routing);
                if opts.dry_run {
                    HeardAction::Remembered {
                        commit: None,
                        dry_run: true,
                        written: Vec::new(),
                        duplicates: Vec::new(),
                        revived: Vec::new(),
                    }
                } else {
                    let RememberReport { commit, written, duplicates, revived, superseded, .. } =
                        match &split {
                            Some(reqs) => remember::remember_all(ws, reqs, clock)?,
                            None => remember::remember(ws, &req, clock)?,
                        };
                    if let Some(r) = report.routing.as_mut() {
                        for id in &superseded {
                            r.reason.push(format!(
                                "superseded {id}: the correction says it was wrong (archived; \
                                 `cogmem restore {}` brings it back)",
                                cogmem_text::shell::quote(id)
                            ));
                        }
                    }
                    HeardAction::Remembered { commit, dry_run: false, written, duplicates, revived }
                }
            }
        }
        TriggerKind::Forget => {
            // "Scratch that" / さっきの話は忘れて points back: at the memory written last.
            let candidates = if content.is_empty() {
                forget::latest(ws, 5)?
            } else {
                forget::find(ws, &content, 5)?
            };
            // Only a clear best match gets a ready command; ties must be picked by id. A fact
            // (or relation) of an entity that holds the words is its own candidate, ahead of
            // the entity: "forget that my email is …" names that fact. An entity found by its
            // facts with no one fact clearly meant gets no command: it must not read as
            // "forget everything about me".
            let best = forget::clear_best(&candidates);
            let whole_entity = best
                .filter(|c| c.store == Store::Semantic && !content.is_empty())
                .and_then(|c| found_by_a_fact(ws, c, &content));
            let command = best
                .filter(|_| whole_entity.is_none())
                .map(|c| format!("cogmem forget --id {} --yes", cogmem_text::shell::quote(&c.id)));
            HeardAction::ConfirmForget { candidates, command, whole_entity }
        }
        TriggerKind::Recall => {
            let search_opts =
                cogmem_index::index::search::SearchOptions { limit: 10, ..Default::default() };
            let mut results = if opts.recall_shown_by_caller
                || cogmem_index::index::analyzer::terms(&content).is_empty()
            {
                Vec::new()
            } else if opts.dry_run {
                super::search::search(ws, &content, &search_opts, clock)?.hits
            } else {
                super::search::recall(ws, &content, &search_opts, clock)?.hits().cloned().collect()
            };
            for h in &mut results {
                h.text = snippet_text(&h.text, &content);
            }
            HeardAction::Recall { results }
        }
        TriggerKind::Reflect => {
            // Reflection is approval-gated: hearing the word starts nothing by itself; it says
            // where the cycle stands and which step comes next.
            let st = super::reflect::status(ws)?;
            HeardAction::Reflect { available: true, message: st.summary() }
        }
        TriggerKind::ReflectSoft => HeardAction::AskUser {
            question:
                "Before you go: shall I reflect on today's memories now, or at the usual time?"
                    .into(),
        },
    };
    Ok(report)
}

/// The memories a remembered list makes when its items are about different subjects ("Remember
/// these: - Bob likes tea - Carol likes coffee"): each item routed on its own, as its own
/// request, when every item names an entity, goes to the semantic store (no steps, no vault
/// note) and no two items name the same entities. `None` otherwise: items about one subject
/// (or about none) stay one memory, as before. `routing` (the whole list's, which is reported)
/// gets a reason saying so.
fn split_list(
    ws: &Workspace,
    message: &str,
    content: &str,
    phrase: &str,
    ctx: &RouteContext,
    routing: &mut Routing,
) -> crate::Result<Option<Vec<RememberRequest>>> {
    let items = route::list_items(content);
    if items.is_empty() {
        return Ok(None);
    }
    let label = trigger::correction_label(message, phrase);
    let mut routed: Vec<Routing> = Vec::with_capacity(items.len());
    let mut subjects: Vec<Vec<String>> = Vec::with_capacity(items.len());
    for item in &items {
        let mut r = route::route(item, Some(phrase), ctx);
        if let Some(label) = &label {
            route::as_correction(&mut r, label);
        }
        let mut ids: Vec<String> = r.entities.iter().map(|e| e.id.clone()).collect();
        ids.sort();
        let plain = r.stores.contains(&Store::Semantic)
            && !r.stores.iter().any(|s| matches!(s, Store::Procedural | Store::Vault));
        if ids.is_empty() || !plain || subjects.contains(&ids) {
            return Ok(None);
        }
        subjects.push(ids);
        routed.push(r);
    }
    let vocab = crate::vocabulary::load(ws)?;
    let mut reqs = Vec::with_capacity(routed.len());
    for mut r in routed {
        if !r.relations.is_empty() {
            without_unknown_relations(&mut r, &vocab);
        }
        let actor = Actor::system("bot:trigger-remember");
        reqs.push(request_from_routing(&r, actor, phrase)?);
    }
    let about: Vec<String> = subjects.iter().map(|s| s.join(" and ")).collect();
    routing.reason.push(format!(
        "a list of {} items about different subjects: each is a memory of its own, routed on its \
         own ({})",
        reqs.len(),
        about.join("; ")
    ));
    Ok(Some(reqs))
}

/// Takes out of `routing` every tag, entity and relation made from a secret of `content`, and
/// the reasons that name one: the text may hold a secret (`--allow-secret`), its names may not,
/// and what `hear` reports is what it writes (issue 16).
fn without_secret_names(routing: &mut Routing, content: &str) {
    let derived = |name: &str| cogmem_store::secrets::is_derived_from_secret(name, content);
    routing.tags.retain(|t| !derived(t));
    routing.entities.retain(|e| !derived(&e.id) && !derived(&e.name));
    routing.relations.retain(|r| !derived(&r.from) && !derived(&r.to));
    routing.reason.retain(|r| !derived(r));
}

/// Takes out of `routing` every relation the vocabulary does not define, with a reason saying
/// so and how to add it: the rest of the message is still remembered, where `remember
/// --relation` would refuse the whole request (issue 18).
fn without_unknown_relations(routing: &mut Routing, vocab: &cogmem_store::vocab::Vocabulary) {
    let (kept, dropped): (Vec<_>, Vec<_>) =
        std::mem::take(&mut routing.relations).into_iter().partition(|r| vocab.knows(&r.relation));
    routing.relations = kept;
    for r in dropped {
        let said = format!("relation {} {} {}", r.from, r.relation, r.to);
        let from_template = cogmem_text::route::written_relations().any(|k| k == r.relation);
        let how = if from_template {
            "run `cogmem doctor --fix`: it adds the relations routing writes".to_owned()
        } else {
            format!("add it with `cogmem graph relation add {} --inverse INVERSE`", r.relation)
        };
        let why =
            format!("{said} not written: `{}` is not in {} ({how})", r.relation, layout::RELATIONS);
        // The reason that announced the relation now says why it was not written.
        match routing.reason.iter_mut().find(|x| **x == said) {
            Some(x) => *x = why,
            None => routing.reason.push(why),
        }
    }
}

/// The words `search` shows for a hit: the snippet around the first match, as plain text.
fn snippet_text(text: &str, query: &str) -> String {
    cogmem_index::index::search::snippet(text, query, SNIPPET_WORDS)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// Words in a recall snippet, as `cogmem search` shows them.
const SNIPPET_WORDS: usize = 24;

/// Turns a routing decision into a remember request: the summary is what is stored.
fn request_from_routing(r: &Routing, actor: Actor, phrase: &str) -> crate::Result<RememberRequest> {
    let mut req = RememberRequest::new(&r.summary, actor)?;
    req.stores = r.stores.clone();
    for e in &r.entities {
        req.entities.push(EntityId::parse(&e.id)?);
    }
    // Entities named only as relation ends need no fact of their own.
    req.entities.retain(|e| {
        !r.relations.iter().any(|rel| rel.to == e.as_str())
            || r.relations.iter().any(|rel| rel.from == e.as_str())
    });
    for rel in &r.relations {
        req.relations.push(Relation {
            from: EntityId::parse(&rel.from)?,
            relation: rel.relation.clone(),
            to: EntityId::parse(&rel.to)?,
        });
    }
    if !req.stores.contains(&Store::Semantic) {
        req.entities.clear();
        req.relations.clear();
    }
    req.tags = r.tags.clone();
    req.confidence = Some(r.confidence);
    req.entry_type = Some(r.entry_type);
    // "…, not OLD": a fact that says exactly the old statement no longer holds.
    if r.entry_type == cogmem_text::model::EntryType::Correction {
        req.supersedes = route::corrected_statement(&r.summary);
    }
    req.trigger = format!("user said \"{phrase}\"");
    Ok(req)
}

/// Applies a validated routing answer from the host model to `text`.
pub fn remember_routed(
    ws: &Workspace,
    text: &str,
    answer: ValidRouting,
    actor: Actor,
    at: Option<crate::Timestamp>,
    allow_secret: bool,
    clock: &dyn Clock,
) -> crate::Result<RememberReport> {
    let stored = answer.summary.as_deref().unwrap_or(text);
    if answer.summary.is_some() {
        // What is written is the model's sentence, not the text: a secret in it is named so.
        cogmem_store::secrets::check(stored, "the routing answer's summary", allow_secret)?;
    }
    // A name as the model wrote it (`prod api key 3a7b…`): its slug in the id keeps the words
    // but not the spaces a key word is read by.
    cogmem_store::secrets::check_fields(
        answer.names.iter().map(|n| ("an entity name in the routing answer", n)),
        allow_secret,
    )?;
    let mut req = RememberRequest::new(stored, actor)?;
    req.stores = answer.stores;
    req.entities = answer.entities;
    req.relations = answer
        .relations
        .into_iter()
        .map(|(from, relation, to)| Relation { from, relation, to })
        .collect();
    req.tags = answer.tags;
    req.confidence = answer.confidence;
    req.entry_type = answer.entry_type;
    req.trigger = "routing answer from the host model".into();
    req.at = at;
    req.allow_secret = allow_secret;
    remember::remember(ws, &req, clock)
}

/// Builds the routing prompt for `content`, with a summary of core memory.
pub fn routing_prompt(
    ws: &Workspace,
    content: &str,
    trigger: &str,
    recent: &str,
) -> crate::Result<String> {
    let core = ws.read_text_if_exists(layout::MEMORY_MD)?.unwrap_or_default();
    let bullets: Vec<String> =
        units::core_units(&core).into_iter().map(|u| u.text).take(40).collect();
    let summary = if bullets.is_empty() { "(empty)".to_owned() } else { bullets.join("; ") };
    let ids: Vec<String> = units::markdown_files(ws.root(), layout::ENTITIES_DIR)
        .iter()
        .map(|rel| units::md_stem(rel).to_owned())
        .take(100)
        .collect();
    let known = if ids.is_empty() { "(none)".to_owned() } else { ids.join(", ") };
    Ok(route::prompt(
        content,
        if trigger.is_empty() { "(none)" } else { trigger },
        if recent.is_empty() { "(none)" } else { recent },
        &summary,
        &known,
    ))
}
