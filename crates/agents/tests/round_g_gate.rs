//! Issue 26, round G of the code-switching gate (after the blind probe set 26k): a language
//! whose firm words are all quoted, in parentheses or in backticks is mentioned, not switched
//! to; texts that alternate languages every word or two are a word-by-word rendering; an
//! other-language clause joins English at punctuation only when no English word stands in it;
//! English clitics ("I'm", "let's", "don't") are firm English beside any language; a mail's
//! confidentiality notice is boilerplate and a file path with spaces is no words (the tagger;
//! see `codeswitch`'s tests). Every batch is refused outright, and real switches of the same
//! shapes still pass. The sentences were written for this test, not taken from the probe set.

use crate::gate_english;

use gate_english::{assert_passes, assert_refused_for};

/// Every `cs_type` refuses the batch (never an undecided gate the judges decide), with a
/// reason that contains `why`.
fn assert_refused(first: &str, batch: &[&str], why: &str) {
    let all = [
        Some("Intrasentential"),
        Some("Intersentential"),
        Some("Extrasentential"),
        None,
    ];
    assert_refused_for(first, batch, &all, false, why);
}

#[test]
fn quoted_signs_slogans_and_lyrics_are_mentions_not_switches() {
    assert_refused(
        "Spanish",
        &[
            "En la puerta del bar había un cartel que decía \"Cash only\" desde el lunes.",
            "Mi vecino lleva una gorra con “Born to be wild” bordado en rojo.",
            "En la fiesta todos cantamos «we are young» hasta las tres.",
        ],
        "quoted",
    );
    assert_refused(
        "German",
        &[
            "Auf dem Schild am Eingang stand „Staff only“, also sind wir umgekehrt.",
            "Meine Schwester hat sich „Carpe diem, baby“ auf den Arm tätowieren lassen.",
            "Im Auto haben wir laut „living on a prayer“ mitgesungen.",
        ],
        "quoted",
    );
}

#[test]
fn glosses_in_parentheses_and_code_in_backticks_are_mentions_not_switches() {
    assert_refused(
        "Portuguese",
        &[
            "No almoço comemos moqueca (a fish stew with coconut milk) e farofa.",
            "A palavra cafuné (stroking someone's hair) é difícil de traduzir.",
            "Minha avó faz brigadeiro (chocolate fudge balls) todo domingo.",
        ],
        "quoted",
    );
    assert_refused(
        "Malay",
        &[
            "Lepas tu kau taip `npm run dev` dalam terminal.",
            "Kalau ralat, cuba `git stash` dulu sebelum tarik semula.",
            "Jangan lupa jalankan `docker compose down` bila dah siap.",
        ],
        "quoted",
    );
}

#[test]
fn a_quote_beside_a_real_switch_still_passes() {
    assert_passes(
        "Spanish",
        &[
            "Le dije que no, because honestly I was too tired.",
            "Mi jefe puso \"Out of office\" en su correo, so I just waited.",
            "Ya llegué a casa, but the door was locked again.",
        ],
        None,
    );
}

#[test]
fn alternation_every_word_or_two_is_a_word_by_word_rendering() {
    assert_refused(
        "Spanish",
        &[
            "Mi padre want ir to la bank para sacar some dinero and pagar the renta.",
            "Nosotros go a la beach este weekend si the tiempo es good.",
            "Mi amiga said que la party es at nueve en the casa de Pedro.",
        ],
        "word-by-word",
    );
}

#[test]
fn switches_at_phrases_and_clauses_are_not_word_by_word() {
    assert_passes(
        "Spanish",
        &[
            "Ayer fuimos al centro comercial and we bought a lot of stuff for the party.",
            "Mi hermana dice que the new teacher is really strict con todos los alumnos.",
            "No sé si puedo ir mañana because I have a meeting at nine in the morning.",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn english_clitics_are_firm_beside_tagalog() {
    assert_passes(
        "Tagalog",
        &[
            "Let's kain muna bago tayo umalis ng bahay.",
            "I'm sobrang pagod na talaga ngayong gabi.",
            "Don't mag-alala, ako na ang bahala sa lahat.",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn a_confidentiality_notice_and_a_path_with_spaces_are_no_english() {
    assert_refused(
        "Spanish",
        &[
            "Hola Marta:\nte mando el contrato revisado, fírmalo cuando puedas.\nUn abrazo,\nLuis\nThis email is confidential and intended solely for the addressee.",
            "Buenos días:\nla reunión pasa al jueves a las diez.\nSaludos,\nElena\nThe information contained in this message is privileged and confidential.",
            "Las fotos del viaje están en C:/Users/Ana/My Pictures/Beach Trip y no hay que borrarlas.",
        ],
        "",
    );
}

#[test]
fn an_island_after_an_english_word_does_not_join_at_a_comma() {
    let batch_level = [Some("Intersentential"), Some("Extrasentential"), None];
    assert_refused_for(
        "Tagalog",
        &[
            "After simbang gabi, we always have bibingka and puto with my lola.",
            "Every Sunday my tita cooks pancit for the whole family.",
            "My tito brought lechon and leche flan to the reunion.",
        ],
        &batch_level,
        false,
        "islands",
    );
}
