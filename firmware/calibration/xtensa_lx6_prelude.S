/* GNU as macros that emit the ESP32 (Xtensa LX6) instructions the LX106 assembler lacks, as raw
 * encodings, so that hand-written LX6 assembly (ESP-DSP's *_ae32.S) assembles with Debian's
 * xtensa-lx106-elf binutils. Includes windowed_prelude.S (ENTRY, RETW, CALLn, ...).
 *
 * Field layouts: Xtensa Instruction Set Architecture Reference Manual, chapter 7 "Instruction
 * Formats and Opcodes" (RRR, RRI8, RI6/BRI8 formats; opcode tables for QRST, LSCI, LOOP, MAC16, FP0)
 * and chapter 6 "Instruction Descriptions" (the entries named below), as the decoder of this
 * project reads them (cores/src/xtensa/decode.rs, the reference for every field). A 24-bit word is
 * op0[3:0] t[7:4] s[11:8] r[15:12] op1[19:16] op2[23:20], stored little-endian.
 * Checked by firmware/calibration/lx6_prelude_check.c, which executes every macro on the ISS and
 * compares the results with the host's. */
    .include "windowed_prelude.S"

    .macro _emit3 op0, op1, op2, r, s, t
    .byte (((\t) & 0xF) << 4) | (\op0), (((\r) & 0xF) << 4) | ((\s) & 0xF), ((\op2) << 4) | (\op1)
    .endm

    .macro _fregnum out, f
    _numbered \out, \f, f
    .if \out < 0
    .error "bad FP register \f"
    .endif
    .endm

    /* MAC16 registers m0..m3; `lo`/`hi` bound the operand slot (mx: m0-m1, my: m2-m3). */
    .macro _mregnum out, m, lo=0, hi=3
    .set \out, -1
    .irp n, 0,1,2,3
    .ifc \m, m\n
    .set \out, \n
    .endif
    .endr
    .if (\out < \lo) || (\out > \hi)
    .error "bad MAC16 register \m here"
    .endif
    .endm

    /* Special registers by name (ISA RM §5.3 "Special Registers", their numbers): the LX106
     * assembler refuses the MAC16 and coprocessor ones. */
    .macro _srnum out, sr
    .set \out, -1
    .ifc \sr, lbeg
    .set \out, 0
    .endif
    .ifc \sr, lend
    .set \out, 1
    .endif
    .ifc \sr, lcount
    .set \out, 2
    .endif
    .ifc \sr, sar
    .set \out, 3
    .endif
    .ifc \sr, acclo
    .set \out, 16
    .endif
    .ifc \sr, acchi
    .set \out, 17
    .endif
    .irp n, 0,1,2,3
    .ifc \sr, m\n
    .set \out, 32 + \n
    .endif
    .endr
    .ifc \sr, cpenable
    .set \out, 224
    .endif
    .ifc \sr, ps
    .set \out, 230
    .endif
    .ifc \sr, vecbase
    .set \out, 231
    .endif
    .ifc \sr, ccount
    .set \out, 234
    .endif
    .if \out < 0
    .error "special register \sr not in the prelude's table"
    .endif
    .endm

    /* RSR/WSR/XSR (ISA RM ch. 6, RSR, WSR, XSR): RSR op0=0 op1=3 op2=0, WSR op2=1; XSR op1=1
     * op2=6; sr = {r,s}. */
    .macro _sr op1, op2, at, sr
    _regnum _srt, \at
    _srnum _srn, \sr
    _emit3 0, \op1, \op2, _srn >> 4, _srn, _srt
    .endm
    .macro rsr at, sr; _sr 3, 0, \at, \sr; .endm
    .macro wsr at, sr; _sr 3, 1, \at, \sr; .endm
    .macro xsr at, sr; _sr 1, 6, \at, \sr; .endm

    /* LOOP/LOOPNEZ/LOOPGTZ as, label (ISA RM ch. 6, LOOP): BRI8, op0=6 n=3 m=1 (t=7), r=8/9/A, s=as,
     * imm8 = LEND - (PC + 4), unsigned. Unlike the LX6 assembler, these do not align the loop body
     * to the fetch width (docs/accuracy.md says what that changes). */
    .macro _loop r, as, lend
    _regnum _las, \as
.L_loop\@:
    .byte 0x76, ((\r) << 4) | _las, (\lend) - .L_loop\@ - 4
    .endm
    .macro loop as, lend; _loop 8, \as, \lend; .endm
    .macro loopnez as, lend; _loop 9, \as, \lend; .endm
    .macro loopgtz as, lend; _loop 10, \as, \lend; .endm

    /* FP loads and stores, immediate (ISA RM ch. 6, LSI, LSIP, SSI, SSIP): LSCI, op0=3,
     * r=0/8/4/C, s=as, t=ft, imm8 = offset / 4. */
    .macro _lsci r, ft, as, off
    _fregnum _lft, \ft
    _regnum _las, \as
    .byte (_lft << 4) | 3, ((\r) << 4) | _las, ((\off) / 4) & 0xFF
    .endm
    .macro lsi ft, as, off; _lsci 0, \ft, \as, \off; .endm
    .macro ssi ft, as, off; _lsci 4, \ft, \as, \off; .endm
    .macro lsip ft, as, off; _lsci 8, \ft, \as, \off; .endm
    .macro ssip ft, as, off; _lsci 12, \ft, \as, \off; .endm

    /* FP loads and stores, indexed (ISA RM ch. 6, LSX, LSXP, SSX, SSXP): op0=0 op1=8
     * op2=0/1/4/5, r=fr, s=as, t=at. */
    .macro _lsx op2, fr, as, at
    _fregnum _lfr, \fr
    _regnum _las, \as
    _regnum _lat, \at
    _emit3 0, 8, \op2, _lfr, _las, _lat
    .endm
    .macro lsx fr, as, at; _lsx 0, \fr, \as, \at; .endm
    .macro lsxp fr, as, at; _lsx 1, \fr, \as, \at; .endm
    .macro ssx fr, as, at; _lsx 4, \fr, \as, \at; .endm
    .macro ssxp fr, as, at; _lsx 5, \fr, \as, \at; .endm

    /* FP0 arithmetic (ISA RM ch. 6, ADD.S, SUB.S, MUL.S, MADD.S, MSUB.S): op0=0 op1=A,
     * op2=0/1/2/4/5, r=fr, s=fs, t=ft. */
    .macro _fp3 op2, fr, fs, ft
    _fregnum _ffr, \fr
    _fregnum _ffs, \fs
    _fregnum _fft, \ft
    _emit3 0, 10, \op2, _ffr, _ffs, _fft
    .endm
    .macro add.s fr, fs, ft; _fp3 0, \fr, \fs, \ft; .endm
    .macro sub.s fr, fs, ft; _fp3 1, \fr, \fs, \ft; .endm
    .macro mul.s fr, fs, ft; _fp3 2, \fr, \fs, \ft; .endm
    .macro madd.s fr, fs, ft; _fp3 4, \fr, \fs, \ft; .endm
    .macro msub.s fr, fs, ft; _fp3 5, \fr, \fs, \ft; .endm

    /* FP0 op2=F, selected by t (ISA RM ch. 6, MOV.S t=0, ABS.S 1, CONST.S 3, RFR 4, WFR 5, NEG.S 6). */
    .macro _fp1 t, fr, fs
    _fregnum _ffr, \fr
    _fregnum _ffs, \fs
    _emit3 0, 10, 15, _ffr, _ffs, \t
    .endm
    .macro mov.s fr, fs; _fp1 0, \fr, \fs; .endm
    .macro abs.s fr, fs; _fp1 1, \fr, \fs; .endm
    .macro neg.s fr, fs; _fp1 6, \fr, \fs; .endm
    .macro const.s fr, imm
    _fregnum _ffr, \fr
    _emit3 0, 10, 15, _ffr, \imm, 3
    .endm
    .macro rfr ar, fs
    _regnum _far, \ar
    _fregnum _ffs, \fs
    _emit3 0, 10, 15, _far, _ffs, 4
    .endm
    .macro wfr fr, as
    _fregnum _ffr, \fr
    _regnum _fas, \as
    _emit3 0, 10, 15, _ffr, _fas, 5
    .endm

    /* MAC16 (ISA RM ch. 6, MUL.AA ... MULA.DD.LDINC, LDINC/LDDEC; opcode table "MAC16"): op0=4,
     * op1 = {kind, half} with kind 0 UMUL, 1 MUL, 2 MULA, 3 MULS and half 0 LL, 1 HL, 2 LH, 3 HH
     * (first letter: first operand); op2 = the operand form. mx (m0/m1) is r[2], my (m2/m3) is
     * t[2], mw (the register a LDINC/LDDEC loads) is r[1:0]. */
    .macro _mac_dd kind, h, mx, my          /* op2=2: s=0, r={0,mx,0,0}, t={0,my,0,0} */
    _mregnum _mmx, \mx, 0, 1
    _mregnum _mmy, \my, 2, 3
    _emit3 4, ((\kind) << 2) | (\h), 2, _mmx << 2, 0, (_mmy - 2) << 2
    .endm
    .macro _mac_ad kind, h, as, my          /* op2=3: r=0, s=as, t={0,my,0,0} */
    _regnum _mas, \as
    _mregnum _mmy, \my, 2, 3
    _emit3 4, ((\kind) << 2) | (\h), 3, 0, _mas, (_mmy - 2) << 2
    .endm
    .macro _mac_da kind, h, mx, at          /* op2=6: s=0, r={0,mx,0,0}, t=at */
    _mregnum _mmx, \mx, 0, 1
    _regnum _mat, \at
    _emit3 4, ((\kind) << 2) | (\h), 6, _mmx << 2, 0, _mat
    .endm
    .macro _mac_aa kind, h, as, at          /* op2=7: r=0, s=as, t=at */
    _regnum _mas, \as
    _regnum _mat, \at
    _emit3 4, ((\kind) << 2) | (\h), 7, 0, _mas, _mat
    .endm
    .macro _mac_dd_ld op2, h, mw, as, mx, my /* op2=0/1 (LDINC/LDDEC): r={0,mx,mw}, s=as */
    _mregnum _mmw, \mw
    _regnum _mas, \as
    _mregnum _mmx, \mx, 0, 1
    _mregnum _mmy, \my, 2, 3
    _emit3 4, 8 | (\h), \op2, (_mmx << 2) | _mmw, _mas, (_mmy - 2) << 2
    .endm
    .macro _mac_da_ld op2, h, mw, as, mx, at /* op2=4/5 (LDINC/LDDEC): r={0,mx,mw}, s=as, t=at */
    _mregnum _mmw, \mw
    _regnum _mas, \as
    _mregnum _mmx, \mx, 0, 1
    _regnum _mat, \at
    _emit3 4, 8 | (\h), \op2, (_mmx << 2) | _mmw, _mas, _mat
    .endm

    .macro _mac16_half h, hv
    .macro umul.aa.\h as, at; _mac_aa 0, \hv, \as, \at; .endm
    .macro mul.aa.\h as, at; _mac_aa 1, \hv, \as, \at; .endm
    .macro mula.aa.\h as, at; _mac_aa 2, \hv, \as, \at; .endm
    .macro muls.aa.\h as, at; _mac_aa 3, \hv, \as, \at; .endm
    .macro mul.ad.\h as, my; _mac_ad 1, \hv, \as, \my; .endm
    .macro mula.ad.\h as, my; _mac_ad 2, \hv, \as, \my; .endm
    .macro muls.ad.\h as, my; _mac_ad 3, \hv, \as, \my; .endm
    .macro mul.da.\h mx, at; _mac_da 1, \hv, \mx, \at; .endm
    .macro mula.da.\h mx, at; _mac_da 2, \hv, \mx, \at; .endm
    .macro muls.da.\h mx, at; _mac_da 3, \hv, \mx, \at; .endm
    .macro mul.dd.\h mx, my; _mac_dd 1, \hv, \mx, \my; .endm
    .macro mula.dd.\h mx, my; _mac_dd 2, \hv, \mx, \my; .endm
    .macro muls.dd.\h mx, my; _mac_dd 3, \hv, \mx, \my; .endm
    .macro mula.dd.\h\().ldinc mw, as, mx, my; _mac_dd_ld 0, \hv, \mw, \as, \mx, \my; .endm
    .macro mula.dd.\h\().lddec mw, as, mx, my; _mac_dd_ld 1, \hv, \mw, \as, \mx, \my; .endm
    .macro mula.da.\h\().ldinc mw, as, mx, at; _mac_da_ld 4, \hv, \mw, \as, \mx, \at; .endm
    .macro mula.da.\h\().lddec mw, as, mx, at; _mac_da_ld 5, \hv, \mw, \as, \mx, \at; .endm
    .endm
    _mac16_half ll, 0
    _mac16_half hl, 1
    _mac16_half lh, 2
    _mac16_half hh, 3

    .macro _ldinc op2, mw, as                /* op1=0, op2=8/9, r={0,0,mw}, s=as, t=0 */
    _mregnum _mmw, \mw
    _regnum _mas, \as
    _emit3 4, 0, \op2, _mmw, _mas, 0
    .endm
    .macro ldinc mw, as; _ldinc 8, \mw, \as; .endm
    .macro lddec mw, as; _ldinc 9, \mw, \as; .endm
