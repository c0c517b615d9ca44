//! Scores a bot's transcript against expectations with this crate alone: the checks, the weighted
//! score card and the report in the seed's format.
//!
//! `cargo run -p scoring --example score_transcript`. An example may print.

use scoring::expect::{Expectations, JudgeVerdicts, evaluate};
use scoring::transcript::{BotTurn, PlanStep, Transcript};
use scoring::{ScenarioReport, ScoreCard, ScorePolicy, report};

fn main() {
    // What a suite would declare for this scenario (YAML in a suite; JSON here).
    let expectations: Expectations = match serde_json::from_str(
        r#"{
            "expectedFunction": "send_money",
            "expectedParams": {"amount": 50, "recipient": "alice"},
            "shouldWarn": ["fee"],
            "shouldNotContain": ["password"]
        }"#,
    ) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("invalid expectations: {e}");
            std::process::exit(2);
        }
    };
    // What the bot said and did.
    let mut transcript = Transcript::default();
    transcript.push(
        "Send 50 USD to Alice",
        BotTurn {
            text: "Sending 50 USD to Alice now. Note: a 1 USD fee applies.".into(),
            plan: vec![PlanStep {
                agent: "transfers".into(),
                function: "send_money".into(),
                params: serde_json::json!({"amount": 50, "recipient": "alice"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            }],
            ..BotTurn::default()
        },
    );
    // Text rules decide ask/refuse/warn here; an LLM judge's verdicts would go in instead.
    let checks = evaluate(&expectations, &transcript, &JudgeVerdicts::default());
    let card = ScoreCard::new(checks, &ScorePolicy::default());
    let scenario = ScenarioReport::new("send-basic", "Send money to a contact", "happy-path", card);
    match report::render_text(&scenario) {
        Ok(text) => print!("{text}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(3);
        }
    }
}
