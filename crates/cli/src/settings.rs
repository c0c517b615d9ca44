//! The application's layers of the run settings (`agents::settings::RunSettings`): its
//! environment variables `SCENARIO_ENGINE__<KEY>` (nested keys joined with `__`, e.g.
//! `SCENARIO_ENGINE__AGENTS__GENERATOR__MODEL`), its command-line flags, and where the response
//! cache goes by default.

use std::path::{Path, PathBuf};

pub(crate) use agents::settings::{CacheSettings, RunSettings, SettingsError};

/// The prefix of the environment variables that set run settings.
pub(crate) const ENV_PREFIX: &str = "SCENARIO_ENGINE";

/// Flag values, already parsed by clap; `None` leaves the lower layers' value.
#[derive(Debug, Default, Clone)]
pub(crate) struct FlagOverrides(pub Vec<(&'static str, config::Value)>);

impl FlagOverrides {
    /// Adds `key = value` when the flag was given.
    pub(crate) fn set(&mut self, key: &'static str, value: Option<impl Into<config::Value>>) {
        if let Some(v) = value {
            self.0.push((key, v.into()));
        }
    }
}

impl agents::settings::AppLayers for FlagOverrides {
    fn env_prefix(&self) -> &str {
        ENV_PREFIX
    }

    fn flags(&self) -> &[(&'static str, config::Value)] {
        &self.0
    }
}

/// `<directory of the output>/.scenario-engine-cache`.
#[must_use]
pub(crate) fn default_cache_dir(out: &Path) -> PathBuf {
    out.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(".scenario-engine-cache")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_application_environment_and_flags_are_the_top_layers() {
        let env = [
            ("SCENARIO_ENGINE__THRESHOLD", "7.5"),
            ("SCENARIO_ENGINE__MODEL", "env-model"),
            ("OTHER__CONCURRENCY", "3"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut flags = FlagOverrides::default();
        flags.set("model", Some("flag-model"));
        let s = RunSettings::layered(None, Some(env), &flags).expect("valid");
        assert_eq!(
            (s.threshold, s.model.as_str(), s.concurrency),
            (7.5, "flag-model", RunSettings::default().concurrency)
        );
        assert_eq!(
            default_cache_dir(Path::new("out/run.jsonl")),
            Path::new("out/.scenario-engine-cache")
        );
        assert_eq!(
            default_cache_dir(Path::new("run.jsonl")),
            Path::new("./.scenario-engine-cache")
        );
    }
}
