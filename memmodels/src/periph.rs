//! The peripheral register engine: runs the blocks of `tigris_targets::periph` (registers with reset
//! values and write masks, and the behaviour vocabulary described there) for any core. A core hands
//! it the data accesses that fall in a block, with the current cycle count; the engine answers
//! reads, applies writes, schedules delayed effects, collects console bytes and watches for polls
//! that make no progress.
//!
//! Time: counters tick at their own rate derived from the core clock (`ticks = cycles × hz /
//! clock_hz`), so firmware that times itself by a peripheral timer agrees with the simulated time.

use tigris_targets::periph::{PeripheralSpec, RegisterKind, TimerConfig};

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
    /// `target` gets `(value & mask)` shifted by `shift` at `mask << shift`, `delay` cycles later.
    Follow {
        target: usize,
        mask: u32,
        shift: i32,
        delay: u64,
    },
    /// A write with a bit of `mask` set sets (or clears) `bits` in `target`.
    Trigger {
        target: usize,
        mask: u32,
        bits: u32,
        delay: u64,
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
    hz: u64,
    ticks: u64,
    since: u64,
    divider: Option<u64>,
}

struct Block {
    spec: PeripheralSpec,
    /// Counters with a config register, by the index of the first latch register naming them.
    timers: Vec<(usize, Timer)>,
    /// Value of every word of the block.
    words: Vec<u32>,
    /// Index in `spec.registers` of the register at each word, if any.
    register_of_word: Vec<Option<u16>>,
    /// Effects of a write to each register (by index in `spec.registers`).
    effects: Vec<Vec<Effect>>,
}

impl Block {
    fn new(spec: PeripheralSpec, clock_hz: u64) -> Block {
        let ns = |ns: u64| (ns as u128 * clock_hz as u128 / 1_000_000_000) as u64;
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
                    delay: f.delay_cycles + ns(f.delay_ns),
                });
            }
            for t in &r.triggers {
                effects[t.on].push(Effect::Trigger {
                    target: w,
                    mask: t.mask,
                    bits: t.bits,
                    delay: t.delay_cycles + ns(t.delay_ns),
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
                            hz: counter.hz,
                            ticks: 0,
                            since: 0,
                            divider,
                        },
                    ));
                }
            }
        }
        Block {
            spec,
            timers,
            words,
            register_of_word,
            effects,
        }
    }
}

/// The peripherals of one machine.
pub struct Peripherals {
    blocks: Vec<Block>,
    clock_hz: u64,
    pending: Vec<Pending>,
    /// Console bytes written to `console` registers, not yet taken: those of the console device
    /// that was written first (a chip can have several, e.g. UART0 and USB-Serial-JTAG, and its ROM
    /// prints to all of them; the user watches one).
    pub console: Vec<u8>,
    /// The block whose console registers feed `console`, once one has been written.
    console_block: Option<usize>,
    /// Bytes written to the console registers of other blocks, per block name.
    pub other_console_bytes: Vec<(String, u64)>,
    /// The address last read, the value it gave and how often in a row.
    last_read: (u32, u32, u32),
    polls: Vec<Poll>,
    /// Addresses already reported as polled (each is reported once).
    reported: Vec<u32>,
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
        Peripherals {
            blocks: specs
                .iter()
                .cloned()
                .map(|s| Block::new(s, clock_hz))
                .collect(),
            clock_hz: clock_hz.max(1),
            pending: Vec::new(),
            console: Vec::new(),
            console_block: None,
            other_console_bytes: Vec::new(),
            last_read: (u32::MAX, 0, 0),
            polls: Vec::new(),
            reported: Vec::new(),
        }
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

    pub fn covers(&self, addr: u32) -> bool {
        self.block_of(addr).is_some()
    }

    /// Ticks of a counter of `hz` at core cycle `now`.
    fn ticks(&self, hz: u64, now: u64) -> u64 {
        ((now as u128 * hz as u128) / self.clock_hz as u128) as u64
    }

    fn apply_due(&mut self, now: u64) {
        if self.pending.is_empty() {
            return;
        }
        let mut i = 0;
        while i < self.pending.len() {
            let p = self.pending[i];
            if p.due <= now {
                let w = &mut self.blocks[p.block].words[p.word];
                *w = (*w & !p.clear) | p.set;
                self.pending.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// The value of the word at `addr & !3`, as a read at cycle `now` sees it (a read claims a
    /// free spinlock: its word holds 1 while claimed).
    fn word_value(&mut self, b: usize, w: usize, now: u64) -> u32 {
        let block = &self.blocks[b];
        match block.register_of_word[w].map(|r| block.spec.registers[r as usize].kind.clone()) {
            Some(RegisterKind::Console) => 0,
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
            Some(RegisterKind::OneHot { from, mask }) => {
                let source = block.words[(block.spec.registers[from].offset / 4) as usize];
                1 << ((source & mask) >> mask.trailing_zeros())
            }
            Some(RegisterKind::Divide {
                dividend,
                divisor,
                signed,
                remainder,
            }) => {
                let word = |r: usize| block.words[(block.spec.registers[r].offset / 4) as usize];
                RegisterKind::divide(word(dividend), word(divisor), signed, remainder)
            }
            _ => block.words[w],
        }
    }

    /// Data read of `size` bytes at `addr` (inside a block) at core cycle `now`.
    pub fn read(&mut self, addr: u32, size: u32, now: u64) -> Option<u32> {
        let b = self.block_of(addr)?;
        self.apply_due(now);
        let off = addr - self.blocks[b].spec.base;
        let w = (off / 4) as usize;
        let word = self.word_value(b, w, now);
        let v = word >> (8 * (off & 3));
        let v = if size >= 4 {
            v
        } else {
            v & ((1u32 << (8 * size)) - 1)
        };
        self.watch_poll(addr, v);
        Some(v)
    }

    fn watch_poll(&mut self, addr: u32, value: u32) {
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
        let Some(b) = self.block_of(addr) else {
            return false;
        };
        self.apply_due(now);
        self.last_read.2 = 0;
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
        let spec = &block.spec.registers[r];
        if let RegisterKind::Spinlock(_) = spec.kind {
            block.words[w] = 0;
            return true;
        }
        let old = block.words[w];
        if spec.kind == RegisterKind::Console {
            let byte = value.to_le_bytes()[(off & 3) as usize];
            match self.console_block {
                None | Some(_) if self.console_block.is_none_or(|c| c == b) => {
                    self.console_block = Some(b);
                    self.console.push(byte);
                }
                _ => {
                    let name = &self.blocks[b].spec.name;
                    match self.other_console_bytes.iter_mut().find(|(n, _)| n == name) {
                        Some((_, n)) => *n += 1,
                        None => self.other_console_bytes.push((name.clone(), 1)),
                    }
                }
            }
            // The byte has gone; what it sets (a UART's TX-ready event) follows below.
        } else {
            let writable = bytes & !spec.read_only & !spec.w1c & !spec.self_clear;
            let cleared = value & bytes & spec.w1c;
            block.words[w] = ((old & !writable) | (value & writable)) & !cleared;
            if block.timers.iter().any(|(_, t)| t.config_word == w) {
                self.reconfigure_timers(b, w, now);
            }
        }
        let block = &mut self.blocks[b];
        // The word as written, for the effects (self-clearing trigger bits included).
        let written = (old & !bytes) | (value & bytes);
        for i in 0..block.effects[r].len() {
            let e = self.blocks[b].effects[r][i];
            match e {
                Effect::Follow {
                    target,
                    mask,
                    shift,
                    delay,
                } => {
                    let m = shifted(mask, shift);
                    let set = shifted(written & mask, shift);
                    self.schedule(now + delay, now, b, target, set, m & !set);
                }
                Effect::Trigger {
                    target,
                    mask,
                    bits,
                    delay,
                    clear,
                } if written & bytes & mask != 0 => {
                    if clear {
                        self.schedule(now + delay, now, b, target, 0, bits);
                    } else {
                        self.schedule(now + delay, now, b, target, bits, 0);
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
        true
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
]
"#;

    fn engine() -> Peripherals {
        Peripherals::new(&parse_peripherals(CHIP, "t").unwrap(), 100_000_000)
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
}
