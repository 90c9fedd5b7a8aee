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
///
/// The title is one heading ([`markdown::heading`]), each step one list item
/// ([`markdown::list_item`], empty ones left out) and the actor one field.
pub fn new_file(
    title: &str,
    steps: &[String],
    date: &str,
    time: &str,
    actor: &str,
) -> Result<String, TemplateError> {
    let numbered: Vec<String> = steps
        .iter()
        .map(|s| markdown::list_item(s))
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| format!("{}. {s}", i + 1))
        .collect();
    template::render(
        "procedure.md",
        &[
            ("title", &markdown::heading(title)),
            ("date", date),
            ("time", time),
            ("steps", &numbered.join("\n")),
            ("actor", &markdown::field(actor)),
        ],
    )
}

/// The numbered items of a `## Steps` section (`N. text`), with their numbers.
fn numbered_steps(section: &str) -> Vec<(usize, String)> {
    section
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            let n = t[..digits].parse().ok()?;
            Some((n, one_line(t[digits..].strip_prefix('.')?)))
        })
        .collect()
}

/// Reads the steps of a procedure's `## Steps` section, as written (without their numbers).
pub fn steps(text: &str) -> Vec<String> {
    let (prefix, _) = markdown::split_front_matter(text);
    let body = &text[prefix..];
    let sections = markdown::sections(body);
    find_section(&sections, "Steps")
        .map(|s| numbered_steps(&body[s.content.clone()]).into_iter().map(|(_, s)| s).collect())
        .unwrap_or_default()
}

/// Appends the steps that are not already listed to `## Steps`, numbered after the last one.
/// Each step is written as one list item ([`markdown::list_item`]).
pub fn add_steps(text: &str, steps: &[String]) -> Added {
    let (prefix, _) = markdown::split_front_matter(text);
    let mut body = text[prefix..].to_owned();
    let mut first_line = None;
    for step in steps {
        let step = &markdown::list_item(step);
        if step.is_empty() {
            continue;
        }
        let mut sections = markdown::sections(&body);
        if find_section(&sections, "Steps").is_none() {
            body = markdown::append_section(&body, "Steps");
            sections = markdown::sections(&body);
        }
        let s = find_section(&sections, "Steps").expect("the section exists now");
        let existing = numbered_steps(&body[s.content.clone()]);
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

    // See: issue 16
    /// Hostile titles, steps and actors: the file keeps its title and its four sections, and
    /// the steps read back as written (each in its list-item form), in order.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings, no_stray_delimiters};
        use proptest::prelude::*;
        let strategy = (
            hostile::value(),
            prop::collection::vec(hostile::value(), 1..4),
            hostile::value(),
            prop::collection::vec(hostile::value(), 0..3),
        );
        hostile::runner(64)
            .run(&strategy, |(title, steps, actor, more)| {
                let file = new_file(&title, &steps, "2026-02-02", "10:00", &actor).unwrap();
                let sections = ["Trigger", "Steps", "Notes", "Learned From"];
                let check = |file: &str, want: &[String]| -> Result<(), TestCaseError> {
                    let h = headings(file);
                    prop_assert_eq!(h.len(), 5, "{:?}", h);
                    prop_assert_eq!(h[0].0, 1);
                    let titles: Vec<&str> = h[1..].iter().map(|(_, t)| t.as_str()).collect();
                    prop_assert_eq!(titles, sections);
                    prop_assert_eq!(comment_lines(file)?.len(), 3);
                    no_stray_delimiters(file)?;
                    prop_assert_eq!(&super::steps(file), want);
                    let unit = &crate::store::units::file_units("memory/procedures/p.md", file)[0];
                    prop_assert_eq!(unit.date.as_deref(), Some("2026-02-02"));
                    prop_assert!(unit.tags.is_empty());
                    Ok(())
                };
                let mut want: Vec<String> = steps
                    .iter()
                    .map(|s| markdown::list_item(s))
                    .filter(|s| !s.is_empty())
                    .collect();
                check(&file, &want)?;
                if let Added::Written { content, .. } = add_steps(&file, &more) {
                    for s in more.iter().map(|s| markdown::list_item(s)) {
                        if !s.is_empty() && !want.contains(&s) {
                            want.push(s);
                        }
                    }
                    check(&content, &want)?;
                }
                Ok(())
            })
            .unwrap();
    }

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
