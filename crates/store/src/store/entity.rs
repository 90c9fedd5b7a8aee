//! Entity files of the knowledge graph, `memory/graph/entities/<type>--<slug>.md`: a title, two
//! comment lines (or YAML front matter, kept byte-for-byte), then `## Summary`, `## Facts`,
//! `## Timeline`, `## Open Questions` and `## Relations`. Ids are validated here so that no id
//! can name a path outside the entities folder.

use serde::Serialize;

pub use super::Added;
use super::markdown::{self, find_section, one_line};
use crate::template::{self, TemplateError};
pub use cogmem_text::model::{EntityId, check_relation_name};

mod bullet;
pub use bullet::{
    Bullet, BulletSection, bullet_id, bullets, is_bullet_id, new_fact_id, parse_bullet_id,
};

/// The YAML front matter fields cogmem reads from an entity written by another tool.
#[derive(Debug, Default, serde::Deserialize)]
struct FrontMatter {
    #[serde(default)]
    aliases: Option<Aliases>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    status: Option<Scalar>,
}

/// A front matter value cogmem reads as text when it is a string and ignores otherwise, so
/// that one odd field does not hide the others.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Other(serde::de::IgnoredAny),
}

/// Splits an entity into the byte length of its front matter prefix and the parsed front
/// matter: the one way entity front matter is read. Front matter that is not valid YAML reads
/// as none (the file is still the entity).
fn front_matter(text: &str) -> (usize, Option<FrontMatter>) {
    let (prefix, yaml) = markdown::split_front_matter(text);
    let opts = serde_saphyr::options! { strict_booleans: true };
    let fm = yaml.and_then(|y| serde_saphyr::from_str_with_options::<FrontMatter>(y, opts).ok());
    (prefix, fm)
}

#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Aliases {
    One(String),
    Many(Vec<String>),
}

/// Returns the lower-case names an entity goes by: its label, its H1 title, its `Aliases:`
/// line, and `aliases`/`title` from YAML front matter.
///
/// Front matter that is not valid YAML is ignored here (the file is still the entity).
pub fn names(id: &EntityId, text: &str) -> Vec<String> {
    let mut out = vec![id.label()];
    let mut add = |n: &str| {
        let n = one_line(n).to_lowercase();
        if !n.is_empty() && n != id.as_str() && !out.contains(&n) {
            out.push(n);
        }
    };
    let (prefix, fm) = front_matter(text);
    if let Some(fm) = fm {
        match fm.aliases {
            Some(Aliases::One(a)) => a.split(',').for_each(&mut add),
            Some(Aliases::Many(list)) => list.iter().for_each(|a| add(a)),
            None => {}
        }
        if let Some(t) = fm.title {
            add(&t);
        }
    }
    for line in text[prefix..].lines() {
        if let Some(title) = line.strip_prefix("# ") {
            add(title);
        }
    }
    if let Some(line) = aliases_line(&text[prefix..]) {
        line.1.split(',').for_each(&mut add);
    }
    out
}

/// The `Aliases:` line of a body's `## Summary` section: its byte range in `body` and the
/// names after the key. Only the Summary holds aliases, so a fact or a timeline entry that
/// says "Aliases: …" adds no name.
fn aliases_line(body: &str) -> Option<(std::ops::Range<usize>, &str)> {
    let sections = markdown::sections(body);
    let s = find_section(&sections, "Summary")?;
    let mut offset = s.content.start;
    for line in body[s.content.clone()].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\r', '\n']);
        if let Some(list) = bare.trim_start().trim_start_matches("- ").strip_prefix("Aliases:") {
            return Some((offset..offset + bare.len(), list));
        }
        offset += line.len();
    }
    None
}

/// A `## Relations` bullet: `- relation: [[target]] (since D) (until D) (confidence C)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationLine {
    /// The relation, lower-kebab (a label like "Works on" is normalised).
    pub relation: String,
    /// The target entity id as written.
    pub target: String,
    /// Valid from this date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Valid until this date (exclusive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Confidence, 0 to 1 (default 1).
    pub confidence: f64,
    /// 1-based line in the file.
    pub line: usize,
}

/// The entity a `[[…]]` link names, from what is between the brackets: up to a `|` (a label
/// follows), trimmed.
fn link_target(inner: &str) -> &str {
    inner.split('|').next().unwrap_or("").trim()
}

/// Every `[[…]]` link target in a text, as [`relations`] reads a bullet's target, wherever the
/// link is: a superset of the relation targets, for a quick look at which files may link to an
/// entity.
pub fn link_targets(text: &str) -> impl Iterator<Item = &str> {
    text.split("[[").skip(1).filter_map(|after| Some(link_target(&after[..after.find("]]")?])))
}

/// Reads the relation bullets of an entity file.
pub fn relations(text: &str) -> Vec<RelationLine> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    let Some(s) = find_section(&sections, "Relations") else { return Vec::new() };
    let first = markdown::line_of(text, prefix + s.content.start);
    let mut out = Vec::new();
    for (i, line) in body[s.content.clone()].lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("- ") else { continue };
        let Some((label, after)) = rest.split_once(':') else { continue };
        let Some(open) = after.find("[[") else { continue };
        let Some(close) = after[open..].find("]]") else { continue };
        let target = link_target(&after[open + 2..open + close]).to_owned();
        let tail = &after[open + close + 2..];
        let field = |key: &str| {
            let i = tail.find(&format!("({key} "))?;
            let v = &tail[i + key.len() + 2..];
            Some(v[..v.find(')')?].trim().to_owned())
        };
        out.push(RelationLine {
            relation: markdown::slugify(label),
            target,
            since: field("since"),
            until: field("until"),
            confidence: field("confidence")
                .and_then(|c| c.parse().ok())
                .filter(|c: &f64| (0.0..=1.0).contains(c))
                .unwrap_or(1.0),
            line: first + i,
        });
    }
    out
}

/// Reads an entity's status: `Status:` in its comment lines or `status` in front matter;
/// `active` when neither says.
pub fn status(text: &str) -> String {
    let (prefix, fm) = front_matter(text);
    if let Some(Scalar::Text(v)) = fm.and_then(|f| f.status) {
        let v = v.trim();
        if !v.is_empty() {
            return v.to_lowercase();
        }
    }
    for line in text[prefix..].lines().take(6) {
        if line.trim_start().starts_with("<!--")
            && let Some(i) = line.find("Status:")
        {
            let v = line[i + 7..].split(['|', '-']).next().unwrap_or("").trim();
            if !v.is_empty() {
                return v.to_lowercase();
            }
        }
    }
    "active".into()
}

/// Returns a new entity file.
pub fn new_file(id: &EntityId, date: &str) -> Result<String, TemplateError> {
    template::render("entity.md", &[("id", id.as_str()), ("type", id.kind()), ("date", date)])
}

/// Adds `- fact` at the end of `## Facts` and updates the `Last updated` date. The fact is
/// written as one list item ([`markdown::list_item`]).
pub fn add_fact(text: &str, fact: &str, date: &str) -> Added {
    add_bullet(text, "Facts", &markdown::list_item(fact), date)
}

/// The byte range of the value of the `Tags:` field in an entity comment line `bare` (after
/// `Tags:`, up to the next `|` or `-->`), where [`add_tags`] writes and [`remove_tags`] edits.
fn tags_value(bare: &str) -> Option<(usize, usize)> {
    let start = bare.find("Tags:")? + "Tags:".len();
    let rest = &bare[start..];
    let end = [rest.find('|'), rest.find("-->")].into_iter().flatten().min();
    Some((start, start + end.unwrap_or(rest.len())))
}

/// `bare` with its `Tags:` value ([`tags_value`] at `start..end`) replaced by `list`.
fn with_tags(bare: &str, (start, end): (usize, usize), list: &str) -> String {
    format!("{} {list} {}", &bare[..start], &bare[end..])
}

/// Adds tags to the entity's `Tags:` field, after the ones it has, without repeats: in its
/// `<!-- Type: … -->` comment line, or, in a file without one (front matter, a file written
/// by hand), in a `<!-- Tags: … -->` line of its own after the title. Front matter is kept
/// byte for byte. Returns `None` when it has every tag already.
///
/// Each tag is made safe with [`markdown::tag`]; the search index reads the field from the
/// comment lines (`units`), so the entity is found by its tags.
pub fn add_tags(text: &str, tags: &[String]) -> Option<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let field = tags_value;
    let comments = || body.lines().take(4).filter(|l| l.trim_start().starts_with("<!--"));
    let mut have: Vec<String> = comments()
        .filter_map(|l| {
            let (start, end) = field(l)?;
            Some(l[start..end].to_owned())
        })
        .flat_map(|v| v.split(',').map(|t| t.trim().to_owned()).collect::<Vec<_>>())
        .filter(|t| !t.is_empty() && t != "none")
        .collect();
    let before = have.len();
    for t in tags.iter().map(|t| markdown::tag(t)).filter(|t| !t.is_empty()) {
        if !have.contains(&t) {
            have.push(t);
        }
    }
    if have.len() == before {
        return None;
    }
    let list = have.join(", ");
    let holder = comments()
        .find(|l| field(l).is_some())
        .or_else(|| comments().find(|l| l.contains("Type:")));
    let Some(holder) = holder else {
        // No comment line to hold the field: a line of its own, after the title if there is one.
        let own = format!("<!-- Tags: {list} -->\n");
        let title_end =
            if body.starts_with("# ") { body.find('\n').map(|i| i + 1) } else { Some(0) };
        let (head, rest) = match title_end {
            Some(i) => body.split_at(i),
            None => (body, ""), // only a title, without a newline
        };
        let sep = if head.is_empty() || head.ends_with('\n') { "" } else { "\n" };
        return Some(format!("{}{head}{sep}{own}{rest}", &text[..prefix]));
    };
    let mut out = String::with_capacity(text.len() + list.len() + 16);
    out.push_str(&text[..prefix]);
    let mut done = false;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if done || bare != holder {
            out.push_str(line);
            continue;
        }
        done = true;
        match field(bare) {
            Some(value) => out.push_str(&with_tags(bare, value, &list)),
            None => {
                out.push_str(bare.trim_end().trim_end_matches("-->").trim_end());
                out.push_str(" | Tags: ");
                out.push_str(&list);
                out.push_str(" -->");
            }
        }
        out.push_str(&line[bare.len()..]);
    }
    Some(out)
}

/// Adds `- relation: [[target]]` at the end of `## Relations`.
///
/// The bullet records when it began: `(since DATE)`. A relation that already holds to the same
/// target (no `until`) is a duplicate.
pub fn add_relation(text: &str, relation: &str, target: &EntityId, date: &str) -> Added {
    if let Some(r) = relations(text)
        .into_iter()
        .find(|r| r.relation == relation && r.target == target.as_str() && r.until.is_none())
    {
        return Added::Duplicate { line: r.line };
    }
    add_bullet(text, "Relations", &format!("{relation}: [[{target}]] (since {date})"), date)
}

/// Closes the current relations of one kind to targets other than `keep` by appending
/// `(until DATE)`: for functional relations such as `lives-in`. Returns the new text and the
/// targets closed, or `None` when there was nothing to close.
pub fn close_relations(
    text: &str,
    relation: &str,
    keep: &EntityId,
    date: &str,
) -> Option<(String, Vec<String>)> {
    let open: Vec<RelationLine> = relations(text)
        .into_iter()
        .filter(|r| r.relation == relation && r.target != keep.as_str() && r.until.is_none())
        .collect();
    let out = close_lines(text, &open, date)?;
    Some((out, open.into_iter().map(|r| r.target).collect()))
}

/// Closes the current `relation` bullets that point at `target` by appending `(until DATE)`:
/// the back-link on the other end of a relation that was just closed. Returns the new text, or
/// `None` when no such bullet is open.
pub fn close_relation_to(
    text: &str,
    relation: &str,
    target: &EntityId,
    date: &str,
) -> Option<String> {
    let open: Vec<RelationLine> = relations(text)
        .into_iter()
        .filter(|r| r.relation == relation && r.target == target.as_str() && r.until.is_none())
        .collect();
    close_lines(text, &open, date)
}

/// Removes every relation bullet that points at `target` (the entity being deleted for good),
/// so no link is left dangling. Returns the new text, or `None` when there is none.
pub fn remove_relations_to(text: &str, target: &str) -> Option<String> {
    let lines: Vec<usize> =
        relations(text).into_iter().filter(|r| r.target == target).map(|r| r.line).collect();
    if lines.is_empty() {
        return None;
    }
    let out = text
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, _)| !lines.contains(&(i + 1)))
        .map(|(_, l)| l)
        .collect();
    Some(out)
}

/// Removes every bullet (a `- …` line after the front matter) whose text `drop` matches: the
/// copies of a purged memory's facts. A run of bullets that goes whole between blank lines
/// takes one of them along, so a section left empty reads as a fresh one. Returns the new
/// text, or `None` when none matched.
pub fn remove_bullets(text: &str, drop: impl Fn(&str) -> bool) -> Option<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let mut changed = false;
    let mut body = String::with_capacity(text.len() - prefix);
    // Whether the kept line before the bullets just removed is blank (or the body's start).
    let mut gap_before: Option<bool> = None;
    let mut last_blank = true;
    for l in text[prefix..].split_inclusive('\n') {
        let gone = l
            .trim_start()
            .strip_prefix("- ")
            .is_some_and(|b| drop(b.trim_end_matches(['\n', '\r']).trim_end()));
        if gone {
            changed = true;
            gap_before.get_or_insert(last_blank);
            continue;
        }
        let blank = l.trim().is_empty();
        if gap_before.take() == Some(true) && blank {
            continue;
        }
        last_blank = blank;
        body.push_str(l);
    }
    changed.then(|| format!("{}{body}", &text[..prefix]))
}

/// Removes the tags `drop` matches from the `Tags:` field of the entity's comment lines (where
/// [`add_tags`] writes them); a field left empty says `none`. Front matter is kept byte for
/// byte. Returns the new text, or `None` when no tag matched.
pub fn remove_tags(text: &str, drop: impl Fn(&str) -> bool) -> Option<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..prefix]);
    let mut changed = false;
    for (n, line) in text[prefix..].split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let field = tags_value(bare).filter(|_| n < 4 && bare.trim_start().starts_with("<!--"));
        let Some(value) = field else {
            out.push_str(line);
            continue;
        };
        let tags: Vec<&str> = bare[value.0..value.1]
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty() && *t != "none")
            .collect();
        let kept: Vec<&str> = tags.iter().copied().filter(|t| !drop(t)).collect();
        if kept.len() == tags.len() {
            out.push_str(line);
            continue;
        }
        changed = true;
        let list = if kept.is_empty() { "none".to_owned() } else { kept.join(", ") };
        out.push_str(&with_tags(bare, value, &list));
        out.push_str(&line[bare.len()..]);
    }
    changed.then_some(out)
}

/// Appends `(until DATE)` to the given relation bullets; `None` when there are none.
fn close_lines(text: &str, open: &[RelationLine], date: &str) -> Option<String> {
    if open.is_empty() {
        return None;
    }
    let lines: Vec<usize> = open.iter().map(|r| r.line).collect();
    let mut out = String::with_capacity(text.len() + 24 * lines.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if lines.contains(&(i + 1)) {
            let (bare, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            out.push_str(bare.trim_end());
            out.push_str(&format!(" (until {date}){nl}"));
        } else {
            out.push_str(line);
        }
    }
    Some(out)
}

/// Sets an entity's status: the `status` field of its front matter when it has one, else the
/// `Status:` field of its `<!-- Type: … -->` comment line, added to that line when missing.
/// Text with neither comes back unchanged.
pub fn set_status(text: &str, status: &str) -> String {
    let (prefix, yaml) = markdown::split_front_matter(text);
    if let Some(y) = yaml
        && y.lines().any(|l| l.starts_with("status:"))
    {
        let new_yaml: String = y
            .lines()
            .map(|l| {
                if l.starts_with("status:") {
                    format!("status: {status}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        return text.replacen(y, &new_yaml, 1);
    }
    if let Some(new) =
        markdown::update_comment_fields(text, "Type:", &[("Status", status.to_owned())])
    {
        return new;
    }
    let mut out = String::with_capacity(text.len() + 24);
    out.push_str(&text[..prefix]);
    let mut done = false;
    for line in text[prefix..].split_inclusive('\n') {
        let t = line.trim_end();
        if !done
            && t.starts_with("<!--")
            && t.contains("Type:")
            && t.ends_with("-->")
            && !t.contains("Status:")
        {
            out.push_str(&format!(
                "{} | Status: {status} -->",
                t.trim_end_matches("-->").trim_end()
            ));
            if line.ends_with('\n') {
                out.push('\n');
            }
            done = true;
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Adds `- entry` at the end of `## Timeline` (creating the section when missing). Unlike
/// facts, timeline entries are never duplicates: each records an event. The entry is written
/// as one list item ([`markdown::list_item`]).
pub fn add_timeline_entry(text: &str, entry: &str) -> String {
    let entry = markdown::list_item(entry);
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let mut sections = markdown::sections(body);
    let owned;
    let body = if find_section(&sections, "Timeline").is_none() {
        owned = markdown::append_section(body, "Timeline");
        sections = markdown::sections(&owned);
        owned.as_str()
    } else {
        body
    };
    let s = find_section(&sections, "Timeline").expect("the section exists now");
    let (new, _) = markdown::insert_at_section_end(body, s, &format!("- {entry}"));
    format!("{}{new}", &text[..prefix])
}

/// Replaces the fact that reads `old` (as [`facts`] returns it) with `new` (one list item,
/// [`markdown::list_item`]) and updates the `Last updated` date: a reflection's REWRITE.
/// Returns [`Added::Duplicate`] (nothing changes) when `new` is already a fact, and `None`
/// when no fact reads `old`.
pub fn replace_fact(text: &str, old: &str, new: &str, date: &str) -> Option<Added> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    let s = find_section(&sections, "Facts")?;
    let start_line = markdown::line_of(text, prefix + s.content.start);
    let facts: Vec<(usize, &str)> = body[s.content.clone()]
        .lines()
        .enumerate()
        .filter_map(|(i, l)| Some((start_line + i, l.trim_start().strip_prefix("- ")?)))
        .collect();
    let (line, _) = facts.iter().find(|(_, f)| *f == old)?;
    let bullet = markdown::list_item(new);
    if let Some((at, _)) = facts.iter().find(|(_, f)| markdown::is_one_line_of(f, &bullet)) {
        return Some(Added::Duplicate { line: *at });
    }
    let current = text.lines().nth(line - 1)?;
    let indent = &current[..current.len() - current.trim_start().len()];
    let replaced = markdown::replace_line(text, *line, &format!("{indent}- {bullet}"))?;
    let body = touch_last_updated(&replaced[prefix..], date);
    Some(Added::Written { content: format!("{}{body}", &replaced[..prefix]), line: *line })
}

/// Reads the bullets of `## Facts`, as written (without the `- `).
pub fn facts(text: &str) -> Vec<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    let Some(s) = find_section(&sections, "Facts") else { return Vec::new() };
    body[s.content.clone()]
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// Returns what an entity says about itself now, as lines without their `- `: the text lines
/// of `## Summary` (its `Aliases:` line included), then the bullets of `## Facts`; for a note
/// with neither section (written by another tool), its text and bullet lines outside `##
/// Relations`. Headings and comment lines are left out. What a context card shows (issue 18).
pub fn description(text: &str) -> Vec<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    let lines = |part: &str| -> Vec<String> {
        part.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("<!--"))
            .map(|l| l.strip_prefix("- ").unwrap_or(l).to_owned())
            .collect()
    };
    let summary = find_section(&sections, "Summary");
    let facts = find_section(&sections, "Facts");
    if summary.is_none() && facts.is_none() {
        return match find_section(&sections, "Relations") {
            Some(s) => lines(&format!("{}{}", &body[..s.range.start], &body[s.range.end..])),
            None => lines(body),
        };
    }
    [summary, facts].into_iter().flatten().flat_map(|s| lines(&body[s.content.clone()])).collect()
}

/// Adds names to the `Aliases:` line of an entity's `## Summary` (`names` is a
/// comma-separated list, written as one [`markdown::field`]), or adds an `Aliases:` line at the
/// end of `## Summary` when there is none. Text without a Summary comes back unchanged, as it
/// does for empty `names`.
pub fn add_aliases(text: &str, names: &str) -> String {
    let names = markdown::field(names);
    if names.is_empty() {
        return text.to_owned();
    }
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    if let Some((range, _)) = aliases_line(body) {
        let end = prefix + range.end;
        return format!("{}, {names}{}", &text[..end], &text[end..]);
    }
    let sections = markdown::sections(body);
    match find_section(&sections, "Summary") {
        Some(s) => {
            let (new, _) = markdown::insert_at_section_end(body, s, &format!("Aliases: {names}"));
            format!("{}{new}", &text[..prefix])
        }
        None => text.to_owned(),
    }
}

/// Returns the file a merged entity leaves behind: a title, a comment line with status
/// `merged` and where it went, and one sentence linking to the entity it was merged into.
pub fn merged_redirect(id: &EntityId, into: &EntityId, date: &str) -> String {
    format!(
        "# {id}\n<!-- Type: {} | Status: merged | Merged into: {into} | Merged: {date} -->\n\nMerged into [[{into}]] on {date}.\n",
        id.kind()
    )
}

/// Points every `[[from]]` link in an entity file at `to` instead; `None` when the text has
/// no such link.
///
/// A merge redirect's `Merged into:` field follows too.
pub fn rewire_links(text: &str, from: &str, to: &str) -> Option<String> {
    let linked = markdown::rewire_links(text, from, to);
    let base = linked.as_deref().unwrap_or(text);
    let anchor = format!("Merged into: {from} |");
    markdown::update_comment_fields(base, &anchor, &[("Merged into", to.to_owned())]).or(linked)
}

/// Returns an entity file renamed from `old` to `new` (`graph rename`, `graph retype`): a
/// `# old` title becomes `# new`, the comment line's `Type:` and a front matter `type:` follow
/// a new type, `[[old]]` links in it point to `new`, `old` joins the `Aliases:` line so that
/// references to it still resolve, and the timeline says when it was renamed.
pub fn renamed(text: &str, old: &EntityId, new: &EntityId, date: &str) -> String {
    let (prefix, _) = markdown::split_front_matter(text);
    let mut front = text[..prefix].to_owned();
    let mut body = text[prefix..].to_owned();
    if old.kind() != new.kind() {
        front = front
            .split_inclusive('\n')
            .map(|l| match l.strip_prefix("type:") {
                Some(_) => {
                    format!("type: {}{}", new.kind(), if l.ends_with('\n') { "\n" } else { "" })
                }
                None => l.to_owned(),
            })
            .collect();
        if let Some(b) =
            markdown::update_comment_fields(&body, "Type:", &[("Type", new.kind().to_owned())])
        {
            body = b;
        }
    }
    let title = format!("# {old}");
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_end() == title {
            break;
        }
        at += line.len();
    }
    if at < body.len() {
        body.replace_range(at..at + title.len(), &format!("# {new}"));
    }
    if let Some(b) = markdown::rewire_links(&body, old.as_str(), new.as_str()) {
        body = b;
    }
    let text = add_aliases(&format!("{front}{body}"), old.as_str());
    add_timeline_entry(&text, &format!("{date}: renamed from {old}"))
}

fn add_bullet(text: &str, section: &str, bullet: &str, date: &str) -> Added {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let mut sections = markdown::sections(body);
    if let Some(s) = find_section(&sections, section) {
        let content = &body[s.content.clone()];
        let start_line = markdown::line_of(text, prefix + s.content.start);
        if let Some(i) = content.lines().position(|l| {
            l.trim_start().strip_prefix("- ").is_some_and(|b| markdown::says_the_same(b, bullet))
        }) {
            return Added::Duplicate { line: start_line + i };
        }
    }
    let owned;
    let body = if find_section(&sections, section).is_none() {
        owned = markdown::append_section(body, section);
        sections = markdown::sections(&owned);
        owned.as_str()
    } else {
        body
    };
    let s = find_section(&sections, section).expect("the section exists now");
    let (new_body, pos) = markdown::insert_at_section_end(body, s, &format!("- {bullet}"));
    let new_body = touch_last_updated(&new_body, date);
    let content = format!("{}{new_body}", &text[..prefix]);
    let line = markdown::line_of(&content, prefix + pos);
    Added::Written { content, line }
}

/// Rewrites `Last updated: …` in the `<!-- Type: … -->` comment line, if there is one.
fn touch_last_updated(body: &str, date: &str) -> String {
    let mut out = String::with_capacity(body.len() + date.len());
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_start().starts_with("<!--")
            && let Some(i) = line.find("Last updated:")
        {
            let after = &line[i + "Last updated:".len()..];
            let end = [after.find('|'), after.find("-->")].into_iter().flatten().min();
            let end = end.unwrap_or(after.len());
            out.push_str(&body[..at]);
            out.push_str(&line[..i]);
            out.push_str("Last updated: ");
            out.push_str(date);
            out.push(' ');
            out.push_str(&after[end..]);
            // The first such line only; the rest as it is.
            out.push_str(&body[at + line.len()..]);
            return out;
        }
        at += line.len();
    }
    body.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 20
    /// Every `[[…]]` target, as a relation bullet's target is read: labels cut, spaces trimmed,
    /// an unclosed link ignored; relation targets are among them.
    #[test]
    fn link_targets_read_targets_as_relations_do() {
        let text = "## Relations\n\n- lives-in: [[ place--lisbon | Lisboa ]] (since 2025)\n- knows: [[person--bob]]\n\nSee [[person--ann]] and [[broken";
        let all: Vec<&str> = link_targets(text).collect();
        assert_eq!(all, ["place--lisbon", "person--bob", "person--ann"]);
        for r in relations(text) {
            assert!(all.contains(&r.target.as_str()), "{}", r.target);
        }
    }

    #[test]
    fn remove_bullets_and_tags_take_out_only_what_matches() {
        let text = "# org--clinic\n<!-- Type: org | Tags: fact, quentin-doeberg, clinic -->\n\n## Facts\n\n- Quentin has diabetes\n- Opens at eight\n";
        let cut = remove_bullets(text, |b| b == "Quentin has diabetes").unwrap();
        assert_eq!(cut, text.replace("- Quentin has diabetes\n", ""));
        assert!(remove_bullets(text, |_| false).is_none());
        let only = "## Facts\n\n- Quentin has diabetes\n\n## Timeline\n";
        let cut_only = remove_bullets(only, |b| b.starts_with("Quentin")).unwrap();
        assert_eq!(cut_only, "## Facts\n\n## Timeline\n", "no blank line left over");
        let untagged = remove_tags(&cut, |t| t == "quentin-doeberg").unwrap();
        assert!(untagged.contains("<!-- Type: org | Tags: fact, clinic -->\n"), "{untagged}");
        let none = remove_tags(&untagged, |t| t != "zzz").unwrap();
        assert!(none.contains("| Tags: none -->\n"), "{none}");
        assert!(remove_tags(&none, |_| true).is_none(), "`none` is no tag");
    }

    #[test]
    fn replace_fact_rewrites_one_fact_in_place() {
        let text = "# person--ann\n<!-- Type: person | Created: 2026-11-01 | Last updated: 2026-11-01 -->\n\n## Facts\n- Ann lives in Oslo\n- Ann likes tea\n\n## Relations\n";
        let Some(Added::Written { content, line }) = replace_fact(
            text,
            "Ann likes tea",
            "Ann likes\n## Relations\n- owns: [[x--y]]",
            "2026-12-01",
        ) else {
            panic!("a fact is rewritten")
        };
        assert_eq!(line, 6);
        assert_eq!(
            content,
            "# person--ann\n<!-- Type: person | Created: 2026-11-01 | Last updated: 2026-12-01 -->\n\n## Facts\n- Ann lives in Oslo\n- Ann likes ## Relations - owns: [[x--y]]\n\n## Relations\n"
        );
        assert!(relations(&content).is_empty(), "a fact never becomes a relation");
        assert_eq!(
            replace_fact(text, "Ann likes tea", "Ann lives in Oslo", "2026-12-01"),
            Some(Added::Duplicate { line: 5 })
        );
        assert_eq!(replace_fact(text, "Ann likes coffee", "x", "2026-12-01"), None);
    }

    #[test]
    fn renamed_moves_title_type_links_and_keeps_the_old_id_as_an_alias() {
        let old = EntityId::parse("concept--hana").unwrap();
        let new = EntityId::parse("person--hana").unwrap();
        let text = new_file(&old, "2026-11-01").unwrap();
        let text = match add_relation(&text, "relates-to", &old, "2026-11-01") {
            Added::Written { content, .. } => content,
            Added::Duplicate { .. } => unreachable!(),
        };
        let got = renamed(&text, &old, &new, "2026-12-01");
        assert!(
            got.starts_with("# person--hana\n<!-- Type: person | Created: 2026-11-01"),
            "{got}"
        );
        assert!(got.contains("Aliases: concept--hana"), "{got}");
        assert!(got.contains("- relates-to: [[person--hana]]"), "{got}");
        assert!(got.contains("- 2026-12-01: renamed from concept--hana"), "{got}");
        assert!(names(&new, &got).contains(&"concept--hana".to_owned()));
        // Front matter keeps every byte but the type.
        let fm = "---\ntype: concept\ntags: [x]\n---\n# Hana\n\n## Summary\n";
        let got = renamed(fm, &old, &new, "2026-12-01");
        assert!(got.starts_with("---\ntype: person\ntags: [x]\n---\n# Hana\n"), "{got}");
        // A rename within a type keeps the type.
        let other = EntityId::parse("concept--hanna").unwrap();
        assert!(renamed(&text, &old, &other, "2026-12-01").contains("Type: concept"));
    }

    #[test]
    fn description_is_summary_and_facts_or_a_note_without_its_relations() {
        let entity = "# tool--x\n<!-- Type: tool -->\n\n## Summary\n\nA build tool.\n\n## Facts\n\n\
                      - runs on rack 4\n\n## Timeline\n\n- 2026-01-01: bought\n\n## Relations\n\n\
                      - uses: [[tool--y]]\n";
        assert_eq!(description(entity), ["A build tool.", "runs on rack 4"]);
        let note =
            "---\ntitle: X\n---\n# X\nSome text.\n- a point\n## Relations\n- uses: [[tool--y]]\n";
        assert_eq!(description(note), ["Some text.", "a point"]);
        assert!(description("# tool--x\n\n## Facts\n\n## Relations\n").is_empty());
    }

    #[test]
    fn tags_join_the_type_line_or_get_a_line_of_their_own() {
        let tags = |t: &[&str]| t.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let card = "# person--hana\n<!-- Type: person | Created: 2026-12-01 | Last updated: 2026-12-01 -->\n\n## Facts\n";
        let once = add_tags(card, &tags(&["family", "kin"])).unwrap();
        assert!(once.starts_with("# person--hana\n<!-- Type: person | Created: 2026-12-01 | Last updated: 2026-12-01 | Tags: family, kin -->\n\n## Facts\n"), "{once}");
        let twice = add_tags(&once, &tags(&["kin", "a|b]"])).unwrap();
        assert!(twice.contains("| Tags: family, kin, a/b) -->\n"), "{twice}");
        assert_eq!(add_tags(&twice, &tags(&["family"])), None, "nothing new, nothing written");
        // Front matter stays byte for byte; the field gets its own comment line after the title.
        let fm = "---\ntags: [vcs]\n---\n# git\n\n## Facts\n- used daily\n";
        let out = add_tags(fm, &tags(&["tools"])).unwrap();
        assert_eq!(
            out,
            "---\ntags: [vcs]\n---\n# git\n<!-- Tags: tools -->\n\n## Facts\n- used daily\n"
        );
        let units = crate::store::units::file_units("memory/graph/entities/tool--git.md", &out);
        assert_eq!(units[0].tags, ["tools", "vcs"]);
    }

    #[test]
    fn id_validation_cases() {
        let ok = ["person--alice", "project--cogmem-v2", "concept--oauth2-pkce", "place--münchen"];
        for id in ok {
            assert!(EntityId::parse(id).is_ok(), "id: {id:?}");
        }
        let bad = [
            ("", "empty"),
            ("person--../x", "`..`"),
            ("person--a/b", "path separator"),
            ("person--a\\b", "path separator"),
            ("person--a\u{7}", "control"),
            ("alice", "no `--`"),
            ("Person--alice", "type must"),
            ("person--Alice", "lower-kebab"),
            ("person--alice smith", "lower-kebab"),
            ("person--", "lower-kebab"),
        ];
        for (id, why) in bad {
            let err = EntityId::parse(id).unwrap_err().to_string();
            assert!(err.contains(why), "id: {id:?} gave {err}");
        }
    }

    // See: issue 16
    // See: issue 16
    /// Hostile facts, timeline entries and aliases: the file keeps its six headings and two
    /// comment lines, the fact reads back as written (its list-item form), the aliases are the
    /// only new names, and no relation or status appears.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings};
        use proptest::prelude::*;
        let id = EntityId::parse("person--eve").unwrap();
        let file = new_file(&id, "2026-02-01").unwrap();
        let strategy = (hostile::value(), hostile::value(), hostile::value());
        hostile::runner(96)
            .run(&strategy, |(fact, event, aliases)| {
                let want = markdown::list_item(&fact);
                prop_assume!(!want.is_empty());
                let Added::Written { content, line } = add_fact(&file, &fact, "2026-02-02") else {
                    panic!("a new fact is written")
                };
                let bullet = format!("- {want}");
                prop_assert_eq!(content.lines().nth(line - 1), Some(bullet.as_str()));
                let content = add_timeline_entry(&content, &event);
                let content = add_aliases(&content, &aliases);
                prop_assert_eq!(headings(&content), headings(&file));
                prop_assert_eq!(comment_lines(&content)?.len(), 2);
                prop_assert_eq!(facts(&content), vec![want]);
                prop_assert!(relations(&content).is_empty());
                prop_assert_eq!(status(&content), "active");
                let mut names_want = vec![id.label()];
                for n in markdown::field(&aliases).split(',') {
                    let n = one_line(n).to_lowercase();
                    if !n.is_empty() && n != id.as_str() && !names_want.contains(&n) {
                        names_want.push(n);
                    }
                }
                prop_assert_eq!(names(&id, &content), names_want);
                let entry = format!("- {}", markdown::list_item(&event));
                prop_assert!(
                    content.lines().any(|l| l.trim_end() == entry.trim_end()),
                    "{}",
                    content
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn new_entity_gets_fact_and_relation() {
        let id = EntityId::parse("person--alice").unwrap();
        let file = new_file(&id, "2026-02-01").unwrap();
        let Added::Written { content, line } = add_fact(&file, "Prefers tea", "2026-02-02") else {
            panic!()
        };
        assert_eq!(content.lines().nth(line - 1), Some("- Prefers tea"));
        assert!(
            content
                .contains("<!-- Type: person | Created: 2026-02-01 | Last updated: 2026-02-02 -->"),
            "{content}"
        );
        assert_eq!(add_fact(&content, "Prefers  tea", "2026-02-03"), Added::Duplicate { line });
        let target = EntityId::parse("project--atlas").unwrap();
        let Added::Written { content, line } =
            add_relation(&content, "works-on", &target, "2026-02-03")
        else {
            panic!()
        };
        assert_eq!(
            content.lines().nth(line - 1),
            Some("- works-on: [[project--atlas]] (since 2026-02-03)")
        );
        assert!(
            content
                .ends_with("## Relations\n\n- works-on: [[project--atlas]] (since 2026-02-03)\n"),
            "{content}"
        );
        assert_eq!(
            add_relation(&content, "works-on", &target, "2026-03-01"),
            Added::Duplicate { line }
        );
        let lisbon = EntityId::parse("place--lisbon").unwrap();
        let (closed, targets) =
            close_relations(&content, "works-on", &lisbon, "2026-03-01").unwrap();
        assert_eq!(targets, ["project--atlas"]);
        assert!(closed.ends_with("(since 2026-02-03) (until 2026-03-01)\n"), "{closed}");
    }

    #[test]
    fn names_come_from_label_title_aliases_and_front_matter() {
        let id = EntityId::parse("project--atlas").unwrap();
        let text = "---\naliases: [The New App, atlas-v2]\nstatus: no\n---\n# Atlas\n\n## Summary\nAliases: Project A\n";
        assert_eq!(names(&id, text), ["atlas", "the new app", "atlas-v2", "project a"]);
        assert_eq!(names(&id, "---\n: : bad\n---\n"), ["atlas"]);
    }

    #[test]
    fn relation_lines_with_validity_and_confidence() {
        let text = "# person--alice\n\n## Relations\n- lives-in: [[place--lisbon]] (since 2026-01-01)\n- Works At: [[organization--acme]] (until 2025-12-31) (confidence 0.7)\n- not a relation\n";
        let r = relations(text);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].relation.as_str(), r[0].target.as_str(), r[0].since.as_deref(), r[0].line),
            ("lives-in", "place--lisbon", Some("2026-01-01"), 4)
        );
        assert_eq!(
            (r[1].relation.as_str(), r[1].until.as_deref(), r[1].confidence),
            ("works-at", Some("2025-12-31"), 0.7)
        );
        assert_eq!(status(text), "active");
        assert_eq!(status("# x\n<!-- Type: person | Status: superseded -->\n"), "superseded");
    }

    #[test]
    fn front_matter_is_kept_byte_for_byte() {
        let text = "---\ntype: person\naliases: [Al]\n---\n# Alice\n\n## Facts\n- a\n";
        let Added::Written { content, line } = add_fact(text, "b", "2026-02-02") else { panic!() };
        assert!(content.starts_with("---\ntype: person\naliases: [Al]\n---\n# Alice\n"));
        assert_eq!(content.lines().nth(line - 1), Some("- b"));
    }

    #[test]
    fn status_cases() {
        let cases = [
            ("# x\n", "active"),
            ("# x\n<!-- Type: person | Status: superseded -->\n", "superseded"),
            ("---\nstatus: Inactive\n---\n# x\n", "inactive"),
            ("---\nstatus: 'merged'\n---\n# x\n", "merged"),
            ("---\nstatus:\n---\n# x\n<!-- Type: t | Status: merged -->\n", "merged"),
            ("---\nstatus: 3\naliases: [Al]\n---\n# x\n", "active"),
            ("---\n: : bad\n---\n# x\n<!-- Type: t | Status: inactive -->\n", "inactive"),
        ];
        for (input, want) in cases {
            assert_eq!(status(input), want, "input: {input:?}");
        }
        // A field of an odd type does not hide the others.
        let id = EntityId::parse("person--al").unwrap();
        assert_eq!(names(&id, "---\nstatus: 3\naliases: [Alfred]\n---\n"), ["al", "alfred"]);
    }

    #[test]
    fn set_status_cases() {
        let cases = [
            (
                "---\ntype: person\nstatus: active\n---\n# A\n",
                "---\ntype: person\nstatus: superseded\n---\n# A\n",
            ),
            (
                "# A\n<!-- Type: person | Status: active | Created: 2026-01-01 -->\n",
                "# A\n<!-- Type: person | Status: superseded | Created: 2026-01-01 -->\n",
            ),
            (
                "# A\n<!-- Type: person | Created: 2026-01-01 -->\n",
                "# A\n<!-- Type: person | Created: 2026-01-01 | Status: superseded -->\n",
            ),
            ("# A\n\nno comment line\n", "# A\n\nno comment line\n"),
        ];
        for (input, want) in cases {
            assert_eq!(set_status(input, "superseded"), want, "input: {input:?}");
            assert_eq!(status(&set_status(input, "superseded")) == "superseded", input != want);
        }
    }

    #[test]
    fn timeline_entries_append_and_create_the_section() {
        let cases = [
            (
                "# A\n\n## Timeline\n- 2026-01-01: born\n",
                "# A\n\n## Timeline\n- 2026-01-01: born\n- 2026-02-02: moved\n",
            ),
            ("# A\n", "# A\n\n## Timeline\n\n- 2026-02-02: moved\n"),
        ];
        for (input, want) in cases {
            assert_eq!(add_timeline_entry(input, "2026-02-02: moved"), want, "input: {input:?}");
        }
    }

    #[test]
    fn facts_aliases_redirect_and_links() {
        let text = "---\nx: 1\n---\n# Bob\n\n## Summary\nA person.\n\n## Facts\n- likes tea\n  - nested\nnot a fact\n";
        assert_eq!(facts(text), ["likes tea", "nested"]);
        assert_eq!(facts("# Bob\n"), Vec::<String>::new());

        let cases = [
            (
                "# B\n\n## Summary\nAliases: Bobby\n",
                "# B\n\n## Summary\nAliases: Bobby, rob, robert\n",
            ),
            (
                "# B\n\n## Summary\nA person.\n",
                "# B\n\n## Summary\nA person.\nAliases: rob, robert\n",
            ),
            ("# B\n", "# B\n"),
        ];
        for (input, want) in cases {
            assert_eq!(add_aliases(input, "rob, robert"), want, "input: {input:?}");
        }
        assert_eq!(add_aliases("# B\nAliases: x\n", ""), "# B\nAliases: x\n");

        let (old, keep) =
            (EntityId::parse("person--rob").unwrap(), EntityId::parse("person--bob").unwrap());
        let redirect = merged_redirect(&old, &keep, "2026-03-01");
        assert_eq!(
            redirect,
            "# person--rob\n<!-- Type: person | Status: merged | Merged into: person--bob | Merged: 2026-03-01 -->\n\nMerged into [[person--bob]] on 2026-03-01.\n"
        );
        assert_eq!(status(&redirect), "merged");

        let linked = "- knows: [[person--rob]]\n- [[person--robert]]\n";
        assert_eq!(
            rewire_links(linked, "person--rob", "person--bob").as_deref(),
            Some("- knows: [[person--bob]]\n- [[person--robert]]\n")
        );
        assert_eq!(rewire_links(linked, "person--carol", "person--bob"), None);
    }
}
