//! A finished run read back for its summary: the records' figures and the current failures, in
//! one pass over the output file (what `run` prints when it ends).

use crate::failure::FailureTally;
use crate::record::{RecordReader, ScenarioRecord, errors_path};

/// The run summary of every readable record in a run's output file, how many lines could not
/// be read, and the run's current failures (its errors file, less the scenarios with a record).
/// A file that cannot be opened summarises as empty.
#[must_use]
pub fn summarise_file(path: &std::path::Path) -> (scoring::summary::RunSummary, u64, FailureTally) {
    let mut summary = scoring::summary::RunSummary::default();
    let mut unreadable = 0u64;
    // An unreadable errors file shows as no failures here; `report` names the error.
    let mut failures = FailureTally::read(&errors_path(path)).unwrap_or_default();
    let Ok(reader) = RecordReader::<_, ScenarioRecord>::open(path) else {
        return (summary, 0, failures);
    };
    for item in reader {
        match item {
            Ok(located) => {
                failures.succeeded(&located.record.id);
                summary.add(&located.record.facts());
            }
            Err(_) => unreadable += 1,
        }
    }
    (summary, unreadable, failures)
}
