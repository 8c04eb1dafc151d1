//! High-level emulation of ROM functions a firmware calls but the simulator does not load (the mask
//! ROM of Espressif chips is not part of the ELF): the call is trapped at the ROM address, served
//! here, and returns to the caller with a stated cycle cost.
//!
//! Emulated: `ets_printf` / `esp_rom_printf` (the ROM console printf), writing to the console,
//! when the chip's real ROM (`crate::rom`) was not found; the RP2040 boot ROM's function table
//! and its memory and bit functions (`crate::rp2040_rom`).

use crate::elf::Firmware;
use crate::rp2040_rom::{self, RomFn};
use crate::semihost::c_string;
use tigris_cores::{Core, CoreError};
use tigris_targets::{Board, CoreKind, RegionKind};

/// Stated cost of the ROM printf, an assumption (not measured): 60 cycles of call and parsing
/// overhead, 20 per format character scanned, 80 per conversion, 30 per byte handed to the UART
/// FIFO (`uart_tx_one_char` polls the FIFO status and writes one register per character).
const PRINTF_CALL_CYCLES: u64 = 60;
const PRINTF_SCAN_CYCLES: u64 = 20;
const PRINTF_CONVERSION_CYCLES: u64 = 80;
const PRINTF_BYTE_CYCLES: u64 = 30;

/// Default ROM addresses of `ets_printf` per core, used when the ELF does not name the symbol.
fn default_printf(kind: CoreKind) -> Option<u32> {
    match kind {
        // ESP-IDF components/esp_rom/esp32s3/ld/esp32s3.rom.ld: ets_printf = 0x400005d0 (alias esp_rom_printf).
        CoreKind::XtensaLx7 => Some(0x4000_05d0),
        // ESP-IDF components/esp_rom/esp32/ld/esp32.rom.ld: ets_printf = 0x40007d54 [R].
        CoreKind::XtensaLx6 => Some(0x4000_7d54),
        // ESP8266 NONOS SDK ld/eagle.rom.addr.v6.ld: ets_printf = 0x400024cc [R].
        CoreKind::XtensaLx106 => Some(0x4000_24cc),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Function {
    Printf,
    Rp2040(RomFn),
}

/// The traps of one machine.
pub struct Hle {
    traps: Vec<(u32, Function)>,
}

impl Hle {
    /// Traps for the board's ROM, at the addresses the ELF binds (`ets_printf`, `esp_rom_printf`)
    /// when they lie in a ROM region, else at the ROM's documented address. None when the real ROM
    /// is loaded (`rom_loaded`): it runs instead.
    pub fn new(board: &Board, fw: &Firmware, rom_loaded: bool) -> Hle {
        let mut traps = Vec::new();
        if board.core.kind.is_cortex_m() || rom_loaded {
            return Hle { traps };
        }
        let in_rom = |a: u32| {
            board
                .regions
                .iter()
                .any(|r| r.kind == RegionKind::Rom && r.contains(a))
        };
        let mut printf: Vec<u32> = fw
            .symbols
            .iter()
            .chain(&fw.absolute)
            .filter(|s| s.name == "ets_printf" || s.name == "esp_rom_printf")
            .map(|s| s.addr)
            .filter(|&a| in_rom(a))
            .collect();
        if printf.is_empty() {
            printf.extend(default_printf(board.core.kind));
        }
        printf.sort_unstable();
        printf.dedup();
        traps.extend(printf.into_iter().map(|a| (a, Function::Printf)));
        Hle { traps }
    }

    /// The RP2040 (board `rp2040`, whose boot ROM the simulator does not have): when the image
    /// puts nothing in the ROM region, write the ROM's header and function table there and trap
    /// its functions.
    pub fn install_boot_rom(
        &mut self,
        board: &Board,
        fw: &Firmware,
        core: &mut dyn Core,
    ) -> Result<(), CoreError> {
        let Some(rom) = board.regions.iter().find(|r| r.kind == RegionKind::Rom) else {
            return Ok(());
        };
        let image_in_rom = fw.segments.iter().any(|s| rom.contains(s.addr));
        if board.name != "rp2040" || image_in_rom {
            return Ok(());
        }
        let traps = rp2040_rom::install(core)?;
        self.traps
            .extend(traps.into_iter().map(|(a, f)| (a, Function::Rp2040(f))));
        Ok(())
    }

    pub fn addresses(&self) -> Vec<u32> {
        self.traps.iter().map(|t| t.0).collect()
    }

    /// Serve the trapped call at `pc`; console bytes go to `out`. Returns false when `pc` is not a trap.
    pub fn handle(
        &self,
        core: &mut dyn Core,
        pc: u32,
        out: &mut Vec<u8>,
    ) -> Result<bool, CoreError> {
        let Some(&(_, f)) = self.traps.iter().find(|t| t.0 == pc) else {
            return Ok(false);
        };
        match f {
            Function::Printf => {
                let (text, cycles) = rom_printf(core)?;
                let n = text.len() as u32;
                out.extend(text);
                core.return_from_call(n, cycles)?;
            }
            Function::Rp2040(f) => rp2040_rom::call(core, f)?,
        }
        Ok(true)
    }
}

/// The ROM printf's formats: `%[-0][width][l]` with d, i, u, x, X, p, c, s and %% (no floats, as in
/// the ROM). Arguments: the first six words in registers, the rest on the caller's stack.
fn rom_printf(core: &dyn Core) -> Result<(Vec<u8>, u64), CoreError> {
    let fmt = c_string(core, core.call_argument(0), 1 << 16)?;
    let mut next = 1u32;
    let mut arg = || -> Result<u32, CoreError> {
        next += 1;
        core.argument(next - 1)
    };
    let mut out = Vec::new();
    let mut conversions = 0u64;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (mut left, mut zero, mut width) = (false, false, 0usize);
        while i < fmt.len() && (fmt[i] == b'-' || fmt[i] == b'0') {
            if fmt[i] == b'-' {
                left = true;
            } else {
                zero = true;
            }
            i += 1;
        }
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = width * 10 + (fmt[i] - b'0') as usize;
            i += 1;
        }
        while i < fmt.len() && fmt[i] == b'l' {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        conversions += 1;
        let body: Vec<u8> = match conv {
            b'd' | b'i' => (arg()? as i32).to_string().into_bytes(),
            b'u' => arg()?.to_string().into_bytes(),
            b'x' => format!("{:x}", arg()?).into_bytes(),
            b'X' => format!("{:X}", arg()?).into_bytes(),
            b'p' => format!("0x{:08x}", arg()?).into_bytes(),
            b'c' => vec![arg()? as u8],
            b's' => c_string(core, arg()?, 1 << 16)?,
            b'%' => vec![b'%'],
            other => vec![b'%', other],
        };
        let pad = width.saturating_sub(body.len());
        if left {
            out.extend(&body);
            out.extend(std::iter::repeat_n(b' ', pad));
        } else if zero && conv != b's' && conv != b'c' {
            let (sign, digits) = if body.first() == Some(&b'-') {
                (&body[..1], &body[1..])
            } else {
                (&body[..0], &body[..])
            };
            out.extend(sign);
            out.extend(std::iter::repeat_n(b'0', pad));
            out.extend(digits);
        } else {
            out.extend(std::iter::repeat_n(b' ', pad));
            out.extend(&body);
        }
    }
    let cycles = PRINTF_CALL_CYCLES
        + PRINTF_SCAN_CYCLES * fmt.len() as u64
        + PRINTF_CONVERSION_CYCLES * conversions
        + PRINTF_BYTE_CYCLES * out.len() as u64;
    Ok((out, cycles))
}
