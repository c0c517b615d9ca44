//! The workspace's small shared helpers, each too small for a crate and needed by several:
//!
//! - [`did_you_mean`], [`closest`], [`edit_distance`]: the one rule for typo hints (config keys,
//!   suite checks, CLI values).
//! - [`write_atomic`]: a file replaced whole or not at all (temporary file, fsync, rename).
//! - [`redact_url`], [`redact_urls_in`]: URLs with their credentials and key-like query
//!   parameters masked, for logs and errors.
//! - [`beside`]: the name of a file that lives beside another (`run.jsonl.lock`).
//! - [`parse_duration`], [`duration_serde`]: the one duration syntax (`"1m30s"`, `"500ms"`, a
//!   plain number of milliseconds).
//! - [`progress`]: the one layout of a long job's progress line and of what its transport
//!   absorbed (retries, rate limits, cooldowns, pauses), for both workloads and the CLI.
//!
//! - [`keys_refusing_others`]: the keys a strict serde reader names, to hold hand-written key
//!   lists (schemas, hints) to the reader.
//! - [`flag_hint`]: the tip of an unknown-flag error; [`clap_flags`] (feature `clap`) reads a
//!   clap command line for it.
//!
//! It depends on `serde` alone (and `clap` with the feature `clap`), so any crate can use it
//! without growing its dependency tree.

mod atomic;
#[cfg(feature = "clap")]
pub mod clap_flags;
mod duration;
mod flag_hint;
mod hint;
mod keys;
mod path;
pub mod progress;
mod redact;

pub use atomic::{check_writable, write_atomic};
pub use duration::{duration_serde, parse_duration};
pub use flag_hint::{CommandFlags, FlagPlace, flag_hint, flags_after_command, single_dash_word};
pub use hint::{closest, closest_within, did_you_mean, edit_distance};
pub use keys::keys_refusing_others;
pub use path::beside;
pub use redact::{redact_url, redact_urls_in};
