//! The JSON Schema of an `expect:` mapping, written by hand because [`super::Expect`] is read by
//! a hand-written `Deserialize` (`de.rs`): its keys come from the same lists the parser matches
//! ([`super::CHECK_NAMES`], the modifiers and the logical operators), and a test holds it to
//! the parser. Values are described loosely where the parser's rules are richer than a schema
//! (matchers, call specs): the parser stays the judge of those, the schema catches unknown keys.

use serde_json::{Map, Value, json};

use super::CHECK_NAMES;
use super::de::{LOGICAL, MODIFIERS};

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
            "weight" => json!({"type": "number", "minimum": 0}),
            "order" => json!({"enum": ["strict", "any"]}),
            // `turn`: a number, `last`, `any`, or a list of numbers.
            _ => json!({"type": ["integer", "string", "array"]}),
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
        // A logical operator is the only key of its mapping.
        "anyOf": [
            {"not": {"anyOf": LOGICAL.map(|op| json!({"required": [op]}))}},
            {"maxProperties": 1}
        ]
    })
}

/// A check's value, as loose as the parser's forms allow.
fn check_value(check: &str) -> Value {
    match check {
        // `false` checks nothing and is refused.
        "onlyExpectedCalls" | "validParams" => json!({"const": true}),
        "maxLatencyMs" => json!({"type": "integer", "minimum": 1}),
        // Matched case-insensitively by the parser: action, clarification, rejection, text, error.
        "responseType" | "expectedAgent" => json!({"type": "string"}),
        _ => json!({}),
    }
}
