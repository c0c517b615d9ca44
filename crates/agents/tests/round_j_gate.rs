//! Issue 26, round J of the code-switching gate (after the blind probe set 26n): more of the
//! lines an app, a mail program, a shop, a payment service or a sign writes (a chat export's
//! hidden mark before "image omitted", group encryption notices, "Reply STOP to opt out",
//! "Manage your preferences", parental leave, a one-time PIN, "Use 482913 to log in",
//! "Transaction successful", "Authorized personnel only"), a quoted "no …" after a sign, more
//! music symbols, Sorani Kurdish letters, more Persian words and Cantonese characters, and a
//! kaomoji's katakana that does not make Chinese Japanese. Batches of each shape are refused;
//! real switches of the same shapes still pass. The sentences were written for this test, not
//! taken from the probe set.

use crate::gate_english;

use gate_english::{ALL, assert_passes, assert_refused_for};

#[test]
fn more_app_mail_shop_and_payment_lines_are_no_english() {
    assert_refused_for(
        "Spanish",
        &[
            "Aquí van las fotos del cumple. \u{200E}video omitted",
            "Messages to this group are now secured with end-to-end encryption. Bienvenidos al \
             grupo del viaje.",
            "Ofertas de verano en toda la tienda. Reply STOP to opt out.",
            "Tu resumen semanal ya está listo. Manage your preferences or opt out at any time.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Indonesian",
        &[
            "Kodenya sudah masuk. Use 550132 to log in to Tokopedia.",
            "Ini PIN-nya ya. Your one-time PIN is 918273 and expires in 3 minutes.",
            "Pulsanya sudah diisi. Transaction successful.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Italian",
        &[
            "Sono in maternità fino a giugno. I am on maternity leave until June.",
            "Non leggo la posta fino a lunedì. I am away with no access to email until Monday.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn bilingual_signs_and_quoted_bans_are_no_english() {
    assert_refused_for(
        "Portuguese",
        &[
            "Acesso restrito. Authorized personnel only.",
            "Não toque nas obras. Please do not touch the exhibits.",
            "Mantenha a porta fechada. Keep this door closed.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Spanish",
        &[
            "En la playa había un cartel: no dogs, no fires, no camping, y nadie hacía caso.",
            "En el metro decían – please stand behind the yellow line – pero nadie se movía.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn a_song_after_other_music_symbols_is_no_english() {
    assert_refused_for(
        "Italian",
        &[
            "Mia sorella canta sempre 🎤 we are the champions sotto la doccia.",
            "In treno ascoltavo 🎧 you can call me al a tutto volume.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn kurdish_persian_cantonese_and_kaomoji_chinese_are_third_languages() {
    assert_refused_for(
        "Arabic",
        &[
            "ئەمڕۆ لە کار زۆر ماندووم، I need a long nap.",
            "ئەو فیلمە زۆر خۆش بوو، we should watch it again.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Arabic",
        &[
            "نميدانم كجا رفت، he left without a word.",
            "امشب در خانه هستيم، come over if you want.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Chinese",
        &[
            "我而家好攰，聽日先 reply 你啦。",
            "嗰間 shop 咁貴㗎，唔好去啦。",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Japanese",
        &[
            "今天の lunch 太好吃了 ヽ(・∀・)ノ 下次还去",
            "我の朋友说这个 movie 很无聊 (・_・)",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn real_switches_near_the_new_lines_still_pass() {
    assert_passes(
        "Spanish",
        &[
            "Me llegó el paquete, but the payment failed twice antes de eso.",
            "Le dije: no way, I'm not paying that, y colgué.",
            "Estoy escuchando 🎧 mi playlist, and honestly it's the best part of my day.",
        ],
        Some("Intrasentential"),
    );
    assert_passes(
        "Japanese",
        &[
            "今日の meeting はキャンセル、so we're free ヽ(・∀・)ノ",
            "昨日のパーティーは楽しかった、we danced all night.",
        ],
        Some("Intrasentential"),
    );
}
