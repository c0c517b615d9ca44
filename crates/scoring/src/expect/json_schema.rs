//! The JSON Schema of an `expect:` mapping, written by hand because [`super::Expect`] is read by
//! a hand-written `Deserialize` (`de.rs`): its keys come from the same lists the parser matches
//! ([`super::CHECK_NAMES`], the modifiers, the logical operators and the key lists of each check
//! argument written as a mapping), and tests hold it to the parser. Matchers (`expectedParams`
//! values, `customValidator` operands) stay loose: the parser is the judge of those; unknown keys
//! and wrong types are refused at every depth, as the parser refuses them.

use serde_json::{Map, Value, json};

use super::CHECK_NAMES;
use super::de::{
    CALL_COUNT_KEYS, CALL_KEYS, COMMAND_KEYS, LOGICAL, MODIFIERS, PREDICATE_KEYS, RUBRIC_KEYS,
    SIMILAR_KEYS, TOPIC_KEYS,
};

/// The schema of one `expect:` mapping, to be placed under `$defs` as `name`; it refers to
/// itself as `#/$defs/<name>` for `all`/`any`/`not`.
#[must_use]
pub fn expect_json_schema(name: &str) -> Value {
    let me = json!({"$ref": format!("#/$defs/{name}")});
    let mut props = Map::new();
    for check in CHECK_NAMES {
        props.insert(check.to_owned(), check_value(check));
    }
    for modifier in MODIFIERS {
        let value = match modifier {
            "critical" => json!({"type": "boolean"}),
            "weight" => json!({"type": "integer", "minimum": 0}),
            "order" => json!({"enum": ["strict", "any"]}),
            // `turn`: a turn number from 1, `last` or `any`.
            _ => json!({"anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": "^\\s*(last|any)\\s*$"}
            ]}),
        };
        props.insert(modifier.to_owned(), value);
    }
    for op in LOGICAL {
        let value = if op == "not" {
            me.clone()
        } else {
            json!({"type": "array", "items": me, "minItems": 1})
        };
        props.insert(op.to_owned(), value);
    }
    json!({
        "description": "Checks of a turn or scenario (docs/suites.md); all/any/not stand alone.",
        "type": "object",
        "properties": props,
        "additionalProperties": false,
        // `order` says how `expectedCalls` are matched.
        "dependentRequired": {"order": ["expectedCalls"]},
        // A logical operator is the only key of its mapping.
        "anyOf": [
            {"not": {"anyOf": LOGICAL.map(|op| json!({"required": [op]}))}},
            {"maxProperties": 1}
        ]
    })
}

/// A check's value, with the forms the parser reads.
fn check_value(check: &str) -> Value {
    match check {
        // `false` checks nothing and is refused.
        "onlyExpectedCalls" | "validParams" => json!({"const": true}),
        "shouldReject" => json!({"type": "boolean"}),
        "maxLatencyMs" => json!({"type": "integer", "minimum": 1}),
        "responseType" => response_type(),
        "expectedFunction" | "expectedAgent" => nonblank(),
        "shouldContain" | "shouldNotContain" => one_or_many(&nonblank()),
        "expectedParams" => json!({"type": "object", "minProperties": 1}),
        // One reader (`de::topics`) for the three: a string or {topic, synonyms}.
        "shouldMention" | "shouldWarn" | "shouldAskFor" => one_or_many(&json!({"anyOf": [
            nonblank(),
            closed_mapping_schema(&TOPIC_KEYS, &[
                ("topic", nonblank()),
                ("synonyms", json!({"type": "array", "minItems": 1, "items": nonblank()})),
            ], &["topic"]),
        ]})),
        "customValidator" => one_or_many(&closed_mapping_schema(
            &PREDICATE_KEYS,
            &[
                ("path", json!({"type": "string"})),
                ("op", json!({"type": "string"})),
                ("value", json!({})),
                ("description", optional("string")),
                ("quantifier", json!({"enum": ["every", "some", null]})),
                ("tolerance", json!({})),
            ],
            &["path", "op"],
        )),
        "expectedCalls" => json!({
            "type": "array",
            "minItems": 1,
            "items": closed_mapping_schema(&CALL_KEYS, &[
                ("function", nonblank()),
                ("agent", json!({"anyOf": [nonblank(), {"type": "null"}]})),
                ("params", json!({"type": "object"})),
            ], &["function"]),
        }),
        "callCount" => {
            let count = json!({"type": ["integer", "null"], "minimum": 0});
            let mut item = closed_mapping_schema(
                &CALL_COUNT_KEYS,
                &[
                    ("function", json!({"anyOf": [nonblank(), {"type": "null"}]})),
                    ("agent", json!({"anyOf": [nonblank(), {"type": "null"}]})),
                    ("eq", count.clone()),
                    ("min", count.clone()),
                    ("max", count),
                ],
                &[],
            );
            // `eq`, or `min` and/or `max`, not both.
            item["anyOf"] = json!([
                {"required": ["eq"], "not": {"anyOf": [{"required": ["min"]}, {"required": ["max"]}]}},
                {"required": ["min"], "not": {"required": ["eq"]}},
                {"required": ["max"], "not": {"required": ["eq"]}}
            ]);
            one_or_many(&item)
        }
        "command" => closed_mapping_schema(
            &COMMAND_KEYS,
            &[
                (
                    "run",
                    json!({"anyOf": [
                        nonblank(),
                        {"type": "array", "items": nonblank(), "minItems": 1}
                    ]}),
                ),
                (
                    "timeoutMs",
                    json!({"type": ["integer", "null"], "minimum": 1}),
                ),
                ("name", optional("string")),
            ],
            &["run"],
        ),
        "llmRubric" => json!({"anyOf": [
            nonblank(),
            closed_mapping_schema(&RUBRIC_KEYS, &[("rubric", nonblank()), ("name", optional("string"))], &["rubric"]),
        ]}),
        "similar" => closed_mapping_schema(
            &SIMILAR_KEYS,
            &[
                ("to", one_or_many(&nonblank())),
                (
                    "threshold",
                    json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1}),
                ),
                ("name", optional("string")),
            ],
            &["to", "threshold"],
        ),
        _ => json!({}),
    }
}

/// A response type's name as the parser matches it: in any case, with white space around.
fn response_type() -> Value {
    let names: Vec<String> = crate::transcript::ResponseType::ALL
        .iter()
        .map(|t| {
            t.as_str()
                .chars()
                .map(|c| format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase()))
                .collect()
        })
        .collect();
    json!({
        "type": "string",
        "pattern": format!("^\\s*({})\\s*$", names.join("|")),
        "examples": crate::transcript::ResponseType::ALL.map(crate::transcript::ResponseType::as_str),
    })
}

/// A string with something in it besides white space.
fn nonblank() -> Value {
    json!({"type": "string", "pattern": "\\S"})
}

/// `type`, or `null` (an `Option` the parser reads as absent).
fn optional(kind: &str) -> Value {
    json!({"type": [kind, "null"]})
}

/// One item, or a non-empty list of them.
fn one_or_many(item: &Value) -> Value {
    json!({"anyOf": [item, {"type": "array", "items": item, "minItems": 1}]})
}

/// A mapping with exactly a reader's `keys` (each described in `props`; a key without one takes
/// any value), `required` among them: the schema of a `deny_unknown_fields` mapping.
#[must_use]
pub fn closed_mapping_schema(keys: &[&str], props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut properties = Map::new();
    for key in keys {
        let value = props
            .iter()
            .find(|(k, _)| k == key)
            .map_or_else(|| json!({}), |(_, v)| v.clone());
        properties.insert((*key).to_owned(), value);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}
