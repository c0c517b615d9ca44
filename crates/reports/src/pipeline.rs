//! The data-pipeline report as people read it: lays out the typed figures of a run
//! ([`crate::figures::RunFigures`], computed in the library record by record) as one
//! serializable [`PipelineReport`] — numbers formatted, charts drawn — so the HTML, Markdown and
//! terminal renderers only place them. Reading the run is [`collect`]'s job: it streams the file
//! once for the figures and, when a heatmap is wanted, once more for its cells.

use crate::figures::{
    FiguresBuilder, FiguresError, Heatmap as HeatmapFigures, RunFigures, ThresholdSource,
};
use scoring::summary::Histogram;
use serde::Serialize;

use super::chart::{BarSpec, Chart, bar_chart, trim_number, unit_scatter};
use super::failures::FailuresView;
use super::load::{LoadError, PipelineRun};

/// Choices the user makes about a pipeline report.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// The accept threshold; `None` takes the records' (recorded, else inferred).
    pub threshold: Option<f64>,
    /// The two axes of the acceptance heatmap; `None` picks the two varying parameters with the
    /// most values.
    pub axes: Option<(String, String)>,
}

/// Why a report could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PipelineReportError {
    /// The results file could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The figures could not be made (an unknown `--axes` name).
    #[error(transparent)]
    Figures(#[from] FiguresError),
    /// The errors file beside the run could not be read.
    #[error(transparent)]
    Failures(#[from] runlog::failure::TallyError),
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
    /// Diversity of the texts, in words (`distinct-1 0.42, distinct-2 0.81 over 1,234 words; …`).
    pub diversity: String,
}

/// The report's diversity line.
fn diversity_line(d: &codeswitch::diversity::Diversity) -> String {
    let fig = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"));
    let mut line = format!(
        "distinct-1 ≈{}, distinct-2 ≈{} over {} words",
        fig(d.distinct_1),
        fig(d.distinct_2),
        d.words
    );
    if !d.embedded_vocabulary.is_empty() {
        let pairs: Vec<String> = d
            .embedded_vocabulary
            .iter()
            .map(|(pair, n)| format!("{pair} ≈{n}"))
            .collect();
        line.push_str(&format!(
            "; distinct embedded-language words: {}",
            pairs.join(", ")
        ));
        if d.vocabulary_records >= codeswitch::diversity::VOCABULARY_RECORDS
            && d.vocabulary_records < d.records
        {
            line.push_str(&format!(
                " (first {} of {} records)",
                d.vocabulary_records, d.records
            ));
        }
    }
    line
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
    /// The failed scenarios and the yield over those tried.
    pub failures: FailuresView,
}

/// What a report reads of a run: its records' figures, the acceptance heatmap when one is drawn,
/// and its current failures.
#[derive(Debug, Clone)]
pub struct Collected {
    /// The records' figures.
    pub figures: RunFigures,
    /// The heatmap, when two axes are asked for or exist.
    pub heatmap: Option<HeatmapFigures>,
    /// The errors file's failures, less the scenarios that have a record.
    pub failures: runlog::FailureTally,
    /// The errors file's name.
    pub errors_file: String,
}

/// Reads a run's errors file (beside it; none is a run without failures), then its records for
/// the figures and, when two axes are asked for or exist, its heatmap (a second pass).
///
/// # Errors
/// [`PipelineReportError`]: an unreadable file or line, or an unknown axis.
pub fn collect(
    run: &PipelineRun,
    options: &PipelineOptions,
) -> Result<Collected, PipelineReportError> {
    let errors = runlog::record::errors_path(run.path());
    let mut failures = runlog::FailureTally::read(&errors)?;
    let mut builder = FiguresBuilder::new();
    run.for_each(|r| {
        failures.succeeded(&r.record.id);
        builder.add(&r.record);
    })?;
    let figures = builder.finish(options.threshold);
    let heatmap = match figures.heatmap_axes(options.axes.as_ref())? {
        Some((rows, cols)) => {
            let mut builder = crate::figures::HeatmapBuilder::new(rows, cols);
            run.for_each(|r| builder.add(&r.record))?;
            Some(builder.finish())
        }
        None => None,
    };
    Ok(Collected {
        figures,
        heatmap,
        failures,
        errors_file: crate::display_name(&errors),
    })
}

/// Formats a 0–1 share as a percentage.
#[must_use]
pub fn pct(share: Option<f64>) -> String {
    share.map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0))
}

fn fixed2(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |m| format!("{m:.2}"))
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The run's own threshold in words: one recorded value, the mixed ones with their counts, or
/// how it was inferred.
fn run_threshold_text(f: &RunFigures) -> String {
    match &f.recorded_thresholds[..] {
        [_, _, ..] => {
            let parts: Vec<String> = f
                .recorded_thresholds
                .iter()
                .map(|(t, n)| format!("{} ({n} records)", trim_number(*t)))
                .collect();
            format!("mixed: {}", parts.join(", "))
        }
        _ => {
            let t = trim_number(f.run_threshold.value);
            match f.run_threshold.source {
                ThresholdSource::Inferred => format!("{t}, inferred from the accept decisions"),
                ThresholdSource::Default => {
                    format!("{t}, the pipeline default; the records' decisions do not pin it down")
                }
                ThresholdSource::Recorded | ThresholdSource::Given => {
                    format!("{t}, from the records' run settings")
                }
            }
        }
    }
}

/// Where the threshold came from; for a given one that differs from the run's, that the accepted
/// count is the run's decisions and how many records pass the given threshold.
fn threshold_note(f: &RunFigures) -> String {
    let run = run_threshold_text(f);
    if f.threshold.source != ThresholdSource::Given {
        if f.recorded_thresholds.len() > 1 {
            return format!("{run}; the run was resumed with another threshold");
        }
        return match f.threshold.source {
            ThresholdSource::Recorded => "from the records' run settings",
            ThresholdSource::Inferred => "inferred from the accept decisions",
            ThresholdSource::Default | ThresholdSource::Given => {
                "the pipeline default; the records' decisions do not pin it down"
            }
        }
        .to_owned();
    }
    // The accepted count reads true at the given threshold when as many records pass it.
    if f.recorded_thresholds.len() <= 1 && f.passing == f.summary.accepted {
        return "given".to_owned();
    }
    format!(
        "given; accepted as decided by the run at {run}; {}/{} score ≥ {}",
        f.passing,
        f.summary.done,
        trim_number(f.threshold.value)
    )
}

/// Lays out what was read of the run in the file named `source`.
#[must_use]
pub fn build(source: &str, run: &Collected) -> PipelineReport {
    let f = &run.figures;
    let heatmap = run.heatmap.as_ref();
    let threshold = f.threshold.value;
    let threshold_note = threshold_note(f);
    let summary = &f.summary;
    let totals = Totals {
        records: summary.done,
        accepted: summary.accepted,
        acceptance: pct(summary.acceptance_rate()),
        mean_score: fixed2(summary.score.mean()),
        mean_refinements: fixed2(summary.refine_count.mean()),
        prompt_tokens: f.prompt_tokens,
        completion_tokens: f.completion_tokens,
        cost: format!("${:.4}", f.cost_usd),
        calls: f.calls,
        cache_hits: f.cache_hits,
        diversity: diversity_line(&f.diversity),
    };
    let (histogram, histogram_chart) = score_histogram(&summary.histogram, threshold);
    let (outcomes, outcomes_chart) = outcomes(f);
    PipelineReport {
        source: source.to_owned(),
        threshold: trim_number(threshold),
        threshold_note,
        totals,
        histogram,
        out_of_range: summary.histogram.out_of_range,
        histogram_chart,
        judges: judges(f),
        fixed: f
            .fixed_params()
            .into_iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect(),
        params: params(f),
        heatmap: heatmap.map(heatmap_view),
        ratio: ratio_view(f),
        cost: cost_view(f),
        outcomes,
        outcomes_chart,
        worst: worst(f),
        failures: FailuresView::new(
            &run.failures,
            summary.done,
            summary.accepted,
            &run.errors_file,
        ),
    }
}

fn params(f: &RunFigures) -> Vec<ParamView> {
    f.summary
        .params
        .iter()
        .filter(|(_, values)| values.len() > 1)
        .map(|(name, values)| ParamView {
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
        })
        .collect()
}

fn heatmap_view(h: &HeatmapFigures) -> Heatmap {
    Heatmap {
        rows_axis: h.rows_axis.clone(),
        cols_axis: h.cols_axis.clone(),
        cols: h.cols.clone(),
        rows: h
            .rows
            .iter()
            .map(|(row, cells)| {
                let line = cells
                    .iter()
                    .map(|c| {
                        let rate = ratio(c.accepted, c.records);
                        Cell {
                            records: c.records,
                            accepted: c.accepted,
                            rate: pct(rate),
                            color: heat_color(rate),
                        }
                    })
                    .collect();
                (row.clone(), line)
            })
            .collect(),
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

fn judges(f: &RunFigures) -> Vec<JudgeView> {
    f.judges
        .iter()
        .map(|j| {
            #[allow(clippy::cast_precision_loss)]
            let bars: Vec<BarSpec> = j
                .bins
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
                    &format!("chart-judge-{}", slug(&j.name)),
                    &format!("{} scores", j.name),
                    ("score", "records"),
                    &bars,
                    None,
                ),
                name: j.name.clone(),
                mean: format!("{:.2}", j.mean),
                min: format!("{:.2}", j.min),
                max: format!("{:.2}", j.max),
                count: j.count,
                bins: j.bins.to_vec(),
            }
        })
        .collect()
}

/// An id-safe form of a name: ASCII alphanumerics kept, everything else `-`.
fn slug(name: &str) -> String {
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

fn ratio_view(f: &RunFigures) -> Option<RatioView> {
    if f.ratio.is_empty() {
        return None;
    }
    let points: Vec<(f64, f64, &'static str, String)> = f
        .ratio_points
        .iter()
        .map(|p| {
            (
                p.target,
                p.measured,
                if p.accepted { "pt-ok" } else { "pt-bad" },
                format!(
                    "{}: target {}, measured {:.0}%",
                    p.id,
                    p.target_text,
                    p.measured * 100.0
                ),
            )
        })
        .collect();
    Some(RatioView {
        rows: f
            .ratio
            .iter()
            .map(|r| RatioRow {
                target: r.target_text.clone(),
                records: r.records,
                measured: r.measured,
                mean: pct(r.mean),
                min: pct(r.min),
                max: pct(r.max),
                mean_error: r
                    .mean_error
                    .map_or_else(|| "-".to_owned(), |e| format!("{:.0} pts", e * 100.0)),
            })
            .collect(),
        chart: unit_scatter(
            "chart-ratio",
            "Measured vs target code-switching ratio",
            ("target embedded-language share", "measured share"),
            &points,
        ),
    })
}

fn cost_view(f: &RunFigures) -> CostView {
    let n = f.summary.done;
    let accepted = f.summary.accepted;
    let cost = f.cost_usd;
    let tokens = f.prompt_tokens.saturating_add(f.completion_tokens);
    #[allow(clippy::cast_precision_loss)]
    CostView {
        agents: f
            .agents
            .iter()
            .map(|a| AgentRow {
                agent: a.agent.clone(),
                models: a
                    .models
                    .iter()
                    .map(|(m, c)| format!("{m} ×{c}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                scenarios: a.scenarios,
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

fn outcomes(f: &RunFigures) -> (Vec<OutcomeRow>, Chart) {
    let n = f.summary.done;
    let mut rows: Vec<OutcomeRow> = f
        .outcomes
        .accepted_at
        .iter()
        .enumerate()
        .map(|(a, &count)| OutcomeRow {
            outcome: format!("attempt {a}"),
            count,
            share: pct(ratio(count, n)),
        })
        .collect();
    rows.push(OutcomeRow {
        outcome: "never".to_owned(),
        count: f.outcomes.never,
        share: pct(ratio(f.outcomes.never, n)),
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

fn worst(f: &RunFigures) -> Vec<WorstView> {
    f.worst
        .iter()
        .map(|w| WorstView {
            id: w.id.clone(),
            score: format!("{:.2}", w.score),
            accepted: w.accepted,
            refine_count: w.refine_count,
            params: w.params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            texts: w.texts.clone(),
            judges: w
                .judges
                .iter()
                .map(|j| JudgeReasons {
                    judge: j.judge.clone(),
                    score: fixed2(j.score),
                    reasons: j.reasons.clone(),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `collect` gives for a run without an errors file.
    fn records_only(figures: RunFigures) -> Collected {
        Collected {
            figures,
            heatmap: None,
            failures: runlog::FailureTally::default(),
            errors_file: "r.jsonl.errors.jsonl".into(),
        }
    }
    use runlog::record::ScenarioRecord;
    use serde_json::json;

    fn record(id: &str, score: f64, accepted: bool, refine: u32, topic: &str) -> ScenarioRecord {
        serde_json::from_value(json!({
            "id": id, "score": score, "accepted": accepted, "refine_count": refine,
            "topic": topic, "cs_ratio": "50%", "lang": "es",
            "scores": {"fluency": score, "naturalness": 7.0},
            "measurement": {"embedded_ratio": 0.4, "tagged": {"first": 6, "second": 4}},
        }))
        .expect("valid record")
    }

    #[test]
    fn report_lays_out_outcomes_params_ratio_and_threshold_source() {
        let mut b = FiguresBuilder::new();
        for r in [
            record("a", 9.0, true, 0, "food"),
            record("b", 8.5, true, 1, "travel"),
            record("c", 4.0, false, 2, "travel"),
        ] {
            b.add(&r);
        }
        let report = build("run.jsonl", &records_only(b.finish(None)));
        let outcomes: Vec<(&str, u64, &str)> = report
            .outcomes
            .iter()
            .map(|o| (o.outcome.as_str(), o.count, o.share.as_str()))
            .collect();
        assert_eq!(
            outcomes,
            [
                ("attempt 0", 1, "33%"),
                ("attempt 1", 1, "33%"),
                ("never", 1, "33%")
            ]
        );
        assert_eq!(report.fixed, ["cs_ratio=50%", "lang=es"]);
        let travel = &report.params[0].values[1];
        assert_eq!(
            (travel.value.as_str(), travel.rate.as_str()),
            ("travel", "50%")
        );
        assert_eq!(
            report.ratio.expect("cs_ratio present").rows[0].mean_error,
            "10 pts"
        );
        assert_eq!(report.worst[0].score, "4.00");
        assert_eq!(report.threshold, "8");
        assert_eq!(report.threshold_note, "inferred from the accept decisions");
    }

    #[test]
    fn a_run_with_no_acceptance_still_shows_attempt_0() {
        let mut b = FiguresBuilder::new();
        b.add(&record("a", 4.0, false, 2, "food"));
        let report = build("r", &records_only(b.finish(Some(8.0))));
        let rows: Vec<&str> = report.outcomes.iter().map(|o| o.outcome.as_str()).collect();
        assert_eq!(rows, ["attempt 0", "never"]);
        assert_eq!(report.threshold_note, "given");
    }

    /// `report --threshold 9` over records decided at 8: the header said "17/20 accepted at
    /// threshold 9 (given)" though few scored ≥ 9.
    #[test]
    fn a_given_threshold_other_than_the_runs_says_how_many_pass_it() {
        let mut b = FiguresBuilder::new();
        for r in [
            record("a", 9.0, true, 0, "food"),
            record("b", 8.5, true, 1, "travel"),
            record("c", 4.0, false, 2, "travel"),
        ] {
            b.add(&r);
        }
        let report = build("r", &records_only(b.finish(Some(9.0))));
        assert_eq!(report.threshold, "9");
        assert_eq!(
            report.threshold_note,
            "given; accepted as decided by the run at 8, inferred from the accept decisions; \
             1/3 score ≥ 9"
        );
    }
}
