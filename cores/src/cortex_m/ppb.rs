//! The Cortex-M private peripheral bus as firmware sees it: ITM stimulus ports, DWT cycle counter,
//! SysTick, NVIC and the System Control Block. Register addresses and bit layouts are those of the
//! ARMv7-M / ARMv8-M Architecture Reference Manuals (B3.2 SCS, B3.3 SysTick, B3.4 NVIC, C1.8 DWT,
//! C1.7 ITM). Registers the simulator does not model read back what was last written.

use std::collections::HashMap;

pub(crate) const PPB_BASE: u32 = 0xE000_0000;
pub(crate) const PPB_SIZE: u32 = 0x0010_0000;

const ITM_STIM0: u32 = 0xE000_0000;
const DWT_CTRL: u32 = 0xE000_1000;
const DWT_CYCCNT: u32 = 0xE000_1004;
const SYST_CSR: u32 = 0xE000_E010;
const SYST_RVR: u32 = 0xE000_E014;
const SYST_CVR: u32 = 0xE000_E018;
const SYST_CALIB: u32 = 0xE000_E01C;
const NVIC_ISER: u32 = 0xE000_E100;
const NVIC_ICER: u32 = 0xE000_E180;
const NVIC_ISPR: u32 = 0xE000_E200;
const NVIC_ICPR: u32 = 0xE000_E280;
const NVIC_IABR: u32 = 0xE000_E300;
const NVIC_IPR: u32 = 0xE000_E400;
const CPUID: u32 = 0xE000_ED00;
const ICSR: u32 = 0xE000_ED04;
const VTOR: u32 = 0xE000_ED08;
const CCR: u32 = 0xE000_ED14;
const SHPR1: u32 = 0xE000_ED18;
const SHCSR: u32 = 0xE000_ED24;
const CFSR: u32 = 0xE000_ED28;
const HFSR: u32 = 0xE000_ED2C;
const MMFAR: u32 = 0xE000_ED34;
const BFAR: u32 = 0xE000_ED38;
const DEMCR: u32 = 0xE000_EDFC;
const STIR: u32 = 0xE000_EF00;

/// CCR.DIV_0_TRP (ARMv7-M ARM B3.2.8).
pub(crate) const CCR_DIV_0_TRP: u32 = 1 << 4;
/// CCR.UNALIGN_TRP (ARMv7-M ARM B3.2.8).
pub(crate) const CCR_UNALIGN_TRP: u32 = 1 << 3;
pub(crate) const EXC_HARDFAULT: u32 = 3;
pub(crate) const EXC_MEMMANAGE: u32 = 4;
pub(crate) const EXC_BUSFAULT: u32 = 5;
pub(crate) const EXC_USAGEFAULT: u32 = 6;
pub(crate) const EXC_SVCALL: u32 = 11;
pub(crate) const EXC_PENDSV: u32 = 14;
pub(crate) const EXC_SYSTICK: u32 = 15;
const NUM_IRQS: usize = 240;

/// State of the system peripherals. Time is the core's simulated cycle count, passed in.
pub(crate) struct Ppb {
    cpuid: u32,
    pub vtor: u32,
    /// Pending and enabled state per exception number (16 + IRQ).
    pending: Vec<bool>,
    irq_enabled: Vec<bool>,
    /// Priority byte per exception number (0 = highest); fixed -3/-2/-1 for reset/NMI/HardFault.
    priority: Vec<u8>,
    /// Bits the core implements in a priority byte (upper bits): the board's `priority_bits`, else 2
    /// on v6-M and, ASSUMPTION, 4 elsewhere (the common vendor choice: STM32 and RP2350 implement 4).
    /// Unimplemented bits read as zero (ARMv7-M ARM B1.5.4), which is how FreeRTOS counts them.
    priority_mask: u8,
    /// Configuration and Control Register (ARMv7-M ARM B3.2.8): UNALIGN_TRP bit 3, DIV_0_TRP bit 4,
    /// STKALIGN bit 9.
    pub ccr: u32,
    /// Configurable Fault Status (B3.2.15: MMFSR bits 0-7, BFSR 8-15, UFSR 16-31), HardFault Status
    /// (B3.2.16), MemManage and BusFault Address (B3.2.17, B3.2.18). The status registers are
    /// write-one-to-clear.
    pub cfsr: u32,
    pub hfsr: u32,
    pub mmfar: u32,
    pub bfar: u32,
    /// System Handler Control and State (B3.2.13): the MEMFAULTENA/BUSFAULTENA/USGFAULTENA enables in
    /// bits 16-18 (the active and pended bits are not modelled).
    pub shcsr: u32,
    /// ARMv6-M: CCR is read-only, every fault is a HardFault.
    pub v6m: bool,
    systick_csr: u32,
    systick_reload: u32,
    /// Cycle at which the counter was last loaded with RELOAD.
    systick_epoch: u64,
    /// Wraps since the epoch already turned into COUNTFLAG and an exception.
    systick_wraps_seen: u64,
    dwt_ctrl: u32,
    /// CYCCNT = cycles - cyccnt_base while counting; frozen value otherwise.
    cyccnt_base: u64,
    cyccnt_frozen: u32,
    demcr: u32,
    /// Everything else in the PPB, read back as written.
    other: HashMap<u32, u32>,
    pub console: Vec<u8>,
}

impl Ppb {
    /// `priority_bits`: implemented bits of a priority byte (None: the core's default).
    pub fn new(cpuid: u32, v6m: bool, priority_bits: Option<u8>) -> Self {
        let bits = priority_bits.unwrap_or(if v6m { 2 } else { 4 }).clamp(1, 8);
        Ppb {
            cpuid,
            vtor: 0,
            pending: vec![false; 16 + NUM_IRQS],
            irq_enabled: vec![false; NUM_IRQS],
            priority: vec![0; 16 + NUM_IRQS],
            priority_mask: !(0xFFu8 >> bits),
            // STKALIGN resets to 1 on the M0+, M3 r2p0+, M4, M7 (each TRM's CCR reset value) and is
            // RES1 on ARMv8-M; the trap bits reset to 0. ARMv6-M has UNALIGN_TRP and STKALIGN RAO.
            ccr: if v6m { 0x208 } else { 0x200 },
            cfsr: 0,
            hfsr: 0,
            mmfar: 0,
            bfar: 0,
            shcsr: 0,
            v6m,
            systick_csr: 0,
            systick_reload: 0,
            systick_epoch: 0,
            systick_wraps_seen: 0,
            dwt_ctrl: 0x4000_0000, // NUMCOMP field; CYCCNTENA clear at reset
            cyccnt_base: 0,
            cyccnt_frozen: 0,
            demcr: 0,
            other: HashMap::new(),
            console: Vec::new(),
        }
    }

    fn cyccnt_running(&self) -> bool {
        self.dwt_ctrl & 1 != 0 && self.demcr & (1 << 24) != 0
    }

    fn systick_running(&self) -> bool {
        self.systick_csr & 1 != 0
    }

    /// Cycle of the next SysTick wrap after `now`, if the timer runs. A RELOAD of 0 stops it.
    pub fn next_systick_event(&self, now: u64) -> Option<u64> {
        if !self.systick_running() || self.systick_reload == 0 {
            return None;
        }
        let period = self.systick_reload as u64 + 1;
        let elapsed = now.saturating_sub(self.systick_epoch);
        Some(self.systick_epoch + (elapsed / period + 1) * period)
    }

    /// Account for SysTick wraps up to `now`: COUNTFLAG, and the exception when TICKINT is set.
    /// Each wrap is seen once, however often time is looked at.
    pub fn advance(&mut self, now: u64) {
        if !self.systick_running() || self.systick_reload == 0 {
            return;
        }
        let wraps = now.saturating_sub(self.systick_epoch) / (self.systick_reload as u64 + 1);
        if wraps > self.systick_wraps_seen {
            self.systick_wraps_seen = wraps;
            self.systick_csr |= 1 << 16;
            if self.systick_csr & 2 != 0 {
                self.pending[EXC_SYSTICK as usize] = true;
            }
        }
    }

    /// Whether any event source (SysTick) can ever raise an exception from now on.
    pub fn has_event_source(&self) -> bool {
        self.systick_running() && self.systick_reload != 0 && self.systick_csr & 2 != 0
    }

    pub fn set_pending(&mut self, exception: u32) {
        if let Some(p) = self.pending.get_mut(exception as usize) {
            *p = true;
        }
    }

    pub fn clear_pending(&mut self, exception: u32) {
        self.pending[exception as usize] = false;
    }

    /// Priority of an exception number (lower is more urgent).
    pub fn priority_of(&self, exception: u32) -> i32 {
        match exception {
            1 => -3,
            2 => -2,
            3 => -1,
            n => self.priority[n as usize] as i32,
        }
    }

    /// The pending, enabled exception with the most urgent priority (lowest number on a tie).
    pub fn most_urgent_pending(&self) -> Option<u32> {
        let mut best: Option<(i32, u32)> = None;
        for (n, &p) in self.pending.iter().enumerate() {
            if !p {
                continue;
            }
            if n >= 16 && !self.irq_enabled[n - 16] {
                continue;
            }
            let prio = self.priority_of(n as u32);
            if best.is_none_or(|(bp, _)| prio < bp) {
                best = Some((prio, n as u32));
            }
        }
        best.map(|(_, n)| n)
    }

    /// A read of `size` bytes at `addr`; `now` is the cycle count at the reading instruction.
    pub fn read(&mut self, addr: u32, now: u64) -> u32 {
        match addr {
            // Stimulus port: bit 0 set = FIFO ready.
            a if (ITM_STIM0..ITM_STIM0 + 0x80).contains(&a) => 1,
            DWT_CTRL => self.dwt_ctrl,
            DWT_CYCCNT => {
                if self.cyccnt_running() {
                    now.wrapping_sub(self.cyccnt_base) as u32
                } else {
                    self.cyccnt_frozen
                }
            }
            SYST_CSR => {
                self.advance(now);
                let v = self.systick_csr;
                self.systick_csr &= !(1 << 16); // COUNTFLAG clears on read
                v
            }
            SYST_RVR => self.systick_reload,
            SYST_CVR => {
                if self.systick_running() && self.systick_reload != 0 {
                    let period = self.systick_reload as u64 + 1;
                    let into = now.saturating_sub(self.systick_epoch) % period;
                    // Counts down from RELOAD; wraps to RELOAD after reaching 0.
                    ((self.systick_reload as u64 + period - into) % period) as u32
                } else {
                    self.other.get(&SYST_CVR).copied().unwrap_or(0)
                }
            }
            SYST_CALIB => 1 << 31, // NOREF: no reference clock, no calibration value
            a if (NVIC_ISER..NVIC_ISER + 0x40).contains(&a)
                || (NVIC_ICER..NVIC_ICER + 0x40).contains(&a) =>
            {
                self.irq_word(a & 0x3F, |s, n| s.irq_enabled[n])
            }
            a if (NVIC_ISPR..NVIC_ISPR + 0x40).contains(&a)
                || (NVIC_ICPR..NVIC_ICPR + 0x40).contains(&a) =>
            {
                self.irq_word(a & 0x3F, |s, n| s.pending[16 + n])
            }
            a if (NVIC_IABR..NVIC_IABR + 0x40).contains(&a) => 0,
            a if (NVIC_IPR..NVIC_IPR + NUM_IRQS as u32).contains(&a) => {
                let first = 16 + (a - NVIC_IPR) as usize;
                u32::from_le_bytes(
                    [0, 1, 2, 3].map(|i| self.priority.get(first + i).copied().unwrap_or(0)),
                )
            }
            a if (SHPR1..SHPR1 + 12).contains(&a) => {
                let first = 4 + (a - SHPR1) as usize;
                u32::from_le_bytes([0, 1, 2, 3].map(|i| self.priority[first + i]))
            }
            CPUID => self.cpuid,
            ICSR => {
                let mut v = 0;
                if self.pending[EXC_PENDSV as usize] {
                    v |= 1 << 28;
                }
                if self.pending[EXC_SYSTICK as usize] {
                    v |= 1 << 26;
                }
                v
            }
            VTOR => self.vtor,
            CCR => self.ccr,
            SHCSR => self.shcsr,
            CFSR => self.cfsr,
            HFSR => self.hfsr,
            MMFAR => self.mmfar,
            BFAR => self.bfar,
            DEMCR => self.demcr,
            _ => self.other.get(&addr).copied().unwrap_or(0),
        }
    }

    fn irq_word(&self, offset: u32, bit: impl Fn(&Self, usize) -> bool) -> u32 {
        let first = (offset / 4 * 32) as usize;
        (0..32)
            .filter(|i| first + i < NUM_IRQS && bit(self, first + i))
            .fold(0, |v, i| v | 1 << i)
    }

    fn each_irq_bit(value: u32, offset: u32, mut f: impl FnMut(usize)) {
        let first = (offset / 4 * 32) as usize;
        for i in 0..32 {
            if value & (1 << i) != 0 && first + i < NUM_IRQS {
                f(first + i);
            }
        }
    }

    /// A write of `size` bytes at `addr`; `now` is the cycle count at the writing instruction.
    pub fn write(&mut self, addr: u32, size: usize, value: u32, now: u64) {
        match addr {
            a if (ITM_STIM0..ITM_STIM0 + 4).contains(&a) => {
                // Port 0 carries console text; a 32-bit write sends four bytes.
                self.console
                    .extend_from_slice(&value.to_le_bytes()[..size.min(4)]);
            }
            DWT_CTRL => {
                let was = self.cyccnt_running();
                let frozen = self.read(DWT_CYCCNT, now);
                self.dwt_ctrl = (self.dwt_ctrl & 0xF000_0000) | (value & 0x0FFF_FFFF);
                self.restart_cyccnt(was, frozen, now);
            }
            DWT_CYCCNT => {
                self.cyccnt_frozen = value;
                self.cyccnt_base = now.wrapping_sub(value as u64);
            }
            SYST_CSR => {
                let was_running = self.systick_running();
                self.systick_csr = (self.systick_csr & (1 << 16)) | (value & 0x7);
                if self.systick_running() && !was_running {
                    self.systick_epoch = now;
                    self.systick_wraps_seen = 0;
                }
            }
            SYST_RVR => self.systick_reload = value & 0x00FF_FFFF,
            // Any write clears the counter, which reloads on the next tick.
            SYST_CVR => {
                self.systick_epoch = now;
                self.systick_wraps_seen = 0;
                self.systick_csr &= !(1 << 16);
            }
            a if (NVIC_ISER..NVIC_ISER + 0x40).contains(&a) => {
                Self::each_irq_bit(value, a & 0x3F, |n| self.irq_enabled[n] = true)
            }
            a if (NVIC_ICER..NVIC_ICER + 0x40).contains(&a) => {
                Self::each_irq_bit(value, a & 0x3F, |n| self.irq_enabled[n] = false)
            }
            a if (NVIC_ISPR..NVIC_ISPR + 0x40).contains(&a) => {
                Self::each_irq_bit(value, a & 0x3F, |n| self.pending[16 + n] = true)
            }
            a if (NVIC_ICPR..NVIC_ICPR + 0x40).contains(&a) => {
                Self::each_irq_bit(value, a & 0x3F, |n| self.pending[16 + n] = false)
            }
            a if (NVIC_IPR..NVIC_IPR + NUM_IRQS as u32).contains(&a) => {
                let first = 16 + (a - NVIC_IPR) as usize;
                let mask = self.priority_mask;
                for (i, b) in value.to_le_bytes().iter().take(size).enumerate() {
                    if let Some(p) = self.priority.get_mut(first + i) {
                        *p = *b & mask;
                    }
                }
            }
            a if (SHPR1..SHPR1 + 12).contains(&a) => {
                let first = 4 + (a - SHPR1) as usize;
                for (i, b) in value.to_le_bytes().iter().take(size).enumerate() {
                    self.priority[first + i] = *b & self.priority_mask;
                }
            }
            ICSR => {
                if value & (1 << 28) != 0 {
                    self.pending[EXC_PENDSV as usize] = true;
                }
                if value & (1 << 27) != 0 {
                    self.pending[EXC_PENDSV as usize] = false;
                }
                if value & (1 << 26) != 0 {
                    self.pending[EXC_SYSTICK as usize] = true;
                }
                if value & (1 << 25) != 0 {
                    self.pending[EXC_SYSTICK as usize] = false;
                }
                if value & (1 << 31) != 0 {
                    self.pending[2] = true; // NMIPENDSET
                }
            }
            VTOR => self.vtor = value & !0x7F,
            DEMCR => {
                let was = self.cyccnt_running();
                let frozen = self.read(DWT_CYCCNT, now);
                self.demcr = value;
                self.restart_cyccnt(was, frozen, now);
            }
            STIR => self.pending[16 + (value as usize & 0x1FF).min(NUM_IRQS - 1)] = true,
            SHCSR => self.shcsr = value & 0x0007_0000,
            // ARMv6-M keeps UNALIGN_TRP and STKALIGN set (ARMv6-M ARM B3.2.8: RAO/WI).
            CCR if !self.v6m => self.ccr = value & 0x0007_031B,
            // Byte and halfword writes reach the MMFSR/BFSR/UFSR parts at their own address.
            a if (CFSR..CFSR + 4).contains(&a) => self.cfsr &= !(value << (8 * (a - CFSR))),
            HFSR => self.hfsr &= !value,
            MMFAR => self.mmfar = value,
            BFAR => self.bfar = value,
            _ => {
                self.other.insert(addr, value);
            }
        }
    }

    fn restart_cyccnt(&mut self, was_running: bool, value: u32, now: u64) {
        match (was_running, self.cyccnt_running()) {
            (false, true) => self.cyccnt_base = now.wrapping_sub(self.cyccnt_frozen as u64),
            (true, false) => self.cyccnt_frozen = value,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cyccnt_counts_only_when_enabled() {
        let mut p = Ppb::new(0, false, None);
        assert_eq!(p.read(DWT_CYCCNT, 100), 0);
        p.write(DEMCR, 4, 1 << 24, 100);
        p.write(DWT_CTRL, 4, 1, 110);
        assert_eq!(p.read(DWT_CYCCNT, 150), 40);
        p.write(DWT_CTRL, 4, 0, 160);
        assert_eq!(p.read(DWT_CYCCNT, 500), 50);
    }

    #[test]
    fn systick_counts_down_and_pends() {
        let mut p = Ppb::new(0, false, None);
        p.write(SYST_RVR, 4, 99, 0);
        p.write(SYST_CSR, 4, 7, 1000);
        assert_eq!(
            p.read(SYST_CVR, 1000),
            99,
            "loaded with RELOAD when enabled"
        );
        assert_eq!(p.read(SYST_CVR, 1099), 0);
        assert_eq!(p.read(SYST_CVR, 1100), 99, "wraps to RELOAD");
        assert_eq!(p.next_systick_event(1000), Some(1100));
        p.advance(1100);
        assert_eq!(p.most_urgent_pending(), Some(EXC_SYSTICK));
        assert_eq!(p.read(SYST_CSR, 1100) >> 16, 1);
        assert_eq!(p.read(SYST_CSR, 1100) >> 16, 0, "COUNTFLAG clears on read");
    }

    #[test]
    fn irq_needs_enable_and_priority_orders() {
        let mut p = Ppb::new(0, false, None);
        p.write(NVIC_ISPR, 4, 1 << 5, 0);
        assert_eq!(p.most_urgent_pending(), None);
        p.write(NVIC_ISER, 4, 1 << 5, 0);
        assert_eq!(p.most_urgent_pending(), Some(21));
        p.write(NVIC_IPR + 4, 1, 0x40, 0); // IRQ 4 priority byte... IRQ 5 is byte 1 of word 1
        p.write(NVIC_IPR + 5, 1, 0x80, 0);
        p.write(NVIC_IPR + 6, 1, 0xFF, 0);
        assert_eq!(
            p.read(NVIC_IPR + 4, 0) >> 16,
            0xF0,
            "unimplemented priority bits read as zero"
        );
        p.write(ICSR, 4, 1 << 28, 0);
        assert_eq!(
            p.most_urgent_pending(),
            Some(EXC_PENDSV),
            "PendSV priority 0 beats IRQ5 at 0x80"
        );
    }
}
