//! What the gate round tests share: a batch measured in a pair with English, and the assertions
//! that the gate passes it or refuses it.

use agents::gate;
use codeswitch::{LanguagePair, Measurement, ScriptHint};
use runlog::GateSettings;

/// Every switching type a batch can ask for, and none.
pub(crate) const ALL: [Option<&str>; 4] = [
    Some("Intrasentential"),
    Some("Intersentential"),
    Some("Extrasentential"),
    None,
];

/// `batch` measured in the pair `first`–English (Hindi read as romanized).
pub(crate) fn measure(first: &str, batch: &[&str]) -> Measurement {
    let texts: Vec<String> = batch.iter().map(|t| (*t).to_owned()).collect();
    let script = (first == "Hindi").then_some(ScriptHint::Romanized);
    LanguagePair::parse(first, "English")
        .expect("a supported pair")
        .measure_with(&texts, script)
}

/// The gate, at its default settings, passes `batch` for `cs_type`.
pub(crate) fn assert_passes(first: &str, batch: &[&str], cs_type: Option<&str>) {
    let m = measure(first, batch);
    let v = gate::decide(GateSettings::default(), Some(&m), cs_type, false);
    assert_eq!(
        v.passed,
        Some(true),
        "{first}–English {cs_type:?}: {v:?}\n{m:?}"
    );
}

/// The gate, at its default settings, refuses `batch` for every one of `cs_types` (a refusal,
/// not an undecided gate that would leave it to the judges), with a reason that contains `why`
/// (any reason when `why` is empty).
pub(crate) fn assert_refused_for(
    first: &str,
    batch: &[&str],
    cs_types: &[Option<&str>],
    multi_turn: bool,
    why: &str,
) {
    let m = measure(first, batch);
    for &cs_type in cs_types {
        let v = gate::decide(GateSettings::default(), Some(&m), cs_type, multi_turn);
        assert_eq!(
            v.passed,
            Some(false),
            "{first}–English {cs_type:?} not refused: {v:?}\n{batch:?}\n{m:?}"
        );
        assert!(v.reason.contains(why), "{first} {cs_type:?}: {}", v.reason);
    }
}
