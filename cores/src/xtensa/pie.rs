//! ESP32-S3 PIE ("cop_ai", coprocessor 3): state, decoder table, disassembly and execution.
//!
//! Sources (tags in the `xtensa` module docs): state from S2 libisa (states, regfiles), S5 tie.h and S4;
//! semantics from S4, the ESP32-S3 PIE translator of Espressif's QEMU [Q]; encodings from S2 libisa, the
//! ESP32-S3 xtensa-modules.c (the table below is a mechanical dump of its PIE opcodes and is parsed
//! once), cross-checked against S9; format_32 slot layout from S2. Gating by CPENABLE bit 3 (cause 35)
//! and the ungated GPIO opcodes: S2 libisa state lists, S5 tie.h.
//!
//! Choices where the sources give QEMU-only [Q] or unverified [U] behaviour (all named in the code where
//! they apply):
//! - VADDS/VSUBS saturate to the full two's-complement range [−2^(n−1), 2^(n−1)−1], not QEMU's ±(2^(n−1)−1).
//! - QACC lanes and ACCX saturate: signed ops to the signed 20/40-bit range, unsigned ops read the lane
//!   unsigned and saturate to [0, 2^w − 1].
//! - VMUL/CMUL/VRELU/VPRELU results are truncated to the lane width after the right shift (no saturation).
//! - SRCMB/SRS shift arithmetically by `as & 63`, write the shifted value back; sel2 is ignored.
//! - Shift counts taken from an AR (VRELU/VPRELU `ay`) use `ay & 63`; SLCXXP/SRCXXP shift by `(as & 15) + 1` bytes.
//! - ST.ACCX stores ACCX sign-extended to 64 bits; RUR.ACCX_1 reads bits [39:32] zero-extended.
//! - `.QUP` / `SRC.Q.LD`: all sources are read first; qs0 is written, then qu (the load wins if they alias).
//! - RUR/WUR of GPIO_OUT are not gated (it is not part of the CP3 state, S5 tie.h).
//!
//! All 220 opcodes are executed. LDXQ.32, STXQ.32, the FFT.* family (R2BF, CMUL, AMS, VST.R32) and BITREV,
//! which S4 leaves open or our sources mark [U], follow the operation pseudo-code of the ESP32-S3 Technical
//! Reference Manual v1.8, chapter 1 "Processor Instruction Extensions", §1.8.2 (BITREV), §1.8.7–1.8.15
//! (FFT), §1.8.37 (LDXQ.32) and §1.8.69 (STXQ.32); QEMU's ESP32-S3 translator (S4) was read as a second
//! opinion only. Choices where the TRM is silent (assumptions):
//! - Sums and differences inside an expression (x+y before `>> sar4`, x−y and x'+y' before the twiddle
//!   multiply) are taken at full precision; a value the TRM writes as `[15:0]` (temp0–temp3, results) wraps
//!   to 16 bits. No FFT instruction saturates.
//! - Every `>>` of signed 16-bit data (SAR, sar4, sar2, the AMS.ST `>> 1`) is arithmetic.
//! - FFT.CMUL: the TRM lists sel8 0–5 for LD.XP and 6–7 for ST.XP; both take any sel8 as lane pair
//!   sel8 >> 1, x·conj(y) when sel8 is even and x·y when odd (LD.XP writes that pair of qz, ST.XP always
//!   stores the product in lanes 6–7). ST.XP upd4 = 3 (not in the TRM) stores like upd4 = 0.
//! - LDXQ/STXQ read the index lane of qs unsigned.
//! - BITREV (§1.8.2, operand `as`, S2 libisa's `ax`): FFT_BIT_WIDTH is the bit width w itself, as the
//!   pseudo-code compares it with 3..10 (Espressif's own ESP32-S3 FFT code writes log2 N into it). The TRM
//!   spells out w = 3, 4 and 10 and elides 5–9 with "..."; those follow the w = 4/10 rows. For w = 3 the TRM
//!   writes only lanes 0–5 and zeroes qa[127:96] (lanes 6–7), which is followed as written. For
//!   FFT_BIT_WIDTH 0–2 and 11–15 no branch of the pseudo-code applies: qa is left unchanged; `as += 8`
//!   is unconditional in the TRM and always happens.
//! - Register aliasing: all sources are read first; R2BF writes qa0 then qa1; the AMS loads write qz, qz1,
//!   then qu; AMS.ST writes at (as0) before as, so as wins if they are the same register.

// Lane loops index several arrays in step; indices read closer to the lane formulas of S4 and the TRM.
#![allow(clippy::needless_range_loop)]

use std::sync::OnceLock;

use super::bus::XtensaBus;
use super::cpu::*;
use super::decode::{Insn, Op, AR_S, AR_T};
use super::exec::Flow;

/// The PIE opcode rows dumped from S2 libisa (ESP32-S3 xtensa-modules.c): `operands|len|mask|mnemonic
/// match, ...`.
const ROWS: &str = "\
q[21:20,15] as[7:4] imm[11:8]=s4*16|3|cf700f|st.qr cd6004\n\
q>[21:20,15] as[7:4] imm[11:8]=s4*16|3|cf700f|ld.qr cd2004\n\
q>[21:20,15] qs[11:10,5]|3|cf73df|mv.qr 8f0004\n\
value[7:4] mask[11:8]|3|fff00f|wr_mask_gpio_out 724004\n\
mask[11:4]|3|fff00f|set_bit_gpio_out 754004\n\
clear[11:4]|3|fff00f|clr_bit_gpio_out 764004\n\
au>[7:4]|3|ffff0f|get_gpio_in 650804\n\
qu>[21:20,15] as*[7:4] imm16[22,14:8]=s8*16|3|8f000f|vld.128.ip 830004, ld.128.usar.ip 810004\n\
qu>[21:20,15] as*[7:4] ad[11:8]|3|cf700f|vld.128.xp 8d2004, vldbc.16.xp 8d4004, vldbc.32.xp 8d1004, vldbc.8.xp 8d5004, ld.128.usar.xp 8d0004\n\
qu*[21:20,15] as*[7:4] imm8[22,14:8]=s8*8|3|8f000f|vld.h.64.ip 880004, vld.l.64.ip 890004\n\
qu*[21:20,15] as*[7:4] ad[11:8]|3|cf700f|vld.h.64.xp 8d6004, vld.l.64.xp 8d3004\n\
qu>[21:20,15] as*[7:4] imm2[14:8]=u7*2|3|cf000f|vldbc.16.ip 850004\n\
qu>[21:20,15] as[7:4]|3|cf7f0f|vldbc.16 cd7304, vldbc.32 cd7704, vldbc.8 cd3b04\n\
qu>[21:20,15] as*[7:4] imm4[22,14:8]=s8*4|3|8f000f|vldbc.32.ip 820004\n\
qu>[21:20,15] as*[7:4] imm1[14:8]=u7|3|cf000f|vldbc.8.ip c50004\n\
qu>[21:20,15] qu1>[14:12] as*[7:4]|3|cf0f0f|vldhbc.16.incp cc0204\n\
fu3>[26:24,19] fu2>[18:16,0] fu1>[15:12] fu0>[23:20] as*[7:4] imm16f[11:8]=s4*16|4|f800000e|ldf.128.ip 8000000e\n\
fu3>[26:24,19] fu2>[18:16,0] fu1>[15:12] fu0>[23:20] as*[7:4] ad[11:8]|4|f800000e|ldf.128.xp 8800000e\n\
fu1>[15:12] fu0>[23:20] as*[7:4] imm8[25:24,19:16,0,8]=s8*8|4|fc000e0e|ldf.64.ip e000040e\n\
fu1>[15:12] fu0>[23:20] as*[7:4] ad[11:8]|3|0f000f|ldf.64.xp 060000\n\
as*[7:4] imm16[22,14:8]=s8*16|3|bf800f|ldqa.s16.128.ip 010004, ldqa.s8.128.ip 110004, ldqa.u16.128.ip 050004, ldqa.u8.128.ip 150004, ld.qacc_h.l.128.ip 060004, ld.qacc_l.l.128.ip 000004, ld.ua_state.ip 100004, st.ua_state.ip 1c0004, st.qacc_h.l.128.ip 0d0004, st.qacc_l.l.128.ip 0c0004\n\
as*[7:4] ad[11:8]|3|fff00f|ldqa.s16.128.xp 7e4004, ldqa.s8.128.xp 714004, ldqa.u16.128.xp 7a4004, ldqa.u8.128.xp 704004\n\
as*[7:4] imm4[22,14:8]=s8*4|3|bf800f|ld.qacc_h.h.32.ip 1e0004, ld.qacc_l.h.32.ip 160004, st.qacc_h.h.32.ip 120004, st.qacc_l.h.32.ip 1d0004\n\
as*[7:4] imm8[22,14:8]=s8*8|3|bf800f|ld.accx.ip 0e0004, st.accx.ip 020004\n\
qu*[18:16] qs[0,15:14] as[7:4] sel4[24,19] sel8[13:12,23]|4|fe700f0e|ldxq.32 e0700d0e\n\
qv[21:20,15] as*[7:4] imm16[22,14:8]=s8*16|3|8f000f|vst.128.ip 8a0004\n\
qv[21:20,15] as*[7:4] ad[11:8]|3|cf700f|vst.128.xp 8d7004, vst.h.64.xp cd0004, vst.l.64.xp cd4004\n\
qv[21:20,15] as*[7:4] imm8[22,14:8]=s8*8|3|8f000f|vst.h.64.ip 8b0004, vst.l.64.ip 840004\n\
fv3[26:24,19] fv2[18:16,0] fv1[15:12] fv0[23:20] as*[7:4] imm16f[11:8]=s4*16|4|f800000e|stf.128.ip 9000000e\n\
fv3[26:24,19] fv2[18:16,0] fv1[15:12] fv0[23:20] as*[7:4] ad[11:8]|4|f800000e|stf.128.xp 9800000e\n\
fv1[15:12] fv0[23:20] as*[7:4] imm8[25:24,19:16,0,8]=s8*8|4|fc000e0e|stf.64.ip e000060e\n\
fv1[15:12] fv0[23:20] as*[7:4] ad[11:8]|3|0f000f|stf.64.xp 070000\n\
qv[22:20] qs[0,15:14] as[7:4] sel4[24,19] sel8[13:12,23]|4|fe070f0e|stxq.32 e600000e\n\
qs[21:20,15] au>[7:4] sel4[11:10]|3|cf730f|movi.32.a cd7104\n\
qu*[21:20,15] as[7:4] sel4[11:10]|3|cf730f|movi.32.q cd3204\n\
qs0*[14:12] qs1*[21:20,15]|3|cf0fff|vzip.16 cc03b4, vzip.32 cc03c4, vzip.8 cc03d4, vunzip.16 cc0384, vunzip.32 cc0394, vunzip.8 cc03a4\n\
-|3|ffffff|zero.accx 250804, zero.qacc 250844\n\
qa>[21:20,15]|3|cf7fff|zero.q cd7fa4\n\
qs[21:20,15]|3|cf7fff|mov.s16.qacc cd7f24, mov.s8.qacc cd7f34, mov.u16.qacc cd7f64, mov.u8.qacc cd7f74\n\
qu>[25:24,19] as*[7:4] qa>[18:16] qx[0,15:14] qy[13:12,23]|4|fc700f0e|vadds.s16.ld.incp e0200d0e, vadds.s32.ld.incp e0300d0e, vadds.s8.ld.incp e0100c0e, vsubs.s16.ld.incp e0400d0e, vsubs.s32.ld.incp e0500d0e, vsubs.s8.ld.incp e0600d0e, vmax.s16.ld.incp e0100d0e, vmax.s32.ld.incp e0100e0e, vmax.s8.ld.incp e0100f0e, vmin.s16.ld.incp e0200e0e, vmin.s32.ld.incp e0300e0e, vmin.s8.ld.incp e0200f0e\n\
qv[22:20] as*[7:4] qa>[18:16] qx[0,15:14] qy[13:12,23]|4|ff080f0e|vadds.s16.st.incp e408000e, vadds.s32.st.incp e408010e, vadds.s8.st.incp e408020e, vsubs.s16.st.incp e808010e, vsubs.s32.st.incp e808020e, vsubs.s8.st.incp e808030e, vmax.s16.st.incp e408030e, vmax.s32.st.incp e500000e, vmax.s8.st.incp e508000e, vmin.s16.st.incp e500010e, vmin.s32.st.incp e508010e, vmin.s8.st.incp e500020e\n\
qa>[21:20,15] qx[10:8] qy[14,12:11]|3|cf20ff|vadds.s16 8e0064, vadds.s32 8e0074, vadds.s8 8e0084, vsubs.s16 8e20d4, vsubs.s32 8e20e4, vsubs.s8 8e20f4, vmax.s16 8e2024, vmax.s32 8e2034, vmax.s8 8e2044, vmin.s16 8e2054, vmin.s32 8e2064, vmin.s8 8e2074, vcmp.eq.s16 8e0094, vcmp.eq.s32 8e00a4, vcmp.eq.s8 8e00b4, vcmp.gt.s16 8e00c4, vcmp.gt.s32 8e00d4, vcmp.gt.s8 8e00e4, vcmp.lt.s16 8e00f4, vcmp.lt.s32 8e2004, vcmp.lt.s8 8e2014\n\
qu>[25:24,19] as*[7:4] qz>[18:16] qx[0,15:14] qy[13:12,23]|4|fc700f0e|vmul.s16.ld.incp e0300f0e, vmul.s8.ld.incp e0400c0e, vmul.u16.ld.incp e0500c0e, vmul.u8.ld.incp e0600c0e\n\
qv[22:20] as*[7:4] qz>[18:16] qx[0,15:14] qy[13:12,23]|4|ff080f0e|vmul.s16.st.incp e508020e, vmul.s8.st.incp e500030e, vmul.u16.st.incp e508030e, vmul.u8.st.incp e808000e\n\
qz>[21:20,15] qx[10:8] qy[14,12:11]|3|cf20ff|vmul.s16 8e2084, vmul.s8 8e2094, vmul.u16 8e20a4, vmul.u8 8e20b4\n\
qu>[25:24,19] as*[7:4] qz*[18:16] qx[0,15:14] qy[13:12,23] sel4[9:8]|4|fc700c0e|cmul.s16.ld.incp e0000c0e\n\
qv[22:20] as*[7:4] qz*[18:16] qx[0,15:14] qy[13:12,23] sel4[9:8]|4|ff080c0e|cmul.s16.st.incp e400000e\n\
qz*[21:20,15] qx[10:8] qy[14,12:11] sel4[5:4]|3|cf20cf|cmul.s16 8e0004\n\
qu>[25:24,19] as*[7:4] imm16[27:26,11:8]=s6*16 qx[0,15:14] qy[13:12,23] qs0*[22:20] qs1[18:16]|4|f000000e|vmulas.s16.accx.ld.ip.qup 0000000e, vmulas.s8.accx.ld.ip.qup 2000000e, vmulas.u16.accx.ld.ip.qup 4000000e, vmulas.u8.accx.ld.ip.qup 6000000e, vmulas.s16.qacc.ld.ip.qup 1000000e, vmulas.s8.qacc.ld.ip.qup 3000000e, vmulas.u16.qacc.ld.ip.qup 5000000e, vmulas.u8.qacc.ld.ip.qup 7000000e\n\
qu>[25:24,19] as*[7:4] imm16[27:26,11:8]=s6*16 qx[0,15:14] qy[13:12,23]|4|f077000e|vmulas.s16.accx.ld.ip f000000e, vmulas.s8.accx.ld.ip f002000e, vmulas.u16.accx.ld.ip f004000e, vmulas.u8.accx.ld.ip f006000e, vmulas.s16.qacc.ld.ip f001000e, vmulas.s8.qacc.ld.ip f003000e, vmulas.u16.qacc.ld.ip f005000e, vmulas.u8.qacc.ld.ip f007000e\n\
qu>[25:24,19] as*[7:4] ad[11:8] qx[0,15:14] qy[13:12,23] qs0*[22:20] qs1[18:16]|4|fc00000e|vmulas.s16.accx.ld.xp.qup b000000e, vmulas.s8.accx.ld.xp.qup b800000e, vmulas.u16.accx.ld.xp.qup c000000e, vmulas.u8.accx.ld.xp.qup c800000e, vmulas.s16.qacc.ld.xp.qup b400000e, vmulas.s8.qacc.ld.xp.qup bc00000e, vmulas.u16.qacc.ld.xp.qup c400000e, vmulas.u8.qacc.ld.xp.qup cc00000e\n\
qu>[25:24,19] as*[7:4] ad[11:8] qx[0,15:14] qy[13:12,23]|4|fc77000e|vmulas.s16.accx.ld.xp f010000e, vmulas.s8.accx.ld.xp f012000e, vmulas.u16.accx.ld.xp f014000e, vmulas.u8.accx.ld.xp f016000e, vmulas.s16.qacc.ld.xp f011000e, vmulas.s8.qacc.ld.xp f013000e, vmulas.u16.qacc.ld.xp f015000e, vmulas.u8.qacc.ld.xp f017000e\n\
qx[10:8] qy[14,12:11]|3|ffa0ff|vmulas.s16.accx 1a0084, vmulas.s8.accx 1a00c4, vmulas.u16.accx 0a0084, vmulas.u8.accx 0a00c4, vmulas.s16.qacc 1a2084, vmulas.s8.qacc 1a20c4, vmulas.u16.qacc 0a2084, vmulas.u8.qacc 0a20c4\n\
qu>[25:24,19] as*[7:4] qx[0,15:14] qy[13:12,23] qs0*[22:20] qs1[18:16]|4|fc000f0e|vmulas.s16.qacc.ldbc.incp.qup e000080e, vmulas.s8.qacc.ldbc.incp.qup e000090e, vmulas.u16.qacc.ldbc.incp.qup e0000a0e, vmulas.u8.qacc.ldbc.incp.qup e0000b0e\n\
qu>[20,15,13] as*[7:4] qx[10:8] qy[14,12:11]|3|ef000f|vmulas.s16.qacc.ldbc.incp 870004, vmulas.s8.qacc.ldbc.incp a70004, vmulas.u16.qacc.ldbc.incp c70004, vmulas.u8.qacc.ldbc.incp e70004\n\
qu>[25:24,19] as*[7:4] qx[0,15:14] qy[13:12,23] sel8[18:16]|4|fc700f0e|vsmulas.s16.qacc.ld.incp e0700c0e\n\
qx[10:8] qy[14,12:11] sel8[21:20,15]|3|cf20ff|vsmulas.s16.qacc 8e20c4\n\
qu>[25:24,19] as*[7:4] qx[0,15:14] qy[13:12,23] sel16[18:16,20]|4|fc600f0e|vsmulas.s8.qacc.ld.incp e0200c0e\n\
qx[10:8] qy[14,12:11] sel16[21:20,15,4]|3|cf20ef|vsmulas.s8.qacc 8e0044\n\
qu>[21:20,15] as[7:4] sel2[10]|3|cf7b0f|srcmb.s16.qacc cd7204, srcmb.s8.qacc cd7a04\n\
au>[11:8] as[7:4] sel2[14]|3|ffb00f|srs.accx 7e1004\n\
qs*[21:20,15] ax[11:8] ay[7:4]|3|cf700f|vrelu.s16 cd1004, vrelu.s8 cd5004\n\
qz>[21:20,15] qx[10:8] qy[14,12:11] ay[7:4]|3|cf200f|vprelu.s16 8c0004, vprelu.s8 8c2004\n\
qa>[21:20,15] qx[7:6,4] qy[11:10,5]|3|cf730f|andq cd3004, orq cd7004, xorq cd3104\n\
qa>[21:20,15] qx[7:6,4]|3|cf7f2f|notq cd7f04\n\
qs1*[21:20,15] qs0*[14:12] sar16[7:4]|3|cf0f0f|slci.2q cc0604, srci.2q cc0a04\n\
qs1*[21:20,15] qs0*[14:12] as*[7:4] ad[11:8]|3|cf000f|slcxxp.2q 860004, srcxxp.2q c60004\n\
qs0[14:12] qs1[21:20,15] as*[7:4]|3|cf0f0f|srcq.128.st.incp cc0e04\n\
qu>[18:16] as*[7:4] imm16[25:24,19,13:12,23,9:8]=s8*16 qs0*[0,15:14] qs1[22:20]|4|fc000c0e|src.q.ld.ip e000000e\n\
qu>[18:16] as*[7:4] ad[11:8] qs0*[0,15:14] qs1[22:20]|4|ff88300e|src.q.ld.xp e800000e\n\
qa>[6:4] qs0*[14:12] qs1[21:20,15]|3|cf0f8f|src.q.qup cc0704\n\
qa>[6:4] qs0[14:12] qs1[21:20,15]|3|cf0f8f|src.q cc0304\n\
qa>[6:4] qs[21:20,15]|3|cf7f8f|vsl.32 cd3f04, vsr.32 cd3f84\n\
qa0>[18:16] qx[0,15:14] qy[22:20] as*[7:4] sar4[12,23]|4|ff082f0e|fft.r2bf.s16.st.incp e808040e\n\
qa0>[21:20,15] qa1>[14:12] qx[7:6,4] qy[11:10,5] sel2[8]|3|cf020f|fft.r2bf.s16 cc0004\n\
qu>[13:12,23] as*[7:4] ad[11:8] qz*[18:16] qx[0,15:14] qy[22:20] sel8[25:24,19]|4|fc00000e|fft.cmul.s16.ld.xp dc00000e\n\
qx[0,15:14] qy[22:20] qv[18:16] as*[7:4] ad[11:8] sel8[13:12,23] upd4[24,19] sar4[26:25]|4|f800000e|fft.cmul.s16.st.xp a800000e\n\
qa>[21:20,15] ax*[7:4]|3|cf7f0f|bitrev cd7b04\n\
qu>[10:8] as*[7:4] qz*[13:12,23] qz1*[24,19,11] qx[0,15:14] qy[22:20] qm[18:16] sel2[25]|4|fc00000e|fft.ams.s16.ld.incp d000000e, fft.ams.s16.ld.incp.uaup d400000e, fft.ams.s16.ld.r32.decp d800000e\n\
qv[22:20] qz1*[25:24,19] as0*[7:4] as*[11:8] qx[18:16] qy[0,15:14] qm[13:12,23] sel2[26]|4|f800000e|fft.ams.s16.st.incp a000000e\n\
qv[21:20,15] as*[7:4] sar2[10]|3|cf7b0f|fft.vst.r32.decp cd3304\n\
";

// ---------------------------------------------------------------------------------------------
// State (S2 libisa states and regfiles, S5 tie.h, S4)

/// PIE architectural state: q0–q7, QACC_H/QACC_L (160 bits each), ACCX (40 bits) and user state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PieState {
    /// QR registers, little-endian lanes (lane i of width w = bytes [i·w/8, …)).
    pub q: [[u8; 16]; 8],
    /// QACC_H / QACC_L as 5 words each: word n = bits [32n+31:32n] = UR QACC_{H,L}_n.
    pub qacc_h: [u32; 5],
    pub qacc_l: [u32; 5],
    /// 40-bit scalar accumulator (bits above 39 are always 0).
    pub accx: u64,
    /// SAR_BYTE (4 bits, UR 13).
    pub sar_byte: u32,
    /// FFT_BIT_WIDTH (4 bits, UR 14).
    pub fft_bit_width: u32,
    /// UA_STATE (128 bits, UR 15–18).
    pub ua_state: [u32; 4],
    /// GPIO_OUT (8 bits, UR 12), the dedicated-GPIO output port.
    pub gpio_out: u32,
    /// The 8-bit GPIO_IN port read by GET_GPIO_IN (driven by the SoC model; 0 by default).
    pub gpio_in: u32,
}

const MASK40: u64 = (1 << 40) - 1;

fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn sat(v: i64, bits: u32, signed: bool) -> i64 {
    if signed {
        v.clamp(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        v.clamp(0, (1i64 << bits) - 1)
    }
}

fn get_bits(h: &[u32; 5], lo: u32, w: u32) -> u64 {
    let wi = (lo / 32) as usize;
    let mut v: u128 = 0;
    for k in 0..3 {
        if wi + k < 5 {
            v |= (h[wi + k] as u128) << (32 * k);
        }
    }
    ((v >> (lo % 32)) as u64) & ((1u64 << w) - 1)
}

fn set_bits(h: &mut [u32; 5], lo: u32, w: u32, val: u64) {
    let wi = (lo / 32) as usize;
    let mut v: u128 = 0;
    for k in 0..3 {
        if wi + k < 5 {
            v |= (h[wi + k] as u128) << (32 * k);
        }
    }
    let m = ((1u128 << w) - 1) << (lo % 32);
    v = (v & !m) | (((val as u128) << (lo % 32)) & m);
    for k in 0..3 {
        if wi + k < 5 {
            h[wi + k] = (v >> (32 * k)) as u32;
        }
    }
}

impl PieState {
    /// QACC lane `i` of `n` (16 × 20-bit for 8-bit ops, 8 × 40-bit for 16-bit ops); QACC_L holds
    /// the low half of the lanes (S4 [Q]).
    pub fn qacc_lane(&self, i: usize, n: usize, signed: bool) -> i64 {
        let w = if n == 16 { 20 } else { 40 };
        let (half, j) = if i < n / 2 {
            (&self.qacc_l, i)
        } else {
            (&self.qacc_h, i - n / 2)
        };
        let raw = get_bits(half, (j as u32) * w, w);
        if signed {
            sext(raw, w)
        } else {
            raw as i64
        }
    }

    pub fn set_qacc_lane(&mut self, i: usize, n: usize, v: i64) {
        let w = if n == 16 { 20 } else { 40 };
        let (half, j) = if i < n / 2 {
            (&mut self.qacc_l, i)
        } else {
            (&mut self.qacc_h, i - n / 2)
        };
        set_bits(half, (j as u32) * w, w, v as u64);
    }

    /// The signed 16-bit lanes of q register `i`.
    fn s16(&self, i: usize) -> [i64; 16] {
        lanes(&self.q[i], 2, true)
    }

    /// ACCX as a signed or unsigned 40-bit value.
    fn accx_val(&self, signed: bool) -> i64 {
        if signed {
            sext(self.accx, 40)
        } else {
            self.accx as i64
        }
    }

    /// RUR of a PIE user register (S2 libisa UR table).
    pub fn read_ur(&self, ur: u32) -> u32 {
        match ur {
            0 => self.accx as u32,
            1 => ((self.accx >> 32) & 0xFF) as u32,
            2..=6 => self.qacc_h[(ur - 2) as usize],
            7..=11 => self.qacc_l[(ur - 7) as usize],
            12 => self.gpio_out,
            13 => self.sar_byte,
            14 => self.fft_bit_width,
            15..=18 => self.ua_state[(ur - 15) as usize],
            _ => 0,
        }
    }

    /// WUR of a PIE user register.
    pub fn write_ur(&mut self, ur: u32, v: u32) {
        match ur {
            0 => self.accx = (self.accx & !0xFFFF_FFFF) | v as u64,
            1 => self.accx = (self.accx & 0xFFFF_FFFF) | (((v & 0xFF) as u64) << 32),
            2..=6 => self.qacc_h[(ur - 2) as usize] = v,
            7..=11 => self.qacc_l[(ur - 7) as usize] = v,
            12 => self.gpio_out = v & 0xFF,
            13 => self.sar_byte = v & 0xF,
            14 => self.fft_bit_width = v & 0xF,
            15..=18 => self.ua_state[(ur - 15) as usize] = v,
            _ => {}
        }
    }
}

/// Whether `ur` is a PIE user register gated by CPENABLE bit 3 (all but GPIO_OUT; S2 libisa, S5 tie.h).
pub fn ur_is_cp3(ur: u32) -> bool {
    matches!(ur, 0..=11 | 13..=18)
}

/// Names of the PIE user registers (S2 libisa UR table), as objdump prints them after `rur.`/`wur.`.
pub fn ur_name(ur: u32) -> Option<&'static str> {
    const N: [&str; 19] = [
        "accx_0",
        "accx_1",
        "qacc_h_0",
        "qacc_h_1",
        "qacc_h_2",
        "qacc_h_3",
        "qacc_h_4",
        "qacc_l_0",
        "qacc_l_1",
        "qacc_l_2",
        "qacc_l_3",
        "qacc_l_4",
        "gpio_out",
        "sar_byte",
        "fft_bit_width",
        "ua_state_0",
        "ua_state_1",
        "ua_state_2",
        "ua_state_3",
    ];
    N.get(ur as usize).copied()
}

// Lane helpers: lane i of width `ew` bytes, little-endian (S4).
fn lanes(q: &[u8; 16], ew: usize, signed: bool) -> [i64; 16] {
    let mut out = [0i64; 16];
    for i in 0..16 / ew {
        let mut v: u64 = 0;
        for b in 0..ew {
            v |= (q[i * ew + b] as u64) << (8 * b);
        }
        out[i] = if signed {
            sext(v, 8 * ew as u32)
        } else {
            v as i64
        };
    }
    out
}

fn pack(vals: &[i64; 16], ew: usize) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..16 / ew {
        for b in 0..ew {
            q[i * ew + b] = (vals[i] >> (8 * b)) as u8;
        }
    }
    q
}

/// `conj(a)·b` (if `conj_a`) or `a·b` for complex (re, im) pairs, each part shifted right arithmetically
/// by `sh` at full precision: the product of CMUL.S16 (S4) and of the FFT.CMUL / FFT.AMS twiddle step
/// (ESP32-S3 TRM v1.8 §1.8.4, §1.8.7–1.8.12).
fn cmul(a: (i64, i64), b: (i64, i64), conj_a: bool, sh: u32) -> (i64, i64) {
    let ((ar, ai), (br, bi)) = (a, b);
    if conj_a {
        ((ar * br + ai * bi) >> sh, (ar * bi - ai * br) >> sh)
    } else {
        ((ar * br - ai * bi) >> sh, (ar * bi + ai * br) >> sh)
    }
}

/// A value truncated to a signed 16-bit lane (the `[15:0]` of the TRM's pseudo-code).
fn wrap16(v: i64) -> i64 {
    v as i16 as i64
}

/// One half of FFT.R2BF.S16 (TRM v1.8 §1.8.13) on the 16-bit lanes `s` of one source register: with
/// (a, b) the lane pairs that sel2 picks (sel2 0: lane k and k+4; sel2 1: lanes {0,1,4,5} and {2,3,6,7}),
/// lanes 0–3 = a + b and lanes 4–7 = a − b (wrapping). qa0 is this of qx, qa1 of qy.
fn r2bf_half(s: &[i64; 16], sel2: u32) -> [i64; 16] {
    let mut r = [0i64; 16];
    for k in 0..4 {
        let (ia, ib) = if sel2 == 0 {
            (k, k + 4)
        } else {
            ((k / 2) * 4 + k % 2, (k / 2) * 4 + k % 2 + 2)
        };
        r[k] = s[ia] + s[ib];
        r[k + 4] = s[ia] - s[ib];
    }
    r
}

/// The add-multiply-subtract step of FFT.AMS.S16.* (TRM v1.8 §1.8.7–1.8.10) on lanes j, j+1 of qx, qy
/// and the twiddle qm: t0 = x+y, t1 = x'−y' (wrapped); (t2, t3) = ((x−y, x'+y') · m, or · conj(m) when
/// sel2 = 1) >> SAR (products at full precision, then wrapped). Returns the qz pair (t0+t2, t1+t3) and the
/// qz1 pair (t0−t2, t3−t1), still to be wrapped by `pack`.
fn ams_pair(
    x: &[i64; 16],
    y: &[i64; 16],
    m: &[i64; 16],
    j: usize,
    sel2: u32,
    sh: u32,
) -> ([i64; 2], [i64; 2]) {
    let t0 = wrap16(x[j] + y[j]);
    let t1 = wrap16(x[j + 1] - y[j + 1]);
    let (t2, t3) = cmul(
        (m[j], m[j + 1]),
        (x[j] - y[j], x[j + 1] + y[j + 1]),
        sel2 == 1,
        sh,
    );
    let (t2, t3) = (wrap16(t2), wrap16(t3));
    ([t0 + t2, t1 + t3], [t0 - t2, t3 - t1])
}

/// The 32-bit words of `q` in reverse order ("word big-endian", TRM v1.8 §1.8.9 / §1.8.15).
fn rev_words(q: &[u8; 16]) -> [u8; 16] {
    let mut r = [0u8; 16];
    for w in 0..4 {
        r[4 * w..4 * w + 4].copy_from_slice(&q[12 - 4 * w..16 - 4 * w]);
    }
    r
}

/// The 16 bytes of `lo‖hi` (lo = low bytes) starting at byte `sh` (SAR_BYTE; S4 SRC.Q and .QUP).
fn byte_shift(lo: &[u8; 16], hi: &[u8; 16], sh: usize) -> [u8; 16] {
    let mut cat = [0u8; 32];
    cat[..16].copy_from_slice(lo);
    cat[16..].copy_from_slice(hi);
    let mut out = [0u8; 16];
    out.copy_from_slice(&cat[sh..sh + 16]);
    out
}

// ---------------------------------------------------------------------------------------------
// Decoder table (S2 libisa)

/// Operand roles of the S2 libisa rows (q*/f* registers, AR operands, immediates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Key {
    Q,
    Qu,
    Qu1,
    Qv,
    Qa,
    Qa0,
    Qa1,
    Qs,
    Qs0,
    Qs1,
    Qx,
    Qy,
    Qz,
    Qz1,
    Qm,
    F0,
    F1,
    F2,
    F3,
    As,
    Ad,
    Au,
    Ax,
    Ay,
    As0,
    Value,
    Mask,
    Imm,
    Sel,
    Sar,
    Upd4,
    /// The second `sel` field of a row (LDXQ/STXQ `sel8`: which 16-bit lane of qs indexes memory).
    Idx,
}
const NKEYS: usize = Key::Idx as usize + 1;

impl Key {
    fn parse(name: &str, width: u32) -> Key {
        use Key::*;
        match name {
            "q" => Q,
            "qu" => Qu,
            "qu1" => Qu1,
            "qv" => Qv,
            "qa" => Qa,
            "qa0" => Qa0,
            "qa1" => Qa1,
            "qs" => Qs,
            "qs0" => Qs0,
            "qs1" => Qs1,
            "qx" => Qx,
            "qy" => Qy,
            "qz" => Qz,
            "qz1" => Qz1,
            "qm" => Qm,
            "fu0" | "fv0" => F0,
            "fu1" | "fv1" => F1,
            "fu2" | "fv2" => F2,
            "fu3" | "fv3" => F3,
            "as" => As,
            "ad" => Ad,
            "au" => Au,
            "ax" => Ax,
            "ay" => Ay,
            "as0" => As0,
            "value" => Value,
            // wr_mask_gpio_out's mask is an AR (4-bit field); set_bit_gpio_out's is an 8-bit immediate.
            "mask" if width == 4 => Mask,
            "mask" | "clear" => Imm,
            n if n.starts_with("imm") => Imm,
            n if n.starts_with("sel") => Sel,
            n if n.starts_with("sar") => Sar,
            "upd4" => Upd4,
            other => panic!("unknown PIE operand {other}"),
        }
    }
    fn is_ar(self) -> bool {
        use Key::*;
        matches!(self, As | Ad | Au | Ax | Ay | As0 | Value | Mask)
    }
    fn is_q(self) -> bool {
        (self as u8) <= Key::Qm as u8
    }
    fn is_f(self) -> bool {
        matches!(self, Key::F0 | Key::F1 | Key::F2 | Key::F3)
    }
}

/// Immediate decoders of the S2 libisa rows ("s8*16" etc.).
#[derive(Clone, Copy, Debug)]
enum Dec {
    Raw,
    S { bits: u32, scale: i32 },
    U { scale: u32 },
}

#[derive(Clone, Debug)]
pub struct Operand {
    pub key: Key,
    /// Instruction-word bit pieces, msb first: (hi, lo).
    pub pieces: Vec<(u8, u8)>,
    dec: Dec,
}

impl Operand {
    fn width(&self) -> u32 {
        self.pieces.iter().map(|&(h, l)| (h - l + 1) as u32).sum()
    }
    /// Raw field value: the pieces concatenated msb first.
    pub fn raw(&self, w: u32) -> u32 {
        let mut v = 0u32;
        for &(h, l) in &self.pieces {
            let n = (h - l + 1) as u32;
            v = (v << n) | ((w >> l) & ((1u32 << n) - 1));
        }
        v
    }
    fn value(&self, w: u32) -> u32 {
        let v = self.raw(w);
        match self.dec {
            Dec::Raw => v,
            Dec::S { bits, scale } => (sext(v as u64, bits) as i32).wrapping_mul(scale) as u32,
            Dec::U { scale } => v * scale,
        }
    }
    /// Insert a (decoded) value into a word: the inverse of `value`, for assemblers and tests.
    pub fn encode(&self, v: i64) -> u32 {
        let raw = match self.dec {
            Dec::Raw => v as u32,
            Dec::S { scale, .. } => {
                assert_eq!(
                    v % scale as i64,
                    0,
                    "immediate {v} not a multiple of {scale}"
                );
                (v / scale as i64) as u32
            }
            Dec::U { scale } => {
                assert_eq!(v % scale as i64, 0);
                (v / scale as i64) as u32
            }
        };
        let mut w = 0u32;
        let mut rest = raw;
        for &(h, l) in self.pieces.iter().rev() {
            let n = (h - l + 1) as u32;
            w |= (rest & ((1u32 << n) - 1)) << l;
            rest >>= n;
        }
        w
    }
}

/// Semantic family of an opcode, derived from its mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fam {
    StQr,
    LdQr,
    MvQr,
    WrMaskGpio,
    SetBitGpio,
    ClrBitGpio,
    GetGpioIn,
    Vld128,
    LdUsar,
    VldH64,
    VldL64,
    Vldbc,
    Vldhbc16,
    Ldf,
    Stf,
    Ldqa,
    LdQaccL,
    LdQaccH,
    StQaccL,
    StQaccH,
    LdAccx,
    StAccx,
    LdUa,
    StUa,
    Vst128,
    VstH64,
    VstL64,
    Movi32A,
    Movi32Q,
    Vzip,
    Vunzip,
    ZeroAccx,
    ZeroQacc,
    ZeroQ,
    MovQacc,
    Vadds,
    Vsubs,
    Vmax,
    Vmin,
    VcmpEq,
    VcmpGt,
    VcmpLt,
    Vmul,
    Cmul,
    VmulasAccx,
    VmulasQacc,
    Vsmulas,
    Srcmb,
    SrsAccx,
    Vrelu,
    Vprelu,
    Andq,
    Orq,
    Xorq,
    Notq,
    Slci,
    Srci,
    Slcxxp,
    Srcxxp,
    SrcqSt,
    SrcQ,
    SrcQQup,
    SrcQLd,
    Vsl32,
    Vsr32,
    Bitrev,
    Ldxq,
    Stxq,
    // FFT.R2BF.S16 / .ST.INCP, FFT.CMUL.S16.LD.XP / .ST.XP, FFT.AMS.S16.LD.INCP / .LD.INCP.UAUP /
    // .LD.R32.DECP / .ST.INCP, FFT.VST.R32.DECP.
    FftR2bf,
    FftR2bfSt,
    FftCmulLd,
    FftCmulSt,
    FftAmsLd,
    FftAmsUaup,
    FftAmsR32,
    FftAmsSt,
    FftVstR32,
}

/// Address update suffix (S4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upd {
    None,
    Ip,
    Xp,
    Incp,
    Decp,
}

/// One of the 220 opcodes of the S2 libisa table.
#[derive(Clone, Debug)]
pub struct PieDef {
    /// Mnemonic without the `ee.` prefix, as in the S2 libisa table.
    pub name: &'static str,
    pub len: u8,
    pub mask: u32,
    pub mtch: u32,
    pub ops: Vec<Operand>,
    pub fam: Fam,
    /// Element width in bytes (1, 2, 4; 16 for 128-bit moves) and signedness from the `.s8/.u16…` part.
    pub ew: usize,
    pub signed: bool,
    pub upd: Upd,
    /// `.ld.*` (load qu after the operation), `.st.*` (store qv first), `.ldbc.*`, `.qup`.
    pub ld: bool,
    pub st: bool,
    pub ldbc: bool,
    pub qup: bool,
    /// Reads CPENABLE bit 3 (all but the four GPIO opcodes; S2 libisa state lists).
    pub gated: bool,
    /// AR operand fields (AR_S for bits [11:8], AR_T for bits [7:4]).
    arm: u8,
    /// Index of each key's operand in `ops` (255 = absent).
    slot: [u8; NKEYS],
}

impl PieDef {
    /// Full mnemonic: `ee.` + name, except LD.QR/ST.QR/MV.QR (S2 libisa; S7 esp-nn counts them as non-EE).
    pub fn full_name(&self) -> String {
        if self.name.ends_with(".qr") {
            self.name.to_string()
        } else {
            format!("ee.{}", self.name)
        }
    }

    /// Whether the simulator executes this opcode: every opcode of the S2 libisa table is (kept for
    /// `not_executed`, which the backend asks when it names an illegal instruction).
    pub fn executed(&self) -> bool {
        true
    }

    pub fn operand(&self, k: Key) -> Option<&Operand> {
        let i = self.slot[k as usize];
        (i != 255).then(|| &self.ops[i as usize])
    }

    /// Decoded operand values of word `w`, indexed by `Key`.
    fn fields(&self, w: u32) -> [u32; NKEYS] {
        let mut f = [0u32; NKEYS];
        for o in &self.ops {
            f[o.key as usize] = o.value(w);
        }
        f
    }

    /// Assemble this opcode from (key, value) pairs (values as decoded: register numbers, byte offsets).
    pub fn encode(&self, vals: &[(Key, i64)]) -> u32 {
        let mut w = self.mtch;
        for &(k, v) in vals {
            let o = self
                .operand(k)
                .unwrap_or_else(|| panic!("{} has no operand {:?}", self.name, k));
            w |= o.encode(v);
        }
        w
    }
}

fn parse_row(line: &str, out: &mut Vec<PieDef>) {
    let cols: Vec<&str> = line.split('|').collect();
    assert_eq!(cols.len(), 4, "bad PIE row {line}");
    let mut ops = Vec::new();
    if cols[0].trim() != "-" {
        for tok in cols[0].split_whitespace() {
            let b = tok.find('[').unwrap();
            let e = tok.find(']').unwrap();
            let name = tok[..b].trim_end_matches(['>', '*']);
            let pieces: Vec<(u8, u8)> = tok[b + 1..e]
                .split(',')
                .map(|p| match p.split_once(':') {
                    Some((h, l)) => (h.parse().unwrap(), l.parse().unwrap()),
                    None => {
                        let x: u8 = p.parse().unwrap();
                        (x, x)
                    }
                })
                .collect();
            let dec = match tok[e + 1..].strip_prefix('=') {
                None => Dec::Raw,
                Some(d) => {
                    let (bits, scale) = d[1..].split_once('*').unwrap_or((&d[1..], "1"));
                    let (bits, scale): (u32, i32) = (bits.parse().unwrap(), scale.parse().unwrap());
                    if d.starts_with('s') {
                        Dec::S { bits, scale }
                    } else {
                        Dec::U {
                            scale: scale as u32,
                        }
                    }
                }
            };
            let mut o = Operand {
                key: Key::Imm,
                pieces,
                dec,
            };
            o.key = Key::parse(name, o.width());
            if o.key == Key::Sel && ops.iter().any(|p: &Operand| p.key == Key::Sel) {
                o.key = Key::Idx;
            }
            ops.push(o);
        }
    }
    let len: u8 = cols[1].parse().unwrap();
    let mask = u32::from_str_radix(cols[2], 16).unwrap();
    for ent in cols[3].split(',') {
        let (name, m) = ent.trim().split_once(' ').unwrap();
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        let mut d = PieDef {
            name,
            len,
            mask,
            mtch: u32::from_str_radix(m, 16).unwrap(),
            ops: ops.clone(),
            fam: Fam::Bitrev, // set by `classify`
            ew: 16,
            signed: false,
            upd: Upd::None,
            ld: false,
            st: false,
            ldbc: false,
            qup: false,
            gated: true,
            arm: 0,
            slot: [255; NKEYS],
        };
        for (i, o) in d.ops.iter().enumerate() {
            d.slot[o.key as usize] = i as u8;
            if o.key.is_ar() {
                // AR operands sit in bits [11:8] or [7:4] (S2 libisa), the s and t nibbles of the word.
                d.arm |= match o.pieces[..] {
                    [(11, 8)] => AR_S,
                    [(7, 4)] => AR_T,
                    _ => panic!("AR operand of {name} outside s/t"),
                };
            }
        }
        classify(&mut d);
        out.push(d);
    }
}

/// Family, element type and suffixes from the mnemonic.
fn classify(d: &mut PieDef) {
    use Fam::*;
    let parts: Vec<&str> = d.name.split('.').collect();
    let has = |s: &str| parts[1..].contains(&s);
    for p in &parts {
        let (signed, ew) = match *p {
            "s8" => (true, 1),
            "u8" => (false, 1),
            "s16" => (true, 2),
            "u16" => (false, 2),
            "s32" => (true, 4),
            _ => continue,
        };
        d.signed = signed;
        d.ew = ew;
    }
    d.qup = has("qup");
    d.ld = has("ld") && parts[0] != "ld";
    d.st = has("st") && parts[0] != "st";
    d.ldbc = has("ldbc");
    d.upd = if has("ip") {
        Upd::Ip
    } else if has("xp") {
        Upd::Xp
    } else if has("incp") {
        Upd::Incp
    } else if has("decp") {
        Upd::Decp
    } else {
        Upd::None
    };
    let p1 = parts.get(1).copied().unwrap_or("");
    d.fam = match parts[0] {
        "st" => match p1 {
            "qr" => StQr,
            "qacc_h" | "qacc_l" => {
                if parts[2] == "l" {
                    StQaccL
                } else {
                    StQaccH
                }
            }
            "accx" => StAccx,
            _ => StUa,
        },
        "ld" => match p1 {
            "qr" => LdQr,
            "128" => LdUsar,
            "qacc_h" | "qacc_l" => {
                if parts[2] == "l" {
                    LdQaccL
                } else {
                    LdQaccH
                }
            }
            "accx" => LdAccx,
            _ => LdUa,
        },
        "mv" => MvQr,
        "wr_mask_gpio_out" => WrMaskGpio,
        "set_bit_gpio_out" => SetBitGpio,
        "clr_bit_gpio_out" => ClrBitGpio,
        "get_gpio_in" => GetGpioIn,
        "vld" => match p1 {
            "128" => Vld128,
            "h" => VldH64,
            _ => VldL64,
        },
        "vldbc" => {
            d.ew = p1.parse::<usize>().unwrap() / 8;
            Vldbc
        }
        "vldhbc" => Vldhbc16,
        "ldf" => {
            d.ew = p1.parse::<usize>().unwrap() / 8;
            Ldf
        }
        "stf" => {
            d.ew = p1.parse::<usize>().unwrap() / 8;
            Stf
        }
        "ldqa" => Ldqa,
        "ldxq" => Ldxq,
        "stxq" => Stxq,
        "vst" => match p1 {
            "128" => Vst128,
            "h" => VstH64,
            _ => VstL64,
        },
        "movi" => {
            if parts[2] == "a" {
                Movi32A
            } else {
                Movi32Q
            }
        }
        "vzip" | "vunzip" => {
            d.ew = p1.parse::<usize>().unwrap() / 8;
            if parts[0] == "vzip" {
                Vzip
            } else {
                Vunzip
            }
        }
        "zero" => match p1 {
            "accx" => ZeroAccx,
            "qacc" => ZeroQacc,
            _ => ZeroQ,
        },
        "mov" => MovQacc,
        "vadds" => Vadds,
        "vsubs" => Vsubs,
        "vmax" => Vmax,
        "vmin" => Vmin,
        "vcmp" => match p1 {
            "eq" => VcmpEq,
            "gt" => VcmpGt,
            _ => VcmpLt,
        },
        "vmul" => Vmul,
        "cmul" => Cmul,
        "vmulas" => {
            if has("accx") {
                VmulasAccx
            } else {
                VmulasQacc
            }
        }
        "vsmulas" => Vsmulas,
        "srcmb" => Srcmb,
        "srs" => SrsAccx,
        "vrelu" => Vrelu,
        "vprelu" => Vprelu,
        "andq" => Andq,
        "orq" => Orq,
        "xorq" => Xorq,
        "notq" => Notq,
        "slci" => Slci,
        "srci" => Srci,
        "slcxxp" | "srcxxp" => {
            // as += ad afterwards (S4), though the mnemonic has no `.xp` part.
            d.upd = Upd::Xp;
            if parts[0] == "slcxxp" {
                Slcxxp
            } else {
                Srcxxp
            }
        }
        "srcq" => SrcqSt,
        "src" => {
            if d.ld {
                SrcQLd
            } else if d.qup {
                SrcQQup
            } else {
                SrcQ
            }
        }
        "vsl" => Vsl32,
        "vsr" => Vsr32,
        "bitrev" => Bitrev,
        "fft" => match p1 {
            "r2bf" if d.st => FftR2bfSt,
            "r2bf" => FftR2bf,
            "cmul" if d.ld => FftCmulLd,
            "cmul" => FftCmulSt,
            "ams" if d.st => FftAmsSt,
            "ams" if has("uaup") => FftAmsUaup,
            "ams" if d.upd == Upd::Decp => FftAmsR32,
            "ams" => FftAmsLd,
            _ => FftVstR32,
        },
        other => panic!("unclassified PIE opcode {other}"),
    };
    d.gated = !matches!(d.fam, WrMaskGpio | SetBitGpio | ClrBitGpio | GetGpioIn);
}

/// All 220 PIE opcodes of the S2 libisa table, in table order.
pub fn defs() -> &'static [PieDef] {
    static DEFS: OnceLock<Vec<PieDef>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let mut v = Vec::new();
        for line in ROWS.lines().map(str::trim).filter(|l| !l.is_empty()) {
            parse_row(line, &mut v);
        }
        v
    })
}

/// Look up an opcode by its S2 libisa name (without `ee.`).
pub fn def_by_name(name: &str) -> Option<&'static PieDef> {
    defs().iter().find(|d| d.name == name)
}

/// Decode a PIE word of `len` bytes (3 = op0 0/4, 4 = format_32): `Op::Ee` with `r` = table index,
/// `s`/`t` the AR nibbles, `imm` = the word. Only the ESP32-S3 decoder calls this.
pub fn decode_pie(w: u32, len: u8) -> Option<Insn> {
    let w = if len == 3 { w & 0xFF_FFFF } else { w };
    let (i, d) = defs()
        .iter()
        .enumerate()
        .find(|(_, d)| d.len == len && w & d.mask == d.mtch)?;
    let mut insn = Insn::illegal(len);
    insn.op = Op::Ee;
    insn.r = i as u8;
    insn.s = ((w >> 8) & 0xF) as u8;
    insn.t = ((w >> 4) & 0xF) as u8;
    insn.arm = d.arm;
    insn.pane = if d.arm & AR_S != 0 { insn.s >> 2 } else { 0 }.max(if d.arm & AR_T != 0 {
        insn.t >> 2
    } else {
        0
    });
    insn.imm = w;
    Some(insn)
}

/// The table entry of a decoded `Op::Ee` instruction.
pub fn def_of(insn: &Insn) -> &'static PieDef {
    &defs()[insn.r as usize]
}

/// For an instruction the simulator decodes but does not execute, its mnemonic.
pub fn not_executed(insn: &Insn) -> Option<String> {
    (insn.op == Op::Ee && !def_of(insn).executed()).then(|| def_of(insn).full_name())
}

/// objdump-style text: `ee.vld.128.ip q1, a2, 16`.
pub fn disasm(insn: &Insn) -> String {
    let d = def_of(insn);
    let w = insn.imm;
    let ops: Vec<String> = d
        .ops
        .iter()
        .map(|o| {
            let v = o.value(w);
            if o.key.is_q() {
                format!("q{v}")
            } else if o.key.is_f() {
                format!("f{v}")
            } else if o.key.is_ar() {
                format!("a{v}")
            } else {
                format!("{}", v as i32)
            }
        })
        .collect();
    if ops.is_empty() {
        d.full_name()
    } else {
        format!("{} {}", d.full_name(), ops.join(", "))
    }
}

// ---------------------------------------------------------------------------------------------
// Execution (S4; the ESP32-S3 TRM v1.8 where named)

type R<T> = Result<T, Option<StopReason>>;

impl Cpu {
    /// Read `n` bytes (1, 2, 4, 8 or 16) at `addr` aligned down to `n` (S4 [Q]).
    fn pie_read<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        addr: u32,
        n: usize,
        pc: u32,
    ) -> R<[u8; 16]> {
        let a = addr & !(n as u32 - 1);
        let mut out = [0u8; 16];
        if n < 4 {
            let v = self.load(bus, hooks, a, n as u32, pc)?;
            out[..n].copy_from_slice(&v.to_le_bytes()[..n]);
        } else {
            for k in 0..n / 4 {
                let v = self.load(bus, hooks, a + 4 * k as u32, 4, pc)?;
                out[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(out)
    }

    /// Write the first `n` (4, 8 or 16) bytes of `data` at `addr` aligned down to `n`.
    fn pie_write<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        addr: u32,
        n: usize,
        data: &[u8],
        pc: u32,
    ) -> R<()> {
        let a = addr & !(n as u32 - 1);
        for k in 0..n / 4 {
            let v = u32::from_le_bytes(data[4 * k..4 * k + 4].try_into().unwrap());
            self.store(bus, hooks, a + 4 * k as u32, 4, v, pc)?;
        }
        Ok(())
    }

    /// Execute a decoded PIE instruction (`Op::Ee`).
    pub(crate) fn exec_pie<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        insn: &Insn,
        pc: u32,
    ) -> Flow {
        match self.exec_pie_inner(bus, hooks, insn, pc) {
            Ok(()) => Flow::Next,
            Err(stop) => Flow::Exit(stop),
        }
    }

    fn exec_pie_inner<B: XtensaBus, H: XtensaHooks>(
        &mut self,
        bus: &mut B,
        hooks: &mut H,
        insn: &Insn,
        pc: u32,
    ) -> R<()> {
        use Fam::*;
        use Key::*;
        let d = def_of(insn);
        // S2 libisa state lists, S5 tie.h: EE opcodes need CPENABLE bit 3 (cause 35), the GPIO ones are
        // not gated.
        if d.gated && self.cpenable & (1 << 3) == 0 {
            return Err(self.raise_exception(hooks, cause::COPROCESSOR0_DISABLED + 3, pc, None));
        }
        let o = d.fields(insn.imm);
        let k = |key: Key| o[key as usize];
        let qi = |key: Key| (o[key as usize] & 7) as usize;
        let a_s = self.ar(k(As));
        // New value of `as` after the access (S4); the access uses the old value.
        let upd_as = |cpu: &Cpu, step: u32| -> u32 {
            match d.upd {
                Upd::Ip => a_s.wrapping_add(k(Imm)),
                Upd::Xp => a_s.wrapping_add(cpu.ar(k(Ad))),
                Upd::Incp => a_s.wrapping_add(step),
                Upd::Decp => a_s.wrapping_sub(16),
                Upd::None => a_s,
            }
        };
        let (ew, sg) = (d.ew, d.signed);
        match d.fam {
            StQr => {
                let v = self.pie.q[qi(Q)];
                self.pie_write(bus, hooks, a_s.wrapping_add(k(Imm)), 16, &v, pc)?;
            }
            LdQr => {
                let v = self.pie_read(bus, hooks, a_s.wrapping_add(k(Imm)), 16, pc)?;
                self.pie.q[qi(Q)] = v;
            }
            MvQr => self.pie.q[qi(Q)] = self.pie.q[qi(Qs)],
            WrMaskGpio => {
                let m = self.ar(k(Mask)) & 0xFF;
                let v = self.ar(k(Value));
                self.pie.gpio_out = (self.pie.gpio_out & !m) | (v & m);
            }
            SetBitGpio => self.pie.gpio_out |= k(Imm) & 0xFF,
            ClrBitGpio => self.pie.gpio_out &= !k(Imm) & 0xFF,
            GetGpioIn => self.set_ar(k(Au), self.pie.gpio_in & 0xFF),
            Vld128 | LdUsar => {
                let v = self.pie_read(bus, hooks, a_s, 16, pc)?;
                self.pie.q[qi(Qu)] = v;
                if d.fam == LdUsar {
                    // S4: SAR_BYTE = as[3:0]
                    self.pie.sar_byte = a_s & 15;
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            VldH64 | VldL64 => {
                let v = self.pie_read(bus, hooks, a_s, 8, pc)?;
                let off = if d.fam == VldH64 { 8 } else { 0 };
                self.pie.q[qi(Qu)][off..off + 8].copy_from_slice(&v[..8]);
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Vldbc => {
                // Load one element and broadcast it (S4); .16 ignores bit 0, .32 bits [1:0].
                let v = self.pie_read(bus, hooks, a_s, ew, pc)?;
                let mut q = [0u8; 16];
                for i in 0..16 {
                    q[i] = v[i % ew];
                }
                self.pie.q[qi(Qu)] = q;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Vldhbc16 => {
                // u16[i] → lanes 2i, 2i+1 of qu (i = 0..3); u16[4..7] → qu1 (S4).
                let v = self.pie_read(bus, hooks, a_s, 16, pc)?;
                let mut q0 = [0u8; 16];
                let mut q1 = [0u8; 16];
                for i in 0..4 {
                    for r in 0..2 {
                        q0[4 * i + 2 * r..4 * i + 2 * r + 2].copy_from_slice(&v[2 * i..2 * i + 2]);
                        q1[4 * i + 2 * r..4 * i + 2 * r + 2]
                            .copy_from_slice(&v[8 + 2 * i..8 + 2 * i + 2]);
                    }
                }
                self.pie.q[qi(Qu)] = q0;
                self.pie.q[qi(Qu1)] = q1;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Ldf | Stf => {
                // LDF/STF.128: fuN ↔ mem32[(as&~15)+4N]; .64: fu0 ↔ [a], fu1 ↔ [a+4] (S4).
                let regs = [k(F0), k(F1), k(F2), k(F3)];
                let nw = ew / 4;
                if d.fam == Ldf {
                    let v = self.pie_read(bus, hooks, a_s, ew, pc)?;
                    for i in 0..nw {
                        self.fr[(regs[i] & 15) as usize] =
                            u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap());
                    }
                } else {
                    let mut v = [0u8; 16];
                    for i in 0..nw {
                        v[4 * i..4 * i + 4]
                            .copy_from_slice(&self.fr[(regs[i] & 15) as usize].to_le_bytes());
                    }
                    self.pie_write(bus, hooks, a_s, ew, &v, pc)?;
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Ldqa => {
                // 16 bytes zero/sign-extended into the QACC lanes; QACC_L gets the low 8 bytes (S4).
                let v = self.pie_read(bus, hooks, a_s, 16, pc)?;
                let l = lanes(&v, ew, sg);
                let n = 16 / ew;
                for i in 0..n {
                    self.pie.set_qacc_lane(i, n, l[i]);
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            LdQaccL | LdQaccH | StQaccL | StQaccH => {
                // .L.128: QACC bytes 0–15; .H.32: bytes 16–19 (S4).
                let hi = d.name.contains("qacc_h");
                let (first, nwords) = if matches!(d.fam, LdQaccL | StQaccL) {
                    (0, 4)
                } else {
                    (4, 1)
                };
                if matches!(d.fam, LdQaccL | LdQaccH) {
                    let v = self.pie_read(bus, hooks, a_s, 4 * nwords, pc)?;
                    let half = if hi {
                        &mut self.pie.qacc_h
                    } else {
                        &mut self.pie.qacc_l
                    };
                    for i in 0..nwords {
                        half[first + i] =
                            u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap());
                    }
                } else {
                    let half = if hi { self.pie.qacc_h } else { self.pie.qacc_l };
                    let mut v = [0u8; 16];
                    for i in 0..nwords {
                        v[4 * i..4 * i + 4].copy_from_slice(&half[first + i].to_le_bytes());
                    }
                    self.pie_write(bus, hooks, a_s, 4 * nwords, &v, pc)?;
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            LdAccx => {
                let v = self.pie_read(bus, hooks, a_s, 8, pc)?;
                self.pie.accx = u64::from_le_bytes(v[..8].try_into().unwrap()) & MASK40;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            StAccx => {
                // ACCX ↔ 64-bit memory; stored sign-extended (choice; per S4 only the low 40 bits matter).
                let v = (sext(self.pie.accx, 40) as u64).to_le_bytes();
                self.pie_write(bus, hooks, a_s, 8, &v, pc)?;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            LdUa => {
                let v = self.pie_read(bus, hooks, a_s, 16, pc)?;
                for i in 0..4 {
                    self.pie.ua_state[i] =
                        u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap());
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            StUa => {
                let mut v = [0u8; 16];
                for i in 0..4 {
                    v[4 * i..4 * i + 4].copy_from_slice(&self.pie.ua_state[i].to_le_bytes());
                }
                self.pie_write(bus, hooks, a_s, 16, &v, pc)?;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Vst128 | VstH64 | VstL64 => {
                let q = self.pie.q[qi(Qv)];
                match d.fam {
                    Vst128 => self.pie_write(bus, hooks, a_s, 16, &q, pc)?,
                    VstH64 => self.pie_write(bus, hooks, a_s, 8, &q[8..], pc)?,
                    _ => self.pie_write(bus, hooks, a_s, 8, &q[..8], pc)?,
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Movi32A => {
                let s = (k(Sel) & 3) as usize;
                let q = &self.pie.q[qi(Qs)];
                let v = u32::from_le_bytes(q[4 * s..4 * s + 4].try_into().unwrap());
                self.set_ar(k(Au), v);
            }
            Movi32Q => {
                let s = (k(Sel) & 3) as usize;
                let v = a_s.to_le_bytes();
                self.pie.q[qi(Qu)][4 * s..4 * s + 4].copy_from_slice(&v);
            }
            Vzip | Vunzip => {
                let (a, b) = (
                    lanes(&self.pie.q[qi(Qs0)], ew, false),
                    lanes(&self.pie.q[qi(Qs1)], ew, false),
                );
                let n = 16 / ew;
                let (mut x, mut y) = ([0i64; 16], [0i64; 16]);
                if d.fam == Vzip {
                    // qs0 = a0 b0 a1 b1 … (low halves), qs1 = the same for the high halves (S4).
                    for i in 0..n / 2 {
                        x[2 * i] = a[i];
                        x[2 * i + 1] = b[i];
                        y[2 * i] = a[n / 2 + i];
                        y[2 * i + 1] = b[n / 2 + i];
                    }
                } else {
                    // qs0 = even lanes of a‖b, qs1 = odd lanes.
                    let c = |j: usize| if j < n { a[j] } else { b[j - n] };
                    for i in 0..n {
                        x[i] = c(2 * i);
                        y[i] = c(2 * i + 1);
                    }
                }
                self.pie.q[qi(Qs0)] = pack(&x, ew);
                self.pie.q[qi(Qs1)] = pack(&y, ew);
            }
            ZeroAccx => self.pie.accx = 0,
            ZeroQacc => {
                self.pie.qacc_h = [0; 5];
                self.pie.qacc_l = [0; 5];
            }
            ZeroQ => self.pie.q[qi(Qa)] = [0; 16],
            MovQacc => {
                let l = lanes(&self.pie.q[qi(Qs)], ew, sg);
                let n = 16 / ew;
                for i in 0..n {
                    self.pie.set_qacc_lane(i, n, l[i]);
                }
            }
            Vadds | Vsubs | Vmax | Vmin | VcmpEq | VcmpGt | VcmpLt | Vmul | Cmul => {
                // .ST.*: qv is stored first (S4).
                if d.st {
                    let q = self.pie.q[qi(Qv)];
                    self.pie_write(bus, hooks, a_s, 16, &q, pc)?;
                }
                let x = lanes(&self.pie.q[qi(Qx)], ew, sg);
                let y = lanes(&self.pie.q[qi(Qy)], ew, sg);
                let n = 16 / ew;
                let bits = 8 * ew as u32;
                let sar = self.sar.min(63);
                let dest = if matches!(d.fam, Vmul | Cmul) {
                    qi(Qz)
                } else {
                    qi(Qa)
                };
                let mut r = lanes(&self.pie.q[dest], ew, sg);
                if d.fam == Cmul {
                    // (re, im) pairs, >> SAR; sel 0/1: x·y into lanes 0–3 / 4–7, sel 2/3: conj(x)·y (S4).
                    let sel = k(Sel) & 3;
                    let base = if sel & 1 == 0 { 0 } else { 4 };
                    for j in [base, base + 2] {
                        (r[j], r[j + 1]) = cmul((x[j], x[j + 1]), (y[j], y[j + 1]), sel >= 2, sar);
                    }
                } else {
                    for i in 0..n {
                        r[i] = match d.fam {
                            // Full-range saturation (QEMU uses ±(2^(n−1)−1) [Q][U]; see module notes).
                            Vadds => sat(x[i] + y[i], bits, true),
                            Vsubs => sat(x[i] - y[i], bits, true),
                            Vmax => x[i].max(y[i]),
                            Vmin => x[i].min(y[i]),
                            VcmpEq => -((x[i] == y[i]) as i64),
                            VcmpGt => -((x[i] > y[i]) as i64),
                            VcmpLt => -((x[i] < y[i]) as i64),
                            // (x·y) >> SAR, truncated to the lane (S4).
                            _ => (x[i] * y[i]) >> sar,
                        };
                    }
                }
                let loaded = if d.ld {
                    Some(self.pie_read(bus, hooks, a_s, 16, pc)?)
                } else {
                    None
                };
                self.pie.q[dest] = pack(&r, ew);
                if let Some(v) = loaded {
                    self.pie.q[qi(Qu)] = v;
                }
                if d.ld || d.st {
                    let n = upd_as(self, 16);
                    self.set_ar(k(As), n);
                }
            }
            VmulasAccx | VmulasQacc | Vsmulas => {
                let x = lanes(&self.pie.q[qi(Qx)], ew, sg);
                let y = lanes(&self.pie.q[qi(Qy)], ew, sg);
                let n = 16 / ew;
                if d.fam == VmulasAccx {
                    // ACCX += Σ xᵢ·yᵢ, saturated to 40 bits [Q][U].
                    let sum: i64 = (0..n).map(|i| x[i] * y[i]).sum();
                    let v = sat(self.pie.accx_val(sg) + sum, 40, sg);
                    self.pie.accx = v as u64 & MASK40;
                } else {
                    // QACC lane += xᵢ·yᵢ (VSMULAS: xᵢ·qy[sel]), saturated to the lane [Q][U].
                    let w = if n == 16 { 20 } else { 40 };
                    let sel = (k(Sel) as usize) % n;
                    for i in 0..n {
                        let p = if d.fam == Vsmulas {
                            x[i] * y[sel]
                        } else {
                            x[i] * y[i]
                        };
                        let v = sat(self.pie.qacc_lane(i, n, sg) + p, w, sg);
                        self.pie.set_qacc_lane(i, n, v);
                    }
                }
                let shifted = d.qup.then(|| {
                    byte_shift(
                        &self.pie.q[qi(Qs0)],
                        &self.pie.q[qi(Qs1)],
                        self.pie.sar_byte as usize,
                    )
                });
                let mut loaded = None;
                let mut new_as = a_s;
                if d.ldbc {
                    // .LDBC.INCP: broadcast-load qu from [as], then as += 1 (8-bit) or 2 (16-bit) (S4).
                    let v = self.pie_read(bus, hooks, a_s, ew, pc)?;
                    let mut q = [0u8; 16];
                    for i in 0..16 {
                        q[i] = v[i % ew];
                    }
                    loaded = Some(q);
                    new_as = a_s.wrapping_add(ew as u32);
                } else if d.ld {
                    loaded = Some(self.pie_read(bus, hooks, a_s, 16, pc)?);
                    new_as = upd_as(self, 16);
                }
                if let Some(s) = shifted {
                    self.pie.q[qi(Qs0)] = s;
                }
                if let Some(v) = loaded {
                    self.pie.q[qi(Qu)] = v;
                    self.set_ar(k(As), new_as);
                }
            }
            Srcmb => {
                // qu lane = sat(QACC lane >> as); the shifted value is written back (S4) [U].
                let n = 16 / ew;
                let sh = a_s & 63;
                let mut r = [0i64; 16];
                for i in 0..n {
                    let v = self.pie.qacc_lane(i, n, true) >> sh;
                    self.pie.set_qacc_lane(i, n, v);
                    r[i] = sat(v, 8 * ew as u32, true);
                }
                self.pie.q[qi(Qu)] = pack(&r, ew);
            }
            SrsAccx => {
                // au = low 32 bits of (ACCX >> as); ACCX keeps the shifted value (S4) [U].
                let v = sext(self.pie.accx, 40) >> (a_s & 63);
                self.pie.accx = v as u64 & MASK40;
                self.set_ar(k(Au), v as u32);
            }
            Vrelu | Vprelu => {
                // Lanes ≤ 0 become (lane·slope) >> ay, others are unchanged (S4).
                let sh = self.ar(k(Ay)) & 63;
                let (src, dst) = if d.fam == Vrelu {
                    (qi(Qs), qi(Qs))
                } else {
                    (qi(Qx), qi(Qz))
                };
                let x = lanes(&self.pie.q[src], ew, true);
                let slope = lanes(&self.pie.q[qi(Qy)], ew, true);
                let ax = self.ar(k(Ax)) as i32 as i64;
                let mut r = [0i64; 16];
                for i in 0..16 / ew {
                    let m = if d.fam == Vrelu { ax } else { slope[i] };
                    r[i] = if x[i] <= 0 { (x[i] * m) >> sh } else { x[i] };
                }
                self.pie.q[dst] = pack(&r, ew);
            }
            Andq | Orq | Xorq | Notq => {
                let (x, y) = (self.pie.q[qi(Qx)], self.pie.q[qi(Qy)]);
                let mut r = [0u8; 16];
                for i in 0..16 {
                    r[i] = match d.fam {
                        Andq => x[i] & y[i],
                        Orq => x[i] | y[i],
                        Xorq => x[i] ^ y[i],
                        _ => !x[i],
                    };
                }
                self.pie.q[qi(Qa)] = r;
            }
            Slci | Srci | Slcxxp | Srcxxp => {
                // Shift the 256-bit qs1‖qs0 by k+1 bytes with zero fill (S4); XXP: k = as[3:0] [U].
                let kk = if matches!(d.fam, Slci | Srci) {
                    k(Sar)
                } else {
                    a_s & 15
                } as usize
                    + 1;
                let mut cat = [0u8; 32];
                cat[..16].copy_from_slice(&self.pie.q[qi(Qs0)]);
                cat[16..].copy_from_slice(&self.pie.q[qi(Qs1)]);
                let mut r = [0u8; 32];
                for i in 0..32 {
                    r[i] = if matches!(d.fam, Slci | Slcxxp) {
                        if i >= kk {
                            cat[i - kk]
                        } else {
                            0
                        }
                    } else if i + kk < 32 {
                        cat[i + kk]
                    } else {
                        0
                    };
                }
                self.pie.q[qi(Qs0)].copy_from_slice(&r[..16]);
                self.pie.q[qi(Qs1)].copy_from_slice(&r[16..]);
                if matches!(d.fam, Slcxxp | Srcxxp) {
                    let n = upd_as(self, 16);
                    self.set_ar(k(As), n);
                }
            }
            SrcqSt => {
                let v = byte_shift(
                    &self.pie.q[qi(Qs0)],
                    &self.pie.q[qi(Qs1)],
                    self.pie.sar_byte as usize,
                );
                self.pie_write(bus, hooks, a_s, 16, &v, pc)?;
                self.set_ar(k(As), a_s.wrapping_add(16));
            }
            SrcQ | SrcQQup => {
                let v = byte_shift(
                    &self.pie.q[qi(Qs0)],
                    &self.pie.q[qi(Qs1)],
                    self.pie.sar_byte as usize,
                );
                if d.fam == SrcQQup {
                    // .QUP: also qs0 = qs1 [Q] (S4).
                    self.pie.q[qi(Qs0)] = self.pie.q[qi(Qs1)];
                }
                self.pie.q[qi(Qa)] = v;
            }
            SrcQLd => {
                let v = byte_shift(
                    &self.pie.q[qi(Qs0)],
                    &self.pie.q[qi(Qs1)],
                    self.pie.sar_byte as usize,
                );
                let l = self.pie_read(bus, hooks, a_s, 16, pc)?;
                self.pie.q[qi(Qs0)] = v;
                self.pie.q[qi(Qu)] = l;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            Vsl32 | Vsr32 => {
                let x = lanes(&self.pie.q[qi(Qs)], 4, true);
                let sar = self.sar.min(63);
                let mut r = [0i64; 16];
                for i in 0..4 {
                    r[i] = if d.fam == Vsl32 {
                        ((x[i] as u64) << sar.min(32)) as i64
                    } else {
                        x[i] >> sar
                    };
                    if d.fam == Vsl32 && sar >= 32 {
                        r[i] = 0;
                    }
                }
                self.pie.q[qi(Qa)] = pack(&r, 4);
            }
            Bitrev => {
                // TRM v1.8 §1.8.2 EE.BITREV qa, as: temp_i = as[15:0] + i (i = 0..7); for w = FFT_BIT_WIDTH
                // in 3..=10, 16-bit lane i = max(temp_i[w-1:0], temp_i[w-1:0] with its w bits reversed),
                // zero-extended; w = 3 writes lanes 0-5 and zeroes lanes 6-7. Other FFT_BIT_WIDTH values
                // leave qa unchanged (no TRM branch, module notes). Then as += 8 (32 bits) in every case.
                let ax = self.ar(k(Ax));
                let w = self.pie.fft_bit_width;
                if (3..=10).contains(&w) {
                    let mut r = [0i64; 16];
                    let n = if w == 3 { 6 } else { 8 };
                    for i in 0..n {
                        let t = (ax as u16).wrapping_add(i as u16) as u32 & ((1 << w) - 1);
                        r[i] = t.max(t.reverse_bits() >> (32 - w)) as i64;
                    }
                    self.pie.q[qi(Qa)] = pack(&r, 2);
                }
                self.set_ar(k(Ax), ax.wrapping_add(8));
            }
            Ldxq | Stxq => {
                // TRM v1.8 §1.8.37 / §1.8.69: address = as + 4 × (16-bit lane sel8 of qs, unsigned [U]),
                // bits [1:0] ignored; qu's / qv's 32-bit word sel4 is loaded / stored. as is not updated.
                let idx = lanes(&self.pie.q[qi(Qs)], 2, false)[(k(Idx) & 7) as usize] as u32;
                let addr = a_s.wrapping_add(idx << 2);
                let w = 4 * (k(Sel) & 3) as usize;
                if d.fam == Ldxq {
                    let v = self.pie_read(bus, hooks, addr, 4, pc)?;
                    self.pie.q[qi(Qu)][w..w + 4].copy_from_slice(&v[..4]);
                } else {
                    let q = self.pie.q[qi(Qv)];
                    self.pie_write(bus, hooks, addr, 4, &q[w..w + 4], pc)?;
                }
            }
            FftR2bf => {
                // TRM v1.8 §1.8.13: qa0 from qx, qa1 from qy; qa1 is written last [U].
                let sel = k(Sel) & 1;
                let a0 = r2bf_half(&self.pie.s16(qi(Qx)), sel);
                let a1 = r2bf_half(&self.pie.s16(qi(Qy)), sel);
                self.pie.q[qi(Qa0)] = pack(&a0, 2);
                self.pie.q[qi(Qa1)] = pack(&a1, 2);
            }
            FftR2bfSt => {
                // TRM v1.8 §1.8.14: store (x + y) >> sar4 (sum at full precision), qa0 = x − y, as += 16.
                let (x, y) = (self.pie.s16(qi(Qx)), self.pie.s16(qi(Qy)));
                let sh = k(Sar) & 3;
                let (mut sum, mut diff) = ([0i64; 16], [0i64; 16]);
                for i in 0..8 {
                    sum[i] = (x[i] + y[i]) >> sh;
                    diff[i] = x[i] - y[i];
                }
                self.pie_write(bus, hooks, a_s, 16, &pack(&sum, 2), pc)?;
                self.pie.q[qi(Qa0)] = pack(&diff, 2);
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            FftCmulLd | FftCmulSt => {
                // TRM v1.8 §1.8.11 / §1.8.12: on lane pair sel8 >> 1, x·conj(y) for even sel8 and x·y for
                // odd, >> SAR. LD.XP writes that pair of qz and loads qu; ST.XP stores the product in lanes
                // 6–7 with lanes 0–5 chosen by upd4 (qx lanes >> sar4, qv lanes). as += ad.
                let (x, y) = (self.pie.s16(qi(Qx)), self.pie.s16(qi(Qy)));
                let sel = k(Sel) & 7;
                let j = 2 * (sel as usize >> 1);
                let (re, im) = cmul(
                    (y[j], y[j + 1]),
                    (x[j], x[j + 1]),
                    sel & 1 == 0,
                    self.sar.min(63),
                );
                if d.fam == FftCmulLd {
                    let mut z = self.pie.s16(qi(Qz));
                    (z[j], z[j + 1]) = (re, im);
                    let v = self.pie_read(bus, hooks, a_s, 16, pc)?;
                    self.pie.q[qi(Qz)] = pack(&z, 2);
                    self.pie.q[qi(Qu)] = v;
                } else {
                    let v = self.pie.s16(qi(Qv));
                    let sh = k(Sar) & 3;
                    let xs = |i: usize| x[i] >> sh;
                    let low = match k(Upd4) & 3 {
                        1 => [xs(0), xs(1), xs(2), xs(3), v[4], v[5]],
                        2 => [xs(0), xs(1), v[4], v[5], xs(2), xs(3)],
                        // 0; 3 is not in the TRM and is taken as 0 [U].
                        _ => [v[0], v[1], v[2], v[3], v[4], v[5]],
                    };
                    let mut out = [0i64; 16];
                    out[..6].copy_from_slice(&low);
                    (out[6], out[7]) = (re, im);
                    self.pie_write(bus, hooks, a_s, 16, &pack(&out, 2), pc)?;
                }
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            FftAmsLd | FftAmsUaup | FftAmsR32 => {
                // TRM v1.8 §1.8.7–1.8.9: the AMS step on lanes 2–3 (.LD.INCP), 0–1 (.UAUP) or 4–5 (.R32.DECP)
                // of qz and qz1 (their other lanes are kept), then qu is loaded: as is, or SAR_BYTE-aligned
                // through UA_STATE (which takes the new 16 bytes), or with its words reversed.
                let j = match d.fam {
                    FftAmsUaup => 0,
                    FftAmsLd => 2,
                    _ => 4,
                };
                let (x, y, m) = (
                    self.pie.s16(qi(Qx)),
                    self.pie.s16(qi(Qy)),
                    self.pie.s16(qi(Qm)),
                );
                let (zp, z1p) = ams_pair(&x, &y, &m, j, k(Sel) & 1, self.sar.min(63));
                let data = self.pie_read(bus, hooks, a_s, 16, pc)?;
                let loaded = match d.fam {
                    FftAmsUaup => {
                        let mut ua = [0u8; 16];
                        for i in 0..4 {
                            ua[4 * i..4 * i + 4]
                                .copy_from_slice(&self.pie.ua_state[i].to_le_bytes());
                            self.pie.ua_state[i] =
                                u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
                        }
                        byte_shift(&ua, &data, (self.pie.sar_byte & 15) as usize)
                    }
                    FftAmsR32 => rev_words(&data),
                    _ => data,
                };
                // qz, then qz1, then the load, each overwriting the last if registers alias [U].
                for (reg, pair) in [(qi(Qz), zp), (qi(Qz1), z1p)] {
                    let mut l = self.pie.s16(reg);
                    (l[j], l[j + 1]) = (pair[0], pair[1]);
                    self.pie.q[reg] = pack(&l, 2);
                }
                self.pie.q[qi(Qu)] = loaded;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            FftAmsSt => {
                // TRM v1.8 §1.8.10: store {qv lanes 0–5, at} first (each >> 1 when sel2 = 0, at in lanes
                // 0–1), then the AMS step on lanes 6–7: qz1 gets its pair, at = the qz pair (low lane in
                // at[15:0]), as += 16 (as is written after at) [U].
                let sel = k(Sel) & 1;
                let at = self.ar(k(As0));
                let v = self.pie.s16(qi(Qv));
                let sh = if sel == 0 { 1 } else { 0 };
                let mut out = [0i64; 16];
                out[0] = (at as i16 as i64) >> sh;
                out[1] = ((at >> 16) as i16 as i64) >> sh;
                for i in 0..6 {
                    out[i + 2] = v[i] >> sh;
                }
                self.pie_write(bus, hooks, a_s, 16, &pack(&out, 2), pc)?;
                let (x, y, m) = (
                    self.pie.s16(qi(Qx)),
                    self.pie.s16(qi(Qy)),
                    self.pie.s16(qi(Qm)),
                );
                let (zp, z1p) = ams_pair(&x, &y, &m, 6, sel, self.sar.min(63));
                let mut z1 = self.pie.s16(qi(Qz1));
                (z1[6], z1[7]) = (z1p[0], z1p[1]);
                self.pie.q[qi(Qz1)] = pack(&z1, 2);
                self.set_ar(k(As0), (zp[0] as u32 & 0xFFFF) | (zp[1] as u32) << 16);
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
            FftVstR32 => {
                // TRM v1.8 §1.8.15: each 16-bit lane >> sar2 (arithmetic), stored with the words reversed;
                // as −= 16.
                let sh = k(Sar) & 1;
                let v = self.pie.s16(qi(Qv)).map(|l| l >> sh);
                self.pie_write(bus, hooks, a_s, 16, &rev_words(&pack(&v, 2)), pc)?;
                let n = upd_as(self, 16);
                self.set_ar(k(As), n);
            }
        }
        Ok(())
    }
}
