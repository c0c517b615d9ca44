//! Issue 26, blind gate probe set 26q (`tests/data/review26q_batches.txt`): 90 batches written
//! by a writer who read only the gate's user docs as of round L and the file format, never the
//! code, the word lists or an earlier probe set, and was given the families earlier sets
//! covered — 45 that are not code switching in their pair (native homographs, calques, mock
//! language, quoted replies and retweets, edit markers, Roman numerals, typographic splits,
//! integrated loan verbs, commands to animals, English-word names, key labels, word salad,
//! eponyms, JSON wrappers, radio words, glosses, liturgical words, Wi-Fi names, punctuation of
//! another script, mathematical notation, chord names, interjections, initialisms, names in
//! their own script, and fresh variants of earlier families) and 45 real code-switched ones
//! that copy their surface. With the judges at 10, a batch that is not code switching must be
//! refused and a real one must not be. Measured once on round M, before the set was read: 10
//! wrong accepts and 3 real batches refused (BENCHMARKS.md, "Issue 26: round N"); round N,
//! shaped by 26q, reads quoted lines, mathematical functions and chord names as no word, an
//! aside in parentheses as the writer's own words, and pinyin by the syllables its initials
//! take (5 and 1); round O reads names in Han, Hangul and Devanagari where English puts a
//! person as no switch (2 and 1). The batches the gate still gets wrong are listed in [`KNOWN_OPEN`] with why,
//! and the test fails when one of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26q_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Wrongly accepted.
    (
        "ex_zh1",
        "English sentences set as translation exercises after a Chinese instruction",
    ),
    (
        "gl_hir1",
        "English glosses in parentheses or between dashes in romanized Hindi: the dashes are not read as brackets, and romanized text is read word by word",
    ),
    // Wrongly refused.
    (
        "r_id3",
        "one- and two-word Indonesian sentences after English ones (\"Siap?\", \"Aman kok.\") read as tags at the edge, not the inter-sentential switching asked for",
    ),
];

#[test]
fn review26q_batches_get_their_verdicts_but_the_known_open_ones() {
    gate_batches::assert_probe_set(DATA, 90, KNOWN_OPEN);
}
