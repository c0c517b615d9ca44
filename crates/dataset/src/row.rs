//! One exported row: a record's columns, built from the record alone (and the typed parameter
//! columns every row of an export shares, learnt in the scan).
//!
//! Per-sentence columns are lists parallel to `texts` (one element per utterance); `tokens` and
//! `tags` are LinCE-style parallel lists per sentence (one tag per token).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use runlog::ScenarioRecord;
use runlog::record::unflatten_params;

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
    /// Every value is an integer that fits an `i64` (exact, however large).
    Int,
    /// Every value is a number, some not integers, and every integer among them is exact in an
    /// `f64` (at most 2^53 in magnitude).
    Float,
    /// Every value is a string: the strings as they are.
    Text,
    /// Anything else (objects, lists, types mixed across records, integers beyond `i64`, or
    /// integers beyond 2^53 mixed with fractions): every value as its JSON text, so the string
    /// `"true"` (`"\"true\""`) and the boolean `true` (`"true"`) stay apart and big integers
    /// stay exact.
    Json,
}

/// Integers of at most this magnitude are exact in an `f64`.
const F64_EXACT_INT: u64 = 1 << 53;

impl ParamKind {
    fn of(value: &Value) -> Option<Self> {
        match value {
            Value::Null => None,
            Value::Bool(_) => Some(Self::Bool),
            Value::Number(n) if n.is_i64() => Some(Self::Int),
            // Beyond i64 (a u64): no int64 column holds it, and a float would round it.
            Value::Number(n) if n.is_u64() => Some(Self::Json),
            Value::Number(_) => Some(Self::Float),
            Value::String(_) => Some(Self::Text),
            _ => Some(Self::Json),
        }
    }

    fn join(self, other: Self) -> Self {
        match (self, other) {
            (a, b) if a == b => a,
            (Self::Int | Self::Float, Self::Int | Self::Float) => Self::Float,
            _ => Self::Json,
        }
    }
}

/// What the scan saw of one parameter: the joined kind (`None`: only nulls) and whether an
/// integer too large for an exact `f64` was among the values.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    kind: Option<ParamKind>,
    big_int: bool,
}

impl Seen {
    fn kind(self) -> ParamKind {
        match self.kind {
            // A float column would round the big integer: its values are kept as JSON text.
            Some(ParamKind::Float) if self.big_int => ParamKind::Json,
            Some(kind) => kind,
            None => ParamKind::Text,
        }
    }
}

/// The typed parameter columns of an export: every parameter name seen, with its type.
#[derive(Debug, Clone, Default)]
pub struct ParamColumns(BTreeMap<String, Seen>);

impl ParamColumns {
    /// Learns the names and types of `params` (called for every exported record).
    pub fn observe(&mut self, params: &BTreeMap<String, Value>) {
        for (name, value) in params {
            let kind = ParamKind::of(value);
            let entry = self.0.entry(name.clone()).or_default();
            entry.kind = match (entry.kind, kind) {
                (Some(a), Some(b)) => Some(a.join(b)),
                (a, b) => a.or(b),
            };
            entry.big_int |= value
                .as_i64()
                .is_some_and(|n| n.unsigned_abs() > F64_EXACT_INT);
        }
    }

    /// Column names (`param_<name>`) and types, in name order (a parameter that is null in
    /// every record is a text column).
    pub fn columns(&self) -> impl Iterator<Item = (String, ParamKind)> + '_ {
        self.0
            .iter()
            .map(|(name, seen)| (format!("param_{name}"), seen.kind()))
    }

    /// Every column's name and type: [`COLUMNS`], then the parameter columns.
    #[must_use]
    pub fn features(&self) -> Vec<(String, Feature)> {
        let dtype = |kind| match kind {
            ParamKind::Bool => "bool",
            ParamKind::Int => "int64",
            ParamKind::Float => "float64",
            ParamKind::Text | ParamKind::Json => "string",
        };
        COLUMNS
            .iter()
            .map(|(name, feature)| ((*name).to_owned(), *feature))
            .chain(
                self.columns()
                    .map(|(name, kind)| (name, Feature::Value(dtype(kind)))),
            )
            .collect()
    }

    /// The typed values of `params`, one per column (null where absent or null).
    fn values(&self, params: &BTreeMap<String, Value>) -> Vec<Value> {
        self.0
            .iter()
            .map(|(name, seen)| {
                let v = params.get(name).unwrap_or(&Value::Null);
                match (seen.kind(), v) {
                    (_, Value::Null) => Value::Null,
                    (ParamKind::Json, other) => Value::String(other.to_string()),
                    (ParamKind::Float, Value::Number(n)) => {
                        n.as_f64().map_or(Value::Null, Value::from)
                    }
                    _ => v.clone(),
                }
            })
            .collect()
    }
}

/// A column's type as the card's `dataset_info.features` states it (the Hub's YAML): a value,
/// a list of values, or a list of lists, of one `datasets` dtype. With the types on the card,
/// `datasets.load_dataset` reads every split with the same schema: a JSONL column that is null
/// in every row of one split and typed in another still loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "shape", content = "dtype", rename_all = "snake_case")]
pub enum Feature {
    /// One value.
    Value(&'static str),
    /// A list of values.
    List(&'static str),
    /// A list of lists of values.
    ListOfLists(&'static str),
}

/// The row's columns before the parameter columns, in [`Row`] order, with their types.
pub const COLUMNS: [(&str, Feature); 38] = {
    use Feature::{List, ListOfLists, Value};
    [
        ("id", Value("string")),
        ("included_as", Value("string")),
        ("first_language", Value("string")),
        ("second_language", Value("string")),
        ("texts", List("string")),
        ("tokens", ListOfLists("string")),
        ("tags", ListOfLists("string")),
        ("sentence_status", List("string")),
        ("sentence_coverage", List("float64")),
        ("sentence_embedded_ratio", List("float64")),
        ("sentence_switch_points", List("int64")),
        ("sentence_cmi", List("float64")),
        ("sentences_recomputed", Value("bool")),
        ("score", Value("float64")),
        ("accepted", Value("bool")),
        ("fluency", Value("float64")),
        ("naturalness", Value("float64")),
        ("cs_ratio", Value("float64")),
        ("socio_cultural", Value("float64")),
        ("judge_scores", Value("string")),
        ("judge_feedback", Value("string")),
        ("summary", Value("string")),
        ("attempts", Value("int64")),
        ("attempt_scores", List("float64")),
        ("measurement_status", Value("string")),
        ("coverage", Value("float64")),
        ("embedded_ratio", Value("float64")),
        ("cmi", Value("float64")),
        ("m_index", Value("float64")),
        ("i_index", Value("float64")),
        ("burstiness", Value("float64")),
        ("switch_points", Value("int64")),
        ("gate_passed", Value("bool")),
        ("gate_reason", Value("string")),
        ("grounding", Value("string")),
        ("duplicate_of", Value("string")),
        ("params", Value("string")),
        ("models", Value("string")),
    ]
};

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
    ///
    /// This and the other nullable per-sentence lists are null as a whole where every item
    /// would be null (pyarrow's JSON reader cannot read a list column of nulls).
    pub sentence_status: Option<Vec<Option<&'static str>>>,
    /// Per sentence, the share of its language-bearing words that were tagged.
    pub sentence_coverage: Option<Vec<Option<f64>>>,
    /// Per sentence, the embedded-language share.
    pub sentence_embedded_ratio: Option<Vec<Option<f64>>>,
    /// Per sentence, its switch points.
    pub sentence_switch_points: Option<Vec<Option<i64>>>,
    /// Per sentence, its CMI.
    pub sentence_cmi: Option<Vec<Option<f64>>>,
    /// The tokens, tags and per-sentence figures were measured again at export (a record
    /// written before tokens were kept), reproducing every figure the record holds.
    pub sentences_recomputed: bool,
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
    /// Every judge's score, the four and those the run's config declared (`toxicity`, …), as a
    /// JSON object text: one column for any set of judges.
    pub judge_scores: String,
    /// The judges' feedback on the kept texts, as a JSON object text (`fluency`,
    /// `naturalness`, `cs_ratio`, `socio_cultural` and each declared judge by its name: each
    /// judge's result as recorded).
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
    /// What the generation was grounded in, for a scenario that asked for grounding
    /// (`use_tools`): `none: …` says its texts were not grounded and why; an article is its
    /// record's `grounding` object as JSON text (title, source, url, …). Null where the scenario
    /// did not ask.
    pub grounding: Option<std::borrow::Cow<'a, str>>,
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
        // The scenario's parameters under their own names (a record stores an axis named like
        // one of its fields, `score`, as `param_score`).
        let scenario_params = unflatten_params(&record.params);
        let param_values = params.values(&scenario_params);
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
            sentence_status: all_null_as_none(sentences.status),
            sentence_coverage: all_null_as_none(sentences.coverage),
            sentence_embedded_ratio: all_null_as_none(sentences.embedded_ratio),
            sentence_switch_points: all_null_as_none(sentences.switch_points),
            sentence_cmi: all_null_as_none(sentences.cmi),
            sentences_recomputed: sentences.recomputed,
            score: record.score,
            accepted: record.accepted,
            fluency: score("fluency"),
            naturalness: score("naturalness"),
            cs_ratio: score("cs_ratio"),
            socio_cultural: score("socio_cultural"),
            judge_scores: serde_json::to_string(&record.scores).unwrap_or_default(),
            judge_feedback: judge_feedback(record),
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
            grounding: record.grounding.as_ref().map(runlog::Grounding::to_text),
            duplicate_of,
            params: serde_json::to_string(&scenario_params).unwrap_or_default(),
            models: serde_json::to_string(&record.models).unwrap_or_default(),
            param_values,
            param_map,
        }
    }
}

/// A per-sentence list whose every item is null, as null (an empty list stays empty):
/// pyarrow's JSON reader (21.0) builds an invalid array for a list column whose items are all
/// null in a file (its values shorter than its offsets), so `datasets.load_dataset` could not
/// read a JSONL split where no sentence has the figure. Parquet follows the same rule, so both
/// formats hold the same values.
fn all_null_as_none<T>(items: Vec<Option<T>>) -> Option<Vec<Option<T>>> {
    (items.is_empty() || items.iter().any(Option::is_some)).then_some(items)
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
    recomputed: bool,
}

impl Sentences {
    /// One entry per text. A sentence's tokens, tags and figures come from its measurement.
    /// A record written before tokens were kept (record v1: per-sentence figures, or only the
    /// whole-record figures, and no tokens) is measured again with the same measurement
    /// ([`codeswitch::measure`]), and the result is used only where it reproduces every figure
    /// the record holds: then its tokens, tags and per-sentence figures are the measurement's.
    /// Otherwise (the measurement has changed since, or the pair is not measurable) the
    /// recorded figures are kept, the tokens are the text's words and every tag is
    /// `unavailable`; the sentence status is then null (measured, but not judged one by one),
    /// and `unavailable` only where the record's measurement is unavailable or absent.
    fn of(record: &ScenarioRecord, status: Option<&str>) -> Self {
        let measurement = record
            .measurement
            .as_ref()
            .filter(|_| status != Some("unavailable"));
        // Per-sentence entries that are not one per text belong to other texts: not read.
        let recorded = measurement
            .and_then(|m| m.get("sentences"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .filter(|s| s.len() == record.data_generation_result.len());
        let has_tokens = recorded.is_some_and(|sentences| {
            sentences.iter().any(|s| {
                s.get("tokens")
                    .and_then(Value::as_array)
                    .is_some_and(|t| !t.is_empty())
            })
        });
        if let Some(m) = measurement.filter(|_| !has_tokens)
            && let Some(again) = recompute(record, m)
        {
            let mut out = Self::from_measured(&record.data_generation_result, Some(&again), true);
            out.recomputed = true;
            return out;
        }
        Self::from_measured(
            &record.data_generation_result,
            recorded,
            measurement.is_some(),
        )
    }

    /// The columns from `sentences` (the measurement's per-sentence entries, parallel to
    /// `texts`); `measured`: the record has a measurement that is not unavailable.
    fn from_measured(texts: &[String], sentences: Option<&[Value]>, measured: bool) -> Self {
        let mut out = Self::default();
        for (i, text) in texts.iter().enumerate() {
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

/// The per-sentence entries of `record`'s texts measured again, when the measurement of today
/// reproduces every figure `recorded` holds (its per-sentence figures where it has them, and
/// its whole-record figures): `None` when it does not, when the pair is not measurable, or
/// when the record holds no figure to check against.
fn recompute(record: &ScenarioRecord, recorded: &Value) -> Option<Vec<Value>> {
    let first = param_str(record, "first_language")?;
    let second = param_str(record, "second_language")?;
    let texts = &record.data_generation_result;
    let again = codeswitch::measure(texts, first, second).ok()?;
    if !again.is_available() || again.sentences.len() != texts.len() {
        return None;
    }
    let again = serde_json::to_value(&again).ok()?;
    let same = |a: &Value, b: &Value, key: &str| match (a.get(key), b.get(key)) {
        (Some(x), Some(y)) if !x.is_null() => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => Some((x - y).abs() <= 1e-9 * x.abs().max(1.0)),
            _ => Some(false),
        },
        _ => None,
    };
    const FIGURES: [&str; 3] = ["embedded_ratio", "switch_points", "cmi"];
    let mut checked = 0;
    let mut check = |a: &Value, b: &Value| {
        FIGURES.iter().all(|key| match same(a, b, key) {
            Some(equal) => {
                checked += 1;
                equal
            }
            None => true,
        })
    };
    if !check(recorded, &again) {
        return None;
    }
    let sentences = again.get("sentences")?.as_array()?.clone();
    if let Some(old) = recorded.get("sentences").and_then(Value::as_array)
        && !old.is_empty()
        && (old.len() != sentences.len() || !old.iter().zip(&sentences).all(|(a, b)| check(a, b)))
    {
        return None;
    }
    (checked > 0).then_some(sentences)
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

/// The `judge_feedback` column: each judge's result as recorded, the four under their names
/// and each declared judge under its own (a declared judge cannot take a built-in's name; a
/// record that says otherwise keeps the built-in's result).
fn judge_feedback(record: &ScenarioRecord) -> String {
    let mut feedback = serde_json::Map::new();
    for (name, result) in &record.judge_results {
        feedback.insert(name.clone(), result.clone());
    }
    for (name, result) in [
        ("fluency", &record.fluency_result),
        ("naturalness", &record.naturalness_result),
        ("cs_ratio", &record.cs_ratio_result),
        ("socio_cultural", &record.social_cultural_result),
    ] {
        feedback.insert(name.to_owned(), result.clone());
    }
    Value::Object(feedback).to_string()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{judge_feedback, too_uncertain};
    use runlog::ScenarioRecord;

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

    /// A judge the run's config declared is in the row: its score in `judge_scores`, its reply
    /// in `judge_feedback`, never dropped; a built-in judge's result is never replaced by it.
    #[test]
    fn a_declared_judge_is_in_the_judge_columns() {
        let record: ScenarioRecord = serde_json::from_value(json!({
            "id": "a", "score": 8.5, "accepted": true,
            "scores": {"fluency": 9.0, "toxicity": 7.0},
            "fluency_result": {"fluency_score": 9.0},
            "judge_results": {"toxicity": {"toxicity_score": 7.0, "reason": "one insult"},
                              "fluency": {"bogus": true}},
        }))
        .expect("record");
        let feedback: serde_json::Value =
            serde_json::from_str(&judge_feedback(&record)).expect("JSON");
        assert_eq!(feedback["toxicity"]["reason"], json!("one insult"));
        assert_eq!(feedback["fluency"], json!({"fluency_score": 9.0}));
        let scores = serde_json::to_string(&record.scores).expect("JSON");
        assert_eq!(scores, r#"{"fluency":9.0,"toxicity":7.0}"#);
    }
}
