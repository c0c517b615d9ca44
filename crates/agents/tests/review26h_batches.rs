//! Issue 26, hostile gate review 26h (`tests/data/review26h_batches.txt`: every batch of the
//! review's case files, with its `cs_type`, conversation type and gate settings): with the
//! judges at 10, a batch that is not code switching in the pair must be refused (a pass, or an
//! undecided gate under `gate.undecided: judges`, would accept it), and each of the 39 real
//! code-switched batches must not be refused.
//!
//! What the review found, and what now holds: function words of title-cased titles ("Let It
//! Be", "Catch Me If You Can") and joining words after a word cut with an apostrophe
//! ("Singin' in the Rain") were firm English; Markdown speaker labels (`**Teacher:**`) were
//! measured; mail lines outside the short boilerplate list ("Thanks and regards,", "Sent with
//! Proton Mail", "On … wrote:", forwarded-message markers, do-not-reply notices) were English;
//! the other language's dish names and fixed phrases in English text ("arroz con pollo", "nasi
//! lemak") passed as switching; characters that cut a word ("Ten/go", "Ten・go", emoji) exposed
//! English pieces. Round E: dish names that outnumber the English around them, loan phrases
//! beside a look-alike read as English, romanized Hindi islands and low-coverage islands are
//! refused as borrowings; romanized batches with one firm English word as a token presence;
//! syllables cut with hyphens are not firm; a conversation asked for intra-sentential switching
//! may have a monolingual turn. The batches the gate still gets wrong are listed in
//! [`KNOWN_OPEN`], each with why; the test fails when one of them is fixed too, so the list
//! stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26h_batches.txt");

/// Batches the gate still gets wrong: accepted (or left to the judges) although they are not
/// code switching in the pair, or real and refused; and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    (
        "t_id_in_ms",
        "Indonesian beside Malay is not a third language (documented)",
    ),
    (
        "n_es_lower_title_inter",
        "lower-case titles (\"the office\") read as English",
    ),
    (
        "n_es_lower_title_tag",
        "lower-case titles (\"the office\") read as English",
    ),
    (
        "lo_de_in_inter",
        "English loans established in German or Italian",
    ),
    (
        "lo_de_in_tag",
        "English loans established in German or Italian",
    ),
    (
        "lo_it_in_inter",
        "English loans established in German or Italian",
    ),
    (
        "lo_it_in_tag",
        "English loans established in German or Italian",
    ),
    (
        "lg_es_names_pad",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "lg_es_numbers_pad",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    ("r_tl2", "real, refused: \"okay\" is language-neutral"),
    (
        "r_id2",
        "real, refused: \"mall\" is an Indonesian loan and \"okay\" neutral",
    ),
    (
        "r_ms_tag",
        "real, refused: \"okay\", \"alright\", \"you know\" are not firm beside Malay",
    ),
    (
        "r_tl_hi_dense",
        "real, refused: \"travel\", \"next\", \"year\" are in the Filipino list too",
    ),
    (
        "n2_hi_letitbe",
        "two firm English words (\"bathroom\", \"dance\") beside the titles: insertions the gate cannot tell from switching",
    ),
    (
        "lo2_it_music",
        "low coverage, and \"allegro ma non troppo\" is a four-word run of Italian: a possible clause, undecided",
    ),
    (
        "lg2_fr_names",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "lg2_de_numbers",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "lg2_it_emoji",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "lg2_ms_names",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "lg2_es_intra_names",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "r2_tl_taglish",
        "real, refused: \"sorry\" is in the Filipino list too",
    ),
    (
        "x5_de_loans",
        "English loans established in German or Italian",
    ),
    (
        "x6_numbers_pad",
        "discourse words after names or numbers are 5% or more of every word, set off by a comma as a real tag is",
    ),
    (
        "x9_id_in_ms",
        "Indonesian beside Malay is not a third language (documented)",
    ),
];

#[test]
fn the_hostile_reviews_batches_get_the_verdicts_users_expect() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 466, "the review's 466 batches");
    assert_eq!(all.iter().filter(|b| b.accept).count(), 39);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
