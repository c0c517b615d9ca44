//! One module per subcommand; each exposes `Args` (clap) and `execute(Args) -> u8` (exit code).

pub mod audit_judges;
pub mod diff;
pub mod merge;
pub mod plan;
pub mod report;
pub mod run;
pub mod scenarios;
pub mod test;

use std::path::PathBuf;

use crate::settings::FlagOverrides;

/// Runs an async command body on a multi-threaded runtime; returns its exit code (3 when the
/// runtime cannot start).
pub fn block_on(command: impl std::future::Future<Output = u8>) -> u8 {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(command),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            crate::exit::RUN_FAILURE
        }
    }
}

/// The model-endpoint flags shared by the commands that call the pipeline's agents (`run`,
/// `audit-judges`); each overrides the config's `run:` section and the environment.
#[derive(Debug, clap::Args)]
pub struct EndpointArgs {
    /// Requests in flight at once.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Endpoint base URL (OpenAI-compatible: up to `/v1`).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Model for every agent (per-agent models come from settings).
    #[arg(long)]
    pub model: Option<String>,
    /// Environment variable holding the API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Provider; `local` is the embedded model (see `crate::provider` for the default).
    #[arg(long, value_parser = crate::provider::ProviderName::VALUES)]
    pub provider: Option<String>,
    /// GGUF file of the local model (default: `$SCENARIO_ENGINE_MODEL`, else the fetch-model cache).
    #[arg(long)]
    pub model_path: Option<PathBuf>,
    /// llama.cpp built-in chat template for a GGUF without one (e.g. `gemma`).
    #[arg(long)]
    pub chat_template: Option<String>,
}

impl EndpointArgs {
    /// Sets the flags that were given as settings overrides.
    pub fn apply(&self, f: &mut FlagOverrides) {
        f.set("concurrency", self.concurrency.map(|c| c as u64));
        f.set("base_url", self.base_url.clone());
        f.set("model", self.model.clone());
        f.set("api_key_env", self.api_key_env.clone());
        f.set("provider", self.provider.clone());
        f.set(
            "local.model_path",
            self.model_path.as_ref().map(|p| p.display().to_string()),
        );
        f.set("local.chat_template", self.chat_template.clone());
    }
}
