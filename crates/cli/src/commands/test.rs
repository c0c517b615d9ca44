//! `scenario-engine test SUITE`: runs a bot test suite and reports weighted checks per scenario.
//!
//! Composition only: the suite is loaded and run by `agents::suite`, checks are scored by
//! `scoring`, reports are rendered by `scoring::report`. This command picks the bot adapter,
//! builds the LLM through the one provider bootstrap (honouring `--config`'s `run:` settings)
//! when one is needed, prints the per-scenario reports and a summary table,
//! and writes the `--json` and `--junit` files. Exit codes: 0 all scenarios passed, 1 a scenario
//! failed, 2 invalid input (suite, flags, bot settings), 3 the run itself could not start.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agents::bot::judge::LlmJudge;
use agents::bot::{BotError, BotKind, CommandBot, HttpBot, LlmBot, scripted_bot};
use agents::suite::{RunOptions, Suite, SuiteResult, SuiteScenario, load_suite, run_suite};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use llm_client::ChatModel;
use scoring::report::render_text;

use super::{Bot, EndpointArgs};
use crate::error::{CliError, CommandResult, Outcome};
use crate::provider::{self, Resolved};
use crate::settings::{CacheSettings, FlagOverrides, RunSettings};

/// Scenarios run at once unless the settings say otherwise.
const DEFAULT_CONCURRENCY: usize = 4;

/// Flags of `test`.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Only scenarios whose id, name, category or tag contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Any failed check fails its scenario.
    #[arg(long)]
    pub strict: bool,
    /// Passing score of a scenario's score card (0–100), overriding the suite's `threshold`.
    /// (Not `--threshold`: that flag is the pipeline's accept threshold, 0–10.)
    #[arg(long, value_name = "SCORE", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub pass_score: Option<u32>,
    /// Decide shouldAskFor/shouldWarn/shouldReject with an LLM judge.
    #[arg(long, value_enum)]
    pub judge: Option<Judge>,
}

/// `test --judge`: who decides the judged checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Judge {
    /// The LLM of `--model` (the same model as an LLM bot).
    Llm,
}

/// Runs the command.
///
/// # Errors
/// Invalid input (exit 2), or results that cannot be written (exit 3). A failed scenario is
/// [`Outcome::Failed`].
pub fn execute(args: Args) -> CommandResult {
    let suite = load_suite(&args.suite)?;
    let kind = args.bot.map_or(suite.bot.kind, BotKind::from);
    let settings = settings(&args)?;
    super::block_on(run(args, suite, kind, settings))
}

/// The run settings of the LLM and of the scenarios in flight: `run`'s layers over `test`'s
/// defaults (fewer scenarios at once, no response cache so `--repeat` measures the bot).
fn settings(args: &Args) -> Result<RunSettings, CliError> {
    let config = args
        .config
        .as_deref()
        .map(scenarios::load_config)
        .transpose()?;
    let base = RunSettings {
        concurrency: DEFAULT_CONCURRENCY,
        cache: CacheSettings {
            enabled: false,
            dir: None,
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

async fn run(args: Args, suite: Suite, kind: BotKind, settings: RunSettings) -> CommandResult {
    if kind == BotKind::Http && suite.bot.http.is_none() {
        return Err(CliError::invalid(
            "--bot http needs a `bot.http` section in the suite",
        ));
    }
    if kind == BotKind::Command && suite.bot.command.is_none() {
        return Err(CliError::invalid(
            "--bot command needs a `bot.command` section in the suite",
        ));
    }
    let mut concurrency = settings.concurrency;
    let needs_model = kind == BotKind::Llm || args.judge.is_some();
    let model: Option<(Arc<dyn ChatModel>, String)> = if needs_model {
        let (built, name) = build_model(&args, &suite, &settings)?;
        concurrency = built.in_flight;
        Some((built.model, name))
    } else {
        None
    };
    let bot_model = model.clone();
    let spec = suite.bot.clone();
    let factory = move |scenario: &SuiteScenario| -> Result<Box<dyn agents::bot::Bot>, BotError> {
        match kind {
            BotKind::Scripted => scripted_bot(scenario),
            BotKind::Llm => {
                let (model, name) = bot_model
                    .clone()
                    .ok_or_else(|| BotError::Config("no model configured".to_owned()))?;
                Ok(Box::new(LlmBot::new(
                    model,
                    name,
                    spec.llm.clone(),
                    &spec.system_prompt,
                    &spec.agents,
                )))
            }
            BotKind::Http => {
                let http = spec
                    .http
                    .clone()
                    .ok_or_else(|| BotError::Config("no bot.http".to_owned()))?;
                Ok(Box::new(HttpBot::new(http)?))
            }
            BotKind::Command => {
                let cmd = spec
                    .command
                    .as_ref()
                    .ok_or_else(|| BotError::Config("no bot.command".to_owned()))?;
                Ok(Box::new(CommandBot::spawn(cmd)?))
            }
        }
    };
    let opts = RunOptions {
        repeat: args.repeat,
        concurrency,
        filter: args.filter.clone(),
        strict: args.strict.then_some(true),
        threshold: args.pass_score,
        judge: model
            .filter(|_| args.judge.is_some())
            .map(|(model, model_name)| LlmJudge { model, model_name }),
    };
    let result = run_suite(&suite, &factory, &opts).await;
    if result.scenarios.is_empty() {
        return Err(CliError::invalid(format!(
            "no scenario matches the filter {:?}",
            args.filter.unwrap_or_default()
        )));
    }
    print!("{}", print_reports(&result).map_err(CliError::run)?);
    println!("{}", summary_table(&result));
    println!("{}", totals_line(&result));
    if let Some(path) = &args.json {
        write_json(path, &result).map_err(|e| CliError::write(path, e))?;
    }
    if let Some(path) = &args.junit {
        let xml = junit_xml(&result).map_err(CliError::run)?;
        std::fs::write(path, xml).map_err(|e| CliError::write(path, e))?;
    }
    Ok(if result.passed() {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// The report of each scenario: its first failing run (or its first run), in the seed's format.
fn print_reports(result: &SuiteResult) -> Result<String, scoring::report::ReportError> {
    let mut out = String::new();
    for s in &result.scenarios {
        let Some(run) = s
            .runs
            .iter()
            .find(|r| !r.report.card.passed())
            .or_else(|| s.runs.first())
        else {
            continue;
        };
        out.push_str(&render_text(&run.report)?);
        if result.repeat > 1 {
            let _ = writeln!(out, "Runs: {}/{} passed", s.passed_runs(), s.runs.len());
            let flips = s.flipping_checks();
            if !flips.is_empty() {
                let _ = writeln!(out, "Flaky checks: {}", flips.join(", "));
            }
        }
        out.push('\n');
    }
    Ok(out)
}

fn summary_table(result: &SuiteResult) -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let mut header = vec!["scenario", "category", "result", "score", "failed checks"];
    if result.repeat > 1 {
        header.extend(["pass rate", "flipping checks"]);
    }
    table.set_header(header);
    for s in &result.scenarios {
        let Some(first) = s.runs.first() else {
            continue;
        };
        let card = &first.report.card;
        let score = if card.show_score() {
            card.score().to_string()
        } else {
            "-".to_owned()
        };
        let failed: Vec<&str> = card
            .checks()
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.as_str())
            .collect();
        let mut row = vec![
            s.id.clone(),
            s.category.clone(),
            if s.passed() {
                "PASS".to_owned()
            } else {
                "FAIL".to_owned()
            },
            score,
            failed.len().to_string(),
        ];
        if result.repeat > 1 {
            row.push(format!("{}/{}", s.passed_runs(), s.runs.len()));
            row.push(s.flipping_checks().join(", "));
        }
        table.add_row(row);
    }
    table
}

fn totals_line(result: &SuiteResult) -> String {
    let passed = result.scenarios.iter().filter(|s| s.passed()).count();
    let total = result.scenarios.len();
    format!(
        "{passed}/{total} scenarios passed ({} failed)",
        total - passed
    )
}

fn write_json(path: &Path, result: &SuiteResult) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}

/// JUnit XML: one `testsuite` for the suite, one `testcase` per scenario; a failed scenario's
/// `failure` carries its verdict as the message and its Check Details as the body.
fn junit_xml(result: &SuiteResult) -> Result<String, scoring::report::ReportError> {
    let failures = result.scenarios.iter().filter(|s| !s.passed()).count();
    let total = result.scenarios.len();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"scenario-engine\" tests=\"{total}\" failures=\"{failures}\">"
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        escape(&result.suite)
    );
    for s in &result.scenarios {
        let seconds: u64 = s
            .runs
            .iter()
            .flat_map(|r| r.transcript.turns.iter().map(|(_, t)| t.latency_ms))
            .sum();
        let _ = write!(
            xml,
            "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\"",
            escape(&result.suite),
            escape(&s.category),
            escape(&format!("{}: {}", s.id, s.name)),
            seconds as f64 / 1000.0
        );
        if s.passed() {
            xml.push_str("/>\n");
            continue;
        }
        xml.push_str(">\n");
        if let Some(run) = s.runs.iter().find(|r| !r.report.card.passed()) {
            let reasons: Vec<String> = run
                .report
                .card
                .reasons()
                .iter()
                .map(ToString::to_string)
                .collect();
            let message = format!(
                "{}{}",
                reasons.join("; "),
                if result.repeat > 1 {
                    format!(" ({}/{} runs passed)", s.passed_runs(), s.runs.len())
                } else {
                    String::new()
                }
            );
            let _ = writeln!(
                xml,
                "      <failure message=\"{}\" type=\"ScenarioFailed\">{}</failure>",
                escape(&message),
                escape(&render_text(&run.report)?)
            );
        }
        xml.push_str("    </testcase>\n");
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    Ok(xml)
}

/// Escapes text for XML attributes and content, dropping characters XML 1.0 cannot carry.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("bell\u{7}line\n"), "bellline\n");
    }
}
