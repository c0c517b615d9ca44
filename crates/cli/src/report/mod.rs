//! Reports people look at: the figures and their rendering live in `agents::report` (loading,
//! the pipeline report, charts, HTML/Markdown/terminal); what stays here is the bot-suite
//! report ([`suite`]) and the name a report shows for a file. The `report` and `diff` commands
//! print and write files.

// The suite report lays out its charts and shares with the library report.
pub(crate) use agents::report::{chart, pipeline};

pub(crate) mod suite;

/// The name a report shows for a results file: its file name only, so reports and their
/// snapshots never carry the directory they were made in.
#[must_use]
pub(crate) fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
