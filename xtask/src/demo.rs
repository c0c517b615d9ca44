//! `cargo xtask demo`: the whole engine end to end with no API key, on a real model.
//!
//! The default demo runs the embedded local model (SmolLM2-135M-Instruct through llama.cpp):
//! it installs the build tools when missing (as root), fetches the model (`fetch-model`), builds
//! `scenario-engine` in release with `--features local-llm`, then runs `plan`, `run` on a small
//! sample of the example config (generate → four judges → refine → JSONL) and the wallet suite
//! with the model as the bot, and prints the summary, the first record, seconds per scenario and
//! tokens per second. Every stage is real; the text is poor because the model is tiny.
//!
//! `cargo xtask demo --fake` keeps the fast variant: the fake OpenAI-compatible server in this
//! process (schema-following deterministic replies), a debug build, no llama.cpp.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use runlog::ScenarioRecord;
use runlog::record::RecordReader;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Use the fake server instead of the local model (fast; no llama.cpp build).
    #[arg(long)]
    pub fake: bool,
    /// How many scenarios of the example config to run (default 4 local, 12 fake).
    #[arg(long)]
    pub sample: Option<u64>,
    /// Where the outputs go (relative to the workspace root).
    #[arg(long, default_value = "target/demo")]
    pub out_dir: PathBuf,
    /// Simulated model latency of the fake server, in milliseconds.
    #[arg(long, default_value_t = 20)]
    pub latency_ms: u64,
    /// Local model: cap on generated tokens per call (bounds the demo's time).
    #[arg(long, default_value_t = 256)]
    pub max_tokens: u32,
    /// Local model: cargo target directory of the `local-llm` build (relative to the workspace
    /// root), kept apart so the default `target/` is not rebuilt with another feature set.
    #[arg(long, default_value = "target/local-llm")]
    pub target_dir: PathBuf,
    /// Local model: which wallet-suite scenarios to run (`test --filter`); "" runs all 29.
    #[arg(long, default_value = "balance")]
    pub suite_filter: String,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    if args.fake {
        run_fake(&args)
    } else {
        run_local(&args)
    }
}

/// The demo on the embedded model.
fn run_local(args: &Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let started = Instant::now();
    banner("checking build tools (cmake, libclang)");
    ensure_build_tools()?;

    banner("cargo xtask fetch-model");
    let model = fetch_model(&root)?;
    println!("model: {}", model.display());

    let bin = build_local_binary(&root, &root.join(&args.target_dir))?;
    let out_dir = root.join(&args.out_dir);
    std::fs::create_dir_all(&out_dir)?;

    println!(
        "\nNOTE: the model is SmolLM2-135M-Instruct, a 135-million-parameter model on this CPU.\n\
         It writes poor code-switched text and its judges are weak. The point of this demo is that\n\
         every stage is real: generation, four judges, refinement, scoring, the bot suite."
    );

    let config = root.join("fixtures/configs/example.yaml");
    banner("scenario-engine plan fixtures/configs/example.yaml");
    run_cli(
        &bin,
        &root,
        &["plan".as_ref(), config.as_os_str()],
        &[],
        &[0],
    )?;

    let records = out_dir.join("codeswitch-local.jsonl");
    let _ = std::fs::remove_file(&records);
    let _ = std::fs::remove_file(out_dir.join("codeswitch-local.jsonl.errors.jsonl"));
    let sample = args.sample.unwrap_or(4).to_string();
    let cap = args.max_tokens.to_string();
    let run_args: Vec<&std::ffi::OsStr> = vec![
        "run".as_ref(),
        config.as_os_str(),
        "--provider".as_ref(),
        "local".as_ref(),
        "--model-path".as_ref(),
        model.as_os_str(),
        "--sample".as_ref(),
        sample.as_ref(),
        "--max-refinements".as_ref(),
        "1".as_ref(),
        "--ratio-judge".as_ref(),
        "measured".as_ref(),
        "--no-cache".as_ref(),
        "--out".as_ref(),
        records.as_os_str(),
    ];
    banner(&format!(
        "scenario-engine run fixtures/configs/example.yaml --provider local --sample {sample} --max-refinements 1 --ratio-judge measured --out {}",
        rel(&root, &records)
    ));
    // Bounded tokens per call: the generator's 1200 of the example config would dominate.
    let env = [("SCENARIO_ENGINE__LOCAL__MAX_TOKENS_CAP", cap.as_str())];
    let run_started = Instant::now();
    // Exit 3 (some scenarios failed at the model) still leaves the others' records to show.
    run_cli(&bin, &root, &run_args, &env, &[0, 3])?;
    let run_secs = run_started.elapsed().as_secs_f64();
    let figures = RunFigures::read(&records)?;
    print_first_record(&records)?;

    let suite = root.join("fixtures/suites/wallet-assistant.yaml");
    let junit = out_dir.join("wallet-assistant-local.junit.xml");
    let json = out_dir.join("wallet-assistant-local.json");
    let mut test_args: Vec<&std::ffi::OsStr> = vec![
        "test".as_ref(),
        suite.as_os_str(),
        "--bot".as_ref(),
        "llm".as_ref(),
        "--provider".as_ref(),
        "local".as_ref(),
        "--model-path".as_ref(),
        model.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
    ];
    if !args.suite_filter.is_empty() {
        test_args.push("--filter".as_ref());
        test_args.push(args.suite_filter.as_ref());
    }
    banner(&format!(
        "scenario-engine test fixtures/suites/wallet-assistant.yaml --bot llm --provider local{}",
        if args.suite_filter.is_empty() {
            String::new()
        } else {
            format!(" --filter {}", args.suite_filter)
        }
    ));
    println!("(a 135M model fails many checks: exit code 1 is expected)");
    let suite_started = Instant::now();
    run_cli(&bin, &root, &test_args, &env, &[0, 1])?;
    let suite_secs = suite_started.elapsed().as_secs_f64();

    banner("figures");
    println!(
        "  run: {} record(s) in {run_secs:.1} s = {} s per scenario; {} completion + {} prompt tokens = {} generated tok/s (wall clock, prompts included)",
        figures.records,
        per(run_secs, figures.records as f64, 1),
        figures.completion_tokens,
        figures.prompt_tokens,
        per(figures.completion_tokens as f64, run_secs, 1),
    );
    println!("  wallet suite: {suite_secs:.1} s");
    println!("  whole demo: {:.1} s", started.elapsed().as_secs_f64());
    banner("outputs");
    println!("  records      {}", rel(&root, &records));
    println!("  suite JUnit  {}", rel(&root, &junit));
    println!("  suite JSON   {}", rel(&root, &json));
    println!(
        "  summarise    {} report {}",
        rel(&root, &bin),
        rel(&root, &records)
    );
    Ok(())
}

/// Builds `scenario-engine` in release with the embedded model into `target_dir` (kept apart so
/// the default `target/` is not rebuilt with another feature set) and returns the binary.
pub(crate) fn build_local_binary(root: &Path, target_dir: &Path) -> anyhow::Result<PathBuf> {
    banner(&format!(
        "cargo build --release -p scenario-engine --features local-llm (into {}; the first build compiles llama.cpp: minutes)",
        rel(root, target_dir)
    ));
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "-p",
            "scenario-engine",
            "--features",
            "local-llm",
        ])
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(root)
        .status()
        .context("could not run cargo build")?;
    if !status.success() {
        bail!("cargo build --features local-llm failed (see the compiler output above)");
    }
    Ok(target_dir.join("release/scenario-engine"))
}

/// Totals over the run's records.
pub(crate) struct RunFigures {
    pub(crate) records: u64,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
}

impl RunFigures {
    pub(crate) fn read(records: &Path) -> anyhow::Result<Self> {
        let reader = RecordReader::<_, ScenarioRecord>::open(records)
            .with_context(|| format!("no records in {}", records.display()))?;
        let mut f = Self {
            records: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
        };
        for record in reader.flatten().map(|located| located.record) {
            f.records += 1;
            f.prompt_tokens += record.usage.prompt_tokens;
            f.completion_tokens += record.usage.completion_tokens;
        }
        Ok(f)
    }
}

/// `a / b` with `digits` decimals, or "-" when `b` is zero.
fn per(a: f64, b: f64, digits: usize) -> String {
    if b > 0.0 {
        format!("{:.digits$}", a / b)
    } else {
        "-".to_owned()
    }
}

/// Makes sure llama-cpp-sys can build: cmake and libclang (bindgen). Installs them with apt-get
/// when running as root; otherwise says what to install.
pub(crate) fn ensure_build_tools() -> anyhow::Result<()> {
    let has_cmake = Command::new("sh")
        .args(["-c", "command -v cmake"])
        .output()
        .is_ok_and(|o| o.status.success());
    let has_libclang = std::env::var_os("LIBCLANG_PATH").is_some() || libclang_present();
    if has_cmake && has_libclang {
        println!("cmake and libclang present");
        return Ok(());
    }
    if !is_root() {
        bail!(
            "building llama.cpp needs cmake and libclang: run `sudo apt-get install -y cmake libclang-dev` \
             (or `cargo xtask demo --fake` for the fake-server demo)"
        );
    }
    println!("installing cmake libclang-dev with apt-get");
    for args in [
        &["update"][..],
        &[
            "install",
            "-y",
            "--no-install-recommends",
            "cmake",
            "libclang-dev",
        ][..],
    ] {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("could not run apt-get")?;
        if !status.success() {
            bail!("apt-get {} failed", args.join(" "));
        }
    }
    Ok(())
}

/// Whether a libclang shared library is where bindgen (clang-sys) looks on Debian/Ubuntu.
fn libclang_present() -> bool {
    let dirs = [
        "/usr/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    ];
    let mut candidates: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
    if let Ok(entries) = std::fs::read_dir("/usr/lib") {
        candidates.extend(
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("llvm-"))
                .map(|e| e.path().join("lib")),
        );
    }
    candidates.iter().any(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libclang"))
        })
    })
}

/// Runs `fetch-model` (this xtask binary) and returns the GGUF path it prints.
pub(crate) fn fetch_model(root: &Path) -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe().context("cannot find the xtask binary")?;
    let out = Command::new(me)
        .arg("fetch-model")
        .current_dir(root)
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("could not run fetch-model")?;
    if !out.status.success() {
        bail!("fetch-model failed ({})", out.status);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let path = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(PathBuf::from)
        .context("fetch-model printed no path")?;
    if !path.is_file() {
        bail!(
            "fetch-model printed {}, which is not a file",
            path.display()
        );
    }
    Ok(path)
}

/// Prints the first record of a run, abridged: its id, parameters, verdict and texts.
fn print_first_record(records: &Path) -> anyhow::Result<()> {
    let first = RecordReader::<_, ScenarioRecord>::open(records)?
        .flatten()
        .next()
        .map(|located| located.record);
    let Some(record) = first else {
        println!("(no records written)");
        return Ok(());
    };
    banner("first record (abridged)");
    println!("  id: {}", record.id);
    for key in ["topic", "first_language", "second_language", "cs_ratio"] {
        if let Some(v) = record.params.get(key) {
            println!("  {key}: {v}");
        }
    }
    println!(
        "  score: {:.2} ({}), refinements: {}",
        record.score,
        if record.accepted {
            "accepted"
        } else {
            "rejected"
        },
        record.refine_count
    );
    let scores: Vec<String> = record
        .scores
        .iter()
        .map(|(judge, score)| format!("{judge} {score:.1}"))
        .collect();
    println!("  judges: {}", scores.join(", "));
    println!(
        "  usage: {} prompt + {} completion tokens",
        record.usage.prompt_tokens, record.usage.completion_tokens
    );
    for sentence in &record.data_generation_result {
        println!("  | {sentence}");
    }
    Ok(())
}

/// The fast demo on the fake server.
fn run_fake(args: &Args) -> anyhow::Result<()> {
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
    run_cli(
        &bin,
        &root,
        &["plan".as_ref(), config.as_os_str()],
        &[],
        &[0],
    )?;

    let records = out_dir.join("codeswitch.jsonl");
    // A fresh run each time; the response cache beside it is kept, so a re-run costs no calls.
    let _ = std::fs::remove_file(&records);
    let _ = std::fs::remove_file(out_dir.join("codeswitch.jsonl.errors.jsonl"));
    banner(&format!(
        "scenario-engine run fixtures/configs/example.yaml --sample {} --out {}",
        args.sample.unwrap_or(12),
        rel(&root, &records)
    ));
    let sample = args.sample.unwrap_or(12).to_string();
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
        &[],
        &[0],
    )?;
    print_first_record(&records)?;

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
        &[],
        &[0, 1],
    )?;

    let own = root.join("fixtures/suites/own-checks.yaml");
    let cache = out_dir.join("own-checks-cache");
    banner(&format!(
        "scenario-engine test fixtures/suites/own-checks.yaml --self-check --base-url {base_url}"
    ));
    println!("(a Python `command` check, an `llmRubric` and a `similar` check; a rerun is cached)");
    run_cli(
        &bin,
        &root,
        &[
            "test".as_ref(),
            own.as_os_str(),
            "--self-check".as_ref(),
            "--base-url".as_ref(),
            base_url.as_ref(),
        ],
        &[("SCENARIO_ENGINE__CACHE__DIR", &cache.to_string_lossy())],
        &[0],
    )?;

    banner("outputs");
    println!("  records      {}", rel(&root, &records));
    println!("  suite JUnit  {}", rel(&root, &junit));
    println!("  suite JSON   {}", rel(&root, &json));
    let stats = server.stats();
    println!("  fake server answered {} requests", stats.total_requests);
    Ok(())
}

pub(crate) fn banner(title: &str) {
    println!("\n=== {title}");
}

pub(crate) fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn run_cli(
    bin: &Path,
    root: &Path,
    args: &[&std::ffi::OsStr],
    env: &[(&str, &str)],
    ok_codes: &[i32],
) -> anyhow::Result<()> {
    let status = Command::new(bin)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .env_remove("OPENAI_API_KEY")
        .status()
        .with_context(|| format!("could not start {}", bin.display()))?;
    match status.code() {
        Some(code) if ok_codes.contains(&code) => Ok(()),
        _ => bail!("scenario-engine exited with {status}"),
    }
}

/// Whether this process runs as root (`id -u` is 0): apt-get works only then.
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
