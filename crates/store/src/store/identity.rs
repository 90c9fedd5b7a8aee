//! `IDENTITY.md`: the agent's identity, with a `## Self-Image` section that a self-image
//! consolidation rewrites (never appends to) and a self-awareness log whose `### Recent`
//! entries (`YYYY-MM-DD: …`, one per line) move, summarised by month, to `### Archived
//! (Compacted)`. Also reads the consolidation an agent submits: a `## Self-Image` section and a
//! `## Compacted Log` of `YYYY-MM (N entries): summary` lines. Renders new content; never
//! writes to disk.

const SELF_IMAGE: &str = "## Self-Image";
const COMPACTED: &str = "## Compacted Log";

/// A self-image consolidation as submitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consolidation {
    /// The new Self-Image section body, without its heading.
    pub(crate) body: String,
    /// `(YYYY-MM, summary)`: the months to move out of the Recent log.
    pub(crate) months: Vec<(String, String)>,
}

/// Reads a submitted consolidation.
///
/// Returns what is wrong as text when there is no `## Self-Image` section, when it is empty,
/// or when a Compacted Log line is not `YYYY-MM (N entries): summary`.
pub fn parse_consolidation(text: &str) -> Result<Consolidation, String> {
    let Some((s, e)) = section(text, SELF_IMAGE) else {
        return Err("the submission has no `## Self-Image` section".into());
    };
    let body: Vec<&str> = text
        .lines()
        .skip(s + 1)
        .take(e - s - 1)
        .filter(|l| !l.trim_start().starts_with("<!--"))
        .collect();
    let body = body.join("\n").trim().to_owned();
    if body.is_empty() {
        return Err("the `## Self-Image` section is empty".into());
    }
    let mut months = Vec::new();
    if let Some((s, e)) = section(text, COMPACTED) {
        for line in text.lines().skip(s + 1).take(e - s - 1).map(str::trim) {
            if line.is_empty() || line.starts_with("<!--") {
                continue;
            }
            let line = line.strip_prefix("- ").unwrap_or(line);
            let month = line.get(..7).unwrap_or("");
            let ok = month.len() == 7
                && month.as_bytes()[4] == b'-'
                && month.chars().enumerate().all(|(i, c)| i == 4 || c.is_ascii_digit());
            let summary = line.split_once("):").map(|(_, s)| s.trim()).unwrap_or("");
            if !ok || summary.is_empty() {
                return Err(format!("{line:?} is not `YYYY-MM (N entries): summary`"));
            }
            months.push((month.to_owned(), summary.to_owned()));
        }
    }
    Ok(Consolidation { body, months })
}

/// Returns the `## Self-Image` section of IDENTITY.md, heading included (empty when there is
/// none).
pub fn self_image(identity: &str) -> String {
    let (s, e) = section(identity, SELF_IMAGE).unwrap_or((0, 0));
    identity.lines().skip(s).take(e - s).collect::<Vec<_>>().join("\n")
}

/// Finds a `## ` section: its heading line and the line where the next `## ` heading starts.
fn section(text: &str, heading: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim_end() == heading)?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |p| start + 1 + p);
    Some((start, end))
}

/// Returns the dated entries (`YYYY-MM-DD: …`) of the `### Recent` self-awareness log.
pub fn recent_entries(identity: &str) -> Vec<String> {
    log_lines(identity, "### Recent").filter(|l| is_dated(l)).map(str::to_owned).collect()
}

/// Returns the month lines (`YYYY-MM (N entries): summary`) of the `### Archived` self-awareness
/// log: the months earlier consolidations compacted, oldest first as the file keeps them.
pub fn archived_entries(identity: &str) -> Vec<String> {
    log_lines(identity, "### Archived")
        .map(str::trim)
        .filter(|l| is_month(l.strip_prefix("- ").unwrap_or(l)))
        .map(str::to_owned)
        .collect()
}

/// The lines under the first heading that starts with `heading`, up to the next heading.
fn log_lines<'a>(identity: &'a str, heading: &str) -> impl Iterator<Item = &'a str> {
    let mut lines = identity.lines();
    let found = lines.by_ref().any(|l| l.trim().starts_with(heading));
    lines.take_while(move |l| found && !l.starts_with('#'))
}

fn is_month(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 8
        && b[4] == b'-'
        && b[..4].iter().chain(&b[5..7]).all(u8::is_ascii_digit)
        && b[7] == b' '
}

fn is_dated(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 11
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b':'
        && b[..4].iter().all(u8::is_ascii_digit)
}

/// A submitted Self-Image body as IDENTITY.md holds it: its own `###` sub-headings stay; every
/// other line is a [`paragraph_line`](crate::store::markdown::paragraph_line), so that no line
/// starts a section of the file (a `#` or `##` heading, a setext underline, or the `### Recent`
/// and `### Archived` headings of the self-awareness log, which it would take over) or hides
/// the rest of it (an HTML block or a code fence left open). Line breaks of every kind are LF
/// first, so a lone CR cannot start a line the escaping did not see.
fn self_image_body(body: &str) -> String {
    let lines: Vec<String> = crate::store::markdown::plain_breaks(body)
        .lines()
        .map(|l| {
            let t = l.trim_start();
            let level = t.chars().take_while(|&c| c == '#').count();
            let is_log = t.starts_with("### Recent") || t.starts_with("### Archived");
            if level >= 3 && !is_log {
                l.to_owned()
            } else {
                crate::store::markdown::paragraph_line(l)
            }
        })
        .collect();
    lines.join("\n").trim_end().to_owned()
}

/// The Recent log entries a consolidation summarises: those of its months, in file order.
pub fn covered_entries(identity: &str, sub: &Consolidation) -> Vec<String> {
    recent_entries(identity)
        .into_iter()
        .filter(|l| sub.months.iter().any(|(m, _)| l.starts_with(m.as_str())))
        .collect()
}

/// The heading, in `pending-identity.md`, of what a submitted consolidation saw.
const SEEN: &str = "## Seen at Submission";

/// Renders what a consolidation saw when it was submitted, for `pending-identity.md`: the
/// self-awareness counter then, and the Recent log entries its months covered, one per line.
pub fn seen_section(count: u64, covered: &[String]) -> String {
    let mut out = format!(
        "{SEEN}\n\n<!-- Approval moves only these entries out of the Recent log and counts only later ones toward the next consolidation. -->\n\n- **Entries since consolidation:** {count}\n"
    );
    for l in covered {
        // As IDENTITY.md holds it (one line), so that approval finds it again.
        out.push_str(&format!("- {l}\n"));
    }
    out
}

/// What a submitted consolidation saw: the counter and the covered entries, as
/// [`seen_section`] wrote them in `pending`. `None` for a file without that section (one
/// submitted by an older cogmem).
pub fn seen(pending: &str) -> Option<(u64, Vec<String>)> {
    let mut lines = pending.lines().skip_while(|l| l.trim_end() != SEEN).skip(1);
    let mut count = None;
    let mut covered = Vec::new();
    for l in lines.by_ref() {
        let l = l.trim();
        if l.starts_with("## ") || l.starts_with("<!-- submission text") {
            break;
        }
        if let Some(n) = l.strip_prefix("- **Entries since consolidation:**") {
            count = n.trim().parse().ok();
        } else if let Some(e) = l.strip_prefix("- ").filter(|e| is_dated(e)) {
            covered.push(e.to_owned());
        }
    }
    Some((count?, covered))
}

/// IDENTITY.md after the consolidation: the Self-Image section replaced, summarised months
/// moved from the Recent log to the Archived log (with the real entry counts).
///
/// With `covered` (what the submission saw, [`covered_entries`] then), only those entries move,
/// each once; entries of the same months written since stay in the Recent log, and the counts
/// are of what moved.
pub fn consolidated(
    identity: &str,
    sub: &Consolidation,
    date: &str,
    covered: Option<&[String]>,
) -> String {
    let lines: Vec<&str> = identity.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let (s, e) = section(identity, SELF_IMAGE).unwrap_or((lines.len(), lines.len()));
    // Which Recent lines move: those of the months, and only the covered ones when given.
    let mut left: Option<Vec<&str>> = covered.map(|c| c.iter().map(String::as_str).collect());
    let mut moves = vec![false; lines.len()];
    let mut in_recent = false;
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with('#') {
            in_recent = l.trim().starts_with("### Recent");
            continue;
        }
        if !in_recent || !is_dated(l) || !sub.months.iter().any(|(m, _)| l.starts_with(m.as_str()))
        {
            continue;
        }
        moves[i] = match &mut left {
            None => true,
            Some(left) => match left.iter().position(|c| c == l) {
                Some(k) => {
                    left.swap_remove(k);
                    true
                }
                None => false,
            },
        };
    }
    let mut moved: Vec<String> = Vec::new();
    for (m, summary) in &sub.months {
        let n = lines
            .iter()
            .zip(&moves)
            .filter(|(l, moves)| **moves && l.starts_with(m.as_str()))
            .count();
        if n > 0 {
            moved.push(format!("{m} ({n} entries): {}", crate::store::markdown::field(summary)));
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if i == s {
            out.push(SELF_IMAGE.to_owned());
            out.push(format!(
                "<!-- Discovered over time and rewritten (not appended to) when self-awareness notes are consolidated.\n     Last consolidated: {date} -->"
            ));
            out.push(String::new());
            out.push(self_image_body(&sub.body));
            out.push(String::new());
            i = e;
            continue;
        }
        if l.starts_with('#') && l.trim().starts_with("### Archived") {
            out.push(l.to_owned());
            // Keep the section's comment lines and entries, then add the moved months.
            let mut j = i + 1;
            while j < lines.len() && !lines[j].starts_with('#') {
                if !lines[j].trim().is_empty() {
                    out.push(lines[j].to_owned());
                }
                j += 1;
            }
            out.append(&mut moved);
            if j < lines.len() {
                out.push(String::new());
            }
            i = j;
            continue;
        }
        if moves[i] {
            i += 1;
            continue;
        }
        out.push(l.to_owned());
        i += 1;
    }
    if !moved.is_empty() {
        out.push(String::new());
        out.push("### Archived (Compacted)".to_owned());
        out.extend(moved);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDENTITY: &str = "# IDENTITY.md\n\n## Facts\n- **Name:** Ada\n\n## Self-Image\n<!-- Last consolidated: never -->\n\n### Who I Think I Am\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n2026-11-02: I rush.\n2026-11-09: I like lists.\n2026-12-01: I ask twice.\n\n### Archived (Compacted)\n<!-- months -->\n";

    // See: issue 16
    /// A hostile Self-Image body and month summary: IDENTITY.md keeps its sections and one
    /// Recent and one Archived log, the Recent log loses exactly the summarised month, and the
    /// summary is one line.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, headings};
        use proptest::prelude::*;
        let top = |t: &str| -> Vec<String> {
            headings(t).into_iter().filter(|(l, _)| *l <= 2).map(|(_, t)| t).collect()
        };
        hostile::runner(64)
            .run(&(hostile::value(), hostile::value()), |(body, summary)| {
                let text = format!(
                    "## Self-Image\nI am {body}\n\n## Compacted Log\n2026-11 (2 entries): {summary}\n"
                );
                let Ok(sub) = parse_consolidation(&text) else { return Ok(()) };
                let new = consolidated(IDENTITY, &sub, "2026-12-02", None);
                prop_assert_eq!(top(&new), top(IDENTITY));
                for log in ["### Recent", "### Archived"] {
                    let n = new.lines().filter(|l| l.trim_start().starts_with(log)).count();
                    prop_assert_eq!(n, 1, "{}", new);
                }
                prop_assert_eq!(recent_entries(&new), ["2026-12-01: I ask twice."]);
                let moved: Vec<&str> =
                    new.lines().filter(|l| l.starts_with("2026-11 (2 entries): ")).collect();
                prop_assert_eq!(moved.len(), 1, "{}", new);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn consolidation_rewrites_the_section_and_moves_months() {
        let sub = parse_consolidation(
            "## Self-Image\n### Who I Think I Am\nA careful helper.\n\n## Compacted Log\n2026-11 (9 entries): hurried but organised\n",
        )
        .unwrap();
        let new = consolidated(IDENTITY, &sub, "2026-12-02", None);
        assert_eq!(
            new,
            "# IDENTITY.md\n\n## Facts\n- **Name:** Ada\n\n## Self-Image\n<!-- Discovered over time and rewritten (not appended to) when self-awareness notes are consolidated.\n     Last consolidated: 2026-12-02 -->\n\n### Who I Think I Am\nA careful helper.\n\n## Self-Awareness Log\n\n### Recent (Full Detail)\n<!-- one per line -->\n2026-12-01: I ask twice.\n\n### Archived (Compacted)\n<!-- months -->\n2026-11 (2 entries): hurried but organised\n"
        );
        assert_eq!(recent_entries(&new), ["2026-12-01: I ask twice."]);
        assert!(self_image(&new).starts_with("## Self-Image\n<!-- Discovered"));
    }

    #[test]
    fn archived_entries_are_the_month_lines_of_the_archived_log() {
        assert!(archived_entries(IDENTITY).is_empty());
        let text = format!(
            "{IDENTITY}2026-09 (4 entries): slow starts\n- 2026-10 (2 entries): lists\nnot a month\n2026-1 (1 entries): short\n\n## Other\n2026-08 (1 entries): not the log\n"
        );
        assert_eq!(
            archived_entries(&text),
            ["2026-09 (4 entries): slow starts", "- 2026-10 (2 entries): lists"]
        );
        assert!(archived_entries("# IDENTITY.md\n2026-09 (4 entries): x\n").is_empty());
    }

    #[test]
    fn bad_submissions_are_refused() {
        for (text, want) in [
            ("just words", "no `## Self-Image`"),
            ("## Self-Image\n\n## Compacted Log\n", "is empty"),
            ("## Self-Image\nx\n## Compacted Log\nNovember: stuff\n", "is not `YYYY-MM"),
        ] {
            let err = parse_consolidation(text).unwrap_err();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }
}
