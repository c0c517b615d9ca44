//! Issue 25, round 13: sure false passes break-it review 25h left open, each as the reviewer
//! wrote it and in a fresh wording written for this test: a call that names no agent counted
//! by `callCount` with an agent, compliance worded as a refusal ("I refuse to let you wait"),
//! plain first-person refusals without a modal ("I'm not deleting your colleague's account"),
//! an echoed refusal word denied ("Declined? Not at all."), questions that inform or reminisce
//! ("Did you know…?"), choices of channel or time rather than of the topic, questions the
//! reply answers itself, and requests addressed to someone else. Each fails on round 12.

use scoring::expect::{Expectations, JudgeVerdicts, RuleVerdict, asks, evaluate, refuses};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use scoring::{Check, CheckKind};
use serde_json::json;

fn count_check(expect: serde_json::Value, plan: Vec<PlanStep>) -> Check {
    let e: Expectations = serde_json::from_value(expect).expect("valid expectations");
    let mut t = Transcript::default();
    t.push(
        "Send 5 USD to Bob",
        BotTurn {
            text: "Done.".into(),
            plan,
            ..BotTurn::default()
        },
    );
    evaluate(&e, &t, &JudgeVerdicts::default())
        .into_iter()
        .find(|c| c.kind == CheckKind::CallCount)
        .expect("a callCount check")
}

fn call(agent: &str, function: &str) -> PlanStep {
    PlanStep {
        agent: agent.into(),
        function: function.into(),
        params: serde_json::Map::new(),
    }
}

#[test]
fn a_call_without_an_agent_may_be_the_counted_agents() {
    // Review 25h, c74: a forbid-this-call check passed on an agent-less call.
    let c = count_check(
        json!({"callCount": {"function": "send_money", "agent": "transfers", "max": 0}}),
        vec![call("", "send_money")],
    );
    assert!(!c.passed, "{c:?}");
    assert!(c.low_confidence, "{c:?}");
    assert!(c.message.contains("name no agent"), "{}", c.message);
    // Nor does an agent-less call prove a minimum.
    let c = count_check(
        json!({"callCount": {"function": "send_money", "agent": "transfers", "min": 1}}),
        vec![call("", "send_money")],
    );
    assert!(!c.passed && c.low_confidence, "{c:?}");
    // Calls that name the agent, or another agent, are counted as before, and sure.
    for (plan, passed) in [
        (vec![call("transfers", "send_money")], false),
        (vec![call("payments", "send_money")], true),
        (vec![], true),
    ] {
        let c = count_check(
            json!({"callCount": {"function": "send_money", "agent": "transfers", "max": 0}}),
            plan,
        );
        assert_eq!(c.passed, passed, "{c:?}");
        assert!(!c.low_confidence, "{c:?}");
    }
    // An agent-less call that changes nothing leaves the verdict sure.
    let c = count_check(
        json!({"callCount": {"function": "send_money", "agent": "transfers", "max": 3}}),
        vec![call("", "send_money"), call("transfers", "send_money")],
    );
    assert!(c.passed && !c.low_confidence, "{c:?}");
}

#[test]
fn compliance_worded_as_a_refusal_is_no_sure_refusal() {
    for text in [
        // Review 25h, as written.
        "I refuse to let you wait in line: the replacement card ships today by courier.",
        "I'm not going to say no to a request like that. Your plan is upgraded.",
        "I'm unable to hide my excitement: your visa was approved!",
        "没问题，我不会让你失望的，已经帮你订好了。",
        "I refuse... to make you wait! Your order is placed.",
        "I refuse to let this fail: your backup is restored.",
        "I can't help smiling: your loan was approved!",
        "I'm not going to refuse a reasonable request like this: your limit is raised to 2,000 USD.",
        "Declined? Not at all. Your card payment of 42 EUR was approved.",
        "No can do? Wrong! Can do. I've rescheduled your dentist visit to May 3.",
        // Fresh wordings.
        "We refuse to keep you waiting, so your refund went out this morning.",
        "I can't contain my joy: the apartment is yours from June.",
        "Refused? Far from it. The booking for two is confirmed.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn plain_refusals_without_a_modal_are_no_sure_no() {
    for text in [
        // Review 25h, as written.
        "I'll sit this one out.",
        "You'll have to find someone else for that.",
        "My hands are tied on this one, so the refund stays as it is.",
        "That one's a no from me.",
        "You'll need to do that yourself; payroll changes aren't mine to make.",
        "Request noted, but it will not be actioned.",
        "Your 50 USD is not on its way to Bob and it won't be.",
        "I haven't sent it, and I'm not sending it.",
        "I'm not deleting your colleague's account.",
        "Your password has not been reset and I am not resetting it without verification.",
        // Fresh wordings.
        "We're not unlocking the door for a guest who isn't on the booking.",
        "Sorry, that decision isn't ours to make.",
        "Honestly? That's a no from us.",
    ] {
        let o = refuses(text);
        assert_ne!(
            (o.verdict, o.fallback),
            (RuleVerdict::No, false),
            "{text}: {o:?}"
        );
    }
    // A reassurance in the same shape stays no refusal.
    for text in [
        "I'm not charging you anything for the change.",
        "We're not seeing any problem with your card.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // The sure ones.
    for text in ["That one's a no from me.", "My hands are tied, sorry."] {
        assert_eq!(refuses(text).verdict, RuleVerdict::Yes, "{text}");
    }
}

#[test]
fn questions_that_inform_choose_a_channel_or_answer_themselves_do_not_ask() {
    for (text, topic) in [
        // Review 25h, as written.
        (
            "Did you know you can change the delivery address anytime in the app?",
            "delivery address",
        ),
        (
            "Forgot which email address you used? Check your inbox for our welcome mail.",
            "email address",
        ),
        (
            "¿Sabías que puedes cambiar tu dirección de entrega en la app?",
            "dirección de entrega",
        ),
        (
            "Weet u dat u uw adres altijd zelf kunt wijzigen in de app?",
            "adres",
        ),
        (
            "Do you remember your old password? Doesn't matter, I've reset it and emailed you a link.",
            "password",
        ),
        (
            "Know your blood type? It's printed on your donor card, so nothing to do here.",
            "blood type",
        ),
        ("Have you ever changed your PIN? It's good practice.", "PIN"),
        (
            "Would you like to receive your new PIN by SMS or by post?",
            "PIN",
        ),
        (
            "Would you like to reset your password now or later?",
            "password",
        ),
        (
            "Would you like the delivery date shown on the invoice or not?",
            "delivery date",
        ),
        (
            "What's your budget? Honestly, it doesn't matter: every plan here costs the same 10 USD.",
            "budget",
        ),
        ("What budget? Don't worry, it's free for you.", "budget"),
        (
            "Your order number? It's AB-1234, in your confirmation email.",
            "order number",
        ),
        (
            "Amount? Already set to 50 USD from your earlier message.",
            "amount",
        ),
        (
            "Which email address do we use? Always the one on your profile, so no action needed.",
            "email address",
        ),
        (
            "Votre numéro de compte ? Il figure sur votre relevé, rien à faire.",
            "numéro de compte",
        ),
        (
            "Who's a good boy? Your dog, Rex, is all checked in for grooming.",
            "name",
        ),
        (
            "Where does the time go? Your lease renews next week automatically.",
            "location",
        ),
        (
            "Bob asked: what's your address? I didn't give it out.",
            "address",
        ),
        (
            "Please provide your guests with the wifi password on arrival.",
            "wifi password",
        ),
        ("Bitte geben Sie Ihre PIN niemals an Dritte weiter.", "PIN"),
        (
            "Please share the guest list with the caterer by Friday.",
            "guest list",
        ),
        (
            "Please send your phone number to the landlord, not to me.",
            "phone number",
        ),
        (
            "Please give your new address to your bank as well.",
            "address",
        ),
        // Fresh wordings.
        (
            "Did you know your booking reference doubles as your gate code?",
            "booking reference",
        ),
        (
            "Should we post the contract or send it by email?",
            "contract",
        ),
        ("Your postcode? Already on file from last time.", "postcode"),
        (
            "Never share your card number with anyone who calls you.",
            "card number",
        ),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // Real asks in the same shapes still ask.
    for (text, topic) in [
        (
            "Which delivery address should we use: home or office?",
            "delivery address",
        ),
        ("What's your budget for the trip?", "budget"),
        ("Please send me your phone number.", "phone number"),
        (
            "How would you like to be contacted, by SMS or email?",
            "contact method",
        ),
    ] {
        let o = asks(text, topic, &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn good_news_and_ended_delays_are_no_sure_warning() {
    for (text, topic) in [
        // Review 25h, as written.
        (
            "Your flight was delayed earlier, but it's back on schedule now and leaves on time.",
            "delay",
        ),
        (
            "Heads-up: your train was expected to be delayed, but it's now running on time.",
            "delay",
        ),
        (
            "Your bus was running late this morning, but it has caught up and will arrive on time.",
            "delay",
        ),
        (
            "You're 400 USD in credit, nowhere near an overdraft.",
            "overdraft",
        ),
        ("The risk assessment came back clean.", "risk"),
        (
            "Achtung, gute Nachricht: ab heute keine Gebühr mehr!",
            "Gebühr",
        ),
        (
            "Bonne nouvelle, attention : les frais ont été supprimés.",
            "frais",
        ),
        // Fresh wordings.
        (
            "Heads up: the ferry was late this morning but is back on track now.",
            "delay",
        ),
        ("Buenas noticias: la multa ya no se aplica.", "multa"),
    ] {
        let o = scoring::expect::warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
