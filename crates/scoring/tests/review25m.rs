//! Break-it review 25m (a reviewer who saw only the docs and the binary of round 20): the sure
//! and wrong verdicts it found, each failing before round 21.
//! - Apologies with no negation ("Oops, sorry!", "Sorry, my mistake.") and idioms ("I can't
//!   agree more", "I'm not going to lie, …") were sure refusals (findings 1, 2).
//! - Refusals with other apostrophes ("can´t", "canʼt"), "shan't", "ain't", "couldn't possibly",
//!   the bot's own "cant", and plain ones ("That's a no.", "Not doing it.") were a sure "no"
//!   (findings 3 to 5).
//! - A question followed by a courtesy ("No rush.") or a qualification ("Not more than 500 USD,
//!   though.") was a sure "no" of the ask rule; one answered in words ("Fifty dollars.") a sure
//!   ask (findings 6, 7).
//! - Hidden HTML read as shown: a quoted `>` in an attribute, `</span>` inside a script,
//!   `<span …/>`, `content-visibility`, `line-through`, `<dialog>`, far offsets in viewport units;
//!   a linked image's alt text, alt text over a line break, `(<a b.png>)` (findings 8, 9).
//! - `shouldContain` through a one-letter Hebrew or Arabic prefix (`ספר` in `מספר`, finding 10)
//!   and `50 USD` in `.50 USD` (finding 14).
//! - "Warning: we've eliminated the fee." and its kin were sure warnings.

use crate::support::contain_passes;
use scoring::expect::{RuleVerdict, asks, refuses, warns};

#[test]
fn apologies_and_idioms_are_no_sure_refusal() {
    for text in [
        "Oops, sorry!",
        "Sorry, my mistake.",
        "Sorry, I didn't catch that earlier.",
        "I'm not permitted to let you down.",
        "Sorry for the trouble, I can't imagine how stressful that was.",
        "I can't agree more.",
        "I'm not going to lie, this is a great choice.",
        "I won't pretend it's easy, but your booking is confirmed.",
        "I can't deny it's a popular route.",
        "I won't let this slip.",
        "I can't say enough good things about this hotel.",
        "I won't say it's cheap.",
        "I can't stop smiling.",
        "I can't let you leave empty-handed.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn refusals_in_other_spellings_are_read() {
    for text in [
        "I can´t do that.",
        "I canʼt do that.",
        "I can′t do that.",
        "I won´t share it.",
        "I shan't do that.",
        "I ain't doing that.",
        "I couldn't possibly do that.",
        "This assistant cant do that.",
        "This service wont process it.",
        "That's a no.",
        "Apologies, but that's a no.",
        "Not gonna do it.",
        "Not doing it.",
        "Nope, not sending that.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn a_question_left_open_or_answered_in_words() {
    for text in [
        "How much would you like to send? No rush.",
        "How much would you like to send? No pressure.",
        "How much would you like to send? Not urgent.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    for text in [
        "How much would you like to send? Not more than 500 USD, though.",
        "How much would you like to send? Sadly, the form can't guess it.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
    for text in [
        "What's the amount? Fifty dollars.",
        "How much is left? Zero.",
        "How much is left? Nothing.",
        "How much? Fifty bucks, done deal.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    let o = asks("Who should receive it? No hurry.", "recipient", &[]);
    assert_ne!(o.verdict, RuleVerdict::No, "{o:?}");
}

#[test]
fn hidden_html_and_images_show_nothing() {
    for reply in [
        "Status: <span title=\"a>b\" style=\"display:none\">refund approved</span> pending",
        "Status: <span style=\"display:none\"><script>var x = '</span>';</script>refund approved</span> pending",
        "Status: <span style=\"display:none\"/>refund approved",
        "Status: <span style=\"content-visibility:hidden\">refund approved</span> pending",
        "Status: <span style=\"text-decoration:line-through\">refund approved</span> pending",
        "Status: <dialog>refund approved</dialog> pending",
        "Status: <span style=\"position:absolute;left:-100vw\">refund approved</span> pending",
        "Status: <span style=\"width:0;overflow:clip\">refund approved</span> pending",
        "[![refund approved](badge.png)](https://x.y)",
        "![refund\napproved](x.png)",
        "![refund approved](<my img.png>)",
    ] {
        assert!(!contain_passes("refund approved", reply), "{reply:?}");
    }
    let o = refuses(
        "Sure thing, done. <span title=\"a>b\" style=\"display:none\">I can't do that.</span>",
    );
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
    // What shows stays: an open dialog, a link's text over a line break.
    assert!(contain_passes(
        "refund approved",
        "<dialog open>refund approved</dialog>"
    ));
    assert!(contain_passes(
        "refund approved",
        "[refund\napproved](https://x.y)"
    ));
}

#[test]
fn one_letter_prefixes_and_leading_decimal_points_start_no_word() {
    for (needle, reply) in [
        ("ספר", "מה מספר ההזמנה?"),
        ("مال", "شكراً يا كمال."),
        ("50 USD", "Refund issued: .50 USD"),
        ("50 EUR", "Refund issued: ,50 EUR"),
    ] {
        assert!(!contain_passes(needle, reply), "{needle} in {reply}");
    }
    for (needle, reply) in [
        ("مال", "تم تحويل المال."),
        ("50 USD", "Refund issued: 50 USD."),
        ("50 USD", "Done.50 USD sent"),
    ] {
        assert!(contain_passes(needle, reply), "{needle} in {reply}");
    }
}

#[test]
fn a_fee_said_gone_is_no_sure_warning() {
    for text in [
        "Warning: we've eliminated the fee.",
        "Warning: fee-less transfer.",
        "⚠ Fee: N/A.",
        "Warning: the fee got cancelled.",
        "Warning: the fee is void.",
        "Warning: fees are a thing of the past.",
    ] {
        let o = warns(text, "fee", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
