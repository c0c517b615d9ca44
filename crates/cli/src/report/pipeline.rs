//! The data-pipeline report: every figure of a run (score histogram against the accept
//! threshold, judge distributions, acceptance by parameter value and across two axes, measured
//! vs target code-switching ratio, tokens and cost, refine outcomes, the worst scenarios with
//! their judges' reasons) computed from the records into one serializable [`PipelineReport`].
//! Numbers are pre-formatted here so the HTML, Markdown and terminal renderers only lay them out.

use std::collections::{BTreeMap, BTreeSet};

use scoring::summary::{Histogram, RecordFacts, RunSummary};
use serde::Serialize;
use serde_json::Value;

use super::chart::{BarSpec, Chart, bar_chart, trim_number, unit_scatter};
use super::load::RunRecord;

/// The pipeline's default accept threshold (0–10), used when the records do not pin it down.
pub const DEFAULT_THRESHOLD: f64 = 8.0;

/// How many of the lowest-scoring scenarios the report shows in full.
pub const WORST_SHOWN: usize = 5;

/// Choices the user makes about a pipeline report.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// The accept threshold; `None` infers it from the records (see [`infer_threshold`]).
    pub threshold: Option<f64>,
    /// The two axes of the acceptance heatmap; `None` picks the two varying parameters with the
    /// most values.
    pub axes: Option<(String, String)>,
}

/// Why a report could not be built from otherwise valid records.
#[derive(Debug, thiserror::Error)]
pub enum PipelineReportError {
    /// `--axes` named a parameter no record has.
    #[error("unknown axis `{axis}` (parameters in this run: {known})")]
    UnknownAxis {
        /// The axis asked for.
        axis: String,
        /// The parameters present, comma-separated.
        known: String,
    },
}

/// Run totals.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    /// Records.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// Acceptance rate, formatted.
    pub acceptance: String,
    /// Mean final score, formatted.
    pub mean_score: String,
    /// Mean refinements, formatted.
    pub mean_refinements: String,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Total cost, formatted in USD.
    pub cost: String,
    /// Calls.
    pub calls: u64,
    /// Calls served by the cache.
    pub cache_hits: u64,
}

/// One row of a histogram table.
#[derive(Debug, Clone, Serialize)]
pub struct BinRow {
    /// `8.0–8.5`.
    pub range: String,
    /// Records in the bin.
    pub count: u64,
    /// The whole bin is at or above the threshold.
    pub accepted: bool,
}

/// One judge's score distribution.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeView {
    /// Judge name (weight name).
    pub name: String,
    /// Mean, formatted.
    pub mean: String,
    /// Lowest score, formatted.
    pub min: String,
    /// Highest score, formatted.
    pub max: String,
    /// Records with this judge's score.
    pub count: u64,
    /// Counts per unit bin 0–1, …, 9–10.
    pub bins: Vec<u64>,
    /// Its chart.
    pub chart: Chart,
}

/// Aggregates of one parameter value.
#[derive(Debug, Clone, Serialize)]
pub struct ValueRow {
    /// The value as text.
    pub value: String,
    /// Records.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// Acceptance rate, formatted.
    pub rate: String,
    /// Acceptance rate in whole percent (for bar widths).
    pub rate_pct: u32,
    /// Mean score, formatted.
    pub mean_score: String,
}

/// One varying parameter and its values.
#[derive(Debug, Clone, Serialize)]
pub struct ParamView {
    /// Parameter name.
    pub name: String,
    /// Its values, in text order.
    pub values: Vec<ValueRow>,
}

/// A heatmap cell.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// Records in the cell.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// Rate text (`-` for an empty cell).
    pub rate: String,
    /// Background colour (CSS).
    pub color: String,
}

/// Acceptance across two axes.
#[derive(Debug, Clone, Serialize)]
pub struct Heatmap {
    /// Row axis.
    pub rows_axis: String,
    /// Column axis.
    pub cols_axis: String,
    /// Column values.
    pub cols: Vec<String>,
    /// Rows: value and cells (one per column).
    pub rows: Vec<(String, Vec<Cell>)>,
}

/// Measured vs target ratio for one target value.
#[derive(Debug, Clone, Serialize)]
pub struct RatioRow {
    /// The `cs_ratio` parameter as written.
    pub target: String,
    /// Records with this target.
    pub records: u64,
    /// Records with a measurement.
    pub measured: u64,
    /// Mean measured share, formatted.
    pub mean: String,
    /// Lowest measured share, formatted.
    pub min: String,
    /// Highest measured share, formatted.
    pub max: String,
    /// Mean |measured − target| in points, formatted.
    pub mean_error: String,
}

/// Measured vs target code-switching ratio.
#[derive(Debug, Clone, Serialize)]
pub struct RatioView {
    /// Per target.
    pub rows: Vec<RatioRow>,
    /// Scatter (x target, y measured).
    pub chart: Chart,
}

/// Accounting per agent (which model answered it, in how many scenarios).
#[derive(Debug, Clone, Serialize)]
pub struct AgentRow {
    /// Agent name.
    pub agent: String,
    /// Models that answered it, with scenario counts (`gpt-4o-mini ×20`).
    pub models: String,
    /// Scenarios in which it answered.
    pub scenarios: u64,
}

/// Tokens and cost.
#[derive(Debug, Clone, Serialize)]
pub struct CostView {
    /// Per agent.
    pub agents: Vec<AgentRow>,
    /// Mean tokens (prompt + completion) per scenario, formatted.
    pub tokens_per_scenario: String,
    /// Mean cost per scenario, formatted.
    pub cost_per_scenario: String,
    /// Cost per accepted scenario, formatted.
    pub cost_per_accepted: String,
}

/// Refine outcome: how many records were accepted at a given attempt (or never).
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeRow {
    /// `attempt 0`, `attempt 1`, …, `never`.
    pub outcome: String,
    /// Records.
    pub count: u64,
    /// Share of records, formatted.
    pub share: String,
}

/// One judge's reasons on a scenario.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeReasons {
    /// Judge name.
    pub judge: String,
    /// Its score, formatted (`-` when missing).
    pub score: String,
    /// What it said: summary, errors, observations, issues, notes.
    pub reasons: Vec<String>,
}

/// A low-scoring scenario shown in full.
#[derive(Debug, Clone, Serialize)]
pub struct WorstView {
    /// Scenario id.
    pub id: String,
    /// Final score, formatted.
    pub score: String,
    /// Accepted or not.
    pub accepted: bool,
    /// Refinements made.
    pub refine_count: u32,
    /// Varying parameters as `name=value`.
    pub params: Vec<String>,
    /// The final texts.
    pub texts: Vec<String>,
    /// The judges' reasons.
    pub judges: Vec<JudgeReasons>,
}

/// Everything the pipeline report shows.
#[derive(Debug, Clone, Serialize)]
pub struct PipelineReport {
    /// The results file's name (no directory).
    pub source: String,
    /// Accept threshold, formatted.
    pub threshold: String,
    /// Whether the threshold was inferred from the records rather than given.
    pub threshold_note: String,
    /// Totals.
    pub totals: Totals,
    /// Score histogram rows (non-empty bins and the bins between them).
    pub histogram: Vec<BinRow>,
    /// Scores outside 0–10.
    pub out_of_range: u64,
    /// Score histogram chart.
    pub histogram_chart: Chart,
    /// Per judge.
    pub judges: Vec<JudgeView>,
    /// Parameters with one value across the run (`name=value`).
    pub fixed: Vec<String>,
    /// Parameters with several values.
    pub params: Vec<ParamView>,
    /// Acceptance across two axes, when two varying parameters exist.
    pub heatmap: Option<Heatmap>,
    /// Measured vs target ratio, when records carry `cs_ratio` and measurements.
    pub ratio: Option<RatioView>,
    /// Tokens and cost.
    pub cost: CostView,
    /// Refine outcomes.
    pub outcomes: Vec<OutcomeRow>,
    /// Refine outcomes chart.
    pub outcomes_chart: Chart,
    /// The lowest-scoring scenarios.
    pub worst: Vec<WorstView>,
}

/// The threshold implied by the records: the lowest accepted score, provided every rejected
/// score is below it (so the decision boundary is consistent); otherwise `None`.
#[must_use]
pub fn infer_threshold(records: &[RunRecord]) -> Option<f64> {
    let lowest_accepted = records
        .iter()
        .filter(|r| r.accepted)
        .map(|r| r.score)
        .reduce(f64::min)?;
    let highest_rejected = records
        .iter()
        .filter(|r| !r.accepted)
        .map(|r| r.score)
        .reduce(f64::max);
    // Scores are rounded in records, so the configured threshold sits somewhere in
    // (highest rejected, lowest accepted]; the pipeline default wins when it fits that interval.
    match highest_rejected {
        Some(h) if h >= lowest_accepted => None,
        Some(h) if h < DEFAULT_THRESHOLD && DEFAULT_THRESHOLD <= lowest_accepted => {
            Some(DEFAULT_THRESHOLD)
        }
        None if DEFAULT_THRESHOLD <= lowest_accepted => Some(DEFAULT_THRESHOLD),
        _ => Some(lowest_accepted),
    }
}

/// Formats a 0–1 share as a percentage.
#[must_use]
pub fn pct(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0))
}

fn fixed2(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |m| format!("{m:.2}"))
}

/// A parameter value as text: strings bare, anything else as compact JSON.
#[must_use]
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Builds the report of `records` read from the file named `source`.
///
/// # Errors
/// [`PipelineReportError::UnknownAxis`] when `options.axes` names a parameter no record has.
pub fn build(
    source: &str,
    records: &[RunRecord],
    options: &PipelineOptions,
) -> Result<PipelineReport, PipelineReportError> {
    let (threshold, threshold_note) = match options.threshold {
        Some(t) => (t, "given".to_owned()),
        None => match infer_threshold(records) {
            Some(t) => (t, "inferred from the accept decisions".to_owned()),
            None => (
                DEFAULT_THRESHOLD,
                "the pipeline default; the records' decisions do not pin it down".to_owned(),
            ),
        },
    };
    let mut summary = RunSummary::default();
    for r in records {
        summary.add(&RecordFacts {
            params: &r.params,
            score: Some(r.score),
            accepted: r.accepted,
            failed: false,
            judge_scores: &r.scores,
            refine_count: r.refine_count,
        });
    }
    let (fixed, varying) = split_params(&summary);
    let heatmap = match &options.axes {
        Some((a, b)) => {
            for axis in [a, b] {
                if !summary.params.contains_key(axis) {
                    return Err(PipelineReportError::UnknownAxis {
                        axis: axis.clone(),
                        known: summary
                            .params
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", "),
                    });
                }
            }
            Some(heatmap(records, a, b))
        }
        None => default_axes(&varying).map(|(a, b)| heatmap(records, &a, &b)),
    };
    let prompt_tokens = records.iter().map(|r| r.prompt_tokens).sum();
    let completion_tokens = records.iter().map(|r| r.completion_tokens).sum();
    let cost: f64 = records.iter().map(|r| r.cost_usd).sum();
    let totals = Totals {
        records: summary.done,
        accepted: summary.accepted,
        acceptance: pct(summary.acceptance_rate()),
        mean_score: fixed2(summary.score.mean()),
        mean_refinements: fixed2(summary.refine_count.mean()),
        prompt_tokens,
        completion_tokens,
        cost: format!("${cost:.4}"),
        calls: records.iter().map(|r| r.calls).sum(),
        cache_hits: records.iter().map(|r| r.cache_hits).sum(),
    };
    let (histogram, histogram_chart) = score_histogram(&summary.histogram, threshold);
    let (outcomes, outcomes_chart) = outcomes(records);
    Ok(PipelineReport {
        source: source.to_owned(),
        threshold: trim_number(threshold),
        threshold_note,
        totals,
        histogram,
        out_of_range: summary.histogram.out_of_range,
        histogram_chart,
        judges: judges(records),
        fixed,
        params: varying,
        heatmap,
        ratio: ratio_view(records),
        cost: cost_view(records, cost, summary.accepted),
        outcomes,
        outcomes_chart,
        worst: worst(records, &summary),
    })
}

fn split_params(summary: &RunSummary) -> (Vec<String>, Vec<ParamView>) {
    let mut fixed = Vec::new();
    let mut varying = Vec::new();
    for (name, values) in &summary.params {
        if values.len() == 1 {
            if let Some(value) = values.keys().next() {
                fixed.push(format!("{name}={value}"));
            }
            continue;
        }
        varying.push(ParamView {
            name: name.clone(),
            values: values
                .iter()
                .map(|(value, s)| {
                    let rate = s.acceptance_rate();
                    ValueRow {
                        value: value.clone(),
                        records: s.records,
                        accepted: s.accepted,
                        rate: pct(rate),
                        // A share in [0, 1] times 100 fits a u32.
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                        rate_pct: (rate.unwrap_or(0.0) * 100.0).round() as u32,
                        mean_score: fixed2(s.score.mean()),
                    }
                })
                .collect(),
        });
    }
    (fixed, varying)
}

/// The two varying parameters with the most values (ties by name), rows first.
fn default_axes(varying: &[ParamView]) -> Option<(String, String)> {
    let mut by_size: Vec<&ParamView> = varying.iter().collect();
    by_size.sort_by(|a, b| {
        b.values
            .len()
            .cmp(&a.values.len())
            .then_with(|| a.name.cmp(&b.name))
    });
    match by_size.as_slice() {
        [a, b, ..] => Some((a.name.clone(), b.name.clone())),
        _ => None,
    }
}

fn heatmap(records: &[RunRecord], rows_axis: &str, cols_axis: &str) -> Heatmap {
    let mut cells: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    let mut rows = BTreeSet::new();
    let mut cols = BTreeSet::new();
    for r in records {
        let (Some(a), Some(b)) = (r.params.get(rows_axis), r.params.get(cols_axis)) else {
            continue;
        };
        let (a, b) = (value_text(a), value_text(b));
        rows.insert(a.clone());
        cols.insert(b.clone());
        let cell = cells.entry((a, b)).or_default();
        cell.0 += 1;
        cell.1 += u64::from(r.accepted);
    }
    let cols: Vec<String> = cols.into_iter().collect();
    Heatmap {
        rows_axis: rows_axis.to_owned(),
        cols_axis: cols_axis.to_owned(),
        rows: rows
            .into_iter()
            .map(|row| {
                let line = cols
                    .iter()
                    .map(|col| {
                        let (records, accepted) = cells
                            .get(&(row.clone(), col.clone()))
                            .copied()
                            .unwrap_or((0, 0));
                        let rate = ratio(accepted, records);
                        Cell {
                            records,
                            accepted,
                            rate: pct(rate),
                            color: heat_color(rate),
                        }
                    })
                    .collect();
                (row, line)
            })
            .collect(),
        cols,
    }
}

/// Red (0%) through amber to green (100%); grey for an empty cell. Light tones keep the dark
/// cell text readable.
fn heat_color(rate: Option<f64>) -> String {
    match rate {
        None => "#eeeeee".to_owned(),
        Some(r) => format!("hsl({:.0}, 70%, 78%)", r.clamp(0.0, 1.0) * 120.0),
    }
}

fn score_histogram(h: &Histogram, threshold: f64) -> (Vec<BinRow>, Chart) {
    let bars: Vec<BarSpec> = h
        .counts
        .iter()
        .enumerate()
        .map(|(i, &count)| {
            let (lo, hi) = Histogram::bounds(i);
            #[allow(clippy::cast_precision_loss)]
            BarSpec {
                label: if i % 2 == 0 {
                    trim_number(lo)
                } else {
                    String::new()
                },
                value: count as f64,
                class: if lo >= threshold { "bar-ok" } else { "bar-bad" },
                tip: format!("{lo:.1}–{hi:.1}: {count}"),
            }
        })
        .collect();
    let chart = bar_chart(
        "chart-score-histogram",
        "Final score histogram",
        ("final weighted score (0–10)", "records"),
        &bars,
        Some((
            threshold / scoring::summary::BUCKET_WIDTH,
            format!("accept ≥ {}", trim_number(threshold)),
        )),
    );
    let first = h.counts.iter().position(|&c| c > 0);
    let last = h.counts.iter().rposition(|&c| c > 0);
    let rows = match (first, last) {
        (Some(first), Some(last)) => (first..=last)
            .map(|i| {
                let (lo, hi) = Histogram::bounds(i);
                BinRow {
                    range: format!("{lo:.1}–{hi:.1}"),
                    count: h.counts[i],
                    accepted: lo >= threshold,
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    (rows, chart)
}

fn judges(records: &[RunRecord]) -> Vec<JudgeView> {
    let mut scores: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in records {
        for (judge, &s) in &r.scores {
            if s.is_finite() {
                scores.entry(judge).or_default().push(s);
            }
        }
    }
    scores
        .into_iter()
        .map(|(name, list)| {
            let mut bins = vec![0u64; 10];
            for s in &list {
                // Clamped into 0..=9, so the cast is exact; 10 joins the top bin.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let i = s.clamp(0.0, 9.999).floor() as usize;
                bins[i] += 1;
            }
            #[allow(clippy::cast_precision_loss)]
            let mean = list.iter().sum::<f64>() / list.len() as f64;
            #[allow(clippy::cast_precision_loss)]
            let bars: Vec<BarSpec> = bins
                .iter()
                .enumerate()
                .map(|(i, &c)| BarSpec {
                    label: i.to_string(),
                    value: c as f64,
                    class: "bar-judge",
                    tip: format!("{i}–{}: {c}", i + 1),
                })
                .collect();
            JudgeView {
                chart: bar_chart(
                    &format!("chart-judge-{}", slug(name)),
                    &format!("{name} scores"),
                    ("score", "records"),
                    &bars,
                    None,
                ),
                name: name.to_owned(),
                mean: format!("{mean:.2}"),
                min: fixed2(list.iter().copied().reduce(f64::min)),
                max: fixed2(list.iter().copied().reduce(f64::max)),
                count: list.len() as u64,
                bins,
            }
        })
        .collect()
}

/// An id-safe form of a name: ASCII alphanumerics kept, everything else `-`.
#[must_use]
pub fn slug(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

fn ratio_view(records: &[RunRecord]) -> Option<RatioView> {
    let mut by_target: BTreeMap<String, (f64, Vec<f64>, u64)> = BTreeMap::new();
    let mut points = Vec::new();
    for r in records {
        let Some(written) = r.params.get("cs_ratio").map(value_text) else {
            continue;
        };
        let Some(target) = scoring::codeswitch::parse_target_ratio(&written) else {
            continue;
        };
        let entry = by_target
            .entry(written.clone())
            .or_insert((target, Vec::new(), 0));
        entry.2 += 1;
        if let Some(m) = r.measured_ratio {
            entry.1.push(m);
            points.push((
                target,
                m,
                if r.accepted { "pt-ok" } else { "pt-bad" },
                format!("{}: target {written}, measured {:.0}%", r.id, m * 100.0),
            ));
        }
    }
    if by_target.is_empty() {
        return None;
    }
    let mut rows: Vec<RatioRow> = by_target
        .into_iter()
        .map(|(written, (target, measured, records))| {
            #[allow(clippy::cast_precision_loss)]
            let n = measured.len() as f64;
            let mean = (!measured.is_empty()).then(|| measured.iter().sum::<f64>() / n);
            let error = (!measured.is_empty())
                .then(|| measured.iter().map(|m| (m - target).abs()).sum::<f64>() / n);
            RatioRow {
                target: written,
                records,
                measured: measured.len() as u64,
                mean: pct(mean),
                min: pct(measured.iter().copied().reduce(f64::min)),
                max: pct(measured.iter().copied().reduce(f64::max)),
                mean_error: error
                    .map_or_else(|| "-".to_owned(), |e| format!("{:.0} pts", e * 100.0)),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let ta = scoring::codeswitch::parse_target_ratio(&a.target).unwrap_or(0.0);
        let tb = scoring::codeswitch::parse_target_ratio(&b.target).unwrap_or(0.0);
        ta.total_cmp(&tb)
    });
    Some(RatioView {
        rows,
        chart: unit_scatter(
            "chart-ratio",
            "Measured vs target code-switching ratio",
            ("target embedded-language share", "measured share"),
            &points,
        ),
    })
}

fn cost_view(records: &[RunRecord], cost: f64, accepted: u64) -> CostView {
    let mut agents: BTreeMap<&str, (BTreeMap<&str, u64>, u64)> = BTreeMap::new();
    for r in records {
        for (agent, model) in &r.models {
            let entry = agents.entry(agent).or_default();
            *entry.0.entry(model).or_default() += 1;
            entry.1 += 1;
        }
    }
    let n = records.len() as u64;
    let tokens: u64 = records
        .iter()
        .map(|r| r.prompt_tokens.saturating_add(r.completion_tokens))
        .fold(0u64, u64::saturating_add);
    #[allow(clippy::cast_precision_loss)]
    CostView {
        agents: agents
            .into_iter()
            .map(|(agent, (models, scenarios))| AgentRow {
                agent: agent.to_owned(),
                models: models
                    .iter()
                    .map(|(m, c)| format!("{m} ×{c}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                scenarios,
            })
            .collect(),
        tokens_per_scenario: ratio(tokens, n).map_or("-".into(), |t| format!("{t:.0}")),
        cost_per_scenario: if n > 0 {
            format!("${:.5}", cost / n as f64)
        } else {
            "-".into()
        },
        cost_per_accepted: if accepted > 0 {
            format!("${:.5}", cost / accepted as f64)
        } else {
            "-".into()
        },
    }
}

fn outcomes(records: &[RunRecord]) -> (Vec<OutcomeRow>, Chart) {
    let mut accepted_at: BTreeMap<u32, u64> = BTreeMap::new();
    let mut never = 0u64;
    for r in records {
        if r.accepted {
            *accepted_at.entry(r.refine_count).or_default() += 1;
        } else {
            never += 1;
        }
    }
    // Show every attempt up to the last one seen, so a gap (nobody accepted at attempt 1) is visible.
    let last = accepted_at.keys().next_back().copied().unwrap_or(0);
    let n = records.len() as u64;
    let mut rows: Vec<OutcomeRow> = (0..=last)
        .map(|a| {
            let count = accepted_at.get(&a).copied().unwrap_or(0);
            OutcomeRow {
                outcome: format!("attempt {a}"),
                count,
                share: pct(ratio(count, n)),
            }
        })
        .collect();
    rows.push(OutcomeRow {
        outcome: "never".to_owned(),
        count: never,
        share: pct(ratio(never, n)),
    });
    #[allow(clippy::cast_precision_loss)]
    let bars: Vec<BarSpec> = rows
        .iter()
        .map(|row| BarSpec {
            label: row.outcome.clone(),
            value: row.count as f64,
            class: if row.outcome == "never" {
                "bar-bad"
            } else {
                "bar-ok"
            },
            tip: format!("accepted at {}: {}", row.outcome, row.count),
        })
        .collect();
    let chart = bar_chart(
        "chart-refine-outcomes",
        "Refine outcomes",
        ("accepted at", "records"),
        &bars,
        None,
    );
    (rows, chart)
}

fn worst(records: &[RunRecord], summary: &RunSummary) -> Vec<WorstView> {
    let mut order: Vec<&RunRecord> = records.iter().collect();
    order.sort_by(|a, b| a.score.total_cmp(&b.score).then_with(|| a.id.cmp(&b.id)));
    order
        .into_iter()
        .take(WORST_SHOWN)
        .map(|r| WorstView {
            id: r.id.clone(),
            score: format!("{:.2}", r.score),
            accepted: r.accepted,
            refine_count: r.refine_count,
            params: r
                .params
                .iter()
                .filter(|(k, _)| summary.params.get(*k).is_some_and(|v| v.len() > 1))
                .map(|(k, v)| format!("{k}={}", value_text(v)))
                .collect(),
            texts: r.texts.clone(),
            judges: r
                .judge_results
                .iter()
                .map(|(judge, result)| JudgeReasons {
                    score: fixed2(r.scores.get(judge).copied()),
                    judge: judge.clone(),
                    reasons: reasons(result),
                })
                .collect(),
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(id: &str, score: f64, accepted: bool, refine: u32, topic: &str) -> RunRecord {
        let value = json!({
            "id": id, "score": score, "accepted": accepted, "refine_count": refine,
            "topic": topic, "cs_ratio": "50%", "lang": "es",
            "scores": {"fluency": score, "naturalness": 7.0},
            "measurement": {"embedded_ratio": 0.4, "tagged": {"first": 6, "second": 4}},
        });
        RunRecord::from_value(&value, 1).expect("valid record")
    }

    #[test]
    fn threshold_inference_respects_the_decisions() {
        let rs = [
            record("a", 8.2, true, 0, "x"),
            record("b", 7.9, false, 2, "y"),
        ];
        assert_eq!(infer_threshold(&rs), Some(8.0));
        let rs = [
            record("a", 6.5, true, 0, "x"),
            record("b", 6.0, false, 2, "y"),
        ];
        assert_eq!(infer_threshold(&rs), Some(6.5));
        let rs = [
            record("a", 6.0, true, 0, "x"),
            record("b", 7.0, false, 2, "y"),
        ];
        assert_eq!(infer_threshold(&rs), None);
        assert_eq!(infer_threshold(&[record("b", 7.0, false, 2, "y")]), None);
    }

    #[test]
    fn report_counts_outcomes_params_and_ratio() {
        let rs = [
            record("a", 9.0, true, 0, "food"),
            record("b", 8.5, true, 1, "travel"),
            record("c", 4.0, false, 2, "travel"),
        ];
        let report = build("run.jsonl", &rs, &PipelineOptions::default()).expect("builds");
        let outcomes: Vec<(&str, u64)> = report
            .outcomes
            .iter()
            .map(|o| (o.outcome.as_str(), o.count))
            .collect();
        assert_eq!(outcomes, [("attempt 0", 1), ("attempt 1", 1), ("never", 1)]);
        assert_eq!(report.fixed, ["cs_ratio=50%", "lang=es"]);
        assert_eq!(report.params.len(), 1);
        let travel = &report.params[0].values[1];
        assert_eq!(
            (travel.value.as_str(), travel.records, travel.accepted),
            ("travel", 2, 1)
        );
        // Only one varying parameter: no default heatmap.
        assert!(report.heatmap.is_none());
        let ratio = report.ratio.expect("cs_ratio present");
        assert_eq!(ratio.rows[0].mean_error, "10 pts");
        assert_eq!(report.worst[0].id, "c");
        assert_eq!(report.judges.iter().map(|j| j.count).sum::<u64>(), 6);
    }

    #[test]
    fn unknown_axes_are_rejected() {
        let rs = [record("a", 9.0, true, 0, "food")];
        let options = PipelineOptions {
            threshold: None,
            axes: Some(("topic".into(), "nope".into())),
        };
        let err = build("r", &rs, &options).expect_err("unknown axis");
        assert!(err.to_string().starts_with("unknown axis `nope`"), "{err}");
    }

    #[test]
    fn reasons_read_both_observation_shapes() {
        let a = json!({"summary": "ok", "errors": ["e1"], "observations": [{"sentence": 2, "note": "n"}]});
        assert_eq!(reasons(&a), ["ok", "e1", "sentence 2: n"]);
        let b = json!({"observations": {"sentence_1": "stiff"}, "notes": "off by 10"});
        assert_eq!(reasons(&b), ["off by 10", "sentence 1: stiff"]);
    }
}
