//! Set-associative cache that tracks tags and dirty bits only (the data stays in the core's memory).

use tigris_targets::{CacheSpec, Replacement};

/// Hits, misses and write-backs of one cache, with the stall cycles its misses caused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounters {
    pub hits: u64,
    pub misses: u64,
    pub writebacks: u64,
    pub stall_cycles: u64,
}

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Hit,
    /// The line was not present. When it was allocated, `evicted_dirty` is the address of a dirty line it
    /// replaced, which must be written back.
    Miss {
        evicted_dirty: Option<u32>,
    },
}

/// An entry is `line number + 1` in the low 31 bits (0 = empty) and the dirty flag in bit 31; lines are
/// at least 4 bytes, so line numbers stay below 2^30.
const DIRTY: u32 = 1 << 31;
const EMPTY: u32 = 0;

#[derive(Debug, Clone)]
pub struct Cache {
    pub spec: CacheSpec,
    pub counters: CacheCounters,
    line_shift: u32,
    set_mask: u32,
    /// `ways` entries per set, in no particular order.
    entries: Vec<u32>,
    /// When each entry was last used (LRU) or filled (FIFO), by `clock`; 0 for an empty entry. The
    /// victim is the set's entry with the oldest stamp: empty ones first, as no line is ever moved
    /// (a wide set, the 64 ways of an STM32 ART, made moving lines the cost of every fetch).
    stamps: Vec<u64>,
    clock: u64,
    /// Lines allocated so far: entries change only when one is, so a line found in an entry stays
    /// there until this count moves (`MemorySystem::fetch_hits` memoises on it).
    fills: u64,
}

/// A `slot` hint for `Cache::access_at` that names no entry.
pub const NO_SLOT: u32 = u32::MAX;

impl Cache {
    pub fn new(spec: CacheSpec) -> Self {
        let sets = spec.sets();
        let n = (sets * spec.ways) as usize;
        Cache {
            line_shift: spec.line_bytes.trailing_zeros(),
            set_mask: sets - 1,
            entries: vec![EMPTY; n],
            stamps: vec![0; n],
            clock: 0,
            fills: 0,
            counters: CacheCounters::default(),
            spec,
        }
    }

    /// Look up `addr`; on a miss allocate its line when `allocate`. A store (`write`) that hits or
    /// allocates marks the line dirty. Counts the hit or miss.
    #[inline]
    pub fn access(&mut self, addr: u32, allocate: bool, write: bool) -> Lookup {
        let mut slot = NO_SLOT;
        self.access_at(addr, allocate, write, &mut slot)
    }

    /// Whether entry `slot` holds the line of `addr` (a hint `access_at` would find it by).
    #[inline(always)]
    pub fn holds(&self, addr: u32, slot: u32) -> bool {
        let key = (addr >> self.line_shift) + 1;
        self.entries
            .get(slot as usize)
            .is_some_and(|&e| e & !DIRTY == key)
    }

    /// Lines allocated so far (see the field).
    #[inline(always)]
    pub fn fills(&self) -> u64 {
        self.fills
    }

    /// Count a hit on entry `slot` and make it the most recent.
    #[inline(always)]
    pub(crate) fn hit(&mut self, slot: u32) {
        self.counters.hits += 1;
        self.touch(slot);
    }

    /// Hits on the entries `slots`, in order: `hit` on each.
    #[inline(always)]
    pub(crate) fn hit_all(&mut self, slots: impl ExactSizeIterator<Item = u32>) {
        self.counters.hits += slots.len() as u64;
        for slot in slots {
            self.touch(slot);
        }
    }

    /// Make entry `slot` the most recent, for LRU replacement.
    #[inline(always)]
    fn touch(&mut self, slot: u32) {
        if self.spec.replacement == Replacement::Lru {
            self.clock += 1;
            self.stamps[slot as usize] = self.clock;
        }
    }

    /// As `access`, looking first in entry `slot` (where the line was found before, or `NO_SLOT`),
    /// which spares a wide set's search when the line is still there; leaves in `slot` the entry
    /// that holds the line afterwards, if any.
    #[inline]
    pub fn access_at(&mut self, addr: u32, allocate: bool, write: bool, slot: &mut u32) -> Lookup {
        let line = addr >> self.line_shift;
        let key = line + 1;
        let ways = self.spec.ways as usize;
        let set = (line & self.set_mask) as usize * ways;
        let dirty = if write { DIRTY } else { 0 };
        // A line lives in one set only, so a hinted entry that holds it is in the right set.
        let found = if self.holds(addr, *slot) {
            Some(*slot as usize)
        } else {
            self.entries[set..set + ways]
                .iter()
                .position(|&e| e & !DIRTY == key)
                .map(|p| set + p)
        };
        if let Some(i) = found {
            self.entries[i] |= dirty;
            self.hit(i as u32);
            *slot = i as u32;
            return Lookup::Hit;
        }
        self.counters.misses += 1;
        if !allocate {
            *slot = NO_SLOT;
            return Lookup::Miss {
                evicted_dirty: None,
            };
        }
        let stamps = &self.stamps[set..set + ways];
        let oldest = (0..ways).min_by_key(|&w| stamps[w]).unwrap_or(0);
        let i = set + oldest;
        let victim = self.entries[i];
        self.fills += 1;
        self.clock += 1;
        self.entries[i] = key | dirty;
        self.stamps[i] = self.clock;
        *slot = i as u32;
        let evicted_dirty =
            (victim & DIRTY != 0).then(|| ((victim & !DIRTY) - 1) << self.line_shift);
        if evicted_dirty.is_some() {
            self.counters.writebacks += 1;
        }
        Lookup::Miss { evicted_dirty }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tigris_targets::WritePolicy;

    fn cache(size: u32, ways: u32, replacement: Replacement) -> Cache {
        Cache::new(CacheSpec {
            name: "c".into(),
            size,
            ways,
            line_bytes: 16,
            write_policy: WritePolicy::WriteBack,
            replacement,
            hit_cycles: 0,
            writeback_buffer: false,
        })
    }

    #[test]
    fn lru_evicts_the_least_recent_line() {
        // 2 ways, 1 set, 16-byte lines.
        let mut c = cache(32, 2, Replacement::Lru);
        assert_eq!(
            c.access(0x00, true, false),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
        assert_eq!(
            c.access(0x10, true, false),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
        assert_eq!(c.access(0x04, true, false), Lookup::Hit);
        assert_eq!(
            c.access(0x20, true, false),
            Lookup::Miss {
                evicted_dirty: None
            },
            "evicts 0x10"
        );
        assert_eq!(c.access(0x00, true, false), Lookup::Hit);
        assert_eq!(
            c.access(0x10, true, false),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
        assert_eq!((c.counters.hits, c.counters.misses), (2, 4));
    }

    #[test]
    fn fifo_evicts_the_oldest_fill_even_when_it_was_just_used() {
        let mut c = cache(32, 2, Replacement::Fifo);
        c.access(0x00, true, false);
        c.access(0x10, true, false);
        assert_eq!(c.access(0x00, true, false), Lookup::Hit);
        c.access(0x20, true, false); // evicts 0x00, filled first
        assert_eq!(c.access(0x10, true, false), Lookup::Hit);
        assert_eq!(
            c.access(0x00, true, false),
            Lookup::Miss {
                evicted_dirty: None
            }
        );
    }

    #[test]
    fn dirty_lines_are_written_back_when_evicted() {
        let mut c = cache(32, 2, Replacement::Lru);
        c.access(0x100, true, true); // store miss allocates a dirty line
        c.access(0x210, true, false);
        assert_eq!(
            c.access(0x320, true, false),
            Lookup::Miss {
                evicted_dirty: Some(0x100)
            }
        );
        assert_eq!(c.counters.writebacks, 1);
        assert_eq!(
            c.access(0x430, true, false),
            Lookup::Miss {
                evicted_dirty: None
            },
            "0x210 was clean"
        );
        assert_eq!(
            c.access(0x500, false, true),
            Lookup::Miss {
                evicted_dirty: None
            },
            "no allocation"
        );
        assert_eq!(
            c.access(0x500, true, false),
            Lookup::Miss {
                evicted_dirty: None
            },
            "still absent"
        );
    }

    /// A hint only spares the search: stale hints, hints into other sets and none give the same
    /// lookups, replacement included.
    #[test]
    fn slot_hints_change_no_lookup() {
        for replacement in [Replacement::Lru, Replacement::Fifo] {
            let (mut plain, mut hinted) = (cache(64, 2, replacement), cache(64, 2, replacement));
            let mut slots = [NO_SLOT; 8];
            for i in 0..200u32 {
                let addr = (i * 7 % 11) << 4;
                let unit = (addr >> 4) as usize % slots.len();
                // Every third access with the hint of the next unit, which is stale or foreign.
                let skew = usize::from(i % 3 == 1);
                let slot = &mut slots[(unit + skew) % slots.len()];
                let write = i % 5 == 1;
                assert_eq!(
                    hinted.access_at(addr, true, write, slot),
                    plain.access(addr, true, write)
                );
            }
            assert_eq!(hinted.counters, plain.counters);
        }
    }

    #[test]
    fn sets_are_independent() {
        // 2 sets of 1 way: lines alternate between sets.
        let mut c = cache(32, 1, Replacement::Lru);
        c.access(0x00, true, false);
        c.access(0x10, true, false);
        assert_eq!(c.access(0x00, true, false), Lookup::Hit);
        assert_eq!(
            c.access(0x20, true, false),
            Lookup::Miss {
                evicted_dirty: None
            },
            "set 0 again"
        );
        assert_eq!(c.access(0x10, true, false), Lookup::Hit, "set 1 untouched");
    }
}
