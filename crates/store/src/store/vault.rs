//! Vault notes, `memory/vault/<slug>.md`: pinned memories that never decay and are never
//! archived by decay. One note per file: a title, a comment line, then the text.

use super::markdown::{self, normalize, one_line};
use crate::template::{self, TemplateError};

/// Returns a new vault note.
pub fn new_note(
    title: &str,
    text: &str,
    tags: &[String],
    date: &str,
) -> Result<String, TemplateError> {
    template::render(
        "vault.md",
        &[
            ("title", &one_line(title)),
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
