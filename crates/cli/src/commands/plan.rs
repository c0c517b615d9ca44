//! `scenario-engine plan`: what a config expands to, before anything is spent. The plan and its
//! text are `agents::plan`'s; this command layers the run settings for the cost estimate (as
//! `run` would without flags) and prints the plan as text or JSON.

use std::path::PathBuf;
use std::sync::Arc;

use agents::plan::{cost_sections, gate_section, plan_report, render_text};

use super::scenarios::{SelectionArgs, load_selected};
use crate::error::{CliError, CommandResult, Outcome};
use crate::settings::{FlagOverrides, RunSettings};

/// Show a config's axes, counts, exclusions, fixed fields and first scenarios.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The config file (native YAML/TOML/JSON, or the SwitchLingua YAML).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Print the plan as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Add the Batch API plan: expected waves and the batch price.
    #[arg(long)]
    pub batch: bool,
    /// Price the estimate for this model (every agent), as `run --model` would run it;
    /// default: the config's `run:` section and the environment.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Split the run into this many tasks for a scheduler (with --into): task N runs shard
    /// N+1/T of the selection.
    #[arg(long, value_name = "T", requires = "into", value_parser = clap::value_parser!(u32).range(1..))]
    pub tasks: Option<u32>,
    /// The run directory to plan (with --tasks): manifest, config copy, parts and markers.
    #[arg(long, value_name = "DIR", requires = "tasks")]
    pub into: Option<PathBuf>,
}

/// Runs the command.
///
/// # Errors
/// Invalid input (config, selection, settings).
pub(crate) fn execute(args: Args) -> CommandResult {
    if let (Some(tasks), Some(into)) = (args.tasks, &args.into) {
        return super::tasks::plan_tasks(&args.config, &args.selection, tasks, into);
    }
    let config = load_selected(&args.config, &args.selection)?;
    let mut report = plan_report(&config);
    // The settings `run` would use with the same `--model`: the config's `run:` section and the
    // environment, under the flag.
    let mut flags = FlagOverrides::default();
    flags.set("model", args.model.clone());
    let settings = RunSettings::layered(config.run.as_ref(), None, &flags)?;
    report.grounding = agents::grounding::notice(&config.space, settings.tools.as_ref());
    let pipeline = Arc::new(settings.build_pipeline()?);
    for section in cost_sections(&config, &pipeline, &settings.price_table(), args.batch)
        .map_err(CliError::run)?
    {
        report.push_section(section);
    }
    if let Some(section) = gate_section(&config, pipeline.settings().gate).map_err(CliError::run)? {
        report.push_section(section);
    }
    if args.json {
        let json = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::run(format!("cannot serialise the plan: {e}")))?;
        outln!("{json}");
    } else {
        out!("{}", render_text(&report));
    }
    Ok(Outcome::Success)
}
