//! Issue 25, round 8: the general forms of warning evidence the round added, and the plain
//! statements they must not read as warnings (a sure "yes" there is a sure false pass of
//! `shouldWarn`).

use scoring::expect::{RuleVerdict, asks_for, refuses_by_rules, warns_by_rules};

#[test]
fn damage_that_may_follow_warns() {
    for (text, topic) in [
        ("Clamping it on can crack the frame tube.", "frame tube"),
        (
            "Damp items packed into a sealed unit can grow mould within weeks.",
            "mould",
        ),
        (
            "Anchor the bookcase: unsecured, the bookcase can tip over.",
            "bookcase",
        ),
    ] {
        let o = warns_by_rules(text, topic, &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

/// ("Your savings will increase every month" was a sure warning through the cue "will
/// increase" until round 9, which keeps the cue only for a price, cost, fee, premium, rate or
/// risk: `increase_warns_only_of_a_price_or_a_risk` below.)
#[test]
fn plain_statements_with_modal_verbs_are_no_sure_warning() {
    for (text, topic) in [
        (
            "You can catch the shuttle at 9 from the main gate.",
            "shuttle",
        ),
        ("We'll take care of the delivery for you.", "delivery"),
        (
            "Double points week doubles your points on every order.",
            "points",
        ),
        ("You can hit the gym any time before 10 pm.", "gym"),
    ] {
        let o = warns_by_rules(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}

#[test]
fn a_question_the_bot_answers_itself_asks_nothing() {
    for (text, topic) in [
        (
            "Early check-in before noon? Not on a Saturday, sorry.",
            "early check-in",
        ),
        (
            "Worried about the test result? The optometrist marked it as normal.",
            "test result",
        ),
    ] {
        let o = asks_for(text, topic, &[]);
        assert_ne!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
    // A real question followed by a statement still asks.
    let o = asks_for("Which date suits you? We're open all week.", "date", &[]);
    assert_eq!(o.verdict, RuleVerdict::Yes, "{o:?}");
}

#[test]
fn policy_refusals_are_unsure_not_a_sure_no() {
    for text in [
        "Walk-ins are not taken on Saturdays.",
        "Weekend appointments are reserved for concert venues.",
        "We don't tattoo anyone under 18, even with parental consent.",
        "Lo sentimos, no aceptamos donaciones en efectivo por correo.",
    ] {
        let o = refuses_by_rules(text);
        assert_ne!(o.verdict, RuleVerdict::No, "{text}: {o:?}");
    }
}

#[test]
fn increase_warns_only_of_a_price_or_a_risk() {
    let o = warns_by_rules("Your savings will increase every month.", "savings", &[]);
    assert_ne!(o.verdict, RuleVerdict::Yes, "{o:?}");
    for (text, topic) in [
        (
            "Adding a second driver will increase the premium by 20%.",
            "premium",
        ),
        (
            "Skipping the check-up may increase your risk of decay.",
            "decay",
        ),
    ] {
        let o = warns_by_rules(text, topic, &[]);
        assert_eq!(o.verdict, RuleVerdict::Yes, "{text}: {o:?}");
    }
}
