//! One module per subcommand; each exposes `Args` (clap) and `execute(Args)`, returning a
//! [`CommandResult`] that `main` turns into the exit code. This module holds the flag groups
//! several commands share, so every flag is defined once.

pub(crate) mod audit_judges;
pub(crate) mod diff;
pub(crate) mod export;
pub(crate) mod generate;
pub(crate) mod merge;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod scenarios;
pub(crate) mod schema;
pub(crate) mod tasks;
pub(crate) mod test;
pub(crate) mod view;

use std::path::PathBuf;

use agents::settings::provider::ProviderName;
use bottest::bot::BotKind;
use runlog::RatioJudgeMode;

use crate::error::{CliError, CommandResult};
use crate::settings::FlagOverrides;

/// Runs an async command body on a multi-threaded runtime.
///
/// # Errors
/// The command's error, or a run failure when the runtime cannot start.
pub(crate) fn block_on(command: impl std::future::Future<Output = CommandResult>) -> CommandResult {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::run(format!("cannot start the async runtime: {e}")))?
        .block_on(command)
}

/// The model-endpoint flags shared by the commands that call a model (`run`, `audit-judges`,
/// `test`); each overrides the config's `run:` section and the environment.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct EndpointArgs {
    /// Requests in flight at once (for `test`: scenarios run at once).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub concurrency: Option<u64>,
    /// Endpoint base URL (OpenAI-compatible: up to `/v1`); repeat it for a fleet of servers.
    #[arg(long, value_name = "URL")]
    pub base_url: Vec<String>,
    /// Model for every agent (per-agent models come from settings).
    #[arg(long)]
    pub model: Option<String>,
    /// Environment variable holding the API key (never the key itself).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Provider; unset: `OPENAI_BASE_URL`/`OPENAI_API_KEY`, else the embedded model.
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// GGUF file of the local model (default: `$SCENARIO_ENGINE_MODEL`, else the fetch-model cache).
    #[arg(long, value_name = "FILE")]
    pub model_path: Option<PathBuf>,
    /// llama.cpp built-in chat template for a GGUF without one (e.g. `gemma`).
    #[arg(long, value_name = "NAME")]
    pub chat_template: Option<String>,
    /// Local model: requests decoded together (default two per core, 2 to 8).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub local_slots: Option<u32>,
    /// Requests per minute cap.
    #[arg(long)]
    pub rpm: Option<u32>,
    /// Tokens per minute cap.
    #[arg(long)]
    pub tpm: Option<u64>,
    /// Structured output: negotiate (`auto`), or force one mode.
    #[arg(long, value_name = "MODE", value_parser = ["auto", "json_schema", "json_object", "tool", "prompt"])]
    pub structured_mode: Option<String>,
}

impl EndpointArgs {
    /// Sets the flags that were given as settings overrides.
    pub(crate) fn apply(&self, f: &mut FlagOverrides) {
        f.set("concurrency", self.concurrency);
        f.set(
            "base_url",
            Some(self.base_url.clone()).filter(|u| !u.is_empty()),
        );
        f.set("model", self.model.clone());
        f.set("api_key_env", self.api_key_env.clone());
        f.set(
            "provider",
            self.provider.map(|p| ProviderName::from(p).as_str()),
        );
        f.set(
            "local.model_path",
            self.model_path.as_ref().map(|p| p.display().to_string()),
        );
        f.set("local.chat_template", self.chat_template.clone());
        f.set("local.slots", self.local_slots.map(u64::from));
        f.set("rpm", self.rpm.map(u64::from));
        f.set("tpm", self.tpm);
        f.set("structured_mode", self.structured_mode.clone());
    }
}

/// How the pipeline's judges decide, shared by `run` and `audit-judges`.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct JudgingArgs {
    /// Accept threshold: a weighted judge score (0–10) at or above it accepts a batch.
    #[arg(long, value_name = "SCORE", value_parser = accept_threshold)]
    pub threshold: Option<f64>,
    /// How the ratio score is obtained.
    #[arg(long, value_enum)]
    pub ratio_judge: Option<RatioJudge>,
}

impl JudgingArgs {
    /// The settings overrides of the model and judging flags, the base of every command that
    /// runs the pipeline's agents.
    #[must_use]
    pub(crate) fn overrides_with(&self, endpoint: &EndpointArgs) -> FlagOverrides {
        let mut f = FlagOverrides::default();
        endpoint.apply(&mut f);
        self.apply(&mut f);
        f
    }

    /// Sets the flags that were given as settings overrides.
    pub(crate) fn apply(&self, f: &mut FlagOverrides) {
        f.set("threshold", self.threshold);
        f.set(
            "ratio_judge",
            self.ratio_judge.map(|r| RatioJudgeMode::from(r).name()),
        );
    }
}

/// clap value parser of `--threshold` (the accept threshold, 0–10), in every command that has it.
///
/// # Errors
/// Not a number within 0–10.
pub(crate) fn accept_threshold(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(t) if (0.0..=10.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "`{text}` is not an accept threshold: a judge score within 0–10"
        )),
    }
}

/// `--ratio-judge`: the values of [`RatioJudgeMode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RatioJudge {
    /// Measured from the text: deterministic, no call.
    Measured,
    /// The LLM judge only.
    Llm,
    /// The mean of both.
    Hybrid,
}

impl From<RatioJudge> for RatioJudgeMode {
    fn from(value: RatioJudge) -> Self {
        match value {
            RatioJudge::Measured => Self::Measured,
            RatioJudge::Llm => Self::Llm,
            RatioJudge::Hybrid => Self::Hybrid,
        }
    }
}

/// `--provider`: the values of [`ProviderName`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// OpenAI Chat Completions and compatible servers.
    #[value(name = "openai")]
    OpenAi,
    /// Azure OpenAI.
    Azure,
    /// Anthropic Messages.
    Anthropic,
    /// The embedded llama.cpp model (feature `local-llm`).
    Local,
}

impl From<Provider> for ProviderName {
    fn from(value: Provider) -> Self {
        match value {
            Provider::OpenAi => Self::OpenAi,
            Provider::Azure => Self::Azure,
            Provider::Anthropic => Self::Anthropic,
            Provider::Local => Self::Local,
        }
    }
}

/// `test --bot`: the values of [`BotKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Bot {
    /// Canned replies from the suite.
    Scripted,
    /// An LLM with the suite's agents as tools.
    Llm,
    /// An HTTP endpoint (`bot.http`).
    Http,
    /// A process speaking JSON lines (`bot.command`).
    Command,
}

impl From<Bot> for BotKind {
    fn from(value: Bot) -> Self {
        match value {
            Bot::Scripted => Self::Scripted,
            Bot::Llm => Self::Llm,
            Bot::Http => Self::Http,
            Bot::Command => Self::Command,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    fn name(v: &impl ValueEnum) -> String {
        v.to_possible_value()
            .map(|p| p.get_name().to_owned())
            .unwrap_or_default()
    }

    /// The flag spellings are the libraries' spellings: each value parses back to its variant.
    #[test]
    fn flag_values_are_the_library_names() {
        for v in RatioJudge::value_variants() {
            assert_eq!(
                name(v).parse::<RatioJudgeMode>(),
                Ok(RatioJudgeMode::from(*v))
            );
        }
        for v in Bot::value_variants() {
            assert_eq!(name(v).parse::<BotKind>(), Ok(BotKind::from(*v)));
        }
        for v in Provider::value_variants() {
            let json = serde_json::to_value(ProviderName::from(*v)).expect("serialises");
            assert_eq!(json.as_str(), Some(name(v).as_str()));
            assert_eq!(ProviderName::from(*v).as_str(), name(v));
        }
    }

    #[test]
    fn the_accept_threshold_is_a_judge_score() {
        assert_eq!(accept_threshold("7.5"), Ok(7.5));
        assert_eq!(accept_threshold("10"), Ok(10.0));
        let err = accept_threshold("70").expect_err("a pass score is not a judge score");
        assert!(err.contains("0–10"), "{err}");
        assert!(accept_threshold("high").is_err());
    }
}
