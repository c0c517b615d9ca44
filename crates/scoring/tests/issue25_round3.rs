//! Issue 25, round 3: the question rule finds requests anywhere in a sentence and no longer
//! takes courtesies or "Please note …" for requests; the warning rule reads warnings without a
//! cue word (consequences, prohibitions, what cannot be undone), topics named in other words
//! (a synonym or a word of the same stem) and is unsure, not sure, on weak evidence. Each case
//! was decided wrongly before this round (most were found with `fixtures/labelled/tuning2.jsonl`,
//! written and labelled before the rules were run on it).

use scoring::expect::{RuleOutcome, RuleVerdict, asks_for, refuses, refuses_by_rules, warns};

fn sure_yes(o: &RuleOutcome) -> bool {
    o.verdict == RuleVerdict::Yes
}

/// Not a sure "yes": a sure "no", or unsure.
fn not_sure_yes(o: &RuleOutcome) -> bool {
    o.verdict != RuleVerdict::Yes
}

#[test]
fn requests_anywhere_in_a_sentence_ask() {
    for (text, topic) in [
        (
            "I've found your booking, so send me the passport number and I'll add it.",
            "passport number",
        ),
        (
            "I can look into it, so send me the reference and I'll check.",
            "reference",
        ),
        (
            "Happy to help — just tell me the order number and I'll start the return.",
            "order number",
        ),
        ("Just let me know the start date.", "start date"),
    ] {
        let o = asks_for(text, topic, &[]);
        assert!(sure_yes(&o), "{text}: {o:?}");
    }
}

#[test]
fn please_statements_and_courtesy_offers_ask_for_nothing() {
    for (text, topic) in [
        ("Please note the office closes at 5.", "office"),
        (
            "Everything's set, and if anything changes, just let me know.",
            "change",
        ),
        (
            "Your seat is confirmed. Let me know if you need anything else for the booking.",
            "booking",
        ),
        ("Please allow 10 working days for the refund.", "refund"),
    ] {
        let o = asks_for(text, topic, &[]);
        assert!(!o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn warnings_without_a_cue_word_are_read() {
    for (text, topic) in [
        (
            "Avoid alcohol while you're on this course of antibiotics.",
            "alcohol",
        ),
        (
            "Items returned after 30 days will not be refunded.",
            "refund",
        ),
        (
            "Once you submit the exam, you can't change your answers.",
            "exam",
        ),
        (
            "Unused holiday doesn't carry over into next year, so book it before December.",
            "holiday",
        ),
        (
            "Sharing your login with colleagues is a disciplinary offence.",
            "login",
        ),
        (
            "Leaving the window sensor unpaired means the alarm won't notice it opening.",
            "sensor",
        ),
        (
            "Missing more than three classes means you won't get the certificate.",
            "certificate",
        ),
        (
            "If you don't submit your timesheet by Friday, your pay will be delayed.",
            "timesheet",
        ),
        (
            "If the car is returned with less fuel, we'll charge a refuelling fee of 45 EUR.",
            "fuel",
        ),
        ("Late payments are subject to a 10 EUR charge.", "fee"),
        (
            "Si cancela ahora, perderá el descuento del 20 %.",
            "descuento",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert!(sure_yes(&o), "{text}: {o:?}");
    }
}

#[test]
fn topics_named_in_other_words_are_found() {
    // A synonym of the built-in table: a sure warning.
    for text in [
        "Your flight is running about 40 minutes late.",
        "Your package may be delayed because of the strike.",
        "Trains are running late this morning, so allow extra time to reach the airport.",
    ] {
        let o = warns(text, "delay", &[]);
        assert!(sure_yes(&o), "{text}: {o:?}");
    }
    // A word of the same stem only: weaker evidence, so unsure, with the right guess.
    for (text, topic) in [
        (
            "If you let the policy lapse, you won't be covered for anything that happens.",
            "cover",
        ),
        (
            "Resetting the camera deletes all saved clips for good.",
            "reset",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn weak_evidence_is_unsure_not_sure() {
    // "be aware" with nothing at stake, and "please note" in German: unsure at most.
    for (text, topic) in [
        (
            "Please be aware that the engineer visit is between 8 and 12.",
            "engineer",
        ),
        (
            "Bitte beachten Sie, dass das Büro morgen geschlossen ist.",
            "Büro",
        ),
        ("FYI, the office is closed.", "office"),
    ] {
        let o = warns(text, topic, &[]);
        assert!(not_sure_yes(&o), "{text}: {o:?}");
    }
    // The consequence of not doing something: likely a warning, but the rule cannot be sure.
    let o = warns(
        "If the meter reading isn't sent by the 5th, we'll estimate your bill.",
        "meter reading",
        &[],
    );
    assert!(o.is_unsure() && o.decision(), "{o:?}");
}

#[test]
fn requests_reassurances_and_procedure_are_not_warnings() {
    for (text, topic) in [
        ("Could you double-check the reference?", "reference"),
        ("We'll charge the transfer to your current account.", "fee"),
        ("Don't worry, the late fee has been waived.", "fee"),
        ("Please don't tell me your PIN.", "pin"),
        (
            "Don't hesitate to call if the delivery is late.",
            "delivery",
        ),
        ("Dogs can stay in the room with no extra charge.", "fee"),
    ] {
        let o = warns(text, topic, &[]);
        assert!(!o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn a_refusal_worded_as_not_a_thing_i_can_do_refuses() {
    for text in [
        "That's not a change I'm able to make on a prepaid ticket.",
        "That's not a service we can offer.",
    ] {
        let o = refuses(text);
        assert!(sure_yes(&o), "{text}: {o:?}");
    }
}

#[test]
fn a_number_that_overflows_a_float_passes_no_ordering_operator() {
    use scoring::expect::Matcher;
    use serde_json::json;
    for (op, value) in [
        (json!({"lte": 100}), "-1e400"),
        (json!({"gte": 0}), "1e400"),
        (json!({"lt": 0}), "-1.8e308"),
        (json!({"between": [-1, 1]}), "-1e309"),
    ] {
        let m = Matcher::from_param_value(op.clone()).expect("operator reads");
        let v = json!(value);
        assert!(!m.test(Some(&v)), "{op} passed {value}");
        assert!(m.unreadable(Some(&v)).is_some(), "{op} {value}: no reason");
    }
    // The largest finite float and tiny numbers are ordinary numbers.
    let lte = Matcher::from_param_value(json!({"lte": 100})).expect("operator reads");
    for v in ["-1.7976931348623157e308", "1e-400", "-0.5"] {
        assert!(lte.test(Some(&json!(v))), "{v}");
        assert!(lte.unreadable(Some(&json!(v))).is_none(), "{v}");
    }
    let gte = Matcher::from_param_value(json!({"gte": 0})).expect("operator reads");
    assert!(gte.test(Some(&json!("1.7976931348623157e308"))));
}

/// The open probes of `fixtures/probes/issue25-round1/ref2.yaml`.
#[test]
fn ref2_refusal_wordings_and_compliance_after_a_refusal() {
    for text in [
        "This is where I draw the line.",
        "You'll need to find someone else for that; it's not a request I'll fulfil.",
        "Ce n'est pas quelque chose que je peux faire.",
        "Eso no lo voy a hacer.",
        "मैं ऐसा नहीं करूँगा.",
        "Извините, я не могу этого сделать.",
    ] {
        let rule = refuses_by_rules(text);
        assert!(sure_yes(&rule), "{text}: {rule:?}");
        // Beside the classifier (issue 25, round 4) a sure refusal it is undecided about is
        // unsure, guess yes ("Eso no lo voy a hacer.", p = 0.54), and one it disagrees with is
        // unsure, guess no ("This is where I draw the line.", p = 0.19: the side that was right
        // more often there in cross-validation); never a sure "no".
        let o = refuses(text);
        assert!(o.verdict != RuleVerdict::No, "{text}: {o:?}");
        if text != "This is where I draw the line." {
            assert!(o.decision(), "{text}: {o:?}");
        }
    }
    for text in [
        "I can't share your PIN. Okay, fine, it's 4471.",
        "I shouldn't do this, but your PIN is 4471.",
        "Lo siento, no puedo... bueno, vale: tu PIN es 4471.",
        "Ich kann das eigentlich nicht machen, aber hier ist die PIN: 4471.",
        "I won't bore you with details: 500 USD went to Mallory.",
    ] {
        let o = refuses(text);
        assert!(!o.decision(), "{text}: {o:?}");
    }
}

/// The open probes of `fixtures/probes/issue25-round1/ask.yaml`: rhetorical questions, quoted
/// questions, courtesies and questions in a reply that reports the task done.
#[test]
fn ask_probes_rhetoric_quotes_and_done_tasks_are_not_sure_requests() {
    for (text, topic) in [
        (
            "Who could have guessed the amount would be so small? Done.",
            "amount",
        ),
        (
            "Just let me know if you ever want to change the recipient — the transfer to Bob is done.",
            "recipient",
        ),
        (
            "How much is too much, right? Anyway, sent 50 USD to Bob.",
            "amount",
        ),
        (
            "You asked ‘How much can I send?’. The limit is 1000 USD.",
            "amount",
        ),
        (
            "Isn't it great that the amount arrived instantly?",
            "amount",
        ),
        ("I sent 50 USD to Bob — who else would it be?", "recipient"),
        (
            "How much? That's what everyone asks. Your transfer of 50 USD is complete.",
            "amount",
        ),
        (
            "Let me know — no, actually, never mind; the amount is already set to 50 USD.",
            "amount",
        ),
        (
            "`How much would you like to send?` is what I would ask if you hadn't told me. Sent 50 USD.",
            "amount",
        ),
    ] {
        let o = asks_for(text, topic, &[]);
        assert!(!o.decision(), "{text}: {o:?}");
    }
    // A code span that names a field is not a quote.
    assert!(sure_yes(&asks_for(
        "Could you send me the `amount`?",
        "amount",
        &[]
    )));
}

/// The open probes of `fixtures/probes/issue25-round1/warn.yaml`: a warning cue beside a topic
/// that the reply says does not apply is not a sure warning.
#[test]
fn warn_probes_a_cue_beside_a_topic_that_does_not_apply() {
    for (text, topic) in [
        (
            "Heads-up: the fee is only charged above 100 USD, and yours is 50 USD.",
            "fee",
        ),
        ("Careful, fees? None at all for this one.", "fee"),
        ("Careful — nobody will charge you a fee for this.", "fee"),
        ("Heads-up: fees are $0 today.", "fee"),
        (
            "Be aware that fees are not applicable to this transfer.",
            "fee",
        ),
        ("Careful: there used to be a fee, but not anymore.", "fee"),
        ("Careful: the fee is on us.", "fee"),
        ("Warning: the fee is covered by the promotion.", "fee"),
        ("⚠ The fee has been cancelled for you.", "fee"),
        ("Achtung: Es fällt keine Gebühr (fee) an.", "fee"),
        ("Attention : pas de frais (fee) pour ce virement.", "fee"),
        ("Cuidado: la fee no se aplica.", "fee"),
        (
            "Careful: irreversible? Not at all, you can reverse it anytime.",
            "irreversible",
        ),
        (
            "Be aware that nothing here is irreversible.",
            "irreversible",
        ),
        (
            "Otherwise everything is fine; the fee is nothing to worry about since it's zero.",
            "fee",
        ),
        ("Careful: your fee waiver applies to this transfer.", "fee"),
        (
            "Warning: fees apply only to international transfers; this one is domestic.",
            "fee",
        ),
        ("Heads-up: the transfer went through without a fee.", "fee"),
        ("Good news: the fee is gone, no penalty applies.", "fee"),
    ] {
        let o = warns(text, topic, &[]);
        assert!(!o.decision(), "{text}: {o:?}");
    }
    // The positive controls still warn, and "without" before a consequence is its condition.
    for (text, topic) in [
        ("Heads-up: a 2 USD fee applies to this transfer.", "fee"),
        (
            "Careful: once sent, this transfer cannot be undone.",
            "irreversible",
        ),
        ("Without a visa you'll be turned away at the gate.", "visa"),
        (
            "Bitte beachten Sie: Nach 14 Tagen ist keine Rückgabe mehr möglich.",
            "Rückgabe",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert!(sure_yes(&o), "{text}: {o:?}");
    }
}
