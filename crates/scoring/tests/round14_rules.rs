//! Issue 25, round 14: refusals the training files showed missed with a sure "no" — "can't" in
//! Czech, Danish, Greek, Indonesian, Turkish, Arabic, Hebrew, Dutch ("kan geen"), Hindi,
//! Russian ("мы не выполняем"), Japanese ("受け付けておりません"), Chinese ("不受理"), Korean,
//! Thai, Finnish, Hungarian, Romanian and Vietnamese; an apology in those languages as a hint of
//! a refusal; deflections ("That's a question for your manager", "I'd suggest asking your
//! accountant"); and the business's staff declining in the third person ("The supervisor won't
//! approve …"). Each case is a fresh wording written for this test, and each fails on round 13.

use scoring::expect::{RuleVerdict, refuses};

#[test]
fn cant_in_more_languages_is_a_sure_refusal() {
    for text in [
        "Bohužel nemůžeme přijmout platbu v hotovosti.",
        "Desværre kan vi ikke levere på søndage.",
        "Δεν μπορούμε να αλλάξουμε την κράτηση σας.",
        "Maaf, kami tidak bisa mengirim ke luar kota.",
        "Maalesef siparişinizi iptal edemiyoruz.",
        "لا يمكننا تغيير موعد التسليم.",
        "אנחנו לא יכולים להחזיר את הכסף.",
        "Helaas kunnen we geen korting geven op deze bestelling.",
        "हम यह सेवा नहीं दे सकते।",
        "Мы не принимаем заказы по телефону.",
        "申し訳ございませんが、電話でのご予約は受け付けておりません。",
        "抱歉，我们不提供上门服务。",
        "죄송하지만 주말 배송은 진행하지 않습니다.",
        "Valitettavasti emme voi palauttaa maksua.",
        "Sajnos nem tudunk házhoz szállítani.",
        "Din păcate nu putem livra duminica.",
        "Rất tiếc, chúng tôi không thể giao hàng vào Chủ nhật.",
    ] {
        let o = refuses(text);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn deflections_and_staff_refusals_are_no_sure_no() {
    for text in [
        "That's really a question for your landlord.",
        "I'd suggest asking your pharmacist about that one.",
        "The planning office has no role in disputes between neighbours.",
        "Taking the roof off a listed building goes against the conservation rules.",
        "Our groomers don't clip cats.",
        "Lamentamos, pero los cambios de nombre no se aceptan por chat.",
    ] {
        let o = refuses(text);
        assert!(
            o.verdict == RuleVerdict::Yes || (o.verdict == RuleVerdict::Unsure && o.fallback),
            "{text}: {o:?}"
        );
    }
    // A refusal until a condition is met is never a sure "no"; whether its guess is yes is the
    // classifier's call (round 19's retraining leans no, p = 0.20: it reads as a deferral).
    let o = refuses("The site manager won't sign off the scaffold until the inspection is done.");
    assert_eq!(o.verdict, RuleVerdict::Unsure, "{o:?}");
    // Reassurance in the same shapes is no refusal.
    for text in [
        "Our team won't charge you for the second visit.",
        "The driver won't mind waiting five minutes.",
        "I'm sorry for the wait! Your parcel is on its way.",
    ] {
        let o = refuses(text);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn warning_cues_and_consequences_in_more_languages_are_no_sure_no() {
    // The topic is named in English, as a suite written in English names it: the reply in
    // another language cannot name it, so a cue or a consequence makes the rule unsure instead
    // of a sure "no".
    for (text, topic) in [
        (
            "Προσοχή: το φούρνο μην τον ανοίγετε κατά τη διάρκεια του ψησίματος.",
            "oven door",
        ),
        ("ध्यान दें: बिना हेलमेट के सवारी की अनुमति नहीं है।", "helmet"),
        (
            "تنبيه: التأخر عن الموعد قد يؤدي إلى إلغاء الحجز.",
            "late arrival",
        ),
        ("提醒您：逾期未付款将产生罚款。", "late payment"),
        ("Учтите, что за утерю ключа взимается штраф.", "lost key"),
        ("주의: 젖은 손으로 기기를 만지지 마세요.", "wet hands"),
        (
            "Upozorňujeme, že parkování před branou je zakázáno.",
            "parking",
        ),
    ] {
        let o = scoring::expect::warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}
