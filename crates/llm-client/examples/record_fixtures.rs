//! Re-records the replay fixtures in `fixtures/recordings/` against the in-process fake server.
//!
//! Run with `cargo run -p llm-client --example record_fixtures`. The requests are the ones the
//! `replay_fixtures` test sends (shared through `tests/common`), so the test keeps passing as long
//! as the canonical request key is stable. One exchange includes a scripted 500 and a broken reply
//! so the fixtures also show a retry and a repair. Credentials are redacted by the recorder.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;

use fixtures::{FakeConfig, FakeServer, Fault};
use llm_client::{ChatModel, Client};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/recordings");
    let fake = FakeServer::start(
        FakeConfig::default()
            .with_seed(7)
            .with_api_key("fake-key")
            .with_script([Fault::ServerError, Fault::BrokenJson]),
    )
    .await?;
    let mut cfg = common::fast_config(&fake.base_url());
    cfg.record_dir = Some(dir.clone());
    let client = Client::with_api_key(cfg, "fake-key")?;
    for req in common::replay_fixture_requests() {
        client.chat(req).await?;
    }
    println!(
        "recorded {} exchanges into {}",
        client.stats().calls,
        dir.display()
    );
    Ok(())
}
