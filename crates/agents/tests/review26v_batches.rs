//! Issue 26, blind gate probe set 26v (`tests/data/review26v_batches.txt`, sha256 `ba1d41d8…`):
//! 90 batches written by a writer who read only the gate's user docs as of round S, the file
//! format and the families earlier sets covered (26u's included), never the code, the word lists
//! or an earlier probe set — 45 that are not code switching in their pair (44 in 26 new
//! families: perfume names, hotel room types, device colours, ride-hailing tiers, flavours,
//! coffee-shop drinks, bed sizes, bouldering jargon, gym classes, jeans fits, viral challenges,
//! yoga poses, tattoo styles, skateboard tricks, haircuts, housing estates, shop names, crochet
//! terms, cabin and fare names, spa treatments, chess openings, cricket fielding positions,
//! railway classes, street-dance styles, blind-box series, playlist names; 1 third-language
//! variant, Maltese labelled Arabic) and 45 real code-switched ones over all fourteen pairs.
//! Measured once on round T, before the set was read (BENCHMARKS.md, "Issue 26: round T"). The
//! batches the gate gets wrong are listed in [`KNOWN_OPEN`]; the test fails when one of them is
//! fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26v_batches.txt");

/// Batches the gate gets wrong. The blind measurement on round T (and on round S: the same
/// three) got three wrong: `r_it1` (a switch after "mi ha scritto", read as a mention: round T's
/// stative-only participles mend it), `r_tl3` (Tagalog tags "right?", "Oh my gosh": round T's
/// English tags mend it) and the one below.
const KNOWN_OPEN: &[(&str, &str)] = &[(
    "fp_hi1",
    "cricket fielding positions in romanized Hindi: one English word a text, so the gate is \
     undecided and `gate.undecided: judges` lets the judges decide (`reject` refuses it)",
)];

#[test]
fn review26v_batches_get_their_verdicts_but_the_known_open_ones() {
    gate_batches::assert_probe_set(DATA, 90, KNOWN_OPEN);
}
