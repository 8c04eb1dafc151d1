//! Core configurations of the three Xtensa cores (source S1 core-isa.h; tags in the `xtensa` module docs).

/// Which Espressif core a configuration describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XtensaCore {
    /// ESP32-S3, Xtensa LX7.
    Esp32s3,
    /// ESP32, Xtensa LX6.
    Esp32,
    /// ESP8266, Xtensa LX106.
    Esp8266,
}

/// Timing parameters of the cycle model: one instruction issues per cycle; the results named
/// below come later, and an instruction that reads one waits until it is ready (use-distance
/// interlock, `pipeline.rs`). Latency L: the result can be used L cycles after the producer issues
/// (1 = the next instruction, no stall).
#[derive(Clone, Debug)]
pub struct XtensaTiming {
    /// Base cost of every instruction.
    pub base: u32,
    /// Latency of a load into an AR or a MAC16 MR register (ESP-IDF core-isa.h
    /// XCHAL_DATA_PIPE_DELAY: 1 on the 5-stage, 2 on the 7-stage pipeline, one cycle of the
    /// load's data path per unit; GCC gcc/config/xtensa/xtensa.md "xtensa_memory" latency 2 for
    /// the 5-stage pipeline it describes).
    pub load: u32,
    /// Latency of a load into an FP register for its FP consumer (ASSUMPTION: 1, the FPU reads its
    /// operands late enough that a load right before needs no stall. Espressif's hand-scheduled
    /// ESP-DSP kernels, dsps_dotprod_f32_ae32.S and dsps_fir_f32_ae32.S, place LSX right before the
    /// MADD.S that uses it, while its MAC16 kernel dsps_dotprod_s16_ae32.S keeps two instructions
    /// between a load and its use; no document states the FPU's operand stage).
    pub fp_load: u32,
    /// Latency of ADD.S/SUB.S/MUL.S/MADD.S/MSUB.S (GCC xtensa.md "xtensa_fmadd" latency 4); MADDN.S
    /// and DIVN.S the same (ASSUMPTION: the same multiply-add unit, GCC gives no figure).
    pub fp_arith: u32,
    /// Latency of FLOAT.S/UFLOAT.S/ROUND.S/TRUNC.S/FLOOR.S/CEIL.S/UTRUNC.S (GCC xtensa.md
    /// "xtensa_fconv" latency 2).
    pub fp_conv: u32,
    /// Extra cycles for a taken branch, jump, call or return [U].
    pub taken_branch: u32,
    /// Extra cycles for MUL16/MULL/MULUH/MULSH results (GCC model mul latency 2, S8) [U]; charged always.
    pub mul: u32,
    /// Extra cycles for QUO*/REM* (not published [U]).
    pub div: u32,
    /// Extra cycles for an exception / interrupt entry or RFE/RFI/RFWO/RFWU [U].
    pub exception: u32,
}

impl Default for XtensaTiming {
    fn default() -> Self {
        Self::five_stage()
    }
}

impl XtensaTiming {
    /// The 5-stage pipeline (I R E M W; ESP-IDF components/xtensa/esp32s3 core-isa.h: XCHAL_DATA_PIPE_DELAY 1
    /// on the ESP32-S3): a load result is ready one cycle after the next instruction needs it (1 bubble), and
    /// a taken branch resolved in E discards the two instructions fetched behind it [U].
    pub fn five_stage() -> Self {
        XtensaTiming {
            base: 1,
            load: 2,
            fp_load: 1,
            fp_arith: 4,
            fp_conv: 2,
            taken_branch: 2,
            mul: 1,
            div: 2,
            exception: 3,
        }
    }

    /// The 7-stage pipeline (ESP-IDF components/xtensa/esp32 core-isa.h: XCHAL_DATA_PIPE_DELAY 2 on the
    /// ESP32): one more memory stage puts a load result one cycle later (2 bubbles before the next
    /// instruction, 1 before the one after), and one more fetch stage lengthens the refill after a taken
    /// branch by one [U: derived from the stage count, not measured]. The FP latencies are GCC's, which
    /// does not tell the pipelines apart (ASSUMPTION: the same on both).
    pub fn seven_stage() -> Self {
        XtensaTiming {
            load: 3,
            taken_branch: 3,
            ..Self::five_stage()
        }
    }
}

/// Option set and exception architecture parameters of one core (S1 core-isa.h).
#[derive(Clone, Debug)]
pub struct XtensaConfig {
    pub core: XtensaCore,
    /// Windowed register option (CALL4/8/12, ENTRY, RETW, ...).
    pub windowed: bool,
    /// Number of physical AR registers (64 windowed, 16 otherwise).
    pub num_ar: u32,
    /// Zero-overhead loops (LOOP/LOOPNEZ/LOOPGTZ, LBEG/LEND/LCOUNT).
    pub loops: bool,
    pub mul16: bool,
    pub mul32: bool,
    pub mul32_high: bool,
    pub div32: bool,
    pub mac16: bool,
    pub nsa: bool,
    pub minmax: bool,
    pub sext: bool,
    pub clamps: bool,
    pub booleans: bool,
    /// Single-precision FPU (coprocessor 0).
    pub fpu: bool,
    /// Coprocessor option (CPENABLE).
    pub coprocessors: bool,
    /// S32C1I + SCOMPARE1 + ATOMCTL.
    pub s32c1i: bool,
    /// L32AI/S32RI.
    pub l32ai: bool,
    pub threadptr: bool,
    /// Extended L32R (LITBASE SR 5).
    pub litbase: bool,
    /// S32NB (LX7 only [U], listed in the S3 libisa).
    pub s32nb: bool,
    /// Misaligned loads/stores raise LoadStoreAlignment (cause 9) instead of being handled.
    pub unaligned_exception: bool,
    /// Region Protection Option (WITLB/WDTLB access modes per 512 MB region) enforced for the
    /// illegal mode: the ESP32 and ESP32-S3 cores have it (ESP32 TRM §1.3.1 / ESP32-S3 TRM §1.3.1
    /// list the option, ESP-IDF's start-up sets the unused regions illegal); not assumed on LX106.
    pub region_protection: bool,
    /// Number of MISC SRs.
    pub misc_regs: u32,
    /// EXCM level (CINTLEVEL when PS.EXCM = 1).
    pub excm_level: u32,
    /// Highest ordinary interrupt level (excluding debug/NMI).
    pub num_int_levels: u32,
    pub debug_level: u32,
    pub nmi_level: u32,
    /// Number of interrupt lines.
    pub num_interrupts: u32,
    /// Level of each interrupt line (index = line).
    pub int_level: [u8; 32],
    /// Lines that are edge-triggered or software (cleared by INTCLEAR); others are level lines driven from outside.
    pub int_edge_mask: u32,
    /// Software interrupt lines (settable with WSR INTSET).
    pub int_sw_mask: u32,
    /// Interrupt line of CCOMPARE0..2 (number of timers = len).
    pub timer_irq: &'static [u8],
    /// Reset PC.
    pub reset_vector: u32,
    /// VECBASE at reset.
    pub vecbase_reset: u32,
    /// Vector offsets from VECBASE.
    pub vec: VectorOffsets,
    /// Number of IBREAK / DBREAK registers.
    pub num_ibreak: u32,
    pub num_dbreak: u32,
    /// Cycle model parameters.
    pub timing: XtensaTiming,
}

/// Vector offsets from VECBASE (S1 core-isa.h).
#[derive(Clone, Debug)]
pub struct VectorOffsets {
    pub window_overflow4: u32,
    pub window_underflow4: u32,
    pub window_overflow8: u32,
    pub window_underflow8: u32,
    pub window_overflow12: u32,
    pub window_underflow12: u32,
    /// Offset of the level-n interrupt vector, index n (0 and 1 unused); includes debug and NMI levels.
    pub level: [u32; 8],
    pub kernel: u32,
    pub user: u32,
    pub double: u32,
}

// Interrupt line levels, S3/ESP32 (S1 core-isa.h interrupt tables).
const LX_LEVELS: [u8; 32] = [
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 7, 3, 5, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 3, 4, 3, 4, 5,
];
// Edge/software/timer/profiling lines (cleared through INTCLEAR): 6,7,10,11,14,15,16,22,28,29,30.
const LX_EDGE: u32 = (1 << 6)
    | (1 << 7)
    | (1 << 10)
    | (1 << 11)
    | (1 << 14)
    | (1 << 15)
    | (1 << 16)
    | (1 << 22)
    | (1 << 28)
    | (1 << 29)
    | (1 << 30);
const LX_SW: u32 = (1 << 7) | (1 << 29);

// ESP8266: 0-5:1:E, 6:1:T, 7:1:SW, 8-13:1:Ed, 14:3:NMI.
const LX106_LEVELS: [u8; 32] = {
    let mut l = [0u8; 32];
    let mut i = 0;
    while i < 14 {
        l[i] = 1;
        i += 1;
    }
    l[14] = 3;
    l
};

impl XtensaConfig {
    /// ESP32-S3 (LX7.0.12).
    pub fn esp32s3() -> Self {
        XtensaConfig {
            core: XtensaCore::Esp32s3,
            s32nb: true,
            timing: XtensaTiming::five_stage(),
            ..Self::esp32()
        }
    }

    /// ESP32 (LX6.0.3).
    pub fn esp32() -> Self {
        XtensaConfig {
            core: XtensaCore::Esp32,
            windowed: true,
            num_ar: 64,
            loops: true,
            mul16: true,
            mul32: true,
            mul32_high: true,
            div32: true,
            mac16: true,
            nsa: true,
            minmax: true,
            sext: true,
            clamps: true,
            booleans: true,
            fpu: true,
            coprocessors: true,
            s32c1i: true,
            l32ai: true,
            threadptr: true,
            litbase: false,
            s32nb: false,
            unaligned_exception: false,
            region_protection: true,
            misc_regs: 4,
            excm_level: 3,
            num_int_levels: 5,
            debug_level: 6,
            nmi_level: 7,
            num_interrupts: 32,
            int_level: LX_LEVELS,
            int_edge_mask: LX_EDGE,
            int_sw_mask: LX_SW,
            timer_irq: &[6, 15, 16],
            reset_vector: 0x4000_0400,
            vecbase_reset: 0x4000_0000,
            vec: VectorOffsets {
                window_overflow4: 0x000,
                window_underflow4: 0x040,
                window_overflow8: 0x080,
                window_underflow8: 0x0C0,
                window_overflow12: 0x100,
                window_underflow12: 0x140,
                level: [0, 0, 0x180, 0x1C0, 0x200, 0x240, 0x280, 0x2C0],
                kernel: 0x300,
                user: 0x340,
                double: 0x3C0,
            },
            num_ibreak: 2,
            num_dbreak: 2,
            timing: XtensaTiming::seven_stage(),
        }
    }

    /// ESP8266 (LX106, "LX3.0.1").
    pub fn esp8266() -> Self {
        XtensaConfig {
            core: XtensaCore::Esp8266,
            windowed: false,
            num_ar: 16,
            loops: false,
            mul16: true,
            mul32: true,
            mul32_high: false,
            div32: false,
            mac16: false,
            nsa: true,
            minmax: false,
            sext: false,
            clamps: false,
            booleans: false,
            fpu: false,
            coprocessors: false,
            s32c1i: false,
            l32ai: false,
            threadptr: false,
            litbase: true,
            s32nb: false,
            unaligned_exception: true,
            region_protection: false,
            misc_regs: 0,
            excm_level: 1,
            num_int_levels: 1,
            debug_level: 2,
            nmi_level: 3,
            num_interrupts: 15,
            int_level: LX106_LEVELS,
            int_edge_mask: (1 << 6) | (1 << 7) | (0x3F << 8) | (1 << 14),
            int_sw_mask: 1 << 7,
            timer_irq: &[6],
            reset_vector: 0x4000_0080,
            vecbase_reset: 0x4000_0000,
            vec: VectorOffsets {
                window_overflow4: 0,
                window_underflow4: 0,
                window_overflow8: 0,
                window_underflow8: 0,
                window_overflow12: 0,
                window_underflow12: 0,
                // L2 = debug 0x010, L3 = NMI 0x020.
                level: [0, 0, 0x010, 0x020, 0, 0, 0, 0],
                kernel: 0x030,
                user: 0x050,
                double: 0x070,
            },
            num_ibreak: 1,
            num_dbreak: 1,
            timing: XtensaTiming::five_stage(), // LX106 pipeline depth not stated (S1 core-isa.h) [U]
        }
    }

    /// Number of CCOMPARE timers.
    pub fn num_timers(&self) -> usize {
        self.timer_irq.len()
    }

    /// Mask of interrupt lines at level `level`.
    pub fn level_mask(&self, level: u32) -> u32 {
        let mut m = 0;
        for i in 0..self.num_interrupts as usize {
            if self.int_level[i] as u32 == level {
                m |= 1 << i;
            }
        }
        m
    }

    /// Whether special register `sr` exists in this configuration (S2 libisa SR table).
    pub fn has_sr(&self, sr: u32) -> bool {
        let lx = self.core != XtensaCore::Esp8266;
        let s3 = self.core == XtensaCore::Esp32s3;
        match sr {
            0..=2 => self.loops,
            3 => true,
            4 => self.booleans,
            5 => self.litbase,
            12 => self.s32c1i,
            16 | 17 | 32..=35 => self.mac16,
            72 | 73 => self.windowed,
            89 => true,
            95 => s3,
            96 => true,
            97 | 99 => lx,
            104 => true,
            128 => true,
            129 => self.num_ibreak > 1,
            144 | 160 => true,
            145 | 161 => self.num_dbreak > 1,
            176 | 208 => true,
            177..=183 => sr - 176 <= self.nmi_level,
            192 => true,
            194..=199 => sr - 192 <= self.nmi_level,
            209..=215 => sr - 208 <= self.nmi_level,
            224 => self.coprocessors,
            226..=235 => true,
            236 | 237 => true,
            238 => true,
            240..=242 => ((sr - 240) as usize) < self.num_timers(),
            244..=247 => sr - 244 < self.misc_regs,
            _ => false,
        }
    }

    /// Whether user register `ur` exists (S2 libisa UR table; UR 0–18 are the S3 PIE state, S5 tie.h).
    pub fn has_ur(&self, ur: u32) -> bool {
        match ur {
            0..=18 => self.core == XtensaCore::Esp32s3,
            231 => self.threadptr,
            232 | 233 => self.fpu,
            // ESP32 vendor TIE state (S2 libisa: EXPSTATE, F64R_LO, F64R_HI, F64S).
            230 | 234..=236 => self.core == XtensaCore::Esp32,
            _ => false,
        }
    }
}
