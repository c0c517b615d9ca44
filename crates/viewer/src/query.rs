//! The records table's filters and sort, read from a query string's pairs:
//! `status=accepted|rejected|failed`, `p.NAME=VALUE` (a parameter's value, as the report
//! writes it), `min.JUDGE=` / `max.JUDGE=` (a judge's score range, inclusive), `gate=passed|
//! failed|undecided|none`, `measurement=measured|unavailable|none`, `q=` (words in the texts,
//! case ignored), `sort=file|newest|score|-score`, `page=N` (from 1). A value that cannot be
//! read is named in [`RecordQuery::problems`] and ignored, never guessed.

use runlog::record::{ScenarioRecord, unflatten_key};
use serde::Serialize;

/// Which records by decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every record.
    #[default]
    All,
    /// Accepted records.
    Accepted,
    /// Rejected records.
    Rejected,
    /// Failed scenarios (the errors file's, less those with a record).
    Failed,
}

/// The order of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Sort {
    /// File order.
    #[default]
    File,
    /// Last written first (a live run's new records on top).
    Newest,
    /// Lowest score first.
    ScoreUp,
    /// Highest score first.
    ScoreDown,
}

impl Sort {
    /// The key a record at `offset` scoring `score` sorts by (ascending); `None` in file order.
    #[must_use]
    pub fn key(self, offset: u64, score: f64) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)] // an offset as a key: order only
        match self {
            Self::File => None,
            Self::Newest => Some(-(offset as f64)),
            Self::ScoreUp => Some(score),
            Self::ScoreDown => Some(-score),
        }
    }

    /// The query-string word.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Newest => "newest",
            Self::ScoreUp => "score",
            Self::ScoreDown => "-score",
        }
    }
}

/// A judge's score range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRange {
    /// The judge (as records name it in `scores`).
    pub judge: String,
    /// Lowest score kept.
    pub min: Option<f64>,
    /// Highest score kept.
    pub max: Option<f64>,
}

/// A records table's query.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RecordQuery {
    /// Decision.
    pub status: Status,
    /// Parameter values (`name`, `value`): all must match.
    pub params: Vec<(String, String)>,
    /// Judge score ranges: all must hold.
    pub scores: Vec<ScoreRange>,
    /// Gate decision: `passed`, `failed`, `undecided` or `none` (no gate verdict).
    pub gate: Option<String>,
    /// Measurement: `measured`, `unavailable` or `none`.
    pub measurement: Option<String>,
    /// Words searched in the texts (lowercased).
    pub text: String,
    /// Order.
    pub sort: Sort,
    /// Page, from 1.
    pub page: usize,
    /// Values that could not be read (ignored).
    pub problems: Vec<String>,
}

/// A query string value longer than this is cut (a search box, not a document).
const MAX_VALUE_CHARS: usize = 200;

impl RecordQuery {
    /// Reads the pairs of a query string.
    #[must_use]
    pub fn parse(pairs: &[(String, String)]) -> Self {
        let mut q = Self {
            page: 1,
            ..Self::default()
        };
        // A key given more than once: its last value is used, the earlier ones named.
        let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (n, (key, value)) in pairs.iter().enumerate() {
            if !value.trim().is_empty() {
                last.insert(key.as_str(), n);
            }
        }
        for (n, (key, value)) in pairs.iter().enumerate() {
            // A parameter's value is matched as written (" x" is not "x"); other values are
            // words and numbers, read trimmed.
            let kept = if key.starts_with("p.") {
                value.as_str()
            } else {
                value.trim()
            };
            let value: String = kept.chars().take(MAX_VALUE_CHARS).collect();
            if value.trim().is_empty() {
                continue;
            }
            if last.get(key.as_str()).is_some_and(|&l| l != n) {
                q.problems.push(format!(
                    "`{key}` is given more than once: its last value is used, `{key}={value}` ignored"
                ));
                continue;
            }
            q.read(key, value);
        }
        if q.status == Status::Failed
            && (!q.scores.is_empty() || q.gate.is_some() || q.measurement.is_some())
        {
            q.problems.push(
                "score, gate and measurement filters do not apply to failed scenarios (they have \
                 no score, gate or measurement); ignored"
                    .to_owned(),
            );
            q.scores.clear();
            q.gate = None;
            q.measurement = None;
        }
        q
    }

    fn read(&mut self, key: &str, value: String) {
        match key {
            "status" => match value.as_str() {
                "accepted" => self.status = Status::Accepted,
                "rejected" => self.status = Status::Rejected,
                "failed" => self.status = Status::Failed,
                "all" => {}
                _ => self.problem(key, &value),
            },
            "gate" if matches!(value.as_str(), "passed" | "failed" | "undecided" | "none") => {
                self.gate = Some(value);
            }
            "measurement" if matches!(value.as_str(), "measured" | "unavailable" | "none") => {
                self.measurement = Some(value);
            }
            "q" if value
                .chars()
                .any(|c| c == '\u{fffd}' || (c.is_control() && !c.is_whitespace())) =>
            {
                self.problems.push(format!(
                    "`q={value}` holds characters that cannot be read (not UTF-8, or control \
                     characters); ignored"
                ));
            }
            "q" => self.text = value.to_lowercase(),
            "sort" => match value.as_str() {
                "file" => self.sort = Sort::File,
                "newest" => self.sort = Sort::Newest,
                "score" => self.sort = Sort::ScoreUp,
                "-score" => self.sort = Sort::ScoreDown,
                _ => self.problem(key, &value),
            },
            "page" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => self.page = n,
                _ => self.problems.push(format!(
                    "`page={value}` is not a page number (1, 2, …); the first page is shown"
                )),
            },
            _ => {
                if let Some(name) = key.strip_prefix("p.") {
                    self.params.push((name.to_owned(), value));
                } else if let Some(judge) = key.strip_prefix("min.") {
                    self.bound(judge, &value, true);
                } else if let Some(judge) = key.strip_prefix("max.") {
                    self.bound(judge, &value, false);
                } else {
                    self.problem(key, &value);
                }
            }
        }
    }

    fn problem(&mut self, key: &str, value: &str) {
        // Many unknown pairs are named once each up to a few, then counted (no amplification).
        const MAX_NAMED: usize = 20;
        if self.problems.len() < MAX_NAMED {
            self.problems.push(format!(
                "`{key}={value}` is not a filter value this table can read; ignored"
            ));
        } else if self.problems.len() == MAX_NAMED {
            self.problems
                .push("more values that cannot be read; ignored too".to_owned());
        }
    }

    /// The filters that name a judge or parameter no record of the run has (`judges`,
    /// `params`: the run's names): they can match nothing, and the page says so.
    #[must_use]
    pub fn unknown_names<'a>(
        &self,
        judges: impl Iterator<Item = &'a str> + Clone,
        params: impl Iterator<Item = &'a str> + Clone,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for range in &self.scores {
            if range.judge != "score" && !judges.clone().any(|j| j == range.judge) {
                out.push(format!(
                    "no record of this run has the judge `{}`: the score filter on it matches nothing",
                    range.judge
                ));
            }
        }
        for (name, _) in &self.params {
            if !params.clone().any(|p| p == name) {
                out.push(format!(
                    "no record of this run has the parameter `{name}`: its filter matches nothing"
                ));
            }
        }
        out
    }

    fn bound(&mut self, judge: &str, value: &str, min: bool) {
        let Some(v) = value.parse::<f64>().ok().filter(|v| v.is_finite()) else {
            self.problem(
                &format!("{}.{judge}", if min { "min" } else { "max" }),
                value,
            );
            return;
        };
        let i = match self.scores.iter().position(|r| r.judge == judge) {
            Some(i) => i,
            None => {
                self.scores.push(ScoreRange {
                    judge: judge.to_owned(),
                    min: None,
                    max: None,
                });
                self.scores.len() - 1
            }
        };
        if min {
            self.scores[i].min = Some(v);
        } else {
            self.scores[i].max = Some(v);
        }
    }

    /// Whether `record` passes every filter (the status `failed` keeps no record).
    #[must_use]
    pub fn matches(&self, record: &ScenarioRecord) -> bool {
        let status = match self.status {
            Status::All => true,
            Status::Accepted => record.accepted,
            Status::Rejected => !record.accepted,
            Status::Failed => false,
        };
        status
            && self.params.iter().all(|(name, value)| {
                param(record, name).is_some_and(|v| reports::figures::value_text(v) == *value)
            })
            && self.scores.iter().all(|range| {
                let score = if range.judge == "score" {
                    Some(record.score)
                } else {
                    record
                        .scores
                        .iter()
                        .find(|(j, _)| j.as_str() == range.judge)
                        .map(|(_, s)| *s)
                };
                score.is_some_and(|s| {
                    range.min.is_none_or(|m| s >= m) && range.max.is_none_or(|m| s <= m)
                })
            })
            && self
                .gate
                .as_ref()
                .is_none_or(|g| gate_word(record) == g.as_str())
            && self
                .measurement
                .as_ref()
                .is_none_or(|m| measurement_word(record) == m.as_str())
            && self.text_matches(record.data_generation_result.iter().map(String::as_str))
    }

    /// Whether every word of the search is in one of `texts` (case ignored; any spacing
    /// between the words of the search); no search keeps everything.
    #[must_use]
    pub fn text_matches<'a>(&self, texts: impl Iterator<Item = &'a str> + Clone) -> bool {
        self.text
            .split_whitespace()
            .all(|word| texts.clone().any(|t| t.to_lowercase().contains(word)))
    }

    /// The query string of this query on another page (filters and sort kept).
    #[must_use]
    pub fn to_query_string(&self, page: usize) -> String {
        let mut pairs: Vec<(String, String)> = Vec::new();
        if self.status != Status::All {
            let word = serde_json::to_value(self.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            pairs.push(("status".into(), word));
        }
        for (name, value) in &self.params {
            pairs.push((format!("p.{name}"), value.clone()));
        }
        for range in &self.scores {
            if let Some(m) = range.min {
                pairs.push((format!("min.{}", range.judge), m.to_string()));
            }
            if let Some(m) = range.max {
                pairs.push((format!("max.{}", range.judge), m.to_string()));
            }
        }
        if let Some(g) = &self.gate {
            pairs.push(("gate".into(), g.clone()));
        }
        if let Some(m) = &self.measurement {
            pairs.push(("measurement".into(), m.clone()));
        }
        if !self.text.is_empty() {
            pairs.push(("q".into(), self.text.clone()));
        }
        if self.sort != Sort::File {
            pairs.push(("sort".into(), self.sort.word().into()));
        }
        pairs.push(("page".into(), page.to_string()));
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Percent-encodes a query-string component (everything but unreserved characters).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A record's parameter by its name (a colliding name is stored as `param_<name>`).
fn param<'a>(record: &'a ScenarioRecord, name: &str) -> Option<&'a serde_json::Value> {
    record
        .params
        .iter()
        .find(|(k, _)| unflatten_key(k) == name)
        .map(|(_, v)| v)
}

/// The gate's decision in one word: `passed`, `failed`, `undecided`, or `none` (no verdict).
#[must_use]
pub fn gate_word(record: &ScenarioRecord) -> &'static str {
    match record.gate.as_ref().map(|g| g.passed) {
        None => "none",
        Some(Some(true)) => "passed",
        Some(Some(false)) => "failed",
        Some(None) => "undecided",
    }
}

/// The measurement's state in one word: `measured`, `unavailable`, or `none` (not measured).
#[must_use]
pub fn measurement_word(record: &ScenarioRecord) -> &'static str {
    if record.measurement.is_none() {
        "none"
    } else if record.measurement_unavailable() {
        "unavailable"
    } else {
        "measured"
    }
}

#[cfg(test)]
mod tests {
    use super::RecordQuery;

    #[test]
    fn a_parameter_value_is_kept_as_written_and_other_values_are_trimmed() {
        // The review found a value with a leading space offered by the form but matching 0.
        let pairs = [
            ("p.topic".to_owned(), " health".to_owned()),
            ("gate".to_owned(), " failed ".to_owned()),
            ("p.tense".to_owned(), String::new()),
        ];
        let q = RecordQuery::parse(&pairs);
        assert_eq!(q.params, vec![("topic".to_owned(), " health".to_owned())]);
        assert_eq!(q.gate.as_deref(), Some("failed"));
    }
}
