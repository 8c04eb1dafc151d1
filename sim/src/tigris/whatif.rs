//! What-if runs without rebuilding (docs/tigris.md, "What-if runs"): `--plan FILE` hands the
//! firmware's `tigris_plan_load` another plan, `--fast-arena`/`--slow-arena` hand its
//! `tigris_mem_init` other arena sizes. Both change the trapped call's arguments before the call
//! runs. A plan or an arena that needs more room than the firmware gave it goes to memory no part of
//! the image claims ([`FreeMemory`]).

use anyhow::{bail, Context, Result};
use tigris_cores::{Core, CoreError};
use tigris_targets::{Board, RegionKind};

use crate::elf::Firmware;
use crate::tigris::plan::Plan;

/// Alignment of a placed plan or grown arena: the plan's sections are 16-aligned offsets from its
/// start (tigris-runtime include/tigris.h) and the runtime's pools round to 16 (TIGRIS_TENSOR_ALIGN).
const PLACEMENT_ALIGN: u64 = 16;

/// A plan given with `--plan`, read and checked before the run.
#[derive(Debug, Clone)]
pub struct PlanFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub(crate) plan: Plan,
}

impl PlanFile {
    /// Read and parse `path`; a file the plan reader refuses is refused here, naming why.
    pub fn read(path: &str) -> Result<PlanFile> {
        let bytes = std::fs::read(path).with_context(|| format!("--plan {path}"))?;
        let plan = Plan::parse(&bytes)
            .map_err(|e| anyhow::anyhow!("--plan {path}: not a plan this simulator reads: {e}"))?;
        Ok(PlanFile {
            path: path.to_string(),
            bytes,
            plan,
        })
    }

    /// The fast arena the plan needs: its budget and the LZ4 decompression reserve.
    pub fn fast_arena_bytes(&self) -> u64 {
        self.plan.requirements().fast_arena_bytes
    }
}

/// What the run changes in the firmware's TiGrIS calls.
#[derive(Debug, Clone, Default)]
pub struct WhatIf {
    pub plan: Option<PlanFile>,
    /// Bytes of the fast arena handed to `tigris_mem_init`.
    pub fast_arena: Option<u32>,
    /// Bytes of the slow arena handed to `tigris_mem_init`.
    pub slow_arena: Option<u32>,
}

impl WhatIf {
    pub fn is_empty(&self) -> bool {
        self.plan.is_none() && self.fast_arena.is_none() && self.slow_arena.is_none()
    }
}

/// Memory the firmware's image does not claim, per region, in each region's own addresses: writable
/// RAM and PSRAM, and flash (for plans, which the runtime only reads). The region that holds the
/// initial stack pointer has none: its space past the image is the heap's and the stack's, whose
/// extent the image does not say.
#[derive(Debug, Clone, Default)]
pub struct FreeMemory {
    /// Free spans [start, end) with their region index, in address order.
    spans: Vec<(usize, u64, u64)>,
    /// The region of the initial stack pointer, to say why it offers nothing.
    stack_region: Option<usize>,
}

impl FreeMemory {
    /// What `firmware` (its segments and allocated sections) and `claimed` (ranges loaded besides it,
    /// such as the mask ROM's data) leave free on `board`, with the stack starting at `stack_top`.
    pub fn new(board: &Board, firmware: &Firmware, claimed: &[(u32, u32)], stack_top: u32) -> Self {
        let mut taken: Vec<Vec<(u64, u64)>> = vec![Vec::new(); board.regions.len()];
        let ranges = firmware
            .segments
            .iter()
            .map(|s| (s.addr, s.addr as u64 + s.mem_size as u64))
            .chain(firmware.allocated.iter().map(|&(a, e)| (a, e as u64)))
            .chain(claimed.iter().map(|&(a, e)| (a, e as u64)));
        for (start, end) in ranges {
            // A range may run on from one region into the next adjoining one (check_segment in elf.rs).
            let (mut at, mut left) = (start, end.saturating_sub(start as u64));
            while left > 0 {
                let Some((i, canonical)) = board.resolve(at) else {
                    break;
                };
                let here = (board.regions[i].end() - canonical as u64).min(left);
                taken[i].push((canonical as u64, canonical as u64 + here));
                left -= here;
                at = at.wrapping_add(here as u32);
            }
        }
        let stack_region = board.resolve(stack_top.wrapping_sub(1)).map(|(i, _)| i);
        let mut spans = Vec::new();
        for (i, r) in board.regions.iter().enumerate() {
            let usable = match r.kind {
                RegionKind::Sram | RegionKind::Psram => r.access.write,
                RegionKind::Flash | RegionKind::Xip => true,
                RegionKind::Rom | RegionKind::Mmio => false,
            };
            if !usable || Some(i) == stack_region {
                continue;
            }
            taken[i].sort_unstable();
            let mut at = r.base as u64;
            for &(s, e) in &taken[i] {
                if s > at {
                    spans.push((i, at, s));
                }
                at = at.max(e);
            }
            if r.end() > at {
                spans.push((i, at, r.end()));
            }
        }
        FreeMemory {
            spans,
            stack_region,
        }
    }

    /// Take `size` bytes from the lowest free span of `region` that holds them, aligned; returns their
    /// address in the region's own addresses.
    fn place(&mut self, region: usize, size: u32) -> Option<u32> {
        let (k, start) = self.spans.iter().enumerate().find_map(|(k, &(r, s, e))| {
            let start = s.next_multiple_of(PLACEMENT_ALIGN);
            (r == region && start + size as u64 <= e).then_some((k, start))
        })?;
        self.take_from(k, start, start + size as u64);
        Some(start as u32)
    }

    /// Take [start, end) if one free span holds it all.
    fn take(&mut self, region: usize, start: u64, end: u64) -> bool {
        match self
            .spans
            .iter()
            .position(|&(r, s, e)| r == region && s <= start && end <= e)
        {
            Some(k) => {
                self.take_from(k, start, end);
                true
            }
            None => false,
        }
    }

    fn take_from(&mut self, k: usize, start: u64, end: u64) {
        let (r, s, e) = self.spans.remove(k);
        let rest = [(r, end, e), (r, s, start)];
        for piece in rest.into_iter().filter(|p| p.2 > p.1) {
            self.spans.insert(k, piece);
        }
    }

    /// Why `size` bytes do not fit in `region`: its largest free span, or that it holds the stack.
    fn refusal(&self, board: &Board, region: usize, size: u32) -> String {
        let name = &board.regions[region].name;
        if Some(region) == self.stack_region {
            return format!(
                "region `{name}` holds the stack: its memory past the image belongs to the heap and the stack, \
                 so none of it is known to be free"
            );
        }
        let largest = self
            .spans
            .iter()
            .filter(|s| s.0 == region)
            .map(|s| s.2 - s.1)
            .max()
            .unwrap_or(0);
        format!("region `{name}` has no free span of {size} bytes (the largest is {largest} bytes)")
    }
}

/// Where a plan or an arena went, for the report's notes and findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Placement {
    /// At the firmware's own address.
    InPlace,
    /// Moved to free memory of this region, at this address.
    Moved { address: u32, region: String },
}

/// The region of `addr` and its offset from the address's view of that region (an alias or the base).
fn locate(board: &Board, addr: u32) -> Option<(usize, u32, u32)> {
    board
        .resolve(addr)
        .map(|(i, canonical)| (i, canonical, addr.wrapping_sub(canonical)))
}

/// Puts a `--plan` or a grown arena into simulated memory.
#[derive(Clone)]
pub(crate) struct Placer {
    pub(crate) board: Board,
    pub(crate) free: FreeMemory,
}

impl Placer {
    /// Write `plan` where the firmware's plan of `old_bytes` at `old` was, or in free memory of its
    /// region when it is larger; returns its address.
    pub(crate) fn place_plan(
        &mut self,
        core: &mut dyn Core,
        plan: &[u8],
        old: u32,
        old_bytes: u32,
    ) -> Result<(u32, Placement), String> {
        let (address, placement) = self.plan_room(plan.len() as u32, old, old_bytes)?;
        core.write_memory(address, plan)
            .map_err(|e| format!("writing the plan at 0x{address:08x}: {e}"))?;
        Ok((address, placement))
    }

    /// Where a plan of `size` bytes goes: in place of the firmware's when it fits there.
    pub(crate) fn plan_room(
        &mut self,
        size: u32,
        old: u32,
        old_bytes: u32,
    ) -> Result<(u32, Placement), String> {
        if size <= old_bytes {
            Ok((old, Placement::InPlace))
        } else {
            self.moved(old, size, "the plan")
        }
    }

    /// An arena of `size` bytes for one the firmware gave as `old_size` bytes at `old`: the same
    /// base when it shrinks or when the bytes after it are free, else free memory of its region.
    pub(crate) fn arena(
        &mut self,
        old: u32,
        old_size: u32,
        size: u32,
    ) -> Result<(u32, Placement), String> {
        if size <= old_size {
            return Ok((old, Placement::InPlace));
        }
        let Some((region, canonical, _)) = locate(&self.board, old) else {
            return Err(format!(
                "the firmware's arena at 0x{old:08x} is outside the board's memory"
            ));
        };
        let (grown_from, end) = (
            canonical as u64 + old_size as u64,
            canonical as u64 + size as u64,
        );
        if self.free.take(region, grown_from, end) {
            return Ok((old, Placement::InPlace));
        }
        self.moved(old, size, "the arena")
    }

    /// `size` bytes in free memory of the region of `old`, addressed in the same view as `old`.
    fn moved(&mut self, old: u32, size: u32, what: &str) -> Result<(u32, Placement), String> {
        let Some((region, _, view)) = locate(&self.board, old) else {
            return Err(format!(
                "{what} at 0x{old:08x} is outside the board's memory"
            ));
        };
        match self.free.place(region, size) {
            Some(at) => Ok((
                at.wrapping_add(view),
                Placement::Moved {
                    address: at.wrapping_add(view),
                    region: self.board.regions[region].name.clone(),
                },
            )),
            None => Err(format!(
                "{what} needs {size} bytes, more than the firmware's at 0x{old:08x}, and {}",
                self.free.refusal(&self.board, region, size)
            )),
        }
    }
}

/// A what-if applied to one run: the changes, where they went, and what to say about them.
pub(crate) struct WhatIfRun {
    what_if: WhatIf,
    placer: Placer,
    /// For the report's notes: what the run changed.
    pub(crate) notes: Vec<String>,
    /// For the TiGrIS findings: what moved or grew.
    pub(crate) findings: Vec<String>,
    plan_handed: bool,
    arenas_handed: bool,
    /// Why an option could not be applied: the run ends with this error (bad input, not a fault).
    pub(crate) refusal: Option<String>,
}

impl WhatIfRun {
    pub(crate) fn new(what_if: WhatIf, placer: Placer) -> Self {
        WhatIfRun {
            what_if,
            placer,
            notes: Vec::new(),
            findings: Vec::new(),
            plan_handed: false,
            arenas_handed: false,
            refusal: None,
        }
    }

    /// The plan the run hands the firmware, if `--plan` gave one.
    pub(crate) fn plan(&self) -> Option<&Plan> {
        self.what_if.plan.as_ref().map(|p| &p.plan)
    }

    /// At `tigris_plan_load(buf, len, ...)`: hand it the `--plan` instead of the firmware's plan of
    /// `bytes` at `address`; returns the plan the call now gets.
    pub(crate) fn hand_plan(
        &mut self,
        core: &mut dyn Core,
        address: u32,
        bytes: u32,
    ) -> Result<(u32, u32), CoreError> {
        let Some(file) = &self.what_if.plan else {
            return Ok((address, bytes));
        };
        let (at, placement) = match self.placer.place_plan(core, &file.bytes, address, bytes) {
            Ok(placed) => placed,
            Err(e) => {
                self.refusal = Some(format!("--plan {}: {e}", file.path));
                return Ok((address, bytes));
            }
        };
        let size = file.bytes.len() as u32;
        set_argument(core, "tigris_plan_load", 0, at)?;
        set_argument(core, "tigris_plan_load", 1, size)?;
        let firmwares = format!("the firmware's {bytes} bytes at 0x{address:08x}");
        self.notes.push(format!(
            "--plan {}: tigris_plan_load was handed this plan ({size} bytes at 0x{at:08x}) in place of {firmwares}",
            file.path
        ));
        if let Placement::Moved { region, .. } = placement {
            self.findings.push(format!(
                "the --plan plan is larger than {firmwares}: it was placed in free memory of region `{region}`"
            ));
        }
        self.plan_handed = true;
        Ok((at, size))
    }

    /// At `tigris_mem_init(mem, ptrs, n, fast, fast_size, slow, slow_size)`: hand it the
    /// `--fast-arena`/`--slow-arena` sizes; returns the (base, size) of both arenas the call now gets.
    /// `budget` is the plan's fast budget, when known.
    pub(crate) fn hand_arenas(
        &mut self,
        core: &mut dyn Core,
        arenas: [(u32, u32); 2],
        budget: Option<u32>,
    ) -> Result<[(u32, u32); 2], CoreError> {
        let mut handed = arenas;
        let wanted = [self.what_if.fast_arena, self.what_if.slow_arena];
        for (k, (name, option)) in [("fast", "--fast-arena"), ("slow", "--slow-arena")]
            .into_iter()
            .enumerate()
        {
            let (Some(size), (old, old_size)) = (wanted[k], arenas[k]) else {
                continue;
            };
            let (base, placement) = match self.placer.arena(old, old_size, size) {
                Ok(placed) => placed,
                Err(e) => {
                    self.refusal = Some(format!("{option} {size}: {e}"));
                    return Ok(arenas);
                }
            };
            // Arguments 3/4 (fast base, size) and 5/6 (slow base, size).
            set_argument(core, "tigris_mem_init", 3 + 2 * k as u32, base)?;
            set_argument(core, "tigris_mem_init", 4 + 2 * k as u32, size)?;
            handed[k] = (base, size);
            self.notes.push(format!(
                "{option} {size}: tigris_mem_init was handed a {name} arena of {size} bytes at 0x{base:08x} (the \
                 firmware's: {old_size} bytes at 0x{old:08x})"
            ));
            match placement {
                Placement::InPlace if size > old_size => self.findings.push(format!(
                    "the {name} arena grew to {size} bytes in place ({option}): the bytes past the firmware's {old_size} \
                     at 0x{old:08x} are memory no part of the image claims"
                )),
                Placement::InPlace => {}
                Placement::Moved { address, region } => self.findings.push(format!(
                    "the {name} arena grew to {size} bytes ({option}): placed at 0x{address:08x} in free memory of \
                     region `{region}`, the firmware's {old_size} bytes at 0x{old:08x} unused"
                )),
            }
        }
        if let (Some(size), Some(budget)) = (self.what_if.fast_arena, budget) {
            if size < budget {
                self.notes.push(format!(
                    "--fast-arena {size} is below the plan's fast budget of {budget} bytes: the planner sized the \
                     stages for its budget, so the runtime may refuse a stage or overflow it to the slow arena"
                ));
            }
        }
        self.arenas_handed = true;
        Ok(handed)
    }

    /// Notes for the report: what the run changed, and options the firmware never gave a chance to apply.
    pub(crate) fn report_notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        if let (Some(p), false) = (&self.what_if.plan, self.plan_handed) {
            notes.push(format!(
                "--plan {} was not used: the firmware did not call tigris_plan_load",
                p.path
            ));
        }
        if (self.what_if.fast_arena.is_some() || self.what_if.slow_arena.is_some())
            && !self.arenas_handed
        {
            notes.push(
                "--fast-arena/--slow-arena were not used: the firmware did not call tigris_mem_init".into(),
            );
        }
        notes
    }
}

/// Change argument `i` of the trapped call, naming the call when the core refuses.
pub(crate) fn set_argument(
    core: &mut dyn Core,
    function: &str,
    i: u32,
    value: u32,
) -> Result<(), CoreError> {
    core.set_argument(i, value)
        .map_err(|e| CoreError::Engine(format!("changing argument {i} of {function}: {e}")))
}

/// Refuse a what-if the firmware cannot take: it never calls the function the option changes.
pub(crate) fn check_calls(what_if: &WhatIf, plan_load: bool, mem_init: bool) -> Result<()> {
    if let (Some(p), false) = (&what_if.plan, plan_load) {
        bail!(
            "--plan {}: the firmware has no tigris_plan_load to hand the plan to (its runtime's functions are not \
             among the ELF's symbols)",
            p.path
        );
    }
    if (what_if.fast_arena.is_some() || what_if.slow_arena.is_some()) && !mem_init {
        bail!(
            "--fast-arena/--slow-arena: the firmware has no tigris_mem_init to hand the arenas to (its runtime's \
             functions are not among the ELF's symbols)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::Segment;

    fn board() -> Board {
        tigris_targets::load("stm32h753").unwrap()
    }

    fn firmware(segments: &[(u32, u32)]) -> Firmware {
        Firmware {
            segments: segments
                .iter()
                .enumerate()
                .map(|(index, &(addr, size))| Segment {
                    index,
                    addr,
                    data: Vec::new(),
                    mem_size: size,
                    executable: false,
                })
                .collect(),
            ..Firmware::default()
        }
    }

    fn region(board: &Board, name: &str) -> usize {
        board.regions.iter().position(|r| r.name == name).unwrap()
    }

    #[test]
    fn free_memory_is_what_the_image_leaves_outside_the_stack_region() {
        let b = board();
        let dtcm = b.regions[region(&b, "dtcm")].clone();
        let sram = b.regions[region(&b, "sram123")].clone();
        let fw = firmware(&[(sram.base, 0x1000), (sram.base + 0x2008, 0x8)]);
        let mut free = FreeMemory::new(&b, &fw, &[], dtcm.base + 0x1000);
        // The gap between the two segments, aligned, then past the second.
        assert_eq!(
            free.place(region(&b, "sram123"), 0x1000),
            Some(sram.base + 0x1000)
        );
        assert_eq!(
            free.place(region(&b, "sram123"), 0x10),
            Some(sram.base + 0x2010)
        );
        assert_eq!(free.place(region(&b, "dtcm"), 16), None);
        assert!(free
            .refusal(&b, region(&b, "dtcm"), 16)
            .contains("holds the stack"));
        let too_big = sram.size;
        assert_eq!(free.place(region(&b, "sram123"), too_big), None);
        assert!(free
            .refusal(&b, region(&b, "sram123"), too_big)
            .contains("no free span"));
    }

    #[test]
    fn an_arena_grows_in_place_when_the_bytes_after_it_are_free() {
        let b = board();
        let sram = b.regions[region(&b, "sram123")].clone();
        let dtcm = b.regions[region(&b, "dtcm")].clone();
        let fw = firmware(&[(sram.base, 0x1000), (sram.base + 0x3000, 0x100)]);
        let mut placer = Placer {
            free: FreeMemory::new(&b, &fw, &[], dtcm.base + 0x100),
            board: b,
        };
        assert_eq!(
            placer.arena(sram.base, 0x1000, 0x800),
            Ok((sram.base, Placement::InPlace))
        );
        assert_eq!(
            placer.arena(sram.base, 0x1000, 0x3000),
            Ok((sram.base, Placement::InPlace))
        );
        // Past the next segment: moved to the first free span that holds it.
        let (at, placement) = placer.arena(sram.base, 0x1000, 0x4000).unwrap();
        assert_eq!(at, sram.base + 0x3100);
        assert!(matches!(placement, Placement::Moved { .. }));
    }
}
