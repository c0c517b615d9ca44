//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

mod audit_judges;
mod batch_run;
mod cli_surface;
mod diff_fixture_runs;
mod endpoint_health;
mod export_dataset;
mod flag_errors;
mod merge_shards;
mod own_checks;
mod report_fixture_runs;
mod run_pipeline;
mod schemas;
mod task_runs;
mod test_command;
mod text_rules;
mod user_judges;
mod verdicts;
mod view_command;
