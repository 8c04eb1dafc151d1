//! Machine assembly and the run loop: board + firmware -> core, then run under the user's limits,
//! serving semihosting and collecting the profile into a report.

use crate::defmt::Defmt;
use crate::elf::{self, Firmware, SymbolMap};
use crate::flash_image;
use crate::hle::Hle;
use crate::lines;
use crate::profiler::Profiler;
use crate::rom;
use crate::rtt::Rtt;
use crate::semihost::{Effect, Semihosting};
use crate::tensor_views;
use crate::tigris::runtime::TigrisRuntime;
use crate::tigris::whatif::{FreeMemory, Placer, WhatIf};
use crate::unwind::{self, Isa};
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::time::{Duration, Instant};
use tigris_cores::cortex_m::CortexM;
use tigris_cores::xtensa::XtensaBackend;
use tigris_cores::{Budget, Core, CoreError, Entry, ExecObserver, Fault, FaultKind, Stop};
use tigris_targets::{Board, RegionKind};
use tigris_traces as traces;
use tigris_traces::{Condition, Limit};

/// This program, as reports name it.
pub fn tool() -> traces::Tool {
    traces::Tool {
        name: "tigris-sim".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Options of loading a machine.
#[derive(Default, Clone)]
pub struct LoadOptions {
    /// `--entry SYMBOL`: start at a function instead of the reset vector / ELF entry.
    pub entry: Option<String>,
    /// Count every data access, also to regions that cost nothing (slower on Cortex-M).
    pub memory_stats: bool,
    /// `--rom FILE`: the chip's mask-ROM ELF, instead of searching for it.
    pub rom: Option<String>,
    /// `--no-rom`: run without the chip's mask ROM even when it can be found.
    pub no_rom: bool,
    /// `--strict-mmio`: a poll of a peripheral register without progress stops the run.
    pub strict_mmio: bool,
    /// `--trace-mmio`: print every peripheral access on stderr.
    pub trace_mmio: bool,
    /// `--fill-ram BYTE`: what the writable SRAM holds before the image is loaded (0 otherwise;
    /// on a chip it is whatever the RAM powered up with); on Cortex-M also r0-r12 at reset.
    pub fill_ram: Option<u8>,
    /// `--symbols ELF`: ELF files whose symbols name the code (of a flash image).
    pub symbols: Vec<String>,
    /// `--plan`, `--fast-arena`, `--slow-arena`: what the firmware's TiGrIS calls are handed instead.
    pub what_if: WhatIf,
    /// `--unwind`: how backtraces are found.
    pub unwind: Unwind,
    /// `--views FILE` and each `--view`: tensor views whose traffic is attributed by tile.
    pub views_file: Option<String>,
    pub views: Vec<String>,
    /// `--tigris-views`: a view of every TiGrIS activation placed in the slow arena.
    pub tigris_views: bool,
    /// `--no-block-compiler`: interpret every Xtensa block (the reference; same results, slower).
    pub no_block_compiler: bool,
}

/// Options of one run.
pub struct RunOptions {
    pub max_cycles: u64,
    pub max_instructions: u64,
    pub timeout: Option<Duration>,
    pub allow_host_fs: bool,
    /// Where console output goes as it happens (None: only into the report).
    pub live_console: Option<Box<dyn Write + Send>>,
    /// `--trace-instructions`: run one instruction at a time and print each on stderr.
    pub trace_instructions: bool,
    /// `--lines`: profile per source line as well.
    pub line_profile: bool,
    /// `--expect`, `--fail-on`, `--stop-at`, `--until-cycles`: what ends the run early.
    pub conditions: StopConditions,
    /// `--gdb`: a debugger that stops and steps the run.
    pub debugger: Option<Box<dyn Debugger + Send>>,
}

impl Default for RunOptions {
    /// No limits, no host access, no console stream, no conditions.
    fn default() -> Self {
        RunOptions {
            max_cycles: u64::MAX,
            max_instructions: u64::MAX,
            timeout: None,
            allow_host_fs: false,
            live_console: None,
            trace_instructions: false,
            line_profile: false,
            conditions: StopConditions::default(),
            debugger: None,
        }
    }
}

/// Conditions that end a run before the firmware does (CI: docs/ci.md).
#[derive(Debug, Clone, Default)]
pub struct StopConditions {
    /// `--expect TEXT`: the run passes when the console prints this.
    pub expect: Option<String>,
    /// `--expect-timeout`: simulated seconds within which `expect` must appear.
    pub expect_timeout: Option<f64>,
    /// `--fail-on TEXT` (repeatable): the run fails when the console prints one of these.
    pub fail_on: Vec<String>,
    /// `--stop-at SYMBOL`: the run passes when the core first enters this function.
    pub stop_at: Option<String>,
    /// `--until-cycles N`: the run passes when it has run this many cycles.
    pub until_cycles: Option<u64>,
}

impl StopConditions {
    fn watch_console(&self) -> bool {
        self.expect.is_some() || !self.fail_on.is_empty()
    }
}

/// Cycles between two looks at the console for `--expect`/`--fail-on` text (and at the simulated
/// time for `--expect-timeout`): a run stops at most this many cycles after the text appeared.
pub const CONDITION_CHECK_CYCLES: u64 = 100_000;

/// Most cycles simulated between checks of the wall clock, console flushes and monitor ticks.
const SLICE_CYCLES: u64 = 20_000_000;
/// Cycles between timeline samples at the start of a run (doubled as the run grows long).
const FIRST_SAMPLE_INTERVAL: u64 = 10_000;

/// What a run monitor sees at a tick.
pub struct Tick {
    pub cycles: u64,
    pub instructions: u64,
    /// Kind of the TiGrIS trace event just captured (`tile_begin`, ...), when the tick is one.
    pub tigris_event: Option<&'static str>,
}

/// A monitor's answer at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// End the run now (the report's outcome is the `stopped` limit).
    Stop,
}

/// Watches a run as it goes (live view, progress line). It never changes what the run computes: a
/// monitor may only look, wait (pause) or stop the run.
pub trait RunMonitor {
    /// Called between simulation slices and after every TiGrIS trace event; `live` builds the report
    /// of the run so far (its outcome is the `running` limit).
    fn tick(&mut self, at: &Tick, live: &mut dyn FnMut() -> traces::Report) -> Control;
}

/// Why the run stopped for a debugger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugStop {
    /// Before the first instruction.
    Start,
    /// After one instruction.
    Step,
    Breakpoint {
        pc: u32,
    },
    Watchpoint {
        addr: u32,
        write: bool,
    },
    /// The debugger asked for the stop (`Debugger::wants_stop`).
    Interrupted,
}

/// What the run loop hands a stopped debugger.
pub enum DebugEvent {
    Stopped(DebugStop),
    /// The report so far, asked for with `DebugAction::Report`.
    Report(Box<traces::Report>),
    /// The machine restarted at its entry (`DebugAction::Restart`), or why it could not.
    Restarted(Result<(), String>),
}

/// A stopped debugger's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugAction {
    Continue,
    Step,
    /// End the run now (the report's outcome is the `stopped` limit).
    End,
    Report,
    /// Load the image again and restart the core at its entry; the counters go on.
    Restart,
}

/// A debugger attached to the run (`--gdb`, see `gdb.rs`): it sees the core whenever the run stops
/// for it and says how to go on. Stops and steps change nothing the run computes (docs/debugging.md).
pub trait Debugger {
    /// The run is stopped: serve the debugger (it may read and write the core) until it answers.
    fn stopped(&mut self, event: DebugEvent, core: &mut dyn Core) -> DebugAction;
    /// Between slices of a free run: whether the debugger asks for a stop.
    fn wants_stop(&mut self) -> bool;
    /// The run ended with this exit code.
    fn finished(&mut self, exit_code: u8);
}

/// Most cycles a run with a debugger simulates between looks at it (a Ctrl-C waits for no more).
const DEBUG_POLL_CYCLES: u64 = 1_000_000;

/// The run loop's side of a debugger: whether the next slice is a step, and the stop to tell of.
struct DebugSession {
    debugger: Box<dyn Debugger + Send>,
    step: bool,
    stop: Option<DebugStop>,
}

impl DebugSession {
    /// The stop a slice that ended with `stop` makes for the debugger.
    fn note(&mut self, stop: &Stop) {
        self.stop = match *stop {
            Stop::Breakpoint { pc } => Some(DebugStop::Breakpoint { pc }),
            Stop::Watchpoint { addr, write, .. } => Some(DebugStop::Watchpoint { addr, write }),
            _ if self.step => Some(DebugStop::Step),
            _ => None,
        };
    }

    /// The stop to tell the debugger of before the next slice, if any.
    fn take_stop(&mut self) -> Option<DebugStop> {
        self.stop
            .take()
            .or_else(|| self.debugger.wants_stop().then_some(DebugStop::Interrupted))
    }
}

/// Samples the machine every `interval` cycles, at most `traces::MAX_SAMPLES` of them.
struct Sampler {
    interval: u64,
    next_at: u64,
    samples: Vec<traces::Sample>,
}

impl Sampler {
    fn new() -> Self {
        Sampler {
            interval: FIRST_SAMPLE_INTERVAL,
            next_at: FIRST_SAMPLE_INTERVAL,
            samples: Vec::new(),
        }
    }

    /// Cycles the core may run before the next sample is due.
    fn budget(&self, cycles: u64) -> u64 {
        self.next_at.saturating_sub(cycles).max(1)
    }

    fn take(&mut self, sample: traces::Sample) {
        let cycle = sample.cycle;
        self.samples.push(sample);
        if self.samples.len() > traces::MAX_SAMPLES {
            // Keep the samples taken at even multiples of the interval, then sample half as often.
            let interval = self.interval;
            self.samples
                .retain(|s| (s.cycle / interval).is_multiple_of(2));
            self.interval *= 2;
        }
        self.next_at = (cycle / self.interval + 1) * self.interval;
    }

    fn timeline(&self) -> traces::Timeline {
        traces::Timeline {
            interval_cycles: self.interval,
            samples: self.samples.clone(),
        }
    }
}

/// A loaded machine, ready to run.
pub struct Machine<'a> {
    pub board: Board,
    pub firmware: Firmware,
    pub symbols: SymbolMap,
    pub core: Box<dyn Core + 'a>,
    pub entry: Entry,
    hle: Hle,
    /// The mask ROM loaded, or where it was looked for when the board needs one and none was found.
    rom: Option<std::result::Result<std::path::PathBuf, rom::Search>>,
    /// The TiGrIS runtime observer, when the firmware links the runtime.
    tigris: Option<TigrisRuntime>,
    /// The SEGGER RTT console, when the firmware has a `_SEGGER_RTT` control block.
    rtt: Option<Rtt>,
    /// The firmware ELF has no function symbols of its own (the ROM's may be there).
    /// Why the profile cannot name the firmware's functions, if it cannot.
    symbols_note: Option<&'static str>,
    /// The defmt decoder for what arrives on RTT, when the ELF has a `.defmt` table.
    defmt: Option<Defmt>,
    file_name: String,
    sha256: String,
    unwind: Unwind,
}

/// How backtraces are found (`--unwind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Unwind {
    /// From the DWARF call-frame information when the ELF has it for the code that stopped, else
    /// from the calls the profiler saw.
    #[default]
    Auto,
    /// Only from the call-frame information (and the exception frames, the register windows).
    Cfi,
    /// Only from the calls and exceptions the profiler saw since reset.
    Calls,
}

/// The machine state as the unwinder reads it.
struct UnwindState<'m> {
    core: &'m dyn Core,
    symbols: &'m SymbolMap,
}

impl unwind::MachineState for UnwindState<'_> {
    fn pc(&self) -> u32 {
        self.core.pc()
    }

    fn register(&self, name: &str) -> Option<u32> {
        self.core.debug_register(name)
    }

    fn read(&self, addr: u32, buf: &mut [u8]) -> Option<()> {
        self.core.read_memory(addr, buf).ok()
    }

    fn function_start(&self, pc: u32) -> Option<u32> {
        self.symbols.lookup(pc).map(|i| self.symbols.range(i).0)
    }
}

fn read_word(fw: &Firmware, addr: u32) -> Option<u32> {
    fw.segments.iter().find_map(|s| {
        let off = addr.checked_sub(s.addr)? as usize;
        s.data
            .get(off..off + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    })
}

/// How panic messages start, by the code that prints them: ESP-IDF's panic handler ("Guru
/// Meditation Error: Core N panic'ed (reason)", "abort() was called at PC ... on core N", a failed
/// `assert`, a stack overflow; ESP-IDF Programming Guide, "Fatal Errors") and Rust's panic
/// handlers (`panicked at FILE:LINE:COL`, as esp-backtrace and panic-probe print it).
const PANIC_STARTS: &[&str] = &[
    "Guru Meditation Error",
    "abort() was called at PC",
    "assert failed:",
    "***ERROR*** A stack overflow",
    "panicked at ",
];

/// The first console line that is a panic message, with the line after it when the message
/// continues there (Rust prints the panic's own text on the next line).
fn panic_message(console: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(console);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let i = lines
        .iter()
        .position(|l| PANIC_STARTS.iter().any(|p| l.contains(p)))?;
    let mut message = lines[i].to_string();
    if message.ends_with(':') {
        if let Some(next) = lines.get(i + 1).filter(|l| !l.is_empty()) {
            message = format!("{message} {next}");
        }
    }
    Some(message)
}

/// `ESP_APP_DESC_MAGIC_WORD` and the offset of `app_elf_sha256` in ESP-IDF's `esp_app_desc_t`
/// (ESP-IDF esp_app_format/include/esp_app_desc.h).
const APP_DESC_MAGIC: u32 = 0xABCD_5432;
const APP_DESC_ELF_SHA256: u32 = 0x90;

/// An ESP-IDF app's description as the flashed image holds it: `esptool elf2image`, run by the
/// ESP-IDF build (`--elf-sha256-offset`), writes the ELF file's SHA-256 into `esp_app_desc`, where
/// the ELF itself has zeros. The app prints it at start-up and its core dumps carry it, which
/// `esp-coredump` checks against the ELF.
fn stamp_app_description(fw: &Firmware, core: &mut dyn Core, sha256: &[u8]) -> Result<(), String> {
    let Some(desc) = fw.symbols.iter().find(|s| s.name == "esp_app_desc") else {
        return Ok(());
    };
    if read_word(fw, desc.addr) != Some(APP_DESC_MAGIC) {
        return Ok(());
    }
    core.write_memory(desc.addr + APP_DESC_ELF_SHA256, sha256)
        .map_err(|e| e.to_string())
}

impl Machine<'_> {
    pub fn load(path: &str, board: Board, options: &LoadOptions) -> Result<Self> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read firmware {path}"))?;
        let flash_boot = flash_image::detect(path, &bytes, &board)?;
        let mut firmware = if flash_boot {
            Firmware::default()
        } else {
            elf::parse(path, &bytes, &board)?
        };
        for file in &options.symbols {
            let elf_bytes =
                std::fs::read(file).with_context(|| format!("--symbols: cannot read {file}"))?;
            let named = elf::parse(file, &elf_bytes, &board)?;
            firmware
                .notes
                .extend(named.notes.iter().map(|n| format!("{file}: {n}")));
            firmware.add_symbols(named.symbols);
            // Source lines come from the first ELF that has DWARF (the app of a flash image).
            firmware.debug = firmware.debug.take().or(named.debug);
        }
        for note in &firmware.notes {
            eprintln!("warning: {path}: {note}");
        }
        let unnamed = !firmware.symbols.iter().any(|s| s.is_function);
        let symbols_note = match (unnamed, flash_boot) {
            (false, _) => None,
            (true, false) => Some(
                "the ELF has no function symbols (stripped): the profile cannot name functions and backtraces show \
                 addresses only; run the unstripped ELF (or keep its symbols) for them",
            ),
            (true, true) => Some(
                "a flash image carries no symbols: only the ROM's functions are named; pass the app's ELF (and the \
                 bootloader's) with --symbols to name theirs",
            ),
        };
        let declared = tensor_views::load(
            options.views_file.as_deref(),
            &options.views,
            &firmware.symbols,
            &board,
        )?;
        let views = declared.views;
        for note in declared.overlaps {
            eprintln!("warning: {note}");
            firmware.notes.push(note);
        }
        // Watching the TiGrIS arenas or tensor views needs every access reported (on Cortex-M,
        // hooks on all regions).
        let mut tigris = TigrisRuntime::detect(&firmware, &board);
        if let Some(activations) =
            tensor_views::ActivationViews::new(options.tigris_views, declared.tigris, &board)
        {
            match &mut tigris {
                Some(t) => t.set_activation_views(activations),
                None => bail!(
                    "{path}: views of TiGrIS activations (--tigris-views, `tigris =` in a views file) need a firmware \
                     that runs the TiGrIS runtime, and this one does not link it"
                ),
            }
        }
        let mut core = build_core(
            &board,
            &firmware,
            options.memory_stats || tigris.is_some() || !views.is_empty(),
            options,
        )?;
        let mut rom_stack = None;
        // What the ROM image loads, which a what-if must not place anything over.
        let mut rom_spans = Vec::new();
        let found = if options.no_rom {
            None
        } else {
            rom::find(&board, options.rom.as_deref())?
        };
        let rom = match found {
            Some(Ok(rom_path)) => {
                let image = rom::read(&rom_path, &board)?;
                rom_stack = image.stack_top;
                for (addr, data) in &image.chunks {
                    rom_spans.push((*addr, addr.saturating_add(data.len() as u32)));
                    core.write_memory(*addr, data).with_context(|| {
                        format!("{}: loading the ROM at 0x{addr:08x}", rom_path.display())
                    })?;
                }
                firmware.add_symbols(image.symbols);
                Some(Ok(rom_path))
            }
            Some(Err(search)) if flash_boot => bail!(
                "{path}: a flash image boots from the chip's mask ROM, which was not found: {}",
                search.describe()
            ),
            other => other,
        };
        if flash_boot {
            if options.entry.is_some() {
                bail!("{path}: --entry does not apply to a flash image, which starts at the ROM's reset vector");
            }
            core.load_flash(&bytes).with_context(|| path.to_string())?;
            firmware.entry = core
                .reset_vector()
                .context("this core has no reset vector to boot a flash image from")?;
        }
        if let Some(fill) = options.fill_ram {
            for r in board
                .regions
                .iter()
                .filter(|r| r.kind == RegionKind::Sram && r.access.write)
            {
                core.write_memory(r.base, &vec![fill; r.size as usize])
                    .with_context(|| format!("--fill-ram: region `{}`", r.name))?;
            }
        }
        write_image(core.as_mut(), &firmware).map_err(|(s, e)| {
            anyhow::Error::new(e).context(format!(
                "{path}: loading segment {} at 0x{:08x}",
                s.index, s.addr
            ))
        })?;
        let elf_sha256 = Sha256::digest(&bytes);
        stamp_app_description(&firmware, core.as_mut(), &elf_sha256).map_err(|e| {
            anyhow::anyhow!("{path}: writing the ELF's SHA-256 into esp_app_desc: {e}")
        })?;
        let symbols = SymbolMap::of(&firmware);
        let mut entry = Self::find_entry(path, &firmware, &board, options.entry.as_deref())?;
        if let (Some(sp), false) = (rom_stack, board.core.kind.is_cortex_m()) {
            entry.sp = sp.saturating_sub(board.boot_stack_used);
        }
        match (&mut tigris, options.what_if.is_empty()) {
            (_, true) => {}
            (Some(t), false) => {
                let free = FreeMemory::new(&board, &firmware, &rom_spans, entry.sp);
                let placer = Placer {
                    board: board.clone(),
                    free,
                };
                t.set_what_if(options.what_if.clone(), placer)
                    .with_context(|| path.to_string())?;
            }
            (None, false) => bail!(
                "{path}: --plan/--fast-arena/--slow-arena: the firmware does not run the TiGrIS runtime (no \
                 tigris_plan_load or tigris_run* among its symbols, no plan in its image)"
            ),
        }
        core.reset(entry).context("reset")?;
        if let (Some(sp), Some(Ok(rom_path)), false) = (rom_stack, &rom, flash_boot) {
            run_rom_init(core.as_mut(), &board, &firmware, sp, rom_path)?;
            core.reset(entry).context("reset")?;
            core.memory_mut().reset_counters();
        }
        if let (Some(fill), true) = (options.fill_ram, board.core.kind.is_cortex_m()) {
            // r0-r12 are UNKNOWN out of reset (ARMv7-M ARM B1.5.5 reset behaviour): on a chip
            // they hold what the debugger or boot code left there, so they get the fill too.
            for n in 0..13 {
                core.set_register(n, u32::from_ne_bytes([fill; 4]))
                    .with_context(|| format!("--fill-ram: r{n}"))?;
            }
        }
        let rom_loaded = matches!(rom, Some(Ok(_)));
        let mut hle = Hle::new(&board, &firmware, rom_loaded);
        hle.install_boot_rom(&board, &firmware, core.as_mut())
            .context("writing the emulated boot ROM")?;
        core.set_traps(&hle.addresses())
            .context("setting up ROM emulation")?;
        if let Some(t) = &tigris {
            core.set_traps(&t.trap_addresses())
                .context("setting up TiGrIS observation")?;
        }
        let file_name = std::path::Path::new(path)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sha256 = elf_sha256.iter().map(|b| format!("{b:02x}")).collect();
        // After the ROM's boot calls, whose traffic is not the run's.
        tensor_views::observe(core.memory_mut(), views);
        let rtt = Rtt::find(&firmware.symbols);
        let defmt = match &rtt {
            Some(_) => Defmt::find(&bytes).with_context(|| path.to_string())?,
            None => None,
        };
        Ok(Machine {
            symbols_note,
            board,
            firmware,
            symbols,
            core,
            entry,
            hle,
            rom,
            tigris,
            rtt,
            defmt,
            file_name,
            sha256,
            unwind: options.unwind,
        })
    }

    /// Start state: the vector table's initial SP and reset vector, or `--entry SYMBOL`.
    fn find_entry(path: &str, fw: &Firmware, board: &Board, symbol: Option<&str>) -> Result<Entry> {
        let top_of_ram = board
            .regions
            .iter()
            .find(|r| r.kind == RegionKind::Sram && r.access.write)
            .map(|r| (r.end() & !7) as u32)
            .unwrap_or(0);
        let function = |name: &str| {
            fw.symbols
                .iter()
                .find(|s| s.is_named(name) && s.is_function)
                .map(|s| s.addr)
                .with_context(|| {
                    format!("{path}: --entry {name}: no function symbol of that name in the ELF")
                })
        };
        if !board.core.kind.is_cortex_m() {
            // Xtensa: no vector table to read; the start code sets up its own stack, and a1 starts at
            // the top of the first RAM region as a boot loader would leave it.
            let pc = match symbol {
                Some(name) => function(name)?,
                None => fw.entry,
            };
            return Ok(Entry {
                pc,
                sp: top_of_ram,
                vector_table: None,
                return_ends_run: false,
            });
        }
        let table = entry_vector_table(fw, board);
        let sp_from_table = table.and_then(|t| read_word(fw, t));
        if let Some(name) = symbol {
            let pc = function(name)?;
            let sp = sp_from_table.unwrap_or(top_of_ram);
            return Ok(Entry {
                pc,
                sp,
                vector_table: table,
                return_ends_run: true,
            });
        }
        match (table, sp_from_table, table.and_then(|t| read_word(fw, t + 4))) {
            (Some(_), Some(sp), Some(reset)) if reset & 1 == 1 => {
                Ok(Entry { pc: reset & !1, sp, vector_table: table, return_ends_run: false })
            }
            (Some(t), _, reset) => bail!(
                "{path}: the vector table at 0x{t:08x} has no Thumb reset vector (word 1 = {}); use --entry SYMBOL",
                reset.map(|r| format!("0x{r:08x}")).unwrap_or("outside the loaded image".into())
            ),
            (None, _, _) => Ok(Entry { pc: fw.entry & !1, sp: top_of_ram, vector_table: None, return_ends_run: false }),
        }
    }

    /// Run to completion or a limit; console output is streamed to `opts.live_console`, and
    /// `monitor` (if any) watches.
    pub fn run(
        &mut self,
        mut opts: RunOptions,
        mut monitor: Option<&mut dyn RunMonitor>,
    ) -> Result<traces::Report> {
        let stop_at = self.stop_at_addresses(&opts.conditions)?;
        let mut profiler = Profiler::new(&self.symbols);
        if opts.line_profile {
            profiler.count_segments();
        }
        let starts: Vec<u32> = (0..self.symbols.len())
            .map(|i| self.symbols.get(i).addr)
            .collect();
        self.core.profile_other_cores(&starts, profiler.unknown());
        let mut semihosting = Semihosting::new(opts.allow_host_fs, self.board.core.clock_hz);
        let mut sampler = Sampler::new();
        let started = Instant::now();
        let mut console = Vec::new();
        let mut warnings = Vec::new();
        let mut outcome;
        let mut fault = None;
        // Console bytes already searched for the conditions' texts.
        let mut scanned = 0;
        // The view sees the machine before its first instruction (`--paused` waits there).
        let quit_before_start = match monitor.as_deref_mut() {
            Some(m) => self.tick(m, &profiler, &sampler, &console, None) == Control::Stop,
            None => false,
        };
        let mut debug = opts.debugger.take().map(|debugger| DebugSession {
            debugger,
            step: false,
            stop: Some(DebugStop::Start),
        });
        loop {
            if quit_before_start {
                outcome = self.stopped(&profiler);
                break;
            }
            let debug_stop = debug.as_mut().and_then(DebugSession::take_stop);
            if let (Some(d), Some(stop)) = (debug.as_mut(), debug_stop) {
                let mut event = DebugEvent::Stopped(stop);
                let action = loop {
                    event = match d.debugger.stopped(event, self.core.as_mut()) {
                        DebugAction::Report => DebugEvent::Report(Box::new(
                            self.report_so_far(&profiler, &sampler, &console),
                        )),
                        DebugAction::Restart => DebugEvent::Restarted(
                            restart(self.core.as_mut(), &self.firmware, self.entry)
                                .map_err(|e| e.to_string()),
                        ),
                        action => break action,
                    };
                };
                d.step = action == DebugAction::Step;
                if action == DebugAction::End {
                    outcome = self.stopped(&profiler);
                    break;
                }
            }
            if let Some(met) =
                self.condition_met(&opts.conditions, &console, &mut scanned, &profiler)
            {
                outcome = met;
                break;
            }
            let used_cycles = self.core.cycles();
            let used_insns = self.core.instructions();
            let mut budget = Budget {
                cycles: SLICE_CYCLES
                    .min(sampler.budget(used_cycles))
                    .min(opts.max_cycles.saturating_sub(used_cycles))
                    .min(self.next_condition_check(&opts.conditions)),
                instructions: opts.max_instructions.saturating_sub(used_insns),
            };
            if opts.trace_instructions {
                budget.instructions = budget.instructions.min(1);
                self.trace_instruction();
            }
            if debug.is_some() {
                budget.cycles = budget.cycles.min(DEBUG_POLL_CYCLES);
            }
            let stop = match &mut debug {
                Some(d) if d.step => self.core.step(&mut profiler),
                _ => self.core.run(budget, &mut profiler),
            }
            .context("simulator")?;
            if let Some(d) = &mut debug {
                d.note(&stop);
            }
            for (pc, text) in self.core.take_warnings() {
                let at = self
                    .symbols
                    .describe(pc)
                    .map(|s| format!(" at 0x{pc:08x} {s}"))
                    .unwrap_or_default();
                let note = format!("{text}{at}");
                eprintln!("warning: {note}");
                warnings.push(note);
            }
            let mut out = self.core.take_console();
            if let Some(rtt) = &self.rtt {
                match rtt.drain(self.core.as_mut()) {
                    Ok(bytes) => match &mut self.defmt {
                        Some(d) if !bytes.is_empty() => out.extend(d.feed(&bytes)),
                        _ => out.extend(bytes),
                    },
                    Err(e) => {
                        flush(&mut opts.live_console, &out, &mut console);
                        fault = Some(bad_pointer(self.core.pc(), "SEGGER RTT control block", e));
                        outcome = traces::Outcome::Fault;
                        break;
                    }
                }
            }
            if self.core.cycles() >= sampler.next_at {
                sampler.take(self.sample(&profiler));
            }
            if let Stop::Trap { pc } = stop {
                if stop_at.contains(&pc) {
                    flush(&mut opts.live_console, &out, &mut console);
                    let name = opts.conditions.stop_at.as_deref().unwrap_or_default();
                    let detail = format!("--stop-at: reached {name} (0x{pc:08x})");
                    outcome = self.condition(Condition::StopAt, detail, true, &profiler);
                    break;
                }
                if let Some(t) = &mut self.tigris {
                    let seen = t.events_seen();
                    match t.on_trap(self.core.as_mut(), pc) {
                        Ok(true) => {
                            if let Some(refusal) = t.what_if_refusal() {
                                bail!("{}: {refusal}", self.file_name);
                            }
                            flush(&mut opts.live_console, &out, &mut console);
                            let event = self
                                .tigris
                                .as_ref()
                                .filter(|t| t.events_seen() > seen)
                                .and_then(|t| t.last_event_kind());
                            if let (Some(m), Some(kind)) = (monitor.as_deref_mut(), event) {
                                if self.tick(m, &profiler, &sampler, &console, Some(kind))
                                    == Control::Stop
                                {
                                    outcome = self.stopped(&profiler);
                                    break;
                                }
                            }
                            continue;
                        }
                        Ok(false) => {}
                        Err(e) => {
                            fault = Some(bad_pointer(pc, "TiGrIS runtime call", e));
                            outcome = traces::Outcome::Fault;
                            break;
                        }
                    }
                }
                let served = self.hle.handle(self.core.as_mut(), pc, &mut out);
                flush(&mut opts.live_console, &out, &mut console);
                match served {
                    Ok(true) => continue,
                    Ok(false) => {
                        fault = Some(Fault {
                            kind: FaultKind::Breakpoint,
                            pc,
                            address: None,
                            detail: format!(
                                "stopped at 0x{pc:08x}, an address no emulated function claims"
                            ),
                        });
                    }
                    Err(e) => fault = Some(bad_pointer(pc, "emulated ROM call", e)),
                }
                outcome = traces::Outcome::Fault;
                break;
            }
            if matches!(stop, Stop::Semihosting) {
                let effect = semihosting.handle(self.core.as_mut());
                out.append(&mut semihosting.output);
                flush(&mut opts.live_console, &out, &mut console);
                match effect {
                    Ok(Effect::Continue) => continue,
                    Ok(Effect::Exit(code)) => {
                        outcome = traces::Outcome::Exited { code };
                        break;
                    }
                    Err(e) => {
                        fault = Some(bad_pointer(self.core.pc(), "semihosting request", e));
                        outcome = traces::Outcome::Fault;
                        break;
                    }
                }
            }
            flush(&mut opts.live_console, &out, &mut console);
            match stop {
                Stop::Fault(f) => {
                    fault = Some(f);
                    outcome = traces::Outcome::Fault;
                    break;
                }
                Stop::Returned { value } => {
                    outcome = traces::Outcome::Exited { code: value as i32 };
                    break;
                }
                Stop::Reset { by } => {
                    let pc = self.core.pc();
                    outcome = traces::Outcome::Reset {
                        by,
                        pc,
                        location: self.symbols.describe(pc),
                        backtrace: self.backtrace(pc, &profiler),
                    };
                    break;
                }
                Stop::Idle { pc, detail } => {
                    let (_, location, backtrace) = self.place(pc, &profiler);
                    outcome = traces::Outcome::Idle {
                        detail,
                        pc,
                        location,
                        backtrace,
                    };
                    break;
                }
                Stop::Budget
                | Stop::Semihosting
                | Stop::Trap { .. }
                | Stop::Breakpoint { .. }
                | Stop::Watchpoint { .. } => {}
            }
            if let Some(m) = monitor.as_deref_mut() {
                if self.tick(m, &profiler, &sampler, &console, None) == Control::Stop {
                    outcome = self.stopped(&profiler);
                    break;
                }
            }
            let limit = if self.core.cycles() >= opts.max_cycles {
                Some(Limit::MaxCycles)
            } else if self.core.instructions() >= opts.max_instructions {
                Some(Limit::MaxInstructions)
            } else if opts.timeout.is_some_and(|t| started.elapsed() >= t) {
                Some(Limit::Timeout)
            } else {
                None
            };
            if let Some(limit) = limit {
                outcome = self.limit(limit, &profiler);
                break;
            }
        }
        // The text may have come in the run's last slice, before the firmware exited or slept.
        if matches!(
            outcome,
            traces::Outcome::Exited { .. } | traces::Outcome::Idle { .. }
        ) {
            if let Some(met) = self.text_met(&opts.conditions, &console, &mut scanned, &profiler) {
                outcome = met;
            }
        }
        if let (Some(text), false) = (
            &opts.conditions.expect,
            matches!(outcome, traces::Outcome::Condition { .. }),
        ) {
            let note = format!("--expect: the console never printed {text:?}");
            eprintln!("error: {note}");
            warnings.push(note);
        }
        if let Some(d) = &mut debug {
            d.debugger.finished(crate::exit_code(&outcome));
        }
        semihosting.close();
        if sampler.samples.last().map(|s| s.cycle) != Some(self.core.cycles()) {
            sampler.take(self.sample(&profiler));
        }
        let fault_report = fault.map(|f| self.describe_fault(&f, &profiler));
        profiler.finish(self.core.cycles(), self.core.instructions());
        let mut report = self.report(
            outcome,
            fault_report,
            &profiler,
            &console,
            sampler.timeline(),
        );
        report.notes = semihosting.notes;
        report.notes.extend(self.firmware.notes.iter().cloned());
        report.notes.extend(self.symbols_note.map(String::from));
        report.notes.extend(warnings);
        report.notes.extend(self.core.run_notes());
        report
            .notes
            .extend(self.tigris.iter().flat_map(TigrisRuntime::what_if_notes));
        report.notes.extend(
            self.tigris
                .iter()
                .flat_map(TigrisRuntime::activation_view_notes),
        );
        if opts.line_profile && !self.symbols.has_source() {
            report.notes.push(
                "--lines: the ELF has no DWARF line information (build with -g), so the lines are whole functions".into(),
            );
        }
        Ok(report)
    }

    /// One line of `--trace-instructions`: cycle, PC, symbol, instruction and the registers.
    fn trace_instruction(&self) {
        let pc = self.core.pc();
        let regs: Vec<String> = self
            .core
            .registers()
            .iter()
            .take(16)
            .map(|(n, v)| format!("{n}={v:x}"))
            .collect();
        eprintln!(
            "insn {:>12} {pc:08x} {:<40} {:<28} {}",
            self.core.cycles(),
            self.symbols.describe(pc).unwrap_or_default(),
            self.core.disassemble(pc).unwrap_or_default(),
            regs.join(" ")
        );
    }

    /// The outcome of a run a monitor stopped.
    fn stopped(&self, profiler: &Profiler) -> traces::Outcome {
        self.limit(Limit::Stopped, profiler)
    }

    fn limit(&self, limit: Limit, profiler: &Profiler) -> traces::Outcome {
        let (pc, location, backtrace) = self.place(self.core.pc(), profiler);
        traces::Outcome::Limit {
            limit,
            pc,
            location,
            backtrace,
        }
    }

    /// Where the core is for an outcome: the PC, its symbol and the backtrace.
    fn place(&self, pc: u32, profiler: &Profiler) -> (u32, Option<String>, Vec<String>) {
        (pc, self.symbols.describe(pc), self.backtrace(pc, profiler))
    }

    fn condition(
        &self,
        condition: Condition,
        detail: String,
        passed: bool,
        profiler: &Profiler,
    ) -> traces::Outcome {
        let (pc, location, backtrace) = self.place(self.core.pc(), profiler);
        traces::Outcome::Condition {
            condition,
            detail,
            passed,
            pc,
            location,
            backtrace,
        }
    }

    /// The addresses `--stop-at` traps: every function of that name (the firmware's own and the
    /// mask ROM's `strlen`, say), after checking there is one.
    fn stop_at_addresses(&mut self, conditions: &StopConditions) -> Result<Vec<u32>> {
        let Some(name) = &conditions.stop_at else {
            return Ok(Vec::new());
        };
        let at = self.symbols.functions_named(name);
        if at.is_empty() {
            bail!("--stop-at {name}: no function symbol of that name in the ELF");
        }
        self.core
            .set_traps(&at)
            .with_context(|| format!("--stop-at {name}"))?;
        Ok(at)
    }

    /// Most cycles the next slice may run before the conditions are looked at again.
    fn next_condition_check(&self, conditions: &StopConditions) -> u64 {
        let cycles = self.core.cycles();
        let text = if conditions.watch_console() {
            CONDITION_CHECK_CYCLES
        } else {
            u64::MAX
        };
        let until = conditions
            .until_cycles
            .map_or(u64::MAX, |n| n.saturating_sub(cycles));
        // The cycles left to the timeout at the clock the core runs at now.
        let timeout = conditions.expect_timeout.map_or(u64::MAX, |limit| {
            let board = self.board_info();
            let hz = board.clock_changes.last().map_or(board.clock_hz, |c| c.hz);
            let left = (limit - board.seconds(cycles)) * hz as f64;
            (left.ceil() as u64).max(1)
        });
        text.min(until).min(timeout)
    }

    /// A stop condition met before the next slice: console text, `--until-cycles` or
    /// `--expect-timeout`.
    fn condition_met(
        &self,
        conditions: &StopConditions,
        console: &[u8],
        scanned: &mut usize,
        profiler: &Profiler,
    ) -> Option<traces::Outcome> {
        if let Some(met) = self.text_met(conditions, console, scanned, profiler) {
            return Some(met);
        }
        let cycles = self.core.cycles();
        if let Some(n) = conditions.until_cycles.filter(|&n| cycles >= n) {
            let detail = format!("--until-cycles: reached cycle {n}");
            return Some(self.condition(Condition::UntilCycles, detail, true, profiler));
        }
        let (Some(text), Some(limit)) = (&conditions.expect, conditions.expect_timeout) else {
            return None;
        };
        (self.board_info().seconds(cycles) >= limit).then(|| {
            let detail = format!(
                "--expect-timeout: {text:?} not printed within {limit} s of simulated time"
            );
            self.condition(Condition::ExpectTimeout, detail, false, profiler)
        })
    }

    /// `--fail-on` or `--expect` text in the console bytes not yet searched (the first of them to
    /// appear wins; a `--fail-on` text before an `--expect` text at the same place).
    fn text_met(
        &self,
        conditions: &StopConditions,
        console: &[u8],
        scanned: &mut usize,
        profiler: &Profiler,
    ) -> Option<traces::Outcome> {
        if !conditions.watch_console() || console.len() == *scanned {
            return None;
        }
        let found = |text: &str| {
            // A text may straddle the bytes searched before and the new ones.
            let from = scanned.saturating_sub(text.len().saturating_sub(1));
            console[from..]
                .windows(text.len().max(1))
                .position(|w| w == text.as_bytes())
                .map(|at| from + at)
        };
        let failed = conditions
            .fail_on
            .iter()
            .filter_map(|t| found(t).map(|at| (at, t, false)));
        let passed = conditions
            .expect
            .iter()
            .filter_map(|t| found(t).map(|at| (at, t, true)));
        let first = failed
            .chain(passed)
            .min_by_key(|&(at, _, passed)| (at, passed));
        *scanned = console.len();
        first.map(|(_, text, passed)| {
            let (condition, flag) = if passed {
                (Condition::Expect, "--expect")
            } else {
                (Condition::FailOn, "--fail-on")
            };
            let detail = format!("{flag}: the console printed {text:?}");
            self.condition(condition, detail, passed, profiler)
        })
    }

    /// Let the monitor look at the run; `event` is the TiGrIS event just captured.
    fn tick(
        &self,
        monitor: &mut dyn RunMonitor,
        profiler: &Profiler,
        sampler: &Sampler,
        console: &[u8],
        event: Option<&'static str>,
    ) -> Control {
        let at = Tick {
            cycles: self.core.cycles(),
            instructions: self.core.instructions(),
            tigris_event: event,
        };
        monitor.tick(&at, &mut || self.report_so_far(profiler, sampler, console))
    }

    /// The report of the run so far (its outcome is the `running` limit).
    fn report_so_far(
        &self,
        profiler: &Profiler,
        sampler: &Sampler,
        console: &[u8],
    ) -> traces::Report {
        let mut so_far = profiler.clone();
        so_far.finish(self.core.cycles(), self.core.instructions());
        let mut timeline = sampler.timeline();
        timeline.samples.push(self.sample(profiler));
        self.report(
            self.limit(Limit::Running, profiler),
            None,
            &so_far,
            console,
            timeline,
        )
    }

    /// The machine now, for the timeline.
    fn sample(&self, profiler: &Profiler) -> traces::Sample {
        let regions = &self.core.memory().regions;
        let counted = |f: fn(&tigris_memmodels::RegionCounters) -> u64| {
            regions
                .iter()
                .map(|r| if r.traffic_counted { f(&r.counters) } else { 0 })
                .collect()
        };
        traces::Sample {
            cycle: self.core.cycles(),
            instructions: self.core.instructions(),
            read_bytes: counted(|c| c.traffic.read_bytes),
            write_bytes: counted(|c| c.traffic.write_bytes),
            stall_cycles: regions.iter().map(|r| r.counters.stall_cycles).collect(),
            stack: self.stack_names(&profiler.current_path()),
            other_cores: self
                .core
                .other_cores()
                .into_iter()
                .map(|c| traces::OtherCoreSample {
                    prid: c.prid,
                    instructions: c.instructions,
                    idle_cycles: c.idle_cycles,
                    function: self
                        .function_name(self.symbols.lookup(c.pc).unwrap_or(self.symbols.len()))
                        .to_string(),
                })
                .collect(),
            views: tensor_views::traffic(self.core.memory()),
        }
    }

    /// The name of function `i` of the profiler (one past the symbols: code no symbol covers).
    fn function_name(&self, i: usize) -> &str {
        if i == self.symbols.len() {
            "(no symbol)"
        } else {
            &self.symbols.get(i).name
        }
    }

    /// A call path as `outer;...;inner` (a `;` inside a demangled name, as in `[u8; 4]`, becomes
    /// `,` so the folded form still splits into its functions).
    fn stack_names(&self, path: &[usize]) -> String {
        path.iter()
            .map(|&i| self.function_name(i).replace(';', ","))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Innermost first: the PC, then the call sites on the profiler's shadow stack and, for a frame
    /// an exception entered, the address it preempted with the exception's name (at most 16 lines).
    fn backtrace(&self, pc: u32, profiler: &Profiler) -> Vec<String> {
        self.backtrace_from(pc, profiler, None)
    }

    /// The backtrace from `pc`. `branch`: where a fault's faulting instruction was, when the
    /// innermost exception frame holds the address it branched to instead: a fetch fault at a
    /// target outside all code (`blx` to 0xFFFFFFFF) stacks the target, and the function that
    /// branched there has no frame of its own on the profiler's stack, so its line follows.
    fn backtrace_from(&self, pc: u32, profiler: &Profiler, branch: Option<u32>) -> Vec<String> {
        let lines = match self.unwound(pc) {
            Some(frames) => self.unwound_lines(&frames),
            None => self.observed_lines(pc, profiler, branch),
        };
        lines
            .into_iter()
            .take(17)
            .enumerate()
            .map(|(i, line)| format!("#{i} {line}"))
            .collect()
    }

    /// The frames unwound from the machine state, when `--unwind` and the ELF allow: with `auto`,
    /// when the call-frame information covers the stopped code or its first caller (a handler or
    /// leaf written in assembly has none of its own).
    fn unwound(&self, pc: u32) -> Option<Vec<unwind::Frame>> {
        if self.unwind == Unwind::Calls || pc != self.core.pc() {
            return None;
        }
        let none = unwind::CallFrames::default();
        let cfi = self.firmware.call_frames.as_deref().unwrap_or(&none);
        let isa = match self.board.core.kind {
            k if k.is_cortex_m() => Isa::CortexM,
            tigris_targets::CoreKind::XtensaLx106 => Isa::XtensaCall0,
            _ => Isa::XtensaWindowed,
        };
        let state = UnwindState {
            core: self.core.as_ref(),
            symbols: &self.symbols,
        };
        let frames = cfi.unwind(isa, &state);
        let covered = frames.iter().take(2).any(|f| cfi.covers(f.pc));
        (self.unwind == Unwind::Cfi || covered).then_some(frames)
    }

    fn unwound_lines(&self, frames: &[unwind::Frame]) -> Vec<String> {
        let mut lines = Vec::new();
        for frame in frames {
            if frame.is_return_address() {
                let call_site = frame.pc.wrapping_sub(self.core.call_instruction_bytes());
                lines.extend(self.frame_lines(call_site));
                continue;
            }
            let mut frame_lines = self.frame_lines(frame.pc);
            // A frame an exception preempted is named by it, as in the observed backtrace.
            if let (Some(Some(number)), Some(last)) = (frame.left_by, frame_lines.last_mut()) {
                let name = tigris_cores::cortex_m::exception_name(number);
                last.push_str(&format!(" (exception frame: {name})"));
            }
            lines.extend(frame_lines);
        }
        lines
    }

    fn observed_lines(&self, pc: u32, profiler: &Profiler, branch: Option<u32>) -> Vec<String> {
        let mut branch = branch;
        let mut frame = |(name, at): (String, u32)| {
            let mut lines = self.frame_lines(at);
            if let Some(last) = lines.last_mut() {
                last.push_str(&format!(" (exception frame: {name})"));
            }
            if let Some(b) = branch
                .take()
                .filter(|&b| b != at && self.symbols.describe(at).is_none())
            {
                lines.extend(self.frame_lines(b));
            }
            lines
        };
        let mut lines = self.frame_lines(pc);
        let stack = profiler.call_stack();
        let mut exceptions = self.core.exception_frames().into_iter();
        // A handler that stopped the run at its first block has no frame on the profiler's stack yet.
        let unseen = exceptions
            .len()
            .saturating_sub(stack.iter().filter(|f| f.2).count());
        lines.extend(exceptions.by_ref().take(unseen).flat_map(&mut frame));
        for (_, ret, exception) in stack {
            if exception {
                lines.extend(exceptions.next().into_iter().flat_map(&mut frame));
            } else if ret != 0 {
                let call_site = ret.wrapping_sub(self.core.call_instruction_bytes());
                lines.extend(self.frame_lines(call_site));
            }
        }
        lines
    }

    /// The backtrace lines of one address: `0xADDR symbol+0xoff`, with `at file:line` from DWARF,
    /// and first a line for each function inlined there (innermost first), as gdb lists them.
    fn frame_lines(&self, at: u32) -> Vec<String> {
        let described = self.symbols.describe(at).unwrap_or("??".into());
        let frames = self.symbols.source(at);
        let Some((outer, inlined)) = frames.split_last() else {
            return vec![format!("0x{at:08x} {described}")];
        };
        let at_line = |f: &crate::dwarf::SourceFrame| {
            f.location
                .as_ref()
                .map(|l| format!(" at {l}"))
                .unwrap_or_default()
        };
        let mut lines: Vec<String> = inlined
            .iter()
            .map(|f| {
                let name = f.function.as_deref().unwrap_or("??");
                format!("0x{at:08x} {name}{} (inlined)", at_line(f))
            })
            .collect();
        lines.push(format!("0x{at:08x} {described}{}", at_line(outer)));
        lines
    }

    /// When `pc` is in the mask ROM and no ROM is loaded: the ROM function the firmware called (by
    /// its name in the ELF's absolute symbols, which ROM linker scripts define) and why it is absent.
    fn rom_missing(&self, pc: u32) -> Option<String> {
        let in_rom = self
            .board
            .regions
            .iter()
            .any(|r| r.kind == RegionKind::Rom && r.contains(pc));
        if !in_rom || matches!(self.rom, Some(Ok(_))) || self.board.rom.is_empty() {
            return None;
        }
        let name = self
            .firmware
            .absolute
            .iter()
            .find(|s| s.addr == pc)
            .map(|s| format!("`{}` ", s.name))
            .unwrap_or_default();
        let why = match &self.rom {
            Some(Err(search)) => {
                format!("the chip's mask ROM was not found: {}", search.describe())
            }
            _ => "the run was started with --no-rom".to_string(),
        };
        Some(format!("the firmware called the ROM function {name}at 0x{pc:08x}, but the mask ROM is not loaded: {why}"))
    }

    fn describe_fault(&self, f: &Fault, profiler: &Profiler) -> traces::FaultReport {
        let sp = self.core.stack_pointer();
        let near_stack = f.address.is_some_and(|a| a.abs_diff(sp) < 1024);
        let kind = match f.kind {
            FaultKind::BadRead | FaultKind::BadWrite if near_stack => "stack overflow".to_string(),
            k => k.name().to_string(),
        };
        let message = if kind == "stack overflow" {
            format!(
                "{} (SP = 0x{sp:08x}: the stack ran out of its RAM region)",
                f.detail
            )
        } else if let Some(why) = self.rom_missing(f.pc) {
            why
        } else {
            f.detail.clone()
        };
        // Inside a handler (one spinning on a fault), the trace starts where the core is now and runs
        // through the exception frames down to the faulting code.
        let start = if self.core.exception_frames().is_empty() {
            f.pc
        } else {
            self.core.pc()
        };
        let backtrace = self.backtrace_from(start, profiler, Some(f.pc));
        traces::FaultReport {
            kind,
            pc: f.pc,
            location: self.symbols.describe(f.pc),
            source: self.symbols.line(f.pc),
            address: f.address,
            instruction: self.core.disassemble(f.pc),
            message,
            backtrace,
            registers: self
                .core
                .registers()
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect(),
        }
    }

    /// The board as the report shows it, with the clock switches the firmware made so far.
    fn board_info(&self) -> traces::BoardInfo {
        // A chip booted from its ROM starts at its reset clock: a change at cycle 0.
        let mut clock_changes = self.core.clock_changes();
        let start_clock = match clock_changes.first() {
            Some(&(0, hz)) => {
                clock_changes.remove(0);
                hz
            }
            _ => self.board.core.clock_hz,
        };
        traces::BoardInfo {
            name: self.board.name.clone(),
            core: self.board.core.kind.name().into(),
            clock_hz: start_clock,
            clock_changes: clock_changes
                .into_iter()
                .map(|(cycle, hz)| traces::ClockChange { cycle, hz })
                .collect(),
            settings: self.board.settings.clone(),
        }
    }

    fn report(
        &self,
        outcome: traces::Outcome,
        fault: Option<traces::FaultReport>,
        profiler: &Profiler,
        console: &[u8],
        timeline: traces::Timeline,
    ) -> traces::Report {
        let cycles = self.core.cycles();
        let instructions = self.core.instructions();
        let cut_by = match &outcome {
            traces::Outcome::Limit { limit, .. } => Some(*limit),
            _ => None,
        };
        let board = self.board_info();
        let memory = self.core.memory();
        let mut function_memory: Vec<Vec<traces::FunctionMemory>> =
            vec![Vec::new(); profiler.stats.len()];
        for (owner, region, c) in memory.owner_counters() {
            let r = &memory.regions[region];
            let counted = |v: u64| r.traffic_counted.then_some(v);
            if let Some(rows) = function_memory.get_mut(owner) {
                rows.push(traces::FunctionMemory {
                    region: r.spec.name.clone(),
                    reads: counted(c.traffic.reads),
                    writes: counted(c.traffic.writes),
                    read_bytes: counted(c.traffic.read_bytes),
                    write_bytes: counted(c.traffic.write_bytes),
                    fetches: c.fetches,
                    stall_cycles: c.stall_cycles,
                    icache_misses: c.icache_misses,
                    dcache_misses: c.dcache_misses,
                    writebacks: c.writebacks,
                });
            }
        }
        let mut functions: Vec<traces::FunctionProfile> = profiler
            .stats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.self_cycles > 0 || s.inclusive_cycles > 0)
            .map(|(i, s)| {
                let symbol = (i != profiler.unknown()).then(|| self.symbols.get(i));
                traces::FunctionProfile {
                    name: self.function_name(i).to_string(),
                    symbol: symbol.and_then(|s| s.mangled.clone()),
                    address: symbol.map_or(0, |s| s.addr),
                    source: symbol.and_then(|s| self.symbols.line(s.addr)),
                    calls: s.calls,
                    self_cycles: s.self_cycles,
                    inclusive_cycles: s.inclusive_cycles,
                    self_instructions: s.self_instructions,
                    inclusive_instructions: s.inclusive_instructions,
                    memory: std::mem::take(&mut function_memory[i]),
                }
            })
            .collect();
        functions.sort_by(|a, b| {
            b.self_cycles
                .cmp(&a.self_cycles)
                .then(a.address.cmp(&b.address))
        });
        let regions: Vec<traces::RegionProfile> = memory
            .regions
            .iter()
            .map(|r| traces::RegionProfile {
                name: r.spec.name.clone(),
                kind: r.spec.kind.name().to_string(),
                base: r.spec.base,
                size: r.spec.size,
                reads: r.traffic_counted.then_some(r.counters.traffic.reads),
                writes: r.traffic_counted.then_some(r.counters.traffic.writes),
                read_bytes: r.traffic_counted.then_some(r.counters.traffic.read_bytes),
                write_bytes: r.traffic_counted.then_some(r.counters.traffic.write_bytes),
                fetches: r.counters.fetches,
                stall_cycles: r.counters.stall_cycles,
                icache_hits: r.counters.icache_hits,
                icache_misses: r.counters.icache_misses,
                dcache_hits: r.counters.dcache_hits,
                dcache_misses: r.counters.dcache_misses,
                writebacks: r.counters.writebacks,
            })
            .collect();
        let caches = memory
            .caches
            .iter()
            .map(|c| traces::CacheProfile {
                name: c.spec.name.clone(),
                size: c.spec.size,
                ways: c.spec.ways,
                line_bytes: c.spec.line_bytes,
                write_policy: c.spec.write_policy.name().into(),
                replacement: c.spec.replacement.name().into(),
                hits: c.counters.hits,
                misses: c.counters.misses,
                writebacks: c.counters.writebacks,
                stall_cycles: c.counters.stall_cycles,
            })
            .collect();
        let stall_cycles = regions.iter().map(|r| r.stall_cycles).sum();
        let mut stacks: Vec<traces::StackProfile> = profiler
            .call_paths()
            .into_iter()
            .map(|(path, cycles, instructions)| traces::StackProfile {
                stack: self.stack_names(&path),
                cycles,
                instructions,
            })
            .collect();
        stacks.sort_by(|a, b| a.stack.cmp(&b.stack));
        traces::Report {
            schema: traces::SCHEMA.into(),
            schema_version: traces::SCHEMA_VERSION,
            tool: tool(),
            firmware: traces::Firmware {
                file: self.file_name.clone(),
                sha256: self.sha256.clone(),
                entry: self.entry.pc,
                initial_sp: self.entry.sp,
            },
            board: board.clone(),
            outcome,
            totals: traces::Totals {
                cycles,
                instructions,
                cpi: if instructions > 0 {
                    cycles as f64 / instructions as f64
                } else {
                    0.0
                },
                seconds: board.seconds(cycles),
                stall_cycles,
            },
            console: String::from_utf8_lossy(console).into_owned(),
            functions,
            regions,
            caches,
            tigris: self
                .tigris
                .as_ref()
                .map(|t| t.profile(self.core.as_ref(), cut_by)),
            stacks,
            timeline: Some(timeline),
            fault,
            other_cores: self.other_cores(),
            lines: lines::profile(&profiler.segments(), &self.symbols, self.core.as_ref()),
            views: tensor_views::profiles(self.core.memory()),
            panic: panic_message(console),
            notes: Vec::new(),
        }
    }

    /// The other cores' totals and flat profiles, by function name.
    fn other_cores(&self) -> Vec<traces::CoreProfile> {
        self.core
            .other_cores()
            .into_iter()
            .map(|c| {
                let mut functions: Vec<traces::FlatFunction> = c
                    .counts
                    .iter()
                    .enumerate()
                    .filter(|(_, &(cycles, _))| cycles > 0)
                    .map(|(i, &(self_cycles, self_instructions))| {
                        let known = i < self.symbols.len();
                        traces::FlatFunction {
                            name: if known {
                                self.symbols.get(i).name.clone()
                            } else {
                                "(unknown)".into()
                            },
                            address: if known { self.symbols.get(i).addr } else { 0 },
                            self_cycles,
                            self_instructions,
                        }
                    })
                    .collect();
                functions.sort_by(|a, b| {
                    b.self_cycles
                        .cmp(&a.self_cycles)
                        .then(a.address.cmp(&b.address))
                });
                traces::CoreProfile {
                    prid: c.prid,
                    cycles: c.cycles,
                    instructions: c.instructions,
                    idle_cycles: c.idle_cycles,
                    pc: c.pc,
                    location: self.symbols.describe(c.pc),
                    functions,
                }
            })
            .collect()
    }

    /// Run with no observer work at all (for the speed benchmark's reference figure).
    pub fn run_raw(
        &mut self,
        max_instructions: u64,
        observer: &mut dyn ExecObserver,
    ) -> Result<()> {
        loop {
            let budget = Budget {
                cycles: u64::MAX,
                instructions: max_instructions.saturating_sub(self.core.instructions()),
            };
            match self.core.run(budget, observer)? {
                Stop::Semihosting => {
                    let mut sh = Semihosting::new(false, self.board.core.clock_hz);
                    if let Effect::Exit(_) = sh.handle(self.core.as_mut())? {
                        return Ok(());
                    }
                }
                Stop::Trap { pc } => {
                    let mut out = Vec::new();
                    if !self.hle.handle(self.core.as_mut(), pc, &mut out)? {
                        bail!("stopped at 0x{pc:08x}, an address no emulated function claims");
                    }
                }
                Stop::Budget
                | Stop::Returned { .. }
                | Stop::Idle { .. }
                | Stop::Breakpoint { .. }
                | Stop::Watchpoint { .. } => return Ok(()),
                Stop::Fault(f) => bail!("firmware fault: {}", f.detail),
                Stop::Reset { by } => bail!("the chip was {}", tigris_traces::reset_cause(&by)),
            }
        }
    }
}

/// Run the ROM functions the chip's boot code calls before it hands over (`Board::rom_init`), so
/// that the ROM's variables hold what they hold when the firmware starts.
fn run_rom_init(
    core: &mut dyn Core,
    board: &Board,
    fw: &Firmware,
    sp: u32,
    rom: &std::path::Path,
) -> Result<()> {
    for call in &board.rom_init {
        let (name, arg) = match call.split_once('(') {
            Some((n, rest)) => (n.trim(), Some(rest.trim_end_matches(')').trim())),
            None => (call.trim(), None),
        };
        let args: Vec<u32> = match arg {
            None | Some("") => Vec::new(),
            Some("cpu_mhz") => vec![(board.core.clock_hz / 1_000_000) as u32],
            Some(n) => {
                let v = match n.strip_prefix("0x") {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                };
                vec![v.with_context(|| {
                    format!(
                        "board `{}`: rom_init `{call}`: the argument is not a number or `cpu_mhz`",
                        board.name
                    )
                })?]
            }
        };
        let addr = fw
            .symbols
            .iter()
            .find(|s| s.is_named(name) && s.is_function)
            .map(|s| s.addr)
            .with_context(|| {
                format!(
                    "board `{}`: rom_init `{call}`: the ROM {} has no function `{name}`",
                    board.name,
                    rom.display()
                )
            })?;
        core.call_function(addr, &args, sp, 10_000_000)
            .with_context(|| format!("{}: the ROM's start-up call {call}", rom.display()))?;
    }
    Ok(())
}

/// Write the image's segments, zero-filled to their memory size; the segment that failed, if any.
fn write_image<'f>(
    core: &mut dyn Core,
    firmware: &'f Firmware,
) -> Result<(), (&'f elf::Segment, CoreError)> {
    for s in &firmware.segments {
        let mut image = s.data.clone();
        image.resize(s.mem_size as usize, 0);
        core.write_memory(s.addr, &image).map_err(|e| (s, e))?;
    }
    Ok(())
}

/// Load the image again and put the core at its entry (a debugger's `monitor reset`).
fn restart(core: &mut dyn Core, firmware: &Firmware, entry: Entry) -> Result<(), CoreError> {
    write_image(core, firmware).map_err(|(_, e)| e)?;
    core.reset(entry)
}

/// A request from the firmware (semihosting, emulated ROM call) that points at unmapped memory.
fn bad_pointer(pc: u32, what: &str, e: impl std::fmt::Display) -> Fault {
    Fault {
        kind: FaultKind::BadRead,
        pc,
        address: None,
        detail: format!("{what} with a bad pointer: {e}"),
    }
}

/// The core backend for the board's core kind.
fn build_core<'a>(
    board: &Board,
    firmware: &Firmware,
    memory_stats: bool,
    options: &LoadOptions,
) -> Result<Box<dyn Core + 'a>> {
    if !board.core.kind.is_cortex_m() {
        let mut core = XtensaBackend::new(board).context("setting up the core")?;
        core.set_block_compiler(!options.no_block_compiler);
        core.bus.strict_mmio = options.strict_mmio;
        core.bus.trace_mmio = options.trace_mmio;
        return Ok(Box::new(core));
    }
    let code: Vec<(u32, Vec<u8>)> = firmware
        .segments
        .iter()
        .filter(|s| s.executable)
        .map(|s| (s.addr, s.data.clone()))
        .collect();
    let mut core = CortexM::new(board, &code, memory_stats).context("setting up the core")?;
    core.set_strict_mmio(options.strict_mmio);
    core.set_trace_mmio(options.trace_mmio);
    Ok(Box::new(core))
}

/// Where the vector table is: the ELF's vector section, else the board's (where its boot code leaves
/// VTOR, e.g. after the RP2040's boot2), else address 0, VTOR's reset value (ARMv7-M ARM B3.2.5),
/// whichever first holds a Thumb reset vector in the image (a table found by no name).
fn entry_vector_table(fw: &Firmware, board: &Board) -> Option<u32> {
    let has_reset_vector = |t: u32| {
        read_word(fw, t.wrapping_add(4))
            .is_some_and(|r| r & 1 == 1 && read_word(fw, r & !1).is_some())
    };
    fw.vector_section.or_else(|| {
        [board.vector_table, Some(0)]
            .into_iter()
            .flatten()
            .find(|&t| has_reset_vector(t))
    })
}

fn flush(live: &mut Option<Box<dyn Write + Send>>, bytes: &[u8], keep: &mut Vec<u8>) {
    if bytes.is_empty() {
        return;
    }
    if let Some(w) = live {
        let _ = w.write_all(bytes);
        let _ = w.flush();
    }
    keep.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the ticks it sees and stops the run at the first.
    struct FirstTick(Vec<u64>);

    impl RunMonitor for FirstTick {
        fn tick(&mut self, at: &Tick, _live: &mut dyn FnMut() -> traces::Report) -> Control {
            self.0.push(at.cycles);
            Control::Stop
        }
    }

    /// A monitor sees the machine before its first instruction (`--paused` pauses there).
    #[test]
    fn the_monitor_ticks_before_the_first_instruction() {
        let elf = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/esp32s3-demo.elf");
        let board = tigris_targets::load("esp32s3").unwrap();
        let options = LoadOptions {
            entry: None,
            memory_stats: false,
            rom: None,
            no_rom: true,
            strict_mmio: false,
            trace_mmio: false,
            fill_ram: None,
            symbols: Vec::new(),
            what_if: WhatIf::default(),
            unwind: Unwind::Auto,
            ..LoadOptions::default()
        };
        let mut machine = Machine::load(elf, board, &options).unwrap();
        let mut monitor = FirstTick(Vec::new());
        let opts = RunOptions {
            max_cycles: 1_000_000,
            ..Default::default()
        };
        let report = machine.run(opts, Some(&mut monitor)).unwrap();
        assert_eq!(monitor.0, [0]);
        assert_eq!(report.totals.instructions, 0);
    }
}
