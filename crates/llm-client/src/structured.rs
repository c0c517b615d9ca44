//! Structured output: wire modes, the strict-schema transform, tolerant parsing and validation.
//!
//! Servers enforce JSON schemas unevenly (or not at all), so the reply is always parsed
//! tolerantly and validated locally against the caller's *original* schema, whatever the wire
//! mode. Every deviation that was tolerated is reported as a [`Coercion`] so the output can say
//! what was changed. Nothing here does I/O.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Coercion;
use crate::cache::canonical_hash;

/// How structured output is requested on the wire, in fallback order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// `response_format: {type: json_schema, json_schema: {strict: true, ...}}`.
    JsonSchema,
    /// `response_format: {type: json_object, schema: ...}` (llama.cpp, vLLM, Ollama accept the
    /// schema there; OpenAI ignores it and the prompt carries it too).
    JsonObject,
    /// A forced call of a tool whose parameters are the schema (`tool` in settings).
    #[serde(rename = "tool", alias = "tool_call")]
    ToolCall,
    /// No server support: the schema is described in the prompt.
    Prompt,
}

impl StructuredMode {
    /// Every mode, in fallback order.
    pub const ALL: [Self; 4] = [
        Self::JsonSchema,
        Self::JsonObject,
        Self::ToolCall,
        Self::Prompt,
    ];

    /// The name used in settings and in the modes file: `json_schema`, `json_object`, `tool`,
    /// `prompt`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::JsonSchema => "json_schema",
            Self::JsonObject => "json_object",
            Self::ToolCall => "tool",
            Self::Prompt => "prompt",
        }
    }

    /// The next mode to try after this one was rejected by the server.
    #[must_use]
    pub fn next(self) -> Option<Self> {
        match self {
            Self::JsonSchema => Some(Self::JsonObject),
            Self::JsonObject => Some(Self::ToolCall),
            Self::ToolCall => Some(Self::Prompt),
            Self::Prompt => None,
        }
    }
}

/// Keywords OpenAI's strict mode rejects; they are moved into the description on the wire and
/// still enforced by local validation.
const MOVED_TO_DESCRIPTION: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// Keywords dropped from the wire schema entirely.
const STRIPPED: &[&str] = &["$schema", "format", "default", "examples"];

/// Rewrites `schema` into the subset OpenAI's strict structured outputs accept.
///
/// On every object with `properties`: `additionalProperties: false` and every property listed in
/// `required`; properties that were optional become nullable (strict mode has no optional
/// fields; nulls of optional fields are dropped again when the reply is parsed). `format`,
/// `$schema`, `default` and `examples` are removed; numeric/length bounds are moved into the
/// `description` so the model still sees them. `oneOf` becomes `anyOf`. The transform is
/// idempotent. Local validation always uses the original schema.
#[must_use]
pub fn strict_schema(schema: &Value) -> Value {
    let mut out = schema.clone();
    make_strict(&mut out);
    out
}

fn make_strict(node: &mut Value) {
    let Value::Object(obj) = node else {
        if let Value::Array(items) = node {
            items.iter_mut().for_each(make_strict);
        }
        return;
    };
    for key in STRIPPED {
        obj.remove(*key);
    }
    let mut moved = Vec::new();
    for key in MOVED_TO_DESCRIPTION {
        if let Some(v) = obj.remove(*key) {
            moved.push(format!("{key}: {v}"));
        }
    }
    if !moved.is_empty() {
        let note = format!("Constraints: {}.", moved.join(", "));
        let desc = match obj.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} {note}"),
            _ => note,
        };
        obj.insert("description".to_owned(), Value::String(desc));
    }
    if let Some(one_of) = obj.remove("oneOf") {
        obj.insert("anyOf".to_owned(), one_of);
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        let names: Vec<String> = props.keys().cloned().collect();
        let required: Vec<String> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                if !required.contains(name) {
                    make_nullable(prop);
                }
            }
        }
        obj.insert(
            "required".to_owned(),
            Value::Array(names.into_iter().map(Value::String).collect()),
        );
        obj.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    for (key, child) in obj.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                if let Value::Object(map) = child {
                    map.values_mut().for_each(make_strict);
                }
            }
            "items" | "prefixItems" | "anyOf" | "allOf" | "not" | "additionalProperties" => {
                make_strict(child);
            }
            _ => {}
        }
    }
}

/// Adds `"null"` to a property's type so strict mode can express "optional".
fn make_nullable(prop: &mut Value) {
    let Value::Object(obj) = prop else { return };
    match obj.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            obj.insert(
                "type".to_owned(),
                Value::Array(vec![Value::String(t), "null".into()]),
            );
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push("null".into());
        }
        _ => {}
    }
}

/// Parses a model's reply into JSON, tolerating fences, surrounding prose and trailing commas.
///
/// # Errors
/// The JSON parser's message when no tolerated deviation makes the text parse.
pub fn parse_tolerant(text: &str) -> Result<(Value, Vec<Coercion>), String> {
    let mut coercions = Vec::new();
    let mut candidate = text.trim();
    if let Ok(v) = serde_json::from_str(candidate) {
        return Ok((v, coercions));
    }
    if let Some(inner) = fenced_block(candidate) {
        coercions.push(whole("stripped ```json fence"));
        candidate = inner;
        if let Ok(v) = serde_json::from_str(candidate) {
            return Ok((v, coercions));
        }
    }
    if let Some(inner) = outermost_json(candidate)
        && inner.len() < candidate.len()
    {
        coercions.push(whole("ignored text around the JSON value"));
        candidate = inner;
        if let Ok(v) = serde_json::from_str(candidate) {
            return Ok((v, coercions));
        }
    }
    let without_commas = remove_trailing_commas(candidate);
    match serde_json::from_str(&without_commas) {
        Ok(v) if without_commas.len() != candidate.len() => {
            coercions.push(whole("removed trailing commas"));
            Ok((v, coercions))
        }
        Ok(v) => Ok((v, coercions)),
        Err(e) => Err(format!("reply is not valid JSON: {e}")),
    }
}

fn whole(reason: &str) -> Coercion {
    Coercion {
        path: String::new(),
        reason: reason.to_owned(),
    }
}

/// The body of the first ``` fenced block (any info string), if there is one.
fn fenced_block(text: &str) -> Option<&str> {
    let start = text.find("```")?;
    let after = &text[start + 3..];
    let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
    let body = &after[body_start..];
    let end = body.find("```").unwrap_or(body.len());
    Some(body[..end].trim())
}

/// From the first `{`/`[` to the last matching closer.
fn outermost_json(text: &str) -> Option<&str> {
    let start = text.find(['{', '['])?;
    let closer = if text[start..].starts_with('{') {
        '}'
    } else {
        ']'
    };
    let end = text.rfind(closer)?;
    (end > start).then(|| &text[start..=end])
}

/// Drops commas that directly precede `}` or `]`, outside strings.
fn remove_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Applies schema-guided coercions in place: numbers written as strings ("8", "8.5"; never a
/// fraction such as "5/5", which is left for the schema to refuse),
/// booleans as strings, and nulls of optional properties (which strict mode made nullable).
pub fn coerce_to_schema(value: &mut Value, schema: &Value) -> Vec<Coercion> {
    let mut out = Vec::new();
    coerce_node(value, schema, schema, "", &mut out, 0);
    out
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => root.pointer(&r[1..]).unwrap_or(schema),
        _ => schema,
    }
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn coerce_node(
    value: &mut Value,
    schema: &Value,
    root: &Value,
    path: &str,
    out: &mut Vec<Coercion>,
    depth: usize,
) {
    // Recursive schemas through `$ref` must not recurse forever on deep values.
    if depth > 64 {
        return;
    }
    let schema = resolve(schema, root);
    let types = types_of(schema);
    let wants_number = types.iter().any(|t| *t == "number" || *t == "integer");
    let wants_integer_only = types.contains(&"integer") && !types.contains(&"number");
    if let Value::String(s) = value
        && !types.contains(&"string")
    {
        if wants_number && let Some(n) = number_from_text(s, wants_integer_only) {
            out.push(Coercion {
                path: path.to_owned(),
                reason: format!("{s:?} read as {n}"),
            });
            *value = n;
            return;
        }
        if types.contains(&"boolean") {
            let b = match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" => Some(true),
                "false" | "no" => Some(false),
                _ => None,
            };
            if let Some(b) = b {
                out.push(Coercion {
                    path: path.to_owned(),
                    reason: format!("{s:?} read as {b}"),
                });
                *value = Value::Bool(b);
                return;
            }
        }
    }
    match value {
        Value::Object(map) => coerce_object(map, schema, root, path, out, depth),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    coerce_node(
                        item,
                        item_schema,
                        root,
                        &format!("{path}/{i}"),
                        out,
                        depth + 1,
                    );
                }
            }
        }
        _ => {}
    }
}

fn coerce_object(
    map: &mut Map<String, Value>,
    schema: &Value,
    root: &Value,
    path: &str,
    out: &mut Vec<Coercion>,
    depth: usize,
) {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let nulls_to_drop: Vec<String> = map
        .iter()
        .filter(|(k, v)| {
            v.is_null()
                && !required.contains(&k.as_str())
                && props
                    .get(k.as_str())
                    .is_some_and(|p| !types_of(resolve(p, root)).contains(&"null"))
        })
        .map(|(k, _)| k.clone())
        .collect();
    for key in nulls_to_drop {
        map.remove(&key);
        out.push(Coercion {
            path: format!("{path}/{key}"),
            reason: "dropped null of optional field".to_owned(),
        });
    }
    for (key, child) in map.iter_mut() {
        if let Some(prop_schema) = props.get(key) {
            coerce_node(
                child,
                prop_schema,
                root,
                &format!("{path}/{key}"),
                out,
                depth + 1,
            );
        }
    }
}

/// "8" → 8, "8.5" → 8.5, "  7 " → 7: a text that is exactly one number, nothing else. A
/// fraction ("5/5", "8/10"), a unit or a word is no number: the reply is invalid and asked again
/// (reading "5/5" as 5 would turn full marks into half marks).
fn number_from_text(text: &str, integer_only: bool) -> Option<Value> {
    let n: f64 = text.trim().parse().ok()?;
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        // Integral values become JSON integers so `"type": "integer"` accepts them.
        #[expect(
            clippy::cast_possible_truncation,
            reason = "checked integral and in range"
        )]
        return Some(Value::from(n as i64));
    }
    if integer_only {
        return None;
    }
    serde_json::Number::from_f64(n).map(Value::Number)
}

/// The validator of a reply schema: its draft from its `$schema` (2020-12 without one), and
/// `format` checked (a `date` that is no date is invalid, as `validParams` reads it).
pub(crate) fn compile(
    schema: &Value,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
}

/// The first few messages of `validator` on `value`, each with its instance path.
pub(crate) fn schema_errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .take(5)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{path}: {e}")
            }
        })
        .collect()
}

/// Compiled validators by schema, shared by every call of a client.
#[derive(Default)]
pub(crate) struct Validators {
    cache: Mutex<HashMap<[u8; 32], Arc<jsonschema::Validator>>>,
}

impl Validators {
    /// Validates `value`; the error lists the validator's messages with instance paths.
    pub(crate) fn validate(&self, schema: &Value, value: &Value) -> Result<(), String> {
        let validator = self.get(schema)?;
        let errors = schema_errors(&validator, value);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }

    fn get(&self, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
        let key = canonical_hash(schema);
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = cache.get(&key) {
            return Ok(Arc::clone(v));
        }
        let compiled = Arc::new(
            compile(schema).map_err(|e| format!("the output schema itself is invalid: {e}"))?,
        );
        cache.insert(key, Arc::clone(&compiled));
        Ok(compiled)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Break-it review of the local grammars: a reply's `format` went unchecked here while
    /// `validParams` refused it.
    #[test]
    fn reply_formats_are_checked() {
        let v = compile(&serde_json::json!({"type": "string", "format": "date"})).expect("valid");
        assert!(v.is_valid(&serde_json::json!("2026-11-29")));
        assert!(!v.is_valid(&serde_json::json!("Alice")));
    }

    fn judge_schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "score": {"type": "number", "minimum": 0, "maximum": 10, "description": "Overall."},
                "label": {"type": "string", "format": "uri"},
                "notes": {"type": "array", "items": {"type": "object", "properties": {"t": {"type": "string", "maxLength": 20}}}}
            },
            "required": ["score", "label"]
        })
    }

    #[test]
    fn strict_schema_snapshot_and_idempotence() {
        let strict = strict_schema(&judge_schema());
        insta::assert_json_snapshot!(strict);
        assert_eq!(strict_schema(&strict), strict);
    }

    #[test]
    fn tolerant_parse_handles_fence_prose_and_trailing_commas() {
        let (v, c) =
            parse_tolerant("Sure!\n```json\n{\"a\": 1,}\n```\nHope it helps").expect("parses");
        assert_eq!(v, json!({"a": 1}));
        let reasons: Vec<&str> = c.iter().map(|c| c.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["stripped ```json fence", "removed trailing commas"]
        );

        let (v, c) = parse_tolerant("Here you go: {\"a\": \"x,}\"} thanks").expect("parses");
        assert_eq!(v, json!({"a": "x,}"}));
        assert_eq!(c.len(), 1);

        let err = parse_tolerant("{\"a\": 1").expect_err("truncated JSON must fail");
        assert!(err.contains("not valid JSON"), "{err}");
    }

    #[test]
    fn scores_as_text_are_coerced_and_recorded() {
        let schema = judge_schema();
        let mut v = json!({"score": "8", "label": "urn:x", "notes": [{"t": "a"}]});
        let c = coerce_to_schema(&mut v, &schema);
        assert_eq!(v["score"], json!(8));
        assert_eq!(
            c,
            [Coercion {
                path: "/score".into(),
                reason: "\"8\" read as 8".into()
            }]
        );

        let mut v = json!({"score": " 8.5 ", "label": "urn:x", "notes": null});
        let c = coerce_to_schema(&mut v, &schema);
        assert_eq!(v, json!({"score": 8.5, "label": "urn:x"}));
        assert_eq!(c.len(), 2);

        let mut v = json!({"score": "high", "label": "urn:x"});
        assert!(coerce_to_schema(&mut v, &schema).is_empty());
    }

    /// A fraction is no number: "5/5" (full marks) was read as 5, "3/4" as 3.
    #[test]
    fn a_fraction_is_left_for_the_schema_to_refuse() {
        let schema = judge_schema();
        for text in ["5/5", "3/4", "8/10", "9.5/10", "7 points", "7-8"] {
            let mut v = json!({"score": text, "label": "urn:x"});
            assert!(coerce_to_schema(&mut v, &schema).is_empty(), "{text}");
            assert_eq!(v["score"], json!(text), "{text}");
        }
    }

    #[test]
    fn validation_quotes_paths() {
        let validators = Validators::default();
        let schema = judge_schema();
        assert_eq!(
            validators.validate(&schema, &json!({"score": 3, "label": "urn:x"})),
            Ok(())
        );
        let err = validators
            .validate(&schema, &json!({"score": 11, "label": "urn:x"}))
            .expect_err("out of range");
        assert!(err.starts_with("/score:"), "{err}");
        let err = validators
            .validate(&schema, &json!({"score": 1}))
            .expect_err("missing label");
        assert!(err.contains("label"), "{err}");
    }
}
