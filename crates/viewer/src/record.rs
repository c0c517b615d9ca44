//! One record, read at its byte offset (its address in the viewer), and its page's values:
//! the texts with each word's language tag from the measurement when the record holds it,
//! each judge's score and feedback, the attempts, the gate's reason, cost and tokens.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use runlog::record::{RecordError, RecordReader, ScenarioRecord, unflatten_key};
use scoring::Judge;
use serde::Serialize;
use serde_json::Value;

/// What one item of a run's reader is to a page or a pass over the run.
pub enum Line<T> {
    /// A record.
    Record(T),
    /// The last line, still being written (no newline yet, not whole): left out, not counted
    /// as unreadable.
    Pending,
    /// A line that is not a record (invalid, too long): skipped and counted.
    Unreadable(RecordError),
}

/// Sorts a reader's item into a [`Line`]; an I/O error stops the reading.
///
/// # Errors
/// The item is an I/O error.
pub fn line<T>(item: Result<T, RecordError>) -> std::io::Result<Line<T>> {
    match item {
        Ok(record) => Ok(Line::Record(record)),
        Err(RecordError::Io { source, .. }) => Err(source),
        Err(RecordError::Torn { .. }) => Ok(Line::Pending),
        Err(e) => Ok(Line::Unreadable(e)),
    }
}

/// Reads the record whose line starts at `offset`; `None` when no line starts there (an offset
/// inside a line, past the end) or the line there is not a record. Returns its line number
/// relative to the offset's (the table knows the file's own).
///
/// # Errors
/// The file cannot be opened or read.
pub fn read_at(path: &Path, offset: u64) -> std::io::Result<Option<(usize, ScenarioRecord)>> {
    let mut file = std::fs::File::open(path)?;
    if offset > 0 {
        // Only the start of a line is an address.
        file.seek(SeekFrom::Start(offset - 1))?;
        let mut before = [0u8; 1];
        if file.read(&mut before)? != 1 || before[0] != b'\n' {
            return Ok(None);
        }
    }
    let mut reader = RecordReader::<_, ScenarioRecord>::new(BufReader::new(file));
    Ok(match reader.next() {
        Some(Ok(located)) if located.offset == 0 => Some((located.line, located.record)),
        _ => None,
    })
}

/// A word of a text and its tag.
#[derive(Debug, Clone, Serialize)]
pub struct Word {
    /// The word as written.
    pub text: String,
    /// Its tag (`english`, `symbol`, `name`, …), or empty.
    pub tag: String,
    /// The tag was inferred rather than read off the word.
    pub inferred: bool,
    /// Its colour, one of a fixed set (a record's words never reach an attribute but
    /// `title`): `l1` the matrix language, `l2` the embedded one, `x` not counted.
    pub class: &'static str,
}

/// A text of the record.
#[derive(Debug, Clone, Serialize)]
pub struct Text {
    /// The text.
    pub text: String,
    /// Its words with their tags, when the measurement kept them.
    pub words: Vec<Word>,
    /// The stored text as shown: invisible characters made visible (`⟨U+200B⟩`), cut at
    /// [`SHOWN_CHARS`] characters.
    pub shown: String,
    /// The stored text was longer than [`SHOWN_CHARS`] characters (its whole length).
    pub cut: Option<usize>,
}

/// A judge's result on the record page.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeView {
    /// The judge's name.
    pub name: String,
    /// Its score, formatted (`–` when the record has none).
    pub score: String,
    /// Its result as written (pretty JSON): feedback, errors, observations.
    pub result: String,
}

/// An attempt on the record page.
#[derive(Debug, Clone, Serialize)]
pub struct AttemptView {
    /// Number (0 the first).
    pub attempt: u32,
    /// The role that wrote it.
    pub produced_by: String,
    /// Its score, formatted.
    pub score: String,
    /// Its texts.
    pub texts: Vec<String>,
    /// Its gate's reason, when it had one.
    pub gate: String,
}

/// Everything the record page shows.
#[derive(Debug, Clone, Serialize)]
pub struct RecordView {
    /// Scenario id.
    pub id: String,
    /// Accepted.
    pub accepted: bool,
    /// Score, formatted.
    pub score: String,
    /// Parameters (`name`, `value`).
    pub params: Vec<(String, String)>,
    /// Texts.
    pub texts: Vec<Text>,
    /// Judges.
    pub judges: Vec<JudgeView>,
    /// Attempts.
    pub attempts: Vec<AttemptView>,
    /// Refinements made.
    pub refinements: u32,
    /// The attempt kept, when recorded.
    pub kept_attempt: String,
    /// Gate decision word and reason.
    pub gate: (String, String),
    /// The record's summary paragraph.
    pub summary: String,
    /// Notes.
    pub notes: Vec<String>,
    /// Cost, formatted.
    pub cost: String,
    /// Prompt and completion tokens.
    pub tokens: (u64, u64),
    /// Calls, cache hits, retries, repairs.
    pub calls: (u32, u32, u32, u32),
    /// Models by agent.
    pub models: Vec<(String, String)>,
    /// The measurement's state word.
    pub measurement: String,
}

impl RecordView {
    /// The page values of `r`.
    #[must_use]
    pub fn new(r: &ScenarioRecord) -> Self {
        let tokens = sentence_tokens(r.measurement.as_ref()).unwrap_or_default();
        let texts = r
            .data_generation_result
            .iter()
            .enumerate()
            .map(|(i, t)| Text {
                shown: visible(t),
                cut: (t.chars().nth(SHOWN_CHARS).is_some()).then(|| t.chars().count()),
                text: t.clone(),
                words: tokens.get(i).cloned().unwrap_or_default(),
            })
            .collect();
        let mut judges: Vec<JudgeView> = Judge::ALL
            .iter()
            .map(|&j| judge_view(j.name(), r, r.judge_result(j)))
            .collect();
        judges.extend(
            r.judge_results
                .iter()
                .map(|(name, result)| judge_view(name, r, result)),
        );
        Self {
            id: r.id.clone(),
            accepted: r.accepted,
            score: format!("{:.2}", r.score),
            params: r
                .params
                .iter()
                .map(|(k, v)| (unflatten_key(k).to_owned(), reports::figures::value_text(v)))
                .collect(),
            texts,
            judges,
            attempts: r.attempts.iter().map(attempt_view).collect(),
            refinements: r.refine_count,
            kept_attempt: r.kept_attempt.map(|a| a.to_string()).unwrap_or_default(),
            gate: (
                crate::query::gate_word(r).to_owned(),
                r.gate
                    .as_ref()
                    .map(|g| g.reason.clone())
                    .unwrap_or_default(),
            ),
            summary: r.summary.clone(),
            notes: r.notes.clone(),
            cost: runlog::money::usd(r.cost_usd),
            tokens: (r.usage.prompt_tokens, r.usage.completion_tokens),
            calls: (r.calls, r.cache_hits, r.retries, r.repairs),
            models: r
                .models
                .iter()
                .map(|(a, m)| (a.clone(), m.clone()))
                .collect(),
            measurement: crate::query::measurement_word(r).to_owned(),
        }
    }
}

/// Characters of a text shown on the record page, at most (a hostile 15 MB text is cut).
pub const SHOWN_CHARS: usize = 100_000;

/// `text` (its first [`SHOWN_CHARS`] characters) with each invisible or look-alike character
/// written as `⟨U+XXXX⟩`: format characters (zero-width, bidi controls, BOM, soft hyphen),
/// controls other than newline and tab, and spaces other than the plain one.
#[must_use]
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(SHOWN_CHARS * 4));
    for c in text.chars().take(SHOWN_CHARS) {
        let hidden = matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
            | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
            | '\u{00A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}'
            | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{E0000}'..='\u{E007F}')
            || (c.is_control() && c != '\n' && c != '\t');
        if hidden {
            out.push_str(&format!("⟨U+{:04X}⟩", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn judge_view(name: &str, r: &ScenarioRecord, result: &Value) -> JudgeView {
    JudgeView {
        name: name.to_owned(),
        score: r
            .scores
            .iter()
            .find(|(j, _)| j.as_str() == name)
            .map_or_else(|| "–".to_owned(), |(_, s)| format!("{s:.2}")),
        result: if result.is_null() {
            String::new()
        } else {
            serde_json::to_string_pretty(result).unwrap_or_default()
        },
    }
}

fn attempt_view(a: &runlog::record::AttemptRecord) -> AttemptView {
    AttemptView {
        attempt: a.attempt,
        produced_by: a.produced_by.name().to_owned(),
        score: format!("{:.2}", a.score),
        texts: a.data_generation_result.clone(),
        gate: a
            .gate
            .as_ref()
            .map(|g| g.reason.clone())
            .unwrap_or_default(),
    }
}

/// Each sentence's tagged words from a measurement (`sentences[i].tokens`), when it kept them.
fn sentence_tokens(measurement: Option<&Value>) -> Option<Vec<Vec<Word>>> {
    let m = measurement?;
    let language = |key: &str| {
        m.get(key)
            .and_then(Value::as_str)
            .map(str::to_lowercase)
            .unwrap_or_default()
    };
    let matrix = match m.get("matrix_language").and_then(Value::as_str) {
        Some(l) => l.to_lowercase(),
        None => language("first_language"),
    };
    let pair = (language("first_language"), language("second_language"));
    let embedded = if matrix == pair.1 { pair.0 } else { pair.1 };
    let sentences = m.get("sentences")?.as_array()?;
    Some(
        sentences
            .iter()
            .map(|s| {
                s.get("tokens")
                    .and_then(Value::as_array)
                    .map(|tokens| {
                        tokens
                            .iter()
                            .filter_map(|t| word(t, &matrix, &embedded))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect(),
    )
}

/// A token (`{"text": …, "tag": "symbol" | {"lang": "english"}, "inferred": true}`).
fn word(token: &Value, matrix: &str, embedded: &str) -> Option<Word> {
    let text = token.get("text")?.as_str()?.to_owned();
    let tag = match token.get("tag") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(map)) => map
            .values()
            .next()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let tag = tag.to_lowercase();
    let class = if !tag.is_empty() && tag == matrix {
        "l1"
    } else if !tag.is_empty() && tag == embedded {
        "l2"
    } else {
        "x"
    };
    Some(Word {
        text,
        tag,
        class,
        inferred: token
            .get("inferred")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}
