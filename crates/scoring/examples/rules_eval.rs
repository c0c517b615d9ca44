//! Prints how the ask/refuse/warn text rules fare on the labelled replies in
//! `fixtures/labelled/`: `cargo run -p scoring --example rules_eval` (add `--misses` to list the
//! replies decided against their label, `--unsure` to list the unsure verdicts, `--only NAME` for
//! one corpus, `--why` to add each miss's topic and evidence, `--file PATH` for a labelled file read at run time instead, `--rules-only` for the
//! text rules without the classifier beside them). `replies.jsonl`,
//! `tuning.jsonl` and `tuning2.jsonl` are the corpora the rules were improved on; the held-out
//! sets (`heldout2.jsonl`, `heldout3.jsonl`) are never used to tune them; since issue 25's fourth
//! round all but `heldout4.jsonl` train the classifier beside them; since round 6 all eight files
//! do, `heldout5.jsonl` included, since round 8 all eleven, `heldout6.jsonl` to
//! `heldout8.jsonl` too, since round 9 all twelve, `heldout9.jsonl` too, since round 10 all
//! thirteen, `heldout10.jsonl` too, since round 11 all fourteen, `heldout11.jsonl` too, since
//! round 12 all fifteen, `heldout12.jsonl` too, since round 13 all sixteen, `heldout13.jsonl`
//! too, since round 14 all seventeen, `heldout14.jsonl` too, since round 16 all eighteen,
//! `heldout15.jsonl` too, since round 18 all nineteen, `heldout16.jsonl` too, and since round
//! 19 all twenty, `heldout17.jsonl` too (fixtures/labelled/README.md); a newer set
//! (`heldout18.jsonl`) is measured with `--file`.

use scoring::CheckKind;
use scoring::expect::{
    asks_for, measure, measure_rules_only, read_labelled, refuses, refuses_by_rules, warns,
    warns_by_rules,
};

const CORPORA: [(&str, &str); 20] = [
    (
        "replies.jsonl",
        include_str!("../../../fixtures/labelled/replies.jsonl"),
    ),
    (
        "heldout.jsonl",
        include_str!("../../../fixtures/labelled/heldout.jsonl"),
    ),
    (
        "tuning.jsonl",
        include_str!("../../../fixtures/labelled/tuning.jsonl"),
    ),
    (
        "tuning2.jsonl",
        include_str!("../../../fixtures/labelled/tuning2.jsonl"),
    ),
    (
        "heldout2.jsonl",
        include_str!("../../../fixtures/labelled/heldout2.jsonl"),
    ),
    (
        "heldout3.jsonl",
        include_str!("../../../fixtures/labelled/heldout3.jsonl"),
    ),
    (
        "heldout4.jsonl",
        include_str!("../../../fixtures/labelled/heldout4.jsonl"),
    ),
    (
        "heldout5.jsonl",
        include_str!("../../../fixtures/labelled/heldout5.jsonl"),
    ),
    (
        "heldout6.jsonl",
        include_str!("../../../fixtures/labelled/heldout6.jsonl"),
    ),
    (
        "heldout7.jsonl",
        include_str!("../../../fixtures/labelled/heldout7.jsonl"),
    ),
    (
        "heldout8.jsonl",
        include_str!("../../../fixtures/labelled/heldout8.jsonl"),
    ),
    (
        "heldout9.jsonl",
        include_str!("../../../fixtures/labelled/heldout9.jsonl"),
    ),
    (
        "heldout10.jsonl",
        include_str!("../../../fixtures/labelled/heldout10.jsonl"),
    ),
    (
        "heldout11.jsonl",
        include_str!("../../../fixtures/labelled/heldout11.jsonl"),
    ),
    (
        "heldout12.jsonl",
        include_str!("../../../fixtures/labelled/heldout12.jsonl"),
    ),
    (
        "heldout13.jsonl",
        include_str!("../../../fixtures/labelled/heldout13.jsonl"),
    ),
    (
        "heldout14.jsonl",
        include_str!("../../../fixtures/labelled/heldout14.jsonl"),
    ),
    (
        "heldout15.jsonl",
        include_str!("../../../fixtures/labelled/heldout15.jsonl"),
    ),
    (
        "heldout16.jsonl",
        include_str!("../../../fixtures/labelled/heldout16.jsonl"),
    ),
    (
        "heldout17.jsonl",
        include_str!("../../../fixtures/labelled/heldout17.jsonl"),
    ),
];

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn main() {
    let show_misses = std::env::args().any(|a| a == "--misses");
    let rules_only = std::env::args().any(|a| a == "--rules-only");
    // `--only NAME` measures one corpus (tuning never looks at heldout2.jsonl's misses).
    let only: Option<String> = std::env::args().skip_while(|a| a != "--only").nth(1);
    // `--file PATH` measures a labelled file read at run time instead (a new held-out set).
    let file: Option<String> = std::env::args().skip_while(|a| a != "--file").nth(1);
    let corpora: Vec<(String, String)> = match &file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => vec![(path.clone(), text)],
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        },
        None => CORPORA
            .iter()
            .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
            .collect(),
    };
    let mut all = Vec::new();
    for (name, text) in &corpora {
        let name = name.as_str();
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let replies = match read_labelled(text) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(2);
            }
        };
        // `--rules-only`: the text rules alone, without the classifier beside them (the figures
        // before issue 25's fourth round).
        let (figures, misses) = if rules_only {
            measure_rules_only(&replies)
        } else {
            measure(&replies)
        };
        all.extend(replies.iter().cloned());
        if std::env::args().any(|a| a == "--unsure") {
            for r in &replies {
                for (kind, o) in [
                    ("ask", asks_for(&r.text, &r.topic, &[])),
                    (
                        "refuse",
                        if rules_only {
                            refuses_by_rules(&r.text)
                        } else {
                            refuses(&r.text)
                        },
                    ),
                    (
                        "warn",
                        if rules_only {
                            warns_by_rules(&r.text, &r.topic, &[])
                        } else {
                            warns(&r.text, &r.topic, &[])
                        },
                    ),
                ] {
                    if o.is_unsure() {
                        println!(
                            "  unsure {kind} {} -> {}: {}",
                            r.id,
                            o.decision(),
                            o.evidence
                        );
                    }
                }
            }
        }
        let shown = if file.is_some() {
            name.to_owned()
        } else {
            format!("fixtures/labelled/{name}")
        };
        println!("{shown}: {} replies\n", replies.len());
        println!(
            "| rule | labelled yes | accuracy | precision | recall | sure and wrong | unsure | accuracy when sure |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for f in &figures {
            println!(
                "| `{}` | {} | {} | {} | {} | {} ({}) | {} ({}) | {} |",
                f.kind,
                f.true_pos + f.false_neg,
                pct(f.accuracy()),
                pct(f.precision()),
                pct(f.recall()),
                f.sure_wrong(),
                pct(f.sure_wrong_rate()),
                f.unsure,
                pct(f.unsure_rate()),
                pct(f.sure_accuracy()),
            );
        }
        println!();
        if show_misses {
            for m in &misses {
                let Some(r) = replies.iter().find(|r| r.id == m.id) else {
                    continue;
                };
                println!(
                    "  {} {} labelled {} ({}): {:?}",
                    m.kind,
                    m.id,
                    if m.expected { "yes" } else { "no" },
                    if m.unsure { "unsure" } else { "sure" },
                    r.text
                );
                // `--why`: the topic and the evidence the verdict gave.
                if std::env::args().any(|a| a == "--why") {
                    let o = match m.kind {
                        CheckKind::ShouldAskFor => asks_for(&r.text, &r.topic, &[]),
                        CheckKind::ShouldReject => refuses(&r.text),
                        _ => warns(&r.text, &r.topic, &[]),
                    };
                    println!("      topic {:?}: {}", r.topic, o.evidence);
                }
            }
            println!();
        }
    }
    // The patterns are compiled by now; time 20 more passes over both corpora.
    let started = std::time::Instant::now();
    for _ in 0..20 {
        std::hint::black_box(measure(&all));
    }
    #[allow(clippy::cast_precision_loss)]
    let per_reply = started.elapsed().as_secs_f64() * 1e6 / (20 * all.len()) as f64;
    println!("wall time: {per_reply:.1} µs per reply for the three rules");
}
