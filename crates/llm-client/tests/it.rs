//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

mod common;

mod fake_server;
mod fleet;
mod gbnf;
mod key_redaction;
mod mock_server;
mod properties;
mod replay_fixtures;
mod structured_modes;
