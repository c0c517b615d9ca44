//! Progress of a run on stderr: an indicatif bar on a terminal, otherwise one line at most every
//! few seconds (logs and CI output stay readable).

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use agents::RunStats;
use runlog::money::spend;

/// How often the plain progress line is printed when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// A running progress display; [`Progress::finish`] stops it.
pub(crate) struct Progress {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Progress {
    /// Starts showing `stats` against `total` selected scenarios.
    pub(crate) fn start(stats: Arc<RunStats>, total: u64) -> Self {
        let stop = CancellationToken::new();
        let token = stop.clone();
        let task = if std::io::stderr().is_terminal() {
            tokio::spawn(bar(stats, total, token))
        } else {
            tokio::spawn(lines(stats, total, token))
        };
        Self { stop, task }
    }

    /// Stops the display (clearing the bar).
    pub(crate) async fn finish(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

struct Snapshot {
    done: u64,
    remaining: u64,
    accepted: u64,
    failed: u64,
    tokens: u64,
    /// Generated tokens per second since the start.
    tok_per_s: f64,
    cost: String,
}

fn snapshot(stats: &RunStats, total: u64, started: Instant) -> Snapshot {
    let finished = stats.finished.load(Ordering::Relaxed);
    let failed = stats.failed.load(Ordering::Relaxed);
    let skipped = stats.skipped.load(Ordering::Relaxed);
    let done = finished + failed;
    Snapshot {
        done,
        remaining: total.saturating_sub(skipped + done),
        accepted: stats.accepted.load(Ordering::Relaxed),
        failed,
        tokens: stats.prompt_tokens.load(Ordering::Relaxed)
            + stats.completion_tokens.load(Ordering::Relaxed),
        tok_per_s: stats.completion_tokens.load(Ordering::Relaxed) as f64
            / started.elapsed().as_secs_f64().max(1e-3),
        cost: spend(stats.cost_usd(), stats.unpriced.load(Ordering::Relaxed)),
    }
}

async fn bar(stats: Arc<RunStats>, total: u64, stop: CancellationToken) {
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} {per_sec} ETA {eta} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    pb.set_style(style);
    let started = Instant::now();
    loop {
        let s = snapshot(&stats, total, started);
        pb.set_length(s.done + s.remaining);
        pb.set_position(s.done);
        pb.set_message(format!(
            "accepted {} failed {} tokens {} ({:.1} tok/s) {}",
            s.accepted, s.failed, s.tokens, s.tok_per_s, s.cost
        ));
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
    }
    pb.finish_and_clear();
}

async fn lines(stats: Arc<RunStats>, total: u64, stop: CancellationToken) {
    let started = Instant::now();
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(LINE_EVERY) => {}
        }
        let s = snapshot(&stats, total, started);
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        let rate = s.done as f64 / secs;
        let eta = if rate > 0.0 {
            format!("{:.0}s", s.remaining as f64 / rate)
        } else {
            "?".into()
        };
        errln!(
            "progress: {}/{} done, {} accepted, {} failed, {rate:.1}/s, ETA {eta}, {} tokens ({:.1} generated tok/s), {}",
            s.done,
            s.done + s.remaining,
            s.accepted,
            s.failed,
            s.tokens,
            s.tok_per_s,
            s.cost
        );
    }
}
