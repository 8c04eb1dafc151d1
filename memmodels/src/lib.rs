//! Memory map, region latency models, caches and traffic counters, shared by every core.
//!
//! A core asks the memory system what an access costs *beyond* the core's own cycle count for that
//! instruction (which already assumes a zero-wait-state memory). The models and their equations are in
//! docs/memory-models.md; every figure comes from the board file.

mod cache;
pub mod periph;
mod sha;

pub use cache::{Cache, CacheCounters, Lookup, NO_SLOT};

/// A `resident` memo for `MemorySystem::fetch_hits` that names no fill count.
pub const NOT_RESIDENT: u64 = u64::MAX;
use tigris_targets::{Board, Region, RegionKind, WritePolicy};

/// Traffic and stall counters of one region (and, per owner, of one function's use of it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionCounters {
    /// Data accesses.
    pub traffic: Traffic,
    /// Instruction-fetch units (lines) requested from the region.
    pub fetches: u64,
    /// Cycles the core waited on this region (data and fetch).
    pub stall_cycles: u64,
    pub icache_hits: u64,
    pub icache_misses: u64,
    pub dcache_hits: u64,
    pub dcache_misses: u64,
    /// Dirty lines of this region written back from a cache.
    pub writebacks: u64,
}

impl RegionCounters {
    /// One data access of `size` bytes that stalled the core `stall` cycles.
    #[inline(always)]
    fn add_access(&mut self, size: u32, write: bool, stall: u32) {
        self.traffic.add(size, write);
        self.stall_cycles += stall as u64;
    }
}

/// Data accesses and their bytes: of a region, of one function's use of it, of a watched range,
/// or a batch a core hands over (`MemorySystem::count_unpriced_traffic`).
// C layout: the Xtensa block compiler's code counts into it (`tigris_cores` `jit.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Traffic {
    pub reads: u64,
    pub read_bytes: u64,
    pub writes: u64,
    pub write_bytes: u64,
}

impl std::ops::AddAssign for Traffic {
    fn add_assign(&mut self, other: Traffic) {
        self.reads += other.reads;
        self.read_bytes += other.read_bytes;
        self.writes += other.writes;
        self.write_bytes += other.write_bytes;
    }
}

impl Traffic {
    /// One access of `size` bytes.
    #[inline(always)]
    pub fn add(&mut self, size: u32, write: bool) {
        if write {
            self.writes += 1;
            self.write_bytes += size as u64;
        } else {
            self.reads += 1;
            self.read_bytes += size as u64;
        }
    }
}

/// One region with its live model state.
#[derive(Debug, Clone)]
pub struct RegionModel {
    pub spec: Region,
    pub counters: RegionCounters,
    /// Whether the core reports every data access here (a core may skip regions that cost nothing,
    /// for speed); when false, `reads`/`writes` and their bytes are not known.
    pub traffic_counted: bool,
    /// Core cycles per memory-bus clock, and per SPI clock scaled by 2^16 (fractional ratios).
    bus_ratio: u32,
    spi_ratio_q16: u64,
    /// The serial interface's fixed controller latency (`SpiSpec::controller_ns`) in core cycles.
    controller_cycles: u32,
    /// Bytes per instruction-fetch unit: the I-cache line, else one bus read.
    fetch_unit: u32,
    /// Line size of the D-cache in front of the region, if one is.
    dcache_line: Option<u32>,
    /// Fetch unit last requested, for the sequential prefetch buffer.
    last_fetch_unit: Option<u32>,
    /// Stall of an uncached read and write of 1, 2 and 4 bytes (index `size / 2`).
    uncached_read: [u32; 3],
    uncached_write: [u32; 3],
    /// Stall of a line fill of the D-cache and of the I-cache, and time to write a D-cache line back.
    dcache_fill: u32,
    icache_fill: u32,
    writeback: u32,
}

impl RegionModel {
    fn new(spec: Region, board: &Board) -> Self {
        let core_hz = board.core.clock_hz;
        let fetch_unit = spec
            .icache
            .map(|c| board.caches[c].line_bytes)
            .unwrap_or(spec.bus_bytes);
        let mut m = RegionModel {
            counters: RegionCounters::default(),
            traffic_counted: true,
            bus_ratio: 0,
            spi_ratio_q16: 0,
            controller_cycles: 0,
            fetch_unit,
            dcache_line: spec.dcache.map(|c| board.caches[c].line_bytes),
            last_fetch_unit: None,
            uncached_read: [0; 3],
            uncached_write: [0; 3],
            dcache_fill: 0,
            icache_fill: 0,
            writeback: 0,
            spec,
        };
        m.set_core_clock(core_hz);
        m
    }

    /// Price the region for a core running at `core_hz`: its memory's clocks in core cycles.
    pub fn set_core_clock(&mut self, core_hz: u64) {
        self.bus_ratio = core_hz.div_ceil(self.spec.bus_clock_hz).max(1) as u32;
        self.spi_ratio_q16 = self
            .spec
            .spi
            .map(|s| (core_hz << 16).div_ceil(s.clock_hz))
            .unwrap_or(0);
        self.controller_cycles = self
            .spec
            .spi
            .map(|s| (s.controller_ns as u64 * core_hz).div_ceil(1_000_000_000) as u32)
            .unwrap_or(0);
        self.price();
    }

    /// Derive the stalls of uncached accesses, line fills and write-backs from the spec.
    fn price(&mut self) {
        for (i, size) in [1, 2, 4].into_iter().enumerate() {
            self.uncached_read[i] = self.transfer_cycles(size, false) - 1;
            self.uncached_write[i] = self.transfer_cycles(size, true) - 1;
        }
        if let Some(line) = self.dcache_line {
            self.dcache_fill = self.transfer_cycles(line, false) - 1;
            self.writeback = self.transfer_cycles(line, true);
        }
        self.icache_fill = self.transfer_cycles(self.fetch_unit, false) - 1;
    }

    /// Price the region's serial memory as `spi` from now on (another part fitted, same clock).
    pub fn refit(&mut self, spi: tigris_targets::SpiSpec) {
        self.spec.spi = Some(spi);
        self.price();
    }

    /// Core cycles one read or write transaction of `bytes` bytes occupies the memory: a serial
    /// transaction (chip select, command, address, dummy and data phases) at the SPI clock plus the
    /// controller's fixed latency, or ⌈bytes / bus_bytes⌉ bus reads of wait states + 1 bus clocks each.
    pub fn transfer_cycles(&self, bytes: u32, write: bool) -> u32 {
        match self.spec.spi {
            Some(spi) => {
                let clocks = spi.transaction_clocks(bytes, write) as u64;
                let phases = (clocks * self.spi_ratio_q16).div_ceil(1 << 16) as u32;
                (phases + self.controller_cycles).max(1)
            }
            None => {
                let ws = if write {
                    self.spec.write_wait_states
                } else {
                    self.spec.read_wait_states
                };
                // Each memory word: its wait states, then its beats, one a bus clock.
                let beats = bytes
                    .min(self.spec.bus_bytes)
                    .div_ceil(self.spec.beat_bytes);
                bytes.div_ceil(self.spec.bus_bytes) * (ws + beats) * self.bus_ratio
            }
        }
    }

    /// Whether data accesses to this region cost anything beyond the core's own cycles.
    pub fn prices_data(&self) -> bool {
        self.spec.dcache.is_some()
            || self
                .uncached_read
                .iter()
                .chain(&self.uncached_write)
                .any(|&c| c > 0)
    }

    /// Whether instruction fetch from this region can stall the core.
    pub fn prices_fetch(&self) -> bool {
        self.spec.icache.is_some() || self.icache_fill > 0
    }

    pub fn fetch_unit(&self) -> u32 {
        self.fetch_unit
    }
}

/// Per (owner, region): what one function (or later one tile) did to one region.
pub type OwnerCounters = RegionCounters;

/// Data traffic inside a watched address range (a TiGrIS arena, say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchCounters {
    pub traffic: Traffic,
    pub stall_cycles: u64,
    /// Highest end offset (from the range start) any write reached: the range's high-water mark.
    pub high_water: u32,
}

#[derive(Debug, Clone)]
struct Watch {
    start: u32,
    len: u32,
    counters: WatchCounters,
    /// Addresses of the data reads inside the range since the last `take_read_log`, when asked for.
    read_log: Option<Vec<u32>>,
}

/// Sees every data access inside the address ranges it was given (`MemorySystem::observe`), with
/// what it cost: the simulator's declared tensor views.
pub trait AccessObserver: Send {
    /// One access of `size` bytes at `addr`, priced `stall` cycles, made at core cycle `now`
    /// (approximate within a block on Cortex-M: the cycles its start was charged).
    fn access(&mut self, addr: u32, size: u32, write: bool, stall: u32, now: u64);
    /// The observer itself, for its owner to read back and extend.
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// `[start, end)` ranges sorted, overlapping and adjacent ones merged.
fn merge_ranges(mut ranges: Vec<(u32, u64)>) -> Vec<(u32, u64)> {
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u64)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if u64::from(start) <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// An observer and the ranges `[start, end)` it sees, sorted and merged.
struct Observer {
    ranges: Vec<(u32, u64)>,
    sink: Box<dyn AccessObserver>,
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("ranges", &self.ranges)
            .finish_non_exhaustive()
    }
}

/// All regions and caches of a board with their models.
#[derive(Debug)]
pub struct MemorySystem {
    pub regions: Vec<RegionModel>,
    pub caches: Vec<Cache>,
    aliases: Vec<(u32, u32, usize)>,
    /// Where the counters of the owner the accesses are charged to (the profiler's function index)
    /// start in `by_owner`, which holds them per `owner * regions.len() + region`.
    owner_base: usize,
    by_owner: Vec<OwnerCounters>,
    watches: Vec<Watch>,
    /// A debugger's watchpoints, which stop the core rather than count.
    stops: Vec<StopWatch>,
    /// The first access a stop watch saw since `take_stop_hit`, and how many it saw in all (a core
    /// compares the count between blocks to learn of a new one cheaply).
    stop_hit: Option<StopHit>,
    stop_hits: u64,
    /// The core's cycle count at the access being priced (`set_now`), and when the serial memory
    /// bus finishes the write-back a cache's write-back buffer last started (0: idle). Every
    /// serial region of a board shares the one bus (the ESP chips' SPI0 serves flash and PSRAM).
    now: u64,
    bus_free_at: u64,
    /// Declared tensor views (`observe`).
    observer: Option<Observer>,
}

/// A debugger's watchpoint on the bus: `[start, start + len)`, for reads, writes or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopWatch {
    pub start: u32,
    pub len: u32,
    pub reads: bool,
    pub writes: bool,
}

/// A data access a stop watch saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopHit {
    pub addr: u32,
    pub write: bool,
}

/// Add one access to region and owner counters alike.
macro_rules! count {
    ($sys:expr, $region:expr, |$c:ident| $body:expr) => {{
        let slot = $sys.owner_base + $region;
        {
            let $c = &mut $sys.regions[$region].counters;
            $body;
        }
        let $c = &mut $sys.by_owner[slot];
        $body;
    }};
}

impl MemorySystem {
    /// The memory models of `board`: its regions, caches and their counters.
    ///
    /// ```
    /// let board = tigris_targets::load("esp32s3").unwrap();
    /// let mut memory = tigris_memmodels::MemorySystem::new(&board);
    /// let psram = memory.region_of(0x3d00_0000).unwrap();
    /// // A first load misses the data cache and waits for the line from PSRAM; the next one hits.
    /// assert!(memory.data_access(psram, 0x3d00_0000, 4, false) > 0);
    /// assert_eq!(memory.data_access(psram, 0x3d00_0004, 4, false), 0);
    /// ```
    pub fn new(board: &Board) -> Self {
        let regions: Vec<RegionModel> = board
            .regions
            .iter()
            .cloned()
            .map(|r| RegionModel::new(r, board))
            .collect();
        let aliases = board
            .regions
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.aliases.iter().map(move |&a| (a, r.size, i)))
            .collect();
        let caches = board.caches.iter().cloned().map(Cache::new).collect();
        let by_owner = vec![OwnerCounters::default(); regions.len()];
        MemorySystem {
            regions,
            caches,
            aliases,
            owner_base: 0,
            by_owner,
            watches: Vec::new(),
            stops: Vec::new(),
            stop_hit: None,
            stop_hits: 0,
            now: 0,
            bus_free_at: 0,
            observer: None,
        }
    }

    /// The core's cycle count now: a core whose caches buffer write-backs (`writeback_buffer`)
    /// sets it before the accesses it prices, so that a transaction waits for the bus only as long
    /// as a buffered write-back still occupies it.
    #[inline(always)]
    pub fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    /// Cycles a transaction on `region`'s memory starting now waits for a buffered write-back to
    /// leave the bus.
    #[inline(always)]
    fn bus_wait(&self, region: usize) -> u32 {
        if self.regions[region].spec.spi.is_none() {
            return 0;
        }
        self.bus_free_at.saturating_sub(self.now) as u32
    }

    /// Index of the region holding `addr` (aliases included).
    pub fn region_of(&self, addr: u32) -> Option<usize> {
        if let Some(i) = self.regions.iter().position(|r| r.spec.contains(addr)) {
            return Some(i);
        }
        self.aliases
            .iter()
            .find(|(base, size, _)| addr.wrapping_sub(*base) < *size && addr >= *base)
            .map(|a| a.2)
    }

    /// Regions a core must watch for data accesses: `(start, end_inclusive, index)` for every mapping
    /// (base and aliases) of regions that are not peripheral space.
    pub fn watched_ranges(&self) -> Vec<(u32, u32, usize)> {
        let mut out = Vec::new();
        for (i, r) in self.regions.iter().enumerate() {
            if r.spec.kind == RegionKind::Mmio {
                continue;
            }
            out.push((r.spec.base, (r.spec.end() - 1) as u32, i));
            for &a in &r.spec.aliases {
                out.push((a, a + (r.spec.size - 1), i));
            }
        }
        out
    }

    /// Charge the following accesses to `owner` (an index the caller chooses, e.g. a function's).
    #[inline]
    pub fn set_owner(&mut self, owner: usize) {
        let n = self.regions.len();
        self.owner_base = owner * n;
        if self.owner_base + n > self.by_owner.len() {
            self.by_owner
                .resize(self.owner_base + n, OwnerCounters::default());
        }
    }

    /// Zero every counter (regions, caches, owners), keeping the caches' contents: what ran before
    /// (the ROM's boot calls) is not part of the run's profile.
    pub fn reset_counters(&mut self) {
        self.regions
            .iter_mut()
            .for_each(|r| r.counters = RegionCounters::default());
        self.caches
            .iter_mut()
            .for_each(|c| c.counters = CacheCounters::default());
        self.by_owner
            .iter_mut()
            .for_each(|c| *c = OwnerCounters::default());
    }

    /// Non-zero counters per `(owner, region)`.
    pub fn owner_counters(&self) -> impl Iterator<Item = (usize, usize, &OwnerCounters)> {
        let n = self.regions.len();
        self.by_owner
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != OwnerCounters::default())
            .map(move |(slot, c)| (slot / n, slot % n, c))
    }

    /// Price one data access to `region` and count it. Returns the stall cycles.
    #[inline]
    pub fn data_access(&mut self, region: usize, addr: u32, size: u32, write: bool) -> u32 {
        let stall = match self.regions[region].spec.dcache {
            None => self.uncached_data_access(region, size, write),
            Some(c) => self.cached_data_access(region, c, addr, size, write),
        };
        if !self.watches.is_empty() || self.observer.is_some() {
            self.note_watched(addr, size, write, stall);
        }
        stall
    }

    /// Count one data access to `region`, whose data accesses cost nothing (`RegionModel::prices_data`
    /// is false): all that `data_access` does for it, which returns 0 there.
    #[inline(always)]
    pub fn count_unpriced_access(&mut self, region: usize, addr: u32, size: u32, write: bool) {
        debug_assert!(!self.regions[region].prices_data());
        count!(self, region, |c| c.add_access(size, write, 0));
        if !self.watches.is_empty() || self.observer.is_some() {
            self.note_watched(addr, size, write, 0);
        }
    }

    /// Count the data accesses `traffic` to `region`, whose data accesses cost nothing
    /// (`RegionModel::prices_data` is false), made while no range was watched (`has_watches`):
    /// what `data_access` adds for each of them, in one go (the counters are sums).
    pub fn count_unpriced_traffic(&mut self, region: usize, traffic: Traffic) {
        debug_assert!(!self.regions[region].prices_data());
        count!(self, region, |c| c.traffic += traffic);
    }

    /// Whether data accesses inside some range are counted apart (`watch`) or observed (`observe`):
    /// a core then reports every access in the regions it counts.
    #[inline(always)]
    pub fn has_watches(&self) -> bool {
        !self.watches.is_empty() || !self.stops.is_empty() || self.observer.is_some()
    }

    /// Hand every data access inside `ranges` (`[start, end)`) to `sink`, from now on.
    pub fn observe(&mut self, ranges: Vec<(u32, u64)>, sink: Box<dyn AccessObserver>) {
        self.observer = Some(Observer {
            ranges: merge_ranges(ranges),
            sink,
        });
    }

    /// The observer given to `observe`, if any.
    pub fn observer(&self) -> Option<&dyn AccessObserver> {
        self.observer.as_ref().map(|o| o.sink.as_ref())
    }

    /// The observer, to extend: give it more to see with `observe_range`.
    pub fn observer_mut(&mut self) -> Option<&mut (dyn AccessObserver + 'static)> {
        self.observer.as_mut().map(|o| o.sink.as_mut())
    }

    /// Hand the observer the accesses inside `[start, end)` too, from now on.
    pub fn observe_range(&mut self, start: u32, end: u64) {
        if let Some(o) = &mut self.observer {
            let mut ranges = std::mem::take(&mut o.ranges);
            ranges.push((start, end));
            o.ranges = merge_ranges(ranges);
        }
    }

    /// Replace the debugger's watchpoints (for a core that reports every access while
    /// `has_watches`). Counting is unchanged by them.
    pub fn set_stop_watches(&mut self, watches: &[StopWatch]) {
        self.stops = watches.to_vec();
        self.stop_hit = None;
    }

    /// How many accesses the stop watches saw so far.
    #[inline(always)]
    pub fn stop_hits(&self) -> u64 {
        self.stop_hits
    }

    /// The first access a stop watch saw since the last call.
    pub fn take_stop_hit(&mut self) -> Option<StopHit> {
        self.stop_hit.take()
    }

    pub fn has_stop_hit(&self) -> bool {
        self.stop_hit.is_some()
    }

    /// Watch `[start, start + len)`: every data access inside is counted in `watches[returned index]`
    /// (for a core that reports all accesses there, see `RegionModel::traffic_counted`).
    pub fn watch(&mut self, start: u32, len: u32) -> usize {
        self.watches.push(Watch {
            start,
            len,
            counters: WatchCounters::default(),
            read_log: None,
        });
        self.watches.len() - 1
    }

    /// As `watch`, and keep the address of every read inside the range for `take_read_log`.
    pub fn watch_logging_reads(&mut self, start: u32, len: u32) -> usize {
        let index = self.watch(start, len);
        self.watches[index].read_log = Some(Vec::new());
        index
    }

    /// The addresses read inside a logging watch since the last call.
    pub fn take_read_log(&mut self, index: usize) -> Vec<u32> {
        self.watches[index]
            .read_log
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub fn watch_counters(&self, index: usize) -> WatchCounters {
        self.watches[index].counters
    }

    /// The high-water mark of a watch since the last call (or since it was set up), restarting it.
    pub fn take_high_water(&mut self, index: usize) -> u32 {
        std::mem::take(&mut self.watches[index].counters.high_water)
    }

    #[cold]
    fn note_watched(&mut self, addr: u32, size: u32, write: bool, stall: u32) {
        if let Some(o) = &mut self.observer {
            let (a, end) = (u64::from(addr), u64::from(addr) + u64::from(size));
            let i = o.ranges.partition_point(|r| r.1 <= a);
            if o.ranges.get(i).is_some_and(|r| u64::from(r.0) < end) {
                o.sink.access(addr, size, write, stall, self.now);
            }
        }
        let stopped = self.stops.iter().find(|w| {
            let overlaps = addr < w.start.wrapping_add(w.len) && w.start < addr.wrapping_add(size);
            overlaps && if write { w.writes } else { w.reads }
        });
        if let Some(w) = stopped {
            let first = addr.max(w.start);
            self.stop_hits += 1;
            self.stop_hit.get_or_insert(StopHit { addr: first, write });
        }
        for w in &mut self.watches {
            let offset = addr.wrapping_sub(w.start);
            if offset >= w.len {
                continue;
            }
            let c = &mut w.counters;
            c.traffic.add(size, write);
            c.stall_cycles += stall as u64;
            if write {
                c.high_water = c.high_water.max(offset + size);
            } else if let Some(log) = &mut w.read_log {
                log.push(addr);
            }
        }
    }

    fn uncached_data_access(&mut self, region: usize, size: u32, write: bool) -> u32 {
        let r = &self.regions[region];
        let i = (size >> 1).min(2) as usize;
        let stall = if write {
            r.uncached_write[i]
        } else {
            r.uncached_read[i]
        } + self.bus_wait(region);
        count!(self, region, |c| c.add_access(size, write, stall));
        stall
    }

    /// A data access through the region's D-cache, with the cache's write policy.
    fn cached_data_access(
        &mut self,
        region: usize,
        cache: usize,
        addr: u32,
        size: u32,
        write: bool,
    ) -> u32 {
        let policy = self.caches[cache].spec.write_policy;
        let i = (size >> 1).min(2) as usize;
        let (lookup, mut stall) = match (write, policy) {
            // Stores that bypass the cache pay the memory's write time.
            (true, WritePolicy::ReadOnly) => (None, self.regions[region].uncached_write[i]),
            (true, WritePolicy::WriteThrough) => {
                let l = self.caches[cache].access(addr, false, false);
                (Some(l), self.regions[region].uncached_write[i])
            }
            (true, WritePolicy::WriteBack) => {
                (Some(self.caches[cache].access(addr, true, true)), 0)
            }
            (false, _) => (Some(self.caches[cache].access(addr, true, false)), 0),
        };
        let allocating = !write || policy == WritePolicy::WriteBack;
        let mut writeback = None;
        match lookup {
            Some(Lookup::Hit) => stall += self.caches[cache].spec.hit_cycles,
            Some(Lookup::Miss { evicted_dirty }) if allocating => {
                stall += self.bus_wait(region) + self.regions[region].dcache_fill;
                if let Some(victim) = evicted_dirty {
                    // The victim may belong to another region sharing the cache: its memory takes the write.
                    let owner = self.region_of(victim).unwrap_or(region);
                    let time = self.regions[owner].writeback;
                    if self.caches[cache].spec.writeback_buffer {
                        // Written back from the buffer once the fill is done (+1: the fill's own cycle).
                        self.bus_free_at = self.now + stall as u64 + 1 + time as u64;
                    } else {
                        stall += time;
                    }
                    writeback = Some(owner);
                }
            }
            Some(Lookup::Miss { .. }) | None => {}
        }
        self.caches[cache].counters.stall_cycles += stall as u64;
        let hit = lookup == Some(Lookup::Hit);
        let miss = matches!(lookup, Some(Lookup::Miss { .. }));
        count!(self, region, |c| {
            c.add_access(size, write, stall);
            c.dcache_hits += hit as u64;
            c.dcache_misses += miss as u64;
        });
        if let Some(victim_region) = writeback {
            count!(self, victim_region, |c| c.writebacks += 1);
        }
        stall
    }

    /// Fetch `units` `(unit address, I-cache slot hint)` from `region` in order, when each is in
    /// the I-cache entry its hint names: then every `fetch_at` of them is a hit, which moves no line,
    /// and this does what they would, at once. Returns the stall of each (the cache's hit time), or
    /// `None`, having done nothing, when one is not there (or `region` fetches through no I-cache).
    /// `resident` memoises the look: the I-cache's `Cache::fills` when the units were last all
    /// found there, which holds as long as no line has been allocated since (`NOT_RESIDENT` at
    /// first).
    #[inline]
    pub fn fetch_hits(
        &mut self,
        region: usize,
        units: &[(u32, u32)],
        resident: &mut u64,
    ) -> Option<u32> {
        let r = &mut self.regions[region];
        let cache = &mut self.caches[r.spec.icache?];
        let &(last, _) = units.last()?;
        if *resident != cache.fills() {
            if !units.iter().all(|&(addr, slot)| cache.holds(addr, slot)) {
                return None;
            }
            *resident = cache.fills();
        }
        cache.hit_all(units.iter().map(|&(_, slot)| slot));
        r.last_fetch_unit = Some(last & !(r.fetch_unit - 1));
        let stall = cache.spec.hit_cycles;
        let (n, total) = (units.len() as u64, units.len() as u64 * stall as u64);
        cache.counters.stall_cycles += total;
        count!(self, region, |c| {
            c.fetches += n;
            c.icache_hits += n;
            c.stall_cycles += total;
        });
        Some(stall)
    }

    /// Price the fetch of the unit holding `addr` from `region`. `cycles_in_previous_unit` is how long
    /// the core spent executing from the previous unit: a sequential prefetch buffer hides that much of
    /// the next read. Returns the stall cycles.
    #[inline]
    pub fn fetch(&mut self, region: usize, addr: u32, cycles_in_previous_unit: u32) -> u32 {
        let mut slot = NO_SLOT;
        self.fetch_at(region, addr, cycles_in_previous_unit, &mut slot)
    }

    /// As `fetch`, with the I-cache entry where the unit was found before (`Cache::access_at`):
    /// a core that fetches the same units again and again keeps one hint per unit.
    #[inline]
    pub fn fetch_at(
        &mut self,
        region: usize,
        addr: u32,
        cycles_in_previous_unit: u32,
        slot: &mut u32,
    ) -> u32 {
        let r = &mut self.regions[region];
        let unit = addr & !(r.fetch_unit - 1);
        let sequential = r.last_fetch_unit.map(|u| u.wrapping_add(r.fetch_unit)) == Some(unit);
        r.last_fetch_unit = Some(unit);
        let (prefetch, fill) = (r.spec.prefetch, r.icache_fill);
        let mut hit = None;
        if let Some(c) = r.spec.icache {
            let cache = &mut self.caches[c];
            hit = Some(cache.access_at(addr, true, false, slot) == Lookup::Hit);
            if hit == Some(true) {
                let stall = cache.spec.hit_cycles;
                cache.counters.stall_cycles += stall as u64;
                count!(self, region, |c| {
                    c.fetches += 1;
                    c.icache_hits += 1;
                    c.stall_cycles += stall as u64;
                });
                return stall;
            }
        }
        let stall = if sequential && prefetch {
            // The buffer started this read when the previous unit arrived: fill + 1 cycles in all.
            (fill + 1).saturating_sub(cycles_in_previous_unit)
        } else {
            self.bus_wait(region) + fill
        };
        if let Some(c) = self.regions[region].spec.icache {
            self.caches[c].counters.stall_cycles += stall as u64;
        }
        let miss = hit == Some(false);
        count!(self, region, |c| {
            c.fetches += 1;
            c.icache_misses += miss as u64;
            c.stall_cycles += stall as u64;
        });
        stall
    }
}

#[cfg(test)]
mod tests;
