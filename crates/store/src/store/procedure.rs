//! Procedures, `memory/procedures/<slug>.md`: a title, comment lines, then `## Trigger`,
//! `## Steps` (numbered), `## Notes` and `## Learned From`.

pub use super::Added;
use super::markdown::{self, find_section, one_line};
use crate::template::{self, TemplateError};

/// Splits text into steps: one per non-empty line, list markers (`-`, `*`, `1.`, `1)`) removed.
pub fn steps_from_text(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let t = l.trim();
            let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t);
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            let t = if digits > 0 {
                t[digits..]
                    .strip_prefix(". ")
                    .or_else(|| t[digits..].strip_prefix(") "))
                    .unwrap_or(t)
            } else {
                t
            };
            one_line(t)
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Returns a new procedure file.
pub fn new_file(
    title: &str,
    steps: &[String],
    date: &str,
    time: &str,
    actor: &str,
) -> Result<String, TemplateError> {
    let numbered: Vec<String> =
        steps.iter().enumerate().map(|(i, s)| format!("{}. {s}", i + 1)).collect();
    template::render(
        "procedure.md",
        &[
            ("title", &one_line(title)),
            ("date", date),
            ("time", time),
            ("steps", &numbered.join("\n")),
            ("actor", actor),
        ],
    )
}

/// Appends the steps that are not already listed to `## Steps`, numbered after the last one.
pub fn add_steps(text: &str, steps: &[String]) -> Added {
    let (prefix, _) = markdown::split_front_matter(text);
    let mut body = text[prefix..].to_owned();
    let mut first_line = None;
    for step in steps {
        let mut sections = markdown::sections(&body);
        if find_section(&sections, "Steps").is_none() {
            body = markdown::append_section(&body, "Steps");
            sections = markdown::sections(&body);
        }
        let s = find_section(&sections, "Steps").expect("the section exists now");
        let existing: Vec<(usize, String)> = body[s.content.clone()]
            .lines()
            .filter_map(|l| {
                let t = l.trim_start();
                let digits = t.chars().take_while(char::is_ascii_digit).count();
                let n = t[..digits].parse().ok()?;
                Some((n, one_line(t[digits..].strip_prefix('.')?)))
            })
            .collect();
        if existing.iter().any(|(_, s)| s == step) {
            continue;
        }
        let n = existing.iter().map(|(n, _)| *n).max().unwrap_or(0) + 1;
        let (new_body, pos) = markdown::insert_at_section_end(&body, s, &format!("{n}. {step}"));
        first_line
            .get_or_insert(markdown::line_of(&new_body, pos) + markdown::line_of(text, prefix) - 1);
        body = new_body;
    }
    match first_line {
        None => Added::Duplicate { line: 1 },
        Some(line) => Added::Written { content: format!("{}{body}", &text[..prefix]), line },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_split_and_numbered() {
        let steps = steps_from_text("1. run tests\n- tag the release\n\n  push  it ");
        assert_eq!(steps, ["run tests", "tag the release", "push it"]);
        let file = new_file("Release", &steps, "2026-02-02", "10:00", "manual").unwrap();
        assert!(
            file.contains("## Steps\n1. run tests\n2. tag the release\n3. push it\n"),
            "{file}"
        );
        let Added::Written { content, line } =
            add_steps(&file, &["push it".into(), "announce".into()])
        else {
            panic!()
        };
        assert_eq!(content.lines().nth(line - 1), Some("4. announce"));
        assert_eq!(add_steps(&content, &["announce".into()]), Added::Duplicate { line: 1 });
    }
}
