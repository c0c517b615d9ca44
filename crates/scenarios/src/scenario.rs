//! One point of a scenario space: its parameters and its stable id.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One scenario: a full assignment of parameters.
///
/// `id` depends only on `params` (see [`Scenario::id_for`]), never on the order of axes or
/// values in the file, nor on `index`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Stable id: the first 16 hex digits of blake3 over the canonical JSON of `params`.
    pub id: String,
    /// Position in the unfiltered space (mixed-radix index); informative only.
    pub index: u64,
    /// Every parameter, fixed fields included, keyed by name (sorted).
    pub params: BTreeMap<String, Value>,
}

impl Scenario {
    /// Builds a scenario, computing its id from `params`.
    #[must_use]
    pub fn new(index: u64, params: BTreeMap<String, Value>) -> Self {
        let id = Self::id_for(&params);
        Self { id, index, params }
    }

    /// The id rule: blake3 of the canonical JSON (object keys sorted recursively, no whitespace)
    /// of the parameter map, first 16 hex digits.
    #[must_use]
    pub fn id_for(params: &BTreeMap<String, Value>) -> String {
        let mut buf = Vec::with_capacity(256);
        buf.push(b'{');
        for (i, (k, v)) in params.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            write_canonical(&Value::String(k.clone()), &mut buf);
            buf.push(b':');
            write_canonical(v, &mut buf);
        }
        buf.push(b'}');
        let hash = blake3::hash(&buf);
        hash.to_hex()[..16].to_string()
    }

    /// A parameter as a string (strings as they are, other values as compact JSON).
    #[must_use]
    pub fn param_str(&self, key: &str) -> Option<String> {
        self.params.get(key).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }
}

/// Writes `v` as JSON with object keys sorted recursively, whatever serde_json's map order is
/// (`preserve_order` may be on through feature unification).
pub fn write_canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(&Value::String((*k).clone()), out);
                out.push(b':');
                write_canonical(&map[*k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
    }
}
