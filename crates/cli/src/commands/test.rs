//! `scenario-engine test SUITE`: runs a bot test suite and reports weighted checks per scenario.
//!
//! Composition only: the suite is loaded and run by `bottest::suite`, checks are scored by
//! `scoring`, reports are rendered by `scoring::report`. This command picks the bot adapter,
//! builds the LLM through the one provider bootstrap (honouring `--config`'s `run:` settings)
//! when one is needed, writes the `--json` and `--junit` files (atomically, before printing
//! anything), then prints the per-scenario reports and a summary table laid out from
//! `scoring::SuiteFigures`. `--self-check` verifies the scripted outcomes instead. Exit
//! codes: 0 all scenarios passed (self-check: every outcome as declared), 1 a scenario failed (a
//! mismatch), 2 invalid input (suite, flags, bot settings), 3 the run could not start, the judge
//! (or the model of the `llmRubric`/`similar` checks) could not be reached, or a CI file could
//! not be written.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bottest::bot::BotKind;
use bottest::bot::judge::LlmJudge;
use bottest::checks::{CheckRunner, DEFAULT_EMBEDDING_MODEL};
use bottest::suite::{RunOptions, Selection, Suite, SuiteBots, load_suite, run_suite};
use llm_client::ChatModel;
use scoring::report::junit::junit_xml;
use scoring::{SuiteFigures, SuiteResult};

use super::{Bot, EndpointArgs};
use crate::error::{CliError, CommandResult, Outcome};
use crate::provider::{self, Resolved};
use crate::settings::{CacheSettings, FlagOverrides, RunSettings};
use reports::suite_terminal::{scenario_reports, summary_table, totals_line};

/// Scenarios run at once unless the settings say otherwise.
const DEFAULT_CONCURRENCY: usize = 4;

/// Flags of `test`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The suite file (YAML).
    pub suite: PathBuf,
    /// Bot adapter to use instead of the suite's `bot.kind`.
    #[arg(long, value_enum)]
    pub bot: Option<Bot>,
    /// A scenario config whose `run:` section gives the LLM's settings (provider, retry, rate
    /// limits, cache, timeout), layered like `run`'s: defaults → that section →
    /// `SCENARIO_ENGINE__*` → flags. For `--bot llm` and `--judge llm`.
    #[arg(long, value_name = "CONFIG")]
    pub config: Option<PathBuf>,
    /// Model, endpoint and limits of the LLM bot and judge (model default: the suite's
    /// `bot.llm.model`; provider default: `OPENAI_BASE_URL`/`OPENAI_API_KEY`, else the local
    /// model).
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    /// Write all results (transcripts and score cards) as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write JUnit XML (one testcase per scenario) to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Run every scenario N times and report pass rates and flipping checks.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Only scenarios whose id, name, category or a tag contains this text, or matches this glob
    /// (`*`, `?`: `send-*`, `*-eur`). Repeatable, or comma-separated: a scenario matching any is
    /// selected.
    #[arg(long, value_name = "PATTERN", value_delimiter = ',')]
    pub filter: Vec<String>,
    /// Only the scenarios with a failed check (a bot error included) in any run of an earlier
    /// `--json` result, whether or not they passed on their score; with `--filter`, those of
    /// them that match.
    #[arg(long, value_name = "PREVIOUS.json")]
    pub only_failed: Option<PathBuf>,
    /// Load and check the suite, print what would run (scenarios, bot, checks), and exit
    /// without calling the bot or a model.
    #[arg(long)]
    pub dry_run: bool,
    /// Any failed check fails its scenario.
    #[arg(long)]
    pub strict: bool,
    /// Passing score of a scenario's score card (0–100), overriding the suite's `threshold`.
    /// (Not `--threshold`: that flag is the pipeline's accept threshold, 0–10.)
    #[arg(long, value_name = "SCORE", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub pass_score: Option<u32>,
    /// Decide shouldAskFor/shouldWarn/shouldReject with an LLM judge. A question it cannot
    /// answer fails its scenario (a critical `judgeError` check); a judge that answers nothing
    /// at all is a run failure (exit 3).
    #[arg(long, value_enum)]
    pub judge: Option<Judge>,
    /// Check the suite itself (for suite authors): run it with its scripted bot and verify that
    /// every scenario gets the outcome its script declares (`expect_outcome: pass|fail`); exit 1
    /// naming the scenarios that do not.
    #[arg(long, conflicts_with = "bot")]
    pub self_check: bool,
}

/// `test --judge`: who decides the judged checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Judge {
    /// The LLM of `--model` (the same model as an LLM bot).
    Llm,
}

/// Runs the command.
///
/// # Errors
/// Invalid input (exit 2), or results that cannot be written (exit 3). A failed scenario is
/// [`Outcome::Failed`].
pub(crate) fn execute(args: Args) -> CommandResult {
    if let (Some(json), Some(junit)) = (&args.json, &args.junit)
        && (json == junit
            || std::fs::canonicalize(json)
                .ok()
                .is_some_and(|j| std::fs::canonicalize(junit).ok().is_some_and(|u| u == j)))
    {
        return Err(CliError::invalid(format!(
            "--json and --junit name the same file ({}): one would overwrite the other",
            json.display()
        )));
    }
    let suite = load_suite(&args.suite)?;
    let selection = selection(&args, &suite)?;
    if args.dry_run {
        return dry_run(&args, &suite, &selection);
    }
    // Output files are checked now, not after the whole (paid) suite has run.
    for path in [&args.json, &args.junit].into_iter().flatten() {
        stdx::check_writable(path).map_err(|e| CliError::write(path, e))?;
    }
    let kind = if args.self_check {
        BotKind::Scripted
    } else {
        args.bot.map_or(suite.bot.kind, BotKind::from)
    };
    let settings = settings(&args)?;
    super::block_on(run(args, suite, kind, settings, selection))
}

/// The scenarios `--filter` and `--only-failed` select.
fn selection(args: &Args, suite: &Suite) -> Result<Selection, CliError> {
    // An empty pattern (an unset shell variable) would select everything: refuse it.
    if args.filter.iter().any(|p| p.trim().is_empty()) {
        return Err(CliError::invalid(
            "--filter has an empty pattern (an unset variable, or `a,,b`): give a text or a glob",
        ));
    }
    let only = match &args.only_failed {
        None => None,
        Some(path) => {
            let previous = match reports::load::load(path).map_err(CliError::invalid)? {
                reports::load::Results::Suite(result) => result,
                other => {
                    return Err(CliError::invalid(format!(
                        "{}: a {}, not a suite result (`test --json`)",
                        path.display(),
                        other.kind().name()
                    )));
                }
            };
            if previous.suite != suite.name {
                return Err(CliError::invalid(format!(
                    "{}: a result of suite {:?}, not of {:?}: its failed ids may name other \
                     scenarios",
                    path.display(),
                    previous.suite,
                    suite.name
                )));
            }
            // A scenario that passed on its score with a failed check is re-run too (review 25l):
            // the check failed, whatever the verdict.
            Some(
                previous
                    .scenarios
                    .iter()
                    .filter(|s| {
                        !s.passed()
                            || s.runs
                                .iter()
                                .flat_map(|r| r.report.card.checks())
                                .any(|c| !c.passed)
                    })
                    .map(|s| s.id.clone())
                    .collect(),
            )
        }
    };
    Ok(Selection {
        patterns: args
            .filter
            .iter()
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect(),
        only,
    })
}

/// `--dry-run`: the suite loaded and checked, what would run, and nothing run.
fn dry_run(args: &Args, suite: &Suite, selection: &Selection) -> CommandResult {
    let selected = selection.of(suite);
    let kind = if args.self_check {
        BotKind::Scripted
    } else {
        args.bot.map_or(suite.bot.kind, BotKind::from)
    };
    outln!(
        "{}: suite {:?} is valid; {} of {} scenario(s) would run {} time(s) each with the {} bot",
        args.suite.display(),
        suite.name,
        selected.len(),
        suite.scenarios.len(),
        args.repeat,
        kind.as_str()
    );
    for s in &selected {
        outln!(
            "  {}  [{}]  {} turn(s), {} check(s)  {}",
            s.id,
            s.category.as_str(),
            s.steps.len(),
            s.expectations.declared_checks(),
            s.name
        );
    }
    if selected.is_empty() {
        return Err(no_match(args));
    }
    Ok(Outcome::Success)
}

/// The error for a selection that selects nothing.
fn no_match(args: &Args) -> CliError {
    let mut what = Vec::new();
    if !args.filter.is_empty() {
        what.push(format!("--filter {}", args.filter.join(",")));
    }
    if let Some(path) = &args.only_failed {
        what.push(format!(
            "--only-failed {} (its scenarios with a failed check)",
            path.display()
        ));
    }
    CliError::invalid(format!(
        "no scenario of the suite matches {}",
        what.join(" and ")
    ))
}

/// The run settings of the LLM and of the scenarios in flight: `run`'s layers over `test`'s
/// defaults (fewer scenarios at once, no response cache so `--repeat` measures the bot).
fn settings(args: &Args) -> Result<RunSettings, CliError> {
    let config = args
        .config
        .as_deref()
        .map(agents::settings::load_config)
        .transpose()?;
    let base = RunSettings {
        concurrency: DEFAULT_CONCURRENCY,
        cache: CacheSettings {
            enabled: false,
            ..CacheSettings::default()
        },
        ..RunSettings::default()
    };
    let mut flags = FlagOverrides::default();
    args.endpoint.apply(&mut flags);
    let run_section = config.as_ref().and_then(|c| c.run.as_ref());
    Ok(RunSettings::layered_over(&base, run_section, None, &flags)?)
}

/// The LLM of `--bot llm` / `--judge llm` and the model name to ask for.
fn build_model(
    args: &Args,
    suite: &Suite,
    settings: &RunSettings,
) -> Result<(provider::Bootstrapped, String), CliError> {
    let model = provider::bootstrap(settings, &args.suite)?;
    let name = match &model.resolved {
        Resolved::Remote { .. } => args
            .endpoint
            .model
            .clone()
            .or_else(|| suite.bot.llm.model.clone())
            .ok_or_else(|| {
                CliError::invalid("no model: pass --model or set bot.llm.model in the suite")
            })?,
        // The embedded model answers whatever name is asked for; name the file instead of a
        // remote model the suite may mention.
        Resolved::Local { model_path, .. } => model_path
            .file_stem()
            .map_or_else(|| "local".to_owned(), |s| s.to_string_lossy().into_owned()),
    };
    Ok((model, name))
}

/// What the user's own checks need: a model when the suite has `llmRubric` or `similar` checks
/// (built with the response cache on, so a rerun asks nothing already answered), the suite's
/// folder for `command` checks.
fn check_runner(
    args: &Args,
    suite: &Suite,
    settings: &RunSettings,
) -> Result<CheckRunner, CliError> {
    let mut runner = CheckRunner::without_model(bottest::suite::suite_folder(&args.suite));
    runner.embedding_model = suite
        .defaults
        .embedding_model
        .clone()
        .unwrap_or_else(|| DEFAULT_EMBEDDING_MODEL.to_owned());
    let needs_model = suite.scenarios.iter().any(|s| {
        [scoring::CheckKind::LlmRubric, scoring::CheckKind::Similar]
            .into_iter()
            .any(|k| scoring::expect::declares(&s.expectations, k))
    });
    if needs_model {
        let mut cached = settings.clone();
        cached.cache.enabled = true;
        let (built, name) = build_model(args, suite, &cached)?;
        runner.model = Some(built.model);
        runner.model_name = name;
    }
    Ok(runner)
}

async fn run(
    args: Args,
    suite: Suite,
    kind: BotKind,
    settings: RunSettings,
    selection: Selection,
) -> CommandResult {
    let mut concurrency = settings.concurrency;
    let checks = check_runner(&args, &suite, &settings)?;
    let needs_model = kind == BotKind::Llm || args.judge.is_some();
    let model: Option<(Arc<dyn ChatModel>, String)> = if needs_model {
        let (built, name) = build_model(&args, &suite, &settings)?;
        concurrency = built.in_flight;
        Some((built.model, name))
    } else {
        None
    };
    let bot_model = model.clone().filter(|_| kind == BotKind::Llm);
    let bots = SuiteBots::new(kind, suite.bot.clone(), bot_model).map_err(CliError::invalid)?;
    let opts = RunOptions {
        repeat: args.repeat,
        concurrency,
        selection,
        strict: args.strict.then_some(true),
        threshold: args.pass_score,
        judge: model
            .filter(|_| args.judge.is_some())
            .map(|(model, model_name)| LlmJudge { model, model_name }),
        checks: Some(checks),
        ..RunOptions::default()
    };
    // Ctrl-C (or SIGTERM): no further run starts, those in flight finish; a second Ctrl-C
    // abandons them. What finished is written, marked partial, and the exit code is 3.
    let signals = super::run::watch_ctrl_c(opts.stop.clone(), opts.abort.clone());
    let shown = opts.progress.clone();
    let progress = crate::progress::Progress::start(move |_| shown.reading());
    let result = run_suite(&suite, &bots, &opts).await;
    progress.finish().await;
    signals.abort();
    if result.scenarios.is_empty() && result.interrupted.is_none() {
        return Err(no_match(&args));
    }
    // The CI files first: a reader of stdout that goes away must not cost them.
    if let Some(path) = &args.json {
        let json = serde_json::to_vec_pretty(&result).map_err(CliError::run)?;
        write_file(path, &json)?;
    }
    if let Some(path) = &args.junit {
        write_file(path, junit_xml(&result).map_err(CliError::run)?.as_bytes())?;
    }
    let outcome = if args.self_check {
        self_check(&result)
    } else {
        let figures = SuiteFigures::of(&result);
        out!(
            "{}",
            scenario_reports(&result, &figures).map_err(CliError::run)?
        );
        outln!("{}", summary_table(&figures));
        outln!("{}", totals_line(&figures));
        if result.passed() {
            Outcome::Success
        } else {
            Outcome::Failed
        }
    };
    if let Some(i) = &result.interrupted {
        return Err(CliError::run(format!(
            "interrupted: {} of {} run(s) done, {} scenario(s) not run; the reports above and \
             the JSON/JUnit files hold what finished, marked partial",
            i.runs_done,
            i.runs_planned,
            i.not_run.len()
        )));
    }
    if let Some((reason, runs)) = result.bot_unreachable() {
        // Not a regression: nothing was learnt about the bot in those runs.
        return Err(CliError::run(format!(
            "the bot could not be reached ({runs} run(s)): {reason}; the results say nothing \
             about it (a bot that answers badly is a failed test, exit 1)"
        )));
    }
    if let Some(reason) = result.judge_unreachable() {
        return Err(CliError::run(format!(
            "the judge could not be reached: {reason}; its checks failed as judgeError"
        )));
    }
    match result.check_model_unreachable() {
        Some(reason) => Err(CliError::run(format!(
            "the model of the llmRubric/similar checks could not be reached: {reason}; those \
             checks failed as not evaluated"
        ))),
        None => Ok(outcome),
    }
}

/// Writes a CI file atomically (a reader never sees half of it).
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    stdx::write_atomic(path, |out| {
        out.write_all(bytes)?;
        out.write_all(b"\n")
    })
    .map_err(|e| CliError::write(path, e))
}

/// `--self-check`: one line per scenario that did not get its declared outcome (with the verdict
/// run's reasons), and a verdict line. Failed scenarios that were meant to fail are a success.
fn self_check(result: &SuiteResult) -> Outcome {
    let mismatches = result.outcome_mismatches();
    for m in &mismatches {
        outln!("mismatch: {m}");
    }
    let total = result.scenarios.len();
    outln!(
        "self-check: {}/{total} scenarios got the outcome their script declares",
        total - mismatches.len()
    );
    if mismatches.is_empty() {
        Outcome::Success
    } else {
        Outcome::Failed
    }
}
