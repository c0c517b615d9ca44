//! One module per subcommand; each exposes `Args` (clap) and `execute(Args) -> u8` (exit code).

pub mod audit_judges;
pub mod diff;
pub mod merge;
pub mod plan;
pub mod report;
pub mod run;
pub mod scenarios;
pub mod test;
