//! `cargo xtask bench-local`: the embedded model's throughput against its anchors, on one
//! machine, in one run (issue 13).
//!
//! The same pipeline work (the example config's first `--scenarios` scenarios, every agent at
//! temperature 0, `--ratio-judge measured`, one refinement at most, `--max-tokens` per call, no
//! response cache) runs three ways:
//!
//! - **(a) serialised**: the embedded model with one slot and no prefix reuse, one request at a
//!   time, as before continuous batching;
//! - **(b) batched**: the embedded model with `--slots` slots (default: the engine's default) and
//!   prefix reuse;
//! - **(c) llama-cpp-python**: its OpenAI-compatible server (`pip install
//!   'llama-cpp-python[server]'`, installed under `target/real-server/` by the same code as
//!   `cargo xtask real-server`) on the same GGUF, started on loopback.
//!
//! For each it reports wall time, wall time per scenario, aggregate completion and prompt tokens
//! per second of wall time (from the records' usage), and peak RSS (`/usr/bin/time`'s for the
//! CLI; for (c) the server's `VmHWM` plus the client's). The table goes to stdout and to
//! `target/bench-local/results.md`, for BENCHMARKS.md. Nothing here asserts on time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::demo::{RunFigures, banner, build_local_binary, fetch_model, rel};
use crate::real_server::{Server, ensure_server};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Scenarios of the example config to run in each configuration.
    #[arg(long, default_value_t = 8)]
    pub scenarios: u64,
    /// Slots of the batched configuration (default: the engine's default for this machine).
    #[arg(long)]
    pub slots: Option<u32>,
    /// Cap on generated tokens per call, in every configuration.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: u32,
    /// Skip (c), llama-cpp-python's server (its first install builds llama.cpp: minutes).
    #[arg(long)]
    pub no_python: bool,
    /// Cargo target directory of the `local-llm` build (relative to the workspace root).
    #[arg(long, default_value = "target/local-llm")]
    pub target_dir: PathBuf,
}

/// One configuration's figures.
struct Row {
    name: String,
    secs: f64,
    figures: RunFigures,
    max_rss_kb: u64,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    crate::demo::ensure_build_tools()?;
    let model = fetch_model(&root)?;
    let bin = build_local_binary(&root, &root.join(&args.target_dir))?;
    let out_dir = crate::target_dir(&root).join("bench-local");
    std::fs::create_dir_all(&out_dir)?;
    let config = root.join("fixtures/configs/example.yaml");

    let mut env: Vec<(String, String)> = Vec::new();
    for agent in [
        "GENERATOR",
        "FLUENCY",
        "NATURALNESS",
        "CS_RATIO",
        "SOCIO_CULTURAL",
        "REFINER",
    ] {
        env.push((
            format!("SCENARIO_ENGINE__AGENTS__{agent}__TEMPERATURE"),
            "0".into(),
        ));
        env.push((
            format!("SCENARIO_ENGINE__AGENTS__{agent}__MAX_TOKENS"),
            args.max_tokens.to_string(),
        ));
    }
    env.push((
        "SCENARIO_ENGINE__LOCAL__MAX_TOKENS_CAP".into(),
        args.max_tokens.to_string(),
    ));
    let common = |out: &Path| -> Vec<String> {
        [
            "run",
            &config.display().to_string(),
            "--sample",
            &args.scenarios.to_string(),
            "--max-refinements",
            "1",
            "--ratio-judge",
            "measured",
            "--no-cache",
            "--out",
            &out.display().to_string(),
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let local = |extra: &[&str]| -> Vec<String> {
        let mut v = vec!["--provider".to_owned(), "local".to_owned()];
        v.push("--model-path".into());
        v.push(model.display().to_string());
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v
    };

    let mut rows = Vec::new();
    let serial_out = out_dir.join("a-serialised.jsonl");
    let mut serial_env = env.clone();
    serial_env.push((
        "SCENARIO_ENGINE__LOCAL__PREFIX_REUSE".into(),
        "false".into(),
    ));
    let mut a = common(&serial_out);
    a.extend(local(&["--local-slots", "1"]));
    rows.push(timed(
        "(a) embedded, serialised (1 slot, no prefix reuse)",
        &bin,
        &root,
        &a,
        &serial_env,
        &serial_out,
        &out_dir,
    )?);

    let batched_out = out_dir.join("b-batched.jsonl");
    let slots = args.slots.map(|s| s.to_string());
    let mut b = common(&batched_out);
    b.extend(local(
        &slots
            .as_deref()
            .map(|s| vec!["--local-slots", s])
            .unwrap_or_default(),
    ));
    rows.push(timed(
        &format!(
            "(b) embedded, batched ({} slots, prefix reuse)",
            slots.as_deref().unwrap_or("default")
        ),
        &bin,
        &root,
        &b,
        &env,
        &batched_out,
        &out_dir,
    )?);

    if !args.no_python {
        banner("llama-cpp-python's server (installs under target/real-server the first time)");
        let dir = crate::target_dir(&root).join("real-server");
        let python = ensure_server(&dir)?;
        let server = Server::start(&python, &model, &out_dir.join("llama-cpp-python.log"), None)?;
        let python_out = out_dir.join("c-llama-cpp-python.jsonl");
        let mut c = common(&python_out);
        c.extend(
            [
                "--base-url",
                &format!("http://127.0.0.1:{}/v1", server.port),
                "--model",
                "smollm2",
            ]
            .map(str::to_owned),
        );
        let mut row = timed(
            "(c) llama-cpp-python server, same GGUF",
            &bin,
            &root,
            &c,
            &env,
            &python_out,
            &out_dir,
        )?;
        row.max_rss_kb += server.max_rss_kb().unwrap_or(0);
        rows.push(row);
    }

    let table = table(&rows, args, &model);
    banner("figures");
    println!("{table}");
    let results = out_dir.join("results.md");
    std::fs::write(&results, &table)?;
    println!("(written to {})", rel(&root, &results));
    Ok(())
}

/// Runs the CLI under `/usr/bin/time` and reads the records' usage.
fn timed(
    name: &str,
    bin: &Path,
    root: &Path,
    args: &[String],
    env: &[(String, String)],
    records: &Path,
    out_dir: &Path,
) -> anyhow::Result<Row> {
    banner(name);
    let _ = std::fs::remove_file(records);
    let _ = std::fs::remove_file(records.with_extension("jsonl.errors.jsonl"));
    let rss_file = out_dir.join("rss.txt");
    let started = Instant::now();
    let status = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss_file)
        .arg(bin)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .current_dir(root)
        .status()
        .context("could not start /usr/bin/time (apt-get install time)")?;
    let secs = started.elapsed().as_secs_f64();
    // Exit 3: some scenarios failed at the model; the others' records still count.
    if !matches!(status.code(), Some(0 | 3)) {
        bail!("{name}: scenario-engine exited with {status}");
    }
    let max_rss_kb = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|t| t.lines().rev().find_map(|l| l.trim().parse().ok()))
        .unwrap_or(0);
    Ok(Row {
        name: name.to_owned(),
        secs,
        figures: RunFigures::read(records)?,
        max_rss_kb,
    })
}

fn table(rows: &[Row], args: &Args, model: &Path) -> String {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut out = format!(
        "`cargo xtask bench-local --scenarios {}` on {cores} cores, {}; every agent at temperature 0, \
         at most {} tokens per call, `--ratio-judge measured`, one refinement at most.\n\n\
         | configuration | records | wall s | s / scenario | completion tokens | completion tok/s | prompt tokens | prompt tok/s | max RSS MB |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        args.scenarios,
        model
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        args.max_tokens,
    );
    for r in rows {
        let f = &r.figures;
        let per = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        out.push_str(&format!(
            "| {} | {} | {:.1} | {:.1} | {} | {:.1} | {} | {:.0} | {:.0} |\n",
            r.name,
            f.records,
            r.secs,
            per(r.secs, f.records as f64),
            f.completion_tokens,
            per(f.completion_tokens as f64, r.secs),
            f.prompt_tokens,
            per(f.prompt_tokens as f64, r.secs),
            r.max_rss_kb as f64 / 1024.0,
        ));
    }
    if let [a, b, ..] = rows {
        let tps = |r: &Row| r.figures.completion_tokens as f64 / r.secs;
        out.push_str(&format!(
            "\n(b) / (a) completion tok/s: {:.2}×",
            tps(b) / tps(a)
        ));
        if let Some(c) = rows.get(2) {
            out.push_str(&format!("; (b) / (c): {:.2}×", tps(b) / tps(c)));
        }
        out.push('\n');
    }
    out
}
