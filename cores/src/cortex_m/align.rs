//! Unaligned-access UsageFaults on ARMv7-M and ARMv8-M Mainline (ARMv7-M ARM A3.2.2, B3.2.8):
//! with CCR.UNALIGN_TRP set, a halfword or word load or store to an address that is not a
//! multiple of its size is an UNALIGNED UsageFault; LDM/STM/PUSH/POP, LDRD/STRD, the exclusives
//! and the VFP loads and stores fault on an address that is not word-aligned whatever
//! UNALIGN_TRP says. The fault is precise: the instruction does not execute.
//!
//! Unicorn's QEMU performs unaligned accesses on these cores (it enforces alignment only on
//! ARMv6-M, where every access must be aligned, and the core takes that as its HardFault). Once the
//! firmware sets UNALIGN_TRP, the core hooks every instruction and checks the effective address
//! of each load and store before it executes (decoded once per address with capstone), so only
//! firmware that asks for the trap pays for it. The always-aligned instructions are checked only
//! while that hook is installed.

use capstone::arch::arm::{ArmOperandType, ArmShift};
use capstone::arch::ArchOperand;
use capstone::Capstone;

use super::timing::reg_index;

/// How a load or store instruction forms its address, and the alignment it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemOp {
    /// Base register (0-15).
    base: u8,
    /// Index register and its left shift, and whether it is subtracted.
    index: Option<(u8, u32, bool)>,
    disp: i32,
    /// Bytes the address must be a multiple of.
    align: u32,
    /// Whether the instruction needs that alignment whatever CCR.UNALIGN_TRP says.
    always: bool,
}

/// The access an instruction's mnemonic makes: (alignment, always required), or None for one
/// that needs no alignment (bytes) or is not a data access. Mnemonics as capstone gives them,
/// with the `.w`/`.n` width and condition suffixes removed by the caller.
fn access_of(mnemonic: &str) -> Option<(u32, bool)> {
    let m = mnemonic;
    if m.starts_with("ldrex") || m.starts_with("strex") {
        return Some(match &m[5..] {
            "b" => return None,
            "h" => (2, true),
            _ => (4, true),
        });
    }
    if m.starts_with("ldm") || m.starts_with("stm") || m == "push" || m == "pop" {
        return Some((4, true));
    }
    if m.starts_with("vldr")
        || m.starts_with("vstr")
        || m.starts_with("vldm")
        || m.starts_with("vstm")
        || m == "vpush"
        || m == "vpop"
    {
        return Some((4, true));
    }
    match m {
        "ldrd" | "strd" => Some((4, true)),
        "ldr" | "str" | "ldrt" | "strt" => Some((4, false)),
        "ldrh" | "strh" | "ldrsh" | "ldrht" | "strht" | "ldrsht" => Some((2, false)),
        _ => None,
    }
}

/// Decode the instruction at `addr` (its bytes in `code`): its address form, if it is a load or
/// store that needs alignment.
pub(crate) fn decode(cs: &Capstone, code: &[u8], addr: u32) -> Option<MemOp> {
    let list = cs.disasm_count(code, addr as u64, 1).ok()?;
    let insn = list.iter().next()?;
    let mnemonic = insn.mnemonic()?;
    let base_name = mnemonic.split('.').next().unwrap_or(mnemonic);
    // IT blocks give conditional mnemonics (`ldrne`): strip a condition suffix.
    let name = [
        "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt",
        "le", "al",
    ]
    .iter()
    .find_map(|c| base_name.strip_suffix(c).filter(|s| access_of(s).is_some()))
    .unwrap_or(base_name);
    let (align, always) = access_of(name)?;
    let detail = cs.insn_detail(insn).ok()?;
    let ops = detail.arch_detail().operands();
    // push/pop address SP; ldm/stm and the VFP multiples their first register operand.
    let mut op = MemOp {
        base: 13,
        index: None,
        disp: 0,
        align,
        always,
    };
    let mut found = matches!(name, "push" | "pop" | "vpush" | "vpop");
    for o in &ops {
        let ArchOperand::ArmOperand(o) = o else {
            continue;
        };
        match &o.op_type {
            ArmOperandType::Mem(m) => {
                op.base = reg_index(m.base().0)?;
                op.disp = m.disp();
                op.index = reg_index(m.index().0).map(|i| {
                    let shift = match o.shift {
                        ArmShift::Lsl(n) => n,
                        _ => 0,
                    };
                    (i, shift, m.scale() < 0 || o.subtracted)
                });
                if m.index().0 == 0 {
                    op.index = None;
                }
                found = true;
                break;
            }
            ArmOperandType::Reg(r) if !found && (name.contains("ldm") || name.contains("stm")) => {
                // LDM/STM Rn(!), {list}: the base is the first operand.
                op.base = reg_index(r.0)?;
                found = true;
                break;
            }
            _ => {}
        }
    }
    found.then_some(op)
}

/// The effective address `op` forms at `pc` with the register values `reg`.
pub(crate) fn address(op: &MemOp, pc: u32, reg: impl Fn(u8) -> u32) -> u32 {
    // PC as a base reads as the instruction's address + 4, word-aligned (ARMv7-M ARM A5.1.2).
    let base = if op.base == 15 {
        (pc + 4) & !3
    } else {
        reg(op.base)
    };
    let index = op.index.map_or(0, |(r, shift, subtracted)| {
        let v = reg(r).wrapping_shl(shift);
        if subtracted {
            v.wrapping_neg()
        } else {
            v
        }
    });
    base.wrapping_add(index).wrapping_add(op.disp as u32)
}

/// Whether `op` at address `ea` faults, with UNALIGN_TRP as given.
pub(crate) fn faults(op: &MemOp, ea: u32, unalign_trp: bool) -> bool {
    (op.always || unalign_trp) && !ea.is_multiple_of(op.align)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tigris_targets::CoreKind;

    fn op(code: &[u8]) -> Option<MemOp> {
        let cs = crate::cortex_m::timing::disassembler(CoreKind::CortexM4).unwrap();
        decode(&cs, code, 0x1000)
    }

    #[test]
    fn loads_and_stores_give_their_address_and_alignment() {
        let regs = |r: u8| [0x2000_0001u32, 8, 3][r as usize % 3];
        // ldr r0, [r1, #4] (T1 0x6848): word, r1 + 4.
        let ldr = op(&[0x48, 0x68]).unwrap();
        assert_eq!(
            (address(&ldr, 0x1000, regs), ldr.align, ldr.always),
            (12, 4, false)
        );
        // ldrh r0, [r0, r1] (T1 0x5a40): halfword, r0 + r1.
        let ldrh = op(&[0x40, 0x5a]).unwrap();
        assert_eq!(address(&ldrh, 0x1000, regs), 0x2000_0009);
        assert!(faults(&ldrh, 0x2000_0009, true) && !faults(&ldrh, 0x2000_0009, false));
        // ldr.w r0, [r1, r2, lsl #2] (0xf851 0x0022): r1 + (r2 << 2).
        let ldrw = op(&[0x51, 0xf8, 0x22, 0x00]).unwrap();
        assert_eq!(address(&ldrw, 0x1000, regs), 8 + (3 << 2));
        // ldm r0!, {r1, r2} (0xc806): always word-aligned.
        let ldm = op(&[0x06, 0xc8]).unwrap();
        assert!(ldm.always && faults(&ldm, 0x2000_0001, false));
        // ldrb r0, [r1] needs no alignment; adds is not a load.
        assert_eq!(op(&[0x08, 0x78]), None);
        assert_eq!(op(&[0x01, 0x30]), None);
    }
}
