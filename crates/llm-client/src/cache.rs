//! Canonical request keys and the on-disk, content-addressed response cache.
//!
//! Keys are blake3 hashes of a canonical JSON rendering with object keys sorted recursively by
//! hand: `serde_json::Map` iterates in insertion order whenever any crate in the graph enables
//! `serde_json/preserve_order`, so plain `to_vec` would make keys depend on feature unification.
//! Entries live at `dir/ab/abcdef….json`; writes go to a unique temporary file renamed into
//! place, so concurrent tasks never observe a torn entry and the last writer wins harmlessly
//! (equal keys hold equivalent responses). Only successful responses are ever stored.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::{ChatRequest, ChatResponse, LlmError, ProviderKind};

/// Renders `value` as JSON with every object's keys sorted, independent of `preserve_order`.
#[must_use]
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// blake3 of the canonical rendering.
pub(crate) fn canonical_hash(value: &Value) -> [u8; 32] {
    *blake3::hash(canonical_json(value).as_bytes()).as_bytes()
}

/// The parts of a request that determine the reply (not `no_cache`, which only steers caching).
fn request_identity(req: &ChatRequest) -> Value {
    json!({
        "model": req.model,
        "messages": req.messages,
        "temperature": req.temperature,
        "max_tokens": req.max_tokens,
        "seed": req.seed,
        "schema": req.output_schema,
        "tools": req.tools,
        "tool_choice": req.tool_choice,
        "extra": req.extra,
    })
}

/// Cache key: the request identity plus the endpoint it was sent to, as 64 hex digits.
#[must_use]
pub fn cache_key(base_url: &str, kind: ProviderKind, req: &ChatRequest) -> String {
    let mut identity = request_identity(req);
    identity["base_url"] = Value::String(base_url.trim_end_matches('/').to_owned());
    identity["provider"] = Value::String(kind.as_str().to_owned());
    blake3::hash(canonical_json(&identity).as_bytes())
        .to_hex()
        .to_string()
}

/// Replay key: the request identity only, so recordings replay whatever port or host they were
/// made against.
#[must_use]
pub fn replay_key(req: &ChatRequest) -> String {
    blake3::hash(canonical_json(&request_identity(req)).as_bytes())
        .to_hex()
        .to_string()
}

/// A directory of cached responses.
#[derive(Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    fn path_of(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The cached response, if any. A corrupt entry counts as a miss (and is overwritten later).
    pub(crate) async fn get(&self, key: &str) -> Option<ChatResponse> {
        self.get_any(key).await
    }

    /// The cached value of any type (a chat response, an embedding response), if any.
    pub(crate) async fn get_any<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let path = self.path_of(key);
        let bytes = tokio::fs::read(&path).await.ok()?;
        match serde_json::from_slice(&bytes) {
            Ok(resp) => Some(resp),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "ignoring unreadable cache entry");
                None
            }
        }
    }

    /// Stores `resp` under `key` atomically.
    pub(crate) async fn put(&self, key: &str, resp: &ChatResponse) -> Result<(), LlmError> {
        self.put_any(key, resp).await
    }

    /// Stores a value of any type under `key` atomically.
    pub(crate) async fn put_any<T: serde::Serialize>(
        &self,
        key: &str,
        resp: &T,
    ) -> Result<(), LlmError> {
        let path = self.path_of(key);
        let bytes = serde_json::to_vec_pretty(resp).map_err(|e| LlmError::Cache(e.to_string()))?;
        tokio::task::spawn_blocking(move || {
            stdx::write_atomic(&path, |w| std::io::Write::write_all(w, &bytes))
        })
        .await
        .map_err(|e| LlmError::Cache(e.to_string()))?
        .map_err(|e| LlmError::Cache(format!("writing cache entry: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[test]
    fn canonical_json_sorts_keys_recursively() {
        let a: Value =
            serde_json::from_str(r#"{"b": {"y": 1, "x": [ {"d": 1, "c": 2} ]}, "a": null}"#)
                .expect("json");
        assert_eq!(
            canonical_json(&a),
            r#"{"a":null,"b":{"x":[{"c":2,"d":1}],"y":1}}"#
        );
    }

    #[test]
    fn keys_depend_on_endpoint_and_content_not_on_no_cache() {
        let mut req = ChatRequest::new("m", vec![Message::user("hi")]);
        let k1 = cache_key("http://a/v1", ProviderKind::OpenAi, &req);
        assert_eq!(k1, cache_key("http://a/v1/", ProviderKind::OpenAi, &req));
        assert_ne!(k1, cache_key("http://b/v1", ProviderKind::OpenAi, &req));
        assert_ne!(k1, cache_key("http://a/v1", ProviderKind::Anthropic, &req));
        req.no_cache = true;
        assert_eq!(k1, cache_key("http://a/v1", ProviderKind::OpenAi, &req));
        req.temperature = Some(0.5);
        assert_ne!(k1, cache_key("http://a/v1", ProviderKind::OpenAi, &req));
        assert_eq!(k1.len(), 64);
    }

    #[tokio::test]
    async fn disk_cache_round_trips_and_misses_cleanly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = DiskCache::new(dir.path().to_path_buf());
        let key = "ab".repeat(32);
        assert!(cache.get(&key).await.is_none());
        let resp = ChatResponse {
            content: "hello".into(),
            model: "m".into(),
            ..ChatResponse::default()
        };
        cache.put(&key, &resp).await.expect("put");
        assert_eq!(cache.get(&key).await, Some(resp));
        assert!(dir.path().join("ab").join(format!("{key}.json")).is_file());
    }
}
