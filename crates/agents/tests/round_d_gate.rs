//! Issue 26, round D of the code-switching gate (review 26h): titles written in title case
//! ("Let It Be") are names, whatever function words they hold; Markdown speaker labels
//! (`**Nurse:**`) are no words; more e-mail boilerplate (composed sign-offs, mail programs'
//! notices, reply attributions) is no evidence of English; English text whose other-language
//! words are only borrowed islands (dish names, fixed phrases) is not switching; a token
//! presence is counted over every word, so names and numbers do not hide it; characters that
//! cut a word ("in/for/me", "co・mer", "le🎵che") do not expose English pieces. Every batch
//! is refused outright (never left to the judges), and real switches of the same shapes still
//! pass. The sentences were written for this test.

use crate::gate_english;

use codeswitch::without_speaker_label;
use gate_english::{assert_passes, assert_refused_for, measure};

/// Every `cs_type` the gate tells apart refuses the batch (a refusal, not an undecided gate
/// that would leave it to the judges).
fn assert_refused(first: &str, batch: &[&str], multi_turn: bool) {
    let types = [Some("Intrasentential"), Some("Intersentential"), None];
    assert_refused_for(first, batch, &types, multi_turn, "");
}

#[test]
fn titles_in_title_case_are_names_with_their_function_words() {
    assert_refused(
        "Spanish",
        &[
            "Mi abuelo silba Fly Me to the Moon mientras cocina.",
            "Anoche pusieron Take Me Home Tonight en la radio.",
            "Los chicos vieron Dancin' in the Dark tres veces.",
        ],
        false,
    );
    assert_refused(
        "Italian",
        &[
            "Mia cugina canta sempre Don't Stop Me Now sotto la doccia.",
            "Abbiamo rivisto Who Framed Roger Rabbit con i bambini.",
            "Il prof ci ha fatto leggere All the Things You Are in classe.",
        ],
        false,
    );
    // An English clause written in ordinary case is still a switch.
    assert_passes(
        "Spanish",
        &[
            "Mi abuelo silba mientras cocina, and he never stops.",
            "Anoche pusieron una canción vieja, I loved it.",
        ],
        Some("Intrasentential"),
    );
}

#[test]
fn markdown_speaker_labels_are_no_words() {
    let turns = [
        "**Nurse:** Buenos días, ¿cómo durmió?",
        "**Patient:** Mal, me dolía la espalda.",
        "*Nurse:* Ahora le traigo algo para el dolor.",
    ];
    let spoken: Vec<&str> = turns.iter().map(|t| without_speaker_label(t)).collect();
    assert_eq!(spoken[0], "Buenos días, ¿cómo durmió?");
    assert_refused("Spanish", &spoken, true);
}

#[test]
fn composed_sign_offs_and_mail_notices_are_no_evidence_of_english() {
    assert_refused(
        "Portuguese",
        &[
            "Olá Rita,\nsegue em anexo a proposta revista.\nThanks & kind regards,\nTiago",
            "Olá Tiago,\nobrigada, vou ler hoje à noite.\nMany thanks and warm wishes,\nRita",
            "On Wed, 5 Feb 2025 at 10:02, Rita Lopes <rita@example.pt> wrote:\n> obrigada\nCombinado, falamos amanhã.",
        ],
        false,
    );
    assert_refused(
        "French",
        &[
            "Bonjour,\nvotre colis sera livré demain matin.\nPlease do not reply to this email.",
            "-------- Forwarded message --------\nBonjour à tous, la réunion est reportée à jeudi.",
            "Merci de confirmer votre présence.\nSent with Tuta secure mail",
        ],
        false,
    );
    // A real switch in the body of a mail with a sign-off still passes.
    assert_passes(
        "Portuguese",
        &[
            "Olá Rita,\nsegue a proposta, let me know what you think.\nThanks & kind regards,\nTiago",
            "Olá Tiago,\nobrigada, I'll read it tonight.\nRita",
        ],
        None,
    );
}

#[test]
fn borrowed_islands_in_english_text_are_not_switching() {
    assert_refused(
        "Spanish",
        &[
            "For dinner we made sopa de lima and a big salad.",
            "The bakery sells conchas and ojo de buey on Sundays.",
            "Grandpa always orders huevos rancheros at that diner.",
        ],
        false,
    );
    assert_refused(
        "Italian",
        &[
            "We shared a plate of pasta e fagioli by the window.",
            "Dessert was panna cotta with fresh berries.",
            "He ended the night with a glass of vin santo.",
        ],
        false,
    );
    // A switch into the other language with its own joining words, or a clause of it, passes.
    assert_passes(
        "Spanish",
        &[
            "For dinner we made soup, pero nadie quiso comer.",
            "The bakery was closed, así que compramos pan en el súper.",
        ],
        None,
    );
    assert_passes(
        "Italian",
        &[
            "We shared a plate of pasta, e poi siamo andati al mare.",
            "Dessert was great ma il caffè era freddo.",
        ],
        None,
    );
}

#[test]
fn a_token_presence_is_counted_over_every_word() {
    // Two English words among four texts of mostly names: 2 of 8 tagged words, but 2 of 45
    // words (4.4%).
    assert_refused(
        "Spanish",
        &[
            "Invitamos a Carlos, Elena, Rubén, Marta, Iván, Nuria, Sergio y Paula, obviously.",
            "Vinieron Óscar, Irene, Raúl, Alba, Hugo, Lola, Bruno, Vera y Gael.",
            "Faltaron Noa, Leo, Zoe, Íker, Ada, Eric, Lía, Pau y Teo, sadly.",
            "Llegaron tarde Mía, Gala, Enzo, Luz, Dani, Sara, Olga y Tomás.",
        ],
        false,
    );
}

#[test]
fn characters_that_cut_a_word_do_not_expose_english_pieces() {
    let cut = [
        "Ya ter/mi/né el in/for/me.",
        "Mi her/mano for/mó un equipo.",
        "Va・mos a co・mer a las dos.",
        "Quie\u{1F3B5}ro un ca\u{2011}fé con le\u{1F3B5}che.",
    ];
    // No piece ("in", "for", "me", "mer") is read as English: the words are whole again.
    let m = measure("Spanish", &cut);
    assert_eq!(m.tagged.second, 0, "{m:?}");
    assert_refused("Spanish", &cut, false);
    // A slash between two whole words of the two languages keeps both.
    assert_passes(
        "Spanish",
        &[
            "Trae la comida/snacks para la fiesta, we will be hungry.",
            "Mañana vamos al parque, and then we can grab dinner.",
        ],
        None,
    );
}
