//! The figures of a data-pipeline run, computed from its records as typed values, one record at
//! a time: [`FiguresBuilder`] folds [`ScenarioRecord`]s into [`RunFigures`] (totals, score
//! histogram, judge distributions, acceptance by parameter value, measured vs target ratio,
//! models per agent, refine outcomes, the lowest-scoring scenarios) and [`HeatmapBuilder`] into
//! acceptance across two axes. Memory is bounded by the aggregates — O(distinct parameter
//! values), a capped sample of ratio points and [`WORST_SHOWN`] records — never by the number of
//! records. Nothing here formats a number: renderers decide how figures read.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use scoring::Judge;
use scoring::summary::RunSummary;
use serde_json::Value;

use runlog::record::ScenarioRecord;

/// The pipeline's default accept threshold (0–10), used when neither the user nor the records
/// say which one applied.
pub const DEFAULT_THRESHOLD: f64 = 8.0;

/// How many of the lowest-scoring scenarios the figures keep in full.
pub const WORST_SHOWN: usize = 5;

/// The most measured-vs-target points kept for a scatter chart (the first ones in file order; a
/// chart of more points is unreadable anyway).
pub const RATIO_POINTS_KEPT: usize = 2000;

/// Why figures could not be made from otherwise valid records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FiguresError {
    /// A heatmap axis names a parameter no record has.
    #[error("unknown axis `{axis}` (parameters in this run: {known})")]
    UnknownAxis {
        /// The axis asked for.
        axis: String,
        /// The parameters present, comma-separated.
        known: String,
    },
}

/// Where the accept threshold of the figures came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThresholdSource {
    /// The user gave it.
    Given,
    /// The records carry it in their run settings (schema version 2 on).
    Recorded,
    /// Inferred from the records' accept decisions (records without settings).
    Inferred,
    /// The pipeline default: nothing pins it down.
    Default,
}

/// The accept threshold the figures are drawn against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    /// 0–10.
    pub value: f64,
    /// Where it came from.
    pub source: ThresholdSource,
}

/// One judge's score distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeFigures {
    /// Judge (weight) name, as the records spell it.
    pub name: String,
    /// Scores counted.
    pub count: u64,
    /// Mean score.
    pub mean: f64,
    /// Lowest score.
    pub min: f64,
    /// Highest score.
    pub max: f64,
    /// Counts per unit bin 0–1, …, 9–10 (10 joins the top bin; out-of-range scores are clamped).
    pub bins: [u64; 10],
}

/// Measured vs target share for one written target value.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioFigures {
    /// The `cs_ratio` parameter as written (`"50%"`).
    pub target_text: String,
    /// The target as a share (0–1).
    pub target: f64,
    /// Records with this target.
    pub records: u64,
    /// Records with a measurement.
    pub measured: u64,
    /// Mean measured share, when any was measured.
    pub mean: Option<f64>,
    /// Lowest measured share.
    pub min: Option<f64>,
    /// Highest measured share.
    pub max: Option<f64>,
    /// Mean |measured − target| (a share, not points).
    pub mean_error: Option<f64>,
}

/// One record's measured share against its target.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioPoint {
    /// Scenario id.
    pub id: String,
    /// The target as written.
    pub target_text: String,
    /// The target share.
    pub target: f64,
    /// The measured share.
    pub measured: f64,
    /// The record was accepted.
    pub accepted: bool,
}

/// Which models answered one agent, in how many scenarios.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentModels {
    /// Agent name.
    pub agent: String,
    /// Model names with scenario counts, by name.
    pub models: Vec<(String, u64)>,
    /// Scenarios in which the agent answered.
    pub scenarios: u64,
}

/// When records were accepted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcomes {
    /// `accepted_at[k]`: records accepted after k refinements (up to the last k seen).
    pub accepted_at: Vec<u64>,
    /// Records never accepted.
    pub never: u64,
}

/// One judge's final result on a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeReasons {
    /// Judge name.
    pub judge: String,
    /// Its final score, when recorded.
    pub score: Option<f64>,
    /// What it said (see [`reasons`]).
    pub reasons: Vec<String>,
}

/// A low-scoring scenario, kept in full.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstScenario {
    /// Scenario id.
    pub id: String,
    /// Final score.
    pub score: f64,
    /// Accepted or not.
    pub accepted: bool,
    /// Refinements made.
    pub refine_count: u32,
    /// Its values of the parameters that vary across the run.
    pub params: Vec<(String, String)>,
    /// The final texts.
    pub texts: Vec<String>,
    /// The judges' reasons, by judge name.
    pub judges: Vec<JudgeReasons>,
}

/// Every figure of a pipeline run.
#[derive(Debug, Clone)]
pub struct RunFigures {
    /// The accept threshold.
    pub threshold: Threshold,
    /// The threshold the run decided at, as far as the records tell (never `Given`).
    pub run_threshold: Threshold,
    /// The thresholds in the records' run settings and how many records hold each, ascending;
    /// more than one when a run was resumed with another threshold.
    pub recorded_thresholds: Vec<(f64, u64)>,
    /// Records whose score is at or above [`RunFigures::threshold`] (differs from the accepted
    /// count when the threshold was given and the run decided at another).
    pub passing: u64,
    /// Records, acceptance, means, the score histogram and per-parameter-value aggregates.
    pub summary: RunSummary,
    /// Prompt tokens over all records.
    pub prompt_tokens: u64,
    /// Completion tokens over all records.
    pub completion_tokens: u64,
    /// Cost in USD over all records.
    pub cost_usd: f64,
    /// Calls over all records.
    pub calls: u64,
    /// Calls served by the cache.
    pub cache_hits: u64,
    /// Per judge, by name.
    pub judges: Vec<JudgeFigures>,
    /// Measured vs target ratio per target, by target share (empty when no record has a
    /// readable `cs_ratio` parameter).
    pub ratio: Vec<RatioFigures>,
    /// Measured points, in file order (the first [`RATIO_POINTS_KEPT`]).
    pub ratio_points: Vec<RatioPoint>,
    /// Models per agent, by agent.
    pub agents: Vec<AgentModels>,
    /// Refine outcomes.
    pub outcomes: Outcomes,
    /// The [`WORST_SHOWN`] lowest-scoring scenarios, lowest first (ties by id).
    pub worst: Vec<WorstScenario>,
    /// Distinct-1/2 and the embedded vocabulary of the texts.
    pub diversity: codeswitch::diversity::Diversity,
}

impl RunFigures {
    /// Parameters with one value across the run, as `(name, value)`.
    #[must_use]
    pub fn fixed_params(&self) -> Vec<(&str, &str)> {
        self.summary
            .params
            .iter()
            .filter(|(_, values)| values.len() == 1)
            .filter_map(|(name, values)| Some((name.as_str(), values.keys().next()?.as_str())))
            .collect()
    }

    /// The heatmap axes: `requested` when both exist, else the two varying parameters with the
    /// most values (ties by name), rows first; `None` with fewer than two varying parameters.
    ///
    /// # Errors
    /// [`FiguresError::UnknownAxis`] when a requested axis is no parameter of the run.
    pub fn heatmap_axes(
        &self,
        requested: Option<&(String, String)>,
    ) -> Result<Option<(String, String)>, FiguresError> {
        let params = &self.summary.params;
        if let Some((a, b)) = requested {
            for axis in [a, b] {
                if !params.contains_key(axis) {
                    return Err(FiguresError::UnknownAxis {
                        axis: axis.clone(),
                        known: params.keys().cloned().collect::<Vec<_>>().join(", "),
                    });
                }
            }
            return Ok(Some((a.clone(), b.clone())));
        }
        let mut varying: Vec<(&String, usize)> = params
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(name, v)| (name, v.len()))
            .collect();
        varying.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        Ok(match varying.as_slice() {
            [a, b, ..] => Some((a.0.clone(), b.0.clone())),
            _ => None,
        })
    }
}

/// A parameter value as text: strings bare, anything else as compact JSON.
#[must_use]
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Debug, Default)]
struct JudgeAcc {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    bins: [u64; 10],
}

#[derive(Debug)]
struct RatioAcc {
    target: f64,
    records: u64,
    measured: u64,
    sum: f64,
    error_sum: f64,
    min: f64,
    max: f64,
}

/// A kept candidate, ordered so the heap's top is the one to drop first.
#[derive(Debug)]
struct Ranked<T> {
    key: (f64, String),
    item: T,
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T> Eq for Ranked<T> {}
impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .0
            .total_cmp(&other.key.0)
            .then_with(|| self.key.1.cmp(&other.key.1))
    }
}

/// Keeps the `cap` items with the lowest keys.
fn keep_lowest<T>(heap: &mut BinaryHeap<Ranked<T>>, cap: usize, key: (f64, String), item: T) {
    if heap.len() == cap {
        match heap.peek() {
            Some(top)
                if top
                    .key
                    .0
                    .total_cmp(&key.0)
                    .then_with(|| top.key.1.cmp(&key.1))
                    .is_gt() =>
            {
                heap.pop();
            }
            _ => return,
        }
    }
    heap.push(Ranked { key, item });
}

/// Folds records into [`RunFigures`], one at a time.
#[derive(Debug, Default)]
pub struct FiguresBuilder {
    summary: RunSummary,
    prompt_tokens: u64,
    completion_tokens: u64,
    cost_usd: f64,
    calls: u64,
    cache_hits: u64,
    judges: BTreeMap<String, JudgeAcc>,
    ratio: BTreeMap<String, RatioAcc>,
    points: Vec<RatioPoint>,
    agents: BTreeMap<String, (BTreeMap<String, u64>, u64)>,
    accepted_at: BTreeMap<u32, u64>,
    never: u64,
    worst: BinaryHeap<Ranked<ScenarioRecord>>,
    lowest_accepted: Option<f64>,
    highest_rejected: Option<f64>,
    /// Records per threshold in their run settings (keyed by the bits of a non-negative `f64`,
    /// whose order is the numeric order).
    recorded_thresholds: BTreeMap<u64, u64>,
    /// Every record's score, to count the ones that pass a given threshold.
    scores: Vec<f64>,
    diversity: codeswitch::diversity::DiversityBuilder,
}

impl FiguresBuilder {
    /// An empty builder.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one record.
    pub fn add(&mut self, r: &ScenarioRecord) {
        self.summary.add(&r.facts());
        self.prompt_tokens = self.prompt_tokens.saturating_add(r.usage.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(r.usage.completion_tokens);
        self.cost_usd += r.cost_usd;
        self.calls += u64::from(r.calls);
        self.cache_hits += u64::from(r.cache_hits);
        self.add_judges(r);
        self.add_ratio(r);
        let lang = |k: &str| r.params.get(k).and_then(serde_json::Value::as_str);
        let (first, second) = codeswitch::diversity::vocabulary_pair(
            lang("first_language"),
            lang("second_language"),
            r.measurement_unavailable(),
        );
        self.diversity.add(&r.data_generation_result, first, second);
        for (agent, model) in &r.models {
            let entry = self.agents.entry(agent.clone()).or_default();
            *entry.0.entry(model.clone()).or_default() += 1;
            entry.1 += 1;
        }
        if r.accepted {
            *self.accepted_at.entry(r.refine_count).or_default() += 1;
            self.lowest_accepted = Some(self.lowest_accepted.map_or(r.score, |s| s.min(r.score)));
        } else {
            self.never += 1;
            self.highest_rejected = Some(self.highest_rejected.map_or(r.score, |s| s.max(r.score)));
        }
        if let Some(settings) = &r.run_settings {
            *self
                .recorded_thresholds
                .entry(settings.threshold.abs().to_bits())
                .or_default() += 1;
        }
        self.scores.push(r.score);
        if self.worst.len() < WORST_SHOWN
            || self.worst.peek().is_some_and(|top| {
                top.key
                    .0
                    .total_cmp(&r.score)
                    .then_with(|| top.key.1.cmp(&r.id))
                    .is_gt()
            })
        {
            keep_lowest(
                &mut self.worst,
                WORST_SHOWN,
                (r.score, r.id.clone()),
                r.clone(),
            );
        }
    }

    fn add_judges(&mut self, r: &ScenarioRecord) {
        for (judge, &s) in r.scores.iter().filter(|(_, s)| s.is_finite()) {
            let acc = match self.judges.get_mut(judge.as_str()) {
                Some(acc) => acc,
                None => self.judges.entry(judge.to_string()).or_insert(JudgeAcc {
                    min: f64::INFINITY,
                    max: f64::NEG_INFINITY,
                    ..JudgeAcc::default()
                }),
            };
            acc.count += 1;
            acc.sum += s;
            acc.min = acc.min.min(s);
            acc.max = acc.max.max(s);
            // Clamped into 0..=9, so the cast is exact; 10 joins the top bin.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let bin = s.clamp(0.0, 9.999).floor() as usize;
            acc.bins[bin] += 1;
        }
    }

    fn add_ratio(&mut self, r: &ScenarioRecord) {
        let Some(written) = r.params.get("cs_ratio").map(value_text) else {
            return;
        };
        let Some(target) = codeswitch::parse_target_ratio(&written) else {
            return;
        };
        let acc = self.ratio.entry(written.clone()).or_insert(RatioAcc {
            target,
            records: 0,
            measured: 0,
            sum: 0.0,
            error_sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        });
        acc.records += 1;
        let Some(m) = r.measured_ratio() else {
            return;
        };
        acc.measured += 1;
        acc.sum += m;
        acc.error_sum += (m - target).abs();
        acc.min = acc.min.min(m);
        acc.max = acc.max.max(m);
        if self.points.len() < RATIO_POINTS_KEPT {
            self.points.push(RatioPoint {
                id: r.id.clone(),
                target_text: written,
                target,
                measured: m,
                accepted: r.accepted,
            });
        }
    }

    fn threshold(&self, given: Option<f64>) -> Threshold {
        let single = match self.recorded_thresholds.keys().collect::<Vec<_>>()[..] {
            [&bits] => Some(f64::from_bits(bits)),
            _ => None,
        };
        let (value, source) = match (given, single) {
            (Some(t), _) => (t, ThresholdSource::Given),
            (None, Some(t)) => (t, ThresholdSource::Recorded),
            _ => match infer_threshold(self.lowest_accepted, self.highest_rejected) {
                Some(t) => (t, ThresholdSource::Inferred),
                None => (DEFAULT_THRESHOLD, ThresholdSource::Default),
            },
        };
        Threshold { value, source }
    }

    /// The figures; `threshold` overrides the recorded or inferred one.
    #[must_use]
    pub fn finish(self, threshold: Option<f64>) -> RunFigures {
        let run_threshold = self.threshold(None);
        let threshold = self.threshold(threshold);
        let passing = self
            .scores
            .iter()
            .filter(|&&s| s >= threshold.value)
            .count() as u64;
        let recorded_thresholds = self
            .recorded_thresholds
            .iter()
            .map(|(&bits, &n)| (f64::from_bits(bits), n))
            .collect();
        let varying: BTreeSet<&String> = self
            .summary
            .params
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(k, _)| k)
            .collect();
        let mut worst: Vec<Ranked<ScenarioRecord>> = self.worst.into_vec();
        worst.sort();
        let worst = worst
            .into_iter()
            .map(|Ranked { item: r, .. }| worst_view(r, &varying))
            .collect();
        let last = self.accepted_at.keys().next_back().copied().unwrap_or(0);
        let accepted_at = (0..=last)
            .map(|k| self.accepted_at.get(&k).copied().unwrap_or(0))
            .collect();
        #[allow(clippy::cast_precision_loss)] // counts far below 2^53
        let judges = self
            .judges
            .into_iter()
            .map(|(name, a)| JudgeFigures {
                name,
                count: a.count,
                mean: a.sum / a.count as f64,
                min: a.min,
                max: a.max,
                bins: a.bins,
            })
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let mut ratio: Vec<RatioFigures> = self
            .ratio
            .into_iter()
            .map(|(target_text, a)| {
                let some = |v: f64| (a.measured > 0).then_some(v);
                RatioFigures {
                    target_text,
                    target: a.target,
                    records: a.records,
                    measured: a.measured,
                    mean: some(a.sum / a.measured as f64),
                    min: some(a.min),
                    max: some(a.max),
                    mean_error: some(a.error_sum / a.measured as f64),
                }
            })
            .collect();
        ratio.sort_by(|a, b| a.target.total_cmp(&b.target));
        let figures = RunFigures {
            threshold,
            run_threshold,
            recorded_thresholds,
            passing,
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            cost_usd: self.cost_usd,
            calls: self.calls,
            cache_hits: self.cache_hits,
            judges,
            ratio,
            ratio_points: self.points,
            agents: self
                .agents
                .into_iter()
                .map(|(agent, (models, scenarios))| AgentModels {
                    agent,
                    models: models.into_iter().collect(),
                    scenarios,
                })
                .collect(),
            outcomes: Outcomes {
                accepted_at,
                never: self.never,
            },
            worst,
            summary: self.summary,
            diversity: self.diversity.finish(),
        };
        tracing::debug!(records = figures.summary.done, "run figures computed");
        figures
    }
}

fn worst_view(r: ScenarioRecord, varying: &BTreeSet<&String>) -> WorstScenario {
    let mut judges: Vec<JudgeReasons> = Judge::ALL
        .into_iter()
        .filter(|j| !r.judge_result(*j).is_null())
        .map(|j| JudgeReasons {
            judge: j.name().to_owned(),
            score: r.scores.get(j.name()).copied(),
            reasons: reasons(r.judge_result(j)),
        })
        .collect();
    // The judges the run's config declared beside the four, with their own reasons.
    judges.extend(r.judge_results.iter().map(|(name, result)| {
        JudgeReasons {
            judge: name.clone(),
            score: r.scores.get(name.as_str()).copied(),
            // Its reply holds its score field and its reason field, named by the config: every
            // text in it is a reason.
            reasons: result
                .as_object()
                .into_iter()
                .flat_map(|m| m.values().filter_map(Value::as_str).map(str::to_owned))
                .collect(),
        }
    }));
    judges.sort_by(|a, b| a.judge.cmp(&b.judge));
    WorstScenario {
        params: r
            .params
            .iter()
            .filter(|(k, _)| varying.contains(k))
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect(),
        id: r.id,
        score: r.score,
        accepted: r.accepted,
        refine_count: r.refine_count,
        texts: r.data_generation_result,
        judges,
    }
}

/// The threshold implied by accept decisions: the lowest accepted score, provided every
/// rejected score is below it (so the decision boundary is consistent); otherwise `None`.
/// Scores are rounded in records, so the configured threshold sits somewhere in
/// (highest rejected, lowest accepted]; the pipeline default wins when it fits that interval.
#[must_use]
pub fn infer_threshold(lowest_accepted: Option<f64>, highest_rejected: Option<f64>) -> Option<f64> {
    let lowest_accepted = lowest_accepted?;
    match highest_rejected {
        Some(h) if h >= lowest_accepted => None,
        Some(h) if h < DEFAULT_THRESHOLD && DEFAULT_THRESHOLD <= lowest_accepted => {
            Some(DEFAULT_THRESHOLD)
        }
        None if DEFAULT_THRESHOLD <= lowest_accepted => Some(DEFAULT_THRESHOLD),
        _ => Some(lowest_accepted),
    }
}

/// What a judge result says, as lines: its summary or notes, then each error, issue and
/// observation. Reads both observation shapes (`[{sentence, note}]` and `{"sentence_N": note}`).
#[must_use]
pub fn reasons(result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["summary", "notes"] {
        if let Some(s) = result
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            out.push(s.to_owned());
        }
    }
    for key in ["errors", "issues"] {
        if let Some(list) = result.get(key).and_then(Value::as_array) {
            out.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }
    match result.get("observations") {
        Some(Value::Array(list)) => out.extend(list.iter().filter_map(|o| {
            let note = o.get("note")?.as_str()?;
            Some(match o.get("sentence").and_then(Value::as_u64) {
                Some(n) => format!("sentence {n}: {note}"),
                None => note.to_owned(),
            })
        })),
        Some(Value::Object(map)) => out.extend(
            map.iter()
                .filter_map(|(k, v)| Some(format!("{}: {}", k.replace('_', " "), v.as_str()?))),
        ),
        _ => {}
    }
    out
}

/// Acceptance counts of one heatmap cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CellCounts {
    /// Records in the cell.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
}

/// Acceptance across two parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Row axis.
    pub rows_axis: String,
    /// Column axis.
    pub cols_axis: String,
    /// Column values, in text order.
    pub cols: Vec<String>,
    /// Rows in text order: value and one cell per column.
    pub rows: Vec<(String, Vec<CellCounts>)>,
}

/// Folds records into a [`Heatmap`]; memory is one cell per pair of values seen.
#[derive(Debug)]
pub struct HeatmapBuilder {
    rows_axis: String,
    cols_axis: String,
    cells: BTreeMap<(String, String), CellCounts>,
}

impl HeatmapBuilder {
    /// A builder for acceptance by `rows_axis` × `cols_axis`.
    #[must_use]
    pub fn new(rows_axis: String, cols_axis: String) -> Self {
        Self {
            rows_axis,
            cols_axis,
            cells: BTreeMap::new(),
        }
    }

    /// Adds one record (ignored unless it has both parameters).
    pub fn add(&mut self, r: &ScenarioRecord) {
        let (Some(a), Some(b)) = (r.params.get(&self.rows_axis), r.params.get(&self.cols_axis))
        else {
            return;
        };
        let cell = self
            .cells
            .entry((value_text(a), value_text(b)))
            .or_default();
        cell.records += 1;
        cell.accepted += u64::from(r.accepted);
    }

    /// The heatmap.
    #[must_use]
    pub fn finish(self) -> Heatmap {
        let rows: BTreeSet<&String> = self.cells.keys().map(|(a, _)| a).collect();
        let cols: Vec<String> = self
            .cells
            .keys()
            .map(|(_, b)| b)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .cloned()
            .collect();
        let rows = rows
            .into_iter()
            .map(|row| {
                let line = cols
                    .iter()
                    .map(|col| {
                        self.cells
                            .get(&(row.clone(), col.clone()))
                            .copied()
                            .unwrap_or_default()
                    })
                    .collect();
                (row.clone(), line)
            })
            .collect();
        Heatmap {
            rows_axis: self.rows_axis,
            cols_axis: self.cols_axis,
            cols,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(id: &str, score: f64, accepted: bool, refine: u32, topic: &str) -> ScenarioRecord {
        serde_json::from_value(json!({
            "id": id, "score": score, "accepted": accepted, "refine_count": refine,
            "topic": topic, "cs_ratio": "50%", "lang": "es",
            "scores": {"fluency": score, "naturalness": 7.0},
            "fluency_result": {"summary": "ok"},
            "measurement": {"embedded_ratio": 0.4, "tagged": {"first": 6, "second": 4}},
        }))
        .expect("valid record")
    }

    fn figures(records: &[ScenarioRecord], threshold: Option<f64>) -> RunFigures {
        let mut b = FiguresBuilder::new();
        for r in records {
            b.add(r);
        }
        b.finish(threshold)
    }

    #[test]
    fn threshold_inference_respects_the_decisions() {
        assert_eq!(infer_threshold(Some(8.2), Some(7.9)), Some(8.0));
        assert_eq!(infer_threshold(Some(6.5), Some(6.0)), Some(6.5));
        assert_eq!(infer_threshold(Some(6.0), Some(7.0)), None);
        assert_eq!(infer_threshold(None, Some(7.0)), None);
        assert_eq!(infer_threshold(Some(9.0), None), Some(8.0));
    }

    fn settings(threshold: f64) -> runlog::RecordSettings {
        runlog::RecordSettings {
            threshold,
            weights: scoring::JudgeWeights::default(),
            ratio_judge: runlog::RatioJudgeMode::default(),
            max_refinements: 2,
            gate: runlog::GateSettings::default(),
            keep: runlog::Keep::default(),
        }
    }

    #[test]
    fn a_recorded_threshold_wins_over_inference_and_a_given_one_over_both() {
        let mut a = record("a", 7.2, true, 0, "x");
        a.run_settings = Some(settings(7.0));
        let b = record("b", 6.0, false, 0, "y");
        let f = figures(&[a.clone(), b.clone()], None);
        assert_eq!(
            f.threshold,
            Threshold {
                value: 7.0,
                source: ThresholdSource::Recorded
            }
        );
        assert_eq!(
            figures(&[a, b], Some(9.0)).threshold.source,
            ThresholdSource::Given
        );
    }

    /// A run resumed with another threshold: both are reported with their counts, and a given
    /// threshold counts the records that pass it apart from the run's decisions.
    #[test]
    fn mixed_recorded_thresholds_are_counted_and_a_given_one_recounts_passing() {
        let with = |id: &str, score: f64, accepted: bool, t: f64| {
            let mut r = record(id, score, accepted, 0, "x");
            r.run_settings = Some(settings(t));
            r
        };
        let rs = [
            with("a", 8.5, true, 8.0),
            with("b", 9.2, true, 8.0),
            with("c", 9.0, false, 9.5),
        ];
        let f = figures(&rs, None);
        assert_eq!(f.recorded_thresholds, [(8.0, 2), (9.5, 1)]);
        assert_ne!(f.threshold.source, ThresholdSource::Recorded);
        let f = figures(&rs, Some(9.0));
        assert_eq!(f.summary.accepted, 2, "the run's decisions");
        assert_eq!(f.passing, 2, "9.2 and 9.0 score ≥ 9");
        let f = figures(&rs, Some(9.1));
        assert_eq!(f.passing, 1);
    }

    #[test]
    fn figures_count_outcomes_judges_ratio_and_keep_the_worst() {
        let rs = [
            record("a", 9.0, true, 0, "food"),
            record("b", 8.5, true, 1, "travel"),
            record("c", 4.0, false, 2, "travel"),
        ];
        let f = figures(&rs, None);
        assert_eq!(f.outcomes.accepted_at, [1, 1]);
        assert_eq!(f.outcomes.never, 1);
        assert_eq!(f.fixed_params(), [("cs_ratio", "50%"), ("lang", "es")]);
        assert_eq!(f.heatmap_axes(None), Ok(None));
        assert_eq!(f.ratio.len(), 1);
        let error = f.ratio[0].mean_error.expect("measured");
        assert!((error - 0.1).abs() < 1e-9);
        assert_eq!(f.ratio_points.len(), 3);
        assert_eq!(f.worst[0].id, "c");
        assert_eq!(
            f.worst[0].params,
            [("topic".to_owned(), "travel".to_owned())]
        );
        assert_eq!(f.worst[0].judges[0].reasons, ["ok"]);
        assert_eq!(f.judges.iter().map(|j| j.count).sum::<u64>(), 6);
        let axes = Some(("topic".to_owned(), "nope".to_owned()));
        let err = f.heatmap_axes(axes.as_ref()).expect_err("unknown axis");
        assert!(err.to_string().starts_with("unknown axis `nope`"), "{err}");
    }

    #[test]
    fn only_the_lowest_scores_are_kept_whatever_the_order() {
        let rs: Vec<ScenarioRecord> = (0..50)
            .map(|i| {
                record(
                    &format!("r{i:02}"),
                    f64::from((i * 37) % 50) / 5.0,
                    false,
                    0,
                    "t",
                )
            })
            .collect();
        let f = figures(&rs, None);
        let kept: Vec<f64> = f.worst.iter().map(|w| w.score).collect();
        assert_eq!(kept, [0.0, 0.2, 0.4, 0.6, 0.8]);
    }

    #[test]
    fn heatmap_cells_count_records_and_acceptance() {
        let mut b = HeatmapBuilder::new("topic".into(), "lang".into());
        for r in [
            record("a", 9.0, true, 0, "food"),
            record("b", 4.0, false, 0, "food"),
            record("c", 9.0, true, 0, "travel"),
        ] {
            b.add(&r);
        }
        let h = b.finish();
        assert_eq!(h.cols, ["es"]);
        assert_eq!(h.rows[0].0, "food");
        assert_eq!(
            h.rows[0].1,
            [CellCounts {
                records: 2,
                accepted: 1
            }]
        );
    }

    #[test]
    fn reasons_read_both_observation_shapes() {
        let a = json!({"summary": "ok", "errors": ["e1"], "observations": [{"sentence": 2, "note": "n"}]});
        assert_eq!(reasons(&a), ["ok", "e1", "sentence 2: n"]);
        let b = json!({"observations": {"sentence_1": "stiff"}, "notes": "off by 10"});
        assert_eq!(reasons(&b), ["off by 10", "sentence 1: stiff"]);
    }
}
