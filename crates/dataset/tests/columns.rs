//! The export's columns: the token/tag lists round-trip the measurement's per-word tags, every
//! sentence has its entry in each per-sentence list, and parameters become typed columns
//! whatever their values (nested objects, types mixed across records).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use codeswitch::{UntaggedReason, WordTag};
use dataset::{DedupPolicy, ExportOptions, Format, export};
use serde_json::Value;

fn template() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/record-v1.jsonl");
    let text = std::fs::read_to_string(path).expect("fixture");
    serde_json::from_str(text.lines().next().expect("a record")).expect("json")
}

fn options() -> ExportOptions {
    ExportOptions {
        format: Format::Jsonl,
        splits: "1".parse().expect("splits"),
        accepted_only: false,
        dedup: DedupPolicy::Mark,
        seed: 0,
        force: true,
        allow_partial: false,
    }
}

fn write_run(dir: &Path, records: &[Value]) -> PathBuf {
    let path = dir.join("run.jsonl");
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).expect("write");
    path
}

fn rows(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("data/train-00000-of-00001.jsonl")).expect("rows");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a row"))
        .collect()
}

fn code(tag: WordTag) -> String {
    match tag {
        WordTag::Lang(l) => match l.name() {
            "Hindi" => "hi".to_owned(),
            "English" => "en".to_owned(),
            "Spanish" => "es".to_owned(),
            other => panic!("unexpected language {other}"),
        },
        WordTag::Untagged(r) => match r {
            UntaggedReason::Number => "number",
            UntaggedReason::Name => "name",
            UntaggedReason::Ambiguous => "ambiguous",
            UntaggedReason::OtherLanguage => "other_language",
            UntaggedReason::Symbol => "symbol",
        }
        .to_owned(),
    }
}

#[test]
fn token_tags_in_the_export_equal_the_measurements_tags_for_every_sentence() {
    let dir = tempfile::tempdir().expect("tmp");
    let batches: [(&str, &str, Vec<&str>); 3] = [
        (
            "Hindi",
            "English",
            vec![
                "मैं कल office जाऊँगा, meeting 3 बजे है!",
                "यह project बहुत important है।",
            ],
        ),
        (
            "Spanish",
            "English",
            vec![
                "Oye, vamos al mall después del trabajo?",
                "No sé, tengo un deadline mañana con Maria.",
            ],
        ),
        ("Hindi", "English", vec!["Hello there, see you tomorrow."]),
    ];
    let base = template();
    let mut records = Vec::new();
    let mut expected = BTreeMap::new();
    for (i, (first, second, texts)) in batches.iter().enumerate() {
        let texts: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
        let m = codeswitch::measure(&texts, first, second).expect("measure");
        let mut r = base.clone();
        r["id"] = Value::from(format!("r{i}"));
        r["topic"] = Value::from(format!("topic {i}"));
        r["first_language"] = Value::from(*first);
        r["second_language"] = Value::from(*second);
        r["data_generation_result"] = serde_json::to_value(&texts).expect("texts");
        let available = m.is_available();
        let tags: Vec<(Vec<String>, Vec<String>)> = if available {
            m.sentences
                .iter()
                .map(|s| {
                    assert!(!s.tokens.is_empty(), "the measurement keeps its tokens");
                    (
                        s.tokens.iter().map(|t| t.text.clone()).collect(),
                        s.tokens.iter().map(|t| code(t.tag)).collect(),
                    )
                })
                .collect()
        } else {
            texts
                .iter()
                .map(|t| {
                    let words: Vec<String> = codeswitch::words::words(t).collect();
                    let tags = vec!["unavailable".to_owned(); words.len()];
                    (words, tags)
                })
                .collect()
        };
        r["measurement"] = serde_json::to_value(&m).expect("measurement");
        expected.insert(format!("r{i}"), tags);
        records.push(r);
    }
    let run = write_run(dir.path(), &records);
    let out = dir.path().join("ds");
    export(&run, &out, &options()).expect("export");
    let rows = rows(&out);
    assert_eq!(rows.len(), records.len());
    for row in &rows {
        let id = row["id"].as_str().expect("id");
        let want = &expected[id];
        let tokens: Vec<Vec<String>> =
            serde_json::from_value(row["tokens"].clone()).expect("tokens");
        let tags: Vec<Vec<String>> = serde_json::from_value(row["tags"].clone()).expect("tags");
        let texts = row["texts"].as_array().expect("texts").len();
        assert_eq!(tokens.len(), texts, "{id}: one token list per sentence");
        assert_eq!(tags.len(), texts, "{id}: one tag list per sentence");
        for (i, (words, want_tags)) in want.iter().enumerate() {
            assert_eq!(&tokens[i], words, "{id} sentence {i}");
            assert_eq!(&tags[i], want_tags, "{id} sentence {i}");
            assert_eq!(
                tokens[i].len(),
                tags[i].len(),
                "{id} sentence {i}: parallel"
            );
        }
        for list in [
            "sentence_status",
            "sentence_coverage",
            "sentence_embedded_ratio",
            "sentence_switch_points",
            "sentence_cmi",
        ] {
            assert_eq!(
                row[list].as_array().map(Vec::len),
                Some(texts),
                "{id}: {list}"
            );
        }
    }
    // The Hindi–English batch is measured: its tags carry both languages.
    let hi: Vec<String> = expected["r0"].iter().flat_map(|(_, t)| t.clone()).collect();
    assert!(
        hi.contains(&"hi".to_owned()) && hi.contains(&"en".to_owned()),
        "{hi:?}"
    );
}

/// Break-it (issue 30): a record v1 (per-sentence figures, no tokens, no status) exported its
/// per-sentence figures as null and every `sentence_status` as `unavailable`. Its texts are
/// measured again; the measurement of today reproduces every recorded figure, so its tokens,
/// tags and per-sentence figures are exported, marked `sentences_recomputed`.
#[test]
fn an_old_record_is_measured_again_when_the_measurement_reproduces_its_figures() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/runs/record-v1.jsonl");
    let records: Vec<Value> = std::fs::read_to_string(&run)
        .expect("fixture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("record"))
        .collect();
    let out = dir.path().join("ds");
    let summary = export(&run, &out, &options()).expect("export");
    assert_eq!(summary.rows, 3);
    let rows = rows(&out);
    for record in &records {
        let row = rows.iter().find(|r| r["id"] == record["id"]).expect("row");
        let m = &record["measurement"];
        assert!(m.get("status").is_none(), "a record before statuses");
        assert_eq!(row["sentences_recomputed"], true);
        for (i, sentence) in m["sentences"]
            .as_array()
            .expect("sentences")
            .iter()
            .enumerate()
        {
            assert!(sentence.get("tokens").is_none(), "a record before tokens");
            assert_eq!(row["sentence_cmi"][i], sentence["cmi"]);
            assert_eq!(
                row["sentence_embedded_ratio"][i],
                sentence["embedded_ratio"]
            );
            assert_eq!(row["sentence_switch_points"][i], sentence["switch_points"]);
            assert_eq!(row["sentence_status"][i], "ok");
        }
        let texts: Vec<String> =
            serde_json::from_value(record["data_generation_result"].clone()).expect("texts");
        let again = codeswitch::measure(&texts, "Arabic", "English").expect("measure");
        let tags: Vec<Vec<String>> = serde_json::from_value(row["tags"].clone()).expect("tags");
        for (s, row_tags) in again.sentences.iter().zip(&tags) {
            let want: Vec<String> = s.tokens.iter().map(|t| code_ar(t.tag)).collect();
            assert_eq!(row_tags, &want);
        }
    }
}

fn code_ar(tag: WordTag) -> String {
    match tag {
        WordTag::Lang(l) if l.name() == "Arabic" => "ar".to_owned(),
        other => code(other),
    }
}

/// When the measurement of today does not reproduce the record's figures (here: one recorded
/// figure changed), nothing is re-guessed: the recorded per-sentence figures are exported,
/// the tags are `unavailable` and the sentence status null (measured, not judged one by one);
/// a record whose measurement is unavailable says `unavailable`.
#[test]
fn an_old_record_whose_figures_are_not_reproduced_keeps_them_and_claims_no_tags() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut changed = template();
    changed["id"] = Value::from("changed");
    changed["measurement"]["sentences"][0]["cmi"] = Value::from(12.5);
    let mut unavailable = template();
    unavailable["id"] = Value::from("unavailable");
    unavailable["topic"] = Value::from("another topic");
    unavailable["data_generation_result"] = Value::from(vec!["a text no one measured"]);
    unavailable["measurement"] = serde_json::json!({"status": "unavailable"});
    // Four recorded sentences for two texts: the figures are not these texts', so not read.
    let mut mismatched = template();
    mismatched["id"] = Value::from("mismatched");
    mismatched["topic"] = Value::from("a third topic");
    mismatched["data_generation_result"] = Value::from(vec!["one text", "two texts"]);
    let run = write_run(dir.path(), &[changed, unavailable, mismatched]);
    let out = dir.path().join("ds");
    export(&run, &out, &options()).expect("export");
    let rows = rows(&out);
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).expect("row").clone();
    let changed = row("changed");
    assert_eq!(changed["sentences_recomputed"], false);
    assert_eq!(changed["sentence_cmi"][0], 12.5);
    assert!(changed["sentence_cmi"][1].is_f64());
    // Every sentence's status is null: the list is null as a whole.
    assert_eq!(changed["sentence_status"], Value::Null);
    for tags in changed["tags"].as_array().expect("tags") {
        assert!(
            tags.as_array()
                .expect("tags")
                .iter()
                .all(|t| t == "unavailable")
        );
    }
    let unavailable = row("unavailable");
    assert_eq!(unavailable["sentence_status"][0], "unavailable");
    assert_eq!(unavailable["sentence_cmi"], Value::Null);
    let mismatched = row("mismatched");
    assert_eq!(mismatched["sentence_cmi"], Value::Null);
    assert_eq!(mismatched["sentences_recomputed"], false);
}

/// Break-it (issue 30): a mixed-type column wrote the string `"true"` and the boolean `true`
/// alike (`true`), and an integer beyond 2^53 mixed with fractions became a rounded float; an
/// integer beyond `i64` too. A mixed column is now `json` (every value as its JSON text), and
/// big integers stay exact.
#[test]
fn params_become_typed_columns_whatever_their_values() {
    let dir = tempfile::tempdir().expect("tmp");
    let base = template();
    let big = (1_i64 << 53) + 1;
    let values = [
        (
            Value::from(1),
            Value::from(true),
            serde_json::json!({"a": [1, 2]}),
            Value::from(0.5),
        ),
        (
            Value::from(2.5),
            Value::from(false),
            Value::from("text"),
            Value::Null,
        ),
        (
            Value::from("three"),
            Value::Null,
            serde_json::json!([1, "x"]),
            Value::from(7),
        ),
        (
            Value::from("true"),
            Value::from(true),
            Value::from("{\"a\":[1,2]}"),
            Value::from(8),
        ),
        (
            Value::from(true),
            Value::from(true),
            Value::Null,
            Value::from(9),
        ),
    ];
    let records: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, (mixed, flag, nested, num))| {
            let mut r = base.clone();
            r["id"] = Value::from(format!("r{i}"));
            r["topic"] = Value::from(format!("topic {i}"));
            r["data_generation_result"] = Value::from(vec![format!("text number {i} here")]);
            r["mixed"] = mixed.clone();
            r["flag"] = flag.clone();
            r["nested"] = nested.clone();
            r["num"] = num.clone();
            r["big"] = Value::from(big + i as i64);
            r["big_mixed"] = if i == 0 {
                Value::from(0.5)
            } else {
                Value::from(big)
            };
            r["huge"] = Value::from(u64::MAX - i as u64);
            r["ключ 🙂: #"] = Value::from(i);
            r
        })
        .collect();
    let run = write_run(dir.path(), &records);
    let out = dir.path().join("ds");
    let summary = export(&run, &out, &options()).expect("export");
    let kinds: BTreeMap<String, String> = summary
        .param_columns
        .iter()
        .map(|(n, k)| {
            (
                n.clone(),
                serde_json::to_value(k)
                    .expect("kind")
                    .as_str()
                    .expect("s")
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(kinds["param_mixed"], "json");
    assert_eq!(kinds["param_flag"], "bool");
    assert_eq!(kinds["param_nested"], "json");
    assert_eq!(kinds["param_num"], "float");
    assert_eq!(kinds["param_big"], "int");
    assert_eq!(kinds["param_big_mixed"], "json");
    assert_eq!(kinds["param_huge"], "json");
    assert_eq!(kinds["param_topic"], "text");
    assert_eq!(kinds["param_ключ 🙂: #"], "int");
    let rows = rows(&out);
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).expect("row").clone();
    assert_eq!(row("r0")["param_mixed"], "1");
    assert_eq!(row("r2")["param_mixed"], "\"three\"");
    assert_eq!(row("r3")["param_mixed"], "\"true\"");
    assert_eq!(row("r4")["param_mixed"], "true");
    assert_eq!(row("r0")["param_nested"], r#"{"a":[1,2]}"#);
    assert_eq!(row("r3")["param_nested"], r#""{\"a\":[1,2]}""#);
    assert_eq!(row("r1")["param_flag"], false);
    assert_eq!(row("r2")["param_flag"], Value::Null);
    assert_eq!(row("r2")["param_num"], 7.0);
    assert_eq!(row("r1")["param_big"], big + 1);
    assert_eq!(row("r1")["param_big_mixed"], big.to_string());
    assert_eq!(row("r0")["param_big_mixed"], "0.5");
    assert_eq!(row("r0")["param_huge"], u64::MAX.to_string());
    assert_eq!(row("r2")["param_ключ 🙂: #"], 2);
    // Every JSON-text value reads back as the value it was, and the `params` JSON keeps every
    // parameter as it was.
    for (i, r) in records.iter().enumerate() {
        let row = row(&format!("r{i}"));
        for (name, column) in [("mixed", "param_mixed"), ("big_mixed", "param_big_mixed")] {
            let back: Value =
                serde_json::from_str(row[column].as_str().expect("json text")).expect("json");
            assert_eq!(back, r[name], "{column} of r{i}");
        }
        let params: Value =
            serde_json::from_str(row["params"].as_str().expect("params")).expect("json");
        for name in ["nested", "mixed", "big", "big_mixed", "huge", "ключ 🙂: #"] {
            assert_eq!(params[name], r[name], "{name} of r{i}");
        }
    }
    // The card's features name every column, the unusual name quoted.
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert!(
        card.contains("  - name: \"param_ключ 🙂: #\"\n    dtype: int64\n"),
        "{card}"
    );
    assert!(card.contains("  - name: \"param_huge\"\n    dtype: string\n"));
}

/// Break-it review (issue 30): a record stores an axis named like one of its own fields
/// (`score`) as `param_score`, and one named `param_score` as `param_param_score`. The export
/// names them by the scenario's own names: the `params` JSON gives the scenario's parameters
/// back, and `param_score` is the `score` axis.
#[test]
fn params_named_like_record_fields_keep_their_own_names() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut r = template();
    r["id"] = Value::from("odd");
    r["param_score"] = Value::from(1);
    r["param_param_score"] = Value::from("a");
    r["param_accepted"] = Value::from("no");
    let run = write_run(dir.path(), &[r]);
    let out = dir.path().join("out");
    export(&run, &out, &options()).expect("export");
    let row = &rows(&out)[0];
    let params: BTreeMap<String, Value> =
        serde_json::from_str(row["params"].as_str().expect("params JSON")).expect("JSON");
    assert_eq!(params["score"], Value::from(1), "{params:?}");
    assert_eq!(params["param_score"], Value::from("a"), "{params:?}");
    assert_eq!(params["accepted"], Value::from("no"), "{params:?}");
    assert!(!params.contains_key("param_param_score"), "{params:?}");
    assert_eq!(row["param_score"], Value::from(1), "the `score` axis");
    assert_eq!(
        row["param_param_score"],
        Value::from("a"),
        "the `param_score` axis"
    );
    assert_eq!(row["param_accepted"], Value::from("no"));
    assert!(row.get("param_param_param_score").is_none(), "{row}");
}

/// Break-it review (issue 30): the card's `language:` codes are quoted, so Norwegian `no` is
/// not read as the YAML boolean false.
#[test]
fn the_cards_language_codes_are_strings() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut r = template();
    r["first_language"] = Value::from("Norwegian");
    r["second_language"] = Value::from("English");
    let run = write_run(dir.path(), &[r]);
    let out = dir.path().join("out");
    export(&run, &out, &options()).expect("export");
    let card = std::fs::read_to_string(out.join("README.md")).expect("card");
    assert!(card.contains("- \"no\"\n"), "{card}");
    assert!(!card.contains("- no\n"), "{card}");
}
