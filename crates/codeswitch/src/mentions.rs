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
    "frase",
    "término",
    // German.
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
    "écrit",
    // Italian.
    "indica",
    "intitolato",
    "intitolata",
    "chiamato",
    "chiamata",
    "parola",
    "scritto",
    "segnato",
    // Portuguese.
    "chamado",
    "escrito",
    "palavra",
    "expressão",
    // Russian.
    "написано",
    "называется",
    "гласит",
    "слоган",
    "девиз",
    "лозунг",
    "надпись",
    "слово",
    "фраза",
    // Chinese and Japanese (the text just before the run ends with one).
    "写着",
    "写的是",
    "叫做",
    "印着",
    "口号",
    "标语",
    "キャッチコピー",
    "スローガン",
    "フレーズ",
    "標語",
    // Korean (the word just before the run starts with one).
    "슬로건",
    "문구",
    "구호",
    "표어",
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
    // Korean.
    "이라는",
    "라는",
    "이라고",
    "라고",
    "문구",
    "슬로건",
    "구호",
    "표어",
    // Chinese.
    "这句",
    "这几个字",
    "的口号",
    "的标语",
    "字样",
];

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
        let framed = short
            && !clause
            && (before(out, i).is_some_and(|(w, text)| w != lang && frames_before(&text))
                || after(out, last).is_some_and(|(w, text)| w != lang && frames_after(&text)));
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

/// The language of the word right before `i` (past quote marks and a colon) and the text it
/// ends: that word, or for Han and kana the characters of the words before it, run together.
fn before(out: &[TaggedWord], i: usize) -> Option<(Language, String)> {
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
    Some((lang, text))
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

fn frames_before(text: &str) -> bool {
    if is_cjk(text) {
        BEFORE.iter().any(|f| text.ends_with(f))
    } else if is_hangul(text) {
        BEFORE.iter().any(|f| is_hangul(f) && text.starts_with(f))
    } else {
        BEFORE.contains(&text)
    }
}

fn frames_after(text: &str) -> bool {
    AFTER.iter().any(|f| text.starts_with(f))
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
}
