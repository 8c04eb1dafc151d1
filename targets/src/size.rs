//! Byte sizes written as integers or as strings with a binary suffix ("512K", "4M").

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A size in bytes read from a TOML file (a board file, a limits file): an integer or a string such as
/// "16K".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

/// Parse "4096", "16K", "4M", "1G" (binary multiples) into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let digits = digits.strip_suffix(['i', 'B']).unwrap_or(digits);
    let value: u64 = if let Some(hex) = digits.strip_prefix("0x") {
        u64::from_str_radix(&hex.replace('_', ""), 16)
    } else {
        digits.replace('_', "").parse()
    }
    .map_err(|_| format!("`{text}` is not a size (examples: 4096, \"16K\", \"4M\")"))?;
    value
        .checked_mul(mult)
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
        assert_eq!(format_size(264 * 1024), "264 KiB");
    }
}
