//! Issue 26, break-it review of main at ce4fd76 (a fake model whose judges all give 10): every
//! batch of its WRONG_CASES.md that the gate passed (or left to the judges, who accepted it)
//! while it is not code switched in the pair. None may pass the gate now, nor be left to the
//! judges: each is refused. The third-language batches (Galician, Asturian, Esperanto …) and
//! the batch with a single real English word in sixty have their own tests below.
//!
//! What each exposed: words only the English list held although they are real words of the
//! matrix language ("tuna", "rape", "pond", "lime", "Made", "bare", "stole", "had"); a
//! zero-width space splitting "importante"; homoglyph words mixing Latin and Cyrillic letters
//! ("m\u{430}rk\u{435}t"; "мoлoкo" below is written with a Latin o); batches of numbers,
//! emoji or links only.

use agents::gate;
use codeswitch::{LanguagePair, without_speaker_label};
use runlog::{GateSettings, GateUndecided};

struct Case {
    id: &'static str,
    first: &'static str,
    second: &'static str,
    cs_type: &'static str,
    multi_turn: bool,
    texts: &'static [&'static str],
}

const WRONG_CASES: &[Case] = &[
    // Not a wrong accept of the review, but a batch main refused that the stricter ratio range
    // (untagged words uncertain) made low_coverage and left to the judges: an English text with
    // Spanish look-alikes ("solo", "sin", "once").
    Case {
        id: "case_en_es",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "I read the final idea in the hotel once.",
            "The red car was real and solo.",
            "She had a sin of pride at the final hotel.",
        ],
    },
    Case {
        id: "case_es_tuna",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "La tuna de la universidad canta esta noche.",
            "Compré una tuna dulce en el mercado.",
            "La tuna tiene muchas espinas pequeñas.",
        ],
    },
    Case {
        id: "case_es_rape",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "El rape a la plancha está delicioso.",
            "Mi madre compró rape para la cena.",
            "En este restaurante el rape es muy fresco.",
        ],
    },
    Case {
        id: "case_fr_pond",
        first: "French",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "La poule pond un œuf chaque matin.",
            "Cette poule pond beaucoup en été.",
            "Ma vieille poule ne pond plus du tout.",
        ],
    },
    Case {
        id: "case_fr_lime",
        first: "French",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "J'ai oublié ma lime à ongles chez toi.",
            "Cette lime est trop rugueuse.",
            "Prête-moi ta lime, s'il te plaît.",
        ],
    },
    Case {
        id: "case_de_made",
        first: "German",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Im Apfel ist eine kleine Made.",
            "Die Made kriecht langsam aus dem Käse.",
            "Meine Schwester hat eine Made gefunden.",
        ],
    },
    Case {
        id: "case_ms_had2",
        first: "Malay",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Ada had masa untuk menghantar borang itu.",
            "Had laju di jalan ini ialah sembilan puluh.",
            "Jangan melebihi had yang ditetapkan.",
        ],
    },
    Case {
        id: "case_es_inter_tuna",
        first: "Spanish",
        second: "English",
        cs_type: "Intersentential",
        multi_turn: false,
        texts: &[
            "Compré una tuna en el mercado.",
            "Mi madre cocina muy bien.",
            "Mañana vamos a la playa.",
        ],
    },
    Case {
        id: "case_de_multiturn_made",
        first: "German",
        second: "English",
        cs_type: "Intersentential",
        multi_turn: true,
        texts: &[
            "Anna: Hast du die Made im Apfel gesehen?",
            "Ben: Ja, ich habe sie weggeworfen.",
            "Anna: Dann kaufen wir neue Äpfel.",
            "Ben: Gute Idee, bis später.",
        ],
    },
    Case {
        id: "case_it_bare",
        first: "Italian",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Le bare erano di legno scuro.",
            "Hanno portato le bare in chiesa.",
            "Le bare sono arrivate stamattina.",
        ],
    },
    Case {
        id: "case_it_stole",
        first: "Italian",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Le stole di seta sono eleganti.",
            "Mia zia colleziona stole antiche.",
            "Quelle stole costano troppo.",
        ],
    },
    Case {
        id: "case_es_rape_look",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Pedí el rape final del menú.",
            "Comí rape real sin sal.",
            "El rape solo cuesta once euros.",
        ],
    },
    Case {
        id: "case_de_made_look",
        first: "German",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Die Made will also bald raus.",
            "Eine Made, also Gift.",
            "Die Made ist Art Kunst.",
        ],
    },
    Case {
        id: "case_ru_en_homoglyph",
        first: "Russian",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "I went to the m\u{430}rk\u{435}t with my mother.",
            "She bought s\u{43e}m\u{435} bread and milk.",
            "We came h\u{43e}m\u{435} very late.",
        ],
    },
    Case {
        id: "case_es_nums",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &["123 456", "😂😂😂 42", "3.14 🎉 2026"],
    },
    Case {
        id: "case_es_zwsp",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Es muy import\u{200b}ante llegar temprano.",
            "La reunión es import\u{200b}ante para todos.",
            "Nada es tan import\u{200b}ante como la familia.",
        ],
    },
    Case {
        id: "case_es_links",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "https://example.com/a",
            "www.ejemplo.es 😂",
            "info@example.com 42",
        ],
    },
    Case {
        id: "case_ru_latin_in_ru",
        first: "Russian",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Я купил мoлoкo в магазине.",
            "Моя сестра рабoтает в больнице.",
            "Завтра мы пoедем на дачу.",
        ],
    },
];

#[test]
fn the_reviews_wrong_accepts_are_all_refused() {
    let mut passed = Vec::new();
    for case in WRONG_CASES {
        let texts: Vec<String> = case
            .texts
            .iter()
            .map(|t| {
                if case.multi_turn {
                    without_speaker_label(t).to_owned()
                } else {
                    (*t).to_owned()
                }
            })
            .collect();
        let m = LanguagePair::parse(case.first, case.second)
            .expect("a supported pair")
            .measure(&texts);
        // With the judges deciding undecided batches (the default), none is passed or left to
        // them: each is refused outright.
        let settings = GateSettings {
            undecided: GateUndecided::Judges,
            ..GateSettings::default()
        };
        let v = gate::decide(settings, Some(&m), Some(case.cs_type), case.multi_turn);
        if v.passed != Some(false) {
            passed.push(format!("{}: {v:?}", case.id));
        }
    }
    assert!(passed.is_empty(), "not refused:\n{}", passed.join("\n"));
}

/// The review's batches in a third language no shipped list holds (Galician, Asturian and
/// Esperanto beside Spanish–English; Afrikaans and Luxembourgish beside German–English;
/// Haitian Creole beside French–English; Sicilian beside Italian–English): each was `ok` or
/// `low_coverage` without a third language, so the gate passed it or left it to the judges, who
/// accepted it at 10. Their words are in neither pair language's list (nor look like a known
/// third language) for 20–46% of the batch: each is now `low_coverage` with `third_language`
/// set, and refused.
const UNKNOWN_THIRD_LANGUAGES: &[Case] = &[
    Case {
        id: "case_wl_gl_in_es",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Mañá teño unha reunión co boss, it will be long.",
            "Onte fun á praia with my friends.",
            "Non sei se podo ir, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_ast_in_es",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Güei tengo una reunión col boss, it will be long.",
            "Ayeri fui a la playa with my friends.",
            "Nun sé si puedo dir, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_eo_in_es",
        first: "Spanish",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Hodiaŭ mi havas kunvenon kun la boss, it will be long.",
            "Hieraŭ mi iris al la plaĝo with my friends.",
            "Mi ne scias ĉu mi povas iri, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_af_in_de",
        first: "German",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Ek het vandag 'n meeting met die boss, it was long.",
            "Gister is ek strand toe with my friends.",
            "Ek weet nie of ek kan gaan nie, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_lb_in_de",
        first: "German",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Ech hunn haut e Meeting mam Boss, it was long.",
            "Gëschter war ech um Strand with my friends.",
            "Ech weess net ob ech ka goen, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_ht_in_fr",
        first: "French",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Mwen gen yon meeting ak boss la jodi a, it was long.",
            "Yè mwen te ale lanmè with my friends.",
            "Mwen pa konnen si m ka ale, I am so tired.",
        ],
    },
    Case {
        id: "case_wl_scn_in_it",
        first: "Italian",
        second: "English",
        cs_type: "Intrasentential",
        multi_turn: false,
        texts: &[
            "Oggi aiu na riunioni cu lu boss, it was long.",
            "Ajeri jivu a lu mari with my friends.",
            "Nun sacciu si pozzu jiri, I am so tired.",
        ],
    },
];

#[test]
fn third_languages_no_list_holds_are_never_ok_and_refused() {
    let mut wrong = Vec::new();
    for case in UNKNOWN_THIRD_LANGUAGES {
        let texts: Vec<String> = case.texts.iter().map(|t| (*t).to_owned()).collect();
        let m = LanguagePair::parse(case.first, case.second)
            .expect("a supported pair")
            .measure(&texts);
        let reason = m.status_reason.clone().unwrap_or_default();
        if m.status != codeswitch::MeasurementStatus::LowCoverage
            || m.third_language.is_none()
            || !reason.contains("not ")
        {
            wrong.push(format!("{}: measured {:?} {reason:?}", case.id, m.status));
        }
        for cs_type in ["Intrasentential", "Intersentential"] {
            let v = gate::decide(GateSettings::default(), Some(&m), Some(cs_type), false);
            if v.passed != Some(false) {
                wrong.push(format!("{} ({cs_type}): {v:?}", case.id));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The review's Spanish batch with one English word ("really") at the end of the third of three
/// long sentences, asked for inter-sentential switching: English is 1 of 72 tagged words
/// (1.4%), a token presence, yet the gate passed it ("both languages are present with switch
/// points"). A batch-level pass now needs the less used language to be more than that: two
/// firm words (in a one-text batch, or one that is 5% of the tagged words). A whole English
/// sentence among Spanish ones still passes, and so does a one-word insertion in a short
/// one-text batch (a real switch).
#[test]
fn a_token_presence_of_english_does_not_pass_a_batch_level_gate() {
    let pair = LanguagePair::parse("Spanish", "English").expect("a supported pair");
    let one_in_sixty = [
        "Ayer por la mañana fui al mercado con mi madre y compramos frutas, verduras, pan y \
         queso para toda la semana, y después tomamos un café en la plaza.",
        "Mi hermano trabaja en una empresa grande del centro de la ciudad y siempre llega tarde \
         a casa porque hay mucho tráfico en las calles principales.",
        "Este fin de semana vamos a visitar a mis abuelos en el pueblo y vamos a comer una \
         paella enorme, really.",
    ]
    .map(str::to_owned);
    let m = pair.measure(&one_in_sixty);
    for cs_type in [Some("Intersentential"), Some("Extrasentential"), None] {
        let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
        assert_eq!(v.passed, Some(false), "{cs_type:?}: {v:?}");
        assert!(v.reason.contains("token presence"), "{v:?}");
    }
    // A real inter-sentential batch: a whole English sentence among Spanish ones (in a text,
    // or as a turn of a conversation).
    let mut inter = one_in_sixty.clone();
    inter[2] = "Este fin de semana vamos a visitar a mis abuelos en el pueblo. We are going to \
                eat a huge paella."
        .to_owned();
    let m = pair.measure(&inter);
    let v = gate::decide(
        GateSettings::default(),
        Some(&m),
        Some("Intersentential"),
        false,
    );
    assert_eq!(v.passed, Some(true), "{v:?}");
    inter[2] = "We are going to eat a huge paella with my grandparents.".to_owned();
    let m = pair.measure(&inter);
    let v = gate::decide(
        GateSettings::default(),
        Some(&m),
        Some("Intersentential"),
        true,
    );
    assert_eq!(v.passed, Some(true), "{v:?}");
    // One English word in a short text is a real switch: 1 of 7 words.
    let short = ["Mañana tengo una reunión muy importante, really.".to_owned()];
    let m = pair.measure(&short);
    let v = gate::decide(GateSettings::default(), Some(&m), None, false);
    assert_eq!(v.passed, Some(true), "{v:?} {m:?}");
}
