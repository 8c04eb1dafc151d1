//! The Xtensa ISS behind the simulator's [`Core`] trait: board memory as host buffers (aliases share
//! storage), a bus priced by `tigris_memmodels`, the console UART, and the ISS's stop reasons turned
//! into the simulator's stops and faults.
//!
//! Exceptions: the ISS dispatches them to the firmware's vectors as the hardware does. When a vector
//! holds no code (VECBASE still in the unloaded mask ROM, or a handler that is a `break`), the
//! exception that led there is reported as the fault, at the instruction that raised it.

use super::bus::{BusFault, XtensaBus};
use super::config::XtensaConfig;
use super::cpu::{cause, AccessKind, StopReason, XtensaHooks, PS_WOE};
use super::decode::decode;
use super::disasm::disasm_word;
use super::exec::Xtensa;
use crate::{
    Budget, Core, CoreError, Entry, ExecObserver, Fault, FaultKind, Flow, SemihostingAbi, Stop,
    Watchpoint,
};
use std::collections::HashSet;
use tigris_memmodels::periph::Peripherals;
use tigris_memmodels::{MemorySystem, Traffic};
use tigris_targets::{Board, CoreKind, MmuSpec, RegionKind, SecondCore, SpiMode, UnmappedWrites};

/// Distinct addresses of dropped stores kept for the report.
const DROPPED_KEPT: usize = 8;

/// One mapping of a region's storage into the address space (a region and each of its aliases).
#[derive(Clone, Copy)]
struct Mapping {
    start: u32,
    /// Size in bytes.
    len: u32,
    storage: usize,
    /// Offset in the storage of the byte at `start` (an MMU page maps part of a storage).
    offset: u32,
    /// Index of the region in the memory system.
    region: usize,
    writable: bool,
    mmio: bool,
    /// Data accesses go through the region's latency model.
    priced: bool,
    /// Instruction fetch goes through the region's latency model.
    fetch_priced: bool,
}

/// Page-table entry of a 4 KiB page no mapping touches. Zero, so that the 1 MiB table starts as a
/// zeroed allocation, which the host maps lazily (one page fault per 4 MiB of address space in use,
/// instead of writing it all at start-up).
const PAGE_NONE: u8 = 0;
/// Page-table entry of a page that mappings cover only in part: look the address up in `maps`.
const PAGE_MIXED: u8 = 1;
/// Page-table entry of a page wholly inside `maps[i]`: `PAGE_FIRST + i`.
const PAGE_FIRST: u8 = 2;
const PAGE_SHIFT: u32 = 12;

/// The index in `maps` that a page-table entry names, if any.
#[inline(always)]
fn page_entry_map(e: u8) -> Option<usize> {
    (e as usize).checked_sub(PAGE_FIRST as usize)
}

/// What the data fast path needs of the mapping a page-table entry names (`EspBus::page_maps`,
/// indexed by the entry itself, so the lookup has no bounds check and no flag tests). C layout:
/// compiled code reads it too (`DataView`).
#[derive(Clone, Copy, Default)]
#[repr(C, align(128))]
pub(super) struct PageMap {
    pub(super) start: u32,
    /// Offsets below this take the read fast path: a plain priced mapping (not MMIO) in which
    /// 4 bytes from the offset are inside the storage. 0 for entries that need `read_general`.
    pub(super) read_end: u32,
    /// The same for writes (the mapping must also be writable).
    pub(super) write_end: u32,
    /// `read_end` and `write_end` where data accesses cost nothing, else 0: the offsets below
    /// which compiled code makes the access itself (`DataView`).
    pub(super) plain_read_end: u32,
    pub(super) plain_write_end: u32,
    /// Narrow, so that the entry fits in 128 bytes (a shift indexes `EspBus::page_maps`).
    storage: u16,
    region: u16,
    /// Index in `EspBus::ram` of the mapping's first byte (32 bits: the fast path's index sums
    /// then cannot overflow, which spares it a check).
    pub(super) base: u32,
    /// Data accesses cost cycles (`RegionModel::prices_data`): price them, not only count them.
    pub(super) priced: bool,
    /// Accesses of the fast path that cost nothing, not yet handed to the memory system
    /// (`EspBus::flush_traffic`): counting them here needs no region lookup.
    pub(super) accesses: Accesses,
}

/// Data accesses counted by direction and size, one counter per access (the bytes follow from
/// the sizes): reads of 1, 2 and 4 bytes, then writes. C layout: compiled code counts them too.
#[derive(Clone, Copy, Default)]
#[repr(C)]
pub(super) struct Accesses(pub(super) [u64; 6]);

impl Accesses {
    /// The counter of an access of `size` bytes (1, 2 or 4).
    #[inline(always)]
    pub(super) fn index(size: u32, write: bool) -> usize {
        debug_assert!(matches!(size, 1 | 2 | 4));
        3 * write as usize + size.trailing_zeros() as usize
    }

    fn traffic(&self) -> Traffic {
        let [r1, r2, r4, w1, w2, w4] = self.0;
        Traffic {
            reads: r1 + r2 + r4,
            read_bytes: r1 + 2 * r2 + 4 * r4,
            writes: w1 + w2 + w4,
            write_bytes: w1 + 2 * w2 + 4 * w4,
        }
    }
}

/// The external-memory MMU (`MmuSpec`). An app ELF booted directly: the board's flash windows
/// hold its segments where the bootloader maps them, so the entries it leaves map nothing new; an
/// entry the firmware changes maps its window page to the PSRAM page it names, or to where the
/// flash page it names was loaded, or else to that page of the flash chip (`flash`, which holds
/// a flash image booted from the ROM, and reads as erased otherwise). Invalid entries keep the
/// window's own storage (on the chip they would fault).
struct Mmu {
    spec: MmuSpec,
    /// The value of each entry as the bootloader leaves it.
    handover: Vec<u32>,
    /// Entries whose page of a window the image was loaded into: (entry, window).
    loaded: Vec<(u32, usize)>,
    /// The page-table entries of each window from the board's own mappings.
    static_pages: Vec<Vec<u8>>,
    /// Storage (= region index) of the PSRAM.
    psram: Option<usize>,
    /// Storage of the flash chip (after the regions' storages).
    flash: Option<usize>,
}

/// Memory of the board as the core sees it.
pub struct EspBus {
    /// The bytes of every region in one buffer, so that the data fast path indexes it directly;
    /// storage `i` (region `i`, shared by its aliases) is `ram[spans[i].0..][..spans[i].1]`, each
    /// starting at a multiple of `CODE_WORD_BYTES`.
    ram: Vec<u8>,
    spans: Vec<(usize, usize)>,
    /// One bit per 256-byte chunk of `ram` that instructions were decoded from (bit `i % 64` of
    /// word `i / 64` for chunk `i`); a storage's chunks fill whole words of their own.
    code: Vec<u64>,
    maps: Vec<Mapping>,
    /// Per 4 KiB page of the address space: `PAGE_FIRST` + the index in `maps` of the mapping that
    /// covers the whole page, `PAGE_MIXED` or `PAGE_NONE`. Turns the region lookup of every access
    /// into one load.
    pages: Box<[u8; 1 << (32 - PAGE_SHIFT)]>,
    /// Fast-path view of `maps` by page-table entry (`PAGE_NONE`, `PAGE_MIXED`: zeroed, so general).
    page_maps: [PageMap; 256],
    /// Page-table entries whose mappings count traffic in `PageMap::accesses`.
    batching: Vec<u8>,
    /// `(start, end_exclusive, region)` of mappings whose instruction fetch the models price.
    fetch_priced: Vec<(u32, u64, usize)>,
    /// The memory models and their counters; those of accesses that cost nothing are complete
    /// after `flush_traffic` (`XtensaBackend` flushes at the end of every run).
    pub mem: MemorySystem,
    stall: u64,
    generation: u64,
    uart_data: Option<u32>,
    uart_status: Option<(u32, u32)>,
    pub console: Vec<u8>,
    /// The board's peripheral register blocks (inside its MMIO regions).
    pub periph: Peripherals,
    /// Stop at a poll without progress (`--strict-mmio`): the read faults.
    pub strict_mmio: bool,
    /// Print every peripheral access on stderr (`--trace-mmio`).
    pub trace_mmio: bool,
    /// Stores to unmapped addresses complete and are lost (`UnmappedWrites::Drop`).
    drop_unmapped_writes: bool,
    /// Where dropped stores went: the first addresses (at most `DROPPED_KEPT`) and their count.
    pub dropped_writes: (Vec<u32>, u64),
    /// The PSRAM region, the mode the board had and the one the firmware's driver made it fit,
    /// if it did.
    pub psram_refitted: Option<(String, String, String)>,
    /// Cycles spent in the current fetch unit of a priced region (for the prefetch model).
    fetch_run: u32,
    /// `maps[..static_maps]` are the board's; the MMU's follow.
    static_maps: usize,
    mmu: Option<Mmu>,
    /// The core whose accesses these are (0 the first, 1 the second): whose interrupt lines
    /// `interrupt_lines` answers with.
    pub active_core: usize,
    /// Per core, the 512 MB regions its region protection refuses data accesses to (bit r).
    illegal_regions: [u8; 2],
}

/// Bytes of `EspBus::ram` whose chunks share one word of `EspBus::code`.
const CODE_WORD_BYTES: usize = 256 * 64;

/// Where the next storage starts in `EspBus::ram`, after `spans`.
fn next_span(spans: &[(usize, usize)]) -> usize {
    spans
        .last()
        .map_or(0, |&(b, n)| (b + n).next_multiple_of(CODE_WORD_BYTES))
}

/// What compiled code needs to make plain data accesses itself (`jit.rs`), as `EspBus::read_at`
/// and `write_at` make them: the page table (1 << 20 entries), the fast-path mappings (256; the
/// 4 bytes at an offset below an entry's `plain_read_end`/`plain_write_end` lie inside `ram`, see
/// `page_map`), the memory and the code marks. Valid while the bus is neither moved nor dropped
/// (none of the four is ever reallocated).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct DataView {
    pub(super) pages: *const u8,
    pub(super) page_maps: *mut PageMap,
    pub(super) ram: *mut u8,
    pub(super) code: *const u64,
}

/// A `PageMap` must fill 128 bytes: compiled code indexes `EspBus::page_maps` by shifting.
const _: () = assert!(size_of::<PageMap>() == 128);

/// The fast-path view of mapping `m`. The bytes of every access it lets through lie inside the
/// mapping's storage, so inside `EspBus::ram` (compiled code relies on it: `DataView`).
fn page_map(m: &Mapping, spans: &[(usize, usize)], mem: &MemorySystem) -> PageMap {
    // Storage beyond 4 GiB of host buffer (never in practice), or a mapping past the end of its
    // storage, takes the general path.
    let (span_base, span_len) = spans[m.storage];
    let Ok(base) = u32::try_from(span_base + m.offset as usize) else {
        return PageMap::default();
    };
    if m.offset as usize + m.len as usize > span_len {
        return PageMap::default();
    }
    let end = if m.mmio { 0 } else { m.len.saturating_sub(3) };
    let write_end = if m.writable { end } else { 0 };
    let priced = mem.regions[m.region].prices_data();
    // Entries past these types' reach take the general path.
    let (Ok(storage), Ok(region)) = (u16::try_from(m.storage), u16::try_from(m.region)) else {
        return PageMap::default();
    };
    PageMap {
        start: m.start,
        read_end: end,
        write_end,
        plain_read_end: if priced { 0 } else { end },
        plain_write_end: if priced { 0 } else { write_end },
        storage,
        base,
        region,
        priced,
        accesses: Accesses::default(),
    }
}

/// The page table of `maps`: where mappings overlap, the first one wins, as in a linear search.
fn page_table(maps: &[Mapping]) -> Box<[u8; 1 << (32 - PAGE_SHIFT)]> {
    let mut pages: Box<[u8; 1 << (32 - PAGE_SHIFT)]> = vec![PAGE_NONE; 1 << (32 - PAGE_SHIFT)]
        .into_boxed_slice()
        .try_into()
        .expect("page table size");
    let page = 1u64 << PAGE_SHIFT;
    for (i, m) in maps.iter().enumerate() {
        if m.len == 0 {
            continue;
        }
        let (start, end) = (m.start as u64, m.start as u64 + m.len as u64);
        for p in (start >> PAGE_SHIFT)..=((end - 1) >> PAGE_SHIFT).min(pages.len() as u64 - 1) {
            let full = p * page >= start
                && (p + 1) * page <= end
                && i + (PAGE_FIRST as usize) <= u8::MAX as usize;
            let e = &mut pages[p as usize];
            if *e == PAGE_NONE {
                *e = if full {
                    PAGE_FIRST + i as u8
                } else {
                    PAGE_MIXED
                };
            }
            // Otherwise an earlier mapping covers the whole page and wins every address of it, or
            // the page is mixed already.
        }
    }
    pages
}

impl Mapping {
    /// Storage offset just past the mapping.
    fn storage_end(&self) -> usize {
        self.offset as usize + self.len as usize
    }
}

impl EspBus {
    pub fn new(board: &Board) -> EspBus {
        let mem = MemorySystem::new(board);
        let mut spans = Vec::new();
        let mut maps = Vec::new();
        let mut fetch_priced = Vec::new();
        for (i, r) in board.regions.iter().enumerate() {
            spans.push((next_span(&spans), r.size as usize));
            let model = &mem.regions[i];
            for start in std::iter::once(r.base).chain(r.aliases.iter().copied()) {
                maps.push(Mapping {
                    start,
                    len: r.size,
                    storage: i,
                    offset: 0,
                    region: i,
                    writable: r.access.write,
                    mmio: r.kind == RegionKind::Mmio,
                    priced: r.kind != RegionKind::Mmio,
                    fetch_priced: model.prices_fetch(),
                });
                if model.prices_fetch() {
                    fetch_priced.push((start, start as u64 + r.size as u64, i));
                }
            }
        }
        // The flash chip behind the MMU: a storage no board mapping covers.
        let flash = board.mmu.as_ref().filter(|m| m.flash_size > 0).map(|m| {
            spans.push((next_span(&spans), m.flash_size as usize));
            spans.len() - 1
        });
        let pages = page_table(&maps);
        let mut page_maps = [PageMap::default(); 256];
        for (i, m) in maps.iter().enumerate().take(256 - PAGE_FIRST as usize) {
            page_maps[PAGE_FIRST as usize + i] = page_map(m, &spans, &mem);
        }
        let batching = (PAGE_FIRST..=u8::MAX)
            .filter(|&e| {
                let m = &page_maps[e as usize];
                !m.priced && m.read_end > 0
            })
            .collect();
        // A zeroed allocation is lazily backed by the host, so the 32 MiB windows cost nothing
        // until touched.
        let ram = vec![0u8; next_span(&spans)];
        let code = vec![0u64; ram.len() / CODE_WORD_BYTES];
        let mmu = board.mmu.clone().map(|spec| {
            let static_pages = spec
                .windows
                .iter()
                .map(|w| {
                    let first = (w.base >> PAGE_SHIFT) as usize;
                    let n = ((w.entries as u64 * spec.page as u64) >> PAGE_SHIFT) as usize;
                    pages[first..first + n].to_vec()
                })
                .collect();
            Mmu {
                handover: vec![spec.invalid; spec.entries as usize],
                loaded: Vec::new(),
                static_pages,
                psram: board
                    .regions
                    .iter()
                    .position(|r| r.kind == RegionKind::Psram),
                flash,
                spec,
            }
        });
        let static_maps = maps.len();
        EspBus {
            ram,
            spans,
            code,
            maps,
            pages,
            page_maps,
            batching,
            fetch_priced,
            mem,
            stall: 0,
            generation: 0,
            uart_data: board.console.uart.map(|u| u.data),
            uart_status: board
                .console
                .uart
                .and_then(|u| u.status.map(|s| (s, u.status_ready))),
            console: Vec::new(),
            periph: Peripherals::new(&board.peripherals, board.core.clock_hz),
            strict_mmio: false,
            trace_mmio: false,
            drop_unmapped_writes: board.unmapped_writes == UnmappedWrites::Drop,
            dropped_writes: (Vec::new(), 0),
            psram_refitted: None,
            fetch_run: 0,
            static_maps,
            mmu,
            active_core: 0,
            illegal_regions: [0; 2],
        }
    }

    /// The MMU entry and window of `addr`, if it is in an MMU window.
    fn mmu_page(&self, addr: u32) -> Option<(u32, usize)> {
        let m = &self.mmu.as_ref()?.spec;
        m.windows
            .iter()
            .enumerate()
            .find_map(|(w, window)| Some((window.entry_of(addr, m.page)?, w)))
    }

    /// Write the MMU table as the bootloader leaves it: the pages the image was loaded into,
    /// in address order, mapped to consecutive flash pages from the app's flash offset (as
    /// `esptool elf2image` lays the segments out, up to its padding); every other entry invalid.
    pub fn hand_over_mmu(&mut self) {
        let Some(mmu) = self.mmu.as_mut() else {
            return;
        };
        let spec = &mmu.spec;
        let mut pages: Vec<(u32, u32)> = mmu
            .loaded
            .iter()
            .map(|&(i, w)| (spec.windows[w].page_address(i, spec.page), i))
            .collect();
        pages.sort_unstable();
        pages.dedup_by_key(|p| p.1);
        mmu.handover.fill(spec.invalid);
        let first = spec.flash_offset / spec.page;
        for (n, &(_, i)) in pages.iter().enumerate() {
            mmu.handover[i as usize] = (first + n as u32) & spec.page_mask;
        }
        let (table, handover) = (spec.table, mmu.handover.clone());
        for (i, v) in handover.into_iter().enumerate() {
            // The table lies in MMIO storage; `load` ignores protections.
            let _ = self.load(table + 4 * i as u32, &v.to_le_bytes());
        }
        self.remap();
    }

    /// Rebuild the MMU's mappings from the table's entries.
    fn remap(&mut self) {
        let Some(mmu) = self.mmu.as_ref() else {
            return;
        };
        let spec = mmu.spec.clone();
        let mut entries = vec![0u8; 4 * spec.entries as usize];
        if self.peek(spec.table, &mut entries).is_err() {
            return;
        }
        let entry = |i: usize| {
            u32::from_le_bytes([
                entries[4 * i],
                entries[4 * i + 1],
                entries[4 * i + 2],
                entries[4 * i + 3],
            ])
        };
        self.maps.truncate(self.static_maps);
        let per_page = (spec.page >> PAGE_SHIFT) as usize;
        for (w, window) in spec.windows.iter().enumerate() {
            let first_page = (window.base >> PAGE_SHIFT) as usize;
            let statics = &self.mmu.as_ref().expect("an MMU").static_pages[w];
            self.pages[first_page..first_page + statics.len()].copy_from_slice(statics);
            let end = (window.first + window.entries) as usize;
            let mut i = window.first as usize;
            while i < end {
                let Some((storage, offset, region)) = self.mmu_target(w, i, entry(i)) else {
                    i += 1;
                    continue;
                };
                let mut j = i + 1;
                while j < end
                    && self.mmu_target(w, j, entry(j))
                        == Some((storage, offset + (j - i) as u32 * spec.page, region))
                {
                    j += 1;
                }
                let model = &self.mem.regions[region];
                let idx = self.maps.len();
                self.maps.push(Mapping {
                    start: window.page_address(i as u32, spec.page),
                    len: (j - i) as u32 * spec.page,
                    storage,
                    offset,
                    region,
                    writable: Some(storage) != self.mmu.as_ref().and_then(|m| m.flash),
                    mmio: false,
                    priced: true,
                    fetch_priced: model.prices_fetch(),
                });
                let e = if idx + (PAGE_FIRST as usize) <= u8::MAX as usize {
                    self.page_maps[PAGE_FIRST as usize + idx] =
                        page_map(&self.maps[idx], &self.spans, &self.mem);
                    PAGE_FIRST + idx as u8
                } else {
                    PAGE_MIXED
                };
                let from = first_page + (i - window.first as usize) * per_page;
                self.pages[from..from + (j - i) * per_page].fill(e);
                i = j;
            }
        }
        self.generation += 1;
    }

    /// Where MMU entry `i` of window `w` with value `entry` maps its page when that differs from
    /// the board's own mapping: (storage, offset, region whose model prices it).
    fn mmu_target(&self, w: usize, i: usize, entry: u32) -> Option<(usize, u32, usize)> {
        let mmu = self.mmu.as_ref()?;
        let spec = &mmu.spec;
        if entry & spec.invalid != 0 || mmu.handover[i] == entry {
            return None;
        }
        let page = entry & spec.page_mask;
        let offset = page.checked_mul(spec.page)?;
        let fits =
            |storage: usize| offset as u64 + spec.page as u64 <= self.spans[storage].1 as u64;
        if entry & spec.psram != 0 {
            let psram = mmu.psram?;
            return fits(psram).then_some((psram, offset, psram));
        }
        // A flash page: where the image holds it, else the flash chip's page.
        let loaded = mmu
            .handover
            .iter()
            .position(|&h| h == entry)
            .and_then(|i| mmu.loaded.iter().find(|(k, _)| *k as usize == i));
        if let Some(&(k, lw)) = loaded {
            let vaddr = spec.windows[lw].page_address(k, spec.page);
            let (mi, off) = self.locate_static(vaddr)?;
            let m = &self.maps[mi];
            return Some((m.storage, off as u32, m.region));
        }
        let flash = mmu.flash.filter(|&f| fits(f))?;
        let (window, _) = self.locate_static(spec.windows[w].base)?;
        Some((flash, offset, self.maps[window].region))
    }

    /// Put a flash image (from offset 0) on the flash chip, the rest of it erased, and start the
    /// chip from power-on (its reset clock), as when it boots from that flash.
    pub fn load_flash(&mut self, image: &[u8]) -> Result<(), CoreError> {
        let flash = self.mmu.as_ref().and_then(|m| m.flash);
        let Some(flash) = flash.filter(|&f| image.len() <= self.spans[f].1) else {
            return Err(CoreError::Engine(format!(
                "a flash image of {} bytes does not fit the board's flash chip ({})",
                image.len(),
                flash.map_or("none".to_string(), |f| format!("{} bytes", self.spans[f].1))
            )));
        };
        let st = self.st_mut(flash);
        st[..image.len()].copy_from_slice(image);
        st[image.len()..].fill(0xFF);
        self.periph.attach_flash(image);
        self.periph.power_on();
        self.follow_clock_change();
        self.generation += 1;
        Ok(())
    }

    /// Price memory in cycles of the CPU clock the peripherals switched to, if they did.
    fn follow_clock_change(&mut self) {
        if let Some(hz) = self.periph.take_clock_change() {
            for r in &mut self.mem.regions {
                r.set_core_clock(hz);
            }
        }
    }

    /// `locate` among the board's own mappings.
    fn locate_static(&self, addr: u32) -> Option<(usize, usize)> {
        self.locate_in(0..self.static_maps, addr)
    }

    /// The first of `maps[range]` that covers `addr`, and the storage offset there.
    fn locate_in(&self, range: std::ops::Range<usize>, addr: u32) -> Option<(usize, usize)> {
        let i = range
            .into_iter()
            .find(|&i| addr.wrapping_sub(self.maps[i].start) < self.maps[i].len)?;
        let m = &self.maps[i];
        Some((i, (addr.wrapping_sub(m.start) + m.offset) as usize))
    }

    /// The bytes of storage `s`.
    #[inline(always)]
    fn st(&self, s: usize) -> &[u8] {
        let (base, len) = self.spans[s];
        &self.ram[base..base + len]
    }

    #[inline(always)]
    fn st_mut(&mut self, s: usize) -> &mut [u8] {
        let (base, len) = self.spans[s];
        &mut self.ram[base..base + len]
    }

    /// The mapping that covers the whole page of `addr`, if one does.
    #[inline(always)]
    fn page_mapping(&self, addr: u32) -> Option<&Mapping> {
        page_entry_map(self.pages[(addr >> PAGE_SHIFT) as usize]).map(|i| &self.maps[i])
    }

    #[inline(always)]
    fn locate(&self, addr: u32) -> Option<(usize, usize)> {
        let e = self.pages[(addr >> PAGE_SHIFT) as usize];
        if let Some(i) = page_entry_map(e) {
            let m = &self.maps[i];
            return Some((i, (addr.wrapping_sub(m.start) + m.offset) as usize));
        }
        if e == PAGE_NONE {
            return None;
        }
        self.locate_slow(addr)
    }

    /// The mapping of `addr` and the storage offset there: the MMU's mappings (after the
    /// board's) first, then the board's, the first one that covers it.
    #[cold]
    fn locate_slow(&self, addr: u32) -> Option<(usize, usize)> {
        self.locate_in(self.static_maps..self.maps.len(), addr)
            .or_else(|| self.locate_static(addr))
    }

    /// Loader and debugger access: ignores protections, not priced.
    pub fn load(&mut self, addr: u32, bytes: &[u8]) -> Result<(), CoreError> {
        let mut done = 0;
        while done < bytes.len() {
            let a = addr.wrapping_add(done as u32);
            let (mi, off) = self.locate(a).ok_or(CoreError::Unmapped {
                addr: a,
                len: bytes.len() - done,
            })?;
            let (s, end) = (self.maps[mi].storage, self.maps[mi].storage_end());
            let n = (end - off).min(bytes.len() - done);
            self.st_mut(s)[off..off + n].copy_from_slice(&bytes[done..done + n]);
            if let Some(page) = self.mmu_page(a) {
                let last = self.mmu_page(a + n as u32 - 1).map_or(page.0, |p| p.0);
                let loaded = &mut self.mmu.as_mut().expect("an MMU page").loaded;
                for i in page.0..=last {
                    if !loaded.contains(&(i, page.1)) {
                        loaded.push((i, page.1));
                    }
                }
            }
            done += n;
        }
        self.generation += 1;
        Ok(())
    }

    pub fn peek(&self, addr: u32, buf: &mut [u8]) -> Result<(), CoreError> {
        let mut done = 0;
        while done < buf.len() {
            let a = addr.wrapping_add(done as u32);
            let (mi, off) = self.locate(a).ok_or(CoreError::Unmapped {
                addr: a,
                len: buf.len() - done,
            })?;
            let m = &self.maps[mi];
            let st = &self.st(m.storage)[..m.storage_end()];
            let n = (st.len() - off).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&st[off..off + n]);
            done += n;
        }
        Ok(())
    }

    /// Region index of `addr`, if mapped.
    pub fn region_of(&self, addr: u32) -> Option<usize> {
        self.locate(addr).map(|(mi, _)| self.maps[mi].region)
    }

    #[cold]
    fn mmio_read(
        &mut self,
        mi: usize,
        off: usize,
        addr: u32,
        size: u32,
        now: u64,
    ) -> Result<u32, BusFault> {
        let value = match self.periph.read(addr, size, now) {
            Some(v) => v,
            None => match self.uart_status {
                Some((status, ready)) if addr == status => ready,
                _ => {
                    let v = self.plain_read(mi, off, size);
                    self.periph.watch_poll(addr, v);
                    v
                }
            },
        };
        if self.strict_mmio && self.periph.has_polls() {
            return Err(BusFault { addr });
        }
        if self.trace_mmio {
            self.periph.trace(now, false, size, addr, value);
        }
        Ok(value)
    }

    /// The firmware's driver made the board fit a PSRAM chip of `mode`: its cache line fills and
    /// write-backs are transactions of that mode from now on.
    #[cold]
    fn refit_psram(&mut self, mode: String) {
        let Some(spi_mode) = SpiMode::from_name(&mode) else {
            return;
        };
        for r in self.mem.regions.iter_mut() {
            match r.spec.spi {
                Some(spi) if r.spec.kind == RegionKind::Psram => {
                    let was = spi.mode.name().to_string();
                    r.refit(spi.refitted(RegionKind::Psram, spi_mode));
                    self.psram_refitted = Some((r.spec.name.clone(), was, mode.clone()));
                }
                _ => {}
            }
        }
    }

    #[cold]
    fn mmio_write(&mut self, mi: usize, off: usize, addr: u32, size: u32, value: u32, now: u64) {
        if self.trace_mmio {
            self.periph.trace(now, true, size, addr, value);
        }
        if self.periph.write(addr, size, value, now) {
            self.console.append(&mut self.periph.console);
            if let Some(mode) = self.periph.take_psram_refit() {
                self.refit_psram(mode);
            }
            self.follow_clock_change();
            return;
        }
        if Some(addr) == self.uart_data {
            self.console.push(value as u8);
            return;
        }
        self.plain_write(mi, off, size, value);
        if let Some(m) = self.mmu.as_ref().map(|m| &m.spec) {
            if addr.wrapping_sub(m.table) < 4 * m.entries {
                self.remap();
            }
        }
    }

    #[inline(always)]
    fn plain_read(&self, mi: usize, off: usize, size: u32) -> u32 {
        let st = self.st(self.maps[mi].storage);
        if off + 4 <= st.len() {
            let w = u32::from_le_bytes([st[off], st[off + 1], st[off + 2], st[off + 3]]);
            match size {
                1 => w & 0xFF,
                2 => w & 0xFFFF,
                _ => w,
            }
        } else {
            let mut v = 0;
            for i in 0..size as usize {
                v |= (*st.get(off + i).unwrap_or(&0) as u32) << (8 * i);
            }
            v
        }
    }

    #[inline(always)]
    fn plain_write(&mut self, mi: usize, off: usize, size: u32, value: u32) {
        let s = self.maps[mi].storage;
        let st = self.st_mut(s);
        let n = (size as usize).min(st.len() - off);
        st[off..off + n].copy_from_slice(&value.to_le_bytes()[..n]);
        if self.holds_code(self.spans[s].0 + off) {
            self.code_written(s);
        }
    }

    /// Whether instructions were decoded from the chunk of `ram[at]`.
    #[inline(always)]
    fn holds_code(&self, at: usize) -> bool {
        let c = at >> 8;
        self.code[c >> 6] & (1 << (c & 63)) != 0
    }

    /// Memory that instructions were decoded from was written: forget the marks, new generation.
    #[cold]
    fn code_written(&mut self, storage: usize) {
        let (base, len) = self.spans[storage];
        let words = base / CODE_WORD_BYTES..(base + len).div_ceil(CODE_WORD_BYTES);
        self.code[words].fill(0);
        self.generation += 1;
    }

    /// Price (or, where it costs nothing, only count) a data access on the fast path through
    /// page-table entry `e`, made at cycle `now` (before this block's stalls so far).
    #[inline(always)]
    fn data_access(&mut self, e: usize, addr: u32, size: u32, write: bool, now: u64) {
        let m = &mut self.page_maps[e];
        if m.priced {
            self.mem.set_now(now + self.stall);
            self.stall += self.mem.data_access(m.region as usize, addr, size, write) as u64;
        } else if self.mem.has_watches() {
            self.mem.set_now(now + self.stall);
            self.mem
                .count_unpriced_access(m.region as usize, addr, size, write);
        } else if matches!(size, 1 | 2 | 4) {
            m.accesses.0[Accesses::index(size, write)] += 1;
        } else {
            let mut one = Traffic::default();
            one.add(size, write);
            self.mem.count_unpriced_traffic(m.region as usize, one);
        }
    }

    /// Hand the traffic counted in `PageMap::accesses` to the memory system, charged to the current
    /// owner. Done whenever the owner changes and by `XtensaBackend` at the end of each run, so
    /// that the memory system's counters are complete whenever anyone else can read them.
    pub fn flush_traffic(&mut self) {
        for &e in &self.batching {
            let m = &mut self.page_maps[e as usize];
            let accesses = std::mem::take(&mut m.accesses);
            // Not `!=`, which calls `memcmp` for the array.
            if accesses.0.iter().fold(0, |any, &n| any | n) != 0 {
                self.mem
                    .count_unpriced_traffic(m.region as usize, accesses.traffic());
            }
        }
    }

    /// Any data read: MMIO, the ends of regions, pages shared by mappings, unmapped addresses.
    #[inline(never)]
    fn read_general(&mut self, addr: u32, size: u32, now: u64) -> Result<u32, BusFault> {
        let (mi, off) = self.locate(addr).ok_or(BusFault { addr })?;
        let m = self.maps[mi];
        if m.mmio {
            return self.mmio_read(mi, off, addr, size, now);
        }
        if off + size as usize > m.storage_end() {
            return Err(BusFault {
                addr: m.start.wrapping_add(m.len),
            });
        }
        if m.priced {
            self.mem.set_now(now + self.stall);
            self.stall += self.mem.data_access(m.region, addr, size, false) as u64;
        }
        Ok(self.plain_read(mi, off, size))
    }

    /// Any data write (see `read_general`).
    #[inline(never)]
    fn write_general(
        &mut self,
        addr: u32,
        size: u32,
        value: u32,
        now: u64,
    ) -> Result<(), BusFault> {
        let Some((mi, off)) = self.locate(addr) else {
            let illegal = self.illegal_regions[self.active_core] & (1 << (addr >> 29)) != 0;
            if !self.drop_unmapped_writes || illegal {
                return Err(BusFault { addr });
            }
            let (kept, count) = &mut self.dropped_writes;
            *count += 1;
            if kept.len() < DROPPED_KEPT && !kept.contains(&addr) {
                kept.push(addr);
            }
            return Ok(());
        };
        let m = self.maps[mi];
        if !m.writable || off + size as usize > m.storage_end() {
            return Err(BusFault { addr });
        }
        if m.mmio {
            self.mmio_write(mi, off, addr, size, value, now);
            return Ok(());
        }
        if m.priced {
            self.mem.set_now(now + self.stall);
            self.stall += self.mem.data_access(m.region, addr, size, true) as u64;
        }
        self.plain_write(mi, off, size, value);
        Ok(())
    }
}

impl XtensaBus for EspBus {
    #[inline(always)]
    fn set_owner(&mut self, owner: usize) {
        self.flush_traffic();
        self.mem.set_owner(owner);
    }

    #[inline(always)]
    fn interrupt_epoch(&self) -> u64 {
        // A debugger's watchpoint seeing an access changes it too, which stops the run.
        self.periph
            .interrupt_epoch()
            .wrapping_add(self.mem.stop_hits())
    }

    fn interrupt_lines(&mut self) -> u32 {
        self.periph.interrupt_lines(self.active_core)
    }

    fn stop_requested(&self) -> bool {
        self.periph.reset_requested().is_some() || self.mem.has_stop_hit()
    }

    fn set_illegal_regions(&mut self, regions: u8) {
        self.illegal_regions[self.active_core] = regions;
    }

    #[inline(always)]
    fn read(&mut self, addr: u32, size: u32) -> Result<u32, BusFault> {
        self.read_at(addr, size, 0)
    }

    #[inline(always)]
    fn write(&mut self, addr: u32, size: u32, value: u32) -> Result<(), BusFault> {
        self.write_at(addr, size, value, 0)
    }

    #[inline(always)]
    fn read_at(&mut self, addr: u32, size: u32, now: u64) -> Result<u32, BusFault> {
        // Fast path: a page wholly inside one priced RAM/ROM mapping, 4 bytes readable at `off`.
        let e = self.pages[(addr >> PAGE_SHIFT) as usize] as usize;
        let m = &self.page_maps[e];
        let off = addr.wrapping_sub(m.start);
        if off < m.read_end {
            let off = off as usize;
            let at = m.base as usize + off;
            if let Some(b) = self.ram.get(at..at + 4) {
                let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                self.data_access(e, addr, size, false, now);
                return Ok(match size {
                    1 => w & 0xFF,
                    2 => w & 0xFFFF,
                    _ => w,
                });
            }
        }
        self.read_general(addr, size, now)
    }

    #[inline(always)]
    fn write_at(&mut self, addr: u32, size: u32, value: u32, now: u64) -> Result<(), BusFault> {
        let e = self.pages[(addr >> PAGE_SHIFT) as usize] as usize;
        let m = &self.page_maps[e];
        let (storage, base) = (m.storage as usize, m.base as usize);
        let off = addr.wrapping_sub(m.start);
        if off < m.write_end {
            let off = off as usize;
            if let Some(b) = self.ram.get_mut(base + off..base + off + 4) {
                match size {
                    1 => b[0] = value as u8,
                    2 => b[..2].copy_from_slice(&(value as u16).to_le_bytes()),
                    _ => b.copy_from_slice(&value.to_le_bytes()),
                }
                self.data_access(e, addr, size, true, now);
                if self.holds_code(base + off) {
                    self.code_written(storage);
                }
                return Ok(());
            }
        }
        self.write_general(addr, size, value, now)
    }

    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        let (mi, off) = self.locate(addr).ok_or(BusFault { addr })?;
        let m = self.maps[mi];
        let base = self.spans[m.storage].0;
        for at in [off, (off + 3).min(m.storage_end() - 1)] {
            let c = (base + at) >> 8;
            self.code[c >> 6] |= 1 << (c & 63);
        }
        Ok(self.plain_read(mi, off, 4))
    }

    #[inline(always)]
    fn block_fetch(&mut self, pc: u32, len: u32, now: u64) {
        if self.fetch_priced.is_empty() {
            return;
        }
        // Code in a page of a mapping whose fetches cost nothing (SRAM): nothing to price.
        if let Some(m) = self.page_mapping(pc) {
            if !m.fetch_priced {
                return;
            }
        }
        self.price_fetch(pc, len, now);
    }

    fn fetch_priced(&self, pc: u32) -> bool {
        // Mirrors the early returns of `block_fetch`; the page table and mappings are fixed.
        if self.fetch_priced.is_empty() {
            return false;
        }
        !matches!(self.page_mapping(pc), Some(m) if !m.fetch_priced)
    }

    #[inline(always)]
    fn take_stall_cycles(&mut self) -> u64 {
        std::mem::take(&mut self.stall)
    }

    #[inline(always)]
    fn code_generation(&self) -> u64 {
        self.generation
    }

    /// `None` while every access must reach the memory system (a watch or an observer sees them).
    fn data_view(&mut self) -> Option<DataView> {
        if self.mem.has_watches() {
            return None;
        }
        Some(DataView {
            pages: self.pages.as_ptr(),
            page_maps: self.page_maps.as_mut_ptr(),
            ram: self.ram.as_mut_ptr(),
            code: self.code.as_ptr(),
        })
    }
}

impl EspBus {
    /// Price the fetch units a block of `len` bytes at `pc` touches, when its region has a model.
    /// Each unit is assumed to occupy the core about one cycle per 3 bytes (the instruction size of
    /// most code) before the next one is needed, for the prefetch model.
    #[inline(never)]
    fn price_fetch(&mut self, pc: u32, len: u32, now: u64) {
        let region = match self.page_mapping(pc) {
            Some(m) if !m.fetch_priced => return,
            Some(m) => m.region,
            None => match self
                .fetch_priced
                .iter()
                .find(|(s, e, _)| pc >= *s && (pc as u64) < *e)
            {
                Some(&(_, _, region)) => region,
                None => return,
            },
        };
        let unit = self.mem.regions[region].fetch_unit().max(4);
        let first = pc & !(unit - 1);
        let last = pc.wrapping_add(len.max(1) - 1) & !(unit - 1);
        let mut u = first;
        loop {
            self.mem.set_now(now + self.stall);
            self.stall += self.mem.fetch(region, u, self.fetch_run) as u64;
            self.fetch_run = unit / 3;
            if u == last {
                break;
            }
            u = u.wrapping_add(unit);
        }
    }
}

/// A trapped call the simulator completed; reported to the observer at the start of the next run.
#[derive(Clone, Copy)]
struct EmulatedCall {
    pc: u32,
    return_to: u32,
    cycles: u64,
    instructions: u64,
}

/// Hooks of the ISS turned into observer events.
/// The core's hooks as the observer sees them: `O` is the profiler (`dyn ExecObserver`), or
/// `NoObserver` where nothing is profiled, whose calls then compile to nothing.
struct Bridge<'o, O: ExecObserver + ?Sized> {
    observer: &'o mut O,
    flow: Option<Flow>,
    /// Last dispatched exception: (cause, raising PC, vector).
    last_exception: Option<(u32, u32, u32)>,
    /// The observer's `quiet_jumps` range: plain jumps into it are not reported.
    quiet: (u32, u32),
    /// The observer's `memory_owner`, asked after each reported block.
    owner: usize,
}

impl<'o, O: ExecObserver + ?Sized> Bridge<'o, O> {
    /// A bridge for a run outside the main profile: the second core's (`NoObserver` when it is not
    /// profiled).
    fn aside(observer: &'o mut O) -> Self {
        Bridge {
            quiet: observer.quiet_jumps(),
            owner: observer.memory_owner(),
            observer,
            flow: None,
            last_exception: None,
        }
    }
}

impl<O: ExecObserver + ?Sized> XtensaHooks for Bridge<'_, O> {
    #[inline(always)]
    fn block_start(&mut self, pc: u32, cycles: u64, insns: u64) -> bool {
        // The common case, a plain jump or fall-through within the quiet range, only reads.
        if self.skips_block_start(pc) {
            return false;
        }
        let flow = self.flow.take().unwrap_or(Flow::Jump);
        self.observer.block(pc, flow, cycles, insns);
        self.quiet = self.observer.quiet_jumps();
        self.owner = self.observer.memory_owner();
        true
    }
    #[inline(always)]
    fn skips_block_start(&self, pc: u32) -> bool {
        self.flow.is_none() && pc >= self.quiet.0 && pc < self.quiet.1
    }
    #[inline(always)]
    fn quiet_range(&self) -> (u32, u32) {
        if self.flow.is_none() {
            self.quiet
        } else {
            (0, 0)
        }
    }
    #[inline(always)]
    fn memory_owner(&self) -> usize {
        self.owner
    }
    #[inline(always)]
    fn call(&mut self, _from: u32, return_to: u32, _to: u32, _window: u32) {
        self.flow = Some(Flow::Call { return_to });
    }
    #[inline(always)]
    fn ret(&mut self, _from: u32, _to: u32) {
        self.flow = Some(Flow::Return);
    }
    fn exception(&mut self, cause: u32, pc: u32, vector: u32) {
        self.flow = Some(Flow::ExceptionEntry { number: cause });
        self.last_exception = Some((cause, pc, vector));
    }
    fn exception_return(&mut self, _from: u32, _to: u32) {
        self.flow = Some(Flow::ExceptionReturn);
    }
}

/// Name of an exception as the hooks number it (EXCCAUSE, 64 + level, 96 + window vector offset).
pub fn exception_name(code: u32, cfg: &XtensaConfig) -> String {
    let v = &cfg.vec;
    match code {
        cause::ILLEGAL => "IllegalInstruction".into(),
        cause::SYSCALL => "Syscall".into(),
        cause::INSTR_FETCH_ERROR => "InstructionFetchError".into(),
        cause::LOAD_STORE_ERROR => "LoadStoreError".into(),
        cause::LEVEL1_INTERRUPT => "Level1Interrupt".into(),
        cause::ALLOCA => "Alloca (MOVSP)".into(),
        cause::DIVIDE_BY_ZERO => "IntegerDivideByZero".into(),
        cause::PRIVILEGED => "Privileged".into(),
        cause::LOAD_STORE_ALIGNMENT => "LoadStoreAlignment".into(),
        20 => "InstFetchProhibited".into(),
        cause::LOAD_PROHIBITED => "LoadProhibited".into(),
        cause::STORE_PROHIBITED => "StoreProhibited".into(),
        c if (32..40).contains(&c) => format!("Coprocessor{}Disabled", c - 32),
        c if (64..72).contains(&c) => format!("level-{} interrupt", c - 64),
        c if c >= 96 => {
            let off = c - 96;
            let name = [
                (v.window_overflow4, "WindowOverflow4"),
                (v.window_underflow4, "WindowUnderflow4"),
                (v.window_overflow8, "WindowOverflow8"),
                (v.window_underflow8, "WindowUnderflow8"),
                (v.window_overflow12, "WindowOverflow12"),
                (v.window_underflow12, "WindowUnderflow12"),
            ]
            .into_iter()
            .find(|(o, _)| *o == off)
            .map(|(_, n)| n)
            .unwrap_or("window");
            format!("{name} exception")
        }
        c => format!("exception cause {c}"),
    }
}

fn fault_kind_of_cause(code: u32) -> FaultKind {
    match code {
        cause::ILLEGAL => FaultKind::UndefinedInstruction,
        cause::INSTR_FETCH_ERROR | 20 => FaultKind::BadFetch,
        cause::LOAD_STORE_ERROR | cause::LOAD_PROHIBITED => FaultKind::BadRead,
        cause::STORE_PROHIBITED => FaultKind::BadWrite,
        cause::LOAD_STORE_ALIGNMENT | cause::DIVIDE_BY_ZERO | cause::PRIVILEGED => {
            FaultKind::UsageFault
        }
        _ => FaultKind::UnhandledException,
    }
}

/// First byte of every ENTRY instruction (op0 = 6, n = 3, m = 0; S2 libisa).
const ENTRY_BYTE0: u8 = 0x36;

/// Cycles the two cores of a dual-core chip run in turn while both run: each sees the other's
/// stores at the latest this long after they happen. ASSUMPTION: a granularity fine enough for
/// start-up handshakes and spinlocks, coarse enough to cost little; the chips' cores run truly in
/// parallel.
const CORE_QUANTUM: u64 = 1_000;
/// How long the first core runs between looks at the second core's start bits while that one is
/// held in reset, stalled or ungated (the start is seen this many cycles late at most).
const START_WATCH: u64 = 100_000;

/// The chip's second core (the APP CPU): its own architectural state and decoded blocks on the
/// shared bus, and its flat profile when the machine asked for one (`profile_other_cores`).
struct SecondCpu {
    spec: SecondCore,
    iss: Xtensa,
    /// Clock on, reset released and stall off at the last look.
    running: bool,
    /// Held in reset since the last look: the next start begins at the reset vector.
    in_reset: bool,
    /// Why it stopped for good (a fault or a stop it cannot go past).
    halted: Option<String>,
    /// The first core's cycle count when this one last left reset.
    started_at: u64,
    profile: Option<crate::flat::FlatProfile>,
}

/// Xtensa core of an Espressif board (ESP32-S3 LX7, ESP32 LX6, ESP8266 LX106).
pub struct XtensaBackend {
    pub iss: Xtensa,
    pub bus: EspBus,
    /// Flow of the next block (after an emulated call returns).
    pending_flow: Option<Flow>,
    pending_call: Option<EmulatedCall>,
    rom_regions: Vec<usize>,
    second: Option<SecondCpu>,
    /// Addresses of the emulation's traps and of a debugger's breakpoints, which share the ISS's
    /// breakpoints.
    pub(super) traps: HashSet<u32>,
    pub(super) debug_breakpoints: HashSet<u32>,
}

impl XtensaBackend {
    /// The bytes at `addr` an instruction is decoded from (fewer near the end of a region).
    fn instruction_word(&self, addr: u32) -> Option<u32> {
        self.word(addr).or_else(|| {
            let mut b = [0u8; 3];
            self.bus.peek(addr, &mut b).ok()?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], 0]))
        })
    }

    pub fn new(board: &Board) -> Result<Self, CoreError> {
        let cfg = match board.core.kind {
            CoreKind::XtensaLx7 => XtensaConfig::esp32s3(),
            CoreKind::XtensaLx6 => XtensaConfig::esp32(),
            CoreKind::XtensaLx106 => XtensaConfig::esp8266(),
            other => {
                return Err(CoreError::Engine(format!(
                    "{} is not an Xtensa core",
                    other.name()
                )))
            }
        };
        let new_core = || {
            let mut iss = Xtensa::new(cfg.clone());
            iss.cpu.break_stops = true;
            iss.cpu.bus_fault_exceptions = false;
            iss.cpu.stop_on_double_exception = true;
            iss
        };
        let iss = new_core();
        let second = board.second_core.clone().map(|spec| SecondCpu {
            spec,
            iss: new_core(),
            running: false,
            in_reset: true,
            halted: None,
            started_at: 0,
            profile: None,
        });
        let bus = EspBus::new(board);
        let rom_regions = board
            .regions
            .iter()
            .enumerate()
            .filter(|(_, r)| r.kind == RegionKind::Rom)
            .map(|(i, _)| i)
            .collect();
        Ok(XtensaBackend {
            iss,
            bus,
            pending_flow: None,
            pending_call: None,
            rom_regions,
            second,
            traps: HashSet::new(),
            debug_breakpoints: HashSet::new(),
        })
    }

    /// Compile hot blocks of both cores to host code, or interpret everything
    /// (`Xtensa::set_block_compiler`).
    pub fn set_block_compiler(&mut self, on: bool) {
        self.iss.set_block_compiler(on);
        if let Some(second) = &mut self.second {
            second.iss.set_block_compiler(on);
        }
    }

    /// The second core's instruction-set simulator, on a dual-core chip.
    pub(super) fn second_cpu(&self) -> Option<&Xtensa> {
        self.second.as_ref().map(|s| &s.iss)
    }

    /// Look at the second core's clock, reset and stall bits and its software stall: a core that
    /// leaves reset starts at its reset vector with its own PRID.
    fn watch_second_core(&mut self) {
        let Some(s) = self.second.as_mut() else {
            return;
        };
        let word = |register: u32| self.bus.periph.peek(register).unwrap_or(0);
        let bit = |b: tigris_targets::RegisterBit| word(b.register) & (1 << b.bit) != 0;
        let sw_stall = &s.spec.sw_stall;
        let stalled_by_software =
            !sw_stall.is_empty() && sw_stall.iter().all(|f| f.holds(word(f.register)));
        let (clock, reset, stall) = (
            bit(s.spec.clock),
            bit(s.spec.reset),
            bit(s.spec.stall) || stalled_by_software,
        );
        if reset {
            s.in_reset = true;
        }
        let run = clock && !reset && !stall;
        if run && s.in_reset {
            s.iss.reset();
            let cpu = &mut s.iss.cpu;
            cpu.prid = s.spec.prid;
            // It starts where the first core is in time, not at cycle 0.
            cpu.cycles = self.iss.cpu.cycles;
            s.started_at = cpu.cycles;
            if let Some(p) = s.profile.as_mut() {
                p.restart_at(cpu.cycles, cpu.insns);
            }
            s.in_reset = false;
            s.halted = None;
        }
        s.running = run;
    }

    /// Whether the second core takes turns with the first.
    fn second_runs(&self) -> bool {
        self.second
            .as_ref()
            .is_some_and(|s| s.running && s.halted.is_none())
    }

    /// Run the second core up to the first core's cycle count (not profiled).
    fn run_second_core(&mut self) {
        let Some(s) = self.second.as_mut() else {
            return;
        };
        let target = self.iss.cpu.cycles;
        if s.iss.cpu.cycles >= target {
            return;
        }
        self.bus.active_core = 1;
        // The first core runs on: it may interrupt this one.
        s.iss.cpu.external_wake = self.bus.periph.routes_interrupts();
        let budget = target - s.iss.cpu.cycles;
        let stop = match s.profile.as_mut() {
            Some(p) => s
                .iss
                .run(&mut self.bus, &mut Bridge::aside(p), u64::MAX, budget),
            None => s.iss.run(
                &mut self.bus,
                &mut Bridge::aside(&mut crate::NoObserver),
                u64::MAX,
                budget,
            ),
        };
        self.bus.active_core = 0;
        match stop {
            StopReason::CycleLimit { .. }
            | StopReason::InsnLimit { .. }
            | StopReason::BusRequest { .. } => {}
            other => s.halted = Some(format!("{other:?} at 0x{:08x}", s.iss.cpu.pc)),
        }
    }

    fn cfg(&self) -> &XtensaConfig {
        &self.iss.cpu.cfg
    }

    fn word(&self, addr: u32) -> Option<u32> {
        let mut b = [0u8; 4];
        self.bus.peek(addr, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }

    fn insn_text(&self, pc: u32) -> String {
        self.disassemble(pc)
            .map(|t| format!(" (`{t}`)"))
            .unwrap_or_default()
    }

    /// The PIE mnemonic at `pc` if it is one the ISS decodes but does not execute (`pie::not_executed`).
    fn pie_not_executed(&self, pc: u32) -> Option<String> {
        let w = self.word(pc)?;
        super::pie::not_executed(&decode(w, pc, self.cfg()))
    }

    fn in_rom(&self, addr: u32) -> bool {
        self.bus
            .region_of(addr)
            .is_some_and(|r| self.rom_regions.contains(&r))
    }

    /// Turn an exception that reached an empty vector into the fault the firmware ran into.
    fn unhandled(&self, code: u32, pc: u32, vaddr: Option<u32>, vector: u32, why: &str) -> Stop {
        let cfg = self.cfg();
        let name = exception_name(code, cfg);
        let kind = fault_kind_of_cause(code);
        let insn = self.insn_text(pc);
        let address = match kind {
            FaultKind::BadRead | FaultKind::BadWrite | FaultKind::BadFetch => vaddr,
            _ => None,
        };
        let what = match kind {
            FaultKind::UndefinedInstruction => match self.pie_not_executed(pc) {
                Some(name) => format!(
                    "illegal instruction at 0x{pc:08x}{insn}; the ESP32-S3 PIE opcode {name} is decoded but not \
                     implemented by this simulator"
                ),
                None => format!("illegal instruction at 0x{pc:08x}{insn}"),
            },
            _ => format!("raised by 0x{pc:08x}{insn}"),
        };
        let vaddr_text = address
            .map(|v| format!(", EXCVADDR 0x{v:08x}"))
            .unwrap_or_default();
        // Window exceptions and high-level interrupts have no EXCCAUSE (S3 QEMU exc_helper.c, win_helper.c).
        let cause_text = if code < 64 {
            format!(" (EXCCAUSE {code})")
        } else {
            String::new()
        };
        Stop::Fault(Fault {
            kind,
            pc,
            address,
            detail: format!("{what}{vaddr_text}: {name}{cause_text}, vector 0x{vector:08x} {why}"),
        })
    }

    fn map_stop(&mut self, stop: StopReason, last_exception: Option<(u32, u32, u32)>) -> Stop {
        let cpu = &self.iss.cpu;
        // A stop on the first instruction of the vector the last exception went to: no handler.
        let at_vector = |pc: u32| last_exception.filter(|e| e.2 == pc);
        match stop {
            StopReason::InsnLimit { .. } | StopReason::CycleLimit { .. } => Stop::Budget,
            StopReason::BusRequest { .. } => match self.bus.periph.reset_requested() {
                Some(by) => Stop::Reset { by: by.to_string() },
                None => self.watchpoint_stop().unwrap_or(Stop::Budget),
            },
            StopReason::Simcall { .. } => Stop::Semihosting,
            StopReason::Breakpoint { pc } => self.breakpoint_stop(pc),
            StopReason::WaitI { pc, level } => {
                let never = "and no enabled interrupt source can ever wake it";
                // WAITI stops with the PC after it, often a `j` back to it: not a spin.
                match self.disassemble(pc) {
                    Some(text) if text == format!("j 0x{pc:08x}") => Stop::Fault(Fault {
                        kind: FaultKind::EndlessLoop,
                        pc,
                        address: None,
                        detail: format!("the core branches to itself at 0x{pc:08x} {never}"),
                    }),
                    _ => Stop::Idle {
                        pc,
                        detail: format!(
                            "the core waits for an interrupt (WAITI {level}) at 0x{pc:08x} {never}"
                        ),
                    },
                }
            }
            StopReason::Break { pc, s, t, .. } => {
                if let Some((code, from, vector)) = at_vector(pc) {
                    let vaddr = Some(cpu.excvaddr);
                    return self.unhandled(
                        code,
                        from,
                        vaddr,
                        vector,
                        &format!("runs the firmware's stop handler (`break {s}, {t}`)"),
                    );
                }
                Stop::Fault(Fault {
                    kind: FaultKind::Breakpoint,
                    pc,
                    address: None,
                    detail: format!(
                        "BREAK {s}, {t} at 0x{pc:08x} with no debugger attached (a2 = 0x{:08x})",
                        cpu.ar(2)
                    ),
                })
            }
            StopReason::Exception {
                cause: code,
                pc,
                vaddr,
                double,
            } => {
                if let Some((first, from, vector)) = at_vector(pc) {
                    let why = if self.in_rom(vector) {
                        "is in the mask ROM, which the simulator does not load: the firmware installed no handler (VECBASE)"
                    } else {
                        "holds no handler"
                    };
                    let v = if matches!(
                        fault_kind_of_cause(first),
                        FaultKind::BadRead | FaultKind::BadWrite | FaultKind::BadFetch
                    ) {
                        Some(cpu.excvaddr)
                    } else {
                        None
                    };
                    return self.unhandled(first, from, v, vector, why);
                }
                let mut s = self.unhandled(code, pc, Some(vaddr), pc, "");
                if let Stop::Fault(f) = &mut s {
                    let ctx = if double {
                        "double exception (raised while PS.EXCM = 1"
                    } else {
                        "exception ("
                    };
                    f.detail = format!(
                        "{} at 0x{pc:08x}{}: {ctx}, no handler can run)",
                        exception_name(code, self.cfg()),
                        self.insn_text(pc)
                    );
                }
                s
            }
            StopReason::BusFault { pc, addr, kind } => {
                if let Some((code, from, vector)) = at_vector(pc) {
                    let _ = code;
                    return self.unhandled(
                        code,
                        from,
                        Some(cpu.excvaddr),
                        vector,
                        &format!("is at 0x{addr:08x}, where no memory is mapped"),
                    );
                }
                let insn = self.insn_text(pc);
                if kind == AccessKind::Read && self.bus.strict_mmio && self.bus.periph.covers(addr)
                {
                    let register = self.bus.periph.register_name(addr);
                    return Stop::Fault(Fault {
                        kind: FaultKind::EndlessLoop,
                        pc,
                        address: Some(addr),
                        detail: format!(
                            "--strict-mmio: the firmware polls {register} (0x{addr:08x}) without progress{insn}: the \
                             register never changes here; the peripheral behaviour it waits for is not modelled"
                        ),
                    });
                }
                let (fk, detail) = match kind {
                    AccessKind::Fetch => {
                        (FaultKind::BadFetch, format!("instruction fetch from 0x{addr:08x}, which no memory region of the board covers"))
                    }
                    AccessKind::Read => (
                        FaultKind::BadRead,
                        format!("read from 0x{addr:08x}, which no memory region of the board covers{insn}"),
                    ),
                    AccessKind::Write => (
                        FaultKind::BadWrite,
                        format!("write to 0x{addr:08x}, which is unmapped or read-only{insn}"),
                    ),
                };
                Stop::Fault(Fault {
                    kind: fk,
                    pc,
                    address: Some(addr),
                    detail,
                })
            }
        }
    }
}

impl Core for XtensaBackend {
    fn write_memory(&mut self, addr: u32, data: &[u8]) -> Result<(), CoreError> {
        self.bus.load(addr, data)?;
        self.iss.invalidate_all();
        Ok(())
    }

    fn read_memory(&self, addr: u32, buf: &mut [u8]) -> Result<(), CoreError> {
        self.bus.peek(addr, buf)
    }

    fn load_flash(&mut self, image: &[u8]) -> Result<(), CoreError> {
        self.bus.load_flash(image)?;
        self.iss.invalidate_all();
        Ok(())
    }

    fn reset_vector(&self) -> Option<u32> {
        Some(self.iss.cpu.cfg.reset_vector)
    }

    fn reset(&mut self, entry: Entry) -> Result<(), CoreError> {
        self.iss.reset();
        // The state a boot loader leaves: interrupts and EXCM off; on the windowed cores, window
        // exceptions on and the entry reached as by a CALL4 from a frame whose stack is at `sp`
        // (ESP-IDF's bootloader calls the app's `call_start_cpu0` from its own frames). The
        // entry's ENTRY then sits above a live caller window, which an overflow spills through the
        // base save area below the entry's frame; that keeps the spill chain valid: the entry's
        // own CALL8/CALL12 spill reads its caller's stack pointer from there (the standard window
        // overflow handlers of ESP-IDF, S11). The entry's a0 stays 0, where backtraces end.
        // CALL0-ABI code (no ENTRY) runs with PS.CALLINC 0, where it reads its arguments.
        let mut first = [0u8];
        let windowed_entry = self.bus.peek(entry.pc, &mut first).is_ok() && first[0] == ENTRY_BYTE0;
        let cpu = &mut self.iss.cpu;
        if cpu.cfg.windowed {
            let callinc = u32::from(windowed_entry) << super::cpu::PS_CALLINC_SHIFT;
            cpu.set_ps(PS_WOE | callinc);
        } else {
            cpu.set_ps(0);
        }
        cpu.set_ar(1, entry.sp);
        cpu.pc = entry.pc;
        self.bus.hand_over_mmu();
        Ok(())
    }

    fn run(&mut self, budget: Budget, observer: &mut dyn ExecObserver) -> Result<Stop, CoreError> {
        if let Some(c) = self.pending_call.take() {
            observer.block(
                c.pc,
                Flow::Call {
                    return_to: c.return_to,
                },
                c.cycles,
                c.instructions,
            );
        }
        let (quiet, owner) = (observer.quiet_jumps(), observer.memory_owner());
        self.bus.mem.set_owner(owner);
        let mut bridge = Bridge {
            observer,
            flow: self.pending_flow.take(),
            last_exception: None,
            quiet,
            owner,
        };
        let (mut insns_left, mut cycles_left) = (budget.instructions, budget.cycles);
        let stop = loop {
            // Without a second core the first one runs its whole budget in one go, or up to the
            // next peripheral alarm, which must raise its interrupt on time.
            let slice = match &self.second {
                None => cycles_left,
                Some(_) if self.second_runs() => cycles_left.min(CORE_QUANTUM),
                Some(_) => cycles_left.min(START_WATCH),
            };
            let alarm = self.bus.periph.next_event();
            let slice = alarm.map_or(slice, |due| {
                slice.min(due.saturating_sub(self.iss.cpu.cycles).max(1))
            });
            // A WAITI with no timer of the core's own can end only by the other core or an alarm.
            self.iss.cpu.external_wake =
                self.bus.periph.routes_interrupts() && (self.second_runs() || alarm.is_some());
            let (insns0, cycles0) = (self.iss.cpu.insns, self.iss.cpu.cycles);
            let stop = self.iss.run(&mut self.bus, &mut bridge, insns_left, slice);
            insns_left = insns_left.saturating_sub(self.iss.cpu.insns - insns0);
            cycles_left = cycles_left.saturating_sub(self.iss.cpu.cycles - cycles0);
            // A WAITI reached after the slice began with no alarm armed, but one is now: the
            // core waits for it in the next slice.
            let armed_since = matches!(stop, StopReason::WaitI { .. })
                && !self.iss.cpu.external_wake
                && self.bus.periph.routes_interrupts()
                && self.bus.periph.next_event().is_some();
            if self.second.is_none() && alarm.is_none() && !armed_since {
                break stop;
            }
            if self.second_runs() {
                self.run_second_core();
            }
            self.bus.periph.advance(self.iss.cpu.cycles);
            self.watch_second_core();
            if self.bus.periph.reset_requested().is_some() {
                // A watchdog's stage reset the chip as time passed.
                break StopReason::BusRequest {
                    pc: self.iss.cpu.pc,
                };
            }
            match stop {
                StopReason::CycleLimit { .. } if cycles_left > 0 && insns_left > 0 => {}
                StopReason::WaitI { .. } if armed_since => {}
                other => break other,
            }
        };
        self.bus.flush_traffic();
        let last = bridge.last_exception;
        self.pending_flow = bridge.flow;
        Ok(self.map_stop(stop, last))
    }

    fn finish_semihosting(&mut self, result: u32) -> Result<(), CoreError> {
        // The ISS has already stepped past SIMCALL.
        self.iss.cpu.set_ar(2, result);
        Ok(())
    }

    fn pc(&self) -> u32 {
        self.iss.cpu.pc
    }

    fn register(&self, n: usize) -> u32 {
        self.iss.cpu.ar(n as u32 & 15)
    }

    fn registers(&self) -> Vec<(&'static str, u32)> {
        const NAMES: [&str; 16] = [
            "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13",
            "a14", "a15",
        ];
        let cpu = &self.iss.cpu;
        let mut v: Vec<(&'static str, u32)> = NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, cpu.ar(i as u32)))
            .collect();
        v.push(("pc", cpu.pc));
        v.push(("ps", cpu.ps()));
        v.push(("sar", cpu.sar));
        if cpu.cfg.windowed {
            v.push(("windowbase", cpu.windowbase()));
            v.push(("windowstart", cpu.windowstart()));
        }
        v.push(("exccause", cpu.exccause));
        v.push(("excvaddr", cpu.excvaddr));
        v.push(("epc1", cpu.epc[1]));
        v
    }

    fn cycles(&self) -> u64 {
        self.iss.cpu.cycles
    }

    fn instructions(&self) -> u64 {
        self.iss.cpu.insns
    }

    fn memory(&self) -> &MemorySystem {
        &self.bus.mem
    }

    fn memory_mut(&mut self) -> &mut MemorySystem {
        &mut self.bus.mem
    }

    fn take_console(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bus.console)
    }

    fn take_warnings(&mut self) -> Vec<(u32, String)> {
        let pc = self.iss.cpu.pc;
        self.bus
            .periph
            .take_polls()
            .into_iter()
            .map(|p| {
                let what = if self.bus.strict_mmio { "stopped: " } else { "" };
                (
                    pc,
                    format!(
                        "{what}the firmware polls {} (0x{:08x}) without progress: {} reads in a row gave 0x{:08x} with no \
                         peripheral write in between",
                        p.register, p.addr, tigris_memmodels::periph::POLL_LIMIT, p.value
                    ),
                )
            })
            .collect()
    }

    fn call_function(
        &mut self,
        addr: u32,
        args: &[u32],
        sp: u32,
        max_instructions: u64,
    ) -> Result<u32, CoreError> {
        // As a CALL4 from a caller whose stack is at `sp` would leave it (windowed cores: the callee's
        // ENTRY rotates by 4, RETW returns to `ret`), or a CALL0 on the LX106. The return address is
        // a breakpoint that stops the run there.
        let cpu = &mut self.iss.cpu;
        let windowed = cpu.cfg.windowed;
        // The PC `reset` set (the firmware's entry): fetchable, and where the next run starts anyway.
        let ret = cpu.pc;
        let base = if windowed { 4 } else { 0 };
        cpu.set_ps(if windowed {
            PS_WOE | (1 << super::cpu::PS_CALLINC_SHIFT)
        } else {
            0
        });
        cpu.set_ar(1, sp);
        cpu.set_ar(
            base,
            if windowed {
                (1 << 30) | (ret & 0x3FFF_FFFF)
            } else {
                ret
            },
        );
        for (i, a) in args.iter().enumerate() {
            cpu.set_ar(base + 2 + i as u32, *a);
        }
        cpu.pc = addr;
        if windowed && (addr ^ ret) & 0xC000_0000 != 0 {
            return Err(CoreError::Engine(format!(
                "0x{addr:08x} and the return address 0x{ret:08x} are in different 1 GiB windows"
            )));
        }
        self.iss.add_breakpoint(ret);
        let mut quiet = crate::NoObserver;
        let mut bridge = Bridge::aside(&mut quiet);
        let stop = self
            .iss
            .run(&mut self.bus, &mut bridge, max_instructions, u64::MAX);
        self.iss.remove_breakpoint(ret);
        self.bus.flush_traffic();
        match stop {
            StopReason::Breakpoint { pc } if pc == ret => Ok(self.iss.cpu.ar(base + 2)),
            other => Err(CoreError::Engine(format!(
                "the call of 0x{addr:08x} did not return within {max_instructions} instructions ({other:?}, pc 0x{:08x})",
                self.iss.cpu.pc
            ))),
        }
    }

    fn clock_changes(&self) -> Vec<(u64, u64)> {
        self.bus.periph.clock_changes().to_vec()
    }

    fn run_notes(&self) -> Vec<String> {
        let shown = self.bus.periph.console_device().unwrap_or_default();
        let mut notes: Vec<String> = self
            .bus
            .periph
            .other_console_bytes()
            .iter()
            .map(|(name, n)| {
                format!("{name} also received {n} console bytes (the console shows {shown}, the device that received the most, the first written on a tie)")
            })
            .collect();
        if let Some((region, was, now)) = &self.bus.psram_refitted {
            notes.push(format!(
                "the firmware's PSRAM driver speaks the {now} protocol: a {now} PSRAM chip took the place of the board's {was} one \
                 and PSRAM is priced in {now} mode from then on (--set {region}.mode={was} keeps the {was} chip)"
            ));
        }
        let (kept, count) = &self.bus.dropped_writes;
        if *count > 0 {
            let addrs: Vec<String> = kept.iter().map(|a| format!("0x{a:08x}")).collect();
            notes.push(format!(
                "{count} stores went to addresses no memory or device covers and were lost, as on the chip (first: {})",
                addrs.join(", ")
            ));
        }
        notes.extend(self.bus.periph.record_notes());
        if let Some(s) = self.second.as_ref().filter(|s| s.iss.cpu.insns > 0) {
            let cpu = &s.iss.cpu;
            notes.push(format!(
                "the second core (PRID 0x{:04X}) ran {} instructions in {} cycles{}{}",
                s.spec.prid,
                cpu.insns,
                cpu.cycles - s.started_at,
                if s.profile.is_some() {
                    ""
                } else {
                    " (not profiled)"
                },
                match &s.halted {
                    Some(why) => format!("; it stopped: {why}"),
                    None => format!("; it is at 0x{:08x}", cpu.pc),
                }
            ));
        }
        notes
    }

    fn profile_other_cores(&mut self, starts: &[u32], owner: usize) {
        if let Some(s) = self.second.as_mut() {
            let cpu = &s.iss.cpu;
            s.profile = Some(crate::flat::FlatProfile::new(
                starts.to_vec(),
                owner,
                cpu.cycles,
                cpu.insns,
            ));
        }
    }

    fn other_cores(&self) -> Vec<crate::OtherCore> {
        let Some(s) = self.second.as_ref().filter(|s| s.iss.cpu.insns > 0) else {
            return Vec::new();
        };
        let cpu = &s.iss.cpu;
        let counts = s.profile.as_ref().map_or_else(Vec::new, |p| {
            let mut p = p.clone();
            p.charge(cpu.cycles, cpu.insns);
            p.counts
        });
        vec![crate::OtherCore {
            prid: s.spec.prid,
            cycles: cpu.cycles - s.started_at,
            instructions: cpu.insns,
            idle_cycles: cpu.idle_cycles,
            pc: cpu.pc,
            counts,
        }]
    }

    fn disassemble(&self, addr: u32) -> Option<String> {
        let (text, _) = disasm_word(self.instruction_word(addr)?, addr, self.cfg());
        Some(text)
    }

    fn instruction_length(&self, addr: u32) -> Option<u32> {
        // The decoder alone: the disassembly text is not needed.
        Some(
            decode(self.instruction_word(addr)?, addr, self.cfg())
                .len
                .into(),
        )
    }

    fn semihosting_abi(&self) -> SemihostingAbi {
        SemihostingAbi::XtensaSimcall
    }

    fn set_register(&mut self, n: usize, value: u32) -> Result<(), CoreError> {
        if n >= 16 {
            return Err(CoreError::Engine(format!("no register a{n}")));
        }
        self.iss.cpu.set_ar(n as u32, value);
        Ok(())
    }

    fn stack_pointer(&self) -> u32 {
        self.iss.cpu.ar(1)
    }

    fn call_instruction_bytes(&self) -> u32 {
        3
    }

    fn return_address(&self) -> Option<u32> {
        Some(self.iss.cpu.hle_return_address())
    }

    fn set_traps(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        for &a in addrs {
            self.iss.add_breakpoint(a);
            self.traps.insert(a);
        }
        Ok(())
    }

    fn set_breakpoints(&mut self, addrs: &[u32]) -> Result<(), CoreError> {
        self.replace_breakpoints(addrs);
        Ok(())
    }

    fn set_watchpoints(&mut self, watches: &[Watchpoint]) -> Result<(), CoreError> {
        self.replace_watchpoints(watches);
        Ok(())
    }

    /// Instruction budgets of the ISS are exact.
    fn step(&mut self, observer: &mut dyn ExecObserver) -> Result<Stop, CoreError> {
        let one = Budget {
            cycles: u64::MAX,
            instructions: 1,
        };
        self.run(one, observer)
    }

    fn debug_register(&self, name: &str) -> Option<u32> {
        self.debug_register_value(name)
    }

    fn core_count(&self) -> usize {
        1 + usize::from(self.second.is_some())
    }

    fn core_register(&self, core: usize, name: &str) -> Option<u32> {
        self.core_register_value(core, name)
    }

    fn set_debug_register(&mut self, name: &str, value: u32) -> Result<(), CoreError> {
        self.write_debug_register(name, value)
    }

    fn call_argument(&self, i: u32) -> u32 {
        self.iss.cpu.call_arg(i)
    }

    /// a2-a7 (CALL0 ABI) or the caller's a(4n+2)..a(4n+7) (windowed ABI): six argument registers in both
    /// ABIs (Xtensa ISA Reference Manual, "The Windowed Register and CALL0 ABIs").
    fn register_arguments(&self) -> u32 {
        6
    }

    fn set_call_argument(&mut self, i: u32, value: u32) -> Result<(), CoreError> {
        self.iss.cpu.set_call_arg(i, value);
        Ok(())
    }

    fn return_from_call(&mut self, value: u32, cycles: u64) -> Result<(), CoreError> {
        let cpu = &mut self.iss.cpu;
        let pc = cpu.pc;
        let before = (cpu.cycles, cpu.insns);
        cpu.hle_return(value);
        let return_to = cpu.pc;
        cpu.cycles += cycles;
        // The profiler sees the emulated function as a call that returns.
        self.pending_call = Some(EmulatedCall {
            pc,
            return_to,
            cycles: before.0,
            instructions: before.1,
        });
        self.pending_flow = Some(Flow::Return);
        Ok(())
    }
}

/// The ISS configuration a board's core kind selects (for tools that decode without a machine).
pub fn config_for(kind: CoreKind) -> Option<XtensaConfig> {
    match kind {
        CoreKind::XtensaLx7 => Some(XtensaConfig::esp32s3()),
        CoreKind::XtensaLx6 => Some(XtensaConfig::esp32()),
        CoreKind::XtensaLx106 => Some(XtensaConfig::esp8266()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(bus: &mut EspBus, addr: u32) -> u32 {
        bus.read_at(addr, 4, 0).unwrap()
    }

    /// The ESP32-S3's MMU: the bootloader's entries map the loaded pages to consecutive flash
    /// pages from the app's offset; an entry the firmware points at PSRAM maps that page of the
    /// data window there (ESP-IDF puts PSRAM after the flash rodata), and an invalid entry gives
    /// the window its own storage back.
    #[test]
    fn mmu_hands_over_the_image_pages_and_maps_psram_where_told() {
        let board = tigris_targets::load("esp32s3").unwrap();
        let mut bus = EspBus::new(&board);
        bus.load(0x3C02_0020, &[1, 2, 3, 4]).unwrap(); // rodata, entry 2
        bus.load(0x4200_0020, &[5, 6, 7, 8]).unwrap(); // text, entry 0
        bus.hand_over_mmu();
        let table = 0x600C_5000;
        // In address order, as elf2image lays them out: the rodata first.
        assert_eq!(
            word(&mut bus, table + 8),
            1,
            "rodata: the first flash page after 0x10000"
        );
        assert_eq!(word(&mut bus, table), 2, "text");
        assert_eq!(word(&mut bus, table + 4), 0x4000, "unloaded: invalid");
        assert_eq!(word(&mut bus, 0x3C02_0020), 0x0403_0201);
        // PSRAM page 0 at data-window page 3.
        bus.write_at(table + 12, 4, 0x8000, 0).unwrap();
        bus.write_at(0x3C03_0010, 4, 0xDEAD_BEEF, 0).unwrap();
        assert_eq!(
            word(&mut bus, 0x3D00_0010),
            0xDEAD_BEEF,
            "the PSRAM's first page"
        );
        assert_eq!(
            bus.region_of(0x3C03_0010),
            board.regions.iter().position(|r| r.name == "psram")
        );
        // Unmapped again: the window's own (flash) storage, which holds nothing there.
        bus.write_at(table + 12, 4, 0x4000, 0).unwrap();
        assert_eq!(word(&mut bus, 0x3C03_0010), 0);
        // Flash page 2 (the text) mapped into the data window's page 5 reads the text.
        bus.write_at(table + 20, 4, 2, 0).unwrap();
        assert_eq!(word(&mut bus, 0x3C05_0020), 0x0807_0605);
    }
}
