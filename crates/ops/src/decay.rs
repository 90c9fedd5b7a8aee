//! Decay and reinforcement (design.md §5): `decay` recomputes every score and commits the band
//! changes as `system:decay`; `pin`/`unpin` exempt a memory from fading; `why` explains a
//! score; `touch`, `recall` and `show` record uses without committing.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::id::Match;
use cogmem_store::access::{self, Batch};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::decay::{self, Band, DecayInputs};
use cogmem_store::git;
use cogmem_store::settings::DecayClock;
use cogmem_store::store::decay_file::{DecayFile, NewUnit, Stored};
use cogmem_store::store::units::{self, MemoryUnit, Units, Unreadable};
use cogmem_store::store::{Store, markdown};
use cogmem_store::workspace::{Workspace, WorkspaceError, layout};
use cogmem_text::clock::{Clock, FixedClock, Timestamp};
use cogmem_text::tokens;

/// A memory whose band changed.
#[derive(Debug, Clone, Serialize)]
pub struct Transition {
    /// Its id.
    pub id: String,
    /// Its file.
    pub path: String,
    /// Band before.
    pub from: Band,
    /// Band now.
    pub to: Band,
    /// Score now.
    pub score: f64,
    /// Age in the clock's unit (days, or interactions).
    pub age: f64,
    /// Uses, creation included.
    pub uses: u64,
}

/// What `decay` did.
#[derive(Debug, Clone, Serialize)]
pub struct DecayReport {
    /// The commit, `None` on a dry run or when nothing changed.
    pub commit: Option<String>,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// The time the scores were computed at.
    pub now: String,
    /// Entries scored.
    pub entries: usize,
    /// Uses folded in from the access log.
    pub folded_uses: usize,
    /// Entries created for memories that had none (written by hand or another tool).
    pub created: Vec<String>,
    /// Band changes.
    pub transitions: Vec<Transition>,
    /// Memories that became archived now, and why.
    pub archived: Vec<Transition>,
    /// The unit of `age`: `days` or `interactions`.
    pub clock: &'static str,
}

/// Recomputes every score at the clock's now and commits the changes as `system:decay`.
///
/// Each band change is an audit line (`DECAY`); entity and procedure comment lines are kept in
/// step with the JSON. Forgotten memories stay archived at 0; pinned ones stay at 1.
pub fn run(ws: &Workspace, dry_run: bool, clock: &dyn Clock) -> crate::Result<DecayReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    let plan = plan(ws, dry_run, now)?;
    if dry_run {
        return Ok(plan.report);
    }
    let mut change =
        Change::new(Actor::system("system:decay"), "cogmem decay").with_approval(Approval::Auto);
    let mut report = plan.stage(ws, &mut change)?;
    if change.is_empty() {
        return Ok(report);
    }
    let subject = format!("{} band changes", report.transitions.len());
    let change = change.with_subject(Action::Decay, subject);
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    report.commit = Some(applied.commit);
    Ok(report)
}

/// The scores recomputed at one time, not written yet: [`plan`] makes it and
/// [`DecayPlan::stage`] adds its files and audit lines to a change, so that `decay` commits it
/// alone and `upkeep` with its other work, in one commit.
#[derive(Debug)]
pub struct DecayPlan {
    /// What the decay does (its `commit` is never set here).
    pub report: DecayReport,
    decay: DecayFile,
    all: Units,
    /// Whether the uses of an access-log batch were folded in (not on a dry run).
    folding: bool,
    /// The batch folded, when it held back uses of memories in uncommitted files: they go back
    /// to the access log once the change lands.
    held: Option<Batch>,
}

/// Recomputes every score at `now`, folding in the uses recorded since the last change (with
/// `dry_run`, only looked at: the access log stays where it is). Writes nothing; the caller
/// holds the workspace lock, since the access log is moved aside for the fold.
///
/// Fails when the decay state cannot be read (a malformed `decay-scores.json` or shard, named
/// with its line).
pub fn plan(ws: &Workspace, dry_run: bool, now: Timestamp) -> crate::Result<DecayPlan> {
    let p = &ws.settings().decay;
    let reading = ws.progress(None, "reading the memories");
    let mut decay = access::load_decay(ws)?;
    let mut batch: Option<Batch> = if dry_run { access::peek(ws)? } else { access::begin(ws)? };
    // A memory in a file no commit holds as it is (written by hand, not committed yet) gets no
    // entry, from a use or from here: the commit would hold an entry for a memory in no
    // committed file, an orphan once the file goes. Its uses wait in the access log.
    let repo = git::open(ws.root())?;
    let tree = git::head_tree(&repo)?;
    if let Some(b) = &mut batch {
        b.hold_back_uncommitted(ws.root(), tree.as_ref(), |_, _| Ok(None))?;
    }
    // Sets and maps, not lists searched per entry: decay was quadratic at 100k memories (issue 20).
    let before: HashSet<String> = decay.keys().into_iter().collect();
    let folded = batch.as_ref().map(|b| access::fold(b, &mut decay)).unwrap_or_default();
    let all = units::list(ws);
    drop(reading);
    // Memories used before they had an entry got one when their uses were folded.
    let mut created: Vec<String> =
        decay.keys().into_iter().filter(|k| !before.contains(k)).collect();
    let mut uncommitted: HashMap<&str, bool> = HashMap::new();
    for u in &all.units {
        if decay.has(&u.id) {
            continue;
        }
        let dirty = match uncommitted.get(u.path.as_str()) {
            Some(&d) => d,
            None => {
                let d = git::is_dirty(ws.root(), tree.as_ref(), &u.path)?;
                uncommitted.insert(&u.path, d);
                d
            }
        };
        if !dirty {
            let unit = NewUnit {
                store: u.store,
                base: p.base_explicit,
                created: now.with_timezone(&chrono::Utc),
                pinned: u.store == Store::Vault,
            };
            decay.insert_new(&u.id, unit, p);
            created.push(u.id.clone());
        }
    }
    let scoring_now = decay.now(now);
    let unit_of: HashMap<&str, &MemoryUnit> =
        all.units.iter().map(|u| (u.id.as_str(), u)).collect();
    let mut transitions = Vec::new();
    let scored = ws.progress(decay.len() as u64, "memories scored");
    for key in decay.keys() {
        scored.inc();
        let Some((inputs, stored)) = decay.scoring(&key, now) else { continue };
        if inputs.forgotten {
            continue; // forgotten: archived at 0 until restored
        }
        let score = decay::relevance(&inputs, &scoring_now, p);
        let band = decay::band(score, p);
        // A dry run writes nothing, so it only compares: setting a score parses the entry whole.
        let before = if dry_run { stored } else { decay.set_score(&key, score, band) };
        if let Some(from) = before.filter(|b| *b != band) {
            let path = unit_of
                .get(key.as_str())
                .map_or_else(|| layout::DECAY_SCORES.to_owned(), |u| u.path.clone());
            transitions.push(Transition {
                id: key.clone(),
                path,
                from,
                to: band,
                score: round(score),
                age: round(decay::age(&inputs, &scoring_now, p)),
                uses: inputs.access_count,
            });
        }
    }
    let archived: Vec<Transition> =
        transitions.iter().filter(|t| t.to == Band::Archived).cloned().collect();
    let report = DecayReport {
        commit: None,
        dry_run,
        now: cogmem_text::clock::utc_seconds(&now),
        entries: decay.len(),
        folded_uses: folded.uses,
        created,
        transitions,
        archived,
        clock: match p.clock {
            DecayClock::Days => "days",
            DecayClock::Interactions => "interactions",
        },
    };
    let folding = !dry_run && batch.is_some();
    let held = batch.filter(|b| !dry_run && b.has_held());
    Ok(DecayPlan { report, decay, all, folding, held })
}

impl DecayPlan {
    /// The files of memories that could not be read, which the decay left out.
    pub fn skipped(&self) -> &[Unreadable] {
        &self.all.skipped
    }

    /// Adds the decay files, the comment lines of entities and procedures, and one `DECAY`
    /// audit line per band change to `change`, and returns the report. When nothing changed,
    /// `change` gets nothing and a batch of uses that was folded already is let go.
    pub fn stage(self, ws: &Workspace, change: &mut Change) -> crate::Result<DecayReport> {
        let Self { report, mut decay, all, folding, held } = self;
        if let Some(b) = held {
            change.defer_held(b);
        }
        let p = &ws.settings().decay;
        let was_empty = change.is_empty();
        let summary = format!(
            "{} band changes, {} uses folded",
            report.transitions.len(),
            report.folded_uses
        );
        change.write_decay(ws, &mut decay, Action::Edit, &summary);
        // Comment lines of entities and procedures follow the JSON.
        let unit_of: HashMap<&str, &MemoryUnit> =
            all.units.iter().map(|u| (u.id.as_str(), u)).collect();
        let checked = ws.progress(decay.len() as u64, "memories checked");
        for key in decay.keys() {
            checked.inc();
            let Some(u) = unit_of.get(key.as_str()) else { continue };
            if !matches!(u.store, Store::Semantic | Store::Procedural) {
                continue;
            }
            let Some(Stored { score, access_count: count, pinned }) = decay.stored(&key) else {
                continue;
            };
            let text = ws.read_text(&u.path)?;
            let fields = [
                ("Decay score", format!("{score:.2}")),
                ("Access count", count.to_string()),
                ("Pinned", if pinned { "yes" } else { "no" }.to_owned()),
            ];
            if let Some(new) = markdown::update_comment_fields(&text, "Decay score:", &fields) {
                change.write(
                    &u.path,
                    new.into_bytes(),
                    Action::Edit,
                    format!("decay score {score:.2}"),
                );
            }
        }
        for t in &report.transitions {
            change.note(Action::Decay, &t.path, transition_summary(t, p.clock));
        }
        if was_empty && change.is_empty() && folding {
            access::finish(ws)?;
        }
        Ok(report)
    }
}

fn transition_summary(t: &Transition, clock: DecayClock) -> String {
    let unit = match clock {
        DecayClock::Days => "days",
        DecayClock::Interactions => "interactions",
    };
    format!(
        "{} {} → {} (score {:.3}, {} {unit} since use, {} use{})",
        t.id,
        t.from.as_str(),
        t.to.as_str(),
        t.score,
        t.age,
        t.uses,
        if t.uses == 1 { "" } else { "s" }
    )
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// What `pin`/`unpin` did.
#[derive(Debug, Clone, Serialize)]
pub struct PinReport {
    /// The commit, `None` when it already was so.
    pub commit: Option<String>,
    /// The id.
    pub id: String,
    /// Whether it is pinned now.
    pub pinned: bool,
}

/// Pins (or unpins) a memory: pinned memories score 1.0 and never fade.
///
/// `given` is any form of the id `crate::id` accepts. Vault notes are always pinned:
/// unpinning one is refused (exit 4).
pub fn pin(
    ws: &Workspace,
    given: &str,
    pinned: bool,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<PinReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    // A whole id: its file and its decay shard only (issue 20: every memory file and every
    // shard, 1.6 s at 100,000 memories).
    let all = crate::id::units_naming(ws, &[given]).unwrap_or_else(|| units::list(ws));
    let id = crate::id::memory(given, &all, None, Match::Prefix)?;
    let id = id.as_str();
    let unit = all.get(id).expect("the resolver found it among the units").clone();
    if unit.store == Store::Vault && !pinned {
        return Err(RuleError::VaultPinned { id: id.to_owned() }.into());
    }
    let p = &ws.settings().decay;
    let mut decay = DecayFile::load_for(ws, &[id])?;
    if !decay.has(id) {
        // A memory in a file no commit holds as it is (written by hand, not synced) gets its
        // entry when it is committed: an entry now would be an orphan if the file went.
        let tree = git::head_tree(&repo)?;
        if git::is_dirty(ws.root(), tree.as_ref(), &unit.path)? {
            return Err(WorkspaceError::HandEdited { paths: vec![unit.path.clone()] }.into());
        }
        decay.insert_new(
            id,
            NewUnit {
                store: unit.store,
                base: p.base_explicit,
                created: now.with_timezone(&chrono::Utc),
                pinned: false,
            },
            p,
        );
    }
    if !decay.set_pinned(id, pinned) {
        return Ok(PinReport { commit: None, id: id.to_owned(), pinned });
    }
    let score =
        decay::relevance(&decay.inputs(id, now).expect("the entry exists"), &decay.now(now), p);
    decay.set_score(id, score, decay::band(score, p));
    let verb = if pinned { "pinned" } else { "unpinned" };
    let mut change = Change::new(actor, format!("cogmem {}", if pinned { "pin" } else { "unpin" }));
    if matches!(unit.store, Store::Semantic | Store::Procedural) {
        let text = ws.read_text(&unit.path)?;
        let fields = [
            ("Pinned", if pinned { "yes" } else { "no" }.to_owned()),
            ("Decay score", format!("{score:.2}")),
        ];
        if let Some(new) = markdown::update_comment_fields(&text, "Decay score:", &fields) {
            change.write(&unit.path, new.into_bytes(), Action::Edit, format!("{verb} {id}"));
        }
    }
    change.write_decay(ws, &mut decay, Action::Edit, &format!("{verb} {id}"));
    let applied = change.with_subject(Action::Edit, format!("{verb} {id}")).apply(
        ws,
        &repo,
        &lock,
        &FixedClock(now),
    )?;
    Ok(PinReport { commit: Some(applied.commit), id: id.to_owned(), pinned })
}

/// Why a memory has its score: the inputs and the formula with numbers.
#[derive(Debug, Clone, Serialize)]
pub struct Why {
    /// The id.
    pub id: String,
    /// The stored inputs, with uses recorded since the last change folded in.
    pub inputs: DecayInputs,
    /// Age in the clock's unit.
    pub age: f64,
    /// `days` or `interactions`.
    pub clock: &'static str,
    /// λ.
    pub lambda: f64,
    /// The score now.
    pub score: f64,
    /// The band now.
    pub band: Band,
    /// The formula with the numbers filled in.
    pub formula: String,
    /// Whether the memory has a decay entry yet; without one (written by hand, and `decay` not
    /// run since) it is scored as the new entry `decay` would create for it.
    pub has_entry: bool,
    /// The open flags naming it (contradictions and doubts a reflection raised), until a
    /// person resolves them (issue 19).
    pub flags: Vec<cogmem_store::store::flags::Flag>,
}

/// Explains a memory's score at the clock's now. Read-only.
///
/// `given` is any form of the id `crate::id` accepts. A memory without a decay entry is
/// explained as a new memory would be (`has_entry` false). Fails when no memory has the id.
pub fn why(ws: &Workspace, given: &str, clock: &dyn Clock) -> crate::Result<Why> {
    let now = clock.now();
    let p = &ws.settings().decay;
    // The shard that would hold `given` first; every shard only when it is not an id there
    // (the start of one, or a memory without an entry yet). Issue 20: the whole decay state
    // was read to explain one memory.
    let mut decay = DecayFile::load_for(ws, &[given])?;
    if !decay.has(given) {
        decay = access::load_decay(ws)?;
    }
    let all = if decay.has(given) { None } else { Some(units::list(ws)) };
    let id = match &all {
        None => given.to_owned(),
        Some(all) => crate::id::memory(given, all, Some(&decay), Match::Prefix)?,
    };
    let id = id.as_str();
    let has_entry = decay.has(id);
    if let Some(b) = access::peek(ws)? {
        access::fold(&b, &mut decay); // a recorded use of it creates its entry here
    }
    if !decay.has(id) {
        let unit =
            all.as_ref().and_then(|all| all.get(id)).cloned().ok_or_else(|| {
                InputError::UnknownId { id: given.to_owned(), nearest: Vec::new() }
            })?;
        let new = NewUnit {
            store: unit.store,
            base: p.base_explicit,
            created: now.with_timezone(&chrono::Utc),
            pinned: unit.store == Store::Vault,
        };
        decay.insert_new(id, new, p);
    }
    let inputs = decay.inputs(id, now).expect("the entry exists now");
    let at = decay.now(now);
    let score = decay::relevance(&inputs, &at, p);
    let age = decay::age(&inputs, &at, p);
    let clock_name = match p.clock {
        DecayClock::Days => "days",
        DecayClock::Interactions => "interactions",
    };
    let formula = if inputs.forgotten {
        "forgotten: 0 until restored".to_owned()
    } else if inputs.pinned {
        "pinned: always 1.0".to_owned()
    } else {
        let uses = inputs.access_count.max(1);
        let raw =
            inputs.base * (-p.lambda * age).exp() * ((uses + 1) as f64).log2() * inputs.type_weight;
        format!(
            "clamp01({:.2} × e^(−{} × {:.2} {clock_name}) × log2({uses} + 1) × {:.2}) = clamp01({raw:.4}) = {score:.4}",
            inputs.base, p.lambda, age, inputs.type_weight
        )
    };
    Ok(Why {
        id: id.to_owned(),
        inputs,
        age: round(age),
        clock: clock_name,
        lambda: p.lambda,
        score: round(score),
        band: decay::band(score, p),
        formula,
        has_entry,
        flags: crate::flag::open_on(ws, id),
    })
}

/// Records an explicit use of a memory (no commit; folded by the next change), and returns
/// its id.
///
/// `given` is any form of the id `crate::id` accepts. A sub-agent caller is refused
/// ([`RuleError::SubagentWrite`], exit 4): reinforcing a memory is a write.
pub fn touch(ws: &Workspace, given: &str, clock: &dyn Clock) -> crate::Result<String> {
    ws.options().check_writer()?;
    // The shard that would hold `given` first, every shard only when it is not an id there.
    let id = if DecayFile::load_for(ws, &[given])?.has(given) {
        given.to_owned()
    } else {
        let decay = access::load_decay(ws)?;
        crate::id::memory(given, &units::list(ws), Some(&decay), Match::Prefix)?
    };
    access::record(ws, std::slice::from_ref(&id), 0, clock.now())?;
    Ok(id)
}

/// One memory, shown whole.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The memory.
    pub unit: MemoryUnit,
    /// Its score now.
    pub why: Option<Why>,
    /// Its size in (estimated) tokens.
    pub tokens: usize,
    /// For an episode entry: the entries around it in its day (it included).
    pub context: Vec<MemoryUnit>,
    /// Decay files that could not be read (the score is then not shown).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Unreadable>,
}

/// Shows a memory by id (any form `crate::id` accepts) and records the use. Archived and forgotten memories can be shown by
/// id, but looking at a hidden memory is not a use of it: it stays hidden.
pub fn show(ws: &Workspace, given: &str, clock: &dyn Clock) -> crate::Result<Shown> {
    let mut shown = look(ws, given, clock)?;
    let id = shown.unit.id.as_str();
    // A decay file that cannot be read does not keep the memory from being shown.
    let (decay, skipped) = DecayFile::load_readable(ws, Some(&[id]));
    if !decay.is_archived(id) && !decay.is_forgotten(id) {
        access::record(ws, &[id.to_owned()], 0, clock.now())?;
    }
    shown.skipped = skipped;
    Ok(shown)
}

/// Shows a memory like [`show`] without recording a use: a person browsing memories (the web
/// view) is not the agent using them, so looking must not keep a memory from fading.
pub fn look(ws: &Workspace, given: &str, clock: &dyn Clock) -> crate::Result<Shown> {
    // An exact id names its file: only that file is read (issue 20: every memory file was read
    // to show one, 1.9 s at 100,000 memories). Anything else (the start of an id, an id
    // written elsewhere) is resolved among every unit, as before.
    if let Some(file) = crate::id::units_naming(ws, &[given]) {
        return shown(ws, given, &file, clock);
    }
    let all: Units = units::list(ws);
    let id = crate::id::memory(given, &all, None, Match::Prefix)?;
    shown(ws, &id, &all, clock)
}

/// [`look`] at the unit `id`, which is among `all`; its context is its neighbours in `all`.
fn shown(ws: &Workspace, id: &str, all: &Units, clock: &dyn Clock) -> crate::Result<Shown> {
    let unit = all.get(id).cloned().expect("the resolver found it among the units");
    let why = why(ws, id, clock).ok();
    let tokens = tokens::estimate(&unit.text);
    let mut context = Vec::new();
    if unit.store == Store::Episodic {
        let day: Vec<&MemoryUnit> = all.units.iter().filter(|u| u.path == unit.path).collect();
        if let Some(i) = day.iter().position(|u| u.id == unit.id) {
            context = day[i.saturating_sub(2)..(i + 3).min(day.len())]
                .iter()
                .map(|u| (*u).clone())
                .collect();
        }
    }
    Ok(Shown { unit, why, tokens, context, skipped: Vec::new() })
}
