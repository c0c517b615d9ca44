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
    // What `RunSettings::validate` checks beyond types: the accept threshold's range and the
    // judges a weight may name (those of the default weights, the same list).
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
    }
    scenarios::config_schema(&run)
}
