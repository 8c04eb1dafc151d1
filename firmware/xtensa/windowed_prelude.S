/* GNU as macros that emit the windowed-register instructions the LX106 assembler lacks, as raw
 * encodings (field layouts from the Xtensa ISA Reference Manual's opcode formats: ENTRY BRI12 op0=6 n=3 m=0; RETW.N narrow
 * op0=D r=F t=1; CALLX8 op0=0 t=E; L32E/S32E op1=9 op2=0/4 r=off/4+16; RFWO/RFWU op2=0 r=3 s=4/5).
 * CALL8 sym becomes `movi a8, sym; callx8 a8` (a8 receives the return address anyway). */

    /* The number of register \r of the file whose names start with \prefix (a0-a15, f0-f15). */
    .macro _numbered out, r, prefix
    .set \out, -1
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    .ifc \r, \prefix\n
    .set \out, \n
    .endif
    .endr
    .endm

    .macro _regnum out, r
    _numbered \out, \r, a
    .ifc \r, sp
    .set \out, 1
    .endif
    .if \out < 0
    .error "bad register \r"
    .endif
    .endm

    .macro entry as, imm
    .ifnc \as, sp
    .ifnc \as, a1
    .error "entry expects a1 (sp)"
    .endif
    .endif
    .byte 0x36, 0x01 | ((((\imm) / 8) & 0xF) << 4), (((\imm) / 8) >> 4) & 0xFF
    .endm

    .macro retw.n
    .byte 0x1D, 0xF0
    .endm

    .macro retw
    .byte 0x90, 0x00, 0x00
    .endm

    .macro callx8 r
    _regnum _cx, \r
    .byte 0xE0, _cx, 0x00
    .endm

    .macro call8 sym
    movi a8, \sym
    callx8 a8
    .endm

    .macro s32e t, s, off
    _regnum _et, \t
    _regnum _es, \s
    .byte (_et << 4), (_es | ((((\off) / 4 + 16) & 0xF) << 4)), 0x49
    .endm

    .macro l32e t, s, off
    _regnum _et, \t
    _regnum _es, \s
    .byte (_et << 4), (_es | ((((\off) / 4 + 16) & 0xF) << 4)), 0x09
    .endm

    .macro rfwo
    .byte 0x00, 0x34, 0x00
    .endm

    .macro rfwu
    .byte 0x00, 0x35, 0x00
    .endm
