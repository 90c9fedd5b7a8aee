//! The one place that turns an outcome or an error into stderr text and an exit code.

use std::error::Error as _;
use std::io::Write;
use std::process::ExitCode;

use cogmem::{Error, ErrorKind};

use super::render::Style;

/// Exit codes (docs/cli.md has the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success, empty results included.
    Ok = 0,
    /// User error.
    User = 1,
    /// Usage error (clap).
    Usage = 2,
    /// Finished, but skipped malformed files.
    Partial = 3,
    /// Refused by a rule.
    Refused = 4,
    /// Internal error.
    Internal = 70,
}

impl Exit {
    pub fn code(self) -> ExitCode {
        ExitCode::from(self as u8)
    }

    fn of(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::User => Self::User,
            ErrorKind::Conflict => Self::Refused,
            ErrorKind::Internal => Self::Internal,
        }
    }
}

/// Prints an error with its causes and hint, and returns its exit code.
pub fn report(err: &Error, style: Style, stderr: &mut impl Write) -> ExitCode {
    if err.is_broken_pipe() {
        return Exit::Ok.code(); // the reader went away; that is not our failure
    }
    let _ = writeln!(stderr, "{} {err}", style.error("error:"));
    for cause in std::iter::successors(err.source(), |e| (*e).source()) {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
    if let Some(hint) = err.hint() {
        let _ = writeln!(stderr, "\n{} {hint}", style.hint("hint:"));
    }
    Exit::of(err.kind()).code()
}
