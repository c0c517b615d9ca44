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
//! and Austrian "I", "is", "a" were firm English in a German–English batch. Round C: the
//! Indonesian, Tagalog and Portuguese batches are measured (those pairs are supported now), the
//! French loan phrases of English ("déjà vu", "à la carte") are never firm French, and e-mail
//! boilerplate ("Subject:", "Sent from my phone") is no word of either language. The batches
//! the gate still gets wrong are listed in [`KNOWN_OPEN`], each with why; the test fails when one
//! of them is fixed too, so the list stays true.

use crate::gate_batches;

const DATA: &str = include_str!("data/review26f_batches.txt");

/// Batches the gate still accepts (or leaves to the judges) although they are not code
/// switching in the pair, and why each is left.
const KNOWN_OPEN: &[(&str, &str)] = &[
    // Indonesian beside Malay is not a third language (documented).
    ("t_id_dilute", "Indonesian tails in a Malay-English batch"),
    // Bavarian with real English tails: arguably dialect-English switching.
    ("t_bar_de", "Bavarian with real English tails"),
];

#[test]
fn the_hostile_reviews_batches_get_the_verdicts_users_expect() {
    let all = gate_batches::batches(DATA);
    assert_eq!(all.len(), 221, "the review's 221 batches");
    assert_eq!(all.iter().filter(|b| b.accept).count(), 18);
    gate_batches::assert_verdicts(&all, KNOWN_OPEN);
}
