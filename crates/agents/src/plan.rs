//! What a config expands to, before anything is spent: a [`PlanReport`] (plain data: axes,
//! counts, fixed fields, first scenarios, plus any extra [`PlanSection`]s such as the pipeline's
//! cost estimate and the Batch API plan, [`cost_sections`]) rendered as text ([`render_text`]) or
//! serialised to JSON by the caller. Sections are pushed onto the report before rendering, so the
//! text layout stays in one place.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use comfy_table::{ContentArrangement, Table, presets};
use llm_client::PriceTable;
use scenarios::{ConfigKind, Format, Scenario, ScenarioConfig};
use serde::Serialize;
use serde_json::Value;

use crate::{Assumptions, Estimate, Pipeline, estimate, plan_batch, render_estimate};

/// How many scenarios a plan shows.
const FIRST_SCENARIOS: usize = 5;
/// How many values per axis the axes table previews.
const VALUE_PREVIEW: usize = 6;

/// A config's plan as data; render with [`render_text`] or serialise to JSON.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// The config file as given.
    pub config: String,
    /// `native` or `switchlingua`.
    pub kind: &'static str,
    /// `yaml`, `toml` or `json`.
    pub format: &'static str,
    /// The config's `name:`.
    pub name: Option<String>,
    /// The config's `description:`.
    pub description: Option<String>,
    /// Said before anything else when scenarios ask for grounding (`use_tools: true`) that
    /// this run cannot give ([`crate::grounding::notice`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grounding: Option<String>,
    /// The axes in mixed-radix order.
    pub axes: Vec<PlanAxis>,
    /// Fixed fields, in every scenario.
    pub fixed: BTreeMap<String, Value>,
    /// Product of the axis sizes.
    pub total: u64,
    /// Scenarios removed by exclude rules.
    pub excluded: u64,
    /// Number of exclude rules.
    pub exclude_rules: usize,
    /// Scenarios after exclusions.
    pub count: u64,
    /// The selection in effect (file values with flags applied).
    pub selection: PlanSelection,
    /// Scenarios this selection yields.
    pub selected: u64,
    /// The first few selected scenarios.
    pub first: Vec<Scenario>,
    /// Extra sections appended by other commands (e.g. the pipeline's cost estimate).
    pub sections: Vec<PlanSection>,
}

/// One axis line of a plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanAxis {
    /// Axis name.
    pub name: String,
    /// Number of values.
    pub size: usize,
    /// Whether object values merge their keys into the parameters.
    pub merge: bool,
    /// All values, as written.
    pub values: Vec<Value>,
}

/// The selection part of a plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanSelection {
    /// `k/n`, when sharded.
    pub shard: Option<String>,
    /// Sample size, when sampling.
    pub sample: Option<u64>,
    /// The sample seed.
    pub seed: u64,
    /// The per-process limit.
    pub limit: Option<u64>,
}

/// A titled block appended to a plan: text for humans, data for `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct PlanSection {
    /// Heading, e.g. "Cost estimate".
    pub title: String,
    /// Pre-rendered lines (no trailing newline needed).
    pub text: String,
    /// The same content as data.
    pub data: Value,
}

impl PlanReport {
    /// Appends a section, shown after the built-in ones (the cost estimate, the batch plan).
    pub fn push_section(&mut self, section: PlanSection) {
        self.sections.push(section);
    }
}

/// Builds the plan of `cfg` under its selection (set `cfg.selection` to apply flags first).
#[must_use]
pub fn plan_report(cfg: &ScenarioConfig) -> PlanReport {
    let space = &cfg.space;
    let selection = &cfg.selection;
    PlanReport {
        config: cfg.source.display().to_string(),
        kind: match cfg.kind {
            ConfigKind::Native => "native",
            ConfigKind::SwitchLingua => "switchlingua",
        },
        format: match cfg.format {
            Format::Yaml => "yaml",
            Format::Toml => "toml",
            Format::Json => "json",
        },
        name: cfg.name.clone(),
        description: cfg.description.clone(),
        // Without the run settings, as if no tool server were configured; the caller that has
        // them sets `grounding` again (`crate::grounding::notice` with `run.tools`).
        grounding: crate::grounding::notice(space, None),
        axes: space
            .axes()
            .iter()
            .map(|a| PlanAxis {
                name: a.name.clone(),
                size: a.values.len(),
                merge: a.merge,
                values: a.values.clone(),
            })
            .collect(),
        fixed: space.fixed().clone(),
        total: space.len_unfiltered(),
        excluded: space.excluded(),
        exclude_rules: space.excludes().len(),
        count: space.count(),
        selection: PlanSelection {
            shard: selection.shard.map(|s| s.to_string()),
            sample: selection.sample,
            seed: selection.seed,
            limit: selection.limit,
        },
        selected: space.selected_count(selection),
        first: space.select(selection).take(FIRST_SCENARIOS).collect(),
        sections: Vec::new(),
    }
}

/// A value as a human reads it: strings bare, everything else as compact JSON.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", show(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// Renders a plan as text: header, axes table, fixed fields, counts, first scenarios, then the
/// extra sections in the order they were pushed.
#[must_use]
pub fn render_text(report: &PlanReport) -> String {
    let mut out = String::new();
    if let Some(notice) = &report.grounding {
        let _ = writeln!(out, "{notice}");
    }
    let title = report
        .name
        .as_deref()
        .map_or_else(String::new, |n| format!(" — {n}"));
    let _ = writeln!(
        out,
        "Plan for {} ({}, {}){title}",
        report.config, report.kind, report.format
    );
    if let Some(description) = &report.description {
        let _ = writeln!(out, "{description}");
    }

    let _ = writeln!(out, "\nAxes");
    if report.axes.is_empty() {
        let _ = writeln!(out, "  (none: one scenario made of the fixed fields)");
    } else {
        let mut table = Table::new();
        table
            .load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled);
        table.set_header(["axis", "size", "values"]);
        for axis in &report.axes {
            let mut values: Vec<String> =
                axis.values.iter().take(VALUE_PREVIEW).map(show).collect();
            if axis.values.len() > VALUE_PREVIEW {
                values.push(format!("… ({} more)", axis.values.len() - VALUE_PREVIEW));
            }
            let name = if axis.merge {
                format!("{} (merge)", axis.name)
            } else {
                axis.name.clone()
            };
            table.add_row([name, axis.size.to_string(), values.join(" | ")]);
        }
        let _ = writeln!(out, "{table}");
    }

    if !report.fixed.is_empty() {
        let _ = writeln!(out, "\nFixed");
        for (key, value) in &report.fixed {
            let _ = writeln!(out, "  {key} = {}", show(value));
        }
    }

    let _ = writeln!(out, "\nScenarios");
    let sizes: Vec<String> = report.axes.iter().map(|a| a.size.to_string()).collect();
    let product = if sizes.len() > 1 {
        format!("  ({})", sizes.join(" × "))
    } else {
        String::new()
    };
    let _ = writeln!(out, "  total             {:>9}{product}", report.total);
    let rules = if report.exclude_rules == 1 {
        "rule"
    } else {
        "rules"
    };
    let _ = writeln!(
        out,
        "  excluded          {:>9}  ({} exclude {rules})",
        report.excluded, report.exclude_rules
    );
    let _ = writeln!(out, "  after exclusions  {:>9}", report.count);
    let _ = writeln!(
        out,
        "  selected          {:>9}  ({})",
        report.selected,
        describe_selection(&report.selection)
    );

    let _ = writeln!(out, "\nFirst {} scenarios", report.first.len());
    for scenario in &report.first {
        // Fixed fields are listed once above; show what varies.
        let parts: Vec<String> = scenario
            .params
            .iter()
            .filter(|(k, _)| !report.fixed.contains_key(*k))
            .map(|(k, v)| format!("{k}={}", show(v)))
            .collect();
        let _ = writeln!(
            out,
            "  {} #{:<6} {}",
            scenario.id,
            scenario.index,
            parts.join(" ")
        );
    }

    for section in &report.sections {
        let _ = writeln!(out, "\n{}", section.title);
        let _ = writeln!(out, "{}", section.text.trim_end());
    }
    out
}

fn describe_selection(sel: &PlanSelection) -> String {
    let mut parts = Vec::new();
    match sel.sample {
        Some(n) => parts.push(format!("sample {n}, seed {}", sel.seed)),
        None => parts.push("all".to_string()),
    }
    if let Some(shard) = &sel.shard {
        parts.push(format!("shard {shard}"));
    }
    if let Some(limit) = sel.limit {
        parts.push(format!("limit {limit}"));
    }
    parts.join(", ")
}

/// The pipeline's cost estimate for the selection of `config` (and, with `batch`, the Batch API
/// plan: waves and the batch price) under `pipeline`'s settings and `prices`.
///
/// # Errors
/// A section's data cannot be serialised (a bug).
pub fn cost_sections(
    config: &ScenarioConfig,
    pipeline: &Arc<Pipeline>,
    prices: &PriceTable,
    batch: bool,
) -> Result<Vec<PlanSection>, serde_json::Error> {
    let est = estimate_selection(config, pipeline, prices);
    let mut sections = vec![PlanSection {
        title: "Estimate (online)".to_owned(),
        text: indent(&render_estimate(&est)),
        data: serde_json::to_value(&est)?,
    }];
    if batch {
        let factor = llm_client::BatchConfig::default().price_factor;
        let plan = plan_batch(&est, pipeline.settings().max_refinements, factor);
        sections.push(PlanSection {
            title: "Batch API".to_owned(),
            text: plan.render(),
            data: serde_json::to_value(&plan)?,
        });
    }
    Ok(sections)
}

/// The gate's section of a plan, when the gate cannot decide some language pairs of the
/// selection ([`crate::gate::GateCoverage`]); `None` when it can decide them all or is off.
///
/// # Errors
/// The section's data cannot be serialised (a bug).
pub fn gate_section(
    config: &ScenarioConfig,
    settings: runlog::GateSettings,
) -> Result<Option<PlanSection>, serde_json::Error> {
    let coverage = crate::gate::GateCoverage::of_selection(&config.space, &config.selection);
    let Some(warning) = coverage.warning(settings) else {
        return Ok(None);
    };
    Ok(Some(PlanSection {
        title: "Gate".to_owned(),
        text: indent(&warning),
        data: serde_json::to_value(&coverage)?,
    }))
}

/// The online cost estimate of `config`'s selection under `pipeline` and `prices`, from the
/// first scenarios of the selection ([`Assumptions::default`]).
#[must_use]
pub fn estimate_selection(
    config: &ScenarioConfig,
    pipeline: &Arc<Pipeline>,
    prices: &PriceTable,
) -> Estimate {
    let total = config.space.selected_count(&config.selection);
    let assumptions = Assumptions::default();
    let sample: Vec<_> = config
        .space
        .select(&config.selection)
        .take(assumptions.sampled_scenarios)
        .collect();
    estimate(&sample, total, pipeline, assumptions, |m, u| {
        prices.cost(m, u)
    })
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use scenarios::{Selection, Shard, parse_config};

    use super::*;

    const EXAMPLE: &str = include_str!("../../../fixtures/configs/example.yaml");

    fn example() -> ScenarioConfig {
        parse_config(Path::new("fixtures/configs/example.yaml"), EXAMPLE)
            .expect("example config loads")
    }

    #[test]
    fn plan_text_of_the_example_config() {
        insta::assert_snapshot!(render_text(&plan_report(&example())));
    }

    #[test]
    fn plan_json_of_a_sharded_sample() {
        let mut config = example();
        config.selection = Selection {
            sample: Some(10),
            seed: 3,
            limit: None,
            shard: Some(Shard::new(2, 3).unwrap()),
        };
        let mut report = plan_report(&config);
        report.push_section(PlanSection {
            title: "Extra".to_string(),
            text: "  appended by a colleague".to_string(),
            data: serde_json::json!({"calls": 5}),
        });
        assert_eq!(report.selected, 3);
        assert_eq!(report.first.len(), 3);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["selection"]["shard"], "2/3");
        assert_eq!(json["sections"][0]["data"]["calls"], 5);
        assert!(render_text(&report).ends_with("Extra\n  appended by a colleague\n"));
    }
}
