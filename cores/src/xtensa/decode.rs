//! Instruction decoder for the LX106 / LX6 / LX7 core ISA (24-bit and 16-bit narrow forms), read
//! from the table in `isa`; the ESP32-S3 PIE opcodes (24-bit op0 0/4 and 32-bit format_32) are
//! decoded through `pie::decode_pie`.
//!
//! Field layouts, opcode values and immediate decoders follow source S2, the GNU libisa tables
//! (xtensa-modules.c; the source tags are listed in the `xtensa` module docs). Targets of PC-relative
//! instructions are resolved at decode time, so `decode` takes the instruction's address.

use super::config::{XtensaConfig, XtensaCore};
use super::isa::{self, Class, Ends};

/// Operation of a decoded instruction. `Illegal` marks words outside the configuration.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    Illegal,
    // SNM0 / CALLX (op0=0, op1=0, op2=0, r=0)
    Ill,
    Ret,
    Retw,
    Jx,
    Callx0,
    Callx4,
    Callx8,
    Callx12,
    Movsp,
    Isync,
    Rsync,
    Esync,
    Dsync,
    Excw,
    Memw,
    Extw,
    Nop,
    Rfe,
    Rfde,
    Rfwo,
    Rfwu,
    Rfi,
    Break,
    Syscall,
    Simcall,
    Rsil,
    Waiti,
    Any4,
    All4,
    Any8,
    All8,
    And,
    Or,
    Xor,
    Ssr,
    Ssl,
    Ssa8l,
    Ssa8b,
    Ssai,
    Rer,
    Wer,
    Rotw,
    Nsa,
    Nsau,
    Ritlb0,
    Iitlb,
    Pitlb,
    Witlb,
    Ritlb1,
    Rdtlb0,
    Idtlb,
    Pdtlb,
    Wdtlb,
    Rdtlb1,
    Neg,
    Abs,
    Add,
    Addx2,
    Addx4,
    Addx8,
    Sub,
    Subx2,
    Subx4,
    Subx8,
    Slli,
    Srai,
    Srli,
    Xsr,
    Src,
    Srl,
    Sll,
    Sra,
    Mul16u,
    Mul16s,
    Andb,
    Andbc,
    Orb,
    Orbc,
    Xorb,
    Saltu,
    Salt,
    Mull,
    Muluh,
    Mulsh,
    Quou,
    Quos,
    Remu,
    Rems,
    Rsr,
    Wsr,
    Sext,
    Clamps,
    Min,
    Max,
    Minu,
    Maxu,
    Moveqz,
    Movnez,
    Movltz,
    Movgez,
    Movf,
    Movt,
    Rur,
    Wur,
    Extui,
    Lsx,
    Lsxp,
    Ssx,
    Ssxp,
    L32e,
    S32e,
    S32nb,
    // FP0 / FP1 (op1 = A / B)
    AddS,
    SubS,
    MulS,
    MaddS,
    MsubS,
    MaddnS,
    DivnS,
    RoundS,
    TruncS,
    FloorS,
    CeilS,
    FloatS,
    UfloatS,
    UtruncS,
    MovS,
    AbsS,
    ConstS,
    Rfr,
    Wfr,
    NegS,
    Div0S,
    Recip0S,
    Sqrt0S,
    Rsqrt0S,
    Nexp01S,
    MksadjS,
    MkdadjS,
    AddexpS,
    AddexpmS,
    UnS,
    OeqS,
    UeqS,
    OltS,
    UltS,
    OleS,
    UleS,
    MoveqzS,
    MovnezS,
    MovltzS,
    MovgezS,
    MovfS,
    MovtS,
    // op0 = 1..3
    L32r,
    L8ui,
    L16ui,
    L32i,
    S8i,
    S16i,
    S32i,
    L16si,
    Movi,
    L32ai,
    Addi,
    Addmi,
    S32c1i,
    S32ri,
    Lsi,
    Ssi,
    Lsip,
    Ssip,
    // MAC16 (op0 = 4, S2 libisa)
    UmulAa,
    MulAa,
    MulaAa,
    MulsAa,
    MulAd,
    MulaAd,
    MulsAd,
    MulDa,
    MulaDa,
    MulsDa,
    MulDd,
    MulaDd,
    MulsDd,
    MulaDaLdinc,
    MulaDaLddec,
    MulaDdLdinc,
    MulaDdLddec,
    Ldinc,
    Lddec,
    // op0 = 5..7
    Call0,
    Call4,
    Call8,
    Call12,
    J,
    Beqz,
    Bnez,
    Bltz,
    Bgez,
    Beqi,
    Bnei,
    Blti,
    Bgei,
    Bltui,
    Bgeui,
    Entry,
    Bf,
    Bt,
    Loop,
    Loopnez,
    Loopgtz,
    Bnone,
    Beq,
    Blt,
    Bltu,
    Ball,
    Bbc,
    Bbci,
    Bany,
    Bne,
    Bge,
    Bgeu,
    Bnall,
    Bbs,
    Bbsi,
    // narrow (op0 = 8..D)
    L32iN,
    S32iN,
    AddN,
    AddiN,
    MoviN,
    BeqzN,
    BnezN,
    MovN,
    RetN,
    RetwN,
    BreakN,
    NopN,
    IllN,
    /// ESP32-S3 PIE (S2 libisa): `r` = index into `pie::defs()`, `s`/`t` = the AR nibbles
    /// w[11:8]/w[7:4], `imm` = the whole instruction word.
    Ee,
}

/// Fields of a decoded instruction.
///
/// `r`, `s`, `t` are the raw nibbles (register numbers for register operands). `imm` holds the decoded
/// immediate: an absolute target for branches/jumps/calls/loops, the signed offset for L32R, the byte
/// offset for loads/stores, the SR/UR number for RSR/WSR/XSR/RUR/WUR, and packed MAC16 operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// C layout with `op` first: the engine's dispatch reads it with the shortest encoding (no
// displacement), which keeps the hot dispatch sequence short. 16 bytes in all.
#[repr(C)]
pub struct Insn {
    pub op: Op,
    /// Length in bytes (2, 3, or 4 for an ESP32-S3 PIE format_32 word).
    pub len: u8,
    pub r: u8,
    pub s: u8,
    pub t: u8,
    /// Highest 4-register pane of the AR operands named (for the window overflow check, S3 QEMU
    /// win_helper.c).
    pub pane: u8,
    /// Static cost in cycles (filled in by the block builder; 0 from `decode`).
    pub cost: u8,
    /// Which fields name AR registers: bit 0 = r, bit 1 = s, bit 2 = t.
    pub arm: u8,
    pub imm: u32,
    /// Position in its decoded block (filled in by the block builder; 0 from `decode`): the sum of
    /// `cost` over the block's instructions up to and including this one, so the engine adds a
    /// block's cycles once at its exit instead of once per instruction.
    pub cum_cost: u16,
    /// Index of the instruction in its block (the instruction count at an exit after it is `idx + 1`).
    pub idx: u8,
    /// Byte offset from the block's start PC (the PC is computed only where an instruction needs it).
    pub off: u8,
}

pub(crate) const AR_R: u8 = 1;
pub(crate) const AR_S: u8 = 2;
pub(crate) const AR_T: u8 = 4;

/// Branch offset constants B4CONST / B4CONSTU (S2 libisa).
pub const B4CONST: [i32; 16] = [-1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256];
pub const B4CONSTU: [u32; 16] = [
    32768, 65536, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256,
];

/// Instruction length from the first byte (S2 libisa): op0 0–7 → 3, 8–D → 2, E–F → 4 on S3 (PIE).
#[inline]
pub fn insn_len(b0: u8, cfg: &XtensaConfig) -> u8 {
    match b0 & 0xF {
        0..=7 => 3,
        8..=0xD => 2,
        _ => {
            if cfg.core == XtensaCore::Esp32s3 {
                4
            } else {
                3
            }
        }
    }
}

impl Insn {
    pub(crate) fn new(op: Op, len: u8, r: u32, s: u32, t: u32, arm: u8, imm: u32) -> Insn {
        let mut pane = 0u8;
        if arm & AR_R != 0 {
            pane = pane.max(r as u8 >> 2);
        }
        if arm & AR_S != 0 {
            pane = pane.max(s as u8 >> 2);
        }
        if arm & AR_T != 0 {
            pane = pane.max(t as u8 >> 2);
        }
        Insn {
            op,
            len,
            r: r as u8,
            s: s as u8,
            t: t as u8,
            pane,
            cost: 0,
            arm,
            imm,
            cum_cost: 0,
            idx: 0,
            off: 0,
        }
    }

    /// The illegal-instruction marker of a given length.
    pub fn illegal(len: u8) -> Insn {
        Insn {
            op: Op::Illegal,
            len,
            r: 0,
            s: 0,
            t: 0,
            pane: 0,
            cost: 0,
            arm: 0,
            imm: 0,
            cum_cost: 0,
            idx: 0,
            off: 0,
        }
    }

    /// True for instructions after which a decoded block must end (control flow, state that changes
    /// how following instructions execute, or exceptions).
    pub fn ends_block(&self) -> bool {
        isa::row(self.op).ends != Ends::No
    }

    /// True for the conditional branches (they fall through when not taken).
    pub fn is_conditional_branch(&self) -> bool {
        isa::row(self.op).ends == Ends::Branch
    }

    /// True for instructions that may set LEND: LOOP, LOOPNEZ, LOOPGTZ and WSR/XSR.LEND (SR 1).
    pub fn may_move_lend(&self) -> bool {
        use Op::*;
        matches!(self.op, Loop | Loopnez | Loopgtz)
            || (matches!(self.op, Wsr | Xsr) && self.imm == 1)
    }

    /// True for loads that write the AR in the t field (used for the load-use interlock).
    pub fn is_ar_load(&self) -> bool {
        isa::row(self.op).class == Class::Load
    }

    /// True if this instruction names AR register `t`-numbered `reg` in one of its AR fields.
    pub fn names_ar(&self, reg: u8) -> bool {
        (self.arm & AR_R != 0 && self.r == reg)
            || (self.arm & AR_S != 0 && self.s == reg)
            || (self.arm & AR_T != 0 && self.t == reg)
    }
}

/// Decode the instruction word `w` (little-endian bytes, up to 4) found at address `pc`: the core
/// ISA table first, then (on the ESP32-S3) the PIE table; the illegal marker when neither has it.
pub fn decode(w: u32, pc: u32, cfg: &XtensaConfig) -> Insn {
    let len = insn_len(w as u8, cfg);
    let w = w & (u32::MAX >> (32 - 8 * len as u32));
    isa::decode_core(w, len, pc, cfg)
        .or_else(|| {
            (cfg.core == XtensaCore::Esp32s3)
                .then(|| super::pie::decode_pie(w, len))
                .flatten()
        })
        .unwrap_or(Insn::illegal(len))
}

/// Packed MAC16 operand fields in `Insn::imm`: bits 1:0 half (0 LL, 1 HL, 2 LH, 3 HH),
/// bits 5:4 mx (0/1), bits 9:8 my (2/3), bits 13:12 mw (S2 libisa).
pub fn mac_fields(imm: u32) -> (u32, usize, usize, usize) {
    (
        imm & 3,
        ((imm >> 4) & 3) as usize,
        ((imm >> 8) & 3) as usize,
        ((imm >> 12) & 3) as usize,
    )
}

/// Kind of special-register access.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SrAccess {
    R,
    W,
    X,
}

/// Access restrictions on special registers (S2 libisa; INTERRUPT/INTCLEAR as in S3 QEMU [Q]):
/// INTCLEAR (227) is write-only; read-only ones: PRID (235), CONFIGID0/1 (176/208). INTERRUPT (226)
/// reads pending, writes INTSET; XSR is not allowed on it.
pub(crate) fn sr_access_ok(sr: u32, acc: SrAccess) -> bool {
    match sr {
        227 => acc == SrAccess::W,
        226 => acc != SrAccess::X,
        235 | 176 | 208 => acc == SrAccess::R,
        _ => true,
    }
}
