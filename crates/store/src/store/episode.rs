//! Daily episode logs, `memory/episodes/YYYY-MM-DD.md`: a header, then entries
//! `## HH:MM | TYPE | confidence:LEVEL | tags:[a, b]` each followed by a paragraph. Append-only:
//! existing bytes are never changed, new entries go at the end.

use std::collections::HashMap;

use cogmem_text::merge::{Block, Unmergeable, pick3, union_blocks};

use super::Confidence;
use super::markdown::{self, normalize};
use crate::template::{self, TemplateError};
pub use cogmem_text::model::EntryType;

/// A new entry to append.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// `HH:MM`.
    pub time: &'a str,
    /// Entry type.
    pub kind: EntryType,
    /// Confidence.
    pub confidence: Confidence,
    /// Tags.
    pub tags: &'a [String],
    /// The paragraph.
    pub text: &'a str,
}

/// A parsed entry heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryHead {
    /// 1-based line of the heading.
    pub line: usize,
    /// `HH:MM`.
    pub time: String,
    /// The paragraph, whitespace-normalised (without its source line).
    pub text: String,
    /// The entry type word from the heading.
    pub kind: String,
    /// Tags from the heading.
    pub tags: Vec<String>,
    /// Where it came from: the `<!-- source: … -->` line of an imported entry.
    pub source: Option<String>,
    /// Entities named on its `<!-- entities: [[…]] -->` line (imported entries).
    pub entities: Vec<String>,
    /// Deleted by `forget --permanent`: the heading stays so later ids do not shift.
    pub deleted: bool,
}

/// The marker that replaces the paragraph of a permanently deleted entry.
pub fn deleted_line(day: &str) -> String {
    format!("<!-- deleted by cogmem forget --permanent on {day} -->")
}

/// The line that records an imported entry's origin.
///
/// The source is data, never syntax: it is escaped so that it stays on its line and inside its
/// comment whatever it holds, and [`entries`] reads it back exactly. A backslash is written
/// `\\`, LF `\n`, CR `\r`, tab `\t`, any other control character or line break, and a space
/// at either end, `\u{HEX}`; the `>` of `-->` and the second `-` of `<!--` get a backslash.
pub fn source_line(source: &str) -> String {
    let last = source.chars().count().saturating_sub(1);
    let mut out = String::with_capacity(source.len() + 16);
    for (i, c) in source.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '>' if out.ends_with("--") => out.push_str("\\>"),
            '-' if out.ends_with("<!-") => out.push_str("\\-"),
            ' ' if i == 0 || i == last => out.push_str("\\u{20}"),
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    format!("<!-- source: {out} -->")
}

/// Reads back a source that [`source_line`] escaped. A backslash before anything else is
/// kept, so sources written before the escaping read as they did.
fn unescape_source(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (value, used) = match after.chars().next() {
            Some('\\') => (Some('\\'), 1),
            Some('n') => (Some('\n'), 1),
            Some('r') => (Some('\r'), 1),
            Some('t') => (Some('\t'), 1),
            Some(c @ ('>' | '-')) => (Some(c), 1),
            Some('u') if after.starts_with("u{") => after
                .find('}')
                .and_then(|end| {
                    let c =
                        u32::from_str_radix(&after[2..end], 16).ok().and_then(char::from_u32)?;
                    Some((Some(c), end + 1))
                })
                .unwrap_or((None, 0)),
            _ => (None, 0),
        };
        match value {
            Some(c) => out.push(c),
            None => out.push('\\'),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// An entry's paragraph for an imported message: `**SPEAKER:** TEXT`, with the speaker made
/// one plain field ([`markdown::field`]) so that it cannot end its line.
pub fn said(speaker: &str, text: &str) -> String {
    format!("**{}:** {text}", markdown::field(speaker))
}

/// The line that records the entities an imported entry is about, as wiki links.
pub fn entities_line(entities: &[String]) -> String {
    let links: Vec<String> = entities.iter().map(|e| format!("[[{e}]]")).collect();
    format!("<!-- entities: {} -->", links.join(" "))
}

/// The entity ids of an `<!-- entities: … -->` line.
fn parse_entities(line: &str) -> Option<Vec<String>> {
    let inner = line.trim().strip_prefix("<!-- entities:")?.strip_suffix("-->")?;
    Some(super::units::wiki_links(inner))
}

fn parse_source(line: &str) -> Option<String> {
    line.trim().strip_prefix("<!-- source:")?.strip_suffix("-->").map(|s| unescape_source(s.trim()))
}

/// The result of appending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    /// New content, the entry's id and heading line.
    Written {
        /// New file content.
        content: String,
        /// `episode:YYYY-MM-DD:HH:MM[:N]`.
        id: String,
        /// Line of the heading.
        line: usize,
    },
    /// The same text is already an entry of that day.
    Duplicate {
        /// The existing entry's id.
        id: String,
        /// Line of its heading.
        line: usize,
    },
}

/// Returns the header of a new day file.
pub fn new_day(date: &str) -> Result<String, TemplateError> {
    template::render("episode-day.md", &[("date", date)])
}

/// Appends an entry to a day's file (`existing` is `None` for a new day).
pub fn append(existing: Option<&str>, entry: &NewEntry<'_>) -> Result<Appended, TemplateError> {
    append_linked(existing, entry, &[])
}

/// [`append`], with an `<!-- entities: … -->` line after the entry when `entities` is not
/// empty (the entities the text names, issue 22). A duplicate text is not written again.
pub fn append_linked(
    existing: Option<&str>,
    entry: &NewEntry<'_>,
    entities: &[String],
) -> Result<Appended, TemplateError> {
    let content = match existing {
        Some(t) => t.to_owned(),
        None => new_day(entry.date)?,
    };
    let heads = entries(&content);
    let wanted = normalize(entry.text);
    if let Some(h) = heads.iter().find(|h| markdown::says_the_same(&h.text, &wanted)) {
        let id = entry_id(
            entry.date,
            &h.time,
            heads.iter().filter(|o| o.time == h.time && o.line < h.line).count(),
        );
        return Ok(Appended::Duplicate { id, line: h.line });
    }
    let meta = if entities.is_empty() { Vec::new() } else { vec![entities_line(entities)] };
    Ok(write_entry(content, &heads, entry, &meta))
}

/// Appends an imported entry with its source line, and its entities line when `entities` is not
/// empty. Unlike [`append`], the same text may appear twice (people repeat themselves); the
/// source reference is what identifies an import.
pub fn append_imported(
    existing: Option<&str>,
    entry: &NewEntry<'_>,
    source: &str,
    entities: &[String],
) -> Result<Appended, TemplateError> {
    let mut day = DayImport::new(existing, entry.date)?;
    let (id, at) = day.append_at(entry, source, entities);
    let content = day.into_content();
    let line = markdown::line_of(&content, at);
    Ok(Appended::Written { content, id, line })
}

/// The one episode writer: appends an entry (heading, paragraph, then each `meta` comment
/// line) to `content`, whose entries are `heads`, after a blank line. The id counts the
/// entries already in the same minute.
fn write_entry(
    mut content: String,
    heads: &[EntryHead],
    entry: &NewEntry<'_>,
    meta: &[String],
) -> Appended {
    let same_minute = heads.iter().filter(|h| h.time == entry.time).count();
    let id = entry_id(entry.date, entry.time, same_minute);
    separate(&mut content);
    let line = markdown::line_of(&content, content.len());
    push_entry(&mut content, entry, meta);
    Appended::Written { content, id, line }
}

/// Ends `content` with a blank line, unless it is empty.
fn separate(content: &mut String) {
    if !content.is_empty() && !content.ends_with('\n') {
        content.push('\n');
    }
    if !content.is_empty() && !content.ends_with("\n\n") {
        content.push('\n');
    }
}

/// Writes an entry's heading, paragraph and `meta` comment lines at the end of `content`.
fn push_entry(content: &mut String, entry: &NewEntry<'_>, meta: &[String]) {
    content.push_str(&format!(
        "## {} | {} | confidence:{} | tags:[{}]\n{}",
        entry.time,
        entry.kind.as_str(),
        entry.confidence.as_str(),
        entry
            .tags
            .iter()
            .map(|t| markdown::tag(t))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        markdown::paragraph(entry.text),
    ));
    for m in meta {
        content.push_str(m);
        content.push('\n');
    }
}

/// One day's file taking many imported entries: read once, then each entry appended in time
/// proportional to its own length, so importing N messages of one day is linear in N, where N
/// calls of [`append_imported`] re-read the growing file each time (issue 20). Each entry gets
/// the id and the text those calls would give it.
#[derive(Debug)]
pub struct DayImport {
    date: String,
    content: String,
    /// Entries per `HH:MM`, for the ids.
    minutes: HashMap<String, usize>,
    /// The last bytes (up to two) of what [`DayImport::take`] handed out, so that the next
    /// entry is separated from it as if the file were still whole.
    taken_tail: Option<String>,
    /// Bytes handed out by [`DayImport::take`] so far.
    taken: u64,
}

impl DayImport {
    /// Starts from the day's file as it is (`None`: a new day).
    pub fn new(existing: Option<&str>, date: &str) -> Result<Self, TemplateError> {
        let content = match existing {
            Some(t) => t.to_owned(),
            None => new_day(date)?,
        };
        let mut minutes: HashMap<String, usize> = HashMap::new();
        for h in entries(&content) {
            *minutes.entry(h.time).or_default() += 1;
        }
        Ok(Self { date: date.to_owned(), content, minutes, taken_tail: None, taken: 0 })
    }

    /// Appends an imported entry with its source line (and entities line), as
    /// [`append_imported`] does; returns its id. `entry.date` must be this day's.
    pub fn append(&mut self, entry: &NewEntry<'_>, source: &str, entities: &[String]) -> String {
        self.append_at(entry, source, entities).0
    }

    /// [`DayImport::append`], also returning the byte offset of the entry's heading.
    fn append_at(
        &mut self,
        entry: &NewEntry<'_>,
        source: &str,
        entities: &[String],
    ) -> (String, usize) {
        debug_assert_eq!(entry.date, self.date, "an entry of another day");
        let same = self.minutes.entry(entry.time.to_owned()).or_default();
        let id = entry_id(&self.date, entry.time, *same);
        *same += 1;
        let mut meta = vec![source_line(source)];
        if !entities.is_empty() {
            meta.push(entities_line(entities));
        }
        match self.taken_tail.as_deref().filter(|_| self.content.is_empty()) {
            // The file so far was handed out: separate from its end, as `separate` would.
            Some(tail) => {
                let mut probe = tail.to_owned();
                separate(&mut probe);
                self.content.push_str(&probe[tail.len()..]);
            }
            None => separate(&mut self.content),
        }
        let at = self.content.len();
        push_entry(&mut self.content, entry, &meta);
        (id, at)
    }

    /// Hands out the day's file as built since the start (the earlier file and the entries
    /// appended) or since the last take, keeping the ids and the separation of the entries
    /// still to come: the takes, concatenated, are [`DayImport::into_content`] of the same
    /// appends. An import writes each take to a staging file, so a long day never sits whole
    /// in memory (issue 20).
    pub fn take(&mut self) -> String {
        let out = std::mem::take(&mut self.content);
        if !out.is_empty() {
            let cut = out.len().saturating_sub(2);
            let cut = (cut..out.len()).find(|&i| out.is_char_boundary(i)).unwrap_or(out.len());
            self.taken_tail = Some(out[cut..].to_owned());
            self.taken += out.len() as u64;
        }
        out
    }

    /// Bytes of the day's file built so far, handed out or not.
    pub fn built_bytes(&self) -> u64 {
        self.taken + self.content.len() as u64
    }

    /// Bytes built since the last [`DayImport::take`].
    pub fn pending_len(&self) -> usize {
        self.content.len()
    }

    /// The day's file with every entry appended (after the last take, if any).
    pub fn into_content(self) -> String {
        self.content
    }
}

/// Replaces the paragraph of the entry whose heading is at `heading_line` (1-based) with the
/// [`deleted_line`] marker of `day`, keeping its heading so that the ids of the entries after
/// it in the same minute do not shift, and the blank line before the next entry.
pub fn tombstone(text: &str, heading_line: usize, day: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = heading_line.min(lines.len());
    let mut end = start;
    while end < lines.len() && !lines[end].starts_with("## ") && !lines[end].starts_with("# ") {
        end += 1;
    }
    let mut keep_from = end;
    while keep_from > start && lines[keep_from - 1].trim().is_empty() {
        keep_from -= 1;
    }
    let mut out: String = lines[..start].concat();
    out.push_str(&deleted_line(day));
    out.push('\n');
    out.push_str(&lines[keep_from..].concat());
    out
}

/// The id of an entry of `date` at `time` after `earlier_same_minute` entries in that minute.
pub(crate) fn entry_id(date: &str, time: &str, earlier_same_minute: usize) -> String {
    if earlier_same_minute == 0 {
        format!("episode:{date}:{time}")
    } else {
        format!("episode:{date}:{time}:{}", earlier_same_minute + 1)
    }
}

/// Lists the entries of a day file: every `## HH:MM | …` heading and its paragraph.
pub fn entries(text: &str) -> Vec<EntryHead> {
    let mut out: Vec<EntryHead> = Vec::new();
    let mut para = String::new();
    let mut in_entry = false;
    for (i, line) in text.lines().enumerate() {
        if let Some(time) = heading_time(line) {
            if let Some(last) = out.last_mut() {
                last.text = normalize(&para);
            }
            para.clear();
            in_entry = true;
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let kind = fields.get(1).copied().unwrap_or("").to_owned();
            let tags = heading_tags(&fields);
            out.push(EntryHead {
                line: i + 1,
                time: time.to_owned(),
                text: String::new(),
                kind,
                tags,
                source: None,
                entities: Vec::new(),
                deleted: false,
            });
        } else if line.starts_with("# ") || line.starts_with("## ") {
            in_entry = false;
        } else if in_entry {
            if line.trim_start().starts_with("<!-- deleted by cogmem") {
                if let Some(last) = out.last_mut() {
                    last.deleted = true;
                }
                continue;
            }
            if let Some(ids) = parse_entities(line) {
                if let Some(last) = out.last_mut() {
                    for id in ids {
                        if !last.entities.contains(&id) {
                            last.entities.push(id);
                        }
                    }
                }
                continue;
            }
            if let Some(src) = parse_source(line) {
                if let Some(last) = out.last_mut() {
                    last.source = Some(src);
                }
                continue;
            }
            para.push_str(line);
            para.push('\n');
        }
    }
    if let Some(last) = out.last_mut() {
        last.text = normalize(&para);
    }
    out
}

/// The sources of the imported entries of a day file (their `<!-- source: … -->` lines), as
/// [`entries`] reads them, without building the entries: what an import checks its messages
/// against, over every day of the workspace.
pub fn sources(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_entry = false;
    for line in text.lines() {
        if heading_time(line).is_some() {
            in_entry = true;
        } else if line.starts_with("# ") || line.starts_with("## ") {
            in_entry = false;
        } else if in_entry
            && line.trim_start().starts_with("<!-- source:")
            && let Some(src) = parse_source(line)
        {
            out.push(src);
        }
    }
    out
}

/// The tags of an entry heading split at `|`.
fn heading_tags(fields: &[&str]) -> Vec<String> {
    fields
        .iter()
        .find_map(|f| f.strip_prefix("tags:"))
        .map(|t| {
            t.trim_matches(['[', ']', ' '])
                .split(',')
                .map(|x| x.trim().to_owned())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Returns a day file without its entries tagged `tag`, and how many it left out.
///
/// An entry runs from its heading to the next heading; the header and every other entry are
/// kept byte for byte. Used to keep imported transcripts out of reflection input (issue 17).
pub fn without_tagged(text: &str, tag: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    let mut left_out = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\r', '\n']);
        if heading_time(bare).is_some() {
            let fields: Vec<&str> = bare.split('|').map(str::trim).collect();
            skipping = heading_tags(&fields).iter().any(|t| t == tag);
            left_out += usize::from(skipping);
        } else if bare.starts_with("# ") || bare.starts_with("## ") {
            skipping = false;
        }
        if !skipping {
            out.push_str(line);
        }
    }
    (out, left_out)
}

/// Checks a line meant as an entry heading (`## ` then a digit): `None` for any other line,
/// else whether it is a well-formed `## HH:MM | TYPE | confidence:LEVEL | tags:[…]` heading,
/// with the problem as text when it is not.
pub fn check_heading(line: &str) -> Option<Result<(), String>> {
    let rest = line.strip_prefix("## ")?;
    if !rest.starts_with(|ch: char| ch.is_ascii_digit()) {
        return None;
    }
    Some(heading_problem(line, rest).map_or(Ok(()), Err))
}

fn heading_problem(line: &str, rest: &str) -> Option<String> {
    if heading_time(line).is_none() {
        return Some(format!("{line:?} is not an entry heading"));
    }
    let fields: Vec<&str> = rest.split('|').map(str::trim).collect();
    let (h, m) = fields[0].split_once(':').unwrap_or(("", ""));
    if h.parse::<u32>().map_or(true, |h| h > 23) || m.parse::<u32>().map_or(true, |m| m > 59) {
        return Some(format!("{:?} is not a time of day", fields[0]));
    }
    if let Some(kind) = fields.get(1)
        && EntryType::parse(kind).is_err()
    {
        return Some(format!(
            "unknown entry type {kind:?}; expected decision, fact, preference, task, event, emotion or correction"
        ));
    }
    if let Some(conf) = fields.iter().find_map(|f| f.strip_prefix("confidence:"))
        && !matches!(conf.trim(), "high" | "medium" | "low")
    {
        return Some(format!("unknown confidence {conf:?}; expected high, medium or low"));
    }
    None
}

/// Splits a day file into blocks, each with trailing whitespace trimmed: the header before the
/// first entry (key `""`, left out when blank), then one block per entry (key `HH:MM`), each
/// running from its heading to the next entry heading.
pub fn blocks(text: &str) -> Vec<(&str, &str)> {
    let mut starts: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(time) = heading_time(line.trim_end_matches(['\r', '\n'])) {
            starts.push((offset, time));
        }
        offset += line.len();
    }
    let mut out = Vec::with_capacity(starts.len() + 1);
    let first = starts.first().map_or(text.len(), |s| s.0);
    let header = text[..first].trim_end();
    if !header.is_empty() {
        out.push(("", header));
    }
    for (i, (start, time)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |s| s.0);
        out.push((*time, text[*start..end].trim_end()));
    }
    out
}

/// Returns `HH:MM` when `line` is an entry heading.
pub fn heading_time(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?;
    let time = rest.split('|').next()?.trim();
    let b = time.as_bytes();
    let ok = b.len() == 5
        && b[2] == b':'
        && b[..2].iter().chain(&b[3..]).all(u8::is_ascii_digit)
        && rest.contains('|');
    ok.then_some(time)
}

/// Splits an episode day file into its header block (key `""`) and one block per entry
/// (key `HH:MM`), each running to the next entry heading.
fn merge_blocks(text: &str) -> Vec<Block<'_>> {
    blocks(text).into_iter().map(|(key, text)| Block { key, text }).collect()
}

fn merge_header<'a>(blocks: &[Block<'a>]) -> Option<&'a str> {
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

/// Entry ids of a day file's blocks, in order, as [`append`] gives them.
fn merge_ids<'a>(date: &str, blocks: &[Block<'a>]) -> Vec<(&'a str, String)> {
    let mut per_minute: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for b in blocks.iter().filter(|b| !b.key.is_empty()) {
        let earlier = per_minute.entry(b.key).or_insert(0);
        out.push((b.text, entry_id(date, b.key, *earlier)));
        *earlier += 1;
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

/// Three-way merge of a day's episode log for `sync --remote`: every entry of both sides, in time order (ours first within a
/// minute), identical entries once. The header is ours unless only theirs changed it.
///
/// # Errors
///
/// When both sides rewrote the day's header differently.
pub fn merge3(
    date: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<EpisodeMerge, Unmergeable> {
    let (b, o, t) = (merge_blocks(base.unwrap_or("")), merge_blocks(ours), merge_blocks(theirs));
    let header = pick3(merge_header(&b), merge_header(&o), merge_header(&t))
        .map_err(|()| "both sides rewrote the day's header".to_owned())?;
    let mut merged = union_blocks(&entries_only(&b), &entries_only(&o), &entries_only(&t));
    if let Some(h) = header {
        merged.insert(0, Block { key: "", text: h });
    }
    let ids = merge_ids(date, &merged);
    Ok(EpisodeMerge {
        text: render_blocks(&merged, "\n\n"),
        ours: renames_from(&merge_ids(date, &o), &ids),
        theirs: renames_from(&merge_ids(date, &t), &ids),
        base: renames_from(&merge_ids(date, &b), &ids),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MERGE_DAY: &str =
        "# 2026-12-01 — Episode Log\n\n## 09:00 | fact | confidence:high | tags:[]\nBase entry.\n";

    #[test]
    fn without_tagged_drops_only_the_tagged_entries() {
        let day = "# 2026-12-01 — Episode Log\n\n\
## 09:00 | fact | confidence:high | tags:[]\nKept.\n\n\
## 09:01 | event | confidence:high | tags:[transcript, claude-code]\n**user:** hi\n<!-- source: claude-code:u1 -->\n\n\
## 09:02 | event | confidence:high | tags:[transcripts]\nAlso kept: another tag.\n";
        let (out, n) = without_tagged(day, "transcript");
        assert_eq!(n, 1);
        assert!(out.contains("Kept.") && out.contains("Also kept"), "{out}");
        assert!(!out.contains("**user:** hi") && !out.contains("claude-code:u1"), "{out}");
        assert_eq!(without_tagged(day, "absent"), (day.to_owned(), 0));
    }

    #[test]
    fn merge3_episodes_keep_both_sides_in_time_order() {
        let ours =
            format!("{MERGE_DAY}\n## 10:00 | fact | confidence:high | tags:[]\nOurs at ten.\n");
        let theirs = format!(
            "{MERGE_DAY}\n## 09:30 | fact | confidence:high | tags:[]\nTheirs at half past nine.\n\n## 10:00 | event | confidence:low | tags:[]\nTheirs at ten.\n"
        );
        let m = merge3("2026-12-01", Some(MERGE_DAY), &ours, &theirs).unwrap();
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
        let back = merge3("2026-12-01", Some(MERGE_DAY), &theirs, &ours).unwrap();
        assert_eq!(back.text.matches("## ").count(), m.text.matches("## ").count());
    }

    #[test]
    fn merge3_an_entry_deleted_on_one_side_stays_deleted_and_identical_entries_dedupe() {
        let deleted = MERGE_DAY
            .replace("Base entry.", "<!-- deleted by cogmem forget --permanent on 2026-12-01 -->");
        let theirs = format!("{MERGE_DAY}\n## 11:00 | fact | confidence:high | tags:[]\nSame.\n");
        let ours = format!("{deleted}\n## 11:00 | fact | confidence:high | tags:[]\nSame.\n");
        let m = merge3("2026-12-01", Some(MERGE_DAY), &ours, &theirs).unwrap();
        assert!(!m.text.contains("Base entry."), "{}", m.text);
        assert_eq!(m.text.matches("Same.").count(), 1);
    }

    fn entry<'a>(time: &'a str, text: &'a str, tags: &'a [String]) -> NewEntry<'a> {
        NewEntry {
            date: "2026-02-02",
            time,
            kind: EntryType::Fact,
            confidence: Confidence::High,
            tags,
            text,
        }
    }

    #[test]
    fn appends_entries_with_minute_suffixes() {
        let tags = vec!["db".to_owned(), "alice".to_owned()];
        let Appended::Written { content, id, line } =
            append(None, &entry("14:30", "Alice prefers tea.", &tags)).unwrap()
        else {
            panic!()
        };
        assert_eq!(id, "episode:2026-02-02:14:30");
        assert!(content.starts_with("# 2026-02-02 — Episode Log\n"));
        assert_eq!(
            content.lines().nth(line - 1),
            Some("## 14:30 | fact | confidence:high | tags:[db, alice]")
        );
        assert!(content.ends_with("tags:[db, alice]\nAlice prefers tea.\n"), "{content:?}");
        let Appended::Written { content: c2, id: id2, .. } =
            append(Some(&content), &entry("14:30", "Bob too", &[])).unwrap()
        else {
            panic!()
        };
        assert_eq!(id2, "episode:2026-02-02:14:30:2");
        assert!(c2.starts_with(&content), "append-only: earlier bytes unchanged");
        assert!(c2.ends_with(
            "Alice prefers tea.\n\n## 14:30 | fact | confidence:high | tags:[]\nBob too\n"
        ));
        assert_eq!(
            append(Some(&c2), &entry("15:00", " Bob   too ", &[])).unwrap(),
            Appended::Duplicate { id: "episode:2026-02-02:14:30:2".into(), line: 9 }
        );
    }

    /// A day import gives byte for byte the file and the ids that one `append_imported` per
    /// message gives, same-minute collisions and an existing day included (issue 20).
    #[test]
    fn a_day_import_is_the_same_as_one_append_per_message() {
        let first = append(None, &entry("09:00", "First.", &[])).unwrap();
        let Appended::Written { content: start, .. } = first else { panic!("written") };
        let times = ["09:00", "09:00", "10:15", "09:00", "10:15", "23:59"];
        let ids = vec!["person--eve".to_owned()];
        let mut one_by_one = start.clone();
        let mut want_ids = Vec::new();
        let mut day = DayImport::new(Some(&start), "2026-02-02").unwrap();
        let mut got_ids = Vec::new();
        for (k, t) in times.iter().enumerate() {
            let text = format!("message {k}");
            let e = NewEntry { text: &text, ..entry(t, "", &[]) };
            let source = format!("D1:{k}");
            let ents: &[String] = if k % 2 == 0 { &ids } else { &[] };
            let Appended::Written { content, id, .. } =
                append_imported(Some(&one_by_one), &e, &source, ents).unwrap()
            else {
                panic!("an import always writes")
            };
            one_by_one = content;
            want_ids.push(id);
            got_ids.push(day.append(&e, &source, ents));
        }
        assert_eq!(day.into_content(), one_by_one);
        assert_eq!(got_ids, want_ids);
        assert_eq!(want_ids[1], "episode:2026-02-02:09:00:3", "after First. and message 0");
        let fresh = DayImport::new(None, "2026-02-02").unwrap().into_content();
        assert_eq!(fresh, new_day("2026-02-02").unwrap());
    }

    /// Taking a day import's file in pieces between appends, as a streaming import flushes
    /// it, gives the same bytes and ids as building it whole, from a new day or an existing
    /// one ending with or without a blank line; and `sources` reads back every source.
    #[test]
    fn a_day_import_taken_in_pieces_is_the_same_as_whole() {
        let first = append(None, &entry("09:00", "First.", &[])).unwrap();
        let Appended::Written { content: start, .. } = first else { panic!("written") };
        for existing in [
            None,
            Some(start.clone()),
            Some(format!("{start}\n")),
            Some(start.trim_end().to_owned()),
        ] {
            for every in [1, 2, 3, 7] {
                let mut whole = DayImport::new(existing.as_deref(), "2026-02-02").unwrap();
                let mut parts = DayImport::new(existing.as_deref(), "2026-02-02").unwrap();
                let mut pieces = String::new();
                for k in 0..9 {
                    let text = format!("message {k}");
                    let t = if k % 3 == 0 { "09:00" } else { "11:30" };
                    let e = NewEntry { text: &text, ..entry(t, "", &[]) };
                    let src = format!("m{k}");
                    assert_eq!(whole.append(&e, &src, &[]), parts.append(&e, &src, &[]));
                    if k % every == 0 {
                        pieces.push_str(&parts.take());
                    }
                }
                assert_eq!(
                    parts.built_bytes(),
                    whole.built_bytes(),
                    "existing: {existing:?}, every {every}"
                );
                pieces.push_str(&parts.take());
                let whole = whole.into_content();
                assert_eq!(pieces, whole, "existing: {existing:?}, every {every}");
                let want: Vec<String> = (0..9).map(|k| format!("m{k}")).collect();
                assert_eq!(sources(&whole), want);
                let listed: Vec<String> =
                    entries(&whole).into_iter().filter_map(|h| h.source).collect();
                assert_eq!(listed, want);
            }
        }
    }

    #[test]
    fn imported_entities_line_is_read_and_not_text() {
        let entry = NewEntry {
            date: "2023-05-08",
            time: "13:56",
            kind: EntryType::Event,
            confidence: Confidence::High,
            tags: &[],
            text: "**Caroline:** hi",
        };
        let ids = vec!["person--caroline".to_owned(), "place--sweden".to_owned()];
        let Appended::Written { content, .. } =
            append_imported(None, &entry, "D1:1", &ids).unwrap()
        else {
            panic!("not written")
        };
        assert!(content.ends_with(
            "**Caroline:** hi\n<!-- source: D1:1 -->\n<!-- entities: [[person--caroline]] [[place--sweden]] -->\n"
        ));
        let e = &entries(&content)[0];
        assert_eq!((e.text.as_str(), e.source.as_deref()), ("**Caroline:** hi", Some("D1:1")));
        assert_eq!(e.entities, ids);
    }

    // See: issue 16
    /// Hostile import ids, speakers, tags and text: the day file gets exactly one new entry,
    /// whose fields read back as written (tags in their escaped form), and no heading or
    /// comment line the writer did not put there.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings};
        use proptest::prelude::*;
        let first = append(None, &entry("09:00", "First.", &[])).unwrap();
        let Appended::Written { content: day, .. } = first else { panic!("written") };
        let strategy = (
            hostile::value(),
            hostile::value(),
            hostile::value(),
            prop::collection::vec(hostile::value(), 0..4),
        );
        hostile::runner(96)
            .run(&strategy, |(source, speaker, text, tags)| {
                let said = said(&speaker, &text);
                let new = NewEntry {
                    date: "2026-02-02",
                    time: "10:00",
                    kind: EntryType::Event,
                    confidence: Confidence::High,
                    tags: &tags,
                    text: &said,
                };
                let ids = ["person--eve".to_owned()];
                let Appended::Written { content, id, line } =
                    append_imported(Some(&day), &new, &source, &ids).unwrap()
                else {
                    panic!("an import always writes")
                };
                prop_assert!(content.starts_with(&day), "append-only");
                prop_assert_eq!(id, "episode:2026-02-02:10:00");
                let heads = entries(&content);
                prop_assert_eq!(heads.len(), 2, "{}", content);
                let e = &heads[1];
                prop_assert_eq!(e.line, line);
                prop_assert_eq!(e.source.as_deref(), Some(source.as_str()));
                prop_assert_eq!(&e.kind, "event");
                prop_assert_eq!(&e.entities, &ids);
                prop_assert!(!e.deleted);
                let want: Vec<String> =
                    tags.iter().map(|t| markdown::tag(t)).filter(|t| !t.is_empty()).collect();
                prop_assert_eq!(&e.tags, &want);
                prop_assert_eq!(&e.text, &normalize(&said));
                prop_assert_eq!(&heads[0].text, "First.");
                // One heading per entry for Markdown too, and only the writer's comment lines.
                let h = headings(&content);
                prop_assert_eq!(h.len(), 3, "{:?}", h);
                prop_assert!(h[1].1.starts_with("09:00 |") && h[2].1.starts_with("10:00 |"));
                for l in content.lines().filter(|l| l.starts_with("## ")) {
                    prop_assert_eq!(check_heading(l), Some(Ok(())));
                }
                let comments = comment_lines(&content)?;
                let ours = comments.iter().filter(|c| !day.contains(*c)).count();
                prop_assert_eq!(ours, 2, "{:?}", comments);
                prop_assert_eq!(blocks(&content).len(), 3);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn source_escapes_are_read_back_and_old_sources_read_as_before() {
        for source in ["D1:1", "a\\b", "x -->\n## y", " lead", "tail ", "<!--", "\u{0}\r\t\u{2028}"]
        {
            let line = source_line(source);
            assert_eq!(parse_source(&line).as_deref(), Some(source), "source: {source:?}");
            assert!(!line.contains('\n') && line.matches("-->").count() == 1, "{line:?}");
        }
        assert_eq!(
            parse_source("<!-- source: C:\\x\\y - -> -->").as_deref(),
            Some("C:\\x\\y - ->")
        );
    }

    #[test]
    fn heading_time_cases() {
        let cases = [
            ("## 14:30 | fact | confidence:high | tags:[]", Some("14:30")),
            ("## 14:30", None),
            ("## Notes | x", None),
            ("### 14:30 | fact", None),
        ];
        for (input, want) in cases {
            assert_eq!(heading_time(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn deleted_entries_keep_their_heading() {
        let text = "# D\n\n## 09:00 | fact | confidence:high | tags:[]\none\n\n## 09:00 | fact | confidence:high | tags:[]\ntwo\n";
        let out = tombstone(text, 3, "2026-12-02");
        assert_eq!(
            out,
            "# D\n\n## 09:00 | fact | confidence:high | tags:[]\n<!-- deleted by cogmem forget --permanent on 2026-12-02 -->\n\n## 09:00 | fact | confidence:high | tags:[]\ntwo\n"
        );
        let heads = entries(&out);
        assert!(heads[0].deleted && !heads[1].deleted);
        // The last entry of a file, and its ids after.
        let last = tombstone(&out, 6, "2026-12-03");
        assert!(
            last.ends_with(
                "tags:[]\n<!-- deleted by cogmem forget --permanent on 2026-12-03 -->\n"
            )
        );
        assert_eq!(entries(&last).iter().filter(|h| h.deleted).count(), 2);
    }

    #[test]
    fn one_writer_for_plain_and_imported_entries() {
        // The same entry written both ways differs only by the imported comment lines.
        let plain = append(None, &entry("09:00", "Hello there.", &[])).unwrap();
        let imported =
            append_imported(None, &entry("09:00", "Hello there.", &[]), "D1:2", &[]).unwrap();
        let (
            Appended::Written { content: p, id: pid, line: pl },
            Appended::Written { content: i, id: iid, line: il },
        ) = (plain, imported)
        else {
            panic!("both written")
        };
        assert_eq!((pid, pl), (iid, il));
        assert_eq!(format!("{p}<!-- source: D1:2 -->\n"), i);
        // An import may repeat text; a plain append may not.
        let again =
            append_imported(Some(&i), &entry("09:00", "Hello there.", &[]), "D1:3", &[]).unwrap();
        assert!(
            matches!(again, Appended::Written { ref id, .. } if id == "episode:2026-02-02:09:00:2")
        );
        assert!(matches!(
            append(Some(&i), &entry("10:00", "Hello there.", &[])).unwrap(),
            Appended::Duplicate { .. }
        ));
    }

    #[test]
    fn check_heading_cases() {
        let cases: [(&str, Option<Result<(), &str>>); 8] = [
            ("## 14:30 | fact | confidence:high | tags:[a]", Some(Ok(()))),
            ("## 14:30 | Decision | confidence:low | tags:[]", Some(Ok(()))),
            ("## Notes", None),
            ("# 14:30 | fact", None),
            ("## 14:30", Some(Err("\"## 14:30\" is not an entry heading"))),
            ("## 25:00 | fact", Some(Err("\"25:00\" is not a time of day"))),
            (
                "## 14:30 | musing",
                Some(Err(
                    "unknown entry type \"musing\"; expected decision, fact, preference, task, event, emotion or correction",
                )),
            ),
            (
                "## 14:30 | fact | confidence:sure",
                Some(Err("unknown confidence \"sure\"; expected high, medium or low")),
            ),
        ];
        for (line, want) in cases {
            let got = check_heading(line);
            assert_eq!(
                got.as_ref().map(|r| r.as_ref().map_err(String::as_str).copied()),
                want,
                "line: {line:?}"
            );
        }
    }

    #[test]
    fn blocks_split_header_and_entries() {
        let text = "# D\n\n## 09:00 | fact | confidence:high | tags:[]\none\n\n## Notes\nx\n## 09:00 | fact | confidence:high | tags:[]\ntwo\n\n";
        assert_eq!(
            blocks(text),
            [
                ("", "# D"),
                ("09:00", "## 09:00 | fact | confidence:high | tags:[]\none\n\n## Notes\nx"),
                ("09:00", "## 09:00 | fact | confidence:high | tags:[]\ntwo"),
            ]
        );
        assert_eq!(blocks("\n\n"), Vec::<(&str, &str)>::new());
    }
}
