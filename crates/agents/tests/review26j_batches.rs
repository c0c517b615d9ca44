//! Issue 26, blind gate probe set 26j (`tests/data/review26j_batches.txt`): 241 batches written
//! by a writer who read only the gate's user docs and the file format, never the code or an
//! earlier probe set — 191 that are not code switching in their pair (look-alikes, loans, dish
//! names, brands, titles, names, quoted slogans, Latin phrases, abbreviations, hashtags, URLs,
//! code, units, mail lines, third languages, homoglyphs, zero-width and full-width characters,
//! padding, greetings, English labelled as another pair, dialogue labels) and 50 real
//! code-switched ones. With the judges at 10, a batch that is not code switching must be refused
//! and a real one must not be. Measured once on round E (14 wrong accepts, 0 real refused) and
//! once on round F (7 and 0: BENCHMARKS.md, "Issue 26: round F"); round G, shaped by 26k, also
//! refuses its quoted slogans and code in backticks (4 and 0); round H, shaped by 26l, tells
//! Marathi in Devanagari from Hindi (3 and 0). The batches the gate still gets
//! wrong are listed in [`KNOWN_OPEN`] with why, and the test fails when one of them is fixed
//! too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26j_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    (
        "di_fr1",
        "English dish names inside French text: too many look-alikes to decide, left to the judges",
    ),
    (
        "tl_ms1",
        "Jakarta Indonesian slang in a Malay batch: Indonesian beside Malay is not a third language (documented)",
    ),
    (
        "tl_tl1",
        "Cebuano in a Tagalog batch read as Tagalog: no Cebuano word list",
    ),
];

#[test]
fn every_probe_batch_gets_its_verdict_or_is_known_open() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 241);
    assert_eq!(all.iter().filter(|b| b.accept).count(), 50);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
