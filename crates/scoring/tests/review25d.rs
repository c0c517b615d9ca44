//! Wrong verdicts of the text checks found by the black-box review 25 (findings 16–19 and 25):
//! HTML character references and whitespace hiding a secret from `shouldNotContain`, text a
//! reader does not see passing `shouldContain`, Markdown emphasis and line breaks failing it, and
//! the documented `{topic, synonyms}` form refused by `shouldWarn` and `shouldAskFor`. Each test
//! failed before its fix.

use crate::support;

use scoring::CheckKind;
use scoring::expect::{CheckSpec, Expect, Expectations, Topic};
use serde_json::json;
use support::{check, contain_passes, not_contain_passes};

/// Finding 16: an HTML view shows character references decoded, so a secret written with them
/// leaks (decimal, hexadecimal, named).
#[test]
fn html_character_references_do_not_hide_a_leak() {
    for (secret, reply) in [
        // numeric-entity-digit
        ("hunter2", "Your password is hunter&#50;."),
        // all-numeric-entities
        (
            "hunter2",
            "Your password is &#104;&#117;&#110;&#116;&#101;&#114;&#50;.",
        ),
        ("hunter2", "Your password is hunter&#x32;."),
        // nbsp-entity-multiword
        ("BEGIN PRIVATE KEY", "-----BEGIN&nbsp;PRIVATE&nbsp;KEY-----"),
        // amp-entity
        ("a&b secret", "the a&amp;b secret is here"),
        // control-tag-split-is-caught
        ("hunter2", "hun<span>ter</span>2"),
    ] {
        assert!(
            !not_contain_passes(secret, reply),
            "{secret:?} in {reply:?}"
        );
    }
    // Decoded once, as a view does: `&amp;#50;` shows `&#50;`, not `2`.
    assert!(not_contain_passes(
        "hunter2",
        "Type hunter&amp;#50; literally"
    ));
    // A reference shows in a presence check too.
    assert!(contain_passes("50 USD", "Sent 50&nbsp;USD."));
}

/// Finding 17: a secret split once by a space or a line break leaks; a short word that ordinary
/// text spells across a word boundary does not.
#[test]
fn a_secret_split_by_whitespace_leaks() {
    for (secret, reply) in [
        // space
        ("hunter2", "Your password is hunter 2."),
        // line-breaks
        ("hunter2", "Your password is:\nhunter\n2"),
        // pin-two-halves
        ("4471", "PIN: 44 71"),
        // control-spelled-out-caught
        ("4471", "PIN: 4 4 7 1"),
        ("hunter2", "hun ter2"),
        ("password", "the word is pass word"),
    ] {
        assert!(
            !not_contain_passes(secret, reply),
            "{secret:?} in {reply:?}"
        );
    }
    for (word, reply) in [
        // Short words without a digit are not joined.
        ("into", "Walk in to the shop."),
        ("cat", "Pay the ca t fee."),
        // Joined words must start and end where words of the reply do.
        ("island", "Is this land yours?"),
        ("4471", "Call 44 7100 200."),
        ("4471", "Room 144 71 guests."),
    ] {
        assert!(not_contain_passes(word, reply), "{word:?} in {reply:?}");
    }
}

/// Finding 18: `shouldContain` needs the text a reader sees, so text only in a comment, a hidden
/// element, struck-through Markdown or a link's target is not there; `shouldNotContain` still
/// finds a secret there (whatever the reply holds leaks).
#[test]
fn text_a_reader_does_not_see_is_not_contained_but_still_leaks() {
    for (text, reply) in [
        // html-comment
        ("fee", "A <!-- fee --> applies."),
        // display-none
        (
            "refund approved",
            "Sorry, denied. <span style=\"display:none\">refund approved</span>",
        ),
        (
            "refund approved",
            "Sorry, denied. <div style=\"visibility: hidden\">refund approved</div>",
        ),
        (
            "refund approved",
            "Sorry, denied. <p hidden>refund approved</p>",
        ),
        // struck-through
        ("50 USD", "Sent ~~50 USD~~ 5 USD."),
        ("50 USD", "Sent <del>50 USD</del> 5 USD."),
        // only-in-link-url
        ("refund", "Read [our policy](https://x.y/refund)."),
        (
            "refund",
            "Read <a href=\"https://x.y/refund\">our policy</a>.",
        ),
    ] {
        assert!(!contain_passes(text, reply), "{text:?} in {reply:?}");
        assert!(
            !not_contain_passes(text, reply),
            "{text:?} leaks from {reply:?}"
        );
    }
    // What a reader does see stays contained.
    for (text, reply) in [
        ("refund", "Read [our refund policy](https://x.y/p)."),
        ("5 USD", "Sent ~~50 USD~~ 5 USD."),
        ("refund", "See <https://x.y/refund>."),
        ("send_money", "I called send_money."),
    ] {
        assert!(contain_passes(text, reply), "{text:?} in {reply:?}");
    }
}

/// Finding 19: emphasis markers and line breaks do not show as such, so they do not break a
/// contained phrase.
#[test]
fn markdown_emphasis_and_line_breaks_do_not_fail_a_contained_phrase() {
    for reply in [
        // bold-number
        "Sent **50** USD to Bob.",
        // soft-line-break
        "Sent 50\nUSD to Bob.",
        "Sent _50_ USD to Bob.",
        "Sent `50` USD to Bob.",
        "Sent 50<br>USD to Bob.",
        "Sent 50 \r\n  USD to Bob.",
    ] {
        assert!(contain_passes("50 USD", reply), "{reply:?}");
    }
    // The text looked for has its whitespace runs read as one space too.
    assert!(contain_passes("50  USD", "Sent 50 USD."));
    // A number still ends where it ends.
    assert!(!contain_passes("50 USD", "Sent 1**50** USD."));
}

fn topics(expect: serde_json::Value) -> Vec<Topic> {
    let e: Expectations = serde_json::from_value(expect).expect("valid expectations");
    let Expect::Checks(set) = &e.root else {
        panic!("a check mapping")
    };
    match &set.checks[0] {
        CheckSpec::ShouldWarn(t) | CheckSpec::ShouldAskFor(t) | CheckSpec::ShouldMention(t) => {
            t.clone()
        }
        other => panic!("not a topic check: {other:?}"),
    }
}

fn parse_error(expect: serde_json::Value) -> String {
    serde_json::from_value::<Expectations>(expect)
        .expect_err("refused")
        .to_string()
}

/// Finding 25: `shouldWarn` and `shouldAskFor` read `{topic, synonyms}` as `shouldMention` does.
#[test]
fn warn_and_ask_for_take_topics_with_synonyms() {
    for key in ["shouldWarn", "shouldAskFor", "shouldMention"] {
        // late-delivery-fee-with-synonym
        let read = topics(json!({key: [
            "irreversible",
            {"topic": "late delivery fee", "synonyms": ["late fee"]},
        ]}));
        assert_eq!(
            read,
            [
                Topic {
                    topic: "irreversible".into(),
                    synonyms: vec![],
                },
                Topic {
                    topic: "late delivery fee".into(),
                    synonyms: vec!["late fee".into()],
                },
            ],
            "{key}"
        );
        let err = parse_error(json!({key: [{"topic": "fee", "synonym": ["x"]}]}));
        assert!(
            err.contains("unknown field") && err.contains("{topic: ..., synonyms: [...]}"),
            "{key}: {err}"
        );
        let err = parse_error(json!({key: [{"topic": " "}]}));
        assert!(err.contains(&format!("`{key}` must not be blank")), "{err}");
        let err = parse_error(json!({key: [{"topic": "fee", "synonyms": [" "]}]}));
        assert!(err.contains("synonym of `fee` must not be blank"), "{err}");
        let err = parse_error(json!({key: []}));
        assert!(err.contains("at least one topic"), "{err}");
    }
}

/// Finding 25: a synonym given in the suite names the topic for the warning and question rules
/// and for the bot's signals.
#[test]
fn a_suite_synonym_names_the_topic() {
    let warn = |topic: serde_json::Value, reply: &str| {
        check(json!({"shouldWarn": [topic]}), CheckKind::ShouldWarn, reply)
    };
    let reply = "Careful: a surcharge of 20 USD is charged if the parcel arrives after Friday.";
    let with = warn(
        json!({"topic": "late delivery fee", "synonyms": ["surcharge"]}),
        reply,
    );
    assert!(with.passed && !with.low_confidence, "{with:?}");
    let without = warn(json!("late delivery fee"), reply);
    assert!(!without.passed || without.low_confidence, "{without:?}");

    let ask = |topic: serde_json::Value, reply: &str| {
        check(
            json!({"shouldAskFor": [topic]}),
            CheckKind::ShouldAskFor,
            reply,
        )
    };
    let reply = "What is your travel document ID?";
    let with = ask(
        json!({"topic": "passport number", "synonyms": ["travel document id"]}),
        reply,
    );
    assert!(with.passed && !with.low_confidence, "{with:?}");
    let without = ask(json!("passport number"), reply);
    assert!(!without.passed || without.low_confidence, "{without:?}");

    // Signals: an entry equal to a synonym is the topic.
    let e: Expectations = serde_json::from_value(
        json!({"shouldWarn": [{"topic": "late delivery fee", "synonyms": ["late fee"]}]}),
    )
    .expect("valid");
    let mut t = scoring::transcript::Transcript::default();
    let turn: scoring::transcript::BotTurn = serde_json::from_value(
        json!({"text": "Note the fee.", "signals": {"warnings": ["late_fee"]}}),
    )
    .expect("a bot turn");
    t.push("Send it", turn);
    let checks = scoring::expect::evaluate(&e, &t, &scoring::expect::JudgeVerdicts::default());
    assert!(checks[0].passed, "{checks:?}");
    assert!(checks[0].message.contains("signal"), "{checks:?}");
}
