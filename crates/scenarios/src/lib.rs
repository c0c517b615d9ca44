//! Scenario spaces: configs and suites expanded lazily into scenarios with stable ids.
//!
//! (Crate docs, loaders and the expansion are being written; `Scenario` is the shared contract.)

mod scenario;

pub use scenario::Scenario;
