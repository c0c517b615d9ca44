//! Provider bootstrap: the one place a model is built for a `run`, an `audit-judges` or a
//! `test --bot llm`. The rules that choose the provider are `agents::settings::provider`'s; this
//! module gives them the application's way to find the embedded model — `$SCENARIO_ENGINE_MODEL`,
//! else the cache filled by `cargo xtask fetch-model` (`$SCENARIO_ENGINE_MODEL_DIR`, else
//! `~/.cache/scenario-engine/models`) — says how to configure a provider when none is, tells the
//! user which one answers (credentials redacted) and builds the model with every transport
//! setting ([`bootstrap`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use agents::settings::provider::{Explicit, Resolved};
use agents::settings::provider::{LocalSettings, ResolveError, cap_concurrency, resolve};
use llm_client::{ChatModel, Client, ClientConfig};

use crate::settings::{RunSettings, default_cache_dir};

/// Environment variable naming a GGUF file to use as the local model.
pub(crate) const MODEL_PATH_ENV: &str = "SCENARIO_ENGINE_MODEL";
/// Environment variable naming the model cache directory (`cargo xtask fetch-model` fills it).
pub(crate) const MODEL_DIR_ENV: &str = "SCENARIO_ENGINE_MODEL_DIR";
/// File name of the default model in the cache directory (SmolLM2-135M-Instruct, Q4_1).
pub(crate) const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// Why no provider could be chosen or built.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProviderError {
    /// Nothing configured and no local model.
    #[error(
        "no model provider is configured. Choose one:\n  \
         - an OpenAI-compatible endpoint: --base-url URL [--api-key-env VAR] (or `base_url` in the config's `run:` section),\n  \
         - OpenAI: export OPENAI_API_KEY (and optionally OPENAI_BASE_URL),\n  \
         - the embedded local model: `cargo xtask fetch-model`, then build with \
         `cargo build --release -p scenario-engine --features local-llm` and pass --provider local{0}"
    )]
    NothingConfigured(&'static str),
    /// `local` was asked for but this binary has no llama.cpp.
    #[error(
        "--provider local needs a binary built with the embedded model: \
         `cargo build --release -p scenario-engine --features local-llm` (needs cmake, libclang-dev)"
    )]
    LocalNotBuilt,
    /// `local` was asked for but no GGUF file was found.
    #[error(
        "no local model found: run `cargo xtask fetch-model`, set SCENARIO_ENGINE_MODEL=FILE.gguf, or pass --model-path FILE.gguf"
    )]
    NoLocalModel,
    /// A remote provider other than OpenAI without an endpoint.
    #[error("provider {0} needs --base-url (or `base_url` in the config's `run:` section)")]
    NeedsBaseUrl(&'static str),
    /// The model could not be built (an invalid endpoint, a local model that does not load).
    #[error("{0}")]
    Build(String),
}

impl From<ResolveError> for ProviderError {
    fn from(e: ResolveError) -> Self {
        match e {
            ResolveError::NothingConfigured { local_built_in } => {
                Self::NothingConfigured(if local_built_in {
                    ""
                } else {
                    " (this binary was built without it)"
                })
            }
            ResolveError::LocalNotBuilt => Self::LocalNotBuilt,
            ResolveError::NoLocalModel => Self::NoLocalModel,
            ResolveError::NeedsBaseUrl(kind) => Self::NeedsBaseUrl(kind),
        }
    }
}

/// Whether this binary contains the embedded model.
#[must_use]
pub(crate) const fn local_built_in() -> bool {
    cfg!(feature = "local-llm")
}

/// The local model file found without configuration: `env` reads an environment variable,
/// `home` is the user's home directory, `exists` says whether a file is there (all injected, so
/// tests do not depend on this machine).
#[must_use]
pub(crate) fn discover_local(
    env: impl Fn(&str) -> Option<OsString>,
    home: Option<PathBuf>,
    exists: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let env = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(path) = env(MODEL_PATH_ENV) {
        return Some(PathBuf::from(path));
    }
    let dir = env(MODEL_DIR_ENV)
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".cache").join("scenario-engine").join("models")))?;
    let path = dir.join(DEFAULT_MODEL_FILE);
    exists(&path).then_some(path)
}

/// Resolves against the process environment and this binary's features.
///
/// # Errors
/// See [`ProviderError`].
pub(crate) fn resolve_from_env(explicit: &Explicit) -> Result<Resolved, ProviderError> {
    Ok(resolve(
        explicit,
        |k| std::env::var(k).ok(),
        || discover_local(|k| std::env::var_os(k), std::env::home_dir(), Path::is_file),
        local_built_in(),
    )?)
}

/// A chat model ready for a command, and what it was built from.
pub(crate) struct Bootstrapped {
    /// The provider that answers.
    pub resolved: Resolved,
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Requests (or scenarios) in flight: the settings' concurrency, capped for the local model.
    pub in_flight: usize,
    /// The transport's configuration of a remote provider (the Batch API is built from it).
    pub client_config: Option<ClientConfig>,
}

/// The one start-up of a model for every command: resolves the provider of `settings`, then
/// [`bootstrap_resolved`].
///
/// # Errors
/// No provider, or a model that cannot be built.
pub(crate) fn bootstrap(
    settings: &RunSettings,
    cache_base: &Path,
) -> Result<Bootstrapped, ProviderError> {
    bootstrap_resolved(
        settings,
        resolve_from_env(&settings.explicit_provider())?,
        cache_base,
    )
}

/// Builds the model of a provider already resolved from `settings` (a command that needs to know
/// the provider earlier resolves it once): tells the user which one answers on stderr
/// (credentials redacted) and builds the model with the settings' retry, limits, cache, prices
/// and timeout. `cache_base` is the file next to which the default cache directory goes.
///
/// # Errors
/// A model that cannot be built.
pub(crate) fn bootstrap_resolved(
    settings: &RunSettings,
    resolved: Resolved,
    cache_base: &Path,
) -> Result<Bootstrapped, ProviderError> {
    errln!("{}", resolved.describe());
    let (in_flight, note) = cap_concurrency(&resolved, settings.concurrency);
    if let Some(note) = note {
        errln!("{note}");
    }
    let (model, client_config): (Arc<dyn ChatModel>, _) = match &resolved {
        Resolved::Remote { config, .. } => {
            let client_config = settings.client_config(default_cache_dir(cache_base), config);
            let client = Client::new(client_config.clone())
                .map_err(|e| ProviderError::Build(e.to_string()))?;
            (Arc::new(client), Some(client_config))
        }
        Resolved::Local {
            model_path,
            settings: local,
            ..
        } => (load_local(model_path, local)?, None),
    };
    Ok(Bootstrapped {
        resolved,
        model,
        in_flight,
        client_config,
    })
}

/// Loads the embedded model of a [`Resolved::Local`] (blocking: reads the GGUF file).
///
/// # Errors
/// The file cannot be loaded, or the binary has no embedded model.
fn load_local(
    model_path: &Path,
    settings: &LocalSettings,
) -> Result<Arc<dyn ChatModel>, ProviderError> {
    #[cfg(feature = "local-llm")]
    {
        let mut cfg = llm_client::local::LocalConfig::new(model_path);
        cfg.chat_template.clone_from(&settings.chat_template);
        if let Some(cap) = settings.max_tokens_cap {
            cfg.max_tokens_cap = cap;
        }
        if settings.threads.is_some() {
            cfg.threads = settings.threads;
        }
        cfg.slots = Some(settings.slots());
        if let Some(reuse) = settings.prefix_reuse {
            cfg.prefix_reuse = reuse;
        }
        let model = llm_client::local::LocalModel::load(cfg).map_err(|e| match e {
            llm_client::local::LocalError::ModelNotFound { .. } => ProviderError::Build(format!(
                "{e}: run `cargo xtask fetch-model`, set {MODEL_PATH_ENV}=FILE.gguf, or pass --model-path FILE.gguf"
            )),
            other => ProviderError::Build(other.to_string()),
        })?;
        tracing::info!(model = model.name(), "local model loaded");
        Ok(Arc::new(model))
    }
    #[cfg(not(feature = "local-llm"))]
    {
        let _ = (model_path, settings);
        Err(ProviderError::LocalNotBuilt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_provider_says_how_to_configure_one() {
        let msg = ProviderError::from(ResolveError::NothingConfigured {
            local_built_in: true,
        })
        .to_string();
        assert!(msg.contains("--base-url URL [--api-key-env VAR]"), "{msg}");
        assert!(msg.contains("cargo xtask fetch-model"), "{msg}");
        assert!(msg.contains("--features local-llm"), "{msg}");
        let err = ProviderError::from(ResolveError::NothingConfigured {
            local_built_in: false,
        });
        assert!(err.to_string().contains("built without"), "{err}");
        let err = ProviderError::from(ResolveError::NeedsBaseUrl("azure"));
        assert!(err.to_string().contains("azure needs --base-url"), "{err}");
    }

    #[test]
    fn the_local_model_is_found_through_the_application_environment() {
        let none = |_: &str| None;
        let home = Some(PathBuf::from("/home/u"));
        let cached =
            PathBuf::from("/home/u/.cache/scenario-engine/models").join(DEFAULT_MODEL_FILE);
        assert_eq!(
            discover_local(none, home.clone(), |p| p == cached),
            Some(cached.clone())
        );
        assert_eq!(discover_local(none, home.clone(), |_| false), None);
        let file = |k: &str| (k == MODEL_PATH_ENV).then(|| OsString::from("/m/x.gguf"));
        assert_eq!(
            discover_local(file, home.clone(), |_| false),
            Some(PathBuf::from("/m/x.gguf")),
            "the named file wins, even before it exists (loading reports it)"
        );
        let dir = |k: &str| (k == MODEL_DIR_ENV).then(|| OsString::from("/models"));
        let in_dir = PathBuf::from("/models").join(DEFAULT_MODEL_FILE);
        assert_eq!(
            discover_local(dir, None, |p| p == in_dir),
            Some(in_dir.clone())
        );
    }
}
