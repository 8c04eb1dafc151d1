//! Byte sizes written as integers or as strings with a binary suffix ("512K", "4M").

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A size in bytes read from a TOML file (a board file, a limits file): an integer or a string such as
/// "16K".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

/// Binary multiples a size may end with, longest first (case-insensitive: `8k`, `8kib`).
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

/// Parse "4096", "0x1000", "16K", "16KiB", "16KB", "4M", "1G" (binary multiples) into bytes: a
/// decimal or 0x-hex number, then at most one unit (a hex number's `B` is a digit, not a unit).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let hex = t.starts_with("0x") || t.starts_with("0X");
    let (number, shift) = UNITS
        .iter()
        .filter(|(unit, _)| !(hex && *unit == "B"))
        .find_map(|&(unit, shift)| {
            let cut = t.len().checked_sub(unit.len())?;
            let (number, tail) = (t.get(..cut)?, t.get(cut..)?);
            tail.eq_ignore_ascii_case(unit).then_some((number, shift))
        })
        .unwrap_or((t, 0));
    let digits = number.replace('_', "");
    let parsed = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16),
        None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse(),
        None => "-".parse(),
    };
    let value = parsed
        .map_err(|_| format!("`{text}` is not a size (examples: 4096, \"16K\", \"4MiB\")"))?;
    value
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is too large"))
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
}
