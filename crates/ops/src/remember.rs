//! `cogmem remember`: write one memory to the stores it is routed to, as one commit.
//!
//! Routing is explicit here (the request names the stores, or they follow from the entities and
//! relations given); the trigger engine decides routing for messages it hears. Each store writes
//! its own file format; exact duplicates are reported, not written twice.

use serde::Serialize;

use crate::Timestamp;
use crate::error::{InputError, RuleError};
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::core_memory::{self, CoreSection};
use cogmem_store::store::decay_file::{DecayFile, NewUnit};
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::episode::{self, EntryType, NewEntry};
use cogmem_store::store::markdown::{self, slugify};
use cogmem_store::store::{Confidence, Store, fsx, procedure, vault};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};
use cogmem_text::tokens;

pub use cogmem_store::settings::{HARD_MAX_TEXT_BYTES, MAX_TEXT_BYTES};

/// Refuses text over the workspace's `limits.text_bytes`.
pub fn check_size(ws: &Workspace, text: &str) -> Result<(), InputError> {
    let limit = ws.settings().limits.text_bytes;
    if text.len() > limit {
        return Err(InputError::TextTooLong { bytes: text.len(), limit });
    }
    Ok(())
}

/// A relation to record: `FROM|RELATION|TO`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// The subject entity.
    pub from: EntityId,
    /// The relation name, lower-kebab.
    pub relation: String,
    /// The object entity.
    pub to: EntityId,
}

impl Relation {
    /// Parses `FROM|RELATION|TO`.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let bad = |why: &str| InputError::Relation { text: text.to_owned(), why: why.to_owned() };
        let parts: Vec<&str> = text.split('|').map(str::trim).collect();
        let [from, relation, to] = parts[..] else {
            return Err(bad("expected three parts separated by `|`"));
        };
        if !entity::check_relation_name(relation) {
            return Err(bad("the relation must be lower-kebab case, like `works-on`"));
        }
        Ok(Self {
            from: EntityId::parse_given(from)?,
            relation: relation.to_owned(),
            to: EntityId::parse_given(to)?,
        })
    }
}

/// Checks the memory text: not empty, at most [`HARD_MAX_TEXT_BYTES`], no NUL byte. Returns it
/// trimmed.
/// The workspace's own limit (`limits.text_bytes`, 64 KiB by default) is checked by
/// [`remember`] and `propose` with [`check_size`].
pub fn check_text(text: &str) -> Result<String, InputError> {
    if text.len() > HARD_MAX_TEXT_BYTES {
        return Err(InputError::TextOverHardLimit {
            bytes: text.len() as u64,
            limit: HARD_MAX_TEXT_BYTES,
        });
    }
    check_no_nul("text", text)?;
    let t = text.trim();
    if t.is_empty() {
        return Err(InputError::EmptyText);
    }
    Ok(t.to_owned())
}

/// Refuses a NUL byte in a text field (`field` names it in the error): no memory file, audit
/// line or commit message can hold one.
pub fn check_no_nul(field: &'static str, value: &str) -> Result<(), InputError> {
    match value.find('\0') {
        Some(offset) => Err(InputError::Nul { field, offset }),
        None => Ok(()),
    }
}

/// Parses `a,b` into tags: trimmed, empty ones dropped, duplicates removed, no `[]` or `|`.
pub(crate) fn parse_tags(text: &str) -> Result<Vec<String>, InputError> {
    let mut tags: Vec<String> = Vec::new();
    for t in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if t.contains(['[', ']', '|']) || t.chars().any(char::is_control) {
            return Err(InputError::Unknown {
                what: "tag",
                value: t.to_owned(),
                expected: "words without `[`, `]` or `|`".into(),
            });
        }
        if !tags.iter().any(|x| x == t) {
            tags.push(t.to_owned());
        }
    }
    Ok(tags)
}

/// A validated request to remember something.
#[derive(Debug, Clone)]
pub struct RememberRequest {
    /// The memory text (checked with [`check_text`]).
    pub text: String,
    /// Target stores; empty means: semantic when entities or relations are given, else episodic.
    pub stores: Vec<Store>,
    /// Episode entry type (default `fact`).
    pub entry_type: Option<EntryType>,
    /// Entities the fact is about.
    pub entities: Vec<EntityId>,
    /// Relations to record.
    pub relations: Vec<Relation>,
    /// Tags.
    pub tags: Vec<String>,
    /// Confidence (default `high`: the user asked for it).
    pub confidence: Option<Confidence>,
    /// When it happened (default now).
    pub at: Option<Timestamp>,
    /// When the words were said: relative dates in the text (`tomorrow`, `先月`) are resolved
    /// against it and written next to them (default: `at`, else the clock's now; an approved
    /// proposal passes the time it was proposed).
    pub said_at: Option<Timestamp>,
    /// MEMORY.md section for the core store.
    pub section: Option<CoreSection>,
    /// Title of a procedure or vault note (default: the text's first words).
    pub title: Option<String>,
    /// Who is writing.
    pub actor: Actor,
    /// What caused it, for the commit message.
    pub trigger: String,
    /// Write it even if it looks like a credential (`--allow-secret`).
    pub allow_secret: bool,
    /// What a correction says was wrong (`cogmem_text::route::corrected_statement`): a fact of
    /// the same entity that says exactly this is archived in the same commit, restorable.
    pub supersedes: Option<String>,
}

/// A `remember` request as an adapter receives it: the words of flags or tool arguments, not
/// yet checked. The CLI and the MCP server both build their [`RememberRequest`] with
/// [`RememberFields::to_request`], so a flag and the tool argument of the same name accept the
/// same values and fail with the same error.
#[derive(Debug, Clone, Default)]
pub struct RememberFields {
    /// The memory text.
    pub text: String,
    /// Store names; each may hold several, comma-separated.
    pub stores: Vec<String>,
    /// Episode entry type; alone, it implies the episodic store.
    pub entry_type: Option<String>,
    /// Entity ids, `TYPE--SLUG`.
    pub entities: Vec<String>,
    /// Relations, `FROM|RELATION|TO`.
    pub relations: Vec<String>,
    /// Tags; each may hold several, comma-separated.
    pub tags: Vec<String>,
    /// `high`, `medium` or `low`.
    pub confidence: Option<String>,
    /// When it happened, in any form the shared time parser reads.
    pub at: Option<String>,
    /// MEMORY.md section for the core store.
    pub section: Option<String>,
    /// Title of a procedure or vault note.
    pub title: Option<String>,
    /// Write it even if it looks like a credential.
    pub allow_secret: bool,
}

impl RememberFields {
    /// Checks every field and builds the request; `now` resolves relative times in `at`.
    ///
    /// Errors name the field's value: an unknown store, type, confidence or section, a bad
    /// entity id or relation, a time that cannot be read, an empty text.
    pub fn to_request(&self, actor: Actor, now: &Timestamp) -> crate::Result<RememberRequest> {
        let mut req = RememberRequest::new(&self.text, actor)?;
        req.allow_secret = self.allow_secret;
        for s in &self.stores {
            for part in s.split(',').filter(|p| !p.trim().is_empty()) {
                req.stores.push(Store::parse(part)?);
            }
        }
        req.entry_type = self.entry_type.as_deref().map(EntryType::parse).transpose()?;
        if req.entry_type.is_some() && req.stores.is_empty() {
            req.stores.push(Store::Episodic);
        }
        for e in &self.entities {
            req.entities.push(EntityId::parse_given(e)?);
        }
        for r in &self.relations {
            req.relations.push(Relation::parse(r)?);
        }
        if !self.tags.is_empty() {
            req.tags = parse_tags(&self.tags.join(","))?;
        }
        req.confidence = self.confidence.as_deref().map(Confidence::parse).transpose()?;
        if let Some(at) = &self.at {
            req.at = Some(
                cogmem_text::date::parse_time(at, now)
                    .ok_or_else(|| InputError::Time { flag: "--at", text: at.clone() })?,
            );
        }
        req.section = self.section.as_deref().map(CoreSection::parse).transpose()?;
        req.title.clone_from(&self.title);
        if !req.tags.is_empty()
            && !req
                .routed_stores()
                .iter()
                .any(|s| matches!(s, Store::Episodic | Store::Semantic | Store::Vault))
        {
            // MEMORY.md bullets and procedures have no tags: say so rather than drop the ones a
            // person gave (issue 18). Tags `hear` derives itself are its own business.
            return Err(InputError::FlagNeedsStore {
                flag: "--tags",
                stores: "episodic, semantic or vault",
            }
            .into());
        }
        Ok(req)
    }
}

impl RememberRequest {
    /// Builds a request with defaults for everything but the text and actor.
    pub fn new(text: &str, actor: Actor) -> Result<Self, InputError> {
        Ok(Self {
            text: check_text(text)?,
            stores: Vec::new(),
            entry_type: None,
            entities: Vec::new(),
            relations: Vec::new(),
            tags: Vec::new(),
            confidence: None,
            at: None,
            said_at: None,
            section: None,
            title: None,
            actor,
            trigger: "cogmem remember".into(),
            allow_secret: false,
            supersedes: None,
        })
    }

    /// The time the text's relative dates (`tomorrow`, `on Friday`) count from, in `now`'s
    /// offset: when the words were said (`said_at`), else the memory's own time (`at`, as
    /// `remember --at` gives it), else `now`.
    pub(crate) fn dated_from(&self, now: &Timestamp) -> Timestamp {
        self.said_at.or(self.at).map_or(*now, |t| t.with_timezone(now.offset()))
    }

    /// Every field the request writes into a file, an id or a commit message, named as a
    /// secret refusal names it: the text, the title, the tags, the entities, the relations.
    pub(crate) fn written_fields(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("the text", self.text.clone())];
        if let Some(t) = &self.title {
            out.push(("the title", t.clone()));
        }
        if !self.tags.is_empty() {
            out.push(("the tag list", self.tags.join(",")));
        }
        for e in &self.entities {
            out.push(("an entity id", e.as_str().to_owned()));
        }
        for r in &self.relations {
            let line = format!("{}|{}|{}", r.from.as_str(), r.relation, r.to.as_str());
            out.push(("a relation", line));
        }
        out
    }

    /// Returns the stores the memory goes to, in writing order, without repeats.
    ///
    /// Entities and relations always involve the semantic store.
    pub(crate) fn routed_stores(&self) -> Vec<Store> {
        let mut stores = self.stores.clone();
        if stores.is_empty() && self.entities.is_empty() && self.relations.is_empty() {
            stores.push(Store::Episodic);
        }
        if !self.entities.is_empty() || !self.relations.is_empty() {
            stores.push(Store::Semantic);
        }
        let mut out = Vec::new();
        for s in stores {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

/// One memory unit written or found already present.
#[derive(Debug, Clone, Serialize)]
pub struct Unit {
    /// Its decay id, e.g. `episode:2026-02-02:14:30`.
    pub id: String,
    /// Its store.
    pub store: Store,
    /// The file, relative to the workspace root.
    pub path: String,
    /// The 1-based line of the unit in the file.
    pub line: usize,
}

/// What `remember` did.
#[derive(Debug, Clone, Serialize)]
pub struct RememberReport {
    /// The commit, or `None` when everything was already remembered.
    pub commit: Option<String>,
    /// Units written.
    pub written: Vec<Unit>,
    /// Units not written because they already exist.
    pub duplicates: Vec<Unit>,
    /// Ids of the units, written or found present, that had been forgotten and are brought
    /// back: asked to remember them, the user wants them found again (their forget record
    /// goes, so `restore` no longer applies).
    pub revived: Vec<String>,
    /// Ids of the facts a correction superseded: taken out of their cards and archived
    /// (`restore` brings one back).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<String>,
    /// Files in the commit, the audit log included.
    pub files: Vec<String>,
}

/// Remembers `req`, writing every routed store as one commit.
///
/// Fails without changing anything when a file it must edit is malformed or hand-edited, when
/// MEMORY.md would go over its token budget, or when the workspace is locked.
pub fn remember(
    ws: &Workspace,
    req: &RememberRequest,
    clock: &dyn Clock,
) -> crate::Result<RememberReport> {
    remember_with(ws, req, clock, Ok)
}

/// Remembers each of `reqs` as a memory of its own, all in one commit: a list of facts about
/// several people, each routed on its own (`hear "Remember these: - Bob … - Carol …"`). The
/// first request's actor and trigger make the change; each memory's files get their audit
/// lines. Fails without changing anything when any of them would fail; an empty list is an
/// error of the caller's (it panics).
pub fn remember_all(
    ws: &Workspace,
    reqs: &[RememberRequest],
    clock: &dyn Clock,
) -> crate::Result<RememberReport> {
    remember_many(ws, reqs, clock, Ok)
}

/// [`remember`], letting the caller add its own edits to the same commit (an approved
/// proposal marks itself committed in the commit that writes it). `extend` runs under the
/// workspace lock, after the memory's edits are planned.
pub(crate) fn remember_with(
    ws: &Workspace,
    req: &RememberRequest,
    clock: &dyn Clock,
    extend: impl FnOnce(Change) -> crate::Result<Change>,
) -> crate::Result<RememberReport> {
    remember_many(ws, std::slice::from_ref(req), clock, extend)
}

/// [`remember_with`] for one or more requests, written as one change.
fn remember_many(
    ws: &Workspace,
    reqs: &[RememberRequest],
    clock: &dyn Clock,
    extend: impl FnOnce(Change) -> crate::Result<Change>,
) -> crate::Result<RememberReport> {
    let first = reqs.first().expect("at least one memory to remember");
    let mut vocab = None;
    for req in reqs {
        if let Some(v) = check_request(ws, req)? {
            vocab = Some(v);
        }
    }
    if !first.actor.is_subagent() {
        crate::adopt::settle(ws, clock);
    }
    cogmem_store::timing::mark("remember: start");
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    cogmem_store::timing::mark("remember: repo opened, locked");
    // One reading of the clock per command: every timestamp it writes agrees.
    let now = clock.now();
    let clock = FixedClock(now);
    let change = Change::new(first.actor.clone(), first.trigger.clone());
    let mut w = Writer::new(ws, change, now.format("%Y-%m-%d").to_string(), vocab);
    // The commit's subject: the first memory's text as written (with its dates).
    let mut subject = None;
    for req in reqs {
        // Relative dates get their absolute date next to them, against when they were said.
        // See: issue 18
        let dated;
        let req = match with_dates(req, &now) {
            Some(r) => {
                dated = r;
                &dated
            }
            None => req,
        };
        subject.get_or_insert_with(|| req.text.clone());
        let at = req.at.unwrap_or(now);
        for store in req.routed_stores() {
            match store {
                Store::Core => w.core(req)?,
                Store::Episodic => w.episode(req, &at)?,
                Store::Semantic => w.semantic(req)?,
                Store::Procedural => w.procedure(req, &at)?,
                Store::Vault => w.vault(req)?,
            }
        }
    }
    let req = first;
    cogmem_store::timing::mark("remember: stores written");
    let counts_interactions =
        ws.settings().decay.clock == cogmem_store::settings::DecayClock::Interactions;
    let wrote = !w.change.is_empty();
    // Units found present count too: one that was forgotten is brought back.
    let mut units = w.new_units.clone();
    units.extend(w.duplicates.iter().map(|u| (u.id.clone(), u.store)));
    let mut revived = Vec::new();
    if !units.is_empty() || counts_interactions && wrote {
        // Only the shards that hold these entries are read, unless a forgotten entity comes
        // back: the graph index then lists it again, rendered from the whole decay state.
        let mut keys: Vec<&str> = units.iter().map(|(id, _)| id.as_str()).collect();
        keys.extend(w.facts.iter().map(String::as_str));
        keys.extend(w.superseded.iter().map(|s| s.id.as_str()));
        let mut decay = DecayFile::load_for(ws, &keys)?;
        if units.iter().any(|(id, store)| *store == Store::Semantic && decay.is_forgotten(id)) {
            decay = DecayFile::load(ws)?;
        }
        // A unit found present is used only when it was forgotten (a plain duplicate changes
        // nothing, as before).
        units.retain(|(id, _)| w.new_units.iter().any(|(n, _)| n == id) || decay.is_forgotten(id));
        let counts = counts_interactions && (wrote || !units.is_empty());
        if counts {
            decay.add_interactions(1);
        }
        let base = if req.actor.as_str() == "bot:auto-detect" {
            ws.settings().decay.base_auto
        } else {
            ws.settings().decay.base_explicit
        };
        let settled = settle_units(&mut decay, &units, base, now, &ws.settings().decay);
        let facts_back: Vec<&String> =
            w.facts.iter().filter(|id| decay.is_forgotten(id) && decay.unarchive(id)).collect();
        let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        for s in &w.superseded {
            decay.unarchive(&s.id);
            crate::forget::mark_archived(
                &mut decay,
                &s.id,
                Store::Semantic,
                base,
                now,
                &stamp,
                &req.actor,
                &s.removed,
                &ws.settings().decay,
                Some("superseded by a correction"),
            );
        }
        if settled.revived.iter().any(|id| id.starts_with("entity:")) {
            crate::graph::regenerate_index_with(ws, &mut w.change, &decay)?;
            cogmem_store::timing::mark("remember: graph index regenerated");
        } else if w.graph_changed {
            crate::graph::regenerate_index_into(ws, &mut w.change)?;
            cogmem_store::timing::mark("remember: graph index regenerated");
        }
        if !settled.is_empty() || counts || !facts_back.is_empty() || !w.superseded.is_empty() {
            let mut summary = settled.summary();
            if !facts_back.is_empty() {
                let ids: Vec<&str> = facts_back.iter().map(|id| id.as_str()).collect();
                summary = format!("{summary}; brought back {}", ids.join(", "));
            }
            if !w.superseded.is_empty() {
                let ids: Vec<&str> = w.superseded.iter().map(|s| s.id.as_str()).collect();
                // First: the audit line's summary is cut past its length.
                summary = format!("superseded by the correction: {}; {summary}", ids.join(", "));
            }
            w.change.write_decay(ws, &mut decay, Action::Edit, &summary);
        }
        revived = settled.revived.iter().map(|id| (*id).to_owned()).collect();
        revived.extend(facts_back.into_iter().cloned());
    } else if w.graph_changed {
        crate::graph::regenerate_index_into(ws, &mut w.change)?;
        cogmem_store::timing::mark("remember: graph index regenerated");
    }
    cogmem_store::timing::mark("remember: decay entries");
    let superseded: Vec<String> = w.superseded.iter().map(|s| s.id.clone()).collect();
    let Writer { change, written, mut duplicates, .. } = w;
    duplicates.retain(|u| !revived.contains(&u.id));
    let change = extend(change)?;
    if change.is_empty() {
        return Ok(RememberReport {
            commit: None,
            written,
            duplicates,
            revived,
            superseded,
            files: Vec::new(),
        });
    }
    let action = change.edits().first().map_or(Action::Edit, |e| e.action);
    let subject = subject.expect("one memory at least");
    let subject = match reqs.len() {
        1 => subject,
        n => format!("{subject} (and {} more)", n - 1),
    };
    let change = change.with_subject(action, subject);
    let applied = change.apply(ws, &repo, &lock, &clock)?;
    cogmem_store::timing::mark("remember: committed");
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    cogmem_store::timing::mark("remember: index updated");
    Ok(RememberReport {
        commit: Some(applied.commit),
        written,
        duplicates,
        revived,
        superseded,
        files: applied.files,
    })
}

/// Checks one request before anything is written: its size, secrets and title, its relations
/// against the vocabulary (returned when read), and that its flags fit its stores.
fn check_request(
    ws: &Workspace,
    req: &RememberRequest,
) -> crate::Result<Option<cogmem_store::vocab::Vocabulary>> {
    check_size(ws, &req.text)?;
    // Every field this writes, whoever built the request (a flag, an MCP argument, a routing
    // answer, `hear`'s own routing, an approved proposal). See: issue 16
    cogmem_store::secrets::check_fields(req.written_fields(), req.allow_secret)?;
    if let Some(title) = &req.title {
        check_no_nul("title", title)?;
    }
    // Every relation must be in the vocabulary, whichever path built the request. See: issue 18
    let vocab = if req.relations.is_empty() {
        None
    } else {
        let vocab = crate::vocabulary::load(ws)?;
        crate::vocabulary::check(ws, &vocab, &req.relations)?;
        Some(vocab)
    };
    let stores = req.routed_stores();
    if stores.contains(&Store::Semantic) && req.entities.is_empty() && req.relations.is_empty() {
        return Err(InputError::SemanticWithoutEntity.into());
    }
    if req.section.is_some() && !stores.contains(&Store::Core) {
        return Err(InputError::FlagNeedsStore { flag: "--section", stores: "core" }.into());
    }
    if req.title.is_some()
        && !stores.contains(&Store::Procedural)
        && !stores.contains(&Store::Vault)
    {
        return Err(
            InputError::FlagNeedsStore { flag: "--title", stores: "procedural or vault" }.into()
        );
    }
    Ok(vocab)
}

/// What [`settle_units`] did to the decay entries: the ids given an entry, used, and brought
/// back from forgotten, each once.
pub(crate) struct Settled<'u> {
    pub(crate) added: Vec<&'u str>,
    pub(crate) used: Vec<&'u str>,
    pub(crate) revived: Vec<&'u str>,
}

impl Settled<'_> {
    pub(crate) fn is_empty(&self) -> bool {
        self.added.is_empty() && self.used.is_empty() && self.revived.is_empty()
    }

    /// The audit summary of the decay edit.
    pub(crate) fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.added.is_empty() {
            parts.push(format!("decay entries for {}", self.added.join(", ")));
        }
        if !self.revived.is_empty() {
            parts.push(format!("brought back {}", self.revived.join(", ")));
        }
        if !self.used.is_empty() {
            parts.push(format!("used {}", self.used.join(", ")));
        }
        if parts.is_empty() { "one more interaction".to_owned() } else { parts.join("; ") }
    }
}

/// Gives each of `units` (ids and stores, as [`Writer`] lists them) a decay entry with `base`,
/// created `now`, or, when it has one already, a use: writing to a memory that already existed
/// keeps it fresh. A unit that was forgotten is first brought back (its forget record goes,
/// its earlier standing returns): writing it again is asking for it to be found again.
pub(crate) fn settle_units<'u>(
    decay: &mut DecayFile,
    units: &'u [(String, Store)],
    base: f64,
    now: Timestamp,
    settings: &cogmem_store::settings::DecaySettings,
) -> Settled<'u> {
    let created = now.with_timezone(&chrono::Utc);
    let mut out = Settled { added: Vec::new(), used: Vec::new(), revived: Vec::new() };
    for (id, store) in units {
        let id = id.as_str();
        if out.added.contains(&id) || out.used.contains(&id) || out.revived.contains(&id) {
            continue;
        }
        if decay.is_forgotten(id) && decay.unarchive(id) {
            out.revived.push(id);
        }
        let unit = NewUnit { store: *store, base, created, pinned: *store == Store::Vault };
        if decay.insert_new(id, unit, settings) {
            if !out.revived.contains(&id) {
                out.added.push(id);
            }
        } else if decay.touch(id, now, decay.interactions()) && !out.revived.contains(&id) {
            out.used.push(id);
        }
    }
    out
}

/// `req` with the absolute date written next to each relative date expression of its text
/// ([`cogmem_text::date::annotate`]), resolved against [`RememberRequest::dated_from`]; `None`
/// when the text has none.
fn with_dates(req: &RememberRequest, now: &Timestamp) -> Option<RememberRequest> {
    let text = cogmem_text::date::annotate(&req.text, &req.dated_from(now));
    (text != req.text).then(|| RememberRequest { text, ..req.clone() })
}

/// The writers of each store, adding their edits to one [`Change`]: `remember` and an approved
/// reflection's operations (`reflect/consolidate.rs`) write through these, so a memory is
/// written the same way whichever command writes it.
pub(crate) struct Writer<'a> {
    ws: &'a Workspace,
    /// The change the edits go into.
    pub(crate) change: Change,
    /// Units written.
    pub(crate) written: Vec<Unit>,
    /// Units found already present.
    pub(crate) duplicates: Vec<Unit>,
    /// Units that need a decay entry (or a use), with their store.
    pub(crate) new_units: Vec<(String, Store)>,
    /// The day the edits are dated (`YYYY-MM-DD`).
    date: String,
    vocab: Option<cogmem_store::vocab::Vocabulary>,
    /// Whether an entity file changed, so `memory/graph/index.md` must be regenerated.
    pub(crate) graph_changed: bool,
    /// The ids of the entity facts written ([`entity::bullet_id`]): one forgotten before is
    /// brought back (its forget record dropped, so `restore` cannot write it twice).
    pub(crate) facts: Vec<String>,
    /// Facts a correction superseded, taken out of their card: archived in the decay state.
    pub(crate) superseded: Vec<Superseded>,
}

/// A fact taken out of its card because a correction said it was wrong.
pub(crate) struct Superseded {
    /// The fact's id.
    pub(crate) id: String,
    /// What was taken out, for `restore`.
    pub(crate) removed: Vec<cogmem_store::store::decay_file::RemovedLine>,
}

impl<'a> Writer<'a> {
    /// Starts writing into `change`, dating edits `date` (`YYYY-MM-DD`); `vocab` is the relation
    /// vocabulary when the caller has read it already.
    pub(crate) fn new(
        ws: &'a Workspace,
        change: Change,
        date: String,
        vocab: Option<cogmem_store::vocab::Vocabulary>,
    ) -> Self {
        Self {
            ws,
            change,
            written: Vec::new(),
            duplicates: Vec::new(),
            new_units: Vec::new(),
            date,
            vocab,
            graph_changed: false,
            facts: Vec::new(),
            superseded: Vec::new(),
        }
    }
}

impl Writer<'_> {
    /// The relation vocabulary, read once.
    fn vocab(&mut self) -> &cogmem_store::vocab::Vocabulary {
        if self.vocab.is_none() {
            let text =
                self.ws.read_text_if_exists(layout::RELATIONS).ok().flatten().unwrap_or_default();
            self.vocab = Some(cogmem_store::vocab::Vocabulary::parse(&text));
        }
        self.vocab.as_ref().expect("just set")
    }

    /// Returns a file's content as this change will leave it so far.
    pub(crate) fn current(&self, rel: &str) -> crate::Result<Option<String>> {
        if let Some(bytes) = self.change.pending(rel) {
            return Ok(Some(String::from_utf8_lossy(bytes).into_owned()));
        }
        Ok(self.ws.read_text_if_exists(rel)?)
    }

    pub(crate) fn core(&mut self, req: &RememberRequest) -> crate::Result<()> {
        let section = req.section.unwrap_or_else(|| default_section(req));
        let rel = layout::MEMORY_MD;
        let text = self.current(rel)?.unwrap_or_default();
        let id = core_memory::new_unit_id(section, &req.text);
        match core_memory::add_bullet(&text, section, &req.text) {
            core_memory::Added::Duplicate { line } => {
                self.duplicates.push(Unit { id, store: Store::Core, path: rel.into(), line });
            }
            core_memory::Added::Written { content, line } => {
                let budget = self.ws.settings().core.budget_tokens;
                let tokens = tokens::estimate(&content);
                if tokens > budget {
                    return Err(
                        RuleError::CoreBudget { path: self.ws.abs(rel), tokens, budget }.into()
                    );
                }
                let summary = format!("{}: {}", section.title(), req.text);
                self.change.write(rel, content.into_bytes(), Action::Edit, summary);
                self.new_units.push((id.clone(), Store::Core));
                self.written.push(Unit { id, store: Store::Core, path: rel.into(), line });
            }
        }
        Ok(())
    }

    pub(crate) fn episode(&mut self, req: &RememberRequest, at: &Timestamp) -> crate::Result<()> {
        let date = at.format("%Y-%m-%d").to_string();
        let time = at.format("%H:%M").to_string();
        let rel = layout::episode_file(&date);
        let existing = self.current(&rel)?;
        let kind = req.entry_type.unwrap_or(EntryType::Fact);
        let entry = NewEntry {
            date: &date,
            time: &time,
            kind,
            confidence: req.confidence.unwrap_or(Confidence::High),
            tags: &req.tags,
            text: &req.text,
        };
        let links = self.links(&req.text);
        let ids: Vec<String> = links.iter().map(|(id, _)| id.clone()).collect();
        match episode::append_linked(existing.as_deref(), &entry, &ids)? {
            episode::Appended::Duplicate { id, line } => {
                self.duplicates.push(Unit { id, store: Store::Episodic, path: rel, line });
            }
            episode::Appended::Written { content, id, line } => {
                let action = if existing.is_some() { Action::Append } else { Action::Create };
                let summary = format!("{time} {}: {}", kind.as_str(), req.text);
                self.change.write(&rel, content.into_bytes(), action, summary);
                self.new_units.push((id.clone(), Store::Episodic));
                self.written.push(Unit { id, store: Store::Episodic, path: rel, line });
                for (id, _) in links.iter().filter(|(_, exists)| !exists) {
                    self.ensure_entity(&EntityId::parse(id)?)?;
                }
            }
        }
        Ok(())
    }

    /// The entities an episode's text names (issue 22), their files created when missing;
    /// none when `[capture] extract_entities` is off.
    /// Each with whether its file exists.
    fn links(&self, text: &str) -> Vec<(String, bool)> {
        if !self.ws.settings().capture.extract_entities {
            return Vec::new();
        }
        crate::import::entities::of_one_message(text, |id| {
            let rel = layout::entity_file(id);
            self.change.pending(&rel).is_some() || self.ws.abs(&rel).exists()
        })
    }

    /// Creates the entity file (and its registry row) if needed; returns its content.
    fn ensure_entity(&mut self, id: &EntityId) -> crate::Result<String> {
        let rel = layout::entity_file(id.as_str());
        if let Some(text) = self.current(&rel)? {
            return Ok(text);
        }
        let content = entity::new_file(id, &self.date)?;
        self.change.write(
            &rel,
            content.clone().into_bytes(),
            Action::Create,
            format!("new entity {id}"),
        );
        let key = format!("entity:{id}");
        self.new_units.push((key.clone(), Store::Semantic));
        self.written.push(Unit { id: key, store: Store::Semantic, path: rel.clone(), line: 1 });
        self.graph_changed = true;
        Ok(content)
    }

    pub(crate) fn semantic(&mut self, req: &RememberRequest) -> crate::Result<()> {
        let mut holders: Vec<EntityId> = req.entities.clone();
        if holders.is_empty() {
            for r in &req.relations {
                if !holders.contains(&r.from) {
                    holders.push(r.from.clone());
                }
            }
        }
        for id in &holders {
            let text = self.ensure_entity(id)?;
            let rel = layout::entity_file(id.as_str());
            let key = format!("entity:{id}");
            match entity::add_fact(&text, &req.text, &self.date) {
                entity::Added::Duplicate { line } => {
                    self.duplicates.push(Unit { id: key, store: Store::Semantic, path: rel, line });
                }
                entity::Added::Written { content, mut line } => {
                    let new_id = entity::new_fact_id(id, &req.text);
                    let content = match &req.supersedes {
                        Some(old) => self.supersede(id, &rel, content, &new_id, old, &mut line),
                        None => content,
                    };
                    self.facts.push(new_id);
                    // Tags go on the entity, the memory that holds the fact (issue 18).
                    let content = entity::add_tags(&content, &req.tags).unwrap_or(content);
                    self.change.write(
                        &rel,
                        content.into_bytes(),
                        Action::Edit,
                        format!("fact: {}", req.text),
                    );
                    // An entity written by hand or by another tool may have no decay entry yet.
                    self.new_units.push((key.clone(), Store::Semantic));
                    if let Some(u) = self.written.iter_mut().find(|u| u.id == key) {
                        u.line = line;
                    } else {
                        self.written.push(Unit {
                            id: key,
                            store: Store::Semantic,
                            path: rel,
                            line,
                        });
                    }
                }
            }
        }
        self.relations(&req.relations)
    }

    /// `content` (the card of `entity` with the new fact `new_id` on `line`) without the facts
    /// that say exactly `old`, what a correction says was wrong: each is recorded to be
    /// archived, and `line` follows the new fact up.
    fn supersede(
        &mut self,
        entity: &EntityId,
        rel: &str,
        content: String,
        new_id: &str,
        old: &str,
        line: &mut usize,
    ) -> String {
        let gone: Vec<entity::Bullet> = entity::bullets(entity, &content)
            .into_iter()
            .filter(|b| b.section == entity::BulletSection::Facts && b.id != new_id)
            .filter(|b| markdown::says_the_same(&b.text, old))
            .collect();
        if gone.is_empty() {
            return content;
        }
        let at: Vec<usize> = gone.iter().map(|b| b.line).collect();
        let (out, removed) =
            cogmem_store::store::decay_file::RemovedLine::take(rel, &content, |n, _| {
                at.contains(&n)
            });
        *line -= at.iter().filter(|n| **n < *line).count();
        for b in gone {
            let removed = removed.iter().filter(|r| r.line == b.line).cloned().collect();
            self.superseded.push(Superseded { id: b.id, removed });
        }
        out
    }

    /// Writes each relation on its subject and its inverse on its object (creating either
    /// entity when missing), closing the old edge of a functional relation.
    pub(crate) fn relations(&mut self, relations: &[Relation]) -> crate::Result<()> {
        for r in relations {
            let text = self.ensure_entity(&r.from)?;
            self.ensure_entity(&r.to)?;
            let rel = layout::entity_file(r.from.as_str());
            let key = format!("entity:{}", r.from);
            let spec = self.vocab().get(&r.relation).cloned().unwrap_or_default();
            // A functional relation (one current object per subject) closes the old edge.
            let text = match spec
                .functional
                .then(|| entity::close_relations(&text, &r.relation, &r.to, &self.date))
                .flatten()
            {
                Some((closed, targets)) => {
                    let summary = format!(
                        "closed {} {} {} (until {})",
                        r.from,
                        r.relation,
                        targets.join(", "),
                        self.date
                    );
                    self.change.write(&rel, closed.clone().into_bytes(), Action::Edit, summary);
                    self.graph_changed = true;
                    // The back-link on each old object closes with it, on the same date.
                    if let Some(inverse) = spec.inverse.as_deref() {
                        self.close_back_links(&r.from, inverse, &targets)?;
                    }
                    closed
                }
                None => text,
            };
            match entity::add_relation(&text, &r.relation, &r.to, &self.date) {
                entity::Added::Duplicate { line } => {
                    self.duplicates.push(Unit { id: key, store: Store::Semantic, path: rel, line });
                }
                entity::Added::Written { content, line } => {
                    let summary = format!("relation: {} {} {}", r.from, r.relation, r.to);
                    self.change.write(&rel, content.into_bytes(), Action::Edit, summary);
                    self.graph_changed = true;
                    self.new_units.push((key.clone(), Store::Semantic));
                    if !self.written.iter().any(|u| u.id == key) {
                        self.written.push(Unit {
                            id: key,
                            store: Store::Semantic,
                            path: rel,
                            line,
                        });
                    }
                    // The inverse goes on the target, so the link can be followed from both ends.
                    if let Some(inverse) =
                        spec.inverse.as_deref().filter(|i| *i != r.relation || r.from != r.to)
                    {
                        let to_rel = layout::entity_file(r.to.as_str());
                        let to_text = self.current(&to_rel)?.unwrap_or_default();
                        if let entity::Added::Written { content, .. } =
                            entity::add_relation(&to_text, inverse, &r.from, &self.date)
                        {
                            let summary = format!("relation: {} {inverse} {}", r.to, r.from);
                            self.change.write(&to_rel, content.into_bytes(), Action::Edit, summary);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Closes `inverse: [[from]]` on each of `targets`, the far ends of relations `from` just
    /// closed. A target without a file, or without an open back-link, is left as it is.
    fn close_back_links(
        &mut self,
        from: &EntityId,
        inverse: &str,
        targets: &[String],
    ) -> crate::Result<()> {
        for target in targets {
            let Ok(id) = EntityId::parse(target) else { continue };
            let rel = layout::entity_file(id.as_str());
            let Some(text) = self.current(&rel)? else { continue };
            if let Some(closed) = entity::close_relation_to(&text, inverse, from, &self.date) {
                let summary = format!("closed {id} {inverse} {from} (until {})", self.date);
                self.change.write(&rel, closed.into_bytes(), Action::Edit, summary);
            }
        }
        Ok(())
    }

    pub(crate) fn procedure(&mut self, req: &RememberRequest, at: &Timestamp) -> crate::Result<()> {
        let (title, steps) = match &req.title {
            Some(t) => (t.clone(), procedure::steps_from_text(&req.text)),
            None => {
                // A title (and so the file name) made from the text never holds a secret
                // written with `--allow-secret`. See: issue 16
                let masked = cogmem_store::secrets::mask(&req.text);
                let first = masked
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_end_matches(':')
                    .to_owned();
                let rest: Vec<&str> = req.text.lines().skip(1).collect();
                if let (Some(named), Some(said)) =
                    (cogmem_text::howto::split(&masked), cogmem_text::howto::split(&req.text))
                {
                    // One sentence with a title marker and sequence words ("how to X: A, then
                    // B"): its title and its steps. See: issue 18
                    (named.title, said.steps)
                } else if rest.iter().all(|l| l.trim().is_empty()) {
                    (first_words(&masked), procedure::steps_from_text(&req.text))
                } else {
                    (first, procedure::steps_from_text(&rest.join("\n")))
                }
            }
        };
        let slug = slugify(&title);
        if slug.is_empty() {
            return Err(InputError::Slug { title }.into());
        }
        let rel = layout::procedure_file(&slug);
        let key = format!("procedure:{slug}");
        if req.title.is_none() {
            check_made_from_text(&title, &key, req.allow_secret)?;
        }
        match self.current(&rel)? {
            Some(text) => match procedure::add_steps(&text, &steps) {
                procedure::Added::Duplicate { line } => {
                    self.duplicates.push(Unit {
                        id: key,
                        store: Store::Procedural,
                        path: rel,
                        line,
                    });
                }
                procedure::Added::Written { content, line } => {
                    self.new_units.push((key.clone(), Store::Procedural));
                    // The steps the file did not have: those already listed are not added.
                    let before = procedure::steps(&text);
                    let added: Vec<String> = procedure::steps(&content)
                        .into_iter()
                        .filter(|s| !before.contains(s))
                        .collect();
                    let summary = format!("steps added: {}", added.join("; "));
                    self.change.write(&rel, content.into_bytes(), Action::Edit, summary);
                    self.written.push(Unit { id: key, store: Store::Procedural, path: rel, line });
                }
            },
            None => {
                let (date, time) =
                    (at.format("%Y-%m-%d").to_string(), at.format("%H:%M").to_string());
                let content =
                    procedure::new_file(&title, &steps, &date, &time, req.actor.as_str())?;
                self.change.write(
                    &rel,
                    content.into_bytes(),
                    Action::Create,
                    format!("new procedure: {title}"),
                );
                self.new_units.push((key.clone(), Store::Procedural));
                self.written.push(Unit { id: key, store: Store::Procedural, path: rel, line: 1 });
            }
        }
        Ok(())
    }

    fn vault(&mut self, req: &RememberRequest) -> crate::Result<()> {
        let wanted = markdown::normalize(&req.text);
        let (names, found) = vault_duplicate(self.ws, &wanted);
        if let Some(slug) = found {
            self.duplicates.push(Unit {
                id: format!("vault:{slug}"),
                store: Store::Vault,
                path: layout::vault_file(&slug),
                line: 1,
            });
            return Ok(());
        }
        let title = req
            .title
            .clone()
            .unwrap_or_else(|| first_words(&cogmem_store::secrets::mask(&req.text)));
        let base = slugify(&title);
        if base.is_empty() {
            return Err(InputError::Slug { title }.into());
        }
        let mut slug = base.clone();
        let mut n = 1;
        while names.contains(&slug) || self.change.pending(&layout::vault_file(&slug)).is_some() {
            n += 1;
            slug = format!("{base}-{n}");
        }
        let rel = layout::vault_file(&slug);
        let key = format!("vault:{slug}");
        if req.title.is_none() {
            check_made_from_text(&title, &key, req.allow_secret)?;
        }
        let content = vault::new_note(&title, &req.text, &req.tags, &self.date)?;
        let line = 4;
        self.change.write(&rel, content.into_bytes(), Action::Create, format!("pinned: {title}"));
        self.new_units.push((key.clone(), Store::Vault));
        self.written.push(Unit { id: key, store: Store::Vault, path: rel, line });
        Ok(())
    }
}

/// Picks the MEMORY.md section when none is given: pinned facts go to Critical Facts,
/// preferences to Identity, everything else to Active Context.
fn default_section(req: &RememberRequest) -> CoreSection {
    if req.stores.contains(&Store::Vault) {
        CoreSection::CriticalFacts
    } else if req.entry_type == Some(EntryType::Preference) {
        CoreSection::Identity
    } else {
        CoreSection::ActiveContext
    }
}

/// Refuses a title and an id made from the text when either looks like a credential, unless
/// `allow`: they are written where `verify` reads (the note's heading, the audit log), and the
/// words they keep can read as a secret the text's own scan did not see.
fn check_made_from_text(title: &str, id: &str, allow: bool) -> crate::Result<()> {
    let fields = [("the title made from the text", title), ("the id made from the text", id)];
    Ok(cogmem_store::secrets::check_fields(fields, allow)?)
}

/// The first eight words of the text's first line, for a title.
fn first_words(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    first.split_whitespace().take(8).collect::<Vec<_>>().join(" ")
}

/// The derived cache of vault note bodies: `NAME TAB SIZE TAB MTIME TAB HASH` per note, where
/// HASH is the short hash of the note's normalised body (`-` when it is not UTF-8).
const VAULT_BODIES: &str = ".cogmem/vault-bodies.tsv";

/// The vault's note names (slugs, sorted) and the first whose body is `wanted`, if any.
///
/// Every note's body is compared, but through a cache of body hashes keyed by the note's size
/// and modification time (`.cogmem/vault-bodies.tsv`, derived): only notes changed since the
/// last look are read, and only a note whose hash matches is read to confirm. Hundreds of
/// notes cost a `stat` each instead of a read each.
fn vault_duplicate(ws: &Workspace, wanted: &str) -> (Vec<String>, Option<String>) {
    let dir = ws.abs(layout::VAULT_DIR);
    let cache_path = ws.abs(VAULT_BODIES);
    let mut cache: std::collections::HashMap<String, (u64, u128, String)> =
        fsx::read_text_if_exists(&cache_path, ws.file_limit())
            .ok()
            .flatten()
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                let (name, size, mtime, hash) = (f.next()?, f.next()?, f.next()?, f.next()?);
                Some((name.to_owned(), (size.parse().ok()?, mtime.parse().ok()?, hash.to_owned())))
            })
            .collect();
    let mut names: Vec<String> = Vec::new();
    let mut notes: Vec<(String, u64, u128)> = Vec::new();
    // A store folder that is a link out of the workspace is not read.
    let listing =
        if fsx::check_inside(&dir, "read").is_ok() { std::fs::read_dir(&dir).ok() } else { None };
    if let Some(listing) = listing {
        for entry in listing.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(slug) = name.strip_suffix(".md") else { continue };
            names.push(slug.to_owned());
            // Not followed: a link is not a note (its lstat says so).
            let Ok(md) = entry.metadata() else { continue };
            if !md.is_file() {
                continue;
            }
            notes.push((name, md.len(), fsx::mtime_nanos(&md)));
        }
    }
    let body_hash = |text: &str| cogmem_store::store::core_memory::hash8(text);
    let want = body_hash(wanted);
    names.sort_unstable();
    notes.sort_unstable();
    let mut changed = cache.len() != notes.len();
    let mut found = None;
    for (name, size, mtime) in &notes {
        let fresh =
            cache.get(name).filter(|(s, m, _)| s == size && m == mtime).map(|c| c.2.clone());
        let hash = match fresh {
            Some(h) => h,
            None => {
                changed = true;
                let h = fsx::read_text_if_exists(&dir.join(name), ws.file_limit())
                    .ok()
                    .flatten()
                    .map_or_else(|| "-".to_owned(), |t| body_hash(&vault::body_text(&t)));
                cache.insert(name.clone(), (*size, *mtime, h.clone()));
                h
            }
        };
        // A matching hash is confirmed by the text itself (a note that is not UTF-8 cannot be
        // a duplicate of UTF-8 text).
        if found.is_none()
            && hash == want
            && fsx::read_text_if_exists(&dir.join(name), ws.file_limit())
                .ok()
                .flatten()
                .is_some_and(|t| vault::body_text(&t) == wanted)
        {
            found = name.strip_suffix(".md").map(str::to_owned);
        }
    }
    if changed {
        let mut text = String::new();
        for (name, size, mtime) in &notes {
            if let Some((_, _, h)) = cache.get(name)
                && !name.contains(['\t', '\n'])
            {
                text.push_str(&format!("{name}\t{size}\t{mtime}\t{h}\n"));
            }
        }
        // Derived: a lost or stale cache only means notes are read again.
        let _ = fsx::write_derived(&cache_path, text.as_bytes(), false);
    }
    (names, found)
}

/// Remembers `text` as a host model's routing answer (`routing_json`, the reply to `cogmem
/// route --prompt`) says: the command line's `remember --routing` and MCP's `remember` with
/// `routing`.
///
/// `at` is the episode time as `remember --at` reads it (default: now). Fails like
/// [`remember`], and when the answer is not valid routing JSON or `at` cannot be read.
pub fn remember_routing(
    ws: &Workspace,
    text: &str,
    routing_json: &str,
    at: Option<&str>,
    actor: Actor,
    allow_secret: bool,
    clock: &dyn Clock,
) -> crate::Result<RememberReport> {
    let answer = cogmem_text::route::RoutingAnswer::parse(routing_json)?;
    let text = check_text(text)?;
    check_size(ws, &text)?;
    let now = clock.now();
    let at = at
        .map(|a| {
            cogmem_text::date::parse_time(a, &now)
                .ok_or_else(|| InputError::Time { flag: "--at", text: a.into() })
        })
        .transpose()?;
    crate::hear::remember_routed(ws, &text, answer, actor, at, allow_secret, clock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_parsing() {
        let r = Relation::parse("person--alice | works-on | project--atlas").unwrap();
        assert_eq!(
            (r.from.as_str(), r.relation.as_str(), r.to.as_str()),
            ("person--alice", "works-on", "project--atlas")
        );
        assert!(Relation::parse("person--alice|works-on").is_err());
        assert!(Relation::parse("person--alice|Works On|project--atlas").is_err());
        assert!(Relation::parse("person--alice|works-on|../x").is_err());
    }

    #[test]
    fn text_and_tag_checks() {
        assert!(matches!(check_text("  \n"), Err(InputError::EmptyText)));
        assert!(matches!(
            check_text(&"a".repeat(HARD_MAX_TEXT_BYTES + 1)),
            Err(InputError::TextOverHardLimit { .. })
        ));
        assert!(matches!(check_text("a\0b"), Err(InputError::Nul { field: "text", offset: 1 })));
        assert_eq!(parse_tags(" db, alice,,db ").unwrap(), ["db", "alice"]);
        assert!(parse_tags("a]").is_err());
    }

    #[test]
    fn routing_defaults() {
        let mut r = RememberRequest::new("x", Actor::manual()).unwrap();
        assert_eq!(r.routed_stores(), [Store::Episodic]);
        r.entities.push(EntityId::parse("person--a").unwrap());
        assert_eq!(r.routed_stores(), [Store::Semantic]);
        r.stores = vec![Store::Episodic];
        assert_eq!(r.routed_stores(), [Store::Episodic, Store::Semantic]);
    }
}
