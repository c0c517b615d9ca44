//! Issue 26: monolingual batches with planted look-alike words ("red" in Spanish, "chat" and
//! "but" in French, "also", "will", "total" and "Brot" in German, "bank" in English beside
//! German, "log" and "chai" in Hinglish) are never passed by the gate and never accepted with
//! every judge at 10; a batch in a third language (Portuguese beside Spanish–English, Tagalog
//! beside Malay–English) is never measured `ok`; real code-switched batches of the same pairs
//! still pass. The sentences were written for this test.

use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;

use agents::{Pipeline, PipelineSettings, RunOutcome, ScenarioRun, gate};
use codeswitch::{LanguagePair, MeasurementStatus, ScriptHint};
use runlog::{AgentKind, GateSettings, RatioJudgeMode};
use scenarios::Scenario;
use serde_json::{Value, json};
use support::{judge_reply, ok};

/// (first language, second language, batch): monolingual, with look-alikes planted.
const MONOLINGUAL: &[(&str, &str, &[&str])] = &[
    (
        "Spanish",
        "English",
        &[
            "La red del colegio no funciona desde esta mañana.",
            "En total somos doce personas para la cena del sábado.",
            "Mi hermana trabaja en un hospital cerca del centro.",
            "Ayer vimos una película muy divertida con los niños.",
        ],
    ),
    (
        "French",
        "English",
        &[
            "Le chat dort sur le canapé depuis ce matin.",
            "Le but du jeu est de finir avant les autres.",
            "On se retrouve sur la place du marché à midi.",
            "Ma mère prépare une soupe aux légumes pour ce soir.",
        ],
    ),
    (
        "German",
        "English",
        &[
            "Wir haben Brot, Käse und Obst gekauft.",
            "Ich will heute Abend nicht kochen, also bestellen wir Pizza.",
            "Das Konzert war total ausverkauft.",
            "Meine Oma sitzt gern auf der Bank im Park.",
        ],
    ),
    (
        "German",
        "English",
        &[
            "I need to go to the bank before it closes.",
            "She will also bring the kids to the party.",
            "We sat in the garden and talked for hours.",
        ],
    ),
    (
        "Italian",
        "English",
        &[
            "Come stai oggi? Spero tutto bene.",
            "Abbiamo mangiato una pizza con gli amici.",
            "Il sale è finito, devo comprarlo domani.",
            "Mio fratello lavora in banca da dieci anni.",
        ],
    ),
    (
        "Malay",
        "English",
        &[
            "Saya pergi ke bank pagi tadi untuk buka akaun.",
            "Kami makan nasi lemak di kedai mamak semalam.",
            "Jumlah total belanja bulan ini agak tinggi.",
            "Adik saya suka main bola di padang.",
        ],
    ),
    (
        "Hindi",
        "English",
        &[
            "Aaj subah maine chai pi aur phir kaam pe nikal gaya.",
            "Yeh log kal raat der tak baatein karte rahe.",
            "Main kal tumhare ghar aaunga.",
            "Maa ne khana bana diya hai, jaldi aa jao.",
        ],
    ),
];

/// Real code-switched batches of the same pairs: they must still pass.
const MIXED: &[(&str, &str, &[&str])] = &[
    (
        "Spanish",
        "English",
        &[
            "Hoy el equipo played really well en el partido.",
            "Mi hermano dice que the coach is amazing.",
            "Vamos al estadio, it is going to be great.",
        ],
    ),
    (
        "French",
        "English",
        &[
            "Je suis tellement tired aujourd'hui, I need coffee.",
            "On va au cinéma ce soir, do you want to come?",
            "C'est vraiment cool, the movie was amazing.",
        ],
    ),
    (
        "German",
        "English",
        &[
            "Ich habe heute so viel work, I can't even think.",
            "Lass uns morgen treffen, maybe at the coffee shop.",
            "Das Meeting war so boring, honestly.",
        ],
    ),
    (
        "Italian",
        "English",
        &[
            "Oggi sono molto stanca, I really need a break.",
            "Andiamo al mare this weekend, what do you think?",
            "Il film era bello but the ending was weird.",
        ],
    ),
    (
        "Malay",
        "English",
        &[
            "Saya dah siap kerja, so we can go now.",
            "Dia cakap the meeting is cancelled.",
            "Jom makan, I'm so hungry right now.",
        ],
    ),
    (
        "Hindi",
        "English",
        &[
            "Yaar aaj ka lecture bahut boring tha, seriously.",
            "Mujhe lagta hai project deadline tak complete nahi hoga.",
            "Please mujhe woh report jaldi email kar do.",
        ],
    ),
];

fn texts(batch: &[&str]) -> Vec<String> {
    batch.iter().map(|s| (*s).to_owned()).collect()
}

fn script(first: &str) -> Option<ScriptHint> {
    (first == "Hindi").then_some(ScriptHint::Romanized)
}

fn measure(first: &str, second: &str, batch: &[&str]) -> codeswitch::Measurement {
    LanguagePair::parse(first, second)
        .expect("a supported pair")
        .measure_with(&texts(batch), script(first))
}

#[test]
fn monolingual_batches_with_look_alikes_never_pass_the_gate() {
    for (first, second, batch) in MONOLINGUAL {
        let m = measure(first, second, batch);
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
            assert_ne!(
                v.passed,
                Some(true),
                "{first}–{second} {cs_type:?} passed: {v:?}\n{m:?}"
            );
        }
        // An `ok` measurement is decided, not left to the judges.
        if m.status == MeasurementStatus::Ok {
            let v = gate::decide(GateSettings::default(), Some(&m), None, false);
            assert_eq!(v.passed, Some(false), "{first}–{second}: {v:?}");
        }
    }
}

#[test]
fn real_code_switched_batches_still_pass_the_gate() {
    for (first, second, batch) in MIXED {
        let m = measure(first, second, batch);
        assert_eq!(m.status, MeasurementStatus::Ok, "{first}–{second}: {m:?}");
        for cs_type in [Some("Intrasentential"), None] {
            let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
            assert_eq!(
                v.passed,
                Some(true),
                "{first}–{second} {cs_type:?}: {v:?}\n{m:?}"
            );
        }
    }
}

#[test]
fn a_third_language_is_never_ok_and_fails_the_gate() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        (
            "Spanish",
            "English",
            &[
                "Eu não sei o que fazer com o meu trabalho amanhã.",
                "A reunião foi muito longa e cansativa.",
                "Vamos almoçar juntos depois do meeting?",
            ],
            "Portuguese",
        ),
        (
            "Malay",
            "English",
            &[
                "Kumain na ako ng almusal kanina.",
                "Hindi ko alam kung saan siya pupunta bukas.",
                "Ang ganda ng panahon ngayon, let's go sa beach!",
            ],
            "Tagalog",
        ),
    ];
    for (first, second, batch, language) in cases {
        let m = measure(first, second, batch);
        assert_eq!(m.status, MeasurementStatus::LowCoverage, "{m:?}");
        let reason = m.status_reason.clone().unwrap_or_default();
        assert!(reason.contains(language), "{reason}");
        let v = gate::decide(GateSettings::default(), Some(&m), None, false);
        assert_eq!(v.passed, Some(false), "{v:?}");
        assert!(v.reason.contains(language), "{}", v.reason);
    }
    // Indonesian beside Malay is not a third language: the two are too close to tell apart.
    let m = measure(
        "Malay",
        "English",
        &[
            "Saya sudah makan, tapi I'm still hungry.",
            "Besok kita pergi ke pasar, okay?",
        ],
    );
    assert!(m.third_language.is_none(), "{m:?}");
}

/// Runs one scenario of the pair whose generator writes `batch` and whose judges all give 10;
/// no refinement, so the gate's verdict on that batch decides.
fn run_with_judges_at_ten(
    first: &str,
    second: &str,
    cs_type: &str,
    batch: &[&str],
) -> runlog::ScenarioRecord {
    let mut params: BTreeMap<String, Value> = [
        ("first_language", json!(first)),
        ("second_language", json!(second)),
        ("cs_ratio", json!("30%")),
        ("cs_type", json!(cs_type)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if first == "Hindi" {
        params.insert("script".to_owned(), json!("romanized"));
    }
    let settings = PipelineSettings {
        ratio_judge: RatioJudgeMode::Llm,
        max_refinements: 0,
        ..PipelineSettings::default()
    };
    let pipeline = Arc::new(Pipeline::new(settings).expect("valid settings"));
    let mut run = ScenarioRun::new(pipeline, Scenario::new(1, params));
    let calls = run.pending();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].agent, AgentKind::Generator);
    run.absorb(&calls[0].key, ok(json!({ "instances": batch })))
        .expect("known key");
    while !run.is_done() {
        let calls = run.pending();
        assert!(!calls.is_empty(), "a run that is not done has calls");
        for call in calls {
            run.absorb(&call.key, ok(judge_reply(call.agent, 10.0)))
                .expect("known key");
        }
    }
    match run.finish() {
        RunOutcome::Finished(r) => *r,
        RunOutcome::Failed(f) => panic!("failed: {}", f.reason),
    }
}

#[test]
fn the_pipeline_never_accepts_them_with_every_judge_at_ten() {
    for (first, second, batch) in MONOLINGUAL {
        for cs_type in ["Intrasentential", "Intersentential"] {
            let r = run_with_judges_at_ten(first, second, cs_type, batch);
            assert!(
                !r.accepted,
                "{first}–{second} {cs_type}: accepted with gate {:?}",
                r.gate
            );
            assert_eq!(r.gate.as_ref().and_then(|g| g.passed), Some(false));
        }
    }
    // The control: a real code-switched batch is accepted the same way.
    let (first, second, batch) = MIXED[0];
    let r = run_with_judges_at_ten(first, second, "Intrasentential", batch);
    assert!(r.accepted, "{:?}", r.gate);
}

/// Issue 26: a real code-switched batch whose every switch is a look-alike (English words the
/// Malay list holds too: "free", "go", "online", "order") cannot be told from a monolingual one.
/// (Its first text said "Let's go makan" until round G made English clitics such as "let's"
/// firm; "Jom go makan" keeps the batch's every switch a look-alike.)
/// It is refused as undecided — the reason says the gate could not tell, not that the batch is
/// monolingual — and never accepted, whatever the judges score (the trade-off: such a batch is
/// lost to the dataset; BENCHMARKS.md, "after uncertainty bounds").
#[test]
fn a_switch_that_rests_on_look_alikes_alone_is_refused_as_could_not_tell() {
    let batch: &[&str] = &[
        "Dia free tak malam ni? Jom go makan.",
        "Kita order online je lah.",
        "Saya dah order tadi, nanti kita check.",
    ];
    let m = measure("Malay", "English", batch);
    for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
        let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
        assert_eq!(v.passed, Some(false), "{v:?}\n{m:?}");
        assert!(v.reason.contains("could not tell"), "{}", v.reason);
        assert!(!v.reason.contains("is monolingual"), "{}", v.reason);
    }
    let r = run_with_judges_at_ten("Malay", "English", "Intersentential", batch);
    assert!(!r.accepted, "{:?}", r.gate);
}

/// Round C of issue 26: Portuguese, Tagalog and Indonesian with English are measured pairs
/// now (they were undecided, so the judges accepted monolingual batches at 10). Monolingual
/// batches with planted look-alikes ("real", "come", "total"; Tagalog "at", "may"; Indonesian
/// "bank", "data") are refused outright — not left to the judges; a batch in a third language
/// (Spanish in a Portuguese–English scenario) is not `ok`; real code-switched batches pass.
/// The sentences were written for this test.
#[test]
fn the_round_c_pairs_are_measured_refusing_monolingual_batches_and_passing_real_ones() {
    let monolingual: &[(&str, &[&str])] = &[
        (
            "Portuguese",
            &[
                "O preço real da casa ficou bem acima do anunciado.",
                "Ela come sempre uma fruta depois do almoço.",
                "No total gastamos quase duzentos reais na feira.",
                "Meu avô conta histórias da fazenda todo domingo.",
            ],
        ),
        (
            "Tagalog",
            &[
                "May bagong tindahan sa kanto at mura ang mga gulay doon.",
                "Nagluto si Nanay ng adobo para sa hapunan namin.",
                "Ang kapatid ko ay nag-aaral sa Maynila ngayong taon.",
                "Umuulan kaya hindi kami nakapunta sa palengke.",
            ],
        ),
        (
            "Indonesian",
            &[
                "Ibu saya bekerja di bank dekat alun-alun kota.",
                "Data penduduk desa itu sudah diperbarui bulan lalu.",
                "Kami makan malam bersama keluarga di rumah nenek.",
                "Adik saya sedang belajar untuk ujian besok pagi.",
            ],
        ),
    ];
    for (first, batch) in monolingual {
        let m = measure(first, "English", batch);
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
            assert_eq!(
                v.passed,
                Some(false),
                "{first}–English {cs_type:?} not refused: {v:?}\n{m:?}"
            );
        }
    }
    let mixed: &[(&str, &[&str])] = &[
        (
            "Portuguese",
            &[
                "Hoje o trabalho foi pesado, I just want to sleep.",
                "A gente pode se encontrar later, what do you think?",
                "Minha chefe disse que the project is on hold.",
            ],
        ),
        (
            "Tagalog",
            &[
                "Ang sarap ng kape dito, I could stay here all day.",
                "Hindi pa ako tapos, can you wait for me?",
                "Sabi niya na the party starts at seven.",
            ],
        ),
        (
            "Indonesian",
            &[
                "Aku capek banget hari ini, I just want to go home.",
                "Kita ketemu di kafe aja, what time works for you?",
                "Katanya the concert was cancelled karena hujan.",
            ],
        ),
    ];
    for (first, batch) in mixed {
        let m = measure(first, "English", batch);
        assert_eq!(m.status, MeasurementStatus::Ok, "{first}–English: {m:?}");
        for cs_type in [Some("Intrasentential"), None] {
            let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
            assert_eq!(
                v.passed,
                Some(true),
                "{first}–English {cs_type:?}: {v:?}\n{m:?}"
            );
        }
    }
    // Spanish in a Portuguese–English scenario is a third language, never `ok`.
    let m = measure(
        "Portuguese",
        "English",
        &[
            "Ayer fuimos al cine con mis primos y después cenamos.",
            "Mañana tengo que trabajar hasta muy tarde, qué pena.",
            "¿Quieres venir con nosotros el sábado por la noche?",
        ],
    );
    assert_ne!(m.status, MeasurementStatus::Ok, "{m:?}");
    let v = gate::decide(GateSettings::default(), Some(&m), None, false);
    assert_eq!(v.passed, Some(false), "{v:?}");
    // Malay beside Indonesian is not a third language (nor Indonesian beside Malay).
    let m = measure(
        "Indonesian",
        "English",
        &[
            "Saya nak pergi kedai sekejap, you want anything?",
            "Awak dah makan ke belum? Let's grab lunch.",
        ],
    );
    assert!(m.third_language.is_none(), "{m:?}");
}

/// Round C of issue 26: English text with established loans from the other language of the
/// pair ("coup de grâce", "al dente", "siesta") is not code switching, and e-mail boilerplate
/// ("Subject:", "Sent from my iPhone", "Kind regards") is no evidence of English in mail
/// written in the other language: refused outright with the judges at 10. The same loans beside
/// a real switch do not stop it passing. The sentences were written for this test.
#[test]
fn loans_in_english_and_mail_boilerplate_are_not_switching() {
    let refused: &[(&str, &[&str])] = &[
        (
            "French",
            &[
                "The final goal was the coup de grâce for the visiting team.",
                "We ordered the soup à la carte and a croissant for later.",
                "Her fiancé had a certain je ne sais quoi that everyone noticed.",
            ],
        ),
        (
            "Italian",
            &[
                "Cook the pasta al dente and serve it al fresco on the terrace.",
                "He ordered an espresso while the paparazzi waited outside.",
                "The choir sang a cappella for the whole evening.",
            ],
        ),
        (
            "Spanish",
            &[
                "After lunch we always take a siesta in the shade.",
                "The kids broke the piñata at the birthday fiesta.",
                "Add one jalapeño to the quesadilla if you like it hot.",
            ],
        ),
        (
            "Spanish",
            &[
                "Subject: cambio de horario para el viernes",
                "Buenos días, el viernes salimos a las tres por la revisión del edificio.",
                "Kind regards,",
                "Sent from my iPhone",
            ],
        ),
    ];
    for (language, batch) in refused {
        let m = measure(language, "English", batch);
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
            assert_eq!(
                v.passed,
                Some(false),
                "{language}–English {cs_type:?} not refused: {v:?}\n{m:?}"
            );
        }
    }
    // A real switch beside a loan and a mail header still passes.
    let m = measure(
        "Spanish",
        "English",
        &[
            "Subject: la fiesta del sábado",
            "Oigan, la fiesta empieza a las ocho, so don't be late please.",
            "Traigan algo de comer, maybe some chips or a salad.",
        ],
    );
    let v = gate::decide(GateSettings::default(), Some(&m), None, false);
    assert_eq!(v.passed, Some(true), "{v:?}\n{m:?}");
}
