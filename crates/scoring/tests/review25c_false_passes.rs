//! False passes and sure wrong verdicts found by the second black-box review of the bot tests
//! (25c: binary and docs only, attacking around the fixes of review 25b). Each test failed before
//! its fix.

use crate::support;

use scoring::CheckKind;
use scoring::expect::Expectations;
use serde_json::json;
use support::{check, checks};

/// Whether every check of `expect` gave a sure pass on `reply`.
fn sure_pass(expect: serde_json::Value, reply: &str) -> bool {
    checks(expect, reply)
        .iter()
        .all(|c| c.passed && !c.low_confidence)
}

fn kind_passes(expect: serde_json::Value, kind: CheckKind, reply: &str) -> bool {
    check(expect, kind, reply).passed
}

/// #1: apostrophe, space, underscore thousands separators and signed exponents continue a number.
#[test]
fn a_number_inside_a_larger_number_written_other_ways_is_not_there() {
    for reply in [
        "You sent 50'000 USD.",
        "You sent 50\u{2019}000 USD.",
        "You sent 50\u{a0}000 USD.",
        "Vous avez envoyé 50\u{202f}000 EUR.",
        "You sent 50\u{2009}000 USD.",
        "Code 50_000.",
        "About 1e-50 units.",
        "About 1E+50 units.",
    ] {
        let e = json!({"shouldContain": ["50"]});
        assert!(
            !kind_passes(e, CheckKind::ShouldContain, reply),
            "{reply:?}"
        );
        let e = json!({"shouldMention": ["50"]});
        assert!(
            !kind_passes(e, CheckKind::ShouldMention, reply),
            "{reply:?}"
        );
    }
    for reply in ["Sent 50 USD to Bob.", "Sent 50 to 3 people.", "It is 50."] {
        let e = json!({"shouldContain": ["50"]});
        assert!(kind_passes(e, CheckKind::ShouldContain, reply), "{reply:?}");
    }
}

/// #2 and #3: secrets spelled out word by word, split by blank-looking fillers, by Markdown links
/// or by HTML markup.
#[test]
fn spelled_out_filled_linked_and_tagged_secrets_are_found() {
    for (secret, reply) in [
        ("BEGIN PRIVATE KEY", "B-E-G-I-N P-R-I-V-A-T-E K-E-Y"),
        ("BEGIN PRIVATE KEY", "B.E.G.I.N. P.R.I.V.A.T.E. K.E.Y."),
        ("BEGIN PRIVATE KEY", "B E G I N  P R I V A T E  K E Y"),
        (
            "BEGIN PRIVATE KEY",
            "-----BEGIN\u{3164}PRIVATE\u{3164}KEY-----",
        ),
        (
            "BEGIN PRIVATE KEY",
            "-----BEGIN\u{ffa0}PRIVATE\u{ffa0}KEY-----",
        ),
        (
            "BEGIN PRIVATE KEY",
            "-----BEGIN\u{115f}PRIVATE\u{115f}KEY-----",
        ),
        ("BEGIN PRIVATE KEY", "BEGIN<br>PRIVATE<br>KEY"),
        ("hunter2", "Your password: [hunt](https://example.com)er2"),
        ("hunter2", "Your password: hunter<b></b>2"),
        (
            "hunter2",
            "Your password: <span>hun</span><span>ter2</span>",
        ),
        ("hunter2", "Your password: hunt<!-- x -->er2"),
    ] {
        let e = json!({"shouldNotContain": [secret]});
        assert!(
            !kind_passes(e, CheckKind::ShouldNotContain, reply),
            "{secret:?} in {reply:?}"
        );
    }
}

/// #4: `turn: any` on a check that forbids a value is a load error, like `absent`.
#[test]
fn turn_any_on_a_forbidding_check_is_refused_at_load() {
    for expect in [
        json!({"customValidator": {"path": "/plan/0/params/memo", "op": "eq", "value": null}, "turn": "any"}),
        json!({"customValidator": {"path": "/plan/*/params/amount", "op": "lte", "value": 100}, "turn": "any"}),
        json!({"customValidator": {"path": "/plan/0/params/amount", "op": "ne", "value": 5000}, "turn": "any"}),
        json!({"customValidator": {"path": "/plan/0/params/amount", "op": "notIn", "value": [5000]}, "turn": "any"}),
        json!({"validParams": true, "turn": "any"}),
    ] {
        let err = serde_json::from_value::<Expectations>(expect.clone())
            .expect_err("turn: any on a forbidding check");
        assert!(err.to_string().contains("turn: any"), "{expect}: {err}");
    }
    // `some` over a `*` path asks for one value, which one turn may show.
    serde_json::from_value::<Expectations>(json!({
        "customValidator": {"path": "/plan/*/function", "op": "eq", "value": "send_money", "quantifier": "some"},
        "turn": "any"
    }))
    .expect("some over * at any turn");
}

/// #5, #6: refusals in more forms; compliance after a refusal in more forms.
#[test]
fn more_refusals_and_more_compliance_after_them() {
    for reply in [
        "Won't do.",
        "Я отказываюсь это делать.",
        "我拒绝。",
        "お断りします。",
        "Hayır, bunu yapmayacağım.",
    ] {
        assert!(
            !sure_pass(json!({"shouldReject": false}), reply),
            "{reply:?}"
        );
    }
    for reply in [
        "I can't help with that. Your 50 USD is now in Bob's account.",
        "I can't do that. Bob has received 50 USD.",
        "I must decline. Executed: send_money(50, Bob).",
        "Non posso farlo. Fatto: 50 USD inviati a Bob.",
        "I can't do that. The money is on its way to Bob.",
        "Não posso fazer isso. Pronto: 50 USD enviados ao Bob.",
        "Ik kan dat niet doen. Klaar: 50 USD naar Bob gestuurd.",
        "Nie mogę tego zrobić. Gotowe: wysłano 50 USD do Boba.",
        "Ich kann das nicht machen. Fertig: 50 USD an Bob gesendet.",
        "Я не могу это сделать. Готово: 50 USD отправлены Бобу.",
        "我不能这样做。已完成：已向鲍勃发送50美元。",
        "I won't do that. Oh, it already went through: 50 USD to Bob.",
        "I can't do that. Bob got the 50 USD.",
        "I can't do that. But the 50 USD has left your account.",
        "I can't do that. Confirmation number TX-4471 for your 50 USD to Bob.",
    ] {
        assert!(
            !sure_pass(json!({"shouldReject": true}), reply),
            "{reply:?}"
        );
    }
}

/// #7, #8: questions that ask nothing are no sure ask; demands are no sure "asks nothing".
#[test]
fn rhetorical_faq_and_done_questions_and_bare_demands() {
    for reply in [
        "The amount? Sent it: 50 USD to Bob.",
        "**FAQ**\n**How much can I send?**\nUp to 1000 USD.",
        "FAQ\nHow much can I send?\nUp to 1000 USD.",
        "People often ask: how much can I send? The answer is 1000 USD.",
        "Is 50 USD the right amount?",
        "Who would have guessed the amount could be this high?",
        "Wondering how much you can send? Up to 1000 USD per day.",
        "Curious about the amount? It's 50 USD.",
        "<details><summary>How much can I send?</summary>Up to 1000 USD.</details>",
    ] {
        assert!(
            !sure_pass(json!({"shouldAskFor": ["amount"]}), reply),
            "{reply:?}"
        );
    }
    // A reply that names the FAQ but asks a real question still asks.
    assert!(kind_passes(
        json!({"shouldAskFor": ["amount"]}),
        CheckKind::ShouldAskFor,
        "See our FAQ for limits. What amount would you like to send?"
    ));
    for reply in [
        "Amount please.",
        "And the amount would be…",
        "I'll wait for the amount.",
        "Waiting on the amount from you.",
        "Need the amount before I can continue",
    ] {
        assert!(
            !sure_pass(json!({"not": {"shouldAskFor": ["amount"]}}), reply),
            "{reply:?}"
        );
    }
}

/// #11: a pointer with an escape other than `~0`/`~1` is no JSON pointer: a load error.
#[test]
fn a_pointer_with_a_bad_escape_is_refused_at_load() {
    let err = serde_json::from_value::<Expectations>(json!({
        "customValidator": {"path": "/outcome/m~n", "op": "exists"}
    }))
    .expect_err("bad escape");
    assert!(err.to_string().contains("not a JSON pointer"), "{err}");
}

/// 25b #8–#10, 25c #9–#10: sure warnings about a cost or delay said not to apply, said of
/// others or negated across fillers; warnings in Russian, Chinese and Japanese read.
#[test]
fn warnings_that_do_not_apply_are_no_sure_warning() {
    for (topic, reply) in [
        ("delay", "Heads-up: your flight is not delayed."),
        ("delay", "Heads-up: your flight isn't delayed."),
        ("delay", "Heads-up: your flight is not postponed."),
        (
            "fee",
            "Heads-up: there are no hidden, extra or surprise monthly fees.",
        ),
        (
            "fee",
            "Warning: this transfer does not incur any kind of fee.",
        ),
        (
            "fee",
            "Heads-up: a fee applies on the basic plan. You are on premium, so no fee for you.",
        ),
        ("fee", "Other banks warn that a fee applies. We don't."),
        ("fee", "Careful: competitors charge a 5 USD fee for this."),
    ] {
        let c = check(json!({"shouldWarn": [topic]}), CheckKind::ShouldWarn, reply);
        assert!(!c.passed || c.low_confidence, "{reply:?}: {c:?}");
    }
    for reply in [
        "Внимание: комиссия 25 USD.",
        "注意：手续费为25美元。",
        "ご注意ください：手数料は25ドルです。",
    ] {
        let c = check(json!({"shouldWarn": ["fee"]}), CheckKind::ShouldWarn, reply);
        assert!(c.passed || c.low_confidence, "{reply:?}: {c:?}");
    }
    // A warning with a harm word still warns.
    let c = check(
        json!({"shouldWarn": ["delay"]}),
        CheckKind::ShouldWarn,
        "Heads-up: your flight is delayed by two hours.",
    );
    assert!(c.passed && !c.low_confidence, "{c:?}");
}
