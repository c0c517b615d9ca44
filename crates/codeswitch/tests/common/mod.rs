//! The hand-tagged sentence format the accuracy tests share (`tests/data/*.txt`): each line
//! `First-Second<TAB>tokens`, each token `word/T` with T = 1 (first language), 2 (second) or x
//! (neither); a token `+word/T` is glued to the previous one with no space (Chinese and
//! Japanese units). `#` lines and blank lines are comments.

/// One hand-tagged sentence.
pub(crate) struct Tagged {
    /// `First-Second`, as written.
    pub(crate) pair: String,
    /// The first language's name.
    pub(crate) first: String,
    /// The second language's name.
    pub(crate) second: String,
    /// The sentence, tokens joined.
    pub(crate) text: String,
    /// The gold embedded share: #2 / (#1 + #2).
    pub(crate) share: f64,
    /// Whether the text holds Devanagari (Hindi in its own script).
    pub(crate) devanagari: bool,
}

/// Every sentence of `data`; panics naming the line on a malformed one.
pub(crate) fn parse(data: &str) -> Vec<Tagged> {
    let mut out = Vec::new();
    for (n, line) in data.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (pair, tokens) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("line {}: no tab", n + 1));
        let (first, second) = pair.split_once('-').expect("First-Second");
        let (mut text, mut n1, mut n2) = (String::new(), 0_u32, 0_u32);
        for token in tokens.split(' ') {
            let (word, tag) = token
                .rsplit_once('/')
                .unwrap_or_else(|| panic!("line {}: {token}", n + 1));
            match tag {
                "1" => n1 += 1,
                "2" => n2 += 1,
                "x" => {}
                other => panic!("line {}: tag {other}", n + 1),
            }
            match word.strip_prefix('+') {
                Some(glued) => text.push_str(glued),
                None => {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(word);
                }
            }
        }
        assert!(n1 + n2 > 0, "line {}: no language word", n + 1);
        let devanagari = text.chars().any(|c| ('\u{0900}'..='\u{097f}').contains(&c));
        out.push(Tagged {
            pair: pair.to_owned(),
            first: first.to_owned(),
            second: second.to_owned(),
            text,
            share: f64::from(n2) / f64::from(n1 + n2),
            devanagari,
        });
    }
    out
}
