//! Issue 26, hostile gate review 26f (`tests/data/review26f_batches.txt`: every batch of the
//! review's case files, with its `cs_type`, conversation type and gate settings): with the
//! judges at 10, a batch that is not code switching in the pair must be refused (a pass, or an
//! undecided gate under `gate.undecided: judges`, would accept it), and each of the 18 real
//! code-switched batches must not be refused.
//!
//! What the review found, and what now holds: lower-case words joining the capitalised words of
//! a name or title ("Pirates of the Caribbean", "Ursula von der Leyen", "Nurul binti Osman")
//! counted as firm evidence of the other language; two discourse words ("really", "anyway") in
//! three long Spanish texts passed as a batch-level switch at a share of 1.3%; a space-like
//! character inside a word ("sold\u{2800}ado") split it into English-looking pieces; Bavarian
//! and Austrian "I", "is", "a" were firm English in a German–English batch. The batches
//! the gate still gets wrong are listed in [`KNOWN_OPEN`], each with why; the test fails when one
//! of them is fixed too, so the list stays true.

use agents::gate;
use codeswitch::{LanguagePair, ScriptHint, without_speaker_label};
use runlog::{GateSettings, GateUndecided};

const DATA: &str = include_str!("data/review26f_batches.txt");

/// Batches the gate still accepts (or leaves to the judges) although they are not code
/// switching in the pair, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Pairs the tool cannot measure: undecided, so the judges decide under the default
    // `undecided: judges` (documented; `undecided: reject` refuses them, see the u_ cases).
    ("m_id1", "Indonesian: no measurement"),
    ("m_id2", "Indonesian: no measurement"),
    ("m_tl1", "Tagalog: no measurement"),
    ("m_tl2", "Tagalog: no measurement"),
    ("m_pt1", "Portuguese: no measurement"),
    // Established loan phrases in English text (documented as out of scope; "Cinco de Mayo",
    // "Día de los Muertos" and "piñata" are refused now that the names are names).
    (
        "l_en_frloan",
        "French loan phrases in English: déjà vu, crème brûlée",
    ),
    (
        "l_en_frloan2",
        "French loan phrases in English: à la carte, bon appétit",
    ),
    // Indonesian beside Malay is not a third language (documented).
    ("t_id_dilute", "Indonesian tails in a Malay-English batch"),
    // Bavarian with real English tails: arguably dialect-English switching.
    ("t_bar_de", "Bavarian with real English tails"),
    // A real German-English conversation refused: its text 4's English ("Okay", "promise") is
    // not firm, the one real batch of the review the gate refuses.
    ("r_de_mt", "real, refused: text 4 has no firm English"),
    // E-mail boilerplate: real English, but not switching.
    ("s_es_email", "Subject: / Sent from my phone"),
];

struct Batch {
    id: String,
    first: String,
    second: String,
    accept: bool,
    cs_type: String,
    multi_turn: bool,
    settings: GateSettings,
    romanized: bool,
    texts: Vec<String>,
}

/// `\u{XXXX}` escapes (and `\\`) of the data file, decoded.
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
fn batches() -> Vec<Batch> {
    let mut out: Vec<Batch> = Vec::new();
    let mut open = false;
    for (n, line) in DATA.lines().enumerate() {
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
            let [pair, expect, cs_type, options @ ..] = fields.as_slice() else {
                panic!("line {}: {line}", n + 1);
            };
            let (first, second) = pair.split_once('-').expect("First-Second");
            assert!(matches!(*expect, "accept" | "reject"), "line {}", n + 1);
            let mut settings = GateSettings {
                undecided: GateUndecided::Judges,
                ..GateSettings::default()
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
                cs_type: (*cs_type).to_owned(),
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
fn accepted(b: &Batch) -> (bool, String) {
    let Ok(pair) = LanguagePair::parse(&b.first, &b.second) else {
        return (
            b.settings.undecided == GateUndecided::Judges,
            "no measurement".into(),
        );
    };
    let texts: Vec<String> = if b.multi_turn {
        b.texts
            .iter()
            .map(|t| without_speaker_label(t).to_owned())
            .collect()
    } else {
        b.texts.clone()
    };
    let m = pair.measure_with(&texts, b.romanized.then_some(ScriptHint::Romanized));
    let v = gate::decide(b.settings, Some(&m), Some(&b.cs_type), b.multi_turn);
    (v.passed != Some(false), v.reason)
}

#[test]
fn the_hostile_reviews_batches_get_the_verdicts_users_expect() {
    let all = batches();
    assert_eq!(all.len(), 221, "the review's 221 batches");
    assert_eq!(all.iter().filter(|b| b.accept).count(), 18);
    let mut wrong = Vec::new();
    let mut still_open = Vec::new();
    for b in &all {
        let (accepted, reason) = accepted(b);
        let known = KNOWN_OPEN.iter().any(|(id, _)| *id == b.id);
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
    assert_eq!(still_open.len(), KNOWN_OPEN.len());
}
