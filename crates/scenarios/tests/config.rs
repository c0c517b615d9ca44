//! Loading configs: the shipped fixtures, and every bad-config case with its message and location.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use scenarios::{ConfigError, ConfigKind, Selection, load_config, parse_config};
use serde_json::json;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/configs")
        .join(name)
}

fn yaml_err(text: &str) -> ConfigError {
    parse_config(Path::new("bad.yaml"), text).expect_err("config should be rejected")
}

fn toml_err(text: &str) -> ConfigError {
    parse_config(Path::new("bad.toml"), text).expect_err("config should be rejected")
}

fn at(err: &ConfigError) -> (usize, usize) {
    (err.line, err.column)
}

#[test]
fn switchlingua_config_loads_unchanged_and_expands_to_233280() {
    let config = load_config(&fixture("switchlingua.yaml")).expect("loads");
    assert_eq!(config.kind, ConfigKind::SwitchLingua);
    assert_eq!(config.space.len_unfiltered(), 233_280);
    assert_eq!(config.space.count(), 233_280);
    let axes: Vec<(&str, usize)> = config
        .space
        .axes()
        .iter()
        .map(|a| (a.name.as_str(), a.values.len()))
        .collect();
    assert_eq!(
        axes,
        [
            ("topic", 9),
            ("tense", 3),
            ("perspective", 2),
            ("gender", 2),
            ("age", 5),
            ("education_level", 4),
            ("cs_ratio", 3),
            ("conversation_type", 2),
            ("cs_function", 6),
            ("cs_type", 3)
        ]
    );
    let first = config.space.get(0).expect("first scenario");
    let keys: Vec<&str> = first.params.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "age",
            "conversation_type",
            "cs_function",
            "cs_ratio",
            "cs_type",
            "education_level",
            "first_language",
            "gender",
            "perspective",
            "second_language",
            "tense",
            "topic",
            "use_tools"
        ]
    );
    assert_eq!(first.params["first_language"], json!("Arabic"));
    assert_eq!(first.params["second_language"], json!("English"));
    assert_eq!(first.params["use_tools"], json!(true));
    assert_eq!(first.params["age"], json!("8-17"));
    let last = config.space.get(233_279).expect("last scenario");
    assert_eq!(last.params["topic"], json!("world"));
    assert_eq!(
        last.params["cs_type"],
        json!("Extra-sentential / Tag switching")
    );
    assert_eq!(config.metadata["output_format"], json!("json"));
    assert_eq!(
        config.metadata["on_execute"],
        json!({"round": 1, "verbose": true})
    );
}

#[test]
fn example_yaml_and_toml_are_the_same_space() {
    let yaml = load_config(&fixture("example.yaml")).expect("yaml loads");
    let toml = load_config(&fixture("example.toml")).expect("toml loads");
    assert_eq!(yaml.space.len_unfiltered(), 288);
    assert_eq!(yaml.space.count(), 240);
    assert_eq!(toml.space.count(), yaml.space.count());
    let ids = |c: &scenarios::ScenarioConfig| c.space.iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(&yaml), ids(&toml));
    assert_eq!(yaml.selection, toml.selection);
    assert_eq!(yaml.run, toml.run);
    let run = yaml.run.expect("run section");
    assert_eq!(run["threshold"], json!(8));
    assert_eq!(run["max_refinements"], json!(2));
    assert_eq!(run["weights"]["fluency"], json!(0.30));
    assert_eq!(yaml.name.as_deref(), Some("codeswitch-demo"));
}

#[test]
fn reordering_axes_and_values_changes_no_id() {
    let a = "axes:\n  topic: [health, sports]\n  tense: [Past, Future]\nfixed: {x: 1}\n";
    let b = "fixed: {x: 1}\naxes:\n  tense: [Future, Past]\n  topic: [sports, health]\n";
    let ids = |text: &str| -> BTreeSet<String> {
        parse_config(Path::new("c.yaml"), text)
            .expect("loads")
            .space
            .iter()
            .map(|s| s.id)
            .collect()
    };
    assert_eq!(ids(a).len(), 4);
    assert_eq!(ids(a), ids(b));
}

#[test]
fn sample_seed_and_limit_come_from_the_file() {
    let config = parse_config(
        Path::new("c.yaml"),
        "axes:\n  a: [1, 2, 3]\nsample: 2\nseed: 9\nlimit: 1\n",
    )
    .unwrap();
    assert_eq!(
        config.selection,
        Selection {
            shard: None,
            sample: Some(2),
            seed: 9,
            limit: Some(1)
        }
    );
    assert_eq!(config.space.select(&config.selection).count(), 1);
}

#[test]
fn unknown_top_level_key_suggests_the_right_one() {
    let err = yaml_err("axes:\n  a: [1]\nexlude: []\n");
    assert_eq!(err.message, "unknown key `exlude`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `exclude`?"));
    assert_eq!(at(&err), (3, 1));
}

#[test]
fn unknown_key_inside_an_axis_and_a_language_pair() {
    let err = yaml_err("axes:\n  persona:\n    merge: true\n    valeus: [{a: 1}]\n");
    assert_eq!(err.message, "unknown key `valeus`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `values`?"));
    assert_eq!(err.line, 4);

    let err = yaml_err("language_pairs:\n  - {first_language: Arabic, second_langauge: English}\n");
    assert_eq!(err.message, "unknown key `second_langauge`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `second_language`?"));
    assert_eq!(err.line, 2);
}

#[test]
fn unknown_key_in_switchlingua() {
    let text = std::fs::read_to_string(fixture("switchlingua.yaml"))
        .unwrap()
        .replace("  tense:", "  tenses:");
    let err = yaml_err(&text);
    assert_eq!(err.message, "unknown key `tenses`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `tense`?"));
    assert_eq!(at(&err), (6, 3));
}

/// The parsers' messages reach users in their words: no Rust type names, no parser options
/// (issue 29 review).
#[test]
fn parser_messages_are_in_users_words() {
    let err = yaml_err("axes:\n  a: [1]\nseed: 1\nseed: 2\n");
    assert_eq!(err.message, "duplicate key `seed`");
    assert_eq!(err.hint.as_deref(), Some("write each key once"));
    let err = yaml_err("axes:\n  a: [1]\nseed: 99999999999999999999\n");
    assert!(
        err.message.contains("a whole number from 0 to"),
        "{}",
        err.message
    );
    let err = toml_err("seed = \"7\"\n[axes]\na = [1]\n");
    assert!(
        err.message
            .ends_with("expected a whole number from 0 to 18446744073709551615"),
        "{}",
        err.message
    );
    let err = yaml_err("axes:\n  a: [1]\nseed: \"7\"\n");
    assert_eq!(at(&err).0, 3, "{err}");
    assert!(
        err.message.starts_with("`seed`: invalid type: string"),
        "{}",
        err.message
    );
    assert!(
        err.hint
            .as_deref()
            .is_some_and(|h| h.contains("without quotes")),
        "{err}"
    );
    let err = yaml_err(
        "name: ~\naxes:\n  a: [1]\nlanguage_pairs: [{first_language: ~, second_language: b}]\n",
    );
    assert!(!err.message.contains("Option<"), "{}", err.message);
}

#[test]
fn wrong_types_are_located() {
    let err = yaml_err("axes:\n  a: [1]\nsample: lots\n");
    assert_eq!(
        err.message,
        "`sample`: invalid value: expected a whole number from 0 to 18446744073709551615"
    );
    assert_eq!(at(&err), (3, 9));

    let err = yaml_err("axes:\n  tense: Past\n");
    assert!(
        err.message
            .contains("a list of values, or a mapping with `values`"),
        "{}",
        err.message
    );
    assert_eq!(err.line, 2);

    let err = yaml_err("axes:\n  p:\n    merge: maybe\n    values: [{a: 1}]\n");
    assert!(err.message.contains("invalid"), "{}", err.message);
    assert_eq!(err.line, 3);
}

#[test]
fn empty_axis_is_located() {
    let err = yaml_err("axes:\n  topic: [a]\n  tense: []\n");
    assert_eq!(err.message, "axis `tense` has no values");
    assert_eq!(at(&err), (3, 3));
    assert!(err.hint.is_some());

    let err = toml_err("[axes]\ntopic = [\"a\"]\n\n[axes.tense]\nvalues = []\n");
    assert_eq!(err.message, "axis `tense` has no values");
    assert_eq!(err.line, 4);
}

#[test]
fn duplicate_value_is_located_at_the_repeat() {
    let err = yaml_err("axes:\n  topic:\n    - health\n    - sports\n    - health\n");
    assert_eq!(
        err.message,
        "duplicate value \"health\" in axis `topic` (first at position 0)"
    );
    assert_eq!(at(&err), (5, 7));

    let err = yaml_err(
        "language_pairs:\n  - {first_language: A, second_language: B}\n  - {first_language: A, second_language: B}\n",
    );
    assert!(
        err.message.starts_with("duplicate value"),
        "{}",
        err.message
    );
    assert_eq!(err.line, 3);

    let text = std::fs::read_to_string(fixture("switchlingua.yaml"))
        .unwrap()
        .replace("[Past, Present, Future]", "[Past, Present, Past]");
    let err = yaml_err(&text);
    assert_eq!(
        err.message,
        "duplicate value \"Past\" in axis `tense` (first at position 0)"
    );
    assert_eq!(at(&err), (6, 26));
}

#[test]
fn bad_sample_and_limit_are_located() {
    let err = yaml_err("axes:\n  a: [1]\nsample: 0\n");
    assert_eq!(err.message, "sample must be at least 1");
    assert_eq!(at(&err), (3, 1));
    let err = toml_err("limit = 0\n[axes]\na = [1]\n");
    assert_eq!(err.message, "limit must be at least 1");
    assert_eq!(at(&err), (1, 1));
    let err = yaml_err("axes:\n  a: [1]\nsample: -3\n");
    assert!(err.message.contains("invalid"), "{}", err.message);
    assert_eq!(err.line, 3);
}

#[test]
fn exclude_of_unknown_axis_is_located_with_suggestion() {
    let err =
        yaml_err("axes:\n  topic: [a, b]\n  tense: [x]\nexclude:\n  - {tense: x}\n  - {topc: a}\n");
    assert_eq!(err.message, "exclude rule 1 names unknown axis `topc`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `topic`?"));
    assert_eq!(at(&err), (6, 6));
}

#[test]
fn exclude_of_a_fixed_field_explains_why() {
    let err = yaml_err("axes:\n  topic: [a]\nfixed: {mode: x}\nexclude:\n  - {mode: x}\n");
    assert_eq!(err.message, "exclude rule 0 names unknown axis `mode`");
    assert_eq!(
        err.hint.as_deref(),
        Some("fixed fields have one value; exclude on an axis instead")
    );
}

#[test]
fn exclude_of_unknown_value_is_located_with_suggestion() {
    let err = yaml_err("axes:\n  topic: [health, sports]\nexclude:\n  - topic: [sports, helth]\n");
    assert_eq!(
        err.message,
        "exclude rule 0: `topic` has no value \"helth\""
    );
    assert_eq!(err.hint.as_deref(), Some("did you mean `health`?"));
    assert_eq!(at(&err), (4, 21));

    let err = toml_err("[axes]\ntopic = [\"health\"]\n\n[[exclude]]\ntopic = \"halth\"\n");
    assert_eq!(
        err.message,
        "exclude rule 0: `topic` has no value \"halth\""
    );
    assert_eq!(at(&err), (5, 1));

    // A key of a merge axis is checked against the objects' values.
    let err = yaml_err(
        "language_pairs:\n  - {first_language: Arabic, second_language: English}\nexclude:\n  - {first_language: Arabik}\n",
    );
    assert_eq!(err.hint.as_deref(), Some("did you mean `Arabic`?"));
    assert_eq!(err.line, 4);
}

#[test]
fn yaml_syntax_error_is_located() {
    let err = yaml_err("axes:\n  topic: [a, b\n  tense: [x]\n");
    assert!(err.line >= 2, "{err}");
    assert!(err.column > 0, "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("bad.yaml:{}:{}: error: ", err.line, err.column))
    );
}

#[test]
fn toml_errors_are_located() {
    let err = toml_err("name = \"x\"\n[axes\ntopic = [1]\n");
    assert_eq!(err.line, 2, "{err}");
    let err = toml_err("[axes]\ntopic = [1]\n[fixd]\nx = 1\n");
    assert_eq!(err.message, "unknown key `fixd`");
    assert_eq!(err.hint.as_deref(), Some("did you mean `fixed`?"));
    assert_eq!(err.line, 3);
}

#[test]
fn name_collisions_are_rejected() {
    let err = yaml_err("axes:\n  topic: [a]\nfixed:\n  topic: b\n");
    assert_eq!(
        err.message,
        "parameter `topic` is set by both fixed field `topic` and axis `topic`"
    );
    assert_eq!(at(&err), (4, 3));
    let err = yaml_err(
        "language_pairs:\n  - {first_language: A, second_language: B}\naxes:\n  language_pair: [x]\n",
    );
    assert_eq!(err.message, "axis `language_pair` is defined twice");
    assert_eq!(err.line, 4);
}

#[test]
fn json_configs_load_too() {
    let config = parse_config(
        Path::new("c.json"),
        r#"{"axes": {"a": [1, 2]}, "exclude": [{"a": 2}]}"#,
    )
    .unwrap();
    assert_eq!(config.space.count(), 1);
    let err = parse_config(
        Path::new("c.json"),
        "{\"axes\": {\"a\": [1, 2]},\n \"exclude\": [{\"b\": 2}]}",
    )
    .unwrap_err();
    assert_eq!(err.message, "exclude rule 0 names unknown axis `b`");
    assert_eq!(err.line, 2);
}

#[test]
fn empty_and_comment_only_configs_are_located_errors_not_one_empty_scenario() {
    for text in ["", "# only a comment\n", "---\n", "{}\n"] {
        let err = yaml_err(text);
        assert_eq!(err.message, "the config is empty", "{text:?}");
        assert_eq!(at(&err), (1, 1));
        assert!(err.hint.is_some());
    }
    for text in ["", "# only a comment\n"] {
        assert_eq!(toml_err(text).message, "the config is empty", "{text:?}");
    }
}

#[test]
fn samples_per_scenario_adds_a_sample_axis_and_keeps_ids_of_one_sample() {
    let base = "axes:\n  topic: [food, travel]\n";
    let one = parse_config(Path::new("c.yaml"), base).expect("loads");
    let with_one = parse_config(
        Path::new("c.yaml"),
        &format!("{base}samples_per_scenario: 1\n"),
    )
    .expect("loads");
    let ids = |c: &scenarios::ScenarioConfig| -> Vec<String> {
        c.space
            .select(&Selection::default())
            .map(|s| s.id)
            .collect()
    };
    assert_eq!(ids(&one), ids(&with_one), "N = 1 keeps the ids");
    let three = parse_config(
        Path::new("c.yaml"),
        &format!("{base}samples_per_scenario: 3\n"),
    )
    .expect("loads");
    assert_eq!(three.space.count(), 6);
    let scenarios: Vec<_> = three.space.select(&Selection::default()).collect();
    let samples: Vec<u64> = scenarios
        .iter()
        .map(|s| s.params["sample"].as_u64().expect("sample"))
        .collect();
    assert_eq!(samples, [0, 1, 2, 0, 1, 2]);
    let distinct: std::collections::BTreeSet<&String> = scenarios.iter().map(|s| &s.id).collect();
    assert_eq!(distinct.len(), 6);
    // The SwitchLingua format's `on_execute.round` means the same.
    let text = std::fs::read_to_string(fixture("switchlingua.yaml"))
        .expect("fixture")
        .replace("round: 1", "round: 2");
    let c = parse_config(Path::new("s.yaml"), &text).expect("loads");
    assert_eq!(c.space.count(), 2 * 233_280);
}

#[test]
fn bad_sample_counts_and_a_clashing_axis_are_located() {
    let err = yaml_err("axes:\n  topic: [a]\nsamples_per_scenario: 0\n");
    assert_eq!(at(&err), (3, 1), "{err}");
    assert!(err.to_string().contains("1 to 1000"), "{err}");
    let err = yaml_err("axes:\n  topic: [a]\nsamples_per_scenario: -2\n");
    assert_eq!(at(&err).0, 3, "{err}");
    let err = yaml_err("axes:\n  sample: [a, b]\nsamples_per_scenario: 2\n");
    assert!(err.to_string().contains("sample"), "{err}");
    let text = std::fs::read_to_string(fixture("switchlingua.yaml"))
        .expect("fixture")
        .replace("round: 1", "round: many");
    let err = parse_config(Path::new("s.yaml"), &text).expect_err("rejected");
    assert!(err.to_string().contains("round"), "{err}");
}
