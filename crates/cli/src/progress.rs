//! Progress of a long job on stderr: an indicatif bar on a terminal, otherwise one line at most
//! every few seconds (logs and CI output stay readable). What is shown is a
//! `stdx::progress::Reading` the job's library fills (`agents::RunStats::reading` for `run`),
//! so every command shows progress, and what the transport absorbed (retries, rate limits,
//! cooldowns, a pause), the same way.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use stdx::progress::Reading;
use tokio_util::sync::CancellationToken;

/// How often the plain progress line is printed when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// A running progress display; [`Progress::finish`] stops it.
pub(crate) struct Progress {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Progress {
    /// Starts showing the readings `read` gives (it is passed the time since the start).
    pub(crate) fn start<F>(read: F) -> Self
    where
        F: Fn(Duration) -> Reading + Send + 'static,
    {
        let stop = CancellationToken::new();
        let token = stop.clone();
        let task = if std::io::stderr().is_terminal() {
            tokio::spawn(bar(read, token))
        } else {
            tokio::spawn(lines(read, token))
        };
        Self { stop, task }
    }

    /// Stops the display (clearing the bar).
    pub(crate) async fn finish(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

async fn bar<F: Fn(Duration) -> Reading>(read: F, stop: CancellationToken) {
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} {per_sec} ETA {eta} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    pb.set_style(style);
    let started = Instant::now();
    loop {
        let reading = read(started.elapsed());
        pb.set_length(reading.total);
        pb.set_position(reading.done);
        pb.set_message(reading.message());
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
    }
    pb.finish_and_clear();
}

async fn lines<F: Fn(Duration) -> Reading>(read: F, stop: CancellationToken) {
    let started = Instant::now();
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(LINE_EVERY) => {}
        }
        errln!("{}", read(started.elapsed()).line(started.elapsed()));
    }
}
