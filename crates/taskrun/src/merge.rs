//! One output from a finished run directory: only parts named by markers, each checked against
//! its marker while it is copied, streamed (memory: one line).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::manifest::RunDir;
use super::marker::{IdsHash, scan_part};
use super::{TaskRunError, index::array_spec};

/// What a merge wrote (also written beside the output as `<output>.manifest.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MergeReport {
    /// The run directory.
    pub run_dir: PathBuf,
    /// The plan's config hash.
    pub config_hash: String,
    /// Tasks merged (all of the plan's).
    pub tasks: u32,
    /// Records written.
    pub records: u64,
    /// Accepted records.
    pub accepted: u64,
    /// [`IdsHash`] of every record's id, hex.
    pub ids_hash: String,
    /// Cost in USD.
    pub cost_usd: f64,
    /// Prompt tokens over the records.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
}

impl MergeReport {
    /// One line for the terminal.
    #[must_use]
    pub fn summary(&self, into: &Path) -> String {
        format!(
            "merged {} task(s) of {} into {}: {} record(s), {} accepted, ${:.4}; manifest {}",
            self.tasks,
            self.run_dir.display(),
            into.display(),
            self.records,
            self.accepted,
            self.cost_usd,
            merge_manifest_path(into).display()
        )
    }
}

/// The merge manifest's path for `into`.
#[must_use]
pub fn merge_manifest_path(into: &Path) -> PathBuf {
    stdx::beside(into, ".manifest.json")
}

/// Merges every task's part of `run` into `into` (atomically: a temporary file renamed at the
/// end), in task order. Refused unless every task has a marker; a part that differs from its
/// marker (records, ids) fails the merge and leaves `into` untouched. The tasks are disjoint by
/// construction (shards of one selection), and each part holds each id once (its checkpoint),
/// which the markers' id hashes confirm.
///
/// # Errors
/// [`TaskRunError::Incomplete`], [`TaskRunError::PartMismatch`], or an I/O error.
pub fn merge_run(run: &RunDir, into: &Path) -> Result<MergeReport, TaskRunError> {
    let manifest = run.manifest();
    if super::inside(run.root(), into) {
        return Err(TaskRunError::Refused(format!(
            "--into {} is inside the run directory {}: merge into a file outside it (it would \
             overwrite a part, a marker or the plan)",
            into.display(),
            run.root().display()
        )));
    }
    let mut markers = Vec::with_capacity(manifest.tasks as usize);
    let mut missing = Vec::new();
    for task in 0..manifest.tasks {
        match run.read_marker(task)? {
            Some(m) => {
                if let Some(reason) = m.foreign_to(manifest, task) {
                    return Err(TaskRunError::Invalid {
                        path: PathBuf::from(run.marker_label(task)),
                        what: "marker of this plan",
                        reason: format!("{reason}; remove it and run task {task} again"),
                    });
                }
                markers.push(m);
            }
            None => missing.push(task),
        }
    }
    if !missing.is_empty() {
        return Err(TaskRunError::Incomplete {
            missing: missing.len(),
            tasks: manifest.tasks,
            spec: array_spec(&missing),
        });
    }
    // Each marker counts its task's share (checked above), so together they count the plan.
    let counted: u64 = markers.iter().map(|m| m.records).sum();
    if counted != manifest.scenarios {
        return Err(TaskRunError::Refused(format!(
            "the markers count {counted} record(s), the plan {} scenario(s); nothing merged",
            manifest.scenarios
        )));
    }
    let mut report = MergeReport {
        run_dir: PathBuf::from(run.location()),
        config_hash: manifest.config_hash.clone(),
        tasks: manifest.tasks,
        records: 0,
        accepted: 0,
        ids_hash: String::new(),
        cost_usd: 0.0,
        prompt_tokens: 0,
        completion_tokens: 0,
    };
    let mut ids = IdsHash::default();
    let mut failure: Option<TaskRunError> = None;
    let written = stdx::write_atomic(into, |out| {
        for marker in &markers {
            let part = match run.fetch_part(marker) {
                Ok(p) => p,
                Err(e) => {
                    failure = Some(e);
                    return Err(std::io::Error::other("part unreadable"));
                }
            };
            let totals = match scan_part(part.path(), |line| {
                out.write_all(line)?;
                out.write_all(b"\n")
            }) {
                Ok(t) => t,
                Err(e) => {
                    failure = Some(e);
                    return Err(std::io::Error::other("part unreadable"));
                }
            };
            if let Some(reason) = marker.mismatch(&totals) {
                failure = Some(TaskRunError::PartMismatch {
                    path: PathBuf::from(run.part_label(marker)),
                    marker: PathBuf::from(run.marker_label(marker.task)),
                    reason,
                });
                return Err(std::io::Error::other("part differs from its marker"));
            }
            report.records += totals.records;
            report.accepted += totals.accepted;
            report.prompt_tokens += totals.prompt_tokens;
            report.completion_tokens += totals.completion_tokens;
            report.cost_usd += totals.cost_usd;
            ids = ids.combine(totals.ids);
        }
        Ok(())
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written.map_err(|e| TaskRunError::Io {
        path: into.to_path_buf(),
        source: e,
    })?;
    report.ids_hash = ids.to_hex();
    let text = serde_json::to_vec_pretty(&report).map_err(|e| TaskRunError::Invalid {
        path: into.to_path_buf(),
        what: "merge manifest",
        reason: e.to_string(),
    })?;
    let manifest_path = merge_manifest_path(into);
    std::fs::write(&manifest_path, text).map_err(|e| TaskRunError::Io {
        path: manifest_path,
        source: e,
    })?;
    tracing::info!(into = %into.display(), records = report.records, "merged the run directory");
    Ok(report)
}
