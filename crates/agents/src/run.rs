//! One pipeline run into one output file, in the order every front end must follow: the checks
//! that cost nothing (settings, budget, prompts), the output's lock, its checkpoint and accept
//! rules, then the run on the chosen back end (online or the provider's Batch API).
//!
//! [`OutputRun::open`] does everything before the first call; [`OutputRun::execute`] runs. The
//! caller builds the model in between (where it lives, and how it is announced, is the
//! application's business) and owns the [`RunControl`] and [`RunStats`] (signals, progress).
//!
//! Invariant: nothing is spent before the output is locked, its checkpoint read and its accept
//! rules found to match this run's; a second run on the same output is refused before it reads
//! anything.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use llm_client::{ChatModel, ClientConfig};
use runlog::{LockError, OutputLock};
use scenarios::ScenarioConfig;

use crate::batch::{BatchOptions, run_batch_with_config};
use crate::driver::{RunControl, RunReport, RunStats, StopReason};
use crate::executor::{ExecutorOptions, run_online};
use crate::sink::{Checkpoint, SinkConfig, SinkError, open_checkpoint};
use crate::{Estimate, Pipeline, render_estimate};

/// Why a run could not start or finish. [`RunError::is_input`] tells the user's mistakes from
/// the machine's failures.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The settings, prompts or output file cannot make a run; nothing was spent.
    #[error("{0}")]
    Invalid(String),
    /// The estimate of the selection is above the budget; nothing was spent.
    #[error(
        "the estimated cost {} (at the {price} price) exceeds the budget {}; raise --budget or \
         select fewer scenarios",
        runlog::money::usd(*cost),
        runlog::money::usd(*budget)
    )]
    OverBudget {
        /// The estimate, rendered (the caller shows it).
        estimate: String,
        /// Its cost at the price the run would pay.
        cost: f64,
        /// The budget.
        budget: f64,
        /// `online` or `batch`.
        price: &'static str,
    },
    /// Another process writes the output.
    #[error(
        "{0}\nhint: wait for it to finish (a task's second copy has nothing to do), or write to \
         another output"
    )]
    Locked(LockError),
    /// Reading or writing the output failed, or the back end did.
    #[error("{0}")]
    Failed(String),
    /// The preflight found no endpoint answering (or one refusing the key); nothing was
    /// spent or written.
    #[error("preflight: {0}{hint}", hint = preflight_hint(.0))]
    Preflight(llm_client::LlmError),
    /// The tool server of `run.tools` could not be started, did not speak MCP, did not answer,
    /// or lacks the tool; nothing was spent or written.
    #[error(
        "tool server: {0}\nhint: check `run.tools` (docs/config.md, \"Grounding\"): the server's \
         command must start an MCP server on stdio that offers the tool"
    )]
    ToolServer(grounding::GroundingError),
}

/// What to do about a failed preflight: a refused key names its variable already.
fn preflight_hint(e: &llm_client::LlmError) -> &'static str {
    match e {
        llm_client::LlmError::Auth { .. } => "",
        _ => {
            "\nhint: check that the server is up and the base URL; the preflight (a model \
             list, else a one-token call) is skipped with `preflight: false`"
        }
    }
}

/// What a run says about its config before anything else, one line each: whether and in what
/// scenarios that ask for grounding are grounded ([`crate::grounding::notice`], given the
/// configured tool server `tools`), and the language pairs the gate can never decide
/// ([`crate::gate::GateCoverage::warning`], as `warning: …`).
#[must_use]
pub fn preamble(
    config: &ScenarioConfig,
    gate: runlog::GateSettings,
    tools: Option<&crate::grounding::ToolsSettings>,
) -> Vec<String> {
    let coverage = crate::gate::GateCoverage::of_selection(&config.space, &config.selection);
    crate::grounding::notice(&config.space, tools)
        .into_iter()
        .chain(coverage.warning(gate).map(|w| format!("warning: {w}")))
        .collect()
}

impl RunError {
    /// True for a mistake in what the user asked (settings, files, budget, a held output):
    /// nothing was spent, and running again unchanged fails the same way.
    #[must_use]
    pub fn is_input(&self) -> bool {
        !matches!(
            self,
            Self::Failed(_) | Self::Preflight(_) | Self::ToolServer(_)
        )
    }
}

/// What the budget check found before the run.
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetCheck {
    /// No budget, or the free embedded model.
    None,
    /// The estimate is within the budget (rendered, for logs).
    Within(String),
    /// The model has no price, so the budget cannot be enforced (the estimate, rendered).
    Unenforceable(String),
}

/// What a run needs to know about its model before it starts.
#[derive(Debug, Clone, Copy)]
pub struct RunShape {
    /// Use the provider's Batch API (half price, waves of batches).
    pub batch: bool,
    /// The model is the embedded one: free, so no budget applies, and it has no Batch API.
    pub local_model: bool,
    /// Stop admitting scenarios once the spend reaches this (USD).
    pub budget: Option<f64>,
    /// Live scenarios of a `--batch` run (its window).
    pub batch_window: usize,
    /// Check, before the first paid call of an online run, that the model answers
    /// ([`ChatModel::preflight`]).
    pub preflight: bool,
}

/// A run ready to start: its output locked, its checkpoint read.
#[derive(Debug)]
pub struct OutputRun {
    pipeline: Arc<Pipeline>,
    out: PathBuf,
    shape: RunShape,
    checkpoint: Checkpoint,
    /// What the budget check found.
    pub budget: BudgetCheck,
    /// Scenarios the selection holds.
    pub total: u64,
    _lock: OutputLock,
}

impl OutputRun {
    /// Checks everything that costs nothing, then locks `out` and reads its checkpoint:
    /// the budget against the estimate (`estimate` gives it), every prompt rendered once for the
    /// first scenario, the output's directory, its lock, its lines, and the accept rules of the
    /// records it already holds.
    ///
    /// # Errors
    /// [`RunError`]: an input error before anything is spent, or an unreadable output.
    pub fn open(
        config: &ScenarioConfig,
        pipeline: Pipeline,
        out: &Path,
        shape: RunShape,
        estimate: impl FnOnce(&Arc<Pipeline>) -> Estimate,
    ) -> Result<Self, RunError> {
        let pipeline = Arc::new(pipeline);
        let total = config.space.selected_count(&config.selection);
        let budget = check_budget(&pipeline, shape, estimate)?;
        if let Some(first) = config.space.select(&config.selection).next() {
            pipeline.rehearse_prompts(&first).map_err(|e| {
                RunError::Invalid(format!("{e}\nhint: see `agents.<agent>` in docs/config.md"))
            })?;
        }
        if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| RunError::Failed(format!("cannot create {}: {e}", dir.display())))?;
        }
        // One writer per output: a second run on it is refused at once, before it reads the
        // checkpoint or spends anything. Held until the run is dropped.
        let lock = OutputLock::acquire(out).map_err(|e| match e {
            LockError::Held { .. } => RunError::Locked(e),
            LockError::Io { .. } => RunError::Failed(e.to_string()),
        })?;
        let checkpoint = open_checkpoint(out).map_err(|e| match e {
            SinkError::NotARecord { .. } => RunError::Invalid(e.to_string()),
            e => RunError::Failed(e.to_string()),
        })?;
        refuse_other_accept_rules(out, &pipeline)?;
        tracing::debug!(out = %out.display(), total, done = checkpoint.done.len(), "run opened");
        Ok(Self {
            pipeline,
            out: out.to_path_buf(),
            shape,
            checkpoint,
            budget,
            total,
            _lock: lock,
        })
    }

    /// Scenarios the output already holds (skipped by this run).
    #[must_use]
    pub fn resumed(&self) -> usize {
        self.checkpoint.done.len()
    }

    /// Runs the selection: online through `model`, `in_flight` scenarios at once, or with
    /// [`RunShape::batch`] through the Batch API of `client` (the remote model's configuration).
    ///
    /// # Errors
    /// [`RunError::Invalid`] for `--batch` without a remote provider or with several endpoints;
    /// [`RunError::Failed`] when the output or the back end fails.
    pub async fn execute(
        self,
        config: &ScenarioConfig,
        model: Arc<dyn ChatModel>,
        client: Option<&ClientConfig>,
        in_flight: usize,
        control: RunControl,
        stats: Arc<RunStats>,
    ) -> Result<RunReport, RunError> {
        let Self {
            pipeline,
            out,
            shape,
            checkpoint,
            _lock,
            ..
        } = self;
        // A stop asked for while the tool server starts (a server that never answers waits
        // out its timeout) ends the run at once: nothing was started.
        let grounder = tokio::select! {
            grounder = connect_grounder(&pipeline, config) => grounder?,
            () = control.stop.cancelled() => {
                tracing::info!("stop asked for while the tool server started: nothing was run");
                return Ok(RunReport {
                    stop: StopReason::Interrupted,
                    sink: crate::sink::SinkReport::default(),
                    skipped: u64::try_from(checkpoint.done.len()).unwrap_or(u64::MAX),
                });
            }
        };
        let scenarios = config.space.select(&config.selection);
        if shape.batch {
            let client = match client {
                Some(client) => client.clone(),
                None => {
                    return Err(RunError::Invalid(
                        "--batch needs a remote provider with a Batch API, not the local model"
                            .to_owned(),
                    ));
                }
            };
            llm_client::batch::check_one_endpoint(&client)
                .map_err(|e| RunError::Invalid(e.to_string()))?;
            let options = BatchOptions {
                budget_usd: shape.budget,
                window: shape.batch_window,
                grounder,
                ..BatchOptions::new(&out)
            };
            run_batch_with_config(
                client, pipeline, scenarios, checkpoint, options, control, stats,
            )
            .await
            .map_err(|e| RunError::Failed(e.to_string()))
        } else {
            if shape.preflight {
                let generator = &pipeline
                    .settings()
                    .agents
                    .get(runlog::AgentKind::Generator)
                    .model;
                model
                    .preflight(generator)
                    .await
                    .map_err(RunError::Preflight)?;
            }
            let options = ExecutorOptions {
                scenarios_in_flight: in_flight,
                budget_usd: shape.budget,
                sink: SinkConfig::new(&out),
                grounder,
            };
            run_online(
                model, pipeline, scenarios, checkpoint, options, control, stats,
            )
            .await
            .map_err(|e| RunError::Failed(e.to_string()))
        }
    }
}

/// The tool server of `run.tools`, connected and its tool checked, when one is configured and
/// scenarios of the config ask for grounding; before any model call, so a dead or wrong server
/// costs nothing.
async fn connect_grounder(
    pipeline: &Pipeline,
    config: &ScenarioConfig,
) -> Result<Option<Arc<crate::grounding::Grounder>>, RunError> {
    let Some(tools) = &pipeline.settings().tools else {
        return Ok(None);
    };
    if !crate::grounding::space_asks_for_tools(&config.space) {
        return Ok(None);
    }
    crate::grounding::Grounder::connect(tools)
        .await
        .map(|g| Some(Arc::new(g)))
        .map_err(RunError::ToolServer)
}

/// Refuses to start when the estimated cost of the selection exceeds the budget (at the Batch
/// API's price with `batch`, which is what such a run pays). The embedded model is free.
fn check_budget(
    pipeline: &Arc<Pipeline>,
    shape: RunShape,
    estimate: impl FnOnce(&Arc<Pipeline>) -> Estimate,
) -> Result<BudgetCheck, RunError> {
    let Some(budget) = shape.budget.filter(|_| !shape.local_model) else {
        return Ok(BudgetCheck::None);
    };
    let est = estimate(pipeline);
    let (factor, price) = if shape.batch {
        (llm_client::BatchConfig::default().price_factor, "batch")
    } else {
        (1.0, "online")
    };
    match est.cost_usd.map(|c| c * factor) {
        Some(cost) if cost > budget => Err(RunError::OverBudget {
            estimate: render_estimate(&est),
            cost,
            budget,
            price,
        }),
        Some(_) => Ok(BudgetCheck::Within(render_estimate(&est))),
        None => Ok(BudgetCheck::Unenforceable(render_estimate(&est))),
    }
}

/// Refuses to resume an output whose records were decided under other accept rules: one file
/// would mix two (the report could not say what "accepted" means).
fn refuse_other_accept_rules(out: &Path, pipeline: &Pipeline) -> Result<(), RunError> {
    let current = runlog::RecordSettings::from(pipeline.settings());
    let mismatch = runlog::record::first_settings_mismatch(out, &current)
        .map_err(|e| RunError::Invalid(format!("cannot read {}: {e}", out.display())))?;
    match mismatch {
        None => Ok(()),
        Some((line, recorded)) => Err(RunError::Invalid(format!(
            "{}:{line}: this record was written with other accept rules than this run's \
             (the file's vs this run's: {}); resuming would mix two rules in one file\nhint: run \
             with the settings the file was written with, or write to another --out",
            out.display(),
            recorded.differences(&current).join(", ")
        ))),
    }?;
    refuse_other_judge_prompts(out, pipeline)
}

/// Refuses to resume an output whose records a declared judge scored with another prompt (its
/// `prompt_hashes` entry differs): one file would hold two judges under one name.
fn refuse_other_judge_prompts(out: &Path, pipeline: &Pipeline) -> Result<(), RunError> {
    let hashes = pipeline.prompts().hashes();
    let watched: std::collections::BTreeMap<String, String> = pipeline
        .settings()
        .judges
        .iter()
        .filter_map(|j| {
            let name = j.name.as_str();
            Some((name.to_owned(), hashes.get(name)?.clone()))
        })
        .collect();
    let mismatch = runlog::record::first_prompt_mismatch(out, &watched)
        .map_err(|e| RunError::Invalid(format!("cannot read {}: {e}", out.display())))?;
    match mismatch {
        None => Ok(()),
        Some(m) => Err(RunError::Invalid(format!(
            "{}:{}: this record was judged with another `{}` prompt than this run's (the \
             file's vs this run's prompt hash: {} vs {}; {} record(s) so); resuming would mix \
             two prompts in one file\nhint: run with the prompt the file was written with, or \
             write to another --out",
            out.display(),
            m.line,
            m.name,
            m.recorded,
            m.current,
            m.records
        ))),
    }
}
