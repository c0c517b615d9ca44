//! Run-vs-run comparison of two results files: opens both, checks they are of one kind, and
//! hands them to [`crate::compare`] (pipeline runs streamed, suite results in memory). The types
//! of a comparison are the library's; the command decides what to print and which exit code
//! follows.

use crate::compare::{Diff, compare_runs, compare_suites};
use runlog::record::RecordReader;

use super::load::{LoadError, Results};

/// Why two files cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// One file is a pipeline run and the other a suite result.
    #[error("cannot compare a {before} with a {after}")]
    KindMismatch {
        /// Kind of the first file.
        before: &'static str,
        /// Kind of the second file.
        after: &'static str,
    },
    /// A file is a run's errors file, not its records.
    #[error(
        "{}: an errors file (a run's failed scenarios); diff the run's output file, whose \
         report counts these failures",
        path.display()
    )]
    ErrorsFile {
        /// The errors file.
        path: std::path::PathBuf,
    },
    /// A file could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// The scenarios of the run in `out` that are failed now: its errors file's, less those with
/// a record (a second, id-only pass over the records, made only when the errors file has any).
fn failed(out: &std::path::Path) -> Result<u64, DiffError> {
    let errors = runlog::record::errors_path(out);
    let mut tally = runlog::FailureTally::read(&errors).map_err(|e| {
        DiffError::Load(LoadError::Invalid {
            path: errors.clone(),
            line: 0,
            message: e.to_string(),
        })
    })?;
    if tally.failed() == 0 {
        return Ok(0);
    }
    let reader =
        RecordReader::<_, runlog::record::RecordId>::open(out).map_err(|source| LoadError::Io {
            path: out.to_owned(),
            source,
        })?;
    // The records were just read whole by the comparison: a line that fails here was valid.
    for r in reader.flatten() {
        tally.succeeded(&r.record.id);
    }
    Ok(tally.failed())
}

/// Compares `before` with `after`. `min_score_delta`, when set, makes a score drop larger than
/// it a regression.
///
/// # Errors
/// [`DiffError`]: mismatched kinds, or an unreadable file or record.
pub fn diff(
    before: &Results,
    after: &Results,
    min_score_delta: Option<f64>,
) -> Result<Diff, DiffError> {
    match (before, after) {
        (Results::Pipeline(a), Results::Pipeline(b)) => {
            let open = |path: &std::path::Path| {
                RecordReader::open(path).map_err(|source| LoadError::Io {
                    path: path.to_owned(),
                    source,
                })
            };
            let mut d = compare_runs(open(a.path())?, open(b.path())?, min_score_delta).map_err(
                |(which, e)| {
                    let path = if which == 0 { a.path() } else { b.path() };
                    DiffError::Load(LoadError::Invalid {
                        path: path.to_owned(),
                        line: e.line(),
                        message: e.reason(),
                    })
                },
            )?;
            d.failed_before = failed(a.path())?;
            d.failed_after = failed(b.path())?;
            Ok(d)
        }
        (Results::Suite(a), Results::Suite(b)) => Ok(compare_suites(a, b, min_score_delta)),
        (Results::Failures(path), _) | (_, Results::Failures(path)) => {
            Err(DiffError::ErrorsFile { path: path.clone() })
        }
        _ => Err(DiffError::KindMismatch {
            before: before.kind().name(),
            after: after.kind().name(),
        }),
    }
}
