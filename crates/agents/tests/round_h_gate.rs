//! Issue 26, round H of the code-switching gate (after the blind probe set 26l): the lines a
//! chat app, an auto-reply, a shop, a payment service or a public sign writes are boilerplate
//! sentence by sentence, not only as whole mail lines; a lone "I" with no English word beside
//! it is a Roman numeral; Urdu and Persian in Arabic script, Ukrainian in Cyrillic, Marathi and
//! Nepali in Devanagari, written Cantonese and Chinese with no kana are third languages of the
//! script; an emoji or a dash opens a clause, so a capitalised English clause after it is no
//! title. Batches of each shape are refused; real switches of the same shapes still pass. The
//! sentences were written for this test, not taken from the probe set.

use crate::gate_english;

use gate_english::{ALL, assert_passes, assert_refused_for};

#[test]
fn chat_app_lines_are_no_english() {
    // A conversation whose English turns are what the app wrote in place of a message.
    assert_refused_for(
        "Spanish",
        &[
            "¿Ya llegaste al aeropuerto o sigues en el taxi?",
            "You deleted this message",
            "Jajaja, ¿qué me ibas a decir?",
            "<image omitted>",
            "Missed voice call",
        ],
        &ALL,
        true,
        "",
    );
}

#[test]
fn auto_replies_shop_and_payment_notices_are_no_english() {
    assert_refused_for(
        "Italian",
        &[
            "Ti mando il contratto domani mattina. I am out of the office until 3 June with \
             limited access to email.",
            "Il corriere passa nel pomeriggio. Your package has been dispatched.",
            "Ho pagato la bolletta ieri sera. Your payment of EUR 40.00 was successful.",
            "Ci sentiamo la settimana prossima. Sent from my Xiaomi phone.",
            "Grazie mille per il regalo. Thank you for your email, I will respond upon my return.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Indonesian",
        &[
            "Barangnya sudah saya bungkus rapi. Track your shipment in the app.",
            "Promo berlaku sampai akhir bulan. Terms and conditions apply.",
            "Pembayaran sudah masuk ke rekening. You have received IDR 150,000 from Budi S.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn stock_sign_and_announcement_english_is_no_english() {
    // A bilingual sign: the local sentence and its stock English translation.
    assert_refused_for(
        "Portuguese",
        &[
            "Próxima parada: Paulista. Next stop: Paulista.",
            "Saída de emergência. Emergency exit.",
            "Cuidado, piso molhado. Caution, wet floor.",
            "Obrigado por viajar conosco. Thank you for travelling with us.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Chinese",
        &[
            "下一站是西直门。The next stop is Xizhimen.",
            "请勿倚靠车门。Please do not lean on the doors.",
            "禁止停车。No parking.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn real_switches_that_mention_offices_orders_and_replies_still_pass() {
    assert_passes(
        "Spanish",
        &[
            "Llego tarde, I'm out of the office but stuck in traffic.",
            "Gracias por la cena, thank you for inviting us, de verdad.",
            "Vi tu mensaje, I'll reply after the meeting, ¿vale?",
            "Mi pedido llegó roto, so I asked for a refund ayer.",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn a_roman_numeral_one_is_no_english_i() {
    assert_refused_for(
        "Spanish",
        &[
            "En clase vimos el reinado de Fernando I y el de Juana I de Castilla.",
            "Le diagnosticaron hipertensión de grado I hace dos años.",
            "El torneo de la categoría I empieza el sábado por la mañana.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Russian",
        &[
            "На уроке мы говорили об эпохе Александра I и о войне.",
            "Нам задали прочитать часть I до пятницы.",
        ],
        &ALL,
        false,
        "",
    );
    // The pronoun stands beside English.
    assert_passes(
        "Spanish",
        &[
            "Pero I think que sí vamos a ir al cine.",
            "Mi hermano and I fuimos a la playa el domingo.",
            "Ya sé, I know, pero no me convence.",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn a_third_language_in_the_scripts_own_letters_is_refused() {
    for (first, batch) in [
        (
            "Arabic",
            &[
                "ہم کل بازار جائیں گے، but only if it stops raining.",
                "مجھے یہ کتاب بہت پسند ہے، I finished it last night.",
            ][..],
        ),
        (
            "Arabic",
            &[
                "امروز خیلی کار دارم، I'll call you later.",
                "چرا دیر کردی؟ We waited for an hour.",
            ][..],
        ),
        (
            "Russian",
            &[
                "Я вже поїв, thanks anyway.",
                "Це дуже гарна ідея, let's do it tomorrow.",
            ][..],
        ),
        (
            "Hindi",
            &[
                "आम्ही उद्या सकाळी निघणार आहे, so pack tonight.",
                "मला खूप भूक लागली आहे, let's order food.",
            ][..],
        ),
        (
            "Hindi",
            &[
                "तिमी भोलि आउँछौ कि छैन? I need to know today.",
                "म धेरै थाकेको छु, let's talk tomorrow.",
            ][..],
        ),
        (
            "Chinese",
            &[
                "佢啱啱落咗班，so he'll be late.",
                "我哋聽日去睇戲，do you want to come?",
            ][..],
        ),
        (
            "Japanese",
            &[
                "我们下个星期一起去北京出差，so book the hotel early.",
                "这家餐厅的菜非常好吃，you should try it.",
            ][..],
        ),
    ] {
        // Refused as a third language (the measurement says which and why).
        assert_refused_for(first, batch, &ALL, false, "not in the pair's languages");
    }
}

#[test]
fn the_pair_languages_own_script_still_passes() {
    for (first, batch) in [
        (
            "Arabic",
            &[
                "أنا تعبان جدا اليوم، I'll call you later.",
                "ليش تأخرت؟ We waited for an hour.",
            ][..],
        ),
        (
            "Russian",
            &[
                "Я уже поел, thanks anyway.",
                "Это очень хорошая идея, let's do it tomorrow.",
            ][..],
        ),
        (
            "Hindi",
            &[
                "मुझे बहुत भूख लगी है, let's order food.",
                "हम कल सुबह निकलेंगे, so pack tonight.",
            ][..],
        ),
        (
            "Chinese",
            &[
                "我们的关系很好，so don't worry about it.",
                "他刚刚下班了，so he'll be late.",
            ][..],
        ),
        (
            "Japanese",
            &[
                "来週一緒に東京へ出張するから、so book the hotel early.",
                "このレストランの料理はとても美味しい、you should try it.",
            ][..],
        ),
    ] {
        assert_passes(first, batch, Some("Intrasentential"));
    }
}

#[test]
fn an_english_clause_after_an_emoji_or_a_dash_is_a_switch_not_a_title() {
    assert_passes(
        "Spanish",
        &[
            "Ya salí del trabajo 🙌 Want to grab dinner tonight?",
            "Se me olvidó el cargador 🤦 Can you bring yours tomorrow?",
            "Mi jefa me llamó — Could you stay until eight? — y le dije que no.",
        ],
        Some("Intrasentential"),
    );
}
