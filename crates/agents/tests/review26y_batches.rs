//! Issue 26, break-it review 26y of rounds U and V (`tests/data/review26y_batches.txt`, sha256
//! `c7020c05…`): 64 batches (35 not code switching, 29 real) written by a reviewer who read only
//! the user docs as of round V and ran each through `scenario-engine run` against a fake server
//! whose judges give 10 (BENCHMARKS.md, "Issue 26: review 26y and round W"), never the code or the word
//! lists. Round W mended what it found in round V's own mechanics: one function character of
//! Chinese or Japanese is no grammar (it is as often a syllable of a noun: "和牛", "网吧"), nor
//! are particle-shaped syllables of a word spelled in hiragana ("とんかつ"), the Japanese comma, the tilde and an emoji part a tag from the other language, and
//! accents (Arabic vowel signs, the tatweel, Russian stress marks) no longer hide a function
//! word. The batches the gate still gets wrong under `judges` are listed in [`KNOWN_OPEN`], and
//! the test fails when one of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26y_batches.txt");

/// Not fixed: titles, labels and jargon that read as clauses or are joined by punctuation, and
/// the islands rule's cost in the script-read languages (a one-word verb or adjective, a tag
/// with no comma), which it shares with the Latin-script ones ("This is so sedap").
const KNOWN_OPEN: &[(&str, &str)] = &[
    (
        "pedge_ko2",
        "Korean nouns ending in a particle-shaped syllable (민요, 가요) read as grammar in English text",
    ),
    (
        "ttl_ja1",
        "a Japanese film title with particles (君の名は) read as a clause",
    ),
    ("ttl_zh1", "Chinese titles of works read as a clause"),
    (
        "ttl_ru1",
        "Russian titles of works (\"Ну, погоди!\") read as a clause",
    ),
    (
        "ttl_hi1",
        "Hindi film titles in Devanagari (कुछ कुछ होता है) read as a clause",
    ),
    (
        "vfmt_pt1",
        "social-video format names (get ready with me) in Portuguese",
    ),
    (
        "vfmt_ko1",
        "social-video format names (what I eat in a day) in Korean",
    ),
    (
        "appo_ko1",
        "a trend label after a comma (quiet luxury) in Korean",
    ),
    (
        "appo_es1",
        "a trend label after a dash (clean girl) in Spanish",
    ),
    ("prnt_fr1", "parenting jargon (skin to skin) in French"),
    (
        "cryp_id1",
        "crypto catchphrases (to the moon) in Indonesian",
    ),
    (
        "exam_es1",
        "English-exam section names (use of English) in Spanish",
    ),
    (
        "odd_khyph",
        "K- compounds (K-뷰티) in Korean: undecided, which `judges` lets through and `auto` refuses",
    ),
    (
        "tagk_zh1",
        "real: a Chinese interjection with no comma (哎呀 I forgot) refused as an island",
    ),
    (
        "tagk_ar1",
        "real: an Arabic interjection with no comma (يلا let's go) refused as an island",
    ),
    (
        "tagk_ru1",
        "real: a Russian interjection with no comma (Блин I forgot) refused as an island",
    ),
    (
        "insv_ru1",
        "real: a one-word Russian verb in English text refused as a borrowing",
    ),
    (
        "insv_ko1",
        "real: a one-word Korean adjective (so 피곤해) refused as a borrowing",
    ),
    (
        "insv_zh1",
        "real: a one-character Chinese adjective (so 累) refused as a borrowing",
    ),
    (
        "insv_ja1",
        "real: a one-word Japanese adjective (so 眠い) refused as a borrowing",
    ),
    (
        "insv_ar1",
        "real: a one-word Arabic adjective (so تعبان) refused as a borrowing",
    ),
    (
        "insv_hi1",
        "real: a one-word Hindi adjective (so गुस्सा) refused as a borrowing",
    ),
    (
        "edge_ru2",
        "a dish name after a comma at a text's edge (оливье) read as a clause",
    ),
    (
        "edge_ko2",
        "a dish name after a comma at a text's edge (김치찌개) read as a clause",
    ),
    (
        "edge_zh2",
        "a dish name after a comma at a text's edge read as a clause",
    ),
    (
        "dishc_it1",
        "an Italian dish name at a text's start before a comma (gnocchi al pesto, as always)",
    ),
];

#[test]
fn review26y_batches_get_their_verdicts_but_the_known_open_ones() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 64);
    assert_eq!(all.iter().filter(|b| b.accept).count(), 29);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
