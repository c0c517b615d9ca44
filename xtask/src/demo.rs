//! `cargo xtask demo`: the whole engine end to end with no API key.
//!
//! Starts the fake OpenAI-compatible server in this process, then runs the real `scenario-engine`
//! binary against it: `plan`, `run` on a sample of the example config (generate → four judges →
//! refine → JSONL), and `test` on the wallet-assistant suite. The fake server's replies follow
//! the requested schemas and are deterministic; point `--base-url`/`OPENAI_API_KEY` at a real
//! endpoint to run the same commands on a real model.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many scenarios of the example config to run.
    #[arg(long, default_value_t = 12)]
    pub sample: u64,
    /// Where the outputs go (relative to the workspace root).
    #[arg(long, default_value = "target/demo")]
    pub out_dir: PathBuf,
    /// Simulated model latency of the fake server, in milliseconds.
    #[arg(long, default_value_t = 20)]
    pub latency_ms: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    banner("building scenario-engine");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "scenario-engine"])
        .current_dir(&root)
        .status()
        .context("could not run cargo build")?;
    if !status.success() {
        bail!("cargo build failed");
    }
    let bin = root.join("target/debug/scenario-engine");
    let out_dir = root.join(&args.out_dir);
    std::fs::create_dir_all(&out_dir)?;

    let runtime = tokio::runtime::Runtime::new()?;
    let server = runtime.block_on(fixtures::fake_openai::FakeServer::start(
        fixtures::FakeConfig {
            seed: 7,
            latency: std::time::Duration::from_millis(args.latency_ms),
            ..fixtures::FakeConfig::default()
        },
    ))?;
    let base_url = server.base_url();
    println!(
        "fake OpenAI-compatible server at {base_url} (schema-following replies; no API key needed)"
    );

    let config = root.join("fixtures/configs/example.yaml");
    banner("scenario-engine plan fixtures/configs/example.yaml");
    run_cli(&bin, &root, &["plan".as_ref(), config.as_os_str()], &[0])?;

    let records = out_dir.join("codeswitch.jsonl");
    // A fresh run each time; the response cache beside it is kept, so a re-run costs no calls.
    let _ = std::fs::remove_file(&records);
    let _ = std::fs::remove_file(out_dir.join("codeswitch.jsonl.errors.jsonl"));
    banner(&format!(
        "scenario-engine run fixtures/configs/example.yaml --sample {} --out {}",
        args.sample,
        rel(&root, &records)
    ));
    let sample = args.sample.to_string();
    run_cli(
        &bin,
        &root,
        &[
            "run".as_ref(),
            config.as_os_str(),
            "--sample".as_ref(),
            sample.as_ref(),
            "--out".as_ref(),
            records.as_os_str(),
            "--base-url".as_ref(),
            base_url.as_ref(),
            "--model".as_ref(),
            "demo-model".as_ref(),
            "--concurrency".as_ref(),
            "16".as_ref(),
        ],
        &[0],
    )?;
    if let Some(first) = std::fs::read_to_string(&records)?.lines().next() {
        let record: serde_json::Value = serde_json::from_str(first)?;
        banner("first record (abridged)");
        for key in [
            "id",
            "topic",
            "first_language",
            "second_language",
            "cs_ratio",
            "score",
            "accepted",
            "refine_count",
        ] {
            println!(
                "  {key}: {}",
                record.get(key).unwrap_or(&serde_json::Value::Null)
            );
        }
        if let Some(text) = record
            .get("data_generation_result")
            .and_then(|v| v.as_array())
        {
            for sentence in text {
                println!("  | {}", sentence.as_str().unwrap_or_default());
            }
        }
    }

    let suite = root.join("fixtures/suites/wallet-assistant.yaml");
    let junit = out_dir.join("wallet-assistant.junit.xml");
    let json = out_dir.join("wallet-assistant.json");
    banner("scenario-engine test fixtures/suites/wallet-assistant.yaml --bot scripted");
    println!("(the scripted bot misbehaves on purpose in some scenarios: exit code 1 is expected)");
    run_cli(
        &bin,
        &root,
        &[
            "test".as_ref(),
            suite.as_os_str(),
            "--bot".as_ref(),
            "scripted".as_ref(),
            "--junit".as_ref(),
            junit.as_os_str(),
            "--json".as_ref(),
            json.as_os_str(),
        ],
        &[0, 1],
    )?;

    banner("outputs");
    println!("  records      {}", rel(&root, &records));
    println!("  suite JUnit  {}", rel(&root, &junit));
    println!("  suite JSON   {}", rel(&root, &json));
    let stats = server.stats();
    println!("  fake server answered {} requests", stats.total_requests);
    Ok(())
}

fn banner(title: &str) {
    println!("\n=== {title}");
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn run_cli(
    bin: &Path,
    root: &Path,
    args: &[&std::ffi::OsStr],
    ok_codes: &[i32],
) -> anyhow::Result<()> {
    let status = Command::new(bin)
        .args(args)
        .current_dir(root)
        .env_remove("OPENAI_API_KEY")
        .status()
        .with_context(|| format!("could not start {}", bin.display()))?;
    match status.code() {
        Some(code) if ok_codes.contains(&code) => Ok(()),
        _ => bail!("scenario-engine exited with {status}"),
    }
}
