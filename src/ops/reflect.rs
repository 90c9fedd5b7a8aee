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
use serde_json::{Value, json};

use crate::audit::{Action, Actor, Approval};
use crate::change::Change;
use crate::clock::{Clock, FixedClock, Timestamp, utc_seconds};
use crate::decay;
use crate::error::{InputError, RuleError};
use crate::git;
use crate::ops::context::{Encoding, Tiktoken};
use crate::pack::TokenCounter;
use crate::store::decay_file::{DecayFile, NewUnit};
use crate::store::episode::{self, EntryType, NewEntry};
use crate::store::reflection::{self as rf, OpKind, Operation, RewardFile, RewardRequest};
use crate::store::units;
use crate::store::{Confidence, Store, fsx};
use crate::workspace::{Workspace, layout};

/// Reward requests, one per reflection.
pub const REWARDS_DIR: &str = "memory/meta/rewards";
/// Full texts of approved reflections.
pub const REFLECTIONS_DIR: &str = "memory/meta/reflections";
/// The reflection waiting for approval.
pub const PENDING_REFLECTION: &str = "memory/meta/pending-reflection.md";
/// One entry per approved reflection.
pub const REFLECTION_LOG: &str = "memory/meta/reflection-log.md";
/// Older reflection-log entries.
pub const REFLECTION_ARCHIVE: &str = "memory/meta/reflection-archive.md";
/// One entry per reward decision.
pub const REWARD_LOG: &str = "memory/meta/reward-log.md";
/// How understanding changes across reflections.
pub const EVOLUTION: &str = "memory/meta/evolution.md";
/// Older evolution entries.
pub const EVOLUTION_ARCHIVE: &str = "memory/meta/evolution-archive.md";

/// The budget when decay-scores.json names none.
pub const DEFAULT_BASELINE: u64 = 8_000;
/// The input bundle's budget (skill: ~30K tokens).
pub const INPUT_BUDGET: usize = 30_000;
/// evolution.md's cap.
pub const EVOLUTION_CAP: usize = 2_000;
/// Self-awareness entries that make a self-image consolidation due.
pub const CONSOLIDATION_DUE: u64 = 10;

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
    pub fn describe(self) -> &'static str {
        match self {
            Self::Idle => "idle (no reflection in progress)",
            Self::AwaitingDecision => "awaiting the user's decision on the reward request",
            Self::ReadyForInput => "ready for input (the reward is decided)",
            Self::AwaitingApproval => "awaiting the user's approval of the submitted reflection",
        }
    }

    /// Returns who must act next.
    pub fn waiting_for(self) -> &'static str {
        match self {
            Self::Idle | Self::ReadyForInput => "agent",
            Self::AwaitingDecision | Self::AwaitingApproval => "user",
        }
    }

    /// Returns the commands allowed now.
    pub fn next(self) -> &'static [&'static str] {
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
    Ok(fsx::read_text_if_exists(&ws.abs(rel))?.unwrap_or_default())
}

/// The reward files, oldest first: `DATE.md`, then `DATE-2.md`, …
fn reward_files(ws: &Workspace) -> Vec<String> {
    let mut files = units::markdown_files(ws.root(), REWARDS_DIR);
    files.sort_by_key(|p| {
        let stem = p.rsplit('/').next().unwrap_or(p).trim_end_matches(".md").to_owned();
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

/// Tells whether an actor is a person: `manual` or `user:NAME`.
pub fn is_user(actor: &Actor) -> bool {
    let a = actor.as_str();
    a == "manual" || a.strip_prefix("user:").is_some_and(|n| !n.is_empty())
}

fn require_user(actor: &Actor, what: &'static str) -> crate::Result<()> {
    if is_user(actor) {
        Ok(())
    } else {
        Err(RuleError::NotUser { actor: actor.to_string(), what }.into())
    }
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
}

/// Reports where the reflection cycle stands. Read-only.
pub fn status(ws: &Workspace) -> crate::Result<StatusReport> {
    let c = cycle(ws)?;
    let d = decay_json(ws)?;
    let count =
        d.get("self_awareness_count_since_consolidation").and_then(Value::as_u64).unwrap_or(0);
    Ok(StatusReport {
        state: c.state,
        description: c.state.describe(),
        waiting_for: c.state.waiting_for(),
        next: c.state.next().to_vec(),
        reflection: c.number,
        rewards_file: c.reward_path.clone(),
        requested: c.reward.as_ref().map(RewardFile::requested),
        granted: c.reward.as_ref().and_then(|r| r.granted),
        last_reflection: d.get("last_reflection").and_then(Value::as_str).map(str::to_owned),
        self_awareness_since_consolidation: count,
        consolidation_due: count >= CONSOLIDATION_DUE,
    })
}

/// decay-scores.json as JSON (upgraded to version 3), or an empty object.
fn decay_json(ws: &Workspace) -> crate::Result<serde_json::Map<String, Value>> {
    Ok(match load_decay(ws)? {
        Some(d) => to_map(&d),
        None => serde_json::Map::new(),
    })
}

fn load_decay(ws: &Workspace) -> crate::Result<Option<DecayFile>> {
    let path = ws.abs(layout::DECAY_SCORES);
    match fsx::read_text_if_exists(&path)? {
        Some(t) => Ok(Some(DecayFile::parse(&t, &path)?)),
        None => Ok(None),
    }
}

fn to_map(d: &DecayFile) -> serde_json::Map<String, Value> {
    match serde_json::from_str(&d.to_text()) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

fn map_text(m: &serde_json::Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(m).expect("a JSON map always serialises");
    s.push('\n');
    s
}

fn baseline(m: &serde_json::Map<String, Value>) -> u64 {
    m.get("token_economy")
        .and_then(|t| t.get("baseline"))
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_BASELINE)
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

fn commit(ws: &Workspace, change: Change, now: Timestamp) -> crate::Result<String> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    Ok(change.apply(ws, &repo, &lock, &FixedClock(now))?.commit)
}

/// Writes a reward request (`memory/meta/rewards/YYYY-MM-DD.md`, "Awaiting your decision.") as
/// one commit. Refused unless idle; an extra or a penalty needs its reason.
pub fn request(
    ws: &Workspace,
    opts: &RequestOptions,
    actor: &Actor,
    clock: &dyn Clock,
) -> crate::Result<StepReport> {
    let c = cycle(ws)?;
    require(&c, &[State::Idle], "cogmem reflect request")?;
    let reason = |n: u64, r: &Option<String>, what: &'static str| match r {
        Some(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_owned())),
        _ if n == 0 => Ok(None),
        _ => Err(InputError::ReflectReason { what }),
    };
    let extra_reason = reason(opts.extra, &opts.extra_reason, "--extra")?;
    let penalty_reason = reason(opts.penalty, &opts.penalty_reason, "--penalty")?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let m = decay_json(ws)?;
    let req = RewardRequest {
        reflection: c.number,
        date: date.clone(),
        baseline: baseline(&m),
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
    let commit = commit(ws, change, now)?;
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

/// Records the user's decision on the open reward request: the outcome in the rewards file, a
/// Result/Reason entry in reward-log.md and the token economy in decay-scores.json, as one
/// commit. Only a person may decide; only an open request can be decided.
pub fn decide(
    ws: &Workspace,
    decision: RewardDecision,
    reason: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<StepReport> {
    require_user(by, "decide a reward")?;
    let c = cycle(ws)?;
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
    let now = clock.now();
    let stamp = utc_seconds(&now);
    let date = now.format("%Y-%m-%d").to_string();
    let text = read(ws, &path)?;
    let new = rf::with_outcome(&text, decision.word(), granted, reason, by.as_str(), &stamp);
    let mut log = read(ws, REWARD_LOG)?;
    if log.is_empty() {
        log.push_str("# Reward Log\n");
    }
    log.push_str(&rf::reward_log_entry(&date, granted, r.baseline, reason));

    let mut m = decay_json(ws)?;
    economy(&mut m, &r, decision, granted, c.number, &date, reason);
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
    change.write(REWARD_LOG, log.into_bytes(), Action::Append, format!("reward #{}", c.number));
    change.write(
        layout::DECAY_SCORES,
        map_text(&m).into_bytes(),
        Action::Edit,
        "token economy updated".to_owned(),
    );
    let commit = commit(ws, change, now)?;
    Ok(StepReport {
        reflection: c.number,
        state: State::ReadyForInput,
        file: path,
        tokens: Some(granted),
        commit,
    })
}

/// Updates `token_economy`: totals, recent outcomes (last 10) and the derived metrics.
fn economy(
    m: &mut serde_json::Map<String, Value>,
    r: &RewardFile,
    decision: RewardDecision,
    granted: u64,
    number: u32,
    date: &str,
    reason: &str,
) {
    let te = m.entry("token_economy").or_insert_with(|| json!({}));
    if !te.is_object() {
        *te = json!({});
    }
    let te = te.as_object_mut().expect("made an object above");
    te.entry("baseline").or_insert(json!(r.baseline));
    let totals = te.entry("totals").or_insert_with(|| json!({}));
    if !totals.is_object() {
        *totals = json!({});
    }
    let totals = totals.as_object_mut().expect("made an object above");
    let mut add = |k: &str, n: u64| {
        let cur = totals.get(k).and_then(Value::as_u64).unwrap_or(0);
        totals.insert(k.to_owned(), json!(cur + n));
    };
    add("extra_requested", r.extra);
    add("extra_granted", r.extra.min(granted.saturating_sub(r.baseline)));
    add("self_penalty", r.penalty);
    match decision {
        RewardDecision::Bonus(n) => add("user_bonus", n),
        RewardDecision::Reduce(n) | RewardDecision::Penalize(n) => add("user_penalty", n),
        RewardDecision::Approve | RewardDecision::Forgive => {}
    }
    let ext_req = totals.get("extra_requested").and_then(Value::as_u64).unwrap_or(0);
    let ext_gr = totals.get("extra_granted").and_then(Value::as_u64).unwrap_or(0);
    let recent = te.entry("recent_outcomes").or_insert_with(|| json!([]));
    if !recent.is_array() {
        *recent = json!([]);
    }
    let list = recent.as_array_mut().expect("made an array above");
    list.push(json!({
        "reflection": number,
        "date": date,
        "requested": r.requested(),
        "granted": granted,
        "decision": decision.word(),
        "self_penalty": r.penalty,
        "reason": reason,
    }));
    if list.len() > 10 {
        let cut = list.len() - 10;
        list.drain(..cut);
    }
    let n = list.len() as f64;
    let agreed = list.iter().filter(|o| o["decision"] == "Approved").count() as f64;
    let penalised =
        list.iter().filter(|o| o["self_penalty"].as_u64().unwrap_or(0) > 0).count() as f64;
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    te.insert(
        "metrics".into(),
        json!({
            "assessment_accuracy": round(agreed / n),
            "extra_grant_rate": if ext_req > 0 { json!(round(ext_gr as f64 / ext_req as f64)) } else { Value::Null },
            "self_penalty_frequency": round(penalised / n),
        }),
    );
}

/// One part of the input bundle.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Its title.
    pub title: String,
    /// Files it comes from.
    pub files: Vec<String>,
    /// Tokens it takes.
    pub tokens: usize,
    /// Its budget.
    pub budget: usize,
}

/// Something left out of the bundle, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Cut {
    /// What was left out.
    pub what: String,
    /// Why.
    pub why: String,
}

/// The reflection bundle `reflect input` prints.
#[derive(Debug, Clone, Serialize)]
pub struct InputBundle {
    /// The reflection.
    pub reflection: u32,
    /// Tokens granted for the output.
    pub granted: u64,
    /// The input budget.
    pub budget_tokens: usize,
    /// Tokens the memory part takes (cl100k_base).
    pub used_tokens: usize,
    /// The parts included.
    pub sections: Vec<Section>,
    /// What was left out to fit, and why.
    pub cut: Vec<Cut>,
    /// Episodes read from this day on.
    pub episodes_since: String,
    /// The elements drawn for this reflection.
    pub elements: Vec<String>,
    /// The whole text for the agent: memory, then instructions.
    pub text: String,
}

/// The menu of elements a reflection may include (5–8 are drawn each time).
pub const ELEMENTS: [&str; 14] = [
    "a surprise: something in the memories you did not expect",
    "a pattern that repeats across several days",
    "a question you would like to ask the user",
    "an assumption you held that the memories now contradict",
    "an honest admission of what you do not know",
    "a thread continued from an earlier reflection",
    "something you would do differently next time",
    "something that went well and why",
    "a tension between two memories",
    "a memory that has served its purpose and could fade",
    "a connection between two people, projects or ideas",
    "what the user seems to care about most right now",
    "a limit you noticed in yourself",
    "a hope or intention for the next sessions",
];

/// Draws 5–8 elements with a generator seeded from the date and the reflection number, so the
/// same reflection always gets the same menu.
pub fn draw_elements(date: &str, number: u32) -> Vec<String> {
    let mut seed = 0xcbf2_9ce4_8422_2325_u64; // FNV-1a
    for b in format!("{date}#{number}").bytes() {
        seed ^= u64::from(b);
        seed = seed.wrapping_mul(0x0100_0000_01b3);
    }
    let mut next = move || {
        // SplitMix64.
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let k = 5 + (next() % 4) as usize;
    let mut idx: Vec<usize> = (0..ELEMENTS.len()).collect();
    for i in (1..idx.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        idx.swap(i, j);
    }
    let mut chosen: Vec<usize> = idx.into_iter().take(k).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| ELEMENTS[i].to_owned()).collect()
}

struct Builder<'a> {
    counter: &'a Tiktoken,
    text: String,
    sections: Vec<Section>,
    cut: Vec<Cut>,
    used: usize,
}

impl Builder<'_> {
    /// Adds whole pieces in order while they fit the section's budget; the rest are cut.
    fn section(&mut self, title: &str, budget: usize, pieces: Vec<(String, String)>) {
        let mut body = String::new();
        let mut files = Vec::new();
        let mut tokens = 0;
        for (file, text) in pieces {
            let t = self.counter.count(&text);
            if tokens + t > budget {
                self.cut.push(Cut {
                    what: format!("{file} ({t} tokens)"),
                    why: format!("over the {} budget of {budget} tokens", title.to_lowercase()),
                });
                continue;
            }
            tokens += t;
            body.push_str(text.trim_end());
            body.push_str("\n\n");
            files.push(file);
        }
        self.text.push_str(&format!("## {title}\n\n"));
        if body.is_empty() {
            self.text.push_str("(nothing)\n\n");
        } else {
            self.text.push_str(&body);
        }
        self.used += tokens;
        self.sections.push(Section { title: title.to_owned(), files, tokens, budget });
    }
}

/// Builds the reflection bundle: the memory the skill reads (MEMORY.md, evolution.md, the last
/// 10 reflection-log entries, graph/index.md, entities and procedures scoring over 0.3,
/// episodes since the last reflection) within ~30K tokens counted with `cl100k_base`, then the
/// instructions. Never reads SOUL.md, IDENTITY.md, settings or anything outside `memory/` but
/// MEMORY.md. Read-only; refused unless the reward is decided.
pub fn input(ws: &Workspace, clock: &dyn Clock) -> crate::Result<InputBundle> {
    let c = cycle(ws)?;
    require(&c, &[State::ReadyForInput], "cogmem reflect input")?;
    let granted = c.reward.as_ref().and_then(|r| r.granted).unwrap_or(DEFAULT_BASELINE);
    let now = clock.now();
    let today = now.format("%Y-%m-%d").to_string();
    let decay_file = load_decay(ws)?;
    let m = decay_file.as_ref().map(to_map).unwrap_or_default();
    let since = match m
        .get("last_reflection")
        .and_then(Value::as_str)
        .and_then(crate::store::decay_file::parse_time)
    {
        Some(t) => t.with_timezone(now.offset()).format("%Y-%m-%d").to_string(),
        None => (now - chrono::Duration::days(6)).format("%Y-%m-%d").to_string(),
    };
    let counter = Tiktoken::new(Encoding::Cl100k);
    let mut b = Builder {
        counter: &counter,
        text: String::new(),
        sections: Vec::new(),
        cut: Vec::new(),
        used: 0,
    };
    b.text.push_str(&format!("# Reflection #{} — input ({today})\n\n", c.number));

    let one = |rel: &str| -> crate::Result<Vec<(String, String)>> {
        let t = read(ws, rel)?;
        Ok(if t.trim().is_empty() { Vec::new() } else { vec![(rel.to_owned(), t)] })
    };
    b.section("Core memory (MEMORY.md)", 3_000, one(layout::MEMORY_MD)?);
    b.section("Evolution", 2_000, one(EVOLUTION)?);
    let state: serde_json::Map<String, Value> = m
        .iter()
        .filter(|(k, _)| k.as_str() != "entries")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    b.section(
        "Reflection state",
        500,
        vec![(
            layout::DECAY_SCORES.to_owned(),
            format!("```json\n{}\n```", map_text(&state).trim_end()),
        )],
    );
    let (_, entries) = rf::split_entries(&read(ws, REFLECTION_LOG)?);
    let mut recent: Vec<(String, String)> = entries
        .iter()
        .rev()
        .take(10)
        .map(|e| (format!("{REFLECTION_LOG} ({})", first_line(e)), e.clone()))
        .collect();
    recent.reverse();
    for e in entries.iter().rev().skip(10) {
        b.cut.push(Cut {
            what: format!("{REFLECTION_LOG} ({})", first_line(e)),
            why: "only the last 10 reflections are read".into(),
        });
    }
    b.section("Recent reflections", 4_000, recent);
    b.section("Graph index", 1_500, one(layout::GRAPH_INDEX)?);

    let all = units::list(ws.root());
    let scored = |store: Store| -> Vec<(f64, String)> {
        let mut v: Vec<(f64, String)> = all
            .units
            .iter()
            .filter(|u| u.store == store)
            .map(|u| (score(decay_file.as_ref(), &u.id, now, ws), u.path.clone()))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        v
    };
    let pick = |b: &mut Builder<'_>, store: Store| -> crate::Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for (s, path) in scored(store) {
            if s > 0.3 {
                out.push((path.clone(), read(ws, &path)?));
            } else {
                b.cut.push(Cut { what: path, why: format!("decay score {s:.2} is not above 0.3") });
            }
        }
        Ok(out)
    };
    let ents = pick(&mut b, Store::Semantic)?;
    b.section("Entities", 5_000, ents);
    let procs = pick(&mut b, Store::Procedural)?;
    b.section("Procedures", 3_000, procs);
    let mut days: Vec<(String, String)> = Vec::new();
    for rel in units::markdown_files(ws.root(), layout::EPISODES_DIR).into_iter().rev() {
        let day = rel.rsplit('/').next().unwrap_or("").trim_end_matches(".md").to_owned();
        if day.as_str() >= since.as_str() && day.as_str() <= today.as_str() {
            days.push((rel.clone(), read(ws, &rel)?));
        }
    }
    // Newest first, so the oldest days are the ones cut.
    b.section(&format!("Episodes since {since}"), 10_000, days);

    let elements = draw_elements(&today, c.number);
    let used = b.used;
    let mut text = b.text;
    if !b.cut.is_empty() {
        text.push_str("## Left out to fit\n\n");
        for cut in &b.cut {
            text.push_str(&format!("- {}: {}\n", cut.what, cut.why));
        }
        text.push('\n');
    }
    text.push_str(&instructions(c.number, granted, &elements));
    Ok(InputBundle {
        reflection: c.number,
        granted,
        budget_tokens: INPUT_BUDGET,
        used_tokens: used,
        sections: b.sections,
        cut: b.cut,
        episodes_since: since,
        elements,
        text,
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim_start_matches('#').trim().to_owned()
}

fn score(d: Option<&DecayFile>, id: &str, now: Timestamp, ws: &Workspace) -> f64 {
    let Some(d) = d else { return 1.0 };
    match d.inputs(id, now) {
        Some(inputs) => decay::relevance(&inputs, &d.now(now), &ws.settings().decay),
        None => 1.0, // not scored yet: new, so fully relevant
    }
}

fn instructions(number: u32, granted: u64, elements: &[String]) -> String {
    let mut s = format!(
        "## Instructions\n\n\
You are writing reflection #{number}. Your output budget is {} tokens.\n\n\
Write an internal monologue: think to yourself, in the first person. Refer to the user in the \
third person. No greeting, no sign-off, no headings for the user.\n\n\
Weave in these elements (drawn for this reflection):\n",
        rf::thousands(granted)
    );
    for e in elements {
        s.push_str(&format!("- {e}\n"));
    }
    s.push_str(
        "\nWhen you notice something about yourself, put it on its own line starting with \
`[Self-Awareness]`; approved insights go to IDENTITY.md's Self-Awareness log.\n\n\
Honesty rule: say only what the memories above support. Never invent hardware, timestamps, \
places or an environment you cannot see; when unsure, say so.\n\n\
After the monologue, propose changes as OPERATION blocks, one per change, each ended by a \
line `---`. Nothing is applied until the user approves.\n\n\
```\n\
OPERATION: EXTRACT | CONNECT | FLAG | ARCHIVE | PATTERN | EVOLVE\n\
TARGET: <a memory id (entity:person--alice, episode:2026-02-02:14:30) or a path under memory/>\n\
CONTENT: <the fact, link, pattern or change>\n\
REASON: <why, citing the memories>\n\
EVOLUTION_CONTEXT: <optional: how this changes your understanding>\n\
---\n\
```\n\n\
- EXTRACT: a new fact learned from the episodes (written to today's episode log).\n\
- CONNECT: a link between two memories or entities.\n\
- FLAG: something contradictory or doubtful, for the user to look at.\n\
- ARCHIVE: a memory that has faded and may be forgotten (TARGET is its id; pinned memories \
cannot be archived).\n\
- PATTERN: a recurring pattern (recorded in evolution.md).\n\
- EVOLVE: a change in your understanding (recorded in evolution.md).\n\n\
TARGET must stay inside memory/ (or be MEMORY.md); SOUL.md and IDENTITY.md are never targets.\n\
Submit the whole text with `cogmem reflect submit -`.\n",
    );
    s
}

/// What `reflect submit` did.
#[derive(Debug, Clone, Serialize)]
pub struct SubmitReport {
    /// The reflection.
    pub reflection: u32,
    /// The operations found, all valid.
    pub operations: Vec<Operation>,
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
}

fn check_ops(ws: &Workspace, text: &str) -> crate::Result<Vec<Checked>> {
    let all = units::list(ws.root());
    let decay_file = load_decay(ws)?;
    let mut out = Vec::new();
    for op in rf::operations(text) {
        let bad = |why: String| InputError::ReflectBlock { block: op.number, why };
        let kind = OpKind::parse(&op.op).ok_or_else(|| {
            bad(format!(
                "unknown operation {:?}; expected one of: EXTRACT, CONNECT, FLAG, ARCHIVE, PATTERN, EVOLVE",
                op.op
            ))
        })?;
        let target = op.target.trim();
        if target.is_empty() {
            return Err(bad("TARGET is missing".into()).into());
        }
        if op.reason.trim().is_empty() {
            return Err(bad("REASON is missing".into()).into());
        }
        if kind != OpKind::Archive && kind != OpKind::Flag && op.content.trim().is_empty() {
            return Err(bad(format!("{} needs CONTENT", kind.as_str())).into());
        }
        let id = target_id(target).map_err(bad)?;
        if kind == OpKind::Archive {
            let Some(id) = &id else {
                return Err(bad(format!(
                    "ARCHIVE needs a memory id such as `episode:2026-02-02:14:30` or a store file, not {target:?}"
                ))
                .into());
            };
            let unit = all.get(id).ok_or_else(|| bad(format!("no memory has the id {id:?}")))?;
            if unit.store == Store::Vault || decay_file.as_ref().is_some_and(|d| d.is_pinned(id)) {
                return Err(RuleError::ReflectPinned { block: op.number, id: id.clone() }.into());
            }
        }
        out.push(Checked { op, kind, id });
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
    let outside = target.starts_with(['/', '\\', '~'])
        || target.contains('\\')
        || target.chars().any(char::is_control)
        || target.split('/').any(|c| c == ".." || c == ".")
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
    clock: &dyn Clock,
) -> crate::Result<SubmitReport> {
    let c = cycle(ws)?;
    require(&c, &[State::ReadyForInput], "cogmem reflect submit")?;
    let text = crate::ops::remember::check_text(text)?;
    let checked = check_ops(ws, &text)?;
    let now = clock.now();
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
    let commit = commit(ws, change, now)?;
    Ok(SubmitReport {
        reflection: c.number,
        operations: checked.into_iter().map(|c| c.op).collect(),
        self_awareness: rf::self_awareness(&text),
        commit,
    })
}

/// One operation's fate on approval.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// Block number.
    pub block: usize,
    /// The operation.
    pub op: OpKind,
    /// The target.
    pub target: String,
    /// `applied`, `recorded`, `not approved` or `already remembered`.
    pub outcome: String,
    /// The memory written or archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// What `reflect approve` did.
#[derive(Debug, Clone, Serialize)]
pub struct ApproveReport {
    /// The reflection.
    pub reflection: u32,
    /// Its full text's file.
    pub file: String,
    /// What happened to each operation.
    pub operations: Vec<Applied>,
    /// Insights added to IDENTITY.md.
    pub self_awareness: Vec<String>,
    /// The commit.
    pub commit: String,
}

/// Approves the pending reflection (all operations, or only the blocks in `only`) in ONE commit
/// as `reflection:r-NNN`, approval `approved`: the text to `reflections/`, an entry in the
/// reflection log (archived past 50), `[Self-Awareness]` lines to IDENTITY.md, EXTRACT as
/// episode entries, ARCHIVE as soft archives, PATTERN/EVOLVE in evolution.md (kept under its
/// cap), the reflection state in decay-scores.json, and pending-reflection.md reset. Only a
/// person may approve.
pub fn approve(
    ws: &Workspace,
    only: Option<&[usize]>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<ApproveReport> {
    require_user(by, "approve a reflection")?;
    let c = cycle(ws)?;
    require(&c, &[State::AwaitingApproval], "cogmem reflect approve")?;
    let pending = read(ws, PENDING_REFLECTION)?;
    let text = rf::submission_text(&pending).unwrap_or_default();
    let checked = check_ops(ws, &text)?;
    if let Some(only) = only
        && let Some(n) = only.iter().find(|n| **n == 0 || **n > checked.len())
    {
        return Err(InputError::ReflectBlock {
            block: *n,
            why: format!("there is no such block; the reflection has {}", checked.len()),
        }
        .into());
    }
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let time = now.format("%H:%M").to_string();
    let n = c.number;
    let actor = Actor::parse(&format!("reflection:r-{n:03}"))?;
    let mut change = Change::new(actor.clone(), format!("cogmem reflect approve (by {by})"))
        .with_approval(Approval::Approved);
    let settings = &ws.settings().decay;
    let mut decay =
        load_decay(ws)?.unwrap_or(DecayFile::parse("{}", &ws.abs(layout::DECAY_SCORES))?);
    let mut applied = Vec::new();
    let mut episode_text: Option<String> = None;
    let ep_rel = layout::episode_file(&date);
    let mut patterns = Vec::new();
    let mut archived: Vec<String> = Vec::new();
    let all = units::list(ws.root());
    let stamp = utc_seconds(&now);
    for ch in &checked {
        let approved = only.is_none_or(|o| o.contains(&ch.op.number));
        let mut a = Applied {
            block: ch.op.number,
            op: ch.kind,
            target: ch.op.target.clone(),
            outcome: "recorded".into(),
            id: ch.id.clone(),
        };
        if !approved {
            a.outcome = "not approved".into();
            applied.push(a);
            continue;
        }
        match ch.kind {
            OpKind::Extract => {
                let current = match &episode_text {
                    Some(t) => Some(t.clone()),
                    None => fsx::read_text_if_exists(&ws.abs(&ep_rel))?,
                };
                let tags = vec!["reflection".to_owned()];
                let body = crate::store::markdown::one_line(&ch.op.content);
                let entry = NewEntry {
                    date: &date,
                    time: &time,
                    kind: EntryType::Fact,
                    confidence: Confidence::Medium,
                    tags: &tags,
                    text: &body,
                };
                match episode::append(current.as_deref(), &entry)? {
                    episode::Appended::Written { content, id, .. } => {
                        let unit = NewUnit {
                            store: Store::Episodic,
                            base: settings.base_inferred,
                            created: now.with_timezone(&chrono::Utc),
                            pinned: false,
                        };
                        decay.insert_new(&id, unit, settings);
                        let action =
                            if current.is_some() { Action::Append } else { Action::Create };
                        change.write(
                            &ep_rel,
                            content.clone().into_bytes(),
                            action,
                            format!("reflection #{n} extracts"),
                        );
                        episode_text = Some(content);
                        a.outcome = "applied".into();
                        a.id = Some(id);
                    }
                    episode::Appended::Duplicate { id, .. } => {
                        a.outcome = "already remembered".into();
                        a.id = Some(id);
                    }
                }
            }
            OpKind::Archive => {
                let id = ch.id.clone().expect("checked: ARCHIVE names a memory");
                if !decay.is_forgotten(&id) {
                    let unit = all.get(&id).cloned().expect("checked: the memory exists");
                    let removed = take_out(ws, &mut change, &unit, n)?;
                    let created = !decay.has(&id);
                    if created {
                        let new = NewUnit {
                            store: unit.store,
                            base: settings.base_explicit,
                            created: now.with_timezone(&chrono::Utc),
                            pinned: false,
                        };
                        decay.insert_new(&id, new, settings);
                    }
                    let entry = decay.entry_mut(&id).expect("the entry exists now");
                    let record = json!({
                        "at": stamp,
                        "by": actor.as_str(),
                        "previous_status": entry.get("status").cloned().unwrap_or(Value::Null),
                        "previous_score": entry.get("current_score").cloned().unwrap_or(Value::Null),
                        "created": created,
                        "removed": removed,
                    });
                    entry.insert("status".into(), json!("archived"));
                    entry.insert("current_score".into(), json!(0.0));
                    entry.insert("archive".into(), record);
                    archived.push(id.clone());
                }
                a.outcome = "applied".into();
            }
            OpKind::Pattern | OpKind::Evolve => {
                patterns.push(format!(
                    "- {}: {}",
                    ch.kind.as_str().to_lowercase(),
                    crate::store::markdown::one_line(&ch.op.content)
                ));
            }
            OpKind::Connect | OpKind::Flag => {}
        }
        applied.push(a);
    }
    let insights = rf::self_awareness(&text);
    let outcome = if only.is_some() && applied.iter().any(|a| a.outcome == "not approved") {
        "partial"
    } else {
        "approved"
    };

    // The full text.
    let mut file = format!("{REFLECTIONS_DIR}/{date}.md");
    let mut k = 2;
    while ws.abs(&file).exists() {
        file = format!("{REFLECTIONS_DIR}/{date}-{k}.md");
        k += 1;
    }
    let mut full =
        format!("# Reflection #{n} — {date}\n\n{}\n\n## Operations\n\n", text.trim_end());
    for a in &applied {
        full.push_str(&format!("- #{} {} {} — {}\n", a.block, a.op.as_str(), a.target, a.outcome));
    }
    if applied.is_empty() {
        full.push_str("(none)\n");
    }
    full.push_str(&format!("\nApproved by {by} at {stamp}.\n"));
    change.write(&file, full.into_bytes(), Action::Create, format!("reflection #{n}"));

    // The log entry.
    let granted = c.reward.as_ref().and_then(|r| r.granted).unwrap_or(DEFAULT_BASELINE);
    let key = insights.first().cloned().unwrap_or_else(|| first_sentence(&text));
    let count = |k: OpKind| applied.iter().filter(|a| a.op == k && a.outcome == "applied").count();
    let mut entry = format!(
        "\n## Reflection #{n} — {date}\n### Status\n- Outcome: {outcome}\n- Tokens granted: {}\n- Operations: {} proposed, {} applied\n### Key Insight\n{key}\n",
        rf::thousands(granted),
        applied.len(),
        applied.iter().filter(|a| a.outcome == "applied").count(),
    );
    if !insights.is_empty() {
        entry.push_str("### Self-Awareness\n");
        for i in &insights {
            entry.push_str(&format!("- {i}\n"));
        }
    }
    entry.push_str(&format!(
        "### Operational\n- {} extracted, {} archived\n- Full text: {file}\n",
        count(OpKind::Extract),
        count(OpKind::Archive)
    ));
    let mut log = read(ws, REFLECTION_LOG)?;
    if log.is_empty() {
        log.push_str("# Reflection Log\n");
    }
    log.push_str(&entry);
    let (log, moved) = rf::archive_log(&log, 50, 20);
    change.write(REFLECTION_LOG, log.into_bytes(), Action::Append, format!("reflection #{n}"));
    if !moved.is_empty() {
        let mut arch = read(ws, REFLECTION_ARCHIVE)?;
        if arch.is_empty() {
            arch.push_str("# Reflection Archive\n\n");
        }
        arch.push_str(&moved);
        change.write(
            REFLECTION_ARCHIVE,
            arch.into_bytes(),
            Action::Append,
            "older reflections archived".to_owned(),
        );
    }

    // IDENTITY.md.
    if !insights.is_empty() {
        let identity = read(ws, layout::IDENTITY_MD)?;
        let new = rf::identity_with_insights(&identity, &date, &insights);
        change.write(
            layout::IDENTITY_MD,
            new.into_bytes(),
            Action::Edit,
            format!("{} self-awareness entries from reflection #{n}", insights.len()),
        );
    }

    // evolution.md.
    evolution(ws, &mut change, n, &date, &key, &patterns)?;

    // The reward file closes the cycle.
    if let Some(p) = &c.reward_path {
        let t = read(ws, p)?;
        change.write(
            p,
            rf::with_closing(&t, &format!("{outcome} as #{n} ({file})")).into_bytes(),
            Action::Edit,
            format!("reflection #{n} {outcome}"),
        );
    }

    // decay-scores.json.
    let mut m = to_map(&decay);
    m.insert("last_reflection".into(), json!(stamp));
    let last_ep = units::markdown_files(ws.root(), layout::EPISODES_DIR)
        .iter()
        .filter_map(|p| p.rsplit('/').next().map(|s| s.trim_end_matches(".md").to_owned()))
        .chain(episode_text.is_some().then(|| date.clone()))
        .filter(|d| d.as_str() <= date.as_str())
        .max();
    m.insert("last_reflection_episode".into(), json!(last_ep));
    let sa = m.get("self_awareness_count_since_consolidation").and_then(Value::as_u64).unwrap_or(0);
    m.insert("self_awareness_count_since_consolidation".into(), json!(sa + insights.len() as u64));
    let total = m.get("reflection_count").and_then(Value::as_u64).unwrap_or(0);
    m.insert("reflection_count".into(), json!(total + 1));
    change.write(
        layout::DECAY_SCORES,
        map_text(&m).into_bytes(),
        Action::Edit,
        if archived.is_empty() {
            format!("reflection #{n} state")
        } else {
            format!("reflection #{n} state; archived {}", archived.join(", "))
        },
    );

    // Reset the pending file.
    change.write(
        PENDING_REFLECTION,
        rf::without_submission(&pending).into_bytes(),
        Action::Edit,
        format!("reflection #{n} {outcome}; pending reset"),
    );
    let change = change.with_subject(Action::Create, format!("reflection #{n} {outcome}"));
    let commit = commit(ws, change, now)?;
    crate::index::update_after_change(ws);
    Ok(ApproveReport { reflection: n, file, operations: applied, self_awareness: insights, commit })
}

type LinePredicate = Box<dyn Fn(&str) -> bool>;

/// Takes an archived memory out of MEMORY.md (its bullet) or the graph index (its rows), as
/// `cogmem forget` does, and returns what was removed in the record `cogmem restore` reads.
fn take_out(
    ws: &Workspace,
    change: &mut Change,
    unit: &units::MemoryUnit,
    n: u32,
) -> crate::Result<Vec<Value>> {
    let (rel, pred): (&str, LinePredicate) = match unit.store {
        Store::Core => {
            let bullet = unit.text.clone();
            (
                layout::MEMORY_MD,
                Box::new(move |l: &str| {
                    l.trim_start().starts_with('-') && l.contains(bullet.as_str())
                }),
            )
        }
        Store::Semantic => {
            let entity = unit.id.trim_start_matches("entity:").to_owned();
            (layout::GRAPH_INDEX, Box::new(move |l: &str| index_row_names(l, &entity)))
        }
        _ => return Ok(Vec::new()),
    };
    let current = match change.pending(rel) {
        Some(b) => String::from_utf8_lossy(b).into_owned(),
        None => read(ws, rel)?,
    };
    let mut out = String::with_capacity(current.len());
    let mut removed = Vec::new();
    let mut previous = "";
    for (i, line) in current.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        // A core bullet is one line; an entity may have several rows.
        if pred(bare) && (unit.store == Store::Semantic || removed.is_empty()) {
            removed.push(json!({"file": rel, "line": i + 1, "text": bare, "after": previous}));
        } else {
            out.push_str(line);
        }
        previous = bare;
    }
    if !removed.is_empty() {
        change.write(
            rel,
            out.into_bytes(),
            Action::Archive,
            format!("reflection #{n} archives {}", unit.id),
        );
    }
    Ok(removed)
}

/// Tells whether a graph-index table row names an entity (registry id, edge source or target).
fn index_row_names(line: &str, entity: &str) -> bool {
    let t = line.trim();
    if !t.starts_with('|') {
        return false;
    }
    let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
    cells.first() == Some(&entity) || cells.get(2) == Some(&entity) && cells.len() >= 6
}

fn first_sentence(text: &str) -> String {
    let line =
        text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    let s = line.split_inclusive(['.', '!', '?']).next().unwrap_or(line);
    crate::store::markdown::one_line(s)
}

/// Adds the reflection's entry to evolution.md, updates its overview, and moves the oldest
/// entries to evolution-archive.md while the file is over its cap.
fn evolution(
    ws: &Workspace,
    change: &mut Change,
    n: u32,
    date: &str,
    key: &str,
    patterns: &[String],
) -> crate::Result<()> {
    let mut text = read(ws, EVOLUTION)?;
    if text.is_empty() {
        text.push_str("# Philosophical Evolution\n\n## Overview\n");
    }
    if rf::overview(&text, "First reflection").is_none_or(|v| v.starts_with("none")) {
        text = rf::set_overview(&text, "First reflection", &format!("#{n} ({date})"));
    }
    text = rf::set_overview(&text, "Total reflections", &n.to_string());
    let mut entry = format!("\n## Reflection #{n} — {date}\n- Key insight: {key}\n");
    for p in patterns {
        entry.push_str(p);
        entry.push('\n');
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&entry);
    let counter = Tiktoken::new(Encoding::Cl100k);
    let mut moved = String::new();
    loop {
        if counter.count(&text) <= EVOLUTION_CAP {
            break;
        }
        let (pre, entries) = rf::split_entries(&text);
        if entries.len() <= 1 {
            break;
        }
        moved.push_str(&entries[0]);
        text = pre + &entries[1..].concat();
    }
    change.write(EVOLUTION, text.into_bytes(), Action::Edit, format!("reflection #{n}"));
    if !moved.is_empty() {
        let mut arch = read(ws, EVOLUTION_ARCHIVE)?;
        if arch.is_empty() {
            arch.push_str("# Philosophical Evolution — Archive\n\n");
        }
        arch.push_str(&moved);
        change.write(
            EVOLUTION_ARCHIVE,
            arch.into_bytes(),
            Action::Append,
            "older entries archived".to_owned(),
        );
    }
    Ok(())
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
/// and resets pending-reflection.md; nothing else changes. Only a person may reject.
pub fn reject(
    ws: &Workspace,
    reason: Option<&str>,
    by: &Actor,
    clock: &dyn Clock,
) -> crate::Result<RejectReport> {
    require_user(by, "reject a reflection")?;
    let c = cycle(ws)?;
    require(&c, &[State::AwaitingApproval], "cogmem reflect reject")?;
    let reason =
        reason.map(str::trim).filter(|r| !r.is_empty()).unwrap_or("no reason given").to_owned();
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
    let change = change.with_subject(Action::Reject, summary);
    let commit = commit(ws, change, now)?;
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
            ("memory/../SOUL.md", Err("outside the workspace")),
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

    #[test]
    fn only_people_are_users() {
        for (a, want) in [
            ("manual", true),
            ("user:alice", true),
            ("user:", false),
            ("bot:main", false),
            ("subagent:x", false),
            ("reflection:r-001", false),
            ("agent:claude", false),
            ("test-agent", false),
        ] {
            assert_eq!(is_user(&Actor::parse(a).unwrap()), want, "actor: {a}");
        }
    }
}
