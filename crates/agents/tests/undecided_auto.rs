//! `gate.undecided: auto` (the default) over every probe set of the gate's break-it reviews
//! (`tests/data/review26*_batches.txt`): a batch the gate measured but cannot decide is
//! refused, so with every judge at 10 no monolingual batch of a measurable pair is accepted by
//! an undecided gate; where the texts could not be measured the judges still decide, as under
//! `judges`; and every batch the gate decides gets the same verdict under both.

use agents::gate;
use runlog::GateUndecided;

use crate::gate_batches::{self, Batch};

const SETS: &[&str] = &[
    include_str!("data/review26e_batches.txt"),
    include_str!("data/review26f_batches.txt"),
    include_str!("data/review26h_batches.txt"),
    include_str!("data/review26i_batches.txt"),
    include_str!("data/review26j_batches.txt"),
    include_str!("data/review26k_batches.txt"),
    include_str!("data/review26l_batches.txt"),
    include_str!("data/review26m_batches.txt"),
    include_str!("data/review26n_batches.txt"),
    include_str!("data/review26o_batches.txt"),
    include_str!("data/review26p_batches.txt"),
    include_str!("data/review26q_batches.txt"),
    include_str!("data/review26r_batches.txt"),
    include_str!("data/review26s_batches.txt"),
    include_str!("data/review26t_batches.txt"),
    include_str!("data/review26u_batches.txt"),
    include_str!("data/review26v_batches.txt"),
    include_str!("data/review26w_batches.txt"),
    include_str!("data/review26x_batches.txt"),
];

/// The gate's verdict on `b` under `undecided`, whether its texts were measured, and the reason.
fn verdict(b: &Batch, undecided: GateUndecided) -> (Option<bool>, bool, String) {
    let mut settings = b.settings;
    settings.undecided = undecided;
    let m = gate_batches::measurement(b);
    let v = gate::decide(settings, m.as_ref(), b.cs_type.as_deref(), b.multi_turn);
    let measured = m.is_some_and(|m| m.status != codeswitch::MeasurementStatus::Unavailable);
    (v.passed, measured, v.reason)
}

#[test]
fn auto_refuses_what_was_measured_but_undecided_and_agrees_with_judges_elsewhere() {
    let mut mono_let_through_by_judges = 0;
    let mut insertions_only = 0;
    let mut real_refused_as_undecided = 0;
    let mut batches = 0;
    let mut wrong = Vec::new();
    for data in SETS {
        for b in gate_batches::batches(data) {
            if b.settings.undecided == GateUndecided::Reject {
                continue;
            }
            batches += 1;
            let (judges, _, _) = verdict(&b, GateUndecided::Judges);
            let (auto, measured, reason) = verdict(&b, GateUndecided::Auto);
            match (judges, auto) {
                (None, Some(false)) if measured => {
                    if b.accept {
                        real_refused_as_undecided += 1;
                    } else {
                        mono_let_through_by_judges += 1;
                        insertions_only += usize::from(reason.contains("insertions only"));
                    }
                }
                (None, None) if !measured => {}
                (j, a) if j == a && j.is_some() => {}
                (j, a) => wrong.push(format!(
                    "{}: judges {j:?}, auto {a:?}, measured {measured}",
                    b.id
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The figures BENCHMARKS.md quotes ("Issue 26: `undecided: auto`"): of the probe sets'
    // batches, the monolingual ones an undecided gate let through under `judges`, now refused,
    // and the real ones refused (then refined, as any refused batch) for want of evidence.
    // Round U's insertions-only doubt (asked for switching between sentences or for tags)
    // refuses 10 of those monolingual batches and none of the real ones (BENCHMARKS.md, "Issue
    // 26: rounds U and V, blind set 26x").
    assert_eq!(batches, 2_718, "the probe sets changed: update the figures");
    assert_eq!(mono_let_through_by_judges, 41);
    assert_eq!(insertions_only, 9);
    assert_eq!(real_refused_as_undecided, 31);
}
