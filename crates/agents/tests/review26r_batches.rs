//! Issue 26, blind gate probe set 26r (`tests/data/review26r_batches.txt`): 90 batches written
//! by a writer who read only the gate's user docs as of round O, the file format and the list of
//! families earlier sets covered, never the code, the word lists or an earlier probe set — 45
//! that are not code switching in their pair (41 of them in 27 new families: breed and variety
//! names, lyrics-site and recipe-site text, Latin phrases, stock test phrases, track-title tags,
//! CAPTCHA words, German `'s` contractions, hyphenated compounds, model special tokens, meeting
//! invitations, cocktail names, app and social-media interface text, share texts, place names of
//! English words, untranslated app text, auto-caption hallucinations, prescription shorthand,
//! coupon codes, laughter, NATO reporting names, species names, e-reader exports, Latin letters
//! inside Chinese words, kaomoji, invitation-card formulas; 4 fresh variants) and 45 real
//! code-switched ones. With the judges at 10, a batch that is not code switching must be refused
//! and a real one must not be. Measured once on round O, before the set was read: **25 wrong
//! accepts and 3 real batches refused** (BENCHMARKS.md, "Issue 26: round P"); round P, shaped by
//! 26r, reads a page's or an app's text around the writer's words as no word
//! (`codeswitch/src/page_text.rs`) and a single Latin letter written against Han, kana or Hangul
//! or a kaomoji as no English word (12 and 3). The batches the gate still gets wrong are listed
//! in [`KNOWN_OPEN`] with why, and the test fails when one of them is fixed too, so the list
//! stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26r_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Wrongly accepted.
    (
        "capt_fr1",
        "CAPTCHA labels and words mentioned inside French sentences read as switches",
    ),
    (
        "hc_de1",
        "English phrases inside German hyphenated compounds (disputable: the writer marks it so)",
    ),
    (
        "breed_tl1",
        "gamecock bloodline names made of English words (sweater, roundhead, kelso) read as switches",
    ),
    (
        "ann_id1",
        "a game's voice lines reported without quotes read as switches",
    ),
    (
        "untr_id1",
        "app text left untranslated inside Indonesian sentences (\"Tap to retry\", \"3 new messages\")",
    ),
    (
        "rx_ar1",
        "prescription shorthand (tab bid, IM stat) beside Arabic read as English",
    ),
    (
        "rx_zh1",
        "prescription shorthand (po bid pc, prn) beside Chinese read as English",
    ),
    (
        "untr_ko1",
        "app text left untranslated inside Korean sentences",
    ),
    (
        "card_hi1",
        "printed invitation-card formulas (R.S.V.P., \"With best compliments from\"; disputable)",
    ),
    (
        "loc_hr1",
        "Indian place names made of English words (model town, civil lines) in romanized Hindi",
    ),
    (
        "ivr_hr1",
        "recorded phone messages reported without quotes in romanized Hindi",
    ),
    (
        "tst_hr1",
        "stock test phrases mentioned (mic testing one two three, hello world, the quick brown fox)",
    ),
    // Wrongly refused.
    (
        "r_es1",
        "a one-word switch (\"charger\") whose language is not firm leaves text 1 undecided",
    ),
    (
        "r_es3",
        "\"…, But I have to finish this report first\": a switch with an odd capital read as a title (the documented cost, kept by the writer on purpose)",
    ),
    (
        "r_ja1",
        "one English word in a Japanese sentence of 24 character units is under the 5% share (halving the units for Chinese and Japanese let two rejects through, 26n qs_ja1 and 26r gl_zh1)",
    ),
];

#[test]
fn review26r_batches_get_their_verdicts_but_the_known_open_ones() {
    gate_batches::assert_probe_set(DATA, 90, KNOWN_OPEN);
}
