//! The JSON Schema of config files (`scenario-engine schema config`): the scenario part from
//! the `scenarios` crate's file structs, the `run:` section generated from [`RunSettings`].
//! Both are generated from the types the loaders deserialise, so a key the loader rejects as
//! unknown is rejected by the schema too (`additionalProperties: false`).

use serde_json::Value;

use crate::settings::RunSettings;

/// The config schema (JSON Schema draft 2020-12), for editors (`# yaml-language-server:
/// $schema=…`) and validators.
#[must_use]
pub fn config_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut run = generator.into_root_schema_for::<RunSettings>().to_value();
    // What `RunSettings::validate` checks beyond types: the accept threshold's range, the
    // judges `weights` may name (the built-in ones: a declared judge's weight is its own
    // `weight`), and the names a declared judge may have.
    let name = serde_json::json!({"pattern": "^[a-z][a-z0-9_]{0,63}$"});
    if let Some(props) = run.get_mut("properties").and_then(Value::as_object_mut) {
        if let Some(threshold) = props.get_mut("threshold").and_then(Value::as_object_mut) {
            threshold.insert("minimum".into(), 0.into());
            threshold.insert("maximum".into(), 10.into());
        }
        if let Some(weights) = props.get_mut("weights").and_then(Value::as_object_mut) {
            let judges: Vec<Value> = scoring::JudgeWeights::default()
                .0
                .into_keys()
                .map(Value::from)
                .collect();
            weights.insert("propertyNames".into(), serde_json::json!({"enum": judges}));
        }
        if let Some(judges) = props.get_mut("judges").and_then(Value::as_object_mut) {
            let roles: Vec<Value> = runlog::AgentKind::ALL
                .iter()
                .map(|a| Value::from(a.name()))
                .collect();
            let mut names = name;
            names["not"] = serde_json::json!({"enum": roles});
            judges.insert("propertyNames".into(), names);
        }
    }
    // A declared judge needs its score field and one prompt, given once.
    if let Some(spec) = run
        .pointer_mut("/$defs/JudgeSpec")
        .and_then(Value::as_object_mut)
    {
        spec.insert("required".into(), serde_json::json!(["score_field"]));
        spec.insert(
            "oneOf".into(),
            serde_json::json!([{"required": ["prompt"]}, {"required": ["prompt_file"]}]),
        );
        if let Some(score) = spec
            .get_mut("properties")
            .and_then(|p| p.get_mut("score_field"))
        {
            *score = serde_json::json!({
                "description": score.get("description").cloned().unwrap_or_default(),
                "type": "string",
                "minLength": 1,
            });
        }
    }
    scenarios::config_schema(&run)
}
