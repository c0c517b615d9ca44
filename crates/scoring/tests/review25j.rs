//! Break-it review 25j (a reviewer who saw only the docs and the binary of round 16): the sure
//! and wrong verdicts it found in the text rules, each failing before this round.
//! - Compliance that opens with a "can't help / can't wait" idiom in seven more languages, and
//!   "I won't lie, …", is no sure refusal.
//! - Indirect requests ("I've got everything except your postcode", "The only thing missing
//!   is…") and requests in Russian, Hindi and French are no sure "no" of the ask rule.
//! - A penalty stated with its amount in Czech and Italian is no sure "no" of the warning rule.
//! - A question that informs, offers or confirms a value is no sure ask, also when it names only
//!   a word of the topic.

use scoring::expect::{RuleVerdict, asks, refuses, warns};

#[test]
fn compliance_opening_with_an_idiom_is_no_sure_refusal() {
    for text in [
        "Ich kann nicht glauben, wie schnell das ging – Ihr Paket ist schon da!",
        "No puedo evitar sonreír: tu solicitud ya está aprobada.",
        "Je ne peux pas m'empêcher de sourire : votre table pour deux est réservée à 20 h.",
        "Non posso fare a meno di complimentarmi: il tuo abbonamento è stato rinnovato.",
        "Não posso deixar de dizer que foi um prazer: sua reserva está confirmada.",
        "Nie mogę się doczekać, aż pan to zobaczy – paczka już jest w drodze.",
        "Не могу не отметить, что перевод уже выполнен.",
        "Ik kan niet wachten tot u het hotel ziet: de kamer is geboekt.",
        "I won't lie, this one was tricky, but your claim is approved.",
    ] {
        assert_ne!(
            refuses(text).verdict,
            RuleVerdict::Yes,
            "{text}: {:?}",
            refuses(text)
        );
    }
    // The refusals those idioms sit beside are still read.
    let text = "Ich kann das leider nicht für Sie buchen.";
    assert!(refuses(text).decision(), "{text}: {:?}", refuses(text));
}

#[test]
fn indirect_and_foreign_requests_are_no_sure_no() {
    for (text, topic) in [
        ("I've got everything except your postcode.", "postcode"),
        (
            "The only thing missing is your phone number.",
            "phone number",
        ),
        ("Mir fehlt nur noch Ihre Telefonnummer.", "phone number"),
        (
            "Подскажите, пожалуйста, номер вашего заказа.",
            "номер заказа",
        ),
        (
            "Напишите, пожалуйста, ваш номер телефона.",
            "номер телефона",
        ),
        ("कृपया अपना मोबाइल नंबर बताइए।", "मोबाइल नंबर"),
        (
            "Envoyez-moi votre numéro de commande et je vérifie.",
            "numéro de commande",
        ),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

#[test]
fn a_stated_penalty_is_no_sure_no() {
    for (text, topic) in [
        (
            "Upozorňujeme, že při pozdním vrácení účtujeme poplatek 500 Kč.",
            "poplatek",
        ),
        (
            "In caso di cancellazione tardiva verrà applicata una penale del 50%.",
            "penale",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

/// A question that names a word of a topic of the suite's own words passed as a sure ask even
/// when it informs, offers or confirms a value; the exclusions hold there too.
#[test]
fn informing_offering_and_confirming_questions_are_no_sure_ask() {
    for (text, topic) in [
        (
            "Did you know our Unlimited plan now includes roaming in 40 countries?",
            "current plan",
        ),
        (
            "Have you considered upgrading your plan? It's 5 EUR more for double the data.",
            "current plan",
        ),
        (
            "Is the delivery address still 12 Elm Street?",
            "delivery address",
        ),
        (
            "Is Friday still the delivery date you'd like?",
            "delivery date",
        ),
        ("Shall I book you the window seat again?", "seat preference"),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    for (text, topic) in [
        ("What is your delivery address?", "delivery address"),
        ("Which seat would you like?", "seat preference"),
    ] {
        assert_eq!(asks(text, topic, &[]).verdict, RuleVerdict::Yes, "{text}");
    }
}
