//! `cargo xtask k8s-check`: the Kubernetes Job that `scenario-engine launch k8s` writes, checked
//! against the API schemas of every Kubernetes version its header claims (1.33 and later), offline,
//! with `kubernetes-validate` from PyPI (its wheel carries the schemas; pinned). The run has the
//! most tasks a name must leave room for and the longest name, so the pod-hostname rule
//! (`<name>-<index>`, a DNS label) is checked too. CI runs it.

use std::process::Command;

use anyhow::{Context, bail};

/// The validator, pinned: its wheel carries the schemas of Kubernetes 1.25 to 1.37.
const PACKAGES: &[&str] = &["kubernetes-validate==1.37.0"];

/// The versions the manifest's header claims ("Needs Kubernetes 1.33+") that the validator knows.
const VERSIONS: &[&str] = &["1.33.0", "1.34.0", "1.35.0", "1.36.0", "1.37.0"];

/// A small grid split into many tasks: indices up to 1,099 need four digits in pod names.
const CONFIG: &str = "name: k8s-check
language_pairs:
  - {first_language: Spanish, second_language: English}
axes:
  topic: [business, health, sports, travel, food, music, school, family, work, sport, art]
  cs_ratio: [\"10%\", \"20%\", \"30%\", \"40%\", \"50%\", \"60%\", \"70%\", \"80%\", \"90%\", \"95%\"]
  tense: [Past, Present, Future, Perfect, Conditional, Imperative, Subjunctive, Progressive, Habitual, Passive]
seed: 1
";

/// The environment made in the background (as [`crate::export_check::prefetch`]).
pub(crate) fn prefetch(log: &std::path::Path) -> anyhow::Result<()> {
    let dir = crate::target_dir(&crate::workspace_root()).join("k8s-check");
    crate::venv::ensure_with(&dir, PACKAGES, "import kubernetes_validate", &[], Some(log)).map(drop)
}

pub(crate) fn run() -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = crate::target_dir(&root).join("k8s-check");
    let python = crate::venv::ensure(&dir, PACKAGES, "import kubernetes_validate", &[])?;
    let validator = python.with_file_name("kubernetes-validate");
    let bin = crate::export_check::debug_binary(&root)?;
    let work = dir.join("work");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("clearing {}", work.display()))?;
    }
    std::fs::create_dir_all(&work)?;
    let config = work.join("grid.yaml");
    std::fs::write(&config, CONFIG)?;
    let run_dir = work.join("run");
    crate::venv::run(
        Command::new(&bin)
            .arg("plan")
            .arg(&config)
            .args(["--tasks", "1100", "--into"])
            .arg(&run_dir),
    )
    .context("scenario-engine plan --tasks")?;
    let long_name = format!("Code-switching {} run", "very ".repeat(20));
    crate::venv::run(
        Command::new(&bin)
            .args(["launch", "k8s"])
            .arg(&run_dir)
            .args(["--set", &format!("name={long_name}")]),
    )
    .context("scenario-engine launch k8s")?;
    let job = run_dir.join("launch/job.yaml");
    let text =
        std::fs::read_to_string(&job).with_context(|| format!("reading {}", job.display()))?;
    let name = text
        .lines()
        .find_map(|l| l.strip_prefix("  name: "))
        .context("the Job has no metadata.name")?
        .trim_matches(['"', '\'']);
    let last_pod = format!("{name}-1099");
    if last_pod.len() > 63 {
        bail!("pod hostname {last_pod} is longer than a DNS label (63)");
    }
    for version in VERSIONS {
        crate::venv::run(
            Command::new(&validator)
                .args(["--strict", "--kubernetes-version", version])
                .arg(&job),
        )
        .with_context(|| {
            format!(
                "{} is not a valid Job for Kubernetes {version}",
                job.display()
            )
        })?;
    }
    eprintln!(
        "    {} is valid for Kubernetes {} (strict); the last pod's hostname {last_pod} is a DNS label",
        job.display(),
        VERSIONS.join(", ")
    );
    Ok(())
}
