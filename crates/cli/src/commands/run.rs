//! `scenario-engine run CONFIG --out FILE`: runs the code-switching pipeline over a config's
//! scenarios, one JSONL record each, resumable, with progress and an end summary.
//!
//! Exit codes: 0 the run completed (rejected scenarios included), 2 invalid input (config,
//! settings, an estimate above `--budget`), 3 scenarios failed at the provider, a fatal error or
//! the budget stopped the run, or it was interrupted. The model comes from
//! [`provider::bootstrap`], like every command's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agents::{BudgetCheck, OutputRun, RunControl, RunError, RunShape, RunStats, StopReason};
use runlog::money::usd;

use super::scenarios::{SelectionArgs, load_selected};
use super::{EndpointArgs, JudgingArgs};
use crate::error::{CliError, CommandResult, Outcome};
use crate::progress::Progress;
use crate::provider::{self, Resolved};
use crate::settings::{FlagOverrides, RunSettings};

/// Flags of `run`; every setting flag overrides the config's `run:` section and the environment.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The scenario config (native YAML/TOML or SwitchLingua `pre_execute`).
    pub config: PathBuf,
    /// Output JSONL file (also the checkpoint: finished ids are skipped when it exists).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub judging: JudgingArgs,
    /// Do not use the response cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Response cache directory (default: `.scenario-engine-cache` next to the output).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Refuse to start above this estimated cost; start no scenario once the spend reaches it
    /// (USD). Scenarios in flight then finish, refinements included.
    #[arg(long, value_name = "USD")]
    pub budget: Option<f64>,
    /// Refinements allowed after the first attempt.
    #[arg(long, value_name = "N")]
    pub max_refinements: Option<u32>,
    /// Use the provider's Batch API: half price, waves of batches; rerun to resume polling.
    #[arg(long)]
    pub batch: bool,
    /// With a run directory (`plan --tasks T --into DIR`) instead of a config: the task to run,
    /// 0-based, or `auto` to read it from the scheduler (`SLURM_ARRAY_TASK_ID`,
    /// `JOB_COMPLETION_INDEX`, `AWS_BATCH_JOB_ARRAY_INDEX`, `CLOUD_RUN_TASK_INDEX`).
    #[arg(long, value_name = "N|auto")]
    pub task: Option<String>,
    /// Skip the check that the endpoint answers (its model list, else a one-token call) before
    /// the first paid call (setting `preflight: false`).
    #[arg(long)]
    pub no_preflight: bool,
    /// Tasks running at once against the same endpoint: each takes 1/N of `rpm` and `tpm`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: Option<u32>,
}

/// Runs the command on a config (a run directory goes to `tasks::run_task` instead).
///
/// # Errors
/// Invalid input (exit 2), or a run that did not complete (exit 3).
pub(crate) fn execute(args: Args) -> CommandResult {
    super::block_on(run(args))
}

pub(crate) fn flags(args: &Args) -> FlagOverrides {
    let mut f = args.judging.overrides_with(&args.endpoint);
    f.set("budget", args.budget);
    f.set("max_refinements", args.max_refinements.map(u64::from));
    if args.no_cache {
        f.set("cache.enabled", Some(false));
    }
    if args.no_preflight {
        f.set("preflight", Some(false));
    }
    f.set(
        "cache.dir",
        args.cache_dir.as_ref().map(|p| p.display().to_string()),
    );
    f.set("output", args.out.as_ref().map(|p| p.display().to_string()));
    f
}

async fn run(args: Args) -> CommandResult {
    if args.task.is_some() {
        return Err(CliError::invalid(format!(
            "--task needs a run directory, and {} is not one (no manifest.json)\nhint: plan one \
             with `scenario-engine plan CONFIG --tasks T --into DIR`",
            args.config.display()
        )));
    }
    let config = load_selected(&args.config, &args.selection)?;
    let mut settings = RunSettings::layered(config.run.as_ref(), None, &flags(&args))?;
    settings.share_limits(args.workers.unwrap_or(1));
    let out = settings.output.clone().ok_or_else(|| {
        CliError::invalid(
            "no output file: pass --out FILE or set `output` in the config's run section",
        )
    })?;
    let control = RunControl::default();
    let signals = watch_ctrl_c(control.stop.clone(), control.abort.clone());
    let stats = Arc::default();
    let done = run_to(&config, &settings, &out, args.batch, control, stats).await;
    signals.abort();
    done
}

/// Runs `config`'s selection into `out` with `settings` (the library's [`OutputRun`]): prints
/// what it found before the run, builds the model, shows progress and the summary, and maps the
/// end to an exit code.
pub(crate) async fn run_to(
    config: &scenarios::ScenarioConfig,
    settings: &RunSettings,
    out: &Path,
    batch: bool,
    control: RunControl,
    stats: Arc<RunStats>,
) -> CommandResult {
    taskrun::refuse_url(out, "--out").map_err(CliError::invalid)?;
    for line in agents::run::preamble(config, settings.gate, settings.tools.as_ref()) {
        errln!("{line}");
    }
    let explicit = settings.explicit_provider();
    // Resolved once; an error waits for the model's start-up below, after the output's checks.
    let resolved = provider::resolve_from_env(&explicit);
    let shape = RunShape {
        batch,
        local_model: explicit.local_named() || resolved.as_ref().is_ok_and(Resolved::is_local),
        budget: settings.budget,
        batch_window: settings.batch_window,
        preflight: settings.preflight,
    };
    let prices = settings.price_table();
    let opened = OutputRun::open(config, settings.build_pipeline()?, out, shape, |pipeline| {
        agents::plan::estimate_selection(config, pipeline, &prices)
    });
    let run = match opened {
        Err(e @ RunError::OverBudget { .. }) => {
            if let RunError::OverBudget { estimate, .. } = &e {
                errln!("{estimate}");
            }
            return Err(CliError::invalid(e));
        }
        Err(e) if e.is_input() => return Err(CliError::invalid(e)),
        Err(e) => return Err(CliError::run(e)),
        Ok(run) => run,
    };
    match &run.budget {
        BudgetCheck::Within(estimate) => tracing::info!("{estimate}"),
        BudgetCheck::Unenforceable(estimate) => errln!(
            "warning: the budget cannot be enforced: {estimate}; spend with no price counts \
             nothing (set `prices` for the model)"
        ),
        BudgetCheck::None => {}
    }
    if run.resumed() > 0 {
        errln!(
            "resuming: {} scenario(s) already in {}",
            run.resumed(),
            out.display()
        );
    }
    let model = provider::bootstrap_resolved(settings, resolved?, out)?;
    let tally = model.model.clone();
    let (shown, transport, total) = (stats.clone(), model.model.clone(), run.total);
    let progress =
        Progress::start(move |elapsed| shown.reading(total, transport.transport(), elapsed));
    let result = run
        .execute(
            config,
            model.model,
            model.client_config.as_ref(),
            model.in_flight,
            control,
            stats.clone(),
        )
        .await;
    progress.finish().await;
    let report = result.map_err(|e| {
        if matches!(&e, RunError::Preflight(inner) if !matches!(inner, llm_client::LlmError::Auth { .. })) {
            CliError::run(format!("{e} (`--no-preflight`)"))
        } else if e.is_input() {
            CliError::invalid(e)
        } else {
            CliError::run(e)
        }
    })?;
    let totals = report.totals(&stats, model.resolved.name(), settings.ratio_judge);
    errln!("{}", reports::terminal::run_end(out, &totals).trim_end());
    if let Some(summary) = tally.transport().and_then(|t| t.summary()) {
        errln!("{summary}");
    }
    if let Some(budget) = settings.budget.filter(|b| stats.cost_usd() > *b) {
        errln!(
            "note: the budget {} was exceeded by the scenarios in flight when it was reached (they finish): spent {}",
            usd(budget),
            usd(stats.cost_usd())
        );
    }
    match report.stop {
        StopReason::Completed if report.sink.failures == 0 => Ok(Outcome::Success),
        StopReason::Completed => Err(CliError::run(format!(
            "{} scenario(s) failed: the errors file gives each reason",
            report.sink.failures
        ))),
        other => Err(CliError::run(format!("the run stopped early: {other}"))),
    }
}

/// The first Ctrl-C (SIGINT, which Slurm's `--signal=B:INT@…` sends before a time limit) or,
/// on Unix, SIGTERM (what Kubernetes and Slurm send on preemption or cancel): stop dispatching;
/// a second Ctrl-C or SIGTERM: abort in-flight scenarios. The listeners exist when this returns, so a
/// signal sent at once is not lost (nor ignored, as a shell's background job inherits SIGINT).
/// The second signal may be either.
pub(crate) fn watch_ctrl_c(
    stop: tokio_util::sync::CancellationToken,
    abort: tokio_util::sync::CancellationToken,
) -> tokio::task::JoinHandle<()> {
    #[cfg(unix)]
    let (mut int, mut term) = {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind| signal(kind).ok();
        (
            listen(SignalKind::interrupt()),
            listen(SignalKind::terminate()),
        )
    };
    #[cfg(unix)]
    async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
        match signal {
            Some(s) => drop(s.recv().await),
            None => std::future::pending().await,
        }
    }
    tokio::spawn(async move {
        #[cfg(unix)]
        tokio::select! {
            () = next(&mut int) => {}
            () = next(&mut term) => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        errln!("\ninterrupted: finishing scenarios in flight (Ctrl-C again to abort)");
        stop.cancel();
        // A second SIGTERM aborts too: `timeout` and a supervisor may send it again.
        #[cfg(unix)]
        tokio::select! {
            () = next(&mut int) => {}
            () = next(&mut term) => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        errln!("aborting: dropping scenarios in flight");
        abort.cancel();
    })
}
