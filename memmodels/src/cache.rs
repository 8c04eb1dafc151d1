//! Set-associative cache with true LRU replacement; tracks tags only (the data stays in the core's memory).

use tigris_targets::CacheSpec;

#[derive(Debug, Clone)]
pub struct Cache {
    spec: CacheSpec,
    line_shift: u32,
    set_mask: u32,
    /// `ways` entries per set, most recently used first; `u32::MAX` marks an empty way.
    tags: Vec<u32>,
}

impl Cache {
    pub fn new(spec: CacheSpec) -> Self {
        let sets = spec.sets();
        Cache {
            spec,
            line_shift: spec.line_bytes.trailing_zeros(),
            set_mask: sets - 1,
            tags: vec![u32::MAX; (sets * spec.ways) as usize],
        }
    }

    pub fn spec(&self) -> CacheSpec {
        self.spec
    }

    /// Look up `addr`, fill on miss, update LRU order. Returns true on a hit.
    pub fn access(&mut self, addr: u32) -> bool {
        let line = addr >> self.line_shift;
        let set = (line & self.set_mask) as usize;
        let ways = self.spec.ways as usize;
        let entries = &mut self.tags[set * ways..(set + 1) * ways];
        match entries.iter().position(|&t| t == line) {
            Some(pos) => {
                entries[..=pos].rotate_right(1);
                true
            }
            None => {
                entries.rotate_right(1);
                entries[0] = line;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recent_line() {
        // 2 ways, 1 set, 16-byte lines.
        let mut c = Cache::new(CacheSpec { size: 32, ways: 2, line_bytes: 16 });
        assert!(!c.access(0x00));
        assert!(!c.access(0x10));
        assert!(c.access(0x04));
        assert!(!c.access(0x20)); // evicts 0x10, the least recently used
        assert!(c.access(0x00));
        assert!(!c.access(0x10));
    }
}
