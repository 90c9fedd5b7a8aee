//! Forgetting one bullet of an entity: a fact of its `## Facts` or a line of its `## Relations`,
//! by the id [`entity::bullet_id`] gives it (`entity:TYPE--SLUG:facts:HASH8`), rather than the
//! whole entity with everything it holds.
//!
//! A soft forget takes the line out of the entity file (and a relation's row out of the graph
//! index) and records it in the bullet's decay entry, made for the archiving, so `restore` puts
//! back exactly what was there and drops the entry. `permanent` takes the line out and keeps no
//! entry. A bullet of a pinned entity is pinned with it (`force` to forget it).

use std::collections::BTreeSet;

use cogmem_store::audit::Action;
use cogmem_store::store::Store;
use cogmem_store::store::decay_file::{DecayFile, RemovedLine};
use cogmem_store::store::entity::{self, Bullet, BulletSection, EntityId};
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::id::{self, Space};

use super::{Candidate, Draft, ForgetOptions, ForgetReport, Forgotten, excerpt};
use crate::error::RuleError;
use crate::id::Match;

/// The most bullets of one entity a forget query lists.
const PER_ENTITY: usize = 3;

/// The bullet `given` names among the bullets of its entity's file `text`: its whole id and
/// every line that has it (a bullet written twice). `Ok(None)` when none has it; an error when
/// the start of an id (allowed with [`Match::Prefix`]) starts several.
fn resolve(
    given: &str,
    entity: &EntityId,
    text: &str,
    how: Match,
) -> crate::Result<Option<(String, Vec<Bullet>)>> {
    let given = given.trim();
    let all = entity::bullets(entity, text);
    let ids: BTreeSet<&str> = all.iter().map(|b| b.id.as_str()).collect();
    let id = if ids.contains(given) {
        given.to_owned()
    } else if how == Match::Prefix {
        let starting: Vec<String> =
            ids.iter().filter(|i| i.starts_with(given)).map(|i| (*i).to_owned()).collect();
        match starting.as_slice() {
            [] => return Ok(None),
            [one] => one.clone(),
            several => return Err(id::ambiguous(given, Space::Memory, several).into()),
        }
    } else {
        return Ok(None);
    };
    let lines = all.into_iter().filter(|b| b.id == id).collect();
    Ok(Some((id, lines)))
}

/// The error for a bullet id that no bullet of its entity has: the nearest of the entity's
/// bullet ids (and its own id) in the hint.
fn missing(given: &str, entity: &EntityId, text: &str) -> crate::Error {
    let mut known: Vec<String> = entity::bullets(entity, text).into_iter().map(|b| b.id).collect();
    known.push(format!("entity:{entity}"));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    id::missing(given, Space::Memory, &known).into()
}

/// Whether the entity of `entity` is pinned: its bullets are then pinned with it.
fn is_pinned(decay: &DecayFile, entity: &EntityId) -> bool {
    decay.is_pinned(&format!("entity:{entity}"))
}

/// The decay keys a forget of the bullet id `given` reads: its own and its entity's (a pin).
pub(super) fn decay_keys(given: &str) -> Vec<String> {
    match entity::parse_bullet_id(given) {
        Some((e, ..)) => vec![given.trim().to_owned(), format!("entity:{e}")],
        None => vec![given.to_owned()],
    }
}

/// Whether `given` is a whole bullet id, not the start of one.
pub(super) fn is_whole(given: &str) -> bool {
    entity::parse_bullet_id(given).is_some_and(|(_, _, hash)| hash.len() == 8)
}

/// Describes the bullet `given` names, as a candidate (for a dry run and the question before
/// forgetting); a forgotten one by its decay entry.
pub(super) fn describe(
    ws: &Workspace,
    given: &str,
    decay: &DecayFile,
    how: Match,
) -> crate::Result<Candidate> {
    let (entity, ..) = entity::parse_bullet_id(given).expect("the caller checked the form");
    let path = layout::entity_file(entity.as_str());
    let text = ws.read_text_if_exists(&path)?.unwrap_or_default();
    match resolve(given, &entity, &text, how)? {
        Some((id, lines)) => Ok(Candidate {
            id,
            store: Store::Semantic,
            path,
            line: lines[0].line,
            excerpt: excerpt(&lines[0].text, &[]),
            score: 1.0,
            pinned: is_pinned(decay, &entity),
        }),
        None if decay.is_forgotten(given.trim()) => Ok(Candidate {
            id: given.trim().to_owned(),
            store: Store::Semantic,
            path,
            line: 0,
            excerpt: "(forgotten: its text is kept in its decay entry)".to_owned(),
            score: 1.0,
            pinned: false,
        }),
        None => Err(missing(given, &entity, &text)),
    }
}

/// Forgets the bullet `given` names into the draft `d`: its line (every line, when it was
/// written twice) out of the entity file, a relation's edge row out of the graph index, and
/// the bullet's decay entry archived with them (removed with `permanent`). A bullet forgotten
/// before is reported so, or with `permanent` has its entry removed.
pub(super) fn forget(
    d: &mut Draft,
    given: &str,
    opts: &ForgetOptions,
    report: &mut ForgetReport,
    now: crate::Timestamp,
    stamp: &str,
) -> crate::Result<()> {
    let (entity, section, _) = entity::parse_bullet_id(given).expect("the caller checked the form");
    let path = layout::entity_file(entity.as_str());
    let text = d.text(&path)?;
    let how = if opts.permanent { Match::Exact } else { Match::Prefix };
    let Some((id, lines)) = resolve(given, &entity, &text, how)? else {
        let given = given.trim();
        if !d.decay.is_forgotten(given) {
            return Err(missing(given, &entity, &text));
        }
        if opts.permanent {
            d.decay.remove_entry(given);
            d.decay_changed = true;
            report.forgotten.push(Forgotten { id: given.to_owned(), store: Store::Semantic, path });
        } else {
            report.already_forgotten.push(given.to_owned());
        }
        return Ok(());
    };
    if is_pinned(&d.decay, &entity) && !opts.force {
        return Err(RuleError::Pinned { id }.into());
    }
    let action = if opts.permanent { Action::Delete } else { Action::Archive };
    let summary = format!("{} {id}", if opts.permanent { "deleted" } else { "forgot" });
    let at: BTreeSet<usize> = lines.iter().map(|b| b.line).collect();
    let (new, mut removed) = RemovedLine::take(&path, &text, |n, _| at.contains(&n));
    d.change.write(&path, new.into_bytes(), action, summary.clone());
    if section == BulletSection::Relations {
        let rows: Vec<String> = entity::relations(&text)
            .iter()
            .filter(|r| at.contains(&r.line))
            .map(|r| cogmem_index::graph::edge_row_of(entity.as_str(), r))
            .collect();
        let index = d.text(layout::GRAPH_INDEX)?;
        let (new, taken) =
            RemovedLine::take(layout::GRAPH_INDEX, &index, |_, l| rows.iter().any(|r| r == l));
        if !taken.is_empty() {
            removed.extend(taken);
            d.change.write(layout::GRAPH_INDEX, new.into_bytes(), action, summary);
        }
    }
    // A bullet forgotten before and written again since: the old record goes with this one.
    d.decay.unarchive(&id);
    if opts.permanent {
        d.decay.remove_entry(&id);
    } else {
        let settings = &d.ws.settings().decay;
        super::mark_archived(
            &mut d.decay,
            &id,
            Store::Semantic,
            settings.base_explicit,
            now,
            stamp,
            &opts.actor,
            &removed,
            settings,
            None,
        );
    }
    d.decay_changed = true;
    report.forgotten.push(Forgotten { id, store: Store::Semantic, path });
    Ok(())
}

/// `found` (the memories a forget query matched, best first) with the bullets of each entity
/// among them that hold the query's words, each as a candidate of its own: a request about one
/// fact ("forget that my work email is …") names that fact's id, not only the whole entity. A
/// query made only of the entity's names or the words of its id ("forget Bob") lists none. A bullet scores the share
/// of the words found in it and its entity's id, and goes before its entity when it scores as
/// much (it is the closer match); at most [`PER_ENTITY`] of an entity's, `limit` in all.
pub(super) fn with_bullets(
    ws: &Workspace,
    found: Vec<Candidate>,
    terms: &[String],
    limit: usize,
) -> crate::Result<Vec<Candidate>> {
    let mut out: Vec<Candidate> = Vec::with_capacity(found.len());
    for c in found {
        let entity = c.id.strip_prefix("entity:").and_then(|e| EntityId::parse(e).ok());
        let Some(entity) = entity.filter(|_| c.store == Store::Semantic && !terms.is_empty())
        else {
            out.push(c);
            continue;
        };
        let Some(text) = ws.read_text_if_exists(&c.path)? else {
            out.push(c);
            continue;
        };
        // The entity's names and the words of its id ("forget entity:person--bob" is Bob).
        let mut names: BTreeSet<String> =
            entity::names(&entity, &text).iter().flat_map(|n| units::terms(n)).collect();
        names.extend(units::terms(&c.id.replace(['-', ':'], " ")));
        let asked: Vec<String> = terms.iter().filter(|t| !names.contains(*t)).cloned().collect();
        if asked.is_empty() {
            out.push(c);
            continue;
        }
        let mut bullets: Vec<Candidate> = entity::bullets(&entity, &text)
            .into_iter()
            .filter(|b| units::score_text(&asked, "", &b.text) > 0.0)
            .map(|b| Candidate {
                score: units::score_text(terms, &c.id, &b.text),
                excerpt: excerpt(&b.text, terms),
                id: b.id,
                store: Store::Semantic,
                path: c.path.clone(),
                line: b.line,
                pinned: c.pinned,
            })
            .filter(|b| b.score >= 0.5)
            .collect();
        let mut seen = BTreeSet::new();
        bullets.retain(|b| seen.insert(b.id.clone()));
        bullets.sort_by(|a, b| b.score.total_cmp(&a.score));
        bullets.truncate(PER_ENTITY);
        let (before, after): (Vec<Candidate>, Vec<Candidate>) =
            bullets.into_iter().partition(|b| b.score >= c.score);
        out.extend(before);
        out.push(c);
        out.extend(after);
    }
    // Stable: a bullet stays before its entity at the same score.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(limit);
    Ok(out)
}

/// The candidate a forget query clearly means, when there is one: the first, if no other
/// scores as much, its own entity aside when it is a bullet (the bullet is the closer match).
pub fn clear_best(candidates: &[Candidate]) -> Option<&Candidate> {
    let first = candidates.first()?;
    let own = entity::parse_bullet_id(&first.id).map(|(e, ..)| format!("entity:{e}"));
    let rival = candidates[1..].iter().find(|c| own.as_deref() != Some(c.id.as_str()));
    match rival {
        Some(r) if r.score >= first.score => None,
        _ => Some(first),
    }
}
