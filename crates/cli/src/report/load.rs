//! Reading result files: detects whether a file is a data-pipeline output (JSONL, one
//! `ScenarioRecord` per line) or a bot-suite result (the `--json` output of `test`), and parses it
//! into [`Results`]. Pipeline records are read tolerantly through `serde_json::Value` so that
//! runs written by older versions (fields missing) still load; only `id`, `score` and `accepted`
//! are required. Every error names the file and, where there is one, the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agents::pipeline::record::RECORD_FIELDS;
use agents::suite::SuiteResult;
use serde_json::Value;

/// Why a results file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read at all.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file has no result in it.
    #[error("{}: empty results file", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A line (or the whole document) is not valid JSON, or lacks a required field.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// What kind of results a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultsKind {
    /// Data-pipeline JSONL.
    Pipeline,
    /// Bot-suite JSON.
    Suite,
}

impl ResultsKind {
    /// A short human name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Pipeline => "pipeline run",
            Self::Suite => "bot suite",
        }
    }
}

/// A loaded results file.
#[derive(Debug, Clone)]
pub enum Results {
    /// Data-pipeline records, in file order.
    Pipeline(Vec<RunRecord>),
    /// A bot-suite result.
    Suite(SuiteResult),
}

impl Results {
    /// The kind of results.
    #[must_use]
    pub fn kind(&self) -> ResultsKind {
        match self {
            Self::Pipeline(_) => ResultsKind::Pipeline,
            Self::Suite(_) => ResultsKind::Suite,
        }
    }
}

/// One judged attempt of a record, reduced to what reports show.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptScore {
    /// 0 for the generator's batch, n for the n-th refinement.
    pub attempt: u32,
    /// Weighted score of the attempt.
    pub score: f64,
}

/// One data-pipeline record as reports see it (a tolerant view of `ScenarioRecord`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// Stable scenario id.
    pub id: String,
    /// 1-based line of the record in its file.
    pub line: usize,
    /// The scenario parameters (every top-level field that is not a record field).
    pub params: BTreeMap<String, Value>,
    /// Score reached the threshold.
    pub accepted: bool,
    /// Final weighted score (0–10).
    pub score: f64,
    /// Final judge scores by weight name.
    pub scores: BTreeMap<String, f64>,
    /// Refinements made.
    pub refine_count: u32,
    /// Every attempt's score, first to last.
    pub attempts: Vec<AttemptScore>,
    /// The final texts.
    pub texts: Vec<String>,
    /// Final judge results by judge (`fluency`, `naturalness`, `cs_ratio`, `socio_cultural`).
    pub judge_results: BTreeMap<String, Value>,
    /// Measured embedded-language share of the final texts (0–1), when words were tagged.
    pub measured_ratio: Option<f64>,
    /// Model per agent.
    pub models: BTreeMap<String, String>,
    /// Prompt tokens over all calls.
    pub prompt_tokens: u64,
    /// Completion tokens over all calls.
    pub completion_tokens: u64,
    /// Cost in USD.
    pub cost_usd: f64,
    /// Calls made.
    pub calls: u64,
    /// Calls served by the cache.
    pub cache_hits: u64,
}

/// The record fields holding judge results, and the judge name reports use for each.
const JUDGE_FIELDS: [(&str, &str); 4] = [
    ("fluency_result", "fluency"),
    ("naturalness_result", "naturalness"),
    ("cs_ratio_result", "cs_ratio"),
    ("social_cultural_result", "socio_cultural"),
];

impl RunRecord {
    /// Reads a record from one JSON object; `Err` says which required field is missing or wrong.
    ///
    /// # Errors
    /// A message naming the field when `id`, `score` or `accepted` is missing or mistyped.
    pub fn from_value(value: &Value, line: usize) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err("a pipeline record must be a JSON object".to_owned());
        };
        let id = map
            .get("id")
            .and_then(Value::as_str)
            .ok_or("record has no string `id`")?
            .to_owned();
        let score = map
            .get("score")
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("record `{id}` has no numeric `score`"))?;
        let accepted = map
            .get("accepted")
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("record `{id}` has no boolean `accepted`"))?;
        let params = map
            .iter()
            .filter(|(k, _)| !RECORD_FIELDS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let scores = number_map(map.get("scores"));
        let attempts = map
            .get("attempts")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|a| {
                        Some(AttemptScore {
                            attempt: u32::try_from(a.get("attempt")?.as_u64()?).ok()?,
                            score: a.get("score")?.as_f64()?,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let texts = map
            .get("data_generation_result")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let judge_results = JUDGE_FIELDS
            .iter()
            .filter_map(|(field, judge)| Some(((*judge).to_owned(), map.get(*field)?.clone())))
            .collect();
        let measured_ratio = measured_ratio(map.get("measurement"));
        let models = map
            .get("models")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let u64_at = |pointer: &str| value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
        Ok(Self {
            line,
            params,
            accepted,
            score,
            scores,
            refine_count: u32::try_from(u64_at("/refine_count")).unwrap_or(u32::MAX),
            attempts,
            texts,
            judge_results,
            measured_ratio,
            models,
            prompt_tokens: u64_at("/usage/prompt_tokens"),
            completion_tokens: u64_at("/usage/completion_tokens"),
            cost_usd: map.get("cost_usd").and_then(Value::as_f64).unwrap_or(0.0),
            calls: u64_at("/calls"),
            cache_hits: u64_at("/cache_hits"),
            id,
        })
    }
}

fn number_map(value: Option<&Value>) -> BTreeMap<String, f64> {
    value
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// The embedded share of a `scoring::codeswitch::Measurement`, `None` when no word was tagged
/// (its `embedded_ratio` is then 0, which means "unknown", not "no switching").
fn measured_ratio(measurement: Option<&Value>) -> Option<f64> {
    let m = measurement?;
    let tagged = ["/tagged/first", "/tagged/second"]
        .iter()
        .filter_map(|p| m.pointer(p).and_then(Value::as_u64))
        .sum::<u64>();
    m.get("embedded_ratio")
        .and_then(Value::as_f64)
        .filter(|r| r.is_finite() && tagged > 0)
}

/// Loads a results file, detecting its kind.
///
/// # Errors
/// See [`LoadError`].
pub fn load(path: &Path) -> Result<Results, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    let results = parse(path, &text)?;
    tracing::debug!(path = %path.display(), kind = results.kind().name(), "results loaded");
    Ok(results)
}

/// Parses the text of a results file (`path` is only used in errors).
///
/// A suite result is one JSON document (usually pretty-printed) with a `scenarios` array; a
/// pipeline output has one JSON object per line. The whole text is tried as one document first,
/// and a document that is not a suite must then be JSONL, whose errors point at their line.
///
/// # Errors
/// See [`LoadError`].
pub fn parse(path: &Path, text: &str) -> Result<Results, LoadError> {
    let invalid = |line: usize, message: String| LoadError::Invalid {
        path: path.to_owned(),
        line,
        message,
    };
    if text.trim().is_empty() {
        return Err(LoadError::Empty {
            path: path.to_owned(),
        });
    }
    match serde_json::from_str::<Value>(text) {
        Ok(doc) if doc.get("scenarios").is_some_and(Value::is_array) => {
            return serde_json::from_value::<SuiteResult>(doc)
                .map(Results::Suite)
                .map_err(|e| invalid(1, format!("not a suite result: {e}")));
        }
        Ok(_) => {}
        Err(e) => {
            // A pretty-printed document that fails somewhere: its first line is not a complete
            // JSON value on its own, so this is not JSONL and the document error is the one to show.
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if serde_json::from_str::<Value>(first).is_err() {
                return Err(invalid(e.line(), e.to_string()));
            }
        }
    }
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| invalid(number, format!("invalid JSON: {e}")))?;
        records.push(RunRecord::from_value(&value, number).map_err(|m| invalid(number, m))?);
    }
    Ok(Results::Pipeline(records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p() -> &'static Path {
        Path::new("r.jsonl")
    }

    #[test]
    fn jsonl_records_keep_params_and_tolerate_missing_fields() {
        let text = format!(
            "{}\n\n{}\n",
            json!({"id": "a", "score": 8.5, "accepted": true, "topic": "travel", "index": 3,
                   "measurement": {"embedded_ratio": 0.4, "tagged": {"first": 6, "second": 4}}}),
            json!({"id": "b", "score": 2.0, "accepted": false, "measurement": {"embedded_ratio": 0.0, "tagged": {"first": 0, "second": 0}}})
        );
        let Ok(Results::Pipeline(records)) = parse(p(), &text) else {
            panic!("expected pipeline records");
        };
        assert_eq!(records.len(), 2);
        assert_eq!(
            records[0].params,
            BTreeMap::from([("topic".into(), json!("travel"))])
        );
        assert_eq!(records[0].measured_ratio, Some(0.4));
        assert_eq!(records[1].line, 3);
        assert_eq!(records[1].measured_ratio, None);
    }

    #[test]
    fn bad_lines_are_located() {
        let text = "{\"id\":\"a\",\"score\":1,\"accepted\":true}\n{\"id\":\"b\",\"score\":2}\n";
        let err = parse(p(), text).expect_err("missing accepted");
        assert_eq!(
            err.to_string(),
            "r.jsonl:2: record `b` has no boolean `accepted`"
        );
        let err = parse(p(), "{\"id\":\"a\",\"score\":1,\"accepted\":true}\n{oops\n")
            .expect_err("broken JSON");
        assert!(
            err.to_string().starts_with("r.jsonl:2: invalid JSON"),
            "{err}"
        );
        assert!(matches!(parse(p(), " \n"), Err(LoadError::Empty { .. })));
    }

    #[test]
    fn suite_documents_are_detected_and_their_errors_located() {
        let doc = json!({"suite": "s", "repeat": 1, "scenarios": []});
        let text = serde_json::to_string_pretty(&doc).expect("serializes");
        assert!(matches!(parse(p(), &text), Ok(Results::Suite(s)) if s.suite == "s"));
        let err = parse(p(), "{\n  \"suite\": \"s\",\n  oops\n}\n").expect_err("broken");
        assert!(err.to_string().starts_with("r.jsonl:3:"), "{err}");
    }
}
