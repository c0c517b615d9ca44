//! `cargo xtask bench`: end-to-end throughput of `scenario-engine run` against the fake server.
//!
//! Builds the release binary, starts the fake OpenAI server in-process, and runs the SwitchLingua
//! config (233,280 scenarios, cut with `--limit`) as a child process under `/usr/bin/time`, which
//! reports the child's user+system CPU and max RSS. Cases: 2,000 scenarios at 0 ms and at 100 ms
//! latency with `--concurrency 64`, and 100,000 scenarios at 0 ms (memory must stay flat). The
//! cache is off so every call reaches the server. The ideal rate is in-flight ÷ latency ÷ calls
//! per scenario, with calls per scenario counted at the server. Results replace the marked
//! section of `BENCHMARKS.md`.
//!
//! `cargo xtask bench --suite` measures bot tests instead (`scenario-engine test --bot llm`):
//! N single-turn tool-call tests (default 400, one suite template over a grid) against the fake
//! server, each sample a fresh process under `/usr/bin/time`: CPU per test and max RSS, the median
//! of `--samples` runs. `--bin` measures another build of the binary (to compare versions).
//!
//! `cargo xtask bench --batch N` measures `scenario-engine run --batch` over N scenarios of the
//! same config against the fake Batch API (its input log off, so the server's memory stays
//! sane at hundreds of thousands of lines): wall, CPU, max RSS, waves and batches. The full
//! grid is `--batch 233280`; the target is max RSS under 256 MB.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use fixtures::{FakeConfig, FakeServer};

const START: &str = "<!-- bench:pipeline:start -->";
const END: &str = "<!-- bench:pipeline:end -->";
const SUITE_START: &str = "<!-- bench:suite:start -->";
const SUITE_END: &str = "<!-- bench:suite:end -->";
const BATCH_START: &str = "<!-- bench:batch:start -->";
const BATCH_END: &str = "<!-- bench:batch:end -->";

/// Flags of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Scenarios of the throughput cases.
    #[arg(long, default_value_t = 2_000)]
    pub scenarios: u64,
    /// Scenarios of the flat-memory case (0 skips it).
    #[arg(long, default_value_t = 100_000)]
    pub large: u64,
    /// Requests in flight.
    #[arg(long, default_value_t = 64)]
    pub concurrency: u64,
    /// Latency of the second case, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub latency_ms: u64,
    /// Do not touch BENCHMARKS.md.
    #[arg(long)]
    pub no_write: bool,
    /// Measure bot tests (`scenario-engine test --bot llm`) instead of the pipeline.
    #[arg(long)]
    pub suite: bool,
    /// Bot tests of `--suite` (single-turn, one tool call each).
    #[arg(long, default_value_t = 400)]
    pub tests: u64,
    /// Measurements of `--suite`; the median is reported.
    #[arg(long, default_value_t = 5)]
    pub samples: usize,
    /// Measure a batch run (`run --batch`) of this many scenarios instead (233280: the grid).
    #[arg(long, value_name = "N")]
    pub batch: Option<u64>,
    /// Measure this binary instead of building the release binary (e.g. an older version).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
}

struct Case {
    label: String,
    scenarios: u64,
    latency_ms: u64,
    wall: Duration,
    cpu_s: f64,
    max_rss_kb: u64,
    requests: u64,
    records: u64,
}

impl Case {
    fn rate(&self) -> f64 {
        self.records as f64 / self.wall.as_secs_f64()
    }
    fn calls_per_scenario(&self) -> f64 {
        self.requests as f64 / self.records.max(1) as f64
    }
    fn ideal(&self, concurrency: u64) -> Option<f64> {
        (self.latency_ms > 0).then(|| {
            concurrency as f64 / (self.latency_ms as f64 / 1000.0) / self.calls_per_scenario()
        })
    }
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let bin = match &args.bin {
        Some(bin) => bin.clone(),
        None => crate::build_release_binary()?,
    };
    if args.suite {
        return suite_bench(&root, &bin, &args);
    }
    if let Some(scenarios) = args.batch {
        return batch_bench(&root, &bin, scenarios, args.no_write);
    }
    let config = root.join("fixtures/configs/switchlingua.yaml");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut cases = Vec::new();
    let plan = [
        (
            format!("{} scenarios, 0 ms", args.scenarios),
            args.scenarios,
            0,
        ),
        (
            format!("{} scenarios, {} ms", args.scenarios, args.latency_ms),
            args.scenarios,
            args.latency_ms,
        ),
        (format!("{} scenarios, 0 ms", args.large), args.large, 0),
    ];
    for (label, scenarios, latency_ms) in plan {
        if scenarios == 0 {
            continue;
        }
        eprintln!("bench: {label} …");
        let case = rt.block_on(one_case(
            &bin,
            &config,
            &label,
            scenarios,
            latency_ms,
            args.concurrency,
        ))?;
        eprintln!(
            "bench: {label}: {:.1}s wall, {:.1} scenarios/s, {:.3} ms CPU/scenario, max RSS {:.1} MB",
            case.wall.as_secs_f64(),
            case.rate(),
            case.cpu_s * 1000.0 / case.records.max(1) as f64,
            case.max_rss_kb as f64 / 1024.0
        );
        cases.push(case);
    }
    let section = render(&cases, &args);
    println!("{section}");
    if !args.no_write {
        update_benchmarks(&root.join("BENCHMARKS.md"), &section)?;
    }
    Ok(())
}

async fn one_case(
    bin: &Path,
    config: &Path,
    label: &str,
    scenarios: u64,
    latency_ms: u64,
    concurrency: u64,
) -> anyhow::Result<Case> {
    let server =
        FakeServer::start(FakeConfig::default().with_latency(Duration::from_millis(latency_ms)))
            .await
            .context("starting the fake server")?;
    let dir = tempdir()?;
    let out = dir.join("bench.jsonl");
    let times = dir.join("time.txt");
    let mut cmd = tokio::process::Command::new("/usr/bin/time");
    cmd.arg("-f")
        .arg("%e %U %S %M")
        .arg("-o")
        .arg(&times)
        .arg(bin)
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(&out)
        .args([
            "--limit",
            &scenarios.to_string(),
            "--concurrency",
            &concurrency.to_string(),
        ])
        .args([
            "--base-url",
            &server.base_url(),
            "--model",
            "fake-model",
            "--no-cache",
        ])
        .args(["--api-key-env", "SCENARIO_ENGINE_BENCH_NO_KEY"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let started = Instant::now();
    let status = cmd.status().await.context("running the benchmark")?;
    let wall = started.elapsed();
    if !status.success() {
        bail!("{label}: scenario-engine exited with {status}");
    }
    let [_, user, sys, rss] = read_times(&times)?;
    let records = std::fs::read_to_string(&out)?.lines().count() as u64;
    let requests = server.stats().total_requests;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Case {
        label: label.to_string(),
        scenarios,
        latency_ms,
        wall,
        cpu_s: user + sys,
        max_rss_kb: rss as u64,
        requests,
        records,
    })
}

/// `--batch N`: one batch run of N scenarios under `/usr/bin/time`.
fn batch_bench(root: &Path, bin: &Path, scenarios: u64, no_write: bool) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let server = rt
        .block_on(FakeServer::start(
            FakeConfig::default()
                .with_batch_delay(Duration::from_millis(300))
                .without_batch_log(),
        ))
        .context("starting the fake server")?;
    let dir = tempdir()?;
    let out = dir.join("batch.jsonl");
    let times = dir.join("time.txt");
    eprintln!("bench: batch run of {scenarios} scenarios …");
    let started = Instant::now();
    let status = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%e %U %S %M", "-o"])
        .arg(&times)
        .arg(bin)
        .arg("run")
        .arg(root.join("fixtures/configs/switchlingua.yaml"))
        .arg("--out")
        .arg(&out)
        .args(["--limit", &scenarios.to_string(), "--batch"])
        .args(["--base-url", &server.base_url(), "--model", "fake-model"])
        .args([
            "--no-cache",
            "--api-key-env",
            "SCENARIO_ENGINE_BENCH_NO_KEY",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr.txt"))?)
        .status()
        .context("running the batch benchmark")?;
    let wall = started.elapsed().as_secs_f64();
    if !status.success() {
        let stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
        bail!(
            "the batch run exited with {status}:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let [_, user, sys, rss_kb] = read_times(&times)?;
    let records =
        std::io::BufRead::lines(std::io::BufReader::new(std::fs::File::open(&out)?)).count();
    let stats = server.stats();
    let batches = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.route == "/v1/batches")
        .count();
    let _ = std::fs::remove_dir_all(&dir);
    let section = format!(
        "## Batch mode at full scale (`scenario-engine run --batch` against the fake Batch API)\n\n\
         Command: `cargo xtask bench --batch {scenarios}` (SwitchLingua config, default window \
         of live scenarios, 300 ms per fake batch, release build, child measured with \
         `/usr/bin/time`).\n\n\
         | scenarios | records | batches | calls | wall s | CPU ms/scenario | max RSS MB |\n\
         |---:|---:|---:|---:|---:|---:|---:|\n\
         | {scenarios} | {records} | {batches} | {calls} | {wall:.0} | {cpu:.3} | {rss:.1} |\n\n\
         Target: max RSS under 256 MB, whatever the number of scenarios (memory is bounded by \
         the window).\n",
        calls = stats.completions,
        cpu = (user + sys) * 1000.0 / records.max(1) as f64,
        rss = rss_kb / 1024.0,
    );
    println!("{section}");
    if !no_write {
        update_section(
            &root.join("BENCHMARKS.md"),
            &section,
            BATCH_START,
            BATCH_END,
        )?;
    }
    Ok(())
}

fn tempdir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("scenario-engine-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn render(cases: &[Case], args: &Args) -> String {
    let mut s = String::new();
    s.push_str("## Pipeline throughput (`scenario-engine run` against the fake server)\n\n");
    s.push_str(&format!(
        "Command: `cargo xtask bench --scenarios {} --large {} --concurrency {} --latency-ms {}` \
         (SwitchLingua config, `--no-cache`, release build, child measured with `/usr/bin/time`; \
         the fake server runs in the xtask process on the same 2 cores).\n\n",
        args.scenarios, args.large, args.concurrency, args.latency_ms
    ));
    s.push_str("| case | scenarios | wall s | scenarios/s | calls/scenario | CPU ms/scenario | max RSS MB | % of ideal |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for c in cases {
        let ideal = c.ideal(args.concurrency).map_or("–".to_string(), |i| {
            format!("{:.0}% (ideal {:.1}/s)", c.rate() / i * 100.0, i)
        });
        s.push_str(&format!(
            "| {} | {} | {:.1} | {:.1} | {:.2} | {:.3} | {:.1} | {} |\n",
            c.label,
            c.records,
            c.wall.as_secs_f64(),
            c.rate(),
            c.calls_per_scenario(),
            c.cpu_s * 1000.0 / c.records.max(1) as f64,
            c.max_rss_kb as f64 / 1024.0,
            ideal
        ));
        debug_assert!(c.scenarios >= c.records);
    }
    s.push_str("\nTargets: < 2 ms CPU per scenario at 0 ms; ≥ 90% of ideal at 100 ms / 64 in flight; max RSS < 64 MB and flat from 2k to 100k scenarios.\n");
    s
}

fn update_benchmarks(path: &Path, section: &str) -> anyhow::Result<()> {
    update_section(path, section, START, END)
}

/// The four figures `/usr/bin/time -f "%e %U %S %M"` wrote: wall s, user s, system s, max RSS KB.
fn read_times(path: &Path) -> anyhow::Result<[f64; 4]> {
    let t = std::fs::read_to_string(path)?;
    let fields: Vec<f64> = t
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    let [wall, user, sys, rss] = fields[..] else {
        bail!("unexpected /usr/bin/time output: {t}")
    };
    Ok([wall, user, sys, rss])
}

fn update_section(path: &Path, section: &str, start: &str, end: &str) -> anyhow::Result<()> {
    let block = format!("{start}\n{section}{end}\n");
    let text = std::fs::read_to_string(path).unwrap_or_else(|_| "# Benchmarks\n\n".to_string());
    let updated = match (text.find(start), text.find(end)) {
        (Some(a), Some(b)) if b > a => format!(
            "{}{}\n{}",
            &text[..a],
            block,
            text[b + end.len()..].trim_start_matches('\n')
        ),
        _ => format!("{}\n\n{block}", text.trim_end()),
    };
    std::fs::write(path, updated).with_context(|| format!("writing {}", path.display()))
}

/// One measurement of `scenario-engine test` over the bench suite.
struct SuiteSample {
    wall_s: f64,
    cpu_s: f64,
    max_rss_kb: u64,
    tests: u64,
    requests: u64,
}

/// The bench suite: `tests` single-turn tool-call tests, one template over a grid.
fn bench_suite(tests: u64) -> String {
    let grid: Vec<String> = (1..=tests).map(|n| n.to_string()).collect();
    format!(
        r#"name: bench-bot-tests
bot:
  kind: llm
  system_prompt: You are a wallet assistant. Turn requests into calls of the available functions.
  llm: {{model: fake-model, temperature: 0}}
  agents:
    - name: transfers
      description: moves money between the user and contacts
      functions:
        - name: send_money
          description: send money now to a recipient contact
          parameters:
            type: object
            properties:
              recipient: {{type: string}}
              amount: {{type: number}}
              currency: {{type: string, enum: [USD, EUR]}}
            required: [recipient, amount, currency]
    - name: balances
      description: reads the user's balance
      functions:
        - name: get_balance
          description: current balance of the wallet
          parameters: {{type: object, properties: {{currency: {{type: string}}}}}}
scenarios:
  - template:
      id: send
      name: "Send {{{{ n }}}} USD to Alice"
      category: happy-path
      steps: ["Send {{{{ n }}}} USD to Alice"]
      expect:
        expectedFunction: send_money
        expectedAgent: transfers
        responseType: action
        expectedParams: {{currency: {{in: [USD, EUR]}}}}
    grid: {{n: [{}]}}
"#,
        grid.join(", ")
    )
}

fn suite_bench(root: &Path, bin: &Path, args: &Args) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let dir = tempdir()?;
    let suite = dir.join("bench-suite.yaml");
    std::fs::write(&suite, bench_suite(args.tests))?;
    let mut samples = Vec::new();
    for i in 0..args.samples.max(1) {
        let sample = rt.block_on(suite_sample(bin, &suite, &dir, args.concurrency))?;
        eprintln!(
            "bench: suite sample {}: {} tests, {:.2}s wall, {:.3} ms CPU/test, max RSS {:.1} MB",
            i + 1,
            sample.tests,
            sample.wall_s,
            sample.cpu_s * 1000.0 / sample.tests.max(1) as f64,
            sample.max_rss_kb as f64 / 1024.0
        );
        samples.push(sample);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let section = render_suite(&samples, args);
    println!("{section}");
    if !args.no_write {
        update_section(
            &root.join("BENCHMARKS.md"),
            &section,
            SUITE_START,
            SUITE_END,
        )?;
    }
    Ok(())
}

async fn suite_sample(
    bin: &Path,
    suite: &Path,
    dir: &Path,
    concurrency: u64,
) -> anyhow::Result<SuiteSample> {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .context("starting the fake server")?;
    let json = dir.join("results.json");
    let times = dir.join("time.txt");
    let mut cmd = tokio::process::Command::new("/usr/bin/time");
    cmd.arg("-f")
        .arg("%e %U %S %M")
        .arg("-o")
        .arg(&times)
        .arg(bin)
        .arg("test")
        .arg(suite)
        .args(["--bot", "llm", "--base-url", &server.base_url()])
        .args([
            "--model",
            "fake-model",
            "--concurrency",
            &concurrency.to_string(),
        ])
        .args(["--api-key-env", "SCENARIO_ENGINE_BENCH_NO_KEY", "--json"])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let status = cmd.status().await.context("running the benchmark")?;
    // 0: every test passed, 1: some failed; both are a measured run.
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("scenario-engine test exited with {status}");
    }
    let [wall_s, user, sys, rss] = read_times(&times)?;
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json)?)?;
    let tests = results["scenarios"].as_array().map_or(0, Vec::len) as u64;
    Ok(SuiteSample {
        wall_s,
        cpu_s: user + sys,
        max_rss_kb: rss as u64,
        tests,
        requests: server.stats().total_requests,
    })
}

pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn render_suite(samples: &[SuiteSample], args: &Args) -> String {
    let per_test = |s: &SuiteSample| s.cpu_s * 1000.0 / s.tests.max(1) as f64;
    let cpu: Vec<f64> = samples.iter().map(per_test).collect();
    let rss: Vec<f64> = samples
        .iter()
        .map(|s| s.max_rss_kb as f64 / 1024.0)
        .collect();
    let wall = median(samples.iter().map(|s| s.wall_s).collect());
    let tests = samples.first().map_or(0, |s| s.tests);
    let requests = samples.first().map_or(0, |s| s.requests);
    let range = |v: &[f64], digits: usize| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.digits$}–{hi:.digits$}")
    };
    let mut s = String::new();
    s.push_str("## Bot tests (`scenario-engine test --bot llm` against the fake server)\n\n");
    s.push_str(&format!(
        "Command: `cargo xtask bench --suite --tests {} --samples {} --concurrency {}` ({} \
         single-turn tests, each one tool call of the LLM bot, 4 checks each; release build; each \
         sample a fresh process measured with `/usr/bin/time`; the fake server runs in the xtask \
         process on the same cores; median of {} samples, range in brackets).\n\n",
        args.tests,
        args.samples,
        args.concurrency,
        args.tests,
        samples.len()
    ));
    s.push_str("| tests | requests | wall s | CPU ms/test | max RSS MB |\n");
    s.push_str("|---:|---:|---:|---:|---:|\n");
    s.push_str(&format!(
        "| {tests} | {requests} | {wall:.2} | {:.3} ({}) | {:.1} ({}) |\n",
        median(cpu.clone()),
        range(&cpu, 3),
        median(rss.clone()),
        range(&rss, 1)
    ));
    s.push_str("\nTarget (issue 11): no regression beyond 20% on CPU per test and max RSS.\n");
    s
}
