//! Completion markers (`done/N.json`) and the totals of a part they record.

use std::io::BufRead as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{TaskRunError, create_only, io_err, unix_now};
use runlog::record::DEFAULT_MAX_LINE_BYTES;

/// An order-independent hash of a set of ids: the wrapping sum of each id's blake3 (first 16
/// bytes), so a part's ids can be hashed in one pass in any order and compared with a marker's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IdsHash(u128);

impl IdsHash {
    /// Adds one id.
    pub fn add(&mut self, id: &str) {
        let digest = blake3::hash(id.as_bytes());
        let mut low = [0u8; 16];
        low.copy_from_slice(&digest.as_bytes()[..16]);
        self.0 = self.0.wrapping_add(u128::from_le_bytes(low));
    }

    /// Combines two disjoint sets' hashes.
    #[must_use]
    pub fn combine(self, other: Self) -> Self {
        Self(self.0.wrapping_add(other.0))
    }

    /// As 32 hex digits.
    #[must_use]
    pub fn to_hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

/// What a part holds, counted from its lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartTotals {
    /// Records.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// The ids' hash.
    pub ids: IdsHash,
    /// Prompt tokens over the records.
    pub prompt_tokens: u64,
    /// Completion tokens over the records.
    pub completion_tokens: u64,
    /// Cost in USD over the records.
    pub cost_usd: f64,
    /// blake3 of the part's record lines, in order (hex): any edit of a record changes it.
    pub content_hash: String,
}

/// The fields of a record a part's totals need.
#[derive(Deserialize)]
struct PartLine {
    id: String,
    #[serde(default)]
    accepted: bool,
    #[serde(default)]
    usage: PartUsage,
    #[serde(default)]
    cost_usd: f64,
}

/// The token counts of a record's `usage`.
#[derive(Default, Deserialize)]
struct PartUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// Reads a part once, streaming (memory: one line), and calls `each` with every line's bytes
/// (without its newline) after counting it.
///
/// # Errors
/// An unreadable file, or a line that is not a record (located).
pub fn scan_part(
    path: &Path,
    each: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<PartTotals, TaskRunError> {
    scan(path, false, each)
}

/// The totals of a part that may still be written, or was left by a killed task: a torn last
/// line or a line that is not a record is skipped, not an error.
///
/// # Errors
/// An unreadable file.
pub fn partial_totals(path: &Path) -> Result<PartTotals, TaskRunError> {
    scan(path, true, |_| Ok(()))
}

fn scan(
    path: &Path,
    lenient: bool,
    mut each: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<PartTotals, TaskRunError> {
    let file = std::fs::File::open(path).map_err(io_err(path))?;
    let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
    let mut totals = PartTotals::default();
    let mut content = blake3::Hasher::new();
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        number += 1;
        let n = std::io::Read::take(&mut reader, DEFAULT_MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(io_err(path))?;
        if n == 0 {
            totals.content_hash = content.finalize().to_hex().to_string();
            return Ok(totals);
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let invalid = |reason: String| TaskRunError::Invalid {
            path: path.to_path_buf(),
            what: "part",
            reason: format!("line {number}: {reason}"),
        };
        if !line.ends_with(b"\n") {
            if lenient {
                continue;
            }
            return Err(invalid(
                "the last line is cut short (the task did not finish writing it)".into(),
            ));
        }
        let record: PartLine = match serde_json::from_slice(text) {
            Ok(r) => r,
            Err(_) if lenient => continue,
            Err(e) => return Err(invalid(format!("not a record: {e}"))),
        };
        totals.records += 1;
        totals.accepted += u64::from(record.accepted);
        totals.ids.add(&record.id);
        totals.prompt_tokens += record.usage.prompt_tokens;
        totals.completion_tokens += record.usage.completion_tokens;
        totals.cost_usd += record.cost_usd;
        content.update(text);
        content.update(b"\n");
        each(text).map_err(io_err(path))?;
    }
}

/// The totals of a part.
///
/// # Errors
/// As [`scan_part`].
pub fn part_totals(path: &Path) -> Result<PartTotals, TaskRunError> {
    scan_part(path, |_| Ok(()))
}

/// A task's completion marker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// The plan it belongs to: the manifest's config hash.
    pub config_hash: String,
    /// The plan's task count.
    pub tasks: u32,
    /// The task.
    pub task: u32,
    /// Records in its part.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// [`IdsHash`] of the part's ids, hex.
    pub ids_hash: String,
    /// [`PartTotals::content_hash`] of the part.
    pub content_hash: String,
    /// Prompt tokens of the part's records.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Cost in USD.
    pub cost_usd: f64,
    /// When the task's first process started on it (Unix seconds, from the part's lock file
    /// when known, else this process's start).
    pub started_unix: u64,
    /// When the marker was written.
    pub finished_unix: u64,
    /// The host and pid that wrote it.
    pub written_by: String,
    /// The engine version.
    pub engine_version: String,
    /// The part it vouches for, relative to the run directory, when it is not
    /// `parts/{task}.jsonl`: on an object store, `parts/{task}/{attempt}.jsonl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
}

impl Marker {
    /// A marker for `task` from its part's totals.
    #[must_use]
    pub fn new(
        manifest: &super::Manifest,
        task: u32,
        totals: &PartTotals,
        started_unix: u64,
        written_by: String,
    ) -> Self {
        Self {
            config_hash: manifest.config_hash.clone(),
            tasks: manifest.tasks,
            task,
            records: totals.records,
            accepted: totals.accepted,
            ids_hash: totals.ids.to_hex(),
            content_hash: totals.content_hash.clone(),
            prompt_tokens: totals.prompt_tokens,
            completion_tokens: totals.completion_tokens,
            cost_usd: totals.cost_usd,
            started_unix,
            finished_unix: unix_now(),
            written_by,
            engine_version: env!("CARGO_PKG_VERSION").to_owned(),
            part: None,
        }
    }

    /// A marker's bytes, read from `path` (a path or a URL).
    ///
    /// # Errors
    /// [`TaskRunError::Invalid`].
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self, TaskRunError> {
        serde_json::from_slice(bytes).map_err(|e| TaskRunError::Invalid {
            path: path.to_path_buf(),
            what: "marker",
            reason: e.to_string(),
        })
    }

    /// Writes the marker only if none exists; returns whether this call wrote it.
    ///
    /// # Errors
    /// An I/O error.
    pub fn create(&self, path: &Path) -> Result<bool, TaskRunError> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| TaskRunError::Invalid {
            path: path.to_path_buf(),
            what: "marker",
            reason: e.to_string(),
        })?;
        create_only(path, &text)
    }

    /// Reads a marker; `None` when there is none.
    ///
    /// # Errors
    /// An unreadable or invalid marker.
    pub fn read(path: &Path) -> Result<Option<Self>, TaskRunError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(path)(e)),
        };
        Self::parse(&bytes, path).map(Some)
    }

    /// Whether `totals` are what this marker recorded; the first difference otherwise.
    #[must_use]
    pub fn mismatch(&self, totals: &PartTotals) -> Option<String> {
        if self.records != totals.records {
            return Some(format!(
                "{} record(s), the marker says {}",
                totals.records, self.records
            ));
        }
        if self.ids_hash != totals.ids.to_hex() {
            return Some("its ids are not the ones the marker recorded".into());
        }
        if self.content_hash != totals.content_hash {
            return Some("its records were changed after the marker was written".into());
        }
        None
    }

    /// Why this marker, found as `done/{task}.json`, does not belong to `manifest`'s plan.
    #[must_use]
    pub fn foreign_to(&self, manifest: &super::Manifest, task: u32) -> Option<String> {
        if self.config_hash != manifest.config_hash || self.tasks != manifest.tasks {
            return Some(format!(
                "it was written for another plan ({} task(s), config {}…)",
                self.tasks,
                &self.config_hash[..self.config_hash.len().min(12)]
            ));
        }
        if self.task != task {
            return Some(format!(
                "it names task {} in the file of task {task}",
                self.task
            ));
        }
        let expected = manifest.task_scenarios(task);
        (self.records != expected).then(|| {
            format!(
                "it counts {} record(s), the task has {expected} scenario(s)",
                self.records
            )
        })
    }
}

/// Writes task `task`'s marker once its part holds every one of its scenarios; returns the
/// marker and whether this call created it (`false`: another copy marked it meanwhile).
///
/// # Errors
/// [`TaskRunError::Unfinished`] when the part is short, or an unreadable part.
pub fn finish_task(
    run: &super::RunDir,
    task: u32,
    started_unix: u64,
) -> Result<(Marker, bool), TaskRunError> {
    let part = run.part_path(task);
    // The records reach the disk before the marker that vouches for them.
    std::fs::File::open(&part)
        .and_then(|f| f.sync_all())
        .map_err(io_err(&part))?;
    let totals = part_totals(&part)?;
    let scenarios = run.manifest().task_scenarios(task);
    if totals.records != scenarios {
        return Err(TaskRunError::Unfinished {
            task,
            records: totals.records,
            scenarios,
        });
    }
    let writer = format!(
        "pid {} on {}",
        std::process::id(),
        runlog::lock::host_name()
    );
    let marker = Marker::new(run.manifest(), task, &totals, started_unix, writer);
    #[cfg(feature = "object-store")]
    if let Some(remote) = run.remote_store() {
        let mut marker = marker;
        let created = remote.publish(task, &part, |name| {
            marker.part = Some(name.to_owned());
            serde_json::to_vec_pretty(&marker).map_err(|e| TaskRunError::Invalid {
                path: part.clone(),
                what: "marker",
                reason: e.to_string(),
            })
        })?;
        return Ok((marker, created));
    }
    let created = marker.create(&run.marker_path(task))?;
    Ok((marker, created))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_hash_ignores_order_and_sees_a_swap() {
        let mut a = IdsHash::default();
        let mut b = IdsHash::default();
        for id in ["x", "y", "z"] {
            a.add(id);
        }
        for id in ["z", "x", "y"] {
            b.add(id);
        }
        assert_eq!(a, b);
        let mut c = IdsHash::default();
        for id in ["x", "y", "y"] {
            c.add(id);
        }
        assert_ne!(a, c);
    }

    #[test]
    fn a_marker_is_written_once_and_checks_its_part() {
        let dir = tempfile::tempdir().expect("tmp");
        let part = dir.path().join("0.jsonl");
        std::fs::write(
            &part,
            "{\"id\":\"a\",\"score\":9,\"accepted\":true,\"cost_usd\":0.5,\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}\n{\"id\":\"b\",\"score\":3,\"accepted\":false}\n",
        )
        .expect("part");
        let totals = part_totals(&part).expect("totals");
        assert_eq!((totals.records, totals.accepted), (2, 1));
        assert_eq!(totals.prompt_tokens, 10);
        let manifest = super::super::Manifest::new("h".repeat(64), "yaml", 2, 1, None, 0);
        let marker = Marker::new(&manifest, 0, &totals, 1, "test".into());
        let path = dir.path().join("0.json");
        assert!(marker.create(&path).expect("create"));
        let other = Marker::new(&manifest, 0, &PartTotals::default(), 1, "racer".into());
        assert_eq!(marker.foreign_to(&manifest, 0), None);
        assert!(
            marker.foreign_to(&manifest, 1).is_some(),
            "another task's file"
        );
        assert!(!other.create(&path).expect("second"), "create-only");
        let read = Marker::read(&path).expect("read").expect("present");
        assert_eq!(read.written_by, "test");
        assert_eq!(read.mismatch(&totals), None);
        std::fs::write(&part, "{\"id\":\"a\",\"score\":9,\"accepted\":true}\n{\"id\":\"c\",\"score\":1,\"accepted\":false}\n").expect("edit");
        assert!(read.mismatch(&part_totals(&part).expect("t")).is_some());
        // A torn last line is an error, not a shorter part.
        std::fs::write(
            &part,
            "{\"id\":\"a\",\"score\":9,\"accepted\":true}\n{\"id\":",
        )
        .expect("torn");
        assert!(part_totals(&part).is_err());
    }
}
