//! `scenario-engine audit-judges RESULTS --config CONFIG --repeat K --sample N`: re-judges a
//! seeded sample of a pipeline run's records K times with the response cache off and reports
//! each judge's spread and the flip rate of the accept decision (see
//! `agents::audit`).
//!
//! Settings are layered exactly as `run` layers them (defaults → the config's `run:` section →
//! `SCENARIO_ENGINE__*` → flags), so the judges are the run's judges unless a flag says otherwise.
//! Exit codes: 0 the audit completed, 2 invalid input (results, config, settings, flags, or no
//! record could be replayed), 3 a judge call failed at the provider or its replies stayed invalid.

use std::path::{Path, PathBuf};

use comfy_table::Table;

use agents::ScenarioSpread;
use agents::audit::{self, AuditItem, AuditOptions, AuditReport};
use reports::load::{self, Results};

use super::{EndpointArgs, JudgingArgs};
use crate::error::{CliError, CommandResult, Outcome};
use crate::provider;
use crate::settings::{FlagOverrides, RunSettings};

/// Flags of `audit-judges`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The pipeline output (JSONL) whose records are re-judged.
    pub results: PathBuf,
    /// The config the run used (its `run:` section gives the judges' settings).
    #[arg(long)]
    pub config: PathBuf,
    /// Times each sampled batch is judged (at least 2: one repeat cannot show any spread).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..))]
    pub repeat: u32,
    /// Records to sample (all of them when the file has fewer).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Send `seed + repeat` as the sampling seed of each repeat's calls (for providers that are
    /// deterministic per request).
    #[arg(long)]
    pub vary_seed: bool,
    /// Also write the full audit as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    #[command(flatten)]
    pub judging: JudgingArgs,
}

/// Runs the command.
///
/// # Errors
/// Invalid input (exit 2) or a judge call that failed at the provider (exit 3).
pub(crate) fn execute(args: Args) -> CommandResult {
    super::block_on(run(args))
}

fn flags(args: &Args) -> FlagOverrides {
    let mut f = args.judging.overrides_with(&args.endpoint);
    // Every audit call bypasses the cache anyway (`no_cache`); turning it off here also keeps
    // the audit from creating a cache directory.
    f.set("cache.enabled", Some(false));
    f
}

/// The sampled records as audit items, and how many records the file holds.
fn items(path: &Path, sample: usize, seed: u64) -> Result<(Vec<AuditItem>, usize), CliError> {
    let run = match load::load(path).map_err(CliError::invalid)? {
        Results::Pipeline(run) => run,
        Results::Suite(_) => {
            return Err(CliError::invalid(format!(
                "{}: a bot-suite result; audit-judges re-judges pipeline runs (JSONL)",
                path.display()
            )));
        }
        Results::Failures(_) => {
            return Err(CliError::invalid(format!(
                "{}: an errors file (failed scenarios have no texts to judge); audit-judges \
                 re-judges a run's output file",
                path.display()
            )));
        }
    };
    // Streamed: only the sample is held, whatever the file's size.
    let mut sampler = audit::Sampler::new(sample, seed);
    run.for_each(|r| sampler.offer(&r.record))
        .map_err(CliError::invalid)?;
    let total = sampler.seen();
    let picked = sampler.finish();
    Ok((picked, total))
}

async fn run(args: Args) -> CommandResult {
    let sample = usize::try_from(args.sample).unwrap_or(usize::MAX);
    let (items, total) = items(&args.results, sample, args.seed)?;
    let config = agents::settings::load_config(&args.config)?;
    let settings = RunSettings::layered(config.run.as_ref(), None, &flags(&args))?;
    let pipeline = settings.build_pipeline()?;
    let model = provider::bootstrap(&settings, &args.results)?;
    errln!("{}", audit::header(&items, total, args.repeat, &pipeline));
    let options = AuditOptions {
        repeats: args.repeat,
        vary_seed: args.vary_seed,
        in_flight: model.in_flight,
    };
    let audits = audit::rejudge(model.model, &pipeline, &items, options)
        .await
        .map_err(CliError::invalid)?;
    let report = audit::summarise(&audits, settings.threshold, args.repeat);
    print_report(&report);
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(CliError::run)?;
        std::fs::write(path, text + "\n").map_err(|e| CliError::write(path, e))?;
    }
    outcome(&report)
}

fn outcome(report: &AuditReport) -> CommandResult {
    if let Some(failed) = report.judge_failures() {
        return Err(CliError::run(failed));
    }
    if !report.scenarios.iter().any(|s| s.score.is_some()) {
        return Err(CliError::invalid("no sampled record could be re-judged"));
    }
    Ok(Outcome::Success)
}

fn num(v: f64) -> String {
    format!("{v:.2}")
}

fn rate(r: audit::FlipRate) -> String {
    r.rate().map_or("-".into(), |x| {
        format!("{:.1}% ({}/{})", x * 100.0, r.flipped, r.scenarios)
    })
}

/// A table per judge (one row per scenario), the summary, the weighted scores and the flip rates.
fn print_report(report: &AuditReport) {
    for judge in &report.judges {
        let mut table = Table::new();
        table.set_header(vec![
            "scenario", "n", "mean", "std dev", "min", "max", "range",
        ]);
        for s in &report.scenarios {
            if let Some(sp) = s.judges.get(&judge.judge) {
                table.add_row(vec![
                    s.id.clone(),
                    sp.n.to_string(),
                    num(sp.mean),
                    num(sp.std_dev),
                    num(sp.min),
                    num(sp.max),
                    num(sp.range()),
                ]);
            }
        }
        outln!("judge {}:\n{table}", judge.judge);
    }
    let mut summary = Table::new();
    summary.set_header(vec![
        "judge",
        "scenarios",
        "mean",
        "mean std dev",
        "mean range",
        "max range",
    ]);
    for j in report.judges.iter().chain(std::iter::once(&report.score)) {
        summary.add_row(vec![
            j.judge.clone(),
            j.scenarios.to_string(),
            num(j.mean),
            num(j.mean_std_dev),
            num(j.mean_range),
            num(j.max_range),
        ]);
    }
    outln!("judge spread over {} repeat(s):\n{summary}", report.repeats);
    let mut scores = Table::new();
    scores.set_header(vec![
        "scenario",
        "original",
        "score per repeat",
        "accepted",
        "flipped",
        "near threshold",
    ]);
    for s in &report.scenarios {
        scores.add_row(score_row(s));
    }
    outln!(
        "weighted score per repeat (threshold {}):\n{scores}",
        report.threshold
    );
    outln!(
        "flip rate: {} overall, {} near the threshold (original score within ±{})",
        rate(report.flip_overall),
        rate(report.flip_near_threshold),
        report.near_margin
    );
    for (id, failures) in &report.failures {
        for f in failures {
            errln!("warning: {id} repeat {}: {}", f.repeat, f.reason);
        }
    }
}

fn score_row(s: &ScenarioSpread) -> Vec<String> {
    let per_repeat: Vec<String> = s.repeat_scores.iter().map(|v| num(*v)).collect();
    vec![
        s.id.clone(),
        num(s.original_score),
        per_repeat.join(" "),
        format!("{}/{}", s.accepts, s.repeat_scores.len()),
        if s.flipped { "yes" } else { "no" }.into(),
        if s.near_threshold { "yes" } else { "no" }.into(),
    ]
}
