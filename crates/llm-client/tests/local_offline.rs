//! Tests of the local provider that need llama.cpp but no model file (feature `local-llm`):
//! schema-to-grammar conversion and load-time errors.

#![cfg(feature = "local-llm")]

use std::path::PathBuf;

use llm_client::LlmError;
use llm_client::local::{LocalConfig, LocalError, LocalModel, grammar_for_schema};
use serde_json::json;

#[test]
fn a_judge_schema_becomes_a_grammar_with_tight_whitespace() {
    let grammar = grammar_for_schema(&json!({
        "type": "object",
        "properties": {
            "fluency_score": {"type": "number", "minimum": 0, "maximum": 10},
            "verdict": {"enum": ["pass", "fail"]},
            "summary": {"type": "string"}
        },
        "required": ["fluency_score", "verdict", "summary"],
        "additionalProperties": false
    }))
    .expect("the schema converts");
    assert!(
        grammar.lines().any(|l| l.starts_with("root ::=")),
        "{grammar}"
    );
    let space: Vec<&str> = grammar
        .lines()
        .filter(|l| l.starts_with("space ::="))
        .collect();
    assert_eq!(space, [r#"space ::= " "?"#], "{grammar}");
    // Property names and enum values are literal in the grammar.
    for literal in ["fluency_score", "summary", r#"\"pass\""#, r#"\"fail\""#] {
        assert!(
            grammar.contains(literal),
            "{literal} missing from {grammar}"
        );
    }
}

#[test]
fn a_schema_with_no_grammar_is_a_rejected_request() {
    let err =
        grammar_for_schema(&json!({"$ref": "#/definitions/missing"})).expect_err("dangling $ref");
    assert!(matches!(err, LocalError::Grammar(_)), "{err:?}");
    let llm: LlmError = err.into();
    assert!(
        matches!(llm, LlmError::Rejected { status: 422, .. }),
        "{llm:?}"
    );
    assert!(!llm.is_fatal(), "one bad schema must not stop the run");
}

#[test]
fn a_file_that_is_not_gguf_fails_to_load_with_its_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path: PathBuf = dir.path().join("not-a-model.gguf");
    std::fs::write(&path, b"this is not a GGUF file").expect("write");
    let err = LocalModel::load(LocalConfig::new(&path)).expect_err("garbage is refused");
    match &err {
        LocalError::Load { path: p, .. } => assert_eq!(p, &path),
        other => panic!("expected Load, got {other:?}"),
    }
    assert!(LlmError::from(err).is_fatal());
}
