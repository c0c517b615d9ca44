//! Provider bootstrap: which model answers a `run`, an `audit-judges` or a `test --bot llm`,
//! decided once, in one place, and never by a silent fallback to a paid endpoint; then the model
//! itself, built with every transport setting ([`bootstrap`]).
//!
//! The first rule that applies wins:
//! 1. **Explicit configuration**: `--provider`, `--base-url`, or `provider` / `base_url` in the
//!    config's `run:` section (and `SCENARIO_ENGINE__PROVIDER` / `__BASE_URL`). `--provider local`
//!    uses the embedded model (`--model-path`, `--chat-template`, or `local:` in `run:`).
//! 2. **The OpenAI environment**: `OPENAI_BASE_URL` (any OpenAI-compatible server, key optional)
//!    or `OPENAI_API_KEY` (api.openai.com).
//! 3. **The embedded local model**, when the binary was built with `--features local-llm` and
//!    a GGUF file is found (`$SCENARIO_ENGINE_MODEL`, else the cache filled by
//!    `cargo xtask fetch-model`: `$SCENARIO_ENGINE_MODEL_DIR`, else
//!    `~/.cache/scenario-engine/models`). These names are the application's: the library takes
//!    a path.
//! 4. Otherwise an error that lists exactly how to configure a provider.
//!
//! The local model computes on this machine's CPU, one request at a time (llama.cpp spreads one
//! decode over every core), so more requests in flight only queue: [`LOCAL_MAX_IN_FLIGHT`] caps
//! them and the caller tells the user. A base URL is shown only through
//! [`llm_client::redact_url`], so `user:password@` and key-like query parameters never reach the
//! terminal or a log.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use llm_client::{ChatModel, Client, ClientConfig, ProviderConfig, ProviderKind, redact_url};

use crate::settings::RunSettings;

/// The default OpenAI endpoint, used only when `openai` was chosen explicitly or
/// `OPENAI_API_KEY` is set.
pub const OPENAI_URL: &str = "https://api.openai.com/v1";

/// Requests in flight against the local model: one decodes while the next one is tokenised.
pub const LOCAL_MAX_IN_FLIGHT: usize = 2;

/// Environment variable naming a GGUF file to use as the local model.
pub const MODEL_PATH_ENV: &str = "SCENARIO_ENGINE_MODEL";
/// Environment variable naming the model cache directory (`cargo xtask fetch-model` fills it).
pub const MODEL_DIR_ENV: &str = "SCENARIO_ENGINE_MODEL_DIR";
/// File name of the default model in the cache directory (SmolLM2-135M-Instruct, Q4_1).
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// A provider name as written in settings and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProviderName {
    /// OpenAI Chat Completions and compatible servers.
    #[serde(rename = "openai")]
    #[value(name = "openai")]
    OpenAi,
    /// Azure OpenAI.
    Azure,
    /// Anthropic Messages.
    Anthropic,
    /// The embedded llama.cpp model (feature `local-llm`).
    Local,
}

impl ProviderName {
    /// The name as written in settings and flags.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Azure => "azure",
            Self::Anthropic => "anthropic",
            Self::Local => "local",
        }
    }

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
    /// A short description for the user: provider, endpoint (credentials redacted) or file, and
    /// why.
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
                redact_url(&config.base_url),
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
    /// The model could not be built (an invalid endpoint, a local model that does not load).
    #[error("{0}")]
    Build(String),
}

/// Whether this binary contains the embedded model.
#[must_use]
pub const fn local_built_in() -> bool {
    cfg!(feature = "local-llm")
}

/// The local model file found without configuration (see the module docs, rule 3): `env` reads
/// an environment variable, `home` is the user's home directory, `exists` says whether a file is
/// there (all injected, so tests do not depend on this machine).
#[must_use]
pub fn discover_local(
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
        || discover_local(|k| std::env::var_os(k), std::env::home_dir(), Path::is_file),
        local_built_in(),
    )
}

/// A chat model ready for a command, and what it was built from.
pub struct Bootstrapped {
    /// The provider that answers.
    pub resolved: Resolved,
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Requests (or scenarios) in flight: the settings' concurrency, capped for the local model.
    pub in_flight: usize,
    /// The transport's configuration of a remote provider (the Batch API is built from it).
    pub client_config: Option<ClientConfig>,
}

/// The one start-up of a model for every command: resolves the provider of `settings` (see the
/// module docs), tells the user which one on stderr (credentials redacted) and builds the model
/// with the settings' retry, limits, cache, prices and timeout. `cache_base` is the file next to
/// which the default cache directory goes.
///
/// # Errors
/// No provider, or a model that cannot be built.
pub fn bootstrap(settings: &RunSettings, cache_base: &Path) -> Result<Bootstrapped, ProviderError> {
    let resolved = resolve_from_env(&settings.explicit_provider())?;
    eprintln!("{}", resolved.describe());
    let (in_flight, note) = cap_concurrency(&resolved, settings.concurrency);
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let (model, client_config): (Arc<dyn ChatModel>, _) = match &resolved {
        Resolved::Remote { config, .. } => {
            let client_config = settings.client_config(cache_base, config);
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

    #[test]
    fn credentials_in_the_base_url_are_never_shown() {
        let mut e = explicit();
        e.base_url = Some("https://bob:hunter2@proxy.example/v1?api-key=sk-123&x=1".into());
        let r = resolve(&e, env(&[]), || None, false).expect("resolves");
        let shown = r.describe();
        assert!(
            !shown.contains("hunter2") && !shown.contains("sk-123"),
            "{shown}"
        );
        assert!(shown.contains("proxy.example/v1"), "{shown}");
        assert!(shown.contains("x=1"), "{shown}");
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
