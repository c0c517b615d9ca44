//! Property tests: canonical keys, the strict-schema transform and tolerant parsing.

use llm_client::{canonical_json, parse_tolerant, strict_schema};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Arbitrary JSON values, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-zA-Z0-9 ,{}\\[\\]\"]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// Object schemas with optional properties, bounds and nesting.
fn object_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({"type": "number", "minimum": 0, "maximum": 10})),
        Just(json!({"type": "string", "format": "date", "maxLength": 40})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "boolean", "default": false})),
    ];
    leaf.prop_recursive(2, 16, 4, |inner| {
        (
            prop::collection::btree_map("[a-z]{1,5}", inner, 1..4),
            any::<u8>(),
        )
            .prop_map(|(props, mask)| {
                let required: Vec<&String> = props
                    .keys()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, k)| k)
                    .collect();
                json!({"type": "object", "properties": props, "required": required})
            })
    })
}

proptest! {
    #[test]
    fn canonical_json_round_trips(v in json_value()) {
        let text = canonical_json(&v);
        let back: Value = serde_json::from_str(&text).expect("canonical JSON parses");
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(canonical_json(&back), text);
    }

    #[test]
    fn strict_schema_is_idempotent_and_requires_everything(schema in object_schema()) {
        let strict = strict_schema(&schema);
        prop_assert_eq!(strict_schema(&strict), strict.clone());
        let mut stack = vec![&strict];
        while let Some(node) = stack.pop() {
            if let Some(Value::Object(props)) = node.get("properties") {
                prop_assert_eq!(node.get("additionalProperties"), Some(&Value::Bool(false)));
                let required = node.get("required").and_then(Value::as_array).map_or(0, Vec::len);
                prop_assert_eq!(required, props.len());
                stack.extend(props.values());
            }
            prop_assert!(node.get("format").is_none() && node.get("maximum").is_none());
        }
    }

    #[test]
    fn fenced_or_wrapped_objects_parse_back(pairs in prop::collection::vec(("[a-z]{1,6}", json_value()), 1..4)) {
        let v = Value::Object(pairs.into_iter().collect());
        let wrapped = format!("Here is the result:\n```json\n{}\n```\nDone.", serde_json::to_string_pretty(&v).expect("json"));
        let (parsed, coercions) = parse_tolerant(&wrapped).expect("parses");
        prop_assert_eq!(parsed, v);
        prop_assert_eq!(coercions.len(), 1);
    }
}
