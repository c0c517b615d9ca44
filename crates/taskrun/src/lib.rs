//! A run split into a fixed set of tasks that an existing scheduler hands out (Slurm job arrays,
//! Kubernetes Indexed Jobs, AWS Batch and Cloud Run array jobs), over one shared directory:
//!
//! ```text
//! RUN_DIR/
//!   manifest.json          the plan: config hash, scenario count, task count (create-only)
//!   config-<hash>.<ext>    the config, copied: every task reads the same bytes
//!   parts/N.jsonl          task N's records (its checkpoint too), locked while written
//!   done/N.json            task N's completion marker (create-only), written after its part
//!   attempts/N/<id>.json   what each attempt at task N paid, records or not
//! ```
//!
//! Task `N` (0-based) runs shard `N+1/T` of the planned selection, so the tasks are disjoint
//! and together cover it. The protocol's invariants:
//!
//! - **A marker is the only proof of a finished task.** It is created only after every one of
//!   the task's scenarios has a record in its part, and never overwritten (a hard link, which
//!   fails when the name exists), so two copies of one task cannot both claim it. It carries the
//!   part's totals (records, an order-independent hash of the ids, tokens, cost), computed from
//!   the part itself, so `merge` can check a part was not changed after its marker.
//! - **One writer per part**: the output lock of [`runlog::lock`]. A second copy of a
//!   running task is refused; a copy started after the marker exits at once.
//! - **Relaunching runs only what is missing**: a task without a marker resumes its part (the
//!   checkpoint skips finished scenarios and the response cache serves answered calls).
//!
//! - [`manifest`]: the plan, created once, and the run directory's paths.
//! - [`marker`]: completion markers and a part's totals.
//! - [`index`]: the task index from the scheduler's environment, and array specs (`3,7-9`).
//! - [`status`]: what is done, running, stale and missing.
//! - [`merge`]: one output from the marked parts, streamed and checked against the markers.
//! - [`launch`]: the sbatch script and the Kubernetes Indexed Job that run the tasks.
//! - `spend.rs`: each attempt's spend ledger (`attempts/N/<attempt>.json`), so spend that left
//!   no record is still counted.
//! - [`store`]: where the run directory lives — a path, or an object store (`s3://`, `gs://`,
//!   `az://`; `remote.rs`, feature `object-store`) — and the operations that differ there.

#[cfg(feature = "object-store")]
mod carry;
pub mod index;
pub mod launch;
pub mod manifest;
pub mod marker;
pub mod merge;
#[cfg(feature = "object-store")]
mod remote;
mod spend;
pub mod status;
pub mod store;

pub use index::{IndexError, TASK_INDEX_VARS, array_spec, task_from_flag, task_index_from_env};
pub use launch::{LaunchOptions, k8s_job, slurm_script};
pub use manifest::{Manifest, Planned, RunDir, plan_config};
pub use marker::{IdsHash, Marker, PartTotals, finish_task, part_totals};
pub use merge::{MergeReport, merge_run};
pub use spend::SpendLedger;
pub use status::{RunStatus, TaskState};
pub use store::{refuse_url, url_scheme};

/// How a task's start went ([`RunDir::begin_task`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStart {
    /// The task is this copy's to run.
    Started,
    /// Another copy held the task and finished it while this copy waited: nothing to do.
    DoneByAnother,
}

use std::path::PathBuf;

/// Why a run directory could not be planned, read, run or merged.
#[derive(Debug, thiserror::Error)]
pub enum TaskRunError {
    /// An I/O error on a path of the run directory.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A manifest or marker that is not what this version writes.
    #[error("{path}: not a valid {what}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// `manifest` or `marker`.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The directory was planned with another config or task layout.
    #[error("{dir} was planned with a different {difference}; a run directory holds one plan")]
    PlannedOtherwise {
        /// The run directory.
        dir: PathBuf,
        /// What differs, e.g. `config (hash 1a2b… vs 3c4d…)`.
        difference: String,
    },
    /// The config copy in the run directory does not hash to the manifest's hash.
    #[error("{path} was changed after the run was planned (hash {found}, planned {planned})")]
    ConfigChanged {
        /// The config copy.
        path: PathBuf,
        /// Its hash now.
        found: String,
        /// The manifest's.
        planned: String,
    },
    /// A task index outside the plan.
    #[error("task {task} is out of range: the run has {tasks} task(s), numbered 0 to {last}")]
    TaskOutOfRange {
        /// The index asked for.
        task: u64,
        /// The plan's task count.
        tasks: u32,
        /// The last index.
        last: u32,
    },
    /// `merge` found tasks without a marker.
    #[error("{missing} of {tasks} task(s) have no completion marker: {spec}")]
    Incomplete {
        /// How many.
        missing: usize,
        /// The plan's task count.
        tasks: u32,
        /// The missing indices as an array spec.
        spec: String,
    },
    /// The request cannot be honoured as given (a flag or setting the plan fixes, a bad index).
    #[error("{0}")]
    Refused(String),
    /// This copy was told to stop (a signal) while it waited as a standby for another copy's
    /// lease: nothing was run.
    #[error("task {0} was stopped while it waited for another copy's lease: nothing was run")]
    Stopped(u32),
    /// The run's budget is spent over its tasks: the task does not start.
    #[error("{0}")]
    BudgetSpent(String),
    /// A task's part does not hold all of its scenarios, so no marker is written.
    #[error(
        "task {task}'s part holds {records} record(s) but the task has {scenarios} scenario(s); \
         no marker written. Fewer: run the task again (failed scenarios run again). More: the \
         part (or, on an object store, `checkpoints/{task}.jsonl`) holds lines that are not this \
         task's; remove it and run the task again"
    )]
    Unfinished {
        /// The task.
        task: u32,
        /// Records in its part.
        records: u64,
        /// Scenarios of the task.
        scenarios: u64,
    },
    /// An object store refused or failed a request (the message never holds credentials).
    #[error("{location}: {reason}")]
    Store {
        /// The URL of the object or run directory.
        location: String,
        /// The store's error, URLs redacted.
        reason: String,
        /// Whether it is the user's (no bucket or object, credentials refused, a bad option)
        /// rather than the network's or the service's.
        input: bool,
    },
    /// A task's marker that cannot be trusted: `run` refuses the task until it is removed.
    #[error("{marker}: {reason}\nhint: remove it to run task {task} again")]
    StaleMarker {
        /// The marker's path or URL.
        marker: String,
        /// The task.
        task: u32,
        /// Why.
        reason: String,
    },
    /// A part does not match its marker.
    #[error("{path} does not match its marker {marker}: {reason}")]
    PartMismatch {
        /// The part.
        path: PathBuf,
        /// The marker.
        marker: PathBuf,
        /// What differs.
        reason: String,
    },
}

impl TaskRunError {
    /// Whether the error is the user's input (a plan, an index, a run directory that does not
    /// hold what it should) rather than the machine's (I/O).
    #[must_use]
    pub fn is_input(&self) -> bool {
        match self {
            // A file of the run directory that is not there is the directory's state, not the
            // machine's failure.
            Self::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            Self::Unfinished { .. } | Self::Stopped(_) | Self::BudgetSpent(_) => false,
            Self::Store { input, .. } => *input,
            _ => true,
        }
    }
}

/// `io_err(path)(e)`: an I/O error on `path`.
pub(crate) fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TaskRunError + '_ {
    move |source| TaskRunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Whether `path` (which need not exist) lies inside `dir`, links resolved as far as they exist
/// (the output lock's resolution, [`runlog::lock::canonical`]).
pub(crate) fn inside(dir: &std::path::Path, path: &std::path::Path) -> bool {
    use runlog::lock::canonical;
    canonical(path).starts_with(canonical(dir))
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Writes `bytes` to `path` only if no file has that name, atomically: the bytes go to a unique
/// temporary file first, which is then hard-linked to `path` (the link fails when `path` exists,
/// on local disks and on NFS alike). Returns whether this call created it.
pub(crate) fn create_only(path: &std::path::Path, bytes: &[u8]) -> Result<bool, TaskRunError> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io_err(dir))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(io_err(tmp.path()))?;
    // Readable by every user of a shared run directory, like the parts (a temporary file is
    // created 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(io_err(tmp.path()))?;
    }
    let created = match std::fs::hard_link(tmp.path(), path) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(io_err(path)(e)),
    };
    // Dropping the temporary file removes its name; the linked name keeps the content.
    drop(tmp);
    Ok(created)
}
