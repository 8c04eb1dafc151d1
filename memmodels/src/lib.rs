//! Memory map, region latency models and traffic counters, shared by every core.
//!
//! A core asks a region what an access costs *beyond* the core's own cycle count for that instruction
//! (which already assumes a zero-wait-state memory). The models and their equations are in
//! docs/memory-models.md; the figures come from the board files.

mod cache;

pub use cache::Cache;
use tigris_targets::{Board, Region, RegionKind};

/// Traffic and stall counters of one region.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionCounters {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Instruction-fetch units (lines) requested from the region.
    pub fetches: u64,
    /// Cycles the core waited on this region (data and fetch).
    pub stall_cycles: u64,
    pub icache_hits: u64,
    pub icache_misses: u64,
    pub dcache_hits: u64,
    pub dcache_misses: u64,
}

/// One region with its live model state.
#[derive(Debug, Clone)]
pub struct RegionModel {
    pub spec: Region,
    pub counters: RegionCounters,
    /// Whether the core reports every data access here (a core may skip regions that cost nothing,
    /// for speed); when false, `reads`/`writes` and their bytes are not known.
    pub traffic_counted: bool,
    icache: Option<Cache>,
    dcache: Option<Cache>,
    /// Bytes per instruction-fetch unit: the I-cache line, else the flash line.
    fetch_unit: u32,
    /// Fetch unit last requested, for the sequential prefetch buffer.
    last_fetch_unit: Option<u32>,
}

impl RegionModel {
    pub fn new(spec: Region) -> Self {
        let fetch_unit = spec.icache.map(|c| c.line_bytes).unwrap_or(spec.bus_bytes);
        RegionModel {
            icache: spec.icache.map(Cache::new),
            dcache: spec.dcache.map(Cache::new),
            counters: RegionCounters::default(),
            traffic_counted: true,
            fetch_unit,
            last_fetch_unit: None,
            spec,
        }
    }

    /// Whether data accesses to this region cost anything beyond the core's own cycles.
    pub fn prices_data(&self) -> bool {
        self.spec.read_wait_states > 0 || self.spec.write_wait_states > 0 || self.dcache.is_some()
    }

    /// Whether instruction fetch from this region can stall the core.
    pub fn prices_fetch(&self) -> bool {
        self.spec.read_wait_states > 0 || self.icache.is_some() || self.spec.miss_cycles > 0
    }

    pub fn fetch_unit(&self) -> u32 {
        self.fetch_unit
    }

    /// Cycles to bring one cache line of `line_bytes` from the backing memory.
    /// XIP/PSRAM give the transfer time directly (`miss_cycles`); flash reads `line_bytes / bus_bytes`
    /// array lines, each `wait_states + 1` cycles, of which the core's own cycle hides one.
    fn refill_cycles(&self, line_bytes: u32) -> u32 {
        if self.spec.miss_cycles > 0 {
            return self.spec.miss_cycles;
        }
        let reads = (line_bytes / self.spec.bus_bytes).max(1);
        reads * (self.spec.read_wait_states + 1) - 1
    }

    /// Price one data access and count it. Returns the stall cycles.
    pub fn data_access(&mut self, addr: u32, size: u32, write: bool) -> u32 {
        let c = &mut self.counters;
        let stall = if write {
            c.writes += 1;
            c.write_bytes += size as u64;
            self.spec.write_wait_states
        } else {
            c.reads += 1;
            c.read_bytes += size as u64;
            match &mut self.dcache {
                Some(cache) => {
                    if cache.access(addr) {
                        c.dcache_hits += 1;
                        0
                    } else {
                        c.dcache_misses += 1;
                        let line = cache.spec().line_bytes;
                        self.refill_cycles(line)
                    }
                }
                None => self.spec.read_wait_states,
            }
        };
        self.counters.stall_cycles += stall as u64;
        stall
    }

    /// Price the fetch of the unit holding `addr`. `cycles_in_previous_unit` is how long the core
    /// spent executing from the previous unit: a sequential prefetch buffer hides that much of the
    /// next read. Returns the stall cycles.
    pub fn fetch(&mut self, addr: u32, cycles_in_previous_unit: u32) -> u32 {
        let unit = addr & !(self.fetch_unit - 1);
        let sequential = self.last_fetch_unit.map(|u| u.wrapping_add(self.fetch_unit)) == Some(unit);
        self.last_fetch_unit = Some(unit);
        self.counters.fetches += 1;
        if let Some(cache) = &mut self.icache {
            if cache.access(addr) {
                self.counters.icache_hits += 1;
                return 0;
            }
            self.counters.icache_misses += 1;
        }
        let refill = self.refill_cycles(self.fetch_unit);
        let stall = if sequential && self.spec.prefetch {
            // The buffer started this read when the previous unit arrived: refill + 1 cycles in all.
            (refill + 1).saturating_sub(cycles_in_previous_unit)
        } else {
            refill
        };
        self.counters.stall_cycles += stall as u64;
        stall
    }
}

/// All regions of a board with their models.
#[derive(Debug, Clone)]
pub struct MemorySystem {
    pub regions: Vec<RegionModel>,
    aliases: Vec<(u32, u32, usize)>,
}

impl MemorySystem {
    pub fn new(board: &Board) -> Self {
        let regions: Vec<RegionModel> = board.regions.iter().cloned().map(RegionModel::new).collect();
        let aliases = board
            .regions
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.aliases.iter().map(move |&a| (a, r.size, i)))
            .collect();
        MemorySystem { regions, aliases }
    }

    /// Index of the region holding `addr` (aliases included).
    pub fn region_of(&self, addr: u32) -> Option<usize> {
        if let Some(i) = self.regions.iter().position(|r| r.spec.contains(addr)) {
            return Some(i);
        }
        self.aliases.iter().find(|(base, size, _)| addr.wrapping_sub(*base) < *size && addr >= *base).map(|a| a.2)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flash(prefetch: bool) -> RegionModel {
        let b = tigris_targets::load("stm32f446re").unwrap();
        let mut spec = b.regions[0].clone();
        spec.prefetch = prefetch;
        spec.icache = None;
        RegionModel::new(spec)
    }

    #[test]
    fn flash_fetch_without_prefetch_costs_the_wait_states_per_line() {
        let mut f = flash(false);
        assert_eq!(f.fetch(0x0800_0000, 0), 5);
        assert_eq!(f.fetch(0x0800_0010, 8), 5);
        assert_eq!(f.counters.stall_cycles, 10);
    }

    #[test]
    fn prefetch_hides_wait_states_of_straight_line_code() {
        let mut f = flash(true);
        assert_eq!(f.fetch(0x0800_0000, 0), 5, "first line: non-sequential");
        assert_eq!(f.fetch(0x0800_0010, 8), 0, "8 cycles in the previous line hide all of 5 + 1");
        assert_eq!(f.fetch(0x0800_0020, 4), 2, "4 cycles hide 4 of 6");
        assert_eq!(f.fetch(0x0800_0100, 4), 5, "a branch is not sequential");
    }

    #[test]
    fn art_cache_hits_cost_nothing() {
        let b = tigris_targets::load("stm32f446re").unwrap();
        let mut f = RegionModel::new(b.regions[0].clone());
        assert_eq!(f.fetch(0x0800_0000, 0), 5);
        assert_eq!(f.fetch(0x0800_0000, 0), 0);
        assert_eq!((f.counters.icache_hits, f.counters.icache_misses), (1, 1));
        assert_eq!(f.data_access(0x0800_1000, 4, false), 5);
        assert_eq!(f.data_access(0x0800_1004, 4, false), 0, "same 16-byte line");
    }

    #[test]
    fn xip_miss_costs_the_transfer() {
        let b = tigris_targets::load("rp2040").unwrap();
        let mut m = MemorySystem::new(&b);
        let xip = m.region_of(0x1000_0000).unwrap();
        assert_eq!(m.regions[xip].fetch(0x1000_0000, 0), 56);
        assert_eq!(m.regions[xip].fetch(0x1000_0004, 0), 0);
    }

    #[test]
    fn alias_maps_to_its_region() {
        let b = tigris_targets::load("stm32f446re").unwrap();
        let m = MemorySystem::new(&b);
        assert_eq!(m.region_of(0x0000_0040), Some(0));
        assert_eq!(m.region_of(0x2000_0000), Some(1));
        assert_eq!(m.region_of(0x9000_0000), None);
    }
}
