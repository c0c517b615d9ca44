//! `RunSettings`: everything a pipeline run can be told, and how the layers combine; and
//! [`provider`], the rules that choose the model that answers.
//!
//! Layers, later wins: built-in defaults → the config file's `run:` section → the application's
//! environment variables `<PREFIX>__<KEY>` (nested keys joined with `__`) → its command-line
//! flags ([`AppLayers`] names both, so no application name lives here). The merge is done by
//! the `config` crate; a value of the wrong type or an unknown key is an error naming the key.

pub mod provider;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::judges::{JudgeSpec, MAX_TEMPERATURE, UserJudge, check_spec};
use crate::{AgentSet, AgentSettings, PerAgent, Pipeline, PipelineSettings};
use llm_client::{ClientConfig, Limits, PriceTable, ProviderConfig, RetryPolicy, StructuredMode};
use runlog::{AgentKind, RatioJudgeMode};
use scoring::{JudgeWeights, WeightError};

use provider::{BaseUrls, Explicit, LocalSettings, ProviderName};

/// Per-agent overrides; unset fields fall back to the run-wide `model` and built-in defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct AgentOverride {
    /// Model (for Azure: deployment) for this agent.
    pub model: Option<String>,
    /// Sampling temperature, within 0–2.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 2)))]
    pub temperature: Option<f32>,
    /// Cap on the reply's tokens (at least 1).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_tokens: Option<u32>,
    /// A minijinja template file replacing the built-in prompt.
    pub prompt: Option<PathBuf>,
}

/// Overrides for each of the six agents (any may be left out).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct AgentOverrides {
    /// The generator.
    pub generator: AgentOverride,
    /// The fluency judge.
    pub fluency: AgentOverride,
    /// The naturalness judge.
    pub naturalness: AgentOverride,
    /// The cs-ratio judge.
    pub cs_ratio: AgentOverride,
    /// The socio-cultural judge.
    pub socio_cultural: AgentOverride,
    /// The refiner.
    pub refiner: AgentOverride,
}

impl AgentOverrides {
    /// The overrides addressed by agent kind.
    fn per_agent(&self) -> PerAgent<&AgentOverride> {
        PerAgent {
            generator: &self.generator,
            fluency: &self.fluency,
            naturalness: &self.naturalness,
            cs_ratio: &self.cs_ratio,
            socio_cultural: &self.socio_cultural,
            refiner: &self.refiner,
        }
    }
}

/// The response cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct CacheSettings {
    /// On by default: re-running unfinished work costs nothing for calls already answered.
    pub enabled: bool,
    /// Cache directory; default: the application's (next to the output file).
    pub dir: Option<PathBuf>,
    /// A journal of the responses cached for each scenario, read back at start
    /// ([`llm_client::ClientConfig::cache_journal`]): set by an application whose cache folder
    /// does not outlive the process (a task on an object store), never by a config.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub journal: Option<PathBuf>,
}

impl Default for CacheSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            dir: None,
            journal: None,
        }
    }
}

/// The endpoint's circuit breaker (see [`llm_client::FleetPolicy`]): after `trip_after`
/// connection failures, timeouts or 5xx in a row an endpoint leaves the rotation; with none
/// left, calls wait up to `probe_for` while it is checked every `probe_every`, then the run stops
/// with the scenarios not written still to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct BreakerSettings {
    /// Failures in a row that take an endpoint out (default 5; 0: never).
    pub trip_after: u32,
    /// How long a run with no endpoint left waits for one (default 25 s).
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub probe_for: Duration,
    /// How often an endpoint out of the rotation is checked (default 1 s).
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub probe_every: Duration,
    /// How long a call waits for its reply before its endpoint gets a liveness probe (`GET
    /// /models` within 5 s); an endpoint that does not answer it is hung and leaves the rotation
    /// at once (default 10 s; 0: never probed). A slow model that answers the probe is left
    /// alone up to `read_timeout`.
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub liveness_after: Duration,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        let policy = llm_client::FleetPolicy::default();
        Self {
            trip_after: policy.trip_after,
            probe_for: policy.probe_for,
            probe_every: policy.probe_every,
            liveness_after: policy.liveness_after,
        }
    }
}

/// Loads a config ([`scenarios::load_config`]) and checks its `run:` section as settings, so a
/// mistake there is reported like any other config mistake: `file:line:column`, the key, a
/// hint (a did-you-mean for an unknown key, the allowed values of an enum), exit 2 in the CLI.
/// Later layers (environment, flags) can still override what the file says.
///
/// # Errors
/// The [`scenarios::ConfigError`] of the config, or of its `run:` section.
pub fn load_config(
    path: &std::path::Path,
) -> Result<scenarios::ScenarioConfig, scenarios::ConfigError> {
    /// The `run:` section read as settings, every other key ignored.
    #[derive(Deserialize)]
    struct RunSectionOnly {
        #[serde(default)]
        #[allow(dead_code)] // read to be checked
        run: Option<RunSettings>,
        #[serde(flatten)]
        #[allow(dead_code)]
        rest: BTreeMap<String, serde::de::IgnoredAny>,
    }
    // Read once: the config, its `run:` section and the location of an error all come from
    // the same text.
    let text = scenarios::read_text(path)?;
    let config = scenarios::parse_config(path, &text)?;
    if config.run.is_some()
        && let Some(run) = scenarios::parse_document::<RunSectionOnly>(path, &text)?.run
        && let Err(SettingsError {
            key: Some(key),
            reason,
            hint,
        }) = run.validate()
    {
        // A value of the right type but out of range (`threshold: 42`): located at its key.
        let map = scenarios::SourceMap::build(path, &text);
        // A nested key (`gate.min_switch_points`) is located segment by segment.
        let at: Vec<scenarios::KeySeg> = std::iter::once("run")
            .chain(key.split('.'))
            .map(|k| scenarios::KeySeg::Key(k.to_owned()))
            .collect();
        let error = map.error(&at, format!("`{key}` {reason}"));
        return Err(match hint {
            Some(hint) => error.with_hint(hint),
            None => error,
        });
    }
    if config.run.is_some()
        && let Some(run) = scenarios::parse_document::<RunSectionOnly>(path, &text)?.run
        && let Some(tools) = &run.tools
        && let Some((argument, parameter)) = tools.unknown_parameter(&config.space)
    {
        // An argument naming a parameter no scenario has would fail every scenario: said at load.
        let map = scenarios::SourceMap::build(path, &text);
        let at: Vec<scenarios::KeySeg> = ["run", "tools", "arguments", argument.as_str()]
            .iter()
            .map(|k| scenarios::KeySeg::Key((*k).to_owned()))
            .collect();
        return Err(map
            .error(
                &at,
                format!("`tools.arguments.{argument}` names `{{{parameter}}}`, which is not a parameter of the config's scenarios"),
            )
            .with_hint("a `{name}` in a tool argument is a scenario parameter (an axis, a fixed value, a merge axis's key); write `{{` for a literal brace"));
    }
    Ok(config)
}

/// File name, in the cache directory, of the structured-output modes learnt per endpoint.
pub const MODES_FILE: &str = "structured-modes.json";

/// The `structured_mode` setting: negotiate, or force one mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StructuredModeSetting {
    /// Try the provider's best mode; fall back when the server rejects it.
    #[default]
    Auto,
    /// `response_format: json_schema` (strict).
    JsonSchema,
    /// `response_format: json_object` with the schema in the prompt.
    JsonObject,
    /// A forced tool call whose parameters are the schema.
    Tool,
    /// The schema described in the prompt only.
    Prompt,
}

impl StructuredModeSetting {
    /// The forced mode, `None` for `auto`.
    #[must_use]
    pub const fn forced(self) -> Option<StructuredMode> {
        match self {
            Self::Auto => None,
            Self::JsonSchema => Some(StructuredMode::JsonSchema),
            Self::JsonObject => Some(StructuredMode::JsonObject),
            Self::Tool => Some(StructuredMode::ToolCall),
            Self::Prompt => Some(StructuredMode::Prompt),
        }
    }
}

/// Every setting of a run. See the module docs for the layering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct RunSettings {
    /// `openai` (and compatible servers), `azure`, `anthropic`, or `local` (the embedded
    /// model). Unset: resolved as [`provider`] documents (never a silent default).
    pub provider: Option<ProviderName>,
    /// Endpoint base URL, e.g. `https://api.openai.com/v1`; setting it selects that endpoint.
    /// A list is a fleet of OpenAI-compatible servers of the same models (docs/scale-out.md).
    pub base_url: Option<BaseUrls>,
    /// The embedded model's settings (`provider: local`).
    pub local: LocalSettings,
    /// Name of the environment variable holding the API key (never the key itself).
    pub api_key_env: String,
    /// Azure `api-version` / Anthropic version header.
    pub api_version: Option<String>,
    /// The model every agent uses unless `agents.<name>.model` says otherwise.
    pub model: String,
    /// Per-agent model, temperature, max_tokens and prompt file.
    pub agents: AgentOverrides,
    /// Requests in flight at once (the transport's limit; also the scenarios in flight).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub concurrency: usize,
    /// Requests per minute cap.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub rpm: Option<u32>,
    /// Tokens per minute cap.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub tpm: Option<u64>,
    /// Judge weights by name (fluency, naturalness, cs_ratio, socio_cultural, and the judges
    /// declared under `judges`).
    pub weights: BTreeMap<String, f64>,
    /// Judges beside the four built-in ones, by name: each a prompt template, the reply's score
    /// field (0–10) and reason field, a weight (docs/config.md, "Your own judges").
    pub judges: BTreeMap<String, JudgeSpec>,
    /// The MCP tool server that grounds scenarios with `use_tools: true` in an article
    /// (docs/config.md, "Grounding"); unset, such scenarios are generated ungrounded and say so.
    pub tools: Option<crate::grounding::ToolsSettings>,
    /// Accept at a weighted score ≥ this.
    pub threshold: f64,
    /// Refinements after the first attempt.
    pub max_refinements: u32,
    /// How the ratio score is obtained: measured, llm or hybrid.
    pub ratio_judge: RatioJudgeMode,
    /// Fewest usable texts per batch.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub min_instances: u32,
    /// Most texts per batch.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_instances: u32,
    /// Tries of a generator/refiner call that returns no usable batch.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub max_write_tries: u32,
    /// Sampling seed sent with every request.
    pub seed: Option<u64>,
    /// The deterministic accept gate: `enabled` (default true), `min_switch_points` (default 1).
    pub gate: runlog::GateSettings,
    /// Which attempt a record keeps: `last` (default) or `best`.
    pub keep: runlog::Keep,
    /// The response cache.
    pub cache: CacheSettings,
    /// Refuse to start above this estimated cost, stop dispatching when the spend reaches it (USD).
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub budget: Option<f64>,
    /// `run --batch`: scenarios live at once; memory is bounded by it, and each wave holds
    /// about this many scenarios' calls (default 2,000).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub batch_window: usize,
    /// USD per million tokens by model (prefix match), added to the built-in table.
    pub prices: BTreeMap<String, llm_client::ModelPrice>,
    /// Transport retries (`max_retries`, `base_delay`, `max_delay`).
    pub retry: RetryPolicy,
    /// How structured output is asked for: `auto` (negotiate, falling back when the server
    /// rejects a mode), or one forced mode: `json_schema`, `json_object`, `tool`, `prompt`.
    pub structured_mode: StructuredModeSetting,
    /// Per-request read timeout.
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub read_timeout: Duration,
    /// Check that the endpoint answers (its model list, else a one-token call) before the
    /// first paid call (default true).
    pub preflight: bool,
    /// The endpoints' circuit breaker.
    pub breaker: BreakerSettings,
    /// The JSONL output file.
    pub output: Option<PathBuf>,
    /// How often a task of a run directory on an object store uploads its part as its
    /// checkpoint (while the part grows; and once more when the task stops short).
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "llm_client::duration_schema")
    )]
    pub checkpoint_every: Duration,
    /// How long a task's lease on an object store stands for a live task without renewal (it
    /// is renewed every quarter of this): `status` shows a task with a live lease as running,
    /// and a second copy waits for it.
    #[serde(with = "stdx::duration_serde")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "lease_ttl_schema"))]
    pub lease_ttl: Duration,
}

/// `lease_ttl`: a duration of at least 2 s (a number of milliseconds at least 2000, or text the
/// loader checks).
#[cfg(feature = "schema")]
fn lease_ttl_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut schema = llm_client::duration_schema(generator);
    schema.insert("minimum".into(), 2000.into());
    schema
}

impl Default for RunSettings {
    fn default() -> Self {
        let provider = ProviderConfig::default();
        let pipeline = PipelineSettings::default();
        Self {
            provider: None,
            base_url: None,
            local: LocalSettings::default(),
            api_key_env: provider.api_key_env,
            api_version: None,
            model: "gpt-4o-mini".into(),
            agents: AgentOverrides::default(),
            concurrency: 16,
            rpm: None,
            tpm: None,
            weights: JudgeWeights::default().0,
            judges: BTreeMap::new(),
            tools: None,
            threshold: pipeline.threshold,
            max_refinements: pipeline.max_refinements,
            ratio_judge: pipeline.ratio_judge,
            min_instances: pipeline.min_instances,
            max_instances: pipeline.max_instances,
            max_write_tries: pipeline.max_write_tries,
            seed: None,
            gate: pipeline.gate,
            keep: pipeline.keep,
            cache: CacheSettings::default(),
            budget: None,
            batch_window: crate::batch::DEFAULT_BATCH_WINDOW,
            prices: BTreeMap::new(),
            retry: RetryPolicy::default(),
            structured_mode: StructuredModeSetting::Auto,
            read_timeout: provider.read_timeout,
            preflight: true,
            breaker: BreakerSettings::default(),
            output: None,
            checkpoint_every: Duration::from_secs(30),
            lease_ttl: Duration::from_secs(90),
        }
    }
}

/// Bad settings: the key at fault, when one is, and why.
#[derive(Debug, thiserror::Error)]
#[error("invalid run settings: {}{reason}{}", key.as_deref().map(|k| format!("{k}: ")).unwrap_or_default(), hint.as_deref().map(|h| format!(" (hint: {h})")).unwrap_or_default())]
pub struct SettingsError {
    /// The settings key (`threshold`, `gate.min_switch_points`), when one is at fault.
    pub key: Option<String>,
    /// Why, in words.
    pub reason: String,
    /// What to do about it, when there is more to say than the reason.
    pub hint: Option<String>,
}

impl SettingsError {
    /// An error of the settings as a whole.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            key: None,
            reason: reason.into(),
            hint: None,
        }
    }

    /// An error of one key.
    pub fn at(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            key: Some(key.into()),
            reason: reason.into(),
            hint: None,
        }
    }
}

/// What the application layers over the defaults and the config's `run:` section: the prefix of
/// its environment variables and the flags given on its command line (the library knows no
/// application name).
pub trait AppLayers {
    /// Prefix of the environment variables that set run settings: `<PREFIX>__<KEY>`, nested keys
    /// joined with `__` (`<PREFIX>__AGENTS__GENERATOR__MODEL`).
    fn env_prefix(&self) -> &str;
    /// Flag values by settings key (`cache.enabled`), in the order given; a later one wins.
    fn flags(&self) -> &[(&'static str, config::Value)];
}

impl RunSettings {
    /// Layers defaults, the config's `run:` section, the application's environment variables
    /// and its flags. `env` is the environment to read (the process's when `None`, a fixed map
    /// in tests).
    ///
    /// # Errors
    /// A value of the wrong type, an unknown key or an invalid value, naming the key.
    pub fn layered(
        run_section: Option<&serde_json::Value>,
        env: Option<config::Map<String, String>>,
        app: &impl AppLayers,
    ) -> Result<Self, SettingsError> {
        Self::layered_over(&RunSettings::default(), run_section, env, app)
    }

    /// As [`RunSettings::layered`], over other defaults (`test` starts from fewer scenarios in
    /// flight and no cache, so `--repeat` measures the bot rather than the cache).
    ///
    /// # Errors
    /// As [`RunSettings::layered`].
    pub fn layered_over(
        base: &RunSettings,
        run_section: Option<&serde_json::Value>,
        env: Option<config::Map<String, String>>,
        app: &impl AppLayers,
    ) -> Result<Self, SettingsError> {
        let defaults =
            config::Config::try_from(base).map_err(|e| SettingsError::new(e.to_string()))?;
        let mut builder = config::Config::builder().add_source(defaults);
        if let Some(section) = run_section {
            if !section.is_object() {
                return Err(SettingsError::new("`run` must be a mapping of settings"));
            }
            let file = config::Config::try_from(section)
                .map_err(|e| SettingsError::at("run", e.to_string()))?;
            builder = builder.add_source(file);
        }
        let mut environment = config::Environment::with_prefix(app.env_prefix())
            .prefix_separator("__")
            .separator("__")
            .try_parsing(true);
        if env.is_some() {
            environment = environment.source(env);
        }
        builder = builder.add_source(environment);
        for (key, value) in app.flags() {
            builder = builder
                .set_override(*key, value.clone())
                .map_err(|e| SettingsError::at(*key, e.to_string()))?;
        }
        let merged = builder
            .build()
            .map_err(|e| SettingsError::new(e.to_string()))?;
        let settings: RunSettings = merged
            .try_deserialize()
            .map_err(|e| SettingsError::new(e.to_string()))?;
        settings.validate()?;
        Ok(settings)
    }

    /// Gives this process its share of the rate limits when `workers` processes (the tasks of
    /// one run) use one endpoint: `rpm` and `tpm` divided by `workers`, at least 1.
    pub fn share_limits(&mut self, workers: u32) {
        if workers > 1 {
            self.rpm = self.rpm.map(|r| (r / workers).max(1));
            self.tpm = self.tpm.map(|t| (t / u64::from(workers)).max(1));
        }
    }

    /// Checks values of the right type for their range (every error names its key).
    fn validate(&self) -> Result<(), SettingsError> {
        let bad = |key: &str, msg: &str| Err(SettingsError::at(key, msg));
        if self.concurrency == 0 {
            return bad("concurrency", "must be at least 1");
        }
        if self.batch_window == 0 {
            return bad("batch_window", "must be at least 1");
        }
        if self.local.slots.is_some_and(|n| !(1..=64).contains(&n)) {
            return bad("local.slots", "must be within 1–64");
        }
        // A zero rate would never admit a request: the run would wait forever.
        if self.rpm == Some(0) {
            return bad("rpm", "must be at least 1 (leave it unset for no limit)");
        }
        if self.tpm == Some(0) {
            return bad("tpm", "must be at least 1 (leave it unset for no limit)");
        }
        if !(0.0..=10.0).contains(&self.threshold) {
            return bad("threshold", "must be within 0–10");
        }
        if let Some(b) = self.budget
            && !(b.is_finite() && b >= 0.0)
        {
            return bad("budget", "must be a non-negative number of USD");
        }
        if self.model.trim().is_empty() {
            return bad("model", "must not be empty");
        }
        if let Some(urls) = &self.base_url {
            if urls.0.is_empty() {
                return bad("base_url", "an empty list names no endpoint");
            }
            if let Some(twice) = urls.duplicate() {
                return bad("base_url", &format!("{twice} is given twice"));
            }
        }
        if self.lease_ttl < Duration::from_secs(2) {
            return bad(
                "lease_ttl",
                "must be at least 2s (a store's clock has whole seconds)",
            );
        }
        if self.max_write_tries == 0 {
            return bad(
                "max_write_tries",
                "must be at least 1 (the first try counts)",
            );
        }
        if self.min_instances == 0 || self.max_instances < self.min_instances {
            return bad("min_instances", "need 1 ≤ min_instances ≤ max_instances");
        }
        if self.gate.min_switch_points == 0 {
            return bad(
                "gate.min_switch_points",
                "must be at least 1 (a batch without a switch is not code-switched; turn the \
                 gate off with `gate: {enabled: false}`)",
            );
        }
        self.validate_agent_sampling()?;
        self.validate_judges()?;
        if let Some((key, reason, hint)) = self
            .tools
            .as_ref()
            .and_then(crate::grounding::ToolsSettings::problem)
        {
            return Err(SettingsError {
                hint: Some(hint.to_owned()),
                ..SettingsError::at(format!("tools.{key}"), reason)
            });
        }
        self.validate_weights()?;
        // A prompt override is read when the pipeline is built: a missing file is named here,
        // at its key, before anything runs.
        for kind in AgentKind::ALL {
            if let Some(path) = &self.agents.per_agent().get(kind).prompt
                && let Err(e) = crate::prompts::read_prompt_file(path)
            {
                return bad(
                    &format!("agents.{}.prompt", kind.name()),
                    &format!(
                        "names {}, which cannot be read ({e}); a path is taken from the \
                         directory the command runs in",
                        path.display()
                    ),
                );
            }
        }
        Ok(())
    }

    /// Checks the declared judges ([`check_spec`]) and that every weight names a built-in judge
    /// (a declared judge's weight is its own `weight`, so it is given in one place).
    fn validate_judges(&self) -> Result<(), SettingsError> {
        for (name, spec) in &self.judges {
            check_spec(name, spec).map_err(|p| SettingsError {
                key: Some(p.key),
                reason: p.reason,
                hint: p.hint,
            })?;
        }
        let builtin = AgentKind::JUDGES.map(AgentKind::weight_name);
        if let Some(name) = self.weights.keys().find(|n| !builtin.contains(&n.as_str())) {
            let declared = self.judges.keys().map(String::as_str);
            let hint = if self.judges.contains_key(name) {
                format!("a declared judge's weight is `judges.{name}.weight` (default 1)")
            } else if let Some(near) = stdx::closest(name, builtin.into_iter().chain(declared)) {
                format!("did you mean `{near}`?")
            } else {
                format!(
                    "`weights` names the built-in judges; declare your own under `judges:` with \
                     its weight, e.g. `judges: {{{name}: {{prompt: …, score_field: \
                     {name}_score, weight: 1}}}}`"
                )
            };
            return Err(SettingsError {
                hint: Some(hint),
                ..SettingsError::at(
                    format!("weights.{name}"),
                    "is no built-in judge (fluency, naturalness, cs_ratio, socio_cultural)",
                )
            });
        }
        Ok(())
    }

    /// The weights of the full judge set (the built-in ones and every declared judge's, default
    /// 1): what the weighted score divides by, so "all zero" means all of them. Each error is at
    /// the key that holds the weight at fault.
    fn validate_weights(&self) -> Result<(), SettingsError> {
        let mut all = self.weights.clone();
        for (name, spec) in &self.judges {
            all.insert(name.clone(), spec.weight.unwrap_or(1.0));
        }
        let key_of = |name: &str| {
            if self.judges.contains_key(name) {
                format!("judges.{name}.weight")
            } else {
                format!("weights.{name}")
            }
        };
        // Σw·s with every score 10 must stay finite, or every weighted score would fail.
        let overflows = !(all.values().sum::<f64>() * 10.0).is_finite();
        match JudgeWeights::new(all.clone()).and_then(|w| {
            if overflows {
                Err(WeightError::Overflow)
            } else {
                Ok(w)
            }
        }) {
            Ok(_) => Ok(()),
            Err(e) => {
                let key = match &e {
                    WeightError::Negative(name) => key_of(name),
                    WeightError::Overflow => all
                        .iter()
                        .max_by(|a, b| a.1.total_cmp(b.1))
                        .map_or_else(|| "weights".to_owned(), |(n, _)| key_of(n)),
                    _ => "weights".to_owned(),
                };
                let reason = match e {
                    WeightError::AllZero => "are all zero, the built-in judges' (`weights`) and \
                                             the declared judges' (`judges.<name>.weight`): \
                                             the weighted score would divide by zero"
                        .to_owned(),
                    other => other.to_string(),
                };
                Err(SettingsError::at(key, reason))
            }
        }
    }

    /// The built-in agents' sampling settings are within range (as a declared judge's).
    fn validate_agent_sampling(&self) -> Result<(), SettingsError> {
        let overrides = self.agents.per_agent();
        for kind in AgentKind::ALL {
            let o = overrides.get(kind);
            if let Some(t) = o.temperature
                && !(t.is_finite() && (0.0..=MAX_TEMPERATURE).contains(&t))
            {
                return Err(SettingsError::at(
                    format!("agents.{}.temperature", kind.name()),
                    format!("is {t}: it must be within 0–{MAX_TEMPERATURE}"),
                ));
            }
            if o.max_tokens == Some(0) {
                return Err(SettingsError::at(
                    format!("agents.{}.max_tokens", kind.name()),
                    "is 0: the agent could not reply",
                ));
            }
        }
        Ok(())
    }

    /// The declared judges as the pipeline holds them: templates read, weights and models
    /// resolved (judges' defaults: temperature 0, 512 tokens).
    fn user_judges(&self) -> Result<(Vec<UserJudge>, BTreeMap<String, f64>), SettingsError> {
        let base = AgentSet::uniform(&self.model).fluency;
        let mut weights = self.weights.clone();
        let mut judges = Vec::with_capacity(self.judges.len());
        for (name, spec) in &self.judges {
            let template = check_spec(name, spec).map_err(|p| SettingsError {
                key: Some(p.key),
                reason: p.reason,
                hint: p.hint,
            })?;
            weights.insert(name.clone(), spec.weight.unwrap_or(1.0));
            judges.push(UserJudge {
                name: name.as_str().into(),
                template,
                file: spec.prompt_file.clone(),
                score_field: spec
                    .score_field
                    .clone()
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
                reason_field: spec.reason_field.as_ref().map(|r| r.trim().to_owned()),
                settings: AgentSettings {
                    model: spec.model.clone().unwrap_or_else(|| base.model.clone()),
                    temperature: spec.temperature.or(base.temperature),
                    max_tokens: spec.max_tokens.or(base.max_tokens),
                    prompt: None,
                },
            });
        }
        Ok((judges, weights))
    }

    /// The pipeline's settings.
    pub fn pipeline(&self) -> Result<PipelineSettings, SettingsError> {
        let base = AgentSet::uniform(&self.model);
        let mut agents = base.clone();
        let overrides = self.agents.per_agent();
        for kind in AgentKind::ALL {
            let o = overrides.get(kind);
            let b = base.get(kind);
            *agents.get_mut(kind) = AgentSettings {
                model: o.model.clone().unwrap_or_else(|| b.model.clone()),
                temperature: o.temperature.or(b.temperature),
                max_tokens: o.max_tokens.or(b.max_tokens),
                prompt: o.prompt.clone(),
            };
        }
        let (judges, weights) = self.user_judges()?;
        Ok(PipelineSettings {
            agents,
            weights: JudgeWeights::new(weights)
                .map_err(|e| SettingsError::at("weights", e.to_string()))?,
            judges,
            threshold: self.threshold,
            max_refinements: self.max_refinements,
            max_write_tries: self.max_write_tries,
            min_instances: self.min_instances,
            max_instances: self.max_instances,
            ratio_judge: self.ratio_judge,
            seed: self.seed,
            gate: self.gate,
            keep: self.keep,
            tools: self.tools.clone(),
        })
    }

    /// The pipeline these settings describe, its prompts compiled.
    ///
    /// # Errors
    /// Invalid weights, or a prompt override that cannot be read or compiled.
    pub fn build_pipeline(&self) -> Result<Pipeline, SettingsError> {
        Pipeline::new(self.pipeline()?).map_err(|e| SettingsError::new(e.to_string()))
    }

    /// The price table: built-in prices plus `prices`.
    #[must_use]
    pub fn price_table(&self) -> PriceTable {
        let mut table = PriceTable::default();
        for (model, price) in &self.prices {
            table.insert(model.clone(), *price);
        }
        table
    }

    /// What the user configured about the provider, for [`provider::resolve`].
    #[must_use]
    pub fn explicit_provider(&self) -> Explicit {
        Explicit {
            provider: self.provider,
            base_urls: self.base_url.clone().map(|b| b.0).unwrap_or_default(),
            api_key_env: self.api_key_env.clone(),
            api_version: self.api_version.clone(),
            local: self.local.clone(),
        }
    }

    /// The transport's configuration for a resolved remote `provider`; `default_cache_dir` is
    /// the cache directory used when the settings name none (the application decides where).
    #[must_use]
    pub fn client_config(
        &self,
        default_cache_dir: PathBuf,
        provider: &ProviderConfig,
    ) -> ClientConfig {
        let provider = ProviderConfig {
            read_timeout: self.read_timeout,
            ..provider.clone()
        };
        let cache_dir = self
            .cache
            .enabled
            .then(|| self.cache.dir.clone().unwrap_or(default_cache_dir));
        // The modes learnt per endpoint live beside the response cache, so a second run does
        // not negotiate again; with caching off they last for the run only.
        let modes_file = cache_dir.as_ref().map(|d| d.join(MODES_FILE));
        ClientConfig {
            structured_mode: self.structured_mode.forced(),
            modes_file,
            provider,
            retry: self.retry.clone(),
            limits: Limits {
                max_in_flight: self.concurrency,
                rpm: self.rpm,
                tpm: self.tpm,
                ..Limits::default()
            },
            cache_journal: cache_dir.as_ref().and(self.cache.journal.clone()),
            cache_dir,
            prices: self.price_table(),
            fleet: llm_client::FleetPolicy {
                trip_after: self.breaker.trip_after,
                probe_for: self.breaker.probe_for,
                probe_every: self.breaker.probe_every,
                liveness_after: self.breaker.liveness_after,
                ..llm_client::FleetPolicy::default()
            },
            ..ClientConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The application's layers of these tests: prefix `APP`, some flags.
    #[derive(Default)]
    struct Flags(Vec<(&'static str, config::Value)>);

    impl AppLayers for Flags {
        fn env_prefix(&self) -> &str {
            "APP"
        }
        fn flags(&self) -> &[(&'static str, config::Value)] {
            &self.0
        }
    }

    fn env(pairs: &[(&str, &str)]) -> Option<config::Map<String, String>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn base_url_is_one_url_or_a_list_and_a_flag_list_replaces_the_file_list() {
        let section =
            serde_json::json!({"base_url": ["http://a/v1", "http://b/v1", "http://c/v1"]});
        let s = RunSettings::layered(Some(&section), env(&[]), &Flags::default()).expect("list");
        assert_eq!(
            s.explicit_provider().base_urls,
            ["http://a/v1", "http://b/v1", "http://c/v1"]
        );
        let flags = Flags(vec![(
            "base_url",
            config::Value::from(vec!["http://d/v1".to_owned()]),
        )]);
        let s = RunSettings::layered(Some(&section), env(&[]), &flags).expect("flag list");
        assert_eq!(s.explicit_provider().base_urls, ["http://d/v1"]);
        let s = RunSettings::layered(
            Some(&section),
            env(&[("APP__BASE_URL", "http://e/v1")]),
            &Flags::default(),
        )
        .expect("env string");
        assert_eq!(s.explicit_provider().base_urls, ["http://e/v1"]);
        let twice = serde_json::json!({"base_url": ["http://a/v1", "http://a/v1/"]});
        let err = RunSettings::layered(Some(&twice), env(&[]), &Flags::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid run settings: base_url: http://a/v1/ is given twice"
        );
    }

    #[test]
    fn a_declared_judge_s_weight_is_its_own_and_weights_names_the_built_in_ones() {
        let judge = |weight: Option<f64>| {
            let mut j = serde_json::json!({"prompt": "{{ instances }}", "score_field": "s"});
            if let Some(w) = weight {
                j["weight"] = w.into();
            }
            j
        };
        let layered = |section: serde_json::Value| {
            RunSettings::layered(Some(&section), env(&[]), &Flags::default())
        };
        let weight_of = |section: serde_json::Value| {
            let s = layered(section).expect("valid");
            s.pipeline().expect("pipeline").weights.get("tox")
        };
        assert_eq!(
            weight_of(serde_json::json!({"judges": {"tox": judge(None)}})),
            Some(1.0)
        );
        assert_eq!(
            weight_of(serde_json::json!({"judges": {"tox": judge(Some(2.0))}})),
            Some(2.0)
        );
        let both = serde_json::json!({"judges": {"tox": judge(Some(2.0))},
            "weights": {"fluency": 0.3, "naturalness": 0.25, "cs_ratio": 0.2,
                        "socio_cultural": 0.25, "tox": 2.0}});
        let err = layered(both).expect_err("the weight given in `weights`");
        assert_eq!(err.key.as_deref(), Some("weights.tox"));
        assert!(err.hint.is_some_and(|h| h.contains("`judges.tox.weight`")));
        let err = layered(serde_json::json!({"weights": {"fluency": 1, "toxicity": 1}}))
            .expect_err("no such judge");
        assert_eq!(err.key.as_deref(), Some("weights.toxicity"));
        assert!(err.hint.is_some_and(|h| h.contains("judges:")));
        let err = layered(serde_json::json!({"judges": {"tox": {"prompt": "{{ instances }}"}}}))
            .expect_err("no score field");
        assert_eq!(err.key.as_deref(), Some("judges.tox.score_field"));
    }

    /// The weights are checked over the full judge set: built-in weights all 0 beside a
    /// declared judge of weight 1 is a valid score (it was refused as "all weights are zero");
    /// all of them 0 is refused; weights whose sum overflows are refused at the judge's key.
    #[test]
    fn weights_are_checked_over_every_judge() {
        let zero = serde_json::json!({"fluency": 0, "naturalness": 0, "cs_ratio": 0,
            "socio_cultural": 0});
        let judge = |w: f64| {
            serde_json::json!({"prompt": "{{ instances }}", "score_field": "s",
            "weight": w})
        };
        let layered = |section: serde_json::Value| {
            RunSettings::layered(Some(&section), env(&[]), &Flags::default())
        };
        let only = layered(serde_json::json!({"weights": zero, "judges": {"tox": judge(1.0)}}))
            .expect("the declared judge carries the score");
        assert_eq!(
            only.pipeline().expect("pipeline").weights.get("tox"),
            Some(1.0)
        );
        let err = layered(serde_json::json!({"weights": zero, "judges": {"tox": judge(0.0)}}))
            .expect_err("every weight zero");
        assert_eq!(err.key.as_deref(), Some("weights"));
        assert!(err.reason.contains("all zero"), "{}", err.reason);
        let err =
            layered(serde_json::json!({"judges": {"tox": judge(1e308)}})).expect_err("overflow");
        assert_eq!(err.key.as_deref(), Some("judges.tox.weight"));
        let err = layered(serde_json::json!({"agents": {"fluency": {"temperature": 9}}}))
            .expect_err("temperature 9");
        assert_eq!(err.key.as_deref(), Some("agents.fluency.temperature"));
        let err = layered(serde_json::json!({"agents": {"refiner": {"max_tokens": 0}}}))
            .expect_err("no tokens");
        assert_eq!(err.key.as_deref(), Some("agents.refiner.max_tokens"));
    }

    #[test]
    fn layers_apply_in_order() {
        let section = serde_json::json!({"model": "file-model", "threshold": 7, "concurrency": 8,
            "agents": {"generator": {"temperature": 0.5}}});
        let flags = Flags(vec![("concurrency", 32_i64.into())]);
        let s = RunSettings::layered(
            Some(&section),
            env(&[
                ("APP__THRESHOLD", "7.5"),
                ("APP__AGENTS__FLUENCY__MODEL", "judge"),
            ]),
            &flags,
        )
        .expect("valid");
        assert_eq!(
            (s.model.as_str(), s.threshold, s.concurrency),
            ("file-model", 7.5, 32)
        );
        let p = s.pipeline().expect("pipeline");
        assert_eq!(p.agents.fluency.model, "judge");
        assert_eq!(p.agents.generator.model, "file-model");
        assert_eq!(p.agents.generator.temperature, Some(0.5));
        assert_eq!(s.max_refinements, 2, "default kept");
    }

    #[test]
    fn bad_values_name_the_key() {
        let section = serde_json::json!({"threshold": "high"});
        let err =
            RunSettings::layered(Some(&section), env(&[]), &Flags::default()).expect_err("bad");
        assert!(err.to_string().contains("threshold"), "{err}");
        let section = serde_json::json!({"concurency": 3});
        let err =
            RunSettings::layered(Some(&section), env(&[]), &Flags::default()).expect_err("bad");
        assert!(err.to_string().contains("concurency"), "{err}");
        let section = serde_json::json!({"threshold": 12});
        let err =
            RunSettings::layered(Some(&section), env(&[]), &Flags::default()).expect_err("bad");
        assert!(err.to_string().contains("threshold"), "{err}");
    }

    #[test]
    fn local_slots_outside_1_to_64_are_refused_and_reuse_can_be_turned_off() {
        for bad in [0, 65] {
            let section = serde_json::json!({"local": {"slots": bad}});
            let err = RunSettings::layered(Some(&section), env(&[]), &Flags::default())
                .expect_err("out of range");
            assert!(err.to_string().contains("local.slots"), "{err}");
        }
        let s = RunSettings::layered(
            None,
            env(&[
                ("APP__LOCAL__SLOTS", "3"),
                ("APP__LOCAL__PREFIX_REUSE", "false"),
            ]),
            &Flags::default(),
        )
        .expect("valid");
        assert_eq!((s.local.slots(), s.local.prefix_reuse), (3, Some(false)));
    }

    #[test]
    fn zero_rate_limits_are_refused_naming_the_key() {
        let err = RunSettings::layered(None, env(&[("APP__TPM", "0")]), &Flags::default())
            .expect_err("tpm 0 would never admit a request");
        assert!(err.to_string().contains("tpm"), "{err}");
        let flags = Flags(vec![("rpm", 0_i64.into())]);
        let err = RunSettings::layered(None, env(&[]), &flags).expect_err("rpm 0");
        assert!(err.to_string().contains("rpm"), "{err}");
        let flags = Flags(vec![("rpm", 1_i64.into()), ("tpm", 1_i64.into())]);
        assert!(RunSettings::layered(None, env(&[]), &flags).is_ok());
    }

    #[test]
    fn durations_take_the_workspace_syntax_everywhere() {
        let section = serde_json::json!({"read_timeout": "1m30s", "retry": {"max_delay": "1m30s"}});
        let s = RunSettings::layered(Some(&section), env(&[]), &Flags::default()).expect("valid");
        assert_eq!(s.read_timeout, Duration::from_secs(90));
        assert_eq!(s.retry.max_delay, Duration::from_secs(90));
        let s = RunSettings::layered(
            None,
            env(&[("APP__READ_TIMEOUT", "2500")]),
            &Flags::default(),
        )
        .expect("valid");
        assert_eq!(s.read_timeout, Duration::from_millis(2500));
    }

    #[test]
    fn other_defaults_stay_below_every_layer() {
        let base = RunSettings {
            concurrency: 4,
            ..RunSettings::default()
        };
        let s = RunSettings::layered_over(&base, None, env(&[]), &Flags::default()).expect("valid");
        assert_eq!(s.concurrency, 4);
        let section = serde_json::json!({"concurrency": 9});
        let s = RunSettings::layered_over(&base, Some(&section), env(&[]), &Flags::default())
            .expect("valid");
        assert_eq!(s.concurrency, 9);
    }
}
