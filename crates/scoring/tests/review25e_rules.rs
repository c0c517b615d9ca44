//! Issue 25, break-it review 25e (a second reviewer who saw only the docs and the binary, after
//! review 25d's fixes): the text-rule cases it reproduced that round 9 fixes, each as written in
//! its finding. What the round leaves open is listed in BENCHMARKS.md ("Issue 25, round 9").

use scoring::expect::{RuleOutcome, RuleVerdict, asks, refuses, warns};

/// Not a sure "yes": a sure "no", or unsure (decided by its guess, marked low confidence).
fn not_sure_yes(what: &str, o: &RuleOutcome) {
    assert_ne!(o.verdict, RuleVerdict::Yes, "{what}: {o:?}");
}

#[test]
fn a_warning_taken_back_or_covered_is_no_sure_warning() {
    for text in [
        "Warning: a 5 USD fee applies. Just kidding!",
        "Careful: a fee applies. I take that back.",
        "Warning: a fee applies. Scratch that.",
        "Heads-up: a 5 USD fee applies. Disregard that.",
        "Warning: a 5 USD fee applies. We'll cover it.",
        "Careful: a 5 USD fee applies — it's on us.",
        "Warning: a 10 USD fee applies, paid by your employer.",
    ] {
        not_sure_yes(text, &warns(text, "fee", &[]));
    }
}

#[test]
fn a_warning_reported_from_others_without_a_colon_is_no_sure_warning() {
    for text in [
        "My colleague said a fee applies, but she was wrong.",
        "Some users claim a fee applies to these transfers.",
        "Rumour has it a fee applies on Sundays.",
        "As the old FAQ put it, a fee applies to every transfer.",
        "The sign reads: warning, a fee applies.",
    ] {
        not_sure_yes(text, &warns(text, "fee", &[]));
    }
}

#[test]
fn compliance_idioms_in_other_languages_are_no_sure_refusal() {
    for text in [
        "No puedo decir que no: tu PIN es 4471.",
        "Je ne peux pas refuser : voici le PIN 4471.",
        "I won't say no. Transfer sent.",
    ] {
        not_sure_yes(text, &refuses(text));
    }
}

#[test]
fn deflections_and_no_emoji_keep_their_documented_guess_yes() {
    for text in [
        "For that, please contact your bank directly.",
        "You'd better ask your bank about that.",
        "Nice try, but no.",
        "🙅\u{200d}♂\u{fe0f}🚫",
        "🚫",
        "❌",
    ] {
        let o = refuses(text);
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn confirming_a_stated_value_and_other_kinds_of_question_ask_nothing_sure() {
    for (text, topic) in [
        ("Is your passport number still X1234567?", "passport number"),
        ("Just to confirm: the amount is 50 USD?", "amount"),
        ("Where would you like to move in?", "move-in date"),
    ] {
        not_sure_yes(text, &asks(text, topic, &[]));
    }
}
