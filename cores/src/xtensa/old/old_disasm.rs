//! The disassembler before the ISA table (temporary).
#![allow(clippy::all, dead_code, unused)]

use super::super::config::{XtensaConfig, XtensaCore};
use super::super::decode::{mac_fields, Insn, Op};
use super::old_decode::old_decode as decode;

/// Mnemonic of an operation, as GNU binutils spells it.
pub fn old_mnemonic(op: Op) -> &'static str {
    use Op::*;
    match op {
        Illegal => "(illegal)",
        Ill => "ill",
        Ret => "ret",
        Retw => "retw",
        Jx => "jx",
        Callx0 => "callx0",
        Callx4 => "callx4",
        Callx8 => "callx8",
        Callx12 => "callx12",
        Movsp => "movsp",
        Isync => "isync",
        Rsync => "rsync",
        Esync => "esync",
        Dsync => "dsync",
        Excw => "excw",
        Memw => "memw",
        Extw => "extw",
        Nop => "nop",
        Rfe => "rfe",
        Rfde => "rfde",
        Rfwo => "rfwo",
        Rfwu => "rfwu",
        Rfi => "rfi",
        Break => "break",
        Syscall => "syscall",
        Simcall => "simcall",
        Rsil => "rsil",
        Waiti => "waiti",
        Any4 => "any4",
        All4 => "all4",
        Any8 => "any8",
        All8 => "all8",
        And => "and",
        Or => "or",
        Xor => "xor",
        Ssr => "ssr",
        Ssl => "ssl",
        Ssa8l => "ssa8l",
        Ssa8b => "ssa8b",
        Ssai => "ssai",
        Rer => "rer",
        Wer => "wer",
        Rotw => "rotw",
        Nsa => "nsa",
        Nsau => "nsau",
        Ritlb0 => "ritlb0",
        Iitlb => "iitlb",
        Pitlb => "pitlb",
        Witlb => "witlb",
        Ritlb1 => "ritlb1",
        Rdtlb0 => "rdtlb0",
        Idtlb => "idtlb",
        Pdtlb => "pdtlb",
        Wdtlb => "wdtlb",
        Rdtlb1 => "rdtlb1",
        Neg => "neg",
        Abs => "abs",
        Add => "add",
        Addx2 => "addx2",
        Addx4 => "addx4",
        Addx8 => "addx8",
        Sub => "sub",
        Subx2 => "subx2",
        Subx4 => "subx4",
        Subx8 => "subx8",
        Slli => "slli",
        Srai => "srai",
        Srli => "srli",
        Xsr => "xsr",
        Src => "src",
        Srl => "srl",
        Sll => "sll",
        Sra => "sra",
        Mul16u => "mul16u",
        Mul16s => "mul16s",
        Andb => "andb",
        Andbc => "andbc",
        Orb => "orb",
        Orbc => "orbc",
        Xorb => "xorb",
        Saltu => "saltu",
        Salt => "salt",
        Mull => "mull",
        Muluh => "muluh",
        Mulsh => "mulsh",
        Quou => "quou",
        Quos => "quos",
        Remu => "remu",
        Rems => "rems",
        Rsr => "rsr",
        Wsr => "wsr",
        Sext => "sext",
        Clamps => "clamps",
        Min => "min",
        Max => "max",
        Minu => "minu",
        Maxu => "maxu",
        Moveqz => "moveqz",
        Movnez => "movnez",
        Movltz => "movltz",
        Movgez => "movgez",
        Movf => "movf",
        Movt => "movt",
        Rur => "rur",
        Wur => "wur",
        Extui => "extui",
        Lsx => "lsx",
        Lsxp => "lsxp",
        Ssx => "ssx",
        Ssxp => "ssxp",
        L32e => "l32e",
        S32e => "s32e",
        S32nb => "s32nb",
        AddS => "add.s",
        SubS => "sub.s",
        MulS => "mul.s",
        MaddS => "madd.s",
        MsubS => "msub.s",
        MaddnS => "maddn.s",
        DivnS => "divn.s",
        RoundS => "round.s",
        TruncS => "trunc.s",
        FloorS => "floor.s",
        CeilS => "ceil.s",
        FloatS => "float.s",
        UfloatS => "ufloat.s",
        UtruncS => "utrunc.s",
        MovS => "mov.s",
        AbsS => "abs.s",
        ConstS => "const.s",
        Rfr => "rfr",
        Wfr => "wfr",
        NegS => "neg.s",
        Div0S => "div0.s",
        Recip0S => "recip0.s",
        Sqrt0S => "sqrt0.s",
        Rsqrt0S => "rsqrt0.s",
        Nexp01S => "nexp01.s",
        MksadjS => "mksadj.s",
        MkdadjS => "mkdadj.s",
        AddexpS => "addexp.s",
        AddexpmS => "addexpm.s",
        UnS => "un.s",
        OeqS => "oeq.s",
        UeqS => "ueq.s",
        OltS => "olt.s",
        UltS => "ult.s",
        OleS => "ole.s",
        UleS => "ule.s",
        MoveqzS => "moveqz.s",
        MovnezS => "movnez.s",
        MovltzS => "movltz.s",
        MovgezS => "movgez.s",
        MovfS => "movf.s",
        MovtS => "movt.s",
        L32r => "l32r",
        L8ui => "l8ui",
        L16ui => "l16ui",
        L32i => "l32i",
        S8i => "s8i",
        S16i => "s16i",
        S32i => "s32i",
        L16si => "l16si",
        Movi => "movi",
        L32ai => "l32ai",
        Addi => "addi",
        Addmi => "addmi",
        S32c1i => "s32c1i",
        S32ri => "s32ri",
        Lsi => "lsi",
        Ssi => "ssi",
        Lsip => "lsip",
        Ssip => "ssip",
        UmulAa => "umul.aa",
        MulAa => "mul.aa",
        MulaAa => "mula.aa",
        MulsAa => "muls.aa",
        MulAd => "mul.ad",
        MulaAd => "mula.ad",
        MulsAd => "muls.ad",
        MulDa => "mul.da",
        MulaDa => "mula.da",
        MulsDa => "muls.da",
        MulDd => "mul.dd",
        MulaDd => "mula.dd",
        MulsDd => "muls.dd",
        MulaDaLdinc => "mula.da",
        MulaDaLddec => "mula.da",
        MulaDdLdinc => "mula.dd",
        MulaDdLddec => "mula.dd",
        Ldinc => "ldinc",
        Lddec => "lddec",
        Call0 => "call0",
        Call4 => "call4",
        Call8 => "call8",
        Call12 => "call12",
        J => "j",
        Beqz => "beqz",
        Bnez => "bnez",
        Bltz => "bltz",
        Bgez => "bgez",
        Beqi => "beqi",
        Bnei => "bnei",
        Blti => "blti",
        Bgei => "bgei",
        Bltui => "bltui",
        Bgeui => "bgeui",
        Entry => "entry",
        Bf => "bf",
        Bt => "bt",
        Loop => "loop",
        Loopnez => "loopnez",
        Loopgtz => "loopgtz",
        Bnone => "bnone",
        Beq => "beq",
        Blt => "blt",
        Bltu => "bltu",
        Ball => "ball",
        Bbc => "bbc",
        Bbci => "bbci",
        Bany => "bany",
        Bne => "bne",
        Bge => "bge",
        Bgeu => "bgeu",
        Bnall => "bnall",
        Bbs => "bbs",
        Bbsi => "bbsi",
        L32iN => "l32i.n",
        S32iN => "s32i.n",
        AddN => "add.n",
        AddiN => "addi.n",
        MoviN => "movi.n",
        BeqzN => "beqz.n",
        BnezN => "bnez.n",
        MovN => "mov.n",
        RetN => "ret.n",
        RetwN => "retw.n",
        BreakN => "break.n",
        NopN => "nop.n",
        IllN => "ill.n",
        Ee => "ee",
    }
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
        0..=18 => return super::super::pie::ur_name(ur),
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
pub fn old_disasm(insn: &Insn, pc: u32, core: XtensaCore) -> String {
    use Op::*;
    let (r, s, t) = (insn.r, insn.s, insn.t);
    let m = old_mnemonic(insn.op);
    let tgt = format!("0x{:x}", insn.imm);
    let ops: String = match insn.op {
        Illegal => return "(illegal)".to_string(),
        Ee => return super::super::pie::disasm(insn),
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
                imm(super::super::decode::B4CONST[r as usize] as u32),
                tgt
            )
        }
        Bltui | Bgeui => format!(
            "a{}, {}, {}",
            s,
            imm(super::super::decode::B4CONSTU[r as usize]),
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
    (old_disasm(&insn, pc, cfg.core), insn.len)
}
