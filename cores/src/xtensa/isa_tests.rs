//! Tests of the ISA table: its rows decode back to themselves under their gates, no two overlap,
//! and a golden list of words (one per row, operand fields set) keeps its disassembly. The list
//! was taken from the hand-written decoder the table replaced, after an exhaustive comparison of
//! the two (every 24-bit word at two PCs on the three configurations).

use super::*;
use crate::xtensa::disasm::disasm_word;
use crate::xtensa::{decode, XtensaConfig};

fn configs() -> [(&'static str, XtensaConfig); 3] {
    [
        ("esp8266", XtensaConfig::esp8266()),
        ("esp32", XtensaConfig::esp32()),
        ("esp32s3", XtensaConfig::esp32s3()),
    ]
}

/// Operand bits to fill the free fields of an encoding with.
const FILLS: [u32; 6] = [0, 0xFF_FFFF, 0x5A_5A5A, 0xA5_A5A5, 0x12_3456, 0x01_3E30];

#[test]
fn rows_decode_to_their_op_where_their_gate_allows() {
    let pc = 0x4008_1234;
    for row in ROWS.iter().filter(|r| r.len != 0) {
        for (name, cfg) in configs() {
            for fill in FILLS {
                let w = row.mtch | (fill & !row.mask & (u32::MAX >> (32 - 8 * row.len as u32)));
                let insn = decode(w, pc, &cfg);
                let want = if row.gate.allows(&cfg, row.imm.value(w, pc)) {
                    row.op
                } else {
                    Op::Illegal
                };
                assert_eq!(insn.op, want, "{} {w:06x} on {name}", row.mnemonic);
                assert_eq!(insn.len, row.len, "{} {w:06x} on {name}", row.mnemonic);
            }
        }
    }
}

#[test]
fn rows_do_not_overlap() {
    let coded: Vec<&OpRow> = ROWS.iter().filter(|r| r.len != 0).collect();
    for (i, a) in coded.iter().enumerate() {
        for b in &coded[i + 1..] {
            let both = a.mask & b.mask;
            assert!(
                a.len != b.len || (a.mtch ^ b.mtch) & both != 0,
                "{:?} and {:?} overlap",
                a.op,
                b.op
            );
        }
    }
}

/// Which cores have each option gate (S1 core-isa.h): esp8266, esp32, esp32s3.
#[test]
fn gates_per_core() {
    use Gate::*;
    let cases = [
        (Always, [true, true, true]),
        (Lx, [false, true, true]),
        (Windowed, [false, true, true]),
        (Loops, [false, true, true]),
        (Booleans, [false, true, true]),
        (Mul16, [true, true, true]),
        (Mul32, [true, true, true]),
        (Mul32High, [false, true, true]),
        (Div32, [false, true, true]),
        (Mac16, [false, true, true]),
        (Nsa, [true, true, true]),
        (Minmax, [false, true, true]),
        (Sext, [false, true, true]),
        (Clamps, [false, true, true]),
        (Fpu, [false, true, true]),
        (S32c1i, [false, true, true]),
        (L32ai, [false, true, true]),
        (S32nb, [false, false, true]),
    ];
    for (gate, want) in cases {
        let got = configs().map(|(_, cfg)| gate.allows(&cfg, 0));
        assert_eq!(got, want, "{gate:?}");
    }
}

#[test]
fn golden_disassembly() {
    for (core, w, text) in GOLDEN {
        let (_, cfg) = configs().into_iter().find(|(n, _)| *n == core).unwrap();
        assert_eq!(disasm_word(w, 0x4008_1234, &cfg).0, text, "{w:06x}");
    }
}

/// One word per row at PC 0x40081234, with its disassembly.
const GOLDEN: [(&str, u32, &str); 239] = [
    ("esp32s3", 0x000000, "ill"),
    ("esp32s3", 0x000a80, "ret"),
    ("esp32s3", 0x000a90, "retw"),
    ("esp32s3", 0x000aa0, "jx a10"),
    ("esp32s3", 0x000ac0, "callx0 a10"),
    ("esp32s3", 0x000ad0, "callx4 a10"),
    ("esp32s3", 0x000ae0, "callx8 a10"),
    ("esp32s3", 0x000af0, "callx12 a10"),
    ("esp32s3", 0x001a50, "movsp a5, a10"),
    ("esp32s3", 0x002000, "isync"),
    ("esp32s3", 0x002010, "rsync"),
    ("esp32s3", 0x002020, "esync"),
    ("esp32s3", 0x002030, "dsync"),
    ("esp32s3", 0x002080, "excw"),
    ("esp32s3", 0x0020c0, "memw"),
    ("esp32s3", 0x0020d0, "extw"),
    ("esp32s3", 0x0020f0, "nop"),
    ("esp32s3", 0x003000, "rfe"),
    ("esp32s3", 0x003200, "rfde"),
    ("esp32s3", 0x003400, "rfwo"),
    ("esp32s3", 0x003500, "rfwu"),
    ("esp32s3", 0x003a10, "rfi 10"),
    ("esp32s3", 0x004a50, "break 10, 5"),
    ("esp32s3", 0x005000, "syscall"),
    ("esp32s3", 0x005100, "simcall"),
    ("esp32s3", 0x006a50, "rsil a5, 10"),
    ("esp32s3", 0x007a00, "waiti 10"),
    ("esp32s3", 0x008850, "any4 b5, b8"),
    ("esp32s3", 0x009850, "all4 b5, b8"),
    ("esp32s3", 0x00a850, "any8 b5, b8"),
    ("esp32s3", 0x00b850, "all8 b5, b8"),
    ("esp32s3", 0x105a50, "and a5, a10, a5"),
    ("esp32s3", 0x205a50, "or a5, a10, a5"),
    ("esp32s3", 0x305a50, "xor a5, a10, a5"),
    ("esp32s3", 0x400a00, "ssr a10"),
    ("esp32s3", 0x401a00, "ssl a10"),
    ("esp32s3", 0x402a00, "ssa8l a10"),
    ("esp32s3", 0x403a00, "ssa8b a10"),
    ("esp32s3", 0x404a10, "ssai 26"),
    ("esp32s3", 0x406a50, "rer a5, a10"),
    ("esp32s3", 0x407a50, "wer a5, a10"),
    ("esp32s3", 0x408050, "rotw 5"),
    ("esp32s3", 0x40ea50, "nsa a5, a10"),
    ("esp32s3", 0x40fa50, "nsau a5, a10"),
    ("esp32s3", 0x503a50, "ritlb0 a5, a10"),
    ("esp32s3", 0x504a00, "iitlb a10"),
    ("esp32s3", 0x505a50, "pitlb a5, a10"),
    ("esp32s3", 0x506a50, "witlb a5, a10"),
    ("esp32s3", 0x507a50, "ritlb1 a5, a10"),
    ("esp32s3", 0x50ba50, "rdtlb0 a5, a10"),
    ("esp32s3", 0x50ca00, "idtlb a10"),
    ("esp32s3", 0x50da50, "pdtlb a5, a10"),
    ("esp32s3", 0x50ea50, "wdtlb a5, a10"),
    ("esp32s3", 0x50fa50, "rdtlb1 a5, a10"),
    ("esp32s3", 0x605050, "neg a5, a5"),
    ("esp32s3", 0x605150, "abs a5, a5"),
    ("esp32s3", 0x805a50, "add a5, a10, a5"),
    ("esp32s3", 0x905a50, "addx2 a5, a10, a5"),
    ("esp32s3", 0xa05a50, "addx4 a5, a10, a5"),
    ("esp32s3", 0xb05a50, "addx8 a5, a10, a5"),
    ("esp32s3", 0xc05a50, "sub a5, a10, a5"),
    ("esp32s3", 0xd05a50, "subx2 a5, a10, a5"),
    ("esp32s3", 0xe05a50, "subx4 a5, a10, a5"),
    ("esp32s3", 0xf05a50, "subx8 a5, a10, a5"),
    ("esp32s3", 0x115a50, "slli a5, a10, 11"),
    ("esp32s3", 0x315a50, "srai a5, a5, 26"),
    ("esp32s3", 0x415a50, "srli a5, a5, 10"),
    ("esp32s3", 0x61c3c0, "xsr.eps3 a12"),
    ("esp32s3", 0x815a50, "src a5, a10, a5"),
    ("esp32s3", 0x915050, "srl a5, a5"),
    ("esp32s3", 0xa15a00, "sll a5, a10"),
    ("esp32s3", 0xb15050, "sra a5, a5"),
    ("esp32s3", 0xc15a50, "mul16u a5, a10, a5"),
    ("esp32s3", 0xd15a50, "mul16s a5, a10, a5"),
    ("esp32s3", 0x025a50, "andb b5, b10, b5"),
    ("esp32s3", 0x125a50, "andbc b5, b10, b5"),
    ("esp32s3", 0x225a50, "orb b5, b10, b5"),
    ("esp32s3", 0x325a50, "orbc b5, b10, b5"),
    ("esp32s3", 0x425a50, "xorb b5, b10, b5"),
    ("esp32s3", 0x625a50, "saltu a5, a10, a5"),
    ("esp32s3", 0x725a50, "salt a5, a10, a5"),
    ("esp32s3", 0x825a50, "mull a5, a10, a5"),
    ("esp32s3", 0xa25a50, "muluh a5, a10, a5"),
    ("esp32s3", 0xb25a50, "mulsh a5, a10, a5"),
    ("esp32s3", 0xc25a50, "quou a5, a10, a5"),
    ("esp32s3", 0xd25a50, "quos a5, a10, a5"),
    ("esp32s3", 0xe25a50, "remu a5, a10, a5"),
    ("esp32s3", 0xf25a50, "rems a5, a10, a5"),
    ("esp32s3", 0x03c3c0, "rsr.eps3 a12"),
    ("esp32s3", 0x13c3c0, "wsr.eps3 a12"),
    ("esp32s3", 0x235a50, "sext a5, a10, 12"),
    ("esp32s3", 0x335a50, "clamps a5, a10, 12"),
    ("esp32s3", 0x435a50, "min a5, a10, a5"),
    ("esp32s3", 0x535a50, "max a5, a10, a5"),
    ("esp32s3", 0x635a50, "minu a5, a10, a5"),
    ("esp32s3", 0x735a50, "maxu a5, a10, a5"),
    ("esp32s3", 0x835a50, "moveqz a5, a10, a5"),
    ("esp32s3", 0x935a50, "movnez a5, a10, a5"),
    ("esp32s3", 0xa35a50, "movltz a5, a10, a5"),
    ("esp32s3", 0xb35a50, "movgez a5, a10, a5"),
    ("esp32s3", 0xc35a50, "movf a5, a10, b5"),
    ("esp32s3", 0xd35a50, "movt a5, a10, b5"),
    ("esp32s3", 0xe30000, "rur.accx_0 a0"),
    ("esp32s3", 0xf30300, "wur.qacc_h_1 a0"),
    ("esp32s3", 0x545a50, "extui a5, a5, 10, 6"),
    ("esp32s3", 0x085a50, "lsx f5, a10, a5"),
    ("esp32s3", 0x185a50, "lsxp f5, a10, a5"),
    ("esp32s3", 0x485a50, "ssx f5, a10, a5"),
    ("esp32s3", 0x585a50, "ssxp f5, a10, a5"),
    ("esp32s3", 0x095a50, "l32e a5, a10, -44"),
    ("esp32s3", 0x495a50, "s32e a5, a10, -44"),
    ("esp32s3", 0x595a50, "s32nb a5, a10, 20"),
    ("esp32s3", 0x0a5a50, "add.s f5, f10, f5"),
    ("esp32s3", 0x1a5a50, "sub.s f5, f10, f5"),
    ("esp32s3", 0x2a5a50, "mul.s f5, f10, f5"),
    ("esp32s3", 0x4a5a50, "madd.s f5, f10, f5"),
    ("esp32s3", 0x5a5a50, "msub.s f5, f10, f5"),
    ("esp32s3", 0x6a5a50, "maddn.s f5, f10, f5"),
    ("esp32s3", 0x7a5a50, "divn.s f5, f10, f5"),
    ("esp32s3", 0x8a5a50, "round.s a5, f10, 5"),
    ("esp32s3", 0x9a5a50, "trunc.s a5, f10, 5"),
    ("esp32s3", 0xaa5a50, "floor.s a5, f10, 5"),
    ("esp32s3", 0xba5a50, "ceil.s a5, f10, 5"),
    ("esp32s3", 0xca5a50, "float.s f5, a10, 5"),
    ("esp32s3", 0xda5a50, "ufloat.s f5, a10, 5"),
    ("esp32s3", 0xea5a50, "utrunc.s a5, f10, 5"),
    ("esp32s3", 0xfa5a00, "mov.s f5, f10"),
    ("esp32s3", 0xfa5a10, "abs.s f5, f10"),
    ("esp32s3", 0xfa5a30, "const.s f5, 10"),
    ("esp32s3", 0xfa5a40, "rfr a5, f10"),
    ("esp32s3", 0xfa5a50, "wfr f5, a10"),
    ("esp32s3", 0xfa5a60, "neg.s f5, f10"),
    ("esp32s3", 0xfa5a70, "div0.s f5, f10"),
    ("esp32s3", 0xfa5a80, "recip0.s f5, f10"),
    ("esp32s3", 0xfa5a90, "sqrt0.s f5, f10"),
    ("esp32s3", 0xfa5aa0, "rsqrt0.s f5, f10"),
    ("esp32s3", 0xfa5ab0, "nexp01.s f5, f10"),
    ("esp32s3", 0xfa5ac0, "mksadj.s f5, f10"),
    ("esp32s3", 0xfa5ad0, "mkdadj.s f5, f10"),
    ("esp32s3", 0xfa5ae0, "addexp.s f5, f10"),
    ("esp32s3", 0xfa5af0, "addexpm.s f5, f10"),
    ("esp32s3", 0x1b5a50, "un.s b5, f10, f5"),
    ("esp32s3", 0x2b5a50, "oeq.s b5, f10, f5"),
    ("esp32s3", 0x3b5a50, "ueq.s b5, f10, f5"),
    ("esp32s3", 0x4b5a50, "olt.s b5, f10, f5"),
    ("esp32s3", 0x5b5a50, "ult.s b5, f10, f5"),
    ("esp32s3", 0x6b5a50, "ole.s b5, f10, f5"),
    ("esp32s3", 0x7b5a50, "ule.s b5, f10, f5"),
    ("esp32s3", 0x8b5a50, "moveqz.s f5, f10, a5"),
    ("esp32s3", 0x9b5a50, "movnez.s f5, f10, a5"),
    ("esp32s3", 0xab5a50, "movltz.s f5, f10, a5"),
    ("esp32s3", 0xbb5a50, "movgez.s f5, f10, a5"),
    ("esp32s3", 0xcb5a50, "movf.s f5, f10, b5"),
    ("esp32s3", 0xdb5a50, "movt.s f5, f10, b5"),
    ("esp32s3", 0x5a5a51, "l32r a5, 0x40057b9c"),
    ("esp32s3", 0x5a0a52, "l8ui a5, a10, 90"),
    ("esp32s3", 0x5a1a52, "l16ui a5, a10, 180"),
    ("esp32s3", 0x5a2a52, "l32i a5, a10, 360"),
    ("esp32s3", 0x5a4a52, "s8i a5, a10, 90"),
    ("esp32s3", 0x5a5a52, "s16i a5, a10, 180"),
    ("esp32s3", 0x5a6a52, "s32i a5, a10, 360"),
    ("esp32s3", 0x5a9a52, "l16si a5, a10, 180"),
    ("esp32s3", 0x5aaa52, "movi a5, 0xfffffa5a"),
    ("esp32s3", 0x5aba52, "l32ai a5, a10, 360"),
    ("esp32s3", 0x5aca52, "addi a5, a10, 90"),
    ("esp32s3", 0x5ada52, "addmi a5, a10, 0x5a00"),
    ("esp32s3", 0x5aea52, "s32c1i a5, a10, 360"),
    ("esp32s3", 0x5afa52, "s32ri a5, a10, 360"),
    ("esp32s3", 0x5a0a53, "lsi f5, a10, 360"),
    ("esp32s3", 0x5a4a53, "ssi f5, a10, 360"),
    ("esp32s3", 0x5a8a53, "lsip f5, a10, 360"),
    ("esp32s3", 0x5aca53, "ssip f5, a10, 360"),
    ("esp32s3", 0x720a54, "umul.aa.lh a10, a5"),
    ("esp32s3", 0x760a54, "mul.aa.lh a10, a5"),
    ("esp32s3", 0x7a0a54, "mula.aa.lh a10, a5"),
    ("esp32s3", 0x7e0a54, "muls.aa.lh a10, a5"),
    ("esp32s3", 0x360a44, "mul.ad.lh a10, m3"),
    ("esp32s3", 0x3a0a44, "mula.ad.lh a10, m3"),
    ("esp32s3", 0x3e0a44, "muls.ad.lh a10, m3"),
    ("esp32s3", 0x664054, "mul.da.lh m1, a5"),
    ("esp32s3", 0x6a4054, "mula.da.lh m1, a5"),
    ("esp32s3", 0x6e4054, "muls.da.lh m1, a5"),
    ("esp32s3", 0x264044, "mul.dd.lh m1, m3"),
    ("esp32s3", 0x2a4044, "mula.dd.lh m1, m3"),
    ("esp32s3", 0x2e4044, "muls.dd.lh m1, m3"),
    ("esp32s3", 0x4a5a54, "mula.da.lh.ldinc m1, a10, m1, a5"),
    ("esp32s3", 0x5a5a54, "mula.da.lh.lddec m1, a10, m1, a5"),
    ("esp32s3", 0x0a5a44, "mula.dd.lh.ldinc m1, a10, m1, m3"),
    ("esp32s3", 0x1a5a44, "mula.dd.lh.lddec m1, a10, m1, m3"),
    ("esp32s3", 0x801a04, "ldinc m1, a10"),
    ("esp32s3", 0x901a04, "lddec m1, a10"),
    ("esp32s3", 0x5a5a45, "call0 0x400db7dc"),
    ("esp32s3", 0x5a5a55, "call4 0x400db7dc"),
    ("esp32s3", 0x5a5a65, "call8 0x400db7dc"),
    ("esp32s3", 0x5a5a75, "call12 0x400db7dc"),
    ("esp32s3", 0x5a5a46, "j 0x40097ba1"),
    ("esp32s3", 0x5a5a16, "beqz a10, 0x400817dd"),
    ("esp32s3", 0x5a5a56, "bnez a10, 0x400817dd"),
    ("esp32s3", 0x5a5a96, "bltz a10, 0x400817dd"),
    ("esp32s3", 0x5a5ad6, "bgez a10, 0x400817dd"),
    ("esp32s3", 0x5a5a26, "beqi a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5a66, "bnei a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5aa6, "blti a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5ae6, "bgei a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5ab6, "bltui a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5af6, "bgeui a10, 5, 0x40081292"),
    ("esp32s3", 0x5a5a36, "entry a10, 11560"),
    ("esp32s3", 0x5a0a76, "bf b10, 0x40081292"),
    ("esp32s3", 0x5a1a76, "bt b10, 0x40081292"),
    ("esp32s3", 0x5a8a76, "loop a10, 0x40081292"),
    ("esp32s3", 0x5a9a76, "loopnez a10, 0x40081292"),
    ("esp32s3", 0x5aaa76, "loopgtz a10, 0x40081292"),
    ("esp32s3", 0x5a0a57, "bnone a10, a5, 0x40081292"),
    ("esp32s3", 0x5a1a57, "beq a10, a5, 0x40081292"),
    ("esp32s3", 0x5a2a57, "blt a10, a5, 0x40081292"),
    ("esp32s3", 0x5a3a57, "bltu a10, a5, 0x40081292"),
    ("esp32s3", 0x5a4a57, "ball a10, a5, 0x40081292"),
    ("esp32s3", 0x5a5a57, "bbc a10, a5, 0x40081292"),
    ("esp32s3", 0x5a7a57, "bbci a10, 21, 0x40081292"),
    ("esp32s3", 0x5a8a57, "bany a10, a5, 0x40081292"),
    ("esp32s3", 0x5a9a57, "bne a10, a5, 0x40081292"),
    ("esp32s3", 0x5aaa57, "bge a10, a5, 0x40081292"),
    ("esp32s3", 0x5aba57, "bgeu a10, a5, 0x40081292"),
    ("esp32s3", 0x5aca57, "bnall a10, a5, 0x40081292"),
    ("esp32s3", 0x5ada57, "bbs a10, a5, 0x40081292"),
    ("esp32s3", 0x5afa57, "bbsi a10, 21, 0x40081292"),
    ("esp32s3", 0x005a58, "l32i.n a5, a10, 20"),
    ("esp32s3", 0x005a59, "s32i.n a5, a10, 20"),
    ("esp32s3", 0x005a5a, "add.n a5, a10, a5"),
    ("esp32s3", 0x005a5b, "addi.n a5, a10, 5"),
    ("esp32s3", 0x005a5c, "movi.n a10, 85"),
    ("esp32s3", 0x005a9c, "beqz.n a10, 0x4008124d"),
    ("esp32s3", 0x005adc, "bnez.n a10, 0x4008124d"),
    ("esp32s3", 0x000a5d, "mov.n a5, a10"),
    ("esp32s3", 0x00f00d, "ret.n"),
    ("esp32s3", 0x00f01d, "retw.n"),
    ("esp32s3", 0x00fa2d, "break.n 10"),
    ("esp32s3", 0x00f03d, "nop.n"),
    ("esp32s3", 0x00f06d, "ill.n"),
];

/// Decode speed: every 24-bit word, then the legal ones only, per configuration (one thread).
/// Before the table the hand-written decoder took 3.2–4.3 ns a word on esp8266/esp32 (legal and
/// all words) and 18–26 ns on the esp32s3 (PIE words are looked up row by row).
#[test]
#[ignore]
fn bench_decode() {
    for (name, cfg) in configs() {
        let all: Vec<u32> = (0..1u32 << 24).collect();
        let legal: Vec<u32> = all
            .iter()
            .copied()
            .filter(|&w| decode(w, 0x4000_0000, &cfg).op != Op::Illegal)
            .collect();
        for (set, words) in [("all", &all), ("legal", &legal)] {
            let t0 = std::time::Instant::now();
            let sum = words.iter().fold(0u32, |acc, &w| {
                acc.wrapping_add(decode(w, 0x4000_0000, &cfg).imm)
            });
            let ns = t0.elapsed().as_nanos() as f64 / words.len() as f64;
            println!(
                "{name} {set} ({} words): {ns:.1} ns/word ({sum})",
                words.len()
            );
        }
    }
}
