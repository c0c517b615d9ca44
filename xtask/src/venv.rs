//! Python virtual environments under `target/` for the chores that drive PyPI packages
//! (`real-server`, `export-check`): made once, reused while the packages import.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// The environment's python in `dir/venv`, with `packages` pip-installed (with `env` set for
/// pip, e.g. build flags) unless `probe` (a Python statement) already runs there.
pub(crate) fn ensure(
    dir: &Path,
    packages: &[&str],
    probe: &str,
    env: &[(&str, String)],
) -> anyhow::Result<PathBuf> {
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    let works = |python: &Path| {
        Command::new(python)
            .args(["-c", probe])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if python.exists() && works(&python) {
        eprintln!("    {} present in {}", packages.join(" "), venv.display());
        return Ok(python);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    eprintln!("    pip install {}", packages.join(" "));
    let started = std::time::Instant::now();
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--disable-pip-version-check"])
        .args(packages)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str()))))?;
    eprintln!("    installed in {:.0} s", started.elapsed().as_secs_f64());
    if !works(&python) {
        bail!("`{probe}` fails after installing {}", packages.join(" "));
    }
    Ok(python)
}

/// Runs `cmd`, failing on a non-zero exit.
pub(crate) fn run(cmd: &mut Command) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("could not run {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed ({status})");
    }
    Ok(())
}
