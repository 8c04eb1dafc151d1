//! The core ISA of the LX106 / LX6 / LX7 as one table: a row per `Op` (in `Op` order) with its
//! mnemonic, encoding, AR operands, immediate decoder, option gate, cost class and how it ends a
//! decoded block. `decode`, `mnemonic`, `static_cost` and the `Insn` predicates read it; the ESP32-S3
//! PIE opcodes have their own table in `pie`.
//!
//! Encodings, field layouts and immediate decoders follow source S2, the GNU libisa tables
//! (xtensa-modules.c; tags in the `xtensa` module docs). An encoding lists the word's nibbles from
//! the highest down, as objdump prints the word: `op2 op1 r s t op0` for a 24-bit instruction,
//! `r s t op0` for a narrow one. A hex digit fixes the nibble, `-` leaves it free and four
//! characters of `0`, `1` and `x` fix some of its bits (`xx00`: the low two bits are 0). An empty
//! encoding marks an `Op` not decoded from this table.

use std::sync::OnceLock;

use super::config::{XtensaConfig, XtensaCore};
use super::decode::{sr_access_ok, Insn, Op, SrAccess, AR_R, AR_S, AR_T};

/// How the immediate (`Insn::imm`) is decoded from the word (S2 libisa operand decoders).
/// Branch, jump, call and loop targets are absolute: they take the instruction's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imm {
    /// No immediate: 0.
    Zero,
    /// The `s` field (RFI/RSIL/WAITI level, BREAK.N code, SRLI shift).
    S,
    /// SSAI: SAR = {t[0], s}.
    Ssai,
    /// ROTW: t sign-extended.
    Rotw,
    /// SLLI: shift = 32 − {op2[0], t}.
    Slli,
    /// SRAI: shift = {op2[0], s}.
    Srai,
    /// A special register {r, s} (RSR/WSR/XSR), or WUR's user register.
    Rs,
    /// RUR's user register {s, t}.
    St,
    /// EXTUI: shift {op1[0], s} | width (op2 + 1) << 8.
    Extui,
    /// L32E/S32E: offset (r − 16)·4.
    L32e,
    /// Offset r·4 (L32I.N, S32I.N, S32NB).
    R4,
    /// L32R: offset (0xFFFF0000 | imm16) << 2.
    L32r,
    /// imm8 scaled by 1, 2, 4 (loads, stores; LSI/SSI).
    U8,
    U8x2,
    U8x4,
    /// MOVI: {s, imm8} sign-extended from 12 bits.
    Movi,
    /// ADDI: imm8 sign-extended.
    Addi,
    /// ADDMI: imm8 sign-extended, << 8.
    Addmi,
    /// MAC16 operands packed as `decode::mac_fields` reads them.
    Mac16,
    /// CALLn target: (PC & ~3) + 4 + sext18·4.
    Call,
    /// J target: PC + 4 + sext18.
    J,
    /// BRI12 target: PC + 4 + sext12.
    B12,
    /// BRI8 / RRI8 branch target: PC + 4 + sext8.
    B8,
    /// ENTRY frame size: imm12·8.
    Entry,
    /// LOOP* end: PC + 4 + imm8 (unsigned).
    Loop,
    /// ADDI.N: t, or −1 for t = 0.
    AddiN,
    /// MOVI.N (RI7): {t[2:0], r}, minus 128 when bits 6 and 5 are both set.
    MoviN,
    /// BEQZ.N/BNEZ.N (RI6) target: PC + 4 + {t[1:0], r}.
    BNarrow,
}

fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}

impl Imm {
    fn value(self, w: u32, pc: u32) -> u32 {
        let nib = |lo: u32| (w >> lo) & 0xF;
        let (t, s, r, op1, op2) = (nib(4), nib(8), nib(12), nib(16), nib(20));
        let imm8 = w >> 16;
        let near = |off: i32| pc.wrapping_add(4).wrapping_add(off as u32);
        match self {
            Imm::Zero => 0,
            Imm::S => s,
            Imm::Ssai => ((t & 1) << 4) | s,
            Imm::Rotw => sext(t, 4) as u32,
            Imm::Slli => 32 - (((op2 & 1) << 4) | t),
            Imm::Srai => ((op2 & 1) << 4) | s,
            Imm::Rs => (r << 4) | s,
            Imm::St => (s << 4) | t,
            Imm::Extui => (((op1 & 1) << 4) | s) | ((op2 + 1) << 8),
            Imm::L32e => ((r as i32 - 16) * 4) as u32,
            Imm::R4 => r * 4,
            Imm::L32r => (0xFFFF_0000 | (w >> 8)) << 2,
            Imm::U8 => imm8,
            Imm::U8x2 => imm8 * 2,
            Imm::U8x4 => imm8 * 4,
            Imm::Movi => sext((s << 8) | imm8, 12) as u32,
            Imm::Addi => sext(imm8, 8) as u32,
            Imm::Addmi => (sext(imm8, 8) << 8) as u32,
            Imm::Mac16 => {
                // half = op1[1:0], mx = w[14], my = 2 + w[6], mw = w[13:12]
                (op1 & 3) | (((w >> 14) & 1) << 4) | ((2 + ((w >> 6) & 1)) << 8) | (r & 3) << 12
            }
            Imm::Call => (pc & !3)
                .wrapping_add(4)
                .wrapping_add((sext(w >> 6, 18) << 2) as u32),
            Imm::J => near(sext(w >> 6, 18)),
            Imm::B12 => near(sext(w >> 12, 12)),
            Imm::B8 => near(sext(imm8, 8)),
            Imm::Entry => (w >> 12) * 8,
            Imm::Loop => near(imm8 as i32),
            Imm::AddiN => {
                if t == 0 {
                    -1i32 as u32
                } else {
                    t
                }
            }
            Imm::MoviN => {
                let imm = ((t & 7) << 4) | r;
                if imm & 0x60 == 0x60 {
                    imm.wrapping_sub(128)
                } else {
                    imm
                }
            }
            Imm::BNarrow => near((((t & 3) << 4) | r) as i32),
        }
    }
}

/// Which configurations have an opcode (S1 core-isa.h options; special and user registers as
/// `XtensaConfig::has_sr` / `has_ur` and `sr_access_ok` say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    Always,
    /// LX6 / LX7 only (not the LX106).
    Lx,
    Windowed,
    Loops,
    Booleans,
    Mul16,
    Mul32,
    Mul32High,
    Div32,
    Mac16,
    Nsa,
    Minmax,
    Sext,
    Clamps,
    Fpu,
    S32c1i,
    L32ai,
    S32nb,
    /// RSR / WSR / XSR of the special register in `imm`.
    SrRead,
    SrWrite,
    SrSwap,
    /// RUR / WUR of the user register in `imm`.
    Ur,
}

impl Gate {
    fn allows(self, cfg: &XtensaConfig, imm: u32) -> bool {
        match self {
            Gate::Always => true,
            Gate::Lx => cfg.core != XtensaCore::Esp8266,
            Gate::Windowed => cfg.windowed,
            Gate::Loops => cfg.loops,
            Gate::Booleans => cfg.booleans,
            Gate::Mul16 => cfg.mul16,
            Gate::Mul32 => cfg.mul32,
            Gate::Mul32High => cfg.mul32_high,
            Gate::Div32 => cfg.div32,
            Gate::Mac16 => cfg.mac16,
            Gate::Nsa => cfg.nsa,
            Gate::Minmax => cfg.minmax,
            Gate::Sext => cfg.sext,
            Gate::Clamps => cfg.clamps,
            Gate::Fpu => cfg.fpu,
            Gate::S32c1i => cfg.s32c1i,
            Gate::L32ai => cfg.l32ai,
            Gate::S32nb => cfg.s32nb,
            Gate::SrRead => cfg.has_sr(imm) && sr_access_ok(imm, SrAccess::R),
            Gate::SrWrite => cfg.has_sr(imm) && sr_access_ok(imm, SrAccess::W),
            Gate::SrSwap => cfg.has_sr(imm) && sr_access_ok(imm, SrAccess::X),
            Gate::Ur => cfg.has_ur(imm),
        }
    }
}

/// Cost class: the static cost (`XtensaTiming::base`, plus `mul` or `div`), and for `Load` the
/// load latency of the AR it writes in `t` (the load-use interlock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Alu,
    Load,
    Mul,
    Div,
}

/// Whether a decoded block goes on after the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ends {
    /// The next instruction joins the block.
    No,
    /// The block ends: control flow, state that changes how following instructions run, or an
    /// exception.
    Block,
    /// A conditional branch: the block ends, and falls through when the branch is not taken.
    Branch,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct OpRow {
    pub op: Op,
    /// As GNU binutils spells it.
    pub mnemonic: &'static str,
    /// Length in bytes (2 or 3; 0 for an `Op` not decoded from this table).
    pub len: u8,
    /// The word matches when `w & mask == mtch`.
    pub mask: u32,
    pub mtch: u32,
    /// Which fields name AR registers (`AR_R | AR_S | AR_T`).
    pub arm: u8,
    pub imm: Imm,
    pub gate: Gate,
    pub class: Class,
    pub ends: Ends,
    /// Window increment of a call (CALLn, CALLXn: n panes), the least pane it names.
    pub win: u8,
}

/// Parse an encoding (module docs) into (length, mask, match); a malformed one fails the build.
const fn encoding(enc: &str) -> (u8, u32, u32) {
    let b = enc.as_bytes();
    let (mut mask, mut mtch, mut nibbles) = (0u32, 0u32, 0u32);
    let mut i = 0;
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < b.len() && b[end] != b' ' {
            end += 1;
        }
        let (m, v) = match end - i {
            1 => match b[i] {
                b'-' => (0, 0),
                c @ b'0'..=b'9' => (0xF, (c - b'0') as u32),
                c @ b'a'..=b'f' => (0xF, (c - b'a' + 10) as u32),
                _ => panic!("bad nibble in an encoding"),
            },
            4 => {
                let (mut m, mut v, mut k) = (0u32, 0u32, 0);
                while k < 4 {
                    m <<= 1;
                    v <<= 1;
                    match b[i + k] {
                        b'0' => m |= 1,
                        b'1' => {
                            m |= 1;
                            v |= 1
                        }
                        b'x' => {}
                        _ => panic!("bad bit in an encoding"),
                    }
                    k += 1;
                }
                (m, v)
            }
            _ => panic!("an encoding nibble is one character or four bits"),
        };
        mask = (mask << 4) | m;
        mtch = (mtch << 4) | v;
        nibbles += 1;
        i = end;
    }
    assert!(
        nibbles == 0 || nibbles == 4 || nibbles == 6,
        "an encoding has 4 or 6 nibbles"
    );
    ((nibbles / 2) as u8, mask, mtch)
}

/// AR operand fields from a string of `r`, `s`, `t`.
const fn ar_fields(ar: &str) -> u8 {
    let b = ar.as_bytes();
    let (mut arm, mut i) = (0, 0);
    while i < b.len() {
        arm |= match b[i] {
            b'r' => AR_R,
            b's' => AR_S,
            b't' => AR_T,
            _ => panic!("AR fields are r, s, t"),
        };
        i += 1;
    }
    arm
}

macro_rules! rows {
    ($($op:ident $mn:literal $enc:literal $ar:literal $imm:ident $gate:ident $class:ident $ends:ident $(win $win:literal)?;)*) => {
        /// The core ISA, one row per `Op`, in `Op` order.
        pub(crate) const ROWS: &[OpRow] = &[$({
            let (len, mask, mtch) = encoding($enc);
            OpRow {
                op: Op::$op,
                mnemonic: $mn,
                len,
                mask,
                mtch,
                arm: ar_fields($ar),
                imm: Imm::$imm,
                gate: Gate::$gate,
                class: Class::$class,
                ends: Ends::$ends,
                win: 0 $(+ $win)?,
            }
        }),*];
    };
}

// Columns as in `OpRow`; `win n` after a call gives its window increment.
rows! {
// op          mnemonic      encoding                     AR     immediate gate       class ends
Illegal        "(illegal)"   ""                           ""     Zero      Always     Alu   Block;
// SNM0 / CALLX (op0 = 0, op1 = 0, op2 = 0)
Ill            "ill"         "0 0 0 0 0 0"                ""     Zero      Always     Alu   Block;
Ret            "ret"         "0 0 0 - 8 0"                ""     Zero      Always     Alu   Block;
Retw           "retw"        "0 0 0 - 9 0"                ""     Zero      Windowed   Alu   Block;
Jx             "jx"          "0 0 0 - a 0"                "s"    Zero      Always     Alu   Block;
Callx0         "callx0"      "0 0 0 - c 0"                "s"    Zero      Always     Alu   Block;
Callx4         "callx4"      "0 0 0 - d 0"                "s"    Zero      Windowed   Alu   Block win 1;
Callx8         "callx8"      "0 0 0 - e 0"                "s"    Zero      Windowed   Alu   Block win 2;
Callx12        "callx12"     "0 0 0 - f 0"                "s"    Zero      Windowed   Alu   Block win 3;
Movsp          "movsp"       "0 0 1 - - 0"                "st"   Zero      Windowed   Alu   Block;
Isync          "isync"       "0 0 2 0 0 0"                ""     Zero      Always     Alu   No;
Rsync          "rsync"       "0 0 2 0 1 0"                ""     Zero      Always     Alu   No;
Esync          "esync"       "0 0 2 0 2 0"                ""     Zero      Always     Alu   No;
Dsync          "dsync"       "0 0 2 0 3 0"                ""     Zero      Always     Alu   No;
Excw           "excw"        "0 0 2 0 8 0"                ""     Zero      Always     Alu   No;
Memw           "memw"        "0 0 2 0 c 0"                ""     Zero      Always     Alu   No;
Extw           "extw"        "0 0 2 0 d 0"                ""     Zero      Always     Alu   No;
Nop            "nop"         "0 0 2 0 f 0"                ""     Zero      Always     Alu   No;
Rfe            "rfe"         "0 0 3 0 0 0"                ""     Zero      Always     Alu   Block;
Rfde           "rfde"        "0 0 3 2 0 0"                ""     Zero      Always     Alu   Block;
Rfwo           "rfwo"        "0 0 3 4 0 0"                ""     Zero      Windowed   Alu   Block;
Rfwu           "rfwu"        "0 0 3 5 0 0"                ""     Zero      Windowed   Alu   Block;
Rfi            "rfi"         "0 0 3 - 1 0"                ""     S         Always     Alu   Block;
Break          "break"       "0 0 4 - - 0"                ""     Zero      Always     Alu   Block;
Syscall        "syscall"     "0 0 5 0 0 0"                ""     Zero      Always     Alu   Block;
Simcall        "simcall"     "0 0 5 1 0 0"                ""     Zero      Always     Alu   Block;
Rsil           "rsil"        "0 0 6 - - 0"                "t"    S         Always     Alu   Block;
Waiti          "waiti"       "0 0 7 - 0 0"                ""     S         Always     Alu   Block;
Any4           "any4"        "0 0 8 xx00 - 0"             ""     Zero      Booleans   Alu   No;
All4           "all4"        "0 0 9 xx00 - 0"             ""     Zero      Booleans   Alu   No;
Any8           "any8"        "0 0 a x000 - 0"             ""     Zero      Booleans   Alu   No;
All8           "all8"        "0 0 b x000 - 0"             ""     Zero      Booleans   Alu   No;
// RST0 (op0 = 0, op1 = 0)
And            "and"         "1 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Or             "or"          "2 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Xor            "xor"         "3 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Ssr            "ssr"         "4 0 0 - 0 0"                "s"    Zero      Always     Alu   No;
Ssl            "ssl"         "4 0 1 - 0 0"                "s"    Zero      Always     Alu   No;
Ssa8l          "ssa8l"       "4 0 2 - 0 0"                "s"    Zero      Always     Alu   No;
Ssa8b          "ssa8b"       "4 0 3 - 0 0"                "s"    Zero      Always     Alu   No;
Ssai           "ssai"        "4 0 4 - 000x 0"             ""     Ssai      Always     Alu   No;
Rer            "rer"         "4 0 6 - - 0"                "st"   Zero      Always     Alu   No;
Wer            "wer"         "4 0 7 - - 0"                "st"   Zero      Always     Alu   Block;
Rotw           "rotw"        "4 0 8 0 - 0"                ""     Rotw      Windowed   Alu   Block;
Nsa            "nsa"         "4 0 e - - 0"                "st"   Zero      Nsa        Alu   No;
Nsau           "nsau"        "4 0 f - - 0"                "st"   Zero      Nsa        Alu   No;
Ritlb0         "ritlb0"      "5 0 3 - - 0"                "st"   Zero      Always     Alu   No;
Iitlb          "iitlb"       "5 0 4 - 0 0"                "s"    Zero      Always     Alu   Block;
Pitlb          "pitlb"       "5 0 5 - - 0"                "st"   Zero      Always     Alu   No;
Witlb          "witlb"       "5 0 6 - - 0"                "st"   Zero      Always     Alu   Block;
Ritlb1         "ritlb1"      "5 0 7 - - 0"                "st"   Zero      Always     Alu   No;
Rdtlb0         "rdtlb0"      "5 0 b - - 0"                "st"   Zero      Always     Alu   No;
Idtlb          "idtlb"       "5 0 c - 0 0"                "s"    Zero      Always     Alu   Block;
Pdtlb          "pdtlb"       "5 0 d - - 0"                "st"   Zero      Always     Alu   No;
Wdtlb          "wdtlb"       "5 0 e - - 0"                "st"   Zero      Always     Alu   Block;
Rdtlb1         "rdtlb1"      "5 0 f - - 0"                "st"   Zero      Always     Alu   No;
Neg            "neg"         "6 0 - 0 - 0"                "rt"   Zero      Always     Alu   No;
Abs            "abs"         "6 0 - 1 - 0"                "rt"   Zero      Always     Alu   No;
Add            "add"         "8 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Addx2          "addx2"       "9 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Addx4          "addx4"       "a 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Addx8          "addx8"       "b 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Sub            "sub"         "c 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Subx2          "subx2"       "d 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Subx4          "subx4"       "e 0 - - - 0"                "rst"  Zero      Always     Alu   No;
Subx8          "subx8"       "f 0 - - - 0"                "rst"  Zero      Always     Alu   No;
// RST1 (op1 = 1)
Slli           "slli"        "000x 1 - - - 0"             "rs"   Slli      Always     Alu   No;
Srai           "srai"        "001x 1 - - - 0"             "rt"   Srai      Always     Alu   No;
Srli           "srli"        "4 1 - - - 0"                "rt"   S         Always     Alu   No;
Xsr            "xsr"         "6 1 - - - 0"                "t"    Rs        SrSwap     Alu   Block;
Src            "src"         "8 1 - - - 0"                "rst"  Zero      Always     Alu   No;
Srl            "srl"         "9 1 - 0 - 0"                "rt"   Zero      Always     Alu   No;
Sll            "sll"         "a 1 - - 0 0"                "rs"   Zero      Always     Alu   No;
Sra            "sra"         "b 1 - 0 - 0"                "rt"   Zero      Always     Alu   No;
Mul16u         "mul16u"      "c 1 - - - 0"                "rst"  Zero      Mul16      Mul   No;
Mul16s         "mul16s"      "d 1 - - - 0"                "rst"  Zero      Mul16      Mul   No;
// RST2 (op1 = 2)
Andb           "andb"        "0 2 - - - 0"                ""     Zero      Booleans   Alu   No;
Andbc          "andbc"       "1 2 - - - 0"                ""     Zero      Booleans   Alu   No;
Orb            "orb"         "2 2 - - - 0"                ""     Zero      Booleans   Alu   No;
Orbc           "orbc"        "3 2 - - - 0"                ""     Zero      Booleans   Alu   No;
Xorb           "xorb"        "4 2 - - - 0"                ""     Zero      Booleans   Alu   No;
Saltu          "saltu"       "6 2 - - - 0"                "rst"  Zero      Lx         Alu   No;
Salt           "salt"        "7 2 - - - 0"                "rst"  Zero      Lx         Alu   No;
Mull           "mull"        "8 2 - - - 0"                "rst"  Zero      Mul32      Mul   No;
Muluh          "muluh"       "a 2 - - - 0"                "rst"  Zero      Mul32High  Mul   No;
Mulsh          "mulsh"       "b 2 - - - 0"                "rst"  Zero      Mul32High  Mul   No;
Quou           "quou"        "c 2 - - - 0"                "rst"  Zero      Div32      Div   No;
Quos           "quos"        "d 2 - - - 0"                "rst"  Zero      Div32      Div   No;
Remu           "remu"        "e 2 - - - 0"                "rst"  Zero      Div32      Div   No;
Rems           "rems"        "f 2 - - - 0"                "rst"  Zero      Div32      Div   No;
// RST3 (op1 = 3)
Rsr            "rsr"         "0 3 - - - 0"                "t"    Rs        SrRead     Alu   No;
Wsr            "wsr"         "1 3 - - - 0"                "t"    Rs        SrWrite    Alu   Block;
Sext           "sext"        "2 3 - - - 0"                "rs"   Zero      Sext       Alu   No;
Clamps         "clamps"      "3 3 - - - 0"                "rs"   Zero      Clamps     Alu   No;
Min            "min"         "4 3 - - - 0"                "rst"  Zero      Minmax     Alu   No;
Max            "max"         "5 3 - - - 0"                "rst"  Zero      Minmax     Alu   No;
Minu           "minu"        "6 3 - - - 0"                "rst"  Zero      Minmax     Alu   No;
Maxu           "maxu"        "7 3 - - - 0"                "rst"  Zero      Minmax     Alu   No;
Moveqz         "moveqz"      "8 3 - - - 0"                "rst"  Zero      Always     Alu   No;
Movnez         "movnez"      "9 3 - - - 0"                "rst"  Zero      Always     Alu   No;
Movltz         "movltz"      "a 3 - - - 0"                "rst"  Zero      Always     Alu   No;
Movgez         "movgez"      "b 3 - - - 0"                "rst"  Zero      Always     Alu   No;
Movf           "movf"        "c 3 - - - 0"                "rs"   Zero      Booleans   Alu   No;
Movt           "movt"        "d 3 - - - 0"                "rs"   Zero      Booleans   Alu   No;
Rur            "rur"         "e 3 - - - 0"                "r"    St        Ur         Alu   No;
Wur            "wur"         "f 3 - - - 0"                "t"    Rs        Ur         Alu   No;
// EXTUI (op1 = 4, 5), LSCX (op1 = 8), LSC4 (op1 = 9)
Extui          "extui"       "- 010x - - - 0"             "rt"   Extui     Always     Alu   No;
Lsx            "lsx"         "0 8 - - - 0"                "st"   Zero      Fpu        Alu   No;
Lsxp           "lsxp"        "1 8 - - - 0"                "st"   Zero      Fpu        Alu   No;
Ssx            "ssx"         "4 8 - - - 0"                "st"   Zero      Fpu        Alu   No;
Ssxp           "ssxp"        "5 8 - - - 0"                "st"   Zero      Fpu        Alu   No;
L32e           "l32e"        "0 9 - - - 0"                "st"   L32e      Windowed   Load  No;
S32e           "s32e"        "4 9 - - - 0"                "st"   L32e      Windowed   Alu   No;
S32nb          "s32nb"       "5 9 - - - 0"                "st"   R4        S32nb      Alu   No;
// FP0 (op1 = a). MUL.S at op2 = 2 is not in the S2 opcode listing we worked from [U].
AddS           "add.s"       "0 a - - - 0"                ""     Zero      Fpu        Alu   No;
SubS           "sub.s"       "1 a - - - 0"                ""     Zero      Fpu        Alu   No;
MulS           "mul.s"       "2 a - - - 0"                ""     Zero      Fpu        Alu   No;
MaddS          "madd.s"      "4 a - - - 0"                ""     Zero      Fpu        Alu   No;
MsubS          "msub.s"      "5 a - - - 0"                ""     Zero      Fpu        Alu   No;
MaddnS         "maddn.s"     "6 a - - - 0"                ""     Zero      Fpu        Alu   No;
DivnS          "divn.s"      "7 a - - - 0"                ""     Zero      Fpu        Alu   No;
RoundS         "round.s"     "8 a - - - 0"                "r"    Zero      Fpu        Alu   No;
TruncS         "trunc.s"     "9 a - - - 0"                "r"    Zero      Fpu        Alu   No;
FloorS         "floor.s"     "a a - - - 0"                "r"    Zero      Fpu        Alu   No;
CeilS          "ceil.s"      "b a - - - 0"                "r"    Zero      Fpu        Alu   No;
FloatS         "float.s"     "c a - - - 0"                "s"    Zero      Fpu        Alu   No;
UfloatS        "ufloat.s"    "d a - - - 0"                "s"    Zero      Fpu        Alu   No;
UtruncS        "utrunc.s"    "e a - - - 0"                "r"    Zero      Fpu        Alu   No;
MovS           "mov.s"       "f a - - 0 0"                ""     Zero      Fpu        Alu   No;
AbsS           "abs.s"       "f a - - 1 0"                ""     Zero      Fpu        Alu   No;
ConstS         "const.s"     "f a - - 3 0"                ""     Zero      Fpu        Alu   No;
Rfr            "rfr"         "f a - - 4 0"                "r"    Zero      Fpu        Alu   No;
Wfr            "wfr"         "f a - - 5 0"                "s"    Zero      Fpu        Alu   No;
NegS           "neg.s"       "f a - - 6 0"                ""     Zero      Fpu        Alu   No;
Div0S          "div0.s"      "f a - - 7 0"                ""     Zero      Fpu        Alu   No;
Recip0S        "recip0.s"    "f a - - 8 0"                ""     Zero      Fpu        Alu   No;
Sqrt0S         "sqrt0.s"     "f a - - 9 0"                ""     Zero      Fpu        Alu   No;
Rsqrt0S        "rsqrt0.s"    "f a - - a 0"                ""     Zero      Fpu        Alu   No;
Nexp01S        "nexp01.s"    "f a - - b 0"                ""     Zero      Fpu        Alu   No;
MksadjS        "mksadj.s"    "f a - - c 0"                ""     Zero      Fpu        Alu   No;
MkdadjS        "mkdadj.s"    "f a - - d 0"                ""     Zero      Fpu        Alu   No;
AddexpS        "addexp.s"    "f a - - e 0"                ""     Zero      Fpu        Alu   No;
AddexpmS       "addexpm.s"   "f a - - f 0"                ""     Zero      Fpu        Alu   No;
// FP1 (op1 = b)
UnS            "un.s"        "1 b - - - 0"                ""     Zero      Fpu        Alu   No;
OeqS           "oeq.s"       "2 b - - - 0"                ""     Zero      Fpu        Alu   No;
UeqS           "ueq.s"       "3 b - - - 0"                ""     Zero      Fpu        Alu   No;
OltS           "olt.s"       "4 b - - - 0"                ""     Zero      Fpu        Alu   No;
UltS           "ult.s"       "5 b - - - 0"                ""     Zero      Fpu        Alu   No;
OleS           "ole.s"       "6 b - - - 0"                ""     Zero      Fpu        Alu   No;
UleS           "ule.s"       "7 b - - - 0"                ""     Zero      Fpu        Alu   No;
MoveqzS        "moveqz.s"    "8 b - - - 0"                "t"    Zero      Fpu        Alu   No;
MovnezS        "movnez.s"    "9 b - - - 0"                "t"    Zero      Fpu        Alu   No;
MovltzS        "movltz.s"    "a b - - - 0"                "t"    Zero      Fpu        Alu   No;
MovgezS        "movgez.s"    "b b - - - 0"                "t"    Zero      Fpu        Alu   No;
MovfS          "movf.s"      "c b - - - 0"                ""     Zero      Fpu        Alu   No;
MovtS          "movt.s"      "d b - - - 0"                ""     Zero      Fpu        Alu   No;
// L32R (op0 = 1); LSAI (op0 = 2, r = opcode); LSCI (op0 = 3)
L32r           "l32r"        "- - - - - 1"                "t"    L32r      Always     Load  No;
L8ui           "l8ui"        "- - 0 - - 2"                "st"   U8        Always     Load  No;
L16ui          "l16ui"       "- - 1 - - 2"                "st"   U8x2      Always     Load  No;
L32i           "l32i"        "- - 2 - - 2"                "st"   U8x4      Always     Load  No;
S8i            "s8i"         "- - 4 - - 2"                "st"   U8        Always     Alu   No;
S16i           "s16i"        "- - 5 - - 2"                "st"   U8x2      Always     Alu   No;
S32i           "s32i"        "- - 6 - - 2"                "st"   U8x4      Always     Alu   No;
L16si          "l16si"       "- - 9 - - 2"                "st"   U8x2      Always     Load  No;
Movi           "movi"        "- - a - - 2"                "t"    Movi      Always     Alu   No;
L32ai          "l32ai"       "- - b - - 2"                "st"   U8x4      L32ai      Load  No;
Addi           "addi"        "- - c - - 2"                "st"   Addi      Always     Alu   No;
Addmi          "addmi"       "- - d - - 2"                "st"   Addmi     Always     Alu   No;
S32c1i         "s32c1i"      "- - e - - 2"                "st"   U8x4      S32c1i     Alu   No;
S32ri          "s32ri"       "- - f - - 2"                "st"   U8x4      L32ai      Alu   No;
Lsi            "lsi"         "- - 0 - - 3"                "s"    U8x4      Fpu        Alu   No;
Ssi            "ssi"         "- - 4 - - 3"                "s"    U8x4      Fpu        Alu   No;
Lsip           "lsip"        "- - 8 - - 3"                "s"    U8x4      Fpu        Alu   No;
Ssip           "ssip"        "- - c - - 3"                "s"    U8x4      Fpu        Alu   No;
// MAC16 (op0 = 4): op1 = {kind, half} with kind 0 UMUL, 1 MUL, 2 MULA, 3 MULS; fixed zero bits
// of r = {0, mx, 0, 0} and t = {0, my, 0, 0} as in S2 libisa.
UmulAa         "umul.aa"     "7 00xx 0 - - 4"             "st"   Mac16     Mac16      Alu   No;
MulAa          "mul.aa"      "7 01xx 0 - - 4"             "st"   Mac16     Mac16      Alu   No;
MulaAa         "mula.aa"     "7 10xx 0 - - 4"             "st"   Mac16     Mac16      Alu   No;
MulsAa         "muls.aa"     "7 11xx 0 - - 4"             "st"   Mac16     Mac16      Alu   No;
MulAd          "mul.ad"      "3 01xx 0 - 0x00 4"          "s"    Mac16     Mac16      Alu   No;
MulaAd         "mula.ad"     "3 10xx 0 - 0x00 4"          "s"    Mac16     Mac16      Alu   No;
MulsAd         "muls.ad"     "3 11xx 0 - 0x00 4"          "s"    Mac16     Mac16      Alu   No;
MulDa          "mul.da"      "6 01xx 0x00 0 - 4"          "t"    Mac16     Mac16      Alu   No;
MulaDa         "mula.da"     "6 10xx 0x00 0 - 4"          "t"    Mac16     Mac16      Alu   No;
MulsDa         "muls.da"     "6 11xx 0x00 0 - 4"          "t"    Mac16     Mac16      Alu   No;
MulDd          "mul.dd"      "2 01xx 0x00 0 0x00 4"       ""     Mac16     Mac16      Alu   No;
MulaDd         "mula.dd"     "2 10xx 0x00 0 0x00 4"       ""     Mac16     Mac16      Alu   No;
MulsDd         "muls.dd"     "2 11xx 0x00 0 0x00 4"       ""     Mac16     Mac16      Alu   No;
MulaDaLdinc    "mula.da"     "4 10xx 0xxx - - 4"          "st"   Mac16     Mac16      Alu   No;
MulaDaLddec    "mula.da"     "5 10xx 0xxx - - 4"          "st"   Mac16     Mac16      Alu   No;
MulaDdLdinc    "mula.dd"     "0 10xx 0xxx - 0x00 4"       "s"    Mac16     Mac16      Alu   No;
MulaDdLddec    "mula.dd"     "1 10xx 0xxx - 0x00 4"       "s"    Mac16     Mac16      Alu   No;
Ldinc          "ldinc"       "8 0 00xx - 0 4"             "s"    Mac16     Mac16      Alu   No;
Lddec          "lddec"       "9 0 00xx - 0 4"             "s"    Mac16     Mac16      Alu   No;
// CALL (op0 = 5, n = t[1:0])
Call0          "call0"       "- - - - xx00 5"             ""     Call      Always     Alu   Block;
Call4          "call4"       "- - - - xx01 5"             ""     Call      Windowed   Alu   Block win 1;
Call8          "call8"       "- - - - xx10 5"             ""     Call      Windowed   Alu   Block win 2;
Call12         "call12"      "- - - - xx11 5"             ""     Call      Windowed   Alu   Block win 3;
// SI (op0 = 6, t = {m, n})
J              "j"           "- - - - xx00 6"             ""     J         Always     Alu   Block;
Beqz           "beqz"        "- - - - 1 6"                "s"    B12       Always     Alu   Branch;
Bnez           "bnez"        "- - - - 5 6"                "s"    B12       Always     Alu   Branch;
Bltz           "bltz"        "- - - - 9 6"                "s"    B12       Always     Alu   Branch;
Bgez           "bgez"        "- - - - d 6"                "s"    B12       Always     Alu   Branch;
Beqi           "beqi"        "- - - - 2 6"                "s"    B8        Always     Alu   Branch;
Bnei           "bnei"        "- - - - 6 6"                "s"    B8        Always     Alu   Branch;
Blti           "blti"        "- - - - a 6"                "s"    B8        Always     Alu   Branch;
Bgei           "bgei"        "- - - - e 6"                "s"    B8        Always     Alu   Branch;
Bltui          "bltui"       "- - - - b 6"                "s"    B8        Always     Alu   Branch;
Bgeui          "bgeui"       "- - - - f 6"                "s"    B8        Always     Alu   Branch;
Entry          "entry"       "- - - - 3 6"                "s"    Entry     Windowed   Alu   No;
Bf             "bf"          "- - 0 - 7 6"                ""     B8        Booleans   Alu   Branch;
Bt             "bt"          "- - 1 - 7 6"                ""     B8        Booleans   Alu   Branch;
Loop           "loop"        "- - 8 - 7 6"                "s"    Loop      Loops      Alu   Block;
Loopnez        "loopnez"     "- - 9 - 7 6"                "s"    Loop      Loops      Alu   Block;
Loopgtz        "loopgtz"     "- - a - 7 6"                "s"    Loop      Loops      Alu   Block;
// B (op0 = 7, r = opcode)
Bnone          "bnone"       "- - 0 - - 7"                "st"   B8        Always     Alu   Branch;
Beq            "beq"         "- - 1 - - 7"                "st"   B8        Always     Alu   Branch;
Blt            "blt"         "- - 2 - - 7"                "st"   B8        Always     Alu   Branch;
Bltu           "bltu"        "- - 3 - - 7"                "st"   B8        Always     Alu   Branch;
Ball           "ball"        "- - 4 - - 7"                "st"   B8        Always     Alu   Branch;
Bbc            "bbc"         "- - 5 - - 7"                "st"   B8        Always     Alu   Branch;
Bbci           "bbci"        "- - 011x - - 7"             "s"    B8        Always     Alu   Branch;
Bany           "bany"        "- - 8 - - 7"                "st"   B8        Always     Alu   Branch;
Bne            "bne"         "- - 9 - - 7"                "st"   B8        Always     Alu   Branch;
Bge            "bge"         "- - a - - 7"                "st"   B8        Always     Alu   Branch;
Bgeu           "bgeu"        "- - b - - 7"                "st"   B8        Always     Alu   Branch;
Bnall          "bnall"       "- - c - - 7"                "st"   B8        Always     Alu   Branch;
Bbs            "bbs"         "- - d - - 7"                "st"   B8        Always     Alu   Branch;
Bbsi           "bbsi"        "- - 111x - - 7"             "s"    B8        Always     Alu   Branch;
// Narrow (op0 = 8..d): r s t op0
L32iN          "l32i.n"      "- - - 8"                    "st"   R4        Always     Load  No;
S32iN          "s32i.n"      "- - - 9"                    "st"   R4        Always     Alu   No;
AddN           "add.n"       "- - - a"                    "rst"  Zero      Always     Alu   No;
AddiN          "addi.n"      "- - - b"                    "rs"   AddiN     Always     Alu   No;
MoviN          "movi.n"      "- - 0xxx c"                 "s"    MoviN     Always     Alu   No;
BeqzN          "beqz.n"      "- - 10xx c"                 "s"    BNarrow   Always     Alu   Branch;
BnezN          "bnez.n"      "- - 11xx c"                 "s"    BNarrow   Always     Alu   Branch;
MovN           "mov.n"       "0 - - d"                    "st"   Zero      Always     Alu   No;
RetN           "ret.n"       "f 0 0 d"                    ""     Zero      Always     Alu   Block;
RetwN          "retw.n"      "f 0 1 d"                    ""     Zero      Windowed   Alu   Block;
BreakN         "break.n"     "f - 2 d"                    ""     S         Always     Alu   Block;
NopN           "nop.n"       "f 0 3 d"                    ""     Zero      Always     Alu   No;
IllN           "ill.n"       "f 0 6 d"                    ""     Zero      Always     Alu   Block;
// ESP32-S3 PIE: decoded through `pie::decode_pie`.
Ee             "ee"          ""                           ""     Zero      Always     Alu   No;
}

// Each `Op` finds its row by its number.
const _: () = {
    assert!(ROWS.len() == Op::Ee as usize + 1);
    let mut i = 0;
    while i < ROWS.len() {
        assert!(ROWS[i].op as usize == i, "ROWS must be in Op order");
        i += 1;
    }
};

/// The row of an operation.
#[inline]
pub(crate) fn row(op: Op) -> &'static OpRow {
    &ROWS[op as usize]
}

impl OpRow {
    /// The instruction this row decodes `w` (masked to the row's length) at `pc` into.
    fn insn(&self, w: u32, pc: u32) -> Insn {
        let nib = |lo: u32| (w >> lo) & 0xF;
        let mut insn = Insn::new(
            self.op,
            self.len,
            nib(12),
            nib(8),
            nib(4),
            self.arm,
            self.imm.value(w, pc),
        );
        insn.pane = insn.pane.max(self.win);
        insn
    }
}

/// A node of the decoding tree: a switch on the nibble at `shift`, whose 16 children start at
/// `first`, or the one row (index into `ROWS`) the words that reach it may match.
#[derive(Clone, Copy)]
enum Node {
    Switch { shift: u8, first: u32 },
    Leaf(Option<u16>),
}

/// The decoding tree over all rows with an encoding, built on first use: it switches on nibbles
/// until one row is left, so `decode` reads a few nodes and tests one mask, not every row.
fn tree() -> &'static [Node] {
    static TREE: OnceLock<Vec<Node>> = OnceLock::new();
    TREE.get_or_init(|| {
        let rows: Vec<u16> = (0..ROWS.len() as u16)
            .filter(|&i| ROWS[i as usize].len != 0)
            .collect();
        let mut nodes = vec![Node::Leaf(None)];
        grow(&mut nodes, 0, rows, 0);
        nodes
    })
}

/// Fill node `at` with a switch over `rows` on the nibble (not in `used`, a bit per nibble) that
/// the most of them fix, or with a leaf when at most one row is left.
fn grow(nodes: &mut Vec<Node>, at: usize, rows: Vec<u16>, used: u32) {
    let nibble_mask = |i: u16, n: u32| (ROWS[i as usize].mask >> (4 * n)) & 0xF;
    let best = (0..6u32).filter(|n| used & (1 << n) == 0).max_by_key(|&n| {
        let full = rows.iter().filter(|&&i| nibble_mask(i, n) == 0xF).count();
        let some = rows.iter().filter(|&&i| nibble_mask(i, n) != 0).count();
        (full, some, std::cmp::Reverse(n))
    });
    let splits = best.is_some_and(|n| rows.iter().any(|&i| nibble_mask(i, n) != 0));
    match best {
        Some(n) if rows.len() > 1 && splits => {
            let first = nodes.len();
            nodes.extend([Node::Leaf(None); 16]);
            nodes[at] = Node::Switch {
                shift: (4 * n) as u8,
                first: first as u32,
            };
            for v in 0..16u32 {
                let child: Vec<u16> = rows
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let r = &ROWS[i as usize];
                        v & nibble_mask(i, n) == (r.mtch >> (4 * n)) & 0xF
                    })
                    .collect();
                grow(nodes, first + v as usize, child, used | 1 << n);
            }
        }
        // Rows no nibble tells apart overlap: the table must not have them (a test checks).
        _ => nodes[at] = Node::Leaf(rows.first().copied()),
    }
}

/// The row whose encoding `w` (masked to `len` bytes) matches, if any.
#[inline]
fn find(w: u32, len: u8) -> Option<&'static OpRow> {
    let tree = tree();
    let mut at = 0;
    loop {
        match tree[at] {
            Node::Switch { shift, first } => at = first as usize + ((w >> shift) & 0xF) as usize,
            Node::Leaf(i) => {
                let r = &ROWS[i? as usize];
                return (r.len == len && w & r.mask == r.mtch).then_some(r);
            }
        }
    }
}

/// Decode `w`, already masked to `len` bytes, at `pc` with this table: `None` for words outside
/// it or outside the configuration.
pub(crate) fn decode_core(w: u32, len: u8, pc: u32, cfg: &XtensaConfig) -> Option<Insn> {
    let r = find(w, len)?;
    let insn = r.insn(w, pc);
    r.gate.allows(cfg, insn.imm).then_some(insn)
}

#[cfg(test)]
#[path = "isa_tests.rs"]
mod tests;
