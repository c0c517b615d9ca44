//! Third languages written in the script of a pair's language: Urdu and Persian in Arabic
//! script, Ukrainian and Belarusian in Cyrillic, Marathi and Nepali in Devanagari, Chinese
//! with no kana as "Japanese", written Cantonese as "Chinese". The tagger reads every word of a
//! script as the pair's language of that script; the letters, characters and function words
//! below are ones that language never writes, so a batch that holds them is in another
//! language ([`third_language`]).

use crate::{Language, TaggedWord, WordTag};

/// Arabic-script letters Arabic does not write and Persian or Urdu do: پ چ ژ گ, the Persian
/// yeh and keheh (ی ک), Urdu's retroflex ٹ ڈ ڑ, noon ghunna ں, yeh barree ے ۓ and
/// heh doachashmee ھ, heh with yeh ۀ, and Sorani Kurdish's ڕ ۆ ێ ڵ ە.
const PERSIAN_URDU_LETTERS: &[char] = &[
    'پ', 'چ', 'ژ', 'گ', 'ی', 'ک', 'ٹ', 'ڈ', 'ڑ', 'ں', 'ے', 'ۓ', 'ھ', 'ۀ', 'ڕ', 'ۆ', 'ێ', 'ڵ', 'ە',
];

/// Persian words in the letters Arabic shares, for Persian typed on an Arabic keyboard (ي and
/// ك for ی and ک): "خيلي" (very), "امروز" (today), "فردا" (tomorrow), "خانه" (home), "است"
/// (is), "نيست" (is not), "داريم" / "دارم" (we have / I have), "بروم" (that I go), "خسته"
/// (tired), "براي" (for), "كه" (that), "خوب" (good), "چطور" (how). A word joined by a zero-width
/// non-joiner ("مي‌خواهم") shows Persian too: Arabic does not write one.
const PERSIAN_WORDS: &[&str] = &[
    "در",
    "نميدانم",
    "ميروم",
    "ميرويم",
    "ميكنم",
    "ميشود",
    "كجا",
    "امشب",
    "رفت",
    "هستيم",
    "نيستم",
    "خيلي",
    "خیلی",
    "امروز",
    "فردا",
    "خانه",
    "است",
    "نيست",
    "داريم",
    "دارم",
    "بروم",
    "خسته",
    "براي",
    "كه",
    "خوب",
    "ميخواهم",
    "نمي",
    "هستم",
    "بود",
    "شد",
];

/// Cyrillic letters Russian does not write and Ukrainian, Belarusian, Serbian or Macedonian
/// do.
const UKRAINIAN_BELARUSIAN_LETTERS: &[char] = &[
    'і', 'ї', 'є', 'ґ', 'ў', 'І', 'Ї', 'Є', 'Ґ', 'Ў', 'ј', 'љ', 'њ', 'ћ', 'ђ', 'џ', 'ѓ', 'ќ', 'ѕ',
];

/// Bulgarian words Russian does not write, in letters both share: "съм" (I am), "ще" (will),
/// "къде" (where), "днес" (today), "утре" (tomorrow), "сутринта" (in the morning), "какво"
/// (what), "защо" (why), "тук" (here), "сега" (now), "много" is left out (Russian writes it).
const BULGARIAN_WORDS: &[&str] = &[
    "съм",
    "ще",
    "къде",
    "днес",
    "утре",
    "сутринта",
    "какво",
    "защо",
    "тук",
    "сега",
    "вчера",
    "нещо",
    "няма",
    "искам",
];

/// Whether a Cyrillic word (lower-cased) writes the hard sign as a vowel, before a consonant or
/// at a word's end ("съм", "път"): Bulgarian does, Russian writes ъ only before е, ё, ю or я
/// ("объявление").
fn hard_sign_as_vowel(lower: &str) -> bool {
    let chars: Vec<char> = lower.chars().collect();
    chars
        .iter()
        .enumerate()
        .any(|(i, &c)| c == 'ъ' && !matches!(chars.get(i + 1), Some('е' | 'ё' | 'ю' | 'я')))
}

/// Ukrainian words Russian does not write, in letters both share: "вже" (уже), "дуже"
/// (очень), "дякую" (спасибо), "ти" (ты), "де" (где), "що" (что), "як" (как), "це" (это),
/// "але" (но), "він", "вона", "ми" (мы), "ви" (вы), "мене" (меня), "також", "чи", "щоб",
/// "привіт", "тобі".
const UKRAINIAN_WORDS: &[&str] = &[
    "вже",
    "дуже",
    "дякую",
    "ти",
    "де",
    "що",
    "як",
    "це",
    "але",
    "він",
    "вона",
    "ми",
    "ви",
    "мене",
    "також",
    "чи",
    "щоб",
    "тобі",
    "мені",
];

/// Characters of written Cantonese that Mandarin Chinese does not write: the particles and
/// pronouns 嘅 咗 唔 冇 喺 哋 佢 嘢 啲 嚟 咩 嘞 噉 and the verbs 睇 攞 諗 搵 揾 瞓 啱 (係, which
/// traditional Mandarin writes in 關係, is left out), and 嗰 㗎 攰 咁 乜 喎 哂 噃 冚 揸 啫.
const CANTONESE_CHARACTERS: &[char] = &[
    '嘅', '咗', '唔', '冇', '喺', '哋', '佢', '嘢', '啲', '嚟', '咩', '嘞', '噉', '睇', '攞', '諗',
    '搵', '揾', '瞓', '啱', '嗰', '㗎', '攰', '咁', '乜', '喎', '哂', '噃', '冚', '揸', '啫',
];

/// Devanagari words Hindi does not use: Marathi's copula, negation, pronouns and common
/// adverbs (आहे "is", नाही "not", मला "to me", खूप "very", उद्या "tomorrow") and Nepali's
/// (छ "is", छैन "is not", तिमी "you", धेरै "very", भोलि "tomorrow", पनि "also").
const MARATHI_NEPALI_WORDS: &[&str] = &[
    "आहे",
    "आहेत",
    "आणि",
    "नाही",
    "मला",
    "तुला",
    "आम्ही",
    "खूप",
    "उद्या",
    "काय",
    "माझा",
    "माझी",
    "माझे",
    "तुझा",
    "तुझी",
    "त्याला",
    "तिला",
    "येणार",
    "जाणार",
    "करणार",
    "झाले",
    "छ",
    "छु",
    "छौ",
    "छन्",
    "छैन",
    "तिमी",
    "तिमीलाई",
    "मलाई",
    "हामी",
    "तपाईं",
    "धेरै",
    "भयो",
    "हुन्छ",
    "पनि",
    "भोलि",
    "सक्दिन",
    "गर्नु",
];

/// A batch holds a third language in its script language's script when at least this many
/// words (or Chinese characters) show it …
const MIN_THIRD_WORDS: usize = 2;

/// … and they are at least this share of the words of that script (one Ukrainian place name
/// in a Russian text is not Ukrainian).
const MIN_THIRD_SHARE: f64 = 0.1;

/// A Japanese batch with at least this many Han characters and no kana at all is Chinese.
const MIN_HAN_WITHOUT_KANA: usize = 10;

/// The third language a batch of this pair is written in, in the script of the pair's
/// non-Latin language, with the measurement's reason; `None` when the words are that
/// language's or too few show another. `words` is each text's tagged words.
pub(crate) fn third_language(
    first: Language,
    second: Language,
    words: &[Vec<TaggedWord>],
) -> Option<(&'static str, String)> {
    let language = [first, second].into_iter().find(|l| {
        matches!(
            l,
            Language::Arabic
                | Language::Russian
                | Language::Hindi
                | Language::Chinese
                | Language::Japanese
        )
    })?;
    let own: Vec<&str> = words
        .iter()
        .flatten()
        .filter(|w| w.tag == WordTag::Lang(language))
        .map(|w| w.text.as_str())
        .collect();
    if language == Language::Japanese {
        return chinese_as_japanese(&own);
    }
    let (name, shows): (&str, fn(&str) -> bool) = match language {
        Language::Arabic => ("Persian, Urdu or Kurdish", |w| {
            w.contains(PERSIAN_URDU_LETTERS) || w.contains('\u{200C}') || PERSIAN_WORDS.contains(&w)
        }),
        Language::Russian => ("Ukrainian, Belarusian or Bulgarian", |w| {
            let lower = w.to_lowercase();
            w.contains(UKRAINIAN_BELARUSIAN_LETTERS)
                || UKRAINIAN_WORDS.contains(&lower.as_str())
                || BULGARIAN_WORDS.contains(&lower.as_str())
                || hard_sign_as_vowel(&lower)
        }),
        Language::Chinese => ("Cantonese", |w| w.contains(CANTONESE_CHARACTERS)),
        _ => ("Marathi or Nepali", |w| {
            w.contains('ळ') || MARATHI_NEPALI_WORDS.contains(&w)
        }),
    };
    let third = own.iter().filter(|w| shows(w)).count();
    #[allow(clippy::cast_precision_loss)]
    let share = third as f64 / own.len().max(1) as f64;
    (third >= MIN_THIRD_WORDS && share >= MIN_THIRD_SHARE).then(|| {
        (
            name,
            format!(
                "{third} of {} {language} words are written as {name} writes them, not \
                 {language} (letters, characters or function words {language} does not use)",
                own.len()
            ),
        )
    })
}

/// A Japanese batch of [`MIN_HAN_WITHOUT_KANA`] Han characters or more with no Hiragana or
/// Katakana at all: Japanese sentences always hold kana (particles, endings), Chinese ones
/// never do — but for "の", which Chinese writing online borrows for 的 ("今天の meeting
/// 取消了"), so it does not count.
fn chinese_as_japanese(own: &[&str]) -> Option<(&'static str, String)> {
    let kana = |c: char| {
        c != 'の'
            && matches!(c, '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}')
    };
    let han = own
        .iter()
        .flat_map(|w| w.chars())
        .filter(|c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'))
        .count();
    // A kaomoji's katakana ("ヽ(・∀・)ノ") is no Japanese word: a unit made only of ヽ ヾ ゝ ゞ ・ ノ
    // or ー does not count.
    let kaomoji = |w: &&str| {
        w.chars()
            .all(|c| matches!(c, 'ヽ' | 'ヾ' | 'ゝ' | 'ゞ' | '・' | 'ノ' | 'ー'))
    };
    let any_kana = own
        .iter()
        .filter(|w| !kaomoji(w))
        .any(|w| w.chars().any(kana));
    (han >= MIN_HAN_WITHOUT_KANA && !any_kana).then(|| {
        (
            "Chinese",
            format!(
                "{han} Han characters and no kana: Japanese writes kana in every sentence, so \
                 the batch is Chinese, not Japanese"
            ),
        )
    })
}
