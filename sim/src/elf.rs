//! ELF loading: PT_LOAD segments at their physical (load) address, symbols for attribution, and the
//! start state from the Cortex-M vector table.

use crate::dwarf::{self, DebugInfo, SourceFrame};
use crate::unwind::CallFrames;
use anyhow::{bail, Context, Result};
use goblin::container::{Container, Ctx, Endian};
use goblin::elf::program_header::{ProgramHeader, PT_LOAD};
use goblin::elf::section_header::{SectionHeader, SHT_SYMTAB};
use goblin::elf::sym::Symtab;
use goblin::elf::{header, sym, Elf};
use goblin::strtab::Strtab;
use std::sync::Arc;
use tigris_targets::Board;

/// One loadable segment: file bytes, then zero fill up to `mem_size`.
pub struct Segment {
    pub index: usize,
    pub addr: u32,
    pub data: Vec<u8>,
    pub mem_size: u32,
    pub executable: bool,
}

/// A function or object symbol.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// The name users read: demangled when the linker symbol is mangled.
    pub name: String,
    /// The linker symbol, when it differs from `name` (a mangled Rust or C++ name).
    pub mangled: Option<String>,
    pub addr: u32,
    pub size: u32,
    pub is_function: bool,
    /// Other linker names of the same address (newlib's `printf` for `iprintf`).
    pub aliases: Vec<String>,
}

impl Symbol {
    /// A symbol from its linker name, demangled for display.
    pub fn new(linker_name: &str, addr: u32, size: u32, is_function: bool) -> Symbol {
        let (name, mangled) = match dwarf::demangle(linker_name) {
            Some(name) => (name, Some(linker_name.to_string())),
            None => (linker_name.to_string(), None),
        };
        Symbol {
            name,
            mangled,
            addr,
            size,
            is_function,
            aliases: Vec::new(),
        }
    }

    /// Whether a user's `name` means this symbol: its display name or its linker symbol.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name
            || self.mangled.as_deref() == Some(name)
            || self.aliases.iter().any(|a| a == name)
    }
}

/// Put `symbols` in address order, functions first, and keep one function and one object per
/// address, the others' names as its aliases.
fn sort_and_merge(symbols: &mut Vec<Symbol>) {
    symbols
        .sort_by(|a, b| (a.addr, !a.is_function, &a.name).cmp(&(b.addr, !b.is_function, &b.name)));
    symbols.dedup_by(|alias, kept| {
        let same = alias.addr == kept.addr && alias.is_function == kept.is_function;
        if same {
            kept.aliases.push(std::mem::take(&mut alias.name));
            kept.aliases.extend(alias.mangled.take());
            kept.aliases.append(&mut alias.aliases);
        }
        same
    });
}

#[derive(Default)]
pub struct Firmware {
    pub segments: Vec<Segment>,
    pub symbols: Vec<Symbol>,
    pub entry: u32,
    /// Address of the section named `.isr_vector`, `.vectors` or `.vector_table`, if any.
    pub vector_section: Option<u32>,
    /// Absolute symbols (`SHN_ABS`): the addresses of ROM functions an image links against.
    pub absolute: Vec<Symbol>,
    /// Source lines and inlined frames, when the ELF carries DWARF.
    pub debug: Option<Arc<DebugInfo>>,
    /// The call-frame information (`.debug_frame`, `.eh_frame`) that unwinds backtraces.
    pub call_frames: Option<Arc<CallFrames>>,
    /// Address ranges [start, end) of the sections that occupy memory (SHF_ALLOC), NOLOAD ones
    /// included: what the image claims besides its segments.
    pub allocated: Vec<(u32, u32)>,
    /// What loading skipped or found odd (unreadable symbol names, overlapping segments): warned
    /// on stderr and noted in the report.
    pub notes: Vec<String>,
}

impl Firmware {
    /// Add `symbols` (of the ROM, of other ELFs): kept in address order, functions first, one
    /// function and one object per address.
    pub fn add_symbols(&mut self, symbols: Vec<Symbol>) {
        self.symbols.extend(symbols);
        sort_and_merge(&mut self.symbols);
    }
}

const ARM_MACHINE: u16 = header::EM_ARM;
const XTENSA_MACHINE: u16 = 94; // EM_XTENSA (ELF gABI machine list)

fn machine_name(m: u16) -> String {
    match m {
        header::EM_ARM => "ARM".into(),
        XTENSA_MACHINE => "Xtensa".into(),
        header::EM_X86_64 => "x86-64".into(),
        header::EM_386 => "x86".into(),
        header::EM_AARCH64 => "AArch64".into(),
        header::EM_RISCV => "RISC-V".into(),
        other => format!("machine {other}"),
    }
}

/// The ELF's headers and tables, each read on its own so that an error names the structure it is
/// in (goblin's own messages name none): the program and section headers by index. Tables that
/// only name things (section names, symbols) are read leniently by the caller.
fn read_elf<'a>(path: &str, bytes: &'a [u8], board: &Board) -> Result<Elf<'a>> {
    let header = Elf::parse_header(bytes)
        .map_err(|e| anyhow::anyhow!("{path}: corrupt or truncated ELF header: {e}"))?;
    let mut elf =
        Elf::lazy_parse(header).map_err(|e| anyhow::anyhow!("{path}: ELF header: {e}"))?;
    let want = if board.core.kind.is_cortex_m() {
        ARM_MACHINE
    } else {
        XTENSA_MACHINE
    };
    if elf.header.e_machine != want || elf.is_64 || !elf.little_endian {
        bail!(
            "{path}: ELF for {} ({}-bit, {} endian), but board `{}` has a {} core that needs a 32-bit little-endian {} ELF",
            machine_name(elf.header.e_machine),
            if elf.is_64 { 64 } else { 32 },
            if elf.little_endian { "little" } else { "big" },
            board.name,
            board.core.kind.name(),
            machine_name(want)
        );
    }
    let ctx = Ctx::new(Container::Little, Endian::Little);
    let (phoff, phnum) = (header.e_phoff as usize, header.e_phnum as usize);
    for i in 0..phnum {
        let at = phoff.saturating_add(i * ProgramHeader::size(ctx));
        let ph = ProgramHeader::parse(bytes, at, 1, ctx).map_err(|e| {
            anyhow::anyhow!("{path}: program header {i} (of {phnum}, at file offset 0x{at:x}): {e}: corrupt or truncated ELF")
        })?;
        elf.program_headers.extend(ph);
    }
    if header.e_shoff != 0 {
        let (shoff, shnum) = (header.e_shoff as usize, header.e_shnum as usize);
        for i in 0..shnum.max(1) {
            let at = shoff.saturating_add(i * SectionHeader::size(ctx));
            let sh = SectionHeader::parse_from(bytes, at, 1, ctx).map_err(|e| {
                anyhow::anyhow!("{path}: section header {i} (of the section header table at file offset 0x{shoff:x}): {e}: corrupt or truncated ELF")
            })?;
            elf.section_headers.extend(sh.into_iter().take(1));
        }
        if shnum == 0 {
            // e_shnum 0 with a table: no sections (an overflowed count is not used by firmware).
            elf.section_headers.clear();
        }
    }
    Ok(elf)
}

/// The bytes of section `index`, when they lie in the file.
fn section_bytes<'a>(bytes: &'a [u8], elf: &Elf, index: usize) -> Option<&'a [u8]> {
    let sh = elf.section_headers.get(index)?;
    let start = usize::try_from(sh.sh_offset).ok()?;
    bytes.get(start..start.checked_add(usize::try_from(sh.sh_size).ok()?)?)
}

/// The NUL-terminated name at `offset` of a string table, when it is there and UTF-8.
fn name_at(table: &[u8], offset: usize) -> Option<&str> {
    let rest = table.get(offset..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// Parse `bytes` (read from `path`) as firmware for a core of the board.
pub fn parse(path: &str, bytes: &[u8], board: &Board) -> Result<Firmware> {
    if bytes.is_empty() {
        bail!("{path}: the file is empty, not an ELF");
    }
    if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
        bail!("{path}: not an ELF file (no \\x7fELF magic)");
    }
    let mut elf = read_elf(path, bytes, board)?;
    let mut notes = Vec::new();
    // Section names only find sections (the vector table, DWARF): unreadable, none is found.
    if let Some(table) = section_bytes(bytes, &elf, elf.header.e_shstrndx as usize) {
        match Strtab::parse(table, 0, table.len(), 0) {
            Ok(names) => elf.shdr_strtab = names,
            Err(e) => notes.push(format!(
                "the section names (section {}) are not readable ({e}): sections found by name (the vector table, DWARF) are not used",
                elf.header.e_shstrndx
            )),
        }
    }
    let mut segments = Vec::new();
    for (index, ph) in elf.program_headers.iter().enumerate() {
        if ph.p_type != PT_LOAD || ph.p_memsz == 0 {
            continue;
        }
        let start = ph.p_offset as usize;
        let end = start.checked_add(ph.p_filesz as usize).filter(|&e| e <= bytes.len()).with_context(|| {
            format!(
                "{path}: segment {index} claims file bytes 0x{:x}..0x{:x}, past the end of the file ({} bytes): truncated ELF",
                ph.p_offset,
                ph.p_offset + ph.p_filesz,
                bytes.len()
            )
        })?;
        if ph.p_filesz > ph.p_memsz {
            bail!(
                "{path}: segment {index} has more file bytes than memory bytes (file 0x{:x}, memory 0x{:x})",
                ph.p_filesz,
                ph.p_memsz
            );
        }
        if ph.p_paddr + ph.p_memsz > 1 << 32 {
            bail!(
                "{path}: segment {index} at 0x{:08x} ({} bytes) runs past the end of the 4 GiB address space",
                ph.p_paddr,
                ph.p_memsz
            );
        }
        segments.push(Segment {
            index,
            addr: ph.p_paddr as u32,
            data: bytes[start..end].to_vec(),
            mem_size: ph.p_memsz as u32,
            executable: ph.is_executable(),
        });
    }
    if segments.is_empty() {
        bail!("{path}: the ELF has no loadable (PT_LOAD) segment");
    }
    for s in &segments {
        check_segment(path, s, board)?;
    }
    notes.extend(overlaps(&segments));
    // Symbols only name things: a table or a name that cannot be read is skipped, and said.
    let mut names: &[u8] = &[];
    if let Some((i, sh)) = elf
        .section_headers
        .iter()
        .enumerate()
        .rfind(|(_, sh)| sh.sh_type == SHT_SYMTAB)
    {
        let count = (sh.sh_size / sh.sh_entsize.max(1)) as usize;
        match Symtab::parse(bytes, sh.sh_offset as usize, count, Ctx::new(Container::Little, Endian::Little)) {
            Ok(syms) => {
                elf.syms = syms;
                names = section_bytes(bytes, &elf, sh.sh_link as usize).unwrap_or(&[]);
            }
            Err(e) => notes.push(format!(
                "the symbol table (section {i}) is not readable ({e}): the profile cannot name functions"
            )),
        }
    }
    let mut unnamed = 0;
    let mut name_of = |s: &sym::Sym| match name_at(names, s.st_name) {
        Some(n) => Some(n),
        None => {
            unnamed += 1;
            None
        }
    };
    let mut symbols: Vec<Symbol> = elf
        .syms
        .iter()
        .filter(|s| {
            matches!(s.st_type(), sym::STT_FUNC | sym::STT_OBJECT) && s.st_value != 0
                || s.st_type() == sym::STT_FUNC
        })
        .filter_map(|s| {
            let name = name_of(&s)?;
            if name.is_empty() {
                return None;
            }
            let is_function = s.st_type() == sym::STT_FUNC;
            let addr = if is_function {
                s.st_value as u32 & !1
            } else {
                s.st_value as u32
            };
            Some(Symbol::new(name, addr, s.st_size as u32, is_function))
        })
        .collect();
    sort_and_merge(&mut symbols);
    let vector_section = elf
        .section_headers
        .iter()
        .find(|sh| {
            matches!(
                elf.shdr_strtab.get_at(sh.sh_name),
                Some(".isr_vector" | ".vectors" | ".vector_table")
            )
        })
        .map(|sh| sh.sh_addr as u32);
    let mut absolute: Vec<Symbol> = elf
        .syms
        .iter()
        .filter(|s| s.st_shndx == goblin::elf::section_header::SHN_ABS as usize && s.st_value != 0)
        .filter_map(|s| {
            let name = name_of(&s).filter(|n| !n.is_empty())?;
            Some(Symbol::new(name, s.st_value as u32, 0, false))
        })
        .collect();
    if unnamed > 0 {
        notes.push(format!(
            "{unnamed} symbol(s) skipped: their names are not valid UTF-8 or lie outside the string table"
        ));
    }
    absolute.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
    let allocated = elf
        .section_headers
        .iter()
        .filter(|sh| sh.sh_flags & goblin::elf::section_header::SHF_ALLOC as u64 != 0)
        .filter_map(|sh| {
            let end = sh.sh_addr.checked_add(sh.sh_size)?;
            (sh.sh_size > 0 && end <= 1 << 32).then_some((sh.sh_addr as u32, end as u32))
        })
        .collect();
    Ok(Firmware {
        segments,
        symbols,
        entry: elf.entry as u32,
        vector_section,
        absolute,
        debug: DebugInfo::load(&elf, bytes).map(Arc::new),
        call_frames: CallFrames::load(&elf, bytes).map(Arc::new),
        allocated,
        notes,
    })
}

/// A note for each pair of segments that load over each other (the later one wins, as a
/// flasher writes them in order), which a linker never produces for a sound image.
fn overlaps(segments: &[Segment]) -> Vec<String> {
    let span = |s: &Segment| (s.addr as u64, s.addr as u64 + s.mem_size as u64);
    let mut order: Vec<&Segment> = segments.iter().collect();
    order.sort_by_key(|s| span(s));
    order
        .windows(2)
        .filter(|w| span(w[1]).0 < span(w[0]).1)
        .map(|w| {
            format!(
                "segments {} (0x{:08x}-0x{:08x}) and {} (0x{:08x}-0x{:08x}) overlap: the one later in the file is loaded over the other",
                w[0].index,
                w[0].addr,
                span(w[0]).1 - 1,
                w[1].index,
                w[1].addr,
                span(w[1]).1 - 1
            )
        })
        .collect()
}

/// A segment must lie in the board's memory: inside one region (its base or an alias), or across
/// regions that adjoin (ESP32-S3 IRAM runs from SRAM0 on into SRAM1's instruction view).
fn check_segment(path: &str, s: &Segment, board: &Board) -> Result<()> {
    let last = s.addr as u64 + s.mem_size as u64 - 1;
    let mut at = s.addr as u64;
    while at <= last {
        let Some((i, canonical)) = board.resolve(at as u32) else {
            break;
        };
        let r = &board.regions[i];
        at += r.end() - canonical as u64;
    }
    if at > last {
        return Ok(());
    }
    bail!(
        "{path}: segment {} (0x{:08x}-0x{:08x}, {} bytes) does not fit in the memory of board `{}`: no region holds 0x{at:08x}.\nThe board's memory map:\n{}",
        s.index,
        s.addr,
        last,
        s.mem_size,
        board.name,
        board.memory_map()
    )
}

/// Function symbols in address order, for attributing a PC, and the DWARF for its source line.
pub struct SymbolMap {
    functions: Vec<Symbol>,
    debug: Option<Arc<DebugInfo>>,
}

impl SymbolMap {
    pub fn new(symbols: &[Symbol]) -> Self {
        let functions = symbols.iter().filter(|s| s.is_function).cloned().collect();
        SymbolMap {
            functions,
            debug: None,
        }
    }

    /// The map of a firmware: its functions and its DWARF.
    pub fn of(firmware: &Firmware) -> Self {
        SymbolMap {
            debug: firmware.debug.clone(),
            ..SymbolMap::new(&firmware.symbols)
        }
    }

    /// The addresses of the functions whose linker or demangled name is `name`.
    pub fn functions_named(&self, name: &str) -> Vec<u32> {
        let named = self.functions.iter().filter(|s| s.is_named(name));
        named.map(|s| s.addr).collect()
    }

    /// `file:line` of the instruction at `addr` (the innermost inlined frame's), from DWARF.
    pub fn line(&self, addr: u32) -> Option<String> {
        self.source(addr).into_iter().find_map(|f| f.location)
    }

    /// Whether the firmware's DWARF gives source lines.
    pub fn has_source(&self) -> bool {
        self.debug.is_some()
    }

    /// The source frames at `addr`, innermost (inlined) first; empty without DWARF for it.
    pub fn source(&self, addr: u32) -> Vec<SourceFrame> {
        self.debug.as_ref().map_or(Vec::new(), |d| d.frames(addr))
    }

    /// Functions in the map; also the index callers use for code no function covers.
    #[allow(clippy::len_without_is_empty)] // a count and an index, never asked whether empty
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    pub fn get(&self, i: usize) -> &Symbol {
        &self.functions[i]
    }

    /// Index of the function containing `addr`: the nearest symbol at or below it whose size covers
    /// it (a size of 0 covers up to the next symbol).
    pub fn lookup(&self, addr: u32) -> Option<usize> {
        let i = self
            .functions
            .partition_point(|s| s.addr <= addr)
            .checked_sub(1)?;
        let s = &self.functions[i];
        let next = self
            .functions
            .get(i + 1)
            .map(|n| n.addr)
            .unwrap_or(u32::MAX);
        let covers = if s.size > 0 {
            addr < s.addr.saturating_add(s.size)
        } else {
            addr < next
        };
        covers.then_some(i)
    }

    /// Address range covered by function `i`.
    pub fn range(&self, i: usize) -> (u32, u32) {
        let s = &self.functions[i];
        let end = if s.size > 0 {
            s.addr.saturating_add(s.size)
        } else {
            self.functions
                .get(i + 1)
                .map(|n| n.addr)
                .unwrap_or(u32::MAX)
        };
        (s.addr, end)
    }

    /// `symbol+0xoff` for an address, when a function covers it.
    pub fn describe(&self, addr: u32) -> Option<String> {
        let s = &self.functions[self.lookup(addr)?];
        Some(if addr == s.addr {
            s.name.clone()
        } else {
            format!("{}+0x{:x}", s.name, addr - s.addr)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The shipped Cortex-M example and its board.
    fn demo() -> (Vec<u8>, Board) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/mps2-an386-demo.elf"
        );
        (
            std::fs::read(path).unwrap(),
            tigris_targets::load("mps2-an386").unwrap(),
        )
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    fn put_u32(b: &mut [u8], at: usize, v: u32) {
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// File offset of program header `i`'s field at `field` (ELF32: 32-byte entries).
    fn ph_field(b: &[u8], i: usize, field: usize) -> usize {
        u32_at(b, 28) as usize + 32 * i + field
    }

    fn error(b: &[u8], board: &Board) -> String {
        match parse("fw.elf", b, board) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    }

    /// Review D9: a segment that wraps past 4 GiB says so (its sizes are consistent).
    #[test]
    fn a_segment_past_4_gib_is_named_as_such() {
        let (mut b, board) = demo();
        let at = ph_field(&b, 0, 12);
        put_u32(&mut b, at, 0xFFFF_FFF0);
        let e = error(&b, &board);
        assert!(
            e.contains("segment 0 at 0xfffffff0")
                && e.contains("runs past the end of the 4 GiB address space"),
            "{e}"
        );
    }

    /// Review D9: one byte that is not UTF-8 in a symbol's name skips that symbol, says so, and
    /// keeps the rest of the firmware and its symbols.
    #[test]
    fn a_symbol_name_that_is_not_utf8_skips_that_symbol_only() {
        let (mut b, board) = demo();
        let elf = Elf::parse(&b).unwrap();
        let sym = elf
            .syms
            .iter()
            .find(|s| elf.strtab.get_at(s.st_name) == Some("main"))
            .unwrap();
        let strtab = elf.section_headers[elf
            .section_headers
            .iter()
            .rposition(|sh| sh.sh_type == SHT_SYMTAB)
            .unwrap()]
        .sh_link as usize;
        let at = elf.section_headers[strtab].sh_offset as usize + sym.st_name;
        drop(elf);
        b[at] = 0xFF;
        let fw = parse("fw.elf", &b, &board).unwrap();
        assert!(!fw.symbols.iter().any(|s| s.is_named("main")));
        assert!(fw.symbols.iter().any(|s| s.is_named("Reset_Handler")));
        assert_eq!(
            fw.notes,
            ["1 symbol(s) skipped: their names are not valid UTF-8 or lie outside the string table"]
        );
    }

    /// Review D9: a broken table is named (which program or section header), not only goblin's
    /// "bad offset".
    #[test]
    fn broken_headers_are_named() {
        let (b, board) = demo();
        let mut phdrs = b.clone();
        put_u32(&mut phdrs, 28, b.len() as u32 - 40);
        let e = error(&phdrs, &board);
        assert!(
            e.contains("fw.elf: program header 1 (of 3, at file offset"),
            "{e}"
        );
        let mut shdrs = b.clone();
        put_u32(&mut shdrs, 32, b.len() as u32 - 100);
        let e = error(&shdrs, &board);
        assert!(
            e.contains("fw.elf: section header 2 (of the section header table at file offset"),
            "{e}"
        );
    }

    /// Review D9: segments that load over each other are warned about.
    #[test]
    fn overlapping_segments_are_noted() {
        let (mut b, board) = demo();
        let at = ph_field(&b, 1, 12);
        put_u32(&mut b, at, 0x100);
        let fw = parse("fw.elf", &b, &board).unwrap();
        assert_eq!(
            fw.notes,
            ["segments 0 (0x00000000-0x00005987) and 1 (0x00000100-0x000002d7) overlap: the one later in the file is loaded over the other"]
        );
        assert!(parse("fw.elf", &demo().0, &board).unwrap().notes.is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The shipped examples with random bytes changed (headers, tables, symbols) or cut short
        /// load or are refused with a message, never a panic.
        #[test]
        fn mutated_elfs_never_panic(
            example in 0..2usize,
            edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8),
            header_only in any::<bool>(),
            cut in any::<usize>(),
        ) {
            let (file, board) = [
                ("examples/esp32s3-demo.elf", "esp32s3"),
                ("examples/mps2-an386-demo.elf", "mps2-an386"),
            ][example];
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
            let mut bytes = std::fs::read(&path).unwrap();
            let board = tigris_targets::load(board).unwrap();
            // Half the cases aim at the first 256 bytes: the ELF and program headers.
            let span = if header_only { 256.min(bytes.len()) } else { bytes.len() };
            for (at, b) in edits {
                bytes[at % span] = b;
            }
            bytes.truncate(bytes.len() - cut % 64);
            let _ = parse(file, &bytes, &board);
        }
    }
}
