//! `scenario-engine run CONFIG --out FILE`: runs the code-switching pipeline over a config's
//! scenarios, one JSONL record each, resumable, with progress and an end summary.
//!
//! Exit codes: 0 the run completed (rejected scenarios included), 2 invalid input (config,
//! settings, an estimate above `--budget`), 3 scenarios failed at the provider, a fatal error or
//! the budget stopped the run, or it was interrupted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use comfy_table::Table;

use agents::pipeline::record::RecordReader;
use agents::pipeline::{
    Assumptions, ExecutorOptions, Pipeline, RatioJudgeMode, RunControl, RunReport, RunStats,
    ScenarioRecord, SinkConfig, StopReason, estimate, open_checkpoint, render_estimate, run_online,
};
use llm_client::{ChatModel, Client};
use scenarios::{Selection, Shard};
use scoring::summary::{RecordFacts, RunSummary};

use crate::exit;
use crate::progress::Progress;
use crate::provider::{self, Resolved};
use crate::settings::{FlagOverrides, RunSettings};

/// Flags of `run`; every setting flag overrides the config's `run:` section and the environment.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The scenario config (native YAML/TOML or SwitchLingua `pre_execute`).
    pub config: PathBuf,
    /// Output JSONL file (also the checkpoint: finished ids are skipped when it exists).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub endpoint: super::EndpointArgs,
    /// Run only shard k of n (`k/n`).
    #[arg(long)]
    pub shard: Option<String>,
    /// Pick N scenarios pseudo-randomly.
    #[arg(long)]
    pub sample: Option<u64>,
    /// Seed of `--sample`.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run at most N scenarios.
    #[arg(long)]
    pub limit: Option<u64>,
    /// Do not use the response cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Response cache directory (default: `.scenario-engine-cache` next to the output).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Refuse to start above this estimated cost, stop when the spend reaches it (USD).
    #[arg(long)]
    pub budget: Option<f64>,
    /// Accept at a weighted score ≥ this (0–10).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// Refinements allowed after the first attempt.
    #[arg(long)]
    pub max_refinements: Option<u32>,
    /// How the ratio score is obtained.
    #[arg(long, value_parser = ["measured", "llm", "hybrid"])]
    pub ratio_judge: Option<String>,
    /// Requests per minute cap.
    #[arg(long)]
    pub rpm: Option<u32>,
    /// Tokens per minute cap.
    #[arg(long)]
    pub tpm: Option<u64>,
    /// Use the provider's Batch API: half price, waves of batches; rerun to resume polling.
    #[arg(long)]
    pub batch: bool,
}

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    super::block_on(run(args))
}

fn flags(args: &Args) -> FlagOverrides {
    let mut f = FlagOverrides::default();
    args.endpoint.apply(&mut f);
    f.set("budget", args.budget);
    f.set("threshold", args.threshold);
    f.set("max_refinements", args.max_refinements.map(u64::from));
    f.set("ratio_judge", args.ratio_judge.clone());
    f.set("rpm", args.rpm.map(u64::from));
    f.set("tpm", args.tpm);
    if args.no_cache {
        f.set("cache.enabled", Some(false));
    }
    f.set(
        "cache.dir",
        args.cache_dir.as_ref().map(|p| p.display().to_string()),
    );
    f.set("output", args.out.as_ref().map(|p| p.display().to_string()));
    f
}

fn selection(base: Selection, args: &Args) -> Result<Selection, String> {
    let mut s = base;
    if let Some(shard) = &args.shard {
        s.shard = Some(Shard::parse(shard).map_err(|e| format!("--shard: {e}"))?);
    }
    if args.sample.is_some() {
        s.sample = args.sample;
    }
    if let Some(seed) = args.seed {
        s.seed = seed;
    }
    if args.limit.is_some() {
        s.limit = args.limit;
    }
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

async fn run(args: Args) -> u8 {
    let config = match scenarios::load_config(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return exit::INVALID_INPUT;
        }
    };
    let selection = match selection(config.selection, &args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let settings = match RunSettings::layered(config.run.as_ref(), None, &flags(&args)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let Some(out) = settings.output.clone() else {
        eprintln!(
            "error: no output file: pass --out FILE or set `output` in the config's run section"
        );
        return exit::INVALID_INPUT;
    };
    let pipeline = match settings
        .pipeline()
        .map_err(|e| e.to_string())
        .and_then(|p| Pipeline::new(p).map_err(|e| e.to_string()))
    {
        Ok(p) => Arc::new(p),
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    let total = config.space.selected_count(&selection);
    let prices = settings.price_table();
    if let Some(budget) = settings.budget {
        let sample: Vec<_> = config
            .space
            .select(&selection)
            .take(Assumptions::default().sampled_scenarios)
            .collect();
        let est = estimate(&sample, total, &pipeline, Assumptions::default(), |m, u| {
            prices.cost(m, u)
        });
        match est.cost_usd {
            Some(cost) if cost > budget => {
                eprintln!("{}", render_estimate(&est));
                eprintln!(
                    "error: the estimated cost ${cost:.2} exceeds the budget ${budget:.2}; raise --budget or select fewer scenarios"
                );
                return exit::INVALID_INPUT;
            }
            Some(_) => tracing::info!("{}", render_estimate(&est)),
            None => eprintln!(
                "warning: cannot check the budget before starting: {}",
                render_estimate(&est)
            ),
        }
    }
    if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return exit::RUN_FAILURE;
    }
    let checkpoint = match open_checkpoint(&out) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::RUN_FAILURE;
        }
    };
    if !checkpoint.done.is_empty() {
        eprintln!(
            "resuming: {} scenario(s) already in {}",
            checkpoint.done.len(),
            out.display()
        );
    }
    let resolved = match provider::resolve_from_env(&settings.explicit_provider()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    eprintln!("{}", resolved.describe());
    let (in_flight, note) = provider::cap_concurrency(&resolved, settings.concurrency);
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let (model, remote): (Arc<dyn ChatModel>, _) = match &resolved {
        Resolved::Remote { config, .. } => {
            match Client::new(settings.client_config(&out, config)) {
                Ok(c) => (Arc::new(c), Some(config.clone())),
                Err(e) => {
                    eprintln!("error: {e}");
                    return exit::INVALID_INPUT;
                }
            }
        }
        Resolved::Local {
            model_path,
            settings: local,
            ..
        } => {
            if args.batch {
                eprintln!(
                    "error: --batch needs a remote provider with a Batch API, not the local model"
                );
                return exit::INVALID_INPUT;
            }
            match provider::load_local(model_path, local) {
                Ok(m) => (m, None),
                Err(e) => {
                    eprintln!("error: {e}");
                    return exit::INVALID_INPUT;
                }
            }
        }
    };
    let control = RunControl::default();
    let signals = tokio::spawn(watch_ctrl_c(control.clone()));
    let stats = Arc::new(RunStats::default());
    let progress = Progress::start(stats.clone(), total);
    let options = ExecutorOptions {
        scenarios_in_flight: in_flight,
        budget_usd: settings.budget,
        sink: SinkConfig::new(&out),
    };
    let result = if let (true, Some(remote)) = (args.batch, &remote) {
        let batch = agents::pipeline::BatchOptions::new(&out);
        agents::pipeline::batch::run_batch_with_config(
            settings.client_config(&out, remote),
            pipeline,
            config.space.select(&selection),
            checkpoint,
            batch,
            control,
            stats.clone(),
        )
        .await
        .map_err(|e| e.to_string())
    } else {
        run_online(
            model,
            pipeline,
            config.space.select(&selection),
            checkpoint,
            options,
            control,
            stats.clone(),
        )
        .await
        .map_err(|e| e.to_string())
    };
    progress.finish().await;
    signals.abort();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::RUN_FAILURE;
        }
    };
    print_summary(&out, &report, &stats, resolved.name(), settings.ratio_judge);
    match report.stop {
        StopReason::Completed if report.sink.failures == 0 => exit::OK,
        _ => exit::RUN_FAILURE,
    }
}

/// First Ctrl-C: stop dispatching; second: abort in-flight scenarios.
async fn watch_ctrl_c(control: RunControl) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    eprintln!("\ninterrupted: finishing scenarios in flight (Ctrl-C again to abort)");
    control.stop.cancel();
    if tokio::signal::ctrl_c().await.is_ok() {
        eprintln!("aborting: dropping scenarios in flight");
        control.abort.cancel();
    }
}

/// Summarises every record in the output file (this run's and earlier ones').
fn summarise(out: &Path) -> (RunSummary, u64) {
    let mut summary = RunSummary::default();
    let mut unreadable = 0u64;
    let Ok(reader) = RecordReader::<_, ScenarioRecord>::open(out) else {
        return (summary, 0);
    };
    for item in reader {
        match item {
            Ok(located) => {
                let r = &located.record;
                summary.add(&RecordFacts {
                    params: &r.params,
                    score: Some(r.score),
                    accepted: r.accepted,
                    failed: false,
                    judge_scores: &r.scores,
                    refine_count: r.refine_count,
                });
            }
            Err(_) => unreadable += 1,
        }
    }
    (summary, unreadable)
}

fn print_summary(
    out: &Path,
    report: &RunReport,
    stats: &RunStats,
    provider: &str,
    mode: RatioJudgeMode,
) {
    use std::sync::atomic::Ordering::Relaxed;
    let (summary, unreadable) = summarise(out);
    eprintln!(
        "\nrun: {} written, {} failed, {} skipped (already done); stop: {:?}",
        report.sink.records, report.sink.failures, report.skipped, report.stop
    );
    eprintln!(
        "calls {} ({} cache hits, {} errors), tokens {} prompt + {} completion, cost ${:.4} ({}, ratio judge {})",
        stats.calls.load(Relaxed),
        stats.cache_hits.load(Relaxed),
        stats.call_errors.load(Relaxed),
        stats.prompt_tokens.load(Relaxed),
        stats.completion_tokens.load(Relaxed),
        stats.cost_usd(),
        provider,
        mode.name(),
    );
    let rate = summary
        .acceptance_rate()
        .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
    eprintln!(
        "{}: {} record(s), accepted {} ({rate}), mean score {}, mean refinements {}",
        out.display(),
        summary.done,
        summary.accepted,
        summary
            .score
            .mean()
            .map_or("-".into(), |m| format!("{m:.3}")),
        summary
            .refine_count
            .mean()
            .map_or("-".into(), |m| format!("{m:.2}")),
    );
    if unreadable > 0 {
        eprintln!("warning: {unreadable} line(s) of the output are not records");
    }
    let mut judges = Table::new();
    judges.set_header(vec!["judge", "mean"]);
    let means: BTreeMap<_, _> = summary
        .judges
        .iter()
        .map(|(k, m)| (k.clone(), m.mean()))
        .collect();
    for (judge, mean) in means {
        judges.add_row(vec![judge, mean.map_or("-".into(), |m| format!("{m:.2}"))]);
    }
    eprintln!("{judges}");
    let counts = &summary.histogram.counts;
    // Only the range that holds scores: twenty rows of mostly zeros hide the distribution.
    if let (Some(first), Some(last)) = (
        counts.iter().position(|&c| c > 0),
        counts.iter().rposition(|&c| c > 0),
    ) {
        let widest = counts.iter().copied().max().unwrap_or(1).max(1);
        let mut histogram = Table::new();
        histogram.set_header(vec!["score", "records", ""]);
        for (i, &count) in counts.iter().enumerate().take(last + 1).skip(first) {
            let (lo, hi) = scoring::summary::Histogram::bounds(i);
            let bar = "█".repeat(usize::try_from(count * 30 / widest).unwrap_or(30));
            histogram.add_row(vec![format!("{lo:.1}–{hi:.1}"), count.to_string(), bar]);
        }
        eprintln!("{histogram}");
    }
    let lowest = summary.lowest(5);
    if !lowest.is_empty() {
        let mut table = Table::new();
        table.set_header(vec![
            "parameter",
            "value",
            "records",
            "mean score",
            "accepted",
        ]);
        for p in lowest {
            table.add_row(vec![
                p.param.clone(),
                p.value.clone(),
                p.stats.records.to_string(),
                p.stats
                    .score
                    .mean()
                    .map_or("-".into(), |m| format!("{m:.3}")),
                p.stats
                    .acceptance_rate()
                    .map_or("-".into(), |r| format!("{:.0}%", r * 100.0)),
            ]);
        }
        eprintln!("lowest-scoring parameter values:\n{table}");
    }
    if report.sink.failures > 0 {
        eprintln!(
            "{} scenario(s) failed; see {} (they are retried by the next run)",
            report.sink.failures,
            agents::pipeline::errors_path(out).display()
        );
    }
}
