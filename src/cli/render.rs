//! Output: data on stdout (human text or `--json`), diagnostics on stderr, colour only on a
//! terminal and never with NO_COLOR. Writes to a closed stdout end quietly with exit 0.

use std::io::{IsTerminal, Write};

use cogmem::store::fsx::IoError;

/// Whether to colour each stream: data on stdout and diagnostics on stderr are decided apart,
/// so `cogmem search x > file` typed at a terminal writes no escape codes into the file.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    data: bool,
    diagnostics: bool,
}

impl Style {
    pub fn new(choice: super::ColorChoice, no_color: bool) -> Self {
        Self {
            data: use_color(choice, no_color, std::io::stdout().is_terminal()),
            diagnostics: use_color(choice, no_color, std::io::stderr().is_terminal()),
        }
    }

    /// Tells whether data written to stdout is coloured.
    pub fn is_data_color(self) -> bool {
        self.data
    }

    /// Tells whether diagnostics (and progress bars) on stderr are coloured.
    pub fn is_diagnostics_color(self) -> bool {
        self.diagnostics
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.diagnostics { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub fn error(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    pub fn warning(self, text: &str) -> String {
        self.paint("1;33", text)
    }

    pub fn hint(self, text: &str) -> String {
        self.paint("1;36", text)
    }
}

/// The one colour rule, for either stream: `--color always` or `never` decide; with `auto`, colour
/// only a terminal, and never when `NO_COLOR` is set.
fn use_color(choice: super::ColorChoice, no_color: bool, is_terminal: bool) -> bool {
    match choice {
        super::ColorChoice::Always => true,
        super::ColorChoice::Never => false,
        super::ColorChoice::Auto => !no_color && is_terminal,
    }
}

/// Writes data to stdout; a write error names `<stdout>` (a closed pipe exits 0).
pub fn data(text: &str) -> cogmem::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| IoError::new("<stdout>", "write to", e).into())
}

/// Writes a value as pretty JSON with a final newline to stdout.
pub fn json<T: serde::Serialize>(value: &T) -> cogmem::Result<()> {
    let mut text = serde_json::to_string_pretty(value).expect("report types always serialise");
    text.push('\n');
    data(&text)
}

/// Writes a status message to stderr unless quiet.
pub fn status(quiet: bool, text: &str) {
    if !quiet {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// Prints a warning line to stderr.
pub fn warning(style: Style, text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{} {text}", style.warning("warning:"));
}

/// Says that a change killed half-way was undone, and where what it left is kept.
pub fn recovered(style: Style, r: &cogmem::workspace::journal::Recovered) {
    // A killed import leaves hundreds of day files: past a few, a count and where they are.
    const NAMED: usize = 3;
    let mut text = "a change that was killed half-way was undone".to_owned();
    match r.restored.len() {
        0 => {}
        n if n <= NAMED => {
            text.push_str(&format!(": {} put back as before it", r.restored.join(", ")));
        }
        n => text.push_str(&format!(
            ": {n} files put back as before it ({} and {} more)",
            r.restored[..NAMED].join(", "),
            n - NAMED
        )),
    }
    if let Some(dir) = &r.saved_to {
        text.push_str(&format!(" (copies of what it left are in {dir})"));
    }
    match r.removed_temp.len() {
        0 => {}
        1 => text.push_str("; removed 1 temporary file of its unfinished writes"),
        n => text.push_str(&format!("; removed {n} temporary files of its unfinished writes")),
    }
    warning(style, &text);
    if let Some(saved) = &r.saved_ref {
        let _ = writeln!(
            std::io::stderr().lock(),
            "\n{} what it left is committed in {saved}; get a file back with \
             `git checkout {saved} -- PATH`",
            style.hint("hint:")
        );
    }
}

/// The line naming a forgotten memory that a write brought back, shared by `remember` and
/// `hear`.
pub fn revived_line(id: &str) -> String {
    format!("brought back (it had been forgotten): {id}")
}

/// Shortens a commit id for people.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}
