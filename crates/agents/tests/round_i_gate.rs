//! Issue 26, round I of the code-switching gate (after the blind probe set 26m): a sign's or a
//! notice's words inside the writer's own sentence are the writer's ("Intenté to unsubscribe
//! tres veces"), while a sign quoted in a clause of its own (after a colon or dash, or in Latin
//! letters after another script to the clause's end) is not; a chat app's events, a mail app's
//! advert line, a bilingual auto-reply, a one-time code and a song named after a music note are
//! no English; an Arabic question mark ends a sentence; Persian typed with Arabic letters,
//! Bulgarian in Cyrillic and Chinese that borrows "の" are third languages of the script. The
//! sentences were written for this test, not taken from the probe set.

use crate::gate_english;

use gate_english::{ALL, assert_passes, assert_refused_for};

#[test]
fn notice_words_inside_the_writers_own_sentence_are_a_switch() {
    assert_passes(
        "Spanish",
        &[
            "Intenté to unsubscribe tres veces, pero me siguen llegando correos.",
            "Mi jefa está out of the office hoy, así que nadie firma nada.",
            "Nos sentamos junto al emergency exit, so we had more room.",
        ],
        Some("Intrasentential"),
    );
    assert_passes(
        "Chinese",
        &[
            "这家餐厅 no smoking 的规定很严格，so 我们去外面。",
            "他说 next stop 就到了，结果 we missed it。",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn unsubscribe_lines_are_still_notices() {
    assert_refused_for(
        "Spanish",
        &[
            "Gracias por tu compra, llega el martes. To unsubscribe, click here.",
            "Tenemos ofertas nuevas esta semana. Reply STOP to unsubscribe.",
            "Te esperamos en la tienda. You can unsubscribe at any time.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn chat_events_app_adverts_auto_replies_and_codes_are_no_english() {
    assert_refused_for(
        "Tagalog",
        &[
            "Lena: Nasaan na kayo? Kanina pa kami dito.",
            "Marco: You unsent a message",
            "Lena: Ano yun? Sabihin mo na.",
            "Marco: Marco reacted ❤️ to your message",
            "Lena: Lena pinned a message",
        ],
        &ALL,
        true,
        "",
    );
    assert_refused_for(
        "Portuguese",
        &[
            "Oi Ana,\nsegue a planilha atualizada.\nBeijo, Rita\nSent using Spark",
            "Bom dia! A entrega ficou para segunda.\nGet Edison Mail for iOS",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Spanish",
        &[
            "Estoy de vacaciones hasta el lunes. I am on annual leave until Monday with no \
             access to my inbox.",
            "Para cualquier urgencia, llame a Ana. For urgent matters, please contact Ana.",
            "Le responderé a mi regreso. I will get back to you as soon as I can.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Hindi",
        &[
            "Dekho kya aaya. Your verification code is 552190. Do not share this code. Ab kya \
             karun?",
            "Maa ne bola ghar jaldi aana, khana ban gaya hai.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn an_arabic_question_mark_ends_a_sentence() {
    assert_refused_for(
        "Arabic",
        &[
            "وصلتك الرسالة؟ Your order has been delivered",
            "ليش يرسلون هذا كل يوم؟ Thank you for shopping with us",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn a_sign_quoted_in_a_clause_of_its_own_is_no_english() {
    assert_refused_for(
        "Russian",
        &[
            "На двери было написано: no entry, а мы всё равно зашли.",
            "В самолёте объявили — fasten your seatbelts, please — и все проснулись.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Chinese",
        &[
            "门上贴着 禁止吸烟 No smoking，可是他还在抽。",
            "地上写着 小心地滑 Wet floor，我还是滑了一下。",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn a_song_after_a_music_note_is_no_english() {
    assert_refused_for(
        "Spanish",
        &[
            "Mi hermano siempre canta 🎶 Don't stop me now mientras se ducha.",
            "En la boda bailamos 🎵 Dancing queen hasta las tres.",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn persian_bulgarian_and_chinese_with_no_are_third_languages() {
    assert_refused_for(
        "Arabic",
        &[
            "امروز خيلي خسته ام، I need coffee right now.",
            "فردا كلاس داريم ولي I'm not ready.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Russian",
        &[
            "Къде си сега? I'm waiting at the station.",
            "Утре ще ходя на работа, but I'll call you after.",
        ],
        &ALL,
        false,
        "",
    );
    assert_refused_for(
        "Japanese",
        &[
            "昨天の party 好好玩，we danced all night。",
            "这个の price 太贵了，I'm not buying it。",
        ],
        &ALL,
        false,
        "",
    );
}

#[test]
fn the_scripts_own_language_with_the_same_shapes_still_passes() {
    assert_passes(
        "Russian",
        &[
            "Я прочитал объявление, but I still don't get it.",
            "Сегодня я очень устал, I'll call you later.",
        ],
        Some("Intrasentential"),
    );
    assert_passes(
        "Japanese",
        &[
            "今日の meeting はキャンセルになった、so we're free.",
            "昨日の party は楽しかった、we danced all night.",
        ],
        Some("Intrasentential"),
    );
    assert_passes(
        "Arabic",
        &[
            "أنا تعبان اليوم، I need coffee right now.",
            "بكرة عندنا اجتماع بس I'm not ready.",
        ],
        Some("Intrasentential"),
    );
}
