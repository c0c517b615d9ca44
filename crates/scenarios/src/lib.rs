//! Scenario spaces: configs and suites expanded lazily into scenarios with stable ids.
//!
//! A config names **axes** (lists of values), **fixed** fields and **exclude** rules; the
//! scenarios are the cartesian product of the axes minus the excluded combinations. This crate
//! loads such configs (our native YAML/TOML format and the public SwitchLingua format), counts
//! their scenarios without listing them, computes scenario *i* from *i*, and selects samples,
//! shards and limits in constant memory. Every loading error is a [`ConfigError`] with file,
//! line, column and hint.
//!
//! Each [`Scenario`] has a stable id: the first 16 hex digits of blake3 over the canonical
//! (key-sorted, whitespace-free) JSON of its parameters, so reordering axes or values in a file
//! changes no id.
//!
//! ```
//! use std::path::Path;
//! use scenarios::{Selection, Shard, parse_config};
//!
//! let yaml = r#"
//! language_pairs:
//!   - {first_language: Arabic, second_language: English}
//!   - {first_language: Spanish, second_language: English}
//! axes:
//!   topic: [health, sports]
//!   tense: [Past, Present]
//! exclude:
//!   - {first_language: Arabic, topic: sports}
//! "#;
//! let config = parse_config(Path::new("demo.yaml"), yaml)?;
//! assert_eq!(config.space.len_unfiltered(), 8);
//! assert_eq!(config.space.count(), 6);
//!
//! let first = config.space.select(&Selection::default()).next().expect("one scenario");
//! assert_eq!(first.params["first_language"], "Arabic");
//! assert_eq!(first.id.len(), 16);
//!
//! // Two shards split the same scenarios with no overlap.
//! let shard = |s| Selection { shard: Some(Shard::parse(s).unwrap()), ..Selection::default() };
//! let a = config.space.select(&shard("1/2")).count();
//! let b = config.space.select(&shard("2/2")).count();
//! assert_eq!(a + b, 6);
//!
//! // Errors are located and suggest a fix.
//! let err = parse_config(Path::new("bad.yaml"), "axes:\n  topic: [a]\nsampel: 3\n").unwrap_err();
//! assert_eq!(err.to_string(), "bad.yaml:3:1: error: unknown key `sampel`\n  hint: did you mean `sample`?");
//! # Ok::<(), scenarios::ConfigError>(())
//! ```

mod config;
mod document;
mod error;
mod scenario;
mod selection;
mod source_map;
mod space;

#[cfg(feature = "schema")]
pub use config::config_schema;
pub use config::{
    ConfigKind, LANGUAGE_PAIR_AXIS, MAX_SAMPLES_PER_SCENARIO, SAMPLE_PARAM, ScenarioConfig,
    load_config, parse_config,
};
pub use document::{Format, parse_document, read_document, read_text};
pub use error::ConfigError;
pub use scenario::{Scenario, write_canonical};
pub use selection::{Permutation, Selected, Selection, SelectionError, Shard};
pub use source_map::{KeySeg, Position, SourceMap};
pub use space::{Axis, ExcludeRule, ScenarioSpace, SpaceError};
