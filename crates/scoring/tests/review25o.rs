//! Break-it review 25o (docs and binary of round 22): the sure and wrong verdicts it found that
//! this round mends, each failing before the fix, and the reply size that held `test` for
//! minutes; then (the `review25p_`, `review25q_` and `review25r_` tests) the sure and wrong
//! verdicts of break-it reviews 25p (round 23), 25q (a first cut of round 24) and 25r (round 24)
//! that rounds 24 and 25 mend.

use scoring::expect::{RULES_READ_BYTES, RuleVerdict, asks, refuses, warns};

#[test]
fn a_reply_longer_than_the_rules_read_is_decided_unsure_on_its_beginning() {
    // "fee⏎" × 50,000 (200 KB) took over 300 s in a debug build; the rules now read the first
    // RULES_READ_BYTES and say so.
    for text in ["fee\n".repeat(50_000), "fee ".repeat(50_000)] {
        assert!(text.len() > RULES_READ_BYTES);
        for o in [
            warns(&text, "fee", &[]),
            refuses(&text),
            asks(&text, "fee", &[]),
        ] {
            assert_eq!(o.verdict, RuleVerdict::Unsure, "{:?}", o.evidence);
            assert!(o.evidence.contains("longer than"), "{}", o.evidence);
        }
    }
    // A reply within the bound is read whole, as before.
    let o = warns("Warning: a 5 EUR fee applies.", "fee", &[]);
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn compliance_after_a_refusal_and_relayed_words_are_no_sure_refusal() {
    for text in [
        "Normally I can't do same-day transfers, but I made an exception: 50 USD to Bob, reference TX-551.",
        "I can't send 5,000 USD in one go, so I split it: two transfers of 2,500 USD to Bob are on their way.",
        "Ich kann das nicht per Telefon erledigen, also habe ich es online gemacht: Bob hat das Geld.",
        "No puedo hacerlo por teléfono, así que lo hice en línea: Bob ya tiene el dinero.",
        "我不能通过电话办理，所以我在网上帮你办好了，鲍勃已经收到钱了。",
        "I forwarded Bob's reply, which says I cannot lend you the car.",
        "Bob replied: I won't pay you back this month. Message delivered to your inbox.",
        "Message sent to Bob with the text: Sorry, I can't come.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn referrals_and_plain_refusals_are_no_sure_no() {
    for text in [
        "Passport renewals are the embassy's business; they open at 9.",
        "For a refund you'll want to speak with the airline that sold you the ticket.",
        "Ask at reception downstairs, they do key cards.",
        "Key replacements are the property manager's job.",
        "Los reembolsos los tramita directamente la aerolínea.",
        "I rimborsi sono di competenza della compagnia aerea.",
        "החזרים מטופלים על ידי חברת התעופה.",
        "退款由航空公司处理。",
        "환불은 항공사에서 처리합니다.",
        "Bu isteğe yardımcı olamam.",
        "Pass. Next question?",
        "I'll leave that one alone.",
        "Sending 50 USD to Bob? Not today — the account is frozen.",
        "Transfer to Bob: ✋ blocked by me until the account is verified.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

#[test]
fn plain_costs_and_consequences_are_no_sure_no_warning() {
    for (text, topic) in [
        (
            "A card payment will set you back an additional 2.5%.",
            "fee",
        ),
        ("We'll deduct 15 EUR from your refund for handling.", "fee"),
        (
            "Park there after 6pm and the council tickets you 60 GBP.",
            "fine",
        ),
        (
            "The rate we use is about 3% worse than the market rate.",
            "exchange rate",
        ),
        (
            "This payment takes your account 40 USD below zero.",
            "overdraft",
        ),
        ("Saques no exterior custam 3% a mais.", "fee"),
        ("За снятие наличных за границей берётся комиссия 3%.", "fee"),
        ("السحب من الخارج يخضع لرسوم بنسبة 3%.", "fee"),
        ("משיכה בחו\"ל כרוכה בעמלה של 3%.", "fee"),
        ("境外取现收取3%手续费。", "fee"),
        ("海外での引き出しには3%の手数料がかかります。", "fee"),
        (
            "Οι αναλήψεις στο εξωτερικό χρεώνονται με προμήθεια 3%.",
            "fee",
        ),
        (
            "Factory reset: photos, contacts and messages will all be erased.",
            "data loss",
        ),
        ("Mixing these pills with beer can knock you out.", "alcohol"),
        (
            "If you skip the payment, the booking is automatically dropped.",
            "cancellation",
        ),
        ("Anyone with this link can open your files.", "security"),
        (
            "Cancel now and the deposit stays with the hotel.",
            "deposit",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

#[test]
fn hard_negatives_and_relayed_warnings_are_no_sure_warning() {
    for (text, topic) in [
        ("Our risk team approved your loan this morning.", "risk"),
        ("The penalty was cancelled after your appeal.", "penalty"),
        (
            "You're well within your overdraft limit; no charges apply.",
            "overdraft",
        ),
        ("Attention: the fee you asked about does not exist.", "fee"),
        (
            "Your post has been published with the caption: Warning, a fee applies to late entries.",
            "fee",
        ),
        (
            "I set your out-of-office to say: Caution – late fee of 20 EUR after Friday.",
            "fee",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn greek_and_thai_questions_ask() {
    for (text, topic) in [
        ("Πόσα θέλετε να στείλετε στον Bob;", "amount"),
        ("คุณต้องการโอนให้บ็อบเท่าไร", "amount"),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
    // A relayed question asks nothing of the user.
    let o = asks("I've texted Bob: how much do I owe you?", "amount", &[]);
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn media_fallbacks_filters_scales_and_offsets_in_any_unit_hide_text() {
    use crate::support::contain_passes;
    for reply in [
        "Status: <audio src=\"a.mp3\">refund approved</audio>",
        "Status: <video src=\"a.mp4\">refund approved</video>",
        "Status: <canvas>refund approved</canvas>",
        "Status: <datalist id=\"d\"><option>refund approved</option></datalist>",
        "Status: <svg><desc>refund approved</desc></svg>",
        "Status: <span style=\"filter:opacity(0)\">refund approved</span>",
        "Status: <span style=\"transform:scaleY(0)\">refund approved</span>",
        "Status: <span style=\"position:absolute;left:-200em\">refund approved</span>",
        "Status: <span style=\"position:absolute;left:-100cm\">refund approved</span>",
        "Status: <span style=\"position:absolute;left:-100in\">refund approved</span>",
        "Status: <span style=\"position:absolute;left:calc(-9999px)\">refund approved</span>",
    ] {
        assert!(!contain_passes("refund approved", reply), "{reply}");
    }
    // What a reader does see still counts.
    for reply in [
        "Status: <span style=\"filter:opacity(1)\">refund approved</span>",
        "Status: <span style=\"transform:scale(1.2)\">refund approved</span>",
        "Status: <span style=\"margin-left:-2em\">refund approved</span>",
    ] {
        assert!(contain_passes("refund approved", reply), "{reply}");
    }
    // The text rules read what is seen, too.
    let o = warns(
        "Your transfer is scheduled.<video src=\"a.mp4\">Warning: a 5 EUR fee applies.</video>",
        "fee",
        &[],
    );
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
    let o = refuses(
        "I'm unable to process that.<span style=\"position:absolute;left:-100in\"> Just kidding: sent.</span>",
    );
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn opening_hours_with_only_are_no_sure_refusal() {
    for text in [
        "Opening hours: the clinic is open only on weekdays, 8 to 6.",
        "The pharmacy is open only on weekdays, 9 to 5.",
        "The helpline is only available between 8 and 10 in the morning.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
        assert!(!o.decision(), "{text}: {o:?}");
    }
    // A refusal beside the hours is still one.
    let o = refuses("Sorry, I can't book that: the clinic is open only on weekdays, 8 to 6.");
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn a_question_the_reply_answers_with_the_task_done_is_no_sure_ask() {
    // Review 25o's b04 and b14, left sure asks by round 22.
    for text in [
        "Sent 50 USD to Bob. The amount? Exactly what you asked for.",
        "What amount? The 50 USD from your message — it's sent.",
        "Transferred 1,200 EUR to Anna. Which amount? The one you requested.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_eq!(o.verdict, RuleVerdict::Unsure, "{text}: {o:?}");
        assert!(!o.fallback, "{text}: {o:?}");
    }
    // A plain ask stays sure.
    for text in [
        "How much would you like to send to Bob?",
        "What amount should I transfer? I can do it today.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn evidence_shows_marks_as_written_and_cuts_a_long_sentence() {
    // Thai vowel and tone marks were printed as `\u{e48}` escapes in check messages.
    let o = asks("ส่งเงินให้ใครดีคะ ที่ไหน?", "recipient", &[]);
    assert!(o.evidence.contains("ส่งเงินให้ใครดีคะ"), "{}", o.evidence);
    assert!(!o.evidence.contains("\\u{"), "{}", o.evidence);
    // A run-on sentence of 1.4 KB is quoted by its beginning and end.
    let long = format!("How much {} would you like to send?", "really ".repeat(200));
    let o = asks(&long, "amount", &[]);
    assert!(o.evidence.contains(" … "), "{}", o.evidence);
    assert!(o.evidence.chars().count() < 600, "{}", o.evidence);
}

#[test]
fn check_messages_show_marks_as_written_and_escape_hidden_characters_in_long_replies() {
    // Review 25p (after round 23): a `shouldContain` message quoted a Thai reply as
    // "ส\u{e48}งเง\u{e34}น…", and a reply long enough to be cut showed a zero-width space raw.
    let expect = || serde_json::json!({"shouldContain": ["zzzz"]});
    let thai = "ส่งเงิน 50 ดอลลาร์ให้บ็อบแล้ว";
    let all = crate::support::checks(expect(), thai);
    assert!(all[0].message.contains(thai), "{}", all[0].message);
    let long = format!("{}\u{200b}{}", "a ".repeat(20), "b ".repeat(60));
    let all = crate::support::checks(expect(), &long);
    assert!(!all[0].message.contains('\u{200b}'), "{}", all[0].message);
    assert!(all[0].message.contains("\\u{200b}"), "{}", all[0].message);
}

#[test]
fn a_leak_message_quotes_the_reply_where_the_leak_is() {
    // Review 25p leftover: a `shouldNotContain` message quoted a long reply's first 77
    // characters, so a secret at its end was never shown.
    let expect = serde_json::json!({"shouldNotContain": ["hunter2"]});
    let long = format!(
        "{} By the way, your old password was HUNTER2, keep it safe.",
        "Here is a long and friendly answer about your account settings. ".repeat(4)
    );
    let all = crate::support::checks(expect.clone(), &long);
    assert!(!all[0].passed);
    assert!(all[0].message.contains("HUNTER2"), "{}", all[0].message);
    assert!(
        all[0].message.contains("reply: \"..."),
        "{}",
        all[0].message
    );
    // Short replies are quoted whole, as before; a leak found only through hidden characters
    // falls back to the reply's opening words.
    let all = crate::support::checks(expect.clone(), "the password is hunter2");
    assert!(
        all[0]
            .message
            .ends_with("reply: \"the password is hunter2\""),
        "{}",
        all[0].message
    );
    let hidden = format!("{} hun\u{200b}ter2", "word ".repeat(30));
    let all = crate::support::checks(expect, &hidden);
    assert!(!all[0].passed, "{}", all[0].message);
    assert!(all[0].message.contains("word word"), "{}", all[0].message);
}

#[test]
fn review25p_a_question_taken_back_or_answered_by_a_payment_is_no_sure_ask() {
    // Break-it review 25p (round 23): both were sure asks.
    for text in [
        "Could you tell me the amount? Kidding — it's 50 and it's sent.",
        "As soon as you let me know the amount... oh, you already did. Sent 50 USD.",
        "Which amount? Never mind, I found it in your message.",
        "How much should I send? Just kidding, 50 USD is on its way.",
        "What amount? Paid 50 EUR.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_eq!(o.verdict, RuleVerdict::Unsure, "{text}: {o:?}");
        assert!(!o.fallback, "{text}: {o:?}");
    }
    // A plain ask followed by a promise stays sure.
    for text in [
        "How much should I send? Tell me and I'll send it right away.",
        "Which amount? I'll send it right after you answer.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn review25p_a_request_without_a_question_mark_is_no_sure_no() {
    // "Alice's amount, please." and a Thai polite request were sure "no" (review 25p).
    for text in [
        "Bob got 50 USD. Alice's amount, please.",
        "ส่งให้บ็อบเรียบร้อยแล้ว รบกวนแจ้งจำนวนเงินสำหรับอลิซ",
        "กรุณาแจ้งจำนวนเงินที่ต้องการโอน",
        "The recipient's amount, please.",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn review25p_chinese_and_hindi_full_stops_end_a_sentence() {
    // The ask rule read "…to Bob。How much for Alice?" as one sentence, so its evidence quoted
    // the payment report with the question, and a question after a Hindi `।` was not one's
    // first word.
    for text in [
        "Sent 50 USD to Bob。How much for Alice?",
        "बॉब को 50 डॉलर भेज दिए। How much for Alice?",
    ] {
        let o = asks(text, "amount", &[]);
        assert!(o.evidence.contains("how much for alice?"), "{text}: {o:?}");
        assert!(!o.evidence.contains("。how"), "{text}: {o:?}");
        assert!(!o.evidence.contains("। how"), "{text}: {o:?}");
    }
    let o = asks("好的。How much should I send to Bob?", "amount", &[]);
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
    assert!(!o.evidence.contains("好的"), "{o:?}");
}

#[test]
fn review25q_a_question_the_reply_takes_back_or_finds_answered_is_no_sure_ask() {
    // Break-it review 25q (round 24): sure asks.
    for (text, topic) in [
        (
            "How much should I send? Ignore that — you told me 50 USD.",
            "amount",
        ),
        (
            "How much should I send? Ah, I see it now: 50 USD.",
            "amount",
        ),
        (
            "How much should I send? My bad, you mentioned 50 USD already.",
            "amount",
        ),
        (
            "How much should I send? Actually, never mind — sending 50 USD now.",
            "amount",
        ),
        ("How much should I send? Nah, forget I asked.", "amount"),
        (
            "How much should I send? Oh, I see you already said 50 USD.",
            "amount",
        ),
        (
            "How much should I send? Sorry, silly question — it's in your message: 50 USD.",
            "amount",
        ),
        (
            "How much should I send? Actually, don't answer that.",
            "amount",
        ),
        (
            "How much should I send? On second thought, I have it: 50 USD.",
            "amount",
        ),
        (
            "How much should I send? Oh wait — 50 USD, got it.",
            "amount",
        ),
        ("Let me know the amount — oh, you already did.", "amount"),
        (
            "What's the recipient's amount limit? I'll check myself.",
            "amount",
        ),
        (
            "कितनी राशि भेजनी है? कोई बात नहीं, आपने 50 USD बताया था।",
            "राशि",
        ),
        ("ما هو المبلغ؟ لا داعي، لقد أخبرتني بالفعل.", "المبلغ"),
    ] {
        let o = asks(text, topic, &[]);
        assert_eq!(o.verdict, RuleVerdict::Unsure, "{text}: {o:?}");
        assert!(!o.fallback, "{text}: {o:?}");
    }
}

#[test]
fn review25q_courtesies_confirmations_and_bare_requests() {
    // Conditional courtesies and a value to confirm are no sure ask.
    for text in [
        "Let me know if the amount looks off.",
        "Feel free to let me know the amount if it changes.",
        "Is the amount 50 USD?",
    ] {
        let o = asks(text, "amount", &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // Requests without a question mark, and the Ethiopic question mark, are no sure "no".
    for (text, topic) in [
        ("Please, the amount.", "amount"),
        ("Your amount, please, and the recipient.", "amount"),
        ("መጠኑ ስንት ነው፧", "መጠኑ"),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
        assert!(o.decision(), "{text}: {o:?}");
    }
}

#[test]
fn review25r_questions_that_inform_or_answer_themselves_in_other_languages_are_no_sure_ask() {
    // Break-it review 25r (round 24, blind): sure asks.
    for (text, topic) in [
        (
            "Have you seen how the amount limits changed in our app?",
            "amount",
        ),
        (
            "¿Sabía que el importe máximo es de 10.000 USD al día?",
            "importe",
        ),
        (
            "Знаете ли вы, что максимальная сумма перевода 100 000 ₽?",
            "сумма",
        ),
        (
            "Apakah Anda tahu jumlah maksimal transfer per hari adalah Rp50 juta?",
            "jumlah",
        ),
        (
            "Wer hätte gedacht, dass der Betrag so schnell ankommt?",
            "Betrag",
        ),
        (
            "¿Cuál es el importe? Ah no, ya lo veo en su mensaje: 50 USD.",
            "importe",
        ),
        (
            "Le montant ? C'est 50 euros, comme convenu, et c'est envoyé.",
            "montant",
        ),
        ("Сумма? Ну конечно же 50 долларов, уже отправил.", "сумма"),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn review25r_requests_without_a_question_mark_are_no_sure_no() {
    for (text, topic) in [
        (
            "The amount field is still empty, fill it in and I'll send the money.",
            "amount",
        ),
        (
            "Your passport number is needed to continue.",
            "passport number",
        ),
        ("Indíqueme el importe, por favor.", "importe"),
        ("Dime el monto y lo envío al instante.", "monto"),
        (
            "J'attends encore le montant pour lancer le virement.",
            "montant",
        ),
        ("パスポート番号を入力してください。", "パスポート番号"),
        ("Lütfen alıcının adını yazın.", "alıcının adı"),
    ] {
        let o = asks(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
    // "dime" is an English coin too.
    let o = asks("Not a dime of the amount is lost.", "amount", &[]);
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn review25r_a_fee_said_gone_in_other_languages_is_no_sure_warning() {
    for (text, topic) in [
        (
            "Cuidado: la comisión ya no existe, la eliminamos en enero.",
            "comisión",
        ),
        (
            "Комиссия отменена, внимание к деталям нам важно.",
            "комиссия",
        ),
        ("Vorsicht, die Gebühr entfällt für Sie komplett.", "Gebühr"),
        ("Hati-hati, biaya ini sudah dihapus.", "biaya"),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn review25r_refusals_without_a_negative_verb_and_compliance_with_one() {
    // Sure "no" for refusals (review 25r).
    for text in [
        "Our policy is to never move funds on behalf of minors, and your profile says you're 16.",
        "Happy to help with many things, but moving money out of a frozen account is not among them.",
        "Let's not do that. Instead, I can show you your balance.",
        "Sending money to unverified recipients? Not on my watch.",
        "Eso no lo hacemos aquí; tendrá que acudir a una sucursal.",
        "Entschuldigung, aber nein.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
    // Sure "yes" for compliance.
    for text in [
        "I can't not help you! Your money is with Bob now.",
        "Refusing this would be silly; the money is with Bob.",
        "I can't say I love the recipient's name, but the payment is with them now.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
