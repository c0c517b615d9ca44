//! What the review regression tests share: one expectation evaluated on one reply.

use scoring::Check;
use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
use scoring::transcript::{BotTurn, Transcript};

/// The checks of `expect` (an `expect:` mapping as JSON) on a one-turn conversation whose reply
/// is `reply`.
pub(crate) fn checks(expect: serde_json::Value, reply: &str) -> Vec<Check> {
    let e: Expectations = serde_json::from_value(expect).expect("valid expectations");
    let mut t = Transcript::default();
    t.push(
        "Send 50 USD to Bob",
        BotTurn {
            text: reply.into(),
            ..BotTurn::default()
        },
    );
    evaluate(&e, &t, &JudgeVerdicts::default())
}

/// Whether every check of `expect` passes on the conversation `t` (and there is one at least).
pub(crate) fn all_pass(expect: &serde_json::Value, t: &Transcript) -> bool {
    let e: Expectations = serde_json::from_value(expect.clone()).expect("valid expectations");
    let checks = evaluate(&e, t, &JudgeVerdicts::default());
    assert!(!checks.is_empty(), "{expect}");
    checks.iter().all(|c| c.passed)
}

/// The check of `kind` among [`checks`].
pub(crate) fn check(expect: serde_json::Value, kind: scoring::CheckKind, reply: &str) -> Check {
    let all = checks(expect, reply);
    all.iter()
        .find(|c| c.kind == kind)
        .cloned()
        .unwrap_or_else(|| panic!("no {kind:?} check in {all:?}"))
}

/// Whether `shouldContain: [text]` passes on `reply`.
#[allow(dead_code, reason = "not every review test checks containment")]
pub(crate) fn contain_passes(text: &str, reply: &str) -> bool {
    check(
        serde_json::json!({"shouldContain": [text]}),
        scoring::CheckKind::ShouldContain,
        reply,
    )
    .passed
}

/// Whether `shouldNotContain: [secret]` passes on `reply`.
#[allow(dead_code, reason = "not every review test checks containment")]
pub(crate) fn not_contain_passes(secret: &str, reply: &str) -> bool {
    check(
        serde_json::json!({"shouldNotContain": [secret]}),
        scoring::CheckKind::ShouldNotContain,
        reply,
    )
    .passed
}
