//! Canonical request keys and the on-disk, content-addressed response cache.
//!
//! Keys are blake3 hashes of a canonical JSON rendering with object keys sorted recursively by
//! hand: `serde_json::Map` iterates in insertion order whenever any crate in the graph enables
//! `serde_json/preserve_order`, so plain `to_vec` would make keys depend on feature unification.
//! Entries live at `dir/ab/abcdef….json`; writes go to a unique temporary file renamed into
//! place, so concurrent tasks never observe a torn entry and the last writer wins harmlessly
//! (equal keys hold equivalent responses). Only successful responses are ever stored.
//!
//! A cache may also keep a **journal** (`ClientConfig::cache_journal`): one JSON line per
//! response stored for a request with an affinity (the pipeline's scenario id), `{"scenario",
//! "key", "sum", "response"}`, appended as responses arrive and read back into the cache when
//! the next client starts. A task whose working folder does not outlive it (a run directory on
//! an object store) carries the journal beside its checkpoint, so a rerun does not pay again for
//! the answered calls of its unfinished scenarios. A line is used only when its `sum` (blake3 of
//! the key and the response's canonical JSON) matches and its key is a key: a torn, corrupt or
//! edited line is skipped (its call is paid again), never believed. A line of another config is
//! harmless: its key, which holds the endpoint, model and every sampling setting, is never asked.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// A directory of cached responses, and the journal of those stored, when there is one.
#[derive(Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    journal: Option<Arc<Mutex<std::fs::File>>>,
}

/// The checksum of a journal line: blake3 of the key and the canonical response, hex.
/// The longest journal line read back (16 MiB): a response larger than that is paid again
/// rather than held in memory, whatever a corrupt or hostile journal holds.
const MAX_JOURNAL_LINE: usize = 16 * 1024 * 1024;

/// What [`read_bounded_line`] read.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its newline) is in the buffer.
    Whole,
    /// The line was longer than the bound: it was read past and dropped, the buffer is empty.
    TooLong,
    /// Nothing left.
    End,
}

/// Reads one `\n`-ended line into `buf`, holding at most `max` bytes of it; a longer line is
/// consumed to its end and dropped, so memory stays bounded by `max`.
fn read_bounded_line(
    reader: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Whole,
            });
        }
        any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take + usize::from(done));
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

fn journal_sum(key: &str, response: &Value) -> String {
    let mut h = blake3::Hasher::new();
    h.update(key.as_bytes());
    h.update(b"\n");
    h.update(canonical_json(response).as_bytes());
    h.finalize().to_hex().to_string()
}

/// A journal line's key and response when the line is whole and its checksum holds.
fn journal_entry(line: &str) -> Option<(String, Value)> {
    let mut v: Value = serde_json::from_str(line).ok()?;
    let key = v.get("key")?.as_str()?.to_owned();
    let sum = v.get("sum")?.as_str()?.to_owned();
    let response = v.get_mut("response")?.take();
    let is_key = key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit());
    (is_key && sum == journal_sum(&key, &response)).then_some((key, response))
}

impl DiskCache {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir, journal: None }
    }

    /// A cache that also journals what it stores to `journal`, after reading back the entries
    /// an earlier process journaled there. A journal that cannot be opened is left out (the
    /// cache works, a rerun pays again), with a warning.
    pub(crate) fn with_journal(dir: PathBuf, journal: &Path) -> Self {
        let mut cache = Self::new(dir);
        let (restored, skipped) = cache.restore(journal);
        if restored + skipped > 0 {
            tracing::info!(journal = %journal.display(), restored, skipped, "response cache restored from its journal");
        }
        if skipped > 0 {
            tracing::warn!(journal = %journal.display(), skipped, "journal lines unreadable or failing their checksum: ignored (their calls are paid again)");
        }
        let file = journal
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(journal)
            });
        match file {
            Ok(f) => cache.journal = Some(Arc::new(Mutex::new(f))),
            Err(e) => {
                tracing::warn!(journal = %journal.display(), error = %e, "response journal not kept");
            }
        }
        cache
    }

    /// Writes the journal's good entries into the directory: (restored, skipped lines).
    fn restore(&self, journal: &Path) -> (u64, u64) {
        let Ok(file) = std::fs::File::open(journal) else {
            return (0, 0);
        };
        let (mut restored, mut skipped) = (0, 0);
        let mut reader = std::io::BufReader::new(file);
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_bounded_line(&mut reader, &mut line, MAX_JOURNAL_LINE) {
                Ok(Line::End) => break,
                Ok(Line::Whole) => {}
                // Longer than any response kept: skipped without holding it (a re-pay at most).
                Ok(Line::TooLong) => {
                    skipped += 1;
                    continue;
                }
                Err(_) => {
                    skipped += 1;
                    break;
                }
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let entry = std::str::from_utf8(&line).ok().and_then(journal_entry);
            let Some((key, response)) = entry else {
                skipped += 1;
                continue;
            };
            let path = self.path_of(&key);
            let bytes = serde_json::to_vec_pretty(&response).unwrap_or_default();
            match stdx::write_atomic(&path, |w| w.write_all(&bytes)) {
                Ok(()) => restored += 1,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "journal entry not restored");
                    skipped += 1;
                }
            }
        }
        (restored, skipped)
    }

    /// Appends `resp`, stored under `key` for `scenario`, to the journal (one write of one
    /// line, so a reader sees whole lines or a torn last one).
    async fn journal(&self, scenario: &str, key: &str, resp: Value) -> Result<(), LlmError> {
        let Some(file) = self.journal.clone() else {
            return Ok(());
        };
        let mut line = serde_json::json!({
            "scenario": scenario,
            "key": key,
            "sum": journal_sum(key, &resp),
            "response": resp,
        })
        .to_string();
        line.push('\n');
        tokio::task::spawn_blocking(move || {
            let mut f = file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            f.write_all(line.as_bytes())
        })
        .await
        .map_err(|e| LlmError::Cache(e.to_string()))?
        .map_err(|e| LlmError::Cache(format!("writing the cache journal: {e}")))
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

    /// Stores `resp` under `key` atomically, and journals it under `scenario` when the cache
    /// keeps a journal and the request named one.
    pub(crate) async fn put(
        &self,
        key: &str,
        resp: &ChatResponse,
        scenario: Option<&str>,
    ) -> Result<(), LlmError> {
        self.put_any(key, resp).await?;
        match scenario {
            Some(scenario) if self.journal.is_some() => {
                let value =
                    serde_json::to_value(resp).map_err(|e| LlmError::Cache(e.to_string()))?;
                self.journal(scenario, key, value).await
            }
            _ => Ok(()),
        }
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
        cache.put(&key, &resp, None).await.expect("put");
        assert_eq!(cache.get(&key).await, Some(resp));
        assert!(dir.path().join("ab").join(format!("{key}.json")).is_file());
    }

    fn response(text: &str) -> ChatResponse {
        ChatResponse {
            content: text.into(),
            model: "m".into(),
            cost_usd: Some(0.001_25),
            ..ChatResponse::default()
        }
    }

    #[test]
    fn a_journal_line_longer_than_the_bound_is_skipped_without_being_held() {
        let text = format!("short\n{}\nnext\nlast", "x".repeat(100));
        let mut reader = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        loop {
            buf.clear();
            match read_bounded_line(&mut reader, &mut buf, 10).expect("read") {
                Line::End => break,
                Line::TooLong => {
                    assert!(buf.is_empty(), "nothing of a long line is held");
                    seen.push("<too long>".to_owned());
                }
                Line::Whole => seen.push(String::from_utf8(buf.clone()).expect("utf8")),
            }
        }
        assert_eq!(seen, ["short", "<too long>", "next", "last"]);
    }

    #[tokio::test]
    async fn a_journal_carries_responses_to_the_next_cache_and_skips_bad_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let journal = dir.path().join("task.cache.jsonl");
        let (k1, k2, k3) = ("a1".repeat(32), "b2".repeat(32), "c3".repeat(32));
        let first = DiskCache::with_journal(dir.path().join("one"), &journal);
        first
            .put(&k1, &response("one"), Some("s1"))
            .await
            .expect("put");
        first
            .put(&k2, &response("two"), Some("s2"))
            .await
            .expect("put");
        // No scenario: cached, not journaled.
        first.put(&k3, &response("three"), None).await.expect("put");
        drop(first);
        let text = std::fs::read_to_string(&journal).expect("journal");
        assert_eq!(text.lines().count(), 2, "{text}");
        // Corrupt the second line's response (same length, so its JSON stays valid), then
        // append a torn line and a line whose key is not a key.
        let corrupt = text.replacen("\"two\"", "\"twx\"", 1);
        let forged = serde_json::json!({"scenario": "s9", "key": "../../etc", "sum": journal_sum("../../etc", &Value::Null), "response": null});
        std::fs::write(
            &journal,
            format!("{corrupt}{forged}\n{{\"scenario\":\"s3\",\"ke"),
        )
        .expect("write");

        let second = DiskCache::with_journal(dir.path().join("two"), &journal);
        let back: Option<ChatResponse> = second.get(&k1).await;
        assert_eq!(
            back,
            Some(response("one")),
            "a good line is restored exactly"
        );
        assert_eq!(
            second.get(&k2).await,
            None,
            "a line failing its checksum is ignored"
        );
        assert_eq!(
            second.get(&k3).await,
            None,
            "an unjournaled response stays behind"
        );
        assert!(!dir.path().join("etc").exists());
    }

    #[tokio::test]
    async fn a_journal_that_cannot_be_written_never_fails_the_cache() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The journal's path is a folder: it cannot be opened, the cache still works.
        let journal = dir.path().join("j");
        std::fs::create_dir(&journal).expect("dir");
        let cache = DiskCache::with_journal(dir.path().join("c"), &journal);
        let key = "d4".repeat(32);
        cache
            .put(&key, &response("x"), Some("s"))
            .await
            .expect("put");
        assert_eq!(cache.get(&key).await, Some(response("x")));
    }
}
