//! The output record of one scenario (one JSONL line) and the failure record of the errors file:
//! the contract between a run and everything that reads its output. [`ScenarioRecord`] is the one
//! type written (by the pipeline's sink, `agents::sink`) and read ([`RecordReader`], tolerant
//! and streaming); records carry a [`ScenarioRecord::schema_version`] and, from version 2, the
//! run settings needed to read them alone ([`RecordSettings`]).
//!
//! A record carries every scenario parameter flat at the top level, as the seed's records do,
//! next to the seed's result fields (`data_generation_result`, `fluency_result`,
//! `naturalness_result`, `cs_ratio_result`, `social_cultural_result`, `score`, `refine_count`)
//! and what a dataset user needs beyond them: id, acceptance, every attempt with its judge
//! results, the measurement, models, usage, cost and repairs. A parameter whose name collides
//! with one of these fields is stored as `param_<name>` so neither is lost; a parameter whose own name
//! would read back as such a renaming (`param_score`) is renamed the same way (`param_param_score`),
//! so no two parameters ever land on one key.

pub mod index;
mod merge;
mod read;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use scoring::{Judge, JudgeWeights};

use crate::vocab::{AgentKind, GateSettings, GateUndecided, GateVerdict, Keep, RatioJudgeMode};

pub use index::{IndexEntry, IndexError, RunIndex};
pub use merge::{Coverage, CurrentFailures, MergeError, MergeInputs};
pub use read::{DEFAULT_MAX_LINE_BYTES, Located, RecordError, RecordId, RecordReader};

/// The schema version this build writes. Version 1 (records written before the field existed,
/// read with `schema_version` 1) has no [`RecordSettings`]; version 2 adds them.
pub const SCHEMA_VERSION: u32 = 2;

/// The version of a record that carries no `schema_version` field.
const UNVERSIONED: u32 = 1;

fn unversioned() -> u32 {
    UNVERSIONED
}

/// The errors file next to an output file: `<out>.errors.jsonl`.
#[must_use]
pub fn errors_path(out: &std::path::Path) -> std::path::PathBuf {
    stdx::beside(out, ".errors.jsonl")
}

/// A `schema_version` this build can read: 1 to [`SCHEMA_VERSION`]. A newer record may mean
/// something this build would misread, so it is refused rather than read confidently.
fn known_version<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let version = u32::deserialize(deserializer)?;
    if (UNVERSIONED..=SCHEMA_VERSION).contains(&version) {
        Ok(version)
    } else if version < UNVERSIONED {
        Err(serde::de::Error::custom(format!(
            "schema_version {version} is invalid (versions start at {UNVERSIONED})"
        )))
    } else {
        Err(serde::de::Error::custom(format!(
            "schema_version {version} is not one this build reads (1 to {SCHEMA_VERSION}); \
             a newer scenario-engine wrote it"
        )))
    }
}

/// A final score on the judges' 0–10 scale; anything else is not a score this engine wrote.
fn score_in_range<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let score = f64::deserialize(deserializer)?;
    if (0.0..=10.0).contains(&score) {
        Ok(score)
    } else {
        Err(serde::de::Error::custom(format!(
            "score {score} is outside 0–10"
        )))
    }
}

/// The run settings a record needs to be read alone: what "accepted" meant and how the score
/// was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordSettings {
    /// Accept at a weighted score ≥ this (0–10).
    pub threshold: f64,
    /// The judge weights of the score.
    pub weights: JudgeWeights,
    /// How the ratio score was obtained.
    pub ratio_judge: RatioJudgeMode,
    /// Refinements allowed after the first attempt.
    pub max_refinements: u32,
    /// The accept gate (absent in records written before it: the default of then, `undecided`
    /// `judges`; so is an absent `undecided`, written before `auto` was the default).
    #[serde(default = "gate_before_auto", deserialize_with = "gate_as_recorded")]
    pub gate: GateSettings,
    /// Which attempt records keep (absent before `keep` existed: `last`).
    #[serde(default)]
    pub keep: Keep,
}

/// The gate settings of records written before they were recorded: the defaults of then.
fn gate_before_auto() -> GateSettings {
    GateSettings {
        undecided: GateUndecided::Judges,
        ..GateSettings::default()
    }
}

/// A record's gate settings, an absent `undecided` read as `judges` (the default until `auto`
/// replaced it; a config's absent `undecided` is `auto`).
fn gate_as_recorded<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<GateSettings, D::Error> {
    #[derive(Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Recorded {
        enabled: bool,
        min_switch_points: u32,
        undecided: Option<GateUndecided>,
    }
    impl Default for Recorded {
        fn default() -> Self {
            let d = GateSettings::default();
            Self {
                enabled: d.enabled,
                min_switch_points: d.min_switch_points,
                undecided: None,
            }
        }
    }
    let r = Recorded::deserialize(deserializer)?;
    Ok(GateSettings {
        enabled: r.enabled,
        min_switch_points: r.min_switch_points,
        undecided: r.undecided.unwrap_or(GateUndecided::Judges),
    })
}

impl RecordSettings {
    /// What differs from `other`, in words (`threshold 8 here, 9.5 there`); empty when equal.
    #[must_use]
    pub fn differences(&self, other: &RecordSettings) -> Vec<String> {
        let mut out = Vec::new();
        if self.threshold.total_cmp(&other.threshold).is_ne() {
            out.push(format!(
                "threshold {} vs {}",
                self.threshold, other.threshold
            ));
        }
        if self.weights != other.weights {
            out.push(format!(
                "weights {:?} vs {:?}",
                self.weights.0, other.weights.0
            ));
        }
        if self.ratio_judge != other.ratio_judge {
            out.push(format!(
                "ratio_judge {} vs {}",
                self.ratio_judge.name(),
                other.ratio_judge.name()
            ));
        }
        if self.keep != other.keep {
            out.push(format!("keep {:?} vs {:?}", self.keep, other.keep));
        }
        if self.gate != other.gate {
            out.push(format!("gate {} vs {}", self.gate, other.gate));
        }
        if self.max_refinements != other.max_refinements {
            out.push(format!(
                "max_refinements {} vs {}",
                self.max_refinements, other.max_refinements
            ));
        }
        out
    }
}

/// The run-settings view of a record line.
#[derive(Deserialize)]
struct SettingsView {
    #[serde(default)]
    run_settings: Option<RecordSettings>,
}

/// The first record of the results file `path` written under other accept rules than `current`
/// (threshold, weights, ratio judge, max refinements): its line and settings. A missing file,
/// records without settings (schema version 1) and unreadable lines are not a mismatch.
///
/// # Errors
/// The file exists but cannot be read.
pub fn first_settings_mismatch(
    path: &std::path::Path,
    current: &RecordSettings,
) -> std::io::Result<Option<(usize, RecordSettings)>> {
    if !path.exists() {
        return Ok(None);
    }
    let reader: RecordReader<_, SettingsView> = RecordReader::open(path)?;
    for item in reader {
        match item {
            Ok(Located {
                line,
                record:
                    SettingsView {
                        run_settings: Some(settings),
                    },
                ..
            }) if !settings.differences(current).is_empty() => return Ok(Some((line, settings))),
            Err(RecordError::Io { source, .. }) => return Err(source),
            _ => {}
        }
    }
    Ok(None)
}

/// The prompt-hashes view of a record line.
#[derive(Deserialize)]
struct PromptsView {
    #[serde(default)]
    prompt_hashes: BTreeMap<String, String>,
}

/// A record judged with another prompt than this run's, for one of the watched templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMismatch {
    /// The record's line.
    pub line: usize,
    /// The template (agent or declared judge) whose prompt differs.
    pub name: String,
    /// The record's prompt hash.
    pub recorded: String,
    /// This run's.
    pub current: String,
    /// How many records of the file were written with another prompt for `name`.
    pub records: usize,
}

/// The first record of the results file `path` whose `prompt_hashes` differ from `current` for
/// one of the templates `current` holds (a record that lacks a hash is not a mismatch), with
/// how many records differ so. A missing file and unreadable lines are not a mismatch.
///
/// # Errors
/// The file exists but cannot be read.
pub fn first_prompt_mismatch(
    path: &std::path::Path,
    current: &BTreeMap<String, String>,
) -> std::io::Result<Option<PromptMismatch>> {
    if !path.exists() {
        return Ok(None);
    }
    let reader: RecordReader<_, PromptsView> = RecordReader::open(path)?;
    let mut found: Option<PromptMismatch> = None;
    for item in reader {
        match item {
            Ok(Located { line, record, .. }) => {
                let differs = current.iter().find(|(name, hash)| {
                    record.prompt_hashes.get(*name).is_some_and(|h| h != *hash)
                });
                if let Some((name, hash)) = differs {
                    match &mut found {
                        Some(m) => m.records += 1,
                        None => {
                            found = Some(PromptMismatch {
                                line,
                                name: name.clone(),
                                recorded: record.prompt_hashes[name].clone(),
                                current: hash.clone(),
                                records: 1,
                            });
                        }
                    }
                }
            }
            Err(RecordError::Io { source, .. }) => return Err(source),
            Err(_) => {}
        }
    }
    Ok(found)
}

/// Field names of a record; parameters with these names are renamed `param_<name>`.
pub const RECORD_FIELDS: &[&str] = &[
    "schema_version",
    "run_settings",
    "id",
    "index",
    "accepted",
    "data_generation_result",
    "fluency_result",
    "naturalness_result",
    "cs_ratio_result",
    "social_cultural_result",
    "score",
    "scores",
    "judge_results",
    "refine_count",
    "attempts",
    "measurement",
    "models",
    "usage",
    "cost_usd",
    "calls",
    "cache_hits",
    "retries",
    "repairs",
    "coercions",
    "notes",
    "grounding",
];

/// What a scenario's generation was grounded in (a record's `grounding`): a text `none: …`
/// with the reason it was not grounded, or the article it was grounded in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Grounding {
    /// Not grounded, and why (`none: no tool server configured`).
    None(String),
    /// Grounded in this article.
    Article(GroundingArticle),
}

impl Grounding {
    /// Whether the generation was grounded in an article.
    #[must_use]
    pub const fn is_grounded(&self) -> bool {
        matches!(self, Self::Article(_))
    }

    /// As one text: the reason for `none`, the article as JSON.
    #[must_use]
    pub fn to_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Self::None(reason) => std::borrow::Cow::Borrowed(reason),
            Self::Article(a) => {
                std::borrow::Cow::Owned(serde_json::to_string(a).unwrap_or_default())
            }
        }
    }
}

/// The article a generation was grounded in, as a record keeps it: where it came from and which
/// text was prompted (its hash), not the text itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroundingArticle {
    /// The MCP tool that returned it.
    pub tool: String,
    /// The headline.
    pub title: String,
    /// Who published it (the tool's `source`, else the URL's host, else `<tool> tool`).
    pub source: String,
    /// Where it is, when the tool said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// When it was published, as the tool wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// Characters of the text put in the prompt.
    pub chars: usize,
    /// Characters of the text the tool returned (after markup was removed).
    pub original_chars: usize,
    /// Whether the text was cut to the cap (`run.tools.max_article_chars`).
    pub truncated: bool,
    /// The first 16 hex digits of the blake3 hash of the title and the prompted text.
    pub text_hash: String,
}

/// Whether a parameter named `key` is stored as `param_<key>`: a record field's name, or a name
/// that would itself read back as such a renaming (`param_score`, `param_param_score`, …).
/// Escaped keys all satisfy this and unescaped ones do not, so the renaming is collision-free.
fn needs_escape(key: &str) -> bool {
    RECORD_FIELDS.contains(&key) || key.strip_prefix("param_").is_some_and(needs_escape)
}

/// Flattens parameters for a record, renaming the ones that collide with record fields (and the
/// ones that would collide with such a renaming); [`unflatten_key`] undoes it.
#[must_use]
pub fn flat_params(params: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    params
        .iter()
        .map(|(k, v)| {
            let key = if needs_escape(k) {
                format!("param_{k}")
            } else {
                k.clone()
            };
            (key, v.clone())
        })
        .collect()
}

/// The parameter name a flattened record key stands for (the inverse of [`flat_params`]).
#[must_use]
pub fn unflatten_key(key: &str) -> &str {
    if needs_escape(key) {
        key.strip_prefix("param_").unwrap_or(key)
    } else {
        key
    }
}

/// The scenario's parameters under their own names: the inverse of [`flat_params`] over a
/// record's flat keys (`param_score` back to `score`, `param_param_score` to `param_score`).
#[must_use]
pub fn unflatten_params(flat: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    flat.iter()
        .map(|(k, v)| (unflatten_key(k).to_string(), v.clone()))
        .collect()
}

/// One text of the batch and what the judges made of it. Every field defaults when absent, so
/// records of older versions load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// 0 for the generator's batch, n for the n-th refinement.
    #[serde(default)]
    pub attempt: u32,
    /// `generator` or `refiner`.
    #[serde(default = "generator")]
    pub produced_by: AgentKind,
    /// The texts judged in this attempt.
    #[serde(default)]
    pub data_generation_result: Vec<String>,
    /// Fluency judge result.
    #[serde(default)]
    pub fluency_result: Value,
    /// Naturalness judge result, observations in the seed's `{"sentence_N": note}` shape.
    #[serde(default)]
    pub naturalness_result: Value,
    /// Ratio result (see `RatioJudgeMode` for `method`).
    #[serde(default)]
    pub cs_ratio_result: Value,
    /// Socio-cultural judge result.
    #[serde(default)]
    pub social_cultural_result: Value,
    /// The results of the judges the config declares beside the four, by judge name (each
    /// judge's reply as it answered; absent when the run had none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judge_results: BTreeMap<String, Value>,
    /// Every judge's score by weight name (the four and the config's own).
    #[serde(default)]
    pub scores: scoring::JudgeScores,
    /// Weighted score of this attempt.
    #[serde(default)]
    pub score: f64,
    /// Deterministic measurement of this attempt's texts (absent when the pair is unsupported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<Value>,
    /// The accept gate's decision on this attempt (absent before the gate existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateVerdict>,
}

fn generator() -> AgentKind {
    AgentKind::Generator
}

/// Token counts summed over a scenario's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UsageTotals {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// True when any call's counts were a local estimate (the server sent no `usage`).
    pub estimated: bool,
}

/// A repair or coercion applied to one call's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoercionNote {
    /// The call's key (`scenario:attempt:agent`).
    pub call: String,
    /// JSON pointer of the value changed.
    pub path: String,
    /// What was done and why.
    pub reason: String,
}

/// Accounting over every call a scenario made (cached ones included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CallTotals {
    /// Tokens.
    pub usage: UsageTotals,
    /// Cost in USD of the calls with a known price (cache hits cost nothing).
    pub cost_usd: f64,
    /// Calls answered (including cache hits).
    pub calls: u32,
    /// Calls served from the response cache.
    pub cache_hits: u32,
    /// Transport retries (429, 5xx, timeouts).
    pub retries: u32,
    /// Extra requests spent repairing replies.
    pub repairs: u32,
    /// Coercions and repairs with their reasons.
    pub coercions: Vec<CoercionNote>,
    /// The model that answered each agent (last answer wins).
    pub models: BTreeMap<String, String>,
}

impl CallTotals {
    /// Adds tokens and cost that were generated: by a reply, or by a call that ended in
    /// invalid output after its repairs (the transport reports what such a call spent).
    pub fn add_spend(&mut self, usage: UsageTotals, cost_usd: Option<f64>) {
        // Saturating: token counts come from the server and may be absurd.
        self.usage.prompt_tokens = self.usage.prompt_tokens.saturating_add(usage.prompt_tokens);
        self.usage.completion_tokens = self
            .usage
            .completion_tokens
            .saturating_add(usage.completion_tokens);
        self.usage.estimated |= usage.estimated;
        self.cost_usd += cost_usd.unwrap_or(0.0);
    }

    /// Adds one answered call of the agent named `agent` (a role's or a declared judge's name),
    /// named `call` (its key) in coercion notes.
    pub fn add_call(&mut self, call: &str, agent: &str, reply: CallReply<'_>) {
        let CallReply {
            cached,
            usage,
            cost_usd,
            retries,
            repairs,
            coercions,
            model,
        } = reply;
        self.calls += 1;
        if cached {
            self.cache_hits += 1;
        } else {
            self.add_spend(usage, cost_usd);
        }
        self.retries += retries;
        self.repairs += repairs;
        self.coercions
            .extend(coercions.into_iter().map(|(path, reason)| CoercionNote {
                call: call.to_owned(),
                path,
                reason,
            }));
        self.models.insert(agent.to_owned(), model.to_owned());
    }
}

/// What one answered call adds to a scenario's [`CallTotals`]: the transport's reply, reduced to
/// the facts a record keeps (the pipeline fills it from its model's response).
#[derive(Debug, Clone)]
pub struct CallReply<'a> {
    /// Served from the response cache (costs nothing, counts as a cache hit).
    pub cached: bool,
    /// Tokens of the call.
    pub usage: UsageTotals,
    /// Its price, when the model has one.
    pub cost_usd: Option<f64>,
    /// Transport retries.
    pub retries: u32,
    /// Structured-output repairs.
    pub repairs: u32,
    /// Values coerced to the schema: `(JSON path, reason)`.
    pub coercions: Vec<(String, String)>,
    /// The model that answered.
    pub model: &'a str,
}

/// One finished scenario: a line of the output file.
///
/// Reading is tolerant: only `id`, `score` and `accepted` are required; every other field
/// defaults when absent (records of older versions), and fields this version does not know land
/// in [`ScenarioRecord::params`] (a record's top level holds its parameters flat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// The record schema's version ([`SCHEMA_VERSION`] when written by this build; 1 for a
    /// record without the field).
    #[serde(default = "unversioned", deserialize_with = "known_version")]
    pub schema_version: u32,
    /// Stable scenario id.
    pub id: String,
    /// Position in the scenario space.
    #[serde(default)]
    pub index: u64,
    /// Every parameter, flat (see [`flat_params`]).
    #[serde(flatten)]
    pub params: BTreeMap<String, Value>,
    /// Score reached the threshold.
    pub accepted: bool,
    /// The final texts (the last attempt's).
    #[serde(default)]
    pub data_generation_result: Vec<String>,
    /// Final fluency result.
    #[serde(default)]
    pub fluency_result: Value,
    /// Final naturalness result.
    #[serde(default)]
    pub naturalness_result: Value,
    /// Final ratio result.
    #[serde(default)]
    pub cs_ratio_result: Value,
    /// Final socio-cultural result.
    #[serde(default)]
    pub social_cultural_result: Value,
    /// Final weighted score (0–10; a record outside that range is invalid).
    #[serde(deserialize_with = "score_in_range")]
    pub score: f64,
    /// Final judge scores by weight name (the four and the config's own judges).
    #[serde(default)]
    pub scores: scoring::JudgeScores,
    /// Final results of the judges the config declares beside the four, by judge name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judge_results: BTreeMap<String, Value>,
    /// Refinements made.
    #[serde(default)]
    pub refine_count: u32,
    /// Every attempt, first to last.
    #[serde(default)]
    pub attempts: Vec<AttemptRecord>,
    /// Measurement of the final texts.
    #[serde(default)]
    pub measurement: Option<Value>,
    /// The accept gate's decision on the final texts (absent before the gate existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateVerdict>,
    /// The attempt whose texts and scores this record keeps (`keep: last | best`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_attempt: Option<u32>,
    /// One paragraph on the kept attempt: the decision and each judge's own summary.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// A hash (blake3, 16 hex digits) of every prompt template the run used, by agent: which
    /// prompts made this record (an overridden template hashes its own text).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompt_hashes: BTreeMap<String, String>,
    /// Model per agent.
    #[serde(default)]
    pub models: BTreeMap<String, String>,
    /// Tokens over all calls.
    #[serde(default)]
    pub usage: UsageTotals,
    /// Cost in USD.
    #[serde(default)]
    pub cost_usd: f64,
    /// Calls made.
    #[serde(default)]
    pub calls: u32,
    /// Calls served by the cache.
    #[serde(default)]
    pub cache_hits: u32,
    /// Transport retries.
    #[serde(default)]
    pub retries: u32,
    /// Repair requests.
    #[serde(default)]
    pub repairs: u32,
    /// Coercions and repairs with reasons.
    #[serde(default)]
    pub coercions: Vec<CoercionNote>,
    /// Things worth knowing (e.g. a generation retried, a refinement that failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What the generation was grounded in, when the scenario asked for grounding
    /// (`use_tools: true`): the article (its title, source, …), or `none: …` with the reason
    /// when it was not, so an ungrounded batch never passes for a grounded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<Grounding>,
    /// The run settings the record was made under (absent in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_settings: Option<RecordSettings>,
}

impl ScenarioRecord {
    /// What a run summary counts of this record.
    #[must_use]
    pub fn facts(&self) -> scoring::summary::RecordFacts<'_> {
        scoring::summary::RecordFacts {
            params: &self.params,
            score: Some(self.score),
            accepted: self.accepted,
            failed: false,
            judge_scores: &self.scores,
            refine_count: self.refine_count,
        }
    }

    /// A judge's final result (its record field, e.g. `social_cultural_result`).
    #[must_use]
    pub fn judge_result(&self, judge: Judge) -> &Value {
        match judge {
            Judge::Fluency => &self.fluency_result,
            Judge::Naturalness => &self.naturalness_result,
            Judge::CsRatio => &self.cs_ratio_result,
            Judge::SocioCultural => &self.social_cultural_result,
        }
    }

    /// Whether the record's measurement says `unavailable`: the tagger could not read the
    /// texts (an unsupported pair, romanized text without a detector), so no figure of it is
    /// evidence of anything.
    #[must_use]
    pub fn measurement_unavailable(&self) -> bool {
        self.measurement
            .as_ref()
            .and_then(|m| m.get("status"))
            .and_then(Value::as_str)
            == Some("unavailable")
    }

    /// The measured embedded-language share of the final texts (0–1), `None` when no word was
    /// tagged (the measurement's `embedded_ratio` is then 0, which means "unknown").
    #[must_use]
    pub fn measured_ratio(&self) -> Option<f64> {
        let m = self.measurement.as_ref()?;
        let tagged = ["/tagged/first", "/tagged/second"]
            .iter()
            .filter_map(|p| m.pointer(p).and_then(Value::as_u64))
            .sum::<u64>();
        m.get("embedded_ratio")
            .and_then(Value::as_f64)
            .filter(|r| r.is_finite() && tagged > 0)
    }
}

/// One failed scenario: a line of the errors file. It is retried by the next run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// Stable scenario id.
    pub id: String,
    /// Position in the scenario space.
    pub index: u64,
    /// The scenario's parameters.
    pub params: BTreeMap<String, Value>,
    /// Why it failed.
    pub reason: String,
    /// The agent whose call failed, when one of the six roles did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentKind>,
    /// The judge the config declares whose call failed, when one did (`agent` is then absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<scoring::JudgeName>,
    /// The failure stops the whole run (bad credentials, budget).
    #[serde(default)]
    pub fatal: bool,
    /// Accounting of the calls made before the failure.
    pub totals: CallTotals,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_score_outside_0_to_10_or_version_0_is_an_invalid_record() {
        for (line, want) in [
            (r#"{"id":"a","score":42,"accepted":true}"#, "outside 0–10"),
            (r#"{"id":"a","score":-5,"accepted":false}"#, "outside 0–10"),
            (
                r#"{"id":"a","score":8,"accepted":true,"schema_version":0}"#,
                "is invalid",
            ),
        ] {
            let err = serde_json::from_str::<ScenarioRecord>(line).expect_err(line);
            assert!(err.to_string().contains(want), "{err}");
        }
        let ok: ScenarioRecord =
            serde_json::from_str(r#"{"id":"a","score":10,"accepted":true}"#).expect("in range");
        assert!((ok.score - 10.0).abs() < f64::EPSILON);
    }

    /// Axes `score` and `param_score`: `score` is renamed `param_score`, which must not replace the
    /// real `param_score` (it used to, losing its value).
    #[test]
    fn flattening_never_lets_one_parameter_overwrite_another() {
        let params = BTreeMap::from([
            ("score".to_string(), json!("1")),
            ("param_score".to_string(), json!("zz")),
            ("param_param_score".to_string(), json!("deep")),
            ("param_other".to_string(), json!(3)),
            ("topic".to_string(), json!("health")),
        ]);
        let flat = flat_params(&params);
        assert_eq!(flat.len(), params.len(), "no key lost: {flat:?}");
        assert_eq!(flat["param_score"], json!("1"));
        assert_eq!(flat["param_param_score"], json!("zz"));
        assert_eq!(flat["param_param_param_score"], json!("deep"));
        assert_eq!(flat["param_other"], json!(3), "not a record field: kept");
        let back: BTreeMap<String, Value> = flat
            .iter()
            .map(|(k, v)| (unflatten_key(k).to_string(), v.clone()))
            .collect();
        assert_eq!(back, params, "the renaming is undone exactly");
    }
}
