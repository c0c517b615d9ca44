//! Speaker labels at the start of a conversation turn, which are no words of either language.

/// A conversation turn without its speaker label ("Ana: Hola" → "Hola", also `**Ana**:`,
/// `[Ana]:`, `Ana (tired):`, `User 1:`): at most 48 bytes of letters, digits and
/// `. - ' _ * [ ] ( ) ,` (three words at most), with at least one letter, before a colon and a space at the start of
/// the turn. Markdown emphasis closing after the colon (`**Teacher:**`, `*Ana:*`, `__Mom:__`)
/// belongs to the label. A label names a speaker; it is no word of either language.
///
/// A label in square brackets needs no colon (`[Customer Service Agent] Gracias …`, a
/// transcript's form): the same characters, three words at most, then a space.
#[must_use]
pub fn without_speaker_label(turn: &str) -> &str {
    let trimmed = turn.trim_start();
    if let Some(bracketed) = trimmed.strip_prefix('[')
        && let Some((label, rest)) = bracketed.split_once(']')
        && !rest.starts_with(':')
        && rest.starts_with(char::is_whitespace)
        && is_label(label)
    {
        return rest.trim_start();
    }
    let Some((label, rest)) = trimmed.split_once([':', '：']) else {
        return turn;
    };
    let rest = rest.trim_start_matches(['*', '_']);
    if is_label(label) && (rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        rest.trim_start()
    } else {
        turn
    }
}

/// Whether `label` can name a speaker: at most 48 bytes and three words of letters, digits and
/// `. - ' _ * [ ] ( ) ,`, with at least one letter.
fn is_label(label: &str) -> bool {
    label.chars().any(char::is_alphabetic)
        && label.len() <= 48
        && label.split_whitespace().count() <= 3
        && label.chars().all(|c| {
            c.is_alphanumeric()
                || c.is_whitespace()
                || matches!(
                    c,
                    '.' | '-' | '\'' | '_' | '*' | '[' | ']' | '(' | ')' | ','
                )
        })
}

#[cfg(test)]
mod tests {
    use super::without_speaker_label;

    #[test]
    fn speaker_labels_are_left_out_and_other_colons_kept() {
        assert_eq!(
            without_speaker_label("Ana: Hola, ¿qué tal?"),
            "Hola, ¿qué tal?"
        );
        assert_eq!(without_speaker_label("  Dr. Khan: I am fine"), "I am fine");
        assert_eq!(without_speaker_label("A: ok"), "ok");
        assert_eq!(without_speaker_label("نور: مرحبا"), "مرحبا");
        for labelled in [
            "**Mom**: Я дома.",
            "[Mom]: Я дома.",
            "Mom (tired): Я дома.",
            "User 1: Я дома.",
            "**Nurse:** Я дома.",
            "*Nurse:* Я дома.",
            "__Nurse:__ Я дома.",
        ] {
            assert_eq!(without_speaker_label(labelled), "Я дома.", "{labelled}");
        }
        // A bracketed label needs no colon.
        assert_eq!(
            without_speaker_label("[Customer Service Agent] Я дома."),
            "Я дома."
        );
        assert_eq!(without_speaker_label("[laughs] Я дома."), "Я дома.");
        assert_eq!(
            without_speaker_label("[1] is a footnote"),
            "[1] is a footnote"
        );
        // Not labels: a time, a URL, a sentence with a colon later on, no space after.
        assert_eq!(without_speaker_label("10:30 is late"), "10:30 is late");
        assert_eq!(without_speaker_label("http://x.y"), "http://x.y");
        assert_eq!(
            without_speaker_label("I told him this morning: no"),
            "I told him this morning: no"
        );
        assert_eq!(without_speaker_label("Note:this"), "Note:this");
    }
}
