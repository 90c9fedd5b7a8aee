//! `cogmem forget` and `cogmem restore`: forgetting archives, it never deletes (design.md §2.4).
//!
//! A soft forget sets the unit's decay score to 0 and its status to `archived`, takes its bullet
//! out of MEMORY.md and its rows out of the graph index, and keeps its file. Everything it takes
//! out is kept in the decay entry's `archive` record, so `restore` puts back exactly the bytes
//! that were there. Only `permanent` removes content from the working tree — git history keeps
//! it regardless.

use std::borrow::Cow;

use serde::Serialize;

use crate::error::{InputError, RuleError};
use crate::id::Match;
use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::git;
use cogmem_store::store::decay_file::{ArchiveRecord, DecayFile, NewUnit, RemovedLine};
use cogmem_store::store::units::{self, MemoryUnit};
use cogmem_store::store::{Store, entity, episode};
use cogmem_store::workspace::{LockGuard, Workspace, layout};
use cogmem_text::clock::{Clock, FixedClock};

mod bullet;
pub use bullet::clear_best;

/// A memory that matches a forget (or recall) query.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Its id, for `--id`.
    pub id: String,
    /// Its store.
    pub store: Store,
    /// Its file.
    pub path: String,
    /// Its line.
    pub line: usize,
    /// A short excerpt.
    pub excerpt: String,
    /// Share of the query's terms it contains, `0.0..=1.0`.
    pub score: f64,
    /// Pinned (vault) memories need `--force` to be forgotten.
    pub pinned: bool,
}

/// Finds the memories that best match `query`, archived ones excluded, best first.
///
/// Matching is lexical (words, and character pairs for Japanese and Chinese): a memory matches
/// when it holds at least half of the query's terms.
pub fn find(ws: &Workspace, query: &str, limit: usize) -> crate::Result<Vec<Candidate>> {
    let terms = units::terms(query);
    let found = find_units(ws, &terms, limit)?;
    Ok(rounded(bullet::with_bullets(ws, found, &terms, limit)?))
}

/// The memories [`find`] lists before the bullets of its entities are added.
fn find_units(ws: &Workspace, terms: &[String], limit: usize) -> crate::Result<Vec<Candidate>> {
    if let Some(found) = find_in_index(ws, terms, limit)? {
        return Ok(found);
    }
    // Only the memories of files that hold one of the words, and their decay entries: every
    // memory the rank below can offer is among them (issue 20: every memory file and every
    // shard were read).
    let (all, decay) = match units::list_holding(ws, terms) {
        Some(some) => {
            let ids: Vec<&str> = some.units.iter().map(|u| u.id.as_str()).collect();
            let decay = DecayFile::load_for(ws, &ids)?;
            (some, decay)
        }
        None => (units::list(ws), load_decay(ws)?),
    };
    let mut scored = all.units.iter().map(|u| Scored::of(u, terms)).filter(Scored::kept).collect();
    Ok(rounded(ranked(&mut scored, Decay::Loaded(&decay), terms, limit)?))
}

/// [`find`] from the search index, brought up to date first (issue 20: a forget by words read
/// every file holding one of its words, seconds for a common word at 100,000 memories): the
/// memories whose text holds enough of the words' index terms, scored on the text the index
/// stores, and the units of the files whose path holds a word (a word of an id). The same
/// answer as the files give. `None` sends the caller to the files: no index, an index a
/// background merge keeps behind the files, a word the index cannot be sure to find (a stop
/// word, a word only an id holds).
fn find_in_index(
    ws: &Workspace,
    terms: &[String],
    limit: usize,
) -> crate::Result<Option<Vec<Candidate>>> {
    use cogmem_index::index::{self, search};
    if terms.is_empty() || terms.iter().any(|t| units::only_in_ids(t)) {
        return Ok(None);
    }
    let Some(idx) = index::open_current(ws) else { return Ok(None) };
    // A score of at least a half: at least half of the words found.
    let n = terms.len();
    let Ok(Some(holding)) = search::holding_words(&idx, terms, n.div_ceil(2)) else {
        return Ok(None);
    };
    cogmem_store::timing::mark("forget: the index's memories holding the words");
    // A file whose path holds a word holds units whose ids do: those are read from the file.
    let by_path = units::paths_holding(ws.root(), terms);
    let read = units::of_files(ws, &by_path);
    let by_path: std::collections::HashSet<&str> = by_path.iter().map(String::as_str).collect();
    let mut scored: Vec<Scored> =
        read.units.iter().map(|u| Scored::of(u, terms)).filter(Scored::kept).collect();
    // The memories holding the terms of the most words first: a memory holding those of `c`
    // words scores at most c/n, so once `limit` memories score more than that, no memory of
    // that group or after can take a place (at 100,000 memories a common word is in tens of
    // thousands).
    let mut found = ranked(&mut scored, Decay::Shards(ws), terms, limit)?;
    for c in holding.counts() {
        if found.len() == limit
            && found.last().is_some_and(|f: &Candidate| f.score * n as f64 > c as f64)
        {
            break;
        }
        let Ok(group) = holding.units(c) else { return Ok(None) };
        scored.extend(group.into_iter().filter(|s| !by_path.contains(s.path.as_str())).filter_map(
            |s| {
                let store = Store::parse(&s.store).ok()?;
                let line = usize::try_from(s.line).ok()?;
                let (id, path, text) = (s.id.into(), s.path.into(), s.text.into());
                Some(Scored::new(id, store, path, line, text, terms)).filter(Scored::kept)
            },
        ));
        found = ranked(&mut scored, Decay::Shards(ws), terms, limit)?;
    }
    cogmem_store::timing::mark("forget: ranked");
    Ok(Some(rounded(found)))
}

/// The candidates with their scores to two places, as they are shown.
fn rounded(mut found: Vec<Candidate>) -> Vec<Candidate> {
    for c in &mut found {
        c.score = (c.score * 100.0).round() / 100.0;
    }
    found
}

/// Finds the memory written (or used) last: what a forget request that only points back
/// means ("scratch that", "forget what I just said", さっきの話は忘れて). Every unit of that
/// last change is a candidate (a remember may write an episode, an entity and a core bullet),
/// archived ones excluded; empty when nothing is remembered.
pub fn latest(ws: &Workspace, limit: usize) -> crate::Result<Vec<Candidate>> {
    if let Some(found) = latest_from_caches(ws, limit)? {
        return Ok(found);
    }
    let all = units::list(ws);
    let decay = load_decay(ws)?;
    let never = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH.fixed_offset();
    let dated: Vec<(cogmem_text::Timestamp, &MemoryUnit)> = all
        .units
        .iter()
        .filter(|u| !decay.is_forgotten(&u.id))
        .filter_map(|u| Some((decay.inputs(&u.id, never)?.last_accessed, u)))
        .collect();
    let Some(newest) = dated.iter().map(|(t, _)| *t).max() else { return Ok(Vec::new()) };
    let mut found: Vec<Candidate> = dated
        .into_iter()
        .filter(|(t, _)| *t == newest)
        .map(|(_, u)| whole_match(u, &decay))
        .collect();
    found.sort_by(|a, b| a.store.cmp(&b.store).then(a.id.cmp(&b.id)));
    found.truncate(limit);
    Ok(found)
}

/// [`latest`] from the search index's decay caches, when they are current (issue 20: every
/// memory file and every decay shard were read, seconds at 100,000 memories): the newest use
/// among the entries not forgotten, then the files of those memories alone. `None` sends the
/// caller to the files: a cache not current (a change whose index update is still running, a
/// hand edit), or a newest entry whose memory is in no file (the files decide which is newest
/// then).
fn latest_from_caches(ws: &Workspace, limit: usize) -> crate::Result<Option<Vec<Candidate>>> {
    let Some(cached) = cogmem_index::index::CachedDecay::open(ws) else { return Ok(None) };
    let ids: Vec<String> = match cached.newest() {
        None => return Ok(None),
        Some(None) => return Ok(Some(Vec::new())),
        Some(Some((_, ids))) => ids,
    };
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let Some(some) = crate::id::units_naming(ws, &ids) else { return Ok(None) };
    let decay = DecayFile::load_for(ws, &ids)?;
    let mut found: Vec<Candidate> =
        ids.iter().filter_map(|id| some.get(id)).map(|u| whole_match(u, &decay)).collect();
    found.sort_by(|a, b| a.store.cmp(&b.store).then(a.id.cmp(&b.id)));
    found.truncate(limit);
    Ok(Some(found))
}

/// A memory scored against a forget's words: borrowed from the units a forget read, owned when
/// it comes from the index.
struct Scored<'a> {
    id: Cow<'a, str>,
    store: Store,
    path: Cow<'a, str>,
    line: usize,
    text: Cow<'a, str>,
    score: f64,
}

impl<'a> Scored<'a> {
    fn new(
        id: Cow<'a, str>,
        store: Store,
        path: Cow<'a, str>,
        line: usize,
        text: Cow<'a, str>,
        terms: &[String],
    ) -> Self {
        let score = units::score_text(terms, &id, &text);
        Self { id, store, path, line, text, score }
    }

    fn of(u: &'a MemoryUnit, terms: &[String]) -> Self {
        Self::new((&*u.id).into(), u.store, (&*u.path).into(), u.line, (&*u.text).into(), terms)
    }

    /// Whether it holds at least half of the words (a candidate at all).
    fn kept(&self) -> bool {
        self.score >= 0.5
    }
}

/// Where [`ranked`] finds decay entries.
enum Decay<'a> {
    /// Loaded already.
    Loaded(&'a DecayFile),
    /// In the workspace's files: the shards of the ids asked about are read.
    Shards(&'a Workspace),
}

/// The best `limit` of the memories that hold at least half of the words, archived ones
/// excluded: by score, then store, then id. The decay entries are asked for the best few
/// first, and for more only while archived ones leave places free. The scores are not rounded
/// yet; `scored` is left sorted, without the memories under a half.
fn ranked(
    scored: &mut Vec<Scored>,
    decay: Decay,
    terms: &[String],
    limit: usize,
) -> crate::Result<Vec<Candidate>> {
    scored.retain(Scored::kept);
    scored.sort_by(|a, b| {
        b.score.total_cmp(&a.score).then(a.store.cmp(&b.store)).then(a.id.cmp(&b.id))
    });
    let mut found = Vec::new();
    let mut rest = scored.as_slice();
    while found.len() < limit && !rest.is_empty() {
        let batch = &rest[..rest.len().min((limit - found.len()) * 2 + 8)];
        rest = &rest[batch.len()..];
        let read;
        let decay = match decay {
            Decay::Loaded(d) => d,
            Decay::Shards(ws) => {
                let ids: Vec<&str> = batch.iter().map(|s| &*s.id).collect();
                read = DecayFile::load_for(ws, &ids)?;
                &read
            }
        };
        found.extend(batch.iter().filter(|s| !decay.is_forgotten(&s.id)).map(|s| Candidate {
            id: s.id.to_string(),
            store: s.store,
            path: s.path.to_string(),
            line: s.line,
            excerpt: excerpt(&s.text, terms),
            score: s.score,
            pinned: s.store == Store::Vault || decay.is_pinned(&s.id),
        }));
    }
    found.truncate(limit);
    Ok(found)
}

fn excerpt(text: &str, terms: &[String]) -> String {
    let best = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("<!--"))
        .max_by_key(|l| terms.iter().filter(|t| units::terms(l).contains(t)).count())
        .unwrap_or("");
    let one = cogmem_store::store::markdown::one_line(best);
    if one.chars().count() > 120 {
        format!("{}…", one.chars().take(119).collect::<String>())
    } else {
        one
    }
}

/// Describes the memories with these ids, as candidates (for a dry run, and for the question
/// before forgetting): each in any form `crate::id` accepts, the start of an id only with
/// [`Match::Prefix`]. The candidates carry the whole ids.
///
/// Fails on an unknown or ambiguous id.
pub fn describe(ws: &Workspace, ids: &[String], how: Match) -> crate::Result<Vec<Candidate>> {
    let (all, decay) = units_and_decay_for(ws, ids, false)?;
    ids.iter()
        .map(|given| match crate::id::memory(given, &all, None, how) {
            Err(_) if entity::is_bullet_id(given) => bullet::describe(ws, given, &decay, how),
            Ok(id) => {
                let u = all.get(&id).expect("the resolver found it among the units");
                Ok(whole_match(u, &decay))
            }
            Err(_) if forgotten_core(given, &decay) => Ok(Candidate {
                id: given.clone(),
                store: Store::Core,
                path: layout::MEMORY_MD.to_owned(),
                line: 0,
                excerpt: "(forgotten: its text is kept in its decay entry)".to_owned(),
                score: 1.0,
                pinned: false,
            }),
            Err(e) => Err(e),
        })
        .collect()
}

/// Whether `id` is a core bullet forgotten before: it has left MEMORY.md (so no unit has the
/// id), and its decay entry keeps the lines it took out.
fn forgotten_core(id: &str, decay: &DecayFile) -> bool {
    id.starts_with("core:") && decay.is_forgotten(id)
}

/// A unit as a candidate chosen whole (by id, or as the last memory), not by its words.
fn whole_match(u: &MemoryUnit, decay: &DecayFile) -> Candidate {
    Candidate {
        id: u.id.clone(),
        store: u.store,
        path: u.path.clone(),
        line: u.line,
        excerpt: excerpt(&u.text, &[]),
        score: 1.0,
        pinned: u.store == Store::Vault || decay.is_pinned(&u.id),
    }
}

fn load_decay(ws: &Workspace) -> crate::Result<DecayFile> {
    Ok(DecayFile::load(ws)?)
}

/// The units and decay entries a forget of `ids` needs (issue 20: reading every memory file
/// and every decay shard made forgetting one episode take seconds at 100,000 memories): the
/// files of whole ids and their decay shards ([`crate::id::units_naming`]); otherwise (the
/// start of an id, a name, a forgotten core bullet with no unit left) every unit and every
/// shard, as the resolver must see them all. A permanent forget of an entity reads every unit
/// too: the other entities' links to it are taken out.
fn units_and_decay_for(
    ws: &Workspace,
    ids: &[String],
    permanent: bool,
) -> crate::Result<(units::Units, DecayFile)> {
    // A bullet's id names its entity's file: the bullet is read from it, not from the units.
    let (bullets, rest): (Vec<&String>, Vec<&String>) =
        ids.iter().partition(|id| entity::is_bullet_id(id));
    let some = if rest.is_empty() {
        Some(units::Units::default())
    } else {
        (!(permanent && rest.iter().any(|id| id.starts_with("entity:"))))
            .then(|| crate::id::units_naming(ws, &rest))
            .flatten()
    };
    match some {
        // The start of a bullet's id needs every entry: which one it names is known later.
        Some(some) if bullets.iter().all(|b| bullet::is_whole(b)) => {
            let mut keys: Vec<String> = rest.iter().map(|id| (*id).clone()).collect();
            keys.extend(bullets.iter().flat_map(|b| bullet::decay_keys(b)));
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            Ok((some, DecayFile::load_for(ws, &keys)?))
        }
        Some(some) => Ok((some, load_decay(ws)?)),
        None => Ok((units::list(ws), load_decay(ws)?)),
    }
}

/// How to forget.
#[derive(Debug, Clone)]
pub struct ForgetOptions {
    /// Remove the content from the working tree instead of archiving it.
    pub permanent: bool,
    /// Forget pinned (vault) memories too.
    pub force: bool,
    /// Who is forgetting.
    pub actor: Actor,
    /// What caused it, for the commit message.
    pub trigger: String,
}

/// One memory forgotten.
#[derive(Debug, Clone, Serialize)]
pub struct Forgotten {
    /// Its id.
    pub id: String,
    /// Its store.
    pub store: Store,
    /// Its file.
    pub path: String,
}

/// What `forget` did.
#[derive(Debug, Clone, Serialize)]
pub struct ForgetReport {
    /// The commit, or `None` when nothing changed.
    pub commit: Option<String>,
    /// Memories forgotten now.
    pub forgotten: Vec<Forgotten>,
    /// Ids that were already forgotten.
    pub already_forgotten: Vec<String>,
    /// Whether the content was removed from the working tree.
    pub permanent: bool,
    /// Files in the commit.
    pub files: Vec<String>,
    /// Files the search index must refresh (set when a commit was made).
    #[serde(skip)]
    pub(crate) files_for_index: Option<Vec<String>>,
}

/// The working state of one forget or restore: file contents as the change will leave them.
struct Draft<'a> {
    ws: &'a Workspace,
    change: Change,
    decay: DecayFile,
    decay_changed: bool,
}

impl Draft<'_> {
    fn text(&self, rel: &str) -> crate::Result<String> {
        if let Some(b) = self.change.pending(rel) {
            return Ok(String::from_utf8_lossy(b).into_owned());
        }
        Ok(self.ws.read_text_if_exists(rel)?.unwrap_or_default())
    }
}

/// Forgets the memories with these ids, as one commit.
///
/// Each id may be given in any form `crate::id` accepts; the start of an id only when the
/// forgetting is not permanent (a permanent deletion names exactly what goes). Fails without
/// changing anything when an id is unknown or ambiguous, or names a pinned memory without
/// `force`.
pub fn forget(
    ws: &Workspace,
    ids: &[String],
    opts: &ForgetOptions,
    clock: &dyn Clock,
) -> crate::Result<ForgetReport> {
    crate::adopt::settle(ws, clock);
    let lock = ws.lock()?;
    let report = forget_locked(ws, &lock, ids, opts, clock, false)?;
    // The index lock is taken before the workspace lock goes, so that `verify` right after
    // never finds the index behind a change that is over (issue 16).
    if let Some(files) = &report.files_for_index {
        cogmem_index::index::update_after_commit_releasing(ws, lock, files);
    }
    Ok(report)
}

/// [`forget`] for a caller that already holds the workspace lock (a purge holds it throughout;
/// `purging` lets its change commit while the purge record exists). The search index is left to
/// the caller.
pub(crate) fn forget_locked(
    ws: &Workspace,
    lock: &LockGuard,
    ids: &[String],
    opts: &ForgetOptions,
    clock: &dyn Clock,
    purging: bool,
) -> crate::Result<ForgetReport> {
    let repo = git::open(ws.root())?;
    let now = clock.now();
    let (all, decay) = units_and_decay_for(ws, ids, opts.permanent)?;
    let mut d = Draft {
        ws,
        change: Change::new(opts.actor.clone(), opts.trigger.clone()),
        decay,
        decay_changed: false,
    };
    let mut report = ForgetReport {
        commit: None,
        forgotten: Vec::new(),
        already_forgotten: Vec::new(),
        permanent: opts.permanent,
        files: Vec::new(),
        files_for_index: None,
    };
    let action = if opts.permanent { Action::Delete } else { Action::Archive };
    let stamp = now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let how = if opts.permanent { Match::Exact } else { Match::Prefix };
    for given in ids {
        if entity::is_bullet_id(given) && all.get(given).is_none() {
            bullet::forget(&mut d, given, opts, &mut report, now, &stamp)?;
            continue;
        }
        let id = &match crate::id::memory(given, &all, None, how) {
            Ok(id) => id,
            // A core bullet forgotten before has left MEMORY.md, and its decay entry keeps
            // the lines it took out: forgetting it again finds it there, and a permanent
            // forget removes the entry (the last place its text is, besides history).
            Err(_) if forgotten_core(given, &d.decay) => {
                if opts.permanent {
                    d.decay.remove_entry(given);
                    d.decay_changed = true;
                    report.forgotten.push(Forgotten {
                        id: given.clone(),
                        store: Store::Core,
                        path: layout::MEMORY_MD.to_owned(),
                    });
                } else {
                    report.already_forgotten.push(given.clone());
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        let unit = all.get(id).expect("the resolver found it among the units").clone();
        if (unit.store == Store::Vault || d.decay.is_pinned(id)) && !opts.force {
            return Err(RuleError::Pinned { id: id.clone() }.into());
        }
        if d.decay.is_forgotten(id) && !opts.permanent {
            report.already_forgotten.push(id.clone());
            continue;
        }
        let summary = format!("{} {id}", if opts.permanent { "deleted" } else { "forgot" });
        let mut removed: Vec<RemovedLine> = Vec::new();
        match unit.store {
            Store::Core => {
                let text = d.text(layout::MEMORY_MD)?;
                let (new, lines) = RemovedLine::take(layout::MEMORY_MD, &text, |n, l| {
                    n == unit.line && l.contains(unit.text.as_str())
                });
                removed.extend(lines);
                d.change.write(layout::MEMORY_MD, new.into_bytes(), action, summary.clone());
            }
            Store::Semantic => {
                let entity = id.trim_start_matches("entity:");
                let text = d.text(layout::GRAPH_INDEX)?;
                let (new, lines) = RemovedLine::take(layout::GRAPH_INDEX, &text, |_, l| {
                    cogmem_index::graph::index_row_names(l, entity)
                });
                if !lines.is_empty() {
                    removed.extend(lines);
                    d.change.write(layout::GRAPH_INDEX, new.into_bytes(), action, summary.clone());
                }
            }
            _ => {}
        }
        if opts.permanent {
            match unit.store {
                Store::Episodic => {
                    let text = d.text(&unit.path)?;
                    let day = now.format("%Y-%m-%d").to_string();
                    d.change.write(
                        &unit.path,
                        episode::tombstone(&text, unit.line, &day).into_bytes(),
                        action,
                        summary.clone(),
                    );
                }
                Store::Semantic => {
                    d.change.delete(&unit.path, action, summary.clone());
                    // Links to it from other entities would dangle (`verify` reports them).
                    let target = id.trim_start_matches("entity:");
                    for other in all.units.iter().filter(|u| {
                        u.store == Store::Semantic
                            && u.id != *id
                            && u.entities.iter().any(|e| e == target)
                    }) {
                        let text = d.text(&other.path)?;
                        if let Some(new) = entity::remove_relations_to(&text, target) {
                            let why = format!("unlinked {id}, deleted");
                            d.change.write(&other.path, new.into_bytes(), action, why);
                        }
                    }
                }
                Store::Procedural | Store::Vault => {
                    d.change.delete(&unit.path, action, summary.clone());
                }
                Store::Core => {}
            }
            d.decay.remove_entry(id);
        } else {
            let settings = &ws.settings().decay;
            let base = settings.base_explicit;
            mark_archived(
                &mut d.decay,
                id,
                unit.store,
                base,
                now,
                &stamp,
                &opts.actor,
                &removed,
                settings,
                None,
            );
        }
        d.decay_changed = true;
        report.forgotten.push(Forgotten {
            id: id.clone(),
            store: unit.store,
            path: unit.path.clone(),
        });
    }
    if !d.decay_changed {
        return Ok(report);
    }
    // Past `REGISTRY_MAX` entity files the graph index counts them (it has no rows to take
    // out): a deleted file is one fewer.
    let deleted_entity =
        report.forgotten.iter().any(|f| f.store == Store::Semantic && !entity::is_bullet_id(&f.id));
    if opts.permanent
        && deleted_entity
        && ws
            .read_text_if_exists(layout::GRAPH_INDEX)?
            .as_deref()
            .and_then(cogmem_index::graph::summary_counts)
            .is_some()
    {
        crate::graph::regenerate_index_into(ws, &mut d.change)?;
    }
    let ids_text = report.forgotten.iter().map(|f| f.id.as_str()).collect::<Vec<_>>().join(", ");
    let verb = if opts.permanent { "deleted" } else { "archived" };
    d.change.write_decay(ws, &mut d.decay, action, &format!("{verb} {ids_text}"));
    let mut change = d.change.with_subject(
        action,
        format!("{} {ids_text}", if opts.permanent { "deleted" } else { "forgot" }),
    );
    if purging {
        change = change.for_purge();
    }
    let applied = change.apply(ws, &repo, lock, &FixedClock(now))?;
    report.commit = Some(applied.commit);
    report.files_for_index = Some(applied.files.clone());
    report.files = applied.files;
    Ok(report)
}

/// What `restore` did.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreReport {
    /// The commit.
    pub commit: String,
    /// The id restored.
    pub id: String,
    /// Files in the commit.
    pub files: Vec<String>,
}

/// Undoes a soft forget: puts back every line it took out and the previous decay state.
///
/// `given` is any form of the id `crate::id` accepts; the start of an id is looked for among
/// the forgotten memories first. Fails when the memory is not forgotten, or was deleted
/// permanently.
pub fn restore(
    ws: &Workspace,
    given: &str,
    actor: Actor,
    clock: &dyn Clock,
) -> crate::Result<RestoreReport> {
    let repo = git::open(ws.root())?;
    let lock = ws.lock()?;
    let now = clock.now();
    // The whole id of a forgotten memory: its own decay shard is all a restore reads (issue 20:
    // every shard before, a second or more at 100,000 memories).
    let own = DecayFile::load_for(ws, &[given])?;
    let whole = own.is_forgotten(given);
    let mut d = Draft {
        ws,
        change: Change::new(actor, "cogmem restore"),
        decay: if whole { own } else { load_decay(ws)? },
        decay_changed: true,
    };
    let id = if whole {
        given.to_owned()
    } else {
        let forgotten: Vec<String> =
            d.decay.keys().into_iter().filter(|k| d.decay.is_forgotten(k)).collect();
        let forgotten: Vec<&str> = forgotten.iter().map(String::as_str).collect();
        match crate::id::memory_among(given, &forgotten, Match::Prefix) {
            Some(found) => found?,
            // Not among the forgotten: a memory that is not forgotten, or a miss among them all.
            None => crate::id::memory(given, &units::list(ws), Some(&d.decay), Match::Prefix)?,
        }
    };
    let id = id.as_str();
    let removed =
        d.decay.archived_lines(id).ok_or_else(|| InputError::NotForgotten { id: id.to_owned() })?;
    let summary = format!("restored {id}");
    for r in &removed {
        let current = d.text(&r.file)?;
        d.change.write(
            &r.file,
            r.put_back(&current).into_bytes(),
            Action::Restore,
            summary.clone(),
        );
    }
    d.decay.unarchive(id);
    d.change.write_decay(ws, &mut d.decay, Action::Restore, &summary);
    let change = d.change.with_subject(Action::Restore, summary);
    let applied = change.apply(ws, &repo, &lock, &FixedClock(now))?;
    cogmem_index::index::update_after_commit_releasing(ws, lock, &applied.files);
    Ok(RestoreReport { commit: applied.commit, id: id.to_owned(), files: applied.files })
}

/// Marks a memory's decay entry archived (creating the entry first if it has none) with the
/// record `restore` reads: who, when, the earlier status and score, and what was taken out.
/// `store` is the memory's, for an entry made here. Shared by `forget`, a reflection's approved ARCHIVE and a correction that supersedes a fact
/// (`reason` says why when nobody asked for the archiving).
#[expect(clippy::too_many_arguments, reason = "one record, filled from its parts")]
pub(crate) fn mark_archived(
    decay: &mut DecayFile,
    id: &str,
    store: Store,
    base: f64,
    now: crate::Timestamp,
    stamp: &str,
    actor: &Actor,
    removed: &[RemovedLine],
    settings: &cogmem_store::settings::DecaySettings,
    reason: Option<&str>,
) {
    let created = !decay.has(id);
    if created {
        let new = NewUnit {
            store,
            base,
            created: now.with_timezone(&chrono::Utc),
            pinned: store == Store::Vault,
        };
        decay.insert_new(id, new, settings);
    }
    let record = ArchiveRecord { at: stamp, by: actor.as_str(), created, removed, reason };
    decay.archive(id, &record);
}
