//! E-mail boilerplate: the header labels and the lines a mail program or a signature adds
//! ("Subject:", "Sent from my iPhone", "Best regards"). They are English in mail written in any
//! language, so they are no evidence that a writer switched to English: the tagger reads them
//! as it reads a link, as no word of either language ([`spans`]).

/// Header labels that open a line, followed by a colon: the label is boilerplate, what follows
/// it is the writer's text ("Subject: reunión del lunes").
const HEADER_LABELS: &[&str] = &[
    "subject", "from", "to", "cc", "bcc", "date", "sent", "re", "fw", "fwd", "reply-to",
];

/// Lines added by a mail program, matched on their start (lower-cased): "Sent from my iPhone",
/// "Sent from my Galaxy", "Get Outlook for Android".
const PROGRAM_LINE_STARTS: &[&str] = &[
    "sent from my ",
    "sent from outlook",
    "sent from mail for ",
    "sent from yahoo mail",
    "sent via ",
    "get outlook for ",
];

/// Whole lines that close a signature (lower-cased, trailing punctuation dropped).
const SIGN_OFFS: &[&str] = &[
    "best regards",
    "kind regards",
    "warm regards",
    "regards",
    "best wishes",
    "many thanks",
    "thanks in advance",
    "sincerely",
    "yours sincerely",
    "yours faithfully",
];

/// Byte ranges of `text` that are e-mail boilerplate: a header label at the start of a line
/// with its colon ("Subject:", "Fwd:"), a line a mail program adds ([`PROGRAM_LINE_STARTS`]),
/// and a line that is only a sign-off ([`SIGN_OFFS`]).
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        let trimmed = body.trim();
        let lower = trimmed.to_lowercase();
        let from = line_start + indent;
        let sign_off = lower.trim_end_matches(|c: char| !c.is_alphanumeric());
        if PROGRAM_LINE_STARTS.iter().any(|s| lower.starts_with(s)) || SIGN_OFFS.contains(&sign_off)
        {
            spans.push((from, from + trimmed.len()));
        } else if let Some((label, _)) = trimmed.split_once(':')
            && HEADER_LABELS.contains(&label.trim().to_lowercase().as_str())
        {
            spans.push((from, from + label.len() + 1));
        }
        line_start += line.len();
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(text: &str) -> Vec<&str> {
        spans(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn header_labels_program_lines_and_sign_offs_are_boilerplate() {
        assert_eq!(covered("Subject: la cena del viernes"), ["Subject:"]);
        assert_eq!(covered("Hallo zusammen\nFwd: Termine"), ["Fwd:"]);
        assert_eq!(
            covered("Ci vediamo domani.\nSent from my Galaxy"),
            ["Sent from my Galaxy"]
        );
        assert_eq!(covered("  Best regards,\nAna"), ["Best regards,"]);
        assert_eq!(covered("Get Outlook for iOS"), ["Get Outlook for iOS"]);
    }

    #[test]
    fn the_writers_own_words_are_not_boilerplate() {
        // A label mid-line, a sentence that starts like a sign-off, the words of a real switch.
        assert!(covered("Te mando el subject: biology").is_empty());
        assert!(covered("Regards to your mother, dile que la extraño").is_empty());
        assert!(covered("I sent from my office the whole report, ya lo tienes").is_empty());
        assert!(covered("To be honest, no me gustó nada").is_empty());
    }
}
