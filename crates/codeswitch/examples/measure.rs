//! Measures code-switched text with this crate alone: each word's language, the embedded-word
//! ratio, switch points, CMI and the M-index, and the ratio score against a target.
//!
//! `cargo run -p codeswitch --example measure [-- FIRST SECOND TEXT...]` (default: an
//! Arabic–English pair of sentences, target 30%). An example may print.

use codeswitch::{LanguagePair, parse_target_ratio, ratio_score};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (first, second, texts) = match args.as_slice() {
        [first, second, texts @ ..] if !texts.is_empty() => {
            (first.as_str(), second.as_str(), texts.to_vec())
        }
        _ => (
            "Arabic",
            "English",
            vec![
                "أنا رايح الـ meeting بعد الظهر".to_owned(),
                "الـ deadline بكرة بس مش ready لسه".to_owned(),
            ],
        ),
    };
    let pair = match LanguagePair::parse(first, second) {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    for text in &texts {
        let words: Vec<String> = pair
            .tag(text)
            .iter()
            .map(|w| format!("{}/{:?}", w.text, w.tag))
            .collect();
        println!("{text}\n  {}", words.join(" "));
    }
    let m = pair.measure(&texts);
    println!(
        "status {:?}, embedded ratio {:.2}, switch points {}, CMI {:.1}, M-index {:.2}",
        m.status, m.embedded_ratio, m.switch_points, m.cmi, m.m_index
    );
    if let Some(target) = parse_target_ratio("30%") {
        println!(
            "ratio score against 30%: {:.1}/10",
            ratio_score(m.embedded_ratio, target)
        );
    }
}
