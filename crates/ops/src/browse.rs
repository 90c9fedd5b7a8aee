//! What a person browsing memories asks for beyond the CLI's commands (the web view, issue 21):
//! a search filtered by band, one memory with its links and history, an entity with its past,
//! and a month of episodes by day. Read-only: nothing here records a use, writes a file or
//! commits — looking is not using.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::error::InputError;
use crate::search::{SearchFields, SearchReport};
use cogmem_store::store::units::{self, MemoryUnit, Units, Unreadable};
use cogmem_store::store::{Store, fsx};
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;

/// How many changes the memory page shows at most.
pub const HISTORY_LIMIT: usize = 50;

/// The bands a search can be filtered to (archived memories are never searched).
pub const BANDS: [&str; 3] = ["active", "fading", "dormant"];

/// Searches like [`crate::search::search`] with `fields`, keeping only hits in `band` (one of
/// [`BANDS`]) when given. A band filter looks through more candidates (up to 20 times the
/// limit) so that the hits it keeps are still the best of their band; `dormant` implies
/// `--all`, since only `--all` finds dormant memories.
///
/// Errors: those of [`SearchFields::to_options`] and of the search, or an unknown band.
pub fn search(
    ws: &Workspace,
    query: &str,
    fields: &SearchFields,
    band: Option<&str>,
    clock: &dyn Clock,
) -> crate::Result<SearchReport> {
    let mut opts = fields.to_options(&clock.now())?;
    let Some(band) = band else { return crate::search::search(ws, query, &opts, clock) };
    let band = band.trim().to_ascii_lowercase();
    if !BANDS.contains(&band.as_str()) {
        let expected = BANDS.join(", ");
        return Err(InputError::Unknown { what: "band", value: band, expected }.into());
    }
    let limit = opts.limit;
    opts.limit = limit.saturating_mul(20);
    opts.all |= band == "dormant";
    let mut report = crate::search::search(ws, query, &opts, clock)?;
    report.hits.retain(|h| h.status.as_str() == band);
    report.hits.truncate(limit);
    Ok(report)
}

/// Another memory, as a line in a list: what the memory and entity pages link to.
#[derive(Debug, Clone, Serialize)]
pub struct Mention {
    /// Its id.
    pub id: String,
    /// Its store.
    pub store: Store,
    /// Its kind.
    pub kind: String,
    /// Its date, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The start of its text on one line, without an entity file's metadata and headings (at
    /// most 160 characters).
    pub preview: String,
}

impl Mention {
    fn of(u: &MemoryUnit) -> Self {
        let one =
            cogmem_text::markdown::one_line(&cogmem_index::index::highlight::readable(&u.text));
        let mut preview: String = one.chars().take(160).collect();
        if preview.len() < one.len() {
            preview.push('…');
        }
        Self {
            id: u.id.clone(),
            store: u.store,
            kind: u.kind.clone(),
            date: u.date.clone(),
            preview,
        }
    }
}

/// The units of the files that the search index says hold units naming `entity`, read fresh
/// (so [`naming`] checks each against the file as it is); every unit when the index cannot
/// answer for the files as they are.
fn units_naming_entity(ws: &Workspace, entity: &str) -> Units {
    let files = cogmem_index::index::open_current(ws)
        .and_then(|index| cogmem_index::index::search::files_naming(&index, entity).ok());
    match files {
        Some(files) => units::of_files(ws, &files),
        None => units::list(ws),
    }
}

/// The memories that name entity `entity` (`TYPE--SLUG`), its own file left out, newest first.
fn naming(all: &Units, entity: &str) -> Vec<Mention> {
    let own = format!("entity:{entity}");
    let mut out: Vec<Mention> = all
        .units
        .iter()
        .filter(|u| u.id != own && u.entities.iter().any(|e| e == entity))
        .map(Mention::of)
        .collect();
    out.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    out
}

/// One memory as its page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryPage {
    /// The memory, its score and context: what `cogmem show --json` prints (no use recorded).
    pub shown: crate::decay::Shown,
    /// For an entity: its relations now, both directions.
    pub relations: Vec<crate::graph::Link>,
    /// The memories that link to it: for an entity, those that name it.
    pub linked_from: Vec<Mention>,
    /// The commits that changed it, newest first.
    pub history: crate::history::MemoryHistory,
}

/// Gathers a memory's page: the memory (any id form `crate::id` accepts), its relations and
/// the memories naming it when it is an entity, and its history from git.
///
/// Fails like [`crate::decay::look`] for an unknown or ambiguous id.
pub fn memory(ws: &Workspace, given: &str, clock: &dyn Clock) -> crate::Result<MemoryPage> {
    let shown = crate::decay::look(ws, given, clock)?;
    let (mut relations, mut linked_from) = (Vec::new(), Vec::new());
    if let Some(entity) = shown.unit.id.strip_prefix("entity:") {
        // A file the graph cannot read still has a page; it just shows no relations.
        relations = crate::graph::show(ws, entity, None).map(|s| s.links).unwrap_or_default();
        linked_from = naming(&units_naming_entity(ws, entity), entity);
    }
    let history = crate::history::memory(ws, &shown.unit, HISTORY_LIMIT)?;
    Ok(MemoryPage { shown, relations, linked_from, history })
}

/// An entity as its page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct EntityPage {
    /// The entity and its relations valid on `as_of` (or now): what `cogmem graph show
    /// --json` prints.
    pub shown: crate::graph::Shown,
    /// The day asked for (`YYYY-MM-DD`), when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    /// Every relation it ever had, closed ones included: `cogmem graph history`.
    pub history: Vec<crate::graph::Link>,
    /// The memories that name it, newest first.
    pub mentions: Vec<Mention>,
}

/// Gathers an entity's page. `as_of` is read like `graph show --as-of` (any date form; the
/// error names `as_of`).
///
/// Fails for an unknown entity or an unreadable date.
pub fn entity(
    ws: &Workspace,
    name: &str,
    as_of: Option<&str>,
    clock: &dyn Clock,
) -> crate::Result<EntityPage> {
    entity_in(ws, None, name, as_of, clock)
}

/// [`entity`] in the graph `g` already built from `ws` (the web view's kept graph), or, without
/// one, in the graph around the entity.
pub fn entity_in(
    ws: &Workspace,
    g: Option<&cogmem_index::graph::Graph>,
    name: &str,
    as_of: Option<&str>,
    clock: &dyn Clock,
) -> crate::Result<EntityPage> {
    let as_of = match as_of.map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => Some(crate::graph::parse_as_of("as_of", text, &clock.now())?),
        None => None,
    };
    let (shown, history) = match g {
        Some(g) => crate::graph::show_and_history_in(ws, g, name, as_of.as_deref())?,
        None => crate::graph::show_and_history(ws, name, as_of.as_deref())?,
    };
    let history = history.links;
    let mentions = naming(&units_naming_entity(ws, &shown.node.id), &shown.node.id);
    Ok(EntityPage { shown, as_of, history, mentions })
}

/// One day of the timeline.
#[derive(Debug, Clone, Serialize)]
pub struct Day {
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    /// Its episode entries, newest first.
    pub entries: Vec<MemoryUnit>,
}

/// A month of episodes, by day.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// The month shown, `YYYY-MM`.
    pub month: String,
    /// Its days with entries, newest first.
    pub days: Vec<Day>,
    /// The nearest later month with episodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newer: Option<String>,
    /// The nearest earlier month with episodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub older: Option<String>,
    /// Day files that could not be read, each naming the file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Unreadable>,
}

/// Tells whether `text` is a month as `YYYY-MM`.
fn is_month(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || c.is_ascii_digit())
        && (1..=12).contains(&text[5..].parse::<u32>().unwrap_or(0))
}

/// Reads a month of episodes: `month` as `YYYY-MM`, or by default the latest month that has
/// any (the clock's month when none has). Only that month's day files are read.
///
/// Fails when `month` is not `YYYY-MM`; a day file that cannot be read is reported in
/// `skipped`, not fatal.
pub fn timeline(ws: &Workspace, month: Option<&str>, clock: &dyn Clock) -> crate::Result<Timeline> {
    let files = units::markdown_files(ws.root(), layout::EPISODES_DIR);
    let day_of = |rel: &str| {
        let stem = rel.rsplit('/').next()?.strip_suffix(".md")?;
        (stem.len() == 10 && is_month(&stem[..7])).then(|| stem.to_owned())
    };
    let days: Vec<(String, &String)> = files.iter().filter_map(|f| Some((day_of(f)?, f))).collect();
    let months: BTreeSet<&str> = days.iter().map(|(d, _)| &d[..7]).collect();
    let month = match month.map(str::trim).filter(|m| !m.is_empty()) {
        Some(m) if is_month(m) => m.to_owned(),
        Some(m) => return Err(InputError::Time { flag: "month", text: m.to_owned() }.into()),
        None => months
            .last()
            .map_or_else(|| clock.now().format("%Y-%m").to_string(), |m| (*m).to_owned()),
    };
    let mut out = Timeline {
        newer: months.iter().find(|m| **m > month.as_str()).map(|m| (*m).to_owned()),
        older: months.iter().rev().find(|m| **m < month.as_str()).map(|m| (*m).to_owned()),
        month,
        days: Vec::new(),
        skipped: Vec::new(),
    };
    for (day, rel) in days.iter().rev().filter(|(d, _)| d.starts_with(&out.month)) {
        match fsx::read_text(&ws.abs(rel), ws.file_limit()) {
            Ok(text) => {
                let mut entries = units::file_units(rel, &text);
                entries.reverse();
                out.days.push(Day { date: day.clone(), entries });
            }
            Err(e) => out.skipped.push(Unreadable { path: (*rel).clone(), error: e.to_string() }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_months() {
        let cases = [
            ("2026-02", true),
            ("2026-12", true),
            ("2026-13", false),
            ("2026-00", false),
            ("2026-2", false),
            ("2026/02", false),
            ("２０２６-02", false),
            ("", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_month(text), want, "text: {text:?}");
        }
    }
}
