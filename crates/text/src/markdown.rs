//! Markdown documents as cogmem edits them: optional YAML front matter kept byte-for-byte, ATX
//! sections found with pulldown-cmark (so a `#` inside a code block is not a heading), bullets
//! inserted at the end of a section, and text made safe to embed in a paragraph or a bullet.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use unicode_normalization::UnicodeNormalization;

/// Splits optional YAML front matter from the body.
///
/// Front matter starts at byte 0 (after an optional BOM) with a `---` line and ends at the first
/// `---` or `...` line. Returns the byte length of the prefix (BOM, fences and YAML included)
/// and the YAML text. Unterminated front matter is treated as body.
pub fn split_front_matter(text: &str) -> (usize, Option<&str>) {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let rest = &text[bom..];
    let mut lines = rest.split_inclusive('\n');
    let Some(first) = lines.next() else { return (0, None) };
    if first.trim_end() != "---" {
        return (0, None);
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let end = offset + line.len();
            return (bom + end, Some(&rest[yaml_start..offset]));
        }
        offset += line.len();
    }
    (0, None)
}

/// A heading and the byte ranges of its section within a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading level, 1–6.
    pub level: u8,
    /// Heading text, trimmed.
    pub title: String,
    /// From the start of the heading line to the end of the section.
    pub range: Range<usize>,
    /// From after the heading line to the end of the section.
    pub content: Range<usize>,
}

/// Lists the ATX/setext headings of a body with their sections.
///
/// A section ends where the next heading of the same or a higher level starts.
pub fn sections(body: &str) -> Vec<Section> {
    let mut found: Vec<(u8, String, usize, usize)> = Vec::new();
    let mut current: Option<(u8, String, usize)> = None;
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                current = Some((level as u8, String::new(), range.start));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title, _)) = current.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, title, start)) = current.take() {
                    let line_end = body[range.end..]
                        .find('\n')
                        .map_or(body.len(), |i| range.end + i + 1)
                        .max(range.end);
                    let line_end = if body[range.start..range.end].ends_with('\n') {
                        range.end
                    } else {
                        line_end
                    };
                    found.push((level, title.trim().to_owned(), start, line_end));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(found.len());
    for (i, (level, title, start, content_start)) in found.iter().enumerate() {
        let end =
            found[i + 1..].iter().find(|(l, ..)| l <= level).map_or(body.len(), |(_, _, s, _)| *s);
        out.push(Section {
            level: *level,
            title: title.clone(),
            range: *start..end,
            content: (*content_start).min(end)..end,
        });
    }
    out
}

/// Finds the first section whose title matches, ignoring case.
pub fn find_section<'a>(sections: &'a [Section], title: &str) -> Option<&'a Section> {
    sections.iter().find(|s| s.title.eq_ignore_ascii_case(title))
}

/// The `- ` bullets under the first section titled each of `titles` (front matter skipped), in
/// that order: the title's index in `titles`, the bullet's 1-based line in `text`, and its text
/// after `- ` (as written, a `\r` before the newline included).
///
/// ```
/// use cogmem_text::markdown::bullets_under;
/// let text = "# T\n\n## Facts\n- a\n\n## Relations\n- b\n";
/// assert_eq!(bullets_under(text, &["Relations", "Facts"]), [(0, 7, "b"), (1, 4, "a")]);
/// ```
pub fn bullets_under<'t>(text: &'t str, titles: &[&str]) -> Vec<(usize, usize, &'t str)> {
    let (prefix, _) = split_front_matter(text);
    let body = &text[prefix..];
    let sections = sections(body);
    let mut out = Vec::new();
    for (t, title) in titles.iter().enumerate() {
        let Some(s) = find_section(&sections, title) else { continue };
        let first = line_of(text, prefix + s.content.start);
        for (i, line) in body[s.content.clone()].lines().enumerate() {
            if let Some(b) = line.trim_start().strip_prefix("- ") {
                out.push((t, first + i, b));
            }
        }
    }
    out
}

/// Inserts `line` (without newline) at the end of a section's content and returns the new
/// body with the byte offset where the line starts.
///
/// Trailing blank lines of the section stay after the new line, so the blank line before the
/// next heading is kept.
pub fn insert_at_section_end(body: &str, section: &Section, line: &str) -> (String, usize) {
    let content = &body[section.content.clone()];
    let kept = content.trim_end().len();
    let mut out = String::with_capacity(body.len() + line.len() + 4);
    if kept == 0 {
        let at = section.content.start;
        out.push_str(&body[..at]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
        let pos = out.len();
        out.push_str(line);
        out.push('\n');
        let rest = &body[at..];
        let rest = rest.trim_start_matches(['\n', '\r']);
        if !rest.is_empty() {
            out.push('\n');
        }
        out.push_str(rest);
        (out, pos)
    } else {
        let at = section.content.start + kept;
        out.push_str(&body[..at]);
        out.push('\n');
        let pos = out.len();
        out.push_str(line);
        let rest = &body[at..];
        if rest.is_empty() {
            out.push('\n');
        }
        out.push_str(rest);
        (out, pos)
    }
}

/// Appends a new `## title` section at the end of a body and returns the new body.
///
/// A body that ends inside a block that would swallow the heading (a fenced code block or an
/// HTML block left open by a hand edit) gets that block closed first, so the new section is
/// always found by [`sections`].
pub fn append_section(body: &str, title: &str) -> String {
    let base = body.trim_end();
    let build = |closer: &str| {
        let mut out = String::with_capacity(base.len() + closer.len() + title.len() + 8);
        out.push_str(base);
        out.push_str(closer);
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("## ");
        out.push_str(title);
        out.push('\n');
        out
    };
    let has = |out: &str| {
        let title = title.trim();
        sections(out).iter().any(|s| s.title.eq_ignore_ascii_case(title))
    };
    let plain = build("");
    if has(&plain) {
        return plain;
    }
    // A closing fence must be at least as long as the opening one.
    let run = |c: char| {
        let mut best = 0;
        let mut n = 0;
        for ch in base.chars() {
            n = if ch == c { n + 1 } else { 0 };
            best = best.max(n);
        }
        best.max(3)
    };
    let ticks = format!("\n{}", "`".repeat(run('`')));
    let tildes = format!("\n{}", "~".repeat(run('~')));
    let html = "\n--> ?> ]]> > </pre></script></style></textarea>".to_owned();
    for closer in [
        ticks.clone(),
        tildes.clone(),
        html.clone(),
        format!("{ticks}{html}"),
        format!("{tildes}{html}"),
        format!("{html}{ticks}"),
        format!("{html}{tildes}"),
        format!("{ticks}{tildes}"),
        format!("{tildes}{ticks}"),
    ] {
        let out = build(&closer);
        if has(&out) {
            return out;
        }
    }
    plain
}

/// What [`without_code_blocks`] left out of a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeLeftOut {
    /// Fenced code blocks removed.
    pub blocks: usize,
    /// Lines they took, fences included.
    pub lines: usize,
}

/// Returns `text` without its fenced code blocks, and what was left out.
///
/// A fence is what CommonMark reads as one (pulldown-cmark decides): three or more backticks
/// or tildes, indented up to three spaces, also inside a list item or a quote, closed by a
/// fence of the same character at least as long, or running to the end of the text when it is
/// never closed. An escaped fence (`` \``` ``, as cogmem writes a paragraph line that starts
/// with one) is text and stays, and so do inline code and indented code blocks. Each block goes
/// from its opening fence to the end of its closing fence's line; a list or quote marker before
/// the opening fence on its line stays. Front matter is kept byte for byte.
pub fn without_code_blocks(text: &str) -> (String, CodeLeftOut) {
    let (front, _) = split_front_matter(text);
    let body = &text[front..];
    let mut cuts: Vec<Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = event {
            let end = if body[..range.end].ends_with('\n') {
                range.end
            } else {
                body[range.end..].find('\n').map_or(body.len(), |i| range.end + i + 1)
            };
            // Indentation before the fence goes with it; a list or quote marker stays.
            let line = body[..range.start].rfind('\n').map_or(0, |i| i + 1);
            let start = if body[line..range.start].trim().is_empty() { line } else { range.start };
            cuts.push(start..end);
        }
    }
    let mut left = CodeLeftOut::default();
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..front]);
    let mut at = 0;
    for cut in cuts {
        if cut.start < at {
            continue; // pulldown-cmark's blocks never overlap; this only guards the slicing
        }
        let removed = &body[cut.clone()];
        left.blocks += 1;
        left.lines += removed.lines().count();
        out.push_str(&body[at..cut.start]);
        if removed.ends_with('\n') && !out.is_empty() && !out.ends_with('\n') {
            out.push('\n'); // the marker stays on a line of its own: `- ` is an empty item
        }
        at = cut.end;
    }
    out.push_str(&body[at..]);
    (out, left)
}

/// Updates `Key: value` fields in the first `<!-- … -->` line that has `anchor` (such as
/// `Decay score:`), keeping the fields the line does not have out. Returns `None` when no line
/// has the anchor or nothing changed.
pub fn update_comment_fields(
    text: &str,
    anchor: &str,
    fields: &[(&str, String)],
) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut done = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if !done && t.starts_with("<!--") && t.ends_with("-->") && t.contains(anchor) {
            done = true;
            let inner = t.trim_start_matches("<!--").trim_end_matches("-->").trim();
            let parts: Vec<String> = inner
                .split('|')
                .map(|seg| {
                    let seg = seg.trim();
                    match seg.split_once(':') {
                        Some((k, _)) if fields.iter().any(|(f, _)| *f == k.trim()) => {
                            let v =
                                &fields.iter().find(|(f, _)| *f == k.trim()).expect("just found").1;
                            format!("{}: {v}", k.trim())
                        }
                        _ => seg.to_owned(),
                    }
                })
                .collect();
            let new = format!("<!-- {} -->", parts.join(" | "));
            if new != t {
                changed = true;
            }
            out.push_str(&new);
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    changed.then_some(out)
}

/// Points every `[[from]]` wiki link in `text` at `to` instead; `None` when there is none.
pub fn rewire_links(text: &str, from: &str, to: &str) -> Option<String> {
    let needle = format!("[[{from}]]");
    text.contains(&needle).then(|| text.replace(&needle, &format!("[[{to}]]")))
}

/// Replaces the text of the 1-based `line` with `new` (a line without its break), keeping the
/// line's break and everything else byte for byte; `None` when the text has no such line.
pub fn replace_line(text: &str, line: usize, new: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + new.len());
    let mut found = false;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let bare = l.trim_end_matches(['\n', '\r']);
            out.push_str(new);
            out.push_str(&l[bare.len()..]);
            found = true;
        } else {
            out.push_str(l);
        }
    }
    found.then_some(out)
}

/// One `## Heading #N` block of a file of numbered blocks (`## Proposal #N`, `## Flag #N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberedBlock<'a> {
    /// 0-based line of the heading.
    pub start: usize,
    /// 0-based line that ends it (its `---`, the next heading, or the end of the file).
    pub end: usize,
    /// The heading after its prefix: the digits and what follows them.
    pub rest: &'a str,
    /// The heading's digits (empty when it has none).
    pub digits: &'a str,
}

/// Returns the numbered blocks of `lines`, each opened by a line starting with `heading` (such
/// as `## Proposal #`) and closed by a `---` line, a line for which `ends` holds, or the end,
/// with the highest number any heading carries, readable block or not: the next block takes
/// the one after it, so a number a broken block holds is never given again.
pub fn numbered_blocks<'a>(
    lines: &[&'a str],
    heading: &str,
    ends: impl Fn(&str) -> bool,
) -> (Vec<NumberedBlock<'a>>, u32) {
    let mut blocks = Vec::new();
    let mut highest = 0;
    let mut i = 0;
    while i < lines.len() {
        let Some(rest) = lines[i].strip_prefix(heading) else {
            i += 1;
            continue;
        };
        let mut end = i + 1;
        while end < lines.len() && !ends(lines[end]) && lines[end].trim() != "---" {
            end += 1;
        }
        let digits =
            &rest[..rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len()];
        highest = highest.max(digits.parse().unwrap_or(0));
        blocks.push(NumberedBlock { start: i, end, rest, digits });
        i = end;
    }
    (blocks, highest)
}

/// Returns the 1-based line number of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// A unit's text without its HTML comments (`<!-- … -->`, also across lines): the
/// `Type:`/`Created:` lines, imported entries' source and entity lines, and the templates'
/// instructions are not what a search, or a forget by words, is for.
pub fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => {
                out.push(' ');
                rest = &rest[start + end + 3..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Collapses text to one line for a bullet: whitespace runs become one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `one_line(text) == line`, without building the collapsed text: the duplicate check
/// of a write compares every bullet of a file with the new one (thousands on a busy entity).
pub fn is_one_line_of(text: &str, line: &str) -> bool {
    if line.is_empty() {
        return text.split_whitespace().next().is_none();
    }
    // The collapsed text's words are `line`'s split at single spaces (an empty word, from a
    // doubled or an outer space, never matches a word).
    text.split_whitespace().eq(line.split(' '))
}

/// Whether a stored line and a new one say the same, for the duplicate check of a write: their
/// words equal with letters compared without case, once whitespace is collapsed and closing
/// `.`, `!`, `;` and `,` are left off the end ("Prefers short answers." and "prefers short
/// answers" are one memory). Built for comparing every bullet of a busy file with the new one:
/// it allocates nothing.
pub fn says_the_same(stored: &str, new: &str) -> bool {
    fn words(s: &str) -> std::str::SplitWhitespace<'_> {
        s.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | '!' | ';' | ','))
            .split_whitespace()
    }
    let same = |a: &str, b: &str| {
        a == b || a.chars().flat_map(char::to_lowercase).eq(b.chars().flat_map(char::to_lowercase))
    };
    let (mut a, mut b) = (words(stored), words(new));
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if same(x, y) => {}
            _ => return false,
        }
    }
}

/// Makes a value safe as one field of a one-line structure (a heading, a bullet, a table cell,
/// a comment line): every control character (NUL, tab, CR, LF, …) and every other line break
/// (U+2028, U+2029) becomes a space, whitespace runs collapse to one space, the ends are
/// trimmed, and the comment delimiters `<!--` and `-->` are broken up as `<!- -` and `- ->`,
/// so the value can neither end its line nor open or close an HTML comment.
pub fn field(text: &str) -> String {
    let spaced: String =
        text.chars().map(|c| if c.is_control() || c.is_whitespace() { ' ' } else { c }).collect();
    let mut out = one_line(&spaced);
    while out.contains("<!--") || out.contains("-->") {
        out = out.replace("<!--", "<!- -").replace("-->", "- ->");
    }
    out
}

/// Makes a value safe as one cell of a `|`-separated line (a Markdown table row, an audit
/// line): one [`field`], with `|` written `/`.
pub fn cell(text: &str) -> String {
    field(text).replace('|', "/")
}

/// Makes a tag safe in any of cogmem's tag lists (an episode heading's `tags:[a, b]`, a note's
/// `Tags: a, b` comment field): one [`field`], with the characters that delimit those lists
/// and their lines (`|`, `[`, `]`, `,`) replaced by `/`, `(`, `)` and `;`.
pub fn tag(text: &str) -> String {
    cell(text).replace('[', "(").replace(']', ")").replace(',', ";")
}

/// Makes a value safe as the text of a list item (`- …` or `1. …`): [`field`], then a
/// backslash before a start that Markdown would read as block structure inside the item (a
/// heading, a quote, an HTML block, a code fence, a nested list or a thematic break), so a
/// value such as `## Relations` can never become a section of the file.
pub fn list_item(text: &str) -> String {
    let value = field(text);
    let mut chars = value.chars();
    let first = chars.next();
    let second = chars.next();
    let digits = value.chars().take_while(char::is_ascii_digit).count();
    let escape_at = match first {
        Some('#' | '>' | '<' | '`' | '~' | '|' | '=') => Some(0),
        Some('-' | '+' | '*') if matches!(second, None | Some(' ' | '-' | '+' | '*')) => Some(0),
        Some('0'..='9')
            if (1..=9).contains(&digits)
                && value[digits..].starts_with(['.', ')'])
                && matches!(value[digits + 1..].chars().next(), None | Some(' ')) =>
        {
            Some(digits)
        }
        _ => None,
    };
    match escape_at {
        Some(at) => format!("{}\\{}", &value[..at], &value[at..]),
        None => value,
    }
}

/// Makes text safe as a heading's title: [`field`], with a trailing run of `#` after a space
/// escaped so Markdown does not read it as the heading's closing sequence.
pub fn heading(text: &str) -> String {
    let value = field(text);
    let kept = value.trim_end_matches('#');
    if kept.len() == value.len() || !(kept.is_empty() || kept.ends_with(' ')) {
        value
    } else {
        format!("{kept}\\{}", &value[kept.len()..])
    }
}

/// Makes multi-line text safe as a paragraph: lines that Markdown would read as a heading, a
/// setext underline, a code fence or an HTML block (a fence or a `<!--` line left open hides
/// everything after it, and a `<!--` line would read as one of cogmem's comment lines) are
/// escaped with a backslash, and trailing
/// whitespace is trimmed. CR, CRLF, NEL, U+2028 and U+2029 are line breaks like LF, vertical
/// tab and form feed are spaces, and other control characters except tab (NUL among them)
/// become U+FFFD, as CommonMark reads NUL.
pub fn paragraph(text: &str) -> String {
    let text = plain_breaks(text);
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.trim().lines() {
        out.push_str(&paragraph_line(line));
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Escapes one line (without its line break) of a paragraph as [`paragraph`] does: a `\\`
/// before a heading, a setext underline, a code fence or an HTML block, also after quote and
/// list markers (`> `, `- `, `1. `, nested). Trailing whitespace is trimmed.
pub fn paragraph_line(line: &str) -> String {
    let line = line.trim_end();
    let at = line.len() - after_containers(line).len();
    let bare = &line[at..];
    let is_underline = !bare.is_empty() && bare.chars().all(|c| c == '-' || c == '=');
    if bare.starts_with(['#', '<'])
        || bare.starts_with("```")
        || bare.starts_with("~~~")
        || is_underline
    {
        format!("{}\\{bare}", &line[..at])
    } else {
        line.to_owned()
    }
}

/// Text with every line break an LF (CR, CRLF, NEL, U+2028 and U+2029 are line breaks too),
/// vertical tab and form feed spaces, and every other control character but tab U+FFFD: the
/// lines [`paragraph`] writes and [`normalize`] compares, the lines a Markdown reader sees, and
/// the text the secret scanner reads (what it refuses is what a file would hold). Text with
/// nothing to change is borrowed as it is.
pub fn plain_breaks(text: &str) -> Cow<'_, str> {
    let is_plain = |c: char| c == '\n' || c == '\t' || !(c.is_control() || is_break(c));
    if text.chars().all(is_plain) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.replace("\r\n", "\n")
            .chars()
            .map(|c| match c {
                c if is_break(c) => '\n',
                '\n' | '\t' => c,
                '\u{b}' | '\u{c}' => ' ',
                c if c.is_control() => '\u{fffd}',
                c => c,
            })
            .collect(),
    )
}

/// A line break other than LF that [`plain_breaks`] makes one: CR, NEL, U+2028, U+2029.
fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\u{2028}' | '\u{2029}' | '\u{85}')
}

/// The rest of a line after its indentation and the quote and list markers that open
/// containers (`>`, `-`, `+`, `*`, `1.`, `1)`, each followed by a space, nested).
fn after_containers(line: &str) -> &str {
    let mut rest = line.trim_start();
    loop {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let marker = if rest.starts_with(['>', '-', '+', '*']) {
            1
        } else if (1..=9).contains(&digits) && rest[digits..].starts_with(['.', ')']) {
            digits + 1
        } else {
            return rest;
        };
        let after = &rest[marker..];
        // A quote marker needs no space; a list marker does (or ends the line).
        let is_list = marker > 1 || rest.starts_with(['-', '+', '*']);
        if is_list && !(after.is_empty() || after.starts_with([' ', '\t'])) {
            return rest;
        }
        let next = after.trim_start();
        if next.len() == rest.len() || next.is_empty() {
            return rest;
        }
        rest = next;
    }
}

/// Reverses [`paragraph`] escaping and normalises whitespace, for duplicate checks.
pub fn normalize(text: &str) -> String {
    let text = plain_breaks(text);
    one_line(
        &text
            .lines()
            .map(|l| {
                let l = l.trim_start();
                let at = l.len() - after_containers(l).len();
                format!("{}{}", &l[..at], l[at..].trim_start_matches('\\'))
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Turns a title into a lower-kebab file name: ASCII letters and digits, other letters kept,
/// everything else a single `-`, at most 60 bytes.
///
/// The title is NFC-normalised first, so a letter typed decomposed ("Zoe" and U+0308) is the
/// same letter as its precomposed form ("Zoë"): one name, one slug.
pub fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in title.nfc() {
        if c.is_alphanumeric() {
            for l in c.to_lowercase() {
                slug.push(l);
            }
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 60 {
            break;
        }
    }
    slug.trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    /// "Zoë" typed decomposed became `zoe`, apart from `zoë`.
    #[test]
    fn a_decomposed_letter_slugs_as_its_composed_form() {
        assert_eq!(slugify("Zoe\u{308}"), "zoë");
        assert_eq!(slugify("Zoë"), "zoë");
        assert_eq!(slugify("Jose\u{301} Nun\u{303}ez"), "josé-nuñez");
    }

    #[test]
    fn comments_are_not_searched() {
        assert_eq!(
            without_comments("# Alice\n<!-- Type: person | Created: 2026-01-01 -->\nlikes tea"),
            "# Alice\n \nlikes tea"
        );
        assert_eq!(without_comments("a <!-- b\nc --> d <!-- e"), "a   d ");
        assert_eq!(without_comments("no comments"), "no comments");
    }

    use super::*;

    /// The duplicate check leaves out case, spacing and closing punctuation, and nothing else.
    #[test]
    fn says_the_same_ignores_case_spacing_and_a_closing_stop() {
        for (a, b) in [
            ("Prefers short answers", "Prefers short answers."),
            ("User prefers tea.", "user  prefers TEA"),
            ("Ship Atlas on Friday!", "ship atlas on friday"),
            ("Zoë likes jazz ;", "ZOË likes jazz"),
            ("", " . "),
        ] {
            assert!(says_the_same(a, b), "{a:?} {b:?}");
            assert!(says_the_same(b, a), "{b:?} {a:?}");
        }
        for (a, b) in [
            ("Is Alice vegan?", "Is Alice vegan"),
            ("Prefers tea", "Prefers tea, not coffee"),
            ("Uses Go 1.22", "Uses Go 1.2"),
            ("a.b", "ab"),
            ("Prefers tea", ""),
        ] {
            assert!(!says_the_same(a, b), "{a:?} {b:?}");
        }
    }

    /// `is_one_line_of` answers what comparing with `one_line` answers.
    #[test]
    fn is_one_line_of_is_one_line_compared() {
        let texts = ["", " ", "a", " a ", "a  b", "a\tb\n", "a b", "ab", "a b c", "é\u{a0}x"];
        let lines =
            ["", " ", "a", "a ", " a", "a b", "a  b", "a\tb", "ab", "a b c", "é x", "é\u{a0}x"];
        for text in texts {
            for line in lines {
                assert_eq!(is_one_line_of(text, line), one_line(text) == line, "{text:?} {line:?}");
            }
        }
    }

    #[test]
    fn front_matter_split_cases() {
        let cases: [(&str, Option<&str>); 7] = [
            ("---\na: 1\n---\nbody", Some("a: 1\n")),
            ("---\na: 1\n...\nbody", Some("a: 1\n")),
            ("\u{feff}---\na: 1\n---\n", Some("a: 1\n")),
            ("---\n---\nbody", Some("")),
            ("---\nunterminated", None),
            ("\n---\na: 1\n---\n", None),
            ("# T\n\n---\na: 1\n---\n", None),
        ];
        for (input, want) in cases {
            assert_eq!(split_front_matter(input).1, want, "input: {input:?}");
        }
        let text = "---\na: 1\n---\n# Body\n";
        let (at, _) = split_front_matter(text);
        assert_eq!(&text[at..], "# Body\n");
    }

    #[test]
    fn sections_ignore_headings_in_code() {
        let body = "# T\n\n## Facts\n- a\n```\n## not a heading\n```\n\n## Relations\n";
        let s = sections(body);
        let titles: Vec<_> = s.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["T", "Facts", "Relations"]);
        let facts = find_section(&s, "facts").unwrap();
        assert!(body[facts.content.clone()].contains("## not a heading"));
    }

    #[test]
    fn insert_keeps_blank_line_before_next_heading() {
        let cases = [
            ("## A\n\n## B\n", "## A\n\n- x\n\n## B\n"),
            ("## A\n- a\n\n## B\n", "## A\n- a\n- x\n\n## B\n"),
            ("## A\n- a\n", "## A\n- a\n- x\n"),
            ("## A\n", "## A\n\n- x\n"),
            ("## A\n## B\n", "## A\n\n- x\n\n## B\n"),
            ("## A\n<!-- hint -->\n\n## B", "## A\n<!-- hint -->\n- x\n\n## B"),
        ];
        for (input, want) in cases {
            let s = sections(input);
            let (out, pos) = insert_at_section_end(input, &s[0], "- x");
            assert_eq!(out, want, "input: {input:?}");
            assert!(out[pos..].starts_with("- x"), "input: {input:?}");
        }
    }

    #[test]
    fn paragraph_escapes_headings_and_underlines() {
        assert_eq!(paragraph("a\n## b\n---\n  c  \n"), "a\n\\## b\n\\---\n  c\n");
        assert_eq!(normalize(&paragraph("a\n## b")), "a ## b");
    }

    #[test]
    fn code_blocks_are_left_out_as_commonmark_reads_them() {
        let left = |blocks, lines| CodeLeftOut { blocks, lines };
        let cases = [
            ("a\n```rust\nfn x() {}\n```\nb\n", "a\nb\n", left(1, 3)),
            ("a\n~~~\nx\n~~~\nb", "a\nb", left(1, 3)),
            // Closed only by a fence of its own character, at least as long.
            ("````\n```\n~~~\n````\nb\n", "b\n", left(1, 4)),
            // Never closed: runs to the end, as a Markdown reader shows it.
            ("a\n\n```\nx\n## 10:00 | fact | tags:[]\n", "a\n\n", left(1, 3)),
            ("   ```\nx\n   ```\n", "", left(1, 3)),
            ("- item\n  ```\n  x\n  ```\n- next\n", "- item\n- next\n", left(1, 3)),
            ("- ```\n  x\n  ```\n- next\n", "- \n- next\n", left(1, 3)),
            ("> ```\n> x\n> ```\nb\n", "> \nb\n", left(1, 3)),
            // What is not a fenced block stays.
            ("\\```\nx\n", "\\```\nx\n", left(0, 0)),
            ("use `x` here\n", "use `x` here\n", left(0, 0)),
            ("    indented code\n", "    indented code\n", left(0, 0)),
            ("`` ` `` and ``\n", "`` ` `` and ``\n", left(0, 0)),
            ("---\nk: ```\n---\nbody\n", "---\nk: ```\n---\nbody\n", left(0, 0)),
            ("a\r\n```\r\nx\r\n```\r\nb\r\n", "a\r\nb\r\n", left(1, 3)),
            ("```a\n```\n\n~~~\n~~~\n", "\n", left(2, 4)),
        ];
        for (input, want, n) in cases {
            assert_eq!(without_code_blocks(input), (want.to_owned(), n), "input: {input:?}");
        }
    }

    #[test]
    fn comment_fields_update_in_place() {
        let text = "# x\n<!-- Type: person | Created: 2026-01-01 -->\n<!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->\n";
        let fields = [
            ("Decay score", "0.42".to_owned()),
            ("Access count", "3".to_owned()),
            ("Pinned", "yes".to_owned()),
        ];
        assert_eq!(
            update_comment_fields(text, "Decay score:", &fields).unwrap(),
            "# x\n<!-- Type: person | Created: 2026-01-01 -->\n<!-- Decay score: 0.42 | Access count: 3 | Pinned: yes -->\n"
        );
        assert!(update_comment_fields("# x\n", "Decay score:", &fields).is_none());
    }

    #[test]
    fn slugify_cases() {
        let cases = [
            ("Deploy the API!", "deploy-the-api"),
            ("  Ünïcode  café ", "ünïcode-café"),
            ("../etc/passwd", "etc-passwd"),
            ("!!!", ""),
        ];
        for (input, want) in cases {
            assert_eq!(slugify(input), want, "input: {input:?}");
        }
    }
}
