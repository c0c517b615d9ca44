//! Language names as ISO 639 codes, for the card's `language:` list and the token tags: the
//! ISO 639-1 code where the language has one, else the ISO 639-3 code (Cantonese `yue`,
//! Filipino `fil`). A name may also be given as one of these codes. A name outside this table
//! has no code: the card names it instead of guessing one.

/// English names (and common aliases), lower-case, with their codes.
const CODES: [(&str, &str); 121] = [
    ("afrikaans", "af"),
    ("albanian", "sq"),
    ("amharic", "am"),
    ("arabic", "ar"),
    ("armenian", "hy"),
    ("assamese", "as"),
    ("azerbaijani", "az"),
    ("bangla", "bn"),
    ("basque", "eu"),
    ("belarusian", "be"),
    ("bengali", "bn"),
    ("bosnian", "bs"),
    ("bulgarian", "bg"),
    ("burmese", "my"),
    ("cantonese", "yue"),
    ("catalan", "ca"),
    ("cebuano", "ceb"),
    ("chinese", "zh"),
    ("croatian", "hr"),
    ("czech", "cs"),
    ("danish", "da"),
    ("dutch", "nl"),
    ("english", "en"),
    ("esperanto", "eo"),
    ("estonian", "et"),
    ("farsi", "fa"),
    ("filipino", "fil"),
    ("finnish", "fi"),
    ("flemish", "nl"),
    ("french", "fr"),
    ("galician", "gl"),
    ("georgian", "ka"),
    ("german", "de"),
    ("greek", "el"),
    ("gujarati", "gu"),
    ("haitian creole", "ht"),
    ("hausa", "ha"),
    ("hawaiian", "haw"),
    ("hebrew", "he"),
    ("hindi", "hi"),
    ("hokkien", "nan"),
    ("hungarian", "hu"),
    ("icelandic", "is"),
    ("igbo", "ig"),
    ("indonesian", "id"),
    ("irish", "ga"),
    ("italian", "it"),
    ("japanese", "ja"),
    ("javanese", "jv"),
    ("kannada", "kn"),
    ("kazakh", "kk"),
    ("khmer", "km"),
    ("kinyarwanda", "rw"),
    ("korean", "ko"),
    ("kurdish", "ku"),
    ("kyrgyz", "ky"),
    ("lao", "lo"),
    ("latin", "la"),
    ("latvian", "lv"),
    ("lithuanian", "lt"),
    ("luxembourgish", "lb"),
    ("macedonian", "mk"),
    ("malagasy", "mg"),
    ("malay", "ms"),
    ("malayalam", "ml"),
    ("maltese", "mt"),
    ("mandarin", "zh"),
    ("maori", "mi"),
    ("marathi", "mr"),
    ("mongolian", "mn"),
    ("nepali", "ne"),
    ("norwegian", "no"),
    ("odia", "or"),
    ("oriya", "or"),
    ("pashto", "ps"),
    ("persian", "fa"),
    ("polish", "pl"),
    ("portuguese", "pt"),
    ("punjabi", "pa"),
    ("quechua", "qu"),
    ("romanian", "ro"),
    ("russian", "ru"),
    ("samoan", "sm"),
    ("scottish gaelic", "gd"),
    ("serbian", "sr"),
    ("shona", "sn"),
    ("sindhi", "sd"),
    ("sinhala", "si"),
    ("slovak", "sk"),
    ("slovenian", "sl"),
    ("somali", "so"),
    ("spanish", "es"),
    ("sundanese", "su"),
    ("swahili", "sw"),
    ("swedish", "sv"),
    ("tagalog", "tl"),
    ("tajik", "tg"),
    ("tamil", "ta"),
    ("tatar", "tt"),
    ("telugu", "te"),
    ("thai", "th"),
    ("tibetan", "bo"),
    ("tigrinya", "ti"),
    ("tongan", "to"),
    ("turkish", "tr"),
    ("turkmen", "tk"),
    ("twi", "tw"),
    ("ukrainian", "uk"),
    ("urdu", "ur"),
    ("uyghur", "ug"),
    ("uzbek", "uz"),
    ("vietnamese", "vi"),
    ("welsh", "cy"),
    ("wolof", "wo"),
    ("xhosa", "xh"),
    ("yiddish", "yi"),
    ("yoruba", "yo"),
    ("zulu", "zu"),
    ("malaysian", "ms"),
    ("brazilian portuguese", "pt"),
    ("taiwanese", "nan"),
];

/// The ISO 639 code of a language name (case and surrounding space ignored), or of a code
/// given as itself; `None` for a name the table does not know.
pub(crate) fn iso_code(name: &str) -> Option<&'static str> {
    let name = name.trim().to_lowercase();
    CODES
        .iter()
        .find(|(n, code)| *n == name || *code == name)
        .map(|(_, code)| *code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_codes_map_and_unknown_names_do_not() {
        assert_eq!(iso_code(" Hindi "), Some("hi"));
        assert_eq!(iso_code("Mandarin"), Some("zh"));
        assert_eq!(iso_code("Cantonese"), Some("yue"));
        assert_eq!(iso_code("yue"), Some("yue"));
        assert_eq!(iso_code("Swahili"), Some("sw"));
        assert_eq!(iso_code("English0"), None);
        assert_eq!(iso_code("Klingon"), None);
    }

    #[test]
    fn every_code_is_two_or_three_lower_case_letters_and_names_are_unique() {
        let mut names = std::collections::BTreeSet::new();
        for (name, code) in CODES {
            assert!(names.insert(name), "{name} twice");
            assert!(
                (2..=3).contains(&code.len()) && code.chars().all(|c| c.is_ascii_lowercase()),
                "{code}"
            );
        }
    }
}
