//! Reports people look at: loading run and suite results ([`load`]), computing the figures of a
//! pipeline run ([`pipeline`]) or a bot suite ([`suite`]), comparing two results files
//! ([`diff`]), and rendering all of them to self-contained HTML (inline CSS and SVG) and Markdown
//! ([`render`], templates in `report/templates/`). Everything here is pure apart from reading the
//! results file; the `report` and `diff` commands print and write files.

pub mod chart;
pub mod diff;
pub mod load;
pub mod pipeline;
pub mod render;
pub mod suite;

/// The name a report shows for a results file: its file name only, so reports and their
/// snapshots never carry the directory they were made in.
#[must_use]
pub fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
