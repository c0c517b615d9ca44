//! The pre-run estimate: call counts from the documented assumptions, tokens from real renders.

use std::collections::BTreeMap;
use std::sync::Arc;

use agents::{Assumptions, Pipeline, PipelineSettings, estimate, render_estimate};
use runlog::RatioJudgeMode;
use scenarios::Scenario;
use serde_json::json;

fn sample() -> Vec<Scenario> {
    ["sports", "health", "science"]
        .iter()
        .enumerate()
        .map(|(i, topic)| {
            let params = BTreeMap::from([
                ("first_language".to_string(), json!("Arabic")),
                ("second_language".to_string(), json!("English")),
                ("cs_ratio".to_string(), json!("30%")),
                ("topic".to_string(), json!(topic)),
            ]);
            Scenario::new(i as u64, params)
        })
        .collect()
}

#[test]
fn calls_follow_the_refine_assumption_and_cost_the_price() {
    let pipeline = Arc::new(Pipeline::new(PipelineSettings::default()).expect("settings"));
    let e = estimate(
        &sample(),
        1000,
        &pipeline,
        Assumptions::default(),
        |_, u| Some((u.prompt_tokens + u.completion_tokens) as f64 / 1e6),
    );
    // Refinements per scenario = 0.3 + 0.3² with two allowed; calls = 1 + 4·(1 + r) + r.
    let r = 0.3 + 0.09;
    assert!((e.refinements_per_scenario - r).abs() < 1e-12);
    assert_eq!(
        e.calls,
        (1000.0 * (1.0 + 4.0 * (1.0 + r) + r)).round() as u64
    );
    assert!(
        e.prompt_tokens > e.calls * 100,
        "real prompts are hundreds of tokens each"
    );
    let cost = e.cost_usd.expect("priced");
    assert!((cost - (e.prompt_tokens + e.completion_tokens) as f64 / 1e6).abs() < 0.01);
    assert_eq!(e.sampled, 3);
    assert!(render_estimate(&e).starts_with("estimate for 1000 scenarios: "));
}

#[test]
fn measured_ratio_judge_saves_a_call_and_unpriced_models_are_named() {
    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Measured,
        max_refinements: 0,
        ..PipelineSettings::default()
    };
    let pipeline = Arc::new(Pipeline::new(settings).expect("settings"));
    let e = estimate(&sample(), 10, &pipeline, Assumptions::default(), |_, _| {
        None
    });
    assert_eq!(e.calls, 40);
    assert_eq!(e.cost_usd, None);
    assert_eq!(e.unpriced_models, ["gpt-4o-mini"]);
    assert!(render_estimate(&e).contains("no price for gpt-4o-mini"));
    // No refinement: 0, not the empty sum's -0.
    assert!(
        render_estimate(&e).contains("→ 0.00 refinements per scenario"),
        "{}",
        render_estimate(&e)
    );
}

#[test]
fn an_estimate_below_a_cent_is_not_shown_as_zero() {
    let pipeline = Arc::new(Pipeline::new(PipelineSettings::default()).expect("settings"));
    let mut e = estimate(&sample(), 2, &pipeline, Assumptions::default(), |_, _| {
        Some(0.0)
    });
    e.cost_usd = Some(0.002_519);
    assert!(
        render_estimate(&e).contains("cost $0.0025\n"),
        "{}",
        render_estimate(&e)
    );
    e.cost_usd = Some(12.345);
    assert!(
        render_estimate(&e).contains("cost $12.35\n"),
        "{}",
        render_estimate(&e)
    );
}
