//! Peripheral register blocks as data: per chip, the blocks with their base, registers (offset,
//! name, reset value, read-only, write-1-to-clear (`w1c`), write-0-to-clear (`w0c`) and
//! self-clearing bits) and a small vocabulary of behaviours that start-up code and drivers wait
//! on. The engine that runs them is
//! `tigris_memmodels::periph`; the chips differ only in these files.
//!
//! Built-in chip files live in `targets/peripherals/*.toml`; a board names them with
//! `peripherals = ["esp32s3"]` (or a path to a file of the same format).
//!
//! A register's behaviour (at most one of them besides the masks):
//! - `console = true`: the low byte of every write goes to the console (a UART TX FIFO); reads give 0.
//! - `counter = { hz = N, shift = S, bits = B }`: reads `(ticks >> S)` masked to B bits, where ticks
//!   count at N Hz from reset (a free-running timer).
//! - `latch = { on = "REG", mask = M, hz = N, shift = S, bits = B }`: a write to REG with any bit of
//!   M set copies the counter (as `counter`) into this register; reads give the copy (timer value
//!   registers behind an UPDATE bit).
//!   With `config = { register = "REG", enable_bit = E, divider_shift = S, divider_bits = B }` the
//!   counter runs only while bit E of REG is set, at `hz` divided by REG's divider field (a timer
//!   whose driver picks its clock); the count is kept across changes of REG.
//! - `follow = [{ from = "REG", mask = M, shift = S, delay_cycles = D }]`: D core cycles after a
//!   write to REG, the bits `(REG & M)` appear here at `M` shifted left by S (right when negative):
//!   a ready bit that follows its enable bit; with `invert = true` the bits appear inverted (a
//!   reset-done bit that reads 1 once its reset bit is 0). `delay_us = T` adds T microseconds of simulated time
//!   (at the board's core clock), for start-up times a datasheet gives in time; so does it in `set`.
//!   `delay_count = { shift = S, bits = B, times = N, hz = F }` adds the field S/B of the written
//!   value times N ticks of an F Hz clock: a start-up the chip counts from a field the firmware
//!   writes (the SAM3X PMC's MOSCXTST x 8 slow-clock cycles); so does it in `set`.
//! - `set = [{ on = "REG", mask = M, bits = B, delay_cycles = D }]`: D core cycles after a write to
//!   REG with any bit of M set, the bits B are set here (a task register that sets an event, a
//!   command that sets a done bit); without `mask`, any write to REG does (a byte written to a
//!   UART's data register, 0 included).
//! - `clear = [{ on = "REG", mask = M, bits = B }]`: such a write clears the bits B here at once
//!   (a command that makes its done bit read 0 until it completes).
//! - `divide = { dividend = "REG", divisor = "REG", signed = S, remainder = R }`: reads the quotient
//!   (or with `remainder = true` the remainder) of the two registers' values, unsigned or signed (a
//!   hardware divider such as the RP2040 SIO's; division by zero gives quotient -1 (all ones) and
//!   remainder = dividend, RP2040 datasheet §2.3.1.5).
//! - `one_hot = { from = "REG", mask = M }`: reads `1 << ((REG & M) >> trailing zeros of M)`, the
//!   one-hot "selected" status of a clock mux whose source field is M in REG (RP2040 CLOCKS).
//! - `countdown = { hz, bits, load, control, enable_bit, reload_bit, divider_shift, divider_bits,
//!   divider_base, status_bit, clear }`: a down-counter timer with reload and an expiry flag
//!   (`CountdownSpec`, the ESP8266 FRC1).
//! - `alarm = { hz, target_hi, target_lo, target_bits, load, enable, enable_bit, status,
//!   status_bit, period_bits, period_mode_bit }`: a comparator of a free-running counter that sets
//!   a status bit at its target or every period (`AlarmSpec`, the ESP32-S3 SYSTIMER's COMPn).
//! - `masked = { value = "RAW", mask = "ENA" }`: reads RAW & ENA (an interrupt status register).
//! - `sets = "REG"` / `clears = "REG"`: a write sets (clears) the written 1-bits of REG and the
//!   register reads 0 (GPIO OUT_W1TS / OUT_W1TC).
//! - `pin_levels = { output = "OUT", enable = "ENABLE" }`: GPIO input levels, the driven level of
//!   output-enabled pins and 0 for the others (ASSUMPTION: nothing drives the inputs).
//! - `record = true` (with any of the above): every change of the register's value is kept for
//!   the report (GPIO outputs).
//! - `resets = M` (with any of the above): a write with a bit of M set is a software reset of the
//!   chip or of a core; the simulator ends the run there (the firmware would restart).
//! - `interrupt = [{ source = N, mask = M, enable = "REG" }]` (with any of the above): while bits
//!   M of the register are set (and the same bits of REG, when given), interrupt source N of the
//!   chip's interrupt matrix is asserted (a raw status bit behind its enable bit, a software
//!   interrupt register such as the ESP chips' CPU_INTR_FROM_CPU_n).
//! - `random = true`: a random number generator's data register: each read gives the next number
//!   of a fixed pseudo-random sequence (xorshift32 from the reset value), so runs stay
//!   deterministic where the chip's would differ.
//! - `watchdog = { hz, prescale = { register, shift, bits }, holds = [...], enable_bit,
//!   stage_shift, stage_bits, actions = [...], feed, protect, key, status, status_bit }` (on the
//!   register that enables it): a watchdog timer whose stages interrupt or reset (`WatchdogSpec`,
//!   the ESP chips' MWDT and RTC WDT).
//! - `spinlock = V`: a hardware spinlock (RP2040 SIO SPINLOCKn): a read of a free lock claims it
//!   and gives V, a read of a claimed lock gives 0, any write frees it.
//!
//! A block may also be an SPI memory controller (`[block.spi]`, see `SpiControllerSpec`): a write
//! of its start bit runs one transaction on the chip its chip-select register enables, and the
//! chip's listed answer to the command (a flash or PSRAM ID, a status register) fills the data
//! buffer. A chip answers only commands of its `command_bits` (8: SPI/QPI, 16: OPI); a chip may
//! hold mode registers that commands read and write, and a memory array (`mode_registers`,
//! `array`); a flash chip answers its read commands (`flash_reads`) from the board's flash image,
//! the one the MMU maps pages of. A chip with `psram_mode` is on the bus only when the board's PSRAM runs in that mode;
//! on a board whose PSRAM follows the driver (`follows_driver`), the chip of another mode that
//! speaks the firmware's protocol takes its place at the first transaction that needs it.
//!
//! A block may also be a hash accelerator (`[block.sha]`, see `ShaSpec`): a write to an engine's
//! start (continue) register hashes the message registers' block from the algorithm's initial
//! value (from the current state); the state lives in the block's hash registers, which firmware
//! reads and may write to resume a saved hash (`hash`, the ESP32-S3), or inside each engine, whose
//! load register copies it into the message registers (no `hash`, the ESP32). `byte_order` says
//! how a register's four bytes lie in the message and digest byte streams; the engine's busy
//! register reads 1 for `block_cycles` (`load_cycles`) after a block (a load).
//!
//! A block may answer at other bases as well (`aliases = [0x6000_0000]`: the same registers on a
//! second bus, as the ESP32's UART FIFOs on AHB), and have atomic write windows (`atomic = { xor =
//! 0x1000, set = 0x2000, clear = 0x3000 }`, `AtomicAliases`: the RP2040's SET/CLR/XOR aliases).
//! `derived_from = "BLOCK"` (with `name` and `base`, no registers) makes another instance of a
//! block named before it, in this file or one the board lists earlier (SVD's `derivedFrom`: a
//! chip's USART2..n as copies of USART1); `derived_from = "CHIP:BLOCK"` copies a block of another
//! built-in chip file (the same IP in a sibling chip at another base).
//!
//! One block of a chip may hold its interrupt matrix (`[block.interrupt_matrix]`, see
//! `InterruptMatrixSpec`): `sources`, per CPU the offset of its first map register (`maps`), and
//! the CPU-internal interrupts no source can drive (`internal`).

use serde::Deserialize;
use toml::Spanned;

use crate::{size, BoardError};

/// Built-in chip peripheral files, embedded at compile time.
const BUILTIN: &[(&str, &str)] = &[
    ("esp32s3", include_str!("../peripherals/esp32s3.toml")),
    ("esp32", include_str!("../peripherals/esp32.toml")),
    ("nrf52833", include_str!("../peripherals/nrf52833.toml")),
    ("rp2040", include_str!("../peripherals/rp2040.toml")),
    ("rp2350", include_str!("../peripherals/rp2350.toml")),
    ("atsamd51", include_str!("../peripherals/atsamd51.toml")),
    ("sam3x", include_str!("../peripherals/sam3x.toml")),
    ("stm32f4", include_str!("../peripherals/stm32f4.toml")),
    ("stm32f407", include_str!("../peripherals/stm32f407.toml")),
    ("stm32f411", include_str!("../peripherals/stm32f411.toml")),
    ("stm32f446", include_str!("../peripherals/stm32f446.toml")),
    ("stm32h7", include_str!("../peripherals/stm32h7.toml")),
    ("stm32u5", include_str!("../peripherals/stm32u5.toml")),
    ("esp8266", include_str!("../peripherals/esp8266.toml")),
];

/// Names of the built-in peripheral files.
pub fn builtin_peripheral_files() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The text of the built-in chip file `name`.
pub(crate) fn builtin_peripheral_text(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// A free-running counter: `ticks = cycles × hz / core clock`, read as `(ticks >> shift)` masked to `bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterSpec {
    pub hz: u64,
    pub shift: u32,
    pub bits: u32,
}

impl CounterSpec {
    /// The register value at `ticks`.
    pub fn value(&self, ticks: u64) -> u32 {
        let v = ticks >> self.shift.min(63);
        (if self.bits >= 32 {
            v
        } else {
            v & ((1u64 << self.bits) - 1)
        }) as u32
    }
}

/// What a register does beyond holding its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterKind {
    Plain,
    Console,
    Counter(CounterSpec),
    /// Holds a copy of the counter taken at a write of `mask` to register `on` (an index in the block).
    Latch {
        on: usize,
        mask: u32,
        counter: CounterSpec,
        config: Option<TimerConfig>,
    },
    /// A random number generator's output: every read gives the next number of a fixed
    /// pseudo-random sequence (runs stay deterministic).
    Random,
    /// A hardware spinlock: a read of the free lock claims it and gives this value (0 once claimed);
    /// a write frees it.
    Spinlock(u32),
    /// Register `value` masked by register `mask` (indices in the block): GPIO input levels (the
    /// output where the pin is driven), an interrupt status (raw bits where enabled).
    Masked {
        value: usize,
        mask: usize,
    },
    /// A comparator of a free-running counter (see `AlarmSpec`); the register is its config.
    Alarm(AlarmSpec),
    /// `1 << field`, the field `mask` of register `from` (an index in the block).
    OneHot {
        from: usize,
        mask: u32,
    },
    /// A down-counter (see `CountdownSpec`).
    Countdown(CountdownSpec),
    /// The quotient (or remainder) of registers `dividend` and `divisor` (indices in the block).
    Divide {
        dividend: usize,
        divisor: usize,
        signed: bool,
        remainder: bool,
    },
}

impl RegisterKind {
    /// `Divide`'s result for the operands `n / d`.
    pub fn divide(n: u32, d: u32, signed: bool, remainder: bool) -> u32 {
        let (q, r) = match (d, signed) {
            (0, _) => (u32::MAX, n),
            (_, false) => (n / d, n % d),
            (_, true) => (
                (n as i32).wrapping_div(d as i32) as u32,
                (n as i32).wrapping_rem(d as i32) as u32,
            ),
        };
        if remainder {
            r
        } else {
            q
        }
    }
}

/// A comparator that raises a status bit when a free-running counter of `hz` (ticks since reset)
/// reaches its target: the ESP32-S3 SYSTIMER's COMPn. The register holding it is the comparator's
/// config: bits `period_bits` the period, bit `period_mode_bit` periodic instead of one-shot. A
/// write of bit 0 to `load` takes the config in: a one-shot alarm then fires when the counter
/// reaches the `target_hi:target_lo` value (`target_bits` wide), a periodic one a period after the
/// load and every period on. It fires only while bit `enable_bit` of `enable` is set; firing sets
/// bit `status_bit` of `status`. Registers are indices in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlarmSpec {
    pub hz: u64,
    pub target_hi: usize,
    pub target_lo: usize,
    pub target_bits: u32,
    pub load: usize,
    pub enable: usize,
    pub enable_bit: u32,
    pub status: usize,
    pub status_bit: u32,
    pub period_bits: u32,
    pub period_mode_bit: u32,
}

/// A down-counter timer (the ESP8266 FRC1): while bit `enable_bit` of `control` is set it counts
/// from the value of `load` down to 0 at `hz` divided by `divider_base ^ field` (the control
/// register's divider field), then reloads when `reload_bit` is set or stops at 0. Each expiry sets
/// `status_bit` of `control`; a write of 1 to bit 0 of `clear` clears it. The count restarts when
/// `load` or `control` is written. Registers are indices in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountdownSpec {
    pub hz: u64,
    pub bits: u32,
    pub load: usize,
    pub control: usize,
    pub enable_bit: u32,
    pub reload_bit: u32,
    pub divider_shift: u32,
    pub divider_bits: u32,
    pub divider_base: u32,
    pub status_bit: u32,
    pub clear: usize,
}

impl CountdownSpec {
    /// Clock divider the control value selects.
    pub fn divider(&self, control: u32) -> u64 {
        let field = (control >> self.divider_shift) & ((1u32 << self.divider_bits) - 1);
        (self.divider_base as u64).saturating_pow(field)
    }
}

/// The register (an index in the block) that enables a counter and divides its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerConfig {
    pub register: usize,
    pub enable_bit: u32,
    pub divider_shift: u32,
    pub divider_bits: u32,
}

impl TimerConfig {
    /// The divider a config register value selects (a field of 0 divides by the field's range,
    /// as the ESP timer groups do), or None when the counter is stopped.
    pub fn divider(&self, value: u32) -> Option<u64> {
        if value >> self.enable_bit & 1 == 0 {
            return None;
        }
        let field = (value as u64 >> self.divider_shift) & ((1u64 << self.divider_bits) - 1);
        Some(if field == 0 {
            1u64 << self.divider_bits
        } else {
            field
        })
    }
}

/// Bits of this register that follow bits of register `from` (an index in the block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Follow {
    pub from: usize,
    pub mask: u32,
    pub shift: i32,
    /// The bits appear inverted: set while the bits they follow are clear (a reset-done status
    /// that reads 1 once its reset bit is 0).
    pub invert: bool,
    pub delay_cycles: u64,
    /// A further delay in nanoseconds of simulated time (converted with the core clock), for a
    /// start-up time the manual gives in time rather than cycles.
    pub delay_ns: u64,
    /// A further delay the written value counts.
    pub delay_count: Option<DelayCount>,
}

/// A delay counted from a field of the written value: `field × times` ticks of an `hz` clock
/// (a start-up counter the firmware loads, such as the SAM3X PMC's MOSCXTST).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayCount {
    pub shift: u32,
    pub bits: u32,
    pub times: u32,
    pub hz: u64,
}

impl DelayCount {
    /// Nanoseconds of simulated time the count lasts for the written value (rounded up).
    pub fn ns(&self, written: u32) -> u64 {
        let field = (written as u64 >> self.shift) & ((1u64 << self.bits) - 1);
        let ns = (field as u128 * self.times as u128 * 1_000_000_000).div_ceil(self.hz as u128);
        ns.min(u64::MAX as u128) as u64
    }
}

/// Bits of this register set (or cleared) when register `on` is written with a bit of `mask` set
/// (with any write when `mask` is 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    pub on: usize,
    pub mask: u32,
    pub bits: u32,
    pub delay_cycles: u64,
    /// As `Follow::delay_ns`.
    pub delay_ns: u64,
    /// As `Follow::delay_count`.
    pub delay_count: Option<DelayCount>,
    /// Clear the bits instead of setting them.
    pub clear: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterSpec {
    pub name: String,
    pub offset: u32,
    pub reset: u32,
    /// Bits writes do not change.
    pub read_only: u32,
    /// Bits a write of 1 clears (and a write of 0 leaves alone).
    pub w1c: u32,
    /// Bits a write of 0 clears (and a write of 1 leaves alone): the manuals' `rc_w0`.
    pub w0c: u32,
    /// Bits a write of 1 triggers but that read back as 0.
    pub self_clear: u32,
    pub kind: RegisterKind,
    pub follows: Vec<Follow>,
    pub triggers: Vec<Trigger>,
    /// A write sets (`true`) or clears the written 1-bits in this register (an index in the
    /// block), as GPIO "write 1 to set/clear" registers do; the register itself reads 0.
    pub writes_into: Option<(usize, bool)>,
    /// Every change of the register's value is recorded for the report (GPIO outputs).
    pub record: bool,
    /// Interrupt sources this register drives (a raw status bit, a software interrupt register).
    pub interrupts: Vec<InterruptSource>,
    /// Bits a write of 1 to resets the chip or a core with (software reset): the run ends there.
    pub resets: u32,
    /// This register configures a timer (the `config` of latches) that has a load and an alarm.
    pub timer: Option<TimerAlarmSpec>,
    /// This register configures a watchdog timer.
    pub watchdog: Option<WatchdogSpec>,
}

/// A watchdog timer (the ESP chips' timer-group MWDT and RTC WDT) configured by the register
/// that holds it: while bit `enable_bit` is set, it counts at `hz` divided by the `prescale`
/// field (when given) from its last feed; stage n ends `holds[n]` ticks after the previous one
/// and does the action its field selects (the field of stage n at `stage_shift - n ×
/// stage_bits`, its value an index in `actions`); after the last stage it starts again at stage
/// 0. A write to `feed` restarts it at stage 0. While `protect` does not hold `key`, writes to
/// its registers are ignored. Registers are indices in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchdogSpec {
    pub hz: u64,
    pub prescale: Option<(usize, u32, u32)>,
    pub holds: Vec<usize>,
    pub enable_bit: u32,
    pub stage_shift: u32,
    pub stage_bits: u32,
    pub actions: Vec<WatchdogAction>,
    pub feed: usize,
    pub protect: Option<(usize, u32)>,
    /// The raw interrupt status bit an `interrupt` stage sets: (register, bit).
    pub status: (usize, u32),
}

/// What a watchdog stage does when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WatchdogAction {
    Off,
    Interrupt,
    ResetCpu,
    ResetSystem,
    ResetRtc,
}

impl WatchdogAction {
    pub fn name(self) -> &'static str {
        match self {
            WatchdogAction::Off => "off",
            WatchdogAction::Interrupt => "interrupt",
            WatchdogAction::ResetCpu => "reset the CPU",
            WatchdogAction::ResetSystem => "reset the system",
            WatchdogAction::ResetRtc => "reset the system and the RTC",
        }
    }
}

/// The load and alarm of a configured up-counting timer (the ESP timer groups' T0/T1/LACT): a
/// write to `load` sets the count to `load_hi:load_lo`; while bit `alarm_bit` of the config
/// register is set, the count reaching `alarm_hi:alarm_lo` sets bit `status_bit` of `status`,
/// clears `alarm_bit` and, with `reload_bit` set, reloads the count. Registers are indices in the
/// block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerAlarmSpec {
    pub load: usize,
    pub load_lo: usize,
    pub load_hi: usize,
    pub alarm_lo: usize,
    pub alarm_hi: usize,
    pub alarm_bit: u32,
    pub reload_bit: u32,
    pub status: usize,
    pub status_bit: u32,
}

/// An interrupt source of the chip's interrupt matrix, asserted while the register's bits `mask`
/// (and the same bits of register `enable`, when given: the status bit gated by its enable bit)
/// are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterruptSource {
    pub source: u32,
    pub mask: u32,
    /// Index of the enable register in the block.
    pub enable: Option<usize>,
}

/// The SoC interrupt matrix that routes peripheral interrupt sources to CPU interrupt lines
/// (ESP32 TRM §7, ESP32-S3 TRM §9): per CPU one map register per source, in consecutive words,
/// whose low five bits name the CPU interrupt the source drives. Sources mapped to a CPU-internal
/// interrupt (timer, software, profiling) are not routed: that is how firmware disables one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptMatrixSpec {
    pub sources: u32,
    /// Per CPU, the byte offset in the block of the map register of source 0.
    pub maps: Vec<u32>,
    /// Bit n set: CPU interrupt n is internal and cannot be driven by a source.
    pub internal: u32,
}

/// One peripheral block. Addresses of the block that no register names hold what was written
/// (reset value 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeripheralSpec {
    pub name: String,
    pub base: u32,
    pub size: u32,
    /// The document and section the block's facts come from.
    pub source: String,
    pub registers: Vec<RegisterSpec>,
    /// The block is an SPI memory controller that runs user-defined transactions.
    pub spi: Option<SpiControllerSpec>,
    /// The block holds the chip's interrupt matrix map registers.
    pub interrupt_matrix: Option<InterruptMatrixSpec>,
    /// The block is a hash accelerator.
    pub sha: Option<ShaSpec>,
    /// Other base addresses the block also answers at (a second bus to the same registers).
    pub aliases: Vec<u32>,
    /// Offsets from the base of the windows whose writes XOR, set or clear the written bits.
    pub atomic: Option<AtomicAliases>,
    /// The chip's CPU clock selection, on the block of its select register (one per chip).
    pub cpu_clock: Option<CpuClockSpec>,
}

/// The atomic write windows of a block (RP2040 datasheet §2.1.2, RP2350 datasheet §2.1.3: a write
/// at base + `xor` XORs the written bits into the register at the same offset from base, + `set`
/// sets them, + `clear` clears them). A read there reads the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AtomicAliases {
    pub xor: u32,
    pub set: u32,
    pub clear: u32,
}

impl AtomicAliases {
    /// Each window's offset from the block's base and what a write there does.
    pub fn windows(self) -> [(u32, AtomicOp); 3] {
        [
            (self.xor, AtomicOp::Xor),
            (self.set, AtomicOp::Set),
            (self.clear, AtomicOp::Clear),
        ]
    }
}

/// What a write through an atomic alias does to the register's bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Xor,
    Set,
    Clear,
}

impl AtomicOp {
    pub fn apply(self, old: u32, bits: u32) -> u32 {
        match self {
            AtomicOp::Xor => old ^ bits,
            AtomicOp::Set => old | bits,
            AtomicOp::Clear => old & !bits,
        }
    }
}

/// A bit field of a register, by the register's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    pub addr: u32,
    pub shift: u32,
    pub bits: u32,
}

impl FieldSpec {
    pub fn mask(&self) -> u32 {
        (((1u64 << self.bits) - 1) as u32) << self.shift
    }

    pub fn get(&self, word: u32) -> u32 {
        (word & self.mask()) >> self.shift
    }

    pub fn put(&self, word: u32, value: u32) -> u32 {
        (word & !self.mask()) | ((value << self.shift) & self.mask())
    }
}

/// The CPU clock as the firmware selects it: the source `select` names, its frequency (by a
/// field's value, for a PLL with several outputs) divided by the divider field + 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuClockSpec {
    pub select: FieldSpec,
    /// In order of preference for the clock a boot loader leaves running.
    pub sources: Vec<ClockSourceSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockSourceSpec {
    pub select: u32,
    /// Frequency by the value of `by` (0: reserved), or the one frequency when `by` is `None`.
    pub hz: Vec<u64>,
    pub by: Option<FieldSpec>,
    pub divider: Option<FieldSpec>,
}

impl CpuClockSpec {
    /// Every field the selection reads: the select, each source's `by` and divider.
    pub fn fields(&self) -> impl Iterator<Item = FieldSpec> + '_ {
        std::iter::once(self.select).chain(
            self.sources
                .iter()
                .flat_map(|s| s.by.into_iter().chain(s.divider)),
        )
    }

    /// Whether the register at `addr` holds one of the fields.
    pub fn reads(&self, addr: u32) -> bool {
        self.fields().any(|f| f.addr == addr)
    }

    /// The CPU clock the fields' values select (`word` reads a register), if they name one.
    pub fn hz(&self, word: impl Fn(u32) -> u32) -> Option<u64> {
        let field = |f: &FieldSpec| f.get(word(f.addr));
        let selected = field(&self.select);
        let source = self.sources.iter().find(|s| s.select == selected)?;
        let index = source.by.as_ref().map_or(0, field) as usize;
        let hz = *source.hz.get(index).filter(|&&hz| hz > 0)?;
        Some(hz / (source.divider.as_ref().map_or(0, field) as u64 + 1))
    }

    /// The field values that select `hz` (the first source, in file order, that gives it).
    pub fn settings_for(&self, hz: u64) -> Option<Vec<(FieldSpec, u32)>> {
        self.sources.iter().find_map(|s| {
            let (index, divide) = s.hz.iter().enumerate().find_map(|(i, &f)| {
                let max = s.divider.map_or(1, |d| 1u64 << d.bits);
                (f > 0 && f % hz == 0 && f / hz <= max).then(|| (i as u32, (f / hz - 1) as u32))
            })?;
            let mut out = vec![(self.select, s.select)];
            out.extend(s.by.map(|b| (b, index)));
            out.extend(s.divider.map(|d| (d, divide)));
            Some(out)
        })
    }
}

/// An SPI memory controller's user-defined transaction (the ESP chips' SPI0/SPI1 "user command"):
/// a write of `start_mask` to register `start` runs the phases that register `user` enables
/// (command, address, dummy, MISO, MOSI) on the first chip the chip-select register enables; the
/// chip's answer fills the data buffer. Registers are indices in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpiControllerSpec {
    pub start: usize,
    pub start_mask: u32,
    /// Phase enables: bit 31 command, 30 address, 28 MISO (the ESP `SPI_USR_*` bits).
    pub user: usize,
    /// Command value in bits 15:0.
    pub command: usize,
    pub address: usize,
    /// MISO bit length minus one.
    pub miso_bits: usize,
    /// MOSI bit length minus one (writes to a chip's registers or array), if the controller has one.
    pub mosi_bits: Option<usize>,
    /// The first of the data buffer's consecutive words.
    pub data: usize,
    pub data_words: u32,
    /// Bit n set: chip select n disabled.
    pub chip_select: usize,
    pub devices: Vec<SpiDeviceSpec>,
    /// The board's PSRAM mode: of the chips with a `psram_mode`, the one of this mode is on the bus.
    pub psram_mode: Option<String>,
}

/// A chip on an SPI memory bus, as far as its commands' answers go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpiDeviceSpec {
    pub name: String,
    pub chip_select: u32,
    /// The board's PSRAM mode this chip belongs to (`None`: any board).
    pub psram_mode: Option<String>,
    /// Byte a command without a listed answer reads (an erased flash reads 0xFF).
    pub idle_byte: u8,
    /// Command value → bytes its MISO phase returns, first byte first.
    pub answers: Vec<(u32, Vec<u8>)>,
    /// Length of the commands it decodes: 8 (SPI and QPI chips) or 16 (OPI chips); a command of
    /// another length finds nothing listening (reads the bus's all ones).
    pub command_bits: u32,
    pub mode_registers: Option<ModeRegistersSpec>,
    /// Its memory array: (read command, write command) at the transaction's address.
    pub array: Option<(u32, u32)>,
    /// Read commands answered from the board's flash image at the transaction's address (the
    /// flash chip whose pages the MMU maps).
    pub flash_reads: Vec<u32>,
}

/// A chip's mode registers: a read command returns MR[address], MR[address + 1], ...; a write
/// command stores its data there, through each register's writable bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeRegistersSpec {
    pub read: u32,
    pub write: u32,
    pub reset: Vec<u8>,
    pub writable: Vec<u8>,
}

/// A hash accelerator in "typical" (CPU-fed) mode: the ESP32 and ESP32-S3 SHA blocks. Registers
/// are indices in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaSpec {
    /// The first of the message block's consecutive words (16 or 32, by the algorithm).
    pub message: usize,
    /// The first of the hash state's consecutive words, when the state lives in registers
    /// firmware reads and writes; `None`: each engine keeps its own state, and its load register
    /// copies it into the message words.
    pub hash: Option<usize>,
    pub byte_order: ByteOrder,
    /// Core cycles the busy register reads 1 after a block is started.
    pub block_cycles: u64,
    /// Core cycles the busy register reads 1 after a load.
    pub load_cycles: u64,
    pub engines: Vec<ShaEngineSpec>,
}

/// How a 32-bit register holds four bytes of a message or digest byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    /// The stream's first byte in bits 31:24 (the register reads the big-endian word).
    Big,
    /// The stream's first byte in bits 7:0 (the register reads the bytes as memory holds them).
    Little,
}

impl ByteOrder {
    /// The register value holding `bytes`.
    pub fn word(self, bytes: [u8; 4]) -> u32 {
        match self {
            ByteOrder::Big => u32::from_be_bytes(bytes),
            ByteOrder::Little => u32::from_le_bytes(bytes),
        }
    }

    /// The bytes register value `word` holds, first byte first.
    pub fn bytes(self, word: u32) -> [u8; 4] {
        match self {
            ByteOrder::Big => word.to_be_bytes(),
            ByteOrder::Little => word.to_le_bytes(),
        }
    }
}

/// One engine of a hash accelerator: its control registers and the algorithms it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaEngineSpec {
    pub start: usize,
    pub continue_block: usize,
    /// Copies the engine's state into the message words (engines without hash registers).
    pub load: Option<usize>,
    pub busy: usize,
    /// The register whose value indexes `algorithms` (`None`: the engine runs `algorithms[0]`).
    pub mode: Option<usize>,
    pub algorithms: Vec<ShaAlgorithm>,
}

/// The FIPS 180-4 hash algorithms an engine can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ShaAlgorithm {
    #[serde(rename = "sha1")]
    Sha1,
    #[serde(rename = "sha224")]
    Sha224,
    #[serde(rename = "sha256")]
    Sha256,
    #[serde(rename = "sha384")]
    Sha384,
    #[serde(rename = "sha512")]
    Sha512,
    #[serde(rename = "sha512/224")]
    Sha512_224,
    #[serde(rename = "sha512/256")]
    Sha512_256,
}

impl ShaAlgorithm {
    /// Bytes of a message block (FIPS 180-4 §1, Figure 1).
    pub fn block_bytes(self) -> usize {
        match self {
            ShaAlgorithm::Sha1 | ShaAlgorithm::Sha224 | ShaAlgorithm::Sha256 => 64,
            _ => 128,
        }
    }

    /// Bytes of the hash state (the intermediate hash value, of which the digest is a prefix).
    pub fn state_bytes(self) -> usize {
        match self {
            ShaAlgorithm::Sha1 => 20,
            ShaAlgorithm::Sha224 | ShaAlgorithm::Sha256 => 32,
            _ => 64,
        }
    }
}

impl PeripheralSpec {
    pub fn contains(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }

    /// Every base the block answers at: its own, its aliases and its atomic write windows.
    pub fn windows(&self) -> impl Iterator<Item = u32> + '_ {
        let atomic = self
            .atomic
            .iter()
            .flat_map(|a| a.windows())
            .map(|(off, _)| self.base.wrapping_add(off));
        std::iter::once(self.base)
            .chain(self.aliases.iter().copied())
            .chain(atomic)
    }

    /// The register address an atomic-alias address `addr` stands for, and what a write does.
    pub fn atomic_target(&self, addr: u32) -> Option<(u32, AtomicOp)> {
        self.atomic?.windows().into_iter().find_map(|(off, op)| {
            let inside = addr.wrapping_sub(self.base.wrapping_add(off));
            (inside < self.size).then_some((self.base + inside, op))
        })
    }

    /// The register at byte offset `offset`, if one is named there.
    pub fn register_at(&self, offset: u32) -> Option<&RegisterSpec> {
        self.registers.iter().find(|r| r.offset == offset & !3)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChipFile {
    #[allow(dead_code)]
    chip: String,
    #[serde(rename = "block")]
    blocks: Vec<Spanned<BlockFile>>,
    cpu_clock: Option<Spanned<CpuClockFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldFile {
    /// `BLOCK.REGISTER`.
    register: String,
    shift: u32,
    bits: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuClockFile {
    select: FieldFile,
    sources: Vec<ClockSourceFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockSourceFile {
    select: u32,
    hz: Vec<u64>,
    by: Option<FieldFile>,
    divider: Option<FieldFile>,
}

/// Resolve the clock file's fields to register addresses among `blocks`.
fn build_cpu_clock(
    c: &CpuClockFile,
    blocks: &[PeripheralSpec],
) -> Result<(usize, CpuClockSpec), String> {
    let field = |f: &FieldFile| -> Result<(usize, FieldSpec), String> {
        let found = f.register.split_once('.').and_then(|(block, reg)| {
            blocks.iter().enumerate().find_map(|(i, b)| {
                let r = b
                    .registers
                    .iter()
                    .find(|r| b.name == block && r.name == reg)?;
                Some((i, b.base + r.offset))
            })
        });
        let Some((block, addr)) = found else {
            return Err(format!(
                "no register `{}` (write BLOCK.REGISTER)",
                f.register
            ));
        };
        if f.bits == 0 || f.shift + f.bits > 32 {
            return Err(format!(
                "field of `{}`: shift + bits must be 1-32",
                f.register
            ));
        }
        Ok((
            block,
            FieldSpec {
                addr,
                shift: f.shift,
                bits: f.bits,
            },
        ))
    };
    let (block, select) = field(&c.select)?;
    let sources = c
        .sources
        .iter()
        .map(|s| {
            let by = s.by.as_ref().map(field).transpose()?.map(|f| f.1);
            let divider = s.divider.as_ref().map(field).transpose()?.map(|f| f.1);
            let needed = by.map_or(1, |b| 1usize << b.bits);
            if s.hz.len() != needed {
                return Err(format!(
                    "source {}: hz needs {needed} entries (one per value of `by`, else one)",
                    s.select
                ));
            }
            Ok(ClockSourceSpec {
                select: s.select,
                hz: s.hz.clone(),
                by,
                divider,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((block, CpuClockSpec { select, sources }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockFile {
    name: String,
    base: u32,
    size: Option<size::Size>,
    source: Option<String>,
    /// Another instance of a block named earlier (in this file or a file the board lists before
    /// it): the same registers and behaviours at this base, as an SVD file's `derivedFrom`.
    derived_from: Option<String>,
    atomic: Option<AtomicAliases>,
    #[serde(default)]
    registers: Vec<RegisterFile>,
    spi: Option<SpiControllerFile>,
    interrupt_matrix: Option<InterruptMatrixFile>,
    sha: Option<ShaFile>,
    #[serde(default)]
    aliases: Vec<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShaFile {
    message: String,
    hash: Option<String>,
    byte_order: ByteOrder,
    #[serde(default)]
    block_cycles: u64,
    #[serde(default)]
    load_cycles: u64,
    engines: Vec<ShaEngineFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShaEngineFile {
    start: String,
    #[serde(rename = "continue")]
    continue_block: String,
    load: Option<String>,
    busy: String,
    mode: Option<String>,
    algorithms: Vec<ShaAlgorithm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InterruptMatrixFile {
    sources: u32,
    maps: Vec<u32>,
    #[serde(default)]
    internal: Vec<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimerAlarmFile {
    load: String,
    load_lo: String,
    load_hi: String,
    alarm_lo: String,
    alarm_hi: String,
    alarm_bit: u32,
    reload_bit: u32,
    status: String,
    status_bit: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchdogFile {
    hz: u64,
    prescale: Option<FieldInBlockFile>,
    holds: Vec<String>,
    enable_bit: u32,
    stage_shift: u32,
    stage_bits: u32,
    actions: Vec<WatchdogAction>,
    feed: String,
    protect: Option<String>,
    #[serde(default)]
    key: u32,
    status: String,
    status_bit: u32,
}

/// A bit field of a register of the same block.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldInBlockFile {
    register: String,
    shift: u32,
    bits: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InterruptFile {
    source: u32,
    mask: u32,
    enable: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpiControllerFile {
    start: String,
    start_mask: u32,
    user: String,
    command: String,
    address: String,
    miso_bits: String,
    mosi_bits: Option<String>,
    data: String,
    data_words: u32,
    chip_select: String,
    devices: Vec<SpiDeviceFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpiDeviceFile {
    name: String,
    chip_select: u32,
    psram_mode: Option<String>,
    #[serde(default)]
    idle_byte: u8,
    #[serde(default)]
    answers: Vec<SpiAnswerFile>,
    #[serde(default = "spi_command_bits")]
    command_bits: u32,
    mode_registers: Option<ModeRegistersFile>,
    array: Option<ArrayFile>,
    #[serde(default)]
    flash_reads: Vec<u32>,
}

fn spi_command_bits() -> u32 {
    8
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeRegistersFile {
    read: u32,
    write: u32,
    reset: Vec<u8>,
    writable: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArrayFile {
    read: u32,
    write: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpiAnswerFile {
    command: u32,
    data: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegisterFile {
    name: String,
    offset: u32,
    #[serde(default)]
    reset: u32,
    #[serde(default)]
    read_only: u32,
    #[serde(default)]
    w1c: u32,
    #[serde(default)]
    w0c: u32,
    #[serde(default)]
    self_clear: u32,
    #[serde(default)]
    console: bool,
    #[serde(default)]
    random: bool,
    spinlock: Option<u32>,
    divide: Option<DivideFile>,
    one_hot: Option<OneHotFile>,
    pin_levels: Option<PinLevelsFile>,
    masked: Option<MaskedFile>,
    alarm: Option<AlarmFile>,
    counter: Option<CounterFile>,
    latch: Option<LatchFile>,
    countdown: Option<CountdownFile>,
    sets: Option<String>,
    clears: Option<String>,
    #[serde(default)]
    record: bool,
    #[serde(default)]
    interrupt: Vec<InterruptFile>,
    timer: Option<TimerAlarmFile>,
    watchdog: Option<WatchdogFile>,
    #[serde(default)]
    resets: u32,
    #[serde(default)]
    follow: Vec<FollowFile>,
    #[serde(default)]
    set: Vec<TriggerFile>,
    #[serde(default)]
    clear: Vec<TriggerFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CounterFile {
    hz: u64,
    #[serde(default)]
    shift: u32,
    #[serde(default = "full_width")]
    bits: u32,
}

fn full_width() -> u32 {
    32
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OneHotFile {
    from: String,
    mask: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaskedFile {
    value: String,
    mask: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AlarmFile {
    hz: u64,
    target_hi: String,
    target_lo: String,
    target_bits: u32,
    load: String,
    enable: String,
    enable_bit: u32,
    status: String,
    status_bit: u32,
    period_bits: u32,
    period_mode_bit: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PinLevelsFile {
    output: String,
    enable: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DivideFile {
    dividend: String,
    divisor: String,
    #[serde(default)]
    signed: bool,
    #[serde(default)]
    remainder: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LatchFile {
    on: String,
    mask: u32,
    hz: u64,
    config: Option<ConfigFile>,
    #[serde(default)]
    shift: u32,
    #[serde(default = "full_width")]
    bits: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CountdownFile {
    hz: u64,
    #[serde(default = "full_width")]
    bits: u32,
    load: String,
    control: String,
    enable_bit: u32,
    reload_bit: u32,
    divider_shift: u32,
    divider_bits: u32,
    divider_base: u32,
    status_bit: u32,
    clear: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    register: String,
    enable_bit: u32,
    divider_shift: u32,
    divider_bits: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FollowFile {
    from: String,
    mask: u32,
    #[serde(default)]
    shift: i32,
    #[serde(default)]
    invert: bool,
    #[serde(default)]
    delay_cycles: u64,
    #[serde(default)]
    delay_us: f64,
    delay_count: Option<DelayCountFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DelayCountFile {
    shift: u32,
    bits: u32,
    #[serde(default = "one")]
    times: u32,
    hz: u64,
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerFile {
    on: String,
    #[serde(default)]
    mask: u32,
    bits: u32,
    #[serde(default)]
    delay_cycles: u64,
    #[serde(default)]
    delay_us: f64,
    delay_count: Option<DelayCountFile>,
}

/// `delay_us` of a file as whole nanoseconds.
fn delay_ns(us: f64) -> Result<u64, String> {
    if !(0.0..=1e9).contains(&us) {
        return Err(format!("delay_us {us} must be 0 to 1e9 microseconds"));
    }
    Ok((us * 1000.0).round() as u64)
}

/// A file's `delay_count`, checked: a field inside 32 bits, `times` and `hz` above 0.
fn delay_count(c: &Option<DelayCountFile>) -> Result<Option<DelayCount>, String> {
    let Some(c) = c else { return Ok(None) };
    if c.bits == 0 || c.shift.saturating_add(c.bits) > 32 || c.times == 0 || c.hz == 0 {
        return Err(format!(
            "delay_count: the field (shift {}, bits {}) must lie inside 32 bits, times and hz above 0",
            c.shift, c.bits
        ));
    }
    Ok(Some(DelayCount {
        shift: c.shift,
        bits: c.bits,
        times: c.times,
        hz: c.hz,
    }))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn counter(hz: u64, shift: u32, bits: u32) -> Result<CounterSpec, String> {
    if hz == 0 {
        return Err("counter hz must be greater than 0".into());
    }
    if shift > 63 || bits == 0 || bits > 32 {
        return Err(format!(
            "counter shift {shift} must be 0-63 and bits {bits} 1-32"
        ));
    }
    Ok(CounterSpec { hz, shift, bits })
}

/// A block of `size` bytes is above 0 bytes and ends within 4 GiB at `base` and at every other
/// window (alias or atomic window) it answers at.
fn check_extent(base: u32, size: u64, others: impl IntoIterator<Item = u32>) -> Result<(), String> {
    if size == 0 || base as u64 + size > 1 << 32 {
        return Err(format!(
            "size {size} at base 0x{base:08x} must be above 0 and end within 4 GiB"
        ));
    }
    match others.into_iter().find(|&w| w as u64 + size > 1 << 32) {
        Some(w) => Err(format!("alias 0x{w:08x} must end within 4 GiB")),
        None => Ok(()),
    }
}

/// Another instance of the block named by `b.derived_from`, found among `known`: the same
/// registers, behaviours and atomic windows at `b.base`, under `b.name`.
fn derive_block(
    b: &BlockFile,
    from: &str,
    known: &[&PeripheralSpec],
) -> Result<PeripheralSpec, String> {
    if !b.registers.is_empty()
        || b.spi.is_some()
        || b.sha.is_some()
        || b.interrupt_matrix.is_some()
        || b.atomic.is_some()
    {
        return Err(format!(
            "a block derived from `{from}` takes its registers and behaviours from it: give only name, base, aliases and optionally size and source"
        ));
    }
    let Some(original) = known.iter().find(|o| o.name == from) else {
        let names: Vec<&str> = known.iter().map(|o| o.name.as_str()).collect();
        return Err(format!(
            "derived_from names block `{from}`, which is not defined before it (defined: {})",
            names.join(", ")
        ));
    };
    if b.size.is_some_and(|s| s.0 != original.size as u64) {
        return Err(format!(
            "size differs from the {} bytes of `{from}`",
            original.size
        ));
    }
    let spec = PeripheralSpec {
        name: b.name.clone(),
        base: b.base,
        source: b.source.clone().unwrap_or_else(|| original.source.clone()),
        aliases: b.aliases.clone(),
        cpu_clock: None,
        ..(*original).clone()
    };
    check_extent(spec.base, spec.size as u64, spec.windows().skip(1))?;
    Ok(spec)
}

fn build_block(b: &BlockFile) -> Result<PeripheralSpec, String> {
    let (Some(size), Some(source)) = (b.size, &b.source) else {
        return Err(
            "size and source are required (unless the block is derived_from another)".into(),
        );
    };
    let atomic = b.atomic.iter().flat_map(|a| a.windows());
    check_extent(
        b.base,
        size.0,
        b.aliases
            .iter()
            .copied()
            .chain(atomic.map(|(off, _)| b.base.wrapping_add(off))),
    )?;
    let index_of = |name: &str, what: &str| -> Result<usize, String> {
        b.registers
            .iter()
            .position(|r| r.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = b.registers.iter().map(|r| r.name.as_str()).collect();
                format!(
                    "{what} names register `{name}`, which the block does not have (it has: {})",
                    known.join(", ")
                )
            })
    };
    let mut registers = Vec::new();
    for r in &b.registers {
        let at = |m: String| format!("register `{}`: {m}", r.name);
        if r.offset % 4 != 0 || r.offset as u64 >= size.0 {
            return Err(at(format!(
                "offset 0x{:x} must be word-aligned and inside the block",
                r.offset
            )));
        }
        if let Some(other) = registers
            .iter()
            .find(|o: &&RegisterSpec| o.offset == r.offset)
        {
            return Err(at(format!(
                "offset 0x{:x} is also register `{}`",
                r.offset, other.name
            )));
        }
        let kinds = [
            r.console,
            r.random,
            r.counter.is_some(),
            r.latch.is_some(),
            r.spinlock.is_some(),
            r.countdown.is_some(),
            r.pin_levels.is_some(),
            r.masked.is_some(),
            r.alarm.is_some(),
            r.sets.is_some(),
            r.clears.is_some(),
        ]
        .iter()
        .filter(|&&k| k)
        .count();
        if kinds > 1 {
            return Err(at(
                "at most one of console, random, counter, latch, countdown, alarm, pin_levels, masked, sets, clears, spinlock, divide and one_hot"
                    .into(),
            ));
        }
        let kind = if r.console {
            RegisterKind::Console
        } else if let Some(o) = &r.one_hot {
            if o.mask == 0 || (o.mask >> o.mask.trailing_zeros()) > 31 {
                return Err(at(format!(
                    "one_hot mask 0x{:x} must select a field of at most 5 bits",
                    o.mask
                )));
            }
            RegisterKind::OneHot {
                from: index_of(&o.from, "one_hot.from").map_err(at)?,
                mask: o.mask,
            }
        } else if let Some(l) = &r.pin_levels {
            RegisterKind::Masked {
                value: index_of(&l.output, "pin_levels.output").map_err(at)?,
                mask: index_of(&l.enable, "pin_levels.enable").map_err(at)?,
            }
        } else if let Some(m) = &r.masked {
            RegisterKind::Masked {
                value: index_of(&m.value, "masked.value").map_err(at)?,
                mask: index_of(&m.mask, "masked.mask").map_err(at)?,
            }
        } else if let Some(a) = &r.alarm {
            if a.hz == 0
                || !(1..=64).contains(&a.target_bits)
                || !(1..=31).contains(&a.period_bits)
                || [a.enable_bit, a.status_bit, a.period_mode_bit]
                    .iter()
                    .any(|&b| b > 31)
            {
                return Err(at(
                    "alarm: hz above 0, target_bits 1-64, period_bits 1-31 and bit numbers 0-31"
                        .into(),
                ));
            }
            RegisterKind::Alarm(AlarmSpec {
                hz: a.hz,
                target_hi: index_of(&a.target_hi, "alarm.target_hi").map_err(at)?,
                target_lo: index_of(&a.target_lo, "alarm.target_lo").map_err(at)?,
                target_bits: a.target_bits,
                load: index_of(&a.load, "alarm.load").map_err(at)?,
                enable: index_of(&a.enable, "alarm.enable").map_err(at)?,
                enable_bit: a.enable_bit,
                status: index_of(&a.status, "alarm.status").map_err(at)?,
                status_bit: a.status_bit,
                period_bits: a.period_bits,
                period_mode_bit: a.period_mode_bit,
            })
        } else if let Some(d) = &r.divide {
            RegisterKind::Divide {
                dividend: index_of(&d.dividend, "divide.dividend").map_err(at)?,
                divisor: index_of(&d.divisor, "divide.divisor").map_err(at)?,
                signed: d.signed,
                remainder: d.remainder,
            }
        } else if r.random {
            RegisterKind::Random
        } else if let Some(v) = r.spinlock {
            if v == 0 {
                return Err(at(
                    "spinlock: the value a claim reads must not be 0 (0 means taken)".into(),
                ));
            }
            RegisterKind::Spinlock(v)
        } else if let Some(c) = &r.counter {
            RegisterKind::Counter(counter(c.hz, c.shift, c.bits).map_err(at)?)
        } else if let Some(c) = &r.countdown {
            if c.hz == 0
                || c.bits == 0
                || c.bits > 32
                || [c.enable_bit, c.reload_bit, c.status_bit]
                    .iter()
                    .any(|&b| b > 31)
                || c.divider_bits == 0
                || c.divider_shift + c.divider_bits > 32
                || c.divider_base == 0
            {
                return Err(at(
                    "countdown: hz above 0, bits 1-32, bit numbers 0-31, a divider field inside 32 bits and divider_base above 0".into(),
                ));
            }
            RegisterKind::Countdown(CountdownSpec {
                hz: c.hz,
                bits: c.bits,
                load: index_of(&c.load, "countdown.load").map_err(at)?,
                control: index_of(&c.control, "countdown.control").map_err(at)?,
                enable_bit: c.enable_bit,
                reload_bit: c.reload_bit,
                divider_shift: c.divider_shift,
                divider_bits: c.divider_bits,
                divider_base: c.divider_base,
                status_bit: c.status_bit,
                clear: index_of(&c.clear, "countdown.clear").map_err(at)?,
            })
        } else if let Some(l) = &r.latch {
            let config = match &l.config {
                Some(c)
                    if c.enable_bit > 31
                        || c.divider_bits == 0
                        || c.divider_shift + c.divider_bits > 32 =>
                {
                    return Err(at(
                        "latch.config: enable_bit 0-31 and a divider field inside 32 bits".into(),
                    ));
                }
                Some(c) => Some(TimerConfig {
                    register: index_of(&c.register, "latch.config.register").map_err(at)?,
                    enable_bit: c.enable_bit,
                    divider_shift: c.divider_shift,
                    divider_bits: c.divider_bits,
                }),
                None => None,
            };
            RegisterKind::Latch {
                on: index_of(&l.on, "latch.on").map_err(at)?,
                mask: l.mask,
                counter: counter(l.hz, l.shift, l.bits).map_err(at)?,
                config,
            }
        } else {
            RegisterKind::Plain
        };
        let mut follows = Vec::new();
        for f in &r.follow {
            if !(-31..=31).contains(&f.shift) {
                return Err(at(format!("follow shift {} must be -31..31", f.shift)));
            }
            follows.push(Follow {
                from: index_of(&f.from, "follow.from").map_err(at)?,
                mask: f.mask,
                shift: f.shift,
                invert: f.invert,
                delay_cycles: f.delay_cycles,
                delay_ns: delay_ns(f.delay_us).map_err(at)?,
                delay_count: delay_count(&f.delay_count).map_err(at)?,
            });
        }
        let mut triggers = Vec::new();
        for (list, clear) in [(&r.set, false), (&r.clear, true)] {
            for t in list {
                triggers.push(Trigger {
                    on: index_of(&t.on, if clear { "clear.on" } else { "set.on" }).map_err(at)?,
                    mask: t.mask,
                    bits: t.bits,
                    delay_cycles: t.delay_cycles,
                    delay_ns: delay_ns(t.delay_us).map_err(at)?,
                    delay_count: delay_count(&t.delay_count).map_err(at)?,
                    clear,
                });
            }
        }
        let writes_into = match (&r.sets, &r.clears) {
            (Some(t), _) => Some((index_of(t, "sets").map_err(at)?, true)),
            (_, Some(t)) => Some((index_of(t, "clears").map_err(at)?, false)),
            _ => None,
        };
        let mut interrupts = Vec::new();
        for i in &r.interrupt {
            if i.mask == 0 {
                return Err(at(format!(
                    "interrupt source {}: mask must name at least one bit",
                    i.source
                )));
            }
            let enable = match &i.enable {
                Some(e) => Some(index_of(e, "interrupt.enable").map_err(at)?),
                None => None,
            };
            interrupts.push(InterruptSource {
                source: i.source,
                mask: i.mask,
                enable,
            });
        }
        let timer = match &r.timer {
            None => None,
            Some(t) => {
                let field = |name: &str, what: &str| index_of(name, what).map_err(at);
                if t.alarm_bit > 31 || t.reload_bit > 31 || t.status_bit > 31 {
                    return Err(at(
                        "timer: alarm_bit, reload_bit and status_bit must be 0-31".into(),
                    ));
                }
                Some(TimerAlarmSpec {
                    load: field(&t.load, "timer.load")?,
                    load_lo: field(&t.load_lo, "timer.load_lo")?,
                    load_hi: field(&t.load_hi, "timer.load_hi")?,
                    alarm_lo: field(&t.alarm_lo, "timer.alarm_lo")?,
                    alarm_hi: field(&t.alarm_hi, "timer.alarm_hi")?,
                    alarm_bit: t.alarm_bit,
                    reload_bit: t.reload_bit,
                    status: field(&t.status, "timer.status")?,
                    status_bit: t.status_bit,
                })
            }
        };
        let watchdog = match &r.watchdog {
            None => None,
            Some(d) => {
                let field = |name: &str, what: &str| index_of(name, what).map_err(at);
                let stages = d.holds.len() as u32;
                if d.hz == 0
                    || stages == 0
                    || d.enable_bit > 31
                    || d.status_bit > 31
                    || d.stage_bits == 0
                    || d.stage_bits > 8
                    || d.stage_shift + d.stage_bits > 32
                    || (stages - 1) * d.stage_bits > d.stage_shift
                    || d.actions.len() > 1 << d.stage_bits
                    || d.prescale
                        .as_ref()
                        .is_some_and(|p| p.bits == 0 || p.shift + p.bits > 32)
                {
                    return Err(at(
                        "watchdog: hz above 0, at least one hold, bits 0-31, each stage's field inside the register, at most 2^stage_bits actions, the prescale field inside its register".into(),
                    ));
                }
                let holds = d
                    .holds
                    .iter()
                    .map(|h| field(h, "watchdog.holds"))
                    .collect::<Result<Vec<_>, _>>()?;
                Some(WatchdogSpec {
                    hz: d.hz,
                    prescale: match &d.prescale {
                        Some(p) => {
                            Some((field(&p.register, "watchdog.prescale")?, p.shift, p.bits))
                        }
                        None => None,
                    },
                    holds,
                    enable_bit: d.enable_bit,
                    stage_shift: d.stage_shift,
                    stage_bits: d.stage_bits,
                    actions: d.actions.clone(),
                    feed: field(&d.feed, "watchdog.feed")?,
                    protect: match &d.protect {
                        Some(p) => Some((field(p, "watchdog.protect")?, d.key)),
                        None => None,
                    },
                    status: (field(&d.status, "watchdog.status")?, d.status_bit),
                })
            }
        };
        registers.push(RegisterSpec {
            name: r.name.clone(),
            offset: r.offset,
            reset: r.reset,
            read_only: r.read_only,
            w1c: r.w1c,
            w0c: r.w0c,
            self_clear: r.self_clear,
            kind,
            follows,
            triggers,
            writes_into,
            record: r.record,
            interrupts,
            resets: r.resets,
            timer,
            watchdog,
        });
    }
    let counted = |i: usize| {
        registers.iter().any(
            |r| matches!(&r.kind, RegisterKind::Latch { config: Some(c), .. } if c.register == i),
        )
    };
    if let Some(r) = (0..registers.len()).find(|&i| registers[i].timer.is_some() && !counted(i)) {
        return Err(format!(
            "register `{}`: a timer's load and alarm need a latch whose config is this register",
            registers[r].name
        ));
    }
    let spi = match &b.spi {
        None => None,
        Some(c) => {
            let at = |m: String| format!("spi: {m}");
            let data = index_of(&c.data, "spi.data").map_err(at)?;
            let end = registers[data].offset as u64 + 4 * c.data_words as u64;
            if c.data_words == 0 || end > size.0 {
                return Err(at(format!(
                    "data_words {} must be above 0 and the buffer inside the block",
                    c.data_words
                )));
            }
            if c.start_mask == 0 {
                return Err(at("start_mask must name at least one bit".into()));
            }
            let devices = c
                .devices
                .iter()
                .map(|d| {
                    if d.chip_select > 31 {
                        return Err(at(format!(
                            "device `{}`: chip_select {} must be 0-31",
                            d.name, d.chip_select
                        )));
                    }
                    if !matches!(d.command_bits, 8 | 16) {
                        return Err(at(format!(
                            "device `{}`: command_bits {} must be 8 or 16",
                            d.name, d.command_bits
                        )));
                    }
                    let mode_registers = match &d.mode_registers {
                        Some(m) if m.reset.len() != m.writable.len() => {
                            return Err(at(format!(
                            "device `{}`: mode_registers needs one writable mask per reset value",
                            d.name
                        )))
                        }
                        Some(m) => Some(ModeRegistersSpec {
                            read: m.read,
                            write: m.write,
                            reset: m.reset.clone(),
                            writable: m.writable.clone(),
                        }),
                        None => None,
                    };
                    Ok(SpiDeviceSpec {
                        name: d.name.clone(),
                        chip_select: d.chip_select,
                        psram_mode: d.psram_mode.clone(),
                        idle_byte: d.idle_byte,
                        answers: d
                            .answers
                            .iter()
                            .map(|a| (a.command, a.data.clone()))
                            .collect(),
                        command_bits: d.command_bits,
                        mode_registers,
                        array: d.array.as_ref().map(|a| (a.read, a.write)),
                        flash_reads: d.flash_reads.clone(),
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            Some(SpiControllerSpec {
                start: index_of(&c.start, "spi.start").map_err(at)?,
                start_mask: c.start_mask,
                user: index_of(&c.user, "spi.user").map_err(at)?,
                command: index_of(&c.command, "spi.command").map_err(at)?,
                address: index_of(&c.address, "spi.address").map_err(at)?,
                miso_bits: index_of(&c.miso_bits, "spi.miso_bits").map_err(at)?,
                mosi_bits: match &c.mosi_bits {
                    Some(name) => Some(index_of(name, "spi.mosi_bits").map_err(at)?),
                    None => None,
                },
                data,
                data_words: c.data_words,
                chip_select: index_of(&c.chip_select, "spi.chip_select").map_err(at)?,
                devices,
                psram_mode: None,
            })
        }
    };
    let interrupt_matrix = match &b.interrupt_matrix {
        None => None,
        Some(m) => {
            let at = |m: String| format!("interrupt_matrix: {m}");
            if m.sources == 0 || m.maps.is_empty() {
                return Err(at(
                    "sources must be above 0 and maps name at least one CPU".into()
                ));
            }
            if let Some(off) = m
                .maps
                .iter()
                .find(|&&o| o % 4 != 0 || o as u64 + 4 * m.sources as u64 > size.0)
            {
                return Err(at(format!(
                    "map offset 0x{off:x} must be word-aligned with its {} map registers inside the block",
                    m.sources
                )));
            }
            if let Some(n) = m.internal.iter().find(|&&n| n > 31) {
                return Err(at(format!("internal interrupt {n} must be 0-31")));
            }
            Some(InterruptMatrixSpec {
                sources: m.sources,
                maps: m.maps.clone(),
                internal: m.internal.iter().fold(0, |acc, n| acc | 1 << n),
            })
        }
    };
    let sha = match &b.sha {
        None => None,
        Some(s) => {
            Some(build_sha(s, &registers, size.0, index_of).map_err(|m| format!("sha: {m}"))?)
        }
    };
    Ok(PeripheralSpec {
        name: b.name.clone(),
        base: b.base,
        size: size.0 as u32,
        source: source.clone(),
        registers,
        spi,
        interrupt_matrix,
        sha,
        aliases: b.aliases.clone(),
        atomic: b.atomic,
        cpu_clock: None,
    })
}

/// Resolve a hash accelerator's registers (`index_of` finds them among `registers`) and check
/// that the message and hash words its algorithms use lie inside the block of `size` bytes.
fn build_sha(
    s: &ShaFile,
    registers: &[RegisterSpec],
    size: u64,
    index_of: impl Fn(&str, &str) -> Result<usize, String>,
) -> Result<ShaSpec, String> {
    let mut engines = Vec::new();
    for e in &s.engines {
        if e.algorithms.is_empty() {
            return Err(format!(
                "engine `{}`: algorithms must name at least one",
                e.start
            ));
        }
        if e.load.is_some() == s.hash.is_some() {
            return Err(format!(
                "engine `{}`: needs a load register exactly when the block has no `hash` registers (the state is read through the message words)",
                e.start
            ));
        }
        engines.push(ShaEngineSpec {
            start: index_of(&e.start, "sha.start")?,
            continue_block: index_of(&e.continue_block, "sha.continue")?,
            load: e
                .load
                .as_deref()
                .map(|l| index_of(l, "sha.load"))
                .transpose()?,
            busy: index_of(&e.busy, "sha.busy")?,
            mode: e
                .mode
                .as_deref()
                .map(|m| index_of(m, "sha.mode"))
                .transpose()?,
            algorithms: e.algorithms.clone(),
        });
    }
    if engines.is_empty() {
        return Err("engines must name at least one".into());
    }
    let largest = |bytes: fn(ShaAlgorithm) -> usize| {
        let all = engines.iter().flat_map(|e| &e.algorithms);
        all.map(|&a| bytes(a) as u64).max().unwrap_or(0)
    };
    let message = index_of(&s.message, "sha.message")?;
    let hash = s
        .hash
        .as_deref()
        .map(|h| index_of(h, "sha.hash"))
        .transpose()?;
    // A state is never longer than a block, so the message words can hold a loaded one too.
    let words = [
        (Some(message), largest(ShaAlgorithm::block_bytes)),
        (hash, largest(ShaAlgorithm::state_bytes)),
    ];
    for (r, bytes) in words {
        if let Some(r) = r.filter(|&r| registers[r].offset as u64 + bytes > size) {
            return Err(format!(
                "register `{}`: its {bytes} bytes must lie inside the block",
                registers[r].name
            ));
        }
    }
    Ok(ShaSpec {
        message,
        hash,
        byte_order: s.byte_order,
        block_cycles: s.block_cycles,
        load_cycles: s.load_cycles,
        engines,
    })
}

/// Parse a chip peripheral file; `origin` names it in errors. Its blocks may derive from the
/// blocks of the files the board lists before it (`earlier`).
pub fn parse_peripherals(
    text: &str,
    origin: &str,
    earlier: &[PeripheralSpec],
) -> Result<Vec<PeripheralSpec>, BoardError> {
    let file: ChipFile = toml::from_str(text).map_err(|e| BoardError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let mut blocks: Vec<(usize, PeripheralSpec)> = Vec::new();
    for spanned in &file.blocks {
        let line = line_of(text, spanned.span().start);
        let invalid = |message: String| BoardError::Invalid {
            origin: origin.to_string(),
            line,
            message,
        };
        let file_block = spanned.get_ref();
        let b = match &file_block.derived_from {
            // `CHIP:BLOCK`: a block of another built-in chip file, the same IP at another base.
            Some(from) if from.contains(':') => {
                let (chip, block) = from.split_once(':').unwrap_or_default();
                match builtin_peripheral_text(chip) {
                    Some(text) => parse_peripherals(text, chip, &[]).map_err(|e| e.to_string()),
                    None => Err(format!(
                        "derived_from names chip file `{chip}`, which is not built in (built in: {})",
                        builtin_peripheral_files().join(", ")
                    )),
                }
                .and_then(|specs| derive_block(file_block, block, &specs.iter().collect::<Vec<_>>()))
            }
            Some(from) => {
                let known: Vec<&PeripheralSpec> =
                    earlier.iter().chain(blocks.iter().map(|(_, b)| b)).collect();
                derive_block(file_block, from, &known)
            }
            None => build_block(file_block),
        }
        .map_err(|m| invalid(format!("block `{}`: {m}", file_block.name)))?;
        for (other_line, o) in &blocks {
            if o.name == b.name {
                return Err(invalid(format!(
                    "block name `{}` also used at line {other_line}",
                    b.name
                )));
            }
            let overlap = b.windows().any(|x| {
                o.windows().any(|y| {
                    (x as u64) < y as u64 + o.size as u64 && (y as u64) < x as u64 + b.size as u64
                })
            });
            if overlap {
                return Err(invalid(format!(
                    "block `{}` overlaps block `{}` (line {other_line}), at its base, an alias or an atomic window",
                    b.name, o.name
                )));
            }
        }
        blocks.push((line, b));
    }
    check_interrupt_sources(&blocks).map_err(|(line, message)| BoardError::Invalid {
        origin: origin.to_string(),
        line,
        message,
    })?;
    let mut out: Vec<PeripheralSpec> = blocks.into_iter().map(|(_, b)| b).collect();
    out.sort_by_key(|b| b.base);
    if let Some(c) = &file.cpu_clock {
        let (block, spec) =
            build_cpu_clock(c.get_ref(), &out).map_err(|message| BoardError::Invalid {
                origin: origin.to_string(),
                line: line_of(text, c.span().start),
                message: format!("cpu_clock: {message}"),
            })?;
        out[block].cpu_clock = Some(spec);
    }
    Ok(out)
}

/// Registers that drive interrupt sources need the file's one interrupt matrix, and their sources
/// must be among its sources. Errors carry the line of the block at fault.
fn check_interrupt_sources(blocks: &[(usize, PeripheralSpec)]) -> Result<(), (usize, String)> {
    let matrices: Vec<&(usize, PeripheralSpec)> = blocks
        .iter()
        .filter(|(_, b)| b.interrupt_matrix.is_some())
        .collect();
    if let [_, (line, second), ..] = matrices.as_slice() {
        return Err((
            *line,
            format!(
                "block `{}`: a second interrupt matrix (one per chip, in block `{}`)",
                second.name, matrices[0].1.name
            ),
        ));
    }
    let sources = matrices
        .first()
        .and_then(|(_, b)| b.interrupt_matrix.as_ref())
        .map(|m| m.sources);
    for (line, b) in blocks {
        for r in &b.registers {
            for i in &r.interrupts {
                let fault = match sources {
                    None => "but the file has no interrupt matrix to route it".to_string(),
                    Some(n) if i.source >= n => format!("but the interrupt matrix has {n} sources"),
                    Some(_) => continue,
                };
                return Err((
                    *line,
                    format!(
                        "block `{}`: register `{}` drives interrupt source {}, {fault}",
                        b.name, r.name, i.source
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The blocks of a built-in chip file by name, or of a file at a path (after the `earlier` files'
/// blocks, which its blocks may derive from).
pub fn load_peripherals(
    name_or_path: &str,
    earlier: &[PeripheralSpec],
) -> Result<Vec<PeripheralSpec>, BoardError> {
    if let Some(text) = builtin_peripheral_text(name_or_path) {
        return parse_peripherals(
            text,
            &format!("built-in peripherals `{name_or_path}`"),
            earlier,
        );
    }
    let text = std::fs::read_to_string(name_or_path).map_err(|_| BoardError::Unknown {
        name: format!("peripherals `{name_or_path}`"),
        known: builtin_peripheral_files().join(", "),
        suggestion: crate::did_you_mean(name_or_path, &builtin_peripheral_files()),
    })?;
    parse_peripherals(&text, name_or_path, earlier)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU clock's fields resolve to register addresses; a bad register or table is refused.
    #[test]
    fn cpu_clock_fields_resolve_and_bad_ones_are_named() {
        let file = |sources: &str| {
            format!(
                "chip = \"t\"\n[cpu_clock]\nselect = {{ register = \"SYS.CLK\", shift = 10, bits = 2 }}\nsources = [{sources}]\n\
                 [[block]]\nname = \"SYS\"\nbase = 0x100\nsize = 16\nsource = \"t\"\n\
                 registers = [{{ name = \"CLK\", offset = 4 }}, {{ name = \"PER\", offset = 8 }}]\n"
            )
        };
        let ok = "{ select = 1, hz = [80, 160], by = { register = \"SYS.PER\", shift = 0, bits = 1 } }, { select = 0, hz = [40], divider = { register = \"SYS.CLK\", shift = 0, bits = 4 } }";
        let blocks = parse_peripherals(&file(ok), "t.toml", &[]).unwrap();
        let c = blocks[0].cpu_clock.as_ref().unwrap();
        assert_eq!(
            (c.select.addr, c.sources[0].by.unwrap().addr),
            (0x104, 0x108)
        );
        let words = |clk: u32, per: u32| move |a: u32| if a == 0x104 { clk } else { per };
        assert_eq!(c.hz(words(0x400, 1)), Some(160));
        assert_eq!(c.hz(words(0x003, 0)), Some(10));
        assert_eq!(c.settings_for(20).unwrap().last().map(|s| s.1), Some(1));
        assert!(c.settings_for(30).is_none());
        let e = parse_peripherals(&file(&ok.replace("SYS.PER", "SYS.PRE")), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cpu_clock: no register `SYS.PRE`"), "{e}");
        let e = parse_peripherals(&file(&ok.replace("[80, 160]", "[80]")), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("hz needs 2 entries"), "{e}");
    }

    /// A hash accelerator's registers resolve; an engine without a way to read its state, or a
    /// message buffer that overruns the block, is refused.
    #[test]
    fn sha_blocks_resolve_and_bad_ones_are_named() {
        let file = |size: u32, engine: &str| {
            format!(
                "chip = \"t\"\n[[block]]\nname = \"SHA\"\nbase = 0x100\nsize = {size}\nsource = \"t\"\n\
                 registers = [{{ name = \"GO\", offset = 0 }}, {{ name = \"MORE\", offset = 4 }}, {{ name = \"LOAD\", offset = 8 }}, {{ name = \"BUSY\", offset = 12 }}, {{ name = \"TEXT\", offset = 16 }}]\n\
                 [block.sha]\nmessage = \"TEXT\"\nbyte_order = \"big\"\nblock_cycles = 9\n\
                 engines = [{{ start = \"GO\", continue = \"MORE\", busy = \"BUSY\", {engine} }}]\n"
            )
        };
        let ok = "load = \"LOAD\", algorithms = [\"sha256\", \"sha512/224\"]";
        let sha = parse_peripherals(&file(144, ok), "t.toml", &[]).unwrap()[0]
            .sha
            .clone()
            .unwrap();
        assert_eq!((sha.message, sha.hash, sha.block_cycles), (4, None, 9));
        let e = &sha.engines[0];
        assert_eq!(
            (e.start, e.continue_block, e.load, e.busy),
            (0, 1, Some(2), 3)
        );
        assert_eq!(
            e.algorithms,
            [ShaAlgorithm::Sha256, ShaAlgorithm::Sha512_224]
        );
        let e = parse_peripherals(&file(140, ok), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("sha: register `TEXT`: its 128 bytes"), "{e}");
        let e = parse_peripherals(&file(144, "algorithms = [\"sha1\"]"), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a load register"), "{e}");
    }

    /// Every built-in file parses, after the files a board lists before it (whose blocks it may
    /// derive from), and each is some built-in board's.
    #[test]
    fn builtin_files_parse() {
        let mut used = std::collections::BTreeSet::new();
        for board in crate::builtin_names() {
            let (_, text) = crate::BUILTIN.iter().find(|(n, _)| *n == board).unwrap();
            let value = toml::from_str::<toml::Value>(text).unwrap();
            let listed: Vec<String> = value
                .get("peripherals")
                .and_then(|p| p.as_array())
                .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            let mut earlier = Vec::new();
            for name in listed {
                let blocks =
                    load_peripherals(&name, &earlier).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(!blocks.is_empty(), "{name}");
                earlier.extend(blocks);
                used.insert(name);
            }
        }
        for name in builtin_peripheral_files() {
            assert!(used.contains(name), "no built-in board lists {name}");
        }
    }

    const ONE: &str = "chip = \"t\"\n[[block]]\nname = \"RCC\"\nbase = 0x40023800\nsize = \"1K\"\nsource = \"RM0090 §7.3\"\n\
        registers = [\n  { name = \"CR\", offset = 0, reset = 0x83, read_only = 0x20000 },\n  \
        { name = \"SR\", offset = 4, follow = [{ from = \"CR\", mask = 0x10000, shift = 1, delay_cycles = 10 }] },\n]\n";

    #[test]
    fn registers_and_behaviours_parse() {
        let b = &parse_peripherals(ONE, "t.toml", &[]).unwrap()[0];
        assert_eq!(
            (b.name.as_str(), b.base, b.size),
            ("RCC", 0x4002_3800, 1024)
        );
        assert_eq!(
            b.registers[1].follows,
            vec![Follow {
                from: 0,
                mask: 0x10000,
                shift: 1,
                invert: false,
                delay_cycles: 10,
                delay_ns: 0,
                delay_count: None,
            }]
        );
        assert_eq!(b.register_at(5).map(|r| r.name.as_str()), Some("SR"));
    }

    #[test]
    fn bad_references_and_offsets_are_named() {
        let e = parse_peripherals(
            &ONE.replace("from = \"CR\"", "from = \"CX\""),
            "t.toml",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("line 2") && e.contains("`CX`") && e.contains("CR, SR"),
            "{e}"
        );
        let e = parse_peripherals(&ONE.replace("offset = 4", "offset = 6"), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("register `SR`: offset 0x6 must be word-aligned"),
            "{e}"
        );
        let e = parse_peripherals(&ONE.replace("offset = 4", "offset = 0"), "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("also register `CR`"), "{e}");
        let twice = format!(
            "{ONE}{}",
            &ONE[ONE.find("[[block]]").unwrap()..].replace("RCC", "RCC2")
        );
        let e = parse_peripherals(&twice, "t.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("overlaps block `RCC`"), "{e}");
    }
}
