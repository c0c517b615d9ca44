//! Client-side limits shared by every task of one client: in-flight window, RPM and TPM buckets.
//!
//! The in-flight window is a small async semaphore whose size can change, because adaptive
//! (AIMD) concurrency halves it on a 429 and grows it by one after a run of successes; tokio's
//! `Semaphore` cannot shrink without bookkeeping that is no simpler than this. RPM and TPM are
//! token buckets refilled continuously with a one-minute burst; unlike GCRA limiters they allow
//! refunds, which TPM needs because the reservation (prompt estimate + `max_tokens`) is corrected
//! after the call from the server's `usage`. Time comes from `tokio::time`, so tests can pause it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// A continuously refilled bucket holding at most one minute's allowance.
#[derive(Debug)]
pub(crate) struct TokenBucket {
    capacity: f64,
    per_sec: f64,
    state: Mutex<BucketState>,
    /// Acquisitions that had to wait at least once.
    waits: AtomicU64,
}

#[derive(Debug)]
struct BucketState {
    /// May go negative when a call used more than it reserved; later callers then wait longer.
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A bucket allowing `per_minute` units per minute, starting full.
    pub(crate) fn per_minute(per_minute: u64) -> Self {
        #[expect(clippy::cast_precision_loss, reason = "limits are far below 2^52")]
        let capacity = per_minute.max(1) as f64;
        Self {
            capacity,
            per_sec: capacity / 60.0,
            state: Mutex::new(BucketState {
                tokens: capacity,
                last: Instant::now(),
            }),
            waits: AtomicU64::new(0),
        }
    }

    fn refill(&self, s: &mut BucketState) {
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(s.last).as_secs_f64();
        s.tokens = (s.tokens + elapsed * self.per_sec).min(self.capacity);
        s.last = now;
    }

    /// Takes `n` units, waiting until they are available. Requests larger than the whole bucket
    /// are clamped to its capacity (they could never be served otherwise). Returns the units taken.
    pub(crate) async fn acquire(&self, n: u64) -> u64 {
        #[expect(
            clippy::cast_precision_loss,
            reason = "token counts are far below 2^52"
        )]
        let want = (n as f64).min(self.capacity);
        let mut waited = false;
        loop {
            let shortfall = {
                let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                self.refill(&mut s);
                if s.tokens >= want {
                    s.tokens -= want;
                    None
                } else {
                    Some(want - s.tokens)
                }
            };
            match shortfall {
                None => {
                    if waited {
                        self.waits.fetch_add(1, Ordering::Relaxed);
                    }
                    #[expect(
                        clippy::cast_possible_truncation,
                        clippy::cast_sign_loss,
                        reason = "want is a clamped non-negative count"
                    )]
                    return want as u64;
                }
                Some(missing) => {
                    waited = true;
                    let wait = Duration::from_secs_f64(missing / self.per_sec)
                        .max(Duration::from_millis(1));
                    tracing::debug!(
                        wait_ms = wait.as_millis() as u64,
                        missing,
                        "rate limit bucket empty, waiting"
                    );
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    /// Corrects an earlier reservation: positive `delta` gives units back, negative takes more.
    pub(crate) fn adjust(&self, delta: i64) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        self.refill(&mut s);
        #[expect(
            clippy::cast_precision_loss,
            reason = "token counts are far below 2^52"
        )]
        let delta = delta as f64;
        // The debt is capped at one bucket: usage comes from the server, and an absurd count
        // would otherwise overflow `Duration::from_secs_f64` in `acquire` (a panic) or park the
        // run for years. One minute of debt still slows later calls as intended.
        s.tokens = (s.tokens + delta).clamp(-self.capacity, self.capacity);
    }

    /// How many acquisitions had to wait.
    pub(crate) fn waits(&self) -> u64 {
        self.waits.load(Ordering::Relaxed)
    }
}

/// The in-flight window, optionally adaptive (AIMD).
#[derive(Debug)]
pub(crate) struct Concurrency {
    max: usize,
    adaptive: bool,
    step: u32,
    state: Mutex<WindowState>,
    freed: Notify,
}

#[derive(Debug)]
struct WindowState {
    in_flight: usize,
    limit: usize,
    successes: u32,
}

/// One slot of the window; released on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    window: Arc<Concurrency>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self
            .window
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        s.in_flight = s.in_flight.saturating_sub(1);
        drop(s);
        self.window.freed.notify_one();
    }
}

impl Concurrency {
    pub(crate) fn new(max: usize, adaptive: bool, step: u32) -> Arc<Self> {
        let max = max.max(1);
        Arc::new(Self {
            max,
            adaptive,
            step: step.max(1),
            state: Mutex::new(WindowState {
                in_flight: 0,
                limit: max,
                successes: 0,
            }),
            freed: Notify::new(),
        })
    }

    /// Waits for a free slot.
    pub(crate) async fn acquire(self: &Arc<Self>) -> Slot {
        loop {
            // Register interest before checking, so a release between the check and the await
            // is not lost.
            let notified = self.freed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                if s.in_flight < s.limit {
                    s.in_flight += 1;
                    return Slot {
                        window: Arc::clone(self),
                    };
                }
            }
            notified.await;
        }
    }

    /// Additive increase: one more slot after `step` successes.
    pub(crate) fn on_success(&self) {
        if !self.adaptive {
            return;
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.successes += 1;
        if s.successes >= self.step && s.limit < self.max {
            s.limit += 1;
            s.successes = 0;
            drop(s);
            self.freed.notify_waiters();
        }
    }

    /// Multiplicative decrease on a 429.
    pub(crate) fn on_rate_limited(&self) {
        if !self.adaptive {
            return;
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.limit = (s.limit / 2).max(1);
        s.successes = 0;
        tracing::info!(
            limit = s.limit,
            "rate limited: halving the in-flight window"
        );
    }

    /// The current window size.
    pub(crate) fn limit(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .limit
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt as _;

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn tpm_bucket_spaces_requests_beyond_the_burst() {
        let bucket = TokenBucket::per_minute(600);
        // The first minute's allowance is available at once.
        assert_eq!(bucket.acquire(400).await, 400);
        assert_eq!(bucket.acquire(200).await, 200);
        assert_eq!(bucket.waits(), 0);
        // Now empty: the next reservation must wait for the refill.
        assert_eq!(bucket.acquire(100).await, 100);
        assert_eq!(bucket.waits(), 1);
        // A refund makes room again without waiting.
        bucket.adjust(300);
        assert_eq!(bucket.acquire(250).await, 250);
        assert_eq!(bucket.waits(), 1);
        // Oversized requests are clamped rather than blocking forever.
        assert_eq!(bucket.acquire(10_000).await, 600);
        assert_eq!(bucket.waits(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn absurd_debit_from_server_usage_neither_panics_nor_blocks_forever() {
        let bucket = TokenBucket::per_minute(1);
        bucket.adjust(i64::MIN);
        assert_eq!(bucket.acquire(1).await, 1);
        assert_eq!(bucket.waits(), 1);
    }

    /// `tpm` smaller than one request (≈400 tokens against a bucket of 100): each request is
    /// admitted when the bucket is full, and the debt it leaves (at most one bucket) delays the
    /// next by at most two minutes; it never waits forever.
    #[tokio::test(start_paused = true)]
    async fn requests_larger_than_the_bucket_keep_being_admitted() {
        let bucket = TokenBucket::per_minute(100);
        let start = Instant::now();
        for _ in 0..3 {
            let reserved = bucket.acquire(400).await;
            assert_eq!(reserved, 100, "clamped to the capacity");
            // The server reports 400 used: the bucket goes into debt, capped at one bucket.
            bucket.adjust(i64::try_from(reserved).expect("small") - 400);
        }
        assert!(
            Instant::now().duration_since(start) <= Duration::from_secs(2 * 2 * 60 + 1),
            "each later request waits at most two minutes"
        );
        assert_eq!(bucket.waits(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn debit_beyond_reservation_delays_later_calls() {
        let bucket = TokenBucket::per_minute(60);
        assert_eq!(bucket.acquire(10).await, 10);
        bucket.adjust(-50);
        assert_eq!(bucket.acquire(1).await, 1);
        assert_eq!(bucket.waits(), 1);
    }

    #[tokio::test]
    async fn window_blocks_at_limit_and_adapts() {
        let window = Concurrency::new(4, true, 2);
        let slots: Vec<Slot> = futures::future::join_all((0..4).map(|_| window.acquire())).await;
        assert!(
            window.acquire().now_or_never().is_none(),
            "a fifth slot must not be granted"
        );
        drop(slots);
        window.on_rate_limited();
        assert_eq!(window.limit(), 2);
        window.on_rate_limited();
        window.on_rate_limited();
        assert_eq!(window.limit(), 1);
        for _ in 0..4 {
            window.on_success();
        }
        assert_eq!(window.limit(), 3);
        for _ in 0..10 {
            window.on_success();
        }
        assert_eq!(window.limit(), 4, "never above max_in_flight");
    }

    #[tokio::test]
    async fn released_slot_wakes_a_waiter() {
        let window = Concurrency::new(1, false, 1);
        let first = window.acquire().await;
        let w2 = Arc::clone(&window);
        let waiter = tokio::spawn(async move { drop(w2.acquire().await) });
        tokio::task::yield_now().await;
        drop(first);
        waiter.await.expect("waiter finishes once the slot is free");
    }
}
