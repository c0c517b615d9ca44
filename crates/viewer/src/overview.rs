//! A run's overview (the report's figures), read the way the records table reads a run: a line
//! that is not a record is skipped and counted, a last line without its newline that does not
//! parse yet is a record still being written (counted apart, not an error), and an errors file
//! that cannot be read is named on the page. Only a run file that cannot be opened or read is
//! an error.

use std::path::Path;

use reports::figures::{FiguresBuilder, HeatmapBuilder};
use reports::pipeline::{Collected, PipelineReport};
use runlog::record::{RecordError, RecordReader, ScenarioRecord, errors_path};
use serde::Serialize;

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
    let errors = errors_path(path);
    let (mut failures, errors_problem) = match runlog::FailureTally::read(&errors) {
        // Its unreadable lines are counted by the report's failures table.
        Ok(t) => (t, None),
        Err(e) => (
            runlog::FailureTally::default(),
            Some(format!(
                "the errors file could not be read ({e}); failed scenarios are not counted"
            )),
        ),
    };
    let mut builder = FiguresBuilder::new();
    let mut out = Skipped::default();
    for item in RecordReader::<_, ScenarioRecord>::open(path)? {
        if let Some(located) = out.take(item)? {
            failures.succeeded(&located.record.id);
            builder.add(&located.record);
        }
    }
    let figures = builder.finish(None);
    let heatmap = match figures.heatmap_axes(None) {
        Ok(Some((rows, cols))) => {
            let mut builder = HeatmapBuilder::new(rows, cols);
            let mut again = Skipped::default();
            for item in RecordReader::<_, ScenarioRecord>::open(path)? {
                if let Some(located) = again.take(item)? {
                    builder.add(&located.record);
                }
            }
            Some(builder.finish())
        }
        _ => None,
    };
    let collected = Collected {
        figures,
        heatmap,
        failures,
        errors_file: reports::display_name(&errors),
    };
    Ok(Overview {
        report: reports::pipeline::build(name, &collected),
        unreadable: out.unreadable,
        first_unreadable: out.first,
        pending: out.pending,
        errors_problem,
    })
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
        match item {
            Ok(located) => Ok(Some(located)),
            Err(RecordError::Io { source, .. }) => Err(source),
            Err(RecordError::Torn { .. }) => {
                self.pending = true;
                Ok(None)
            }
            Err(e) => {
                self.unreadable += 1;
                if self.first.is_none() {
                    self.first = Some(e.to_string());
                }
                Ok(None)
            }
        }
    }
}
