//! Post-reflection dialogues (`memory/meta/reflections/dialogues/YYYY-MM-DD.md`, issue 19): the
//! conversation a person and the agent had about a reflection, in the skill's format
//! (`# Post-Reflection Dialogue — date`, `## Reflection Summary`, `## Dialogue` with
//! `**User:**` / `**<agent>:**` turns, `## Extracted to Main Reflection`). Pure: the input a
//! person or agent hands in is parsed here, and the file's text rendered and read back here.
//!
//! The input is plain text: a line starting `User:` or `Agent:` (any case) starts a turn, the
//! lines after it continue that turn, and a line starting `Extracted:` names something taken
//! into the main reflection. Invariant: every value is one field, so a turn can neither add a
//! heading nor end its line.

use super::one_line;

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    /// The person.
    User,
    /// The agent (shown under its name).
    Agent,
}

/// One turn of a dialogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who speaks.
    pub speaker: Speaker,
    /// What they said, on one line.
    pub text: String,
}

/// A dialogue as handed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialogue {
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// What was taken into the main reflection.
    pub extracted: Vec<String>,
}

/// The heading of a dialogue's first section; each recorded dialogue starts with it.
pub const SUMMARY_HEADING: &str = "## Reflection Summary";

/// Strips `prefix` from the start of `line`, ignoring case.
fn strip_word<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &line[prefix.len()..])
}

/// Parses a dialogue handed in as text (see the module's header). Returns the 1-based line and
/// what is wrong: text before the first turn, a turn with nothing said, or no turn at all.
pub fn parse(text: &str) -> Result<Dialogue, (usize, String)> {
    let mut d = Dialogue { turns: Vec::new(), extracted: Vec::new() };
    let mut started: Vec<usize> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let turn = [("User:", Speaker::User), ("Agent:", Speaker::Agent)]
            .into_iter()
            .find_map(|(p, s)| strip_word(t, p).map(|rest| (s, rest)));
        if let Some((speaker, rest)) = turn {
            d.turns.push(Turn { speaker, text: rest.trim().to_owned() });
            started.push(i + 1);
        } else if let Some(rest) = strip_word(t, "Extracted:") {
            let item = one_line(rest);
            if !item.is_empty() {
                d.extracted.push(item);
            }
        } else if let Some(last) = d.turns.last_mut() {
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(t);
        } else {
            return Err((
                i + 1,
                "text before the first turn; start each turn with `User:` or `Agent:`".into(),
            ));
        }
    }
    if d.turns.is_empty() {
        return Err((1, "no turn; start each turn with `User:` or `Agent:`".into()));
    }
    for (turn, line) in d.turns.iter_mut().zip(started) {
        turn.text = one_line(&turn.text);
        if turn.text.is_empty() {
            return Err((line, "the turn says nothing".into()));
        }
    }
    Ok(d)
}

/// Renders the file's title, for a file that does not exist yet:
/// `# Post-Reflection Dialogue — 2026-12-01`.
pub fn title(date: &str) -> String {
    format!("# Post-Reflection Dialogue — {}\n", one_line(date))
}

/// Renders one recorded dialogue (starting with a blank line): the reflection it follows (its
/// one-line summary without the `## `), the turns under `**User:**` and `**<agent>:**`, and
/// what was extracted (`- (nothing)` when none).
pub fn render(summary: &str, agent: &str, d: &Dialogue) -> String {
    let summary = one_line(summary.trim_start_matches('#').trim());
    let mut s = format!("\n{SUMMARY_HEADING}\n{summary}\n\n## Dialogue\n");
    let agent = one_line(agent).replace('*', "");
    for t in &d.turns {
        let who = match t.speaker {
            Speaker::User => "User",
            Speaker::Agent => agent.as_str(),
        };
        s.push_str(&format!("**{who}:** {}\n\n", one_line(&t.text)));
    }
    s.push_str("## Extracted to Main Reflection\n");
    if d.extracted.is_empty() {
        s.push_str("- (nothing)\n");
    }
    for e in &d.extracted {
        s.push_str(&format!("- {}\n", crate::store::markdown::list_item(e)));
    }
    s
}

/// Returns the name the agent's turns are shown under: IDENTITY.md's `- **Name:**` fact, or
/// `Agent` when it has none (or only the template's `[…]` placeholder).
pub fn agent_name(identity: &str) -> String {
    identity
        .lines()
        .find_map(|l| l.trim().strip_prefix("- **Name:**"))
        .map(str::trim)
        .filter(|v| !v.starts_with('['))
        .map(|v| one_line(&v.replace('*', "")))
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "Agent".to_owned())
}

/// Returns the recorded dialogues of a dialogue file, each with the reflection number its
/// summary names (`None` when it names none, as in a hand-written file).
pub fn recorded(text: &str) -> Vec<(Option<u32>, String)> {
    let mut out: Vec<(Option<u32>, String)> = Vec::new();
    for line in text.lines() {
        if line.trim_end() == SUMMARY_HEADING {
            out.push((None, String::new()));
        }
        let Some((number, body)) = out.last_mut() else { continue };
        if number.is_none()
            && let Some(rest) = line.trim().strip_prefix("Reflection #")
        {
            *number = rest.split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok());
        }
        body.push_str(line);
        body.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUT: &str = "user: Why archive the old garden note?\nAgent: It was superseded\n  by the spring plan.\n\nUser: Keep the tomato one.\nExtracted: the user wants tomato notes kept\n";

    // See: issue 19
    #[test]
    fn issue_19_a_dialogue_file_is_the_skills_format() {
        let d = parse(INPUT).unwrap();
        let mut file = title("2026-12-01");
        file.push_str(&render(
            "## Reflection #3 — 2026-12-01 | approved | Insight: \"Less is more.\"",
            "Ada",
            &d,
        ));
        assert_eq!(
            file,
            "# Post-Reflection Dialogue — 2026-12-01\n\n## Reflection Summary\nReflection #3 — 2026-12-01 | approved | Insight: \"Less is more.\"\n\n## Dialogue\n**User:** Why archive the old garden note?\n\n**Ada:** It was superseded by the spring plan.\n\n**User:** Keep the tomato one.\n\n## Extracted to Main Reflection\n- the user wants tomato notes kept\n"
        );
        let again = format!("{file}{}", render("Reflection #4 — x", "Ada", &d));
        let got: Vec<Option<u32>> = recorded(&again).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, [Some(3), Some(4)]);
        let nothing = Dialogue { extracted: Vec::new(), ..d };
        assert!(render("Reflection #4", "Agent", &nothing).ends_with("\n- (nothing)\n"));
    }

    #[test]
    fn the_agent_is_named_as_identity_md_names_it() {
        let cases = [
            ("# I\n\n## Facts\n- **Name:** Ada\n", "Ada"),
            ("## Facts\n- **Name:**\n", "Agent"),
            ("## Facts\n- **Name:** [your name]\n", "Agent"),
            ("", "Agent"),
        ];
        for (input, want) in cases {
            assert_eq!(agent_name(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn bad_dialogues_name_their_line() {
        let cases = [
            ("hello\nUser: x\n", 1, "text before the first turn"),
            ("\n\n", 1, "no turn"),
            ("User: a\nAgent:\n", 2, "says nothing"),
        ];
        for (input, line, why) in cases {
            let (l, w) = parse(input).unwrap_err();
            assert_eq!(l, line, "input: {input:?}");
            assert!(w.contains(why), "input: {input:?}: {w}");
        }
    }

    #[test]
    fn turns_cannot_add_headings_or_comments() {
        let d = parse("User: a\n## Dialogue\n<!-- x -->\nAgent: **b**\n").unwrap();
        let out = render("## Reflection #1 | approved | Insight: \"\"", "A**da", &d);
        assert_eq!(out.matches("\n## ").count(), 3, "{out}");
        assert!(!out.contains("<!--"), "{out}");
        assert!(out.contains("**Ada:** **b**"), "{out}");
    }
}
