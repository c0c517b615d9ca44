//! Which model answers a run: decided once, by rules, never by a silent fallback to a paid
//! endpoint. The application passes in how it finds the embedded model (its environment
//! variables and cache directory) and says how to configure a provider when none is.
//!
//! The first rule that applies wins:
//! 1. **Explicit configuration**: `provider` / `base_url` in the settings (flags, the config's
//!    `run:` section, the environment). Several base URLs are a fleet of OpenAI-compatible
//!    servers of the same models ([`BaseUrls`]). `local` uses the embedded model (`local.model_path`,
//!    else the file the application finds).
//! 2. **The OpenAI environment**: `OPENAI_BASE_URL` (any OpenAI-compatible server, key optional)
//!    or `OPENAI_API_KEY` (api.openai.com).
//! 3. **The embedded local model**, when it is compiled in and a model file is found.
//! 4. Otherwise a [`ResolveError`].
//!
//! The local model serves [`LocalSettings::slots`] requests at once (continuous batching on this
//! machine's CPU); more scenarios in flight than [`LOCAL_SCENARIOS_PER_SLOT`] per slot would only
//! queue, so [`cap_concurrency`] caps them. A base URL is shown only through
//! [`stdx::redact_url`], so `user:password@` and key-like query parameters never reach a
//! terminal or a log.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use llm_client::{ProviderConfig, ProviderKind};
use stdx::redact_url;

/// The default OpenAI endpoint, used only when `openai` was chosen explicitly or
/// `OPENAI_API_KEY` is set.
pub const OPENAI_URL: &str = "https://api.openai.com/v1";

/// Scenarios in flight per slot of the local model: a scenario alternates between one call (the
/// generator, the refiner) and four (the judges), so two per slot keep every slot busy.
pub const LOCAL_SCENARIOS_PER_SLOT: usize = 2;

/// A provider name as written in settings and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The name as written in settings and flags: a remote provider's is its wire protocol's.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.remote_kind().map_or("local", ProviderKind::as_str)
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

/// `base_url` as settings write it: one URL, or a list of OpenAI-compatible servers of the
/// same models (`--base-url` given several times; `base_url: [URL, URL]` in the `run:`
/// section). The first is the primary; the order changes nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrls(pub Vec<String>);

impl BaseUrls {
    /// A URL given twice (trailing `/` ignored), if any, redacted.
    #[must_use]
    pub fn duplicate(&self) -> Option<String> {
        let mut seen = std::collections::BTreeSet::new();
        self.0
            .iter()
            .find(|u| !seen.insert(u.trim_end_matches('/')))
            .map(|u| redact_url(u))
    }
}

impl Serialize for BaseUrls {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => s.serialize_str(one),
            many => many.serialize(s),
        }
    }
}

/// Written by hand like the `Deserialize` below: one URL or a list of them.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for BaseUrls {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BaseUrls".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A base URL, or a list of them (a fleet of servers of the same models).",
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for BaseUrls {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        match Raw::deserialize(d) {
            Ok(Raw::One(url)) => Ok(Self(vec![url])),
            Ok(Raw::Many(urls)) => Ok(Self(urls)),
            Err(_) => Err(serde::de::Error::custom("expected a URL or a list of URLs")),
        }
    }
}

/// Settings of the embedded model (`run: { local: { … } }`, `--model-path`, `--chat-template`).
/// Always compiled, so a config naming them parses whether or not the feature is built in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct LocalSettings {
    /// The GGUF file; default: the one the application finds (see [`resolve`]'s `discover`).
    pub model_path: Option<PathBuf>,
    /// A llama.cpp built-in chat template name, for GGUF files without one (e.g. "gemma").
    pub chat_template: Option<String>,
    /// Upper bound on generated tokens per call, whatever an agent asks for.
    pub max_tokens_cap: Option<u32>,
    /// CPU threads; default every core.
    pub threads: Option<u32>,
    /// Sequences decoded together (continuous batching); default
    /// [`llm_client::default_local_slots`].
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = 64)))]
    pub slots: Option<u32>,
    /// Reuse the KV cells of a prompt prefix already decoded; default on (off only to measure).
    pub prefix_reuse: Option<bool>,
}

impl LocalSettings {
    /// The sequence slots the embedded model will serve at once.
    #[must_use]
    pub fn slots(&self) -> u32 {
        self.slots
            .unwrap_or_else(llm_client::default_local_slots)
            .max(1)
    }
}

/// What the user configured, before resolution.
#[derive(Debug, Clone)]
pub struct Explicit {
    /// `--provider` / `provider`.
    pub provider: Option<ProviderName>,
    /// `--base-url` / `base_url`: one URL, or several (a fleet); empty when unset.
    pub base_urls: Vec<String>,
    /// `--api-key-env` / `api_key_env` (has a default, so it never counts as explicit).
    pub api_key_env: String,
    /// `api_version` for Azure / Anthropic.
    pub api_version: Option<String>,
    /// Local model settings.
    pub local: LocalSettings,
}

impl Explicit {
    /// Whether the embedded model was asked for by name (`--provider local`).
    #[must_use]
    pub fn local_named(&self) -> bool {
        self.provider == Some(ProviderName::Local)
    }
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
    /// Whether the embedded model answers (it is free: a budget has nothing to limit).
    #[must_use]
    pub fn is_local(&self) -> bool {
        matches!(self, Self::Local { .. })
    }

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
                config
                    .base_urls()
                    .map(redact_url)
                    .collect::<Vec<_>>()
                    .join(", "),
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

/// Why no provider could be chosen. The application adds how to configure one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Nothing configured and no local model.
    #[error("no model provider is configured")]
    NothingConfigured {
        /// Whether the embedded model is compiled in (it was not found).
        local_built_in: bool,
    },
    /// `local` was asked for but the embedded model is not compiled in.
    #[error("the local provider needs a build with the embedded model")]
    LocalNotBuilt,
    /// `local` was asked for but no model file was found.
    #[error("no local model file was found")]
    NoLocalModel,
    /// A remote provider other than OpenAI without an endpoint.
    #[error("provider {0} needs a base URL")]
    NeedsBaseUrl(&'static str),
}

/// Applies the rules of the module docs. `env` reads an environment variable and `discover`
/// finds the local model the application's way (both injected so tests do not depend on this
/// machine); `built_in` says whether the local model is compiled in.
///
/// # Errors
/// See [`ResolveError`]; never a silent default.
pub fn resolve(
    explicit: &Explicit,
    env: impl Fn(&str) -> Option<String>,
    discover: impl FnOnce() -> Option<PathBuf>,
    built_in: bool,
) -> Result<Resolved, ResolveError> {
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let extra_base_urls = explicit.base_urls.get(1..).unwrap_or_default().to_vec();
    let remote = |kind: ProviderKind, base_url: String, source| Resolved::Remote {
        config: ProviderConfig {
            kind,
            base_url,
            extra_base_urls: extra_base_urls.clone(),
            api_key_env: explicit.api_key_env.clone(),
            api_version: explicit.api_version.clone(),
            ..ProviderConfig::default()
        },
        source,
    };
    match (explicit.provider, explicit.base_urls.first()) {
        (Some(ProviderName::Local), _) => {
            if !built_in {
                return Err(ResolveError::LocalNotBuilt);
            }
            let model_path = explicit
                .local
                .model_path
                .clone()
                .or_else(discover)
                .ok_or(ResolveError::NoLocalModel)?;
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
                (None, other) => return Err(ResolveError::NeedsBaseUrl(other.as_str())),
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
    Err(ResolveError::NothingConfigured {
        local_built_in: built_in,
    })
}

/// The in-flight cap to use: `requested`, lowered for the local model to
/// [`LOCAL_SCENARIOS_PER_SLOT`] per slot. Returns the cap and, when it was lowered, a note for the
/// user.
#[must_use]
pub fn cap_concurrency(resolved: &Resolved, requested: usize) -> (usize, Option<String>) {
    match resolved {
        Resolved::Local { settings, .. } => {
            let slots = settings.slots() as usize;
            let cap = slots.saturating_mul(LOCAL_SCENARIOS_PER_SLOT);
            if requested > cap {
                (
                    cap,
                    Some(format!(
                        "note: the local model decodes {slots} request(s) at once on this machine; concurrency lowered from {requested} to {cap} scenarios (more would only queue)"
                    )),
                )
            } else {
                (requested, None)
            }
        }
        Resolved::Remote { .. } => (requested, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explicit() -> Explicit {
        Explicit {
            provider: None,
            base_urls: Vec::new(),
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
        assert_eq!(
            resolve(&explicit(), env(&[]), || None, true),
            Err(ResolveError::NothingConfigured {
                local_built_in: true
            })
        );
        assert_eq!(
            resolve(&explicit(), env(&[]), gguf, false),
            Err(ResolveError::NothingConfigured {
                local_built_in: false
            }),
            "a model file is no use when the embedded model is not compiled in"
        );
    }

    #[test]
    fn explicit_beats_environment_and_local() {
        let mut e = explicit();
        e.base_urls = vec!["http://127.0.0.1:8080/v1".into()];
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
            Err(ResolveError::LocalNotBuilt)
        ));
        assert!(matches!(
            resolve(&e, env(&[]), || None, true),
            Err(ResolveError::NoLocalModel)
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
            Err(ResolveError::NeedsBaseUrl("azure"))
        ));
    }

    #[test]
    fn credentials_in_the_base_url_are_never_shown() {
        let mut e = explicit();
        e.base_urls = vec!["https://bob:hunter2@proxy.example/v1?api-key=sk-123&x=1".into()];
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
    fn several_base_urls_make_a_fleet_behind_the_first() {
        let mut e = explicit();
        e.base_urls = vec!["http://a:8000/v1".into(), "http://u:pw@b:8000/v1".into()];
        let r = resolve(&e, env(&[]), || None, false).expect("resolves");
        let Resolved::Remote { config, .. } = &r else {
            panic!("{r:?}")
        };
        assert_eq!(config.base_url, "http://a:8000/v1");
        assert_eq!(config.extra_base_urls, ["http://u:pw@b:8000/v1"]);
        let shown = r.describe();
        assert!(
            shown.contains("http://a:8000/v1, http://[redacted]@b:8000/v1"),
            "{shown}"
        );
    }

    #[test]
    fn base_urls_read_one_or_a_list_and_find_duplicates() {
        let one: BaseUrls = serde_json::from_value(serde_json::json!("http://a/v1")).unwrap();
        assert_eq!(one.0, ["http://a/v1"]);
        assert_eq!(serde_json::to_value(&one).unwrap(), "http://a/v1");
        let many: BaseUrls =
            serde_json::from_value(serde_json::json!(["http://a/v1", "http://b/v1/"])).unwrap();
        assert_eq!(many.duplicate(), None);
        let twice = BaseUrls(vec!["http://a/v1".into(), "http://a/v1/".into()]);
        assert_eq!(twice.duplicate().as_deref(), Some("http://a/v1/"));
        let err = serde_json::from_value::<BaseUrls>(serde_json::json!(3)).unwrap_err();
        assert!(err.to_string().contains("a URL or a list of URLs"), "{err}");
    }

    #[test]
    fn the_name_is_the_wire_protocol_name() {
        assert_eq!(ProviderName::OpenAi.as_str(), "openai");
        assert_eq!(ProviderName::Azure.as_str(), "azure");
        assert_eq!(ProviderName::Anthropic.as_str(), "anthropic");
        assert_eq!(ProviderName::Local.as_str(), "local");
        let json = serde_json::to_value(ProviderName::OpenAi).expect("serialises");
        assert_eq!(json, "openai");
    }

    #[test]
    fn local_concurrency_is_capped_with_a_note() {
        let local = Resolved::Local {
            model_path: "/m.gguf".into(),
            settings: LocalSettings {
                slots: Some(3),
                ..LocalSettings::default()
            },
            source: Source::Explicit,
        };
        let (n, note) = cap_concurrency(&local, 16);
        assert_eq!(n, 3 * LOCAL_SCENARIOS_PER_SLOT);
        assert!(note.is_some_and(|n| n.contains("16") && n.contains("3 request")));
        assert_eq!(cap_concurrency(&local, 1), (1, None));
    }
}
