//! `cargo xtask ci`: the same steps as `.ci/run`, for running locally before a push.

use std::process::Command;

use anyhow::{Context, bail};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Skip `cargo fmt --check` and clippy (tests only).
    #[arg(long)]
    pub tests_only: bool,
    /// Skip the local-model steps (they need cmake and libclang-dev, and build llama.cpp).
    #[arg(long)]
    pub no_local_model: bool,
}

/// One CI step: a program and its arguments, run from the workspace root.
struct Step {
    title: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

const LINT_STEPS: &[Step] = &[
    Step {
        title: "format",
        program: "cargo",
        args: &["fmt", "--all", "--", "--check"],
    },
    Step {
        title: "clippy",
        program: "cargo",
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    },
];

/// The README's test command: unit, integration and doc tests of every crate.
const TEST_STEPS: &[Step] = &[Step {
    title: "tests",
    program: "cargo",
    args: &["test", "--workspace", "--no-fail-fast"],
}];

pub fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let steps = if args.tests_only { &[][..] } else { LINT_STEPS }
        .iter()
        .chain(TEST_STEPS);
    for step in steps {
        eprintln!(
            "==> {} ({} {})",
            step.title,
            step.program,
            step.args.join(" ")
        );
        let status = Command::new(step.program)
            .args(step.args)
            .current_dir(&root)
            // Snapshots are reviewed, never accepted by CI.
            .env("INSTA_UPDATE", "no")
            .status()
            .with_context(|| format!("could not start {}", step.program))?;
        if !status.success() {
            bail!("step `{}` failed ({status})", step.title);
        }
    }
    eprintln!("==> all CI steps passed");
    Ok(())
}
