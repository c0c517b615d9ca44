//! The tolerance of the measurement's uncertainty bound (`RATIO_UNCERTAINTY_TOLERANCE`), chosen on
//! the tuning sentences of `tests/data/tuning_sentences.txt` (written for it; the held-out sets
//! are never used to choose it). For each tolerance tried, per pair: the sentences measured `ok`
//! whose error is above 0.15 (confidently wrong) and the share measured `not ok` (what the bound
//! costs). Each sentence is measured on its own, as the held-out test does (a batch of one: the
//! strictest case, since a batch of several sentences pools its words).
//!
//! `cargo test -p codeswitch --test it tuning_uncertainty:: -- --nocapture` prints the sweep quoted in
//! BENCHMARKS.md ("after uncertainty bounds").

use crate::common;

use std::collections::BTreeMap;

use codeswitch::{LanguagePair, MeasurementStatus, RATIO_UNCERTAINTY_TOLERANCE, ScriptHint};

/// Above this a sentence measured `ok` is confidently wrong (issue 26).
const WRONG: f64 = 0.15;
/// The tolerances tried; 1.0 is the bound switched off (the tagger before it).
const TRIED: [f64; 6] = [0.10, 0.15, 0.20, 0.25, 0.30, 1.0];

#[derive(Default, Clone, Copy)]
struct Tally {
    sentences: usize,
    ok_wrong: usize,
    not_ok: usize,
}

/// Per tolerance tried, per pair: the tally.
fn sweep() -> Vec<(f64, BTreeMap<String, Tally>)> {
    let gold = common::parse(include_str!("data/tuning_sentences.txt"));
    TRIED
        .iter()
        .map(|&tolerance| {
            let mut pairs: BTreeMap<String, Tally> = BTreeMap::new();
            for g in &gold {
                let pair = LanguagePair::parse(&g.first, &g.second).expect("a supported pair");
                let script = (g.first == "Hindi" && !g.devanagari).then_some(ScriptHint::Romanized);
                let m =
                    pair.measure_with_tolerance(std::slice::from_ref(&g.text), script, tolerance);
                let t = pairs.entry(g.pair.clone()).or_default();
                t.sentences += 1;
                let ok = m.status == MeasurementStatus::Ok;
                t.not_ok += usize::from(!ok);
                t.ok_wrong += usize::from(ok && (m.embedded_ratio - g.share).abs() > WRONG + 1e-9);
            }
            (tolerance, pairs)
        })
        .collect()
}

/// Per pair: (batches measured `not ok`, batches), the pair's code-switched sentences taken three
/// at a time in file order.
fn batch_not_ok() -> BTreeMap<String, (usize, usize)> {
    let mut by_pair: BTreeMap<String, Vec<common::Tagged>> = BTreeMap::new();
    for g in common::parse(include_str!("data/tuning_sentences.txt")) {
        if g.share > 0.0 && g.share < 1.0 {
            by_pair.entry(g.pair.clone()).or_default().push(g);
        }
    }
    by_pair
        .into_iter()
        .map(|(pair, sentences)| {
            let mut tally = (0, 0);
            for chunk in sentences.chunks(3) {
                let g = &chunk[0];
                let lp = LanguagePair::parse(&g.first, &g.second).expect("a supported pair");
                let script = (g.first == "Hindi" && !g.devanagari).then_some(ScriptHint::Romanized);
                let batch: Vec<String> = chunk.iter().map(|t| t.text.clone()).collect();
                let m = lp.measure_with(&batch, script);
                tally.0 += usize::from(m.status != MeasurementStatus::Ok);
                tally.1 += 1;
            }
            (pair, tally)
        })
        .collect()
}

fn percent(n: usize, of: usize) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

#[test]
fn the_tolerance_keeps_ok_measurements_right_at_a_bearable_cost() {
    let sweep = sweep();
    let mut table = vec![
        "| tolerance | pair | sentences | ok, error > 0.15 | not ok |".to_owned(),
        "|---|---|---|---|---|".to_owned(),
    ];
    let mut totals = Vec::new();
    for (tolerance, pairs) in &sweep {
        let mut all = Tally::default();
        for (pair, t) in pairs {
            table.push(format!(
                "| {tolerance:.2} | {pair} | {} | {} ({:.1}%) | {:.1}% |",
                t.sentences,
                t.ok_wrong,
                percent(t.ok_wrong, t.sentences),
                percent(t.not_ok, t.sentences)
            ));
            all.sentences += t.sentences;
            all.ok_wrong += t.ok_wrong;
            all.not_ok += t.not_ok;
        }
        table.push(format!(
            "| {tolerance:.2} | all | {} | {} ({:.1}%) | {:.1}% |",
            all.sentences,
            all.ok_wrong,
            percent(all.ok_wrong, all.sentences),
            percent(all.not_ok, all.sentences)
        ));
        totals.push((*tolerance, all, pairs.clone()));
    }
    let table = table.join("\n");
    eprintln!("{table}");

    let (_, chosen, pairs) = totals
        .iter()
        .find(|(t, _, _)| (*t - RATIO_UNCERTAINTY_TOLERANCE).abs() < 1e-9)
        .expect("the chosen tolerance is among those tried");
    assert!(chosen.sentences >= 60, "{table}");
    // At the chosen tolerance no more sentences are confidently wrong than OK_WRONG_TUNING …
    assert!(
        chosen.ok_wrong <= OK_WRONG_TUNING,
        "{} confidently wrong at the chosen tolerance\n{table}",
        chosen.ok_wrong
    );
    // … and no pair loses more than half its sentences to `not ok` (one-sentence batches, the
    // strictest case).
    for (pair, t) in pairs {
        assert!(
            percent(t.not_ok, t.sentences) <= MAX_NOT_OK_PERCENT,
            "{pair}: {:.1}% not ok\n{table}",
            percent(t.not_ok, t.sentences)
        );
    }
    // Batches of several sentences pool their words, so the bound costs less there: the
    // code-switched sentences of each pair (controls left out) measured three at a time.
    let batches = batch_not_ok();
    eprintln!("\nthree-sentence batches, not ok at the chosen tolerance:");
    for (pair, (not_ok, n)) in &batches {
        eprintln!("| {pair} | {n} | {not_ok} ({:.1}%) |", percent(*not_ok, *n));
        assert!(percent(*not_ok, *n) <= MAX_BATCH_NOT_OK_PERCENT, "{pair}");
    }
    // The bound never makes a measurement more often wrong: a wider tolerance only moves
    // sentences from `not ok` to `ok`.
    for pair in totals.windows(2) {
        let (narrow, wide) = (&pair[0].1, &pair[1].1);
        assert!(narrow.ok_wrong <= wide.ok_wrong && narrow.not_ok >= wide.not_ok);
    }
}

/// Sentences of the tuning set measured `ok` and off by more than 0.15 at the chosen tolerance:
/// two single-word English insertions that both languages' lists hold, read as the matrix
/// language and supported by their matrix neighbours (German "den link schicken", Italian "la
/// password di nuovo"), which no tolerance catches (BENCHMARKS.md). A ratchet: never raise it.
const OK_WRONG_TUNING: usize = 2;

/// The most a pair may lose to `not ok` on one-sentence batches at the chosen tolerance.
const MAX_NOT_OK_PERCENT: f64 = 50.0;

/// The most a pair may lose to `not ok` on three-sentence batches: 50% until English content
/// words needed `ENGLISH_FIRM_GAP` (2.0 Zipf) over the matrix language's full vocabulary to be
/// firm; Malay's list holds much English (Malaysian web text), and 3 of its 4 tuning batches
/// are now `not ok` (BENCHMARKS.md). A ratchet: lower it as the tagger improves.
const MAX_BATCH_NOT_OK_PERCENT: f64 = 75.0;
