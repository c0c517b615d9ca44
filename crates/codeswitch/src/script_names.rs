//! Names written in their own script inside English sentences ("My colleague 王伟 moved the
//! meeting", "We visited 지은's grandmother", "Ask सुनील whether the car is ready"): a person's
//! name is no switch, whatever script it is written in (review 26q). Latin-script names are read
//! by their capitals (the tagger's name spans); Han, Hangul and Devanagari have no capitals, so a
//! short run of one of them is read as a name only where English grammar puts a person and the
//! run is shaped as a name ([`untag_script_names`]).

use unicode_script::{Script, UnicodeScript};

use super::{Language, TaggedWord, UntaggedReason, WordTag};

/// English words after which a person is named: role and kinship nouns in apposition ("my
/// colleague 王伟", "my cousin राहुल"), titles, "named" and "called".
const ROLE_BEFORE: &[&str] = &[
    "colleague",
    "coworker",
    "co-worker",
    "cousin",
    "roommate",
    "flatmate",
    "housemate",
    "friend",
    "boss",
    "manager",
    "teacher",
    "professor",
    "neighbour",
    "neighbor",
    "sister",
    "brother",
    "uncle",
    "aunt",
    "son",
    "daughter",
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "classmate",
    "mentor",
    "nephew",
    "niece",
    "grandson",
    "granddaughter",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "named",
    "called",
];

/// English verbs whose object is a person ("Tell 陈静 that…", "Ask सुनील whether…", "We met
/// 김민수 at…"). After these the run must also be shaped as a person's name, since a kinship
/// word of the other language is a real switch ("Tell 妈妈 I'll be late").
const PERSON_VERBS: &[&str] = &[
    "tell", "told", "ask", "asked", "thank", "thanked", "meet", "met", "visit", "visited", "text",
    "texted", "email", "emailed", "invite", "invited", "remind", "reminded",
];

/// The most common Chinese family names (each over about 0.3% of the population): a run of two
/// or three Han characters that starts with one of them is shaped as a full name ("王伟",
/// "李娜", "陈静"). Kinship words ("妈妈", "老师", "哥哥") start with none.
const CHINESE_SURNAMES: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范廖贾夏韦付邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃戴莫孔汤";

/// The most common Korean family names: a run of three Hangul syllables that starts with one of
/// them is shaped as a full name ("김민수", "이서연").
const KOREAN_SURNAMES: &str = "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반라왕금옥육인맹제모탁국어은편용예경봉사부가복태목형피두감호";

/// Kinship and address words of Korean and Hindi, which are switches, not names, in any slot
/// ("엄마's cooking", "Tell दीदी I'm coming").
const KINSHIP: &[&str] = &[
    "엄마",
    "아빠",
    "언니",
    "오빠",
    "누나",
    "형",
    "할머니",
    "할아버지",
    "선생님",
    "동생",
    "이모",
    "삼촌",
    "माँ",
    "मां",
    "मम्मी",
    "पापा",
    "दीदी",
    "भैया",
    "भाई",
    "नानी",
    "दादी",
    "नाना",
    "दादा",
    "चाचा",
    "चाची",
    "मामा",
    "मामी",
    "बुआ",
    "मौसी",
    "बेटा",
    "बेटी",
    "जी",
];

/// Runs of Han, Hangul or Devanagari in an English-built sentence of a Chinese–, Korean– or
/// Hindi–English pair become [`UntaggedReason::Name`] when they are a person's name: English
/// words on both sides (or the sentence's end after), the run short (two or three Han
/// characters, one Hangul word, one Devanagari word), no kinship word, and a name slot:
/// - after a role or kinship noun or a title ("my colleague 王伟", "Mr 김"), or before an English
///   possessive ("지은's") or "and his/her/their" ("with 李娜 and her family");
/// - or after a verb whose object is a person ("tell", "ask", "met", …) when the run is also
///   shaped as a full name: a Chinese or Korean run of the length of a name that starts with a
///   common family name; a Devanagari word.
pub(crate) fn untag_script_names(first: Language, second: Language, out: &mut [TaggedWord]) {
    let ((Language::English, other) | (other, Language::English)) = (first, second) else {
        return;
    };
    let script = match other {
        Language::Chinese => Script::Han,
        Language::Korean => Script::Hangul,
        Language::Hindi => Script::Devanagari,
        _ => return,
    };
    // "지은's" comes as "지은'" and "s": the apostrophe stays on the word.
    let in_script = |w: &TaggedWord| {
        w.tag == WordTag::Lang(other)
            && w.text
                .trim_end_matches(APOSTROPHES)
                .chars()
                .all(|c| c.script() == script)
    };
    let mut start = 0;
    while start < out.len() {
        if !in_script(&out[start]) {
            start += 1;
            continue;
        }
        let mut end = start;
        while end + 1 < out.len() && in_script(&out[end + 1]) {
            end += 1;
        }
        if is_name(
            other,
            &out[start..=end],
            english_before(out, start),
            after(out, end),
        ) {
            for word in &mut out[start..=end] {
                word.tag = WordTag::Untagged(UntaggedReason::Name);
                word.inferred = false;
            }
        }
        start = end + 1;
    }
}

const APOSTROPHES: &[char] = &['\'', '\u{2019}'];

/// What follows a run: the next words' texts, lower-cased (symbols skipped but an apostrophe
/// kept, for "'s"), or `None` when a word of neither English nor the run follows before the end.
fn after(out: &[TaggedWord], end: usize) -> Vec<String> {
    out[end + 1..]
        .iter()
        .filter(|w| {
            w.tag != WordTag::Untagged(UntaggedReason::Symbol)
                || matches!(w.text.as_str(), "'" | "\u{2019}" | "'s" | "\u{2019}s")
        })
        .take(3)
        .map(|w| w.text.to_lowercase().replace('\u{2019}', "'"))
        .collect()
}

/// The English word right before `start`, lower-cased, if the word before is English.
fn english_before(out: &[TaggedWord], start: usize) -> Option<String> {
    let before = out[..start]
        .iter()
        .rev()
        .find(|w| w.tag != WordTag::Untagged(UntaggedReason::Symbol))?;
    (before.tag == WordTag::Lang(Language::English)).then(|| before.text.to_lowercase())
}

/// Whether a run (in the other language's script, tagged as that language) is a person's name.
fn is_name(
    other: Language,
    run: &[TaggedWord],
    before: Option<String>,
    after: Vec<String>,
) -> bool {
    let Some(before) = before else { return false };
    let written: String = run.iter().map(|w| w.text.as_str()).collect();
    let text = written.trim_end_matches(APOSTROPHES);
    let chars = text.chars().count();
    let short = match other {
        Language::Chinese => (2..=3).contains(&chars),
        _ => run.len() == 1,
    };
    if !short || KINSHIP.contains(&text) {
        return false;
    }
    let next = after.first().map(String::as_str);
    let english_after = match next {
        None => true,
        Some(w) => w.chars().all(|c| c.is_ascii_alphabetic() || c == '\''),
    };
    if !english_after {
        return false;
    }
    let possessive = matches!(next, Some("'s" | "'"))
        || (written.len() > text.len() && next == Some("s"))
        || (next == Some("and")
            && matches!(
                after.get(1).map(String::as_str),
                Some("his" | "her" | "their")
            ));
    if ROLE_BEFORE.contains(&before.as_str()) || possessive {
        return true;
    }
    PERSON_VERBS.contains(&before.as_str()) && shaped_as_name(other, text, chars)
}

/// A full name's shape: a Chinese run of two or three characters or a Korean word of three
/// syllables that starts with a common family name; any Devanagari word (kinship words are
/// already out).
fn shaped_as_name(other: Language, text: &str, chars: usize) -> bool {
    let first = text.chars().next();
    match other {
        Language::Chinese => first.is_some_and(|c| CHINESE_SURNAMES.contains(c)),
        Language::Korean => chars == 3 && first.is_some_and(|c| KOREAN_SURNAMES.contains(c)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::{Language, LanguagePair, UntaggedReason, WordTag};

    /// The words of `text` that the pair tags as a name in the other language's script.
    fn names(other: Language, text: &str) -> Vec<String> {
        let pair = LanguagePair::new(other, Language::English).expect("a pair");
        pair.tag(text)
            .into_iter()
            .filter(|w| w.tag == WordTag::Untagged(UntaggedReason::Name))
            .filter(|w| !w.text.is_ascii())
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn names_where_english_puts_a_person_are_no_switch() {
        for (other, text, name) in [
            (
                Language::Chinese,
                "My colleague 王伟 moved the meeting.",
                "王伟",
            ),
            (
                Language::Chinese,
                "We stayed with 李娜 and her family.",
                "李娜",
            ),
            (
                Language::Chinese,
                "Could you tell 陈静 that I'm late?",
                "陈静",
            ),
            (
                Language::Korean,
                "My roommate 김민수 cooks dinner.",
                "김민수",
            ),
            (Language::Korean, "We visited 지은's grandmother.", "지은'"),
            (
                Language::Korean,
                "Tell 이서연 that I'll bring the forms.",
                "이서연",
            ),
            (Language::Hindi, "My cousin राहुल is moving to Pune.", "राहुल"),
            (
                Language::Hindi,
                "Ask सुनील whether the car is ready.",
                "सुनील",
            ),
        ] {
            assert_eq!(names(other, text).concat(), name, "{text}");
        }
    }

    #[test]
    fn kinship_words_nouns_and_longer_runs_stay_switches() {
        for (other, text) in [
            (Language::Chinese, "Tell 妈妈 I'll be late."),
            (Language::Chinese, "I bought 黄瓜 for the salad."),
            (Language::Chinese, "Ask 老师 whether we have homework."),
            (Language::Chinese, "My friend 今天很忙 so he can't come."),
            (Language::Korean, "오늘 엄마's cooking was 진짜 good."),
            (Language::Korean, "Tell 엄마 I'm on my way."),
            (Language::Korean, "I met 친구 at the station."),
            (Language::Hindi, "Tell दीदी I'm coming."),
            (Language::Hindi, "My cousin बहुत अच्छा गाता है."),
        ] {
            assert!(
                names(other, text).is_empty(),
                "{text}: {:?}",
                names(other, text)
            );
        }
    }
}
