//! The languages a code-switching config may name, the scripts each is written in, and the
//! mapping to lingua's language classes for the Latin-script ones.
//!
//! This module owns name parsing (case-insensitive names, aliases and ISO 639-1 codes) so that
//! every caller agrees on what "Mandarin" or "ms" means.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use unicode_script::Script;

use super::CodeSwitchError;

/// A language that can take part in a measured code-switching pair.
///
/// Serialized by its English name (`"Arabic"`, `"English"`, ...), the spelling configs use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Language {
    /// Arabic, Arabic script.
    Arabic,
    /// English, Latin script.
    English,
    /// Hindi, Devanagari script (romanized Hindi is not recognised: lingua's Hindi model is
    /// native-script only).
    Hindi,
    /// Chinese (also parsed from "Mandarin" and "Cantonese"), Han script. lingua has a single
    /// Chinese class and no Cantonese, and script alone cannot separate them, so they are one.
    Chinese,
    /// Spanish, Latin script.
    Spanish,
    /// French, Latin script.
    French,
    /// German, Latin script.
    German,
    /// Italian, Latin script.
    Italian,
    /// Malay, Latin script.
    Malay,
    /// Portuguese, Latin script.
    Portuguese,
    /// Tagalog (also parsed from "Filipino"), Latin script: wordfreq's Filipino list and
    /// lingua's Tagalog model.
    Tagalog,
    /// Indonesian, Latin script. Beside Malay it is not a third language (the two are too
    /// close to tell apart word by word).
    Indonesian,
    /// Japanese: Han, Hiragana and Katakana.
    Japanese,
    /// Korean, Hangul (Hanja is rare in modern text and is deliberately not claimed, so Han in a
    /// Korean pair belongs to the other language).
    Korean,
    /// Russian, Cyrillic script.
    Russian,
}

/// Every supported language, in declaration order (used for error messages and tests).
pub const ALL_LANGUAGES: [Language; 15] = [
    Language::Arabic,
    Language::English,
    Language::Hindi,
    Language::Chinese,
    Language::Spanish,
    Language::French,
    Language::German,
    Language::Italian,
    Language::Malay,
    Language::Portuguese,
    Language::Tagalog,
    Language::Indonesian,
    Language::Japanese,
    Language::Korean,
    Language::Russian,
];

impl Language {
    /// The English name, as written in configs and in serialized measurements.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Language::Arabic => "Arabic",
            Language::English => "English",
            Language::Hindi => "Hindi",
            Language::Chinese => "Chinese",
            Language::Spanish => "Spanish",
            Language::French => "French",
            Language::German => "German",
            Language::Italian => "Italian",
            Language::Malay => "Malay",
            Language::Portuguese => "Portuguese",
            Language::Tagalog => "Tagalog",
            Language::Indonesian => "Indonesian",
            Language::Japanese => "Japanese",
            Language::Korean => "Korean",
            Language::Russian => "Russian",
        }
    }

    /// The Unicode scripts whose letters this language claims.
    #[must_use]
    pub fn scripts(self) -> &'static [Script] {
        match self {
            Language::Arabic => &[Script::Arabic],
            Language::Hindi => &[Script::Devanagari],
            Language::Chinese => &[Script::Han],
            Language::Japanese => &[Script::Han, Script::Hiragana, Script::Katakana],
            Language::Korean => &[Script::Hangul],
            Language::Russian => &[Script::Cyrillic],
            Language::English
            | Language::Spanish
            | Language::French
            | Language::German
            | Language::Italian
            | Language::Malay
            | Language::Portuguese
            | Language::Tagalog
            | Language::Indonesian => &[Script::Latin],
        }
    }

    /// Whether the language is written in the Latin script (and so needs lingua to be told
    /// apart from another Latin-script language).
    #[must_use]
    pub fn is_latin(self) -> bool {
        self.scripts() == [Script::Latin]
    }

    /// Whether this language claims letters of `script`.
    #[must_use]
    pub fn uses_script(self, script: Script) -> bool {
        self.scripts().contains(&script)
    }

    /// The lingua class for the Latin-script languages; `None` for the others, which are
    /// tagged by script and never reach lingua (so their models are not compiled in).
    pub(crate) fn lingua(self) -> Option<lingua::Language> {
        match self {
            Language::English => Some(lingua::Language::English),
            Language::Spanish => Some(lingua::Language::Spanish),
            Language::French => Some(lingua::Language::French),
            Language::German => Some(lingua::Language::German),
            Language::Italian => Some(lingua::Language::Italian),
            Language::Malay => Some(lingua::Language::Malay),
            Language::Portuguese => Some(lingua::Language::Portuguese),
            Language::Tagalog => Some(lingua::Language::Tagalog),
            Language::Indonesian => Some(lingua::Language::Indonesian),
            Language::Arabic
            | Language::Hindi
            | Language::Chinese
            | Language::Japanese
            | Language::Korean
            | Language::Russian => None,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Language {
    type Err = CodeSwitchError;

    /// Parses a config name case-insensitively: English names, the aliases "Mandarin" and
    /// "Cantonese" (both Chinese, see [`Language::Chinese`]) and ISO 639-1 codes.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let language = match s.trim().to_lowercase().as_str() {
            "arabic" | "ar" => Language::Arabic,
            "english" | "en" => Language::English,
            "hindi" | "hi" => Language::Hindi,
            "chinese" | "mandarin" | "cantonese" | "zh" => Language::Chinese,
            "spanish" | "es" => Language::Spanish,
            "french" | "fr" => Language::French,
            "german" | "de" => Language::German,
            "italian" | "it" => Language::Italian,
            "malay" | "ms" => Language::Malay,
            "portuguese" | "pt" => Language::Portuguese,
            "tagalog" | "filipino" | "tl" | "fil" => Language::Tagalog,
            "indonesian" | "id" => Language::Indonesian,
            "japanese" | "ja" => Language::Japanese,
            "korean" | "ko" => Language::Korean,
            "russian" | "ru" => Language::Russian,
            _ => {
                return Err(CodeSwitchError::UnknownLanguage { name: s.to_owned() });
            }
        };
        Ok(language)
    }
}
