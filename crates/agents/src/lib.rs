//! Agents and executors: the code-switching generate → judge → refine pipeline, and the adapters
//! that put a bot under test.
//!
//! - [`pipeline`]: the code-switching data pipeline — generator, four judges and refiner per
//!   scenario as a pure state machine (`ScenarioRun`), its prompts and schemas, the online
//!   executor, the JSONL record and checkpoint, and the cost estimate.

pub mod bot;
pub mod compare;
pub mod pipeline;
pub mod plan;
pub mod report;
pub mod suite;
