//! `cargo xtask fixtures`: re-record the llm-client replay fixtures.
//!
//! Runs the `record_fixtures` example of `llm-client`, which owns the recording logic (requests,
//! redaction, file layout). Without `--base-url` it records `fixtures/recordings/` against the
//! in-process fake server; with it, the same requests go to a live endpoint and land in
//! `fixtures/recordings/live/` (or `--out`). The API key is read by the example from the variable
//! named by `--api-key-env`; it is never passed on a command line.

use std::process::Command;

use anyhow::{Context as _, bail};

/// Flags of `cargo xtask fixtures`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Live endpoint base URL (e.g. https://api.openai.com/v1); omit to use the fake server.
    #[arg(long, env = "LLM_RECORD_BASE_URL")]
    pub base_url: Option<String>,
    /// Model to record with (required with --base-url).
    #[arg(long, env = "LLM_RECORD_MODEL")]
    pub model: Option<String>,
    /// Provider kind: openai, azure or anthropic.
    #[arg(long, env = "LLM_RECORD_KIND", default_value = "openai")]
    pub kind: String,
    /// Name of the environment variable that holds the API key.
    #[arg(long, env = "LLM_RECORD_API_KEY_ENV", default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Output directory for live recordings.
    #[arg(long, env = "LLM_RECORD_DIR")]
    pub out: Option<std::path::PathBuf>,
}

/// Runs the recorder.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(crate::workspace_root()).args([
        "run",
        "--quiet",
        "-p",
        "llm-client",
        "--example",
        "record_fixtures",
    ]);
    // Start from a clean slate so a stale variable cannot switch the mode.
    for var in [
        "LLM_RECORD_BASE_URL",
        "LLM_RECORD_MODEL",
        "LLM_RECORD_KIND",
        "LLM_RECORD_API_KEY_ENV",
        "LLM_RECORD_DIR",
    ] {
        cmd.env_remove(var);
    }
    if let Some(base_url) = &args.base_url {
        let Some(model) = &args.model else {
            bail!("--model is required with --base-url");
        };
        cmd.env("LLM_RECORD_BASE_URL", base_url)
            .env("LLM_RECORD_MODEL", model)
            .env("LLM_RECORD_KIND", &args.kind)
            .env("LLM_RECORD_API_KEY_ENV", &args.api_key_env);
        if let Some(out) = &args.out {
            cmd.env("LLM_RECORD_DIR", out);
        }
    }
    let status = cmd
        .status()
        .context("running the record_fixtures example")?;
    if !status.success() {
        bail!("record_fixtures failed with {status}");
    }
    Ok(())
}
