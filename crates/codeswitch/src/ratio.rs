//! The `cs_ratio` target (the embedded language's share of words) as configs write it, and the
//! 0–10 score of a measured ratio against it (`ratio_judge: measured`, no LLM call).

/// Embedded share meant by the label "Low": light insertional mixing, one word in five.
pub const LOW_RATIO: f64 = 0.2;
/// Embedded share meant by the label "Medium": halfway between Low and High.
pub const MEDIUM_RATIO: f64 = 0.35;
/// Embedded share meant by the label "High": balanced bilingual text. Above one half the
/// "embedded" language would supply most words and become the matrix language (Myers-Scotton's
/// Matrix Language Frame), so High stops at 0.5.
pub const HIGH_RATIO: f64 = 0.5;

/// |measured − target| at which [`ratio_score`] reaches 0.
pub const RATIO_TOLERANCE: f64 = 0.5;

/// Parses a `cs_ratio` target into the embedded share in [0, 1].
///
/// Accepted forms (surrounding whitespace ignored):
/// - a percentage: `"30%"`, `"30 %"`, `"12.5%"` → 0.3, 0.3, 0.125 (0–100 allowed);
/// - a fraction in [0, 1]: `"0.3"` → 0.3, `"1"` → 1.0 (a bare number ≤ 1 is a fraction);
/// - a bare number in (1, 100]: `"30"` → 0.3 (read as a percentage);
/// - a label, case-insensitive: `"Low"` → [`LOW_RATIO`], `"Medium"` → [`MEDIUM_RATIO`],
///   `"High"` → [`HIGH_RATIO`].
///
/// Anything else (negative, above 100, not a number, NaN) is `None`.
#[must_use]
pub fn parse_target_ratio(s: &str) -> Option<f64> {
    let s = s.trim();
    match s.to_lowercase().as_str() {
        "low" => return Some(LOW_RATIO),
        "medium" => return Some(MEDIUM_RATIO),
        "high" => return Some(HIGH_RATIO),
        _ => {}
    }
    let (number, percent) = match s.strip_suffix('%') {
        Some(rest) => (rest.trim_end(), true),
        None => (s, false),
    };
    let value: f64 = number.parse().ok()?;
    if !value.is_finite() || !(0.0..=100.0).contains(&value) {
        return None;
    }
    if percent || value > 1.0 {
        Some(value / 100.0)
    } else {
        Some(value)
    }
}

/// Scores a measured embedded ratio against the target on 0–10:
/// `10 · max(0, 1 − |measured − target| / 0.5)`.
///
/// 10 at an exact match, falling linearly by 2 points per 0.1 of error and 0 from an error of
/// [`RATIO_TOLERANCE`] on: an error of 0.1 gives 8 (the default acceptance threshold), 0.25
/// gives 5. Non-finite inputs score 0.
#[must_use]
pub fn ratio_score(measured: f64, target: f64) -> f64 {
    let delta = (measured - target).abs();
    if !delta.is_finite() {
        return 0.0;
    }
    (10.0 * (1.0 - delta / RATIO_TOLERANCE)).clamp(0.0, 10.0)
}
