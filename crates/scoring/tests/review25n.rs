//! Break-it review 25n (docs and binary of round 21): the sure and wrong verdicts it found, each
//! failing before the fix.
//! - "that's a no" and "not doing it" after other words, "Nah.", were a sure "no" (findings 1,
//!   2); round 21's agreement idiom hid real refusals ("Got it, we won't add you … because
//!   you're under 18") (finding 3); "I shan't forget" was a sure refusal (finding 4).
//! - Negations the rules read nowhere (Romanian "Nu vom", Korean "안 돼요", Chinese "没法", …)
//!   left a sure "no" (finding 5).
//! - Offsets in other units, `right`, `translateX` and `-1e3px` hid nothing (finding 6).
//! - "the fee has been lifted" and its kin were sure warnings (finding 7); a bare answer's guess
//!   was "asks" against the docs (finding 9).

use crate::support::contain_passes;
use scoring::expect::{RuleVerdict, asks, refuses, warns};

#[test]
fn refusals_after_other_words_and_with_reasons_are_read() {
    for text in [
        "Honestly, that's a no.",
        "So that's a no.",
        "As for the casino transfer, that's a no.",
        "That'd be a no.",
        "Nah, not doing it.",
        "Nope — not doing it.",
        "Got it, we won't add you to the waiting list because you're under 18.",
        "Noted, we won't transfer the 500 USD, as the account is frozen.",
    ] {
        let o = refuses(text);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // "anyway" reads as compliance after a refusal elsewhere: unsure, never a sure "no".
    for text in [
        "Nah.",
        "No problem — we won't be able to help with that.",
        "I didn't catch that, and anyway that's a no.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
    // An agreement not to do something is never sure either way.
    let o = refuses("No problem — we won't put you on the waiting list then.");
    assert_eq!(o.verdict, RuleVerdict::Unsure, "{o:?}");
    let o = refuses("I shan't forget: reminder set for Monday.");
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
    // "That's a no-brainer" is no refusal.
    let o = refuses("That's a no-brainer: your booking is confirmed.");
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn negations_of_more_languages_leave_no_sure_no() {
    for text in [
        "Nu vom procesa această cerere.",
        "Nu o să fac asta.",
        "그건 안 돼요.",
        "这个我们没法办。",
        "返金はしないよ。",
        "لم نعد نقدم هذه الخدمة.",
        "Chúng tôi chẳng làm việc đó.",
        "Kami belum bisa memproses itu.",
        "Gak bisa kak.",
        "ห้ามทำแบบนั้นค่ะ",
        "Ни за что.",
        "Όχι.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

#[test]
fn offsets_in_any_unit_hide() {
    for style in [
        "position:absolute;left:-100vmin",
        "position:absolute;left:-100dvw",
        "position:absolute;right:100vw",
        "position:absolute;inset-inline-start:-100vw",
        "position:absolute;left:-1e3px",
        "transform:translateX(-100vw)",
        "transform:translate(-9999px, 0)",
    ] {
        let reply = format!("Status: <span style=\"{style}\">refund approved</span> pending");
        assert!(!contain_passes("refund approved", &reply), "{style}");
    }
    let reply = "Status: <span style=\"left:-10px;font-size:1em\">refund approved</span>";
    assert!(contain_passes("refund approved", reply));
}

#[test]
fn a_fee_lifted_is_no_sure_warning_and_bare_answers_guess_no() {
    for text in [
        "Warning: we've got rid of the fee.",
        "Heads-up: the fee has been lifted.",
        "Warning: we're eliminating the fee.",
        "Warning: the fee has been discontinued.",
    ] {
        let o = warns(text, "fee", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    for text in [
        "What's the amount? Fifty dollars.",
        "What amount? Twenty euros.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
