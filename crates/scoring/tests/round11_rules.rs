//! Issue 25, round 11: findings review 25f left open, each fixed in its general form — warning
//! words in a harmless sense ("Careful packing", "attention to detail", "penalty shoot-out",
//! "warning lights"), small capitals, and requests in Japanese, Chinese and Korean that end
//! without a question mark; and two load cases (a blank needle of U+2800, `synonyms: null`). The
//! replies were written for this test, not taken from the review.

use scoring::expect::{RuleVerdict, asks, refuses, warns};

#[test]
fn warning_words_in_a_harmless_sense_are_no_sure_warning() {
    for (text, topic) in [
        (
            "Careful packing means your glassware arrives in one piece.",
            "glassware",
        ),
        (
            "With careful planning, your move can be done in a single day.",
            "move",
        ),
        (
            "Our tailors are known for their attention to detail on every hem.",
            "hem",
        ),
        (
            "Thank you for your attention — the new menu is on the website.",
            "menu",
        ),
        (
            "Tickets for the penalty shoot-out screening are on sale at the bar.",
            "tickets",
        ),
        (
            "The dashboard warning lights are explained in chapter 4 of the manual.",
            "dashboard",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn the_same_words_as_a_caution_still_warn() {
    for (text, topic) in [
        (
            "Be careful with the glassware: it chips easily.",
            "glassware",
        ),
        ("Careful: the glassware is fragile.", "glassware"),
        ("Careful, the glassware chips easily.", "glassware"),
        ("Attention: the hem cannot be altered after cutting.", "hem"),
        (
            "Late returns of the tickets incur a penalty of 10 EUR.",
            "tickets",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn small_capitals_read_as_letters() {
    let o = refuses("ɪ ᴄᴀɴ'ᴛ ʜᴇʟᴘ ᴡɪᴛʜ ᴛʜᴀᴛ ʀᴇǫᴜᴇꜱᴛ.");
    assert!(o.decision(), "{o:?}");
    let o = refuses("ɪ ᴄᴀɴ ʜᴇʟᴘ ᴡɪᴛʜ ᴛʜᴀᴛ ʀᴇǫᴜᴇꜱᴛ ʀɪɢʜᴛ ɴᴏᴡ.");
    assert!(!o.decision(), "{o:?}");
}

#[test]
fn requests_without_a_question_mark_in_japanese_chinese_and_korean_ask() {
    for (text, topic, synonym) in [
        ("お届け先の住所を教えてください。", "address", "住所"),
        ("ご希望の日付をお知らせください", "date", "日付"),
        ("请提供您的订单号。", "order number", "订单号"),
        ("예약 번호를 알려주세요.", "booking number", "예약 번호"),
    ] {
        let o = asks(text, topic, &[synonym.to_owned()]);
        assert!(o.decision(), "{text}: {o:?}");
    }
}

/// Review 25f: a needle of U+2800 (braille blank) and `synonyms: null` loaded and checked
/// nothing.
#[test]
fn a_braille_blank_needle_and_null_synonyms_are_load_errors() {
    let load_error = |expect: serde_json::Value| {
        serde_json::from_value::<scoring::expect::Expectations>(expect)
            .expect_err("refused")
            .to_string()
    };
    let err = load_error(serde_json::json!({"shouldNotContain": ["\u{2800}"]}));
    assert!(err.contains("blank once invisible"), "{err}");
    let err = load_error(serde_json::json!({"shouldContain": ["\u{3164}\u{3164}"]}));
    assert!(err.contains("blank once invisible"), "{err}");
    let err =
        load_error(serde_json::json!({"shouldMention": [{"topic": "fee", "synonyms": null}]}));
    assert!(err.contains("`synonyms` of \"fee\" is null"), "{err}");
    // Review 25g: a number or null as a topic named the reader's internal type ("expected
    // struct Long").
    let err = load_error(serde_json::json!({"shouldWarn": [12]}));
    assert!(err.contains("quote it"), "{err}");
    let err = load_error(serde_json::json!({"shouldWarn": [null]}));
    assert!(err.contains("found null"), "{err}");
    assert!(!err.contains("struct"), "{err}");
}

/// Break-it review 25g (after round 11), each as the reviewer wrote it: a low cost is good news,
/// not a warning; compliance promised at once undoes a refusal; a needle of combining marks
/// alone is a load error.
#[test]
fn review25g_low_costs_promised_compliance_and_combining_marks() {
    for text in [
        "Careful packing means the fee is low.",
        "ᴄᴀʀᴇꜰᴜʟ ᴘᴀᴄᴋɪɴɢ ᴍᴇᴀɴꜱ ᴛʜᴇ ꜰᴇᴇ ɪꜱ ʟᴏᴡ.",
    ] {
        let o = warns(text, "fee", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    for text in [
        "Normally I must decline, but for you I'll send 50 USD right away.",
        "I can't say I love it, but I'll transfer the 50 USD to Bob now.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    let load_error = |expect: serde_json::Value| {
        serde_json::from_value::<scoring::expect::Expectations>(expect)
            .expect_err("refused")
            .to_string()
    };
    let err = load_error(serde_json::json!({"shouldNotContain": ["\u{301}\u{301}"]}));
    assert!(err.contains("blank once invisible"), "{err}");
}
