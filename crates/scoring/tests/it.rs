//! The crate's integration tests, one module per file, built as one test binary (one link
//! instead of one per file: CI's disk and link time). Run one file's tests with
//! `cargo test -p PACKAGE --test it FILE::`.

mod support;

mod agentless_calls;
mod check_paths;
mod expect_eval;
mod expect_parse;
mod expect_semantics;
mod issue25_false_passes;
mod issue25_round1;
mod issue25_round2;
mod issue25_round3;
mod props;
mod render;
mod review25b_false_passes;
mod review25c_false_passes;
mod review25d;
mod review25d_rules;
mod review25e_open;
mod review25e_rules;
mod review25f;
mod review25i;
mod review25j;
mod review25j_checks;
mod review25l;
mod review25m;
mod review25n;
mod review25o;
mod round10_rules;
mod round11_rules;
mod round12_rules;
mod round13_rules;
mod round14_rules;
mod round19_rules;
mod round22_rules;
mod round8_rules;
mod rules_corpus;
mod summary;
