//! Grounding through MCP (`use_tools: true` with `run.tools`), end to end: the CLI binary on the
//! fake OpenAI server, grounded by the MCP article server of `fixtures::mcp`.
//!
//! This test binary is its own fixture server: run with `--mcp-fixture [flags]` it serves the
//! fixture articles on stdio (so the tests need no other binary and no network), otherwise it
//! runs the tests below (`harness = false`; a name filter as first argument runs those whose
//! name contains it).

use std::path::{Path, PathBuf};
use std::process::Output;

use fixtures::mcp::McpFixtureOptions;
use fixtures::{FakeConfig, FakeServer};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_scenario-engine");

/// The fixture articles' titles (fixtures/articles/).
const SPORTS: &str = "Harbour City Rowing Club Wins Its First National Title";
const HEALTH: &str = "Night-Shift Nurses Trial a Shorter Rota at Valley General";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--mcp-fixture") {
        serve(args[1..].to_vec());
        return;
    }
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    type Test = fn(&Path) -> futures_free::BoxFuture;
    let tests: [(&str, Test); 9] = [
        ("grounded_run", |d| Box::pin(grounded_run(d.to_owned()))),
        ("dead_servers", |d| Box::pin(dead_servers(d.to_owned()))),
        ("server_dies_mid_run", |d| {
            Box::pin(server_dies_mid_run(d.to_owned()))
        }),
        ("server_hangs", |d| Box::pin(server_hangs(d.to_owned()))),
        ("tool_errors", |d| Box::pin(tool_errors(d.to_owned()))),
        ("hostile_articles", |d| {
            Box::pin(hostile_articles(d.to_owned()))
        }),
        ("config_errors", |d| Box::pin(config_errors(d.to_owned()))),
        ("interrupted_while_waiting", |d| {
            Box::pin(interrupted_while_waiting(d.to_owned()))
        }),
        ("prompts_read_the_article", |d| {
            Box::pin(prompts_read_the_article(d.to_owned()))
        }),
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        ran += 1;
        let dir = tempfile::tempdir().expect("tempdir");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            runtime.block_on(test(dir.path()));
        }));
        println!(
            "test grounding::{name} ... {}",
            if outcome.is_ok() { "ok" } else { "FAILED" }
        );
        if outcome.is_err() {
            failed.push(name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}

/// Boxed futures without a futures dependency.
mod futures_free {
    pub(crate) type BoxFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;
}

/// Serves the fixture articles on stdio (this binary as the MCP server).
fn serve(flags: Vec<String>) {
    let options = match McpFixtureOptions::from_args(flags) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mcp fixture: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    if let Err(e) = runtime.block_on(fixtures::mcp::serve_stdio(options)) {
        eprintln!("mcp fixture: {e}");
        std::process::exit(1);
    }
}

/// The server command of a config: this binary serving the fixture with `flags`.
fn fixture_command(flags: &[&str]) -> String {
    let exe = std::env::current_exe().expect("this test binary");
    let mut argv = vec![exe.display().to_string(), "--mcp-fixture".to_owned()];
    argv.extend(flags.iter().map(|f| (*f).to_owned()));
    serde_json::to_string(&argv).expect("json")
}

/// A config of `topics` (Spanish–English, `use_tools: true`) grounded by `tools` (YAML flow
/// text of `run.tools`, or none).
fn config(dir: &Path, name: &str, topics: &[&str], tools: Option<&str>) -> PathBuf {
    let topics = serde_json::to_string(topics).expect("json");
    let tools = tools.map_or(String::new(), |t| format!("  tools: {t}\n"));
    let text = format!(
        "name: grounded\nlanguage_pairs:\n  - {{first_language: Spanish, second_language: English}}\n\
         axes:\n  topic: {topics}\nfixed:\n  cs_ratio: \"30%\"\n  tense: Present\n  use_tools: true\n\
         seed: 7\nrun:\n  model: fake-model\n  max_refinements: 0\n  concurrency: 1\n{tools}"
    );
    let path = dir.join(name);
    std::fs::write(&path, text).expect("config written");
    path
}

/// `run.tools` serving the fixture with `flags`.
fn tools(flags: &[&str], extra: &str) -> String {
    format!(
        "{{server: {{command: {}}}, tool: news{extra}}}",
        fixture_command(flags)
    )
}

/// The binary in `dir`, with a clean settings environment and fast retries.
async fn cli(dir: &Path, args: &[&str]) -> Output {
    command(dir, args).output().await.expect("the binary runs")
}

/// The command of [`cli`].
fn command(dir: &Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(BIN);
    for (key, _) in std::env::vars() {
        if key.starts_with("SCENARIO_ENGINE") || key.starts_with("OPENAI_") {
            cmd.env_remove(key);
        }
    }
    cmd.args(args)
        .current_dir(dir)
        .env("SCENARIO_ENGINE__RETRY__BASE_DELAY", "1")
        .env("SCENARIO_ENGINE__RETRY__MAX_RETRIES", "2")
        .kill_on_drop(true);
    cmd
}

/// The arguments of [`run`].
fn run_args<'a>(config: &'a Path, out: &'a Path, base_url: &'a str) -> [&'a str; 8] {
    [
        "run",
        path(config),
        "--out",
        path(out),
        "--base-url",
        base_url,
        "--api-key-env",
        "SCENARIO_ENGINE_TEST_NO_KEY",
    ]
}

async fn run(dir: &Path, config: &Path, out: &Path, server: &FakeServer) -> Output {
    let base_url = server.base_url();
    cli(dir, &run_args(config, out, &base_url)).await
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

fn errors_of(out: &Path) -> Vec<Value> {
    lines(&PathBuf::from(format!("{}.errors.jsonl", out.display())))
}

/// The prompts of the generator calls the fake server received.
fn generator_prompts(server: &FakeServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter_map(|r| r.body["messages"][0]["content"].as_str().map(str::to_owned))
        .filter(|p| p.starts_with("You are GeneratorAgent"))
        .collect()
}

fn chat_calls(server: &FakeServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count()
}

fn calls_logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A grounded run: each scenario's article title reaches its generator's prompt and its record;
/// a resumed run fetches nothing again; another article for the same scenario is a new prompt,
/// never a cached answer written for the old one.
async fn grounded_run(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let log = dir.join("calls.log");
    let logged = tools(&["--calls-log", path(&log)], "");
    let config = config(&dir, "g.yaml", &["sports", "health"], Some(&logged));
    let plan = cli(&dir, &["plan", path(&config)]).await;
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
    assert!(
        text(&plan.stdout).contains("grounded in an article from the tool `news`"),
        "{}",
        text(&plan.stdout)
    );

    let out = dir.join("run.jsonl");
    let o = run(&dir, &config, &out, &server).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let records = lines(&out);
    assert_eq!(records.len(), 2);
    for r in &records {
        let (title, topic) = match r["topic"].as_str() {
            Some("sports") => (SPORTS, "sports"),
            _ => (HEALTH, "health"),
        };
        let g = &r["grounding"];
        assert_eq!(g["title"].as_str(), Some(title), "{r}");
        assert_eq!(g["source"].as_str(), Some("Fixture Gazette"), "{r}");
        assert_eq!(g["tool"].as_str(), Some("news"));
        assert_eq!(g["truncated"].as_bool(), Some(false));
        assert!(g["url"].as_str().is_some_and(|u| u.contains(topic)), "{g}");
        assert_eq!(g["text_hash"].as_str().map(str::len), Some(16));
    }
    let prompts = generator_prompts(&server);
    assert!(
        prompts
            .iter()
            .any(|p| p.contains(&format!("Title: {SPORTS}"))),
        "{prompts:?}"
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.contains(&format!("Title: {HEALTH}")))
    );
    assert!(prompts.iter().all(|p| p.contains("--- end of article ---")));
    assert_eq!(calls_logged(&log), ["sports", "health"]);

    // Resumed: both scenarios are done, so no article is fetched and no model is called.
    let calls_before = chat_calls(&server);
    let o = run(&dir, &config, &out, &server).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        calls_logged(&log),
        ["sports", "health"],
        "no refetch on resume"
    );
    assert_eq!(chat_calls(&server), calls_before);

    // The same scenarios grounded in another article (the fixture answers `sports` with
    // another one), with the same response cache: the generator is asked anew with the new
    // article, never answered from the cache with the old one's texts.
    let other = tools(&["--script-on", "sports"], "");
    let config2 = config_named(&dir, "g2.yaml", &["sports"], &other);
    let out2 = dir.join("run2.jsonl");
    let before = generator_prompts(&server).len();
    let o = run(&dir, &config2, &out2, &server).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let prompts = generator_prompts(&server);
    assert!(prompts.len() > before, "a new generator call");
    assert!(
        prompts[before..]
            .iter()
            .all(|p| p.contains("Title: Council Votes on the Budget"))
    );
    assert_eq!(
        lines(&out2)[0]["grounding"]["title"].as_str(),
        Some("Council Votes on the Budget")
    );
}

fn config_named(dir: &Path, name: &str, topics: &[&str], tools: &str) -> PathBuf {
    config(dir, name, topics, Some(tools))
}

/// A server that cannot start, exits at once, prints garbage, or lacks the tool stops the run
/// before any model call, with the reason and exit 3; nothing is written.
async fn dead_servers(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let cases: [(&str, String, &str); 4] = [
        (
            "missing",
            "{server: {command: [/nonexistent/news-server]}, tool: news}".into(),
            "could not be started",
        ),
        (
            "exits",
            "{server: {command: [\"true\"]}, tool: news}".into(),
            "MCP handshake",
        ),
        (
            "no-tool",
            tools(&[], "").replace("tool: news", "tool: weather"),
            "has no tool `weather` (it offers: news)",
        ),
        (
            "garbage",
            tools(&["--garbage"], ", timeout: 5s"),
            "tool server",
        ),
    ];
    for (name, tools, says) in cases {
        let config = config(&dir, &format!("{name}.yaml"), &["sports"], Some(&tools));
        let out = dir.join(format!("{name}.jsonl"));
        let o = run(&dir, &config, &out, &server).await;
        let err = text(&o.stderr);
        if name == "garbage" && o.status.code() == Some(0) {
            // An SDK that skips lines that are not JSON-RPC before the handshake serves the
            // articles faithfully: grounded, never silently ungrounded.
            assert_eq!(
                lines(&out)[0]["grounding"]["title"].as_str(),
                Some(SPORTS),
                "{err}"
            );
            continue;
        }
        assert_eq!(o.status.code(), Some(3), "{name}: {err}");
        assert!(
            err.contains("tool server") && err.contains(says),
            "{name}: {err}"
        );
        assert_eq!(
            chat_calls(&server),
            0,
            "{name}: no model call was made: {err}"
        );
        assert!(lines(&out).is_empty(), "{name}: nothing written");
    }
}

/// A server that exits mid-run: the scenario it was asked for fails with the reason (filed
/// under `grounding failed`), the run stops admitting scenarios and exits 3; a resumed run with
/// a live server does the rest.
async fn server_dies_mid_run(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let dying = tools(&["--exit-after", "1"], "");
    let config_dying = config(
        &dir,
        "dying.yaml",
        &["sports", "health", "business"],
        Some(&dying),
    );
    let out = dir.join("run.jsonl");
    let o = run(&dir, &config_dying, &out, &server).await;
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(
        lines(&out).len(),
        1,
        "the scenario before the death is written"
    );
    let errors = errors_of(&out);
    assert_eq!(
        errors.len(),
        1,
        "one scenario failed, the rest never started: {errors:?}"
    );
    let reason = errors[0]["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("grounding failed: tool server connection closed"),
        "{reason}"
    );
    assert_eq!(
        runlog::FailureCause::of_reason(reason),
        runlog::FailureCause::Grounding
    );
    // Review 31c, F13: under `--batch` the scenarios admitted after the server was found down
    // were each filed as failed ("the tool server is down") without being asked; now only the
    // one that was asked fails, the others are left to do.
    let batch_out = dir.join("batch.jsonl");
    let base_url = server.base_url();
    let mut args = run_args(&config_dying, &batch_out, &base_url).to_vec();
    args.extend(["--batch", "--no-cache"]);
    let o = cli(&dir, &args).await;
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let errors = errors_of(&batch_out);
    assert_eq!(errors.len(), 1, "only the scenario asked fails: {errors:?}");
    assert!(
        errors[0]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("grounding failed: tool server connection closed")),
        "{errors:?}"
    );
    let log = dir.join("calls.log");
    let live = tools(&["--calls-log", path(&log)], "");
    let config_live = config(
        &dir,
        "live.yaml",
        &["sports", "health", "business"],
        Some(&live),
    );
    let o = run(&dir, &config_live, &out, &server).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(lines(&out).len(), 3);
    assert_eq!(
        calls_logged(&log).len(),
        2,
        "the written scenario is not fetched again"
    );
}

/// A server that stops answering: the call times out, the scenario fails with the reason, the
/// run stops.
async fn server_hangs(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let hanging = tools(&["--hang-on", "sports"], ", timeout: 1s");
    let config = config(&dir, "hang.yaml", &["sports", "health"], Some(&hanging));
    let out = dir.join("run.jsonl");
    let o = run(&dir, &config, &out, &server).await;
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let errors = errors_of(&out);
    let reasons: Vec<&str> = errors.iter().filter_map(|e| e["reason"].as_str()).collect();
    assert!(
        reasons.contains(&"grounding failed: tool server did not answer tools/call news within 1s"),
        "{reasons:?}"
    );
    assert!(
        lines(&out).len() < 2,
        "the hung scenario is never written as a pass"
    );
}

/// The tool's own error (no article about the topic) fails that scenario with the tool's
/// message; the others run.
async fn tool_errors(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let config = config(
        &dir,
        "err.yaml",
        &["weather", "sports"],
        Some(&tools(&[], "")),
    );
    let out = dir.join("run.jsonl");
    let o = run(&dir, &config, &out, &server).await;
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let records = lines(&out);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["topic"].as_str(), Some("sports"));
    let errors = errors_of(&out);
    assert_eq!(
        errors[0]["reason"].as_str(),
        Some("grounding failed: tool `news` answered with an error: no article about `weather`")
    );
}

/// A 10 MB article is cut at the cap (and says so); an article with markup and a `<script>`
/// reaches the prompt without them; a reply over the transport's 16 MiB limit fails its
/// scenario at once with the reason (not as a hung server), and the run goes on.
async fn hostile_articles(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let hostile = tools(
        &[
            "--huge-on",
            "sports",
            "--script-on",
            "health",
            "--oversized-on",
            "business",
        ],
        ", max_article_chars: 1000",
    );
    let config = config(
        &dir,
        "hostile.yaml",
        &["sports", "health", "business"],
        Some(&hostile),
    );
    let out = dir.join("run.jsonl");
    let o = run(&dir, &config, &out, &server).await;
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let errors = errors_of(&out);
    assert_eq!(
        errors[0]["reason"].as_str(),
        Some(
            "grounding failed: tool `news` returned no usable article: the reply is over 16 MiB and was discarded"
        )
    );
    let records = lines(&out);
    let huge = records
        .iter()
        .find(|r| r["topic"] == "sports")
        .expect("sports");
    assert_eq!(huge["grounding"]["truncated"].as_bool(), Some(true));
    assert!(
        huge["grounding"]["chars"]
            .as_u64()
            .is_some_and(|c| c <= 1000 && c > 700),
        "{huge}"
    );
    assert!(
        huge["grounding"]["original_chars"]
            .as_u64()
            .is_some_and(|c| c > 10_000_000 - 20)
    );
    let prompts = generator_prompts(&server);
    assert!(prompts.iter().all(|p| p.len() < 12_000), "bounded prompts");
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("(its first 1000 of") || p.contains("of 10485")),
        "the cut is stated"
    );
    let script = records
        .iter()
        .find(|r| r["topic"] == "health")
        .expect("health");
    assert_eq!(
        script["grounding"]["title"].as_str(),
        Some("Council Votes on the Budget")
    );
    assert!(
        prompts
            .iter()
            .all(|p| !p.contains("<script>") && !p.contains("alert(")),
        "{prompts:?}"
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("The council voted.The budget passed."))
    );
}

/// Bad `run.tools` settings are located errors (file:line:col, exit 2), before anything runs.
async fn config_errors(dir: PathBuf) {
    let cases = [
        (
            "{server: {command: []}, tool: news}",
            "`tools.server.command` is empty",
        ),
        (
            "{server: {command: [x]}, tool: news, arguments: {query: \"{city} news\"}}",
            "names `{city}`",
        ),
        (
            "{server: {command: [x]}, tool: news, max_article_chars: 10}",
            "`tools.max_article_chars` must be at least 200",
        ),
        ("{server: {comand: [x]}, tool: news}", "comand"),
        // Review 31c, F11, F5, F12.
        (
            "{server: {command: [\"\"]}, tool: news}",
            "`tools.server.command` names an empty program",
        ),
        (
            "{server: {command: [python3, 5]}, tool: news}",
            "quote a number",
        ),
        (
            "{server: {command: [\"true\"]}, tool: news, arguments: {query: \"{topic\"}}",
            "no `}` closes",
        ),
        (
            "{server: {command: [x]}, tool: news, arguments: {}}",
            "`tools.arguments` is empty",
        ),
        (
            "{server: {command: [x], env: {K: \"${SCENARIO_ENGINE_TEST_UNSET_VAR}\"}}, tool: news}",
            "is not set in the environment",
        ),
    ];
    for (i, (tools, says)) in cases.into_iter().enumerate() {
        let config = config(&dir, &format!("bad{i}.yaml"), &["sports"], Some(tools));
        let o = cli(&dir, &["plan", path(&config)]).await;
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{tools}: {err}");
        assert!(err.contains(says), "{tools}: {err}");
        assert!(
            err.contains(&format!("bad{i}.yaml:15:")),
            "located at the tools line: {err}"
        );
        // A value of the wrong type says what to write in its message (no hint line).
        assert!(
            err.contains("hint: ") || err.contains("invalid type"),
            "{tools}: {err}"
        );
    }
}

/// Review 31c, F1: Ctrl-C while the tool server starts (it never answers the handshake) or
/// while a call hangs waited out the whole timeout, and the hung scenario was filed as fatal.
/// Now the run stops at once as interrupted, the scenario left to do.
async fn interrupted_while_waiting(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    let started = dir.join("started");
    let silent = serde_json::to_string(&[
        "sh",
        "-c",
        "echo up > \"$0\"; exec sleep 600",
        path(&started),
    ])
    .expect("json");
    let log = dir.join("calls.log");
    let cases = [
        (
            "handshake",
            format!("{{server: {{command: {silent}}}, tool: news, timeout: 30s}}"),
            started.clone(),
        ),
        (
            "call",
            tools(
                &["--hang-on", "sports", "--calls-log", path(&log)],
                ", timeout: 30s",
            ),
            log.clone(),
        ),
    ];
    for (name, tools, sign) in cases {
        let config = config(&dir, &format!("{name}.yaml"), &["sports"], Some(&tools));
        let out = dir.join(format!("{name}.jsonl"));
        let base_url = server.base_url();
        let child = command(&dir, &run_args(&config, &out, &base_url))
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        // The server is being waited on once it has started (or been asked).
        while !std::fs::read_to_string(&sign).is_ok_and(|t| !t.is_empty()) {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let pid = child.id().expect("pid").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill");
        assert!(sent.success());
        let o = child.wait_with_output().await.expect("wait");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains("stopped early: interrupted"), "{name}: {err}");
        assert!(!err.contains("did not answer"), "{name}: {err}");
        assert!(
            errors_of(&out).is_empty(),
            "{name}: nothing filed as failed"
        );
        assert!(lines(&out).is_empty(), "{name}: nothing written");
        assert_eq!(chat_calls(&server), 0, "{name}: no model call");
    }
}

/// Review 31c, F3/F4: a generator prompt file reading `{{ article.title }}` unguarded failed the
/// pre-run check although every scenario is grounded, and a judge's `article` was none. Now
/// the check renders a stand-in article where the run grounds, the prompts get the article,
/// and without `run.tools` the check says grounding is not configured.
async fn prompts_read_the_article(dir: PathBuf) {
    let server = FakeServer::start(FakeConfig::default())
        .await
        .expect("server");
    std::fs::write(
        dir.join("gen.j2"),
        "Title={{ article.title }}\nWrite {{ min_instances }} texts mixing {{ first_language }} \
         and {{ second_language }}.",
    )
    .expect("prompt");
    std::fs::write(
        dir.join("fluency.j2"),
        "Judged against: {{ article.title if article else \"none\" }}\n\
         {% include \"judge_texts\" %}",
    )
    .expect("prompt");
    let agents = "  agents:\n    generator: {prompt: gen.j2}\n    fluency: {prompt: fluency.j2}\n";
    let grounded = config(&dir, "g.yaml", &["sports"], Some(&tools(&[], "")));
    let text_of = std::fs::read_to_string(&grounded).expect("config") + agents;
    std::fs::write(&grounded, text_of).expect("config");
    let out = dir.join("g.jsonl");
    let o = run(&dir, &grounded, &out, &server).await;
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let prompts: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| r.body["messages"][0]["content"].as_str().map(str::to_owned))
        .collect();
    assert!(
        prompts
            .iter()
            .any(|p| p.starts_with(&format!("Title={SPORTS}"))),
        "{prompts:?}"
    );
    assert!(
        prompts
            .iter()
            .any(|p| p.starts_with(&format!("Judged against: {SPORTS}"))),
        "the judge sees the article: {prompts:?}"
    );
    let ungrounded = config(&dir, "u.yaml", &["sports"], None);
    let text_of = std::fs::read_to_string(&ungrounded).expect("config") + agents;
    std::fs::write(&ungrounded, text_of).expect("config");
    let o = run(&dir, &ungrounded, &dir.join("u.jsonl"), &server).await;
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("grounding not configured"), "{err}");
}
