//! The bot adapters against real counterparts: a JSON-lines child process, a local HTTP endpoint,
//! the fake OpenAI server with tools; and the runner's timeout and error capture.

use std::sync::Arc;

use bottest::bot::{
    AgentSpec, Bot, BotError, CommandBot, CommandSpec, DEFAULT_MAX_REPLY_BYTES, FunctionSpec,
    HttpBot, HttpSpec, LlmBot, LlmSpec, ReplyPointers, tool_defs,
};
use bottest::suite::{BotFactory, parse_suite, run_scenario};
use fixtures::{FakeConfig, FakeServer};
use futures::future::BoxFuture;
use llm_client::{Client, ClientConfig};
use scoring::ScorePolicy;
use scoring::transcript::BotTurn;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn wallet_agents() -> Vec<AgentSpec> {
    vec![AgentSpec {
        name: "transfers".into(),
        description: "moves money".into(),
        functions: vec![FunctionSpec {
            name: "send_money".into(),
            description: "send money to a recipient".into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"recipient": {"type": "string"}, "amount": {"type": "number"}},
                "required": ["recipient", "amount"]
            }),
        }],
    }]
}

#[tokio::test]
async fn command_bot_speaks_json_lines_across_turns() {
    let script = r#"n=0; while read -r line; do n=$((n+1)); printf '{"text":"reply %s","plan":[{"agent":"transfers","function":"send_money","parameters":{"amount":%s}}]}\n' "$n" "$n"; done"#;
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
    };
    let mut bot = CommandBot::spawn(&spec).expect("sh starts");
    let first = bot.turn(&[], "hello").await.expect("first reply");
    assert_eq!(first.text, "reply 1");
    assert_eq!(first.plan[0].params["amount"], 1);
    let history = vec![("hello".to_owned(), first)];
    let second = bot.turn(&history, "again").await.expect("second reply");
    assert_eq!(second.text, "reply 2");
}

#[tokio::test]
async fn command_bot_that_exits_is_an_error() {
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec!["-c".into(), "exit 0".into()],
        max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
    };
    let mut bot = CommandBot::spawn(&spec).expect("sh starts");
    let err = bot.turn(&[], "hello").await.expect_err("no reply");
    assert!(matches!(err, BotError::Command(_)), "{err}");
    let missing = CommandSpec {
        program: "/nonexistent/bot".into(),
        args: vec![],
        max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
    };
    assert!(CommandBot::spawn(&missing).is_err());
}

/// Serves one HTTP request with `reply` and hands back the raw request text.
async fn one_shot_server(reply: &'static str) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/chat", listener.local_addr().expect("addr"));
    let handle = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.expect("accept");
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        // Read until the headers and the announced body have arrived.
        loop {
            let n = sock.read(&mut chunk).await.expect("read");
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let len = text
                    .lines()
                    .find_map(|l| {
                        l.to_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len || n == 0 {
                    break;
                }
            }
        }
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
            reply.len()
        );
        sock.write_all(response.as_bytes()).await.expect("write");
        String::from_utf8_lossy(&buf).to_string()
    });
    (url, handle)
}

#[tokio::test]
async fn http_bot_renders_the_body_and_maps_the_reply() {
    let (url, server) = one_shot_server(
        r#"{"data":{"answer":"How much?","kind":"clarification","steps":[{"agent":"transfers","function":"send_money","arguments":{"recipient":"Bob"}}]}}"#,
    )
    .await;
    let spec = HttpSpec {
        url,
        headers: [("x-suite".to_owned(), "wallet".to_owned())].into(),
        body: Some(r#"{"input": {{ message | tojson }}, "turns": {{ history | length }}}"#.into()),
        reply: ReplyPointers {
            text: "/data/answer".into(),
            plan: Some("/data/steps".into()),
            response_type: Some("/data/kind".into()),
            signals: None,
            outcome: None,
        },
        max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
    };
    let mut bot = HttpBot::new(spec).expect("http bot");
    let turn = bot.turn(&[], "Send money to Bob").await.expect("reply");
    assert_eq!(turn.text, "How much?");
    assert_eq!(turn.plan[0].params["recipient"], "Bob");
    assert_eq!(
        turn.response_type,
        Some(scoring::transcript::ResponseType::Clarification)
    );
    let request = server.await.expect("server task");
    assert!(request.to_lowercase().contains("x-suite: wallet"));
    assert!(
        request.contains(r#"{"input":"Send money to Bob","turns":0}"#),
        "{request}"
    );
}

fn default_spec(url: String, max_reply_bytes: usize) -> HttpSpec {
    HttpSpec {
        url,
        headers: std::collections::BTreeMap::default(),
        body: None,
        reply: ReplyPointers::default(),
        max_reply_bytes,
    }
}

#[tokio::test]
async fn http_replies_follow_the_strict_protocol() {
    let (url, server) = one_shot_server(r#"{"reply": "Your password is hunter2"}"#).await;
    let mut bot = HttpBot::new(default_spec(url, DEFAULT_MAX_REPLY_BYTES)).expect("http bot");
    let err = bot.turn(&[], "hi").await.expect_err("unknown field");
    assert!(err.to_string().contains("unknown field `reply`"), "{err}");
    server.await.expect("server task");

    let (url, server) = one_shot_server(r#"{"text": "ok", "response_type": "TEXT"}"#).await;
    let mut bot = HttpBot::new(default_spec(url, DEFAULT_MAX_REPLY_BYTES)).expect("http bot");
    let turn = bot.turn(&[], "hi").await.expect("valid reply");
    assert_eq!(
        turn.response_type,
        Some(scoring::transcript::ResponseType::Text)
    );
    server.await.expect("server task");
}

#[tokio::test]
async fn http_replies_over_the_cap_are_bot_errors() {
    let (url, server) =
        one_shot_server(r#"{"text": "a reply longer than thirty-two bytes"}"#).await;
    let mut bot = HttpBot::new(default_spec(url, 32)).expect("http bot");
    let err = bot.turn(&[], "hi").await.expect_err("too large");
    assert!(err.to_string().contains("cap of 32 bytes"), "{err}");
    server.await.expect("server task");
}

#[tokio::test]
async fn command_replies_over_the_cap_are_bot_errors() {
    // One 4 MiB line against a 64 KiB cap.
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec![
            "-c".into(),
            "read -r line; head -c 4194304 /dev/zero | tr '\\0' x; echo".into(),
        ],
        max_reply_bytes: 64 * 1024,
    };
    let mut bot = CommandBot::spawn(&spec).expect("sh starts");
    let err = bot.turn(&[], "hello").await.expect_err("too large");
    assert!(err.to_string().contains("cap of 65536 bytes"), "{err}");
}

#[tokio::test]
async fn http_bot_names_missing_env_vars() {
    let spec = HttpSpec {
        url: "http://127.0.0.1:9/".into(),
        headers: [(
            "authorization".to_owned(),
            "Bearer ${SCENARIO_ENGINE_TEST_UNSET_VAR}".to_owned(),
        )]
        .into(),
        body: None,
        reply: ReplyPointers::default(),
        max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
    };
    let err = HttpBot::new(spec).err().expect("unset variable");
    assert!(err.to_string().contains("SCENARIO_ENGINE_TEST_UNSET_VAR"));
}

#[tokio::test]
async fn llm_bot_turns_tool_calls_into_a_plan_and_keeps_history() {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("fake server");
    let client = Client::with_api_key(ClientConfig::openai_compatible(server.base_url()), "")
        .expect("client");
    let agents = wallet_agents();
    assert_eq!(tool_defs(&agents)[0].name, "transfers__send_money");
    let mut bot = LlmBot::new(
        Arc::new(client),
        "fake-model",
        LlmSpec::default(),
        "You move money.",
        &agents,
    );
    let first = bot
        .turn(&[], "Send money to a recipient: 50 to Alice")
        .await
        .expect("first turn");
    for step in &first.plan {
        assert_eq!(
            (step.agent.as_str(), step.function.as_str()),
            ("transfers", "send_money")
        );
    }
    let history = vec![("Send money to a recipient: 50 to Alice".to_owned(), first)];
    bot.turn(&history, "And 20 to Bob")
        .await
        .expect("second turn");
    let requests = server.requests();
    let sizes: Vec<usize> = requests
        .iter()
        .filter_map(|r| r.body["messages"].as_array().map(Vec::len))
        .collect();
    assert_eq!(sizes.len(), 2);
    assert!(
        sizes[1] > sizes[0],
        "the second request carries the first exchange: {sizes:?}"
    );
    assert!(
        requests[0].body["tools"]
            .as_array()
            .is_some_and(|t| t.len() == 1)
    );
}

/// A bot that never answers within the timeout.
struct Silent;

impl Bot for Silent {
    fn turn<'a>(
        &'a mut self,
        _history: &'a [(String, BotTurn)],
        _message: &'a str,
    ) -> BoxFuture<'a, Result<BotTurn, BotError>> {
        Box::pin(async {
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
            Ok(BotTurn::text("too late"))
        })
    }
}

#[tokio::test]
async fn a_turn_timeout_is_a_failed_check_and_stops_the_conversation() {
    let suite = parse_suite(
        std::path::Path::new("t.yaml"),
        "scenarios:\n  - id: slow\n    category: stress\n    timeout_ms: 20\n    steps: [one, two]\n    expect: {shouldNotContain: [error], turn: 1}\n",
    )
    .expect("valid suite");
    let factory = |_: &bottest::suite::SuiteScenario| -> Result<Box<dyn Bot>, BotError> {
        Ok(Box::new(Silent))
    };
    let run = run_scenario(
        &suite.scenarios[0],
        &factory as &dyn BotFactory,
        &ScorePolicy::default(),
        None,
    )
    .await;
    assert_eq!(
        run.transcript.turns.len(),
        1,
        "the second step is not sent after a timeout"
    );
    assert!(!run.report.card.passed());
    let checks = run.report.card.checks();
    assert!(checks.iter().all(|c| !c.passed));
    assert!(
        checks
            .iter()
            .any(|c| c.message.contains("timed out after 20 ms")),
        "{checks:?}"
    );
}

#[tokio::test]
async fn a_bot_that_cannot_start_fails_the_scenario() {
    let suite = parse_suite(
        std::path::Path::new("t.yaml"),
        "scenarios:\n  - id: s\n    category: custom\n    steps: [hi]\n    expect: {shouldReject: false}\n",
    )
    .expect("valid suite");
    let factory = |_: &bottest::suite::SuiteScenario| -> Result<Box<dyn Bot>, BotError> {
        Err(BotError::Config("no endpoint".into()))
    };
    let run = run_scenario(
        &suite.scenarios[0],
        &factory as &dyn BotFactory,
        &ScorePolicy::default(),
        None,
    )
    .await;
    assert!(!run.report.card.passed());
    assert!(
        run.report
            .card
            .checks()
            .iter()
            .any(|c| c.message.contains("no endpoint"))
    );
}
