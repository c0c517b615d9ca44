//! Issue 26, blind gate probe set 26k (`tests/data/review26k_batches.txt`): 243 batches written
//! by a writer who read only the gate's user docs and the file format, never the code, the word
//! lists or an earlier probe set — 191 that are not code switching in their pair (look-alikes,
//! loans, English text with borrowed islands, dish names, brands, titles, names, quoted signs and
//! slogans, Latin phrases, abbreviations, hashtags, URLs and paths, code, units, mail lines,
//! third languages, word-by-word translations, Unicode tricks, mock language, parallel signs,
//! glosses, keyword padding) and 52 real code-switched ones, over the nine Latin-script pairs
//! and six read by script. With the judges at 10, a batch that is not code switching must be
//! refused and a real one must not be. Measured once on round F (35 wrong accepts, 2 real
//! refused) and once on round G (21 and 2: BENCHMARKS.md, "Issue 26: round G"); round H, shaped
//! by 26l, reads a sign's stock English ("No smoking", "Emergency exit") as a notice (20 and 2);
//! round J, shaped by 26n, more of a sign's stock English (19 and 2); round K reads shell
//! commands written without backticks as code (18 and 2). The batches the
//! gate still gets wrong are listed in [`KNOWN_OPEN`] with why, and the test fails when one of
//! them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26k_batches.txt");

/// Batches the gate still gets wrong, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    (
        "ot_es2",
        "bilingual parallel signs (\"Prohibido fumar. No smoking.\"): a sentence of each language \
         is inter-sentential switching in form; telling a translation needs a bilingual lexicon",
    ),
    (
        "ot_hi1",
        "bilingual parallel signs in romanized Hindi, as ot_es2",
    ),
    (
        "ot_fr2",
        "each speaker stays in one language and the turns alternate: switching between turns \
         (the writer calls the label disputable)",
    ),
    (
        "ot_it2",
        "mock Italian by an English speaker (\"Mamma mia, that lasagna was molto bene\"): a \
         switch in form; the writer calls the label disputable",
    ),
    (
        "ot_ms1",
        "Manglish particles (lah, lor, leh) in English: part of Malaysian English or switching \
         (the writer calls the label disputable)",
    ),
    (
        "ot_it3",
        "English SEO keyword lists after Italian product text: undecided on low coverage, left \
         to the judges",
    ),
    (
        "tr_de1",
        "word-by-word German–English: capitalised nouns joined by \"und the\" read as a name, \
         leaving too few tagged words in two texts to judge alternation",
    ),
    (
        "ti_it1",
        "lower-case titles (\"how i met your mother\", \"among us\") read as switches \
         (documented)",
    ),
    (
        "ti_pt1",
        "lower-case titles (\"the office\", \"the last of us\") read as switches (documented)",
    ),
    (
        "ti_tl1",
        "lower-case titles (\"the office\", \"let it go\") read as switches (documented)",
    ),
    (
        "mx_it1",
        "a lower-case title (\"the seven husbands of evelyn hugo\") read as a switch \
         (documented)",
    ),
    (
        "di_hi1",
        "English dish names in romanized Hindi text: insertions of English noun phrases, which \
         the gate cannot tell from borrowed dish names",
    ),
    (
        "di_id1",
        "English dish names in Indonesian text: undecided on low coverage, left to the judges",
    ),
    (
        "di_ms1",
        "English dish names in Malay text: undecided on low coverage, left to the judges",
    ),
    (
        "tl_id3",
        "Malay in an Indonesian batch: Malay beside Indonesian is not a third language \
         (documented)",
    ),
    (
        "tl_ms1",
        "Jakarta Indonesian in a Malay batch: Indonesian beside Malay is not a third language \
         (documented)",
    ),
    (
        "tl_id4",
        "Minangkabau in an Indonesian batch: its words (alun, lai, ado, urang) are in \
         wordfreq's Indonesian list",
    ),
    (
        "tl_tl3",
        "Bikol in a Tagalog batch read as Tagalog: no Bikol word list, and lingua places its \
         words as Tagalog",
    ),
    (
        "r_es5",
        "real: text 3's only English word, \"cute\", is a look-alike of Spanish's full \
         vocabulary, so not firm (the documented cost of the 2.0 Zipf gap)",
    ),
    (
        "r_tl5",
        "real: text 2's English words (\"today\", \"like\") are in wordfreq's Filipino list at \
         comparable frequency, so not firm (documented look-alike cost)",
    ),
];

#[test]
fn every_probe_batch_gets_its_verdict_or_is_known_open() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 243);
    assert_eq!(all.iter().filter(|b| b.accept).count(), 52);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
