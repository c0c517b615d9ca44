//! Words of one language that a sentence of the other only *names* (review 26t): a care label
//! quoted in Spanish ("la etiqueta dice hand wash only"), a slogan in Japanese or Korean ("inspire
//! the next というフレーズ", "life's good 이라는 슬로건"), a tempo marking in an English concert
//! note ("the score is marked andante con moto"), a call in a dance class ("the instructor calls
//! dile que no"). The writer mentions the words, the way one mentions a title; they do not switch
//! to them. A run of words of one language is such a mention when the word right before it, in
//! the other language, is a verb or noun of labelling, writing or naming ([`BEFORE`]: "pone",
//! "marked", "headed", "reads", "heißt", "steht", "slogan", "写着"), or when the words right after
//! it are a quotative or naming word ([`AFTER`]: "という", "이라는", "문구", "的口号"). Its words are
//! then read as a name ([`UntaggedReason::Name`]), no evidence of a switch.
//!
//! The frame words are the same few ideas in each of the tool's languages (round T, after
//! review 26u): word, phrase, sentence, example sentence, term, expression, slogan, caption,
//! inscription, label, sign, title, "named"/"called", "written"/"printed"/"engraved" — German
//! compounds by their head ("Bandansage", "Fehlermeldung": [`GERMAN_HEADS`]), a German label's
//! head noun after its English words ("Parental Advisory Aufkleber"), and the Korean copula after
//! a clause of four words or more ("… call the man 이었는데": [`COPULA_AFTER`]).
//!
//! Verbs of saying are no frame ("my mom always says lieber spät als nie" quotes a proverb: a
//! switch), nor is a complementizer ("la etiqueta pone que…"). The cost: a switch right after a
//! naming word ("the word querencia, you know, means…") and a Japanese or Korean quotation of a
//! person's English words ("he said sorry って") are read as mentions.

use super::{Language, TaggedWord, UntaggedReason, WordTag};

/// Words of labelling, writing and naming that introduce a mention when they stand right before
/// it (not verbs of saying: "my mom always says lieber spät als nie" quotes a proverb, a switch) (lower-cased; Latin-script and Cyrillic words compare whole, Han and kana text by its
/// ending, Hangul words by their beginning).
const BEFORE: &[&str] = &[
    // English.
    "reads",
    "marked",
    "headed",
    "labelled",
    "labeled",
    "titled",
    "entitled",
    "called",
    "named",
    "slogan",
    "motto",
    "tagline",
    "printed",
    "stamped",
    "word",
    "words",
    "term",
    "phrase",
    "sentence",
    "caption",
    "inscription",
    "announcement",
    // Spanish.
    "pone",
    "ponía",
    "reza",
    "rezaba",
    "lema",
    "eslogan",
    "llamado",
    "llamada",
    "titulado",
    "titulada",
    "marcado",
    "marcada",
    "palabra",
    "palabras",
    "frase",
    "frases",
    "oración",
    "expresión",
    "término",
    "leyenda",
    "inscripción",
    "rótulo",
    "cartel",
    "letrero",
    "denominado",
    "denominada",
    // German (and compounds ending in one of [`GERMAN_HEADS`]).
    "steht",
    "stand",
    "heißt",
    "hieß",
    "lautet",
    "lautete",
    "spruch",
    "werbespruch",
    "motto",
    "namens",
    "aufschrift",
    "wort",
    "begriff",
    "titel",
    "vermerk",
    "satz",
    "ausdruck",
    "schild",
    "etikett",
    "ansage",
    "bezeichnung",
    // French.
    "indique",
    "marqué",
    "marquée",
    "intitulé",
    "intitulée",
    "appelé",
    "appelée",
    "devise",
    "mention",
    "mot",
    "mots",
    "phrase",
    "expression",
    "légende",
    "inscription",
    "étiquette",
    "panneau",
    "slogan",
    "titre",
    "nommé",
    "nommée",
    "baptisé",
    "baptisée",
    "écrit",
    // Italian.
    "indica",
    "intitolato",
    "intitolata",
    "chiamato",
    "chiamata",
    "parola",
    "parole",
    "frase",
    "espressione",
    "scritta",
    "didascalia",
    "etichetta",
    "cartello",
    "titolo",
    "denominato",
    "denominata",
    "scritto",
    "segnato",
    // Portuguese.
    "chamado",
    "escrito",
    "palavra",
    "palavras",
    "expressão",
    "legenda",
    "placa",
    "letreiro",
    "título",
    "intitulado",
    "intitulada",
    // Malay and Indonesian.
    "perkataan",
    "frasa",
    "ayat",
    "kalimat",
    "ungkapan",
    "istilah",
    "tertulis",
    "bertulis",
    "bertulisan",
    "tulisan",
    "bertajuk",
    "berjudul",
    "judul",
    "tajuk",
    "bernama",
    "dinamakan",
    "disebut",
    "berlabel",
    // Tagalog.
    "salitang",
    "pariralang",
    "pangungusap",
    "nakasulat",
    "tinatawag",
    "pamagat",
    "karatula",
    // Russian.
    "написано",
    "называется",
    "гласит",
    "слоган",
    "девиз",
    "лозунг",
    "надпись",
    "надписью",
    "слово",
    "словом",
    "слова",
    "фраза",
    "фразу",
    "фразой",
    "выражение",
    "предложение",
    "заголовок",
    "заголовком",
    "подпись",
    "подписью",
    "табличка",
    "названием",
    // Arabic (bare, with the article and with a preposition).
    "كلمة",
    "الكلمة",
    "بكلمة",
    "كلمات",
    "عبارة",
    "العبارة",
    "بعبارة",
    "جملة",
    "الجملة",
    "شعار",
    "الشعار",
    "بعنوان",
    "عنوان",
    "مكتوب",
    "مكتوبة",
    "يسمى",
    "تسمى",
    "المسمى",
    "المسماة",
    "لافتة",
    "ملصق",
    // Hindi.
    "शब्द",
    "वाक्य",
    "नारा",
    "शीर्षक",
    // Chinese and Japanese (the text just before the run ends with one).
    "写着",
    "写的是",
    "写有",
    "叫做",
    "印着",
    "印有",
    "刻着",
    "刻有",
    "标着",
    "标有",
    "口号",
    "口号是",
    "标语",
    "标语是",
    "例句",
    "例句是",
    "句子是",
    "原句",
    "原句是",
    "例文",
    "例文は",
    "キャッチコピー",
    "スローガン",
    "フレーズ",
    "標語",
    // Korean (the word just before the run starts with one).
    "슬로건",
    "문구",
    "구호",
    "표어",
    "예문",
    "문장",
    "표현",
    "제목",
];

/// Participles of writing and marking that frame a mention only in their stative use, after a
/// form of "be" ([`BE`]: "c'è scritto", "está escrito", "c'est écrit"): with an object they are
/// a verb of the sentence ("mi ha scritto the whole itinerary" switches, review 26v; "ha segnato
/// the winning goal").
const STATIVE_ONLY: &[&str] = &[
    "scritto", "scritta", "segnato", "escrito", "escrita", "écrit", "écrite", "marcado", "marcada",
    "marqué", "marquée",
];

/// Forms of "be" (and "there is") before a [`STATIVE_ONLY`] participle, elided ones by their
/// last part ("c'è" → "è").
const BE: &[&str] = &[
    "è", "era", "sta", "stava", "sono", "erano", "está", "estaba", "están", "estava", "estão",
    "es", "é", "est", "était", "sont", "étaient",
];

/// Heads of German compounds that name what is written, printed or announced: a word ending in
/// one ("Bandansage", "Werbespruch", "Fehlermeldung") frames like [`BEFORE`]'s words.
const GERMAN_HEADS: &[&str] = &[
    "ansage",
    "durchsage",
    "aufschrift",
    "inschrift",
    "überschrift",
    "beschriftung",
    "bezeichnung",
    "spruch",
    "schriftzug",
    "aufkleber",
    "einstufung",
    "meldung",
    "titel",
    "etikett",
    "beispielsatz",
];

/// Quotative and naming words that mark the run before them as a mention (the text right after
/// the run starts with one).
const AFTER: &[&str] = &[
    // Japanese.
    "という",
    "といった",
    "って",
    "と書",
    "と言",
    "のフレーズ",
    "の文字",
    "と表示",
    "と印刷",
    "と刻",
    "と記",
    // Korean.
    "이라는",
    "라는",
    "이라고",
    "라고",
    "문구",
    "슬로건",
    "구호",
    "표어",
    "문장",
    "단어",
    "표현",
    // Chinese.
    "这句",
    "这几个字",
    "这种句子",
    "这个句子",
    "这样的句子",
    "这个词",
    "这个单词",
    "这个短语",
    "这种说法",
    "这个说法",
    "的口号",
    "的标语",
    "字样",
    // German: a label's head noun after its English words ("Parental Advisory Aufkleber").
    "aufkleber",
    "schriftzug",
    "aufschrift",
    "schild",
    "etikett",
    "sticker",
    "siegel",
    "stempel",
    // Hindi (Devanagari and romanized): "X नामक", "X लिखा था", "X शब्द".
    "नामक",
    "लिखा",
    "शब्द",
    "वाक्य",
    "नारा",
    "likha",
    "naamak",
];

/// The copula right after a clause of the other language (Korean "X 이었는데", "X 였다"): a
/// clause used as a noun is quoted ("the last question was Why did the woman call the man").
/// Only after [`COPULA_CLAUSE_WORDS`] words or more: "완전 awesome 이었어" switches.
const COPULA_AFTER: &[&str] = &["이었", "였", "이다", "입니다", "이에요", "예요"];

/// The fewest words a run needs before [`COPULA_AFTER`] makes it a mention.
const COPULA_CLAUSE_WORDS: usize = 4;

/// The most words a mention runs to ("there's no better way to fly" is seven).
const MAX_RUN: usize = 10;

/// Words that open a clause: a run that starts with one is reported speech, not a mention.
const COMPLEMENTIZERS: &[&str] = &[
    "que", "that", "dass", "daß", "che", "что", "कि", "if", "whether", "ob", "si", "se",
];

/// Untags each run of words of one language that a frame word of the other language names
/// ([`BEFORE`], [`AFTER`]); the run's words become names.
pub(crate) fn untag_mentions(out: &mut [TaggedWord]) {
    let mut i = 0;
    while i < out.len() {
        let WordTag::Lang(lang) = out[i].tag else {
            i += 1;
            continue;
        };
        // The run: words of `lang`, with untagged words (names, numbers, look-alikes) inside it,
        // up to a word of another language or any punctuation ("dice hand wash only, así que").
        let mut end = i + 1;
        let mut last = i;
        while end < out.len() {
            match out[end].tag {
                WordTag::Lang(l) if l == lang => last = end,
                WordTag::Lang(_) | WordTag::Untagged(UntaggedReason::Symbol) => break,
                WordTag::Untagged(_) => {}
            }
            end += 1;
        }
        // A mention is a name, a label or a slogan: a few words, not a clause that a
        // complementizer opens ("says que tenemos que terminar…").
        let short = last - i < MAX_RUN;
        let clause = COMPLEMENTIZERS.contains(&out[i].text.to_lowercase().as_str());
        let words = out[i..=last]
            .iter()
            .filter(|w| w.tag == WordTag::Lang(lang))
            .count();
        let framed = short
            && !clause
            && (before(out, i).is_some_and(|(at, w, text)| {
                w != lang && frames_before(w, &text) && stative_if_participle(out, at, &text)
            }) || after(out, last)
                .is_some_and(|(w, text)| w != lang && frames_after(&text, words)));
        if framed {
            for w in &mut out[i..=last] {
                if w.tag == WordTag::Lang(lang) {
                    w.tag = WordTag::Untagged(UntaggedReason::Name);
                }
            }
        }
        i = last + 1;
    }
}

/// Quote marks (Markdown's `*` and `_` too) and a colon, which may stand between a frame and
/// what it mentions ("dit : …", "«…»"); any other punctuation, a comma included, parts them ("in
/// other words, vamos a la playa" switches).
const QUOTES_AND_COLON: &[char] = &[
    '"', '\'', '“', '”', '‘', '’', '«', '»', '„', '‹', '›', '″', '‟', '*', '_', ':', '「', '」',
    '『', '』', '《', '》',
];

/// Whether `w` is only [`QUOTES_AND_COLON`].
fn transparent(w: &TaggedWord) -> bool {
    w.tag == WordTag::Untagged(UntaggedReason::Symbol)
        && w.text
            .chars()
            .all(|c| c.is_whitespace() || QUOTES_AND_COLON.contains(&c))
}

/// The index and language of the word right before `i` (past quote marks and a colon) and the
/// text it ends: that word, or for Han and kana the characters of the words before it, run
/// together.
fn before(out: &[TaggedWord], i: usize) -> Option<(usize, Language, String)> {
    let at = out[..i].iter().rposition(|w| !transparent(w))?;
    let WordTag::Lang(lang) = out[at].tag else {
        return None;
    };
    let mut text = out[at].text.to_lowercase();
    if is_cjk(&text) {
        for w in out[..at].iter().rev().take(4) {
            if w.tag != WordTag::Lang(lang) || !is_cjk(&w.text) {
                break;
            }
            text.insert_str(0, &w.text);
        }
    }
    Some((at, lang, text))
}

/// The language of the word right after `last` and the text it starts: that word and, for Han,
/// kana and Hangul, the words after it, run together.
fn after(out: &[TaggedWord], last: usize) -> Option<(Language, String)> {
    let at = last + 1 + out[last + 1..].iter().position(|w| !transparent(w))?;
    let WordTag::Lang(lang) = out[at].tag else {
        return None;
    };
    let mut text = out[at].text.clone();
    for w in out[at + 1..].iter().take(4) {
        if w.tag != WordTag::Lang(lang) || !is_cjk(&w.text) {
            break;
        }
        text.push_str(&w.text);
    }
    Some((lang, text))
}

/// Whether the frame word at `at` (its text `text`) frames the run after it: any frame but a
/// [`STATIVE_ONLY`] participle does; that one only after a form of "be" ([`BE`]), "with"
/// ([`WITH`]: "un cartello con scritto …") or French "il y a"/"il y avait" ("il y avait écrit").
fn stative_if_participle(out: &[TaggedWord], at: usize, text: &str) -> bool {
    if !STATIVE_ONLY.contains(&text) {
        return true;
    }
    let mut words = out[..at]
        .iter()
        .rev()
        .filter(|w| w.tag != WordTag::Untagged(UntaggedReason::Symbol))
        .map(|w| w.text.to_lowercase());
    let Some(word) = words.next() else {
        return false;
    };
    let last = word.rsplit(['\'', '’']).next().unwrap_or(&word);
    BE.contains(&last)
        || WITH.contains(&last)
        || (matches!(word.as_str(), "a" | "avait") && words.next().as_deref() == Some("y"))
}

/// "With" before a participle of writing ("con scritto", "con su scritto").
const WITH: &[&str] = &["con", "su", "com", "avec", "mit"];

fn frames_before(lang: Language, text: &str) -> bool {
    if is_cjk(text) {
        BEFORE.iter().any(|f| text.ends_with(f))
    } else if is_hangul(text) {
        BEFORE.iter().any(|f| is_hangul(f) && text.starts_with(f))
    } else {
        BEFORE.contains(&text)
            || (lang == Language::German && GERMAN_HEADS.iter().any(|h| text.ends_with(h)))
    }
}

/// Whether `text` (after a run of `words` words) marks the run as a mention: it starts with an
/// [`AFTER`] word (Han, kana and Hangul) or is one (other scripts, lower-cased), or it is the
/// copula after a clause ([`COPULA_AFTER`]).
fn frames_after(text: &str, words: usize) -> bool {
    if is_cjk(text) || is_hangul(text) {
        AFTER.iter().any(|f| text.starts_with(f))
            || (words >= COPULA_CLAUSE_WORDS && COPULA_AFTER.iter().any(|f| text.starts_with(f)))
    } else {
        AFTER.contains(&text.to_lowercase().as_str())
    }
}

fn is_cjk(text: &str) -> bool {
    text.chars().any(super::words::is_ideograph)
}

fn is_hangul(text: &str) -> bool {
    text.chars().any(|c| matches!(c as u32, 0xAC00..=0xD7A3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str, tag: WordTag) -> TaggedWord {
        TaggedWord {
            text: text.to_owned(),
            tag,
            inferred: false,
        }
    }

    #[test]
    fn a_run_named_by_a_frame_word_is_a_name_and_a_complementizer_is_no_frame() {
        let es = WordTag::Lang(Language::Spanish);
        let en = WordTag::Lang(Language::English);
        let mut out = vec![
            w("la", es),
            w("etiqueta", es),
            w("pone", es),
            w("hand", en),
            w("wash", en),
            w("only", en),
            w(",", WordTag::Untagged(UntaggedReason::Symbol)),
            w("así", es),
        ];
        untag_mentions(&mut out);
        assert!(
            out[3..6]
                .iter()
                .all(|w| w.tag == WordTag::Untagged(UntaggedReason::Name))
        );
        assert_eq!(out[7].tag, es);
        let mut out = vec![w("pone", es), w("que", es), w("we", en), w("need", en)];
        untag_mentions(&mut out);
        assert_eq!(out[2].tag, en);
        // A verb of saying is no frame: the proverb is a switch.
        let de = WordTag::Lang(Language::German);
        let mut out = vec![
            w("my", en),
            w("mom", en),
            w("says", en),
            w("lieber", de),
            w("spät", de),
        ];
        untag_mentions(&mut out);
        assert_eq!(out[3].tag, de);
        // A comma parts a naming word from what follows: "In other words, vamos…" switches.
        let mut out = vec![
            w("in", en),
            w("other", en),
            w("words", en),
            w(",", WordTag::Untagged(UntaggedReason::Symbol)),
            w("vamos", es),
        ];
        untag_mentions(&mut out);
        assert_eq!(out[4].tag, es);
    }

    #[test]
    fn a_run_before_a_quotative_is_a_name() {
        let ja = WordTag::Lang(Language::Japanese);
        let en = WordTag::Lang(Language::English);
        let mut out = vec![
            w("inspire", en),
            w("the", en),
            w("next", en),
            w("と", ja),
            w("い", ja),
            w("う", ja),
            w("フレーズ", ja),
        ];
        untag_mentions(&mut out);
        assert!(
            out[..3]
                .iter()
                .all(|w| w.tag == WordTag::Untagged(UntaggedReason::Name))
        );
        assert_eq!(out[3].tag, ja);
    }

    /// The words [`untag_mentions`] makes names in `words`.
    fn named(words: &[(&str, Language)]) -> Vec<String> {
        let mut out: Vec<TaggedWord> = words
            .iter()
            .map(|(text, lang)| w(text, WordTag::Lang(*lang)))
            .collect();
        untag_mentions(&mut out);
        out.into_iter()
            .filter(|w| w.tag == WordTag::Untagged(UntaggedReason::Name))
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn round_t_frames_in_more_languages() {
        use Language::{Arabic, Chinese, English as En, German, Korean};
        // A German compound named by its head: "die Bandansage the number …".
        let names = named(&[
            ("die", German),
            ("Bandansage", German),
            ("the", En),
            ("number", En),
            ("is", En),
        ]);
        assert_eq!(names, ["the", "number", "is"]);
        // A label's German head noun after its English words.
        let names = named(&[
            ("dieser", German),
            ("Parental", En),
            ("Advisory", En),
            ("Aufkleber", German),
        ]);
        assert_eq!(names, ["Parental", "Advisory"]);
        // Arabic "with the phrase this is fine".
        let names = named(&[
            ("مع", Arabic),
            ("عبارة", Arabic),
            ("this", En),
            ("is", En),
            ("fine", En),
        ]);
        assert_eq!(names, ["this", "is", "fine"]);
        // Chinese: the kind of sentence after it.
        let names = named(&[
            ("把", Chinese),
            ("He", En),
            ("don't", En),
            ("like", En),
            ("apples", En),
            ("这种", Chinese),
            ("句子", Chinese),
        ]);
        assert_eq!(names, ["He", "don't", "like", "apples"]);
        // The Korean copula after a clause marks it; after an adjective it does not.
        let names = named(&[
            ("문제가", Korean),
            ("Why", En),
            ("did", En),
            ("the", En),
            ("woman", En),
            ("call", En),
            ("이었는데", Korean),
        ]);
        assert_eq!(names.len(), 5);
        let names = named(&[("완전", Korean), ("awesome", En), ("이었어", Korean)]);
        assert!(names.is_empty());
        // A participle of writing frames in its stative use only.
        let it = Language::Italian;
        let names = named(&[
            ("mi", it),
            ("ha", it),
            ("scritto", it),
            ("the", En),
            ("whole", En),
            ("itinerary", En),
        ]);
        assert!(names.is_empty());
        let names = named(&[
            ("c'è", it),
            ("scritto", it),
            ("born", En),
            ("to", En),
            ("be", En),
            ("wild", En),
        ]);
        assert_eq!(names.len(), 4);
        let fr = Language::French;
        let names = named(&[
            ("il", fr),
            ("y", fr),
            ("a", fr),
            ("marqué", fr),
            ("born", En),
            ("to", En),
        ]);
        assert_eq!(names, ["born", "to"]);
        // A German word that merely ends like a head is no frame unless it is one.
        let names = named(&[("ich", German), ("habe", German), ("so", En), ("much", En)]);
        assert!(names.is_empty());
    }
}
