//! Issue 26, blind gate probe set 26x (`tests/data/review26x_batches.txt`, sha256 `cf209def…`):
//! 90 batches written by a writer who read only the gate's user docs as of round U (the
//! "insertions only" doubt), the file format and the families earlier sets covered, never the
//! code, the word lists or an earlier probe set — 45 that are not code switching in their pair,
//! in 35 new families (Incoterms, cheat codes, trope tags, passwords, dating labels, retail
//! formats, workout formats, political labels, role-playing rules, marketing jargon, bar
//! serving styles, journalism jargon, event jargon, screenplay transitions, rhythm patterns,
//! debate procedure, legal terms of art, clinical terms, academic publishing, church-service
//! segments, diving procedure, call-centre metrics, hospital codes, exam formats, safety
//! procedures, accounting terms, tajweed rules, named concepts, herb names, tea-ceremony
//! utensils, board-game terms, HR jargon, mudra names, "work from home", "over the counter"),
//! and 45 real code-switched ones over all fourteen pairs (romanized and Devanagari Hindi
//! counted apart). Measured once on round U, before the set was read (BENCHMARKS.md, "Issue 26:
//! rounds U and V, blind set 26x"): under `judges` 37 wrong accepts and no real batch refused;
//! under the default `auto` 36 and none. The writer aimed at the docs' two soft spots: a field's
//! fixed English phrase holding a function word ("free on board", "call to action", "off the
//! record") reads as a speaker's switch, and terms in a script-read language inside English
//! text (tajweed rule names, herb names, shogi and baduk terms, mudra names) were never checked
//! as borrowed islands. Round V checks the second (function words listed by script for Arabic,
//! Russian, Devanagari Hindi, Chinese, Japanese and Korean): 6 of them are refused now, and the
//! 31 batches still wrong under `judges` are listed in [`KNOWN_OPEN`] (30 under `auto`); the
//! test fails when one of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26x_batches.txt");

/// Not fixed: no rule of the gate tells a field's fixed phrase, or a typed string, from a
/// speaker's switch that holds the same function words.
const KNOWN_OPEN: &[(&str, &str)] = &[
    (
        "inc_es1",
        "a field's fixed English phrase holding a function word: Incoterms (free on board, cost and freight) in Spanish",
    ),
    (
        "cht_es1",
        "a typed string, an English clause mentioned, not said: video-game cheat codes typed as English phrases, in Spanish",
    ),
    (
        "trp_es1",
        "a field's fixed English phrase holding a function word: fan-fiction trope tags (enemies to lovers) in Spanish",
    ),
    (
        "pwd_fr1",
        "a typed string, an English clause mentioned, not said: Wi-Fi passwords that are English sentences, in French",
    ),
    (
        "com_fr1",
        "a field's fixed English phrase holding a function word: retail formats (click and collect, cash and carry) in French",
    ),
    (
        "pol_de1",
        "a field's fixed English phrase holding a function word: political labels (too big to fail, checks and balances) in German",
    ),
    (
        "rpg_de1",
        "tabletop role-playing rule terms (attack of opportunity, roll for initiative) in a German conversation",
    ),
    (
        "mkt_it1",
        "a field's fixed English phrase holding a function word: marketing jargon (call to action, go to market) in Italian",
    ),
    (
        "bar_it1",
        "a field's fixed English phrase holding a function word: bar serving styles (on the rocks, with a twist) in Italian",
    ),
    (
        "jrn_it1",
        "a field's fixed English phrase holding a function word: journalism jargon (off the record) in Italian",
    ),
    (
        "scr_pt1",
        "a field's fixed English phrase holding a function word: screenplay transitions (fade to black, cut to) in Portuguese",
    ),
    (
        "mus_pt1",
        "a field's fixed English phrase holding a function word: rhythm pattern names (four on the floor, call and response) in Portuguese",
    ),
    (
        "law_ms1",
        "a field's fixed English phrase holding a function word: legal terms of art (without prejudice, subject to contract) in Malay",
    ),
    (
        "aca_id1",
        "a field's fixed English phrase holding a function word: academic-publishing jargon (state of the art, call for papers) in Indonesian",
    ),
    (
        "chr_id1",
        "a field's fixed English phrase holding a function word: church-service segments (praise and worship) in Indonesian",
    ),
    (
        "exf_tl1",
        "a field's fixed English phrase holding a function word: exam formats (true or false, fill in the blanks) in Tagalog: undecided (a wide ratio range), which `judges` lets through and `auto` refuses",
    ),
    (
        "hse_ar1",
        "a field's fixed English phrase holding a function word: safety procedure names (permit to work, lock out tag out) in Arabic",
    ),
    (
        "acc_ar1",
        "a field's fixed English phrase holding a function word: accounting terms (first in first out, mark to market) in Arabic",
    ),
    (
        "cpt_zh1",
        "a field's fixed English phrase holding a function word: named concepts (theory of mind, tragedy of the commons) in Chinese",
    ),
    (
        "aca_zh1",
        "a field's fixed English phrase holding a function word: academic-publishing jargon (call for papers, letter of acceptance) in Chinese",
    ),
    (
        "cht_ja1",
        "a typed string, an English clause mentioned, not said: cheat codes typed as English phrases, in Japanese",
    ),
    (
        "dbt_ko1",
        "a field's fixed English phrase holding a function word: debate procedure terms (point of information, point of order) in Korean",
    ),
    (
        "cpt_ko1",
        "a field's fixed English phrase holding a function word: named concepts (curse of dimensionality) in Korean",
    ),
    (
        "pwd_ru1",
        "a typed string, an English clause mentioned, not said: passwords that are English sentences, in Russian",
    ),
    (
        "wod_ru1",
        "a field's fixed English phrase holding a function word: workout formats (every minute on the minute) in Russian",
    ),
    (
        "mkt_ru1",
        "a field's fixed English phrase holding a function word: marketing jargon (call to action, top of mind) in Russian",
    ),
    (
        "exf_hi1",
        "a field's fixed English phrase holding a function word: exam formats (multiple choice, match the following) in Devanagari Hindi",
    ),
    (
        "hr_hi1",
        "a field's fixed English phrase holding a function word: HR jargon (on the job training, employee of the month) in Devanagari Hindi",
    ),
    (
        "wfa_hl1",
        "a field's fixed English phrase holding a function word: \"work from home\" as a noun in romanized Hindi",
    ),
    (
        "com_hl1",
        "a field's fixed English phrase holding a function word: payment formats (cash on delivery) in romanized Hindi",
    ),
    (
        "otc_hl1",
        "a field's fixed English phrase holding a function word: \"over the counter\" as a label in romanized Hindi",
    ),
];

#[test]
fn review26x_batches_get_their_verdicts_but_the_known_open_ones() {
    gate_batches::assert_probe_set(DATA, 90, KNOWN_OPEN);
}
