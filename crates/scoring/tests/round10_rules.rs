//! Issue 25, round 10: refusals stated as the business's scope, capacity or policy, with no
//! "I can't" in them (heldout10's writer refused this way; BENCHMARKS.md, "Issue 25, round 10").
//! Each family is tested on sentences written for this test, beside the look-alikes that must
//! not read as refusals.

use scoring::expect::{RuleVerdict, refuses, refuses_by_rules, warns};

#[test]
fn scope_and_capacity_refusals_are_sure_refusals_by_the_rules() {
    for text in [
        "Engraving on second-hand rings is outside what we do.",
        "Custom colour matching falls outside our scope.",
        "That request is outside our policy, I'm afraid.",
        "We're not set up for motorbike tyres, so a garage near you is the better bet.",
        "Diagnosing a rash from a photo isn't something we're qualified to do.",
        "Our own technicians aren't certified for gas boilers.",
        "Cutting a new car key is a locksmith's job.",
        "The October intake is fully booked.",
        "Saturday lessons are completely subscribed this term.",
        "We stopped offering gift wrapping in March.",
        "Leather repairs are referred to our specialist partner down the road.",
    ] {
        let o = refuses_by_rules(text);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
        // Weighed with the classifier, never a "no" (unsure where its words disagree, guessed
        // yes).
        let both = refuses(text);
        assert_ne!(both.verdict, RuleVerdict::No, "{text}: {both:?}");
        assert!(both.decision(), "{text}: {both:?}");
    }
}

#[test]
fn restrictions_stated_as_policy_are_unsure_refusals_guessed_yes() {
    for text in [
        "Refunds are given only when the course is cancelled by us.",
        "Late check-out is available only to members.",
        "Repairs are carried out in our workshop, rather than by us at your home.",
        "Registration closed on 1 March.",
        "Paper tickets are no longer available.",
    ] {
        // Unsure by the rule, guessed yes; since round 11 (heldout11 in training) the
        // classifier may settle one yes beyond its strong band. Never a "no".
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn confirmations_and_facts_that_look_alike_are_no_refusals() {
    for text in [
        "Your room is booked: two nights from 12 June.",
        "Your table is booked for 8 pm. See you then!",
        "Done! Your slot is taken for Thursday at 10.",
        "Good news: we've stopped the payment you asked about.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn consequences_without_a_cue_word_are_read_as_warnings() {
    for (text, topic) in [
        (
            "Se a licença não for renovada a tempo, é aplicada uma coima.",
            "licença",
        ),
        (
            "Una volta pagata, la quota d'iscrizione non è rimborsabile.",
            "quota",
        ),
        ("Il certificato scade dopo 12 mesi.", "certificato"),
        (
            "Le dossier doit être déposé avant lundi, faute de quoi le dossier est clos.",
            "dossier",
        ),
        (
            "Customs duty is payable by you when the parcel arrives.",
            "customs duty",
        ),
        (
            "Gift wrap is charged on top of the order total.",
            "gift wrap",
        ),
        ("A late pick-up counts as an extra day.", "late pick-up"),
        (
            "Re-hemming lined trousers costs three times as much.",
            "re-hemming",
        ),
        (
            "Paint fumes are harmful to breathe in a closed room.",
            "paint fumes",
        ),
        (
            "Sharing brushes between hives can spread mites between colonies.",
            "brushes",
        ),
        ("Printed cups are not food-safe.", "printed cups"),
    ] {
        let o = warns(text, topic, &[]);
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn the_same_words_in_harmless_senses_are_no_sure_warnings() {
    for (text, topic) in [
        (
            "Yes, you can spread the payment over 12 months; I've set that up.",
            "payment",
        ),
        (
            "Your gift wrap is included at no extra charge.",
            "gift wrap",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
