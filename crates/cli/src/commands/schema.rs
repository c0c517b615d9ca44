//! `scenario-engine schema config|suite [--out FILE]`: prints the JSON Schema (draft 2020-12)
//! of config or suite files, for editors (`# yaml-language-server: $schema=…`) and
//! validators. The schemas are built by the library crates (`agents::schema`,
//! `bottest::suite::suite_schema`); this only prints them.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{CliError, CommandResult, Outcome};

/// Which file format's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Which {
    /// Pipeline configs (`plan`, `run`, `scenarios`): YAML, TOML or JSON.
    Config,
    /// Bot-test suites (`test`).
    Suite,
}

/// `schema`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Which schema.
    #[arg(value_enum)]
    pub what: Which,
    /// Write it to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs the command.
///
/// # Errors
/// The output cannot be written (exit 3).
pub(crate) fn execute(args: Args) -> CommandResult {
    let schema = match args.what {
        Which::Config => agents::schema::config_schema(),
        Which::Suite => bottest::suite::suite_schema(),
    };
    let mut text = serde_json::to_string_pretty(&schema)
        .map_err(|e| CliError::run(format!("cannot render the schema: {e}")))?;
    text.push('\n');
    match &args.out {
        Some(path) => stdx::write_atomic(path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| CliError::write(path.clone(), e))?,
        None => out!("{text}"),
    }
    Ok(Outcome::Success)
}
