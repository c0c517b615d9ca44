//! `scenario-engine generate WHAT` (hidden): the man page and the shell completion scripts,
//! generated from the clap definitions so they can never disagree with `--help`.

use std::io::Write;

use clap_complete::Shell;

use crate::error::{CliError, CommandResult, Outcome};

/// What `generate` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Generated {
    /// The man page (roff).
    Man,
    /// Bash completions.
    CompleteBash,
    /// Zsh completions.
    CompleteZsh,
    /// Fish completions.
    CompleteFish,
    /// PowerShell completions.
    CompletePowershell,
    /// Elvish completions.
    CompleteElvish,
}

impl Generated {
    /// The shell of a completion script; `None` for the man page.
    #[must_use]
    pub(crate) fn shell(self) -> Option<Shell> {
        match self {
            Self::Man => None,
            Self::CompleteBash => Some(Shell::Bash),
            Self::CompleteZsh => Some(Shell::Zsh),
            Self::CompleteFish => Some(Shell::Fish),
            Self::CompletePowershell => Some(Shell::PowerShell),
            Self::CompleteElvish => Some(Shell::Elvish),
        }
    }
}

/// Writes `what` for `command` to `out`.
///
/// # Errors
/// The output cannot be written.
pub(crate) fn execute(
    command: clap::Command,
    what: Generated,
    out: &mut dyn Write,
) -> CommandResult {
    let written = match what.shell() {
        Some(shell) => {
            let mut command = command;
            let name = command.get_name().to_owned();
            clap_complete::generate(shell, &mut command, name, out);
            Ok(())
        }
        None => clap_mangen::Man::new(command).render(out),
    };
    written.map_err(|e| CliError::write("stdout", e))?;
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, ValueEnum};

    use super::*;

    #[derive(Debug, clap::Parser)]
    #[command(name = "demo")]
    struct Demo {
        /// A flag.
        #[arg(long)]
        flag: bool,
    }

    fn generate(what: Generated) -> String {
        let mut out = Vec::new();
        execute(Demo::command(), what, &mut out).expect("generates");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn every_shell_and_the_man_page_generate() {
        for what in Generated::value_variants() {
            let text = generate(*what);
            assert!(text.contains("demo"), "{what:?}: {text}");
            assert!(text.contains("flag"), "{what:?}: {text}");
        }
        assert!(generate(Generated::Man).starts_with(".ie"), "roff");
    }
}
