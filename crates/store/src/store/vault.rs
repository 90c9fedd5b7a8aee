//! Vault notes, `memory/vault/<slug>.md`: pinned memories that never decay and are never
//! archived by decay. One note per file: a title, a comment line, then the text.

use super::markdown::{self, normalize};
use crate::template::{self, TemplateError};

/// Returns a new vault note.
///
/// The title is one heading ([`markdown::heading`]), each tag one [`markdown::tag`] and the
/// text a [`markdown::paragraph`], so no value can add a line, a heading or a comment.
pub fn new_note(
    title: &str,
    text: &str,
    tags: &[String],
    date: &str,
) -> Result<String, TemplateError> {
    let tags: Vec<String> =
        tags.iter().map(|t| markdown::tag(t)).filter(|t| !t.is_empty()).collect();
    template::render(
        "vault.md",
        &[
            ("title", &markdown::heading(title)),
            ("date", date),
            ("tags", &if tags.is_empty() { "none".to_owned() } else { tags.join(", ") }),
            ("text", markdown::paragraph(text).trim_end()),
        ],
    )
    .map(|mut s| {
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    })
}

/// Returns a note's text (everything after the title and comment lines), normalised for
/// duplicate checks.
pub fn body_text(note: &str) -> String {
    let (prefix, _) = markdown::split_front_matter(note);
    let body: Vec<&str> = note[prefix..]
        .lines()
        .skip_while(|l| {
            l.trim().is_empty() || l.starts_with("# ") || l.trim_start().starts_with("<!--")
        })
        .collect();
    normalize(&body.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // See: issue 16
    /// Hostile titles, tags and text: one heading, one comment line, the tags and the date read
    /// back from it (tags in their escaped form), and the text from the body.
    #[test]
    fn issue_16_fields_are_data_never_syntax() {
        use crate::store::hostile::{self, comment_lines, headings, no_stray_delimiters};
        use proptest::prelude::*;
        let strategy =
            (hostile::value(), hostile::value(), prop::collection::vec(hostile::value(), 0..4));
        hostile::runner(96)
            .run(&strategy, |(title, text, tags)| {
                let note = new_note(&title, &text, &tags, "2026-02-02").unwrap();
                let mut lines = note.lines();
                let first = lines.next().unwrap_or("");
                let want_title = format!("# {}", markdown::heading(&title));
                prop_assert_eq!(first.trim_end(), want_title.trim_end());
                let h = headings(&note);
                prop_assert_eq!(h.len(), 1, "{:?}", h);
                prop_assert_eq!(h[0].0, 1);
                prop_assert_eq!(comment_lines(&note)?.len(), 1);
                no_stray_delimiters(&note.lines().take(2).collect::<Vec<_>>().join("\n"))?;
                let unit = &crate::store::units::file_units("memory/vault/n.md", &note)[0];
                let want: Vec<String> = tags
                    .iter()
                    .map(|t| markdown::tag(t))
                    .filter(|t| !t.is_empty() && t != "none")
                    .collect();
                prop_assert_eq!(&unit.tags, &want);
                prop_assert_eq!(unit.date.as_deref(), Some("2026-02-02"));
                prop_assert_eq!(body_text(&note), normalize(&text));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn note_round_trips_its_text() {
        let note = new_note(
            "Wifi password",
            "The guest wifi\n# is not a heading",
            &["home".into()],
            "2026-02-02",
        )
        .unwrap();
        assert!(note.starts_with("# Wifi password\n<!-- Pinned: yes | Created: 2026-02-02 | Tags: home -->\n\nThe guest wifi\n\\# is"), "{note}");
        assert_eq!(body_text(&note), normalize("The guest wifi\n# is not a heading"));
    }
}
