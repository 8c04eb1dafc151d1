//! Cycle model of the Cortex-M cores: a cost per instruction, computed once per basic block from its
//! capstone decode, plus the dynamic terms the run loop adds (taken branches, divide operands, memory
//! stalls). Figures come from the primary source named at each use (Arm TRMs, vendor manuals, published
//! measurements); where no source gives a figure the value is marked ASSUMPTION. docs/cycle-model.md
//! explains the model.

use capstone::arch::arm::{ArmOperandType, ArmReg, ArmShift};
use capstone::arch::ArchOperand;
use capstone::{Capstone, Insn, RegAccessType};
use tigris_targets::CoreKind;

use crate::CoreError;

/// What an instruction does, as far as timing is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Alu,
    /// Shifted-register or other data processing that the M7/M33 cannot pair freely.
    Mul,
    MulLong,
    Div,
    Load,
    Store,
    /// LDRD/STRD.
    LoadStoreDouble,
    /// LDM/STM/PUSH/POP with this many registers.
    Multiple(u8),
    /// B, BL, BX, BLX (any unconditional change of flow by a branch instruction).
    Branch,
    /// B<cc>, CBZ, CBNZ.
    CondBranch,
    TableBranch,
    It,
    Barrier,
    SysReg,
    Nop,
    Wfi,
    Svc,
    Bkpt,
    FpSimple,
    FpMac,
    FpDiv,
    FpSqrt,
    /// Double-precision multiply, multiply-accumulate, divide and square root (FPv5-D16 on the M7).
    FpDoubleMul,
    FpDoubleMac,
    FpDoubleDiv,
    FpDoubleSqrt,
    FpLoad {
        double: bool,
    },
    FpMultiple {
        regs: u8,
        double: bool,
    },
    FpMovePair,
    Undefined,
}

/// One decoded instruction with the facts the model needs.
#[derive(Debug, Clone)]
pub(crate) struct Decoded {
    pub addr: u32,
    pub len: u32,
    pub class: Class,
    /// Registers written (r0-r15 as 0-15).
    pub writes: u16,
    /// Registers read as data.
    pub reads: u16,
    /// Registers used to form a memory address.
    pub addr_regs: u16,
    /// Base register of the memory operand, if the instruction has one.
    pub base: Option<u8>,
    pub writes_pc: bool,
    /// BL/BLX: control continues at the target and returns after this instruction.
    pub is_call: bool,
    /// BX LR, POP {..PC}, LDR PC,[SP],#4, LDM SP!,{..PC}: a function return.
    pub is_return: bool,
    /// Register-offset store (cannot pipeline).
    pub reg_offset: bool,
    /// Byte or halfword load (LDRB/LDRSB/LDRH/LDRSH and their T forms).
    pub narrow: bool,
    /// Immediate offset of a memory operand without an index register.
    pub offset: Option<i32>,
    /// Accumulator registers of a multiply-accumulate (Ra of MLA/SMLAxy, RdLo/RdHi of SMLAL).
    pub acc: u16,
    /// The data an instruction that reads memory reads, recomputable from the registers before it
    /// executes.
    pub data_read: Option<DataRead>,
    pub text: String,
}

/// The bytes a load (LDR*, LDM/POP, VLDR/VLDM/VPOP, TBB/TBH) reads: `bytes` from its address, or
/// below it for the decrementing forms (LDMDB, VLDMDB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DataRead {
    pub base: u8,
    /// Index register, left shift, subtracted.
    pub index: Option<(u8, u8, bool)>,
    pub disp: i32,
    pub bytes: u32,
    pub downward: bool,
}

impl DataRead {
    /// The bytes `[start, end)` read, given the registers as they are before the instruction
    /// executes (`reg(n)`), for the instruction at `pc` (the PC reads as its Thumb value).
    pub fn range(&self, pc: u32, reg: impl Fn(u8) -> u32) -> (u32, u32) {
        // The PC reads 4 ahead, word-aligned as a literal base (ARMv7-M ARM A5.1.2, A7.7.43), not
        // as TBB/TBH's base (A7.7.182).
        let base = match (self.base, self.index) {
            (15, None) => (pc + 4) & !3,
            (15, Some(_)) => pc + 4,
            (r, _) => reg(r),
        };
        let offset = match self.index {
            Some((r, shift, subtracted)) => {
                let v = reg(r) << shift;
                if subtracted {
                    v.wrapping_neg()
                } else {
                    v
                }
            }
            None => self.disp as u32,
        };
        let at = base.wrapping_add(offset);
        if self.downward {
            (at.wrapping_sub(self.bytes), at)
        } else {
            (at, at.wrapping_add(self.bytes))
        }
    }
}

/// The register number (0-15) of a capstone ARM register id, if it is one of R0-R12, SP, LR, PC.
pub(super) fn reg_index(id: u16) -> Option<u8> {
    let id = id as u32;
    match id {
        _ if (ArmReg::ARM_REG_R0..=ArmReg::ARM_REG_R12).contains(&id) => {
            Some((id - ArmReg::ARM_REG_R0) as u8)
        }
        ArmReg::ARM_REG_SP => Some(13),
        ArmReg::ARM_REG_LR => Some(14),
        ArmReg::ARM_REG_PC => Some(15),
        _ => None,
    }
}

fn bit(r: Option<u8>) -> u16 {
    r.map(|r| 1u16 << r).unwrap_or(0)
}

fn class_of(name: &str, list_len: u8, double_fp: bool) -> Class {
    let base = name.split('.').next().unwrap_or(name);
    match base {
        "mul" | "mla" | "mls" | "smulbb" | "smulbt" | "smultb" | "smultt" | "smulwb" | "smulwt"
        | "smlabb" | "smlabt" | "smlatb" | "smlatt" | "smlawb" | "smlawt" | "smlad" | "smladx"
        | "smlsd" | "smlsdx" | "smmul" | "smmulr" | "smmla" | "smmlar" | "smmls" | "smmlsr"
        | "smuad" | "smuadx" | "smusd" | "smusdx" => Class::Mul,
        "smull" | "umull" | "smlal" | "umlal" | "umaal" | "smlalbb" | "smlalbt" | "smlaltb"
        | "smlaltt" | "smlald" | "smlaldx" | "smlsld" | "smlsldx" => Class::MulLong,
        "sdiv" | "udiv" => Class::Div,
        "ldr" | "ldrb" | "ldrh" | "ldrsb" | "ldrsh" | "ldrt" | "ldrbt" | "ldrht" | "ldrsbt"
        | "ldrsht" | "ldrex" | "ldrexb" | "ldrexh" | "lda" | "ldab" | "ldah" | "ldaex" => {
            Class::Load
        }
        "str" | "strb" | "strh" | "strt" | "strbt" | "strht" | "strex" | "strexb" | "strexh"
        | "stl" | "stlb" | "stlh" | "stlex" => Class::Store,
        "ldrd" | "strd" | "ldrexd" | "strexd" => Class::LoadStoreDouble,
        "ldm" | "ldmia" | "ldmdb" | "stm" | "stmia" | "stmdb" | "push" | "pop" => {
            Class::Multiple(list_len)
        }
        "b" | "bl" | "bx" | "blx" | "bxns" | "blxns" => Class::Branch,
        "cbz" | "cbnz" => Class::CondBranch,
        "tbb" | "tbh" => Class::TableBranch,
        "it" => Class::It,
        "dmb" | "dsb" | "isb" => Class::Barrier,
        "mrs" | "msr" | "cpsid" | "cpsie" => Class::SysReg,
        "nop" | "yield" | "sev" | "dbg" | "pld" | "pli" | "clrex" => Class::Nop,
        "wfi" | "wfe" => Class::Wfi,
        "svc" => Class::Svc,
        "bkpt" => Class::Bkpt,
        "udf" => Class::Undefined,
        "vmul" | "vnmul" if double_fp => Class::FpDoubleMul,
        "vmla" | "vmls" | "vnmla" | "vnmls" | "vfma" | "vfms" | "vfnma" | "vfnms" if double_fp => {
            Class::FpDoubleMac
        }
        "vdiv" if double_fp => Class::FpDoubleDiv,
        "vsqrt" if double_fp => Class::FpDoubleSqrt,
        "vmla" | "vmls" | "vnmla" | "vnmls" | "vfma" | "vfms" | "vfnma" | "vfnms" => Class::FpMac,
        "vdiv" => Class::FpDiv,
        "vsqrt" => Class::FpSqrt,
        "vldr" | "vstr" => Class::FpLoad { double: double_fp },
        "vldm" | "vldmia" | "vldmdb" | "vstm" | "vstmia" | "vstmdb" | "vpush" | "vpop" => {
            Class::FpMultiple {
                regs: list_len,
                double: double_fp,
            }
        }
        _ if base.starts_with('v') => Class::FpSimple,
        _ => Class::Alu,
    }
}

/// The disassembler for a core: Thumb, M-profile; on the M7 and M33 with the ARMv8 feature set too,
/// without which capstone decodes no double-precision VFP (FPv5) instruction.
pub(crate) fn disassembler(kind: CoreKind) -> Result<Capstone, capstone::Error> {
    use capstone::arch::arm::{ArchExtraMode, ArchMode};
    use capstone::arch::BuildsCapstone;
    use capstone::arch::BuildsCapstoneExtraMode;
    let v8 = matches!(kind, CoreKind::CortexM7 | CoreKind::CortexM33);
    let modes: &[ArchExtraMode] = if v8 {
        &[ArchExtraMode::MClass, ArchExtraMode::V8]
    } else {
        &[ArchExtraMode::MClass]
    };
    Capstone::new()
        .arm()
        .mode(ArchMode::Thumb)
        .extra_mode(modes.iter().copied())
        .detail(true)
        .build()
}

/// Each instruction of the Thumb `code` at `addr` as the timing model sees it on `kind`: its
/// disassembly and its static cost in cycles (after the instruction before it). Bytes capstone
/// cannot decode end the list.
pub fn price_code(kind: CoreKind, code: &[u8], addr: u32) -> Result<Vec<(String, u32)>, CoreError> {
    let cs = disassembler(kind)?;
    let Ok(insns) = cs.disasm_all(code, addr as u64) else {
        return Ok(Vec::new());
    };
    let decoded: Vec<Decoded> = insns.iter().map(|insn| decode(&cs, insn)).collect();
    let costs = block_costs(kind, &decoded);
    Ok(decoded.into_iter().map(|d| d.text).zip(costs).collect())
}

/// Static cost of each instruction of a basic block, in order; they sum to the block's cost. The
/// M7 runs the block through its dual-issue scheduler (`schedule_m7`); the other cores price each
/// instruction after the one before it, the M33 pairing two 16-bit ones.
pub(crate) fn block_costs(kind: CoreKind, insns: &[Decoded]) -> Vec<u32> {
    if kind == CoreKind::CortexM7 {
        return schedule_m7(insns);
    }
    let mut costs = Vec::with_capacity(insns.len());
    let mut paired = false;
    for (i, d) in insns.iter().enumerate() {
        // The second instruction of a dual-issued pair cannot pair again with the next one.
        let prev = if paired {
            None
        } else {
            i.checked_sub(1).map(|j| &insns[j])
        };
        let c = cost(kind, d, prev);
        paired = kind == CoreKind::CortexM33 && c == 0 && prev.is_some();
        costs.push(c);
    }
    if matches!(kind, CoreKind::CortexM3 | CoreKind::CortexM4) {
        for (i, extra) in unaligned_wide_stalls(insns) {
            costs[i] += extra;
        }
    }
    costs
}

/// Fetch stalls of runs of 32-bit instructions that sit on odd halfwords (each straddles two fetch
/// words): a run of three or more costs one extra cycle, a run of only stores from four on
/// (compendium.i-0.nl "Instruction alignment: rules", measured on a Cortex-M4 running from flash,
/// following eprint.iacr.org/2025/523). ASSUMPTION: one cycle per run however long, charged to its
/// last instruction (the page says mixed runs "can cause more than one").
fn unaligned_wide_stalls(insns: &[Decoded]) -> Vec<(usize, u32)> {
    let unaligned_wide = |d: &Decoded| d.len == 4 && d.addr % 4 == 2;
    let mut stalls = Vec::new();
    let mut start = 0;
    while start < insns.len() {
        if !unaligned_wide(&insns[start]) {
            start += 1;
            continue;
        }
        let end = start
            + insns[start..]
                .iter()
                .take_while(|d| unaligned_wide(d))
                .count();
        let run = &insns[start..end];
        let need = if run.iter().all(|d| d.class == Class::Store) {
            4
        } else {
            3
        };
        if run.len() >= need {
            stalls.push((end - 1, 1));
        }
        start = end;
    }
    stalls
}

/// Whether a block entered by a taken branch starts with a 32-bit instruction on an odd halfword:
/// the M3/M4 need a second fetch before it can decode, one more cycle of refill
/// (compendium.i-0.nl "Instruction alignment: rules": "branches to unaligned wide instructions take
/// one extra cycle"; M4 TRM §3.3.1: P depends "on the alignment and width of the target").
pub(crate) fn unaligned_wide_target(kind: CoreKind, first: Option<&Decoded>) -> bool {
    matches!(kind, CoreKind::CortexM3 | CoreKind::CortexM4)
        && first.is_some_and(|d| d.len == 4 && d.addr % 4 == 2)
}

/// Decode one instruction into the facts the timing model needs.
pub(crate) fn decode(cs: &Capstone, insn: &Insn) -> Decoded {
    let name = cs.insn_name(insn.id()).unwrap_or_default();
    let mnemonic = insn.mnemonic().unwrap_or("");
    let text = format!("{} {}", mnemonic, insn.op_str().unwrap_or(""))
        .trim()
        .to_string();
    let (mut writes, mut reads, mut addr_regs) = (0u16, 0u16, 0u16);
    let mut list_len = 0u8;
    let mut double_fp = false;
    let mut reg_offset = false;
    let mut offset = None;
    let mut base = None;
    let mut index = None;
    let mut regs_in_order = Vec::new();
    if let Ok(detail) = cs.insn_detail(insn) {
        for r in detail.regs_write() {
            writes |= bit(reg_index(r.0));
        }
        for r in detail.regs_read() {
            reads |= bit(reg_index(r.0));
        }
        for op in detail.arch_detail().operands() {
            let ArchOperand::ArmOperand(op) = op else {
                continue;
            };
            match op.op_type {
                ArmOperandType::Reg(r) => {
                    list_len += 1;
                    let name = cs.reg_name(r).unwrap_or_default();
                    if name.starts_with('d') {
                        double_fp = true;
                    }
                    let idx = reg_index(r.0);
                    regs_in_order.push(idx);
                    match op.access {
                        Some(RegAccessType::WriteOnly) => writes |= bit(idx),
                        Some(RegAccessType::ReadWrite) => {
                            writes |= bit(idx);
                            reads |= bit(idx)
                        }
                        _ => reads |= bit(idx),
                    }
                }
                ArmOperandType::Mem(m) => {
                    addr_regs |= bit(reg_index(m.base().0)) | bit(reg_index(m.index().0));
                    base = reg_index(m.base().0);
                    if m.index().0 != 0 {
                        reg_offset = true;
                        let shift = match op.shift {
                            ArmShift::Lsl(n) => n as u8,
                            _ => 0,
                        };
                        index = reg_index(m.index().0).map(|r| (r, shift, op.subtracted));
                    } else {
                        offset = Some(m.disp());
                    }
                }
                _ => {}
            }
        }
    }
    let mut class = class_of(&name, list_len, double_fp);
    if class == Class::Branch && is_conditional(mnemonic) {
        class = Class::CondBranch;
    }
    if name == "vmov" && regs_in_order.iter().filter(|r| r.is_some()).count() >= 2 {
        class = Class::FpMovePair; // VMOV between two core registers and FP registers
    }
    let writes_pc = writes & (1 << 15) != 0
        || matches!(
            class,
            Class::Branch | Class::CondBranch | Class::TableBranch
        );
    let is_call = matches!(name.as_str(), "bl" | "blx" | "blxns");
    let narrow = class == Class::Load && name.starts_with("ldr") && {
        let size = name.trim_start_matches("ldr").trim_start_matches('s');
        size.starts_with('b') || size.starts_with('h')
    };
    // Multiply-accumulates name their accumulator last (MLA Rd, Rn, Rm, Ra); long ones read and
    // write RdLo/RdHi.
    let acc = match class {
        Class::Mul if regs_in_order.len() == 4 => bit(regs_in_order[3]),
        Class::MulLong => reads & writes,
        _ => 0,
    };
    let first_reg = regs_in_order.first().copied().flatten();
    let data_read = data_read(
        &name,
        class,
        base.or(first_reg),
        index,
        offset.unwrap_or(0),
        narrow,
    );
    let is_return = (name == "bx" && regs_in_order.first() == Some(&Some(14)))
        || (writes_pc
            && matches!(class, Class::Multiple(_))
            && (name == "pop" || addr_regs == 1 << 13))
        || (writes_pc && class == Class::Load && addr_regs == 1 << 13);
    Decoded {
        addr: insn.address() as u32,
        len: insn.len() as u32,
        class,
        writes: writes & !(1 << 15) | if writes_pc { 1 << 15 } else { 0 },
        reads,
        addr_regs,
        base,
        writes_pc,
        is_call,
        is_return,
        reg_offset,
        narrow,
        offset,
        acc,
        data_read,
        text,
    }
}

/// What an instruction named `name` reads from memory (`Decoded::data_read`), `base` being its
/// memory operand's base or else its first register (an LDM's); POP-style forms use SP.
fn data_read(
    name: &str,
    class: Class,
    base: Option<u8>,
    index: Option<(u8, u8, bool)>,
    disp: i32,
    narrow: bool,
) -> Option<DataRead> {
    let (bytes, downward) = match class {
        Class::Load if narrow => (if name.contains('h') { 2 } else { 1 }, false),
        Class::Load => (4, false),
        Class::LoadStoreDouble if name.starts_with("ldr") => (8, false),
        // LDM names its base among its registers.
        Class::Multiple(n) if name.starts_with("ldm") => (4 * (n as u32 - 1), name == "ldmdb"),
        Class::Multiple(n) if name == "pop" => (4 * n as u32, false),
        Class::FpLoad { double } if name == "vldr" => (if double { 8 } else { 4 }, false),
        Class::FpMultiple { regs, double } if name.starts_with("vldm") || name == "vpop" => {
            (regs as u32 * if double { 8 } else { 4 }, name == "vldmdb")
        }
        Class::TableBranch => (if name == "tbh" { 2 } else { 1 }, false),
        _ => return None,
    };
    let base = match name {
        "pop" | "vpop" => 13,
        _ => base?,
    };
    let index = match (class, index) {
        (Class::TableBranch, Some((r, _, _))) => Some((r, u8::from(name == "tbh"), false)),
        _ => index,
    };
    Some(DataRead {
        base,
        index,
        disp,
        bytes,
        downward,
    })
}

/// Whether a branch mnemonic carries a condition code (`beq`, `bne.w`, ...).
pub(crate) fn is_conditional(mnemonic: &str) -> bool {
    const CONDS: [&str; 16] = [
        "eq", "ne", "hs", "cs", "lo", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt",
        "le",
    ];
    let m = mnemonic.trim_end_matches(".w").trim_end_matches(".n");
    m.len() == 3 && m.starts_with('b') && CONDS.contains(&&m[1..])
}

/// Condition code of a conditional branch, evaluated on the APSR flags (ARMv7-M ARM A7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Condition(u8);

impl Condition {
    /// The condition of a `b<cc>` mnemonic at the start of `text`.
    pub fn of(text: &str) -> Option<Condition> {
        const NAMES: [&str; 14] = [
            "eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le",
        ];
        let m = text
            .split_whitespace()
            .next()?
            .trim_end_matches(".w")
            .trim_end_matches(".n");
        let cc = m.strip_prefix('b')?;
        let cc = match cc {
            "cs" => "hs",
            "cc" => "lo",
            other => other,
        };
        NAMES
            .iter()
            .position(|n| *n == cc)
            .map(|i| Condition(i as u8))
    }

    pub fn holds(self, apsr: u32) -> bool {
        let (n, z, c, v) = (
            apsr >> 31 & 1 == 1,
            apsr >> 30 & 1 == 1,
            apsr >> 29 & 1 == 1,
            apsr >> 28 & 1 == 1,
        );
        match self.0 {
            0 => z,
            1 => !z,
            2 => c,
            3 => !c,
            4 => n,
            5 => !n,
            6 => v,
            7 => !v,
            8 => c && !z,
            9 => !c || z,
            10 => n == v,
            11 => n != v,
            12 => !z && n == v,
            _ => z || n != v,
        }
    }
}

/// Whether a branch's target is the instruction right after it (taken or not, the next block is the
/// same, so only the flags tell).
pub(crate) fn branch_to_next(d: &Decoded) -> bool {
    let target = d
        .text
        .rsplit('#')
        .next()
        .and_then(|t| u32::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok());
    target == Some(d.addr + d.len)
}

/// Pipeline refill after a taken branch instruction (B, BL, BX, B<cc> taken, CBZ taken).
/// Cortex-M4 TRM r0p1 §3.3.1 Table 3-1: P = 1..3 "depending on the alignment and width of the target
/// instruction, and whether the processor manages to speculate the address early". M3/M4: P = 1 to
/// an aligned or 16-bit target (jnk0le/random "pipeline cycle test" CM3_pipetest_tmpl.S, measured on
/// an STM32F103 and an STM32F407: a taken `bne.w` back to a word-aligned 32-bit instruction takes 2
/// cycles); a 32-bit target on an odd halfword adds one (`unaligned_wide_target`). M0+ (Cortex-M0+
/// TRM, Arm DDI 0484): taken B<cc> = 2, so P = 1. M33 (jnk0le/random "pipeline cycle test"
/// doc/cortex_m33.md, measured on an RP2350): taken branch 2 cycles, so P = 1.
pub(crate) const BRANCH_REFILL: u32 = 1;

/// Refill when the PC is loaded from memory or written by data processing: the address is known
/// late, so no early speculation. M4 TRM §3.3.2: "LDR PC,[any] ... >= 2 (load) + 3 (refill)".
fn late_refill(kind: CoreKind) -> u32 {
    match kind {
        CoreKind::CortexM0Plus => 1, // Cortex-M0+ TRM (DDI 0484): POP {PC} 3+N on M0+ = (1+N) + 2, MOV PC 2
        CoreKind::CortexM33 => 1,
        _ => 3,
    }
}

/// Fixed cost of the branch mispredict on the M7 (jnk0le/random "pipeline cycle test", measured on an
/// STM32H743: "branch mispredict ~8 cycles").
pub(crate) const M7_MISPREDICT: u32 = 8;

/// Cycles of exception entry and return, charged by the exception model.
/// ASSUMPTION (widely published Arm figures, not yet checked against an Arm TRM): interrupt latency 12
/// cycles on M3/M4/M7/M33 and 15 on M0+; return 10 cycles (M0+: 12).
pub(crate) fn exception_entry_cycles(kind: CoreKind) -> u32 {
    if kind == CoreKind::CortexM0Plus {
        15
    } else {
        12
    }
}

pub(crate) fn exception_return_cycles(kind: CoreKind) -> u32 {
    if kind == CoreKind::CortexM0Plus {
        12
    } else {
        10
    }
}

/// Cycles from the end of one handler to the first instruction of a tail-chained one.
/// ASSUMPTION (the same published Arm figures): 6 on M3/M4/M7/M33, which skip unstacking and
/// stacking and only fetch the vector; M0+ the same.
pub(crate) fn tail_chain_cycles(_kind: CoreKind) -> u32 {
    6
}

/// Static cost of a divide the simulator cannot see the operands of (code that was not in the
/// ELF's executable segments). ASSUMPTION: 7, the middle of the TRM's 2-12 range.
pub(crate) const DIV_UNKNOWN_OPERANDS: u32 = 7;

/// Divide cost from its operands. M4 TRM r0p1 §3.3.1 Table 3-1: SDIV/UDIV take 2 to 12 cycles
/// "depending on the operand values" (early termination). ASSUMPTION on the shape: 2 cycles plus one cycle per 3.2
/// quotient bits, so a 0-bit quotient (divisor > dividend, or divide by zero) costs 2 and a full
/// 32-bit quotient costs 12.
pub fn divide_cycles(dividend: u32, divisor: u32, signed: bool) -> u32 {
    let (n, d) = if signed {
        (
            (dividend as i32).unsigned_abs(),
            (divisor as i32).unsigned_abs(),
        )
    } else {
        (dividend, divisor)
    };
    if d == 0 || n < d {
        return 2;
    }
    let quotient_bits = (32 - n.leading_zeros()) - (32 - d.leading_zeros()) + 1;
    2 + (quotient_bits * 10).div_ceil(32)
}

/// Cost of `cur` in cycles on `kind`, given the instruction before it in the same block.
/// Branch costs here are for the not-taken / fall-through case of conditional branches and the
/// taken case of unconditional ones; the run loop adds the taken-branch refill of conditional ones.
pub(crate) fn cost(kind: CoreKind, cur: &Decoded, prev: Option<&Decoded>) -> u32 {
    match kind {
        CoreKind::CortexM0Plus => cost_m0plus(cur),
        CoreKind::CortexM7 => schedule_m7(std::slice::from_ref(cur))[0],
        CoreKind::CortexM33 => cost_m33(cur, prev),
        _ => cost_m3_m4(kind, cur, prev),
    }
}

/// Cortex-M0+ (Cortex-M0+ TRM, Arm DDI 0484; TI MSPM0G TRM SLAU846A; RP2040 datasheet §2.4.3.3): two-stage
/// pipeline, no load pipelining, single-cycle multiplier (RP2040).
fn cost_m0plus(cur: &Decoded) -> u32 {
    let p = BRANCH_REFILL;
    match cur.class {
        Class::Load | Class::Store | Class::LoadStoreDouble => {
            2 + if cur.writes_pc {
                late_refill(CoreKind::CortexM0Plus) + 1
            } else {
                0
            }
        }
        Class::Multiple(n) => 1 + n as u32 + if cur.writes_pc { 2 } else { 0 }, // POP{..,PC} = 3+N
        Class::Branch if cur.is_call => 3,                                      // BL 3
        Class::Branch => 1 + p,                                                 // B, BX, BLX 2
        Class::CondBranch => 1,                                                 // +1 when taken
        Class::SysReg => 3,
        Class::Barrier => 3,
        Class::Wfi => 2,
        _ if cur.writes_pc => 2, // MOV PC / ADD PC
        _ => 1,
    }
}

/// Cortex-M3/M4 (Cortex-M4 TRM r0p1 §3.3.1 Table 3-1, §3.3.2, Table 7-1; Cortex-M3 TRM DDI 0337I p.3-9;
/// jnk0le/random "pipeline cycle test" measurements on an STM32F103 and an STM32F407).
fn cost_m3_m4(kind: CoreKind, cur: &Decoded, prev: Option<&Decoded>) -> u32 {
    let p = BRANCH_REFILL;
    let prev_is_store = prev.is_some_and(|q| matches!(q.class, Class::Store));
    // "Load/store whose address depends on the immediately preceding data-processing result stalls
    // 1 cycle" (M4 TRM §3.3.2).
    let addr_dep_alu = prev.is_some_and(|q| {
        matches!(q.class, Class::Alu | Class::Mul) && q.writes & cur.addr_regs != 0
    });
    let addr_stall = u32::from(addr_dep_alu);
    match cur.class {
        Class::Load => {
            if cur.writes_pc {
                return 2 + late_refill(kind);
            }
            // Stores cannot pipeline with a following load: +1 (jnk0le/random "pipeline cycle test",
            // measured on an STM32F103 and an STM32F407).
            (if m4_load_pipelines(cur, prev) { 1 } else { 2 })
                + u32::from(prev_is_store)
                + addr_stall
        }
        Class::Store => {
            // STR Rx,[Ry,#imm] is one cycle through the write buffer; register offset is 2 (M4 TRM
            // §3.3.2; jnk0le/random "pipeline cycle test" on an STM32F103 and an STM32F407).
            (if cur.reg_offset { 2 } else { 1 }) + addr_stall
        }
        Class::LoadStoreDouble => 3,
        Class::Multiple(n) => 1 + n as u32 + if cur.writes_pc { late_refill(kind) } else { 0 },
        Class::Mul => 1,
        Class::MulLong if kind == CoreKind::CortexM3 => 4, // M3 long multiply 3-5: ASSUMPTION 4
        Class::MulLong => 1,
        Class::Div => 2, // plus the operand-dependent part added when it executes
        Class::Branch => 1 + p,
        Class::CondBranch => 1,
        Class::TableBranch => 2 + 1 + late_refill(kind), // M4 TRM §3.3.2: TBB/TBH >= 2 + 1 + 3
        // IT folds onto a preceding 16-bit instruction (M4 TRM §3.3.1 Table 3-1).
        Class::It => u32::from(prev.is_none_or(|q| q.len != 2)),
        Class::Barrier => 4, // 1 + B; ASSUMPTION B = 3 (no pending writes to drain)
        Class::SysReg => 2,  // "1 or 2": ASSUMPTION 2
        Class::Wfi => 2,
        Class::FpSimple => 1,
        Class::FpMac => 3,
        Class::FpDiv | Class::FpSqrt => 14,
        Class::FpLoad { double } => {
            if double {
                3
            } else {
                2
            }
        }
        Class::FpMultiple { regs, double } => 1 + regs as u32 * if double { 2 } else { 1 },
        Class::FpMovePair => 2,
        _ if cur.writes_pc => 1 + late_refill(kind),
        _ => 1,
    }
}

/// Whether an M3/M4 load pipelines behind the load before it, saving a cycle (M4 TRM §3.3.2): the
/// address must not use the previous load's result or its written-back base (jnk0le/random
/// "pipeline cycle test" doc/cortex_m3m4.md: pre/post-indexed loads do not chain on one base), and a
/// 32-bit load on an odd halfword does not (TRM Table 3-1 footnote b and jnk0le: it "may fail to
/// pipeline"; ASSUMPTION: it never does). The loads must also reach the same memory block, which only
/// the run knows: the core charges the cycle saved here when they do not (`CortexM` data hook).
pub(crate) fn m4_load_pipelines(cur: &Decoded, prev: Option<&Decoded>) -> bool {
    cur.class == Class::Load
        && !cur.writes_pc
        && !(cur.len == 4 && cur.addr % 4 == 2)
        && prev.is_some_and(|q| {
            q.class == Class::Load && !q.writes_pc && q.writes & cur.addr_regs == 0
        })
}

/// Cortex-M33 (jnk0le/random "pipeline cycle test" doc/cortex_m33.md, measured on an RP2350):
/// single-issue except that two 16-bit instructions can dual-issue;
/// load-to-use latency 2; LDRD/STRD 2; LDM/STM one cycle per register.
fn cost_m33(cur: &Decoded, prev: Option<&Decoded>) -> u32 {
    let load_use =
        prev.is_some_and(|q| q.class == Class::Load && q.writes & (cur.reads | cur.addr_regs) != 0);
    let base = match cur.class {
        Class::Load | Class::Store if cur.writes_pc => 1 + 2,
        Class::Load | Class::Store => 1,
        Class::LoadStoreDouble => 2,
        Class::Multiple(n) => (n as u32).max(1) + if cur.writes_pc { 1 } else { 0 },
        Class::Branch => 2,
        Class::CondBranch => 1,
        Class::TableBranch => 4,
        Class::Div => 2,
        Class::Barrier => 4,
        Class::SysReg => 2,
        Class::FpMac => 1,
        Class::FpDiv | Class::FpSqrt => 14,
        Class::FpLoad { double: true } => 2,
        Class::FpLoad { double: false } => 1,
        Class::FpMultiple { regs, double } => regs as u32 * if double { 2 } else { 1 },
        _ => 1,
    } + u32::from(load_use);
    if m33_dual_issues(prev, cur) {
        0
    } else {
        base
    }
}

/// Cycles an M7 instruction occupies the pipeline when issued alone (jnk0le/random "pipeline cycle
/// test" doc/cortex_m7.md, measured on an STM32H743; Arm publishes no cycle table): LDM/STM in
/// ceil(regs/2), branches predicted (mispredicts added at run time).
fn m7_occupancy(d: &Decoded) -> u32 {
    match d.class {
        Class::Multiple(n) => (n as u32).div_ceil(2).max(1),
        Class::TableBranch => 3,
        Class::Div => 2,
        Class::Barrier => 4,
        Class::SysReg => 2,
        Class::FpDiv => 16,
        Class::FpSqrt => 14,
        // Double precision (jnk0le, STM32H743): vmul.f64 5, vfma.f64 7 (6 when chained, not
        // modelled), vdiv.f64 30 cycles; vadd/vsub.f64 1 like single precision.
        // ASSUMPTION: vsqrt.f64 28, twice vsqrt.f32 as vdiv.f64 is about twice vdiv.f32.
        Class::FpDoubleMul => 5,
        Class::FpDoubleMac => 7,
        Class::FpDoubleDiv => 30,
        Class::FpDoubleSqrt => 28,
        Class::FpMultiple { regs, double } => {
            (regs as u32 * if double { 2 } else { 1 }).div_ceil(2)
        }
        _ => 1,
    }
}

/// Cortex-M7 in-order dual issue over one block (jnk0le/random "pipeline cycle test"
/// doc/cortex_m7.md, STM32H743; dual issue and branch prediction also in AnandTech's Cortex-M7
/// launch article). Each instruction issues in the first cycle its operands are ready, as the
/// younger of a pair when `m7_pairs` allows and the cycle has one slot left. Result latencies
/// (cycles after issue until a consumer may issue):
/// - ALU results: 1 to anything;
/// - word loads: 1 to the late ALU, 2 to an address, a multiplicand or a shifted operand (they are
///   read a cycle earlier, in the early ALU / AGU stage); byte and halfword loads one more
///   ("1 extra cycle of result latency");
/// - multiplies and MACs: 2 ("1 additional cycle of result latency"), but a MAC reads its
///   accumulator a stage later, so MACs chain on it every cycle.
///
/// ASSUMPTION: DSP/bitfield restrictions, FP latencies and the early-ALU forwarding cases are not
/// modelled; results of multi-cycle instructions are ready when they end. Returns each
/// instruction's cost: how far it moves the end of the block's schedule.
fn schedule_m7(insns: &[Decoded]) -> Vec<u32> {
    // Cycle at which each register can be read late (ALU operand) and early (address,
    // multiplicand, shifted operand).
    let mut late = [0u32; 16];
    let mut early = [0u32; 16];
    let (mut cycle, mut slots_used, mut end) = (0u32, 0u8, 0u32);
    let mut older: Option<&Decoded> = None;
    let mut costs = Vec::with_capacity(insns.len());
    let ready = |regs: u16, table: &[u32; 16], bias: u32| {
        (0..16)
            .filter(|r| regs & (1 << r) != 0)
            .map(|r| table[r].saturating_sub(bias))
            .max()
            .unwrap_or(0)
    };
    for d in insns {
        let occupancy = m7_occupancy(d);
        let multiplies = matches!(d.class, Class::Mul | Class::MulLong);
        let early_regs = d.addr_regs | if multiplies { d.reads & !d.acc } else { 0 };
        let operands = ready(d.reads & !early_regs & !d.acc, &late, 0)
            .max(ready(early_regs, &early, 0))
            .max(ready(d.acc, &late, 1));
        let pairs = slots_used == 1
            && occupancy == 1
            && operands <= cycle
            && older.is_some_and(|o| m7_pairs(o, d));
        let issue = if pairs {
            slots_used = 2;
            cycle
        } else {
            let free = if slots_used == 0 { cycle } else { cycle + 1 };
            cycle = free.max(operands);
            slots_used = 1;
            older = Some(d);
            cycle
        };
        if occupancy > 1 {
            // A multi-cycle instruction pairs with nothing and holds the pipeline.
            cycle = issue + occupancy - 1;
            slots_used = 2;
        }
        let (to_late, to_early) = match d.class {
            Class::Load if d.narrow => (2, 3),
            Class::Load => (1, 2),
            Class::Mul | Class::MulLong => (2, 2),
            _ => (occupancy, occupancy),
        };
        for r in 0..15 {
            if d.writes & (1 << r) != 0 {
                late[r] = issue + to_late;
                early[r] = issue + to_early;
            }
        }
        let new_end = end.max(issue + occupancy);
        costs.push(new_end - end);
        end = new_end;
    }
    costs
}

/// Whether `cur` can issue as the younger of a pair with `older` on the M7 (jnk0le/random
/// "pipeline cycle test" doc/cortex_m7.md, STM32H743): both single-cycle simple instructions, or a
/// branch as the younger ("not-taken branch can dual issue", a loop of 20 instructions with its
/// branch runs in 10 cycles); no two stores, no two multiplies, no multiply with a store; two loads
/// only to different banks (even and odd words): with one base register and known offsets the
/// banks are known, otherwise ASSUMPTION: different banks; no register written by both.
fn m7_pairs(older: &Decoded, cur: &Decoded) -> bool {
    let simple = |d: &Decoded| {
        matches!(
            d.class,
            Class::Alu
                | Class::Load
                | Class::Store
                | Class::Mul
                | Class::MulLong
                | Class::FpSimple
                | Class::Nop
        ) && !d.writes_pc
    };
    let branch = matches!(cur.class, Class::Branch | Class::CondBranch) && !cur.is_call;
    if !simple(older) || !(simple(cur) || branch) {
        return false;
    }
    let multiply = |d: &Decoded| matches!(d.class, Class::Mul | Class::MulLong);
    let (o, c) = (older.class, cur.class);
    if (o == Class::Store && c == Class::Store)
        || (multiply(older) && multiply(cur))
        || (multiply(older) && c == Class::Store)
        || (o == Class::Store && multiply(cur))
    {
        return false;
    }
    if o == Class::Load && c == Class::Load && older.base == cur.base {
        if let (Some(a), Some(b)) = (older.offset, cur.offset) {
            if (a >> 2 ^ b >> 2) & 1 == 0 {
                return false;
            }
        }
    }
    older.writes & !(1 << 15) & cur.writes == 0
}

/// Whether `cur` issues in the same cycle as `prev` on the M33: both 16-bit (jnk0le, RP2350).
/// ASSUMPTION: a pair needs no register dependency, at most one memory access, no multi-cycle or
/// flow-changing first instruction, and no barrier/system/FP-multi-cycle instruction.
fn m33_dual_issues(prev: Option<&Decoded>, cur: &Decoded) -> bool {
    let Some(prev) = prev else { return false };
    if prev.len != 2 || cur.len != 2 {
        return false;
    }
    let simple = |d: &Decoded| {
        matches!(
            d.class,
            Class::Alu | Class::Load | Class::Store | Class::Mul | Class::FpSimple | Class::Nop
        ) && !d.writes_pc
    };
    let memory = |d: &Decoded| matches!(d.class, Class::Load | Class::Store);
    if !simple(prev) || !(simple(cur) || (cur.class == Class::Branch && !cur.is_call)) {
        return false;
    }
    if memory(prev) && memory(cur) && !(prev.class == Class::Load && cur.class == Class::Store) {
        return false; // as on the M7: no two stores; two loads need different banks (ASSUMPTION: never)
    }
    if prev.class == Class::Mul && cur.class == Class::Mul {
        return false;
    }
    let prev_writes = prev.writes & !(1 << 15);
    prev_writes & (cur.reads | cur.addr_regs | cur.writes) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Any Thumb halfword pair decodes into timing facts and a price on every core, without a
        /// panic, whether capstone takes it as one instruction, two or none.
        #[test]
        fn any_thumb_bytes_decode_and_price(bytes in proptest::prelude::any::<[u8; 4]>()) {
            for kind in [CoreKind::CortexM0Plus, CoreKind::CortexM4, CoreKind::CortexM7, CoreKind::CortexM33] {
                for (text, cycles) in price_code(kind, &bytes, 0x100).unwrap() {
                    proptest::prop_assert!(cycles < 1000, "{text}: {cycles}");
                }
            }
        }
    }

    #[test]
    fn conditions_follow_the_flags() {
        let nzcv = |n: u32, z: u32, c: u32, v: u32| n << 31 | z << 30 | c << 29 | v << 28;
        assert!(Condition::of("beq #0x10").unwrap().holds(nzcv(0, 1, 0, 0)));
        assert!(!Condition::of("bne.w #0x10")
            .unwrap()
            .holds(nzcv(0, 1, 0, 0)));
        assert!(Condition::of("bhi #0x10").unwrap().holds(nzcv(0, 0, 1, 0)));
        assert!(Condition::of("blt #0x10").unwrap().holds(nzcv(1, 0, 0, 0)));
        assert!(Condition::of("bcc #0x10").unwrap().holds(nzcv(0, 0, 0, 0)));
        assert!(Condition::of("bl #0x10").is_none());
    }

    #[test]
    fn divide_cost_spans_the_trm_range() {
        assert_eq!(divide_cycles(5, 7, false), 2);
        assert_eq!(divide_cycles(5, 0, false), 2);
        assert_eq!(divide_cycles(0xFFFF_FFFF, 1, false), 12);
        assert_eq!(divide_cycles(100, 7, false), 4); // 3 quotient bits... 7 bits - 3 bits + 1 = 5 -> 2 + 2
        assert_eq!(divide_cycles(-100i32 as u32, 7, true), 4);
    }

    /// FPv5-D16 double-precision arithmetic gets the M7's double-precision costs, single precision
    /// keeps its own.
    #[test]
    fn m7_prices_double_precision_apart_from_single() {
        let cs = disassembler(CoreKind::CortexM7).unwrap();
        let cost_of = |bytes: [u8; 4]| {
            let insns = cs.disasm_all(&bytes, 0x100).unwrap();
            cost(
                CoreKind::CortexM7,
                &decode(&cs, insns.iter().next().unwrap()),
                None,
            )
        };
        // vdiv.f64 d0, d1, d2; vdiv.f32 s0, s1, s2; vmul.f64 d0, d1, d2; vfma.f64 d0, d1, d2;
        // vsqrt.f64 d0, d1; vadd.f64 d0, d1, d2
        assert_eq!(cost_of([0x81, 0xee, 0x02, 0x0b]), 30);
        assert_eq!(cost_of([0x80, 0xee, 0x81, 0x0a]), 16);
        assert_eq!(cost_of([0x21, 0xee, 0x02, 0x0b]), 5);
        assert_eq!(cost_of([0xa1, 0xee, 0x02, 0x0b]), 7);
        assert_eq!(cost_of([0xb1, 0xee, 0xc1, 0x0b]), 28);
        assert_eq!(cost_of([0x31, 0xee, 0x02, 0x0b]), 1);
    }
}
