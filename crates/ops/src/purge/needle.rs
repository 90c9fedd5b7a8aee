//! What a purge cuts out: a memory's text in every form cogmem's writers give it.
//!
//! The forms come from the writers' own functions, never from a copy of their rules: the text
//! as given and as [`paragraph`] writes it into an episode, [`one_line`] (core bullets, entity
//! facts), [`summary_form`] (audit summaries and commit subjects: one line, `|` turned into
//! `/`), each own line of the text in those forms, JSON-escaped forms (decay records keep
//! removed lines), the note's title and its [`slugify`]d file name, and summaries cut with `…`
//! by [`clean_summary`](cogmem_store::audit::clean_summary). A line another memory holds as a
//! line of its own that names the purged memory (a bullet `hear` wrote to every entity a message
//! names) is a copy and is cut there too. One that another memory holds without naming it (two
//! people who both like hiking) is that memory's own: it is cut only from lines that name the
//! purged memory (the audit line and commit subject that name its file). A line another memory
//! holds inside a longer line of its own, or that the built-in templates hold, is never cut;
//! names are cut only at word boundaries. So other memories keep their own text.

use std::collections::BTreeSet;

use cogmem_store::audit::summary_form;
use cogmem_store::store::markdown::{one_line, paragraph, slugify};
use cogmem_store::store::purged::{self, PurgeRecord, strip_marker};

/// What replaces the text in rewritten files and messages.
pub const MARKER: &str = "[purged]";

/// What replaces a purged name in a file name.
pub(crate) const NAME_MARKER: &str = "purged";

/// The shortest text that can be purged: shorter text would be cut out of unrelated files.
pub(crate) const MIN_TEXT_CHARS: usize = 6;

/// Shortest own line of a memory that is searched for on its own.
const MIN_LINE_CHARS: usize = 12;

/// Shortest prefix of the one-line text that counts as a cut summary (ending in `…`).
const MIN_PREFIX_CHARS: usize = 20;

/// Shortest title, and shortest slug, cut out on their own.
const MIN_NAME_CHARS: usize = 6;

/// The strings to cut out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needles {
    /// Cut anywhere, longest first.
    pub(crate) exact: Vec<String>,
    /// Cut where they stand as a whole name (file names, ids, links), longest first.
    pub(crate) names: Vec<String>,
    /// One-line forms whose prefixes ending in `…` are cut.
    pub(crate) cuts: Vec<String>,
    /// Lines another memory also holds as its own without naming this one: cut only from a
    /// line that holds one of `names`, longest first.
    pub(crate) scoped: Vec<String>,
    /// The tombstone's line hashes.
    pub(crate) hashes: Vec<String>,
}

/// The order needles are cut in: longest first, so a shorter one never cuts into a longer.
fn longest_first(a: &String, b: &String) -> std::cmp::Ordering {
    b.len().cmp(&a.len()).then(a.cmp(b))
}

fn add_forms(set: &mut BTreeSet<String>, s: &str) {
    for form in [s.to_owned(), one_line(s), summary_form(s), paragraph(s).trim_end().to_owned()] {
        if !form.is_empty() {
            set.insert(form);
        }
    }
}

/// What decides whether a line of the purged memory is cut: who it is (`owners`; `None` for a
/// purge by text, where every line another memory holds whole is a copy), the other memories'
/// texts and the lines never cut.
struct Lines<'a> {
    owners: Option<&'a [&'a str]>,
    others: &'a [&'a str],
    kept: &'a [&'a str],
}

impl Needles {
    /// Builds the needles for a memory's `texts` (the same memory as read and as its file
    /// holds it, and what its file held before); `slug` is its file's name part (vault,
    /// procedure, entity), `owners` the slugs that name it in text (an entity's slug and its
    /// former ones; `None` for a purge by text, which names the text itself), `others` the texts of every other memory, and `kept` text whose lines are
    /// never cut (the built-in templates). A line of the memory that another memory holds as a
    /// whole line naming one of `owners` is a copy and is cut; one held whole without naming
    /// it is cut only where a line names the memory (`scoped`); one held inside a longer line
    /// is that memory's own text and is not cut.
    pub fn new(
        texts: &[&str],
        slug: Option<&str>,
        owners: Option<&[&str]>,
        others: &[&str],
        kept: &[&str],
    ) -> Self {
        let mut set: BTreeSet<String> = BTreeSet::new();
        let mut scoped: BTreeSet<String> = BTreeSet::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut hashed: Vec<(String, bool)> = Vec::new();
        let mut cuts = Vec::new();
        let lines = Lines { owners, others, kept };
        for text in texts {
            let full = text.trim();
            if full.is_empty() {
                continue;
            }
            hashed.push((one_line(full), true));
            add_forms(&mut set, full);
            for form in [one_line(full), summary_form(full)] {
                if !cuts.contains(&form) {
                    cuts.push(form);
                }
            }
            lines.add(full, &mut set, &mut scoped, &mut names, &mut hashed);
        }
        if let Some(s) = slug.filter(|s| s.chars().count() >= MIN_NAME_CHARS) {
            names.insert(s.to_owned());
        }
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort_by(longest_first);
        let hashes = purged::hashes_of(hashed.iter().map(|(l, whole)| (l.as_str(), *whole)));
        // A line cut everywhere need not be cut where it is named too.
        scoped.retain(|s| !set.contains(s));
        Self { exact: with_json_forms(set), names, cuts, scoped: with_json_forms(scoped), hashes }
    }
}

impl Lines<'_> {
    /// Adds each own line of `full` (and each title, with its slug) in every form: to `set`,
    /// or to `scoped` when another memory holds it whole without naming this one.
    fn add(
        &self,
        full: &str,
        set: &mut BTreeSet<String>,
        scoped: &mut BTreeSet<String>,
        names: &mut BTreeSet<String>,
        hashed: &mut Vec<(String, bool)>,
    ) {
        for line in full.lines() {
            let bare = bare_line(line);
            if bare.starts_with("<!--") || bare.starts_with("---") || bare.is_empty() {
                continue;
            }
            if bare.starts_with('#') {
                let title = bare.trim_start_matches('#').trim();
                if title.chars().count() >= MIN_NAME_CHARS && !self.is_shared(title) {
                    add_forms(set, title);
                    let s = slugify(title);
                    if s.chars().count() >= MIN_NAME_CHARS {
                        names.insert(s);
                    }
                }
                continue;
            }
            if bare.chars().count() < MIN_LINE_CHARS || self.is_shared(bare) {
                continue;
            }
            // Another memory's own fact that reads the same (two people who both like hiking):
            // not a copy of this memory's, so no tombstone line either, which would keep the
            // other memory's text out of every later sync.
            if self.is_held_unnamed(bare) {
                add_forms(scoped, bare);
                continue;
            }
            add_forms(set, bare);
            hashed.push((bare.to_owned(), false));
        }
    }

    /// Tells whether a memory's line `l` is another memory's own text: held inside a longer
    /// line of it, or by the built-in templates.
    fn is_shared(&self, l: &str) -> bool {
        self.kept.iter().any(|k| k.contains(l))
            || self.others.iter().any(|o| o.lines().any(|ol| ol.contains(l) && bare_line(ol) != l))
    }

    /// Tells whether another memory holds `l` as a whole line of its own that does not name
    /// the memory: the same words, not a copy of them.
    fn is_held_unnamed(&self, l: &str) -> bool {
        let Some(owners) = self.owners else { return false };
        self.others.iter().any(|o| {
            o.lines().any(|ol| bare_line(ol) == l && !owners.iter().any(|w| names_words(ol, w)))
        })
    }
}

/// Each needle, and its JSON-escaped form where that differs, longest first.
fn with_json_forms(set: BTreeSet<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in set {
        if let Ok(json) = serde_json::to_string(&s) {
            let inner = json[1..json.len() - 1].to_owned();
            if inner != s {
                out.push(inner);
            }
        }
        out.push(s);
    }
    out.sort_by(longest_first);
    out.dedup();
    out
}

/// The words of `text`: lowercase runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Tells whether `line` names `slug`: its words stand in the line in order, side by side
/// (`Quentin Doeberg`, `person--quentin-doeberg.md`).
fn names_words(line: &str, slug: &str) -> bool {
    let want = words(slug);
    !want.is_empty() && words(line).windows(want.len()).any(|w| w == want.as_slice())
}

impl Needles {
    /// Adds strings to cut anywhere (forms a file format writes apart from the text), keeping
    /// the longest first.
    pub(crate) fn add_exact(&mut self, forms: impl IntoIterator<Item = String>) {
        self.exact.extend(forms.into_iter().filter(|f| !f.trim().is_empty()));
        self.exact.sort_by(longest_first);
        self.exact.dedup();
    }

    /// Adds names to cut where they stand whole (an entity's former ids, its slug as a tag),
    /// those long enough to be cut on their own, keeping the longest first.
    pub(crate) fn add_names(&mut self, names: impl IntoIterator<Item = String>) {
        self.names.extend(names.into_iter().filter(|n| n.chars().count() >= MIN_NAME_CHARS));
        self.names.sort_by(longest_first);
        self.names.dedup();
    }

    /// Tells whether `name` is one of the names cut (a tag naming a purged entity).
    pub(crate) fn is_name(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Tells whether `text` is nothing but the purged text: scrubbed, only markers are left.
    pub(crate) fn cuts_whole(&self, text: &str) -> bool {
        self.scrub(text).is_some_and(|left| left.replace(MARKER, "").trim().is_empty())
    }

    /// The needles a purge record kept.
    pub fn from_record(r: &PurgeRecord) -> Self {
        Self {
            exact: r.exact.clone(),
            names: r.names.clone(),
            cuts: r.cuts.clone(),
            scoped: r.scoped.clone(),
            hashes: r.hashes.clone(),
        }
    }

    /// Tells whether every form is shorter than a purge may cut.
    pub(crate) fn is_too_short(&self) -> bool {
        self.cuts.iter().all(|c| c.chars().count() < MIN_TEXT_CHARS)
    }

    /// Returns `text` with every needle cut out (replaced by [`MARKER`]), or `None` when it
    /// holds none.
    pub fn scrub(&self, text: &str) -> Option<String> {
        let mut out = text.to_owned();
        let mut changed = false;
        // Cut summaries first: they span more than any of the text's own lines, which would
        // otherwise be cut out of them first and leave the rest.
        for form in &self.cuts {
            if let Some(cut) = scrub_prefixes(&out, form) {
                out = cut;
                changed = true;
            }
        }
        changed |= self.replace_scoped(&mut out);
        changed |= self.replace_exact(&mut out, MARKER);
        changed |= self.replace_names(&mut out, MARKER);
        changed.then_some(out)
    }

    /// Replaces the `scoped` lines with [`MARKER`] in each line of `out` that names the memory
    /// (by one of `names`); whether any was there.
    fn replace_scoped(&self, out: &mut String) -> bool {
        if self.scoped.is_empty() || !self.scoped.iter().any(|s| out.contains(s.as_str())) {
            return false;
        }
        let mut changed = false;
        let mut new = String::with_capacity(out.len());
        for line in out.split_inclusive('\n') {
            let mut line = line.to_owned();
            if self.names.iter().any(|n| names_words(&line, n)) {
                for s in &self.scoped {
                    if line.contains(s.as_str()) {
                        line = line.replace(s.as_str(), MARKER);
                        changed = true;
                    }
                }
            }
            new.push_str(&line);
        }
        *out = new;
        changed
    }

    /// Returns a file name with any purged name in it replaced by `NAME_MARKER`, or `None`
    /// when it holds none.
    pub fn scrub_name(&self, name: &str) -> Option<String> {
        let mut out = name.to_owned();
        let mut changed = self.replace_names(&mut out, NAME_MARKER);
        changed |= self.replace_exact(&mut out, NAME_MARKER);
        changed.then_some(out)
    }

    /// Replaces every exact form of the text in `out` with `marker`; whether any was there.
    fn replace_exact(&self, out: &mut String, marker: &str) -> bool {
        let mut changed = false;
        for n in &self.exact {
            if out.contains(n.as_str()) {
                *out = out.replace(n.as_str(), marker);
                changed = true;
            }
        }
        changed
    }

    /// Replaces every purged name (title, slug) in `out` with `marker`; whether any was there.
    fn replace_names(&self, out: &mut String, marker: &str) -> bool {
        let mut changed = false;
        for n in &self.names {
            if let Some(cut) = replace_name(out, n, marker) {
                *out = cut;
                changed = true;
            }
        }
        changed
    }

    /// Tells whether `text` holds the memory.
    pub(crate) fn found_in(&self, text: &str) -> bool {
        self.scrub(text).is_some()
    }
}

/// A line as a memory's own line is compared: without indentation, a paragraph escape (`\\`) or
/// a list marker.
fn bare_line(line: &str) -> &str {
    strip_marker(line.trim().trim_start_matches('\\'))
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

/// Replaces `name` where it stands whole (no letter, digit, `-` or `_` on either side).
fn replace_name(text: &str, name: &str, with: &str) -> Option<String> {
    if name.is_empty() || !text.contains(name) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find(name) {
        let before = rest[..i].chars().next_back().or_else(|| out.chars().next_back());
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(is_name_char) || after.is_some_and(is_name_char) {
            out.push_str(name);
        } else {
            out.push_str(with);
            changed = true;
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Cuts prefixes of the one-line form `form` that end in `…` (cut summaries).
fn scrub_prefixes(text: &str, form: &str) -> Option<String> {
    let head: String = form.chars().take(MIN_PREFIX_CHARS).collect();
    if head.chars().count() < MIN_PREFIX_CHARS || !text.contains(head.as_str()) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find(head.as_str()) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        // How far the text agrees with the one-line form.
        let common: usize = tail
            .char_indices()
            .zip(form.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((j, c), _)| j + c.len_utf8());
        let after = &tail[common..];
        let after_trim = after.trim_start_matches(' ');
        if after_trim.starts_with('…') {
            out.push_str(MARKER);
            rest = &after_trim['…'.len_utf8()..];
            changed = true;
        } else {
            out.push_str(&tail[..common.max(head.len())]);
            rest = &tail[common.max(head.len())..];
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_cut_text_lines_json_and_cut_summaries() {
        let text = "The vault combination is 4711-purple-otter, Alice said";
        let n = Needles::new(&[text], None, None, &["- Alice prefers tea"], &[]);
        assert_eq!(
            n.scrub("- The vault combination is 4711-purple-otter, Alice said\n").unwrap(),
            "- [purged]\n"
        );
        let json = format!("{{\"t\": {}}}", serde_json::to_string(text).unwrap());
        assert!(!n.scrub(&json).unwrap().contains("purple-otter"));
        let cut = "2026 | EDIT | MEMORY.md | manual | auto | remembered: The vault combination is 4711-pur…\n";
        let out = n.scrub(cut).unwrap();
        assert!(!out.contains("4711"), "{out}");
        assert!(out.ends_with("remembered: [purged]\n"), "{out}");
        assert!(n.scrub("Alice prefers tea").is_none());
    }

    #[test]
    fn shared_lines_are_not_cut() {
        let text = "## Facts\n- Bob's locker code is 8812-blue\n- Bob likes chess a lot";
        let n =
            Needles::new(&[text], None, None, &["- Bob likes chess a lot (from the club)"], &[]);
        let out = n.scrub("- Bob likes chess a lot\n- Bob's locker code is 8812-blue\n").unwrap();
        assert_eq!(out, "- Bob likes chess a lot\n- [purged]\n");
    }

    #[test]
    fn a_line_another_memory_holds_whole_is_a_copy_and_cut() {
        let text = "## Facts\n- Quentin was diagnosed with diabetes\n- Quentin likes chess a lot";
        let others = ["# org\n## Facts\n- Quentin was diagnosed with diabetes\n"];
        let kept = ["## Facts\n- Quentin likes chess a lot\n"];
        let n = Needles::new(&[text], None, Some(&["quentin"][..]), &others, &kept);
        let out = n.scrub(others[0]).unwrap();
        assert_eq!(out, "# org\n## Facts\n- [purged]\n");
        assert!(n.scrub("- Quentin likes chess a lot").is_none(), "built-in lines are kept");
    }

    /// Two people who both like hiking: the other's line is its own fact, not a copy, and stays
    /// in its file; only where a line names the purged one (its file's audit line) is it cut.
    #[test]
    fn a_line_another_memory_holds_whole_without_naming_it_is_its_own() {
        let text = "## Facts\n- Likes hiking in the Alps\n- Quentin's locker is 8812-blue";
        let others = ["# person--bob\n## Facts\n- Likes hiking in the Alps\n"];
        let mut n = Needles::new(&[text], None, Some(&["quentin"][..]), &others, &[]);
        n.add_names(["person--quentin".to_owned()]);
        assert!(n.scrub(others[0]).is_none(), "the other's own fact stays");
        let hiking = purged::line_hash(&purged::normalize_line("Likes hiking in the Alps"));
        assert!(!n.hashes.contains(&hiking), "no tombstone line for it");
        // A purge by text names the text itself: the whole line is a copy there.
        let by_text = Needles::new(&[text], None, None, &others, &[]);
        assert_eq!(by_text.scrub(others[0]).unwrap(), "# person--bob\n## Facts\n- [purged]\n");
        let audit = "x | EDIT | memory/graph/entities/person--quentin.md | a | auto | Likes hiking in the Alps\n\
                     x | EDIT | memory/graph/entities/person--bob.md | a | auto | Likes hiking in the Alps\n";
        assert_eq!(
            n.scrub(audit).unwrap(),
            "x | EDIT | memory/graph/entities/[purged].md | a | auto | [purged]\n\
             x | EDIT | memory/graph/entities/person--bob.md | a | auto | Likes hiking in the Alps\n"
        );
    }

    #[test]
    fn the_forms_writers_give_are_cut() {
        let n = Needles::new(
            &["Door code | 5521-crimson-lynx | for the back gate"],
            None,
            None,
            &[],
            &[],
        );
        let summary = "x | EDIT | MEMORY.md | a | auto | Critical facts: Door code / 5521-crimson-lynx / for the back gate";
        assert!(!n.scrub(summary).unwrap().contains("crimson"));
        let n = Needles::new(
            &["Notes of the visit\n\tthe middle line holds 7731-amber"],
            None,
            None,
            &[],
            &[],
        );
        assert!(
            !n.scrub("## 10:00 | fact\nNotes of the visit\n\tthe middle line holds 7731-amber\n")
                .unwrap()
                .contains("7731")
        );
        assert!(
            !n.scrub("remembered: Notes of the visit the middle line holds 7731-amber")
                .unwrap()
                .contains("7731")
        );
    }

    #[test]
    fn names_are_cut_only_whole() {
        let n = Needles::new(
            &["# Marigold Lease\n\nRuns to 2030 for the overpass"],
            Some("marigold-lease"),
            None,
            &[],
            &[],
        );
        assert_eq!(n.scrub_name("marigold-lease.md").as_deref(), Some("purged.md"));
        assert_eq!(n.scrub_name("marigold-lease-2.md"), None);
        let out = n.scrub("- vault:marigold-lease and [[marigold-leases]]").unwrap();
        assert_eq!(out, "- vault:[purged] and [[marigold-leases]]");
        assert!(n.scrub("# Marigold Lease").unwrap() == "# [purged]");
    }
}
