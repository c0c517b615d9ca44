//! Rendering of reports and diffs to HTML and Markdown with minijinja. The templates live in
//! `templates/` and are embedded at compile time; this module loads them once, hands them
//! the report values, and adds the few view values only a renderer needs (the diff's rows).

use std::sync::LazyLock;

use minijinja::{Environment, context, value::Serde};
use serde::Serialize;

use super::pipeline::PipelineReport;
use crate::compare::{Change, ComparedKind, Diff, ROWS_KEPT};

/// A report template failed to load or render: always a bug in a template, never in the input.
#[derive(Debug, thiserror::Error)]
#[error("report template `{template}` failed: {message}")]
pub struct RenderError {
    /// The template's name.
    pub template: &'static str,
    /// What minijinja reported.
    pub message: String,
}

const TEMPLATES: [(&str, &str); 5] = [
    ("report.html.j2", include_str!("templates/report.html.j2")),
    ("report.css", include_str!("templates/report.css")),
    ("pipeline.md.j2", include_str!("templates/pipeline.md.j2")),
    ("suite.md.j2", include_str!("templates/suite.md.j2")),
    ("diff.md.j2", include_str!("templates/diff.md.j2")),
];

static ENV: LazyLock<Result<Environment<'static>, RenderError>> = LazyLock::new(build_env);

fn build_env() -> Result<Environment<'static>, RenderError> {
    let mut env = scoring::report::template_environment().map_err(|e| RenderError {
        template: "syntax",
        message: format!("{e:#}"),
    })?;
    for (name, source) in TEMPLATES {
        env.add_template(name, source).map_err(|e| RenderError {
            template: name,
            message: format!("{e:#}"),
        })?;
    }
    Ok(env)
}

fn render(template: &'static str, ctx: minijinja::Value) -> Result<String, RenderError> {
    let env = ENV.as_ref().map_err(|e| RenderError {
        template: e.template,
        message: e.message.clone(),
    })?;
    let out = env
        .get_template(template)
        .and_then(|t| t.render(ctx))
        .map_err(|e| RenderError {
            template,
            message: format!("{e:#}"),
        })?;
    tracing::debug!(template, bytes = out.len(), "rendered");
    Ok(out)
}

/// The HTML page of a pipeline report.
///
/// # Errors
/// [`RenderError`] on a template bug.
pub fn pipeline_html(report: &PipelineReport) -> Result<String, RenderError> {
    render(
        "report.html.j2",
        context! { pipeline => Serde(report), suite => None::<()> },
    )
}

/// The HTML page of a suite report: `report` is the command line's suite report (the values
/// `report.html.j2`'s suite section and `suite.md.j2` read).
///
/// # Errors
/// [`RenderError`] on a template bug.
pub fn suite_html(report: &impl Serialize) -> Result<String, RenderError> {
    render(
        "report.html.j2",
        context! { pipeline => None::<()>, suite => Serde(report) },
    )
}

/// The Markdown of a pipeline report.
///
/// # Errors
/// [`RenderError`] on a template bug.
pub fn pipeline_markdown(report: &PipelineReport) -> Result<String, RenderError> {
    render("pipeline.md.j2", context! { r => Serde(report) })
}

/// The Markdown of a suite report (see [`suite_html`]).
///
/// # Errors
/// [`RenderError`] on a template bug.
pub fn suite_markdown(report: &impl Serialize) -> Result<String, RenderError> {
    render("suite.md.j2", context! { r => Serde(report) })
}

/// One row of the diff's tables, numbers formatted.
#[derive(Debug, Clone, Serialize)]
pub struct DiffRow {
    /// Scenario id.
    pub id: String,
    /// Score before.
    pub before: String,
    /// Score after.
    pub after: String,
    /// Signed delta.
    pub delta: String,
    /// Decision before → after (`accepted → rejected`), empty when unchanged.
    pub decision: String,
    /// Why it regressed (`accepted → rejected, score drop`), or what flipped.
    pub note: String,
}

/// What the diff renderers (Markdown and terminal) show, numbers formatted.
#[derive(Debug, Clone, Serialize)]
pub struct DiffView {
    /// Name of the first file.
    pub before: String,
    /// Name of the second file.
    pub after: String,
    /// Kind of results.
    pub kind: String,
    /// `accepted` or `passed`.
    pub ok_word: String,
    /// Scenarios in both files.
    pub matched: usize,
    /// `12/20 → 10/20`.
    pub ok_line: String,
    /// `8.12 → 7.90 (-0.22) over the 18 matched scenarios`.
    pub mean_line: String,
    /// Each judge's mean over each run's records: (`fluency`, `7.90 → 8.10 (+0.20)`); a judge
    /// one run lacks shows `-` there.
    pub judge_lines: Vec<(String, String)>,
    /// How the two runs' accept rules differ (`threshold 8 vs 9`, `judges only in the first
    /// run: toxicity`), said near the top; empty when they match.
    pub rules: Vec<String>,
    /// `yield over the scenarios tried 17/23 → 19/21 (3 → 2 failed)`, or empty when neither
    /// run has failed scenarios.
    pub yield_line: String,
    /// The minimum score delta in force, or empty.
    pub min_delta: String,
    /// Regressions, one row per scenario.
    pub regressions: Vec<DiffRow>,
    /// Decisions that improved.
    pub improvements: Vec<DiffRow>,
    /// Other score changes (decision unchanged, not a regression), largest drop first.
    pub other_changes: Vec<DiffRow>,
    /// Check flips: `id`, check, `✓ → ✗`.
    pub flips: Vec<(String, String, String)>,
    /// Scenarios only in the second file.
    pub new: Vec<String>,
    /// Scenarios only in the first file.
    pub missing: Vec<String>,
    /// How many scenarios regressed (`regressions` may list fewer).
    pub regressed_total: usize,
    /// How many decisions improved (`improvements` may list fewer).
    pub improved_total: usize,
    /// How many other scores changed (`other_changes` may list fewer).
    pub other_total: usize,
    /// How many scenarios are only in the second file (`new` may list fewer).
    pub new_total: usize,
    /// How many scenarios are only in the first file (`missing` may list fewer).
    pub missing_total: usize,
    /// Rows left out of the lists above because a list reached `ROWS_KEPT` (0 normally).
    pub not_shown: usize,
}

impl DiffView {
    /// Formats `diff` of files `before` and `after`.
    #[must_use]
    pub fn new(diff: &Diff, before: &str, after: &str, min_delta: Option<f64>) -> Self {
        let suite = diff.kind == ComparedKind::Suite;
        let (ok_word, not_ok_word) = if suite {
            ("passed", "failed")
        } else {
            ("accepted", "rejected")
        };
        let fmt = |v: f64| {
            if suite {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            }
        };
        let word = |ok: bool| if ok { ok_word } else { not_ok_word };
        let row = |c: &Change, note: String| DiffRow {
            id: c.id.clone(),
            before: fmt(c.before_score),
            after: fmt(c.after_score),
            delta: if suite {
                format!("{:+.0}", c.delta)
            } else {
                format!("{:+.2}", c.delta)
            },
            decision: if c.decision_changed() {
                format!("{} → {}", word(c.before_ok), word(c.after_ok))
            } else {
                String::new()
            },
            note,
        };
        let regressed: Vec<&str> = {
            let mut ids: Vec<&str> = diff.regressions.iter().map(|r| r.id.as_str()).collect();
            ids.dedup();
            ids
        };
        let regressions = regressed
            .iter()
            .filter_map(|id| {
                let change = diff.changes.iter().find(|c| c.id == *id)?;
                let kinds: Vec<&str> = diff
                    .regressions
                    .iter()
                    .filter(|r| r.id == *id)
                    .map(|r| r.kind.describe())
                    .collect();
                Some(row(change, kinds.join(", ")))
            })
            .collect();
        let improvements = diff
            .improvements()
            .into_iter()
            .map(|c| row(c, String::new()))
            .collect();
        let mut others: Vec<&Change> = diff
            .changes
            .iter()
            .filter(|c| !c.decision_changed() && !regressed.contains(&c.id.as_str()))
            .filter(|c| c.delta.abs() > 1e-9)
            .collect();
        others.sort_by(|a, b| a.delta.total_cmp(&b.delta).then_with(|| a.id.cmp(&b.id)));
        let mark = |ok: bool| if ok { "✓" } else { "✗" };
        let mean_line = match (diff.mean_before, diff.mean_after) {
            (Some(a), Some(b)) if suite => format!("{a:.1} → {b:.1} ({:+.1})", b - a),
            (Some(a), Some(b)) => format!("{a:.2} → {b:.2} ({:+.2})", b - a),
            _ => "-".to_owned(),
        };
        // Means are over the matched scenarios only: say so, since `report`'s are over all.
        let mean_line = format!("{mean_line} over the {} matched scenario(s)", diff.matched);
        let judge_lines = diff
            .judges
            .iter()
            .map(|j| {
                let line = match (j.before, j.after) {
                    (Some(a), Some(b)) => format!("{a:.2} → {b:.2} ({:+.2})", b - a),
                    (a, b) => {
                        let show = |v: Option<f64>| {
                            v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"))
                        };
                        format!("{} → {}", show(a), show(b))
                    }
                };
                (j.name.clone(), line)
            })
            .collect();
        let yield_line = if diff.failed_before + diff.failed_after == 0 {
            String::new()
        } else {
            let tried_before = diff.total_before as u64 + diff.failed_before;
            let tried_after = diff.total_after as u64 + diff.failed_after;
            format!(
                "yield over the scenarios tried {}/{tried_before} → {}/{tried_after} \
                 ({} → {} failed)",
                diff.ok_before, diff.ok_after, diff.failed_before, diff.failed_after
            )
        };
        Self {
            before: before.to_owned(),
            after: after.to_owned(),
            kind: if suite {
                super::load::ResultsKind::Suite.name()
            } else {
                super::load::ResultsKind::Pipeline.name()
            }
            .to_owned(),
            ok_word: ok_word.to_owned(),
            matched: diff.matched,
            ok_line: format!(
                "{}/{} → {}/{}",
                diff.ok_before, diff.total_before, diff.ok_after, diff.total_after
            ),
            mean_line,
            judge_lines,
            rules: diff.rules.clone(),
            yield_line,
            min_delta: min_delta.map(|d| d.to_string()).unwrap_or_default(),
            regressions,
            improvements,
            other_changes: others.into_iter().map(|c| row(c, String::new())).collect(),
            flips: diff
                .changes
                .iter()
                .flat_map(|c| {
                    c.flips.iter().map(|f| {
                        (
                            c.id.clone(),
                            f.name.clone(),
                            format!("{} → {}", mark(f.before), mark(f.after)),
                        )
                    })
                })
                .collect(),
            new: diff.new.clone(),
            missing: diff.missing.clone(),
            regressed_total: diff.counts.regressed,
            improved_total: diff.counts.improved,
            other_total: diff.counts.other,
            new_total: diff.counts.new,
            missing_total: diff.counts.missing,
            not_shown: [
                diff.counts.regressed.saturating_sub(ROWS_KEPT),
                diff.counts.improved.saturating_sub(ROWS_KEPT),
                diff.counts.other.saturating_sub(ROWS_KEPT),
                diff.counts.new.saturating_sub(ROWS_KEPT),
                diff.counts.missing.saturating_sub(ROWS_KEPT),
            ]
            .iter()
            .sum(),
        }
    }
}

/// The Markdown of a diff, for a pull-request comment.
///
/// # Errors
/// [`RenderError`] on a template bug.
pub fn diff_markdown(view: &DiffView) -> Result<String, RenderError> {
    render("diff.md.j2", context! { d => Serde(view) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_loads() {
        assert!(ENV.as_ref().is_ok(), "{:?}", ENV.as_ref().err());
    }

    #[test]
    fn markdown_cells_stay_on_one_line() {
        // The `md` filter is scoring's one Markdown escape: pipes escaped, no raw newline.
        let env = ENV.as_ref().expect("templates load");
        let out = env
            .render_str("{{ t | md }}", context! { t => "a | b\n  c" })
            .expect("renders");
        assert_eq!(out, "a \\| b<br>  c");
    }

    /// The worst scenarios' params line used to go out raw (`tense=</td><img …>`).
    #[test]
    fn the_params_line_of_a_worst_scenario_is_escaped() {
        let env = ENV.as_ref().expect("templates load");
        let out = env
            .render_str(
                "{{ p | join(\", \") | md }}",
                context! { p => vec!["tense=</td><img src=x>"] },
            )
            .expect("renders");
        assert_eq!(out, "tense=\\</td\\>\\<img src=x\\>");
        let template = include_str!("templates/pipeline.md.j2");
        assert!(template.contains("{{ w.params | join(\", \") | md }}"));
    }
}
