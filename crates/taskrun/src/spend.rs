//! What each attempt at a task paid, so spend that left no record is still counted: a failed
//! scenario's calls, a killed copy's scenarios in flight, a losing racer's part, the answered
//! calls a rerun takes from the response cache (its records count them as free).
//!
//! ```text
//! RUN_DIR/attempts/N/<attempt>.json   {"attempt", "host", "pid", "spent_usd", "calls"}
//! ```
//!
//! A running task rewrites its own attempt's file (atomically; a plain overwrite on a store)
//! every checkpoint interval and at its end, so a copy killed at any moment leaves what it had
//! paid as of its last write. `status` sums a task's attempts: the spend that left no record is
//! that sum less the cost of the task's records (never below zero; attempts of a version that
//! kept no ledger count nothing). Files are tiny and one per attempt.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::{RunDir, TaskRunError};

/// The thread that keeps an attempt's ledger ([`RunDir::keep_spend_ledger`]); stopping it
/// (dropping it, or [`SpendLedger::finish`]) writes the last figure.
#[derive(Debug)]
pub struct SpendLedger {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SpendLedger {
    /// Writes the last figure and stops (blocking: one small write).
    pub fn finish(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for SpendLedger {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// The run directory's folder of attempt ledgers for `task`, relative to its root.
fn folder(task: u32) -> String {
    format!("attempts/{task}")
}

impl RunDir {
    /// Records that this process's attempt at `task` has paid `spent_usd` over `calls` calls
    /// so far (its whole spend, records or not), replacing its previous figure.
    ///
    /// # Errors
    /// The file or object cannot be written.
    pub fn record_spend(&self, task: u32, spent_usd: f64, calls: u64) -> Result<(), TaskRunError> {
        let rel = format!("{}/{}.json", folder(task), self.attempt());
        let body = serde_json::json!({
            "attempt": self.attempt(),
            "host": runlog::lock::host_name(),
            "pid": std::process::id(),
            "spent_usd": if spent_usd.is_finite() { spent_usd.max(0.0) } else { 0.0 },
            "calls": calls,
        })
        .to_string();
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            return remote.put(&rel, body.into_bytes());
        }
        let path = self.root().join(&rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(super::io_err(dir))?;
        }
        stdx::write_atomic(&path, |w| std::io::Write::write_all(w, body.as_bytes()))
            .map_err(super::io_err(&path))
    }

    /// Keeps this attempt's ledger for `task` on a thread of its own: `spent()` (USD, calls) is
    /// read every `every` and written when it changed, and once more when the ledger stops.
    /// A write that fails is a warning (the next one tries again).
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn keep_spend_ledger(
        &self,
        task: u32,
        every: Duration,
        spent: impl Fn() -> (f64, u64) + Send + 'static,
    ) -> Result<SpendLedger, TaskRunError> {
        let run = self.clone();
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("spend-{task}"))
            .spawn(move || {
                let mut last = None;
                loop {
                    let done = !matches!(
                        stopped.recv_timeout(every),
                        Err(mpsc::RecvTimeoutError::Timeout)
                    );
                    let now = spent();
                    if last != Some(now) {
                        match run.record_spend(task, now.0, now.1) {
                            Ok(()) => last = Some(now),
                            Err(e) => tracing::warn!(task, error = %e, "spend ledger not written"),
                        }
                    }
                    if done {
                        return;
                    }
                }
            })
            .map_err(super::io_err(self.root()))?;
        Ok(SpendLedger {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// What every attempt at `task` has paid, by their ledgers (0 when none kept one). A file
    /// that is not a ledger counts nothing, with a warning.
    ///
    /// # Errors
    /// The folder or a store listing cannot be read.
    pub fn attempts_spend(&self, task: u32) -> Result<f64, TaskRunError> {
        let mut bodies = Vec::new();
        #[cfg(feature = "object-store")]
        if let Some(remote) = self.remote_store() {
            for name in remote.list_names(&folder(task))? {
                bodies.push((name.clone(), remote.get(&name)?.unwrap_or_default()));
            }
            return Ok(sum(&bodies));
        }
        let dir = self.root().join(folder(task));
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0.0),
            Err(e) => return Err(super::io_err(&dir)(e)),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "json") {
                let body = std::fs::read(&path).unwrap_or_default();
                bodies.push((show(&path), body));
            }
        }
        Ok(sum(&bodies))
    }
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

/// The `spent_usd` of each ledger, summed; one that is not a ledger counts nothing.
fn sum(bodies: &[(String, Vec<u8>)]) -> f64 {
    bodies
        .iter()
        .map(|(name, body)| {
            let spent = serde_json::from_slice::<serde_json::Value>(body)
                .ok()
                .and_then(|v| v.get("spent_usd")?.as_f64())
                .filter(|s| s.is_finite() && *s >= 0.0);
            spent.unwrap_or_else(|| {
                tracing::warn!(file = %name, "not an attempt's spend ledger: counted as nothing");
                0.0
            })
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_add_up_and_a_rewrite_replaces_an_attempts_figure() {
        let dir = tempfile::tempdir().expect("tmp");
        let manifest =
            crate::Manifest::new(crate::manifest::config_hash(b"c"), "yaml", 4, 2, None, 0);
        let (run, _) = RunDir::plan(dir.path(), &manifest, b"c").expect("plan");
        assert_eq!(run.attempts_spend(0).expect("none"), 0.0);
        run.record_spend(0, 0.5, 3).expect("write");
        run.record_spend(0, 0.75, 4).expect("rewrite");
        let other = RunDir::open(dir.path()).expect("second attempt");
        other.record_spend(0, 0.25, 1).expect("write");
        std::fs::write(dir.path().join("attempts/0/junk.json"), "{").expect("junk");
        assert!((run.attempts_spend(0).expect("sum") - 1.0).abs() < 1e-9);
        assert_eq!(run.attempts_spend(1).expect("other task"), 0.0);
        // A kept ledger writes its last figure when it stops.
        let third = RunDir::open(dir.path()).expect("third attempt");
        third
            .keep_spend_ledger(1, Duration::from_secs(3600), || (0.125, 2))
            .expect("ledger")
            .finish();
        assert!((run.attempts_spend(1).expect("sum") - 0.125).abs() < 1e-9);
    }
}
