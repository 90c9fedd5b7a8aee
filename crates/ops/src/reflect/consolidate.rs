//! The operations that change memory when a reflection is approved (issue 19): EXTRACT writes a
//! fact, a step, a core bullet or an episode entry; CONNECT writes a relation and its inverse;
//! REWRITE replaces a core bullet or an entity fact. Each goes through the writers `remember`
//! uses ([`crate::remember::Writer`]) or the format's own function, into the one change of the
//! approval, so a reflection writes memory exactly as `remember` would.
//!
//! Invariant: MEMORY.md stays within its token budget. An approval that would take it over is
//! refused as a whole ([`RuleError::ReflectCoreBudget`]), naming the lowest-scored unpinned
//! bullets to archive.

use cogmem_store::audit::{Action, Actor};
use cogmem_store::change::Change;
use cogmem_store::store::core_memory::{self, Added};
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::entity;
use cogmem_store::store::episode::EntryType;
use cogmem_store::store::units;
use cogmem_store::store::{Confidence, Store};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Timestamp;
use cogmem_text::tokens;

use super::Applied;
use super::target::Resolved;
use crate::error::{InputError, RuleError};
use crate::remember::{RememberRequest, Writer};

/// An approval's writes so far: the writers (holding the one change) and the decay state.
pub(super) struct Consolidation<'a> {
    ws: &'a Workspace,
    /// The writers, holding the change.
    pub(super) w: Writer<'a>,
    /// decay-scores.json as the change leaves it.
    pub(super) decay: DecayFile,
    /// `reflection:r-NNN`.
    actor: Actor,
    n: u32,
    now: Timestamp,
    date: String,
}

impl<'a> Consolidation<'a> {
    /// Starts writing reflection `n`'s operations into `change` at `now`.
    pub(super) fn new(
        ws: &'a Workspace,
        change: Change,
        decay: DecayFile,
        n: u32,
        now: Timestamp,
    ) -> crate::Result<Self> {
        let date = now.format("%Y-%m-%d").to_string();
        let actor = super::apply::actor_of(n)?;
        Ok(Self { ws, w: Writer::new(ws, change, date.clone(), None), decay, actor, n, now, date })
    }

    /// A `remember` request for CONTENT, by the reflection.
    fn request(&self, content: &str) -> crate::Result<RememberRequest> {
        let mut req = RememberRequest::new(content, self.actor.clone())?;
        req.trigger = format!("cogmem reflect approve (reflection #{})", self.n);
        Ok(req)
    }

    /// Sets `a`'s outcome from what the writers did since they held `written` and
    /// `duplicates` units: `already remembered` when they found it all present, else `applied`
    /// (with the unit written last, or `id`: a unit written to again is listed once).
    fn outcome(&self, a: &mut Applied, written: usize, duplicates: usize, id: Option<String>) {
        let new = self.w.written.get(written..).and_then(<[_]>::last);
        match (new, self.w.duplicates.get(duplicates..).and_then(<[_]>::last)) {
            (None, Some(dup)) => {
                a.outcome = "already remembered".into();
                a.id = Some(dup.id.clone());
            }
            (new, _) => {
                a.outcome = "applied".into();
                a.id = new.map(|u| u.id.clone()).or(id);
            }
        }
    }

    /// EXTRACT: CONTENT becomes a fact of the entity, steps of the procedure, a bullet of
    /// MEMORY.md or an entry of today's episode log, as `remember` writes them.
    pub(super) fn extract(
        &mut self,
        resolved: &Resolved,
        content: &str,
        a: &mut Applied,
    ) -> crate::Result<()> {
        let mut req = self.request(content)?;
        let (written, duplicates) = (self.w.written.len(), self.w.duplicates.len());
        match resolved {
            Resolved::Entity(id) => {
                req.entities = vec![id.clone()];
                self.w.semantic(&req)?;
            }
            Resolved::Procedure(slug) => {
                // The title of a new procedure: its slug in words (`deploy-site` → `deploy site`),
                // which slugifies back to the slug, so an existing file is found.
                req.title = Some(slug.replace('-', " "));
                self.w.procedure(&req, &self.now)?;
            }
            Resolved::Core(section) => {
                req.section = Some(*section);
                if let Err(e) = self.w.core(&req) {
                    return Err(match e {
                        crate::Error::Store(cogmem_store::Error::Rule(RuleError::CoreBudget {
                            ..
                        })) => {
                            let text = self.w.current(layout::MEMORY_MD)?.unwrap_or_default();
                            match core_memory::add_bullet(&text, *section, &req.text) {
                                Added::Written { content, .. } => {
                                    self.over_budget(&content).map_or(e, Into::into)
                                }
                                Added::Duplicate { .. } => e,
                            }
                        }
                        e => e,
                    });
                }
            }
            Resolved::Episode => {
                req.entry_type = Some(EntryType::Fact);
                req.confidence = Some(Confidence::Medium);
                req.tags = vec!["reflection".to_owned()];
                self.w.episode(&req, &self.now)?;
            }
            _ => unreachable!("checked: an EXTRACT resolves to a store"),
        }
        let id = match resolved {
            Resolved::Entity(id) => Some(format!("entity:{id}")),
            Resolved::Procedure(slug) => Some(format!("procedure:{slug}")),
            _ => None,
        };
        self.outcome(a, written, duplicates, id);
        Ok(())
    }

    /// CONNECT: the relation and its inverse, as `remember --relation` writes them.
    pub(super) fn connect(&mut self, resolved: &Resolved, a: &mut Applied) -> crate::Result<()> {
        let Resolved::Relation(r) = resolved else {
            unreachable!("checked: a CONNECT resolves to a relation")
        };
        let (written, duplicates) = (self.w.written.len(), self.w.duplicates.len());
        self.w.relations(std::slice::from_ref(r))?;
        self.outcome(a, written, duplicates, Some(format!("entity:{}", r.from)));
        Ok(())
    }

    /// REWRITE: the core bullet or the entity fact gets CONTENT as its text. Returns the
    /// `old → new` line for the evolution log.
    pub(super) fn rewrite(
        &mut self,
        block: usize,
        resolved: &Resolved,
        content: &str,
        a: &mut Applied,
    ) -> crate::Result<Option<String>> {
        let new = crate::remember::check_text(content)?;
        let gone = |what: String| InputError::ReflectBlock {
            block,
            why: format!("{what}; an earlier block of this reflection changed it"),
        };
        let n = self.n;
        match resolved {
            Resolved::CoreBullet(id) => {
                let rel = layout::MEMORY_MD;
                let text = self.w.current(rel)?.unwrap_or_default();
                let unit = units::core_units(&text)
                    .into_iter()
                    .find(|u| u.id == *id)
                    .ok_or_else(|| gone(format!("{id} is no longer in MEMORY.md")))?;
                match core_memory::replace_bullet(&text, unit.line, &new) {
                    Some(Added::Written { content, line }) => {
                        let new_unit = units::core_units(&content)
                            .into_iter()
                            .find(|u| u.line == line)
                            .expect("the bullet was just written");
                        let change = format!("{} → {}", unit.text, new_unit.text);
                        self.w.change.write(
                            rel,
                            content.into_bytes(),
                            Action::Edit,
                            format!("reflection #{n} rewrites {id}: {change}"),
                        );
                        // The bullet keeps its history (score, uses, pin) under its new id.
                        if !self.decay.rename_entry(id, &new_unit.id) {
                            self.w.new_units.push((new_unit.id.clone(), Store::Core));
                        }
                        a.outcome = "applied".into();
                        a.id = Some(new_unit.id);
                        Ok(Some(change))
                    }
                    Some(Added::Duplicate { .. }) => {
                        a.outcome = "already remembered".into();
                        Ok(None)
                    }
                    None => Err(gone(format!("{id} is no longer a bullet")).into()),
                }
            }
            Resolved::Fact { entity: id, fact } => {
                let rel = layout::entity_file(id.as_str());
                let text = self.w.current(&rel)?.unwrap_or_default();
                match entity::replace_fact(&text, fact, &new, &self.date) {
                    Some(Added::Written { content, .. }) => {
                        let written = cogmem_store::store::markdown::list_item(&new);
                        let change = format!("{fact} → {written}");
                        self.w.change.write(
                            &rel,
                            content.into_bytes(),
                            Action::Edit,
                            format!("reflection #{n} rewrites a fact of {id}: {change}"),
                        );
                        let key = format!("entity:{id}");
                        self.w.new_units.push((key.clone(), Store::Semantic));
                        a.outcome = "applied".into();
                        a.id = Some(key);
                        Ok(Some(change))
                    }
                    Some(Added::Duplicate { .. }) => {
                        a.outcome = "already remembered".into();
                        Ok(None)
                    }
                    None => Err(gone(format!("{rel} no longer has the fact {fact:?}")).into()),
                }
            }
            _ => unreachable!("checked: a REWRITE resolves to a bullet or a fact"),
        }
    }

    /// Finishes the operations: decay entries for the new memories (scored as inferred), the
    /// graph index when an entity changed, and the budget of MEMORY.md.
    pub(super) fn finish(&mut self) -> crate::Result<()> {
        let settings = &self.ws.settings().decay;
        crate::remember::settle_units(
            &mut self.decay,
            &self.w.new_units,
            settings.base_inferred,
            self.now,
            settings,
        );
        if self.w.graph_changed {
            crate::graph::regenerate_index_with(self.ws, &mut self.w.change, &self.decay)?;
        }
        if let Some(text) = self.w.change.pending(layout::MEMORY_MD) {
            let text = String::from_utf8_lossy(text).into_owned();
            if let Some(e) = self.over_budget(&text) {
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// The refusal for MEMORY.md reading `text`, when that is over its budget: it names the
    /// lowest-scored unpinned bullets whose removal brings it back within, among those MEMORY.md
    /// holds now (a bullet this reflection writes or rewrites has no id to forget yet, and
    /// archiving it would undo the block), or none when archiving all of them is not enough.
    fn over_budget(&self, text: &str) -> Option<RuleError> {
        let budget = self.ws.settings().core.budget_tokens;
        let total = tokens::estimate(text);
        if total <= budget {
            return None;
        }
        let now: std::collections::HashSet<String> =
            units::core_units(&self.ws.read_text(layout::MEMORY_MD).unwrap_or_default())
                .into_iter()
                .map(|u| u.id)
                .collect();
        let mut bullets: Vec<(f64, units::MemoryUnit)> = units::core_units(text)
            .into_iter()
            .filter(|u| now.contains(&u.id) && !self.decay.is_pinned(&u.id))
            .map(|u| (super::bundle::score(Some(&self.decay), &u.id, self.now, self.ws), u))
            .collect();
        bullets.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.line.cmp(&b.1.line)));
        let size = |u: &units::MemoryUnit| tokens::estimate(&format!("- {}\n", u.text));
        let archivable: usize = bullets.iter().map(|(_, u)| size(u)).sum();
        let mut freed = 0;
        let mut archive = Vec::new();
        // Name bullets only when archiving them is enough; otherwise no archive helps.
        if total.saturating_sub(archivable) <= budget {
            for (_, u) in &bullets {
                if total.saturating_sub(freed) <= budget {
                    break;
                }
                freed += size(u);
                archive.push(format!("{} {:?}", u.id, u.text));
            }
        }
        let first = if archive.is_empty() {
            String::new()
        } else {
            bullets.first().map(|(_, u)| u.id.clone()).unwrap_or_default()
        };
        Some(RuleError::ReflectCoreBudget {
            path: self.ws.abs(layout::MEMORY_MD),
            tokens: total,
            budget,
            archive,
            first,
            archivable,
        })
    }
}
