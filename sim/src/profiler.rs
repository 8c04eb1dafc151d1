//! Attributes cycles and instructions to functions from the block stream of a core: self and
//! inclusive figures over a shadow call stack that follows calls, returns, tail calls and exceptions,
//! and self figures per call path (flame graphs).

use crate::elf::SymbolMap;
use rustc_hash::FxHashMap;
use tigris_cores::{ExecObserver, Flow};

/// Call paths deeper than this are cut: deeper frames count towards the path of their ancestor at
/// this depth (keeps deep recursion from making one path per level).
pub const MAX_PATH_DEPTH: usize = 48;

/// A call path: its innermost function and the path of its caller.
#[derive(Debug, Clone, Copy)]
struct PathNode {
    parent: u32,
    function: usize,
    depth: usize,
}

/// Call paths seen so far, each with the self cycles and instructions of its innermost function.
#[derive(Debug, Clone)]
struct CallPaths {
    /// Index 0 is the empty path (code run before the first block).
    nodes: Vec<PathNode>,
    index: FxHashMap<(u32, usize), u32>,
    cycles: Vec<u64>,
    instructions: Vec<u64>,
}

impl CallPaths {
    fn new(unknown: usize) -> Self {
        CallPaths {
            nodes: vec![PathNode {
                parent: 0,
                function: unknown,
                depth: 0,
            }],
            index: FxHashMap::default(),
            cycles: vec![0],
            instructions: vec![0],
        }
    }

    /// The path of `function` called from `parent`.
    fn child(&mut self, parent: u32, function: usize) -> u32 {
        let depth = self.nodes[parent as usize].depth + 1;
        if depth > MAX_PATH_DEPTH {
            return parent;
        }
        let next = self.nodes.len() as u32;
        *self.index.entry((parent, function)).or_insert_with(|| {
            self.nodes.push(PathNode {
                parent,
                function,
                depth,
            });
            self.cycles.push(0);
            self.instructions.push(0);
            next
        })
    }

    /// Functions of a path, outermost first.
    fn functions(&self, mut path: u32) -> Vec<usize> {
        let mut out = Vec::new();
        while path != 0 {
            let n = self.nodes[path as usize];
            out.push(n.function);
            path = n.parent;
        }
        if out.is_empty() {
            out.push(self.nodes[0].function);
        }
        out.reverse();
        out
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct FunctionStats {
    pub calls: u64,
    pub self_cycles: u64,
    pub self_instructions: u64,
    pub inclusive_cycles: u64,
    pub inclusive_instructions: u64,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Function index, or `UNKNOWN` for code no symbol covers.
    function: usize,
    /// Where this frame returns to (0 when it is not a call).
    return_to: u32,
    exception: bool,
    entry_cycles: u64,
    entry_instructions: u64,
    path: u32,
}

#[derive(Clone)]
pub struct Profiler<'s> {
    symbols: &'s SymbolMap,
    /// Per function; the last entry collects code outside every symbol.
    pub stats: Vec<FunctionStats>,
    /// How many frames of each function are open (inclusive time counts only the outermost).
    open: Vec<u32>,
    stack: Vec<Frame>,
    last_cycles: u64,
    last_instructions: u64,
    /// Address range of the function on top of the stack.
    range: (u32, u32),
    paths: CallPaths,
    /// With `count_segments`: the straight-line runs of code between block events, by (first PC,
    /// instructions), with their cycles and how often they ran — what a per-line profile is made of.
    segments: Option<FxHashMap<(u32, u32), (u64, u64)>>,
    /// Where the run since the last block event started.
    segment_pc: u32,
    /// `function_at`'s answers by PC, 1 + the function (0: none), direct-mapped: calls and
    /// returns come back to few PCs, and the symbol search was the largest cost of a call.
    memo: Box<[(u32, u32); MEMO_SLOTS]>,
}

/// Entries of `Profiler::memo`.
const MEMO_SLOTS: usize = 512;

impl<'s> Profiler<'s> {
    pub fn new(symbols: &'s SymbolMap) -> Self {
        let n = symbols.len() + 1;
        Profiler {
            symbols,
            stats: vec![FunctionStats::default(); n],
            open: vec![0; n],
            stack: Vec::new(),
            last_cycles: 0,
            last_instructions: 0,
            range: (1, 0),
            paths: CallPaths::new(n - 1),
            segments: None,
            segment_pc: 0,
            memo: Box::new([(0, 0); MEMO_SLOTS]),
        }
    }

    /// Count every straight-line run of code (slower: every block is then reported).
    pub fn count_segments(&mut self) {
        self.segments = Some(FxHashMap::default());
    }

    /// The straight-line runs counted: (first PC, instructions, cycles, times run), in address order.
    pub fn segments(&self) -> Vec<(u32, u32, u64, u64)> {
        let mut out: Vec<_> = self
            .segments
            .iter()
            .flatten()
            .map(|(&(pc, n), &(cycles, runs))| (pc, n, cycles, runs))
            .collect();
        out.sort_unstable();
        out
    }

    pub fn unknown(&self) -> usize {
        self.symbols.len()
    }

    fn function_at(&mut self, pc: u32) -> usize {
        let slot = &mut self.memo[(pc ^ pc >> 9) as usize % MEMO_SLOTS];
        if slot.0 == pc && slot.1 != 0 {
            return slot.1 as usize - 1;
        }
        let f = self.symbols.lookup(pc).unwrap_or(self.symbols.len());
        *slot = (pc, f as u32 + 1);
        f
    }

    fn push(
        &mut self,
        function: usize,
        return_to: u32,
        exception: bool,
        cycles: u64,
        instructions: u64,
    ) {
        self.stats[function].calls += 1;
        self.open[function] += 1;
        let caller = self.stack.last().map(|f| f.path).unwrap_or(0);
        let path = self.paths.child(caller, function);
        self.stack.push(Frame {
            function,
            return_to,
            exception,
            entry_cycles: cycles,
            entry_instructions: instructions,
            path,
        });
    }

    fn close(&mut self, frame: Frame, cycles: u64, instructions: u64) {
        self.open[frame.function] -= 1;
        if self.open[frame.function] == 0 {
            let s = &mut self.stats[frame.function];
            s.inclusive_cycles += cycles - frame.entry_cycles;
            s.inclusive_instructions += instructions - frame.entry_instructions;
        }
    }

    fn pop_to(&mut self, depth: usize, cycles: u64, instructions: u64) {
        while self.stack.len() > depth {
            let f = self.stack.pop().expect("depth below length");
            self.close(f, cycles, instructions);
        }
    }

    fn set_range(&mut self) {
        self.range = match self.stack.last() {
            Some(f) if f.function != self.unknown() => self.symbols.range(f.function),
            _ => (1, 0),
        };
    }

    /// Charge what ran since the last block to the function (and call path) running then.
    fn charge(&mut self, cycles: u64, instructions: u64) {
        let (top, path) = self
            .stack
            .last()
            .map(|f| (f.function, f.path))
            .unwrap_or((self.unknown(), 0));
        let (dc, di) = (
            cycles - self.last_cycles,
            instructions - self.last_instructions,
        );
        self.stats[top].self_cycles += dc;
        self.stats[top].self_instructions += di;
        self.paths.cycles[path as usize] += dc;
        self.paths.instructions[path as usize] += di;
        if let Some(segments) = &mut self.segments {
            if di > 0 {
                let n = u32::try_from(di).unwrap_or(u32::MAX);
                let counts = segments.entry((self.segment_pc, n)).or_default();
                counts.0 += dc;
                counts.1 += 1;
            }
        }
        self.last_cycles = cycles;
        self.last_instructions = instructions;
    }

    /// Charge what ran since the last block, and close every open frame.
    pub fn finish(&mut self, cycles: u64, instructions: u64) {
        self.charge(cycles, instructions);
        self.pop_to(0, cycles, instructions);
    }

    /// Self cycles and instructions per call path that ran: (function indices outermost first,
    /// cycles, instructions), in the order the paths were first seen.
    pub fn call_paths(&self) -> Vec<(Vec<usize>, u64, u64)> {
        (0..self.paths.nodes.len())
            .filter(|&p| self.paths.cycles[p] > 0 || self.paths.instructions[p] > 0)
            .map(|p| {
                (
                    self.paths.functions(p as u32),
                    self.paths.cycles[p],
                    self.paths.instructions[p],
                )
            })
            .collect()
    }

    /// Functions on the shadow stack now, outermost first (cut as call paths are).
    pub fn current_path(&self) -> Vec<usize> {
        self.paths
            .functions(self.stack.last().map(|f| f.path).unwrap_or(0))
    }

    /// Innermost first: (function index, return address of the frame, whether an exception entered
    /// it) for a backtrace.
    pub fn call_stack(&self) -> Vec<(usize, u32, bool)> {
        self.stack
            .iter()
            .rev()
            .map(|f| (f.function, f.return_to, f.exception))
            .collect()
    }

    /// Frames on the shadow stack now.
    #[cfg(test)]
    pub fn depth(&self) -> usize {
        self.stack.len()
    }
}

impl ExecObserver for Profiler<'_> {
    fn block(&mut self, pc: u32, flow: Flow, cycles: u64, instructions: u64) {
        let top = self
            .stack
            .last()
            .map(|f| f.function)
            .unwrap_or(self.unknown());
        self.charge(cycles, instructions);
        self.segment_pc = pc;
        match flow {
            Flow::Jump => {
                if pc >= self.range.0 && pc < self.range.1 {
                    return;
                }
                let f = self.function_at(pc);
                if self.stack.is_empty() {
                    self.push(f, 0, false, cycles, instructions);
                } else if f != top {
                    // A branch into another function: a tail call (or a jump between symbols). It
                    // replaces the current frame and keeps its return address.
                    let old = self.stack.pop().expect("non-empty");
                    self.close(old, cycles, instructions);
                    self.push(f, old.return_to, old.exception, cycles, instructions);
                }
            }
            Flow::Call { return_to } => {
                let f = self.function_at(pc);
                self.push(f, return_to, false, cycles, instructions);
            }
            Flow::Return => {
                // Unwind to the frame this return address belongs to (skipping frames left by tail
                // calls or longjmp); a return that matches nothing is treated as a jump.
                match self
                    .stack
                    .iter()
                    .rposition(|f| f.return_to == pc && !f.exception)
                {
                    Some(i) => self.pop_to(i, cycles, instructions),
                    None => return self.block(pc, Flow::Jump, cycles, instructions),
                }
                if self.stack.is_empty() {
                    let f = self.function_at(pc);
                    self.push(f, 0, false, cycles, instructions);
                }
            }
            Flow::ExceptionEntry { .. } => {
                let f = self.function_at(pc);
                self.push(f, 0, true, cycles, instructions);
            }
            Flow::TailChain { .. } => {
                // One handler follows the other without a return in between: the new handler
                // replaces the old one's frame (and whatever it left open), so the stack stays as
                // deep as one exception however long a storm of tail-chained exceptions runs.
                if let Some(i) = self.stack.iter().rposition(|f| f.exception) {
                    self.pop_to(i, cycles, instructions);
                }
                let f = self.function_at(pc);
                self.push(f, 0, true, cycles, instructions);
            }
            Flow::ExceptionReturn => {
                if let Some(i) = self.stack.iter().rposition(|f| f.exception) {
                    self.pop_to(i, cycles, instructions);
                }
                let f = self.function_at(pc);
                if self.stack.last().map(|t| t.function) != Some(f) {
                    return self.block(pc, Flow::Jump, cycles, instructions);
                }
            }
        }
        self.set_range();
    }

    fn quiet_jumps(&self) -> (u32, u32) {
        // A jump within the function on top of the stack only adds to its self time (see `block`),
        // unless every straight-line run is counted.
        if self.segments.is_some() {
            (1, 0)
        } else {
            self.range
        }
    }

    fn memory_owner(&self) -> usize {
        self.stack
            .last()
            .map(|f| f.function)
            .unwrap_or(self.unknown())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::Symbol;

    fn symbols() -> SymbolMap {
        let f = |name: &str, addr: u32| Symbol::new(name, addr, 0x100, true);
        SymbolMap::new(&[
            f("main", 0x1000),
            f("a", 0x2000),
            f("b", 0x3000),
            f("isr", 0x4000),
        ])
    }

    #[test]
    fn self_and_inclusive_follow_calls_tail_calls_and_exceptions() {
        let syms = symbols();
        let mut p = Profiler::new(&syms);
        p.block(0x1000, Flow::Jump, 0, 0); // main
        p.block(0x2000, Flow::Call { return_to: 0x1010 }, 10, 5); // main -> a
        p.block(0x3000, Flow::Jump, 30, 15); // a tail-calls b
        p.block(0x4000, Flow::ExceptionEntry { number: 15 }, 40, 20); // interrupt in b
        p.block(0x3010, Flow::ExceptionReturn, 60, 25);
        p.block(0x1010, Flow::Return, 70, 30); // b returns to main
        p.block(0x1020, Flow::Jump, 100, 40);
        p.finish(100, 40);
        let s = |i: usize| p.stats[i];
        assert_eq!((s(0).self_cycles, s(0).inclusive_cycles), (10 + 30, 100));
        assert_eq!(
            (s(1).self_cycles, s(1).inclusive_cycles, s(1).calls),
            (20, 20, 1)
        );
        assert_eq!(
            (s(2).self_cycles, s(2).inclusive_cycles),
            (10 + 10, 40),
            "b runs 30..70, 20 of it in the ISR"
        );
        assert_eq!((s(3).self_cycles, s(3).inclusive_cycles), (20, 20));
        let paths: Vec<(Vec<usize>, u64)> =
            p.call_paths().into_iter().map(|(f, c, _)| (f, c)).collect();
        assert_eq!(
            paths,
            [
                (vec![0], 40),
                (vec![0, 1], 20),
                (vec![0, 2], 20),
                (vec![0, 2, 3], 20)
            ]
        );
    }

    /// Reliability review D1: a storm of tail-chained exceptions (each handler followed at once by
    /// the next, never returning to `main`) keeps the shadow stack one exception deep.
    #[test]
    fn tail_chained_exceptions_keep_the_stack_flat() {
        let syms = symbols();
        let mut p = Profiler::new(&syms);
        p.block(0x1000, Flow::Jump, 0, 0);
        p.block(0x4000, Flow::ExceptionEntry { number: 15 }, 10, 1);
        for i in 0..100_000u64 {
            p.block(0x4000, Flow::TailChain { number: 15 }, 20 + 10 * i, 2 + i);
            assert!(
                p.depth() <= 2,
                "depth {} after {i} tail-chained handlers",
                p.depth()
            );
        }
        p.block(0x1010, Flow::ExceptionReturn, 2_000_000, 200_000);
        assert_eq!(p.depth(), 1);
        p.finish(2_000_010, 200_001);
        assert_eq!(p.stats[3].calls, 100_001);
        assert_eq!(p.call_paths().iter().map(|c| c.0.len()).max(), Some(2));
    }

    #[test]
    fn deep_recursion_is_cut_at_the_path_depth_limit() {
        let syms = symbols();
        let mut p = Profiler::new(&syms);
        p.block(0x1000, Flow::Jump, 0, 0);
        let depth = MAX_PATH_DEPTH as u64 + 20;
        for i in 0..depth {
            p.block(
                0x2000,
                Flow::Call { return_to: 0x2010 },
                10 * (i + 1),
                i + 1,
            );
        }
        assert_eq!(p.current_path().len(), MAX_PATH_DEPTH);
        p.finish(10 * (depth + 1), depth + 1);
        let paths = p.call_paths();
        assert_eq!(paths.len(), MAX_PATH_DEPTH);
        let deepest = paths.last().unwrap();
        assert_eq!(deepest.0.len(), MAX_PATH_DEPTH);
        // main is depth 1, so call 46 opens the deepest path; it and the 21 calls below it charge it.
        assert_eq!(
            deepest.1,
            10 * 22,
            "the frames below the limit charge the deepest path"
        );
        assert_eq!(paths.iter().map(|p| p.1).sum::<u64>(), 10 * (depth + 1));
    }

    #[test]
    fn recursion_counts_inclusive_time_once() {
        let syms = symbols();
        let mut p = Profiler::new(&syms);
        p.block(0x1000, Flow::Jump, 0, 0);
        p.block(0x2000, Flow::Call { return_to: 0x1004 }, 10, 1);
        p.block(0x2000, Flow::Call { return_to: 0x2010 }, 20, 2); // a calls itself
        p.block(0x2010, Flow::Return, 30, 3);
        p.block(0x1004, Flow::Return, 40, 4);
        p.finish(40, 4);
        assert_eq!(p.stats[1].inclusive_cycles, 30);
        assert_eq!(p.stats[1].self_cycles, 30);
        assert_eq!(p.stats[1].calls, 2);
    }
}
