//! `cargo xtask export-check`: `scenario-engine export` as its users read it. Exports the
//! fixture run `fixtures/runs/pipeline-after.jsonl` to Parquet and runs
//! `fixtures/python/check_export.py`, which loads it with pyarrow and with Hugging Face
//! `datasets.load_dataset` (offline) and checks rows, splits and the card (pinned versions,
//! pip-installed under `target/export-check/`). Then `fixtures/python/check_export_sizes.py`
//! exports synthetic runs of 1 to 500 scenarios over 1 to 20 pairs (defaults and
//! `--include rejected,duplicates`, several split shares) and loads every export in the same
//! Python process: no empty split, no duplicate cluster in two splits, the card's row counts;
//! and runs whose parameters change type and presence between records, as JSONL and Parquet:
//! every split loads with the card's `dataset_info.features`, every `param_` value reads back.
//! CI runs it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use anyhow::Context;

/// The Python packages, pinned.
const PACKAGES: &[&str] = &["pyarrow==21.0.0", "datasets==4.0.0"];

/// What the environment must import.
const PROBE: &str = "import pyarrow, datasets, yaml";

/// The environment made in the background (pip at the lowest priority, its output in `log`):
/// CI runs this while it compiles, and joins it before the step.
pub(crate) fn prefetch(log: &std::path::Path) -> anyhow::Result<()> {
    let dir = crate::target_dir(&crate::workspace_root()).join("export-check");
    crate::venv::ensure_with(&dir, PACKAGES, PROBE, &[], Some(log)).map(drop)
}

pub(crate) fn run() -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = crate::target_dir(&root).join("export-check");
    let python = crate::venv::ensure(&dir, PACKAGES, PROBE, &[])?;
    let bin = debug_binary(&root)?;
    let run = root.join("fixtures/runs/pipeline-after.jsonl");
    let out = dir.join("dataset");
    crate::venv::run(
        Command::new(&bin)
            .arg("export")
            .arg(&run)
            .arg("--out")
            .arg(&out)
            .args(["--format", "parquet", "--force"])
            .args(["--include", "rejected,duplicates"]),
    )
    .context("scenario-engine export")?;
    crate::venv::run(
        Command::new(&python)
            .arg(root.join("fixtures/python/check_export.py"))
            .arg(&out)
            .arg(&run)
            .env("HF_DATASETS_CACHE", dir.join("hf-cache"))
            .env("HF_HOME", dir.join("hf-home")),
    )
    .context("the exported dataset does not load as expected")?;
    crate::venv::run(
        Command::new(&python)
            .arg(root.join("fixtures/python/check_export_sizes.py"))
            .arg(&bin)
            .arg(root.join("fixtures/runs/record-v1.jsonl"))
            .arg(dir.join("sizes"))
            .env("HF_DATASETS_CACHE", dir.join("hf-cache"))
            .env("HF_HOME", dir.join("hf-home")),
    )
    .context("an export of a synthetic run does not load as expected")
}

/// Builds the debug `scenario-engine` (default features) and returns its path. It is built as
/// `cargo test --workspace` builds it (the same feature resolution), so after the README's test
/// command, as in CI, nothing is compiled again.
pub(crate) fn debug_binary(root: &Path) -> anyhow::Result<PathBuf> {
    Ok(built(root)?.binary.clone())
}

/// What `cargo test --workspace --no-run` built: the debug binary and the real-server test.
pub(crate) struct Built {
    pub(crate) binary: PathBuf,
    pub(crate) real_server_test: PathBuf,
}

static BUILT: OnceLock<Built> = OnceLock::new();

/// Runs `cargo test --workspace --no-run` once per xtask process and remembers what it built.
/// CI asks right after its test step, before the libraries are checked alone in the background:
/// the steps after it then run no cargo at all, where each used to wait on the target
/// directory's lock while a background `cargo clippy` held it (most of the browser step's 222 s).
pub(crate) fn built(root: &Path) -> anyhow::Result<&'static Built> {
    if let Some(built) = BUILT.get() {
        return Ok(built);
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root).args([
        "test",
        "-q",
        "--workspace",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]);
    let output = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("could not run {cmd:?}"))?;
    if !output.status.success() {
        anyhow::bail!("{cmd:?} failed ({})", output.status);
    }
    let real_server_test = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| {
            m["reason"] == "compiler-artifact"
                && m["target"]["name"] == "real_server"
                && m["profile"]["test"] == true
        })
        .and_then(|m| m["executable"].as_str().map(PathBuf::from))
        .context("`cargo test --workspace --no-run` named no real_server test executable")?;
    let built = Built {
        binary: crate::target_dir(root).join("debug/scenario-engine"),
        real_server_test,
    };
    Ok(BUILT.get_or_init(|| built))
}
