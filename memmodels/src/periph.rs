//! The peripheral register engine: runs the blocks of `tigris_targets::periph` (registers with reset
//! values and write masks, and the behaviour vocabulary described there) for any core. A core hands
//! it the data accesses that fall in a block, with the current cycle count; the engine answers
//! reads, applies writes, schedules delayed effects, collects console bytes and watches for polls
//! that make no progress.
//!
//! Time: counters tick at their own rate derived from the core clock (`ticks = cycles × hz /
//! clock_hz`), so firmware that times itself by a peripheral timer agrees with the simulated time.

use crate::sha::ShaStates;
use tigris_targets::periph::{
    AlarmSpec, CountdownSpec, CpuClockSpec, DelayCount, FieldSpec, InterruptMatrixSpec,
    PeripheralSpec, RegisterKind, SpiDeviceSpec, TimerAlarmSpec, TimerConfig, WatchdogAction,
    WatchdogSpec,
};

/// Reads of one address that return the same value, with no peripheral write in between, after
/// which the firmware is taken to poll without progress.
pub const POLL_LIMIT: u32 = 200_000;

/// A firmware that keeps reading one peripheral address and sees no change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poll {
    pub addr: u32,
    pub value: u32,
    /// `BLOCK.REGISTER`, or `BLOCK+0xOFFSET` for an address no register names.
    pub register: String,
}

/// An effect due at a cycle: bits of a register set or cleared.
#[derive(Debug, Clone, Copy)]
struct Pending {
    due: u64,
    block: usize,
    word: usize,
    set: u32,
    clear: u32,
}

/// What a write to a register sets off elsewhere in its block (precomputed from the specs).
#[derive(Debug, Clone, Copy)]
enum Effect {
    /// `target` gets `(value & mask)` shifted by `shift` at `mask << shift`, `delay` cycles
    /// (and what `count` counts from the value) later.
    Follow {
        target: usize,
        mask: u32,
        shift: i32,
        invert: bool,
        delay: u64,
        count: Option<DelayCount>,
    },
    /// A write with a bit of `mask` set sets (or clears) `bits` in `target`.
    Trigger {
        target: usize,
        mask: u32,
        bits: u32,
        delay: u64,
        count: Option<DelayCount>,
        clear: bool,
    },
    /// A write with a bit of `mask` set latches the counter into `target`.
    Latch { target: usize, mask: u32 },
}

/// A counter behind a config register: ticks counted up to `since`, and the divider since then.
#[derive(Debug, Clone, Copy)]
struct Timer {
    config: TimerConfig,
    config_word: usize,
    /// Its load and alarm, when the config register has them.
    alarm: Option<TimerAlarmSpec>,
    hz: u64,
    ticks: u64,
    since: u64,
    divider: Option<u64>,
}

/// A down-counter's run: counting from `load` since cycle `since`; `cleared` expiries were
/// acknowledged (the status bit shows whether more have happened).
#[derive(Debug, Clone, Copy)]
struct Countdown {
    spec: CountdownSpec,
    word: usize,
    load: u64,
    since: u64,
    cleared: u64,
    /// Expiries of the earlier runs (before the last restart), for the report.
    earlier: u64,
    /// The latest run's expiries and period in core cycles, as last brought up to date.
    expiries: u64,
    period_cycles: u64,
}

/// A comparator (`AlarmSpec`): what its last load took in (the counter then, the target and the
/// period, in ticks), and when it fires next (`None`: not armed, or a one-shot alarm spent).
#[derive(Debug, Clone, Copy)]
struct Alarm {
    spec: AlarmSpec,
    config: usize,
    loaded: Option<AlarmLoad>,
    next: Option<u64>,
}

/// A watchdog's state: the stage it is in and when that stage began (time-base cycles).
#[derive(Debug, Clone)]
struct Watchdog {
    spec: WatchdogSpec,
    config: usize,
    stage: usize,
    since: u64,
    /// When the stage ends, if the watchdog runs (kept up to date on every change).
    due: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
struct AlarmLoad {
    at: u64,
    target: u64,
    period: u64,
    periodic: bool,
}

/// Changes of a recorded register: how many, the first ones (cycle, value) and the last.
#[derive(Debug, Clone, Default)]
struct Record {
    changes: u64,
    first: Vec<(u64, u32)>,
    last: (u64, u32),
}

/// Changes of a recorded register kept in full for the report; later ones are only counted.
const RECORD_KEPT: usize = 64;

/// What `make` builds from each register (by index and kind) that it accepts.
fn of_kind<T>(spec: &PeripheralSpec, make: impl Fn(usize, &RegisterKind) -> Option<T>) -> Vec<T> {
    spec.registers
        .iter()
        .enumerate()
        .filter_map(|(i, r)| make(i, &r.kind))
        .collect()
}

struct Block {
    spec: PeripheralSpec,
    /// The block's watchdog timers, by the register that configures each.
    watchdogs: Vec<Watchdog>,
    countdowns: Vec<Countdown>,
    alarms: Vec<Alarm>,
    /// Per register index: its record, if the register is recorded.
    records: Vec<Option<Record>>,
    /// Counters with a config register, by the index of the first latch register naming them.
    timers: Vec<(usize, Timer)>,
    /// Value of every word of the block.
    words: Vec<u32>,
    /// Index in `spec.registers` of the register at each word, if any.
    register_of_word: Vec<Option<u16>>,
    /// Effects of a write to each register (by index in `spec.registers`).
    effects: Vec<Vec<Effect>>,
    /// The state of each chip on the block's SPI bus (by index in `spi.devices`).
    chips: Vec<Chip>,
    /// The inner state of its hash engines, if the block is a hash accelerator.
    sha: ShaStates,
}

/// What an SPI chip holds: its mode registers and the bytes user transactions wrote to its array.
#[derive(Debug, Clone, Default)]
struct Chip {
    mode_registers: Vec<u8>,
    /// The array as far as SPI transactions wrote it. ASSUMPTION: the cache's own path to the
    /// memory is not this one (ESP-IDF writes only its connection-check word this way).
    array: std::collections::BTreeMap<u32, u8>,
}

/// How the reason of a watchdog's reset starts (`reset_requested`), telling it from a software
/// reset, whose reason is the register written: the report's convention (`tigris_traces::
/// WATCHDOG_RESET`, checked equal in the simulator's tests).
pub const WATCHDOG_RESET: &str = "watchdog ";

impl Watchdog {
    /// Whether a write to register `r` is ignored: the register is one of the watchdog's and its
    /// write protection is on.
    fn locks(&self, r: usize, words: &[u32], spec: &PeripheralSpec) -> bool {
        let Some((protect, key)) = self.spec.protect else {
            return false;
        };
        self.owns(r) && words[(spec.registers[protect].offset / 4) as usize] != key
    }

    /// Whether register `r` is one of the watchdog's (its write protection guards them).
    fn owns(&self, r: usize) -> bool {
        r == self.config
            || r == self.spec.feed
            || self.spec.holds.contains(&r)
            || self.spec.prescale.is_some_and(|(p, _, _)| p == r)
    }
}

impl Block {
    /// The index in `words` of register `r` (an index in `spec.registers`).
    fn word_of(&self, r: usize) -> usize {
        (self.spec.registers[r].offset / 4) as usize
    }

    /// The stored value of register `r`.
    fn value_of(&self, r: usize) -> u32 {
        self.words[self.word_of(r)]
    }

    fn new(spec: PeripheralSpec, clock_hz: u64) -> Block {
        let ns = |ns: u64| ns_to_cycles(ns, clock_hz);
        let n = (spec.size as usize).div_ceil(4);
        let mut words = vec![0u32; n];
        let mut register_of_word = vec![None; n];
        let mut effects = vec![Vec::new(); spec.registers.len()];
        for (i, r) in spec.registers.iter().enumerate() {
            let w = (r.offset / 4) as usize;
            words[w] = r.reset;
            register_of_word[w] = Some(i as u16);
            for f in &r.follows {
                effects[f.from].push(Effect::Follow {
                    target: w,
                    mask: f.mask,
                    shift: f.shift,
                    invert: f.invert,
                    delay: f.delay_cycles + ns(f.delay_ns),
                    count: f.delay_count,
                });
            }
            for t in &r.triggers {
                effects[t.on].push(Effect::Trigger {
                    target: w,
                    mask: t.mask,
                    bits: t.bits,
                    delay: t.delay_cycles + ns(t.delay_ns),
                    count: t.delay_count,
                    clear: t.clear,
                });
            }
            if let RegisterKind::Latch { on, mask, .. } = r.kind {
                effects[on].push(Effect::Latch { target: w, mask });
            }
        }
        let mut timers: Vec<(usize, Timer)> = Vec::new();
        for r in &spec.registers {
            if let RegisterKind::Latch {
                counter,
                config: Some(c),
                ..
            } = &r.kind
            {
                let config_word = (spec.registers[c.register].offset / 4) as usize;
                if !timers.iter().any(|(_, t)| t.config_word == config_word) {
                    let divider = c.divider(words[config_word]);
                    timers.push((
                        c.register,
                        Timer {
                            config: *c,
                            config_word,
                            alarm: spec.registers[c.register].timer,
                            hz: counter.hz,
                            ticks: 0,
                            since: 0,
                            divider,
                        },
                    ));
                }
            }
        }
        let countdowns = of_kind(&spec, |i, kind| match *kind {
            RegisterKind::Countdown(c) => Some(Countdown {
                spec: c,
                word: (spec.registers[i].offset / 4) as usize,
                load: 0,
                since: 0,
                cleared: 0,
                earlier: 0,
                expiries: 0,
                period_cycles: 0,
            }),
            _ => None,
        });
        let records = spec
            .registers
            .iter()
            .map(|r| r.record.then(Record::default))
            .collect();
        let alarms = of_kind(&spec, |i, kind| match *kind {
            RegisterKind::Alarm(a) => Some(Alarm {
                spec: a,
                config: i,
                loaded: None,
                next: None,
            }),
            _ => None,
        });
        let chips = spec
            .spi
            .iter()
            .flat_map(|c| &c.devices)
            .map(|d| Chip {
                mode_registers: d
                    .mode_registers
                    .as_ref()
                    .map(|m| m.reset.clone())
                    .unwrap_or_default(),
                array: Default::default(),
            })
            .collect();
        let watchdogs = spec
            .registers
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                Some(Watchdog {
                    spec: r.watchdog.clone()?,
                    config: i,
                    stage: 0,
                    since: 0,
                    due: None,
                })
            })
            .collect();
        Block {
            watchdogs,
            sha: ShaStates::new(&spec),
            spec,
            countdowns,
            alarms,
            records,
            timers,
            words,
            register_of_word,
            effects,
            chips,
        }
    }
}

/// A register bit that asserts an interrupt source: the word's `mask` bits (gated by the same
/// bits of `enable_word`, when given).
#[derive(Debug, Clone, Copy)]
struct SourceLine {
    source: u32,
    block: usize,
    word: usize,
    mask: u32,
    enable_word: Option<usize>,
}

/// The interrupt matrix: the block of its map registers and the registers driving its sources.
struct Matrix {
    block: usize,
    spec: InterruptMatrixSpec,
    lines: Vec<SourceLine>,
}

/// `ns` nanoseconds of simulated time in cycles of a `clock_hz` clock (rounded down).
fn ns_to_cycles(ns: u64, clock_hz: u64) -> u64 {
    (ns as u128 * clock_hz as u128 / 1_000_000_000).min(u64::MAX as u128) as u64
}

/// The engine's time base: cycles of the board's core clock (`Peripherals::clock_hz`). Core cycles
/// are those until the firmware switches the CPU clock; from then on one core cycle lasts
/// `clock_hz / hz` of them.
#[derive(Debug, Clone, Copy)]
struct TimeBase {
    /// The CPU clock now.
    hz: u64,
    /// The core cycle of the last switch and the time-base cycle it happened at.
    since_core: u64,
    since: u64,
    /// Time-base cycles per core cycle, scaled by 2^16.
    ratio_q16: u64,
}

impl TimeBase {
    fn fixed(hz: u64) -> TimeBase {
        TimeBase {
            hz,
            since_core: 0,
            since: 0,
            ratio_q16: 1 << 16,
        }
    }

    /// The time-base cycle at core cycle `core` (a core a little behind the last switch, as the
    /// second core can be, is taken at the new rate).
    fn reference(&self, core: u64) -> u64 {
        let d = core as i128 - self.since_core as i128;
        (self.since as i128 + ((d * self.ratio_q16 as i128) >> 16)).max(0) as u64
    }

    /// The first core cycle at or after time-base cycle `at`.
    fn core(&self, at: u64) -> u64 {
        let d = (at as i128 - self.since as i128).max(0);
        let ratio = self.ratio_q16 as i128;
        (self.since_core as i128 + ((d << 16) + ratio - 1) / ratio) as u64
    }
}

/// The peripherals of one machine.
pub struct Peripherals {
    blocks: Vec<Block>,
    /// The blocks with alarms, timer alarms or watchdogs: those time can change (`advance_to`,
    /// `next_event`).
    timed: Vec<usize>,
    matrix: Option<Matrix>,
    /// Bumped by every change that may assert or release an interrupt source or reroute one.
    interrupt_epoch: u64,
    /// A software reset the firmware asked for: the register and the bits written.
    reset: Option<String>,
    clock_hz: u64,
    pending: Vec<Pending>,
    /// Console bytes written to `console` registers, not yet taken: those of the console device
    /// that received the most (a chip can have several, e.g. UART0 and USB-Serial-JTAG; its ROM
    /// prints the same text to all of them, the firmware's own driver to the one the user
    /// watches, which so gets more).
    pub console: Vec<u8>,
    /// Each console device's bytes so far: (block, bytes).
    console_streams: Vec<(usize, Vec<u8>)>,
    /// Bytes of the leading stream handed out in `console` so far.
    console_emitted: usize,
    /// The address last read, the value it gave and how often in a row.
    last_read: (u32, u32, u32),
    polls: Vec<Poll>,
    /// Addresses already reported as polled (each is reported once).
    reported: Vec<u32>,
    /// The PSRAM mode whose chip is on the SPI bus now.
    psram_mode: Option<String>,
    /// The mode of the PSRAM chip that took the fitted one's place (the firmware's driver spoke
    /// its protocol), not yet taken by the machine.
    psram_refit: Option<String>,
    /// The chip's CPU clock selection, if the chip file gives one.
    cpu_clock: Option<CpuClockSpec>,
    time: TimeBase,
    /// Each switch of the CPU clock: (core cycle, new clock); the last not yet taken, if any.
    clock_changes: Vec<(u64, u64)>,
    clock_change: Option<u64>,
    /// The flash image the flash chips' read commands answer from (beyond it: erased, 0xFF).
    flash: Vec<u8>,
}

fn shifted(v: u32, shift: i32) -> u32 {
    if shift >= 0 {
        v << shift
    } else {
        v >> -shift
    }
}

impl Peripherals {
    pub fn new(specs: &[PeripheralSpec], clock_hz: u64) -> Peripherals {
        let matrix = specs.iter().enumerate().find_map(|(block, s)| {
            let spec = s.interrupt_matrix.clone()?;
            let lines = specs
                .iter()
                .enumerate()
                .flat_map(|(b, s)| {
                    s.registers.iter().flat_map(move |r| {
                        r.interrupts.iter().map(move |i| SourceLine {
                            source: i.source,
                            block: b,
                            word: (r.offset / 4) as usize,
                            mask: i.mask,
                            enable_word: i.enable.map(|e| (s.registers[e].offset / 4) as usize),
                        })
                    })
                })
                .filter(|l| l.source < spec.sources)
                .collect();
            Some(Matrix { block, spec, lines })
        });
        let blocks: Vec<Block> = specs
            .iter()
            .cloned()
            .map(|s| Block::new(s, clock_hz))
            .collect();
        let timed = (0..blocks.len())
            .filter(|&b| {
                let block = &blocks[b];
                !block.watchdogs.is_empty()
                    || !block.alarms.is_empty()
                    || block.timers.iter().any(|(_, t)| t.alarm.is_some())
            })
            .collect();
        let mut p = Peripherals {
            blocks,
            timed,
            matrix,
            interrupt_epoch: 0,
            reset: None,
            clock_hz: clock_hz.max(1),
            pending: Vec::new(),
            console: Vec::new(),
            console_streams: Vec::new(),
            console_emitted: 0,
            last_read: (u32::MAX, 0, 0),
            polls: Vec::new(),
            reported: Vec::new(),
            psram_mode: specs
                .iter()
                .find_map(|s| s.spi.as_ref().and_then(|c| c.psram_mode.clone())),
            psram_refit: None,
            cpu_clock: None,
            time: TimeBase::fixed(clock_hz.max(1)),
            clock_changes: Vec::new(),
            clock_change: None,
            flash: Vec::new(),
        };
        p.start_cpu_clock(specs);
        for b in 0..p.blocks.len() {
            for i in 0..p.blocks[b].watchdogs.len() {
                p.rearm_watchdog(b, i);
            }
        }
        p
    }

    /// Set the clock-select fields to give the board's clock, as a boot loader leaves them (the
    /// first source of the chip file that can).
    fn start_cpu_clock(&mut self, specs: &[PeripheralSpec]) {
        self.cpu_clock = specs.iter().find_map(|s| s.cpu_clock.clone());
        let settings = self
            .cpu_clock
            .as_ref()
            .and_then(|c| c.settings_for(self.clock_hz));
        for (field, value) in settings.into_iter().flatten() {
            self.set_field(field, |_| value);
        }
    }

    /// Set `field` (of a block's register) to `value(the register's reset value)`.
    fn set_field(&mut self, field: FieldSpec, value: impl FnOnce(u32) -> u32) {
        let Some(b) = self.block_of(field.addr) else {
            return;
        };
        let block = &mut self.blocks[b];
        let w = ((field.addr - block.spec.base) / 4) as usize;
        let reset = block.register_of_word[w].map_or(0, |r| block.spec.registers[r as usize].reset);
        block.words[w] = field.put(block.words[w], value(reset));
    }

    /// After a write to a clock-select register at core cycle `now`: when the fields select
    /// another CPU clock, time runs at that clock's rate from `now` on.
    fn follow_cpu_clock(&mut self, now: u64) {
        let Some(c) = &self.cpu_clock else {
            return;
        };
        let Some(hz) = c.hz(|addr| self.peek(addr).unwrap_or(0)) else {
            return;
        };
        if hz == self.time.hz {
            return;
        }
        self.time = TimeBase {
            hz,
            since_core: now,
            since: self.time.reference(now),
            ratio_q16: ((self.clock_hz as u128) << 16).div_ceil(hz as u128) as u64,
        };
        self.clock_changes.push((now, hz));
        self.clock_change = Some(hz);
    }

    /// A CPU clock the firmware switched to since the last call: the machine prices memory in
    /// core cycles of that clock from now on.
    /// Put `image` (from flash offset 0) on the flash chips of the SPI buses.
    pub fn attach_flash(&mut self, image: &[u8]) {
        self.flash = image.to_vec();
    }

    /// Start from power-on instead of from a boot loader's hand-over: the clock-select fields at
    /// their registers' reset values, so the chip runs at its reset clock (taken as a clock change
    /// at cycle 0).
    pub fn power_on(&mut self) {
        let Some(c) = self.cpu_clock.clone() else {
            return;
        };
        for field in c.fields() {
            self.set_field(field, |reset| field.get(reset));
        }
        self.follow_cpu_clock(0);
    }

    pub fn take_clock_change(&mut self) -> Option<u64> {
        self.clock_change.take()
    }

    /// Every switch of the CPU clock the firmware made: (core cycle, new clock in Hz).
    pub fn clock_changes(&self) -> &[(u64, u64)] {
        &self.clock_changes
    }

    /// A PSRAM mode the firmware's driver made the board fit since the last call (see
    /// `SpiDeviceSpec::psram_mode`): the machine prices the PSRAM in that mode from now on.
    pub fn take_psram_refit(&mut self) -> Option<String> {
        self.psram_refit.take()
    }

    /// The PSRAM mode whose chip is on the bus now.
    pub fn psram_mode(&self) -> Option<&str> {
        self.psram_mode.as_deref()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The block holding `addr`.
    fn block_of(&self, addr: u32) -> Option<usize> {
        let i = self
            .blocks
            .partition_point(|b| b.spec.base <= addr)
            .checked_sub(1)?;
        self.blocks[i].spec.contains(addr).then_some(i)
    }

    /// The address a block answers `addr` at: `addr` itself, or its place in the block an alias
    /// or an atomic window of which holds it (a read there reads the register).
    fn canonical(&self, addr: u32) -> u32 {
        if self.block_of(addr).is_some() {
            return addr;
        }
        self.blocks
            .iter()
            .find_map(|b| {
                b.spec
                    .aliases
                    .iter()
                    .find(|&&a| addr.wrapping_sub(a) < b.spec.size)
                    .map(|&a| b.spec.base + (addr - a))
                    .or_else(|| b.spec.atomic_target(addr).map(|(target, _)| target))
            })
            .unwrap_or(addr)
    }

    /// A write of the low `size` bytes of `value` through an atomic window at `addr`, if one
    /// holds it: the register's new value, written through as a whole word (write-1-to-clear
    /// bits only where written).
    fn atomic_write(&mut self, addr: u32, size: u32, value: u32, now: u64) -> Option<bool> {
        if self.block_of(addr).is_some() {
            return None;
        }
        let low = if size >= 4 {
            value
        } else {
            value & ((1u32 << (8 * size)) - 1)
        };
        let bits = low << (8 * (addr & 3));
        let (b, (target, op)) = self
            .blocks
            .iter()
            .enumerate()
            .find_map(|(i, b)| b.spec.atomic_target(addr).map(|t| (i, t)))?;
        let block = &self.blocks[b];
        let off = target - block.spec.base;
        let old = block.words[(off / 4) as usize];
        let w1c = block.spec.register_at(off).map_or(0, |r| r.w1c);
        let new = op.apply(old, bits) & !(w1c & !bits);
        Some(self.write_at(target & !3, 4, new, now))
    }

    pub fn covers(&self, addr: u32) -> bool {
        self.block_of(self.canonical(addr)).is_some()
    }

    /// Ticks of a counter of `hz` at core cycle `now`.
    fn ticks(&self, hz: u64, now: u64) -> u64 {
        ((now as u128 * hz as u128) / self.clock_hz as u128) as u64
    }

    fn apply_due(&mut self, now: u64) {
        if !self.pending.iter().any(|p| p.due <= now) {
            return;
        }
        // In the order they fall due, and those due together in the order they were scheduled:
        // a clear then a set of the same bit (a command written 0 then 1) leaves the bit set.
        let mut due: Vec<Pending> = self
            .pending
            .iter()
            .copied()
            .filter(|p| p.due <= now)
            .collect();
        due.sort_by_key(|p| p.due);
        for p in due {
            let w = &mut self.blocks[p.block].words[p.word];
            *w = (*w & !p.clear) | p.set;
            self.interrupt_epoch += 1;
        }
        self.pending.retain(|p| p.due > now);
    }

    /// The value of the word at `addr & !3`, as a read at cycle `now` sees it (a read claims a
    /// free spinlock: its word holds 1 while claimed).
    fn word_value(&mut self, b: usize, w: usize, now: u64) -> u32 {
        let block = &self.blocks[b];
        match block.register_of_word[w].map(|r| block.spec.registers[r as usize].kind.clone()) {
            Some(RegisterKind::Console) => 0,
            Some(RegisterKind::Random) => {
                // xorshift32 (Marsaglia, "Xorshift RNGs", 2003), its state the word itself.
                let word = &mut self.blocks[b].words[w];
                let mut x = (*word).max(1);
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *word = x;
                x
            }
            Some(RegisterKind::Spinlock(v)) => {
                let word = &mut self.blocks[b].words[w];
                let free = *word == 0;
                *word = 1;
                if free {
                    v
                } else {
                    0
                }
            }
            Some(RegisterKind::Counter(c)) => c.value(self.ticks(c.hz, now)),
            Some(RegisterKind::Masked { value, mask }) => {
                block.value_of(value) & block.value_of(mask)
            }
            Some(RegisterKind::OneHot { from, mask }) => {
                let source = block.value_of(from);
                1 << ((source & mask) >> mask.trailing_zeros())
            }
            Some(RegisterKind::Divide {
                dividend,
                divisor,
                signed,
                remainder,
            }) => RegisterKind::divide(
                block.value_of(dividend),
                block.value_of(divisor),
                signed,
                remainder,
            ),
            _ => block.words[w],
        }
    }

    /// Data read of `size` bytes at `addr` (inside a block) at core cycle `now`.
    pub fn read(&mut self, addr: u32, size: u32, now: u64) -> Option<u32> {
        let now = self.time.reference(now);
        self.read_at(addr, size, now)
    }

    /// `read` at `now` in cycles of the time base.
    fn read_at(&mut self, addr: u32, size: u32, now: u64) -> Option<u32> {
        let addr = self.canonical(addr);
        let b = self.block_of(addr)?;
        self.apply_due(now);
        self.advance_to(now);
        self.update_countdowns(b, now);
        let off = addr - self.blocks[b].spec.base;
        let w = (off / 4) as usize;
        let word = self.word_value(b, w, now);
        let timed = self.blocks[b].countdowns.iter().any(|c| {
            let spec = &self.blocks[b].spec;
            c.word == w || (spec.registers[c.spec.control].offset / 4) as usize == w
        });
        let v = word >> (8 * (off & 3));
        let v = if size >= 4 {
            v
        } else {
            v & ((1u32 << (8 * size)) - 1)
        };
        if timed {
            // A running timer's registers change with time: waiting on them is progress.
            self.last_read = (u32::MAX, 0, 0);
        } else {
            self.watch_poll(addr, v);
        }
        Some(v)
    }

    /// Count a read of `addr` that gave `value` towards a poll without progress (also the reads of
    /// MMIO addresses no block models, which the bus makes: polling one is as worth a warning).
    pub fn watch_poll(&mut self, addr: u32, value: u32) {
        let (a, v, n) = &mut self.last_read;
        if *a == addr && *v == value {
            *n += 1;
            if *n == POLL_LIMIT && !self.reported.contains(&addr) {
                self.reported.push(addr);
                let register = self.register_name(addr);
                self.polls.push(Poll {
                    addr,
                    value,
                    register,
                });
            }
        } else {
            self.last_read = (addr, value, 1);
        }
    }

    /// One `--trace-mmio` line on stderr: cycle, direction, size, address, register and value.
    pub fn trace(&self, now: u64, write: bool, size: u32, addr: u32, value: u32) {
        let (dir, arrow) = if write {
            ("write", "<-")
        } else {
            ("read ", "=")
        };
        eprintln!(
            "mmio {now:>12} {dir} {size} 0x{addr:08x} {:<36} {arrow} 0x{value:08x}",
            self.register_name(addr)
        );
    }

    /// `BLOCK.REGISTER` or `BLOCK+0xOFFSET` of an address in a block.
    pub fn register_name(&self, addr: u32) -> String {
        let addr = self.canonical(addr);
        match self.block_of(addr) {
            Some(b) => {
                let spec = &self.blocks[b].spec;
                let off = addr - spec.base;
                match spec.register_at(off) {
                    Some(r) => format!("{}.{}", spec.name, r.name),
                    None => format!("{}+0x{off:x}", spec.name),
                }
            }
            None => format!("0x{addr:08x}"),
        }
    }

    /// Data write of the low `size` bytes of `value` at `addr` (inside a block) at cycle `now`.
    /// Returns false when no block holds `addr`.
    pub fn write(&mut self, addr: u32, size: u32, value: u32, now: u64) -> bool {
        let reference = self.time.reference(now);
        let handled = self.write_at(addr, size, value, reference);
        let clock = self.cpu_clock.as_ref();
        if handled && clock.is_some_and(|c| c.reads(self.canonical(addr) & !3)) {
            self.follow_cpu_clock(now);
        }
        handled
    }

    /// `write` at `now` in cycles of the time base.
    fn write_at(&mut self, addr: u32, size: u32, value: u32, now: u64) -> bool {
        if let Some(handled) = self.atomic_write(addr, size, value, now) {
            return handled;
        }
        let addr = self.canonical(addr);
        let Some(b) = self.block_of(addr) else {
            return false;
        };
        self.apply_due(now);
        self.advance_to(now);
        self.last_read.2 = 0;
        self.interrupt_epoch += 1;
        let off = addr - self.blocks[b].spec.base;
        let w = (off / 4) as usize;
        let lane = 8 * (off & 3);
        let bytes: u32 = if size >= 4 {
            u32::MAX
        } else {
            ((1u32 << (8 * size)) - 1) << lane
        };
        let value = value << lane;
        let block = &mut self.blocks[b];
        let Some(r) = block.register_of_word[w] else {
            block.words[w] = (block.words[w] & !bytes) | (value & bytes);
            return true;
        };
        let r = r as usize;
        if block
            .watchdogs
            .iter()
            .any(|d| d.locks(r, &block.words, &block.spec))
        {
            // A write-protected watchdog register: the write is ignored.
            return true;
        }
        let spec = &block.spec.registers[r];
        if let RegisterKind::Spinlock(_) = spec.kind {
            block.words[w] = 0;
            return true;
        }
        let old = block.words[w];
        let resets = value & bytes & spec.resets;
        if resets != 0 && self.reset.is_none() {
            self.reset = Some(format!(
                "{}.{} (bits 0x{resets:x})",
                block.spec.name, spec.name
            ));
        }
        if spec.kind == RegisterKind::Console {
            let byte = value.to_le_bytes()[(off & 3) as usize];
            self.console_byte(b, byte);
            // The byte has gone; what it sets (a UART's TX-ready event) follows below.
        } else if let Some((target, set)) = spec.writes_into {
            let tw = block.word_of(target);
            let bits = value & bytes;
            let new = if set {
                block.words[tw] | bits
            } else {
                block.words[tw] & !bits
            };
            self.set_word(b, target, new, now);
            return true;
        } else {
            let writable = bytes & !spec.read_only & !spec.w1c & !spec.w0c & !spec.self_clear;
            let cleared = (value & bytes & spec.w1c) | (!value & bytes & spec.w0c);
            let new = ((old & !writable) | (value & writable)) & !cleared;
            let counting = !self.blocks[b].countdowns.is_empty();
            if counting {
                // Count up to the write under the old settings.
                self.update_countdowns(b, now);
            }
            self.set_word(b, r, new, now);
            if counting {
                self.countdown_written(b, r, value & bytes, now);
            }
            if self.blocks[b]
                .timers
                .iter()
                .any(|(_, t)| t.config_word == w)
            {
                self.reconfigure_timers(b, w, now);
            }
            self.load_timers(b, r, now);
            if !self.blocks[b].alarms.is_empty() {
                self.alarm_written(b, r, value & bytes, now);
            }
        }
        self.watchdog_written(b, r, old, now);
        let block = &mut self.blocks[b];
        // The word as written, for the effects (self-clearing trigger bits included).
        let written = (old & !bytes) | (value & bytes);
        let counted = |count: Option<DelayCount>, clock_hz: u64| {
            count.map_or(0, |c| ns_to_cycles(c.ns(written), clock_hz))
        };
        for i in 0..block.effects[r].len() {
            let e = self.blocks[b].effects[r][i];
            match e {
                Effect::Follow {
                    target,
                    mask,
                    shift,
                    invert,
                    delay,
                    count,
                } => {
                    let m = shifted(mask, shift);
                    let source = if invert { !written } else { written };
                    let set = shifted(source & mask, shift);
                    // A count a huge field gives saturates rather than wraps.
                    let due =
                        now.saturating_add(delay.saturating_add(counted(count, self.clock_hz)));
                    self.schedule(due, now, b, target, set, m & !set);
                }
                Effect::Trigger {
                    target,
                    mask,
                    bits,
                    delay,
                    count,
                    clear,
                } if mask == 0 || written & bytes & mask != 0 => {
                    let due =
                        now.saturating_add(delay.saturating_add(counted(count, self.clock_hz)));
                    if clear {
                        self.schedule(due, now, b, target, 0, bits);
                    } else {
                        self.schedule(due, now, b, target, bits, 0);
                    }
                }
                Effect::Latch { target, mask } if written & bytes & mask != 0 => {
                    let block = &self.blocks[b];
                    let ri = block.register_of_word[target].expect("latch targets are registers")
                        as usize;
                    if let RegisterKind::Latch {
                        counter, config, ..
                    } = block.spec.registers[ri].kind.clone()
                    {
                        let ticks = match config {
                            Some(c) => self.timer_ticks(b, c.register, now),
                            None => self.ticks(counter.hz, now),
                        };
                        self.blocks[b].words[target] = counter.value(ticks);
                    }
                }
                _ => {}
            }
        }
        let starts_spi = self.blocks[b]
            .spec
            .spi
            .as_ref()
            .is_some_and(|c| c.start == r && written & bytes & c.start_mask != 0);
        if starts_spi {
            self.spi_transaction(b);
        }
        let block = &mut self.blocks[b];
        let sha = block
            .sha
            .written(&block.spec, r, written & bytes, &mut block.words);
        if let Some((busy, cycles)) = sha {
            block.words[busy] |= 1;
            self.schedule(now + cycles, now, b, busy, 0, 1);
        }
        true
    }

    /// Run the user-defined SPI transaction block `b`'s registers describe (its start bits are
    /// self-clearing: the transaction completes at once). The chip selected that decodes commands
    /// of the transaction's length answers: its mode registers or array when the command is theirs,
    /// else its listed bytes or its idle byte. Nothing answering reads all ones (a floating bus
    /// with pull-ups, ASSUMPTION; a quad PSRAM driver reading an octal chip's ID gets 0xFFFFFF on
    /// the chip, as ESP-IDF users report).
    fn spi_transaction(&mut self, b: usize) {
        let block = &self.blocks[b];
        let c = block.spec.spi.as_ref().expect("an SPI controller");
        let reg = |i: usize| block.value_of(i);
        let user = reg(c.user);
        // ESP32-S3 TRM §30 (SPI_MEM_USER_REG), the same bits on the ESP32: bit 31 command phase,
        // 30 address phase, 28 MISO phase, 27 MOSI phase. USER2: command value in bits 15:0, its
        // length minus one in bits 31:28. MOSI_DLEN/MISO_DLEN: bit length minus one.
        let (reads, writes) = (user & (1 << 28) != 0, user & (1 << 27) != 0);
        if !reads && !writes {
            return;
        }
        let (command, command_bits) = if user & (1 << 31) != 0 {
            (reg(c.command) & 0xFFFF, (reg(c.command) >> 28) + 1)
        } else {
            (u32::MAX, 0)
        };
        let address = if user & (1 << 30) != 0 {
            reg(c.address)
        } else {
            0
        };
        let buffer = 4 * c.data_words as usize;
        let len =
            |bits: Option<usize>| bits.map_or(0, |i| (reg(i) as usize + 1).div_ceil(8).min(buffer));
        let first = block.word_of(c.data);
        let mosi: Vec<u8> = if writes {
            block.words[first..first + buffer / 4]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(len(c.mosi_bits))
                .collect()
        } else {
            Vec::new()
        };
        let miso_len = if reads { len(Some(c.miso_bits)) } else { 0 };
        let Some(d) = self.spi_chip(b, command_bits) else {
            self.fill_spi_buffer(b, &vec![0xFF; miso_len]);
            return;
        };
        let block = &mut self.blocks[b];
        let spec = &block.spec.spi.as_ref().expect("an SPI controller").devices[d];
        let chip = &mut block.chips[d];
        let mut data = vec![spec.idle_byte; miso_len];
        match (&spec.mode_registers, spec.array) {
            (Some(m), _) if command == m.read => {
                for (i, byte) in data.iter_mut().enumerate() {
                    *byte = chip
                        .mode_registers
                        .get(address as usize + i)
                        .copied()
                        .unwrap_or(0);
                }
            }
            (Some(m), _) if command == m.write => {
                for (i, byte) in mosi.iter().enumerate() {
                    let r = address as usize + i;
                    if let (Some(v), Some(&w)) = (chip.mode_registers.get_mut(r), m.writable.get(r))
                    {
                        *v = (*v & !w) | (byte & w);
                    }
                }
            }
            (_, Some((read, _))) if command == read => {
                for (i, byte) in data.iter_mut().enumerate() {
                    let a = address.wrapping_add(i as u32);
                    *byte = chip.array.get(&a).copied().unwrap_or(0);
                }
            }
            (_, Some((_, write))) if command == write => {
                for (i, &byte) in mosi.iter().enumerate() {
                    chip.array.insert(address.wrapping_add(i as u32), byte);
                }
            }
            _ if spec.flash_reads.contains(&command) => {
                for (i, byte) in data.iter_mut().enumerate() {
                    let a = address.wrapping_add(i as u32) as usize;
                    *byte = self.flash.get(a).copied().unwrap_or(0xFF);
                }
            }
            _ => {
                if let Some((_, a)) = spec.answers.iter().find(|(cmd, _)| *cmd == command) {
                    for (byte, &v) in data.iter_mut().zip(a) {
                        *byte = v;
                    }
                }
            }
        }
        self.fill_spi_buffer(b, &data);
    }

    /// The chip of block `b`'s SPI bus that the enabled chip select reaches and that decodes
    /// `command_bits`-bit commands. A board whose PSRAM follows the driver fits the PSRAM chip of
    /// another mode when only that one speaks the protocol (recorded for `take_psram_refit`).
    fn spi_chip(&mut self, b: usize, command_bits: u32) -> Option<usize> {
        let c = self.blocks[b].spec.spi.as_ref().expect("an SPI controller");
        let disabled = self.blocks[b].words[self.blocks[b].word_of(c.chip_select)];
        let speaks = |d: &SpiDeviceSpec| command_bits == 0 || d.command_bits == command_bits;
        let selected = |d: &SpiDeviceSpec| disabled & (1 << d.chip_select) == 0;
        let fitted = |d: &SpiDeviceSpec| d.psram_mode.is_none() || d.psram_mode == self.psram_mode;
        let on_bus = c.devices.iter().position(|d| selected(d) && fitted(d));
        match on_bus {
            Some(i) if speaks(&c.devices[i]) => Some(i),
            Some(i) if c.devices[i].psram_mode.is_some() => {
                let spare = c
                    .devices
                    .iter()
                    .position(|d| selected(d) && !fitted(d) && speaks(d))?;
                let mode = c.devices[spare].psram_mode.clone();
                self.psram_refit = mode.clone();
                self.psram_mode = mode;
                Some(spare)
            }
            _ => None,
        }
    }

    /// Write `data` into block `b`'s SPI data buffer, from its first word.
    fn fill_spi_buffer(&mut self, b: usize, data: &[u8]) {
        let c = self.blocks[b].spec.spi.as_ref().expect("an SPI controller");
        let first = self.blocks[b].word_of(c.data);
        let words = &mut self.blocks[b].words;
        for (i, chunk) in data.chunks(4).enumerate() {
            let mut w = words[first + i].to_le_bytes();
            w[..chunk.len()].copy_from_slice(chunk);
            words[first + i] = u32::from_le_bytes(w);
        }
    }

    /// A byte written to a console register of block `b`: the console follows the device that
    /// has received the most (the first one on a tie).
    fn console_byte(&mut self, b: usize, byte: u8) {
        let i = match self.console_streams.iter().position(|(blk, _)| *blk == b) {
            Some(i) => i,
            None => {
                self.console_streams.push((b, Vec::new()));
                self.console_streams.len() - 1
            }
        };
        self.console_streams[i].1.push(byte);
        let lead = self.console_lead();
        let stream = &self.console_streams[lead].1;
        if stream.len() > self.console_emitted {
            self.console
                .extend_from_slice(&stream[self.console_emitted..]);
            self.console_emitted = stream.len();
        }
    }

    /// Index in `console_streams` of the stream the console shows.
    fn console_lead(&self) -> usize {
        let most = self.console_streams.iter().map(|(_, s)| s.len()).max();
        self.console_streams
            .iter()
            .position(|(_, s)| Some(s.len()) == most)
            .unwrap_or(0)
    }

    /// The console devices other than the one the console shows, with the bytes each received.
    pub fn other_console_bytes(&self) -> Vec<(String, u64)> {
        if self.console_streams.len() < 2 {
            return Vec::new();
        }
        let lead = self.console_lead();
        self.console_streams
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != lead)
            .map(|(_, (b, s))| (self.blocks[*b].spec.name.clone(), s.len() as u64))
            .collect()
    }

    /// The console device the console shows, once one was written.
    pub fn console_device(&self) -> Option<&str> {
        let (b, _) = self.console_streams.get(self.console_lead())?;
        Some(&self.blocks[*b].spec.name)
    }

    /// Give register `r` of block `b` the value `new`, recording the change if the register is
    /// recorded.
    fn set_word(&mut self, b: usize, r: usize, new: u32, now: u64) {
        let block = &mut self.blocks[b];
        let w = block.word_of(r);
        let old = std::mem::replace(&mut block.words[w], new);
        if let Some(rec) = block.records[r].as_mut().filter(|_| old != new) {
            rec.changes += 1;
            if rec.first.len() < RECORD_KEPT {
                rec.first.push((now, new));
            }
            rec.last = (now, new);
        }
    }

    /// Expiries of a down-counter up to cycle `now`, and its count then.
    fn countdown_state(&self, c: &Countdown, control: u32, now: u64) -> (u64, u64) {
        let spec = &c.spec;
        if control & (1 << spec.enable_bit) == 0 || c.load == 0 {
            return (0, c.load);
        }
        let elapsed = self.ticks(spec.hz, now.saturating_sub(c.since)) / spec.divider(control);
        if control & (1 << spec.reload_bit) != 0 {
            (elapsed / c.load, c.load - elapsed % c.load)
        } else {
            ((elapsed >= c.load) as u64, c.load.saturating_sub(elapsed))
        }
    }

    /// Bring block `b`'s down-counters' count and status bits to cycle `now`.
    fn update_countdowns(&mut self, b: usize, now: u64) {
        for i in 0..self.blocks[b].countdowns.len() {
            let c = self.blocks[b].countdowns[i];
            let cw = self.blocks[b].word_of(c.spec.control);
            let control = self.blocks[b].words[cw];
            let (expiries, count) = self.countdown_state(&c, control, now);
            let mask = if c.spec.bits >= 32 {
                u32::MAX
            } else {
                (1u32 << c.spec.bits) - 1
            };
            let status = 1u32 << c.spec.status_bit;
            self.blocks[b].countdowns[i].expiries = expiries;
            let words = &mut self.blocks[b].words;
            words[c.word] = count as u32 & mask;
            words[cw] = if expiries > c.cleared {
                control | status
            } else {
                control & !status
            };
        }
    }

    /// Register `r` of block `b` was written with `bits`: restart the down-counters it loads or
    /// controls, acknowledge the expiries of those it clears.
    fn countdown_written(&mut self, b: usize, r: usize, bits: u32, now: u64) {
        for i in 0..self.blocks[b].countdowns.len() {
            let c = self.blocks[b].countdowns[i];
            let word = |reg: usize| {
                let block = &self.blocks[b];
                block.value_of(reg)
            };
            if r == c.spec.load || r == c.spec.control {
                let (load, control) = (word(c.spec.load) as u64, word(c.spec.control));
                let period_ticks = load as u128 * c.spec.divider(control) as u128;
                self.blocks[b].countdowns[i] = Countdown {
                    load,
                    since: now,
                    cleared: 0,
                    earlier: c.earlier + c.expiries,
                    expiries: 0,
                    period_cycles: (period_ticks * self.clock_hz as u128 / c.spec.hz as u128)
                        as u64,
                    ..c
                };
            } else if r == c.spec.clear && bits & 1 != 0 {
                let (expiries, _) = self.countdown_state(&c, word(c.spec.control), now);
                self.blocks[b].countdowns[i].cleared = expiries;
            }
        }
        self.update_countdowns(b, now);
    }

    /// One report line per recorded register that changed: how often, the bits that toggled, and
    /// the first changes with their time.
    pub fn record_notes(&self) -> Vec<String> {
        let ms = |cycles: u64| cycles as f64 * 1e3 / self.clock_hz as f64;
        let mut notes = Vec::new();
        for block in &self.blocks {
            for c in &block.countdowns {
                let n = c.earlier + c.expiries;
                if n > 0 {
                    notes.push(format!(
                        "{}.{} expired {n} times (latest period {:.3} ms)",
                        block.spec.name,
                        block.spec.registers[c.spec.control].name,
                        ms(c.period_cycles)
                    ));
                }
            }
            for (r, rec) in block.records.iter().enumerate() {
                let Some(rec) = rec.as_ref().filter(|r| r.changes > 0) else {
                    continue;
                };
                let spec = &block.spec.registers[r];
                let mut prev = spec.reset;
                let mut toggled = 0u32;
                for &(_, v) in &rec.first {
                    toggled |= prev ^ v;
                    prev = v;
                }
                let shown: Vec<String> = rec
                    .first
                    .iter()
                    .take(4)
                    .map(|&(t, v)| format!("0x{v:08x} at {:.3} ms", ms(t)))
                    .collect();
                notes.push(format!(
                    "{}.{} changed {} times (bits 0x{toggled:08x} toggled; {}{}; last 0x{:08x} at {:.3} ms)",
                    block.spec.name,
                    spec.name,
                    rec.changes,
                    shown.join(", "),
                    if rec.changes > 4 { ", ..." } else { "" },
                    rec.last.1,
                    ms(rec.last.0)
                ));
            }
        }
        notes
    }

    /// Ticks at cycle `now` of the timer configured by register `config` of block `b`.
    fn timer_ticks(&self, b: usize, config: usize, now: u64) -> u64 {
        let Some((_, t)) = self.blocks[b].timers.iter().find(|(r, _)| *r == config) else {
            return 0;
        };
        t.ticks
            + t.divider
                .map_or(0, |d| self.ticks(t.hz, now.saturating_sub(t.since)) / d)
    }

    /// The config word `w` of block `b` was written: count the ticks so far at the old rate, then
    /// go on at the rate the new value selects.
    fn reconfigure_timers(&mut self, b: usize, w: usize, now: u64) {
        for i in 0..self.blocks[b].timers.len() {
            let (register, t) = self.blocks[b].timers[i];
            if t.config_word != w {
                continue;
            }
            let ticks = self.timer_ticks(b, register, now);
            let divider = t.config.divider(self.blocks[b].words[w]);
            self.blocks[b].timers[i].1 = Timer {
                ticks,
                since: now,
                divider,
                ..t
            };
        }
    }

    /// Register `r` of block `b` was written: the timers it is the load register of take their
    /// load value as their count.
    fn load_timers(&mut self, b: usize, r: usize, now: u64) {
        for i in 0..self.blocks[b].timers.len() {
            let Some(a) = self.blocks[b].timers[i].1.alarm.filter(|a| a.load == r) else {
                continue;
            };
            let ticks = self.pair(b, a.load_hi, a.load_lo);
            let t = &mut self.blocks[b].timers[i].1;
            (t.ticks, t.since) = (ticks, now);
        }
    }

    /// The 64-bit value of registers `hi:lo` of block `b`.
    fn pair(&self, b: usize, hi: usize, lo: usize) -> u64 {
        let block = &self.blocks[b];
        (block.value_of(hi) as u64) << 32 | block.value_of(lo) as u64
    }

    /// The armed timer alarms of block `b`: (index in `timers`, alarm, target count).
    fn armed_timer_alarms(
        &self,
        b: usize,
    ) -> impl Iterator<Item = (usize, TimerAlarmSpec, u64)> + '_ {
        let block = &self.blocks[b];
        block
            .timers
            .iter()
            .enumerate()
            .filter_map(move |(i, (_, t))| {
                let a = t.alarm?;
                let armed = block.words[t.config_word] >> a.alarm_bit & 1 != 0;
                armed.then(|| (i, a, self.pair(b, a.alarm_hi, a.alarm_lo)))
            })
    }

    /// Fire block `b`'s timer alarms whose count reached the target by cycle `now`.
    fn fire_timer_alarms(&mut self, b: usize, now: u64) {
        let due: Vec<(usize, TimerAlarmSpec)> = self
            .armed_timer_alarms(b)
            .filter(|&(i, _, target)| {
                self.timer_ticks(b, self.blocks[b].timers[i].0, now) >= target
            })
            .map(|(i, a, _)| (i, a))
            .collect();
        for (i, a) in due {
            let reload = self.pair(b, a.load_hi, a.load_lo);
            let block = &mut self.blocks[b];
            let status = block.word_of(a.status);
            block.words[status] |= 1 << a.status_bit;
            let t = &mut block.timers[i].1;
            let config = &mut block.words[t.config_word];
            *config &= !(1 << a.alarm_bit);
            if *config >> a.reload_bit & 1 != 0 {
                (t.ticks, t.since) = (reload, now);
            }
            self.interrupt_epoch += 1;
        }
    }

    /// Set and clear bits of a word at cycle `due`; an effect with no delay applies at once.
    fn schedule(&mut self, due: u64, now: u64, block: usize, word: usize, set: u32, clear: u32) {
        self.pending.push(Pending {
            due,
            block,
            word,
            set,
            clear,
        });
        self.apply_due(now);
    }

    /// A number that changes whenever an interrupt source may have been asserted, released or
    /// rerouted: a core compares it with the one it last saw to know when to ask for its lines.
    /// Recompute when watchdog `i` of block `b` ends its stage.
    fn rearm_watchdog(&mut self, b: usize, i: usize) {
        self.blocks[b].watchdogs[i].due = self.watchdog_stage_end(b, i);
    }

    /// When watchdog `i` of block `b` ends its stage (time-base cycles), if it runs.
    fn watchdog_stage_end(&self, b: usize, i: usize) -> Option<u64> {
        let block = &self.blocks[b];
        let d = &block.watchdogs[i];
        if block.value_of(d.config) & (1 << d.spec.enable_bit) == 0 {
            return None;
        }
        let prescale = d.spec.prescale.map_or(1, |(r, shift, bits)| {
            ((block.value_of(r) >> shift) & ((1u64 << bits) - 1) as u32).max(1)
        });
        let ticks = block.value_of(d.spec.holds[d.stage]) as u128 * prescale as u128;
        let cycles = (ticks * self.clock_hz as u128).div_ceil(d.spec.hz as u128);
        Some(d.since + cycles.max(1) as u64)
    }

    /// Take the actions of the stages of watchdog `i` of block `b` that end by `now`.
    fn fire_watchdog(&mut self, b: usize, i: usize, now: u64) {
        while let Some(end) = self.blocks[b].watchdogs[i].due.filter(|&e| e <= now) {
            let block = &mut self.blocks[b];
            let d = &block.watchdogs[i];
            let field = d.spec.stage_shift - d.stage as u32 * d.spec.stage_bits;
            let value = (block.value_of(d.config) >> field) & ((1 << d.spec.stage_bits) - 1);
            let action = d.spec.actions.get(value as usize).copied();
            match action {
                Some(WatchdogAction::Interrupt) => {
                    let (r, bit) = d.spec.status;
                    let w = block.word_of(r);
                    block.words[w] |= 1 << bit;
                    self.interrupt_epoch += 1;
                }
                Some(
                    reset @ (WatchdogAction::ResetCpu
                    | WatchdogAction::ResetSystem
                    | WatchdogAction::ResetRtc),
                ) => {
                    if self.reset.is_none() {
                        self.reset = Some(format!(
                            "{WATCHDOG_RESET}{}.{}, stage {} timed out: {}",
                            block.spec.name,
                            block.spec.registers[d.config].name,
                            d.stage,
                            reset.name()
                        ));
                    }
                }
                Some(WatchdogAction::Off) | None => {}
            }
            let d = &mut self.blocks[b].watchdogs[i];
            d.stage = (d.stage + 1) % d.spec.holds.len();
            d.since = end;
            self.rearm_watchdog(b, i);
        }
    }

    /// After a write of register `r` of block `b` (which held `old`): a feed, or the watchdog
    /// being switched on, restarts it at stage 0; any write of its registers may move its stage's
    /// end.
    fn watchdog_written(&mut self, b: usize, r: usize, old: u32, now: u64) {
        for i in 0..self.blocks[b].watchdogs.len() {
            let block = &mut self.blocks[b];
            let value = block.value_of(r);
            let d = &mut block.watchdogs[i];
            if !d.owns(r) {
                continue;
            }
            let enable = 1 << d.spec.enable_bit;
            let switched_on = r == d.config && old & enable == 0 && value & enable != 0;
            if r == d.spec.feed || switched_on {
                d.stage = 0;
                d.since = now;
            }
            self.rearm_watchdog(b, i);
        }
    }

    pub fn interrupt_epoch(&self) -> u64 {
        self.interrupt_epoch
    }

    /// The software reset the firmware asked for, if it did: `BLOCK.REGISTER (bits 0x..)`.
    pub fn reset_requested(&self) -> Option<&str> {
        self.reset.as_deref()
    }

    /// Whether the machine has an interrupt matrix (peripherals can interrupt the cores).
    pub fn routes_interrupts(&self) -> bool {
        self.matrix.is_some()
    }

    /// The CPU interrupt lines of CPU `cpu` that asserted sources drive now (bit n: interrupt n).
    pub fn interrupt_lines(&self, cpu: usize) -> u32 {
        let Some(m) = &self.matrix else {
            return 0;
        };
        let Some(&map) = m.spec.maps.get(cpu) else {
            return 0;
        };
        let maps = &self.blocks[m.block].words[(map / 4) as usize..];
        let mut lines = 0u32;
        for l in &m.lines {
            let words = &self.blocks[l.block].words;
            let enabled = l.enable_word.map_or(u32::MAX, |e| words[e]);
            if words[l.word] & l.mask & enabled != 0 {
                lines |= 1 << (maps[l.source as usize] & 0x1F);
            }
        }
        lines & !m.spec.internal
    }

    /// Register `r` of block `b` was written with `bits`: a load of an alarm's config arms it; a
    /// write of the config switches an armed alarm between one-shot and periodic (the mode is the
    /// live bit: ESP-IDF sets it after the load).
    fn alarm_written(&mut self, b: usize, r: usize, bits: u32, now: u64) {
        for i in 0..self.blocks[b].alarms.len() {
            let a = self.blocks[b].alarms[i];
            let block = &self.blocks[b];
            let word = |reg: usize| block.value_of(reg);
            let config = word(a.config);
            let periodic = config & (1 << a.spec.period_mode_bit) != 0;
            let load = if r == a.spec.load && bits & 1 != 0 {
                let target = self.pair(b, a.spec.target_hi, a.spec.target_lo);
                AlarmLoad {
                    at: self.ticks(a.spec.hz, now),
                    target: target & (u64::MAX >> (64 - a.spec.target_bits)),
                    period: (config & ((1u32 << a.spec.period_bits) - 1)) as u64,
                    periodic,
                }
            } else {
                match a.loaded {
                    Some(l) if r == a.config && l.periodic != periodic => {
                        AlarmLoad { periodic, ..l }
                    }
                    _ => continue,
                }
            };
            let next = if load.periodic {
                (load.period > 0).then_some(load.at + load.period)
            } else {
                // A target already passed fires at once (the comparator checks counter >= target).
                Some(load.target.max(load.at))
            };
            self.blocks[b].alarms[i] = Alarm {
                loaded: Some(load),
                next,
                ..a
            };
        }
        self.advance_to(now);
    }

    /// The core cycle at which the next armed alarm fires, if any: a core runs no further than
    /// this before calling `advance`, so that the alarm's interrupt is taken on time.
    pub fn next_event(&self) -> Option<u64> {
        let clock = self.clock_hz as u128;
        let comparators = self
            .timed
            .iter()
            .flat_map(|&b| &self.blocks[b].alarms)
            .filter_map(|a| {
                let tick = a.next? as u128;
                Some((tick * clock).div_ceil(a.spec.hz as u128) as u64)
            });
        // A timer's alarm: when its count, `ticks` at `since` and one per `divider` counter
        // clocks after, reaches the target.
        let timers = self.timed.iter().flat_map(|&b| {
            self.armed_timer_alarms(b)
                .filter_map(move |(i, _, target)| {
                    let t = &self.blocks[b].timers[i].1;
                    let left = target.saturating_sub(t.ticks) as u128;
                    let cycles = (left * t.divider? as u128 * clock).div_ceil(t.hz as u128);
                    Some(t.since + cycles as u64)
                })
        });
        let watchdogs = self
            .timed
            .iter()
            .flat_map(|&b| self.blocks[b].watchdogs.iter().filter_map(|d| d.due));
        comparators
            .chain(timers)
            .chain(watchdogs)
            .min()
            .map(|at| self.time.core(at))
    }

    /// Fire the alarms due at cycle `now`: set their status bits (if enabled then; ASSUMPTION: a
    /// comparator whose enable bit is off when it is due misses that firing) and re-arm the
    /// periodic ones for their next period.
    pub fn advance(&mut self, now: u64) {
        let now = self.time.reference(now);
        self.advance_to(now);
    }

    /// `advance` to `now` in cycles of the time base.
    fn advance_to(&mut self, now: u64) {
        for t in 0..self.timed.len() {
            let b = self.timed[t];
            for i in 0..self.blocks[b].watchdogs.len() {
                self.fire_watchdog(b, i, now);
            }
            if self.blocks[b].timers.iter().any(|(_, t)| t.alarm.is_some()) {
                self.fire_timer_alarms(b, now);
            }
            for i in 0..self.blocks[b].alarms.len() {
                let a = self.blocks[b].alarms[i];
                let Some(next) = a.next else {
                    continue;
                };
                let ticks = self.ticks(a.spec.hz, now);
                if next > ticks {
                    continue;
                }
                let block = &mut self.blocks[b];
                let at = |reg: usize| block.word_of(reg);
                let (enable, status) = (at(a.spec.enable), at(a.spec.status));
                if block.words[enable] & (1 << a.spec.enable_bit) != 0 {
                    block.words[status] |= 1 << a.spec.status_bit;
                    self.interrupt_epoch += 1;
                }
                block.alarms[i].next = a
                    .loaded
                    .filter(|l| l.periodic && l.period > 0)
                    .map(|l| next + l.period * ((ticks - next) / l.period + 1));
            }
        }
    }

    /// Polls without progress found since the last call.
    pub fn take_polls(&mut self) -> Vec<Poll> {
        std::mem::take(&mut self.polls)
    }

    /// Whether a poll has been found and not yet taken.
    pub fn has_polls(&self) -> bool {
        !self.polls.is_empty()
    }

    /// The stored value of the word at `addr` (tests and debugger views), without side effects.
    pub fn peek(&self, addr: u32) -> Option<u32> {
        let addr = self.canonical(addr);
        let b = self.block_of(addr)?;
        let block = &self.blocks[b];
        Some(block.words[((addr - block.spec.base) / 4) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tigris_targets::periph::parse_peripherals;

    const CHIP: &str = r#"
chip = "t"
[[block]]
name = "RCC"
base = 0x1000
size = 128
source = "test"
registers = [
  { name = "CR", offset = 0, reset = 0x83, read_only = 0x0002_0002 },
  { name = "SR", offset = 4, follow = [{ from = "CR", mask = 0x1_0000, shift = 1, delay_cycles = 100 }] },
  { name = "ISR", offset = 8, reset = 0xF, w1c = 0xF },
  { name = "TASK", offset = 12, self_clear = 1 },
  { name = "EVENT", offset = 16, set = [{ on = "TASK", mask = 1, bits = 1, delay_cycles = 10 }] },
  { name = "CNT", offset = 20, counter = { hz = 1_000_000 } },
  { name = "OP", offset = 24, self_clear = 0x4000_0000, set = [{ on = "OP", mask = 0x4000_0000, bits = 0x2000_0000 }] },
  { name = "LO", offset = 28, latch = { on = "OP", mask = 0x4000_0000, hz = 1_000_000 } },
  { name = "HI", offset = 32, latch = { on = "OP", mask = 0x4000_0000, hz = 1_000_000, shift = 32, bits = 20 } },
  { name = "TX", offset = 36, console = true },
  { name = "TCFG", offset = 40 },
  { name = "TUPD", offset = 44, self_clear = 1 },
  { name = "TLO", offset = 48, latch = { on = "TUPD", mask = 1, hz = 1_000_000, config = { register = "TCFG", enable_bit = 31, divider_shift = 0, divider_bits = 16 } } },
  { name = "LOCK", offset = 64, spinlock = 0x8 },
  { name = "N", offset = 68 },
  { name = "D", offset = 72 },
  { name = "Q", offset = 76, divide = { dividend = "N", divisor = "D", signed = true } },
  { name = "R", offset = 80, divide = { dividend = "N", divisor = "D", signed = true, remainder = true } },
  { name = "SEL", offset = 84, one_hot = { from = "N", mask = 0x30 } },
  { name = "TXRDY", offset = 92, set = [{ on = "TX", mask = 0xFF, bits = 1 }] },
  { name = "SR2", offset = 88, follow = [{ from = "CR", mask = 0x1, shift = 1, delay_cycles = 5, delay_us = 2.5 }] },
  { name = "MOR", offset = 96 },
  { name = "MSR", offset = 100, follow = [{ from = "MOR", mask = 0x1, delay_count = { shift = 8, bits = 8, times = 8, hz = 32_000 } }], set = [{ on = "MOR", mask = 0x2, bits = 0x2, delay_count = { shift = 16, bits = 6, hz = 32_000 } }] },
]
"#;

    fn engine() -> Peripherals {
        Peripherals::new(&parse_peripherals(CHIP, "t", &[]).unwrap(), 100_000_000)
    }

    const ATOMIC_RESETS: &str = r#"
chip = "t"
[[block]]
name = "RESETS"
base = 0x4000
size = "4K"
source = "test"
atomic = { xor = 0x1000, set = 0x2000, clear = 0x3000 }
registers = [
  { name = "RESET", offset = 0, reset = 0x1F },
  { name = "DONE", offset = 8, read_only = 0xFFFF_FFFF, follow = [{ from = "RESET", mask = 0x1F, invert = true }] },
  { name = "INTR", offset = 12, reset = 0x3, w1c = 0x3 },
]
[[block]]
name = "RESETS2"
base = 0x8000
derived_from = "RESETS"
"#;

    /// RP2040 datasheet §2.1.2: writes through base + 0x1000/0x2000/0x3000 XOR, set and clear the
    /// written bits; a read there reads the register; a derived block has the same behaviours.
    #[test]
    fn atomic_windows_xor_set_and_clear_and_done_bits_follow_inverted() {
        let specs = parse_peripherals(ATOMIC_RESETS, "t", &[]).unwrap();
        let mut p = Peripherals::new(&specs, 1_000_000);
        for base in [0x4000, 0x8000] {
            assert_eq!(p.read(base + 8, 4, 0), Some(0), "all held in reset");
            assert!(p.write(base + 0x3000, 4, 0b00101, 1), "clear");
            assert_eq!(p.read(base, 4, 2), Some(0b11010));
            assert_eq!(
                p.read(base + 8, 4, 2),
                Some(0b00101),
                "done once out of reset"
            );
            assert!(p.write(base + 0x2000, 4, 0b00001, 3), "set");
            assert!(p.write(base + 0x1000, 4, 0b00011, 4), "xor");
            assert_eq!(
                p.read(base + 0x1000, 4, 5),
                Some(0b11000),
                "a read of a window reads the register"
            );
            // Setting one write-1-to-clear bit clears that bit only.
            assert!(p.write(base + 0x200C, 4, 0b01, 6));
            assert_eq!(p.read(base + 12, 4, 7), Some(0b10));
        }
        let e = parse_peripherals(
            &ATOMIC_RESETS.replace("from = \"RESETS\"", "from = \"NONE\""),
            "t",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("derived_from names block `NONE`, which is not defined before it"),
            "{e}"
        );
        // A derived block takes its window from a file the board lists earlier too.
        let later =
            "chip = \"u\"\n[[block]]\nname = \"R3\"\nbase = 0xC000\nderived_from = \"RESETS\"\n";
        let derived = parse_peripherals(later, "u", &specs).unwrap();
        assert_eq!(
            (derived[0].size, derived[0].atomic),
            (specs[0].size, specs[0].atomic)
        );
        // Windows overlapping another block are refused.
        let e = parse_peripherals(
            &ATOMIC_RESETS.replace("base = 0x8000", "base = 0x6000"),
            "t",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("overlaps block `RESETS`"), "{e}");
    }

    const GPIO_AND_FRC: &str = r#"
chip = "t"
[[block]]
name = "GPIO"
base = 0x2000
size = 32
source = "test"
registers = [
  { name = "OUT", offset = 0, record = true },
  { name = "W1TS", offset = 4, sets = "OUT" },
  { name = "W1TC", offset = 8, clears = "OUT" },
  { name = "ENABLE", offset = 12 },
  { name = "IN", offset = 16, read_only = 0xFFFF_FFFF, pin_levels = { output = "OUT", enable = "ENABLE" } },
]
[[block]]
name = "USB"
base = 0x2800
size = 16
source = "test"
registers = [{ name = "EP1", offset = 0, console = true }]
[[block]]
name = "UART"
base = 0x2900
size = 16
source = "test"
registers = [{ name = "FIFO", offset = 0, console = true }]
[[block]]
name = "FRC"
base = 0x3000
size = 16
source = "test"
registers = [
  { name = "LOAD", offset = 0 },
  { name = "COUNT", offset = 4, read_only = 0xFFFF_FFFF, countdown = { hz = 1_000_000, bits = 23, load = "LOAD", control = "CTRL", enable_bit = 7, reload_bit = 6, divider_shift = 2, divider_bits = 2, divider_base = 16, status_bit = 8, clear = "INT" } },
  { name = "CTRL", offset = 8, read_only = 0x100 },
  { name = "INT", offset = 12, self_clear = 1 },
]
"#;

    /// The GPIO / console / down-counter chip at a 1 MHz core clock (1 cycle = 1 µs).
    fn gpio_engine() -> Peripherals {
        Peripherals::new(
            &parse_peripherals(GPIO_AND_FRC, "t", &[]).unwrap(),
            1_000_000,
        )
    }

    /// W1TS/W1TC set and clear bits of OUT, which records its changes with their time.
    #[test]
    fn gpio_set_clear_registers_and_recorded_changes() {
        let mut p = gpio_engine();
        p.write(0x2004, 4, 0b101, 1000);
        p.write(0x2008, 4, 0b001, 2000);
        p.write(0x2008, 4, 0b001, 3000); // no change: not recorded
        assert_eq!(p.read(0x2000, 4, 3000), Some(0b100));
        assert_eq!(p.read(0x2004, 4, 3000), Some(0));
        // Input levels: the driven level of output-enabled pins, 0 elsewhere.
        p.write(0x200C, 4, 0b110, 3000);
        assert_eq!(p.read(0x2010, 4, 3000), Some(0b100));
        assert_eq!(
            p.record_notes(),
            ["GPIO.OUT changed 2 times (bits 0x00000005 toggled; 0x00000005 at 1.000 ms, 0x00000004 at 2.000 ms; last 0x00000004 at 2.000 ms)"]
        );
    }

    /// Text a ROM prints to both consoles, then the firmware's own driver to one: the console
    /// shows that one's whole stream, and the other's byte count is reported.
    #[test]
    fn the_console_follows_the_device_that_receives_the_most() {
        let mut p = gpio_engine();
        for &c in b"rom\n" {
            p.write(0x2800, 4, c as u32, 0);
            p.write(0x2900, 4, c as u32, 0);
        }
        for &c in b"app\n" {
            p.write(0x2900, 4, c as u32, 0);
        }
        assert_eq!(p.console, b"rom\napp\n");
        assert_eq!(p.console_device(), Some("UART"));
        assert_eq!(p.other_console_bytes(), [("USB".to_string(), 4)]);
    }

    /// The down-counter counts from LOAD at its divided clock, flags each expiry until INT clears
    /// it, and reloads.
    #[test]
    fn countdown_expires_reloads_and_clears() {
        let mut p = gpio_engine();
        // Enabled, auto-reload, divide by 16: one tick per 16 cycles; 100 ticks per period.
        p.write(0x3008, 4, 0xC4, 0);
        p.write(0x3000, 4, 100, 0);
        assert_eq!(p.read(0x3004, 4, 160), Some(90));
        assert_eq!(p.read(0x3008, 4, 1599), Some(0xC4));
        assert_eq!(p.read(0x3008, 4, 1600), Some(0x1C4));
        p.write(0x300C, 4, 1, 1700);
        assert_eq!(p.read(0x3008, 4, 3199), Some(0xC4));
        assert_eq!(p.read(0x3008, 4, 3200), Some(0x1C4));
        assert_eq!(p.read(0x3004, 4, 3216), Some(99));
        // Disabled: no more expiries; the count holds the load value.
        p.write(0x3008, 4, 0x44, 3300);
        assert_eq!(p.read(0x3008, 4, 9000), Some(0x44));
        assert_eq!(
            p.record_notes(),
            ["FRC.CTRL expired 2 times (latest period 1.600 ms)"]
        );
    }

    const SPI_BUS: &str = r#"
chip = "t"
[[block]]
name = "SPI1"
base = 0x4000
size = 256
source = "test"
registers = [
  { name = "CMD", offset = 0x00, self_clear = 0xFFFC_0000 },
  { name = "ADDR", offset = 0x04 },
  { name = "USER", offset = 0x18 },
  { name = "USER2", offset = 0x20 },
  { name = "MOSI_DLEN", offset = 0x24 },
  { name = "MISO_DLEN", offset = 0x28 },
  { name = "MISC", offset = 0x34 },
  { name = "W0", offset = 0x58 },
]
[block.spi]
start = "CMD"
start_mask = 0x0004_0000
user = "USER"
command = "USER2"
address = "ADDR"
miso_bits = "MISO_DLEN"
mosi_bits = "MOSI_DLEN"
data = "W0"
data_words = 16
chip_select = "MISC"
[[block.spi.devices]]
name = "quad"
chip_select = 1
psram_mode = "quad"
answers = [{ command = 0x9F, data = [0x0D, 0x5D, 0x40] }]
[[block.spi.devices]]
name = "octal"
chip_select = 1
psram_mode = "octal"
command_bits = 16
mode_registers = { read = 0x4040, write = 0xC0C0, reset = [0x01, 0x0D], writable = [0x3F, 0x00] }
array = { read = 0x0000, write = 0x8080 }
"#;

    /// One user transaction on CS1: command of `bits` bits, address, MOSI bytes, MISO bytes;
    /// returns the first data word.
    fn transact(
        p: &mut Peripherals,
        bits: u32,
        cmd: u32,
        addr: u32,
        mosi: &[u8],
        miso: u32,
    ) -> u32 {
        let mut user = 1 << 31 | 1 << 30;
        if !mosi.is_empty() {
            user |= 1 << 27;
            let mut w = [0u8; 4];
            w[..mosi.len()].copy_from_slice(mosi);
            p.write(0x4058, 4, u32::from_le_bytes(w), 0);
            p.write(0x4024, 4, 8 * mosi.len() as u32 - 1, 0);
        }
        if miso > 0 {
            user |= 1 << 28;
            p.write(0x4028, 4, 8 * miso - 1, 0);
        }
        p.write(0x4018, 4, user, 0);
        p.write(0x4020, 4, (bits - 1) << 28 | cmd, 0);
        p.write(0x4004, 4, addr, 0);
        p.write(0x4034, 4, 0b01, 0); // CS0 disabled, CS1 enabled
        p.write(0x4000, 4, 1 << 18, 0);
        p.read(0x4058, 4, 1).unwrap()
    }

    /// An OPI PSRAM chip: mode registers read in pairs and written through their writable bits,
    /// its array written and read back; an SPI command finds it deaf (all ones). On a board whose
    /// PSRAM follows the driver the quad chip answers that command instead and the refit is told
    /// once; on a fixed board nothing answers.
    #[test]
    fn spi_chips_answer_their_protocol_and_a_following_psram_refits() {
        let mut specs = parse_peripherals(SPI_BUS, "t", &[]).unwrap();
        specs[0].spi.as_mut().unwrap().psram_mode = Some("octal".into());
        let mut p = Peripherals::new(&specs, 100_000_000);
        assert_eq!(transact(&mut p, 16, 0x4040, 0, &[], 2) & 0xFFFF, 0x0D01);
        transact(&mut p, 16, 0xC0C0, 0, &[0xFF, 0xFF], 0);
        assert_eq!(transact(&mut p, 16, 0x4040, 0, &[], 2) & 0xFFFF, 0x0D3F);
        transact(&mut p, 16, 0x8080, 0x10, &0x5a6b7c8du32.to_le_bytes(), 0);
        assert_eq!(transact(&mut p, 16, 0x0000, 0x10, &[], 4), 0x5a6b7c8d);
        assert_eq!(p.take_psram_refit(), None);
        assert_eq!(transact(&mut p, 8, 0x9F, 0, &[], 3) & 0xFF_FFFF, 0x40_5D0D);
        assert_eq!(p.take_psram_refit().as_deref(), Some("quad"));
        assert_eq!(p.take_psram_refit(), None);
        assert_eq!(p.psram_mode(), Some("quad"));
        // A fixed board: the other mode's chip is not on the bus.
        specs[0].spi.as_mut().unwrap().devices.remove(0);
        let mut p = Peripherals::new(&specs, 100_000_000);
        assert_eq!(transact(&mut p, 8, 0x9F, 0, &[], 3) & 0xFF_FFFF, 0xFF_FFFF);
        assert_eq!(p.take_psram_refit(), None);
    }

    const CLOCKED: &str = r#"
chip = "t"
[cpu_clock]
select = { register = "SYS.SYSCLK", shift = 10, bits = 2 }
sources = [
  { select = 1, hz = [80_000_000, 160_000_000, 240_000_000, 0], by = { register = "SYS.PER", shift = 0, bits = 2 } },
  { select = 0, hz = [40_000_000], divider = { register = "SYS.SYSCLK", shift = 0, bits = 10 } },
]
[[block]]
name = "SYS"
base = 0x5000
size = 64
source = "test"
registers = [
  { name = "PER", offset = 0 },
  { name = "SYSCLK", offset = 4, reset = 0x1 },
  { name = "US", offset = 8, counter = { hz = 1_000_000 } },
]
"#;

    /// The clock registers start as a boot loader leaves them for the board's clock; a switch
    /// the firmware makes changes how fast time runs per core cycle from then on, and is told.
    #[test]
    fn the_cpu_clock_follows_its_select_registers() {
        let mut p = Peripherals::new(&parse_peripherals(CLOCKED, "t", &[]).unwrap(), 240_000_000);
        assert_eq!((p.peek(0x5000), p.peek(0x5004)), (Some(2), Some(0x401)));
        assert_eq!(p.read(0x5008, 4, 240), Some(1));
        p.write(0x5004, 4, 0x000, 240); // XTAL / 1
        assert_eq!(p.take_clock_change(), Some(40_000_000));
        assert_eq!(p.read(0x5008, 4, 280), Some(2));
        p.write(0x5004, 4, 0x003, 280); // XTAL / 4: 10 MHz
        p.write(0x5004, 4, 0x400, 290); // PLL, 240 MHz again
        assert_eq!(p.read(0x5008, 4, 290 + 240), Some(4));
        assert_eq!(
            p.clock_changes(),
            [(240, 40_000_000), (280, 10_000_000), (290, 240_000_000)]
        );
        // Writes that keep the clock are no switch.
        p.write(0x5000, 4, 2, 600);
        assert_eq!(p.clock_changes().len(), 3);
    }

    const TIMER_GROUP: &str = r#"
chip = "t"
[[block]]
name = "TIMG"
base = 0x6000
size = 256
source = "test"
registers = [
  { name = "T0CONFIG", offset = 0x00, timer = { load = "T0LOAD", load_lo = "T0LOADLO", load_hi = "T0LOADHI", alarm_lo = "T0ALARMLO", alarm_hi = "T0ALARMHI", alarm_bit = 10, reload_bit = 29, status = "INT_RAW", status_bit = 0 } },
  { name = "T0LO", offset = 0x04, read_only = 0xFFFF_FFFF, latch = { on = "T0UPDATE", mask = 0xFFFF_FFFF, hz = 80_000_000, config = { register = "T0CONFIG", enable_bit = 31, divider_shift = 13, divider_bits = 16 } } },
  { name = "T0UPDATE", offset = 0x0C, self_clear = 0xFFFF_FFFF },
  { name = "T0ALARMLO", offset = 0x10 },
  { name = "T0ALARMHI", offset = 0x14 },
  { name = "T0LOADLO", offset = 0x18 },
  { name = "T0LOADHI", offset = 0x1C },
  { name = "T0LOAD", offset = 0x20, self_clear = 0xFFFF_FFFF },
  { name = "INT_RAW", offset = 0x9C, read_only = 0xF },
  { name = "INT_CLR", offset = 0xA4, clears = "INT_RAW" },
]
"#;

    /// A timer-group timer: the alarm fires when the count reaches it (not before), sets the raw
    /// status, disarms itself and reloads the count; a load sets the count; the core is told the
    /// cycle of the next firing.
    #[test]
    fn timer_alarms_fire_at_their_count_and_reload() {
        let mut p = Peripherals::new(
            &parse_peripherals(TIMER_GROUP, "t", &[]).unwrap(),
            80_000_000,
        );
        let (en, reload, alarm) = (1u32 << 31, 1u32 << 29, 1u32 << 10);
        let config = en | reload | 80 << 13; // 1 MHz count
        p.write(0x6010, 4, 1000, 0);
        p.write(0x6000, 4, config | alarm, 0);
        assert_eq!(p.next_event(), Some(80_000));
        p.advance(79_999);
        assert_eq!(p.peek(0x609C), Some(0));
        p.advance(80_000);
        assert_eq!((p.peek(0x609C), p.peek(0x6000)), (Some(1), Some(config)));
        assert_eq!(p.next_event(), None);
        p.write(0x60A4, 4, 1, 80_001);
        assert_eq!(p.peek(0x609C), Some(0));
        // Re-armed 250 counts after the reload: 750 counts to go.
        p.write(0x6000, 4, config | alarm, 100_000);
        assert_eq!(p.next_event(), Some(160_000));
        // A load of 500: 500 to go.
        p.write(0x6018, 4, 500, 100_000);
        p.write(0x6020, 4, 1, 100_000);
        assert_eq!(p.next_event(), Some(140_000));
        p.write(0x600C, 4, 1, 120_000);
        assert_eq!(p.read(0x6004, 4, 120_000), Some(750));
    }

    /// A spinlock: the first read claims it, later reads see it taken, a write frees it.
    #[test]
    fn spinlock_is_claimed_by_a_read_and_freed_by_a_write() {
        let mut p = engine();
        assert_eq!(p.read(0x1040, 4, 0), Some(0x8));
        assert_eq!(p.read(0x1040, 4, 1), Some(0));
        assert!(p.write(0x1040, 4, 0x1234, 2));
        assert_eq!(p.read(0x1040, 4, 3), Some(0x8));
    }

    /// A hardware divider: quotient and remainder of the operand registers, -1 and the dividend
    /// for a zero divisor.
    #[test]
    fn divider_reads_quotient_and_remainder() {
        let mut p = engine();
        p.write(0x1044, 4, -7i32 as u32, 0);
        p.write(0x1048, 4, 2, 0);
        assert_eq!(p.read(0x104C, 4, 1), Some(-3i32 as u32));
        assert_eq!(p.read(0x1050, 4, 1), Some(-1i32 as u32));
        p.write(0x1048, 4, 0, 2);
        assert_eq!(
            (p.read(0x104C, 4, 3), p.read(0x1050, 4, 3)),
            (Some(u32::MAX), Some(-7i32 as u32))
        );
    }

    #[test]
    fn reset_values_masks_and_plain_words() {
        let mut p = engine();
        assert_eq!(p.read(0x1000, 4, 0), Some(0x83));
        p.write(0x1000, 4, 0xFFFF_FFFF, 0);
        assert_eq!(
            p.read(0x1000, 4, 0),
            Some(0xFFFD_FFFF),
            "read-only bits keep their value (bit 1 set at reset, bit 17 clear)"
        );
        p.write(0x1008, 4, 0x5, 0);
        assert_eq!(p.read(0x1008, 4, 0), Some(0xA), "write 1 to clear");
        p.write(0x103C, 2, 0xBEEF, 0);
        assert_eq!(
            p.read(0x103C, 4, 0),
            Some(0xBEEF),
            "unnamed words hold what was written"
        );
        assert_eq!(p.read(0x1001, 1, 0), Some(0xFF), "byte lanes");
        assert_eq!(p.read(0x2000, 4, 0), None);
    }

    #[test]
    fn ready_follows_enable_after_its_delay() {
        let mut p = engine();
        p.write(0x1000, 4, 0x1_0000, 1000);
        assert_eq!(p.read(0x1004, 4, 1099), Some(0));
        assert_eq!(p.read(0x1004, 4, 1100), Some(0x2_0000));
        p.write(0x1000, 4, 0, 2000);
        assert_eq!(
            p.read(0x1004, 4, 2100),
            Some(0),
            "and drops when the enable is cleared"
        );
    }

    #[test]
    fn a_delay_in_microseconds_counts_at_the_core_clock() {
        // 5 cycles + 2.5 us at 100 MHz = 255 cycles.
        let mut p = engine();
        p.write(0x1000, 4, 0x1, 1000);
        assert_eq!(p.read(0x1058, 4, 1254), Some(0));
        assert_eq!(p.read(0x1058, 4, 1255), Some(0x2));
    }

    #[test]
    fn a_delay_counted_from_the_written_field_lasts_that_many_ticks() {
        // 100 MHz core; MOSCXTST-style: 8 x 8 ticks of 32 kHz = 2 ms = 200,000 cycles.
        let mut p = engine();
        p.write(0x1060, 4, 0x0801, 1000);
        assert_eq!(p.read(0x1064, 4, 200_999), Some(0));
        assert_eq!(p.read(0x1064, 4, 201_000), Some(1));
        // A set trigger counts too: 63 ticks = 1.96875 ms = 196,875 cycles.
        p.write(0x1060, 4, 0x003F_0803, 300_000);
        assert_eq!(p.read(0x1064, 4, 496_874), Some(1));
        assert_eq!(p.read(0x1064, 4, 496_875), Some(3));
        // A field of all ones saturates instead of overflowing.
        assert_eq!(
            DelayCount {
                shift: 0,
                bits: 32,
                times: u32::MAX,
                hz: 1
            }
            .ns(u32::MAX),
            u64::MAX
        );
    }

    #[test]
    fn task_sets_event_and_reads_back_zero() {
        let mut p = engine();
        p.write(0x100C, 4, 1, 50);
        assert_eq!(p.read(0x100C, 4, 50), Some(0));
        assert_eq!(p.read(0x1010, 4, 59), Some(0));
        assert_eq!(p.read(0x1010, 4, 60), Some(1));
    }

    #[test]
    fn counters_and_latches_follow_simulated_time() {
        let mut p = engine();
        // 100 MHz core, 1 MHz counter: one tick per 100 cycles.
        assert_eq!(p.read(0x1014, 4, 12_345), Some(123));
        let t = 100 * ((1u64 << 32) + 7);
        p.write(0x1018, 4, 0x4000_0000, t);
        assert_eq!(
            p.read(0x1018, 4, t),
            Some(0x2000_0000),
            "valid bit set, update bit self-clears"
        );
        assert_eq!(
            (p.read(0x101C, 4, t + 10_000), p.read(0x1020, 4, t)),
            (Some(7), Some(1)),
            "the copy is held"
        );
    }

    #[test]
    fn a_timer_counts_only_while_enabled_at_its_divided_rate() {
        let mut p = engine();
        let latch = |p: &mut Peripherals, now| {
            p.write(0x102C, 4, 1, now);
            p.read(0x1030, 4, now).unwrap()
        };
        assert_eq!(latch(&mut p, 100_000), 0, "stopped at reset");
        p.write(0x1028, 4, 0x8000_0002, 100_000); // on, divide by 2: 500 kHz
        assert_eq!(latch(&mut p, 300_000), 1000);
        p.write(0x1028, 4, 0x0000_0002, 300_000); // off
        assert_eq!(latch(&mut p, 900_000), 1000);
        p.write(0x1028, 4, 0x8000_0001, 900_000); // on, 1 MHz
        assert_eq!(latch(&mut p, 1_000_000), 2000);
    }

    #[test]
    fn console_bytes_and_polls() {
        let mut p = engine();
        for b in b"hi\n" {
            p.write(0x1024, 4, *b as u32, 0);
        }
        assert_eq!(p.console, b"hi\n");
        p.write(0x1024, 1, b'!' as u32, 0);
        assert_eq!(p.console, b"hi\n!");
        assert_eq!(
            p.read(0x105C, 4, 0),
            Some(1),
            "a byte sent sets the UART's TX-ready event"
        );
        for _ in 0..POLL_LIMIT {
            p.read(0x1004, 4, 0);
        }
        let polls = p.take_polls();
        assert_eq!(
            polls,
            vec![Poll {
                addr: 0x1004,
                value: 0,
                register: "RCC.SR".into()
            }]
        );
        for _ in 0..2 * POLL_LIMIT {
            p.read(0x1004, 4, 0);
        }
        assert!(p.take_polls().is_empty(), "an address is reported once");
    }

    /// A chip with an interrupt matrix (two CPUs, 8 sources, CPU interrupt 6 internal), a software
    /// interrupt register, a comparator at 1 MHz (the board clock 10 MHz) and its status registers.
    const MATRIX_AND_ALARM: &str = r#"
chip = "t"
[[block]]
name = "INTR"
base = 0x3000
size = 0x100
source = "test"
registers = [{ name = "SOFT", offset = 0x80, interrupt = [{ source = 1, mask = 1 }] }]
interrupt_matrix = { sources = 8, maps = [0x00, 0x20], internal = [6] }
[[block]]
name = "TIMER"
base = 0x4000
size = 0x100
source = "test"
registers = [
  { name = "CONF", offset = 0x00 },
  { name = "HI", offset = 0x04 },
  { name = "LO", offset = 0x08 },
  { name = "ACONF", offset = 0x0C, alarm = { hz = 1_000_000, target_hi = "HI", target_lo = "LO", target_bits = 52, load = "LOAD", enable = "CONF", enable_bit = 0, status = "RAW", status_bit = 0, period_bits = 26, period_mode_bit = 30 } },
  { name = "LOAD", offset = 0x10, self_clear = 1 },
  { name = "ENA", offset = 0x14 },
  { name = "RAW", offset = 0x18, interrupt = [{ source = 5, mask = 1, enable = "ENA" }] },
  { name = "CLR", offset = 0x1C, clears = "RAW" },
  { name = "ST", offset = 0x20, masked = { value = "RAW", mask = "ENA" } },
]
"#;

    fn matrix_engine() -> Peripherals {
        Peripherals::new(
            &parse_peripherals(MATRIX_AND_ALARM, "t", &[]).unwrap(),
            10_000_000,
        )
    }

    #[test]
    fn sources_reach_the_cpu_lines_their_map_registers_name() {
        let mut p = matrix_engine();
        assert!(p.routes_interrupts());
        p.write(0x3000 + 4, 4, 9, 0); // source 1 -> CPU 0 interrupt 9
        p.write(0x3020 + 4, 4, 6, 0); // source 1 -> CPU 1 interrupt 6 (internal: not routed)
        assert_eq!(p.interrupt_lines(0), 0, "the source is not asserted yet");
        let epoch = p.interrupt_epoch();
        p.write(0x3080, 4, 1, 10);
        assert_ne!(p.interrupt_epoch(), epoch, "a write may change the lines");
        assert_eq!(p.interrupt_lines(0), 1 << 9);
        assert_eq!(
            p.interrupt_lines(1),
            0,
            "an internal interrupt takes no source"
        );
        p.write(0x3080, 4, 0, 20);
        assert_eq!(p.interrupt_lines(0), 0, "a level source follows its bit");
    }

    #[test]
    fn a_periodic_alarm_sets_its_status_every_period_while_enabled() {
        let mut p = matrix_engine();
        p.write(0x3000 + 4 * 5, 4, 3, 0); // source 5 -> CPU 0 interrupt 3
        p.write(0x4014, 4, 1, 0); // ENA
        p.write(0x400C, 4, (1 << 30) | 100, 0); // periodic, 100 ticks = 1000 cycles
        p.write(0x4010, 4, 1, 0); // LOAD at cycle 0
        p.write(0x4000, 4, 1, 0); // enable
        assert_eq!(p.next_event(), Some(1000));
        p.advance(999);
        assert_eq!(p.interrupt_lines(0), 0, "not yet due");
        p.advance(1000);
        assert_eq!(p.interrupt_lines(0), 1 << 3, "fired at its period");
        assert_eq!(p.read(0x4020, 4, 1000), Some(1), "ST = RAW & ENA");
        assert_eq!(p.next_event(), Some(2000), "re-armed for the next period");
        p.write(0x401C, 4, 1, 1500);
        assert_eq!(p.interrupt_lines(0), 0, "CLR clears RAW");
        p.write(0x4000, 4, 0, 1600); // disabled: the firing at 2000 is missed
        p.advance(2000);
        assert_eq!(p.read(0x4018, 4, 2000), Some(0));
    }

    #[test]
    fn a_one_shot_alarm_fires_at_its_target_once() {
        let mut p = matrix_engine();
        p.write(0x4000, 4, 1, 0);
        p.write(0x4008, 4, 50, 0); // target 50 ticks = 500 cycles
        p.write(0x4010, 4, 1, 0);
        assert_eq!(p.next_event(), Some(500));
        p.advance(700);
        assert_eq!(p.read(0x4018, 4, 700), Some(1));
        assert_eq!(p.next_event(), None, "a one-shot alarm is spent");
    }
}
