//! Boards as data: core kind and clock, memory regions with their latency parameters, console device.
//!
//! Built-in boards live in `targets/boards/*.toml` and are embedded in the binary; a user's own board is
//! the same format read from a path. Every figure in a board file names its source in a comment.

mod size;

use serde::Deserialize;
use std::fmt;
use std::path::Path;
use toml::Spanned;

pub use size::parse_size;

/// The board used when `--board` is omitted.
pub const DEFAULT_BOARD: &str = "mps2-an386";

/// Built-in board files, embedded at compile time.
const BUILTIN: &[(&str, &str)] = &[
    ("mps2-an386", include_str!("../boards/mps2-an386.toml")),
    ("mps2-an500", include_str!("../boards/mps2-an500.toml")),
    ("stm32f446re", include_str!("../boards/stm32f446re.toml")),
    ("stm32h753", include_str!("../boards/stm32h753.toml")),
    ("nrf52840", include_str!("../boards/nrf52840.toml")),
    ("rp2040", include_str!("../boards/rp2040.toml")),
    ("rp2350", include_str!("../boards/rp2350.toml")),
    ("esp32s3", include_str!("../boards/esp32s3.toml")),
    ("esp32", include_str!("../boards/esp32.toml")),
    ("esp8266", include_str!("../boards/esp8266.toml")),
];

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("unknown board `{name}`; built-in boards: {known}; or pass a path to a board .toml file")]
    Unknown { name: String, known: String },
    #[error("cannot read board file {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("board file {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("board file {origin}, line {line}: {message}")]
    Invalid { origin: String, line: usize, message: String },
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
        !matches!(self, CoreKind::XtensaLx106 | CoreKind::XtensaLx6 | CoreKind::XtensaLx7)
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

/// A set-associative cache with LRU replacement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSpec {
    pub size: u32,
    pub ways: u32,
    pub line_bytes: u32,
}

impl CacheSpec {
    pub fn sets(&self) -> u32 {
        self.size / (self.ways * self.line_bytes)
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
        write!(f, "{}{}{}", flag(self.read, 'r'), flag(self.write, 'w'), flag(self.execute, 'x'))
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
    /// Extra cycles for each data read beyond the core's own cost.
    pub read_wait_states: u32,
    /// Extra cycles for each data write beyond the core's own cost.
    pub write_wait_states: u32,
    /// Bytes returned by one array read (flash line width); instruction fetch is priced per line.
    pub bus_bytes: u32,
    /// Sequential-line prefetch buffer (hides wait states of straight-line code).
    pub prefetch: bool,
    /// Region-side instruction cache (STM32 ART, RP2040 XIP cache...).
    pub icache: Option<CacheSpec>,
    /// Region-side data cache.
    pub dcache: Option<CacheSpec>,
    /// Cycles to refill one cache line from the backing memory (XIP/PSRAM); 0 = use the wait states.
    pub miss_cycles: u32,
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
}

/// A complete, validated board.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub name: String,
    pub summary: String,
    /// Where the board came from: `built-in` or the file path.
    pub origin: String,
    pub core: CoreSpec,
    pub regions: Vec<Region>,
    pub console: ConsoleSpec,
    /// Address of the vector table when the ELF does not mark one (`.isr_vector`/`.vectors`).
    pub vector_table: Option<u32>,
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
                size::format_size(r.size as u64),
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
pub fn load(name_or_path: &str) -> Result<Board, BoardError> {
    let (text, origin) = board_text(name_or_path)?;
    parse(&text, &origin)
}

/// Load a board, then change parameters for this run: each override is `key=value` with the key
/// written as in the board file, a region's keys prefixed by its name: `core.clock_hz=80000000`,
/// `flash.wait_states=3`, `flash.prefetch=false`, `xip.icache.size=8K`, `console.uart_data=0x40004000`.
pub fn load_with(name_or_path: &str, overrides: &[String]) -> Result<Board, BoardError> {
    let (text, origin) = board_text(name_or_path)?;
    if overrides.is_empty() {
        return parse(&text, &origin);
    }
    let mut doc: toml::Table =
        text.parse().map_err(|e: toml::de::Error| BoardError::Parse { origin: origin.clone(), message: e.to_string() })?;
    for setting in overrides {
        apply_override(&mut doc, setting)?;
    }
    let edited = toml::to_string(&doc).expect("a parsed table serialises");
    parse(&edited, &origin).map_err(|e| match e {
        // Line numbers would point into the edited text: name the settings instead.
        BoardError::Invalid { message, .. } | BoardError::Parse { message, .. } => BoardError::Override {
            setting: overrides.join(" --set "),
            message: message.lines().last().unwrap_or_default().trim().to_string(),
        },
        other => other,
    })
}

fn board_text(name_or_path: &str) -> Result<(String, String), BoardError> {
    if let Some((_, text)) = BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
        return Ok((text.to_string(), "built-in".into()));
    }
    let path = Path::new(name_or_path);
    if name_or_path.ends_with(".toml") || path.exists() {
        let text = std::fs::read_to_string(path)
            .map_err(|source| BoardError::Io { path: name_or_path.to_string(), source })?;
        return Ok((text, name_or_path.to_string()));
    }
    Err(BoardError::Unknown { name: name_or_path.to_string(), known: builtin_names().join(", ") })
}

const TOP_KEYS: &[&str] = &["name", "summary", "vector_table"];
const CORE_KEYS: &[&str] = &["kind", "clock_hz", "fpu"];
const CONSOLE_KEYS: &[&str] = &["uart_data", "uart_status", "uart_status_ready"];
const REGION_KEYS: &[&str] = &[
    "kind", "base", "size", "access", "aliases", "wait_states", "write_wait_states", "bus_bytes", "prefetch",
    "miss_cycles",
];
const CACHE_KEYS: &[&str] = &["size", "ways", "line_bytes"];

/// Apply one `key=value` to the parsed board file, checking that the key exists.
fn apply_override(doc: &mut toml::Table, setting: &str) -> Result<(), BoardError> {
    let fail = |message: String| BoardError::Override { setting: setting.to_string(), message };
    let (key, raw) = setting.split_once('=').ok_or_else(|| fail("expected key=value".into()))?;
    let (key, raw) = (key.trim(), raw.trim());
    // A TOML value if it parses as one (numbers, booleans, "strings"), else a bare string ("16K").
    let value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let path: Vec<&str> = key.split('.').collect();
    let expect = |known: &[&str], field: &str| {
        if known.contains(&field) {
            Ok(())
        } else {
            Err(fail(format!("unknown key `{field}`; known keys here: {}", known.join(", "))))
        }
    };
    let table = |doc: &mut toml::Table, name: &str| -> Result<toml::Table, BoardError> {
        Ok(doc.get(name).and_then(|v| v.as_table()).cloned().unwrap_or_default())
    };
    match path.as_slice() {
        [field] => {
            expect(TOP_KEYS, field)?;
            doc.insert(field.to_string(), value);
        }
        [section @ ("core" | "console"), field] => {
            expect(if *section == "core" { CORE_KEYS } else { CONSOLE_KEYS }, field)?;
            let mut t = table(doc, section)?;
            t.insert(field.to_string(), value);
            doc.insert(section.to_string(), toml::Value::Table(t));
        }
        [region, rest @ ..] if !rest.is_empty() && rest.len() <= 2 => {
            let regions = doc.get_mut("regions").and_then(|r| r.as_array_mut()).ok_or_else(|| fail("the board has no regions".into()))?;
            let names: Vec<String> =
                regions.iter().filter_map(|r| r.get("name").and_then(|n| n.as_str()).map(String::from)).collect();
            let target = regions
                .iter_mut()
                .filter_map(|r| r.as_table_mut())
                .find(|r| r.get("name").and_then(|n| n.as_str()) == Some(region))
                .ok_or_else(|| {
                    fail(format!("no key or region `{region}`: use core.*, console.* or a region name ({})", names.join(", ")))
                })?;
            match rest {
                [field] => {
                    expect(REGION_KEYS, field)?;
                    target.insert(field.to_string(), value);
                }
                [cache @ ("icache" | "dcache"), field] => {
                    expect(CACHE_KEYS, field)?;
                    let mut c = target.get(*cache).and_then(|v| v.as_table()).cloned().unwrap_or_default();
                    c.insert(field.to_string(), value);
                    target.insert(cache.to_string(), toml::Value::Table(c));
                }
                _ => return Err(fail(format!("unknown key `{}` in region `{region}`", rest.join(".")))),
            }
        }
        _ => return Err(fail(format!("unknown key `{key}`"))),
    }
    Ok(())
}

// ---- file format -------------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    name: String,
    summary: String,
    core: CoreFile,
    regions: Vec<Spanned<RegionFile>>,
    #[serde(default)]
    console: ConsoleFile,
    vector_table: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CoreFile {
    kind: CoreKind,
    clock_hz: u64,
    #[serde(default)]
    fpu: bool,
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
    #[serde(default)]
    wait_states: u32,
    write_wait_states: Option<u32>,
    bus_bytes: Option<u32>,
    #[serde(default)]
    prefetch: bool,
    icache: Option<CacheFile>,
    dcache: Option<CacheFile>,
    #[serde(default)]
    miss_cycles: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheFile {
    size: size::Size,
    ways: u32,
    line_bytes: u32,
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

/// Parse and validate a board file's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Board, BoardError> {
    let file: BoardFile = toml::from_str(text)
        .map_err(|e| BoardError::Parse { origin: origin.to_string(), message: e.to_string() })?;
    let invalid = |line: usize, message: String| BoardError::Invalid { origin: origin.to_string(), line, message };
    if file.core.clock_hz == 0 {
        let line = text.find("clock_hz").map(|o| line_of(text, o)).unwrap_or(1);
        return Err(invalid(line, "core.clock_hz must be greater than 0".into()));
    }
    if file.regions.is_empty() {
        return Err(invalid(1, "the board has no [[regions]]".into()));
    }
    let mut regions: Vec<(usize, Region)> = Vec::new();
    for spanned in &file.regions {
        let line = line_of(text, spanned.span().start);
        let r = spanned.get_ref();
        let region = build_region(r).map_err(|m| invalid(line, format!("region `{}`: {m}", r.name)))?;
        for (other_line, other) in &regions {
            if other.name == region.name {
                return Err(invalid(line, format!("region name `{}` also used at line {other_line}", region.name)));
            }
            for a in std::iter::once(region.base).chain(region.aliases.iter().copied()) {
                for b in std::iter::once(other.base).chain(other.aliases.iter().copied()) {
                    let (a_end, b_end) = (a as u64 + region.size as u64, b as u64 + other.size as u64);
                    if (a as u64) < b_end && (b as u64) < a_end {
                        return Err(invalid(
                            line,
                            format!(
                                "region `{}` at 0x{a:08x} overlaps region `{}` (line {other_line}) at 0x{b:08x}",
                                region.name, other.name
                            ),
                        ));
                    }
                }
            }
        }
        regions.push((line, region));
    }
    let console = ConsoleSpec {
        uart: file.console.uart_data.map(|data| UartSpec {
            data,
            status: file.console.uart_status,
            status_ready: file.console.uart_status_ready,
        }),
    };
    Ok(Board {
        name: file.name,
        summary: file.summary,
        origin: origin.to_string(),
        core: CoreSpec { kind: file.core.kind, clock_hz: file.core.clock_hz, fpu: file.core.fpu },
        regions: regions.into_iter().map(|(_, r)| r).collect(),
        console,
        vector_table: file.vector_table,
    })
}

fn build_cache(c: &CacheFile, key: &str) -> Result<CacheSpec, String> {
    let size = c.size.0;
    if c.ways == 0 {
        return Err(format!("{key}.ways must be at least 1"));
    }
    if !c.line_bytes.is_power_of_two() {
        return Err(format!("{key}.line_bytes = {} is not a power of two", c.line_bytes));
    }
    let spec = CacheSpec { size: size as u32, ways: c.ways, line_bytes: c.line_bytes };
    if size == 0 || size % (c.ways as u64 * c.line_bytes as u64) != 0 || !spec.sets().is_power_of_two() {
        return Err(format!(
            "{key}: size {size} is not ways ({}) x line_bytes ({}) x a power-of-two number of sets",
            c.ways, c.line_bytes
        ));
    }
    Ok(spec)
}

fn build_region(r: &RegionFile) -> Result<Region, String> {
    let size = r.size.0;
    if size == 0 {
        return Err("size must be greater than 0".into());
    }
    if size > u32::MAX as u64 || r.base as u64 + size > 1 << 32 {
        return Err(format!("base 0x{:08x} + size 0x{size:x} runs past the 4 GiB address space", r.base));
    }
    let access = Access {
        read: r.access.contains('r'),
        write: r.access.contains('w'),
        execute: r.access.contains('x'),
    };
    if r.access.is_empty() || r.access.chars().any(|c| !"rwx".contains(c)) {
        return Err(format!("access = \"{}\" must be made of the letters r, w, x", r.access));
    }
    let bus_bytes = r.bus_bytes.unwrap_or(4);
    if !bus_bytes.is_power_of_two() {
        return Err(format!("bus_bytes = {bus_bytes} is not a power of two"));
    }
    Ok(Region {
        name: r.name.clone(),
        kind: r.kind,
        base: r.base,
        size: size as u32,
        access,
        aliases: r.aliases.clone(),
        read_wait_states: r.wait_states,
        write_wait_states: r.write_wait_states.unwrap_or(r.wait_states),
        bus_bytes,
        prefetch: r.prefetch,
        icache: r.icache.as_ref().map(|c| build_cache(c, "icache")).transpose()?,
        dcache: r.dcache.as_ref().map(|c| build_cache(c, "dcache")).transpose()?,
        miss_cycles: r.miss_cycles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_board_parses() {
        for name in builtin_names() {
            let b = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(b.name, name);
            assert!(b.core.clock_hz > 0);
        }
    }

    #[test]
    fn overrides_change_parameters_and_are_checked() {
        let set = |s: &[&str]| load_with("stm32f446re", &s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        let b = set(&["flash.wait_states=2", "flash.prefetch=false", "core.clock_hz=84000000", "flash.icache.size=2K"]).unwrap();
        let flash = &b.regions[0];
        assert_eq!((flash.read_wait_states, flash.prefetch, b.core.clock_hz), (2, false, 84_000_000));
        assert_eq!(flash.icache.unwrap().size, 2048);
        let e = set(&["flash.waitstates=2"]).unwrap_err().to_string();
        assert!(e.contains("--set flash.waitstates=2") && e.contains("unknown key `waitstates`"), "{e}");
        let e = set(&["psram.wait_states=2"]).unwrap_err().to_string();
        assert!(e.contains("no key or region `psram`") && e.contains("flash, sram"), "{e}");
        let e = set(&["flash.icache.ways=0"]).unwrap_err().to_string();
        assert!(e.contains("icache.ways must be at least 1"), "{e}");
        let e = set(&["core.clock_hz=0"]).unwrap_err().to_string();
        assert!(e.contains("clock_hz must be greater than 0"), "{e}");
        let e = set(&["flash.wait_states"]).unwrap_err().to_string();
        assert!(e.contains("expected key=value"), "{e}");
    }

    #[test]
    fn unknown_board_lists_the_known_ones() {
        let e = load("no-such-board").unwrap_err().to_string();
        assert!(e.contains("unknown board `no-such-board`") && e.contains("stm32f446re"), "{e}");
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

    #[test]
    fn overlapping_regions_are_rejected_with_line() {
        let text = format!("{MINIMAL}[[regions]]\nname = \"ram2\"\nkind = \"sram\"\nbase = 0x20008000\nsize = 16\naccess = \"rw\"\n");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("line 12") && e.contains("overlaps region `ram` (line 6)"), "{e}");
    }

    #[test]
    fn bad_cache_geometry_is_rejected() {
        let text = MINIMAL.replace("access = \"rw\"", "access = \"rw\"\ndcache = { size = \"4K\", ways = 0, line_bytes = 16 }");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("dcache.ways must be at least 1") && e.contains("line 6"), "{e}");
        let text = MINIMAL.replace("access = \"rw\"", "access = \"rw\"\ndcache = { size = \"4K\", ways = 2, line_bytes = 24 }");
        let e = parse(&text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("not a power of two"), "{e}");
    }

    #[test]
    fn zero_clock_and_bad_size_are_rejected() {
        let e = parse(&MINIMAL.replace("clock_hz = 1", "clock_hz = 0"), "t").unwrap_err().to_string();
        assert!(e.contains("clock_hz must be greater than 0") && e.contains("line 5"), "{e}");
        let e = parse(&MINIMAL.replace("\"64K\"", "\"64Q\""), "t").unwrap_err().to_string();
        assert!(e.contains("64Q"), "{e}");
    }
}
