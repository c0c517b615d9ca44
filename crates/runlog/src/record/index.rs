//! A compact, sorted index of the records of one or more run files: about 24 bytes per record
//! (an id of 16 hex digits — the engine's ids — is stored as a number, any other id in a side
//! table), with where each record's line starts. Merging sorts shards by id with it and compares
//! runs against it without holding a record.

use std::cmp::Ordering;
use std::collections::BTreeSet;

/// No text: the id is the 16 hex digits in `hex`.
pub const HEX_ID: u32 = u32::MAX;

/// A scenario id as stored in the index: 16 lowercase hex digits as a number (the engine's ids),
/// anything else in a side table.
#[derive(Debug, Clone, Copy)]
pub struct IdKey {
    /// The id as a number, when it is 16 hex digits.
    pub hex: u64,
    /// Otherwise its slot in [`IdTexts`] ([`HEX_ID`] for a hex id).
    pub text: u32,
}

fn parse_hex(id: &str) -> Option<u64> {
    (id.len() == 16
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then(|| u64::from_str_radix(id, 16).ok())
    .flatten()
}

/// The ids of the index that are not hex.
#[derive(Debug, Default)]
pub struct IdTexts(Vec<Box<str>>);

impl IdTexts {
    /// The key of `id`, stored in the side table when it is not hex.
    pub fn key(&mut self, id: &str) -> IdKey {
        match parse_hex(id) {
            Some(hex) => IdKey { hex, text: HEX_ID },
            None => {
                // More than 4 billion non-hex ids cannot be indexed; they share the last slot.
                let text = u32::try_from(self.0.len()).unwrap_or(HEX_ID - 1);
                self.0.push(id.into());
                IdKey { hex: 0, text }
            }
        }
    }

    /// The id a key stands for.
    #[must_use]
    pub fn string(&self, key: IdKey) -> String {
        if key.text == HEX_ID {
            format!("{:016x}", key.hex)
        } else {
            self.0
                .get(key.text as usize)
                .map_or_else(String::new, ToString::to_string)
        }
    }

    /// Orders two keys as their ids order.
    #[must_use]
    pub fn cmp(&self, a: IdKey, b: IdKey) -> Ordering {
        if a.text == HEX_ID && b.text == HEX_ID {
            return a.hex.cmp(&b.hex);
        }
        self.string(a).cmp(&self.string(b))
    }

    /// Orders a key against an id.
    #[must_use]
    pub fn cmp_str(&self, a: IdKey, b: &str) -> Ordering {
        match (a.text == HEX_ID, parse_hex(b)) {
            (true, Some(hex)) => a.hex.cmp(&hex),
            _ => self.string(a).as_str().cmp(b),
        }
    }
}

/// Why a record cannot be indexed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// More input files than the index can name.
    #[error("too many input files (at most {max})")]
    TooManyFiles {
        /// The limit.
        max: usize,
    },
    /// An input file larger than the index can address.
    #[error("the file is too large to index (offsets up to 2^48 bytes)")]
    TooLarge,
}

const FILE_BITS: u32 = 16;
const OFFSET_BITS: u32 = 64 - FILE_BITS;

#[derive(Debug, Clone, Copy)]
struct Entry {
    hex: u64,
    /// File number in the top 16 bits, byte offset of the line in the rest.
    at: u64,
    text: u32,
}

impl Entry {
    fn key(self) -> IdKey {
        IdKey {
            hex: self.hex,
            text: self.text,
        }
    }
}

/// One indexed record: its id, input file number and the byte offset of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// Scenario id.
    pub id: String,
    /// The input file, as numbered by [`RunIndex::push`].
    pub file: usize,
    /// Byte offset of the record's line in that file.
    pub offset: u64,
}

/// Ids of run records and where their lines are; sorted by id once [`RunIndex::sort`] ran.
///
/// ```
/// use runlog::record::RunIndex;
/// let mut index = RunIndex::default();
/// index.push("00000000000000b2", 0, 0)?;
/// index.push("not-hex", 1, 40)?;
/// index.push("00000000000000a1", 0, 90)?;
/// index.sort();
/// let ids: Vec<String> = index.entries().map(|e| e.id).collect();
/// assert_eq!(ids, ["00000000000000a1", "00000000000000b2", "not-hex"]);
/// assert_eq!(index.position("not-hex"), Some(2));
/// # Ok::<(), runlog::record::IndexError>(())
/// ```
#[derive(Debug, Default)]
pub struct RunIndex {
    ids: IdTexts,
    entries: Vec<Entry>,
}

impl RunIndex {
    /// Adds a record of input `file` whose line starts at `offset`.
    ///
    /// # Errors
    /// [`IndexError`] past 65,536 files or 2^48 bytes.
    pub fn push(&mut self, id: &str, file: usize, offset: u64) -> Result<(), IndexError> {
        let file = u64::try_from(file)
            .ok()
            .filter(|f| *f < 1 << FILE_BITS)
            .ok_or(IndexError::TooManyFiles {
                max: 1 << FILE_BITS,
            })?;
        if offset >= 1 << OFFSET_BITS {
            return Err(IndexError::TooLarge);
        }
        let key = self.ids.key(id);
        self.entries.push(Entry {
            hex: key.hex,
            at: file << OFFSET_BITS | offset,
            text: key.text,
        });
        Ok(())
    }

    /// Sorts by id; records of one id keep their order of insertion.
    pub fn sort(&mut self) {
        let ids = &self.ids;
        self.entries.sort_by(|a, b| ids.cmp(a.key(), b.key()));
        self.entries.shrink_to_fit();
    }

    /// Records indexed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is indexed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Ids indexed more than once, with the files they are in (after [`RunIndex::sort`]).
    #[must_use]
    pub fn duplicates(&self) -> Vec<(String, BTreeSet<usize>)> {
        let mut out: Vec<(String, BTreeSet<usize>)> = Vec::new();
        for pair in self.entries.windows(2) {
            if self.ids.cmp(pair[0].key(), pair[1].key()) != Ordering::Equal {
                continue;
            }
            let id = self.ids.string(pair[0].key());
            if out.last().is_none_or(|(last, _)| *last != id) {
                out.push((id, BTreeSet::new()));
            }
            if let Some((_, files)) = out.last_mut() {
                files.extend([file_of(pair[0]), file_of(pair[1])]);
            }
        }
        out
    }

    /// Where `id` is in the sorted index.
    #[must_use]
    pub fn position(&self, id: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| self.ids.cmp_str(e.key(), id))
            .ok()
    }

    /// The entries in index order.
    pub fn entries(&self) -> impl Iterator<Item = IndexEntry> + '_ {
        self.entries.iter().map(|e| IndexEntry {
            id: self.ids.string(e.key()),
            file: file_of(*e),
            offset: e.at & ((1 << OFFSET_BITS) - 1),
        })
    }
}

fn file_of(e: Entry) -> usize {
    // At most 16 bits: fits any usize.
    usize::try_from(e.at >> OFFSET_BITS).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_name_their_files_and_limits_are_errors() {
        let mut index = RunIndex::default();
        for (id, file) in [("a", 0), ("b", 1), ("a", 2), ("a", 2), ("c", 1)] {
            index.push(id, file, 7).expect("small");
        }
        index.sort();
        assert_eq!(
            index.duplicates(),
            [("a".to_owned(), BTreeSet::from([0, 2]))]
        );
        assert_eq!(
            index.entries().nth(3).map(|e| (e.file, e.offset)),
            Some((1, 7))
        );
        assert_eq!(
            index.push("x", 1 << 16, 0),
            Err(IndexError::TooManyFiles { max: 1 << 16 })
        );
        assert_eq!(index.push("x", 0, 1 << 48), Err(IndexError::TooLarge));
    }
}
