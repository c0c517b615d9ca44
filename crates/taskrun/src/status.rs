//! What a run directory holds: each task done, running, stale or missing, and the totals.

use super::index::array_spec;
use super::manifest::RunDir;
use super::marker::Marker;
use super::{TaskRunError, unix_now};

/// One task's state.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    /// Its marker exists.
    Done(Marker),
    /// A process holds its part's lock.
    Running {
        /// The lock's holder line (`pid 12 on node-3 since unix time …`).
        holder: String,
        /// Records in its part so far.
        records: u64,
        /// Their cost so far.
        cost_usd: f64,
    },
    /// It has a part but no marker and no process: killed, preempted, or failed.
    Stale {
        /// Records in its part.
        records: u64,
        /// Their cost.
        cost_usd: f64,
    },
    /// On an object store: a checkpoint and no marker. Its task is running, or was stopped
    /// (a store has no lock to tell which); resubmitting it is safe either way.
    Checkpointed {
        /// Records in its checkpoint.
        records: u64,
        /// Their cost.
        cost_usd: f64,
        /// Seconds since the checkpoint was uploaded.
        age_secs: u64,
    },
    /// Never started.
    Missing,
    /// Its marker cannot be trusted: unreadable, written for another plan, or its part is gone.
    /// Resubmitting does not help until the marker is removed.
    Broken {
        /// Why, with what to do.
        reason: String,
    },
}

/// A task and its state.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    /// The index.
    pub task: u32,
    /// Scenarios it runs.
    pub scenarios: u64,
    /// Its state.
    pub state: TaskState,
    /// What its attempts paid, by their ledgers (`spend.rs`): records or not.
    pub paid_usd: f64,
}

/// Spend below this (float noise between two sums of one spend) is none.
const NOISE_USD: f64 = 1e-6;

impl TaskStatus {
    /// The cost of its records (the marker's, or its part's so far).
    #[must_use]
    pub fn recorded_usd(&self) -> f64 {
        match &self.state {
            TaskState::Done(m) => m.cost_usd,
            TaskState::Running { cost_usd, .. }
            | TaskState::Stale { cost_usd, .. }
            | TaskState::Checkpointed { cost_usd, .. } => *cost_usd,
            TaskState::Missing | TaskState::Broken { .. } => 0.0,
        }
    }

    /// What its attempts paid beyond its records: failed scenarios, scenarios in flight when a
    /// copy was killed, a losing racer's part, calls a rerun took from the response cache.
    #[must_use]
    pub fn unrecorded_usd(&self) -> f64 {
        let extra = self.paid_usd - self.recorded_usd();
        if extra > NOISE_USD { extra } else { 0.0 }
    }
}

/// The state of every task of a run directory.
#[derive(Debug, Clone)]
pub struct RunStatus {
    /// Scenarios of the run.
    pub scenarios: u64,
    /// One entry per task, in order.
    pub tasks: Vec<TaskStatus>,
    /// When it was read (Unix seconds).
    pub read_unix: u64,
    /// Where `launch` writes the sbatch script ([`RunDir::launch_dir`]).
    pub launch_dir: std::path::PathBuf,
}

impl RunStatus {
    /// Reads every marker and lock of `run` (parts of unfinished tasks are counted, leniently:
    /// a task being written may end in half a line).
    ///
    /// # Errors
    /// An unreadable or invalid marker, or an unreadable part or lock.
    pub fn read(run: &RunDir) -> Result<Self, TaskRunError> {
        let manifest = run.manifest();
        let mut tasks = Vec::with_capacity(manifest.tasks as usize);
        for task in 0..manifest.tasks {
            let broken = |why: String| TaskState::Broken {
                reason: format!(
                    "{}: {why}; remove it and run task {task} again",
                    run.marker_label(task)
                ),
            };
            let state = match run.read_marker(task) {
                Err(e @ TaskRunError::Store { .. }) => return Err(e),
                Err(e) => broken(e.to_string()),
                Ok(Some(marker)) => match marker.foreign_to(manifest, task) {
                    Some(why) => broken(why),
                    None if !run.marked_part_exists(&marker)? => broken("its part is gone".into()),
                    None => TaskState::Done(marker),
                },
                Ok(None) => run.unfinished(task)?,
            };
            tasks.push(TaskStatus {
                task,
                scenarios: manifest.task_scenarios(task),
                state,
                paid_usd: run.attempts_spend(task)?,
            });
        }
        Ok(Self {
            scenarios: manifest.scenarios,
            tasks,
            read_unix: unix_now(),
            launch_dir: run.launch_dir(),
        })
    }

    fn count(&self, f: impl Fn(&TaskState) -> bool) -> usize {
        self.tasks.iter().filter(|t| f(&t.state)).count()
    }

    /// Tasks with a marker.
    #[must_use]
    pub fn done(&self) -> usize {
        self.count(|s| matches!(s, TaskState::Done(_)))
    }

    /// Tasks a process is running.
    #[must_use]
    pub fn running(&self) -> usize {
        self.count(|s| matches!(s, TaskState::Running { .. }))
    }

    /// Tasks started and left unfinished by a process that is gone (on an object store: with
    /// a checkpoint, which may still be running).
    #[must_use]
    pub fn stale(&self) -> usize {
        self.count(|s| matches!(s, TaskState::Stale { .. } | TaskState::Checkpointed { .. }))
    }

    /// Tasks never started.
    #[must_use]
    pub fn missing(&self) -> usize {
        self.count(|s| matches!(s, TaskState::Missing))
    }

    /// Tasks whose marker cannot be trusted.
    #[must_use]
    pub fn broken(&self) -> usize {
        self.count(|s| matches!(s, TaskState::Broken { .. }))
    }

    /// Whether every task has its marker.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.done() == self.tasks.len()
    }

    /// Records written: the markers' counts plus the records in unfinished parts.
    #[must_use]
    pub fn records(&self) -> u64 {
        self.tasks
            .iter()
            .map(|t| match &t.state {
                TaskState::Done(m) => m.records,
                TaskState::Running { records, .. }
                | TaskState::Stale { records, .. }
                | TaskState::Checkpointed { records, .. } => *records,
                TaskState::Missing | TaskState::Broken { .. } => 0,
            })
            .sum()
    }

    /// Spend so far, USD: the markers' plus the records in unfinished parts, plus what the
    /// tasks' attempts paid that left no record ([`Self::unrecorded_usd`]).
    #[must_use]
    pub fn spend_usd(&self) -> f64 {
        self.tasks
            .iter()
            .map(|t| t.recorded_usd() + t.unrecorded_usd())
            .sum()
    }

    /// Task `task`'s share of the run's `budget` (USD) when `workers` tasks run at once: what
    /// every task has spent comes off it, and each task may spend at most `1/workers` of it, so
    /// that many at once stay within it; with the line that says so. An error (not the user's
    /// input: exit 3) when the budget is spent.
    pub fn budget_share(
        &self,
        budget: f64,
        workers: u32,
        task: u32,
    ) -> (Result<f64, TaskRunError>, String) {
        let spent = self.spend_usd();
        let left = budget - spent;
        if left <= 0.0 {
            let said = format!(
                "the run's budget ${budget:.4} is spent (${spent:.4} over its tasks): task {task} does not start"
            );
            return (Err(TaskRunError::BudgetSpent(said.clone())), said);
        }
        let share = left.min(budget / f64::from(workers.max(1)));
        let said = format!(
            "budget: ${share:.4} for task {task} (the run's ${budget:.4}, ${spent:.4} spent)"
        );
        (Ok(share), said)
    }

    /// Spend that left no record, over every task ([`TaskStatus::unrecorded_usd`]).
    #[must_use]
    pub fn unrecorded_usd(&self) -> f64 {
        self.tasks.iter().map(TaskStatus::unrecorded_usd).sum()
    }

    /// Accepted records of finished tasks.
    #[must_use]
    pub fn accepted(&self) -> u64 {
        self.tasks
            .iter()
            .filter_map(|t| match &t.state {
                TaskState::Done(m) => Some(m.accepted),
                _ => None,
            })
            .sum()
    }

    /// The tasks to submit again: neither done nor running.
    #[must_use]
    pub fn to_resubmit(&self) -> Vec<u32> {
        self.tasks
            .iter()
            .filter(|t| {
                matches!(
                    t.state,
                    TaskState::Stale { .. } | TaskState::Checkpointed { .. } | TaskState::Missing
                )
            })
            .map(|t| t.task)
            .collect()
    }

    /// [`to_resubmit`](Self::to_resubmit) as an array spec (`3,7-9`).
    #[must_use]
    pub fn resubmit_spec(&self) -> String {
        array_spec(&self.to_resubmit())
    }

    /// Seconds until every scenario has a record at the rate seen since the first task started
    /// (markers' start times and running holders' `since`), if a rate can be seen.
    #[must_use]
    pub fn eta_secs(&self) -> Option<u64> {
        let started = self
            .tasks
            .iter()
            .filter_map(|t| match &t.state {
                TaskState::Done(m) => Some(m.started_unix),
                TaskState::Running { holder, .. } => holder
                    .split("since unix time ")
                    .nth(1)
                    .and_then(|s| s.trim().parse().ok()),
                _ => None,
            })
            .min()?;
        let elapsed = self.read_unix.saturating_sub(started).max(1);
        let records = self.records();
        if records == 0 || self.running() == 0 {
            return None;
        }
        let remaining = self.scenarios.saturating_sub(records);
        Some(remaining.saturating_mul(elapsed) / records)
    }
}

impl RunStatus {
    /// The status as one JSON object (`status --json`).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let per_task: Vec<serde_json::Value> = self
            .tasks
            .iter()
            .map(|t| {
                let (state, records, holder) = match &t.state {
                    TaskState::Done(m) => ("done", m.records, None),
                    TaskState::Running {
                        holder, records, ..
                    } => ("running", *records, Some(holder.as_str())),
                    TaskState::Stale { records, .. } => ("stale", *records, None),
                    TaskState::Checkpointed { records, .. } => ("checkpointed", *records, None),
                    TaskState::Missing => ("missing", 0, None),
                    TaskState::Broken { reason } => ("broken", 0, Some(reason.as_str())),
                };
                serde_json::json!({"task": t.task, "scenarios": t.scenarios, "state": state,
                                   "records": records, "holder": holder,
                                   "spend_usd": t.recorded_usd() + t.unrecorded_usd(),
                                   "unrecorded_usd": t.unrecorded_usd()})
            })
            .collect();
        serde_json::json!({
            "tasks": self.tasks.len(),
            "done": self.done(),
            "running": self.running(),
            "stale": self.stale(),
            "missing": self.missing(),
            "broken": self.broken(),
            "scenarios": self.scenarios,
            "records": self.records(),
            "accepted_in_done_tasks": self.accepted(),
            "spend_usd": self.spend_usd(),
            "unrecorded_usd": self.unrecorded_usd(),
            "eta_secs": self.eta_secs(),
            "resubmit": self.resubmit_spec(),
            "per_task": per_task,
        })
    }

    /// How to resubmit `spec`: with the launcher `launch` wrote (the sbatch script, else the
    /// Kubernetes Job), or, when `launch` was never run, by running the tasks.
    fn resubmit_hint(&self, spec: &str, dir: &std::path::Path) -> String {
        let sbatch = self.launch_dir.join("slurm.sbatch");
        let job = self.launch_dir.join("job.yaml");
        let written = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        // Both written: the one `launch` wrote last is the one in use.
        let use_sbatch = match (written(&sbatch), written(&job)) {
            (Some(s), Some(j)) => s >= j,
            (Some(_), None) => true,
            _ => false,
        };
        if use_sbatch {
            format!("sbatch --array={spec} {}", sbatch.display())
        } else if job.is_file() {
            format!(
                "kubectl delete -f {job} && kubectl apply -f {job}: done tasks exit at once",
                job = job.display()
            )
        } else {
            format!(
                "scenario-engine run {} --task N for each, or `scenario-engine launch` for a \
                 scheduler",
                dir.display()
            )
        }
    }

    /// The status as text for the terminal (`status`).
    #[must_use]
    pub fn render_text(&self, dir: &std::path::Path) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} task(s): {} done, {} running, {} stale, {} missing{}",
            dir.display(),
            self.tasks.len(),
            self.done(),
            self.running(),
            self.stale(),
            self.missing(),
            match self.broken() {
                0 => String::new(),
                n => format!(", {n} broken"),
            }
        );
        let eta = self.eta_secs().map_or(String::new(), |s| match s {
            s if s < 120 => format!("; ETA {s} s"),
            s if s < 7200 => format!("; ETA {} min", s / 60),
            s => format!("; ETA {:.1} h", s as f64 / 3600.0),
        });
        let unrecorded = match self.unrecorded_usd() {
            u if u > 0.0 => format!(" (${u:.4} of it by attempts that left no records)"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "records {} of {} scenario(s); spend ${:.4}{unrecorded}{eta}",
            self.records(),
            self.scenarios,
            self.spend_usd()
        );
        for t in &self.tasks {
            let _ = match &t.state {
                TaskState::Running {
                    holder, records, ..
                } => writeln!(
                    out,
                    "  task {}: running ({records}/{} records), {holder}",
                    t.task, t.scenarios
                ),
                TaskState::Stale { records, .. } => writeln!(
                    out,
                    "  task {}: stale ({records}/{} records, no process holds it: killed or failed)",
                    t.task, t.scenarios
                ),
                TaskState::Checkpointed {
                    records, age_secs, ..
                } => writeln!(
                    out,
                    "  task {}: checkpointed ({records}/{} records, uploaded {age_secs} s ago: \
                     running, or stopped)",
                    t.task, t.scenarios
                ),
                TaskState::Broken { reason } => {
                    writeln!(out, "  task {}: broken: {reason}", t.task)
                }
                _ => Ok(()),
            };
            if t.unrecorded_usd() > 0.0 {
                let _ = writeln!(
                    out,
                    "  task {}: ${:.4} paid by attempts that left no records (failed scenarios, \
                     copies killed or beaten to the marker)",
                    t.task,
                    t.unrecorded_usd()
                );
            }
        }
        let resubmit = self.resubmit_spec();
        let _ = if !resubmit.is_empty() {
            writeln!(
                out,
                "resubmit: {resubmit}   ({})",
                self.resubmit_hint(&resubmit, dir)
            )
        } else if self.is_complete() {
            writeln!(
                out,
                "complete: scenario-engine merge {} --into FILE",
                dir.display()
            )
        } else {
            Ok(())
        };
        out
    }
}
