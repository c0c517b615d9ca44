//! Retry timing: exponential backoff with full jitter, and the waits servers ask for.
//!
//! Servers say how long to wait in different dialects: `Retry-After` as seconds or an HTTP
//! date, OpenAI's `retry-after-ms`, and `x-ratelimit-reset-requests` / `-tokens` as Go-style
//! durations (`"1s"`, `"6m0s"`, `"20ms"`). A server's word beats the computed backoff.

use std::time::{Duration, SystemTime};

use rand::Rng as _;
use reqwest::header::HeaderMap;

use crate::RetryPolicy;
use stdx::parse_duration;

/// Full-jitter backoff before retry number `retry` (0-based): uniform in
/// `[0, min(max_delay, base_delay * 2^retry)]`.
pub(crate) fn backoff(policy: &RetryPolicy, retry: u32) -> Duration {
    let ceiling = policy
        .base_delay
        .saturating_mul(2u32.saturating_pow(retry.min(20)))
        .min(policy.max_delay);
    let ceiling_ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(rand::rng().random_range(0..=ceiling_ms))
}

/// The wait a response's headers ask for, if any.
pub(crate) fn server_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    if let Some(v) = header("retry-after") {
        return parse_retry_after(v, now);
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .iter()
        .filter_map(|h| header(h).and_then(|v| parse_duration(v).ok()))
        .max()
}

/// `Retry-After: 3`, `Retry-After: 1.5` or `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs.max(0.0)).ok();
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("later", now), None);
    }

    #[test]
    fn header_precedence_and_ratelimit_resets() {
        let now = SystemTime::now();
        let mut h = HeaderMap::new();
        assert_eq!(server_delay(&h, now), None);
        h.insert(
            "x-ratelimit-reset-requests",
            HeaderValue::from_static("20ms"),
        );
        h.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6m0s"));
        assert_eq!(server_delay(&h, now), Some(Duration::from_secs(360)));
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(server_delay(&h, now), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(server_delay(&h, now), Some(Duration::from_millis(150)));
    }

    #[test]
    fn backoff_stays_under_the_doubling_ceiling() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(700),
        };
        for retry in 0..6 {
            let ceiling = (100u64 << retry).min(700);
            for _ in 0..50 {
                assert!(backoff(&p, retry) <= Duration::from_millis(ceiling));
            }
        }
    }
}
