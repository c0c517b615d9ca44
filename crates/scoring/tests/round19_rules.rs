//! Issue 25, round 19 (heldout17 joins the training files): "please note" in more languages
//! (Indonesian, Malay, Greek, Turkish, Danish, Norwegian, Finnish, Hungarian, Czech, Romanian,
//! Ukrainian, Arabic, Hebrew, Thai, Korean, Japanese, Chinese, Hindi) is a weak cue, and a limit,
//! a deadline or a cost in those languages is what is at stake beside it; "closed automatically"
//! is a consequence as "automatically closed" is; "I'll leave that with your vet" hands a task
//! over and is no consequence. The rules are read alone where the classifier beside them may
//! decide an unsure guess. Each text is a fresh wording written for this test, not a line of a
//! labelled file.

use scoring::expect::{RuleVerdict, warns, warns_by_rules};

#[test]
fn a_note_with_something_at_stake_in_more_languages_is_likely_a_warning() {
    for (text, topic) in [
        (
            "Mohon diperhatikan, pengembalian dana hanya diproses dalam 14 hari kerja.",
            "pengembalian dana",
        ),
        (
            "Huomioi, että palautus on mahdollinen vain 30 päivän ajan.",
            "palautus",
        ),
        (
            "Lütfen unutmayın: iade yalnızca fatura ile yapılabilir.",
            "iade",
        ),
        (
            "Σημειώστε ότι η επιστροφή γίνεται μόνο με την απόδειξη.",
            "επιστροφή",
        ),
        (
            "Vær opmærksom på, at refusion kun gives inden for 30 dage.",
            "refusion",
        ),
    ] {
        // The rule's reading; beside it the classifier may still lean the other way, but the
        // verdict is never a sure "no".
        let o = warns_by_rules(text, topic, &[]);
        assert!(
            o.verdict == RuleVerdict::Yes || (o.verdict == RuleVerdict::Unsure && o.fallback),
            "{text}: {o:?}"
        );
        assert_ne!(warns(text, topic, &[]).verdict, RuleVerdict::No, "{text}");
    }
}

#[test]
fn closed_automatically_is_a_consequence() {
    let o = warns(
        "Tickets with no reply for 30 days are closed automatically.",
        "tickets",
        &[],
    );
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn leaving_a_task_with_someone_is_no_warning() {
    for (text, topic) in [
        (
            "Hoof trimming is a job for your farrier, so I'll leave that with them.",
            "hoof trimming",
        ),
        (
            "We'll leave the invoice question to your accountant.",
            "invoice",
        ),
    ] {
        let o = warns(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
