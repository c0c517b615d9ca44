//! Record/replay of real exchanges as fixture files, and the [`Replay`] model that serves them.
//!
//! A recording holds the neutral request, every HTTP exchange made to answer it (URL, headers
//! with credentials redacted, wire bodies, status) and the final [`ChatResponse`]. Files are named
//! by the replay key (the canonical request without the endpoint), so a recording made against a
//! fake server on a random port replays anywhere. Credentials never reach the file: the auth
//! header is recorded only as `[redacted]`, configured headers whose names look like secrets are
//! redacted too, and bodies are passed through the same key scrubber as error messages.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cache::replay_key;
use crate::{ChatModel, ChatRequest, ChatResponse, LlmError};

/// One HTTP request/response pair of a recorded call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// Full request URL.
    pub url: String,
    /// Request headers, credentials shown as `[redacted]`.
    pub headers: BTreeMap<String, String>,
    /// Wire request body.
    pub request: Value,
    /// HTTP status, `None` when the request failed before a response (timeout, connect error).
    pub status: Option<u16>,
    /// Wire response body (JSON when it parsed, else the text).
    pub response: Value,
}

/// A recorded call: what was asked, what went over the wire, what the client answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Replay key of `request` (see [`crate::replay_key`]).
    pub key: String,
    /// The neutral request.
    pub request: ChatRequest,
    /// Every HTTP exchange made for it, in order.
    pub exchanges: Vec<Exchange>,
    /// The final response returned to the caller.
    pub response: ChatResponse,
}

/// Whether a header carries a credential and must not be written anywhere.
pub(crate) fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["authorization", "key", "token", "secret", "cookie", "auth"]
        .iter()
        .any(|s| n.contains(s))
}

/// Writes recordings into a directory.
#[derive(Debug)]
pub(crate) struct Recorder {
    dir: PathBuf,
}

impl Recorder {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Writes `recording` as pretty JSON (keys in canonical order, so files diff cleanly).
    pub(crate) async fn write(&self, recording: &Recording) -> Result<(), LlmError> {
        let value = serde_json::to_value(recording).map_err(|e| LlmError::Cache(e.to_string()))?;
        let sorted: Value = serde_json::from_str(&crate::cache::canonical_json(&value))
            .map_err(|e| LlmError::Cache(e.to_string()))?;
        let mut text =
            serde_json::to_string_pretty(&sorted).map_err(|e| LlmError::Cache(e.to_string()))?;
        text.push('\n');
        tokio::fs::create_dir_all(&self.dir)
            .await
            .map_err(|e| LlmError::Cache(format!("creating record dir: {e}")))?;
        let path = self.dir.join(format!("{}.json", recording.key));
        tokio::fs::write(&path, text)
            .await
            .map_err(|e| LlmError::Cache(format!("writing recording: {e}")))?;
        tracing::debug!(path = %path.display(), "recorded exchange");
        Ok(())
    }
}

/// A [`ChatModel`] that answers from recordings, for offline tests.
#[derive(Debug, Clone)]
pub struct Replay {
    responses: HashMap<String, ChatResponse>,
}

impl Replay {
    /// Loads every `*.json` recording in `dir`.
    ///
    /// # Errors
    /// [`LlmError::Config`] when the directory or a file cannot be read or parsed.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Self, LlmError> {
        let dir = dir.as_ref();
        let entries = std::fs::read_dir(dir)
            .map_err(|e| LlmError::Config(format!("reading {}: {e}", dir.display())))?;
        let mut responses = HashMap::new();
        for entry in entries {
            let path = entry.map_err(|e| LlmError::Config(e.to_string()))?.path();
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| LlmError::Config(format!("reading {}: {e}", path.display())))?;
            let rec: Recording = serde_json::from_str(&text).map_err(|e| {
                LlmError::Config(format!("{} is not a recording: {e}", path.display()))
            })?;
            responses.insert(rec.key, rec.response);
        }
        Ok(Self { responses })
    }

    /// Number of recordings loaded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.responses.len()
    }

    /// True when no recordings were found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.responses.is_empty()
    }
}

impl ChatModel for Replay {
    fn chat(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        let key = replay_key(&req);
        let found = self.responses.get(&key).cloned();
        Box::pin(async move {
            found.ok_or_else(|| {
                LlmError::Config(format!(
                    "no recording for request {key} (model {}); re-record the fixtures",
                    req.model
                ))
            })
        })
    }
}
