//! Tiny per-language lexicons of short function words and contractions for the Latin-script
//! languages.
//!
//! lingua is unreliable on one- to three-letter tokens even when restricted to the pair
//! (crates.md §10: "let's" → French in an en/fr pair, articles drifting between languages), and
//! those tokens are exactly the glue of a code-switched sentence. A word listed for exactly one
//! language of the pair is tagged with it; a word listed for both ("a", "no", "me" in en/es) is
//! genuinely ambiguous and is left untagged; an unlisted word goes to lingua. The lists are
//! deliberately short: high-frequency closed-class words only, never content words.

use super::Language;

const ENGLISH: &[&str] = &[
    "i", "a", "an", "the", "and", "but", "or", "of", "to", "in", "on", "at", "is", "it", "we",
    "you", "he", "she", "my", "me", "be", "was", "are", "for", "not", "so", "do", "if", "up", "us",
    "our", "his", "her", "its", "him", "can", "has", "did", "yes", "too", "all", "who", "how",
    "why", "get", "got", "out", "off", "by", "as", "am", "oh", "any", "now", "this", "that",
    "with", "just", "what", "go", "i'm", "it's", "don't", "let's", "can't", "that's", "i've",
    "we're", "you're", "isn't", "didn't", "won't", "i'll", "gonna", "your", "because", "they",
    "them", "their", "there", "were", "been", "would", "could", "should", "about", "when", "where",
    "which", "from", "than", "then", "these", "those",
];

const SPANISH: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "y", "o", "de", "del", "al", "en", "a", "que", "es",
    "se", "no", "me", "te", "le", "lo", "mi", "tu", "su", "yo", "por", "con", "sin", "muy", "más",
    "pero", "sí", "si", "ya", "hay", "ni", "nos", "les", "fue", "son", "voy", "va", "qué", "era",
    "para", "como", "está", "estoy", "pues", "bueno", "ir", "ver", "vas",
];

const FRENCH: &[&str] = &[
    "le", "la", "les", "un", "une", "et", "ou", "de", "du", "des", "en", "à", "au", "aux", "que",
    "qui", "est", "il", "elle", "je", "tu", "on", "nous", "vous", "ils", "ne", "pas", "ce", "ça",
    "sa", "son", "ses", "mon", "ma", "mes", "ton", "ta", "se", "me", "te", "y", "a", "mais", "sur",
    "par", "pour", "avec", "dans", "très", "va", "oui", "non", "c'est", "j'ai", "n'est", "qu'il",
    "d'un", "d'une", "l'on", "d'accord", "alors", "bien",
];

const GERMAN: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "und", "oder", "ist", "ich", "du",
    "er", "sie", "es", "wir", "ihr", "nicht", "mit", "auf", "im", "zu", "zum", "zur", "von", "vom",
    "bei", "aus", "für", "so", "ja", "nein", "mal", "noch", "auch", "aber", "wie", "was", "wo",
    "am", "um", "an", "in", "uns", "mein", "dein", "sein", "kein", "sehr", "hat", "bin", "war",
    "doch",
];

const ITALIAN: &[&str] = &[
    "il", "lo", "la", "i", "gli", "le", "un", "uno", "una", "e", "ed", "o", "di", "da", "in",
    "con", "su", "per", "tra", "fra", "che", "non", "mi", "ti", "si", "ci", "vi", "è", "ho", "ha",
    "hai", "sono", "io", "tu", "lui", "lei", "noi", "voi", "del", "della", "al", "nel", "ma",
    "anche", "molto", "sì", "bene", "perché", "c'è",
];

const MALAY: &[&str] = &[
    "dan", "di", "ke", "yang", "ini", "itu", "saya", "aku", "kau", "awak", "dia", "kita", "kami",
    "mereka", "tak", "tidak", "ada", "ya", "pun", "lah", "kah", "nak", "dah", "lagi", "juga",
    "dengan", "untuk", "pada", "dari", "atau", "tapi", "je", "la", "kan", "ni", "tu", "sangat",
    "boleh", "akan", "sudah",
];

const PORTUGUESE: &[&str] = &[
    "o", "a", "os", "as", "um", "uma", "e", "ou", "de", "do", "da", "dos", "das", "em", "no", "na",
    "nos", "nas", "ao", "à", "às", "pelo", "pela", "que", "é", "não", "se", "me", "te", "lhe",
    "eu", "ele", "ela", "você", "vocês", "nós", "meu", "minha", "seu", "sua", "por", "com", "sem",
    "muito", "mais", "mas", "sim", "já", "tem", "foi", "são", "vou", "vai", "para", "pra", "como",
    "está", "tá", "tô", "estou", "isso", "esse", "essa", "aqui", "também",
];

const TAGALOG: &[&str] = &[
    "ang", "ng", "mga", "sa", "na", "at", "ay", "ako", "ko", "mo", "ka", "siya", "sila", "kami",
    "tayo", "natin", "namin", "niya", "nila", "ito", "iyan", "yan", "yung", "hindi", "oo", "po",
    "ba", "din", "rin", "lang", "pa", "naman", "kasi", "pero", "kung", "para", "may", "wala",
    "dito", "diyan", "nang", "kaya", "talaga", "ano", "sino", "saan", "ni", "kay",
];

const INDONESIAN: &[&str] = &[
    "dan", "di", "ke", "yang", "ini", "itu", "saya", "aku", "kamu", "dia", "kita", "kami",
    "mereka", "tidak", "nggak", "gak", "ada", "ya", "juga", "dengan", "untuk", "pada", "dari",
    "atau", "tapi", "sudah", "udah", "akan", "bisa", "sangat", "banget", "lagi", "sih", "dong",
    "kok", "deh", "gue", "aja", "mau",
];

/// Romanized Hindi (Hinglish chat spellings): postpositions, auxiliaries, pronouns, conjunctions
/// and negation, several spellings each. Not used for tagging (romanized words are tagged by
/// the word lists, `romanized.rs`): only to tell where Hindi joins English
/// ([`is_romanized_function_word`]).
const HINDI_ROMANIZED: &[&str] = &[
    "hai", "hain", "ho", "hoon", "hun", "hu", "tha", "thi", "the", "thin", "ka", "ki", "ke", "ko",
    "se", "mein", "me", "mai", "main", "ne", "par", "pe", "aur", "bhi", "to", "toh", "nahi",
    "nahin", "na", "kya", "ye", "yeh", "wo", "woh", "vo", "hum", "tum", "aap", "mera", "meri",
    "mere", "tera", "teri", "tere", "uska", "uski", "uske", "unka", "unki", "apna", "apni", "apne",
    "koi", "kuch", "jo", "jab", "tab", "phir", "lekin", "ya", "ab", "abhi", "isliye", "kyunki",
    "magar", "wala", "wali", "wale", "raha", "rahi", "rahe", "gaya", "gayi", "gaye",
];

/// Whether `word` (lower-cased, apostrophes normalised) is a function word of `language` in
/// its romanized (Latin-script) spelling: Hindi's ("hai", "ka", "mein", "aur", "nahi"), or for
/// a Latin-script language its [`is_function_word`]. The tagger does not read it (romanized
/// words are tagged by the word lists); the gate does, to tell where Hindi joins English.
#[must_use]
pub fn is_romanized_function_word(language: Language, word: &str) -> bool {
    match language {
        Language::Hindi => HINDI_ROMANIZED.contains(&word),
        other => is_function_word(other, word),
    }
}

/// Function words of the languages read by their script, as the tagger cuts them: Arabic,
/// Russian and Hindi (Devanagari) words; Chinese and Japanese characters (each Han or kana
/// character is one unit: particles, pronouns, the copula, aspect markers); Korean words. Not
/// used for tagging (these languages are tagged by script): only to tell where such a language
/// joins English as a speaker who switches, not as islands of terms (tajweed rule names, herb
/// names, board-game terms) inside English sentences ([`is_script_function_word`]).
const ARABIC_SCRIPT: &[&str] = &[
    "في", "من", "على", "إلى", "الى", "عن", "أن", "ان", "إن", "لا", "ما", "هذا", "هذه", "ذلك", "هو",
    "هي", "كان", "كانت", "مع", "كل", "لم", "لن", "قد", "ثم", "أو", "او", "بل", "التي", "الذي", "و",
    "يا", "أنا", "انا", "نحن", "أنت", "انت", "هم", "ليس", "لكن", "عند", "بعد", "قبل", "حتى", "إذا",
    "اذا", "لأن", "لان", "بس", "مش", "شو", "ايش", "عشان", "كمان",
];

const RUSSIAN_SCRIPT: &[&str] = &[
    "и",
    "в",
    "во",
    "не",
    "на",
    "я",
    "что",
    "он",
    "она",
    "оно",
    "они",
    "мы",
    "вы",
    "ты",
    "с",
    "со",
    "по",
    "но",
    "как",
    "к",
    "у",
    "из",
    "за",
    "от",
    "так",
    "же",
    "это",
    "а",
    "о",
    "об",
    "для",
    "бы",
    "мне",
    "меня",
    "когда",
    "если",
    "или",
    "уже",
    "да",
    "нет",
    "был",
    "была",
    "были",
    "было",
    "очень",
    "тоже",
    "только",
    "мой",
    "моя",
    "моё",
    "мои",
    "его",
    "её",
    "их",
    "там",
    "тут",
    "здесь",
    "ещё",
    "еще",
    "вот",
    "ну",
    "давай",
    "давайте",
    "пока",
    "ладно",
    "окей",
    "тогда",
    "сейчас",
    "потом",
    "просто",
    "вообще",
];

const HINDI_SCRIPT: &[&str] = &[
    "है",
    "हैं",
    "था",
    "थी",
    "थे",
    "का",
    "की",
    "के",
    "में",
    "से",
    "को",
    "ने",
    "और",
    "भी",
    "तो",
    "यह",
    "ये",
    "वह",
    "वो",
    "नहीं",
    "पर",
    "हम",
    "मैं",
    "तुम",
    "आप",
    "मेरा",
    "मेरी",
    "मेरे",
    "क्या",
    "कि",
    "हो",
    "हूँ",
    "हूं",
    "रहा",
    "रही",
    "रहे",
    "गया",
    "गई",
    "गए",
    "लेकिन",
    "कुछ",
    "मुझे",
    "तुम्हारा",
    "तुम्हारी",
    "तुम्हारे",
    "उसका",
    "उसकी",
    "उसके",
    "हमारा",
    "हमारी",
    "आपका",
    "आपकी",
    "इसका",
    "इस",
    "उस",
];

const CHINESE_SCRIPT: &[&str] = &[
    "的", "了", "是", "在", "我", "你", "他", "她", "它", "们", "不", "也", "就", "都", "和", "吗",
    "呢", "吧", "这", "那", "很", "没", "把", "被", "给", "跟", "会", "要", "着", "过", "啊", "啦",
    "嘛",
];

const JAPANESE_SCRIPT: &[&str] = &[
    "は", "の", "が", "を", "に", "で", "と", "も", "へ", "や", "か", "ね", "よ", "だ", "た", "て",
    "私", "僕",
];

const KOREAN_SCRIPT: &[&str] = &[
    "그리고",
    "그런데",
    "하지만",
    "그래서",
    "나는",
    "저는",
    "제가",
    "내가",
    "우리",
    "우리는",
    "너무",
    "정말",
    "진짜",
    "좀",
    "안",
    "못",
    "이건",
    "그건",
    "있어요",
    "없어요",
    "했어요",
    "이",
    "그",
    "저",
    "이야",
    "거야",
];

/// Korean endings that close a word as grammar, not a bare noun: topic, object and locative
/// particles, polite and plain sentence endings.
const KOREAN_ENDINGS: &[&str] = &[
    "는", "를", "요", "에서", "에게", "니다", "했다", "한다", "이다", "이야", "거야",
];

/// Whether `word` is a function word of `language`, one of the languages read by their script
/// (Arabic, Russian, Hindi in Devanagari, Chinese, Japanese, Korean); a Korean word ending in
/// a particle or a sentence ending counts. `false` for the Latin-script languages (see
/// [`is_function_word`]).
#[must_use]
pub fn is_script_function_word(language: Language, word: &str) -> bool {
    let list: &[&str] = match language {
        Language::Arabic => ARABIC_SCRIPT,
        Language::Russian => RUSSIAN_SCRIPT,
        Language::Hindi => HINDI_SCRIPT,
        Language::Chinese => CHINESE_SCRIPT,
        Language::Japanese => JAPANESE_SCRIPT,
        Language::Korean => {
            return KOREAN_SCRIPT.contains(&word)
                || (word.chars().count() >= 2 && KOREAN_ENDINGS.iter().any(|e| word.ends_with(e)));
        }
        _ => return false,
    };
    list.contains(&word)
}

/// Chinese and Japanese function characters that are grammar on their own, being seldom a
/// syllable of a noun: first- and second-person pronouns and sentence-final particles ("我觉得
/// it's not a big deal 啦"). Other function characters are as often a syllable of a noun ("和"
/// in "和牛", "吧" in "网吧"): the gate wants two of those in a run.
const STANDALONE_CHARACTERS: &[&str] = &["我", "你", "她", "吗", "呢", "啦", "嘛", "私", "僕"];

/// Whether `word` is a Chinese or Japanese function character that is grammar on its own
/// ([`STANDALONE_CHARACTERS`]).
#[must_use]
pub fn is_standalone_function_character(word: &str) -> bool {
    STANDALONE_CHARACTERS.contains(&word)
}

/// Interjections and chat tokens written the same way across languages ("ok" is as much Arabic
/// chat as English): they say nothing about which language a speaker is in.
const NEUTRAL: &[&str] = &[
    "ok", "okay", "lol", "haha", "hahaha", "hehe", "hmm", "wow", "omg", "xd", "orz", "zzz",
];

/// Whether `word` (lower-cased, apostrophes normalised) is a language-neutral token.
pub(crate) fn is_language_neutral(word: &str) -> bool {
    NEUTRAL.contains(&word)
}

/// Whether `word` (already lower-cased, apostrophes normalised to `'`) is one of `language`'s
/// listed function words. Non-Latin languages have no list: they are tagged by script.
pub fn is_function_word(language: Language, word: &str) -> bool {
    let list: &[&str] = match language {
        Language::English => ENGLISH,
        Language::Spanish => SPANISH,
        Language::French => FRENCH,
        Language::German => GERMAN,
        Language::Italian => ITALIAN,
        Language::Malay => MALAY,
        Language::Portuguese => PORTUGUESE,
        Language::Tagalog => TAGALOG,
        Language::Indonesian => INDONESIAN,
        Language::Arabic
        | Language::Hindi
        | Language::Chinese
        | Language::Japanese
        | Language::Korean
        | Language::Russian => &[],
    };
    list.contains(&word)
}

/// An English pronoun or verb with an English clitic ("I'm", "you're", "we've", "I'd",
/// "don't", "let's"), lower-cased. No other Latin-script language of the tool ends a word in
/// these clitics (French and Italian elide at a word's start: "l'homme", "dell'anno"), so the
/// word is English however often the other language's web text borrows it: wordfreq's Filipino,
/// Malay and Indonesian lists hold "I'm" and "let's" from the code-switched text they were
/// built from.
pub(crate) fn is_english_contraction(word: &str) -> bool {
    let Some((stem, clitic)) = word.rsplit_once('\'') else {
        return false;
    };
    let letters = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic());
    letters(stem)
        && (matches!(clitic, "m" | "re" | "ve" | "ll" | "d")
            || (clitic == "t" && stem.ends_with('n'))
            || word == "let's")
}
