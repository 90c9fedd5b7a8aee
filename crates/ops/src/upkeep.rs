//! `cogmem upkeep` (issue 19, item 7): the routine work a timer or a host hook runs, in one
//! go: decay (what `decay` does), audit retention (what `audit compact` does, 90 days by
//! default), the consolidation and reflection notices, and a refresh of the search index.
//!
//! What it changes lands in ONE commit by `system:upkeep`, or none when nothing changed; the
//! decay and the compaction are planned by their own modules ([`crate::decay::plan`],
//! [`crate::audit::plan_compact`]) and staged into this one change. It never starts a
//! reflection or a consolidation: those need a person, so it only says they are due. A file
//! it cannot read (a malformed decay shard, an entity file, an audit line) is reported with its
//! line and left out, and the rest goes on.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::audit::CompactReport;
use crate::decay::DecayReport;
use crate::reflect::{self, CONSOLIDATION_DUE, State};
use cogmem_index::index::{self, IndexState, RefreshReport};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::units::{self, Unreadable};
use cogmem_store::store::{StoreError, episode};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock, Timestamp, utc_seconds};
use cogmem_text::date::parse_stored;

/// The actor of the upkeep commit.
pub const ACTOR: &str = "system:upkeep";

/// How long after the last reflection the next one is due (the skill reflects once a day).
const REFLECTION_EVERY_HOURS: i64 = 24;

/// What `upkeep` is asked to do.
#[derive(Debug, Clone)]
pub struct UpkeepOptions {
    /// Audit lines older than this move into the monthly digests.
    pub audit_cutoff: DateTime<Utc>,
    /// Report what would be done; write nothing (the search index included).
    pub dry_run: bool,
}

/// What the consolidation notice says.
#[derive(Debug, Clone, Serialize)]
pub struct ConsolidationNotice {
    /// `[Self-Awareness]` entries since the last self-image consolidation.
    pub entries_since: u64,
    /// The count that makes a consolidation due.
    pub threshold: u64,
    /// Whether a consolidation is due (and none waits for approval).
    pub due: bool,
    /// Whether a consolidation waits for the user's approval.
    pub pending: bool,
}

/// Where the reflection cycle stands, and whether a reflection is due.
#[derive(Debug, Clone, Serialize)]
pub struct ReflectionNotice {
    /// The cycle's state.
    pub state: State,
    /// The reflection in progress (or the next one).
    pub reflection: u32,
    /// When the last reflection was approved.
    pub last_reflection: Option<String>,
    /// Episode entries dated on or after the last reflection's day (every one before the
    /// first reflection).
    pub new_episode_entries: usize,
    /// Whether a reflection is due: the cycle is idle, there are new episode entries, and the
    /// last reflection is a day old or there was none. Only the user starts one.
    pub due: bool,
}

/// What the search-index step did.
#[derive(Debug, Clone, Serialize)]
pub struct IndexStep {
    /// The index's state before the step.
    pub before: IndexState,
    /// The refresh, `None` on a dry run or when it failed.
    pub refresh: Option<RefreshReport>,
    /// Why the refresh failed (the index is derived: the next search retries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What `upkeep` did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct UpkeepReport {
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// The clock's now.
    pub now: String,
    /// The one commit, `None` on a dry run or when nothing changed.
    pub commit: Option<String>,
    /// The decay, `None` when the decay state cannot be read (see `skipped`).
    pub decay: Option<DecayReport>,
    /// The audit retention.
    pub audit: CompactReport,
    /// The self-image consolidation notice, `None` when the reflection state cannot be read.
    pub consolidation: Option<ConsolidationNotice>,
    /// The reflection notice, `None` when the reflection state cannot be read.
    pub reflection: Option<ReflectionNotice>,
    /// The search index.
    pub index: IndexStep,
    /// What needs someone, one sentence each, naming the command to run.
    pub notices: Vec<String>,
    /// Files (and lines) that could not be read and were left out, each error naming the file.
    pub skipped: Vec<Unreadable>,
}

/// Runs the upkeep at the clock's now, holding the workspace lock: plans the decay and the
/// audit compaction, commits them together as `system:upkeep` (nothing when neither changes
/// anything), works out the notices, then refreshes the search index. With `dry_run` nothing is
/// written and the report is the same but for the commit and the refresh.
pub fn run(ws: &Workspace, opts: &UpkeepOptions, clock: &dyn Clock) -> crate::Result<UpkeepReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    let mut skipped: Vec<Unreadable> = Vec::new();
    let mut change =
        Change::new(Actor::system(ACTOR), "cogmem upkeep").with_approval(Approval::Auto);

    let decay = match crate::decay::plan(ws, opts.dry_run, now) {
        Ok(plan) => {
            for u in plan.skipped() {
                add(&mut skipped, u.clone());
            }
            Some(if opts.dry_run { plan.report } else { plan.stage(ws, &mut change)? })
        }
        Err(e) => {
            add(&mut skipped, unreadable(ws, e)?);
            // Folding the recorded uses would read the same decay state: they wait.
            change = change.without_use_fold();
            None
        }
    };
    let compact = crate::audit::plan_compact(ws, opts.audit_cutoff, opts.dry_run)?;
    for s in &compact.skipped {
        add(&mut skipped, Unreadable { path: s.path.clone(), error: s.error.clone() });
    }
    let audit = if opts.dry_run { compact.report } else { compact.stage(ws, &mut change)? };

    let mut commit = None;
    if !opts.dry_run && !change.is_empty() {
        let mut parts = Vec::new();
        if let Some(d) = &decay {
            parts.push(format!("{} band changes", d.transitions.len()));
        }
        if audit.moved > 0 {
            parts.push(format!("{} audit lines moved into digests", audit.moved));
        }
        let change = change.with_subject(Action::Edit, format!("upkeep: {}", parts.join(", ")));
        commit = Some(change.apply(ws, &repo, &lock, &FixedClock(now))?.commit);
    }

    let (consolidation, reflection) = match notices(ws, now) {
        Ok((c, r)) => (Some(c), Some(r)),
        Err(e) => {
            add(&mut skipped, unreadable(ws, e)?);
            (None, None)
        }
    };

    // The index is derived: refreshed under the workspace lock, so the next reader finds it
    // up to date; a failure is reported, not fatal (the next search retries).
    let before = index::state(ws);
    let index = if opts.dry_run {
        IndexStep { before, refresh: None, error: None }
    } else {
        match crate::search::reindex(ws, false) {
            Ok(r) => {
                for s in &r.skipped {
                    add(&mut skipped, s.clone());
                }
                IndexStep { before, refresh: Some(r), error: None }
            }
            Err(e) => IndexStep { before, refresh: None, error: Some(e.to_string()) },
        }
    };
    drop(lock);

    let mut report = UpkeepReport {
        dry_run: opts.dry_run,
        now: utc_seconds(&now),
        commit,
        decay,
        audit,
        consolidation,
        reflection,
        index,
        notices: Vec::new(),
        skipped,
    };
    report.notices = notice_lines(&report);
    Ok(report)
}

/// Adds a file left out to the list, once: the decay, the notices and the index may each find
/// the same file unreadable.
fn add(skipped: &mut Vec<Unreadable>, u: Unreadable) {
    if !skipped.iter().any(|k| k.path == u.path) {
        skipped.push(u);
    }
}

/// Turns an error reading a file into the file it names, left out; any other error is the
/// command's.
fn unreadable(ws: &Workspace, e: crate::Error) -> crate::Result<Unreadable> {
    let path = match &e {
        crate::Error::Store(cogmem_store::Error::Store(
            StoreError::Malformed { path, .. } | StoreError::NotUtf8 { path, .. },
        )) => path.clone(),
        _ => return Err(e),
    };
    let rel = path.strip_prefix(ws.root()).unwrap_or(&path).to_string_lossy().into_owned();
    Ok(Unreadable { path: rel, error: e.to_string() })
}

/// Works out the consolidation and reflection notices. Read-only.
fn notices(
    ws: &Workspace,
    now: Timestamp,
) -> crate::Result<(ConsolidationNotice, ReflectionNotice)> {
    let s = reflect::status(ws)?;
    let consolidation = ConsolidationNotice {
        entries_since: s.self_awareness_since_consolidation,
        threshold: CONSOLIDATION_DUE,
        due: s.consolidation_due && !s.consolidation_pending,
        pending: s.consolidation_pending,
    };
    let last = s.last_reflection.as_deref().and_then(parse_stored);
    let since_day = last.map(|t| t.with_timezone(now.offset()).format("%Y-%m-%d").to_string());
    let new_entries = episode_entries_since(ws, since_day.as_deref());
    let old_enough = last.is_none_or(|t| now - t >= Duration::hours(REFLECTION_EVERY_HOURS));
    let reflection = ReflectionNotice {
        state: s.state,
        reflection: s.reflection,
        last_reflection: s.last_reflection.clone(),
        new_episode_entries: new_entries,
        due: s.state == State::Idle && new_entries > 0 && old_enough,
    };
    Ok((consolidation, reflection))
}

/// Counts the episode entries of the days on or after `since` (`YYYY-MM-DD`; every day
/// without it). Only those days' files are read; one that cannot be read counts nothing.
fn episode_entries_since(ws: &Workspace, since: Option<&str>) -> usize {
    units::markdown_files(ws.root(), layout::EPISODES_DIR)
        .into_iter()
        .filter(|rel| {
            let day = units::md_stem(rel);
            since.is_none_or(|s| day >= s)
        })
        .filter_map(|rel| ws.read_text_if_exists(&rel).ok().flatten())
        .map(|text| episode::entries(&text).len())
        .sum()
}

/// The sentences of what needs someone, each naming the command to run.
fn notice_lines(r: &UpkeepReport) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = &r.consolidation {
        if c.pending {
            out.push(
                "a self-image consolidation waits for the user's approval: `cogmem identity \
                 consolidate show`, then `approve` or `reject`"
                    .to_owned(),
            );
        } else if c.due {
            out.push(format!(
                "a self-image consolidation is due: {} [Self-Awareness] entries since the last \
                 one (due at {}); the agent starts it with `cogmem identity consolidate input`",
                c.entries_since, c.threshold
            ));
        }
    }
    if let Some(f) = &r.reflection {
        let n = f.reflection;
        match f.state {
            State::AwaitingDecision => out.push(format!(
                "reflection #{n}: the reward request waits for the user's decision (`cogmem \
                 reflect decide`)"
            )),
            State::AwaitingApproval => out.push(format!(
                "reflection #{n} waits for the user's approval (`cogmem reflect approve` or \
                 `cogmem reflect reject`)"
            )),
            State::ReadyForInput => out.push(format!(
                "reflection #{n} is granted; the agent goes on with `cogmem reflect input`"
            )),
            State::Idle if f.due => out.push(format!(
                "a reflection is due: {} since {}; ask the user before starting one with \
                 `cogmem reflect request`",
                if f.new_episode_entries == 1 {
                    "1 episode entry".to_owned()
                } else {
                    format!("{} episode entries", f.new_episode_entries)
                },
                f.last_reflection.as_deref().map_or_else(
                    || "the start (no reflection yet)".to_owned(),
                    |t| format!("the last reflection ({t})")
                )
            )),
            State::Idle => {}
        }
    }
    out
}
