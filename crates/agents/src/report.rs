//! Reports people look at, rendered to `String`s (never printed): opening a results file and
//! telling a pipeline run from a suite result ([`load`]), laying out a run's typed figures
//! ([`crate::pipeline::figures`]) as formatted values and charts ([`pipeline`], [`chart`]),
//! comparing two results files ([`diff`], over [`crate::compare`]), and rendering them as
//! self-contained HTML with inline SVG and Markdown ([`render`], templates in
//! `report/templates/`) or as terminal tables ([`terminal`]). The command line decides what
//! is printed and where files go.

pub mod chart;
pub mod diff;
pub mod load;
pub mod pipeline;
pub mod render;
pub mod terminal;
