//! The output file as checkpoint, and the one writer that owns it.
//!
//! [`open_checkpoint`] reads the ids of the complete lines of an existing output file (a torn
//! last line left by a crash is cut away, with a warning) and the previous errors file. The
//! writer ([`spawn_writer`]) runs on its own thread so file I/O never blocks the async workers:
//! it appends one line per finished scenario, flushes after each record, calls `sync_data`
//! every `sync_every_records` records or `sync_interval` and at the end. Failed scenarios go to
//! `<out>.errors.jsonl`; the errors file is rewritten at the end of each run: this run's
//! failures, plus the previous failures this run did not get to (so none is forgotten after a
//! Ctrl-C). During the run the new failures are appended to the previous file, and the rewrite
//! is atomic, so a run killed at any moment leaves every failure in the file (a scenario that
//! failed twice has two lines then; the checkpoint reads the last, and skips the ids that have
//! a record).
//!
//! A [`WrittenIds`] in the config learns the ids the writer made durable: a record's id after
//! the `sync_data` that covers it, a failure's after its line is flushed (a failed scenario
//! runs again on resume either way). The batch back end forgets a scenario's stored replies
//! only then, so a crash never loses both a record and the replies to rebuild it.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::machine::RunOutcome;
use runlog::record::{RecordError, RecordId, RecordReader};

/// Output-file errors.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// Reading, repairing or writing a file failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A record could not be serialised.
    #[error("serialising a record: {0}")]
    Serialize(#[from] serde_json::Error),
    /// A line of the output before its last is not a record: resuming would keep it, and every
    /// reader of the finished file (report, diff, merge) would refuse the file.
    #[error(
        "{path}: {error}\nhint: the output file was edited or corrupted; remove or repair that line \
         (its scenario then runs again), or write to a new --out"
    )]
    NotARecord {
        /// The output file.
        path: String,
        /// Where and why (`line 3: not a record: …`).
        error: RecordError,
    },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> SinkError + 'a {
    move |source| SinkError::Io {
        action,
        path: path.display().to_string(),
        source,
    }
}

pub use runlog::record::errors_path;

/// What an existing output file says about earlier runs.
#[derive(Debug, Default)]
pub struct Checkpoint {
    /// Ids of scenarios already written (skipped by this run).
    pub done: HashSet<String>,
    /// Bytes cut from the end of the output file (a torn last line), 0 when it was whole.
    pub repaired_bytes: u64,
    /// Previous failures by id, as their raw lines (retried by this run).
    pub previous_failures: HashMap<String, String>,
}

/// Reads (and repairs) the checkpoint of `out`. A missing file is an empty checkpoint.
pub fn open_checkpoint(out: &Path) -> Result<Checkpoint, SinkError> {
    let mut checkpoint = Checkpoint::default();
    if out.exists() {
        checkpoint.repaired_bytes = repair_torn_tail(out)?;
        if checkpoint.repaired_bytes > 0 {
            tracing::warn!(
                path = %out.display(),
                bytes = checkpoint.repaired_bytes,
                "the output file ended in a torn line (interrupted write); it was cut away and that scenario will run again"
            );
        }
        let reader: RecordReader<_, RecordId> =
            RecordReader::open(out).map_err(io("opening", out))?;
        for item in reader {
            match item {
                Ok(r) => {
                    checkpoint.done.insert(r.record.id);
                }
                Err(RecordError::Io { source, .. }) => return Err(io("reading", out)(source)),
                Err(error) => {
                    return Err(SinkError::NotARecord {
                        path: out.display().to_string(),
                        error,
                    });
                }
            }
        }
    }
    let errors = errors_path(out);
    if errors.exists() {
        let file = File::open(&errors).map_err(io("opening", &errors))?;
        // The errors file is a log of failures, not records: a line that is not a failure (an
        // edit, a torn write, bytes that are not UTF-8) cannot be retried and is dropped when
        // the run rewrites the file — said once, with the lines, never a reason to refuse the run.
        let mut reader = BufReader::new(file);
        let mut bytes = Vec::new();
        let mut skipped: Vec<usize> = Vec::new();
        let mut number = 0usize;
        loop {
            bytes.clear();
            if reader
                .read_until(b'\n', &mut bytes)
                .map_err(io("reading", &errors))?
                == 0
            {
                break;
            }
            number += 1;
            let parsed = std::str::from_utf8(&bytes)
                .ok()
                .map(str::trim_end)
                .filter(|line| !line.is_empty())
                .and_then(|line| {
                    serde_json::from_str::<RecordId>(line)
                        .ok()
                        .map(|r| (r, line.to_owned()))
                });
            match parsed {
                Some((r, line)) => {
                    if !checkpoint.done.contains(&r.id) {
                        checkpoint.previous_failures.insert(r.id, line);
                    }
                }
                None if bytes.iter().all(u8::is_ascii_whitespace) => {}
                None => skipped.push(number),
            }
        }
        if !skipped.is_empty() {
            let shown: Vec<String> = skipped.iter().take(10).map(ToString::to_string).collect();
            tracing::warn!(
                file = %errors.display(),
                lines = %shown.join(", "),
                count = skipped.len(),
                "lines of the errors file are not failure records; they are dropped when this run rewrites it"
            );
        }
    }
    Ok(checkpoint)
}

/// Cuts the file back to just after its last newline (unless the tail is a whole record, which
/// only gets its newline); returns the bytes removed.
fn repair_torn_tail(path: &Path) -> Result<u64, SinkError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io("opening", path))?;
    let len = file.metadata().map_err(io("reading", path))?.len();
    if len == 0 {
        return Ok(0);
    }
    // Scan backwards in blocks so a large file is never read whole.
    const BLOCK: u64 = 64 * 1024;
    let mut end = len;
    let mut buf = vec![0u8; BLOCK as usize];
    let mut keep = 0u64;
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))
            .map_err(io("reading", path))?;
        file.read_exact(&mut buf[..n])
            .map_err(io("reading", path))?;
        if let Some(pos) = buf[..n].iter().rposition(|&b| b == b'\n') {
            keep = start + pos as u64 + 1;
            break;
        }
        end = start;
    }
    if keep == len {
        return Ok(0);
    }
    // A tail that is a whole record merely lacks its newline (a hand-edited or concatenated file,
    // or a crash between the record and its newline): cutting it would throw away paid work.
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(keep))
        .map_err(io("reading", path))?;
    file.read_to_end(&mut tail).map_err(io("reading", path))?;
    if serde_json::from_slice::<RecordId>(&tail).is_ok() {
        file.seek(SeekFrom::End(0)).map_err(io("repairing", path))?;
        file.write_all(b"\n").map_err(io("repairing", path))?;
        file.sync_data().map_err(io("repairing", path))?;
        tracing::warn!(path = %path.display(), "the output file's last record had no newline; one was added");
        return Ok(0);
    }
    file.set_len(keep).map_err(io("repairing", path))?;
    file.sync_data().map_err(io("repairing", path))?;
    Ok(len - keep)
}

/// Where and how often the writer writes.
#[derive(Debug, Clone)]
pub struct SinkConfig {
    /// The JSONL output file (appended to).
    pub out: PathBuf,
    /// `sync_data` after this many records (default 256).
    pub sync_every_records: u32,
    /// … or after this much time (default 2 s).
    pub sync_interval: Duration,
    /// Told the ids of scenarios whose outcome is durable (see the module docs).
    pub written: Option<WrittenIds>,
}

/// Ids of scenarios whose outcome the writer has made durable, taken by whoever needs them.
#[derive(Debug, Clone, Default)]
pub struct WrittenIds(Arc<Mutex<Vec<String>>>);

impl WrittenIds {
    /// The ids made durable since the last call.
    #[must_use]
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn extend(&self, ids: &mut Vec<String>) {
        if !ids.is_empty() {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .append(ids);
        }
    }
}

impl SinkConfig {
    /// Defaults for `out`.
    #[must_use]
    pub fn new(out: impl Into<PathBuf>) -> Self {
        Self {
            out: out.into(),
            sync_every_records: 256,
            sync_interval: Duration::from_secs(2),
            written: None,
        }
    }
}

/// What the writer wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkReport {
    /// Records appended to the output file.
    pub records: u64,
    /// Failures written to the errors file by this run.
    pub failures: u64,
    /// Previous failures carried over because this run did not retry them.
    pub carried_failures: u64,
}

/// The writer thread; join it after dropping every sender.
#[derive(Debug)]
pub struct Writer {
    handle: std::thread::JoinHandle<Result<SinkReport, SinkError>>,
}

impl Writer {
    /// Waits for the writer to drain its channel and close the files.
    pub async fn finish(self) -> Result<SinkReport, SinkError> {
        let joined = tokio::task::spawn_blocking(move || self.handle.join()).await;
        match joined {
            Ok(Ok(result)) => result,
            _ => Err(SinkError::Io {
                action: "finishing",
                path: "the writer thread".into(),
                source: std::io::Error::other("the writer thread panicked"),
            }),
        }
    }
}

/// Opens the files and starts the writer. `previous_failures` come from the checkpoint.
pub fn spawn_writer(
    config: SinkConfig,
    previous_failures: HashMap<String, String>,
    rx: mpsc::Receiver<RunOutcome>,
) -> Result<Writer, SinkError> {
    let out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.out)
        .map_err(io("opening", &config.out))?;
    let errors_file = errors_path(&config.out);
    let (errors, new_from) = open_errors(&errors_file)?;
    let handle = std::thread::Builder::new()
        .name("jsonl-writer".into())
        .spawn(move || {
            let mut previous = previous_failures;
            let report = write_loop(&config, out, &errors_file, errors, &mut previous, rx)?;
            rewrite_errors(&errors_file, new_from, previous)?;
            Ok(report)
        })
        .map_err(io("starting the writer for", Path::new("output")))?;
    Ok(Writer { handle })
}

/// Opens the errors file for appending, keeping the previous run's failures until this run
/// rewrites it; returns it and the offset where this run's lines begin. A torn last line (a
/// crash mid-write) gets its newline, so it cannot swallow the first new line.
fn open_errors(path: &Path) -> Result<(File, u64), SinkError> {
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(io("opening", path))?;
    let mut len = file.metadata().map_err(io("reading", path))?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))
            .and_then(|_| file.read_exact(&mut last))
            .map_err(io("reading", path))?;
        if last[0] != b'\n' {
            file.write_all(b"\n").map_err(io("writing", path))?;
            len += 1;
        }
    }
    Ok((file, len))
}

/// The errors file at the end of a run, replaced atomically: this run's failures (the lines
/// from `new_from` on) and the previous failures it did not get to.
fn rewrite_errors(
    path: &Path,
    new_from: u64,
    carried: HashMap<String, String>,
) -> Result<(), SinkError> {
    let mut current = File::open(path).map_err(io("opening", path))?;
    current
        .seek(SeekFrom::Start(new_from))
        .map_err(io("reading", path))?;
    stdx::write_atomic(path, |w| {
        std::io::copy(&mut current, w)?;
        for raw in carried.values() {
            w.write_all(raw.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
    .map_err(io("rewriting", path))
}

fn write_loop(
    config: &SinkConfig,
    out: File,
    errors_file: &Path,
    errors: File,
    previous: &mut HashMap<String, String>,
    mut rx: mpsc::Receiver<RunOutcome>,
) -> Result<SinkReport, SinkError> {
    let mut out = BufWriter::new(out);
    let mut errors = BufWriter::new(errors);
    let mut report = SinkReport::default();
    let mut unsynced = 0u32;
    let mut last_sync = Instant::now();
    let mut line = Vec::with_capacity(4096);
    // Records written since the last sync: durable at the next one.
    let mut unsynced_ids: Vec<String> = Vec::new();
    let mut failed_ids: Vec<String> = Vec::new();
    let tell = config.written.is_some();
    while let Some(outcome) = rx.blocking_recv() {
        line.clear();
        match outcome {
            RunOutcome::Finished(record) => {
                previous.remove(&record.id);
                serde_json::to_writer(&mut line, &record)?;
                line.push(b'\n');
                out.write_all(&line).map_err(io("writing", &config.out))?;
                out.flush().map_err(io("writing", &config.out))?;
                report.records += 1;
                unsynced += 1;
                if tell {
                    unsynced_ids.push(record.id.clone());
                }
            }
            RunOutcome::Failed(failure) => {
                previous.remove(&failure.id);
                serde_json::to_writer(&mut line, &failure)?;
                line.push(b'\n');
                errors
                    .write_all(&line)
                    .map_err(io("writing", errors_file))?;
                errors.flush().map_err(io("writing", errors_file))?;
                report.failures += 1;
                if tell {
                    failed_ids.push(failure.id.clone());
                }
            }
        }
        if let Some(written) = &config.written {
            written.extend(&mut failed_ids);
        }
        if unsynced >= config.sync_every_records
            || (unsynced > 0 && last_sync.elapsed() >= config.sync_interval)
        {
            out.get_ref()
                .sync_data()
                .map_err(io("syncing", &config.out))?;
            unsynced = 0;
            last_sync = Instant::now();
            if let Some(written) = &config.written {
                written.extend(&mut unsynced_ids);
            }
        }
    }
    report.carried_failures = previous.len() as u64;
    out.flush().map_err(io("writing", &config.out))?;
    out.get_ref()
        .sync_data()
        .map_err(io("syncing", &config.out))?;
    if let Some(written) = &config.written {
        written.extend(&mut unsynced_ids);
    }
    errors.flush().map_err(io("writing", errors_file))?;
    errors
        .get_ref()
        .sync_data()
        .map_err(io("syncing", errors_file))?;
    tracing::debug!(?report, "writer finished");
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A break-it finding (issue 27): one non-UTF-8 byte in the errors file stopped every resume
    /// with exit 3 and no line. Lines that are not failures are skipped (and logged); the
    /// failures around them are still retried.
    #[test]
    fn an_errors_file_with_garbage_and_non_utf8_lines_still_resumes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "{\"id\":\"a\"}\n").expect("write");
        let mut errors = b"{\"id\":\"f1\",\"reason\":\"x\"}\n\xff\xfe\ngarbage{\n\n".to_vec();
        errors.extend_from_slice(
            b"{\"id\":\"f2\",\"reason\":\"y\"}\n{\"id\":\"a\",\"reason\":\"z\"}\n",
        );
        std::fs::write(errors_path(&out), errors).expect("write");
        let cp = open_checkpoint(&out).expect("a resume is not refused");
        let mut failed: Vec<_> = cp.previous_failures.keys().cloned().collect();
        failed.sort();
        assert_eq!(failed, ["f1", "f2"], "a's failure was done since");
    }

    #[test]
    fn torn_last_line_is_cut_and_complete_ids_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"da").expect("write");
        let cp = open_checkpoint(&out).expect("checkpoint");
        assert_eq!(cp.repaired_bytes, 13);
        let mut ids: Vec<_> = cp.done.into_iter().collect();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(
            std::fs::read_to_string(&out).expect("read"),
            "{\"id\":\"a\"}\n{\"id\":\"b\"}\n"
        );
    }

    #[test]
    fn a_complete_last_record_without_newline_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "{\"id\":\"a\"}\n{\"id\":\"b\"}").expect("write");
        let cp = open_checkpoint(&out).expect("checkpoint");
        assert_eq!(cp.repaired_bytes, 0);
        let mut ids: Vec<_> = cp.done.into_iter().collect();
        ids.sort();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(
            std::fs::read_to_string(&out).expect("read"),
            "{\"id\":\"a\"}\n{\"id\":\"b\"}\n"
        );
    }

    #[test]
    fn a_file_with_only_a_torn_line_becomes_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "{\"id\":").expect("write");
        let cp = open_checkpoint(&out).expect("checkpoint");
        assert_eq!((cp.repaired_bytes, cp.done.len()), (6, 0));
        assert_eq!(std::fs::metadata(&out).expect("meta").len(), 0);
    }

    #[test]
    fn previous_failures_skip_ids_already_done() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "{\"id\":\"a\"}\n").expect("write");
        std::fs::write(
            errors_path(&out),
            "{\"id\":\"a\",\"reason\":\"x\"}\n{\"id\":\"z\",\"reason\":\"y\"}\n",
        )
        .expect("write");
        let cp = open_checkpoint(&out).expect("checkpoint");
        assert_eq!(cp.previous_failures.keys().collect::<Vec<_>>(), ["z"]);
        assert_eq!(
            errors_path(&out).file_name().and_then(|n| n.to_str()),
            Some("out.jsonl.errors.jsonl")
        );
    }

    /// A resumed run killed before its end used to leave an empty errors file: the previous
    /// failures, their reasons and what they spent were gone.
    #[test]
    fn a_run_killed_before_its_end_loses_no_failure() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "").expect("write");
        // The last run's failures, the last line torn by a crash.
        std::fs::write(
            errors_path(&out),
            "{\"id\":\"a\",\"reason\":\"old\"}\n{\"id\":\"b\",\"reason\":\"old\"}\n{\"id\":\"c\",\"rea",
        )
        .expect("write");
        // This run appends a new failure of `a`, and is killed (no end-of-run rewrite).
        let (mut errors, new_from) = open_errors(&errors_path(&out)).expect("open");
        errors
            .write_all(b"{\"id\":\"a\",\"reason\":\"new\"}\n")
            .expect("append");
        drop(errors);
        let cp = open_checkpoint(&out).expect("checkpoint");
        let mut reasons: Vec<(&str, &str)> = cp
            .previous_failures
            .iter()
            .map(|(id, line)| {
                (
                    id.as_str(),
                    if line.contains("new") { "new" } else { "old" },
                )
            })
            .collect();
        reasons.sort_unstable();
        assert_eq!(reasons, [("a", "new"), ("b", "old")]);

        // At a run's end the file is rewritten: this run's failures, then those carried.
        let carried: HashMap<String, String> = [(
            "b".to_owned(),
            "{\"id\":\"b\",\"reason\":\"old\"}".to_owned(),
        )]
        .into();
        rewrite_errors(&errors_path(&out), new_from, carried).expect("rewrite");
        assert_eq!(
            std::fs::read_to_string(errors_path(&out)).expect("read"),
            "{\"id\":\"a\",\"reason\":\"new\"}\n{\"id\":\"b\",\"reason\":\"old\"}\n"
        );
    }
}
