//! JSON Schema → GBNF, the grammar format llama.cpp samples under.
//!
//! The embedded model (feature `local-llm`) constrains its sampling with a grammar built from the
//! request's schema, so that a tiny model writes the reply's shape. The grammar is a *shape*: every
//! value the schema allows that the grammar also allows is validated afterwards like any
//! provider's reply, and the keywords a grammar cannot express cheaply are left to that
//! validation. The conversion is ours (not llama.cpp's `common` library, which took about four
//! minutes of every llama.cpp build) and needs no model, so it is tested in the ordinary build.
//!
//! What the grammar enforces:
//! - `type` (one or a list), `const`, `enum`, `anyOf`/`oneOf` (as alternatives), `allOf` of
//!   object schemas (merged), local `$ref`s (`#/$defs/…`, `#/definitions/…`, `#`; recursion
//!   allowed);
//! - objects: `properties` in the schema's key order, required ones first, each optional one at
//!   most once; `additionalProperties` (absent with named properties: none; absent without: any);
//! - arrays: `items`, `prefixItems` (or draft 4's `items` list) as an exact tuple, `minItems` and
//!   `maxItems`;
//! - strings: `minLength` and `maxLength` in characters;
//! - integers: `minimum`/`maximum` (and the exclusive forms) when the range holds at most
//!   [`MAX_ENUMERATED_INTEGERS`] values below 2^53, listed; a non-negative lower bound otherwise;
//! - numbers: a non-negative lower bound (no minus sign); at most 16 digits before the point
//!   unless a bound has more (tiny models otherwise write digits until their cap);
//! - an optional property, or a union's branch, that no value satisfies is left out.
//!
//! What it leaves to validation: `pattern`, `format`, `multipleOf`, `uniqueItems`, `not`,
//! `if`/`then`/`else`, `patternProperties`, wider integer ranges and number ranges, repetition
//! bounds above [`MAX_REPETITION`], and the keywords beside a `$ref` or an `anyOf`.
//!
//! Whitespace: at most one space after `{`, `[`, `,`, `:` and a key, and before `}` and `]`.
//! Small models (135M–270M parameters) given the usual licence of newlines and indentation write
//! whitespace until the token cap.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Integer ranges with at most this many values are listed in the grammar.
pub const MAX_ENUMERATED_INTEGERS: i64 = 256;
/// 2^53: integers below it are exact as f64.
const EXACT: f64 = 9_007_199_254_740_992.0;
/// Repetition bounds (`minItems`, `maxLength` …) above this are left to validation: llama.cpp
/// expands a bounded repetition into one rule per step.
pub const MAX_REPETITION: u64 = 1000;
/// Schemas nested deeper than this are refused.
pub const MAX_DEPTH: usize = 64;
/// The largest grammar produced, in bytes.
pub const MAX_GRAMMAR_BYTES: usize = 1 << 20;

/// Why a schema has no grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GbnfError {
    /// A `$ref` that is not a local JSON pointer into the schema, or points at nothing.
    #[error("{at}: $ref {reference:?} does not resolve within the schema")]
    Ref {
        /// Where in the schema (a JSON pointer).
        at: String,
        /// The reference as written.
        reference: String,
    },
    /// A part of the schema no JSON value satisfies (`false`, an empty `enum`, `minItems` above
    /// `maxItems` …).
    #[error("{at}: no value satisfies this schema ({reason})")]
    Unsatisfiable {
        /// Where in the schema (a JSON pointer).
        at: String,
        /// What makes it so.
        reason: String,
    },
    /// A keyword with a value of the wrong kind (`"type": 5`, `"properties": []` …).
    #[error("{at}: {reason}")]
    Invalid {
        /// Where in the schema (a JSON pointer).
        at: String,
        /// What is wrong.
        reason: String,
    },
    /// Nesting deeper than [`MAX_DEPTH`], or a grammar over [`MAX_GRAMMAR_BYTES`].
    #[error("{0}")]
    TooLarge(String),
}

/// Converts a JSON schema into a GBNF grammar whose start rule is `root`.
///
/// # Errors
/// [`GbnfError`] when the schema is malformed, unsatisfiable, refers outside itself or is too
/// large.
pub fn json_schema_to_gbnf(schema: &Value) -> Result<String, GbnfError> {
    let mut c = Converter {
        root: schema,
        rules: Vec::new(),
        names: HashSet::new(),
        by_body: HashMap::new(),
        refs: HashMap::new(),
        bytes: 0,
    };
    let body = c.visit(schema, "", "", 0)?;
    let mut out = format!("root ::= {body}\n");
    for (name, body) in &c.rules {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    Ok(out)
}

/// Any value.
static ANY: Value = Value::Bool(true);

/// Keywords that say nothing about the value.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$comment",
    "examples",
    "default",
    "$schema",
    "$id",
    "$defs",
    "definitions",
];

/// The JSON primitives, each with the rules it uses.
const PRIMITIVES: &[(&str, &str, &[&str])] = &[
    ("space", r#"" "?"#, &[]),
    (
        "char",
        r#"[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})"#,
        &[],
    ),
    ("string", r#""\"" char* "\"""#, &["char"]),
    ("integral-part", "[0] | [1-9] [0-9]{0,15}", &[]),
    ("decimal-part", "[0-9]{1,16}", &[]),
    ("number", r#""-"? unsigned-number"#, &["unsigned-number"]),
    (
        "unsigned-number",
        r#"integral-part ("." decimal-part)? ([eE] [-+]? integral-part)?"#,
        &["integral-part", "decimal-part"],
    ),
    ("integer", r#""-"? integral-part"#, &["integral-part"]),
    ("boolean", r#""true" | "false""#, &[]),
    ("null", r#""null""#, &[]),
    (
        "value",
        "object | array | string | number | boolean | null",
        &["object", "array", "string", "number", "boolean", "null"],
    ),
    (
        "object",
        r#""{" space (string space ":" space value ("," space string space ":" space value)*)? space "}""#,
        &["space", "string", "value"],
    ),
    (
        "array",
        r#""[" space (value ("," space value)*)? space "]""#,
        &["space", "value"],
    ),
];

struct Converter<'a> {
    root: &'a Value,
    /// Every rule but `root`, in the order first made.
    rules: Vec<(String, String)>,
    /// Every name taken (`root`'s too).
    names: HashSet<String>,
    /// Rule bodies already named, so that equal sub-schemas share one rule.
    by_body: HashMap<String, String>,
    /// Resolved `$ref`s and their rules (made before the target is visited: recursion).
    refs: HashMap<String, String>,
    bytes: usize,
}

impl<'a> Converter<'a> {
    /// The expression matching `schema`, a single rule name or a short sequence.
    fn visit(
        &mut self,
        schema: &Value,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        if depth > MAX_DEPTH {
            return Err(GbnfError::TooLarge(format!(
                "{at}: the schema nests deeper than {MAX_DEPTH} levels"
            )));
        }
        let map = match schema {
            Value::Bool(true) => return Ok(self.primitive("value")),
            Value::Bool(false) => return Err(unsatisfiable(at, "the schema `false`")),
            Value::Object(map) => map,
            _ => return Err(invalid(at, "a schema is an object or a boolean")),
        };
        if let Some(reference) = map.get("$ref") {
            let reference = reference
                .as_str()
                .ok_or_else(|| invalid(at, "$ref is not a text"))?;
            return self.reference(reference, at, depth);
        }
        if let Some(value) = map.get("const") {
            return Ok(literal(value));
        }
        if let Some(values) = map.get("enum") {
            let values = values
                .as_array()
                .ok_or_else(|| invalid(at, "enum is not a list"))?;
            if values.is_empty() {
                return Err(unsatisfiable(at, "an empty enum"));
            }
            return Ok(alternatives(values.iter().map(literal).collect()));
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(options) = map.get(keyword) {
                let options = options
                    .as_array()
                    .ok_or_else(|| invalid(at, &format!("{keyword} is not a list")))?;
                let mut exprs = Vec::with_capacity(options.len());
                let mut unsatisfiable_branch = None;
                for (i, option) in options.iter().enumerate() {
                    // A branch no value satisfies drops out; the others still may.
                    match self.visit(
                        option,
                        &format!("{hint}-{i}"),
                        &format!("{at}/{keyword}/{i}"),
                        depth + 1,
                    ) {
                        Ok(expr) => exprs.push(expr),
                        Err(e @ GbnfError::Unsatisfiable { .. }) => unsatisfiable_branch = Some(e),
                        Err(e) => return Err(e),
                    }
                }
                if exprs.is_empty() {
                    return Err(unsatisfiable_branch
                        .unwrap_or_else(|| unsatisfiable(at, &format!("an empty {keyword}"))));
                }
                return Ok(alternatives(exprs));
            }
        }
        if let Some(parts) = map.get("allOf") {
            return self.all_of(map, parts, hint, at, depth);
        }
        match map.get("type") {
            None if ["properties", "additionalProperties", "required"]
                .iter()
                .any(|k| map.contains_key(*k)) =>
            {
                self.object(map, hint, at, depth)
            }
            None if map.contains_key("items") || map.contains_key("prefixItems") => {
                self.array(map, hint, at, depth)
            }
            None => Ok(self.primitive("value")),
            Some(Value::String(t)) => self.typed(map, t, hint, at, depth),
            Some(Value::Array(types)) => {
                if types.is_empty() {
                    return Err(unsatisfiable(at, "an empty type list"));
                }
                let mut exprs = Vec::with_capacity(types.len());
                for t in types {
                    let t = t
                        .as_str()
                        .ok_or_else(|| invalid(at, "a type list holds a non-text"))?;
                    let expr = self.typed(map, t, &format!("{hint}-{t}"), at, depth)?;
                    exprs.push(expr);
                }
                Ok(alternatives(exprs))
            }
            Some(_) => Err(invalid(at, "type is neither a text nor a list")),
        }
    }

    fn typed(
        &mut self,
        map: &Map<String, Value>,
        t: &str,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        match t {
            "string" => self.string(map, hint, at),
            "integer" => self.integer(map, at),
            "number" => Ok(
                if bound(map, Side::Lower).is_some_and(|(lo, _)| lo >= 0.0) {
                    self.primitive("unsigned-number")
                } else {
                    self.primitive("number")
                },
            ),
            "boolean" | "null" => Ok(self.primitive(t)),
            "object" => self.object(map, hint, at, depth),
            "array" => self.array(map, hint, at, depth),
            other => Err(invalid(at, &format!("unknown type {other:?}"))),
        }
    }

    fn reference(&mut self, reference: &str, at: &str, depth: usize) -> Result<String, GbnfError> {
        if let Some(name) = self.refs.get(reference) {
            return Ok(name.clone());
        }
        let unresolved = || GbnfError::Ref {
            at: at.to_owned(),
            reference: reference.to_owned(),
        };
        let pointer = reference.strip_prefix('#').ok_or_else(unresolved)?;
        let target = self.root.pointer(pointer).ok_or_else(unresolved)?;
        let hint = pointer.rsplit('/').next().unwrap_or_default();
        let name = self.reserve(if hint.is_empty() { "ref" } else { hint });
        self.refs.insert(reference.to_owned(), name.clone());
        let body = self.visit(target, &name, pointer, depth + 1)?;
        self.define(&name, body)?;
        Ok(name)
    }

    fn all_of(
        &mut self,
        map: &Map<String, Value>,
        parts: &Value,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        let parts = parts
            .as_array()
            .ok_or_else(|| invalid(at, "allOf is not a list"))?;
        // Each part with its `$ref`s followed; `true` adds nothing.
        let mut resolved: Vec<&Value> = Vec::with_capacity(parts.len() + 1);
        for part in parts {
            let mut part = part;
            for _ in 0..MAX_DEPTH {
                let Some(r) = part.get("$ref").and_then(Value::as_str) else {
                    break;
                };
                part = r
                    .strip_prefix('#')
                    .and_then(|p| self.root.pointer(p))
                    .ok_or_else(|| GbnfError::Ref {
                        at: format!("{at}/allOf"),
                        reference: r.to_owned(),
                    })?;
            }
            match part {
                Value::Bool(true) => {}
                Value::Bool(false) => return Err(unsatisfiable(at, "allOf holds `false`")),
                Value::Object(_) => resolved.push(part),
                _ => return Err(invalid(at, "allOf holds a non-schema")),
            }
        }
        let mut own = map.clone();
        own.remove("allOf");
        let own = Value::Object(own);
        if own
            .as_object()
            .is_some_and(|m| m.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())))
        {
            resolved.push(&own);
        }
        let is_object = |v: &Value| {
            v.get("type").and_then(Value::as_str) == Some("object") || v.get("properties").is_some()
        };
        match resolved.as_slice() {
            [] => return Ok(self.primitive("value")),
            [only] => return self.visit(only, hint, &format!("{at}/allOf"), depth + 1),
            all if all.iter().all(|v| is_object(v)) => {}
            // Not all objects: left to validation.
            _ => return Ok(self.primitive("value")),
        }
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut additional: Option<Value> = None;
        for part in &resolved {
            if let Some(Value::Object(p)) = part.get("properties") {
                for (k, v) in p {
                    properties.insert(k.clone(), v.clone());
                }
            }
            if let Some(Value::Array(r)) = part.get("required") {
                for name in r {
                    if !required.contains(name) {
                        required.push(name.clone());
                    }
                }
            }
            if let Some(a) = part.get("additionalProperties") {
                additional = Some(a.clone());
            }
        }
        let mut merged = Map::new();
        merged.insert("type".into(), "object".into());
        merged.insert("properties".into(), Value::Object(properties));
        merged.insert("required".into(), Value::Array(required));
        if let Some(a) = additional {
            merged.insert("additionalProperties".into(), a);
        }
        self.visit(
            &Value::Object(merged),
            hint,
            &format!("{at}/allOf"),
            depth + 1,
        )
    }

    fn string(
        &mut self,
        map: &Map<String, Value>,
        hint: &str,
        at: &str,
    ) -> Result<String, GbnfError> {
        let min = count(map, "minLength", at)?.unwrap_or(0);
        let max = count(map, "maxLength", at)?;
        if max.is_some_and(|max| min > max) {
            return Err(unsatisfiable(at, "minLength above maxLength"));
        }
        let min = if min > MAX_REPETITION { 0 } else { min };
        let max = max.filter(|&m| m <= MAX_REPETITION);
        if min == 0 && max.is_none() {
            return Ok(self.primitive("string"));
        }
        let ch = self.primitive("char");
        let body = format!(r#""\"" {} "\"""#, repeat(&ch, min, max));
        self.rule(hint, body)
    }

    fn integer(&mut self, map: &Map<String, Value>, at: &str) -> Result<String, GbnfError> {
        let lo = bound(map, Side::Lower).map(|(x, exclusive)| {
            let c = x.ceil();
            if exclusive && c == x { c + 1.0 } else { c }
        });
        let hi = bound(map, Side::Upper).map(|(x, exclusive)| {
            let f = x.floor();
            if exclusive && f == x { f - 1.0 } else { f }
        });
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo > hi {
                return Err(unsatisfiable(at, "no integer lies within the bounds"));
            }
            // Listed only where every integer between is exact as the f64 the bounds were
            // read as (below 2^53): beyond, the bounds themselves are rounded.
            if hi - lo < MAX_ENUMERATED_INTEGERS as f64 && lo.abs() < EXACT && hi.abs() < EXACT {
                // Exact: both are integral and below 2^53.
                let (lo, hi) = (lo as i64, hi as i64);
                let values: Vec<String> = (lo..=hi).map(|n| literal(&Value::from(n))).collect();
                return Ok(alternatives(values));
            }
        }
        // The primitives stop at 16 digits (a tiny model otherwise writes digits until its
        // cap); a bound of 16 digits or more needs more.
        if lo.is_some_and(|x| x.abs() >= 1e15) || hi.is_some_and(|x| x.abs() >= 1e15) {
            return self.rule("big-integer", r#""-"? ([0] | [1-9] [0-9]*)"#.to_owned());
        }
        Ok(if lo.is_some_and(|lo| lo >= 0.0) {
            self.primitive("integral-part")
        } else {
            self.primitive("integer")
        })
    }

    fn object(
        &mut self,
        map: &Map<String, Value>,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        let properties = match map.get("properties") {
            None => None,
            Some(Value::Object(p)) => Some(p),
            Some(_) => return Err(invalid(at, "properties is not an object")),
        };
        let required: Vec<&str> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            Some(_) => return Err(invalid(at, "required is not a list")),
        };
        let named = properties.is_some_and(|p| !p.is_empty());
        let additional: Option<&Value> = match map.get("additionalProperties") {
            None if named => None,
            None => Some(&ANY),
            Some(Value::Bool(false)) => None,
            Some(other) => Some(other),
        };
        if !named && required.is_empty() && additional.is_some_and(is_any) {
            return Ok(self.primitive("object"));
        }
        self.primitive("space");
        let mut required_kvs = Vec::new();
        let mut optional_kvs = Vec::new();
        for (name, schema) in properties.into_iter().flatten() {
            let is_required = required.contains(&name.as_str());
            let value = match self.visit(
                schema,
                &format!("{hint}-{name}"),
                &format!("{at}/properties/{}", escape_pointer(name)),
                depth + 1,
            ) {
                Ok(value) => value,
                // An optional property no value satisfies can only be left out.
                Err(GbnfError::Unsatisfiable { .. }) if !is_required => continue,
                Err(e) => return Err(e),
            };
            let kv = self.key_value(hint, name, &value)?;
            if is_required {
                required_kvs.push(kv);
            } else {
                optional_kvs.push(kv);
            }
        }
        for missing in required
            .iter()
            .filter(|r| !properties.is_some_and(|p| p.contains_key(**r)))
        {
            // A required name with no schema of its own: any value under it, unless the schema
            // forbids every name it does not declare (`additionalProperties: false` without
            // `patternProperties`, which may name it: validation decides those).
            let forbidden = map.get("additionalProperties") == Some(&Value::Bool(false))
                && !map.contains_key("patternProperties");
            if forbidden {
                return Err(unsatisfiable(
                    at,
                    &format!("{missing:?} is required but no property may be added"),
                ));
            }
            let value = self.primitive("value");
            required_kvs.push(self.key_value(hint, missing, &value)?);
        }
        let extra = match additional {
            None => None,
            Some(schema) => {
                let names: Vec<&str> = properties
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.as_str())
                    .chain(required.iter().copied())
                    .collect();
                Some(self.added_key_value(schema, &names, hint, at, depth)?)
            }
        };
        let body = self.object_body(hint, &required_kvs, &optional_kvs, extra.as_deref())?;
        self.rule(hint, body)
    }

    /// An object's body from its properties' rules: the required ones in order, then each
    /// optional one at most once in order, then added ones (`extra`) any number of times. With
    /// none required, any optional one (or an added one) may come first. What may follow the
    /// i-th optional property is one rule (`…-rest-i`), so the grammar grows with the number of
    /// properties, not with its square.
    fn object_body(
        &mut self,
        hint: &str,
        required: &[String],
        optional: &[String],
        extra: Option<&str>,
    ) -> Result<String, GbnfError> {
        let comma = "\",\" space";
        let extras = extra.map(|e| format!("({comma} {e})*")).unwrap_or_default();
        // rest[i]: what may follow once the optional properties before i are decided.
        let mut rest = vec![String::new(); optional.len() + 1];
        rest[optional.len()].clone_from(&extras);
        for i in (0..optional.len()).rev() {
            let body = format!("({comma} {})? {}", optional[i], rest[i + 1]);
            rest[i] = self.rule(&format!("{hint}-rest-{i}"), body.trim_end().to_owned())?;
        }
        let mut body = "\"{\" space ".to_owned();
        if required.is_empty() {
            let mut starts: Vec<String> = optional
                .iter()
                .enumerate()
                .map(|(i, kv)| format!("{kv} {}", rest[i + 1]).trim_end().to_owned())
                .collect();
            if let Some(e) = extra {
                starts.push(format!("{e} {extras}").trim_end().to_owned());
            }
            if !starts.is_empty() {
                let _ = write!(body, "({})? ", starts.join(" | "));
            }
        } else {
            body.push_str(&required.join(&format!(" {comma} ")));
            if !rest[0].is_empty() {
                let _ = write!(body, " {}", rest[0]);
            }
            body.push(' ');
        }
        body.push_str("space \"}\"");
        Ok(body)
    }

    /// The rule of one named property: its key, then its value.
    fn key_value(&mut self, hint: &str, name: &str, value: &str) -> Result<String, GbnfError> {
        self.rule(
            &format!("{hint}-{name}-kv"),
            format!("{} space \":\" space {value}", literal(&Value::from(name))),
        )
    }

    /// The rule of an added property: any key but `names`, then a value of `schema`.
    fn added_key_value(
        &mut self,
        schema: &Value,
        names: &[&str],
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        let value = self.visit(
            schema,
            &format!("{hint}-additional"),
            &format!("{at}/additionalProperties"),
            depth + 1,
        )?;
        let key = match other_than(names) {
            Some(body) => {
                self.primitive("char");
                self.rule(&format!("{hint}-additional-k"), body)?
            }
            None => self.primitive("string"),
        };
        self.rule(
            &format!("{hint}-additional-kv"),
            format!("{key} space \":\" space {value}"),
        )
    }

    fn array(
        &mut self,
        map: &Map<String, Value>,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> Result<String, GbnfError> {
        let space = self.primitive("space");
        let comma = format!("\",\" {space}");
        let tuple = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(t)), _) | (None, Some(Value::Array(t))) => Some(t),
            (Some(_), _) => return Err(invalid(at, "prefixItems is not a list")),
            _ => None,
        };
        if let Some(tuple) = tuple {
            let mut parts = Vec::with_capacity(tuple.len());
            for (i, item) in tuple.iter().enumerate() {
                parts.push(self.visit(
                    item,
                    &format!("{hint}-{i}"),
                    &format!("{at}/prefixItems/{i}"),
                    depth + 1,
                )?);
            }
            let body = format!(
                "\"[\" {space} {} {space} \"]\"",
                parts.join(&format!(" {comma} "))
            );
            return self.rule(hint, body);
        }
        let min = count(map, "minItems", at)?.unwrap_or(0);
        let max = count(map, "maxItems", at)?;
        if max.is_some_and(|max| min > max) {
            return Err(unsatisfiable(at, "minItems above maxItems"));
        }
        let item = match map.get("items") {
            None => self.primitive("value"),
            Some(items) => self.visit(
                items,
                &format!("{hint}-item"),
                &format!("{at}/items"),
                depth + 1,
            )?,
        };
        let item = self.atom(&format!("{hint}-item"), item)?;
        let min = if min > MAX_REPETITION { 0 } else { min };
        let max = max.filter(|&m| m <= MAX_REPETITION);
        let inner = match (min, max) {
            (_, Some(0)) => String::new(),
            (0, max) => format!(
                "({item} {})?",
                repeat(&format!("({comma} {item})"), 0, max.map(|m| m - 1))
            ),
            (min, max) => format!(
                "{item} {}",
                repeat(&format!("({comma} {item})"), min - 1, max.map(|m| m - 1))
            ),
        };
        self.rule(hint, format!("\"[\" {space} {inner} {space} \"]\""))
    }

    /// `expr` as a single symbol: itself when it is one, else a rule.
    fn atom(&mut self, hint: &str, expr: String) -> Result<String, GbnfError> {
        if is_symbol(&expr) {
            Ok(expr)
        } else {
            self.rule(hint, expr)
        }
    }

    /// A rule with `body`, named after `hint` (or the existing rule with the same body).
    fn rule(&mut self, hint: &str, body: String) -> Result<String, GbnfError> {
        if let Some(name) = self.by_body.get(&body) {
            return Ok(name.clone());
        }
        let name = self.reserve(hint);
        self.by_body.insert(body.clone(), name.clone());
        self.define(&name, body)?;
        Ok(name)
    }

    /// A fresh rule name from `hint` (letters, digits and dashes), not yet defined.
    fn reserve(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        while base.contains("--") {
            base = base.replace("--", "-");
        }
        let base = base.trim_matches('-');
        let base = if base.is_empty() || base == "root" {
            "r"
        } else {
            base
        };
        // Long hints (deep property paths) are cut; the counter keeps names apart.
        let base: String = base.chars().take(48).collect();
        let reserved = |n: &str| PRIMITIVES.iter().any(|(p, _, _)| *p == n);
        let mut name = base.clone();
        let mut i = 1;
        while self.names.contains(&name) || reserved(&name) {
            name = format!("{base}-{i}");
            i += 1;
        }
        self.names.insert(name.clone());
        name
    }

    fn define(&mut self, name: &str, body: String) -> Result<(), GbnfError> {
        self.bytes += name.len() + body.len() + 6;
        if self.bytes > MAX_GRAMMAR_BYTES {
            return Err(GbnfError::TooLarge(format!(
                "the grammar would exceed {MAX_GRAMMAR_BYTES} bytes"
            )));
        }
        self.names.insert(name.to_owned());
        self.rules.push((name.to_owned(), body));
        Ok(())
    }

    /// The primitive rule `name` (and those it uses), defined once.
    fn primitive(&mut self, name: &str) -> String {
        if !self.names.contains(name)
            && let Some((n, body, deps)) = PRIMITIVES.iter().find(|(n, _, _)| *n == name)
        {
            self.names.insert((*n).to_owned());
            self.rules.push(((*n).to_owned(), (*body).to_owned()));
            self.bytes += n.len() + body.len() + 6;
            for dep in *deps {
                self.primitive(dep);
            }
        }
        name.to_owned()
    }
}

/// A JSON string other than each of `names` (an added property must not repeat a named one),
/// or `None` when a name holds a character that JSON escapes (then any key: validation decides).
fn other_than(names: &[&str]) -> Option<String> {
    #[derive(Default)]
    struct Node {
        end: bool,
        children: std::collections::BTreeMap<char, Node>,
    }
    fn expr(node: &Node) -> String {
        let mut alternatives: Vec<String> = node
            .children
            .iter()
            .map(|(c, child)| format!("{} {}", literal_text(&c.to_string()), expr(child)))
            .collect();
        let taken: String = node.children.keys().map(|&c| class_char(c)).collect();
        alternatives.push(format!(r#"[^"\\\x7F\x00-\x1F{taken}] char*"#));
        alternatives.push(r#"[\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4}) char*"#.to_owned());
        let group = format!("({})", alternatives.join(" | "));
        if node.end { group } else { format!("{group}?") }
    }
    let mut root = Node::default();
    for name in names {
        if name
            .chars()
            .any(|c| c == '"' || c == '\\' || c.is_control())
        {
            return None;
        }
        let mut node = &mut root;
        for c in name.chars() {
            node = node.children.entry(c).or_default();
        }
        node.end = true;
    }
    Some(format!(r#""\"" {} "\"""#, expr(&root)))
}

/// `c` inside a GBNF character class.
fn class_char(c: char) -> String {
    match c {
        // llama.cpp's grammar parser knows these escapes (not `\^`, which is literal here:
        // never first in the class).
        ']' | '[' | '\\' | '-' => format!("\\{c}"),
        c => c.to_string(),
    }
}

/// `exprs` as one expression.
fn alternatives(exprs: Vec<String>) -> String {
    if exprs.len() == 1 {
        exprs.into_iter().next().unwrap_or_default()
    } else {
        format!("({})", exprs.join(" | "))
    }
}

/// `item` repeated `min` to `max` times (`None`: no upper bound).
fn repeat(item: &str, min: u64, max: Option<u64>) -> String {
    match (min, max) {
        (0, Some(0)) => String::new(),
        (0, Some(1)) => format!("{item}?"),
        (0, None) => format!("{item}*"),
        (1, None) => format!("{item}+"),
        (m, None) => format!("{item}{{{m},}}"),
        (m, Some(n)) if m == n => format!("{item}{{{m}}}"),
        (m, Some(n)) => format!("{item}{{{m},{n}}}"),
    }
}

/// The grammar literal of a JSON value: its JSON text, quoted for GBNF.
fn literal(value: &Value) -> String {
    literal_text(&value.to_string())
}

/// `text` as a GBNF literal.
fn literal_text(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 2);
    out.push('"');
    for c in json.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether a schema allows every value (`true`, `{}` or only annotations).
fn is_any(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m.keys().all(|k| ANNOTATIONS.contains(&k.as_str())),
        _ => false,
    }
}

fn is_symbol(expr: &str) -> bool {
    !expr.is_empty() && expr.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The tighter of a bound's inclusive and exclusive forms (`exclusiveMinimum` as a number, or
/// draft 4's boolean beside `minimum`), and whether it is exclusive.
#[derive(Clone, Copy)]
enum Side {
    Lower,
    Upper,
}

fn bound(map: &Map<String, Value>, side: Side) -> Option<(f64, bool)> {
    let (inclusive, exclusive) = match side {
        Side::Lower => ("minimum", "exclusiveMinimum"),
        Side::Upper => ("maximum", "exclusiveMaximum"),
    };
    let inc = map.get(inclusive).and_then(Value::as_f64);
    match map.get(exclusive) {
        Some(Value::Number(n)) => {
            let x = n.as_f64()?;
            let inclusive_is_tighter = |i: f64| match side {
                Side::Lower => i > x,
                Side::Upper => i < x,
            };
            Some(match inc {
                Some(i) if inclusive_is_tighter(i) => (i, false),
                _ => (x, true),
            })
        }
        Some(Value::Bool(true)) => inc.map(|i| (i, true)),
        _ => inc.map(|i| (i, false)),
    }
}

/// A non-negative count keyword (`minItems` …).
fn count(map: &Map<String, Value>, key: &str, at: &str) -> Result<Option<u64>, GbnfError> {
    match map.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|x| *x >= 0.0 && x.fract() == 0.0 && *x < 1e18)
                    .map(|x| x as u64)
            })
            .map(Some)
            .ok_or_else(|| invalid(at, &format!("{key} is not a non-negative integer"))),
    }
}

fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn invalid(at: &str, reason: &str) -> GbnfError {
    GbnfError::Invalid {
        at: pointer_or_root(at),
        reason: reason.to_owned(),
    }
}

fn unsatisfiable(at: &str, reason: &str) -> GbnfError {
    GbnfError::Unsatisfiable {
        at: pointer_or_root(at),
        reason: reason.to_owned(),
    }
}

fn pointer_or_root(at: &str) -> String {
    if at.is_empty() {
        "the schema".to_owned()
    } else {
        format!("#{at}")
    }
}
