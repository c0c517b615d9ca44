//! Plain word splitting and a stable hash, shared by the diversity figures here and by dataset
//! deduplication: no tagging, no language models.

/// The marks that end a sentence in the scripts of the tool's languages (Latin, CJK full-width,
/// Arabic, Devanagari). The one list of them: the tagger's sentence starts, the scaffolding's
/// line ends and the transliterated runs' ends all read it.
pub(crate) fn ends_sentence(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？' | '؟' | '।')
}

/// The lower-cased words of `text`: runs of letters and digits, each Han, Hiragana or Katakana
/// character a word of its own, so punctuation, spacing and case do not make two texts differ.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_ideograph(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.into_iter()
}

/// A Han (with the CJK extensions), Hiragana or Katakana character.
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// FNV-1a, 64-bit: a stable hash (the same on every platform and Rust version).
#[must_use]
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether `c` is a Unicode format character (general category Cf, Unicode 15): invisible
/// characters such as the zero-width space (U+200B), the joiners, the soft hyphen, the
/// bidirectional marks and the byte-order mark, which never change what a word is.
pub(crate) fn is_format_character(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
        | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F
        | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F)
}
