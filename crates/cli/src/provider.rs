//! Provider resolution: which model answers a `run` or a `test --bot llm`, decided once, in one
//! place, and never by a silent fallback to a paid endpoint.
//!
//! The first rule that applies wins:
//! 1. **Explicit configuration**: `--provider`, `--base-url`, or `provider` / `base_url` in the
//!    config's `run:` section (and `SCENARIO_ENGINE__PROVIDER` / `__BASE_URL`). `--provider local`
//!    uses the embedded model (`--model-path`, `--chat-template`, or `local:` in `run:`).
//! 2. **The OpenAI environment**: `OPENAI_BASE_URL` (any OpenAI-compatible server, key optional)
//!    or `OPENAI_API_KEY` (api.openai.com).
//! 3. **The embedded local model**, when the binary was built with `--features local-llm` and
//!    a GGUF file is found (`$SCENARIO_ENGINE_MODEL`, else the cache filled by
//!    `cargo xtask fetch-model`).
//! 4. Otherwise an error that lists exactly how to configure a provider.
//!
//! The local model computes on this machine's CPU, one request at a time (llama.cpp spreads one
//! decode over every core), so more requests in flight only queue: [`LOCAL_MAX_IN_FLIGHT`] caps
//! them and the caller tells the user.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use llm_client::{ChatModel, ProviderConfig, ProviderKind};

/// The default OpenAI endpoint, used only when `openai` was chosen explicitly or
/// `OPENAI_API_KEY` is set.
pub const OPENAI_URL: &str = "https://api.openai.com/v1";

/// Requests in flight against the local model: one decodes while the next one is tokenised.
pub const LOCAL_MAX_IN_FLIGHT: usize = 2;

/// A provider name as written in settings and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderName {
    /// OpenAI Chat Completions and compatible servers.
    #[serde(rename = "openai")]
    OpenAi,
    /// Azure OpenAI.
    Azure,
    /// Anthropic Messages.
    Anthropic,
    /// The embedded llama.cpp model (feature `local-llm`).
    Local,
}

impl ProviderName {
    /// Every value accepted by `--provider`.
    pub const VALUES: [&'static str; 4] = ["openai", "azure", "anthropic", "local"];

    /// The wire protocol of a remote provider; `None` for `local`.
    #[must_use]
    pub fn remote_kind(self) -> Option<ProviderKind> {
        match self {
            Self::OpenAi => Some(ProviderKind::OpenAi),
            Self::Azure => Some(ProviderKind::Azure),
            Self::Anthropic => Some(ProviderKind::Anthropic),
            Self::Local => None,
        }
    }
}

/// Settings of the embedded model (`run: { local: { … } }`, `--model-path`, `--chat-template`).
/// Always compiled, so a config naming them parses whether or not the feature is built in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalSettings {
    /// The GGUF file; default: `$SCENARIO_ENGINE_MODEL`, else the `fetch-model` cache.
    pub model_path: Option<PathBuf>,
    /// A llama.cpp built-in chat template name, for GGUF files without one (e.g. "gemma").
    pub chat_template: Option<String>,
    /// Upper bound on generated tokens per call, whatever an agent asks for.
    pub max_tokens_cap: Option<u32>,
    /// CPU threads; default every core.
    pub threads: Option<u32>,
}

/// What the user configured, before resolution.
#[derive(Debug, Clone)]
pub struct Explicit {
    /// `--provider` / `provider`.
    pub provider: Option<ProviderName>,
    /// `--base-url` / `base_url`.
    pub base_url: Option<String>,
    /// `--api-key-env` / `api_key_env` (has a default, so it never counts as explicit).
    pub api_key_env: String,
    /// `api_version` for Azure / Anthropic.
    pub api_version: Option<String>,
    /// Local model settings.
    pub local: LocalSettings,
}

/// Which rule chose the provider (shown to the user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Flags or settings.
    Explicit,
    /// `OPENAI_BASE_URL` / `OPENAI_API_KEY`.
    Environment,
    /// The local model was found and nothing else was configured.
    LocalDefault,
}

/// The outcome of resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// An HTTP provider.
    Remote {
        /// Endpoint, protocol and key variable (timeouts left at their defaults).
        config: ProviderConfig,
        /// Why it was chosen.
        source: Source,
    },
    /// The embedded model.
    Local {
        /// The GGUF file.
        model_path: PathBuf,
        /// Its settings.
        settings: LocalSettings,
        /// Why it was chosen.
        source: Source,
    },
}

impl Resolved {
    /// A short description for the user: provider, endpoint or file, and why.
    #[must_use]
    pub fn describe(&self) -> String {
        let why = |s: Source| match s {
            Source::Explicit => "configured",
            Source::Environment => "from OPENAI_* environment variables",
            Source::LocalDefault => "no remote provider configured; using the embedded model",
        };
        match self {
            Self::Remote { config, source } => format!(
                "provider {} at {} ({})",
                config.kind.as_str(),
                config.base_url,
                why(*source)
            ),
            Self::Local {
                model_path, source, ..
            } => format!(
                "provider local: {} ({})",
                model_path.display(),
                why(*source)
            ),
        }
    }

    /// The provider name for summaries.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Remote { config, .. } => config.kind.as_str(),
            Self::Local { .. } => "local",
        }
    }
}

/// Why no provider could be chosen or built.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
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
    /// The local model could not be loaded (only constructed with `local-llm`).
    #[cfg_attr(not(feature = "local-llm"), allow(dead_code))]
    #[error("{0}")]
    Build(String),
}

/// Whether this binary contains the embedded model.
#[must_use]
pub const fn local_built_in() -> bool {
    cfg!(feature = "local-llm")
}

/// The local model file found without configuration (see the module docs, rule 3).
#[must_use]
pub fn discover_local() -> Option<PathBuf> {
    #[cfg(feature = "local-llm")]
    {
        llm_client::local::LocalConfig::discover().map(|c| c.model_path)
    }
    #[cfg(not(feature = "local-llm"))]
    {
        None
    }
}

/// Applies the rules of the module docs. `env` reads an environment variable and `discover`
/// finds the local model (both injected so tests do not depend on this machine); `built_in`
/// says whether the local model is compiled in.
///
/// # Errors
/// See [`ProviderError`]; never a silent default.
pub fn resolve(
    explicit: &Explicit,
    env: impl Fn(&str) -> Option<String>,
    discover: impl FnOnce() -> Option<PathBuf>,
    built_in: bool,
) -> Result<Resolved, ProviderError> {
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let remote = |kind: ProviderKind, base_url: String, source| Resolved::Remote {
        config: ProviderConfig {
            kind,
            base_url,
            api_key_env: explicit.api_key_env.clone(),
            api_version: explicit.api_version.clone(),
            ..ProviderConfig::default()
        },
        source,
    };
    match (explicit.provider, &explicit.base_url) {
        (Some(ProviderName::Local), _) => {
            if !built_in {
                return Err(ProviderError::LocalNotBuilt);
            }
            let model_path = explicit
                .local
                .model_path
                .clone()
                .or_else(discover)
                .ok_or(ProviderError::NoLocalModel)?;
            return Ok(Resolved::Local {
                model_path,
                settings: explicit.local.clone(),
                source: Source::Explicit,
            });
        }
        (Some(name), url) => {
            let kind = name.remote_kind().unwrap_or_default();
            let url = match (url, kind) {
                (Some(u), _) => u.clone(),
                (None, ProviderKind::OpenAi) => {
                    env("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_URL.to_owned())
                }
                (None, other) => return Err(ProviderError::NeedsBaseUrl(other.as_str())),
            };
            return Ok(remote(kind, url, Source::Explicit));
        }
        (None, Some(url)) => {
            return Ok(remote(ProviderKind::OpenAi, url.clone(), Source::Explicit));
        }
        (None, None) => {}
    }
    if let Some(url) = env("OPENAI_BASE_URL") {
        return Ok(remote(ProviderKind::OpenAi, url, Source::Environment));
    }
    if env("OPENAI_API_KEY").is_some() {
        return Ok(remote(
            ProviderKind::OpenAi,
            OPENAI_URL.to_owned(),
            Source::Environment,
        ));
    }
    if built_in && let Some(model_path) = explicit.local.model_path.clone().or_else(discover) {
        return Ok(Resolved::Local {
            model_path,
            settings: explicit.local.clone(),
            source: Source::LocalDefault,
        });
    }
    Err(ProviderError::NothingConfigured(if built_in {
        ""
    } else {
        " (this binary was built without it)"
    }))
}

/// Resolves against the process environment and this binary's features.
///
/// # Errors
/// See [`resolve`].
pub fn resolve_from_env(explicit: &Explicit) -> Result<Resolved, ProviderError> {
    resolve(
        explicit,
        |k| std::env::var(k).ok(),
        discover_local,
        local_built_in(),
    )
}

/// Loads the embedded model of a [`Resolved::Local`] (blocking: reads the GGUF file).
///
/// # Errors
/// The file cannot be loaded, or the binary has no embedded model.
pub fn load_local(
    model_path: &std::path::Path,
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
        let model = llm_client::local::LocalModel::load(cfg)
            .map_err(|e| ProviderError::Build(e.to_string()))?;
        tracing::info!(model = model.name(), "local model loaded");
        Ok(Arc::new(model))
    }
    #[cfg(not(feature = "local-llm"))]
    {
        let _ = (model_path, settings);
        Err(ProviderError::LocalNotBuilt)
    }
}

/// The in-flight cap to use: `requested`, lowered to [`LOCAL_MAX_IN_FLIGHT`] for the local model.
/// Returns the cap and, when it was lowered, a note for the user.
#[must_use]
pub fn cap_concurrency(resolved: &Resolved, requested: usize) -> (usize, Option<String>) {
    match resolved {
        Resolved::Local { .. } if requested > LOCAL_MAX_IN_FLIGHT => (
            LOCAL_MAX_IN_FLIGHT,
            Some(format!(
                "note: the local model runs one request at a time on this CPU; concurrency lowered from {requested} to {LOCAL_MAX_IN_FLIGHT} (more would only queue)"
            )),
        ),
        _ => (requested, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explicit() -> Explicit {
        Explicit {
            provider: None,
            base_url: None,
            api_key_env: "OPENAI_API_KEY".into(),
            api_version: None,
            local: LocalSettings::default(),
        }
    }

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn gguf() -> Option<PathBuf> {
        Some(PathBuf::from("/models/m.gguf"))
    }

    #[test]
    fn nothing_configured_is_an_error_not_openai() {
        let err = resolve(&explicit(), env(&[]), || None, true).expect_err("no provider");
        let msg = err.to_string();
        assert!(msg.contains("--base-url URL [--api-key-env VAR]"), "{msg}");
        assert!(msg.contains("cargo xtask fetch-model"), "{msg}");
        assert!(msg.contains("--features local-llm"), "{msg}");
        let err = resolve(&explicit(), env(&[]), gguf, false).expect_err("not built in");
        assert!(err.to_string().contains("built without"), "{err}");
    }

    #[test]
    fn explicit_beats_environment_and_local() {
        let mut e = explicit();
        e.base_url = Some("http://127.0.0.1:8080/v1".into());
        let r = resolve(&e, env(&[("OPENAI_API_KEY", "k")]), gguf, true).expect("resolves");
        assert_eq!(r.name(), "openai");
        assert!(
            matches!(&r, Resolved::Remote { config, source: Source::Explicit }
            if config.base_url == "http://127.0.0.1:8080/v1")
        );
        e.provider = Some(ProviderName::Local);
        let r = resolve(&e, env(&[("OPENAI_API_KEY", "k")]), gguf, true).expect("resolves");
        assert!(matches!(
            r,
            Resolved::Local {
                source: Source::Explicit,
                ..
            }
        ));
    }

    #[test]
    fn environment_beats_local() {
        let r = resolve(&explicit(), env(&[("OPENAI_API_KEY", "k")]), gguf, true).expect("env");
        assert!(
            matches!(&r, Resolved::Remote { config, source: Source::Environment }
            if config.base_url == OPENAI_URL)
        );
        let r = resolve(
            &explicit(),
            env(&[("OPENAI_BASE_URL", "http://h/v1")]),
            gguf,
            true,
        )
        .expect("env");
        assert!(matches!(&r, Resolved::Remote { config, .. } if config.base_url == "http://h/v1"));
        let r = resolve(&explicit(), env(&[("OPENAI_API_KEY", " ")]), gguf, true).expect("local");
        assert!(
            matches!(
                r,
                Resolved::Local {
                    source: Source::LocalDefault,
                    ..
                }
            ),
            "a blank key does not count"
        );
    }

    #[test]
    fn local_needs_feature_and_file() {
        let mut e = explicit();
        e.provider = Some(ProviderName::Local);
        assert!(matches!(
            resolve(&e, env(&[]), gguf, false),
            Err(ProviderError::LocalNotBuilt)
        ));
        assert!(matches!(
            resolve(&e, env(&[]), || None, true),
            Err(ProviderError::NoLocalModel)
        ));
        e.local.model_path = Some("/x.gguf".into());
        let r = resolve(&e, env(&[]), || None, true).expect("path given");
        assert!(
            matches!(r, Resolved::Local { model_path, .. } if model_path == std::path::Path::new("/x.gguf"))
        );
    }

    #[test]
    fn non_openai_remote_needs_a_url() {
        let mut e = explicit();
        e.provider = Some(ProviderName::Azure);
        assert!(matches!(
            resolve(&e, env(&[]), || None, true),
            Err(ProviderError::NeedsBaseUrl("azure"))
        ));
    }

    #[test]
    fn local_concurrency_is_capped_with_a_note() {
        let local = Resolved::Local {
            model_path: "/m.gguf".into(),
            settings: LocalSettings::default(),
            source: Source::Explicit,
        };
        let (n, note) = cap_concurrency(&local, 16);
        assert_eq!(n, LOCAL_MAX_IN_FLIGHT);
        assert!(note.is_some_and(|n| n.contains("16")));
        assert_eq!(cap_concurrency(&local, 1), (1, None));
    }
}
