//! Which scenarios of a space one process emits: sampling, sharding and a limit, in O(1) memory.
//!
//! Semantics, applied in this order:
//! 1. **Base sequence.** Without `sample`, the space's scenarios in index order (excluded ones
//!    skipped). With `sample: N`, a seeded pseudo-random order of the whole filtered space cut
//!    after N scenarios: N distinct scenarios (all of them when N ≥ the count), the same ones
//!    for the same seed and space, on every machine.
//! 2. **Shard `k/n`** (1-based `k`): keeps positions `p` of the base sequence with
//!    `p mod n = k − 1`. The n shards are disjoint and together yield exactly the base sequence,
//!    so n processes given the same config and `1/n … n/n` split the work with no overlap.
//! 3. **Limit** caps how many scenarios *this process* emits, after sharding.
//!
//! The random order is a Feistel-network permutation of `[0, 2^2h)` keyed by the seed, with
//! cycle-walking to stay inside `[0, total)`: a bijection computed per index, so no list of
//! indices is ever held.

use std::fmt;
use std::str::FromStr;

use crate::error::ConfigError;
use crate::scenario::Scenario;
use crate::space::ScenarioSpace;

/// One shard of `n`: `k` is 1-based (`1/4` … `4/4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1 ≤ k ≤ n.
    pub k: u64,
    /// The number of shards, ≥ 1.
    pub n: u64,
}

/// An invalid selection setting (shard spec, zero sample or limit).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SelectionError {
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl SelectionError {
    fn new(message: impl Into<String>, hint: &str) -> Self {
        Self {
            message: message.into(),
            hint: Some(hint.to_string()),
        }
    }

    /// This error as a [`ConfigError`] at `line`/`column` of `file` (e.g. where a suite sets
    /// its shard), keeping the hint.
    #[must_use]
    pub fn located(self, file: &std::path::Path, line: usize, column: usize) -> ConfigError {
        let err = ConfigError::new(file, line, column, self.message);
        match self.hint {
            Some(hint) => err.with_hint(hint),
            None => err,
        }
    }
}

impl Shard {
    /// A shard `k` of `n`.
    ///
    /// # Errors
    /// When `n` is 0 or `k` is not in `1..=n`.
    pub fn new(k: u64, n: u64) -> Result<Self, SelectionError> {
        const HINT: &str =
            "shards are numbered from 1: use 1/4, 2/4, 3/4 and 4/4 for four processes";
        if n == 0 {
            return Err(SelectionError::new("shard count must be at least 1", HINT));
        }
        if k == 0 || k > n {
            return Err(SelectionError::new(
                format!("shard {k}/{n} is out of range (k must be 1..={n})"),
                HINT,
            ));
        }
        Ok(Self { k, n })
    }

    /// Parses `"k/n"`, e.g. `"2/4"` (whitespace around the numbers is allowed).
    ///
    /// # Errors
    /// When the text is not two positive integers separated by `/`, or `k` is out of range.
    pub fn parse(spec: &str) -> Result<Self, SelectionError> {
        const HINT: &str = "write the shard as k/n with 1 ≤ k ≤ n, e.g. 2/4";
        let (k, n) = spec.split_once('/').ok_or_else(|| {
            SelectionError::new(format!("invalid shard `{spec}`: expected k/n"), HINT)
        })?;
        let number = |s: &str| {
            s.trim().parse::<u64>().map_err(|_| {
                SelectionError::new(
                    format!("invalid shard `{spec}`: `{}` is not a number", s.trim()),
                    HINT,
                )
            })
        };
        Self::new(number(k)?, number(n)?)
    }

    /// Whether base-sequence position `p` (0-based) belongs to this shard.
    #[must_use]
    pub fn owns(&self, position: u64) -> bool {
        position % self.n == self.k - 1
    }

    /// How many of the first `len` positions this shard owns.
    #[must_use]
    pub fn share_of(&self, len: u64) -> u64 {
        len / self.n + u64::from(self.k - 1 < len % self.n)
    }
}

impl FromStr for Shard {
    type Err = SelectionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// What to emit from a space; see the module docs for the semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Selection {
    /// Keep every n-th position of the base sequence.
    pub shard: Option<Shard>,
    /// Pick this many scenarios pseudo-randomly (without replacement) from the filtered space.
    pub sample: Option<u64>,
    /// The sample's seed (ignored without `sample`).
    pub seed: u64,
    /// Emit at most this many scenarios (after sharding).
    pub limit: Option<u64>,
}

impl Selection {
    /// Checks the numbers: `sample` and `limit`, when set, must be at least 1.
    ///
    /// # Errors
    /// A [`SelectionError`] naming the setting.
    pub fn validate(&self) -> Result<(), SelectionError> {
        if self.sample == Some(0) {
            return Err(SelectionError::new(
                "sample must be at least 1",
                "remove `sample` to take every scenario",
            ));
        }
        if self.limit == Some(0) {
            return Err(SelectionError::new(
                "limit must be at least 1",
                "remove `limit` to emit every scenario",
            ));
        }
        Ok(())
    }
}

impl ScenarioSpace {
    /// The scenarios `selection` picks, lazily, in O(1) memory.
    pub fn select(&self, selection: &Selection) -> Selected<'_> {
        let order = match selection.sample {
            Some(_) => Order::Permuted(Permutation::new(self.len_unfiltered(), selection.seed)),
            None => Order::Sequential,
        };
        let base = selection
            .sample
            .map_or(self.count(), |n| n.min(self.count()));
        Selected {
            space: self,
            order,
            selection: *selection,
            base,
            next: 0,
            position: 0,
            emitted: 0,
        }
    }

    /// How many scenarios [`select`](Self::select) yields, computed without iterating.
    #[must_use]
    pub fn selected_count(&self, selection: &Selection) -> u64 {
        let base = selection
            .sample
            .map_or(self.count(), |n| n.min(self.count()));
        let sharded = selection.shard.map_or(base, |s| s.share_of(base));
        selection.limit.map_or(sharded, |l| l.min(sharded))
    }
}

#[derive(Debug, Clone)]
enum Order {
    Sequential,
    Permuted(Permutation),
}

/// Iterator returned by [`ScenarioSpace::select`].
#[derive(Debug, Clone)]
pub struct Selected<'a> {
    space: &'a ScenarioSpace,
    order: Order,
    selection: Selection,
    /// Length of the base sequence (sample size or count); known up front, so the walk stops
    /// there instead of scanning a tail of excluded indices.
    base: u64,
    /// Next unfiltered slot to visit (in `order`).
    next: u64,
    /// Position in the base sequence of the next included scenario.
    position: u64,
    emitted: u64,
}

impl Iterator for Selected<'_> {
    type Item = Scenario;

    fn next(&mut self) -> Option<Scenario> {
        if self.selection.limit.is_some_and(|l| self.emitted >= l) {
            return None;
        }
        while self.next < self.space.len_unfiltered() {
            if self.position >= self.base {
                return None;
            }
            let index = match &self.order {
                // Jumps over excluded blocks at once (see `ScenarioSpace::next_included`).
                Order::Sequential => {
                    let index = self.space.next_included(self.next)?;
                    self.next = index + 1;
                    index
                }
                Order::Permuted(p) => {
                    let index = p.apply(self.next);
                    self.next += 1;
                    if !self.space.contains(index) {
                        continue;
                    }
                    index
                }
            };
            let position = self.position;
            self.position += 1;
            if self.selection.shard.is_some_and(|s| !s.owns(position)) {
                continue;
            }
            self.emitted += 1;
            return self.space.get(index);
        }
        None
    }
}

const ROUNDS: usize = 6;

/// A seeded bijection of `[0, total)`; see the module docs.
#[derive(Debug, Clone)]
pub struct Permutation {
    total: u64,
    half_bits: u32,
    keys: [u64; ROUNDS],
}

impl Permutation {
    /// The permutation of `[0, total)` for `seed`.
    #[must_use]
    pub fn new(total: u64, seed: u64) -> Self {
        let bits = if total <= 1 {
            0
        } else {
            64 - (total - 1).leading_zeros()
        };
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed;
        let keys = std::array::from_fn(|_| splitmix64(&mut state));
        Self {
            total,
            half_bits,
            keys,
        }
    }

    /// The image of `x` (for `x < total`; other inputs are returned unchanged).
    #[must_use]
    pub fn apply(&self, x: u64) -> u64 {
        if x >= self.total {
            return x;
        }
        // Cycle-walking: the Feistel network permutes a power-of-four domain at most 4× larger
        // than `total`; re-applying it until we land inside gives a bijection of [0, total).
        let mut y = self.feistel(x);
        while y >= self.total {
            y = self.feistel(y);
        }
        y
    }

    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            let mut state = right ^ key;
            let f = splitmix64(&mut state) & mask;
            (left, right) = (right, left ^ f);
        }
        (left << self.half_bits) | right
    }
}

/// SplitMix64: advances `state` and returns a well-mixed 64-bit value.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parse_accepts_and_rejects() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { k: 2, n: 4 });
        assert_eq!(Shard::parse(" 1 / 1 ").unwrap(), Shard { k: 1, n: 1 });
        let err = Shard::parse("0/4").unwrap_err();
        assert_eq!(err.message, "shard 0/4 is out of range (k must be 1..=4)");
        assert!(err.hint.unwrap().contains("numbered from 1"));
        assert_eq!(
            Shard::parse("5/4").unwrap_err().message,
            "shard 5/4 is out of range (k must be 1..=4)"
        );
        assert_eq!(
            Shard::parse("2").unwrap_err().message,
            "invalid shard `2`: expected k/n"
        );
        assert_eq!(
            Shard::parse("a/4").unwrap_err().message,
            "invalid shard `a/4`: `a` is not a number"
        );
        assert_eq!(
            Shard::parse("1/0").unwrap_err().message,
            "shard count must be at least 1"
        );
    }

    #[test]
    fn share_of_counts_positions() {
        let s = Shard { k: 3, n: 4 };
        assert_eq!(
            s.share_of(10),
            (0..10).filter(|p| s.owns(*p)).count() as u64
        );
    }

    #[test]
    fn zero_sample_or_limit_is_invalid() {
        let sel = Selection {
            sample: Some(0),
            ..Selection::default()
        };
        assert_eq!(
            sel.validate().unwrap_err().message,
            "sample must be at least 1"
        );
        let sel = Selection {
            limit: Some(0),
            ..Selection::default()
        };
        assert_eq!(
            sel.validate().unwrap_err().message,
            "limit must be at least 1"
        );
    }

    #[test]
    fn permutation_is_a_bijection_on_small_domains() {
        for total in [1u64, 2, 3, 7, 64, 100, 1000] {
            let p = Permutation::new(total, 42);
            let mut seen = vec![false; total as usize];
            for x in 0..total {
                let y = p.apply(x);
                assert!(y < total);
                assert!(!seen[y as usize], "collision at {x} for total {total}");
                seen[y as usize] = true;
            }
        }
    }
}
