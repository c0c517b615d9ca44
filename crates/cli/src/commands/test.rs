//! `scenario-engine test SUITE`: runs a bot test suite and reports weighted checks per scenario.
//!
//! Composition only: the suite is loaded and run by `agents::suite`, checks are scored by
//! `scoring`, reports are rendered by `scoring::report`. This command picks the bot adapter,
//! builds the LLM client when one is needed, prints the per-scenario reports and a summary table,
//! and writes the `--json` and `--junit` files. Exit codes: 0 all scenarios passed, 1 a scenario
//! failed, 2 invalid input (suite, flags, bot settings), 3 the run itself could not start.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agents::bot::judge::LlmJudge;
use agents::bot::{Bot, BotError, BotKind, CommandBot, HttpBot, LlmBot, scripted_bot};
use agents::suite::{RunOptions, Suite, SuiteResult, SuiteScenario, load_suite, run_suite};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use llm_client::{ChatModel, Client, ClientConfig};

use crate::provider::{self, Explicit, LocalSettings, ProviderName, Resolved};
use scoring::report::render_text;

use crate::exit;

/// Flags of `test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The suite file (YAML).
    pub suite: PathBuf,
    /// Bot adapter to use instead of the suite's `bot.kind`.
    #[arg(long, value_parser = ["scripted", "llm", "http", "command"])]
    pub bot: Option<String>,
    /// Endpoint base URL of the LLM (OpenAI-compatible, up to `/v1`) for `--bot llm` / `--judge llm`
    /// (unset: `OPENAI_BASE_URL`/`OPENAI_API_KEY`, else the local model; see `crate::provider`).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Provider of the LLM bot and judge; `local` is the embedded model.
    #[arg(long, value_parser = crate::provider::ProviderName::VALUES)]
    pub provider: Option<String>,
    /// GGUF file of the local model (default: `$SCENARIO_ENGINE_MODEL`, else the fetch-model cache).
    #[arg(long)]
    pub model_path: Option<PathBuf>,
    /// llama.cpp built-in chat template for a GGUF without one (e.g. `gemma`).
    #[arg(long)]
    pub chat_template: Option<String>,
    /// Model of the LLM bot and judge (default: the suite's `bot.llm.model`).
    #[arg(long)]
    pub model: Option<String>,
    /// Environment variable holding the API key.
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Write all results (transcripts and score cards) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write JUnit XML (one testcase per scenario) to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Run every scenario N times and report pass rates and flipping checks.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Only scenarios whose id, name, category or tag contains this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Any failed check fails its scenario.
    #[arg(long)]
    pub strict: bool,
    /// Passing score (0–100), overriding the suite's.
    #[arg(long)]
    pub threshold: Option<u32>,
    /// Decide shouldAskFor/shouldWarn/shouldReject with an LLM judge.
    #[arg(long, value_parser = ["llm"])]
    pub judge: Option<String>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
}

/// Runs the command; returns the exit code.
pub fn execute(args: Args) -> u8 {
    if args.repeat == 0 || args.concurrency == 0 {
        eprintln!("error: --repeat and --concurrency must be at least 1");
        return exit::INVALID_INPUT;
    }
    if args.threshold.is_some_and(|t| t > 100) {
        eprintln!("error: --threshold must be between 0 and 100");
        return exit::INVALID_INPUT;
    }
    let suite = match load_suite(&args.suite) {
        Ok(suite) => suite,
        Err(e) => {
            eprintln!("{e}");
            return exit::INVALID_INPUT;
        }
    };
    let kind = match args.bot.as_deref().map(str::parse::<BotKind>).transpose() {
        Ok(kind) => kind.unwrap_or(suite.bot.kind),
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID_INPUT;
        }
    };
    super::block_on(run(args, suite, kind))
}

/// Resolves and builds the LLM of `--bot llm` / `--judge llm` (see `crate::provider`).
fn build_model(args: &Args, suite: &Suite) -> Result<(Arc<dyn ChatModel>, String, usize), String> {
    let provider = args
        .provider
        .as_deref()
        .map(|p| serde_json::from_value::<ProviderName>(serde_json::Value::from(p)))
        .transpose()
        .map_err(|e| format!("--provider: {e}"))?;
    let explicit = Explicit {
        provider,
        base_url: args.base_url.clone(),
        api_key_env: args.api_key_env.clone(),
        api_version: None,
        local: LocalSettings {
            model_path: args.model_path.clone(),
            chat_template: args.chat_template.clone(),
            ..LocalSettings::default()
        },
    };
    let resolved = provider::resolve_from_env(&explicit).map_err(|e| e.to_string())?;
    eprintln!("{}", resolved.describe());
    let (concurrency, note) = provider::cap_concurrency(&resolved, args.concurrency);
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let configured = args.model.clone().or_else(|| suite.bot.llm.model.clone());
    match &resolved {
        Resolved::Remote { config, .. } => {
            let name =
                configured.ok_or("no model: pass --model or set bot.llm.model in the suite")?;
            let mut cfg = ClientConfig::openai_compatible(config.base_url.clone());
            cfg.provider = config.clone();
            let client = Client::new(cfg).map_err(|e| e.to_string())?;
            Ok((Arc::new(client), name, concurrency))
        }
        Resolved::Local {
            model_path,
            settings,
            ..
        } => {
            let model = provider::load_local(model_path, settings).map_err(|e| e.to_string())?;
            // The embedded model answers whatever name is asked for; name the file instead of a
            // remote model the suite may mention.
            let name = model_path
                .file_stem()
                .map_or_else(|| "local".to_owned(), |s| s.to_string_lossy().into_owned());
            Ok((model, name, concurrency))
        }
    }
}

async fn run(mut args: Args, suite: Suite, kind: BotKind) -> u8 {
    let needs_model = kind == BotKind::Llm || args.judge.is_some();
    let model: Option<(Arc<dyn ChatModel>, String)> = if needs_model {
        match build_model(&args, &suite) {
            Ok((model, name, concurrency)) => {
                args.concurrency = concurrency;
                Some((model, name))
            }
            Err(e) => {
                eprintln!("error: {e}");
                return exit::INVALID_INPUT;
            }
        }
    } else {
        None
    };
    if kind == BotKind::Http && suite.bot.http.is_none() {
        eprintln!("error: --bot http needs a `bot.http` section in the suite");
        return exit::INVALID_INPUT;
    }
    if kind == BotKind::Command && suite.bot.command.is_none() {
        eprintln!("error: --bot command needs a `bot.command` section in the suite");
        return exit::INVALID_INPUT;
    }
    let bot_model = model.clone();
    let spec = suite.bot.clone();
    let factory = move |scenario: &SuiteScenario| -> Result<Box<dyn Bot>, BotError> {
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
        concurrency: args.concurrency,
        filter: args.filter.clone(),
        strict: args.strict.then_some(true),
        threshold: args.threshold,
        judge: model
            .filter(|_| args.judge.is_some())
            .map(|(model, model_name)| LlmJudge { model, model_name }),
    };
    let result = run_suite(&suite, &factory, &opts).await;
    if result.scenarios.is_empty() {
        eprintln!(
            "error: no scenario matches the filter {:?}",
            args.filter.unwrap_or_default()
        );
        return exit::INVALID_INPUT;
    }
    match print_reports(&result) {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("error: {e}");
            return exit::RUN_FAILURE;
        }
    }
    println!("{}", summary_table(&result));
    println!("{}", totals_line(&result));
    if let Some(path) = &args.json
        && let Err(e) = write_json(path, &result)
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return exit::RUN_FAILURE;
    }
    if let Some(path) = &args.junit {
        let xml = match junit_xml(&result) {
            Ok(xml) => xml,
            Err(e) => {
                eprintln!("error: {e}");
                return exit::RUN_FAILURE;
            }
        };
        if let Err(e) = std::fs::write(path, xml) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return exit::RUN_FAILURE;
        }
    }
    if result.passed() {
        exit::OK
    } else {
        exit::FAILED
    }
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
