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
    ensure_with(dir, packages, probe, env, None)
}

/// [`ensure`], in the background when `background_log` is given: pip runs at the lowest CPU
/// priority (`nice -n 19`, inherited by the compilers of a source build), so it only takes time
/// the foreground leaves idle, and its output goes to that file instead of the terminal.
pub(crate) fn ensure_with(
    dir: &Path,
    packages: &[&str],
    probe: &str,
    env: &[(&str, String)],
    background_log: Option<&Path>,
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
    // What the environment was made with (packages and build variables): one made otherwise
    // (an older llama.cpp build's flags) is made again, not reused.
    let stamp_path = venv.join("scenario-engine-stamp");
    let stamp = format!("{packages:?} {env:?}");
    let stamped = std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp);
    if python.exists() && stamped && works(&python) {
        eprintln!("    {} present in {}", packages.join(" "), venv.display());
        return Ok(python);
    }
    if venv.exists() && !stamped {
        std::fs::remove_dir_all(&venv)
            .with_context(|| format!("removing {} (made otherwise)", venv.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
    eprintln!("    pip install {}", packages.join(" "));
    let started = std::time::Instant::now();
    let mut pip = match background_log {
        Some(_) => {
            let mut nice = Command::new("nice");
            nice.args(["-n", "19"]).arg(&python);
            nice
        }
        None => Command::new(&python),
    };
    // No wheel cache: a wheel pip built earlier with other build variables would be reused.
    pip.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-cache-dir",
    ])
    .args(packages)
    .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    if let Some(log) = background_log {
        let out =
            std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        pip.stdout(out.try_clone()?).stderr(out);
    }
    run(&mut pip).with_context(|| match background_log {
        Some(log) => format!(
            "pip install {} (log: {})",
            packages.join(" "),
            log.display()
        ),
        None => format!("pip install {}", packages.join(" ")),
    })?;
    eprintln!("    installed in {:.0} s", started.elapsed().as_secs_f64());
    if !works(&python) {
        bail!("`{probe}` fails after installing {}", packages.join(" "));
    }
    std::fs::write(&stamp_path, stamp)
        .with_context(|| format!("writing {}", stamp_path.display()))?;
    Ok(python)
}

/// Installs Debian `packages` with apt-get (`update`, then `install -y`, quietly and without
/// questions): the system packages of a chore (Slurm, Chromium). Needs root.
pub(crate) fn apt_install(packages: &[&str]) -> anyhow::Result<()> {
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "-qq"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))
}

/// [`apt_install`] with its output in `log` (appended): what CI's background installs run while
/// the first steps compile. The same packages and flags as the step's own install, so what the
/// background installs is what the step would have. Needs root.
pub(crate) fn apt_quiet(packages: &[&str], log: &Path) -> anyhow::Result<()> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    let quiet = |cmd: &mut Command| -> anyhow::Result<()> {
        let status = cmd
            .stdout(out.try_clone()?)
            .stderr(out.try_clone()?)
            .status()
            .with_context(|| format!("could not run {cmd:?}"))?;
        if !status.success() {
            bail!("{cmd:?} failed ({status}); see {}", log.display());
        }
        Ok(())
    };
    quiet(Command::new("apt-get").args(["update", "-qq"]))?;
    quiet(
        Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
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
