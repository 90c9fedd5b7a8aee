//! `cogmem completions` and `cogmem man`: shell integration generated from the clap
//! definitions, so they never drift from the real command line.

use clap::{Args, CommandFactory, ValueEnum};

use super::Cli;
use super::exit::Exit;
use super::render;
use cogmem::store::fsx::IoError;

/// Print a shell completion script
///
/// The script completes commands, flags and their fixed values. Load it from your shell's
/// start-up file, or save it where your shell looks for completions.
#[derive(Args, Debug)]
#[command(after_long_help = COMPLETION_EXAMPLES)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: Shell,
}

const COMPLETION_EXAMPLES: &str = "\
Examples:
  # bash: load completions in every new shell
  echo 'eval \"$(cogmem completions bash)\"' >> ~/.bashrc

  # zsh: save the script on your $fpath
  cogmem completions zsh > ~/.zfunc/_cogmem

  # fish
  cogmem completions fish > ~/.config/fish/completions/cogmem.fish
";

/// A shell cogmem can complete for.
#[derive(ValueEnum, Debug, Clone, Copy)]
enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

/// Print the manual page (roff), generated from the same definitions as `--help`
///
/// The page documents every command; `cogmem CMD --help` shows the same text for one command.
#[derive(Args, Debug)]
#[command(after_long_help = MAN_EXAMPLES)]
pub struct ManArgs {}

const MAN_EXAMPLES: &str = "\
Examples:
  # Read the manual now
  cogmem man | man -l -

  # Install it for `man cogmem`
  cogmem man > ~/.local/share/man/man1/cogmem.1
";

pub fn run_completions(args: &CompletionsArgs) -> cogmem::Result<Exit> {
    use clap_complete::Shell as S;
    let shell = match args.shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Elvish => S::Elvish,
        Shell::Powershell => S::PowerShell,
    };
    // The generators list hidden commands too (`merge-index`, `update-index`: internal, run by
    // cogmem itself); a user's shell should not offer them.
    let full = Cli::command();
    let visible = full.get_subcommands().filter(|c| !c.is_hide_set()).cloned();
    let mut cmd = clap::Command::new("cogmem")
        .version(env!("CARGO_PKG_VERSION"))
        .args(full.get_arguments().cloned())
        .subcommands(visible);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "cogmem", &mut out);
    write_stdout(&out)
}

pub fn run_man(_args: &ManArgs) -> cogmem::Result<Exit> {
    let cmd = Cli::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out).map_err(io_error)?;
    // One section per subcommand, so the page documents the whole tool, not just its name.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("cogmem {}", sub.get_name());
        let sub = sub.clone().display_name(name.clone()).bin_name(name.clone());
        let mut page = Vec::new();
        clap_mangen::Man::new(sub).render(&mut page).map_err(io_error)?;
        out.extend_from_slice(&subcommand_section(&name, &page));
    }
    write_stdout(&out)
}

/// Turns a whole subcommand page into sections of the main page: drops its title line and
/// demotes its section headings below the command's own heading.
fn subcommand_section(name: &str, page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let mut out = String::new();
    let mut name_done = false;
    let mut skipping = false;
    for line in text.lines() {
        if line.starts_with(".TH ") || line.starts_with(".ie ") || line.starts_with(".el ") {
            continue;
        }
        if let Some(title) = line.strip_prefix(".SH ") {
            // The version is the tool's, already on the page.
            skipping = title == "VERSION";
            if skipping {
                continue;
            }
            if !name_done && title == "NAME" {
                name_done = true;
                out.push_str(&format!(".SH \"{}\"\n", name.to_uppercase()));
                continue;
            }
            out.push_str(".SS ");
            out.push_str(title);
            out.push('\n');
            continue;
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.into_bytes()
}

fn io_error(e: std::io::Error) -> cogmem::Error {
    IoError::new("<stdout>", "render the manual page to", e).into()
}

fn write_stdout(bytes: &[u8]) -> cogmem::Result<Exit> {
    render::data(&String::from_utf8_lossy(bytes))?;
    Ok(Exit::Ok)
}
