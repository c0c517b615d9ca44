//! Issue 26, round F of the code-switching gate (after the blind probe set 26i): punctuation
//! joins the two languages only where the other language's words reach the sentence's edge
//! from it (a clause or a tag of its own, not a dish name inside English text), a colon never
//! joins, and a function word both languages list is never taken for the other language's on
//! a `low_coverage` measurement; asked for inter-sentential switching, an English batch whose
//! other-language words are only greetings or set phrases at its texts' edges is tag
//! switching. Links, file names, hashtags and identifiers are no words, and
//! capitalised English titles inside the other language's text are names (the tagger; see
//! `codeswitch`'s tests). Every batch is refused outright, and real switches of the same shapes
//! still pass. The sentences were written for this test, not taken from the probe set.

use crate::gate_english;

use agents::gate;
use gate_english::{assert_passes, assert_refused_for, measure};
use runlog::GateSettings;

/// Every batch-level `cs_type` refuses the batch (never an undecided gate the judges decide).
fn assert_refused(first: &str, batch: &[&str]) {
    let batch_level = [Some("Intersentential"), Some("Extrasentential"), None];
    assert_refused_for(first, batch, &batch_level, false, "");
}

#[test]
fn a_dish_name_before_a_comma_inside_english_text_joins_nothing() {
    assert_refused(
        "Spanish",
        &[
            "We ordered more empanadas, so the waiter brought another tray.",
            "My uncle made paella for everyone, as he does every summer.",
            "After dinner we all had churros, which were still warm.",
        ],
    );
    assert_refused(
        "Italian",
        &[
            "She only wanted gnocchi al pesto, as always.",
            "We finished with tiramisu, then walked back to the hotel.",
            "The kids asked for more gelato, obviously.",
        ],
    );
}

#[test]
fn a_colon_after_a_dish_name_is_a_label_not_a_switch() {
    assert_refused(
        "Malay",
        &[
            "Nasi lemak: the best breakfast in town.",
            "Roti canai: crispy, warm and cheap.",
            "Teh tarik: always too sweet for me.",
        ],
    );
}

#[test]
fn a_clause_or_a_tag_at_the_edge_of_a_sentence_still_joins() {
    assert_passes(
        "Spanish",
        &[
            "No puedo hoy, I have a deadline.",
            "I'm so tired, ¿sabes?",
            "We should leave now, ya es tarde.",
        ],
        Some("Intersentential"),
    );
    assert_passes(
        "Malay",
        &[
            "Aku penat sangat, I just want to sleep.",
            "I told you already, jangan lupa.",
            "The meeting is at nine. Jangan lambat tau.",
        ],
        None,
    );
}

#[test]
fn greetings_at_the_edge_of_english_sentences_are_tags_not_inter_sentential_switching() {
    let batch = [
        "Buenos días! The train leaves at nine.",
        "Gracias, everyone, for waiting so long.",
        "See you all tomorrow, hasta luego.",
    ];
    let m = measure("Spanish", &batch);
    let v = gate::decide(
        GateSettings::default(),
        Some(&m),
        Some("Intersentential"),
        false,
    );
    assert_eq!(v.passed, Some(false), "{v:?}");
    assert!(v.reason.contains("tag switching"), "{}", v.reason);
    // Tag switching is what the batch shows: asked for it (or for no type), it passes.
    assert_passes("Spanish", &batch, Some("Extrasentential"));
    assert_passes("Spanish", &batch, None);
    // A clause of the other language is more than a tag.
    assert_passes(
        "Spanish",
        &[
            "The train leaves at nine. No quiero llegar tarde otra vez.",
            "Thanks for waiting, ya casi estamos listos.",
            "See you all tomorrow, hasta luego.",
        ],
        Some("Intersentential"),
    );
}
