//! The JSON Schema (draft 2020-12) of suite files (`scenario-engine schema suite`). The `bot:`
//! section is generated from the adapters' settings structs (`schemars`, the same structs the
//! loader deserialises, `deny_unknown_fields` included); the scenario entries, steps and
//! `defaults` are written here by hand because the loader reads them with hand-written
//! `Deserialize` impls, and their key lists are the loader's own ([`super::load`]'s, held to its
//! readers by a test). Check names and check arguments come from `scoring`'s expectation
//! schema. Where the loader accepts `null` for a key (an `Option`), so does the schema.

use serde_json::{Map, Value, json};

use scoring::expect::closed_mapping_schema;

use super::Category;
use super::load::{ENTRY_KEYS, STEP_KEYS, SUITE_KEYS, TEMPLATE_KEYS};
use crate::bot::{BotSpec, Script};

/// The suite schema, for editors (`# yaml-language-server: $schema=…`) and validators.
#[must_use]
pub fn suite_schema() -> Value {
    let check_names: Vec<Value> = scoring::CheckKind::ALL
        .iter()
        .map(|k| serde_json::to_value(k).unwrap_or(Value::Null))
        .collect();
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let bot = generator.subschema_for::<BotSpec>().to_value();
    let script = generator.subschema_for::<Script>().to_value();
    let mut defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    defs.insert(
        "Expect".into(),
        scoring::expect::expect_json_schema("Expect"),
    );
    defs.insert(
        "Step".into(),
        json!({
            "description": "A user message, or {say, expect}.",
            "anyOf": [
                {"type": "string"},
                closed_mapping_schema(&STEP_KEYS, &[
                    ("say", json!({"type": "string"})),
                    ("expect", json!({"$ref": "#/$defs/Expect"})),
                ], &["say"])
            ]
        }),
    );
    let (scenario, template) = scenario_schema(&script);
    defs.insert("Scenario".into(), scenario);
    defs.insert("Template".into(), template);
    add_template_defs(&mut defs);
    defs.insert(
        "Defaults".into(),
        json!({
            "type": "object",
            "properties": {
                "threshold": {"type": "integer", "minimum": 0, "maximum": 100},
                "strict": {"type": "boolean"},
                "critical": {"type": "array", "items": {"enum": check_names}},
                "weights": {
                    "type": "object",
                    "propertyNames": {"enum": check_names},
                    "additionalProperties": {"type": "integer", "minimum": 0}
                },
                "turn_timeout_ms": {"type": "integer", "minimum": 0},
                "embedding_model": {"type": ["string", "null"]}
            },
            "additionalProperties": false
        }),
    );
    let mut root = closed_mapping_schema(
        &SUITE_KEYS,
        &[
            ("name", json!({"type": ["string", "null"]})),
            ("description", json!({"type": "string"})),
            ("bot", bot),
            ("defaults", json!({"$ref": "#/$defs/Defaults"})),
            (
                "scenarios",
                json!({"type": "array", "items": {"$ref": "#/$defs/Scenario"}, "minItems": 1}),
            ),
        ],
        &["scenarios"],
    );
    if let Some(o) = root.as_object_mut() {
        o.insert(
            "$schema".into(),
            "https://json-schema.org/draft/2020-12/schema".into(),
        );
        o.insert("title".into(), "ScenarioEngine bot-test suite".into());
        o.insert("$defs".into(), Value::Object(defs));
    }
    root
}

/// A scenario as written (`id`, `category`, `steps` required), or a template with its grid; and
/// the template's raw form (a scenario's keys less `template` and `grid`, `id` required).
fn scenario_schema(script: &Value) -> (Value, Value) {
    let nonblank = json!({"type": "string", "pattern": "\\S"});
    let mut scenario = closed_mapping_schema(
        &ENTRY_KEYS,
        &[
            ("id", nonblank.clone()),
            ("name", json!({"type": ["string", "null"]})),
            (
                "category",
                json!({
                    "type": "string",
                    "description": "Any name; one close to a known category is taken for a typo.",
                    "examples": Category::KNOWN
                }),
            ),
            (
                "tags",
                json!({"type": ["array", "null"], "items": {"type": "string"}}),
            ),
            (
                "steps",
                json!({"type": "array", "items": {"$ref": "#/$defs/Step"}, "minItems": 1}),
            ),
            (
                "expect",
                json!({"anyOf": [{"$ref": "#/$defs/Expect"}, {"type": "null"}]}),
            ),
            (
                "timeout_ms",
                json!({"type": ["integer", "null"], "minimum": 0}),
            ),
            ("script", json!({"anyOf": [script, {"type": "null"}]})),
            // A scenario's keys, each value as a scenario's or a `{{ name }}` placeholder.
            ("template", json!({"$ref": "#/$defs/Template"})),
            (
                "grid",
                json!({"type": "object", "additionalProperties": {"type": "array"}}),
            ),
        ],
        &[],
    );
    let mut template = scenario.clone();
    scenario["description"] = "A scenario as written, or a template with its grid.".into();
    // A scenario names its id, category, steps and an expectation (its own or a step's); a
    // template's grid fills them in, and a template entry has nothing else.
    scenario["anyOf"] = json!([
        {
            "required": ["id", "category", "steps"],
            "not": {"anyOf": [{"required": ["template"]}, {"required": ["grid"]}]},
            "anyOf": [
                {"required": ["expect"], "properties": {"expect": {"type": "object"}}},
                {"properties": {"steps": {"contains": {"type": "object", "required": ["expect"]}}}}
            ]
        },
        {"required": ["template", "grid"], "maxProperties": 2}
    ]);
    if let Some(o) = template.as_object_mut() {
        o.insert("propertyNames".into(), json!({"enum": TEMPLATE_KEYS}));
        o.insert("required".into(), json!(["id"]));
        if let Some(props) = o.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove("template");
            props.remove("grid");
        }
    }
    (scenario, template)
}

/// Where a template may hold a `{{ name }}` placeholder: a string with `{{` or `{%` stands for
/// any value (the loader checks each rendered scenario).
const PLACEHOLDER: &str = "#/$defs/Placeholder";
/// The prefix of a `$defs` entry's copy that allows placeholders.
const TEMPLATED: &str = "Templated";

/// Adds `Template` (read from the `Template` entry's raw form) and a placeholder-allowing copy of
/// every definition it reaches: keys are checked as a scenario's, and every value may be a
/// placeholder instead.
fn add_template_defs(defs: &mut Map<String, Value>) {
    defs.insert(
        "Placeholder".into(),
        json!({"description": "A `{{ name }}` placeholder, filled in from the grid.",
               "type": "string", "pattern": "\\{\\{|\\{%"}),
    );
    let Some(raw) = defs.remove("Template") else {
        return;
    };
    let mut todo = Vec::new();
    defs.insert("Template".into(), templated(&raw, &mut todo));
    while let Some(name) = todo.pop() {
        let key = format!("{TEMPLATED}{name}");
        if defs.contains_key(&key) {
            continue;
        }
        let copy = defs.get(&name).map(|d| templated(d, &mut todo));
        if let Some(copy) = copy {
            defs.insert(key, copy);
        }
    }
}

/// `schema` with every value position (property, item, additional property) also taking a
/// placeholder, and its `$defs` references pointed at the templated copies (named in `todo`).
fn templated(schema: &Value, todo: &mut Vec<String>) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let value = |v: &Value, todo: &mut Vec<String>| json!({"anyOf": [templated(v, todo), {"$ref": PLACEHOLDER}]});
    let mut out = Map::new();
    for (k, v) in map {
        let new = match (k.as_str(), v) {
            ("$ref", Value::String(r)) => match r.strip_prefix("#/$defs/") {
                Some(name) if r != PLACEHOLDER => {
                    todo.push(name.to_owned());
                    Value::String(format!("#/$defs/{TEMPLATED}{name}"))
                }
                _ => v.clone(),
            },
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(p, s)| (p.clone(), value(s, todo)))
                    .collect(),
            ),
            ("items" | "additionalProperties", Value::Object(_)) => value(v, todo),
            ("prefixItems", Value::Array(items)) => {
                Value::Array(items.iter().map(|s| value(s, todo)).collect())
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(items)) => {
                Value::Array(items.iter().map(|s| templated(s, todo)).collect())
            }
            _ => v.clone(),
        };
        out.insert(k.clone(), new);
    }
    Value::Object(out)
}
