//! The RP2040 boot ROM's function table, emulated (RP2040 datasheet §2.8.3 "Bootrom Contents"):
//! SDKs do not link the ROM's helpers but look them up at run time. Word 0x10 holds the magic
//! 'M', 'u', 0x01 and the ROM version; the halfwords at 0x14, 0x16 and 0x18 point to the public
//! function table, the public data table and `rom_table_lookup(table, code)`. A table is pairs
//! of 16-bit (code, pointer), ending with code 0; a code is two ASCII characters, the first in
//! the low byte (`ROM_TABLE_CODE`, §2.8.3.1).
//!
//! The simulator writes that header and a function table into the empty ROM region; each entry,
//! and the lookup function, points to an address the simulator traps and serves itself (the
//! functions of §2.8.3.1.1-2 that firmware calls for memory and bit operations). Other codes look
//! up as 0 (absent), as a ROM without that function would. Costs are ASSUMPTIONs (the datasheet
//! gives none): a call of 10 cycles plus, for the memory functions, the cycles of a loop that moves
//! a word (4 bytes) in 4 cycles on the M0+ (load, store, add, branch) or a byte in 5.

use tigris_cores::{Core, CoreError};

/// Where the emulated functions live: trap addresses in the ROM region (below 64 KiB, as the
/// tables' 16-bit pointers need), 4 bytes apart, after the 0x100 bytes of vectors and header.
const LOOKUP: u32 = 0x100;
const FIRST_FUNCTION: u32 = 0x104;
/// The function table itself.
const TABLE: u32 = 0x200;
/// An empty data table (code 0), so a data lookup finds nothing.
const DATA_TABLE: u32 = 0x280;
/// ROM version 3 (B2 silicon, datasheet §2.8.3 "Bootrom version").
const VERSION: u8 = 3;

const CALL_CYCLES: u64 = 10;
const WORD_CYCLES: u64 = 4;
const BYTE_CYCLES: u64 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RomFn {
    Lookup,
    Popcount32,
    Reverse32,
    Clz32,
    Ctz32,
    Memset,
    Memset4,
    Memcpy,
    Memcpy44,
}

/// The functions in the table, with their codes (datasheet §2.8.3.1.1 "Fast bit counting",
/// §2.8.3.1.2 "Fast bulk memory fill / copy").
const FUNCTIONS: [(&[u8; 2], RomFn); 8] = [
    (b"P3", RomFn::Popcount32),
    (b"R3", RomFn::Reverse32),
    (b"L3", RomFn::Clz32),
    (b"T3", RomFn::Ctz32),
    (b"MS", RomFn::Memset),
    (b"S4", RomFn::Memset4),
    (b"MC", RomFn::Memcpy),
    (b"C4", RomFn::Memcpy44),
];

fn code(c: &[u8; 2]) -> u16 {
    c[0] as u16 | (c[1] as u16) << 8
}

/// Write the header and tables into the ROM region (which holds nothing else) and give the trap
/// addresses with what each serves.
pub fn install(core: &mut dyn Core) -> Result<Vec<(u32, RomFn)>, CoreError> {
    let mut header = Vec::new();
    header.extend_from_slice(&[b'M', b'u', 0x01, VERSION]);
    for p in [TABLE, DATA_TABLE, LOOKUP | 1] {
        header.extend_from_slice(&(p as u16).to_le_bytes());
    }
    core.write_memory(0x10, &header)?;
    let mut table = Vec::new();
    let mut traps = vec![(LOOKUP, RomFn::Lookup)];
    for (i, (c, f)) in FUNCTIONS.iter().enumerate() {
        let at = FIRST_FUNCTION + 4 * i as u32;
        table.extend_from_slice(&code(c).to_le_bytes());
        table.extend_from_slice(&((at | 1) as u16).to_le_bytes());
        traps.push((at, *f));
    }
    table.extend_from_slice(&[0, 0]);
    core.write_memory(TABLE, &table)?;
    core.write_memory(DATA_TABLE, &[0, 0])?;
    Ok(traps)
}

fn read(core: &dyn Core, addr: u32, n: usize) -> Result<Vec<u8>, CoreError> {
    let mut b = vec![0u8; n];
    core.read_memory(addr, &mut b)?;
    Ok(b)
}

/// Serve a call of `f` (arguments in r0-r2, AAPCS) and return to the caller.
pub fn call(core: &mut dyn Core, f: RomFn) -> Result<(), CoreError> {
    let (a0, a1, a2) = (
        core.call_argument(0),
        core.call_argument(1),
        core.call_argument(2),
    );
    let (value, cycles) = match f {
        RomFn::Lookup => {
            // rom_table_lookup(table, code): walk the (code, pointer) pairs.
            let mut at = a0;
            let mut found = 0;
            loop {
                let pair = read(core, at, 4)?;
                let c = u16::from_le_bytes([pair[0], pair[1]]) as u32;
                if c == 0 {
                    break;
                }
                if c == a1 & 0xFFFF {
                    found = u16::from_le_bytes([pair[2], pair[3]]) as u32;
                    break;
                }
                at += 4;
            }
            (found, CALL_CYCLES)
        }
        RomFn::Popcount32 => (a0.count_ones(), CALL_CYCLES),
        RomFn::Reverse32 => (a0.reverse_bits(), CALL_CYCLES),
        RomFn::Clz32 => (a0.leading_zeros(), CALL_CYCLES),
        RomFn::Ctz32 => (a0.trailing_zeros(), CALL_CYCLES),
        RomFn::Memset | RomFn::Memset4 => {
            // memset(ptr, c, n) / memset4(ptr, c, n): n bytes of c (n a multiple of 4 for memset4).
            core.write_memory(a0, &vec![a1 as u8; a2 as usize])?;
            let per = if f == RomFn::Memset4 {
                WORD_CYCLES * (a2 as u64 / 4)
            } else {
                BYTE_CYCLES * a2 as u64
            };
            (a0, CALL_CYCLES + per)
        }
        RomFn::Memcpy | RomFn::Memcpy44 => {
            // memcpy(dest, src, n) / memcpy44(dest, src, n): n bytes (words for memcpy44).
            let bytes = read(core, a1, a2 as usize)?;
            core.write_memory(a0, &bytes)?;
            let per = if f == RomFn::Memcpy44 {
                WORD_CYCLES * (a2 as u64 / 4)
            } else {
                BYTE_CYCLES * a2 as u64
            };
            (a0, CALL_CYCLES + per)
        }
    };
    core.return_from_call(value, cycles)
}
