//! Measurement accuracy on the held-out hand-tagged sentences of issue 26
//! (`tests/data/heldout_sentences.txt`, written before the measurement was run on them; the
//! tagging guidelines are in its header). Per pair (Hindi split into romanized and Devanagari):
//! - MAE: the mean absolute error of the embedded share per sentence, over the sentences whose
//!   measurement is available (`ok` or `low_coverage`); Chinese and Japanese in the unit the docs
//!   state (one Han or Hiragana character, one Katakana run, one English word);
//! - `ok>0.15`: the share of sentences measured `ok` whose error is above 0.15 (confidently
//!   wrong);
//! - `not ok`: the share measured `low_coverage` or `unavailable` (the measurement said it could
//!   not be trusted).
//!
//! The table is printed with `cargo test -p codeswitch --test it heldout_accuracy:: -- --nocapture`
//! and quoted in BENCHMARKS.md ("Issue 26: held-out measurement accuracy"). A second held-out
//! set by another writer (`tests/data/heldout2_sentences.txt`) is measured the same way.

use crate::common;

use std::collections::BTreeMap;

use codeswitch::{LanguagePair, MeasurementStatus, ScriptHint};

/// Issue 26's target for every supported pair.
const TARGET_MAE: f64 = 0.10;
/// Issue 26's target for the whole set: sentences measured `ok` with an error above 0.15.
const TARGET_OK_WRONG_SHARE: f64 = 0.02;
/// Above this a sentence measured `ok` is confidently wrong.
const WRONG: f64 = 0.15;

struct Gold {
    group: String,
    pair: LanguagePair,
    script: Option<ScriptHint>,
    text: String,
    share: f64,
}

fn heldout(data: &str) -> Vec<Gold> {
    common::parse(data)
        .into_iter()
        .map(|t| {
            let pair = LanguagePair::parse(&t.first, &t.second).expect("a supported pair");
            let (group, script) = match t.first.as_str() {
                "Hindi" if t.devanagari => {
                    (format!("{} (Devanagari)", t.pair), Some(ScriptHint::Native))
                }
                "Hindi" => (
                    format!("{} (romanized)", t.pair),
                    Some(ScriptHint::Romanized),
                ),
                _ => (t.pair, None),
            };
            Gold {
                group,
                pair,
                script,
                text: t.text,
                share: t.share,
            }
        })
        .collect()
}

#[derive(Default)]
struct Figures {
    sentences: usize,
    controls: usize,
    available_errors: Vec<f64>,
    ok_wrong: usize,
    not_ok: usize,
}

impl Figures {
    fn mae(&self) -> f64 {
        self.available_errors.iter().sum::<f64>() / self.available_errors.len().max(1) as f64
    }
    fn share(&self, n: usize) -> f64 {
        n as f64 / self.sentences as f64
    }
}

/// Measures every held-out sentence on its own (one-item batch, the script the scenario would
/// ask for) and returns the figures per group, with the sentences off by more than [`WRONG`].
fn measure_all(data: &str) -> (BTreeMap<String, Figures>, Vec<String>) {
    let mut groups: BTreeMap<String, Figures> = BTreeMap::new();
    let mut misses = Vec::new();
    for g in heldout(data) {
        let m = g.pair.measure_with(std::slice::from_ref(&g.text), g.script);
        let f = groups.entry(g.group.clone()).or_default();
        f.sentences += 1;
        f.controls += usize::from(g.share == 0.0 || g.share == 1.0);
        if m.status != MeasurementStatus::Ok {
            f.not_ok += 1;
        }
        if m.is_available() {
            let error = (m.embedded_ratio - g.share).abs();
            f.available_errors.push(error);
            // A hair over 0.15 from float rounding (0.40 − 0.25) is not above it.
            if error > WRONG + 1e-9 {
                f.ok_wrong += usize::from(m.status == MeasurementStatus::Ok);
                misses.push(format!(
                    "{error:.2} off, {:?}: [{}] {} (gold {:.2}, measured {:.2})",
                    m.status, g.group, g.text, g.share, m.embedded_ratio
                ));
            }
        }
    }
    (groups, misses)
}

/// The table of figures per group and in all, and the totals.
fn table(groups: &BTreeMap<String, Figures>) -> (String, Figures) {
    let mut table = vec![
        "| pair | sentences (controls) | MAE | ok, error > 0.15 | not ok |".to_owned(),
        "|---|---|---|---|---|".to_owned(),
    ];
    let mut total = Figures::default();
    for (group, f) in groups {
        table.push(format!(
            "| {group} | {} ({}) | {:.3} | {:.1}% | {:.1}% |",
            f.sentences,
            f.controls,
            f.mae(),
            100.0 * f.share(f.ok_wrong),
            100.0 * f.share(f.not_ok)
        ));
        total.sentences += f.sentences;
        total.controls += f.controls;
        total.available_errors.extend(&f.available_errors);
        total.ok_wrong += f.ok_wrong;
        total.not_ok += f.not_ok;
    }
    table.push(format!(
        "| all | {} ({}) | {:.3} | {:.1}% ({}) | {:.1}% |",
        total.sentences,
        total.controls,
        total.mae(),
        100.0 * total.share(total.ok_wrong),
        total.ok_wrong,
        100.0 * total.share(total.not_ok)
    ));
    (table.join("\n"), total)
}

#[test]
fn heldout_measurement_accuracy_per_pair() {
    let (groups, misses) = measure_all(include_str!("data/heldout_sentences.txt"));
    let (table, total) = table(&groups);
    eprintln!(
        "{table}\n\nOff by more than {WRONG}:\n{}",
        misses.join("\n")
    );

    assert!(total.sentences >= 220, "{table}");
    assert_eq!(
        groups.len(),
        12,
        "every supported pair is covered:\n{table}"
    );
    for (group, f) in &groups {
        assert!(f.sentences >= 15, "{group}: too few sentences\n{table}");
        assert!(
            f.mae() <= TARGET_MAE,
            "{group}: MAE {:.3} > {TARGET_MAE}\n{table}",
            f.mae()
        );
    }
    // Issue 26's target: at most TARGET_OK_WRONG_SHARE (2%, 4 of 227 sentences) measured `ok`
    // and off by more than WRONG. Met since the measurement bounds its uncertain words (a share
    // that could be more than RATIO_UNCERTAINTY_TOLERANCE off is `low_coverage`); OK_WRONG_TODAY
    // is a ratchet below it, listed sentence by sentence in BENCHMARKS.md (was 11 before the
    // frequency lists, 7 before the uncertainty bound, 3 before the range counted untagged words
    // as uncertain). Lower it as the tagger improves; never
    // raise it.
    assert!(
        total.ok_wrong <= OK_WRONG_TODAY && total.share(total.ok_wrong) <= TARGET_OK_WRONG_SHARE,
        "{} sentences ({:.1}%) measured ok are off by more than {WRONG} (today {OK_WRONG_TODAY}, \
         target {:.1}%)\n{table}",
        total.ok_wrong,
        100.0 * total.share(total.ok_wrong),
        100.0 * TARGET_OK_WRONG_SHARE
    );
}

/// Sentences measured `ok` with an error above [`WRONG`] with today's tagger (ratchet).
const OK_WRONG_TODAY: usize = 2;

/// The second held-out set (`tests/data/heldout2_sentences.txt`, written by another writer before
/// any measurement was run on them, and first measured after the uncertainty bound was
/// committed): the same figures and the same targets.
#[test]
fn second_heldout_measurement_accuracy_per_pair() {
    let (groups, misses) = measure_all(include_str!("data/heldout2_sentences.txt"));
    let (table, total) = table(&groups);
    eprintln!(
        "{table}\n\nOff by more than {WRONG}:\n{}",
        misses.join("\n")
    );
    assert!(total.sentences >= 250, "{table}");
    assert_eq!(
        groups.len(),
        12,
        "every supported pair is covered:\n{table}"
    );
    for (group, f) in &groups {
        assert!(
            f.mae() <= TARGET_MAE,
            "{group}: MAE {:.3} > {TARGET_MAE}\n{table}",
            f.mae()
        );
    }
    assert!(
        total.share(total.ok_wrong) <= TARGET_OK_WRONG_SHARE,
        "{} sentences ({:.1}%) measured ok are off by more than {WRONG}\n{table}",
        total.ok_wrong,
        100.0 * total.share(total.ok_wrong)
    );
}

/// The third held-out set (`tests/data/heldout3_sentences.txt`): the pairs made measurable in
/// round C of issue 26 (Portuguese, Tagalog and Indonesian with English), 18 sentences each,
/// written and committed before those pairs could be measured. The same targets per pair.
#[test]
fn third_heldout_measurement_accuracy_for_the_round_c_pairs() {
    let (groups, misses) = measure_all(include_str!("data/heldout3_sentences.txt"));
    let (table, total) = table(&groups);
    eprintln!(
        "{table}\n\nOff by more than {WRONG}:\n{}",
        misses.join("\n")
    );
    assert_eq!(total.sentences, 54, "{table}");
    assert_eq!(groups.len(), 3, "each new pair is covered:\n{table}");
    for (group, f) in &groups {
        assert!(
            f.mae() <= TARGET_MAE,
            "{group}: MAE {:.3} > {TARGET_MAE}\n{table}",
            f.mae()
        );
    }
    assert!(
        total.share(total.ok_wrong) <= TARGET_OK_WRONG_SHARE,
        "{} sentences ({:.1}%) measured ok are off by more than {WRONG}\n{table}",
        total.ok_wrong,
        100.0 * total.share(total.ok_wrong)
    );
}
