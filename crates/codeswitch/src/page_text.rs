//! Text that a web page, an app or a platform puts around the writer's words and that a scrape
//! or a copy-and-paste carries along (review 26r): a lyrics site's "You might also like", a
//! recipe site's "Jump to Recipe", a social app's "See translation" and "Liked by … and 231
//! others", an app's pre-filled share text ("Check out this song on Spotify"), a meeting
//! invitation's "Join Zoom Meeting" and "Meeting ID:", an auto-caption's "Thank you for
//! watching.", an e-reader's "- Your Highlight on page 45 | Location 680-682 | Added on …", a
//! navigation app's "Turn left onto Camino Real", a journal article's "Corresponding author:".
//! It is English whatever language the writer wrote in, so it is no evidence that the writer
//! switched: the tagger reads it as it reads a link, as no word of either language ([`spans`]).

/// Sentences such a page or app writes, whole (lower-cased, closing punctuation dropped).
const WHOLE: &[&str] = &[
    // Lyrics sites.
    "you might also like",
    // Recipe and news sites.
    "jump to recipe",
    "print recipe",
    "pin recipe",
    "advertisement",
    "continue reading below",
    "continue reading",
    "did you make this recipe",
    "rate this recipe",
    // Social apps.
    "see translation",
    "translate post",
    "translate tweet",
    "show more",
    "show more replies",
    "show this thread",
    "view more replies",
    "view replies",
    "you'll also like",
    // Meeting invitations.
    "microsoft teams meeting",
    "join zoom meeting",
    "join with google meet",
    "join on your computer, mobile app or room device",
    "join on your computer or mobile app",
    "click here to join the meeting",
    "or call in (audio only)",
    "one tap mobile",
    "find your local number",
    "more phone numbers",
    "learn more | meeting options",
    "download teams | join on the web",
    // A navigation app's spoken directions (review 26s).
    "your destination is on the left",
    "your destination is on the right",
    "you have arrived at your destination",
    "you have arrived",
    "rerouting",
    // Auto-captions and video endings.
    "thank you for watching",
    "thanks for watching",
    "please subscribe to my channel",
    "please like and subscribe",
    "subtitles by the amara.org community",
];

/// Openings of a sentence such a page or app writes (lower-cased, whole words).
const OPENINGS: &[&str] = &[
    // Lyrics sites: "Get tickets as low as $48".
    "get tickets as low as",
    // Social apps: "Liked by carol.mendes and 231 others", "View all 18 comments", "Replying
    // to @mika_live".
    "liked by ",
    "view all ",
    "replying to @",
    // Share texts.
    "check out this song on",
    "check out this place on",
    "check out this video on",
    "check out this post on",
    "check out this product on",
    "watch this video on",
    "look what i found on",
    "listen to this episode on",
    // Meeting invitations: "Meeting ID: 372 918 455 611", "Passcode: Xb7kQ2", "Or dial: …".
    "meeting id:",
    "passcode:",
    "or dial:",
    // A navigation app's directions (review 26s): "Head north on Calle Los Olivos toward
    // Avenida Central", "Turn left onto Camino Real, then turn right".
    "head north on ",
    "head south on ",
    "head east on ",
    "head west on ",
    "head northeast on ",
    "head northwest on ",
    "head southeast on ",
    "head southwest on ",
    "turn left onto ",
    "turn right onto ",
    "slight left onto ",
    "slight right onto ",
    "sharp left onto ",
    "sharp right onto ",
    "continue onto ",
    "merge onto ",
    "at the roundabout, take the ",
    // A journal article's front matter (review 26s): "Submitted on: 10/03/2023",
    // "Corresponding author: …", "How to cite this article: …".
    "submitted on:",
    "received on:",
    "accepted on:",
    "published on:",
    "published online:",
    "corresponding author:",
    "how to cite this article:",
    "article history:",
    // E-reader exports: "- Your Highlight on page 45 | Location 680-682 | Added on …".
    "- your highlight on",
    "- your note on",
    "- your bookmark on",
    "your highlight on page",
    "your note on page",
];

/// Phrases that make a sentence a share text or an app's line wherever they stand in it:
/// "I'm on a 120 day streak on Duolingo!", "Like · Reply · 3w".
const PHRASES: &[&str] = &["day streak on duolingo", "· reply ·", "| added on "];

/// Whether a sentence (lower-cased) is such text.
fn is_page_text(lower: &str) -> bool {
    let bare = lower.trim_end_matches(|c: char| !c.is_alphanumeric() && c != ')');
    let bare = bare.trim_start_matches(['[', '(']);
    // A lyrics site's embed counter ("12Embed"), a lone "Embed".
    let embed = bare
        .strip_suffix("embed")
        .is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()));
    embed
        || WHOLE.contains(&bare)
        || OPENINGS.iter().any(|o| bare.starts_with(o))
        || PHRASES.iter().any(|p| bare.contains(p))
}

/// Byte ranges of `text` that are a page's or an app's text ([`is_page_text`]), each a whole
/// sentence: a line is cut into sentences at a sentence-ending mark followed by a space. The
/// sentences in ASCII letters that follow such a sentence on its line are its tail ("Please
/// subscribe to my channel. Thank you.", "I'm on a 100 day streak on Duolingo! Join me and
/// learn Japanese for free.").
pub(crate) fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let mut start = 0;
        let mut tail = false;
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let next = chars.peek().map(|&(_, n)| n);
            let ends = next.is_none_or(|n| n == '\n' || n == '\r')
                || (crate::words::ends_sentence(c) && next.is_some_and(char::is_whitespace));
            if !ends {
                continue;
            }
            let end = i + c.len_utf8();
            let piece = &line[start..end];
            let sentence = piece.trim();
            tail = !sentence.is_empty()
                && ((tail && sentence.is_ascii()) || is_page_text(&sentence.to_lowercase()));
            if tail {
                let at = line_start + start + (piece.len() - piece.trim_start().len());
                out.push((at, at + sentence.len()));
            }
            start = end;
        }
        line_start += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::spans;

    fn covered(text: &str) -> Vec<&str> {
        spans(text).into_iter().map(|(a, b)| &text[a..b]).collect()
    }

    #[test]
    fn page_and_app_text_is_covered_whole() {
        assert_eq!(
            covered("Me fui sin decirte adiós\nYou might also like\nnadie me enseñó\n12Embed"),
            ["You might also like", "12Embed"]
        );
        assert_eq!(
            covered("Bumbunya sudah siap. Thank you for watching. Thank you for watching."),
            ["Thank you for watching.", "Thank you for watching."]
        );
        assert_eq!(
            covered("Que saudade!\nLiked by carol.mendes and 231 others\nView all 18 comments"),
            [
                "Liked by carol.mendes and 231 others",
                "View all 18 comments"
            ]
        );
        assert_eq!(
            covered("완성입니다. Please subscribe to my channel. Thank you."),
            ["Please subscribe to my channel.", "Thank you."]
        );
        assert_eq!(
            covered("- Your Highlight on page 45 | Location 680-682 | Added on Monday"),
            ["- Your Highlight on page 45 | Location 680-682 | Added on Monday"]
        );
        assert_eq!(
            covered("Hier ist der Link.\nJoin Zoom Meeting\nMeeting ID: 845 1234 5678"),
            ["Join Zoom Meeting", "Meeting ID: 845 1234 5678"]
        );
        assert_eq!(
            covered("Ya casi. Turn left onto Camino Real, then turn right. La casa está ahí."),
            ["Turn left onto Camino Real, then turn right."]
        );
        assert_eq!(
            covered("Estaciona aquí. Your destination is on the left."),
            ["Your destination is on the left."]
        );
        assert_eq!(
            covered("Corresponding author: Helena Tavares.\nEste estudo investiga a seca."),
            ["Corresponding author: Helena Tavares."]
        );
    }

    #[test]
    fn the_writers_own_english_is_not() {
        for text in [
            "Ayer vimos a movie, thank you for watching it with me.",
            "I liked the show more than the book.",
            "Check out this place, está buenísimo.",
            "Nos vemos mañana, see you there!",
            "Después del puente turn left, ahí está la tienda.",
        ] {
            assert!(covered(text).is_empty(), "{text}: {:?}", covered(text));
        }
    }
}
