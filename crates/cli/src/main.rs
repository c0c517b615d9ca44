//! `scenario-engine`: the command line. Parses flags, composes the library crates, prints.

mod commands;
mod progress;
mod provider;
mod report;
mod settings;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Runs LLM agent pipelines over generated scenarios and scores them with weighted checks.
#[derive(Debug, Parser)]
#[command(name = "scenario-engine", version, about, long_about = None)]
struct Cli {
    /// Log filter (tracing env-filter syntax); also read from RUST_LOG.
    #[arg(
        long,
        global = true,
        env = "SCENARIO_ENGINE_LOG",
        default_value = "warn"
    )]
    log: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show a config's axes, scenario count, exclusions and first scenarios (and the cost estimate).
    Plan(commands::plan::Args),
    /// Stream a config's scenarios as JSONL.
    Scenarios(commands::scenarios::Args),
    /// Run the code-switching pipeline over a config's scenarios, writing one JSONL record each.
    Run(commands::run::Args),
    /// Run a bot test suite and report weighted checks per scenario.
    Test(commands::test::Args),
    /// Summarise a run or suite result as tables, and as HTML/Markdown files.
    Report(commands::report::Args),
    /// Compare two runs or suite results scenario by scenario; fail CI on regressions.
    Diff(commands::diff::Args),
    /// Merge the outputs of a sharded run into one file (checked disjoint, and complete for a config).
    Merge(commands::merge::Args),
    /// Re-judge a sample of a run K times (cache off): each judge's spread and the flip rate.
    AuditJudges(commands::audit_judges::Args),
}

/// Exit codes: 0 ok, 1 a failed test or regression, 2 invalid input, 3 provider or run failure.
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const INVALID_INPUT: u8 = 2;
    pub const RUN_FAILURE: u8 = 3;
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cli.log));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let code = match cli.command {
        Command::Plan(args) => commands::plan::execute(args),
        Command::Scenarios(args) => commands::scenarios::execute(args),
        Command::Run(args) => commands::run::execute(args),
        Command::Test(args) => commands::test::execute(args),
        Command::Report(args) => commands::report::execute(args),
        Command::Diff(args) => commands::diff::execute(args),
        Command::Merge(args) => commands::merge::execute(args),
        Command::AuditJudges(args) => commands::audit_judges::execute(args),
    };
    ExitCode::from(code)
}
