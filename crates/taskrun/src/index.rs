//! Which task this process runs: the index a scheduler hands out in its environment, and the
//! array specs (`3,7-9`) that name tasks to resubmit.

use super::TaskRunError;
use super::manifest::RunDir;

/// The environment variables read for `--task auto`, in order: Slurm job arrays, Kubernetes
/// Indexed Jobs, AWS Batch array jobs, Cloud Run jobs. All are 0-based (a Slurm array is
/// submitted as `--array=0-(T-1)`).
pub const TASK_INDEX_VARS: &[&str] = &[
    "SLURM_ARRAY_TASK_ID",
    "JOB_COMPLETION_INDEX",
    "AWS_BATCH_JOB_ARRAY_INDEX",
    "CLOUD_RUN_TASK_INDEX",
];

/// Why no task index could be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// None of [`TASK_INDEX_VARS`] is set.
    #[error(
        "--task auto found no task index: none of {} is set (run it as a Slurm array task, a \
         Kubernetes Indexed Job pod, an AWS Batch array job or a Cloud Run job task, or pass \
         --task N)",
        TASK_INDEX_VARS.join(", ")
    )]
    NotSet,
    /// A variable is set but is not a non-negative integer.
    #[error("{var}={value:?} is not a task index (a non-negative integer)")]
    NotANumber {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
    },
}

/// The task index from the first of [`TASK_INDEX_VARS`] that `get` finds set (`get` is
/// `std::env::var` in the binary; tests pass a map).
///
/// # Errors
/// [`IndexError`] when none is set or the first set one is not a number.
pub fn task_index_from_env(
    get: impl Fn(&str) -> Option<String>,
) -> Result<(u64, &'static str), IndexError> {
    for &var in TASK_INDEX_VARS {
        if let Some(value) = get(var).filter(|v| !v.trim().is_empty()) {
            return value
                .trim()
                .parse::<u64>()
                .map(|n| (n, var))
                .map_err(|_| IndexError::NotANumber { var, value });
        }
    }
    Err(IndexError::NotSet)
}

/// The task a `--task` flag names in `run`: a 0-based number, or `auto` from the scheduler's
/// environment (`get` is `std::env::var` in the binary).
///
/// # Errors
/// [`TaskRunError::Refused`] for a missing or unreadable flag or environment, or an index
/// outside the plan.
pub fn task_from_flag(
    run: &RunDir,
    flag: Option<&str>,
    get: impl Fn(&str) -> Option<String>,
) -> Result<u32, TaskRunError> {
    let index = match flag.map(str::trim) {
        None => {
            return Err(TaskRunError::Refused(format!(
                "{} is a run directory: pass --task N (0 to {}) or --task auto",
                run.root().display(),
                run.manifest().tasks - 1
            )));
        }
        Some("auto") => {
            let (index, var) =
                task_index_from_env(get).map_err(|e| TaskRunError::Refused(e.to_string()))?;
            tracing::info!(index, var, "task index from the scheduler");
            index
        }
        Some(n) => n.parse::<u64>().map_err(|_| {
            TaskRunError::Refused(format!(
                "--task {n:?} is not a task index: pass a number or `auto`"
            ))
        })?,
    };
    run.task(index)
}

/// `indices` (sorted or not, duplicates allowed) as a scheduler array spec: runs of consecutive
/// indices become ranges, `[3, 7, 8, 9]` → `3,7-9`. Empty for no index.
#[must_use]
pub fn array_spec(indices: &[u32]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn the_first_scheduler_variable_set_wins() {
        let env: HashMap<&str, &str> =
            HashMap::from([("JOB_COMPLETION_INDEX", "7"), ("CLOUD_RUN_TASK_INDEX", "2")]);
        let get = |k: &str| env.get(k).map(|v| (*v).to_owned());
        assert_eq!(task_index_from_env(get), Ok((7, "JOB_COMPLETION_INDEX")));
        assert_eq!(task_index_from_env(|_| None), Err(IndexError::NotSet));
        let message = IndexError::NotSet.to_string();
        for var in TASK_INDEX_VARS {
            assert!(message.contains(var), "{message}");
        }
        let bad = task_index_from_env(|k| (k == "SLURM_ARRAY_TASK_ID").then(|| "x1".to_owned()));
        assert!(matches!(bad, Err(IndexError::NotANumber { .. })));
    }

    #[test]
    fn array_specs_fold_runs() {
        assert_eq!(array_spec(&[]), "");
        assert_eq!(array_spec(&[3]), "3");
        assert_eq!(array_spec(&[9, 3, 7, 8, 8]), "3,7-9");
        assert_eq!(array_spec(&[0, 1, 2, 4, 6, 7]), "0-2,4,6-7");
    }
}
