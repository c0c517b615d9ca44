//! Reports people look at, rendered to `String`s (never printed), for both workloads:
//!
//! - [`load`]: opening a results file and telling a pipeline run from a suite result.
//! - [`figures`]: a run's report figures folded from its records, one at a time (bounded memory).
//! - [`pipeline`], [`chart`]: those figures as formatted values and inline-SVG charts.
//! - [`compare`], [`diff`]: two results files compared, regressions named.
//! - [`render`]: self-contained HTML and Markdown (templates in `templates/`).
//! - [`terminal`]: terminal tables and summary lines of a run; [`suite`]: the bot-suite report;
//!   [`suite_terminal`]: a suite's results in a terminal (`test`'s output).
//!
//! It reads records through `runlog` and suite results through `scoring`; it never runs a
//! model or a bot. The command line decides what is printed and where files go.

pub mod chart;
pub mod compare;
pub mod diff;
pub mod failures;
pub mod figures;
pub mod load;
pub mod pipeline;
pub mod render;
pub mod suite;
pub mod suite_terminal;
pub mod terminal;

/// The name a report shows for a results file: its file name only, so reports and their
/// snapshots never carry the directory they were made in.
#[must_use]
pub fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
