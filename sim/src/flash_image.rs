//! Flash images of the ESP chips: the flash contents from offset 0 (second-stage bootloader,
//! partition table, app, as `esptool merge-bin` writes them), which the chip boots from its mask
//! ROM's reset path. An image is recognised by the ESP image header of its bootloader where the
//! board's ROM looks for it (esptool documentation, "Firmware Image Format": magic 0xE9 at byte
//! 0, the chip ID as a little-endian 16-bit word at byte 12 of the extended header).

use anyhow::{bail, Result};
use tigris_targets::Board;

const IMAGE_MAGIC: u8 = 0xE9;
const CHIP_ID_OFFSET: usize = 12;

/// Whether `bytes` (read from `path`) are a flash image for `board`: `false` for an ELF or on a
/// board that does not boot from flash; an error when they are neither an ELF nor an image the
/// board's ROM would boot.
pub fn detect(path: &str, bytes: &[u8], board: &Board) -> Result<bool> {
    if bytes.starts_with(b"\x7fELF") || bytes.is_empty() {
        return Ok(false);
    }
    let Some(boot) = board.flash_boot else {
        return Ok(false);
    };
    let at = boot.bootloader as usize;
    if bytes.get(at) != Some(&IMAGE_MAGIC) {
        bail!(
            "{path}: not an ELF file, nor a flash image for board `{}`: no ESP image header (magic 0xE9) at flash offset 0x{at:x}, where the chip's ROM looks for the bootloader{}",
            board.name,
            other_board(bytes).map_or(" (make one with `esptool merge-bin`)".to_string(), |(off, name)| {
                format!("; it holds one at 0x{off:x} for board `{name}` (--board {name})")
            })
        );
    }
    let chip = chip_id(bytes, at);
    if chip != Some(boot.chip_id) {
        bail!(
            "{path}: the bootloader image at flash offset 0x{at:x} is for chip ID {}, but board `{}` is chip ID {} (the extended header's chip ID, esptool's `--chip`)",
            chip.map_or("(truncated header)".to_string(), |c| c.to_string()),
            board.name,
            boot.chip_id
        );
    }
    Ok(true)
}

/// The built-in board whose ROM would boot `bytes`: its bootloader offset holds an image with its
/// chip ID.
fn other_board(bytes: &[u8]) -> Option<(usize, String)> {
    tigris_targets::builtin_names()
        .into_iter()
        .find_map(|name| {
            let boot = tigris_targets::load(name).ok()?.flash_boot?;
            let at = boot.bootloader as usize;
            let image_there = bytes.get(at) == Some(&IMAGE_MAGIC);
            (image_there && chip_id(bytes, at) == Some(boot.chip_id))
                .then(|| (at, name.to_string()))
        })
}

/// The chip ID in the extended header of the image at `at`, if the file holds it.
fn chip_id(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at + CHIP_ID_OFFSET..at + CHIP_ID_OFFSET + 2)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(chip: u16) -> Vec<u8> {
        let mut b = vec![0xFF; 64];
        b[0] = IMAGE_MAGIC;
        b[CHIP_ID_OFFSET..CHIP_ID_OFFSET + 2].copy_from_slice(&chip.to_le_bytes());
        b
    }

    #[test]
    fn images_are_told_from_elves_and_the_wrong_chip_is_named() {
        let s3 = tigris_targets::load("esp32s3").unwrap();
        assert!(detect("f.bin", &image(9), &s3).unwrap());
        assert!(!detect("f.elf", b"\x7fELF....", &s3).unwrap());
        let e = detect("f.bin", &image(0), &s3).unwrap_err().to_string();
        assert!(e.contains("chip ID 0") && e.contains("chip ID 9"), "{e}");
        let e = detect("f.bin", &[0u8; 64], &s3).unwrap_err().to_string();
        assert!(
            e.contains("no ESP image header") && e.contains("0x0"),
            "{e}"
        );
        let m = tigris_targets::load("mps2-an386").unwrap();
        assert!(
            !detect("f.bin", &image(9), &m).unwrap(),
            "no flash boot there"
        );
        let esp32 = tigris_targets::load("esp32").unwrap();
        let mut at_0x1000 = vec![0xFF; 0x1000];
        at_0x1000.extend(image(0));
        assert!(detect("f.bin", &at_0x1000, &esp32).unwrap());
        let e = detect("f.bin", &at_0x1000, &s3).unwrap_err().to_string();
        assert!(e.contains("holds one at 0x1000 for board `esp32`"), "{e}");
    }
}
