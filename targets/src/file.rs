//! The board file format (TOML) and its validation into a [`Board`].

use serde::Deserialize;
use toml::Spanned;

use crate::periph::{load_peripherals, PeripheralSpec};
use crate::spi::protocol;
use crate::{
    size, Access, Board, BoardError, CacheSpec, ConsoleSpec, CoreKind, CoreSpec, Region,
    RegionKind, Replacement, SpiMode, SpiSpec, UartSpec, UnmappedWrites, WritePolicy,
};

pub(crate) const TOP_KEYS: &[&str] = &[
    "name",
    "summary",
    "vector_table",
    "peripherals",
    "rom",
    "rom_init",
    "boot_stack_used",
    "rom_tables",
    "rom_unpack_table",
    "unmapped_writes",
    "second_core",
    "mmu",
    "flash_boot",
];
pub(crate) const CORE_KEYS: &[&str] = &["kind", "clock_hz", "fpu", "priority_bits"];
pub(crate) const CONSOLE_KEYS: &[&str] = &["uart_data", "uart_status", "uart_status_ready"];
pub(crate) const REGION_KEYS: &[&str] = &[
    "kind",
    "base",
    "size",
    "access",
    "aliases",
    "wait_states",
    "write_wait_states",
    "wait_states_by_clock",
    "bus_bytes",
    "beat_bytes",
    "bus_clock_hz",
    "prefetch",
    "icache",
    "dcache",
    "mode",
    "clock_mhz",
    "ddr",
    "command_clocks",
    "address_clocks",
    "dummy_clocks",
    "write_dummy_clocks",
    "cs_clocks",
    "controller_ns",
    "follows_driver",
];
pub(crate) const CACHE_KEYS: &[&str] = &[
    "size",
    "ways",
    "line_bytes",
    "write_policy",
    "replacement",
    "hit_cycles",
    "writeback_buffer",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    name: String,
    summary: String,
    core: CoreFile,
    #[serde(default)]
    caches: Vec<Spanned<CacheFile>>,
    regions: Vec<Spanned<RegionFile>>,
    #[serde(default)]
    console: ConsoleFile,
    vector_table: Option<u32>,
    /// Chip peripheral files (built-in names or paths), `crate::periph`.
    #[serde(default)]
    peripherals: Vec<String>,
    /// File names of the chip's mask-ROM ELF, most preferred first (searched for at run time).
    #[serde(default)]
    rom: Vec<String>,
    /// ROM functions the chip's boot code calls before it hands over: `name` or `name(arg)`.
    #[serde(default)]
    rom_init: Vec<String>,
    /// Bytes of the ROM's boot stack the second-stage bootloader's frames hold when it calls the app.
    #[serde(default)]
    boot_stack_used: u32,
    /// Tables of the ROM's read-only data that its ELF lacks, built from the ELF's symbols.
    #[serde(default)]
    rom_tables: Vec<crate::RomTable>,
    /// The ROM's unpack table, whose ROM copies of its data the ROM ELF lacks.
    rom_unpack_table: Option<crate::RomUnpackTable>,
    /// `"fault"` (default) or `"drop"`: what a store to an address no region covers does.
    #[serde(default)]
    unmapped_writes: UnmappedWrites,
    second_core: Option<crate::SecondCore>,
    mmu: Option<MmuFile>,
    flash_boot: Option<crate::FlashBoot>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MmuFile {
    table: u32,
    entries: u32,
    page: size::Size,
    windows: Vec<crate::MmuWindow>,
    invalid: u32,
    psram: u32,
    page_mask: u32,
    flash_offset: size::Size,
    flash_size: size::Size,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CoreFile {
    kind: CoreKind,
    clock_hz: u64,
    #[serde(default)]
    fpu: bool,
    priority_bits: Option<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionFile {
    name: String,
    kind: RegionKind,
    base: u32,
    size: size::Size,
    access: String,
    #[serde(default)]
    aliases: Vec<u32>,
    wait_states: Option<u32>,
    write_wait_states: Option<u32>,
    /// `[[max_bus_clock_hz, wait_states], ...]`, ascending: the datasheet's latency table.
    wait_states_by_clock: Option<Vec<(u64, u32)>>,
    bus_bytes: Option<u32>,
    beat_bytes: Option<u32>,
    bus_clock_hz: Option<u64>,
    #[serde(default)]
    prefetch: bool,
    icache: Option<String>,
    dcache: Option<String>,
    mode: Option<SpiMode>,
    clock_mhz: Option<f64>,
    ddr: Option<bool>,
    command_clocks: Option<u32>,
    address_clocks: Option<u32>,
    dummy_clocks: Option<u32>,
    write_dummy_clocks: Option<u32>,
    cs_clocks: Option<u32>,
    controller_ns: Option<u32>,
    #[serde(default)]
    follows_driver: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheFile {
    name: String,
    size: size::Size,
    ways: u32,
    line_bytes: u32,
    write_policy: WritePolicy,
    #[serde(default = "lru")]
    replacement: Replacement,
    #[serde(default)]
    hit_cycles: u32,
    #[serde(default)]
    writeback_buffer: bool,
}

fn lru() -> Replacement {
    Replacement::Lru
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConsoleFile {
    uart_data: Option<u32>,
    uart_status: Option<u32>,
    #[serde(default)]
    uart_status_ready: u32,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Unicorn maps memory in pages of this size: a Cortex-M board's regions must start on one (its
/// ARG error otherwise, when the core is set up). Starting on pages, two regions never share one:
/// the core maps a region's last page whole.
const UNICORN_PAGE: u64 = 4096;

/// No two regions (bases and aliases) overlap, sorted by address so that a board of 10,000
/// regions is checked in n log n. On Cortex-M every span also starts on a Unicorn page and stays
/// out of the Private Peripheral Bus, which the core models itself. The error: (line of the later
/// region in the file, message).
fn check_overlaps(regions: &[(usize, Region)], cortex_m: bool) -> Result<(), (usize, String)> {
    // (start, end, index into regions), one per base and alias.
    let mut spans: Vec<(u64, u64, usize)> = regions
        .iter()
        .enumerate()
        .flat_map(|(i, (_, r))| {
            std::iter::once(r.base)
                .chain(r.aliases.iter().copied())
                .map(move |a| (a as u64, a as u64 + r.size as u64, i))
        })
        .collect();
    spans.sort_unstable();
    let mut reach: Option<(u64, u64, usize)> = None;
    for &(start, end, i) in &spans {
        let (line, region) = &regions[i];
        if cortex_m && start % UNICORN_PAGE != 0 {
            return Err((
                *line,
                format!(
                    "region `{}` at 0x{start:08x}: on a Cortex-M board a region (and each alias) must start on a 4 KiB boundary, the engine's page",
                    region.name
                ),
            ));
        }
        if cortex_m && start < PPB_END && end > PPB_START {
            return Err((
                *line,
                format!(
                    "region `{}` (0x{start:08x}-0x{:08x}) overlaps the Private Peripheral Bus 0x{PPB_START:08x}-0x{:08x}, which the Cortex-M core models itself (NVIC, SysTick, SCB, DWT)",
                    region.name,
                    end - 1,
                    PPB_END - 1
                ),
            ));
        }
        if let Some((o_start, _, o)) = reach.filter(|&(_, o_end, _)| start < o_end) {
            let (a, b) = if regions[o].0 > *line { (o, i) } else { (i, o) };
            let (a_at, b_at) = if a == i {
                (start, o_start)
            } else {
                (o_start, start)
            };
            return Err((
                regions[a].0,
                format!(
                    "region `{}` at 0x{a_at:08x} overlaps region `{}` (line {}) at 0x{b_at:08x}",
                    regions[a].1.name, regions[b].1.name, regions[b].0
                ),
            ));
        }
        if reach.is_none_or(|(_, o_end, _)| end > o_end) {
            reach = Some((start, end, i));
        }
    }
    Ok(())
}

/// The Private Peripheral Bus of every M-profile core (ARMv7-M ARM B3.1).
const PPB_START: u64 = 0xE000_0000;
const PPB_END: u64 = 0xE010_0000;

/// Parse and validate a board file's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Board, BoardError> {
    let file: BoardFile = toml::from_str(text).map_err(|e| BoardError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let invalid = |line: usize, message: String| BoardError::Invalid {
        origin: origin.to_string(),
        line,
        message,
    };
    // An error at the line where `key` first appears (the first line when it does not).
    let invalid_at = |key: &str, message: String| {
        invalid(
            text.find(key).map(|o| line_of(text, o)).unwrap_or(1),
            message,
        )
    };
    if file.core.clock_hz == 0 {
        return Err(invalid_at(
            "clock_hz",
            "core.clock_hz must be greater than 0".into(),
        ));
    }
    if let Some(bits) = file.core.priority_bits.filter(|b| !(1..=8).contains(b)) {
        return Err(invalid_at(
            "priority_bits",
            format!("core.priority_bits is {bits}; an NVIC priority byte implements 1 to 8 bits"),
        ));
    }
    if file.regions.is_empty() {
        return Err(invalid(1, "the board has no [[regions]]".into()));
    }
    let mut caches: Vec<CacheSpec> = Vec::new();
    for spanned in &file.caches {
        let line = line_of(text, spanned.span().start);
        let c = spanned.get_ref();
        let spec = build_cache(c).map_err(|m| invalid(line, format!("cache `{}`: {m}", c.name)))?;
        if caches.iter().any(|o| o.name == spec.name)
            || ["core", "console"].contains(&spec.name.as_str())
        {
            return Err(invalid(
                line,
                format!("cache name `{}` is already used", spec.name),
            ));
        }
        caches.push(spec);
    }
    let mut regions: Vec<(usize, Region)> = Vec::new();
    let mut names = std::collections::HashMap::new();
    // Line numbers counted once for all regions (a 10,000-region board stays linear).
    let mut counted = (0, 1);
    let mut line_at = |offset: usize| {
        let (from, line) = counted;
        let offset = offset.clamp(from, text.len());
        counted = (offset, line + text[from..offset].matches('\n').count());
        counted.1
    };
    for spanned in &file.regions {
        let line = line_at(spanned.span().start);
        let r = spanned.get_ref();
        let region = build_region(r, file.core.clock_hz, &caches)
            .map_err(|m| invalid(line, format!("region `{}`: {m}", r.name)))?;
        if caches.iter().any(|c| c.name == region.name)
            || ["core", "console"].contains(&region.name.as_str())
        {
            return Err(invalid(
                line,
                format!(
                    "region name `{}` is already used by a cache or section",
                    region.name
                ),
            ));
        }
        if let Some(other_line) = names.insert(region.name.clone(), line) {
            return Err(invalid(
                line,
                format!(
                    "region name `{}` also used at line {other_line}",
                    region.name
                ),
            ));
        }
        regions.push((line, region));
    }
    check_overlaps(&regions, file.core.kind.is_cortex_m()).map_err(|(l, m)| invalid(l, m))?;
    let console = ConsoleSpec {
        uart: file.console.uart_data.map(|data| UartSpec {
            data,
            status: file.console.uart_status,
            status_ready: file.console.uart_status_ready,
        }),
    };
    let mut peripherals: Vec<PeripheralSpec> = Vec::new();
    for name in &file.peripherals {
        let line = text
            .find("peripherals")
            .map(|o| line_of(text, o))
            .unwrap_or(1);
        let path = match std::path::Path::new(origin).parent() {
            Some(dir) if name.ends_with(".toml") && !std::path::Path::new(name).is_absolute() => {
                dir.join(name).to_string_lossy().into_owned()
            }
            _ => name.clone(),
        };
        for block in load_peripherals(&path, &peripherals)? {
            let inside = regions.iter().any(|(_, r)| {
                r.kind == RegionKind::Mmio
                    && block.base >= r.base
                    && block.base as u64 + block.size as u64 <= r.end()
            });
            if !inside {
                return Err(invalid(
                    line,
                    format!(
                        "peripheral block `{}` (0x{:08x}, {} bytes, from `{name}`) lies outside every region of kind \"mmio\"",
                        block.name, block.base, block.size
                    ),
                ));
            }
            if let Some(o) = peripherals
                .iter()
                .find(|o| block.base < o.base + o.size && o.base < block.base + block.size)
            {
                return Err(invalid(
                    line,
                    format!(
                        "peripheral block `{}` overlaps block `{}`",
                        block.name, o.name
                    ),
                ));
            }
            peripherals.push(block);
        }
    }
    peripherals.sort_by_key(|b| b.base);
    if let Some(c) = &file.second_core {
        for (what, b) in [("clock", c.clock), ("reset", c.reset), ("stall", c.stall)] {
            if b.bit > 31 || !peripherals.iter().any(|p| p.contains(b.register)) {
                return Err(invalid_at(
                    "second_core",
                    format!(
                        "second_core.{what}: bit {} of 0x{:08x} must be 0-31 in a peripheral block's register",
                        b.bit, b.register
                    ),
                ));
            }
        }
        for f in &c.sw_stall {
            if f.bits == 0
                || f.shift + f.bits > 32
                || u64::from(f.value) >> f.bits != 0
                || !peripherals.iter().any(|p| p.contains(f.register))
            {
                return Err(invalid_at(
                    "sw_stall",
                    format!(
                        "second_core.sw_stall: the field of {} bits from bit {} of 0x{:08x} holding {:#x} must lie in bits 0-31 of a peripheral block's register and its value fit it",
                        f.bits, f.shift, f.register, f.value
                    ),
                ));
            }
        }
    }
    // The windowed ABI keeps the stack pointer 16-byte aligned (Xtensa ISA Reference Manual,
    // windowed register calling convention); the ROM boot stacks are a few KiB.
    if !file.boot_stack_used.is_multiple_of(16) || file.boot_stack_used > 0x1_0000 {
        return Err(invalid_at(
            "boot_stack_used",
            format!(
                "boot_stack_used: {} must be a multiple of 16 and at most 64K (bytes of the ROM's boot stack)",
                file.boot_stack_used
            ),
        ));
    }
    let mmu = match &file.mmu {
        None => None,
        Some(m) => {
            let line = text.find("[mmu]").map(|o| line_of(text, o)).unwrap_or(1);
            let page = m.page.0;
            if !page.is_power_of_two()
                || page < 4096
                || m.entries == 0
                || m.windows.is_empty()
                || m.windows.iter().any(|w| {
                    w.entries == 0
                        || w.first as u64 + w.entries as u64 > m.entries as u64
                        || w.base as u64 + w.entries as u64 * page > 1 << 32
                })
                || m.flash_offset.0 % page != 0
                || m.flash_size.0 % page != 0
                || m.flash_size.0 > 1 << 30
            {
                return Err(invalid(
                    line,
                    "mmu: page must be a power of two of at least 4K, each window's entries inside the table and its pages inside 4 GiB, flash_offset and flash_size (at most 1G) multiples of the page".into(),
                ));
            }
            Some(crate::MmuSpec {
                table: m.table,
                entries: m.entries,
                page: page as u32,
                windows: m.windows.clone(),
                invalid: m.invalid,
                psram: m.psram,
                page_mask: m.page_mask,
                flash_offset: m.flash_offset.0 as u32,
                flash_size: m.flash_size.0 as u32,
            })
        }
    };
    // The PSRAM chip on the memory bus is the one of the board's PSRAM mode; the chips of the
    // other modes stay as spares when the PSRAM follows the firmware's driver.
    let psram = regions
        .iter()
        .find(|(_, r)| r.kind == RegionKind::Psram)
        .map(|(_, r)| r);
    let psram_mode = psram.and_then(|r| r.spi).map(|s| s.mode.name());
    let follows_driver = psram.is_some_and(|r| r.follows_driver);
    for spi in peripherals.iter_mut().filter_map(|b| b.spi.as_mut()) {
        if !follows_driver {
            spi.devices
                .retain(|d| d.psram_mode.is_none() || d.psram_mode.as_deref() == psram_mode);
        }
        spi.psram_mode = psram_mode.map(String::from);
    }
    Ok(Board {
        settings: Vec::new(),
        name: file.name,
        summary: file.summary,
        origin: origin.to_string(),
        core: CoreSpec {
            kind: file.core.kind,
            clock_hz: file.core.clock_hz,
            fpu: file.core.fpu,
            priority_bits: file.core.priority_bits,
        },
        regions: regions.into_iter().map(|(_, r)| r).collect(),
        caches,
        console,
        vector_table: file.vector_table,
        peripherals,
        rom: file.rom,
        rom_init: file.rom_init,
        boot_stack_used: file.boot_stack_used,
        rom_tables: file.rom_tables,
        rom_unpack_table: file.rom_unpack_table,
        flash_boot: file.flash_boot,
        unmapped_writes: file.unmapped_writes,
        second_core: file.second_core,
        mmu,
    })
}

/// Largest wait-state, phase or hit figure a board may give (in cycles or clocks).
const MAX_CYCLES: u32 = 10_000;

fn build_cache(c: &CacheFile) -> Result<CacheSpec, String> {
    let size = c.size.0;
    if c.hit_cycles > MAX_CYCLES {
        return Err(format!(
            "hit_cycles = {} is above the limit of {MAX_CYCLES}",
            c.hit_cycles
        ));
    }
    if c.ways == 0 {
        return Err("ways must be at least 1".into());
    }
    if !c.line_bytes.is_power_of_two() || c.line_bytes < 4 {
        return Err(format!(
            "line_bytes = {} is not a power of two of at least 4",
            c.line_bytes
        ));
    }
    if size == 0
        || size > u32::MAX as u64
        || !size.is_multiple_of(c.ways as u64 * c.line_bytes as u64)
    {
        return Err(format!(
            "size {size} is not ways ({}) x line_bytes ({}) x a number of sets",
            c.ways, c.line_bytes
        ));
    }
    let spec = CacheSpec {
        name: c.name.clone(),
        size: size as u32,
        ways: c.ways,
        line_bytes: c.line_bytes,
        write_policy: c.write_policy,
        replacement: c.replacement,
        hit_cycles: c.hit_cycles,
        writeback_buffer: c.writeback_buffer,
    };
    if !spec.sets().is_power_of_two() {
        return Err(format!(
            "size {size} gives {} sets, which is not a power of two",
            spec.sets()
        ));
    }
    Ok(spec)
}

/// Wait states from the datasheet table `[[max_clock_hz, ws], ...]` for a memory bus at `clock_hz`.
fn wait_states_at(table: &[(u64, u32)], clock_hz: u64) -> Result<u32, String> {
    if table.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("wait_states_by_clock must list ascending clocks".into());
    }
    match table.iter().find(|(max_hz, _)| clock_hz <= *max_hz) {
        Some(&(_, ws)) => Ok(ws),
        None => Err(format!(
            "the memory bus clock {clock_hz} Hz is above the highest clock of wait_states_by_clock ({} Hz)",
            table.last().map(|t| t.0).unwrap_or(0)
        )),
    }
}

fn cache_index(
    caches: &[CacheSpec],
    name: &Option<String>,
    key: &str,
) -> Result<Option<usize>, String> {
    let Some(name) = name else { return Ok(None) };
    match caches.iter().position(|c| &c.name == name) {
        Some(i) => Ok(Some(i)),
        None => {
            let known: Vec<&str> = caches.iter().map(|c| c.name.as_str()).collect();
            Err(format!(
                "{key} = \"{name}\" names no [[caches]] entry (known: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        }
    }
}

fn build_spi(r: &RegionFile) -> Result<Option<SpiSpec>, String> {
    let serial = matches!(r.kind, RegionKind::Xip | RegionKind::Psram);
    let spi_keys = [
        ("mode", r.mode.is_some()),
        ("clock_mhz", r.clock_mhz.is_some()),
        ("ddr", r.ddr.is_some()),
        ("command_clocks", r.command_clocks.is_some()),
        ("address_clocks", r.address_clocks.is_some()),
        ("dummy_clocks", r.dummy_clocks.is_some()),
        ("write_dummy_clocks", r.write_dummy_clocks.is_some()),
        ("cs_clocks", r.cs_clocks.is_some()),
        ("controller_ns", r.controller_ns.is_some()),
    ];
    if !serial {
        if let Some((key, _)) = spi_keys.iter().find(|k| k.1) {
            return Err(format!(
                "{key} applies only to kind \"xip\" or \"psram\" (this region is \"{}\")",
                r.kind.name()
            ));
        }
        return Ok(None);
    }
    // Without a serial interface the region is priced by its wait states (e.g. a parallel PSRAM).
    let (mode, clock_mhz) = match (r.mode, r.clock_mhz) {
        (Some(mode), Some(clock_mhz)) => (mode, clock_mhz),
        (None, None) => match spi_keys.iter().find(|k| k.1) {
            Some((key, _)) => {
                return Err(format!(
                    "{key} needs mode (single, dual, quad, octal) and clock_mhz"
                ))
            }
            None => return Ok(None),
        },
        _ => {
            return Err(
                "a serial interface needs both mode (single, dual, quad, octal) and clock_mhz"
                    .into(),
            )
        }
    };
    if !(clock_mhz > 0.0 && clock_mhz <= 10_000.0) {
        return Err(format!(
            "clock_mhz = {clock_mhz} must be above 0 and at most 10000"
        ));
    }
    let d = protocol(r.kind, mode);
    Ok(Some(SpiSpec {
        mode,
        ddr: r.ddr.unwrap_or(d.ddr),
        clock_hz: (clock_mhz * 1e6).round() as u64,
        command_clocks: r.command_clocks.unwrap_or(d.command),
        address_clocks: r.address_clocks.unwrap_or(d.address),
        read_dummy_clocks: r.dummy_clocks.unwrap_or(d.read_dummy),
        write_dummy_clocks: r.write_dummy_clocks.unwrap_or(d.write_dummy),
        cs_clocks: r.cs_clocks.unwrap_or(d.cs),
        controller_ns: r.controller_ns.unwrap_or(0),
    }))
}

fn build_region(
    r: &RegionFile,
    core_clock_hz: u64,
    caches: &[CacheSpec],
) -> Result<Region, String> {
    let size = r.size.0;
    if size == 0 {
        return Err("size must be greater than 0".into());
    }
    if size > u32::MAX as u64 || r.base as u64 + size > 1 << 32 {
        return Err(format!(
            "base 0x{:08x} + size 0x{size:x} runs past the 4 GiB address space",
            r.base
        ));
    }
    if let Some(a) = r.aliases.iter().find(|&&a| a as u64 + size > 1 << 32) {
        return Err(format!(
            "alias 0x{a:08x} + size 0x{size:x} runs past the 4 GiB address space"
        ));
    }
    let access = Access {
        read: r.access.contains('r'),
        write: r.access.contains('w'),
        execute: r.access.contains('x'),
    };
    if r.access.is_empty() || r.access.chars().any(|c| !"rwx".contains(c)) {
        return Err(format!(
            "access = \"{}\" must be made of the letters r, w, x",
            r.access
        ));
    }
    let bus_bytes = r.bus_bytes.unwrap_or(4);
    if !bus_bytes.is_power_of_two() || bus_bytes > 4096 {
        return Err(format!(
            "bus_bytes = {bus_bytes} is not a power of two up to 4096"
        ));
    }
    let beat_bytes = r.beat_bytes.unwrap_or(bus_bytes);
    if !beat_bytes.is_power_of_two() || beat_bytes > bus_bytes {
        return Err(format!(
            "beat_bytes = {beat_bytes} is not a power of two up to bus_bytes ({bus_bytes})"
        ));
    }
    // Bounds that keep every cost equation far from overflow; real parts are orders of magnitude below.
    let cycle_keys = [
        ("wait_states", r.wait_states),
        ("write_wait_states", r.write_wait_states),
        ("command_clocks", r.command_clocks),
        ("address_clocks", r.address_clocks),
        ("dummy_clocks", r.dummy_clocks),
        ("write_dummy_clocks", r.write_dummy_clocks),
        ("cs_clocks", r.cs_clocks),
        ("controller_ns", r.controller_ns),
    ];
    let table = r
        .wait_states_by_clock
        .iter()
        .flatten()
        .map(|&(_, ws)| ("wait_states_by_clock", Some(ws)));
    if let Some((key, Some(v))) = cycle_keys
        .into_iter()
        .chain(table)
        .find(|(_, v)| v.is_some_and(|v| v > MAX_CYCLES))
    {
        return Err(format!("{key} = {v} is above the limit of {MAX_CYCLES}"));
    }
    let bus_clock_hz = r.bus_clock_hz.unwrap_or(core_clock_hz);
    if bus_clock_hz == 0 {
        return Err("bus_clock_hz must be greater than 0".into());
    }
    // An explicit `wait_states` (e.g. from --set) wins over the table.
    let read_wait_states = match (r.wait_states, &r.wait_states_by_clock) {
        (Some(ws), _) => ws,
        (None, Some(table)) => wait_states_at(table, bus_clock_hz)?,
        (None, None) => 0,
    };
    let icache = cache_index(caches, &r.icache, "icache")?;
    let dcache = cache_index(caches, &r.dcache, "dcache")?;
    if icache.is_some() && !access.execute {
        return Err("has an icache but is not executable (access lacks x)".into());
    }
    let spi = build_spi(r)?;
    if r.follows_driver && (r.kind != RegionKind::Psram || spi.is_none()) {
        return Err(
            "follows_driver applies only to a PSRAM with a serial interface (mode, clock_mhz)"
                .into(),
        );
    }
    Ok(Region {
        name: r.name.clone(),
        kind: r.kind,
        base: r.base,
        size: size as u32,
        access,
        aliases: r.aliases.clone(),
        read_wait_states,
        write_wait_states: r.write_wait_states.unwrap_or(read_wait_states),
        bus_bytes,
        beat_bytes,
        bus_clock_hz,
        prefetch: r.prefetch,
        icache,
        dcache,
        spi,
        follows_driver: r.follows_driver,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_states_follow_the_clock_table() {
        let t = [(30_000_000, 0), (60_000_000, 1), (90_000_000, 2)];
        assert_eq!(wait_states_at(&t, 30_000_000), Ok(0));
        assert_eq!(wait_states_at(&t, 30_000_001), Ok(1));
        assert_eq!(wait_states_at(&t, 84_000_000), Ok(2));
        assert!(wait_states_at(&t, 100_000_000)
            .unwrap_err()
            .contains("above the highest clock"));
        assert!(wait_states_at(&[(2, 0), (1, 1)], 1)
            .unwrap_err()
            .contains("ascending"));
    }

    /// The built-in ESP32 board with `edit` applied to its text: the parse error's message.
    fn esp32_error(edit: impl Fn(&str) -> String) -> String {
        let text = edit(include_str!("../boards/esp32.toml"));
        match parse(&text, "edited esp32.toml") {
            Ok(_) => panic!("the edited board was accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_boot_stack_and_the_software_stall_are_checked() {
        let misaligned =
            esp32_error(|t| t.replace("boot_stack_used = 400", "boot_stack_used = 404"));
        assert!(
            misaligned.contains("boot_stack_used: 404 must be a multiple of 16"),
            "{misaligned}"
        );
        let too_deep =
            esp32_error(|t| t.replace("boot_stack_used = 400", "boot_stack_used = 0x20000"));
        assert!(too_deep.contains("at most 64K"), "{too_deep}");
        let wide = esp32_error(|t| t.replace("shift = 20, bits = 6", "shift = 30, bits = 6"));
        assert!(
            wide.contains("second_core.sw_stall: the field of 6 bits from bit 30 of 0x3ff480ac"),
            "{wide}"
        );
        let overflowing = esp32_error(|t| t.replace("bits = 2, value = 2", "bits = 2, value = 4"));
        assert!(overflowing.contains("holding 0x4"), "{overflowing}");
        let outside =
            esp32_error(|t| t.replace("register = 0x3FF4_80AC", "register = 0x1000_0000"));
        assert!(outside.contains("of 0x10000000"), "{outside}");
    }

    #[test]
    fn a_register_field_holds_its_value_in_its_bits_only() {
        let c1 = crate::RegisterField {
            register: 0,
            shift: 20,
            bits: 6,
            value: 0x21,
        };
        assert!(c1.holds(0x21 << 20));
        assert!(c1.holds(0x21 << 20 | 0xFC0F_FFFF));
        assert!(!c1.holds(0x20 << 20));
        let whole = crate::RegisterField {
            register: 0,
            shift: 0,
            bits: 32,
            value: u32::MAX,
        };
        assert!(whole.holds(u32::MAX) && !whole.holds(0));
    }

    /// The keys a table of type `T` accepts, as serde's `deny_unknown_fields` lists them when it
    /// refuses an unknown one: the parser's own list, not a copy.
    fn accepted_keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
        let Err(e) = toml::from_str::<T>("not_a_board_key = 0") else {
            panic!("an unknown key was accepted");
        };
        let message = e.to_string();
        let expected = message
            .split_once("expected ")
            .unwrap_or_else(|| panic!("no list of keys in: {message}"))
            .1;
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect()
    }

    /// Every key of every table of a board file has a row in docs/boards.md, named by its dotted
    /// path (`core.clock_hz`, `regions.wait_states`, `second_core.clock.register`).
    #[test]
    fn every_board_key_is_documented() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/boards.md"))
                .unwrap();
        let tables: [(&str, Vec<String>); 13] = [
            ("", accepted_keys::<BoardFile>()),
            ("core.", accepted_keys::<CoreFile>()),
            ("caches.", accepted_keys::<CacheFile>()),
            ("regions.", accepted_keys::<RegionFile>()),
            ("console.", accepted_keys::<ConsoleFile>()),
            ("rom_tables.", accepted_keys::<crate::RomTable>()),
            (
                "rom_unpack_table.",
                accepted_keys::<crate::RomUnpackTable>(),
            ),
            ("second_core.", accepted_keys::<crate::SecondCore>()),
            ("second_core.clock.", accepted_keys::<crate::RegisterBit>()),
            (
                "second_core.sw_stall.",
                accepted_keys::<crate::RegisterField>(),
            ),
            ("mmu.", accepted_keys::<MmuFile>()),
            ("mmu.windows.", accepted_keys::<crate::MmuWindow>()),
            ("flash_boot.", accepted_keys::<crate::FlashBoot>()),
        ];
        let mut missing = Vec::new();
        for (section, keys) in &tables {
            assert!(keys.len() >= 2, "{section}: {keys:?}");
            for key in keys {
                let row = format!("| `{section}{key}` |");
                if !doc.contains(&row) {
                    missing.push(row);
                }
            }
        }
        assert!(missing.is_empty(), "docs/boards.md lacks: {missing:?}");
    }
}
