//! Tests of the PIE instructions added from the ESP32-S3 TRM (pie.rs module notes): EE.LDXQ.32,
//! EE.STXQ.32, EE.BITREV and the EE.FFT.* family. Words are assembled from the S2 libisa field
//! layouts (`PieDef::encode`), and a few are also built by hand from the TRM's instruction-word diagrams.
//! Every expected value is worked by hand from the TRM v1.8 §1.8 operation pseudo-code; the arithmetic
//! is in the comments. Lane lists are 16-bit lanes 0..7 (lane 0 = bytes 0–1 of the register).

use super::bus::FlatMemory;
use super::config::XtensaConfig;
use super::cpu::{cause, NoHooks, StopReason};
use super::decode::{decode, Op};
use super::exec::Xtensa;
use super::pie::{self, Key as K};

/// Vectors (VECBASE at reset) and code.
const VEC: u32 = 0x4000_0000;
const CODE: u32 = 0x4000_1000;
/// Data: 256 KiB, so an index lane of 0x8000 words (+128 KiB) stays mapped.
const DATA: u32 = 0x3FF0_0000;

struct Sim {
    x: Xtensa,
    mem: FlatMemory,
}

impl Sim {
    /// An ESP32-S3 with CP3 enabled, a BREAK at every 16-byte vector slot, code, data and a small
    /// region at address 0 (for pointer wrap-around).
    fn new() -> Sim {
        let mut mem = FlatMemory::new();
        mem.add_region(VEC, 0x10000, true);
        mem.add_region(DATA, 0x40000, true);
        mem.add_region(0, 0x100, true);
        for off in (0..0x400).step_by(16) {
            assert!(mem.load(VEC + off, &BREAK));
        }
        let mut x = Xtensa::new(XtensaConfig::esp32s3());
        x.cpu.cpenable = 1 << 3;
        Sim { x, mem }
    }

    fn ar(&mut self, regs: &[(u32, u32)]) -> &mut Self {
        for &(r, v) in regs {
            self.x.cpu.set_ar(r, v);
        }
        self
    }

    fn a(&self, r: u32) -> u32 {
        self.x.cpu.ar(r)
    }

    fn q16(&mut self, q: usize, lanes: [i16; 8]) -> &mut Self {
        self.x.cpu.pie.q[q] = from_i16(lanes);
        self
    }

    fn lanes(&self, q: usize) -> [i16; 8] {
        to_i16(&self.x.cpu.pie.q[q])
    }

    fn mem16(&mut self, addr: u32) -> [i16; 8] {
        to_i16(&self.mem.peek(addr, 16).unwrap().try_into().unwrap())
    }

    fn word(&mut self, addr: u32) -> u32 {
        u32::from_le_bytes(self.mem.peek(addr, 4).unwrap().try_into().unwrap())
    }

    /// Load the program (the instructions, then BREAK) at CODE and run it; returns the stop.
    fn exec(&mut self, prog: &[(&str, &[(K, i64)])]) -> StopReason {
        let mut bytes = Vec::new();
        for (name, vals) in prog {
            let d = pie::def_by_name(name).unwrap_or_else(|| panic!("no PIE opcode {name}"));
            bytes.extend_from_slice(&d.encode(vals).to_le_bytes()[..d.len as usize]);
        }
        bytes.extend_from_slice(&BREAK);
        assert!(self.mem.load(CODE, &bytes));
        self.x.cpu.pc = CODE;
        self.x.run(&mut self.mem, &mut NoHooks, 1000, u64::MAX)
    }

    /// `exec`, which must end at the program's BREAK.
    fn run(&mut self, prog: &[(&str, &[(K, i64)])]) -> &mut Self {
        match self.exec(prog) {
            StopReason::Break { pc, .. } if pc >= CODE => self,
            other => panic!(
                "unexpected stop {other:?} (EXCCAUSE {})",
                self.x.cpu.exccause
            ),
        }
    }
}

/// BREAK 0, 0 (RRR op0 = 0, op1 = 0, op2 = 0, r = 4).
const BREAK: [u8; 3] = [0x00, 0x40, 0x00];

fn from_i16(v: [i16; 8]) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..8 {
        q[2 * i..2 * i + 2].copy_from_slice(&v[i].to_le_bytes());
    }
    q
}

fn to_i16(q: &[u8; 16]) -> [i16; 8] {
    std::array::from_fn(|i| i16::from_le_bytes([q[2 * i], q[2 * i + 1]]))
}

fn from_u32(v: [u32; 4]) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..4 {
        q[4 * i..4 * i + 4].copy_from_slice(&v[i].to_le_bytes());
    }
    q
}

fn bytes(f: impl Fn(usize) -> u8) -> [u8; 16] {
    std::array::from_fn(f)
}

const M: i16 = 0x1234; // marker for lanes an instruction must keep

#[test]
fn pie_every_opcode_is_executed() {
    assert!(pie::defs().iter().all(|d| d.executed()));
    for name in [
        "ldxq.32",
        "stxq.32",
        "fft.r2bf.s16",
        "fft.ams.s16.st.incp",
        "fft.vst.r32.decp",
    ] {
        let d = pie::def_by_name(name).unwrap();
        let insn = decode(d.encode(&[]), CODE, &XtensaConfig::esp32s3());
        assert_eq!(insn.op, Op::Ee);
        assert_eq!(pie::not_executed(&insn), None, "{name}");
    }
}

/// An opcode, its operands and the word they must assemble to.
type Case = (&'static str, &'static [(K, i64)], u32);

#[test]
fn pie_trm_instruction_words_match_the_4_3_layouts() {
    // Words assembled by hand from the TRM v1.8 instruction-word diagrams (msb first).
    let cases: [Case; 6] = [
        // §1.8.13 FFT.R2BF.S16 qa0=2 qa1=3 qx=5 qy=6 sel2=1: 11 | qa0[2:1]=01 | 1100 | qa0[0]=0 | qa1=011 |
        // qy[2:1]=11 | 0 | sel2=1 | qx[2:1]=10 | qy[0]=0 | qx[0]=1 | 0100
        // = 0xC00000 + 0x100000 + 0x0C0000 + 0x3000 + 0xC00 + 0x100 + 0x80 + 0x10 + 0x4.
        (
            "fft.r2bf.s16",
            &[
                (K::Qa0, 2),
                (K::Qa1, 3),
                (K::Qx, 5),
                (K::Qy, 6),
                (K::Sel, 1),
            ],
            0xDC3D94,
        ),
        // §1.8.12 FFT.CMUL.S16.ST.XP qx=5 qy=3 qv=6 as=a2 ad=a4 sel8=6 upd4=2 sar4=1: 10101 | sar4=01 |
        // upd4[1]=1 | sel8[0]=0 | qy=011 | upd4[0]=0 | qv=110 | qx[1:0]=01 | sel8[2:1]=11 | ad=4 | as=2 |
        // 111 | qx[2]=1 = 0xA8000000 + 0x02000000 + 0x01000000 + 0x300000 + 0x60000 + 0x4000 + 0x3000
        // + 0x400 + 0x20 + 0xE + 1.
        (
            "fft.cmul.s16.st.xp",
            &[
                (K::Qx, 5),
                (K::Qy, 3),
                (K::Qv, 6),
                (K::As, 2),
                (K::Ad, 4),
                (K::Sel, 6),
                (K::Upd4, 2),
                (K::Sar, 1),
            ],
            0xAB36_742F,
        ),
        // §1.8.37 LDXQ.32 qu=2 qs=6 as=a11 sel4=2 sel8=1: 1110000 | sel4[1]=1 | sel8[0]=1 | 111 |
        // sel4[0]=0 | qu=010 | qs[1:0]=10 | sel8[2:1]=00 | 1101 | as=1011 | 111 | qs[2]=1
        // = 0xE0000000 + 0x01000000 + 0x800000 + 0x700000 + 0x20000 + 0x8000 + 0xD00 + 0xB0 + 0xE + 1.
        (
            "ldxq.32",
            &[
                (K::Qu, 2),
                (K::Qs, 6),
                (K::As, 11),
                (K::Sel, 2),
                (K::Idx, 1),
            ],
            0xE1F2_8DBF,
        ),
        // §1.8.7 FFT.AMS.S16.LD.INCP qu=5 as=a5 qz=3 qz1=1 qx=1 qy=2 qm=5 sel2=1: 110100 | sel2=1 |
        // qz1[2]=0 | qz[0]=1 | qy=010 | qz1[1]=0 | qm=101 | qx[1:0]=01 | qz[2:1]=01 | qz1[0]=1 | qu=101 |
        // as=0101 | 111 | qx[2]=0 = 0xD0000000 + 0x02000000 + 0x800000 + 0x200000 + 0x50000 + 0x4000
        // + 0x1000 + 0x800 + 0x500 + 0x50 + 0xE.
        (
            "fft.ams.s16.ld.incp",
            &[
                (K::Qu, 5),
                (K::As, 5),
                (K::Qz, 3),
                (K::Qz1, 1),
                (K::Qx, 1),
                (K::Qy, 2),
                (K::Qm, 5),
                (K::Sel, 1),
            ],
            0xD2A5_5D5E,
        ),
        // §1.8.15 FFT.VST.R32.DECP qv=5 as=a3 sar2=1: 11 | qv[2:1]=10 | 1101 | qv[0]=1 | 0110 | sar2=1 |
        // 11 | as=0011 | 0100 = 0xC00000 + 0x200000 + 0xD0000 + 0x8000 + 0x3000 + 0x400 + 0x300 + 0x34.
        (
            "fft.vst.r32.decp",
            &[(K::Qv, 5), (K::As, 3), (K::Sar, 1)],
            0xEDB734,
        ),
        // §1.8.2 BITREV qa=2 as=a6: 11 | qa[2:1]=01 | 1101 | qa[0]=0 | 1111011 | as=0110 | 0100
        // = 0xC00000 + 0x100000 + 0xD0000 + 0x7B00 + 0x60 + 0x4.
        ("bitrev", &[(K::Qa, 2), (K::Ax, 6)], 0xDD7B64),
    ];
    let cfg = XtensaConfig::esp32s3();
    for (name, vals, word) in cases {
        let d = pie::def_by_name(name).unwrap();
        assert_eq!(d.encode(vals), word, "{name}: {:#x}", d.encode(vals));
        let insn = decode(word, CODE, &cfg);
        assert_eq!(pie::def_of(&insn).name, name);
    }
}

#[test]
fn pie_fft_r2bf_s16_lane_selection_wrap_and_aliasing() {
    // TRM §1.8.13. sel2 = 0: op_a = {qy[63:0], qx[63:0]}, op_b = {qy[127:64], qx[127:64]}, so
    // qa0 = [x0+x4, x1+x5, x2+x6, x3+x7, x0−x4, x1−x5, x2−x6, x3−x7] and qa1 the same of qy.
    let x = [32767, 2, 3, -32768, 1, 20, 30, 1];
    let y = [100, 200, 300, 400, 1000, 2000, 3000, 4000];
    let mut s = Sim::new();
    s.q16(0, x).q16(1, y);
    s.run(&[(
        "fft.r2bf.s16",
        &[
            (K::Qa0, 2),
            (K::Qa1, 3),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Sel, 0),
        ],
    )]);
    // 32767+1 = 32768 wraps to −32768; −32768+1 = −32767; 32767−1 = 32766; −32768−1 = −32769 wraps to 32767.
    assert_eq!(s.lanes(2), [-32768, 22, 33, -32767, 32766, -18, -27, 32767]);
    assert_eq!(
        s.lanes(3),
        [1100, 2200, 3300, 4400, -900, -1800, -2700, -3600]
    );

    // sel2 = 1: op_a = {qy[95:64], qy[31:0], qx[95:64], qx[31:0]} (lanes x0 x1 x4 x5 | y0 y1 y4 y5),
    // op_b = {qy[127:96], qy[63:32], qx[127:96], qx[63:32]} (x2 x3 x6 x7 | y2 y3 y6 y7).
    // qa0 = qx and qa1 = qy here: both are read before either is written.
    let x = [1, 2, 3, 4, 10, 20, 30, 40];
    let mut s = Sim::new();
    s.q16(0, x).q16(1, y);
    s.run(&[(
        "fft.r2bf.s16",
        &[
            (K::Qa0, 0),
            (K::Qa1, 1),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Sel, 1),
        ],
    )]);
    // qa0 = [1+3, 2+4, 10+30, 20+40, 1−3, 2−4, 10−30, 20−40].
    assert_eq!(s.lanes(0), [4, 6, 40, 60, -2, -2, -20, -20]);
    // qa1 = [100+300, 200+400, 1000+3000, 2000+4000, 100−300, 200−400, 1000−3000, 2000−4000].
    assert_eq!(s.lanes(1), [400, 600, 4000, 6000, -200, -200, -2000, -2000]);
}

#[test]
fn pie_fft_r2bf_s16_st_incp_shift_by_sar4_and_store() {
    // TRM §1.8.14: qa0 = x − y; store (x + y) >> sar4 at as & ~15; as += 16.
    let x = [100, -100, 3, -3, 32767, -32768, 7, 0];
    let y = [50, -50, 2, -4, 1, -1, -8, 0];
    let mut s = Sim::new();
    s.q16(0, x).q16(1, y).ar(&[(2, DATA + 0x105)]);
    s.run(&[
        (
            "fft.r2bf.s16.st.incp",
            &[(K::Qa0, 2), (K::Qx, 0), (K::Qy, 1), (K::As, 2), (K::Sar, 1)],
        ),
        (
            "fft.r2bf.s16.st.incp",
            &[(K::Qa0, 3), (K::Qx, 0), (K::Qy, 1), (K::As, 2), (K::Sar, 0)],
        ),
    ]);
    // Sums 150, −150, 5, −7, 32768, −32769, −1, 0 at full precision; >> 1 (arithmetic):
    // 75, −75, 2, −4, 16384, −16385, −1, 0.
    assert_eq!(
        s.mem16(DATA + 0x100),
        [75, -75, 2, -4, 16384, -16385, -1, 0]
    );
    // sar4 = 0: the same sums truncated to 16 bits (32768 → −32768, −32769 → 32767), at DATA+0x115 & ~15.
    assert_eq!(
        s.mem16(DATA + 0x110),
        [150, -150, 5, -7, -32768, 32767, -1, 0]
    );
    // Differences 50, −50, 1, 1, 32766, −32767, 15, 0.
    assert_eq!(s.lanes(2), [50, -50, 1, 1, 32766, -32767, 15, 0]);
    assert_eq!(s.lanes(3), s.lanes(2));
    assert_eq!(s.a(2), DATA + 0x105 + 32);
    assert_eq!(s.lanes(0), x);
}

#[test]
fn pie_fft_cmul_s16_ld_xp_pairs_conjugate_sar_and_load() {
    // TRM §1.8.11: sel8 even: (z_j, z_j+1) = ((x_j·y_j + x_j+1·y_j+1), (x_j+1·y_j − x_j·y_j+1)) >> SAR
    // (x·conj(y)); sel8 odd: ((x_j·y_j − x_j+1·y_j+1), (x_j+1·y_j + x_j·y_j+1)) >> SAR (x·y); j = 2·(sel8>>1).
    let x = [3, 4, 1, 2, 5, 6, 7, 8];
    let y = [1, 2, 3, -1, 2, 2, 1, 1];
    let mut s = Sim::new();
    s.q16(0, x).q16(1, y).q16(5, [M; 8]).q16(6, [M; 8]);
    s.x.cpu.sar = 1;
    s.mem
        .load(DATA, &(0..0x80).map(|i| i as u8).collect::<Vec<_>>());
    // a2 walks down by ad = −0x20 from DATA+0x67 (the add wraps modulo 2^32).
    s.ar(&[(2, DATA + 0x67), (3, (-0x20i32) as u32)]);
    let op = |sel: i64, qz: i64| {
        [
            (K::Qu, 4),
            (K::As, 2),
            (K::Ad, 3),
            (K::Qz, qz),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Sel, sel),
        ]
    };
    s.run(&[
        ("fft.cmul.s16.ld.xp", &op(0, 5)),
        ("fft.cmul.s16.ld.xp", &op(3, 5)),
        ("fft.cmul.s16.ld.xp", &op(5, 5)),
        ("fft.cmul.s16.ld.xp", &op(6, 6)),
    ]);
    // sel8 0: (3·1 + 4·2, 4·1 − 3·2) >> 1 = (11, −2) >> 1 = (5, −1).
    // sel8 3: (1·3 − 2·(−1), 2·3 + 1·(−1)) >> 1 = (5, 5) >> 1 = (2, 2).
    // sel8 5: (5·2 − 6·2, 6·2 + 5·2) >> 1 = (−2, 22) >> 1 = (−1, 11). Lanes 6–7 of q5 are kept.
    assert_eq!(s.lanes(5), [5, -1, 2, 2, -1, 11, M, M]);
    // sel8 6 (pair 3, conjugate; not listed for LD.XP in the TRM, see pie.rs):
    // (7·1 + 8·1, 8·1 − 7·1) >> 1 = (15, 1) >> 1 = (7, 0).
    assert_eq!(s.lanes(6), [M, M, M, M, M, M, 7, 0]);
    // Loads from DATA+0x60, +0x40, +0x20, +0x00 (bits 3:0 of as ignored); the last one stays in q4.
    assert_eq!(s.x.cpu.pie.q[4], bytes(|i| i as u8));
    assert_eq!(s.a(2), DATA + 0x67 - 0x80);
}

#[test]
fn pie_fft_cmul_s16_st_xp_upd4_layouts() {
    // TRM §1.8.12: temp = the FFT.CMUL product of the sel8 pair (stored in lanes 6–7); lanes 0–5 by upd4:
    // 0: qv lanes 0–5; 1: qx lanes 0–3 >> sar4, qv lanes 4–5; 2: qx0, qx1 >> sar4, qv lanes 4–5,
    // qx2, qx3 >> sar4. as += ad.
    let x = [-8, 9, -16, 17, 4, 5, 3, 2];
    let y = [0, 0, 1, 1, 0, 0, 5, -4];
    let v = [10, 11, 12, 13, 14, 15, 16, 17];
    let mut s = Sim::new();
    s.q16(0, x)
        .q16(1, y)
        .q16(2, v)
        .ar(&[(2, DATA + 0x203), (3, 16)]);
    s.x.cpu.sar = 2;
    let op = |sel: i64, upd: i64| {
        [
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Qv, 2),
            (K::As, 2),
            (K::Ad, 3),
            (K::Sel, sel),
            (K::Upd4, upd),
            (K::Sar, 2),
        ]
    };
    s.run(&[
        ("fft.cmul.s16.st.xp", &op(6, 0)),
        ("fft.cmul.s16.st.xp", &op(7, 1)),
        ("fft.cmul.s16.st.xp", &op(6, 2)),
        ("fft.cmul.s16.st.xp", &op(7, 3)),
        ("fft.cmul.s16.st.xp", &op(2, 0)),
    ]);
    // sel8 6: (3·5 + 2·(−4), 2·5 − 3·(−4)) >> 2 = (7, 22) >> 2 = (1, 5).
    // sel8 7: (3·5 − 2·(−4), 2·5 + 3·(−4)) >> 2 = (23, −2) >> 2 = (5, −1).
    // qx lanes 0–3 >> 2: −8 → −2, 9 → 2, −16 → −4, 17 → 4.
    assert_eq!(s.mem16(DATA + 0x200), [10, 11, 12, 13, 14, 15, 1, 5]);
    assert_eq!(s.mem16(DATA + 0x210), [-2, 2, -4, 4, 14, 15, 5, -1]);
    assert_eq!(s.mem16(DATA + 0x220), [-2, 2, 14, 15, -4, 4, 1, 5]);
    // upd4 = 3 is not in the TRM: stored like upd4 = 0 (pie.rs).
    assert_eq!(s.mem16(DATA + 0x230), [10, 11, 12, 13, 14, 15, 5, -1]);
    // sel8 2 (pair 1, conjugate; not listed for ST.XP in the TRM, see pie.rs):
    // (−16·1 + 17·1, 17·1 − (−16)·1) >> 2 = (1, 33) >> 2 = (0, 8), still stored in lanes 6–7.
    assert_eq!(s.mem16(DATA + 0x240), [10, 11, 12, 13, 14, 15, 0, 8]);
    assert_eq!(s.a(2), DATA + 0x203 + 5 * 16);
    // No QR register is written.
    assert_eq!((s.lanes(0), s.lanes(1), s.lanes(2)), (x, y, v));
}

/// Twiddle inputs for the AMS tests: per lane pair (a, b) of qx, (c, d) of qy, (m0, m1) of qm.
fn ams_inputs(s: &mut Sim) {
    // pair 0: (10, 20), (4, 6), (3, −2); pair 1: (100, −50), (30, 10), (2, 1);
    // pair 2: (7, 8), (9, −10), (−1, 4); pair 3: (1000, 2000), (−3000, 500), (5, 6).
    s.q16(0, [10, 20, 100, -50, 7, 8, 1000, 2000]);
    s.q16(1, [4, 6, 30, 10, 9, -10, -3000, 500]);
    s.q16(2, [3, -2, 2, 1, -1, 4, 5, 6]);
    s.q16(3, [M; 8]).q16(4, [M; 8]);
}

/// UA_STATE holding bytes 0xA0..0xAF.
const UA: [u32; 4] = [0xA3A2_A1A0, 0xA7A6_A5A4, 0xABAA_A9A8, 0xAFAE_ADAC];

#[test]
fn pie_fft_ams_s16_loads_lane_pairs_uaup_and_r32() {
    // TRM §1.8.7–1.8.9, with t0 = a+c, t1 = b−d, s = a−c, t = b+d:
    // sel2 0: t2 = (s·m0 − t·m1) >> SAR, t3 = (s·m1 + t·m0) >> SAR;
    // sel2 1: t2 = (t·m1 + s·m0) >> SAR, t3 = (t·m0 − s·m1) >> SAR;
    // qz pair = (t0+t2, t1+t3), qz1 pair = (t0−t2, t3−t1). SAR = 1.
    let mut s = Sim::new();
    ams_inputs(&mut s);
    s.x.cpu.sar = 1;
    s.x.cpu.pie.ua_state = UA;
    s.x.cpu.pie.sar_byte = 5;
    s.mem
        .load(DATA + 0x300, &(0..64).map(|i| i as u8).collect::<Vec<_>>());
    s.ar(&[(2, DATA + 0x309), (3, DATA + 0x310), (4, DATA + 0x32C)]);
    let op = |qu: i64, a: i64, sel: i64| {
        [
            (K::Qu, qu),
            (K::As, a),
            (K::Qz, 3),
            (K::Qz1, 4),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Qm, 2),
            (K::Sel, sel),
        ]
    };
    s.run(&[
        ("fft.ams.s16.ld.incp", &op(5, 2, 0)),
        ("fft.ams.s16.ld.incp.uaup", &op(6, 3, 1)),
        ("fft.ams.s16.ld.r32.decp", &op(7, 4, 0)),
    ]);
    // .LD.INCP, lanes 2–3, sel2 0: t0 = 130, t1 = −60, s = 70, t = −40;
    //   t2 = (70·2 − (−40)·1) >> 1 = 180 >> 1 = 90, t3 = (70·1 + (−40)·2) >> 1 = −10 >> 1 = −5;
    //   qz = (220, −65), qz1 = (40, −5 − (−60) = 55).
    // .UAUP, lanes 0–1, sel2 1: t0 = 14, t1 = 14, s = 6, t = 26;
    //   t2 = (26·(−2) + 6·3) >> 1 = −34 >> 1 = −17, t3 = (26·3 − 6·(−2)) >> 1 = 90 >> 1 = 45;
    //   qz = (14 − 17, 14 + 45) = (−3, 59), qz1 = (14 + 17, 45 − 14) = (31, 31).
    // .R32.DECP, lanes 4–5, sel2 0: t0 = 16, t1 = 18, s = −2, t = −2;
    //   t2 = ((−2)·(−1) − (−2)·4) >> 1 = 10 >> 1 = 5, t3 = ((−2)·4 + (−2)·(−1)) >> 1 = −6 >> 1 = −3;
    //   qz = (21, 15), qz1 = (11, −3 − 18 = −21). Lanes 6–7 are kept.
    assert_eq!(s.lanes(3), [-3, 59, 220, -65, 21, 15, M, M]);
    assert_eq!(s.lanes(4), [31, 31, 40, 55, 11, -21, M, M]);
    // .LD.INCP: bytes 0..15 (as & ~15), as += 16.
    assert_eq!(s.x.cpu.pie.q[5], bytes(|i| i as u8));
    assert_eq!(s.a(2), DATA + 0x319);
    // .UAUP: bytes [SAR_BYTE=5 ..) of UA_STATE‖loaded = 0xA5..0xAF then loaded bytes 16..20;
    // UA_STATE takes the loaded bytes 16..31.
    assert_eq!(
        s.x.cpu.pie.q[6],
        bytes(|i| if i < 11 {
            0xA5 + i as u8
        } else {
            16 + (i - 11) as u8
        })
    );
    assert_eq!(
        s.x.cpu.pie.ua_state,
        [0x1312_1110, 0x1716_1514, 0x1B1A_1918, 0x1F1E_1D1C]
    );
    assert_eq!(s.a(3), DATA + 0x320);
    // .R32.DECP: bytes 32..47 with the 32-bit words reversed; as −= 16.
    assert_eq!(
        s.x.cpu.pie.q[7],
        [44, 45, 46, 47, 40, 41, 42, 43, 36, 37, 38, 39, 32, 33, 34, 35]
    );
    assert_eq!(s.a(4), DATA + 0x31C);
}

#[test]
fn pie_fft_ams_s16_uaup_streams_unaligned_data() {
    // TRM §1.8.8: two .UAUP loads in a row with SAR_BYTE = 14 give the stream shifted by 14 bytes.
    let mut s = Sim::new();
    ams_inputs(&mut s);
    s.x.cpu.pie.ua_state = UA;
    s.x.cpu.pie.sar_byte = 14;
    s.mem
        .load(DATA + 0x300, &(0..64).map(|i| i as u8).collect::<Vec<_>>());
    s.ar(&[(2, DATA + 0x300)]);
    let op = |qu: i64| {
        [
            (K::Qu, qu),
            (K::As, 2),
            (K::Qz, 3),
            (K::Qz1, 4),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Qm, 2),
            (K::Sel, 0),
        ]
    };
    s.run(&[
        ("fft.ams.s16.ld.incp.uaup", &op(5)),
        ("fft.ams.s16.ld.incp.uaup", &op(6)),
    ]);
    // First: 0xAE, 0xAF, then loaded bytes 0..13; second: bytes 14, 15, then 16..29.
    assert_eq!(
        s.x.cpu.pie.q[5],
        bytes(|i| if i < 2 { 0xAE + i as u8 } else { (i - 2) as u8 })
    );
    assert_eq!(s.x.cpu.pie.q[6], bytes(|i| 14 + i as u8));
    assert_eq!(
        s.x.cpu.pie.ua_state,
        [0x1312_1110, 0x1716_1514, 0x1B1A_1918, 0x1F1E_1D1C]
    );
    assert_eq!(s.a(2), DATA + 0x320);
}

#[test]
fn pie_fft_ams_s16_full_precision_twiddle_and_wrap() {
    // TRM §1.8.7 on lanes 2–3 with a = 32767, b = 100, c = −32768, d = −32768, m = (16384, 0), SAR = 15,
    // sel2 0: t0 = [15:0] of −1 = −1; t1 = [15:0] of 100 + 32768 = 32868 → −32668;
    // s = a − c = 65535 and t = b + d = −32668 at full precision;
    // t2 = (65535·16384 − (−32668)·0) >> 15 = 1073725440 >> 15 = 32767 (32767.5 rounded down);
    // t3 = (65535·0 + (−32668)·16384) >> 15 = −16334;
    // qz = (−1 + 32767, −32668 − 16334 = −49002 → −49002 + 65536) = (32766, 16534);
    // qz1 = (−1 − 32767, −16334 + 32668) = (−32768, 16334).
    let mut s = Sim::new();
    s.q16(0, [0, 0, 32767, 100, 0, 0, 0, 0]);
    s.q16(1, [0, 0, -32768, -32768, 0, 0, 0, 0]);
    s.q16(2, [0, 0, 16384, 0, 0, 0, 0, 0]);
    s.q16(3, [M; 8]).q16(4, [M; 8]).ar(&[(2, DATA)]);
    s.x.cpu.sar = 15;
    s.run(&[(
        "fft.ams.s16.ld.incp",
        &[
            (K::Qu, 5),
            (K::As, 2),
            (K::Qz, 3),
            (K::Qz1, 4),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Qm, 2),
            (K::Sel, 0),
        ],
    )]);
    assert_eq!(s.lanes(3), [M, M, 32766, 16534, M, M, M, M]);
    assert_eq!(s.lanes(4), [M, M, -32768, 16334, M, M, M, M]);
}

#[test]
fn pie_fft_ams_s16_st_incp_store_shift_at_and_aliasing() {
    // TRM §1.8.10: store {qv lanes 0–5, at} (at in lanes 0–1; each >> 1 when sel2 = 0) at as & ~15,
    // then the AMS step on lanes 6–7: qz1 pair, at = qz pair, as += 16. SAR = 2.
    let v = [100, -100, 33, -33, 1, -1, 9999, 9999];
    let mut s = Sim::new();
    ams_inputs(&mut s);
    s.q16(5, v);
    s.x.cpu.sar = 2;
    s.ar(&[(2, DATA + 0x40F), (5, 0xFFFB_0007), (6, DATA + 0x430)]);
    let op = |qz1: i64, at: i64, a: i64, sel: i64| {
        [
            (K::Qv, 5),
            (K::Qz1, qz1),
            (K::As0, at),
            (K::As, a),
            (K::Qx, 0),
            (K::Qy, 1),
            (K::Qm, 2),
            (K::Sel, sel),
        ]
    };
    s.run(&[
        ("fft.ams.s16.st.incp", &op(3, 5, 2, 0)),
        ("fft.ams.s16.st.incp", &op(4, 5, 2, 1)),
        ("fft.ams.s16.st.incp", &op(4, 6, 6, 1)),
    ]);
    // Lanes 6–7: t0 = 1000 − 3000 = −2000, t1 = 2000 − 500 = 1500, s = 4000, t = 2500.
    // 1st (sel2 0): stored at = 0xFFFB_0007: 7 >> 1 = 3, −5 >> 1 = −3; qv lanes 0–5 >> 1: 50, −50, 16,
    // −17, 0, −1. t2 = (4000·5 − 2500·6) >> 2 = 5000 >> 2 = 1250, t3 = (4000·6 + 2500·5) >> 2 = 36500 >> 2
    // = 9125; qz = (−750, 10625) → at = 0x2981_FD12; qz1 = (−2000 − 1250, 9125 − 1500) = (−3250, 7625).
    assert_eq!(s.mem16(DATA + 0x400), [3, -3, 50, -50, 16, -17, 0, -1]);
    assert_eq!(s.lanes(3), [M, M, M, M, M, M, -3250, 7625]);
    // 2nd (sel2 1): stores that at and qv lanes 0–5 unshifted. t2 = (2500·6 + 4000·5) >> 2 = 8750,
    // t3 = (2500·5 − 4000·6) >> 2 = −11500 >> 2 = −2875; qz = (6750, −1375) → at = 0xFAA1_1A5E;
    // qz1 = (−2000 − 8750, −2875 − 1500) = (−10750, −4375). Then the 3rd overwrites q4 identically.
    assert_eq!(
        s.mem16(DATA + 0x410),
        [-750, 10625, 100, -100, 33, -33, 1, -1]
    );
    assert_eq!(s.lanes(4), [M, M, M, M, M, M, -10750, -4375]);
    assert_eq!(s.a(5), 0xFAA1_1A5E);
    assert_eq!(s.a(2), DATA + 0x42F);
    // 3rd: at and as are both a6 = DATA + 0x430 = 0x3FF0_0430: stores 0x0430 = 1072 and 0x3FF0 = 16368
    // unshifted; at is written, then as = DATA + 0x440, which wins.
    assert_eq!(
        s.mem16(DATA + 0x430),
        [1072, 16368, 100, -100, 33, -33, 1, -1]
    );
    assert_eq!(s.a(6), DATA + 0x440);
}

#[test]
fn pie_fft_vst_r32_decp_reverses_words_shifts_and_wraps() {
    // TRM §1.8.15: {l1, l0, l3, l2, l5, l4, l7, l6} >> sar2 as the 128-bit value, msb first: memory
    // lanes are l6, l7, l4, l5, l2, l3, l0, l1. as −= 16.
    let mut s = Sim::new();
    s.q16(0, [1, -2, 3, -4, 5, -6, 7, -32768])
        .ar(&[(2, DATA + 0x51F), (3, 0x0C)]);
    s.run(&[
        ("fft.vst.r32.decp", &[(K::Qv, 0), (K::As, 2), (K::Sar, 1)]),
        ("fft.vst.r32.decp", &[(K::Qv, 0), (K::As, 2), (K::Sar, 0)]),
        ("fft.vst.r32.decp", &[(K::Qv, 0), (K::As, 3), (K::Sar, 0)]),
    ]);
    // sar2 1: lanes >> 1 = 0, −1, 1, −2, 2, −3, 3, −16384.
    assert_eq!(s.mem16(DATA + 0x510), [3, -16384, 2, -3, 1, -2, 0, -1]);
    assert_eq!(s.mem16(DATA + 0x500), [7, -32768, 5, -6, 3, -4, 1, -2]);
    assert_eq!(s.a(2), DATA + 0x51F - 32);
    // as = 0x0C stores at 0 and wraps to 0xFFFF_FFFC.
    assert_eq!(s.mem16(0), [7, -32768, 5, -6, 3, -4, 1, -2]);
    assert_eq!(s.a(3), 0xFFFF_FFFC);
}

#[test]
fn pie_ldxq_stxq_index_lane_alignment_and_word_select() {
    // TRM §1.8.37 / §1.8.69: address = as + 4·qs[16·sel8 +: 16] with bits 1:0 cleared; word sel4 of
    // qu (load) or qv (store). as is not updated.
    let mut s = Sim::new();
    let table: Vec<u8> = (0..128u32)
        .flat_map(|i| (0xC0DE_0000 + i).to_le_bytes())
        .collect();
    s.mem.load(DATA + 0x1000, &table);
    s.mem.load(DATA + 0x21000, &0xBEEF_CAFEu32.to_le_bytes());
    s.q16(0, [0, 1, 5, i16::MIN, 3, 2, 7, 100]);
    s.x.cpu.pie.q[1] = from_u32([0x5555_5555; 4]);
    s.x.cpu.pie.q[2] = from_u32([0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444]);
    s.ar(&[(2, DATA + 0x1002)]);
    let ld = |sel4: i64, sel8: i64| {
        [
            (K::Qu, 1),
            (K::Qs, 0),
            (K::As, 2),
            (K::Sel, sel4),
            (K::Idx, sel8),
        ]
    };
    let st = |sel4: i64, sel8: i64| {
        [
            (K::Qv, 2),
            (K::Qs, 0),
            (K::As, 2),
            (K::Sel, sel4),
            (K::Idx, sel8),
        ]
    };
    s.run(&[
        ("ldxq.32", &ld(0, 2)),
        ("ldxq.32", &ld(3, 7)),
        ("ldxq.32", &ld(1, 3)),
        ("stxq.32", &st(2, 1)),
        ("stxq.32", &st(0, 0)),
    ]);
    // sel8 2: lane 5 → DATA+0x1002 + 20 = DATA+0x1016 → DATA+0x1014 = entry 5 → word 0.
    // sel8 7: lane 100 → DATA+0x1002 + 400 = DATA+0x1192 → DATA+0x1190 = entry 100 → word 3.
    // sel8 3: lane 0x8000 read unsigned → DATA+0x1002 + 0x20000 → DATA+0x21000 → word 1. Word 2 is kept.
    let q1: [u32; 4] = std::array::from_fn(|i| {
        u32::from_le_bytes(s.x.cpu.pie.q[1][4 * i..4 * i + 4].try_into().unwrap())
    });
    assert_eq!(q1, [0xC0DE_0005, 0xBEEF_CAFE, 0x5555_5555, 0xC0DE_0064]);
    // STXQ sel8 1 (lane 1 → DATA+0x1006 → DATA+0x1004) ← word 2; sel8 0 (lane 0 → DATA+0x1000) ← word 0.
    assert_eq!(s.word(DATA + 0x1000), 0x1111_1111);
    assert_eq!(s.word(DATA + 0x1004), 0x3333_3333);
    assert_eq!(s.word(DATA + 0x1008), 0xC0DE_0002);
    assert_eq!(s.a(2), DATA + 0x1002);
}

/// One EE.BITREV q3, a2 with FFT_BIT_WIDTH = `w` and a2 = `a`; q3 starts as all M.
fn bitrev(w: u32, a: u32) -> Sim {
    let mut s = Sim::new();
    s.x.cpu.pie.fft_bit_width = w;
    s.q16(3, [M; 8]).ar(&[(2, a)]);
    s.run(&[("bitrev", &[(K::Qa, 3), (K::Ax, 2)])]);
    s
}

#[test]
fn pie_bitrev_stores_the_larger_of_index_and_reverse() {
    // TRM §1.8.2: temp_i = as[15:0] + i; lane i = max(temp_i[w-1:0], Switch_w(temp_i[w-1:0])), zero-extended
    // to 16 bits, w = FFT_BIT_WIDTH; then as += 8.
    // w = 4, as = 0x1234_FFFE: temp = 0xFFFE, 0xFFFF, then wraps to 0x0000..0x0005; low 4 bits 14, 15, 0..5.
    // 14 = 1110 → 0111 = 7: 14; 15 → 15; 0 → 0; 1 = 0001 → 1000 = 8; 2 = 0010 → 0100 = 4; 3 = 0011 → 1100 = 12;
    // 4 = 0100 → 0010 = 2: 4; 5 = 0101 → 1010 = 10.
    let s = bitrev(4, 0x1234_FFFE);
    assert_eq!(s.lanes(3), [14, 15, 0, 8, 4, 12, 4, 10]);
    // as is updated over all 32 bits: 0x1234_FFFE + 8 carries into the upper half.
    assert_eq!(s.a(2), 0x1235_0006);

    // w = 10, as = 0xABCD_02C0: temp = 704..711 = 10_1100_0000 .. 10_1100_0111; reversed over 10 bits:
    // 704 → 00_0000_1101 = 13; 705 → 10_0000_1101 = 525; 706 → 01_0000_1101 = 269; 707 → 11_0000_1101 = 781;
    // 708 → 00_1000_1101 = 141; 709 → 10_1000_1101 = 653; 710 → 01_1000_1101 = 397; 711 → 11_1000_1101 = 909.
    let s = bitrev(10, 0xABCD_02C0);
    assert_eq!(s.lanes(3), [704, 705, 706, 781, 708, 709, 710, 909]);
    assert_eq!(s.a(2), 0xABCD_02C8);

    // w = 8 (one of the widths the TRM elides with "..."), as = 0x3FC9_4040: temp = 0x40..0x47;
    // 0x40 = 0100_0000 → 0000_0010 = 0x02: 0x40; 0x41 → 1000_0010 = 0x82; 0x42 → 0100_0010 = 0x42;
    // 0x43 → 1100_0010 = 0xC2; 0x44 → 0010_0010 = 0x22: 0x44; 0x45 → 1010_0010 = 0xA2;
    // 0x46 → 0110_0010 = 0x62; 0x47 → 1110_0010 = 0xE2.
    let s = bitrev(8, 0x3FC9_4040);
    assert_eq!(s.lanes(3), [0x40, 0x82, 0x42, 0xC2, 0x44, 0xA2, 0x62, 0xE2]);
    assert_eq!(s.a(2), 0x3FC9_4048);
}

#[test]
fn pie_bitrev_width_3_zeroes_lanes_6_and_7() {
    // TRM §1.8.2, FFT_BIT_WIDTH == 3: lanes 0–5 only, then qa[127:96] = 0. temp = 0..5;
    // 0 → 0; 1 = 001 → 100 = 4; 2 → 2; 3 = 011 → 110 = 6; 4 = 100 → 001 = 1: 4; 5 = 101 → 5.
    let s = bitrev(3, 0);
    assert_eq!(s.lanes(3), [0, 4, 2, 6, 4, 5, 0, 0]);
    assert_eq!(s.a(2), 8);
}

#[test]
fn pie_bitrev_consecutive_blocks_of_eight() {
    // The FFT use: as counts the index, each BITREV covers the next eight. w = 5.
    // 1st, temp = 0..7: 0 → 0; 1 → 10000 = 16; 2 → 01000 = 8; 3 → 11000 = 24; 4 = 00100 → 4;
    // 5 = 00101 → 10100 = 20; 6 = 00110 → 01100 = 12; 7 = 00111 → 11100 = 28.
    // 2nd, temp = 8..15: 8 = 01000 → 00010 = 2: 8; 9 = 01001 → 10010 = 18; 10 = 01010 → 10;
    // 11 = 01011 → 11010 = 26; 12 = 01100 → 00110 = 6: 12; 13 = 01101 → 10110 = 22; 14 = 01110 → 14;
    // 15 = 01111 → 11110 = 30.
    let mut s = Sim::new();
    s.x.cpu.pie.fft_bit_width = 5;
    s.ar(&[(4, 0)]);
    s.run(&[
        ("bitrev", &[(K::Qa, 0), (K::Ax, 4)]),
        ("bitrev", &[(K::Qa, 1), (K::Ax, 4)]),
    ]);
    assert_eq!(s.lanes(0), [0, 16, 8, 24, 4, 20, 12, 28]);
    assert_eq!(s.lanes(1), [8, 18, 10, 26, 12, 22, 14, 30]);
    assert_eq!(s.a(4), 16);
}

#[test]
fn pie_bitrev_other_widths_keep_qa_and_step_as() {
    // TRM §1.8.2 has branches for FFT_BIT_WIDTH 3..10 only; for any other value qa is not written
    // (pie.rs module notes), while as += 8 is outside the branches.
    for w in [0, 1, 2, 11, 15] {
        let s = bitrev(w, 0xFFFF_FFFC);
        assert_eq!(s.lanes(3), [M; 8], "FFT_BIT_WIDTH {w}");
        assert_eq!(s.a(2), 4, "FFT_BIT_WIDTH {w}");
    }
}

#[test]
fn pie_fft_and_ldxq_need_cp3_enabled() {
    // S2 libisa state lists, S5 tie.h: every EE opcode but the GPIO ones raises coprocessor-3-disabled
    // (cause 35) with CPENABLE[3] clear, before any state changes.
    for name in ["fft.vst.r32.decp", "ldxq.32", "fft.ams.s16.st.incp"] {
        let mut s = Sim::new();
        s.x.cpu.cpenable = 0;
        s.ar(&[(2, DATA + 0x20), (3, DATA + 0x40)]);
        let stop = s.exec(&[(name, &[(K::As, 2)])]);
        assert!(
            matches!(stop, StopReason::Break { pc, .. } if pc < CODE),
            "{name}: {stop:?}"
        );
        assert_eq!(s.x.cpu.exccause, cause::COPROCESSOR0_DISABLED + 3, "{name}");
        assert_eq!((s.a(2), s.a(3)), (DATA + 0x20, DATA + 0x40), "{name}");
        assert_eq!(s.mem.peek(DATA, 0x80).unwrap(), vec![0; 0x80], "{name}");
    }
}
