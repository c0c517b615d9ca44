//! `scenario-engine`: the command line. Parses flags, composes the library crates, prints.
//!
//! Every command returns an [`error::CommandResult`]; `main` prints an error once and maps the
//! result to the exit code (0 ok, 1 a failed test or regression, 2 invalid input, 3 provider or
//! run failure). The flags are defined once, here and in `commands/` (shared groups are flattened),
//! and the man page and shell completions are generated from the same definitions
//! (`scenario-engine generate …`, used by `cargo xtask dist`).

// First, so that its `out!`/`outln!` macros are in scope in every module below.
#[macro_use]
mod output;
mod commands;
mod error;
mod progress;
mod provider;
mod settings;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Runs LLM agent pipelines over generated scenarios and scores them with weighted checks.
#[derive(Debug, Parser)]
#[command(name = "scenario-engine", version, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 ok, 1 a failed test or regression, 2 invalid input, \
                        3 provider or run failure."
)]
struct Cli {
    /// Log filter (tracing env-filter syntax); also read from RUST_LOG.
    #[arg(
        long,
        global = true,
        env = "SCENARIO_ENGINE_LOG",
        default_value = "warn",
        value_parser = log_filter
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
    /// Browse runs, suites and comparisons in a local, read-only web viewer.
    View(viewer::ViewArgs),
    /// Merge the outputs of a sharded run, or a run directory's tasks, into one file (checked).
    Merge(commands::merge::Args),
    /// Show a run directory's tasks: done, running, stale, missing, and what to resubmit.
    Status(commands::tasks::StatusArgs),
    /// Write the sbatch script or Kubernetes Job that runs a run directory's tasks (never submits).
    Launch(commands::tasks::LaunchArgs),
    /// Export a run as a dataset folder: Parquet or JSONL splits and a dataset card.
    Export(commands::export::Args),
    /// Re-judge a sample of a run K times (cache off): each judge's spread and the flip rate.
    AuditJudges(commands::audit_judges::Args),
    /// Print the JSON Schema of config or suite files (for editors and validators).
    Schema(commands::schema::Args),
    /// Write the man page or a shell completion script to stdout (used by `cargo xtask dist`).
    #[command(hide = true)]
    Generate {
        /// What to generate.
        #[arg(value_enum)]
        what: commands::generate::Generated,
    },
}

/// `--log`: a filter tracing can read (it would otherwise drop a bad one silently).
fn log_filter(filter: &str) -> Result<String, String> {
    tracing_subscriber::EnvFilter::try_new(filter)
        .map(|_| filter.to_owned())
        .map_err(|e| format!("not a log filter ({e}); e.g. warn, info or agents=debug"))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    // `-html` is not `-h -t -m -l` (help, exit 0): an unknown flag, exit 2.
    if let Some(e) = stdx::clap_flags::single_dash(&Cli::command(), &argv) {
        e.exit();
    }
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        // An unknown flag's tip names the right flag of that command; exit 2 with the usage.
        Err(e) => stdx::clap_flags::improve(e, &Cli::command(), &argv).exit(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cli.log));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour only for a terminal: a log redirected to a file gets no escape codes.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let result = match cli.command {
        Command::Plan(args) => commands::plan::execute(args),
        Command::Scenarios(args) => commands::scenarios::execute(args),
        // A run directory (`plan --tasks T --into DIR`) runs one of its tasks.
        Command::Run(args) if taskrun::RunDir::is_run_dir(&args.config) => {
            commands::tasks::execute_task(args)
        }
        Command::Run(args) => commands::run::execute(args),
        Command::Test(args) => commands::test::execute(args),
        Command::Report(args) => commands::report::execute(args),
        Command::Diff(args) => commands::diff::execute(args),
        Command::View(args) => commands::view::execute(args),
        Command::Merge(args) => commands::merge::execute(args),
        Command::Status(args) => commands::tasks::status(args),
        Command::Launch(args) => {
            // Every task's `run` flags get `run DIR --task auto`'s own checks before a script
            // is written: parsed by clap, then as a task checks them.
            let words = args.task_run_words();
            match stdx::clap_flags::check_command_line(&Cli::command(), &words)
                .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
            {
                Err(e) => e.exit(),
                Ok(Cli {
                    command: Command::Run(task),
                    ..
                }) => commands::tasks::launch(args, &task),
                Ok(_) => Err(error::CliError::invalid("the flags after `--` are `run`'s")),
            }
        }
        Command::Export(args) => commands::export::execute(args),
        Command::AuditJudges(args) => commands::audit_judges::execute(args),
        Command::Schema(args) => commands::schema::execute(args),
        Command::Generate { what } => {
            commands::generate::execute(Cli::command(), what, &mut output::Stdout)
        }
    };
    // Output that could not be written (other than to a closed pipe) is a run failure.
    let result = match (result, output::failure()) {
        (Ok(_), Some(e)) => Err(error::CliError::write("stdout", std::io::Error::other(e))),
        (result, _) => result,
    };
    if let Err(e) = &result {
        errln!("{}", e.message());
    }
    ExitCode::from(error::exit_code(&result))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;
    use crate::commands::generate::Generated;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    fn generated(what: Generated) -> String {
        let mut out = Vec::new();
        crate::commands::generate::execute(Cli::command(), what, &mut out).expect("generates");
        String::from_utf8(out).expect("utf-8")
    }

    /// The man page and completions come from the same definitions as `--help`: every command,
    /// shared flag and enum value is in them.
    #[test]
    fn man_page_and_completions_cover_the_whole_surface() {
        let man = generated(Generated::Man);
        assert!(man.contains(".TH scenario-engine"), "{man}");
        let bash = generated(Generated::CompleteBash);
        for word in [
            "audit-judges",
            "--pass-score",
            "--ratio-judge",
            "measured llm hybrid",
            "--provider",
            "openai azure anthropic local",
            "--shard",
        ] {
            assert!(bash.contains(word), "bash completion lacks {word}");
        }
    }
}
