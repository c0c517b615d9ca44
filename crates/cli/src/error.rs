//! What a command returns: an [`Outcome`] when it ran to the end, a [`CliError`] when it could not,
//! and the one mapping from both to the process exit code (0 ok, 1 a failed test or regression,
//! 2 invalid input, 3 provider or run failure). Commands never print their own error: `main`
//! prints it once.

use std::path::PathBuf;

use crate::provider::ProviderError;
use crate::settings::SettingsError;

/// The exit code of a run with nothing wrong.
pub(crate) const OK: u8 = 0;
/// The exit code of a failed test or a regression.
pub(crate) const FAILED: u8 = 1;
/// The exit code of invalid input: config, settings, flags, unreadable files.
pub(crate) const INVALID_INPUT: u8 = 2;
/// The exit code of a provider or run failure, or an output that could not be written.
pub(crate) const RUN_FAILURE: u8 = 3;

/// How a command that ran to the end came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Everything passed.
    Success,
    /// A test failed or a regression was found; the command has shown which.
    Failed,
}

/// Why a command could not do its work. The variant decides the exit code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// A located error in a config or suite file (printed as is: it carries its own `error:`).
    #[error("{0}")]
    Config(#[from] scenarios::ConfigError),
    /// The layered run settings are invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// No provider could be chosen, or the model could not be built.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// A flag or an input file is invalid.
    #[error("{0}")]
    Invalid(String),
    /// The provider or the run failed.
    #[error("{0}")]
    Run(String),
    /// An output file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl CliError {
    /// An invalid-input error from any message.
    pub(crate) fn invalid(message: impl std::fmt::Display) -> Self {
        Self::Invalid(message.to_string())
    }

    /// A run failure from any message.
    pub(crate) fn run(message: impl std::fmt::Display) -> Self {
        Self::Run(message.to_string())
    }

    /// A write failure of `path`.
    pub(crate) fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Write {
            path: path.into(),
            source,
        }
    }

    /// The process exit code.
    #[must_use]
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) | Self::Settings(_) | Self::Provider(_) | Self::Invalid(_) => {
                INVALID_INPUT
            }
            Self::Run(_) | Self::Write { .. } => RUN_FAILURE,
        }
    }

    /// The text `main` prints on stderr.
    #[must_use]
    pub(crate) fn message(&self) -> String {
        match self {
            // Located errors start with `FILE:LINE:COL: error:` already.
            Self::Config(e) => e.to_string(),
            other => format!("error: {other}"),
        }
    }
}

/// What every command returns.
pub(crate) type CommandResult = Result<Outcome, CliError>;

/// The exit code of a command's result.
#[must_use]
pub(crate) fn exit_code(result: &CommandResult) -> u8 {
    match result {
        Ok(Outcome::Success) => OK,
        Ok(Outcome::Failed) => FAILED,
        Err(e) => e.exit_code(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_error_has_its_exit_code() {
        assert_eq!(exit_code(&Ok(Outcome::Success)), 0);
        assert_eq!(exit_code(&Ok(Outcome::Failed)), 1);
        assert_eq!(exit_code(&Err(CliError::invalid("bad flag"))), 2);
        assert_eq!(
            exit_code(&Err(ProviderError::NeedsBaseUrl("azure").into())),
            2
        );
        assert_eq!(exit_code(&Err(CliError::run("provider down"))), 3);
        let write = CliError::write("out/x.json", std::io::Error::other("disk full"));
        assert_eq!(write.exit_code(), 3);
        assert_eq!(write.message(), "error: cannot write out/x.json: disk full");
    }

    #[test]
    fn located_errors_are_not_prefixed_again() {
        let located = scenarios::ConfigError::new(std::path::Path::new("c.yaml"), 3, 1, "oops");
        assert_eq!(CliError::from(located).message(), "c.yaml:3:1: error: oops");
    }
}
