//! Issue 26, round U: asked for switching between sentences or for tags, a batch whose less
//! used language may be insertions only (no function word of it in any text, no clause of it,
//! no punctuation parting it from the other language up to a sentence's edge) is undecided, so
//! refused under the default `gate.undecided: auto` and left to the judges under `judges`;
//! intra-sentential switching may be insertions and is not doubted so.

use agents::gate;
use codeswitch::{LanguagePair, Measurement, ScriptHint};
use runlog::{GateSettings, GateUndecided};

fn measure(first: &str, second: &str, texts: &[&str], script: Option<ScriptHint>) -> Measurement {
    let texts: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
    LanguagePair::parse(first, second)
        .expect("a supported pair")
        .measure_with(&texts, script)
}

fn judges() -> GateSettings {
    GateSettings {
        undecided: GateUndecided::Judges,
        ..GateSettings::default()
    }
}

/// Trade terms, product features and genre names inserted into the other language's sentences:
/// neither sentences nor tags of English.
const TERMS: &[(&str, &str, &[&str], bool)] = &[
    (
        "German",
        "English",
        &[
            "Die Due Diligence für die Übernahme ist fast abgeschlossen.",
            "Nach dem Signing wartet das Team nur noch auf das Closing im März.",
            "Der Käufer hat im Term Sheet einen hohen Earn-out verlangt.",
        ],
        false,
    ),
    (
        "Korean",
        "English",
        &[
            "주말에는 lo-fi hip hop 플레이리스트를 틀어 놓고 공부해요.",
            "우리 오빠는 요즘 synthwave에 완전히 빠졌어요.",
            "그 밴드는 처음에 garage rock으로 시작했대요.",
        ],
        false,
    ),
    (
        "Russian",
        "English",
        &[
            "Вчера на концерте играли в основном shoegaze и немного dream pop.",
            "Мой брат слушает только synthwave по дороге на работу.",
            "Эта группа начинала с post-punk, а теперь играет что-то вроде indie folk.",
        ],
        false,
    ),
];

#[test]
fn inserted_terms_are_undecided_between_sentences_and_for_tags_but_not_within_them() {
    for (first, second, texts, _) in TERMS {
        let m = measure(first, second, texts, None);
        for cs_type in ["Intersentential", "Extrasentential", "tag switching"] {
            let v = gate::decide(GateSettings::default(), Some(&m), Some(cs_type), false);
            assert_eq!(v.passed, Some(false), "{first} {cs_type}: {v:?}");
            assert!(
                v.reason.contains("may be insertions only")
                    && v.reason.contains("gate.undecided is auto"),
                "{first} {cs_type}: {}",
                v.reason
            );
            // Under `judges` the judges decide alone, as for any undecided gate.
            let v = gate::decide(judges(), Some(&m), Some(cs_type), false);
            assert_eq!(v.passed, None, "{first} {cs_type}: {v:?}");
        }
        // Insertions are intra-sentential switching (a `Low` ratio asks for them): not doubted
        // so (an intra-sentential text needs firm words of both languages all the same).
        let v = gate::decide(GateSettings::default(), Some(&m), None, false);
        assert_eq!(v.passed, Some(true), "{first}: {v:?}");
        let v = gate::decide(
            GateSettings::default(),
            Some(&m),
            Some("Intrasentential"),
            false,
        );
        assert!(!v.reason.contains("insertions"), "{first}: {v:?}");
    }
}

#[test]
fn clauses_function_words_and_tags_parted_by_punctuation_still_pass() {
    let batches: &[(&str, &str, &[&str], Option<ScriptHint>)] = &[
        // Tags parted by punctuation up to the sentence's edge.
        (
            "French",
            "English",
            &[
                "Bon, je t'appelle demain pour le déménagement, okay?",
                "Tu as vu le match hier soir? Insane, honestly.",
                "Je pars en vacances lundi, finally!",
            ],
            None,
        ),
        // A clause of English.
        (
            "German",
            "English",
            &[
                "Das Meeting war viel zu lang, and nobody listened to the plan.",
                "Ich habe keine Zeit mehr, I have to catch my train.",
                "Morgen fahren wir nach Hamburg.",
            ],
            None,
        ),
        // An English function word in Chinese text.
        (
            "Chinese",
            "English",
            &[
                "我今天太累了。I just want to sleep all day.",
                "明天的会议取消了，so we can relax.",
                "你吃饭了吗？",
            ],
            None,
        ),
        // Romanized Hindi with an English clause.
        (
            "Hindi",
            "English",
            &[
                "Yaar kal ka match dekha? It was the best game of the season.",
                "Main thoda late ho jaunga, I am stuck in traffic.",
                "Chalo phir milte hain shaam ko.",
            ],
            Some(ScriptHint::Romanized),
        ),
    ];
    for (first, second, texts, script) in batches {
        let m = measure(first, second, texts, *script);
        for cs_type in ["Intersentential", "Extrasentential"] {
            let v = gate::decide(GateSettings::default(), Some(&m), Some(cs_type), false);
            assert_eq!(v.passed, Some(true), "{first} {cs_type}: {v:?}");
        }
    }
}

/// Round V: terms of a language read by its script inside English sentences (calligraphy
/// styles, dim sum names, kendo terms) are borrowed islands, refused whatever the `cs_type`; the
/// same language joined to English by a function word of its script, or by punctuation up to
/// a sentence's edge, passes.
#[test]
fn script_read_terms_inside_english_are_islands_and_their_function_words_join() {
    let islands: &[(&str, &[&str])] = &[
        (
            "Arabic",
            &[
                "My calligraphy teacher says the ثلث script takes ten years to master.",
                "Today I practised the نسخ letters for two hours before dinner.",
                "She framed a piece in ديواني style for her grandmother's birthday.",
            ],
        ),
        (
            "Chinese",
            &[
                "We ordered 虾饺 and 烧卖 as soon as we sat down.",
                "My uncle always asks for extra 叉烧包 to take home.",
                "The 肠粉 here is softer than anywhere else in town.",
            ],
        ),
        (
            "Japanese",
            &[
                "In practice today we drilled 面 strikes until my arms were sore.",
                "Our sensei corrected my 残心 after every single cut.",
                "The grading panel watches your 足さばき more than anything else.",
            ],
        ),
    ];
    for (first, texts) in islands {
        let m = measure(first, "English", texts, None);
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = gate::decide(judges(), Some(&m), cs_type, false);
            assert_eq!(v.passed, Some(false), "{first} {cs_type:?}: {v:?}");
            assert!(v.reason.contains("islands"), "{first}: {}", v.reason);
        }
    }
    let joined: &[(&str, &[&str])] = &[
        (
            "Chinese",
            &[
                "I told my mom 我不想去 but she insisted anyway.",
                "We were late again, 真的很抱歉。",
                "The train was packed this morning.",
            ],
        ),
        (
            "Russian",
            &[
                "I wanted to call you yesterday, но я был занят.",
                "We should meet for coffee, давай в пятницу?",
                "The weather has been terrible all week.",
            ],
        ),
    ];
    for (first, texts) in joined {
        let m = measure(first, "English", texts, None);
        let v = gate::decide(judges(), Some(&m), None, false);
        assert_eq!(v.passed, Some(true), "{first}: {v:?}");
    }
}

/// Round W (review 26y): one kana or Han function character is no grammar on its own (a
/// syllable of a dish name), the Japanese comma parts a tag, and vowel signs do not hide an
/// Arabic function word.
#[test]
fn kana_syllables_are_no_grammar_and_marks_and_japanese_commas_join() {
    let islands = measure(
        "Japanese",
        "English",
        &[
            "We had とんかつ at the station before the train left.",
            "My sister always orders うどん when we go out for lunch.",
            "The shop near the office sells fresh もち every morning.",
        ],
        None,
    );
    let v = gate::decide(judges(), Some(&islands), None, false);
    assert_eq!(v.passed, Some(false), "{v:?}");
    assert!(v.reason.contains("islands"), "{}", v.reason);
    let joined: &[(&str, &[&str])] = &[
        (
            "Japanese",
            &[
                "やっと仕事終わった、finally.",
                "The meeting ran late again today.",
                "I need a long weekend.",
            ],
        ),
        (
            "Arabic",
            &[
                "I told him لَا تَقْلَقْ and went home.",
                "The exam was much easier than we thought.",
                "We are meeting again next week.",
            ],
        ),
        (
            "Chinese",
            &[
                "我觉得 it's not a big deal 啦.",
                "Everyone was tired after the trip.",
                "We will talk about it tomorrow.",
            ],
        ),
    ];
    for (first, texts) in joined {
        let m = measure(first, "English", texts, None);
        let v = gate::decide(judges(), Some(&m), Some("Extrasentential"), false);
        assert_eq!(v.passed, Some(true), "{first}: {v:?}");
    }
}
