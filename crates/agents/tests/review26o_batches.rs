//! Issue 26, blind gate probe set 26o (`tests/data/review26o_batches.txt`): 90 batches written
//! by a writer who read only the gate's user docs as of round J and the file format, never the
//! code, the word lists or an earlier probe set — 46 that are not code switching in their pair
//! and 44 real code-switched ones that resemble them (transliterations, pseudo-anglicisms,
//! third languages of the script, brand names, system messages, commands and code, headers,
//! song lines, laughter, tag lists, placeholders, Latin terms, vocables). With the judges at
//! 10, a batch that is not code switching must be refused and a real one must not be.
//! Measured once on round K, written before the set was read (27 wrong accepts, no real batch
//! refused: BENCHMARKS.md, "Issue 26: rounds K and L"); round L, shaped by 26o, reads the
//! pair's own language transliterated beside its script as no English (23 and 0); round M, shaped
//! by 26p, reads the labels of a post ("Edit:", "Pros:", "Step 1:") as no word (22); round S,
//! words a labelling or naming word only mentions as no switch (19). The batches
//! the gate still gets wrong are listed in [`KNOWN_OPEN`] with why, and the test fails when
//! one of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26o_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Wrongly accepted.
    (
        "sys_es1",
        "an app or system message not on the notice lists",
    ),
    (
        "tag_fr1",
        "a list of tags with the '#' dropped: its words read as English",
    ),
    (
        "sgn_de1",
        "a sign reported without a colon or quotation marks",
    ),
    (
        "cod_id1",
        "SQL and key names typed without backticks (not a shell command)",
    ),
    (
        "tag_id1",
        "disputable: tags with the '#' dropped (as tag_fr1); undecided, the judges decide",
    ),
    (
        "sys_tl1",
        "an app or system message not on the notice lists",
    ),
    (
        "umq_tl1",
        "a song line or slogan in lower case without quotation marks",
    ),
    (
        "bak_hi1",
        "disputable: Hindi words English borrowed (chutney, jungle, karma) in their English spelling",
    ),
    (
        "lct_hi1",
        "a lower-case title (the documented cost: the tagger cannot tell it from a switch); undecided, the judges decide",
    ),
    (
        "tpl_hi1",
        "unfilled template placeholders ({first name}) read as English",
    ),
    (
        "tlit_ar1",
        "Arabizi without digits beside Arabic: most of its syllables are English-list words",
    ),
    (
        "thr_ar1",
        "a third language of the script (Pashto letters) that the lists do not name",
    ),
    (
        "thr_ru1",
        "a third language of the script (Mongolian Cyrillic) that the lists do not name",
    ),
    (
        "ter_ru1",
        "Latin legal and medical terms beside Russian; undecided, the judges decide",
    ),
    (
        "sys_zh1",
        "an app or system message not on the notice lists",
    ),
    (
        "thr_zh1",
        "disputable: written Cantonese without the listed characters",
    ),
    (
        "tlit_ja1",
        "romaji beside Japanese whose words the English list mostly holds",
    ),
    (
        "prd_ko1",
        "brand and app names that are English words (Teams, Outlook)",
    ),
    ("pad_ko1", "singing vocables (\"la la la\") read as English"),
];

#[test]
fn review26o_batches_get_their_verdicts_but_the_known_open_ones() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 90);
    assert_eq!(all.iter().filter(|b| b.accept).count(), 44);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
