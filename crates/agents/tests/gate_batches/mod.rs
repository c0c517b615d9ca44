//! The data files of the gate's break-it reviews (`tests/data/review26*_batches.txt`), read
//! into batches: `[id] First-Second accept|reject [cs_type [options…]]` headers, then one text
//! per line (`script: romanized` marks romanized text; `\u{XXXX}` escapes are decoded), a blank
//! line between batches, `#` comments.
#![allow(
    dead_code,
    reason = "each review's test reads the fields its file's headers carry"
)]

use agents::gate;
use codeswitch::{LanguagePair, Measurement, ScriptHint, without_speaker_label};
use runlog::{GateSettings, GateUndecided};

/// One batch of a review file.
pub(crate) struct Batch {
    pub(crate) id: String,
    pub(crate) first: String,
    pub(crate) second: String,
    pub(crate) accept: bool,
    /// The `cs_type` the header names, if it names one.
    pub(crate) cs_type: Option<String>,
    pub(crate) multi_turn: bool,
    /// `gate.undecided: judges` unless the header's options say otherwise: the probe sets are
    /// read under the policy that trusts the gate's evidence least (an undecided gate counts as
    /// accepting). The default, `auto`, refuses what was measured but undecided
    /// (`undecided_auto.rs`).
    pub(crate) settings: GateSettings,
    pub(crate) romanized: bool,
    pub(crate) texts: Vec<String>,
}

/// `\u{XXXX}` escapes (and `\\`) of a data line, decoded.
fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(hex) = tail.strip_prefix("\\u{") {
            let end = hex.find('}').expect("a closed \\u{…}");
            let code = u32::from_str_radix(&hex[..end], 16).expect("hex");
            out.push(char::from_u32(code).expect("a char"));
            rest = &hex[end + 1..];
        } else {
            out.push('\\');
            rest = tail.strip_prefix("\\\\").unwrap_or(&tail[1..]);
        }
    }
    out.push_str(rest);
    out
}

/// Every batch of the data file; panics naming the line on a malformed header.
pub(crate) fn batches(data: &str) -> Vec<Batch> {
    let mut out: Vec<Batch> = Vec::new();
    let mut open = false;
    for (n, line) in data.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            open = false;
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let (id, rest) = header
                .split_once("] ")
                .unwrap_or_else(|| panic!("line {}: {line}", n + 1));
            let fields: Vec<&str> = rest.split(' ').collect();
            let [pair, expect, rest @ ..] = fields.as_slice() else {
                panic!("line {}: {line}", n + 1);
            };
            let (first, second) = pair.split_once('-').expect("First-Second");
            assert!(matches!(*expect, "accept" | "reject"), "line {}", n + 1);
            let mut settings = GateSettings {
                undecided: GateUndecided::Judges,
                ..GateSettings::default()
            };
            let (cs_type, options) = match rest {
                [cs_type, options @ ..] => (Some((*cs_type).to_owned()), options),
                [] => (None, rest),
            };
            let mut multi_turn = false;
            for option in options {
                match *option {
                    "multi_turn" => multi_turn = true,
                    "undecided=reject" => settings.undecided = GateUndecided::Reject,
                    other => {
                        let n = other
                            .strip_prefix("min_switch_points=")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or_else(|| panic!("line {}: {other}", n + 1));
                        settings.min_switch_points = n;
                    }
                }
            }
            out.push(Batch {
                id: id.to_owned(),
                first: first.to_owned(),
                second: second.to_owned(),
                accept: *expect == "accept",
                cs_type,
                multi_turn,
                settings,
                romanized: false,
                texts: Vec::new(),
            });
            open = true;
            continue;
        }
        assert!(open, "line {}: a text outside a batch", n + 1);
        let batch = out.last_mut().expect("a batch is open");
        if line == "script: romanized" {
            batch.romanized = true;
        } else {
            batch.texts.push(unescape(line));
        }
    }
    out
}

/// Whether the run would accept the batch with every judge at 10: the gate passes it, or is
/// undecided and the judges decide. A pair the measurement does not know is undecided.
pub(crate) fn accepted(b: &Batch) -> (bool, String) {
    let Some(m) = measurement(b) else {
        return (
            b.settings.undecided != GateUndecided::Reject,
            "no measurement".into(),
        );
    };
    let v = gate::decide(b.settings, Some(&m), b.cs_type.as_deref(), b.multi_turn);
    (v.passed != Some(false), v.reason)
}

/// The batch's measurement as a run makes it (speaker labels dropped, the romanized hint), or
/// `None` for a pair the measurement does not know.
pub(crate) fn measurement(b: &Batch) -> Option<Measurement> {
    let pair = LanguagePair::parse(&b.first, &b.second).ok()?;
    let texts: Vec<String> = if b.multi_turn {
        b.texts
            .iter()
            .map(|t| without_speaker_label(t).to_owned())
            .collect()
    } else {
        b.texts.clone()
    };
    Some(pair.measure_with(&texts, b.romanized.then_some(ScriptHint::Romanized)))
}

/// Every batch gets the verdict its header expects, except those of `known_open` (id, why),
/// which must each still be wrong: the list stays true.
pub(crate) fn assert_verdicts(all: &[Batch], known_open: &[(&str, &str)]) {
    let mut wrong = Vec::new();
    let mut still_open = Vec::new();
    for b in all {
        let (accepted, reason) = accepted(b);
        let known = known_open.iter().any(|(id, _)| *id == b.id);
        if b.accept != accepted {
            if known {
                still_open.push(b.id.clone());
            } else {
                let what = if b.accept { "refused" } else { "accepted" };
                wrong.push(format!("{} {what}: {reason}", b.id));
            }
        } else if known {
            wrong.push(format!("{} is listed as open but is right now", b.id));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(still_open.len(), known_open.len());
}

/// A probe set of `n` batches, half of them real code switching, checked by [`assert_verdicts`].
pub(crate) fn assert_probe_set(data: &str, n: usize, known_open: &[(&str, &str)]) {
    let all = batches(data);
    assert_eq!(all.len(), n);
    assert_eq!(all.iter().filter(|b| b.accept).count(), n / 2);
    assert_verdicts(&all, known_open);
}
