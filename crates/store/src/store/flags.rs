//! `memory/meta/flags.md`: contradictions and doubts about memories, raised by a reflection's
//! approved FLAG operations and open until a person resolves them (issue 19).
//!
//! Each flag is a `## Flag #N` block of bold-key bullets, closed by a `---` line:
//!
//! ```text
//! ## Flag #2
//! - **Kind**: contradiction
//! - **Memories**: entity:person--alice, episode:2026-12-01:09:00
//! - **Text**: the card says tea, the episode says coffee
//! - **Reason**: both cannot hold
//! - **Raised by**: reflection #4 (2026-12-01)
//! - **Status**: resolved
//! - **Resolved by**: user:ann
//! - **Resolved at**: 2026-12-02T10:00:00Z
//! - **Note**: she switched to coffee in November
//!
//! ---
//! ```
//!
//! This module owns the format: parsing (a block that cannot be read is reported with its line
//! and skipped, never fatal), appending a flag, and recording a resolution (which rewrites only
//! that block's status lines; the rest of the file, hand notes included, stays byte for byte).
//! Every value is written as one [`field`], so no text can end its bullet, open a comment or
//! start a block. It also owns the FLAG operation's wire rules: how TARGET lists memories
//! ([`targets`]) and how the kind is chosen ([`kind_of`]). It never writes to disk.

use serde::Serialize;

use super::markdown::{field, numbered_blocks};

/// The file, relative to the workspace root.
pub const FILE: &str = "memory/meta/flags.md";

/// What a new file starts with.
pub const HEADER: &str = "# Flags\n\n<!-- Contradictions and doubts raised by approved reflections. A flag stays open (shown by `cogmem why`, `status`, `verify` and `context`) until a person runs `cogmem flag resolve N`. -->\n";

/// The heading that opens a flag.
const HEADING: &str = "## Flag #";

/// What a flag says about its memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The memories contradict each other (or the world).
    Contradiction,
    /// A memory may be wrong.
    Doubt,
}

impl Kind {
    /// Returns the word written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Contradiction => "contradiction",
            Self::Doubt => "doubt",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Contradiction, Self::Doubt]
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

/// Where a flag stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Waiting for a person.
    Open,
    /// A person resolved it.
    Resolved,
}

impl Status {
    /// Returns the word written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Resolved => "resolved",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Open, Self::Resolved].into_iter().find(|s| s.as_str().eq_ignore_ascii_case(text))
    }
}

/// One flag as read from the file.
#[derive(Debug, Clone, Serialize)]
pub struct Flag {
    /// Its number, `#N`.
    pub number: u32,
    /// Contradiction or doubt.
    pub kind: Kind,
    /// The memory ids it names.
    pub memories: Vec<String>,
    /// What is contradictory or doubtful.
    pub text: String,
    /// Why it was raised.
    pub reason: String,
    /// Who raised it: `reflection #N (YYYY-MM-DD)`.
    pub raised_by: String,
    /// Open or resolved.
    pub status: Status,
    /// The person who resolved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// When, `YYYY-MM-DDTHH:MM:SSZ`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<String>,
    /// The person's note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// 1-based line of the heading.
    pub line: usize,
    #[serde(skip)]
    status_line: usize,
    #[serde(skip)]
    end_line: usize,
}

impl Flag {
    /// Tells whether it names the memory `id`.
    pub fn names(&self, id: &str) -> bool {
        self.memories.iter().any(|m| m == id)
    }

    /// Returns the flag in one line: `#N contradiction on ID, ID: TEXT`.
    pub fn summary(&self) -> String {
        format!(
            "#{} {} on {}: {}",
            self.number,
            self.kind.as_str(),
            self.memories.join(", "),
            self.text
        )
    }
}

/// The parsed file: flags plus what could not be read.
#[derive(Debug, Clone, Default)]
pub struct FlagsFile {
    text: String,
    /// The flags, in file order.
    pub flags: Vec<Flag>,
    /// Blocks that could not be read: (1-based line, why).
    pub problems: Vec<(usize, String)>,
    /// The highest number any heading carries, readable or not (so none is reused).
    highest: u32,
}

/// A flag about to be written.
#[derive(Debug, Clone)]
pub struct NewFlag<'a> {
    /// Contradiction or doubt.
    pub kind: Kind,
    /// The memory ids it names (at least one).
    pub memories: &'a [String],
    /// What is contradictory or doubtful.
    pub text: &'a str,
    /// Why.
    pub reason: &'a str,
    /// Who raised it: `reflection #N (YYYY-MM-DD)`.
    pub raised_by: &'a str,
}

/// A person's resolution.
#[derive(Debug, Clone)]
pub struct Resolution<'a> {
    /// The person.
    pub by: &'a str,
    /// When, `YYYY-MM-DDTHH:MM:SSZ`.
    pub at: &'a str,
    /// Their note, if any.
    pub note: Option<&'a str>,
}

impl FlagsFile {
    /// Parses the file's text. A block without a number, memories, text or a known kind and
    /// status is reported in [`FlagsFile::problems`] and skipped; the rest stay usable.
    pub fn parse(text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut flags = Vec::new();
        let mut problems = Vec::new();
        let (blocks, highest) = numbered_blocks(&lines, HEADING, |l| l.starts_with("## "));
        for b in blocks {
            match read_block(b.digits, &lines[b.start + 1..b.end], b.start) {
                Ok(f) => flags.push(Flag { end_line: b.end, ..f }),
                Err((line, why)) => problems.push((line, why)),
            }
        }
        Self { text: text.to_owned(), flags, problems, highest }
    }

    /// Returns the flag numbered `n`.
    pub fn get(&self, n: u32) -> Option<&Flag> {
        self.flags.iter().find(|f| f.number == n)
    }

    /// Returns the open flags, in file order.
    pub fn open(&self) -> impl Iterator<Item = &Flag> {
        self.flags.iter().filter(|f| f.status == Status::Open)
    }

    /// Returns the open flags that name the memory `id`.
    pub fn open_on(&self, id: &str) -> Vec<&Flag> {
        self.open().filter(|f| f.names(id)).collect()
    }

    /// Returns the number the next flag gets.
    pub fn next_number(&self) -> u32 {
        self.highest + 1
    }

    /// Returns the text with a new open flag appended (the header first, for a new file), and
    /// its number.
    pub fn with_appended(&self, f: &NewFlag<'_>) -> (String, u32) {
        let number = self.next_number();
        let mut out =
            if self.text.trim().is_empty() { HEADER.to_owned() } else { self.text.clone() };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        let ids: Vec<String> = f
            .memories
            .iter()
            .map(|m| field(m).replace(',', ";"))
            .filter(|m| !m.is_empty())
            .collect();
        out.push_str(&format!("{HEADING}{number}\n"));
        let mut bullet = |k: &str, v: &str| {
            let v = field(v);
            out.push_str(&format!("- **{k}**: {}\n", if v.is_empty() { "—" } else { &v }));
        };
        bullet("Kind", f.kind.as_str());
        bullet("Memories", &ids.join(", "));
        bullet("Text", f.text);
        bullet("Reason", f.reason);
        bullet("Raised by", f.raised_by);
        bullet("Status", Status::Open.as_str());
        out.push_str("\n---\n");
        (out, number)
    }

    /// Returns the text with flag `n` resolved: its status line says `resolved`, followed by
    /// who, when and the note (replacing an earlier resolution's lines). `None` when there is
    /// no flag `n`.
    pub fn with_resolution(&self, n: u32, r: &Resolution<'_>) -> Option<String> {
        let f = self.get(n)?;
        let mut out = String::with_capacity(self.text.len() + 128);
        for (i, line) in self.text.split_inclusive('\n').enumerate() {
            if i == f.status_line {
                out.push_str(&format!("- **Status**: {}\n", Status::Resolved.as_str()));
                out.push_str(&format!("- **Resolved by**: {}\n", field(r.by)));
                out.push_str(&format!("- **Resolved at**: {}\n", field(r.at)));
                if let Some(note) = r.note.map(field).filter(|n| !n.is_empty()) {
                    out.push_str(&format!("- **Note**: {note}\n"));
                }
                continue;
            }
            let in_block = i + 1 > f.line && i < f.end_line;
            let resolution = ["- **Resolved by**:", "- **Resolved at**:", "- **Note**:"];
            if in_block && resolution.iter().any(|p| line.starts_with(p)) {
                continue;
            }
            out.push_str(line);
        }
        Some(out)
    }
}

fn read_block(digits: &str, body: &[&str], start: usize) -> Result<Flag, (usize, String)> {
    let heading = start + 1;
    let number: u32 = digits
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| (heading, "the heading has no flag number (`## Flag #N`)".to_owned()))?;
    let mut f = Flag {
        number,
        kind: Kind::Doubt,
        memories: Vec::new(),
        text: String::new(),
        reason: String::new(),
        raised_by: String::new(),
        status: Status::Open,
        resolved_by: None,
        resolved_at: None,
        note: None,
        line: heading,
        status_line: 0,
        end_line: 0,
    };
    let (mut kind, mut status) = (false, false);
    for (k, line) in body.iter().enumerate() {
        let at = heading + 1 + k;
        let Some(rest) = line.trim_start().strip_prefix("- **") else { continue };
        let Some((key, value)) = rest.split_once("**:") else { continue };
        let value = value.trim();
        let text = || (value != "—").then(|| value.to_owned());
        match key.trim().to_ascii_lowercase().as_str() {
            "kind" => {
                f.kind = Kind::parse(value).ok_or_else(|| {
                    (at, format!("flag #{number}: unknown kind {value:?} (contradiction or doubt)"))
                })?;
                kind = true;
            }
            "memories" => {
                f.memories = value
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && *s != "—")
                    .map(str::to_owned)
                    .collect();
            }
            "text" => f.text = text().unwrap_or_default(),
            "reason" => f.reason = text().unwrap_or_default(),
            "raised by" => f.raised_by = text().unwrap_or_default(),
            "status" => {
                f.status = Status::parse(value).ok_or_else(|| {
                    (at, format!("flag #{number}: unknown status {value:?} (open or resolved)"))
                })?;
                f.status_line = at - 1;
                status = true;
            }
            "resolved by" => f.resolved_by = text(),
            "resolved at" => f.resolved_at = text(),
            "note" => f.note = text(),
            _ => {}
        }
    }
    let missing = if !kind {
        Some("Kind")
    } else if f.memories.is_empty() {
        Some("Memories")
    } else if f.text.is_empty() {
        Some("Text")
    } else if !status {
        Some("Status")
    } else {
        None
    };
    match missing {
        Some(what) => Err((heading, format!("flag #{number} has no **{what}** line"))),
        None => Ok(f),
    }
}

/// Splits a FLAG operation's TARGET into the memories it names: ids (or store files) separated
/// by commas or whitespace (`entity:person--alice, episode:2026-12-01:09:00`).
pub fn targets(target: &str) -> Vec<&str> {
    target.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect()
}

/// Chooses a FLAG's kind from its CONTENT and how many memories it names, and returns the text
/// to record: a CONTENT starting `contradiction:` or `doubt:` (any case) says so, and the word
/// is dropped from the text; otherwise naming two or more memories is a contradiction, one a
/// doubt.
pub fn kind_of(content: &str, memories: usize) -> (Kind, &str) {
    let content = content.trim();
    for kind in [Kind::Contradiction, Kind::Doubt] {
        let word = kind.as_str();
        if let Some(head) = content.get(..word.len())
            && head.eq_ignore_ascii_case(word)
            && let Some(rest) = content[word.len()..].trim_start().strip_prefix(':')
        {
            return (kind, rest.trim());
        }
    }
    (if memories >= 2 { Kind::Contradiction } else { Kind::Doubt }, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    fn new<'a>(memories: &'a [String], text: &'a str) -> NewFlag<'a> {
        NewFlag {
            kind: Kind::Contradiction,
            memories,
            text,
            reason: "both cannot hold",
            raised_by: "reflection #4 (2026-12-01)",
        }
    }

    #[test]
    fn round_trip_append_and_resolve() {
        let m = ids(&["entity:person--alice", "episode:2026-12-01:09:00"]);
        let (text, n) = FlagsFile::default().with_appended(&new(&m, "tea or coffee"));
        assert_eq!(n, 1);
        assert_eq!(
            text,
            format!(
                "{HEADER}\n## Flag #1\n- **Kind**: contradiction\n- **Memories**: entity:person--alice, episode:2026-12-01:09:00\n- **Text**: tea or coffee\n- **Reason**: both cannot hold\n- **Raised by**: reflection #4 (2026-12-01)\n- **Status**: open\n\n---\n"
            )
        );
        let f = FlagsFile::parse(&text);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        let one = f.get(1).unwrap();
        assert_eq!((one.kind, one.status, one.line), (Kind::Contradiction, Status::Open, 5));
        assert_eq!(one.memories, m);
        assert_eq!(f.open_on("entity:person--alice").len(), 1);
        assert!(f.open_on("entity:person--al").is_empty(), "whole ids only");
        let (text, n) = f.with_appended(&new(&m[..1], "second"));
        assert_eq!(n, 2);
        let resolution =
            Resolution { by: "user:ann", at: "2026-12-02T10:00:00Z", note: Some("ok") };
        let resolved = FlagsFile::parse(&text).with_resolution(1, &resolution).unwrap();
        let f = FlagsFile::parse(&resolved);
        let one = f.get(1).unwrap();
        assert_eq!(one.status, Status::Resolved);
        assert_eq!(one.resolved_by.as_deref(), Some("user:ann"));
        assert_eq!(one.note.as_deref(), Some("ok"));
        assert_eq!(f.get(2).unwrap().status, Status::Open, "other blocks untouched");
        assert_eq!(f.open().count(), 1);
        // Resolving again replaces the resolution lines instead of adding more.
        let again = f.with_resolution(1, &Resolution { note: None, ..resolution }).unwrap();
        assert_eq!(again.matches("**Resolved by**").count(), 1);
        assert_eq!(again.matches("**Note**").count(), 0);
        assert!(f.with_resolution(9, &resolution).is_none());
    }

    #[test]
    fn a_broken_block_is_reported_with_its_line_and_the_rest_read() {
        let m = ids(&["entity:person--alice"]);
        let (good, _) = FlagsFile::default().with_appended(&new(&m, "fine"));
        let text = format!(
            "{good}\n## Flag #7\n- **Kind**: worry\n- **Memories**: x\n- **Text**: t\n- **Status**: open\n\n---\n\n## Flag #x\n- **Text**: ?\n\n---\n\n## Flag #8\n- **Kind**: doubt\n- **Text**: no memories\n- **Status**: open\n"
        );
        let f = FlagsFile::parse(&text);
        assert_eq!(f.flags.len(), 1);
        let lines: Vec<usize> = f.problems.iter().map(|p| p.0).collect();
        let at = |s: &str| text.lines().position(|l| l == s).unwrap() + 1;
        assert_eq!(lines, [at("- **Kind**: worry"), at("## Flag #x"), at("## Flag #8")]);
        assert!(f.problems[0].1.contains("unknown kind \"worry\""), "{:?}", f.problems);
        assert!(f.problems[2].1.contains("no **Memories** line"), "{:?}", f.problems);
        assert_eq!(f.next_number(), 9, "a broken block's number is not reused");
    }

    #[test]
    fn targets_and_kinds() {
        assert_eq!(
            targets("entity:a--b, episode:2026-12-01:09:00"),
            ["entity:a--b", "episode:2026-12-01:09:00"]
        );
        assert_eq!(targets(" core:x:1 \n vault:y,,"), ["core:x:1", "vault:y"]);
        let cases = [
            ("tea or coffee", 2, (Kind::Contradiction, "tea or coffee")),
            ("tea or coffee", 1, (Kind::Doubt, "tea or coffee")),
            ("Doubt: maybe stale", 2, (Kind::Doubt, "maybe stale")),
            ("CONTRADICTION : says both", 1, (Kind::Contradiction, "says both")),
            ("doubtful claim", 1, (Kind::Doubt, "doubtful claim")),
            ("doubtless: x", 2, (Kind::Contradiction, "doubtless: x")),
        ];
        for (content, n, want) in cases {
            assert_eq!(kind_of(content, n), want, "input: {content:?}");
        }
    }

    // See: issue 19
    /// Hostile texts, reasons, ids and notes: the file gets one more flag, every field reads
    /// back as its [`field`] form, and the flag before it is untouched, before and after a
    /// resolution.
    #[test]
    fn issue_19_flag_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings, no_stray_delimiters};
        use proptest::prelude::*;
        let strategy = (
            (hostile::value(), hostile::value(), hostile::value()),
            prop::collection::vec(hostile::value(), 1..3),
            hostile::value(),
        );
        let m = ids(&["entity:person--alice"]);
        let (before, _) = FlagsFile::default().with_appended(&new(&m, "fine"));
        hostile::runner(96)
            .run(&strategy, |((text, reason, raised), memories, note)| {
                prop_assume!(!field(&text).is_empty());
                let want_ids: Vec<String> = memories
                    .iter()
                    .map(|e| field(e).replace(',', ";"))
                    .filter(|e| !e.is_empty() && e != "—")
                    .collect();
                prop_assume!(!want_ids.is_empty());
                let (written, n) = FlagsFile::parse(&before).with_appended(&NewFlag {
                    kind: Kind::Doubt,
                    memories: &memories,
                    text: &text,
                    reason: &reason,
                    raised_by: &raised,
                });
                prop_assert_eq!(n, 2);
                let check = |t: &str, status: Status| -> Result<(), TestCaseError> {
                    let f = FlagsFile::parse(t);
                    prop_assert!(f.problems.is_empty(), "{:?}", f.problems);
                    prop_assert_eq!(f.flags.len(), 2);
                    prop_assert_eq!(headings(t).len(), 3);
                    prop_assert_eq!(comment_lines(t)?.len(), 1);
                    no_stray_delimiters(t)?;
                    let one = &f.flags[0];
                    prop_assert_eq!((one.number, one.status), (1, Status::Open));
                    prop_assert_eq!(&one.text, "fine");
                    let two = &f.flags[1];
                    prop_assert_eq!((two.number, two.kind, two.status), (2, Kind::Doubt, status));
                    prop_assert_eq!(&two.text, &field(&text));
                    let r = field(&reason);
                    prop_assert_eq!(&two.reason, if r == "—" { "" } else { &r });
                    prop_assert_eq!(&two.memories, &want_ids);
                    Ok(())
                };
                check(&written, Status::Open)?;
                let resolution =
                    Resolution { by: "user:ann", at: "2026-12-02T10:00:00Z", note: Some(&note) };
                let resolved = FlagsFile::parse(&written)
                    .with_resolution(2, &resolution)
                    .expect("flag 2 exists");
                check(&resolved, Status::Resolved)?;
                let two = FlagsFile::parse(&resolved).get(2).cloned().expect("still there");
                let want = Some(field(&note)).filter(|n| !n.is_empty() && n != "—");
                prop_assert_eq!(two.note, want);
                Ok(())
            })
            .unwrap();
    }
}
