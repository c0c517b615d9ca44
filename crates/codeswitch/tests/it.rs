//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

mod common;

mod accuracy;
mod heldout_accuracy;
mod metrics;
mod ratio;
mod review26;
mod review26f;
mod tagging;
mod tuning_uncertainty;
