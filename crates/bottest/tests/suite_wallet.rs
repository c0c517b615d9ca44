//! The example suite, run with its scripted replies: every scenario must reach the outcome its
//! script declares (good behaviour passes, bad behaviour is caught).

use std::path::{Path, PathBuf};

use bottest::bot::scripted_bot;
use bottest::suite::{RunOptions, load_suite, run_suite};
use scoring::Expected;

fn suite_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/suites/wallet-assistant.yaml")
}

#[tokio::test]
async fn every_scripted_scenario_reaches_its_declared_outcome() {
    let suite = load_suite(&suite_path()).expect("the example suite loads");
    assert!(
        suite.scenarios.len() >= 25,
        "only {} scenarios",
        suite.scenarios.len()
    );
    let result = run_suite(&suite, &scripted_bot, &RunOptions::default()).await;
    assert_eq!(result.scenarios.len(), suite.scenarios.len());
    let mut wrong = Vec::new();
    for s in &result.scenarios {
        let expected = s
            .expected_outcome
            .expect("every example scenario declares its outcome");
        let passed = s.passed();
        if passed != (expected == Expected::Pass) {
            let report = &s.runs[0].report;
            let details: Vec<String> = report
                .card
                .checks()
                .iter()
                .map(|c| {
                    format!(
                        "    {} {}: {}",
                        if c.passed { "✓" } else { "✗" },
                        c.name,
                        c.message
                    )
                })
                .collect();
            wrong.push(format!(
                "{} expected {expected:?}, score {}\n{}",
                s.id,
                report.card.score(),
                details.join("\n")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "scenarios with the wrong outcome:\n{}",
        wrong.join("\n")
    );
    let fails = result.scenarios.iter().filter(|s| !s.passed()).count();
    assert!(
        fails >= 8,
        "the suite should include bad behaviour, got {fails} failing scenarios"
    );
}

#[test]
fn categories_cover_the_required_kinds() {
    let suite = load_suite(&suite_path()).expect("the example suite loads");
    let cats: std::collections::BTreeSet<&str> = suite
        .scenarios
        .iter()
        .map(|s| s.category.as_str())
        .collect();
    for required in [
        "happy-path",
        "ambiguity",
        "adversarial",
        "jailbreak",
        "edge-case",
        "knowledge",
        "multi-step",
    ] {
        assert!(cats.contains(required), "no {required} scenario");
    }
    let grid: Vec<&str> = suite
        .scenarios
        .iter()
        .filter(|s| s.tags.iter().any(|t| t == "grid"))
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        grid.len(),
        3,
        "the template expands to one scenario per grid value"
    );
    assert!(grid.contains(&"Send 75 USD to Alice"));
}
