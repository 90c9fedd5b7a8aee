//! Content-aware three-way merges of the workspace's own file formats, used by
//! `sync --remote` when both machines changed the same file.
//!
//! Every function takes the common ancestor's text (`None` when the file did not exist there)
//! and both sides' texts, and returns the merged text or, as `Err`, why the two sides cannot be
//! combined without a person. None of them drops a line, entry or bullet that either side added;
//! something either side removed on purpose (a bullet rewritten, an entry marked deleted) stays
//! removed. Pure functions: no I/O.

use std::collections::HashMap;

use serde_json::{Map, Value};

use cogmem_store::store::episode;
use cogmem_store::store::markdown;

/// Why two sides could not be merged; shown to the user with the file's path.
pub type Unmergeable = String;

/// How many copies of a line (or block) the merge keeps, given how many the ancestor, ours and
/// theirs have. A side that removed copies wins (the removal was deliberate); otherwise every
/// copy either side added is kept once (identical additions are deduplicated).
fn keep_count(base: usize, ours: usize, theirs: usize) -> usize {
    if ours < base || theirs < base { ours.min(theirs) } else { ours.max(theirs) }
}

/// Picks the side that changed, when only one did; `Err` when both changed differently.
fn pick3<'a, T: PartialEq + ?Sized>(
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
struct Block<'a> {
    key: &'a str,
    text: &'a str,
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
fn union_blocks<'a>(
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

/// Splits an episode day file into its header block (key `""`) and one block per entry
/// (key `HH:MM`), each running to the next entry heading.
fn episode_blocks(text: &str) -> Vec<Block<'_>> {
    episode::blocks(text).into_iter().map(|(key, text)| Block { key, text }).collect()
}

fn header_of<'a>(blocks: &[Block<'a>]) -> Option<&'a str> {
    blocks.first().filter(|x| x.key.is_empty()).map(|x| x.text)
}

fn entries_only<'a>(blocks: &[Block<'a>]) -> Vec<Block<'a>> {
    blocks.iter().filter(|x| !x.key.is_empty()).cloned().collect()
}

fn render_blocks(blocks: &[Block<'_>], sep: &str) -> String {
    let mut out = blocks.iter().map(|b| b.text).collect::<Vec<_>>().join(sep);
    out.push('\n');
    out
}

/// An episode id that changed because entries from the other machine now share its minute:
/// (workspace-wide id on one side, id in the merged file).
pub type Rename = (String, String);

/// Entry ids of a day file's blocks, in order: `episode:DATE:HH:MM[:N]`.
fn episode_ids<'a>(date: &str, blocks: &[Block<'a>]) -> Vec<(&'a str, String)> {
    let mut per_minute: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for b in blocks.iter().filter(|b| !b.key.is_empty()) {
        let n = per_minute.entry(b.key).or_insert(0);
        *n += 1;
        let id = if *n == 1 {
            format!("episode:{date}:{}", b.key)
        } else {
            format!("episode:{date}:{}:{n}", b.key)
        };
        out.push((b.text, id));
    }
    out
}

/// Maps each entry's id on one side to its id in the merged file, where they differ.
fn renames_from(side: &[(&str, String)], merged: &[(&str, String)]) -> Vec<Rename> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (text, id) in side {
        let nth = seen.entry(text).or_insert(0);
        *nth += 1;
        let found = merged.iter().filter(|(t, _)| t == text).nth(*nth - 1);
        if let Some((_, new)) = found
            && new != id
        {
            out.push((id.clone(), new.clone()));
        }
    }
    out
}

/// The merged episode file and the ids that moved on each side.
#[derive(Debug, Clone, Default)]
pub struct EpisodeMerge {
    /// The merged day file.
    pub text: String,
    /// Ids of our entries that changed.
    pub ours: Vec<Rename>,
    /// Ids of their entries that changed.
    pub theirs: Vec<Rename>,
    /// Ids of the ancestor's entries that changed.
    pub base: Vec<Rename>,
}

/// Merges a day's episode log: every entry of both sides, in time order (ours first within a
/// minute), identical entries once. The header is ours unless only theirs changed it.
pub fn merge_episode(
    date: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<EpisodeMerge, Unmergeable> {
    let (b, o, t) =
        (episode_blocks(base.unwrap_or("")), episode_blocks(ours), episode_blocks(theirs));
    let header = pick3(header_of(&b), header_of(&o), header_of(&t))
        .map_err(|()| "both sides rewrote the day's header".to_owned())?;
    let mut merged = union_blocks(&entries_only(&b), &entries_only(&o), &entries_only(&t));
    if let Some(h) = header {
        merged.insert(0, Block { key: "", text: h });
    }
    let ids = episode_ids(date, &merged);
    Ok(EpisodeMerge {
        text: render_blocks(&merged, "\n\n"),
        ours: renames_from(&episode_ids(date, &o), &ids),
        theirs: renames_from(&episode_ids(date, &t), &ids),
        base: renames_from(&episode_ids(date, &b), &ids),
    })
}

/// Splits the audit log into header lines (comments and blanks before the first entry) and
/// entry lines keyed by their timestamp; a line without one sorts with the line before it.
fn audit_parts(text: &str) -> (Vec<&str>, Vec<Block<'_>>) {
    let mut header = Vec::new();
    let mut lines = Vec::new();
    let mut key = "";
    for line in text.lines() {
        let t = line.trim_end();
        if lines.is_empty() && (t.is_empty() || t.starts_with('#')) {
            header.push(t);
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let stamp = t.split('|').next().unwrap_or("").trim();
        if stamp.len() >= 10 && stamp.as_bytes()[0].is_ascii_digit() {
            key = stamp;
        }
        lines.push(Block { key, text: t });
    }
    (header, lines)
}

/// Merges `audit.log`: the union of both sides' lines ordered by timestamp; lines removed on
/// one side (moved to the archive by a compaction) stay removed.
pub fn merge_audit(base: Option<&str>, ours: &str, theirs: &str) -> Result<String, Unmergeable> {
    let (hb, b) = audit_parts(base.unwrap_or(""));
    let (ho, o) = audit_parts(ours);
    let (ht, t) = audit_parts(theirs);
    let header = pick3(base.map(|_| &hb), Some(&ho), Some(&ht))
        .map_err(|()| "both sides rewrote the header lines".to_owned())?
        .unwrap_or(&ho);
    let merged = union_blocks(&b, &o, &t);
    let mut out = String::new();
    for h in header {
        out.push_str(h);
        out.push('\n');
    }
    for l in &merged {
        out.push_str(l.text);
        out.push('\n');
    }
    Ok(out)
}

const PROPOSAL: &str = "## Proposal #";

/// A proposal block: its number and text (heading to the closing `---`, trimmed).
fn proposal_blocks(text: &str) -> (&str, Vec<(u32, &str)>) {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with(PROPOSAL) {
            starts.push(offset);
        }
        offset += line.len();
    }
    let first = starts.first().copied().unwrap_or(text.len());
    let mut blocks = Vec::with_capacity(starts.len());
    for (i, start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let block = text[*start..end].trim_end();
        let digits: String =
            block[PROPOSAL.len()..].chars().take_while(char::is_ascii_digit).collect();
        blocks.push((digits.parse().unwrap_or(0), block));
    }
    (text[..first].trim_end(), blocks)
}

/// Rewrites a proposal block's number.
fn renumber(block: &str, to: u32) -> String {
    let rest = &block[PROPOSAL.len()..];
    let tail = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{PROPOSAL}{to}{tail}")
}

/// Merges `pending-memories.md`: proposals of both sides. A proposal both sides decided
/// differently cannot be merged; a new proposal whose number the other side also used is
/// renumbered after the highest number (theirs move, ours keep their numbers).
pub fn merge_pending(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<(String, Vec<(u32, u32)>), Unmergeable> {
    let (hb, b) = proposal_blocks(base.unwrap_or(""));
    let (ho, o) = proposal_blocks(ours);
    let (ht, t) = proposal_blocks(theirs);
    let header = pick3(base.map(|_| hb), Some(ho), Some(ht))
        .map_err(|()| "both sides rewrote the text above the proposals".to_owned())?
        .unwrap_or(ho);
    let in_base = |n: u32| b.iter().find(|(m, _)| *m == n).map(|x| x.1);
    let in_ours = |n: u32| o.iter().find(|(m, _)| *m == n).map(|x| x.1);
    let in_theirs = |n: u32| t.iter().find(|(m, _)| *m == n).map(|x| x.1);
    let mut out: Vec<(u32, String)> = Vec::new();
    for (n, text) in &o {
        if in_base(*n).is_some() {
            match pick3(in_base(*n), Some(*text), in_theirs(*n)) {
                Ok(Some(kept)) => out.push((*n, kept.to_owned())),
                Ok(None) => {}
                Err(()) => return Err(format!("both sides changed proposal #{n} differently")),
            }
        } else {
            out.push((*n, (*text).to_owned()));
        }
    }
    let mut renumbered = Vec::new();
    for (n, text) in &t {
        if let Some(bt) = in_base(*n) {
            // Ours deleted it: keep it only if theirs changed it.
            if in_ours(*n).is_none() && *text != bt {
                out.push((*n, (*text).to_owned()));
            }
            continue;
        }
        if out.iter().any(|(_, x)| x == text) {
            continue;
        }
        if out.iter().any(|(m, _)| m == n) {
            let to = out.iter().map(|(m, _)| *m).max().unwrap_or(0) + 1;
            out.push((to, renumber(text, to)));
            renumbered.push((*n, to));
        } else {
            out.push((*n, (*text).to_owned()));
        }
    }
    let mut text = header.to_owned();
    for (_, block) in &out {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(block);
    }
    text.push('\n');
    Ok((text, renumbered))
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

/// Merges `decay-scores.json`: entries of both sides; for an entry both changed, the later
/// `last_accessed`, the larger `access_count` and `last_interaction`, and the band and score
/// of the side that forgot it or used it last. The interaction count adds both sides' new
/// interactions. `renames` maps episode ids that moved in merged day files, per side.
pub fn merge_decay(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    renames: &DecayRenames,
) -> Result<String, Unmergeable> {
    let parse = |text: &str, side: &str| -> Result<Map<String, Value>, Unmergeable> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(format!("{side} copy is not a JSON object; fix it with `cogmem decay`")),
        }
    };
    let mut b = match base {
        Some(text) => parse(text, "the common ancestor's").unwrap_or_default(),
        None => Map::new(),
    };
    let mut o = parse(ours, "our")?;
    let mut t = parse(theirs, "their")?;
    rename_entries(&mut b, &renames.base);
    rename_entries(&mut o, &renames.ours);
    rename_entries(&mut t, &renames.theirs);
    let mut out = Map::new();
    let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let v = match key.as_str() {
            "entries" => Some(Value::Object(merge_entries(
                b.get("entries").and_then(Value::as_object),
                o.get("entries").and_then(Value::as_object),
                t.get("entries").and_then(Value::as_object),
            ))),
            "interactions" => {
                let n = |m: &Map<String, Value>| m.get("interactions").and_then(Value::as_u64);
                let (bn, on, tn) = (n(&b).unwrap_or(0), n(&o).unwrap_or(0), n(&t).unwrap_or(0));
                let sum = if on >= bn && tn >= bn { on + tn - bn } else { on.max(tn) };
                Some(Value::from(sum))
            }
            // The marker of the last folded access batch names a batch of this machine's own
            // `.cogmem/access.log`, so ours is the one that means something here.
            "access_fold" => o.get(&key).cloned(),
            _ => merge_value(b.get(&key), o.get(&key), t.get(&key)),
        };
        if let Some(v) = v {
            out.insert(key, v);
        }
    }
    let mut s = serde_json::to_string_pretty(&Value::Object(out))
        .map_err(|e| format!("cannot write the merged JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}

/// Episode ids that moved, per side.
#[derive(Debug, Clone, Default)]
pub struct DecayRenames {
    /// In the common ancestor.
    pub base: Vec<Rename>,
    /// On our side.
    pub ours: Vec<Rename>,
    /// On their side.
    pub theirs: Vec<Rename>,
}

fn rename_entries(root: &mut Map<String, Value>, renames: &[Rename]) {
    if renames.is_empty() {
        return;
    }
    let Some(Value::Object(entries)) = root.get_mut("entries") else { return };
    let old = std::mem::take(entries);
    for (k, v) in old {
        let k = renames.iter().find(|(from, _)| *from == k).map_or(k, |(_, to)| to.clone());
        entries.insert(k, v);
    }
}

fn merge_entries(
    base: Option<&Map<String, Value>>,
    ours: Option<&Map<String, Value>>,
    theirs: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let empty = Map::new();
    let (b, o, t) = (base.unwrap_or(&empty), ours.unwrap_or(&empty), theirs.unwrap_or(&empty));
    let mut out = Map::new();
    let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let merged = match (b.get(&key), o.get(&key), t.get(&key)) {
            (_, Some(Value::Object(oe)), Some(Value::Object(te))) => {
                let be = b.get(&key).and_then(Value::as_object);
                Some(Value::Object(merge_entry(be, oe, te)))
            }
            // Removed on one side (permanent deletion): gone unless the other side changed it.
            (Some(bv), Some(v), None) | (Some(bv), None, Some(v)) if bv == v => None,
            (_, Some(v), None) | (_, None, Some(v)) => Some(v.clone()),
            (bv, ov, tv) => merge_value(bv, ov, tv),
        };
        if let Some(v) = merged {
            out.insert(key, v);
        }
    }
    out
}

fn merge_entry(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
) -> Map<String, Value> {
    if ours == theirs || base == Some(theirs) {
        return ours.clone();
    }
    if base == Some(ours) {
        return theirs.clone();
    }
    let field = |m: Option<&Map<String, Value>>, k: &str| m.and_then(|m| m.get(k)).cloned();
    let mut out = Map::new();
    let keys = ours.keys().chain(theirs.keys().filter(|k| !ours.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let (bv, ov, tv) = (field(base, &key), ours.get(&key), theirs.get(&key));
        if let Some(v) = merge_value(bv.as_ref(), ov, tv) {
            out.insert(key, v);
        }
    }
    // The band and score belong together: take both from the side that forgot the memory, or
    // else from the side that used it last.
    let last = |m: &Map<String, Value>| {
        m.get("last_accessed").and_then(Value::as_str).unwrap_or("").to_owned()
    };
    let source = match (ours.contains_key("archive"), theirs.contains_key("archive")) {
        (true, false) => ours,
        (false, true) => theirs,
        _ if last(theirs) > last(ours) => theirs,
        _ => ours,
    };
    for key in ["status", "current_score"] {
        if let Some(v) = source.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    out
}

/// Merges one JSON value: the side that changed it; for objects both changed, key by key;
/// for numbers or strings both changed, the greater (a count, a later time) so that every
/// machine reaches the same result; for lists, ours and then theirs' other items; otherwise
/// ours.
fn merge_value(
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
) -> Option<Value> {
    if let Ok(v) = pick3(base, ours, theirs) {
        return v.cloned();
    }
    match (ours, theirs) {
        (Some(Value::Object(o)), Some(Value::Object(t))) => {
            let b = base.and_then(Value::as_object);
            let mut out = Map::new();
            let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
            for key in keys.collect::<Vec<_>>() {
                if let Some(v) = merge_value(b.and_then(|b| b.get(&key)), o.get(&key), t.get(&key))
                {
                    out.insert(key, v);
                }
            }
            Some(Value::Object(out))
        }
        (Some(Value::Number(o)), Some(Value::Number(t))) => {
            let (of, tf) = (o.as_f64().unwrap_or(0.0), t.as_f64().unwrap_or(0.0));
            Some(if tf > of { Value::Number(t.clone()) } else { Value::Number(o.clone()) })
        }
        (Some(Value::String(o)), Some(Value::String(t))) => Some(Value::String(o.max(t).clone())),
        // Lists both sides grew (recent reward outcomes): ours, then theirs' new items.
        (Some(Value::Array(o)), Some(Value::Array(t))) => {
            let mut out = o.clone();
            out.extend(t.iter().filter(|x| !o.contains(x)).cloned());
            Some(Value::Array(out))
        }
        (Some(o), _) => Some(o.clone()),
        (None, t) => t.cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: &str =
        "# 2026-12-01 — Episode Log\n\n## 09:00 | fact | confidence:high | tags:[]\nBase entry.\n";

    #[test]
    fn episodes_keep_both_sides_in_time_order() {
        let ours = format!("{DAY}\n## 10:00 | fact | confidence:high | tags:[]\nOurs at ten.\n");
        let theirs = format!(
            "{DAY}\n## 09:30 | fact | confidence:high | tags:[]\nTheirs at half past nine.\n\n## 10:00 | event | confidence:low | tags:[]\nTheirs at ten.\n"
        );
        let m = merge_episode("2026-12-01", Some(DAY), &ours, &theirs).unwrap();
        let order: Vec<&str> =
            m.text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect();
        assert_eq!(
            order,
            ["Base entry.", "Theirs at half past nine.", "Ours at ten.", "Theirs at ten."]
        );
        assert_eq!(
            m.theirs,
            [("episode:2026-12-01:10:00".into(), "episode:2026-12-01:10:00:2".into())]
        );
        assert!(m.ours.is_empty());
        assert!(m.text.ends_with("Theirs at ten.\n"));
        // Symmetric content: merging the other way keeps the same entries.
        let back = merge_episode("2026-12-01", Some(DAY), &theirs, &ours).unwrap();
        assert_eq!(back.text.matches("## ").count(), m.text.matches("## ").count());
    }

    #[test]
    fn an_entry_deleted_on_one_side_stays_deleted_and_identical_entries_dedupe() {
        let deleted = DAY
            .replace("Base entry.", "<!-- deleted by cogmem forget --permanent on 2026-12-01 -->");
        let theirs = format!("{DAY}\n## 11:00 | fact | confidence:high | tags:[]\nSame.\n");
        let ours = format!("{deleted}\n## 11:00 | fact | confidence:high | tags:[]\nSame.\n");
        let m = merge_episode("2026-12-01", Some(DAY), &ours, &theirs).unwrap();
        assert!(!m.text.contains("Base entry."), "{}", m.text);
        assert_eq!(m.text.matches("Same.").count(), 1);
    }

    #[test]
    fn audit_lines_union_by_time() {
        let base = "# Audit\n\n2026-12-01T09:00:00Z | INIT | . | system:init | auto | init\n";
        let ours = format!("{base}2026-12-01T09:05:00Z | APPEND | a | x | auto | ours\n");
        let theirs = format!("{base}2026-12-01T09:03:00Z | APPEND | b | y | auto | theirs\n");
        let m = merge_audit(Some(base), &ours, &theirs).unwrap();
        assert_eq!(
            m,
            format!(
                "{base}2026-12-01T09:03:00Z | APPEND | b | y | auto | theirs\n2026-12-01T09:05:00Z | APPEND | a | x | auto | ours\n"
            )
        );
    }

    #[test]
    fn proposals_with_the_same_number_are_renumbered() {
        let head = "# Pending Memory Proposals\n";
        let p = |n: u32, what: &str| {
            format!("## Proposal #{n}\n- **Content**: {what}\n- **Status**: pending\n\n---")
        };
        let ours = format!("{head}\n{}\n", p(1, "ours"));
        let theirs = format!("{head}\n{}\n", p(1, "theirs"));
        let (text, moved) = merge_pending(Some(head), &ours, &theirs).unwrap();
        assert_eq!(moved, [(1, 2)]);
        assert_eq!(text, format!("{head}\n{}\n\n{}\n", p(1, "ours"), p(2, "theirs")));
        let decided = ours.replace("pending", "rejected");
        let other = ours.replace("pending", "committed");
        assert!(merge_pending(Some(&ours), &decided, &other).is_err());
    }

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
    fn decay_takes_later_access_and_larger_count() {
        let base = r#"{"version":3,"interactions":2,"entries":{"entity:person--alice":{"access_count":1,"last_accessed":"2026-12-01T09:00:00Z","status":"active","current_score":0.8}}}"#;
        let ours = r#"{"version":3,"interactions":5,"entries":{"entity:person--alice":{"access_count":4,"last_accessed":"2026-12-01T10:00:00Z","status":"active","current_score":0.9}},"x":1}"#;
        let theirs = r#"{"version":3,"interactions":3,"entries":{"entity:person--alice":{"access_count":2,"last_accessed":"2026-12-01T11:00:00Z","status":"active","current_score":0.85},"episode:2026-12-01:10:00":{"access_count":1}}}"#;
        let renames = DecayRenames {
            theirs: vec![("episode:2026-12-01:10:00".into(), "episode:2026-12-01:10:00:2".into())],
            ..DecayRenames::default()
        };
        let m = merge_decay(Some(base), ours, theirs, &renames).unwrap();
        let v: Value = serde_json::from_str(&m).unwrap();
        let a = &v["entries"]["entity:person--alice"];
        assert_eq!(a["access_count"], 4);
        assert_eq!(a["last_accessed"], "2026-12-01T11:00:00Z");
        assert_eq!(a["current_score"], 0.85);
        assert_eq!(v["interactions"], 6);
        assert_eq!(v["x"], 1);
        assert!(v["entries"].get("episode:2026-12-01:10:00:2").is_some());
        assert!(v["entries"].get("episode:2026-12-01:10:00").is_none());
        let lists = merge_decay(
            Some(r#"{"l":[1]}"#),
            r#"{"l":[1,2]}"#,
            r#"{"l":[1,3]}"#,
            &DecayRenames::default(),
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&lists).unwrap()["l"],
            serde_json::json!([1, 2, 3])
        );
    }
}
