//! Plain word splitting and a stable hash, shared by the diversity figures here and by dataset
//! deduplication: no tagging, no language models.

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

fn is_ideograph(c: char) -> bool {
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
