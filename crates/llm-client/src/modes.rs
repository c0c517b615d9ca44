//! The structured-output mode that works per endpoint and model, learnt by the client's
//! negotiation and remembered — for the client's lifetime, and across runs when the caller names
//! a file ([`crate::ClientConfig::modes_file`]).
//!
//! The file is small JSON (`{"version": 1, "modes": [{endpoint, model, mode, reason}]}`), keyed
//! by the endpoint as [`stdx::redact_url`] shows it, so no credential in a base URL is ever
//! written. It is re-read and merged before every write and replaced atomically, so runs sharing
//! it never tear it; a file that cannot be read is reported (`tracing` warning) and ignored — the
//! worst case is one negotiation more. Deleting the file, or forcing a mode, undoes a lesson.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::structured::StructuredMode;

/// Version of the modes file this code writes and reads.
const FILE_VERSION: u32 = 1;

/// One remembered mode, as stored in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    endpoint: String,
    model: String,
    mode: StructuredMode,
    /// Why this mode was settled on (the server's rejection of the better one), for humans.
    #[serde(default)]
    reason: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ModesFile {
    version: u32,
    modes: Vec<Entry>,
}

type Key = (String, String);

/// Remembered modes: memory first, the file (if any) behind it.
#[derive(Debug)]
pub(crate) struct ModeMemory {
    file: Option<PathBuf>,
    known: Mutex<BTreeMap<Key, Entry>>,
    /// Serialises this process's read-merge-write of the file.
    writing: Mutex<()>,
}

impl ModeMemory {
    /// Memory seeded from `file` when it exists and reads.
    pub(crate) fn load(file: Option<PathBuf>) -> Self {
        let known = file.as_deref().map(read_file).unwrap_or_default();
        Self {
            file,
            known: Mutex::new(known),
            writing: Mutex::new(()),
        }
    }

    /// The mode remembered for `model` at `base_url`.
    pub(crate) fn get(&self, base_url: &str, model: &str) -> Option<StructuredMode> {
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key(base_url, model))
            .map(|e| e.mode)
    }

    /// Remembers `mode` for `model` at `base_url`; `persist` also writes it to the file (only
    /// lessons the server stated, not guesses, are kept across runs).
    pub(crate) fn learn(
        &self,
        base_url: &str,
        model: &str,
        mode: StructuredMode,
        reason: &str,
        persist: bool,
    ) {
        let k = key(base_url, model);
        let entry = Entry {
            endpoint: k.0.clone(),
            model: k.1.clone(),
            mode,
            reason: stdx::redact_urls_in(reason),
        };
        {
            let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
            if known.get(&k) == Some(&entry) {
                return;
            }
            known.insert(k.clone(), entry.clone());
        }
        let Some(path) = self.file.as_deref().filter(|_| persist) else {
            return;
        };
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let mut on_disk = read_file(path);
        on_disk.insert(k, entry);
        let file = ModesFile {
            version: FILE_VERSION,
            modes: on_disk.into_values().collect(),
        };
        let written = stdx::write_atomic(path, |w| {
            serde_json::to_writer_pretty(&mut *w, &file)?;
            w.write_all(b"\n")
        });
        match written {
            Ok(()) => {
                tracing::info!(path = %path.display(), model, mode = mode.as_str(), "structured mode remembered");
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "could not write the structured modes file");
            }
        }
    }
}

/// The key of `model` at `endpoint`: one base URL, or a fleet's identity (its URLs, sorted,
/// joined by spaces: modes are remembered per fleet of identical servers), each URL redacted.
fn key(endpoint: &str, model: &str) -> Key {
    let redacted: Vec<String> = endpoint
        .split(' ')
        .map(|url| stdx::redact_url(url.trim_end_matches('/')))
        .collect();
    (redacted.join(" "), model.to_owned())
}

/// The file's entries; a missing file is empty, an unreadable one is empty with a warning.
fn read_file(path: &Path) -> BTreeMap<Key, Entry> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeMap::new(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "structured modes file unreadable; negotiating again");
            return BTreeMap::new();
        }
    };
    match serde_json::from_str::<ModesFile>(&text) {
        Ok(file) if file.version == FILE_VERSION => file
            .modes
            .into_iter()
            .map(|e| ((e.endpoint.clone(), e.model.clone()), e))
            .collect(),
        Ok(file) => {
            tracing::warn!(path = %path.display(), version = file.version, "structured modes file of another version; negotiating again");
            BTreeMap::new()
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "structured modes file is not valid; negotiating again");
            BTreeMap::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lessons_persist_across_instances_and_hide_credentials() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modes.json");
        let url = "http://user:secret@localhost:8080/v1?api-key=sk-123";
        let first = ModeMemory::load(Some(path.clone()));
        assert_eq!(first.get(url, "m"), None);
        first.learn(
            url,
            "m",
            StructuredMode::JsonObject,
            "500: response_format unsupported",
            true,
        );
        first.learn(url, "guess", StructuredMode::Prompt, "opaque 500", false);
        assert_eq!(first.get(url, "guess"), Some(StructuredMode::Prompt));

        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("secret") && !text.contains("sk-123"),
            "{text}"
        );
        let second = ModeMemory::load(Some(path));
        assert_eq!(
            second.get(&format!("{url}/"), "m"),
            Some(StructuredMode::JsonObject)
        );
        assert_eq!(second.get(url, "guess"), None, "guesses are not persisted");
    }

    #[test]
    fn a_fleet_is_one_key_with_every_url_redacted() {
        let memory = ModeMemory::load(None);
        let fleet = "http://a/v1?api-key=sk-1 http://u:pw@b/v1";
        memory.learn(fleet, "m", StructuredMode::JsonObject, "422", false);
        assert_eq!(memory.get(fleet, "m"), Some(StructuredMode::JsonObject));
        assert_eq!(memory.get("http://a/v1?api-key=sk-1", "m"), None);
        let (endpoint, _) = key(fleet, "m");
        assert_eq!(
            endpoint,
            "http://a/v1?api-key=[redacted] http://[redacted]@b/v1"
        );
    }

    #[test]
    fn a_broken_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modes.json");
        std::fs::write(&path, "{not json").unwrap();
        let memory = ModeMemory::load(Some(path.clone()));
        assert_eq!(memory.get("http://x/v1", "m"), None);
        memory.learn("http://x/v1", "m", StructuredMode::ToolCall, "422", true);
        assert_eq!(
            ModeMemory::load(Some(path)).get("http://x/v1", "m"),
            Some(StructuredMode::ToolCall)
        );
    }
}
