//! Sub-agents propose, the main agent decides: `cogmem propose` appends a `## Proposal #N`
//! block to `memory/meta/pending-memories.md` (one commit, action PROPOSE, actor
//! `subagent:NAME`), and `cogmem pending approve|reject|defer` records the decision. An
//! approved proposal is written through the ordinary `remember` path with actor
//! `bot:commit-from:NAME`, in the same commit that marks it committed.
//!
//! A proposal repeating an open one is refused. One that contradicts an open proposal (same
//! entity, mostly the same words, a different claim) or a current functional relation (a
//! second `lives-in` while one is open) is written, marked `⚠️ CONFLICT`, for the main agent
//! to settle.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::remember::{self, Relation, RememberRequest};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::entity::{self, EntityId};
use cogmem_store::store::pending::{self, NewProposal, PendingFile, Proposal, Status};
use cogmem_store::store::{Confidence, Store, fsx};
use cogmem_store::vocab::Vocabulary;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

/// The proposals file, relative to the workspace root.
pub const PENDING: &str = layout::PENDING_MEMORIES;

/// A proposal to make.
#[derive(Debug, Clone)]
pub struct ProposeRequest {
    /// The memory text.
    pub text: String,
    /// The proposing agent's name (recorded as `subagent:NAME`).
    pub from: String,
    /// The store it suggests (default: semantic with entities or relations, else episodic).
    pub store: Option<Store>,
    /// Entities it is about.
    pub entities: Vec<EntityId>,
    /// Relations to record on approval.
    pub relations: Vec<Relation>,
    /// How sure the proposer is (default medium).
    pub confidence: Option<Confidence>,
    /// Whether it belongs in core memory, in the proposer's view.
    pub core_worthy: bool,
    /// What caused it.
    pub trigger: String,
    /// Record it even if it looks like a credential (`--allow-secret`).
    pub allow_secret: bool,
}

/// What `propose` did.
#[derive(Debug, Clone, Serialize)]
pub struct ProposeReport {
    /// The proposal's number.
    pub number: u32,
    /// `pending` or `conflict`.
    pub status: Status,
    /// The open proposal it conflicts with.
    pub conflicts_with: Option<u32>,
    /// A current fact it contradicts (`FROM RELATION TO`).
    pub conflicts_with_fact: Option<String>,
    /// The commit.
    pub commit: String,
}

/// Returns the name a proposal is filed under: a sub-agent caller (`subagent:NAME`) always
/// proposes as NAME, and giving another `from` is refused (it could pass its proposal off as
/// another agent's); any other caller must name the agent in `from`. `None` when nobody is
/// named.
pub fn proposer(from: Option<&str>, caller: Option<&Actor>) -> crate::Result<Option<String>> {
    let own = caller.and_then(|a| a.as_str().strip_prefix("subagent:"));
    match (from, own) {
        (Some(f), Some(name)) if f.trim() != name => Err(RuleError::ProposerMismatch {
            actor: caller.map(ToString::to_string).unwrap_or_default(),
            from: f.to_owned(),
        }
        .into()),
        (_, Some(name)) => Ok(Some(name.to_owned())),
        (Some(f), None) => Ok(Some(f.to_owned())),
        (None, None) => Ok(None),
    }
}

/// Records a proposal. Refused when it repeats an open proposal.
pub fn propose(
    ws: &Workspace,
    req: &ProposeRequest,
    clock: &dyn Clock,
) -> crate::Result<ProposeReport> {
    let text = remember::check_text(&req.text)?;
    remember::check_size(ws, &text)?;
    // Every field the proposal block records, and what approval writes. See: issue 16
    let mut fields = vec![("the text", text.clone()), ("the proposing agent", req.from.clone())];
    fields.extend(req.entities.iter().map(|e| ("an entity id", e.as_str().to_owned())));
    fields.extend(
        req.relations.iter().map(|r| {
            ("a relation", format!("{}|{}|{}", r.from.as_str(), r.relation, r.to.as_str()))
        }),
    );
    ws.options().check_secret_allowed(req.allow_secret)?;
    cogmem_store::secrets::check_fields(fields, req.allow_secret)?;
    let from = Actor::parse(&format!("subagent:{}", req.from))?;
    let repo = git::open(ws.root())?;
    // The one write a sub-agent may make.
    let lock = ws.lock_to_propose()?;
    let now = clock.now();
    let file = read(ws)?;
    let key = normalise(&text);
    if let Some(p) =
        file.proposals.iter().find(|p| p.status.is_open() && normalise(&p.content) == key)
    {
        return Err(RuleError::DuplicateProposal { number: p.number }.into());
    }
    let entities: Vec<String> = req.entities.iter().map(|e| e.as_str().to_owned()).collect();
    let relations: Vec<String> = req
        .relations
        .iter()
        .map(|r| format!("{}|{}|{}", r.from.as_str(), r.relation, r.to.as_str()))
        .collect();
    let vocab = Vocabulary::parse(&ws.read_text_if_exists(layout::RELATIONS)?.unwrap_or_default());
    // A proposal that could never be approved as it stands is refused now. See: issue 18
    crate::vocabulary::check(ws, &vocab, &req.relations)?;
    let conflicts_with = conflicting_proposal(&file, &text, &entities, &req.relations, &vocab);
    let conflicts_with_fact = match conflicts_with {
        Some(_) => None,
        None => conflicting_fact(ws, &req.relations, &vocab)?,
    };
    let store = req.store.unwrap_or(if entities.is_empty() && relations.is_empty() {
        Store::Episodic
    } else {
        Store::Semantic
    });
    let number = file.next_number();
    let timestamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%MZ").to_string();
    let conflict_note = conflicts_with
        .map(|m| format!("#{m}"))
        .or_else(|| conflicts_with_fact.as_ref().map(|f| format!("current fact: {f}")));
    let new = file.with_appended(&NewProposal {
        number,
        from: &req.from,
        timestamp: &timestamp,
        trigger: &req.trigger,
        store: store.as_str(),
        content: &text,
        entities: &entities,
        relations: &relations,
        confidence: req.confidence.unwrap_or(Confidence::Medium).as_str(),
        core_worthy: req.core_worthy,
        conflict: conflict_note.as_deref(),
    });
    let summary = match &conflict_note {
        Some(c) => format!("proposal #{number} ⚠️ CONFLICT with {c}: {}", short(&text)),
        None => format!("proposal #{number}: {}", short(&text)),
    };
    let mut change =
        Change::new(from, req.trigger.clone()).with_approval(Approval::Pending).allow_subagent();
    change.write(PENDING, new.into_bytes(), Action::Propose, summary.clone());
    let change = change.with_subject(Action::Propose, summary);
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    Ok(ProposeReport {
        number,
        status: if conflict_note.is_some() { Status::Conflict } else { Status::Pending },
        conflicts_with,
        conflicts_with_fact,
        commit: applied.commit,
    })
}

/// The proposals file as read, with the problems of blocks that could not be read.
pub fn read(ws: &Workspace) -> crate::Result<PendingFile> {
    Ok(PendingFile::parse(&ws.read_text_if_exists(PENDING)?.unwrap_or_default()))
}

/// Returns proposal `n`, or an error naming the file when it does not exist or cannot be read.
pub fn get(ws: &Workspace, n: u32) -> crate::Result<Proposal> {
    let file = read(ws)?;
    if let Some(p) = file.get(n) {
        return Ok(p.clone());
    }
    if let Some(e) = pending::unreadable(&ws.abs(PENDING), &file.problems, "proposal", n) {
        return Err(e.into());
    }
    Err(InputError::UnknownProposal { number: n }.into())
}

/// What the main agent decided.
#[derive(Debug, Clone)]
pub enum Decision {
    /// Write it, to the suggested store or this one.
    Approve {
        /// Overrides the suggested store.
        store: Option<Store>,
    },
    /// Turn it down.
    Reject {
        /// Why.
        reason: String,
    },
    /// Leave it for later.
    Defer {
        /// Why, if given.
        reason: Option<String>,
    },
}

/// What a decision did.
#[derive(Debug, Clone, Serialize)]
pub struct DecideReport {
    /// The proposal.
    pub number: u32,
    /// Its new status.
    pub status: Status,
    /// The commit; `None` when nothing changed (a deferred proposal deferred again).
    pub commit: Option<String>,
    /// For an approval: what `remember` wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remembered: Option<remember::RememberReport>,
}

/// Approves, rejects or defers proposal `n`. Only the main agent decides: a sub-agent
/// `by` is refused. A proposal already committed or rejected cannot be decided again.
pub fn decide(
    ws: &Workspace,
    n: u32,
    decision: &Decision,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<DecideReport> {
    if by.is_subagent() {
        return Err(RuleError::SubagentWrite { actor: by.to_string() }.into());
    }
    // The MCP server's `pending` tool comes here without the CLI, which adopts for itself.
    // See: issue 17
    crate::adopt::settle(ws, clock);
    let p = get(ws, n)?;
    if !p.status.is_open() {
        return Err(RuleError::ProposalClosed { number: n, status: p.status.as_str() }.into());
    }
    // Deferring a deferred proposal changes nothing (as pinning a pinned memory): no commit,
    // no audit line. Its first deferral's decision line stays.
    if matches!(decision, Decision::Defer { .. }) && p.status == Status::Deferred {
        return Ok(DecideReport { number: n, status: p.status, commit: None, remembered: None });
    }
    let now = clock.now();
    let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%MZ").to_string();
    let trigger = format!("cogmem pending {} {n} (by {by})", verb(decision));
    match decision {
        Decision::Approve { store } => {
            let from = Actor::parse(&format!("bot:commit-from:{}", p.from))?;
            let mut req = RememberRequest::new(&p.content, from)?;
            // Checked (or allowed) when it was proposed.
            req.allow_secret = true;
            let store = match store {
                Some(s) => *s,
                None => Store::parse(&p.store)?,
            };
            req.entities =
                p.entities.iter().map(|e| EntityId::parse_given(e)).collect::<Result<_, _>>()?;
            req.relations =
                p.relations.iter().map(|r| Relation::parse(r)).collect::<Result<_, _>>()?;
            // Entities and relations always land in the semantic store; the chosen store is
            // written as well when it is another one.
            if store != Store::Semantic || (req.entities.is_empty() && req.relations.is_empty()) {
                req.stores = vec![store];
            }
            req.confidence = Confidence::parse(&p.confidence).ok();
            req.trigger = trigger;
            // "tomorrow" in a proposal meant the day after it was proposed. See: issue 18
            req.said_at = cogmem_text::date::parse_stored(&p.timestamp);
            let decision_line = format!("{stamp} {by}: approved into {}", store.as_str());
            let report = remember::remember_with(ws, &req, clock, |change| {
                let file = read(ws)?;
                let text = file
                    .with_decision(n, Status::Committed, &decision_line)
                    .ok_or(InputError::UnknownProposal { number: n })?;
                let mut change = change.with_approval(Approval::Approved);
                change.write(
                    PENDING,
                    text.into_bytes(),
                    Action::Commit,
                    format!("proposal #{n} committed"),
                );
                Ok(change)
            })?;
            Ok(DecideReport {
                number: n,
                status: Status::Committed,
                commit: report.commit.clone(),
                remembered: Some(report),
            })
        }
        Decision::Reject { reason } if reason.trim().is_empty() => {
            Err(InputError::EmptyReason { decision: "reject" }.into())
        }
        Decision::Defer { reason: Some(reason) } if reason.trim().is_empty() => {
            Err(InputError::EmptyReason { decision: "defer" }.into())
        }
        Decision::Reject { .. } | Decision::Defer { .. } => {
            let (status, action, reason) = match decision {
                Decision::Reject { reason } => (Status::Rejected, Action::Reject, Some(reason)),
                Decision::Defer { reason } => (Status::Deferred, Action::Edit, reason.as_ref()),
                Decision::Approve { .. } => unreachable!("handled above"),
            };
            if let Some(r) = reason {
                cogmem_store::secrets::check_note(r, "the reason")?;
            }
            let repo = git::open(ws.root())?;
            let lock = ws.lock()?;
            let file = read(ws)?;
            let line = match reason {
                Some(r) => format!("{stamp} {by}: {} — {}", status.as_str(), r.trim()),
                None => format!("{stamp} {by}: {}", status.as_str()),
            };
            let text = file
                .with_decision(n, status, &line)
                .ok_or(InputError::UnknownProposal { number: n })?;
            let summary = format!("proposal #{n} {}", status.as_str());
            // Rejecting or deferring approves nothing: the line carries the decider's own
            // approval (`auto` for an agent, `—` for a person), not `approved`.
            let mut change = Change::new(by.clone(), trigger);
            change.write(PENDING, text.into_bytes(), action, summary.clone());
            let applied =
                change.with_subject(action, summary).apply(ws, &repo, &lock, &FixedClock(now))?;
            Ok(DecideReport { number: n, status, commit: Some(applied.commit), remembered: None })
        }
    }
}

fn verb(d: &Decision) -> &'static str {
    match d {
        Decision::Approve { .. } => "approve",
        Decision::Reject { .. } => "reject",
        Decision::Defer { .. } => "defer",
    }
}

/// Lower-case words, for comparing proposals.
fn words(text: &str) -> BTreeSet<String> {
    cogmem_index::index::analyzer::terms(text).into_iter().collect()
}

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// An open proposal this one contradicts: a functional relation of the same subject with
/// another object, or the same entities with mostly the same words but a different claim.
fn conflicting_proposal(
    file: &PendingFile,
    text: &str,
    entities: &[String],
    relations: &[Relation],
    vocab: &Vocabulary,
) -> Option<u32> {
    let mine = words(text);
    for p in file.proposals.iter().filter(|p| p.status.is_open()) {
        for r in relations.iter().filter(|r| vocab.get(&r.relation).is_some_and(|s| s.functional)) {
            let clash = p
                .relations
                .iter()
                .filter_map(|x| Relation::parse(x).ok())
                .any(|x| x.from == r.from && x.relation == r.relation && x.to != r.to);
            if clash {
                return Some(p.number);
            }
        }
        let shared = p.entities.iter().any(|e| entities.contains(e));
        if shared {
            let theirs = words(&p.content);
            let common = mine.intersection(&theirs).count();
            let union = mine.union(&theirs).count();
            if union > 0 && common * 2 >= union && mine != theirs {
                return Some(p.number);
            }
        }
    }
    None
}

/// A current fact this proposal contradicts: an open functional relation of the same subject
/// pointing elsewhere.
fn conflicting_fact(
    ws: &Workspace,
    relations: &[Relation],
    vocab: &Vocabulary,
) -> crate::Result<Option<String>> {
    for r in relations.iter().filter(|r| vocab.get(&r.relation).is_some_and(|s| s.functional)) {
        let path = ws.abs(&format!("{}/{}.md", layout::ENTITIES_DIR, r.from.as_str()));
        let Some(text) = fsx::read_text_if_exists(&path, ws.file_limit())? else { continue };
        if let Some(cur) = entity::relations(&text)
            .into_iter()
            .find(|l| l.relation == r.relation && l.until.is_none() && l.target != r.to.as_str())
        {
            return Ok(Some(format!("{} {} {}", r.from.as_str(), r.relation, cur.target)));
        }
    }
    Ok(None)
}

fn short(text: &str) -> String {
    let one = cogmem_store::store::markdown::one_line(text);
    match one.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}
