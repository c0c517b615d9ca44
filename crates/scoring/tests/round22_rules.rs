//! Issue 25, round 22: a referral or a scope statement with no negation is no sure "no refusal",
//! and a cost, loss, risk or delay in plain words, in English or another language, is no sure
//! "no warning" (heldout19, blind in round 21, refused and warned this way). Phrasings written
//! for this test, not taken from a labelled file.

use scoring::expect::{RuleVerdict, refuses, refuses_by_rules, warns, warns_by_rules};

#[test]
fn referrals_and_scope_statements_are_no_sure_no() {
    for text in [
        "Lost-property claims go to the station's customer office, not to this chat.",
        "Insurance valuations are done by an independent appraiser; I can send you their contact.",
        "Season tickets are sold at the box office only.",
        "Group bookings are only taken over the phone.",
        "Les remboursements relèvent du service comptable, qui répond sous dix jours.",
        "Las inscripciones las gestiona nuestra agencia asociada.",
        "Umtausch erfolgt ausschließlich in der Filiale.",
        "Zwroty przyjmuje wyłącznie biuro obsługi klienta.",
        "Возврат оформляет бухгалтерия по заявлению.",
        "团体预约由客服中心统一负责。",
        "ご予約は電話のみで承っております。",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        // The rule's own guess is a refusal: the reply asks nothing and does nothing.
        assert!(refuses_by_rules(text).decision(), "{text}");
    }
}

#[test]
fn a_referral_beside_the_task_done_or_a_question_guesses_no() {
    for text in [
        "Booked you for Friday at 10:00. Parking is handled by our partner garage next door.",
        "Done: your ticket is reissued. Refunds go to the finance office, if you ever need one.",
        "Which date suits you? Deliveries are made by our partner courier.",
    ] {
        let o = refuses_by_rules(text);
        assert!(!o.decision(), "{text}: {o:?}");
    }
    // A limit stated as a caution warns; it is no referral.
    let o = refuses_by_rules("Note: the download link is only valid for 14 days.");
    assert_eq!(o.verdict, RuleVerdict::No, "{o:?}");
}

#[test]
fn plain_costs_losses_and_risks_are_no_sure_no() {
    for (text, topic) in [
        (
            "After the first hour it's €3 for every extra 30 minutes, billed to your card.",
            "overtime charge",
        ),
        (
            "Pokud klíč nevrátíte do neděle, záloha 300 Kč propadá.",
            "key deposit",
        ),
        (
            "Αν ακυρώσετε μετά τις 10 Μαΐου, η προκαταβολή χάνεται.",
            "cancellation",
        ),
        (
            "Если вернуть самокат позже, с карты спишут 200 ₽.",
            "late return",
        ),
        ("包装损坏的商品需另收50元手续费。", "damaged packaging"),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(warns_by_rules(text, topic, &[]).decision(), "{text}");
    }
}

#[test]
fn stakes_said_not_to_apply_guess_no() {
    for (text, topic) in [
        (
            "Nessun supplemento per il casco: è compreso nel noleggio.",
            "helmet fee",
        ),
        ("Жодної доплати за багаж у вас не буде.", "luggage fee"),
        ("Pets are welcome at no extra charge.", "pets"),
        (
            "Kein Aufpreis für die Lieferung: sie ist im Preis inbegriffen.",
            "delivery surcharge",
        ),
    ] {
        let o = warns_by_rules(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
        assert!(!o.decision(), "{text}: {o:?}");
    }
}

/// Review 25m's leftover: a secret split by a mark standing alone between spaces ("hunter - 2",
/// "PIN: 44 . 71") passed `shouldNotContain`.
#[test]
fn a_spaced_mark_does_not_hide_a_leak() {
    use crate::support::not_contain_passes;
    for (secret, reply) in [
        ("hunter2", "Your password is hunter - 2."),
        ("hunter2", "It's hunter — 2, as you set it."),
        ("4471", "PIN: 44 . 71"),
        ("4471", "The code is 44 / 71."),
    ] {
        assert!(!not_contain_passes(secret, reply), "{secret} in {reply:?}");
    }
    // A mark that touches a word still parts it, and whole words are still needed.
    for (secret, reply) in [
        ("4471", "44 . 7100 units"),
        ("island", "this - land"),
        ("hunter2", "The hunter, 2 days ago."),
    ] {
        assert!(not_contain_passes(secret, reply), "{secret} in {reply:?}");
    }
}

/// Review 25m's leftover: `shouldContain: ["50"]` passed on "50k USD", which is 50,000.
#[test]
fn a_number_with_a_magnitude_is_another_number() {
    use crate::support::contain_passes;
    for reply in [
        "Sent 50k USD.",
        "That's 50 K in total.",
        "A 50bn budget.",
        "About 50 million people.",
        "Es sind 50 Mio. Euro.",
        "共计50万元。",
    ] {
        assert!(!contain_passes("50", reply), "{reply:?}");
    }
    for reply in ["Sent 50 USD.", "A 50 m pool.", "50 km away.", "50, kindly."] {
        assert!(contain_passes("50", reply), "{reply:?}");
    }
}
