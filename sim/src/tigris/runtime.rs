//! Observes the TiGrIS runtime inside a running firmware: the simulator traps the runtime's own entry
//! points by symbol name (tigris-runtime include/tigris_loader.h, tigris_mem.h, tigris_executor.h;
//! trapping them rather than harness symbols is our design choice), reads their arguments in the
//! core's calling convention, captures every trace event delivered to the registered sink with the
//! simulated time at which it happened, and watches both arenas on the bus. From that stream it breaks
//! the inference down by stage and tile (docs/tigris.md defines each figure).

use tigris_cores::{Core, CoreError};
use tigris_memmodels::WatchCounters;
use tigris_targets::Board;
use tigris_traces as traces;

use std::collections::BTreeSet;

use crate::elf::Firmware;
use crate::tensor_views::ActivationViews;
use crate::tigris::derive::{self, Derivation, Frame, COPY_FUNCTIONS};
use crate::tigris::layout::{ArenaMap, TensorView};
use crate::tigris::plan::{Execution, Plan, MAX_SCHEMA, MIN_SCHEMA};
use crate::tigris::whatif::{self, Placer, WhatIf, WhatIfRun};

/// Size of `tigris_trace_event_t` (tigris-runtime include/tigris_trace.h).
const EVENT_BYTES: usize = 48;
/// Largest plan the simulator reads back from memory.
const MAX_PLAN_BYTES: u32 = 64 << 20;
/// Findings beyond this many are counted, not listed.
const MAX_FINDINGS: usize = 20;

/// Event kinds (tigris-runtime include/tigris_trace.h).
pub(super) mod kind {
    pub const STAGE_BEGIN: u8 = 1;
    pub const STAGE_END: u8 = 2;
    pub const TILE_BEGIN: u8 = 3;
    pub const LOAD: u8 = 4;
    pub const SPILL: u8 = 5;
    pub const ALLOC: u8 = 6;
    pub const MOVE: u8 = 8;
    pub const OP: u8 = 10;
    pub const LAST: u8 = 11;
}

/// Names of kinds 1..=LAST, as the report's timeline writes them.
const KIND_NAMES: [&str; kind::LAST as usize] = [
    "stage_begin",
    "stage_end",
    "tile_begin",
    "load",
    "spill",
    "alloc",
    "reset",
    "move",
    "weights",
    "op",
    "copy",
];

const PATHS: [&str; 9] = [
    "normal",
    "tiled",
    "tiled_2d",
    "by_input",
    "transpose",
    "rows",
    "reshape",
    "chain",
    "control",
];

/// One `tigris_trace_event_t`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEvent {
    pub kind: u8,
    pub pool: u8,
    pub path: u8,
    pub stage: u16,
    pub tensor: u16,
    pub op: u16,
    pub offset: u32,
    pub src_offset: u32,
    pub bytes: u32,
    pub rows: [i32; 2],
    pub cols: [i32; 2],
    pub fast_used: u32,
    pub slow_used: u32,
}

impl TraceEvent {
    pub fn parse(b: &[u8; EVENT_BYTES]) -> TraceEvent {
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        TraceEvent {
            kind: b[0],
            pool: b[1],
            path: b[2],
            stage: u16_at(4),
            tensor: u16_at(6),
            op: u16_at(8),
            offset: u32_at(12),
            src_offset: u32_at(16),
            bytes: u32_at(20),
            rows: [u32_at(24) as i32, u32_at(28) as i32],
            cols: [u32_at(32) as i32, u32_at(36) as i32],
            fast_used: u32_at(40),
            slow_used: u32_at(44),
        }
    }
}

/// What a trap address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryPoint {
    PlanLoad,
    MemInit,
    SetTrace,
    BackendPrepare,
    Run,
    Sink,
    /// The kernel callback of a run, a copy function, or where one of those returns (derived
    /// breakdown).
    Kernel,
    Copy,
    Return,
}

/// The machine's state when an event arrived.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    cycles: u64,
    instructions: u64,
    /// Stall cycles per region so far.
    stalls: Vec<u64>,
    slow: WatchCounters,
    /// Highest fast- and slow-arena bytes written since the previous snapshot.
    fast_high_water: u32,
    slow_high_water: u32,
    /// (tensor, row) of the slow-arena reads since the previous snapshot.
    slow_rows: Vec<(u32, u32)>,
}

pub(super) struct Captured {
    pub(super) event: TraceEvent,
    pub(super) at: Snapshot,
}

struct Arenas {
    info: traces::TigrisArenas,
    fast_watch: usize,
    slow_watch: usize,
}

pub struct TigrisRuntime {
    entries: Vec<(u32, EntryPoint)>,
    region_names: Vec<String>,
    plan: Option<traces::TigrisPlanInfo>,
    /// A plan found in the ELF image (symbols or a `TGRS` scan), for when `tigris_plan_load` is not seen.
    static_plan: Option<(u32, Vec<u8>)>,
    /// The plan as parsed, when it could be.
    parsed: Option<Plan>,
    arenas: Option<Arenas>,
    /// The slow arena's tensors as the ALLOC events placed them, to map read addresses to rows.
    slow_map: ArenaMap,
    sink: Option<u32>,
    runs: u64,
    events: Vec<Captured>,
    findings: Vec<String>,
    dropped_findings: usize,
    /// The ELF has no function symbols: the runtime's functions cannot be found to trap.
    stripped: bool,
    /// `--plan`, `--fast-arena`, `--slow-arena`, when given.
    what_if: Option<WhatIfRun>,
    /// The C library's copy functions in the ELF.
    copy_functions: Vec<u32>,
    /// `tensor_ptrs` and its length, from `tigris_mem_init`.
    table: Option<(u32, u16)>,
    /// Without a trace sink: the runtime's calls, seen while it runs.
    derivation: Option<Derivation>,
    /// Tensor views of the activations placed in the slow arena (`--tigris-views`, docs/views.md).
    activation_views: Option<ActivationViews>,
}

/// Runtime functions by name (tigris-runtime include/tigris_loader.h, tigris_mem.h, tigris_executor.h; the
/// backend prepare calls: tigris-docs runtime/api-reference.md).
const ENTRY_POINTS: &[(&str, EntryPoint)] = &[
    ("tigris_plan_load", EntryPoint::PlanLoad),
    ("tigris_plan_load_ex", EntryPoint::PlanLoad),
    ("tigris_mem_init", EntryPoint::MemInit),
    ("tigris_mem_set_trace", EntryPoint::SetTrace),
    ("tigris_cmsis_nn_prepare", EntryPoint::BackendPrepare),
    ("tigris_esp_nn_prepare", EntryPoint::BackendPrepare),
    ("tigris_run", EntryPoint::Run),
    ("tigris_run_with_workspace", EntryPoint::Run),
    ("tigris_run_with_workspace_buffer", EntryPoint::Run),
    ("tigris_run_with_state", EntryPoint::Run),
];

impl TigrisRuntime {
    /// The observer for a firmware that links the TiGrIS runtime (`tigris_plan_load` or one of the
    /// `tigris_run*` functions among its symbols) or holds a plan in its image, else None.
    pub fn detect(firmware: &Firmware, board: &Board) -> Option<TigrisRuntime> {
        let symbols = &firmware.symbols;
        let entries: Vec<(u32, EntryPoint)> = ENTRY_POINTS
            .iter()
            .flat_map(|&(name, what)| {
                symbols
                    .iter()
                    .filter(move |s| s.is_function && s.is_named(name))
                    .map(move |s| (s.addr & !1, what))
            })
            .collect();
        let static_plan = static_plan(firmware);
        if !entries
            .iter()
            .any(|e| matches!(e.1, EntryPoint::PlanLoad | EntryPoint::Run))
            && static_plan.is_none()
        {
            return None;
        }
        Some(TigrisRuntime {
            static_plan,
            stripped: !symbols.iter().any(|s| s.is_function),
            entries,
            region_names: board.regions.iter().map(|r| r.name.clone()).collect(),
            plan: None,
            parsed: None,
            arenas: None,
            slow_map: ArenaMap::default(),
            sink: None,
            runs: 0,
            events: Vec::new(),
            findings: Vec::new(),
            dropped_findings: 0,
            what_if: None,
            copy_functions: COPY_FUNCTIONS
                .iter()
                .flat_map(|&name| {
                    symbols
                        .iter()
                        .filter(move |s| s.is_function && s.is_named(name))
                })
                .map(|s| s.addr & !1)
                .collect(),
            table: None,
            derivation: None,
            activation_views: None,
        })
    }

    /// Make a tensor view of each activation the runtime places in the slow arena, as `views` says.
    pub fn set_activation_views(&mut self, views: ActivationViews) {
        self.activation_views = Some(views);
    }

    /// Notes on the activations' views, for the report.
    pub fn activation_view_notes(&self) -> Vec<String> {
        self.activation_views
            .as_ref()
            .map(ActivationViews::notes)
            .unwrap_or_default()
    }

    /// Hand the firmware's runtime calls what `what_if` changes; refused when the firmware never makes
    /// the call an option changes, or when a plan larger than the firmware's own finds no room.
    pub fn set_what_if(&mut self, what_if: WhatIf, placer: Placer) -> anyhow::Result<()> {
        let has = |what: EntryPoint| self.entries.iter().any(|e| e.1 == what);
        whatif::check_calls(
            &what_if,
            has(EntryPoint::PlanLoad),
            has(EntryPoint::MemInit),
        )?;
        if let (Some(file), Some((address, bytes))) = (&what_if.plan, &self.static_plan) {
            // The plan the image holds is the one the firmware will load: check the room now.
            placer
                .clone()
                .plan_room(file.bytes.len() as u32, *address, bytes.len() as u32)
                .map_err(|e| anyhow::anyhow!("--plan {}: {e}", file.path))?;
        }
        self.what_if = Some(WhatIfRun::new(what_if, placer));
        Ok(())
    }

    /// Why a what-if option could not be applied at the call it changes, once it happened.
    pub fn what_if_refusal(&self) -> Option<&str> {
        self.what_if.as_ref()?.refusal.as_deref()
    }

    /// Notes on what the what-if options changed, for the report.
    pub fn what_if_notes(&self) -> Vec<String> {
        self.what_if
            .as_ref()
            .map(WhatIfRun::report_notes)
            .unwrap_or_default()
    }

    /// Trace events captured so far, or runtime calls recorded for a derived breakdown.
    pub fn events_seen(&self) -> usize {
        self.events.len() + self.derivation.as_ref().map_or(0, |d| d.seen.len())
    }

    /// Kind of the newest trace event (`tile_begin`, ...), or of the event the newest recorded
    /// runtime call stands for (a stage or tile is seen beginning at its first kernel call).
    pub fn last_event_kind(&self) -> Option<&'static str> {
        match &self.derivation {
            Some(d) if self.sink.is_none() => d.last_kind,
            _ => self
                .events
                .last()
                .map(|c| KIND_NAMES[c.event.kind as usize - 1]),
        }
    }

    /// Addresses the core must trap.
    pub fn trap_addresses(&self) -> Vec<u32> {
        self.entries.iter().map(|e| e.0).collect()
    }

    fn finding(&mut self, text: String) {
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(text);
        } else {
            self.dropped_findings += 1;
        }
    }

    /// Execution reached `pc`: observe it if it is one of ours (the function then runs as usual).
    /// Returns whether the trap was ours.
    pub fn on_trap(&mut self, core: &mut dyn Core, pc: u32) -> Result<bool, CoreError> {
        let Some(&(_, what)) = self.entries.iter().find(|e| e.0 == pc) else {
            return Ok(false);
        };
        match what {
            EntryPoint::PlanLoad => self.plan_load(core)?,
            EntryPoint::MemInit => self.mem_init(core)?,
            EntryPoint::SetTrace => self.set_trace(core)?,
            EntryPoint::BackendPrepare => self.finding(
                "the backend's prepare call shrinks the fast arena (scratch at its top); fast-arena figures are from its base".into(),
            ),
            EntryPoint::Run => {
                self.runs += 1;
                self.derive_run(core)?;
            }
            EntryPoint::Sink => self.capture(core)?,
            EntryPoint::Kernel => self.derive_kernel(core)?,
            EntryPoint::Copy => self.derive_copy(core)?,
            EntryPoint::Return => self.derive_return(core),
        }
        Ok(true)
    }

    /// Trap `addr` as `what` (once).
    fn trap(&mut self, core: &mut dyn Core, addr: u32, what: EntryPoint) -> Result<(), CoreError> {
        if !self.entries.iter().any(|e| e.0 == addr && e.1 == what) {
            self.entries.push((addr, what));
            core.set_traps(&[addr])?;
        }
        Ok(())
    }

    /// A call stopped at its entry will be seen returning; false when the core cannot tell where.
    fn time_call(&mut self, core: &mut dyn Core, frame: Frame) -> Result<bool, CoreError> {
        let Some(return_to) = core.return_address() else {
            return Ok(false);
        };
        self.trap(core, return_to, EntryPoint::Return)?;
        if let Some(d) = &mut self.derivation {
            d.push(frame, return_to, core.stack_pointer());
        }
        Ok(true)
    }

    /// A run starts without a trace sink: watch the executor's calls to derive the breakdown.
    fn derive_run(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        let (Some(arenas), Some((table, tensors)), None, Some(plan)) =
            (&self.arenas, self.table, self.sink, &self.parsed)
        else {
            return Ok(());
        };
        let memory = derive::Memory {
            fast: (arenas.info.fast_base, arenas.info.fast_size),
            slow: (arenas.info.slow_base, arenas.info.slow_size),
            table,
            tensors,
        };
        // tigris_run*(plan, mem, kernel, user_ctx, stats, ...): both runtime generations.
        let (mem, kernel) = (core.argument(1)?, core.argument(2)? & !1);
        let mut d = Derivation::new(core, plan, memory, mem);
        if let Some(earlier) = self.derivation.take() {
            d.continue_from(earlier);
        } else if !d.has_counters() {
            self.finding("derived breakdown: the arenas' bump counters were not found in the runtime's tigris_mem_t; fast and slow peaks are the bus's".into());
        }
        self.derivation = Some(d);
        self.trap(core, kernel, EntryPoint::Kernel)?;
        for addr in self.copy_functions.clone() {
            self.trap(core, addr, EntryPoint::Copy)?;
        }
        if !self.time_call(core, Frame::Run)? {
            self.derivation = None;
        }
        Ok(())
    }

    fn derive_kernel(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        if !self
            .derivation
            .as_ref()
            .is_some_and(Derivation::by_executor)
        {
            return Ok(());
        }
        // tigris_kernel_fn(plan, op, op_index, mem, user_ctx)
        let op = (core.argument(2)? & 0xFFFF) as u16;
        let at = self.snapshot(core);
        if let Some(d) = &mut self.derivation {
            d.kernel(core, op, at);
        }
        self.time_call(core, Frame::Kernel)?;
        Ok(())
    }

    fn derive_copy(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        let (Some(d), Some(plan)) = (&mut self.derivation, &self.parsed) else {
            return Ok(());
        };
        if !d.by_executor() {
            return Ok(());
        }
        let args = [core.argument(0)?, core.argument(1)?, core.argument(2)?];
        let Some((copy, placed)) = d.classify(core, plan, args) else {
            return Ok(());
        };
        for (tensor, offset) in placed {
            self.place_slow_tensor(core, tensor, offset);
        }
        let at = self.snapshot(core);
        if let Some(d) = &mut self.derivation {
            d.copy_begin(core, copy, at);
        }
        self.time_call(core, Frame::Copy)?;
        Ok(())
    }

    fn derive_return(&mut self, core: &mut dyn Core) {
        let (pc, sp) = (core.pc(), core.stack_pointer());
        let Some(frame) = self.derivation.as_mut().and_then(|d| d.returned(pc, sp)) else {
            return;
        };
        if frame == Frame::Copy {
            let at = self.snapshot(core);
            if let Some(d) = &mut self.derivation {
                d.copy_end(core, at);
            }
        }
    }

    fn plan_load(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        let (mut address, mut bytes) = (core.argument(0)?, core.argument(1)?);
        if let Some(w) = &mut self.what_if {
            (address, bytes) = w.hand_plan(core, address, bytes)?;
        }
        let mut info = traces::TigrisPlanInfo {
            address,
            bytes,
            schema: None,
            model: None,
            budget: None,
            error: None,
        };
        if bytes > MAX_PLAN_BYTES {
            info.error = Some(format!("tigris_plan_load was given {bytes} bytes, more than the {MAX_PLAN_BYTES} this reads"));
        } else {
            let mut buf = vec![0u8; bytes as usize];
            match core.read_memory(address, &mut buf) {
                Ok(()) => self.parsed = read_plan(&buf, &mut info),
                Err(e) => {
                    info.error = Some(format!(
                        "the plan at 0x{address:08x} ({bytes} bytes) cannot be read: {e}"
                    ))
                }
            }
        }
        if let Some(e) = &info.error {
            self.finding(format!("plan: {e}"));
        }
        self.plan = Some(info);
        Ok(())
    }

    fn mem_init(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        // tigris_mem_init(mem, tensor_ptrs, num_tensors, fast_buf, fast_size, slow_buf, slow_size)
        let mut arenas = [
            (core.argument(3)?, core.argument(4)?),
            (core.argument(5)?, core.argument(6)?),
        ];
        if let Some(w) = &mut self.what_if {
            let budget = w.plan().or(self.parsed.as_ref()).map(|p| p.header.budget);
            arenas = w.hand_arenas(core, arenas, budget)?;
        }
        let [(fast_base, fast_size), (slow_base, slow_size)] = arenas;
        self.table = Some((core.argument(1)?, (core.argument(2)? & 0xFFFF) as u16));
        if let Some(plan) = &self.parsed {
            let table = core.argument(2)? & 0xFFFF;
            if plan.tensors.len() as u32 > table {
                self.finding(format!(
                    "the plan has {} tensors, but tigris_mem_init was given a tensor table of {table}: the runtime \
                     may refuse the plan or write past the table",
                    plan.tensors.len()
                ));
            }
        }
        let region_of = |core: &dyn Core, addr: u32| {
            core.memory()
                .region_of(addr)
                .map(|i| self.region_names[i].clone())
        };
        let info = traces::TigrisArenas {
            fast_base,
            fast_size,
            slow_base,
            slow_size,
            fast_region: region_of(core, fast_base),
            slow_region: region_of(core, slow_base),
        };
        for (name, base, size, region) in [
            ("fast", fast_base, fast_size, &info.fast_region),
            ("slow", slow_base, slow_size, &info.slow_region),
        ] {
            if region.is_none() && size > 0 {
                self.finding(format!(
                    "the {name} arena at 0x{base:08x} ({size} bytes) is outside the board's memory"
                ));
            }
        }
        let mem = core.memory_mut();
        let fast_watch = mem.watch(fast_base, fast_size);
        let slow_watch = mem.watch_logging_reads(slow_base, slow_size);
        self.arenas = Some(Arenas {
            info,
            fast_watch,
            slow_watch,
        });
        Ok(())
    }

    fn set_trace(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        let sink = core.argument(1)? & !1;
        if sink == 0 {
            return Ok(()); // unregistering
        }
        if core.memory().region_of(sink).is_none() {
            self.finding(format!("tigris_mem_set_trace registered a sink at 0x{sink:08x}, outside the board's memory"));
            return Ok(());
        }
        if !self.entries.iter().any(|e| e.0 == sink) {
            self.entries.push((sink, EntryPoint::Sink));
            core.set_traps(&[sink])?;
        }
        self.sink = Some(sink);
        Ok(())
    }

    fn capture(&mut self, core: &mut dyn Core) -> Result<(), CoreError> {
        let pointer = core.argument(0)?;
        let mut raw = [0u8; EVENT_BYTES];
        if let Err(e) = core.read_memory(pointer, &mut raw) {
            self.finding(format!("the sink was called with an event pointer 0x{pointer:08x} that cannot be read: {e}"));
            return Ok(());
        }
        let event = TraceEvent::parse(&raw);
        if event.kind == 0 || event.kind > kind::LAST {
            self.finding(format!(
                "the sink was called with an event of unknown kind {} at 0x{pointer:08x}",
                event.kind
            ));
            return Ok(());
        }
        let at = self.snapshot(core);
        self.events.push(Captured { event, at });
        if event.kind == kind::ALLOC && event.pool == 1 {
            self.place_slow_tensor(core, event.tensor, event.offset);
        }
        Ok(())
    }

    /// The machine now; the arenas' high water and slow reads since the previous snapshot.
    fn snapshot(&self, core: &mut dyn Core) -> Snapshot {
        let mem = core.memory_mut();
        let (slow, fast_high_water, slow_high_water, reads) = match &self.arenas {
            Some(a) => (
                mem.watch_counters(a.slow_watch),
                mem.take_high_water(a.fast_watch),
                mem.take_high_water(a.slow_watch),
                mem.take_read_log(a.slow_watch),
            ),
            None => (WatchCounters::default(), 0, 0, Vec::new()),
        };
        let slow_rows: BTreeSet<(u32, u32)> = reads
            .iter()
            .filter_map(|&a| self.slow_map.locate(a))
            .map(|l| (l.tensor, l.h))
            .collect();
        Snapshot {
            cycles: core.cycles(),
            instructions: core.instructions(),
            stalls: core
                .memory()
                .regions
                .iter()
                .map(|r| r.counters.stall_cycles)
                .collect(),
            slow,
            fast_high_water,
            slow_high_water,
            slow_rows: slow_rows.into_iter().collect(),
        }
    }

    /// Map a tensor the runtime placed in the slow arena (NHWC or NLC, per the plan's shape).
    fn place_slow_tensor(&mut self, core: &mut dyn Core, tensor: u16, offset: u32) {
        let (Some(plan), Some(arenas)) = (&self.parsed, &self.arenas) else {
            return;
        };
        let Some(t) = plan.tensors.get(tensor as usize) else {
            return;
        };
        let dims = match t
            .shape
            .iter()
            .map(|&d| u32::try_from(d).ok())
            .collect::<Option<Vec<u32>>>()
            .as_deref()
        {
            Some(&[n, h, w, c]) if t.row_axis() == Some(1) => [n, h, w, c],
            Some(&[n, l, c]) => [n, l, 1, c],
            _ => return,
        };
        let elements: u64 = dims.iter().map(|&d| d as u64).product();
        if elements == 0 || !(t.size_bytes as u64).is_multiple_of(elements) {
            return;
        }
        let base = arenas.info.slow_base.wrapping_add(offset);
        let elem_bytes = (t.size_bytes as u64 / elements) as u32;
        if let Some(views) = &mut self.activation_views {
            views.placed(core.memory_mut(), plan, tensor, base, dims, elem_bytes);
        }
        if let Ok(view) = TensorView::new(tensor as u32, base, dims, elem_bytes) {
            if self.slow_map.insert(view.clone()).is_err() {
                // Overlaps a tensor placed earlier: the runtime reused its bytes; the newer one wins.
                self.slow_map.clear();
                let _ = self.slow_map.insert(view);
            }
        }
    }

    /// The profile of everything observed; `core` gives the arenas' bus traffic when no event came.
    /// `cut_by` names the limit that stopped the run, if one did: the stage it was in is incomplete.
    pub fn profile(&self, core: &dyn Core, cut_by: Option<traces::Limit>) -> traces::TigrisProfile {
        let mut findings = self.findings.clone();
        let (mut plan_info, mut static_parsed) = (self.plan.clone(), None);
        if let (None, Some((address, bytes))) = (&self.plan, &self.static_plan) {
            let mut info = traces::TigrisPlanInfo {
                address: *address,
                bytes: bytes.len() as u32,
                schema: None,
                model: None,
                budget: None,
                error: None,
            };
            static_parsed = read_plan(bytes, &mut info);
            if !self.stripped {
                findings.push(format!("tigris_plan_load was not seen: the plan is the one found in the ELF image at 0x{address:08x}"));
            }
            plan_info = Some(info);
        }
        let parsed = self.parsed.as_ref().or(static_parsed.as_ref());
        if self.stripped {
            findings.push(
                "the ELF has no function symbols (stripped): the TiGrIS runtime's functions (tigris_plan_load, \
                 tigris_mem_set_trace, tigris_run*) cannot be found, so there is no per-stage or per-tile breakdown; \
                 the plan is the one found in the image and the arena traffic below is what the bus showed. \
                 Run the unstripped ELF for the breakdown"
                    .into(),
            );
        }
        let derived = match (&self.derivation, parsed, self.sink) {
            (Some(d), Some(plan), None) => derive::events(plan, &d.seen),
            _ => Vec::new(),
        };
        let source = match (self.sink, derived.is_empty()) {
            (Some(_), _) => traces::BreakdownSource::TraceEvents,
            (None, false) => traces::BreakdownSource::Derived,
            (None, true) => {
                if !self.stripped {
                    findings.push(
                        "the firmware registered no trace sink (tigris_mem_set_trace) and its runtime's calls could not be \
                         followed: no per-stage or per-tile breakdown; the arena traffic below is what the bus showed"
                            .into(),
                    );
                }
                traces::BreakdownSource::TraceEvents
            }
        };
        let events = match source {
            traces::BreakdownSource::Derived => &derived,
            traces::BreakdownSource::TraceEvents => &self.events,
        };
        let breakdown = Breakdown::new(self, events);
        let mut stages = breakdown.stages();
        let last = stages.len().checked_sub(1);
        for (i, s) in stages.iter_mut().enumerate() {
            let cut = cut_by.filter(|_| Some(i) == last);
            if let Some(plan) = parsed {
                check_stage(plan, s, cut, &mut findings);
            }
            check_bus(s, &mut findings);
        }
        let stages_empty = stages.is_empty();
        let mut total = traces::TigrisFigures::default();
        for s in &stages {
            add_figures(&mut total, &s.figures);
        }
        if let (true, Some(a)) = (stages.is_empty(), &self.arenas) {
            // No events to divide the run by: the whole run's arena traffic from the bus.
            let slow = core.memory().watch_counters(a.slow_watch);
            total.slow_read_bytes = slow.traffic.read_bytes;
            total.slow_write_bytes = slow.traffic.write_bytes;
            total.slow_stall_cycles = slow.stall_cycles;
            total.fast_peak_bus = core.memory().watch_counters(a.fast_watch).high_water;
            total.slow_peak_bus = slow.high_water;
        }
        if let Some(w) = &self.what_if {
            findings.extend(w.findings.iter().cloned());
        }
        if self.dropped_findings > 0 {
            findings.push(format!(
                "{} more findings not listed",
                self.dropped_findings
            ));
        }
        traces::TigrisProfile {
            plan: plan_info,
            arenas: self.arenas.as_ref().map(|a| a.info.clone()),
            sink: self.sink,
            runs: self.runs,
            events: self.events.len() as u64,
            stages,
            total,
            findings,
            timeline: breakdown.timeline(),
            breakdown: (!stages_empty).then_some(source),
        }
    }
}

/// Parse a plan, filling what it says (or why it cannot be read) into `info`.
fn read_plan(bytes: &[u8], info: &mut traces::TigrisPlanInfo) -> Option<Plan> {
    match Plan::parse(bytes) {
        Ok(plan) => {
            info.schema = Some(plan.header.version);
            info.model = Some(plan.model_name.clone()).filter(|m| !m.is_empty());
            info.budget = Some(plan.header.budget);
            Some(plan)
        }
        Err(e) => {
            info.error = Some(e.to_string());
            None
        }
    }
}

/// A plan in the ELF image: at a symbol the harnesses use (`g_tigris_plan`: tigris-cortex-m
/// src/app/tigris_app.c; `_binary_model_tgrs_start`: tigris-ml 0.12.1 cli/codegen.py harnesses), else
/// the first `TGRS` magic with a schema this reader knows (1 to 10) whose `file_size` fits its segment. Returns its
/// address and bytes.
fn static_plan(fw: &Firmware) -> Option<(u32, Vec<u8>)> {
    let at_symbol = ["g_tigris_plan", "_binary_model_tgrs_start"]
        .iter()
        .find_map(|name| fw.symbols.iter().find(|s| s.name == *name).map(|s| s.addr));
    let candidates = fw.segments.iter().flat_map(|seg| {
        seg.data
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == b"TGRS")
            .map(move |(i, _)| (seg, i))
    });
    for (seg, offset) in at_symbol
        .and_then(|a| {
            fw.segments
                .iter()
                .find(|s| a >= s.addr && ((a - s.addr) as usize) < s.data.len())
                .map(|s| (s, (a - s.addr) as usize))
        })
        .into_iter()
        .chain(candidates)
    {
        let rest = &seg.data[offset..];
        if rest.len() < 48 || &rest[..4] != b"TGRS" {
            continue;
        }
        let version = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let size = u32::from_le_bytes([rest[8], rest[9], rest[10], rest[11]]) as usize;
        if (MIN_SCHEMA..=MAX_SCHEMA).contains(&version) && (48..=rest.len()).contains(&size) {
            return Some((seg.addr + offset as u32, rest[..size].to_vec()));
        }
    }
    None
}

/// Where the runtime's own figures and the bus disagree for a stage: kernels that read or write the
/// slow arena directly (overflowed tensors), copies the runtime did not report, or a fast-arena peak
/// other than the bytes actually written.
fn check_bus(stage: &traces::TigrisStage, findings: &mut Vec<String>) {
    let f = &stage.figures;
    let what = format!("stage {} ({})", stage.stage, stage.path);
    if f.slow_read_bytes != f.load_bytes {
        findings.push(format!(
            "{what}: the bus read {} bytes of the slow arena, the runtime reported {} bytes of loads",
            f.slow_read_bytes, f.load_bytes
        ));
    }
    if f.slow_write_bytes != f.spill_bytes {
        findings.push(format!(
            "{what}: the bus wrote {} bytes of the slow arena, the runtime reported {} bytes of spills",
            f.slow_write_bytes, f.spill_bytes
        ));
    }
    if f.halo_rows_bus != f.halo_rows {
        findings.push(format!(
            "{what}: the bus shows {} halo rows re-read, the runtime's tile rows say {}",
            f.halo_rows_bus, f.halo_rows
        ));
    }
    if f.fast_peak_bus > f.fast_peak {
        findings.push(format!(
            "{what}: a store reached fast-arena offset {}, past the runtime's peak occupancy {}",
            f.fast_peak_bus, f.fast_peak
        ));
    }
}

/// What the plan predicted for `stage`, and the findings where the run differs; a stage the
/// `cut` limit stopped is said to be incomplete instead of having its tiles and halo checked.
fn check_stage(
    plan: &Plan,
    stage: &mut traces::TigrisStage,
    cut: Option<traces::Limit>,
    findings: &mut Vec<String>,
) {
    let index = stage.stage as usize;
    let Some(head) = plan.stages.get(index) else {
        findings.push(format!(
            "stage {index}: the runtime ran a stage the plan does not have ({} stages)",
            plan.stages.len()
        ));
        return;
    };
    let members = if head.in_chain() {
        head.chain_len as usize
    } else {
        1
    };
    stage.op_names = plan.stages[index..(index + members).min(plan.stages.len())]
        .iter()
        .flat_map(|s| {
            s.ops.iter().map(|&o| {
                plan.ops
                    .get(o as usize)
                    .map(|op| op.name.clone())
                    .unwrap_or(format!("op {o}"))
            })
        })
        .collect();
    let p = plan.prediction(index);
    let expected_path = match p.execution {
        Execution::Untiled => "normal",
        Execution::Tiled if p.axis == 3 => "tiled_2d",
        Execution::Tiled => "tiled",
        Execution::ChainHead | Execution::ChainMember => "chain",
    };
    let tiled = !matches!(p.execution, Execution::Untiled);
    let peak_bytes = if tiled {
        p.tiled_peak_bytes
    } else {
        head.peak_bytes as u64
    };
    let line_buffered = p.chain.as_ref().is_some_and(|c| c.line_buffered);
    let what = format!("stage {index}");
    if stage.path != expected_path {
        findings.push(format!(
            "{what}: the plan says {}, the runtime ran it as {}",
            p.execution.name(),
            stage.path
        ));
    }
    let ran = stage.tiles.len() as u32;
    if let Some(limit) = cut {
        findings.push(format!(
            "{what}: incomplete run (stopped by the {limit} limit after {ran} tiles): its tiles and halo are not checked against the plan"
        ));
    } else if tiled && ran != p.tiles {
        findings.push(format!(
            "{what}: the runtime ran {ran} tiles where the plan said {}",
            p.tiles
        ));
    }
    let out_rows = stage
        .tiles
        .iter()
        .filter_map(|t| t.out_rows)
        .map(|r| (r[1] - r[0]).max(0) as u32)
        .max();
    if let (true, None, Some(rows)) = (tiled, cut, out_rows) {
        if rows != p.tile_height {
            findings.push(format!(
                "{what}: tiles of {rows} output rows where the plan said {}",
                p.tile_height
            ));
        }
    }
    if cut.is_none()
        && matches!(p.execution, Execution::Tiled)
        && stage.figures.halo_bytes != p.overhead_bytes
    {
        findings.push(format!(
            "{what}: {} bytes of halo rows re-read where the plan estimated {} (overhead_bytes)",
            stage.figures.halo_bytes, p.overhead_bytes
        ));
    }
    if stage.figures.fast_peak as u64 > plan.header.budget as u64 {
        findings.push(format!(
            "{what} peaked at {} bytes of fast arena, over the plan's {}-byte budget",
            stage.figures.fast_peak, plan.header.budget
        ));
    }
    stage.predicted = Some(traces::TigrisPrediction {
        execution: p.execution.name().into(),
        tiles: p.tiles,
        tile_height: p.tile_height,
        halo: p.halo,
        receptive_field: p.receptive_field,
        peak_bytes,
        overhead_bytes: p.overhead_bytes,
        line_buffered,
    });
}

/// Sum `b` into `a` (peaks take the maximum).
fn add_figures(a: &mut traces::TigrisFigures, b: &traces::TigrisFigures) {
    a.cycles += b.cycles;
    a.instructions += b.instructions;
    for s in &b.stalls {
        match a.stalls.iter_mut().find(|x| x.region == s.region) {
            Some(x) => x.cycles += s.cycles,
            None => a.stalls.push(s.clone()),
        }
    }
    a.fast_peak = a.fast_peak.max(b.fast_peak);
    a.fast_peak_bus = a.fast_peak_bus.max(b.fast_peak_bus);
    a.slow_peak = a.slow_peak.max(b.slow_peak);
    a.slow_peak_bus = a.slow_peak_bus.max(b.slow_peak_bus);
    a.load_bytes += b.load_bytes;
    a.spill_bytes += b.spill_bytes;
    a.slow_read_bytes += b.slow_read_bytes;
    a.slow_write_bytes += b.slow_write_bytes;
    a.slow_stall_cycles += b.slow_stall_cycles;
    a.load_cycles += b.load_cycles;
    a.spill_cycles += b.spill_cycles;
    a.halo_rows += b.halo_rows;
    a.halo_rows_bus += b.halo_rows_bus;
    a.halo_bytes += b.halo_bytes;
    a.halo_load_cycles += b.halo_load_cycles;
    a.recomputed_rows += b.recomputed_rows;
    a.recompute_cycles += b.recompute_cycles;
    a.moved_bytes += b.moved_bytes;
    a.ops += b.ops;
}

/// Figures that need the walk across tiles (what the previous tile did), kept per tile.
#[derive(Default, Clone, Copy)]
struct Carried {
    halo_rows: u64,
    halo_bytes: u64,
    recomputed_rows: u64,
    recompute_cycles: u64,
}

/// Overlap of two row ranges `[a0, a1)` and `[b0, b1)`.
fn overlap(a: [i32; 2], b: [i32; 2]) -> u64 {
    (a[1].min(b[1]) as i64 - a[0].max(b[0]) as i64).max(0) as u64
}

/// Walks the captured events into stages and tiles.
struct Breakdown<'r> {
    rt: &'r TigrisRuntime,
    /// The trace events, or those derived from the runtime's calls.
    events: &'r [Captured],
}

impl<'r> Breakdown<'r> {
    fn new(rt: &'r TigrisRuntime, events: &'r [Captured]) -> Self {
        Breakdown { rt, events }
    }

    /// Time, stalls and slow traffic between two snapshots.
    fn between(&self, from: &Snapshot, to: &Snapshot) -> traces::TigrisFigures {
        let stalls = from
            .stalls
            .iter()
            .zip(&to.stalls)
            .enumerate()
            .filter(|(_, (a, b))| b > a)
            .map(|(i, (a, b))| traces::RegionCycles {
                region: self.rt.region_names[i].clone(),
                cycles: b - a,
            })
            .collect();
        traces::TigrisFigures {
            cycles: to.cycles - from.cycles,
            instructions: to.instructions - from.instructions,
            stalls,
            slow_read_bytes: to.slow.traffic.read_bytes - from.slow.traffic.read_bytes,
            slow_write_bytes: to.slow.traffic.write_bytes - from.slow.traffic.write_bytes,
            slow_stall_cycles: to.slow.stall_cycles - from.slow.stall_cycles,
            ..Default::default()
        }
    }

    /// Cycles from the event before `k` to event `k`.
    fn cycles_before(&self, k: usize) -> u64 {
        let ev = &self.events;
        if k == 0 {
            0
        } else {
            ev[k].at.cycles - ev[k - 1].at.cycles
        }
    }

    fn stages(&self) -> Vec<traces::TigrisStage> {
        let events = &self.events;
        let mut stages: Vec<traces::TigrisStage> = Vec::new();
        // The open stage (index in `stages`, first event), the open tile's first event and carried figures.
        let mut open: Option<(usize, usize)> = None;
        let mut tile: Option<(usize, Carried)> = None;
        let mut prev_tile_rows: Option<[i32; 2]> = None;
        // Rows each tensor's kernels computed in the previous tile of the stage, and in this one.
        let mut computed_before: Vec<(u16, [i32; 2])> = Vec::new();
        // Slow-arena rows the previous tile of the stage read on the bus.
        let mut bus_rows_before: BTreeSet<(u32, u32)> = BTreeSet::new();
        let mut computed_now: Vec<(u16, [i32; 2])> = Vec::new();
        for (i, c) in events.iter().enumerate() {
            let e = &c.event;
            match e.kind {
                kind::STAGE_BEGIN => {
                    let path = PATHS
                        .get(e.path as usize)
                        .map(|p| p.to_string())
                        .unwrap_or(format!("path {}", e.path));
                    stages.push(traces::TigrisStage {
                        stage: e.stage,
                        path,
                        start_cycle: c.at.cycles,
                        op_names: Vec::new(),
                        predicted: None,
                        figures: Default::default(),
                        tiles: Vec::new(),
                    });
                    open = Some((stages.len() - 1, i));
                    tile = None;
                    prev_tile_rows = None;
                    bus_rows_before.clear();
                    computed_before.clear();
                    computed_now.clear();
                }
                kind::TILE_BEGIN => {
                    let Some((s, _)) = open else { continue };
                    self.close_tile(&mut stages[s], tile.take(), i, &mut bus_rows_before);
                    stages[s].tiles.push(traces::TigrisTile {
                        index: e.op,
                        start_cycle: c.at.cycles,
                        rows: e.rows,
                        out_rows: None,
                        figures: Default::default(),
                    });
                    // Rows this tile loads that the previous tile loaded too: the halo re-read.
                    let halo_rows = prev_tile_rows.map(|p| overlap(p, e.rows)).unwrap_or(0);
                    prev_tile_rows = Some(e.rows);
                    computed_before = std::mem::take(&mut computed_now);
                    tile = Some((
                        i,
                        Carried {
                            halo_rows,
                            ..Default::default()
                        },
                    ));
                }
                kind::LOAD => {
                    // The halo's bytes: its rows at this load's bytes per row.
                    if let Some((_, carried)) = &mut tile {
                        let rows = (e.rows[1] as i64 - e.rows[0] as i64).max(0) as u64;
                        if e.rows[0] >= 0 && rows > 0 && carried.halo_bytes == 0 {
                            carried.halo_bytes =
                                carried.halo_rows.min(rows) * (e.bytes as u64 / rows);
                        }
                    }
                }
                kind::OP if e.rows[0] >= 0 && e.tensor != u16::MAX => {
                    // A kernel call that says which rows it computed (the reference runtime does).
                    if let Some((_, carried)) = &mut tile {
                        let again = computed_before
                            .iter()
                            .filter(|(t, _)| *t == e.tensor)
                            .map(|(_, r)| overlap(*r, e.rows))
                            .sum::<u64>();
                        let rows = (e.rows[1] - e.rows[0]).max(1) as u64;
                        // The kernel runs from this event to the next one.
                        let kernel_cycles = events
                            .get(i + 1)
                            .map(|n| n.at.cycles - c.at.cycles)
                            .unwrap_or(0);
                        carried.recomputed_rows += again;
                        carried.recompute_cycles += kernel_cycles * again / rows;
                    }
                    computed_now.push((e.tensor, e.rows));
                }
                kind::STAGE_END => {
                    if let Some((s, first)) = open.take() {
                        self.close_tile(&mut stages[s], tile.take(), i, &mut bus_rows_before);
                        self.close_stage(&mut stages[s], first, i);
                    }
                }
                _ => {}
            }
        }
        // A stage still open (the run stopped inside it, or a live snapshot): its figures so far.
        if let Some((s, first)) = open {
            let last = events.len() - 1;
            if last > first {
                self.close_tile(&mut stages[s], tile.take(), last, &mut bus_rows_before);
                self.close_stage(&mut stages[s], first, last);
            }
        }
        stages
    }

    /// Every event with the stage and tile it belongs to and the slow arena's bus traffic so far.
    fn timeline(&self) -> Vec<traces::TigrisEvent> {
        let mut tile = None;
        let known = |v: u16| (v != u16::MAX).then_some(v);
        self.events
            .iter()
            .filter(|c| c.event.kind != derive::COPY_BEGIN)
            .map(|c| {
                let e = &c.event;
                match e.kind {
                    kind::STAGE_BEGIN => tile = None,
                    kind::TILE_BEGIN => tile = Some(e.op),
                    _ => {}
                }
                let event = traces::TigrisEvent {
                    cycle: c.at.cycles,
                    kind: KIND_NAMES[e.kind as usize - 1].into(),
                    stage: known(e.stage),
                    tile,
                    op: if e.kind == kind::OP {
                        known(e.op)
                    } else {
                        None
                    },
                    tensor: known(e.tensor),
                    bytes: e.bytes,
                    rows: (e.rows[0] >= 0 && e.rows[1] >= e.rows[0]).then_some(e.rows),
                    fast_used: e.fast_used,
                    slow_used: e.slow_used,
                    slow_read_bytes: c.at.slow.traffic.read_bytes,
                    slow_write_bytes: c.at.slow.traffic.write_bytes,
                };
                if e.kind == kind::STAGE_END {
                    tile = None;
                }
                event
            })
            .collect()
    }

    /// Fill the last tile of `stage` (opened at event `start`) from events `start..=end`;
    /// `bus_rows_before` holds the slow rows the previous tile read and takes this tile's.
    fn close_tile(
        &self,
        stage: &mut traces::TigrisStage,
        open: Option<(usize, Carried)>,
        end: usize,
        bus_rows_before: &mut BTreeSet<(u32, u32)>,
    ) {
        let Some((start, carried)) = open else { return };
        let read: BTreeSet<(u32, u32)> = self.events[start + 1..=end]
            .iter()
            .flat_map(|c| c.at.slow_rows.iter().copied())
            .collect();
        let halo_rows_bus = read.intersection(bus_rows_before).count() as u64;
        *bus_rows_before = read;
        let tile = stage.tiles.last_mut().expect("a tile was opened");
        tile.figures = self.figures(start, end);
        let f = &mut tile.figures;
        f.halo_rows = carried.halo_rows;
        f.halo_rows_bus = halo_rows_bus;
        f.halo_bytes = carried.halo_bytes;
        f.halo_load_cycles = (f.load_cycles * carried.halo_bytes)
            .checked_div(f.load_bytes)
            .unwrap_or(0);
        f.recomputed_rows = carried.recomputed_rows;
        f.recompute_cycles = carried.recompute_cycles;
        tile.out_rows = self.events[start..end]
            .iter()
            .filter(|c| c.event.kind == kind::SPILL && c.event.rows[0] >= 0)
            .map(|c| c.event.rows)
            .reduce(|a, b| [a[0].min(b[0]), a[1].max(b[1])]);
    }

    fn close_stage(&self, stage: &mut traces::TigrisStage, start: usize, end: usize) {
        stage.figures = self.figures(start, end);
        let f = &mut stage.figures;
        for t in &stage.tiles {
            f.halo_rows += t.figures.halo_rows;
            f.halo_rows_bus += t.figures.halo_rows_bus;
            f.halo_bytes += t.figures.halo_bytes;
            f.halo_load_cycles += t.figures.halo_load_cycles;
            f.recomputed_rows += t.figures.recomputed_rows;
            f.recompute_cycles += t.figures.recompute_cycles;
        }
    }

    /// Figures of events `start..=end`: time and bus traffic between their snapshots, byte counts and
    /// copy cycles of the events after `start` up to `end`.
    fn figures(&self, start: usize, end: usize) -> traces::TigrisFigures {
        let events = &self.events;
        let mut f = self.between(&events[start].at, &events[end].at);
        for (k, c) in events.iter().enumerate().take(end + 1).skip(start) {
            let e = &c.event;
            f.fast_peak = f.fast_peak.max(e.fast_used);
            f.slow_peak = f.slow_peak.max(e.slow_used);
            let copy = if k > start { self.cycles_before(k) } else { 0 };
            match e.kind {
                kind::LOAD => {
                    f.load_bytes += e.bytes as u64;
                    f.load_cycles += copy;
                }
                kind::SPILL => {
                    f.spill_bytes += e.bytes as u64;
                    f.spill_cycles += copy;
                }
                kind::MOVE => f.moved_bytes += e.bytes as u64,
                kind::OP => f.ops += 1,
                _ => {}
            }
        }
        // Each snapshot's high water covers the writes since the previous event.
        let after_start = &events[start + 1..=end];
        f.fast_peak_bus = after_start
            .iter()
            .map(|c| c.at.fast_high_water)
            .max()
            .unwrap_or(0);
        f.slow_peak_bus = after_start
            .iter()
            .map(|c| c.at.slow_high_water)
            .max()
            .unwrap_or(0);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of the reference firmware's tiled mode: stage 3 is tiled in 4 tiles of 10 rows, halo 2,
    /// 768 bytes of overhead, budget 8192 (firmware/tigris/README.md).
    const TILED_PLAN: &[u8] = include_bytes!("../../../firmware/tigris/plans/tigris_tiled.tgrs");

    fn observed(
        tiles: usize,
        out_rows: i32,
        fast_peak: u32,
        halo_bytes: u64,
    ) -> traces::TigrisStage {
        let tile = |i: usize| traces::TigrisTile {
            index: i as u16,
            start_cycle: 0,
            rows: [0, 0],
            out_rows: Some([0, out_rows]),
            figures: Default::default(),
        };
        traces::TigrisStage {
            stage: 3,
            path: "tiled".into(),
            start_cycle: 0,
            op_names: Vec::new(),
            predicted: None,
            figures: traces::TigrisFigures {
                fast_peak,
                halo_bytes,
                ..Default::default()
            },
            tiles: (0..tiles).map(tile).collect(),
        }
    }

    #[test]
    fn a_run_that_follows_the_plan_has_no_findings() {
        let plan = Plan::parse(TILED_PLAN).unwrap();
        let mut stage = observed(4, 10, 6656, 768);
        let mut findings = Vec::new();
        check_stage(&plan, &mut stage, None, &mut findings);
        assert_eq!(findings, Vec::<String>::new());
        let p = stage.predicted.unwrap();
        assert_eq!(
            (p.tiles, p.tile_height, p.halo, p.overhead_bytes),
            (4, 10, 2, 768)
        );
        assert_eq!(stage.op_names.len(), 1);
    }

    #[test]
    fn the_planner_check_names_every_difference() {
        let plan = Plan::parse(TILED_PLAN).unwrap();
        let mut stage = observed(3, 12, 9000, 512);
        stage.path = "tiled_2d".into();
        let mut findings = Vec::new();
        check_stage(&plan, &mut stage, None, &mut findings);
        assert_eq!(
            findings,
            [
                "stage 3: the plan says tiled, the runtime ran it as tiled_2d",
                "stage 3: the runtime ran 3 tiles where the plan said 4",
                "stage 3: tiles of 12 output rows where the plan said 10",
                "stage 3: 512 bytes of halo rows re-read where the plan estimated 768 (overhead_bytes)",
                "stage 3 peaked at 9000 bytes of fast arena, over the plan's 8192-byte budget",
            ]
        );
        stage.stage = 9;
        findings.clear();
        check_stage(&plan, &mut stage, None, &mut findings);
        assert_eq!(
            findings,
            ["stage 9: the runtime ran a stage the plan does not have (4 stages)"]
        );
    }

    #[test]
    fn bus_and_runtime_disagreements_are_findings() {
        let mut stage = observed(4, 10, 6656, 768);
        let f = &mut stage.figures;
        (
            f.load_bytes,
            f.slow_read_bytes,
            f.spill_bytes,
            f.slow_write_bytes,
            f.fast_peak_bus,
        ) = (4864, 4864, 16384, 16384, 6656);
        let mut findings = Vec::new();
        check_bus(&stage, &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
        let f = &mut stage.figures;
        (f.slow_read_bytes, f.slow_write_bytes, f.fast_peak_bus) = (9000, 0, 7000);
        check_bus(&stage, &mut findings);
        assert_eq!(
            findings,
            [
                "stage 3 (tiled): the bus read 9000 bytes of the slow arena, the runtime reported 4864 bytes of loads",
                "stage 3 (tiled): the bus wrote 0 bytes of the slow arena, the runtime reported 16384 bytes of spills",
                "stage 3 (tiled): a store reached fast-arena offset 7000, past the runtime's peak occupancy 6656",
            ]
        );
    }

    #[test]
    fn a_plan_in_the_image_is_found_without_symbols() {
        use crate::elf::Segment;
        // Junk, a false "TGRS" with no plausible header, then the plan.
        let mut data = b"....TGRS\xff\xff\xff\xff....".to_vec();
        let at = data.len() as u32;
        data.extend_from_slice(TILED_PLAN);
        let segment = Segment {
            index: 0,
            addr: 0x3C00_0000,
            mem_size: data.len() as u32,
            data,
            executable: false,
        };
        let fw = Firmware {
            segments: vec![segment],
            ..Firmware::default()
        };
        let (address, bytes) = static_plan(&fw).unwrap();
        assert_eq!((address, bytes.as_slice()), (0x3C00_0000 + at, TILED_PLAN));
    }

    #[test]
    fn events_decode_at_their_offsets() {
        let mut raw = [0u8; EVENT_BYTES];
        raw[0] = kind::TILE_BEGIN;
        raw[4..6].copy_from_slice(&3u16.to_le_bytes());
        raw[8..10].copy_from_slice(&2u16.to_le_bytes());
        raw[20..24].copy_from_slice(&1536u32.to_le_bytes());
        raw[24..28].copy_from_slice(&9i32.to_le_bytes());
        raw[28..32].copy_from_slice(&21i32.to_le_bytes());
        raw[32..36].copy_from_slice(&(-1i32).to_le_bytes());
        raw[40..44].copy_from_slice(&6656u32.to_le_bytes());
        let e = TraceEvent::parse(&raw);
        assert_eq!(
            (
                e.kind,
                e.stage,
                e.op,
                e.bytes,
                e.rows,
                e.cols[0],
                e.fast_used
            ),
            (3, 3, 2, 1536, [9, 21], -1, 6656)
        );
    }
}
