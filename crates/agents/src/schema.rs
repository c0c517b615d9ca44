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
    let run = generator.into_root_schema_for::<RunSettings>().to_value();
    scenarios::config_schema(&run)
}
