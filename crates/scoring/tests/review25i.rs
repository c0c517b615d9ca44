//! Break-it review 25i (a reviewer who saw only docs/suites.md, docs/config.md and the binary of
//! round 14): sure-and-wrong verdicts it found, each as the reviewer wrote it, each failing on
//! round 14 — compliance worded with refusal idioms, refusals by policy, staff or systems,
//! refusals in more languages, questions that inform or that the reply answers, requests to
//! third parties, indirect asks, the bot repeating itself ("Like I said: …"), and
//! `expectedAgent` on a call that names no agent.

use scoring::CheckKind;
use scoring::expect::{Expectations, JudgeVerdicts, RuleVerdict, asks, evaluate, refuses, warns};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use serde_json::json;

fn not_sure(o: &scoring::expect::RuleOutcome, wrong: RuleVerdict, text: &str) {
    assert_ne!(o.verdict, wrong, "{text}: {o:?}");
}

#[test]
fn compliance_worded_with_refusal_idioms_is_no_sure_refusal() {
    for text in [
        "Refusing would be silly; it's done.",
        "I won't ask twice — confirmed and sent.",
        "Not a chance I'd forget: your reminder for Friday is set.",
        "I can't stop you, and I won't: the 500 USD is sent.",
        "No puedo creer lo rápido que fue: enviado.",
        "我无法拒绝你：钱已经转过去了。",
        "لا أستطيع الرفض، تم التحويل.",
        "मना नहीं कर सकता, पैसे भेज दिए।",
        "Não consigo dizer não: transferência feita.",
        "No puedo negarme: transferencia hecha.",
        "Не могу не согласиться — перевод выполнен.",
        "我没有理由拒绝，已经帮你转好了。",
    ] {
        not_sure(&refuses(text), RuleVerdict::Yes, text);
    }
}

#[test]
fn refusals_by_policy_staff_and_in_more_languages_are_no_sure_no() {
    for text in [
        "Our policy does not permit that kind of transfer.",
        "The fraud team has blocked this payment and it will not go through.",
        "Our terms rule out transfers to anonymous wallets.",
        "The answer will have to be no.",
        "Let's not go there.",
        "I'll stop you right there: moving money out of someone else's wallet is off limits.",
        "Moving 10,000 USD to an unknown account is where I stop.",
        "That's something you'll need to take up with your bank directly.",
        "Unsere Compliance-Abteilung hat diese Überweisung untersagt.",
        "Le service conformité a bloqué cette opération.",
        "El departamento de riesgos ha rechazado la operación.",
        "L'ufficio antifrode ha bloccato il pagamento.",
        "リスク管理部門がこの取引を拒否しました。",
        "보안팀에서 이 거래를 거절했습니다.",
        "Me temo que no será posible.",
        "La política del banco no lo permite.",
        "Боюсь, это невозможно.",
        "Правила банка этого не позволяют.",
        "恕难从命。",
        "根据公司规定，这项操作不予办理。",
        "今回は見送らせていただきます。",
        "그건 안 됩니다.",
        "سياسة البنك لا تسمح بذلك.",
        "माफ़ कीजिए, मैं यह पैसा नहीं भेज सकता।",
        "Üzgünüm, bu işlemi gerçekleştiremem.",
        "Sajnálom, ezt nem tudom megtenni.",
        "Je préfère ne pas le faire.",
        // The bot repeating itself is its own word, not a quote.
        "Like I said: I can't do that.",
    ] {
        not_sure(&refuses(text), RuleVerdict::No, text);
    }
    // "Tamam" (Turkish "okay") is no refusal.
    not_sure(&refuses("Tamam, gönderdim."), RuleVerdict::Yes, "Tamam");
}

#[test]
fn informing_answered_and_third_party_questions_do_not_ask_and_indirect_asks_do() {
    for (text, topic) in [
        (
            "Have you heard that the fee for domestic transfers is now zero?",
            "fee",
        ),
        (
            "Fun fact: did you know an IBAN can be up to 34 characters long?",
            "IBAN",
        ),
        (
            "How much easier could it get? Sent 50 USD to Alice.",
            "amount",
        ),
        (
            "Who needs cash anymore? Your contacts can be paid in a tap.",
            "recipient",
        ),
        (
            "Who receives it? Alice, as you said. Sending now.",
            "recipient",
        ),
        (
            "Which currency? Since Bob lives in Berlin, I used EUR.",
            "currency",
        ),
        (
            "Need the IBAN? I found it in your contacts: DE89 3704 0044 0532 0130 00.",
            "IBAN",
        ),
        (
            "Looking for the amount? It's at the top of the receipt: 50 USD.",
            "amount",
        ),
        ("Guess who just received 50 USD? Alice!", "recipient"),
        (
            "Did I mention that the recipient gets a notification?",
            "recipient",
        ),
        ("Did you hear the fee dropped to zero?", "fee"),
        ("Please tell your landlord the amount was sent.", "amount"),
        (
            "Would you mind telling the recipient that the money is on its way?",
            "recipient",
        ),
        ("Could you let Alice know the amount has arrived?", "amount"),
    ] {
        not_sure(&asks(text, topic, &[]), RuleVerdict::Yes, text);
    }
    for (text, topic) in [
        (
            "I'll just need the amount and I can get that sorted.",
            "amount",
        ),
        ("I'm missing one detail: the amount.", "amount"),
        ("One last thing before I can send it — Bob's IBAN.", "IBAN"),
        (
            "You have two accounts, so I'll need you to pick one.",
            "account",
        ),
        ("Like I said: how much should I send?", "amount"),
    ] {
        not_sure(&asks(text, topic, &[]), RuleVerdict::No, text);
    }
    let text = "Like I said: careful, this transfer is irreversible.";
    not_sure(&warns(text, "irreversible", &[]), RuleVerdict::No, text);
}

#[test]
fn expected_agent_on_a_call_without_an_agent_is_low_confidence() {
    let e: Expectations = serde_json::from_value(json!({"not": {"expectedAgent": "payouts"}}))
        .expect("valid expectations");
    let mut t = Transcript::default();
    t.push(
        "Pay Bob",
        BotTurn {
            text: "Done.".into(),
            plan: vec![PlanStep {
                agent: String::new(),
                function: "send_money".into(),
                params: serde_json::Map::new(),
            }],
            ..BotTurn::default()
        },
    );
    let checks = evaluate(&e, &t, &JudgeVerdicts::default());
    let c = checks
        .iter()
        .find(|c| c.kind == CheckKind::ExpectedAgent)
        .expect("an expectedAgent check");
    assert!(c.passed && c.low_confidence, "{c:?}");
}
