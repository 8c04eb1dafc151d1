//! The decoder before the ISA table (temporary, for the exhaustive comparison only).
#![allow(clippy::all, dead_code, unused)]
use super::super::config::{XtensaConfig, XtensaCore};
use super::super::decode::{insn_len, sr_access_ok, Insn, Op, SrAccess, AR_R, AR_S, AR_T};
fn sext(v: u32, bits: u32) -> i32 {
    ((v << (32 - bits)) as i32) >> (32 - bits)
}
fn new_insn(op: Op, len: u8, r: u32, s: u32, t: u32, arm: u8, imm: u32) -> Insn {
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

/// True for instructions after which a decoded block must end (control flow, state that changes
/// how following instructions execute, or exceptions).
pub fn old_ends_block(s: &Insn) -> bool {
    use Op::*;
    !matches!(
        s.op,
        And | Or
            | Xor
            | Neg
            | Abs
            | Add
            | Addx2
            | Addx4
            | Addx8
            | Sub
            | Subx2
            | Subx4
            | Subx8
            | Slli
            | Srai
            | Srli
            | Src
            | Srl
            | Sll
            | Sra
            | Mul16u
            | Mul16s
            | Saltu
            | Salt
            | Mull
            | Muluh
            | Mulsh
            | Quou
            | Quos
            | Remu
            | Rems
            | Sext
            | Clamps
            | Min
            | Max
            | Minu
            | Maxu
            | Moveqz
            | Movnez
            | Movltz
            | Movgez
            | Movf
            | Movt
            | Extui
            | Ssr
            | Ssl
            | Ssa8l
            | Ssa8b
            | Ssai
            | Nsa
            | Nsau
            | L32r
            | L8ui
            | L16ui
            | L32i
            | S8i
            | S16i
            | S32i
            | L16si
            | Movi
            | L32ai
            | Addi
            | Addmi
            | S32c1i
            | S32ri
            | L32iN
            | S32iN
            | AddN
            | AddiN
            | MoviN
            | MovN
            | NopN
            | Nop
            | Memw
            | Extw
            | Isync
            | Rsync
            | Esync
            | Dsync
            | Excw
            | Andb
            | Andbc
            | Orb
            | Orbc
            | Xorb
            | Any4
            | All4
            | Any8
            | All8
            | Rur
            | Wur
            | Rsr
            | L32e
            | S32e
            | S32nb
            | Lsx
            | Lsxp
            | Ssx
            | Ssxp
            | Lsi
            | Ssi
            | Lsip
            | Ssip
            | AddS
            | SubS
            | MulS
            | MaddS
            | MsubS
            | MaddnS
            | DivnS
            | RoundS
            | TruncS
            | FloorS
            | CeilS
            | FloatS
            | UfloatS
            | UtruncS
            | MovS
            | AbsS
            | ConstS
            | Rfr
            | Wfr
            | NegS
            | Div0S
            | Recip0S
            | Sqrt0S
            | Rsqrt0S
            | Nexp01S
            | MksadjS
            | MkdadjS
            | AddexpS
            | AddexpmS
            | UnS
            | OeqS
            | UeqS
            | OltS
            | UltS
            | OleS
            | UleS
            | MoveqzS
            | MovnezS
            | MovltzS
            | MovgezS
            | MovfS
            | MovtS
            | UmulAa
            | MulAa
            | MulaAa
            | MulsAa
            | MulAd
            | MulaAd
            | MulsAd
            | MulDa
            | MulaDa
            | MulsDa
            | MulDd
            | MulaDd
            | MulsDd
            | MulaDaLdinc
            | MulaDaLddec
            | MulaDdLdinc
            | MulaDdLddec
            | Ldinc
            | Lddec
            | Rer
            | Ritlb0
            | Ritlb1
            | Rdtlb0
            | Rdtlb1
            | Pitlb
            | Pdtlb
            | Entry
            | Ee
    )
}

/// True for the conditional branches (they fall through when not taken).
pub fn old_is_conditional_branch(s: &Insn) -> bool {
    use Op::*;
    matches!(
        s.op,
        Beqz | BeqzN
            | Bnez
            | BnezN
            | Bltz
            | Bgez
            | Beqi
            | Bnei
            | Blti
            | Bgei
            | Bltui
            | Bgeui
            | Beq
            | Bne
            | Blt
            | Bge
            | Bltu
            | Bgeu
            | Bany
            | Bnone
            | Ball
            | Bnall
            | Bbc
            | Bbs
            | Bbci
            | Bbsi
            | Bf
            | Bt
    )
}

/// True for instructions that may set LEND: LOOP, LOOPNEZ, LOOPGTZ and WSR/XSR.LEND (SR 1).
pub fn old_may_move_lend(s: &Insn) -> bool {
    use Op::*;
    matches!(s.op, Loop | Loopnez | Loopgtz) || (matches!(s.op, Wsr | Xsr) && s.imm == 1)
}

/// True for loads that write the AR in the t field (used for the load-use interlock).
pub fn old_is_ar_load(s: &Insn) -> bool {
    matches!(
        s.op,
        Op::L8ui | Op::L16ui | Op::L32i | Op::L16si | Op::L32ai | Op::L32iN | Op::L32r | Op::L32e
    )
}

/// Decode the instruction word `w` (little-endian bytes, up to 4) found at address `pc`.
pub fn old_decode(w: u32, pc: u32, cfg: &XtensaConfig) -> Insn {
    let op0 = w & 0xF;
    match op0 {
        8..=0xD => decode_narrow(w & 0xFFFF, pc, cfg),
        // format_32 (S2 libisa): PIE on the ESP32-S3 only.
        0xE | 0xF if cfg.core == XtensaCore::Esp32s3 => {
            super::super::pie::decode_pie(w, 4).unwrap_or(Insn::illegal(4))
        }
        0xE | 0xF => Insn::illegal(insn_len(op0 as u8, cfg)),
        _ => decode24(w & 0xFF_FFFF, pc, cfg),
    }
}

fn decode_narrow(w: u32, pc: u32, cfg: &XtensaConfig) -> Insn {
    use Op::*;
    let op0 = w & 0xF;
    let t = (w >> 4) & 0xF;
    let s = (w >> 8) & 0xF;
    let r = (w >> 12) & 0xF;
    let i = |op, r, s, t, arm, imm| new_insn(op, 2, r, s, t, arm, imm);
    match op0 {
        // RRRN (S2 libisa narrow opcodes)
        8 => i(L32iN, r, s, t, AR_S | AR_T, r * 4),
        9 => i(S32iN, r, s, t, AR_S | AR_T, r * 4),
        0xA => i(AddN, r, s, t, AR_R | AR_S | AR_T, 0),
        0xB => i(
            AddiN,
            r,
            s,
            t,
            AR_R | AR_S,
            if t == 0 { -1i32 as u32 } else { t },
        ),
        0xC => {
            if t & 8 == 0 {
                // RI7: imm7 = {w[6:4], w[15:12]}, minus 128 if bits 6 and 5 are both set (S2 libisa).
                let mut imm = ((t & 7) << 4) | r;
                if imm & 0x60 == 0x60 {
                    imm = imm.wrapping_sub(128);
                }
                i(MoviN, r, s, t, AR_S, imm)
            } else {
                // RI6: target = PC + 4 + {w[5:4], w[15:12]} (S2 libisa).
                let off = ((t & 3) << 4) | r;
                let tgt = pc.wrapping_add(4).wrapping_add(off);
                i(if t & 4 == 0 { BeqzN } else { BnezN }, r, s, t, AR_S, tgt)
            }
        }
        _ => match (r, t) {
            (0, _) => i(MovN, r, s, t, AR_S | AR_T, 0),
            (0xF, 0) if s == 0 => i(RetN, r, s, t, 0, 0),
            (0xF, 1) if s == 0 && cfg.windowed => i(RetwN, r, s, t, 0, 0),
            (0xF, 2) => i(BreakN, r, s, t, 0, s),
            (0xF, 3) if s == 0 => i(NopN, r, s, t, 0, 0),
            (0xF, 6) if s == 0 => i(IllN, r, s, t, 0, 0),
            _ => Insn::illegal(2),
        },
    }
}

fn decode24(w: u32, pc: u32, cfg: &XtensaConfig) -> Insn {
    use Op::*;
    let op0 = w & 0xF;
    let t = (w >> 4) & 0xF;
    let s = (w >> 8) & 0xF;
    let r = (w >> 12) & 0xF;
    let op1 = (w >> 16) & 0xF;
    let op2 = (w >> 20) & 0xF;
    let ill = Insn::illegal(3);
    let i = |op, arm, imm| new_insn(op, 3, r, s, t, arm, imm);
    let rst = |op| new_insn(op, 3, r, s, t, AR_R | AR_S | AR_T, 0);
    let gate = |ok: bool, insn: Insn| if ok { insn } else { Insn::illegal(3) };
    let lx = cfg.core != XtensaCore::Esp8266;
    match op0 {
        0 => match op1 {
            0 => match op2 {
                0 => match r {
                    0 => match t {
                        0 if s == 0 => i(Ill, 0, 0),
                        8 => i(Ret, 0, 0),
                        9 => gate(cfg.windowed, i(Retw, 0, 0)),
                        0xA => i(Jx, AR_S, 0),
                        0xC => i(Callx0, AR_S, 0),
                        0xD..=0xF => {
                            let n = t - 0xC;
                            let op = [Callx4, Callx8, Callx12][(n - 1) as usize];
                            let mut x = i(op, AR_S, 0);
                            x.pane = x.pane.max(n as u8);
                            gate(cfg.windowed, x)
                        }
                        _ => ill,
                    },
                    1 => gate(cfg.windowed, i(Movsp, AR_S | AR_T, 0)),
                    2 if s == 0 => match t {
                        0 => i(Isync, 0, 0),
                        1 => i(Rsync, 0, 0),
                        2 => i(Esync, 0, 0),
                        3 => i(Dsync, 0, 0),
                        8 => i(Excw, 0, 0),
                        0xC => i(Memw, 0, 0),
                        0xD => i(Extw, 0, 0),
                        0xF => i(Nop, 0, 0),
                        _ => ill,
                    },
                    3 => match (t, s) {
                        (0, 0) => i(Rfe, 0, 0),
                        (0, 2) => i(Rfde, 0, 0),
                        (0, 4) => gate(cfg.windowed, i(Rfwo, 0, 0)),
                        (0, 5) => gate(cfg.windowed, i(Rfwu, 0, 0)),
                        (1, _) => i(Rfi, 0, s),
                        _ => ill,
                    },
                    4 => i(Break, 0, 0),
                    5 => match (s, t) {
                        (0, 0) => i(Syscall, 0, 0),
                        (1, 0) => i(Simcall, 0, 0),
                        _ => ill,
                    },
                    6 => i(Rsil, AR_T, s),
                    7 if t == 0 => i(Waiti, 0, s),
                    8 | 9 if s & 3 == 0 => {
                        gate(cfg.booleans, i(if r == 8 { Any4 } else { All4 }, 0, 0))
                    }
                    0xA | 0xB if s & 7 == 0 => {
                        gate(cfg.booleans, i(if r == 0xA { Any8 } else { All8 }, 0, 0))
                    }
                    _ => ill,
                },
                1 => rst(And),
                2 => rst(Or),
                3 => rst(Xor),
                4 => match r {
                    0 if t == 0 => i(Ssr, AR_S, 0),
                    1 if t == 0 => i(Ssl, AR_S, 0),
                    2 if t == 0 => i(Ssa8l, AR_S, 0),
                    3 if t == 0 => i(Ssa8b, AR_S, 0),
                    // SSAI: SAR = {t[0], s} (S2 libisa)
                    4 if t & 0xE == 0 => i(Ssai, 0, ((t & 1) << 4) | s),
                    6 => i(Rer, AR_S | AR_T, 0),
                    7 => i(Wer, AR_S | AR_T, 0),
                    8 if s == 0 => gate(cfg.windowed, i(Rotw, 0, sext(t, 4) as u32)),
                    0xE => gate(cfg.nsa, i(Nsa, AR_S | AR_T, 0)),
                    0xF => gate(cfg.nsa, i(Nsau, AR_S | AR_T, 0)),
                    _ => ill,
                },
                5 => match r {
                    3 => i(Ritlb0, AR_S | AR_T, 0),
                    4 if t == 0 => i(Iitlb, AR_S, 0),
                    5 => i(Pitlb, AR_S | AR_T, 0),
                    6 => i(Witlb, AR_S | AR_T, 0),
                    7 => i(Ritlb1, AR_S | AR_T, 0),
                    0xB => i(Rdtlb0, AR_S | AR_T, 0),
                    0xC if t == 0 => i(Idtlb, AR_S, 0),
                    0xD => i(Pdtlb, AR_S | AR_T, 0),
                    0xE => i(Wdtlb, AR_S | AR_T, 0),
                    0xF => i(Rdtlb1, AR_S | AR_T, 0),
                    _ => ill,
                },
                6 => match s {
                    0 => i(Neg, AR_R | AR_T, 0),
                    1 => i(Abs, AR_R | AR_T, 0),
                    _ => ill,
                },
                8 => rst(Add),
                9 => rst(Addx2),
                0xA => rst(Addx4),
                0xB => rst(Addx8),
                0xC => rst(Sub),
                0xD => rst(Subx2),
                0xE => rst(Subx4),
                0xF => rst(Subx8),
                _ => ill,
            },
            1 => match op2 {
                // SLLI: shift = 32 − {op2[0], t}; SRAI: shift = {op2[0], s}; SRLI: shift = s (S2 libisa)
                0 | 1 => i(Slli, AR_R | AR_S, 32 - (((op2 & 1) << 4) | t)),
                2 | 3 => i(Srai, AR_R | AR_T, ((op2 & 1) << 4) | s),
                4 => i(Srli, AR_R | AR_T, s),
                6 => {
                    let sr = (r << 4) | s;
                    gate(
                        cfg.has_sr(sr) && sr_access_ok(sr, SrAccess::X),
                        i(Xsr, AR_T, sr),
                    )
                }
                8 => rst(Src),
                9 if s == 0 => i(Srl, AR_R | AR_T, 0),
                0xA if t == 0 => i(Sll, AR_R | AR_S, 0),
                0xB if s == 0 => i(Sra, AR_R | AR_T, 0),
                0xC => gate(cfg.mul16, rst(Mul16u)),
                0xD => gate(cfg.mul16, rst(Mul16s)),
                _ => ill,
            },
            2 => match op2 {
                0..=4 => gate(
                    cfg.booleans,
                    i([Andb, Andbc, Orb, Orbc, Xorb][op2 as usize], 0, 0),
                ),
                6 => gate(lx, rst(Saltu)),
                7 => gate(lx, rst(Salt)),
                8 => gate(cfg.mul32, rst(Mull)),
                0xA => gate(cfg.mul32_high, rst(Muluh)),
                0xB => gate(cfg.mul32_high, rst(Mulsh)),
                0xC => gate(cfg.div32, rst(Quou)),
                0xD => gate(cfg.div32, rst(Quos)),
                0xE => gate(cfg.div32, rst(Remu)),
                0xF => gate(cfg.div32, rst(Rems)),
                _ => ill,
            },
            3 => match op2 {
                0 | 1 => {
                    let sr = (r << 4) | s;
                    let (op, acc) = if op2 == 0 {
                        (Rsr, SrAccess::R)
                    } else {
                        (Wsr, SrAccess::W)
                    };
                    gate(cfg.has_sr(sr) && sr_access_ok(sr, acc), i(op, AR_T, sr))
                }
                2 => gate(cfg.sext, i(Sext, AR_R | AR_S, 0)),
                3 => gate(cfg.clamps, i(Clamps, AR_R | AR_S, 0)),
                4 => gate(cfg.minmax, rst(Min)),
                5 => gate(cfg.minmax, rst(Max)),
                6 => gate(cfg.minmax, rst(Minu)),
                7 => gate(cfg.minmax, rst(Maxu)),
                8 => rst(Moveqz),
                9 => rst(Movnez),
                0xA => rst(Movltz),
                0xB => rst(Movgez),
                0xC => gate(cfg.booleans, i(Movf, AR_R | AR_S, 0)),
                0xD => gate(cfg.booleans, i(Movt, AR_R | AR_S, 0)),
                // RUR: ar = r, ur = {s, t}; WUR: ur = {r, s}, at = t (S2 libisa)
                0xE => {
                    let ur = (s << 4) | t;
                    gate(cfg.has_ur(ur), i(Rur, AR_R, ur))
                }
                0xF => {
                    let ur = (r << 4) | s;
                    gate(cfg.has_ur(ur), i(Wur, AR_T, ur))
                }
                _ => ill,
            },
            // EXTUI: shift = {op1[0], s}, width = op2 + 1 (S2 libisa); imm = shift | width << 8
            4 | 5 => i(
                Extui,
                AR_R | AR_T,
                (((op1 & 1) << 4) | s) | ((op2 + 1) << 8),
            ),
            8 => match op2 {
                0 => gate(cfg.fpu, i(Lsx, AR_S | AR_T, 0)),
                1 => gate(cfg.fpu, i(Lsxp, AR_S | AR_T, 0)),
                4 => gate(cfg.fpu, i(Ssx, AR_S | AR_T, 0)),
                5 => gate(cfg.fpu, i(Ssxp, AR_S | AR_T, 0)),
                _ => ill,
            },
            9 => match op2 {
                // L32E/S32E offset = (r − 16)·4; S32NB offset = r·4 (S2 libisa)
                0 => gate(
                    cfg.windowed,
                    i(L32e, AR_S | AR_T, ((r as i32 - 16) * 4) as u32),
                ),
                4 => gate(
                    cfg.windowed,
                    i(S32e, AR_S | AR_T, ((r as i32 - 16) * 4) as u32),
                ),
                5 => gate(cfg.s32nb, i(S32nb, AR_S | AR_T, r * 4)),
                _ => ill,
            },
            0xA => gate(cfg.fpu, decode_fp0(w, r, s, t, op2)),
            0xB => gate(cfg.fpu, decode_fp1(r, s, t, op2)),
            // EE.LDF.64.XP / EE.STF.64.XP (op1 = 6 / 7, S2 libisa), S3 only.
            6 | 7 => pie24(w, cfg),
            _ => ill,
        },
        // L32R (S2 libisa; LITBASE: S3 QEMU): offset = (0xFFFF0000 | imm16) << 2, relative to
        // (PC + 3) & ~3 or LITBASE.
        1 => new_insn(L32r, 3, r, s, t, AR_T, (0xFFFF_0000 | (w >> 8)) << 2),
        2 => {
            let imm8 = w >> 16;
            let ld = |op, scale: u32| new_insn(op, 3, r, s, t, AR_S | AR_T, imm8 * scale);
            match r {
                0 => ld(L8ui, 1),
                1 => ld(L16ui, 2),
                2 => ld(L32i, 4),
                4 => ld(S8i, 1),
                5 => ld(S16i, 2),
                6 => ld(S32i, 4),
                9 => ld(L16si, 2),
                // MOVI: imm12 = {s, imm8} sign-extended
                0xA => i(Movi, AR_T, sext((s << 8) | imm8, 12) as u32),
                0xB => gate(cfg.l32ai, ld(L32ai, 4)),
                0xC => i(Addi, AR_S | AR_T, sext(imm8, 8) as u32),
                0xD => i(Addmi, AR_S | AR_T, (sext(imm8, 8) << 8) as u32),
                0xE => gate(cfg.s32c1i, ld(S32c1i, 4)),
                0xF => gate(cfg.l32ai, ld(S32ri, 4)),
                _ => ill,
            }
        }
        3 => {
            let off = (w >> 16) * 4;
            let op = match r {
                0 => Lsi,
                4 => Ssi,
                8 => Lsip,
                0xC => Ssip,
                _ => return ill,
            };
            gate(cfg.fpu, i(op, AR_S, off))
        }
        // op0 = 4 holds both MAC16 and, on the S3, the 24-bit PIE opcodes (S2 libisa); they are disjoint.
        4 => {
            let m = gate(cfg.mac16, decode_mac16(w, r, s, t, op1, op2));
            if m.op == Illegal {
                pie24(w, cfg)
            } else {
                m
            }
        }
        5 => {
            // CALLn target = (PC & ~3) + 4 + sext18·4 (S2 libisa)
            let n = t & 3;
            let tgt = (pc & !3)
                .wrapping_add(4)
                .wrapping_add((sext(w >> 6, 18) << 2) as u32);
            let op = [Call0, Call4, Call8, Call12][n as usize];
            let mut x = new_insn(op, 3, r, s, t, 0, tgt);
            x.pane = n as u8;
            gate(n == 0 || cfg.windowed, x)
        }
        6 => {
            let n = t & 3;
            let m = t >> 2;
            let b8 = pc.wrapping_add(4).wrapping_add(sext(w >> 16, 8) as u32);
            match n {
                0 => i(
                    J,
                    0,
                    pc.wrapping_add(4).wrapping_add(sext(w >> 6, 18) as u32),
                ),
                1 => {
                    let tgt = pc.wrapping_add(4).wrapping_add(sext(w >> 12, 12) as u32);
                    i([Beqz, Bnez, Bltz, Bgez][m as usize], AR_S, tgt)
                }
                2 => i([Beqi, Bnei, Blti, Bgei][m as usize], AR_S, b8),
                _ => match m {
                    0 => {
                        // ENTRY frame = imm12·8 (S2 libisa)
                        let x = i(Entry, AR_S, (w >> 12) * 8);
                        gate(cfg.windowed, x)
                    }
                    1 => {
                        let lend = pc.wrapping_add(4).wrapping_add(w >> 16);
                        match r {
                            0 => gate(cfg.booleans, i(Bf, 0, b8)),
                            1 => gate(cfg.booleans, i(Bt, 0, b8)),
                            8 => gate(cfg.loops, i(Loop, AR_S, lend)),
                            9 => gate(cfg.loops, i(Loopnez, AR_S, lend)),
                            0xA => gate(cfg.loops, i(Loopgtz, AR_S, lend)),
                            _ => ill,
                        }
                    }
                    2 => i(Bltui, AR_S, b8),
                    _ => i(Bgeui, AR_S, b8),
                },
            }
        }
        7 => {
            let tgt = pc.wrapping_add(4).wrapping_add(sext(w >> 16, 8) as u32);
            match r {
                0 => i(Bnone, AR_S | AR_T, tgt),
                1 => i(Beq, AR_S | AR_T, tgt),
                2 => i(Blt, AR_S | AR_T, tgt),
                3 => i(Bltu, AR_S | AR_T, tgt),
                4 => i(Ball, AR_S | AR_T, tgt),
                5 => i(Bbc, AR_S | AR_T, tgt),
                6 | 7 => i(Bbci, AR_S, tgt),
                8 => i(Bany, AR_S | AR_T, tgt),
                9 => i(Bne, AR_S | AR_T, tgt),
                0xA => i(Bge, AR_S | AR_T, tgt),
                0xB => i(Bgeu, AR_S | AR_T, tgt),
                0xC => i(Bnall, AR_S | AR_T, tgt),
                0xD => i(Bbs, AR_S | AR_T, tgt),
                _ => i(Bbsi, AR_S, tgt),
            }
        }
        _ => ill,
    }
}

/// A 24-bit PIE word (S2 libisa), or the illegal marker off the ESP32-S3.
fn pie24(w: u32, cfg: &XtensaConfig) -> Insn {
    if cfg.core == XtensaCore::Esp32s3 {
        super::super::pie::decode_pie(w, 3).unwrap_or(Insn::illegal(3))
    } else {
        Insn::illegal(3)
    }
}

/// FP0 group, op1 = A (S2 libisa). MUL.S at op2 = 2 is not in the S2 opcode listing we worked from [U].
fn decode_fp0(_w: u32, r: u32, s: u32, t: u32, op2: u32) -> Insn {
    use Op::*;
    let i = |op, arm| new_insn(op, 3, r, s, t, arm, 0);
    match op2 {
        0 => i(AddS, 0),
        1 => i(SubS, 0),
        2 => i(MulS, 0),
        4 => i(MaddS, 0),
        5 => i(MsubS, 0),
        6 => i(MaddnS, 0),
        7 => i(DivnS, 0),
        8 => i(RoundS, AR_R),
        9 => i(TruncS, AR_R),
        0xA => i(FloorS, AR_R),
        0xB => i(CeilS, AR_R),
        0xC => i(FloatS, AR_S),
        0xD => i(UfloatS, AR_S),
        0xE => i(UtruncS, AR_R),
        0xF => match t {
            0 => i(MovS, 0),
            1 => i(AbsS, 0),
            3 => i(ConstS, 0),
            4 => i(Rfr, AR_R),
            5 => i(Wfr, AR_S),
            6 => i(NegS, 0),
            7 => i(Div0S, 0),
            8 => i(Recip0S, 0),
            9 => i(Sqrt0S, 0),
            0xA => i(Rsqrt0S, 0),
            0xB => i(Nexp01S, 0),
            0xC => i(MksadjS, 0),
            0xD => i(MkdadjS, 0),
            0xE => i(AddexpS, 0),
            0xF => i(AddexpmS, 0),
            _ => Insn::illegal(3),
        },
        _ => Insn::illegal(3),
    }
}

/// FP1 group, op1 = B (S2 libisa).
fn decode_fp1(r: u32, s: u32, t: u32, op2: u32) -> Insn {
    use Op::*;
    let i = |op, arm| new_insn(op, 3, r, s, t, arm, 0);
    match op2 {
        1 => i(UnS, 0),
        2 => i(OeqS, 0),
        3 => i(UeqS, 0),
        4 => i(OltS, 0),
        5 => i(UltS, 0),
        6 => i(OleS, 0),
        7 => i(UleS, 0),
        8 => i(MoveqzS, AR_T),
        9 => i(MovnezS, AR_T),
        0xA => i(MovltzS, AR_T),
        0xB => i(MovgezS, AR_T),
        0xC => i(MovfS, 0),
        0xD => i(MovtS, 0),
        _ => Insn::illegal(3),
    }
}

fn decode_mac16(w: u32, r: u32, s: u32, t: u32, op1: u32, op2: u32) -> Insn {
    use Op::*;
    let half = op1 & 3;
    let mx = (w >> 14) & 1;
    let my = 2 + ((w >> 6) & 1);
    let mw = (w >> 12) & 3;
    let imm = half | (mx << 4) | (my << 8) | (mw << 12);
    let i = |op, arm| new_insn(op, 3, r, s, t, arm, imm);
    let kind = op1 >> 2; // 0 UMUL (AA only), 1 MUL, 2 MULA, 3 MULS
    let ill = Insn::illegal(3);
    // Checks of the fixed zero nibbles of the S2 libisa MAC16 opcodes.
    let r_mx_only = r & 0xB == 0; // r = {0, mx, 0, 0}
    let t_my_only = t & 0xB == 0; // t = {0, my, 0, 0}
    match op2 {
        0 | 1 if kind == 2 && r & 0x8 == 0 && t_my_only => {
            i(if op2 == 0 { MulaDdLdinc } else { MulaDdLddec }, AR_S)
        }
        2 if s == 0 && r_mx_only && t_my_only => match kind {
            1 => i(MulDd, 0),
            2 => i(MulaDd, 0),
            3 => i(MulsDd, 0),
            _ => ill,
        },
        3 if r == 0 && t_my_only => match kind {
            1 => i(MulAd, AR_S),
            2 => i(MulaAd, AR_S),
            3 => i(MulsAd, AR_S),
            _ => ill,
        },
        4 | 5 if kind == 2 && r & 0x8 == 0 => i(
            if op2 == 4 { MulaDaLdinc } else { MulaDaLddec },
            AR_S | AR_T,
        ),
        6 if s == 0 && r_mx_only => match kind {
            1 => i(MulDa, AR_T),
            2 => i(MulaDa, AR_T),
            3 => i(MulsDa, AR_T),
            _ => ill,
        },
        7 if r == 0 => match kind {
            0 => i(UmulAa, AR_S | AR_T),
            1 => i(MulAa, AR_S | AR_T),
            2 => i(MulaAa, AR_S | AR_T),
            _ => i(MulsAa, AR_S | AR_T),
        },
        8 | 9 if op1 == 0 && t == 0 && r & 0xC == 0 => {
            i(if op2 == 8 { Ldinc } else { Lddec }, AR_S)
        }
        _ => ill,
    }
}
