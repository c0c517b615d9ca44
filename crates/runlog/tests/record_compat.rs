//! Records written by earlier versions keep loading through the one reader, and a record written
//! now round-trips with its version and settings.

use std::path::PathBuf;

use runlog::record::{RecordReader, RecordSettings, SCHEMA_VERSION, ScenarioRecord};
use runlog::{GateSettings, GateUndecided, Keep, RatioJudgeMode};
use scoring::{Judge, JudgeWeights};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/runs")
        .join(name)
}

#[test]
fn version_1_records_still_load() {
    let records: Vec<ScenarioRecord> = RecordReader::open(&fixture("record-v1.jsonl"))
        .expect("fixture opens")
        .map(|r| r.map(|l| l.record))
        .collect::<Result<_, _>>()
        .expect("every line loads");
    assert_eq!(records.len(), 3);
    let first = &records[0];
    assert_eq!(first.schema_version, 1);
    assert!(first.run_settings.is_none());
    assert_eq!(first.id, "135dd798613952b9");
    assert_eq!(
        first.params.get("topic"),
        Some(&serde_json::json!("technology"))
    );
    assert!(first.params.keys().all(|k| !k.ends_with("_result")));
    assert_eq!(first.scores.len(), Judge::ALL.len());
    for judge in Judge::ALL {
        assert!(first.scores.contains_key(judge.name()), "{judge}");
        assert!(first.judge_result(judge).is_object(), "{judge}");
    }
    assert!(!first.attempts.is_empty());
    assert!(first.calls > 0);
    assert!(first.measured_ratio().is_some());
}

#[test]
fn a_new_record_carries_its_version_and_settings_and_round_trips() {
    let line = std::fs::read_to_string(fixture("record-v1.jsonl")).expect("fixture");
    let mut record: ScenarioRecord =
        serde_json::from_str(line.lines().next().expect("a line")).expect("record");
    let settings = RecordSettings {
        threshold: 7.5,
        weights: JudgeWeights::default(),
        ratio_judge: RatioJudgeMode::Measured,
        max_refinements: 2,
        gate: GateSettings::default(),
        keep: Keep::Last,
    };
    record.schema_version = SCHEMA_VERSION;
    record.run_settings = Some(settings.clone());
    let text = serde_json::to_string(&record).expect("serializes");
    assert!(text.contains("\"schema_version\":2"), "{text}");
    assert!(text.contains("\"ratio_judge\":\"measured\""), "{text}");
    let back: ScenarioRecord = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, record);
    let s = back.run_settings.expect("settings");
    assert!((s.threshold - 7.5).abs() < 1e-12);
    assert_eq!(s.weights, settings.weights);
    assert_eq!(s.max_refinements, settings.max_refinements);
}

#[test]
fn records_of_an_unknown_version_are_refused_not_misread() {
    let dir = tempfile::tempdir().expect("temp dir");
    for version in [0u32, SCHEMA_VERSION + 1] {
        let path = dir.path().join(format!("v{version}.jsonl"));
        std::fs::write(
            &path,
            format!(
                "{{\"schema_version\":{version},\"id\":\"a\",\"score\":8.0,\"accepted\":true}}\n"
            ),
        )
        .expect("write");
        let first = RecordReader::<_, ScenarioRecord>::open(&path)
            .expect("opens")
            .next()
            .expect("one line");
        let err = first.expect_err("an unknown version is an error");
        assert!(
            err.to_string()
                .contains(&format!("schema_version {version}")),
            "{err}"
        );
    }
}

/// `gate.undecided` was added with `judges` as its default, and `auto` became the default
/// later: a record that does not name it (or has no gate at all) was written under `judges`,
/// while a config that does not name it means `auto`.
#[test]
fn records_without_undecided_were_written_under_judges() {
    let settings = |gate: Option<serde_json::Value>| {
        let mut v = serde_json::json!({
            "threshold": 7.0, "weights": JudgeWeights::default(), "ratio_judge": "measured",
            "max_refinements": 1,
        });
        if let Some(gate) = gate {
            v["gate"] = gate;
        }
        serde_json::from_value::<RecordSettings>(v)
            .expect("reads")
            .gate
    };
    let judges = GateSettings {
        undecided: GateUndecided::Judges,
        ..GateSettings::default()
    };
    assert_eq!(settings(None), judges);
    assert_eq!(
        settings(Some(
            serde_json::json!({"enabled": true, "min_switch_points": 1})
        )),
        judges
    );
    assert_eq!(
        settings(Some(
            serde_json::json!({"min_switch_points": 2, "undecided": "auto"})
        )),
        GateSettings {
            min_switch_points: 2,
            ..GateSettings::default()
        }
    );
    assert!(
        serde_json::from_value::<RecordSettings>(serde_json::json!({
            "threshold": 7.0, "weights": JudgeWeights::default(), "ratio_judge": "measured",
            "max_refinements": 1, "gate": {"undecided": "sometimes"}}))
        .is_err()
    );
    // A config's gate without `undecided` is `auto`.
    let config: GateSettings =
        serde_json::from_value(serde_json::json!({"enabled": true})).expect("reads");
    assert_eq!(config.undecided, GateUndecided::Auto);
    assert_eq!(GateSettings::default().undecided, GateUndecided::Auto);
}
