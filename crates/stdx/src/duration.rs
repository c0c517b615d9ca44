//! The one duration syntax of the workspace: `"1m30s"`, `"500ms"`, `"2h"`, or a plain number of
//! milliseconds, and its serde adapter.

use std::time::Duration;

/// Parses `"1m30s"`, `"500ms"`, `"2h"`, `"45"` (plain number = milliseconds): the one duration
/// syntax of the workspace, for every setting that takes a duration.
///
/// # Errors
/// A message naming the text when it is empty, has a number without a known unit (`ns`, `us`,
/// `ms`, `s`, `m`, `h`), or overflows.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty duration".to_owned());
    }
    if let Ok(ms) = text.parse::<u64>() {
        return Ok(Duration::from_millis(ms));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits_end == 0 {
            return Err(format!(
                "invalid duration {text:?}: expected a number before the unit"
            ));
        }
        let number: f64 = rest[..digits_end]
            .parse()
            .map_err(|_| format!("invalid duration {text:?}: bad number"))?;
        rest = &rest[digits_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = rest[..unit_end].trim();
        rest = &rest[unit_end..];
        let secs = match unit {
            "ms" => number / 1000.0,
            "s" | "sec" | "secs" => number,
            "m" | "min" | "mins" => number * 60.0,
            "h" | "hr" | "hrs" => number * 3600.0,
            "us" | "µs" => number / 1_000_000.0,
            "ns" => number / 1_000_000_000.0,
            other => return Err(format!("invalid duration {text:?}: unknown unit {other:?}")),
        };
        let part = Duration::try_from_secs_f64(secs)
            .map_err(|e| format!("invalid duration {text:?}: {e}"))?;
        // `+=` on Duration panics on overflow; a config file must get an error instead.
        total = total
            .checked_add(part)
            .ok_or_else(|| format!("invalid duration {text:?}: too long"))?;
    }
    Ok(total)
}

/// Serde adapter (`#[serde(with = "stdx::duration_serde")]`): integers are milliseconds,
/// strings follow [`parse_duration`]; serializes as a string of milliseconds (`"1500ms"`).
pub mod duration_serde {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Millis(u64),
        Text(String),
    }

    /// Writes `"<milliseconds>ms"`.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}ms", d.as_millis()))
    }

    /// Reads milliseconds or a duration string.
    ///
    /// # Errors
    /// Neither an integer nor a valid duration string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        match Raw::deserialize(d) {
            Ok(Raw::Millis(ms)) => Ok(Duration::from_millis(ms)),
            Ok(Raw::Text(t)) => super::parse_duration(&t).map_err(serde::de::Error::custom),
            // The untagged enum's own error names the enum, not what to write.
            Err(_) => Err(serde::de::Error::custom(
                "invalid value: expected a duration such as 500ms or 2s (a plain whole number is \
                 milliseconds)",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units_and_plain_millis() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("6m0s"), Ok(Duration::from_secs(360)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        // Each part fits in a Duration but their sum does not: an error, not an overflow panic.
        assert!(parse_duration("10000000000000000000s10000000000000000000s").is_err());
        assert!(parse_duration("").is_err());
    }

    #[derive(Debug, serde::Deserialize)]
    struct Delay {
        #[serde(with = "duration_serde")]
        #[allow(dead_code)] // read to be checked
        d: Duration,
    }

    #[test]
    fn a_value_of_neither_form_says_what_to_write() {
        let err = serde_json::from_str::<Delay>(r#"{"d": -5}"#).expect_err("negative");
        assert!(err.to_string().contains("such as 500ms or 2s"), "{err}");
        assert!(!err.to_string().contains("untagged"), "{err}");
    }
}
