//! Issue 26, blind gate probe set 26n (`tests/data/review26n_batches.txt`): 89 batches written
//! by a writer who read only the gate's user docs as of round I and the file format, never the
//! code, the word lists or an earlier probe set — 46 that are not code switching in their pair
//! (signs quoted in a clause of their own, app, mail, shop and payment lines, auto-replies,
//! one-time codes, songs after a music symbol, Roman numerals, titles, look-alikes and loans,
//! third languages of the script) and 43 real code-switched ones that a careless version of
//! round I's rules would refuse. With the judges at 10, a batch that is not code switching must
//! be refused and a real one must not be. Measured once on round I (16 wrong accepts, 3 real
//! refused; on round H 21 and 7) and once on round J (BENCHMARKS.md, "Issue 26: round J"); round
//! S reads words a labelling or naming word only mentions as no switch (one more right); the
//! batches the gate still gets wrong are listed in [`KNOWN_OPEN`] with why, and the test fails
//! when one of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26n_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Wrongly accepted.
    (
        "lo_id1",
        "disputable: Indonesian dish names in English sentences, one set off by a comma (the \
         documented cost of borrowed islands)",
    ),
    // Real batches refused.
    (
        "r_it1",
        "text 1's only English is \"Save me a seat\": common English words the Italian list \
         also holds are not firm (as 26m's r_de1)",
    ),
    (
        "r_id3",
        "text 1's only English is \"I mean\", not firm in Indonesian (as 26m's r_de1)",
    ),
    (
        "r_tl3",
        "text 1's \"I mean\": \"mean\" is read as Tagalog, so the \"I\" beside it is a Roman \
         numeral and the text has no English",
    ),
];

#[test]
fn review26n_batches_get_their_verdicts_but_the_known_open_ones() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 89);
    assert_eq!(all.iter().filter(|b| b.accept).count(), 43);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
