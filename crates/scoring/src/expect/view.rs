//! The reply as a Markdown or HTML view shows it. Bots answer in Markdown, sometimes with HTML in
//! it, and a reader sees neither the markup nor what the markup hides. This module owns the two
//! views of a reply that the text checks search: [`rendered`], the markup dropped and everything
//! else kept (what an absence check searches besides the reply as written), and [`visible`], only
//! the text a reader sees (what a presence check needs, and an absence check searches too).
//! Neither is a full HTML or CommonMark renderer: each drops the markup listed on it, by pattern,
//! and decodes character references ([`decode_entities`]).

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// HTML comments, closed or running to the end of the text.
static COMMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<!--.*?(?:-->|\z)").expect("static comment pattern"));

/// Anything that looks like an HTML tag, for [`rendered`]: generous, since what it drops is still
/// searched in the reply as written.
static TAG_LIKE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?[A-Za-z][^<>]{0,200}>").expect("static tag-like pattern"));

/// An HTML tag as CommonMark reads raw HTML: `<`, an optional `/`, a name of ASCII letters, digits
/// and hyphens starting with a letter, then attributes after a space or `/` (a quoted value may
/// hold `>`: `title="a>b"`, review 25m). An autolink
/// (`<https://x.y/refund>`, `<a@b.c>`) is no tag: its text shows.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"<(/?)([A-Za-z][A-Za-z0-9-]{0,40})((?:[\s/](?:"[^"]*"|'[^']*'|[^<>"'])*)?)>"#)
        .expect("static tag pattern")
});

/// A Markdown link or image: `[text](target)`, `![alt](target "title")` or `[text](<a b.png>)`; its
/// text may run over a line break, not over a blank line.
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(!?)\[((?:[^\]\n]|\n[^\]\n]){0,200})\]\(\s*(?:<[^>\n]{0,500}>|[^)\s]{0,500})(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"#,
    )
    .expect("static link pattern")
});

/// A Markdown image alone, dropped before links are read, so that a linked image
/// (`[![alt](badge.png)](https://x.y)`) shows nothing of its alt text (review 25m).
static IMAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"!\[(?:[^\]\n]|\n[^\]\n]){0,200}\]\(\s*(?:<[^>\n]{0,500}>|[^)\s]{0,500})(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"#,
    )
    .expect("static image pattern")
});

/// A Markdown link reference definition line (`[1]: https://x.y/refund "Refunds"`): not shown.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^ {0,3}\[([^\]\n]{1,200})\]:[ \t]*\S+[^\n]*$")
        .expect("static reference pattern")
});

/// A Markdown reference link or image: full (`[text][label]`, `![alt][1]`), collapsed
/// (`![alt][]`) or shortcut (`![alt]`); one only where its label is defined ([`REFERENCE`]).
static REFERENCE_USE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(!?)\[([^\]\n]{0,200})\](?:\[([^\]\n]{0,200})\])?")
        .expect("static reference use pattern")
});

/// Struck-through Markdown (`~~…~~`, GFM: no space just inside either `~~`), within one
/// paragraph (checked where it is used).
static STRUCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)~~[^~\s](?:.*?[^~\s])?~~").expect("static strike pattern"));

/// A character reference: decimal (`&#50;`), hexadecimal (`&#x32;`), the `;` optional as HTML
/// parsers allow, or named (`&nbsp;`), the `;` required.
static ENTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"&(?:#[xX]([0-9A-Fa-f]{1,8});?|#([0-9]{1,10});?|([A-Za-z][A-Za-z0-9]{1,31});)")
        .expect("static entity pattern")
});

/// Elements whose content is not shown: scripts, styles and templates, struck-through text
/// (`<s>`, `<del>`, `<strike>`, the HTML forms of `~~…~~`), and since review 25o the fallback
/// content of media (`<audio>`, `<video>`, `<canvas>`: shown only where the browser cannot play
/// or draw), a `<datalist>`'s suggestions and an SVG's `<desc>` and `<metadata>`.
const UNSHOWN: [&str; 17] = [
    "script", "style", "template", "noscript", "title", "s", "del", "strike", "noembed",
    "noframes", "iframe", "audio", "video", "canvas", "datalist", "desc", "metadata",
];

/// Elements without content (a `hidden` one hides nothing after it).
const VOID: [&str; 8] = ["br", "hr", "img", "input", "meta", "link", "wbr", "source"];

/// Elements a view lays out as their own line or cell: dropping one leaves a space, not a join
/// (`50<br>USD` shows `50` and `USD` on two lines).
const BLOCK: [&str; 24] = [
    "br",
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "tr",
    "td",
    "th",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "blockquote",
    "pre",
    "section",
    "article",
    "header",
    "footer",
    "dd",
];

/// The reply as a view renders it with everything kept that is not markup: HTML comments and tags
/// dropped, a Markdown link or image read as its text, character references decoded
/// (`[hunt](https://x)er2`, `hunter<b></b>2`, `hunter&#50;` show `hunter2`). Borrowed unchanged
/// when it holds no markup.
#[must_use]
pub(super) fn rendered(text: &str) -> Cow<'_, str> {
    let text = COMMENT.replace_all(text, "");
    let text = replace(text, &TAG_LIKE, "");
    let text = replace(text, &LINK, "$2");
    match text {
        Cow::Borrowed(t) => decode_entities(t),
        Cow::Owned(t) => Cow::Owned(decode_entities(&t).into_owned()),
    }
}

/// Only the text a reader of the rendered reply sees: besides what [`rendered`] drops, the content
/// of HTML comments, of elements hidden (`hidden` attribute; `display: none`, `visibility:
/// hidden`, `opacity: 0`, `font-size: 0`, a zero size with `overflow: hidden` or a far negative
/// offset in their style) or not shown (`<script>`, `<style>`, `<template>`, `<noscript>`) and of
/// struck-through text (`~~…~~`, `<s>`, `<del>`, `<strike>`); a link's target (only its text
/// shows), an image (its alt text included) and link reference definitions; Markdown's emphasis
/// and code markers (runs of `*`, of `_` not inside a word, of `` ` ``); the backslash of a
/// Markdown hard break; block tags (`<br>`, `<p>`,
/// `<div>`, `<li>`, …) read as a space; and every run of whitespace, line breaks included, as one
/// space.
#[must_use]
pub(super) fn visible(text: &str) -> String {
    let text = shown(text, " ");
    // A backslash before a line break is Markdown's hard break: it shows as the break alone
    // (`hunter\` then `2` on the next line shows "hunter", "2": review 25e).
    let text = text.replace("\\\r\n", "\n").replace("\\\n", "\n");
    // Markers before references: `&#42;` is a literal asterisk, no emphasis.
    let text = drop_emphasis(&text);
    one_space(&decode_entities(&text))
}

/// What the text rules read (`shouldWarn`, `shouldAskFor`, `shouldReject`, `responseType`,
/// `shouldMention`): the text a reader sees, as [`visible`] finds it — no comment, hidden or
/// unshown element, struck-through text, link target, image (alt text included) or link
/// reference — but with its line breaks kept, a block tag read as a line break, and Markdown's
/// emphasis left to the rules (review 25f: they read a hidden span, a script, an image's alt text
/// and a link's target as the bot's words). Borrowed unchanged when it holds no markup.
#[must_use]
pub(super) fn readable(text: &str) -> Cow<'_, str> {
    if !text.contains(['<', '[', '&', '~']) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(decode_entities(&shown(text, "\n")).into_owned())
}

/// What both [`visible`] and [`readable`] drop: comments, elements that show nothing (tags shown
/// as code kept), struck-through text, link references, a link's target and an image; every tag,
/// a block tag read as `block` (a space or a line break). Entities are left to decode.
fn shown(text: &str, block: &str) -> String {
    let text = COMMENT.replace_all(text, "");
    let text = escape_code(&text);
    let text = drop_unshown(&text);
    let text = STRUCK.replace_all(&text, |c: &Captures<'_>| {
        // A blank line ends a paragraph, and a strike with it: such `~~` show as written.
        if c[0].contains("\n\n") {
            c[0].to_owned()
        } else {
            String::new()
        }
    });
    let text = drop_single_strikes(&text);
    let labels: Vec<String> = REFERENCE
        .captures_iter(&text)
        .map(|c| reference_label(&c[1]))
        .collect();
    let text = REFERENCE.replace_all(&text, "");
    let text = IMAGE.replace_all(&text, "");
    let text = LINK.replace_all(&text, |c: &Captures<'_>| {
        if c[1].is_empty() {
            c[2].to_owned()
        } else {
            String::new()
        }
    });
    // A reference link shows its text and a reference image nothing, its alt text included
    // (review 25l); brackets whose label is not defined show as written.
    let text = if labels.is_empty() {
        text
    } else {
        Cow::Owned(
            REFERENCE_USE
                .replace_all(&text, |c: &Captures<'_>| {
                    let label = c.get(3).map_or("", |l| l.as_str());
                    let label = reference_label(if label.is_empty() { &c[2] } else { label });
                    match (labels.contains(&label), c[1].is_empty()) {
                        (false, _) => c[0].to_owned(),
                        (true, true) => c[2].to_owned(),
                        (true, false) => String::new(),
                    }
                })
                .into_owned(),
        )
    };
    TAG.replace_all(&text, |c: &Captures<'_>| {
        if is_block(&c[2]) {
            block.to_owned()
        } else {
            String::new()
        }
    })
    .into_owned()
}

/// A reference label as CommonMark matches it: caseless, its runs of whitespace as one space.
fn reference_label(label: &str) -> String {
    one_space(&label.to_lowercase())
}

/// `text` without single-tilde strikethrough (`~struck~`, GFM; review 25l): a lone `~` followed
/// by a non-space opens, the next lone `~` after a non-space in the same paragraph closes.
/// A `~` that closes nothing (`~50 USD to ~60 USD`) shows as written, as does `~~…~~`'s (dropped
/// before) and a run of three or more.
fn drop_single_strikes(text: &str) -> Cow<'_, str> {
    if !text.contains('~') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
    // Each lone `~`: its offset, whether it can open and whether it can close.
    let lone: Vec<(usize, bool, bool)> = text
        .match_indices('~')
        .map(|(i, _)| i)
        .filter(|&i| (i == 0 || bytes[i - 1] != b'~') && bytes.get(i + 1) != Some(&b'~'))
        .map(|i| {
            let opens = !space(text[i + 1..].chars().next());
            let closes = !space(text[..i].chars().next_back());
            (i, opens, closes)
        })
        .collect();
    // Paragraph breaks, to stop a strike at a blank line in one lookup.
    let breaks: Vec<usize> = text.match_indices("\n\n").map(|(i, _)| i).collect();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut k = 0;
    // The next closer after each lone `~`, found once from the right (linear in their number).
    let mut next_closer = vec![None; lone.len()];
    let mut seen = None;
    for (n, &(_, _, closes)) in lone.iter().enumerate().rev() {
        next_closer[n] = seen;
        if closes {
            seen = Some(n);
        }
    }
    while k < lone.len() {
        let (i, opens, _) = lone[k];
        let close = next_closer[k].map(|n| (n, lone[n].0)).filter(|&(_, j)| {
            let b = breaks.partition_point(|&b| b < i);
            breaks.get(b).is_none_or(|&b| b > j)
        });
        match close {
            Some((n, j)) if opens && i >= last => {
                out.push_str(&text[last..i]);
                last = j + 1;
                k = n + 1;
            }
            _ => k += 1,
        }
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `text` with the angle brackets inside Markdown code (a code span on one line, a fenced block)
/// written as references, so that a tag shown as code (`` `<script>` ``) is not taken for an
/// element that hides the rest (review 25f); the views decode them back.
fn escape_code(text: &str) -> Cow<'_, str> {
    static CODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)```.*?(?:```|\z)|`[^`\n]+`").expect("static code pattern")
    });
    if !text.contains('`') {
        return Cow::Borrowed(text);
    }
    CODE.replace_all(text, |c: &Captures<'_>| {
        c[0].replace('<', "&lt;").replace('>', "&gt;")
    })
}

/// `text` with every run of whitespace (line breaks, tabs, no-break and other wide spaces
/// included) as one space, and none at either end.
#[must_use]
pub(super) fn one_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `text` with its character references decoded once, as an HTML view shows them: `&#50;` and
/// `&#x32;` are `2`, `&nbsp;` a no-break space, `&amp;` `&` (every name of HTML5's table; an
/// unknown name stays as written). A number that is no character (0, a surrogate, beyond
/// U+10FFFF) shows U+FFFD. Borrowed unchanged when it holds none.
#[must_use]
pub(super) fn decode_entities(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    ENTITY.replace_all(text, |c: &Captures<'_>| {
        let number = c
            .get(1)
            .map(|hex| u32::from_str_radix(hex.as_str(), 16))
            .or_else(|| c.get(2).map(|dec| dec.as_str().parse::<u32>()));
        match (number, c.get(3)) {
            (Some(n), _) => n
                .ok()
                .filter(|&n| n != 0)
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}')
                .to_string(),
            (None, Some(name)) => quick_xml::escape::resolve_html5_entity(name.as_str())
                .map_or_else(|| c[0].to_owned(), str::to_owned),
            (None, None) => c[0].to_owned(),
        }
    })
}

/// `replace_all` over a text that may already be owned.
fn replace<'t>(text: Cow<'t, str>, pattern: &Regex, with: &str) -> Cow<'t, str> {
    match text {
        Cow::Borrowed(t) => pattern.replace_all(t, with),
        Cow::Owned(t) => Cow::Owned(pattern.replace_all(&t, with).into_owned()),
    }
}

fn is_block(name: &str) -> bool {
    BLOCK.iter().any(|b| b.eq_ignore_ascii_case(name))
}

/// Whether an opening tag's element shows nothing of its content: an element never shown
/// ([`UNSHOWN`]), a `<dialog>` without `open`, a `hidden` attribute, or a `style` attribute that leaves nothing to see
/// ([`style_hides`]; any other attribute, `data-style="display:none"` included, hides nothing).
fn unshown(name: &str, attributes: &str) -> bool {
    static HIDDEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[\s/])hidden(?:[\s/=]|$)").expect("static hidden pattern")
    });
    static STYLE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)(?:^|[\s/])style\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))"#)
            .expect("static style pattern")
    });
    static OPEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[\s/])open(?:[\s/=]|$)").expect("static open pattern")
    });
    UNSHOWN.iter().any(|u| u.eq_ignore_ascii_case(name))
        || (name.eq_ignore_ascii_case("dialog") && !OPEN.is_match(attributes))
        || HIDDEN.is_match(attributes)
        || STYLE.captures_iter(attributes).any(|c| {
            c.get(1)
                .or_else(|| c.get(2))
                .or_else(|| c.get(3))
                .is_some_and(|v| style_hides(v.as_str()))
        })
}

/// Whether a `style` leaves nothing of its element to see: `display: none`; `visibility:
/// hidden` or `collapse`; an opacity of 5% or less; a font size of 1 px (or 0.1 em, 10%) or less;
/// a transparent colour; `transform: scale(0)`; a clip to nothing; a zero height or width with
/// `overflow: hidden`; or an offset of -1000 or more off screen (review 25e and 25f). The style is
/// read as a browser reads it ([`css_text`]): `display&#58;none` and `display:/**/none` hide
/// (review 25l).
fn style_hides(style: &str) -> bool {
    let style = css_text(style);
    let mut zero_size = false;
    let mut overflow_hidden = false;
    for decl in style.split(';') {
        let Some((prop, value)) = decl.split_once(':') else {
            continue;
        };
        let prop = prop.trim().to_ascii_lowercase();
        let value = value.to_ascii_lowercase();
        let value = value.replace("!important", "");
        let value = value.trim();
        // `calc(-9999px)` is its one length (review 25o).
        let value = value
            .strip_prefix("calc(")
            .and_then(|v| v.strip_suffix(')'))
            .map_or(value, str::trim);
        let hides = match prop.as_str() {
            "display" => value == "none",
            "content-visibility" => value == "hidden",
            // Struck through: taken back, as `~~…~~` and `<s>` are.
            "text-decoration" | "text-decoration-line" => value.contains("line-through"),
            "visibility" => matches!(value, "hidden" | "collapse"),
            "opacity" => length(value)
                .is_some_and(|(n, unit)| if unit == "%" { n <= 5.0 } else { n <= 0.05 }),
            "font-size" => tiny_font(value),
            // The shorthand's size comes before a `/` or the family: `font: 0/0 a`.
            "font" => value
                .split(|c: char| c == '/' || c.is_whitespace())
                .any(tiny_font),
            "color" => {
                value == "transparent"
                    || (value.starts_with("rgba(") || value.starts_with("hsla("))
                        && value
                            .trim_end_matches(')')
                            .rsplit(',')
                            .next()
                            .and_then(|a| length(a.trim()))
                            .is_some_and(|(n, _)| n <= 0.05)
            }
            // `filter: opacity(0)` (review 25o).
            "filter" => value
                .split("opacity(")
                .skip(1)
                .filter_map(|v| length(v.split(')').next().unwrap_or("").trim()))
                .any(|(n, unit)| if unit == "%" { n <= 5.0 } else { n <= 0.05 }),
            "transform" => {
                scaled_to_nothing(value)
                    || value
                        .split(['(', ',', ')'])
                        .skip(1)
                        .filter_map(|v| length(v.trim()))
                        .any(|(n, unit)| off_screen(-n, unit) || off_screen(n, unit))
            }
            "clip" => value.starts_with("rect(0"),
            "clip-path" => value.contains("inset(50%") || value.contains("inset(100%"),
            "height" | "width" | "max-height" | "max-width" => {
                zero_size |= length(value).is_some_and(|(n, _)| n == 0.0);
                false
            }
            "overflow" | "overflow-x" | "overflow-y" => {
                overflow_hidden |= matches!(value, "hidden" | "clip");
                false
            }
            "left" | "top" | "text-indent" | "margin-left" | "margin-top"
            | "inset-inline-start" | "inset-block-start" | "inset-inline" | "inset-block"
            | "inset" => length(value).is_some_and(|(n, unit)| off_screen(-n, unit)),
            "right" | "bottom" | "inset-inline-end" | "inset-block-end" => {
                length(value).is_some_and(|(n, unit)| off_screen(n, unit))
            }
            _ => false,
        };
        if hides {
            return true;
        }
    }
    zero_size && overflow_hidden
}

/// An attribute's style as a browser's CSS parser reads it: character references decoded (an
/// attribute's value is decoded before CSS sees it), then comments (`/* … */`, an unclosed one
/// running to the end) dropped and backslash escapes undone (`dis\play`, `\64 isplay`).
fn css_text(style: &str) -> String {
    static COMMENT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?s)/\*.*?(?:\*/|\z)").expect("static CSS comment pattern"));
    let decoded = decode_entities(style);
    let text = COMMENT.replace_all(&decoded, "");
    if !text.contains('\\') {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
            hex.extend(chars.next());
        }
        if hex.is_empty() {
            // `\x` is `x`; a backslash before a line break or at the end is dropped.
            if let Some(next) = chars.next().filter(|&n| n != '\n') {
                out.push(next);
            }
            continue;
        }
        // One whitespace after a hexadecimal escape belongs to it.
        if chars.peek().is_some_and(char::is_ascii_whitespace) {
            chars.next();
        }
        let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
        out.push(
            char::from_u32(code)
                .filter(|&c| c != '\0')
                .unwrap_or('\u{FFFD}'),
        );
    }
    out
}

/// Whether a `transform` scales its element to nothing on some axis: `scale(0)`, `scaleX(0)`,
/// `scaleY(0)`, `scale(1, 0)`, `scale3d(0, 1, 1)` (review 25o).
fn scaled_to_nothing(value: &str) -> bool {
    value.split("scale").skip(1).any(|rest| {
        let rest = rest
            .trim_start_matches(['x', 'y', 'z'])
            .trim_start_matches("3d");
        rest.strip_prefix('(')
            .and_then(|r| r.split(')').next())
            .is_some_and(|args| {
                args.split(',')
                    .any(|a| length(a.trim()).is_some_and(|(n, _)| n == 0.0))
            })
    })
}

/// Whether an offset of `n` `unit` (away from the screen's start) takes an element off screen:
/// 1000 CSS pixels in an absolute or font unit (`-1000px`, `-200em`, `-100cm`, `-100in`), or 100
/// of a viewport, container or percentage unit (review 25n, 25o).
fn off_screen(n: f64, unit: &str) -> bool {
    const RELATIVE: [&str; 17] = [
        "%", "vw", "vh", "vmin", "vmax", "vi", "vb", "svw", "svh", "lvw", "lvh", "dvw", "dvh",
        "cqw", "cqh", "cqi", "cqb",
    ];
    if RELATIVE.contains(&unit) {
        return n >= 100.0;
    }
    // CSS pixels per unit (a font unit at the default 16 px).
    let px = match unit {
        "in" => 96.0,
        "cm" => 96.0 / 2.54,
        "mm" => 96.0 / 25.4,
        "q" => 96.0 / 101.6,
        "pt" => 96.0 / 72.0,
        "pc" => 16.0,
        "em" | "rem" | "lh" | "rlh" | "cap" | "ic" => 16.0,
        "ex" | "ch" => 8.0,
        _ => 1.0,
    };
    n * px >= 1000.0
}

/// A font size too small to read: 1 px or pt or less, 0.1 em or rem or less, 10% or less.
fn tiny_font(value: &str) -> bool {
    length(value).is_some_and(|(n, unit)| match unit {
        "em" | "rem" | "ex" | "ch" => n <= 0.1,
        "%" => n <= 10.0,
        "" | "px" | "pt" | "pc" | "mm" | "q" | "vw" | "vh" => n <= 1.0,
        _ => false,
    })
}

/// A CSS number and its unit (`-9999px`, `0.5`, `0%`); `None` for anything else.
fn length(value: &str) -> Option<(f64, &str)> {
    let bytes = value.as_bytes();
    let end = value
        .char_indices()
        .find(|&(i, c)| {
            // An exponent (`-1e3px`): `e` between a digit and a digit or sign, and that sign.
            let exponent = matches!(c, 'e' | 'E')
                && i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes
                    .get(i + 1)
                    .is_some_and(|&b| b.is_ascii_digit() || b == b'-' || b == b'+');
            let exponent_sign =
                matches!(c, '-' | '+') && i > 0 && matches!(bytes[i - 1], b'e' | b'E');
            !(c.is_ascii_digit()
                || c == '.'
                || (i == 0 && matches!(c, '-' | '+'))
                || exponent
                || exponent_sign)
        })
        .map_or(value.len(), |(i, _)| i);
    let number: f64 = value[..end].parse().ok()?;
    let unit = value[end..].trim();
    unit.chars()
        .all(|c| c.is_ascii_alphabetic() || c == '%')
        .then_some((number, unit))
}

/// `text` without the elements that show nothing of their content, each up to its matching
/// closing tag (nested elements of the same name counted), or to the end of the text when it is
/// never closed. A dropped block element leaves a space.
fn drop_unshown(text: &str) -> Cow<'_, str> {
    match drop_raw_text(text) {
        Cow::Borrowed(t) => drop_unshown_elements(t),
        Cow::Owned(t) => Cow::Owned(drop_unshown_elements(&t).into_owned()),
    }
}

/// `text` without its raw-text elements (`<script>`, `<style>`, `<title>`, `<iframe>`,
/// `<noembed>`, `<noframes>`), each from its opening tag to the first closing tag of its name,
/// or to the end of the text: a tag inside one is text (`</span>` in a script closes nothing;
/// review 25m).
fn drop_raw_text(text: &str) -> Cow<'_, str> {
    static OPEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)<(script|style|noembed|noframes|iframe|title)(?:[\s/](?:"[^"]*"|'[^']*'|[^<>"'])*)?>"#)
            .expect("static raw-text pattern")
    });
    if !OPEN.is_match(text) {
        return Cow::Borrowed(text);
    }
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(open) = OPEN.captures_at(text, at) {
        let (Some(whole), Some(name)) = (open.get(0), open.get(1)) else {
            break;
        };
        out.push_str(&text[at..whole.start()]);
        let closing = format!("</{}", name.as_str().to_ascii_lowercase());
        at = lower[whole.end()..].find(&closing).map_or(text.len(), |i| {
            let from = whole.end() + i;
            lower[from..].find('>').map_or(text.len(), |j| from + j + 1)
        });
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// [`drop_unshown`] once raw-text elements are gone.
fn drop_unshown_elements(text: &str) -> Cow<'_, str> {
    let tags: Vec<Captures<'_>> = TAG.captures_iter(text).collect();
    // HTML ignores the `/` of `<span …/>`: only a void element closes itself (review 25m).
    let self_closing = |c: &Captures<'_>| {
        c[3].trim_end().ends_with('/') && VOID.iter().any(|v| v.eq_ignore_ascii_case(&c[2]))
    };
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    while i < tags.len() {
        let open = &tags[i];
        let name = &open[2];
        let opens = open[1].is_empty() && !self_closing(open);
        if !(opens && unshown(name, &open[3]) && !VOID.iter().any(|v| v.eq_ignore_ascii_case(name)))
        {
            i += 1;
            continue;
        }
        let start = open.get(0).map_or(0, |m| m.start());
        let mut depth = 0usize;
        let mut end = text.len();
        let mut j = i + 1;
        while j < tags.len() {
            let tag = &tags[j];
            if tag[2].eq_ignore_ascii_case(name) {
                if !tag[1].is_empty() {
                    if depth == 0 {
                        end = tag.get(0).map_or(end, |m| m.end());
                        break;
                    }
                    depth -= 1;
                } else if !self_closing(tag) {
                    depth += 1;
                }
            }
            j += 1;
        }
        out.push_str(&text[last..start]);
        if is_block(name) {
            out.push(' ');
        }
        last = end;
        i = j + 1;
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `text` without Markdown's emphasis and code markers: a run of `*`, `_` or `` ` `` that touches a
/// non-space on one side at least (`**50**`, `_note_`, `` `50` ``), except a `_` inside a word
/// (`send_money`) and a run with spaces on both sides (`5 * 3`), which show as written.
fn drop_emphasis(text: &str) -> Cow<'_, str> {
    if !text.contains(['*', '_', '`']) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !matches!(c, '*' | '_' | '`') {
            out.push(c);
            i += 1;
            continue;
        }
        let end = (i..chars.len())
            .find(|&j| chars[j] != c)
            .unwrap_or(chars.len());
        let before = i.checked_sub(1).map(|b| chars[b]);
        let after = chars.get(end).copied();
        let spaced = |side: Option<char>| side.is_none_or(char::is_whitespace);
        let word = |side: Option<char>| side.is_some_and(char::is_alphanumeric);
        let literal =
            (spaced(before) && spaced(after)) || (c == '_' && word(before) && word(after));
        if literal {
            out.extend(&chars[i..end]);
        }
        i = end;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_decode_once() {
        for (written, shown) in [
            ("hunter&#50;", "hunter2"),
            ("hunter&#x32;", "hunter2"),
            ("hunter&#50 ok", "hunter2 ok"),
            ("&#104;&#117;&#110;&#116;&#101;&#114;&#50;", "hunter2"),
            ("BEGIN&nbsp;KEY", "BEGIN\u{a0}KEY"),
            ("a&amp;b", "a&b"),
            ("a&amp;#50;", "a&#50;"),
            ("a &unknownname; b", "a &unknownname; b"),
            ("&#0;&#xD800;", "\u{FFFD}\u{FFFD}"),
        ] {
            assert_eq!(decode_entities(written), shown, "{written:?}");
        }
        assert!(matches!(decode_entities("no refs"), Cow::Borrowed(_)));
    }

    #[test]
    fn visible_text_is_what_a_reader_sees() {
        for (written, shown) in [
            ("A <!-- fee --> applies.", "A applies."),
            (
                "Sorry. <span style=\"display:none\">refund approved</span>",
                "Sorry.",
            ),
            ("No <div hidden><div>x</div>refund</div> here", "No here"),
            ("Sent ~~50 USD~~ 5 USD.", "Sent 5 USD."),
            ("Sent <del>50 USD</del> 5 USD.", "Sent 5 USD."),
            ("Read [our policy](https://x.y/refund).", "Read our policy."),
            ("See ![refund](a.png) here", "See here"),
            ("Sent **50** USD", "Sent 50 USD"),
            ("Sent 50\nUSD", "Sent 50 USD"),
            ("Sent 50<br>USD", "Sent 50 USD"),
            ("Call send_money with `50`", "Call send_money with 50"),
            ("5 * 3", "5 * 3"),
            ("see <https://x.y/refund>", "see <https://x.y/refund>"),
            ("a &lt;b&gt; tag", "a <b> tag"),
            // A shortcut reference link shows its text, as CommonMark renders it.
            ("Refunds [1].\n[1]: https://x.y/refund", "Refunds 1."),
            ("Refunds [2].\n[1]: https://x.y/refund", "Refunds [2]."),
            ("Unclosed <span hidden>refund", "Unclosed"),
        ] {
            assert_eq!(visible(written), shown, "{written:?}");
        }
    }

    #[test]
    fn rendered_text_keeps_every_word() {
        assert_eq!(rendered("[hunt](https://x)er2"), "hunter2");
        assert_eq!(rendered("hunt<!-- x -->er2"), "hunter2");
        assert_eq!(rendered("<s>hunter2</s>"), "hunter2");
        assert_eq!(rendered("BEGIN&nbsp;PRIVATE"), "BEGIN\u{a0}PRIVATE");
        assert!(matches!(rendered("plain text"), Cow::Borrowed(_)));
    }
}
