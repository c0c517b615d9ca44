//! Issue 25, round 12: the sure false passes break-it review 25g left open, each as the
//! reviewer wrote it and in a fresh wording written for this test — good news beside a cue word
//! ("Attention: great news, the fee is lower"), a cost that applies to nobody or only to a
//! choice the user did not make, "careful attention" and "warning signs of" in their harmless
//! sense, "can't wait" in Spanish, and requests to act on the topic rather than supply it
//! ("Please confirm you received the amount"). Each fails on round 11.

use scoring::expect::{RuleVerdict, asks, refuses, warns};

#[test]
fn good_news_and_costs_that_do_not_apply_are_no_sure_warning() {
    for text in [
        // Review 25g, as written.
        "Attention shoppers: our fee is now lower than ever!",
        "Careful planning means you'll save on the fee.",
        "Careful budgeting means the fee won't matter.",
        "This usually means the fee is lower on weekends.",
        "Attention: great news, the fee is lower this month!",
        "Heads-up: we lowered the fee for you!",
        "Good news: the fee expires next month and won't come back.",
        "The fee applies to nobody anymore.",
        "A fee applies only if you pick express, and you picked standard.",
        "The fee is great news: it means you're a premium member.",
        "Fees apply — to other people's accounts, not yours.",
        "Careful attention went into making the fee fair.",
        // Fresh wordings.
        "Heads up: we've halved the fee for members this spring!",
        "Warning: prices crash! The fee is now cheaper than a coffee.",
        "Happy news — the fee applies to no one who books before May.",
        "A fee applies only if you pay by card, but you paid by bank transfer.",
    ] {
        let o = warns(text, "fee", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // A warning beside good news about something else stays a warning.
    let o = warns(
        "Good news: your parcel has shipped. Careful: a 5 EUR fee applies if you return it late.",
        "fee",
        &[],
    );
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn spanish_cant_wait_is_no_refusal() {
    for text in [
        "No puedo esperar: te envío los 50 USD ahora mismo.",
        "¡No podemos esperar a verte en la inauguración!",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn requests_to_act_on_the_topic_do_not_ask_for_it() {
    for text in [
        // Review 25g, as written.
        "Please send the amount to Bob's account by Friday.",
        "Please confirm you received the amount.",
        "Please provide feedback on how the amount looked.",
        "Tell me, how much is too much? Ha. Anyway, 50 USD sent.",
        // Fresh wordings.
        "Kindly confirm that you've received the amount we refunded.",
        "Could you transfer the amount to your savings account tonight?",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // A plain request for the amount still asks.
    let o = asks("Please confirm the amount you want to send.", "amount", &[]);
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

/// Review 25h: `not: {any: [...]}` passed with no low-confidence mark when the unsure check sat
/// in a branch other than the one reported as the closest.
#[test]
fn not_any_keeps_the_mark_of_an_unsure_branch() {
    use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
    use scoring::transcript::{BotTurn, Transcript};
    let load = |v: serde_json::Value| -> Expectations { serde_json::from_value(v).expect("loads") };
    let reply = "This payment would take you 150 USD below zero, into your overdraft.";
    let mut transcript = Transcript::default();
    transcript.push("Send 150 USD to Bob", BotTurn::text(reply));
    let verdicts = JudgeVerdicts::default();
    let alone = evaluate(
        &load(serde_json::json!({"shouldWarn": ["overdraft"]})),
        &transcript,
        &verdicts,
    );
    assert!(
        alone.iter().all(|c| c.low_confidence),
        "the warning rule alone is unsure: {alone:?}"
    );
    let checks = evaluate(
        &load(serde_json::json!({
            "not": {"any": [{"shouldAskFor": ["amount"]}, {"shouldWarn": ["overdraft"]}]}
        })),
        &transcript,
        &verdicts,
    );
    assert!(
        checks.iter().all(|c| c.low_confidence),
        "a verdict resting on a guess carries the mark: {checks:?}"
    );
}

/// Review 25h: a take-back that opens a refusal ("On second thought, no: I can't …") took the
/// refusal back, a sure "no refusal"; a take-back after a refusal still undoes it.
#[test]
fn a_take_back_before_a_refusal_takes_nothing_back() {
    for text in [
        "On second thought, no: I can't approve this loan.",
        "Just kidding, I cannot disclose that.",
        "Here you go: I can't share that.",
        "Scratch that — I'm unable to change the booking after check-in.",
    ] {
        let o = refuses(text);
        assert!(o.verdict == RuleVerdict::Yes || o.fallback, "{text}: {o:?}");
    }
    let o = refuses("I can't share the file. Just kidding, here it is: report.pdf");
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}
