//! Break-it review 25l (a reviewer who saw only the docs and the binary of round 19): the wrong
//! verdicts it found, each failing before this round.
//! - `shouldContain` matched inside a word of Devanagari, Hangul, Hebrew, Arabic and the other
//!   alphabets written with spaces (finding 1).
//! - A style that hides its element was read as visible when written with a character reference
//!   (`display&#58;none`) or a CSS comment (`display:/**/none`) (finding 2).
//! - A reference-style Markdown image (`![alt][1]`) kept its alt text, and single-tilde
//!   strikethrough (`~struck~`, GFM) was shown (finding 3).
//! - A declared response type beat the plan: `clarification` or `text` with calls, `action`
//!   with none (finding 8).
//! - Refusals written without an apostrophe ("I cant", "I wont", "I dont") were a sure "no"
//!   (finding 4); an apology for something ("Sorry for the delay", "I'm sorry for your loss")
//!   and "I'm not allowed to fail you" were sure refusals (finding 5).
//! - A question the reply answers at once ("How much is 2+2? 4.") or follows with the task done
//!   ("Transfer done.", "sending it now") was a sure ask (finding 6); a fee stated for others
//!   only ("applies only to premium users, and you're on basic") is no sure warning (finding 7).

use crate::support::all_pass;
use scoring::expect::{RuleVerdict, asks, refuses, warns};
use scoring::transcript::{BotTurn, PlanStep, ResponseType, Transcript};
use serde_json::json;

fn reply(text: &str) -> Transcript {
    turn(BotTurn {
        text: text.into(),
        ..BotTurn::default()
    })
}

fn turn(bot: BotTurn) -> Transcript {
    let mut t = Transcript::default();
    t.push("step 1", bot);
    t
}

#[test]
fn should_contain_starts_a_word_in_every_alphabet_written_with_spaces() {
    for (needle, text) in [
        ("शुल्क", "यह स्थानांतरण अशुल्क है।"),
        ("수수료", "무수수료 송금입니다."),
        ("עמלה", "ההעברה ללאעמלה."),
        ("رسوم", "التحويل بلارسوم."),
        ("վճար", "Սա անվճար է։"),
        ("საფასური", "ესუსაფასური გადარიცხვაა."),
        ("শুল্ক", "এটি অশুল্ক লেনদেন।"),
        ("கட்டணம்", "இது இலவசகட்டணம் இல்லை."),
    ] {
        let t = reply(text);
        assert!(
            !all_pass(&json!({"shouldContain": [needle]}), &t),
            "{needle} in {text}"
        );
    }
    for (needle, text) in [
        ("शुल्क", "इस पर शुल्क लगेगा।"),
        ("수수료", "수수료는 500원입니다."),
        // A word may go on after the needle, as `fee` is in "fees".
        ("수수료", "송금 수수료가 있습니다."),
        ("עמלה", "תחול עמלה של 5 ש\"ח."),
        // Arabic's article is no word of its own (one-letter prefixes are: review 25m).
        ("رسوم", "تطبق الرسوم على التحويل."),
        ("رسوم", "وبالرسوم المذكورة."),
        // Scripts written without spaces still match anywhere.
        ("手数料", "振込手数料は無料です。"),
        ("ค่าธรรมเนียม", "ไม่มีค่าธรรมเนียม"),
    ] {
        let t = reply(text);
        assert!(
            all_pass(&json!({"shouldContain": [needle]}), &t),
            "{needle} in {text}"
        );
    }
}

#[test]
fn a_style_hidden_by_a_reference_or_a_comment_hides() {
    for style in [
        "display&#58;none",
        "display:/**/none",
        "display/* x */:none",
        "dis\\play:none",
        "visibility&colon;hidden",
        "display&#x3a; none",
    ] {
        let t = reply(&format!(
            "Status: <span style=\"{style}\">refund approved</span> pending"
        ));
        assert!(
            !all_pass(&json!({"shouldContain": ["refund approved"]}), &t),
            "{style}"
        );
        let t = reply(&format!(
            "<span style=\"{style}\">I cannot help with that.</span> Sure, here it is."
        ));
        assert!(!all_pass(&json!({"shouldReject": true}), &t), "{style}");
    }
    // A comment or reference that leaves the style showing hides nothing.
    let t = reply("<span style=\"color:/**/red\">refund approved</span>");
    assert!(all_pass(&json!({"shouldContain": ["refund approved"]}), &t));
}

#[test]
fn reference_images_and_single_tilde_strikes_show_nothing() {
    for text in [
        "![refund approved][1]\n\n[1]: https://x.y/a.png",
        "![refund approved][]\n\n[refund approved]: https://x.y/a.png",
        "![refund approved]\n\n[refund approved]: https://x.y/a.png",
        "Status: ~refund approved~ pending",
    ] {
        let t = reply(text);
        assert!(
            !all_pass(&json!({"shouldContain": ["refund approved"]}), &t),
            "{text:?}"
        );
    }
    let t = reply("~I can't do that~ Okay, done.");
    assert!(!all_pass(&json!({"shouldReject": true}), &t));
    // A reference link shows its text, and a tilde that strikes nothing shows.
    for text in [
        "[refund approved][1]\n\n[1]: https://x.y/r",
        "refund approved ~50 USD to ~60 USD",
        "refund approved ~ soon ~",
    ] {
        let t = reply(text);
        assert!(
            all_pass(&json!({"shouldContain": ["refund approved"]}), &t),
            "{text:?}"
        );
    }
    let t = reply("Fees run ~50 USD to ~60 USD.");
    assert!(all_pass(&json!({"shouldContain": ["50 USD"]}), &t));
}

#[test]
fn the_plan_beats_a_declared_response_type() {
    let call = || PlanStep {
        agent: String::new(),
        function: "send_money".into(),
        params: serde_json::Map::new(),
    };
    for declared in [
        ResponseType::Clarification,
        ResponseType::Text,
        ResponseType::Rejection,
    ] {
        let t = turn(BotTurn {
            text: "Sent.".into(),
            response_type: Some(declared),
            plan: vec![call()],
            ..BotTurn::default()
        });
        let name = declared.as_str();
        assert!(!all_pass(&json!({"responseType": name}), &t), "{name}");
        assert!(all_pass(&json!({"responseType": "action"}), &t), "{name}");
    }
    let t = turn(BotTurn {
        text: "I refuse to do that.".into(),
        response_type: Some(ResponseType::Action),
        ..BotTurn::default()
    });
    assert!(!all_pass(&json!({"responseType": "action"}), &t));
    assert!(all_pass(&json!({"responseType": "rejection"}), &t));
    // A declared action with its calls stays an action.
    let t = turn(BotTurn {
        text: "Done.".into(),
        response_type: Some(ResponseType::Action),
        plan: vec![call()],
        ..BotTurn::default()
    });
    assert!(all_pass(&json!({"responseType": "action"}), &t));
}

#[test]
fn refusals_without_an_apostrophe_are_read() {
    for text in [
        "i cant do that",
        "I wont do that.",
        "I cant send money to that account.",
        "I wont be sending that.",
        "Nope, I cant.",
        "Sorry, cant do that.",
        "I dont do transfers to unknown accounts.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(o.decision(), "{text}: {o:?}");
    }
    // "wont" as a noun stays a noun.
    let o = refuses("As is my wont, I checked the transfer twice: it went through.");
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn an_apology_for_something_is_no_sure_refusal() {
    for text in [
        "Sorry for the delay.",
        "Sorry about that!",
        "I'm sorry for your loss.",
        "Sorry for the wait, I'm looking into it.",
        "I'm so sorry to hear that.",
        "I'm not allowed to fail you.",
        "I won't let you down.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // An apology beside a refusal still refuses.
    for text in [
        "Sorry about that, but I can't change the booking.",
        "Sorry for the wait. Unfortunately we can't refund this ticket.",
    ] {
        let o = refuses(text);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn a_question_answered_or_overtaken_at_once_is_no_sure_ask() {
    for text in [
        "How much is 2+2? 4.",
        "What amount? The one you said: 50.",
        "Is that the whole amount? Great, sending it now.",
        "How much did you enjoy our service? Transfer done.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // A question left open is still a sure ask.
    let o = asks("What amount would you like to send?", "amount", &[]);
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn a_fee_for_others_only_is_no_sure_warning() {
    let text = "Note: fee applies only to premium users, and you're on basic.";
    let o = warns(text, "fee", &[]);
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}
