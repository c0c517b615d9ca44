//! The terminal form of reports and diffs: comfy-table tables laid out from the same values the
//! HTML and Markdown renderers read, returned as text for the command line to print.

use std::fmt::Write as _;

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};

use std::collections::BTreeMap;
use std::path::Path;

use super::pipeline::PipelineReport;
use super::render::{DiffRow, DiffView};
use runlog::RunTotals;

/// A table in the reports' style with `header`.
#[must_use]
pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.to_vec());
    t
}

/// The terminal form of a pipeline report: totals, then one table per figure.
#[must_use]
pub fn pipeline(r: &PipelineReport) -> String {
    let mut out = String::new();
    let t = &r.totals;
    let _ = writeln!(
        out,
        "{}: {}/{} accepted ({}) at threshold {} ({}); mean score {}, mean refinements {}; {} + {} tokens, {}",
        r.source,
        t.accepted,
        t.records,
        t.acceptance,
        r.threshold,
        r.threshold_note,
        t.mean_score,
        t.mean_refinements,
        t.prompt_tokens,
        t.completion_tokens,
        t.cost
    );
    if r.failures.any() {
        let _ = writeln!(out, "{}", r.failures.sentence());
    }
    let _ = writeln!(out, "Diversity: {}", t.diversity);
    if !r.fixed.is_empty() {
        let _ = writeln!(out, "fixed: {}", r.fixed.join(", "));
    }
    let mut hist = table(&["score", "records", ""]);
    for b in &r.histogram {
        hist.add_row(vec![
            b.range.clone(),
            b.count.to_string(),
            if b.accepted { "≥ threshold" } else { "" }.to_owned(),
        ]);
    }
    let mut outcomes = table(&["accepted at", "records", "share"]);
    for o in &r.outcomes {
        outcomes.add_row(vec![
            o.outcome.clone(),
            o.count.to_string(),
            o.share.clone(),
        ]);
    }
    let mut judges = table(&["judge", "n", "mean", "min", "max"]);
    for j in &r.judges {
        judges.add_row(vec![
            j.name.clone(),
            j.count.to_string(),
            j.mean.clone(),
            j.min.clone(),
            j.max.clone(),
        ]);
    }
    let mut params = table(&[
        "parameter",
        "value",
        "records",
        "accepted",
        "rate",
        "mean score",
    ]);
    for p in &r.params {
        for v in &p.values {
            params.add_row(vec![
                p.name.clone(),
                v.value.clone(),
                v.records.to_string(),
                v.accepted.to_string(),
                v.rate.clone(),
                v.mean_score.clone(),
            ]);
        }
    }
    let _ = writeln!(out, "\nFinal scores\n{hist}\n\nRefine outcomes\n{outcomes}");
    let _ = writeln!(
        out,
        "\nJudges\n{judges}\n\nAcceptance by parameter value\n{params}"
    );
    if let Some(h) = &r.heatmap {
        let mut header = vec![format!("{} \\ {}", h.rows_axis, h.cols_axis)];
        header.extend(h.cols.iter().cloned());
        let mut heat = Table::new();
        heat.load_style(UTF8_FULL_CONDENSED);
        heat.set_header(header);
        for (row, cells) in &h.rows {
            let mut line = vec![row.clone()];
            line.extend(
                cells
                    .iter()
                    .map(|c| format!("{} ({}/{})", c.rate, c.accepted, c.records)),
            );
            heat.add_row(line);
        }
        let _ = writeln!(
            out,
            "\nAcceptance {} × {}\n{heat}",
            h.rows_axis, h.cols_axis
        );
    }
    if let Some(ratio) = &r.ratio {
        let mut t = table(&[
            "target",
            "records",
            "measured",
            "mean",
            "min",
            "max",
            "mean error",
        ]);
        for row in &ratio.rows {
            t.add_row(vec![
                row.target.clone(),
                row.records.to_string(),
                row.measured.to_string(),
                row.mean.clone(),
                row.min.clone(),
                row.max.clone(),
                row.mean_error.clone(),
            ]);
        }
        let _ = writeln!(out, "\nMeasured vs target code-switching ratio\n{t}");
    }
    let mut cost = table(&["agent", "model", "scenarios"]);
    for a in &r.cost.agents {
        cost.add_row(vec![
            a.agent.clone(),
            a.models.clone(),
            a.scenarios.to_string(),
        ]);
    }
    let _ = writeln!(
        out,
        "\nModels by agent\n{cost}\nper scenario: {} tokens, {}; per accepted scenario: {}",
        r.cost.tokens_per_scenario, r.cost.cost_per_scenario, r.cost.cost_per_accepted
    );
    let mut worst = table(&["scenario", "score", "accepted", "refinements", "parameters"]);
    for w in &r.worst {
        worst.add_row(vec![
            w.id.clone(),
            w.score.clone(),
            if w.accepted { "yes" } else { "no" }.to_owned(),
            w.refine_count.to_string(),
            w.params.join(", "),
        ]);
    }
    let _ = writeln!(out, "\nLowest-scoring scenarios\n{worst}");
    out.push_str(&failures(&r.failures));
    out
}

/// The "why scenarios failed" table of a run (empty text when none failed).
#[must_use]
pub fn failures(f: &crate::failures::FailuresView) -> String {
    let mut out = String::new();
    if !f.any() {
        return out;
    }
    if !f.rows.is_empty() {
        let mut t = table(&["agent", "cause", "scenarios", "example reason"]);
        for row in &f.rows {
            t.add_row(vec![
                row.agent.clone(),
                row.cause.clone(),
                row.scenarios.to_string(),
                row.example.clone(),
            ]);
        }
        let _ = if f.attempted == 0 {
            writeln!(
                out,
                "\nWhy scenarios failed ({} scenarios; from {})\n{t}",
                f.failed, f.errors_file
            )
        } else {
            writeln!(
                out,
                "\nWhy scenarios failed ({} of {} tried; from {})\n{t}",
                f.failed, f.attempted, f.errors_file
            )
        };
    }
    if f.unreadable > 0 {
        let _ = writeln!(
            out,
            "{} line(s) of {} are not failure records and were skipped",
            f.unreadable, f.errors_file
        );
    }
    out
}

/// The terminal form: a headline, the regressions table, then the other sections that have rows.
#[must_use]
pub fn diff(v: &DiffView) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} → {} ({}): {} matched, {} {}, mean score {}, {} new, {} missing",
        v.before,
        v.after,
        v.kind,
        v.matched,
        v.ok_word,
        v.ok_line,
        v.mean_line,
        v.new_total,
        v.missing_total
    );
    if !v.rules.is_empty() {
        let _ = writeln!(
            out,
            "rules differ (first vs second run; regressions may come from the rules, not the \
             texts): {}",
            v.rules.join("; ")
        );
    }
    if !v.yield_line.is_empty() {
        let _ = writeln!(out, "{}", v.yield_line);
    }
    if !v.judge_lines.is_empty() {
        let judges: Vec<String> = v
            .judge_lines
            .iter()
            .map(|(name, line)| format!("{name} {line}"))
            .collect();
        let _ = writeln!(out, "judge means (all records): {}", judges.join(", "));
    }
    let rows = |title: &str, rows: &[DiffRow], total: usize, last: &str| {
        let mut t = table(&["scenario", "before", "after", "Δ", last]);
        for r in rows {
            t.add_row(vec![
                r.id.clone(),
                r.before.clone(),
                r.after.clone(),
                r.delta.clone(),
                if last == "why" {
                    r.note.clone()
                } else {
                    r.decision.clone()
                },
            ]);
        }
        format!("\n{title} ({total})\n{t}\n")
    };
    if v.regressions.is_empty() {
        out.push_str("no regressions\n");
    } else {
        out.push_str(&rows(
            "Regressions",
            &v.regressions,
            v.regressed_total,
            "why",
        ));
    }
    if !v.improvements.is_empty() {
        out.push_str(&rows(
            "Improvements",
            &v.improvements,
            v.improved_total,
            "decision",
        ));
    }
    if !v.flips.is_empty() {
        let mut t = table(&["scenario", "check", ""]);
        for (id, check, change) in &v.flips {
            t.add_row(vec![id.clone(), check.clone(), change.clone()]);
        }
        let _ = writeln!(out, "\nChecks that flipped ({})\n{t}", v.flips.len());
    }
    if !v.other_changes.is_empty() {
        out.push_str(&rows(
            "Other score changes",
            &v.other_changes,
            v.other_total,
            "decision",
        ));
    }
    if !v.new.is_empty() {
        let _ = writeln!(out, "\nnew: {}", v.new.join(", "));
    }
    if !v.missing.is_empty() {
        let _ = writeln!(out, "\nmissing: {}", v.missing.join(", "));
    }
    if v.not_shown > 0 {
        let _ = writeln!(
            out,
            "\n{} more row(s) not listed (each list keeps its first rows by id)",
            v.not_shown
        );
    }
    out
}

/// What `run` prints when it ends: counts, calls and cost, the output's acceptance and judge
/// means, the score histogram, the lowest-scoring parameter values, and where failures went.
#[must_use]
pub fn run_end(out: &Path, t: &RunTotals) -> String {
    let mut text = String::new();
    let (summary, unreadable, tally) = runlog::summary::summarise_file(out);
    let _ = writeln!(
        text,
        "\nrun: {} written, {} failed, {} skipped (already done); stop: {}",
        t.records, t.failures, t.skipped, t.stop
    );
    let _ = writeln!(
        text,
        "calls {} ({} cache hits, {} errors), tokens {} prompt + {} completion, cost ${:.4}{} ({}, ratio judge {})",
        t.calls,
        t.cache_hits,
        t.call_errors,
        t.prompt_tokens,
        t.completion_tokens,
        t.cost_usd,
        match t.unpriced {
            0 => String::new(),
            n => format!(
                " + unknown ({n} paid call{} had no price: set `prices` for the model)",
                if n == 1 { "" } else { "s" }
            ),
        },
        t.provider,
        t.ratio_judge,
    );
    let rate = summary
        .acceptance_rate()
        .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
    let _ = writeln!(
        text,
        "{}: {} record(s), accepted {} ({rate}), mean score {}, mean refinements {}",
        out.display(),
        summary.done,
        summary.accepted,
        summary
            .score
            .mean()
            .map_or("-".into(), |m| format!("{m:.3}")),
        summary
            .refine_count
            .mean()
            .map_or("-".into(), |m| format!("{m:.2}")),
    );
    let failed = crate::failures::FailuresView::new(
        &tally,
        summary.done,
        summary.accepted,
        &runlog::record::errors_path(out).display().to_string(),
    );
    if failed.any() {
        let _ = writeln!(text, "{}", failed.sentence());
    }
    if unreadable > 0 {
        let _ = writeln!(
            text,
            "warning: {unreadable} line(s) of the output are not records"
        );
    }
    // The closing summary stays short (a run's output is mostly its progress line): the judges
    // and the score distribution on one line each; `report` draws them in full.
    let means: BTreeMap<_, _> = summary
        .judges
        .iter()
        .map(|(k, m)| (k.clone(), m.mean()))
        .collect();
    if !means.is_empty() {
        let parts: Vec<String> = means
            .into_iter()
            .map(|(judge, mean)| {
                format!("{judge} {}", mean.map_or("-".into(), |m| format!("{m:.2}")))
            })
            .collect();
        let _ = writeln!(text, "judge means: {}", parts.join(", "));
    }
    if let Some(line) = score_sparkline(&summary.histogram.counts) {
        let _ = writeln!(text, "{line}");
    }
    let lowest = summary.lowest(5);
    if !lowest.is_empty() {
        let mut lows = table(&["parameter", "value", "records", "mean score", "accepted"]);
        for p in lowest {
            lows.add_row(vec![
                p.param.clone(),
                p.value.clone(),
                p.stats.records.to_string(),
                p.stats
                    .score
                    .mean()
                    .map_or("-".into(), |m| format!("{m:.3}")),
                p.stats
                    .acceptance_rate()
                    .map_or("-".into(), |r| format!("{:.0}%", r * 100.0)),
            ]);
        }
        let _ = writeln!(text, "lowest-scoring parameter values:\n{lows}");
    }
    if failed.any() {
        text.push_str(&failures_by_cause(&failed));
        let _ = writeln!(
            text,
            "the next run on this output retries them; `scenario-engine report {}` lists them by agent",
            out.display()
        );
    }
    text
}

/// The score distribution on one line: a bar per histogram bin (0.5 wide) from the lowest
/// bin with a score to the highest; `None` without scores.
fn score_sparkline(counts: &[u64]) -> Option<String> {
    const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let first = counts.iter().position(|&c| c > 0)?;
    let last = counts.iter().rposition(|&c| c > 0)?;
    let widest = counts.iter().copied().max().unwrap_or(1).max(1);
    let bars: String = counts[first..=last]
        .iter()
        .map(|&c| {
            // A bin with any score shows at least the lowest bar.
            let level = if c == 0 {
                0
            } else {
                usize::try_from((c * 8).div_ceil(widest))
                    .unwrap_or(8)
                    .clamp(1, 8)
            };
            BARS[level]
        })
        .collect();
    let (lo, _) = scoring::summary::Histogram::bounds(first);
    let (_, hi) = scoring::summary::Histogram::bounds(last);
    Some(format!(
        "scores {lo:.1}–{hi:.1}: ▕{bars}▏ (a bar per 0.5; peak {widest} records)"
    ))
}

/// The failures of a run by cause, with the agents they hit: the short form `run` ends with.
#[must_use]
pub fn failures_by_cause(f: &crate::failures::FailuresView) -> String {
    let mut out = String::new();
    if f.rows.is_empty() {
        return out;
    }
    let mut causes: Vec<(String, u64, Vec<String>)> = Vec::new();
    for row in &f.rows {
        match causes.iter_mut().find(|(cause, ..)| *cause == row.cause) {
            Some((_, n, agents)) => {
                *n += row.scenarios;
                agents.push(format!("{} {}", row.agent, row.scenarios));
            }
            None => causes.push((
                row.cause.clone(),
                row.scenarios,
                vec![format!("{} {}", row.agent, row.scenarios)],
            )),
        }
    }
    causes.sort_by_key(|(_, n, _)| std::cmp::Reverse(*n));
    let mut t = table(&["cause", "scenarios", "by agent"]);
    for (cause, n, agents) in causes {
        t.add_row(vec![cause, n.to_string(), agents.join(", ")]);
    }
    let _ = writeln!(
        out,
        "\nWhy scenarios failed ({} of {} tried)\n{t}",
        f.failed, f.attempted
    );
    out
}

/// The terminal form of a suite report (`report` on a suite result): the totals line, pass/fail
/// by category, the checks that fail most, the failed scenarios and the low-confidence verdicts.
#[must_use]
pub fn suite(r: &crate::suite::SuiteReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}): {}/{} passed ({}), mean shown score {}",
        r.suite,
        r.source,
        r.passed,
        r.passed + r.failed,
        r.pass_rate,
        r.mean_score
    );
    let mut cats = table(&["category", "passed", "failed", "pass rate"]);
    for c in &r.categories {
        cats.add_row(vec![
            c.name.clone(),
            c.passed.to_string(),
            c.failed.to_string(),
            c.rate.clone(),
        ]);
    }
    let mut checks = table(&["check", "failures"]);
    for c in &r.most_failed {
        checks.add_row(vec![c.name.clone(), c.failures.to_string()]);
    }
    let mut failed = table(&["scenario", "category", "score", "why"]);
    for f in &r.failures {
        failed.add_row(vec![
            f.id.clone(),
            f.category.clone(),
            f.score.clone(),
            f.reasons.join("; "),
        ]);
    }
    let _ = writeln!(
        out,
        "\nPass/fail by category\n{cats}\n\nChecks that fail most\n{checks}\n\nFailed scenarios\n{failed}"
    );
    if !r.low_confidence.is_empty() {
        let mut low = table(&["scenario", "scenario result", "check", "message"]);
        for l in &r.low_confidence {
            let result = if l.scenario_passed { "PASS" } else { "FAIL" };
            let check = format!("{} {}", if l.passed { "✓" } else { "✗" }, l.check);
            low.add_row(vec![
                l.id.clone(),
                result.to_owned(),
                check,
                l.message.clone(),
            ]);
        }
        let _ = writeln!(
            out,
            "\nLow-confidence verdicts (an unsure text rule's guess decided)\n{low}"
        );
    }
    out
}
