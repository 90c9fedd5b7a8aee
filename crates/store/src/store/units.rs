//! Every memory unit of a workspace (design.md §6): each MEMORY.md bullet, episode entry,
//! entity, procedure and vault note, with its id, file and line. Read-only; a file that cannot
//! be read is reported and skipped.

use std::path::Path;

use serde::Serialize;

use super::core_memory::{self, CoreSection};
use super::markdown::{self, one_line};
use super::{Store, episode, fsx};
use crate::workspace::ReadRoot;

/// One memory unit.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryUnit {
    /// Its decay id, e.g. `entity:person--alice`.
    pub id: String,
    /// Its store.
    pub store: Store,
    /// Its file, relative to the workspace root.
    pub path: String,
    /// The 1-based line where it starts.
    pub line: usize,
    /// Its text (for files: the whole body).
    pub text: String,
    /// Its date (`YYYY-MM-DD`): the episode's day, or the file's `Created:`/`Learned:` date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Its kind: the episode type, the entity type, `procedure`, `vault`, or the core section.
    pub kind: String,
    /// Its tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Entities it names (for an entity: itself and its relation targets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entities: Vec<String>,
    /// Where it came from (imported entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// An entity's status when it is not `active` (`superseded`, `inactive`, `merged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A file left out because it could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    /// The file, relative to the workspace root.
    pub path: String,
    /// What is wrong, naming the file.
    pub error: String,
}

/// All units, and the files that could not be read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Units {
    /// The units, in store order.
    pub units: Vec<MemoryUnit>,
    /// Unreadable files.
    pub skipped: Vec<Unreadable>,
}

impl Units {
    /// Finds a unit by id.
    pub fn get(&self, id: &str) -> Option<&MemoryUnit> {
        self.units.iter().find(|u| u.id == id)
    }
}

/// Lists the units of a workspace (or of the workspace folder `root`, with the default file
/// size limit).
pub fn list(from: &(impl ReadRoot + ?Sized)) -> Units {
    list_where(from, |_, _| true)
}

/// The units of every memory file for which `keep` (path, text) holds, read as [`list`] reads
/// them: an unreadable file, or a link among a store's files, is listed as skipped.
fn list_where(from: &(impl ReadRoot + ?Sized), keep: impl Fn(&str, &str) -> bool) -> Units {
    let root = from.root();
    let mut out = Units::default();
    for rel in memory_files(root) {
        match fsx::read_text(&root.join(&rel), from.file_limit()) {
            Ok(text) if keep(&rel, &text) => out.units.extend(file_units(&rel, &text)),
            Ok(_) => {}
            Err(e) => out.skipped.push(Unreadable { path: rel.clone(), error: e.to_string() }),
        }
    }
    for (dir, _, _) in DIRS {
        out.skipped.extend(linked_files(root, dir).iter().map(|rel| skipped_link(rel)));
    }
    out
}

/// The units of the memory files that could hold one of `words` (lower-case [`terms`]), read as
/// [`list`] reads them: every file whose lower-cased text or path holds one of the words as a
/// piece of text. A term is a piece of the lower-cased text (or of the unit's id, which the
/// path and the text spell out), so every unit that [`score`] finds a word in is among them, and
/// a file that holds none of the words is never parsed (issue 20: a forget by words parsed
/// every memory file). `None` when a word could come from an id alone (a store's kind, a number,
/// a core bullet's hash): the caller reads every unit then.
pub fn list_holding(from: &(impl ReadRoot + ?Sized), words: &[String]) -> Option<Units> {
    if words.iter().any(|w| only_in_ids(w)) {
        return None;
    }
    Some(list_where(from, |rel, text| {
        let (hay, path) = (lower(text), lower(rel));
        words.iter().any(|w| hay.contains(w.as_str()) || path.contains(w.as_str()))
    }))
}

/// Whether a lower-case [`terms`] word could come from a unit's id and from nothing else its
/// file spells out: a store's kind, a number (an episode's time), an 8-hex hash (a core
/// bullet's). Every other word of an id is a word of its file's path.
pub fn only_in_ids(word: &str) -> bool {
    const ID_ONLY: [&str; 5] = ["episode", "entity", "procedure", "vault", "core"];
    ID_ONLY.contains(&word)
        || word.chars().all(|c| c.is_ascii_digit())
        || word.len() == 8 && word.chars().all(|c| c.is_ascii_hexdigit())
}

/// The memory files whose lower-cased path holds one of `words` as a piece of text: with a
/// search of the files' texts for the other words, where every unit whose id holds a word
/// is (the words [`only_in_ids`] aside). Lists the store folders, reads no file.
pub fn paths_holding(root: &Path, words: &[String]) -> Vec<String> {
    memory_files(root)
        .into_iter()
        .filter(|rel| {
            let path = lower(rel);
            words.iter().any(|w| path.contains(w.as_str()))
        })
        .collect()
}

fn lower(s: &str) -> String {
    if s.is_ascii() { s.to_ascii_lowercase() } else { s.to_lowercase() }
}

/// The units of the given memory files (each read as [`of_file`] reads it), in that order.
pub fn of_files(from: &(impl ReadRoot + ?Sized), rels: &[String]) -> Units {
    Units { units: rels.iter().flat_map(|rel| of_file(from, rel)).collect(), skipped: Vec::new() }
}

/// The units of the one memory file `rel` (MEMORY.md or a store's `*.md`), read as [`list`]
/// reads it: a link, a missing or an unreadable file has none. For readers that need a few
/// files of a large workspace (issue 20), with [`file_of`] to find an id's file.
pub fn of_file(from: &(impl ReadRoot + ?Sized), rel: &str) -> Vec<MemoryUnit> {
    let abs = from.root().join(rel);
    if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file()) {
        return Vec::new();
    }
    match fsx::read_text(&abs, from.file_limit()) {
        Ok(text) => file_units(rel, &text),
        Err(_) => Vec::new(),
    }
}

/// The symbolic links among a store folder's `*.md` entries, sorted, or the folder itself when
/// it is a link leading out of the workspace. Links are never read as memory files (see
/// [`markdown_files`]), so every reader that lists files reports them as skipped
/// ([`skipped_link`]) rather than leave them out silently.
pub fn linked_files(root: &Path, dir: &str) -> Vec<String> {
    let abs = root.join(dir);
    if !abs.is_dir() {
        return Vec::new();
    }
    if fsx::check_inside(&abs, "read").is_err() {
        return vec![dir.to_owned()];
    }
    md_entries(&abs, dir, std::fs::FileType::is_symlink)
}

/// The `*.md` entries directly in folder `abs` (`dir` relative to the root) whose file type
/// (not followed) passes `keep`, sorted, as relative paths.
fn md_entries(abs: &Path, dir: &str, keep: fn(&std::fs::FileType) -> bool) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(abs)
        .follow_links(false)
        .min_depth(1)
        .max_depth(1)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| keep(&e.file_type()))
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            name.ends_with(".md").then(|| format!("{dir}/{name}"))
        })
        .collect();
    out.sort();
    out
}

/// Why a symbolic link in a store folder is not read (see [`skipped_link`]).
pub const LINK_SKIPPED: &str = "a symbolic link; memory files are read only as plain files in \
                                the workspace (replace the link with the file it leads to)";

/// The report of a memory file (or store folder) left out because it is a symbolic link.
pub fn skipped_link(rel: &str) -> Unreadable {
    Unreadable { path: rel.to_owned(), error: format!("{rel}: {LINK_SKIPPED}") }
}

/// The folders that hold memory units, with their store and id prefix.
/// The folders that hold memory files, with their store and unit kind.
pub const DIRS: [(&str, Store, &str); 4] = [
    ("memory/episodes", Store::Episodic, "episode"),
    ("memory/graph/entities", Store::Semantic, "entity"),
    ("memory/procedures", Store::Procedural, "procedure"),
    ("memory/vault", Store::Vault, "vault"),
];

/// The file that holds the unit `id` by the form of the id alone (`episode:DAY:…` → the day's
/// episode file, `entity:SLUG` → the entity's file, `core:…` → MEMORY.md), or `None` when the id
/// has no such form or names no plain file name. Whether the unit is there is for the caller
/// to read.
pub fn file_of(id: &str) -> Option<String> {
    let (kind, rest) = id.split_once(':')?;
    if kind == "core" {
        return Some("MEMORY.md".to_owned());
    }
    let (dir, _, _) = DIRS.iter().find(|(_, _, k)| *k == kind)?;
    let stem = if kind == "episode" { rest.split(':').next()? } else { rest };
    let plain = !stem.is_empty()
        && !stem.starts_with('.')
        && !stem.contains(['/', '\\', '\0', '\n', '\r', '\t']);
    plain.then(|| format!("{dir}/{stem}.md"))
}

/// Every file that holds memory units: MEMORY.md, then each store's `*.md` files, sorted.
pub(crate) fn memory_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if root.join("MEMORY.md").is_file() {
        out.push("MEMORY.md".to_owned());
    }
    for (dir, _, _) in DIRS {
        out.extend(markdown_files(root, dir));
    }
    out
}

/// The units in one file, given its workspace-relative path and text.
pub fn file_units(rel: &str, text: &str) -> Vec<MemoryUnit> {
    if rel == "MEMORY.md" {
        return core_units(text);
    }
    let Some((dir, name)) = rel.rsplit_once('/') else { return Vec::new() };
    let Some((_, store, kind)) = DIRS.iter().find(|(d, _, _)| *d == dir) else { return Vec::new() };
    let stem = name.trim_end_matches(".md");
    if *store == Store::Episodic {
        episode_units(stem, rel, text)
    } else {
        vec![file_unit(kind, stem, *store, rel, text)]
    }
}

/// The bullets of MEMORY.md's four sections.
pub fn core_units(text: &str) -> Vec<MemoryUnit> {
    let titles = CoreSection::ALL.map(CoreSection::title);
    markdown::bullets_under(text, &titles)
        .into_iter()
        .map(|(t, line, bullet)| {
            let section = CoreSection::ALL[t];
            MemoryUnit {
                id: core_memory::unit_id(section, bullet),
                store: Store::Core,
                path: "MEMORY.md".into(),
                line,
                text: one_line(bullet),
                date: None,
                kind: section.slug().to_owned(),
                tags: Vec::new(),
                entities: wiki_links(bullet),
                source: None,
                status: None,
            }
        })
        .collect()
}

fn episode_units(date: &str, rel: &str, text: &str) -> Vec<MemoryUnit> {
    // Entries so far per minute: a map, so a day of N entries is read in linear time (a list
    // searched for each entry made a long day's import quadratic; issue 20).
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    episode::entries(text)
        .into_iter()
        .filter_map(|e| {
            let n = seen.entry(e.time.clone()).or_default();
            let id = episode::entry_id(date, &e.time, *n);
            *n += 1;
            if e.deleted {
                return None; // its heading still counts for the numbering above
            }
            let mut entities = wiki_links(&e.text);
            for x in e.entities {
                if !entities.contains(&x) {
                    entities.push(x);
                }
            }
            Some(MemoryUnit {
                id,
                store: Store::Episodic,
                path: rel.to_owned(),
                line: e.line,
                text: e.text,
                date: Some(date.to_owned()),
                kind: e.kind,
                tags: e.tags,
                entities,
                source: e.source,
                status: None,
            })
        })
        .collect()
}

/// A unit that is a whole file: an entity, a procedure or a vault note.
fn file_unit(kind: &str, stem: &str, store: Store, rel: &str, text: &str) -> MemoryUnit {
    let (prefix, yaml) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let mut entities = Vec::new();
    let unit_kind = if store == Store::Semantic {
        entities.push(stem.to_owned());
        stem.split_once("--").map_or("entity", |(t, _)| t).to_owned()
    } else {
        kind.to_owned()
    };
    for e in wiki_links(body) {
        if !entities.contains(&e) {
            entities.push(e);
        }
    }
    let date = comment_date(body);
    let mut tags: Vec<String> = Vec::new();
    for line in comment_lines(body, 4) {
        if let Some(i) = line.find("Tags:") {
            let t = line[i + 5..].split(['|']).next().unwrap_or("").trim_end_matches("-->");
            tags.extend(
                t.split(',').map(|x| x.trim().to_owned()).filter(|x| !x.is_empty() && x != "none"),
            );
        }
    }
    if let Some(yaml) = yaml {
        for line in yaml.lines() {
            if let Some(list) = line.strip_prefix("tags:") {
                tags.extend(
                    list.trim()
                        .trim_matches(['[', ']'])
                        .split(',')
                        .map(|x| x.trim().trim_matches(['"', '\'']).to_owned())
                        .filter(|x| !x.is_empty()),
                );
            }
        }
    }
    let status = (store == Store::Semantic)
        .then(|| crate::store::entity::status(text))
        .filter(|s| s != "active");
    MemoryUnit {
        id: format!("{kind}:{stem}"),
        store,
        path: rel.to_owned(),
        line: 1,
        text: body.to_owned(),
        date,
        kind: unit_kind,
        tags,
        entities,
        source: None,
        status,
    }
}

/// The comment lines (`<!-- … -->`) among the first `n` lines of a body: where a note's
/// fields are read from, so that its title or text cannot set them.
fn comment_lines(body: &str, n: usize) -> impl Iterator<Item = &str> {
    body.lines().take(n).filter(|l| l.trim_start().starts_with("<!--"))
}

/// The `Created:` (or `Learned:`) date of a file's comment lines.
fn comment_date(body: &str) -> Option<String> {
    comment_lines(body, 5).find_map(|l| {
        let i = l.find("Created:").map(|i| i + 8).or_else(|| l.find("Learned:").map(|i| i + 8))?;
        let d = l[i..].trim_start().get(..10)?;
        (d.as_bytes().get(4) == Some(&b'-')).then(|| d.to_owned())
    })
}

/// The `[[type--slug]]` links in a text.
pub fn wiki_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("]]") else { break };
        let target = after[..j].split('|').next().unwrap_or("").trim().to_owned();
        if target.contains("--") && !out.contains(&target) {
            out.push(target);
        }
        rest = &after[j + 2..];
    }
    out
}

/// Lists `*.md` files directly in a workspace folder, sorted, as relative paths.
pub fn markdown_files(root: &Path, dir: &str) -> Vec<String> {
    let abs = root.join(dir);
    // A store folder that is a link out of the workspace is not read (walkdir follows a
    // linked root even with `follow_links(false)`).
    if !abs.is_dir() || fsx::check_inside(&abs, "read").is_err() {
        return Vec::new();
    }
    md_entries(&abs, dir, std::fs::FileType::is_file)
}

/// A Markdown file's name without its folder and `.md` (`memory/graph/entities/person--ann.md` →
/// `person--ann`, an episode file → its day).
pub fn md_stem(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or("").trim_end_matches(".md")
}

/// Every Markdown file directly in `dir` (relative to the workspace root, as
/// [`markdown_files`] lists them) with its text, or the error that kept it from being read
/// (not UTF-8, over `limits.file_bytes`, gone). The folder is checked once for a link out of
/// the workspace; each file is opened without following links ([`fsx::read_listed`]). The one
/// reader of a whole store folder: the graph, the routing context and the graph index read
/// the ten thousand entity files of a large workspace through it.
pub fn read_markdown_files(
    from: &(impl ReadRoot + ?Sized),
    dir: &str,
) -> Vec<(String, crate::Result<String>)> {
    let root = from.root();
    markdown_files(root, dir)
        .into_iter()
        .map(|rel| {
            let abs = root.join(&rel);
            let text = fsx::read_listed(&abs, from.file_limit())
                .map_err(crate::Error::from)
                .and_then(|bytes| Ok(fsx::decode(&abs, bytes)?));
            (rel, text)
        })
        .collect()
}

/// Splits text into search terms: lower-case words of two or more characters that are not
/// [topic stop words](cogmem_text::stopword::Tier::Topic), and character pairs of Japanese or
/// Chinese runs.
pub fn terms(text: &str) -> Vec<String> {
    cogmem_text::word::segments(text)
        .into_iter()
        .map(|(from, to)| &text[from..to])
        .filter_map(|w| {
            if w.chars().any(cogmem_text::word::is_cjk) {
                return Some(w.to_owned());
            }
            let w = w.to_lowercase();
            let topic = !cogmem_text::stopword::is_english(&w, cogmem_text::stopword::Tier::Topic);
            (w.chars().count() >= 2 && topic).then_some(w)
        })
        .collect()
}

/// Scores how well a unit matches query terms: the share of terms it contains.
pub fn score(query_terms: &[String], unit: &MemoryUnit) -> f64 {
    score_text(query_terms, &unit.id, &unit.text)
}

/// [`score`] of the unit with this id and text: the share of the terms found among the words of
/// its id and of its text without HTML comments (the `Type:`/`Created:` lines, an imported
/// entry's source: what a search does not look at either).
pub fn score_text(query_terms: &[String], id: &str, text: &str) -> f64 {
    if query_terms.is_empty() {
        return 0.0;
    }
    // The words of the id and the text compared with the query's words one by one, as
    // [`terms`] would give them (a query word is a [`terms`] word: what `terms` leaves out of a
    // text is no query word), without building the text's list of words (a forget ranks
    // thousands of memories holding a common word).
    let (id, text) = (id.replace(['-', ':'], " "), markdown::without_comments(text));
    let mut found = vec![false; query_terms.len()];
    for hay in [id.as_str(), text.as_str()] {
        for (from, to) in cogmem_text::word::segments(hay) {
            let w = &hay[from..to];
            let word: std::borrow::Cow<str> = if w.chars().any(cogmem_text::word::is_cjk)
                || w.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase())
            {
                w.into()
            } else {
                w.to_lowercase().into()
            };
            for (i, t) in query_terms.iter().enumerate() {
                found[i] |= *t == word;
            }
        }
    }
    found.iter().filter(|f| **f).count() as f64 / query_terms.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A score computed word by word is the one its definition gives, for Latin, Greek,
    /// German, Japanese, the Kelvin sign and titlecase, in ids, headings and comments.
    #[test]
    fn a_score_is_the_share_of_query_words_among_the_words_of_the_id_and_text() {
        // The definition, spelled out: the query's words found among the `terms` of the id
        // (its `-` and `:` as spaces) and of the text without comments.
        let by_definition = |query: &[String], id: &str, text: &str| {
            let text = markdown::without_comments(text);
            let hay = terms(&format!("{} {text}", id.replace(['-', ':'], " ")));
            query.iter().filter(|t| hay.contains(t)).count() as f64 / query.len() as f64
        };
        let texts = [
            ("episode:2026-01-15:10:00", "The KILN in the garage; kilns fired"),
            ("entity:person--zoë-kelvin", "# Zoë\n<!-- Type: person | kiln -->\nΣΟΦΙΑ called"),
            ("procedure:kiln-firing-steps", "# Firing steps\n1. Load the shelves."),
            ("core:1a2b3c4d", "東京で会議。Straße and STRASSE, \u{212A}iln, ǅemal"),
        ];
        let queries = [
            "kiln",
            "kiln garage",
            "zoë kelvin person",
            "σοφια called",
            "東京 会議",
            "straße strasse",
            "ǆemal",
            "firing steps shelves missing",
            "episode 2026 10",
            "kiln kiln other",
        ];
        for q in queries {
            let query = terms(q);
            for (id, text) in texts {
                assert_eq!(
                    score_text(&query, id, text),
                    by_definition(&query, id, text),
                    "{q} / {id}"
                );
            }
        }
        assert_eq!(score_text(&terms("kiln"), "procedure:kiln-firing-steps", "x"), 1.0);
        assert_eq!(score_text(&terms("kiln"), "entity:zoë", "<!-- kiln -->"), 0.0);
        assert_eq!(score_text(&[], "entity:zoë", "kiln"), 0.0);
    }

    // See: issue 20
    /// Every unit a word is found in by [`score`] is among the units of the files
    /// [`list_holding`] reads, whatever the case, script or place of the word (text, heading,
    /// file name); words an id alone could hold send the caller to every unit.
    #[test]
    fn the_files_holding_a_word_hold_every_unit_it_is_found_in() {
        #![allow(clippy::disallowed_methods, reason = "the test lays out files directly")]
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            (
                "MEMORY.md",
                "# Memory\n\n## Active Context\n\n- Shipping ATLAS on Friday\n- Élodie runs the \u{212A}iln\n",
            ),
            (
                "memory/episodes/2026-12-01.md",
                "# 2026-12-01\n\n## 09:00 | fact | Harbour\n\nLunch with Priya at the HARBOUR; 会議は明日です\n\n## 10:30 | fact | Tides\n\nA book on tides, by Zoë\n",
            ),
            (
                "memory/graph/entities/person--priya-nair.md",
                "# person--priya-nair\n\nNames: Priya\n\n## Facts\n- likes tides\n",
            ),
            ("memory/procedures/deploy-release.md", "# Deploy release\n\n1. Tag it\n"),
            ("memory/vault/wifi-note.md", "# Wifi note\n\nThe router is in the attic\n"),
        ];
        for (rel, text) in files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let all = list(root);
        assert!(all.units.len() >= 6, "{:#?}", all.units);
        let queries = [
            "harbour",
            "ATLAS friday",
            "élodie",
            "ÉLODIE kiln",
            "kiln",
            "会議",
            "明日",
            "zoë",
            "ZOË",
            "priya nair",
            "nair",
            "deploy",
            "release tag",
            "attic",
            "wifi",
            "active context",
            "person",
            "fact tides",
            "nothing here at all",
        ];
        for q in queries {
            let words = terms(q);
            let some = list_holding(root, &words).unwrap_or_else(|| panic!("{q}: refused"));
            for u in all.units.iter().filter(|u| score(&words, u) > 0.0) {
                assert!(some.get(&u.id).is_some(), "{q:?}: {} missing", u.id);
            }
        }
        for q in ["episode", "entity harbour", "2026", "09", "7fc6c745", "core"] {
            assert!(list_holding(root, &terms(q)).is_none(), "{q}");
        }
        // A word no file holds reads no unit.
        assert!(list_holding(root, &terms("xylophone")).unwrap().units.is_empty());
    }

    #[test]
    fn an_id_names_its_file_and_a_hostile_one_names_none() {
        assert_eq!(
            file_of("episode:2026-12-01:09:00:2").as_deref(),
            Some("memory/episodes/2026-12-01.md")
        );
        assert_eq!(
            file_of("entity:person--ann").as_deref(),
            Some("memory/graph/entities/person--ann.md")
        );
        assert_eq!(file_of("procedure:deploy").as_deref(), Some("memory/procedures/deploy.md"));
        assert_eq!(file_of("vault:keys").as_deref(), Some("memory/vault/keys.md"));
        assert_eq!(file_of("core:identity:abcd1234").as_deref(), Some("MEMORY.md"));
        for hostile in [
            "entity:../../etc/passwd",
            "entity:",
            "vault:.hidden",
            "entity:a\nb",
            "episode::09:00",
            "note:x",
            "nothing",
        ] {
            assert_eq!(file_of(hostile), None, "{hostile:?}");
        }
        // Every unit of a file is found through its id's file.
        let text = "# 2026-12-01\n\n## 09:00 | event\nOne.\n\n## 09:00 | event\nTwo.\n";
        for u in file_units("memory/episodes/2026-12-01.md", text) {
            assert_eq!(
                file_of(&u.id).as_deref(),
                Some("memory/episodes/2026-12-01.md"),
                "{}",
                u.id
            );
        }
    }

    #[test]
    fn core_units_have_stable_ids_and_lines() {
        let md = "# M\n\n## Identity\n- Name: Sam\n\n## Active Context\n- Shipping v2\n";
        let u = core_units(md);
        assert_eq!(u.len(), 2);
        assert_eq!((u[0].line, u[1].line), (4, 7));
        assert!(u[1].id.starts_with("core:active-context:"));
    }

    #[test]
    fn terms_cover_words_and_cjk_pairs() {
        assert_eq!(terms("Alice's tea, 緑茶!"), ["alice", "tea", "緑茶"]);
        assert_eq!(terms("東京駅"), ["東京", "京駅"]);
    }
}
