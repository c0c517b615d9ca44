//! The JSON Schema (draft 2020-12) of suite files (`scenario-engine schema suite`), written by
//! hand because the suite loader reads steps, categories and expectations with hand-written
//! `Deserialize` impls. The key lists mirror the loader's structs (`deny_unknown_fields`) and a
//! test holds them to it: a key the loader rejects as unknown is rejected here too. Check
//! names come from [`scoring::CheckKind::ALL`], as the loader's.

use serde_json::{Map, Value, json};

use super::Category;

/// The suite schema, for editors (`# yaml-language-server: $schema=…`) and validators.
#[must_use]
pub fn suite_schema() -> Value {
    let check_names: Vec<Value> = scoring::CheckKind::ALL
        .iter()
        .map(|k| serde_json::to_value(k).unwrap_or(Value::Null))
        .collect();
    let mut defs = Map::new();
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
                {
                    "type": "object",
                    "properties": {"say": {"type": "string"}, "expect": {"$ref": "#/$defs/Expect"}},
                    "required": ["say"],
                    "additionalProperties": false
                }
            ]
        }),
    );
    defs.insert(
        "Scenario".into(),
        json!({
            "description": "A scenario as written, or a template with its grid.",
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "category": {
                    "type": "string",
                    "description": "Any name; one close to a known category is taken for a typo.",
                    "examples": Category::KNOWN
                },
                "tags": {"type": "array", "items": {"type": "string"}},
                "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}, "minItems": 1},
                "expect": {"$ref": "#/$defs/Expect"},
                "timeout_ms": {"type": "integer", "minimum": 0},
                "script": {
                    "type": "object",
                    "properties": {
                        "expect_outcome": {"enum": ["pass", "fail"]},
                        "turns": {"type": "array"}
                    },
                    "required": ["turns"],
                    "additionalProperties": false
                },
                "template": {"type": "object"},
                "grid": {"type": "object", "additionalProperties": {"type": "array"}}
            },
            // A scenario names its category and steps; a template's grid fills them in.
            "anyOf": [{"required": ["category", "steps"]}, {"required": ["template"]}],
            "additionalProperties": false
        }),
    );
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
                "embedding_model": {"type": "string"}
            },
            "additionalProperties": false
        }),
    );
    defs.insert("Bot".into(), bot_schema());
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ScenarioEngine bot-test suite",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "bot": {"$ref": "#/$defs/Bot"},
            "defaults": {"$ref": "#/$defs/Defaults"},
            "scenarios": {"type": "array", "items": {"$ref": "#/$defs/Scenario"}}
        },
        "required": ["scenarios"],
        "additionalProperties": false,
        "$defs": defs
    })
}

/// The `bot:` section: its keys as the loader's `BotSpec`; the adapters' own sections (`llm`,
/// `http`, `command`) are checked by the loader.
fn bot_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "kind": {"enum": ["scripted", "llm", "http", "command"]},
            "system_prompt": {"type": "string"},
            "agents": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "functions": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "description": {"type": "string"},
                            "parameters": {"type": "object"}
                        },
                        "required": ["name"],
                        "additionalProperties": false
                    }}
                },
                "required": ["name", "functions"],
                "additionalProperties": false
            }},
            "llm": {"type": "object"},
            "http": {"type": "object"},
            "command": {"type": "object"},
            "scripts_file": {"type": "string"}
        },
        "additionalProperties": false
    })
}
