//! `memory/meta/pending-memories.md`: sub-agents' proposals, waiting for the main agent.
//!
//! Each proposal is a `## Proposal #N` block of bold-key bullets, closed by a `---` line:
//!
//! ```text
//! ## Proposal #3 ⚠️ CONFLICT with #2
//! - **From**: researcher
//! - **Timestamp**: 2026-11-30T16:20Z
//! - **Trigger**: cogmem propose
//! - **Suggested store**: semantic
//! - **Content**: Alice prefers coffee
//! - **Entities**: person--alice
//! - **Confidence**: medium
//! - **Core-worthy**: no
//! - **Status**: conflict — see #2
//!
//! ---
//! ```
//!
//! Reading keeps every block's line range, so a decision rewrites only that block's
//! `Status` line (and adds a `Decision` line); the rest of the file — hand notes included —
//! is left byte for byte.

use std::path::Path;

use cogmem_text::merge::{Unmergeable, pick3};
use serde::Serialize;

use super::StoreError;
use super::markdown::{field, numbered_blocks};

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Waiting for the main agent.
    Pending,
    /// Written to memory.
    Committed,
    /// Turned down.
    Rejected,
    /// Left for the next reflection or review.
    Deferred,
    /// Contradicts another proposal or a current fact; waiting like a pending one.
    Conflict,
}

impl Status {
    /// Returns the word written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Committed => "committed",
            Self::Rejected => "rejected",
            Self::Deferred => "deferred",
            Self::Conflict => "conflict",
        }
    }

    /// Tells whether the main agent still has to decide.
    pub fn is_open(self) -> bool {
        matches!(self, Self::Pending | Self::Deferred | Self::Conflict)
    }

    fn parse(text: &str) -> Option<Self> {
        let word = text.split(|c: char| !c.is_ascii_alphabetic()).next()?;
        [Self::Pending, Self::Committed, Self::Rejected, Self::Deferred, Self::Conflict]
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(word))
    }
}

/// One proposal as read from the file.
#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    /// Its number, `#N`.
    pub number: u32,
    /// The proposing agent (the `NAME` of `subagent:NAME`).
    pub from: String,
    /// When it was proposed, as written.
    pub timestamp: String,
    /// What caused it.
    pub trigger: String,
    /// The store it suggests (`episodic`, `semantic`, `procedural`, `vault`, `core`).
    pub store: String,
    /// The memory text.
    pub content: String,
    /// Entity ids it is about.
    pub entities: Vec<String>,
    /// Relations, `FROM|RELATION|TO` (a cogmem addition to the skill's format).
    pub relations: Vec<String>,
    /// `high`, `medium` or `low`.
    pub confidence: String,
    /// Whether the proposer thinks it belongs in core memory.
    pub core_worthy: bool,
    /// Where it stands.
    pub status: Status,
    /// The status line's text after the status word (e.g. `— see #2`).
    pub status_note: String,
    /// The proposal it conflicts with, if any.
    pub conflicts_with: Option<u32>,
    /// The decision line, once decided (`2026-11-30T17:00Z manual: …`).
    pub decision: Option<String>,
    /// 1-based line of the heading.
    pub line: usize,
    #[serde(skip)]
    status_line: usize,
    #[serde(skip)]
    end_line: usize,
}

/// The parsed file: proposals plus what could not be read.
#[derive(Debug, Clone, Default)]
pub struct PendingFile {
    text: String,
    /// The proposals, in file order.
    pub proposals: Vec<Proposal>,
    /// Blocks that could not be read: (1-based line, why).
    pub problems: Vec<(usize, String)>,
    /// The highest number any heading carries, readable or not (so none is reused).
    highest: u32,
}

/// The heading that opens a proposal.
const HEADING: &str = "## Proposal #";

impl PendingFile {
    /// Parses the file's text. A block without a number, content or status is reported in
    /// [`PendingFile::problems`] and skipped; the rest stay usable.
    pub fn parse(text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut proposals = Vec::new();
        let mut problems = Vec::new();
        let (blocks, highest) = numbered_blocks(&lines, HEADING, |l| l.starts_with(HEADING));
        for b in blocks {
            match read_block(b.rest, &lines[b.start + 1..b.end], b.start) {
                Ok(p) => proposals.push(Proposal { end_line: b.end, ..p }),
                Err(problem) => problems.push(problem),
            }
        }
        Self { text: text.to_owned(), proposals, problems, highest }
    }

    /// Returns the proposal numbered `n`.
    pub fn get(&self, n: u32) -> Option<&Proposal> {
        self.proposals.iter().find(|p| p.number == n)
    }

    /// Returns the number the next proposal gets: after the highest any block carries, a block
    /// that cannot be read included, so that no number is given twice.
    pub fn next_number(&self) -> u32 {
        self.highest + 1
    }

    /// Returns the text with a new proposal block appended.
    ///
    /// Every value is one [`field`] (a list item's `,` becomes `;`), so no value can end its
    /// bullet, open a comment or add a block; the content reads back as that field.
    pub fn with_appended(&self, p: &NewProposal<'_>) -> String {
        let mut out = self.text.clone();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.ends_with("\n\n") && !out.is_empty() {
            out.push('\n');
        }
        let conflict = p.conflict.map(field);
        let heading = match &conflict {
            Some(c) => format!("{HEADING}{} ⚠️ CONFLICT with {c}", p.number),
            None => format!("{HEADING}{}", p.number),
        };
        let status = match &conflict {
            Some(c) => format!("conflict — see {c}"),
            None => "pending".to_owned(),
        };
        let list = |v: &[String]| {
            let items: Vec<String> =
                v.iter().map(|x| field(x).replace(',', ";")).filter(|x| !x.is_empty()).collect();
            if items.is_empty() { "—".to_owned() } else { items.join(", ") }
        };
        out.push_str(&heading);
        out.push('\n');
        let mut bullet = |k: &str, v: &str| {
            out.push_str(&format!("- **{k}**: {}\n", field(v)));
        };
        bullet("From", p.from);
        bullet("Timestamp", p.timestamp);
        bullet("Trigger", p.trigger);
        bullet("Suggested store", p.store);
        bullet("Content", p.content);
        bullet("Entities", &list(p.entities));
        if !p.relations.is_empty() {
            bullet("Relations", &list(p.relations));
        }
        bullet("Confidence", p.confidence);
        bullet("Core-worthy", if p.core_worthy { "yes" } else { "no" });
        bullet("Status", &status);
        out.push_str("\n---\n");
        out
    }

    /// Returns the text with proposal `n`'s status replaced and a `Decision` line recorded.
    pub fn with_decision(&self, n: u32, status: Status, decision: &str) -> Option<String> {
        let p = self.get(n)?;
        let lines: Vec<&str> = self.text.split_inclusive('\n').collect();
        let mut out = String::with_capacity(self.text.len() + 128);
        for (i, line) in lines.iter().enumerate() {
            if i == p.status_line {
                out.push_str(&format!("- **Status**: {}\n", status.as_str()));
                out.push_str(&format!("- **Decision**: {}\n", field(decision)));
                continue;
            }
            // An earlier decision line is replaced by the new one.
            if i > p.line - 1 && i < p.end_line && line.starts_with("- **Decision**:") {
                continue;
            }
            out.push_str(line);
        }
        Some(out)
    }
}

impl PendingFile {
    /// Returns the text with entity id `old` replaced by `new` in the `Entities` and
    /// `Relations` bullets of every open proposal (pending, deferred, conflict), so approving it
    /// later writes to the renamed entity. Decided proposals keep their record as it was.
    /// `None` when no open proposal names `old`.
    pub fn with_entity_renamed(&self, old: &str, new: &str) -> Option<String> {
        let open: Vec<(usize, usize)> = self
            .proposals
            .iter()
            .filter(|p| p.status.is_open())
            .map(|p| (p.line - 1, p.end_line))
            .collect();
        let mut out = String::with_capacity(self.text.len());
        let mut changed = false;
        for (i, line) in self.text.split_inclusive('\n').enumerate() {
            let in_open = open.iter().any(|&(a, b)| i > a && i < b);
            if in_open
                && (line.starts_with("- **Entities**:") || line.starts_with("- **Relations**:"))
                && let Some(new_line) = replace_id(line, old, new)
            {
                out.push_str(&new_line);
                changed = true;
            } else {
                out.push_str(line);
            }
        }
        changed.then_some(out)
    }
}

/// Replaces `old` where it stands as a whole id (not inside a longer one) in `line`.
fn replace_id(line: &str, old: &str, new: &str) -> Option<String> {
    let is_id_char = |c: char| c.is_alphanumeric() || c == '-';
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut changed = false;
    while let Some(i) = rest.find(old) {
        out.push_str(&rest[..i]);
        let before = out.chars().next_back();
        let after = rest[i + old.len()..].chars().next();
        if before.is_none_or(|c| !is_id_char(c)) && after.is_none_or(|c| !is_id_char(c)) {
            out.push_str(new);
            changed = true;
        } else {
            out.push_str(old);
        }
        rest = &rest[i + old.len()..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// A proposal about to be written.
#[derive(Debug, Clone)]
pub struct NewProposal<'a> {
    /// Its number.
    pub number: u32,
    /// The proposing agent.
    pub from: &'a str,
    /// When, `YYYY-MM-DDTHH:MMZ`.
    pub timestamp: &'a str,
    /// What caused it.
    pub trigger: &'a str,
    /// The suggested store.
    pub store: &'a str,
    /// The memory text.
    pub content: &'a str,
    /// Entity ids.
    pub entities: &'a [String],
    /// Relations, `FROM|RELATION|TO`.
    pub relations: &'a [String],
    /// Confidence word.
    pub confidence: &'a str,
    /// Core-worthy.
    pub core_worthy: bool,
    /// What it conflicts with: `#M` for an open proposal, or a current fact.
    pub conflict: Option<&'a str>,
}

/// Reads one block; what is wrong with it comes with its 1-based line and, once the heading has
/// its number, starts `proposal #N` (so that a command asking for #N can name it).
fn read_block(heading: &str, body: &[&str], start: usize) -> Result<Proposal, (usize, String)> {
    let digits: String = heading.chars().take_while(char::is_ascii_digit).collect();
    let number: u32 = digits.parse().map_err(|_| {
        (start + 1, "the heading has no proposal number (`## Proposal #N`)".to_owned())
    })?;
    let conflicts_with = heading
        .split("CONFLICT with #")
        .nth(1)
        .and_then(|r| r.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok());
    let mut p = Proposal {
        number,
        from: String::new(),
        timestamp: String::new(),
        trigger: String::new(),
        store: String::new(),
        content: String::new(),
        entities: Vec::new(),
        relations: Vec::new(),
        confidence: "medium".to_owned(),
        core_worthy: false,
        status: Status::Pending,
        status_note: String::new(),
        conflicts_with,
        decision: None,
        line: start + 1,
        status_line: 0,
        end_line: 0,
    };
    let mut has_status = false;
    let list = |v: &str| -> Vec<String> {
        v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty() && *s != "—")
            .map(str::to_owned)
            .collect()
    };
    for (k, line) in body.iter().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("- **") else { continue };
        let Some((key, value)) = rest.split_once("**:") else { continue };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "from" => p.from = value.to_owned(),
            "timestamp" => p.timestamp = value.to_owned(),
            "trigger" => p.trigger = value.to_owned(),
            "suggested store" => p.store = value.to_ascii_lowercase(),
            "content" => p.content = value.to_owned(),
            "entities" => p.entities = list(value),
            "relations" => p.relations = list(value),
            "confidence" => p.confidence = value.to_ascii_lowercase(),
            "core-worthy" => p.core_worthy = value.eq_ignore_ascii_case("yes"),
            "decision" => p.decision = Some(value.to_owned()),
            "status" => {
                p.status = Status::parse(value).ok_or_else(|| {
                    let known = "pending, committed, rejected, deferred or conflict";
                    (
                        start + 2 + k,
                        format!("proposal #{number}: unknown status {value:?} ({known})"),
                    )
                })?;
                let word_len = p.status.as_str().len().min(value.len());
                p.status_note =
                    value[word_len..].trim().trim_start_matches(['—', '-']).trim().to_owned();
                p.status_line = start + 1 + k;
                has_status = true;
            }
            _ => {}
        }
    }
    if p.content.is_empty() {
        return Err((start + 1, format!("proposal #{number} has no **Content** line")));
    }
    if !has_status {
        return Err((start + 1, format!("proposal #{number} has no **Status** line")));
    }
    Ok(p)
}

/// Turns a parse problem into the error a command that needs that proposal returns.
pub fn problem_error(path: &Path, line: usize, why: &str) -> StoreError {
    StoreError::Malformed { path: path.to_owned(), line, what: why.to_owned() }
}

/// The error for block `NOUN #n` of the file at `path` (`proposal #2`, `flag #3`), when it is
/// among the blocks that could not be read (`problems`, as [`PendingFile::problems`] and
/// `FlagsFile::problems` hold them): `path:line: why`.
pub fn unreadable(
    path: &Path,
    problems: &[(usize, String)],
    noun: &str,
    n: u32,
) -> Option<StoreError> {
    let heading = format!("{noun} #{n}");
    problems
        .iter()
        .find(|(_, why)| {
            why.strip_prefix(&heading).is_some_and(|rest| rest.starts_with([' ', ':']))
        })
        .map(|(line, why)| problem_error(path, *line, why))
}

/// A proposal block: its number and text (heading to the closing `---`, trimmed).
fn merge_blocks(text: &str) -> (&str, Vec<(u32, &str)>) {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with(HEADING) {
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
            block[HEADING.len()..].chars().take_while(char::is_ascii_digit).collect();
        blocks.push((digits.parse().unwrap_or(0), block));
    }
    (text[..first].trim_end(), blocks)
}

/// Rewrites a proposal block's number.
fn renumber(block: &str, to: u32) -> String {
    let rest = &block[HEADING.len()..];
    let tail = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{HEADING}{to}{tail}")
}

/// Three-way merge of `pending-memories.md` for `sync --remote`: proposals of both sides. A proposal both sides decided
/// differently cannot be merged; a new proposal whose number the other side also used is
/// renumbered after the highest number (theirs move, ours keep their numbers).
///
/// Returns the merged text and the proposals renumbered, `(from, to)`.
///
/// # Errors
///
/// When both sides decided the same proposal differently or rewrote the text above the
/// proposals.
pub fn merge3(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<(String, Vec<(u32, u32)>), Unmergeable> {
    let (hb, b) = merge_blocks(base.unwrap_or(""));
    let (ho, o) = merge_blocks(ours);
    let (ht, t) = merge_blocks(theirs);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_proposals_follow_a_renamed_entity() {
        let text = "## Proposal #1\n- **From**: r\n- **Timestamp**: t\n- **Trigger**: x\n- **Suggested store**: semantic\n- **Content**: c\n- **Entities**: concept--hana, concept--hanami\n- **Relations**: concept--hana|relates-to|person--bob\n- **Confidence**: high\n- **Core-worthy**: no\n- **Status**: pending\n\n---\n## Proposal #2\n- **From**: r\n- **Timestamp**: t\n- **Trigger**: x\n- **Suggested store**: semantic\n- **Content**: c\n- **Entities**: concept--hana\n- **Confidence**: high\n- **Core-worthy**: no\n- **Status**: committed\n\n---\n";
        let got =
            PendingFile::parse(text).with_entity_renamed("concept--hana", "person--hana").unwrap();
        let f = PendingFile::parse(&got);
        assert_eq!(f.proposals[0].entities, ["person--hana", "concept--hanami"]);
        assert_eq!(f.proposals[0].relations, ["person--hana|relates-to|person--bob"]);
        assert_eq!(
            f.proposals[1].entities,
            ["concept--hana"],
            "decided proposals keep their record"
        );
        assert!(PendingFile::parse(text).with_entity_renamed("tool--x", "tool--y").is_none());
    }

    #[test]
    fn merge3_renumbers_proposals_with_the_same_number() {
        let head = "# Pending Memory Proposals\n";
        let p = |n: u32, what: &str| {
            format!("## Proposal #{n}\n- **Content**: {what}\n- **Status**: pending\n\n---")
        };
        let ours = format!("{head}\n{}\n", p(1, "ours"));
        let theirs = format!("{head}\n{}\n", p(1, "theirs"));
        let (text, moved) = merge3(Some(head), &ours, &theirs).unwrap();
        assert_eq!(moved, [(1, 2)]);
        assert_eq!(text, format!("{head}\n{}\n\n{}\n", p(1, "ours"), p(2, "theirs")));
        let merged = PendingFile::parse(&text);
        assert_eq!(merged.proposals.iter().map(|p| p.number).collect::<Vec<_>>(), [1, 2]);
        let decided = ours.replace("pending", "rejected");
        let other = ours.replace("pending", "committed");
        assert!(merge3(Some(&ours), &decided, &other).is_err());
        // Decided on one side only: that decision wins.
        let (text, _) = merge3(Some(&ours), &decided, &ours).unwrap();
        assert_eq!(text, decided);
    }

    const TEXT: &str = "# Pending Memory Proposals\n\n<!-- comment -->\n\n## Proposal #1\n- **From**: researcher\n- **Timestamp**: 2026-11-30T16:20Z\n- **Trigger**: cogmem propose\n- **Suggested store**: semantic\n- **Content**: Alice prefers tea\n- **Entities**: person--alice\n- **Confidence**: high\n- **Core-worthy**: no\n- **Status**: pending\n\n---\n";

    #[test]
    fn round_trip_append_and_decide() {
        let f = PendingFile::parse(TEXT);
        assert_eq!(f.proposals.len(), 1, "{:?}", f.problems);
        let p = &f.proposals[0];
        assert_eq!((p.number, p.from.as_str(), p.status), (1, "researcher", Status::Pending));
        assert_eq!(p.entities, ["person--alice"]);
        let text = f.with_appended(&NewProposal {
            number: 2,
            from: "critic",
            timestamp: "2026-11-30T16:30Z",
            trigger: "cogmem propose",
            store: "semantic",
            content: "Alice prefers coffee",
            entities: &["person--alice".to_owned()],
            relations: &[],
            confidence: "low",
            core_worthy: false,
            conflict: Some("#1"),
        });
        let f = PendingFile::parse(&text);
        let two = f.get(2).unwrap();
        assert_eq!((two.status, two.conflicts_with), (Status::Conflict, Some(1)));
        assert!(text.contains("## Proposal #2 ⚠️ CONFLICT with #1\n"));
        let decided =
            f.with_decision(1, Status::Rejected, "2026-11-30T17:00Z manual: wrong").unwrap();
        let f = PendingFile::parse(&decided);
        assert_eq!(f.get(1).unwrap().status, Status::Rejected);
        assert_eq!(f.get(1).unwrap().decision.as_deref(), Some("2026-11-30T17:00Z manual: wrong"));
        assert_eq!(f.get(2).unwrap().status, Status::Conflict, "other blocks untouched");
        // Deciding again replaces the decision line instead of adding one.
        let again = f.with_decision(1, Status::Deferred, "later").unwrap();
        assert_eq!(again.matches("**Decision**").count(), 1);
    }

    // See: issue 16
    /// Hostile names, triggers, contents, conflicts and decision reasons: the file gets one
    /// more proposal, every field reads back as its [`field`] form, and the proposal before it
    /// is untouched, before and after a decision.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings, no_stray_delimiters};
        use proptest::prelude::*;
        let strategy = (
            (hostile::value(), hostile::value(), hostile::value(), hostile::value()),
            prop::option::of(hostile::value()),
            prop::collection::vec(hostile::value(), 0..3),
            hostile::value(),
        );
        hostile::runner(96)
            .run(&strategy, |((from, trigger, content, confidence), conflict, entities, why)| {
                prop_assume!(!field(&content).is_empty());
                let before = PendingFile::parse(TEXT);
                let text = before.with_appended(&NewProposal {
                    number: 2,
                    from: &from,
                    timestamp: "2026-11-30T16:30Z",
                    trigger: &trigger,
                    store: "semantic",
                    content: &content,
                    entities: &entities,
                    relations: &[],
                    confidence: &confidence,
                    core_worthy: true,
                    conflict: conflict.as_deref(),
                });
                let check = |text: &str, status: Status| -> Result<(), TestCaseError> {
                    let f = PendingFile::parse(text);
                    prop_assert!(f.problems.is_empty(), "{:?}", f.problems);
                    prop_assert_eq!(f.proposals.len(), 2);
                    prop_assert_eq!(headings(text).len(), 3);
                    prop_assert_eq!(comment_lines(text)?.len(), 1);
                    no_stray_delimiters(text)?;
                    let one = &f.proposals[0];
                    prop_assert_eq!((one.number, one.status), (1, Status::Pending));
                    prop_assert_eq!(&one.content, "Alice prefers tea");
                    let p = &f.proposals[1];
                    prop_assert_eq!(p.number, 2);
                    prop_assert_eq!(&p.from, &field(&from));
                    prop_assert_eq!(&p.trigger, &field(&trigger));
                    prop_assert_eq!(&p.content, &field(&content));
                    prop_assert_eq!(&p.confidence, &field(&confidence).to_ascii_lowercase());
                    let want: Vec<String> = entities
                        .iter()
                        .map(|e| field(e).replace(',', ";"))
                        .filter(|e| !e.is_empty() && e != "—")
                        .collect();
                    prop_assert_eq!(&p.entities, &want);
                    prop_assert!(p.core_worthy);
                    prop_assert_eq!(p.status, status);
                    Ok(())
                };
                let open = if conflict.is_some() { Status::Conflict } else { Status::Pending };
                check(&text, open)?;
                let decided = PendingFile::parse(&text)
                    .with_decision(2, Status::Rejected, &why)
                    .expect("proposal 2 exists");
                check(&decided, Status::Rejected)?;
                let p = PendingFile::parse(&decided).get(2).cloned().expect("still there");
                prop_assert_eq!(p.decision, Some(field(&why)));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_broken_block_is_reported_and_the_rest_read() {
        let text = format!("{TEXT}\n## Proposal #x\n- **Content**: ?\n\n---\n");
        let f = PendingFile::parse(&text);
        assert_eq!(f.proposals.len(), 1);
        assert_eq!(f.problems.len(), 1);
        assert_eq!(f.next_number(), 2);
    }
}
