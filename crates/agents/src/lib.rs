//! Agents and executors: the code-switching generate → judge → refine pipeline, and the adapters
//! that put a bot under test.
//!
//! (being written)

pub mod bot;
pub mod pipeline;
pub mod suite;
