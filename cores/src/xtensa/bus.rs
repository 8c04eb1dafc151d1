//! Memory interface of the ISS and a simple region-backed memory for tests and tools.

pub use super::backend::DataView;

/// A failed bus access (unmapped address, write to ROM, peripheral error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusFault {
    pub addr: u32,
}

/// Memory as the core sees it. The simulator implements this with its board memory map and latency
/// models. Accesses are little-endian; `size` is 1, 2 or 4 bytes. On cores without the alignment
/// exception (LX6/LX7) `read`/`write` may receive misaligned addresses and must handle them.
pub trait XtensaBus {
    /// Data load of `size` bytes, zero-extended.
    fn read(&mut self, addr: u32, size: u32) -> Result<u32, BusFault>;
    /// Data store of the low `size` bytes of `value`.
    fn write(&mut self, addr: u32, size: u32, value: u32) -> Result<(), BusFault>;
    /// `read` by the core at cycle `now` (the cycle count at the start of the running block), which
    /// peripheral timers and delayed register effects are measured against.
    #[inline(always)]
    fn read_at(&mut self, addr: u32, size: u32, _now: u64) -> Result<u32, BusFault> {
        self.read(addr, size)
    }
    /// `write` by the core at cycle `now` (see `read_at`).
    #[inline(always)]
    fn write_at(&mut self, addr: u32, size: u32, value: u32, _now: u64) -> Result<(), BusFault> {
        self.write(addr, size, value)
    }
    /// Instruction fetch of the 4 bytes at `addr` (little-endian, any alignment). Bytes past the end
    /// of a mapped region may read as 0; only a fault on the first byte is an error.
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault>;
    /// Stall cycles accumulated by memory accesses since the last call (added to the cycle count,
    /// so CCOUNT includes them). Polled once per executed block.
    #[inline]
    fn take_stall_cycles(&mut self) -> u64 {
        0
    }
    /// The core is about to execute the decoded block of `len` bytes at `pc` (once per executed
    /// block, including zero-overhead loop iterations): a bus that prices instruction fetch (caches,
    /// wait states) charges it here, to be returned by `take_stall_cycles`. `now` is the cycle count.
    #[inline(always)]
    fn block_fetch(&mut self, _pc: u32, _len: u32, _now: u64) {}
    /// Whether `block_fetch` may do anything for a block at `pc` (asked once when the block is
    /// decoded; the answer must not change while the decoded block is cached). `false` lets the
    /// core skip the call on every execution of the block.
    #[inline]
    fn fetch_priced(&self, _pc: u32) -> bool {
        true
    }
    /// A counter the bus increments whenever memory that was fetched as code is written. The core
    /// flushes its decoded-block cache when it changes (checked at block boundaries).
    #[inline]
    fn code_generation(&self) -> u64 {
        0
    }
    /// Charge the following accesses to `owner` (the observer's index, e.g. a function's).
    #[inline(always)]
    fn set_owner(&mut self, _owner: usize) {}
    /// A number that changes whenever the interrupt lines peripherals drive into this core may
    /// have changed (checked at block boundaries; `interrupt_lines` is asked only then).
    #[inline(always)]
    fn interrupt_epoch(&self) -> u64 {
        0
    }
    /// The interrupt lines (bit n: interrupt n) peripherals drive into the running core now.
    fn interrupt_lines(&mut self) -> u32 {
        0
    }
    /// Whether the core must stop before its next block (asked when `interrupt_epoch` changes).
    fn stop_requested(&self) -> bool {
        false
    }
    /// Bit r set: the running core's region protection refuses data accesses to 512 MB region r.
    /// A bus that lets stores to nothing complete silently must refuse them there instead, so that
    /// the core raises its exception.
    fn set_illegal_regions(&mut self, _regions: u8) {}
    /// Where compiled code may make plain data accesses itself, as the bus would make them
    /// (`DataView`); `None`: every access calls the bus.
    fn data_view(&mut self) -> Option<DataView> {
        None
    }
}

struct Region {
    base: u32,
    data: Vec<u8>,
    writable: bool,
    /// One bit per 256-byte chunk that instructions were fetched from.
    code: Vec<u64>,
}

/// Flat, region-backed little-endian memory. Writes to chunks that were fetched from bump
/// `code_generation`, so self-modifying code and loaders invalidate the decoded-block cache.
pub struct FlatMemory {
    regions: Vec<Region>,
    last: usize,
    generation: u64,
}

impl Default for FlatMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl FlatMemory {
    pub fn new() -> Self {
        FlatMemory {
            regions: Vec::new(),
            last: 0,
            generation: 0,
        }
    }

    /// Map `size` bytes of zeroed memory at `base`.
    pub fn add_region(&mut self, base: u32, size: u32, writable: bool) {
        let chunks = (size as usize).div_ceil(256);
        self.regions.push(Region {
            base,
            data: vec![0; size as usize],
            writable,
            code: vec![0; chunks.div_ceil(64)],
        });
    }

    /// Copy bytes into memory (loader access: ignores write protection). Returns false if unmapped.
    pub fn load(&mut self, addr: u32, bytes: &[u8]) -> bool {
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            match self.find(a) {
                Some(ri) => {
                    let r = &mut self.regions[ri];
                    r.data[(a - r.base) as usize] = *b;
                }
                None => return false,
            }
        }
        self.generation += 1;
        true
    }

    /// Read bytes (debugger access).
    pub fn peek(&mut self, addr: u32, len: usize) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            let a = addr.wrapping_add(i as u32);
            let ri = self.find(a)?;
            let r = &self.regions[ri];
            out.push(r.data[(a - r.base) as usize]);
        }
        Some(out)
    }

    #[inline]
    fn find(&mut self, addr: u32) -> Option<usize> {
        if let Some(r) = self.regions.get(self.last) {
            if addr.wrapping_sub(r.base) < r.data.len() as u32 {
                return Some(self.last);
            }
        }
        for (i, r) in self.regions.iter().enumerate() {
            if addr.wrapping_sub(r.base) < r.data.len() as u32 {
                self.last = i;
                return Some(i);
            }
        }
        None
    }

    #[inline]
    fn byte(&mut self, addr: u32) -> Option<u8> {
        let ri = self.find(addr)?;
        let r = &self.regions[ri];
        Some(r.data[(addr - r.base) as usize])
    }
}

impl FlatMemory {
    #[cold]
    fn read_slow(&mut self, addr: u32, size: u32) -> Result<u32, BusFault> {
        let mut v = 0u32;
        for i in 0..size {
            let a = addr.wrapping_add(i);
            v |= (self.byte(a).ok_or(BusFault { addr: a })? as u32) << (8 * i);
        }
        Ok(v)
    }

    #[cold]
    fn write_slow(&mut self, addr: u32, size: u32, value: u32) -> Result<(), BusFault> {
        if size == 1 {
            let ri = self.find(addr).ok_or(BusFault { addr })?;
            let r = &mut self.regions[ri];
            if !r.writable {
                return Err(BusFault { addr });
            }
            let off = (addr - r.base) as usize;
            r.data[off] = value as u8;
            self.note_code_write(ri, off);
            return Ok(());
        }
        for i in 0..size {
            self.write_slow(addr.wrapping_add(i), 1, value >> (8 * i))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn note_code_write(&mut self, ri: usize, off: usize) {
        let r = &mut self.regions[ri];
        let c = off >> 8;
        if r.code[c >> 6] & (1 << (c & 63)) != 0 {
            for w in r.code.iter_mut() {
                *w = 0;
            }
            self.generation += 1;
        }
    }
}

impl XtensaBus for FlatMemory {
    #[inline(always)]
    fn read(&mut self, addr: u32, size: u32) -> Result<u32, BusFault> {
        if let Some(r) = self.regions.get(self.last) {
            let off = addr.wrapping_sub(r.base) as usize;
            if off + 4 <= r.data.len() {
                let d = &r.data[off..off + 4];
                let w = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                return Ok(match size {
                    1 => w & 0xFF,
                    2 => w & 0xFFFF,
                    _ => w,
                });
            }
        }
        self.read_slow(addr, size)
    }

    #[inline(always)]
    fn write(&mut self, addr: u32, size: u32, value: u32) -> Result<(), BusFault> {
        let last = self.last;
        if let Some(r) = self.regions.get_mut(last) {
            let off = addr.wrapping_sub(r.base) as usize;
            if r.writable && off + 4 <= r.data.len() && (off & 255) <= 252 {
                let bytes = value.to_le_bytes();
                r.data[off..off + size as usize].copy_from_slice(&bytes[..size as usize]);
                self.note_code_write(last, off);
                return Ok(());
            }
        }
        self.write_slow(addr, size, value)
    }

    #[inline]
    fn fetch(&mut self, addr: u32) -> Result<u32, BusFault> {
        let ri = self.find(addr).ok_or(BusFault { addr })?;
        let r = &mut self.regions[ri];
        let off = (addr - r.base) as usize;
        let c = off >> 8;
        r.code[c >> 6] |= 1 << (c & 63);
        let c2 = (off + 3).min(r.data.len() - 1) >> 8;
        r.code[c2 >> 6] |= 1 << (c2 & 63);
        if off + 4 <= r.data.len() {
            let d = &r.data[off..off + 4];
            return Ok(u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
        }
        let mut v = 0u32;
        for i in 0..4u32 {
            v |= (self.byte(addr.wrapping_add(i)).unwrap_or(0) as u32) << (8 * i);
        }
        Ok(v)
    }

    #[inline]
    fn code_generation(&self) -> u64 {
        self.generation
    }
}
