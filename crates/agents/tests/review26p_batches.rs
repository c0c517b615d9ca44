//! Issue 26, blind gate probe set 26p (`tests/data/review26p_batches.txt`): 90 batches written
//! by a writer who read only the gate's user docs as of round L and the file format, never the
//! code, the word lists or an earlier probe set — 45 that are not code switching in their pair
//! (units, acronyms, citations, addresses, file names, model names, dates from apps, emoji
//! shortcodes, misspellings, keyboard-layout garbage, machine translation beside the original,
//! parallel text, vocabulary lists, the generating model's own chatter, speaker labels, image
//! descriptions, words mentioned, names of laws, and new variants of earlier families) and 45
//! real code-switched ones that resemble them. With the judges at 10, a batch that is not code
//! switching must be refused and a real one must not be. Measured once on round L, before the
//! set was read: 11 wrong accepts, no real batch refused (BENCHMARKS.md, "Issue 26: round M");
//! round M, shaped by 26p (`codeswitch/src/scaffolding.rs`), reads the model's chatter, machine
//! translations, image descriptions and line labels as no word (5 and 0). The batches the gate
//! still gets wrong are listed in [`KNOWN_OPEN`] with why, and the test fails when one of them
//! is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26p_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Wrongly accepted.
    (
        "vocab_de1",
        "a bilingual vocabulary list (\"der Apfel – the apple\"): each gloss reads as a switch",
    ),
    (
        "tag_ar1",
        "a list of tags with the '#' dropped (as 26o's tag_fr1): its words read as English",
    ),
    (
        "par_zh1",
        "disputable: parallel text, each sentence followed by its translation",
    ),
    (
        "ment_zh1",
        "disputable: English words mentioned (talked about), not used, without quotation marks",
    ),
    (
        "back_hi1",
        "Hindi words English borrowed (bungalow, jungle, karma) in their English spelling; undecided, the judges decide",
    ),
];

#[test]
fn review26p_batches_get_their_verdicts_but_the_known_open_ones() {
    gate_batches::assert_probe_set(DATA, 90, KNOWN_OPEN);
}
