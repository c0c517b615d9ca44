//! A run's overview (the report's figures), read the way the records table reads a run: a line
//! that is not a record is skipped and counted, a last line without its newline that does not
//! parse yet is a record still being written (counted apart, not an error), and an errors file
//! that cannot be read is named on the page. Only a run file that cannot be opened or read is
//! an error.

use std::path::Path;

use reports::figures::FiguresBuilder;
use reports::pipeline::{Collected, PipelineReport};
use runlog::record::{RecordError, RecordReader, ScenarioRecord, errors_path};
use serde::Serialize;

use crate::record::{Line, line};

/// A run's overview and what reading it skipped.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// The report's figures.
    pub report: PipelineReport,
    /// Lines that are not records (invalid JSON, not a record, too long), skipped.
    pub unreadable: u64,
    /// The first unreadable line: its number and why.
    pub first_unreadable: Option<String>,
    /// A last line still being written (no newline yet, not a whole record), left out.
    pub pending: bool,
    /// Why the errors file could not be read, when it could not (its failures are missing).
    pub errors_problem: Option<String>,
}

/// Reads the run at `path` (named `name` on the page) for its overview.
///
/// # Errors
/// The run file cannot be opened or read.
pub fn read(path: &Path, name: &str) -> std::io::Result<Overview> {
    let mut builder = OverviewBuilder::new(path);
    for item in RecordReader::<_, ScenarioRecord>::open(path)? {
        if let Some(located) = builder.skipped.take(item)? {
            builder.add(&located.record);
        }
    }
    Ok(builder.finish(name))
}

/// An overview being gathered by whoever reads the run (the viewer's background pass over a
/// large run feeds it and the run's index together): [`OverviewBuilder::add`] each record in
/// file order and count each line skipped, then [`OverviewBuilder::finish`].
pub struct OverviewBuilder {
    errors_file: String,
    failures: runlog::FailureTally,
    errors_problem: Option<String>,
    figures: FiguresBuilder,
    skipped: Skipped,
}

impl OverviewBuilder {
    /// An overview of the run at `path`: its errors file is read now.
    #[must_use]
    pub fn new(path: &Path) -> Self {
        let (failures, errors_problem) = match runlog::FailureTally::read(&errors_path(path)) {
            // Its unreadable lines are counted by the report's failures table.
            Ok(t) => (t, None),
            Err(e) => (
                runlog::FailureTally::default(),
                Some(format!(
                    "the errors file could not be read ({e}); failed scenarios are not counted"
                )),
            ),
        };
        Self {
            errors_file: reports::display_name(&errors_path(path)),
            failures,
            errors_problem,
            figures: FiguresBuilder::new(),
            skipped: Skipped::default(),
        }
    }

    /// Adds a record.
    pub fn add(&mut self, record: &ScenarioRecord) {
        self.failures.succeeded(&record.id);
        self.figures.add(record);
    }

    /// Notes that the run's last line is still being written (it has no newline yet): left
    /// out, and said so.
    pub const fn last_line_pending(&mut self) {
        self.skipped.pending = true;
    }

    /// Counts a line that is not a record ([`Line::Unreadable`]), `error` saying why.
    pub fn skip(&mut self, error: &RecordError) {
        self.skipped.unreadable(error);
    }

    /// The overview, named `name`: the figures gathered. The viewer shows no heatmap, so
    /// none is read (the report's second pass over the run).
    #[must_use]
    pub fn finish(self, name: &str) -> Overview {
        let collected = Collected {
            figures: self.figures.finish(None),
            heatmap: None,
            failures: self.failures,
            errors_file: self.errors_file,
        };
        Overview {
            report: reports::pipeline::build(name, &collected),
            unreadable: self.skipped.unreadable,
            first_unreadable: self.skipped.first,
            pending: self.skipped.pending,
            errors_problem: self.errors_problem,
        }
    }
}

/// What a pass over a run skipped.
#[derive(Default)]
struct Skipped {
    unreadable: u64,
    first: Option<String>,
    pending: bool,
}

impl Skipped {
    /// The record of `item`, or `None` for a line skipped (counted); an I/O error stops.
    fn take<T>(&mut self, item: Result<T, RecordError>) -> std::io::Result<Option<T>> {
        Ok(match line(item)? {
            Line::Record(record) => Some(record),
            Line::Pending => {
                self.pending = true;
                None
            }
            Line::Unreadable(e) => {
                self.unreadable(&e);
                None
            }
        })
    }

    /// Counts an unreadable line, keeping the first one's reason.
    fn unreadable(&mut self, error: &RecordError) {
        self.unreadable += 1;
        if self.first.is_none() {
            self.first = Some(error.to_string());
        }
    }
}
