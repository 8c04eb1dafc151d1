//! The chip's mask ROM: Espressif chips start in it and firmware calls into it (printf, delays,
//! flash and cache control), so the real ROM ELF runs on the ISS. The ROM ELFs are Espressif's
//! binaries and are not shipped: they are found on the user's machine, in this order:
//!
//! 1. `--rom FILE`;
//! 2. `$TIGRIS_SIM_ROM_DIR/<name>`;
//! 3. the ESP-IDF tools folder: `$IDF_TOOLS_PATH/tools/esp-rom-elfs/*/<name>` (default `~/.espressif`);
//! 4. the `espflash` crate in the cargo registry: `$CARGO_HOME/registry/src/*/espflash-*/resources/roms/<name>`
//!    (default `~/.cargo`), newest version first.
//!
//! `<name>` are the file names the board lists (`rom = [...]`, e.g. `esp32s3_rev0_rom.elf`).
//!
//! What is loaded: every PT_LOAD segment with file bytes (code in the ROM regions, the ROM's own
//! initialised data), and the ROM's `.data*` sections, which the ROM copies to internal RAM at boot
//! and which its ELF keeps as non-allocated sections: their bytes go to their RAM addresses, as the
//! ROM's start-up leaves them. `.bss` is zero, as after the ROM's start-up.

use anyhow::{bail, Context, Result};
use goblin::elf::{
    program_header::PT_LOAD, section_header::SHF_WRITE, section_header::SHT_PROGBITS, Elf,
};
use std::path::{Path, PathBuf};
use tigris_targets::{Board, RomTable, RomUnpackTable};

use crate::elf::Symbol;

/// A ROM image found and read.
pub struct Rom {
    /// `(address, bytes)` to write into the machine.
    pub chunks: Vec<(u32, Vec<u8>)>,
    /// The ROM's function symbols (for the profile and backtraces).
    pub symbols: Vec<Symbol>,
    /// Top of the stack the ROM's start-up runs on (`__stack`), which the second-stage boot loader
    /// and so a direct-booted app start on.
    pub stack_top: Option<u32>,
}

/// Where a ROM was looked for, for the error that says it was not found.
pub struct Search {
    pub names: Vec<String>,
    pub places: Vec<String>,
}

impl Search {
    pub fn describe(&self) -> String {
        format!(
            "looked for {} in: {}; pass --rom FILE or set TIGRIS_SIM_ROM_DIR (the ROM ELFs ship with ESP-IDF's \
             esp-rom-elfs tools and inside the `espflash` crate, e.g. after `cargo install espflash`)",
            self.names.join(" or "),
            self.places.join(", ")
        )
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// Subdirectories of `dir` whose names start with `prefix`, newest-looking (highest name) first.
fn subdirs(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
    v
}

/// Sort key of a versioned folder name (`espflash-4.10.0` above `espflash-4.7.0`).
fn version_key(p: &Path) -> Vec<u64> {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0))
        .collect()
}

/// The folders searched after `--rom`, in order.
fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("TIGRIS_SIM_ROM_DIR") {
        dirs.push(PathBuf::from(d));
    }
    let idf = std::env::var_os("IDF_TOOLS_PATH")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".espressif")));
    if let Some(idf) = idf {
        let tools = idf.join("tools").join("esp-rom-elfs");
        let found = subdirs(&tools, "");
        if found.is_empty() {
            dirs.push(tools.join("*"));
        }
        dirs.extend(found);
    }
    let cargo = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".cargo")));
    if let Some(cargo) = cargo {
        let src = cargo.join("registry").join("src");
        let mut found: Vec<PathBuf> = subdirs(&src, "")
            .iter()
            .flat_map(|index| subdirs(index, "espflash-"))
            .map(|d| d.join("resources").join("roms"))
            .collect();
        // Newest espflash version first across registry indexes (`espflash-X.Y.Z/resources/roms`).
        found.sort_by_key(|p| {
            std::cmp::Reverse(p.ancestors().nth(2).map(version_key).unwrap_or_default())
        });
        if found.is_empty() {
            dirs.push(
                src.join("*")
                    .join("espflash-*")
                    .join("resources")
                    .join("roms"),
            );
        }
        dirs.extend(found);
    }
    dirs
}

/// Find the board's ROM: `explicit` (`--rom`) or the first of the board's names in the search folders.
/// `Ok(Err(search))` when the board needs a ROM and none was found.
pub fn find(
    board: &Board,
    explicit: Option<&str>,
) -> Result<Option<std::result::Result<PathBuf, Search>>> {
    if let Some(path) = explicit {
        let p = PathBuf::from(path);
        if !p.is_file() {
            bail!("--rom {path}: no such file");
        }
        return Ok(Some(Ok(p)));
    }
    if board.rom.is_empty() {
        return Ok(None);
    }
    let dirs = search_dirs();
    for dir in &dirs {
        for name in &board.rom {
            let p = dir.join(name);
            if p.is_file() {
                return Ok(Some(Ok(p)));
            }
        }
    }
    Ok(Some(Err(Search {
        names: board.rom.clone(),
        places: dirs.iter().map(|d| d.display().to_string()).collect(),
    })))
}

/// Read the ROM ELF at `path` for `board`: what to write where, and its function symbols.
/// The words of table `t` (`RomTable`) from the ROM ELF's symbols, and the pointer to it.
fn rom_table(t: &RomTable, elf: &Elf, name: &str, board: &Board) -> Result<[(u32, Vec<u8>); 2]> {
    // One pass over the ROM's symbols for all the fields.
    let wanted: std::collections::HashSet<&str> = t.fields.iter().map(String::as_str).collect();
    let values: std::collections::HashMap<&str, u32> = elf
        .syms
        .iter()
        .filter_map(|s| {
            let n = elf.strtab.get_at(s.st_name)?;
            wanted.contains(n).then_some((n, s.st_value as u32))
        })
        .collect();
    let value = |field: &str| {
        values
            .get(field)
            .copied()
            .with_context(|| {
                format!(
                    "{name}: board `{}`, ROM table `{}`: the ROM ELF has no symbol `{field}` (a ROM of another revision?)",
                    board.name, t.name
                )
            })
    };
    let mut words = Vec::with_capacity(4 * t.fields.len());
    for f in &t.fields {
        words.extend_from_slice(&value(f)?.to_le_bytes());
    }
    Ok([(t.at, words), (t.pointer, t.at.to_le_bytes().to_vec())])
}

/// The bytes at `addr..addr + len` if one chunk holds them all.
fn chunk_bytes(chunks: &[(u32, Vec<u8>)], addr: u32, len: usize) -> Option<&[u8]> {
    chunks.iter().find_map(|(a, d)| {
        let off = addr.checked_sub(*a)? as usize;
        d.get(off..off.checked_add(len)?)
    })
}

/// The ROM copies of the ROM's initialised data, which its reset path unpacks into RAM (table
/// `t`): for every entry, the bytes the ELF gives for its RAM range, at the entry's source in ROM.
/// Without them the reset path would overwrite the data with the zeros of the missing ROM bytes.
fn unpack_sources(chunks: &[(u32, Vec<u8>)], t: RomUnpackTable) -> Vec<(u32, Vec<u8>)> {
    let word =
        |a: u32| chunk_bytes(chunks, a, 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let mut copies = Vec::new();
    for entry in (t.start..t.end).step_by(16) {
        let (Some(first), Some(end), Some(source)) =
            (word(entry), word(entry + 4), word(entry + 8))
        else {
            continue;
        };
        for (addr, data) in chunks {
            let (lo, hi) = (
                (*addr).max(first),
                (*addr as u64 + data.len() as u64).min(end as u64),
            );
            if (lo as u64) < hi {
                let bytes = &data[(lo - addr) as usize..(hi - *addr as u64) as usize];
                copies.push((source + (lo - first), bytes.to_vec()));
            }
        }
    }
    copies
}

pub fn read(path: &Path, board: &Board) -> Result<Rom> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("cannot read the ROM ELF {name}"))?;
    let elf =
        Elf::parse(&bytes).map_err(|e| anyhow::anyhow!("{name}: not a readable ROM ELF: {e}"))?;
    if elf.header.e_machine != 94 {
        bail!(
            "{name}: not an Xtensa ELF (machine {}), so not a ROM of board `{}`",
            elf.header.e_machine,
            board.name
        );
    }
    let file_bytes = |off: u64, len: u64| -> Result<&[u8]> {
        let (off, len) = (off as usize, len as usize);
        bytes
            .get(off..off.saturating_add(len))
            .with_context(|| format!("{name}: a segment or section runs past the end of the file"))
    };
    let in_board = |addr: u32, len: usize| {
        len > 0 && board.resolve(addr).is_some() && board.resolve(addr + len as u32 - 1).is_some()
    };
    let mut chunks = Vec::new();
    for ph in elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == PT_LOAD && p.p_filesz > 0)
    {
        let data = file_bytes(ph.p_offset, ph.p_filesz)?;
        // The ROM ELF lists its .data load images (physical address in ROM) as segments too; the
        // virtual address is where the bytes are used.
        if in_board(ph.p_vaddr as u32, data.len()) {
            chunks.push((ph.p_vaddr as u32, data.to_vec()));
        }
    }
    for sh in &elf.section_headers {
        let section = elf.shdr_strtab.get_at(sh.sh_name).unwrap_or("");
        let initialised_data = sh.sh_type == SHT_PROGBITS
            && sh.sh_flags & SHF_WRITE as u64 != 0
            && section.starts_with(".data");
        if initialised_data && sh.sh_size > 0 && in_board(sh.sh_addr as u32, sh.sh_size as usize) {
            chunks.push((
                sh.sh_addr as u32,
                file_bytes(sh.sh_offset, sh.sh_size)?.to_vec(),
            ));
        }
    }
    if !chunks.iter().any(|(a, _)| {
        board
            .regions
            .iter()
            .any(|r| r.kind == tigris_targets::RegionKind::Rom && r.contains(*a))
    }) {
        bail!("{name}: nothing of this ELF falls in a ROM region of board `{}`: a ROM of another chip?", board.name);
    }
    let symbols = elf
        .syms
        .iter()
        .filter(|s| s.st_type() == goblin::elf::sym::STT_FUNC && s.st_value != 0)
        .filter_map(|s| {
            let n = elf.strtab.get_at(s.st_name)?;
            (!n.is_empty()).then(|| Symbol::new(n, s.st_value as u32, s.st_size as u32, true))
        })
        .collect();
    if let Some(t) = board.rom_unpack_table {
        let copies = unpack_sources(&chunks, t);
        chunks.extend(copies);
    }
    for t in &board.rom_tables {
        chunks.extend(rom_table(t, &elf, &name, board)?);
    }
    let stack_top = elf
        .syms
        .iter()
        .find(|s| elf.strtab.get_at(s.st_name) == Some("__stack"))
        .map(|s| s.st_value as u32)
        .filter(|&a| board.resolve(a.wrapping_sub(4)).is_some());
    Ok(Rom {
        chunks,
        symbols,
        stack_top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_folders_sort_newest_first() {
        let mut v = [
            PathBuf::from("x/espflash-4.7.0"),
            PathBuf::from("x/espflash-4.10.0"),
            PathBuf::from("x/espflash-3.3.0"),
        ];
        v.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
        assert_eq!(v[0], PathBuf::from("x/espflash-4.10.0"));
        assert_eq!(v[2], PathBuf::from("x/espflash-3.3.0"));
    }
}
