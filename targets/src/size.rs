//! Byte sizes written as integers or as strings with a binary suffix ("512K", "4M").

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A size in bytes read from a TOML file (a board file, a limits file): an integer or a string such as
/// "16K".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

/// Binary multiples a size may end with (case-insensitive: `8k`, `8kib`).
const UNITS: [(&str, u32); 10] = [
    ("KiB", 10),
    ("MiB", 20),
    ("GiB", 30),
    ("KB", 10),
    ("MB", 20),
    ("GB", 30),
    ("K", 10),
    ("M", 20),
    ("G", 30),
    ("B", 0),
];

/// A text [`parse_size`] refused: the text, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a size: {why}; examples: 4096, \"16K\", \"4MiB\"")]
pub struct SizeError {
    pub text: String,
    pub why: SizeRefusal,
}

/// Why a text is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeRefusal {
    #[error("it is empty")]
    Empty,
    #[error("it does not start with a decimal or 0x-hex number")]
    NoNumber,
    /// What follows the number.
    #[error("`{0}` after the number is not a unit (K, KiB, KB, M, MiB, MB, G, GiB, GB, B)")]
    Unit(String),
    #[error("it is more than 2^64 - 1 bytes")]
    TooLarge,
}

/// Parse "4096", "0x1000", "16K", "16KiB", "16KB", "4M", "1G" (binary multiples) into bytes: a
/// decimal or 0x-hex number (`_` between digits allowed), then at most one unit (a hex number's
/// `B` is a digit, not a unit).
///
/// ```
/// use tigris_targets::{parse_size, SizeRefusal};
/// assert_eq!(parse_size("8KiB"), Ok(8192));
/// let e = parse_size("8BK").unwrap_err();
/// assert_eq!(e.why, SizeRefusal::Unit("BK".into()));
/// assert!(e.to_string().starts_with("`8BK` is not a size: `BK` after the number is not a unit"));
/// ```
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let refuse = |why| SizeError {
        text: text.to_string(),
        why,
    };
    let t = text.trim();
    if t.is_empty() {
        return Err(refuse(SizeRefusal::Empty));
    }
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (t, 10),
    };
    let split = digits
        .find(|c: char| !(c.is_digit(radix) || c == '_'))
        .unwrap_or(digits.len());
    let (number, unit) = digits.split_at(split);
    let number = number.replace('_', "");
    if number.is_empty() {
        return Err(refuse(SizeRefusal::NoNumber));
    }
    let shift = match UNITS.iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)) {
        Some(&(_, shift)) => shift,
        None if unit.is_empty() => 0,
        None => return Err(refuse(SizeRefusal::Unit(unit.to_string()))),
    };
    // Only digits of the radix are left: the parse fails on overflow alone.
    u64::from_str_radix(&number, radix)
        .ok()
        .and_then(|v| v.checked_mul(1 << shift))
        .ok_or_else(|| refuse(SizeRefusal::TooLarge))
}

/// "16 KiB", "4 MiB" or plain bytes.
pub fn format_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SizeVisitor;
        impl Visitor<'_> for SizeVisitor {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size in bytes: an integer or a string such as \"16K\" or \"4M\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                u64::try_from(v)
                    .map(Size)
                    .map_err(|_| E::custom(format!("size {v} is negative")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                Ok(Size(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                parse_size(v).map(Size).map_err(E::custom)
            }
        }
        d.deserialize_any(SizeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("16K").unwrap(), 16384);
        assert_eq!(parse_size("4M").unwrap(), 4 << 20);
        assert_eq!(parse_size("0x100").unwrap(), 256);
        assert!(parse_size("12Q").is_err());
        for eight_k in ["8192", "8K", "8k", "8KiB", "8KB", "8kib", "0x2000", "0x8K"] {
            assert_eq!(parse_size(eight_k), Ok(8192), "{eight_k}");
        }
        assert_eq!(parse_size("0x1B"), Ok(27), "B is a hex digit there");
        assert_eq!(parse_size("64B"), Ok(64));
        assert_eq!(parse_size("1_000"), Ok(1000));
        for bad in ["8BK", "8iK", "K", "", "8 K", "+8", "8KiBB", "0x", "1.5M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(format_size(264 * 1024), "264 KiB");
    }

    /// A refused size names the text and why it was refused.
    #[test]
    fn refusals_say_why() {
        let why = |t: &str| parse_size(t).unwrap_err().why;
        assert_eq!(why(" "), SizeRefusal::Empty);
        for t in ["K", "+8", "0x", "_", "-1"] {
            assert_eq!(why(t), SizeRefusal::NoNumber, "{t}");
        }
        assert_eq!(why("8BK"), SizeRefusal::Unit("BK".into()));
        assert_eq!(why("8iK"), SizeRefusal::Unit("iK".into()));
        assert_eq!(why("1.5M"), SizeRefusal::Unit(".5M".into()));
        assert_eq!(why("0x8Q"), SizeRefusal::Unit("Q".into()));
        assert_eq!(why("99999999999999999999"), SizeRefusal::TooLarge);
        assert_eq!(why("17179869184G"), SizeRefusal::TooLarge);
        assert_eq!(
            parse_size("64Q").unwrap_err().to_string(),
            "`64Q` is not a size: `Q` after the number is not a unit (K, KiB, KB, M, MiB, MB, G, GiB, GB, B); examples: 4096, \"16K\", \"4MiB\""
        );
    }
}
