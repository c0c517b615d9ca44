//! The benchmark's run: N pipeline records of the real shape (schema version 2: parameters,
//! 3–5 code-switched texts of about 350 characters, the four judges' results and scores, the
//! gate, the measurement, attempts, cost and run settings), about 4 KB a line (a little more
//! than the 3.4 KB), written by string formatting from pre-escaped pieces so a 4 GB
//! file takes seconds, not minutes. Deterministic: record `i` is a function of `i` alone.

use std::io::{self, Write};

/// A word no other text holds, in the first text of every [`RARE_EVERY`]-th record: the text
/// search's needle.
pub(crate) const RARE_WORD: &str = "quetzalcoatl";

/// Records `0, RARE_EVERY, 2·RARE_EVERY, …` hold [`RARE_WORD`].
pub(crate) const RARE_EVERY: u64 = 10_007;

/// How many of `n` records hold [`RARE_WORD`].
pub(crate) fn rare_records(n: u64) -> u64 {
    n.div_ceil(RARE_EVERY)
}

const TOPICS: [&str; 20] = [
    "health",
    "travel",
    "food",
    "technology",
    "sports",
    "music",
    "family",
    "work",
    "school",
    "shopping",
    "weather",
    "movies",
    "politics",
    "finance",
    "religion",
    "fashion",
    "gaming",
    "cooking",
    "housing",
    "transport",
];
const PERSONAS: [&str; 10] = [
    "student",
    "nurse",
    "taxi driver",
    "retired teacher",
    "software engineer",
    "street vendor",
    "new parent",
    "football fan",
    "small-business owner",
    "grandmother",
];
const TENSES: [&str; 3] = ["Past", "Present", "Future"];
const RATIOS: [&str; 5] = ["10%", "20%", "30%", "40%", "50%"];
const AGES: [&str; 5] = ["18-25", "26-35", "36-45", "46-55", "56-65"];
const CS_TYPES: [&str; 3] = ["Intrasentential", "Intersentential", "Tag-switching"];
const PAIRS: [(&str, &str); 4] = [
    ("Spanish", "English"),
    ("Hindi", "English"),
    ("Arabic", "English"),
    ("French", "English"),
];

/// Sentences a text is made of ([`SENTENCES_PER_TEXT`] of them make about 350 characters).
const SENTENCES: [&str; 24] = [
    "Ayer fui al mercado con mi hermana and we ended up buying way more fruit than we needed.",
    "No sé si voy a poder llegar a tiempo, the traffic on the highway is absolutely terrible today.",
    "Mi jefe me dijo que el deadline es el viernes, so I guess the weekend plans are cancelled.",
    "La verdad es que the new update made the app slower, pero al menos ya no se cierra sola.",
    "Cuando era niño we used to spend every summer en la casa de mis abuelos cerca del mar.",
    "Oye, did you see the match last night? El segundo tiempo estuvo increíble, qué golazo.",
    "Tengo que llamar al doctor mañana because the pain in my knee still hasn't gone away.",
    "El profesor nos dejó mucha tarea, and honestly I have no idea where to even start with it.",
    "We should totally try that new restaurant, dicen que los tacos al pastor son buenísimos.",
    "Mi mamá siempre dice que hay que ahorrar, but it's hard when rent keeps going up every year.",
    "I'm going to the gym después del trabajo, si no me quedo dormido en el sofá primero.",
    "La película empezó muy lenta, but the ending was so good that I want to watch it again.",
    "Necesito comprar un regalo para mi sobrino, any ideas for a kid who loves dinosaurs?",
    "The weather app said it would be sunny, pero mira, está lloviendo a cántaros otra vez.",
    "Estoy pensando en cambiar de trabajo because the commute is eating up my whole day.",
    "My flight got delayed otra vez, así que voy a pasar la noche en el aeropuerto, great.",
    "Si quieres vamos juntos al concierto, I already have an extra ticket que nadie usa.",
    "Let me know cuando llegues a casa, I worry when you drive so late at night by yourself.",
    "Hoy cociné arroz con pollo por primera vez and it actually turned out pretty decent.",
    "The meeting ran long otra vez y no pude almorzar, estoy muerto de hambre ahora mismo.",
    "A mi abuela le encanta la telenovela de las nueve, she never misses a single episode.",
    "We're saving up para las vacaciones, maybe a week at the beach if prices go down a bit.",
    "El banco me cobró una comisión rarísima, so I spent an hour on the phone with them.",
    "Después de la clase de yoga I feel so relaxed, aunque mañana me van a doler los brazos.",
];

/// Sentences in one text.
const SENTENCES_PER_TEXT: u64 = 4;

const FLUENCY: [&str; 4] = [
    "Several sentences break off mid-clause after the switch.",
    "Good variety of switch types, and the embedded words are everyday vocabulary.",
    "Grammatical throughout; the switches respect both languages' word order.",
    "One sentence repeats a phrase in both languages, which reads as a translation.",
];
const NATURALNESS: [&str; 3] = [
    "The batch reads naturally and the switches fall at clause boundaries, as bilingual speakers tend to do.",
    "Some switches feel forced: a function word switches alone, which speakers rarely do.",
    "Natural register for the persona; the discourse markers switch the way they do in speech.",
];
const RATIO_NOTES: [&str; 3] = [
    "Slightly fewer embedded words than requested in the last sentence; otherwise on target.",
    "On target across the batch.",
    "Too many embedded words in the second text; the batch average is above the target.",
];
const SOCIAL: [&str; 3] = [
    "Overall the sentences are idiomatic; one switch feels slightly forced but acceptable.",
    "The references fit the persona and the topic; nothing reads as a stereotype.",
    "One idiom is translated literally and may sound unnatural to native speakers.",
];

/// splitmix64: a well-mixed hash of a counter, the generator's only source of variety.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn pick<T: Copy>(items: &[T], h: u64) -> T {
    items[usize::try_from(h % items.len() as u64).unwrap_or(0)]
}

/// A score in [5, 10) with two decimals (their mean reaches the threshold 8 about a third of
/// the time).
#[allow(clippy::cast_precision_loss, reason = "at most 1000, exact in an f64")]
fn score(h: u64) -> f64 {
    (500 + h % 500) as f64 / 100.0
}

/// `s` as a JSON string's inside (quotes and backslashes escaped), computed once per piece.
fn escaped(s: &str) -> String {
    let quoted = serde_json::Value::from(s).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// Writes the records `0..n` of the benchmark's run to `out`, one JSON line each.
pub(crate) struct Generator {
    sentences: Vec<String>,
    scratch: String,
}

impl Generator {
    pub(crate) fn new() -> Self {
        Self {
            sentences: SENTENCES.iter().map(|s| escaped(s)).collect(),
            scratch: String::with_capacity(8 * 1024),
        }
    }

    /// Writes records `0..n`.
    ///
    /// # Errors
    /// The writer's error.
    pub(crate) fn write(&mut self, n: u64, out: &mut impl Write) -> io::Result<()> {
        for i in 0..n {
            self.record(i);
            out.write_all(self.scratch.as_bytes())?;
        }
        Ok(())
    }

    /// Record `i`, as one line (with its newline), into `self.scratch`.
    fn record(&mut self, i: u64) {
        use std::fmt::Write as _;
        let h = mix(i);
        let s = &mut self.scratch;
        s.clear();
        let (first, second) = pick(&PAIRS, h >> 20);
        let _ = write!(
            s,
            "{{\"schema_version\":2,\"id\":\"{h:016x}\",\"index\":{i},\"age\":\"{}\",\
             \"conversation_type\":\"{}\",\"cs_ratio\":\"{}\",\"cs_type\":\"{}\",\
             \"first_language\":\"{first}\",\"persona\":\"{}\",\"second_language\":\"{second}\",\
             \"tense\":\"{}\",\"topic\":\"{}\",\"use_tools\":false,",
            pick(&AGES, h >> 4),
            if h & 1 == 0 {
                "single-turn"
            } else {
                "multi-turn"
            },
            pick(&RATIOS, h >> 8),
            pick(&CS_TYPES, h >> 12),
            pick(&PERSONAS, h >> 16),
            pick(&TENSES, h >> 24),
            pick(&TOPICS, h >> 28),
        );
        let judges = [
            score(mix(h ^ 1)),
            score(mix(h ^ 2)),
            score(mix(h ^ 3)),
            score(mix(h ^ 4)),
        ];
        let total = (judges.iter().sum::<f64>() / 4.0 * 100.0).round() / 100.0;
        // Gate: 1 in 20 refused, 1 in 20 undecided, 1 in 50 without a verdict.
        let gate = match (h >> 32) % 100 {
            0..=4 => Some((
                "false",
                "2 of 4 texts have no switch point (at least 1 each)",
            )),
            5..=9 => Some((
                "null",
                "undecided: coverage 0.55 is below 0.7 (judges decide)",
            )),
            10 | 11 => None,
            _ => Some(("true", "every text has a switch point (at least 1 each)")),
        };
        let accepted = total >= 8.0 && gate.is_none_or(|(passed, _)| passed != "false");
        let _ = write!(s, "\"accepted\":{accepted},\"data_generation_result\":[");
        let texts = 3 + (h >> 36) % 3;
        for t in 0..texts {
            if t > 0 {
                s.push(',');
            }
            s.push('"');
            for k in 0..SENTENCES_PER_TEXT {
                if k > 0 {
                    s.push(' ');
                }
                s.push_str(
                    &self.sentences[usize::try_from(mix(h ^ (t * 8 + k + 16)) % 24).unwrap_or(0)],
                );
            }
            if t == 0 && i.is_multiple_of(RARE_EVERY) {
                let _ = write!(s, " Mi hermano trajo un {RARE_WORD} de peluche.");
            }
            s.push('"');
        }
        let [fluency, naturalness, ratio, social] = judges;
        let measured = ratio * 0.1;
        let _ = write!(
            s,
            "],\"fluency_result\":{{\"errors\":[],\"fluency_score\":{fluency:.2},\"summary\":\"{}\"}},\
             \"naturalness_result\":{{\"naturalness_score\":{naturalness:.2},\"observations\":\
             {{\"sentence_2\":\"{}\"}},\"summary\":\"{}\"}},\
             \"cs_ratio_result\":{{\"computed_ratio\":{measured:.3},\"llm_computed_ratio\":{measured:.2},\
             \"llm_ratio_score\":{ratio:.2},\"measured_ratio_score\":{ratio:.2},\"method\":\"hybrid\",\
             \"notes\":\"{}\",\"ratio_score\":{ratio:.2}}},\
             \"social_cultural_result\":{{\"issues\":[],\"socio_cultural_score\":{social:.2},\"summary\":\"{}\"}},\
             \"score\":{total:.2},\"scores\":{{\"cs_ratio\":{ratio:.2},\"fluency\":{fluency:.2},\
             \"naturalness\":{naturalness:.2},\"socio_cultural\":{social:.2}}},",
            pick(&FLUENCY, h >> 40),
            pick(&NATURALNESS, h >> 42),
            pick(&NATURALNESS, h >> 44),
            pick(&RATIO_NOTES, h >> 46),
            pick(&SOCIAL, h >> 48),
        );
        let refinements = (h >> 50) % 3;
        let gate_json = gate.map(|(passed, reason)| {
            format!(",\"gate\":{{\"passed\":{passed},\"reason\":\"{reason}\"}}")
        });
        let gate_json = gate_json.as_deref().unwrap_or("");
        let _ = write!(s, "\"refine_count\":{refinements},\"attempts\":[");
        for a in 0..=refinements {
            let by = if a == 0 { "generator" } else { "refiner" };
            let earlier = if a == refinements {
                total
            } else {
                score(mix(h ^ (a + 9)))
            };
            let _ = write!(
                s,
                "{}{{\"attempt\":{a},\"produced_by\":\"{by}\",\"score\":{earlier:.2}{gate_json}}}",
                if a > 0 { "," } else { "" }
            );
        }
        s.push_str("],");
        measurement(s, h, first, second, texts);
        let _ = writeln!(
            s,
            "\"kept_attempt\":{refinements}{gate_json},\"summary\":\"{} at {total:.2} (threshold 8). \
             fluency {fluency:.2}, naturalness {naturalness:.2}, cs_ratio {ratio:.2}, \
             socio_cultural {social:.2}.\",\"models\":{{\"cs_ratio\":\"gpt-4o-mini\",\
             \"fluency\":\"gpt-4o-mini\",\"generator\":\"gpt-4o\",\"naturalness\":\"gpt-4o-mini\",\
             \"refiner\":\"gpt-4o\",\"socio_cultural\":\"gpt-4o-mini\"}},\
             \"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"estimated\":false}},\
             \"cost_usd\":{:.6},\"calls\":{},\"cache_hits\":0,\"retries\":{},\"repairs\":0,\
             \"coercions\":[],\"run_settings\":{{\"threshold\":8.0,\"weights\":{{\"cs_ratio\":1.0,\
             \"fluency\":1.0,\"naturalness\":1.0,\"socio_cultural\":1.0}},\"ratio_judge\":\"hybrid\",\
             \"max_refinements\":2,\"gate\":{{\"enabled\":true,\"min_switch_points\":1,\
             \"undecided\":\"judges\"}},\"keep\":\"last\"}}}}",
            if accepted { "Accepted" } else { "Rejected" },
            1500 + (h >> 8) % 900,
            300 + (h >> 18) % 200,
            0.0011 * (refinements + 1) as f64,
            5 * (refinements + 1),
            (h >> 60) % 2,
        );
    }
}

/// The record's measurement (1 in 40 records has none, 2 in 40 an unavailable one).
fn measurement(s: &mut String, h: u64, first: &str, second: &str, texts: u64) {
    use std::fmt::Write as _;
    match (h >> 52) % 40 {
        0 => {}
        1 | 2 => s.push_str(
            "\"measurement\":{\"status\":\"unavailable\",\"status_reason\":\"romanized text \
             without a detector\",\"coverage\":null,\"embedded_ratio\":null,\
             \"matrix_language\":null,\"switch_points\":null,\"cmi\":null,\"sentences\":[]},",
        ),
        _ => {
            let tagged = 60 + (h >> 56) % 40;
            let embedded = tagged * (2 + (h >> 58) % 3) / 10;
            let _ = write!(
                s,
                "\"measurement\":{{\"status\":\"ok\",\"coverage\":0.94,\
                 \"embedded_ratio\":{:.4},\"first_language\":\"{first}\",\
                 \"matrix_language\":\"{first}\",\"second_language\":\"{second}\",\
                 \"switch_points\":{},\"cmi\":31.2,\"m_index\":0.91,\"i_index\":0.38,\
                 \"burstiness\":-0.12,\"tagged\":{{\"first\":{},\"second\":{embedded}}},\
                 \"words\":{},\"sentences\":[]}},",
                embedded as f64 / tagged as f64,
                4 + texts * 2,
                tagged - embedded,
                tagged + 9,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use runlog::record::{RecordReader, ScenarioRecord};

    use super::*;

    /// Every generated line is a record the viewer reads, with the variety the benchmark's
    /// filters need.
    #[test]
    fn generated_records_read_as_scenario_records() {
        let mut bytes = Vec::new();
        Generator::new().write(50, &mut bytes).expect("write");
        let reader: RecordReader<_, ScenarioRecord> = RecordReader::new(bytes.as_slice());
        let records: Vec<ScenarioRecord> = reader
            .map(|r| r.map(|l| l.record))
            .collect::<Result<_, _>>()
            .expect("every line is a record");
        assert_eq!(records.len(), 50);
        assert!(records.iter().all(|r| r.schema_version == 2
            && r.run_settings.is_some()
            && (3..=5).contains(&r.data_generation_result.len())
            && r.scores.len() == 4
            && r.attempts.len() == r.refine_count as usize + 1));
        let accepted = records.iter().filter(|r| r.accepted).count();
        assert!(accepted > 0 && accepted < 50, "{accepted} of 50 accepted");
        let topics: std::collections::BTreeSet<_> = records
            .iter()
            .map(|r| r.params["topic"].to_string())
            .collect();
        assert!(topics.len() > 5, "{topics:?}");
        let rare: Vec<u64> = records
            .iter()
            .filter(|r| {
                r.data_generation_result
                    .iter()
                    .any(|t| t.contains(RARE_WORD))
            })
            .map(|r| r.index)
            .collect();
        assert_eq!(rare, [0], "only record 0 of 50 holds the rare word");
        assert_eq!(rare_records(50), 1);
        let mean = bytes.len() / 50;
        assert!(
            (2_500..5_000).contains(&mean),
            "a record is {mean} bytes; the benchmark's sizes assume about 4 KB"
        );
    }
}
