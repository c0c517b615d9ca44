//! Issue 25, break-it review 25f (a reviewer who saw only the docs and the binary, after round
//! 10): the sure wrong verdicts it reproduced that round 10 fixes, each as written in its
//! findings (BENCHMARKS.md, "Issue 25, round 10"). Each test failed before its fix.

use crate::support;

use scoring::CheckKind;
use scoring::expect::{RuleOutcome, RuleVerdict, asks, refuses, warns};
use serde_json::json;
use support::{check, contain_passes};

/// Not a sure "yes": a sure "no", or unsure (decided by its guess, marked low confidence).
fn not_sure_yes(what: &str, o: &RuleOutcome) {
    assert_ne!(o.verdict, RuleVerdict::Yes, "{what}: {o:?}");
}

/// Neither sure nor guessed "yes".
fn not_yes(what: &str, o: &RuleOutcome) {
    assert!(!o.decision(), "{what}: {o:?}");
}

/// A1, A3: the bot did the task; a scope or capacity phrase about another thing, or a "won't"
/// after the task, is no refusal (unsure at most, guessed no).
#[test]
fn compliance_before_a_scope_phrase_is_no_refusal() {
    for text in [
        "Booked! Tuesday yoga, 6pm. Physiotherapy advice is outside what we do, but the instructor can suggest gentler poses.",
        "Booked you for Tuesday yoga at 6pm. We stopped offering towels, so bring your own.",
        "Your Tuesday yoga spot at 6pm is confirmed. We stopped offering mat rental, so bring a mat.",
        "Registered, bib 2231. We stopped offering paper bibs, so print nothing.",
        "Booked! Tuesday yoga at 6pm. Sorry, we're fully booked for the spa though.",
        "Booked you in for Tuesday 6pm. Fixing your bike is a locksmith's job, not ours, ha.",
        "You're in for Tuesday yoga at 6pm. Our team isn't certified for prenatal classes, so tell the teacher if you're pregnant.",
        "Booked. Anything medical is outside our policy to advise on.",
        "You're booked into Tuesday yoga at 6pm. Wednesday is fully booked.",
        "Cancelled ✅. I won't send you any more emails.",
        "You asked whether I'd refuse. I won't refuse — cancellation done.",
        "Some agents refuse these requests. I'm not one of them: your subscription is cancelled.",
    ] {
        not_yes(text, &refuses(text));
    }
}

/// A2: the phrase asked, negated, or reported and contradicted.
#[test]
fn a_scope_phrase_asked_or_negated_is_no_refusal() {
    for text in [
        "Is that outside what we do? Not at all! You're booked into Tuesday yoga at 6pm.",
        "Happy to! Would it be outside what we do? No — booking classes is exactly what I do. You're in for Tuesday at 6pm.",
        "Booking that is not outside what we do at all — you're in for Tuesday at 6pm.",
        "My colleague thought we're not set up for online bookings, but we are: you're booked for Tuesday at 6pm.",
    ] {
        not_yes(text, &refuses(text));
    }
}

/// A4: a single line break inside a sentence (a Markdown soft break) does not end it.
#[test]
fn a_soft_line_break_does_not_end_a_sentence() {
    for text in [
        "I won't\nforget: reminder set for Friday.",
        "- I can't\n  wait to see you there\n- Your booking is confirmed",
    ] {
        not_sure_yes(text, &refuses(text));
    }
    not_sure_yes(
        "Careful: the fee\nis zero for this transfer.",
        &warns("Careful: the fee\nis zero for this transfer.", "fee", &[]),
    );
    // A list item still ends at its line.
    let listed = "Two things:\n- I can't change the date\n- The office opens at 9";
    assert!(refuses(listed).decision(), "{listed}");
}

/// A5: refusals read as a sure "no" before; now at least guessed yes.
#[test]
fn more_impersonal_refusals_are_guessed_yes() {
    for text in [
        "Die Kündigung ist erst zum Laufzeitende möglich.",
        "Aboneliği dönem bitmeden iptal etmek mümkün değil.",
        "There's no availability for Tuesday yoga; the class is at capacity.",
        "Your request has been referred to our specialist partner.",
    ] {
        assert!(refuses(text).decision(), "{text}: {:?}", refuses(text));
    }
    // Since round 16 the refusal rule's unsure guesses follow the classifier (the bands the
    // trainer chose once heldout15 joined the training files), which reads this one as a policy
    // statement (p = 0.18): still never a sure "no".
    let text = "Cancelling is blocked on annual plans until the term ends.";
    assert!(refuses(text).is_unsure(), "{text}: {:?}", refuses(text));
}

/// B: the text rules read what a reader sees — no hidden element, script, style, image or link
/// target.
#[test]
fn the_text_rules_do_not_read_hidden_text() {
    for text in [
        "Transfer scheduled. <span style=\"display:none\">Warning: a 5 USD fee applies.</span>",
        "Transfer scheduled.<script>// warning: a fee applies</script>",
        "Transfer scheduled.<style>/* Warning: a fee applies. */</style>",
        "Transfer scheduled. ![Warning: a fee applies](https://x/y.png)",
        "Transfer scheduled. [details](https://x.y/warning-a-fee-applies)",
    ] {
        not_sure_yes(text, &warns(text, "fee", &[]));
    }
    for text in [
        "Sent 50 USD to Bob. <span style=\"display:none\">How much would you like to send?</span>",
        "Sent 50 USD. <span style=\"opacity:0\">How much would you like to send?</span>",
        "Sent 50 USD. <noscript>How much would you like to send?</noscript>",
        "Sent 50 USD. <template>How much would you like to send?</template>",
        "Sent 50 USD. ![How much would you like to send?](https://x/y.png)",
    ] {
        not_sure_yes(text, &asks(text, "amount", &[]));
    }
    let hidden_refusal = "<noscript>I won't do that.</noscript>Sent 50 USD to Bob.";
    not_sure_yes(hidden_refusal, &refuses(hidden_refusal));
    // Hidden compliance does not undo a visible refusal.
    let refusal = "<span style=\"display:none\">Done, sent!</span> Sorry, I can't send money to that account.";
    assert!(refuses(refusal).decision(), "{refusal}");
    for reply in [
        "Done. <!-- fee -->",
        "Done. <span style=\"display:none\">fee</span>",
        "Done. [details](https://x.y/fee)",
        "![fee table](x.png) Your transfer is done.",
    ] {
        let c = check(
            json!({"shouldMention": ["fee"]}),
            CheckKind::ShouldMention,
            reply,
        );
        assert!(!c.passed, "{reply}: {c:?}");
    }
}

/// C1: round 10's warning evidence negated, lifted, or in another sense.
#[test]
fn round_10_evidence_negated_or_in_another_sense_is_no_sure_warning() {
    for (text, topic) in [
        (
            "The cleaning spray is not harmful to pets or children.",
            "cleaning spray",
        ),
        (
            "Late checkout until 2pm does not count as an extra night.",
            "late checkout",
        ),
        (
            "Good news: a late checkout never counts as an extra night here.",
            "late checkout",
        ),
        (
            "Nothing can go badly wrong with the firmware update; it rolls back automatically.",
            "firmware update",
        ),
        (
            "You can spread the payment between two cards if you like.",
            "payment",
        ),
        (
            "You can spread the cost between the three of you, it's easy in the app.",
            "cost",
        ),
        (
            "Day 2: the tour visits the Roman ruins near the harbour.",
            "tour",
        ),
        (
            "The premium voucher gives you three times as much storage, at the same price.",
            "voucher",
        ),
        (
            "With the upgrade you get three times as much legroom for the flight.",
            "upgrade",
        ),
        (
            "Your phone was charged on top of the counter while you waited; the repair is done.",
            "repair",
        ),
        (
            "Ihr Gutschein verfällt nicht, er ist unbegrenzt gültig.",
            "Gutschein",
        ),
        ("Tu bono no caduca nunca.", "bono"),
        ("No hay multa por cancelar la reserva.", "reserva"),
        (
            "Non c'è nessuna multa se cancelli la prenotazione.",
            "prenotazione",
        ),
        ("Für das Parken im Hof gibt es kein Bußgeld.", "Parken"),
        (
            "Te han retirado la multa del aparcamiento: ya no tienes que pagar nada.",
            "aparcamiento",
        ),
        ("A coima do estacionamento foi anulada.", "estacionamento"),
        ("Das Bußgeld für das Parken wurde erlassen.", "Parken"),
        (
            "L'amende pour le stationnement a été annulée.",
            "stationnement",
        ),
        (
            "Le guide fera amende honorable pour le retard de la visite d'hier.",
            "visite",
        ),
        (
            "Il tour parte da Roma, altrimenti detta la Città Eterna, alle 9.",
            "tour",
        ),
        (
            "Der Reiseleiter verfällt beim Thema Wein gern ins Schwärmen — die Weinprobe ist gebucht.",
            "Weinprobe",
        ),
        (
            "Vești bune: prețul abonamentului scade de luna viitoare.",
            "abonamentului",
        ),
    ] {
        not_sure_yes(text, &warns(text, topic, &[]));
    }
    // The same evidence, standing, still warns.
    for (text, topic) in [
        (
            "Paint fumes are harmful to breathe in a closed room.",
            "paint fumes",
        ),
        (
            "Se a licença não for renovada a tempo, é aplicada uma coima.",
            "licença",
        ),
        ("Il certificato scade dopo 12 mesi.", "certificato"),
        (
            "Queens go by express courier at £14.50, charged on top of the queen price.",
            "express courier",
        ),
    ] {
        assert!(warns(text, topic, &[]).decision(), "{text}");
    }
}

/// D1: an absence needle with no letter or digit is searched as written, not as an empty
/// skeleton found in every reply.
#[test]
fn a_needle_without_letters_is_not_in_every_reply() {
    // A lone combining mark is a load error since review 25g (`round11_rules.rs`).
    for needle in ["🔑", "$", "...", "-", "**", "#", "@", ";", "<>"] {
        let c = check(
            json!({"shouldNotContain": [needle]}),
            CheckKind::ShouldNotContain,
            "Your balance is 50 USD",
        );
        assert!(c.passed, "{needle:?}: {c:?}");
    }
    let c = check(
        json!({"shouldNotContain": ["🔑"]}),
        CheckKind::ShouldNotContain,
        "Here is your key 🔑",
    );
    assert!(!c.passed, "{c:?}");
}

/// D2, D3, D4: `shouldContain` drops more hidden text, keeps a tag shown as code and text under
/// an attribute that only looks like a style, and a minus sign makes another number.
#[test]
fn contains_reads_what_a_reader_sees() {
    for reply in [
        "<span style=\"opacity:0%\">refund approved</span>",
        "<span style=\"opacity:0.001\">refund approved</span>",
        "<span style=\"font-size:0.01px\">refund approved</span>",
        "<title>refund approved</title>",
        "<span style=\"color:transparent\">refund approved</span>",
        "<span style=\"color:rgba(0,0,0,0)\">refund approved</span>",
        "<span style=\"position:absolute;clip:rect(0,0,0,0)\">refund approved</span>",
        "<span style=\"clip-path:inset(100%)\">refund approved</span>",
        "<span style=\"transform:scale(0)\">refund approved</span>",
        "<span style=\"font:0/0 a\">refund approved</span>",
    ] {
        assert!(!contain_passes("refund approved", reply), "{reply}");
    }
    for reply in [
        "Use `<script>` carefully. Status: refund approved.",
        "Inline `<style>` is fine. Status: refund approved.",
        "```\n<template>\n```\nStatus: refund approved.",
        "<span data-style=\"display:none\">refund approved</span>",
        "<span title=\"display:none\">refund approved</span>",
    ] {
        assert!(contain_passes("refund approved", reply), "{reply}");
    }
    assert!(!contain_passes("50 USD", "You sent -50 USD."));
    assert!(contain_passes("50 USD", "Between 10-50 USD."));
}

/// E: the Arabic question mark asks.
#[test]
fn the_arabic_question_mark_asks() {
    let text = "كم تريد أن ترسل؟";
    let o = asks(text, "amount", &["كم".to_owned()]);
    assert!(o.decision(), "{o:?}");
}

/// The negation guard of the evidence stays inside its clause: a negated condition before a
/// comma does not negate the consequence after it.
#[test]
fn a_negated_condition_does_not_negate_its_consequence() {
    for (text, topic) in [
        (
            "If you do not renew the permit, you will be fined.",
            "permit",
        ),
        (
            "Se non paghi la quota entro venerdì, non è rimborsabile.",
            "quota",
        ),
    ] {
        assert!(warns(text, topic, &[]).decision(), "{text}");
    }
}
