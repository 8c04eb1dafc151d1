//! A flat profile for code the run's observer does not see (the second core of a dual-core chip):
//! self cycles and instructions per function, without a call graph. It reports to the core only
//! when execution leaves the current function's address range, as the main profiler does.

use crate::{ExecObserver, Flow};

/// Self cycles and instructions per function of a sorted list of function start addresses.
/// Function `i` spans `[starts[i], starts[i + 1])`; code below the first start is `starts.len()`,
/// the "elsewhere" bucket.
#[derive(Debug, Clone, Default)]
pub struct FlatProfile {
    starts: Vec<u32>,
    /// Per function (and the last entry: elsewhere): (self cycles, self instructions).
    pub counts: Vec<(u64, u64)>,
    current: usize,
    since: (u64, u64),
    quiet: (u32, u32),
    /// The memory owner the traffic of this code is charged to.
    owner: usize,
}

impl FlatProfile {
    /// A profile over functions starting at `starts` (sorted ascending), whose memory traffic is
    /// charged to `owner`; counting starts at `cycles`, `instructions`.
    pub fn new(starts: Vec<u32>, owner: usize, cycles: u64, instructions: u64) -> FlatProfile {
        let n = starts.len();
        FlatProfile {
            starts,
            counts: vec![(0, 0); n + 1],
            current: n,
            since: (cycles, instructions),
            quiet: (1, 0),
            owner,
        }
    }

    /// Count on from `cycles`, `instructions` (the core restarted, its counters set anew), what ran
    /// before kept.
    pub fn restart_at(&mut self, cycles: u64, instructions: u64) {
        self.since = (cycles, instructions);
    }

    /// Charge what ran since the last event to the current function.
    pub fn charge(&mut self, cycles: u64, instructions: u64) {
        let c = &mut self.counts[self.current];
        c.0 += cycles.saturating_sub(self.since.0);
        c.1 += instructions.saturating_sub(self.since.1);
        self.since = (cycles, instructions);
    }
}

impl ExecObserver for FlatProfile {
    fn block(&mut self, pc: u32, _flow: Flow, cycles: u64, instructions: u64) {
        self.charge(cycles, instructions);
        let n = self.starts.len();
        self.current = match self.starts.partition_point(|&s| s <= pc) {
            0 => n,
            i => i - 1,
        };
        self.quiet = match self.current {
            i if i == n => (0, self.starts.first().copied().unwrap_or(u32::MAX)),
            i => (
                self.starts[i],
                self.starts.get(i + 1).copied().unwrap_or(u32::MAX),
            ),
        };
    }

    fn quiet_jumps(&self) -> (u32, u32) {
        self.quiet
    }

    fn memory_owner(&self) -> usize {
        self.owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_goes_to_the_function_that_ran_it() {
        let mut p = FlatProfile::new(vec![0x100, 0x200], 7, 0, 0);
        p.block(0x104, Flow::Jump, 0, 0);
        assert_eq!(p.quiet_jumps(), (0x100, 0x200));
        p.block(0x200, Flow::Call { return_to: 0x108 }, 10, 4);
        p.block(0x108, Flow::Return, 25, 9);
        p.block(0x50, Flow::Jump, 30, 11);
        p.charge(31, 12);
        assert_eq!(p.counts, vec![(15, 6), (15, 5), (1, 1)]);
        assert_eq!(p.memory_owner(), 7);
    }
}
