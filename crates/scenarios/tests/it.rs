//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

mod config;
mod props;
