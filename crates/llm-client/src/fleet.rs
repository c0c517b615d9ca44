//! Several endpoints serving the same models (a fleet of vLLM or llama.cpp servers): which one
//! answers a request, and which ones are cooling down after a failure.
//!
//! [`Fleet`] is a pure state machine — no I/O, no clock of its own (every call is given `now`) —
//! so the client owns the HTTP side (requests, health checks) and the rules here are tested alone:
//! - **Affinity.** A request with a key (the pipeline passes the scenario id) goes to the healthy
//!   endpoint of highest rendezvous weight (blake3 of the endpoint's URL and the key), so every
//!   request of one scenario reaches the same server and reuses its prompt-prefix cache, and
//!   losing an endpoint moves only that endpoint's keys. A request without a key goes to the
//!   least-outstanding endpoint.
//! - **Least-outstanding fallback.** When the key's endpoint has more than
//!   `slack = max(2, ⌈max_in_flight / endpoints⌉)` requests in flight beyond the least-loaded
//!   healthy endpoint, the request goes to the least-loaded one instead.
//! - **Cooldown.** A connect error, a timeout, a 429 or a 5xx cools the endpoint down for
//!   `cooldown · 2^(n−1)` (capped at `max_cooldown`), `n` counting the cooldowns since its last
//!   successful request. A failure counts only against the state the request was sent under, so
//!   the many requests in flight to an endpoint that just died add one cooldown, not many.
//! - **Health check.** When a cooldown ends, the next request to pick claims the endpoint's
//!   health check ([`Pick::Check`]); a passed check reinstates it, a failed one starts the next,
//!   longer cooldown.
//! - **All cooling.** When no endpoint is healthy, requests go to the one whose cooldown ends
//!   first, exactly as a single endpoint is retried with backoff; a success reinstates it.
//!
//! A fleet of one endpoint never cools down: its failures are left to the retry policy alone,
//! as before fleets existed.
//!
//! The **circuit breaker** holds for one endpoint or many:
//! - **Out of the rotation.** After `trip_after` connect errors, timeouts or 5xx in a row
//!   (counted over every request, whatever scenario or caller sent it; any other answer resets
//!   the count, a 429 neither counts nor resets), the endpoint is out: no request goes to it
//!   until a health check passes. Its first check is due at once (the preflight's, after
//!   `probe_every`); while other endpoints carry the requests, later checks back off like
//!   cooldowns (a check holds the request that runs it).
//! - **Paused.** With every endpoint out, [`Fleet::pick`] answers [`Pick::Wait`]: requests wait
//!   while the checks run, each endpoint's every `probe_every` (a pause brings a check that
//!   backed off forward). A passed check reinstates its endpoint and the requests go on.
//! - **Down.** When no check has passed `probe_for` after the pause began, every pick from then
//!   on answers [`Pick::Down`]: the client fails those requests with
//!   [`crate::LlmError::Unavailable`], which a caller treats as "not done", never as a failure
//!   of its own work.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::FleetPolicy;

/// Where one request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Send to endpoint `index`; `epoch` is the state it was chosen under.
    Send { index: usize, epoch: u64 },
    /// The cooldown of endpoint `index` is over and this caller runs its health check, then
    /// reports it with [`Fleet::checked`] and picks again.
    Check { index: usize },
    /// Every endpoint is out of the rotation and none is due a check: wait until `until`, then
    /// pick again.
    Wait { until: Instant },
    /// No endpoint answered within the breaker's probing time; the last failure seen.
    Down { reason: String },
}

/// Per-endpoint counters, for [`crate::ClientStats::endpoints`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointStats {
    /// The base URL, credentials redacted.
    pub base_url: String,
    /// HTTP requests sent to it (attempts, retries and repairs).
    pub requests: u64,
    /// Requests that failed with a connect error, a timeout, a 429 or a 5xx.
    pub failures: u64,
    /// Times it was put into cooldown (a failed health check counts as one more).
    pub cooldowns: u64,
    /// Health checks run on it after a cooldown.
    pub health_checks: u64,
    /// Whether it is cooling down or being checked now.
    pub cooling: bool,
    /// Times the circuit breaker took it out of the rotation.
    #[serde(default)]
    pub trips: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Healthy,
    Cooling { until: Instant },
    Checking,
}

#[derive(Debug)]
struct Health {
    state: State,
    /// Cooldowns since the last successful request: the exponent of the next cooldown.
    streak: u32,
    /// Bumped at every state change, so a late report about an earlier state is recognised.
    epoch: u64,
    /// Connect errors, timeouts and 5xx since its last other answer (the breaker's count).
    in_a_row: u32,
    /// Out of the rotation (the breaker tripped): only health checks reach it.
    out: bool,
    /// A liveness probe is in flight (at most one per endpoint).
    probing: bool,
    /// When it last answered a liveness probe or a call (any HTTP reply).
    alive_at: Option<Instant>,
    /// Times a liveness probe found it hung: the calls waiting on it give up when this moves.
    hangs: u64,
}

#[derive(Debug)]
struct Endpoint {
    base_url: String,
    /// The URL as it is hashed and compared: without a trailing `/`.
    normalized: String,
    in_flight: AtomicUsize,
    requests: AtomicU64,
    failures: AtomicU64,
    cooldowns: AtomicU64,
    health_checks: AtomicU64,
    trips: AtomicU64,
    health: Mutex<Health>,
}

impl Endpoint {
    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The endpoints of one client. See the module docs for the rules.
#[derive(Debug)]
pub(crate) struct Fleet {
    endpoints: Vec<Endpoint>,
    policy: FleetPolicy,
    slack: usize,
    /// Rotates ties between equally loaded endpoints, so keyless requests spread.
    cursor: AtomicUsize,
    /// Times every endpoint was out at once (requests waited).
    pauses: AtomicU64,
    breaker: Mutex<Breaker>,
}

/// The fleet-wide side of the circuit breaker.
#[derive(Debug, Default)]
struct Breaker {
    /// When every endpoint went out, while they all are.
    paused_since: Option<Instant>,
    /// Whether this pause was announced (a check failed during it).
    announced: bool,
    /// No endpoint answered within `probe_for`: for good.
    down: bool,
    /// The last failure of any endpoint, for the message of a stop.
    last_error: String,
    /// Since when a hung endpoint has given no answer: a pause that this hang begins counts
    /// `probe_for` from then, not from when the hang was noticed.
    silent_since: Option<Instant>,
}

/// A request in flight to one endpoint; dropping it ends it.
#[derive(Debug)]
pub(crate) struct InFlight<'a> {
    endpoint: &'a Endpoint,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.endpoint.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `url` as endpoints are compared and hashed: without a trailing `/`.
pub(crate) fn normalize(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// How soon a request waiting on a health check in progress looks again.
const CHECK_POLL: Duration = Duration::from_millis(50);

/// The rendezvous weight of `key` on the endpoint at `normalized_url`.
fn weight(normalized_url: &str, key: &str) -> u64 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(normalized_url.as_bytes());
    hasher.update(&[0]);
    hasher.update(key.as_bytes());
    let bytes = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    u64::from_le_bytes(first)
}

/// The index in `base_urls` of the endpoint that requests with affinity `key` go to while every
/// endpoint is healthy and none is overloaded (rendezvous hashing; independent of the order
/// and of trailing slashes). `None` for an empty list.
#[must_use]
pub fn preferred_endpoint(key: &str, base_urls: &[&str]) -> Option<usize> {
    (0..base_urls.len()).max_by_key(|&i| (weight(normalize(base_urls[i]), key), i))
}

impl Fleet {
    /// A fleet of `base_urls` (already checked distinct); `max_in_flight` sets the slack.
    pub(crate) fn new(base_urls: &[String], policy: FleetPolicy, max_in_flight: usize) -> Self {
        let n = base_urls.len().max(1);
        Self {
            endpoints: base_urls
                .iter()
                .map(|url| Endpoint {
                    base_url: url.clone(),
                    normalized: normalize(url).to_owned(),
                    in_flight: AtomicUsize::new(0),
                    requests: AtomicU64::new(0),
                    failures: AtomicU64::new(0),
                    cooldowns: AtomicU64::new(0),
                    health_checks: AtomicU64::new(0),
                    trips: AtomicU64::new(0),
                    health: Mutex::new(Health {
                        state: State::Healthy,
                        streak: 0,
                        epoch: 0,
                        in_a_row: 0,
                        out: false,
                        probing: false,
                        alive_at: None,
                        hangs: 0,
                    }),
                })
                .collect(),
            policy,
            slack: max_in_flight.div_ceil(n).max(2),
            cursor: AtomicUsize::new(0),
            pauses: AtomicU64::new(0),
            breaker: Mutex::new(Breaker::default()),
        }
    }

    fn breaker(&self) -> std::sync::MutexGuard<'_, Breaker> {
        self.breaker.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every base URL, credentials redacted, comma-separated (what a stop names).
    pub(crate) fn redacted_urls(&self) -> String {
        self.endpoints
            .iter()
            .map(|e| stdx::redact_url(&e.base_url))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Times the breaker took an endpoint out, and times every endpoint was out at once.
    pub(crate) fn breaker_counts(&self) -> (u64, u64) {
        let trips = self
            .endpoints
            .iter()
            .map(|e| e.trips.load(Ordering::Relaxed))
            .sum();
        (trips, self.pauses.load(Ordering::Relaxed))
    }

    /// Whether the breaker has taken endpoint `index` out of the rotation.
    pub(crate) fn is_out(&self, index: usize) -> bool {
        self.endpoints[index].health().out
    }

    /// Whether requests are waiting for an endpoint to come back now.
    pub(crate) fn paused(&self) -> bool {
        self.breaker().paused_since.is_some()
    }

    /// Takes endpoint `index` out of the rotation at once (it failed the preflight); its first
    /// health check is due after `probe_every`.
    pub(crate) fn take_out(&self, index: usize, now: Instant, error: &str) {
        let endpoint = &self.endpoints[index];
        let mut health = endpoint.health();
        Self::trip(endpoint, &mut health, now + self.policy.probe_every);
        self.breaker().last_error = stdx::redact_urls_in(error);
    }

    fn trip(endpoint: &Endpoint, health: &mut Health, check_at: Instant) {
        health.out = true;
        health.state = State::Cooling { until: check_at };
        health.epoch += 1;
        endpoint.trips.fetch_add(1, Ordering::Relaxed);
    }

    /// Number of endpoints.
    pub(crate) fn len(&self) -> usize {
        self.endpoints.len()
    }

    /// The base URL of endpoint `index`.
    pub(crate) fn base_url(&self, index: usize) -> &str {
        &self.endpoints[index].base_url
    }

    /// The fleet's identity for cache keys and remembered modes: its normalized URLs, sorted,
    /// joined by a space (a URL has none), so neither the order of the flags nor the endpoint
    /// that served a request changes it. A fleet of one is its URL.
    pub(crate) fn identity(&self) -> String {
        let mut urls: Vec<&str> = self
            .endpoints
            .iter()
            .map(|e| e.normalized.as_str())
            .collect();
        urls.sort_unstable();
        urls.join(" ")
    }

    /// Chooses the endpoint of a request with affinity `key`, or claims a due health check.
    pub(crate) fn pick(&self, key: Option<&str>, now: Instant) -> Pick {
        if self.endpoints.len() == 1 {
            let health = self.endpoints[0].health();
            if health.state == State::Healthy {
                return Pick::Send {
                    index: 0,
                    epoch: health.epoch,
                };
            }
        }
        let mut healthy: Vec<(usize, u64)> = Vec::with_capacity(self.endpoints.len());
        // The endpoint whose cooldown ends first, for when none is healthy.
        let mut soonest: Option<(Instant, usize, u64)> = None;
        // The next health check of an endpoint out of the rotation.
        let mut next_check: Option<Instant> = None;
        for (index, endpoint) in self.endpoints.iter().enumerate() {
            let mut health = endpoint.health();
            match health.state {
                State::Healthy => healthy.push((index, health.epoch)),
                State::Cooling { until } if until <= now && !(health.out && self.given_up(now)) => {
                    health.state = State::Checking;
                    health.epoch += 1;
                    endpoint.health_checks.fetch_add(1, Ordering::Relaxed);
                    return Pick::Check { index };
                }
                State::Cooling { until } if health.out => {
                    next_check = Some(next_check.map_or(until, |t| t.min(until)));
                }
                State::Cooling { until } => {
                    if soonest.is_none_or(|(t, _, _)| until < t) {
                        soonest = Some((until, index, health.epoch));
                    }
                }
                // A check in progress: look again shortly.
                State::Checking if health.out => {
                    let soon = now + CHECK_POLL;
                    next_check = Some(next_check.map_or(soon, |t| t.min(soon)));
                }
                State::Checking => {
                    if soonest.is_none_or(|(t, _, _)| now < t) {
                        soonest = Some((now, index, health.epoch));
                    }
                }
            }
        }
        if healthy.is_empty() && soonest.is_none() {
            let mut next_check = next_check.unwrap_or(now + CHECK_POLL);
            if self.breaker().paused_since.is_none() {
                // The pause begins: checks that backed off while other endpoints carried the
                // run come due within `probe_every`.
                let soon = now + self.policy.probe_every;
                for endpoint in &self.endpoints {
                    let mut health = endpoint.health();
                    if let State::Cooling { until } = health.state
                        && health.out
                        && until > soon
                    {
                        health.state = State::Cooling { until: soon };
                        next_check = next_check.min(soon);
                    }
                }
            }
            return self.paused_pick(now, next_check);
        }
        self.unpause();
        let Some(least) = self.least_loaded(&healthy) else {
            let (_, index, epoch) = soonest.unwrap_or((now, 0, 0));
            return Pick::Send { index, epoch };
        };
        let Some(key) = key else {
            return Pick::Send {
                index: least.0,
                epoch: least.1,
            };
        };
        let affine = healthy
            .iter()
            .copied()
            .max_by_key(|&(i, _)| (weight(&self.endpoints[i].normalized, key), i))
            .unwrap_or(least);
        let load = |i: usize| self.endpoints[i].in_flight.load(Ordering::Relaxed);
        let (index, epoch) = if load(affine.0) > load(least.0) + self.slack {
            least
        } else {
            affine
        };
        Pick::Send { index, epoch }
    }

    /// Every endpoint is out: wait for the next check, or give up once `probe_for` has passed.
    fn paused_pick(&self, now: Instant, next_check: Instant) -> Pick {
        let mut breaker = self.breaker();
        if breaker.down {
            return Pick::Down {
                reason: breaker.last_error.clone(),
            };
        }
        let silent_since = breaker.silent_since.take();
        let since = *breaker.paused_since.get_or_insert_with(|| {
            self.pauses.fetch_add(1, Ordering::Relaxed);
            let now = silent_since.map_or(now, |since| since.min(now));
            tracing::info!(endpoints = %self.redacted_urls(), "every endpoint is out of the rotation; requests wait for a health check");
            now
        });
        let deadline = since + self.policy.probe_for;
        if now >= deadline {
            breaker.down = true;
            // The caller reports it (the run's stop names the endpoints): not logged twice.
            tracing::info!(
                endpoints = %self.redacted_urls(),
                error = %breaker.last_error,
                "no endpoint answered a health check in {:?}; giving up",
                self.policy.probe_for
            );
            return Pick::Down {
                reason: breaker.last_error.clone(),
            };
        }
        Pick::Wait {
            until: next_check.min(deadline),
        }
    }

    /// Whether the pause has lasted `probe_for` (or the fleet is down already): no more checks.
    fn given_up(&self, now: Instant) -> bool {
        let breaker = self.breaker();
        breaker.down
            || breaker
                .paused_since
                .is_some_and(|since| now >= since + self.policy.probe_for)
    }

    /// An endpoint is in the rotation again: a pause, if any, is over.
    fn unpause(&self) {
        let mut breaker = self.breaker();
        breaker.silent_since = None;
        if breaker.paused_since.take().is_some() && breaker.announced {
            tracing::warn!("an endpoint answered again; the run goes on");
        }
        breaker.announced = false;
    }

    /// The least-loaded of `healthy`, ties broken by a rotating cursor.
    fn least_loaded(&self, healthy: &[(usize, u64)]) -> Option<(usize, u64)> {
        if healthy.is_empty() {
            return None;
        }
        let start = self.cursor.fetch_add(1, Ordering::Relaxed) % healthy.len();
        (0..healthy.len())
            .map(|k| healthy[(start + k) % healthy.len()])
            .min_by_key(|&(i, _)| self.endpoints[i].in_flight.load(Ordering::Relaxed))
    }

    /// Counts a request to `index` as in flight until the guard drops.
    pub(crate) fn begin(&self, index: usize) -> InFlight<'_> {
        let endpoint = &self.endpoints[index];
        endpoint.in_flight.fetch_add(1, Ordering::Relaxed);
        endpoint.requests.fetch_add(1, Ordering::Relaxed);
        InFlight { endpoint }
    }

    /// Whether an endpoint other than `index` is healthy now (a retry can go there at once).
    pub(crate) fn has_other_healthy(&self, index: usize) -> bool {
        self.endpoints
            .iter()
            .enumerate()
            .any(|(i, e)| i != index && e.health().state == State::Healthy)
    }

    /// A request sent to `index` under `epoch` was answered: the endpoint works. One sent while
    /// every endpoint was cooling reinstates it.
    pub(crate) fn succeeded(&self, index: usize, epoch: u64) {
        let endpoint = &self.endpoints[index];
        let mut health = endpoint.health();
        // It answered: whatever state the request was sent under, the breaker's count restarts.
        health.in_a_row = 0;
        if health.epoch != epoch {
            return;
        }
        health.streak = 0;
        if health.state != State::Healthy {
            health.state = State::Healthy;
            health.out = false;
            health.epoch += 1;
            tracing::info!(endpoint = %stdx::redact_url(&endpoint.base_url), "endpoint answered again; reinstated");
        }
    }

    /// A request sent to `index` under `epoch` failed at the transport (connect, timeout, 429,
    /// 5xx): in a fleet the endpoint cools down, unless the report is about an earlier state;
    /// `rate_limited` (a 429) says the server answered, so the breaker does not count it.
    pub(crate) fn failed(
        &self,
        index: usize,
        epoch: u64,
        now: Instant,
        error: &str,
        rate_limited: bool,
    ) {
        let endpoint = &self.endpoints[index];
        endpoint.failures.fetch_add(1, Ordering::Relaxed);
        let mut health = endpoint.health();
        if !rate_limited {
            health.in_a_row = health.in_a_row.saturating_add(1);
            self.breaker().last_error = stdx::redact_urls_in(error);
            let limit = self.policy.trip_after;
            if limit > 0 && health.in_a_row >= limit && !health.out {
                // Its first check is due at once: a server that only stumbled is back in the
                // time of one request.
                Self::trip(endpoint, &mut health, now);
                tracing::info!(
                    endpoint = %stdx::redact_url(&endpoint.base_url),
                    failures = health.in_a_row,
                    error = %stdx::redact_urls_in(error),
                    "endpoint failed too often in a row; out of the rotation until a health check passes"
                );
                return;
            }
        }
        if self.endpoints.len() > 1 && health.epoch == epoch && !health.out {
            self.cool(endpoint, &mut health, now, error);
        }
    }

    /// Endpoint `index` gave an HTTP reply (of any status) to a call: it is alive, and needs no
    /// liveness probe for `liveness_after`.
    pub(crate) fn answered(&self, index: usize, now: Instant) {
        let mut health = self.endpoints[index].health();
        if health.alive_at.is_none_or(|at| at < now) {
            health.alive_at = Some(now);
        }
    }

    /// How many times a liveness probe found endpoint `index` hung.
    pub(crate) fn hangs(&self, index: usize) -> u64 {
        self.endpoints[index].health().hangs
    }

    /// Claims the liveness probe of endpoint `index`, which a call has waited on for
    /// `liveness_after`: none is in flight and it has not answered one, nor any call, within
    /// `liveness_after`.
    pub(crate) fn claim_liveness(&self, index: usize, now: Instant) -> bool {
        let mut health = self.endpoints[index].health();
        let fresh = health
            .alive_at
            .is_some_and(|at| now.saturating_duration_since(at) < self.policy.liveness_after);
        if health.probing || fresh {
            return false;
        }
        health.probing = true;
        true
    }

    /// The result of the liveness probe claimed with [`Fleet::claim_liveness`]. A probe that got
    /// no answer either means the endpoint is hung (it accepts and never answers): it leaves
    /// the rotation at once, its waiting calls give up (see [`Fleet::hangs`]), and a pause it
    /// begins counts from `silent_since`, when it was last known to answer.
    pub(crate) fn liveness(
        &self,
        index: usize,
        answered: bool,
        now: Instant,
        silent_since: Instant,
        error: &str,
    ) {
        let endpoint = &self.endpoints[index];
        let mut health = endpoint.health();
        health.probing = false;
        if answered {
            health.alive_at = Some(now);
            return;
        }
        health.hangs += 1;
        if !health.out {
            Self::trip(endpoint, &mut health, now + self.policy.probe_every);
        }
        drop(health);
        let mut breaker = self.breaker();
        breaker.last_error = stdx::redact_urls_in(error);
        if breaker.paused_since.is_none() {
            breaker.silent_since = Some(silent_since);
        }
        tracing::info!(
            endpoint = %stdx::redact_url(&endpoint.base_url),
            error = %stdx::redact_urls_in(error),
            "endpoint accepts calls but answers nothing; out of the rotation until a health check passes"
        );
    }

    /// The result of the health check [`Pick::Check`] handed out for `index`.
    pub(crate) fn checked(&self, index: usize, passed: bool, now: Instant) {
        let endpoint = &self.endpoints[index];
        let mut health = endpoint.health();
        if health.state != State::Checking {
            return;
        }
        if passed {
            health.state = State::Healthy;
            health.epoch += 1;
            health.out = false;
            health.in_a_row = 0;
            drop(health);
            self.unpause();
            tracing::info!(endpoint = %stdx::redact_url(&endpoint.base_url), "endpoint passed its health check; reinstated");
        } else if health.out {
            // Paused (no endpoint left), it is checked every `probe_every`; while others carry
            // the run, its checks back off like a cooldown (a check holds the request that
            // runs it, up to `health_timeout`), and a pause brings them forward.
            let paused = self.breaker().paused_since.is_some();
            let wait = if paused {
                self.policy.probe_every.max(Duration::from_millis(1))
            } else {
                health.streak = health.streak.saturating_add(1);
                self.cooldown(health.streak)
            };
            health.state = State::Cooling { until: now + wait };
            health.epoch += 1;
            drop(health);
            let mut breaker = self.breaker();
            if breaker.paused_since.is_some() && !breaker.announced {
                breaker.announced = true;
                tracing::warn!(
                    endpoints = %self.redacted_urls(),
                    error = %breaker.last_error,
                    "no endpoint answers; the run waits up to {:?} for one to come back",
                    self.policy.probe_for
                );
            }
        } else {
            self.cool(endpoint, &mut health, now, "health check failed");
        }
    }

    fn cool(&self, endpoint: &Endpoint, health: &mut Health, now: Instant, error: &str) {
        health.streak = health.streak.saturating_add(1);
        let cooldown = self.cooldown(health.streak);
        health.state = State::Cooling {
            until: now + cooldown,
        };
        health.epoch += 1;
        endpoint.cooldowns.fetch_add(1, Ordering::Relaxed);
        tracing::info!(
            endpoint = %stdx::redact_url(&endpoint.base_url),
            cooldown_ms = u64::try_from(cooldown.as_millis()).unwrap_or(u64::MAX),
            error = %stdx::redact_urls_in(error),
            "endpoint failed; cooling down"
        );
    }

    /// The cooldown after the `streak`-th failure in a row (1-based); at least a millisecond,
    /// so a zero policy cannot turn failed health checks into a loop.
    fn cooldown(&self, streak: u32) -> Duration {
        self.policy
            .cooldown
            .saturating_mul(2u32.saturating_pow(streak.saturating_sub(1).min(20)))
            .min(self.policy.max_cooldown)
            .max(Duration::from_millis(1))
    }

    /// The counters of every endpoint (empty for a fleet of one).
    pub(crate) fn stats(&self) -> Vec<EndpointStats> {
        if self.endpoints.len() < 2 {
            return Vec::new();
        }
        self.endpoints
            .iter()
            .map(|e| EndpointStats {
                base_url: stdx::redact_url(&e.base_url),
                requests: e.requests.load(Ordering::Relaxed),
                failures: e.failures.load(Ordering::Relaxed),
                cooldowns: e.cooldowns.load(Ordering::Relaxed),
                health_checks: e.health_checks.load(Ordering::Relaxed),
                cooling: e.health().state != State::Healthy,
                trips: e.trips.load(Ordering::Relaxed),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("http://10.0.0.{i}:8000/v1"))
            .collect()
    }

    fn policy() -> FleetPolicy {
        FleetPolicy {
            cooldown: Duration::from_secs(1),
            max_cooldown: Duration::from_secs(60),
            health_timeout: Duration::from_secs(5),
            ..FleetPolicy::default()
        }
    }

    fn send(fleet: &Fleet, key: Option<&str>, now: Instant) -> (usize, u64) {
        match fleet.pick(key, now) {
            Pick::Send { index, epoch } => (index, epoch),
            other => panic!("expected a send, got {other:?}"),
        }
    }

    fn keys() -> Vec<String> {
        (0..300).map(|i| format!("scenario-{i}")).collect()
    }

    #[test]
    fn affinity_is_stable_spread_and_independent_of_order() {
        let fleet = Fleet::new(&urls(3), policy(), 16);
        let now = Instant::now();
        let mut per_endpoint = [0usize; 3];
        for key in keys() {
            let (first, _) = send(&fleet, Some(&key), now);
            for _ in 0..5 {
                assert_eq!(send(&fleet, Some(&key), now).0, first, "{key} moved");
            }
            per_endpoint[first] += 1;
            let reversed: Vec<String> = urls(3).into_iter().rev().collect();
            let refs: Vec<&str> = reversed.iter().map(String::as_str).collect();
            assert_eq!(preferred_endpoint(&key, &refs), Some(2 - first));
        }
        assert!(per_endpoint.iter().all(|&n| n > 50), "{per_endpoint:?}");
    }

    #[test]
    fn losing_an_endpoint_moves_only_its_own_keys() {
        let fleet = Fleet::new(&urls(3), policy(), 16);
        let now = Instant::now();
        let before: Vec<usize> = keys()
            .iter()
            .map(|k| send(&fleet, Some(k), now).0)
            .collect();
        let epoch = fleet.endpoints[1].health().epoch;
        fleet.failed(1, epoch, now, "connection refused", false);
        for (key, was) in keys().iter().zip(&before) {
            let now_at = send(&fleet, Some(key), now).0;
            if *was == 1 {
                assert_ne!(now_at, 1, "{key} stayed on the cooling endpoint");
            } else {
                assert_eq!(now_at, *was, "{key} moved although its endpoint is healthy");
            }
        }
    }

    #[test]
    fn an_overloaded_affine_endpoint_falls_back_to_the_least_outstanding() {
        // 2 endpoints, 4 in flight: slack = max(2, 2) = 2.
        let fleet = Fleet::new(&urls(2), policy(), 4);
        let now = Instant::now();
        let key = "scenario-7";
        let (affine, _) = send(&fleet, Some(key), now);
        let other = 1 - affine;
        let mut guards = vec![fleet.begin(affine), fleet.begin(affine)];
        assert_eq!(send(&fleet, Some(key), now).0, affine, "2 > 0 + 2 is false");
        guards.push(fleet.begin(affine));
        assert_eq!(send(&fleet, Some(key), now).0, other, "3 > 0 + 2");
        let _busy = fleet.begin(other);
        assert_eq!(send(&fleet, Some(key), now).0, affine, "3 > 1 + 2 is false");
        drop(guards);
        // Without a key: the least outstanding.
        assert_eq!(send(&fleet, None, now).0, affine);
    }

    #[test]
    fn cooldowns_double_up_to_the_cap_and_a_success_resets_them() {
        let fleet = Fleet::new(&urls(2), policy(), 16);
        let mut now = Instant::now();
        let epoch = fleet.endpoints[0].health().epoch;
        fleet.failed(0, epoch, now, "timeout", false);
        // A second request in flight when it died adds no second cooldown.
        fleet.failed(0, epoch, now, "timeout", false);
        assert_eq!(fleet.stats()[0].cooldowns, 1);
        assert_eq!(fleet.stats()[0].failures, 2);
        let mut expected = Duration::from_secs(1);
        for _ in 0..8 {
            let until = match fleet.endpoints[0].health().state {
                State::Cooling { until } => until,
                other => panic!("{other:?}"),
            };
            assert_eq!(until - now, expected);
            // Still cooling just before the end: everything goes to the other endpoint.
            assert_eq!(send(&fleet, None, until - Duration::from_millis(1)).0, 1);
            now = until;
            assert_eq!(fleet.pick(None, now), Pick::Check { index: 0 });
            fleet.checked(0, false, now);
            expected = (expected * 2).min(Duration::from_secs(60));
        }
        assert_eq!(expected, Duration::from_secs(60));
        let zero = Fleet::new(
            &urls(2),
            FleetPolicy {
                cooldown: Duration::ZERO,
                ..policy()
            },
            16,
        );
        assert_eq!(zero.cooldown(1), Duration::from_millis(1));
        // Reinstated by a check, then a successful request: the next cooldown is short again.
        let until = match fleet.endpoints[0].health().state {
            State::Cooling { until } => until,
            other => panic!("{other:?}"),
        };
        assert_eq!(fleet.pick(None, until), Pick::Check { index: 0 });
        fleet.checked(0, true, until);
        let epoch = fleet.endpoints[0].health().epoch;
        fleet.succeeded(0, epoch);
        fleet.failed(0, epoch, until, "500", false);
        match fleet.endpoints[0].health().state {
            State::Cooling { until: u } => assert_eq!(u - until, Duration::from_secs(1)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_passed_health_check_reinstates_the_endpoint_and_its_keys() {
        let fleet = Fleet::new(&urls(2), policy(), 16);
        let now = Instant::now();
        let keyed: Vec<String> = keys()
            .into_iter()
            .filter(|k| send(&fleet, Some(k), now).0 == 0)
            .collect();
        let epoch = fleet.endpoints[0].health().epoch;
        fleet.failed(0, epoch, now, "connection refused", false);
        assert!(keyed.iter().all(|k| send(&fleet, Some(k), now).0 == 1));
        let later = now + Duration::from_secs(1);
        // One caller claims the check; the others keep going to the healthy endpoint meanwhile.
        assert_eq!(fleet.pick(Some(&keyed[0]), later), Pick::Check { index: 0 });
        assert_eq!(send(&fleet, Some(&keyed[0]), later).0, 1);
        assert!(fleet.stats()[0].cooling);
        fleet.checked(0, true, later);
        assert!(!fleet.stats()[0].cooling);
        assert!(keyed.iter().all(|k| send(&fleet, Some(k), later).0 == 0));
        assert_eq!(fleet.stats()[0].health_checks, 1);
    }

    #[test]
    fn with_every_endpoint_cooling_requests_go_to_the_first_to_recover() {
        let fleet = Fleet::new(&urls(2), policy(), 16);
        let now = Instant::now();
        let e0 = fleet.endpoints[0].health().epoch;
        fleet.failed(0, e0, now, "refused", false);
        let e1 = fleet.endpoints[1].health().epoch;
        fleet.failed(1, e1, now + Duration::from_millis(10), "refused", false);
        let (index, epoch) = send(&fleet, Some("k"), now + Duration::from_millis(20));
        assert_eq!(index, 0, "its cooldown ends first");
        // That request fails too: a longer cooldown; then one succeeds: reinstated.
        fleet.failed(0, epoch, now + Duration::from_millis(20), "refused", false);
        assert_eq!(fleet.stats()[0].cooldowns, 2);
        let (index, epoch) = send(&fleet, None, now + Duration::from_millis(30));
        assert_eq!(index, 1);
        fleet.succeeded(1, epoch);
        assert!(!fleet.stats()[1].cooling);
    }

    #[test]
    fn a_fleet_of_one_never_cools_down() {
        let fleet = Fleet::new(&urls(1), policy(), 16);
        let now = Instant::now();
        fleet.failed(0, 0, now, "refused", false);
        assert_eq!(send(&fleet, Some("k"), now), (0, 0));
        assert!(fleet.stats().is_empty());
        assert_eq!(fleet.identity(), "http://10.0.0.0:8000/v1");
    }

    fn breaker() -> FleetPolicy {
        FleetPolicy {
            trip_after: 3,
            probe_for: Duration::from_secs(25),
            probe_every: Duration::from_secs(1),
            ..policy()
        }
    }

    #[test]
    fn a_reply_to_any_call_counts_as_alive_so_no_probe_is_sent() {
        let policy = FleetPolicy {
            liveness_after: Duration::from_secs(10),
            ..breaker()
        };
        let fleet = Fleet::new(&urls(1), policy.clone(), 16);
        let now = Instant::now() + Duration::from_secs(30);
        // A server that serves one request at a time: another call's reply 4 s ago shows it
        // alive, so the call still waiting gets no probe (which such a server would queue).
        fleet.answered(0, now - Duration::from_secs(4));
        assert!(!fleet.claim_liveness(0, now));
        // Silent for `liveness_after` since then: probed again.
        assert!(fleet.claim_liveness(0, now + Duration::from_secs(6)));
        // An out-of-order report of an older reply does not move the mark back.
        let fleet = Fleet::new(&urls(1), policy, 16);
        fleet.answered(0, now);
        fleet.answered(0, now - Duration::from_secs(20));
        assert!(!fleet.claim_liveness(0, now + Duration::from_secs(5)));
    }

    #[test]
    fn a_silent_liveness_probe_takes_a_hung_endpoint_out_and_an_answer_keeps_it() {
        let policy = FleetPolicy {
            liveness_after: Duration::from_secs(10),
            ..breaker()
        };
        let fleet = Fleet::new(&urls(1), policy, 16);
        let started = Instant::now();
        let now = started + Duration::from_secs(10);
        // One probe at a time, shared by every waiting call.
        assert!(fleet.claim_liveness(0, now));
        assert!(!fleet.claim_liveness(0, now));
        // It answered (a slow model): left alone, no new probe before `liveness_after`.
        fleet.liveness(0, true, now, started, "slow");
        assert!(!fleet.is_out(0));
        assert_eq!(fleet.hangs(0), 0);
        assert!(!fleet.claim_liveness(0, now + Duration::from_secs(5)));
        // The next probe gets no answer: hung, out, its waiting calls see the hang.
        let later = now + Duration::from_secs(10);
        assert!(fleet.claim_liveness(0, later));
        fleet.liveness(0, false, later, started, "not answering");
        assert!(fleet.is_out(0));
        assert_eq!(fleet.hangs(0), 1);
        // The pause it begins counts `probe_for` (25 s) from when the call began waiting.
        assert!(matches!(fleet.pick(None, later), Pick::Wait { .. }));
        assert_eq!(
            fleet.pick(None, started + Duration::from_secs(25)),
            Pick::Down {
                reason: "not answering".to_owned()
            }
        );
    }

    #[test]
    fn failures_in_a_row_across_requests_trip_the_breaker_and_rate_limits_do_not() {
        let fleet = Fleet::new(&urls(1), breaker(), 16);
        let now = Instant::now();
        // Two failures, an answer, two failures: never three in a row.
        fleet.failed(0, 0, now, "refused", false);
        fleet.failed(0, 0, now, "refused", false);
        fleet.succeeded(0, 0);
        fleet.failed(0, 0, now, "refused", false);
        // A 429 neither counts nor resets.
        fleet.failed(0, 0, now, "429", true);
        fleet.failed(0, 0, now, "refused", false);
        assert!(!fleet.is_out(0));
        assert_eq!(send(&fleet, Some("k"), now).0, 0);
        // Three in a row, from requests sent under any state: out, its check due at once.
        fleet.failed(0, 0, now, "503", false);
        assert!(fleet.is_out(0));
        assert_eq!(fleet.breaker_counts(), (1, 0));
        assert_eq!(fleet.pick(Some("k"), now), Pick::Check { index: 0 });
        // While the check runs, every other request waits (the pause begins).
        assert!(matches!(fleet.pick(Some("k"), now), Pick::Wait { .. }));
        assert!(fleet.paused());
        fleet.checked(0, true, now);
        assert!(!fleet.is_out(0));
        assert_eq!(send(&fleet, Some("k"), now).0, 0);
        assert!(!fleet.paused(), "an endpoint back ends the pause");
        assert_eq!(fleet.breaker_counts(), (1, 1));
    }

    #[test]
    fn with_every_endpoint_out_requests_wait_then_the_fleet_is_down_for_good() {
        let fleet = Fleet::new(&urls(2), breaker(), 16);
        let start = Instant::now();
        fleet.take_out(0, start, "connection refused");
        for _ in 0..3 {
            fleet.failed(1, 0, start, "connection refused", false);
        }
        assert!(fleet.is_out(0) && fleet.is_out(1));
        // Endpoint 1's check is due at once, endpoint 0's after `probe_every`.
        assert_eq!(fleet.pick(None, start), Pick::Check { index: 1 });
        fleet.checked(1, false, start);
        let until = match fleet.pick(None, start) {
            Pick::Wait { until } => until,
            other => panic!("{other:?}"),
        };
        assert_eq!(until, start + Duration::from_secs(1));
        assert_eq!(fleet.pick(None, until), Pick::Check { index: 0 });
        fleet.checked(0, false, until);
        assert_eq!(fleet.pick(None, until), Pick::Check { index: 1 });
        fleet.checked(1, false, until);
        // No check passed within `probe_for`: down, with the last failure, and it stays down.
        let late = start + Duration::from_secs(25);
        for _ in 0..2 {
            match fleet.pick(Some("k"), late) {
                Pick::Down { reason } => assert_eq!(reason, "connection refused"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            fleet.redacted_urls(),
            "http://10.0.0.0:8000/v1, http://10.0.0.1:8000/v1"
        );
    }

    #[test]
    fn a_healthy_endpoint_keeps_the_fleet_going_while_another_is_out() {
        let fleet = Fleet::new(&urls(2), breaker(), 16);
        let now = Instant::now();
        fleet.take_out(0, now, "refused");
        for key in keys() {
            assert_eq!(send(&fleet, Some(&key), now).0, 1, "{key}");
        }
        assert!(!fleet.paused());
        // Its check comes due with a request, which then goes on to pick again.
        let later = now + Duration::from_secs(1);
        assert_eq!(fleet.pick(None, later), Pick::Check { index: 0 });
        fleet.checked(0, true, later);
        assert!(!fleet.is_out(0));
    }

    #[test]
    fn an_out_endpoint_backs_off_while_others_carry_the_run_and_a_pause_brings_its_check_forward() {
        let fleet = Fleet::new(&urls(2), breaker(), 16);
        let mut now = Instant::now();
        fleet.take_out(0, now, "refused");
        let mut waits = Vec::new();
        for _ in 0..3 {
            let due = match fleet.endpoints[0].health().state {
                State::Cooling { until } => until,
                other => panic!("{other:?}"),
            };
            waits.push(due - now);
            now = due;
            assert_eq!(fleet.pick(None, now), Pick::Check { index: 0 });
            fleet.checked(0, false, now);
        }
        assert_eq!(
            waits,
            [1, 1, 2].map(Duration::from_secs),
            "probe_every, then backing off"
        );
        // Endpoint 1 goes out too: the pause pulls endpoint 0's 4 s wait to `probe_every`.
        for _ in 0..3 {
            fleet.failed(1, 0, now, "503", false);
        }
        assert_eq!(fleet.pick(None, now), Pick::Check { index: 1 });
        fleet.checked(1, false, now);
        assert_eq!(
            fleet.pick(None, now),
            Pick::Wait {
                until: now + Duration::from_secs(1)
            }
        );
    }

    #[test]
    fn the_identity_ignores_order_and_trailing_slashes() {
        let a = Fleet::new(&["http://b/v1/".into(), "http://a/v1".into()], policy(), 4);
        let b = Fleet::new(&["http://a/v1".into(), "http://b/v1".into()], policy(), 4);
        assert_eq!(a.identity(), b.identity());
        assert_eq!(a.identity(), "http://a/v1 http://b/v1");
    }
}
