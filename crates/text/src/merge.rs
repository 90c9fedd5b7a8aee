//! Three-way merge primitives for text files that two machines changed from a common
//! ancestor, and the section-by-section merge of a Markdown file. Each format's owner (in
//! `cogmem-store`) builds its own merge from these; `sync --remote` composes those merges.
//!
//! Every merge takes the common ancestor's text (`None` when the file did not exist there) and
//! both sides' texts, and returns the merged text or, as `Err`, why the two sides cannot be
//! combined without a person. None drops a line or block that either side added; something
//! either side removed on purpose stays removed. Pure functions: no I/O.

use std::collections::HashMap;

use crate::markdown;

/// Why two sides could not be merged; shown to the user with the file's path.
pub type Unmergeable = String;

/// How many copies of a line (or block) the merge keeps, given how many the ancestor, ours and
/// theirs have. A side that removed copies wins (the removal was deliberate); otherwise every
/// copy either side added is kept once (identical additions are deduplicated).
pub fn keep_count(base: usize, ours: usize, theirs: usize) -> usize {
    if ours < base || theirs < base { ours.min(theirs) } else { ours.max(theirs) }
}

/// Picks the side that changed, when only one did; `Err` when both changed differently.
///
/// # Errors
///
/// `Err(())` when ours and theirs both differ from the ancestor and from each other.
#[expect(
    clippy::result_unit_err,
    reason = "the one failure is 'both sides changed'; each format's merge words it for its file"
)]
pub fn pick3<'a, T: PartialEq + ?Sized>(
    base: Option<&'a T>,
    ours: Option<&'a T>,
    theirs: Option<&'a T>,
) -> Result<Option<&'a T>, ()> {
    if ours == theirs || theirs == base {
        Ok(ours)
    } else if ours == base {
        Ok(theirs)
    } else {
        Err(())
    }
}

/// A unit of an append-only file: a sort key (a time) and its text, trailing blanks trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    /// What the block sorts by (a time; `""` for a header).
    pub key: &'a str,
    /// The block's text, trailing blanks trimmed.
    pub text: &'a str,
}

fn count<'a>(blocks: &[Block<'a>]) -> HashMap<&'a str, usize> {
    let mut m = HashMap::new();
    for b in blocks {
        *m.entry(b.text).or_insert(0) += 1;
    }
    m
}

/// Union of three versions of a block list: ours in its order, with theirs' additions slotted in
/// by key (ties: ours first). Blocks removed or rewritten by either side stay removed.
pub fn union_blocks<'a>(
    base: &[Block<'a>],
    ours: &[Block<'a>],
    theirs: &[Block<'a>],
) -> Vec<Block<'a>> {
    let (cb, co, ct) = (count(base), count(ours), count(theirs));
    let target = |text: &str| {
        keep_count(
            cb.get(text).copied().unwrap_or(0),
            co.get(text).copied().unwrap_or(0),
            ct.get(text).copied().unwrap_or(0),
        )
    };
    let mut kept: HashMap<&str, usize> = HashMap::new();
    let mut ours_kept = Vec::with_capacity(ours.len());
    for b in ours {
        let k = kept.entry(b.text).or_insert(0);
        if *k < target(b.text) {
            *k += 1;
            ours_kept.push(b.clone());
        }
    }
    let mut extra = Vec::new();
    for b in theirs {
        let k = kept.entry(b.text).or_insert(0);
        if *k < target(b.text) {
            *k += 1;
            extra.push(b.clone());
        }
    }
    let mut out = Vec::with_capacity(ours_kept.len() + extra.len());
    let (mut i, mut j) = (0, 0);
    while i < ours_kept.len() || j < extra.len() {
        let take_theirs = match (ours_kept.get(i), extra.get(j)) {
            (Some(o), Some(t)) => t.key < o.key,
            (None, Some(_)) => true,
            _ => false,
        };
        if take_theirs {
            out.push(extra[j].clone());
            j += 1;
        } else {
            out.push(ours_kept[i].clone());
            i += 1;
        }
    }
    out
}

/// A Markdown file cut at its `## ` headings: the prefix (front matter, title, comment lines)
/// and each section with a key (lower-case title and occurrence).
struct Sections<'a> {
    prefix: &'a str,
    sections: Vec<(String, &'a str)>,
}

fn split_sections(text: &str) -> Sections<'_> {
    let (fm, _) = markdown::split_front_matter(text);
    let body = &text[fm..];
    let starts: Vec<(usize, String)> = markdown::sections(body)
        .into_iter()
        .filter(|s| s.level == 2)
        .map(|s| (fm + s.range.start, s.title.to_lowercase()))
        .collect();
    let first = starts.first().map_or(text.len(), |s| s.0);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut sections = Vec::with_capacity(starts.len());
    for (i, (start, title)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |s| s.0);
        let n = seen.entry(title.clone()).or_insert(0);
        *n += 1;
        sections.push((format!("{title}#{n}"), &text[*start..end]));
    }
    Sections { prefix: &text[..first], sections }
}

fn get<'a>(s: &Sections<'a>, key: &str) -> Option<&'a str> {
    s.sections.iter().find(|(k, _)| k == key).map(|x| x.1)
}

/// Merges the lines before the first section: whole when one side changed it, else line by
/// line when the line counts match. Comment lines both sides changed (`Last updated`, the
/// decay summary) take the greater text, which is the later date, on every machine alike.
fn merge_prefix(base: Option<&str>, ours: &str, theirs: &str) -> Result<String, Unmergeable> {
    if let Ok(Some(p)) = pick3(base, Some(ours), Some(theirs)) {
        return Ok(p.to_owned());
    }
    let lines = |s: &str| s.split_inclusive('\n').map(str::to_owned).collect::<Vec<_>>();
    let (b, o, t) = (base.map(lines), lines(ours), lines(theirs));
    if o.len() != t.len() || b.as_ref().is_some_and(|b| b.len() != o.len()) {
        return Err("both sides rewrote the title or comment lines".into());
    }
    let mut out = String::with_capacity(ours.len());
    for (i, (ol, tl)) in o.iter().zip(&t).enumerate() {
        let bl = b.as_ref().and_then(|b| b.get(i));
        match pick3(bl, Some(ol), Some(tl)) {
            Ok(Some(l)) => out.push_str(l),
            _ if ol.trim_start().starts_with("<!--") && tl.trim_start().starts_with("<!--") => {
                out.push_str(ol.max(tl));
            }
            _ => return Err(format!("both sides changed the line {:?}", ol.trim_end())),
        }
    }
    Ok(out)
}

/// Merges one section both sides changed: ours as written, minus the lines theirs removed,
/// plus the lines theirs added (at the end of the section's text).
fn merge_section(base: Option<&str>, ours: &str, theirs: &str) -> String {
    if let Ok(Some(p)) = pick3(base, Some(ours), Some(theirs)) {
        return p.to_owned();
    }
    let content = |s: &str| -> Vec<String> {
        s.split_inclusive('\n').skip(1).map(|l| l.trim_end().to_owned()).collect()
    };
    let counts = |v: &[String]| {
        let mut m: HashMap<String, usize> = HashMap::new();
        for l in v.iter().filter(|l| !l.trim().is_empty()) {
            *m.entry(l.clone()).or_insert(0) += 1;
        }
        m
    };
    let (b, o, t) = (content(base.unwrap_or("")), content(ours), content(theirs));
    let (cb, co, ct) = (counts(&b), counts(&o), counts(&t));
    let target = |l: &str| {
        keep_count(
            cb.get(l).copied().unwrap_or(0),
            co.get(l).copied().unwrap_or(0),
            ct.get(l).copied().unwrap_or(0),
        )
    };
    let mut kept: HashMap<&str, usize> = HashMap::new();
    let mut lines: Vec<&str> = Vec::with_capacity(o.len());
    for l in &o {
        if l.trim().is_empty() {
            lines.push(l);
            continue;
        }
        let k = kept.entry(l).or_insert(0);
        if *k < target(l) {
            *k += 1;
            lines.push(l);
        }
    }
    let mut added: Vec<&str> = Vec::new();
    for l in t.iter().filter(|l| !l.trim().is_empty()) {
        let k = kept.entry(l).or_insert(0);
        if *k < target(l) {
            *k += 1;
            added.push(l);
        }
    }
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(0, |i| i + 1);
    let (body, trailing) = lines.split_at(end);
    let heading = ours.split_inclusive('\n').next().unwrap_or("").trim_end();
    let mut out = format!("{heading}\n");
    for l in body {
        out.push_str(l);
        out.push('\n');
    }
    if body.is_empty() && !added.is_empty() {
        out.push('\n');
    }
    for l in &added {
        out.push_str(l);
        out.push('\n');
    }
    for l in trailing {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Merges MEMORY.md or an entity file: section by section, keeping both sides' bullets (facts,
/// relations, timeline lines) and dropping the ones either side removed or rewrote.
///
/// # Errors
///
/// When both sides rewrote the same title or comment line differently.
pub fn merge_sections(base: Option<&str>, ours: &str, theirs: &str) -> Result<String, Unmergeable> {
    let b = base.map(split_sections);
    let (o, t) = (split_sections(ours), split_sections(theirs));
    let mut out = merge_prefix(b.as_ref().map(|x| x.prefix), o.prefix, t.prefix)?;
    let push = |out: &mut String, text: &str| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(text);
    };
    for (key, os) in &o.sections {
        let bs = b.as_ref().and_then(|b| get(b, key));
        match get(&t, key) {
            Some(ts) => push(&mut out, &merge_section(bs, os, ts)),
            // Theirs removed the section: gone, unless ours changed it meanwhile.
            None if bs.is_some_and(|bs| bs == *os) => {}
            None => push(&mut out, os),
        }
    }
    for (key, ts) in &t.sections {
        if get(&o, key).is_some() {
            continue;
        }
        match b.as_ref().and_then(|b| get(b, key)) {
            Some(bs) if bs == *ts => {}
            _ => {
                // A section only theirs has goes at the end, after a blank line.
                if !out.is_empty() && !out.ends_with("\n\n") {
                    push(&mut out, "\n");
                }
                push(&mut out, ts);
            }
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keep_both_sides_bullets() {
        let base = "# MEMORY.md\n\n## Identity\n- name\n\n## Active Context\n\n## Persona\n";
        let ours =
            "# MEMORY.md\n\n## Identity\n- name\n- ours\n\n## Active Context\n\n## Persona\n";
        let theirs = "# MEMORY.md\n\n## Identity\n- name\n\n## Active Context\n\n- theirs\n\n## Persona\n- both\n";
        let m = merge_sections(Some(base), ours, theirs).unwrap();
        assert_eq!(
            m,
            "# MEMORY.md\n\n## Identity\n- name\n- ours\n\n## Active Context\n\n- theirs\n\n## Persona\n- both\n"
        );
        let both = "# MEMORY.md\n\n## Identity\n- name\n- same\n- ours\n";
        let other = "# MEMORY.md\n\n## Identity\n- name\n- same\n- theirs\n";
        let m = merge_sections(Some("# MEMORY.md\n\n## Identity\n- name\n"), both, other).unwrap();
        assert_eq!(m, "# MEMORY.md\n\n## Identity\n- name\n- same\n- ours\n- theirs\n");
    }

    #[test]
    fn a_closed_relation_stays_closed_and_new_sections_arrive() {
        let base =
            "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01)\n";
        let ours = "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01) (until 2026-12-01)\n- lives-in: [[place--porto]] (since 2026-12-01)\n";
        let theirs = "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01)\n- works-at: [[organization--acme]] (since 2026-12-01)\n\n## Notes\n- theirs\n";
        let m = merge_sections(Some(base), ours, theirs).unwrap();
        assert_eq!(
            m,
            "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01) (until 2026-12-01)\n- lives-in: [[place--porto]] (since 2026-12-01)\n- works-at: [[organization--acme]] (since 2026-12-01)\n\n## Notes\n- theirs\n"
        );
    }

    #[test]
    fn entity_comment_lines_take_the_later_date() {
        let e = |d: &str, facts: &str| {
            format!(
                "# person--alice\n<!-- Type: person | Created: 2026-12-01 | Last updated: {d} -->\n\n## Facts\n{facts}"
            )
        };
        let base = e("2026-12-01", "- a\n");
        let m = merge_sections(
            Some(&base),
            &e("2026-12-02", "- a\n- b\n"),
            &e("2026-12-03", "- a\n- c\n"),
        )
        .unwrap();
        assert_eq!(m, e("2026-12-03", "- a\n- b\n- c\n"));
        let clash = merge_sections(Some("# a\n\n## F\n"), "# b\n\n## F\n", "# c\n\n## F\n");
        assert!(clash.is_err());
        // Created on both machines (no common ancestor): still merged line by line.
        let m = merge_sections(None, &e("2026-12-02", "- b\n"), &e("2026-12-03", "- c\n")).unwrap();
        assert_eq!(m, e("2026-12-03", "- b\n- c\n"));
    }

    #[test]
    fn blocks_union_by_key_and_removals_win() {
        let b = |key, text| Block { key, text };
        let base = [b("1", "a"), b("2", "b")];
        let ours = [b("1", "a"), b("3", "c")];
        let theirs = [b("1", "a"), b("2", "b"), b("2", "d")];
        let merged: Vec<&str> =
            union_blocks(&base, &ours, &theirs).into_iter().map(|x| x.text).collect();
        assert_eq!(merged, ["a", "d", "c"]);
        assert_eq!(pick3(Some("a"), Some("a"), Some("b")), Ok(Some("b")));
        assert_eq!(pick3(Some("a"), Some("c"), Some("b")), Err(()));
    }
}
