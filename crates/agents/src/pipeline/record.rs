//! The output record of one scenario (one JSONL line) and the failure record of the errors file.
//!
//! A record carries every scenario parameter flat at the top level, as the seed's records do,
//! next to the seed's result fields (`data_generation_result`, `fluency_result`,
//! `naturalness_result`, `cs_ratio_result`, `social_cultural_result`, `score`, `refine_count`)
//! and what a dataset user needs beyond them: id, acceptance, every attempt with its judge
//! results, the measurement, models, usage, cost and repairs. A parameter whose name collides
//! with one of these fields is stored as `param_<name>` so neither is lost.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use llm_client::ChatResponse;

use super::agent::AgentKind;

/// Field names of a record; parameters with these names are renamed `param_<name>`.
pub const RECORD_FIELDS: &[&str] = &[
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
];

/// Flattens parameters for a record, renaming the ones that collide with record fields.
#[must_use]
pub fn flat_params(params: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    params
        .iter()
        .map(|(k, v)| {
            let key = if RECORD_FIELDS.contains(&k.as_str()) {
                format!("param_{k}")
            } else {
                k.clone()
            };
            (key, v.clone())
        })
        .collect()
}

/// One text of the batch and what the judges made of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// 0 for the generator's batch, n for the n-th refinement.
    pub attempt: u32,
    /// `generator` or `refiner`.
    pub produced_by: AgentKind,
    /// The texts judged in this attempt.
    pub data_generation_result: Vec<String>,
    /// Fluency judge result.
    pub fluency_result: Value,
    /// Naturalness judge result, observations in the seed's `{"sentence_N": note}` shape.
    pub naturalness_result: Value,
    /// Ratio result (see `RatioJudgeMode` for `method`).
    pub cs_ratio_result: Value,
    /// Socio-cultural judge result.
    pub social_cultural_result: Value,
    /// The four judge scores by weight name.
    pub scores: BTreeMap<String, f64>,
    /// Weighted score of this attempt.
    pub score: f64,
    /// Deterministic measurement of this attempt's texts (absent when the pair is unsupported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement: Option<Value>,
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
    /// Adds one response.
    pub fn add(&mut self, key: &str, agent: AgentKind, resp: &ChatResponse) {
        self.calls += 1;
        if resp.cached {
            self.cache_hits += 1;
        } else {
            // Saturating: token counts come from the server and may be absurd.
            self.usage.prompt_tokens = self
                .usage
                .prompt_tokens
                .saturating_add(resp.usage.prompt_tokens);
            self.usage.completion_tokens = self
                .usage
                .completion_tokens
                .saturating_add(resp.usage.completion_tokens);
            self.usage.estimated |= resp.usage.estimated;
            self.cost_usd += resp.cost_usd.unwrap_or(0.0);
        }
        self.retries += resp.retries;
        self.repairs += resp.repairs;
        self.coercions
            .extend(resp.coercions.iter().map(|c| CoercionNote {
                call: key.to_string(),
                path: c.path.clone(),
                reason: c.reason.clone(),
            }));
        self.models
            .insert(agent.name().to_string(), resp.model.clone());
    }
}

/// One finished scenario: a line of the output file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// Stable scenario id.
    pub id: String,
    /// Position in the scenario space.
    pub index: u64,
    /// Every parameter, flat (see [`flat_params`]).
    #[serde(flatten)]
    pub params: BTreeMap<String, Value>,
    /// Score reached the threshold.
    pub accepted: bool,
    /// The final texts (the last attempt's).
    pub data_generation_result: Vec<String>,
    /// Final fluency result.
    pub fluency_result: Value,
    /// Final naturalness result.
    pub naturalness_result: Value,
    /// Final ratio result.
    pub cs_ratio_result: Value,
    /// Final socio-cultural result.
    pub social_cultural_result: Value,
    /// Final weighted score.
    pub score: f64,
    /// Final judge scores by weight name.
    pub scores: BTreeMap<String, f64>,
    /// Refinements made.
    pub refine_count: u32,
    /// Every attempt, first to last.
    pub attempts: Vec<AttemptRecord>,
    /// Measurement of the final texts.
    pub measurement: Option<Value>,
    /// Model per agent.
    pub models: BTreeMap<String, String>,
    /// Tokens over all calls.
    pub usage: UsageTotals,
    /// Cost in USD.
    pub cost_usd: f64,
    /// Calls made.
    pub calls: u32,
    /// Calls served by the cache.
    pub cache_hits: u32,
    /// Transport retries.
    pub retries: u32,
    /// Repair requests.
    pub repairs: u32,
    /// Coercions and repairs with reasons.
    pub coercions: Vec<CoercionNote>,
    /// Things worth knowing (e.g. a generation retried, a refinement that failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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
    /// The agent whose call failed, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentKind>,
    /// The failure stops the whole run (bad credentials, budget).
    #[serde(default)]
    pub fatal: bool,
    /// Accounting of the calls made before the failure.
    pub totals: CallTotals,
}
