//! E-mail boilerplate: the header labels and the lines a mail program or a signature adds
//! ("Subject:", "Sent from my iPhone", "Best regards"). They are English in mail written in any
//! language, so they are no evidence that a writer switched to English: the tagger reads them
//! as it reads a link, as no word of either language ([`spans`]).

use unicode_script::{Script, UnicodeScript};

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
    "sent using ",
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
        } else {
            spans.extend(
                notice_sentences(trimmed)
                    .into_iter()
                    .map(|(a, b)| (from + a, from + b)),
            );
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

/// The lines a chat app writes in place of a message, whole (lower-cased, the angle brackets
/// and closing punctuation dropped): "This message was deleted", "<Media omitted>",
/// "Forwarded many times", "Missed voice call".
const CHAT_SYSTEM_LINES: &[&str] = &[
    "this message was deleted",
    "you deleted this message",
    "you unsent a message",
    "this message was unsent",
    "this message was edited",
    "message deleted",
    "media omitted",
    "image omitted",
    "video omitted",
    "audio omitted",
    "sticker omitted",
    "gif omitted",
    "document omitted",
    "contact card omitted",
    "forwarded",
    "forwarded many times",
    "missed voice call",
    "missed video call",
    "waiting for this message",
    "waiting for this message. this may take a while",
    "this may take a while",
    "you blocked this contact",
    "you unblocked this contact",
    "security code changed",
];

/// Openings of a sentence that a chat app, a shop, a payment service or a mailing list writes
/// (lower-cased): "Messages and calls are end-to-end encrypted", "Track your order in the app",
/// "Please rate your rider", "Thank you for shopping with us".
const NOTICE_SENTENCE_STARTS: &[&str] = &[
    "messages and calls are end-to-end encrypted",
    "messages to this chat and calls are",
    "messages to this group are now secured",
    "messages to this chat are now secured",
    "track your order",
    "track your package",
    "track your parcel",
    "track your shipment",
    "track your delivery",
    "please rate your",
    "rate your rider",
    "rate your driver",
    "rate your delivery",
    "rate your order",
    "rate your experience",
    "thank you for shopping",
    "thanks for shopping",
    "thank you for your order",
    "thanks for your order",
    "thank you for your purchase",
    "thanks for your purchase",
    "thank you for ordering",
    "thank you for your patronage",
    "thank you for your payment",
    "powered by ",
    "copyright ",
    "© ",
    "terms and conditions apply",
    "terms apply",
    "t&cs apply",
    "t&c apply",
    "msg & data rates may apply",
    "message and data rates may apply",
];

/// Openings of the English sentences of public signs and transit announcements, which stand
/// beside the local language on signs, in stations and on board ("Next station: Sol", "Please
/// mind the gap", "No smoking", "Thank you for riding with us"): a translation for visitors, not
/// a speaker's switch (lower-cased).
const SIGN_SENTENCE_STARTS: &[&str] = &[
    "next station",
    "next stop",
    "the next station is",
    "the next stop is",
    "this station is",
    "this stop is",
    "this train terminates",
    "this train is bound for",
    "this train is for",
    "mind the gap",
    "please mind the gap",
    "mind the closing doors",
    "mind the doors",
    "please mind the closing doors",
    "stand clear of the",
    "please stand clear of the",
    "please stand back from",
    "please keep clear of the",
    "please stay behind the",
    "the doors are on your",
    "the doors will open on",
    "doors will open on",
    "doors closing",
    "please do not lean on the doors",
    "please hold the handrail",
    "please offer your seat",
    "please take care of your belongings",
    "please keep your belongings",
    "please make sure you have all your belongings",
    "please do not leave your belongings",
    "please fasten your",
    "fasten your",
    "please validate your ticket",
    "please keep your ticket",
    "passengers kindly",
    "passengers are requested",
    "attention passengers",
    "attention, passengers",
    "attention all passengers",
    "have a pleasant journey",
    "have a pleasant flight",
    "thank you for riding",
    "thank you for flying",
    "thank you for travelling",
    "thank you for traveling",
    "thank you for choosing",
    "thank you for your visit",
    "thank you for visiting",
    "no smoking",
    "smoking is not allowed",
    "smoking is prohibited",
    "smoking is strictly prohibited",
    "no parking",
    "no entry",
    "no admittance",
    "staff only",
    "emergency exit",
    "out of order",
    "keep out",
    "caution",
    "wet floor",
    "watch your step",
    "please watch your step",
    "mind your step",
    "please mind your step",
    "keep off the grass",
    "please keep off the grass",
    "no photography",
    "no flash photography",
    "no photos",
    "the doors are closing",
    "doors are closing",
    "authorized personnel only",
    "authorised personnel only",
    "staff and authorized personnel only",
    "employees only",
    "keep this door closed",
    "keep door closed",
    "keep this door shut",
    "please do not feed",
    "do not feed the",
    "please do not touch",
    "do not touch",
    "do not enter",
    "no trespassing",
    "private property",
    "please stand behind",
    "stand behind the",
    "the train is now approaching",
    "the train is approaching",
    "a train is approaching",
    "closed for ",
];

/// Phrases that make a sentence a notice wherever they stand in it (lower-cased): an
/// unsubscribe line, a rights line, an auto-reply's "upon my return" or "limited access to
/// email".
const NOTICE_SENTENCE_PHRASES: &[&str] = &[
    "can unsubscribe",
    "unsubscribe at any time",
    "unsubscribe here",
    "all rights reserved",
    "upon my return",
    "limited access to email",
    "limited access to e-mail",
    "limited access to my email",
    "limited access to my e-mail",
    "i'll be back in the office",
    "i will be back in the office",
    "on annual leave",
    "on parental leave",
    "on maternity leave",
    "on paternity leave",
    "on sick leave",
    "on leave until",
    "with no access to",
    "without access to email",
    "without access to e-mail",
    "no access to email",
    "no access to e-mail",
    "access to my inbox",
    "access to my mailbox",
    "for urgent matters",
    "for anything urgent",
    "for urgent requests",
    "for urgent enquiries",
    "for urgent inquiries",
    "in case of urgency",
    "get back to you as soon as",
    "do not share it with anyone",
    "don't share it with anyone",
    "do not share this code",
    "don't share this code",
    "never share this code",
    "never share your otp",
    "do not share your otp",
    "end-to-end encryption",
    "to opt out",
    "opt out at any time",
    "opt-out at any time",
    "manage your preferences",
    "update your preferences",
    "manage your subscription",
    "receiving this email",
    "receiving this e-mail",
    "receiving this message because",
    "received this email because",
    "one-time pin",
    "one time pin",
];

/// The words that make a sentence saying "to unsubscribe" a mailing list's or a text
/// service's line ("Click here to unsubscribe", "Reply STOP to unsubscribe"), not a writer who
/// tried to ("I tried to unsubscribe, mais ils m'envoient encore des promos").
const UNSUBSCRIBE_WORDS: &[&str] = &[
    "click",
    "tap",
    "here",
    "link",
    "below",
    "reply",
    "text",
    "stop",
    "wish",
    "visit",
    "please",
    "simply",
    "button",
    "settings",
    "preferences",
    "anytime",
];

/// The platforms that close an app's advert line in a mail ("Get BlueMail for Android").
const APP_PLATFORMS: &[&str] = &[
    "android", "ios", "iphone", "ipad", "windows", "mac", "desktop",
];

/// The words that make a sentence saying "out of (the) office" an auto-reply ("I am currently
/// out of the office", "I am out of office until Monday and will reply …").
const AUTO_REPLY_WORDS: &[&str] = &[
    "until",
    "return",
    "returning",
    "access",
    "reply",
    "respond",
    "currently",
    "back",
];

/// The words of an apps' or devices' "Sent from …" line ("Sent from Mail.ru for Android",
/// "Sent from my Huawei phone"): a sentence that opens "sent from " and holds one of them.
const SENT_FROM_WORDS: &[&str] = &[
    "mail",
    "android",
    "ios",
    "iphone",
    "ipad",
    "phone",
    "windows",
    "outlook",
    "galaxy",
    "samsung",
    "huawei",
    "xiaomi",
    "mobile",
    "device",
    "tablet",
    "app",
    "smartphone",
];

/// The sentences of `line` (byte ranges, trimmed) that are notices a program, a shop or an app
/// writes, not the writer ([`is_notice_sentence`]); in the other sentences, the clauses that are
/// a sign or a shop's notice quoted in the writer's sentence ([`notice_clauses`]) and a song
/// named after a music note ([`song_after_note`]). A sentence ends at `.`, `!` or `?` before a
/// space, or at a CJK, Devanagari or Arabic full stop or question mark.
fn notice_sentences(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = matches!(c, '。' | '！' | '？' | '।' | '؟' | '۔')
            || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace))
            || next.is_none();
        if !ends {
            continue;
        }
        let end = i + c.len_utf8();
        let piece = &line[start..end];
        let lead = piece.len() - piece.trim_start().len();
        let sentence = piece.trim();
        let at = start + lead;
        if !sentence.is_empty() && is_notice_sentence(&sentence.to_lowercase()) {
            out.push((at, at + sentence.len()));
        } else {
            out.extend(
                notice_clauses(sentence)
                    .into_iter()
                    .chain(song_after_note(sentence))
                    .map(|(a, b)| (at + a, at + b)),
            );
        }
        start = end;
    }
    out
}

/// Whether `c` ends a clause inside a sentence: a comma, colon, semicolon or dash, Latin,
/// full-width or Arabic.
fn ends_clause(c: char) -> bool {
    matches!(
        c,
        ',' | ';' | ':' | '–' | '—' | '，' | '、' | '：' | '；' | '،' | '؛'
    )
}

/// Whether `c` introduces a quotation or an aside: a colon or a dash.
fn introduces(c: char) -> bool {
    matches!(c, ':' | '–' | '—' | '：')
}

/// The clauses of a sentence (byte ranges, trimmed) that open like a sign or a shop's notice
/// ([`SIGN_SENTENCE_STARTS`], [`NOTICE_SENTENCE_STARTS`]) where they are quoted inside the
/// writer's sentence: after a colon or dash ("В метро одно и то же: the next station is Park
/// Kultury, и все …"), in Latin letters after another script running to the clause's end
/// ("公园门口写着 请勿践踏草坪 Keep off the grass，结果 …"), or after a comma that follows such a
/// clause ("– caution, the doors are closing –"). A sign's words used inside the writer's own
/// clause ("我们家里 no smoking 的规矩", "Yung condo namin, no smoking sa buong building") stay
/// the writer's. A clause ends at the next comma, colon, semicolon or dash, or where the script
/// changes (then it was not quoted whole).
fn notice_clauses(sentence: &str) -> Vec<(usize, usize)> {
    // How the current clause was opened.
    #[derive(Clone, Copy, PartialEq)]
    enum Opened {
        Sentence,
        Comma,
        Mark,
        Script,
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut previous_quoted = false;
    let mut close = |from: usize, to: usize, opened: Opened, whole: bool| {
        let piece = &sentence[from..to];
        let lead = piece.len() - piece.trim_start().len();
        let clause = piece.trim();
        let lower = clause.to_lowercase();
        let quoted = whole
            && match opened {
                Opened::Mark | Opened::Script => true,
                Opened::Comma => previous_quoted,
                Opened::Sentence => false,
            };
        // A quoted "no …" of at most four words is a sign too ("no diving, no running, no
        // glass bottles").
        let short_ban = lower.starts_with("no ") && lower.split_whitespace().count() <= 4;
        previous_quoted = quoted
            && !clause.is_empty()
            && (short_ban
                || SIGN_SENTENCE_STARTS
                    .iter()
                    .chain(NOTICE_SENTENCE_STARTS)
                    .any(|s| opens(&lower, s)));
        if previous_quoted {
            out.push((from + lead, from + lead + clause.len()));
        }
    };
    let mut start = 0;
    let mut opened = Opened::Sentence;
    let mut latin: Option<bool> = None;
    for (i, c) in sentence.char_indices() {
        if ends_clause(c) {
            close(start, i, opened, true);
            start = i + c.len_utf8();
            opened = if introduces(c) {
                Opened::Mark
            } else {
                Opened::Comma
            };
            latin = None;
        } else if c.is_alphabetic() {
            let is_latin = c.script() == Script::Latin;
            if latin.is_some_and(|l| l != is_latin) {
                close(start, i, opened, false);
                start = i;
                opened = if is_latin {
                    Opened::Script
                } else {
                    Opened::Comma
                };
            }
            latin = Some(is_latin);
        }
    }
    close(start, sentence.len(), opened, true);
    out
}

/// The music notes that name a song after them ("Ma grand-mère chante 🎵 Let it be en faisant
/// la vaisselle").
const MUSIC_NOTES: &[char] = &[
    '🎵', '🎶', '♪', '♫', '♬', '🎼', '🎧', '🎤', '🎙', '📻', '🎸', '🎹', '🎷', '🎺', '🎻',
];

/// The song a music note names inside a sentence (byte range): from the note to the next note,
/// the clause's end or the sentence's end. A quoted title, not the writer's switch; the rest of
/// the clause goes with it, so a batch's other language loses a few words at most.
fn song_after_note(sentence: &str) -> Option<(usize, usize)> {
    let at = sentence.find(MUSIC_NOTES)?;
    let rest = &sentence[at..];
    let note = rest.chars().next().map_or(0, char::len_utf8);
    let end = rest[note..]
        .find(|c: char| MUSIC_NOTES.contains(&c) || ends_clause(c) || matches!(c, '.' | '!' | '?'))
        .map_or(rest.len(), |e| {
            note + e + rest[note + e..].chars().next().map_or(0, char::len_utf8)
        });
    Some((at, at + end))
}

/// A sentence (lower-cased) that a chat app, a mail program, an auto-reply, a shop or a payment
/// service writes: a chat app's line in place of a message ([`CHAT_SYSTEM_LINES`]), a "Sent
/// from …" line ([`PROGRAM_LINE_STARTS`], or "sent from " with one of [`SENT_FROM_WORDS`]), a
/// confidentiality notice (one of [`NOTICE_WORDS`] with "this email", "this message" …), an
/// auto-reply, shop or mailing-list notice ([`NOTICE_SENTENCE_STARTS`],
/// [`NOTICE_SENTENCE_PHRASES`]), "Your order has shipped", "You have received PHP 500.00".
fn is_notice_sentence(lower: &str) -> bool {
    // Format characters an export leaves in ("\u{200E}image omitted") hide nothing.
    let cleaned: String;
    let lower = if lower.contains(crate::words::is_format_character) {
        cleaned = lower
            .chars()
            .filter(|&c| !crate::words::is_format_character(c))
            .collect();
        cleaned.as_str()
    } else {
        lower
    };
    let bare = lower
        .trim_start_matches(['<', '(', '['])
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    let words: Vec<&str> = bare
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let mail_object = [
        "this email",
        "this e-mail",
        "this message",
        "this communication",
    ]
    .iter()
    .any(|p| lower.contains(p));
    CHAT_SYSTEM_LINES.contains(&bare)
        || PROGRAM_LINE_STARTS.iter().any(|s| lower.starts_with(s))
        || (lower.starts_with("sent from ") && SENT_FROM_WORDS.iter().any(|w| has(w)))
        || (mail_object && NOTICE_WORDS.iter().any(|w| lower.contains(w)))
        || NOTICE_SENTENCE_STARTS.iter().any(|s| opens(lower, s))
        || SIGN_SENTENCE_STARTS.iter().any(|s| opens(lower, s))
        || NOTICE_SENTENCE_PHRASES.iter().any(|s| lower.contains(s))
        || (lower.contains("to unsubscribe")
            && (opens(bare, "to unsubscribe") || UNSUBSCRIBE_WORDS.iter().any(|w| has(w))))
        || is_chat_event(bare, &words)
        || (words.first() == Some(&"get")
            && words.len() <= 5
            && words.last().is_some_and(|w| APP_PLATFORMS.contains(w)))
        || is_one_time_code(lower, &words)
        || (["out of the office", "out of office"]
            .iter()
            .any(|p| lower.contains(p))
            && AUTO_REPLY_WORDS.iter().any(|w| has(w)))
        || is_reply_promise(lower)
        || is_order_or_payment_notice(lower, &words)
}

/// A chat app's line about a message or the group, with a name before it ("Jun reacted 😆 to
/// your message", "Ana unsent a message", "Ben pinned a message").
fn is_chat_event(bare: &str, words: &[&str]) -> bool {
    words.len() <= 8
        && (bare.ends_with("unsent a message")
            || bare.ends_with("pinned a message")
            || (words.contains(&"reacted")
                && (bare.ends_with("to your message") || bare.ends_with("to a message")))
            || bare.contains("changed the group name")
            || bare.contains("changed this group's")
            || bare.contains("joined using this group's invite link"))
}

/// A bank's or an app's one-time code ("Your OTP for login is 482913", "Your verification code
/// is 1234"): the code's name and a digit.
fn is_one_time_code(lower: &str, words: &[&str]) -> bool {
    (words.contains(&"otp")
        || [
            "verification code",
            "one-time password",
            "one time password",
            "security code is",
            "login code",
        ]
        .iter()
        .any(|p| lower.contains(p)))
        && lower.chars().any(|c| c.is_ascii_digit())
        || (words.first() == Some(&"use")
            && words
                .get(1)
                .is_some_and(|w| w.len() >= 4 && w.chars().all(|c| c.is_ascii_digit()))
            && ["log in", "login", "sign in", "verify", "confirm"]
                .iter()
                .any(|p| lower.contains(p)))
}

/// An auto-reply's promise (lower-cased sentence): "I will reply as soon as possible", "I'll
/// respond to your message when I'm back", "Thank you for your email, I will respond upon my
/// return".
fn is_reply_promise(lower: &str) -> bool {
    let lower = lower.replace('\u{2019}', "'");
    ["will reply", "will respond", "'ll reply", "'ll respond"]
        .iter()
        .any(|p| lower.contains(p))
        && [
            "as soon as possible",
            "your message",
            "your email",
            "your e-mail",
            "when i'm back",
            "when i am back",
            "when i return",
            "on my return",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Whether `lower` opens with `prefix` as whole words ("caution" opens "Caution, wet floor",
/// not "Cautionary tales").
fn opens(lower: &str, prefix: &str) -> bool {
    lower.strip_prefix(prefix).is_some_and(|rest| {
        prefix.ends_with(' ') || !rest.starts_with(|c: char| c.is_alphanumeric())
    })
}

/// "Your order has shipped", "Your parcel has been dispatched", "You have received PHP 500.00
/// from Juan D.", "Your payment of $20 was successful" (lower-cased sentence and its words).
fn is_order_or_payment_notice(lower: &str, words: &[&str]) -> bool {
    let has = |w: &str| words.contains(&w);
    let order = [
        "your order",
        "your parcel",
        "your package",
        "your shipment",
        "your item",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        && ([
            "shipped",
            "dispatched",
            "delivered",
            "confirmed",
            "sent",
            "handed",
        ]
        .iter()
        .any(|w| has(w))
            || lower.contains("out for delivery")
            || lower.contains("on its way"))
        || ["delivered:", "shipped:", "dispatched:", "out for delivery:"]
            .iter()
            .any(|p| lower.starts_with(p));
    let amount = lower.chars().any(|c| c.is_ascii_digit());
    let payment = amount
        && [
            "you have received",
            "you've received",
            "you have sent",
            "you received",
            "your payment of",
        ]
        .iter()
        .any(|p| lower.starts_with(p));
    // "Transaction successful", "Your cash-in of PHP 3,000.00 was successful", "Ref No. 8012".
    let success = [
        "transaction",
        "payment",
        "transfer",
        "top-up",
        "cash-in",
        "load",
        "order",
    ]
    .iter()
    .any(|w| has(w))
        && (has("successful") || has("successfully"))
        && words.len() <= 12;
    let reference = [
        "ref no",
        "ref. no",
        "reference no",
        "ref #",
        "txn id",
        "transaction id",
    ]
    .iter()
    .any(|p| lower.starts_with(p));
    order || payment || success || reference
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

    #[test]
    fn notice_sentences_after_the_writers_own_are_boilerplate() {
        for (text, notice) in [
            (
                "Te paso la factura. Sent from my Huawei phone.",
                "Sent from my Huawei phone.",
            ),
            (
                "请查收。Sent from Mail for Windows",
                "Sent from Mail for Windows",
            ),
            (
                "Ya pagué. You have received USD 20.00 from Ana.",
                "You have received USD 20.00 from Ana.",
            ),
            (
                "Llega mañana. Your parcel is out for delivery.",
                "Your parcel is out for delivery.",
            ),
            (
                "Estoy de viaje. I am currently out of the office.",
                "I am currently out of the office.",
            ),
            (
                "Próxima estación: Sol. Next station: Sol.",
                "Next station: Sol.",
            ),
            ("This message was deleted", "This message was deleted"),
            ("<Media omitted>", "<Media omitted>"),
        ] {
            assert_eq!(covered(text), [notice], "{text}");
        }
        // The writer's own sentences that share words with a notice.
        for text in [
            "I'm out of the office but stuck in traffic, llego tarde.",
            "Your order was a disaster, te lo juro.",
            "I'll reply after the meeting, ¿vale?",
            "Cautionary tales, eso son.",
            "Forwarded it to you ayer.",
            "Ich hab versucht to unsubscribe, aber die schicken immer noch Werbung.",
        ] {
            assert!(covered(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn quoted_sign_clauses_and_songs_are_boilerplate_inside_a_sentence() {
        for (text, notices) in [
            (
                "В метро одно и то же: the next station is Park Kultury, и все встают.",
                &["the next station is Park Kultury"][..],
            ),
            (
                "Объявили – caution, the doors are closing – и я засмеялся.",
                &["caution", "the doors are closing"][..],
            ),
            (
                "公园门口写着 请勿践踏草坪 Keep off the grass，结果小孩都在跑。",
                &["Keep off the grass"][..],
            ),
            (
                "Ma grand-mère chante 🎵 Let it be en faisant la vaisselle.",
                &["🎵 Let it be en faisant la vaisselle."][..],
            ),
            (
                "شفت هالرسالة؟ Your parcel is out for delivery",
                &["Your parcel is out for delivery"][..],
            ),
        ] {
            assert_eq!(covered(text), notices, "{text}");
        }
        // A sign's words used inside the writer's own clause.
        for text in [
            "我们家里 no smoking 的规矩是我妈定的。",
            "Yung condo namin, no smoking sa buong building, so sa labas kami.",
            "Es un hotel no smoking, so bring gum.",
        ] {
            assert!(covered(text).is_empty(), "{text}");
        }
    }
}
