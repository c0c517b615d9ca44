//! The `cs_ratio` target parser and the measured-ratio score: accepted forms, rejected input,
//! and property tests (range, maximum at zero error, monotonicity).

use codeswitch::{measure, parse_target_ratio, ratio_score};
use proptest::prelude::*;

#[test]
fn parses_percentages_fractions_bare_numbers_and_labels() {
    assert_eq!(parse_target_ratio("30%"), Some(0.3));
    assert_eq!(parse_target_ratio(" 70 % "), Some(0.7));
    assert_eq!(parse_target_ratio("12.5%"), Some(0.125));
    assert_eq!(parse_target_ratio("0.3"), Some(0.3));
    assert_eq!(parse_target_ratio("1"), Some(1.0));
    assert_eq!(parse_target_ratio("0"), Some(0.0));
    assert_eq!(parse_target_ratio("30"), Some(0.3));
    assert_eq!(parse_target_ratio("100%"), Some(1.0));
    assert_eq!(parse_target_ratio("low"), Some(0.2));
    assert_eq!(parse_target_ratio("Medium"), Some(0.35));
    assert_eq!(parse_target_ratio("HIGH"), Some(0.5));
}

#[test]
fn rejects_out_of_range_and_non_numbers() {
    for bad in [
        "",
        "%",
        "-5%",
        "101",
        "150%",
        "abc",
        "NaN",
        "inf",
        "very high",
        "0.3.1",
    ] {
        assert_eq!(parse_target_ratio(bad), None, "{bad:?}");
    }
}

#[test]
fn score_is_linear_in_the_error() {
    assert_eq!(ratio_score(0.3, 0.3), 10.0);
    assert!((ratio_score(0.4, 0.3) - 8.0).abs() < 1e-9);
    assert!((ratio_score(0.2, 0.3) - 8.0).abs() < 1e-9);
    assert!((ratio_score(0.55, 0.3) - 5.0).abs() < 1e-9);
    assert_eq!(ratio_score(0.9, 0.3), 0.0);
    assert_eq!(ratio_score(f64::NAN, 0.3), 0.0);
    assert_eq!(ratio_score(0.3, f64::INFINITY), 0.0);
}

#[test]
fn measured_mode_scores_a_batch_against_its_target() {
    // 4 English words of 14 tagged (see codeswitch_metrics.rs): |4/14 − 0.3| = 1/70,
    // so the score is 10 · (1 − (1/70)/0.5) = 10 − 2/7.
    let batch = vec![
        "أنا رايح الـ meeting بكرة مع Ahmed في Dubai الساعة 3!".to_owned(),
        "Honestly, الشغل كان too much اليوم.".to_owned(),
    ];
    let m = measure(&batch, "Arabic", "English").expect("supported pair");
    let target = parse_target_ratio("30%").expect("valid target");
    assert!((ratio_score(m.embedded_ratio, target) - (10.0 - 2.0 / 7.0)).abs() < 1e-9);
}

proptest! {
    #[test]
    fn score_in_range_and_maximal_at_target(measured in -2.0f64..3.0, target in 0.0f64..=1.0) {
        let s = ratio_score(measured, target);
        prop_assert!((0.0..=10.0).contains(&s));
        prop_assert_eq!(ratio_score(target, target), 10.0);
    }

    #[test]
    fn score_is_monotone_in_the_error(
        target in 0.0f64..=1.0,
        d1 in 0.0f64..=1.0,
        d2 in 0.0f64..=1.0,
        above in any::<bool>(),
    ) {
        let (near, far) = if d1 <= d2 { (d1, d2) } else { (d2, d1) };
        let sign = if above { 1.0 } else { -1.0 };
        prop_assert!(
            ratio_score(target + sign * near, target) >= ratio_score(target + sign * far, target)
        );
        // Symmetric: the same error above or below the target scores the same.
        prop_assert!(
            (ratio_score(target + near, target) - ratio_score(target - near, target)).abs() < 1e-9
        );
    }

    #[test]
    fn parsed_targets_are_fractions(s in "\\PC{0,8}") {
        if let Some(r) = parse_target_ratio(&s) {
            prop_assert!((0.0..=1.0).contains(&r));
        }
    }

    #[test]
    fn percent_round_trips(p in 0u32..=100) {
        let parsed = parse_target_ratio(&format!("{p}%")).expect("a valid percentage");
        prop_assert!((parsed - f64::from(p) / 100.0).abs() < 1e-12);
    }
}
