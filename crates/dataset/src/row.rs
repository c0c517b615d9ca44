//! One exported row: a record's columns, built from the record alone (and the typed parameter
//! columns every row of an export shares, learnt in the scan).
//!
//! Per-sentence columns are lists parallel to `texts` (one element per utterance); `tokens` and
//! `tags` are LinCE-style parallel lists per sentence (one tag per token).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use runlog::ScenarioRecord;

/// Why a row is in the export (`included_as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncludedAs {
    /// Accepted by the run and not a duplicate: the default export.
    Accepted,
    /// Rejected by the run (`--include rejected`).
    Rejected,
    /// A duplicate of an earlier row (`--include duplicates`), accepted or not.
    Duplicate,
}

/// The type of a parameter's column (`param_<name>`), from every value it takes in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// Every value is `true`/`false`.
    Bool,
    /// Every value is an integer that fits an `i64`.
    Int,
    /// Every value is a number (some not integers).
    Float,
    /// Anything else: strings as they are, other values (objects, lists, mixed types across
    /// records) as their JSON text.
    Text,
}

impl ParamKind {
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Null => None,
            Value::Bool(_) => Some(Self::Bool),
            Value::Number(n) if n.is_i64() => Some(Self::Int),
            Value::Number(_) => Some(Self::Float),
            _ => Some(Self::Text),
        }
    }

    fn join(self, other: Self) -> Self {
        match (self, other) {
            (a, b) if a == b => a,
            (Self::Int | Self::Float, Self::Int | Self::Float) => Self::Float,
            _ => Self::Text,
        }
    }
}

/// The typed parameter columns of an export: every parameter name seen, with its type.
#[derive(Debug, Clone, Default)]
pub struct ParamColumns(BTreeMap<String, Option<ParamKind>>);

impl ParamColumns {
    /// Learns the names and types of `params` (called for every exported record).
    pub fn observe(&mut self, params: &BTreeMap<String, Value>) {
        for (name, value) in params {
            let kind = ParamKind::of(value);
            let entry = self.0.entry(name.clone()).or_insert(kind);
            *entry = match (*entry, kind) {
                (Some(a), Some(b)) => Some(a.join(b)),
                (a, b) => a.or(b),
            };
        }
    }

    /// Column names (`param_<name>`) and types, in name order (a parameter that is null in
    /// every record is a text column).
    pub fn columns(&self) -> impl Iterator<Item = (String, ParamKind)> + '_ {
        self.0
            .iter()
            .map(|(name, kind)| (format!("param_{name}"), kind.unwrap_or(ParamKind::Text)))
    }

    /// The typed values of `params`, one per column (null where absent or null).
    fn values(&self, params: &BTreeMap<String, Value>) -> Vec<Value> {
        self.0
            .iter()
            .map(|(name, kind)| {
                let v = params.get(name).unwrap_or(&Value::Null);
                match (kind.unwrap_or(ParamKind::Text), v) {
                    (_, Value::Null) => Value::Null,
                    (ParamKind::Text, Value::String(_)) => v.clone(),
                    (ParamKind::Text, other) => Value::String(other.to_string()),
                    (ParamKind::Float, Value::Number(n)) => {
                        n.as_f64().map_or(Value::Null, Value::from)
                    }
                    _ => v.clone(),
                }
            })
            .collect()
    }
}

/// One exported row (the JSONL line; the Parquet columns have the same names and types).
#[derive(Debug, Serialize)]
pub struct Row<'a> {
    /// Record id (one scenario, or one sample of it).
    pub id: &'a str,
    /// Why the row is here: `accepted`, `rejected` or `duplicate`.
    pub included_as: IncludedAs,
    /// Matrix language.
    pub first_language: Option<&'a str>,
    /// Embedded language.
    pub second_language: Option<&'a str>,
    /// The texts (one element per utterance).
    pub texts: &'a [String],
    /// Per sentence, its tokens (LinCE-style, parallel to `tags`).
    pub tokens: Vec<Vec<String>>,
    /// Per sentence, one tag per token: the language's ISO 639 code, the reason it is untagged
    /// (`number`, `name`, `ambiguous`, `other_language`, `symbol`), or `unavailable`.
    pub tags: Vec<Vec<String>>,
    /// Per sentence: `ok`, `low_coverage` or `unavailable` (null: a record written before
    /// tokens were kept, whose sentences cannot be judged one by one).
    pub sentence_status: Vec<Option<&'static str>>,
    /// Per sentence, the share of its language-bearing words that were tagged.
    pub sentence_coverage: Vec<Option<f64>>,
    /// Per sentence, the embedded-language share.
    pub sentence_embedded_ratio: Vec<Option<f64>>,
    /// Per sentence, its switch points.
    pub sentence_switch_points: Vec<Option<i64>>,
    /// Per sentence, its CMI.
    pub sentence_cmi: Vec<Option<f64>>,
    /// Weighted judge score, 0–10.
    pub score: f64,
    /// Accepted by the run.
    pub accepted: bool,
    /// Judge scores.
    pub fluency: Option<f64>,
    /// Judge scores.
    pub naturalness: Option<f64>,
    /// Judge scores.
    pub cs_ratio: Option<f64>,
    /// Judge scores.
    pub socio_cultural: Option<f64>,
    /// The judges' feedback on the kept texts, as a JSON object text (`fluency`,
    /// `naturalness`, `cs_ratio`, `socio_cultural`: each judge's result as recorded).
    pub judge_feedback: String,
    /// The record's one-paragraph summary of the decision.
    pub summary: &'a str,
    /// Attempts made (1 + refinements; 0 for a record without its history).
    pub attempts: i64,
    /// The weighted score of each attempt, first to last.
    pub attempt_scores: Vec<f64>,
    /// `ok`, `low_coverage`, `unavailable`, or null (no measurement).
    pub measurement_status: Option<&'a str>,
    /// Share of words tagged with a language of the pair.
    pub coverage: Option<f64>,
    /// Embedded-language share (null unless measured).
    pub embedded_ratio: Option<f64>,
    /// Switch points (null unless measured).
    pub switch_points: Option<i64>,
    /// Code-Mixing Index (null unless measured).
    pub cmi: Option<f64>,
    /// M-index (null unless measured).
    pub m_index: Option<f64>,
    /// I-index (null unless measured).
    pub i_index: Option<f64>,
    /// Burstiness (null unless measured with at least one switch).
    pub burstiness: Option<f64>,
    /// The accept gate's decision (null: undecided, off, or absent).
    pub gate_passed: Option<bool>,
    /// The accept gate's reason (null: no gate).
    pub gate_reason: Option<&'a str>,
    /// Id of the record this one duplicates (`--include duplicates` with `--dedup mark`).
    pub duplicate_of: Option<&'a str>,
    /// Every scenario parameter, as a JSON object text (kept for round trips).
    pub params: String,
    /// Model per agent, as a JSON object text.
    pub models: String,
    /// One typed column per parameter (`param_<name>`), in [`ParamColumns`] order.
    #[serde(skip)]
    pub param_values: Vec<Value>,
    /// `param_values` keyed by column name, for the JSONL line.
    #[serde(flatten)]
    pub param_map: BTreeMap<String, Value>,
}

impl<'a> Row<'a> {
    /// The row of `record`.
    #[must_use]
    pub fn new(
        record: &'a ScenarioRecord,
        included_as: IncludedAs,
        duplicate_of: Option<&'a str>,
        params: &ParamColumns,
    ) -> Self {
        let figure = |key: &str| {
            record
                .measurement
                .as_ref()
                .and_then(|m| m.get(key))
                .filter(|v| !v.is_null())
        };
        let score = |j: &str| record.scores.get(j).copied();
        let status = record
            .measurement
            .as_ref()
            .and_then(|m| m.get("status").and_then(Value::as_str));
        let sentences = Sentences::of(record, status);
        let param_values = params.values(&record.params);
        let param_map = params
            .columns()
            .map(|(name, _)| name)
            .zip(param_values.iter().cloned())
            .collect();
        Self {
            id: &record.id,
            included_as,
            first_language: param_str(record, "first_language"),
            second_language: param_str(record, "second_language"),
            texts: &record.data_generation_result,
            tokens: sentences.tokens,
            tags: sentences.tags,
            sentence_status: sentences.status,
            sentence_coverage: sentences.coverage,
            sentence_embedded_ratio: sentences.embedded_ratio,
            sentence_switch_points: sentences.switch_points,
            sentence_cmi: sentences.cmi,
            score: record.score,
            accepted: record.accepted,
            fluency: score("fluency"),
            naturalness: score("naturalness"),
            cs_ratio: score("cs_ratio"),
            socio_cultural: score("socio_cultural"),
            judge_feedback: serde_json::json!({
                "fluency": record.fluency_result,
                "naturalness": record.naturalness_result,
                "cs_ratio": record.cs_ratio_result,
                "socio_cultural": record.social_cultural_result,
            })
            .to_string(),
            summary: &record.summary,
            attempts: i64::try_from(record.attempts.len()).unwrap_or(i64::MAX),
            attempt_scores: record.attempts.iter().map(|a| a.score).collect(),
            measurement_status: status,
            coverage: figure("coverage").and_then(Value::as_f64),
            embedded_ratio: figure("embedded_ratio").and_then(Value::as_f64),
            switch_points: figure("switch_points").and_then(Value::as_i64),
            cmi: figure("cmi").and_then(Value::as_f64),
            m_index: figure("m_index").and_then(Value::as_f64),
            i_index: figure("i_index").and_then(Value::as_f64),
            burstiness: figure("burstiness").and_then(Value::as_f64),
            gate_passed: record.gate.as_ref().and_then(|g| g.passed),
            gate_reason: record.gate.as_ref().map(|g| g.reason.as_str()),
            duplicate_of,
            params: serde_json::to_string(&record.params).unwrap_or_default(),
            models: serde_json::to_string(&record.models).unwrap_or_default(),
            param_values,
            param_map,
        }
    }
}

pub(crate) fn param_str<'a>(record: &'a ScenarioRecord, key: &str) -> Option<&'a str> {
    record.params.get(key).and_then(Value::as_str)
}

/// The per-sentence columns of a record.
#[derive(Default)]
struct Sentences {
    tokens: Vec<Vec<String>>,
    tags: Vec<Vec<String>>,
    status: Vec<Option<&'static str>>,
    coverage: Vec<Option<f64>>,
    embedded_ratio: Vec<Option<f64>>,
    switch_points: Vec<Option<i64>>,
    cmi: Vec<Option<f64>>,
}

impl Sentences {
    /// One entry per text. A sentence's tokens and tags come from its measurement; where there
    /// is none (the measurement is unavailable or absent, or the record predates tokens) the
    /// tokens are the text's words and every tag is `unavailable`.
    fn of(record: &ScenarioRecord, status: Option<&str>) -> Self {
        let measured = matches!(status, Some("ok" | "low_coverage"));
        let sentences = record
            .measurement
            .as_ref()
            .and_then(|m| m.get("sentences"))
            .and_then(Value::as_array)
            .filter(|_| measured);
        let mut out = Self::default();
        for (i, text) in record.data_generation_result.iter().enumerate() {
            let sentence = sentences.and_then(|s| s.get(i));
            let tokens = sentence
                .and_then(|s| s.get("tokens"))
                .and_then(Value::as_array)
                .filter(|t| !t.is_empty());
            let number = |key: &str| sentence.and_then(|s| s.get(key)).and_then(Value::as_f64);
            if let Some(tokens) = tokens {
                let (words, tags): (Vec<String>, Vec<String>) = tokens.iter().map(token).unzip();
                let (mut status, coverage) = sentence_status(&tags);
                if status == "ok" && too_uncertain(sentence) {
                    status = "low_coverage";
                }
                out.tokens.push(words);
                out.tags.push(tags);
                out.status.push(Some(status));
                out.coverage.push(coverage);
            } else {
                let words: Vec<String> = codeswitch::words::words(text).collect();
                out.tags.push(vec!["unavailable".to_owned(); words.len()]);
                out.tokens.push(words);
                out.status.push((!measured).then_some("unavailable"));
                out.coverage.push(None);
            }
            out.embedded_ratio.push(number("embedded_ratio"));
            out.switch_points.push(
                sentence
                    .and_then(|s| s.get("switch_points"))
                    .and_then(Value::as_i64),
            );
            out.cmi.push(number("cmi"));
        }
        out
    }
}

/// A measured token's text and tag (`{"text": …, "tag": {"lang": "English"}}` →
/// `("…", "en")`; `{"untagged": "number"}` → `"number"`).
fn token(t: &Value) -> (String, String) {
    let text = t.get("text").and_then(Value::as_str).unwrap_or_default();
    let tag = t.get("tag");
    let tag = if let Some(lang) = tag.and_then(|g| g.get("lang")).and_then(Value::as_str) {
        super::iso_code(lang).map_or_else(|| lang.to_lowercase(), str::to_owned)
    } else if let Some(reason) = tag.and_then(|g| g.get("untagged")).and_then(Value::as_str) {
        reason.to_owned()
    } else {
        "unavailable".to_owned()
    };
    (text.to_owned(), tag)
}

/// Whether a measured sentence's share could be more than the measurement's tolerance off,
/// by the range over its uncertain words it records (`ratio_range`; absent in records written
/// before it was kept, and when no word is uncertain).
fn too_uncertain(sentence: Option<&Value>) -> bool {
    let Some(s) = sentence else { return false };
    let range = s
        .get("ratio_range")
        .and_then(|r| serde_json::from_value::<codeswitch::RatioRange>(r.clone()).ok());
    let ratio = s.get("embedded_ratio").and_then(Value::as_f64);
    match (range, ratio) {
        (Some(range), Some(ratio)) => {
            range.max_error(ratio) > codeswitch::RATIO_UNCERTAINTY_TOLERANCE + 1e-9
        }
        _ => false,
    }
}

/// A sentence's status and coverage from its tags, by the measurement's own rule
/// ([`codeswitch::MIN_COVERAGE`] of the language-bearing words tagged).
fn sentence_status(tags: &[String]) -> (&'static str, Option<f64>) {
    let untagged_words = |t: &str| matches!(t, "ambiguous" | "other_language");
    let not_words = |t: &str| matches!(t, "number" | "name" | "symbol" | "unavailable");
    let tagged = tags
        .iter()
        .filter(|t| !untagged_words(t) && !not_words(t))
        .count();
    let bearing = tagged + tags.iter().filter(|t| untagged_words(t)).count();
    let coverage = (bearing > 0).then(|| tagged as f64 / bearing as f64);
    let status = match coverage {
        _ if tagged == 0 => "unavailable",
        Some(c) if c < codeswitch::MIN_COVERAGE => "low_coverage",
        _ => "ok",
    };
    (status, coverage)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::too_uncertain;

    /// Issue 26: a sentence whose share could be more than the tolerance off (its recorded
    /// `ratio_range`) is `low_coverage` in the export, as in the measurement; an older record
    /// without the range, or a narrow range, changes nothing.
    #[test]
    fn a_sentence_with_a_wide_ratio_range_is_too_uncertain() {
        let wide = json!({"embedded_ratio": 0.33, "ratio_range":
            {"low": 0.0, "high": 0.33, "uncertain_words": 2, "language_words": 6}});
        assert!(too_uncertain(Some(&wide)));
        let narrow = json!({"embedded_ratio": 0.5, "ratio_range":
            {"low": 0.45, "high": 0.55, "uncertain_words": 1, "language_words": 20}});
        assert!(!too_uncertain(Some(&narrow)));
        assert!(!too_uncertain(Some(&json!({"embedded_ratio": 0.33}))));
        assert!(!too_uncertain(None));
    }
}
