//! Every failure reason the pipeline writes sorts into its cause (`runlog::FailureCause`), so
//! `report`'s "why scenarios failed" table never files a rate limit under `other` — or under a
//! wrong cause. The reasons are built here exactly as `machine.rs` builds them.

use agents::outputs::OutputError;
use llm_client::LlmError;
use runlog::{AgentKind, FailureCause};

fn transport_errors() -> Vec<(LlmError, FailureCause)> {
    vec![
        (
            LlmError::Auth {
                status: 401,
                endpoint: "http://x/v1".into(),
                env_var: "OPENAI_API_KEY".into(),
            },
            FailureCause::Auth,
        ),
        (
            LlmError::Rejected {
                status: 404,
                message: "no such model".into(),
            },
            FailureCause::Rejected,
        ),
        (
            LlmError::RateLimited {
                attempts: 5,
                retry_after: None,
            },
            FailureCause::RateLimited,
        ),
        (
            LlmError::Server {
                status: 503,
                attempts: 5,
                message: "overloaded: rate limited after 3 tries; connection failed after 2".into(),
            },
            FailureCause::ServerError,
        ),
        (LlmError::Timeout { attempts: 5 }, FailureCause::Timeout),
        (
            LlmError::Connect {
                attempts: 5,
                message: "tcp connect error: refused".into(),
            },
            FailureCause::Connection,
        ),
        (
            LlmError::InvalidOutput {
                reason: "EOF while parsing".into(),
                repairs: 1,
                raw: String::new(),
                usage: llm_client::Usage::default(),
                cost_usd: None,
            },
            FailureCause::InvalidOutput,
        ),
        (
            LlmError::Protocol("no choices".into()),
            FailureCause::Protocol,
        ),
        (
            LlmError::BudgetExceeded { budget_usd: 1.0 },
            FailureCause::Budget,
        ),
        (LlmError::Cancelled, FailureCause::Stopped),
    ]
}

#[test]
fn a_failed_call_is_filed_under_its_cause() {
    for agent in AgentKind::ALL {
        for (err, cause) in transport_errors() {
            let reason = format!("{agent}: {err}");
            assert_eq!(FailureCause::of_reason(&reason), cause, "{reason}");
        }
    }
}

#[test]
fn invalid_replies_are_filed_as_invalid_output() {
    let agent = AgentKind::Fluency;
    let errors = [
        OutputError::Shape {
            agent: agent.into(),
            reason: "missing field `score`".into(),
        },
        OutputError::ScoreOutOfRange {
            agent: agent.into(),
            field: "score".into(),
            value: "42".into(),
        },
        OutputError::TooFewInstances {
            agent: AgentKind::Generator.into(),
            usable: 1,
            min: 3,
        },
        OutputError::NoJson {
            agent: agent.into(),
        },
    ];
    for err in errors {
        // A judge out of tries (machine.rs `retry_judge`), a writer out of tries (`retry_write`).
        for reason in [
            format!("{agent}: {err}"),
            format!("generator gave no usable batch in 3 tries: {err}"),
            format!("{agent}: invalid output: {err}"),
        ] {
            assert_eq!(
                FailureCause::of_reason(&reason),
                FailureCause::InvalidOutput,
                "{reason}"
            );
        }
    }
    for reason in [
        "the run stopped before this scenario was done",
        "no attempt was judged",
    ] {
        assert_ne!(
            FailureCause::of_reason(reason),
            FailureCause::Other,
            "{reason}"
        );
    }
}
