//! What each agent must answer: typed output structs, their JSON schemas, and the local checks.
//!
//! The schemas are accepted by OpenAI strict mode: every property is required and
//! `additionalProperties` is false, so free-form maps are not allowed. The seed's naturalness
//! `observations` map (`{"sentence_1": "…"}`) is therefore asked for as a list of
//! `{sentence, note}` objects and turned back into the seed's map shape in the record (see
//! [`NaturalnessResult::observations_map`]). Some servers turn schemas into buggy grammars, so
//! every reply is also checked here (scores within 0–10, enough non-blank texts) whatever the
//! transport validated.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use llm_client::OutputSchema;

use crate::key::Agent;
use runlog::AgentKind;

/// Lowest and highest score a judge may give.
pub const SCORE_RANGE: (f64, f64) = (0.0, 10.0);

/// The generator's and the refiner's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instances {
    /// The code-switched texts of the batch.
    pub instances: Vec<String>,
}

/// The fluency judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FluencyResult {
    /// One score for the whole batch, 0–10.
    pub fluency_score: f64,
    /// Errors found, one string each.
    pub errors: Vec<String>,
    /// Overall verdict.
    pub summary: String,
}

/// One naturalness observation about one text of the batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// 1-based number of the text in the batch.
    pub sentence: u32,
    /// What the judge observed.
    pub note: String,
}

/// The naturalness judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NaturalnessResult {
    /// One score for the whole batch, 0–10.
    pub naturalness_score: f64,
    /// Per-text observations (a list because strict mode forbids free-form maps).
    pub observations: Vec<Observation>,
    /// Overall verdict.
    pub summary: String,
}

impl NaturalnessResult {
    /// The observations in the seed's shape: `{"sentence_1": note, …}`. When the judge wrote
    /// several notes about one text they are joined with a space so none is lost.
    #[must_use]
    pub fn observations_map(&self) -> serde_json::Map<String, Value> {
        let mut map = serde_json::Map::new();
        for o in &self.observations {
            let key = format!("sentence_{}", o.sentence);
            match map.get_mut(&key) {
                Some(Value::String(existing)) => {
                    existing.push(' ');
                    existing.push_str(&o.note);
                }
                _ => {
                    map.insert(key, Value::String(o.note.clone()));
                }
            }
        }
        map
    }

    /// This result as the record shows it (seed shape for `observations`).
    #[must_use]
    pub fn to_record_value(&self) -> Value {
        json!({
            "naturalness_score": self.naturalness_score,
            "observations": self.observations_map(),
            "summary": self.summary,
        })
    }
}

/// The cs-ratio judge's answer (or the measured equivalent, see `RatioJudgeMode`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioResult {
    /// 0–10; 10 when the embedded share matches the target.
    pub ratio_score: f64,
    /// Embedded-language (second language) share of words, 0–1.
    pub computed_ratio: f64,
    /// Explanation.
    pub notes: String,
}

/// How a [`RatioVerdict`]'s score was obtained (the record's `method`; see `RatioJudgeMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RatioMethod {
    /// The deterministic measurement alone; no call.
    Measured,
    /// The LLM judge alone.
    Llm,
    /// The mean of the LLM judge's and the measured score.
    Hybrid,
}

/// The cs-ratio verdict the pipeline records and weighs: the LLM judge's answer
/// ([`RatioResult`]), the measurement, or both, as decided by the `ratio_judge` mode. Its JSON is
/// the record's `cs_ratio_result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioVerdict {
    /// The score weighed, 0–10.
    pub ratio_score: f64,
    /// The embedded share the score refers to (the measured one when there is one, except in
    /// `llm` mode), 0–1.
    pub computed_ratio: f64,
    /// Explanation (the judge's, or what was measured against what).
    pub notes: String,
    /// How the score was obtained.
    pub method: RatioMethod,
    /// The LLM judge's own score; absent when no judge was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_ratio_score: Option<f64>,
    /// The LLM judge's own share; absent when no judge was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_computed_ratio: Option<f64>,
    /// The measured score; `null` when the batch could not be measured against a target.
    #[serde(default)]
    pub measured_ratio_score: Option<f64>,
}

impl RatioVerdict {
    /// The verdict of the measurement alone: `score` for the embedded share `measured` against
    /// `target` (NaN when unknown, written as such in the notes).
    #[must_use]
    pub fn measured(score: f64, measured: f64, target: f64) -> Self {
        Self {
            ratio_score: score,
            computed_ratio: measured,
            notes: format!("measured embedded share {measured:.3} against target {target:.3}"),
            method: RatioMethod::Measured,
            llm_ratio_score: None,
            llm_computed_ratio: None,
            measured_ratio_score: Some(score),
        }
    }

    /// The verdict from the LLM judge's answer `judge`: in `hybrid` mode with a measurement
    /// (`measured_score` and the measured share `measured`), the mean of both scores and the
    /// measured share; otherwise the judge's alone.
    #[must_use]
    pub fn from_judge(
        judge: RatioResult,
        hybrid: bool,
        measured_score: Option<f64>,
        measured: Option<f64>,
    ) -> Self {
        let (score, computed, method) = match (hybrid, measured_score, measured) {
            (true, Some(m), Some(share)) => {
                ((judge.ratio_score + m) / 2.0, share, RatioMethod::Hybrid)
            }
            _ => (judge.ratio_score, judge.computed_ratio, RatioMethod::Llm),
        };
        Self {
            ratio_score: score,
            computed_ratio: computed,
            notes: judge.notes,
            method,
            llm_ratio_score: Some(judge.ratio_score),
            llm_computed_ratio: Some(judge.computed_ratio),
            measured_ratio_score: measured_score,
        }
    }

    /// This verdict as the record shows it.
    #[must_use]
    pub fn to_record_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The socio-cultural judge's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SocioCulturalResult {
    /// One score for the whole batch, 0–10.
    pub socio_cultural_score: f64,
    /// Problems found, one string each.
    pub issues: Vec<String>,
    /// Overall verdict.
    pub summary: String,
}

/// A reply that parsed but is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// The JSON does not have the agent's shape.
    #[error("{agent} reply does not match its schema: {reason}")]
    Shape {
        /// Which agent answered.
        agent: Agent,
        /// The deserialisation error.
        reason: String,
    },
    /// A score outside 0–10 (or not finite).
    #[error("{agent} gave {field} = {value}, outside 0–10")]
    ScoreOutOfRange {
        /// Which agent answered.
        agent: Agent,
        /// The score field.
        field: String,
        /// The value as text (it may be NaN).
        value: String,
    },
    /// Fewer usable texts than the minimum (empty list or blank strings).
    #[error("{agent} returned {usable} usable text(s), at least {min} required")]
    TooFewInstances {
        /// Generator or refiner.
        agent: Agent,
        /// Non-blank texts returned.
        usable: usize,
        /// The minimum.
        min: usize,
    },
    /// The reply carried no JSON at all.
    #[error("{agent} reply carried no JSON")]
    NoJson {
        /// Which agent answered.
        agent: Agent,
    },
}

pub(crate) fn score_schema() -> Value {
    json!({"type": "number", "minimum": SCORE_RANGE.0, "maximum": SCORE_RANGE.1})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

/// The JSON schema an agent's reply must follow. `min_instances`/`max_instances` bound the
/// generator's and refiner's batch size.
#[must_use]
pub fn schema_for(agent: AgentKind, min_instances: u32, max_instances: u32) -> Value {
    let object = |properties: Value, required: &[&str]| {
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    };
    match agent {
        AgentKind::Generator | AgentKind::Refiner => object(
            json!({"instances": {
                "type": "array",
                // No `pattern`/`minLength`: OpenAI's strict mode lacks `minLength`, and grammar
                // compilers (llama-cpp-python's, llama.cpp's) mistranslate or reject unanchored
                // patterns, silently dropping the whole schema. Blank texts are dropped by
                // `parse_instances`, which then enforces the minimum count.
                "items": {"type": "string"},
                "minItems": min_instances,
                "maxItems": max_instances.max(min_instances),
            }}),
            &["instances"],
        ),
        AgentKind::Fluency => object(
            json!({"fluency_score": score_schema(), "errors": strings(), "summary": {"type": "string"}}),
            &["fluency_score", "errors", "summary"],
        ),
        AgentKind::Naturalness => object(
            json!({
                "naturalness_score": score_schema(),
                "observations": {"type": "array", "items": {
                    "type": "object",
                    // No `minimum`: a 0-based index from a model is harmless and not worth failing a scenario.
                    "properties": {"sentence": {"type": "integer"}, "note": {"type": "string"}},
                    "required": ["sentence", "note"],
                    "additionalProperties": false,
                }},
                "summary": {"type": "string"},
            }),
            &["naturalness_score", "observations", "summary"],
        ),
        AgentKind::CsRatio => object(
            json!({
                "ratio_score": score_schema(),
                "computed_ratio": {"type": "number", "minimum": 0, "maximum": 1},
                "notes": {"type": "string"},
            }),
            &["ratio_score", "computed_ratio", "notes"],
        ),
        AgentKind::SocioCultural => object(
            json!({"socio_cultural_score": score_schema(), "issues": strings(), "summary": {"type": "string"}}),
            &["socio_cultural_score", "issues", "summary"],
        ),
    }
}

/// The [`OutputSchema`] sent with an agent's request (name `<agent>_output`, strict).
#[must_use]
pub fn output_schema(agent: AgentKind, min_instances: u32, max_instances: u32) -> OutputSchema {
    OutputSchema {
        name: format!("{}_output", agent.name()),
        schema: std::sync::Arc::new(schema_for(agent, min_instances, max_instances)),
        strict: true,
    }
}

fn parse<T: for<'de> Deserialize<'de>>(agent: AgentKind, json: &Value) -> Result<T, OutputError> {
    T::deserialize(json).map_err(|e| OutputError::Shape {
        agent: agent.into(),
        reason: e.to_string(),
    })
}

pub(crate) fn check_score(
    agent: impl Into<Agent>,
    field: &str,
    value: f64,
) -> Result<(), OutputError> {
    if value.is_finite() && (SCORE_RANGE.0..=SCORE_RANGE.1).contains(&value) {
        Ok(())
    } else {
        Err(OutputError::ScoreOutOfRange {
            agent: agent.into(),
            field: field.to_owned(),
            value: value.to_string(),
        })
    }
}

/// Parses a generator/refiner reply, dropping blank texts (trimmed of surrounding whitespace),
/// and requires at least `min` usable texts.
pub fn parse_instances(
    agent: AgentKind,
    json: &Value,
    min: usize,
) -> Result<Instances, OutputError> {
    let parsed: Instances = parse(agent, json)?;
    let instances: Vec<String> = parsed
        .instances
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if instances.len() < min.max(1) {
        return Err(OutputError::TooFewInstances {
            agent: agent.into(),
            usable: instances.len(),
            min: min.max(1),
        });
    }
    Ok(Instances { instances })
}

/// Parses and checks the fluency judge's reply.
pub fn parse_fluency(json: &Value) -> Result<FluencyResult, OutputError> {
    let r: FluencyResult = parse(AgentKind::Fluency, json)?;
    check_score(AgentKind::Fluency, "fluency_score", r.fluency_score)?;
    Ok(r)
}

/// Parses and checks the naturalness judge's reply.
pub fn parse_naturalness(json: &Value) -> Result<NaturalnessResult, OutputError> {
    let r: NaturalnessResult = parse(AgentKind::Naturalness, json)?;
    check_score(
        AgentKind::Naturalness,
        "naturalness_score",
        r.naturalness_score,
    )?;
    Ok(r)
}

/// Parses and checks the cs-ratio judge's reply (`computed_ratio` is clamped to 0–1 rather
/// than rejected: it is informative, the score is what counts).
pub fn parse_ratio(json: &Value) -> Result<RatioResult, OutputError> {
    let mut r: RatioResult = parse(AgentKind::CsRatio, json)?;
    check_score(AgentKind::CsRatio, "ratio_score", r.ratio_score)?;
    if !r.computed_ratio.is_finite() {
        r.computed_ratio = 0.0;
    }
    r.computed_ratio = r.computed_ratio.clamp(0.0, 1.0);
    Ok(r)
}

/// Parses and checks the socio-cultural judge's reply.
pub fn parse_socio_cultural(json: &Value) -> Result<SocioCulturalResult, OutputError> {
    let r: SocioCulturalResult = parse(AgentKind::SocioCultural, json)?;
    check_score(
        AgentKind::SocioCultural,
        "socio_cultural_score",
        r.socio_cultural_score,
    )?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_strict_mode_objects() {
        for agent in AgentKind::ALL {
            let schema = schema_for(agent, 3, 5);
            assert_eq!(schema["additionalProperties"], json!(false), "{agent}");
            let props: Vec<&String> = schema["properties"]
                .as_object()
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            let mut required: Vec<String> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            required.sort();
            let mut props: Vec<String> = props.into_iter().cloned().collect();
            props.sort();
            assert_eq!(props, required, "{agent}: every property must be required");
        }
    }

    #[test]
    fn instances_drop_blanks_and_enforce_minimum() {
        let ok = parse_instances(
            AgentKind::Generator,
            &json!({"instances": [" a ", "", "b", "c"]}),
            3,
        );
        assert_eq!(
            ok.map(|i| i.instances),
            Ok(vec!["a".to_string(), "b".into(), "c".into()])
        );
        let short = parse_instances(AgentKind::Generator, &json!({"instances": ["a", "  "]}), 3);
        assert_eq!(
            short,
            Err(OutputError::TooFewInstances {
                agent: AgentKind::Generator.into(),
                usable: 1,
                min: 3
            })
        );
        assert!(matches!(
            parse_instances(AgentKind::Refiner, &json!({"texts": []}), 3),
            Err(OutputError::Shape {
                agent: Agent::Role(AgentKind::Refiner),
                ..
            })
        ));
    }

    #[test]
    fn scores_outside_range_are_rejected() {
        let bad = parse_fluency(&json!({"fluency_score": 11, "errors": [], "summary": ""}));
        assert!(matches!(
            bad,
            Err(OutputError::ScoreOutOfRange { ref field, .. }) if field == "fluency_score"
        ));
        let neg =
            parse_socio_cultural(&json!({"socio_cultural_score": -1, "issues": [], "summary": ""}));
        assert!(matches!(neg, Err(OutputError::ScoreOutOfRange { .. })));
        let ok = parse_ratio(&json!({"ratio_score": 7, "computed_ratio": 1.4, "notes": "n"}));
        assert_eq!(ok.map(|r| r.computed_ratio), Ok(1.0));
    }

    #[test]
    fn observations_map_to_seed_shape() {
        let r = NaturalnessResult {
            naturalness_score: 8.5,
            observations: vec![
                Observation {
                    sentence: 1,
                    note: "boundary switch".into(),
                },
                Observation {
                    sentence: 2,
                    note: "natural".into(),
                },
                Observation {
                    sentence: 2,
                    note: "tag".into(),
                },
            ],
            summary: "fine".into(),
        };
        assert_eq!(
            r.to_record_value(),
            json!({"naturalness_score": 8.5, "observations": {"sentence_1": "boundary switch", "sentence_2": "natural tag"}, "summary": "fine"})
        );
    }

    #[test]
    fn ratio_verdicts_keep_the_record_shape() {
        let judge = RatioResult {
            ratio_score: 6.0,
            computed_ratio: 0.5,
            notes: "too much".into(),
        };
        assert_eq!(
            RatioVerdict::from_judge(judge.clone(), true, Some(8.0), Some(0.32)).to_record_value(),
            json!({"ratio_score": 7.0, "computed_ratio": 0.32, "notes": "too much",
                   "method": "hybrid", "llm_ratio_score": 6.0, "llm_computed_ratio": 0.5,
                   "measured_ratio_score": 8.0})
        );
        assert_eq!(
            RatioVerdict::from_judge(judge, true, None, None).to_record_value(),
            json!({"ratio_score": 6.0, "computed_ratio": 0.5, "notes": "too much",
                   "method": "llm", "llm_ratio_score": 6.0, "llm_computed_ratio": 0.5,
                   "measured_ratio_score": null})
        );
        let measured = RatioVerdict::measured(9.0, 0.3, 0.3);
        assert_eq!(
            measured.to_record_value(),
            json!({"ratio_score": 9.0, "computed_ratio": 0.3,
                   "notes": "measured embedded share 0.300 against target 0.300",
                   "method": "measured", "measured_ratio_score": 9.0})
        );
        let back: RatioVerdict =
            serde_json::from_value(measured.to_record_value()).expect("reads back");
        assert_eq!(back, measured);
    }
}
