//! `cogmem reflect …`: approval-gated reflection as a state machine (issue 7; design.md §2
//! principle 5). The host agent does the thinking; cogmem records each step and applies nothing
//! without a person's explicit yes.
//!
//! The state is read from the files, never stored apart from them:
//! no open reward request → **idle**; a request saying "Awaiting your decision." → **awaiting
//! decision**; a decided request whose cycle is not closed → **ready for input**;
//! pending-reflection.md holding a submission → **awaiting approval**. Each command checks the
//! state first and refuses (exit 4) naming the step that must come first. Deciding a reward and
//! approving or rejecting a reflection are reserved to a person (`manual` or `user:NAME`).
//! Nothing here runs on a timer.

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::role::require_person;
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::Store;
use cogmem_store::store::decay_file::{DecayFile, RewardOutcome};
use cogmem_store::store::reflection::{self as rf, OpKind, Operation, RewardFile, RewardRequest};
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock, Timestamp, utc_seconds};
use cogmem_text::id::Match;

mod apply;
mod bundle;
mod consolidate;
mod dialogue;
mod logs;
mod plan;
mod target;

pub use apply::{Applied, ApproveReport, approve};
pub use bundle::{
    Cut, ELEMENTS, Element, InputBundle, Section, draw_elements, draw_elements_of, input,
};
pub use dialogue::{DialogueReport, dialogue};
pub use plan::FileDiff;

/// Reward requests, one per reflection.
pub(crate) const REWARDS_DIR: &str = "memory/meta/rewards";
/// Full texts of approved reflections.
pub(crate) const REFLECTIONS_DIR: &str = "memory/meta/reflections";
/// The reflection waiting for approval.
pub(crate) const PENDING_REFLECTION: &str = "memory/meta/pending-reflection.md";
/// One entry per approved reflection.
pub const REFLECTION_LOG: &str = "memory/meta/reflection-log.md";
/// Older reflection-log entries.
pub(crate) const REFLECTION_ARCHIVE: &str = "memory/meta/reflection-archive.md";
/// One result per approved reflection, one record per rejected one.
pub const REWARD_LOG: &str = "memory/meta/reward-log.md";
/// How understanding, rewards and penalties change across reflections.
pub const EVOLUTION: &str = "memory/meta/evolution.md";
/// Older evolution entries.
pub(crate) const EVOLUTION_ARCHIVE: &str = "memory/meta/evolution-archive.md";

/// The budget when decay-scores.json names none.
pub(crate) const DEFAULT_BASELINE: u64 = 8_000;
/// The input bundle's budget (skill: ~30K tokens).
pub(crate) const INPUT_BUDGET: usize = 30_000;
/// evolution.md's cap.
pub(crate) const EVOLUTION_CAP: usize = 2_000;
/// Self-awareness entries that make a self-image consolidation due.
pub(crate) const CONSOLIDATION_DUE: u64 = 10;

/// Where a reflection cycle stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// No cycle open: the agent may request tokens.
    Idle,
    /// The reward request waits for the user's decision.
    AwaitingDecision,
    /// Decided: the agent may read its input and submit a reflection.
    ReadyForInput,
    /// A reflection waits for the user's approval.
    AwaitingApproval,
}

impl State {
    /// Returns the state in words.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::Idle => "idle (no reflection in progress)",
            Self::AwaitingDecision => "awaiting the user's decision on the reward request",
            Self::ReadyForInput => "ready for input (the reward is decided)",
            Self::AwaitingApproval => "awaiting the user's approval of the submitted reflection",
        }
    }

    /// Returns who must act next.
    pub(crate) fn waiting_for(self) -> &'static str {
        match self {
            Self::Idle | Self::ReadyForInput => "agent",
            Self::AwaitingDecision | Self::AwaitingApproval => "user",
        }
    }

    /// Returns the commands allowed now.
    pub(crate) fn next(self) -> &'static [&'static str] {
        match self {
            Self::Idle => &["cogmem reflect request"],
            Self::AwaitingDecision => &["cogmem reflect decide"],
            Self::ReadyForInput => &["cogmem reflect input", "cogmem reflect submit"],
            Self::AwaitingApproval => &["cogmem reflect approve", "cogmem reflect reject"],
        }
    }
}

/// The open (or last) cycle, read from the files.
#[derive(Debug, Clone)]
struct Cycle {
    state: State,
    reward_path: Option<String>,
    reward: Option<RewardFile>,
    number: u32,
}

fn read(ws: &Workspace, rel: &str) -> crate::Result<String> {
    Ok(ws.read_text_if_exists(rel)?.unwrap_or_default())
}

/// Appends `moved` (entries taken out of a capped log) to the archive `rel` in `change`, the
/// archive made with the heading `title` when it is new; nothing when `moved` is empty.
fn append_to_archive(
    ws: &Workspace,
    change: &mut Change,
    rel: &str,
    title: &str,
    moved: &str,
    summary: &str,
) -> crate::Result<()> {
    if moved.is_empty() {
        return Ok(());
    }
    let mut arch = read(ws, rel)?;
    if arch.is_empty() {
        arch.push_str(title);
    }
    arch.push_str(moved);
    change.write(rel, arch.into_bytes(), Action::Append, summary.to_owned());
    Ok(())
}

/// The reward files, oldest first: `DATE.md`, then `DATE-2.md`, …
fn reward_files(ws: &Workspace) -> Vec<String> {
    let mut files = units::markdown_files(ws.root(), REWARDS_DIR);
    files.sort_by_key(|p| {
        let stem = units::md_stem(p).to_owned();
        let date: String = stem.chars().take(10).collect();
        let k: u32 = stem.get(11..).and_then(|s| s.parse().ok()).unwrap_or(1);
        (date, k)
    });
    files
}

fn cycle(ws: &Workspace) -> crate::Result<Cycle> {
    let pending = read(ws, PENDING_REFLECTION)?;
    let log_next = rf::last_number(&read(ws, REFLECTION_LOG)?)
        .max(rf::last_number(&read(ws, REFLECTION_ARCHIVE)?))
        + 1;
    let reward_path = reward_files(ws).pop();
    let reward = match &reward_path {
        Some(p) => Some(RewardFile::parse(&read(ws, p)?)),
        None => None,
    };
    let open = reward.as_ref().filter(|r| r.closed.is_none());
    let state = if rf::has_submission(&pending) {
        State::AwaitingApproval
    } else if open.is_some_and(|r| r.awaiting) {
        State::AwaitingDecision
    } else if open.is_some_and(|r| r.decision.is_some()) {
        State::ReadyForInput
    } else {
        State::Idle
    };
    let number = match state {
        State::Idle => log_next,
        State::AwaitingApproval => rf::submission_number(&pending)
            .or_else(|| reward.as_ref().and_then(|r| r.reflection))
            .unwrap_or(log_next),
        _ => reward.as_ref().and_then(|r| r.reflection).unwrap_or(log_next),
    };
    let (reward_path, reward) =
        if state == State::Idle { (None, None) } else { (reward_path, reward) };
    Ok(Cycle { state, reward_path, reward, number })
}

fn require(c: &Cycle, want: &[State], command: &str) -> crate::Result<()> {
    if want.contains(&c.state) {
        return Ok(());
    }
    Err(RuleError::ReflectOrder {
        command: command.to_owned(),
        state: c.state.describe(),
        first: c.state.next().join("` or `"),
    }
    .into())
}

/// What `reflect status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct StatusReport {
    /// The state.
    pub state: State,
    /// The state in words.
    pub description: &'static str,
    /// `agent` or `user`.
    pub waiting_for: &'static str,
    /// Commands allowed now.
    pub next: Vec<&'static str>,
    /// The reflection in progress (or the next one).
    pub reflection: u32,
    /// The open reward request.
    pub rewards_file: Option<String>,
    /// Tokens asked for.
    pub requested: Option<u64>,
    /// Tokens granted.
    pub granted: Option<u64>,
    /// When the last reflection was approved.
    pub last_reflection: Option<String>,
    /// `[Self-Awareness]` entries since the last self-image consolidation.
    pub self_awareness_since_consolidation: u64,
    /// Whether a self-image consolidation is due (10 or more entries).
    pub consolidation_due: bool,
    /// Whether a self-image consolidation waits for the user's approval.
    pub consolidation_pending: bool,
    /// The decay file the counters live in, when it could not be read (the counters are then
    /// 0 and no reflection is known); left out of the JSON when it was read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<cogmem_store::store::units::Unreadable>,
}

impl StatusReport {
    /// The cycle in one line, as `hear` and the session hook say it: ``reflection #1: idle (no
    /// reflection in progress); waiting for the agent; next: `cogmem reflect request` ``.
    pub fn summary(&self) -> String {
        let next: Vec<String> = self.next.iter().map(|c| format!("`{c}`")).collect();
        format!(
            "reflection #{}: {}; waiting for the {}; next: {}",
            self.reflection,
            self.description,
            self.waiting_for,
            next.join(", ")
        )
    }
}

/// Reports where the reflection cycle stands. Read-only.
pub fn status(ws: &Workspace) -> crate::Result<StatusReport> {
    let c = cycle(ws)?;
    // Only the main file: the counters read here live there, not in the entry shards (a full
    // load reads every shard; the web view's overview calls this on every page view, issue 21).
    // A main file that cannot be read leaves the counters unknown (reported, not fatal: the
    // overview, the review page and the hooks read this).
    let (d, skipped) = if ws.abs(layout::DECAY_SCORES).exists() {
        let (d, skipped) = DecayFile::load_readable(ws, Some(&[]));
        (Some(d), skipped)
    } else {
        (None, Vec::new())
    };
    let count = d.as_ref().map_or(0, DecayFile::self_awareness_since_consolidation);
    Ok(StatusReport {
        state: c.state,
        description: c.state.describe(),
        waiting_for: c.state.waiting_for(),
        next: c.state.next().to_vec(),
        reflection: c.number,
        rewards_file: c.reward_path.clone(),
        requested: c.reward.as_ref().map(RewardFile::requested),
        granted: c.reward.as_ref().and_then(|r| r.granted),
        last_reflection: d.as_ref().and_then(|d| d.last_reflection()).map(str::to_owned),
        self_awareness_since_consolidation: count,
        consolidation_due: count >= CONSOLIDATION_DUE,
        consolidation_pending: ws.abs(crate::identity::PENDING_IDENTITY).exists(),
        skipped,
    })
}

fn load_decay(ws: &Workspace) -> crate::Result<Option<DecayFile>> {
    let path = ws.abs(layout::DECAY_SCORES);
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(DecayFile::load(ws)?))
}

/// A reward request to make.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Extra tokens asked for.
    pub extra: u64,
    /// Why.
    pub extra_reason: Option<String>,
    /// Tokens the agent takes off its own budget.
    pub penalty: u64,
    /// Why.
    pub penalty_reason: Option<String>,
}

/// What a step that commits did.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The reflection.
    pub reflection: u32,
    /// The state now.
    pub state: State,
    /// The main file written.
    pub file: String,
    /// Tokens requested or granted, where the step is about tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The commit.
    pub commit: String,
}

/// The repository and the workspace lock, taken before the state is read so that two steps
/// cannot both pass the same gate.
struct Session {
    repo: git2::Repository,
    lock: cogmem_store::workspace::LockGuard,
}

impl Session {
    fn open(ws: &Workspace) -> crate::Result<Self> {
        let repo = git::open(ws.root())?;
        let lock = ws.lock()?;
        Ok(Self { repo, lock })
    }

    fn commit(self, ws: &Workspace, change: Change, now: Timestamp) -> crate::Result<String> {
        Ok(change.apply(ws, &self.repo, &self.lock, &FixedClock(now))?.commit)
    }

    /// [`Session::commit`] for a change to memory files: the search index is brought up to
    /// date, its lock taken before the workspace lock goes (so `verify` right after never finds
    /// it behind, issue 16).
    fn commit_indexed(
        self,
        ws: &Workspace,
        change: Change,
        now: Timestamp,
    ) -> crate::Result<String> {
        let applied = change.apply(ws, &self.repo, &self.lock, &FixedClock(now))?;
        cogmem_index::index::update_after_commit_releasing(ws, self.lock, &applied.files);
        Ok(applied.commit)
    }
}

/// Writes a reward request (`memory/meta/rewards/YYYY-MM-DD.md`, "Awaiting your decision.") as
/// one commit. Refused unless idle; an extra or a penalty needs its reason.
pub fn request(
    ws: &Workspace,
    opts: &RequestOptions,
    actor: &Actor,
    clock: &dyn Clock,
) -> crate::Result<StepReport> {
    let session = Session::open(ws)?;
    let c = cycle(ws)?;
    require(&c, &[State::Idle], "cogmem reflect request")?;
    let reason = |n: u64, r: &Option<String>, what: &'static str| match r {
        Some(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_owned())),
        _ if n == 0 => Ok(None),
        _ => Err(InputError::ReflectReason { what }),
    };
    let extra_reason = reason(opts.extra, &opts.extra_reason, "--extra")?;
    let penalty_reason = reason(opts.penalty, &opts.penalty_reason, "--penalty")?;
    for r in extra_reason.iter().chain(&penalty_reason) {
        cogmem_store::secrets::check_note(r, "the reason")?;
    }
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let baseline = load_decay(ws)?.and_then(|d| d.token_baseline()).unwrap_or(DEFAULT_BASELINE);
    let req = RewardRequest {
        reflection: c.number,
        date: date.clone(),
        baseline,
        extra: opts.extra,
        extra_reason,
        penalty: opts.penalty,
        penalty_reason,
    };
    let mut path = format!("{REWARDS_DIR}/{date}.md");
    let mut k = 2;
    while ws.abs(&path).exists() {
        path = format!("{REWARDS_DIR}/{date}-{k}.md");
        k += 1;
    }
    let summary = format!(
        "reward request for reflection #{}: {} tokens",
        c.number,
        rf::thousands(req.total())
    );
    let mut change =
        Change::new(actor.clone(), "cogmem reflect request").with_approval(Approval::Pending);
    change.write(&path, req.render().into_bytes(), Action::Create, summary);
    let commit = session.commit(ws, change, now)?;
    Ok(StepReport {
        reflection: c.number,
        state: State::AwaitingDecision,
        file: path,
        tokens: Some(req.total()),
        commit,
    })
}

/// The user's answer to a reward request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewardDecision {
    /// Grant what was asked.
    Approve,
    /// Grant N more.
    Bonus(u64),
    /// Grant N less.
    Reduce(u64),
    /// Give back the agent's self-penalty.
    Forgive,
    /// Take N more off.
    Penalize(u64),
}

impl RewardDecision {
    fn word(self) -> &'static str {
        match self {
            Self::Approve => "Approved",
            Self::Bonus(_) => "Bonus",
            Self::Reduce(_) => "Reduced",
            Self::Forgive => "Forgave penalty",
            Self::Penalize(_) => "Increased penalty",
        }
    }
}

/// Records the user's decision on the open reward request: the outcome in the rewards file and
/// the token economy in decay-scores.json, as one commit. The Result/Reason entry in
/// reward-log.md waits for the reflection's approval (issue 19). Only a person may decide; only
/// an open request can be decided.
pub fn decide(
    ws: &Workspace,
    decision: RewardDecision,
    reason: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<StepReport> {
    require_person(by, "decide a reward")?;
    let session = Session::open(ws)?;
    let c = cycle(ws)?;
    if matches!(c.state, State::ReadyForInput | State::AwaitingApproval)
        && let Some(r) = &c.reward
        && let (Some(decision), Some(granted)) = (&r.decision, r.granted)
    {
        return Err(RuleError::RewardDecided {
            reflection: c.number,
            decision: decision.clone(),
            tokens: rf::thousands(granted),
            submitted: c.state == State::AwaitingApproval,
        }
        .into());
    }
    require(&c, &[State::AwaitingDecision], "cogmem reflect decide")?;
    let path = c.reward_path.clone().expect("a request awaits a decision");
    let r = c.reward.clone().expect("a request awaits a decision");
    let asked = r.requested();
    let granted = match decision {
        RewardDecision::Approve => asked,
        RewardDecision::Bonus(n) => asked + n,
        RewardDecision::Reduce(n) | RewardDecision::Penalize(n) => asked.saturating_sub(n),
        RewardDecision::Forgive => asked + r.penalty,
    };
    let reason = reason.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(match decision {
        RewardDecision::Approve => "approved as requested",
        RewardDecision::Bonus(_) => "bonus granted",
        RewardDecision::Reduce(_) => "request reduced",
        RewardDecision::Forgive => "self-penalty forgiven",
        RewardDecision::Penalize(_) => "penalty increased",
    });
    cogmem_store::secrets::check_note(reason, "the reason")?;
    let now = clock.now();
    let stamp = utc_seconds(&now);
    let date = now.format("%Y-%m-%d").to_string();
    let text = read(ws, &path)?;
    let new = rf::with_outcome(&text, decision.word(), granted, reason, by.as_str(), &stamp);

    let mut decay = DecayFile::load(ws.root())?;
    let (user_bonus, user_penalty) = match decision {
        RewardDecision::Bonus(n) => (Some(n), None),
        RewardDecision::Reduce(n) | RewardDecision::Penalize(n) => (None, Some(n)),
        RewardDecision::Approve | RewardDecision::Forgive => (None, None),
    };
    decay.record_reward(&RewardOutcome {
        reward: &r,
        granted,
        decision: decision.word(),
        user_bonus,
        user_penalty,
        reflection: c.number,
        date: &date,
        reason,
    });
    let summary = format!(
        "reward for reflection #{}: {} — {} tokens",
        c.number,
        decision.word(),
        rf::thousands(granted)
    );
    let mut change = Change::new(by.clone(), format!("cogmem reflect decide (by {by})"))
        .with_approval(Approval::None)
        .with_subject(Action::Edit, summary.clone());
    change.write(&path, new.into_bytes(), Action::Edit, summary);
    change.write_decay(ws, &mut decay, Action::Edit, "token economy updated");
    let commit = session.commit(ws, change, now)?;
    Ok(StepReport {
        reflection: c.number,
        state: State::ReadyForInput,
        file: path,
        tokens: Some(granted),
        commit,
    })
}

/// What `reflect submit` did.
#[derive(Debug, Clone, Serialize)]
pub struct SubmitReport {
    /// The reflection.
    pub reflection: u32,
    /// The operations found, all valid.
    pub operations: Vec<Operation>,
    /// What approving each block would do now: its outcome and, per file it changes, the
    /// unified diff (issue 19). `reflect approve` plans again from the files as they are then.
    pub blocks: Vec<Applied>,
    /// `[Self-Awareness]` insights found.
    pub self_awareness: Vec<String>,
    /// The commit.
    pub commit: String,
}

/// A validated operation: the memory it is about, when it names one.
#[derive(Debug, Clone)]
struct Checked {
    op: Operation,
    kind: OpKind,
    id: Option<String>,
    /// What the block writes.
    resolved: target::Resolved,
}

/// Checks a reflection's OPERATION blocks against the workspace as it is now, and resolves what
/// each writes ([`target`]): the operation word, TARGET (inside memory/, and of a form the
/// operation can write), REASON, CONTENT; a CONNECT's relation against the vocabulary (its
/// acyclic rule included, with the earlier blocks' relations); an ARCHIVE's or REWRITE's memory
/// (which must exist and not be pinned). The first bad block fails, naming its number.
fn check_ops(ws: &Workspace, text: &str) -> crate::Result<Vec<Checked>> {
    let all = units::list(ws);
    let decay_file = load_decay(ws)?;
    let mut graph: Option<(cogmem_store::vocab::Vocabulary, cogmem_index::graph::Graph)> = None;
    let mut relations: Vec<crate::remember::Relation> = Vec::new();
    let mut out = Vec::new();
    for op in rf::operations(text) {
        let bad = |why: String| InputError::ReflectBlock { block: op.number, why };
        let kind = OpKind::parse(&op.op).ok_or_else(|| {
            bad(format!("unknown operation {:?}; expected one of: {}", op.op, OpKind::names()))
        })?;
        let target = op.target.trim();
        if target.is_empty() {
            return Err(bad("TARGET is missing".into()).into());
        }
        // A FLAG's TARGET is a list of memories, which may run over lines; any other names one.
        if let Some(line) = op.second_target.filter(|_| kind != OpKind::Flag) {
            return Err(bad(format!(
                "the block has two TARGET lines (the second at line {line} of the reflection); \
                 give each block one TARGET, and write one block per memory"
            ))
            .into());
        }
        if kind != OpKind::Flag && target.contains('\n') {
            return Err(bad(format!(
                "TARGET {target:?} runs onto a second line; a TARGET is one line"
            ))
            .into());
        }
        if op.reason.trim().is_empty() {
            return Err(bad("REASON is missing".into()).into());
        }
        if kind != OpKind::Archive && kind != OpKind::Flag && op.content.trim().is_empty() {
            return Err(bad(format!("{} needs CONTENT", kind.as_str())).into());
        }
        // `#…` names a section, a bullet or a fact; the rest must be a memory or a memory file.
        let base = target.split('#').next().unwrap_or(target).trim();
        if let Some(c) = base.chars().find(|c| cogmem_text::word::is_hidden(*c)) {
            return Err(bad(format!(
                "TARGET {base:?} holds an invisible or bidi control character (U+{:04X}), which \
                 hides what it names; type the TARGET again without it",
                u32::from(c)
            ))
            .into());
        }
        let bare_entity = !base.contains([':', '/'])
            && cogmem_store::store::entity::EntityId::parse(base).is_ok();
        let id = if kind == OpKind::Flag {
            // A FLAG names a list of memories, each checked to exist.
            crate::flag::memories(&all, &op)?.into_iter().next()
        } else if bare_entity {
            Some(format!("entity:{base}"))
        } else {
            target_id(base).map_err(bad)?
        };
        let resolved = match kind {
            OpKind::Extract => target::extract(target).map_err(bad)?,
            OpKind::Rewrite => target::rewrite(ws, op.number, target, &all, decay_file.as_ref())?,
            OpKind::Connect => {
                if graph.is_none() {
                    graph = Some((crate::vocabulary::load(ws)?, cogmem_index::graph::build(ws)?));
                }
                let (vocab, g) = graph.as_ref().expect("just loaded");
                let r = target::connect(ws, op.number, &op.content, vocab, g, &relations)?;
                if let target::Resolved::Relation(rel) = &r {
                    relations.push(rel.clone());
                }
                r
            }
            OpKind::Archive => {
                let Some(given) = &id else {
                    return Err(bad(format!(
                        "ARCHIVE needs a memory id such as `episode:2026-02-02:14:30` or a store file, not {target:?}"
                    ))
                    .into());
                };
                let found = crate::id::memory(given, &all, decay_file.as_ref(), Match::Exact)
                    .map_err(|e| match e {
                        crate::Error::Store(cogmem_store::Error::Input(i)) => {
                            InputError::ReflectWrite { block: op.number, error: Box::new(i) }.into()
                        }
                        e => e,
                    })?;
                let unit = all
                    .get(&found)
                    .ok_or_else(|| bad(format!("no memory has the id {found:?}")))?;
                if unit.store == Store::Vault
                    || decay_file.as_ref().is_some_and(|d| d.is_pinned(&found))
                {
                    return Err(RuleError::ReflectPinned {
                        block: op.number,
                        id: found,
                        what: "archived",
                    }
                    .into());
                }
                target::Resolved::Recorded
            }
            OpKind::Flag | OpKind::Pattern | OpKind::Evolve => target::Resolved::Recorded,
        };
        let id = match &resolved {
            target::Resolved::CoreBullet(core) => Some(core.clone()),
            target::Resolved::Fact { entity, .. } => Some(format!("entity:{entity}")),
            _ => id,
        };
        out.push(Checked { op, kind, id, resolved });
    }
    Ok(out)
}

/// Resolves a TARGET to a memory id (`None` for a file that is not one memory), or says why it
/// is not allowed.
fn target_id(target: &str) -> Result<Option<String>, String> {
    const IDS: [&str; 5] = ["entity:", "episode:", "procedure:", "vault:", "core:"];
    if IDS.iter().any(|p| target.starts_with(p)) {
        if target.contains(['/', '\\'])
            || target.contains("..")
            || target.chars().any(char::is_control)
        {
            return Err(format!("TARGET {target:?} is not a valid memory id"));
        }
        return Ok(Some(target.to_owned()));
    }
    // `memory/../SOUL.md` is inside the workspace: say what is wrong with it. One that climbs
    // above the root (`../x`) is outside, as said below.
    let mut depth = 0usize;
    let climbs = target.split('/').any(|c| match c {
        ".." if depth == 0 => true,
        ".." => {
            depth -= 1;
            false
        }
        "" | "." => false,
        _ => {
            depth += 1;
            false
        }
    });
    if !climbs && let Some(c) = target.split('/').find(|c| *c == ".." || *c == ".") {
        return Err(format!(
            "`{c}` is not allowed in a TARGET ({target:?}); name the file by its path from the \
             workspace, such as `memory/graph/entities/person--alice.md`"
        ));
    }
    let outside = target.starts_with(['/', '\\', '~'])
        || target.contains('\\')
        || target.chars().any(char::is_control)
        || climbs
        || target.get(1..2) == Some(":");
    if outside {
        return Err(format!("TARGET {target:?} is outside the workspace"));
    }
    if target != layout::MEMORY_MD && !target.starts_with("memory/") {
        return Err(format!(
            "TARGET {target:?} is not a memory file; a reflection may touch only memory/ and MEMORY.md"
        ));
    }
    let stem = |dir: &str| {
        target
            .strip_prefix(dir)?
            .strip_prefix('/')?
            .strip_suffix(".md")
            .filter(|s| !s.contains('/'))
    };
    Ok(if let Some(s) = stem(layout::ENTITIES_DIR) {
        Some(format!("entity:{s}"))
    } else if let Some(s) = stem(layout::PROCEDURES_DIR) {
        Some(format!("procedure:{s}"))
    } else {
        stem(layout::VAULT_DIR).map(|s| format!("vault:{s}"))
    })
}

/// Validates a reflection's OPERATION blocks and stores it in pending-reflection.md (one
/// commit, approval pending). Refused unless the reward is decided and no reflection waits.
pub fn submit(
    ws: &Workspace,
    text: &str,
    actor: &Actor,
    allow_secret: bool,
    clock: &dyn Clock,
) -> crate::Result<SubmitReport> {
    let session = Session::open(ws)?;
    let c = cycle(ws)?;
    require(&c, &[State::ReadyForInput], "cogmem reflect submit")?;
    if text.trim().is_empty() {
        return Err(InputError::EmptyReflection.into());
    }
    let text = crate::remember::check_text(text)?;
    crate::remember::check_size(ws, &text)?;
    // Its CONTENT becomes memory when approved: no credentials, as for `remember`.
    cogmem_store::secrets::check(&text, "the reflection", allow_secret)?;
    let checked = check_ops(ws, &text)?;
    let now = clock.now();
    // The plan the person will approve, block by block; refused here as approval would refuse
    // it (a MEMORY.md over budget), before anyone is asked.
    let preview = Change::new(apply::actor_of(c.number)?, "cogmem reflect submit");
    let blocks = apply::plan(ws, &checked, None, c.number, now, preview)?.applied;
    let pending = read(ws, PENDING_REFLECTION)?;
    let mut new = rf::without_submission(&pending);
    new.push_str(&format!(
        "\n{} — reflection #{}\n- **Submitted:** {} by {actor}\n- **Operations:** {}\n- **Rewards:** {}\n\n<!-- submission text -->\n{}\n",
        rf::SUBMISSION_HEADING,
        c.number,
        utc_seconds(&now),
        checked.len(),
        c.reward_path.as_deref().unwrap_or("—"),
        text.trim_end()
    ));
    let summary = format!("reflection #{} submitted with {} operations", c.number, checked.len());
    let mut change =
        Change::new(actor.clone(), "cogmem reflect submit").with_approval(Approval::Pending);
    change.write(PENDING_REFLECTION, new.into_bytes(), Action::Edit, summary);
    // Recorded under the lock, before another command can commit on top.
    let Session { repo, lock } = session;
    let commit = change.apply(ws, &repo, &lock, &FixedClock(now))?.commit;
    record_submission(&repo, &PENDING, &commit);
    Ok(SubmitReport {
        reflection: c.number,
        operations: checked.into_iter().map(|c| c.op).collect(),
        blocks,
        self_awareness: rf::self_awareness(&text),
        commit,
    })
}

/// What `reflect show` reports: the pending reflection and what approving it would do now.
#[derive(Debug, Clone, Serialize)]
pub struct ShowReport {
    /// The reflection.
    pub reflection: u32,
    /// The submitted text.
    pub text: String,
    /// What approving each block would do now, with its diffs (as `reflect submit` reports).
    pub blocks: Vec<Applied>,
    /// Set when pending-reflection.md differs from what `reflect submit` wrote (an edit by
    /// hand, committed or not): what is shown is not what was submitted, and approval refuses
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_since_submit: Option<SubmissionChanged>,
}

/// pending-reflection.md no longer holds what `reflect submit` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct SubmissionChanged {
    /// The submit commit.
    pub commit: String,
    /// The refusal approval would give, as text.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

/// How many commits back the submit commit is looked for.
const SUBMIT_SEARCH: usize = 100_000;

/// A pending submission's file and the commands around it, for [`submission_changed`].
pub(crate) struct Pending {
    /// The file, relative to the workspace root.
    pub rel: &'static str,
    /// What it holds, for the message.
    pub what: &'static str,
    /// The command that submits it (the trigger of its commit).
    pub submit: &'static str,
    /// The command that rejects it.
    pub reject: &'static str,
    /// The ref that records the commit of this workspace's latest submission of it (see
    /// [`record_submission`]).
    pub record: &'static str,
}

/// The folder of the refs that record submit commits ([`Pending::record`]); `cogmem sync
/// --remote` carries them (see `remote::record`).
pub(crate) const SUBMITTED_REFS: &str = "refs/cogmem/submitted/";

/// The pending reflection.
pub(crate) const PENDING: Pending = Pending {
    rel: PENDING_REFLECTION,
    what: "the pending reflection",
    submit: "cogmem reflect submit",
    reject: "cogmem reflect reject",
    record: "refs/cogmem/submitted/reflection",
};

/// Records `commit` as the commit of this workspace's submission of `p` (the ref
/// [`Pending::record`]), for [`submission_changed`]: a commit made by hand can claim cogmem's
/// name and the submit trigger, but it cannot be the commit recorded before it was made. Best
/// effort: without the record, the check falls back to the trigger, as for a submission made on
/// another machine.
pub(crate) fn record_submission(repo: &git2::Repository, p: &Pending, commit: &str) {
    if let Ok(id) = git2::Oid::from_str(commit) {
        let _ = repo.reference(p.record, id, true, "cogmem: submitted");
    }
}

/// The submit commit recorded for `p` and what the file held in it, while that submission is
/// the one waiting: the commit is on `HEAD`'s history and every commit since kept a submission
/// in the file. `None` without a record (submitted on another machine, or before records were
/// kept), when its submission was approved or rejected since, or when the history cannot be
/// read.
fn recorded_submission(
    repo: &git2::Repository,
    p: &Pending,
) -> crate::Result<Option<(git2::Oid, Option<Vec<u8>>)>> {
    let Some(rec) = repo.find_reference(p.record).ok().and_then(|r| r.target()) else {
        return Ok(None);
    };
    let Some(head) = git::head_id(repo)? else { return Ok(None) };
    if rec != head && !repo.graph_descendant_of(head, rec).unwrap_or(false) {
        return Ok(None);
    }
    let at = |id: git2::Oid| -> crate::Result<Option<Option<Vec<u8>>>> {
        let Ok(tree) = repo.find_commit(id).and_then(|c| c.tree()) else { return Ok(None) };
        Ok(Some(git::read_at_head(repo, Some(&tree), p.rel)?))
    };
    let Ok(mut walk) = repo.revwalk() else { return Ok(None) };
    if walk.push(head).and_then(|()| walk.hide(rec)).is_err() {
        return Ok(None);
    }
    for id in walk {
        let Ok(id) = id else { return Ok(None) };
        let kept =
            at(id)?.flatten().is_some_and(|b| rf::is_submitted(&String::from_utf8_lossy(&b)));
        if !kept {
            return Ok(None);
        }
    }
    Ok(at(rec)?.map(|wrote| (rec, wrote)))
}

/// Checks a pending file against what its submit commit wrote: the refusal when they differ
/// (edited by hand since, committed or not), `None` when they agree or no such commit is found
/// (a history rewritten outside cogmem). The submit commit is the one this workspace recorded
/// ([`record_submission`]) while its submission waits; otherwise (a submission made on another
/// machine) the latest commit of the submit command.
pub(crate) fn submission_changed(
    ws: &Workspace,
    repo: &git2::Repository,
    p: &Pending,
) -> crate::Result<Option<RuleError>> {
    let found = match recorded_submission(repo, p)? {
        Some(r) => Some(r),
        None => git::last_written_by(repo, p.submit, p.rel, SUBMIT_SEARCH)?,
    };
    let Some((commit, Some(wrote))) = found else {
        return Ok(None);
    };
    let now = ws.read_text_if_exists(p.rel)?.unwrap_or_default();
    if now.as_bytes() == wrote {
        return Ok(None);
    }
    Ok(Some(RuleError::SubmissionChanged {
        path: ws.abs(p.rel),
        rel: p.rel,
        what: p.what,
        submit: p.submit,
        reject: p.reject,
        commit: commit.to_string()[..8].to_owned(),
    }))
}

/// Shows the reflection awaiting approval with the plan of its approval, built from the files
/// as they are now: the diffs a person approves. Read-only. Refused unless a reflection awaits
/// approval; fails as approval would when a block can no longer be applied.
pub fn show(ws: &Workspace, clock: &dyn Clock) -> crate::Result<ShowReport> {
    let c = cycle(ws)?;
    require(&c, &[State::AwaitingApproval], "cogmem reflect show")?;
    let text = rf::submission_text(&read(ws, PENDING_REFLECTION)?).unwrap_or_default();
    let changed_since_submit =
        submission_changed(ws, &git::open(ws.root())?, &PENDING)?.map(|e| SubmissionChanged {
            commit: match &e {
                RuleError::SubmissionChanged { commit, .. } => commit.clone(),
                _ => String::new(),
            },
            message: e.to_string(),
            hint: e.hint().unwrap_or_default(),
        });
    let checked = check_ops(ws, &text)?;
    let preview = Change::new(apply::actor_of(c.number)?, "cogmem reflect show");
    let blocks = apply::plan(ws, &checked, None, c.number, clock.now(), preview)?.applied;
    Ok(ShowReport { reflection: c.number, text, blocks, changed_since_submit })
}

/// What `reflect reject` did.
#[derive(Debug, Clone, Serialize)]
pub struct RejectReport {
    /// The reflection.
    pub reflection: u32,
    /// Why.
    pub reason: String,
    /// The commit.
    pub commit: String,
}

/// Rejects the pending reflection: records who and why in the reward file (closing the cycle)
/// and in reward-log.md (a rejection record, never a reward result, issue 19), and resets
/// pending-reflection.md; nothing else changes. Only a person may reject.
pub fn reject(
    ws: &Workspace,
    reason: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<RejectReport> {
    require_person(by, "reject a reflection")?;
    let session = Session::open(ws)?;
    let c = cycle(ws)?;
    require(&c, &[State::AwaitingApproval], "cogmem reflect reject")?;
    cogmem_store::secrets::check_note(reason.unwrap_or_default(), "the reason")?;
    // One line, as the logs record it and the report says it.
    let reason = reason
        .map(cogmem_text::markdown::one_line)
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "no reason given".to_owned());
    let now = clock.now();
    let n = c.number;
    let pending = read(ws, PENDING_REFLECTION)?;
    let mut change = Change::new(by.clone(), format!("cogmem reflect reject (by {by})"))
        .with_approval(Approval::None);
    let summary = format!("reflection #{n} rejected: {reason}");
    change.write(
        PENDING_REFLECTION,
        rf::without_submission(&pending).into_bytes(),
        Action::Reject,
        summary.clone(),
    );
    if let Some(p) = &c.reward_path {
        let t = read(ws, p)?;
        let note = format!("rejected by {by} at {}: {reason}", utc_seconds(&now));
        change.write(p, rf::with_closing(&t, &note).into_bytes(), Action::Reject, summary.clone());
    }
    let date = now.format("%Y-%m-%d").to_string();
    logs::write_rejection(ws, &mut change, n, &date, &reason)?;
    let change = change.with_subject(Action::Reject, summary);
    let commit = session.commit(ws, change, now)?;
    Ok(RejectReport { reflection: n, reason, commit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_deterministic_and_five_to_eight() {
        let a = draw_elements("2026-12-01", 1);
        assert_eq!(a, draw_elements("2026-12-01", 1));
        assert!((5..=8).contains(&a.len()), "{a:?}");
        let others: Vec<_> = (1..20).map(|n| draw_elements("2026-12-01", n)).collect();
        assert!(others.iter().any(|o| *o != a), "different reflections get different menus");
    }

    #[test]
    fn targets_are_checked() {
        let cases = [
            ("entity:person--alice", Ok(Some("entity:person--alice"))),
            ("memory/graph/entities/person--bob.md", Ok(Some("entity:person--bob"))),
            ("memory/episodes/2026-12-01.md", Ok(None)),
            ("MEMORY.md", Ok(None)),
            ("../etc/passwd", Err("outside the workspace")),
            ("memory/../SOUL.md", Err("`..` is not allowed in a TARGET")),
            ("memory/../../SOUL.md", Err("outside the workspace")),
            ("/etc/passwd", Err("outside the workspace")),
            ("SOUL.md", Err("not a memory file")),
            ("entity:../x", Err("not a valid memory id")),
        ];
        for (input, want) in cases {
            let got = target_id(input);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g.as_deref(), w, "input: {input:?}"),
                (Err(g), Err(w)) => assert!(g.contains(w), "input: {input:?}: {g}"),
                (g, w) => panic!("input {input:?}: got {g:?}, want {w:?}"),
            }
        }
    }
}
