//! Exact decimal numbers for parameter comparison. Model output carries numbers as JSON numbers
//! (`100`, `100.0`, `1e2`) or as strings (`"100"`, `" 100.00 "`); comparing them through `f64` or
//! by text gets `0.1 + 0.2` and `"1"` vs `"10"` wrong, so both sides are parsed into a normalised
//! `digits × 10^exp` form and compared exactly.

use std::cmp::Ordering;

use icu_properties::CodePointMapData;
use icu_properties::props::GeneralCategory;
use serde_json::Value;

/// A finite decimal number, normalised so that equal values have equal representations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    /// Significant digits, most significant first, without leading or trailing zeros (empty = 0).
    digits: Vec<u8>,
    /// Power of ten of the last digit.
    exp: i64,
}

impl Decimal {
    /// Parses `[+-]digits[.digits][e[+-]digits]`, ignoring surrounding whitespace and `_`/`,`
    /// thousands separators are NOT accepted (they are ambiguous across locales).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let s = text.trim();
        let (negative, s) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (mantissa, exponent) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i64>().ok()?),
            None => (s, 0),
        };
        let (int_part, frac_part) = match mantissa.split_once('.') {
            Some((i, f)) => (i, f),
            None => (mantissa, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let all = int_part.bytes().chain(frac_part.bytes());
        let mut digits = Vec::with_capacity(int_part.len() + frac_part.len());
        for b in all {
            if !b.is_ascii_digit() {
                return None;
            }
            digits.push(b - b'0');
        }
        let frac_len = i64::try_from(frac_part.len()).ok()?;
        Self::normalised(negative, digits, exponent.checked_sub(frac_len)?)
    }

    /// The number a JSON value denotes: a number, or a string holding one.
    #[must_use]
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Number(n) => Self::parse(&n.to_string()),
            // Digits of any script by value (`"١٢٣"`, full-width `"５０"`).
            Value::String(s) => Self::parse(s)
                .or_else(|| Self::parse(&s.chars().map(ascii_digit).collect::<String>())),
            _ => None,
        }
    }

    /// `None` when dropping trailing zeros pushes the exponent past `i64` (text like
    /// `10e9223372036854775807` comes straight from model output and must not panic).
    fn normalised(negative: bool, mut digits: Vec<u8>, mut exp: i64) -> Option<Self> {
        while digits.last() == Some(&0) {
            digits.pop();
            exp = exp.checked_add(1)?;
        }
        let leading = digits.iter().take_while(|d| **d == 0).count();
        digits.drain(..leading);
        if digits.is_empty() {
            return Some(Self {
                negative: false,
                digits,
                exp: 0,
            });
        }
        Some(Self {
            negative,
            digits,
            exp,
        })
    }

    /// Whether `self` lies within `tolerance` of `target` (|self − target| ≤ tolerance), exactly;
    /// `None` when the three numbers' magnitudes are too far apart to align in
    /// [`MAX_ALIGNED_DIGITS`] digits (`1e-999999` against `1e999999`).
    #[must_use]
    pub fn within(&self, target: &Self, tolerance: &Self) -> Option<bool> {
        let low = target.add(&tolerance.negated())?;
        let high = target.add(tolerance)?;
        Some(*self >= low && *self <= high)
    }

    /// Whether the magnitude is beyond the largest finite 64-bit float (`1e400`, `-1e309`): a
    /// function that reads numbers as floats (JSON's usual reading) gets an infinity, not this
    /// value, so an ordering comparison with it decides nothing (issue 25, probe n20).
    #[must_use]
    pub fn overflows_f64(&self) -> bool {
        if self.is_zero() {
            return false;
        }
        let len = i64::try_from(self.digits.len()).unwrap_or(i64::MAX);
        // The power of ten of the leading digit.
        let lead = self.exp.saturating_add(len - 1);
        match lead.cmp(&308) {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => self.to_string().parse::<f64>().is_ok_and(f64::is_infinite),
        }
    }

    /// Whether the number is below zero.
    #[must_use]
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    fn negated(&self) -> Self {
        Self {
            negative: !self.negative && !self.is_zero(),
            ..self.clone()
        }
    }

    /// Exact sum; `None` when aligning the operands would take more than [`MAX_ALIGNED_DIGITS`].
    fn add(&self, other: &Self) -> Option<Self> {
        if self.is_zero() {
            return Some(other.clone());
        }
        if other.is_zero() {
            return Some(self.clone());
        }
        let exp = self.exp.min(other.exp);
        let (a, b) = (self.aligned(exp)?, other.aligned(exp)?);
        let (negative, sum) = if self.negative == other.negative {
            (self.negative, add_magnitudes(&a, &b))
        } else if self.cmp_magnitude(other) == Ordering::Less {
            (other.negative, sub_magnitudes(&b, &a))
        } else {
            (self.negative, sub_magnitudes(&a, &b))
        };
        Self::normalised(negative, sum.into_iter().rev().collect(), exp)
    }

    /// The digits at exponent `exp` (≤ `self.exp`), least significant first.
    fn aligned(&self, exp: i64) -> Option<Vec<u8>> {
        let shift = usize::try_from(i128::from(self.exp) - i128::from(exp)).ok()?;
        if shift.checked_add(self.digits.len())? > MAX_ALIGNED_DIGITS {
            return None;
        }
        let mut out = vec![0; shift];
        out.extend(self.digits.iter().rev());
        Some(out)
    }

    /// Number of significant digits (0 for zero).
    pub(crate) fn significant_digits(&self) -> usize {
        self.digits.len()
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Compares magnitudes, ignoring signs.
    fn cmp_magnitude(&self, other: &Self) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        // Position of the most significant digit decides first; i128 because `exp` may sit at
        // either end of the i64 range.
        #[allow(clippy::cast_possible_wrap)] // a Vec's length fits in i128
        let top = |d: &Self| i128::from(d.exp) + d.digits.len() as i128;
        match top(self).cmp(&top(other)) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        let len = self.digits.len().max(other.digits.len());
        for i in 0..len {
            let a = self.digits.get(i).copied().unwrap_or(0);
            let b = other.digits.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        Ordering::Equal
    }
}

/// Most digits [`Decimal::within`] aligns a number to.
pub(super) const MAX_ALIGNED_DIGITS: usize = 4096;

/// Sum of two little-endian digit strings.
fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0;
    for i in 0..a.len().max(b.len()) {
        let d = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(d % 10);
        carry = d / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `a − b` for little-endian digit strings with `a ≥ b`.
fn sub_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0;
    for (i, &x) in a.iter().enumerate() {
        let y = b.get(i).copied().unwrap_or(0) + borrow;
        if x >= y {
            out.push(x - y);
            borrow = 0;
        } else {
            out.push(x + 10 - y);
            borrow = 1;
        }
    }
    out
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        if self.negative {
            f.write_str("-")?;
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        if self.exp >= 0 {
            // Small exponents are written out; large ones stay scientific to keep messages short.
            if self.exp <= 12 {
                write!(f, "{digits}{}", "0".repeat(self.exp as usize))
            } else {
                write!(f, "{digits}e{}", self.exp)
            }
        } else {
            // `unsigned_abs` because `-i64::MIN` overflows; long zero runs stay scientific so
            // `1e-999999999999` from a model cannot allocate a terabyte of zeros.
            let frac = usize::try_from(self.exp.unsigned_abs()).unwrap_or(usize::MAX);
            if frac > digits.len().saturating_add(12) {
                write!(f, "{digits}e{}", self.exp)
            } else if frac >= digits.len() {
                write!(f, "0.{}{digits}", "0".repeat(frac - digits.len()))
            } else {
                let (int, fr) = digits.split_at(digits.len() - frac);
                write!(f, "{int}.{fr}")
            }
        }
    }
}

/// The ASCII digit of a decimal digit of any script (`٤`, `४`, `৪`, full-width `４` → `4`); any
/// other character unchanged. Unicode encodes every
/// script's decimal digits as contiguous runs of ten from zero, so a digit's value is its distance
/// from the start of its run, modulo ten.
pub(super) fn ascii_digit(digit: char) -> char {
    let category = CodePointMapData::<GeneralCategory>::new();
    if digit.is_ascii() {
        return digit;
    }
    if category.get(digit) != GeneralCategory::DecimalNumber {
        return digit;
    }
    let mut start = u32::from(digit);
    while start > 0
        && char::from_u32(start - 1)
            .is_some_and(|c| category.get(c) == GeneralCategory::DecimalNumber)
    {
        start -= 1;
    }
    let value = (u32::from(digit) - start) % 10;
    char::from_digit(value, 10).unwrap_or(digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).expect("valid decimal")
    }

    #[test]
    fn within_is_exact_and_bounded() {
        assert_eq!(d("20.01").within(&d("20"), &d("0.01")), Some(true));
        assert_eq!(d("19.99").within(&d("20"), &d("0.01")), Some(true));
        assert_eq!(d("20.0100001").within(&d("20"), &d("0.01")), Some(false));
        assert_eq!(d("-5").within(&d("5"), &d("9.9")), Some(false));
        assert_eq!(d("-0.5").within(&d("0.5"), &d("1")), Some(true));
        assert_eq!(d("0.3").within(&d("0.1e0"), &d("0.2")), Some(true));
        assert_eq!(d("1e100").within(&d("1e100"), &d("0")), Some(true));
        assert_eq!(d("1").within(&d("1e-999999"), &d("1e999999")), None);
    }

    #[test]
    fn equal_values_have_one_form() {
        assert_eq!(d("100"), d("100.0"));
        assert_eq!(d("100"), d("1e2"));
        assert_eq!(d(" 0.50 "), d(".5"));
        assert_eq!(d("-0"), d("0"));
        assert_ne!(d("1"), d("10"));
    }

    #[test]
    fn ordering_is_exact() {
        assert!(d("0.3") > d("0.29999999999999999999"));
        assert!(d("-5") < d("-4.5"));
        assert!(d("10") > d("9.999"));
        assert!(d("0") > d("-0.001"));
    }

    #[test]
    fn rejects_non_numbers() {
        for s in ["", "-", "1,000", "abc", "1.2.3", "e5", "1e"] {
            assert!(Decimal::parse(s).is_none(), "{s}");
        }
    }

    #[test]
    fn displays_plainly() {
        assert_eq!(d("100.0").to_string(), "100");
        assert_eq!(d("-0.05").to_string(), "-0.05");
        assert_eq!(d("12.5").to_string(), "12.5");
    }

    #[test]
    fn extreme_exponents_neither_panic_nor_allocate() {
        // Trailing zeros push the exponent past i64::MAX: rejected, not an overflow panic.
        assert!(Decimal::parse("10e9223372036854775807").is_none());
        let huge = d("9e9223372036854775807");
        let tiny = d("1e-9223372036854775807");
        let tinier = d(".1e-9223372036854775807");
        assert!(huge > d("1"));
        assert!(tiny < d("1"));
        assert!(tinier < tiny);
        assert_eq!(tinier.to_string(), "1e-9223372036854775808");
        assert_eq!(d("1e-999999999999").to_string(), "1e-999999999999");
        assert_eq!(d("1e-13").to_string(), "0.0000000000001");
    }
}
