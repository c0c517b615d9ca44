//! `scenario-engine schema config|suite` (issue 29): the JSON Schemas accept every config and
//! suite in `fixtures/` and every whole-file example in the docs, reject typo'd keys as the
//! loaders do, and list the same enum values the loaders accept.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema(what: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_scenario-engine"))
        .args(["schema", what])
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the schema is JSON")
}

/// The schema's complaints about `doc` (empty: valid).
fn errors(schema: &Value, doc: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("a valid JSON Schema");
    validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn parse(text: &str, toml: bool) -> Value {
    if toml {
        let table: toml::Table = text.parse().expect("TOML");
        serde_json::to_value(table).expect("JSON")
    } else {
        serde_saphyr::from_str(text).expect("YAML")
    }
}

/// The config loader's verdict (the `run:` section checked as settings too).
fn config_loads(text: &str, ext: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("config.{ext}"));
    std::fs::write(&path, text).expect("written");
    agents::settings::load_config(&path)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn suite_loads(text: &str) -> Result<(), String> {
    bottest::suite::parse_suite(Path::new("suite.yaml"), text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn both_schemas_are_draft_2020_12() {
    for what in ["config", "suite"] {
        let s = schema(what);
        assert_eq!(
            s["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{what}"
        );
    }
}

/// The fixture files of `dir` with one of `exts`, and their text.
fn fixtures(dir: &str, exts: &[&str]) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read");
            (p, text)
        })
        .collect();
    out.sort();
    out
}

/// Every fixture config and suite is valid for the schema and the loader, and names the schema
/// on its first line as the docs show (`# yaml-language-server: $schema=…`, `#:schema` for
/// TOML), which the loaders read as the comment it is.
#[test]
fn every_fixture_config_and_suite_is_valid() {
    let config = schema("config");
    let configs = fixtures("fixtures/configs", &["yaml", "toml"]);
    assert!(configs.len() >= 3, "the fixture configs were found");
    for (path, text) in &configs {
        let toml = path.extension().is_some_and(|e| e == "toml");
        let errs = errors(&config, &parse(text, toml));
        assert!(errs.is_empty(), "{}: {errs:?}", path.display());
        let first = text.lines().next().unwrap_or_default();
        let modeline = if toml {
            "#:schema ./config.schema.json"
        } else {
            "# yaml-language-server: $schema=config.schema.json"
        };
        assert_eq!(first, modeline, "{}", path.display());
        agents::settings::load_config(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let suite = schema("suite");
    let suites = fixtures("fixtures/suites", &["yaml"]);
    assert!(suites.len() >= 2, "the fixture suites were found");
    for (path, text) in &suites {
        let errs = errors(&suite, &parse(text, false));
        assert!(errs.is_empty(), "{}: {errs:?}", path.display());
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            "# yaml-language-server: $schema=suite.schema.json",
            "{}",
            path.display()
        );
        bottest::suite::load_suite(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The schema files beside the fixtures, which their first lines name, are the ones the
/// command prints (regenerate: `scenario-engine schema suite --out fixtures/suites/suite.schema.json`,
/// `scenario-engine schema config --out fixtures/configs/config.schema.json`).
#[test]
fn the_schema_files_beside_the_fixtures_are_current() {
    for (what, file) in [
        ("suite", "fixtures/suites/suite.schema.json"),
        ("config", "fixtures/configs/config.schema.json"),
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("the schema file");
        let stored: Value = serde_json::from_str(&text).expect("JSON");
        assert!(
            stored == schema(what),
            "{file} is stale: regenerate it with `scenario-engine schema {what} --out {file}`"
        );
    }
}

/// Fenced `yaml`/`toml` blocks of a Markdown file, with their first line number.
fn blocks(text: &str) -> Vec<(usize, bool, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, bool, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == "```yaml" || trimmed == "```toml" => {
                current = Some((i + 2, trimmed.ends_with("toml"), String::new()));
            }
            Some(_) if trimmed.starts_with("```") => out.extend(current.take()),
            Some((_, _, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// Examples may hold placeholders (`"..."`) the loader refuses as values; a key it does not
/// know would be a wrong example (and the schema must say so too, as the tests below check).
fn assert_no_unknown_key(at: &str, loaded: Result<(), String>) {
    if let Err(e) = loaded {
        assert!(
            !e.contains("unknown"),
            "{at}: the loader refuses a key: {e}"
        );
    }
}

/// What a whole-file example is, by its top-level keys: a suite has `scenarios:`, a config one
/// of `axes`, `language_pairs`, `fixed` or `pre_execute`. Fragments (a `run:` section alone,
/// one scenario) are neither and are skipped.
fn kind(doc: &Value) -> Option<&'static str> {
    let map = doc.as_object()?;
    if map.contains_key("scenarios") {
        Some("suite")
    } else if ["axes", "language_pairs", "fixed", "pre_execute"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        Some("config")
    } else {
        None
    }
}

/// `schema` with its root replaced by one of its `$defs`.
fn sub_schema(schema: &Value, def: &str) -> Value {
    serde_json::json!({"$ref": format!("#/$defs/{def}"), "$defs": schema["$defs"].clone()})
}

/// A docs fragment (an `expect:` mapping, a scenario's `expect`/`steps`, a `bot:` or `run:`
/// section) checked against the part of the schema it shows; whether one was recognised.
fn fragment(config: &Value, suite: &Value, at: &str, doc: &Value) -> bool {
    let Some(map) = doc.as_object() else {
        return false;
    };
    let expect_keys = suite["$defs"]["Expect"]["properties"]
        .as_object()
        .expect("keys");
    // A block listing the three operators side by side shows alternatives, not one mapping.
    let operators = ["all", "any", "not"]
        .iter()
        .filter(|k| map.contains_key(**k))
        .count();
    let (schema, part) = if operators > 1 {
        return false;
    } else if map.keys().all(|k| expect_keys.contains_key(k)) {
        (sub_schema(suite, "Expect"), doc.clone())
    } else if map.keys().all(|k| k == "expect" || k == "steps") {
        let mut scenario = doc.clone();
        scenario["id"] = "s1".into();
        scenario["category"] = "custom".into();
        if scenario.get("steps").is_none() {
            scenario["steps"] = serde_json::json!(["hello"]);
        }
        (sub_schema(suite, "Scenario"), scenario)
    } else if map.keys().all(|k| k == "bot") {
        (sub_schema(suite, "BotSpec"), doc["bot"].clone())
    } else if map.keys().all(|k| k == "run") {
        let mut whole = doc.clone();
        whole["axes"] = serde_json::json!({"topic": ["a"]});
        (config.clone(), whole)
    } else {
        return false;
    };
    let errs = errors(&schema, &part);
    assert!(errs.is_empty(), "{at}: {errs:?}");
    true
}

#[test]
fn every_whole_file_example_in_the_docs_is_valid_for_schema_and_loader() {
    let (config, suite) = (schema("config"), schema("suite"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.push(root().join("README.md"));
    let (mut configs, mut suites, mut fragments) = (0, 0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        for (line, toml, body) in blocks(&text) {
            let at = format!("{}:{line}", file.display());
            let Ok(doc) = (if toml {
                body.parse::<toml::Table>()
                    .map_err(|e| e.to_string())
                    .and_then(|t| serde_json::to_value(t).map_err(|e| e.to_string()))
            } else {
                serde_saphyr::from_str::<Value>(&body).map_err(|e| e.to_string())
            }) else {
                continue; // not a document (e.g. an excerpt with `…`)
            };
            match kind(&doc) {
                Some("config") => {
                    configs += 1;
                    let loaded = config_loads(&body, if toml { "toml" } else { "yaml" });
                    assert_no_unknown_key(&at, loaded);
                    let errs = errors(&config, &doc);
                    assert!(errs.is_empty(), "{at}: {errs:?}");
                }
                Some(_) => {
                    suites += 1;
                    assert_no_unknown_key(&at, suite_loads(&body));
                    let errs = errors(&suite, &doc);
                    assert!(errs.is_empty(), "{at}: {errs:?}");
                }
                None => fragments += usize::from(fragment(&config, &suite, &at, &doc)),
            }
        }
    }
    assert!(
        configs >= 3 && suites >= 1 && fragments >= 5,
        "examples found: {configs} configs, {suites} suites, {fragments} fragments"
    );
}

const CONFIG: &str = "axes:\n  topic: [food, travel]\nrun:\n  model: m\n  agents:\n    generator:\n      temperature: 0.2\n";

const SUITE: &str = "scenarios:\n  - id: s1\n    category: custom\n    steps: [hello]\n    expect:\n      expectedCalls: [{function: f}]\n";

/// A key the loader rejects as unknown, the schema rejects too; and the untouched text passes both.
#[test]
fn a_typo_d_key_is_rejected_by_schema_and_loader_alike() {
    let config = schema("config");
    assert_eq!(config_loads(CONFIG, "yaml"), Ok(()));
    assert!(errors(&config, &parse(CONFIG, false)).is_empty());
    for (good, typo) in [
        ("temperature", "temprature"),
        ("agents:", "agnets:"),
        ("model: m", "modle: m"),
        ("axes:", "axis:"),
    ] {
        let text = CONFIG.replacen(good, typo, 1);
        assert!(config_loads(&text, "yaml").is_err(), "loader took {typo}");
        assert!(
            !errors(&config, &parse(&text, false)).is_empty(),
            "schema took {typo}"
        );
    }
    let suite = schema("suite");
    assert_eq!(suite_loads(SUITE), Ok(()));
    assert!(errors(&suite, &parse(SUITE, false)).is_empty());
    for (good, typo) in [
        ("expectedCalls", "expectedCall"),
        ("steps", "step"),
        ("scenarios", "scenario"),
        ("- id: s1\n", "- id: s1\n    tag: [x]\n"),
        // Found by feeding both odd suites: the schema took these until it said so.
        ("    steps: [hello]\n", ""),
        (
            "expectedCalls: [{function: f}]",
            "all: [{shouldContain: a}]\n      shouldContain: b",
        ),
    ] {
        let text = SUITE.replacen(good, typo, 1);
        assert!(suite_loads(&text).is_err(), "loader took {typo}");
        assert!(
            !errors(&suite, &parse(&text, false)).is_empty(),
            "schema took {typo}"
        );
    }
}

/// Disagreements found by feeding both odd configs: the schema once refused an empty `run:`
/// (the loader reads it as no section) and took a threshold or weight the loader refuses.
#[test]
fn odd_configs_get_the_same_verdict_from_schema_and_loader() {
    let config = schema("config");
    for (text, valid) in [
        ("axes: {topic: [a]}\nrun:\n", true),
        (
            "axes: {topic: [a]}\nrun: {base_url: [http://a/v1, http://b/v1]}\n",
            true,
        ),
        (
            "axes: {topic: [a]}\nrun: {retry: {base_delay: 1s}, read_timeout: 30000}\n",
            true,
        ),
        ("axes: {topic: {values: [a, b], merge: false}}\n", true),
        (
            "axes: {topic: [a]}\nrun: {weights: {fluency: 2}, threshold: 7.5}\n",
            true,
        ),
        ("axes: {topic: [a]}\nrun: {threshold: 42}\n", false),
        ("axes: {topic: {value: [a, b]}}\n", false),
        (
            "axes: {topic: [a]}\nrun: {gate: {min_switch_point: 2}}\n",
            false,
        ),
        ("axes: {topic: [a]}\nrun: {provider: OpenAI}\n", false),
        ("axes: {topic: [a]}\nrun: {weights: {fluncy: 1}}\n", false),
        // A quoted number is text, and a plain number is no text, in YAML as in TOML.
        ("axes: {topic: [a]}\nseed: \"7\"\n", false),
        ("axes: {topic: [a]}\nrun: {concurrency: \"8\"}\n", false),
        ("axes: {topic: [a]}\nrun: {threshold: \"8\"}\n", false),
        ("name: 5\naxes: {topic: [a]}\n", false),
        ("name: \"5\"\naxes: {topic: [a]}\n", true),
        ("{}\n", false),
        // Declared judges: a name, a prompt and a score field; the weight is the judge's own.
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {prompt: \"{{ instances }}\", score_field: s, weight: 2}}}\n",
            true,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {prompt: \"{{ instances }}\"}}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {prompt: \"{{ instances }}\", score_field: \"\"}}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {score_field: s}}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {fluency: {prompt: x, score_field: s}}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {Tox: {prompt: x, score_field: s}}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {prompt: x, score_field: s}}, weights: {tox: 1}}\n",
            false,
        ),
        (
            "axes: {topic: [a]}\nrun: {judges: {tox: {prompt: x, score_field: s, weight: -1}}}\n",
            false,
        ),
    ] {
        let loader = config_loads(text, "yaml");
        assert_eq!(loader.is_ok(), valid, "loader on {text}: {loader:?}");
        let errs = errors(&config, &parse(text, false));
        assert_eq!(errs.is_empty(), valid, "schema on {text}: {errs:?}");
    }
}

fn enum_values(schema: &Value, def: &str) -> Vec<String> {
    let def = &schema["$defs"][def];
    let values = def["enum"].as_array().cloned().unwrap_or_else(|| {
        // schemars writes documented variants as `oneOf` of `const`s.
        def["oneOf"]
            .as_array()
            .expect("an enum")
            .iter()
            .map(|v| v["const"].clone())
            .collect()
    });
    values
        .iter()
        .map(|v| v.as_str().expect("a name").to_owned())
        .collect()
}

/// The enum values of the schemas are what the loaders accept, both ways.
#[test]
fn enum_values_match_the_parsers() {
    let config = schema("config");
    let modes = enum_values(&config, "RatioJudgeMode");
    assert_eq!(modes, ["measured", "llm", "hybrid"]);
    for mode in &modes {
        assert!(mode.parse::<runlog::RatioJudgeMode>().is_ok(), "{mode}");
        let text = format!("{CONFIG}  ratio_judge: {mode}\n");
        assert_eq!(config_loads(&text, "yaml"), Ok(()), "{mode}");
    }
    let text = format!("{CONFIG}  ratio_judge: measure\n");
    assert!(config_loads(&text, "yaml").is_err());
    assert!(!errors(&config, &parse(&text, false)).is_empty());
    for (def, key) in [
        ("Keep", "keep"),
        ("StructuredModeSetting", "structured_mode"),
        ("ProviderName", "provider"),
    ] {
        for value in enum_values(&config, def) {
            let text = format!("{CONFIG}  {key}: {value}\n");
            let loaded = config_loads(&text, "yaml");
            assert!(
                loaded.is_ok() || !loaded.as_ref().unwrap_err().contains("unknown variant"),
                "{key}: {value}: {loaded:?}"
            );
        }
    }

    let suite = schema("suite");
    // The check names of `defaults.critical`: exactly the loader's.
    let critical: Vec<String> =
        suite["$defs"]["Defaults"]["properties"]["critical"]["items"]["enum"]
            .as_array()
            .expect("enum")
            .iter()
            .map(|v| v.as_str().expect("name").to_owned())
            .collect();
    assert_eq!(critical.len(), scoring::CheckKind::ALL.len());
    for name in &critical {
        let text = format!("defaults:\n  critical: [{name}]\n{SUITE}");
        assert_eq!(suite_loads(&text), Ok(()), "{name}");
    }
    // The keys of `expect:`: every check name, modifier and operator the parser reads, no other.
    let keys: Vec<&String> = suite["$defs"]["Expect"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    for check in scoring::expect::CHECK_NAMES {
        assert!(keys.iter().any(|k| *k == check), "{check} missing");
    }
    assert_eq!(
        keys.len(),
        scoring::expect::CHECK_NAMES.len() + 7,
        "{keys:?}"
    );
    for key in keys {
        // Accepted by name (a wrong value may still be refused, but never as an unknown key).
        let text = SUITE.replacen("expectedCalls: [{function: f}]", &format!("{key}: 1"), 1);
        if let Err(e) = suite_loads(&text) {
            assert!(
                !e.contains(&format!("unknown key `{key}`")) && !e.contains("unknown check"),
                "{key}: {e}"
            );
        }
    }
    // Bot kinds.
    let kinds = enum_values(&suite, "BotKind");
    assert_eq!(kinds, ["scripted", "llm", "http", "command"]);
    for kind in kinds {
        assert!(kind.parse::<bottest::bot::BotKind>().is_ok(), "{kind}");
    }
}

const SCENARIOS: &str = "scenarios:\n  - id: s1\n    category: custom\n    steps: [hello]\n    expect:\n      expectedCalls: [{function: f}]\n";

/// A suite whose one scenario expects `expect` (a YAML flow mapping).
fn with_expect(expect: &str) -> String {
    format!(
        "scenarios:\n  - id: s1\n    category: custom\n    steps: [hello, again]\n    expect: {expect}\n"
    )
}

/// A suite with `extra` (whole lines) before `scenarios:`.
fn with_top(extra: &str) -> String {
    format!("{extra}{SCENARIOS}")
}

/// A suite whose one scenario has the extra keys `extra` (YAML lines indented by 4).
fn with_scenario_keys(extra: &str) -> String {
    format!("{SCENARIOS}{extra}")
}

/// A suite of one template (`id: t`, `category: custom`, then `rest`, a flow mapping's inner
/// text) over the grid `a: [1]`, `s: [[hi]]`.
fn tpl(rest: &str) -> String {
    format!(
        "scenarios:\n  - template: {{id: t, category: custom, {rest}}}\n    grid: {{a: [1], s: [[hi]]}}\n"
    )
}

/// Odd inputs at every key position, each through BOTH the schema and the loader: the same
/// verdict, and the one expected (a both-wrong pair would pass a sameness check alone).
#[test]
fn odd_suites_get_the_same_verdict_from_schema_and_loader() {
    let suite = schema("suite");
    let cases: Vec<(String, bool)> = vec![
        // bot.http, bot.command, bot.llm and what they hold.
        (with_top("bot:\n  http: {url: 'http://x/chat'}\n"), true),
        (with_top("bot:\n  http: {url: 'http://x/chat', urll: y}\n"), false),
        (with_top("bot:\n  http: {url: 'http://x', reply: {txt: /a}}\n"), false),
        (with_top("bot:\n  http: null\n"), true),
        (with_top("bot:\n  command: {program: ./bot, args: [-v]}\n"), true),
        (with_top("bot:\n  command: {program: ./bot, arg: [x]}\n"), false),
        (with_top("bot:\n  command: {program: ./bot, max_reply_bytes: -1}\n"), false),
        (with_top("bot:\n  llm: {model: m, temperature: 0.2}\n"), true),
        (with_top("bot:\n  llm: {modle: m}\n"), false),
        (with_top("bot:\n  kind: robot\n"), false),
        (
            with_top("bot:\n  agents: [{name: a, functions: [{name: f, params: {}}]}]\n"),
            false,
        ),
        // Check arguments.
        (with_expect("{similar: {to: a, threshold: 0.8}}"), true),
        (with_expect("{similar: {to: a, threshold: 0.8, treshold: 1}}"), false),
        (with_expect("{similar: {to: a, threshold: 0}}"), false),
        (with_expect("{similar: {to: a, threshold: 1.5}}"), false),
        (with_expect("{similar: {to: [], threshold: 0.5}}"), false),
        (with_expect("{command: {run: [python3, c.py], timeoutMs: 5}}"), true),
        (with_expect("{command: {run: x, timeout: 5}}"), false),
        (with_expect("{command: {run: x, timeoutMs: 0}}"), false),
        (with_expect("{llmRubric: be polite}"), true),
        (with_expect("{llmRubric: {rubric: r, label: x}}"), false),
        (with_expect("{callCount: {function: f, eq: 1}}"), true),
        (with_expect("{callCount: [{function: f, min: 1, max: 2}]}"), true),
        (with_expect("{callCount: {function: f, equals: 1}}"), false),
        (with_expect("{callCount: {eq: 1, min: 1}}"), false),
        (with_expect("{callCount: {function: f}}"), false),
        (with_expect("{expectedCalls: [{function: f, params: {a: 1}}]}"), true),
        (with_expect("{expectedCalls: [{function: f, args: {}}]}"), false),
        (with_expect("{expectedCalls: []}"), false),
        (with_expect("{shouldMention: [fee, {topic: charge, synonyms: [cost]}]}"), true),
        (with_expect("{shouldMention: [{topic: fee, synonym: [x]}]}"), false),
        (with_expect("{shouldMention: [{topic: fee, synonyms: ['  ']}]}"), false),
        (with_expect("{shouldWarn: [fee, {topic: late delivery fee, synonyms: [late fee]}]}"), true),
        (with_expect("{shouldWarn: {topic: late delivery fee}}"), true),
        (with_expect("{shouldWarn: [{topic: fee, synonym: [x]}]}"), false),
        (with_expect("{shouldWarn: [{synonyms: [x]}]}"), false),
        (with_expect("{shouldAskFor: [amount, {topic: passport number, synonyms: [travel document]}]}"), true),
        (with_expect("{shouldAskFor: [{topic: ' '}]}"), false),
        (with_expect("{shouldAskFor: []}"), false),
        (with_expect("{customValidator: {path: /a, op: eq, value: 1}}"), true),
        (with_expect("{customValidator: {path: /a, op: eq, value: 1, note: x}}"), false),
        (with_expect("{shouldContain: [fee, total]}"), true),
        (with_expect("{shouldContain: []}"), false),
        (with_expect("{shouldContain: '  '}"), false),
        (with_expect("{expectedParams: {}}"), false),
        (with_expect("{maxLatencyMs: 0}"), false),
        (with_expect("{onlyExpectedCalls: false}"), false),
        // Modifiers and plain values.
        (with_expect("{shouldContain: a, weight: 2}"), true),
        (with_expect("{shouldContain: a, weight: 1.5}"), false),
        (with_expect("{shouldContain: a, weight: -1}"), false),
        (with_expect("{shouldContain: a, turn: 0}"), false),
        (with_expect("{shouldContain: a, turn: 2}"), true),
        (with_expect("{shouldContain: a, turn: last}"), true),
        (with_expect("{shouldContain: a, turn: [1, 2]}"), false),
        (with_expect("{shouldContain: a, turn: first}"), false),
        (with_expect("{responseType: Action}"), true),
        (with_expect("{responseType: reply}"), false),
        (with_expect("{expectedFunction: ' '}"), false),
        (
            with_top("bot:\n  agents: [{name: a, functions: [{name: f, parameters: {type: object}}]}]\n"),
            true,
        ),
        (
            with_top("bot:\n  agents: [{name: a, functions: [{name: f, parameters: 5}]}]\n"),
            false,
        ),
        (with_top("bot:\n  http: {url: 'http://x', headers: {A: [b]}}\n"), false),
        (with_top("bot:\n  scripts_file: null\n"), true),
        (with_top("description: null\n"), false),
        (with_scenario_keys("    grid: {a: [1]}\n"), false),
        (
            SCENARIOS.replacen("    expect:\n      expectedCalls: [{function: f}]\n", "    expect: null\n", 1),
            false,
        ),
        (
            SCENARIOS
                .replacen("    expect:\n      expectedCalls: [{function: f}]\n", "    expect: null\n", 1)
                .replacen("steps: [hello]", "steps: [{say: hi, expect: {shouldContain: a}}]", 1),
            true,
        ),
        (with_expect("{shouldReject: true}"), true),
        (with_expect("{shouldReject: \"yes\"}"), false),
        (with_expect("{shouldContain: a, critical: \"true\"}"), false),
        (with_expect("{shouldContain: a, order: strict}"), false),
        (with_expect("{all: [{shouldContain: a}], any: [{shouldContain: b}]}"), false),
        // Scenario keys, templates, scripts.
        (SCENARIOS.replacen("  - id: s1\n", "  - category: x\n", 1).replacen("    category: custom\n", "", 1), false),
        (SCENARIOS.replacen("id: s1", "id: ' '", 1), false),
        (with_scenario_keys("    name: null\n"), true),
        (with_scenario_keys("    timeout_ms: -1\n"), false),
        (with_scenario_keys("    tags: null\n"), true),
        (SCENARIOS.replacen("steps: [hello]", "steps: []", 1), false),
        (SCENARIOS.replacen("steps: [hello]", "steps: [{say: hi, expct: {}}]", 1), false),
        (with_scenario_keys("    script: {turns: [{text: hi}]}\n"), true),
        (with_scenario_keys("    script: {turns: [{error: boom}]}\n"), true),
        (with_scenario_keys("    script: {turns: [{txt: hi}]}\n"), false),
        (with_scenario_keys("    script: {turns: [{error: boom, text: x}]}\n"), false),
        (with_scenario_keys("    script: {turns: [{text: hi, plan: [{function: f, args: {}}]}]}\n"), false),
        (with_scenario_keys("    script: {turns: [{text: hi, signals: {refused: true}}]}\n"), false),
        (with_scenario_keys("    script: {turns: [{text: hi}], outcome: pass}\n"), false),
        (with_scenario_keys("    script: {turns: [{text: hi}], expect_outcome: maybe}\n"), false),
        (
            "scenarios:\n  - template: {id: t, category: custom, steps: ['say {{ a }}'], expect: {shouldContain: x}}\n    grid: {a: [1, 2]}\n".to_owned(),
            true,
        ),
        (
            "scenarios:\n  - template: {id: t, category: custom, steps: [hi], expect: {shouldContain: x}, tag: [a]}\n    grid: {a: [1]}\n".to_owned(),
            false,
        ),
        (
            "scenarios:\n  - template: {id: t, category: custom, steps: [hi], expect: {shouldContain: x}}\n    grid: {a: [1]}\n    category: custom\n".to_owned(),
            false,
        ),
        (
            "scenarios:\n  - template: {category: custom, steps: [hi], expect: {shouldContain: x}}\n    grid: {a: [1]}\n".to_owned(),
            false,
        ),
        // A quoted number is text, and a plain number is no text.
        (with_top("defaults: {threshold: \"100\"}\n"), false),
        (with_expect("{shouldContain: a, weight: \"4\"}"), false),
        (SCENARIOS.replacen("id: s1", "id: 5", 1), false),
        (SCENARIOS.replacen("id: s1", "id: '5'", 1), true),
        (SCENARIOS.replacen("steps: [hello]", "steps: [{say: 5}]", 1), false),
        // A template's contents are checked as a scenario's; a placeholder stands for any value.
        (tpl("steps: [hi], expect: {expectedCall: [{function: f}]}"), false),
        (tpl("steps: [hi], expect: {shouldContain: x}, script: {turns: [{text: hi, zz: 1}]}"), false),
        (tpl("expect: {shouldContain: x}, steps: 5"), false),
        (tpl("steps: [hi], expect: {shouldContain: x}, timeout_ms: -1"), false),
        (tpl("steps: [hi], expect: {shouldContain: x}, tags: 5"), false),
        (tpl("steps: [hi], expect: {shouldContain: x, weight: '{{ a }}'}"), true),
        (tpl("expect: {shouldContain: x}, steps: '{{ s }}'"), true),
        (tpl("steps: [hi], expect: {shouldContain: 'x{{ a }}', turn: 1}"), true),
        (tpl("steps: [hi], expect: {all: [{shouldContian: x}]}"), false),
        // The top level.
        (with_top("name: null\n"), true),
        (with_top("name: [a]\n"), false),
        (with_top("defaults: {threshold: 101}\n"), false),
        (with_top("defaults: {threshold: 100}\n"), true),
        (with_top("defaults: {threshold: -1}\n"), false),
        (with_top("defaults: {weights: {shouldContain: 1.5}}\n"), false),
        (with_top("defaults: {critical: [shouldContian]}\n"), false),
        (with_top("defaults: {embedding_model: null}\n"), true),
        ("scenarios: []\n".to_owned(), false),
        // YAML anchors, aliases and merge keys: the same document for both.
        (
            "x: &b {category: c, steps: [hi], expect: {shouldContain: a}}\nscenarios:\n  - {<<: *b, id: s1}\n".to_owned(),
            false,
        ),
        (
            "scenarios:\n  - &s {id: s1, category: c, steps: [hi], expect: {shouldContain: a}}\n  - {<<: *s, id: s2}\n".to_owned(),
            true,
        ),
        (
            "scenarios:\n  - &s {id: s1, category: c, steps: [hi], expect: {shouldContain: a}}\n  - {<<: *s, id: s2, tag: [x]}\n".to_owned(),
            false,
        ),
        (
            "x-base: &e {shouldContain: a}\nscenarios:\n  - {id: s1, category: c, steps: [hi], expect: *e}\n".to_owned(),
            false,
        ),
        (
            "scenarios:\n  - {id: s1, category: c, steps: [hi], expect: &e {shouldContain: a}}\n  - {id: s2, category: c, steps: [hi], expect: *e}\n".to_owned(),
            true,
        ),
    ];
    let mut wrong = Vec::new();
    for (text, valid) in &cases {
        let loader = suite_loads(text);
        let errs = errors(&suite, &parse(text, false));
        if loader.is_ok() != *valid || errs.is_empty() != *valid {
            wrong.push(format!(
                "{text}\n  expected valid={valid}; loader: {loader:?}; schema: {errs:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreement(s):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Mistakes found once the file is read (a judge's weight, a prompt or scripts file) are named
/// at the key that holds them, with a hint, like every other config or suite mistake.
#[test]
fn named_judges_and_files_are_located_at_their_key() {
    let weights = config_loads(
        "axes: {topic: [a]}\nrun:\n  weights:\n    fluncy: 1\n",
        "yaml",
    );
    let shown = weights.expect_err("no such judge");
    assert!(shown.contains("config.yaml:4:5:"), "{shown}");
    assert!(shown.contains("did you mean `fluency`?"), "{shown}");
    let prompt = config_loads(
        "axes: {topic: [a]}\nrun:\n  agents:\n    generator:\n      prompt: /no/such/prompt.j2\n",
        "yaml",
    );
    let shown = prompt.expect_err("no such prompt file");
    assert!(shown.contains("config.yaml:5:7:"), "{shown}");
    assert!(shown.contains("/no/such/prompt.j2"), "{shown}");
    let scripts = suite_loads(&with_top("bot:\n  scripts_file: nope.yaml\n"));
    let shown = scripts.expect_err("no such scripts file");
    assert!(shown.starts_with("suite.yaml:2:3:"), "{shown}");
    assert!(shown.contains("nope.yaml"), "{shown}");
}

/// Every integer and number of the config schema (the scenario part and `run:`), as JSON
/// pointers from the document's root.
fn numeric_paths(schema: &Value, node: &Value, path: &str, out: &mut Vec<(String, bool)>) {
    if let Some(target) = node.get("$ref").and_then(Value::as_str) {
        let def = target.trim_start_matches("#/$defs/");
        // Recursion guard: a definition is walked once per path depth.
        if path.matches('/').count() < 4 {
            numeric_paths(schema, &schema["$defs"][def], path, out);
        }
        return;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            numeric_paths(schema, branch, path, out);
        }
    }
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"integer") || types.contains(&"number") {
        out.push((path.to_owned(), types.contains(&"integer")));
    }
    for (key, sub) in node
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        numeric_paths(schema, sub, &format!("{path}/{key}"), out);
    }
}

/// Sets `value` at `pointer` in `doc`, creating the mappings on the way.
fn set_at(doc: &mut Value, pointer: &str, value: Value) {
    let mut at = doc;
    let keys: Vec<&str> = pointer.split('/').skip(1).collect();
    for (i, key) in keys.iter().enumerate() {
        if !at.is_object() {
            *at = serde_json::json!({});
        }
        let map = at.as_object_mut().expect("a mapping");
        if i + 1 == keys.len() {
            map.insert((*key).to_owned(), value);
            return;
        }
        at = map
            .entry((*key).to_owned())
            .or_insert_with(|| serde_json::json!({}));
    }
}

/// The schema said `minimum: 0` where the loader needs at least 1 (`concurrency`, `rpm`, …):
/// 0 and -1 at every numeric key of the config schema get the loader's verdict.
#[test]
fn zero_and_negative_numbers_get_the_loader_s_verdict_at_every_key() {
    let config = schema("config");
    let mut paths = Vec::new();
    numeric_paths(&config, &config["$defs"]["NativeFile"], "", &mut paths);
    paths.sort();
    paths.dedup();
    assert!(
        paths.iter().any(|(p, _)| p == "/run/concurrency"),
        "the walk reaches `run:`: {paths:?}"
    );
    let mut wrong = Vec::new();
    for (path, _) in &paths {
        for value in [0, -1, 100_000] {
            let mut doc = serde_json::json!({"axes": {"topic": ["a", "b"]}});
            set_at(&mut doc, path, value.into());
            let text = serde_json::to_string(&doc).expect("JSON");
            let loader = config_loads(&text, "yaml");
            let errs = errors(&config, &doc);
            // One rule compares two keys, which a JSON Schema cannot: min ≤ max instances.
            let cross_key = path == "/run/min_instances" && value > 1;
            if loader.is_ok() != errs.is_empty() && !cross_key {
                wrong.push(format!(
                    "{path} = {value}: loader {loader:?}, schema {errs:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreement(s):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `retry` and `prices` entries dropped an unknown key (`max_retry`) in both; now both refuse it,
/// the loader at its line and column with the right key named.
#[test]
fn retry_and_price_typos_are_refused_by_both() {
    let config = schema("config");
    for (text, valid, near) in [
        (
            "axes: {topic: [a]}\nrun:\n  retry: {max_retries: 3}\n",
            true,
            "",
        ),
        (
            "axes: {topic: [a]}\nrun:\n  retry: {max_retry: 3}\n",
            false,
            "max_retries",
        ),
        (
            "axes: {topic: [a]}\nrun:\n  prices:\n    m: {input_per_mtok: 1, output_per_mtok: 2}\n",
            true,
            "",
        ),
        (
            "axes: {topic: [a]}\nrun:\n  prices:\n    m: {input_per_mtok: 1, output_per_mtok: 2, input_per_mtoks: 3}\n",
            false,
            "input_per_mtok",
        ),
    ] {
        let loader = config_loads(text, "yaml");
        assert_eq!(loader.is_ok(), valid, "{text}: {loader:?}");
        let errs = errors(&config, &parse(text, false));
        assert_eq!(errs.is_empty(), valid, "{text}: {errs:?}");
        if let Err(e) = loader {
            assert!(
                e.contains("config.yaml:3:") || e.contains("config.yaml:4:"),
                "{e}"
            );
            assert!(e.contains(near), "{e}");
        }
        // The same in TOML.
        let doc = parse(text, false);
        let table: toml::Table = serde_json::from_value(doc).expect("a TOML table");
        let toml_text = toml::to_string(&table).expect("TOML");
        let loaded = config_loads(&toml_text, "toml");
        assert_eq!(loaded.is_ok(), valid, "{toml_text}");
        if let Err(e) = loaded {
            assert!(e.contains(&format!("did you mean `{near}`")), "{e}");
        }
    }
}
