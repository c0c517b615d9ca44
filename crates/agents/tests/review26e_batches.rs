//! Issue 26, fresh break-it review (`tests/data/review26e_batches.txt`, written before it was
//! run): plain monolingual batches of Spanish, French, German, Italian, Malay and romanized
//! Hindi with planted look-alikes, and batches in a third language no shipped word list holds
//! (Basque, Occitan, Swedish, Polish, Sardinian, Javanese, Turkish, Vietnamese, Latin, Welsh,
//! Swahili) mixed with English, are refused by the gate whatever the `cs_type`, with
//! `gate.undecided: judges` (the default, under which the judges' 10 would accept an undecided
//! batch); real code-switched batches with rare vocabulary pass. The same batches run through
//! `scenario-engine run` against a fake server whose judges give 10 gave the same verdicts
//! (BENCHMARKS.md, "fresh break-it review").

use agents::gate;
use codeswitch::{LanguagePair, MeasurementStatus, ScriptHint};
use runlog::{GateSettings, GateUndecided};

use crate::gate_batches;

const DATA: &str = include_str!("data/review26e_batches.txt");

#[test]
fn the_fresh_reviews_batches_get_the_verdicts_users_expect() {
    let all = gate_batches::batches(DATA);
    let rejects = all.iter().filter(|b| !b.accept).count();
    assert!(rejects >= 40, "{rejects} batches to refuse");
    let settings = GateSettings {
        undecided: GateUndecided::Judges,
        ..GateSettings::default()
    };
    let mut wrong = Vec::new();
    for b in &all {
        let pair = LanguagePair::parse(&b.first, &b.second).expect("a supported pair");
        let script = b.romanized.then_some(ScriptHint::Romanized);
        let m = pair.measure_with(&b.texts, script);
        if b.id.starts_with("t_")
            && (m.status == MeasurementStatus::Ok || m.third_language.is_none())
        {
            wrong.push(format!(
                "{}: a third language measured {:?}, third_language {:?}",
                b.id, m.status, m.third_language
            ));
        }
        for cs_type in [Some("Intrasentential"), Some("Intersentential"), None] {
            let v = gate::decide(settings, Some(&m), cs_type, false);
            let right = if b.accept {
                // A real switch passes at least where every text switches.
                cs_type != Some("Intrasentential") || v.passed == Some(true)
            } else {
                v.passed == Some(false)
            };
            if !right || (b.accept && v.passed == Some(false)) {
                wrong.push(format!("{} ({cs_type:?}): {v:?}", b.id));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
