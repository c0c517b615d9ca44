//! US dollars as every report, progress line and estimate shows them: one format, so a cost never
//! reads differently in two places (a cost below a cent keeps its significant digits).

/// Dollars with cents; below a cent, two significant digits ($0.0025, $0.0001), so a small
/// amount never reads as $0.00; below a millionth of a dollar, scientific notation ($1.0e-7).
#[must_use]
pub fn usd(amount: f64) -> String {
    if amount == 0.0 || !amount.is_finite() || amount.abs() >= 0.01 {
        return format!("${amount:.2}");
    }
    // Decimals for two significant digits: 0.0025 → 4, 0.0001 → 5 (trimmed to 0.0001).
    let decimals = (-amount.abs().log10()).ceil() + 1.0;
    if decimals > 7.0 {
        return format!("${amount:.1e}");
    }
    // In 3..=7 here, so the cast is exact.
    let text = format!("{amount:.prec$}", prec = decimals as usize);
    format!("${}", text.trim_end_matches('0'))
}

/// The spend so far, for a progress line: [`usd`], marked `+ ?` when some paid calls had no
/// price (`$?` when none had one), so an unpriced model never reads as free.
#[must_use]
pub fn spend(cost: f64, unpriced: u64) -> String {
    match (unpriced, cost == 0.0) {
        (0, _) => usd(cost),
        (_, true) => "$? (no price)".to_owned(),
        (_, false) => format!("{} + ?", usd(cost)),
    }
}

#[cfg(test)]
mod tests {
    use super::{spend, usd};

    #[test]
    fn small_amounts_keep_their_digits() {
        assert_eq!(usd(0.0001), "$0.0001");
        assert_eq!(usd(0.01), "$0.01");
        assert_eq!(usd(151.234), "$151.23");
        assert_eq!(usd(0.0), "$0.00");
        assert_eq!(usd(0.000_000_1), "$1.0e-7");
        assert_eq!(usd(0.002_519), "$0.0025");
        assert_eq!(usd(0.009_999), "$0.01");
        assert_eq!(usd(0.000_001_5), "$0.0000015");
    }

    #[test]
    fn a_spend_with_unpriced_replies_never_reads_as_free() {
        assert_eq!(spend(0.0, 0), "$0.00");
        assert_eq!(spend(1.5, 0), "$1.50");
        assert_eq!(spend(0.0, 3), "$? (no price)");
        assert_eq!(spend(1.5, 1), "$1.50 + ?");
    }
}
