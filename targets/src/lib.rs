//! Boards as data: core kind and clock, memory regions with their latency parameters, console device.
//!
//! Built-in boards live in `targets/boards/*.toml` and are embedded in the binary; a user's own board is
//! the same format read from a path. Every figure in a board file names its source in a comment.

mod file;
mod overrides;
pub mod periph;
mod size;
mod spi;

use serde::Deserialize;
use std::fmt;
use std::path::Path;

pub use file::parse;
pub use size::{format_size, parse_size, Size, SizeError, SizeRefusal};

/// The board used when `--board` is omitted.
pub const DEFAULT_BOARD: &str = "esp32s3";

/// Built-in board files, embedded at compile time.
const BUILTIN: &[(&str, &str)] = &[
    ("mps2-an386", include_str!("../boards/mps2-an386.toml")),
    ("mps2-an500", include_str!("../boards/mps2-an500.toml")),
    ("stm32f446re", include_str!("../boards/stm32f446re.toml")),
    ("stm32h753", include_str!("../boards/stm32h753.toml")),
    ("stm32f407vg", include_str!("../boards/stm32f407vg.toml")),
    ("stm32f411re", include_str!("../boards/stm32f411re.toml")),
    ("stm32u585", include_str!("../boards/stm32u585.toml")),
    ("nrf52840", include_str!("../boards/nrf52840.toml")),
    ("nrf52833", include_str!("../boards/nrf52833.toml")),
    ("atsamd51p19a", include_str!("../boards/atsamd51p19a.toml")),
    ("atsam3x8e", include_str!("../boards/atsam3x8e.toml")),
    ("rp2040", include_str!("../boards/rp2040.toml")),
    ("rp2350", include_str!("../boards/rp2350.toml")),
    ("esp32s3", include_str!("../boards/esp32s3.toml")),
    ("esp32", include_str!("../boards/esp32.toml")),
    ("esp8266", include_str!("../boards/esp8266.toml")),
];

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error(
        "unknown board `{name}`{suggestion}; built-in boards: {known}; or pass a path to a board .toml file"
    )]
    Unknown {
        name: String,
        known: String,
        /// `" (did you mean `x`?)"` when a known name is close, else empty.
        suggestion: String,
    },
    #[error("cannot read board file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("board file {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("board file {origin}, line {line}: {message}")]
    Invalid {
        origin: String,
        line: usize,
        message: String,
    },
    #[error("--set {setting}: {message}")]
    Override { setting: String, message: String },
}

/// Processor core of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum CoreKind {
    #[serde(rename = "cortex-m0plus")]
    CortexM0Plus,
    #[serde(rename = "cortex-m3")]
    CortexM3,
    #[serde(rename = "cortex-m4")]
    CortexM4,
    #[serde(rename = "cortex-m7")]
    CortexM7,
    #[serde(rename = "cortex-m33")]
    CortexM33,
    #[serde(rename = "xtensa-lx106")]
    XtensaLx106,
    #[serde(rename = "xtensa-lx6")]
    XtensaLx6,
    #[serde(rename = "xtensa-lx7")]
    XtensaLx7,
}

impl CoreKind {
    pub fn name(self) -> &'static str {
        match self {
            CoreKind::CortexM0Plus => "cortex-m0plus",
            CoreKind::CortexM3 => "cortex-m3",
            CoreKind::CortexM4 => "cortex-m4",
            CoreKind::CortexM7 => "cortex-m7",
            CoreKind::CortexM33 => "cortex-m33",
            CoreKind::XtensaLx106 => "xtensa-lx106",
            CoreKind::XtensaLx6 => "xtensa-lx6",
            CoreKind::XtensaLx7 => "xtensa-lx7",
        }
    }

    pub fn is_cortex_m(self) -> bool {
        !matches!(
            self,
            CoreKind::XtensaLx106 | CoreKind::XtensaLx6 | CoreKind::XtensaLx7
        )
    }
}

/// Kind of a memory region; decides which latency model prices it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegionKind {
    /// On-chip SRAM or TCM: fixed latency.
    Sram,
    /// On-chip flash: wait states, line-wide reads, optional prefetch and accelerator caches.
    Flash,
    /// Execute-in-place external flash behind a cache.
    Xip,
    /// External PSRAM.
    Psram,
    /// Mask ROM.
    Rom,
    /// Peripheral space: accepted, backed by plain storage, never priced.
    Mmio,
}

impl RegionKind {
    pub fn name(self) -> &'static str {
        match self {
            RegionKind::Sram => "sram",
            RegionKind::Flash => "flash",
            RegionKind::Xip => "xip",
            RegionKind::Psram => "psram",
            RegionKind::Rom => "rom",
            RegionKind::Mmio => "mmio",
        }
    }
}

/// What a cache does with stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// Stores allocate a line on a miss (after a refill) and mark it dirty; a dirty line is written back
    /// to its memory when evicted.
    WriteBack,
    /// Stores go to memory at its write cost; a line already cached is updated, a missing one is not
    /// allocated.
    WriteThrough,
    /// The cache never holds stores (instruction caches, flash accelerators): stores bypass it.
    ReadOnly,
}

impl WritePolicy {
    pub fn name(self) -> &'static str {
        match self {
            WritePolicy::WriteBack => "write-back",
            WritePolicy::WriteThrough => "write-through",
            WritePolicy::ReadOnly => "read-only",
        }
    }
}

/// Which way of a set a miss replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// The least recently used way.
    Lru,
    /// The way filled longest ago (round robin per set).
    Fifo,
}

impl Replacement {
    pub fn name(self) -> &'static str {
        match self {
            Replacement::Lru => "lru",
            Replacement::Fifo => "fifo",
        }
    }
}

/// A set-associative cache. Regions refer to it by name, so one cache can serve several regions
/// (the ESP32-S3 DCache holds flash rodata and PSRAM lines, the Cortex-M7 L1 caches serve every
/// cacheable region).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSpec {
    pub name: String,
    pub size: u32,
    pub ways: u32,
    pub line_bytes: u32,
    pub write_policy: WritePolicy,
    pub replacement: Replacement,
    /// Extra cycles of a hit beyond the core's own cost.
    pub hit_cycles: u32,
    /// A dirty victim waits in a buffer while the miss's line is filled, and is written back after
    /// it: the core does not wait for the write-back, a later transaction on the bus does.
    pub writeback_buffer: bool,
}

impl CacheSpec {
    pub fn sets(&self) -> u32 {
        self.size / (self.ways * self.line_bytes)
    }
}

/// Data lines of a serial memory interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpiMode {
    Single,
    Dual,
    Quad,
    Octal,
}

impl SpiMode {
    pub fn name(self) -> &'static str {
        match self {
            SpiMode::Single => "single",
            SpiMode::Dual => "dual",
            SpiMode::Quad => "quad",
            SpiMode::Octal => "octal",
        }
    }

    /// The mode of a name as board and chip files write it (`"quad"`).
    pub fn from_name(name: &str) -> Option<SpiMode> {
        [
            SpiMode::Single,
            SpiMode::Dual,
            SpiMode::Quad,
            SpiMode::Octal,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }

    pub fn lines(self) -> u32 {
        match self {
            SpiMode::Single => 1,
            SpiMode::Dual => 2,
            SpiMode::Quad => 4,
            SpiMode::Octal => 8,
        }
    }
}

/// A serial (SPI/QSPI/OPI) flash or PSRAM interface: one transaction per cache line, in SPI clocks.
/// The phase lengths default per device and mode (`spi::protocol`), each overridable in the board file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpiSpec {
    pub mode: SpiMode,
    /// Two transfers per clock in the address and data phases (DTR/DDR).
    pub ddr: bool,
    pub clock_hz: u64,
    pub command_clocks: u32,
    pub address_clocks: u32,
    pub read_dummy_clocks: u32,
    pub write_dummy_clocks: u32,
    /// Chip-select setup and hold around each transaction.
    pub cs_clocks: u32,
    /// Fixed latency of the controller and cache around each transaction (request, clock-domain
    /// crossings, the line written into the cache), in nanoseconds.
    pub controller_ns: u32,
}

impl SpiSpec {
    /// The interface with a `kind` part of `mode` fitted instead: that mode's default phases and
    /// chip-select time (`spi::protocol`) at the same clock and controller latency.
    pub fn refitted(&self, kind: RegionKind, mode: SpiMode) -> SpiSpec {
        let d = spi::protocol(kind, mode);
        SpiSpec {
            mode,
            ddr: d.ddr,
            command_clocks: d.command,
            address_clocks: d.address,
            read_dummy_clocks: d.read_dummy,
            write_dummy_clocks: d.write_dummy,
            cs_clocks: d.cs,
            ..*self
        }
    }

    /// Clocks of the data phase of `bytes` bytes.
    pub fn data_clocks(&self, bytes: u32) -> u32 {
        let bits_per_clock = self.mode.lines() * if self.ddr { 2 } else { 1 };
        (bytes * 8).div_ceil(bits_per_clock)
    }

    /// SPI clocks of a read (`write` false) or write transaction of `bytes` bytes.
    pub fn transaction_clocks(&self, bytes: u32, write: bool) -> u32 {
        let dummy = if write {
            self.write_dummy_clocks
        } else {
            self.read_dummy_clocks
        };
        self.cs_clocks + self.command_clocks + self.address_clocks + dummy + self.data_clocks(bytes)
    }
}

/// Access permissions of a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub read: bool,
    pub write: bool,
    pub execute: bool,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = |on: bool, c: char| if on { c } else { '-' };
        write!(
            f,
            "{}{}{}",
            flag(self.read, 'r'),
            flag(self.write, 'w'),
            flag(self.execute, 'x')
        )
    }
}

/// One memory region of a board, with the parameters of its latency model.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub name: String,
    pub kind: RegionKind,
    pub base: u32,
    pub size: u32,
    pub access: Access,
    /// Other addresses at which the same storage appears (e.g. STM32 flash at 0x0 when booting from it).
    pub aliases: Vec<u32>,
    /// Wait states of one read of the memory, in memory-bus clocks (resolved from
    /// `wait_states_by_clock` when the board gives a table).
    pub read_wait_states: u32,
    /// Wait states of one write, in memory-bus clocks.
    pub write_wait_states: u32,
    /// Bytes returned by one memory read (flash line width, bus width); fetch is priced per such unit.
    pub bus_bytes: u32,
    /// Bytes one beat of the bus to the core carries (at most `bus_bytes`): a read of `bus_bytes`
    /// reaches the core in bus_bytes / beat_bytes beats, one a bus clock after its wait states.
    pub beat_bytes: u32,
    /// Clock of the memory bus; core cycles per bus clock = core clock / this (rounded up).
    pub bus_clock_hz: u64,
    /// Sequential-line prefetch buffer (hides wait states of straight-line code).
    pub prefetch: bool,
    /// Index in `Board::caches` of the cache instruction fetches go through.
    pub icache: Option<usize>,
    /// Index in `Board::caches` of the cache data accesses go through.
    pub dcache: Option<usize>,
    /// Serial interface of external flash or PSRAM (its line fills are SPI transactions).
    pub spi: Option<SpiSpec>,
    /// A PSRAM whose part follows the firmware's driver: when the driver speaks another mode's
    /// protocol to it, a chip of that mode takes its place (the module a user of that build owns).
    pub follows_driver: bool,
}

impl Region {
    pub fn end(&self) -> u64 {
        self.base as u64 + self.size as u64
    }

    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.base && (addr as u64) < self.end()
    }
}

/// UART transmit register the firmware writes console bytes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UartSpec {
    /// Address of the transmit data register.
    pub data: u32,
    /// Address of a status register polled before writing, if any.
    pub status: Option<u32>,
    /// Value a read of the status register returns (transmitter always ready).
    pub status_ready: u32,
}

/// Board-level devices used for console output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleSpec {
    pub uart: Option<UartSpec>,
}

/// Processor core parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreSpec {
    pub kind: CoreKind,
    pub clock_hz: u64,
    pub fpu: bool,
    /// Cortex-M: bits of an NVIC priority byte the part implements (the upper ones); `None` = the
    /// core's default (2 on ARMv6-M, 4 elsewhere).
    pub priority_bits: Option<u8>,
}

/// A complete, validated board.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub name: String,
    pub summary: String,
    /// Where the board came from: `built-in` or the file path.
    pub origin: String,
    /// The `--set KEY=VALUE` overrides applied to the file, in order.
    pub settings: Vec<String>,
    pub core: CoreSpec,
    pub regions: Vec<Region>,
    /// Caches the regions refer to by index.
    pub caches: Vec<CacheSpec>,
    pub console: ConsoleSpec,
    /// Address of the vector table when the ELF does not mark one (`.isr_vector`/`.vectors`).
    pub vector_table: Option<u32>,
    /// Peripheral register blocks (sorted by base), from the chip files the board names.
    pub peripherals: Vec<periph::PeripheralSpec>,
    /// File names of the chip's mask-ROM ELF, most preferred first; empty when the chip needs none.
    pub rom: Vec<String>,
    /// ROM functions the chip's boot code calls before it hands over to the firmware, run on the
    /// core when the ROM is loaded: `name` or `name(arg)`, the argument a number or `cpu_mhz`
    /// (the core clock in MHz).
    pub rom_init: Vec<String>,
    /// Bytes of the ROM's boot stack (`__stack` in the ROM ELF) that the second-stage bootloader's
    /// own frames hold when it calls the app: a direct-booted app starts this far below the top,
    /// as on the chip, so that a second core the ROM starts on the top of that stack does not run
    /// on the app's live frames.
    pub boot_stack_used: u32,
    /// Tables of the mask ROM's read-only data that the ROM ELF does not contain, written when the
    /// ROM is loaded.
    pub rom_tables: Vec<RomTable>,
    /// The ROM's unpack table (`[start, end)`), read by its reset path, which copies the ROM's
    /// initialised data from ROM into RAM; the ROM ELF has the data but not its ROM copies, which
    /// are written from it when the ROM is loaded.
    pub rom_unpack_table: Option<RomUnpackTable>,
    pub unmapped_writes: UnmappedWrites,
    /// A second core of the chip that the firmware starts (the ESP32-S3's and ESP32's APP CPU).
    pub second_core: Option<SecondCore>,
    /// The external-memory MMU that maps flash and PSRAM pages into the cache windows.
    pub mmu: Option<MmuSpec>,
    /// How the chip's ROM boots from flash, if it does: a flash image runs from the ROM's reset
    /// path instead of an ELF's entry.
    pub flash_boot: Option<FlashBoot>,
}

/// Where the mask ROM finds the second-stage bootloader in flash, and the chip ID that
/// `esptool elf2image` writes into the extended header of images for the chip (esptool
/// documentation, "Firmware Image Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashBoot {
    pub bootloader: u32,
    pub chip_id: u16,
}

/// An external-memory MMU: a table of `entries` words at `table`; each window is a range of the
/// address space whose pages the entries from `first` map, `window.base + (i - first) × page` by
/// entry `i` (the ESP32-S3's data and instruction windows both start at entry 0; the ESP32's DROM0
/// and IRAM0 windows at entries 0 and 77). An entry with `invalid` set maps nothing; `psram` set
/// selects PSRAM, else flash; `page_mask` holds the physical page number. `flash_offset` is where
/// in flash the bootloader found the app; `flash_size` the size of the flash chip whose pages the
/// MMU maps (and the SPI bus reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MmuSpec {
    pub table: u32,
    pub entries: u32,
    pub page: u32,
    pub windows: Vec<MmuWindow>,
    pub invalid: u32,
    pub psram: u32,
    pub page_mask: u32,
    pub flash_offset: u32,
    pub flash_size: u32,
}

/// A range of the address space that MMU entries `first..first + entries` map page by page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MmuWindow {
    pub base: u32,
    pub first: u32,
    pub entries: u32,
}

impl MmuWindow {
    /// The entry that maps `addr`, if the window covers it.
    pub fn entry_of(&self, addr: u32, page: u32) -> Option<u32> {
        let i = addr.checked_sub(self.base)? / page;
        (i < self.entries).then_some(self.first + i)
    }

    /// Where entry `entry` (one of the window's) maps its page.
    pub fn page_address(&self, entry: u32, page: u32) -> u32 {
        self.base + (entry - self.first) * page
    }
}

/// One bit of a peripheral register (by its address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterBit {
    pub register: u32,
    pub bit: u32,
}

/// A table in the mask ROM's read-only data that the published ROM ELF leaves out (it holds the
/// ROM's code and initialised RAM data, not every constant): one word per field, each the value
/// of the ROM ELF symbol of that name (a linker-script address), placed at `at`, with a pointer
/// to it at `pointer` (the ROM's own pointer variable, whose address ESP-IDF's `*.rom.ld` gives).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RomTable {
    pub name: String,
    pub pointer: u32,
    pub at: u32,
    pub fields: Vec<String>,
}

/// Where the mask ROM keeps its unpack table: 16-byte entries `{first, end, source, always}`
/// saying that RAM words `[first, end)` start as the ROM words from `source` (on the APP CPU only
/// when `always` is 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RomUnpackTable {
    pub start: u32,
    pub end: u32,
}

/// A field of a peripheral register (by its address): `bits` bits from bit `shift`, and the value
/// it must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterField {
    pub register: u32,
    pub shift: u32,
    pub bits: u32,
    pub value: u32,
}

impl RegisterField {
    /// Whether the register's value `word` holds the field's value.
    pub fn holds(&self, word: u32) -> bool {
        let mask = (u64::from(u32::MAX) >> (32 - self.bits)) as u32;
        (word >> self.shift) & mask == self.value
    }
}

/// A second core held in reset at power-on: it runs from its reset vector once its clock is on,
/// its reset released and its stall off, each a bit of a peripheral register; a software stall
/// (`sw_stall`) holds it too.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecondCore {
    /// What the core's PRID special register reads (tells the firmware which core it runs on).
    pub prid: u32,
    pub clock: RegisterBit,
    pub reset: RegisterBit,
    pub stall: RegisterBit,
    /// Register fields that stall the core while every one holds its value (the ESP chips' RTC
    /// software stall, a code split over two registers); empty: none.
    #[serde(default)]
    pub sw_stall: Vec<RegisterField>,
}

/// What a store to an address that no region covers does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnmappedWrites {
    /// The store faults (the run ends with a bad write).
    #[default]
    Fault,
    /// The store completes and is lost, as on buses that post writes no device claims; the run's
    /// notes list where they went.
    Drop,
}

impl Board {
    /// The region holding `addr`, looking through aliases; returns the region and the canonical address.
    pub fn resolve(&self, addr: u32) -> Option<(usize, u32)> {
        for (i, r) in self.regions.iter().enumerate() {
            if r.contains(addr) {
                return Some((i, addr));
            }
            for &alias in &r.aliases {
                let offset = addr.wrapping_sub(alias);
                if addr >= alias && offset < r.size {
                    return Some((i, r.base + offset));
                }
            }
        }
        None
    }

    /// A printable memory map, one region per line.
    pub fn memory_map(&self) -> String {
        let mut out = String::new();
        for r in &self.regions {
            out.push_str(&format!(
                "  {:<12} {:<6} 0x{:08x}-0x{:08x} {:>9} {}",
                r.name,
                r.kind.name(),
                r.base,
                r.end() - 1,
                format_size(r.size as u64),
                r.access
            ));
            for a in &r.aliases {
                out.push_str(&format!(" (alias at 0x{a:08x})"));
            }
            out.push('\n');
        }
        out
    }
}

/// Names of the built-in boards.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// Load a built-in board by name, or a board file when `name_or_path` names a `.toml` file.
///
/// ```
/// let board = tigris_targets::load("stm32f446re").unwrap();
/// assert_eq!(board.core.clock_hz, 180_000_000);
/// let err = tigris_targets::load("stm32f446r").unwrap_err().to_string();
/// assert!(err.contains("(did you mean `stm32f446re`?)"), "{err}");
/// ```
pub fn load(name_or_path: &str) -> Result<Board, BoardError> {
    let (text, origin) = board_text(name_or_path)?;
    parse(&text, &origin)
}

/// Load a board, then change parameters for this run: each override is `key=value` with the key
/// written as in the board file, a region's keys prefixed by its name: `core.clock_hz=80000000`,
/// `flash.wait_states=3`, `flash.prefetch=false`, `psram.mode=quad`, `dcache.size=16K` (a cache by its
/// name), `console.uart_data=0x40004000`.
pub fn load_with(name_or_path: &str, overrides: &[String]) -> Result<Board, BoardError> {
    let (text, origin) = board_text(name_or_path)?;
    if overrides.is_empty() {
        return parse(&text, &origin);
    }
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| BoardError::Parse {
            origin: origin.clone(),
            message: e.to_string(),
        })?;
    let file = doc.clone();
    for setting in overrides {
        overrides::apply_override(&mut doc, setting)?;
    }
    let edited = toml::to_string(&doc).expect("a parsed table serialises");
    let board = parse(&edited, &origin).map_err(|e| match e {
        // Line numbers would point into the edited text: name the setting instead, the first
        // whose addition breaks the board.
        BoardError::Invalid { message, .. } | BoardError::Parse { message, .. } => {
            BoardError::Override {
                setting: failing_setting(file, &origin, overrides)
                    .unwrap_or_else(|| overrides.join(" --set ")),
                message: message
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            }
        }
        other => other,
    })?;
    Ok(Board {
        settings: overrides.to_vec(),
        ..board
    })
}

/// The first of `overrides` that, added to those before it, makes the board file `file`
/// invalid (only called once the whole list did).
fn failing_setting(mut file: toml::Table, origin: &str, overrides: &[String]) -> Option<String> {
    overrides.iter().find_map(|setting| {
        overrides::apply_override(&mut file, setting).ok()?;
        let text = toml::to_string(&file).ok()?;
        parse(&text, origin).is_err().then(|| setting.clone())
    })
}

fn board_text(name_or_path: &str) -> Result<(String, String), BoardError> {
    if let Some((_, text)) = BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
        return Ok((text.to_string(), "built-in".into()));
    }
    let path = Path::new(name_or_path);
    if name_or_path.ends_with(".toml") || path.exists() {
        let text = std::fs::read_to_string(path).map_err(|source| BoardError::Io {
            path: name_or_path.to_string(),
            source,
        })?;
        return Ok((text, name_or_path.to_string()));
    }
    Err(BoardError::Unknown {
        name: name_or_path.to_string(),
        known: builtin_names().join(", "),
        suggestion: did_you_mean(name_or_path, &builtin_names()),
    })
}

/// `" (did you mean `x`?)"` for the known name closest to `name`, when it is close (a few edits).
pub(crate) fn did_you_mean(name: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (strsim::levenshtein(name, k), *k))
        .filter(|&(d, k)| d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod fuzz_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_board_gets_a_suggestion() {
        let e = load("mps2-an38").unwrap_err().to_string();
        assert!(
            e.contains("unknown board `mps2-an38` (did you mean `mps2-an386`?)"),
            "{e}"
        );
        let e = load("esp32-s3").unwrap_err().to_string();
        assert!(e.contains("(did you mean `esp32s3`?)"), "{e}");
        let e = load("quux").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }

    #[test]
    fn every_builtin_board_parses() {
        for name in builtin_names() {
            let b = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(b.name, name);
            assert!(b.core.clock_hz > 0);
        }
    }

    fn set(board: &str, settings: &[&str]) -> Result<Board, BoardError> {
        load_with(
            board,
            &settings.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn overrides_change_parameters_and_are_checked() {
        let b = set(
            "stm32f446re",
            &[
                "flash.wait_states=2",
                "flash.prefetch=false",
                "core.clock_hz=84000000",
                "art_icache.size=2K",
            ],
        )
        .unwrap();
        let flash = &b.regions[0];
        assert_eq!(
            (flash.read_wait_states, flash.prefetch, b.core.clock_hz),
            (2, false, 84_000_000)
        );
        assert_eq!(b.caches[flash.icache.unwrap()].size, 2048);
        let e = set("stm32f446re", &["flash.waitstates=2"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--set flash.waitstates=2") && e.contains("unknown key `waitstates`"),
            "{e}"
        );
        let e = set("stm32f446re", &["psram.wait_states=2"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no key, region or cache `psram`")
                && e.contains("flash, sram")
                && e.contains("art_icache"),
            "{e}"
        );
        let e = set("stm32f446re", &["art_icache.ways=0"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("ways must be at least 1"), "{e}");
        let e = set("stm32f446re", &["art_icache.line_bytes=24"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("line_bytes = 24 is not a power of two"), "{e}");
        let e = set("stm32f446re", &["core.clock_hz=0"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("clock_hz must be greater than 0"), "{e}");
        let e = set("stm32f446re", &["flash.wait_states"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected key=value"), "{e}");
        let e = set("stm32f446re", &["flash.wait_states=4294967295"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("wait_states = 4294967295 is above the limit"),
            "{e}"
        );
        let e = set("stm32f446re", &["flash.bus_bytes=8192"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bus_bytes = 8192"), "{e}");
        let e = set("stm32f446re", &["flash.icache=nope"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("icache = \"nope\" names no [[caches]] entry") && e.contains("art_icache"),
            "{e}"
        );
    }

    #[test]
    fn flash_wait_states_follow_the_core_clock() {
        let ws =
            |settings: &[&str]| set("stm32f446re", settings).unwrap().regions[0].read_wait_states;
        assert_eq!(ws(&[]), 5, "180 MHz");
        assert_eq!(ws(&["core.clock_hz=84000000"]), 2, "60 < 84 <= 90 MHz");
        assert_eq!(ws(&["core.clock_hz=16000000"]), 0);
        assert_eq!(
            ws(&["core.clock_hz=16000000", "flash.wait_states=3"]),
            3,
            "an explicit value wins"
        );
        let e = set("stm32f446re", &["core.clock_hz=200000000"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("above the highest clock of wait_states_by_clock"),
            "{e}"
        );
    }

    #[test]
    fn spi_mode_and_clock_override_the_protocol() {
        let b = load("esp32s3").unwrap();
        let psram = b.regions.iter().find(|r| r.name == "psram").unwrap();
        let spi = psram.spi.unwrap();
        assert_eq!(
            (spi.mode, spi.ddr, spi.clock_hz),
            (SpiMode::Octal, true, 80_000_000)
        );
        // Chip-select setup 4 and hold 3 around command, address, dummy and data.
        assert_eq!(spi.transaction_clocks(32, false), 4 + 1 + 2 + 9 + 16 + 3);
        assert_eq!(spi.transaction_clocks(32, true), 4 + 1 + 2 + 4 + 16 + 3);
        let b = set(
            "esp32s3",
            &["psram.mode=quad", "psram.clock_mhz=40", "dcache.size=16K"],
        )
        .unwrap();
        let psram = b.regions.iter().find(|r| r.name == "psram").unwrap();
        let spi = psram.spi.unwrap();
        assert_eq!(
            (spi.mode, spi.ddr, spi.clock_hz),
            (SpiMode::Quad, false, 40_000_000)
        );
        assert_eq!(spi.transaction_clocks(32, false), 2 + 6 + 6 + 64);
        assert_eq!(b.caches[psram.dcache.unwrap()].size, 16 * 1024);
        // Naming the mode fixes the part; the board's own PSRAM follows the firmware's driver,
        // and a refitted quad interface keeps the clock with the quad phases.
        assert!(!psram.follows_driver);
        let default = load("esp32s3").unwrap();
        let own = default.regions.iter().find(|r| r.name == "psram").unwrap();
        assert!(own.follows_driver);
        let refit = own.spi.unwrap().refitted(RegionKind::Psram, SpiMode::Quad);
        assert_eq!(
            (refit.clock_hz, refit.transaction_clocks(32, false)),
            (80_000_000, 2 + 6 + 6 + 64)
        );
        let e = set("esp32s3", &["flash_irom.follows_driver=true"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("follows_driver applies only to a PSRAM"), "{e}");
        let e = set("esp32s3", &["psram.mode=hex"]).unwrap_err().to_string();
        assert!(
            e.contains("psram.mode=hex") && e.contains("unknown variant `hex`"),
            "{e}"
        );
        let e = set("esp32s3", &["psram.clock_mhz=0"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("clock_mhz = 0 must be above 0"), "{e}");
        let e = set("esp32s3", &["sram1.mode=quad"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("mode applies only to kind \"xip\" or \"psram\""),
            "{e}"
        );
    }

    #[test]
    fn unknown_board_lists_the_known_ones() {
        let e = load("no-such-board").unwrap_err().to_string();
        assert!(
            e.contains("unknown board `no-such-board`") && e.contains("stm32f446re"),
            "{e}"
        );
    }

    #[test]
    fn alias_resolves_to_canonical_address() {
        let b = load("stm32f446re").unwrap();
        let (i, addr) = b.resolve(0x0000_0100).unwrap();
        assert_eq!(b.regions[i].name, "flash");
        assert_eq!(addr, 0x0800_0100);
        assert!(b.resolve(0x7000_0000).is_none());
    }

    const MINIMAL: &str = "name = \"x\"\nsummary = \"s\"\n[core]\nkind = \"cortex-m4\"\nclock_hz = 1\n\
        [[regions]]\nname = \"ram\"\nkind = \"sram\"\nbase = 0x20000000\nsize = \"64K\"\naccess = \"rw\"\n";

    #[test]
    fn minimal_board_parses() {
        let b = parse(MINIMAL, "t.toml").unwrap();
        assert_eq!(b.regions[0].size, 65536);
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let text = MINIMAL.replace("access = \"rw\"", "access = \"rw\"\nwaitstates = 3");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("waitstates") && e.contains("line 12"), "{e}");
    }

    /// Review D9: a failing --set among several is the one named.
    #[test]
    fn the_failing_override_is_the_one_named() {
        let e = set(
            "stm32f446re",
            &[
                "flash.wait_states=2",
                "core.clock_hz=0",
                "flash.prefetch=false",
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("--set core.clock_hz=0")
                && !e.contains("wait_states=2")
                && !e.contains("prefetch"),
            "{e}"
        );
    }

    /// A region with an alias past 4 GiB is refused, as a region past 4 GiB is.
    #[test]
    fn an_alias_past_4_gib_is_refused() {
        let text = MINIMAL.replace("access = \"rw\"", "access = \"rw\"\naliases = [0xffff8000]");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("t.toml, line 6")
                && e.contains("alias 0xffff8000 + size 0x10000 runs past the 4 GiB"),
            "{e}"
        );
    }

    /// Review D9: Cortex-M regions that Unicorn cannot map are refused when the board is read,
    /// with the file, line and region, not at core set-up as "MAP" or "ARG".
    #[test]
    fn cortex_m_regions_the_engine_cannot_map_are_refused() {
        let region = |base: &str, size: &str| {
            format!("{MINIMAL}[[regions]]\nname = \"two\"\nkind = \"sram\"\nbase = {base}\nsize = {size}\naccess = \"rw\"\n")
        };
        for (text, want) in [
            (region("0x30000800", "\"4K\""), "region `two` at 0x30000800: on a Cortex-M board a region (and each alias) must start on a 4 KiB boundary"),
            (region("0x30000000", "0x100"), ""),
            (region("0xe0000000", "\"4K\""), "region `two` (0xe0000000-0xe0000fff) overlaps the Private Peripheral Bus"),
        ] {
            match parse(&text, "t.toml") {
                Ok(_) => assert!(want.is_empty(), "{want}"),
                Err(e) => {
                    let e = e.to_string();
                    assert!(!want.is_empty() && e.contains("t.toml, line 12") && e.contains(want), "{e}");
                }
            }
        }
        // Xtensa boards map memory byte by byte: the same layout is fine there.
        let xtensa = region("0x30000800", "\"4K\"").replace("cortex-m4", "xtensa-lx7");
        parse(&xtensa, "t.toml").unwrap();
    }

    /// Review D9: 10,000 regions are read in linear time (line numbers and overlaps were
    /// quadratic: 8.6 s).
    #[test]
    fn ten_thousand_regions_are_read_quickly() {
        let mut text = String::from(
            "name = \"big\"\nsummary = \"s\"\n[core]\nkind = \"cortex-m4\"\nclock_hz = 1\n",
        );
        for i in 0..10_000u32 {
            text += &format!(
                "[[regions]]\nname = \"r{i}\"\nkind = \"sram\"\nbase = 0x{:08x}\nsize = \"4K\"\naccess = \"rw\"\n",
                0x2000_0000 + i * 0x1000
            );
        }
        let started = std::time::Instant::now();
        assert_eq!(parse(&text, "big.toml").unwrap().regions.len(), 10_000);
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(3), "{took:?}");
        let overlapping = text.replace("base = 0x20001000", "base = 0x20000800");
        let e = parse(&overlapping, "big.toml").unwrap_err().to_string();
        assert!(
            e.contains("line 12") && e.contains("region `r1` at 0x20000800"),
            "{e}"
        );
    }

    #[test]
    fn overlapping_regions_are_rejected_with_line() {
        let text = format!("{MINIMAL}[[regions]]\nname = \"ram2\"\nkind = \"sram\"\nbase = 0x20008000\nsize = 16\naccess = \"rw\"\n");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("line 12") && e.contains("overlaps region `ram` (line 6)"),
            "{e}"
        );
    }

    fn with_cache(cache: &str) -> String {
        let minimal = MINIMAL.replace("access = \"rw\"", "access = \"rw\"\ndcache = \"d\"");
        minimal.replace(
            "[[regions]]",
            &format!("[[caches]]\nname = \"d\"\n{cache}\n[[regions]]"),
        )
    }

    #[test]
    fn bad_cache_geometry_is_rejected() {
        let e = parse(
            &with_cache("size = \"4K\"\nways = 0\nline_bytes = 16\nwrite_policy = \"write-back\""),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("cache `d`: ways must be at least 1") && e.contains("line 6"),
            "{e}"
        );
        let e = parse(
            &with_cache("size = \"4K\"\nways = 2\nline_bytes = 24\nwrite_policy = \"write-back\""),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not a power of two"), "{e}");
        let e = parse(
            &with_cache("size = \"3K\"\nways = 1\nline_bytes = 32\nwrite_policy = \"write-back\""),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("96 sets"), "{e}");
        let e = parse(
            &with_cache("size = \"4K\"\nways = 2\nline_bytes = 32\nwrite_policy = \"copy-back\""),
            "t.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("copy-back") && e.contains("write-through"),
            "{e}"
        );
        let ok = parse(
            &with_cache("size = \"4K\"\nways = 2\nline_bytes = 32\nwrite_policy = \"write-back\""),
            "t.toml",
        )
        .unwrap();
        assert_eq!(
            (ok.caches[0].replacement, ok.regions[0].dcache),
            (Replacement::Lru, Some(0))
        );
    }

    #[test]
    fn zero_clock_and_bad_size_are_rejected() {
        let e = parse(&MINIMAL.replace("clock_hz = 1", "clock_hz = 0"), "t")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("clock_hz must be greater than 0") && e.contains("line 5"),
            "{e}"
        );
        let e = parse(&MINIMAL.replace("\"64K\"", "\"64Q\""), "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("64Q"), "{e}");
    }
}
