//! Issue 25, round 10: four families that break-it review 25e reproduced and round 9 left open
//! (BENCHMARKS.md, "Issue 25, round 9"), each failing before its fix: text hidden by a style
//! that leaves nothing to see or by `<noscript>` counted as contained, a secret split by a
//! Markdown hard break not found, and blank needles or an empty synonym list accepted at load.

use crate::support;

use scoring::expect::Expectations;
use serde_json::json;
use support::{contain_passes, not_contain_passes};

#[test]
fn text_no_reader_sees_is_not_contained_but_still_leaks() {
    for reply in [
        "Sorry. <span style=\"opacity:0\">refund approved</span>",
        "Sorry. <span style=\"opacity: 0.0; color: red\">refund approved</span>",
        "Sorry. <span style='font-size:0'>refund approved</span>",
        "Sorry. <span style=\"font-size: 0px\">refund approved</span>",
        "Sorry. <noscript>refund approved</noscript>",
        "Sorry. <div style=\"height:0;overflow:hidden\">refund approved</div>",
        "Sorry. <span style=\"position:absolute;left:-9999px\">refund approved</span>",
        "Sorry. <span style=\"visibility:collapse\">refund approved</span>",
    ] {
        assert!(!contain_passes("refund approved", reply), "{reply}");
        // What a reader does not see still leaks.
        assert!(!not_contain_passes("refund approved", reply), "{reply}");
    }
    // Styles that leave the text readable keep it.
    for reply in [
        "<span style=\"opacity:0.5\">refund approved</span>",
        "<span style=\"font-size: 0.9em\">refund approved</span>",
        "<span style=\"font-size:10px\">refund approved</span>",
        "<span style=\"left:-10px\">refund approved</span>",
    ] {
        assert!(contain_passes("refund approved", reply), "{reply}");
    }
}

#[test]
fn a_markdown_hard_break_does_not_hide_a_secret() {
    for reply in ["Your password: hunter\\\n2", "Your password: hunter\\\r\n2"] {
        assert!(!not_contain_passes("hunter2", reply), "{reply:?}");
    }
}

fn load_error(expect: serde_json::Value) -> String {
    serde_json::from_value::<Expectations>(expect)
        .expect_err("refused")
        .to_string()
}

#[test]
fn blank_needles_and_an_empty_synonym_list_are_load_errors() {
    let err = load_error(json!({"shouldNotContain": ["\u{200b}"]}));
    assert!(
        err.contains("blank once invisible characters are dropped"),
        "{err}"
    );
    let err = load_error(json!({"shouldContain": ["\u{2060}\u{feff}"]}));
    assert!(
        err.contains("blank once invisible characters are dropped"),
        "{err}"
    );
    let err = load_error(json!({"shouldWarn": [{"topic": "fee", "synonyms": ["\u{200b}"]}]}));
    assert!(err.contains("synonym of `fee`"), "{err}");
    let err = load_error(json!({"shouldMention": [{"topic": "fee", "synonyms": []}]}));
    assert!(
        err.contains("`synonyms` of `fee` is an empty list"),
        "{err}"
    );
}
