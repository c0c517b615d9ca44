//! Records replay fixtures, against the in-process fake server (default) or a live endpoint.
//!
//! `cargo run -p llm-client --example record_fixtures` re-records `fixtures/recordings/` against
//! the fake server. The requests are the ones the `replay_fixtures` test sends (shared through
//! `tests/common`), so that test keeps passing as long as the canonical request key is stable.
//! One exchange includes a scripted 500 and a broken reply, so the fixtures also show a retry and
//! a repair.
//!
//! With `LLM_RECORD_BASE_URL` set, the same requests go to a live endpoint instead:
//! `LLM_RECORD_MODEL` (required), `LLM_RECORD_KIND` (`openai` | `azure` | `anthropic`, default
//! `openai`), `LLM_RECORD_API_KEY_ENV` (name of the key variable, default `OPENAI_API_KEY`) and
//! `LLM_RECORD_DIR` (default `fixtures/recordings/live`). Credentials are redacted by the recorder
//! in both modes. `cargo xtask fixtures` wraps this.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;

use fixtures::{FakeConfig, FakeServer, Fault};
use llm_client::{ChatModel, Client, ProviderKind};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let recordings = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/recordings");
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());

    let (client, dir, _fake) = if let Some(base_url) = env("LLM_RECORD_BASE_URL") {
        let kind: ProviderKind = match env("LLM_RECORD_KIND") {
            Some(k) => serde_json::from_value(serde_json::Value::String(k))?,
            None => ProviderKind::OpenAi,
        };
        let dir = env("LLM_RECORD_DIR").map_or_else(|| recordings.join("live"), PathBuf::from);
        let mut cfg = common::fast_config(&base_url);
        cfg.provider.kind = kind;
        cfg.provider.api_key_env =
            env("LLM_RECORD_API_KEY_ENV").unwrap_or_else(|| "OPENAI_API_KEY".into());
        cfg.record_dir = Some(dir.clone());
        (Client::new(cfg)?, dir, None)
    } else {
        let fake = FakeServer::start(
            FakeConfig::default()
                .with_seed(7)
                .with_api_key("fake-key")
                .with_script([Fault::ServerError, Fault::BrokenJson]),
        )
        .await?;
        let mut cfg = common::fast_config(&fake.base_url());
        cfg.record_dir = Some(recordings.clone());
        (
            Client::with_api_key(cfg, "fake-key")?,
            recordings,
            Some(fake),
        )
    };

    let model = env("LLM_RECORD_MODEL");
    for mut req in common::replay_fixture_requests() {
        if let Some(model) = &model {
            req.model.clone_from(model);
        }
        client.chat(req).await?;
    }
    println!(
        "recorded {} calls into {}",
        client.stats().calls,
        dir.display()
    );
    Ok(())
}
