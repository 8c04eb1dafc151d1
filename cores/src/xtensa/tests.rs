//! Tests built from hand-assembled instruction words (field layouts of S2, the GNU libisa tables; source
//! tags in the `xtensa` module docs).

#![allow(
    clippy::identity_op,
    clippy::manual_is_multiple_of,
    clippy::manual_split_once
)]

use super::cpu::*;
use super::*;

// ---------------------------------------------------------------------------------------------
// A tiny assembler: encoders from the S2 libisa field layouts and labels with fix-ups.

const CODE: u32 = 0x4000_1000;
const VEC: u32 = 0x4000_0000;
const DATA: u32 = 0x3FFE_0000;
const STACK_TOP: u32 = 0x3FFF_F000;

/// RRR: op2 op1 r s t op0.
fn rrr(op0: u32, op1: u32, op2: u32, r: u32, s: u32, t: u32) -> u32 {
    (op2 << 20) | (op1 << 16) | (r << 12) | (s << 8) | (t << 4) | op0
}
/// RRI8: imm8 r s t op0.
fn rri8(op0: u32, r: u32, s: u32, t: u32, imm8: i32) -> u32 {
    (((imm8 as u32) & 0xFF) << 16) | (r << 12) | (s << 8) | (t << 4) | op0
}
/// RRRN (16-bit): r s t op0.
fn rrrn(op0: u32, r: u32, s: u32, t: u32) -> u32 {
    (r << 12) | (s << 8) | (t << 4) | op0
}

#[derive(Clone, Copy)]
enum Fix {
    Bri8,
    Bri12,
    Call,
    J,
    Loop,
    NarrowBz,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Label(usize);

struct Asm {
    base: u32,
    buf: Vec<u8>,
    labels: Vec<Option<u32>>,
    fixups: Vec<(usize, Fix, Label)>,
}

impl Asm {
    fn new(base: u32) -> Asm {
        Asm {
            base,
            buf: Vec::new(),
            labels: Vec::new(),
            fixups: Vec::new(),
        }
    }
    fn pc(&self) -> u32 {
        self.base + self.buf.len() as u32
    }
    fn i24(&mut self, w: u32) -> &mut Self {
        self.buf.extend_from_slice(&w.to_le_bytes()[..3]);
        self
    }
    fn i16(&mut self, w: u32) -> &mut Self {
        self.buf.extend_from_slice(&w.to_le_bytes()[..2]);
        self
    }
    fn word(&mut self, w: u32) -> &mut Self {
        self.buf.extend_from_slice(&w.to_le_bytes());
        self
    }
    fn align4(&mut self) {
        while self.buf.len() % 4 != 0 {
            self.buf.push(0);
        }
    }
    fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }
    fn bind(&mut self, l: Label) {
        self.labels[l.0] = Some(self.pc());
    }
    fn here(&mut self) -> Label {
        let l = self.label();
        self.bind(l);
        l
    }
    fn fix(&mut self, w: u32, f: Fix, l: Label) -> &mut Self {
        self.fixups.push((self.buf.len(), f, l));
        if matches!(f, Fix::NarrowBz) {
            self.i16(w)
        } else {
            self.i24(w)
        }
    }
    fn finish(&mut self) -> Vec<u8> {
        for &(pos, f, l) in &self.fixups {
            let pc = self.base + pos as u32;
            let tgt = self.labels[l.0].expect("unbound label");
            let mut w = u32::from_le_bytes([
                self.buf[pos],
                self.buf[pos + 1],
                self.buf.get(pos + 2).copied().unwrap_or(0),
                0,
            ]);
            let rel = tgt.wrapping_sub(pc.wrapping_add(4)) as i32;
            match f {
                Fix::Bri8 => {
                    assert!((-128..128).contains(&rel));
                    w |= ((rel as u32) & 0xFF) << 16
                }
                Fix::Bri12 => {
                    assert!((-2048..2048).contains(&rel));
                    w |= ((rel as u32) & 0xFFF) << 12
                }
                Fix::Loop => {
                    assert!((0..256).contains(&rel));
                    w |= (rel as u32) << 16
                }
                Fix::J => w |= ((rel as u32) & 0x3FFFF) << 6,
                Fix::Call => {
                    assert_eq!(tgt & 3, 0);
                    let off = (tgt as i64 - ((pc & !3) as i64 + 4)) / 4;
                    w |= ((off as u32) & 0x3FFFF) << 6
                }
                Fix::NarrowBz => {
                    assert!((0..64).contains(&rel));
                    w |= ((rel as u32 & 0xF) << 12) | (((rel as u32 >> 4) & 3) << 4)
                }
            }
            let b = w.to_le_bytes();
            let n = if matches!(f, Fix::NarrowBz) { 2 } else { 3 };
            self.buf[pos..pos + n].copy_from_slice(&b[..n]);
        }
        self.buf.clone()
    }

    // ---- instructions (S2 libisa opcodes) ----
    fn add(&mut self, r: u32, s: u32, t: u32) -> &mut Self {
        self.i24(rrr(0, 0, 8, r, s, t))
    }
    fn sub(&mut self, r: u32, s: u32, t: u32) -> &mut Self {
        self.i24(rrr(0, 0, 0xC, r, s, t))
    }
    fn addi(&mut self, t: u32, s: u32, imm: i32) -> &mut Self {
        self.i24(rri8(2, 0xC, s, t, imm))
    }
    fn movi(&mut self, t: u32, imm: i32) -> &mut Self {
        let v = (imm as u32) & 0xFFF;
        self.i24(rri8(2, 0xA, v >> 8, t, (v & 0xFF) as i32))
    }
    fn l32i(&mut self, t: u32, s: u32, off: u32) -> &mut Self {
        self.i24(rri8(2, 2, s, t, (off / 4) as i32))
    }
    fn s32i(&mut self, t: u32, s: u32, off: u32) -> &mut Self {
        self.i24(rri8(2, 6, s, t, (off / 4) as i32))
    }
    fn wsr(&mut self, t: u32, sr: u32) -> &mut Self {
        self.i24(rrr(0, 3, 1, sr >> 4, sr & 15, t))
    }
    fn rsr(&mut self, t: u32, sr: u32) -> &mut Self {
        self.i24(rrr(0, 3, 0, sr >> 4, sr & 15, t))
    }
    fn brk(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 4, 0, 0))
    }
    fn nop(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 2, 0, 0xF))
    }
    fn beqz(&mut self, s: u32, l: Label) -> &mut Self {
        self.fix((s << 8) | (1 << 4) | 6, Fix::Bri12, l)
    }
    fn j(&mut self, l: Label) -> &mut Self {
        self.fix(6, Fix::J, l)
    }
    /// CALLn (n = 0..3).
    fn call(&mut self, n: u32, l: Label) -> &mut Self {
        self.fix((n << 4) | 5, Fix::Call, l)
    }
    fn entry(&mut self, s: u32, frame: u32) -> &mut Self {
        self.i24(((frame / 8) << 12) | (s << 8) | (3 << 4) | 6)
    }
    fn retw(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 0, 0, 9))
    }
    fn ret(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 0, 0, 8))
    }
    fn l32e(&mut self, t: u32, s: u32, off: i32) -> &mut Self {
        self.i24(rrr(0, 9, 0, ((off / 4) + 16) as u32, s, t))
    }
    fn s32e(&mut self, t: u32, s: u32, off: i32) -> &mut Self {
        self.i24(rrr(0, 9, 4, ((off / 4) + 16) as u32, s, t))
    }
    fn rfwo(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 3, 4, 0))
    }
    fn rfwu(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 3, 5, 0))
    }
    fn rfe(&mut self) -> &mut Self {
        self.i24(rrr(0, 0, 0, 3, 0, 0))
    }
    /// LOOP (r=8) / LOOPNEZ (9) / LOOPGTZ (A) as, end label.
    fn loop_(&mut self, kind: u32, s: u32, end: Label) -> &mut Self {
        self.fix((kind << 12) | (s << 8) | (7 << 4) | 6, Fix::Loop, end)
    }
}

// ---------------------------------------------------------------------------------------------
// Test machine

struct M {
    x: Xtensa,
    mem: FlatMemory,
}

fn machine(cfg: XtensaConfig) -> M {
    let windowed = cfg.windowed;
    let mut mem = FlatMemory::new();
    mem.add_region(VEC, 0x10000, true);
    mem.add_region(DATA, 0x20000, true);
    let mut x = Xtensa::new(cfg);
    // A BREAK at every vector slot, so dispatches stop at the vector.
    let mut v = Asm::new(VEC);
    for _ in 0..(0x400 / 4) {
        v.i24(rrr(0, 0, 0, 4, 0xF, 0xF)).i16(0xF03D); // break 15, 15 ; pad with nop.n -> 5 bytes
    }
    let mut bytes = v.finish();
    bytes.truncate(0x400);
    // Put exactly one BREAK at each 16-byte slot start.
    let mut vb = vec![0u8; 0x400];
    for off in (0..0x400).step_by(16) {
        vb[off..off + 3].copy_from_slice(&rrr(0, 0, 0, 4, 0xF, 0xF).to_le_bytes()[..3]);
    }
    let _ = bytes;
    mem.load(VEC, &vb);
    x.cpu.set_ps(if windowed { PS_WOE } else { 0 });
    x.cpu.set_ar(1, STACK_TOP);
    M { x, mem }
}

impl M {
    fn load(&mut self, a: &mut Asm) -> u32 {
        let b = a.finish();
        assert!(self.mem.load(a.base, &b));
        a.base
    }
    fn run(&mut self, pc: u32) -> StopReason {
        self.x.cpu.pc = pc;
        self.x
            .run(&mut self.mem, &mut NoHooks, 10_000_000, u64::MAX)
    }
    fn cont(&mut self) -> StopReason {
        self.x
            .run(&mut self.mem, &mut NoHooks, 10_000_000, u64::MAX)
    }
    fn a(&self, i: u32) -> u32 {
        self.x.cpu.ar(i)
    }
}

/// Run a snippet ending with BREAK on a core; returns the machine. Panics if it did not reach the BREAK.
fn exec(cfg: XtensaConfig, build: impl FnOnce(&mut Asm)) -> M {
    let mut m = machine(cfg);
    let mut a = Asm::new(CODE);
    build(&mut a);
    a.brk();
    let pc = m.load(&mut a);
    let stop = m.run(pc);
    match stop {
        StopReason::Break { pc, .. } if pc >= CODE => {}
        other => panic!("unexpected stop {:?}", other),
    }
    m
}

fn s3() -> XtensaConfig {
    XtensaConfig::esp32s3()
}

/// Run with preset registers: `regs` = (reg, value).
fn exec_regs(cfg: XtensaConfig, regs: &[(u32, u32)], build: impl FnOnce(&mut Asm)) -> M {
    let mut m = machine(cfg);
    for &(r, v) in regs {
        m.x.cpu.set_ar(r, v);
    }
    let mut a = Asm::new(CODE);
    build(&mut a);
    a.brk();
    let pc = m.load(&mut a);
    match m.run(pc) {
        StopReason::Break { pc, .. } if pc >= CODE => {}
        other => panic!("unexpected stop {:?}", other),
    }
    m
}

// ---------------------------------------------------------------------------------------------
// ALU

#[test]
fn alu_add_sub_carry() {
    let m = exec_regs(s3(), &[(3, 0xFFFF_FFFF), (4, 1), (5, 0x8000_0000)], |a| {
        a.add(2, 3, 4); // wraps to 0
        a.sub(6, 4, 3); // 1 - (-1) = 2
        a.i24(rrr(0, 0, 0xB, 7, 4, 4)); // addx8 a7 = 1*8 + 1
        a.i24(rrr(0, 0, 0xF, 8, 4, 4)); // subx8 = 8 - 1
        a.i24(rrr(0, 0, 6, 9, 0, 5)); // neg a9 = -(0x80000000)
        a.i24(rrr(0, 0, 6, 10, 1, 5)); // abs a10 = abs(0x80000000)
        a.i24(rrr(0, 0, 6, 11, 1, 3)); // abs(-1) = 1
    });
    assert_eq!(m.a(2), 0);
    assert_eq!(m.a(6), 2);
    assert_eq!(m.a(7), 9);
    assert_eq!(m.a(8), 7);
    assert_eq!(m.a(9), 0x8000_0000);
    assert_eq!(m.a(10), 0x8000_0000);
    assert_eq!(m.a(11), 1);
}

#[test]
fn alu_immediates() {
    let m = exec(s3(), |a| {
        a.movi(2, -2048);
        a.movi(3, 2047);
        a.addi(4, 3, -128);
        a.i24(rri8(2, 0xD, 3, 5, -1)); // addmi a5, a3, -256
                                       // movi.n a6, -32 : imm7 = 0x60 -> t=6, r=0
        a.i16(rrrn(0xC, 0, 6, 6));
        // movi.n a7, 95 : imm7 = 0x5F -> t[2:0] = 5, r = 0xF
        a.i16(rrrn(0xC, 0xF, 7, 5));
        // addi.n a8, a3, -1 (t = 0)
        a.i16(rrrn(0xB, 8, 3, 0));
        // addi.n a9, a3, 15
        a.i16(rrrn(0xB, 9, 3, 15));
        // mov.n a10, a3
        a.i16(rrrn(0xD, 0, 3, 10));
        // add.n a11, a3, a3
        a.i16(rrrn(0xA, 11, 3, 3));
    });
    assert_eq!(m.a(2), (-2048i32) as u32);
    assert_eq!(m.a(3), 2047);
    assert_eq!(m.a(4), 2047 - 128);
    assert_eq!(m.a(5), 2047 - 256);
    assert_eq!(m.a(6), (-32i32) as u32);
    assert_eq!(m.a(7), 95);
    assert_eq!(m.a(8), 2046);
    assert_eq!(m.a(9), 2062);
    assert_eq!(m.a(10), 2047);
    assert_eq!(m.a(11), 4094);
}

#[test]
fn alu_compare_minmax_sext_clamps() {
    let m = exec_regs(s3(), &[(3, 0xFFFF_FF80), (4, 5)], |a| {
        a.i24(rrr(0, 2, 7, 2, 3, 4)); // salt a2 = (-128 < 5) = 1
        a.i24(rrr(0, 2, 6, 5, 3, 4)); // saltu a5 = 0
        a.i24(rrr(0, 3, 4, 6, 3, 4)); // min = -128
        a.i24(rrr(0, 3, 5, 7, 3, 4)); // max = 5
        a.i24(rrr(0, 3, 6, 8, 3, 4)); // minu = 5
        a.i24(rrr(0, 3, 7, 9, 3, 4)); // maxu = 0xFFFFFF80
        a.i24(rrr(0, 3, 2, 10, 3, 0)); // sext a10, a3, 7 -> 0xFFFFFF80
        a.i24(rrr(0, 3, 3, 11, 3, 0)); // clamps a11, a3, 7 -> -128
        a.i24(rrr(0, 3, 3, 12, 4, 0)); // clamps a12, a4, 7 -> 5
        a.movi(13, 300);
        a.i24(rrr(0, 3, 3, 14, 13, 0)); // clamps a14, a13, 7 -> 127
        a.i24(rrr(0, 3, 2, 15, 13, 1)); // sext a15, a13, 8 -> 300 (bit 8 set -> 300-512 = -212)
    });
    assert_eq!(m.a(2), 1);
    assert_eq!(m.a(5), 0);
    assert_eq!(m.a(6), 0xFFFF_FF80);
    assert_eq!(m.a(7), 5);
    assert_eq!(m.a(8), 5);
    assert_eq!(m.a(9), 0xFFFF_FF80);
    assert_eq!(m.a(10), 0xFFFF_FF80);
    assert_eq!(m.a(11), (-128i32) as u32);
    assert_eq!(m.a(12), 5);
    assert_eq!(m.a(14), 127);
    assert_eq!(m.a(15), (300i32 - 512) as u32);
}

#[test]
fn nsa_nsau_edges() {
    let m = exec_regs(
        s3(),
        &[(3, 0), (4, 0xFFFF_FFFF), (5, 1), (6, 0x8000_0000)],
        |a| {
            a.i24(rrr(0, 0, 4, 0xE, 3, 7)); // nsa a7, a3  (0) -> 31
            a.i24(rrr(0, 0, 4, 0xF, 3, 8)); // nsau a8, a3 (0) -> 32
            a.i24(rrr(0, 0, 4, 0xE, 4, 9)); // nsa(-1) -> 31
            a.i24(rrr(0, 0, 4, 0xE, 5, 10)); // nsa(1) -> 30
            a.i24(rrr(0, 0, 4, 0xF, 6, 11)); // nsau(0x80000000) -> 0
            a.i24(rrr(0, 0, 4, 0xE, 6, 12)); // nsa(0x80000000) -> 0
        },
    );
    assert_eq!(
        (m.a(7), m.a(8), m.a(9), m.a(10), m.a(11), m.a(12)),
        (31, 32, 31, 30, 0, 0)
    );
}

// ---------------------------------------------------------------------------------------------
// Shifts

#[test]
fn shifts_immediate() {
    let m = exec_regs(s3(), &[(3, 0x8000_00F1)], |a| {
        // slli a2, a3, 4: {op2[0], t} = 32 - 4 = 28 -> op2 = 1, t = 12
        a.i24(rrr(0, 1, 1, 2, 3, 12));
        // slli a4, a3, 31: 32-31 = 1 -> op2 = 0, t = 1
        a.i24(rrr(0, 1, 0, 4, 3, 1));
        // srai a5, a3, 20: {op2[0], s} = 20 -> op2 = 3, s = 4, t = 3
        a.i24(rrr(0, 1, 3, 5, 4, 3));
        // srli a6, a3, 4
        a.i24(rrr(0, 1, 4, 6, 4, 3));
        // extui a7, a3, 4, 4: shift {op1[0],s} = 4, op2 = 3
        a.i24(rrr(0, 4, 3, 7, 4, 3));
        // extui a8, a3, 31, 1: shift 31 -> op1 = 5, s = 15, op2 = 0
        a.i24(rrr(0, 5, 0, 8, 15, 3));
        // extui a9, a3, 0, 16
        a.i24(rrr(0, 4, 15, 9, 0, 3));
    });
    assert_eq!(m.a(2), 0x0000_0F10);
    assert_eq!(m.a(4), 0x8000_0000);
    assert_eq!(m.a(5), 0xFFFF_F800);
    assert_eq!(m.a(6), 0x0800_000F);
    assert_eq!(m.a(7), 0xF);
    assert_eq!(m.a(8), 1);
    assert_eq!(m.a(9), 0x00F1);
}

#[test]
fn shifts_by_sar_including_32() {
    // SAR = 32 via WSR (also what SSL 0 produces).
    let m = exec_regs(
        s3(),
        &[(3, 0x8000_0001), (4, 0x1234_5678), (5, 32), (6, 0)],
        |a| {
            a.wsr(5, 3); // SAR = 32
            a.i24(rrr(0, 1, 9, 7, 0, 3)); // srl a7, a3 -> 0
            a.i24(rrr(0, 1, 0xB, 8, 0, 3)); // sra a8, a3 -> 0xFFFFFFFF
            a.i24(rrr(0, 1, 8, 9, 4, 3)); // src a9, a4, a3 -> a4
            a.i24(rrr(0, 1, 0xA, 10, 3, 0)); // sll a10, a3 (shift by 32 - 32 = 0) -> a3
            a.i24(rrr(0, 0, 4, 1, 6, 0)); // ssl a6 (0) -> SAR = 32
            a.rsr(11, 3);
            a.i24(rrr(0, 0, 4, 0, 6, 0)); // ssr a6 (0) -> SAR = 0
            a.i24(rrr(0, 1, 0xA, 12, 3, 0)); // sll by 32 - 0 = 32 -> 0
            a.i24(rrr(0, 1, 8, 13, 4, 3)); // src with SAR 0 -> a3
            a.movi(14, 4);
            a.i24(rrr(0, 0, 4, 1, 14, 0)); // ssl 4 -> SAR = 28
            a.i24(rrr(0, 1, 0xA, 15, 4, 0)); // sll a15, a4 -> a4 << 4
        },
    );
    assert_eq!(m.a(7), 0);
    assert_eq!(m.a(8), 0xFFFF_FFFF);
    assert_eq!(m.a(9), 0x1234_5678);
    assert_eq!(m.a(10), 0x8000_0001);
    assert_eq!(m.a(11), 32);
    assert_eq!(m.a(12), 0);
    assert_eq!(m.a(13), 0x8000_0001);
    assert_eq!(m.a(15), 0x2345_6780);
}

#[test]
fn ssa8_and_ssai() {
    let m = exec_regs(s3(), &[(3, 0x1003)], |a| {
        a.i24(rrr(0, 0, 4, 2, 3, 0)); // ssa8l a3 -> SAR = 24
        a.rsr(4, 3);
        a.i24(rrr(0, 0, 4, 3, 3, 0)); // ssa8b a3 -> SAR = 32 - 24 = 8
        a.rsr(5, 3);
        a.i24(rrr(0, 0, 4, 4, 13, 1)); // ssai 29 = {1, 13}
        a.rsr(6, 3);
    });
    assert_eq!((m.a(4), m.a(5), m.a(6)), (24, 8, 29));
}

// ---------------------------------------------------------------------------------------------
// Loads and stores

#[test]
fn loads_stores_all_widths() {
    let m = exec_regs(s3(), &[(3, DATA), (4, 0x89AB_CDEF)], |a| {
        a.s32i(4, 3, 0);
        a.i24(rri8(2, 4, 3, 4, 4)); // s8i a4, a3, 4
        a.i24(rri8(2, 5, 3, 4, 3)); // s16i a4, a3, 6
        a.i24(rri8(2, 0, 3, 5, 0)); // l8ui a5 = 0xEF
        a.i24(rri8(2, 1, 3, 6, 0)); // l16ui a6 = 0xCDEF
        a.i24(rri8(2, 9, 3, 7, 0)); // l16si a7 = 0xFFFFCDEF
        a.l32i(8, 3, 4); // 0xCDEF00EF
        a.i16(rrrn(9, 3, 3, 4)); // s32i.n a4, a3, 12
        a.i16(rrrn(8, 3, 3, 9)); // l32i.n a9, a3, 12
        a.i24(rri8(2, 0xB, 3, 10, 3)); // l32ai a10, a3, 12
    });
    assert_eq!(m.a(5), 0xEF);
    assert_eq!(m.a(6), 0xCDEF);
    assert_eq!(m.a(7), 0xFFFF_CDEF);
    assert_eq!(m.a(8), 0xCDEF_00EF);
    assert_eq!(m.a(9), 0x89AB_CDEF);
    assert_eq!(m.a(10), 0x89AB_CDEF);
}

#[test]
fn l32r_pc_relative_and_litbase() {
    // Literal at CODE, L32R at CODE + 4 (offset: ((pc+3)&~3) + (0xFFFF0000|imm16)<<2).
    for cfg in [s3(), XtensaConfig::esp8266()] {
        let mut m = machine(cfg);
        let mut a = Asm::new(CODE);
        a.word(0xDEAD_BEEF);
        let start = a.pc();
        // target = CODE; base = (start + 3) & ~3 = CODE + 4 (start = CODE+4 -> base CODE+4? (CODE+7)&~3 = CODE+4)
        let base = (start + 3) & !3;
        let imm16 = (((CODE as i64 - base as i64) >> 2) as u32) & 0xFFFF;
        a.i24((imm16 << 8) | (5 << 4) | 1);
        a.brk();
        m.load(&mut a);
        assert!(matches!(m.run(start), StopReason::Break { .. }));
        assert_eq!(m.a(5), 0xDEAD_BEEF);
    }
    // ESP8266 extended L32R: address = (LITBASE & ~0xFFF) + offset.
    let mut m = machine(XtensaConfig::esp8266());
    let lit = DATA + 0x2000;
    m.mem.write(lit - 4, 4, 0x1234_5678).unwrap();
    let mut a = Asm::new(CODE);
    a.movi(2, 0);
    a.brk();
    m.load(&mut a);
    m.x.cpu.write_sr(5, (lit) | 1);
    let mut b = Asm::new(CODE + 0x100);
    b.i24((0xFFFF << 8) | (6 << 4) | 1); // l32r a6, -4
    b.brk();
    m.load(&mut b);
    assert!(matches!(m.run(CODE + 0x100), StopReason::Break { .. }));
    assert_eq!(m.a(6), 0x1234_5678);
}

#[test]
fn unaligned_lx7_handled_lx106_exception() {
    let m = exec_regs(s3(), &[(3, DATA + 1), (4, 0x1122_3344)], |a| {
        a.s32i(4, 3, 0);
        a.l32i(5, 3, 0);
        a.i24(rri8(2, 1, 3, 6, 0)); // l16ui at odd address
    });
    assert_eq!(m.a(5), 0x1122_3344);
    assert_eq!(m.a(6), 0x3344);

    let mut m = machine(XtensaConfig::esp8266());
    m.x.cpu.set_ar(3, DATA + 2);
    let mut a = Asm::new(CODE);
    a.l32i(5, 3, 0);
    a.brk();
    m.load(&mut a);
    let stop = m.run(CODE);
    // Kernel vector of the ESP8266 (VECBASE + 0x30), cause 9, EXCVADDR = address.
    assert_eq!(
        stop,
        StopReason::Break {
            pc: VEC + 0x30,
            s: 15,
            t: 15,
            len: 3
        }
    );
    assert_eq!(m.x.cpu.exccause, cause::LOAD_STORE_ALIGNMENT);
    assert_eq!(m.x.cpu.excvaddr, DATA + 2);
    assert_eq!(m.x.cpu.epc[1], CODE);
}

#[test]
fn s32c1i_compare_and_swap() {
    let m = exec_regs(s3(), &[(3, DATA), (4, 7), (5, 9), (6, 1)], |a| {
        a.s32i(4, 3, 0); // mem = 7
        a.wsr(4, 12); // SCOMPARE1 = 7
        a.i24(rri8(2, 0xE, 3, 5, 0)); // s32c1i a5: mem 7 == 7 -> store 9, a5 = 7
        a.i24(rri8(2, 0xE, 3, 6, 0)); // s32c1i a6: mem 9 != 7 -> no store, a6 = 9
        a.l32i(7, 3, 0);
    });
    assert_eq!((m.a(5), m.a(6), m.a(7)), (7, 9, 9));
}

// ---------------------------------------------------------------------------------------------
// Branches and calls

#[test]
fn branches_b4const_and_bit_tests() {
    let m = exec_regs(
        s3(),
        &[(3, 0xFFFF_FFFF), (4, 1 << 17), (5, 32768), (6, 0)],
        |a| {
            let l1 = a.label();
            let l2 = a.label();
            let l3 = a.label();
            let l4 = a.label();
            // beqi a3, -1 (r = 0), taken
            a.fix((0 << 12) | (3 << 8) | (2 << 4) | 6, Fix::Bri8, l1);
            a.movi(6, 99);
            a.bind(l1);
            // bbsi a4, 17: op0=7, r = 0xE | 1, t = 1
            a.fix((0xF << 12) | (4 << 8) | (1 << 4) | 7, Fix::Bri8, l2);
            a.movi(6, 98);
            a.bind(l2);
            // bgeui a5, 32768 (r = 0, t = 0xF), taken
            a.fix((0 << 12) | (5 << 8) | (0xF << 4) | 6, Fix::Bri8, l3);
            a.movi(6, 97);
            a.bind(l3);
            // bltui a5, 32768 not taken -> a7 = 1
            a.fix((0 << 12) | (5 << 8) | (0xB << 4) | 6, Fix::Bri8, l4);
            a.movi(7, 1);
            a.bind(l4);
            // beqz.n a6 (0) taken over movi
            let l5 = a.label();
            a.fix(rrrn(0xC, 0, 6, 8), Fix::NarrowBz, l5);
            a.movi(6, 96);
            a.bind(l5);
            // ball a3, a4 taken: (a3 & a4) == a4
            let l6 = a.label();
            a.fix((4 << 12) | (3 << 8) | (4 << 4) | 7, Fix::Bri8, l6);
            a.movi(6, 95);
            a.bind(l6);
            // bbc a4, a5(=32768 -> bit 0): bit 0 of a4 clear -> taken
            let l7 = a.label();
            a.fix((5 << 12) | (4 << 8) | (5 << 4) | 7, Fix::Bri8, l7);
            a.movi(6, 94);
            a.bind(l7);
        },
    );
    assert_eq!(m.a(6), 0);
    assert_eq!(m.a(7), 1);
}

#[test]
fn call0_ret_and_callx0() {
    let m = exec(XtensaConfig::esp8266(), |a| {
        let f = a.label();
        let done = a.label();
        a.movi(2, 5);
        a.call(0, f);
        a.j(done);
        a.align4();
        a.bind(f);
        a.addi(2, 2, 10);
        a.ret();
        a.bind(done);
    });
    assert_eq!(m.a(2), 15);
}

#[test]
fn taken_branch_costs_cycles() {
    let t = XtensaTiming::default();
    let m = exec(s3(), |a| {
        let l = a.label();
        a.j(l);
        a.nop();
        a.bind(l);
    });
    // j (1 + taken) + break (stopped, not counted)
    assert_eq!(m.x.cpu.cycles, (t.base + t.taken_branch) as u64);
    assert_eq!(m.x.cpu.insns, 1);
}

#[test]
fn load_use_interlock_costs_cycle() {
    let t = XtensaTiming::default();
    let m = exec_regs(s3(), &[(3, DATA)], |a| {
        a.l32i(4, 3, 0);
        a.add(5, 4, 4); // uses a4 -> waits load - 1
        a.l32i(6, 3, 0);
        a.add(7, 5, 5); // independent
    });
    assert_eq!(m.x.cpu.cycles, (4 * t.base + t.load - 1) as u64);
}

/// The same code on the 5-stage LX7 and the 7-stage LX6: one more cycle of load-use bubble and one
/// more of taken-branch refill on the ESP32.
#[test]
fn seven_stage_lx6_pays_more_for_load_use_and_taken_branches() {
    let program = |a: &mut Asm| {
        let l = a.label();
        a.l32i(4, 3, 0);
        a.add(5, 4, 4); // load-use
        a.j(l); // taken
        a.nop();
        a.bind(l);
    };
    let lx7 = exec_regs(s3(), &[(3, DATA)], program);
    let lx6 = exec_regs(XtensaConfig::esp32(), &[(3, DATA)], program);
    let (five, seven) = (XtensaTiming::five_stage(), XtensaTiming::seven_stage());
    assert_eq!(
        lx7.x.cpu.cycles,
        (3 * five.base + five.load - 1 + five.taken_branch) as u64
    );
    assert_eq!(
        lx6.x.cpu.cycles,
        (3 * seven.base + seven.load - 1 + seven.taken_branch) as u64
    );
    assert_eq!(lx6.x.cpu.cycles - lx7.x.cpu.cycles, 2);
}

// ---------------------------------------------------------------------------------------------
// Multiply / divide / MAC16

#[test]
fn multiply() {
    let m = exec_regs(
        s3(),
        &[(3, 0xFFFF_8000), (4, 0x0001_7FFF), (5, 0xFFFF_FFFF), (6, 2)],
        |a| {
            a.i24(rrr(0, 1, 0xD, 7, 3, 4)); // mul16s: -32768 * 32767
            a.i24(rrr(0, 1, 0xC, 8, 3, 4)); // mul16u: 32768 * 32767
            a.i24(rrr(0, 2, 8, 9, 5, 6)); // mull: -2
            a.i24(rrr(0, 2, 0xA, 10, 5, 6)); // muluh: (2^32-1)*2 >> 32 = 1
            a.i24(rrr(0, 2, 0xB, 11, 5, 6)); // mulsh: -1*2 >> 32 = -1
        },
    );
    assert_eq!(m.a(7), (-32768i32 * 32767) as u32);
    assert_eq!(m.a(8), 32768 * 32767);
    assert_eq!(m.a(9), (-2i32) as u32);
    assert_eq!(m.a(10), 1);
    assert_eq!(m.a(11), 0xFFFF_FFFF);
}

#[test]
fn divide_edges() {
    let m = exec_regs(
        s3(),
        &[(3, 0x8000_0000), (4, 0xFFFF_FFFF), (5, 7), (6, 0xFFFF_FFF9)],
        |a| {
            a.i24(rrr(0, 2, 0xD, 7, 3, 4)); // quos(-2^31, -1) = -2^31
            a.i24(rrr(0, 2, 0xF, 8, 3, 4)); // rems(-2^31, -1) = 0
            a.i24(rrr(0, 2, 0xD, 9, 6, 5)); // quos(-7, 7) = -1
            a.i24(rrr(0, 2, 0xC, 10, 4, 5)); // quou(0xFFFFFFFF, 7)
            a.i24(rrr(0, 2, 0xE, 11, 4, 5)); // remu
            a.i24(rrr(0, 2, 0xF, 12, 6, 5)); // rems(-7, 7) = 0
        },
    );
    assert_eq!(m.a(7), 0x8000_0000);
    assert_eq!(m.a(8), 0);
    assert_eq!(m.a(9), 0xFFFF_FFFF);
    assert_eq!(m.a(10), 0xFFFF_FFFF / 7);
    assert_eq!(m.a(11), 0xFFFF_FFFF % 7);
    assert_eq!(m.a(12), 0);
}

#[test]
fn divide_by_zero_exception() {
    let mut m = machine(s3());
    m.x.cpu.set_ar(3, 5);
    m.x.cpu.set_ar(4, 0);
    let mut a = Asm::new(CODE);
    a.nop();
    a.i24(rrr(0, 2, 0xC, 7, 3, 4));
    a.brk();
    m.load(&mut a);
    let stop = m.run(CODE);
    assert_eq!(stop.pc(), VEC + 0x300, "kernel vector");
    assert_eq!(m.x.cpu.exccause, cause::DIVIDE_BY_ZERO);
    assert_eq!(m.x.cpu.epc[1], CODE + 3);
    assert!(m.x.cpu.ps() & PS_EXCM != 0);
    // With PS.UM the user vector is used.
    let mut m2 = machine(s3());
    m2.x.cpu.set_ps(PS_WOE | PS_UM);
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 2, 0xC, 7, 3, 4));
    m2.load(&mut a);
    assert_eq!(m2.run(CODE).pc(), VEC + 0x340);
    // Stop policy instead of dispatch.
    let mut m3 = machine(s3());
    m3.x.cpu.stop_on_exception = 1 << cause::DIVIDE_BY_ZERO;
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 2, 0xC, 7, 3, 4));
    m3.load(&mut a);
    assert_eq!(
        m3.run(CODE),
        StopReason::Exception {
            cause: 6,
            pc: CODE,
            vaddr: 0,
            double: false
        }
    );
}

#[test]
fn mac16_basics() {
    let m = exec_regs(
        s3(),
        &[(3, 0x0003_FFFE), (4, 0x0005_0007), (8, DATA)],
        |a| {
            // umul.aa.ll a3, a4: op2 = 7, op1 = 0 (LL), r = 0 -> 0xFFFE * 7
            a.i24(rrr(4, 0, 7, 0, 3, 4));
            a.rsr(5, 16);
            // mul.aa.hl a3, a4 (signed): op1 = 5 (kind 1, half 1) -> 3 * 7 = 21
            a.i24(rrr(4, 5, 7, 0, 3, 4));
            // mula.aa.ll: += (-2) * 7 -> 7
            a.i24(rrr(4, 8, 7, 0, 3, 4));
            // muls.aa.hh: -= 3 * 5 -> -8
            a.i24(rrr(4, 0xF, 7, 0, 3, 4));
            a.rsr(6, 16);
            a.rsr(7, 17);
            // ldinc m1, a8: op2 = 8, op1 = 0, r = mw = 1, s = 8, t = 0 -> a8 += 4, m1 = mem[a8]
            a.i24(rrr(4, 0, 8, 1, 8, 0));
            a.rsr(9, 33);
        },
    );
    assert_eq!(m.a(5), 0xFFFE * 7);
    assert_eq!(m.a(6), (-8i32) as u32);
    assert_eq!(m.a(7), 0xFFFF_FFFF, "ACCHI reads sign-extended");
    assert_eq!(m.a(8), DATA + 4);
}

// ---------------------------------------------------------------------------------------------
// Zero-overhead loops

#[test]
fn loop_counts_and_skips() {
    let m = exec_regs(
        s3(),
        &[(2, 5), (3, 0), (4, 0), (5, 0xFFFF_FFFF), (6, 0), (7, 0)],
        |a| {
            let end = a.label();
            a.loop_(8, 2, end);
            a.addi(3, 3, 1);
            a.addi(3, 3, 1);
            a.bind(end);
            // LOOPNEZ with 0: body skipped.
            let end2 = a.label();
            a.loop_(9, 4, end2);
            a.addi(6, 6, 1);
            a.bind(end2);
            // LOOPGTZ with -1: body skipped.
            let end3 = a.label();
            a.loop_(0xA, 5, end3);
            a.addi(7, 7, 1);
            a.bind(end3);
        },
    );
    assert_eq!(m.a(3), 10);
    assert_eq!(m.a(6), 0);
    assert_eq!(m.a(7), 0);
    // LOOPGTZ still wrote LCOUNT = as - 1 (ISA), even though the body was skipped.
    assert_eq!(m.x.cpu.lcount, (-2i32) as u32);
}

#[test]
fn loop_taken_branch_at_end_does_not_loop_back() {
    let m = exec_regs(s3(), &[(2, 3), (3, 0)], |a| {
        let end = a.label();
        let out = a.label();
        a.loop_(8, 2, end);
        a.addi(3, 3, 1);
        a.j(out); // taken jump as last instruction: leaves the loop
        a.bind(end);
        a.addi(3, 3, 100);
        a.bind(out);
    });
    assert_eq!(m.a(3), 1);
}

#[test]
fn loop_disabled_under_excm() {
    let mut m = machine(s3());
    m.x.cpu.set_ps(PS_EXCM);
    m.x.cpu.set_ar(2, 4);
    let mut a = Asm::new(CODE);
    let end = a.label();
    a.loop_(8, 2, end);
    a.addi(3, 3, 1);
    a.bind(end);
    a.brk();
    m.load(&mut a);
    m.run(CODE);
    assert_eq!(m.a(3), 1);
}

#[test]
fn loops_illegal_on_lx106() {
    let mut m = machine(XtensaConfig::esp8266());
    let mut a = Asm::new(CODE);
    let end = a.label();
    a.loop_(8, 2, end);
    a.nop();
    a.bind(end);
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x30);
    assert_eq!(m.x.cpu.exccause, cause::ILLEGAL);
}

// ---------------------------------------------------------------------------------------------
// Register windows

#[test]
fn call4_entry_retw_simple() {
    let m = exec(s3(), |a| {
        let f = a.label();
        let done = a.label();
        a.movi(6, 40); // callee's a2
        a.call(1, f);
        a.j(done);
        a.align4();
        a.bind(f);
        a.entry(1, 32);
        a.addi(2, 2, 2);
        a.retw();
        a.bind(done);
    });
    assert_eq!(m.a(6), 42, "callee a2 is caller a6");
    assert_eq!(m.x.cpu.windowbase(), 0);
    assert_eq!(m.x.cpu.windowstart(), 1);
    // callee's a1 = caller's a1 - 32 lives in caller's a5
    assert_eq!(m.a(5), STACK_TOP - 32);
}

#[test]
fn window_overflow_exception_entry() {
    // WB = 0, WS = bits 0 and 2: an access to a8 (pane 2) overflows (WS[WB+2] set).
    let mut m = machine(s3());
    m.x.cpu.set_windowstart(0b101);
    let mut a = Asm::new(CODE);
    a.movi(4, 1); // pane 1: fine
    a.movi(8, 1); // pane 2: overflow
    m.load(&mut a);
    let stop = m.run(CODE);
    // d = 2 (nearest WS bit above WB), F = 2, next set bit above F is WB = 0 (e = 14) -> OF12
    assert_eq!(stop.pc(), VEC + 0x100);
    assert_eq!(m.x.cpu.epc[1], CODE + 3);
    assert_eq!(m.x.cpu.windowbase(), 2);
    assert_eq!((m.x.cpu.ps() & PS_OWB) >> PS_OWB_SHIFT, 0);
    assert!(m.x.cpu.ps() & PS_EXCM != 0);

    // WS bits 0 and 1 with frame 1 followed by frame 2 -> OF4.
    let mut m = machine(s3());
    m.x.cpu.set_windowstart(0b111);
    let mut a = Asm::new(CODE);
    a.movi(4, 1); // pane 1 -> WS[1] set: overflow, F = 1, e = 1 -> OF4
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x000);
    assert_eq!(m.x.cpu.windowbase(), 1);
}

#[test]
fn retw_underflow_exception_entry() {
    // Callee at WB = 2 returning 8 (a0 top bits = 2) with WS[0] clear -> UF8.
    let mut m = machine(s3());
    m.x.cpu.set_windowbase(2);
    m.x.cpu.set_windowstart(1 << 2);
    m.x.cpu.set_ar(0, (2 << 30) | (CODE & 0x3FFF_FFFF));
    let mut a = Asm::new(CODE);
    a.retw();
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x0C0);
    assert_eq!(m.x.cpu.windowbase(), 0);
    assert_eq!(m.x.cpu.epc[1], CODE);
    assert_eq!((m.x.cpu.ps() & PS_OWB) >> PS_OWB_SHIFT, 2);
}

#[test]
fn rotw_and_movsp_alloca() {
    let m = exec(s3(), |a| {
        a.i24(rrr(0, 0, 4, 8, 0, 3)); // rotw 3
        a.rsr(2, 72);
        a.i24(rrr(0, 0, 4, 8, 0, 0xD)); // rotw -3
    });
    assert_eq!(
        m.x.cpu.physical_ar()[3 * 4 + 2],
        3,
        "a2 of the rotated window"
    );
    assert_eq!(m.x.cpu.windowbase(), 0);

    // MOVSP with WS[WB-1..WB-3] clear -> Alloca (cause 5).
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 1, 2, 1)); // movsp a1, a2
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x300);
    assert_eq!(m.x.cpu.exccause, cause::ALLOCA);
}

/// Standard window vectors written from the behaviour of ESP-IDF's standard window handlers (S11).
fn install_window_handlers(m: &mut M) {
    let mut a = Asm::new(VEC);
    // OF4 (+0x000): a0..a3 -> [a5-16 .. a5-4]
    for i in 0..4 {
        a.s32e(i, 5, -16 + 4 * i as i32);
    }
    a.rfwo();
    let pad = |a: &mut Asm, off: u32| {
        while a.pc() < VEC + off {
            a.buf.push(0);
        }
    };
    pad(&mut a, 0x40);
    // UF4 (+0x040)
    for i in 0..4 {
        a.l32e(i, 5, -16 + 4 * i as i32);
    }
    a.rfwu();
    pad(&mut a, 0x80);
    // OF8 (+0x080): a0..a3 -> [a9-16..]; caller SP = [a1-12]; a4..a7 -> [sp-32 .. sp-20]
    a.s32e(0, 9, -16);
    a.l32e(0, 1, -12);
    a.s32e(1, 9, -12);
    a.s32e(2, 9, -8);
    a.s32e(3, 9, -4);
    for i in 0..4 {
        a.s32e(4 + i, 0, -32 + 4 * i as i32);
    }
    a.rfwo();
    pad(&mut a, 0xC0);
    // UF8 (+0x0C0)
    a.l32e(1, 9, -12);
    a.l32e(0, 9, -16);
    a.l32e(7, 1, -12);
    a.l32e(2, 9, -8);
    a.l32e(4, 7, -32);
    a.l32e(3, 9, -4);
    a.l32e(5, 7, -28);
    a.l32e(6, 7, -24);
    a.l32e(7, 7, -20);
    a.rfwu();
    pad(&mut a, 0x100);
    // OF12 (+0x100): a0..a3 -> [a13-16..]; a4..a11 -> [sp-48 .. sp-20]
    a.s32e(0, 13, -16);
    a.l32e(0, 1, -12);
    a.s32e(1, 13, -12);
    a.s32e(2, 13, -8);
    a.s32e(3, 13, -4);
    for i in 0..8 {
        a.s32e(4 + i, 0, -48 + 4 * i as i32);
    }
    a.rfwo();
    pad(&mut a, 0x140);
    // UF12 (+0x140)
    a.l32e(1, 13, -12);
    a.l32e(0, 13, -16);
    a.l32e(11, 1, -12);
    a.l32e(2, 13, -8);
    a.l32e(4, 11, -48);
    a.l32e(5, 11, -44);
    a.l32e(6, 11, -40);
    a.l32e(7, 11, -36);
    a.l32e(8, 11, -32);
    a.l32e(9, 11, -28);
    a.l32e(10, 11, -24);
    a.l32e(3, 13, -4);
    a.l32e(11, 11, -20);
    a.rfwu();
    pad(&mut a, 0x180);
    m.load(&mut a);
}

/// sum(n) = n + sum(n - 1) with CALLn (n = 1, 2, 3): deep recursion spills and refills windows
/// through the firmware's own overflow/underflow handlers.
fn windowed_recursion(n: u32, depth: u32) -> (u32, M) {
    let mut m = machine(s3());
    install_window_handlers(&mut m);
    // Main's "caller SP" slot for OF8/OF12 spills of the bottom frame.
    let sp = STACK_TOP - 64;
    m.mem.write(sp - 12, 4, STACK_TOP).unwrap();
    m.x.cpu.set_ar(1, sp);
    let arg = 4 * n + 2;
    let mut a = Asm::new(CODE);
    let f = a.label();
    let done = a.label();
    a.movi(arg, depth as i32);
    a.call(n, f);
    a.j(done);
    a.align4();
    a.bind(f);
    a.entry(1, 48);
    let ret = a.label();
    a.beqz(2, ret);
    a.addi(arg, 2, -1);
    a.call(n, f);
    a.add(2, 2, arg);
    a.bind(ret);
    a.retw();
    a.bind(done);
    a.brk();
    m.load(&mut a);
    let stop = m.run(CODE);
    assert!(
        matches!(stop, StopReason::Break { pc, .. } if pc >= CODE),
        "stop {:?}",
        stop
    );
    (m.a(arg), m)
}

#[test]
fn windowed_recursion_spills_through_handlers() {
    for n in 1..=3 {
        let (v, m) = windowed_recursion(n, 60);
        assert_eq!(v, 60 * 61 / 2, "call{}", 4 * n);
        assert_eq!(m.x.cpu.windowbase(), 0);
        assert_eq!(m.x.cpu.windowstart(), 1);
        assert!(m.x.cpu.ps() & PS_EXCM == 0);
    }
}

#[test]
fn windowed_instructions_illegal_on_lx106() {
    for w in [
        rrr(0, 0, 0, 0, 0, 9), /* retw */
        (3 << 4) | 6,          /* entry */
        (1 << 4) | 5,          /* call4 */
    ] {
        let mut m = machine(XtensaConfig::esp8266());
        let mut a = Asm::new(CODE);
        a.i24(w);
        m.load(&mut a);
        assert_eq!(m.run(CODE).pc(), VEC + 0x30);
        assert_eq!(m.x.cpu.exccause, cause::ILLEGAL);
    }
}

// ---------------------------------------------------------------------------------------------
// Options per configuration

#[test]
fn illegal_instruction_per_config() {
    let cases: &[(u32, &str)] = &[
        (rrr(4, 0, 7, 0, 3, 4), "mac16 umul.aa.ll"),
        (rrr(0, 2, 0xC, 7, 3, 4), "quou"),
        (rrr(0, 2, 0xA, 7, 3, 4), "muluh"),
        (rrr(0, 3, 4, 7, 3, 4), "min"),
        (rrr(0, 3, 2, 7, 3, 0), "sext"),
        (rrr(0, 0xA, 0, 1, 2, 3), "add.s"),
        (rri8(2, 0xE, 3, 5, 0), "s32c1i"),
        (rrr(0, 2, 0, 1, 2, 3), "andb"),
    ];
    for &(w, name) in cases {
        let cfg = XtensaConfig::esp8266();
        assert_eq!(
            decode(w, CODE, &cfg).op,
            Op::Illegal,
            "{} must be illegal on LX106",
            name
        );
        assert_ne!(
            decode(w, CODE, &XtensaConfig::esp32()).op,
            Op::Illegal,
            "{} legal on LX6",
            name
        );
        let mut m = machine(cfg);
        let mut a = Asm::new(CODE);
        a.i24(w);
        m.load(&mut a);
        assert_eq!(m.run(CODE).pc(), VEC + 0x30, "{}", name);
        assert_eq!(m.x.cpu.exccause, cause::ILLEGAL);
    }
    // op0 = E/F: 32-bit PIE length on S3 only (decoded as illegal marker of length 4 there).
    assert_eq!(decode(0x0000_000E, CODE, &s3()).len, 4);
    assert_eq!(decode(0x0000_000E, CODE, &XtensaConfig::esp32()).len, 3);
    // S32NB only on LX7.
    assert_ne!(decode(rrr(0, 9, 5, 0, 3, 4), CODE, &s3()).op, Op::Illegal);
    assert_eq!(
        decode(rrr(0, 9, 5, 0, 3, 4), CODE, &XtensaConfig::esp32()).op,
        Op::Illegal
    );
    // SRs the core lacks: LITBASE only on ESP8266, WINDOWBASE not on ESP8266.
    assert_eq!(decode(rrr(0, 3, 0, 0, 5, 2), CODE, &s3()).op, Op::Illegal);
    assert_eq!(
        decode(rrr(0, 3, 0, 0, 5, 2), CODE, &XtensaConfig::esp8266()).op,
        Op::Rsr
    );
    assert_eq!(
        decode(rrr(0, 3, 0, 4, 8, 2), CODE, &XtensaConfig::esp8266()).op,
        Op::Illegal
    );
    // ILL and ILL.N raise IllegalInstruction.
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.i16(0xF06D);
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x300);
    assert_eq!(m.x.cpu.exccause, cause::ILLEGAL);
}

#[test]
fn booleans() {
    let m = exec_regs(s3(), &[(3, 0b0110), (5, 11), (6, 22)], |a| {
        a.wsr(3, 4); // BR = b1, b2 set
        a.i24(rrr(0, 2, 0, 3, 1, 2)); // andb b3, b1, b2 -> 1
        a.i24(rrr(0, 2, 4, 4, 1, 2)); // xorb b4 = 0
        a.i24(rrr(0, 2, 1, 5, 1, 0)); // andbc b5 = b1 & !b0 = 1
        a.i24(rrr(0, 0, 0, 8, 0, 7)); // any4 b7, b0 -> 1
        a.i24(rrr(0, 0, 0, 9, 0, 8)); // all4 b8, b0 -> 0 (b0 clear)
        a.rsr(7, 4);
        a.i24(rrr(0, 3, 0xD, 8, 5, 3)); // movt a8, a5, b3 -> 11
        a.i24(rrr(0, 3, 0xC, 9, 6, 3)); // movf a9, a6, b3 -> unchanged 0
        let l = a.label();
        a.fix((1 << 12) | (3 << 8) | (7 << 4) | 6, Fix::Bri8, l); // bt b3 -> taken
        a.movi(10, 1);
        a.bind(l);
    });
    assert_eq!(m.a(7), 0b0_1010_1110);
    assert_eq!(m.a(8), 11);
    assert_eq!(m.a(9), 0);
    assert_eq!(m.a(10), 0);
}

// ---------------------------------------------------------------------------------------------
// FPU

fn fbits(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn fpu_disabled_raises_coprocessor_exception() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0xA, 0, 1, 2, 3)); // add.s f1, f2, f3
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x300);
    assert_eq!(m.x.cpu.exccause, 32);
}

#[test]
fn fpu_basics() {
    let m = exec_regs(
        s3(),
        &[
            (2, fbits(1.5)),
            (3, fbits(2.25)),
            (4, DATA),
            (5, (-7i32) as u32),
            (6, 1),
        ],
        |a| {
            a.wsr(6, 224); // CPENABLE = 1
            a.i24(rrr(0, 0xA, 0xF, 1, 2, 5)); // wfr f1, a2
            a.i24(rrr(0, 0xA, 0xF, 2, 3, 5)); // wfr f2, a3
            a.i24(rrr(0, 0xA, 0, 3, 1, 2)); // add.s f3 = 3.75
            a.i24(rrr(0, 0xA, 2, 4, 1, 2)); // mul.s f4 = 3.375
            a.i24(rrr(0, 0xA, 1, 5, 1, 2)); // sub.s f5 = -0.75
            a.i24(rrr(0, 0xA, 0xF, 6, 1, 0)); // mov.s f6 = f1
            a.i24(rrr(0, 0xA, 4, 6, 1, 2)); // madd.s f6 += 1.5*2.25 -> 4.875
            a.i24(rrr(0, 0xA, 0xF, 7, 6, 4)); // rfr a7, f6
            a.i24(rrr(0, 0xA, 0xC, 8, 5, 1)); // float.s f8, a5, 1 -> -3.5
            a.i24(rrr(0, 0xA, 0xF, 8, 8, 4)); // rfr a8, f8
            a.i24(rrr(0, 0xA, 9, 9, 3, 2)); // trunc.s a9, f3, 2 -> trunc(15.0) = 15
            a.i24(rrr(0, 0xA, 8, 10, 5, 0)); // round.s a10, f5 -> round(-0.75) = -1
            a.i24(rrr(0, 0xA, 0xA, 11, 5, 0)); // floor.s -> -1
            a.i24(rrr(0, 0xA, 0xB, 12, 5, 0)); // ceil.s -> 0
            a.i24(rrr(0, 0xB, 4, 0, 5, 1)); // olt.s b0, f5, f1 -> 1
            a.i24(rrr(0, 0xB, 2, 1, 5, 1)); // oeq.s b1 -> 0
            a.rsr(13, 4);
            a.i24(rri8(3, 4, 4, 3, 1)); // ssi f3, a4, 4
            a.l32i(14, 4, 4);
            a.i24(rrr(0, 0xA, 0xF, 15, 3, 3)); // const.s f15, 3 -> 0.5
            a.i24(rri8(3, 8, 4, 14, 1)); // lsip f14, a4, 4 -> f14 = mem[DATA], a4 += 4
        },
    );
    assert_eq!(f32::from_bits(m.x.cpu.fr[3]), 3.75);
    assert_eq!(f32::from_bits(m.x.cpu.fr[4]), 3.375);
    assert_eq!(f32::from_bits(m.x.cpu.fr[5]), -0.75);
    assert_eq!(f32::from_bits(m.a(7)), 4.875);
    assert_eq!(f32::from_bits(m.a(8)), -3.5);
    assert_eq!(m.a(9), 15);
    assert_eq!(m.a(10), (-1i32) as u32);
    assert_eq!(m.a(11), (-1i32) as u32);
    assert_eq!(m.a(12), 0);
    assert_eq!(m.a(13) & 3, 1);
    assert_eq!(f32::from_bits(m.a(14)), 3.75);
    assert_eq!(f32::from_bits(m.x.cpu.fr[15]), 0.5);
    assert_eq!(m.a(4), DATA + 4);
}

// ---------------------------------------------------------------------------------------------
// Special registers, exceptions, interrupts

#[test]
fn rsr_wsr_xsr_rsil_ccount() {
    let m = exec_regs(s3(), &[(3, 0x55), (4, 0x66)], |a| {
        a.wsr(3, 209); // excsave1
        a.i24(rrr(0, 1, 6, 209 >> 4, 209 & 15, 4)); // xsr.excsave1 a4
        a.rsr(5, 209);
        a.i24(rrr(0, 0, 0, 6, 5, 6)); // rsil a6, 5
        a.rsr(7, 230);
        a.rsr(8, 234); // ccount
        a.nop();
        a.rsr(9, 234);
        a.movi(10, 77);
        a.i24(rrr(0, 3, 0xF, 231 >> 4, 231 & 15, 10)); // wur.threadptr a10
        a.i24(rrr(0, 3, 0xE, 11, 231 >> 4, 231 & 15)); // rur.threadptr a11
    });
    assert_eq!(m.a(4), 0x55);
    assert_eq!(m.a(5), 0x66);
    assert_eq!(m.a(6), PS_WOE);
    assert_eq!(m.a(7) & PS_INTLEVEL, 5);
    assert_eq!(m.a(9).wrapping_sub(m.a(8)), 2);
    assert_eq!(m.a(11), 77);
}

#[test]
fn syscall_and_rfe() {
    let mut m = machine(s3());
    // Kernel vector handler: advance EPC1 by 3, RFE.
    let mut h = Asm::new(VEC + 0x300);
    h.rsr(10, 177);
    h.addi(10, 10, 3);
    h.wsr(10, 177);
    h.rsr(11, 232); // exccause
    h.rfe();
    m.load(&mut h);
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 5, 0, 0)); // syscall
    a.movi(2, 1);
    a.brk();
    m.load(&mut a);
    assert!(matches!(m.run(CODE), StopReason::Break { pc, .. } if pc == CODE + 6));
    assert_eq!(m.a(11), cause::SYSCALL);
    assert_eq!(m.a(2), 1);
    assert!(m.x.cpu.ps() & PS_EXCM == 0);
}

#[test]
fn simcall_stops_with_args() {
    let mut m = machine(s3());
    for i in 2..=6 {
        m.x.cpu.set_ar(i, 100 + i);
    }
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 5, 1, 0)); // simcall
    a.brk();
    m.load(&mut a);
    assert_eq!(
        m.run(CODE),
        StopReason::Simcall {
            pc: CODE,
            args: [102, 103, 104, 105, 106]
        }
    );
    assert_eq!(m.x.cpu.pc, CODE + 3);
    m.x.cpu.set_ar(2, 0);
    assert!(matches!(m.cont(), StopReason::Break { pc, .. } if pc == CODE + 3));
}

#[test]
fn double_exception_goes_to_double_vector() {
    let mut m = machine(s3());
    m.x.cpu.set_ps(PS_WOE | PS_EXCM);
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 5, 0, 0)); // syscall under EXCM
    m.load(&mut a);
    assert_eq!(m.run(CODE).pc(), VEC + 0x3C0);
    assert_eq!(m.x.cpu.depc, CODE);
}

#[test]
fn ccompare_level1_timer_interrupt() {
    let mut m = machine(s3());
    // CCOMPARE0 = 50, INTENABLE bit 6; spin until interrupted.
    let mut a = Asm::new(CODE);
    a.movi(2, 50);
    a.wsr(2, 240);
    a.movi(3, 1 << 6);
    a.wsr(3, 228);
    let spin = a.here();
    a.addi(4, 4, 1);
    a.j(spin);
    m.load(&mut a);
    let stop = m.run(CODE);
    assert_eq!(
        stop.pc(),
        VEC + 0x300,
        "level-1 interrupt goes to the kernel vector"
    );
    assert_eq!(m.x.cpu.exccause, cause::LEVEL1_INTERRUPT);
    assert!(m.x.cpu.interrupt() & (1 << 6) != 0);
    let c = m.x.cpu.cycles;
    assert!(
        (50..50 + 10).contains(&c),
        "taken near CCOUNT = 50, cycles {}",
        c
    );
}

#[test]
fn ccompare1_level3_interrupt_and_waiti() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.movi(2, 1000);
    a.wsr(2, 241); // CCOMPARE1 -> line 15, level 3
    a.movi(3, 1);
    a.i24(rrr(0, 1, 1, 3, 3, 1)); // slli a3, a3, 15 : shift 32-17 -> {op2[0],t} = 17 -> op2=1, t=1
    a.wsr(3, 228);
    a.i24(rrr(0, 0, 0, 7, 0, 0)); // waiti 0
    a.movi(5, 1);
    a.brk();
    m.load(&mut a);
    let stop = m.run(CODE);
    assert_eq!(stop.pc(), VEC + 0x1C0, "level-3 vector");
    assert_eq!(
        m.x.cpu.epc[3],
        CODE + 6 * 3,
        "EPC3 = instruction after WAITI"
    );
    assert_eq!(m.x.cpu.ps() & PS_INTLEVEL, 3);
    assert!(m.x.cpu.idle_cycles > 900);
    assert_eq!(m.x.cpu.ccount(), 1000 + m.x.cpu.cfg.timing.exception);

    // Same again with a handler: WSR CCOMPARE1 acknowledges the line, RFI 3 returns after WAITI.
    let mut m = machine(s3());
    let mut h = Asm::new(VEC + 0x1C0);
    h.rsr(9, 241);
    h.wsr(9, 241); // rewrite CCOMPARE1: clears line 15
    h.rsr(8, 226); // INTERRUPT after acknowledge
    h.i24(rrr(0, 0, 0, 3, 3, 1)); // rfi 3
    m.load(&mut h);
    m.load(&mut a_clone(&a));
    assert!(matches!(m.run(CODE), StopReason::Break { pc, .. } if pc == CODE + 6 * 3 + 3));
    assert_eq!(m.a(5), 1);
    assert_eq!(m.a(8) & (1 << 15), 0);
    assert_eq!(
        m.x.cpu.ps() & (PS_INTLEVEL | PS_EXCM),
        0,
        "PS restored from EPS3"
    );
}

fn a_clone(a: &Asm) -> Asm {
    Asm {
        base: a.base,
        buf: a.buf.clone(),
        labels: a.labels.clone(),
        fixups: a.fixups.clone(),
    }
}

#[test]
fn lx106_level1_interrupt_user_vector() {
    let mut m = machine(XtensaConfig::esp8266());
    m.x.cpu.set_ps(PS_UM);
    let mut a = Asm::new(CODE);
    a.movi(2, 1 << 7);
    a.wsr(2, 228); // INTENABLE: software line 7
    a.wsr(2, 226); // INTSET
    a.movi(3, 1);
    m.load(&mut a);
    let stop = m.run(CODE);
    assert_eq!(stop.pc(), VEC + 0x50, "ESP8266 user vector");
    assert_eq!(m.x.cpu.exccause, cause::LEVEL1_INTERRUPT);
    assert_eq!(
        m.x.cpu.epc[1],
        CODE + 9,
        "taken after the WSR that raised it"
    );
}

#[test]
fn waiti_without_wakeup_stops() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 7, 2, 0)); // waiti 2
    m.load(&mut a);
    assert_eq!(
        m.run(CODE),
        StopReason::WaitI {
            pc: CODE + 3,
            level: 2
        }
    );
    // An external level-1 interrupt masked by INTLEVEL 2: still waiting.
    m.x.cpu.write_sr(228, 1);
    m.x.cpu.set_irq_line(0, true);
    assert!(matches!(m.cont(), StopReason::WaitI { .. }));
    // Level-3 line 22 (edge) wakes it.
    m.x.cpu.write_sr(228, 1 << 22);
    m.x.cpu.set_irq_line(22, true);
    assert_eq!(m.cont().pc(), VEC + 0x1C0);
}

/// `j .` with no interrupt that could ever fire stops like a WAITI with nothing to wake it, instead
/// of spinning until the cycle limit.
#[test]
fn spin_on_itself_without_wake_source_stops() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    let here = a.label();
    a.bind(here);
    a.j(here);
    m.load(&mut a);
    assert!(matches!(m.run(CODE), StopReason::WaitI { pc: CODE, .. }));
    assert!(m.x.cpu.insns <= 2, "stopped at once, not after spinning");
}

#[test]
fn break_stop_and_debug_vector() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.i24(rrr(0, 0, 0, 4, 1, 2)); // break 1, 2
    m.load(&mut a);
    assert_eq!(
        m.run(CODE),
        StopReason::Break {
            pc: CODE,
            s: 1,
            t: 2,
            len: 3
        }
    );
    m.x.cpu.break_stops = false;
    m.x.cpu.pc = CODE;
    let stop = m.x.run(&mut m.mem, &mut NoHooks, 1, u64::MAX);
    assert_eq!(stop, StopReason::InsnLimit { pc: VEC + 0x280 });
    assert_eq!(m.x.cpu.debugcause, 0x8);
    assert_eq!(m.x.cpu.epc[6], CODE);
}

// ---------------------------------------------------------------------------------------------
// Engine: breakpoints, code invalidation, budgets, hooks

#[test]
fn breakpoint_stop_and_resume() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.movi(2, 1);
    a.movi(3, 2);
    a.movi(4, 3);
    a.brk();
    m.load(&mut a);
    m.x.add_breakpoint(CODE + 3);
    assert_eq!(m.run(CODE), StopReason::Breakpoint { pc: CODE + 3 });
    assert_eq!((m.a(2), m.a(3)), (1, 0));
    assert!(matches!(m.cont(), StopReason::Break { .. }));
    assert_eq!(m.a(4), 3);
}

#[test]
fn hle_of_trapped_windowed_call() {
    // call8 to a "ROM function" that is trapped by a breakpoint and emulated: strlen-like stub.
    let mut m = machine(s3());
    let rom = CODE + 0x400;
    let mut a = Asm::new(CODE);
    let f = a.label();
    a.movi(10, 11);
    a.movi(11, 31);
    a.call(2, f);
    a.add(2, 10, 10);
    a.brk();
    a.labels[f.0] = Some(rom);
    m.load(&mut a);
    let mut r = Asm::new(rom);
    r.entry(1, 32);
    r.retw();
    m.load(&mut r);
    m.x.add_breakpoint(rom);
    assert_eq!(m.run(CODE), StopReason::Breakpoint { pc: rom });
    assert_eq!((m.x.cpu.call_arg(0), m.x.cpu.call_arg(1)), (11, 31));
    let sum = m.x.cpu.call_arg(0) + m.x.cpu.call_arg(1);
    m.x.cpu.hle_return(sum);
    assert!(matches!(m.cont(), StopReason::Break { .. }));
    assert_eq!(m.a(2), 84);
    assert_eq!(m.x.cpu.windowbase(), 0);
}

#[test]
fn self_modifying_code_invalidates_blocks() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    a.movi(2, 1); // overwritten below with movi a2, 2
    a.brk();
    m.load(&mut a);
    assert!(matches!(m.run(CODE), StopReason::Break { .. }));
    assert_eq!(m.a(2), 1);
    let mut p = Asm::new(CODE);
    p.movi(2, 2);
    let w = p.finish();
    // Store the new instruction through the core: s16i + s8i.
    let mut s = Asm::new(CODE + 0x200);
    s.i24(rri8(2, 5, 3, 4, 0)); // s16i a4, a3, 0
    s.i24(rri8(2, 4, 3, 5, 2)); // s8i a5, a3, 2
    s.brk();
    m.load(&mut s);
    m.x.cpu.set_ar(3, CODE);
    m.x.cpu.set_ar(4, w[0] as u32 | (w[1] as u32) << 8);
    m.x.cpu.set_ar(5, w[2] as u32);
    assert!(matches!(m.run(CODE + 0x200), StopReason::Break { .. }));
    assert!(matches!(m.run(CODE), StopReason::Break { .. }));
    assert_eq!(m.a(2), 2);
}

/// `FlatMemory` whose instruction fetch costs nothing: blocks then take the engine's plain path
/// (`FlatMemory` reports its fetch as priced, which sends every block the general way).
struct FreeFetch(FlatMemory);

impl XtensaBus for FreeFetch {
    fn read(&mut self, addr: u32, size: u32) -> Result<u32, BusFault> {
        self.0.read(addr, size)
    }
    fn write(&mut self, addr: u32, size: u32, value: u32) -> Result<(), BusFault> {
        self.0.write(addr, size, value)
    }
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        self.0.fetch(addr)
    }
    fn fetch_priced(&self, _pc: u32) -> bool {
        false
    }
    fn code_generation(&self) -> u64 {
        self.0.code_generation()
    }
}

/// Hooks that hear of blocks outside `[quiet.0, quiet.1)` and after calls, returns and exceptions.
struct QuietRange {
    quiet: (u32, u32),
    flow: bool,
    told: Vec<(u32, u64, u64)>,
}

impl XtensaHooks for QuietRange {
    fn block_start(&mut self, pc: u32, cycles: u64, insns: u64) -> bool {
        if self.skips_block_start(pc) {
            return false;
        }
        self.flow = false;
        self.told.push((pc, cycles, insns));
        true
    }
    fn skips_block_start(&self, pc: u32) -> bool {
        !self.flow && pc >= self.quiet.0 && pc < self.quiet.1
    }
    fn quiet_range(&self) -> (u32, u32) {
        if self.flow {
            (0, 0)
        } else {
            self.quiet
        }
    }
    fn call(&mut self, _from: u32, _return_to: u32, _to: u32, _window: u32) {
        self.flow = true;
    }
    fn ret(&mut self, _from: u32, _to: u32) {
        self.flow = true;
    }
    fn exception(&mut self, _cause: u32, _pc: u32, _vector: u32) {
        self.flow = true;
    }
    fn exception_return(&mut self, _from: u32, _to: u32) {
        self.flow = true;
    }
}

#[test]
fn plain_path_runs_exactly_as_the_general_path() {
    // Loops of branches taken and not, loads, stores and CCOUNT reads, a zero-overhead loop, a call,
    // under a timer interrupt whose handler re-arms it, run in slices of instruction and cycle
    // budgets: the plain path (superblocks, going on from block to block) must end every slice
    // where the general path does.
    let mut a = Asm::new(CODE);
    a.movi(3, 200).movi(2, 3);
    a.movi(6, 150).wsr(6, 240).movi(7, 1 << 6).wsr(7, 228);
    let top = a.here();
    a.l32i(4, 5, 0).addi(4, 4, 3).s32i(4, 5, 0);
    let skip = a.label();
    a.beqz(2, skip);
    a.addi(2, 2, -1);
    a.bind(skip);
    a.rsr(8, 234).addi(3, 3, -1);
    let again = a.label();
    a.beqz(3, again);
    a.j(top);
    a.bind(again);
    let end = a.label();
    a.movi(9, 5).loop_(8, 9, end).addi(10, 10, 2).l32i(11, 5, 0);
    a.bind(end);
    let func = a.label();
    a.call(0, func).movi(3, 50);
    let back = a.label();
    a.j(back);
    a.align4();
    a.bind(func);
    a.addi(12, 12, 1).ret();
    a.bind(back);
    a.j(top);
    let program = a.finish();
    let mut h = Asm::new(VEC + 0x300); // level-1 interrupts: the kernel vector
    h.rsr(13, 234).addi(13, 13, 100).wsr(13, 240).rfe();
    let handler = h.finish();

    let state = |x: &Xtensa| {
        (
            x.cpu.pc,
            x.cpu.cycles,
            x.cpu.insns,
            x.cpu.physical_ar(),
            x.cpu.lcount,
        )
    };
    let slices = [
        (37, u64::MAX),
        (1, u64::MAX),
        (500, 90),
        (u64::MAX, 1000),
        (64, 64),
        (65, 7),
        (3000, 5000),
    ];
    let mut runs = Vec::new();
    for free_fetch in [false, true] {
        let mut m = machine(s3());
        m.mem.load(CODE, &program);
        m.mem.load(VEC + 0x300, &handler);
        m.mem.load(DATA, &[1, 2, 3, 4]);
        m.x.cpu.set_ar(5, DATA);
        m.x.cpu.pc = CODE;
        let mut hooks = QuietRange {
            quiet: (CODE, CODE + 0x30),
            flow: true,
            told: Vec::new(),
        };
        let mut bus = FreeFetch(std::mem::take(&mut m.mem));
        let mut ends = Vec::new();
        for &(insns, cycles) in &slices {
            let stop = if free_fetch {
                m.x.run(&mut bus, &mut hooks, insns, cycles)
            } else {
                m.x.run(&mut bus.0, &mut hooks, insns, cycles)
            };
            ends.push((stop, state(&m.x)));
        }
        assert!(
            m.x.cpu.exccause == cause::LEVEL1_INTERRUPT,
            "the timer interrupt was taken"
        );
        runs.push((ends, hooks.told, bus.0.peek(DATA, 4)));
    }
    assert!(runs[0] == runs[1], "plain and general paths differ");
}

#[test]
fn insn_budget_is_exact_and_hooks_fire() {
    struct H {
        blocks: Vec<u32>,
        calls: u32,
        rets: u32,
    }
    impl XtensaHooks for H {
        fn block_start(&mut self, pc: u32, _c: u64, _i: u64) -> bool {
            self.blocks.push(pc);
            true
        }
        fn call(&mut self, _f: u32, _r: u32, _t: u32, _w: u32) {
            self.calls += 1;
        }
        fn ret(&mut self, _f: u32, _t: u32) {
            self.rets += 1;
        }
    }
    let mut m = machine(XtensaConfig::esp8266());
    let mut a = Asm::new(CODE);
    let f = a.label();
    a.movi(2, 1);
    a.movi(3, 2);
    a.call(0, f);
    a.brk();
    a.align4();
    a.bind(f);
    a.ret();
    m.load(&mut a);
    m.x.cpu.pc = CODE;
    let mut h = H {
        blocks: vec![],
        calls: 0,
        rets: 0,
    };
    assert_eq!(
        m.x.run(&mut m.mem, &mut h, 1, u64::MAX),
        StopReason::InsnLimit { pc: CODE + 3 }
    );
    assert_eq!(m.x.cpu.insns, 1);
    assert!(matches!(
        m.x.run(&mut m.mem, &mut h, 100, u64::MAX),
        StopReason::Break { .. }
    ));
    assert_eq!((h.calls, h.rets), (1, 1));
    assert_eq!(h.blocks.len(), 4);
}

#[test]
fn insn_budget_is_exact_in_a_zero_overhead_loop_with_out_of_line_instructions() {
    // The loop body (ADDI; RSR, which runs out of line) is re-run inside its block; the budget must
    // still end the run at exactly the instruction asked for, mid-body, whatever the pass.
    for budget in [3u64, 4, 5, 36, 37, 38, 201] {
        let mut m = machine(s3());
        let mut a = Asm::new(CODE);
        let end = a.label();
        a.movi(2, 100);
        a.loop_(8, 2, end);
        a.addi(3, 3, 1);
        a.rsr(4, 3); // a4 = SAR
        a.bind(end);
        a.brk();
        m.load(&mut a);
        m.x.cpu.pc = CODE;
        assert!(matches!(
            m.x.run(&mut m.mem, &mut NoHooks, budget, u64::MAX),
            StopReason::InsnLimit { .. }
        ));
        assert_eq!(m.x.cpu.insns, budget, "budget {budget}");
        // MOVI, LOOP, then ADDI/RSR pairs: a3 counts the ADDIs executed.
        assert_eq!(m.a(3) as u64, (budget - 2).div_ceil(2), "budget {budget}");
        // The rest of the program runs to its end with the same results as in one go.
        assert!(matches!(
            m.x.run(&mut m.mem, &mut NoHooks, u64::MAX, u64::MAX),
            StopReason::Break { .. }
        ));
        assert_eq!(m.a(3), 100);
        assert_eq!(m.x.cpu.insns, 2 + 200);
    }
}

#[test]
fn loop_body_sharing_the_block_of_its_loop_instruction() {
    // LOOP, its body and the code after LEND decode as one block: the first pass runs in that block,
    // the later passes in the block that starts at LBEG; cycles are the same either way.
    let m = exec_regs(s3(), &[(2, 3)], |a| {
        let end = a.label();
        a.loop_(8, 2, end);
        a.addi(3, 3, 2);
        a.addi(4, 4, 1);
        a.bind(end);
        a.addi(5, 5, 7);
    });
    assert_eq!((m.a(3), m.a(4), m.a(5)), (6, 3, 7));
}

#[test]
fn esp_bus_aliases_region_ends_and_code_writes() {
    let board = tigris_targets::load("esp32s3").unwrap();
    let mut bus = EspBus::new(&board);
    // SRAM1 seen through its data (0x3FC88000) and instruction (0x40378000) addresses.
    bus.write(0x3FC8_8010, 4, 0x1122_3344).unwrap();
    assert_eq!(bus.read(0x4037_8010, 4).unwrap(), 0x1122_3344);
    assert_eq!(bus.read(0x3FC8_8011, 1).unwrap(), 0x33);
    assert_eq!(bus.read(0x3FC8_8012, 2).unwrap(), 0x1122);
    bus.write(0x4037_8011, 2, 0xBEEF).unwrap();
    assert_eq!(bus.read(0x3FC8_8010, 4).unwrap(), 0x11BE_EF44);
    // A word across the end of SRAM1 (into SRAM2) is not one access of either region.
    assert_eq!(
        bus.read(0x3FCE_FFFE, 4),
        Err(BusFault { addr: 0x3FCF_0000 })
    );
    bus.write(0x3FCE_FFFC, 4, 0xA5A5_A5A5).unwrap();
    assert_eq!(bus.read(0x3FCE_FFFC, 4).unwrap(), 0xA5A5_A5A5);
    // Unmapped space and ROM.
    assert_eq!(
        bus.read(0x2000_0000, 4),
        Err(BusFault { addr: 0x2000_0000 })
    );
    assert!(bus.write(0x4000_0000, 4, 1).is_err());
    // Fetching code from one view and writing it through the other is a code write.
    let g = bus.code_generation();
    assert_eq!(bus.fetch(0x4037_8010).unwrap(), 0x11BE_EF44);
    bus.write(0x3FC8_8100, 4, 0).unwrap(); // another 256-byte chunk: not code
    assert_eq!(bus.code_generation(), g);
    bus.write(0x3FC8_8014, 1, 0).unwrap();
    assert_eq!(bus.code_generation(), g + 1);
}

/// Compiled code holds the addresses of the bus's data view: once a watch is set (the bus then
/// offers no view), the code compiled with it is dropped, so the watch sees the stores of a loop
/// that was compiled before it was set.
#[test]
fn a_watch_set_after_the_loop_was_compiled_sees_its_stores() {
    let board = tigris_targets::load("esp32s3").unwrap();
    let mut bus = EspBus::new(&board);
    let (code, data) = (0x4037_9000, 0x3FC8_A000);
    let mut a = Asm::new(code);
    let (top, done) = (a.here(), a.label());
    a.s32i(4, 3, 0).addi(4, 4, -1).beqz(4, done).j(top);
    a.bind(done);
    a.brk();
    for (k, b) in a.finish().into_iter().enumerate() {
        bus.write(code + k as u32, 1, b as u32).unwrap();
    }
    let mut x = machine(s3()).x;
    x.set_compile_after(4);
    x.cpu.set_ar(3, data);
    x.cpu.set_ar(4, 1000);
    x.cpu.pc = code;
    // 500 passes of 4 instructions, most of them compiled.
    let stop = x.run(&mut bus, &mut NoHooks, 2000, u64::MAX);
    assert!(matches!(stop, StopReason::InsnLimit { .. }), "{stop:?}");
    let watch = bus.mem.watch(data, 4);
    let stop = x.run(&mut bus, &mut NoHooks, u64::MAX, u64::MAX);
    assert!(matches!(stop, StopReason::Break { .. }), "{stop:?}");
    assert_eq!(bus.mem.watch_counters(watch).traffic.writes, 500);
}

#[test]
fn bus_fault_stops() {
    let mut m = machine(s3());
    m.x.cpu.set_ar(3, 0x1000);
    let mut a = Asm::new(CODE);
    a.l32i(4, 3, 0);
    m.load(&mut a);
    assert_eq!(
        m.run(CODE),
        StopReason::BusFault {
            pc: CODE,
            addr: 0x1000,
            kind: AccessKind::Read
        }
    );
    assert_eq!(
        m.run(0x2000),
        StopReason::BusFault {
            pc: 0x2000,
            addr: 0x2000,
            kind: AccessKind::Fetch
        }
    );
}

/// The last address of the address space is fetched like any other: unmapped, it faults at once
/// (the block cache's empty slots must not pass for a block there).
#[test]
fn a_fetch_from_the_last_address_faults() {
    for cfg in [s3(), XtensaConfig::esp8266()] {
        let mut m = machine(cfg);
        assert_eq!(
            m.run(u32::MAX),
            StopReason::BusFault {
                pc: u32::MAX,
                addr: u32::MAX,
                kind: AccessKind::Fetch
            }
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Disassembler

#[test]
fn disasm_text() {
    let cfg = s3();
    let d = |w: u32, pc: u32| disasm_word(w, pc, &cfg).0;
    assert_eq!(d(rri8(2, 0xC, 2, 2, 1), 0), "addi a2, a2, 1");
    assert_eq!(d(0x000031, 0x4008_0007), "l32r a3, 0x40040008");
    assert_eq!(d((4 << 12) | (1 << 8) | (3 << 4) | 6, 0), "entry a1, 32");
    assert_eq!(d(0x030320, 0), "rsr.sar a2");
    assert_eq!(d(0x13e630, 0), "wsr.ps a3");
    assert_eq!(d(0x242530, 0), "extui a2, a3, 5, 3");
    assert_eq!(d(0x01d222, 0), "addmi a2, a2, 0x100");
    assert_eq!(d(0xe002f6, 0x2c), "bgeui a2, 0x8000, 0x10");
    assert_eq!(d(0x036c, 0), "movi.n a3, -32");
    assert_eq!(d(0x00a822, 0), "movi a2, 0xfffff800");
    assert_eq!(d(0xfc7217, 0x10), "bbci a2, 17, 0x10");
    assert_eq!(
        d(rrr(4, 8, 0, 0, 2, 0) | (1 << 14), 0),
        "mula.dd.ll.ldinc m0, a2, m1, m2"
    );
    assert_eq!(d(rrr(0, 0xA, 0, 1, 2, 3), 0), "add.s f1, f2, f3");
    assert_eq!(d(0xf00d, 0), "ret.n");
}

/// Cross-check mnemonics against GNU objdump on C compiled by the Debian LX106 cross compiler.
#[test]
fn objdump_crosscheck_lx106() {
    use std::process::Command;
    let have = |c: &str| {
        Command::new(c)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    if !have("xtensa-lx106-elf-gcc") || !have("xtensa-lx106-elf-objdump") {
        println!("note: xtensa-lx106-elf-gcc/objdump not installed; skipping cross-check");
        return;
    }
    let dir = std::env::temp_dir().join(format!("tigris-xt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("t.c");
    std::fs::write(&src, CROSS_C).unwrap();
    let obj = dir.join("t.o");
    let asm_src = dir.join("t2.S");
    std::fs::write(&asm_src, CROSS_S).unwrap();
    let obj2 = dir.join("t2.o");
    for opt in ["-O2", "-Os", "-O0"] {
        let st = Command::new("xtensa-lx106-elf-gcc")
            .args([opt, "-c", "-mlongcalls", "-o"])
            .arg(&obj)
            .arg(&src)
            .status()
            .unwrap();
        assert!(st.success());
        check_objdump(&obj);
    }
    let st = Command::new("xtensa-lx106-elf-gcc")
        .args(["-c", "-o"])
        .arg(&obj2)
        .arg(&asm_src)
        .status()
        .unwrap();
    assert!(st.success());
    check_objdump(&obj2);
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_objdump(obj: &std::path::Path) {
    let out = std::process::Command::new("xtensa-lx106-elf-objdump")
        .arg("-d")
        .arg(obj)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let cfg = XtensaConfig::esp8266();
    let mut n = 0;
    for line in text.lines() {
        // "  1c:	404d00        	ssai	13"
        let parts: Vec<&str> = line.split('\t').collect();
        if parts.len() < 3 || !parts[0].trim_end().ends_with(':') {
            continue;
        }
        let hex = parts[1].trim();
        if hex.is_empty()
            || !hex.chars().all(|c| c.is_ascii_hexdigit())
            || (hex.len() != 6 && hex.len() != 4)
        {
            continue;
        }
        let addr = u32::from_str_radix(parts[0].trim().trim_end_matches(':'), 16).unwrap();
        // objdump prints the instruction bytes as a little-endian number.
        let w = u32::from_str_radix(hex, 16).unwrap();
        let mnem = parts[2].trim();
        let (txt, len) = disasm_word(w, addr, &cfg);
        assert_eq!(len as usize * 2, hex.len(), "length of {} ({})", line, txt);
        let ours = txt.split_whitespace().next().unwrap();
        assert_eq!(
            ours, mnem,
            "mnemonic mismatch on '{}': ours '{}'",
            line, txt
        );
        // Register operands must agree too (first operand token).
        if parts.len() > 3 {
            let theirs_ops: Vec<&str> = parts[3].split(", ").collect();
            let ours_ops: Vec<String> = txt
                .splitn(2, ' ')
                .nth(1)
                .unwrap_or("")
                .split(", ")
                .map(|s| s.to_string())
                .collect();
            for (o, t) in ours_ops.iter().zip(theirs_ops.iter()) {
                if t.starts_with('a') && t[1..].chars().all(|c| c.is_ascii_digit()) {
                    assert_eq!(o, t, "operand mismatch on '{}': ours '{}'", line, txt);
                }
            }
        }
        n += 1;
    }
    println!(
        "objdump cross-check: {} instructions agree in {}",
        n,
        obj.display()
    );
    assert!(n > 20, "too few instructions checked ({})", n);
}

const CROSS_C: &str = r#"
typedef unsigned int u32; typedef int i32; typedef unsigned short u16; typedef signed char i8;
struct s { u32 a; u16 b; i8 c; };
extern void sink(u32);
u32 crc(const unsigned char *p, int n) {
    u32 c = 0xFFFFFFFF;
    for (int i = 0; i < n; i++) { c ^= p[i]; for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320 & -(c & 1)); }
    return ~c;
}
i32 dot(const short *a, const short *b, int n) { i32 s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
u32 mix(u32 x, u32 y) { return (x << 7) | (y >> 25) | (x * y) | (x >> (y & 31)) | (u32)((i32)x >> 3); }
int clz(u32 x) { return __builtin_clz(x); }
void fill(struct s *v, int n) { for (int i = 0; i < n; i++) { v[i].a = i * 3; v[i].b = (u16)i; v[i].c = (i8)-i; sink(v[i].a + v[i].b + v[i].c); } }
long long mul64(long long a, long long b) { return a * b; }
int sw(int k) { switch (k) { case 0: return 5; case 1: return 7; case 2: return 11; case 3: return 13; case 4: return 17; default: return -1; } }
u32 bits(u32 x) { return ((x >> 3) & 0x1F) + ((x & (1u << 20)) ? 1 : 0) + (x < 17 ? 2 : 0) + ((i32)x < -5 ? 4 : 0); }
u32 lit(void) { return 0x12345678u + (u32)&sink; }
"#;

const CROSS_S: &str = r#"
    .text
    .align 4
f:
    rsr a2, sar
    wsr a3, ps
    xsr a4, epc1
    rsr a2, ccount
    wsr a2, ccompare0
    rsr a2, litbase
    wsr a2, intset
    wsr a2, intclear
    rsr a2, interrupt
    rsr a2, excsave1
    mul16s a2, a3, a4
    mul16u a2, a3, a4
    mull a2, a3, a4
    nsa a2, a3
    nsau a2, a3
    ssai 13
    ssa8l a2
    ssa8b a2
    ssl a2
    ssr a2
    src a2, a3, a4
    sll a2, a3
    srl a2, a3
    sra a2, a3
    rsil a2, 3
    waiti 0
    rfe
    rfi 2
    rfde
    break 1, 2
    break.n 1
    syscall
    simcall
    ill
    ill.n
    nop
    memw
    isync
    rsync
    esync
    dsync
    extw
    excw
    wdtlb a2, a3
    witlb a2, a3
    rdtlb1 a2, a3
    abs a2, a3
    neg a2, a3
    addx2 a2, a3, a4
    subx8 a2, a3, a4
    movi.n a2, 95
    movi.n a2, -32
    moveqz a2, a3, a4
    movgez a2, a3, a4
    bnone a2, a3, f
    bany a2, a3, f
    ball a2, a3, f
    bnall a2, a3, f
    bbc a2, a3, f
    bbsi a2, 31, f
    bltui a2, 65536, f
    bgei a2, 256, f
    blti a2, 1, f
    bnei a2, 12, f
    bltz a2, f
    bgez a2, f
    s16i a2, a3, 6
    l16si a2, a3, 6
    l16ui a2, a3, 254
    s8i a2, a3, 255
    l8ui a2, a3, 255
    jx a2
    callx0 a3
"#;

// ---------------------------------------------------------------------------------------------
// Performance (run with: cargo test --release ... xtensa::tests::mips -- --ignored --nocapture)

#[test]
#[ignore]
fn mips() {
    let mut m = machine(s3());
    let mut a = Asm::new(CODE);
    // Outer loop with branch, inner ALU/load/store mix.
    a.movi(3, 0);
    a.movi(5, 0);
    let top = a.here();
    a.addi(3, 3, 1);
    a.add(5, 5, 3);
    a.i24(rrr(0, 0, 3, 7, 5, 3)); // xor
    a.i24(rrr(0, 1, 4, 8, 3, 7)); // srli
    a.add(5, 5, 8);
    a.j(top);
    m.load(&mut a);
    let n = 300_000_000u64;
    m.x.cpu.pc = CODE;
    let t0 = std::time::Instant::now();
    let _ = m.x.run(&mut m.mem, &mut NoHooks, n, u64::MAX);
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "ALU loop: {} insns in {:.3} s = {:.0} MIPS",
        m.x.cpu.insns,
        dt,
        m.x.cpu.insns as f64 / dt / 1e6
    );

    // Windowed recursion benchmark (calls, window spills through the handlers, memory).
    let mut m = machine(s3());
    install_window_handlers(&mut m);
    let sp = STACK_TOP - 64;
    m.mem.write(sp - 12, 4, STACK_TOP).unwrap();
    m.x.cpu.set_ar(1, sp);
    let mut a = Asm::new(CODE);
    let f = a.label();
    let outer = a.here();
    a.movi(10, 100);
    a.call(2, f);
    a.j(outer);
    a.align4();
    a.bind(f);
    a.entry(1, 48);
    let ret = a.label();
    a.beqz(2, ret);
    a.addi(10, 2, -1);
    a.call(2, f);
    a.add(2, 2, 10);
    a.bind(ret);
    a.retw();
    m.load(&mut a);
    m.x.cpu.pc = CODE;
    let t0 = std::time::Instant::now();
    let _ = m.x.run(&mut m.mem, &mut NoHooks, 100_000_000, u64::MAX);
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "windowed recursion: {} insns in {:.3} s = {:.0} MIPS",
        m.x.cpu.insns,
        dt,
        m.x.cpu.insns as f64 / dt / 1e6
    );

    // Zero-overhead loop with loads/stores.
    let mut m = machine(s3());
    m.x.cpu.set_ar(4, DATA);
    let mut a = Asm::new(CODE);
    let outer = a.here();
    a.movi(2, 1000);
    let end = a.label();
    a.loop_(8, 2, end);
    a.l32i(5, 4, 0);
    a.addi(5, 5, 1);
    a.s32i(5, 4, 0);
    a.bind(end);
    a.j(outer);
    m.load(&mut a);
    m.x.cpu.pc = CODE;
    let t0 = std::time::Instant::now();
    let _ = m.x.run(&mut m.mem, &mut NoHooks, 200_000_000, u64::MAX);
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "LOOP l32i/addi/s32i: {} insns in {:.3} s = {:.0} MIPS",
        m.x.cpu.insns,
        dt,
        m.x.cpu.insns as f64 / dt / 1e6
    );

    // Real compiled firmware (crc, sort, recursion, division helpers), both ABIs.
    if let Some((call0, windowed, _)) = build_bench() {
        for (name, elf, cfg) in [
            ("call0/LX106", &call0, XtensaConfig::esp8266()),
            ("windowed/LX7", &windowed, s3()),
        ] {
            let mut total = 0u64;
            let t0 = std::time::Instant::now();
            for _ in 0..200 {
                let (_, x) = run_fw(cfg.clone(), elf);
                total += x.cpu.insns;
            }
            let dt = t0.elapsed().as_secs_f64();
            println!("firmware {}: {} insns in {:.3} s = {:.0} MIPS (incl. 256 KiB memory setup per run)", name, total, dt, total as f64 / dt / 1e6);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Real firmware: firmware/xtensa/bench.c built with the Debian LX106 GCC, in the call0 ABI and
// (through windowed_prelude.S) in the windowed ABI; the host build of the same C gives the answer.

fn fw_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware/xtensa")
}

fn tool_ok(c: &str) -> bool {
    std::process::Command::new(c)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn sh(cmd: &mut std::process::Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{:?}: {}", cmd, e));
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Build the firmware; returns (call0 ELF, windowed ELF, expected checksum) or None without tools.
fn build_bench() -> Option<(Vec<u8>, Vec<u8>, u32)> {
    use std::process::Command;
    if !tool_ok("xtensa-lx106-elf-gcc") || !tool_ok("cc") {
        println!("note: xtensa-lx106-elf-gcc or host cc missing; skipping firmware test");
        return None;
    }
    let fw = fw_dir();
    let dir = std::env::temp_dir().join(format!(
        "tigris-xtfw-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let inc = format!("-Wa,-I{}", fw.display());
    let gcc = "xtensa-lx106-elf-gcc";
    // call0
    let e0 = dir.join("b0.elf");
    sh(Command::new(gcc)
        .args(["-O2", "-ffreestanding", "-nostdlib", "-T"])
        .arg(fw.join("link.ld"))
        .arg("-o")
        .arg(&e0)
        .arg(fw.join("start_call0.S"))
        .arg(fw.join("bench.c"))
        .arg("-lgcc"));
    // windowed
    let s = dir.join("bw.s");
    sh(Command::new(gcc)
        .args(["-O2", "-ffreestanding", "-mabi=windowed", "-S", "-o"])
        .arg(&s)
        .arg(fw.join("bench.c")));
    let body = std::fs::read_to_string(&s).unwrap();
    let big_s = dir.join("bw.S");
    std::fs::write(&big_s, format!(".include \"windowed_prelude.S\"\n{}", body)).unwrap();
    let bo = dir.join("bw.o");
    sh(Command::new(gcc)
        .args(["-c", &inc, "-o"])
        .arg(&bo)
        .arg(&big_s));
    let so = dir.join("sw.o");
    sh(Command::new(gcc)
        .args(["-c", &inc, "-o"])
        .arg(&so)
        .arg(fw.join("start_windowed.S")));
    let ew = dir.join("bw.elf");
    sh(Command::new(gcc)
        .args(["-nostdlib", "-T"])
        .arg(fw.join("link.ld"))
        .arg("-o")
        .arg(&ew)
        .arg(&so)
        .arg(&bo)
        .arg("-lgcc"));
    // host
    let host = dir.join("host");
    sh(Command::new("cc")
        .args(["-O2", "-DHOST", "-o"])
        .arg(&host)
        .arg(fw.join("bench.c")));
    let out = Command::new(&host).output().unwrap();
    let expected: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let r = (
        std::fs::read(&e0).unwrap(),
        std::fs::read(&ew).unwrap(),
        expected,
    );
    let _ = std::fs::remove_dir_all(&dir);
    Some(r)
}

/// Minimal ELF32 loader: PT_LOAD segments to their physical address; returns the entry point.
fn load_elf(mem: &mut FlatMemory, elf: &[u8]) -> u32 {
    let u16at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u32at = |o: usize| u32::from_le_bytes([elf[o], elf[o + 1], elf[o + 2], elf[o + 3]]);
    assert_eq!(&elf[..4], b"\x7fELF");
    let entry = u32at(0x18);
    let phoff = u32at(0x1C) as usize;
    let (phentsize, phnum) = (u16at(0x2A), u16at(0x2C));
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if u32at(ph) != 1 {
            continue;
        }
        let (off, paddr, filesz, memsz) = (
            u32at(ph + 4) as usize,
            u32at(ph + 12),
            u32at(ph + 16) as usize,
            u32at(ph + 20) as usize,
        );
        let mut seg = elf[off..off + filesz].to_vec();
        seg.resize(memsz, 0);
        assert!(mem.load(paddr, &seg));
    }
    entry
}

fn run_fw(cfg: XtensaConfig, elf: &[u8]) -> (u32, Xtensa) {
    let mut mem = FlatMemory::new();
    mem.add_region(0x4000_0000, 256 * 1024, true);
    let entry = load_elf(&mut mem, elf);
    let mut x = Xtensa::new(cfg);
    x.cpu.pc = entry;
    let stop = x.run(&mut mem, &mut NoHooks, 100_000_000, u64::MAX);
    assert!(
        matches!(stop, StopReason::Break { s: 1, t: 15, .. }),
        "stop {:?} a2={:#x}",
        stop,
        x.cpu.ar(2)
    );
    (x.cpu.ar(2), x)
}

#[test]
fn firmware_call0_and_windowed_match_host() {
    let Some((call0, windowed, expected)) = build_bench() else {
        return;
    };
    for cfg in [
        XtensaConfig::esp8266(),
        XtensaConfig::esp32(),
        XtensaConfig::esp32s3(),
    ] {
        let core = cfg.core;
        let (v, x) = run_fw(cfg, &call0);
        assert_eq!(v, expected, "call0 firmware on {:?}", core);
        println!(
            "call0 on {:?}: {} insns, {} cycles",
            core, x.cpu.insns, x.cpu.cycles
        );
    }
    for cfg in [XtensaConfig::esp32(), XtensaConfig::esp32s3()] {
        let core = cfg.core;
        let (v, x) = run_fw(cfg, &windowed);
        assert_eq!(v, expected, "windowed firmware on {:?}", core);
        assert_eq!(x.cpu.windowbase(), 0);
        println!(
            "windowed on {:?}: {} insns, {} cycles",
            core, x.cpu.insns, x.cpu.cycles
        );
    }
}

// ---------------------------------------------------------------------------------------------
// ESP32-S3 PIE (S2 libisa, S4). Words are assembled from the S2 libisa field layouts through the
// decoder's own table (`PieDef::encode`), and a few are also built by hand bit by bit.

use super::pie::{self, Key as K};

/// Assemble a PIE opcode (name as in the S2 libisa table, without `ee.`) from decoded operand values.
fn ee(name: &str, vals: &[(K, i64)]) -> (u32, u8) {
    let d = pie::def_by_name(name).unwrap_or_else(|| panic!("no PIE opcode {name}"));
    (d.encode(vals), d.len)
}

impl Asm {
    fn ee(&mut self, name: &str, vals: &[(K, i64)]) -> &mut Self {
        let (w, len) = ee(name, vals);
        if len == 3 {
            self.i24(w)
        } else {
            self.word(w)
        }
    }
    /// RUR.ur ar: op2 = E, ar = r, ur = {s, t} (S2 libisa).
    fn rur(&mut self, r: u32, ur: u32) -> &mut Self {
        self.i24(rrr(0, 3, 0xE, r, ur >> 4, ur & 15))
    }
    /// WUR.ur at: op2 = F, ur = {r, s}, at = t (S2 libisa).
    fn wur(&mut self, t: u32, ur: u32) -> &mut Self {
        self.i24(rrr(0, 3, 0xF, ur >> 4, ur & 15, t))
    }
}

const UR_ACCX_0: u32 = 0;
const UR_ACCX_1: u32 = 1;
const UR_QACC_L_0: u32 = 7;
const UR_GPIO_OUT: u32 = 12;
const UR_SAR_BYTE: u32 = 13;

fn bytes16(f: impl Fn(usize) -> i64) -> [u8; 16] {
    let mut q = [0u8; 16];
    for (i, b) in q.iter_mut().enumerate() {
        *b = f(i) as u8;
    }
    q
}
fn q_from_i16(v: [i16; 8]) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..8 {
        q[2 * i..2 * i + 2].copy_from_slice(&v[i].to_le_bytes());
    }
    q
}
fn q_i16(q: &[u8; 16]) -> [i16; 8] {
    let mut v = [0i16; 8];
    for i in 0..8 {
        v[i] = i16::from_le_bytes([q[2 * i], q[2 * i + 1]]);
    }
    v
}
fn q_from_i32(v: [i32; 4]) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..4 {
        q[4 * i..4 * i + 4].copy_from_slice(&v[i].to_le_bytes());
    }
    q
}
fn q_i32(q: &[u8; 16]) -> [i32; 4] {
    let mut v = [0i32; 4];
    for i in 0..4 {
        v[i] = i32::from_le_bytes(q[4 * i..4 * i + 4].try_into().unwrap());
    }
    v
}
fn q_i8(q: &[u8; 16]) -> [i8; 16] {
    q.map(|b| b as i8)
}

/// Run a snippet on the S3 with CPENABLE = 8 (CP3 on), preset ARs and a state hook; ends at BREAK.
fn pie_exec(regs: &[(u32, u32)], setup: impl FnOnce(&mut M), build: impl FnOnce(&mut Asm)) -> M {
    let mut m = machine(s3());
    m.x.cpu.cpenable = 1 << 3;
    for &(r, v) in regs {
        m.x.cpu.set_ar(r, v);
    }
    setup(&mut m);
    let mut a = Asm::new(CODE);
    build(&mut a);
    a.brk();
    let pc = m.load(&mut a);
    match m.run(pc) {
        StopReason::Break { pc, .. } if pc >= CODE => {}
        other => panic!(
            "unexpected stop {:?} (EXCCAUSE {})",
            other, m.x.cpu.exccause
        ),
    }
    m
}

#[test]
fn pie_table_has_220_disjoint_opcodes_covering_every_bit() {
    let defs = pie::defs();
    assert_eq!(defs.len(), 220);
    let mut names: Vec<&str> = defs.iter().map(|d| d.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 220, "mnemonics are unique");
    for d in defs {
        let full = if d.len == 3 { 0xFF_FFFF } else { u32::MAX };
        let mut bits = 0u32;
        for o in &d.ops {
            for &(h, l) in &o.pieces {
                for b in l..=h {
                    assert_eq!(bits & (1 << b), 0, "{}: bit {} used twice", d.name, b);
                    bits |= 1 << b;
                }
            }
        }
        assert_eq!(
            bits & d.mask,
            0,
            "{}: operand bits overlap the fixed bits",
            d.name
        );
        assert_eq!(
            bits | d.mask,
            full,
            "{}: every bit is an operand or fixed",
            d.name
        );
        assert_eq!(d.mtch & !d.mask, 0, "{}", d.name);
        if d.len == 4 {
            // S2 libisa: format_32 words have bits [3:1] = 111 (op0 = E/F).
            assert_eq!(d.mtch & 0xE, 0xE, "{}", d.name);
        } else {
            assert!(
                matches!(d.mtch & 0xF, 0 | 4),
                "{}: 24-bit PIE words have op0 0 or 4",
                d.name
            );
        }
    }
    for (i, a) in defs.iter().enumerate() {
        for b in &defs[i + 1..] {
            if a.len == b.len {
                assert_ne!(
                    a.mtch & a.mask & b.mask,
                    b.mtch & a.mask & b.mask,
                    "{} / {} overlap",
                    a.name,
                    b.name
                );
            }
        }
    }
    // Every opcode decodes back to itself on the S3, with any operand values.
    let mut seed = 0x1234_5678u32;
    for (i, d) in defs.iter().enumerate() {
        for _ in 0..8 {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            let w = d.mtch | (seed & !d.mask & if d.len == 3 { 0xFF_FFFF } else { u32::MAX });
            let insn = decode(w, CODE, &s3());
            assert_eq!(
                (insn.op, insn.r as usize, insn.len),
                (Op::Ee, i, d.len),
                "{} word {:#x}",
                d.name,
                w
            );
        }
    }
}

#[test]
fn pie_field_layout_hand_checks_and_4_4_slot_remap() {
    // ee.vld.128.ip q1, a2, 16: match 830004; qu[21:20,15] = 001 → bit 15; as[7:4] = 2;
    // imm16[22,14:8] = 16/16 = 1 → bit 8.
    let w = 0x83_0004 | (1 << 15) | (2 << 4) | (1 << 8);
    assert_eq!(
        ee("vld.128.ip", &[(K::Qu, 1), (K::As, 2), (K::Imm, 16)]).0,
        w
    );
    assert_eq!(disasm_word(w, 0, &s3()).0, "ee.vld.128.ip q1, a2, 16");
    // Negative offset: -32/16 = -2 = 0xFE → bit 22 = 1, bits 14:8 = 0x7E.
    let w = 0x83_0004 | (2 << 4) | (1 << 22) | (0x7E << 8);
    assert_eq!(disasm_word(w, 0, &s3()).0, "ee.vld.128.ip q0, a2, -32");
    // ee.vmulas.s8.accx.ld.ip q0, a2, 16, q1, q2 (format_32): match f002000e; imm16[27:26,11:8] = 1 → bit 8;
    // qx[0,15:14] = 001 → bit 14; qy[13:12,23] = 010 → bit 12.
    let w = 0xF002_000E | (2 << 4) | (1 << 8) | (1 << 14) | (1 << 12);
    assert_eq!(
        ee(
            "vmulas.s8.accx.ld.ip",
            &[(K::Qu, 0), (K::As, 2), (K::Imm, 16), (K::Qx, 1), (K::Qy, 2)]
        )
        .0,
        w
    );
    assert_eq!(
        disasm_word(w, 0, &s3()).0,
        "ee.vmulas.s8.accx.ld.ip q0, a2, 16, q1, q2"
    );
    assert_eq!(disasm_word(w, 0, &s3()).1, 4);

    // S2 libisa format_32 slot: slot[7:0] = w[11:4], slot[11:8] = w[23:20], slot[15:12] = w[15:12],
    // slot[16] = w[0], slot[20:17] = w[19:16], slot[28:21] = w[31:24].
    let slot_to_word = |slot: u32| -> u32 {
        let f = |hi: u32, lo: u32| (slot >> lo) & ((1 << (hi - lo + 1)) - 1);
        (f(7, 0) << 4)
            | (f(11, 8) << 20)
            | (f(15, 12) << 12)
            | f(16, 16)
            | (f(20, 17) << 16)
            | (f(28, 21) << 24)
    };
    // The S9 example: LLVM puts EE.LDF.128.IP fields at slot {fu3[23:20], fu2[19:16], fu1[15:12],
    // fu0[11:8], imm[7:4], as[3:0]}; after the remap they must read back through the S2 libisa layout.
    for name in ["ldf.128.ip", "ldf.128.xp", "stf.128.ip", "stf.128.xp"] {
        let d = pie::def_by_name(name).unwrap();
        let (k3, k2, k1, k0) = (K::F3, K::F2, K::F1, K::F0);
        let last = if name.ends_with("ip") { K::Imm } else { K::Ad };
        for (f3, f2, f1, f0, im, a) in [
            (0xA, 0x5, 0xC, 0x3, 0x9, 0x6),
            (1, 2, 4, 8, 0xF, 0xE),
            (0xF, 0xE, 0, 7, 1, 2),
        ] {
            let slot = (f3 << 20) | (f2 << 16) | (f1 << 12) | (f0 << 8) | (im << 4) | a;
            let w = slot_to_word(slot) | d.mtch;
            assert_eq!(
                decode(w, 0, &s3()).r as usize,
                pie::defs().iter().position(|x| x.name == name).unwrap()
            );
            assert_eq!(d.operand(k3).unwrap().raw(w), f3, "{name} fu3");
            assert_eq!(d.operand(k2).unwrap().raw(w), f2, "{name} fu2");
            assert_eq!(d.operand(k1).unwrap().raw(w), f1, "{name} fu1");
            assert_eq!(d.operand(k0).unwrap().raw(w), f0, "{name} fu0");
            assert_eq!(d.operand(last).unwrap().raw(w), im, "{name} imm/ad");
            assert_eq!(d.operand(K::As).unwrap().raw(w), a, "{name} as");
        }
    }
}

#[test]
fn pie_op0_4_words_never_collide_with_mac16_or_core() {
    // op0 = 4 is shared with MAC16 (S2 libisa): no word may be both (the ESP32 decodes MAC16 only).
    let e32 = XtensaConfig::esp32();
    let mut mac = 0;
    for hi in 0..(1u32 << 20) {
        let w = (hi << 4) | 4;
        if decode(w, 0, &e32).op != Op::Illegal {
            mac += 1;
            assert!(
                pie::decode_pie(w, 3).is_none(),
                "{:#08x} is MAC16 and PIE",
                w
            );
        }
    }
    assert!(mac > 1000);
    // The 24-bit PIE words are illegal on the ESP32 and ESP8266 (no core opcode shares them), and so
    // are all format_32 words.
    for d in pie::defs() {
        for cfg in [XtensaConfig::esp32(), XtensaConfig::esp8266()] {
            assert_eq!(
                decode(d.mtch, CODE, &cfg).op,
                Op::Illegal,
                "{} on {:?}",
                d.name,
                cfg.core
            );
        }
    }
}

#[test]
fn pie_illegal_on_esp32_and_esp8266() {
    for cfg in [XtensaConfig::esp32(), XtensaConfig::esp8266()] {
        let kernel = cfg.vec.kernel;
        for name in ["vld.128.ip", "vmulas.s8.accx.ld.ip", "zero.qacc", "ld.qr"] {
            let mut m = machine(cfg.clone());
            m.x.cpu.cpenable = 0xFF;
            let mut a = Asm::new(CODE);
            a.ee(name, &[]);
            m.load(&mut a);
            assert_eq!(m.run(CODE).pc(), VEC + kernel, "{name} on {:?}", cfg.core);
            assert_eq!(m.x.cpu.exccause, cause::ILLEGAL);
        }
        // PIE user registers do not exist there either.
        assert_eq!(
            decode(rrr(0, 3, 0xE, 3, 0, 0), CODE, &cfg).op,
            Op::Illegal,
            "rur.accx_0"
        );
    }
}

#[test]
fn pie_coprocessor3_gating() {
    // Without CPENABLE bit 3: Coprocessor3Disabled (cause 35) for EE opcodes and RUR of PIE state (S2 libisa, S5 tie.h).
    for build in [
        (|a: &mut Asm| {
            a.ee("vld.128.ip", &[(K::Qu, 0), (K::As, 2), (K::Imm, 16)]);
        }) as fn(&mut Asm),
        |a| {
            a.ee("zero.accx", &[]);
        },
        |a| {
            a.rur(3, UR_ACCX_0);
        },
        |a| {
            a.ee("ld.qr", &[(K::Q, 1), (K::As, 2), (K::Imm, 0)]);
        },
    ] {
        let mut m = machine(s3());
        m.x.cpu.cpenable = 1; // CP0 only
        m.x.cpu.set_ar(2, DATA);
        let mut a = Asm::new(CODE);
        build(&mut a);
        m.load(&mut a);
        assert_eq!(m.run(CODE).pc(), VEC + 0x300);
        assert_eq!(m.x.cpu.exccause, 35);
        assert_eq!(m.x.cpu.ar(2), DATA, "no side effect");
    }
    // The GPIO opcodes and GPIO_OUT are not gated (S2 libisa, S5 tie.h).
    let mut m = machine(s3());
    m.x.cpu.pie.gpio_in = 0x5A;
    for (r, v) in [(2, 0xF0), (3, 0x3C)] {
        m.x.cpu.set_ar(r, v);
    }
    let mut a = Asm::new(CODE);
    a.ee("wr_mask_gpio_out", &[(K::Value, 2), (K::Mask, 3)]); // (0 & ~0x3C) | (0xF0 & 0x3C) = 0x30
    a.ee("set_bit_gpio_out", &[(K::Imm, 0x81)]); // 0xB1
    a.ee("clr_bit_gpio_out", &[(K::Imm, 0x10)]); // 0xA1
    a.rur(4, UR_GPIO_OUT);
    a.ee("get_gpio_in", &[(K::Au, 5)]);
    a.brk();
    m.load(&mut a);
    assert!(matches!(m.run(CODE), StopReason::Break { .. }));
    assert_eq!(m.a(4), 0xA1);
    assert_eq!(m.a(5), 0x5A);
}

#[test]
fn pie_loads_with_post_increment_alignment_and_sar_byte() {
    let data: Vec<u8> = (0..64u32).map(|i| i as u8).collect();
    let m = pie_exec(
        &[
            (2, DATA + 3),
            (3, DATA + 32),
            (4, 16),
            (5, DATA + 5),
            (6, DATA + 11),
            (7, DATA + 7),
            (8, DATA + 3),
            (9, DATA + 6),
        ],
        |m| {
            m.mem.load(DATA, &data);
            m.x.cpu.pie.q[6] = [0xAA; 16];
        },
        |a| {
            a.ee("vld.128.ip", &[(K::Qu, 0), (K::As, 2), (K::Imm, 16)]); // [DATA] (bits 3:0 ignored), a2 += 16
            a.ee("vld.128.ip", &[(K::Qu, 1), (K::As, 2), (K::Imm, -32)]); // [DATA+16], a2 -= 32
            a.ee("vld.128.xp", &[(K::Qu, 2), (K::As, 3), (K::Ad, 4)]); // [DATA+32], a3 += a4
            a.ee("ld.128.usar.ip", &[(K::Qu, 3), (K::As, 5), (K::Imm, 16)]); // SAR_BYTE = 5
            a.ee("vld.128.ip", &[(K::Qu, 4), (K::As, 5), (K::Imm, 0)]);
            a.ee("src.q", &[(K::Qa, 5), (K::Qs0, 3), (K::Qs1, 4)]); // bytes 5..21
            a.ee("vld.l.64.ip", &[(K::Qu, 6), (K::As, 6), (K::Imm, 8)]); // low half = [DATA+8..16]
            a.ee("vldbc.8", &[(K::Qu, 7), (K::As, 7)]);
            a.rur(10, UR_SAR_BYTE);
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(p.q[0], bytes16(|i| i as i64));
    assert_eq!(p.q[1], bytes16(|i| 16 + i as i64));
    assert_eq!(p.q[2], bytes16(|i| 32 + i as i64));
    assert_eq!(p.q[3], bytes16(|i| i as i64));
    assert_eq!(p.q[4], bytes16(|i| 16 + i as i64));
    assert_eq!(p.q[5], bytes16(|i| 5 + i as i64));
    assert_eq!(p.q[6], bytes16(|i| if i < 8 { 8 + i as i64 } else { 0xAA }));
    assert_eq!(p.q[7], [7; 16]);
    assert_eq!(m.a(2), DATA + 3 + 16 - 32);
    assert_eq!(m.a(3), DATA + 48);
    assert_eq!(m.a(5), DATA + 21);
    assert_eq!(m.a(6), DATA + 19);
    assert_eq!(m.a(10), 5);

    // Broadcasts, VLD.H.64, VLDHBC.16, LD.QR/ST.QR/MV.QR, LDF/STF.
    let mut m = pie_exec(
        &[
            (2, DATA + 3),
            (3, DATA + 6),
            (4, DATA + 19),
            (5, DATA),
            (6, DATA + 0x100),
            (7, DATA + 0x200),
        ],
        |m| {
            m.mem.load(DATA, &data);
            m.x.cpu.pie.q[7] = [0x55; 16];
        },
        |a| {
            a.ee("vldbc.16.ip", &[(K::Qu, 0), (K::As, 2), (K::Imm, 4)]); // [DATA+2] (bit 0 ignored), a2 += 4
            a.ee("vldbc.32.ip", &[(K::Qu, 1), (K::As, 3), (K::Imm, -8)]); // [DATA+4], a3 -= 8
            a.ee("vld.h.64.ip", &[(K::Qu, 7), (K::As, 4), (K::Imm, -8)]); // high half = [DATA+16..24]
            a.ee("vldhbc.16.incp", &[(K::Qu, 2), (K::Qu1, 3), (K::As, 5)]);
            a.ee("mv.qr", &[(K::Q, 4), (K::Qs, 2)]);
            a.ee("st.qr", &[(K::Q, 4), (K::As, 6), (K::Imm, 16)]); // [DATA+0x110]
            a.ee("ld.qr", &[(K::Q, 5), (K::As, 6), (K::Imm, 16)]);
            a.ee(
                "ldf.128.ip",
                &[
                    (K::F3, 1),
                    (K::F2, 2),
                    (K::F1, 3),
                    (K::F0, 4),
                    (K::As, 5),
                    (K::Imm, -16),
                ],
            );
            a.ee(
                "stf.64.ip",
                &[(K::F1, 1), (K::F0, 2), (K::As, 7), (K::Imm, 8)],
            );
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(p.q[0], bytes16(|i| 2 + (i % 2) as i64));
    assert_eq!(p.q[1], bytes16(|i| 4 + (i % 4) as i64));
    assert_eq!(p.q[7], bytes16(|i| if i < 8 { 0x55 } else { 8 + i as i64 }));
    assert_eq!(p.q[2], [0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7]);
    assert_eq!(
        p.q[3],
        [8, 9, 8, 9, 10, 11, 10, 11, 12, 13, 12, 13, 14, 15, 14, 15]
    );
    assert_eq!(p.q[5], p.q[2]);
    assert_eq!(m.mem.peek(DATA + 0x110, 16).unwrap(), p.q[2].to_vec());
    assert_eq!(m.a(2), DATA + 7);
    assert_eq!(m.a(3), DATA - 2);
    assert_eq!(m.a(4), DATA + 11);
    assert_eq!(m.a(5), DATA); // +16 (vldhbc) then -16 (ldf)
                              // LDF.128 fuN = mem32[(as & ~15) + 4N] at DATA+16: f4 = word 0, f3 = word 1, f2 = 2, f1 = 3.
    let word = |n: u32| {
        u32::from_le_bytes([
            16 + 4 * n as u8,
            17 + 4 * n as u8,
            18 + 4 * n as u8,
            19 + 4 * n as u8,
        ])
    };
    assert_eq!(m.x.cpu.fr[4], word(0));
    assert_eq!(m.x.cpu.fr[1], word(3));
    // STF.64: fu0 → [a], fu1 → [a + 4].
    let st = m.mem.peek(DATA + 0x200, 8).unwrap();
    assert_eq!(u32::from_le_bytes(st[0..4].try_into().unwrap()), word(2));
    assert_eq!(u32::from_le_bytes(st[4..8].try_into().unwrap()), word(3));
    assert_eq!(m.a(7), DATA + 0x208);
}

#[test]
fn pie_stores_and_combined_ld_st_ordering() {
    let mut m = pie_exec(
        &[(2, DATA + 9), (3, DATA + 0x40), (4, DATA + 0x80)],
        |m| {
            m.mem.load(DATA + 0x40, &[0x11; 16]);
            let p = &mut m.x.cpu.pie;
            p.q[0] = bytes16(|i| 100 + i as i64);
            p.q[1] = bytes16(|i| 30 - i as i64);
            p.q[2] = [0xEE; 16];
        },
        |a| {
            a.ee("vst.128.ip", &[(K::Qv, 0), (K::As, 2), (K::Imm, 16)]); // [DATA], a2 = DATA+25
            a.ee("vst.l.64.ip", &[(K::Qv, 1), (K::As, 2), (K::Imm, 8)]); // [DATA+24]
                                                                         // .LD.INCP: result first, then qu = [as], as += 16.
            a.ee(
                "vadds.s8.ld.incp",
                &[(K::Qu, 3), (K::As, 3), (K::Qa, 4), (K::Qx, 0), (K::Qy, 1)],
            );
            // .ST.INCP: qv (= qa = q2) is stored before the operation overwrites it.
            a.ee(
                "vsubs.s8.st.incp",
                &[(K::Qv, 2), (K::As, 4), (K::Qa, 2), (K::Qx, 0), (K::Qy, 1)],
            );
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(m.mem.peek(DATA, 16).unwrap(), p.q[0].to_vec());
    assert_eq!(m.mem.peek(DATA + 24, 8).unwrap(), p.q[1][..8].to_vec());
    assert_eq!(m.a(2), DATA + 33);
    assert_eq!(p.q[3], [0x11; 16]);
    assert_eq!(q_i8(&p.q[4])[0], 127); // 100 + 30 saturates
    assert_eq!(q_i8(&p.q[4])[15], 127);
    assert_eq!(m.a(3), DATA + 0x50);
    assert_eq!(m.mem.peek(DATA + 0x80, 16).unwrap(), vec![0xEE; 16]);
    assert_eq!(q_i8(&p.q[2])[0], 70);
    assert_eq!(q_i8(&p.q[2])[15], 100);
    assert_eq!(m.a(4), DATA + 0x90);
}

#[test]
fn pie_saturating_add_sub_and_compare() {
    let x8: [i8; 16] = [
        100, -100, 127, -128, 1, -1, 0, 50, 127, -128, 5, 5, 5, 5, 5, 5,
    ];
    let y8: [i8; 16] = [100, -100, 1, -1, -1, 1, 0, -60, -1, 1, 5, 6, 4, 5, 5, 5];
    let m = pie_exec(
        &[],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = x8.map(|v| v as u8);
            p.q[1] = y8.map(|v| v as u8);
            p.q[4] = q_from_i16([32000, -32000, 32767, -32768, 1, 2, 3, 4]);
            p.q[5] = q_from_i16([1000, -1000, -1, 1, -1, -2, 3, 5]);
            p.q[6] = q_from_i32([i32::MAX, i32::MIN, 5, -7]);
            p.q[7] = q_from_i32([1, -1, -6, -7]);
        },
        |a| {
            a.ee("vadds.s8", &[(K::Qa, 2), (K::Qx, 0), (K::Qy, 1)]);
            a.ee("vsubs.s8", &[(K::Qa, 3), (K::Qx, 0), (K::Qy, 1)]);
        },
    );
    let p = &m.x.cpu.pie;
    // Saturation to the full range [-128, 127] (module notes; QEMU would give -127).
    assert_eq!(
        &q_i8(&p.q[2])[..10],
        &[127, -128, 127, -128, 0, 0, 0, -10, 126, -127]
    );
    assert_eq!(
        &q_i8(&p.q[3])[..10],
        &[0, 0, 126, -127, 2, -2, 0, 110, 127, -128]
    );

    let m = pie_exec(
        &[],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = x8.map(|v| v as u8);
            p.q[1] = y8.map(|v| v as u8);
            p.q[4] = q_from_i16([32000, -32000, 32767, -32768, 1, 2, 3, 4]);
            p.q[5] = q_from_i16([1000, -1000, -1, 1, -1, -2, 3, 5]);
            p.q[6] = q_from_i32([i32::MAX, i32::MIN, 5, -7]);
            p.q[7] = q_from_i32([1, -1, -6, -7]);
        },
        |a| {
            a.ee("vadds.s16", &[(K::Qa, 2), (K::Qx, 4), (K::Qy, 5)]);
            a.ee("vsubs.s32", &[(K::Qa, 3), (K::Qx, 6), (K::Qy, 7)]);
            a.ee("vadds.s32", &[(K::Qa, 6), (K::Qx, 6), (K::Qy, 7)]);
            a.ee("vcmp.lt.s8", &[(K::Qa, 7), (K::Qx, 0), (K::Qy, 1)]);
            a.ee("vmax.s16", &[(K::Qa, 0), (K::Qx, 4), (K::Qy, 5)]);
            a.ee("vmin.s16", &[(K::Qa, 1), (K::Qx, 4), (K::Qy, 5)]);
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(q_i16(&p.q[2]), [32767, -32768, 32766, -32767, 0, 0, 6, 9]);
    assert_eq!(q_i32(&p.q[3]), [i32::MAX - 1, i32::MIN + 1, 11, 0]);
    assert_eq!(q_i32(&p.q[6]), [i32::MAX, i32::MIN, -1, -14]);
    let lt: Vec<i8> = x8
        .iter()
        .zip(y8.iter())
        .map(|(x, y)| if x < y { -1 } else { 0 })
        .collect();
    assert_eq!(q_i8(&p.q[7]).to_vec(), lt);
    assert_eq!(q_i8(&p.q[7])[..4], [0, 0, 0, -1]);
    assert_eq!(q_i8(&p.q[7])[11], -1);
    assert_eq!(q_i16(&p.q[0]), [32000, -1000, 32767, 1, 1, 2, 3, 5]);
    assert_eq!(q_i16(&p.q[1]), [1000, -32000, -1, -32768, -1, -2, 3, 4]);
}

#[test]
fn pie_vmul_shift_by_sar_signed_unsigned_and_cmul() {
    let m = pie_exec(
        &[(2, 4), (3, 8), (4, 0)],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = bytes16(|i| [-7i64, 127, -128, 100, 200][i % 5]);
            p.q[1] = bytes16(|i| [9i64, 127, -128, -100, 200][i % 5]);
            p.q[4] = q_from_i16([3, 4, 1, -2, 0, 0, 0, 0]);
            p.q[5] = q_from_i16([5, 6, 7, 8, 0, 0, 0, 0]);
            p.q[6] = q_from_i16([0, 0, 0, 0, 11, 12, 13, 14]);
            p.q[7] = q_from_i16([0, 0, 0, 0, 21, 22, 23, 24]);
        },
        |a| {
            a.wsr(2, 3); // SAR = 4
            a.ee("vmul.s8", &[(K::Qz, 2), (K::Qx, 0), (K::Qy, 1)]);
            a.wsr(3, 3); // SAR = 8
            a.ee("vmul.u8", &[(K::Qz, 3), (K::Qx, 0), (K::Qy, 1)]);
            a.wsr(4, 3); // SAR = 0
            a.ee(
                "cmul.s16",
                &[(K::Qz, 6), (K::Qx, 4), (K::Qy, 5), (K::Sel, 0)],
            );
            a.ee(
                "cmul.s16",
                &[(K::Qz, 7), (K::Qx, 4), (K::Qy, 5), (K::Sel, 2)],
            );
        },
    );
    let p = &m.x.cpu.pie;
    // (x·y) >> 4, truncated to 8 bits: -63>>4 = -4; 16129>>4 = 1008 = 0x3F0 → 0xF0;
    // 16384>>4 = 0x400 → 0; -10000>>4 = -625 → 0x8F; (-56)(-56) = 3136>>4 = 196 → 0xC4.
    assert_eq!(&q_i8(&p.q[2])[..5], &[-4, -16, 0, -113, -60]);
    // Unsigned, >> 8: 249·9 = 2241 → 8; 127² → 63; 128² → 64; 100·156 = 15600 → 60; 200² = 40000 → 156.
    assert_eq!(&p.q[3][..5], &[8, 63, 64, 60, 156]);
    // (3+4i)(5+6i) = -9+38i, (1-2i)(7+8i) = 23-6i into lanes 0–3, lanes 4–7 kept.
    assert_eq!(q_i16(&p.q[6]), [-9, 38, 23, -6, 11, 12, 13, 14]);
    // conj: (3-4i)(5+6i) = 39-2i, (1+2i)(7+8i) = -9+22i.
    assert_eq!(q_i16(&p.q[7]), [39, -2, -9, 22, 21, 22, 23, 24]);
}

#[test]
fn pie_vmulas_accx_sums_and_saturates_at_40_bits() {
    let m = pie_exec(
        &[(2, 0xFFFF_FF00), (3, 0x7F)],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = bytes16(|i| i as i64 - 8); // -8..7
            p.q[1] = bytes16(|i| 3 - i as i64);
            p.q[2] = [127; 16];
            p.q[3] = [0x80; 16]; // -128
        },
        |a| {
            a.ee("zero.accx", &[]);
            a.ee("vmulas.s8.accx", &[(K::Qx, 0), (K::Qy, 1)]);
            a.rur(4, UR_ACCX_0);
            a.rur(5, UR_ACCX_1);
            a.ee("zero.accx", &[]);
            a.ee("vmulas.u8.accx", &[(K::Qx, 2), (K::Qy, 2)]); // 16·127²
            a.rur(6, UR_ACCX_0);
            a.wur(2, UR_ACCX_0);
            a.wur(3, UR_ACCX_1); // ACCX = 0x7F_FFFF_FF00
            a.ee("vmulas.s8.accx", &[(K::Qx, 2), (K::Qy, 2)]);
            a.rur(7, UR_ACCX_0);
            a.rur(8, UR_ACCX_1);
            a.ee("zero.accx", &[]);
            a.ee("vmulas.s8.accx", &[(K::Qx, 2), (K::Qy, 3)]);
            a.movi(9, 3);
            a.ee("srs.accx", &[(K::Au, 10), (K::As, 9), (K::Sel, 0)]);
            a.rur(11, UR_ACCX_0);
        },
    );
    let expect: i32 = (0..16).map(|i| (i - 8) * (3 - i)).sum();
    assert_eq!(m.a(4), expect as u32);
    assert_eq!(m.a(5), 0xFF); // negative: bits 39:32 all ones
    assert_eq!(m.a(6), 16 * 127 * 127);
    // 0x7F_FFFF_FF00 + 258064 saturates to 2^39 - 1 [Q][U].
    assert_eq!((m.a(7), m.a(8)), (0xFFFF_FFFF, 0x7F));
    // 16·127·(-128) = -260096; SRS.ACCX by 3: -32512, and ACCX keeps the shifted value.
    assert_eq!(m.a(10), (-32512i32) as u32);
    assert_eq!(m.a(11), (-32512i32) as u32);
}

#[test]
fn pie_qacc_mac_extraction_and_layout() {
    let mut m = pie_exec(
        &[(5, 1), (6, DATA + 0x100)],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = q_from_i16([1000, -1000, 32767, -32768, 3, 0, 0, 7]);
            p.q[1] = q_from_i16([1000, 1000, 32767, 32767, -5, 0, 0, 1]);
        },
        |a| {
            a.ee("zero.qacc", &[]);
            a.ee("vmulas.s16.qacc", &[(K::Qx, 0), (K::Qy, 1)]);
            a.ee("vmulas.s16.qacc", &[(K::Qx, 0), (K::Qy, 1)]);
            a.ee("srcmb.s16.qacc", &[(K::Qu, 2), (K::As, 5), (K::Sel, 0)]); // >> 1, sat16
            a.rur(7, UR_QACC_L_0);
            a.rur(8, UR_QACC_L_0 + 1);
            a.ee("st.qacc_l.l.128.ip", &[(K::As, 6), (K::Imm, 16)]);
            a.ee("st.qacc_l.h.32.ip", &[(K::As, 6), (K::Imm, 4)]);
        },
    );
    let p = &m.x.cpu.pie;
    // Lanes after two MACs: 2e6, -2e6, 2147352578, -2147418112, -30, 0, 0, 14; >> 1 then saturate.
    assert_eq!(q_i16(&p.q[2]), [32767, -32768, 32767, -32768, -15, 0, 0, 7]);
    assert_eq!(p.qacc_lane(2, 8, true), 1_073_676_289);
    assert_eq!(p.qacc_lane(3, 8, true), -1_073_709_056);
    // 40-bit lanes: QACC_L_0 = lane0[31:0] = 1e6; QACC_L_1 = lane0[39:32] | lane1[23:0] << 8.
    assert_eq!(m.a(7), 1_000_000);
    assert_eq!(m.a(8), 0xF0BD_C000);
    let st = m.mem.peek(DATA + 0x100, 20).unwrap();
    let words: Vec<u32> = st
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, p.qacc_l.to_vec());
    assert_eq!(m.a(6), DATA + 0x114);

    // 8-bit view: 16 × 20-bit lanes saturate at ±2^19; SRCMB.S8 saturates to 8 bits.
    let mut data = vec![0u8; 16];
    data[0] = 200;
    data[9] = 0x80;
    let m = pie_exec(
        &[(2, 40), (5, 11), (6, DATA)],
        |m| {
            m.mem.load(DATA, &data);
            let p = &mut m.x.cpu.pie;
            p.q[0] = [127; 16];
            p.q[1] = bytes16(|i| if i % 2 == 0 { 127 } else { -128 });
        },
        |a| {
            a.ee("zero.qacc", &[]);
            let end = a.label();
            a.loop_(8, 2, end);
            a.ee("vmulas.s8.qacc", &[(K::Qx, 0), (K::Qy, 1)]);
            a.bind(end);
            a.ee("srcmb.s8.qacc", &[(K::Qu, 2), (K::As, 5), (K::Sel, 0)]);
            a.ee("ldqa.u8.128.ip", &[(K::As, 6), (K::Imm, 0)]);
        },
    );
    let p = &m.x.cpu.pie;
    // 40 · 16129 > 2^19 - 1 and 40 · -16256 < -2^19: lanes saturated, then >> 11 = 255 / -256 → 127 / -128.
    assert_eq!(
        q_i8(&p.q[2]),
        bytes16(|i| if i % 2 == 0 { 127 } else { -128 }).map(|b| b as i8)
    );
    // LDQA.U8 replaced the lanes: zero-extended bytes, QACC_L = bytes 0–7, QACC_H = bytes 8–15.
    assert_eq!(p.qacc_lane(0, 16, true), 200);
    assert_eq!(p.qacc_lane(9, 16, true), 128);
    assert_eq!(p.qacc_h[0] & 0xFFFFF, 0);
    assert_eq!((p.qacc_h[0] >> 20) & 0xFFFFF, 128);
}

#[test]
fn pie_vsmulas_movqacc_relu_zip_moves_logic_shifts() {
    let m = pie_exec(
        &[(2, DATA), (3, 3), (4, 2), (5, 0xDEAD_BEEF), (6, 1)],
        |m| {
            m.mem.load(DATA, &[0x42; 16]);
            let p = &mut m.x.cpu.pie;
            p.q[0] = q_from_i16([1, -2, 3, -4, 5, -6, 7, -8]);
            p.q[1] = q_from_i16([10, 20, 30, 40, 50, 60, 70, 80]);
        },
        |a| {
            a.ee("mov.s16.qacc", &[(K::Qs, 0)]); // lanes = qs
                                                 // lanes += qx · qy[2] (= 30), then q3 = [as], as += 16.
            a.ee(
                "vsmulas.s16.qacc.ld.incp",
                &[(K::Qu, 3), (K::As, 2), (K::Qx, 0), (K::Qy, 1), (K::Sel, 2)],
            );
            a.ee("srcmb.s16.qacc", &[(K::Qu, 4), (K::As, 7), (K::Sel, 0)]); // a7 = 0: no shift
            a.ee("movi.32.a", &[(K::Qs, 1), (K::Au, 8), (K::Sel, 2)]);
            a.ee("movi.32.q", &[(K::Qu, 1), (K::As, 5), (K::Sel, 3)]);
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(q_i16(&p.q[4]), [31, -62, 93, -124, 155, -186, 217, -248]);
    assert_eq!(p.q[3], [0x42; 16]);
    assert_eq!(m.a(2), DATA + 16);
    assert_eq!(m.a(8), (60 << 16) | 50);
    assert_eq!(q_i32(&p.q[1])[3], 0xDEAD_BEEFu32 as i32);

    let m = pie_exec(
        &[(2, 3), (3, 2), (4, 1)],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = bytes16(|i| [-10i64, 10, 0, -128, 127][i % 5]);
            p.q[1] = q_from_i16([-100, 50, -32768, 0, -1, 1, -3, 3]);
            p.q[2] = q_from_i16([3, 9, 2, 5, 7, 7, 7, 7]);
            p.q[4] = bytes16(|i| i as i64);
            p.q[5] = bytes16(|i| 100 + i as i64);
            p.q[6] = q_from_i32([1, -1, 0x1000_0000, 0x8000_0001u32 as i32]);
        },
        |a| {
            a.ee("vrelu.s8", &[(K::Qs, 0), (K::Ax, 2), (K::Ay, 3)]); // neg: (x·3) >> 2
            a.ee(
                "vprelu.s16",
                &[(K::Qz, 3), (K::Qx, 1), (K::Qy, 2), (K::Ay, 4)],
            ); // neg: (x·slope) >> 1
            a.ee("vzip.8", &[(K::Qs0, 4), (K::Qs1, 5)]);
            a.ee("mv.qr", &[(K::Q, 7), (K::Qs, 4)]);
            a.ee("vunzip.8", &[(K::Qs0, 7), (K::Qs1, 5)]);
            a.wsr(2, 3); // SAR = 3
            a.ee("vsl.32", &[(K::Qa, 1), (K::Qs, 6)]);
            a.ee("vsr.32", &[(K::Qa, 2), (K::Qs, 6)]);
        },
    );
    let p = &m.x.cpu.pie;
    // -30>>2 = -8, -384>>2 = -96.
    assert_eq!(&q_i8(&p.q[0])[..5], &[-8, 10, 0, -96, 127]);
    assert_eq!(q_i16(&p.q[3]), [-150, 50, -32768, 0, -4, 1, -11, 3]);
    // After VZIP.8 q4 = a0 b0 … a7 b7; VUNZIP.8 of that with q5 = a8 b8 … restores a and b.
    assert_eq!(
        p.q[4],
        bytes16(|i| if i % 2 == 0 {
            (i / 2) as i64
        } else {
            100 + (i / 2) as i64
        })
    );
    assert_eq!(p.q[7], bytes16(|i| i as i64));
    assert_eq!(p.q[5], bytes16(|i| 100 + i as i64));
    assert_eq!(q_i32(&p.q[1]), [8, -8, i32::MIN, 8]);
    assert_eq!(q_i32(&p.q[2]), [0, -1, 0x0200_0000, 0xF000_0000u32 as i32]);

    let m = pie_exec(
        &[(2, DATA + 3), (3, 16)],
        |m| {
            let p = &mut m.x.cpu.pie;
            p.q[0] = bytes16(|i| i as i64);
            p.q[1] = bytes16(|i| 16 + i as i64);
            p.q[2] = [0xF0; 16];
            p.q[3] = [0x3C; 16];
            p.q[4] = bytes16(|i| i as i64);
            p.q[5] = bytes16(|i| 16 + i as i64);
            p.q[6] = q_from_i16([0, 1, 2, 3, 4, 5, 6, 7]);
            p.q[7] = q_from_i16([10, 11, 12, 13, 14, 15, 16, 17]);
        },
        |a| {
            a.ee("slci.2q", &[(K::Qs1, 1), (K::Qs0, 0), (K::Sar, 0)]); // << 1 byte
            a.ee(
                "srcxxp.2q",
                &[(K::Qs1, 5), (K::Qs0, 4), (K::As, 2), (K::Ad, 3)],
            ); // >> (3 + 1) bytes
            a.ee("andq", &[(K::Qa, 2), (K::Qx, 2), (K::Qy, 3)]);
            a.ee("xorq", &[(K::Qa, 3), (K::Qx, 3), (K::Qy, 2)]);
            a.ee("notq", &[(K::Qa, 3), (K::Qx, 3)]);
            a.ee("vzip.16", &[(K::Qs0, 6), (K::Qs1, 7)]);
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(
        p.q[0],
        bytes16(|i| i as i64 - 1).map(|b| if b == 0xFF { 0 } else { b })
    );
    assert_eq!(p.q[1], bytes16(|i| 15 + i as i64));
    assert_eq!(p.q[4], bytes16(|i| 4 + i as i64));
    assert_eq!(p.q[5], bytes16(|i| if i < 12 { 20 + i as i64 } else { 0 }));
    assert_eq!(m.a(2), DATA + 19);
    assert_eq!(p.q[2], [0x30; 16]);
    assert_eq!(p.q[3], [!(0x3C ^ 0x30); 16]);
    assert_eq!(q_i16(&p.q[6]), [0, 10, 1, 11, 2, 12, 3, 13]);
    assert_eq!(q_i16(&p.q[7]), [4, 14, 5, 15, 6, 16, 7, 17]);
}

#[test]
fn pie_user_registers_round_trip_through_wur_rur() {
    let m = pie_exec(
        &[(2, 0x1234_5678), (3, 0xABCD)],
        |_| {},
        |a| {
            for ur in [2u32, 6, 7, 11, 15, 18] {
                a.wur(2, ur);
            }
            a.wur(3, UR_SAR_BYTE); // 4 bits
            a.wur(3, 14); // FFT_BIT_WIDTH, 4 bits
            a.wur(3, UR_ACCX_1); // 8 bits
            a.rur(4, UR_SAR_BYTE);
            a.rur(5, 14);
            a.rur(6, UR_ACCX_1);
            a.rur(7, 6);
            a.rur(8, 17);
        },
    );
    let p = &m.x.cpu.pie;
    assert_eq!(
        (p.qacc_h[0], p.qacc_h[4], p.qacc_l[0], p.qacc_l[4]),
        (0x1234_5678, 0x1234_5678, 0x1234_5678, 0x1234_5678)
    );
    assert_eq!(
        (p.ua_state[0], p.ua_state[3], p.ua_state[1]),
        (0x1234_5678, 0x1234_5678, 0)
    );
    assert_eq!(
        (m.a(4), m.a(5), m.a(6), m.a(7), m.a(8)),
        (0xD, 0xD, 0xCD, 0x1234_5678, 0)
    );
    let d = |w: u32| disasm_word(w, 0, &s3()).0;
    assert_eq!(d(rrr(0, 3, 0xE, 3, 0, 0)), "rur.accx_0 a3");
    assert_eq!(d(rrr(0, 3, 0xF, 0, 13, 4)), "wur.sar_byte a4");
}

#[test]
fn pie_disassembly_text() {
    let d = |name: &str, vals: &[(K, i64)]| disasm_word(ee(name, vals).0, 0, &s3()).0;
    assert_eq!(d("zero.qacc", &[]), "ee.zero.qacc");
    assert_eq!(
        d("ld.qr", &[(K::Q, 3), (K::As, 4), (K::Imm, -32)]),
        "ld.qr q3, a4, -32"
    );
    assert_eq!(
        d("vld.128.xp", &[(K::Qu, 7), (K::As, 2), (K::Ad, 9)]),
        "ee.vld.128.xp q7, a2, a9"
    );
    assert_eq!(
        d("vadds.s16", &[(K::Qa, 5), (K::Qx, 6), (K::Qy, 7)]),
        "ee.vadds.s16 q5, q6, q7"
    );
    assert_eq!(
        d("srcmb.s8.qacc", &[(K::Qu, 1), (K::As, 5), (K::Sel, 1)]),
        "ee.srcmb.s8.qacc q1, a5, 1"
    );
    assert_eq!(
        d(
            "vmulas.s16.qacc.ld.ip.qup",
            &[
                (K::Qu, 1),
                (K::As, 2),
                (K::Imm, -512),
                (K::Qx, 3),
                (K::Qy, 4),
                (K::Qs0, 5),
                (K::Qs1, 6)
            ]
        ),
        "ee.vmulas.s16.qacc.ld.ip.qup q1, a2, -512, q3, q4, q5, q6"
    );
    assert_eq!(
        d(
            "ldf.128.ip",
            &[
                (K::F3, 15),
                (K::F2, 9),
                (K::F1, 1),
                (K::F0, 0),
                (K::As, 3),
                (K::Imm, 112)
            ]
        ),
        "ee.ldf.128.ip f15, f9, f1, f0, a3, 112"
    );
    assert_eq!(
        d("vldbc.16.ip", &[(K::Qu, 2), (K::As, 3), (K::Imm, 254)]),
        "ee.vldbc.16.ip q2, a3, 254"
    );
    assert_eq!(
        d("wr_mask_gpio_out", &[(K::Value, 2), (K::Mask, 3)]),
        "ee.wr_mask_gpio_out a2, a3"
    );
    assert_eq!(d("fft.r2bf.s16", &[]), "ee.fft.r2bf.s16 q0, q0, q0, q0, 0");
    // Every opcode disassembles to its own name.
    for def in pie::defs() {
        assert!(
            disasm_word(def.mtch, 0, &s3())
                .0
                .starts_with(&def.full_name()),
            "{}",
            def.name
        );
    }
}

/// End to end: an int8 dot product kernel (VLD + VMULAS.S8.ACCX.LD.IP in a zero-overhead loop,
/// read out with RUR and SRS) over data in memory, against a plain Rust computation.
#[test]
fn pie_int8_dot_product_kernel() {
    const N: usize = 256;
    let mut seed = 0xC0FF_EE11u32;
    let mut rnd = || {
        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
        (seed >> 24) as u8 as i8
    };
    let mut x: Vec<i8> = (0..N).map(|_| rnd()).collect();
    let y: Vec<i8> = (0..N).map(|_| rnd()).collect();
    x[0] = -128;
    x[1] = -128;
    let expect: i64 = x.iter().zip(&y).map(|(&a, &b)| a as i64 * b as i64).sum();
    let (xa, ya) = (DATA + 0x1000, DATA + 0x2000);
    let mut m = machine(s3());
    m.mem
        .load(xa, &x.iter().map(|&v| v as u8).collect::<Vec<_>>());
    m.mem
        .load(ya, &y.iter().map(|&v| v as u8).collect::<Vec<_>>());
    m.x.cpu.set_ar(2, xa);
    m.x.cpu.set_ar(3, ya);
    m.x.cpu.set_ar(4, (N / 16) as u32);
    let mut a = Asm::new(CODE);
    a.movi(5, 8);
    a.wsr(5, 224); // CPENABLE = 1 << 3
    a.ee("zero.accx", &[]);
    a.ee("vld.128.ip", &[(K::Qu, 0), (K::As, 2), (K::Imm, 16)]);
    let end = a.label();
    a.loop_(8, 4, end);
    a.ee("vld.128.ip", &[(K::Qu, 1), (K::As, 3), (K::Imm, 16)]);
    // ACCX += Σ q0·q1, then q0 = next 16 bytes of x, a2 += 16.
    a.ee(
        "vmulas.s8.accx.ld.ip",
        &[(K::Qu, 0), (K::As, 2), (K::Imm, 16), (K::Qx, 0), (K::Qy, 1)],
    );
    a.bind(end);
    a.rur(6, UR_ACCX_0);
    a.rur(7, UR_ACCX_1);
    a.movi(9, 0);
    a.ee("srs.accx", &[(K::Au, 8), (K::As, 9), (K::Sel, 0)]);
    a.brk();
    m.load(&mut a);
    assert!(matches!(m.run(CODE), StopReason::Break { .. }));
    let accx = sext40(((m.a(7) as u64) << 32) | m.a(6) as u64);
    assert_eq!(accx, expect);
    assert_eq!(m.a(8) as i32 as i64, expect);
    assert_eq!(m.a(2), xa + N as u32 + 16);
    assert_eq!(m.a(3), ya + N as u32);
    // 1 cycle per instruction (flat memory has no stalls): 5 + 2·16 + 4 instructions.
    assert_eq!(m.x.cpu.insns, 5 + 2 * (N as u64 / 16) + 4);
    assert_eq!(m.x.cpu.cycles, m.x.cpu.insns);
}

fn sext40(v: u64) -> i64 {
    ((v << 24) as i64) >> 24
}

// ---------------------------------------------------------------------------------------------
// Use-distance interlocks (pipeline.rs): figures from the latencies of `XtensaTiming`

/// add.s / sub.s / mul.s / madd.s fr, fs, ft (op1 = 0xA, op2 = 0 / 1 / 2 / 4).
fn fp3(op2: u32, r: u32, s: u32, t: u32) -> u32 {
    rrr(0, 0xA, op2, r, s, t)
}

/// Cycles of `body` after `wsr cpenable` (which ends its block, so `body` starts one).
fn fp_cycles(cfg: XtensaConfig, body: impl FnOnce(&mut Asm)) -> u64 {
    let m = exec_regs(cfg, &[(6, 1), (3, DATA)], |a| {
        a.wsr(6, 224);
        body(a);
    });
    m.x.cpu.cycles - 1
}

#[test]
fn independent_fp_operations_issue_one_per_cycle() {
    for cfg in [s3(), XtensaConfig::esp32()] {
        let c = fp_cycles(cfg, |a| {
            a.i24(fp3(0, 1, 2, 3)); // add.s f1, f2, f3
            a.i24(fp3(2, 4, 5, 6)); // mul.s f4, f5, f6
            a.i24(fp3(4, 7, 8, 9)); // madd.s f7, f8, f9
            a.i24(fp3(1, 10, 11, 12)); // sub.s f10, f11, f12
        });
        assert_eq!(c, 4);
    }
}

#[test]
fn a_dependent_madd_chain_costs_its_latency_per_link() {
    for cfg in [s3(), XtensaConfig::esp32()] {
        let lat = cfg.timing.fp_arith as u64;
        let c = fp_cycles(cfg, |a| {
            for _ in 0..4 {
                a.i24(fp3(4, 1, 2, 3)); // madd.s f1, f2, f3: reads the f1 of the one before
            }
        });
        assert_eq!(c, 1 + 3 * lat);
        assert_eq!(c, 13, "GCC xtensa.md: fmadd latency 4");
    }
}

#[test]
fn an_fp_result_used_two_instructions_later_waits_the_rest_of_its_latency() {
    let c = fp_cycles(s3(), |a| {
        a.i24(fp3(2, 1, 2, 3)); // mul.s f1, f2, f3
        a.i24(fp3(0, 4, 5, 6)); // independent
        a.i24(fp3(0, 7, 1, 1)); // add.s f7, f1, f1: 2 after, waits 4 - 2
    });
    assert_eq!(c, 3 + 2);
    // float.s (a conversion, latency 2) feeding the next instruction waits 1.
    let c = fp_cycles(s3(), |a| {
        a.i24(rrr(0, 0xA, 0xC, 1, 3, 0)); // float.s f1, a3, 0
        a.i24(fp3(0, 2, 1, 1)); // add.s f2, f1, f1
    });
    assert_eq!(c, 2 + 1);
}

#[test]
fn an_fp_load_feeds_the_next_fp_operation_without_a_stall() {
    for cfg in [s3(), XtensaConfig::esp32()] {
        let c = fp_cycles(cfg, |a| {
            a.i24(rri8(3, 0, 3, 2, 0)); // lsi f2, a3, 0
            a.i24(fp3(4, 1, 2, 2)); // madd.s f1, f2, f2
        });
        assert_eq!(c, 2);
    }
}

/// A load used at distance 1 and 2: LX7 (XCHAL_DATA_PIPE_DELAY 1) waits 1 and 0 cycles, LX6
/// (XCHAL_DATA_PIPE_DELAY 2) 2 and 1.
#[test]
fn load_use_distance_on_lx6_and_lx7() {
    let cycles = |cfg: XtensaConfig, distance: u32| {
        exec_regs(cfg, &[(3, DATA)], |a| {
            a.l32i(4, 3, 0);
            for _ in 1..distance {
                a.add(6, 7, 7); // independent
            }
            a.add(5, 4, 4);
        })
        .x
        .cpu
        .cycles
    };
    assert_eq!(cycles(s3(), 1), 2 + 1);
    assert_eq!(cycles(s3(), 2), 3);
    assert_eq!(cycles(XtensaConfig::esp32(), 1), 2 + 2);
    assert_eq!(cycles(XtensaConfig::esp32(), 2), 3 + 1);
    assert_eq!(cycles(XtensaConfig::esp32(), 3), 4);
}

#[test]
fn mac16_issues_one_per_cycle_and_waits_for_its_mr_loads() {
    // mula.aa.ll a3, a4 four times (the accumulator chain forwards: GCC gives mac16 latency 1).
    for cfg in [s3(), XtensaConfig::esp32()] {
        let m = exec_regs(cfg, &[(3, 2), (4, 3)], |a| {
            for _ in 0..4 {
                a.i24(rrr(4, 8, 7, 0, 3, 4));
            }
        });
        assert_eq!(m.x.cpu.cycles, 4);
    }
    // ldinc m0, a8; ldinc m2, a9; mula.dd.ll m0, m2: m2 is used at distance 1.
    let mr = |cfg: XtensaConfig| {
        exec_regs(cfg, &[(8, DATA), (9, DATA + 16)], |a| {
            a.i24(rrr(4, 0, 8, 0, 8, 0));
            a.i24(rrr(4, 0, 8, 2, 9, 0));
            a.i24(rrr(4, 8, 2, 0, 0, 0));
        })
        .x
        .cpu
        .cycles
    };
    assert_eq!(mr(s3()), 3 + 1);
    assert_eq!(mr(XtensaConfig::esp32()), 3 + 2);
}

/// Cycles of a zero-overhead loop of `n` iterations of `body` (with CPENABLE set).
fn loop_cycles(
    cfg: XtensaConfig,
    n: u32,
    body: impl Fn(&mut Asm),
    after: impl Fn(&mut Asm),
) -> u64 {
    let m = exec_regs(cfg, &[(2, n), (6, 1), (3, DATA)], |a| {
        a.wsr(6, 224);
        let end = a.label();
        a.loop_(8, 2, end);
        body(a);
        a.bind(end);
        after(a);
    });
    m.x.cpu.cycles
}

#[test]
fn a_loop_carried_madd_chain_waits_across_the_back_edge() {
    for cfg in [s3(), XtensaConfig::esp32()] {
        // The FIR inner loop of ESP-DSP: two loads and a madd.s into the same accumulator.
        let body = |a: &mut Asm| {
            a.i24(rri8(3, 0, 3, 2, 0)); // lsi f2, a3, 0
            a.i24(rri8(3, 0, 3, 4, 1)); // lsi f4, a3, 4
            a.i24(fp3(4, 1, 2, 4)); // madd.s f1, f2, f4
        };
        let per_iteration = (loop_cycles(cfg.clone(), 8, body, |_| {})
            - loop_cycles(cfg.clone(), 4, body, |_| {}))
            / 4;
        assert_eq!(per_iteration, cfg.timing.fp_arith as u64);
    }
}

#[test]
fn a_wait_after_the_loop_end_is_paid_once() {
    let body = |a: &mut Asm| {
        a.i24(fp3(0, 1, 2, 3)); // add.s f1, f2, f3
        a.i24(fp3(0, 4, 5, 6));
    };
    let after = |a: &mut Asm| {
        a.i24(rrr(0, 0xA, 0xF, 7, 1, 4)); // rfr a7, f1: waits 4 - 2 once
    };
    let (four, eight) = (
        loop_cycles(s3(), 4, body, after),
        loop_cycles(s3(), 8, body, after),
    );
    assert_eq!(eight - four, 4 * 2);
    assert_eq!(loop_cycles(s3(), 4, body, |_| {}) + 1 + 2, four);
}

// ---------------------------------------------------------------------------------------------
// The block compiler against the interpreter on random programs.

/// xorshift64*: the random programs follow from the seed alone.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// Registers random programs compute in; a12 points at data, a13 a word past it (in some programs
/// a byte past it from an iteration on, when the count in a15 reaches 0: misaligned accesses, an
/// exception on the LX106, in compiled code), a14 holds the loop count.
const FREE_REGS: std::ops::RangeInclusive<u8> = 2..=11;

/// Whether `insn` may appear in a random program's straight-line code: computation and data
/// accesses (through a12 or a13) on the free registers, including ops the block compiler leaves to
/// the interpreter (so that compiled and interpreted blocks mix).
fn random_program_op(insn: &Insn) -> bool {
    use Op::*;
    let memory = matches!(
        insn.op,
        L8ui | L16ui | L16si | L32i | L32iN | S8i | S16i | S32i | S32iN
    );
    let fields = [(insn.r, 1), (insn.s, 2), (insn.t, 4)];
    let regs_ok = fields.iter().all(|&(f, bit)| {
        insn.arm & bit == 0
            || FREE_REGS.contains(&f)
            || (memory && bit == 2 && (f == 12 || f == 13))
    });
    let base_ok = !memory || insn.s == 12 || insn.s == 13;
    let allowed = memory
        || matches!(
            insn.op,
            And | Or
                | Xor
                | Add
                | AddN
                | Addx2
                | Addx4
                | Addx8
                | Sub
                | Subx2
                | Subx4
                | Subx8
                | Neg
                | Abs
                | Addi
                | Addmi
                | AddiN
                | Movi
                | MoviN
                | MovN
                | Salt
                | Saltu
                | Moveqz
                | Movnez
                | Movltz
                | Movgez
                | Min
                | Max
                | Minu
                | Maxu
                | Sext
                | Clamps
                | Nsa
                | Nsau
                | Slli
                | Srai
                | Srli
                | Extui
                | Ssr
                | Ssl
                | Ssa8l
                | Ssa8b
                | Ssai
                | Src
                | Srl
                | Sra
                | Sll
                | Mul16u
                | Mul16s
                | Mull
                | Muluh
                | Mulsh
                | Quou
                | Quos
                | Remu
                | Rems
                | Nop
                | NopN
                | Memw
        );
    allowed && regs_ok && base_ok
}

/// A random instruction word of a random program (24 or 16 bits) and its length.
fn random_straight_insn(rng: &mut Rng, cfg: &XtensaConfig) -> (u32, u8) {
    loop {
        let (w, len) = match rng.below(4) {
            0 => (rng.next() & 0xFF_FFF0, 3),       // RRR and friends (op0 0)
            1 => ((rng.next() & 0xFF_FFF0) | 2, 3), // loads, stores, ADDI, MOVI (op0 2)
            2 => ((rng.next() & 0xFF_F0F0) | 0xC02, 3), // the same through a12
            _ => ((rng.next() & 0xFFF0) | (8 + rng.below(6)), 2), // narrow (op0 8-13)
        };
        let insn = decode(w, CODE, cfg);
        if insn.len == len && random_program_op(&insn) {
            return (w, len);
        }
    }
}

/// A random conditional branch on the free registers (op0 6 or 7), its offset field left to
/// `branch_word`.
fn random_branch(rng: &mut Rng, cfg: &XtensaConfig) -> u32 {
    loop {
        let w = (rng.next() & 0x00_FFF0) | (6 + rng.below(2));
        let insn = decode(branch_word(w, 1), CODE, cfg);
        let regs_ok = [(insn.s, 2), (insn.t, 4)]
            .iter()
            .all(|&(f, bit)| insn.arm & bit == 0 || FREE_REGS.contains(&f));
        if insn.len == 3 && insn.is_conditional_branch() && regs_ok {
            return w;
        }
    }
}

/// The branch `w` (`random_branch`) with offset `k`: to PC + 4 + k.
fn branch_word(w: u32, k: u32) -> u32 {
    // BEQZ/BNEZ/BLTZ/BGEZ (op0 6, n 1) take 12 bits from bit 12; the others 8 bits from bit 16.
    if w & 0x3F == 0x16 {
        (w & 0xFFF) | (k << 12)
    } else {
        (w & 0xFFFF) | (k << 16)
    }
}

/// An item of a random loop body.
enum Item {
    Word(u32, u8),
    /// A conditional branch over the next `skip` items.
    Branch(u32, usize),
    /// `rsr a<t>, ccount`.
    Ccount(u32),
    /// CALL0 to a function that adds to a11 and returns.
    Call,
    /// CALL8 to a windowed function (ENTRY, RETW) that adds to its a2 (the caller's a10).
    WindowedCall,
}

/// A random program: a loop (a14 times) over a random body of computation, data accesses, forward
/// branches, CCOUNT reads and calls (windowed ones on cores with windows), ending with BREAK; a13
/// moves by −3 when a15 counts down to 0.
/// A random program for the code at `base`.
fn random_program(rng: &mut Rng, cfg: &XtensaConfig, base: u32) -> Vec<u8> {
    let n = 1 + rng.below(40) as usize;
    let items: Vec<Item> = (0..n)
        .map(|k| match rng.below(10) {
            0 | 1 if k + 1 < n => Item::Branch(
                random_branch(rng, cfg),
                1 + rng.below((n - k - 1).min(4) as u32) as usize,
            ),
            2 if rng.below(3) == 0 => Item::Ccount(*FREE_REGS.start() as u32 + rng.below(10)),
            3 if rng.below(3) == 0 => Item::Call,
            4 if cfg.windowed && rng.below(3) == 0 => Item::WindowedCall,
            _ => {
                let (w, len) = random_straight_insn(rng, cfg);
                Item::Word(w, len)
            }
        })
        .collect();
    let mut a = Asm::new(base);
    let (func, windowed_func) = (a.label(), a.label());
    let top = a.here();
    // Item k starts at `starts[k]`; a branch is 3 bytes, a call 3 bytes plus alignment padding,
    // which a label after it accounts for.
    let mut after: Vec<Option<Label>> = (0..=n).map(|_| None).collect();
    for (k, item) in items.iter().enumerate() {
        if let Item::Branch(_, skip) = item {
            after[k + 1 + skip].get_or_insert_with(|| a.label());
        }
    }
    let mut branches = Vec::new();
    for (k, item) in items.iter().enumerate() {
        if let Some(l) = after[k] {
            a.bind(l);
        }
        match *item {
            Item::Word(w, 3) => {
                a.i24(w);
            }
            Item::Word(w, _) => {
                a.i16(w);
            }
            Item::Branch(w, skip) => {
                branches.push((a.buf.len(), w, after[k + 1 + skip].unwrap()));
                a.i24(0);
            }
            Item::Ccount(t) => {
                a.rsr(t, 234);
            }
            Item::Call => {
                a.call(0, func);
            }
            Item::WindowedCall => {
                a.call(2, windowed_func);
            }
        }
    }
    if let Some(l) = after[n] {
        a.bind(l);
    }
    let (misalign, next, done) = (a.label(), a.label(), a.label());
    a.addi(15, 15, -1).beqz(15, misalign).j(next);
    a.bind(misalign);
    a.addi(13, 13, -3);
    a.bind(next);
    a.addi(14, 14, -1).beqz(14, done).j(top);
    a.bind(done);
    a.brk();
    a.align4();
    a.bind(func);
    a.addi(11, 11, 7).ret();
    a.align4();
    a.bind(windowed_func);
    a.entry(1, 32).addi(2, 2, 5).retw();
    let mut code = a.finish();
    for (pos, w, target) in branches {
        let to = a.labels[target.0].unwrap();
        let k = to - (base + pos as u32 + 4);
        code[pos..pos + 3].copy_from_slice(&branch_word(w, k).to_le_bytes()[..3]);
    }
    code
}

/// What a run of a random program leaves: per budget slice the stop and the state, then the
/// hooks' record and the data.
type RandomRun = (
    Vec<(StopReason, u32, u64, u64, [u32; 64], u32)>,
    Vec<(u32, u64, u64)>,
    Option<Vec<u8>>,
);

/// Plain-path runs before a block of a random program is compiled (lower than `COMPILE_AFTER`,
/// for the test's time: what is compiled and how does not depend on it).
const RANDOM_COMPILE_AFTER: u32 = 2000;

/// Where a random program runs: its code, its data and the vectors (a BREAK in each).
struct RandomPlace {
    code: u32,
    data: u32,
    vectors: u32,
}

/// The test machine's memory (`machine`).
const FLAT_PLACE: RandomPlace = RandomPlace {
    code: CODE,
    data: DATA,
    vectors: VEC,
};

/// Run random program `code` at `place` on `bus`, compiled or interpreted, through budget slices,
/// with hooks that are told of blocks past the first `quiet_len` bytes of the code.
#[allow(clippy::too_many_arguments)]
fn run_random_program<B: XtensaBus>(
    cfg: &XtensaConfig,
    bus: &mut B,
    place: &RandomPlace,
    code: &[u8],
    quiet_len: u32,
    regs: &[u32],
    misaligned_from: u32,
    slices: &[(u64, u64)],
    compile: bool,
) -> RandomRun {
    let mut x = machine(cfg.clone()).x;
    x.set_block_compiler(compile);
    x.set_compile_after(RANDOM_COMPILE_AFTER);
    for (k, &b) in code.iter().enumerate() {
        bus.write(place.code + k as u32, 1, b as u32).unwrap();
    }
    for k in 0..0x400u32 {
        bus.write(place.data + k, 1, (k * 37 + 11) & 0xFF).unwrap();
        let slot = if k % 16 < 3 {
            rrr(0, 0, 0, 4, 0xF, 0xF) >> (8 * (k % 16))
        } else {
            0
        };
        bus.write(place.vectors + k, 1, slot & 0xFF).unwrap();
    }
    x.cpu.vecbase = place.vectors;
    for (i, &v) in regs.iter().enumerate() {
        x.cpu.set_ar(*FREE_REGS.start() as u32 + i as u32, v);
    }
    x.cpu.set_ar(12, place.data);
    x.cpu.set_ar(13, place.data + 4);
    x.cpu.set_ar(15, misaligned_from);
    // Half of the passes run after the loop's blocks were compiled.
    x.cpu.set_ar(14, 2 * RANDOM_COMPILE_AFTER);
    x.cpu.pc = place.code;
    let mut hooks = QuietRange {
        quiet: (place.code, place.code + quiet_len),
        flow: true,
        told: Vec::new(),
    };
    let mut ends = Vec::new();
    for &(insns, cycles) in slices {
        let stop = x.run(bus, &mut hooks, insns, cycles);
        let c = &x.cpu;
        ends.push((stop, c.pc, c.cycles, c.insns, c.physical_ar(), c.sar));
        if !matches!(
            stop,
            StopReason::InsnLimit { .. } | StopReason::CycleLimit { .. }
        ) {
            break;
        }
    }
    let data = (0..0x400).map(|k| bus.read(place.data + k, 1).map(|b| b as u8));
    (ends, hooks.told, data.collect::<Result<_, _>>().ok())
}

/// A board's bus and where a random program runs on it: code and vectors in internal RAM, data in
/// internal RAM (on the ESP32-S3 in the same SRAM as the code, a few chunks on, so that stores
/// check code marks next to marked chunks).
fn random_board(cfg: &XtensaConfig) -> (EspBus, RandomPlace) {
    let (board, code, data, vectors) = if cfg.windowed {
        ("esp32s3", 0x4037_9000, 0x3FC8_A000, 0x4037_8000)
    } else {
        ("esp8266", 0x4010_1000, 0x3FFE_9000, 0x4010_0000)
    };
    let board = tigris_targets::load(board).unwrap();
    let place = RandomPlace {
        code,
        data,
        vectors,
    };
    (EspBus::new(&board), place)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Random loops of computation, data accesses (faults included), branches, CCOUNT reads and
    /// calls, run in random budget slices, end in the same state, cycle for cycle, with the block
    /// compiler as on the interpreter alone.
    #[test]
    fn block_compiler_runs_random_programs_exactly_as_the_interpreter(seed in proptest::prelude::any::<u64>()) {
        let mut rng = Rng(seed | 1);
        for cfg in [XtensaConfig::esp8266(), XtensaConfig::esp32s3()] {
            // The same program at both places.
            let place = random_board(&cfg).1;
            let board_code = random_program(&mut Rng(rng.0), &cfg, place.code);
            let code = random_program(&mut rng, &cfg, CODE);
            let regs: Vec<u32> = FREE_REGS.map(|_| rng.next()).collect();
            // 0: never (a15 counts down from −1).
            let misaligned_from = if rng.below(4) == 0 {
                RANDOM_COMPILE_AFTER + rng.below(60)
            } else {
                0
            };
            // Short slices, one that ends anywhere in the run (mostly after the blocks were
            // compiled), short slices again (compiled code cut by the budgets), the rest.
            let short = |rng: &mut Rng| (1 + rng.below(3000) as u64, 1 + rng.below(5000) as u64);
            let mut slices: Vec<(u64, u64)> = (0..4).map(|_| short(&mut rng)).collect();
            slices.push((1 + rng.below(200_000) as u64, u64::MAX));
            slices.extend((0..4).map(|_| short(&mut rng)));
            slices.push((u64::MAX, u64::MAX));
            // Blocks past this many bytes of the code are told to the hooks.
            let quiet_len = 1 + rng.below(code.len() as u32 + 64);
            let flat = |compile| {
                let mut bus = FreeFetch(machine(cfg.clone()).mem);
                run_random_program(&cfg, &mut bus, &FLAT_PLACE, &code, quiet_len, &regs, misaligned_from, &slices, compile)
            };
            let (compiled, interpreted) = (flat(true), flat(false));
            proptest::prop_assert!(compiled == interpreted, "seed {seed}: {:?} vs {:?}", compiled.0.last(), interpreted.0.last());
            // On the board's own bus compiled code makes plain accesses itself (`DataView`), so the
            // regions' traffic counters are compared too.
            let board = |compile| {
                let mut bus = random_board(&cfg).0;
                let run = run_random_program(&cfg, &mut bus, &place, &board_code, quiet_len, &regs, misaligned_from, &slices, compile);
                bus.flush_traffic();
                (run, bus.mem.regions.iter().map(|r| r.counters).collect::<Vec<_>>())
            };
            let (compiled, interpreted) = (board(true), board(false));
            proptest::prop_assert!(compiled == interpreted, "seed {seed} on the board: {:?} vs {:?}", compiled.0.0.last(), interpreted.0.0.last());
        }
    }
}
