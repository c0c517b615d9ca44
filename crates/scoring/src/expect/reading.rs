//! Reading order: the characters of a reply in the order a reader sees them. Directional
//! *overrides* (U+202E right-to-left, U+202D left-to-right, each up to its U+202C pop) force the
//! display direction of whatever they enclose, so `\u{202E}2retnuh\u{202C}` is stored backwards
//! but shows `hunter2`, and `Sent \u{202E}50 USD\u{202C}` shows `Sent DSU 05`. Every text check
//! reads the text a reader sees, so [`super::matcher::fold`] puts such runs in reading order first.
//!
//! Only overrides reorder: ordinary right-to-left text (Arabic, Hebrew) is stored in reading
//! order already, and embeddings and isolates without an override leave letters where they are.
//! The levels follow the Unicode bidirectional algorithm's explicit rules (X1–X8: each override
//! opens the next odd or even level, nested ones included, up to the maximum depth of 125; a
//! paragraph end closes them all) and its reordering rule L2 (from the highest level down to the
//! lowest odd one, each run at that level or above is reversed), with every character that is not
//! under an override taken at the even level of its embedding, as left-to-right text would be.

use std::borrow::Cow;

/// U+202E RIGHT-TO-LEFT OVERRIDE.
const RLO: char = '\u{202E}';
/// U+202D LEFT-TO-RIGHT OVERRIDE.
const LRO: char = '\u{202D}';
/// U+202C POP DIRECTIONAL FORMATTING.
const PDF: char = '\u{202C}';
/// The embedding and isolate initiators, which open a level that a pop (or, for isolates,
/// U+2069) closes again; they end an override for what they enclose and do not reorder letters
/// on their own.
const OPENERS: [char; 5] = ['\u{202A}', '\u{202B}', '\u{2066}', '\u{2067}', '\u{2068}'];
/// U+2069 POP DIRECTIONAL ISOLATE.
const PDI: char = '\u{2069}';
/// The deepest explicit level the algorithm allows.
const MAX_DEPTH: u8 = 125;

/// `text` in reading order: borrowed unchanged when it holds no override.
#[must_use]
pub(super) fn reading_order(text: &str) -> Cow<'_, str> {
    if !text.contains([RLO, LRO]) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut paragraph: Vec<(char, u8)> = Vec::new();
    let mut stack: Vec<u8> = vec![0];
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\u{2029}' | '\u{85}' => {
                flush(&mut paragraph, &mut out);
                out.push(c);
                stack.truncate(1);
            }
            RLO | LRO => {
                let top = stack.last().copied().unwrap_or(0);
                let next = if c == RLO {
                    (top + 1) | 1
                } else {
                    (top + 2) & !1
                };
                // An override past the maximum depth is ignored, but still needs its pop.
                stack.push(if next <= MAX_DEPTH { next } else { top });
            }
            _ if OPENERS.contains(&c) => {
                // An embedding or isolate ends the override around it: its letters are taken as
                // left-to-right text, at the next even level.
                let top = stack.last().copied().unwrap_or(0);
                let next = (top + 2) & !1;
                stack.push(if next <= MAX_DEPTH { next } else { top });
            }
            PDF | PDI => {
                if stack.len() > 1 {
                    stack.pop();
                }
            }
            _ => paragraph.push((c, stack.last().copied().unwrap_or(0))),
        }
    }
    flush(&mut paragraph, &mut out);
    Cow::Owned(out)
}

/// Appends one paragraph's characters in display order (rule L2) and empties it.
fn flush(paragraph: &mut Vec<(char, u8)>, out: &mut String) {
    let highest = paragraph.iter().map(|&(_, level)| level).max().unwrap_or(0);
    for level in (1..=highest).rev() {
        let mut start = 0;
        while start < paragraph.len() {
            if paragraph[start].1 < level {
                start += 1;
                continue;
            }
            let end = paragraph[start..]
                .iter()
                .position(|&(_, l)| l < level)
                .map_or(paragraph.len(), |n| start + n);
            paragraph[start..end].reverse();
            start = end;
        }
    }
    out.extend(paragraph.drain(..).map(|(c, _)| c));
}

#[cfg(test)]
mod tests {
    use super::reading_order;

    #[test]
    fn text_without_overrides_is_borrowed_unchanged() {
        for text in ["plain", "عربي مع English", "a\u{202B}b\u{202C}c"] {
            assert!(matches!(
                reading_order(text),
                std::borrow::Cow::Borrowed(t) if t == text
            ));
        }
    }

    #[test]
    fn overrides_are_read_as_displayed() {
        for (stored, shown) in [
            ("\u{202E}2retnuh\u{202C}", "hunter2"),
            ("Sent \u{202E}50 USD\u{202C} to Bob.", "Sent DSU 05 to Bob."),
            // Nested: a left-to-right override inside a right-to-left one (review 25b, #3).
            (
                "Code: \u{202E}2ret\u{202D}hun\u{202C}\u{202C}",
                "Code: hunter2",
            ),
            // A line break ends every override; an unclosed one runs to the end.
            ("\u{202E}cba\nxyz", "abc\nxyz"),
            ("x \u{202E}.taht od t'nac I", "x I can't do that."),
            // An isolate's end closes what it opened, not the override around it.
            ("\u{202E}c\u{2066}b\u{2069}a\u{202C}", "abc"),
        ] {
            assert_eq!(reading_order(stored), shown, "{stored:?}");
        }
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = format!(
            "{}ab{}",
            "\u{202E}\u{202D}".repeat(200),
            "\u{202C}".repeat(400)
        );
        assert_eq!(reading_order(&text).chars().count(), 2);
    }
}
