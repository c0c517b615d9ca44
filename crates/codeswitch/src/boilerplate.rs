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
    "sent with ",
    "get outlook for ",
    "please consider the environment before printing",
    "begin forwarded message",
    "this is an automated message",
    "this is an automatically generated",
    "this email and any attachments",
    "this e-mail and any attachments",
    "this message and any attachments",
    "click here to unsubscribe",
];

/// The openings of a mail's confidentiality notice ("This email is confidential and intended
/// only for …", "The information contained in this message is privileged …"): with one of
/// [`NOTICE_WORDS`] in the same line, the line is the notice a mail server appends.
const NOTICE_STARTS: &[&str] = &[
    "this email",
    "this e-mail",
    "this message",
    "this communication",
    "this transmission",
    "the information contained in this",
    "the information in this",
];

/// The words that make a line opening with one of [`NOTICE_STARTS`] a confidentiality notice.
const NOTICE_WORDS: &[&str] = &["confidential", "intended", "privileged"];

/// Phrases that make a whole line a mail program's notice wherever they stand in it (lower-cased):
/// "---------- Forwarded message ---------", "Please do not reply to this email".
const PROGRAM_LINE_PHRASES: &[&str] = &[
    "forwarded message",
    "original message",
    "do not reply",
    "do-not-reply",
    "donotreply",
    "noreply",
    "no-reply",
];

/// The words a sign-off line is made of ("Thanks and regards,", "Thanks & best regards",
/// "Many thanks and best wishes,", "Talk soon and take care,"): a line of these words alone,
/// with at least one of [`SIGN_OFF_HEADS`], closes a signature, however they are combined.
const SIGN_OFF_WORDS: &[&str] = &[
    "thanks",
    "thank",
    "you",
    "and",
    "&",
    "best",
    "kind",
    "kindest",
    "warm",
    "warmest",
    "regards",
    "wishes",
    "many",
    "cheers",
    "sincerely",
    "yours",
    "faithfully",
    "truly",
    "cordially",
    "respectfully",
    "take",
    "care",
    "talk",
    "soon",
    "all",
    "the",
    "with",
    "love",
    "again",
    "in",
    "advance",
    "very",
    "much",
    "so",
    "a",
    "lot",
    "speak",
    "later",
];

/// The words that make a line of [`SIGN_OFF_WORDS`] a sign-off and not a chat reply ("Thank
/// you so much" alone is not one).
const SIGN_OFF_HEADS: &[&str] = &[
    "regards",
    "wishes",
    "sincerely",
    "faithfully",
    "cordially",
    "respectfully",
    "cheers",
    "care",
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

/// The words that open a salutation line of a mail ("Hi Rahul,", "Dear Sir,", "Hello all,").
const SALUTATIONS: &[&str] = &["hi", "hello", "hey", "dear", "greetings"];

/// Abbreviated sign-offs that close a mail on a line of their own ("Thx!", "BR").
const SIGN_OFF_ABBREVIATIONS: &[&str] = &["thx", "br", "kr", "rgds", "tia"];

/// In a text of several lines (a mail), a line of its own that is only a salutation (one of
/// [`SALUTATIONS`] and at most three more words, ending in a comma: "Hi Rahul,", "Dear Sir,")
/// or only a short sign-off (at most three [`SIGN_OFF_WORDS`] or one abbreviation, ending in a
/// comma, `!`, `.` or nothing: "Thanks,", "Best,", "Cheers!", "Thx!", "BR"), lower-cased.
fn is_mail_line(lower: &str) -> bool {
    let body = lower.trim_end_matches([',', '!', '.', ' ']);
    let words: Vec<&str> = body.split_whitespace().collect();
    let salutation = lower.trim_end().ends_with(',')
        && words.first().is_some_and(|w| SALUTATIONS.contains(w))
        && words.len() <= 4;
    let sign_off = !words.is_empty()
        && words.len() <= 3
        && (words.iter().all(|w| SIGN_OFF_WORDS.contains(w))
            || (words.len() == 1 && SIGN_OFF_ABBREVIATIONS.contains(&words[0])));
    salutation || sign_off
}

/// Byte ranges of `text` that are e-mail boilerplate: a header label at the start of a line
/// with its colon ("Subject:", "Fwd:"), a line a mail program adds ([`PROGRAM_LINE_STARTS`],
/// [`PROGRAM_LINE_PHRASES`], the attribution of a quoted reply "On Tue, 4 Mar 2025, Ana
/// wrote:"), a line that is only a sign-off ([`SIGN_OFFS`], or [`SIGN_OFF_WORDS`] with a
/// head word and a closing comma or nothing after it), and in a text of several lines a
/// salutation or short sign-off line of its own ([`is_mail_line`]).
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut line_start = 0;
    let lines = text.trim().contains('\n');
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        let trimmed = body.trim();
        let lower = trimmed.to_lowercase();
        let from = line_start + indent;
        let sign_off = lower.trim_end_matches(|c: char| !c.is_alphanumeric());
        if PROGRAM_LINE_STARTS.iter().any(|s| lower.starts_with(s))
            || PROGRAM_LINE_PHRASES.iter().any(|s| lower.contains(s))
            || is_reply_attribution(&lower)
            || (NOTICE_STARTS.iter().any(|s| lower.starts_with(s))
                && NOTICE_WORDS.iter().any(|w| lower.contains(w)))
            || SIGN_OFFS.contains(&sign_off)
            || is_composed_sign_off(&lower)
            || (lines && is_mail_line(&lower))
        {
            spans.push((from, from + trimmed.len()));
        } else if let Some((at, len)) = closing_sign_off(trimmed) {
            spans.push((from + at, from + at + len));
        } else if let Some((label, _)) = trimmed.split_once(':')
            && HEADER_LABELS.contains(&label.trim().to_lowercase().as_str())
        {
            spans.push((from, from + label.len() + 1));
        }
        line_start += line.len();
    }
    spans
}

/// A sign-off that closes a line after the writer's last sentence, followed by a name or
/// nothing ("Ti mando il file. Thanks and regards, Giulia"): its byte offset and length in
/// `line`, the comma included.
fn closing_sign_off(line: &str) -> Option<(usize, usize)> {
    let at = line.rfind(['.', '!', '?']).map(|i| i + 1)?;
    let tail = &line[at..];
    let start = at + (tail.len() - tail.trim_start().len());
    let tail = tail.trim();
    let (head, name) = tail.rsplit_once(',').unwrap_or((tail, ""));
    let name_like = name.split_whitespace().count() <= 3
        && name
            .split_whitespace()
            .all(|w| w.chars().next().is_some_and(char::is_uppercase));
    let lower = head.to_lowercase();
    let sign_off =
        !head.is_empty() && (SIGN_OFFS.contains(&lower.as_str()) || is_composed_sign_off(&lower));
    (name_like && sign_off).then(|| (start, head.len() + usize::from(head.len() < tail.len())))
}

/// "On Tue, Mar 4, 2025 at 9:12 AM Giulia Rossi <g@x.it> wrote:": the line a mail program puts
/// above a quoted reply (lower-cased line).
fn is_reply_attribution(lower: &str) -> bool {
    lower.starts_with("on ") && lower.trim_end().ends_with("wrote:") && lower.len() <= 200
}

/// A line of [`SIGN_OFF_WORDS`] only (at most eight), with one of [`SIGN_OFF_HEADS`], ending in
/// a comma or in nothing (lower-cased line): "Thanks and regards,", "Thanks & best regards".
fn is_composed_sign_off(lower: &str) -> bool {
    let body = lower.trim_end();
    let body = body.strip_suffix(',').unwrap_or(body);
    if body.ends_with(|c: char| !(c.is_alphanumeric() || c == '&')) {
        return false;
    }
    let words: Vec<&str> = body
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    !words.is_empty()
        && words.len() <= 8
        && words.iter().all(|w| SIGN_OFF_WORDS.contains(w))
        && words.iter().any(|w| SIGN_OFF_HEADS.contains(w))
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
        // Sign-offs composed of sign-off words, mail programs' notices, reply attributions.
        for line in [
            "Thanks & kind regards,",
            "Many thanks and warm wishes",
            "Take care,",
            "Sent with Tuta secure mail",
            "-------- Forwarded message --------",
            "Please do NOT reply to this message.",
            "On Mon, 3 Jun 2024 at 18:40, Rahul Mehta <rahul@example.in> wrote:",
            "Please consider the environment before printing this e-mail",
            "This email is confidential and intended only for the named recipient.",
            "The information contained in this message is privileged and confidential.",
        ] {
            assert_eq!(
                covered(&format!("Ci sentiamo lunedì.\n{line}\nPaolo")),
                [line]
            );
        }
    }

    #[test]
    fn the_writers_own_words_are_not_boilerplate() {
        // A label mid-line, a sentence that starts like a sign-off, the words of a real switch.
        assert!(covered("Te mando el subject: biology").is_empty());
        assert!(covered("Regards to your mother, dile que la extraño").is_empty());
        assert!(covered("I sent from my office the whole report, ya lo tienes").is_empty());
        assert!(covered("To be honest, no me gustó nada").is_empty());
        // A sentence about a mail that is no confidentiality notice.
        assert!(covered("This email is for you, léelo con calma").is_empty());
        // A sign-off closing a line after the writer's sentence, before a name.
        assert_eq!(
            covered("Te paso el archivo. Thanks & regards, Marta"),
            ["Thanks & regards,"]
        );
        // Sign-off words in a sentence of the writer's own, or a reply in chat.
        assert!(covered("Thank you so much").is_empty());
        assert!(covered("Take care of yourself, nos vemos").is_empty());
        assert!(covered("Cheers! Nos vemos el sábado").is_empty());
        assert!(covered("On the way home I wrote: te quiero").is_empty());
        assert!(covered("Ya llegué. Thank you so much, Marta").is_empty());
        assert!(covered("Ya llegué. Take care of the kids, por favor").is_empty());
        // A salutation or a short sign-off is boilerplate on a line of its own in a mail only.
        assert!(covered("Hi Maria, ¿cómo estás?").is_empty());
        assert!(covered("Hola a todos,\nthanks for coming, fue genial").is_empty());
    }

    #[test]
    fn salutation_and_short_sign_off_lines_of_a_mail_are_boilerplate() {
        assert_eq!(
            covered("Hi Rahul,\nKal subah milte hain.\nThanks,\nPriya"),
            ["Hi Rahul,", "Thanks,"]
        );
        assert_eq!(
            covered("Dear Sir,\nMain kal chhutti par rahunga.\nBest,\nAmit"),
            ["Dear Sir,", "Best,"]
        );
        assert_eq!(
            covered("anbei die Unterlagen.\nThx!\nMaren\nCheers!\nBR"),
            ["Thx!", "Cheers!", "BR"]
        );
    }
}
