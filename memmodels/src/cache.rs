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
    /// `ways` entries per set in replacement order: the next victim last. LRU moves a hit to the front;
    /// FIFO leaves the order to the fills.
    entries: Vec<u32>,
}

impl Cache {
    pub fn new(spec: CacheSpec) -> Self {
        let sets = spec.sets();
        Cache {
            line_shift: spec.line_bytes.trailing_zeros(),
            set_mask: sets - 1,
            entries: vec![EMPTY; (sets * spec.ways) as usize],
            counters: CacheCounters::default(),
            spec,
        }
    }

    /// Look up `addr`; on a miss allocate its line when `allocate`. A store (`write`) that hits or
    /// allocates marks the line dirty. Counts the hit or miss.
    pub fn access(&mut self, addr: u32, allocate: bool, write: bool) -> Lookup {
        let line = addr >> self.line_shift;
        let key = line + 1;
        let ways = self.spec.ways as usize;
        let set = (line & self.set_mask) as usize;
        let entries = &mut self.entries[set * ways..(set + 1) * ways];
        let dirty = if write { DIRTY } else { 0 };
        if let Some(pos) = entries.iter().position(|&e| e & !DIRTY == key) {
            self.counters.hits += 1;
            entries[pos] |= dirty;
            if self.spec.replacement == Replacement::Lru {
                entries[..=pos].rotate_right(1);
            }
            return Lookup::Hit;
        }
        self.counters.misses += 1;
        if !allocate {
            return Lookup::Miss {
                evicted_dirty: None,
            };
        }
        let victim = entries[ways - 1];
        entries.rotate_right(1);
        entries[0] = key | dirty;
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
