//! Issue 26's break-it check on hand-tagged sentences nobody tuned the gate to: every monolingual
//! control of the two held-out sets and of the tuning set (gold share 0 or 1, many with
//! look-alikes), measured on its own, is refused by the gate — never passed, never left to the
//! judges, who would accept it at 10. The cost is printed and bounded: the share of real
//! code-switched sentences the gate passes (one-sentence batches, the strictest case; the rest
//! are refused as "could not tell" when their only switch is a look-alike, or undecided).
//!
//! `cargo test -p agents --test it heldout_controls_gate:: -- --nocapture` prints the figures quoted
//! in BENCHMARKS.md ("after uncertainty bounds").

use crate::common;

use agents::gate;
use codeswitch::{LanguagePair, ScriptHint};
use runlog::GateSettings;

const SETS: [(&str, &str, f64); 4] = [
    (
        "held-out",
        include_str!("../../codeswitch/tests/data/heldout_sentences.txt"),
        MIN_MIXED_PASSED,
    ),
    (
        "second held-out",
        include_str!("../../codeswitch/tests/data/heldout2_sentences.txt"),
        MIN_MIXED_PASSED,
    ),
    (
        "tuning",
        include_str!("../../codeswitch/tests/data/tuning_sentences.txt"),
        MIN_MIXED_PASSED,
    ),
    (
        "third held-out (Portuguese, Tagalog, Indonesian)",
        include_str!("../../codeswitch/tests/data/heldout3_sentences.txt"),
        MIN_MIXED_PASSED_ROUND_C,
    ),
];

/// The least share of code-switched sentences of a set the gate must pass on their own. 0.65
/// until an English content word needed to be 2.0 Zipf above its frequency in the matrix
/// language's full vocabulary to be firm (`codeswitch`'s `ENGLISH_FIRM_GAP`, review of issue 26:
/// Spanish "tuna", German "Made" …): single-word insertions of common loans ("weekend",
/// "email") are no longer firm, and the tuning set's share fell from 68.5% to 53.7% (held-out
/// sets 79.3% → 72.9%, 79.2% → 72.7%; BENCHMARKS.md). 0.51 since round E: borrowed islands
/// are judged in whichever language has more firm words, so an English-built sentence whose
/// other-language words neither form a clause nor meet the English at a function word or
/// punctuation is refused ("This is so sedap, mana you beli?": tuning 29 → 28 of 54, held-out
/// 148 → 145, second 157 → 156). A ratchet: raise it as the tagger improves.
const MIN_MIXED_PASSED: f64 = 0.51;

/// The same for the third held-out set (Portuguese, Tagalog and Indonesian with English, made
/// measurable in round C): 18 of 44 (40.9%) today (17 until round G made English clitics such
/// as "I'm" firm beside Tagalog and Indonesian; 0.38 until then). Lower than the others because wordfreq's
/// Filipino and Indonesian lists are web text full of the English loans Taglish and Jakarta
/// chat use ("traffic", "budget", "meeting", "deadline" at Zipf 3.5–4.5), so a one-sentence
/// batch whose only switch is such a loan is "could not tell" — refused, never accepted.
/// Multi-sentence batches with a switched clause pass (the gate tests). A ratchet.
const MIN_MIXED_PASSED_ROUND_C: f64 = 0.40;

#[test]
fn no_monolingual_control_passes_and_most_real_switches_do() {
    for (set, data, min_passed) in SETS {
        let (mut controls, mut mixed, mut mixed_passed) = (0_usize, 0_usize, 0_usize);
        for t in common::parse(data) {
            let pair = LanguagePair::parse(&t.first, &t.second).expect("a supported pair");
            let script = (t.first == "Hindi").then_some(if t.devanagari {
                ScriptHint::Native
            } else {
                ScriptHint::Romanized
            });
            let m = pair.measure_with(std::slice::from_ref(&t.text), script);
            let verdicts: Vec<_> = [Some("Intrasentential"), Some("Intersentential"), None]
                .into_iter()
                .map(|cs_type| gate::decide(GateSettings::default(), Some(&m), cs_type, false))
                .collect();
            if t.share == 0.0 || t.share == 1.0 {
                controls += 1;
                for v in &verdicts {
                    assert_eq!(
                        v.passed,
                        Some(false),
                        "[{set}] {} control not refused: {}: {v:?}",
                        t.pair,
                        t.text
                    );
                }
            } else {
                mixed += 1;
                mixed_passed += usize::from(verdicts[2].passed == Some(true));
            }
        }
        #[allow(clippy::cast_precision_loss)] // sentence counts
        let passed = mixed_passed as f64 / mixed as f64;
        eprintln!(
            "{set}: {controls} controls, all refused; {mixed_passed} of {mixed} code-switched \
             sentences passed ({:.1}%)",
            100.0 * passed
        );
        // The third set covers three pairs only (10 controls); the others twelve.
        assert!(controls >= 10, "[{set}] too few controls");
        assert!(passed >= min_passed, "[{set}] {:.1}%", 100.0 * passed);
    }
}
