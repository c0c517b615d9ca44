//! Scenario tests of a bot: the adapters that put a bot under test ([`bot`]: an LLM with tools,
//! an HTTP endpoint, a JSON-lines command, a scripted fake) and the suites that drive it
//! ([`suite`]: the YAML file, its loading with located errors, the runner that plays every
//! scenario against a fresh bot and scores it).
//!
//! The checks and the results they produce are the `scoring` crate's
//! ([`scoring::SuiteResult`]); reports read those without this crate.

pub mod bot;
pub mod checks;
pub mod suite;
