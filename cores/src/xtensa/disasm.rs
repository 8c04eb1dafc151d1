//! Disassembler producing text in the style of GNU objdump for Xtensa
//! (`addi a2, a2, 1`, `l32r a3, 0x40080004`, `rsr.sar a2`), used by diagnostics.

use super::config::{XtensaConfig, XtensaCore};
use super::decode::{decode, mac_fields, Insn, Op};

/// Mnemonic of an operation, as GNU binutils spells it.
pub fn mnemonic(op: Op) -> &'static str {
    super::isa::row(op).mnemonic
}

/// Name of special register `sr` on a core, or `None` when objdump prints the number.
pub fn sr_name(sr: u32, core: XtensaCore, write: bool) -> Option<&'static str> {
    let lx = core != XtensaCore::Esp8266;
    Some(match sr {
        0 => "lbeg",
        1 => "lend",
        2 => "lcount",
        3 => "sar",
        4 => "br",
        5 => "litbase",
        12 => "scompare1",
        16 => "acclo",
        17 => "acchi",
        32 => "m0",
        33 => "m1",
        34 => "m2",
        35 => "m3",
        72 => "windowbase",
        73 => "windowstart",
        89 => "mmid",
        95 => "eraccess",
        96 => "ibreakenable",
        97 => "memctl",
        99 => "atomctl",
        104 => "ddr",
        128 => "ibreaka0",
        129 => "ibreaka1",
        144 => "dbreaka0",
        145 => "dbreaka1",
        160 => "dbreakc0",
        161 => "dbreakc1",
        176 if lx => "configid0",
        177..=183 => ["epc1", "epc2", "epc3", "epc4", "epc5", "epc6", "epc7"][(sr - 177) as usize],
        192 => "depc",
        194..=199 => ["eps2", "eps3", "eps4", "eps5", "eps6", "eps7"][(sr - 194) as usize],
        208 if lx => "configid1",
        209..=215 => [
            "excsave1", "excsave2", "excsave3", "excsave4", "excsave5", "excsave6", "excsave7",
        ][(sr - 209) as usize],
        224 => "cpenable",
        226 => {
            if write {
                "intset"
            } else {
                "interrupt"
            }
        }
        227 => "intclear",
        228 => "intenable",
        230 => "ps",
        231 => "vecbase",
        232 => "exccause",
        233 => "debugcause",
        234 => "ccount",
        235 => "prid",
        236 => "icount",
        237 => "icountlevel",
        238 => "excvaddr",
        240 => "ccompare0",
        241 => "ccompare1",
        242 => "ccompare2",
        244 => "misc0",
        245 => "misc1",
        246 => "misc2",
        247 => "misc3",
        _ => return None,
    })
}

/// Name of user register `ur`.
pub fn ur_name(ur: u32) -> Option<&'static str> {
    Some(match ur {
        0..=18 => return super::pie::ur_name(ur),
        231 => "threadptr",
        232 => "fcr",
        233 => "fsr",
        _ => return None,
    })
}

/// Immediate formatting as objdump does it: decimal when small, otherwise unsigned hex.
fn imm(v: u32) -> String {
    let i = v as i32;
    if i > -256 && i < 256 {
        format!("{}", i)
    } else {
        format!("0x{:x}", v)
    }
}

/// Disassemble one decoded instruction found at `pc`.
pub fn disasm(insn: &Insn, pc: u32, core: XtensaCore) -> String {
    use Op::*;
    let (r, s, t) = (insn.r, insn.s, insn.t);
    let m = mnemonic(insn.op);
    let tgt = format!("0x{:x}", insn.imm);
    let ops: String = match insn.op {
        Illegal => return "(illegal)".to_string(),
        Ee => return super::pie::disasm(insn),
        Ill | Ret | Retw | Isync | Rsync | Esync | Dsync | Excw | Memw | Extw | Nop | Rfe
        | Rfde | Rfwo | Rfwu | Syscall | Simcall | RetN | RetwN | NopN | IllN => String::new(),
        Jx | Callx0 | Callx4 | Callx8 | Callx12 | Ssr | Ssl | Ssa8l | Ssa8b | Iitlb | Idtlb => {
            format!("a{}", s)
        }
        Movsp | Rer | Wer | Nsa | Nsau | Ritlb0 | Pitlb | Witlb | Ritlb1 | Rdtlb0 | Pdtlb
        | Wdtlb | Rdtlb1 => {
            format!("a{}, a{}", t, s)
        }
        Rfi | Waiti | BreakN => format!("{}", insn.imm),
        Break => format!("{}, {}", s, t),
        Rsil => format!("a{}, {}", t, s),
        Any4 | All4 | Any8 | All8 => format!("b{}, b{}", t, s),
        And | Or | Xor | Add | Addx2 | Addx4 | Addx8 | Sub | Subx2 | Subx4 | Subx8 | Src
        | Mul16u | Mul16s | Saltu | Salt | Mull | Muluh | Mulsh | Quou | Quos | Remu | Rems
        | Min | Max | Minu | Maxu | Moveqz | Movnez | Movltz | Movgez | AddN => {
            format!("a{}, a{}, a{}", r, s, t)
        }
        Ssai => format!("{}", insn.imm),
        Rotw => format!("{}", insn.imm as i32),
        Neg | Abs | Srl | Sra => format!("a{}, a{}", r, t),
        Sll => format!("a{}, a{}", r, s),
        Slli => format!("a{}, a{}, {}", r, s, insn.imm),
        Srai | Srli => format!("a{}, a{}, {}", r, t, insn.imm),
        Extui => format!("a{}, a{}, {}, {}", r, t, insn.imm & 0xFF, insn.imm >> 8),
        Rsr | Wsr | Xsr => {
            let name = sr_name(insn.imm, core, insn.op == Wsr)
                .map(|n| n.to_string())
                .unwrap_or_else(|| insn.imm.to_string());
            return format!("{}.{} a{}", m, name, t);
        }
        Rur | Wur => {
            let name = ur_name(insn.imm)
                .map(|n| n.to_string())
                .unwrap_or_else(|| insn.imm.to_string());
            let reg = if insn.op == Rur { r } else { t };
            return format!("{}.{} a{}", m, name, reg);
        }
        Andb | Andbc | Orb | Orbc | Xorb => format!("b{}, b{}, b{}", r, s, t),
        Sext | Clamps => format!("a{}, a{}, {}", r, s, t + 7),
        Movf | Movt => format!("a{}, a{}, b{}", r, s, t),
        Lsx | Lsxp | Ssx | Ssxp => format!("f{}, a{}, a{}", r, s, t),
        L32e | S32e | S32nb => format!("a{}, a{}, {}", t, s, insn.imm as i32),
        AddS | SubS | MulS | MaddS | MsubS | MaddnS | DivnS => format!("f{}, f{}, f{}", r, s, t),
        RoundS | TruncS | FloorS | CeilS | UtruncS => format!("a{}, f{}, {}", r, s, t),
        FloatS | UfloatS => format!("f{}, a{}, {}", r, s, t),
        MovS | AbsS | NegS | Div0S | Recip0S | Sqrt0S | Rsqrt0S | Nexp01S | MksadjS | MkdadjS
        | AddexpS | AddexpmS => format!("f{}, f{}", r, s),
        ConstS => format!("f{}, {}", r, s),
        Rfr => format!("a{}, f{}", r, s),
        Wfr => format!("f{}, a{}", r, s),
        UnS | OeqS | UeqS | OltS | UltS | OleS | UleS => format!("b{}, f{}, f{}", r, s, t),
        MoveqzS | MovnezS | MovltzS | MovgezS => format!("f{}, f{}, a{}", r, s, t),
        MovfS | MovtS => format!("f{}, f{}, b{}", r, s, t),
        L32r => {
            let addr = ((pc.wrapping_add(3)) & !3).wrapping_add(insn.imm);
            format!("a{}, 0x{:x}", t, addr)
        }
        L8ui | L16ui | L32i | S8i | S16i | S32i | L16si | L32ai | S32c1i | S32ri | L32iN
        | S32iN => {
            format!("a{}, a{}, {}", t, s, insn.imm)
        }
        Movi => format!("a{}, {}", t, imm(insn.imm)),
        Addi | Addmi => format!("a{}, a{}, {}", t, s, imm(insn.imm)),
        AddiN => format!("a{}, a{}, {}", r, s, insn.imm as i32),
        MoviN => format!("a{}, {}", s, insn.imm as i32),
        MovN => format!("a{}, a{}", t, s),
        Lsi | Ssi | Lsip | Ssip => format!("f{}, a{}, {}", t, s, insn.imm),
        Call0 | Call4 | Call8 | Call12 | J => tgt,
        Beqz | Bnez | Bltz | Bgez | BeqzN | BnezN | Loop | Loopnez | Loopgtz => {
            format!("a{}, {}", s, tgt)
        }
        Beqi | Bnei | Blti | Bgei => {
            format!(
                "a{}, {}, {}",
                s,
                imm(super::decode::B4CONST[r as usize] as u32),
                tgt
            )
        }
        Bltui | Bgeui => format!(
            "a{}, {}, {}",
            s,
            imm(super::decode::B4CONSTU[r as usize]),
            tgt
        ),
        Entry => format!("a{}, {}", s, insn.imm),
        Bf | Bt => format!("b{}, {}", s, tgt),
        Bnone | Beq | Blt | Bltu | Ball | Bbc | Bany | Bne | Bge | Bgeu | Bnall | Bbs => {
            format!("a{}, a{}, {}", s, t, tgt)
        }
        Bbci | Bbsi => format!("a{}, {}, {}", s, ((r as u32 & 1) << 4) | t as u32, tgt),
        UmulAa | MulAa | MulaAa | MulsAa | MulAd | MulaAd | MulsAd | MulDa | MulaDa | MulsDa
        | MulDd | MulaDd | MulsDd | MulaDaLdinc | MulaDaLddec | MulaDdLdinc | MulaDdLddec
        | Ldinc | Lddec => {
            return disasm_mac(insn, m);
        }
    };
    if ops.is_empty() {
        m.to_string()
    } else {
        format!("{} {}", m, ops)
    }
}

fn disasm_mac(insn: &Insn, m: &str) -> String {
    use Op::*;
    let (half, mx, my, mw) = mac_fields(insn.imm);
    let h = ["ll", "hl", "lh", "hh"][half as usize];
    let (s, t) = (insn.s, insn.t);
    match insn.op {
        Ldinc | Lddec => format!("{} m{}, a{}", m, mw, s),
        MulaDaLdinc | MulaDaLddec => {
            let sfx = if insn.op == MulaDaLdinc {
                "ldinc"
            } else {
                "lddec"
            };
            format!("{}.{}.{} m{}, a{}, m{}, a{}", m, h, sfx, mw, s, mx, t)
        }
        MulaDdLdinc | MulaDdLddec => {
            let sfx = if insn.op == MulaDdLdinc {
                "ldinc"
            } else {
                "lddec"
            };
            format!("{}.{}.{} m{}, a{}, m{}, m{}", m, h, sfx, mw, s, mx, my)
        }
        UmulAa | MulAa | MulaAa | MulsAa => format!("{}.{} a{}, a{}", m, h, s, t),
        MulAd | MulaAd | MulsAd => format!("{}.{} a{}, m{}", m, h, s, my),
        MulDa | MulaDa | MulsDa => format!("{}.{} m{}, a{}", m, h, mx, t),
        _ => format!("{}.{} m{}, m{}", m, h, mx, my),
    }
}

/// Decode and disassemble the instruction word `w` at `pc`; returns the text and the length in bytes.
pub fn disasm_word(w: u32, pc: u32, cfg: &XtensaConfig) -> (String, u8) {
    let insn = decode(w, pc, cfg);
    (disasm(&insn, pc, cfg.core), insn.len)
}
