//! `cargo xtask bench-viewer [--records N] [--keep DIR] [--bin PATH]`: issue 32's benchmark of
//! `scenario-engine view` on a large run. It writes a pipeline run of N records (default
//! 1,000,000, about 4 GB; [`generate`]), starts the release binary's viewer over it with an
//! empty index cache (`XDG_CACHE_HOME` in a fresh folder, so every benchmark starts cold), and
//! times pages over plain HTTP on loopback: the first records page before any index, a text
//! search, how long the background index takes (polling a filtered page until it says "from
//! the run's index"), then the filters, a sort and a deep page from the index, and last the
//! overview (its first request reads every text of the run, for minutes on a large run; it
//! comes last so it does not slow the other pages down). Each table page is requested 3 times
//! (the median is shown, and the first request alone); the
//! server's memory is sampled from `/proc/PID/status` (`VmRSS` during each step, `VmHWM` at the
//! end). It prints a Markdown table for BENCHMARKS.md; nothing is asserted on time.
//!
//! The run goes to `target/tmp/bench-viewer/` and is removed at the end unless `--keep DIR`
//! names a folder to keep it in (a kept run of the same size is reused by the next benchmark).

mod generate;

use std::io::{BufWriter, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};

/// Flags of `cargo xtask bench-viewer`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Records in the generated run (about 4 KB each).
    #[arg(long, default_value_t = 1_000_000)]
    pub records: u64,
    /// Keep the generated run in this folder (and reuse one of the same size found there).
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// The `scenario-engine` binary to measure (default: build the release binary).
    #[arg(long)]
    pub bin: Option<PathBuf>,
}

/// How long one request may wait for its answer before the benchmark gives up (the overview
/// of 1,000,000 records takes a quarter of an hour on a loaded 2-core machine).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);

/// How long the index may take before the benchmark gives up.
const INDEX_TIMEOUT: Duration = Duration::from_secs(1800);

/// Runs the benchmark.
///
/// # Errors
/// The run cannot be written, the viewer cannot start, a page fails or shows unreadable lines.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let dir = args.keep.clone().unwrap_or_else(|| {
        crate::target_dir(&root).join(format!("tmp/bench-viewer-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let cache = dir.join(format!("cache-{}", std::process::id()));
    let result = bench(&args, &root, &dir, &cache);
    let _ = std::fs::remove_dir_all(&cache);
    if args.keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

fn bench(args: &Args, root: &Path, dir: &Path, cache: &Path) -> anyhow::Result<()> {
    let run = dir.join(format!("run-{}.jsonl", args.records));
    if run.is_file() && args.keep.is_some() {
        eprintln!("    reusing {}", run.display());
    } else {
        let started = Instant::now();
        write_run(&run, args.records)?;
        eprintln!(
            "    wrote {} records ({:.2} GB) in {:.1} s",
            args.records,
            std::fs::metadata(&run)?.len() as f64 / 1e9,
            started.elapsed().as_secs_f64()
        );
    }
    // The viewer indexes runs of 8 MiB or more; a smaller one would never show "from the
    // run's index".
    let size = std::fs::metadata(&run)?.len();
    ensure!(
        size >= 8 << 20,
        "{} is {size} bytes: the viewer indexes runs of 8 MiB or more (--records 3000 at least)",
        run.display()
    );
    let bin = match &args.bin {
        Some(bin) => bin.clone(),
        None => crate::build_release_binary()?,
    };
    let mut command = Command::new(&bin);
    command
        .arg("view")
        .arg(&run)
        .env("XDG_CACHE_HOME", cache)
        .current_dir(root);
    let (viewer, url) = crate::browser::spawn_viewer(command)?;
    let addr = url.trim_start_matches("http://").to_owned();
    let sampler = Sampler::start(viewer.0.id(), cache.to_path_buf());
    let steps = measure(&addr, args.records, cache, &sampler)?;
    let peak = status_kb(viewer.0.id(), "VmHWM").unwrap_or(0);
    sampler.stop();
    drop(viewer);
    println!("{}", table(args, &run, &steps, peak));
    Ok(())
}

/// Writes the run to a temporary name and renames it, so a kept file is always whole.
fn write_run(run: &Path, records: u64) -> anyhow::Result<()> {
    let partial = run.with_extension("jsonl.partial");
    let file = std::fs::File::create(&partial)
        .with_context(|| format!("creating {}", partial.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    generate::Generator::new().write(records, &mut out)?;
    out.flush()?;
    drop(out);
    std::fs::rename(&partial, run)?;
    Ok(())
}

/// One timed step of the table.
struct Step {
    name: String,
    path: String,
    /// Each request's time to the whole response.
    times: Vec<Duration>,
    /// Each request's time to its first byte.
    first_bytes: Vec<Duration>,
    /// What the page's counts paragraph said (its first words) or another note.
    note: String,
    /// The largest `VmRSS` seen during the step, in kB.
    rss_kb: u64,
}

fn measure(addr: &str, records: u64, cache: &Path, sampler: &Sampler) -> anyhow::Result<Vec<Step>> {
    let started = Instant::now();
    let mut steps = vec![timed(
        addr,
        sampler,
        "first records page (cold, no index)",
        "/run/0/records",
        3,
    )?];
    // Before the index, a large run's page reads only as far as itself and says so.
    let first = &steps[0].note;
    ensure!(
        first.starts_with("At least 51 record(s) match, in the first 51 read")
            || counted(first).map(|(_, of)| of) == Some(records),
        "the first page's counts are neither partial nor whole: {first}"
    );
    steps.push(timed(
        addr,
        sampler,
        "overview page while the run is read",
        "/run/0",
        3,
    )?);
    let search = format!("/run/0/records?q={}", generate::RARE_WORD);
    steps.push(timed(
        addr,
        sampler,
        "text search (a rare word), first page",
        &search,
        3,
    )?);
    searched(&steps[2].note, generate::rare_records(records))?;
    steps.push(wait_for_index(addr, cache, sampler)?);
    for (name, path) in [
        ("status = accepted", "/run/0/records?status=accepted"),
        ("score 7–8", "/run/0/records?min.score=7&max.score=8"),
        ("parameter topic = health", "/run/0/records?p.topic=health"),
        (
            "rejected, health, fluency ≥ 8, gate passed",
            "/run/0/records?status=rejected&p.topic=health&min.fluency=8&gate=passed",
        ),
        ("sorted by score", "/run/0/records?sort=score"),
        (
            "accepted, page 500",
            "/run/0/records?status=accepted&page=500",
        ),
    ] {
        let step = timed(addr, sampler, name, path, 3)?;
        ensure!(
            step.note.contains("from the run's index"),
            "{path} did not read the index: {}",
            step.note
        );
        ensure!(
            counted(&step.note).map(|(_, of)| of) == Some(records),
            "{path}: not every record counted: {}",
            step.note
        );
        steps.push(step);
    }
    steps.push(wait_for_overview(addr, sampler, started)?);
    Ok(steps)
}

/// Checks a text search's first page: partial ("At least 51 …": the page and one match beyond
/// were found) or whole with every record holding the word.
fn searched(note: &str, expected: u64) -> anyhow::Result<()> {
    let whole = counted(note).map(|(matched, _)| matched);
    ensure!(
        (expected > 50 && note.starts_with("At least 51 record(s) match"))
            || whole == Some(expected),
        "the search's counts are wrong ({expected} records hold the word): {note}"
    );
    Ok(())
}

/// Waits until the run page shows the overview (no longer "being read"): its time is counted
/// from the first request of the benchmark.
fn wait_for_overview(addr: &str, sampler: &Sampler, started: Instant) -> anyhow::Result<Step> {
    sampler.reset();
    loop {
        let response = get(addr, "/run/0")?;
        ensure!(response.status == 200, "/run/0: HTTP {}", response.status);
        if !response.body.contains("id=\"reading\"") {
            let ready = started.elapsed();
            eprintln!("    overview ready after {:.1} s", ready.as_secs_f64());
            return Ok(Step {
                name: "overview ready (from the first request)".into(),
                path: "/run/0".into(),
                times: vec![ready],
                first_bytes: vec![ready],
                note: String::new(),
                rss_kb: sampler.peak(),
            });
        }
        if started.elapsed() > INDEX_TIMEOUT {
            bail!("no overview after {INDEX_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// `path` requested `times` times; fails on a status other than 200 or unreadable lines.
fn timed(
    addr: &str,
    sampler: &Sampler,
    name: &str,
    path: &str,
    times: usize,
) -> anyhow::Result<Step> {
    sampler.reset();
    let mut step = Step {
        name: name.to_owned(),
        path: path.to_owned(),
        times: Vec::new(),
        first_bytes: Vec::new(),
        note: String::new(),
        rss_kb: 0,
    };
    for _ in 0..times {
        let response = get(addr, path)?;
        ensure!(response.status == 200, "{path}: HTTP {}", response.status);
        ensure!(
            !response.body.contains("id=\"unreadable\""),
            "{path}: the viewer skipped unreadable lines of the generated run"
        );
        step.note = counts(&response.body).unwrap_or_default();
        ensure!(!step.note.contains("unreadable"), "{path}: {}", step.note);
        step.times.push(response.total);
        step.first_bytes.push(response.first_byte);
    }
    step.rss_kb = sampler.peak();
    eprintln!(
        "    {name}: {} s, first {:.2} s, RSS peak {:.1} MB ({})",
        step.times
            .iter()
            .map(|t| format!("{:.2}", t.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(" / "),
        step.first_bytes[0].as_secs_f64(),
        step.rss_kb as f64 / 1024.0,
        step.note
    );
    Ok(step)
}

/// Waits for the index: the time is when its files were first seen finished in the cache
/// folder (or, when the viewer names them otherwise, when a filtered page first said "from the
/// run's index"). The page is asked once the files are there, or every 30 s (each ask of a page
/// that reads the run is a full read of it).
fn wait_for_index(addr: &str, cache: &Path, sampler: &Sampler) -> anyhow::Result<Step> {
    sampler.reset();
    let path = "/run/0/records?status=accepted";
    let started = Instant::now();
    let mut asked: Option<Instant> = None;
    loop {
        let due = asked.is_none_or(|a| a.elapsed() > Duration::from_secs(30));
        if sampler.indexed().is_some() || due {
            asked = Some(Instant::now());
            let response = get(addr, path)?;
            let note = counts(&response.body).unwrap_or_default();
            if note.contains("from the run's index") {
                let ready = sampler.indexed().unwrap_or_else(|| sampler.since_start());
                let size = index_bytes(cache).map_or_else(String::new, |b| {
                    format!("; index files {:.1} MB", b as f64 / 1e6)
                });
                eprintln!("    index ready after {:.1} s{size}", ready.as_secs_f64());
                return Ok(Step {
                    name: format!("index ready (from the first request{size})"),
                    path: path.into(),
                    times: vec![ready],
                    first_bytes: vec![ready],
                    note,
                    rss_kb: sampler.peak(),
                });
            }
        }
        if started.elapsed() > INDEX_TIMEOUT {
            bail!("no index after {INDEX_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// One answer to a GET.
struct Response {
    status: u16,
    first_byte: Duration,
    total: Duration,
    body: String,
}

/// A GET over a fresh connection (HTTP/1.1, `Connection: close`), timed to the first byte and
/// to the end of the response; a chunked body is joined.
fn get(addr: &str, path: &str) -> anyhow::Result<Response> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).with_context(|| format!("connecting to {addr}"))?;
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let mut first_byte = None;
    loop {
        let n = stream
            .read(&mut buf)
            .with_context(|| format!("reading {path}"))?;
        if n == 0 {
            break;
        }
        first_byte.get_or_insert_with(|| started.elapsed());
        raw.extend_from_slice(&buf[..n]);
    }
    let total = started.elapsed();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .with_context(|| format!("{path}: no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("{path}: no status line"))?;
    let body = &raw[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_vec()
    };
    Ok(Response {
        status,
        first_byte: first_byte.unwrap_or(total),
        total,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// The data of a chunked body (what a cut-short body holds, when it is cut).
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&body[..end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next().unwrap_or("").trim(), 16).ok())
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let data = &body[end + 2..];
        out.extend_from_slice(&data[..size.min(data.len())]);
        body = data.get(size + 2..).unwrap_or_default();
    }
    out
}

/// The text of the page's `#counts` paragraph, tags taken out.
fn counts(body: &str) -> Option<String> {
    let start = body.find("id=\"counts\"")?;
    let rest = &body[start..];
    let rest = &rest[rest.find('>')? + 1..];
    let paragraph = &rest[..rest.find("</p>")?];
    let mut text = String::new();
    let mut in_tag = false;
    for c in paragraph.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `(matched, records)` from a counts paragraph ("12 of 1000000 record(s) match …").
fn counted(note: &str) -> Option<(u64, u64)> {
    let mut words = note.split_whitespace();
    let number = |w: &str| w.replace(',', "").parse::<u64>().ok();
    let matched = number(words.next()?)?;
    (words.next()? == "of").then_some(())?;
    Some((matched, number(words.next()?)?))
}

/// A field of `/proc/PID/status` in kB.
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Samples the server's `VmRSS` every 50 ms on a thread, keeping the largest since the last
/// reset, and notes when the index cache first holds a finished index (a `.json` file that is
/// not a `.tmp`: the viewer writes the index's metadata last, by renaming).
struct Sampler {
    peak: Arc<AtomicU64>,
    /// Milliseconds from the start to the first finished index; `u64::MAX` while none is.
    indexed_ms: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
    started: Instant,
}

impl Sampler {
    fn start(pid: u32, cache: PathBuf) -> Self {
        let started = Instant::now();
        let peak = Arc::new(AtomicU64::new(0));
        let indexed_ms = Arc::new(AtomicU64::new(u64::MAX));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (peak, indexed_ms, stop) = (
                Arc::clone(&peak),
                Arc::clone(&indexed_ms),
                Arc::clone(&stop),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(kb) = status_kb(pid, "VmRSS") {
                        peak.fetch_max(kb, Ordering::Relaxed);
                    }
                    if indexed_ms.load(Ordering::Relaxed) == u64::MAX && index_written(&cache) {
                        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
                        indexed_ms.store(ms, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        };
        Self {
            peak,
            indexed_ms,
            stop,
            thread,
            started,
        }
    }

    fn since_start(&self) -> Duration {
        self.started.elapsed()
    }

    fn reset(&self) {
        self.peak.store(0, Ordering::Relaxed);
    }

    fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// When a finished index first appeared, from the sampler's start.
    fn indexed(&self) -> Option<Duration> {
        let ms = self.indexed_ms.load(Ordering::Relaxed);
        (ms != u64::MAX).then(|| Duration::from_millis(ms))
    }

    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// Whether the viewer's cache folder holds a finished index; its size when it does.
fn index_written(cache: &Path) -> bool {
    index_bytes(cache).is_some()
}

/// The bytes of the finished index files in the cache folder (`None` while there is none).
fn index_bytes(cache: &Path) -> Option<u64> {
    let entries = std::fs::read_dir(cache.join("scenario-engine/viewer")).ok()?;
    let files: Vec<(String, u64)> = entries
        .flatten()
        .filter_map(|e| {
            let len = e.metadata().ok().filter(std::fs::Metadata::is_file)?.len();
            Some((e.file_name().to_string_lossy().into_owned(), len))
        })
        .filter(|(name, _)| !name.ends_with(".tmp"))
        .collect();
    files
        .iter()
        .any(|(name, _)| name.ends_with(".json"))
        .then(|| files.iter().map(|(_, len)| len).sum())
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn table(args: &Args, run: &Path, steps: &[Step], peak_kb: u64) -> String {
    let size = std::fs::metadata(run).map_or(0, |m| m.len());
    let mut s = format!(
        "Run: {} records, {:.2} GB (`cargo xtask bench-viewer --records {}`).\n\n\
         | step | request | median of 3 | 1st request | first byte (median) | page says | server RSS (peak during the step) |\n\
         |---|---|---|---|---|---|---|\n",
        args.records,
        size as f64 / 1e9,
        args.records
    );
    for step in steps {
        let median = |v: &[Duration]| {
            Duration::from_secs_f64(crate::bench::median(
                v.iter().map(Duration::as_secs_f64).collect(),
            ))
        };
        let (median_total, median_first) = if step.times.len() > 1 {
            (
                seconds(median(&step.times)),
                seconds(median(&step.first_bytes)),
            )
        } else {
            ("–".to_owned(), "–".to_owned())
        };
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {:.1} MB |\n",
            step.name,
            step.path,
            median_total,
            seconds(step.times[0]),
            median_first,
            step.note.split(". Page").next().unwrap_or(""),
            step.rss_kb as f64 / 1024.0
        ));
    }
    s.push_str(&format!(
        "\nServer peak RSS over the whole benchmark (VmHWM): {:.1} MB.\n",
        peak_kb as f64 / 1024.0
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_chunks_are_read() {
        let body = "<p id=\"counts\" data-stamp=\"/run/0/stamp\">3 of 1000 record(s) match (1 accepted). \
                    Page 1 of 1. <span class=\"note\">(from the run's index)</span></p>";
        let note = counts(body).expect("a counts paragraph");
        assert_eq!(
            note,
            "3 of 1000 record(s) match (1 accepted). Page 1 of 1. (from the run's index)"
        );
        assert_eq!(counted(&note), Some((3, 1000)));
        assert_eq!(
            counted("1,234 of 5,000,000 record(s)"),
            Some((1234, 5_000_000))
        );
        assert_eq!(counted("no records"), None);
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x=1\r\n world\r\n0\r\n\r\n"),
            b"hello world"
        );
    }
}
