//! The one place that turns an outcome or an error into stderr text and an exit code.

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
    for cause in err.causes() {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
    if let Some(hint) = err.hint() {
        let _ = writeln!(stderr, "\n{} {hint}", style.hint("hint:"));
    }
    Exit::of(err.kind()).code()
}

/// Prints clap's error for a command line it could not parse, and returns `code` (2, usage;
/// 1 for a hook's command line, which a host must not read as "block": [`is_hook`]).
///
/// clap quotes the argument it could not place, and a PEM key given as an argument starts
/// with `-`, so it reads as an unknown flag and would be printed whole. Every argument that
/// looks like a credential is replaced by `[secret: RULE]` first; if the message still holds
/// one, only a short message is printed. See: issue 16
pub fn usage(
    err: &clap::Error,
    args: &[std::ffi::OsString],
    code: Exit,
    stderr: &mut impl Write,
) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print(); // --help, --version
        return Exit::Ok.code();
    }
    let flagged: Vec<(String, &'static str)> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .filter_map(|a| cogmem::secrets::scan(&a).first().map(|f| f.rule).map(|r| (a, r)))
        .collect();
    if flagged.is_empty() {
        let _ = err.print();
        return code.code();
    }
    let mut text = err.render().to_string();
    for (arg, rule) in &flagged {
        let placeholder = format!("[secret: {rule}]");
        text = text.replace(arg.as_str(), &placeholder);
        // A value clap shows on its own (`--tags=VALUE`), or one line of a long argument.
        let parts = arg.split(['=', '\n']).map(str::trim).filter(|p| p.len() >= 8);
        for part in parts {
            text = text.replace(part, &placeholder);
        }
    }
    if !cogmem::secrets::scan(&text).is_empty() {
        text = "error: the command line is not valid, and an argument looks like a secret, so \
                it is not shown\n\nFor more information, try '--help'.\n"
            .to_owned();
    }
    let _ = write!(stderr, "{text}");
    code.code()
}

/// Tells whether a command line clap could not parse runs `cogmem hook`: its first word that
/// is neither a flag nor a global flag's value is `hook`. Claude Code and Codex read a hook's
/// exit 2 as "block this prompt", so a hook's usage error exits 1, which they show and go on.
pub fn is_hook(command: &clap::Command, args: &[std::ffi::OsString]) -> bool {
    // The global flags that take a value (`--workspace PATH`), as clap declares them.
    let with_value: Vec<String> = command
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .flat_map(|a| {
            let long = a.get_long().map(|l| format!("--{l}"));
            let short = a.get_short().map(|s| format!("-{s}"));
            long.into_iter().chain(short)
        })
        .collect();
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if with_value.iter().any(|f| *f == word) {
            words.next();
        } else if word == "--" || !word.starts_with('-') {
            return word == "hook";
        }
    }
    false
}
